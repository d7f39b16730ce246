"""What Python's operators and the str and pathlib methods compute, on known values.

Only what builds commands and paths is modelled (``+``, ``/``, ``%``, ``.format``, ``.join``,
``Path.with_suffix``...); anything else is unknown.
"""

from __future__ import annotations

import re

from .paths import absolute, expand_user, join, parent_of, pure, renamed
from .values import MAX_TEXT, Call, Const, PathValue, Seq, Value, as_text, path_text, short, string_value


def percent(template: str, values: tuple[Value, ...]) -> str | None:
    """``template % values`` for ``%s``, ``%d`` and ``%%`` only."""
    out: list[str] = []
    used = 0
    for piece in re.split(r"(%.?)", template, flags=re.S):
        if not piece.startswith("%"):
            out.append(piece)
        elif piece == "%%":
            out.append("%")
        elif piece in ("%s", "%d", "%i") and used < len(values):
            text = as_text(values[used], numeric=piece != "%s")
            if text is None:
                return None
            out.append(text)
            used += 1
        else:
            return None
    return "".join(out) if used == len(values) else None


def format_fields(template: str, args: tuple[Value, ...], keywords: dict[str, Value]) -> str | None:
    """``template.format(...)`` for plain ``{}``, ``{0}`` and ``{name}`` fields only."""
    out: list[str] = []
    automatic = 0
    for token in re.split(r"(\{\{|\}\}|\{[^{}]*\})", template):
        if token in ("{{", "}}"):
            out.append(token[0])
            continue
        if not token.startswith("{"):
            if "{" in token or "}" in token:
                return None
            out.append(token)
            continue
        field = token[1:-1]
        value: Value
        if field == "":
            value, automatic = (args[automatic] if automatic < len(args) else None), automatic + 1
        elif field.isdigit():
            value = args[int(field)] if int(field) < len(args) else None
        else:
            value = keywords.get(field)
        text = as_text(value)
        if text is None:
            return None
        out.append(text)
    return "".join(out)


def plus(left: Value, right: Value) -> Value:
    if isinstance(left, Const) and isinstance(right, Const):
        if isinstance(left.value, str) and isinstance(right.value, str):
            return short(left.value + right.value)
        if isinstance(left.value, bytes) and isinstance(right.value, bytes):
            return short(left.value + right.value)
    if isinstance(left, Seq) and isinstance(right, Seq) and len(left.items) + len(right.items) <= MAX_TEXT:
        return Seq(left.items + right.items, left.mutable)
    return None


def divide(left: Value, right: Value) -> Value:
    """``path / "part"`` and ``"base" / path``."""
    if not isinstance(left, PathValue) and not isinstance(right, PathValue):
        return None
    base, part = path_text(left), path_text(right)
    if base is None or part is None:
        return PathValue(None)
    return PathValue(pure(join(base, part)))


def path_attribute(path: PathValue, name: str) -> Value:
    text = path.text
    if name == "parent":
        return PathValue(parent_of(text))
    if text is None or name not in ("name", "stem", "suffix"):
        return None
    base = text.rpartition("/")[2] if text not in (".", "/") else ""
    stem, dot, suffix = base.rpartition(".")
    if not stem:
        stem, dot, suffix = base, "", ""
    return Const({"name": base, "stem": stem, "suffix": dot + suffix}[name])


def path_transform(
    path: PathValue, name: str, call: Call, home: str, cwd: str | None, transforms: frozenset[str]
) -> Value:
    """A path method that makes another path (or its spelling) from this one (``transforms``: the
    methods that do, as ``api.json`` lists them)."""
    text = path.text
    if name in ("as_posix", "__str__", "__fspath__"):
        return Const(text) if text is not None else None
    if name not in transforms:
        return None
    arguments = [path_text(value) for value in call.args]
    if text is None or call.open_ended or None in arguments:
        return PathValue(None)
    parts = [a for a in arguments if a is not None]
    result: str | None = None
    if name == "joinpath":
        result = text
        for part in parts:
            result = join(result, part)
    elif name == "expanduser":
        result = expand_user(text, home)
    elif name in ("resolve", "absolute"):
        result = absolute(text, cwd)
    elif name in ("with_name", "with_suffix", "with_stem") and len(parts) == 1:
        result = renamed(text, name, parts[0])
    return PathValue(pure(result) if result is not None else None)


def text_method(receiver: str | bytes | int | float | None, name: str, call: Call) -> Value:
    """The str methods that build commands and paths (``" ".join``, ``.format``), on constants."""
    if not isinstance(receiver, str) or call.open_ended:
        return None
    args = tuple(string_value(value) for value in call.args)
    if name == "join" and len(call.args) == 1 and isinstance(call.args[0], Seq):
        items = [string_value(item) for item in call.args[0].items]
        return short(receiver.join(i for i in items if i is not None)) if None not in items else None
    if name == "format":
        return short(format_fields(receiver, call.args, call.keywords))
    if None in args or call.keywords:
        return None
    texts = [a for a in args if a is not None]
    if name in ("strip", "lstrip", "rstrip") and len(texts) <= 1:
        return Const(getattr(receiver, name)(*texts))
    if name in ("lower", "upper") and not texts:
        return Const(getattr(receiver, name)())
    if name in ("removeprefix", "removesuffix") and len(texts) == 1:
        return Const(getattr(receiver, name)(texts[0]))
    if name == "replace" and len(texts) == 2:
        return short(receiver.replace(texts[0], texts[1]))
    if name == "split" and len(texts) <= 1 and (not texts or texts[0]):
        parts = receiver.split(texts[0]) if texts else receiver.split()
        return Seq(tuple(Const(part) for part in parts), True)
    return None
