"""Reading a command's arguments as its option table says: options, their values, and operands.

GNU style: ``-abc`` is three flags unless one of them takes a value (``-oFILE``, ``-o FILE``),
``--name=value`` or ``--name value``, a unique prefix of a long option stands for it (as getopt
allows), ``--`` ends the options, and options may follow operands unless ``posix`` (a wrapper stops
at its command's name). With ``single_dash`` (Go's flags), ``-name`` is one option as ``--name`` is,
and only its exact name stands for it. An option may take plain words before its argument
(``jq --rawfile NAME FILE``). An option the table does not list is read as a flag and marked
``unknown`` (no read-only proof covers it), except where dashes start operands (``echo -x``:
``dash_operands``) or where ``-NUM`` is a count (``head -20``: ``numeric``). An operand bash
computes may still be an option when it runs; with ``plain_options`` none could matter.
"""

from __future__ import annotations

from ...record import Record
from .words import Word

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

FLAG: dict[str, Any] = {}
UNKNOWN: dict[str, Any] = {"unknown": True}  # an option the table does not list (taken for a flag)
# An operand that cannot act as an option that matters: dashes start operands (echo), or every
# option the command has only changes what it prints (plain_options).
TEXT: dict[str, Any] = {"text": True}


class Argument(Record):
    """One parsed argument: an option (its spelling, its spec, its value if any) or an operand
    (``separated`` when it comes after ``--``)."""

    option: str | None
    spec: dict[str, Any]
    value: Word | None
    word: Word
    separated: bool = False


def spec_of(raw: str | dict[str, Any]) -> dict[str, Any]:
    """An option spec in its object form: ``"write"`` is ``{"takes": "write"}``, ``"flag"`` is ``{}``."""
    if isinstance(raw, dict):
        return raw
    return FLAG if raw == "flag" else {"takes": raw}


def _long(options: dict[str, Any], name: str) -> tuple[str, dict[str, Any] | None]:
    if name in options:
        return name, spec_of(options[name])
    candidates = [key for key in options if key.startswith(name) and key.startswith("--")]
    if len(candidates) == 1:
        return candidates[0], spec_of(options[candidates[0]])
    return name, None


def parse_arguments(
    words: list[Word],
    options: dict[str, Any],
    *,
    posix: bool = False,
    old_style: bool = False,
    single_dash: bool = False,
    dash_operands: bool = False,
    numeric: bool = False,
    plain_options: bool = False,
) -> tuple[list[Argument], list[Word]]:
    """(parsed arguments in order, the words left unread): parsing stops at the first operand when
    ``posix``, and at an option that takes the rest of the words as a command."""
    parsed: list[Argument] = []
    index = 0
    only_operands = False
    operand = TEXT if dash_operands or plain_options else FLAG
    while index < len(words):
        word = words[index]
        text = word.text
        index += 1
        if old_style and index == 1 and word.static and text[:1].isalpha():
            text = "-" + text  # tar xzf: a first word without '-' is a cluster of options
        if only_operands or not word.static or text == "-" or not text.startswith("-") or len(text) < 2:
            if posix and not only_operands:
                return parsed, words[index - 1 :]
            parsed.append(Argument(None, operand, None, word, only_operands))
            continue
        if numeric and text[1:].isdigit():  # head -20: the count of -n 20
            parsed.append(Argument(text, FLAG, None, word))
            continue
        if dash_operands and not _listed(options, text):  # echo -x prints -x
            parsed.append(Argument(None, TEXT, None, word))
            continue
        if text == "--":
            only_operands = True
            if posix:
                return parsed, words[index:]
            continue
        if text.startswith("--") or single_dash:
            name, _, attached = text.partition("=")
            if single_dash:  # -name and --name alike, never abbreviated
                name = "-" + name.lstrip("-")
                spec = spec_of(options[name]) if name in options else None
            else:
                name, spec = _long(options, name)
            if spec is not None and spec.get("takes") == "command":
                parsed.append(Argument(name, spec, None, word))
                return parsed, words[index:]
            value: Word | None = None
            if spec is not None and spec.get("before"):  # jq --rawfile NAME FILE: NAME comes first
                index = _before(words, index, spec["before"] - ("=" in text))
            if "=" in text and not (spec is not None and spec.get("before")):
                value = Word(attached, True, word.glob, word.raw)
            elif spec is not None and spec.get("takes") and not spec.get("optional") and index < len(words):
                value = words[index]
                index += 1
            parsed.append(Argument(name, spec if spec is not None else UNKNOWN, value, word))
            if spec is not None and spec.get("rest"):  # python -c CODE ARGS: the rest is the program's
                return parsed, words[index:]
            continue
        for position in range(1, len(text)):
            name = "-" + text[position]
            spec = spec_of(options[name]) if name in options else UNKNOWN
            if spec.get("takes") == "command":  # the rest of the words are a command (fd -x ...)
                parsed.append(Argument(name, spec, None, word))
                return parsed, words[index:]
            if spec.get("takes"):
                rest = text[position + 1 :]
                if spec.get("before"):
                    index = _before(words, index, spec["before"] - bool(rest))
                    rest = ""
                if rest:
                    parsed.append(Argument(name, spec, Word(rest, True, word.glob, word.raw), word))
                elif spec.get("optional"):
                    parsed.append(Argument(name, spec, None, word))
                elif index < len(words):
                    parsed.append(Argument(name, spec, words[index], word))
                    index += 1
                else:
                    parsed.append(Argument(name, spec, None, word))
                if spec.get("rest"):
                    return parsed, words[index:]
                break
            parsed.append(Argument(name, spec, None, word))
    return parsed, []


def _listed(options: dict[str, Any], text: str) -> bool:
    """Whether every option of ``text`` is in the table (``-ne`` for echo's -n and -e)."""
    if text.startswith("--"):
        return text.partition("=")[0] in options
    return all("-" + letter in options for letter in text[1:])


def _before(words: list[Word], index: int, count: int) -> int:
    """The index past the plain words an option takes before its argument."""
    return min(index + max(count, 0), len(words))
