"""The Python analysis's knowledge of the standard library is data (api.json): valid against its
schema, the very tables the analysis uses, and what decides the analysis's findings.

Adding a standard-library function is one line of api.json and a case here: the parametrized tests
below turn every entry of the main tables into a program and check that its effect is reported.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from policy_engine.analysis.interpreters.findings import Program, Setting
from policy_engine.analysis.interpreters.python import Analyzer, Api, analyze, api, load

PACKAGE = Path(api.__file__).parent
DATA: dict[str, Any] = json.loads((PACKAGE / "api.json").read_text(encoding="utf-8"))
SCHEMA: dict[str, Any] = json.loads((PACKAGE / "api.schema.json").read_text(encoding="utf-8"))
SETTING = Setting(cwd="/p", home="/home/me", secret=lambda name: name == "TOKEN")

# api.json table -> the attribute of Api that holds it
TABLES = {
    "fileCalls": "file_calls",
    "walked": "walked",
    "openers": "openers",
    "makers": "makers",
    "socketAddresses": "socket_addresses",
    "urlCalls": "url_calls",
    "runners": "runners",
    "dangers": "dangers",
    "dangerousImports": "dangerous_imports",
    "contacts": "contact_calls",
    "knownModules": "known_modules",
    "fileModules": "file_modules",
    "reexported": "reexported",
    "aliases": "aliases",
    "constants": "constants",
    "privateAllowed": "private_allowed",
    "builtins": "builtins",
    "builtinTypes": "builtin_types",
    "inspectors": "inspectors",
    "pathMethods": "path_methods",
    "pathWalked": "path_walked",
    "pathTransforms": "path_transforms",
    "suspects": "suspects",
    "strictSuspects": "strict_suspects",
    "frameAttributes": "frame_attributes",
    "objectMethods": "object_methods",
    "kindNames": "kind_names",
    "cookieJars": "cookie_jars",
    "sqlMethods": "sql_methods",
    "sqlDangers": "sql_dangers",
    "mutators": "mutators",
    "plainDunders": "plain_dunders",
    "internalDunders": "internal_dunders",
}


def program(code: str) -> Program:
    result = analyze(code, SETTING)
    assert not any("could not be analysed" in doubt for doubt in result.doubts), result.doubts
    return result


def importing(name: str) -> str:
    """The import a program needs before calling ``name`` (none for a builtin)."""
    module = name.rpartition(".")[0]
    return f"import {module}\n" if module else ""


def calling(name: str) -> tuple[str, str]:
    """A program that calls ``name``, or a member of it when it is a whole module, and the name called."""
    if "." in name or name in DATA["builtins"]:
        return f"{importing(name)}{name}()", name
    return f"import {name}\n{name}.member()", f"{name}.member"


def test_the_data_is_valid_against_its_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.Draft202012Validator(SCHEMA).validate(DATA)


def test_the_schema_describes_every_table() -> None:
    tables = {key: value for key, value in SCHEMA["properties"].items() if key != "$schema"}
    assert set(tables) == set(TABLES) == set(SCHEMA["required"]) == set(DATA) - {"$schema"}
    assert all(table.get("description") for table in tables.values())


def test_the_schema_rejects_a_malformed_entry() -> None:
    broken = json.loads(json.dumps(DATA))
    broken["fileCalls"]["os.remove"] = [{"sense": "erase", "position": 0, "keyword": "path"}]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, SCHEMA, cls=jsonschema.Draft202012Validator)


def test_the_analysis_uses_the_loaded_tables() -> None:
    tables = load()
    assert load() is tables  # read once
    fresh = Api(DATA)
    for attribute in TABLES.values():
        assert getattr(tables, attribute) == getattr(fresh, attribute), attribute
    assert Analyzer(b"", SETTING, _no_bindings()).api is tables
    assert tables.file_calls["shutil.rmtree"] == ((tables.file_calls["os.remove"][0][0], 0, "path", None),)
    assert set(tables.file_calls) == set(DATA["fileCalls"])
    assert tables.known_modules == frozenset(DATA["knownModules"])


def _no_bindings() -> Any:
    from policy_engine.analysis.interpreters.python.scopes import Bindings

    return Bindings([], {}, set(), set())


def _file_call_cases() -> Iterator[Any]:
    for name, specs in DATA["fileCalls"].items():
        yield pytest.param(name, specs, id=name)


@pytest.mark.parametrize(("name", "specs"), list(_file_call_cases()))
def test_every_file_call_reports_its_paths_with_their_senses(name: str, specs: list[dict[str, Any]]) -> None:
    positions = [spec["position"] for spec in specs if spec["position"] is not None]
    arguments = [f"'/d/{index}'" for index in range(max(positions, default=-1) + 1)]
    arguments += [f"{spec['keyword']}='/d/{spec['keyword']}'" for spec in specs if spec["position"] is None]
    result = program(f"{importing(name)}{name}({', '.join(arguments)})")
    found = {
        (effect.path, str(effect.sense), str(effect.tree) if effect.tree else None)
        for effect in result.effects
        if effect.evidence == name
    }
    for index, spec in enumerate(specs):
        where = spec["position"] if spec["position"] is not None else spec["keyword"]
        tree = "all" if index == 0 and name in DATA["walked"] else None
        assert (f"/d/{where}", spec["sense"], tree) in found, (spec, result)


@pytest.mark.parametrize("name", list(DATA["openers"]))
def test_every_opener_reports_the_file_it_opens(name: str) -> None:
    opener = DATA["openers"][name]
    arguments = ["None"] * opener["path"] + ["'/d/file'"]
    result = program(f"{importing(name)}{name}({', '.join(arguments)})")
    sense = "write" if any(c in opener["defaultMode"] for c in "wax+") else "read"
    assert ("/d/file", sense, name) in {(e.path, str(e.sense), e.evidence) for e in result.effects}, result


def test_an_opener_is_given_its_mode() -> None:
    result = program("import gzip\ngzip.open('/d/file', 'wb')")
    assert [(e.path, str(e.sense), e.evidence) for e in result.effects] == [
        ("/d/file", "write", "gzip.open(mode 'wb')")
    ]


@pytest.mark.parametrize("name", [name for name, why in DATA["dangers"].items() if why])
def test_every_danger_is_a_doubt_with_its_reason(name: str) -> None:
    code, called = calling(name)
    result = program(code)
    assert any(f"{called} {DATA['dangers'][name]}" in doubt for doubt in result.doubts), result.doubts


@pytest.mark.parametrize("name", [name for name, contact in DATA["contacts"].items() if contact])
def test_every_contact_is_reported(name: str) -> None:
    code, called = calling(name)
    result = program(code)
    assert called in {contact.evidence for contact in result.contacts}, result


@pytest.mark.parametrize("name", [n for n, r in DATA["runners"].items() if r["style"] in ("shell", "args")])
def test_every_runner_of_a_command_line_reports_it(name: str) -> None:
    runner = DATA["runners"][name]
    command = "'ls /d'" if runner["style"] == "shell" else "['ls', '/d']"
    result = program(f"{importing(name)}{name}({command})")
    assert [(e.evidence, e.argv, e.shell) for e in result.executions] == [
        (
            name,
            ("ls", "/d") if runner["style"] == "args" else None,
            "ls /d" if runner["style"] == "shell" else None,
        )
    ]


@pytest.mark.parametrize("method", list(DATA["pathMethods"]))
def test_every_path_method_touches_the_path(method: str) -> None:
    result = program(f"import pathlib\npathlib.Path('/d/self').{method}('/d/0')")
    sense = next(spec["sense"] for spec in DATA["pathMethods"][method] if spec["target"] == -1)
    assert ("/d/self", sense) in {(e.path, str(e.sense)) for e in result.effects}, result


def test_an_entry_added_to_the_data_is_followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One line of data teaches the analysis a function: here a made-up ``os.erase`` that deletes."""
    code = "import os\nos.erase('/d/x')"
    assert not program(code).effects
    data = json.loads(json.dumps(DATA))
    data["fileCalls"]["os.erase"] = [{"sense": "delete", "position": 0, "keyword": "path"}]
    jsonschema.validate(data, SCHEMA, cls=jsonschema.Draft202012Validator)
    changed = tmp_path / "api.json"
    changed.write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.setattr(api, "PATH", str(changed))
    load.cache_clear()
    try:
        assert [(e.path, str(e.sense), e.evidence) for e in program(code).effects] == [
            ("/d/x", "delete", "os.erase")
        ]
    finally:
        monkeypatch.undo()
        load.cache_clear()
    assert not program(code).effects
