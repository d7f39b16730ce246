"""Extract commands' own option lists into data beside the command knowledge.

Each command (or subcommand: "git log") has a file in ``policy_engine/analysis/shell/options/``, named after
it (``git-log.json``), holding how its list was extracted (the *recipe*), where it came from, and
every option the tool itself documents, with whether it takes a value. ``tests/unit/test_option_lists.py``
fails when the knowledge (``commands.jsonc``) does not classify one of them, so an option a tool adds
cannot pass for a harmless flag. Rerun this script when packages update:

    python scripts/option_lists.py refresh            # every file, by its recipe
    python scripts/option_lists.py refresh sort git-log
    python scripts/option_lists.py add sort --man sort --package coreutils
    python scripts/option_lists.py add "ruff check" --help "ruff check --help"
    python scripts/option_lists.py add kubectl --reference URL --text FILE

Recipes:
- ``man``: the manual page, rendered by ``man``; when the page is not installed, it is taken from
  the Debian package (``apt-get download``), which is also where the version comes from.
- ``help``: the tool's own ``--help`` output (the argv given), for tools with no manual page.
- ``reference``: a text file kept beside the data (``options/reference/``), copied from the tool's
  published reference (the URL is recorded), for tools that are in no Debian package and cannot be
  run here.

An option is any token at the start of a line (after indentation) that looks like one: ``-k``,
``--key=KEYDEF``, ``-n <number>``, ``--color[=WHEN]``, ``--[no-]walk``, in comma-separated lists.
``ignore`` in a recipe names tokens that are not options of the tool (prose that starts with a
dash), each with the reason; ``kinds`` corrects whether one takes an argument, as
``{"-c": ["flag", "why"]}``, where the page's layout misleads the parser.

``check`` lists every option of the data that the knowledge does not classify, or reads with an
argument where the tool takes none (or the reverse); the test suite runs the same check.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "policy_engine" / "analysis" / "shell" / "options"
REFERENCE = DATA / "reference"

# An option token and what follows it up to the next separator.
_TOKEN = re.compile(
    r"""(?P<option>--\[no-?\][A-Za-z0-9][\w.-]*|--[A-Za-z0-9][\w.-]*|-[A-Za-z0-9?#@.!])
        (?P<tail>\[?=[^,\s]*|\[[^\]\s]*\]|\s?<[^>]+>|\s[A-Z][A-Z0-9_.-]*\b|\s\[[^\]]*\])?""",
    re.VERBOSE,
)
_LINE = re.compile(r"^\s{1,16}(?=-)")
_STRENGTH = {"flag": 0, "optional": 1, "value": 2}


def options_of(text: str, ignore: dict[str, str] | None = None) -> dict[str, str]:
    """Every option ``text`` documents: spelling -> ``flag``, ``value`` or ``optional``."""
    found: dict[str, str] = {}
    ignore = ignore or {}
    for line in text.splitlines():
        if not _LINE.match(line):
            continue
        head = re.split(r"\s{3,}|\t", line.strip(), maxsplit=1)[0]
        kinds: list[tuple[str, str]] = []
        for part in re.split(r",\s*|\s+or\s+|\s*\|\s*", head):
            match = _TOKEN.match(part.strip())
            if match is None:
                break
            option, tail = match.group("option"), match.group("tail") or ""
            kind = "optional" if tail.startswith("[") else "value" if tail else "flag"
            if option.startswith("--[no"):
                name = option.split("]", 1)[1]
                kinds += [(f"--{name}", kind), (f"--no-{name}", "flag")]
            else:
                kinds.append((option, kind))
        # GNU style: "-k, --key=KEYDEF" gives the value on the long spelling only.
        if any(k == "value" for _, k in kinds):
            kinds = [(o, "value" if k == "flag" and not o.startswith("--no-") else k) for o, k in kinds]
        for option, kind in kinds:  # listed twice: the strongest reading (a value, an optional one)
            if option not in ignore and option.strip("-"):
                found[option] = max(kind, found.get(option, "flag"), key=_STRENGTH.__getitem__)
    return dict(sorted(found.items()))


def _run(argv: list[str], env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        argv, capture_output=True, text=True, errors="replace", env=env, timeout=120, check=False
    )
    return result.stdout + result.stderr


def _render(page: str) -> str:
    env = {**os.environ, "MANWIDTH": "200", "MAN_KEEP_FORMATTING": "", "LC_ALL": "C.UTF-8"}
    where = ["-l", page] if page.startswith("/") else page.split()  # a file, or a page by name
    return re.sub(r".\x08", "", _run(["man", "-P", "cat", *where], env))


def _debian_page(package: str, page: str) -> tuple[str, str]:
    """The manual page from the Debian package (downloaded, not installed), and its version."""
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run(["apt-get", "download", "-qq", package], cwd=scratch, check=True)
        deb = next(Path(scratch).glob("*.deb"))
        subprocess.run(["dpkg-deb", "-x", str(deb), "root"], cwd=scratch, check=True)
        version = _run(["dpkg-deb", "-f", str(deb), "Version"]).strip()
        name, _, section = page.partition(".")
        pattern = f"{name}.{section}*" if section else f"{name}.*"
        found = sorted(Path(scratch, "root").glob(f"usr/share/man/man*/{pattern}"))
        if not found:
            raise SystemExit(f"{package} has no manual page {page}")
        text = _render(str(found[0]))
    return text, f"Debian {package} {version}"


def _installed_version(package: str) -> str | None:
    out = _run(["dpkg-query", "-W", "-f", "${Version}", package])
    return out.strip() if out and "no packages" not in out else None


def extract(recipe: dict[str, object]) -> tuple[dict[str, str], str]:
    """The options a recipe gives (with its ``kinds`` corrections), and where they come from."""
    options, source = _extract(recipe)
    kinds = recipe.get("kinds") or {}
    assert isinstance(kinds, dict)
    for option, kind in kinds.items():  # {"-c": ["flag", "why"]}: the page's layout misleads
        options[option] = kind[0] if isinstance(kind, list) else kind
    return dict(sorted(options.items())), source


def _extract(recipe: dict[str, object]) -> tuple[dict[str, str], str]:
    ignore = recipe.get("ignore") or {}
    assert isinstance(ignore, dict)
    if "man" in recipe:
        page = str(recipe["man"])
        package = str(recipe.get("package", ""))
        text = _render(page)
        version = _installed_version(package) if package else None
        if package and (version is None or "No manual entry" in text or not text.strip()):
            text, source = _debian_page(package, page)
        else:
            source = f"Debian {package} {version}" if package else "the installed manual page"
        return options_of(text, ignore), f"{source}, man {page}"
    if "help" in recipe:
        argv = shlex.split(str(recipe["help"]))
        text = _run(argv)
        version = recipe.get("version")
        source = f"`{recipe['help']}`" + (f" of {version}" if version else "")
        return options_of(text, ignore), source
    if "reference" in recipe:
        text = (REFERENCE / str(recipe["text"])).read_text()
        return options_of(text, ignore), f"the published reference {recipe['reference']}"
    raise SystemExit(f"a recipe needs man, help or reference: {recipe}")


def file_of(command: str) -> Path:
    return DATA / (command.replace(" ", "-") + ".json")


def write(command: str, recipe: dict[str, object]) -> dict[str, str]:
    options, source = extract(recipe)
    if not options:
        raise SystemExit(f"{command}: no option found by {recipe}")
    data = {"command": command, "source": source, "recipe": recipe, "options": options}
    DATA.mkdir(parents=True, exist_ok=True)
    file_of(command).write_text(json.dumps(data, indent=1) + "\n")
    return options


def compiled_commands() -> dict[str, object]:
    """The knowledge's command entries as the engine compiles them (harmless options merged)."""
    sys.path.insert(0, str(ROOT))
    from policy_engine.analysis.shell import knowledge

    sources = {path: Path(path).read_text() for path in knowledge.harmless_files()}
    more = {path: Path(path).read_text() for path in knowledge.entry_files()}
    data = knowledge.compile_knowledge(Path(knowledge.DATA).read_text(), sources, more)
    return data["commands"]  # type: ignore[no-any-return]


def problems(commands: dict[str, object], names: list[str] | None = None) -> list[str]:
    """Each option of the extracted lists that the knowledge does not classify, or reads with or
    without an argument where the tool does the opposite, one line each."""
    sys.path.insert(0, str(ROOT))
    from policy_engine.analysis.shell.arguments import spec_of
    from policy_engine.analysis.shell.knowledge import entry_at

    found = []
    for path in sorted(DATA.glob("*.json")):
        if names and path.stem not in names:
            continue
        data = json.loads(path.read_text())
        command = data["command"]
        entry = entry_at(commands, command)  # type: ignore[arg-type]
        if entry is None:
            found.append(f"{command}: no entry in the knowledge")
            continue
        table = entry.get("options", {})
        for option, kind in data["options"].items():
            if option not in table:
                found.append(f"{command} {option}: not classified ({kind})")
                continue
            spec = spec_of(table[option])
            takes, optional = spec.get("takes") is not None, bool(spec.get("optional"))
            if kind == "value" and (not takes or optional):
                found.append(f"{command} {option}: takes an argument, the knowledge reads it as a flag")
            elif kind == "flag" and takes and not optional:
                found.append(f"{command} {option}: takes no argument, the knowledge reads one")
    return found


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    add = sub.add_parser("add", help="extract one command's options and keep its recipe", add_help=False)
    add.add_argument("command")
    add.add_argument("--man", help="manual page (git-log, sort, 'git log')")
    add.add_argument("--package", help="Debian package that holds it")
    add.add_argument("--help-command", "--help", dest="help_command", help="argv that prints the options")
    add.add_argument("--version", help="version of the tool whose --help was read")
    add.add_argument("--reference", help="URL of the published reference")
    add.add_argument("--text", help="file under options/reference/ copied from it")
    check = sub.add_parser("check", help="list the options the knowledge does not classify")
    check.add_argument("commands", nargs="*", help="file stems (git-log); all by default")
    refresh = sub.add_parser("refresh", help="extract again, by each file's recipe")
    refresh.add_argument("commands", nargs="*")
    args = parser.parse_args(argv)
    if args.what == "add":
        recipe: dict[str, object] = {}
        if args.man:
            recipe = {"man": args.man, **({"package": args.package} if args.package else {})}
        elif args.help_command:
            recipe = {"help": args.help_command, **({"version": args.version} if args.version else {})}
        elif args.reference:
            recipe = {"reference": args.reference, "text": args.text}
        existing = file_of(args.command)
        if existing.exists():  # keep what was ignored, with why
            old = json.loads(existing.read_text())["recipe"]
            if old.get("ignore"):
                recipe["ignore"] = old["ignore"]
        print(f"{args.command}: {len(write(args.command, recipe))} options")
        return 0
    if args.what == "check":
        try:
            commands = compiled_commands()
        except ValueError as error:  # a harmless file that does not fit the knowledge
            print(error)
            return 1
        found = problems(commands, args.commands or None)
        print("\n".join(found) or "every option is classified")
        return 1 if found else 0
    names = args.commands or sorted(p.stem for p in DATA.glob("*.json"))
    for name in names:
        data = json.loads((DATA / f"{name}.json").read_text())
        before = set(data["options"])
        after = write(data["command"], data["recipe"])
        added, gone = sorted(set(after) - before), sorted(before - set(after))
        print(
            f"{data['command']}: {len(after)} options"
            + (f"; new {added}" if added else "")
            + (f"; gone {gone}" if gone else "")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
