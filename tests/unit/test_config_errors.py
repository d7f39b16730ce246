"""Bad configuration: every error names file, line, column and key, says what is wrong, and hints.

Nothing invalid is ever skipped: the load fails, the CLI exits 3, and no call is allowed.
"""

from __future__ import annotations

import textwrap

import pytest
from helpers import Sandbox

from policy_engine import ConfigError, Problem


def problems_of(sandbox: Sandbox, text: str) -> list[Problem]:
    path = sandbox.write("policy.jsonc", text)
    with pytest.raises(ConfigError) as caught:
        sandbox.engine(path)
    assert all(p.file == str(path) for p in caught.value.problems if p.file)
    return list(caught.value.problems)


def only(problems: list[Problem]) -> Problem:
    assert len(problems) == 1, "\n".join(map(str, problems))
    return problems[0]


CASES = [
    pytest.param(
        """
        {
          "policies": { "p": { "defaultAction": "deny" } },
          "pathProtecton": {}
        }
        """,
        (
            3,
            '"pathProtecton"',
            "pathProtecton",
            'unknown key "pathProtecton"',
            'did you mean "pathProtection"?',
        ),
        id="unknown-top-level-key",
    ),
    pytest.param(
        """
        {
          "policies": {
            "p": { "defaultAction": "deny", "rules": [ { "action": "allow", "tool": "read", "patern": "x" } ] }
          }
        }
        """,
        (3, '"patern"', "policies.p.rules[0].patern", 'unknown key "patern"', 'did you mean "pattern"?'),
        id="unknown-rule-key",
    ),
    pytest.param(
        """
        {
          "policies": {
            "p": { "defaultAction": "deny", "rules": [
              { "action": "alow", "tool": "read" }
            ] }
          }
        }
        """,
        (4, '"alow"', "policies.p.rules[0].action", 'unknown action "alow"', 'did you mean "allow"?'),
        id="unknown-action",
    ),
    pytest.param(
        """
        {
          "policies": { "strict": { "defaultAction": "deny" } },
          "locations": { "/work": "strcit" }
        }
        """,
        (3, '"strcit"', 'locations["/work"]', 'unknown policy "strcit"', 'did you mean "strict"?'),
        id="location-names-missing-policy",
    ),
    pytest.param(
        """
        {
          "policies": { "strict": { "defaultAction": "deny" } },
          "defaultPolicy": "open"
        }
        """,
        (3, '"open"', "defaultPolicy", 'unknown policy "open"', "defined policies: strict"),
        id="default-policy-missing",
    ),
    pytest.param(
        """
        {
          "policies": { "p": { "defaultAction": "allow", "rules": [
            { "action": "nudge", "tool": "read" }
          ] } }
        }
        """,
        (3, '{ "action": "nudge"', "policies.p.rules[0]", "a nudge rule needs a message", '"message"'),
        id="nudge-without-message",
    ),
    pytest.param(
        """
        {
          "policies": { "p": { "defaultAction": "nudge" } }
        }
        """,
        (2, '"nudge"', "policies.p.defaultAction", "nudge cannot be a defaultAction", "only rules carry"),
        id="nudge-as-default-action",
    ),
    pytest.param(
        """
        {
          "agentTimeout": { "maxDenies": "3", "windowSeconds": 60 }
        }
        """,
        (2, '"3"', "agentTimeout.maxDenies", "expected an integer, got a string", None),
        id="wrong-type-string-for-int",
    ),
    pytest.param(
        """
        {
          "policies": { "p": { "defaultAction": "deny", "rules": { "action": "allow" } } }
        }
        """,
        (2, '{ "action": "allow" }', "policies.p.rules", "expected an array, got an object", None),
        id="wrong-type-object-for-array",
    ),
    pytest.param(
        """
        {
          "interpreterAnalysis": { "enabled": "yes" }
        }
        """,
        (2, '"yes"', "interpreterAnalysis.enabled", "expected true or false, got a string", None),
        id="wrong-type-bool",
    ),
    pytest.param(
        """
        {
          "nudgeTimeout": { "maxNudges": 0, "windowSeconds": 60 }
        }
        """,
        (2, "0,", "nudgeTimeout.maxNudges", "must be greater than 0", None),
        id="out-of-range",
    ),
    pytest.param(
        """
        {
          "policies": { "p": { "defaultAction": "deny" } },
          "locations": { "/a": "p" },
          "locations": { "/b": "p" }
        }
        """,
        (4, '"locations": { "/b"', "locations", "duplicate key", "JSON keeps only the last"),
        id="duplicate-top-level-key",
    ),
    pytest.param(
        """
        {
          "policies": { "p": { "defaultAction": "deny", "defaultAction": "allow" } }
        }
        """,
        (2, '"defaultAction": "allow"', "policies.p.defaultAction", "duplicate key", None),
        id="duplicate-nested-key",
    ),
    pytest.param(
        """
        {
          "policies": { "p": { "defaultAction": "deny" } }
          "locations": {}
        }
        """,
        (3, '"locations"', "", "not valid JSONC", "a comma is missing between two entries"),
        id="missing-comma",
    ),
    pytest.param(
        """
        {
          "policies": { "p": { "defaultAction": "deny", "rules": [ , ] } }
        }
        """,
        (2, ", ]", "", "not valid JSONC", "a value is missing before this comma"),
        id="stray-comma",
    ),
    pytest.param(
        """
        {
          "policies": { "p": { "defaultAction": "deny", "rules": [] } }
        """,
        (3, "", "", "not valid JSONC: unexpected end of input", "the file ends early"),
        id="unclosed-brace",
    ),
    pytest.param(
        """
        {
          "policies": { "p": { "defaultAction": "deny" } },
        }}
        """,
        (3, "}", "", "not valid JSONC", None),
        id="extra-brace",
    ),
    pytest.param(
        """
        {
          "policies": { "p": { "defaultAction": "allow", "rules": [
            { "action": "allow", "tool": "bash", "pattern": "$safe-bahs" }
          ] } }
        }
        """,
        (
            3,
            '"$safe-bahs"',
            "policies.p.rules[0].pattern",
            'unknown preset "$safe-bahs"',
            'did you mean "$safe-bash"?',
        ),
        id="unknown-preset",
    ),
    pytest.param(
        """
        {
          "policies": { "p": { "defaultAction": "allow", "rules": [ "$toString" ] } }
        }
        """,
        (
            2,
            '"$toString"',
            "policies.p.rules[0]",
            'unknown preset "$toString"',
            "known presets: $file-ops, $interpreters, $project-tasks, $safe-bash",
        ),
        id="prototype-name-as-preset",
    ),
    pytest.param(
        """
        {
          "toString": {}
        }
        """,
        (2, '"toString"', "toString", 'unknown key "toString"', "known keys here"),
        id="prototype-name-as-key",
    ),
    pytest.param(
        """
        {
          "policies": { "p": { "defaultAction": "allow", "rules": [ "cat *" ] } }
        }
        """,
        (2, '"cat *"', "policies.p.rules[0]", '"cat *" is not a rule', "a rule is an object"),
        id="string-rule",
    ),
    pytest.param(
        """
        {
          "policies": { "p": { "defaultAction": "allow", "rules": [
            { "action": "deny", "tool": "read", "pattern": "rm *" }
          ] } }
        }
        """,
        (3, '"rm *"', "policies.p.rules[0].pattern", "only matches bash commands", '"tool": "bash"'),
        id="pattern-on-non-bash-tool",
    ),
    pytest.param(
        """
        {
          "policies": { "p": { "defaultAction": "allow", "rules": [
            { "action": "deny", "tool": "[rw]ead" }
          ] } }
        }
        """,
        (3, '"[rw]ead"', "policies.p.rules[0].tool", "[...] is not a wildcard", None),
        id="bracket-tool-glob",
    ),
    pytest.param(
        """
        {
          "policies": { "p": { "defaultAction": "allow", "rules": [
            { "action": "deny", "tool": "bash", "pattern": "rm *", "allowUnanalyzed": true }
          ] } }
        }
        """,
        (3, "true", "policies.p.rules[0].allowUnanalyzed", "only applies to allow rules", None),
        id="allow-unanalyzed-on-deny",
    ),
    pytest.param(
        """
        {
          "policies": { "p": { "defaultAction": "allow", "rules": [
            { "action": "allow", "tool": "read", "policy": "p" }
          ] } }
        }
        """,
        (3, '"policy"', "policies.p.rules[0].policy", 'unknown key "policy"', "approvalRules"),
        id="policy-key-outside-approvals",
    ),
    pytest.param(
        """
        {
          "policies": { "p": { "defaultAction": "deny" } },
          "locations": { "$home/x": "p" }
        }
        """,
        (3, '"$home/x"', 'locations["$home/x"]', 'unknown variable in location "$home/x"', '"$cwd"'),
        id="unknown-location-variable",
    ),
    pytest.param(
        """
        {
          "pathProtection": { "!.env.example": "allow" }
        }
        """,
        (
            2,
            '"!.env.example"',
            'pathProtection["!.env.example"]',
            "negated patterns (!) are not supported",
            None,
        ),
        id="negated-protection",
    ),
    pytest.param(
        """
        {
          "pathProtection": { ".env": "block" }
        }
        """,
        (2, '"block"', 'pathProtection[".env"]', 'unknown action "block"', "expected one of"),
        id="unknown-protection-action",
    ),
    pytest.param(
        """
        {
          "interpreterAnalysis": { "unknownAction": "allow" }
        }
        """,
        (2, '"allow"', "interpreterAnalysis.unknownAction", 'unknownAction must be "ask" or "deny"', None),
        id="unknown-action-allow",
    ),
    pytest.param(
        """
        {
          "agentTimeout": { "maxDenies": 3, "windowSeconds": Infinity }
        }
        """,
        (2, "Infinity", "agentTimeout.windowSeconds", "must be at most 86400, got inf", None),
        id="infinite-window",
    ),
    pytest.param(
        """
        {
          "nudgeTimeout": { "maxNudges": 3, "windowSeconds": 90000 }
        }
        """,
        (2, "90000", "nudgeTimeout.windowSeconds", "must be at most 86400, got 90000", None),
        id="window-longer-than-a-day",
    ),
    pytest.param(
        """
        {
          "policies": { "p": { "rules": [] } }
        }
        """,
        (2, '"p"', "policies.p", 'missing required key "defaultAction"', None),
        id="missing-default-action",
    ),
    pytest.param(
        """
        [ "not", "an", "object" ]
        """,
        (1, '[ "not"', "", "expected a JSON object at the top level, got an array", None),
        id="top-level-array",
    ),
    pytest.param("  \n", (1, "", "", "the file is empty", "{}"), id="empty-file"),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_error_names_line_column_key_and_hint(sandbox: Sandbox, text: str, expected: tuple) -> None:
    line, pointed, key, message, hint = expected
    problem = only(problems_of(sandbox, text))
    assert (problem.line, problem.key) == (line, key), str(problem)
    # the column points at the offending text itself
    source_line = textwrap.dedent(text).lstrip("\n").split("\n")[line - 1]
    assert source_line[problem.column - 1 :].startswith(pointed), (str(problem), source_line)
    assert message in problem.message, str(problem)
    if hint is not None:
        assert problem.hint is not None and hint in problem.hint, str(problem)


def test_every_problem_is_reported_at_once(sandbox: Sandbox) -> None:
    problems = problems_of(
        sandbox,
        """
        {
          "policies": { "p": { "defaultAction": "nudge", "rules": [ { "action": "deny", "tol": "x" } ] } },
          "locations": { "/a": "q" },
          "cycleKey": 5
        }
        """,
    )
    keys = {p.key for p in problems}
    assert {
        "policies.p.defaultAction",
        "policies.p.rules[0].tol",
        "policies.p.rules[0]",  # tool is missing
        'locations["/a"]',
        "cycleKey",
    } <= keys
    assert [p.line for p in problems] == sorted(p.line for p in problems)


def test_error_text_is_file_line_column_key_message_hint(sandbox: Sandbox) -> None:
    path = sandbox.write("policy.jsonc", '{ "polices": {} }')
    with pytest.raises(ConfigError) as caught:
        sandbox.engine(path)
    assert str(caught.value.problems[0]) == (
        f'{path}:1:3: polices: unknown key "polices"\n    hint: did you mean "policies"?'
    )


def test_a_missing_config_file_is_an_error(sandbox: Sandbox) -> None:
    with pytest.raises(ConfigError, match="file not found"):
        sandbox.engine(sandbox.root / "nope.jsonc")


def test_a_non_utf8_file_is_an_error(sandbox: Sandbox) -> None:
    path = sandbox.root / "latin1.jsonc"
    path.write_bytes(b'{ "policies": { "caf\xe9": { "defaultAction": "deny" } } }')
    with pytest.raises(ConfigError, match="not UTF-8"):
        sandbox.engine(path)


def test_deep_nesting_is_an_error_not_a_crash(sandbox: Sandbox) -> None:
    path = sandbox.write("deep.jsonc", '{ "x": ' + "[" * 5000 + "]" * 5000 + " }")
    with pytest.raises(ConfigError):
        sandbox.engine(path)


def test_cli_exits_3_with_the_problems_and_never_allows(sandbox: Sandbox) -> None:
    path = sandbox.write("policy.jsonc", '{ "policies": { "p": { "defaultAction": "alow" } } }')
    result = sandbox.run("check", "--config", str(path), "ls")
    assert result.returncode == 3
    assert f"{path}:1:41: policies.p.defaultAction" in result.stderr
    assert 'did you mean "allow"?' in result.stderr
    assert "allow:" not in result.stdout
    as_json = sandbox.run("check", "--json", "--config", str(path), "ls")
    assert as_json.returncode == 3
    assert '"error": "config"' in as_json.stdout


def test_an_invalid_file_in_a_later_layer_fails_the_whole_load(sandbox: Sandbox) -> None:
    sandbox.write(
        sandbox.user_config, '{ "policies": { "p": { "defaultAction": "allow" } }, "defaultPolicy": "p" }'
    )
    project = sandbox.project("proj", '{ "locations": { "$cwd": "missing" } }')
    with pytest.raises(ConfigError, match='unknown policy "missing"'):
        sandbox.engine(cwd=project)


@pytest.mark.parametrize(
    ("separator", "name"),
    [("\u2028", "U+2028"), ("\u2029", "U+2029")],
)
def test_a_line_break_a_reviewer_cannot_see_is_an_error(sandbox: Sandbox, separator: str, name: str) -> None:
    """Red-team round 3: after `// keep strict` + U+2028, JSON5 reads the rest of the comment as a
    key, which a reviewer sees as part of the comment. (A lone CR is read as the line break editors
    show: then the repeated key is a duplicate.)"""
    text = (
        '{\n  "policies": { "p": { defaultAction: "ask", // keep strict'
        + separator
        + 'defaultAction: "allow"\n  } },\n  "defaultPolicy": "p",\n}\n'
    )
    path = sandbox.root / "policy.jsonc"
    path.write_bytes(text.encode("utf-8"))  # exactly these characters, no newline translation
    with pytest.raises(ConfigError) as caught:
        sandbox.engine(path)
    problem = only(list(caught.value.problems))
    assert (problem.line, problem.column) == (2, 60)
    assert name in problem.message and "line break" in problem.message


def test_duplicate_keys_are_found_even_where_positions_are_not(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    from policy_engine.config import jsonc

    def gives_up(text: str) -> None:
        raise ValueError("a construct the scanner does not follow")

    monkeypatch.setattr(jsonc, "_positions", gives_up)
    problem = only(
        problems_of(sandbox, '{ "policies": {}, "policies": { "p": { "defaultAction": "allow" } } }')
    )
    assert "duplicate key" in problem.message
    assert problem.line is None


def test_a_lone_carriage_return_is_the_line_break_editors_show(sandbox: Sandbox) -> None:
    text = (
        '{\n  "policies": { "p": { defaultAction: "ask", // keep strict\rdefaultAction: "allow"\n  } },\n}\n'
    )
    path = sandbox.root / "policy.jsonc"
    path.write_bytes(text.encode("utf-8"))
    with pytest.raises(ConfigError) as caught:
        sandbox.engine(path)
    problem = only(list(caught.value.problems))
    assert problem.line == 3 and "duplicate key" in problem.message


@pytest.mark.parametrize("value", ["5", '"other"', "true"])
def test_extends_says_what_it_takes(sandbox: Sandbox, value: str) -> None:
    problem = only(problems_of(sandbox, f'{{\n  "extends": {value}\n}}\n'))
    assert problem.key == "extends" and problem.line == 2
    assert 'extends must be "default" or null' in problem.message
    assert "action" not in problem.message and "allow, nudge" not in (problem.hint or "")
