"""The JSON5 grammar of policy files as offsets into their text: the one scanner that reading
(:mod:`.jsonc`, for the line and column of every key) and editing (:mod:`.edit`, for where to
splice) share, so that the two can never disagree on where a string or a comment ends.

The scanner assumes valid JSON5 (json5 has accepted the text already); on JSON5 it does not follow
it raises :class:`Unfollowed` (a ValueError) or IndexError, never returns a wrong reading silently.

A ``//`` comment ends at a line terminator, as the JSON5 specification says: LF, CR, U+2028 or
U+2029. Stopping before a CR also keeps a CRLF pair whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import json5

from ..record import Record

LINE_COMMENT = r"//[^\n\r\u2028\u2029]*"
BLOCK_COMMENT = r"/\*.*?\*/"
# A string of either quote; an escaped line break continues it (hence DOTALL where it is used).
STRING_PATTERN = r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'"

SPACE = re.compile(rf"(?:\s|{LINE_COMMENT}|{BLOCK_COMMENT})*", re.DOTALL)
STRING = re.compile(STRING_PATTERN, re.DOTALL)
BARE = re.compile(r"[^\s,:\]}/]+")  # a number, true, false, null, Infinity, NaN
IDENTIFIER = re.compile(r"[^\s:/]+")  # an unquoted key
# Inside a container: runs of plain text, whole strings, whole comments, else one character.
_TOKEN = re.compile(rf"[^\"'/{{}}\[\]]+|{STRING_PATTERN}|{LINE_COMMENT}|{BLOCK_COMMENT}|.", re.DOTALL)


class Unfollowed(ValueError):
    """The text is JSON5 this scanner does not follow (json5 accepted it, we cannot place it)."""


class Entry(Record):
    """One member of an object or element of an array, as offsets into the text."""

    start: int  # the key of a member, the element itself in an array
    value: int  # where the value starts (== start for an element)
    end: int  # just after the value
    comma: int | None  # the comma that separates it from the next entry, if written
    key: str | None  # None in an array


class Container(Record):
    """An object or array: where its brackets are and what is between them."""

    open: int
    close: int
    entries: tuple[Entry, ...]


# Reads the value of an entry: (where the entry starts, where its value starts, its key or index)
# -> where the value ends.
ValueReader = Callable[[int, int, "str | int"], int]


def skip(pattern: re.Pattern[str], text: str, at: int) -> int:
    """The offset just past what ``pattern`` matches at ``at``."""
    found = pattern.match(text, at)
    if found is None:
        raise Unfollowed(f"unexpected text at offset {at}")
    return found.end()


def join_surrogates(value: Any) -> Any:
    """json5 decodes an escaped surrogate pair (``\\ud83d\\ude00``) as two lone surrogates; join them."""
    if isinstance(value, str):
        if any("\ud800" <= c <= "\udfff" for c in value):
            return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return value
    if isinstance(value, list):
        return [join_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {join_surrogates(k): join_surrogates(v) for k, v in value.items()}
    return value


def read_key(text: str, at: int) -> tuple[str, int]:
    """The key starting at ``at``, decoded as json5 decodes it, and the offset past it."""
    if text[at] in "\"'":
        end = skip(STRING, text, at)
        literal = text[at:end]
        if "\\" not in literal:  # nothing to decode: json5 would return the text between the quotes
            return literal[1:-1], end
        return str(join_surrogates(json5.loads(literal))), end
    end = skip(IDENTIFIER, text, at)
    return text[at:end], end


def value_end(text: str, at: int) -> int:
    """The offset just past the value starting at ``at``; a container is skipped whole."""
    char = text[at]
    if char in "{[":
        return _container_end(text, at)
    if char in "\"'":
        return skip(STRING, text, at)
    return skip(BARE, text, at)


def _container_end(text: str, at: int) -> int:
    """Skip a nested value by counting brackets outside strings and comments; a loop rather than
    recursion, so deep nesting cannot exhaust the stack."""
    depth = 0
    for token in _TOKEN.finditer(text, at):
        piece = token.group()
        if piece in ("{", "["):
            depth += 1
        elif piece in ("}", "]"):
            depth -= 1
            if depth == 0:
                return token.end()
    raise Unfollowed(f"unclosed container at offset {at}")


def top_object(text: str) -> int:
    """The offset of the ``{`` that opens the top-level object."""
    at = skip(SPACE, text, 0)
    if text.startswith("{", at):
        return at
    raise Unfollowed(f"no object at offset {at}")


def read_container(text: str, at: int) -> Container:
    """The object or array opening at ``at``, with the offsets of its entries; their values are
    skipped."""
    entries: list[Entry] = []
    close = _walk(text, at, None, entries)
    return Container(at, close, tuple(entries))


def walk_container(text: str, at: int, read_value: ValueReader) -> int:
    """Read each value of the object or array opening at ``at`` with ``read_value`` (which may
    descend into it); the offset just past the closing bracket."""
    return _walk(text, at, read_value, None) + 1


def _walk(text: str, at: int, read_value: ValueReader | None, entries: list[Entry] | None) -> int:
    """The one loop over the entries of a container, for both of the above: the offset of its
    closing bracket."""
    is_object = text[at] == "{"
    count = 0
    pos = skip(SPACE, text, at + 1)
    while text[pos] not in "}]":
        start, key = pos, None
        if is_object:
            key, pos = read_key(text, pos)
            pos = skip(SPACE, text, pos)
            if text[pos] != ":":
                raise Unfollowed(f"expected ':' at offset {pos}")
            pos = skip(SPACE, text, pos + 1)
        if read_value is None:
            end = value_end(text, pos)
        else:
            end = read_value(start, pos, count if key is None else key)
        value, pos = pos, skip(SPACE, text, end)
        comma = None
        if text[pos] == ",":
            comma = pos
            pos = skip(SPACE, text, pos + 1)
        if entries is not None:
            entries.append(Entry(start, value, end, comma, key))
        count += 1
    return pos
