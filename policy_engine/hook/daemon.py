"""``policy serve``: a daemon that answers hook calls over a unix socket, with everything loaded.

The socket (``daemon.sock`` in the state directory, which is the user's alone: 0o700, the socket
0o600) takes one request per connection — the agent, its payload and the caller's environment,
framed by ``hook/client.py`` — and answers the status, stdout and stderr that ``policy hook`` would
give, signed with the secret in ``daemon.key`` (0o600, made at the first start) so that the
client knows the answer is ours. Engines are kept per working directory and environment, and
rebuilt when a policy file or the trust store changes (their size and modification time are
checked on every call), so an edit takes effect on the next call, and at least every minute. A
request from another version of the package is refused (the client then judges in-process and
starts a daemon of its own version), and the daemon leaves; it also leaves after ``idle`` seconds
without a hook call.

Its first answer with exit status 0 (read by the agent from stdout) carries one line on stderr: that a
background daemon was started, when it leaves, how to stop it (``policy daemon stop``) and how to
keep hooks from starting one (``POLICY_ENGINE_DAEMON=0``). With a status of 0 the agents take the
answer from stdout alone and leave stderr to the person (a debug log, a transcript; pi's extension
drops it), so the line changes no decision; with the blocking 2, stderr is the reason the model
reads, so the line waits for the next answer that is not one. Said by the daemon rather than by the
call that started it: once, however many calls started one at the same moment, and only when it
does run. ``policy daemon status`` asks it (``STATUS``) how it is; that request does not put
off its leaving.

The daemon does not serve from a state directory that is not the user's alone (another owner, or
open to the group or others): it says so and leaves, changing nothing (the client, which checks
the same, judges in-process). A request it cannot read gets an empty reply; whatever it receives,
it answers and stays, so that a call it has judged (and logged, and counted for the circuit
breakers) is never judged again by the client.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import time
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..session.statedir import key_path, not_ours_alone, socket_path, state_directory
from ..version import __version__
from .wire import KEY_BYTES, decode_request, encode_reply, hook_timeout, read_key

if TYPE_CHECKING:
    from ..engine import Engine
    from ..model import ToolCall

STOP = b"stop"  # the request that makes the daemon leave (`policy daemon stop`, `policy serve --stop`)
STATUS = b"status"  # the request for how it is (`policy daemon status`), answered as a JSON object
IDLE = 1800.0  # seconds without a request before the daemon leaves
ENGINES = 16  # engines kept (one per working directory and environment in use)


class Daemon:
    """The engines and the socket of one state directory."""

    def __init__(self, env: Mapping[str, str], idle: float = IDLE) -> None:
        self.directory = state_directory(env)
        self.path = socket_path(env)
        self.key_path = key_path(env)
        self.key = b""  # read (or made) by serve()
        self.env = env
        self.idle = idle
        self._engines: OrderedDict[Any, tuple[Any, Engine]] = OrderedDict()
        self._stopping = False
        self.started = time.time()
        self._last = time.monotonic()  # the last hook call (or the start): idle is counted from it
        self.calls = 0
        self._announced = False  # the first-start line went out

    def engine(self, call: ToolCall, env: Mapping[str, str]) -> Engine:
        """An engine for ``call``'s working directory and ``env``, rebuilt when a file it read changed."""
        from ..config.discover import discover
        from ..config.trust import store_path
        from .call import recording_engine

        key = (call.cwd, tuple(sorted(env.items())))
        discovery = discover(os.path.abspath(call.cwd), env, [])
        stamp = tuple(_stamp(path) for path in [s.path for s in discovery.sources] + [store_path(env)])
        found = self._engines.get(key)
        if found is not None and found[0] == stamp:
            self._engines.move_to_end(key)
            return found[1]
        engine = recording_engine(None, call.cwd, env)
        self._engines[key] = (stamp, engine)
        while len(self._engines) > ENGINES:
            self._engines.popitem(last=False)
        return engine

    def answer(self, raw: bytes) -> bytes:
        """The reply to one request (never raises: a request it cannot take gets an empty reply,
        and the client judges in-process)."""
        from .call import run

        if raw == STOP:
            self._stopping = True
            return b"stopped"
        if raw == STATUS:
            return self._status()
        try:
            version, agent, payload, env = decode_request(raw)
        except ValueError:
            return b""
        self._last = time.monotonic()
        if version != __version__:  # the package was upgraded (or downgraded) under us:
            self._stopping = True  # leave, so that the new version's client can start its own
            return b""
        seconds, problem = hook_timeout(env)
        if problem is not None:  # a bad value (the client names it): the default, as in-process
            env = {**env, "POLICY_ENGINE_HOOK_TIMEOUT": repr(seconds)}
        reply = run(agent, payload, env, engine_for=self.engine)
        self.calls += 1
        stderr = reply.stderr
        if not self._announced and reply.status == 0:
            self._announced = True
            stderr += announcement(os.getpid(), self.idle) + "\n"
        return encode_reply(raw, self.key, __version__, reply.status, reply.stdout, stderr)

    def _status(self) -> bytes:
        """How the daemon is, for ``policy daemon status``: nothing a hook call sends is in it."""
        quiet = time.monotonic() - self._last
        status = {
            "pid": os.getpid(),
            "version": __version__,
            "started": self.started,
            "idle": self.idle,
            "quiet": quiet,
            "calls": self.calls,
            "engines": len(self._engines),
        }
        return json.dumps(status).encode()

    def serve(self) -> bool:
        """Listen until idle for ``self.idle`` seconds; one request at a time. False, having said
        why on stderr, when the state directory or the key cannot be trusted."""
        os.makedirs(self.directory, mode=0o700, exist_ok=True)  # an existing one is left as it is
        problem = not_ours_alone("the state directory", self.directory, os.stat(self.directory))
        key = self._key() if problem is None else problem
        if isinstance(key, str):
            print(
                f"policy serve: {key}: not serving (what the daemon uses must be the user's alone: "
                "owned by the user, mode 0700 for the directory, 0600 for the key)",
                file=sys.stderr,
            )
            return False
        self.key = key
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
            if not self._bind(server):
                return True
            try:
                server.listen(64)
                self._last = time.monotonic()
                while True:
                    # Counted from the last hook call: `policy daemon status` does not keep it up.
                    left = self.idle - (time.monotonic() - self._last)
                    if left <= 0:
                        return True
                    server.settimeout(left)
                    try:
                        connection, _ = server.accept()
                    except TimeoutError:
                        continue
                    with connection:
                        self._handle(connection)
                    if self._stopping:
                        return True
            finally:
                _remove(self.path)

    def _key(self) -> bytes | str:
        """The secret the replies are signed with, made (0o600, random) when there is none yet; or
        why the one there cannot be used."""
        if not os.path.lexists(self.key_path):
            # Written aside, then linked into place: a daemon starting at the same moment reads
            # either none (and makes its own, which loses the race) or a whole one.
            aside = f"{self.key_path}.{os.getpid()}"
            _remove(aside)
            try:
                descriptor = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
                try:
                    os.write(descriptor, os.urandom(KEY_BYTES))
                finally:
                    os.close(descriptor)
                with contextlib.suppress(FileExistsError):
                    os.link(aside, self.key_path)
            except OSError as error:
                return f"the daemon's key {self.key_path} cannot be made ({error.strerror or error})"
            finally:
                _remove(aside)
        return read_key(self.env)

    def _bind(self, server: socket.socket) -> bool:
        """Bind the socket, replacing a stale one; False when a live daemon already has it."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            try:
                probe.connect(self.path)
                return False  # another daemon answers there
            except OSError:
                _remove(self.path)
        previous = os.umask(0o177)  # the socket is created 0o600
        try:
            server.bind(self.path)
        finally:
            os.umask(previous)
        return True

    def _handle(self, connection: socket.socket) -> None:
        connection.settimeout(10)
        chunks = []
        try:
            while chunk := connection.recv(65536):
                chunks.append(chunk)
            connection.sendall(self.answer(b"".join(chunks)))
        except OSError:
            pass  # the client went away; it judges in-process
        except Exception as error:  # a bug of ours: said, and the daemon stays for the next call
            print(f"policy serve: a request failed ({type(error).__name__}: {error})", file=sys.stderr)


def _stamp(path: str) -> tuple[str, int, int]:
    try:
        status = os.stat(path)
    except OSError:
        return (path, -1, -1)
    return (path, status.st_mtime_ns, status.st_size)


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def announcement(pid: int, idle: float) -> str:
    """The line a new daemon's first answer carries on stderr (see the module's docstring)."""
    return (
        f"policy-engine: started a background daemon (policy serve, pid {pid}) that answers hook calls "
        f"with the engine loaded; it exits after {duration(idle)} without a call. `policy daemon stop` "
        "stops it; POLICY_ENGINE_DAEMON=0 keeps hook calls from starting one."
    )


def duration(seconds: float) -> str:
    """``30 minutes``, ``1 h 5 min``, ``45 s``: a span as a person reads it."""
    if seconds < 120:
        return f"{seconds:.2g} s" if seconds < 10 else f"{round(seconds)} s"
    minutes = round(seconds / 60)
    if minutes < 120:
        return f"{minutes} minutes"
    return f"{minutes // 60} h {minutes % 60} min" if minutes % 60 else f"{minutes // 60} h"


def _ask(env: Mapping[str, str], request: bytes) -> bytes | None:
    """What the daemon of ``env``'s state directory replies to ``request``; None when none answers."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(5)
            connection.connect(socket_path(env))
            connection.sendall(request)
            connection.shutdown(socket.SHUT_WR)
            chunks = []
            while chunk := connection.recv(65536):
                chunks.append(chunk)
            return b"".join(chunks)
    except OSError:
        return None


def stop(env: Mapping[str, str]) -> bool:
    """Ask the daemon of ``env``'s state directory to leave; True if one was running."""
    return bool(_ask(env, STOP))


def status(env: Mapping[str, str]) -> dict[str, Any] | None:
    """How the daemon of ``env``'s state directory is (``Daemon._status``); None when none answers,
    an empty dict when one answers without saying (a release before ``STATUS``, which leaves at
    the next hook call of this one)."""
    reply = _ask(env, STATUS)
    if reply is None:
        return None
    try:
        found = json.loads(reply)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def main(env: Mapping[str, str], idle: float) -> int:
    served = Daemon(env, idle).serve()
    sys.stdout.flush()
    return 0 if served else 1
