"""The state store: what one hook process must leave for the next (circuit-breaker events, session allows).

A hook runs as a new process per tool call, often several at once, so the state lives in one SQLite
file shared by all of them (``statedb.py``). This module holds what every store shares and the
in-memory store the Python API uses, without importing sqlite3 (a hook that needs no state should
not pay for it). Whatever goes wrong with a store is raised as a :class:`StateError`; the caller
decides.

Times are seconds since the epoch, as ``time.time()`` gives them. Events older than
:data:`EVENT_RETENTION` are forgotten whatever the window, so the file cannot grow without bound.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol

EVENT_RETENTION = 24 * 3600.0  # no breaker looks back further than a day; older events are pruned
PRUNE_EVERY = 256  # recorded events between sweeps of other keys' stale rows (cheap, amortized)


class StateError(Exception):
    """The state store could not be used (locked, corrupt, unwritable, ...).

    ``str()`` is a short phrase naming the file, fit to be shown to a user as a reason.
    """


if TYPE_CHECKING:  # an interface for type checkers (Protocol would import typing)

    class StateStore(Protocol):
        """Events and session allows kept between hook processes (also a ``sessions.SessionStore``)."""

        def allowed(self, session_id: str, key: str, now: float) -> bool:
            """Whether ``key`` is allowed in ``session_id`` at ``now`` (an expired allow counts as absent)."""
            ...

        def allow(self, session_id: str, key: str, expires: float) -> None:
            """Allow ``key`` in ``session_id`` until ``expires``; an existing later expiry is kept."""
            ...

        def tally(
            self, kind: str, session_id: str, key: str, *, now: float, window: float, record: bool
        ) -> int:
            """In one atomic step: if ``record``, add an event at ``now``; forget this (kind, session, key)'s
            events older than ``now - window`` (one exactly at the cutoff is kept); return how many remain."""
            ...

        def clear(self, kind: str, session_id: str, key: str) -> None:
            """Forget every event of (kind, session, key), as a breaker does after it trips."""
            ...


def state_path(directory: str) -> str:
    """The state database inside the state directory."""
    return os.path.join(directory, "state.db")


def _cutoff(now: float, window: float) -> float:
    """The oldest time still counted: the window, capped at the retention that pruning enforces."""
    return now - min(window, EVENT_RETENTION)


class MemoryState:
    """The state of one process, held in memory (the Python API and tests); same semantics as SQLite."""

    def __init__(self) -> None:
        self._events: dict[tuple[str, str, str], list[float]] = {}
        self._expiry: dict[tuple[str, str], float] = {}

    def allowed(self, session_id: str, key: str, now: float) -> bool:
        expires = self._expiry.get((session_id, key))
        return expires is not None and now < expires

    def allow(self, session_id: str, key: str, expires: float) -> None:
        previous = self._expiry.get((session_id, key), expires)
        self._expiry[session_id, key] = max(previous, expires)

    def tally(self, kind: str, session_id: str, key: str, *, now: float, window: float, record: bool) -> int:
        times = self._events.pop((kind, session_id, key), [])
        if record:
            times.append(now)
        cutoff = _cutoff(now, window)
        kept = [t for t in times if t >= cutoff]
        if kept:
            self._events[kind, session_id, key] = kept
        return len(kept)

    def clear(self, kind: str, session_id: str, key: str) -> None:
        self._events.pop((kind, session_id, key), None)


class OnDemand:
    """A store opened when first used: most calls (an allow, a log) never need one, and opening
    the SQLite store costs a hook some 4 ms (importing sqlite3, the file, its pragmas)."""

    def __init__(self, open_store: Callable[[], StateStore]) -> None:
        self._open = open_store
        self._store: StateStore | None = None

    def _get(self) -> StateStore:
        if self._store is None:
            self._store = self._open()
        return self._store

    def allowed(self, session_id: str, key: str, now: float) -> bool:
        return self._get().allowed(session_id, key, now)

    def allow(self, session_id: str, key: str, expires: float) -> None:
        self._get().allow(session_id, key, expires)

    def tally(self, kind: str, session_id: str, key: str, *, now: float, window: float, record: bool) -> int:
        return self._get().tally(kind, session_id, key, now=now, window=window, record=record)

    def clear(self, kind: str, session_id: str, key: str) -> None:
        self._get().clear(kind, session_id, key)
