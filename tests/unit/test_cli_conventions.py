"""The ``policy`` command's conventions, run as users run it: ``policy`` alone, ``-V``, "did you
mean" for a mistyped command, option or choice, completion scripts loaded in the real bash, zsh and
fish, and colour and wrapping on a pseudo-terminal (never in ``--json`` nor in a hook's answer)."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from helpers import Sandbox, read_terminal
from payloads import claude

from policy_engine.cli import _ALIASES, _MODULES, build_parser
from policy_engine.version import __version__

ESCAPE = "\x1b["
SSH_KEY = "cat ~/.ssh/id_rsa"  # denied by the embedded default, with a long reason

# One rule per action, so that each action word can be seen on a terminal.
EVERY_ACTION = """
{
  "policies": {
    "p": {
      "defaultAction": "deny",
      "rules": [
        { "action": "allow", "tool": "bash", "pattern": "git status" },
        { "action": "nudge", "tool": "bash", "pattern": "grep *", "message": "Prefer rg." },
        { "action": "log", "tool": "bash", "pattern": "make *" },
        { "action": "ask", "tool": "bash", "pattern": "git push *" },
      ],
    },
  },
  "defaultPolicy": "p",
}
"""
COMMAND_FOR = {
    "allow": "git status",
    "nudge": "grep -r TODO .",
    "log": "make test",
    "ask": "git push origin main",
    "deny": "curl https://example.com",
}


def on_terminal(
    sandbox: Sandbox,
    *args: str,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
    columns: int = 0,
) -> tuple[int, str]:
    """(exit status, what the terminal showed) of the real ``policy`` CLI with stdout and stderr on
    a pseudo-terminal of ``columns`` columns (0: a terminal that does not say its width)."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    process = subprocess.Popen(
        [sys.executable, "-P", "-m", "policy_engine", *args],
        stdin=subprocess.PIPE,
        stdout=follower,
        stderr=follower,
        cwd=sandbox.root,
        env={**sandbox.env, **(env or {})},
    )
    os.close(follower)
    assert process.stdin is not None
    process.stdin.write((stdin or "").encode())
    process.stdin.close()
    shown = read_terminal(leader)
    status = process.wait(timeout=60)
    return status, shown.decode().replace("\r\n", "\n")  # the terminal's own line endings


# ---- policy alone, -V, did you mean -------------------------------------------------------------------


def test_policy_alone_prints_a_short_usage_with_the_common_commands(sandbox: Sandbox) -> None:
    result = sandbox.run()
    assert result.returncode == 2, "a script whose arguments went missing must not read an allow (0)"
    assert result.stdout == ""
    assert result.stderr.startswith("usage: policy ")
    commands = re.findall(r"^  (\w+) +\S", result.stderr, re.MULTILINE)
    assert commands[:3] == ["check", "install", "doctor"]
    assert {"config", "init", "approve", "log", "lint"} <= set(commands)
    assert "`policy --help` lists every command" in result.stderr
    assert len(result.stderr.splitlines()) < 20, "short: --help is the long form"
    assert all(len(line) <= 80 for line in result.stderr.splitlines())


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version(sandbox: Sandbox, flag: str) -> None:
    result = sandbox.run(flag)
    assert (result.returncode, result.stdout) == (0, f"policy-engine {__version__}\n")


@pytest.mark.parametrize(
    ("args", "usage", "said"),
    [
        pytest.param(["chek", "ls"], "policy", "invalid choice: 'chek' (did you mean check?)", id="command"),
        pytest.param(["approv"], "policy", "(did you mean approve or approvals?)", id="two-commands"),
        pytest.param(
            ["check", "--jsn", "ls"],
            "policy check",
            "policy check: error: unrecognized arguments: --jsn (did you mean --json?)",
            id="option",
        ),
        pytest.param(
            ["check", "--explan=1", "ls"],
            "policy check",
            "--explan=1 (did you mean --explain?)",
            id="option=",
        ),
        pytest.param(["log", "tial"], "policy log", "invalid choice: 'tial' (did you mean tail?)", id="view"),
        pytest.param(
            ["log", "tail", "--jsn"], "policy log tail", "--jsn (did you mean --json?)", id="view-option"
        ),
        pytest.param(
            ["install", "--agent", "clade"],
            "policy install",
            "argument --agent: invalid choice: 'clade' (did you mean claude?)",
            id="choice",
        ),
        pytest.param(
            ["check", "--mode", "enforced", "ls"], "policy check", "(did you mean enforce?)", id="mode"
        ),
    ],
)
def test_did_you_mean(sandbox: Sandbox, args: list[str], usage: str, said: str) -> None:
    result = sandbox.run(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"usage: {usage} "), "the usage of the command that was mistyped"
    assert said in result.stderr


def test_nothing_close_gets_argparse_s_own_message(sandbox: Sandbox) -> None:
    result = sandbox.run("frobnicate")
    assert result.returncode == 2
    assert "invalid choice: 'frobnicate'" in result.stderr
    assert "did you mean" not in result.stderr
    extra = sandbox.run("check", "ls", "extra")
    assert extra.returncode == 2
    assert "unrecognized arguments: extra\n" in extra.stderr


# ---- completions ------------------------------------------------------------------------------------


def script(sandbox: Sandbox, shell: str) -> Path:
    result = sandbox.run("completions", shell)
    assert result.returncode == 0, result.stderr
    return sandbox.write(f"policy.{shell}", result.stdout)


def every_command() -> set[str]:
    return set(_MODULES) | set(_ALIASES)


def check_options() -> set[str]:
    """The options ``policy check`` accepts, as its parser says."""
    check = build_parser("check")._subparsers._group_actions[0].choices["check"]  # type: ignore[union-attr]
    return {flag for action in check._actions for flag in action.option_strings}


def test_an_unknown_shell_is_a_usage_error(sandbox: Sandbox) -> None:
    result = sandbox.run("completions", "powershell")
    assert result.returncode == 2
    assert "invalid choice: 'powershell'" in result.stderr


_BASH_DRIVER = """
source "$1"
complete -p policy
# What a Tab offers after the words given: bash's completion function, called as bash calls it.
offers() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _policy; echo "${COMPREPLY[*]}"; }
offers policy ch
offers policy ''
offers policy check --
offers policy check --mode ''
offers policy install --agent ''
offers policy --no-color install --agent cl
offers policy status --js
offers policy log t
offers policy log tail --action d
offers policy check --tool log ''
offers policy check --mode = en
"""


def test_bash_completion(sandbox: Sandbox) -> None:
    path = script(sandbox, "bash")
    driver = sandbox.write("driver.bash", _BASH_DRIVER)
    result = subprocess.run(
        ["bash", "--norc", "--noprofile", str(driver), str(path)],
        capture_output=True,
        text=True,
        env=sandbox.env,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    registered, *offers = result.stdout.splitlines()
    assert "-F _policy" in registered and registered.endswith(" policy")
    (ch, commands, check, modes, agents, claude, status, log, deny, value, equals) = offers
    assert ch == "check"
    assert set(commands.split()) == every_command()
    assert set(check.split()) == {flag for flag in check_options() if flag.startswith("--")}
    assert modes.split() == ["enforce", "inform", "ignore"]
    assert {"claude", "codex", "gemini", "cursor", "copilot"} <= set(agents.split())
    assert claude == "claude"
    assert status == "--json", "an alias completes as its command"
    assert (log, deny) == ("tail", "deny")
    assert value == "", "the value of --tool is not the log command: its operand is left to the shell (files)"
    assert equals == "enforce", "--mode=en, which bash splits at the ="


def test_zsh_completion(sandbox: Sandbox) -> None:
    """An interactive zsh on a pseudo-terminal: Tab pressed, the line run by a ``policy`` function
    that prints the words it got, which the completion wrote."""
    if shutil.which("zsh") is None:
        pytest.skip("zsh is not installed: its completion script cannot be loaded")
    path = script(sandbox, "zsh")
    lines = {
        "policy ch\t": "<<check>>",
        "policy install --agent cl\t": "<<install --agent claude>>",
        "policy log ta\t--js\t": "<<log tail --json>>",
        "policy status --js\t": "<<status --json>>",
        "policy check --mode inf\t": "<<check --mode inform>>",
    }
    shown = interactive(
        ["zsh", "-f", "-i"],
        [
            "autoload -Uz compinit && compinit -u -D",
            f"source {path}",
            'policy() { print -r -- "<<$*>>" }',
            *(line + "\n" for line in lines),  # Tab completes, then Enter runs the line
        ],
        sandbox,
        until=list(lines.values())[-1],
    )
    for said in lines.values():
        assert said in shown, shown


def test_zsh_completion_from_fpath(sandbox: Sandbox) -> None:
    """Saved as ``_policy`` in a directory of ``$fpath``, the script is autoloaded by compinit."""
    if shutil.which("zsh") is None:
        pytest.skip("zsh is not installed: its completion script cannot be loaded")
    directory = sandbox.root / "functions"
    directory.mkdir()
    script(sandbox, "zsh").rename(directory / "_policy")
    shown = interactive(
        ["zsh", "-f", "-i"],
        [
            f"fpath=({directory} $fpath); autoload -Uz compinit && compinit -u -D",
            'policy() { print -r -- "<<$*>>" }',
            "policy chec\t\n",
        ],
        sandbox,
        until="<<check>>",
    )
    assert "<<check>>" in shown, shown


def interactive(argv: list[str], lines: list[str], sandbox: Sandbox, until: str) -> str:
    """What a shell on a pseudo-terminal shows as ``lines`` are typed, once it shows ``until``."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        argv,
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env={**sandbox.env, "TERM": "dumb"},
        cwd=sandbox.root,
        start_new_session=True,
    )
    os.close(follower)
    for line in lines:
        os.write(leader, (line if line.endswith("\n") else line + "\n").encode())
    shown = b""
    deadline = time.monotonic() + 30
    try:
        while until.encode() not in shown and time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.5)
            if ready:
                try:
                    shown += os.read(leader, 65536)
                except OSError:
                    break
    finally:
        process.kill()
        process.wait()
        os.close(leader)
    return shown.decode(errors="replace")


def fish_offers(sandbox: Sandbox, path: Path, line: str) -> list[str]:
    """What fish offers for ``line`` (``complete -C``), the candidates without their descriptions."""
    result = subprocess.run(
        ["fish", "--no-config", "-c", f"source {path}; complete -C '{line}'"],
        capture_output=True,
        text=True,
        env=sandbox.env,
        cwd=sandbox.root,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return [candidate.split("\t")[0] for candidate in result.stdout.splitlines()]


def test_fish_completion(sandbox: Sandbox) -> None:
    if shutil.which("fish") is None:
        pytest.skip("fish is not installed: its completion script cannot be loaded")
    path = script(sandbox, "fish")
    assert fish_offers(sandbox, path, "policy ch") == ["check"]
    assert set(fish_offers(sandbox, path, "policy ")) == every_command()
    assert set(fish_offers(sandbox, path, "policy check --")) == {
        flag for flag in check_options() if flag.startswith("--")
    }
    assert {"claude", "codex", "gemini", "cursor", "copilot"} <= set(
        fish_offers(sandbox, path, "policy install --agent ")
    )
    assert fish_offers(sandbox, path, "policy status --js") == ["--json"]
    assert fish_offers(sandbox, path, "policy log tail --action d") == ["deny"]
    assert fish_offers(sandbox, path, "policy completions ") == ["bash", "fish", "zsh"]
    # A value nothing lists is a file name; the value of --tool is not taken for the log command.
    assert "policy.fish" in fish_offers(sandbox, path, "policy check --config ")
    assert "policy.fish" in fish_offers(sandbox, path, "policy check --tool log ")
    assert "tail" not in fish_offers(sandbox, path, "policy check --tool log ")


# ---- colour and wrapping ------------------------------------------------------------------------------


def test_a_terminal_sees_the_action_word_coloured(sandbox: Sandbox) -> None:
    status, shown = on_terminal(sandbox, "check", SSH_KEY)
    assert status == 20
    assert re.match(r"\x1b\[[0-9;]+mdeny\x1b\[0m: \[policy-engine\] Denied: ", shown), shown
    assert shown.count(ESCAPE) == 2, "the action word alone"


def test_each_action_has_a_colour_of_its_own(sandbox: Sandbox) -> None:
    config = sandbox.write("policy.jsonc", EVERY_ACTION)
    colours = {}
    for action, command in COMMAND_FOR.items():
        result = sandbox.run("check", "--config", str(config), command, env={"FORCE_COLOR": "1"})
        match = re.match(rf"\x1b\[([0-9;]+)m{action}\x1b\[0m: ", result.stdout)
        assert match, result.stdout
        colours[action] = match[1]
    assert len(set(colours.values())) == len(colours), colours


@pytest.mark.parametrize(
    ("args", "env"),
    [
        pytest.param([], {"NO_COLOR": "1"}, id="NO_COLOR"),
        pytest.param([], {"NO_COLOR": "1", "FORCE_COLOR": "1"}, id="NO_COLOR-beats-FORCE_COLOR"),
        pytest.param(["--no-color"], {}, id="--no-color-after"),
        pytest.param(["--no-color"], {"FORCE_COLOR": "1"}, id="--no-color-beats-FORCE_COLOR"),
        pytest.param([], {"TERM": "dumb"}, id="dumb-terminal"),
    ],
)
def test_no_colour_on_a_terminal_when_refused(sandbox: Sandbox, args: list[str], env: dict[str, str]) -> None:
    status, shown = on_terminal(sandbox, "check", *args, SSH_KEY, env=env)
    assert status == 20
    assert shown.startswith("deny: [policy-engine] Denied: ")
    assert ESCAPE not in shown


def test_no_color_may_come_before_the_command(sandbox: Sandbox) -> None:
    status, shown = on_terminal(sandbox, "--no-color", "check", SSH_KEY)
    assert (status, shown.startswith("deny: ")) == (20, True)
    assert ESCAPE not in shown


def test_a_pipe_gets_no_colour_unless_forced(sandbox: Sandbox) -> None:
    plain = sandbox.run("check", SSH_KEY)
    assert plain.stdout.startswith("deny: ") and ESCAPE not in plain.stdout
    unforced = sandbox.run("check", SSH_KEY, env={"FORCE_COLOR": "0"})
    assert unforced.stdout == plain.stdout
    forced = sandbox.run("check", SSH_KEY, env={"FORCE_COLOR": "1", "COLUMNS": "40"})
    assert forced.stdout.startswith(f"{ESCAPE}") and "deny\x1b[0m: " in forced.stdout
    assert re.sub(r"\x1b\[[0-9;]*m", "", forced.stdout) == plain.stdout, "forced colour is not wrapped"


def test_json_is_never_coloured_nor_wrapped(sandbox: Sandbox) -> None:
    piped = sandbox.run("check", "--json", SSH_KEY)
    status, shown = on_terminal(
        sandbox, "check", "--json", SSH_KEY, env={"FORCE_COLOR": "1", "COLUMNS": "40"}, columns=40
    )
    assert status == 20
    assert ESCAPE not in shown
    assert json.loads(shown) == json.loads(piped.stdout)


def test_a_hook_answer_is_never_coloured_nor_wrapped(sandbox: Sandbox) -> None:
    payload = json.dumps(claude(str(sandbox.root), "Bash", {"command": SSH_KEY}))
    piped = sandbox.run("hook", "--agent", "claude", stdin=payload)
    status, shown = on_terminal(
        sandbox,
        "hook",
        "--agent",
        "claude",
        stdin=payload,
        env={"FORCE_COLOR": "1", "COLUMNS": "40"},
        columns=40,
    )
    assert status == piped.returncode == 0
    assert ESCAPE not in shown
    answer = json.loads(shown)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert answer == json.loads(piped.stdout)


@pytest.mark.parametrize(
    ("env", "columns", "width"),
    [
        pytest.param({"COLUMNS": "60"}, 0, 60, id="COLUMNS"),
        pytest.param({"COLUMNS": "60"}, 100, 60, id="COLUMNS-over-the-terminal"),
        pytest.param({}, 50, 50, id="the-terminal's-width"),
    ],
)
def test_a_long_reason_is_wrapped_to_the_terminal(
    sandbox: Sandbox, env: dict[str, str], columns: int, width: int
) -> None:
    one_line = sandbox.run("check", SSH_KEY, env=env).stdout
    assert one_line.count("\n") == 1 and len(one_line) > 100, "a pipe gets one line"
    status, shown = on_terminal(sandbox, "check", SSH_KEY, env={"NO_COLOR": "1", **env}, columns=columns)
    assert status == 20
    first, *rest = shown.splitlines()
    assert first.startswith("deny: [policy-engine] Denied: ")
    assert len(rest) >= 2
    for line in (first, *rest):
        assert len(line) <= width or " " not in line.strip(), f"a long line breaks only at spaces: {line!r}"
    assert all(line.startswith(" " * len("deny: ")) for line in rest), "continuations under the reason"
    assert " ".join(line.strip() for line in shown.splitlines()) == one_line.strip(), "no word lost or cut"


def test_a_terminal_that_does_not_say_its_width_gets_one_line(sandbox: Sandbox) -> None:
    status, shown = on_terminal(sandbox, "check", SSH_KEY, env={"NO_COLOR": "1"}, columns=0)
    assert status == 20
    assert shown == sandbox.run("check", SSH_KEY).stdout


def test_a_coloured_and_wrapped_verdict_keeps_its_words(sandbox: Sandbox) -> None:
    plain = sandbox.run("check", SSH_KEY).stdout.strip()
    status, shown = on_terminal(sandbox, "check", SSH_KEY, env={"COLUMNS": "70"})
    assert status == 20
    assert shown.startswith(ESCAPE) and len(shown.splitlines()) > 1
    unstyled = re.sub(r"\x1b\[[0-9;]*m", "", shown)
    assert " ".join(line.strip() for line in unstyled.splitlines()) == plain


def test_approve_shows_the_verdict_now_as_check_does(sandbox: Sandbox) -> None:
    status, shown = on_terminal(sandbox, "approve", "npm run build", env={"COLUMNS": "60"})
    assert status == 0, shown
    now = next(line for line in shown.splitlines() if line.startswith("now "))
    assert re.match(r"now \x1b\[[0-9;]+mallow\x1b\[0m: \[policy-engine\] Allowed: ", now), shown
    piped = sandbox.run("approve", "npm run build")  # already approved: the same verdict, plain
    assert piped.returncode == 0 and "\nnow allow: [policy-engine] Allowed: " in piped.stdout
