"""The progress bar: drawn on a terminal, absent when stderr is piped, throttled, erased at the end."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

from helpers import read_terminal

# A script counting a million steps: how it looks on stderr is what is tested.
_SCRIPT = """
from policy_engine.cli.progress import progress
with progress("judging", 1_000_000, unit="commands") as bar:
    for _ in range(1_000_000):
        bar.advance()
print("answer")
"""


def _run(stderr_is_terminal: bool) -> tuple[bytes, bytes]:
    """(stdout, stderr) of the script, its stderr a pseudo-terminal or a pipe."""
    if not stderr_is_terminal:
        done = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, timeout=120)
        return done.stdout, done.stderr
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-c", _SCRIPT], stdout=subprocess.PIPE, stderr=follower, env=dict(os.environ)
    )
    os.close(follower)
    seen = read_terminal(leader)
    stdout, _ = process.communicate(timeout=120)
    return stdout, seen


def test_a_terminal_sees_the_bar_redrawn_a_bounded_number_of_times_then_erased() -> None:
    stdout, stderr = _run(stderr_is_terminal=True)
    assert stdout == b"answer\n"
    text = stderr.decode()
    assert "judging [" in text and "/1,000,000 commands" in text
    # A million steps, at most ten redraws a second: far fewer writes than steps.
    assert 1 <= text.count("judging [") < 1_000
    assert text.endswith("\r"), "the bar's line is erased at the end"
    last_line = text.rstrip("\r").rsplit("\r", 1)[-1]
    assert last_line.strip() == "", "nothing of the bar is left on the terminal"


def test_a_pipe_sees_nothing_and_the_answer_is_the_same() -> None:
    stdout, stderr = _run(stderr_is_terminal=False)
    assert stdout == b"answer\n"
    assert stderr == b""
