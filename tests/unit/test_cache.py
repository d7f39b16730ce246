"""The compiled-policy cache: hits skip pydantic and json5, changes miss, damage is rebuilt."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import Sandbox, bash

from policy_engine import Action

CONFIG = """
{
  "policies": { "p": { "defaultAction": "ask", "rules": [ { "action": "allow", "tool": "bash", "pattern": "$safe-bash" },
                                                          { "action": "deny", "tool": "bash", "pattern": "rm *" } ] } },
  "locations": { "/": "p" },
  "pathProtection": { ".env*": "deny" },
}
"""

# Loads the engine in a fresh process and reports which heavy modules it imported.
PROBE = """
import json, sys
from policy_engine import Engine, ToolCall
engine = Engine(sys.argv[1], cwd="/")
decision = engine.evaluate(ToolCall("bash", {"command": sys.argv[2]}, "/"))
heavy = sorted(m for m in ("pydantic", "pydantic_core", "json5", "pathspec") if m in sys.modules)
print(json.dumps({"action": str(decision.action), "heavy": heavy}))
"""


def probe(sandbox: Sandbox, config: Path, command: str = "ls") -> dict:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(config), command],
        capture_output=True,
        text=True,
        env=sandbox.env,
        check=True,
    )
    return json.loads(result.stdout)


def cache_files(sandbox: Sandbox) -> list[Path]:
    return sorted((sandbox.root / "cache" / "policy-engine").glob("compiled-*.cache"))


def test_a_hit_imports_neither_pydantic_nor_json5(sandbox: Sandbox) -> None:
    config = sandbox.write("policy.jsonc", CONFIG)
    first = probe(sandbox, config)
    assert first == {"action": "allow", "heavy": ["json5", "pathspec", "pydantic", "pydantic_core"]}
    assert len(cache_files(sandbox)) == 1
    second = probe(sandbox, config, "rm -rf x")
    assert second == {"action": "deny", "heavy": []}


def test_the_cli_on_a_hit_imports_nothing_heavy(sandbox: Sandbox) -> None:
    config = sandbox.write("policy.jsonc", CONFIG)
    sandbox.run("check", "--config", str(config), "ls")
    code = (
        "import sys, runpy; sys.argv = ['policy', 'check', '--config', sys.argv[1], 'ls'];"
        "from policy_engine import cli; status = cli.main();"
        "print([m for m in ('pydantic', 'json5', 'pathspec') if m in sys.modules], status)"
    )
    # Run where `policy` ran (not in the checkout): `python -c` imports from its working directory
    # first, and a checkout beside an installed wheel would be another copy with a cache of its own.
    result = subprocess.run(
        [sys.executable, "-c", code, str(config)],
        capture_output=True,
        text=True,
        env=sandbox.env,
        cwd=str(sandbox.root),
        check=True,
    )
    assert result.stdout.splitlines()[-1] == "[] 0"


def test_changing_the_file_misses_and_recompiles(sandbox: Sandbox) -> None:
    config = sandbox.write("policy.jsonc", CONFIG)
    assert probe(sandbox, config, "rm x")["action"] == "deny"
    config.write_text(
        CONFIG.replace(
            '"deny", "tool": "bash", "pattern": "rm *"', '"log", "tool": "bash", "pattern": "rm *"'
        )
    )
    changed = probe(sandbox, config, "rm x")
    assert changed == {"action": "log", "heavy": ["json5", "pathspec", "pydantic", "pydantic_core"]}
    assert len(cache_files(sandbox)) == 2
    # going back to the first content hits the first cache again
    sandbox.write("policy.jsonc", CONFIG)
    assert probe(sandbox, config, "rm x") == {"action": "deny", "heavy": []}


def test_trust_change_misses(sandbox: Sandbox) -> None:
    project = sandbox.project(
        "repo", '{ "policies": { "p": { "defaultAction": "allow" } }, "locations": { "$cwd": "p" } }'
    )
    sandbox.write(
        sandbox.user_config, '{ "policies": { "u": { "defaultAction": "ask" } }, "defaultPolicy": "u" }'
    )
    assert sandbox.engine(cwd=project).evaluate(bash("make", project)).action is Action.ASK
    sandbox.run("trust", str(project))
    assert sandbox.engine(cwd=project).evaluate(bash("make", project)).action is Action.ALLOW


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda raw: b"", id="empty"),
        pytest.param(lambda raw: raw[: len(raw) // 2], id="truncated"),
        pytest.param(lambda raw: raw[:-40] + bytes([raw[-40] ^ 4]) + raw[-39:], id="bit-flip"),
        pytest.param(lambda raw: b"not json at all\n{", id="garbage"),
        pytest.param(lambda raw: raw.replace(b"\n", b"\n ", 1), id="shifted-body"),
    ],
)
def test_a_damaged_cache_is_rebuilt_not_trusted(sandbox: Sandbox, damage) -> None:
    config = sandbox.write("policy.jsonc", CONFIG)
    probe(sandbox, config)
    (cached,) = cache_files(sandbox)
    cached.write_bytes(damage(cached.read_bytes()))
    rebuilt = probe(sandbox, config, "rm -rf x")
    assert rebuilt == {"action": "deny", "heavy": ["json5", "pathspec", "pydantic", "pydantic_core"]}
    assert probe(sandbox, config, "rm -rf x")["heavy"] == []  # and the rebuilt file is good again


def test_a_well_formed_but_wrong_cache_is_rebuilt(sandbox: Sandbox) -> None:
    """A cache whose body checks out but whose content is not a policy set is not used."""
    import marshal
    import zlib

    config = sandbox.write("policy.jsonc", CONFIG)
    probe(sandbox, config)
    (cached,) = cache_files(sandbox)
    _, body = cached.read_bytes().split(b"\n", 1)
    data = marshal.loads(body)
    data["data"][0][0][3] = "not a dict of policies"
    body = marshal.dumps(data)
    cached.write_bytes(f"{zlib.crc32(body):08x}\n".encode() + body)
    assert probe(sandbox, config, "rm x") == {
        "action": "deny",
        "heavy": ["json5", "pathspec", "pydantic", "pydantic_core"],
    }


def test_an_unwritable_cache_directory_is_not_fatal(sandbox: Sandbox) -> None:
    blocker = sandbox.root / "cache"
    blocker.write_text("a file where the cache directory should be")
    config = sandbox.write("policy.jsonc", CONFIG)
    assert probe(sandbox, config, "rm x")["action"] == "deny"


def test_cache_can_be_turned_off(sandbox: Sandbox) -> None:
    config = sandbox.write("policy.jsonc", CONFIG)
    sandbox.env["POLICY_ENGINE_CACHE"] = "0"
    probe(sandbox, config)
    assert cache_files(sandbox) == []


def test_old_cache_files_are_pruned(sandbox: Sandbox) -> None:
    config = sandbox.write("policy.jsonc", CONFIG)
    for number in range(20):
        config.write_text(CONFIG + f"\n// version {number}\n")
        sandbox.engine(config)
    assert len(cache_files(sandbox)) == 16


def test_a_compiled_policy_round_trips_through_the_cache(sandbox: Sandbox) -> None:
    config = sandbox.write("policy.jsonc", CONFIG)
    compiled = sandbox.engine(config, use_cache=False).policy_set
    sandbox.engine(config)  # writes
    assert cache_files(sandbox)
    assert sandbox.engine(config).policy_set == compiled  # read back: identical values
    assert os.environ.get("POLICY_ENGINE_CACHE") != "0"
