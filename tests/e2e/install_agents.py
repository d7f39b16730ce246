"""Install the agents' CLIs at the versions the suite pins (harness.VERSIONS) from npm into DIR,
each on its own so that one failed install skips only that agent's tests (with the reason).

Usage: python tests/e2e/install_agents.py DIR. Kept between runs: an agent already there at its
version is not installed again. Exits 0 whatever failed (the tests report it as skipped).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from harness import VERSIONS


def installed(directory: Path, package: str) -> str | None:
    try:
        return json.loads((directory / "node_modules" / package / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def main(directory: Path) -> int:
    directory.mkdir(parents=True, exist_ok=True)
    for agent, (package, version) in VERSIONS.items():
        if (
            installed(directory, package) == version
            and (directory / "node_modules" / ".bin" / agent).exists()
        ):
            print(f"{agent}: {package}@{version} already installed")
            continue
        done = subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(directory), f"{package}@{version}"],
            capture_output=True,
            text=True,
            timeout=1200,
        )
        if done.returncode != 0:
            print(f"{agent}: npm install {package}@{version} failed:\n{done.stderr[-2000:]}")
            continue
        if agent == "claude":  # npm 11 skips the package's postinstall, which puts its binary in place
            subprocess.run(["node", "install.cjs"], cwd=directory / "node_modules" / package, check=False)
        print(f"{agent}: {package}@{version} installed")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
