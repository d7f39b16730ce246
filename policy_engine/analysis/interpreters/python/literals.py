"""Python literals read from their source text: escape sequences and integers."""

from __future__ import annotations

from .values import Const, Value

MAX_DIGITS = 64  # an integer literal longer than this is unknown

_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_ESCAPES |= {"v": "\v", "\n": "", "\r": ""}


def unescape(text: str, is_bytes: bool) -> str | None:
    """The character an escape sequence stands for (None: cannot tell)."""
    body = text[1:]
    if not body:
        return text
    try:
        if body in _ESCAPES or body == "\r\n":
            return _ESCAPES.get(body, "")
        if body[0] in "01234567":
            return chr(int(body, 8))
        if body[0] == "x":
            return chr(int(body[1:], 16))
        if not is_bytes and body[0] in "uU":
            return chr(int(body[1:], 16))
        if not is_bytes and body.startswith("N{") and body.endswith("}"):
            import unicodedata

            return unicodedata.lookup(body[2:-1])
    except (ValueError, KeyError, OverflowError):
        return None
    return text  # an unknown escape stays as written


def integer(text: str) -> Value:
    text = text.replace("_", "").lower()
    if len(text) > MAX_DIGITS or text.endswith(("l", "j")):
        return None
    try:
        return Const(int(text, 0))
    except ValueError:
        return None
