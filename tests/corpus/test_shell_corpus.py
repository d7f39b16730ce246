"""The adversarial corpus: tests/corpus/*.jsonc, one file per class of bash command, each case a
command, a working directory and the verdict it must get under the file's policy.

A case says ``"expect": ACTION`` (exactly) or ``"atLeast": ACTION`` (that or stricter: a bypass
must be judged at least as strictly as its plain form). ``"files"`` are created under a temporary
directory first, for cases that depend on what exists (globs, symlinks), and ``"contents"`` files
with text (a document, a configuration, a ``.git`` file); ``{tmp}`` in a command or
cwd stands for that directory. ``"xfail"`` marks a known gap, with its reason.

Why a case is refused matters as much as that it is: ``rm -rf ~`` asked only because of an unrelated
doubt passes ``"atLeast": "ask"`` while the rule that should deny it has stopped working. A case
pins what decides it with ``"by"``, checked against the decisive verdict (``Decision.decisive``):

- ``{"kind": "rule", "rule": PATTERN}``: a rule whose pattern, as its policy writes it, is PATTERN
  (``"curl *"``; a preset's rule by the pattern it expands to, ``"cat *"``); a rule without a
  pattern, one for a tool, by its label (``"deny write"``). ``"approval"`` names an approval so;
- ``{"kind": "protection", "protection": PATTERN}``: the pathProtection pattern as written
  (``"~/.ssh/"``, ``".env*"``);
- ``{"kind": "doubt", "doubt": TEXT}``: a doubt, what the analysis could not prove, whose text holds
  TEXT (a distinctive part of it: ``"a shell reads commands from a pipe"``);
- ``{"kind": KIND}`` alone, for any kind (``default``: no rule matched, the policy's defaultAction;
  ``unrestricted``, ``session``), or where what decides depends on the machine: ``rm -rf /`` walks
  into whichever protected paths this machine has under / (``/proc/*/environ``, the engine's own
  files), and self-protection's patterns are this machine's paths.

``{tmp}`` in a pin's text stands for the temporary directory too. The older ``"decidedBy"`` is text
the decision's reason must hold.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import json5
import pytest
from helpers import REPO

from policy_engine import Action, Decision, Engine, ToolCall, Verdict, VerdictKind

CORPUS = REPO / "tests" / "corpus"
HOME = "/home/me"

# What a case may say (a misspelt key would be ignored: a pin that checks nothing).
CASE_KEYS = frozenset(
    (
        "class",
        "command",
        "config",
        "contents",
        "cwd",
        "decidedBy",
        "by",
        "expect",
        "atLeast",
        "family",
        "files",
        "gap",
        "symlinks",
        "why",
        "xfail",
    )
)

# The key that names what decided, beside "kind", for each kind of decisive verdict (None: the kind
# alone says it).
NAMED_BY: dict[str, str | None] = {
    "rule": "rule",
    "approval": "rule",
    "protection": "protection",
    "doubt": "doubt",
    "default": None,
    "unrestricted": None,
    "session": None,
}


def load_cases() -> list[Any]:
    params = []
    for path in sorted(CORPUS.glob("*.jsonc")):
        data = json5.loads(path.read_text(encoding="utf-8"))
        for index, case in enumerate(data["cases"]):
            case = {"config": data["config"], "cwd": data.get("cwd", "/p"), **case}
            marks = [pytest.mark.xfail(reason=case["xfail"], strict=True)] if case.get("xfail") else []
            params.append(pytest.param(case, id=f"{path.stem}[{index}] {case['command'][:50]}", marks=marks))
    return params


CASES = load_cases()
_engines: dict[tuple[str, str], Engine] = {}


def engine_for(config: str, cache: Path) -> Engine:
    key = (config, str(cache))
    if key not in _engines:
        env = {
            "HOME": HOME,
            "POLICY_ENGINE_MANAGED_CONFIG": "",
            "XDG_CACHE_HOME": str(cache),
            "XDG_DATA_HOME": str(cache / "data"),
            "PATH": os.environ.get("PATH", ""),
            # The corpus pins what the analysis and the rules decide, the same on every machine:
            # what a sandbox changes of it is test_sandbox.py's and the agent workload's.
            "POLICY_ENGINE_SANDBOX": "0",
        }
        _engines[key] = Engine(str(CORPUS / "configs" / f"{config}.jsonc"), cwd="/p", env=env)
    return _engines[key]


def decider(verdict: Verdict) -> str | None:
    """What decided ``verdict``, as a ``"by"`` pin names it: a rule's pattern (its label when it has
    none), a protection's pattern, a doubt's text; None for the other kinds."""
    if verdict.kind in (VerdictKind.RULE, VerdictKind.APPROVAL) and verdict.rule is not None:
        return verdict.rule.pattern if verdict.rule.pattern is not None else verdict.rule.label()
    if verdict.kind in (VerdictKind.PROTECTION, VerdictKind.DOUBT):
        return verdict.detail
    return None


def check_pin(by: dict[str, str], decision: Decision, tmp: str) -> None:
    """Assert that the decisive verdict is what ``by`` pins, showing what decided instead."""
    verdict = decision.decisive
    if verdict is None:
        decided = "nothing restricted the call"
    else:
        origin = f", {verdict.origin}" if verdict.origin is not None else ""
        where = f"{verdict.action} at {verdict.target}{origin}"
        decided = f"decided by {verdict.kind} {decider(verdict)!r} ({where})"
    message = f"pinned {by}, but {decided}; the reason: {decision.reason}"
    assert verdict is not None and verdict.kind == by["kind"], message
    key = NAMED_BY[by["kind"]]
    if key is not None and key in by:
        wanted, found = by[key].replace("{tmp}", tmp), decider(verdict) or ""
        assert (wanted in found) if key == "doubt" else (wanted == found), message


@pytest.fixture(scope="module")
def cache_directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("corpus-cache")


def test_the_corpus_is_large_and_covers_every_bypass_class() -> None:
    cases = [c.values[0] for c in CASES]
    assert len(cases) >= 300
    classes = {c.get("class") for c in cases if c.get("class")}
    assert set(range(1, 41)) <= classes, sorted(set(range(1, 41)) - classes)
    assert any(c.get("expect") == "allow" for c in cases)  # must-allow controls are there too


def test_every_case_and_pin_is_spelt_as_the_corpus_reads_it() -> None:
    """A key or a kind misspelt in the data would make a check vacuous: every case uses known keys
    and one of expect/atLeast, every pin a known kind and, beside it, only the key of that kind."""
    assert set(NAMED_BY) == {str(kind) for kind in VerdictKind}
    for param in CASES:
        case = param.values[0]
        assert set(case) <= CASE_KEYS, (param.id, sorted(set(case) - CASE_KEYS))
        assert ("expect" in case) != ("atLeast" in case), param.id
        if "by" not in case:
            continue
        by = case["by"]
        assert isinstance(by, dict) and by.get("kind") in NAMED_BY, (param.id, by)
        named = NAMED_BY[by["kind"]]
        assert set(by) <= {"kind", named}, (param.id, by)
        assert all(isinstance(by[key], str) and by[key] for key in by), (param.id, by)


@pytest.mark.parametrize("case", CASES)
def test_case(case: dict[str, Any], cache_directory: Path, tmp_path: Path) -> None:
    for name in case.get("files", []):
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.touch()
    for name, text in case.get("contents", {}).items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text.replace("{tmp}", str(tmp_path)))
    for link, destination in case.get("symlinks", {}).items():
        (tmp_path / link).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(destination.replace("{tmp}", str(tmp_path)), tmp_path / link)
    command = case["command"].replace("{tmp}", str(tmp_path))
    cwd = case["cwd"].replace("{tmp}", str(tmp_path))
    decision = engine_for(case["config"], cache_directory).evaluate(
        ToolCall("bash", {"command": command}, cwd)
    )
    if "expect" in case:
        assert decision.action is Action.parse(case["expect"]), decision.reason
    else:
        assert decision.action >= Action.parse(case["atLeast"]), decision.reason
    if "decidedBy" in case:
        assert case["decidedBy"] in decision.reason, decision.reason
    if "by" in case:
        check_pin(case["by"], decision, str(tmp_path))
