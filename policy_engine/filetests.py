"""Tests inside policy files: calls written under ``"tests"`` with the decision each must get.

Each file's tests are judged by the whole engine (analysis, protections, approvals, self-protection,
every rule) against that file alone, in enforce mode and without the managed file, so that a test
pins the file's own intent wherever it is checked (a laptop, CI). A failure names the test's
file:line and shows the decision's trace.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from .model import Action, Decision, ToolCall
from .paths import normalize
from .record import Record

# Where a project file sits below its project directory.
_PROJECT_DIRECTORIES = (".policy-engine", ".pi")


class TestResult(Record):
    """One test of a file, judged."""

    file: str
    line: int
    column: int
    number: int
    call: ToolCall
    expect: Action
    reason: str | None
    decision: Decision

    @property
    def passed(self) -> bool:
        return self.decision.action is self.expect and (
            self.reason is None or self.reason in self.decision.reason
        )


def default_cwd(path: str) -> str:
    """The directory a file's tests run in: the project directory of a project file, else the
    directory holding the file."""
    directory = os.path.dirname(os.path.abspath(path))
    parts = directory.split(os.sep)
    for marker in _PROJECT_DIRECTORIES:
        if marker in parts:
            return os.sep.join(parts[: parts.index(marker)]) or os.sep
    return directory


def run_file(path: str, env: Mapping[str, str]) -> list[TestResult]:
    """Judge the tests of the policy file at ``path`` (ConfigError when the file is invalid)."""
    from .config.jsonc import parse
    from .engine import Engine

    with open(path, encoding="utf-8") as handle:
        document = parse(handle.read(), path)
    env = {**env, "POLICY_ENGINE_MANAGED_CONFIG": ""}  # the file alone, wherever it is checked
    engine = Engine(path, cwd=default_cwd(path), env=env, mode="enforce")
    tests = document.data.get("tests") or []
    home = engine.home
    results = []
    for number, test in enumerate(tests):
        place = document.places[("tests", number)]
        call = _call(test, default_cwd(path), home)
        reason = test.get("reason")
        expect = Action.parse(test["expect"])
        results.append(
            TestResult(
                path, place.key_line, place.key_column, number, call, expect, reason, engine.evaluate(call)
            )
        )
    return results


def _call(test: Mapping[str, Any], cwd: str, home: str) -> ToolCall:
    tool_input = dict(test["input"]) if test.get("input") is not None else {"command": test["command"]}
    where = normalize(test["cwd"], cwd, home) if test.get("cwd") else cwd
    return ToolCall(test.get("tool", "bash"), tool_input, where)


def describe(result: TestResult) -> str:
    """A failed test as `policy test` prints it: where, what, and the decision's trace."""
    from .report import explain

    call = result.call
    what = (
        f"bash `{call.input.get('command')}`"
        if "command" in call.input and len(call.input) == 1
        else f"{call.tool} {call.input}"
    )
    wanted = f"expected {result.expect}" + (f' with "{result.reason}" in the reason' if result.reason else "")
    where = f"{result.file}:{result.line}:{result.column}"
    lines = [
        f"{where}: test {result.number + 1} failed: {what} in {call.cwd}: "
        f"{wanted}, got {result.decision.action}",
        f"    reason: {result.decision.reason}",
        *(f"    {line}" for line in explain(result.decision).splitlines()),
    ]
    return "\n".join(lines)
