"""Benchmark: in-process evaluation cost, and the start-up cost of one `policy check` process.

Run: python benchmarks/bench.py [--corpus DIR] [--config FILE] [--runs N] [--memory CALLS]
                               [--only SECTION,...]

1. Evaluation: every command line of the shared corpora (tldr.txt and nl2bash.txt) and of the
   agent-workload corpus, judged as a bash call in a real project tree (the agent-workload
   repository, under a fake home) under the embedded default and examples/sample.jsonc, each by
   one Engine that lives through all the lines (as the daemon's does); median, p90, p99, mean and
   max µs per line; then the shell analysis alone.
2. Inline code: a `python3 -c` one-liner, a 9-line python3 heredoc program and a `node -e` program
   beside a plain command, judged by one in-process Engine (grammars loaded before timing); medians
   and their ratio to the plain command.
3. Start-up: `policy check "git status"` and `policy check "python3 -c ..."` as new processes
   (compiled cache warm) beside `python -c pass`, run alternately so that all see the same machine
   load; medians and their ratios.
4. Hooks: the command `policy install` writes for Claude Code fed a PreToolUse payload in a session
   (state store and decision log on, in a scratch state directory): `git status` without and with
   the daemon (`policy serve`), and without it a Read and a line that must be parsed (a pipe);
   `git status` as the first call after a policy edit (its compiled cache cold), without and with
   the daemon; beside `python -c pass`; medians, p95 and their ratios.
5. Auto-allow rates: the agent-workload corpus (tests/corpus/agent-workload: command lines as coding
   agents issue them, labelled exploration, project, mutating or destructive) judged in its project
   under the embedded default and examples/readonly.jsonc: the share of each kind allowed without a
   prompt; the share of the read-only lines of the hand-labelled tldr sample
   (tests/data/tldr-readonly-sample.jsonl) allowed under each; and the share of every corpus line
   (tldr.txt and nl2bash.txt, read-only or not) each allows.

6. Glob time: the rule glob `echo * * * * * *.sh` against `echo` lines of 1 KB and 10 KB that it
   almost matches, as text (globs.glob_matches) and by options (the option-aware matcher of a deny
   rule), and the whole `Engine.evaluate` of such a line under a deny and an allow rule; the worst
   median of the line shapes, in ms.
7. Growth: one evaluation of `cat` and `rm` lines of file operands, 1, 4, 16 and 64 KB long, in a
   scratch project under the embedded default; medians in ms and how much longer the longest takes
   than the shortest (linear: at most about 64x).
8. Locations: one evaluation of `find . -name '*.o' -delete` in a project with 10, 100, 1,000 and
   10,000 locations below it (the walk reaches each, and each is located): medians in ms.
9. Searches: `grep -rn TODO .` in a project of 4,000 files in 520 directories, under the embedded
   default, by one Engine: the first evaluation (the tree walked), the second (walked again, the
   directories' stamps taken), later ones (the tree unchanged: what the walk found is used again,
   each directory looked at once), and one after a file was added deep in the tree (walked
   again); medians in ms.
10. Daemon memory (--memory CALLS, off by default: some minutes): the daemon's per-request path
   (hook.run with the daemon's engines) in this process for CALLS hook calls of varied commands,
   working directories and sessions, in a scratch state directory; RSS before and after, and its
   growth per 10,000 calls.

Figures on a shared machine are noisy: compare ratios measured in one run, not absolute times
across runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"


def _import_tests() -> None:
    """Make the test helpers importable (the agent-workload repository and corpus live there)."""
    for folder in (REPO / "tests" / "corpus", REPO / "tests"):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))


def corpus_lines(directory: Path) -> list[str]:
    lines: list[str] = []
    for name in ("tldr.txt", "nl2bash.txt"):
        path = directory / name
        if path.exists():
            lines += [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return lines


def percentile(sorted_values: list[float], fraction: float) -> float:
    index = min(len(sorted_values) - 1, round(fraction * (len(sorted_values) - 1)))
    return sorted_values[index]


def per_line(timings: list[float]) -> dict[str, float]:
    """Median, p90, p99, mean and max of per-line times (µs)."""
    ordered = sorted(timings)
    return {
        "lines": len(ordered),
        "median_us": statistics.median(ordered),
        "p90_us": percentile(ordered, 0.90),
        "p99_us": percentile(ordered, 0.99),
        "mean_us": statistics.fmean(ordered),
        "max_us": ordered[-1],
    }


def bench_evaluation(
    corpora: dict[str, list[str]], policies: dict[str, Path | None]
) -> dict[tuple[str, str], dict[str, float]]:
    """Per-line figures of each corpus under each policy, judged as bash calls in a real project
    tree (the agent-workload repository: git history, a .env, sources) under a fake home, by one
    Engine per policy that lives through all lines, as the daemon's does."""
    import tempfile

    _import_tests()
    from test_agent_workload import build_repository, machine

    from policy_engine import Engine, ToolCall

    results: dict[tuple[str, str], dict[str, float]] = {}
    clock = time.perf_counter_ns
    with tempfile.TemporaryDirectory(prefix="policy-bench-evaluation-") as scratch:
        env = machine(Path(scratch))
        repository = str(build_repository(Path(scratch) / "work" / "app", env))
        for policy, config in policies.items():
            engine = Engine(str(config) if config else None, cwd=repository, env=env)
            for corpus, lines in corpora.items():
                calls = [
                    ToolCall("bash", {"command": line.replace("{repo}", repository)}, repository)
                    for line in lines
                ]
                for call in calls[:200]:  # warm the rule indexes and regex caches, as a long-lived engine
                    engine.evaluate(call)
                timings = []
                for call in calls:
                    start = clock()
                    engine.evaluate(call)
                    timings.append((clock() - start) / 1000)
                results[policy, corpus] = per_line(timings)
    return results


def agent_lines() -> list[str]:
    """The agent-workload corpus's command lines (tests/corpus/agent-workload), its {repo} placeholder
    left as written."""
    _import_tests()
    from test_agent_workload import load_lines

    return [line.command for line in load_lines()]


def bench_analysis(lines: list[str], cwd: str) -> dict[str, float]:
    """The shell analysis alone: parse, walk, wrappers and effects, per command line."""
    from policy_engine.analysis.shell.analysis import Analyzer
    from policy_engine.analysis.shell.knowledge import knowledge
    from policy_engine.config.cache import cache_directory

    analyzer = Analyzer(os.path.expanduser("~"), knowledge(cache_directory(os.environ)))
    timings = []
    clock = time.perf_counter_ns
    for line in lines:
        start = clock()
        analyzer.atoms(line, cwd)
        timings.append((clock() - start) / 1000)
    timings.sort()
    return {"median_us": statistics.median(timings), "p99_us": percentile(timings, 0.99)}


# A typical inline program of an agent: imports, a file read, a write in the project, a subprocess.
PYTHON_PROGRAM = """python3 - <<'EOF'
import json, subprocess
from pathlib import Path

data = json.loads(Path("package.json").read_text())
Path("out").mkdir(exist_ok=True)
with open("out/names.txt", "w") as f:
    f.write("\\n".join(sorted(data.get("dependencies", {}))))
print(subprocess.run(["git", "status", "--short"], capture_output=True, text=True).stdout)
EOF"""
NODE_PROGRAM = """node -e "const fs = require('fs');
const p = JSON.parse(fs.readFileSync('package.json', 'utf8'));
fs.writeFileSync('out.json', JSON.stringify(Object.keys(p.dependencies || {})))" """
PYTHON_ONE_LINER = """python3 -c "import json; print(json.load(open('package.json'))['name'])" """
PLAIN = "git status"


def bench_inline(config: Path, cwd: str, rounds: int = 300) -> dict[str, float]:
    """Median µs to judge each inline program and the plain command, interleaved, in one Engine."""
    from policy_engine import Engine, ToolCall

    engine = Engine(str(config), cwd=cwd)
    commands = {"plain": PLAIN, "python -c": PYTHON_ONE_LINER, "python": PYTHON_PROGRAM, "node": NODE_PROGRAM}
    calls = {name: ToolCall("bash", {"command": text}, cwd) for name, text in commands.items()}
    for call in calls.values():  # load the grammars and analyses first
        engine.evaluate(call)
    timings: dict[str, list[float]] = {name: [] for name in calls}
    clock = time.perf_counter_ns
    for _ in range(rounds):
        for name, call in calls.items():
            start = clock()
            engine.evaluate(call)
            timings[name].append((clock() - start) / 1000)
    return {name: statistics.median(values) for name, values in timings.items()}


def bench_startup(config: Path, runs: int, cwd: str) -> dict[str, float]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a real install has its bytecode compiled
    check = [sys.executable, "-m", "policy_engine", "check", "--config", str(config), "--cwd", cwd]
    commands = {
        "check": [*check, PLAIN],
        "python": [*check, PYTHON_PROGRAM],
        "bare": [sys.executable, "-c", "pass"],
    }
    for command in (*commands.values(), *commands.values()):  # warm: bytecode, caches, page cache
        subprocess.run(command, env=env, stdout=subprocess.DEVNULL, check=False)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            start = time.perf_counter()
            subprocess.run(command, env=env, stdout=subprocess.DEVNULL, check=False)
            times[name].append((time.perf_counter() - start) * 1000)
    medians = {name: statistics.median(values) for name, values in times.items()}
    return {
        "runs": runs,
        "check_ms": medians["check"],
        "python_check_ms": medians["python"],
        "python_pass_ms": medians["bare"],
        "ratio": medians["check"] / medians["bare"],
        "python_ratio": medians["python"] / medians["bare"],
    }


PARSED = "git log --oneline | head -5"  # a pipe: the line is parsed (tree-sitter is loaded)


def bench_hook(config: Path, runs: int, cwd: str) -> dict[str, float]:
    import json
    import tempfile

    scratch = tempfile.mkdtemp(prefix="policy-bench-")
    env = dict(os.environ, POLICY_ENGINE_CONFIG=str(config), POLICY_ENGINE_STATE_DIR=scratch)
    env.pop("PYTHONDONTWRITEBYTECODE", None)

    def payload(tool: str, tool_input: dict[str, str]) -> str:
        return json.dumps(
            {
                "session_id": "bench",
                "cwd": cwd,
                "hook_event_name": "PreToolUse",
                "tool_name": tool,
                "tool_input": tool_input,
                "tool_use_id": "t",
            }
        )

    plain = payload("Bash", {"command": PLAIN})
    # The first call after a policy edit: a copy of the policy, changed before each run, so that its
    # compiled cache misses (the command knowledge, compiled per version, stays warm).
    edited = Path(scratch) / "edited.jsonc"
    edited_text = config.read_text(encoding="utf-8")
    edits = iter(range(1_000_000))

    def edit() -> None:
        edited.write_text(f"{edited_text}\n// edit {next(edits)}\n", encoding="utf-8")

    edit()
    cold_cache = str(Path(scratch) / "cold-cache")
    from policy_engine.hook.install import executable

    hook = [*executable(), "hook", "--agent", "claude"]  # the command `policy install` writes
    direct = dict(env, POLICY_ENGINE_DAEMON="0")
    daemon = subprocess.Popen([sys.executable, "-m", "policy_engine", "serve", "--idle", "300"], env=env)
    try:
        deadline = time.monotonic() + 20
        while not os.path.exists(os.path.join(scratch, "daemon.sock")) and time.monotonic() < deadline:
            time.sleep(0.05)
        kinds = {
            "direct": (hook, direct, plain),
            "direct_read": (hook, direct, payload("Read", {"file_path": f"{cwd}/README.md"})),
            "direct_parsed": (hook, direct, payload("Bash", {"command": PARSED})),
            "daemon": (hook, dict(env, POLICY_ENGINE_DAEMON="1"), plain),
            # A cache directory of their own: each edit writes a compiled file, and the cache keeps
            # 16, so in the shared one the other kinds' files would be pruned and compiled again.
            "cold": (hook, dict(direct, POLICY_ENGINE_CONFIG=str(edited), XDG_CACHE_HOME=cold_cache), plain),
            "cold_daemon": (
                hook,
                dict(
                    env, POLICY_ENGINE_DAEMON="1", POLICY_ENGINE_CONFIG=str(edited), XDG_CACHE_HOME=cold_cache
                ),
                plain,
            ),
            "bare": ([sys.executable, "-c", "pass"], env, plain),
        }
        times: dict[str, list[float]] = {name: [] for name in kinds}
        for round_ in range(runs + 2):
            for name, (command, kind_env, text) in kinds.items():
                if name.startswith("cold"):
                    edit()
                start = time.perf_counter()
                subprocess.run(command, input=text, text=True, env=kind_env, capture_output=True, check=False)
                if round_ >= 2:  # the first two rounds warm bytecode, caches and the daemon
                    times[name].append((time.perf_counter() - start) * 1000)
    finally:
        daemon.terminate()
        daemon.wait()
    bare = statistics.median(times["bare"])
    result: dict[str, float] = {"runs": runs, "python_pass_ms": bare}
    for name in kinds.keys() - {"bare"}:
        values = sorted(times[name])
        result[f"{name}_ms"] = statistics.median(values)
        result[f"{name}_p95_ms"] = percentile(values, 0.95)
        result[f"{name}_ratio"] = statistics.median(values) / bare
        result[f"{name}_p95_ratio"] = percentile(values, 0.95) / bare
    return result


def bench_workload(corpus: Path, everything: list[str]) -> dict[str, dict[str, tuple[int, int]]]:
    """(allowed, total) per kind of the agent-workload lines, of the tldr sample's read-only lines
    and of ``everything`` (every corpus line, read-only or not), per policy; the corpus, its project
    and the policies are those of tests/corpus/test_agent_workload.py."""
    import tempfile

    _import_tests()
    import test_agent_workload as workload

    from policy_engine import Action, ToolCall

    lines = workload.load_lines()
    sample = workload.tldr_sample(corpus / "tldr.txt") or []
    tldr = [workload.Line(line, "tldr", "tldr") for line, read_only in sample if read_only]
    rates: dict[str, dict[str, tuple[int, int]]] = {}
    with tempfile.TemporaryDirectory(prefix="policy-bench-workload-") as scratch:
        env = workload.machine(Path(scratch))  # a fake home: the user's own policy is not judged
        repository = workload.build_repository(Path(scratch) / "work" / "app", env)
        for policy, engine in workload.engines(repository, env).items():
            verdicts = workload.judge(engine, lines, repository)
            rates[policy] = {kind: workload.share_allowed(verdicts, kind) for kind in workload.KINDS}
            if tldr:
                judged = workload.judge(engine, tldr, repository)
                rates[policy]["tldr read-only"] = (sum(v.action is Action.ALLOW for v in judged), len(judged))
            allowed = sum(
                engine.evaluate(ToolCall("bash", {"command": line}, str(repository))).action is Action.ALLOW
                for line in everything
            )
            rates[policy]["tldr+nl2bash, all lines"] = (allowed, len(everything))
    return rates


SIX_STARS = "echo * * * * * *.sh"


def glob_lines(size: int) -> dict[str, str]:
    """``echo`` lines of about ``size`` bytes that the six-star glob almost matches, by shape."""

    def line(unit: str, end: str) -> str:
        return "echo " + unit * ((size - 5 - len(end)) // len(unit)) + end

    return {
        "words": line("a ", "x.s"),
        "one word": line("a", ".sh"),
        "scripts": line("x.sh ", "y.s"),
        "matched": line("x.sh ", "y.sh"),
    }


def bench_glob(cwd: str, rounds: int = 20) -> dict[int, dict[str, float]]:
    """Per line size, the worst median ms over the shapes of: the glob as text, by options, and a
    whole evaluation under a deny rule and under an allow rule of the glob."""
    import json
    import tempfile

    from policy_engine import Engine, ToolCall
    from policy_engine.analysis.shell.commandline import Reader
    from policy_engine.analysis.shell.knowledge import knowledge
    from policy_engine.globs import glob_matches

    engines = {}
    with tempfile.TemporaryDirectory(prefix="policy-bench-glob-") as scratch:
        for action, default in (("deny", "allow"), ("allow", "ask")):
            path = Path(scratch) / f"{action}.jsonc"
            rule = {"action": action, "tool": "bash", "pattern": SIX_STARS}
            policy = {"defaultAction": default, "rules": [rule]}
            path.write_text(json.dumps({"extends": None, "defaultPolicy": "p", "policies": {"p": policy}}))
            engines[action] = Engine(str(path), cwd=cwd)
    reader = Reader(knowledge())
    clock = time.perf_counter
    results: dict[int, dict[str, float]] = {}
    for size in (1_000, 10_000):
        worst = {"text": 0.0, "options": 0.0, "deny": 0.0, "allow": 0.0}
        for text in glob_lines(size).values():
            words = tuple(text.split())
            call = ToolCall("bash", {"command": text}, cwd)
            runs: dict[str, Any] = {
                "text": lambda text=text: glob_matches(SIX_STARS, text),
                # A Reader of its own each time: the reading of the words is part of the match.
                "options": lambda words=words: Reader(reader.knowledge).matches(
                    SIX_STARS, words, glob_matches
                ),
                "deny": lambda call=call: engines["deny"].evaluate(call),
                "allow": lambda call=call: engines["allow"].evaluate(call),
            }
            for name, run in runs.items():
                run()  # warm: the knowledge entry, the analyses
                timings = []
                for _ in range(rounds):
                    start = clock()
                    run()
                    timings.append((clock() - start) * 1000)
                worst[name] = max(worst[name], statistics.median(timings))
        results[size] = worst
    return results


def bench_growth(rounds: int = 3) -> dict[str, dict[int, float]]:
    """Median ms of one evaluation of a line of N bytes of file operands (``cat f0.txt f1.txt ...``,
    ``rm ...``), under the embedded default in a scratch project: the time must grow with the line,
    not with its square."""
    import tempfile

    from policy_engine import Engine, ToolCall

    results: dict[str, dict[int, float]] = {}
    with tempfile.TemporaryDirectory(prefix="policy-bench-growth-") as scratch:
        project = Path(scratch) / "app"
        (project / ".git").mkdir(parents=True)
        engine = Engine(None, cwd=str(project))
        for command in ("cat", "rm"):
            results[command] = {}
            for size in (1_000, 4_000, 16_000, 64_000):
                words, length = [command], len(command)
                while length < size:
                    words.append(f"f{len(words)}.txt")
                    length += len(words[-1]) + 1
                call = ToolCall("bash", {"command": " ".join(words)}, str(project))
                engine.evaluate(call)  # warm
                timings = []
                for _ in range(rounds):
                    start = time.perf_counter()
                    engine.evaluate(call)
                    timings.append((time.perf_counter() - start) * 1000)
                results[command][size] = statistics.median(timings)
    return results


def bench_locations(rounds: int = 5) -> dict[int, float]:
    """Median ms of one evaluation of `find . -name '*.o' -delete` in a project with N locations
    below it (each a directory the walk reaches, each located in turn): linear in N, not square."""
    import json
    import tempfile

    from policy_engine import Engine, ToolCall

    results: dict[int, float] = {}
    for count in (10, 100, 1_000, 10_000):
        with tempfile.TemporaryDirectory(prefix="policy-bench-locations-") as scratch:
            project = Path(scratch) / "app"
            (project / ".git").mkdir(parents=True)
            for index in range(count):
                (project / f"m{index}").mkdir()
            config = Path(scratch) / "many.jsonc"
            policies = {"open": {"defaultAction": "allow"}}
            locations = {f"$cwd/m{index}": "open" for index in range(count)}
            config.write_text(
                json.dumps({"policies": policies, "defaultPolicy": "open", "locations": locations})
            )
            engine = Engine(str(config), cwd=str(project))
            call = ToolCall("bash", {"command": "find . -name '*.o' -delete"}, str(project))
            engine.evaluate(call)  # warm: the location index is built once per working directory
            timings = []
            for _ in range(rounds):
                start = time.perf_counter()
                engine.evaluate(call)
                timings.append((time.perf_counter() - start) * 1000)
            results[count] = statistics.median(timings)
    return results


def bench_search(rounds: int = 9) -> dict[str, float]:
    """Median ms of `grep -rn TODO .` in a project of 4,000 files in 520 directories: walked (the
    first call, and after a change), and answered from what the walk found (trees.py)."""
    import tempfile

    from policy_engine import Engine, ToolCall, trees

    def timed(engine: Engine, call: ToolCall) -> float:
        start = time.perf_counter()
        engine.evaluate(call)
        return (time.perf_counter() - start) * 1000

    walked, stamped, kept, changed = [], [], [], []
    with tempfile.TemporaryDirectory(prefix="policy-bench-search-") as scratch:
        project = Path(scratch) / "app"
        (project / ".git").mkdir(parents=True)
        for package in range(20):
            for module in range(25):
                directory = project / "src" / f"p{package}" / f"m{module}"
                directory.mkdir(parents=True)
                for number in range(8):
                    (directory / f"f{number}.py").write_text("x = 1\n")
        time.sleep(trees.RACY_NS / 1e9 + 0.1)  # a tree changed just before is never kept
        call = ToolCall("bash", {"command": "grep -rn TODO ."}, str(project))
        engine = Engine(None, cwd=str(project))
        for _ in range(rounds):
            trees.forget()
            walked.append(timed(engine, call))
            stamped.append(timed(engine, call))  # the second search takes the directories' stamps
            kept += [timed(engine, call) for _ in range(4)]
        for round_ in range(rounds):  # after a change, and changed just before: walked every time
            (project / "src" / f"p{round_}" / "m3" / "new.py").write_text("y = 2\n")
            changed.append(timed(engine, call))
    return {
        "walked_ms": statistics.median(walked),
        "stamped_ms": statistics.median(stamped),
        "kept_ms": statistics.median(kept),
        "changed_ms": statistics.median(changed),
    }


def bench_memory(config: Path, calls: int, lines: list[str]) -> dict[str, float]:
    """RSS (MiB) of the daemon's per-request path before and after ``calls`` hook calls, in this
    process: Claude Code payloads of corpus commands, in 40 working directories (more than the
    daemon keeps engines for), sessions of 200 calls, a scratch state store and decision log."""
    import gc
    import json
    import tempfile

    from policy_engine.hook.call import run
    from policy_engine.hook.daemon import Daemon

    def rss() -> float:
        with open("/proc/self/statm") as statm:  # Linux; resident pages
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

    with tempfile.TemporaryDirectory(prefix="policy-bench-memory-") as scratch:
        env = dict(os.environ, POLICY_ENGINE_STATE_DIR=scratch, POLICY_ENGINE_CONFIG=str(config))
        daemon = Daemon(env)
        cwds = [f"/home/user/work/p{i}" for i in range(40)]

        def payload(i: int) -> str:
            return json.dumps(
                {
                    "session_id": f"s{i // 200}",
                    "cwd": cwds[i % len(cwds)],
                    "hook_event_name": "PreToolUse",
                    "tool_name": "Bash",
                    "tool_input": {"command": lines[i % len(lines)]},
                    "tool_use_id": f"t{i}",
                }
            )

        warm = min(5_000, calls)
        for i in range(warm):  # imports, grammars, the first engines: not growth
            run("claude", payload(i), env, engine_for=daemon.engine)
        gc.collect()
        before = rss()
        marks = []
        for i in range(warm, warm + calls):
            run("claude", payload(i), env, engine_for=daemon.engine)
            if (i - warm + 1) % 10_000 == 0:
                marks.append(rss())
        gc.collect()
        after = rss()
    return {
        "calls": calls,
        "before_mib": before,
        "after_mib": after,
        "per_10k_mib": (after - before) * 10_000 / calls,
        "last_10k_mib": (marks[-1] - marks[-2]) if len(marks) > 1 else float("nan"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--corpus", type=Path, default=Path(os.environ.get("POLICY_ENGINE_CORPUS", DEFAULT_CORPUS))
    )
    parser.add_argument("--config", type=Path, default=REPO / "examples" / "sample.jsonc")
    parser.add_argument("--runs", type=int, default=40, help="process runs of each kind (default 40)")
    parser.add_argument("--cwd", default="/home/user/work", help="working directory of the judged calls")
    parser.add_argument(
        "--memory", type=int, default=0, metavar="CALLS", help="measure the daemon's memory over CALLS calls"
    )
    parser.add_argument(
        "--only",
        default="",
        help="comma-separated sections to run (evaluation, inline, startup, hook, "
        "workload, glob, growth, locations, search, memory); default: all but memory, which needs "
        "--memory",
    )
    args = parser.parse_args()
    only = set(filter(None, args.only.split(",")))

    def wanted(section: str) -> bool:
        return not only or section in only

    import policy_engine

    editable = any("__editable__" in name for name in sys.modules)
    note = " (an editable install: its import hook slows every start-up)" if editable else ""
    print(f"python {sys.version.split()[0]} at {sys.executable}")
    print(f"policy_engine {policy_engine.__version__} from {Path(policy_engine.__file__).parent}{note}")
    lines = corpus_lines(args.corpus)
    if not lines:
        print(f"no corpus found in {args.corpus}", file=sys.stderr)
        return 1
    if wanted("evaluation"):
        report_evaluation(args, lines)
    if wanted("inline"):
        report_inline(args)
    if wanted("startup"):
        report_startup(args)
    if wanted("hook"):
        report_hook(args)
    if wanted("workload"):
        report_workload(args, lines)
    if wanted("glob"):
        report_glob(args)
    if wanted("growth"):
        report_growth()
    if wanted("locations"):
        report_locations()
    if wanted("search"):
        report_search()
    if args.memory and (not only or "memory" in only):
        report_memory(args, lines)
    return 0


def report_locations() -> None:
    times = bench_locations()
    sizes = ", ".join(f"{count:,} {ms:.1f} ms" for count, ms in times.items())
    print(f"locations: `find . -name '*.o' -delete` over N locations below the cwd, one evaluation: {sizes}")


def report_search() -> None:
    times = bench_search()
    print(
        f"search: `grep -rn TODO .` in a project of 4,000 files, one evaluation: walked "
        f"{times['walked_ms']:.2f} ms, walked again taking stamps {times['stamped_ms']:.2f} ms, "
        f"unchanged since {times['kept_ms']:.2f} ms, a file added just before {times['changed_ms']:.2f} ms"
    )


def report_growth() -> None:
    for command, times in bench_growth().items():
        sizes = ", ".join(f"{size // 1000} KB {ms:.1f} ms" for size, ms in times.items())
        first, last = times[min(times)], times[max(times)]
        growth = f"64x the line: {last / first:.0f}x the time"
        print(f"growth: `{command}` with file operands, one evaluation: {sizes} ({growth})")


def report_evaluation(args: argparse.Namespace, lines: list[str]) -> None:
    policies = {"default": None, args.config.name: args.config}
    corpora = {"tldr+nl2bash": lines, "agent workload": agent_lines()}
    print("evaluation (µs per line, one Engine per policy, in a real project tree):")
    for (policy, corpus), figures in bench_evaluation(corpora, policies).items():
        print(
            f"  {corpus}, {figures['lines']} lines, {policy}: median {figures['median_us']:.1f}, "
            f"p90 {figures['p90_us']:.1f}, p99 {figures['p99_us']:.1f}, mean {figures['mean_us']:.1f}, "
            f"max {figures['max_us']:.0f}"
        )
    analysis = bench_analysis(lines, args.cwd)
    print(
        f"shell analysis alone: median {analysis['median_us']:.1f} µs, "
        f"p99 {analysis['p99_us']:.1f} µs per line"
    )


def report_inline(args: argparse.Namespace) -> None:
    inline = bench_inline(args.config, args.cwd)
    plain = inline["plain"]
    print(
        f"inline code: `{PLAIN}` {plain:.1f} µs, a python3 -c one-liner {inline['python -c']:.1f} µs "
        f"({inline['python -c'] / plain:.1f}x), a 9-line python3 program {inline['python']:.1f} µs "
        f"({inline['python'] / plain:.1f}x), a node -e program {inline['node']:.1f} µs "
        f"({inline['node'] / plain:.1f}x) (medians)"
    )


def report_startup(args: argparse.Namespace) -> None:
    startup = bench_startup(args.config, args.runs, args.cwd)
    print(
        f"start-up: `policy check` {startup['check_ms']:.1f} ms vs `python -c pass` "
        f"{startup['python_pass_ms']:.1f} ms (medians of {startup['runs']} alternating runs): "
        f"{startup['ratio']:.2f}x; with a python3 program to analyse {startup['python_check_ms']:.1f} ms "
        f"({startup['python_ratio']:.2f}x)"
    )


def report_hook(args: argparse.Namespace) -> None:
    hook = bench_hook(args.config, args.runs, args.cwd)

    def measured(name: str) -> str:
        return (
            f"median {hook[f'{name}_ms']:.1f} ms ({hook[f'{name}_ratio']:.2f}x), "
            f"p95 {hook[f'{name}_p95_ms']:.1f} ms ({hook[f'{name}_p95_ratio']:.2f}x)"
        )

    print(
        f"hook (claude, in a session; `python -c pass` {hook['python_pass_ms']:.1f} ms, "
        f"{hook['runs']} alternating runs):\n"
        f"  `{PLAIN}` without the daemon: {measured('direct')}\n"
        f"  a Read without the daemon: {measured('direct_read')}\n"
        f"  `{PARSED}` (parsed) without the daemon: {measured('direct_parsed')}\n"
        f"  `{PLAIN}` with the daemon: {measured('daemon')}\n"
        f"  `{PLAIN}` without the daemon, the policy just edited (cold compiled cache): {measured('cold')}\n"
        f"  `{PLAIN}` with the daemon, the policy just edited (it compiles): {measured('cold_daemon')}"
    )


def report_workload(args: argparse.Namespace, lines: list[str]) -> None:
    rates = bench_workload(args.corpus, lines)
    print("auto-allow rates (allowed without a prompt: agent-workload corpus, tldr sample, whole corpus):")
    for policy, kinds in rates.items():
        shares = ", ".join(
            f"{kind} {allowed}/{total} ({allowed / max(total, 1):.1%})"
            for kind, (allowed, total) in kinds.items()
        )
        print(f"  {policy}: {shares}")


def report_glob(args: argparse.Namespace) -> None:
    glob = bench_glob(args.cwd)
    print(f"glob time: `{SIX_STARS}` against echo lines it almost matches (worst median of 4 shapes):")
    for size, times in glob.items():
        print(
            f"  {size // 1000} KB: as text {times['text']:.3f} ms, by options {times['options']:.2f} ms; "
            f"evaluation under a deny rule {times['deny']:.2f} ms, an allow rule {times['allow']:.2f} ms"
        )


def report_memory(args: argparse.Namespace, lines: list[str]) -> None:
    memory = bench_memory(args.config, args.memory, lines)
    print(
        f"daemon memory: RSS {memory['before_mib']:.1f} MiB before and {memory['after_mib']:.1f} MiB after "
        f"{memory['calls']} hook calls (the daemon's per-request path in-process): "
        f"{memory['per_10k_mib']:+.2f} MiB per 10,000 calls, "
        f"{memory['last_10k_mib']:+.2f} MiB in the last 10,000"
    )


if __name__ == "__main__":
    sys.exit(main())
