"""Work that must not grow with the square of a line: a command with thousands of operands has a
verdict per operand, and what depends on the command alone (which rule matches it, whether it only
reads) is worked out once, not once per operand. Counted, not timed: the benchmark times it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import Sandbox, bash

from policy_engine import Action, Atom
from policy_engine.decide import locations
from policy_engine.decide.judge import LayerJudge
from policy_engine.decide.rules import RuleBook

OPERANDS = 2000


@pytest.fixture
def project(sandbox: Sandbox) -> Path:
    directory = sandbox.project("app")
    (directory / ".git").mkdir()
    (directory / "Makefile").write_text("test:\n\ttrue\n")
    return directory


def _counting(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    counts = {"match": 0, "read_only": 0, "above": 0, "explicit": 0}
    match, read_only = RuleBook.match, Atom.read_only
    above_in, explicit_verdict = locations._above_in, LayerJudge._explicit_verdict

    def counted_above_in(*args: Any) -> Any:
        counts["above"] += 1
        return above_in(*args)

    def counted_explicit_verdict(self: LayerJudge, *args: Any) -> Any:
        counts["explicit"] += 1
        return explicit_verdict(self, *args)

    monkeypatch.setattr(locations, "_above_in", counted_above_in)
    monkeypatch.setattr(LayerJudge, "_explicit_verdict", counted_explicit_verdict)

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
    # The operands share their directory: what lies above them is worked out once per index of
    # locations, and a policy's explicit verdict once per sense.
    assert counts["above"] <= 4, counts
    assert counts["explicit"] <= 4, counts


LOCATIONS = 1000


def test_a_walk_over_a_thousand_locations_locates_each_by_its_own_path(
    sandbox: Sandbox, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`find . -delete` reaches every location below the cwd, and each is located in turn: by
    walking its path up an index, not by trying all the locations (a million comparisons)."""

    names = [f"m{i}" for i in range(LOCATIONS)]
    for name in names:
        (project / name).mkdir()
    config = sandbox.write(
        "many.jsonc",
        '{ "policies": { "open": { "defaultAction": "allow" }, "shut": { "defaultAction": "deny" } },'
        ' "defaultPolicy": "open", "locations": {'
        + ", ".join(f'"$cwd/{name}": "{"shut" if name == "m777" else "open"}"' for name in names)
        + "} }",
    )
    engine = sandbox.engine(config, cwd=project)
    line = bash("find . -name '*.o' -delete", project)
    engine.evaluate(line)  # the indexes built, as in a long-lived engine
    calls = 0

    def count(frame: object, event: str, argument: object) -> None:
        nonlocal calls
        calls += event == "call"

    sys.setprofile(count)
    try:
        decision = engine.evaluate(line)
    finally:
        sys.setprofile(None)
    assert decision.action is Action.DENY, decision.reason  # m777's policy, found among a thousand
    assert "m777" in decision.reason
    # Python calls made: some dozens per location reached (it was thousands: every location tried
    # for each).
    assert calls <= 100 * LOCATIONS, calls
