"""``policy serve``: a daemon that answers hook calls over a unix socket, with everything loaded.

The socket (``daemon.sock`` in the state directory, which is the user's alone: 0o700, the socket
0o600) takes one request per connection — the agent, its payload and the caller's environment,
framed by ``client.py`` — and answers the status, stdout and stderr that ``policy hook`` would
give. Engines are kept per working directory and environment, and rebuilt when a policy file or
the trust store changes (their size and modification time are checked on every call), so an edit
takes effect on the next call, and at least every minute. A request from another version of the
package is refused (the client then judges in-process and starts a daemon of its own version),
and the daemon leaves; it also leaves after ``idle`` seconds without a request.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import time
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .client import decode_request, encode_reply
from .statedir import socket_path, state_directory
from .version import __version__

if TYPE_CHECKING:
    from .engine import Engine
    from .model import ToolCall

STOP = b"stop"  # the request that makes the daemon leave (`policy serve --stop`)
IDLE = 1800.0  # seconds without a request before the daemon leaves
ENGINES = 16  # engines kept (one per working directory and environment in use)
# An engine remembers how directories are spelled (symlinks resolved) for its lifetime: rebuilt
# this often, a directory replaced by a symlink is seen within a minute (a rebuild costs ~2 ms).
ENGINE_LIFETIME = 60.0


class Daemon:
    """The engines and the socket of one state directory."""

    def __init__(self, env: Mapping[str, str], idle: float = IDLE) -> None:
        self.directory = state_directory(env)
        self.path = socket_path(env)
        self.idle = idle
        self._engines: OrderedDict[Any, tuple[Any, float, Engine]] = OrderedDict()
        self._stopping = False

    def engine(self, call: ToolCall, env: Mapping[str, str]) -> Engine:
        """An engine for ``call``'s working directory and ``env``, rebuilt when a file it read changed."""
        from .config.discover import discover
        from .config.trust import store_path
        from .hook import recording_engine

        key = (call.cwd, tuple(sorted(env.items())))
        discovery = discover(os.path.abspath(call.cwd), env, [])
        stamp = tuple(_stamp(path) for path in [s.path for s in discovery.sources] + [store_path(env)])
        found = self._engines.get(key)
        now = time.monotonic()
        if found is not None and found[0] == stamp and now - found[1] < ENGINE_LIFETIME:
            self._engines.move_to_end(key)
            return found[2]
        engine = recording_engine(None, call.cwd, env)
        self._engines[key] = (stamp, now, engine)
        while len(self._engines) > ENGINES:
            self._engines.popitem(last=False)
        return engine

    def answer(self, raw: bytes) -> bytes:
        """The reply to one request (never raises: a request it cannot take gets an empty reply,
        and the client judges in-process)."""
        from .hook import run

        if raw == STOP:
            self._stopping = True
            return b"stopped"
        try:
            version, agent, payload, env = decode_request(raw)
        except ValueError:
            return b""
        if version != __version__:  # the package was upgraded (or downgraded) under us:
            self._stopping = True  # leave, so that the new version's client can start its own
            return b""
        reply = run(agent, payload, env, engine_for=self.engine)
        return encode_reply(__version__, reply.status, reply.stdout, reply.stderr)

    def serve(self) -> None:
        """Listen until idle for ``self.idle`` seconds; one request at a time."""
        os.makedirs(self.directory, mode=0o700, exist_ok=True)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
            if not self._bind(server):
                return
            try:
                server.listen(64)
                server.settimeout(self.idle)
                while True:
                    try:
                        connection, _ = server.accept()
                    except TimeoutError:
                        return
                    with connection:
                        self._handle(connection)
                    if self._stopping:
                        return
            finally:
                _remove(self.path)

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


def _stamp(path: str) -> tuple[str, int, int]:
    try:
        status = os.stat(path)
    except OSError:
        return (path, -1, -1)
    return (path, status.st_mtime_ns, status.st_size)


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def stop(env: Mapping[str, str]) -> bool:
    """Ask the daemon of ``env``'s state directory to leave; True if one was running."""
    path = socket_path(env)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(5)
            connection.connect(path)
            connection.sendall(STOP)
            connection.shutdown(socket.SHUT_WR)
            return bool(connection.recv(65536))
    except OSError:
        return False


def main(env: Mapping[str, str], idle: float) -> int:
    Daemon(env, idle).serve()
    sys.stdout.flush()
    return 0
