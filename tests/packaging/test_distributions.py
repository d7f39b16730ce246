"""The release as users get it: an sdist and a wheel, installed with pip, pipx and uv into
environments of their own, outside the checkout, with nothing of the test run on PATH; each
installed ``policy`` judges a command, answers a hook call and knows its version.

The distributions come from POLICY_ENGINE_DIST (``.ci/run`` builds them with ``python -m build``);
without it they are built here when ``build`` is importable (the ``packaging`` extra)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from payloads import claude

from policy_engine.version import __version__

REPO = Path(__file__).resolve().parents[2]
# Tools of the packaging extra, next to the interpreter running the tests.
TOOLS = Path(sys.executable).parent
# Installing resolves the dependencies from the package index: minutes at worst.
TIMEOUT = 900
_NETWORK = {"http_proxy", "https_proxy", "no_proxy", "ssl_cert_file", "requests_ca_bundle", "tmpdir"}


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("POLICY_ENGINE_DIST")
    if given:
        return Path(given)
    try:
        import build  # noqa: F401
    except ImportError:
        pytest.skip("no POLICY_ENGINE_DIST and no `build` to make one (pip install -e '.[packaging]')")
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(REPO)],
        check=True,
        capture_output=True,
        timeout=TIMEOUT,
    )
    return out


def _one(dist: Path, pattern: str) -> Path:
    found = sorted(dist.glob(pattern))
    assert len(found) == 1, f"expected one {pattern} in {dist}: {found}"
    return found[0]


def _clean_env(home: Path, **extra: str) -> dict[str, str]:
    """A user's environment: their own HOME, the system's PATH, nothing of this test run."""
    env = {"HOME": str(home), "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
    for name, value in os.environ.items():  # where this machine's packages come from, and how
        if name.startswith(("PIP_", "UV_")) or name.lower() in _NETWORK:
            env[name] = value
    env.update(extra)
    return env


def _works(policy: Path, home: Path, env: dict[str, str]) -> None:
    """What a user does first with an installed ``policy``, run from outside the checkout."""
    workdir = home / "project"
    workdir.mkdir(exist_ok=True)

    def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(policy), *args],
            cwd=workdir,
            env=env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
        )

    version = run("--version")
    assert version.returncode == 0 and __version__ in version.stdout, version
    asked = run("check", "rm -rf ~")
    assert asked.returncode in (10, 20), asked  # ask or deny (it holds the project), never allow
    allowed = run("check", "git status")
    assert allowed.returncode == 0, allowed
    payload = claude(str(workdir), "Bash", {"command": "cat ~/.ssh/id_rsa"})
    hooked = run("hook", "--agent", "claude", stdin=json.dumps(payload))
    try:
        answer = json.loads(hooked.stdout)["hookSpecificOutput"]
        assert answer["permissionDecision"] == "deny", hooked
    finally:
        # The hook call started a daemon (it lives 30 idle minutes): this one is the test's.
        assert run("daemon", "stop").returncode == 0
    # The presets and the schema are data files: a wheel without them would fail here.
    assert run("presets").returncode == 0
    schema = run("schema")
    assert schema.returncode == 0 and json.loads(schema.stdout)["type"] == "object"
    # pi's extension ships in the package: installed from it as from a checkout.
    pi = run("install", "--agent", "pi")
    assert pi.returncode == 0, pi
    copy = home / ".pi" / "agent" / "extensions" / "policy-engine.ts"
    assert copy.read_bytes() == (REPO / "integrations" / "pi" / "index.ts").read_bytes()


def test_the_distributions_carry_the_metadata_and_the_license(dist: Path) -> None:
    wheel = _one(dist, "*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = Parser().parsestr(archive.read(f"policy_engine-{__version__}.dist-info/METADATA").decode())
    assert f"policy_engine-{__version__}.dist-info/licenses/LICENSE" in names
    assert "policy_engine/py.typed" in names
    assert "policy_engine/presets/default.jsonc" in names
    assert "policy_engine/pi_extension/index.ts" in names
    assert metadata["Name"] == "policy-engine" and metadata["Version"] == __version__
    assert metadata["License-Expression"] == "MIT"
    assert metadata["Requires-Python"] == ">=3.11"
    assert "claude-code" in metadata["Keywords"]
    classifiers = metadata.get_all("Classifier") or []
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert any(c.startswith("Topic :: Security") for c in classifiers)
    assert metadata["Summary"] and "tool calls" in metadata["Summary"]
    assert metadata.get_payload().startswith("# policy-engine"), "README is the long description"
    with tarfile.open(_one(dist, "*.tar.gz")) as sdist:
        members = {m.name.split("/", 1)[1] for m in sdist.getmembers() if "/" in m.name}
    assert {"LICENSE", "README.md", "pyproject.toml", "presets/default.jsonc"} <= members


@pytest.mark.parametrize("pattern", ["*.whl", "*.tar.gz"], ids=["wheel", "sdist"])
def test_pip_installs_the_distribution(dist: Path, tmp_path: Path, pattern: str) -> None:
    env = _clean_env(tmp_path)
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True, env=env)
    pip = tmp_path / "venv" / "bin" / "pip"
    subprocess.run(
        [str(pip), "install", "--quiet", str(_one(dist, pattern))],
        check=True,
        env=env,
        timeout=TIMEOUT,
    )
    _works(tmp_path / "venv" / "bin" / "policy", tmp_path, env)


# The tools that install an application in an environment of its own (`pipx install`, `uv tool
# install`), and the variables that keep it in the test's directory, its `policy` in bin/.
TOOL_INSTALLS = {
    "pipx": (
        ["install"],
        lambda root: {
            "PIPX_HOME": str(root / "pipx"),
            "PIPX_MAN_DIR": str(root / "man"),
            "PIPX_BIN_DIR": str(root / "bin"),
        },
    ),
    "uv": (
        ["tool", "install"],
        lambda root: {
            "UV_TOOL_DIR": str(root / "tools"),
            "UV_PYTHON_DOWNLOADS": "never",
            "UV_TOOL_BIN_DIR": str(root / "bin"),
        },
    ),
}


@pytest.mark.parametrize("tool", TOOL_INSTALLS)
def test_an_application_installer_installs_the_wheel(dist: Path, tmp_path: Path, tool: str) -> None:
    program = TOOLS / tool
    if not program.exists():
        pytest.skip(f"{tool} is not installed (pip install -e '.[packaging]')")
    command, places = TOOL_INSTALLS[tool]
    bin_dir = tmp_path / "bin"
    env = _clean_env(tmp_path, **places(tmp_path))
    subprocess.run(
        [str(program), *command, "--python", sys.executable, str(_one(dist, "*.whl"))],
        check=True,
        env=env,
        capture_output=True,
        timeout=TIMEOUT,
    )
    _works(bin_dir / "policy", tmp_path, env)
    assert shutil.which("policy", path=str(bin_dir))
