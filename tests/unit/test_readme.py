"""The documentation: its `policy ...` transcripts are what the CLI prints (… stands for a path
prefix), the README stays short, and every relative link leads to a file and heading that exist.

The documentation is README.md, ARCHITECTURE.md and every page of docs/.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from helpers import REPO, Sandbox

README_LIMIT = 400


def documents() -> list[Path]:
    """README.md, ARCHITECTURE.md and docs/*.md."""
    return [REPO / "README.md", REPO / "ARCHITECTURE.md", *sorted((REPO / "docs").glob("*.md"))]


def _name(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def transcripts() -> list[tuple[str, str, list[str]]]:
    """(file, command line, expected output lines) for every ``$ policy ...`` line of the docs."""
    found: list[tuple[str, str, list[str]]] = []
    for path in documents():
        current: list[str] | None = None
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("```"):
                current = None
            elif line.startswith("$ policy "):
                current = []
                found.append((_name(path), line[2:], current))
            elif line.startswith("$ "):  # another command: its output is not ours to check
                current = None
            elif current is not None and line:
                current.append(line)
    return found


TRANSCRIPTS = transcripts()


@pytest.mark.parametrize(
    ("document", "command", "expected"),
    TRANSCRIPTS,
    ids=[f"{document}: {command}"[:80] for document, command, _ in TRANSCRIPTS],
)
def test_transcript(sandbox: Sandbox, document: str, command: str, expected: list[str]) -> None:
    result = sandbox.run(*shlex.split(command)[1:], cwd=REPO)
    lines = result.stdout.splitlines()
    assert len(lines) >= len(expected), result.stderr
    for want, got in zip(expected, lines, strict=False):
        pattern = (
            re.escape(want)
            .replace("…/", "(?:.*/)?")
            .replace(re.escape("/home/me"), re.escape(str(sandbox.home)))
        )
        assert re.fullmatch(pattern, got.replace(str(REPO) + "/", "")), (document, want, got)


def test_there_are_transcripts_in_the_readme_and_the_docs() -> None:
    documents_with_transcripts = {document for document, _, _ in TRANSCRIPTS}
    assert "README.md" in documents_with_transcripts
    assert any(document.startswith("docs/") for document in documents_with_transcripts)


def test_the_readme_is_short() -> None:
    lines = len((REPO / "README.md").read_text(encoding="utf-8").splitlines())
    assert lines < README_LIMIT, f"README.md has {lines} lines: move reference text to docs/"


# ---- Links -------------------------------------------------------------------------------------------

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
# [text](target): the text may hold code spans (already blanked) and run over a line break.
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lowercase, punctuation but ``-`` dropped, spaces to ``-``."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading: its text
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors of ``path``'s headings (a repeated one gets -1, -2, ... as on GitHub)."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for heading in _HEADING.findall(_FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(path: Path) -> list[str]:
    """Every link target of ``path`` outside code (fenced blocks and code spans)."""
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    text = _CODE.sub("code", text)
    return _LINK.findall(text)


def relative_links() -> list[tuple[str, str]]:
    """(document, target) of every link that is not to another site, each once."""
    found = [
        (_name(path), target)
        for path in documents()
        for target in links(path)
        if not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target)  # https:, mailto:
    ]
    return list(dict.fromkeys(found))


def test_slugs_follow_github() -> None:
    assert slug("How a pattern's options are read") == "how-a-patterns-options-are-read"
    assert slug("Sessions: circuit breakers, the state store, the decision log") == (
        "sessions-circuit-breakers-the-state-store-the-decision-log"
    )
    assert slug("Protected paths, self-protection, approvals") == "protected-paths-self-protection-approvals"
    assert slug("policy check") == "policy-check"
    assert slug("Where is …") == "where-is-"


def test_links_are_found_outside_code_and_across_lines(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\nSee [a\nb](other.md#x) and [`c`](c.py).\n\n```\n[not](a link)\n[no](x.md)\n```\n"
        "A span: `[no](y.md)`.\n",
        encoding="utf-8",
    )
    assert links(page) == ["other.md#x", "c.py"]
    assert anchors(page) == {"page"}


RELATIVE_LINKS = relative_links()


@pytest.mark.parametrize(
    ("document", "target"),
    RELATIVE_LINKS,
    ids=[f"{document} -> {target}" for document, target in RELATIVE_LINKS],
)
def test_relative_link_leads_somewhere(document: str, target: str) -> None:
    source = REPO / document
    file, _, anchor = target.partition("#")
    path = (source.parent / file).resolve() if file else source
    assert path.exists(), f"{document}: {target}: no such file or directory"
    assert path.is_relative_to(REPO), f"{document}: {target}: outside the repository"
    if anchor:
        assert path.suffix == ".md", f"{document}: {target}: an anchor into a file that is not markdown"
        assert anchor in anchors(path), f"{document}: {target}: no heading #{anchor} in {_name(path)}"
