"""The engine's vocabulary: actions, tool calls, atoms with their accesses, verdicts and decisions.

Values are immutable records (``record.py``: ``typing.NamedTuple`` to type checkers) rather than
frozen dataclasses on purpose: a hook is a new process per tool call, and ``import dataclasses``
pulls in ``inspect``, which costs about as much as starting the interpreter itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum, StrEnum
from functools import lru_cache

from .record import Record

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

    from .config.compiled import CompiledRule
    from .sandbox.wrap import Confinement


class Action(IntEnum):
    """What happens to a tool call, ordered by restrictiveness so that combining verdicts is ``max()``."""

    ALLOW = 0
    NUDGE = 1
    LOG = 2
    ASK = 3
    DENY = 4

    def __str__(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, name: str) -> Action:
        """The action spelled ``name`` in a policy file (``"deny"``); ValueError for anything else."""
        action = _BY_NAME.get(name)
        if action is None:
            raise ValueError(f"unknown action {name!r}")
        return action

    @property
    def tie_rank(self) -> int:
        """Rank among equally specific rules: the least disruptive wins (pi-control's order, log last)."""
        return _TIE_RANK[self]


_TIE_RANK = {Action.ALLOW: 0, Action.NUDGE: 1, Action.ASK: 2, Action.DENY: 3, Action.LOG: 4}
_BY_NAME = {str(a): a for a in Action}

ACTION_NAMES = tuple(_BY_NAME)
MODES = ("enforce", "inform", "ignore")


class Sense(StrEnum):
    """How an atom touches a path."""

    READ = "read"
    WRITE = "write"
    DELETE = "delete"
    EXEC = "exec"
    UNKNOWN = "unknown"


class ToolCall(Record):
    """One tool call of an agent, with the tool's canonical or agent-specific name.

    ``cwd`` is the agent's working directory, which locations' ``$cwd`` names; ``workdir`` the
    directory this call runs in when the agent lets a call choose its own (Gemini CLI's
    ``dir_path``, Codex's ``workdir``): relative paths resolve there, but it does not move
    ``$cwd``. ``doubts`` are what the agent's payload said that its module could not read (a
    tool field it does not know): each one makes the call unproven, like a doubt of the analysis."""

    tool: str
    input: Mapping[str, Any]
    cwd: str
    session_id: str | None = None
    tool_call_id: str | None = None
    agent: str | None = None
    doubts: tuple[str, ...] = ()
    workdir: str | None = None


class TreeKind(StrEnum):
    """How a walk of a directory reaches the entries under it (:class:`Walk`)."""

    ALL = "all"  # every entry (find, grep -r, rm -r, cp -r)
    VISIBLE = "visible"  # the entries whose names are not hidden (rg, fd by default)
    GIT = "git"  # every entry but what git ignores in a work tree (rg --hidden)
    FOLLOW = "follow"  # every entry, and where the symbolic links inside lead (grep -R, rg -L)
    INTO = "into"  # a copied tree's destination: what lands there may overwrite any entry


class Walk(Record):
    """A directory walked whole, and which of its entries the walk touches: those of ``kind``, only
    those whose name matches one of ``names`` when there are any (``find -name``, ``rg -g``), and
    never the files ``skip_files`` or the directories ``skip_directories`` name (``grep
    --exclude``, ``--exclude-dir``). Globs here are fnmatch globs of one name each.

    Data spells a walk as text (the command knowledge's ``"tree"``, an agent module's ``TREES``,
    the state store and the JSON report): ``KIND[:NAME,NAME...][!FILE...][!/DIRECTORY...]``, as
    :func:`parse_walk` reads and ``str()`` writes it."""

    kind: TreeKind
    names: tuple[str, ...] = ()
    skip_files: tuple[str, ...] = ()
    skip_directories: tuple[str, ...] = ()

    def __str__(self) -> str:
        text = self.kind.value + (":" + ",".join(self.names) if self.names else "")
        return (
            text
            + "".join(f"!{g}" for g in self.skip_files)
            + "".join(f"!/{g}" for g in self.skip_directories)
        )


WHOLE_TREE = Walk(TreeKind.ALL)  # every entry, none skipped or singled out
EVERY_NAME = Walk(TreeKind.ALL, ("*",))  # every entry, sought by names the analysis cannot read


@lru_cache(maxsize=256)
def parse_walk(spelling: str) -> Walk:
    """The walk ``spelling`` writes (``all:*.py``, ``visible``, ``all!.env*!/node_modules``);
    ValueError for a kind that is not a :class:`TreeKind`."""
    head, *skips = spelling.split("!")
    kind, _, names = head.partition(":")
    return Walk(
        TreeKind(kind),
        tuple(names.split(",")) if names else (),
        tuple(s for s in skips if s and not s.startswith("/")),
        tuple(s[1:] for s in skips if s.startswith("/") and len(s) > 1),
    )


def as_walk(walk: Walk | str | None) -> Walk | None:
    """A walk given as itself or in its data spelling (a knowledge entry's ``"tree"``)."""
    return parse_walk(walk) if isinstance(walk, str) else walk


def walk_naming(globs: list[str | None]) -> Walk:
    """The walk of the files ``globs`` name (names ``*.py``, ``*.md`` for ``src/**/*.py`` and
    ``*.md``): every name (:data:`EVERY_NAME`) when one is computed (None) or is not a plain name
    glob (``**``, braces, a comma): the walk still seeks what the globs name, a search just cannot
    tell which."""
    names = [
        variant for glob in globs for variant in _braces(glob.rstrip("/").rsplit("/", 1)[-1] if glob else "")
    ]
    # fnmatch reads classes and escapes unlike ripgrep ([^x], \x): only plain wildcards narrow
    plain = all(name and name != "**" and not set("{},[]\\=").intersection(name) for name in names)
    return Walk(TreeKind.ALL, tuple(names)) if plain else EVERY_NAME


def walk_excluding(walk: Walk, skipped: list[tuple[str | None, str]]) -> Walk:
    """``walk`` without the names it skips (``grep -r --exclude='.env*'``), from (glob, ``files``,
    ``directories`` or ``both``) pairs. A computed glob (None) or one that fnmatch reads unlike the
    tools (classes, braces, escapes) is dropped: the walk then reads what it would have skipped."""
    files, directories = list(walk.skip_files), list(walk.skip_directories)
    for glob, what in skipped:
        if not glob or "/" in glob or set("{},[]\\!").intersection(glob):
            continue
        if what in ("files", "both"):
            files.append(glob)
        if what in ("directories", "both"):
            directories.append(glob)
    return walk._replace(skip_files=tuple(files), skip_directories=tuple(directories))


def _braces(glob: str) -> list[str]:
    """``*.{ts,tsx}`` -> ``*.ts``, ``*.tsx`` (one level; a nested brace is left for the caller)."""
    start = glob.find("{")
    end = glob.find("}", start)
    if start < 0 or end < 0:
        return [glob]
    return [glob[:start] + choice + glob[end + 1 :] for choice in glob[start + 1 : end].split(",")]


class Access(Record):
    """A path an atom reads, writes, deletes or executes; ``via`` says what in inline code does it
    (``Python line 2: open(mode 'w')``), for explanations. ``tree`` is set when a directory at
    ``path`` is walked whole (``grep -r``, ``rm -r``, ``cp -r``): which entries the walk reaches
    (:class:`Walk`); everything it reaches is touched with ``sense``.
    ``redirect`` marks the target of a redirection (``> file``), which is not part of the command's
    text: an approval of the command does not cover it."""

    path: str
    sense: Sense
    via: str | None = None
    tree: Walk | None = None
    redirect: bool = False


class Atom(Record):
    """The smallest unit judged on its own: one simple command of a bash line, or one file-tool call.

    ``command`` is the normalized command text for bash atoms and None for other tools, and
    ``words`` the command's words as the shell hands them over (a quoted word with spaces stays one
    word: the text joins them with spaces), when the analysis knows them, and ``computed`` the
    positions of those that bash computes when it runs (``$F``, ``$(cmd)``, an unquoted glob): their
    text is their source spelling. ``doubts`` are what the analysis could not prove; each one raises
    the verdict to the unknown action. ``unproven`` says why the atom is not proven to only read
    although nothing is in doubt (an option the command knowledge does not list: rules that name
    the command still judge it, readOnly rules do not cover it). ``mentions`` are the paths its
    words spell that it is not known to touch (`printf '%s' ~/.ssh/id_rsa`): each is checked
    against pathProtection as a touch of unknown sense, since such names travel on as data.
    ``interactive`` says what it would do with keystrokes on a terminal (a pager's ``!cmd``): a
    doubt for an agent that can type into the commands it runs (analyze.py).
    """

    tool: str
    command: str | None
    accesses: tuple[Access, ...] = ()
    doubts: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    computed: tuple[int, ...] = ()
    unproven: tuple[str, ...] = ()
    mentions: tuple[str, ...] = ()
    interactive: tuple[str, ...] = ()

    @property
    def read_only(self) -> bool:
        """True when every access is a read and nothing is in doubt or unproven: what a readOnly
        rule requires."""
        return not self.doubts and not self.unproven and all(a.sense is Sense.READ for a in self.accesses)


class Origin(Record):
    """Where a setting was written: file, 1-based line and column, and its key path in that file."""

    file: str
    line: int
    column: int
    key: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class VerdictKind(StrEnum):
    """What a verdict was decided by."""

    RULE = "rule"  # a rule of the policy
    DEFAULT = "default"  # the policy's defaultAction: no rule matched
    PROTECTION = "protection"  # a pathProtection pattern (self-protection included)
    DOUBT = "doubt"  # the analysis could not prove the atom safe: the unknown action
    UNRESTRICTED = "unrestricted"  # no policy covers the target
    APPROVAL = "approval"  # an approval rule the user recorded
    SESSION = "session"  # an ask the user already answered in this session


class Verdict(Record):
    """The judgement of one layer on one atom at one target, with everything that explains it.

    ``kind`` says what decided it (:class:`VerdictKind`). ``beat`` holds the other rules that matched and
    lost on specificity or the tie-break; ``sense`` how the atom touches ``target`` (None: the
    atom touches no path and is judged at its working directory); ``walked`` that a protection
    hit a path under ``target``, a directory the atom walks whole, and ``scope`` what that
    directory is to the user when it is more than a directory ("the home directory").
    """

    action: Action
    kind: VerdictKind
    layer: str
    atom: Atom
    target: str
    policy: str | None = None
    location: str | None = None
    rule: CompiledRule | None = None
    origin: Origin | None = None
    message: str | None = None
    beat: tuple[CompiledRule, ...] = ()
    detail: str | None = None
    sense: Sense | None = None
    walked: bool = False
    scope: str | None = None


class Decision(Record):
    """The engine's answer for one tool call.

    ``reason`` is the text the model sees, ``message`` the nudge (or rule) message if any,
    ``decisive`` the verdict that set the action (None when nothing restricted the call) and
    ``verdicts`` every verdict that was considered, across layers, atoms and targets. Outside the
    ``enforce`` mode, or when a circuit breaker (``breaker``: ``agentTimeout``, ``nudgeTimeout``)
    changed it, ``judged`` is what the policy decided and ``action`` what applies. ``sandbox`` is
    how an allowed call runs confined, when a rule allows it only so (its ``command`` is what the
    agent is to run instead).
    """

    action: Action
    reason: str
    message: str | None
    decisive: Verdict | None
    verdicts: tuple[Verdict, ...]
    call: ToolCall
    sources: tuple[str, ...] = ()
    mode: str = "enforce"
    judged: Action | None = None
    breaker: str | None = None
    sandbox: Confinement | None = None
