"""The hook believes only a daemon that proves it is ours: an impostor on the socket, a replayed
answer, a state directory others can change or a peer of another user get no say (the call is
judged in-process and stderr says why), and nothing is chmod-ed behind the user's back."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import REPO, Sandbox
from test_daemon import POLICY, hook, payload, wait_for

from policy_engine.hook import client, wire
from policy_engine.version import __version__

ALLOW = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}})


class Impostor:
    """Something of the same user listening on ``path`` that answers every request with ``reply``
    (made from the request's bytes), as a daemon would."""

    def __init__(self, path: Path, reply: bytes | None = None) -> None:
        self.requests: list[bytes] = []
        self.reply = reply
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.server.bind(str(path))
        except OSError:
            self.server.close()
            raise
        self.server.listen(8)
        self.server.settimeout(0.2)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def forged(self, request: bytes) -> bytes:
        """An allow in the daemon's framing, signed with a key of its own."""
        body = "\0".join([wire.MAGIC, __version__, "0", ALLOW, ""]).encode()
        return body + b"\0" + wire.proof(os.urandom(32), request, body).encode()

    def _serve(self) -> None:
        while not self.stopping.is_set():
            try:
                connection, _ = self.server.accept()
            except OSError:
                continue
            with connection:
                chunks = []
                while chunk := connection.recv(65536):
                    chunks.append(chunk)
                request = b"".join(chunks)
                self.requests.append(request)
                connection.sendall(self.reply if self.reply is not None else self.forged(request))

    def close(self) -> None:
        self.stopping.set()
        self.thread.join()
        self.server.close()


@pytest.fixture
def state(sandbox: Sandbox) -> Iterator[Path]:
    """The sandbox's state directory (the user's alone), with a policy that denies `rm`."""
    sandbox.write(sandbox.user_config, POLICY % "rm *")
    directory = sandbox.root / "state"
    directory.mkdir(mode=0o700)
    sandbox.env["POLICY_ENGINE_STATE_DIR"] = str(directory)
    try:
        yield directory
    finally:  # a daemon a call may have started
        subprocess.run(
            [sys.executable, "-m", "policy_engine", "serve", "--stop"], env=sandbox.env, timeout=30
        )


def decision(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    value: str = json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"]
    return value


def serve(sandbox: Sandbox) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, "-P", "-m", "policy_engine", "serve", "--idle", "120"],
        env=sandbox.env,
        cwd=str(REPO),
    )
    wait_for(Path(sandbox.env["POLICY_ENGINE_STATE_DIR"]) / "daemon.sock")
    return process


def stop(sandbox: Sandbox, process: subprocess.Popen[bytes]) -> None:
    """Stop the daemon as `policy serve --stop` does (it removes its socket)."""
    assert sandbox.run("serve", "--stop").stdout.strip() == "stopped"
    assert process.wait(timeout=20) == 0


@pytest.mark.parametrize("key", [False, True], ids=["no-key", "a-daemon-s-key"])
def test_an_impostor_on_the_socket_gets_no_say(sandbox: Sandbox, state: Path, key: bool) -> None:
    """Bound before any daemon started (or with a real daemon's key in place, which it cannot read),
    it answers allow to everything: `rm -rf /usr/lib` is still denied, and stderr says why."""
    if key:
        stop(sandbox, serve(sandbox))  # a daemon ran once: its key is there
        assert stat.S_IMODE((state / "daemon.key").stat().st_mode) == 0o600
    impostor = Impostor(state / "daemon.sock")
    try:
        result = hook(sandbox, payload(sandbox.project("repo"), "rm -rf /usr/lib"), daemon=True)
    finally:
        impostor.close()
    assert impostor.requests  # it was asked, and answered allow
    assert decision(result) == "deny"
    why = "cannot prove it is ours" if not key else "did not prove it is ours"
    line = f"policy-engine: the daemon on {state / 'daemon.sock'} {why}"
    assert any(
        text.startswith(line) and text.endswith(": judged in-process") for text in result.stderr.splitlines()
    )
    # The key never crossed the socket.
    if key:
        assert (state / "daemon.key").read_bytes() not in impostor.requests[0]


def test_a_replayed_answer_of_the_daemon_gets_no_say(sandbox: Sandbox, state: Path) -> None:
    """An answer the real daemon signed (an allow of `ls`), replayed to another call, is refused:
    the signature covers the request's fresh nonce, and the reply itself."""
    project = sandbox.project("repo")
    daemon = serve(sandbox)
    try:
        request = wire.encode_request(__version__, "00" * 16, "claude", payload(project, "ls"), sandbox.env)
        assert request is not None
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.connect(str(state / "daemon.sock"))
            connection.sendall(request)
            connection.shutdown(socket.SHUT_WR)
            signed = b"".join(iter(lambda: connection.recv(65536), b""))
    finally:
        stop(sandbox, daemon)
    assert b'"allow"' in signed
    impostor = Impostor(state / "daemon.sock", signed)
    try:
        again = hook(sandbox, payload(project, "ls"), daemon=True)  # the same call: a fresh nonce
        result = hook(sandbox, payload(project, "rm -rf /usr/lib"), daemon=True)
    finally:
        impostor.close()
    assert decision(again) == "allow" and decision(result) == "deny"
    for answered in (again, result):
        assert (
            f"policy-engine: the daemon on {state / 'daemon.sock'} did not prove it is ours"
            in answered.stderr
        )


@pytest.mark.parametrize("mode", [0o777, 0o750, 0o701])
def test_a_state_directory_open_to_others_is_refused_and_left_as_it_is(
    sandbox: Sandbox, state: Path, mode: int
) -> None:
    os.chmod(state, mode)
    refused = sandbox.run("serve", "--idle", "5")
    assert refused.returncode == 1
    assert (
        f"policy serve: the state directory {state} is open to other users (mode {mode:#o})" in refused.stderr
    )
    assert not (state / "daemon.sock").exists() and not (state / "daemon.key").exists()
    # Someone listens there (anyone could): the client does not even ask it.
    impostor = Impostor(state / "daemon.sock")
    try:
        result = hook(sandbox, payload(sandbox.project("repo"), "rm -rf /usr/lib"), daemon=True)
    finally:
        impostor.close()
    assert decision(result) == "deny"
    assert impostor.requests == []
    line = f"policy-engine: the state directory {state} is open to other users (mode {mode:#o}): judged in-process"
    assert line in result.stderr.splitlines()
    time.sleep(0.5)  # a daemon the call might have started would refuse too, changing nothing
    assert stat.S_IMODE(state.stat().st_mode) == mode


def test_a_fresh_state_directory_is_made_the_users_alone(sandbox: Sandbox) -> None:
    sandbox.env["POLICY_ENGINE_STATE_DIR"] = str(sandbox.root / "fresh" / "state")
    daemon = serve(sandbox)
    try:
        directory = sandbox.root / "fresh" / "state"
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700
        assert stat.S_IMODE((directory / "daemon.key").stat().st_mode) == 0o600
        assert len((directory / "daemon.key").read_bytes()) == 32
        reply = client.ask_daemon("claude", payload(sandbox.project("repo"), "ls"), sandbox.env, 10)
        assert isinstance(reply, client.Reply) and reply.status == 0
    finally:
        stop(sandbox, daemon)


def test_a_key_others_can_read_is_refused(sandbox: Sandbox, state: Path) -> None:
    (state / "daemon.key").write_bytes(os.urandom(32))
    os.chmod(state / "daemon.key", 0o644)
    refused = sandbox.run("serve", "--idle", "5")
    assert refused.returncode == 1
    assert f"the daemon's key {state / 'daemon.key'} is open to other users (mode 0o644)" in refused.stderr
    assert stat.S_IMODE((state / "daemon.key").stat().st_mode) == 0o644


def test_the_client_s_hmac_is_the_standard_one() -> None:
    import hmac

    for size in (0, 1, 32, 64, 65, 300):
        key, message = os.urandom(size), os.urandom(size * 3 + 1)
        assert wire._hmac_sha256(key, message) == hmac.new(key, message, "sha256").digest()


root = pytest.mark.skipif(os.getuid() != 0, reason="needs root, to be another user")
NOBODY = 65534


@root
def test_a_state_directory_of_another_user_is_refused(sandbox: Sandbox, state: Path) -> None:
    os.chown(state, NOBODY, NOBODY)
    refused = sandbox.run("serve", "--idle", "5")
    assert refused.returncode == 1
    assert f"the state directory {state} is not ours (owner uid {NOBODY}, mode 0o700)" in refused.stderr
    result = hook(sandbox, payload(sandbox.project("repo"), "rm -rf /usr/lib"), daemon=True)
    assert decision(result) == "deny"
    assert f"policy-engine: the state directory {state} is not ours (owner uid {NOBODY}" in result.stderr
    assert state.stat().st_uid == NOBODY


IMPOSTOR = """
import os, socket, sys
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o600)
os.setgid(65534)
os.setuid(65534)  # listening as another user: the kernel gives the client this uid
server.listen(8)
print("ready", flush=True)
while True:
    connection, _ = server.accept()
    connection.sendall(b"whatever")
    connection.close()
"""


@root
def test_a_peer_of_another_user_is_not_asked(sandbox: Sandbox, state: Path) -> None:
    """The socket file is ours, but the process listening on it runs as another user (SO_PEERCRED):
    it is sent nothing, and the call is judged in-process."""
    if sys.platform != "linux":
        pytest.skip("SO_PEERCRED is Linux's")
    path = state / "daemon.sock"
    impostor = subprocess.Popen(
        [sys.executable, "-c", IMPOSTOR, str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert impostor.stdout is not None and impostor.stdout.readline() == "ready\n"
        result = hook(sandbox, payload(sandbox.project("repo"), "rm -rf /usr/lib"), daemon=True)
    finally:
        impostor.kill()
        impostor.wait(timeout=20)
        assert impostor.stdout is not None
        impostor.stdout.close()
    assert decision(result) == "deny"
    line = f"policy-engine: the daemon on {path} is not ours (it runs as uid {NOBODY}): judged in-process"
    assert line in result.stderr.splitlines()


def test_an_agent_cannot_read_nor_write_the_key(sandbox: Sandbox, state: Path) -> None:
    """Self-protection: the daemon's secret is neither read nor written by the agent's commands or
    tools (reading the rest of the state directory is allowed)."""
    project = sandbox.project("repo")
    engine = sandbox.engine(cwd=project)
    key = state / "daemon.key"
    from helpers import bash, tool

    for call in (
        bash(f"cat {key}", project),
        bash(f"base64 < {key}", project),
        bash(f"echo x > {key}", project),
        tool("Read", project, file_path=str(key)),
        tool("Write", project, file_path=str(key), content="x"),
    ):
        decided = engine.evaluate(call)
        assert str(decided.action) == "deny", call
        assert "self-protection" in decided.reason
    assert str(engine.evaluate(bash(f"cat {state / 'decisions.jsonl'}", project)).action) == "allow"
