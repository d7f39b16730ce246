"""Adding and removing one entry of a policy file's ``approvalRules``, keeping every other byte.

Why text surgery rather than load, change and dump: a policy file is written by a person, with
comments, blank lines and a layout of their own, and dumping the parsed data would throw all of
that away. So the scanner of :mod:`.json5scan` (the one reading uses too) finds the top-level
object and its ``approvalRules`` array, the text is spliced at the right offsets, and the result is
parsed again to prove that the edit did exactly what was asked and nothing else before anyone
writes it back.

The scanner assumes valid JSON5: both functions run ``jsonc.parse`` first, which reports bad files
with their own line and column.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import ConfigError, Problem
from ..record import Record
from .json5scan import LINE_COMMENT, SPACE, Container, Entry, Unfollowed, read_container, skip, top_object
from .jsonc import Document, json_type, parse

KEY = "approvalRules"

# What may follow an entry on its own line and still belong to it: blanks and comments that stay
# on that line (a block comment spanning lines is left where it is).
_TAIL = re.compile(r"(?:[ \t]|" + LINE_COMMENT + r"|/\*(?:(?!\*/)[^\n\r])*\*/)*")
_BLANKS = re.compile(r"[ \t]*")


class _Layout(Record):
    """How new lines inside a container are written: the container's own line indent, one indent
    step of the file, and the file's line break."""

    outer: str
    unit: str
    newline: str


class _Edit(Record):
    """Replace ``text[start:end]`` with ``new``."""

    start: int
    end: int
    new: str


# ---------------------------------------------------------------------------------------------
# Public functions


def add_approval(text: str, rule: Mapping[str, Any], file: str) -> str:
    """Return ``text`` with ``rule`` appended to the top-level ``approvalRules`` array.

    The rule is written as one line of JSON, indented like its neighbours; the array (or the key)
    is created when missing. ConfigError when the file is not valid JSON5, is not an object, has
    an ``approvalRules`` that is not an array, or (never expected) the edit cannot be verified.
    """
    if not isinstance(rule, Mapping):
        raise TypeError(f"an approval rule is a mapping, not {type(rule).__name__}")
    bom, body = _split_bom(text)
    entry = json.dumps(dict(rule), ensure_ascii=False)
    newline = _newline_of(body)
    if _is_blank(body):
        return bom + _fresh_file(body, entry, newline)
    document = parse(body, file)
    approvals = _approvals(document, file)
    try:
        result = _apply(body, _additions(body, document, entry, newline))
    except (Unfollowed, IndexError):
        raise _unsafe(file) from None
    _verify(document, result, [*approvals, json.loads(entry)], file)
    return bom + result


def remove_approval(text: str, index: int, file: str) -> str:
    """Return ``text`` without element ``index`` (0-based) of the top-level ``approvalRules``.

    The element goes with its separating comma and, when it had a line of its own, with that line
    and a comment written after it on the same line; comments on other lines stay. ConfigError
    when the file is not valid JSON5, ``approvalRules`` is not an array, or the index is out of range.
    """
    bom, body = _split_bom(text)
    document = parse(body, file)
    approvals = _approvals(document, file)
    if not 0 <= index < len(approvals):
        raise _out_of_range(document, index, len(approvals))
    try:
        result = _apply(body, _removals(body, document, index))
    except (Unfollowed, IndexError):
        raise _unsafe(file) from None
    _verify(document, result, approvals[:index] + approvals[index + 1 :], file)
    return bom + result


def _additions(text: str, document: Document, entry: str, newline: str) -> list[_Edit]:
    """Append to the array when the key exists, else add the key as the object's last member."""
    top = _scan_top(text)
    unit = _unit(text, top)
    member = _find_member(top, document)
    if member is None:
        layout = _Layout(_indent(text, top.open), unit, newline)
        return _append(text, top, layout, _member_renderer(entry, layout))
    array = _scan_array(text, member, document)
    layout = _Layout(_indent(text, member.start), unit, newline)
    return _append(text, array, layout, lambda _indent: entry)


def _removals(text: str, document: Document, index: int) -> list[_Edit]:
    member = _find_member(_scan_top(text), document)
    if member is None:  # parse found entries, so the scanner must find the key
        raise Unfollowed(f"{KEY} not found")
    return _removal(text, _scan_array(text, member, document), index)


# ---------------------------------------------------------------------------------------------
# Errors and verification


def _approvals(document: Document, file: str) -> list[Any]:
    """The current approvals; an absent key reads as none, anything but an array is an error."""
    value = document.data.get(KEY, [])
    if isinstance(value, list):
        return value
    line, column = _value_place(document)
    raise ConfigError(
        [
            Problem(
                file,
                line,
                column,
                KEY,
                f"expected an array, got {json_type(value)}",
                'approvalRules lists approvals: "approvalRules": [ { "action": "allow", ... } ]',
            )
        ]
    )


def _out_of_range(document: Document, index: int, count: int) -> ConfigError:
    line, column = _value_place(document)
    have = "the file has none" if count == 0 else f"valid indices are 0 to {count - 1}"
    return ConfigError(
        [
            Problem(
                document.file,
                line,
                column,
                KEY,
                f"there is no approval rule at index {index}: {have}",
                "indices start at 0, in file order",
            )
        ]
    )


def _value_place(document: Document) -> tuple[int | None, int | None]:
    place = document.places.get((KEY,))
    return (place.value_line, place.value_column) if place else (None, None)


def _unsafe(file: str) -> ConfigError:
    return ConfigError(
        [
            Problem(
                file,
                None,
                None,
                KEY,
                "the file could not be edited safely, so it was not changed",
                "edit approvalRules by hand; please report the file's layout as a bug",
            )
        ]
    )


def _verify(before: Document, text: str, expected: list[Any], file: str) -> None:
    """Parse the edited text and insist that only ``approvalRules`` changed, and as intended.

    This never fails unless the scanner misreads a layout; it is here so that such a bug costs
    an error message instead of a user's policy file.
    """
    try:
        after = parse(text, file).data
    except ConfigError:
        raise _unsafe(file) from None
    others_before = {k: v for k, v in before.data.items() if k != KEY}
    others_after = {k: v for k, v in after.items() if k != KEY}
    if after.get(KEY) != expected or others_after != others_before:
        raise _unsafe(file)


# ---------------------------------------------------------------------------------------------
# Scanning


def _scan_top(text: str) -> Container:
    return read_container(text, top_object(text))


def _scan_array(text: str, member: Entry, document: Document) -> Container:
    """The approvalRules array; it must hold as many entries as json5 saw."""
    array = read_container(text, member.value)
    if text[array.open] != "[" or len(array.entries) != len(document.data[KEY]):
        raise Unfollowed(f"{KEY} read differently from json5")
    return array


def _find_member(top: Container, document: Document) -> Entry | None:
    """The top-level ``approvalRules`` member; the scanner and json5 must agree on whether it exists
    (an unquoted key spelt with escapes, say, would otherwise be added a second time)."""
    found = [entry for entry in top.entries if entry.key == KEY]
    if bool(found) != (KEY in document.data):
        raise Unfollowed(f"{KEY} read differently from json5")
    return found[-1] if found else None


# ---------------------------------------------------------------------------------------------
# Text helpers


def _split_bom(text: str) -> tuple[str, str]:
    """jsonc.parse drops a byte-order mark; we do the same for offsets and put it back after."""
    return ("\ufeff", text[1:]) if text.startswith("\ufeff") else ("", text)


def _newline_of(text: str) -> str:
    """The file's line break, judged by its first one, so CRLF files stay CRLF."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def _is_blank(text: str) -> bool:
    return skip(SPACE, text, 0) == len(text)


def _line_start(text: str, at: int) -> int:
    return text.rfind("\n", 0, at) + 1


def _indent(text: str, at: int) -> str:
    """The blanks that open the line holding offset ``at``."""
    start = _line_start(text, at)
    return text[start : skip(_BLANKS, text, start)]


def _starts_line(text: str, at: int) -> bool:
    return not text[_line_start(text, at) : at].strip(" \t")


def _at_line_end(text: str, at: int) -> bool:
    return at == len(text) or text[at] in "\r\n"


def _past_newline(text: str, at: int) -> int:
    if text.startswith("\r\n", at):
        return at + 2
    return at + 1 if text.startswith("\n", at) else at


def _back_over_blanks(text: str, at: int) -> int:
    while at > 0 and text[at - 1] in " \t":
        at -= 1
    return at


def _unit(text: str, top: Container) -> str:
    """One indent step: how far a top-level key that starts its line sits inside the object's
    own line (tabs or spaces, as written), preferring the approvalRules key; else two spaces."""
    base = _indent(text, top.open)
    members = sorted(top.entries, key=lambda entry: entry.key != KEY)
    for member in members:
        indent = _indent(text, member.start)
        if _starts_line(text, member.start) and indent.startswith(base) and len(indent) > len(base):
            return indent[len(base) :]
    return "  "


def _apply(text: str, edits: list[_Edit]) -> str:
    """Splice non-overlapping edits in one pass; edits at the same offset keep their list order."""
    out: list[str] = []
    pos = 0
    for edit in sorted(edits, key=lambda edit: edit.start):
        if edit.start < pos:
            raise Unfollowed(f"overlapping edits at offset {edit.start}")
        out += [text[pos : edit.start], edit.new]
        pos = edit.end
    out.append(text[pos:])
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# Adding


def _fresh_file(text: str, entry: str, newline: str) -> str:
    """A new policy for an empty file; comments already there are kept above it."""
    lines = ["{", f'  "{KEY}": [', f"    {entry}", "  ]", "}", ""]
    block = newline.join(lines)
    if not text.strip():
        return block
    return text + ("" if text.endswith("\n") else newline) + block


def _member_renderer(entry: str, layout: _Layout) -> Callable[[str], str]:
    """Writes the missing ``"approvalRules": [ ... ]`` member at whatever indent it lands on."""

    def render(indent: str) -> str:
        inner = indent + layout.unit
        return f'"{KEY}": [{layout.newline}{inner}{entry}{layout.newline}{indent}]'

    return render


def _append(text: str, box: Container, layout: _Layout, render: Callable[[str], str]) -> list[_Edit]:
    """The edits that make ``render(indent)`` the last entry of ``box``."""
    if "\n" not in text[box.open : box.close]:
        return [_explode(text, box, layout, render)]
    if not box.entries:
        return [_into_empty(text, box, layout, render)]
    return _after_last(text, box, layout, render)


def _explode(text: str, box: Container, layout: _Layout, render: Callable[[str], str]) -> _Edit:
    """A container written on one line gets one line per entry: appending to it inline would
    grow a line without bound. What sat between the commas is kept verbatim."""
    inner = layout.outer + layout.unit
    lines: list[str] = []
    start = box.open + 1
    for entry in box.entries:
        stop = box.close if entry.comma is None else entry.comma
        lines.append(text[start:stop].strip() + ",")
        start = stop if entry.comma is None else stop + 1
    rest = text[start : box.close].strip()  # comments after a trailing comma, or in an empty box
    if rest:
        lines.append(rest)
    trailing = bool(box.entries) and box.entries[-1].comma is not None
    lines.append(render(inner) + ("," if trailing else ""))
    newline = layout.newline
    body = newline + newline.join(inner + line for line in lines) + newline + layout.outer
    return _Edit(box.open + 1, box.close, body)


def _into_empty(text: str, box: Container, layout: _Layout, render: Callable[[str], str]) -> _Edit:
    """A multi-line container with no entries (blank or holding only comments): the new entry
    goes last, after any comments, on a line of its own."""
    indent = _first_inner_indent(text, box) or layout.outer + layout.unit
    close_line = _line_start(text, box.close)
    if _starts_line(text, box.close):
        return _Edit(close_line, close_line, indent + render(indent) + layout.newline)
    start = _back_over_blanks(text, box.close)
    return _Edit(start, box.close, layout.newline + indent + render(indent) + layout.newline + layout.outer)


def _first_inner_indent(text: str, box: Container) -> str | None:
    """The indent of the first non-blank line strictly between the brackets' lines, if any."""
    pos = _past_newline(text, text.find("\n", box.open))
    close_line = _line_start(text, box.close)
    while pos < close_line:
        end = text.find("\n", pos)
        if text[pos:end].strip():
            return _indent(text, pos)
        pos = end + 1
    return None


def _after_last(text: str, box: Container, layout: _Layout, render: Callable[[str], str]) -> list[_Edit]:
    """Append after the last entry, past its comma and any comment on its line, so a comment
    never swallows the new entry and the comma we may add lands before the comment."""
    last = box.entries[-1]
    indent = _entry_indent(text, box) or layout.outer + layout.unit
    after = last.end if last.comma is None else last.comma + 1
    tail = skip(_TAIL, text, after)
    at = tail if _at_line_end(text, tail) else after
    edits = [] if last.comma is not None else [_Edit(last.end, last.end, ",")]
    trailing = "," if last.comma is not None else ""  # the file's trailing-comma style
    edits.append(_Edit(at, at, layout.newline + indent + render(indent) + trailing))
    return edits


def _entry_indent(text: str, box: Container) -> str | None:
    """The indent of the nearest-to-last entry that starts its own line."""
    for entry in reversed(box.entries):
        if _starts_line(text, entry.start):
            return _indent(text, entry.start)
    return None


# ---------------------------------------------------------------------------------------------
# Removing


def _removal(text: str, box: Container, index: int) -> list[_Edit]:
    """The edits that take entry ``index`` out of ``box`` and leave the text tidy."""
    entries = box.entries
    entry = entries[index]
    if len(entries) == 1 and _only_blanks_beside(text, box, entry):
        return [_Edit(box.open + 1, box.close, "")]  # back to "[]"
    edits: list[_Edit] = []
    if index == len(entries) - 1 and entry.comma is None and index > 0:
        # The previous comma separated it; kept, it would become a trailing comma the file lacked.
        comma = entries[index - 1].comma
        if comma is None:
            raise Unfollowed("entries without a comma between them")
        edits.append(_Edit(comma, comma + 1, ""))
    start, end = _removal_span(text, box, index)
    edits.append(_Edit(start, end, ""))
    return edits


def _only_blanks_beside(text: str, box: Container, entry: Entry) -> bool:
    after = text[entry.end : box.close]
    if entry.comma is not None:
        after = text[entry.end : entry.comma] + text[entry.comma + 1 : box.close]
    return not (text[box.open + 1 : entry.start] + after).strip()


def _removal_span(text: str, box: Container, index: int) -> tuple[int, int]:
    """What to delete for entry ``index``: its line when it had one to itself, else the entry, its
    comma and the blanks that would otherwise be left doubled or dangling."""
    entry = box.entries[index]
    end = entry.end if entry.comma is None else entry.comma + 1
    tail = skip(_TAIL, text, end)
    owned = _at_line_end(text, tail)  # a comment after it on its line goes with it
    if owned:
        end = tail
    start = entry.start
    alone = _starts_line(text, start)
    if alone and owned:
        return _line_start(text, start), _past_newline(text, end)
    if index == len(box.entries) - 1:
        if alone and _may_join_previous_line(text, box, index):
            return _previous_line_end(text, start), end
        return _back_over_blanks(text, start), end
    if owned:
        return _back_over_blanks(text, start), end
    return start, skip(_BLANKS, text, end)


def _may_join_previous_line(text: str, box: Container, index: int) -> bool:
    """Whether the closing bracket after the last entry may move up to the previous line: not when
    that line ends in a ``//`` comment, which would then swallow it."""
    if index == 0:
        anchor = box.open + 1
    else:
        previous = box.entries[index - 1]
        anchor = previous.end if previous.comma is None else previous.comma + 1
    return "//" not in text[anchor : _line_start(text, box.entries[index].start)]


def _previous_line_end(text: str, at: int) -> int:
    start = _line_start(text, at) - 1  # the "\n" that ends the previous line
    return start - 1 if start > 0 and text[start - 1] == "\r" else start
