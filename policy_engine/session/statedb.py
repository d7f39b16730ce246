"""The SQLite state store: one file shared by every hook process (see ``state.py`` for the interface).

Every write is one short ``BEGIN IMMEDIATE`` transaction: SQLite then serializes the writers, so
concurrent processes counting the same events each see a distinct count. The file is never
repaired or replaced behind the user's back: whatever goes wrong is raised as a StateError.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time

from .state import EVENT_RETENTION, PRUNE_EVERY, StateError, _cutoff

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Iterator
    from types import TracebackType

# Index i migrates schema version i to i + 1. Never edit a released step: append a new one.
_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        "CREATE TABLE events(kind TEXT NOT NULL, session TEXT NOT NULL, key TEXT NOT NULL,"
        " time REAL NOT NULL)",
        "CREATE INDEX events_by_key ON events(kind, session, key, time)",
        "CREATE TABLE session_allows(session TEXT NOT NULL, key TEXT NOT NULL, expires REAL NOT NULL,"
        " PRIMARY KEY(session, key))",
    ),
)
SCHEMA_VERSION = len(_MIGRATIONS)


class SqliteState:
    """The state in a SQLite database shared by concurrent processes (one thread each).

    Nothing touches the disk until the first call, so building one costs nothing for a hook that
    never needs it. Every failure raises :class:`StateError`.
    """

    def __init__(self, path: str, *, timeout: float = 2.0) -> None:
        self.path = path
        self.timeout = timeout  # how long to wait for another process's write before giving up
        self._db: sqlite3.Connection | None = None

    def __enter__(self) -> SqliteState:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection; a later call opens it again."""
        db, self._db = self._db, None
        if db is not None:
            with self._errors():
                db.close()

    # -- the store ---------------------------------------------------------------------------------

    def allowed(self, session_id: str, key: str, now: float) -> bool:
        with self._errors():
            row = self._connection().execute(
                "SELECT 1 FROM session_allows WHERE session = ? AND key = ? AND expires > ?",
                (session_id, key, now),
            )
            return row.fetchone() is not None

    def allow(self, session_id: str, key: str, expires: float) -> None:
        with self._errors(), self._transaction() as db:
            # Answers are rare, so each one also sweeps stale rows (by the wall clock: no `now` here).
            _prune(db, time.time())
            db.execute(
                "INSERT INTO session_allows(session, key, expires) VALUES (?, ?, ?)"
                " ON CONFLICT(session, key) DO UPDATE SET expires = max(expires, excluded.expires)",
                (session_id, key, expires),
            )

    def tally(self, kind: str, session_id: str, key: str, *, now: float, window: float, record: bool) -> int:
        where = "kind = ? AND session = ? AND key = ?"
        ident = (kind, session_id, key)
        with self._errors(), self._transaction() as db:
            if record:
                inserted = db.execute(
                    "INSERT INTO events(kind, session, key, time) VALUES (?, ?, ?, ?)", (*ident, now)
                )
                if (inserted.lastrowid or 0) % PRUNE_EVERY == 0:
                    _prune(db, now)
            db.execute(f"DELETE FROM events WHERE {where} AND time < ?", (*ident, _cutoff(now, window)))
            (count,) = db.execute(f"SELECT count(*) FROM events WHERE {where}", ident).fetchone()
            return int(count)

    def clear(self, kind: str, session_id: str, key: str) -> None:
        with self._errors(), self._transaction() as db:
            db.execute(
                "DELETE FROM events WHERE kind = ? AND session = ? AND key = ?", (kind, session_id, key)
            )

    # -- opening -----------------------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            self._create_file()
            # isolation_level=None: we issue BEGIN IMMEDIATE ourselves instead of the module's
            # deferred BEGIN, which could fail to upgrade to a write lock without waiting.
            db = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
            try:
                self._configure(db)
                self._migrate(db)
            except BaseException:
                db.close()
                raise
            self._db = db
        return self._db

    def _create_file(self) -> None:
        """Create the directory (0o700) and an empty database file (0o600) that only the user can read;
        SQLite gives its -wal and -shm files the database's mode."""
        directory = os.path.dirname(self.path) or "."
        if not os.path.isdir(directory):
            os.makedirs(directory, mode=0o700, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            os.close(os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))

    def _configure(self, db: sqlite3.Connection) -> None:
        db.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
        self._use_wal(db)
        db.execute("PRAGMA synchronous = NORMAL")  # safe in WAL mode; a crash loses at most the last commits

    def _use_wal(self, db: sqlite3.Connection) -> None:
        """Switch the file to WAL, which lets readers (``allowed``) go on while a writer holds the lock.

        The mode is kept in the file, so only the first opener switches. Switching needs an exclusive
        lock that SQLite does not wait for (waiting could deadlock), so processes racing to open a
        fresh file retry here, within the same timeout as any other wait.
        """
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                (mode,) = db.execute("PRAGMA journal_mode").fetchone()
                if str(mode).lower() != "wal":
                    db.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as error:
                if _primary_code(error) != sqlite3.SQLITE_BUSY or time.monotonic() >= deadline:
                    raise
                # Jittered, so racers do not retry in step (os.urandom: `random` imports hashlib).
                time.sleep(0.002 + 0.018 * int.from_bytes(os.urandom(2), "big") / 0xFFFF)

    def _migrate(self, db: sqlite3.Connection) -> None:
        if self._version(db) == SCHEMA_VERSION:
            return
        with self._transaction(db):
            # Read again under the write lock: another process may have migrated in between.
            version = self._version(db)
            for step in _MIGRATIONS[version:]:
                for statement in step:
                    db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _version(self, db: sqlite3.Connection) -> int:
        (version,) = db.execute("PRAGMA user_version").fetchone()
        if version > SCHEMA_VERSION:
            raise StateError(
                f"the state store {self.path} was written by a newer policy-engine "
                f"(schema {version}, this one knows {SCHEMA_VERSION})"
            )
        return int(version)

    # -- transactions and errors -------------------------------------------------------------------

    @contextlib.contextmanager
    def _transaction(self, db: sqlite3.Connection | None = None) -> Iterator[sqlite3.Connection]:
        """One write transaction, taking the write lock up front so concurrent writers queue."""
        if db is None:
            db = self._connection()
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
            raise

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        """Turn every failure into a StateError whose message names the file."""
        try:
            yield
        except sqlite3.Error as error:
            raise StateError(_describe(self.path, error)) from error
        except OSError as error:
            reason = error.strerror or str(error)
            raise StateError(
                f"the state store {self.path} could not be created ({reason.lower()})"
            ) from error


def _prune(db: sqlite3.Connection, now: float) -> None:
    """Drop rows no call can see any more: events past the retention, allows expired a day ago (the
    day's grace keeps a caller's clock and the wall clock from disagreeing about what is expired)."""
    db.execute("DELETE FROM events WHERE time < ?", (now - EVENT_RETENTION,))
    db.execute("DELETE FROM session_allows WHERE expires < ?", (now - EVENT_RETENTION,))


_REASONS = {
    sqlite3.SQLITE_BUSY: "is locked by another process",
    sqlite3.SQLITE_LOCKED: "is locked by another process",
    sqlite3.SQLITE_NOTADB: "is corrupt or not a database",
    sqlite3.SQLITE_CORRUPT: "is corrupt or not a database",
    sqlite3.SQLITE_READONLY: "is read-only",
    sqlite3.SQLITE_CANTOPEN: "cannot be opened",
    sqlite3.SQLITE_PERM: "cannot be accessed (permission denied)",
    sqlite3.SQLITE_AUTH: "cannot be accessed (permission denied)",
    sqlite3.SQLITE_FULL: "cannot be written (the disk is full)",
    sqlite3.SQLITE_IOERR: "cannot be read or written (I/O error)",
}


def _primary_code(error: sqlite3.Error) -> int | None:
    """SQLite's primary result code (the low byte of an extended one), or None for an error of the
    Python module itself (a closed connection, a wrong thread)."""
    code = getattr(error, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def _describe(path: str, error: sqlite3.Error) -> str:
    code = _primary_code(error)
    reason = _REASONS.get(code) if code is not None else None
    return f"the state store {path} {reason or f'failed ({error})'}"
