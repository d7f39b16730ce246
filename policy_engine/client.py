"""The ``policy`` entry point, and the script the installed hooks run by path
(``python -S …/policy_engine/client.py hook --agent NAME``: see ``hook/install.py``).

A script is compiled on every run, a module comes from its cached bytecode: this file is kept
to the dispatch, and the hook's side of the daemon lives in ``hook/client.py``.

Hooks run it with ``-S``: ``site`` (site-packages, their ``.pth`` files, ``sitecustomize``) costs
2–3 ms, a quarter of a call the daemon answers, which needs the standard library and this package
alone. The package is found beside this file; ``site`` is loaded before anything needs more
(``hook.client.load_site``: judging in-process, any other command).
"""

import os
import sys

if __name__ == "__main__" and sys.flags.no_site:
    # The script's own directory is the package's (sys.path[0]); policy_engine is in its parent.
    sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main() -> int:
    argv = sys.argv[1:]
    agent = _hook_agent(argv)
    from policy_engine.agents import AGENTS

    if agent not in AGENTS:  # any other command, or a hook call argparse will explain
        from policy_engine.hook.client import load_site

        load_site()
        from policy_engine.cli import main as cli_main

        return cli_main(argv)
    import gc

    from policy_engine.hook.client import hook

    # A hook process lives for one call, allocating a bounded amount (the analysis caps a line's
    # size and atoms, the hook its time): the cyclic collector's passes over the tens of thousands
    # of objects imports create would cost some 2 ms and free next to nothing. It stays on as a
    # backstop at a threshold one call hardly reaches.
    gc.set_threshold(100_000, 50, 50)
    # The answer is written and flushed, the log appended with os.write, the state store committed:
    # tearing down the interpreter (every module, the parsers) would only delay the agent by ~5 ms.
    os._exit(hook(agent, os.environ))


def _hook_agent(argv: list[str]) -> str | None:
    """The agent of ``policy hook --agent NAME`` (or ``--agent=NAME``), else None."""
    if len(argv) == 3 and argv[0] == "hook" and argv[1] == "--agent":
        return argv[2]
    if len(argv) == 2 and argv[0] == "hook" and argv[1].startswith("--agent="):
        return argv[1].split("=", 1)[1]
    return None


if __name__ == "__main__":
    sys.exit(main())
