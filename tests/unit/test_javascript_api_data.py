"""The JavaScript analysis's knowledge of the runtimes is data (``javascript/api.json``): it is valid
against its schema, it is what the analysis loads, and each table drives what the analysis finds.

The table tests run every entry through the analysis, so an entry the analysis ignored (or a table
it stopped reading) fails here; adding a Node API to ``api.json`` is then tested without a new case.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from policy_engine.analysis.interpreters.findings import Program, Setting
from policy_engine.analysis.interpreters.javascript import analyze, api
from policy_engine.analysis.interpreters.javascript.calls import RUNS, SPECIAL
from policy_engine.model import Sense

PACKAGE = Path(api.__file__).parent
DATA = json.loads((PACKAGE / "api.json").read_text(encoding="utf-8"))
SCHEMA = json.loads((PACKAGE / "api.schema.json").read_text(encoding="utf-8"))
SETTING = Setting("/p", "/home/me", lambda name: "SECRET" in name)


def receiver_of(module: str) -> str:
    """How a program reaches a module or global: ``require("fs")``, ``require("fs").promises``, ``Deno``."""
    if module == "fs.promises":
        return 'require("fs").promises'
    specifier = next((spec for spec, name in DATA["modules"].items() if name == module), None)
    return f'require("{specifier}")' if specifier is not None else module


def call_of(key: str, arguments: str = "") -> str:
    """A program that calls the API ``key`` (``fs.rm``: ``require("fs").rm(...)``; a global as is)."""
    module, _, member = key.partition(".")
    receiver = receiver_of(module)
    return f"{receiver}.{member}({arguments})" if member else f"{receiver}({arguments})"


def effects(program: Program) -> set[tuple[str, Sense, str | None]]:
    return {
        (effect.path, effect.sense, str(effect.tree) if effect.tree else None) for effect in program.effects
    }


# -- the data and its schema --------------------------------------------------------------------------


def test_the_schema_is_a_valid_draft_2020_12_schema_that_describes_every_table() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    for name, table in SCHEMA["properties"].items():
        assert table.get("description"), name
    assert set(SCHEMA["required"]) == set(SCHEMA["properties"]) - {"$schema"}


def test_api_json_is_valid_against_its_schema() -> None:
    jsonschema.Draft202012Validator(SCHEMA).validate(DATA)


def test_the_schema_rejects_what_the_loader_would_misread() -> None:
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for broken in (
        {**DATA, "files": {**DATA["files"], "fs.rm": ["remove"]}},  # not a sense
        {**DATA, "files": {**DATA["files"], "fs.rm": [None]}},  # no path at all
        {**DATA, "pure": "os path"},  # a list, not a string of words
        {**DATA, "unknownTable": []},
        {key: value for key, value in DATA.items() if key != "doubts"},
    ):
        assert not validator.is_valid(broken)


def test_the_tables_agree_with_each_other_and_with_the_code() -> None:
    assert set(DATA["trees"]) <= set(DATA["files"])  # trees qualifies file calls only
    assert set(DATA["harmless"]) <= set(DATA["strict"])  # harmless exempts members of strict modules
    shadowed = (set(DATA["files"]) | set(DATA["doubts"]) | set(DATA["contacts"])) & (set(SPECIAL) | set(RUNS))
    assert not shadowed, f"entries the code's handlers take first, so the data would be ignored: {shadowed}"


def test_the_loaded_tables_are_the_data_file_and_are_read_once() -> None:
    loaded = api.tables()
    assert loaded is api.tables()
    assert loaded == api.parse(DATA)
    snake = {re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower() for name in SCHEMA["required"]}
    assert set(loaded._fields) == snake
    assert loaded.files["fs.rename"] == ((0, Sense.DELETE), (1, Sense.WRITE))
    assert loaded.files["fs.symlink"] == ((1, Sense.WRITE),)


def test_the_data_is_read_at_the_first_analysis_not_at_import() -> None:
    script = (
        "from policy_engine.analysis.interpreters.javascript import analyze, api\n"
        "from policy_engine.analysis.interpreters.findings import Setting\n"
        "before = api.tables.cache_info().currsize\n"
        "analyze('console.log(x)', Setting('/p', '/h', lambda n: False))\n"
        "print(before, api.tables.cache_info().currsize)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["0", "1"]


# -- each table drives the analysis ---------------------------------------------------------------------


@pytest.mark.parametrize("key", sorted(DATA["files"]))
def test_every_file_call_touches_the_paths_its_entry_names(key: str) -> None:
    senses = DATA["files"][key]
    arguments = ", ".join(f'"/x/{index}"' for index in range(len(senses) + 1))  # one argument more
    program = analyze(call_of(key, arguments), SETTING)
    tree = "all" if key in DATA["trees"] else None
    expected = {
        (f"/x/{index}", Sense(sense), tree if index == 0 else None)
        for index, sense in enumerate(senses)
        if sense is not None
    }
    assert effects(program) == expected, program
    assert program.doubts == ()


@pytest.mark.parametrize("key", sorted(DATA["files"]))
def test_every_file_call_with_a_computed_path_is_a_doubt_unless_it_only_reads(key: str) -> None:
    senses = DATA["files"][key]
    arguments = ", ".join("process.argv[2]" for _ in senses)
    program = analyze(call_of(key, arguments), SETTING)
    changes = any(sense not in (None, "read") for sense in senses)
    assert any("cannot tell which file" in doubt for doubt in program.doubts) is changes, program


@pytest.mark.parametrize("key", sorted(DATA["doubts"]))
def test_every_doubtful_call_is_a_doubt_with_its_reason(key: str) -> None:
    program = analyze(call_of(key, '"x"'), SETTING)
    assert any(doubt.endswith(f"{key} {DATA['doubts'][key]}") for doubt in program.doubts), program


@pytest.mark.parametrize("key", sorted(DATA["contacts"]))
def test_every_contact_talks_to_another_machine(key: str) -> None:
    program = analyze(call_of(key, "{}"), SETTING)
    assert [contact.evidence for contact in program.contacts] == [key]
    assert program.doubts == ()


@pytest.mark.parametrize("module", sorted(DATA["network"]))
def test_every_call_into_a_network_module_is_a_contact(module: str) -> None:
    key = module if module in DATA["globalApis"] else f"{module}.request"
    program = analyze(call_of(key, '"https://example.com"'), SETTING)
    assert program.contacts, program


@pytest.mark.parametrize("specifier", sorted(DATA["modules"]))
def test_every_built_in_module_loads_without_a_doubt(specifier: str) -> None:
    for spelling in (specifier, f"node:{specifier}"):
        program = analyze(f'const m = require("{spelling}"), n = import("{spelling}")', SETTING)
        assert program == Program(), program
    assert analyze('require("left-pad")', SETTING).doubts  # a module whose code is not read


@pytest.mark.parametrize("module", sorted(DATA["harmless"]))
def test_the_harmless_members_of_strict_modules_pass_without_a_doubt(module: str) -> None:
    receiver = receiver_of(module)
    # The whole environment is a doubt however it is reached; and a member is looked up without its
    # Sync suffix, so an entry spelt with one (Bun's gzipSync) cannot match: both are left out.
    members = [m for m in DATA["harmless"][module] if m != "env" and not m.endswith("Sync")]
    assert members
    for member in members:
        program = analyze(f"console.log({receiver}.{member})", SETTING)
        assert program.doubts == (), (member, program)
    program = analyze(f"console.log({receiver}.notAMemberAnyTableKnows)", SETTING)
    assert any("as a value" in doubt for doubt in program.doubts), program


@pytest.mark.parametrize("name", sorted(DATA["suspectMethods"]))
def test_a_suspect_method_of_an_unknown_value_is_a_doubt(name: str) -> None:
    program = analyze(f"process.argv[2].{name}('/x')", SETTING)
    assert any(f".{name}()" in doubt for doubt in program.doubts), program
    assert analyze(f"'text'.{name}('/x')", SETTING).doubts == ()  # a method of a known value


@pytest.mark.parametrize("name", sorted(DATA["steering"]))
def test_setting_a_steering_variable_is_a_doubt(name: str) -> None:
    program = analyze(f"process.env.{name} = '/tmp/x'", SETTING)
    assert any(f"sets ${name}" in doubt for doubt in program.doubts), program
    assert analyze("process.env.HARMLESS_NAME = '/tmp/x'", SETTING).doubts == ()


def test_constants_aliases_and_global_values_are_folded_into_paths() -> None:
    source = (
        'const path = require("path");\n'
        'require("fs").writeFileSync("a" + path.sep + "b" + path.delimiter + "c");\n'
        'require("fs").writeFileSync(path.posix.join(__dirname, "c"));\n'
        'globalThis.require("fs").rmSync("/d")'
    )
    program = analyze(source, SETTING)
    assert {effect.path for effect in program.effects} == {"/p/a/b:c", "/p/c", "/d"}, program


def test_read_flags_deno_options_and_bun_file_methods_decide_the_sense() -> None:
    for flag in DATA["readFlags"]:
        program = analyze(f'require("fs").openSync("/x", {json.dumps(flag)})', SETTING)
        assert effects(program) == {("/x", Sense.READ, None)}, (flag, program)
    assert effects(analyze('require("fs").openSync("/x", "w")', SETTING)) == {("/x", Sense.WRITE, None)}
    for option in DATA["denoWritingOptions"]:
        program = analyze(f'Deno.open("/x", {{{option}: true}})', SETTING)
        assert effects(program) == {("/x", Sense.WRITE, None)}, (option, program)
    assert effects(analyze('Deno.open("/x", {read: true})', SETTING)) == {("/x", Sense.READ, None)}
    for method, sense in DATA["bunFileMethods"].items():
        program = analyze(f'Bun.file("/x").{method}()', SETTING)
        assert effects(program) == {("/x", Sense(sense), None)}, (method, program)


def test_adding_an_api_is_one_line_of_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the documentation promises: a new entry in api.json, and the analysis knows the call."""
    source = 'require("fs").frobnicateSync("/etc/x")'
    assert any("fs.frobnicateSync is not analysed" in d for d in analyze(source, SETTING).doubts)
    extended = {**DATA, "files": {**DATA["files"], "fs.frobnicate": ["write"]}}
    (tmp_path / "api.json").write_text(json.dumps(extended), encoding="utf-8")
    jsonschema.Draft202012Validator(SCHEMA).validate(extended)
    monkeypatch.setattr(api, "API_FILE", str(tmp_path / "api.json"))
    api.tables.cache_clear()
    try:
        program = analyze(source, SETTING)
    finally:
        api.tables.cache_clear()  # the next analysis reads the real file again
    assert effects(program) == {("/etc/x", Sense.WRITE, None)}
    assert program.doubts == ()
