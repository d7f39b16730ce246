"""Test helpers: an isolated fake machine (home, XDG directories, no managed file) and the real CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from policy_engine import Engine, ToolCall

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
CORPUS = REPO.parent / "shared" / "corpus"

# The command knowledge compiled once for the whole run (conftest's warm_knowledge sets it): every
# Sandbox gets a copy of its own in its cache directory, so no test pays for compiling it cold.
WARM_KNOWLEDGE: list[Path] = []


def compile_warm_knowledge(directory: Path) -> Path:
    """Compile the knowledge into ``directory`` and make every new Sandbox start with a copy."""
    from policy_engine.analysis.shell.knowledge import knowledge

    knowledge(str(directory))
    (compiled,) = directory.glob("knowledge-*.cache")
    WARM_KNOWLEDGE[:] = [compiled]
    return compiled


class Sandbox:
    """A fake machine: home, XDG directories and no managed file, as environment variables.

    ``warm``: its cache directory starts with a copy (never a link: a test may damage it) of the
    knowledge compiled for the run, when there is one; cold, it compiles the knowledge itself."""

    def __init__(self, root: Path, *, warm: bool = True) -> None:
        self.root = root
        self.home = root / "home"
        self.home.mkdir()
        if warm and WARM_KNOWLEDGE:
            cache = root / "cache" / "policy-engine"
            cache.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(WARM_KNOWLEDGE[0], cache / WARM_KNOWLEDGE[0].name)
        self.env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(root / "config"),
            "XDG_DATA_HOME": str(root / "data"),
            "XDG_CACHE_HOME": str(root / "cache"),
            "POLICY_ENGINE_MANAGED_CONFIG": str(root / "etc" / "policy.jsonc"),
            "PI_CODING_AGENT_DIR": str(root / "pi-agent"),
            # No hook call of a test starts a background daemon; the daemon's own tests turn it on.
            "POLICY_ENGINE_DAEMON": "0",
        }

    @property
    def user_config(self) -> Path:
        return self.root / "config" / "policy-engine" / "policy.jsonc"

    @property
    def managed_config(self) -> Path:
        return self.root / "etc" / "policy.jsonc"

    def write(self, path: Path | str, text: str) -> Path:
        """Write a (dedented) file, creating its directory."""
        path = Path(path)
        if not path.is_absolute():
            path = self.root / path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
        return path

    def project(self, name: str, text: str | None = None) -> Path:
        """A project directory, with a .policy-engine/policy.jsonc when ``text`` is given."""
        directory = self.root / name
        directory.mkdir(parents=True, exist_ok=True)
        if text is not None:
            self.write(directory / ".policy-engine" / "policy.jsonc", text)
        return directory

    def engine(
        self,
        config: Path | str | list[Path] | None = None,
        *,
        cwd: Path | str | None = None,
        use_cache: bool = True,
    ) -> Engine:
        if isinstance(config, list):
            config = [str(c) for c in config]
        elif config is not None:
            config = str(config)
        return Engine(config, cwd=str(cwd or self.root), env=self.env, use_cache=use_cache)

    def run(
        self, *args: str, stdin: str | None = None, cwd: Path | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run the real ``policy`` CLI in a subprocess: the installed package (``-P``: a run in the
        checkout would otherwise import the checkout's copy, not an installed wheel)."""
        return subprocess.run(
            [sys.executable, "-P", "-m", "policy_engine", *args],
            input=stdin,
            capture_output=True,
            text=True,
            cwd=str(cwd or self.root),
            env={**self.env, **(env or {})},
            timeout=60,
        )

    def check_json(self, *args: str, **kwargs: Any) -> dict[str, Any]:
        result = self.run("check", "--json", *args, **kwargs)
        assert result.stdout, result.stderr
        return json.loads(result.stdout)


def bash(command: str, cwd: str | Path) -> ToolCall:
    return ToolCall("bash", {"command": command}, str(cwd))


def tool(name: str, cwd: str | Path, **tool_input: Any) -> ToolCall:
    return ToolCall(name, tool_input, str(cwd))


def read_terminal(leader: int) -> bytes:
    """Everything written to a pseudo-terminal (``pty.openpty``'s ``leader``) until the last process
    holding its follower ends; the leader is closed. What a person at that terminal would see."""
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the follower's last holder left: the process is gone
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    return seen
