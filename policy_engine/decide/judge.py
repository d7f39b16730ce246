"""Judging atoms: pathProtection, location -> policy -> rules, doubts; and combining the verdicts.

Every access of every atom is judged under the policy of the location that holds its path (both its
literal and its symlink-resolved spelling); an atom that touches no path is judged at the working
directory. The most restrictive verdict of all wins (``deny > ask > log > nudge > allow``).
"""

from __future__ import annotations

from collections.abc import Callable

from .. import paths
from ..config.compiled import CompiledRule, Layer, LocationEntry, Protection
from ..config.ruleorder import specificity, winning_order
from ..decide.rules import RuleBook, RuleMatch
from ..globs import glob_matches
from ..model import Action, Atom, Sense, Verdict, VerdictKind, Walk
from ..paths import inside, normalize, spellings
from ..record import Record
from .locations import LocationIndex, location_directory
from .protect import SOUGHT, UNDER, UNSEARCHED, Guard, Search, Shield, guards, protections_hit

TYPE_CHECKING = False  # not typing's: see record.py
if TYPE_CHECKING:
    from ..analysis.shell.commandline import Reader


class Context(Record):
    """What a judgement depends on besides the atom: the agent's cwd (which ``$cwd`` names), the
    home directory, the project root, how to spell a directory (literal and symlink-resolved,
    memoized), the searches of the trees the call walks (one per call: files change between
    calls), how to read a command's options as the shell knowledge says (None: as text only),
    the directory the call runs in when it is not the cwd (where a command that names no path is
    judged), and whether rules that allow a command only in a sandbox apply (not where the call
    cannot be confined: it is then judged as if they were not there)."""

    cwd: str
    home: str
    project_root: str
    spell: Callable[[str], tuple[str, ...]]
    search: Search
    reader: Callable[[], Reader] | None = None
    workdir: str | None = None
    sandboxes: bool = True
    # Where the directories of the call's paths resolve to (paths.spellings): for this call only.
    resolved: dict[str, str] | None = None


class LayerJudge:
    """One layer and the rule indexes of its policies, built as policies are first used."""

    __slots__ = (
        "_approvals",
        "_books",
        "_directories",
        "_guarded",
        "_home",
        "_location_directories",
        "_location_indexes",
        "layer",
        VerdictKind.PROTECTION,
    )

    def __init__(self, layer: Layer, home: str, extra_protection: tuple[Protection, ...] = ()) -> None:
        self.layer = layer
        self.protection = layer.protection + extra_protection
        self._approvals = sorted(layer.approval_rules, key=winning_order)
        self._home = home
        self._guarded: dict[tuple[str, str, str], Shield] = {}
        self._location_directories: dict[str, tuple[list[str], int]] = {}  # and the longest's length
        self._books: dict[str, RuleBook] = {}
        self._directories: dict[tuple[tuple[int, str], str], tuple[str, ...]] = {}
        self._location_indexes: dict[tuple[str, str, bool], LocationIndex] = {}

    def forget_spellings(self) -> None:
        """Drop what was built from the directories as spelt with their symbolic links resolved
        (protections placed, location indexes): built again as calls come (Engine says when)."""
        self._guarded.clear()
        self._directories.clear()
        self._location_indexes.clear()

    def _book(self, name: str) -> RuleBook:
        book = self._books.get(name)
        if book is None:
            book = self._books[name] = RuleBook.of(self.layer.policies[name])
        return book

    def judge(self, atom: Atom, context: Context) -> list[Verdict]:
        """Every verdict this layer gives on ``atom``: protections, policies per target, doubts."""
        verdicts: list[Verdict] = []
        targets, redirected = self._targets(atom, context, verdicts)
        # A redirection's target is not in the command's text, so an approval of the command
        # (`git status`) does not cover it (`git status > ~/.bashrc`).
        policy_verdicts = []
        doubts = list(atom.doubts)
        # Which rule of a policy matches depends on the atom, not on the target: matched once per
        # policy, so that a command with thousands of operands is not matched once per operand.
        matches: dict[str, RuleMatch] = {}
        # The policy verdict of each located policy: the same for every target it holds but for
        # the target itself (made once, then copied with each target's own fields).
        made: dict[tuple[str, str] | None, Verdict] = {}
        # Whether each located policy has explicit read or write rules (most have none).
        explicit: dict[str, bool] = {}
        places = self._places(context, ""), self._places(context, "default")
        # The explicit verdict of each located policy on a sense: the same for every target but for
        # the target itself (made once, then copied), None when the policy has no such rules.
        explicit_made: dict[tuple[tuple[str, str], Sense], Verdict | None] = {}
        for target, senses in targets.items():
            located = self._locate(target, places)
            scope = _scope(target, context.home)
            verdict = made.get(located)
            if verdict is None:
                verdict, possible = self._policy_verdict(
                    atom, target, located, context, matches, senses[-1], scope
                )
                made[located] = verdict
                doubts += [_possibly(rule, atom) for rule in possible if rule.action >= Action.ASK]
            else:
                verdict = verdict._replace(target=target, sense=senses[-1], scope=scope)
            if self._approvals and located is not None and target not in redirected:
                verdict = self._approved(atom, target, located, verdict, context.cwd)
            policy_verdicts.append(verdict)
            verdicts.append(verdict)
            if atom.command is None or located is None:
                continue
            has = explicit.get(located[0])
            if has is None:
                book = self._book(located[0])
                has = explicit[located[0]] = any(book.explicit(tool) for tool in ("read", "write"))
            if not has:
                continue
            for sense in senses:
                if sense is None or sense not in _EXPLICIT:
                    continue
                if (located, sense) in explicit_made:
                    found = explicit_made[located, sense]
                    found = found._replace(target=target) if found is not None else None
                else:
                    found = self._explicit_verdict(atom, target, located, _EXPLICIT[sense], sense)
                    explicit_made[located, sense] = found
                if found is not None:
                    verdicts.append(
                        found
                        if target in redirected or not self._approvals
                        else self._approved(atom, target, located, found, context.cwd)
                    )
        if doubts and not _trusted_unanalyzed(policy_verdicts):
            action = self.layer.interpreter.unknown_action
            first = next(iter(targets))
            verdicts += [
                Verdict(action, VerdictKind.DOUBT, self.layer.name, atom, first, detail=doubt)
                for doubt in dict.fromkeys(doubts)
            ]
        return verdicts

    def _targets(
        self, atom: Atom, context: Context, verdicts: list[Verdict]
    ) -> tuple[dict[str, list[Sense | None]], set[str]]:
        """Every spelling of every path the atom touches, with every sense it touches it with (a path
        can be read and deleted by one command: `find ~ -delete`), and those it touches only through
        a redirection; the verdicts of the protections hit go to ``verdicts``. A walked tree also
        reaches the locations below it; an atom that touches no path is judged at its working
        directory."""
        targets: dict[str, list[Sense | None]] = {}
        checked: set[tuple[str, Sense, Walk | None]] = set()
        redirected: set[str] = set()
        direct: set[str] = set()
        shield = self._guards(context)

        def protect(path: str, sense: Sense, tree: Walk | None) -> None:
            if (path, sense, tree) not in checked:
                checked.add((path, sense, tree))
                hits = protections_hit(shield, path, sense, tree, context.search)
                if hits:
                    verdicts.extend(
                        _protected(hit, how, self.layer, atom, path, sense, context.home) for hit, how in hits
                    )

        for access in atom.accesses:
            for path in spellings(access.path, context.resolved):
                (redirected if access.redirect else direct).add(path)
                senses = targets.setdefault(path, [])
                if access.sense not in senses:
                    senses.append(access.sense)
                protect(path, access.sense, access.tree)
        for mention in atom.mentions:  # a name spelt as data: protections only, not a target
            for path in spellings(mention, context.resolved):
                protect(path, Sense.UNKNOWN, None)
        for access in atom.accesses:
            if access.tree is not None:
                for directory in self._locations_under(access.path, context):
                    senses = targets.setdefault(directory, [])
                    if access.sense not in senses:
                        senses.append(access.sense)
        where = context.workdir or context.cwd
        return targets or {path: [None] for path in context.spell(where)}, redirected - direct

    def _approved(
        self, atom: Atom, target: str, located: tuple[str, str], verdict: Verdict, cwd: str
    ) -> Verdict:
        """``verdict``, or the verdict of an approval that covers the atom at ``target`` instead.

        An approval applies to one atom (a bash line's commands are approved one by one), in the
        policy it names, and a project's approval to calls made in its directory; it never beats a
        deny rule more specific than itself. pathProtection, doubts and the other layers are
        separate verdicts, which an approval does not touch.
        """
        for approval in self._approvals:
            if not _approves(approval, atom, target, self._named(located), self._home):
                continue
            if approval.within is not None and not inside(cwd, approval.within):
                continue
            if approval.confined is not None and not inside(target, approval.confined):
                continue
            if (
                verdict.kind is VerdictKind.RULE
                and verdict.rule is not None
                and verdict.action is Action.DENY
                and specificity(verdict.rule) > specificity(approval)
            ):
                return verdict
            beaten = (verdict.rule,) if verdict.rule is not None else ()
            return verdict._replace(
                action=approval.action,
                kind=VerdictKind.APPROVAL,
                rule=approval,
                origin=approval.origin,
                message=approval.message,
                beat=beaten,
                detail=None,
            )
        return verdict

    def placed(self, context: Context) -> tuple[Guard, ...]:
        """The layer's protections placed for ``context`` (what a sandbox must honour)."""
        return self._guards(context).guards

    def _guards(self, context: Context) -> Shield:
        """The layer's protections placed for the context's home, project root and working
        directory (memoized)."""
        key = (context.home, context.project_root, context.cwd)
        found = self._guarded.get(key)
        if found is None:
            if len(self._guarded) > 64:
                self._guarded.clear()
            found = self._guarded[key] = Shield(
                guards(self.protection, context.home, context.project_root, context.cwd)
            )
        return found

    def _locations_under(self, path: str, context: Context) -> list[str]:
        """The directories of this layer's locations (and the default's it falls back on) that lie
        strictly below ``path``."""
        found = self._location_directories.get(context.cwd)
        if found is None:
            spelled = [
                location_directory(entry, context.cwd, context.home)
                for entry in self.layer.locations + self.layer.fallback
            ]
            found = self._location_directories[context.cwd] = spelled, max(map(len, spelled), default=0)
        directories, longest = found
        if longest <= len(path) and not paths.CASE_INSENSITIVE:  # none is long enough to be below it
            return []
        return [directory for directory in directories if directory != path and inside(directory, path)]

    def _locate(self, target: str, places: tuple[LocationIndex, LocationIndex]) -> tuple[str, str] | None:
        """(policy name, location key or "defaultPolicy") for ``target``; None when nothing covers it.

        The layer's own locations (``places[0]``: ``_places(context, "")``), then its defaultPolicy;
        then, where the layer extends the embedded default, the default's locations (``places[1]``)
        and defaultPolicy (config/layers.py)."""
        layer = self.layer
        entry = places[0].resolve(target)
        if entry is not None:
            return entry.policy, entry.key
        if layer.default_policy is not None:
            return layer.default_policy, "defaultPolicy"
        entry = places[1].resolve(target)
        if entry is not None:
            return entry.policy, entry.key
        if layer.fallback_policy is not None:
            return layer.fallback_policy, "defaultPolicy"
        return None

    def _places(self, context: Context, which: str) -> LocationIndex:
        """The layer's own locations (``which`` empty) or those of the default it falls back on,
        indexed by their directories as spelt for the context's working directory (memoized)."""
        key = (which, context.cwd, paths.CASE_INSENSITIVE)
        index = self._location_indexes.get(key)
        if index is None:
            if len(self._location_indexes) > 64:
                self._location_indexes.clear()
            locations = self.layer.fallback if which else self.layer.locations

            def directories(position: int, entry: LocationEntry) -> tuple[str, ...]:
                spelled = self._directories.get(((position, which), context.cwd))
                if spelled is None:
                    spelled = context.spell(location_directory(entry, context.cwd, context.home))
                    self._directories[(position, which), context.cwd] = spelled
                return spelled

            index = self._location_indexes[key] = LocationIndex(locations, directories)
        return index

    def _named(self, located: tuple[str, str]) -> str:
        """The name of the located policy (its key in the layer may differ: config/compile.py)."""
        return self.layer.policies[located[0]].name

    def _policy_verdict(
        self,
        atom: Atom,
        target: str,
        located: tuple[str, str] | None,
        context: Context,
        matches: dict[str, RuleMatch],
        sense: Sense | None,
        scope: str | None,
    ) -> tuple[Verdict, tuple[CompiledRule, ...]]:
        """The located policy's verdict on ``atom`` at ``target`` (touched with ``sense``, which is
        ``scope`` to the user), and its restrictive rules that may match depending on what bash
        computes (rules.py); ``matches`` holds this atom's match in each policy so far."""
        layer = self.layer
        if located is None:
            verdict = Verdict(
                Action.ALLOW, VerdictKind.UNRESTRICTED, layer.name, atom, target, sense=sense, scope=scope
            )
            return verdict, ()
        key, where = located
        policy = layer.policies[key]
        found = matches.get(key)
        if found is None:
            reader = context.reader if atom.command else None
            found = matches[key] = self._book(key).match(atom, reader, context.sandboxes)
        winner, beaten, possible = found
        if winner is None:
            verdict = Verdict(
                policy.default_action,
                VerdictKind.DEFAULT,
                layer.name,
                atom,
                target,
                policy.name,
                where,
                origin=policy.default_origin,
                sense=sense,
                scope=scope,
            )
            return verdict, possible
        return self._rule_verdict(atom, target, located, winner, beaten, sense=sense, scope=scope), possible

    def _explicit_verdict(
        self, atom: Atom, target: str, located: tuple[str, str], tool: str, sense: Sense
    ) -> Verdict | None:
        """A bash read or write (of ``sense``) judged by the policy's explicit ``read``/``write``
        rules, if it has any (DESIGN.md: bash reads and writes are reads and writes)."""
        rules = self._book(located[0]).explicit(tool)
        if not rules:
            return None
        detail = f"the command's {tool} of this path is governed by the policy's {tool} rules"
        return self._rule_verdict(atom, target, located, rules[0], rules[1:], detail, sense=sense)

    def _rule_verdict(
        self,
        atom: Atom,
        target: str,
        located: tuple[str, str],
        rule: CompiledRule,
        beaten: tuple[CompiledRule, ...],
        detail: str | None = None,
        *,
        sense: Sense | None = None,
        scope: str | None = None,
    ) -> Verdict:
        """The verdict of ``rule`` of the located policy, having beaten ``beaten``, on ``target``
        touched with ``sense`` (``scope`` to the user)."""
        return Verdict(
            rule.action,
            VerdictKind.RULE,
            self.layer.name,
            atom,
            target,
            self._named(located),
            located[1],
            rule,
            rule.origin,
            rule.message,
            beaten,
            detail,
            sense=sense,
            scope=scope,
        )


def _protected(
    hit: Protection, how: str, layer: Layer, atom: Atom, path: str, sense: Sense, home: str
) -> Verdict:
    """The verdict of a pathProtection hit; a walk too large to search is a doubt, at most as strict
    as the protection."""
    if how == UNSEARCHED:
        action = min(hit.action, layer.interpreter.unknown_action)
        doubt = (
            f'the command walks "{path}", too large to search for paths protected by pathProtection '
            f'"{hit.pattern}" ({hit.origin}); name the files it needs instead'
        )
        return Verdict(action, VerdictKind.DOUBT, layer.name, atom, path, detail=doubt, sense=sense)
    action = hit.action
    if (
        action is Action.DENY
        and how == UNDER
        and hit.anchor == "anywhere"
        and not hit.fixed
        and _searches(atom)
    ):
        # A search of a tree that holds a secret somewhere (.env in a project) is everyday work
        # done carelessly: asked, with how to leave the secret out, rather than refused outright.
        # Copying or archiving the tree (cp -r, tar) takes the secret elsewhere: still refused.
        action = Action.ASK
    return Verdict(
        action,
        VerdictKind.PROTECTION,
        layer.name,
        atom,
        path,
        origin=hit.origin,
        detail=hit.pattern,
        sense=sense,
        walked=how in (UNDER, SOUGHT),
        scope=_scope(path, home) if how in (UNDER, SOUGHT) else None,
    )


def _searches(atom: Atom) -> bool:
    """Whether the atom only reads: a search or a listing, whose output is all it makes."""
    return all(access.sense is Sense.READ for access in atom.accesses)


def _possibly(rule: CompiledRule, atom: Atom) -> str:
    """The doubt of a rule that may match, depending on words bash computes."""
    words = ", ".join(f"`{atom.words[i]}`" for i in atom.computed if i < len(atom.words))
    return (
        f"{words} {'is' if ',' not in words else 'are'} computed when the command runs, and may be an "
        f"option that rule {rule.label()} ({rule.origin}) refuses"
    )


def _scope(directory: str, home: str) -> str | None:
    """What a walked directory is to the user, where it is more than itself."""
    if directory == home:
        return "the home directory"
    if directory == "/":
        return "the whole file system"
    if inside(home, directory):
        return "a directory that holds the home directory"
    return None


# Which explicit tool rules govern a bash access of each sense.
_EXPLICIT = {Sense.READ: "read", Sense.WRITE: "write", Sense.DELETE: "write"}


def _approves(approval: CompiledRule, atom: Atom, target: str, policy: str, home: str) -> bool:
    """Whether ``approval`` covers ``atom`` at ``target`` in ``policy``: its tool, its exact command or
    pattern (bash), its path or path glob (file tools), and its policy."""
    if approval.policy is not None and approval.policy != policy:
        return False
    if not glob_matches(approval.tool, atom.tool) or (approval.read_only and not atom.read_only):
        return False
    if approval.command is not None and atom.command != approval.command:
        return False
    if approval.pattern is not None and (
        atom.command is None or not glob_matches(approval.pattern, atom.command)
    ):
        return False
    return approval.path is None or (
        atom.command is None and glob_matches(normalize(approval.path, "/", home), target)
    )


def _trusted_unanalyzed(verdicts: list[Verdict]) -> bool:
    """An atom's doubts are waived when every policy verdict on it is an allow rule (or approval)
    with allowUnanalyzed, or one that allows it only in a sandbox (which holds whatever the
    command does that the analysis cannot see)."""
    return bool(verdicts) and all(
        v.kind in (VerdictKind.RULE, VerdictKind.APPROVAL)
        and v.action is Action.ALLOW
        and v.rule is not None
        and (v.rule.allow_unanalyzed or v.rule.sandbox is not None)
        for v in verdicts
    )


# Among equally restrictive verdicts, the one that explains best decides: a protection or a rule
# says more than a doubt, a doubt more than a policy's default.
_EXPLAINS = {
    VerdictKind.PROTECTION: 5,
    VerdictKind.RULE: 4,
    VerdictKind.APPROVAL: 4,
    VerdictKind.SESSION: 3,
    VerdictKind.DOUBT: 2,
    VerdictKind.DEFAULT: 1,
    VerdictKind.UNRESTRICTED: 0,
}


def combine(verdicts: list[Verdict]) -> Verdict | None:
    """The most restrictive verdict (of equals, the best explained, then the first), or None."""
    if not verdicts:
        return None
    return max(verdicts, key=lambda v: (v.action, _EXPLAINS[v.kind]))
