"""Matching time: a rule glob of many ``*`` is matched in linear time, as text and by options, and
``policy check`` answers within the hook's time limit, refusing what it could not judge in time.

Time is not measured here (that is benchmarks/bench.py's job): the tests count the steps of the
matchers, which must grow with the line's length, not faster.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import Sandbox
from hypothesis import given, settings
from hypothesis import strategies as st

from policy_engine import cli
from policy_engine.analysis.shell.commandline import ANY, Reader, _operands_match
from policy_engine.analysis.shell.knowledge import knowledge
from policy_engine.engine import Engine
from policy_engine.globs import glob_matches, glob_steps

SIX_STARS = "echo * * * * * *.sh"
SIZES = (1_000, 2_000, 5_000, 10_000)


def line(size: int, unit: str, end: str = "") -> str:
    """An ``echo`` line of about ``size`` bytes: ``unit`` repeated, then ``end``."""
    return "echo " + unit * ((size - 5 - len(end)) // len(unit)) + end


# Lines each glob almost matches: where a backtracking matcher tries every split of the line.
SHAPES = {
    "words, no .sh": ("a ", ""),
    "words ending .s": ("a ", "x.s"),
    "one long word": ("a", ""),
    "scripts, matched": ("x.sh ", "y.sh"),
    "scripts, one short": ("x.sh ", "y.s"),
    # The end matches, so the middle of the glob is searched for through the whole line.
    "one long word, .sh at the end": ("a", ".sh"),
    "words, a script at the end": ("a ", "x.sh"),
    "words with dots, a script at the end": ("a.s ", "x.sh"),
}


def assert_linear(steps: dict[int, int]) -> None:
    """The work at each size is bounded by the same multiple of the size: no faster growth."""
    for size, count in steps.items():
        assert count <= 3 * size + 100, (size, count)
    assert steps[SIZES[-1]] <= 12 * max(steps[SIZES[0]], 10), steps


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("glob", [SIX_STARS, "echo * * *.sh", "echo *a*a*a*a*a*b", "echo *a?a* ?? *.sh"])
def test_a_glob_of_many_stars_is_matched_in_linear_steps(glob: str, shape: str) -> None:
    unit, end = SHAPES[shape]
    steps: dict[int, int] = {}
    for size in SIZES:
        text = line(size, unit, end)
        matched, steps[size] = glob_steps(glob, text)
        assert matched is glob_matches(glob, text)  # the counted walk is the one rules match with
    assert_linear(steps)


def test_the_steps_counted_are_the_work_done() -> None:
    # Where the middle of the glob must be searched for through the line, the count grows with it.
    steps = [glob_steps(SIX_STARS, line(size, "a", ".sh"))[1] for size in SIZES]
    assert steps[-1] >= 5 * steps[0] and steps[0] >= 900, steps
    reader = Reader(knowledge())
    counts = []
    for size in SIZES:
        counter = [0]
        reader.matches("echo * a * x.s * *.sh", tuple(line(size, "a ", "x.sh").split()), counting(counter))  # type: ignore[arg-type]
        counts.append(counter[0])
    assert counts[-1] >= 5 * counts[0] and counts[0] >= 400, counts


def test_the_six_star_glob_still_matches_what_it_matched() -> None:
    assert glob_matches(SIX_STARS, line(10_000, "x.sh ", "y.sh"))
    assert glob_matches(SIX_STARS, "echo a b c d e f.sh")
    assert glob_matches(SIX_STARS, "echo      .sh")  # each * may be empty
    assert not glob_matches(SIX_STARS, "echo     .sh")  # one space short
    assert not glob_matches(SIX_STARS, line(10_000, "x.sh ", "y.s"))


def counting(steps: list[int]) -> object:
    """A ``glob_matches`` for the option-aware matcher that adds each word match's steps."""

    def matches(glob: str, text: str) -> bool:
        matched, count = glob_steps(glob, text)
        steps[0] += count
        return matched

    return matches


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("pattern", [SIX_STARS, "echo * a * x.s * *.sh", "echo * -n * * * *.sh"])
def test_a_pattern_of_many_stars_is_matched_by_options_in_linear_steps(pattern: str, shape: str) -> None:
    unit, end = SHAPES[shape]
    reader = Reader(knowledge())
    steps: dict[int, int] = {}
    for size in SIZES:
        words = tuple(line(size, unit, end).split())
        counter = [0]
        found = reader.matches(pattern, words, counting(counter))  # type: ignore[arg-type]
        steps[size] = counter[0]
        assert found == reader.matches(pattern, words, glob_matches)
    assert_linear(steps)


def test_the_six_star_pattern_matches_by_options_as_before() -> None:
    reader = Reader(knowledge())
    assert reader.matches(SIX_STARS, tuple(line(10_000, "x.sh ", "y.sh").split()), glob_matches) is True
    assert reader.matches(SIX_STARS, ("echo", "a", "-n", "b.sh"), glob_matches) is True
    assert reader.matches(SIX_STARS, ("echo", "a", "b.s"), glob_matches) is False
    assert reader.matches("echo * a * b", ("echo", "b", "a", "a", "b"), glob_matches) is True
    assert reader.matches("echo * a * b", ("echo", "b", "a", "b", "a"), glob_matches) is False


POLICY = """
{ "extends": null,
  "onError": "allow",
  "policies": { "p": { "defaultAction": "allow", "rules": [
    { "action": "deny", "tool": "bash", "pattern": "echo * * * * * *.sh" } ] } },
  "defaultPolicy": "p" }
"""


def refused(reason: str, limit: str) -> bool:
    return "could not judge this call" in reason and f"took longer than {limit} s" in reason


SLOW = "echo slow.sh"
# `policy check` in a process of its own whose engine takes a minute to judge SLOW: a stand-in for
# any slow path (the hook's deadline interrupts it wherever it is).
SLOW_CHECK = f"""
import sys, time
from policy_engine import cli
from policy_engine.engine import Engine

evaluate = Engine.evaluate

def slow(self, call):
    if call.input.get("command") == {SLOW!r}:
        time.sleep(60)
    return evaluate(self, call)

Engine.evaluate = slow
sys.exit(cli.main(sys.argv[1:]))
"""


def slow_check(
    sandbox: Sandbox, *args: str, limit: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    # The limit covers starting the engine too: 5 s leaves a loaded machine room for that. The
    # caches warm first (the command knowledge, the policy compiled): the first check on a
    # machine takes most of a second, which is not what these tests cut off.
    sandbox.run("check", *args[:2], "ls")
    return subprocess.run(
        [sys.executable, "-c", SLOW_CHECK, "check", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=str(sandbox.root),
        env={**sandbox.env, "POLICY_ENGINE_HOOK_TIMEOUT": limit},
        timeout=50,
    )


def test_policy_check_refuses_a_call_it_cannot_judge_in_time(sandbox: Sandbox) -> None:
    # The answer is the hook's refusal: a deny, though the file says "onError": "allow", with the
    # exit status of a deny, and the limit named with what to change.
    config = sandbox.write("policy.jsonc", POLICY)
    started = time.monotonic()
    result = slow_check(sandbox, "--config", str(config), SLOW, limit="5")
    assert time.monotonic() - started < 40  # cut off, not slept through
    assert result.returncode == 20, result.stderr
    assert result.stdout.startswith("deny: ") and refused(result.stdout, "5"), result.stdout
    assert "POLICY_ENGINE_HOOK_TIMEOUT" in result.stdout
    answer = json.loads(slow_check(sandbox, "--config", str(config), "--json", SLOW, limit="5").stdout)
    assert answer["action"] == "deny" and answer["timeout"] == 5 and refused(answer["reason"], "5")
    assert answer["trace"]["decided_by"] is None
    # Within the limit, a call is judged.
    judged = slow_check(sandbox, "--config", str(config), "echo a.sh", limit="5")
    assert judged.returncode == 20 and "rule deny bash" in judged.stdout, judged.stdout


def test_a_limit_that_is_no_number_of_seconds_is_said_and_the_hooks_default_applies(sandbox: Sandbox) -> None:
    config = sandbox.write("policy.jsonc", POLICY)
    result = sandbox.run("check", "--config", str(config), "ls", env={"POLICY_ENGINE_HOOK_TIMEOUT": "0"})
    assert result.returncode == 0, result.stderr  # judged: 0 is not "no time"
    assert "POLICY_ENGINE_HOOK_TIMEOUT=0" in result.stderr


def test_each_line_of_a_batch_is_refused_when_it_cannot_be_judged_in_time(sandbox: Sandbox) -> None:
    config = sandbox.write("policy.jsonc", POLICY)
    requests = "".join(json.dumps({"command": c}) + "\n" for c in ("ls", SLOW, "echo a.sh", "ls"))
    result = slow_check(sandbox, "--config", str(config), "--batch", "-", stdin=requests, limit="5")
    assert result.returncode == 0, result.stderr  # every line was read
    answers = [json.loads(text) for text in result.stdout.splitlines()]
    assert [a["action"] for a in answers] == ["allow", "deny", "deny", "allow"]
    assert refused(answers[1]["reason"], "5")
    assert "timeout" not in answers[2] and answers[2]["trace"]["decided_by"] is not None


@pytest.fixture
def slow_engine(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``policy check`` run in this process, with a limit of 3 s and an engine that takes 60 s to
    judge ``SLOW`` (a stand-in for any slow path: the hook's deadline interrupts it)."""
    for name, value in sandbox.env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("POLICY_ENGINE_HOOK_TIMEOUT", "3")
    evaluate = Engine.evaluate

    def slow(self: Engine, call: object) -> object:
        if call.input.get("command") == SLOW:  # type: ignore[attr-defined]
            time.sleep(60)
        return evaluate(self, call)  # type: ignore[arg-type]

    monkeypatch.setattr(Engine, "evaluate", slow)
    return sandbox.write("policy.jsonc", POLICY)


def test_a_slow_check_is_cut_off_at_the_limit_and_refused(
    slow_engine: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    status = cli.main(["check", "--config", str(slow_engine), SLOW])
    assert time.monotonic() - started < 30  # cut off, not slept through
    out = capsys.readouterr().out
    assert status == 20 and out.startswith("deny: ") and refused(out, "3"), out
    # The alarm is gone with the call: a later check in the same process is judged in full.
    assert cli.main(["check", "--config", str(slow_engine), "echo a.sh"]) == 20
    assert "rule deny bash" in capsys.readouterr().out


def test_a_slow_line_of_a_batch_is_refused_and_the_next_ones_judged(
    slow_engine: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    commands = ("ls", SLOW, "echo a.sh", "ls")
    monkeypatch.setattr(
        sys, "stdin", io.StringIO("".join(json.dumps({"command": c}) + "\n" for c in commands))
    )
    assert cli.main(["check", "--config", str(slow_engine), "--batch", "-"]) == 0
    answers = [json.loads(text) for text in capsys.readouterr().out.splitlines()]
    assert [a["action"] for a in answers] == ["allow", "deny", "deny", "allow"]
    assert refused(answers[1]["reason"], "3") and answers[1]["timeout"] == 3
    assert "timeout" not in answers[2] and answers[2]["trace"]["decided_by"] is not None


def reference_operands(wanted: list[str], given: list[str]) -> bool:
    """Operands in order, ``ANY`` any run of words: every position each word may end at (the
    matcher's former way, quadratic at worst)."""
    reachable = {0}
    for word in wanted:
        if word == ANY:
            reachable = set(range(min(reachable), len(given) + 1)) if reachable else set()
        else:
            reachable = {i + 1 for i in reachable if i < len(given) and glob_matches(word, given[i])}
    return len(given) in reachable


@settings(max_examples=2000, deadline=None)
@given(
    st.lists(st.sampled_from([ANY, "a", "b", "a*", "?", "*b"]), max_size=7),
    st.lists(st.sampled_from(["a", "b", "ab", "ba", ""]), max_size=9),
)
def test_operands_are_matched_as_before(wanted: list[str], given: list[str]) -> None:
    assert _operands_match(wanted, given, glob_matches) is reference_operands(wanted, given)
