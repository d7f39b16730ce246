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


def write_entries(env: Mapping[str, str], entries: Sequence[Mapping[str, Any]]) -> None:
    atomic_write(store_path(env), render(entries))


def stamped(entry: Mapping[str, Any]) -> dict[str, Any]:
    """``entry`` with the time it was given."""
    return {**entry, "approvedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
