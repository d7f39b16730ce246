"""The recorded decisions: every shared-corpus line's action under the embedded default and
examples/sample.jsonc, so that a change made for speed can be shown to change no decision.

tests/data/decisions.txt.gz holds one row per distinct line, ``KEY DEFAULT SAMPLE``: KEY is the
first 16 hex digits of the line's SHA-256 (the corpus itself stays in ../shared, never copied),
DEFAULT and SAMPLE one letter of the action (a allow, n nudge, l log, k ask, d deny). A row whose
action depends on the machine outside the fake home and project (a search of /tmp that may or may
not run out of its budget) has ``*`` for it: recording runs twice, the second time with /tmp
holding a thousand more entries, and a line answered differently is marked rather than compared.
Other machines hold other trees: the test also lets a line that searches a tree outside its fake
home and project (``judge``) answer differently, a bounded number of them, and names them.

Record (only when a change of decision is meant, and say so in the commit):
    python tests/corpus/decisions.py --record
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "corpus"
RECORD = REPO / "tests" / "data" / "decisions.txt.gz"
SAMPLE = REPO / "examples" / "sample.jsonc"
LETTERS = {"allow": "a", "nudge": "n", "log": "l", "ask": "k", "deny": "d"}
UNSTABLE = "*"


def corpus_lines(corpus: Path = CORPUS) -> list[str]:
    """Every distinct command line of tldr.txt, nl2bash.txt and the GTFOBins snippets, in order."""
    lines: dict[str, None] = {}
    for name in ("tldr.txt", "nl2bash.txt"):
        for line in (corpus / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                lines[line] = None
    for row in (corpus / "gtfobins.jsonl").read_text(encoding="utf-8").splitlines():
        lines[json.loads(row)["code"]] = None
    return list(lines)


def key(line: str) -> str:
    return hashlib.sha256(line.encode("utf-8")).hexdigest()[:16]


def judge(lines: list[str], scratch: Path) -> Iterator[tuple[str, str, str, bool]]:
    """(key, default letter, sample letter, whether it walks the machine) of each line, judged as a
    bash call in the agent-workload project under a fake home in scratch. A line walks the machine
    when it searches a tree outside scratch (`find /tmp …`, `grep -r x /`): what such a search
    finds, and whether it runs out of its budget, depends on the machine, and so may its action."""
    sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "corpus")]
    from test_agent_workload import build_repository, machine

    from policy_engine import Engine, ToolCall
    from policy_engine.paths import inside

    env = machine(scratch)
    repository = build_repository(scratch / "work" / "app", env)
    default = Engine(None, cwd=str(repository), env=env)
    sample = Engine(str(SAMPLE), cwd=str(repository), env=env)
    own = str(scratch.resolve())
    for line in lines:
        call = ToolCall("bash", {"command": line}, str(repository))
        decided = default.evaluate(call)
        walks = any(
            access.tree is not None and not inside(access.path, own)
            for verdict in decided.verdicts
            for access in verdict.atom.accesses
        )
        yield (key(line), LETTERS[str(decided.action)], LETTERS[str(sample.evaluate(call).action)], walks)


def read_record(path: Path = RECORD) -> dict[str, tuple[str, str]]:
    with gzip.open(path, "rt", encoding="ascii") as lines:
        return {row[0]: (row[1], row[2]) for row in (line.split() for line in lines)}


def record() -> None:
    lines = corpus_lines()
    with tempfile.TemporaryDirectory(prefix="policy-decisions-") as scratch:
        first = list(judge(lines, Path(scratch) / "one"))
    with tempfile.TemporaryDirectory(prefix="policy-decisions-crowd-") as crowd:
        for index in range(1000):  # /tmp crowded: a search of it answers as on a busy machine
            Path(crowd, f"entry-{index}").touch()
        with tempfile.TemporaryDirectory(prefix="policy-decisions-") as scratch:
            second = list(judge(lines, Path(scratch) / "two"))
    rows = []
    for (name, *one, _), (_, *two, _) in zip(first, second, strict=True):
        rows.append(" ".join([name, *(a if a == b else UNSTABLE for a, b in zip(one, two, strict=True))]))
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    # mtime=0: the same decisions write the same bytes, so a re-record that changes nothing shows no diff.
    with open(RECORD, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
        out.write(("\n".join(rows) + "\n").encode("ascii"))
    unstable = sum(UNSTABLE in row for row in rows)
    print(f"recorded {len(rows)} lines ({unstable} with a machine-dependent action) in {RECORD}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit(__doc__)
    record()
