"""The hook's side of the daemon: a hook call goes to ``policy serve`` when one is running, with
almost nothing imported; a call the daemon cannot take is judged in-process (``hook/call.py``).

A hook is a new process per tool call. Importing the engine, tree-sitter and the compiled policy
costs some 40 ms on every call; asking ``policy serve`` over its unix socket costs little more
than starting Python, provided this module imports nothing it can avoid: not the package's other
modules, not ``typing`` (~5 ms), not ``socket`` (its enums, ~3 ms: ``_socket`` does the same
work), not ``json`` (it brings ``re``), not ``hmac`` (it loads OpenSSL, ~2.5 ms); nor, in the
modules it reads (``hook.wire``, ``session.statedir``, the package's ``__init__``), ``__future__``
(their annotations are quoted instead), ``importlib`` or ``types``. Requests and replies are
therefore fields separated by NUL bytes, which neither environment values, agents' JSON payloads
nor our answers contain.

Whatever listens on the socket is not believed for being there: the client takes an answer only
from a daemon that proves it is ours. The state directory must be the user's alone (owned by the
user, closed to the group and others), the socket the user's, the process at the other end the
user's (its uid from the kernel: ``SO_PEERCRED``, ``LOCAL_PEERCRED`` on macOS), and the reply must
carry an HMAC-SHA256, under the secret in ``daemon.key`` (0o600, which the agent's commands can
neither read nor write: self-protection), of the request — with a fresh nonce — and of the reply
itself: a replayed or spliced reply fails, and the secret never crosses the socket. An answer that
is not proven is not used: the call is judged in-process, and one line on stderr says why.
"""

import os
import sys

from policy_engine.hook.wire import Reply, decode_reply, encode_request, hook_timeout, read_key

TYPE_CHECKING = False  # not typing's (see above); type checkers treat the name as True
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def ask_daemon(agent: str, text: str, env: "Mapping[str, str]", timeout: float) -> Reply | str | None:
    """The daemon's reply; None when no daemon can answer (none running, a stale socket, another
    version, too slow); or, when what answers cannot prove it is our daemon, why (a phrase). The
    caller judges in-process unless it got a reply."""
    from policy_engine.session.statedir import not_ours_alone, socket_path, state_directory
    from policy_engine.version import __version__

    request = encode_request(__version__, os.urandom(16).hex(), agent, text, env)
    if request is None:
        return None
    directory, path = state_directory(env), socket_path(env)
    try:
        # Checked before anything in it is believed: in a directory others can write, anyone can
        # put a socket of their own, or replace the key.
        problem = not_ours_alone("the state directory", directory, os.stat(directory))
    except OSError:
        return None  # no state directory: no daemon yet
    if problem is not None:
        return problem
    try:
        owner = os.lstat(path).st_uid  # its mode matters not in a directory closed to others
    except OSError:
        return None  # no daemon yet
    if owner != os.getuid():
        return f"the daemon socket {path} is not ours (owner uid {owner})"
    import _socket  # here: a call judged in-process (POLICY_ENGINE_DAEMON=0) does not load it

    connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        connection.settimeout(timeout)
        connection.connect(path)
        peer = _peer_uid(connection)
        if peer is not None and peer != os.getuid():  # sent nothing: the payload is not theirs to see
            return f"the daemon on {path} is not ours (it runs as uid {peer})"
        connection.sendall(request)
        connection.shutdown(_socket.SHUT_WR)
        chunks = []
        while chunk := connection.recv(65536):
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        connection.close()
    if not chunks:  # how a daemon refuses a request (another version's, one it cannot read)
        return None
    key = read_key(env)
    if isinstance(key, str):
        return f"the daemon on {path} cannot prove it is ours: {key}"
    reply = decode_reply(b"".join(chunks), __version__, request, key)
    if reply is None:
        return f"the daemon on {path} did not prove it is ours (its reply is not signed with our key)"
    return reply


def _peer_uid(connection: "Any") -> int | None:
    """The uid of the process that listens at the other end of ``connection``, as the kernel says,
    or None where it cannot be learnt (then the key alone proves the daemon)."""
    if sys.platform == "linux":
        import _socket

        # struct ucred { pid_t pid; uid_t uid; gid_t gid; }: three native 32-bit integers.
        credentials = connection.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
        return int.from_bytes(credentials[4:8], sys.byteorder)
    if sys.platform == "darwin":
        # getpeereid(3)'s source: LOCAL_PEERCRED (option 1 at level SOL_LOCAL, 0; _socket names
        # neither) gives struct xucred { u_int cr_version; uid_t cr_uid; short cr_ngroups; gid_t
        # cr_groups[16]; }, 76 bytes. Not tested here: should it fail, the key still decides.
        try:
            credentials = connection.getsockopt(0, 1, 76)
        except OSError:
            return None
        return int.from_bytes(credentials[4:8], sys.byteorder)
    return None


def start_daemon(env: "Mapping[str, str]") -> None:
    """Start ``policy serve`` in the background for later calls (this one is judged in-process).

    In ``/`` and with ``-P``: ``python -m`` would otherwise put the agent's working directory first
    on ``sys.path``, and a ``policy_engine`` directory there (a cloned repository's, or one the
    agent wrote) would be imported as the engine, and answer every later call."""
    import contextlib
    import subprocess

    # Doctor's secret (hook/samplepass.py) stays with doctor's samples: a daemon lives for hours.
    environment = {name: value for name, value in env.items() if name != "POLICY_ENGINE_DOCTOR_PASS"}
    with contextlib.suppress(OSError):  # no daemon: every call is judged in-process
        subprocess.Popen(
            [sys.executable, "-P", "-m", "policy_engine", "serve"],
            cwd="/",
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            env=environment,
        )


def hook(agent: str, env: "Mapping[str, str]") -> int:
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


def _answer(agent: str, raw: bytes, env: "Mapping[str, str]") -> Reply:
    """The reply, within one time budget for the whole call (``POLICY_ENGINE_HOOK_TIMEOUT``): the
    daemon gets half of it (it answers one call at a time, and may be busy with a slow one), judging
    in-process the rest, so that the answer always comes before the agent's own timeout."""
    import time

    started = time.monotonic()
    budget, problem = hook_timeout(env)
    notes = [] if problem is None else [problem]  # said on stderr, whoever judges the call
    judging = env if problem is None else {**env, "POLICY_ENGINE_HOOK_TIMEOUT": repr(budget)}
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = None  # judged in-process, which refuses it and says why
    if text is not None and env.get("POLICY_ENGINE_DAEMON", "1") not in ("0", "false", "no", "off"):
        reply = ask_daemon(agent, text, judging, budget / 2)
        if isinstance(reply, Reply):
            return _noted(reply, notes)
        if reply is None:
            start_daemon(env)
        else:  # an impostor, or a directory others can change: no daemon started there either
            notes.append(f"{reply}: judged in-process")
    load_site()
    from policy_engine.hook.call import run

    left = max(budget - (time.monotonic() - started), 0.0001)
    judged = run(agent, raw if text is None else text, {**env, "POLICY_ENGINE_HOOK_TIMEOUT": repr(left)})
    return _noted(Reply(judged.stdout, judged.stderr, judged.status), notes)


def load_site() -> None:
    """Load ``site`` when Python started without it (``-S``: the command installed hooks run, see
    ``client.py``), as it would have at start: site-packages, where the engine's dependencies are,
    their ``.pth`` files, ``sitecustomize``. Once; nothing when it was loaded at start."""
    if sys.flags.no_site and "site" not in sys.modules:
        import site

        site.main()


def _noted(reply: Reply, notes: list[str]) -> Reply:
    """``reply`` with a ``policy-engine:`` line on stderr for each note, after what it says."""
    lines = "".join(f"policy-engine: {note}\n" for note in notes)
    return Reply(reply.stdout, reply.stderr + lines, reply.status) if lines else reply


def _emergency(agent: str, error: BaseException) -> Reply:
    reason = f"[policy-engine] Blocked: the hook failed ({type(error).__name__}: {error}); please report it."
    try:
        from policy_engine.agents import agent_module

        refused = agent_module(agent).refuse(reason)
        return Reply(refused.stdout, refused.stderr, refused.status)
    except BaseException:
        return Reply("", reason + "\n", 2)


def _write(stream: "Any", text: str) -> None:
    """Write ``text`` whatever it holds (a surrogate from a payload must not crash the answer)."""
    if text:
        stream.buffer.write(text.encode("utf-8", "replace"))
        stream.flush()
