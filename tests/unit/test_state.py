"""The state store: exact event counts (also across concurrent processes), session allows that persist
between processes, a versioned schema, and every failure as a StateError that names the file."""

from __future__ import annotations

import itertools
import os
import sqlite3
import stat
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from policy_engine.session.state import EVENT_RETENTION, PRUNE_EVERY, MemoryState, StateError, state_path
from policy_engine.session.statedb import SCHEMA_VERSION, SqliteState

if TYPE_CHECKING:  # interfaces for type checkers only (the hook's modules do not import typing)
    from policy_engine.session.allows import SessionStore
    from policy_engine.session.state import StateStore

# Whole seconds near the wall clock: window arithmetic stays exact and housekeeping (which uses the
# wall clock when allowing) sees these times as current.
BASE = float(int(time.time()))


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StateStore]:
    if request.param == "memory":
        yield MemoryState()
        return
    sqlite = SqliteState(state_path(str(tmp_path / "state")))
    yield sqlite
    sqlite.close()


def record(store: StateStore, at: float, kind: str = "deny", session: str = "s1", key: str = "k") -> int:
    return store.tally(kind, session, key, now=at, window=60.0, record=True)


def count(
    store: StateStore,
    at: float,
    window: float = 60.0,
    kind: str = "deny",
    session: str = "s1",
    key: str = "k",
) -> int:
    return store.tally(kind, session, key, now=at, window=window, record=False)


# -- tally ------------------------------------------------------------------------------------------


def test_recording_counts_every_event_in_the_window(store: StateStore) -> None:
    assert [record(store, BASE + i) for i in range(5)] == [1, 2, 3, 4, 5]
    assert count(store, BASE + 5) == 5


def test_counting_without_recording_adds_nothing(store: StateStore) -> None:
    assert count(store, BASE) == 0
    record(store, BASE)
    assert [count(store, BASE + 1) for _ in range(3)] == [1, 1, 1]


def test_an_event_exactly_at_the_cutoff_is_kept_and_older_ones_are_forgotten(store: StateStore) -> None:
    for at in (BASE, BASE + 10, BASE + 20):
        record(store, at)
    # cutoff = BASE + 30 - 20 = BASE + 10: the event at BASE + 10 stays, the one at BASE goes.
    assert count(store, BASE + 30, window=20.0) == 2
    # Forgotten, not merely outside the window: a wider window later does not bring it back.
    assert count(store, BASE + 30, window=1000.0) == 2
    assert count(store, BASE + 30.5, window=20.0) == 1


def test_the_recorded_event_is_counted_and_pruning_happens_in_the_same_call(store: StateStore) -> None:
    record(store, BASE)
    record(store, BASE + 1)
    assert store.tally("deny", "s1", "k", now=BASE + 100, window=60.0, record=True) == 1


def test_windows_are_capped_at_the_retention(store: StateStore) -> None:
    record(store, BASE)
    assert count(store, BASE + EVENT_RETENTION, window=10 * EVENT_RETENTION) == 1
    assert count(store, BASE + EVENT_RETENTION + 1, window=10 * EVENT_RETENTION) == 0


def test_clear_resets_one_key_only(store: StateStore) -> None:
    for i in range(3):
        record(store, BASE + i)
        record(store, BASE + i, key="other")
    store.clear("deny", "s1", "k")
    assert count(store, BASE + 3) == 0
    assert count(store, BASE + 3, key="other") == 3
    assert record(store, BASE + 4) == 1
    store.clear("deny", "s1", "never recorded")  # nothing to forget is not an error


def test_kinds_sessions_and_keys_are_counted_apart(store: StateStore) -> None:
    record(store, BASE)
    record(store, BASE, kind="ask")
    record(store, BASE, kind="ask")
    record(store, BASE, session="s2")
    for _ in range(3):
        record(store, BASE, key="k2")
    assert count(store, BASE) == 1
    assert count(store, BASE, kind="ask") == 2
    assert count(store, BASE, session="s2") == 1
    assert count(store, BASE, key="k2") == 3
    assert count(store, BASE, kind="ask", session="s2") == 0


# -- session allows ---------------------------------------------------------------------------------


def test_an_allow_holds_until_it_expires_in_its_own_session_only(store: StateStore) -> None:
    assert not store.allowed("s1", "git status", BASE)
    store.allow("s1", "git status", BASE + 100)
    assert store.allowed("s1", "git status", BASE)
    assert store.allowed("s1", "git status", BASE + 99.5)
    assert not store.allowed("s1", "git status", BASE + 100)  # expired at its expiry
    assert not store.allowed("s2", "git status", BASE)
    assert not store.allowed("s1", "git status; rm -rf *", BASE)


def test_the_later_expiry_is_kept(store: StateStore) -> None:
    store.allow("s1", "k", BASE + 100)
    store.allow("s1", "k", BASE + 50)
    assert store.allowed("s1", "k", BASE + 75)
    store.allow("s1", "k", BASE + 200)
    assert store.allowed("s1", "k", BASE + 150)
    assert not store.allowed("s1", "k", BASE + 200)


def test_stores_are_session_stores() -> None:
    stores: list[SessionStore] = [MemoryState(), SqliteState("/nonexistent/never/opened.db")]
    assert all(callable(s.allowed) and callable(s.allow) for s in stores)


# -- SQLite: files, persistence, schema ---------------------------------------------------------------


def test_state_path() -> None:
    assert state_path("/x/state") == os.path.join("/x/state", "state.db")


def test_nothing_is_created_before_the_first_use(tmp_path: Path) -> None:
    directory = tmp_path / "state"
    store = SqliteState(state_path(str(directory)))
    assert not directory.exists()
    assert not store.allowed("s", "k", BASE)
    store.close()
    assert (directory / "state.db").is_file()


def test_the_directory_and_file_are_private_and_in_wal_mode(tmp_path: Path) -> None:
    directory = tmp_path / "deep" / "state"
    path = state_path(str(directory))
    with SqliteState(path) as store:
        store.allow("s", "k", BASE + 10)
        assert stat.S_IMODE(os.stat(directory).st_mode) & 0o077 == 0
        assert stat.S_IMODE(os.stat(path).st_mode) & 0o177 == 0
        for side in (path + "-wal", path + "-shm"):
            if os.path.exists(side):
                assert stat.S_IMODE(os.stat(side).st_mode) & 0o177 == 0
    raw = sqlite3.connect(path)
    try:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        tables = {row[0] for row in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"events", "session_allows"} <= tables
    finally:
        raw.close()


def test_state_persists_across_stores_on_one_file(tmp_path: Path) -> None:
    path = state_path(str(tmp_path))
    first = SqliteState(path)
    first.allow("s1", "k", BASE + 100)
    assert record(first, BASE) == 1
    second = SqliteState(path)  # a second process, while the first is still open
    assert second.allowed("s1", "k", BASE)
    assert record(second, BASE + 1) == 2
    first.close()
    second.close()
    with SqliteState(path) as third:
        assert third.allowed("s1", "k", BASE + 50)
        assert not third.allowed("s2", "k", BASE + 50)
        assert count(third, BASE + 2) == 2
        third.clear("deny", "s1", "k")
    with SqliteState(path) as fourth:
        assert count(fourth, BASE + 2) == 0


def test_a_newer_schema_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = state_path(str(tmp_path))
    with SqliteState(path) as store:
        store.allow("s", "k", BASE + 10)
    raw = sqlite3.connect(path)
    raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    raw.close()
    store = SqliteState(path)
    with pytest.raises(StateError, match="written by a newer policy-engine") as caught:
        store.allowed("s", "k", BASE)
    assert path in str(caught.value)
    raw = sqlite3.connect(path)
    try:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
        assert raw.execute("SELECT count(*) FROM session_allows").fetchone()[0] == 1
    finally:
        raw.close()


def test_stale_rows_of_other_keys_are_swept(tmp_path: Path) -> None:
    path = state_path(str(tmp_path))
    old = BASE - 3 * EVENT_RETENTION
    with SqliteState(path) as store:
        store.allow("s1", "expired long ago", old)
        store.allow("s1", "current", BASE + 100)  # each allow sweeps what expired before it
        for i in range(10):
            record(store, old + i, key="idle")
        for i in range(PRUNE_EVERY):
            record(store, BASE + i, key="busy")
        assert store.allowed("s1", "current", BASE)
    raw = sqlite3.connect(path)
    try:
        assert raw.execute("SELECT count(*) FROM events WHERE key = 'idle'").fetchone()[0] == 0
        assert raw.execute("SELECT count(*) FROM session_allows").fetchone()[0] == 1
    finally:
        raw.close()


# -- concurrency ------------------------------------------------------------------------------------

PROCESSES = 8
CALLS = 25
WORKER = textwrap.dedent(
    """
    import os, sys, time
    from policy_engine.session.statedb import SqliteState

    path, go = sys.argv[1], sys.argv[2]
    while not os.path.exists(go):  # start together, to contend
        time.sleep(0.001)
    store = SqliteState(path, timeout=60.0)
    counts = [
        store.tally("deny", "s1", "k", now=time.time(), window=1e9, record=True) for _ in range({calls})
    ]
    store.close()
    print(" ".join(map(str, counts)))
    """
).format(calls=CALLS)


def test_concurrent_processes_each_see_a_distinct_count(tmp_path: Path) -> None:
    path = state_path(str(tmp_path / "state"))  # a fresh file: the processes also race to create it
    go = tmp_path / "go"
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, path, str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(PROCESSES)
    ]
    go.touch()
    seen: list[int] = []
    for worker in workers:
        out, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err
        counts = [int(n) for n in out.split()]
        assert len(counts) == CALLS
        assert all(a < b for a, b in itertools.pairwise(counts)), counts
        seen += counts
    total = PROCESSES * CALLS
    assert sorted(seen) == list(range(1, total + 1))
    with SqliteState(path) as store:
        assert store.tally("deny", "s1", "k", now=time.time(), window=1e9, record=False) == total


# -- failures ---------------------------------------------------------------------------------------


def _writes_are_refused(directory: Path) -> bool:
    """Whether permissions stop writes here (they do not for root)."""
    probe = directory / "probe"
    try:
        probe.write_bytes(b"")
    except OSError:
        return True
    probe.unlink()
    return False


def test_a_read_only_directory_raises(tmp_path: Path) -> None:
    directory = tmp_path / "locked-down"
    directory.mkdir()
    directory.chmod(0o500)
    try:
        if not _writes_are_refused(directory):
            pytest.skip("permissions do not stop writes here (running as root?)")
        path = state_path(str(directory))
        with pytest.raises(StateError, match="could not be created") as caught:
            SqliteState(path).tally("deny", "s", "k", now=BASE, window=60.0, record=True)
        assert path in str(caught.value)
        assert not os.path.exists(path)
    finally:
        directory.chmod(0o700)


def test_a_read_only_file_raises(tmp_path: Path) -> None:
    path = state_path(str(tmp_path))
    with SqliteState(path) as store:
        record(store, BASE)
    os.chmod(path, 0o400)
    tmp_path.chmod(0o500)  # nor may SQLite create its -wal and -shm files beside it
    try:
        if not _writes_are_refused(tmp_path):
            pytest.skip("permissions do not stop writes here (running as root?)")
        with pytest.raises(StateError) as caught:
            record(SqliteState(path), BASE)
        assert path in str(caught.value)
    finally:
        tmp_path.chmod(0o700)
        os.chmod(path, 0o600)


def test_a_path_below_a_regular_file_raises(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    path = state_path(str(blocker / "state"))
    with pytest.raises(StateError, match="could not be created") as caught:
        SqliteState(path).allowed("s", "k", BASE)
    assert path in str(caught.value)


def test_a_garbage_file_raises_for_every_call_and_is_left_alone(tmp_path: Path) -> None:
    path = state_path(str(tmp_path))
    garbage = b"this is not a database, it is the user's file\n" * 100
    Path(path).write_bytes(garbage)
    store = SqliteState(path)
    calls = [
        lambda: store.allowed("s", "k", BASE),
        lambda: store.allow("s", "k", BASE + 10),
        lambda: record(store, BASE),
        lambda: store.clear("deny", "s", "k"),
    ]
    for call in calls:
        with pytest.raises(StateError, match="is corrupt or not a database") as caught:
            call()
        assert str(caught.value) == f"the state store {path} is corrupt or not a database"
    store.close()
    assert Path(path).read_bytes() == garbage


@pytest.mark.parametrize("wal", [True, False], ids=["wal", "rollback-journal"])
def test_a_locked_database_raises_after_the_timeout(tmp_path: Path, wal: bool) -> None:
    path = state_path(str(tmp_path))
    if wal:
        with SqliteState(path) as store:
            record(store, BASE)
    blocker = sqlite3.connect(path, isolation_level=None)
    try:
        if not wal:  # a database some other tool made, still in rollback-journal mode
            blocker.execute("CREATE TABLE unrelated(x)")
        blocker.execute("BEGIN EXCLUSIVE")
        store = SqliteState(path, timeout=0.2)
        started = time.monotonic()
        with pytest.raises(StateError, match="is locked by another process") as caught:
            record(store, BASE)
        assert time.monotonic() - started >= 0.15  # it waited before giving up
        assert str(caught.value) == f"the state store {path} is locked by another process"
        with pytest.raises(StateError, match="locked"):
            store.allow("s", "k", BASE + 10)
        blocker.execute("ROLLBACK")
        assert record(store, BASE + 1) == (2 if wal else 1)  # usable again once the lock is gone
        store.close()
    finally:
        blocker.close()
