"""The compiled form of a configuration: what the hot path evaluates and the disk cache stores.

Everything here has been validated; nothing here imports pydantic or json5. Rules are stored in
winning order (most specific first, then least disruptive), so the first matching rule decides.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..model import Action, Origin
from ..record import Record


class Sandbox(Record):
    """Where a rule's command may run: in an OS sandbox (sandbox/) that writes only the project and
    temporary directories, reads no protected path, and reaches the network only if ``network``;
    ``write`` are further directories it may write (absolute, ``~`` expanded when it is planned)."""

    network: bool = False
    write: tuple[str, ...] = ()


class CompiledRule(Record):
    """One rule of a policy (or one approval rule), after presets and tool aliases are expanded.

    Only approvals carry ``policy`` (the policy they apply to; None: every policy of their layer)
    ``path`` (for a file tool: the absolute path or glob of the paths they approve), ``command``
    (for bash: the one normalized command they approve, compared exactly), ``within`` (the
    directory a project approval is limited to: calls made there or below) and ``confined`` (the
    directory the paths it approves must lie in: a project file's approvals, for its own paths).
    ``sandbox`` (allow rules only): the command is allowed only run confined so (engine.py)."""

    action: Action
    tool: str
    pattern: str | None
    origin: Origin
    message: str | None = None
    allow_unanalyzed: bool = False
    read_only: bool = False
    policy: str | None = None
    preset: str | None = None
    path: str | None = None
    command: str | None = None
    within: str | None = None
    confined: str | None = None
    sandbox: Sandbox | None = None

    def label(self) -> str:
        """A short, stable description: ``deny bash "rm *"`` or ``allow read``."""
        text = f"{self.action} {self.tool}"
        if self.pattern is not None:
            text += f' "{self.pattern}"'
        if self.command is not None:
            text += f" command {self.command!r}"
        if self.path is not None:
            text += f" {self.path}"
        if self.sandbox is not None:
            text += " in a sandbox"
        return text


class CompiledPolicy(Record):
    """A named policy: its rules in winning order and the action when none matches. ``rules`` is a
    tuple, or read from the compiled-policy cache, a sequence that decodes each rule when first used."""

    name: str
    default_action: Action
    default_origin: Origin
    rules: Sequence[CompiledRule]


class LocationEntry(Record):
    """A ``locations`` entry. ``base`` is the directory a relative key is taken from (None: the cwd)."""

    key: str
    policy: str
    origin: Origin
    base: str | None = None


# The senses each side of a {"read", "write"} protection covers. Running a file reads it; an access of
# unknown sense may be either, so both sides apply to it.
READ_SENSES = ("read", "exec", "unknown")
WRITE_SENSES = ("write", "delete", "unknown")


class Protection(Record):
    """A pathProtection pattern compiled to a regex over a path relative to its ``anchor``.

    Anchors: ``absolute`` (pattern starts with ``/``), ``home`` (``~/``), ``project`` (relative with a
    slash: from the project root) and ``anywhere`` (no slash: any directory, like gitignore).
    ``senses`` are the senses of access it applies to (``{"read": ..., "write": ...}`` compiles to
    one entry per side). ``fixed`` is the pattern's leading literal directory, relative to the
    anchor (``.ssh`` for ``~/.ssh/*``), and ``exact`` says the pattern names that one path: what
    a walk over a directory tree needs to know whether the tree can hold a protected path.
    ``excepted`` is a regex of the last path components the pattern leaves alone (its ``except``
    names: ``.env.example`` for ``.env*``), empty when it has none.
    """

    pattern: str
    action: Action
    anchor: str
    regex: str
    origin: Origin
    senses: tuple[str, ...] = ("read", "write", "delete", "exec", "unknown")
    fixed: str = ""
    exact: bool = False
    excepted: str = ""


class InterpreterSettings(Record):
    """``interpreterAnalysis``: whether inline code is analysed and what an unproven call gets."""

    enabled: bool = True
    unknown_action: Action = Action.ASK
    max_source_bytes: int = 262144
    max_depth: int = 4
    max_nodes: int = 10000


class Breaker(Record):
    """``agentTimeout`` / ``nudgeTimeout``: ``max_events`` events within ``window_seconds`` trip it."""

    max_events: int
    window_seconds: float
    origin: Origin


class Change(Record):
    """Something a layer's files remove or override of the embedded default, where they say it
    (``policy config`` and ``policy lint`` show every one). ``kind``: ``dropped`` (``"extends":
    null``), ``weakened`` or ``overridden`` (a default protection named again with a weaker or
    another action), ``kept`` (a project file's weaker spelling of a default protection: both
    apply), ``redefined`` (a default policy defined again), ``replaced`` (a defaultPolicy of the
    files' own: the default's judgement of the paths no location covers applies nowhere), ``off``
    (self-protection turned off) and ``noted`` (a setting that does less than it seems)."""

    kind: str
    text: str
    origin: Origin | None = None

    @property
    def removes(self) -> bool:
        """Whether it takes a protection away (what `policy lint` warns of)."""
        return self.kind in ("dropped", "weakened", "off")


class Layer(Record):
    """One independently judged configuration.

    The base layer (user and trusted project files, or the embedded default alone) decides; a
    ``restrict_only`` layer (managed, or an untrusted project) can only make verdicts stricter.
    ``mode``, ``self_protection``, ``log`` and ``on_error`` are None when the layer's files do not
    set them.

    A layer that ``extends`` the embedded default holds the default's policies (unless its files
    redefine them) and protections (unless a user or managed file names them again), and judges a
    path that neither its ``locations`` nor its ``default_policy`` cover by the default's locations
    (``fallback``) and defaultPolicy (``fallback_policy``). ``changes`` says what its files remove
    or override of the default.
    """

    name: str
    restrict_only: bool
    files: tuple[str, ...]
    policies: Mapping[str, CompiledPolicy]
    locations: tuple[LocationEntry, ...]
    default_policy: str | None
    approval_rules: tuple[CompiledRule, ...]
    protection: tuple[Protection, ...]
    interpreter: InterpreterSettings
    agent_timeout: Breaker | None
    nudge_timeout: Breaker | None
    cycle_key: str
    mode: str | None = None
    self_protection: bool | None = None
    log: bool | None = None
    on_error: str | None = None
    extends: bool = False
    fallback: tuple[LocationEntry, ...] = ()
    fallback_policy: str | None = None
    changes: tuple[Change, ...] = ()


class PolicySet(Record):
    """Every layer that applies, the project root that relative patterns are taken from, and a short
    digest of everything the set was compiled from (the decision log names it)."""

    layers: tuple[Layer, ...]
    project_root: str | None
    digest: str = ""
