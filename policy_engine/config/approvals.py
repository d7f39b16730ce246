"""The approvals store: what ``policy approve`` records, apart from the policy files.

An approval is a person's consent to one command or path (DESIGN.md: approvals are narrow). Kept in
a file of their own, approving `npm test` changes nothing else: every policy file still means what
it says, and the embedded default still applies where it did. The store lies beside the trust store
(``$XDG_DATA_HOME/policy-engine/approvals.json``), in the directory self-protection keeps from the
agent. It is JSON with one approval per line, so that a reason and ``policy approvals`` can name the
line an approval is on. Standard library only: discovery looks for it on every hook call.
"""

from __future__ import annotations

import json
import time

from ..fileio import atomic_write
from .discover import approvals_path

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

VERSION = 1


def store_path(env: Mapping[str, str]) -> str:
    return approvals_path(env)


def render(entries: Sequence[Mapping[str, Any]]) -> str:
    """The store's text: one approval per line (line N + 3 holds approval N, counting from 0)."""
    lines = [json.dumps(dict(entry), ensure_ascii=False) for entry in entries]
    body = ",\n".join(f"    {line}" for line in lines)
    return f'{{\n  "version": {VERSION},\n  "approvals": [\n{body}{chr(10) if lines else ""}  ]\n}}\n'


def read_entries(env: Mapping[str, str]) -> list[dict[str, Any]]:
    """The stored approvals, as written; empty when there is no store. A store that cannot be read
    is an error for the caller to report (loading it, the engine reports where it is malformed)."""
    try:
        with open(store_path(env), encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        return []
    entries = data.get("approvals") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ValueError(f"{store_path(env)} is not an approvals store")
    return entries


def write_entries(env: Mapping[str, str], entries: Sequence[Mapping[str, Any]]) -> None:
    atomic_write(store_path(env), render(entries))


def stamped(entry: Mapping[str, Any]) -> dict[str, Any]:
    """``entry`` with the time it was given."""
    return {**entry, "approvedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
