"""Where the engine keeps what outlives a process: the state store, the decision log, the daemon's
socket and key. Standard library alone, and nothing of the package: the hook client reads it first."""

import os

TYPE_CHECKING = False  # not typing's: the client must not pay for importing it
if TYPE_CHECKING:
    from collections.abc import Mapping

LOG_NAME = "decisions.jsonl"
SOCKET_NAME = "daemon.sock"
KEY_NAME = "daemon.key"  # the daemon's secret: it proves to the client that it is ours


def state_directory(env: "Mapping[str, str]") -> str:
    """``POLICY_ENGINE_STATE_DIR``, else ``$XDG_STATE_HOME/policy-engine`` (an absolute
    ``XDG_STATE_HOME`` only), else ``~/.local/state/policy-engine``."""
    if env.get("POLICY_ENGINE_STATE_DIR"):
        return env["POLICY_ENGINE_STATE_DIR"]
    base = env.get("XDG_STATE_HOME", "")
    home = env.get("HOME") or os.path.expanduser("~")
    return os.path.join(base if base.startswith("/") else os.path.join(home, ".local/state"), "policy-engine")


def log_path(env: "Mapping[str, str]") -> str:
    """The decision log."""
    return os.path.join(state_directory(env), LOG_NAME)


def socket_path(env: "Mapping[str, str]") -> str:
    """The daemon's socket."""
    return os.path.join(state_directory(env), SOCKET_NAME)


def key_path(env: "Mapping[str, str]") -> str:
    """The daemon's secret (0o600, self-protected for reading and writing)."""
    return os.path.join(state_directory(env), KEY_NAME)


def not_ours_alone(what: str, path: str, status: os.stat_result) -> str | None:
    """Why ``path`` (``what`` it is, as said to the user) is not the user's alone, or None when it
    is: owned by another user, or open to the group or others. What the daemon serves from and
    what the client believes must be nobody else's to replace or to read."""
    mode = status.st_mode & 0o7777
    if status.st_uid != os.getuid():
        return f"{what} {path} is not ours (owner uid {status.st_uid}, mode {mode:#o})"
    if mode & 0o077:
        return f"{what} {path} is open to other users (mode {mode:#o})"
    return None
