"""The command knowledge (shell/commands.jsonc) and the $safe-bash preset built on it.

$safe-bash is only as safe as the knowledge: each of its rules is read-only, so it matches a command
only when the analysis finds nothing but reads and no doubt. These tables say, command by command,
which forms are read-only and which write, delete, run a program or talk to another machine (the
``examples`` beside each entry of the knowledge files, and the tables here); the engine, not the
table, decides, and the table checks it.
"""

from __future__ import annotations

import json
from pathlib import Path

import json5
import pytest
from helpers import CORPUS, REPO, Sandbox, bash

from policy_engine import Action, Engine
from policy_engine.analysis.shell.analysis import Analyzer
from policy_engine.analysis.shell.knowledge import DATA, Knowledge, compile_knowledge, entry_files, knowledge
from policy_engine.config.presets import PRESETS_DIR

# The shipped presets: the package's data, or in a checkout the top-level presets/ folder.
SAFE_BASH = Path(PRESETS_DIR) / "patterns" / "safe-bash.jsonc"
SAMPLE = REPO / "tests" / "data" / "tldr-readonly-sample.jsonl"
TLDR = CORPUS / "tldr.txt"


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Knowledge:
    return knowledge(str(tmp_path_factory.mktemp("knowledge")))


@pytest.fixture(scope="module")
def analyzer(compiled: Knowledge) -> Analyzer:
    return Analyzer("/home/me", compiled)


@pytest.fixture(scope="module")
def safe_bash(tmp_path_factory: pytest.TempPathFactory) -> tuple[Engine, Path]:
    """An engine whose only rule is $safe-bash (anything else asks), on an isolated fake machine."""
    sandbox = Sandbox(tmp_path_factory.mktemp("safe-bash"))
    config = sandbox.write(
        "safe.jsonc",
        '{ "policies": { "p": { "defaultAction": "ask", "rules": [ "$safe-bash" ] } }, "defaultPolicy": "p" }',
    )
    work = sandbox.project("work")
    return sandbox.engine(config, cwd=work), work


def patterns() -> list[str]:
    return list(json5.loads(SAFE_BASH.read_text(encoding="utf-8"))["patterns"])


# ---- The compiled cache -----------------------------------------------------------------------------


def test_the_compiled_knowledge_follows_edits_of_its_data_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process reads the compiled knowledge when the data files are those it was compiled from,
    known by their stamps (one stat each) once they have been left alone for two seconds, by their
    text before. Either way an edit is seen by the next process, and an unchanged file is not
    compiled again."""
    import shutil
    import time
    import zlib

    from policy_engine import trees
    from policy_engine.analysis.shell import knowledge as module

    more = tmp_path / "commands.d"
    shutil.copytree(module.MORE, more)
    monkeypatch.setattr(module, "MORE", str(more))
    extra, cache = more / "zz-test.jsonc", str(tmp_path / "cache")
    compiled = module.compile_knowledge
    compiles: list[str] = []

    def counted(*args: object) -> dict[str, object]:
        compiles.append("compiled")
        return compiled(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(module, "compile_knowledge", counted)

    def operands(sense: str) -> str | None:
        """Write the extra file with an entry of ``sense``; the operands a new process reads."""
        extra.write_text(f'{{"commands": {{"frobnicate": {{"operands": "{sense}"}}}}}}\n', encoding="utf-8")
        return fresh()

    def fresh() -> str | None:
        entry = module.knowledge.__wrapped__(cache).entry("frobnicate")  # as a new process would
        return None if entry is None else str(entry["operands"])

    # Just edited: known by its text. Two edits of one size in a row usually keep the times the
    # kernel's coarse clock gives them: the case the text is for.
    assert operands("read") == "read" and compiles == ["compiled"]
    assert operands("exec") == "exec" and len(compiles) == 2
    assert fresh() == "exec" and len(compiles) == 2, "unchanged text: from the cache"
    identities, read = module._identities([str(extra)], time.time_ns())
    assert identities == [[str(extra), extra.stat().st_size, zlib.crc32(extra.read_bytes())]]
    assert str(extra) in read

    # Left alone long enough (the clock moved on): known by stamp, and an edit is still seen.
    later = time.time_ns() + 3 * trees.RACY_NS
    monkeypatch.setattr(module.time, "time_ns", lambda: later)
    assert fresh() == "exec" and len(compiles) == 3, "known by its stamp from now on: compiled once more"
    assert fresh() == "exec" and len(compiles) == 3
    assert module._identities([str(extra)], later)[1] == {}, "nothing read"
    assert operands("text") == "text" and len(compiles) == 4
    assert fresh() == "text" and len(compiles) == 4


# ---- The data itself -------------------------------------------------------------------------------


def test_the_knowledge_compiles() -> None:
    data = compile_knowledge(Path(DATA).read_text(encoding="utf-8"))
    assert len(data["commands"]) >= 390


def test_a_module_judged_as_a_command_must_name_one() -> None:
    text = '{ "commands": { "python": { "interpreter": "python", "modules": { "pytest": "no-such" } } } }'
    with pytest.raises(ValueError, match="module 'pytest' is judged as 'no-such', which has no entry"):
        compile_knowledge(text)


def test_every_interpreters_pattern_names_an_interpreter(compiled: Knowledge) -> None:
    """$interpreters must only allow commands whose programs are analysed."""
    preset = json5.loads((SAFE_BASH.parent / "interpreters.jsonc").read_text(encoding="utf-8"))
    for pattern in preset["patterns"]:
        name = pattern.split(" ")[0]
        entry = compiled.entry(name)
        assert entry is not None, pattern
        if pattern.split(" ")[1:2] == ["eval"]:  # deno eval
            entry = entry["subcommands"]["eval"]
        assert entry.get("interpreter"), pattern


def test_every_safe_bash_pattern_names_a_known_command(compiled: Knowledge) -> None:
    found = patterns()
    assert len(found) == len(set(found)), "duplicate patterns"
    # The last pattern, "*", covers whatever the analysis proves only reads: the knowledge vets
    # each command then, so it is the one pattern that names none.
    assert found[-1] == "*"
    named = found[:-1]
    unknown = [p for p in named if compiled.entry(p.split(" ")[0]) is None]
    assert unknown == []
    # A first word with a wildcard (`* --help`) would reach commands no pattern names
    # (in a pattern only * and ? are wildcards: `[ *` names the test command).
    assert [p for p in named if any(c in p.split(" ")[0] for c in "*?")] == []


def test_the_patterns_pi_control_could_never_match_are_gone() -> None:
    found = set(patterns())
    gone = {"less *", "more *", "make -n *", "make --dry-run *", "npm outdated *", "npm info *", "npm view *"}
    gone |= {"env", "printenv"}  # they print every variable, secrets included: never without doubt
    assert not gone & found
    assert {"git status", "cat *", "find *", "bun pm ls *", "printenv *", "pip freeze"} <= found


def test_no_option_of_a_command_with_subcommands_relies_on_set(compiled: Knowledge) -> None:
    """Options parsed before a subcommand only add accesses and doubts: a "set" there is ignored,
    so a writing option must be a doubt (git config --unset)."""
    ignored = []

    def walk(name: str, entry: dict[str, object]) -> None:
        subcommands = entry.get("subcommands")
        if not isinstance(subcommands, dict):
            return
        options = entry.get("options", {})
        assert isinstance(options, dict)
        ignored.extend(
            f"{name} {o}" for o, spec in options.items() if isinstance(spec, dict) and spec.get("set")
        )
        for sub, value in subcommands.items():
            walk(f"{name} {sub}", value)

    for name, entry in compiled.commands.items():
        walk(name, entry)
    assert ignored == []


# ---- Read-only or not, command by command ----------------------------------------------------------


def knowledge_examples() -> list[tuple[str, str, bool]]:
    """Every example the knowledge files give beside their entries: (entry, line, read-only)."""
    from policy_engine.config.jsonc import parse

    found = []
    for file in [DATA, *entry_files()]:
        commands = parse(Path(file).read_text(encoding="utf-8"), file).data["commands"]
        for name, entry in commands.items():
            examples = entry.get("examples") or {}
            found += [(name, line, True) for line in examples.get("readOnly", [])]
            found += [(name, line, False) for line in examples.get("notReadOnly", [])]
    return found


EXAMPLES = knowledge_examples()


@pytest.mark.parametrize(("name", "line", "read_only"), EXAMPLES, ids=[line for _, line, _ in EXAMPLES])
def test_read_only(analyzer: Analyzer, name: str, line: str, read_only: bool) -> None:
    """Each example beside an entry (``examples``: readOnly, notReadOnly) is judged as it says."""
    atoms = analyzer.atoms(line, "/p")
    found = all(atom.read_only for atom in atoms)
    assert found is read_only, [(a.command, [str(x) for x in a.accesses], a.doubts) for a in atoms]


def test_the_examples_name_their_entry_and_are_many(compiled: Knowledge) -> None:
    for name, line, _ in EXAMPLES:
        assert compiled.entry(line.split()[0]) is compiled.entry(name), (name, line)
    assert len(EXAMPLES) >= 520
    assert len({line for _, line, _ in EXAMPLES}) == len(EXAMPLES)


def test_the_examples_are_not_compiled(compiled: Knowledge) -> None:
    for name, _, _ in EXAMPLES:
        assert "examples" not in compiled.entry(name), name  # type: ignore[operator]


# ---- What $safe-bash must never allow --------------------------------------------------------------

# `tool [words] --help` is judged read-only whatever the words, so $safe-bash has no `* --help`
# pattern and no pattern for a tool that runs its words despite --help.
NEVER_ALLOWED = [
    "bash -c 'touch x' --help",
    'python3 -c \'open("x", "w")\' --version',
    "ip netns exec ns1 sh -c 'touch x' --help",
    "ip -s netns exec ns1 sh -c 'rm -f x' --help",
    "unzip a.zip inner.txt --help",
    "fd -x rm --help",
    "pidstat -e sh -c id --help",
    "xml ed -L -u //a -v 1 doc.xml --help",
    "tmux new-session 'touch x' --help",
    "busctl --address=unixexec:path=/bin/sh,argv1=-c,argv2=id",
    "loginctl user-status",
    "sort -o out data.txt",
    "git branch -D main",
    "pip list --outdated",
    "kubectl get secret x -o yaml",
    "docker -H ssh://host ps",
    "npm run build",
    "tar -xf a.tar",
    "tar -tf host:archive.tar",
    "yarn add left-pad",
    "cargo tree",
    "gofmt -w main.go --help",
    "go env -u GOFLAGS --help",
    "ifconfig eth0 down --help",
    "ltrace --output log.txt file ./prog",
    "git config --unset user.name",
]

# Words after a redirect are still the command's arguments (`find . 2>/dev/null -delete`): the grammar
# files them under the redirect, and the walk gives them back to the command.
AFTER_A_REDIRECT = [
    "find . 2>/dev/null -delete",
    "env 2>/dev/null rm -rf x",
    "git log 2>/dev/null --output=/tmp/x",
]


@pytest.mark.parametrize("line", [*NEVER_ALLOWED, *AFTER_A_REDIRECT])
def test_safe_bash_never_allows(safe_bash: tuple[Engine, Path], line: str) -> None:
    engine, work = safe_bash
    assert engine.evaluate(bash(line, work)).action is not Action.ALLOW


# ---- How much of real read-only use $safe-bash covers ------------------------------------------------

# Lines of tldr.txt labelled by hand (tests/data/tldr-readonly-sample.jsonl). A floor, so that the
# coverage cannot silently regress; raise it when the knowledge grows.
ALLOWED_READ_ONLY_FLOOR = 115  # of 164 read-only lines: 70%
ALLOWED_SHARE_FLOOR = 0.70
# Lines labelled not read-only that $safe-bash may allow, each with the reason it is acceptable.
JUSTIFIED: dict[str, str] = {
    "exit": "it ends the shell of the agent's tool call; it reads, writes and runs nothing",
    "OPTIND=1": "it sets a shell variable of the tool call's own shell (getopts' index), which ends with it",
    "read variable": "it sets a shell variable of the tool call's own shell from its input, which ends with it",
    "ruff check --select ALL": "ruff writes only its own cache (.ruff_cache), which holds nothing that runs",
}
# The sample was labelled when a query of another machine was never read-only; a query of a remote
# service that the knowledge proves reads only now is (shell/commands.d/remote.jsonc).
REMOTE_QUERY = "it queries a remote service and changes nothing there or here"
JUSTIFIED |= {
    line: REMOTE_QUERY
    for line in (
        "gcloud container clusters describe cluster_name",
        "gh release view tag",
        "kubectl describe nodes node_name --namespace namespace",
        "npm s term1 term2",
        "pnpm outdated --long",
    )
}


@pytest.mark.skipif(not TLDR.exists(), reason=f"no corpus at {TLDR}")
def test_safe_bash_on_the_tldr_sample(safe_bash: tuple[Engine, Path]) -> None:
    engine, work = safe_bash
    lines = TLDR.read_text(encoding="utf-8").split("\n")
    rows = [json.loads(row) for row in SAMPLE.read_text(encoding="utf-8").splitlines() if row.strip()]
    read_only = [row for row in rows if row["read_only"]]
    allowed = []
    wrongly_allowed = []
    for row in rows:
        line = lines[row["line"] - 1]
        if engine.evaluate(bash(line, work)).action is not Action.ALLOW:
            continue
        (allowed if row["read_only"] else wrongly_allowed).append(line)
    share = len(allowed) / len(read_only)
    print(
        f"\n$safe-bash allows {len(allowed)} of {len(read_only)} read-only sample lines ({share:.1%}) "
        f"and {len(wrongly_allowed)} of {len(rows) - len(read_only)} lines that are not read-only"
    )
    assert len(allowed) >= ALLOWED_READ_ONLY_FLOOR
    assert share >= ALLOWED_SHARE_FLOOR
    assert [line for line in wrongly_allowed if line not in JUSTIFIED] == []
