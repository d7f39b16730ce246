"""The files SQL text names to write (``ATTACH``, ``VACUUM INTO``), for sqlite3 connections."""

from __future__ import annotations

import re

from ..findings import file_url_path

# statements that name a file to write.
_SQL_TOKENS = re.compile(r"--[^\n]*|/\*.*?(?:\*/|$)|'(?:[^']|'')*'?|\"(?:[^\"]|\"\")*\"?", re.S)
_SQL_FILE_STATEMENTS = re.compile(
    r"\bATTACH\b(?:\s+DATABASE\b)?|\bVACUUM\b\s*(?:\w{1,128}|\[[^\]]{0,128}\]|`[^`]{0,128}`)?\s*\bINTO\b",
    re.I,
)


def sql_files(sql: str) -> tuple[list[str], str | None]:
    """The files SQL text writes (``ATTACH 'f' AS x``, ``VACUUM INTO 'f'``), and a doubt when one is
    named by an expression or a URI that cannot be followed."""
    literals: dict[int, str] = {}

    def blank(match: re.Match[str]) -> str:
        token = match.group(0)
        if token[0] in "'\"":
            literals[match.start()] = token[1:-1].replace(token[0] * 2, token[0])
        return " " * len(token)

    code = _SQL_TOKENS.sub(blank, sql)
    files: list[str] = []
    for statement in _SQL_FILE_STATEMENTS.finditer(code):
        at = statement.end()
        while at < len(code) and code[at].isspace() and at not in literals:
            at += 1
        name = literals.get(at)
        if name is None:
            return files, f"SQL {statement.group(0).split()[0].upper()} names its file with an expression"
        if name[:5].lower() == "file:":
            path = file_url_path(name)
            name = path.partition("?")[0] if path is not None else name
        if name not in ("", ":memory:"):
            files.append(name)
    return files, None
