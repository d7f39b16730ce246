"""Inline programs given to interpreters, judged through the whole engine: the corpus's coverage,
where the grammars are loaded, interpreterAnalysis (off, limits, layers) and --explain."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from typing import Any

import json5
import pytest
from helpers import REPO, Sandbox, bash

from policy_engine import Action

CORPUS = REPO / "tests" / "corpus" / "inline-code.jsonc"
DANGEROUS = "python3 -c \"import shutil; shutil.rmtree('/home/me')\""


def corpus_cases() -> list[dict[str, Any]]:
    return list(json5.loads(CORPUS.read_text(encoding="utf-8"))["cases"])


def test_the_corpus_covers_every_family_every_gap_and_harmless_programs() -> None:
    cases = corpus_cases()
    assert len(cases) >= 150
    families = Counter(case["family"] for case in cases)
    assert families["harmless"] >= 40
    expected = {
        "python-open", "python-pathlib", "python-os", "python-chdir", "python-shutil", "python-exec",
        "python-network", "python-flow", "python-stdin", "python-wrapper", "js-fs", "js-network", "js-chdir", "js-flow",
        "js-exec", "js-stdin", "bun", "deno", "other", "shell-stdin",
    }  # fmt: skip
    assert expected <= set(families), expected - set(families)
    gaps = {case.get("gap") for case in cases}
    assert {f"W-INT-{n}" for n in range(1, 8)} <= gaps
    harmless = [case for case in cases if case["family"] == "harmless"]
    assert all(case.get("expect") == "allow" for case in harmless)  # allowed means: no doubt was raised


ALLOW_PYTHON = """
    {
      "policies": { "p": { "defaultAction": "ask", "rules": [
        { "action": "allow", "tool": "bash", "pattern": "python3 *" },
        { "action": "deny", "tool": "write" },
      ] } },
      "defaultPolicy": "p",
      %s
    }
"""


def decide(sandbox: Sandbox, settings: str, command: str) -> Action:
    config = sandbox.write("policy.jsonc", ALLOW_PYTHON % settings)
    return sandbox.engine(config).evaluate(bash(command, sandbox.root)).action


@pytest.mark.parametrize(
    "settings",
    ['"interpreterAnalysis": null', '"interpreterAnalysis": { "enabled": false }'],
)
def test_analysis_off_judges_interpreters_by_their_rules_alone(sandbox: Sandbox, settings: str) -> None:
    assert decide(sandbox, settings, DANGEROUS) is Action.ALLOW
    assert decide(sandbox, settings, "python3 script.py") is Action.ALLOW
    assert decide(sandbox, settings, "python3 -m some_module") is Action.ALLOW
    assert decide(sandbox, settings, "node -e 'eval(process.argv[1])'") is Action.ASK  # no rule allows node
    # Shell code is still read: bash -c is not an interpreter of another language.
    assert decide(sandbox, settings, "bash -c 'python3 -c 1; git push'") is Action.ASK


def test_analysis_on_finds_what_the_rules_alone_would_allow(sandbox: Sandbox) -> None:
    assert decide(sandbox, '"interpreterAnalysis": { "enabled": true }', DANGEROUS) is Action.DENY
    unknown_deny = '"interpreterAnalysis": { "unknownAction": "deny" }'
    assert decide(sandbox, unknown_deny, "python3 -c 'import numpy'") is Action.DENY
    assert decide(sandbox, unknown_deny, "python3 -c 'print(1)'") is Action.ALLOW


def test_limits_make_a_doubt(sandbox: Sandbox) -> None:
    program = "python3 -c '" + "x = 1\n" * 50 + "'"
    assert decide(sandbox, '"interpreterAnalysis": { "maxSourceBytes": 100 }', program) is Action.ASK
    assert decide(sandbox, '"interpreterAnalysis": { "maxNodes": 20 }', program) is Action.ASK
    assert decide(sandbox, '"interpreterAnalysis": {}', program) is Action.ALLOW
    nested = "bash -c \"bash -c 'python3 -c 1'\""
    assert decide(sandbox, '"interpreterAnalysis": { "maxDepth": 1 }', nested) is Action.ASK


def test_a_managed_layer_that_analyses_wins_over_a_user_who_does_not(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.managed_config, '{ "interpreterAnalysis": { "unknownAction": "deny" } }')
    sandbox.write(sandbox.user_config, ALLOW_PYTHON % '"interpreterAnalysis": null')
    engine = sandbox.engine()
    assert engine.evaluate(bash("python3 -c 'import numpy'", sandbox.root)).action is Action.DENY


def test_grammars_load_only_for_the_atoms_that_need_them(sandbox: Sandbox) -> None:
    script = """
import json, sys
from policy_engine import Engine, ToolCall
engine = Engine(sys.argv[1], cwd=sys.argv[2])
def loaded():
    return sorted(m for m in sys.modules if m.startswith("tree_sitter_") or m in ANALYSES)
ANALYSES = ("policy_engine.interpreters.python", "policy_engine.interpreters.javascript")
engine.evaluate(ToolCall("bash", {"command": "git status"}, sys.argv[2]))
first = loaded()
engine.evaluate(ToolCall("bash", {"command": "python3 -c 'print(1)'"}, sys.argv[2]))
second = loaded()
engine.evaluate(ToolCall("bash", {"command": "node -e 'console.log(1)'"}, sys.argv[2]))
print(json.dumps([first, second, loaded()]))
"""
    config = sandbox.write("policy.jsonc", ALLOW_PYTHON % '"interpreterAnalysis": {}')
    result = subprocess.run(
        [sys.executable, "-c", script, str(config), str(sandbox.root)],
        capture_output=True, text=True, env=sandbox.env, check=True,
    )  # fmt: skip
    first, second, third = json.loads(result.stdout)
    assert first == []  # a line of literal words is judged without parsing (shell/analysis.py)
    assert "tree_sitter_bash._binding" in second
    assert "tree_sitter_python._binding" in second and "policy_engine.interpreters.python" in second
    assert not any("javascript" in name for name in second)
    assert "tree_sitter_javascript._binding" in third and "tree_sitter_typescript._binding" not in third


def test_explain_lists_each_effect_with_its_line(sandbox: Sandbox) -> None:
    program = "python3 - <<'EOF'\nimport os\n\nos.remove('/etc/x')\nopen('notes.txt', 'w')\nEOF"
    config = sandbox.write("policy.jsonc", ALLOW_PYTHON % '"interpreterAnalysis": {}')
    result = sandbox.run("check", "--config", str(config), "--explain", program)
    assert "delete  /etc/x  (Python line 3: os.remove)" in result.stdout
    assert f"write   {sandbox.root}/notes.txt  (Python line 4: open(mode 'w'))" in result.stdout
    data = sandbox.check_json("--config", str(config), program)
    accesses = data["trace"]["atoms"][0]["accesses"]
    assert {"path": "/etc/x", "sense": "delete", "via": "Python line 3: os.remove"} in accesses


def test_a_doubt_names_the_line_of_the_program(sandbox: Sandbox) -> None:
    config = sandbox.write("policy.jsonc", ALLOW_PYTHON % '"interpreterAnalysis": {}')
    program = "python3 - <<'EOF'\nprint(1)\neval(input())\nEOF"
    decision = sandbox.engine(config).evaluate(bash(program, sandbox.root))
    assert decision.action is Action.ASK
    assert "in the Python program, line 2:" in decision.reason
