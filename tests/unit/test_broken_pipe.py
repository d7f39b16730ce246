"""A reader that leaves early (``policy log tail | head``): the command stops quietly, no traceback,
and exits 141 (128 + SIGPIPE), as a command the signal ended would."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from helpers import Sandbox


def run_into_closed_pipe(sandbox: Sandbox, *args: str, read: int = 0) -> tuple[int, str]:
    """Run the real CLI with stdout a pipe whose read end is closed after ``read`` bytes (at once
    when 0, before the command has written anything); its exit status and stderr."""
    with subprocess.Popen(
        [sys.executable, "-m", "policy_engine", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=str(sandbox.root),
        env=sandbox.env,
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        if read:
            assert len(process.stdout.read(read)) == read
        process.stdout.close()
        stderr = process.stderr.read().decode()
        return process.wait(timeout=60), stderr


def write_log(sandbox: Sandbox, count: int) -> None:
    """A decision log of ``count`` records where the CLI finds it (the state directory)."""
    state = sandbox.root / "state" / "policy-engine"
    state.mkdir(parents=True)
    record = {"event": "decision", "session": "s1", "tool": "bash", "action": "allow", "judged": "allow"}
    lines = (
        json.dumps({**record, "time": f"2026-01-01T00:00:{n % 60:02d}Z", "command": f"ls dir{n}"})
        for n in range(count)
    )
    (state / "decisions.jsonl").write_text("".join(line + "\n" for line in lines))


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("config", "--json"), id="config-json"),
        pytest.param(("presets", "safe-bash"), id="presets"),
        pytest.param(("check", "ls"), id="check"),
    ],
)
def test_a_closed_pipe_ends_the_command_quietly(sandbox: Sandbox, args: tuple[str, ...]) -> None:
    status, stderr = run_into_closed_pipe(sandbox, *args)
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr
    assert stderr == ""
    assert status == 141


def test_log_tail_into_a_reader_that_stops_after_a_few_lines(sandbox: Sandbox) -> None:
    write_log(sandbox, 5000)
    sandbox.env["XDG_STATE_HOME"] = str(sandbox.root / "state")
    whole = sandbox.run("log", "tail", "-n", "5000")
    assert whole.returncode == 0 and whole.stdout.count("\n") >= 5000, whole.stderr
    assert len(whole.stdout) > 200_000  # more than a pipe holds: the writer meets the closed end

    status, stderr = run_into_closed_pipe(sandbox, "log", "tail", "-n", "5000", read=100)
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr
    assert status == 141


def test_the_problems_of_a_bad_file_still_reach_stderr(sandbox: Sandbox) -> None:
    """`policy check --json` prints a config error to both streams: a closed stdout loses only its
    copy."""
    path = sandbox.write("bad.jsonc", '{ "policies": { "p": { "defaultAction": "alow" } } }')
    status, stderr = run_into_closed_pipe(sandbox, "check", "--json", "--config", str(path), "ls")
    assert "Traceback" not in stderr
    assert f"{path}:1:41: policies.p.defaultAction" in stderr
    assert status == 141
