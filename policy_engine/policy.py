"""The compiled form of a configuration: what the hot path evaluates and the disk cache stores.

Everything here has been validated; nothing here imports pydantic or json5. Rules are stored in
winning order (most specific first, then least disruptive), so the first matching rule decides.
"""

from collections.abc import Mapping
from typing import NamedTuple

from .model import Action, Origin


class CompiledRule(NamedTuple):
    """One rule of a policy (or one approval rule), after presets and tool aliases are expanded."""

    action: Action
    tool: str
    pattern: str | None
    origin: Origin
    message: str | None = None
    allow_unanalyzed: bool = False
    read_only: bool = False
    policy: str | None = None
    preset: str | None = None

    def label(self) -> str:
        """A short, stable description: ``deny bash "rm *"`` or ``allow read``."""
        text = f"{self.action} {self.tool}"
        if self.pattern is not None:
            text += f' "{self.pattern}"'
        return text


class CompiledPolicy(NamedTuple):
    """A named policy: its rules in winning order and the action when none matches."""

    name: str
    default_action: Action
    default_origin: Origin
    rules: tuple[CompiledRule, ...]


class LocationEntry(NamedTuple):
    """A ``locations`` entry. ``base`` is the directory a relative key is taken from (None: the cwd)."""

    key: str
    policy: str
    origin: Origin
    base: str | None = None


class Protection(NamedTuple):
    """A pathProtection pattern compiled to a regex over a path relative to its ``anchor``.

    Anchors: ``absolute`` (pattern starts with ``/``), ``home`` (``~/``), ``project`` (relative with a
    slash: from the project root) and ``anywhere`` (no slash: any directory, like gitignore).
    """

    pattern: str
    action: Action
    anchor: str
    regex: str
    origin: Origin


class InterpreterSettings(NamedTuple):
    """``interpreterAnalysis``: whether inline code is analysed and what an unproven call gets."""

    enabled: bool = True
    unknown_action: Action = Action.ASK
    max_source_bytes: int = 262144
    max_depth: int = 4
    max_nodes: int = 10000


class Breaker(NamedTuple):
    """``agentTimeout`` / ``nudgeTimeout``: ``max_events`` events within ``window_seconds`` trip it."""

    max_events: int
    window_seconds: float
    origin: Origin


class Layer(NamedTuple):
    """One independently judged configuration.

    The base layer (user and trusted project files, or the embedded default) decides; a
    ``restrict_only`` layer (managed, or an untrusted project) can only make verdicts stricter.
    """

    name: str
    restrict_only: bool
    files: tuple[str, ...]
    policies: Mapping[str, CompiledPolicy]
    locations: tuple[LocationEntry, ...]
    default_policy: str | None
    default_policy_origin: Origin | None
    approval_rules: tuple[CompiledRule, ...]
    protection: tuple[Protection, ...]
    interpreter: InterpreterSettings
    agent_timeout: Breaker | None
    nudge_timeout: Breaker | None
    cycle_key: str
    mode: str | None = None


class PolicySet(NamedTuple):
    """Every layer that applies, and the project root that relative patterns are taken from."""

    layers: tuple[Layer, ...]
    project_root: str | None
