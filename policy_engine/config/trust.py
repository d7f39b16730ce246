"""The trust store: project policy files the user has reviewed, by real path and content hash.

An untrusted project file can only make verdicts stricter. ``policy trust`` records the file's
real path and sha256 here; any edit changes the hash, and the file is untrusted again until it is
trusted anew. A store that cannot be read trusts nothing.
"""

from __future__ import annotations

import json
import os
import time

from ..fileio import atomic_write
from .discover import xdg_directory

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def store_path(env: Mapping[str, str]) -> str:
    return os.path.join(xdg_directory(env, "XDG_DATA_HOME", ".local/share"), "policy-engine", "trust.json")


def read_store(env: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """Trusted files: real path -> {"sha256": ..., "trusted_at": ...}. Empty if absent or unreadable."""
    try:
        with open(store_path(env), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    trusted = data.get("trusted") if isinstance(data, dict) else None
    if not isinstance(trusted, dict):
        return {}
    return {path: entry for path, entry in trusted.items() if isinstance(entry, dict)}


def recorded_digest(store: Mapping[str, Mapping[str, Any]], path: str) -> str | None:
    """The sha256 recorded for the file at ``path`` (by its real path), if any."""
    entry = store.get(os.path.realpath(path))
    digest = entry.get("sha256") if entry else None
    return digest if isinstance(digest, str) else None


def digest(text: str) -> str:
    import hashlib  # only when compiling or trusting: keeps hashlib off the hook's hot path

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _write_store(env: Mapping[str, str], trusted: dict[str, dict[str, Any]]) -> None:
    payload = json.dumps({"version": 1, "trusted": trusted}, indent=2, sort_keys=True) + "\n"
    atomic_write(store_path(env), payload)


def trust(env: Mapping[str, str], path: str, text: str) -> str:
    """Record the file at ``path`` with content ``text`` as trusted; returns its real path."""
    real = os.path.realpath(path)
    trusted = read_store(env)
    trusted[real] = {"sha256": digest(text), "trusted_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    _write_store(env, trusted)
    return real


def untrust(env: Mapping[str, str], path: str) -> bool:
    """Forget the file at ``path``; False when it was not trusted."""
    real = os.path.realpath(path)
    trusted = read_store(env)
    if trusted.pop(real, None) is None:
        return False
    _write_store(env, trusted)
    return True
