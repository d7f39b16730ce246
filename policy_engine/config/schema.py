"""The policy file format as pydantic models: pi-control's keys, validated strictly.

Strict mode: a number is not a string, ``"true"`` is not a boolean, and an unknown key is an error,
so a typo can never quietly switch a protection off. Imported only when a configuration is
compiled (a cache miss), never on the hook's hot path.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator, model_validator

from ..agents.toolnames import BASH, canonical_tool

ActionName = Literal["allow", "nudge", "log", "ask", "deny"]
LintId = Annotated[str, Field(pattern=r"^PE[0-9]{3}$")]
DefaultActionName = Literal["allow", "log", "ask", "deny"]

# The names of a pathProtection value's two forms, and of a rule's sandbox's three; they show in
# pydantic's error locations, never in data.
UNION_TAGS = ("<action>", "<by-sense>", "<on>", "<named>", "<own>")

PRESET_REFERENCE = re.compile(r"\$[A-Za-z][\w-]*")


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class SandboxSettings(_Strict):
    """A sandbox of one's own for a rule: the built-in one, with these changes."""

    network: bool = Field(default=False, description="Whether the command may reach the network.")
    write: list[Annotated[str, Field(min_length=1)]] = Field(
        default_factory=list,
        description="Further directories it may write besides the project and temporary directories "
        "(absolute or ~/). Protected and self-protected paths inside them stay read-only.",
    )


# The named sandboxes a rule may give: "sandbox": true is "offline".
SANDBOX_NAMES = {"offline": SandboxSettings(), "network": SandboxSettings(network=True)}


def _sandbox_form(value: Any) -> str:
    if isinstance(value, bool):
        return UNION_TAGS[2]
    return UNION_TAGS[3] if isinstance(value, str) else UNION_TAGS[4]


SandboxEntry = Annotated[
    Annotated[bool, Tag(UNION_TAGS[2])]
    | Annotated[Literal["offline", "network"], Tag(UNION_TAGS[3])]
    | Annotated[SandboxSettings, Tag(UNION_TAGS[4])],
    Discriminator(_sandbox_form),
]


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
        '"$preset" such as "$safe-bash". A rule with a pattern matches bash commands only. A rule '
        "that is not allow also matches the command line its pattern describes, read with the "
        "command knowledge: leading words name the command and its subcommands (options before a "
        "subcommand never hide it); a -x or --name word asks for that option anywhere among the "
        "command's options, in any spelling the knowledge gives it (short or long, a unique prefix, "
        "inside a bundle such as -rf, its value attached or not); other words are operands in "
        "order; a lone * is any words, and a last word ending in * lets more follow. Such a match "
        "decides only where it is at least as strict as what decides without it.",
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
    sandbox: SandboxEntry = Field(
        default=False,
        description="On an allow bash rule: allow the command only run in an OS sandbox (bubblewrap on "
        "Linux, sandbox-exec on macOS) that writes only the project and temporary directories, hides "
        'protected paths and has no network: true or "offline"; "network" lets it reach the network; '
        "an object sets network and further writable directories. Where no sandbox can run, or the "
        "agent cannot run a changed command, the call is asked.",
    )
    lintIgnore: list[LintId] = Field(
        default_factory=list, description="`policy lint` warnings not to report for this rule (PE101...)."
    )

    @field_validator("message")
    @classmethod
    def _message_not_blank(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("message is empty")
        return value


class ApprovalRule(Rule):
    """A persisted approval; like a rule, plus the policy and (for file tools) the paths it is limited to."""

    policy: str | None = Field(
        default=None,
        description="The policy this approval applies to; absent means every policy of its file's layer.",
    )
    command: str | None = Field(
        default=None,
        min_length=1,
        description="For bash: the one command approved, exactly as normalized (policy check --explain "
        "shows it); * and ? in it are literal. Use pattern for a glob instead.",
    )
    path: str | None = Field(
        default=None,
        min_length=1,
        description="For a file tool: the path approved (absolute or ~/), or a glob of paths "
        "(* any characters, ? one). Absent: every path of the policy.",
    )

    @model_validator(mode="after")
    def _command_or_pattern(self) -> ApprovalRule:
        if self.command is not None and self.pattern is not None:
            raise ValueError("give command (exact) or pattern (a glob), not both")
        return self


class StoredApproval(ApprovalRule):
    """An approval in the approvals store (``policy approve``): an approval rule, with the project it
    is limited to and when it was given."""

    project: str | None = Field(
        default=None,
        pattern=r"^/",
        description="The directory it is limited to (policy approve --project): it applies to calls "
        "made there or below. Absent: everywhere.",
    )
    approvedAt: str | None = Field(default=None, description="When it was given (UTC, ISO 8601).")


class ApprovalStore(_Strict):
    """The approvals store, ``approvals.json`` (written by ``policy approve``)."""

    version: Literal[1] = 1
    approvals: list[StoredApproval] = Field(default_factory=list)


class ProtectionBySense(_Strict):
    """pathProtection for reading and writing apart: ``{"read": "allow", "write": "deny"}``."""

    read: ActionName | None = Field(
        default=None, description="The action for reading (and running) a matching path."
    )
    write: ActionName | None = Field(
        default=None, description="The action for writing or deleting a matching path."
    )
    except_: list[str] | None = Field(
        default=None,
        alias="except",
        description="Names (globs of a path's last component, no slash) the pattern does not "
        'protect: {"read": "deny", "write": "deny", "except": [".env.example"]} for ".env*".',
    )

    @model_validator(mode="after")
    def _some_sense(self) -> ProtectionBySense:
        if self.read is None and self.write is None:
            raise ValueError('give "read", "write" or both')
        for name in self.except_ or ():
            if not name or "/" in name:
                raise ValueError(f'"except" names a file or directory by its name, without a slash: {name!r}')
        return self


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


ProtectionEntry = Annotated[
    Annotated[ActionName, Tag(UNION_TAGS[0])] | Annotated[ProtectionBySense, Tag(UNION_TAGS[1])],
    Discriminator(lambda value: UNION_TAGS[0] if isinstance(value, str) else UNION_TAGS[1]),
]


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
    windowSeconds: float = Field(gt=0, le=86400, description="At most a day: older events are forgotten.")


class NudgeTimeout(_Strict):
    """Escalate a rule's nudge to deny after ``maxNudges`` nudges within ``windowSeconds``."""

    maxNudges: int = Field(gt=0)
    windowSeconds: float = Field(gt=0, le=86400, description="At most a day: older events are forgotten.")


class PolicyTest(_Strict):
    """A call written in a policy file with the decision it must get (``policy test`` runs them)."""

    tool: str = Field(default="bash", min_length=1, description="The tool called (default: bash).")
    command: str | None = Field(default=None, description="For bash: the command line.")
    input: dict[str, Any] | None = Field(
        default=None, description='The tool input, e.g. {"file_path": "/etc/hosts"} (bash: {"command": ...}).'
    )
    cwd: str | None = Field(
        default=None,
        description="The agent's working directory (default: the project directory of a project "
        "file, else the directory holding the file); ~ is the home directory.",
    )
    expect: ActionName = Field(description="The decision the call must get.")
    reason: str | None = Field(default=None, description="Text the decision's reason must contain.")

    @model_validator(mode="after")
    def _a_call(self) -> PolicyTest:
        if self.command is None and self.input is None:
            raise ValueError('give "command" (for bash) or "input"')
        if self.command is not None and self.input is not None:
            raise ValueError('give "command" or "input", not both')
        if self.command is not None and canonical_tool(self.tool) != BASH:
            raise ValueError(f'"command" is for bash; give the {self.tool} call as "input"')
        return self


class Config(_Strict):
    """A policy file (pi-control's format, accepted unchanged)."""

    schema_: str | None = Field(default=None, alias="$schema", description="JSON Schema for editors.")
    extends: Literal["default"] | None = Field(
        default="default",
        description='What the file builds on. "default" (also when absent): the embedded default\'s '
        "pathProtection stays (a pattern you name again takes your action), its policies are there "
        "to use or redefine by name, and paths none of your locations (nor your defaultPolicy) "
        "cover are judged by its locations and defaultPolicy. null drops all of it; only a user, "
        "--config or managed file can (the managed file's choice wins).",
    )
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
    pathProtection: dict[str, ProtectionEntry] | None = Field(
        default=None,
        description="gitignore-style path pattern -> action (or {read, write} actions), checked "
        "before any rule; no rule or approval overrides it.",
    )
    onError: Literal["deny", "allow"] | None = Field(
        default=None,
        description="What a hook answers when the call cannot be judged (an internal error, a timeout): "
        "deny (default) or allow (the agent's own permission flow decides). A project file cannot "
        "set it.",
    )
    log: bool | None = Field(
        default=None,
        description="Append every decision to the decision log (default true). A project file cannot "
        "turn it off.",
    )
    selfProtection: bool | None = Field(
        default=None,
        description="On unless false: deny writes to the policy files, the trust store, the engine's "
        "state and cache, and the agent settings that load the hook. A project file cannot turn it off.",
    )
    interpreterAnalysis: InterpreterAnalysis | None = Field(default_factory=InterpreterAnalysis)
    cycleKey: str = Field(default="ctrl+shift+m", min_length=1, description="pi: key that cycles modes.")
    lintIgnore: list[LintId] = Field(
        default_factory=list, description="`policy lint` warnings not to report for this file (PE101...)."
    )
    mode: Literal["enforce", "inform", "ignore"] | None = Field(
        default=None,
        description="enforce (default): decisions apply; inform: judged and reported, only pathProtection "
        "and managed denies block; ignore: likewise, and nothing is reported. A project file cannot set "
        "it.",
    )

    tests: list[PolicyTest] = Field(
        default_factory=list,
        description="Calls with the decision each must get, checked by `policy test` against this file.",
    )

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, populate_by_name=True)


class PatternPreset(_Strict):
    """A shipped ``$name`` preset: command patterns a rule's ``pattern`` can stand for."""

    description: str
    readOnly: bool = False
    patterns: list[str] = Field(min_length=1)
