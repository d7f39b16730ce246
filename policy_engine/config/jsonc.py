"""Reading JSONC/JSON5 policy files: values via json5, positions and duplicate keys via our own scanner.

json5 parses the values and reports syntax errors; it cannot say where a key was written. The
scanner of :mod:`.json5scan` (the one editing uses too) walks the (already valid) text once more,
and :func:`_positions` records the line and column of every key and array element, so that
validation errors point at the exact place, and reports duplicate keys with the line of the
second occurrence.
"""

from __future__ import annotations

import contextlib
import re
import sys
from bisect import bisect_right
from typing import Any

import json5

from ..errors import ConfigError, Problem
from ..record import Record
from . import json5scan
from .json5scan import BLOCK_COMMENT, LINE_COMMENT

Path = tuple[str | int, ...]


class Place(Record):
    """Where a key (or array element) and its value start; 1-based lines and columns."""

    key_line: int
    key_column: int
    value_line: int
    value_column: int


class Document(Record):
    """A parsed policy file."""

    file: str
    data: Any
    places: dict[Path, Place]


def key_path(path: Path) -> str:
    """``("policies", "strict", "rules", 3)`` -> ``policies.strict.rules[3]``; odd keys are quoted."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_$][\w$-]*", part):
            text += f".{part}" if text else part
        else:
            text += f"[{_quote(part)}]"
    return text


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# json5's syntax error; what it found may be a raw line break, hence DOTALL.
_JSON5_ERROR = re.compile(r"<string>:(\d+) (.*) at column (\d+)", re.DOTALL)

# Deeper than any policy file needs, and well short of what exhausts Python's recursion in json5,
# the position scanner and validation: past it a file is refused with the place, never a crash.
MAX_DEPTH = 100


def _refused(file: str, text: str, offset: int, message: str, hint: str) -> ConfigError:
    """The error of a file refused before it is parsed, placed at ``offset`` of its text."""
    line, column = _line_column(text, offset)
    return ConfigError([Problem(file, line, column, "", message, hint)])


def parse(text: str, file: str) -> Document:
    """Parse one policy file; ConfigError (with line, column and a hint) when it is not valid JSON5."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise ConfigError([Problem(file, 1, 1, "", "the file is empty", 'write "{}" for an empty policy')])
    hidden = _HIDDEN_BREAK.search(text)
    if hidden is not None:  # JSON5 ends a // comment there, where a reviewer sees none
        name = _HIDDEN_NAMES[hidden.group()]
        raise _refused(
            file,
            text,
            hidden.start(),
            f"the file holds {name}, which JSON5 reads as a line break but editors and "
            "reviews may not show (text after it in a comment would count)",
            "remove it, or write it as an escape inside a string",
        )
    deep = _too_deep(text)
    if deep is not None:
        raise _refused(
            file,
            text,
            deep,
            f"the file nests deeper than {MAX_DEPTH} levels: this bracket opens level {MAX_DEPTH + 1}",
            "no policy setting nests this deep; check the brackets above for ones that never close",
        )
    try:
        data = _plain_json(text)
        if data is _NOT_PLAIN:
            data = json5.loads(text, allow_duplicate_keys=True)
    except RecursionError:  # not past MAX_DEPTH, yet too deep for the stack left: no place to name
        raise ConfigError([Problem(file, None, None, "", "the file nests too deeply to read")]) from None
    except ValueError as error:
        raise ConfigError([_syntax_problem(str(error), text, file)]) from None
    data = json5scan.join_surrogates(data)
    if not isinstance(data, dict):
        raise ConfigError(
            [Problem(file, 1, 1, "", f"expected a JSON object at the top level, got {json_type(data)}")]
        )
    try:
        places, duplicates = _positions(text)
    except (ValueError, IndexError):  # JSON5 the scanner does not follow: positions unknown, and
        places, duplicates = {}, []  # json5 itself looks for duplicate keys
        try:
            json5.loads(text, allow_duplicate_keys=False)
        except ValueError as error:
            raise ConfigError(
                [Problem(file, None, None, "", f"duplicate key ({error})", "remove one of them")]
            ) from None
    if duplicates:
        raise ConfigError(
            [
                Problem(
                    file,
                    line,
                    column,
                    key_path(path),
                    "duplicate key: it is already set earlier in this object",
                    "remove one of them; JSON keeps only the last, which hides the first",
                )
                for path, line, column in duplicates
            ]
        )
    return Document(file, data, places)


_NOT_PLAIN = object()

# Line breaks JSON5 knows that a reviewer may not see. (A lone carriage return is a line break for
# the loader too: files are read with universal newlines, as editors show them.)
_HIDDEN_BREAK = re.compile("[\u2028\u2029]")
_HIDDEN_NAMES = {"\u2028": "U+2028 (LINE SEPARATOR)", "\u2029": "U+2029 (PARAGRAPH SEPARATOR)"}

# JSON with comments and trailing commas, token by token: a string, a comment, a trailing comma (one
# that only whitespace separates from a closing bracket), or anything else.
_STRING = r'"(?:[^"\\\n]|\\.)*"'
_COMMENTS = re.compile(rf"{_STRING}|{LINE_COMMENT}|{BLOCK_COMMENT}|[^\"/]+|/", re.DOTALL)
_TRAILING_COMMAS = re.compile(rf"{_STRING}|(?P<trailing>,(?=\s*[\]}}]))|[^\",]+|,")


def _plain_json(text: str) -> Any:
    """The value of ``text`` read by the standard library's JSON parser once comments and trailing
    commas are gone, or ``_NOT_PLAIN`` when it needs JSON5 (single quotes, unquoted keys, ...).
    json5 is pure Python and takes about a second for the command knowledge; the value is the same
    (in both, a duplicate key keeps its last value)."""
    import json

    tokens = _COMMENTS.findall(text)
    if "".join(tokens) != text:  # an unterminated string or comment: let json5 report it
        return _NOT_PLAIN
    no_comments = "".join(" " if token.startswith(("//", "/*")) else token for token in tokens)

    def drop_trailing(match: re.Match[str]) -> str:
        # A trailing comma follows a value; after `[`, `{`, `,` or `:` it is an error json5 reports.
        if not match.group("trailing"):
            return match.group()
        at = match.start() - 1
        while at >= 0 and no_comments[at].isspace():
            at -= 1
        return "" if at >= 0 and no_comments[at] not in "[{,:" else match.group()

    plain = _TRAILING_COMMAS.sub(drop_trailing, no_comments)
    try:
        return json.loads(plain)
    except (ValueError, RecursionError):
        return _NOT_PLAIN


def _line_column(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column of ``offset`` in ``text``."""
    return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)


# What may hold brackets that do not nest: strings (either quote) and comments; then the brackets.
_NESTING = re.compile(rf"{json5scan.STRING_PATTERN}|{LINE_COMMENT}|{BLOCK_COMMENT}|[\[\]{{}}]", re.DOTALL)


def _too_deep(text: str) -> int | None:
    """The offset of the first bracket that opens level ``MAX_DEPTH + 1``, or None."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:  # the usual file: no need to look closer
        return None
    depth = 0
    for token in _NESTING.finditer(text):
        char = token.group()
        if char in ("[", "{"):
            depth += 1
            if depth > MAX_DEPTH:
                return token.start()
        elif char in ("]", "}"):
            depth -= 1
    return None


def _syntax_problem(message: str, text: str, file: str) -> Problem:
    found = _JSON5_ERROR.search(message)
    if not found:
        return _unplaced_problem(message, text, file)
    line, what, column = int(found.group(1)), found.group(2), int(found.group(3))
    if what in ('Unexpected "\n"', 'Unexpected "\r"'):
        return Problem(
            file,
            line,
            column,
            "",
            "not valid JSONC: the line ends inside a string",
            "close the string with its quote on this line; a line break inside a string is written \\n",
        )
    return Problem(
        file, line, column, "", f"not valid JSONC: {what.lower()}", _syntax_hint(text, line, column)
    )


# Strings of either quote and comments, or any other run of text (where numbers are).
_COMMENTS_AND_STRINGS = re.compile(
    rf"{json5scan.STRING_PATTERN}|{LINE_COMMENT}|{BLOCK_COMMENT}|(?P<other>[^\"'/]+|/)", re.DOTALL
)
# An integer literal (JSON5 allows a sign), where it stands alone: not part of a float or a hex number.
_INTEGER = re.compile(r"(?<![\w.])[-+]?(\d+)(?![\w.])")


def _unplaced_problem(message: str, text: str, file: str) -> Problem:
    """A json5 error without a position: an integer too long for Python to read (the only one
    seen), placed at the number and named by its key; else the message as it is."""
    limit = sys.get_int_max_str_digits()
    if limit:
        for token in _COMMENTS_AND_STRINGS.finditer(text):
            if token.group("other") is None:
                continue
            for number in _INTEGER.finditer(token.group()):
                if len(number.group(1)) > limit:
                    return _long_number(text, file, token.start() + number.start(), number, limit)
    return Problem(file, None, None, "", f"not valid JSONC: {message}")


def _long_number(text: str, file: str, offset: int, number: re.Match[str], limit: int) -> Problem:
    line, column = _line_column(text, offset)
    # The text is valid but for the number: written as a 0 padded to its width, the scanner finds
    # its key (the offsets stay the same).
    width = number.end() - number.start()
    key = ""
    with contextlib.suppress(ValueError, IndexError):
        places, _ = _positions(text[:offset] + "0".ljust(width) + text[offset + width :])
        key = next(
            (key_path(p) for p, at in places.items() if (at.value_line, at.value_column) == (line, column)),
            "",
        )
    return Problem(
        file,
        line,
        column,
        key,
        f"a number of {len(number.group(1))} digits: numbers longer than {limit} digits cannot be read",
        "no setting takes a number this large; write a smaller one",
    )


def _syntax_hint(text: str, line: int, column: int) -> str | None:
    """Guess the usual mistake behind a syntax error from the characters around it."""
    lines = text.split("\n")
    here = lines[line - 1][column - 1 :] if line <= len(lines) else ""
    before = "\n".join([*lines[: line - 1], lines[line - 1][: column - 1] if line <= len(lines) else ""])
    before = re.sub(rf"{LINE_COMMENT}|{BLOCK_COMMENT}", "", before, flags=re.DOTALL).rstrip()
    char = here[:1]
    if not char:
        return "the file ends early: a closing } or ] or a quote is missing"
    if char in "}]" and before.endswith(","):
        return "two commas in a row, or a comma with nothing after it"
    if char in "}]" and before.endswith(":"):
        return "a key has no value"
    value_ends_before = before[-1:] in ('"', "'", "}", "]") or before[-1:].isalnum()
    if (char in "\"'{[" or char.isalnum()) and value_ends_before:
        return "a comma is missing between two entries"
    if char == ",":
        return "a value is missing before this comma"
    if char in "}]":
        return "a bracket closes something that was not opened here; check the brackets above"
    return None


def json_type(value: Any) -> str:
    """The JSON name of a Python value's type, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _positions(text: str) -> tuple[dict[Path, Place], list[tuple[Path, int, int]]]:
    """Where every key and array element of ``text`` (valid JSON5) starts, and the duplicate keys
    (path, line and column of each later occurrence), in file order."""
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    places: dict[Path, Place] = {}
    duplicates: list[tuple[Path, int, int]] = []

    def where(offset: int) -> tuple[int, int]:
        line = bisect_right(line_starts, offset)
        return line, offset - line_starts[line - 1] + 1

    def container(at: int, path: Path) -> int:
        seen: set[str] = set()

        def read_value(start: int, value: int, key: str | int) -> int:
            member = (*path, key)
            key_line, key_column = where(start)
            if isinstance(key, str):
                if key in seen:
                    duplicates.append((member, key_line, key_column))
                seen.add(key)
                value_line, value_column = where(value)
            else:
                value_line, value_column = key_line, key_column
            places[member] = Place(key_line, key_column, value_line, value_column)
            if text[value] in "{[":
                return container(value, member)
            return json5scan.value_end(text, value)

        return json5scan.walk_container(text, at, read_value)

    top = json5scan.top_object(text)
    line, column = where(top)
    places[()] = Place(line, column, line, column)
    container(top, ())
    return places, duplicates
