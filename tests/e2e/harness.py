"""The end-to-end harness: a fake machine, a scripted model on 127.0.0.1, and each agent's real CLI
run headless against it with our hook installed as docs/agents.md says.

Where the agents are: ``POLICY_ENGINE_E2E_AGENTS`` names a directory whose ``node_modules/.bin``
holds ``claude``, ``codex``, ``gemini``, ``copilot`` and ``pi`` (``.ci/run`` installs them there at
the pinned versions of ``VERSIONS``). A test whose agent is not there is skipped with the reason.

How each agent is reached offline (reference/agents-observed.md): Claude Code through
``ANTHROPIC_BASE_URL``; Codex through a ``model_provider`` in ``$CODEX_HOME/config.toml`` with the
Responses API; Gemini CLI through ``GOOGLE_GEMINI_BASE_URL`` with API-key auth and a trusted
folder; Copilot CLI through ``COPILOT_PROVIDER_BASE_URL`` in offline mode; pi through a provider of
its ``models.json``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mockmodel import serve

REPO = Path(__file__).resolve().parents[2]
# The versions this suite installs and the agent modules were verified with (agents/<agent>.py).
VERSIONS = {
    "claude": ("@anthropic-ai/claude-code", "2.1.197"),
    "codex": ("@openai/codex", "0.171.0"),
    "gemini": ("@google/gemini-cli", "0.61.0"),
    "copilot": ("@github/copilot", "1.0.102"),
    "pi": ("@mariozechner/pi-coding-agent", "0.73.1"),
}
RUN_TIMEOUT = 180  # seconds for one headless agent run
PROMPT = "Do the task."


def agents_bin() -> Path | None:
    root = os.environ.get("POLICY_ENGINE_E2E_AGENTS")
    return Path(root) / "node_modules" / ".bin" if root else None


def missing(agent: str) -> str | None:
    """Why ``agent`` cannot run here, or None."""
    directory = agents_bin()
    if directory is None:
        return "POLICY_ENGINE_E2E_AGENTS is not set (.ci/run installs the agents and sets it)"
    if not (directory / agent).exists():
        return f"{agent} is not installed in {directory} (its npm install failed or was skipped)"
    if shutil.which("node") is None:
        return "node is not on PATH"
    return None


@dataclass
class Machine:
    """A fake machine under ``root``: a home with a key and a shell profile, a git project in it,
    XDG directories, a state directory of its own, and the environment an agent runs in."""

    root: Path
    daemon: bool = False
    env: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.home = self.root / "home"
        self.project = self.home / "proj"
        (self.project / "src").mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(self.project)], check=True)
        (self.project / "src" / "app.py").write_text("print('hi')\n")
        (self.home / ".ssh").mkdir()
        (self.home / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY----- FAKEKEY\n")
        (self.home / ".bashrc").write_text("# profile\n")
        bin_dir = agents_bin()
        path = [str(bin_dir)] if bin_dir else []
        path += [str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"]
        self.env = {
            "HOME": str(self.home),
            "PATH": ":".join(path),
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_STATE_HOME": str(self.home / ".local" / "state"),
            "POLICY_ENGINE_MANAGED_CONFIG": "",
            "POLICY_ENGINE_DAEMON": "1" if self.daemon else "0",
            "POLICY_ENGINE_STATE_DIR": str(self.root / "state"),
            # No network but the mock: no telemetry, update checks or auto-updates.
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "NO_UPDATE_NOTIFIER": "1",
            "NODE_NO_WARNINGS": "1",
        }

    def policy(self, *args: str) -> subprocess.CompletedProcess[str]:
        """The real ``policy`` CLI of this installation, in the project, on this machine."""
        return subprocess.run(
            [sys.executable, "-m", "policy_engine", *args],
            capture_output=True,
            text=True,
            cwd=self.project,
            env=self.env,
            timeout=120,
        )

    def user_policy(self, text: str) -> Path:
        path = self.home / ".config" / "policy-engine" / "policy.jsonc"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def stop_daemon(self) -> None:
        self.policy("serve", "--stop")


@dataclass
class Run:
    """One headless run: the agent's exit status and output, and every request it sent the model."""

    status: int
    stdout: str
    stderr: str
    requests: list[Any]

    def after_the_call(self) -> str:
        """What went back to the model once the scripted call was answered (its result, the hook's
        reason, a nudge), as text: every request that carries a tool result."""
        from mockmodel import has_tool_result

        return "\n".join(json.dumps(r) for r in self.requests if has_tool_result(r))


@dataclass
class Agent:
    """How to set one agent up on a machine and run it headless (a call: (tool, arguments))."""

    name: str
    setup: Callable[[Machine, int], None]
    argv: Callable[[Machine], list[str]]
    env: Callable[[Machine, int], dict[str, str]]
    shell: Callable[[str], dict[str, Any]]  # a shell command -> the scripted call
    write: Callable[[Path, str], dict[str, Any]]  # a file and its text -> the scripted call


def run(agent: Agent, machine: Machine, call: dict[str, Any]) -> Run:
    """Run ``agent`` once with the model scripted to make ``call`` first."""
    log = machine.root / f"model-{agent.name}.jsonl"
    log.unlink(missing_ok=True)
    server = serve(call, str(log))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = server.server_port
    try:
        agent.setup(machine, port)
        done = subprocess.run(
            agent.argv(machine),
            capture_output=True,
            text=True,
            cwd=machine.project,
            env={**machine.env, **agent.env(machine, port)},
            stdin=subprocess.DEVNULL,
            timeout=RUN_TIMEOUT,
        )
    finally:
        server.shutdown()
        server.server_close()
    requests = []
    if log.exists():
        requests = [json.loads(line)["body"] for line in log.read_text().splitlines() if line.strip()]
    return Run(done.returncode, done.stdout, done.stderr, requests)


# --- the agents ----------------------------------------------------------------------------------


def _install(machine: Machine, agent: str) -> None:
    result = machine.policy("install", "--agent", agent)
    assert result.returncode == 0, result.stdout + result.stderr


def _claude_setup(machine: Machine, port: int) -> None:
    _install(machine, "claude")


def _codex_setup(machine: Machine, port: int) -> None:
    home = machine.home / ".codex"
    home.mkdir(exist_ok=True)
    config = home / "config.toml"
    provider = (
        'model = "gpt-5.5"\nmodel_provider = "mock"\n\n[model_providers.mock]\nname = "mock"\n'
        f'base_url = "http://127.0.0.1:{port}/v1"\nwire_api = "responses"\nenv_key = "MOCK_API_KEY"\n'
    )
    # The provider first; what `policy install` recorded (the hook's trust) kept after it.
    kept = config.read_text().split("\n[hooks.state", 1) if config.exists() else [""]
    config.write_text(provider + ("\n[hooks.state" + kept[1] if len(kept) > 1 else ""))
    _install(machine, "codex")


def _gemini_setup(machine: Machine, port: int) -> None:
    directory = machine.home / ".gemini"
    directory.mkdir(exist_ok=True)
    settings = directory / "settings.json"
    if not settings.exists():
        base = {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        }
        settings.write_text(json.dumps(base))
    (directory / "trustedFolders.json").write_text(json.dumps({str(machine.project): "TRUST_FOLDER"}))
    _install(machine, "gemini")


def _copilot_setup(machine: Machine, port: int) -> None:
    _install(machine, "copilot")


def _pi_setup(machine: Machine, port: int) -> None:
    """pi loads our extension (integrations/pi), installed as its README says: copied into
    ~/.pi/agent/extensions, with POLICY_ENGINE_BIN naming the policy executable."""
    agent_dir = machine.home / ".pi" / "agent"
    (agent_dir / "extensions").mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "integrations" / "pi" / "index.ts", agent_dir / "extensions" / "policy-engine.ts")
    model = {
        "id": "mock-model",
        "name": "mock",
        "reasoning": False,
        "input": ["text"],
        "contextWindow": 100000,
        "maxTokens": 1000,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
    }
    provider = {
        "baseUrl": f"http://127.0.0.1:{port}/v1",
        "api": "openai-completions",
        "apiKey": "mock",
        "models": [model],
    }
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"mock": provider}}))


AGENTS: dict[str, Agent] = {
    "claude": Agent(
        "claude",
        _claude_setup,
        lambda m: ["claude", "-p", PROMPT, "--output-format", "json", "--max-turns", "3"],
        lambda m, port: {
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
            "ANTHROPIC_API_KEY": "sk-ant-mock",
        },
        lambda command: {"tool": "Bash", "input": {"command": command, "description": "run it"}},
        lambda path, text: {"tool": "Write", "input": {"file_path": str(path), "content": text}},
    ),
    "codex": Agent(
        "codex",
        _codex_setup,
        lambda m: [
            "codex",
            "exec",
            "--dangerously-bypass-approvals-and-sandbox",
            "--skip-git-repo-check",
            PROMPT,
        ],
        lambda m, port: {"CODEX_HOME": str(m.home / ".codex"), "MOCK_API_KEY": "mock"},
        lambda command: {"tool": "exec_command", "input": {"cmd": command}},
        lambda path, text: {
            "tool": "apply_patch",
            "text": f"*** Begin Patch\n*** Add File: {path}\n"
            + "".join(f"+{line}\n" for line in text.splitlines())
            + "*** End Patch\n",
        },
    ),
    "gemini": Agent(
        "gemini",
        _gemini_setup,
        lambda m: ["gemini", "-p", PROMPT, "--yolo", "-m", "gemini-2.5-flash"],
        lambda m, port: {"GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{port}", "GEMINI_API_KEY": "mock"},
        lambda command: {"tool": "run_shell_command", "input": {"command": command, "description": "run it"}},
        lambda path, text: {"tool": "write_file", "input": {"file_path": str(path), "content": text}},
    ),
    "copilot": Agent(
        "copilot",
        _copilot_setup,
        lambda m: ["copilot", "-p", PROMPT, "--allow-all-tools"],
        lambda m, port: {
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_BASE_URL": f"http://127.0.0.1:{port}/v1",
            "COPILOT_PROVIDER_API_KEY": "mock",
            "COPILOT_MODEL": "gpt-4.1",
        },
        lambda command: {"tool": "bash", "input": {"command": command, "description": "run it"}},
        lambda path, text: {"tool": "create", "input": {"path": str(path), "file_text": text}},
    ),
    "pi": Agent(
        "pi",
        _pi_setup,
        lambda m: ["pi", "-p", "--provider", "mock", "--model", "mock-model", "--no-session", PROMPT],
        lambda m, port: {"POLICY_ENGINE_BIN": str(Path(sys.executable).parent / "policy")},
        lambda command: {"tool": "bash", "input": {"command": command}},
        lambda path, text: {"tool": "write", "input": {"path": str(path), "content": text}},
    ),
}
