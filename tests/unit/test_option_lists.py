"""Every option a command's own documentation lists is classified by the knowledge.

policy_engine/analysis/shell/options/ holds each command's option list as its manual page, ``--help`` or
published reference gives it (extracted by scripts/option_lists.py, which says how to refresh
them). A read-only proof holds only when every option the command carries is known: an option the
knowledge does not list makes the call unproven, so a tool that gains one asks rather than allows.
This test fails when an extracted option is not classified, or is read with an argument where the
tool takes none (or the reverse): the analysis would then read the next word wrongly.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import json5
import pytest
from helpers import REPO

from policy_engine.analysis.shell.knowledge import entry_at

SCRIPT = REPO / "scripts" / "option_lists.py"
DATA = REPO / "policy_engine" / "analysis" / "shell" / "options"


def _script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("option_lists", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def script():  # type: ignore[no-untyped-def]
    return _script()


@pytest.fixture(scope="module")
def commands(script) -> dict:  # type: ignore[no-untyped-def, type-arg]
    return script.compiled_commands()  # type: ignore[no-any-return]


def safe_bash_paths(commands: dict) -> set[str]:  # type: ignore[type-arg]
    """The knowledge paths (``sort``, ``git log``) that a $safe-bash pattern can allow."""
    from policy_engine.analysis.shell.knowledge import knowledge

    known = knowledge()
    preset = json5.loads((REPO / "presets/patterns/safe-bash.jsonc").read_text())
    found = set()
    for pattern in preset["patterns"]:
        name, *rest = pattern.split()
        canonical = name if name in commands else known.aliases.get(name, name.rstrip("0123456789."))
        entry = commands.get(canonical)
        path = [canonical]
        for word in rest:
            subcommands = (entry or {}).get("subcommands") or {}
            if word.startswith("-") or "*" in word or not isinstance(subcommands.get(word), dict):
                break
            entry, path = subcommands[word], [*path, word]
        found.add(" ".join(path))
    return found


def test_every_extracted_option_is_classified(script, commands) -> None:  # type: ignore[no-untyped-def]
    problems = script.problems(commands)
    assert not problems, "\n".join(problems)


def test_the_lists_cover_the_commands_safe_bash_allows(commands) -> None:  # type: ignore[no-untyped-def]
    listed = {json.loads(p.read_text())["command"] for p in DATA.glob("*.json")}
    paths = safe_bash_paths(commands)
    covered = {p for p in paths if p in listed}
    # Most of them: the rest have no list extracted yet (their unlisted options ask, see docs/analysis.md).
    assert len(covered) >= 0.75 * len(paths), sorted(paths - listed)
    assert len(listed) >= 250


def test_each_list_says_where_it_came_from() -> None:
    for path in DATA.glob("*.json"):
        data = json.loads(path.read_text())
        assert data["source"] and data["recipe"] and data["options"], path.name
        assert path.name == data["command"].replace(" ", "-") + ".json"
        if "reference" in data["recipe"]:
            assert (DATA / "reference" / data["recipe"]["text"]).is_file(), path.name


def test_the_parser_reads_gnu_and_git_option_lines(script) -> None:  # type: ignore[no-untyped-def]
    text = """
       -k, --key=KEYDEF
              sort via a key
       --color[=WHEN]
       -n <number>, --max-count=<number>
       --[no-]walk
       -o FILE    write to FILE
    A line of prose -x that is not an option.
    """
    assert script.options_of(text) == {
        "--color": "optional",
        "--key": "value",
        "--max-count": "value",
        "--no-walk": "flag",
        "--walk": "flag",
        "-k": "value",
        "-n": "value",
        "-o": "value",
    }


def test_an_option_listed_twice_is_a_mistake_in_the_data(script) -> None:  # type: ignore[no-untyped-def]
    from policy_engine.analysis.shell.knowledge import DATA as KNOWLEDGE
    from policy_engine.analysis.shell.knowledge import compile_knowledge

    text = Path(KNOWLEDGE).read_text()
    with pytest.raises(ValueError, match=r"sort -o is listed here and in commands\.jsonc"):
        compile_knowledge(text, {"x.jsonc": '{ "sort": { "flags": "-o" } }'})
    with pytest.raises(ValueError, match="'no-such' has no entry"):
        compile_knowledge(text, {"x.jsonc": '{ "no-such": { "flags": "-o" } }'})
    merged = compile_knowledge(text, {"x.jsonc": '{ "git log": { "flags": "--no-such-flag" } }'})
    assert entry_at(merged["commands"], "git show")["options"]["--no-such-flag"] == "flag"  # shared entry
