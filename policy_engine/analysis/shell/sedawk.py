"""The small languages of sed and awk: what a script can do besides reading its input.

A sed script can write files (``w``, ``s///w``) and run commands (``e``, ``s///e``); an awk program
can run commands (``system()``, ``print | "cmd"``, ``"cmd" | getline``) and write files
(``print > "file"``). These checks find every such construct and report it; a script they cannot
read is a doubt, never "harmless".
"""

from __future__ import annotations

import re

from ...record import Record


class ScriptEffects(Record):
    """Files a script reads and writes (as written in it), shell commands it runs, and why it
    cannot be proven harmless."""

    reads: list[str]
    writes: list[str]
    doubts: list[str]
    commands: list[str]


_SED_SIMPLE = set("dDgGhHlnNpPqQxz=F")
_SED_TEXT = set("aic")
_SED_LABEL = set("btT:")
_SED_FILE = {"r": "read", "R": "read", "w": "write", "W": "write"}


def sed_script(script: str) -> ScriptEffects:
    """What a sed script does besides editing the stream."""
    effects = ScriptEffects([], [], [], [])
    position = 0
    length = len(script)

    def rest_of_line() -> str:
        nonlocal position
        end = script.find("\n", position)
        end = length if end < 0 else end
        text = script[position:end].strip()
        position = end + 1
        return text

    while position < length:
        char = script[position]
        if char in " \t\n;}{!":
            position += 1
            continue
        if char.isdigit() or char in "$,~+":  # addresses and ranges
            position += 1
            continue
        if char == "/" or char == "\\":  # /regex/ or \cregexc addresses
            delimiter = script[position + 1] if char == "\\" and position + 1 < length else "/"
            position = _skip_delimited(script, position + (2 if char == "\\" else 1), delimiter)
            while position < length and script[position] in "IM":
                position += 1
            continue
        position += 1
        if char == "#":
            rest_of_line()
        elif char in _SED_SIMPLE:
            continue
        elif char in _SED_TEXT:  # a, i, c: the text runs to the end of the line
            rest_of_line()
        elif char in _SED_LABEL:  # b, t, T, : take a label up to ; or the end of the line
            while position < length and script[position] not in ";\n":
                position += 1
        elif char in _SED_FILE:
            target = rest_of_line()
            (effects.reads if _SED_FILE[char] == "read" else effects.writes).append(target)
        elif char == "e":
            command = rest_of_line()
            effects.doubts.append("the sed script runs a shell command (e)")
            if command:
                effects.commands.append(command)
        elif char in "sy":
            if position >= length:
                effects.doubts.append("the sed script does not parse")
                break
            delimiter = script[position]
            position = _skip_delimited(script, position + 1, delimiter)
            position = _skip_delimited(script, position, delimiter)
            if char == "s":
                flags_start = position
                while position < length and (script[position].isalnum() or script[position] in "gpIiMme"):
                    if script[position] == "w":
                        position += 1
                        effects.writes.append(rest_of_line())
                        break
                    position += 1
                if "e" in script[flags_start:position]:
                    effects.doubts.append("the sed script runs the result of a substitution (s///e)")
        else:
            effects.doubts.append(f"the sed script uses a command this analysis does not know ({char!r})")
            break
    return effects


def _skip_delimited(script: str, position: int, delimiter: str) -> int:
    """The position after the next unescaped ``delimiter``."""
    while position < len(script):
        char = script[position]
        if char == "\\":
            position += 2
            continue
        position += 1
        if char == delimiter:
            break
    return position


# (what an awk construct does, the regex that finds it); compiled on first use, off the hook's start-up.
_AWK_CONSTRUCTS = (
    ("the awk program runs a shell command (system)", r"\bsystem\s*\("),
    ("the awk program pipes to or from a command (|)", r"(?<!\|)\|(?!\|)"),
    ("the awk program reads with getline", r"\bgetline\b"),
    ("the awk program prints into a file (>)", r"\bprintf?\b[^;{}\n]*?>"),
)
_AWK_LITERALS = r'"(?:[^"\\]|\\.)*"|/(?:[^/\\\n]|\\.)+/'


def awk_program(program: str) -> ScriptEffects:
    """What an awk program does besides reading its input and printing."""
    effects = ScriptEffects([], [], [], [])
    # String and regex literals may hold any of the characters looked for below.
    code = re.sub(_AWK_LITERALS, '""', program)
    effects.doubts.extend(doubt for doubt, pattern in _AWK_CONSTRUCTS if re.search(pattern, code))
    return effects
