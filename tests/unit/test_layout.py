"""The package's layout: imports run one way, down the data flow; the tree is what pyproject ships.

A module may import modules of its own stage or of a stage below it, never above. Imports under
``if TYPE_CHECKING:`` are left out: they name types for the checker and run nothing.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest
from helpers import REPO

import policy_engine

PACKAGE = REPO / "policy_engine"

# The stages, lowest first: cli -> hook -> policyfiles -> engine -> decisionlog -> explain ->
# sandbox -> decide -> session -> analysis -> config -> agents -> the base modules.
STAGES: tuple[tuple[str, ...], ...] = (
    ("model", "record", "errors", "paths", "globs", "version", "fileio", "trees"),
    ("agents",),
    ("config",),
    ("analysis",),
    ("session",),
    ("decide",),
    ("sandbox",),
    ("explain",),
    ("decisionlog",),
    ("engine",),
    ("policyfiles",),
    ("hook",),
    # The entry point: ``policy`` (and the script the installed hooks run) hands a hook call to the
    # daemon or runs the CLI, which runs a hook call the daemon cannot take.
    ("cli", "client"),
    ("__init__", "__main__"),
)
RANK = {name: rank for rank, names in enumerate(STAGES) for name in names}


def _stage(module: str) -> str:
    """``policy_engine.decide.rules`` -> ``decide``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every package import that runs (at import or when a function is called)."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if target == "policy_engine":  # from policy_engine import x: x is the module
                found.extend((node.lineno, f"policy_engine.{alias.name}") for alias in node.names)
            elif target.startswith("policy_engine."):
                found.append((node.lineno, target))
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, a.name) for a in node.names if a.name.startswith("policy_engine."))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_module_has_a_stage() -> None:
    unplaced = sorted({_stage(_module_name(path)) for path in _modules()} - RANK.keys())
    assert not unplaced, f"give these a stage in STAGES: {unplaced}"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_run_down_the_data_flow(path: Path) -> None:
    own = _stage(_module_name(path))
    upward = [
        f"line {line}: {target} ({_stage(target)} is above {own})"
        for line, target in _imports(path)
        if RANK.get(_stage(target), -1) > RANK[own]
    ]
    assert not upward, "\n".join(upward)


def test_the_check_sees_an_upward_import(tmp_path: Path) -> None:
    """The test above can fail: a decide module importing the engine is caught, a typing-only one not."""
    probe = PACKAGE / "decide" / "_layout_probe.py"
    probe.write_text(
        "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from ..hook import call\n"
        "def f():\n    from ..engine import Engine\n",
        encoding="utf-8",
    )
    try:
        assert _imports(probe) == [(5, "policy_engine.engine")]
    finally:
        probe.unlink()


def test_at_most_a_dozen_modules_at_the_top() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 12, top


def test_no_module_is_over_1200_lines() -> None:
    long = {
        str(p.relative_to(PACKAGE)): n for p in _modules() if (n := len(p.read_text().splitlines())) > 1200
    }
    assert not long, long


def test_pyproject_ships_every_package() -> None:
    """pyproject lists its packages (the presets are mapped from the top-level presets/): a
    package missing from the list would be missing from the wheel."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    tree = {_module_name(p) for p in PACKAGE.rglob("__init__.py") if "__pycache__" not in p.parts}
    assert set(config["packages"]) == tree | {"policy_engine.presets", "policy_engine.pi_extension"}
    assert config["package-dir"] == {
        "policy_engine.presets": "presets",
        "policy_engine.pi_extension": "integrations/pi",
    }
    assert (REPO / "presets" / "default.jsonc").is_file()


def test_public_api_is_all() -> None:
    """``__all__`` names the public API, and each name resolves."""
    assert set(policy_engine.__all__) >= {"Engine", "ToolCall", "Decision", "Action"}
    for name in policy_engine.__all__:
        assert getattr(policy_engine, name) is not None
