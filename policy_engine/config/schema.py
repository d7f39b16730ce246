"""The policy file format as pydantic models: pi-control's keys, validated strictly.

Strict mode: a number is not a string, ``"true"`` is not a boolean, and an unknown key is an error,
so a typo can never quietly switch a protection off. Imported only when a configuration is
compiled (a cache miss), never on the hook's hot path.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator

ActionName = Literal["allow", "nudge", "log", "ask", "deny"]
DefaultActionName = Literal["allow", "log", "ask", "deny"]

PRESET_REFERENCE = re.compile(r"\$[A-Za-z][\w-]*")


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise ValueError("must be a finite number")
    return value


class Rule(_Strict):
    """A policy rule: when ``tool`` (and, for bash, ``pattern``) match, ``action`` applies."""

    action: ActionName = Field(description="What happens when the rule decides.")
    tool: str = Field(
        min_length=1,
        description="Tool name or glob (* any characters, ? one). Agent names such as Bash or Write "
        "are taken as the canonical bash or write.",
    )
    pattern: str | None = Field(
        default=None,
        description="Glob over the bash command (* any characters incl. spaces, ? one), or a "
        '"$preset" such as "$safe-bash". A rule with a pattern matches bash commands only.',
    )
    message: str | None = Field(
        default=None,
        description="For nudge (required): the reminder shown to the model. For other actions: "
        "added to the reason.",
    )
    allowUnanalyzed: bool = Field(
        default=False,
        description="On an allow bash rule: do not raise the unknown action when the command's "
        "inline code cannot be analysed.",
    )
    readOnly: bool = Field(
        default=False,
        description="Match only commands that provably read and nothing else.",
    )

    @field_validator("message")
    @classmethod
    def _message_not_blank(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("message is empty")
        return value


class ApprovalRule(Rule):
    """A persisted approval; like a rule, plus the policy it is limited to."""

    policy: str | None = Field(
        default=None, description="The policy this approval applies to; absent means every policy."
    )


def _rule_kind(value: Any) -> str:
    return "preset" if isinstance(value, str) else "rule"


RuleEntry = Annotated[
    Annotated[Rule, Tag("rule")] | Annotated[str, Tag("preset")],
    Discriminator(_rule_kind),
]


class Policy(_Strict):
    """A named set of rules and the action when none of them matches."""

    defaultAction: DefaultActionName = Field(description="The action when no rule matches.")
    rules: list[RuleEntry] = Field(
        default_factory=list,
        description='Rules (order does not matter: the most specific wins), or "$preset" strings.',
    )


class InterpreterAnalysis(_Strict):
    """How inline code given to interpreters (python -c, node -e, ...) is analysed."""

    enabled: bool = True
    unknownAction: Literal["ask", "deny"] = Field(
        default="ask", description="The action when a command cannot be proven safe."
    )
    maxSourceBytes: int = Field(default=262144, gt=0)
    maxDepth: int = Field(default=4, ge=0)
    maxNodes: int = Field(default=10000, gt=0)


class AgentTimeout(_Strict):
    """Escalate deny to ask after ``maxDenies`` denies within ``windowSeconds``."""

    maxDenies: int = Field(gt=0)
    windowSeconds: float = Field(gt=0)

    _finite_window = field_validator("windowSeconds")(_finite)


class NudgeTimeout(_Strict):
    """Escalate a rule's nudge to deny after ``maxNudges`` nudges within ``windowSeconds``."""

    maxNudges: int = Field(gt=0)
    windowSeconds: float = Field(gt=0)

    _finite_window = field_validator("windowSeconds")(_finite)


class Config(_Strict):
    """A policy file (pi-control's format, accepted unchanged)."""

    schema_: str | None = Field(default=None, alias="$schema", description="JSON Schema for editors.")
    policies: dict[str, Policy] = Field(default_factory=dict, description="Named policies.")
    locations: dict[str, str] = Field(
        default_factory=dict,
        description='Directory ("/abs", "~/x", "$cwd", "$cwd/sub", or relative) -> policy name. '
        "The longest matching directory wins.",
    )
    defaultPolicy: str | None = Field(default=None, description="Policy for paths outside every location.")
    approvalRules: list[ApprovalRule] = Field(default_factory=list, description="Persisted approvals.")
    agentTimeout: AgentTimeout | None = None
    nudgeTimeout: NudgeTimeout | None = None
    pathProtection: dict[str, ActionName] | None = Field(
        default=None,
        description="gitignore-style path pattern -> action, checked before any rule.",
    )
    interpreterAnalysis: InterpreterAnalysis | None = Field(default_factory=InterpreterAnalysis)
    cycleKey: str = Field(default="ctrl+shift+m", min_length=1, description="pi: key that cycles modes.")
    mode: Literal["enforce", "inform", "ignore"] | None = Field(
        default=None,
        description="enforce (default): decisions apply; inform: judged and reported, only pathProtection "
        "and managed denies block; ignore: likewise, and nothing is reported. An untrusted project file "
        "cannot set it.",
    )

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, populate_by_name=True)


class PatternPreset(_Strict):
    """A shipped ``$name`` preset: command patterns a rule's ``pattern`` can stand for."""

    description: str
    readOnly: bool = False
    patterns: list[str] = Field(min_length=1)
