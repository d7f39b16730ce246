"""How a walk of a directory is written down (model.Walk), and what it reaches.

A walk was once a string with a grammar of its own (``all:GLOB,GLOB!skip!/dir``), read back in
several places: a name glob holding ``!`` (``*.[!r]*``) then read as a skip, and ``find . -name
'*.[!r]*' -exec grep KEY {} ;`` searched a project holding ``.env`` as if it skipped it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import Sandbox, bash
from hypothesis import given
from hypothesis import strategies as st

from policy_engine import Action, TreeKind, VerdictKind, Walk
from policy_engine.model import EVERY_NAME, WHOLE_TREE, parse_walk, walk_excluding, walk_naming

# A glob of one name as the spelling can carry it: no separator of the spelling itself.
name_globs = st.text(st.sampled_from("ab.*?-_"), min_size=1, max_size=6)


@given(
    st.sampled_from(list(TreeKind)),
    st.lists(name_globs, max_size=3),
    st.lists(name_globs, max_size=2),
    st.lists(name_globs, max_size=2),
)
def test_a_walk_reads_back_as_it_was_written(
    kind: TreeKind, names: list[str], files: list[str], directories: list[str]
) -> None:
    walk = Walk(kind, tuple(names), tuple(files), tuple(directories))
    assert parse_walk(str(walk)) == walk


def test_the_spellings_of_the_data() -> None:
    assert parse_walk("all") == WHOLE_TREE
    assert parse_walk("all:*") == EVERY_NAME
    assert parse_walk("visible") == Walk(TreeKind.VISIBLE)
    assert parse_walk("all:*.py,*.md!.env*!/node_modules") == Walk(
        TreeKind.ALL, ("*.py", "*.md"), (".env*",), ("node_modules",)
    )
    with pytest.raises(ValueError):
        parse_walk("everything")


def test_globs_narrow_a_walk_only_when_fnmatch_reads_them_as_the_tools_do() -> None:
    assert walk_naming(["src/**/*.py", "*.{md,txt}"]) == Walk(TreeKind.ALL, ("*.py", "*.md", "*.txt"))
    assert walk_naming(["*.[!r]*"]) == EVERY_NAME  # a class: fnmatch and ripgrep differ on [!...]
    assert walk_naming([None]) == EVERY_NAME  # computed: every name may be sought
    skipped = walk_excluding(
        WHOLE_TREE, [(".env*", "files"), ("build", "both"), ("[ab]", "files"), (None, "both")]
    )
    assert skipped == Walk(TreeKind.ALL, (), (".env*", "build"), ("build",))


def test_a_name_glob_with_an_exclamation_mark_is_a_name_not_a_skip(sandbox: Sandbox) -> None:
    project: Path = sandbox.project("app")
    (project / ".env").write_text("KEY=secret\n")
    (project / "main.py").write_text("print(1)\n")
    engine = sandbox.engine(cwd=project)
    decision = engine.evaluate(bash("find . -name '*.[!r]*' -exec grep -l KEY {} \\;", project))
    assert decision.action >= Action.ASK, decision.reason
    assert decision.decisive is not None and decision.decisive.kind is VerdictKind.PROTECTION
    assert decision.decisive.detail == ".env*"
    # The same search of names that cannot be secrets runs.
    plain = engine.evaluate(bash("find . -name '*.py' -exec grep -l KEY {} \\;", project))
    assert plain.action is Action.ALLOW, plain.reason
