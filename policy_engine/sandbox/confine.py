"""A call allowed only in a sandbox, confined: the sandbox its rules ask for, the backend that runs
it here, the plan, and the rewritten command; or why it cannot be confined (the rules then ask)."""

from __future__ import annotations

from ..agents import catalog
from ..config.compiled import Sandbox
from . import backend as backends
from .plan import Unconfinable, plan
from .wrap import Confinement, wrapped

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from ..decide.protect import Guard
    from ..model import ToolCall


def strictest(wanted: Sequence[Sandbox]) -> Sandbox:
    """One sandbox for a line whose commands ask for several: the network only if each allows it,
    only the extra directories each lets it write."""
    shared = set(wanted[0].write).intersection(*(s.write for s in wanted[1:]))
    return Sandbox(all(s.network for s in wanted), tuple(w for w in wanted[0].write if w in shared))


def confinement(
    wanted: Sequence[Sandbox],
    command: str,
    call: ToolCall,
    guards: tuple[Guard, ...],
    *,
    project: str,
    home: str,
    env: Mapping[str, str],
    secret: Callable[[str], bool],
) -> Confinement | str:
    """How ``command`` runs confined as ``wanted`` says, or why it cannot."""
    if call.agent is not None and call.agent not in catalog.REWRITES:
        return f"{call.agent}'s hook cannot change the command it runs"
    found = backends.find(env)
    if isinstance(found, str):
        return found
    try:
        made = plan(
            strictest(wanted),
            guards,
            project=project,
            cwd=call.workdir or call.cwd,
            home=home,
            env=env,
            secret=secret,
        )
    except Unconfinable as why:
        return str(why)
    return Confinement(found.name, wrapped(found, made, command), made)
