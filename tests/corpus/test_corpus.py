"""Real command lines (../shared/corpus): every one is judged without a crash, under every example."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import CORPUS, EXAMPLES, Sandbox, bash

from policy_engine import Action

CORPUS_DIR = Path(os.environ.get("POLICY_ENGINE_CORPUS", CORPUS))

pytestmark = pytest.mark.skipif(not CORPUS_DIR.is_dir(), reason=f"no corpus at {CORPUS_DIR}")


def command_lines() -> list[str]:
    lines: list[str] = []
    for name in ("tldr.txt", "nl2bash.txt"):
        lines += [
            line for line in (CORPUS_DIR / name).read_text(encoding="utf-8").splitlines() if line.strip()
        ]
    for row in (CORPUS_DIR / "gtfobins.jsonl").read_text(encoding="utf-8").splitlines():
        lines.append(json.loads(row)["code"])
    return lines


@pytest.mark.parametrize("example", ["sample", "readonly", "git-only", None])
def test_every_corpus_line_gets_a_decision(sandbox: Sandbox, example: str | None) -> None:
    config = EXAMPLES / f"{example}.jsonc" if example else None
    engine = sandbox.engine(config, cwd="/home/user/work")
    lines = command_lines()
    assert len(lines) > 30000
    actions = {engine.evaluate(bash(line, "/home/user/work")).action for line in lines}
    assert actions <= set(Action)
    assert len(actions) > 1  # the policy discriminates: not everything gets one answer
