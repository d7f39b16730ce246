"""The README's `policy check` transcripts are what the CLI prints (… stands for a path prefix)."""

from __future__ import annotations

import re
import shlex

import pytest
from helpers import REPO, Sandbox


def transcripts() -> list[tuple[str, list[str]]]:
    """(command line, expected output lines) for every ``$ policy ...`` line of the README."""
    found: list[tuple[str, list[str]]] = []
    current: list[str] | None = None
    for line in (REPO / "README.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            current = None
        elif line.startswith("$ policy "):
            current = []
            found.append((line[2:], current))
        elif current is not None and line:
            current.append(line)
    return found


@pytest.mark.parametrize(("command", "expected"), transcripts(), ids=lambda value: str(value)[:60])
def test_readme_transcript(sandbox: Sandbox, command: str, expected: list[str]) -> None:
    result = sandbox.run(*shlex.split(command)[1:], cwd=REPO)
    lines = result.stdout.splitlines()
    assert len(lines) >= len(expected), result.stderr
    for want, got in zip(expected, lines, strict=False):
        pattern = (
            re.escape(want)
            .replace("…/", "(?:.*/)?")
            .replace(re.escape("/home/me"), re.escape(str(sandbox.home)))
        )
        assert re.fullmatch(pattern, got.replace(str(REPO) + "/", "")), (want, got)
