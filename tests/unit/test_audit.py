"""The decision log (audit.py: JSON Lines appended by many processes at once, rotated under a lock,
read back skipping damaged lines) and its views (logbook.py: tail, stats, suggest)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from helpers import Sandbox, bash

from policy_engine import Action
from policy_engine.config import schema
from policy_engine.decisionlog import views as logbook
from policy_engine.decisionlog import writer as audit

# ------------------------------------------------------------------------------------------ audit.py


def numbered(path: Path) -> list[Path]:
    """The rotated files of ``path`` that exist, path.1 first."""
    found = [p for p in path.parent.glob(path.name + ".*") if p.name[len(path.name) + 1 :].isdigit()]
    return sorted(found, key=lambda p: int(p.suffix[1:]))


def test_append_and_read_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "decisions.jsonl"
    records = [
        {"event": "decision", "n": 1, "command": "echo héllo — ✓", "atoms": [{"a": None}]},
        {"event": "outcome", "n": 2, "ran": True},
        {"event": "decision", "n": 3, "path": "/tmp/bad-\udcff-name"},  # an undecodable file name
    ]
    for record in records:
        assert audit.append(str(path), record) is None
    assert list(audit.read(str(path))) == records
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) == 4  # one line per record, each ended
    assert lines[0].decode() == json.dumps(records[0], ensure_ascii=False, separators=(",", ":"))


def test_the_log_is_private(tmp_path: Path) -> None:
    path = tmp_path / "state" / "decisions.jsonl"
    assert audit.append(str(path), {"event": "decision"}) is None
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) & 0o077 == 0


def test_any_mapping_is_a_record(tmp_path: Path) -> None:
    from types import MappingProxyType

    path = tmp_path / "decisions.jsonl"
    assert audit.append(str(path), MappingProxyType({"event": "decision"})) is None
    assert list(audit.read(str(path))) == [{"event": "decision"}]


def test_reading_a_missing_log_gives_nothing(tmp_path: Path) -> None:
    assert list(audit.read(str(tmp_path / "none" / "decisions.jsonl"))) == []


def test_rotation_keeps_sizes_and_count(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    line = len(audit.encode({"n": 0, "pad": "x" * 80}))
    for n in range(100):
        assert audit.append(str(path), {"n": n, "pad": "x" * 80}, max_bytes=1000, keep=3) is None
    assert [p.name for p in numbered(path)] == [f"decisions.jsonl.{n}" for n in (1, 2, 3)]
    for rotated in numbered(path):
        # rotated as soon as a write found it full: at least max_bytes, never a line more
        assert 1000 <= rotated.stat().st_size < 1000 + line
    assert path.stat().st_size < 1000 + line
    kept = [record["n"] for record in audit.read(str(path))]
    assert kept == list(range(100 - len(kept), 100))  # the newest, oldest first, none missing
    assert len(kept) > 30
    live = [r["n"] for r in audit.read(str(path), rotated=False)]
    assert live and live == kept[-len(live) :]


def test_no_record_is_lost_across_rotations(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    for n in range(500):
        assert audit.append(str(path), {"n": n}, max_bytes=200, keep=1000) is None
    assert len(numbered(path)) > 20
    assert [record["n"] for record in audit.read(str(path))] == list(range(500))


def test_rotation_drops_files_beyond_keep(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    (tmp_path / "decisions.jsonl.7").write_text('{"stale": true}\n')  # from a larger keep
    (tmp_path / "decisions.jsonl.lock.1").write_text("not a rotated log\n")
    for n in range(40):
        audit.append(str(path), {"n": n}, max_bytes=50, keep=2)
    assert [p.name for p in numbered(path)] == ["decisions.jsonl.1", "decisions.jsonl.2"]
    assert (tmp_path / "decisions.jsonl.lock.1").exists()
    assert all("stale" not in record for record in audit.read(str(path)))


def test_keep_zero_keeps_only_the_live_file(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    for n in range(10):
        audit.append(str(path), {"n": n}, max_bytes=20, keep=0)
    assert numbered(path) == []
    assert [record["n"] for record in audit.read(str(path))] == [9]


def test_no_max_bytes_means_no_rotation(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    for n in range(10):
        audit.append(str(path), {"n": n}, max_bytes=0)
    assert numbered(path) == []
    assert len(list(audit.read(str(path)))) == 10


def test_read_takes_rotated_files_oldest_first(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    for name, n in (("decisions.jsonl.2", 1), ("decisions.jsonl.1", 2), ("decisions.jsonl", 3)):
        (tmp_path / name).write_text(json.dumps({"n": n}) + "\n")
    (tmp_path / "decisions.jsonl.lock").write_text("")
    (tmp_path / "decisions.jsonl.01").write_text('{"n": "not a rotated file"}\n')
    assert [r["n"] for r in audit.read(str(path))] == [1, 2, 3]
    assert [r["n"] for r in audit.read(str(path), rotated=False)] == [3]


def test_damaged_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    path.write_bytes(
        b'{"n":1}\n'
        b'{"n":2,"command":"tor\n'  # torn
        b"garbage\n"
        b"\n"
        b"[1, 2]\n"
        b'"a string"\n'
        b'{"n":\xff}\n'  # not UTF-8
        b'{"n":3}{"n":4}\n'
        b'  {"n":5}  \n'
        b'{"n":6}'  # the last line, unended but whole
    )
    assert list(audit.read(str(path))) == [{"n": 1}, {"n": 5}, {"n": 6}]


def test_a_short_write_is_reported_and_ended(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "decisions.jsonl"
    real_write = os.write
    monkeypatch.setattr(audit.os, "write", lambda fd, data: real_write(fd, data[:5]))
    problem = audit.append(str(path), {"event": "decision", "n": 1})
    assert problem is not None and "only in part (5 of" in problem
    monkeypatch.undo()
    assert audit.append(str(path), {"n": 2}) is None
    assert list(audit.read(str(path))) == [{"n": 2}]  # the torn line did not swallow it


def writes_are_refused(directory: Path) -> bool:
    try:
        (directory / "probe").write_text("x")
    except PermissionError:
        return True
    (directory / "probe").unlink()
    return False


def test_an_unwritable_directory_is_reported_not_raised(tmp_path: Path) -> None:
    directory = tmp_path / "locked"
    directory.mkdir()
    directory.chmod(0o500)
    try:
        if not writes_are_refused(directory):
            pytest.skip("this user can write into a read-only directory (root)")
        problem = audit.append(str(directory / "decisions.jsonl"), {"event": "decision"})
        assert (
            problem
            == f"the decision log {directory / 'decisions.jsonl'} cannot be written: Permission denied"
        )
    finally:
        directory.chmod(0o700)


def test_a_refused_open_is_reported_not_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same as an unwritable directory, for any user (root included)."""

    def refuse(path: str, *args: Any) -> int:
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(audit.os, "open", refuse)
    path = tmp_path / "decisions.jsonl"
    assert audit.append(str(path), {"event": "decision"}) == (
        f"the decision log {path} cannot be written: Permission denied"
    )


def test_a_file_in_the_way_is_reported_not_raised(tmp_path: Path) -> None:
    (tmp_path / "state").write_text("a file, not a directory")
    path = tmp_path / "state" / "logs" / "decisions.jsonl"
    problem = audit.append(str(path), {"event": "decision"})
    assert problem is not None
    assert problem.startswith(f"the decision log {path} cannot be written: ")
    assert list(audit.read(str(path))) == []


def test_a_record_that_is_not_json_is_reported_not_raised(tmp_path: Path) -> None:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    for record in ({"x": object()}, loop):
        problem = audit.append(str(tmp_path / "decisions.jsonl"), record)
        assert problem is not None and "cannot be encoded as JSON" in problem
    assert not (tmp_path / "decisions.jsonl").exists()


def test_a_failed_rotation_still_writes_the_record(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    path.write_text('{"n":0}\n' * 10)
    (tmp_path / "decisions.jsonl.lock").mkdir()  # the lock file cannot be opened
    problem = audit.append(str(path), {"n": 1}, max_bytes=10)
    assert problem is not None and problem.startswith(f"the decision log {path} cannot be rotated: ")
    assert [r["n"] for r in audit.read(str(path))][-1] == 1


CHILD = textwrap.dedent(
    """
    import os, sys, time
    from policy_engine.decisionlog.writer import append

    path, go, me = sys.argv[1], sys.argv[2], int(sys.argv[3])
    while not os.path.exists(go):  # start together, for as much contention as possible
        time.sleep(0.001)
    payload = "é" * 100 + "x" * 800  # about 1 KB, multi-byte characters included
    for n in range(200):
        problem = append(path, {"process": me, "n": n, "payload": payload}, max_bytes=64 * 1024, keep=1000)
        if problem:
            sys.exit(problem)
    """
)


def test_concurrent_processes_neither_tear_nor_lose_records(tmp_path: Path) -> None:
    path, go = tmp_path / "log" / "decisions.jsonl", tmp_path / "go"
    processes = [
        subprocess.Popen([sys.executable, "-c", CHILD, str(path), str(go), str(me)], stderr=subprocess.PIPE)
        for me in range(8)
    ]
    try:
        go.touch()
        for process in processes:
            _, errors = process.communicate(timeout=180)
            assert process.returncode == 0, errors.decode()
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
    files = [*reversed(numbered(path)), path]  # oldest first
    assert len(files) > 10  # it did rotate, many times, under contention
    lines = [line for file in files for line in file.read_bytes().splitlines()]
    assert len(lines) == 8 * 200
    records = [json.loads(line) for line in lines]  # every line whole
    assert sorted((r["process"], r["n"]) for r in records) == [(p, n) for p in range(8) for n in range(200)]
    assert all(r["payload"] == "é" * 100 + "x" * 800 for r in records)
    assert len(list(audit.read(str(path)))) == 8 * 200
    for rotated in numbered(path):
        # Full when rotated: the processes queued on the lock re-checked the size and left the
        # fresh file alone (a few lines may have landed after, from processes that had it open).
        assert rotated.stat().st_size >= 64 * 1024
    # each process's own records stay in its order across the files
    for me in range(8):
        assert [r["n"] for r in records if r["process"] == me] == list(range(200))


# ---------------------------------------------------------------------------------------- logbook.py


def decision(
    tool_call: str,
    command: str | None = "npm test",
    *,
    action: str = "ask",
    atom_action: str | None = None,
    kind: str = "default",
    session: str = "s1",
    policy: str = "work",
    tool: str = "bash",
    path: str | None = None,
    ts: float = 1000.0,
    **extra: Any,
) -> dict[str, Any]:
    atom: dict[str, Any] = {"command": command} if path is None else {"path": path}
    atom |= {"action": atom_action or action, "policy": policy, "kind": kind}
    by = {"layer": "user", "kind": kind, "policy": policy, "rule": None, "at": None}
    record = {
        "event": "decision",
        "time": f"t{ts}",
        "ts": ts,
        "session": session,
        "tool_call": tool_call,
        "tool": tool,
        "command": command if path is None else None,
        "path": path,
        "action": action,
        "judged": action,
        "decided_by": by,
        "atoms": [atom],
    }
    return record | extra


def outcome(tool_call: str, ran: bool = True, session: str = "s1") -> dict[str, Any]:
    return {"event": "outcome", "session": session, "tool_call": tool_call, "tool": "bash", "ran": ran}


def test_tail_filters_and_keeps_the_newest() -> None:
    records = [
        decision("t1", "ls", action="allow", ts=1),
        outcome("t1"),
        decision("t2", "rm -rf /", action="deny", ts=2),
        {"event": "something new", "action": "deny"},
        decision("t3", "npm test", ts=3, session="s2"),
        decision("t4", None, action="ask", tool="write", path="/x", ts=4),
        decision("t5", "ls -l", action="allow", ts=5),
    ]
    assert [r["tool_call"] for r in logbook.tail(records)] == ["t1", "t2", "t3", "t4", "t5"]
    assert [r["tool_call"] for r in logbook.tail(records, limit=2)] == ["t4", "t5"]
    assert logbook.tail(records, limit=0) == []
    assert [r["tool_call"] for r in logbook.tail(records, action="allow")] == ["t1", "t5"]
    assert [r["tool_call"] for r in logbook.tail(records, action="deny")] == ["t2"]
    assert [r["tool_call"] for r in logbook.tail(records, session="s2")] == ["t3"]
    assert [r["tool_call"] for r in logbook.tail(records, tool="write")] == ["t4"]
    assert [r["tool_call"] for r in logbook.tail(records, action="ask", tool="bash")] == ["t3"]
    assert logbook.tail(records, action="ask", session="nope") == []


def test_render_tail_shows_what_applied_and_what_was_judged() -> None:
    by = {"policy": "work", "rule": 'ask bash "npm *"', "at": "/p.jsonc:12:9", "kind": "rule"}
    records = [
        decision("t1", "npm test", decided_by=by),
        decision("t2", "git push", action="deny", judged="ask", breaker="agentTimeout"),
        decision("t3", None, tool="write", path="/x/y", action="allow"),
        decision("t4", "printf '\x1b[2J'", action="allow"),
        outcome("t1"),
    ]
    lines = logbook.render_tail(records).splitlines()
    assert len(lines) == 4
    assert lines[0].split("  ") == [
        "t1000.0",
        "s1",
        "ask",
        "bash",
        "npm test",
        '[work: ask bash "npm *" at /p.jsonc:12:9]',
    ]
    assert "deny (judged ask) (breaker agentTimeout)" in lines[1]
    assert "  write  /x/y  " in lines[2]
    assert "\x1b" not in lines[3] and "\\u001b[2J" in lines[3]
    assert logbook.render_tail([]) == "no decisions logged"


def test_stats_counts() -> None:
    by = {"policy": "work", "rule": 'ask bash "npm *"', "at": "/p.jsonc:12:9", "kind": "rule"}
    records = [
        decision("t1", ts=100, decided_by=by),
        decision("t2", ts=200, decided_by=by),
        decision("t3", "rm x", action="deny", judged="ask", ts=300, breaker="agentTimeout"),
        decision("t4", None, tool="write", path="/x", action="allow", ts=400, decided_by=None),
        decision("t5", "ls", action="allow", ts="not a time"),
        outcome("t1"),
        {"event": "unknown", "action": "allow", "ts": 500},
    ]
    result = logbook.stats(records)
    assert result == {
        "decisions": 5,
        "from": 100.0,
        "to": 400.0,
        "actions": {"ask": 2, "allow": 2, "deny": 1},
        "tools": {"bash": 4, "write": 1},
        "rules": {
            'work: ask bash "npm *" at /p.jsonc:12:9': 2,
            "work: default": 2,
            "(nothing restricted the call)": 1,
        },
        "breakers": {"agentTimeout": 1},
    }
    later = logbook.stats(records, since=200)
    assert (later["decisions"], later["from"], later["to"]) == (3, 200.0, 400.0)
    assert later["actions"] == {"ask": 1, "deny": 1, "allow": 1}
    text = logbook.render_stats(result)
    assert text.startswith("5 decisions, 1970-01-01 00:01:40Z to 1970-01-01 00:06:40Z")
    assert "actions: ask 2, allow 2, deny 1" in text and "breakers: agentTimeout 1" in text
    assert 'work: ask bash "npm *" at /p.jsonc:12:9' in text
    assert logbook.render_stats(logbook.stats([])) == "no decisions logged"


def asked(
    calls: list[str], command: str = "npm test", ran: bool | None = True, **kw: Any
) -> list[dict[str, Any]]:
    """A decision per call asking about ``command``, each followed by its outcome (None: no outcome)."""
    records = []
    for call in calls:
        records.append(decision(call, command, **kw))
        if ran is not None:
            records.append(outcome(call, ran, session=kw.get("session", "s1")))
    return records


def allowed(result: dict[str, Any]) -> dict[tuple[str, str], tuple[int, int]]:
    return {(s["policy"], s["pattern"] or s["path"]): (s["asked"], s["ran"]) for s in result["allow"]}


def test_asks_that_always_ran_are_suggested() -> None:
    records = [
        *asked(["a1", "a2", "a3"], "npm test"),
        *asked(["b1", "b2"], "make", policy="other"),
        *asked(["c1"], "cargo build"),  # once: below min_asks
        *asked(["d1", "d2"], "git push", ran=None),  # no outcome: may have been refused
        *asked(["e1", "e2"], "curl x", ran=None),
        outcome("e1", True),  # one ran, the other never did
        *asked(["f1", "f2"], "rm -rf build"),
        *asked(["f3"], "rm -rf build", ran=False),  # the user refused it once
        *asked(["g1", "g2"], "npm run dev"),
        decision("g3", "npm run dev", action="deny"),  # denied once
        *asked(["h1", "h2"], "ls *.py"),  # a pattern cannot spell *
        *asked(["i1", "i2"], "$safe-bash"),  # a pattern like that names a preset
        *asked(["j1", "j2"], "cat ~/.ssh/id", kind="protection"),
        *asked(["k1", "k2"], "python -c x", kind="doubt"),
        *asked(["l1", "l2"], "make test", action="allow", atom_action="ask", mode="inform"),  # not asked
        *asked(["m1", "m2"], "make lint", session="s2"),
    ]
    # the same tool_call id in another session is another call
    records += [
        decision("n1", "make docs"),
        outcome("n1", session="s9"),
        decision("n2", "make docs"),
        outcome("n2"),
    ]
    result = logbook.suggest(records, [])
    assert allowed(result) == {
        ("work", "npm test"): (3, 3),
        ("other", "make"): (2, 2),
        ("work", "make lint"): (2, 2),
    }
    assert result["allow"][0] == {
        "policy": "other",
        "tool": "bash",
        "pattern": "make",
        "path": None,
        "asked": 2,
        "ran": 2,
    }
    assert result["decisions"] == sum(1 for r in records if r["event"] == "decision")
    assert allowed(logbook.suggest(records, [], min_asks=3)) == {("work", "npm test"): (3, 3)}
    assert ("work", "cargo build") in allowed(logbook.suggest(records, [], min_asks=1))


def test_an_atom_is_judged_alone_in_a_line() -> None:
    line = {
        **decision("x1", "npm test && rm -rf dist", action="deny"),
        "atoms": [
            {"command": "npm test", "action": "ask", "policy": "work", "kind": "default"},
            {"command": "rm -rf dist", "action": "deny", "policy": "work", "kind": "rule"},
            {"command": "npm test", "action": "ask", "policy": "work", "kind": "default"},
        ],
    }
    # the line was denied: its asks were never put to the user, and rm -rf dist was denied
    records = [*asked(["a1", "a2"], "npm test"), line, *asked(["b1", "b2"], "rm -rf dist")]
    assert allowed(logbook.suggest(records, [])) == {("work", "npm test"): (2, 2)}
    asked_twice = {**line, "action": "ask", "atoms": line["atoms"][::2]}
    records = [asked_twice, outcome("x1"), *asked(["a1"], "npm test")]
    assert allowed(logbook.suggest(records, [])) == {("work", "npm test"): (2, 2)}  # once per call


def test_file_paths_are_suggested_per_tool() -> None:
    records = [
        *asked(["a1", "a2"], None, tool="write", path="/home/me/p/notes.md"),
        *asked(["b1", "b2"], None, tool="edit", path="/home/me/p/notes.md"),
        decision("b3", None, tool="edit", path="/home/me/p/notes.md", action="deny"),
        *asked(["c1", "c2"], None, tool="write", path="/home/me/p/*.md"),
        *asked(["d1", "d2"], None, tool="write", path="relative.md"),
    ]
    result = logbook.suggest(records, [])
    assert [(s["tool"], s["path"], s["pattern"]) for s in result["allow"]] == [
        ("write", "/home/me/p/notes.md", None)
    ]


def test_unused_rules_are_listed() -> None:
    used = {"policy": "work", "rule": 'ask bash "npm *"', "at": "/p.jsonc:12:9", "kind": "rule"}
    rules = [
        ("work", 'ask bash "npm *"', "/p.jsonc:12:9"),
        ("work", 'ask bash "npm *"', "/other.jsonc:3:5"),  # the same label elsewhere
        ("work", 'deny bash "rm *"', "/p.jsonc:13:9"),
        ("other", 'ask bash "npm *"', "/p.jsonc:12:9"),
        ("work", 'deny bash "rm *"', "/p.jsonc:13:9"),  # listed twice, reported once
    ]
    result = logbook.suggest([decision("t1", decided_by=used), outcome("t1")], rules)
    assert result["unused"] == [
        {"policy": "work", "rule": 'ask bash "npm *"', "at": "/other.jsonc:3:5"},
        {"policy": "work", "rule": 'deny bash "rm *"', "at": "/p.jsonc:13:9"},
        {"policy": "other", "rule": 'ask bash "npm *"', "at": "/p.jsonc:12:9"},
    ]
    assert result["allow"] == [] and result["decisions"] == 1


def test_suggest_survives_odd_records() -> None:
    records: list[dict[str, Any]] = [
        {},
        {"event": "decision"},
        {"event": "decision", "atoms": "not a list", "decided_by": "nor a dict", "action": "ask"},
        {
            "event": "decision",
            "action": "ask",
            "atoms": [None, 3, {"command": 5, "action": "ask", "policy": "w"}],
        },
        {"event": "outcome", "ran": "yes"},
        {"event": "decision", "action": "ask", "atoms": [{"command": "ls", "action": "ask"}]},  # no policy
    ]
    assert logbook.suggest(records, []) == {"allow": [], "unused": [], "decisions": 4}
    assert logbook.stats(records)["decisions"] == 4
    assert len(logbook.render_tail(records).splitlines()) == 4


def pasted(text: str) -> list[tuple[dict[str, Any], str]]:
    """Each rule line of ``text`` as JSON, after stripping its trailing ``,`` and ``// comment``."""
    rules = []
    for line in text.splitlines():
        if line.startswith("{"):
            body, comment = line.rsplit("},  //", 1)
            rules.append((json.loads(body + "}"), comment))
        else:
            assert line == "" or line.startswith("//"), line
    return rules


def test_render_suggestions_prints_pastable_rules() -> None:
    records = [
        *asked(["a1", "a2", "a3"], 'echo "it\'s // fine" \\ done'),
        *asked(["b1", "b2"], "curl https://example.com/x"),
        *asked(["c1", "c2"], "make", policy="my.policy"),
        *asked(["d1", "d2"], None, tool="write", path="/home/me/p/notes.md"),
        *asked(["e1", "e2"], "printf '\x1b]0;title\x07'"),
    ]
    rules = [("work", 'deny bash "rm *"', "/home/me/.config/policy-engine/policy.jsonc:12:9")]
    text = logbook.render_suggestions(logbook.suggest(records, rules))
    assert "\x1b" not in text and "\x07" not in text
    found = pasted(text)
    assert [rule for rule, _ in found] == [
        {"action": "allow", "tool": "bash", "pattern": "make"},
        {"action": "allow", "tool": "bash", "pattern": 'echo "it\'s // fine" \\ done'},
        {"action": "allow", "tool": "bash", "pattern": "curl https://example.com/x"},
        {"action": "allow", "tool": "bash", "pattern": "printf '\x1b]0;title\x07'"},
        {"action": "allow", "tool": "write", "path": "/home/me/p/notes.md", "policy": "work"},
    ]
    assert found[1][1] == " asked 3 times, ran 3 times"
    for rule, _ in found:  # valid where they are to be pasted
        if "path" in rule:
            schema.ApprovalRule.model_validate(rule)
        else:
            schema.Rule.model_validate(rule)
    assert (
        '// policies["my.policy"].rules — asked and ran every time, never denied: add to that array' in text
    )
    assert "// policies.work.rules — asked and ran every time, never denied: add to that array" in text
    assert "// approvalRules — policies.work: file paths asked and ran every time" in text
    assert "// policies.work.rules — never decided in 11 logged decisions: candidates for removal" in text
    assert '//   deny bash "rm *" at /home/me/.config/policy-engine/policy.jsonc:12:9' in text


def test_render_suggestions_says_when_there_is_nothing() -> None:
    result = logbook.suggest(asked(["a1"], "npm test"), [])
    assert logbook.render_suggestions(result) == "// nothing to suggest from 1 logged decision"


POLICY = """
    {
      "policies": {
        "work": { "defaultAction": "ask", "rules": [
          { "action": "ask", "tool": "bash", "pattern": "npm *" },
          // suggestions
        ] },
      },
      "defaultPolicy": "work",
    }
"""


def test_a_suggested_rule_pasted_into_the_policy_allows_the_command(sandbox: Sandbox) -> None:
    project = sandbox.project("p")
    sandbox.write(sandbox.user_config, POLICY)
    assert sandbox.engine(cwd=project).evaluate(bash("npm test", project)).action is Action.ASK
    text = logbook.render_suggestions(logbook.suggest(asked(["a1", "a2"], "npm test"), []))
    lines = [line for line in text.splitlines() if line.startswith("{")]
    assert len(lines) == 1
    sandbox.write(sandbox.user_config, POLICY.replace("// suggestions", lines[0]))
    engine = sandbox.engine(cwd=project, use_cache=False)
    assert engine.evaluate(bash("npm test", project)).action is Action.ALLOW
    assert engine.evaluate(bash("npm install", project)).action is Action.ASK
