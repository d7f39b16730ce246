"""Where the engine keeps what outlives a process: the state store, the decision log, the daemon's
socket. Standard library alone, and nothing of the package: the hook client reads it first."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not typing's: the client must not pay for importing it
if TYPE_CHECKING:
    from collections.abc import Mapping

LOG_NAME = "decisions.jsonl"
SOCKET_NAME = "daemon.sock"


def state_directory(env: Mapping[str, str]) -> str:
    """``POLICY_ENGINE_STATE_DIR``, else ``$XDG_STATE_HOME/policy-engine`` (an absolute
    ``XDG_STATE_HOME`` only), else ``~/.local/state/policy-engine``."""
    if env.get("POLICY_ENGINE_STATE_DIR"):
        return env["POLICY_ENGINE_STATE_DIR"]
    base = env.get("XDG_STATE_HOME", "")
    home = env.get("HOME") or os.path.expanduser("~")
    return os.path.join(base if base.startswith("/") else os.path.join(home, ".local/state"), "policy-engine")


def log_path(env: Mapping[str, str]) -> str:
    """The decision log."""
    return os.path.join(state_directory(env), LOG_NAME)


def socket_path(env: Mapping[str, str]) -> str:
    """The daemon's socket."""
    return os.path.join(state_directory(env), SOCKET_NAME)
