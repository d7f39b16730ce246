"""The adversarial corpus: tests/corpus/*.jsonc, one file per class of bash command, each case a
command, a working directory and the verdict it must get under the file's policy.

A case says ``"expect": ACTION`` (exactly) or ``"atLeast": ACTION`` (that or stricter: a bypass
must be judged at least as strictly as its plain form). ``"files"`` are created under a temporary
directory first, for cases that depend on what exists (globs, symlinks), and ``"contents"`` files
with text (a document, a configuration, a ``.git`` file); ``{tmp}`` in a command or
cwd stands for that directory. ``"decidedBy"`` is text the decision's reason must hold: what refused
it, for a case that matters for why. ``"xfail"`` marks a known gap, with its reason.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import json5
import pytest
from helpers import REPO

from policy_engine import Action, Engine, ToolCall

CORPUS = REPO / "tests" / "corpus"
HOME = "/home/me"


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


@pytest.fixture(scope="module")
def cache_directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("corpus-cache")


def test_the_corpus_is_large_and_covers_every_bypass_class() -> None:
    cases = [c.values[0] for c in CASES]
    assert len(cases) >= 300
    classes = {c.get("class") for c in cases if c.get("class")}
    assert set(range(1, 41)) <= classes, sorted(set(range(1, 41)) - classes)
    assert any(c.get("expect") == "allow" for c in cases)  # must-allow controls are there too


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
