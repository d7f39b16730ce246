"""How much of a coding agent's everyday work is allowed without a prompt (issue 17, "Ask only where it
matters"), measured on a labelled corpus of agent-style command lines.

tests/corpus/agent-workload/repository.jsonc is a small project (a Python package, a TypeScript front
end, a real .env secret beside its .env.example template, a git history with a branch and a tag);
lines.jsonc holds the command lines agents issue in it, each labelled by what it really does
(exploration, project, mutating, destructive). Every line is judged as a bash call in that project
under (a) the embedded default (no policy file) and (b) examples/readonly.jsonc (the read tools and
$safe-bash, everything else denied). The bar: nearly every exploration line is allowed under both and
none is denied by the default; nothing that runs the project, changes something or destroys it is
allowed by the read-only policy; nothing destructive is allowed by the default.

benchmarks/bench.py imports the functions below to report the same rates.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import json5
import pytest

from policy_engine import Action, Engine, ToolCall

REPO = Path(__file__).resolve().parents[2]
WORKLOAD = REPO / "tests" / "corpus" / "agent-workload"
READONLY = REPO / "examples" / "readonly.jsonc"
TLDR_SAMPLE = REPO / "tests" / "data" / "tldr-readonly-sample.jsonl"
TLDR = REPO.parent / "shared" / "corpus" / "tldr.txt"

KINDS = ("exploration", "project", "mutating", "destructive")
EXPLORATION_CAUSES = {
    "plain", "sed-awk", "search", "git", "computed-path", "xargs", "pager", "interpreter", "version",
    "unknown-command", "env-filter", "env-template", "remote-query",
}  # fmt: skip
POLICIES = ("default", "readonly")

# The bar of issue 17.
EXPLORATION_ALLOWED_SHARE = 0.97
TLDR_READ_ONLY_ALLOWED_SHARE = 0.70
REASON_SHOWN = 150  # characters of a decision's reason shown for each miss


@dataclass(frozen=True)
class Line:
    command: str
    kind: str
    cause: str
    secret: bool = False  # it walks a tree that holds the real .env: it must ask, saying how not to


@dataclass(frozen=True)
class Verdict:
    line: Line
    command: str  # as judged: {repo} replaced
    action: Action
    reason: str


def load_lines() -> list[Line]:
    data = json5.loads((WORKLOAD / "lines.jsonc").read_text(encoding="utf-8"))
    return [
        Line(row["command"], row["kind"], row["cause"], row.get("secret", False)) for row in data["lines"]
    ]


def machine(root: Path) -> dict[str, str]:
    """The environment of a fake machine under root: its own home and XDG directories, no managed
    policy file, no daemon, so that nothing of the real user's configuration is judged."""
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(root / "config"),
        "XDG_DATA_HOME": str(root / "data"),
        "XDG_CACHE_HOME": str(root / "cache"),
        "POLICY_ENGINE_MANAGED_CONFIG": str(root / "etc" / "policy.jsonc"),
        "POLICY_ENGINE_DAEMON": "0",
    }


def build_repository(directory: Path, env: Mapping[str, str]) -> Path:
    """Write repository.jsonc's files under directory and run its git commands there (when git is
    installed), with a fixed author and date so that every build has the same history."""
    spec = json5.loads((WORKLOAD / "repository.jsonc").read_text(encoding="utf-8"))
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in spec["files"].items():
        target = directory / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    if shutil.which("git"):
        git_env = {
            **env,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "Ada Developer",
            "GIT_AUTHOR_EMAIL": "ada@example.com",
            "GIT_COMMITTER_NAME": "Ada Developer",
            "GIT_COMMITTER_EMAIL": "ada@example.com",
            "GIT_AUTHOR_DATE": "2026-01-05T10:00:00Z",
            "GIT_COMMITTER_DATE": "2026-01-05T10:00:00Z",
        }
        for arguments in spec["git"]:
            subprocess.run(["git", *arguments], cwd=directory, env=git_env, check=True, capture_output=True)
    return directory


def engines(repository: Path, env: Mapping[str, str]) -> dict[str, Engine]:
    """(a) the embedded default, as where there is no policy file; (b) the read-only example."""
    return {
        "default": Engine(None, cwd=str(repository), env=env),
        "readonly": Engine(str(READONLY), cwd=str(repository), env=env),
    }


def judge(engine: Engine, lines: Iterable[Line], repository: Path) -> list[Verdict]:
    verdicts = []
    for line in lines:
        command = line.command.replace("{repo}", str(repository))
        decision = engine.evaluate(ToolCall("bash", {"command": command}, str(repository)))
        verdicts.append(Verdict(line, command, decision.action, decision.reason))
    return verdicts


def tldr_sample(corpus: Path = TLDR) -> list[tuple[str, bool]] | None:
    """The hand-labelled tldr lines as (command line, read-only), or None without the corpus."""
    if not corpus.exists():
        return None
    lines = corpus.read_text(encoding="utf-8").split("\n")
    rows = [json.loads(row) for row in TLDR_SAMPLE.read_text(encoding="utf-8").splitlines() if row.strip()]
    return [(lines[row["line"] - 1], bool(row["read_only"])) for row in rows]


def share_allowed(verdicts: Iterable[Verdict], kind: str) -> tuple[int, int]:
    """(allowed, total) of the lines of one kind (the searches that would read the secret apart:
    they must ask)."""
    of_kind = [v for v in verdicts if v.line.kind == kind and not v.line.secret]
    return sum(v.action is Action.ALLOW for v in of_kind), len(of_kind)


def rates_text(results: Mapping[str, list[Verdict]]) -> str:
    """One line per policy: the allowed share of every kind."""
    out = []
    for policy, verdicts in results.items():
        parts = []
        for kind in KINDS:
            allowed, total = share_allowed(verdicts, kind)
            parts.append(f"{kind} {allowed}/{total} ({allowed / max(total, 1):.1%})")
        out.append(f"{policy}: " + ", ".join(parts))
    return "\n".join(out)


def misses_text(verdicts: Iterable[Verdict], kind: str = "exploration") -> str:
    """The lines of a kind not allowed, each with its decision and the start of its reason."""
    return "\n".join(
        f"[{v.line.cause}] {v.command!r}: {v.action}: {v.reason[:REASON_SHOWN]}"
        for v in verdicts
        if v.line.kind == kind and not v.line.secret and v.action is not Action.ALLOW
    )


# ---- The tests ---------------------------------------------------------------------------------------

# The project, an engine per policy, and every line's verdict per policy.
Workload = tuple[Path, dict[str, Engine], dict[str, list[Verdict]]]


@pytest.fixture(scope="module")
def workload(tmp_path_factory: pytest.TempPathFactory) -> Workload:
    root = tmp_path_factory.mktemp("agent-workload")
    env = machine(root)
    repository = build_repository(root / "work" / "app", env)
    judges = engines(repository, env)
    lines = load_lines()
    results = {policy: judge(engine, lines, repository) for policy, engine in judges.items()}
    print("\nagent workload, allowed without a prompt:\n" + rates_text(results))
    return repository, judges, results


def test_the_corpus_is_large_and_labelled() -> None:
    lines = load_lines()
    assert len(lines) >= 420
    assert len({line.command for line in lines}) == len(lines), "a line is listed twice"
    assert {line.kind for line in lines} == set(KINDS)
    exploration = [line for line in lines if line.kind == "exploration"]
    assert 0.5 <= len(exploration) / len(lines) <= 0.7
    assert {line.cause for line in exploration} == EXPLORATION_CAUSES
    assert all(line.cause for line in lines)


@pytest.mark.skipif(not shutil.which("git"), reason="git is not installed")
def test_the_repository_is_a_git_repository_with_a_secret(tmp_path: Path) -> None:
    repository = build_repository(tmp_path / "app", machine(tmp_path))
    assert (repository / ".env").exists() and (repository / ".env.example").exists()
    log = subprocess.run(["git", "log", "--oneline"], cwd=repository, capture_output=True, text=True)
    assert len(log.stdout.splitlines()) >= 2
    ignored = subprocess.run(["git", "check-ignore", ".env"], cwd=repository, capture_output=True, text=True)
    assert ignored.stdout.strip() == ".env"


@pytest.mark.parametrize("policy", POLICIES)
def test_exploration_is_allowed(workload: Workload, policy: str) -> None:
    _, _, results = workload
    allowed, total = share_allowed(results[policy], "exploration")
    assert allowed / total >= EXPLORATION_ALLOWED_SHARE, (
        f"{allowed} of {total} exploration lines allowed under {policy} ({allowed / total:.1%}); "
        f"not allowed:\n{misses_text(results[policy])}"
    )


def test_no_exploration_is_denied_by_the_default(workload: Workload) -> None:
    """Under readonly.jsonc whatever is not allowed is denied (its defaultAction); under the default
    a line that only looks may at worst ask."""
    _, _, results = workload
    denied = [v for v in results["default"] if v.line.kind == "exploration" and v.action is Action.DENY]
    assert denied == [], "\n".join(f"{v.command!r}: {v.reason[:REASON_SHOWN]}" for v in denied)


@pytest.mark.parametrize("policy", POLICIES)
def test_a_search_that_would_read_the_secret_asks_how_to_leave_it_out(
    workload: Workload, policy: str
) -> None:
    """grep -rn TODO . in a project holding a real .env: not a bare deny, not an allow, but an ask
    whose reason proposes the narrower search."""
    _, _, results = workload
    searches = [v for v in results[policy] if v.line.secret]
    assert len(searches) >= 5
    for verdict in searches:
        assert verdict.action is Action.ASK, (verdict.command, verdict.reason)
        assert "--exclude='.env*'" in verdict.reason and "rg" in verdict.reason, verdict.reason


def test_the_readonly_policy_allows_nothing_but_exploration(workload: Workload) -> None:
    _, _, results = workload
    allowed = [v for v in results["readonly"] if v.line.kind != "exploration" and v.action is Action.ALLOW]
    assert allowed == [], "\n".join(
        f"[{v.line.kind}] {v.command!r}: {v.reason[:REASON_SHOWN]}" for v in allowed
    )


def test_the_default_allows_nothing_destructive(workload: Workload) -> None:
    _, _, results = workload
    allowed = [v for v in results["default"] if v.line.kind == "destructive" and v.action is Action.ALLOW]
    assert allowed == [], "\n".join(f"{v.command!r}: {v.reason[:REASON_SHOWN]}" for v in allowed)


@pytest.mark.skipif(not TLDR.exists(), reason=f"no corpus at {TLDR}")
@pytest.mark.parametrize("policy", POLICIES)
def test_most_read_only_tldr_lines_are_allowed(workload: Workload, policy: str) -> None:
    repository, judges, _ = workload
    sample = tldr_sample() or []
    read_only = [Line(line, "exploration", "tldr") for line, is_read_only in sample if is_read_only]
    verdicts = judge(judges[policy], read_only, repository)
    allowed = sum(v.action is Action.ALLOW for v in verdicts)
    print(f"\ntldr sample under {policy}: {allowed} of {len(read_only)} read-only lines allowed")
    assert allowed / len(read_only) >= TLDR_READ_ONLY_ALLOWED_SHARE, (
        f"{allowed} of {len(read_only)} read-only tldr lines allowed under {policy} "
        f"({allowed / len(read_only):.1%})"
    )
