"""GTFOBins: known ways ordinary programs start a shell, run commands, write files or load libraries.

Under a policy that allows only ``$safe-bash`` (everything else asks), none of them may be allowed:
the read-only preset must never cover a form that can execute or write. The first line of a
snippet is the command; the lines after it are keystrokes typed into it (``less /etc/hosts`` then
``!/bin/sh``), which only an agent that types into the commands it runs unseen can send (Codex's
write_stdin): such snippets are judged as Codex's calls.
"""

from __future__ import annotations

import collections
import json
import os

import pytest
from helpers import CORPUS, Sandbox, bash

from policy_engine import Action, ToolCall

GTFOBINS = CORPUS / "gtfobins.jsonl"
DANGEROUS = ("shell", "command", "file-write", "reverse-shell", "library-load")


@pytest.mark.skipif(not GTFOBINS.exists(), reason=f"no corpus at {GTFOBINS}")
def test_no_dangerous_gtfobins_snippet_is_allowed_by_safe_bash(sandbox: Sandbox) -> None:
    config = sandbox.write(
        "safe.jsonc",
        '{ "policies": { "p": { "defaultAction": "ask", "rules": [ "$safe-bash" ] } }, "defaultPolicy": "p" }',
    )
    engine = sandbox.engine(config, cwd=sandbox.root)
    counts: collections.Counter[str] = collections.Counter()
    allowed = []
    for line in GTFOBINS.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["function"] not in DANGEROUS or row.get("role", "").startswith("attacker-side"):
            continue
        code, *keystrokes = row["code"].split("\n")
        call = bash(code, sandbox.root)
        if keystrokes:
            call = ToolCall(call.tool, call.input, call.cwd, agent="codex")
        action = engine.evaluate(call).action
        counts[str(action)] += 1
        if action is Action.ALLOW:
            allowed.append(f"{row['binary']} ({row['function']}): {code}")
    print(f"\nGTFOBins snippets of {', '.join(DANGEROUS)}: {dict(counts)}")
    assert sum(counts.values()) > 400
    assert allowed == []
    assert os.environ.get("POLICY_ENGINE_CACHE") != "0"
