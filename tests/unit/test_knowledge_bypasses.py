"""Red-team round 2 (findings 1.2-1.5, 1.7, 1.8, 1.12, 2.1-2.3): option and operand semantics the
command knowledge missed, each fixed as data in shell/commands.jsonc (with the few schema features it
needed: doubtWords, revisions, variable names, Option.before/tree/override, singleDash).

Every case runs the real engine on an isolated machine, under the embedded default policy (D) or
examples/sample.jsonc (S), and checks the action and a phrase of the reason; the harmless neighbour
of each bypass stays allowed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import EXAMPLES, Sandbox, bash

from policy_engine import Action, Engine
from policy_engine.analysis.shell.analysis import Analyzer
from policy_engine.analysis.shell.knowledge import Knowledge, compile_knowledge, knowledge

D = "default"
S = "sample"


@pytest.fixture(scope="module")
def machine(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Engine], Path]:
    """A home with an SSH key, a project with a .env, agent settings and a repository; an engine
    per configuration, both working in the project."""
    sandbox = Sandbox(tmp_path_factory.mktemp("bypasses"))
    sandbox.write(sandbox.home / ".ssh" / "id_rsa", "KEY\n")
    sandbox.write(sandbox.home / ".aws" / "credentials", "[default]\n")
    project = sandbox.project("proj")
    sandbox.write(project / ".env", "SECRET=1\n")
    sandbox.write(project / ".claude" / "settings.json", "{}\n")
    sandbox.write(project / "src" / "a.py", "x = 1\n")
    sandbox.write(project / "x.patch", "")
    (project / ".git").mkdir()
    engines = {D: sandbox.engine(cwd=project), S: sandbox.engine(EXAMPLES / "sample.jsonc", cwd=project)}
    return engines, project


# (config, command, action, a phrase of the reason)
REFUSED: list[tuple[str, str, Action, str]] = [
    # nc -U connects to a unix socket: the daemon's is in the self-protected state directory (round 3)
    (D, "echo stop | nc -U ~/.local/state/policy-engine/daemon.sock", Action.DENY, "daemon.sock"),
    # git checkout / restore without `--`: the paths after the revision are written (round 3)
    (D, "git checkout HEAD~1 .claude/settings.json", Action.DENY, "own configuration"),
    (S, "git restore --source=HEAD~1 .claude", Action.DENY, "own configuration"),
    # 1.2 tmux runs every `;`-separated command of its arguments.
    (D, "tmux ls \\; run-shell 'rm -rf ~'", Action.ASK, "`;`-separated command"),
    (D, "tmux ls ';' run-shell 'rm -rf ~'", Action.ASK, "`;`-separated command"),
    (D, "tmux has-session -t 'rt;' run-shell 'cat ~/.ssh/id_rsa'", Action.ASK, "`;`-separated command"),
    (D, "tmux list-buffers -a\\; set-option -g default-command x", Action.ASK, "`;`-separated command"),
    (D, 'tmux ls -t "$s" run-shell x', Action.ASK, "computed at run time"),
    # 1.3 git apply --apply turns applying back on, before or after --check/--stat/...
    (D, "git apply --check --apply x.patch", Action.ASK, "writes"),
    (D, "git apply --apply --check x.patch", Action.ASK, "writes"),
    (D, "git apply --stat --apply x.patch", Action.ASK, "writes"),
    (D, "git apply --numstat --summary --apply x.patch", Action.ASK, "writes"),
    (S, "git apply --check --apply x.patch", Action.ASK, "writes"),
    # 1.4 jq --rawfile/--slurpfile NAME FILE read FILE; operands before --args are files.
    (D, "jq -n --rawfile k ~/.ssh/id_rsa '$k'", Action.DENY, "~/.ssh/"),
    (D, "jq --slurpfile x .env -n '$x'", Action.DENY, ".env*"),
    (D, "jq --rawfile x .env -n '$x'", Action.DENY, ".env*"),
    (D, "gojq -n --rawfile k ~/.ssh/id_rsa '$k'", Action.DENY, "~/.ssh/"),
    (D, "jaq -n --slurpfile k ~/.aws/credentials '$k'", Action.DENY, "~/.aws/"),
    (D, "jq -n --arg a 1 --argjson b 2 --rawfile k .env '$k'", Action.DENY, ".env*"),
    (D, "jq -R . .env --args a b", Action.DENY, ".env*"),
    # 1.5 git's object store and git grep outside the index.
    (D, "git show HEAD:.env", Action.DENY, ".env*"),
    (D, "git show :.env", Action.DENY, ".env*"),
    (D, "git show HEAD:./.env", Action.DENY, ".env*"),
    (D, "git cat-file -p HEAD:.env", Action.DENY, ".env*"),
    (D, "git cat-file blob HEAD:.env", Action.DENY, ".env*"),
    (D, "git blame .env", Action.DENY, ".env*"),
    (D, "git blame -L 1,2 HEAD .env", Action.DENY, ".env*"),
    # A search of a tree that holds .env asks, saying how to leave it out.
    (D, "git grep --no-index SECRET", Action.ASK, "exclude them"),
    (D, "git grep --no-index -e . -- .", Action.ASK, "exclude them"),
    (D, "git grep --untracked -h -e . -- .", Action.ASK, "exclude them"),
    (D, "git grep -e SECRET --no-index src ~/.ssh", Action.DENY, "~/.ssh/"),
    (D, "git cat-file --batch", Action.ASK, "--batch"),
    (D, 'git show "HEAD:$f"', Action.ASK, "computed at run time"),
    (S, "git add -f .env && git show :.env", Action.DENY, ".env*"),
    # 2.1 and 1.1: variable names (printf -v, read, mapfile, test -v ...).
    (D, "printf -v PATH %s x; ls", Action.ASK, "sets PATH"),
    (D, "printf -vPATH %s x", Action.ASK, "sets PATH"),
    (D, "printf -v BASH_ENV %s x", Action.ASK, "sets BASH_ENV"),
    (D, "read IFS", Action.ASK, "sets IFS"),
    (D, "read -r -a CDPATH", Action.ASK, "sets CDPATH"),
    (D, "mapfile PATH < /dev/null", Action.ASK, "sets PATH"),
    (D, "readarray -t HOME < /dev/null", Action.ASK, "sets HOME"),
    (D, "test -v 'a[$(rm -rf ~)]'", Action.ASK, "evaluates the subscript"),
    (D, 'test -v "a[\\$(rm -rf ~)]"', Action.ASK, "evaluates the subscript"),
    (D, "test -v a\\[\\$\\(rm\\ -rf\\ ~\\)\\]", Action.ASK, "evaluates the subscript"),
    (D, "test -v 'a[`id`]'", Action.ASK, "evaluates the subscript"),
    (D, "printf -v 'a[$(rm -rf ~)]' x", Action.ASK, "evaluates the subscript"),
    (D, "read 'a[$(rm -rf ~)]'", Action.ASK, "evaluates the subscript"),
    (D, "wait -n -p 'a[$(rm -rf ~)]'", Action.ASK, "evaluates the subscript"),
    (D, "getopts ab 'a[$(rm -rf ~)]'", Action.ASK, "evaluates the subscript"),
    (D, "command unset 'a[$(rm -rf ~)]'", Action.ASK, "evaluates the subscript"),
    (D, "builtin declare 'a[$(rm -rf ~)]=1'", Action.ASK, "evaluates the subscript"),
    (D, "builtin export 'a[$(id)]'", Action.ASK, "evaluates the subscript"),
    (D, "let 'a[$(rm -rf ~)]'", Action.ASK, "subscripts in let's arithmetic"),
    (D, 'printf -v "$name" %s x', Action.ASK, "cannot tell which variable"),
    (D, "mapfile -C 'rm -rf ~' -c 1 lines < /dev/null", Action.DENY, "`rm -rf"),  # -C runs its code
    # 1.7 pytest --basetemp DIR deletes DIR's whole tree; python -m pytest parses the same options.
    (S, "pytest --basetemp=.claude", Action.DENY, "deletes"),
    (S, "pytest --basetemp=.", Action.DENY, "deletes"),
    (S, "pytest --basetemp ~", Action.DENY, "~/.ssh/"),
    (S, "python -m pytest --basetemp ~", Action.DENY, "~/.ssh/"),
    (S, "python3 -m pytest -q --basetemp=.claude", Action.DENY, "deletes"),
    (S, "python -m pytest -c ~/.ssh/id_rsa", Action.DENY, "~/.ssh/"),
    (S, "python -m pytest ~/.ssh/id_rsa", Action.DENY, "~/.ssh/"),
    (D, "pytest --basetemp ~/.ssh", Action.DENY, "~/.ssh/"),
    # 1.8 and 2.3: go's output files and programs, cargo --config.
    (S, "go test -o .claude/settings.json -c .", Action.DENY, ".claude/settings.json"),
    (S, "go test -coverprofile=.claude/settings.json ./...", Action.DENY, ".claude/settings.json"),
    (S, "go test -cpuprofile .claude/settings.json ./...", Action.DENY, ".claude/settings.json"),
    (S, "go test --memprofile=.claude/settings.json ./...", Action.DENY, ".claude/settings.json"),
    (S, "go test -outputdir=.claude -trace=settings.json ./...", Action.DENY, ".claude"),
    (S, "go test ./... -args -test.coverprofile=.claude/settings.json", Action.DENY, ".claude/settings.json"),
    (S, "go test -exec 'rm -rf' ./...", Action.ASK, "go -exec"),
    (S, "go test -toolexec=/tmp/evil ./...", Action.ASK, "go -toolexec"),
    # (Under the default, go build runs only confined, whatever it runs: test_sandbox.py.)
    (S, "go build -toolexec /tmp/evil ./...", Action.ASK, "go -toolexec"),
    (S, "go build -ldflags='-linkmode=external -extld=/tmp/evil' .", Action.ASK, "external linker"),
    (S, "cargo build --config 'build.rustc-wrapper=\"/tmp/evil\"'", Action.ASK, "cargo --config"),
    (S, "cargo test --config target.x.runner=/tmp/evil", Action.ASK, "cargo --config"),
    (S, "cargo --config build.rustc-wrapper=/tmp/evil build", Action.ASK, "cargo --config"),
    # 2.2 make: code from the command line.
    (S, "make -E '$(shell rm -rf ~)' x", Action.ASK, "make -E"),
    (S, "make -f /dev/stdin <<< 'all:; @rm -rf ~'", Action.ASK, "makefile from standard input"),
    (S, "make -f - all <<< 'all:; @id'", Action.ASK, "makefile from standard input"),
    (S, "make --file=- all", Action.ASK, "makefile from standard input"),
    (S, "make SHELL=/tmp/evil all", Action.ASK, "names the shell"),
    (S, "make MAKESHELL=/tmp/evil all", Action.ASK, "names the shell"),
    (S, "make 'X!=rm -rf ~' all", Action.ASK, "runs commands or make code"),
    (S, "make 'CFLAGS=$(shell rm -rf ~)' all", Action.ASK, "runs commands or make code"),
    # 1.12 jq and yq filters that read the environment or files.
    (D, "jq -n '$ENV'", Action.ASK, "reads the environment"),
    (D, "jq -n 'env'", Action.ASK, "reads the environment"),
    (D, "jq '$ENV.AWS_SECRET_ACCESS_KEY'", Action.ASK, "reads the environment"),
    (D, "jq -n 'env | .HOME'", Action.ASK, "reads the environment"),
    (D, "gojq -n '$ENV'", Action.ASK, "reads the environment"),
    (D, "jq -n 'import \"m\" as $m; $m' -L .", Action.ASK, "loads modules"),
    (D, "jq -n -f prog.jq", Action.ASK, "comes from a file"),
    (D, "yq -n 'strenv(X)'", Action.ASK, "reads the environment"),
    (D, "yq -n 'env(X)'", Action.ASK, "reads the environment"),
    (D, "yq e 'strenv(AWS_SECRET_ACCESS_KEY)' a.yaml", Action.ASK, "reads the environment"),
    (D, "yq '.a | envsubst' a.yaml", Action.ASK, "reads the environment"),
    (D, "yq -n 'load_str(\"/etc/passwd\")'", Action.ASK, "loads files"),
    (D, "yq -n 'load(\"x.yaml\")'", Action.ASK, "loads files"),
]


@pytest.mark.parametrize(
    ("config", "line", "action", "phrase"), REFUSED, ids=[f"{c}: {line}" for c, line, _, _ in REFUSED]
)
def test_refused(
    machine: tuple[dict[str, Engine], Path], config: str, line: str, action: Action, phrase: str
) -> None:
    engines, project = machine
    decision = engines[config].evaluate(bash(line, project))
    assert decision.action is action, decision.reason
    assert phrase in decision.reason


# The harmless neighbour of each bypass.
ALLOWED: list[tuple[str, str]] = [
    (D, "tmux ls"),
    (D, "tmux has-session -t rt"),
    (D, "tmux list-windows -t main"),
    (D, "git apply --check x.patch"),
    (D, "git apply --stat x.patch"),
    (D, "jq -n --arg x 1 '$x'"),
    (D, "jq -n --arg x 1 --argjson y 2 '$x + $y'"),
    (D, "jq '.env' src/a.json"),
    (D, "jq '{env: .a}' src/a.json"),
    (D, "jq -n '$ARGS' --args a b"),
    (D, "yq '.a' src/a.yaml"),
    (D, "yq eval '.a' src/a.yaml"),
    (D, "git show HEAD"),
    (D, "git show HEAD:src/a.py"),
    (D, "git show ':/fix the bug'"),
    (D, "git cat-file -p HEAD"),
    (D, "git cat-file --batch-check"),
    (D, "git blame src/a.py"),
    (D, "git grep foo"),
    (D, "git grep -n 'TODO:' -- src"),
    (D, "git grep --no-index foo src"),
    (D, "printf -v x %s 1"),
    (D, "printf '%s\\n' a b"),
    (D, "test -v name"),
    (D, "test -v PATH"),
    (D, "test -v 'a[1]'"),
    (D, "wait -n -p pid"),
    (D, "git clean -nf"),
    (S, "pytest -q"),
    (S, "pytest -q -k 'a and not b' src/a.py"),
    (S, "pytest --basetemp=/tmp/pe-bypasses-basetemp -q"),
    (S, "python -m pytest -q"),
    (S, "go test ./..."),
    (S, "go test -v -run TestX -count=1 ./..."),
    (S, "go test -coverprofile=cover.out ./..."),
    (S, "make test"),
    (S, "make -j4 test VERBOSE=1"),
    (S, "cargo build --release"),
    (S, "cargo test -- --nocapture"),
]


@pytest.mark.parametrize(("config", "line"), ALLOWED, ids=[f"{c}: {line}" for c, line in ALLOWED])
def test_the_neighbour_stays_allowed(machine: tuple[dict[str, Engine], Path], config: str, line: str) -> None:
    engines, project = machine
    decision = engines[config].evaluate(bash(line, project))
    assert decision.action is Action.ALLOW, decision.reason


# ---- The analysis itself ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def analyzer(tmp_path_factory: pytest.TempPathFactory) -> Analyzer:
    return Analyzer("/home/me", knowledge(str(tmp_path_factory.mktemp("knowledge"))))


def accesses(analyzer: Analyzer, line: str) -> set[tuple[str, str, str | None]]:
    return {
        (a.path, a.sense.value, str(a.tree) if a.tree else None)
        for atom in analyzer.atoms(line, "/p")
        for a in atom.accesses
    }


def doubts(analyzer: Analyzer, line: str) -> list[str]:
    return [doubt for atom in analyzer.atoms(line, "/p") for doubt in atom.doubts]


def test_a_revision_path_is_read_from_the_working_directory(analyzer: Analyzer) -> None:
    assert ("/p/src/x", "read", None) in accesses(analyzer, "git show 'HEAD@{2024-01-01 10:00}:./src/x'")
    assert ("/p/.env", "read", None) in accesses(analyzer, "git show :2:.env")
    assert accesses(analyzer, "git show ':/fix: bug'") == {("/p", "read", None)}
    assert accesses(analyzer, "git grep 'TODO:'") == {("/p", "read", None)}  # the pattern is no revision


def test_git_grep_outside_the_index_walks_its_tree(analyzer: Analyzer) -> None:
    assert ("/p", "read", "all") in accesses(analyzer, "git grep --no-index foo")
    # -e names the pattern wherever it stands: every operand is then a path, walked whole.
    found = accesses(analyzer, "git grep --untracked src -e foo lib")
    assert {("/p/src", "read", "all"), ("/p/lib", "read", "all")} <= found
    assert accesses(analyzer, "git grep foo src") == {("/p", "read", None)}  # tracked files only


def test_git_checkout_and_restore_write_the_paths_they_name(analyzer: Analyzer) -> None:
    """Red-team round 3: `git checkout HEAD~1 .claude/settings.json` restored an old settings file,
    while the same with `--` was refused. Without `--`, checkout's operands after the revision, and
    restore's operands, are the files written (a directory whole)."""
    assert ("/p/.claude/settings.json", "write", "all") in accesses(
        analyzer, "git checkout HEAD~1 .claude/settings.json"
    )
    assert ("/p/.claude", "write", "all") in accesses(analyzer, "git restore --source=HEAD~1 .claude")
    assert accesses(analyzer, "git checkout main") == {("/p", "write", None)}  # a branch, not a path
    assert ("/p/origin/main", "write", "all") not in accesses(analyzer, "git checkout -b feature main")


def test_git_clean_dry_run_is_read_only_in_either_order(analyzer: Analyzer) -> None:
    """-n wins over -f in git, and in the analysis whatever their order: only $safe-bash's patterns
    (`git clean -n*`) tell `-nf` from `-fn` (severity 4: consistent, and safe)."""
    for line in ("git clean -nf", "git clean -fn", "git clean -f -n", "git clean --dry-run -fd"):
        assert all(atom.read_only for atom in analyzer.atoms(line, "/p")), line


def test_the_options_parsed_go_style_are_whole_words(analyzer: Analyzer) -> None:
    assert ("/p/c.out", "write", None) in accesses(analyzer, "go test -coverprofile c.out ./...")
    assert ("/p/c.out", "write", None) in accesses(analyzer, "go test --coverprofile=c.out ./...")
    # -cover is a flag of its own, not -c with the value "over"; no abbreviation stands for a name.
    assert ("/p", "exec", None) in accesses(analyzer, "go test -cover ./...")
    assert ("/p", "write", None) in accesses(analyzer, "go test -c ./pkg")


def test_an_option_s_leading_words_are_not_its_argument(analyzer: Analyzer) -> None:
    assert accesses(analyzer, "jq -n --arg k .env '$k'") == set()  # --arg NAME VALUE: no file
    assert accesses(analyzer, "jq -n --rawfile k f.txt '$k'") == {("/p/f.txt", "read", None)}


def test_a_computed_word_is_one_doubt(analyzer: Analyzer) -> None:
    assert doubts(analyzer, 'jq ".[$i]" f.json') == [
        '`".[$i]"` is computed at run time (the jq filter reads the environment ($ENV, env), secrets included)'
    ]


def test_doubt_words_must_be_regular_expressions() -> None:
    text = '{ "commands": { "x": { "doubtWords": [ { "match": "(", "doubt": "y" } ] } } }'
    with pytest.raises(ValueError, match="doubtWords"):
        compile_knowledge(text)


def test_the_compiled_knowledge_keeps_the_new_fields(tmp_path: Path) -> None:
    compiled: Knowledge = knowledge(str(tmp_path))
    jq = compiled.entry("jaq")
    assert jq is not None and jq["options"]["--rawfile"] == {"takes": "read", "before": 1}
    git = compiled.entry("git")
    assert git is not None and git["subcommands"]["show"]["revisions"] == "read"


def test_the_entries_for_names_the_walk_reads_itself(tmp_path: Path) -> None:
    """`[ ]`, `[[ ]]`, unset and declarations are statements of their own in tree-sitter-bash, read
    by the walk; their entries judge them run through command or builtin (and wherever the walk
    hands them to the knowledge)."""
    from policy_engine.analysis.shell.collect import Context
    from policy_engine.analysis.shell.effects import command_effects
    from policy_engine.analysis.shell.words import Word

    compiled = knowledge(str(tmp_path))
    cases = [
        (["[", "-v", "a[$(id)]", "]"], "evaluates the subscript"),
        (["[[", "-v", "a[`id`]", "]]"], "evaluates the subscript"),
        (["unset", "-v", "a[$(id)]"], "evaluates the subscript"),
        (["declare", "a[$(id)]=1"], "evaluates the subscript"),
        (["local", "PATH=/tmp/bin"], "sets PATH"),
        (["typeset", "-n", "r=PATH"], "nameref"),
        (["readonly", "IFS"], "sets IFS"),
    ]
    for line, phrase in cases:
        words = [Word(text, True, False, text) for text in line]
        found = command_effects(
            line[0], compiled.entry(line[0]), words, Context("/p", "/home/me", compiled, None)
        )
        assert any(phrase in doubt for doubt in found.doubts), (line, found.doubts)
    for line in (["[", "-v", "PATH", "]"], ["unset", "IFS"], ["export", "PAGER=cat"], ["export", "-n", "X"]):
        words = [Word(text, True, False, text) for text in line]
        found = command_effects(
            line[0], compiled.entry(line[0]), words, Context("/p", "/home/me", compiled, None)
        )
        assert found.doubts == [], (line, found.doubts)


def test_a_literal_file_name_with_a_colon_outside_git_s_objects(analyzer: Analyzer) -> None:
    assert ("/p/a:b", "read", None) in accesses(analyzer, "git diff --no-index a:b c")
