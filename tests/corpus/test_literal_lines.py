"""Lines of literal words are judged without tree-sitter; the atoms must be exactly those the parse
gives, for every such line of the corpus and for generated ones."""

from __future__ import annotations

import pytest
from helpers import CORPUS
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from policy_engine.analysis.shell.analysis import Analyzer, literal_words
from policy_engine.analysis.shell.knowledge import knowledge

CWD = "/home/me/p"


@pytest.fixture(scope="module")
def analyzer(tmp_path_factory: pytest.TempPathFactory) -> Analyzer:
    return Analyzer("/home/me", knowledge(str(tmp_path_factory.mktemp("cache"))))


def same(analyzer: Analyzer, line: str) -> None:
    assert literal_words(line) is not None, line
    assert analyzer._line(line, CWD, 0) == analyzer._parsed(line, CWD, 0), line


@pytest.mark.parametrize(
    "line",
    [
        "git status",
        "ls -la",
        "  npm   run build  ",
        "rm -rf build",
        "sudo rm -rf /",
        "env FOO=1 python3 x.py",
        "find . -name x -delete",
        "xargs rm",
        "timeout 5 curl https://example.com/a,b",
        "cd /tmp",
        "git commit -m fix",
        "python3 -m pytest -x",
        "bash",
        "cat /etc/passwd",
        "chmod -R 777 .",
        "dd if=/dev/zero of=/tmp/x",
        "tar czf /tmp/a.tgz .",
    ],
)
def test_literal_lines_give_the_atoms_of_the_parse(analyzer: Analyzer, line: str) -> None:
    same(analyzer, line)


@pytest.mark.parametrize(
    "line",
    [
        "FOO=1 ls",
        "ls *.py",
        "echo $HOME",
        "ls ~",
        "a; b",
        "a && b",
        "a | b",
        "echo 'x'",
        "ls # c",
        "if",
        "{a,b}",
        "",
        "1%",  # the grammar stumbles on these first words
        "a@ x",
        "A+: x",
        "- a@b%c",
    ],
)
def test_other_lines_are_parsed(line: str) -> None:
    assert literal_words(line) is None


WORD = st.text("abz019_./:=,+@%-", min_size=1, max_size=8)


@given(
    st.lists(WORD, min_size=1, max_size=6), st.sampled_from(["ls", "git", "rm", "env", "sudo", "find", "cat"])
)
@settings(max_examples=2000, deadline=None)
def test_generated_literal_lines(analyzer: Analyzer, words: list[str], name: str) -> None:
    line = " ".join([name, *words])
    assume(literal_words(line) is not None)  # a word starting with = is left to the parse
    same(analyzer, line)


@pytest.mark.skipif(not (CORPUS / "tldr.txt").exists(), reason="needs ../shared/corpus")
def test_every_literal_corpus_line(analyzer: Analyzer) -> None:
    lines = [
        line.strip()
        for name in ("tldr.txt", "nl2bash.txt")
        for line in (CORPUS / name).read_text(encoding="utf-8").splitlines()
    ]
    literal = [line for line in lines if line and literal_words(line) is not None]
    assert len(literal) > 1000  # the fast path is worth having
    different = [line for line in literal if analyzer._line(line, CWD, 0) != analyzer._parsed(line, CWD, 0)]
    assert different == []


ARGUMENTS = [
    *("-r", "-rf", "x", "/etc/passwd", "a.txt", "--force", "-c", "run", "test", "-m", "pytest", "-e", "1"),
    *(
        "-i",
        "-o",
        "out",
        "build/",
        "..",
        ".",
        "-",
        "--",
        "a=b",
        "-n",
        "5",
        "install",
        "push",
        "origin",
        "main",
    ),
    *(
        "-delete",
        "-exec",
        "rm",
        "+",
        "@file",
        "%d",
        "x:y",
        "-f",
        "/",
        "--output=out",
        "if=/dev/zero",
        "of=/x",
    ),
]


def test_every_known_command_with_literal_arguments(analyzer: Analyzer) -> None:
    import random

    from policy_engine.analysis.shell.knowledge import DATA
    from policy_engine.config.jsonc import parse

    with open(DATA, encoding="utf-8") as handle:
        data = parse(handle.read(), DATA).data
    names = [*data["commands"], *data.get("aliases", {})]
    chooser = random.Random(7)
    lines = [
        " ".join([name, *chooser.sample(ARGUMENTS, chooser.randint(0, 5))])
        for name in names
        for _ in range(4)
    ]
    literal = [line for line in lines if literal_words(line) is not None]
    assert len(literal) > 2000
    different = [line for line in literal if analyzer._line(line, CWD, 0) != analyzer._parsed(line, CWD, 0)]
    assert different == []


LINE_WORD = st.text("aZ09_./:=,+@%-", min_size=1, max_size=6)


@given(st.lists(LINE_WORD, min_size=1, max_size=5).map(" ".join))
@settings(max_examples=3000, deadline=None)
def test_a_literal_line_is_one_the_grammar_parses(line: str) -> None:
    # Where the grammar fails, the line is asked about; the fast path must not judge such a line.
    from policy_engine.analysis.shell.grammar import parse

    if literal_words(line) is not None:
        assert not parse(line.encode()).root_node.has_error, line
