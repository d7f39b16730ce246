"""The values the analysis computes without running anything, and what JavaScript does with them.

A value is a ``str`` (a known string), a ``Num``, ``Strings`` (an array of known strings), an ``Api``
(a module, global or member of one), ``DATA`` (harmless content we do not know) or None (unknown,
and possibly anything). Everything here is pure: it folds values, it records nothing.
"""

from __future__ import annotations

import posixpath
import re
from functools import cache
from typing import TYPE_CHECKING, TypeAlias

from ....record import Record
from ..findings import file_url_path

if TYPE_CHECKING:
    from tree_sitter import Node


class Num(Record):
    """A number: its decimal spelling when it is a plain integer literal, else None."""

    text: str | None


class Strings(Record):
    """An array of known strings, such as an argument vector."""

    items: tuple[str, ...]


class Api(Record):
    """A known part of the runtime: a module or global (``fs``, ``process``, ``eval``), one of its
    members (``fs`` and ``rmSync``), or the file a ``Bun.file(path)`` or a ``file:`` URL object
    (``new URL("file:///x")``, module ``URL``) stands for (member ``file()``; path None: computed)."""

    module: str
    member: str = ""
    path: str | None = None

    @property
    def name(self) -> str:
        return f"{self.module}.{self.member}" if self.member else self.module


class _Data:
    """A value whose content is unknown but which cannot be a module or one of its functions (an
    object or regex literal, the result of a string method): calls on it are not doubts."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "DATA"


DATA = _Data()

Value: TypeAlias = str | Num | Strings | Api | _Data | None
# The properties of an options object literal: each name's value and the node that spelt it (whose
# type tells ``{shell: false}`` from a variable).
Options: TypeAlias = "dict[str, tuple[Value, Node]]"

_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v"}
_CONTINUATIONS = ("\n", "\r", "\r\n", "\u2028", "\u2029")


# The patterns are compiled at their first use, not at import: most programs need neither, and the
# hook is a new process per tool call.
@cache
def _escape() -> re.Pattern[str]:
    return re.compile(r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[0-7]{1,3}|\r\n|.)", re.S)


@cache
def scheme() -> re.Pattern[str]:
    """A URL that starts with a scheme (after the C0 controls and spaces a URL parser skips)."""
    return re.compile(r"[\x00- ]*[A-Za-z][A-Za-z0-9+.\-]*:")


def words(text: str) -> frozenset[str]:
    """A table of names, written as one string to keep it readable."""
    return frozenset(text.split())


def unescape(text: str) -> str:
    """A JavaScript string's escapes decoded (``\\n``, ``\\x41``, ``\\u{1F600}``, line continuations)."""

    def one(match: re.Match[str]) -> str:
        body = match.group(1)
        if body[0] == "u" and len(body) > 1:
            code = int(body[2:-1] if body[1] == "{" else body[1:], 16)
            return "\ufffd" if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF else chr(code)
        if body[0] == "x" and len(body) == 3:
            return chr(int(body[1:], 16))
        if body[0] in "01234567":
            return chr(int(body, 8))
        if body in _CONTINUATIONS:
            return ""
        return _SIMPLE_ESCAPES.get(body, body)

    return _escape().sub(one, text)


def as_text(value: Value) -> str | None:
    """How a known string or integer prints, else None."""
    if isinstance(value, str):
        return value
    return value.text if isinstance(value, Num) else None


def plus(left: Value, right: Value) -> Value:
    """JavaScript's ``+`` on abstract values: concatenation when both sides are known."""
    if isinstance(left, str) or isinstance(right, str):
        first, second = as_text(left), as_text(right)
        return first + second if first is not None and second is not None else DATA
    return Num(None) if isinstance(left, Num) and isinstance(right, Num) else DATA


def join(parts: list[str]) -> str:
    """``path.join``: the non-empty parts joined with ``/`` and normalized (``.`` when empty)."""
    joined = "/".join(part for part in parts if part)
    return posixpath.normpath(joined) if joined else "."


def short(text: str) -> str:
    """``text`` fit for one line of a doubt."""
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


def is_file(value: Value) -> bool:
    """Whether ``value`` stands for a file (a ``file:`` URL object, a ``Bun.file``)."""
    return isinstance(value, Api) and value.member == "file()"


def resolve_url(text: str, base: Value) -> str | None:
    """``new URL(text, base)`` as far as a ``file:`` URL's path goes (None: cannot tell)."""
    if scheme().match(text) or base is None:
        return text
    if isinstance(base, Api) and base.member == "file()" and base.path is not None:
        base = "file://" + base.path
    if not isinstance(base, str):
        return None
    root = file_url_path(base, whatwg=True)
    if root is None:
        return base  # relative to a URL of another scheme: not a file
    relative = text.replace("\\", "/")
    if relative.startswith("//"):
        return "file:" + relative
    if relative.startswith("/"):
        return "file://" + relative
    if relative.startswith(("?", "#")) or not relative:
        return "file://" + root
    return "file://" + posixpath.dirname(root) + "/" + relative
