"""Tests inside policy files: calls written under ``"tests"`` with the decision each must get.

Each file's tests are judged by the whole engine (analysis, protections, approvals, self-protection,
every rule) against that file alone over the embedded default it extends, in enforce mode and
without the managed file, so that a test pins the file's own intent wherever it is checked (a
laptop, CI). A project file that is not trusted is judged as it applies: as a layer that can only
make decisions stricter (unless ``assume_trusted``). A failure names the test's file:line and shows
the decision's trace.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ..model import Action, Decision, ToolCall
from ..paths import normalize
from ..record import Record

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from ..config.discover import Source

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
    untrusted: bool = False

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


def run_file(path: str, env: Mapping[str, str], *, assume_trusted: bool = False) -> list[TestResult]:
    """Judge the tests of the policy file at ``path`` (ConfigError when the file is invalid)."""
    from ..config.discover import Discovery
    from ..config.jsonc import parse
    from ..config.load import read_text
    from ..engine import Engine

    text = read_text(path)
    document = parse(text, path)
    env = {**env, "POLICY_ENGINE_MANAGED_CONFIG": ""}  # the file alone, wherever it is checked
    source = project_source(path)
    untrusted = source is not None and not assume_trusted and not _trusted(path, text, env)
    if untrusted:  # as discovery would find it, with nothing but the embedded default beside it
        found = Discovery((source,), default_cwd(path), ())  # type: ignore[arg-type]
        engine = Engine(cwd=default_cwd(path), env=env, mode="enforce", discovery=found)
    else:
        engine = Engine(path, cwd=default_cwd(path), env=env, mode="enforce")
    tests = document.data.get("tests") or []
    home = engine.home
    results = []
    for number, test in enumerate(tests):
        place = document.places[("tests", number)]
        call = _call(test, default_cwd(path), home)
        reason = test.get("reason")
        expect = Action.parse(test["expect"])
        decision = engine.evaluate(call)
        results.append(
            TestResult(
                path, place.key_line, place.key_column, number, call, expect, reason, decision, untrusted
            )
        )
    return results


def project_source(path: str) -> Source | None:
    """The project file ``path`` is, when it is one by its place (``.policy-engine/policy.jsonc``,
    ``.pi/extensions/pi-controls.json[c]``)."""
    from ..config.discover import OUR_PROJECT, PI_PROJECT, PROJECT, Source

    parts = tuple(os.path.abspath(path).split(os.sep))
    for suffix, flavor in [(OUR_PROJECT, "policy-engine"), *((p, "pi-control") for p in PI_PROJECT)]:
        if parts[-len(suffix) :] == suffix:
            return Source(PROJECT, os.path.abspath(path), flavor)
    return None


def _trusted(path: str, text: str, env: Mapping[str, str]) -> bool:
    from ..config.trust import digest, read_store, recorded_digest

    recorded = recorded_digest(read_store(env), path)
    return recorded is not None and recorded == digest(text)


def _call(test: Mapping[str, Any], cwd: str, home: str) -> ToolCall:
    tool_input = dict(test["input"]) if test.get("input") is not None else {"command": test["command"]}
    where = normalize(test["cwd"], cwd, home) if test.get("cwd") else cwd
    return ToolCall(test.get("tool", "bash"), tool_input, where)


def describe(result: TestResult) -> str:
    """A failed test as `policy test` prints it: where, what, and the decision's trace."""
    from ..explain.report import explain

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
