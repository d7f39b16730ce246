"""The ``policy check`` CLI, run as a real subprocess: JSON, exit statuses, batch mode, usage errors."""

from __future__ import annotations

import json
import re

import pytest
from helpers import Sandbox, bash, tool

from policy_engine import Action
from policy_engine.explain.report import decision_json

CONFIG = """
{
  "policies": {
    "work": {
      "defaultAction": "deny",
      "rules": [
        { "action": "allow", "tool": "read" },
        { "action": "allow", "tool": "bash", "pattern": "git *" },
        { "action": "ask", "tool": "bash", "pattern": "git push *" },
        { "action": "log", "tool": "bash", "pattern": "make *" },
        { "action": "nudge", "tool": "bash", "pattern": "grep *", "message": "Prefer rg." },
      ],
    },
  },
  "locations": { "/home/user/work": "work" },
}
"""


@pytest.fixture
def config(sandbox: Sandbox):
    return sandbox.write("policy.jsonc", CONFIG)


@pytest.mark.parametrize(
    ("command", "action", "status"),
    [
        ("git status", "allow", 0),
        ("grep -r TODO .", "nudge", 0),
        ("make test", "log", 0),
        ("git push origin main", "ask", 10),
        ("curl https://example.com", "deny", 20),
    ],
)
def test_exit_status_per_action(sandbox: Sandbox, config, command: str, action: str, status: int) -> None:
    result = sandbox.run("check", "--config", str(config), "--cwd", "/home/user/work", command)
    assert result.returncode == status, result.stderr
    assert result.stdout.startswith(f"{action}: [policy-engine] ")


def test_json_has_action_reason_message_and_trace(sandbox: Sandbox, config) -> None:
    data = sandbox.check_json("--config", str(config), "--cwd", "/home/user/work", "git push origin main")
    assert data["action"] == "ask"
    assert data["message"] is None
    assert data["reason"].startswith(
        "[policy-engine] Needs approval: bash (git push origin main): updates main on origin: rule ask bash"
    )
    decided = data["trace"]["decided_by"]
    assert decided["layer"] == "config"
    assert decided["policy"] == "work"
    assert decided["location"] == "/home/user/work"
    assert decided["target"] == "/home/user/work"
    assert decided["rule"]["pattern"] == "git push *"
    assert decided["rule"]["specificity"] == 9
    assert decided["at"] == f"{config}:8:9"
    assert [beaten["pattern"] for beaten in decided["beat"]] == ["git *"]


def test_json_nudge_carries_the_message(sandbox: Sandbox, config) -> None:
    data = sandbox.check_json("--config", str(config), "--cwd", "/home/user/work", "grep x y")
    assert (data["action"], data["message"]) == ("nudge", "Prefer rg.")


def test_explain_lists_every_verdict(sandbox: Sandbox, config) -> None:
    result = sandbox.run(
        "check", "--explain", "--config", str(config), "--cwd", "/home/user/work", "git push x"
    )
    lines = result.stdout.splitlines()
    assert lines[1] == "atom 1: git push x"
    assert lines[2] == "  unknown /home/user/work"  # a push touches the repository, neither read nor write
    assert lines[3].startswith(
        "  => ask   [config] /home/user/work: policy 'work' (location /home/user/work): ask bash"
    )
    assert lines[4].strip().startswith('beat allow bash "git *"')


def test_other_tools_take_input_json(sandbox: Sandbox, config) -> None:
    allowed = sandbox.run(
        "check", "--config", str(config), "--tool", "Read", "--input", '{"file_path": "/home/user/work/a.py"}'
    )
    assert allowed.returncode == 0, allowed.stderr
    denied = sandbox.check_json(
        "--config", str(config), "--tool", "write", "--input", '{"path": "/home/user/work/a.py"}'
    )
    assert denied["action"] == "deny"
    assert denied["tool"] == "write"
    assert "The restriction is on the path" in denied["reason"]


def test_bash_command_may_come_from_input(sandbox: Sandbox, config) -> None:
    data = sandbox.check_json(
        "--config", str(config), "--cwd", "/home/user/work", "--input", '{"command": "git log"}'
    )
    assert data["action"] == "allow"


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["check"], id="no-command"),
        pytest.param(["check", "--input", "{not json", "ls"], id="bad-input-json"),
        pytest.param(["check", "--input", "[1]", "ls"], id="input-not-object"),
        pytest.param(["check", "--tool", "bash", "--input", "{}"], id="bash-without-command"),
        pytest.param(["check", "--batch", "-", "ls"], id="batch-and-command"),
        pytest.param(["frobnicate"], id="unknown-command"),
        pytest.param(["check", "--no-such-flag", "ls"], id="unknown-flag"),
    ],
)
def test_usage_errors_exit_2(sandbox: Sandbox, config, args: list[str]) -> None:
    result = sandbox.run(*args, "--config", str(config)) if args[0] == "check" else sandbox.run(*args)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stderr


def test_batch_reads_jsonl_and_writes_one_result_per_line(sandbox: Sandbox, config) -> None:
    requests = [
        {"tool": "bash", "command": "git status", "cwd": "/home/user/work"},
        {"command": "rm -rf build", "cwd": "/home/user/work"},
        {"tool": "Read", "input": {"file_path": "/home/user/work/x"}, "cwd": "/home/user/work"},
        {"tool": "write", "input": {"file_path": "/tmp/x"}, "cwd": "/home/user/work"},
    ]
    stdin = "\n".join(json.dumps(r) for r in requests) + "\n\n"
    result = sandbox.run("check", "--config", str(config), "--batch", "-", stdin=stdin)
    assert result.returncode == 0, result.stderr
    actions = [json.loads(line)["action"] for line in result.stdout.splitlines()]
    assert actions == ["allow", "deny", "allow", "ask"]  # /tmp: the embedded default's "elsewhere"
    batch_file = sandbox.write("requests.jsonl", stdin)
    from_file = sandbox.run("check", "--config", str(config), "--batch", str(batch_file))
    assert from_file.stdout == result.stdout


def test_batch_reports_a_bad_line_and_goes_on(sandbox: Sandbox, config) -> None:
    stdin = '{"command": "git status", "cwd": "/home/user/work"}\n{oops\n[1, 2]\n{"command": "git log"}\n'
    result = sandbox.run(
        "check", "--config", str(config), "--cwd", "/home/user/work", "--batch", "-", stdin=stdin
    )
    assert result.returncode == 2
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[0]["action"] == "allow"
    assert lines[1]["error"].startswith("line 2:")
    assert lines[2]["error"].startswith("line 3:")
    assert lines[3]["action"] == "allow"  # cwd defaults to --cwd


def test_a_batch_file_that_cannot_be_read_is_a_usage_error(sandbox: Sandbox, config) -> None:
    result = sandbox.run("check", "--config", str(config), "--batch", str(sandbox.root / "missing.jsonl"))
    assert result.returncode == 2
    assert (
        result.stderr
        == f"policy check: cannot read {sandbox.root / 'missing.jsonl'}: No such file or directory\n"
    )


def test_a_lone_surrogate_in_the_input_is_written_escaped_not_a_crash(sandbox: Sandbox, config) -> None:
    result = sandbox.run(
        "check", "--config", str(config), "--json", "--tool", "read", "--input", '{"file_path": "\\ud800"}'
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["trace"]["atoms"][0]["accesses"][0]["path"].endswith("\ud800")
    batch = '{"tool": "read", "input": {"file_path": "\\ud800"}}\n{"command": "git status"}\n'
    result = sandbox.run("check", "--config", str(config), "--batch", "-", stdin=batch)
    assert result.returncode == 0 and len(result.stdout.splitlines()) == 2, result.stderr


# What a reason says a deleted tree holds is counted under a time bound (explain/consequences.py): two
# processes on a loaded machine count a tree as large as / differently.
_COUNTED = re.compile(
    r"(more than|at least) [\d,]+ files?( and directories| in [\d,]+ director(y|ies), [a-z ]+)"
)


def test_the_python_api_gives_the_cli_decision(sandbox: Sandbox, config) -> None:
    engine = sandbox.engine(config)
    for command in ("git status", "git push origin main", "rm -rf /", "grep -n x"):
        cli = sandbox.check_json("--config", str(config), "--cwd", "/home/user/work", command)
        api = decision_json(engine.evaluate(bash(command, "/home/user/work")))
        api["reason"], cli["reason"] = (_COUNTED.sub("(counted)", d["reason"]) for d in (api, cli))
        assert api == cli
    api = engine.evaluate(tool("read", "/home/user/work", file_path="a.txt"))
    assert api.action is Action.ALLOW


def test_console_script_and_module_agree(sandbox: Sandbox, config) -> None:
    import shutil
    import subprocess

    script = shutil.which("policy")
    if script is None:
        pytest.skip("the console script is not on PATH (package not installed)")
    args = ["check", "--config", str(config), "--cwd", "/home/user/work", "--json", "git push x"]
    via_script = subprocess.run([script, *args], capture_output=True, text=True, env=sandbox.env)
    via_module = sandbox.run(*args)
    assert via_script.returncode == via_module.returncode == 10
    assert via_script.stdout == via_module.stdout


def test_help_describes_every_command(sandbox: Sandbox) -> None:
    result = sandbox.run("--help")
    assert result.returncode == 0
    for command in ("check", "config", "trust", "untrust"):
        assert command in result.stdout
    check_help = sandbox.run("check", "--help").stdout
    for flag in ("--config", "--cwd", "--tool", "--input", "--json", "--explain", "--batch", "exit status"):
        assert flag in check_help
