"""policy trust / untrust: whether a project policy file may loosen your policy."""

from __future__ import annotations

import argparse
import os

from ..errors import ConfigError
from .common import HelpFormatter, UsageError

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from typing import Any

    from .common import Commands


def _add_trust(commands: Any, name: str, text: str) -> None:
    sub = commands.add_parser(
        name, help=text, description=text[0].upper() + text[1:] + ".", formatter_class=HelpFormatter
    )
    sub.add_argument(
        "directory", nargs="?", metavar="DIR", help="project directory (default: the current one)"
    )


def _project_file(directory: str | None) -> tuple[str, str]:
    from ..config.discover import find_project

    start = os.path.abspath(directory or os.getcwd())
    source, _ = find_project(start, os.environ)
    if source is None:
        raise UsageError(f"no project policy file (.policy-engine/policy.jsonc) found from {start} upwards")
    return source.path, start


def run_trust(args: argparse.Namespace) -> int:
    from ..config.compile import load_presets
    from ..config.jsonc import parse
    from ..config.merge import provenance_of
    from ..config.trust import trust
    from ..config.validate import check_local, validate_model

    path, _ = _project_file(args.directory)
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    document = parse(text, path)
    where = provenance_of(document)
    problems = validate_model(document.data, where, partial=True)[1] + check_local(
        document.data, where, load_presets()
    )
    if problems:
        raise ConfigError(problems)
    real = trust(os.environ, path, text)
    print(f"trusted {real}: it now merges over your user policy (any edit makes it untrusted again)")
    return 0


def run_untrust(args: argparse.Namespace) -> int:
    from ..config.trust import untrust

    path, _ = _project_file(args.directory)
    if untrust(os.environ, path):
        print(f"untrusted {os.path.realpath(path)}: it can now only tighten your policy")
    else:
        print(f"{os.path.realpath(path)} was not trusted")
    return 0


COMMANDS: Commands = {
    "trust": (
        lambda c: _add_trust(
            c, "trust", "trust the project policy file of DIR: it may then loosen your policy"
        ),
        run_trust,
    ),
    "untrust": (
        lambda c: _add_trust(
            c, "untrust", "stop trusting the project policy file of DIR: it can then only tighten"
        ),
        run_untrust,
    ),
}
