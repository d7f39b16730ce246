"""Codex's hook trust: Codex runs a hook from a hooks.json only once its content is trusted, and
``codex exec`` skips an untrusted one without a word. ``policy install --agent codex`` is the
user's consent, so it records the trust Codex reads, as Codex's own ``/hooks`` screen does.

Two ways, the first when ``codex`` is on PATH: ask ``codex app-server`` (JSON-RPC over stdio:
``initialize``, ``initialized``, ``hooks/list`` for the hook's key, hash and status, then
``config/batchWrite`` of ``hooks.state.<key>.trusted_hash``), which is Codex's own interface; else
write the same record into ``$CODEX_HOME/config.toml`` with the hash Codex computes: ``sha256:``
and the SHA-256 of the hook's normalized form as compact JSON with sorted keys. The record is
tied to the content: a changed command is untrusted again, so install re-trusts it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import tomllib
from collections.abc import Mapping, Sequence
from typing import Any

from ..record import Record

EVENT = "pre_tool_use"  # Codex's name of PreToolUse in keys and hashes
RPC_TIMEOUT = 30.0  # seconds for the whole app-server conversation


class TrustError(Exception):
    """The trust could not be recorded or read (the message says why and what to do)."""


class HookTrust(Record):
    """What Codex says of one hook: its key in hooks.state, the hash of its content now, and
    ``trusted``, ``untrusted`` or ``modified`` (trusted once, changed since)."""

    key: str
    current_hash: str
    status: str
    command: str


def hook_key(path: str, group: int, handler: int) -> str:
    return f"{path}:{EVENT}:{group}:{handler}"


def hook_hash(matcher: str | None, handler: Mapping[str, Any]) -> str:
    """The hash Codex gives a command handler of a PreToolUse group with ``matcher``."""
    normalized = {
        "type": "command",
        "command": handler["command"],
        "timeout": handler.get("timeout", 600),
        "async": bool(handler.get("async", False)),
    }
    if handler.get("statusMessage") is not None:
        normalized["statusMessage"] = handler["statusMessage"]
    form: dict[str, Any] = {"event_name": EVENT, "hooks": [normalized]}
    if matcher is not None:
        form["matcher"] = matcher
    text = json.dumps(form, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def codex_program(env: Mapping[str, str]) -> str | None:
    return shutil.which("codex", path=env.get("PATH", os.defpath))


# --- through Codex's app-server --------------------------------------------------------------------


class _Rpc:
    """A JSON-RPC conversation with ``codex app-server`` over its stdin and stdout."""

    def __init__(self, program: str, env: Mapping[str, str], cwd: str) -> None:
        self.process = subprocess.Popen(
            [program, "app-server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=dict(env),
            cwd=cwd,
        )
        self.next_id = 0

    def call(self, method: str, params: Mapping[str, Any]) -> Any:
        self.next_id += 1
        self._send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.process.stdout is not None
        for line in self.process.stdout:  # notifications come between
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") == self.next_id:
                if "error" in message:
                    raise TrustError(f"codex app-server refused {method}: {message['error']}")
                return message.get("result")
        raise TrustError(f"codex app-server ended before answering {method}")

    def notify(self, method: str) -> None:
        self._send({"jsonrpc": "2.0", "method": method})

    def _send(self, message: Mapping[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def close(self) -> None:
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


def _conversation(program: str, env: Mapping[str, str], cwd: str, work: Any) -> Any:
    """Run ``work(rpc)`` after the handshake, within RPC_TIMEOUT."""
    import threading

    try:
        rpc = _Rpc(program, env, cwd)
    except OSError as error:
        raise TrustError(f"cannot start {program} app-server: {error}") from None
    timer = threading.Timer(RPC_TIMEOUT, rpc.process.kill)
    timer.start()
    try:
        rpc.call("initialize", {"clientInfo": {"name": "policy-engine", "version": "1"}})
        rpc.notify("initialized")
        return work(rpc)
    except (OSError, ValueError) as error:
        raise TrustError(f"codex app-server failed: {error}") from None
    finally:
        timer.cancel()
        rpc.close()


def _listed(rpc: _Rpc, cwd: str) -> list[HookTrust]:
    result = rpc.call("hooks/list", {"cwds": [cwd]})
    found: list[HookTrust] = []
    for entry in (result or {}).get("data", []):
        for hook in entry.get("hooks", []) if isinstance(entry, dict) else []:
            if isinstance(hook, dict) and isinstance(hook.get("key"), str):
                found.append(
                    HookTrust(
                        hook["key"],
                        str(hook.get("currentHash")),
                        str(hook.get("trustStatus")),
                        str(hook.get("command")),
                    )
                )
    return found


def listed_trust(program: str, env: Mapping[str, str], cwd: str) -> list[HookTrust]:
    """Every hook Codex sees for ``cwd``, with its trust, as ``hooks/list`` reports it."""
    return list(_conversation(program, env, cwd, lambda rpc: _listed(rpc, cwd)))


def trust_through_codex(
    program: str, env: Mapping[str, str], cwd: str, keys: Sequence[str]
) -> list[HookTrust]:
    """Trust the hooks of ``keys`` as Codex lists them now; what hooks/list says afterwards."""

    def work(rpc: _Rpc) -> list[HookTrust]:
        hooks = {hook.key: hook for hook in _listed(rpc, cwd)}
        missing = [key for key in keys if key not in hooks]
        if missing:
            raise TrustError(f"codex does not list the hook {missing[0]}")
        value = {
            key: {"trusted_hash": hooks[key].current_hash} for key in keys if hooks[key].status != "trusted"
        }
        if value:
            edit = {"keyPath": "hooks.state", "value": value, "mergeStrategy": "upsert"}
            rpc.call("config/batchWrite", {"edits": [edit]})
        after = {hook.key: hook for hook in _listed(rpc, cwd)}
        return [after[key] for key in keys if key in after]

    return list(_conversation(program, env, cwd, work))


# --- in config.toml, without Codex --------------------------------------------------------------


def recorded_hashes(config: str) -> dict[str, str]:
    """``hooks.state.<key>.trusted_hash`` of a config.toml (empty when there is none)."""
    try:
        with open(config, "rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise TrustError(f"cannot read {config}: {error}") from None
    state = data.get("hooks", {}).get("state", {}) if isinstance(data.get("hooks"), dict) else {}
    return {
        key: value["trusted_hash"]
        for key, value in (state.items() if isinstance(state, dict) else ())
        if isinstance(value, dict) and isinstance(value.get("trusted_hash"), str)
    }


def record_trust(config: str, trusted: Mapping[str, str]) -> bool:
    """Write ``hooks.state.<key>.trusted_hash`` for each key into ``config`` (its other content
    kept byte for byte); False when every one was already there. TrustError, with the file left
    as it was, when the result would not read back as written."""
    if all(recorded_hashes(config).get(key) == value for key, value in trusted.items()):
        return False
    try:
        with open(config, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        text = ""
    new = text
    for key, value in trusted.items():
        header = f"[hooks.state.{json.dumps(key, ensure_ascii=False)}]"
        line = f"trusted_hash = {json.dumps(value)}"
        table = re.search(rf"^{re.escape(header)}[ \t]*\n((?:(?!\[).*\n)*)", new, re.M)
        if table is None:
            new = new + ("" if not new or new.endswith("\n") else "\n") + f"\n{header}\n{line}\n"
            continue
        body = table.group(1)
        replaced, count = re.subn(r"^trusted_hash\s*=.*$", line, body, count=1, flags=re.M)
        body = replaced if count else f"{line}\n{body}"
        new = new[: table.start(1)] + body + new[table.end(1) :]
    os.makedirs(os.path.dirname(config) or ".", exist_ok=True)
    temporary = f"{config}.policy-engine.{os.getpid()}"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(new)
    try:
        check = recorded_hashes(temporary)
    except TrustError:
        check = {}
    if any(check.get(key) != value for key, value in trusted.items()):
        os.unlink(temporary)
        raise TrustError(
            f"cannot add the trust to {config} without breaking it: trust the hook in Codex (/hooks)"
        )
    if os.path.exists(config):
        os.chmod(temporary, os.stat(config).st_mode & 0o7777)
    os.replace(temporary, config)
    return True
