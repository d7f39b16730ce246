"""policy log views over a large log: a progress bar by bytes read on a terminal, nothing when
stderr is piped, and the same answer on stdout either way."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import Sandbox, read_terminal

from policy_engine.decisionlog import writer as audit


@pytest.fixture
def large_log(tmp_path: Path) -> Path:
    """Some megabytes of decisions, over a rotated file and the live one."""
    path = tmp_path / "decisions.jsonl"
    for name, first in ((f"{path}.1", 0), (str(path), 10_000)):
        with open(name, "wb") as log:
            for n in range(first, first + 10_000):
                action = ("allow", "ask", "deny")[n % 3]
                record = {
                    "event": "decision",
                    "ts": 1_700_000_000 + n,
                    "session": "s1",
                    "tool_call": f"t{n}",
                    "tool": "bash",
                    "command": f"make target-{n % 50} " + "x" * 120,
                    "action": action,
                    "atoms": [{"command": f"make target-{n % 50}", "action": action, "policy": "p"}],
                }
                log.write(audit.encode(record))
    return path


def run(sandbox: Sandbox, args: list[str], *, stderr_is_terminal: bool) -> tuple[bytes, bytes]:
    """(stdout, stderr) of the real CLI, its stderr a pseudo-terminal or a pipe."""
    command = [sys.executable, "-P", "-m", "policy_engine", *args]
    if not stderr_is_terminal:
        done = subprocess.run(command, capture_output=True, env=sandbox.env, cwd=sandbox.root, timeout=120)
        return done.stdout, done.stderr
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=follower, env=sandbox.env, cwd=sandbox.root
    )
    os.close(follower)
    seen = read_terminal(leader)
    stdout, _ = process.communicate(timeout=120)
    assert process.returncode == 0, seen
    return stdout, seen


@pytest.mark.parametrize("view", [["tail", "-n", "3"], ["stats"], ["suggest"], ["report", "-o", "-"]])
def test_a_terminal_sees_the_bar_a_pipe_does_not(sandbox: Sandbox, large_log: Path, view: list[str]) -> None:
    args = ["log", *view, "--file", str(large_log)]
    total = audit.size(str(large_log))
    assert total > 3_000_000
    shown, drawn = run(sandbox, args, stderr_is_terminal=True)
    piped, quiet = run(sandbox, args, stderr_is_terminal=False)
    text = drawn.decode()
    assert "reading the decision log [" in text and f"/{total:,} bytes" in text
    assert text.endswith("\r") and not text.rstrip("\r").rsplit("\r", 1)[-1].strip(), "the bar is erased"
    assert quiet == b"", "nothing on a pipe"
    if view[0] == "report":  # the page says when it was made
        shown, piped = (page.split(b" \xc2\xb7 made ")[0] for page in (shown, piped))
    assert shown == piped and shown, "the answer does not depend on who watches"
    assert b"\r" not in shown
