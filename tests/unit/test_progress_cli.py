"""policy diff and policy lint show how far they got when stderr is a terminal, and nothing when it
is piped; what they print on stdout is the same bytes either way."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

from helpers import Sandbox, read_terminal

OLD = '{ "policies": { "p": { "defaultAction": "allow", "rules": [] } }, "defaultPolicy": "p" }'
NEW = (
    '{ "policies": { "p": { "defaultAction": "allow", "rules": [ { "action": "deny", "tool": "bash", '
    '"pattern": "echo *" } ] } }, "defaultPolicy": "p" }'
)


def run(sandbox: Sandbox, args: list[str], *, terminal: bool) -> tuple[int, bytes, bytes]:
    """(status, stdout, stderr) of the real CLI, its stdout a file and its stderr a pseudo-terminal
    or a pipe."""
    argv = [sys.executable, "-P", "-m", "policy_engine", *args]
    out = sandbox.root / f"stdout-{terminal}"
    with out.open("wb") as stdout:
        if not terminal:
            done = subprocess.run(
                argv, stdout=stdout, stderr=subprocess.PIPE, cwd=sandbox.root, env=sandbox.env, timeout=120
            )
            return done.returncode, out.read_bytes(), done.stderr
        leader, follower = pty.openpty()
        process = subprocess.Popen(argv, stdout=stdout, stderr=follower, cwd=sandbox.root, env=sandbox.env)
        os.close(follower)
        seen = read_terminal(leader)
        status = process.wait(timeout=120)
    return status, out.read_bytes(), seen


def both(sandbox: Sandbox, args: list[str]) -> tuple[int, bytes, bytes, bytes]:
    """Run twice, piped then on a terminal: (status, stdout, piped stderr, terminal stderr), having
    checked that both runs exit alike and print the same bytes."""
    piped = run(sandbox, args, terminal=False)
    shown = run(sandbox, args, terminal=True)
    assert shown[0] == piped[0]
    assert shown[1] == piped[1]
    return piped[0], piped[1], piped[2], shown[2]


def test_diff_shows_progress_on_a_terminal_only(sandbox: Sandbox) -> None:
    old, new = sandbox.write("old.jsonc", OLD), sandbox.write("new.jsonc", NEW)
    corpus = sandbox.write("corpus.txt", "".join(f"echo {n}\nls d{n}\n" for n in range(1500)))
    status, stdout, piped, terminal = both(sandbox, ["diff", str(old), str(new), "--corpus", str(corpus)])
    assert status == 1
    assert stdout.endswith(b"1500 of 3000 calls changed: 0 looser, 1500 stricter\n")
    assert piped == b""
    assert b"judging [" in terminal and b"/3,000 calls" in terminal
    assert terminal.endswith(b"\r")  # erased: the line is clean for what comes next


def test_lint_over_many_files_shows_progress_on_a_terminal_only(sandbox: Sandbox) -> None:
    files = [str(sandbox.write(f"p{n}.jsonc", NEW if n % 2 else OLD)) for n in range(6)]
    for form, ending in (([], b"6 files: 0 errors, 0 warnings, 0 notes\n"), (["--format", "json"], b"]\n")):
        status, stdout, piped, terminal = both(sandbox, ["lint", *files, *form])
        assert (status, stdout[-len(ending) :]) == (0, ending)
        assert piped == b""
        assert b"linting [" in terminal and b"/6 files" in terminal
