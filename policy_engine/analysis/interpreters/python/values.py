"""The values the analysis computes for expressions, and what a call is given.

A value is what can be known of an expression without running it (``Value``): a constant, a list of
known length, a module or a name reached from one, a pathlib path, an object of a known kind, a
function of the program itself, or None (unknown, possibly anything).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....record import Record
from .paths import TEMP

if TYPE_CHECKING:
    from tree_sitter import Node


MAX_TEXT = 1 << 16  # a computed string longer than this is unknown, so that doubling cannot exhaust memory
ENVIRON = frozenset(("os.environ", "os.environb"))  # the environment, as a mapping


class Const(Record):
    """A constant: a string, bytes, a number, True/False or None."""

    value: str | bytes | int | float | None


class Seq(Record):
    """A list or tuple of known length; ``mutable`` for a list, which a later call may change."""

    items: tuple[Value, ...]
    mutable: bool


class Ref(Record):
    """A module or something reached from one by name (``os``, ``os.remove``); builtins are bare
    (``open``). Names are canonical: ``posix.remove`` and ``shutil.os.remove`` are ``os.remove``."""

    name: str


class PathValue(Record):
    """A pathlib path: its pure spelling, possibly relative (resolved when it is used, as Python
    does), or None when it is computed at run time."""

    text: str | None


class Obj(Record):
    """An object whose methods are known: ``file``, ``zip``, ``tar``, ``etree``, ``tempdir``,
    ``config`` (a ``ConfigParser``), ``cookies`` (a cookie jar kept in a file), ``sqlite`` (a database
    connection or cursor), ``environ`` (a copy of the environment), ``namespace`` (``globals()``),
    ``handle`` (any other). ``path`` is the file the object was made for, as spelt (``""``: none,
    None: computed at run time), for those whose methods default to it (a cookie jar's ``save()``)."""

    kind: str
    path: str | None = ""


class Func(Record):
    """A function, lambda or class of the program itself: calling it does nothing more than its body,
    which is analysed where it is defined."""

    name: str


Value = Const | Seq | Ref | PathValue | Obj | Func | None


class Call(Record):
    """The arguments of one call, as far as they are known."""

    name: str
    line: int
    args: tuple[Value, ...]
    keywords: dict[str, Value]
    open_ended: bool  # a *args or **kwargs: any argument may be there, with an unknown value

    def arg(self, position: int | None, keyword: str) -> tuple[bool, Value]:
        """Whether the argument at ``position`` or named ``keyword`` may be given, and its value."""
        if position is not None and position < len(self.args):
            return True, self.args[position]
        if keyword in self.keywords:
            return True, self.keywords[keyword]
        return self.open_ended, None


class Method(Record):
    """A method about to be called: its receiver's value and node (a list it changes is forgotten)."""

    receiver: Value
    name: str
    node: Node


def is_environ(value: Value) -> bool:
    return (isinstance(value, Ref) and value.name in ENVIRON) or (
        isinstance(value, Obj) and value.kind == "environ"
    )


def same(a: Value | object, b: Value | object) -> bool:
    """Equality that tells value kinds apart (NamedTuples compare as plain tuples)."""
    return type(a) is type(b) and a == b


def string_value(value: Value) -> str | None:
    return value.value if isinstance(value, Const) and isinstance(value.value, str) else None


def path_text(value: Value) -> str | None:
    """The path a value spells (as written: possibly relative), or None when it is not known."""
    if isinstance(value, Const):
        if isinstance(value.value, str):
            return value.value
        if isinstance(value.value, bytes):
            return value.value.decode("utf-8", "replace")
    elif isinstance(value, PathValue):
        return value.text
    elif isinstance(value, Obj) and value.kind == "tempdir":
        return TEMP
    return None


def not_a_path(value: Value) -> bool:
    """Whether a value is a file descriptor, None (an argument's default) or an open file: no path."""
    if isinstance(value, Const):
        return not isinstance(value.value, str | bytes)
    return isinstance(value, Obj) and value.kind != "tempdir"


def as_text(value: Value, numeric: bool = False) -> str | None:
    """How a value prints in an f-string or a ``%``/``format`` field, when it is a plain constant."""
    if isinstance(value, Const):
        if isinstance(value.value, bool) or value.value is None:
            return None if numeric else str(value.value)
        if isinstance(value.value, int):
            return str(value.value)
        if isinstance(value.value, str) and not numeric:
            return value.value
    if isinstance(value, PathValue) and not numeric:
        return value.text
    return None


def short(text: str | bytes | None) -> Value:
    """A computed constant, unless it grew too long to keep."""
    return Const(text) if text is not None and len(text) <= MAX_TEXT else None
