"""Work that must not grow with the square of a line: a command with thousands of operands has a
verdict per operand, and what depends on the command alone (which rule matches it, whether it only
reads) is worked out once, not once per operand. Counted, not timed: the benchmark times it."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import Sandbox, bash

from policy_engine import Action, Atom
from policy_engine.decide.rules import RuleBook

OPERANDS = 2000


@pytest.fixture
def project(sandbox: Sandbox) -> Path:
    directory = sandbox.project("app")
    (directory / ".git").mkdir()
    (directory / "Makefile").write_text("test:\n\ttrue\n")
    return directory


def _counting(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    counts = {"match": 0, "read_only": 0}
    match, read_only = RuleBook.match, Atom.read_only

    def counted_match(self: RuleBook, *args: object, **kwargs: object) -> object:
        counts["match"] += 1
        return match(self, *args, **kwargs)  # type: ignore[arg-type]

    def counted_read_only(self: Atom) -> bool:
        counts["read_only"] += 1
        return read_only.fget(self)  # type: ignore[attr-defined, no-any-return]

    monkeypatch.setattr(RuleBook, "match", counted_match)
    monkeypatch.setattr(Atom, "read_only", property(counted_read_only))
    return counts


@pytest.mark.parametrize(
    ("command", "action"),
    [
        ("cat", Action.ALLOW),  # read-only rules ($safe-bash)
        ("rm", Action.ASK),  # deletes: no rule of the default allows it
        ("pytest", Action.ALLOW),  # a project task, allowed in a sandbox where there is one
    ],
)
def test_a_command_with_thousands_of_operands_is_matched_once_per_policy(
    sandbox: Sandbox, project: Path, monkeypatch: pytest.MonkeyPatch, command: str, action: Action
) -> None:
    engine = sandbox.engine(cwd=project)
    counts = _counting(monkeypatch)
    line = f"{command} " + " ".join(f"f{i}.txt" for i in range(OPERANDS))
    decision = engine.evaluate(bash(line, project))
    assert decision.action is action, decision.reason
    assert len(decision.verdicts) >= OPERANDS  # a verdict per operand
    # Once per policy that holds an operand (and once more if the line is judged again confined).
    assert counts["match"] <= 4, counts
    assert counts["read_only"] <= 8, counts
