"""Starting a policy: policy init (a commented file that extends the embedded default) and policy
presets (what the default and the ``$name`` presets hold), so that a user builds on the default
instead of replacing it."""

from __future__ import annotations

import argparse
import json
import os

from .common import HelpFormatter, UsageError

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

    from .common import Commands

INIT_EPILOG = """\
The file extends the embedded default: its protections stay and its policies judge what your
locations do not cover. An existing file is never replaced.

examples:
  policy init                 # ~/.config/policy-engine/policy.jsonc
  policy init --project       # .policy-engine/policy.jsonc here (untrusted until `policy trust`)
  policy init --print
"""


def _add_init(commands: Any) -> None:
    init = commands.add_parser(
        "init",
        formatter_class=HelpFormatter,
        help="write a commented starting policy file that extends the embedded default",
        description="Write a starting policy file: your user file, or with --project this project's.",
        epilog=INIT_EPILOG,
    )
    init.add_argument(
        "--project", action="store_true", help="write .policy-engine/policy.jsonc in the working directory"
    )
    init.add_argument("--cwd", metavar="DIR", help="the working directory (default: the current one)")
    init.add_argument("--print", action="store_true", help="print the file instead of writing it")


def _add_presets(commands: Any) -> None:
    presets = commands.add_parser(
        "presets",
        formatter_class=HelpFormatter,
        help="list the presets: the embedded default and the $name command patterns",
        description="List what the embedded default holds (every configuration extends it) and the "
        '"$name" pattern presets a rule can use; with NAME, every pattern of that preset.',
    )
    presets.add_argument("name", nargs="?", metavar="NAME", help="a preset ($safe-bash) or default")
    presets.add_argument("--json", action="store_true", help="print as JSON")


def starter_text(project: bool) -> str:
    """The starting file's text (the user one names the schema this installation ships)."""
    from ..config.presets import PRESETS_DIR

    path = os.path.join(PRESETS_DIR, "starters", "project.jsonc" if project else "user.jsonc")
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    schema = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "policy.schema.json")
    return text.replace('"SCHEMA"', json.dumps(schema))


def run_init(args: argparse.Namespace) -> int:
    from ..config.discover import OUR_PROJECT, user_candidates
    from ..fileio import atomic_write

    text = starter_text(args.project)
    if args.print:
        print(text, end="")
        return 0
    cwd = os.path.abspath(args.cwd or os.getcwd())
    if args.project:
        path = os.path.join(cwd, *OUR_PROJECT)
    else:
        ours, *pi_control = user_candidates(os.environ)
        found = next((c.path for c in pi_control if os.path.isfile(c.path)), None)
        if found is not None and not os.path.exists(ours.path):
            raise UsageError(
                f"your user policy is pi-control's {found}, which policy-engine reads: edit it, or move "
                f"it to {ours.path} (a new file there would take its place)"
            )
        path = ours.path
    if os.path.exists(path):
        raise UsageError(f"{path} exists already; edit it (policy init never replaces a file)")
    atomic_write(path, text)
    print(f"wrote {path}: it extends the embedded default (`policy presets` shows what that holds)")
    if args.project:
        print("it can only make decisions stricter until it is trusted: review it, then run `policy trust`")
    print(f"check it with: policy lint {path}")
    return 0


def run_presets(args: argparse.Namespace) -> int:
    from ..config.layers import default_document
    from ..config.presets import DEFAULT_POLICY, preset_files

    presets = {name: _preset(path) for name, path in preset_files()}
    default = default_document().data
    if args.name is not None:
        if args.name in ("default", "embedded default"):
            with open(DEFAULT_POLICY, encoding="utf-8") as handle:
                print(handle.read(), end="")
            return 0
        name = args.name if args.name.startswith("$") else "$" + args.name
        if name not in presets:
            raise UsageError(f"no preset {args.name}; they are: default, {', '.join(presets)}")
        if args.json:
            print(json.dumps(presets[name], indent=2))
        else:
            print("\n".join(presets[name]["patterns"]))
        return 0
    if args.json:
        print(json.dumps({"default": {"file": DEFAULT_POLICY, **default}, **presets}, indent=2))
        return 0
    print(f"default: the embedded default, which every configuration extends ({DEFAULT_POLICY})")
    for name, policy in default["policies"].items():
        rules = [_rule_text(rule) for rule in policy.get("rules", [])]
        print(f"  policy {name}: defaultAction {policy['defaultAction']}; {', '.join(rules)}")
    where = [f"{key} -> {policy}" for key, policy in default.get("locations", {}).items()]
    print(f"  paths no location of yours covers: {', '.join(where)}, else {default.get('defaultPolicy')}")
    protections = [f"{pattern} {_action_text(value)}" for pattern, value in default["pathProtection"].items()]
    print(f"  pathProtection: {', '.join(protections)}")
    for name, preset in presets.items():
        kind = "read-only" if preset.get("readOnly") else "not read-only"
        count = len(preset["patterns"])
        shown = ", ".join(preset["patterns"][:8])
        print(f"{name}: {preset['description']} ({count} patterns, {kind})")
        print(f"  {shown}{', ...' if count > 8 else ''}  (policy presets {name} lists them all)")
    return 0


def _preset(path: str) -> dict[str, Any]:
    from ..config.jsonc import parse

    with open(path, encoding="utf-8") as handle:
        data: dict[str, Any] = parse(handle.read(), path).data
    return data


def _rule_text(rule: Any) -> str:
    if isinstance(rule, str):
        return f"allow {rule}"
    text = f"{rule['action']} {rule['tool']}"
    text += f" {rule['pattern']}" if rule.get("pattern") else ""
    return text + (" in a sandbox" if rule.get("sandbox") else "")


def _action_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return " ".join(f"{sense}:{action}" for sense, action in value.items())


COMMANDS: Commands = {"init": (_add_init, run_init), "presets": (_add_presets, run_presets)}
