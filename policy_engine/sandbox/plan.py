"""What a sandbox confines for one call, worked out from the policy's protections and the disk.

The sandbox sees the whole file system read-only, and may write the project directory (and the
directories a rule adds), and the temporary directories. Inside the writable directories,
what pathProtection keeps from being written (or asked before) stays read-only, because what is
written there runs later, unconfined: git metadata, the agents' settings, the engine's own files.
Such a place that does not exist yet must not be created either: it is mounted as an empty
read-only directory for the run (the backend makes the mount point; the wrapper removes it after).
What pathProtection keeps from being read is hidden: an empty file or directory in its place.

Exact places (``~/.ssh/``) are hidden wherever they are; patterns that float (``.env*``) are found by
a bounded walk of the writable directories. A tree too large to walk, a project directory that
holds the home directory, a protection that cannot be placed: the call cannot be confined, and the
rule falls back to asking (``Unconfinable``).
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import time
from fnmatch import translate
from functools import lru_cache

from .. import trees
from ..decide.protect import matches
from ..model import Action
from ..paths import inside, normalize
from ..record import Record

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from ..config.compiled import Sandbox
    from ..decide.protect import Guard
    from ..trees import Stamp

# Entries the walk of the writable directories looks at before it gives up (the call is then
# asked). Larger than a command's search budget (protect.py): it runs once per confined call, and
# a project with its dependencies installed (node_modules, .venv) holds tens of thousands.
WALK_LIMIT = 200_000

# Temporary directories: shared with the user, written like the project (a test's report in /tmp is
# read by the next command), but the sockets of services that act for the user unconfined (tmux,
# X11, ssh-agent) hidden. /run, which holds the others (docker, the session bus), is replaced by an
# empty directory.
TEMPORARY = ("/tmp", "/var/tmp")
REPLACED = ("/run",)
SOCKET_SCAN = 4000  # entries of a temporary directory (two levels deep) looked at for sockets
SOCKET_FRESH = 5.0  # seconds a scan for sockets is used again
# Places the sandbox mounts afresh: a process list of its own (no other process's /proc/PID/root
# or environ) and a minimal /dev.
FRESH = ("/proc", "/dev")

# Caches that tools write under the home directory (a build cache, npm's) go to a directory of the
# sandbox's own: what confined code writes there must not be read later by the same tools unconfined.
CACHE = ".cache/policy-engine-sandbox"
CACHES = (("XDG_CACHE_HOME", ""), ("npm_config_cache", "npm"))


class Plan(Record):
    """What to confine: ``writable`` directories (bound read-write); ``read_only`` paths inside them
    (bound read-only again); ``blocked`` absent paths inside them that must not be created (an empty
    read-only directory for the run), with ``created`` the directories the backend makes for them
    (deepest first, removed after the run); ``hidden_files`` and ``hidden_directories`` (replaced by
    empty ones); ``temporary`` directories (written, shared) and ``replaced`` ones (empty, of its
    own); whether the ``network`` is reachable; the environment variables ``unset`` and those set
    (``environment``); the ``shell`` that runs the command; ``floating``, the read-protected
    patterns that float (for a backend that matches them by name); ``visible``, the directories
    inside a temporary one that stay read-only (a home directory under /tmp); ``sockets``, those
    hidden in the temporary directories (a socket, or the directory that holds some); ``cache``,
    the sandbox's own cache directory (written; ``environment`` points tools at it)."""

    writable: tuple[str, ...]
    read_only: tuple[str, ...]
    blocked: tuple[str, ...]
    created: tuple[str, ...]
    hidden_files: tuple[str, ...]
    hidden_directories: tuple[str, ...]
    temporary: tuple[str, ...]
    network: bool
    unset: tuple[str, ...]
    environment: tuple[tuple[str, str], ...]
    shell: str
    floating: tuple[str, ...] = ()
    visible: tuple[str, ...] = ()
    replaced: tuple[str, ...] = ()
    sockets: tuple[str, ...] = ()
    cache: tuple[str, ...] = ()

    def describe(self) -> str:
        """One line for reasons: what the command may write and reach."""
        where = ", ".join(self.writable)
        net = "with network" if self.network else "no network"
        return f"writes only {where}, temporary directories and its own cache, protected paths hidden, {net}"


class Unconfinable(Exception):
    """Why this call cannot be confined (the rule then asks)."""


def plan(
    sandbox: Sandbox,
    guards: Sequence[Guard],
    *,
    project: str,
    cwd: str,
    home: str,
    env: Mapping[str, str],
    secret: Callable[[str], bool],
    limit: int = WALK_LIMIT,
) -> Plan:
    """The plan for a command run in ``cwd`` of ``project`` under the placed protections ``guards``;
    ``secret`` says which variables are named like credentials (the command knowledge's)."""
    writable = tuple(dict.fromkeys([project, *(normalize(path, cwd, home) for path in sandbox.write)]))
    for directory in writable:
        _check_writable(directory, home, guards)
    temporary = _temporary(env, writable, home)
    replaced = tuple(d for d in REPLACED if os.path.isdir(d) and not os.path.islink(d))
    if any(inside(cwd, d) for d in replaced):
        raise Unconfinable(f"the working directory {cwd} lies in {cwd}, which the sandbox replaces")
    visible = (home,) if any(inside(home, t) for t in temporary) else ()
    cache, environment = _cache(home)
    reads = [g for g in guards if g.entry.action >= Action.ASK and "read" in g.entry.senses]
    writes = [g for g in guards if g.entry.action >= Action.ASK and "write" in g.entry.senses]
    read_only, hidden = _walk(writable, reads, writes, limit)
    # The temporary directories are written too: what is protected there (a state directory under
    # /tmp) stays read-only as well; only its fixed places, a walk of /tmp would never end.
    placed = [
        place
        for place in _placed_writes(writes, (*writable, *temporary))
        if any(inside(place, d) for d in writable) or not any(inside(place, v) for v in visible)
    ]
    read_only += [path for path in placed if os.path.lexists(path)]
    hidden += _placed_reads(reads, writable, replaced, limit)
    absent = [path for path in placed if not os.path.lexists(path)]
    read_only = _outermost(read_only)
    blocked = tuple(
        path
        for path in _outermost([*absent, *_blocked(writes, writable, cwd, read_only)])
        if not _under_any(path, read_only, strict=False)
    )
    hidden = _outermost(hidden)
    kept = (*writable, *visible)
    return Plan(
        writable,
        tuple(p for p in read_only if not _under_any(p, hidden, strict=True)),
        blocked,
        _created(blocked, (*writable, *temporary)),
        tuple(p for p in hidden if not os.path.isdir(p)),
        tuple(p for p in hidden if os.path.isdir(p)),
        temporary,
        sandbox.network,
        # Variables named like credentials are not passed in: with no network, what the code could
        # still do with them is print them into the agent's context.
        tuple(sorted(name for name in env if secret(name))),
        environment,
        shutil.which("bash", path=env.get("PATH")) or "/bin/bash",
        tuple(sorted({g.entry.pattern for g in reads if g.entry.anchor == "anywhere"})),
        visible,
        replaced,
        _sockets(temporary, kept, env),
        cache,
    )


def _cache(home: str) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """The sandbox's own cache directory (made if need be) and the variables that point tools at it;
    nothing where it cannot be made."""
    directory = os.path.join(home, CACHE)
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError:
        return (), ()
    return (directory,), tuple((name, os.path.join(directory, sub).rstrip("/")) for name, sub in CACHES)


def _sockets(temporary: tuple[str, ...], kept: tuple[str, ...], env: Mapping[str, str]) -> tuple[str, ...]:
    """The sockets in the temporary directories (two levels deep, :data:`SOCKET_SCAN` entries at
    most) and $SSH_AUTH_SOCK: each, or the directory under a temporary one that holds it
    (tmux-UID/, .X11-unix/), unless that directory holds what the sandbox keeps (the project)."""
    agent = env.get("SSH_AUTH_SOCK", "")
    candidates = [agent] if agent.startswith("/") and _is_socket(agent) else []
    candidates += _scanned(temporary)
    found = []
    for socket in candidates:
        parent = os.path.dirname(socket)
        keeps = parent in temporary or any(inside(k, parent) for k in kept)
        found.append(socket if keeps else parent)
    return tuple(_outermost(found))


_scans: dict[tuple[str, ...], tuple[float, list[str]]] = {}


def _scanned(temporary: tuple[str, ...]) -> list[str]:
    """The sockets of the temporary directories, scanned at most every :data:`SOCKET_FRESH`
    seconds (the daemon judges many calls in a row; a service started since is the next scan's)."""
    now = time.monotonic()
    found = _scans.get(temporary)
    if found is None or now - found[0] > SOCKET_FRESH:
        budget = [SOCKET_SCAN]
        found = _scans[temporary] = (
            now,
            [p for top in temporary for p in _socket_scan(top, budget, descend=True)],
        )
    return found[1]


def _socket_scan(directory: str, budget: list[int], *, descend: bool) -> list[str]:
    """The sockets in ``directory`` (and, if ``descend``, in its directories), within ``budget``."""
    found: list[str] = []
    try:
        with os.scandir(directory) as listing:
            for item in listing:
                budget[0] -= 1
                if budget[0] < 0:
                    break
                # The entry's type comes with the listing: only what is neither a directory, a
                # file nor a link is looked at closer.
                if item.is_dir(follow_symlinks=False):
                    if descend:
                        found += _socket_scan(item.path, budget, descend=False)
                elif (
                    not item.is_file(follow_symlinks=False)
                    and not item.is_symlink()
                    and _is_socket(item.path)
                ):
                    found.append(item.path)
    except OSError:
        pass
    return found


def _is_socket(path: str) -> bool:
    try:
        return stat.S_ISSOCK(os.lstat(path).st_mode)
    except OSError:
        return False


def _check_writable(directory: str, home: str, guards: Sequence[Guard]) -> None:
    if not os.path.isdir(directory):
        raise Unconfinable(f"{directory}, which the sandbox would let it write, is not a directory")
    if inside(home, directory):
        what = "is the home directory" if directory == home else "holds the home directory"
        raise Unconfinable(f"the directory it would write, {directory}, {what}")
    for guard in guards:
        entry = guard.entry
        writes = entry.action >= Action.ASK and "write" in entry.senses
        if writes and entry.anchor != "anywhere" and entry.exact and inside(directory, guard.place):
            raise Unconfinable(f'{directory} lies in "{entry.pattern}", which pathProtection guards')


def _temporary(env: Mapping[str, str], writable: tuple[str, ...], home: str) -> tuple[str, ...]:
    """The temporary directories the sandbox writes: the shared ones that exist here, and $TMPDIR."""
    found = [d for d in TEMPORARY if os.path.isdir(d) and not os.path.islink(d)]
    tmpdir = env.get("TMPDIR")
    if tmpdir and os.path.isabs(tmpdir) and os.path.isdir(tmpdir):
        tmpdir = os.path.normpath(tmpdir)
        if not any(inside(tmpdir, d) for d in (*found, *writable)) and not inside(home, tmpdir):
            found.append(tmpdir)
    return tuple(found)


def _walk(
    roots: tuple[str, ...], reads: list[Guard], writes: list[Guard], limit: int
) -> tuple[list[str], list[str]]:
    """The entries under the writable directories that a protection names: (write-protected ones,
    read-protected ones). A matched directory is not walked further: all of it is bound.

    Each directory's listing is kept (:class:`_Listing`) and used again while the directory is
    unchanged: the same inode, modification and change times, looked at before every use. A
    project walked for every confined call (``node_modules``, ``.venv``: tens of thousands of
    entries) then costs a ``stat`` per directory, and a directory that changed is listed again."""
    read_only: list[str] = []
    hidden: list[str] = []
    key = (tuple(reads), tuple(writes))
    found = _LISTED.get(key)
    if found is None:
        if len(_LISTED) >= PROTECTION_SETS:
            _LISTED.clear()
        found = _LISTED[key] = (_screen([*reads, *writes]), {})
    screen, listings = found
    seen = 0
    pending = list(roots)
    while pending:
        listing = _listing(pending.pop(), listings, reads, writes, screen)
        seen += listing.entries
        if seen > limit:
            raise Unconfinable(
                f"{', '.join(roots)} holds more than {limit} entries: too many to find every "
                "protected path the sandbox must hide or keep read-only"
            )
        hidden += [_target(path) if link else path for path, link in listing.hidden]
        read_only += listing.read_only
        pending += listing.below
    return read_only, [path for path in hidden if path]


class _Listing(Record):
    """What the walk takes from one directory: when it was looked at (``stamp``: device, inode,
    modification and change times, in ns), its number of entries, the read-protected ones
    (``hidden``: path, and whether it is a symbolic link, whose target is looked up at each use), the
    write-protected ones, and the directories to walk further (``below``)."""

    stamp: Stamp | None
    entries: int
    hidden: tuple[tuple[str, bool], ...]
    read_only: tuple[str, ...]
    below: tuple[str, ...]


# The listings kept, per set of protections (read, write) and directory, with the set's screen (see
# _list); all dropped past LISTINGS listings or PROTECTION_SETS sets.
_LISTED: dict[
    tuple[tuple[Guard, ...], tuple[Guard, ...]], tuple[re.Pattern[str] | None, dict[str, _Listing]]
] = {}
LISTINGS, PROTECTION_SETS = 100_000, 64


def _listing(
    directory: str,
    kept: dict[str, _Listing],
    reads: list[Guard],
    writes: list[Guard],
    screen: re.Pattern[str] | None,
) -> _Listing:
    """The listing of ``directory``: the one kept, when the directory is as it was then; else made
    (and kept, unless it changed just before, or could not be read whole)."""
    now = time.time_ns()
    stamp = trees.stamp(directory)  # None: listed all the same (whatever scandir makes of it)
    found = kept.get(directory)
    if found is not None and stamp is not None and found.stamp == stamp:
        return found
    listing = _list(directory, reads, writes, screen, stamp)
    if trees.settled(stamp, now) and listing.stamp is not None:
        if sum(len(listings) for _, listings in _LISTED.values()) >= LISTINGS:
            for _, listings in _LISTED.values():
                listings.clear()
        kept[directory] = listing
    return listing


def _list(
    directory: str,
    reads: list[Guard],
    writes: list[Guard],
    screen: re.Pattern[str] | None,
    stamp: Stamp | None,
) -> _Listing:
    """``directory`` listed: what the protections name in it, and where to walk further. Most
    entries match no pattern: one regex of the last path components the patterns can end in rules
    them out (``screen``) before each protection is tried on its own. Unreadable, or not read to
    its end: what was read, with no stamp (never kept)."""
    count = 0
    hidden: list[tuple[str, bool]] = []
    read_only: list[str] = []
    below: list[str] = []
    try:
        with os.scandir(directory) as listing:
            for item in listing:
                count += 1
                if screen is None or screen.fullmatch(item.name.lower()):
                    # A hidden place is read-only too: reads first.
                    if any(matches(g, item.path) for g in reads):
                        hidden.append((item.path, item.is_symlink()))
                        continue
                    if any(matches(g, item.path) for g in writes):
                        read_only.append(item.path)
                        continue
                if item.is_dir(follow_symlinks=False):
                    below.append(item.path)
    except OSError:
        stamp = None  # unreadable: the command cannot read it either
    return _Listing(stamp, count, tuple(hidden), tuple(read_only), tuple(below))


def _screen(guards: list[Guard]) -> re.Pattern[str] | None:
    """A regex of the names an entry must have for one of ``guards`` to match it (lower-cased);
    None when some pattern can end in any name."""
    names = set()
    for guard in guards:
        last = guard.entry.pattern.rstrip("/").rsplit("/", 1)[-1]
        if not last or last.startswith("**"):
            return None
        names.add(_translated(last.lower()))
    return re.compile("|".join(f"(?:{name})" for name in sorted(names))) if names else None


@lru_cache(maxsize=512)
def _translated(name: str) -> str:
    return translate(name)


def _target(link: str) -> str:
    """Where a symbolic link leads, if anywhere: that is what must be hidden."""
    target = os.path.realpath(link)
    return target if os.path.exists(target) else ""


def _placed_writes(writes: list[Guard], writable: tuple[str, ...]) -> list[str]:
    """Write-protected places with a fixed directory inside the writable directories: the whole
    directory stays read-only (what a pattern under it names is in it)."""
    return [
        g.place
        for g in writes
        if g.entry.anchor != "anywhere"
        and g.entry.fixed  # a pattern with no leading directory is found by the walk
        and any(inside(g.place, d) and g.place != d for d in writable)
    ]


def _placed_reads(
    reads: list[Guard], writable: tuple[str, ...], replaced: tuple[str, ...], limit: int
) -> list[str]:
    """Read-protected places outside the walk of the writable directories: an exact one is hidden
    whole; under a fixed directory, the entries the pattern names are."""
    hidden: list[str] = []
    for guard in reads:
        entry, place = guard.entry, guard.place
        if entry.anchor == "anywhere" or any(inside(place, d) for d in writable):
            continue  # found by the walk
        if any(inside(place, d) for d in (*FRESH, *replaced)):
            continue  # the sandbox mounts its own there
        if entry.exact:
            if os.path.lexists(place):
                hidden.append(os.path.realpath(place) if os.path.islink(place) else place)
            continue
        if place in ("/", "") or (place == guard.base and entry.anchor != "absolute"):
            raise Unconfinable(
                f'pathProtection "{entry.pattern}" ({entry.origin}) names paths anywhere under {guard.base}: '
                "too many places for the sandbox to hide"
            )
        if os.path.isdir(place):
            named, _ = _walk((place,), [], [guard], limit)  # as "writes": every entry it names
            hidden += named
    return hidden


def _blocked(
    writes: list[Guard], writable: tuple[str, ...], cwd: str, read_only: list[str]
) -> tuple[str, ...]:
    """The write-protected names a project keeps at its top (``.git``, ``.claude``,
    ``.github/hooks``) that do not exist in a writable directory or the working directory: what
    confined code could create there to run unconfined later."""
    tops = [d for d in writable] + (
        [cwd] if cwd not in writable and any(inside(cwd, d) for d in writable) else []
    )
    names = dict.fromkeys(
        literal
        for g in writes
        if g.entry.anchor in ("anywhere", "project")
        and (literal := g.entry.pattern.removeprefix("**/").rstrip("/"))
        and not any(c in literal for c in "*?[")
    )
    blocked: list[str] = []
    for top in tops:
        for name in names:
            path = f"{top.rstrip('/')}/{name}"
            if os.path.lexists(path) or _under_any(path, [*read_only, *blocked], strict=False):
                continue
            blocked.append(path)
    return tuple(blocked)


def _created(blocked: tuple[str, ...], writable: tuple[str, ...]) -> tuple[str, ...]:
    """The directories the backend creates for ``blocked`` mount points, deepest first."""
    created: set[str] = set()
    for path in blocked:
        while path not in writable and not os.path.lexists(path) and path != "/":
            created.add(path)
            path = os.path.dirname(path)
    return tuple(sorted(created, key=lambda p: (-p.count("/"), p)))


def _outermost(paths: Iterable[str]) -> list[str]:
    """``paths`` without duplicates and without those inside another one of them, in order."""
    unique = sorted(dict.fromkeys(paths), key=lambda p: (p.count("/"), p))
    kept: list[str] = []
    for path in unique:
        if not _under_any(path, kept, strict=False):
            kept.append(path)
    return kept


def _under_any(path: str, others: Iterable[str], *, strict: bool) -> bool:
    return any(inside(path, other) and (not strict or path != other) for other in others)
