"""Every shared-corpus line still gets the action recorded in tests/data/decisions.txt.gz under the
embedded default and examples/sample.jsonc: the guard that lets the engine be made faster (or
restructured) without changing what it decides. See decisions.py for the record and how to renew it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from decisions import CORPUS, UNSTABLE, corpus_lines, judge, key, read_record

SHOWN = 20  # changed lines printed in full
# Lines that search a tree of the machine (/tmp, /) and answered otherwise than recorded, tolerated
# as the machine's doing (what the search found, or that it ran out of budget) up to this many: more
# is a change of the engine.
MACHINE_DEPENDENT = 25


@pytest.mark.skipif(not CORPUS.exists(), reason=f"no corpus at {CORPUS}")
def test_every_corpus_line_gets_its_recorded_action(tmp_path: Path) -> None:
    recorded = read_record()
    lines = corpus_lines()
    text = {key(line): line for line in lines}
    missing = [line for line in lines if key(line) not in recorded]
    assert not missing, f"{len(missing)} corpus lines have no recorded decision (re-record): {missing[:3]}"
    changed, walking = [], []
    for name, default, sample, walks in judge(lines, tmp_path):
        was = recorded[name]
        now = (default, sample)
        if any(old not in (UNSTABLE, new) for old, new in zip(was, now, strict=True)):
            shown = f"  default {was[0]}->{now[0]}  sample {was[1]}->{now[1]}  {text[name]!r}"
            (walking if walks else changed).append(shown)
    assert not changed, (
        f"{len(changed)} of {len(lines)} lines changed action (a allow, n nudge, l log, k ask, d deny):\n"
        + "\n".join(changed[:SHOWN])
    )
    assert len(walking) <= MACHINE_DEPENDENT, (
        f"{len(walking)} lines that search the machine's trees changed action, more than this machine "
        "can explain:\n" + "\n".join(walking[:SHOWN])
    )


def test_the_record_has_one_row_per_line_and_known_letters() -> None:
    recorded = read_record()
    assert len(recorded) > 39_000
    assert {letter for pair in recorded.values() for letter in pair} <= set("anlkd" + UNSTABLE)
