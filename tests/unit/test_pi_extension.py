"""The pi extension's own tests (node's built-in runner, a fake pi API), run with the rest, and one
call through the extension to the real engine."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import REPO, Sandbox

PI = REPO / "integrations" / "pi"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


def test_the_extension_tests_pass() -> None:
    result = subprocess.run(["npm", "test"], cwd=PI, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "# fail 0" in result.stdout


DRIVER = textwrap.dedent(
    """
    import { register } from "node:module";
    import { pathToFileURL } from "node:url";
    const [major, minor] = process.versions.node.split(".").map(Number);
    if (major < 23 || (major === 23 && minor < 6)) {
      register(pathToFileURL(process.argv[2] + "/tools/ts-loader.mjs"));
    }
    const { default: extension } = await import(pathToFileURL(process.argv[2] + "/index.ts"));
    const handlers = {};
    extension({ on: (name, handler) => { handlers[name] = handler; } });
    const ctx = { cwd: process.argv[3], hasUI: false, ui: { select: async () => undefined, notify: () => {} } };
    const results = [];
    for (const command of ["ls", "rm -rf /"]) {
      results.push(await handlers.tool_call({ toolName: "bash", input: { command }, toolCallId: command }, ctx) ?? null);
    }
    console.log(JSON.stringify(results));
    """
)


def test_a_call_through_the_extension_reaches_the_real_engine(sandbox: Sandbox, tmp_path: Path) -> None:
    launcher = tmp_path / "policy"
    launcher.write_text(f'#!/bin/sh\nexec {sys.executable} -m policy_engine "$@"\n')
    launcher.chmod(0o755)
    driver = tmp_path / "driver.mjs"
    driver.write_text(DRIVER)
    env = {**sandbox.env, "POLICY_ENGINE_BIN": str(launcher)}
    result = subprocess.run(
        [NODE or "node", str(driver), str(PI), str(sandbox.project("repo"))],
        capture_output=True,
        text=True,
        env={**env, "PATH": os.environ.get("PATH", "")},
        cwd=str(REPO),
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    allowed, denied = json.loads(result.stdout)
    assert allowed is None  # ls runs
    assert denied["block"] is True and denied["reason"].startswith("[policy-engine] Denied: bash (rm -rf /)")
