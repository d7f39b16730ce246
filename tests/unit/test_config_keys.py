"""Every key of the policy file format loads, validates and reaches the compiled policy."""

from __future__ import annotations

import pytest
from helpers import Sandbox, bash, tool

from policy_engine import Action
from policy_engine.config.compile import load_presets
from policy_engine.config.presets import preset_files

FULL = """
// Every key pi-control knows, plus readOnly and $schema.
{
  "$schema": "https://example.invalid/policy-engine.schema.json",
  "extends": "default",
  policies: {
    'main': {
      "defaultAction": "ask",
      "rules": [
        { "action": "allow", "tool": "read" },
        { "action": "nudge", "tool": "grep", "message": "Prefer the index." },
        { "action": "allow", "tool": "bash", "pattern": "bun run*", "allowUnanalyzed": true },
        { "action": "allow", "tool": "bash", "pattern": "cat *", "readOnly": true },
        { "action": "log", "tool": "github_*" },
        { "action": "deny", "tool": "bash", "pattern": "rm *", "message": "Use trash instead." },
      ],
    },
    "other": { "defaultAction": "deny", "rules": [] },
  },
  "locations": { "$cwd": "main", "~/other": "other", "/srv": "other" },
  "defaultPolicy": "other",
  "approvalRules": [
    { "action": "allow", "tool": "bash", "pattern": "make test", "policy": "main" },
  ],
  "agentTimeout": { "maxDenies": 3, "windowSeconds": 60 },
  "nudgeTimeout": { "maxNudges": 2, "windowSeconds": 30.5 },
  "pathProtection": { "~/.ssh/": "deny", "*.pem": "ask" },
  "interpreterAnalysis": { "enabled": true, "unknownAction": "deny", "maxSourceBytes": 1000,
                           "maxDepth": 2, "maxNodes": 500 },
  "cycleKey": "ctrl+alt+p",
}
"""


def test_every_key_is_compiled(sandbox: Sandbox) -> None:
    engine = sandbox.engine(sandbox.write("policy.jsonc", FULL))
    (layer,) = engine.policy_set.layers
    main = layer.policies["main"]
    assert main.default_action is Action.ASK
    by_label = {rule.label(): rule for rule in main.rules}
    assert by_label['allow bash "bun run*"'].allow_unanalyzed
    assert by_label['allow bash "cat *"'].read_only
    assert by_label["nudge grep"].message == "Prefer the index."
    assert by_label['deny bash "rm *"'].message == "Use trash instead."
    assert by_label['deny bash "rm *"'].origin[1:] == (14, 9, "policies.main.rules[5]")
    assert [loc.key for loc in layer.locations] == ["$cwd", "~/other", "/srv"]
    assert layer.default_policy == "other"
    (approval,) = layer.approval_rules
    assert (approval.pattern, approval.policy) == ("make test", "main")
    assert (layer.agent_timeout.max_events, layer.agent_timeout.window_seconds) == (3, 60.0)
    assert (layer.nudge_timeout.max_events, layer.nudge_timeout.window_seconds) == (2, 30.5)
    own = [(p.pattern, p.action, p.anchor) for p in layer.protection if p.origin.file == layer.files[0]]
    assert own == [("~/.ssh/", Action.DENY, "home"), ("*.pem", Action.ASK, "anywhere")]
    # The embedded default's protections stay, but for the one the file names again.
    inherited = [p.pattern for p in layer.protection if p.origin.file != layer.files[0]]
    assert "~/.aws/" in inherited and ".env*" in inherited and "~/.ssh/" not in inherited
    assert layer.extends and layer.fallback == ()  # its own defaultPolicy covers what no location does
    assert layer.interpreter == (True, Action.DENY, 1000, 2, 500)
    assert layer.cycle_key == "ctrl+alt+p"


def test_rules_are_stored_in_winning_order(sandbox: Sandbox) -> None:
    engine = sandbox.engine(sandbox.write("policy.jsonc", FULL))
    rules = engine.policy_set.layers[0].policies["main"].rules
    assert [r.label() for r in rules] == [
        'allow bash "bun run*"',  # command patterns first, most literal characters first
        'allow bash "cat *"',
        'deny bash "rm *"',
        "log github_*",  # then tool globs by literal characters: github_ (7), read and grep (4)
        "allow read",  # equal specificity: the least disruptive action first
        "nudge grep",
    ]


def test_defaults_when_optional_keys_are_absent(sandbox: Sandbox) -> None:
    engine = sandbox.engine(
        sandbox.write("policy.jsonc", '{ "policies": { "p": { "defaultAction": "deny" } } }')
    )
    (layer,) = engine.policy_set.layers
    assert layer.policies["p"].rules == ()
    assert layer.locations == () and layer.default_policy is None and layer.approval_rules == ()
    assert layer.agent_timeout is None and layer.nudge_timeout is None
    # What no location covers is judged by the embedded default, whose protections all stay.
    assert [entry.key for entry in layer.fallback] == ["$cwd"] and layer.fallback_policy == "elsewhere"
    assert {"~/.ssh/", ".env*"} <= {p.pattern for p in layer.protection}
    assert sorted(layer.policies) == ["elsewhere", "p", "project"]
    assert layer.interpreter == (True, Action.ASK, 262144, 4, 10000)
    assert layer.cycle_key == "ctrl+shift+m"


def test_null_disables_optional_features(sandbox: Sandbox) -> None:
    engine = sandbox.engine(
        sandbox.write(
            "policy.jsonc",
            '{ "defaultPolicy": null, "agentTimeout": null, "nudgeTimeout": null,'
            ' "pathProtection": null, "interpreterAnalysis": null }',
        )
    )
    (layer,) = engine.policy_set.layers
    assert layer.interpreter.enabled is False
    assert layer.default_policy is None and layer.fallback_policy == "elsewhere"
    # A file's pathProtection null removes none of the embedded default's (said in policy config).
    assert {"~/.ssh/", ".env*"} <= {p.pattern for p in layer.protection}
    assert [change.kind for change in layer.changes] == ["noted"]


def test_extends_null_drops_the_embedded_default(sandbox: Sandbox) -> None:
    engine = sandbox.engine(
        sandbox.write("policy.jsonc", '{ "extends": null, "policies": { "p": { "defaultAction": "deny" } } }')
    )
    (layer,) = engine.policy_set.layers
    assert not layer.extends and layer.protection == () and layer.fallback == ()
    assert sorted(layer.policies) == ["p"]
    (change,) = layer.changes
    assert change.kind == "dropped" and change.origin.line == 1


def test_safe_bash_preset_expands_to_read_only_rules(sandbox: Sandbox) -> None:
    engine = sandbox.engine(
        sandbox.write(
            "policy.jsonc",
            """
            { "policies": { "p": { "defaultAction": "deny", "rules": [
                { "action": "allow", "tool": "bash", "pattern": "$safe-bash" } ] } },
              "locations": { "/": "p" } }
            """,
        )
    )
    rules = engine.policy_set.layers[0].policies["p"].rules
    assert len(rules) == len(load_presets()["$safe-bash"].patterns) > 85
    assert all(r.read_only and r.preset == "$safe-bash" and r.action is Action.ALLOW for r in rules)
    assert all(r.origin.line == 2 for r in rules)  # each names the line that asked for the preset
    decision = engine.evaluate(bash("git log --oneline", "/w"))
    assert decision.action is Action.ALLOW
    assert "(from $safe-bash)" in decision.reason
    assert engine.evaluate(bash("git push", "/w")).action is Action.DENY


def test_preset_keeps_the_referencing_rule_fields(sandbox: Sandbox) -> None:
    engine = sandbox.engine(
        sandbox.write(
            "policy.jsonc",
            """
            { "policies": { "p": { "defaultAction": "allow", "rules": [
                { "action": "nudge", "tool": "bash", "pattern": "$safe-bash", "message": "read-only!" } ] } },
              "locations": { "/": "p" } }
            """,
        )
    )
    decision = engine.evaluate(bash("cat README.md", "/w"))
    assert (decision.action, decision.message) == (Action.NUDGE, "read-only!")


def test_bare_preset_entry_means_allow_bash(sandbox: Sandbox) -> None:
    engine = sandbox.engine(
        sandbox.write(
            "policy.jsonc",
            '{ "policies": { "p": { "defaultAction": "deny", "rules": [ "$safe-bash" ] } }, "locations": { "/": "p" } }',
        )
    )
    assert engine.evaluate(bash("ls -la", "/w")).action is Action.ALLOW
    assert engine.evaluate(bash("rm -rf x", "/w")).action is Action.DENY


def test_shipped_safe_bash_keeps_pi_controls_read_only_patterns() -> None:
    presets = load_presets()
    assert [name for name, _ in preset_files()] == [
        "$file-ops",
        "$interpreters",
        "$project-tasks",
        "$safe-bash",
    ]
    safe = presets["$safe-bash"]
    assert len(safe.patterns) == len(set(safe.patterns))
    assert safe.readOnly
    kept = {
        "git status",
        "git log *",
        "git stash list",
        "printenv *",
        "which *",
        "whoami",
        "date *",
        "ps",
        "lsof *",
        "npm list *",
        "pip freeze",
        "bun pm ls *",
        "cat *",
        "find *",
        "yq *",
    }
    assert kept <= set(safe.patterns)
    # Never read-only, so removed (see the preset's comment): bare env and printenv print every
    # secret, pagers run commands, make -n runs recipes, npm outdated/info/view ask the registry.
    removed = {
        "env",
        "printenv",
        "less *",
        "more *",
        "make -n *",
        "make --dry-run *",
        "npm outdated *",
        "npm info *",
        "npm view *",
    }
    assert not removed & set(safe.patterns)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("~/.ssh/id_rsa", Action.DENY),  # ~/ pattern, under home
        ("~/.ssh", Action.DENY),  # the directory itself
        ("/srv/keys/server.pem", Action.ASK),  # no slash: any directory
        ("/etc/shadow", Action.DENY),  # absolute pattern
        ("/etc/hosts", Action.ALLOW),
        ("PROJECT/secrets/a.txt", Action.DENY),  # relative with a slash: from the project root
        ("/tmp/secrets/a.txt", Action.ALLOW),  # ... and nowhere else
        ("PROJECT/src/secrets/a.txt", Action.ALLOW),
        ("PROJECT/logs/app.log", Action.LOG),
        ("PROJECT/readme.md", Action.ALLOW),
    ],
)
def test_path_protection_patterns(sandbox: Sandbox, path: str, expected: Action) -> None:
    project = sandbox.project("proj")
    engine = sandbox.engine(
        sandbox.write(
            "policy.jsonc",
            """
            { "policies": { "open": { "defaultAction": "allow" } },
              "locations": { "/": "open" },
              "pathProtection": { "~/.ssh/": "deny", "*.pem": "ask", "/etc/shadow": "deny",
                                  "secrets/**": "deny", "logs/*.log": "log" } }
            """,
        ),
        cwd=project,
    )
    path = path.replace("PROJECT", str(project))
    decision = engine.evaluate(tool("read", project, path=path))
    assert decision.action is expected, decision.reason
    if expected is not Action.ALLOW:
        assert decision.decisive.kind == "protection"


def test_path_protection_is_checked_before_rules_and_allow_cannot_undo_it(sandbox: Sandbox) -> None:
    engine = sandbox.engine(
        sandbox.write(
            "policy.jsonc",
            """
            { "policies": { "open": { "defaultAction": "allow", "rules": [ { "action": "allow", "tool": "read" } ] } },
              "locations": { "/": "open" },
              "pathProtection": { ".env*": "deny", "*.md": "allow" } }
            """,
        )
    )
    decision = engine.evaluate(tool("read", "/app", file_path="/app/.env.local"))
    assert decision.action is Action.DENY
    assert 'pathProtection ".env*"' in decision.reason


def test_unknown_action_setting_applies_to_doubts(sandbox: Sandbox) -> None:
    engine = sandbox.engine(
        sandbox.write(
            "policy.jsonc",
            '{ "policies": { "p": { "defaultAction": "allow" } }, "locations": { "/": "p" },'
            ' "interpreterAnalysis": { "unknownAction": "deny" } }',
        )
    )
    assert engine.evaluate(tool("bash", "/w")).action is Action.DENY  # a bash call without a command


def test_pi_control_json_file_is_accepted(sandbox: Sandbox) -> None:
    path = sandbox.write(
        "pi-controls.json",
        '{"policies": {"strict": {"defaultAction": "deny", "rules": [{"action": "allow", "tool": "read"}]}},'
        ' "locations": {"/home/user/work": "strict"}}',
    )
    engine = sandbox.engine(path)
    assert engine.evaluate(tool("read", "/home/user/work", path="a")).action is Action.ALLOW
    assert engine.evaluate(tool("write", "/home/user/work", path="a")).action is Action.DENY


def test_prototype_names_are_plain_names(sandbox: Sandbox) -> None:
    """pi-control crashed on patterns such as "toString" (a JavaScript prototype key); here they are
    ordinary literal patterns and policy names."""
    engine = sandbox.engine(
        sandbox.write(
            "policy.jsonc",
            '{ "policies": { "constructor": { "defaultAction": "allow", "rules": [ '
            '{ "action": "deny", "tool": "bash", "pattern": "toString" } ] } }, "locations": { "/": "constructor" } }',
        )
    )
    assert engine.evaluate(bash("toString", "/w")).action is Action.DENY
    assert engine.evaluate(bash("valueOf", "/w")).action is Action.ALLOW
