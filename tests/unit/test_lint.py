"""`policy lint`: every error and warning id on a minimal file, lintIgnore, the output formats and
the exit statuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import EXAMPLES, Sandbox

from policy_engine.policyfiles.lint import RULES, lint


def findings(sandbox: Sandbox, text: str, name: str = "policy.jsonc") -> list[tuple[str, int | None]]:
    path = sandbox.write(name, text)
    return [(f.id, f.line) for f in lint([str(path)], sandbox.env)]


BASE = '"defaultPolicy": "p", '


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{ "policies": { "p": { "defaultAction": "alow" } } }', [("PE001", 1)]),
        ("{ policies: ", [("PE001", 1)]),
        (
            '{\n "policies": { "p": { "defaultAction": "ask" } }, '
            + BASE
            + '\n "tests": [\n  { "command": "ls", "expect": "deny" }\n ]\n}',
            [("PE002", 4)],
        ),
        (
            '{\n "policies": { "p": { "defaultAction": "ask", "rules": [\n'
            '  { "action": "allow", "tool": "bash", "pattern": "git push*" },\n'
            '  { "action": "deny", "tool": "bash", "pattern": "git push*" }\n ] } }, ' + BASE + "\n}",
            [("PE101", 4)],
        ),
        (
            '{\n "policies": { "p": { "defaultAction": "ask", "rules": [\n'
            '  { "action": "allow", "tool": "bash", "pattern": "git *" },\n'
            '  { "action": "deny", "tool": "bash", "pattern": "git ?ush" }\n ] } }, ' + BASE + "\n}",
            [("PE102", 4)],
        ),
        (
            '{\n "policies": { "p": { "defaultAction": "ask", "rules": [\n'
            '  { "action": "deny", "tool": "bash", "pattern": "rm *" },\n'
            '  { "action": "deny", "tool": "bash", "pattern": "rm *" }\n ] } }, ' + BASE + "\n}",
            [("PE103", 4)],
        ),
        (
            '{\n "policies": { "p": { "defaultAction": "ask", "rules": [\n'
            '  { "action": "allow", "tool": "*", "pattern": "ls *" }\n ] } }, ' + BASE + "\n}",
            [("PE104", 3)],
        ),
        (
            '{\n "policies": { "p": { "defaultAction": "ask", "rules": [\n'
            '  { "action": "deny", "tool": "wirte" }\n ] } }, ' + BASE + "\n}",
            [("PE105", 3)],
        ),
        (
            '{\n "policies": { "p": { "defaultAction": "ask" } }, '
            + BASE
            + '\n "locations": { "/nowhere/at/all": "p" }\n}',
            [("PE106", 3)],
        ),
        (
            '{\n "policies": { "p": { "defaultAction": "ask" },\n "q": { "defaultAction": "deny" } }, '
            + BASE
            + "\n}",
            [("PE107", 3)],
        ),
        (
            '{\n "extends": null,\n "policies": { "p": { "defaultAction": "ask" } },\n "locations": { "$cwd": "p" }\n}',
            [("PE113", 2), ("PE108", 4)],
        ),
        (  # without "extends": null, the embedded default judges what no location covers
            '{\n "policies": { "p": { "defaultAction": "ask" } },\n "locations": { "$cwd": "p" }\n}',
            [],
        ),
        (
            '{\n "policies": { "p": { "defaultAction": "ask" } }, '
            + BASE
            + '\n "pathProtection": { "~/.ssh/": "allow" }\n}',
            [("PE113", 3)],
        ),
        (
            '{\n "policies": { "p": { "defaultAction": "ask" },\n "project": { "defaultAction": "allow" } }, '
            + BASE
            + "\n}",
            [("PE114", 3)],
        ),
        (
            '{\n "policies": { "p": { "defaultAction": "ask", "rules": [\n'
            '  { "action": "deny", "tool": "bash", "pattern": "git push --forse*" },\n'
            '  { "action": "deny", "tool": "bash", "pattern": "frobnicate -rf *" },\n'
            '  { "action": "deny", "tool": "bash", "pattern": "git push --force*" }\n ] } }, ' + BASE + "\n}",
            [("PE115", 3), ("PE115", 4)],
        ),
        (
            '{\n "policies": { "p": { "defaultAction": "ask", "rules": [\n'
            '  { "action": "allow", "tool": "bash", "pattern": "ssh *" }\n ] } }, ' + BASE + "\n}",
            [("PE109", 3)],
        ),
        (
            '{\n "policies": { "p": { "defaultAction": "ask", "rules": [\n'
            '  { "action": "deny", "tool": "bash", "pattern": "* > *" }\n ] } }, ' + BASE + "\n}",
            [("PE110", 3)],
        ),
        (
            '{\n "policies": { "p": { "defaultAction": "ask", "rules": [\n'
            '  { "action": "allow", "tool": "bash", "pattern": "python3 *", "allowUnanalyzed": true }\n ] } }, '
            + BASE
            + "\n}",
            [("PE111", 3)],
        ),
        (
            '{\n "policies": { "p": { "defaultAction": "ask" } }, '
            + BASE
            + '\n "pathProtection": { "secrets/*.key": "deny" }\n}',
            [("PE112", 3)],
        ),
        ('{\n "policies": { "p": { "defaultAction": "ask", "rules": ["$safe-bash"] } }, ' + BASE + "\n}", []),
    ],
    ids=lambda value: value[0][0] if isinstance(value, list) and value else None,
)
def test_each_finding(sandbox: Sandbox, text: str, expected: list[tuple[str, int]]) -> None:
    assert findings(sandbox, text) == expected


def test_every_id_is_covered() -> None:
    source = Path(__file__).read_text()
    assert all(f'("{id_}",' in source for id_ in RULES)


def test_lint_ignore_per_rule_and_per_file(sandbox: Sandbox) -> None:
    rules = (
        '"rules": [ { "action": "deny", "tool": "wirte", "lintIgnore": ["PE105"] },'
        ' { "action": "allow", "tool": "bash", "pattern": "ssh *" } ]'
    )
    base = BASE[:-2]
    policy = '{ "policies": { "p": { "defaultAction": "ask", ' + rules + " } }, " + base + " }"
    assert findings(sandbox, policy) == [("PE109", 1)]
    whole = '{ "lintIgnore": ["PE109"], ' + policy[1:]
    assert findings(sandbox, whole) == []
    bad = sandbox.write("bad.jsonc", '{ "lintIgnore": ["X1"] }')
    assert [f.message for f in lint([str(bad)], sandbox.env)] == [
        "lintIgnore[0]: 'X1' is not a lint id such as PE101"
    ]


def test_files_linted_together_share_their_settings(sandbox: Sandbox) -> None:
    first = sandbox.write(
        "global.jsonc", '{ "policies": { "strict": { "defaultAction": "deny" } }, "defaultPolicy": "strict" }'
    )
    second = sandbox.write(
        "project.jsonc",
        '{ "policies": { "s2": { "defaultAction": "deny" }, "s3": { "defaultAction": "ask" } }, "locations": { "/tmp": "s2" } }',
    )
    found = [(f.id, f.message) for f in lint([str(first), str(second)], sandbox.env)]
    assert found == [("PE107", 'policy "s3" is not used')]  # the other file's defaultPolicy covers the rest
    alone = [f.id for f in lint([str(second)], sandbox.env)]
    assert sorted(alone) == ["PE107"]  # what no location covers, the embedded default judges
    dropped = sandbox.write("dropped.jsonc", '{ "extends": null, ' + second.read_text()[1:])
    assert sorted(f.id for f in lint([str(first), str(dropped)], sandbox.env)) == ["PE107", "PE113"]
    assert sorted(f.id for f in lint([str(dropped)], sandbox.env)) == ["PE107", "PE108", "PE113"]


WARNING = '{\n "policies": { "p": { "defaultAction": "ask", "rules": [\n  { "action": "deny", "tool": "wirte" }\n ] } }, "defaultPolicy": "p"\n}\n'


def test_exit_statuses(sandbox: Sandbox) -> None:
    clean = sandbox.write(
        "clean.jsonc", '{ "policies": { "p": { "defaultAction": "ask" } }, "defaultPolicy": "p" }'
    )
    warned = sandbox.write("warned.jsonc", WARNING)
    broken = sandbox.write("broken.jsonc", "{ nope")
    assert sandbox.run("lint", str(clean)).returncode == 0
    assert sandbox.run("lint", str(warned)).returncode == 0
    assert sandbox.run("lint", "--strict", str(warned)).returncode == 1
    result = sandbox.run("lint", str(broken))
    assert result.returncode == 1 and f"{broken}:1:" in result.stdout and "PE001 error" in result.stdout


def test_text_json_github_formats(sandbox: Sandbox) -> None:
    warned = sandbox.write("warned.jsonc", WARNING)
    text = sandbox.run("lint", str(warned)).stdout
    assert text.splitlines()[0] == f'{warned}:3:3: PE105 warning: no known agent has a tool named "wirte"'
    assert text.splitlines()[1] == '    hint: did you mean "write"?'
    assert text.rstrip().endswith("1 files: 0 errors, 1 warnings, 0 notes")
    (item,) = json.loads(sandbox.run("lint", "--format", "json", str(warned)).stdout)
    assert (item["id"], item["severity"], item["line"], item["column"]) == ("PE105", "warning", 3, 3)
    github = sandbox.run("lint", "--format", "github", str(warned)).stdout.strip()
    assert (
        github
        == f'::warning file={warned},line=3,col=3,title=PE105::no known agent has a tool named "wirte" (did you mean "write"?)'
    )


def test_sarif(sandbox: Sandbox) -> None:
    warned = sandbox.write("warned.jsonc", WARNING)
    broken = sandbox.write("broken.jsonc", '{ "policies": { "p": { "defaultAction": "alow" } } }')
    sarif = json.loads(
        sandbox.run("lint", "--format", "sarif", str(warned), str(broken), cwd=sandbox.root).stdout
    )
    assert sarif["version"] == "2.1.0" and sarif["$schema"].endswith("sarif-2.1.0.json")
    (run,) = sarif["runs"]
    assert run["tool"]["driver"]["name"] == "policy-engine"
    assert {rule["id"] for rule in run["tool"]["driver"]["rules"]} == set(RULES)
    results = {result["ruleId"]: result for result in run["results"]}
    assert set(results) == {"PE001", "PE105"}
    assert results["PE001"]["level"] == "error" and results["PE105"]["level"] == "warning"
    location = results["PE105"]["locations"][0]["physicalLocation"]
    assert location == {
        "artifactLocation": {"uri": "warned.jsonc"},
        "region": {"startLine": 3, "startColumn": 3},
    }
    assert all(result["message"]["text"] for result in run["results"])


def test_every_example_lints_clean(sandbox: Sandbox) -> None:
    files = [*sorted(EXAMPLES.glob("*.jsonc")), *sorted((EXAMPLES / "layered").glob("*.jsonc"))]
    result = sandbox.run("lint", "--strict", *map(str, files))
    assert result.returncode == 0, result.stdout
    assert " 0 errors, 0 warnings" in result.stdout


def test_the_pre_commit_hook_and_the_ci_example_run_policy_lint() -> None:
    from helpers import REPO

    hook = (REPO / ".pre-commit-hooks.yaml").read_text()
    assert "- id: policy-lint" in hook and "entry: policy lint" in hook
    workflow = (EXAMPLES / "ci" / "policy-lint.yml").read_text()
    assert "policy lint --strict --format sarif" in workflow and "upload-sarif" in workflow
