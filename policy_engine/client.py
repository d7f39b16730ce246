"""The ``policy`` entry point: a hook call goes to the daemon when one is running, with almost
nothing imported; everything else (and a hook call the daemon cannot take) runs the full CLI.

A hook is a new process per tool call. Importing the engine, tree-sitter and the compiled policy
costs some 40 ms on every call; asking ``policy serve`` over its unix socket costs little more
than starting Python, provided this module imports nothing it can avoid: not the package's other
modules, not ``typing`` (~5 ms), not ``socket`` (its enums, ~3 ms: ``_socket`` does the same
work), not ``json`` (it brings ``re``). Requests and replies are therefore fields separated by NUL
bytes, which neither environment values, agents' JSON payloads nor our answers contain.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's (see above); type checkers treat the name as True
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

# Environment the daemon judges with: where files are found and how the engine is set up. Sent
# with every request, so one daemon serves every caller of its state directory correctly.
FORWARDED_PREFIXES = ("POLICY_ENGINE_", "XDG_")
FORWARDED = ("HOME", "PI_CODING_AGENT_DIR", "PATH", "TMPDIR", "SSH_AUTH_SOCK")
# Variables named like credentials go by name only, their values left behind: a sandbox does not
# pass them in (sandbox/plan.py), and the daemon needs no secret to know that.
SECRET_WORDS = (
    *("TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "ACCESS_KEY", "ACCESSKEY"),
    *("PRIVATE_KEY", "PRIVATEKEY", "CREDENTIAL", "AUTH"),
)
MAGIC = "policy-engine/1"
NUL = "\0"


class Reply:
    """What the hook prints and how it exits (the daemon's answer)."""

    def __init__(self, stdout: str, stderr: str, status: int) -> None:
        self.stdout, self.stderr, self.status = stdout, stderr, status


def forwarded_env(env: Mapping[str, str]) -> dict[str, str]:
    forwarded = {k: v for k, v in env.items() if k in FORWARDED or k.startswith(FORWARDED_PREFIXES)}
    for name in env:
        if name not in forwarded and secret_name(name):
            forwarded[name] = ""
    return forwarded


def secret_name(name: str) -> bool:
    """Whether a variable is named like a credential (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY)."""
    upper = name.upper()
    return any(word in upper for word in SECRET_WORDS)


def encode_request(version: str, agent: str, payload: str, env: Mapping[str, str]) -> bytes | None:
    """The request's bytes, or None when a field holds a NUL (the call is then judged in-process)."""
    fields = [MAGIC, version, agent, payload]
    for key, value in forwarded_env(env).items():
        fields += [key, value]
    if any(NUL in field for field in fields):
        return None
    return NUL.join(fields).encode("utf-8", "surrogateescape")


def decode_request(raw: bytes) -> tuple[str, str, str, dict[str, str]]:
    """(version, agent, payload, env) of a request; ValueError when it is not one."""
    fields = raw.decode("utf-8", "surrogateescape").split(NUL)
    if len(fields) < 4 or fields[0] != MAGIC or len(fields) % 2:
        raise ValueError("not a policy-engine request")
    env = dict(zip(fields[4::2], fields[5::2], strict=True))
    return fields[1], fields[2], fields[3], env


def encode_reply(version: str, status: int, stdout: str, stderr: str) -> bytes:
    fields = [MAGIC, version, str(status), stdout.replace(NUL, ""), stderr.replace(NUL, "")]
    return NUL.join(fields).encode("utf-8", "surrogateescape")


def decode_reply(raw: bytes, version: str) -> Reply | None:
    """The reply, or None when it is not one of this version's (the caller then judges itself)."""
    fields = raw.decode("utf-8", "surrogateescape").split(NUL)
    if len(fields) != 5 or fields[0] != MAGIC or fields[1] != version or not fields[2].isdigit():
        return None
    return Reply(fields[3], fields[4], int(fields[2]))


def _hook_agent(argv: list[str]) -> str | None:
    """The agent of ``policy hook --agent NAME`` (or ``--agent=NAME``), else None."""
    if len(argv) == 3 and argv[0] == "hook" and argv[1] == "--agent":
        return argv[2]
    if len(argv) == 2 and argv[0] == "hook" and argv[1].startswith("--agent="):
        return argv[1].split("=", 1)[1]
    return None


def ask_daemon(agent: str, text: str, env: Mapping[str, str], timeout: float) -> Reply | None:
    """The daemon's reply, or None when it cannot answer (not running, stale, another version, too
    slow): the caller then judges in-process."""
    from policy_engine.statedir import socket_path
    from policy_engine.version import __version__

    request = encode_request(__version__, agent, text, env)
    if request is None:
        return None
    import _socket  # here: a call judged in-process (POLICY_ENGINE_DAEMON=0) does not load it

    connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        connection.settimeout(timeout)
        connection.connect(socket_path(env))
        connection.sendall(request)
        connection.shutdown(_socket.SHUT_WR)
        chunks = []
        while chunk := connection.recv(65536):
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        connection.close()
    return decode_reply(b"".join(chunks), __version__)


def start_daemon(env: Mapping[str, str]) -> None:
    """Start ``policy serve`` in the background for later calls (this one is judged in-process)."""
    import contextlib
    import subprocess

    with contextlib.suppress(OSError):  # no daemon: every call is judged in-process
        subprocess.Popen(
            [sys.executable, "-m", "policy_engine", "serve"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            env=dict(env),
        )


def _timeout(env: Mapping[str, str]) -> float:
    try:
        return float(env.get("POLICY_ENGINE_HOOK_TIMEOUT", "20"))
    except ValueError:
        return 20.0


def main() -> int:
    argv = sys.argv[1:]
    agent = _hook_agent(argv)
    from policy_engine.agents import AGENTS

    if agent not in AGENTS:  # any other command, or a hook call argparse will explain
        from policy_engine.cli import main as cli_main

        return cli_main(argv)
    # A hook process lives for one call, allocating a bounded amount (the analysis caps a line's
    # size and atoms, the hook its time): the cyclic collector's passes over the tens of thousands
    # of objects imports create would cost some 2 ms and free next to nothing. It stays on as a
    # backstop at a threshold one call hardly reaches.
    import gc

    gc.set_threshold(100_000, 50, 50)
    # The answer is written and flushed, the log appended with os.write, the state store committed:
    # tearing down the interpreter (every module, the parsers) would only delay the agent by ~5 ms.
    os._exit(hook(agent, os.environ))


def hook(agent: str, env: Mapping[str, str]) -> int:
    """Answer one hook call of ``agent`` from stdin, by the daemon or in-process. Never raises and
    never exits with anything but 0 or the blocking 2: an agent runs the tool on any other status."""
    try:
        reply = _answer(agent, sys.stdin.buffer.read(), env)
    except BaseException as error:
        reply = _emergency(agent, error)
    try:
        _write(sys.stdout, reply.stdout)
        _write(sys.stderr, reply.stderr)
        sys.stdout.flush()  # whatever else was printed, before the caller leaves without teardown
        sys.stderr.flush()
    except Exception:  # no stdout, or the agent stopped reading: the answer cannot be "go ahead"
        return 2
    return reply.status if reply.status in (0, 2) else 2


def _answer(agent: str, raw: bytes, env: Mapping[str, str]) -> Reply:
    """The reply, within one time budget for the whole call (``POLICY_ENGINE_HOOK_TIMEOUT``): the
    daemon gets half of it (it answers one call at a time, and may be busy with a slow one), judging
    in-process the rest, so that the answer always comes before the agent's own timeout."""
    import time

    started, budget = time.monotonic(), _timeout(env)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = None  # judged in-process, which refuses it and says why
    if text is not None and env.get("POLICY_ENGINE_DAEMON", "1") not in ("0", "false", "no", "off"):
        reply = ask_daemon(agent, text, env, budget / 2)
        if reply is not None:
            return reply
        start_daemon(env)
    from policy_engine.hook import run

    left = max(budget - (time.monotonic() - started), 0.0001)
    judged = run(agent, raw if text is None else text, {**env, "POLICY_ENGINE_HOOK_TIMEOUT": repr(left)})
    return Reply(judged.stdout, judged.stderr, judged.status)


def _emergency(agent: str, error: BaseException) -> Reply:
    reason = f"[policy-engine] Blocked: the hook failed ({type(error).__name__}: {error}); please report it."
    try:
        from policy_engine.agents import agent_module

        refused = agent_module(agent).refuse(reason)
        return Reply(refused.stdout, refused.stderr, refused.status)
    except BaseException:
        return Reply("", reason + "\n", 2)


def _write(stream: Any, text: str) -> None:
    """Write ``text`` whatever it holds (a surrogate from a payload must not crash the answer)."""
    if text:
        stream.buffer.write(text.encode("utf-8", "replace"))
        stream.flush()


if __name__ == "__main__":  # `python …/policy_engine/client.py hook --agent NAME`: see install.py
    sys.exit(main())
