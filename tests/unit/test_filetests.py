"""Tests written inside policy files (`"tests"`), run by `policy test` with the whole engine."""

from __future__ import annotations

import json

import pytest
from helpers import EXAMPLES, Sandbox

from policy_engine.config.jsonc import parse

POLICY = """
{
  "policies": { "p": { "defaultAction": "ask", "rules": [
    "$safe-bash",
    { "action": "deny", "tool": "bash", "pattern": "rm *" },
  ] } },
  "defaultPolicy": "p",
  "pathProtection": { "~/.ssh/": "deny" },
  "tests": [
    { "command": "git status", "expect": "allow" },
    { "command": "rm -rf build", "expect": "deny", "reason": "rm *" },
    { "tool": "Read", "input": { "file_path": "~/.ssh/id_rsa" }, "expect": "deny" },
    %s
  ],
}
"""


def test_passing_tests(sandbox: Sandbox) -> None:
    path = sandbox.write("policy.jsonc", POLICY % "")
    result = sandbox.run("test", str(path))
    assert (result.returncode, result.stdout.strip()) == (0, "3 tests in 1 files: 0 failed")


def test_a_failing_test_names_its_line_and_shows_the_trace(sandbox: Sandbox) -> None:
    path = sandbox.write(
        "policy.jsonc",
        POLICY % '{ "tool": "write", "input": { "file_path": "/etc/hosts" }, "expect": "deny" },',
    )
    result = sandbox.run("test", str(path))
    assert result.returncode == 1
    head, reason, *trace = result.stdout.splitlines()[:3]
    assert head == (
        f"{path}:12:5: test 4 failed: write {{'file_path': '/etc/hosts'}} in {sandbox.root}: expected deny, got ask"
    )
    assert reason.startswith("    reason: [policy-engine] Needs approval: write /etc/hosts")
    assert trace == ["    atom 1: write"]
    assert result.stdout.rstrip().endswith("4 tests in 1 files: 1 failed")


def test_a_reason_that_does_not_match_fails(sandbox: Sandbox) -> None:
    path = sandbox.write(
        "policy.jsonc", POLICY % '{ "command": "rm x", "expect": "deny", "reason": "curl" },'
    )
    result = sandbox.run("test", "--json", str(path))
    assert result.returncode == 1
    last = json.loads(result.stdout)[-1]
    assert (last["passed"], last["expected"], last["action"], last["line"]) == (False, "deny", "deny", 12)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            '{ "command": "ls", "input": { "command": "ls" }, "expect": "allow" }',
            'give "command" or "input", not both',
        ),
        ('{ "tool": "write", "command": "x", "expect": "allow" }', '"command" is for bash'),
        ('{ "expect": "allow" }', 'give "command" (for bash) or "input"'),
        ('{ "command": "ls", "expect": "alow" }', 'unknown action "alow"'),
        ('{ "command": "ls", "expect": "allow", "because": "x" }', 'unknown key "because"'),
    ],
)
def test_a_malformed_test_is_a_config_error_with_its_line(sandbox: Sandbox, entry: str, message: str) -> None:
    path = sandbox.write("policy.jsonc", POLICY % (entry + ","))
    result = sandbox.run("test", str(path))
    assert result.returncode == 3
    assert f"{path}:12:" in result.stderr and message in result.stderr


def test_a_project_files_tests_run_in_its_project(sandbox: Sandbox) -> None:
    project = sandbox.project(
        "repo",
        '{ "policies": { "p": { "defaultAction": "allow", "rules": [ { "action": "deny", "tool": "write" } ] } },'
        ' "locations": { "$cwd": "p" }, "tests": [ { "command": "cat notes", "expect": "allow" },'
        ' { "tool": "write", "input": { "file_path": "notes" }, "expect": "deny" },'
        ' { "tool": "write", "input": { "file_path": "/elsewhere/notes" }, "expect": "ask" } ] }',
    )
    result = sandbox.run("test", cwd=project)  # the discovered files
    assert result.returncode == 0, result.stdout
    # Untrusted, it is judged as it applies: it tightens (its write deny holds) and says so; notes
    # is in $cwd, the project; /elsewhere is judged by the embedded default.
    note, summary = result.stdout.strip().splitlines()
    assert note.startswith(f"{project / '.policy-engine' / 'policy.jsonc'}: not trusted")
    assert summary == "3 tests in 1 files: 0 failed"


def test_every_example_carries_tests_that_pass(sandbox: Sandbox) -> None:
    files = [*sorted(EXAMPLES.glob("*.jsonc")), *sorted((EXAMPLES / "layered").glob("*.jsonc"))]
    for path in files:
        tests = parse(path.read_text(), str(path)).data.get("tests") or []
        assert len(tests) >= 3, f"{path.name} has {len(tests)} tests"
    result = sandbox.run("test", *map(str, files))
    assert result.returncode == 0, result.stdout
    assert result.stdout.strip().endswith("0 failed")
