"""Root-level metamorphic families of normative worlds.

A family anchors a canonical (root) world with one queried action and four variants, one per
role: `surface_invariant` (facts, rules and priorities reordered; identifiers unchanged),
`support_delta` (a fact that makes a rule bearing on the query apply is removed, or one that
makes a rule apply is added), `priority_delta` (priority edges between rules bearing on the
query added, removed or reversed) and `distractor_invariant` (facts and rules about an
unrelated action and person added). Every variant is solved and kept only when the change
record computed from the two verdicts names its role (`change_record(...).relation`), when
the invariant roles change nothing about the query and the delta roles change something
(the answer, the support, a status or an attack); otherwise the edit is drawn again from the
same random stream, and after `EDIT_DRAWS` failures a new root is drawn.

Family types, each a root situation:

- `partial_priority_conflict`: three or four applicable rules in conflict, priorities
  ordering some conflicting pairs and not others;
- `unresolved_conflict`: the root answers `conflict_unresolved`; often a rule whose
  precondition is missing would override one side, so adding its fact resolves it;
- `multiple_compatible_overrides`: two or three rules of the answer's label each override
  every conflicting rule, so removing the support's fact keeps the answer and moves the
  support; sometimes a rule whose precondition is missing would override them all;
- `missing_precondition_distractor`: beside the applicable rules sits a rule on the queried
  action whose precondition is missing (one of its facts absent, or present for another
  person), often with priority over an applicable rule;
- `priority_chain` (held out, OOD): the deciding priority holds only through a chain of three
  or four priority edges through rules that do not apply;
- `distractor_conflict` (held out, OOD): the distractor variant adds a whole conflict about
  another action.

In-distribution worlds have no priority path longer than two edges and their distractors add
one rule, so the held-out structures appear only in the OOD types. Generation is
deterministic in (family type, seed): the random stream is seeded from a sha256 of a key,
and no choice depends on the iteration order of a set. Splits are by family: OOD types go to
`ood`, the others to `train`, `dev` or `test` (about 70/10/20) by a sha256 of the family id.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from argc.compiler.norms.changes import INVARIANT, ChangeRecord, change_record
from argc.compiler.norms.theory import priority_closure
from argc.compiler.norms.verdict import Verdict, solve_world
from argc.dsl.errors import InputError
from argc.dsl.norms import Atom, Fact, IdentityRule, Norm, Priority, Query, World
from argc.dsl.norms.world import INCOMPATIBLE, LABELS
from argc.tasks.norms.surface import reorder
from argc.tasks.norms.vocabulary import DOMAINS, RULE_PREFIXES, Domain

ID_FAMILY_TYPES = (
    "partial_priority_conflict",
    "unresolved_conflict",
    "multiple_compatible_overrides",
    "missing_precondition_distractor",
)
OOD_FAMILY_TYPES = ("priority_chain", "distractor_conflict")
FAMILY_TYPES = ID_FAMILY_TYPES + OOD_FAMILY_TYPES
ROLES = ("surface_invariant", "support_delta", "priority_delta", "distractor_invariant")
SPLITS = ("train", "dev", "test", "ood")
#: Roots drawn for one family, and edits drawn for one role of a root, before giving up.
ROOT_DRAWS = 40
EDIT_DRAWS = 24
#: The longest priority path (in edges) of in-distribution worlds.
ID_CHAIN = 2

_PRO = ("permitted", "obligated")


class GenerationError(RuntimeError):
    """No family of this type could be drawn within the bounds."""


def stream(*key: object) -> random.Random:
    """A random stream seeded from a sha256 of the key (never Python's `hash`)."""
    digest = hashlib.sha256(":".join(map(str, key)).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def family_id(family_type: str, seed: int) -> str:
    return f"{family_type}-{seed}"


def split_of(family_id: str, family_type: str) -> str:
    """`ood` for held-out family types; `train`, `dev` or `test` (70/10/20) by a sha256 of the
    family id for the others. Every pair and rendering of a family is in its family's split."""
    if family_type in OOD_FAMILY_TYPES:
        return "ood"
    if family_type not in ID_FAMILY_TYPES:
        raise ValueError(f"unknown family type '{family_type}'")
    digest = hashlib.sha256(f"split:{family_id}".encode()).digest()
    bucket = int.from_bytes(digest[:8], "big") % 100
    return "train" if bucket < 70 else "dev" if bucket < 80 else "test"


@dataclass(frozen=True)
class Family:
    """A root world, its four variants (role -> world) and, per role, the change record and
    the variant's verdict (JSON); `root_verdict` is the root's verdict (JSON)."""

    id: str
    family_type: str
    split: str
    root: World
    variants: dict[str, World]
    domain: str = ""
    root_verdict: dict = field(default_factory=dict)
    records: dict[str, dict] = field(default_factory=dict)


# Drafts: the rules of a root and the facts that make each apply ----------------------------


@dataclass
class _Rule:
    label: str
    body: tuple[Atom, ...]
    #: The facts that make the rule apply to the queried person.
    enabling: tuple[Atom, ...]
    name: str = ""


class _Draft:
    """A root under construction: people, an action, rules with their enabling facts, and
    priority edges between rules (by index)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.domain: Domain = rng.choice(DOMAINS)
        self.prefix = rng.choice(RULE_PREFIXES)
        people = rng.sample(self.domain.people, 3)
        self.subject, self.others = people[0], people[1:]
        self.action = rng.choice(sorted(self.domain.actions))
        self.roles = sorted(self.domain.roles)
        rng.shuffle(self.roles)
        self.relations = sorted(self.domain.relations)
        rng.shuffle(self.relations)
        self.facts: list[Atom] = []
        self.identities: list[IdentityRule] = []
        self.rules: list[_Rule] = []
        self.edges: list[tuple[int, int]] = []

    def fresh_role(self) -> str:
        """A role no rule of the draft uses yet."""
        if not self.roles:
            raise _Exhausted
        return self.roles.pop()

    def fact(self, atom: Atom) -> None:
        if atom not in self.facts:
            self.facts.append(atom)

    def rule(self, label: str, applicable: bool) -> int:
        """A rule with a fresh precondition (one role, two roles, a role reached by an identity
        rule, or a relation to another person with a role); its facts present when
        applicable, else some of them absent or given to another person."""
        rng, x, other = self.rng, self.subject, self.rng.choice(self.others)
        style = rng.choice(("unary", "unary", "pair", "identity", "binary"))
        pairs = [(n, b) for n, b in self.domain.subsumptions if n in self.roles and b in self.roles]
        if style == "identity" and pairs:
            narrower, broader = rng.choice(pairs)
            self.roles.remove(narrower)
            self.roles.remove(broader)
            self.identities.append(IdentityRule((Atom(narrower, ("X",)),), Atom(broader, ("X",))))
            body, enabling = (Atom(broader, ("X",)),), (Atom(narrower, (x,)),)
            elsewhere = (Atom(narrower, (other,)),)
        elif style == "binary" and self.relations and len(self.roles) > 1:
            relation, role = self.relations.pop(), self.fresh_role()
            body = (Atom(relation, ("Y", "X")), Atom(role, ("Y",)))
            enabling = (Atom(relation, (other, x)), Atom(role, (other,)))
            elsewhere = ()
        elif style == "pair" and len(self.roles) > 1:
            first, second = self.fresh_role(), self.fresh_role()
            body = (Atom(first, ("X",)), Atom(second, ("X",)))
            enabling = (Atom(first, (x,)), Atom(second, (x,)))
            elsewhere = (Atom(first, (other,)), Atom(second, (other,)))
        else:
            role = self.fresh_role()
            body, enabling = (Atom(role, ("X",)),), (Atom(role, (x,)),)
            elsewhere = (Atom(role, (other,)),)
        if applicable:
            present = list(enabling)
        elif len(enabling) > 1:
            missing = rng.choice(enabling)
            present = [a for a in enabling if a != missing]
        else:
            present = list(elsewhere) if rng.random() < 0.7 else []
        if rng.random() < 0.3:
            present += [a for a in elsewhere if a not in present]
        for atom in present:
            self.fact(atom)
        self.rules.append(_Rule(label, body, enabling))
        return len(self.rules) - 1

    def pro(self) -> str:
        return "permitted" if self.rng.random() < 0.7 else "obligated"

    def world(self) -> World:
        """Names the rules (numbers shuffled) and builds the world."""
        numbers = list(range(1, len(self.rules) + 1))
        self.rng.shuffle(numbers)
        for rule, number in zip(self.rules, numbers, strict=True):
            rule.name = f"{self.prefix}{number}"
        facts = list(self.facts)
        self.rng.shuffle(facts)
        ordered = sorted(self.rules, key=lambda rule: int(rule.name[len(self.prefix) :]))
        action = Atom(self.action, ("X",))
        return World.build(
            [
                *(Fact(atom) for atom in facts),
                *self.identities,
                *(Norm(rule.name, rule.body, rule.label, action) for rule in ordered),
                *(Priority(self.rules[a].name, self.rules[b].name) for a, b in self.edges),
                Query(Atom(self.action, (self.subject,))),
            ]
        )


class _Exhausted(Exception):
    """The draft's vocabulary ran out of fresh predicates."""


def _conflicting(first: str, second: str) -> bool:
    return (first, second) in INCOMPATIBLE or (second, first) in INCOMPATIBLE


# Root situations ----------------------------------------------------------------------------


def _partial_priority_conflict(draft: _Draft) -> None:
    rng = draft.rng
    cons = [draft.rule("forbidden", True) for _ in range(rng.randint(1, 2))]
    pros = [draft.rule(draft.pro(), True) for _ in range(3 - len(cons) + rng.randint(0, 1))]
    if rng.random() < 0.3:
        draft.rule(rng.choice(("forbidden", draft.pro())), False)
    pairs = [(c, p) for c in cons for p in pros]
    rng.shuffle(pairs)
    for con, pro in pairs[: rng.randint(1, len(pairs) - 1)]:
        draft.edges.append((pro, con) if rng.random() < 0.6 else (con, pro))


def _unresolved_conflict(draft: _Draft) -> None:
    rng = draft.rng
    cons = [draft.rule("forbidden", True) for _ in range(rng.randint(1, 2))]
    pros = [draft.rule(draft.pro(), True) for _ in range(rng.randint(1, 2))]
    if len(cons) + len(pros) > 2 and rng.random() < 0.5:
        con, pro = rng.choice(cons), rng.choice(pros)
        draft.edges.append((pro, con) if rng.random() < 0.5 else (con, pro))
    if rng.random() < 0.6:  # a rule that would settle it, but its precondition is missing
        if rng.random() < 0.5:
            reserve, beaten = draft.rule(draft.pro(), False), cons
        else:
            reserve, beaten = draft.rule("forbidden", False), pros
        draft.edges += [(reserve, rule) for rule in beaten]


def _multiple_compatible_overrides(draft: _Draft) -> None:
    rng = draft.rng
    label = draft.pro() if rng.random() < 0.7 else "forbidden"
    winners = [draft.rule(label, True) for _ in range(rng.randint(2, 3))]
    against = "forbidden" if label != "forbidden" else draft.pro()
    losers = [draft.rule(against, True) for _ in range(1 if rng.random() < 0.7 else 2)]
    draft.edges += [(w, loser) for w in winners for loser in losers]
    if rng.random() < 0.4:  # a rule that would override them all, its precondition missing
        spoiler = draft.rule(against, False)
        draft.edges += [(spoiler, w) for w in winners]
    if label == "obligated" and rng.random() < 0.3:
        draft.rule("permitted", True)


def _missing_precondition_distractor(draft: _Draft) -> None:
    rng = draft.rng
    con, pro = draft.rule("forbidden", True), draft.rule(draft.pro(), True)
    applicable = [con, pro]
    if rng.random() < 0.4:
        applicable.append(draft.rule(rng.choice(("forbidden", draft.pro())), True))
    if rng.random() < 0.7:
        draft.edges.append((pro, con) if rng.random() < 0.5 else (con, pro))
    for _ in range(rng.randint(1, 2)):
        label = rng.choice(("forbidden", draft.pro()))
        missing = draft.rule(label, False)
        beaten = [r for r in applicable if _conflicting(label, draft.rules[r].label)]
        if beaten and rng.random() < 0.6:
            draft.edges.append((missing, rng.choice(beaten)))


def _priority_chain(draft: _Draft) -> None:
    rng = draft.rng
    label = draft.pro() if rng.random() < 0.6 else "forbidden"
    against = "forbidden" if label != "forbidden" else draft.pro()
    winner, loser = draft.rule(label, True), draft.rule(against, True)
    links = [
        draft.rule(rng.choice(("forbidden", draft.pro())), False) for _ in range(rng.randint(2, 3))
    ]
    chain = [winner, *links, loser]
    draft.edges += list(zip(chain, chain[1:], strict=False))
    if rng.random() < 0.3:
        draft.edges.append((winner, draft.rule(against, True)))


def _distractor_conflict(draft: _Draft) -> None:
    rng = draft.rng
    cons = [draft.rule("forbidden", True) for _ in range(rng.randint(1, 2))]
    pros = [draft.rule(draft.pro(), True) for _ in range(rng.randint(1, 2))]
    for con in cons:
        for pro in pros:
            if rng.random() < 0.5:
                draft.edges.append((pro, con) if rng.random() < 0.6 else (con, pro))


def _chain_length(world: World) -> int:
    """The longest priority path, in edges."""
    below: dict[str, list[str]] = {}
    for priority in world.priorities:
        below.setdefault(priority.stronger, []).append(priority.weaker)
    memo: dict[str, int] = {}

    def longest(name: str) -> int:
        if name not in memo:
            memo[name] = max((1 + longest(w) for w in below.get(name, ())), default=0)
        return memo[name]

    return max((longest(name) for name in below), default=0)


def _distance(world: World, start: str, goal: str) -> int | None:
    """The fewest priority edges from `start` down to `goal` (None when there is no path)."""
    frontier, seen, steps = [start], {start}, 0
    while frontier:
        if goal in frontier:
            return steps
        steps += 1
        frontier = sorted({p.weaker for p in world.priorities if p.stronger in frontier} - seen)
        seen |= set(frontier)
    return None


def _conflict_pairs(world: World, verdict: Verdict) -> list[tuple[str, str]]:
    """Pairs of rules bearing on the query with incompatible labels (each pair once)."""
    rules = list(verdict.statuses)
    return [
        (a, b)
        for i, a in enumerate(rules)
        for b in rules[i + 1 :]
        if _conflicting(world.norm(a).label, world.norm(b).label)
    ]


def overriding_rules(world: World, verdict: Verdict) -> list[str]:
    """The justified rules of the answer's label that are stronger (closed transitively) than
    every rule bearing on the query with a conflicting label: each could be a support."""
    closure = priority_closure(world)
    against = [r for r in verdict.statuses if _conflicting(world.norm(r).label, verdict.answer)]
    return [
        rule
        for rule in verdict.decisive
        if against and all((rule, other) in closure for other in against)
    ]


def _root_ok(family_type: str, world: World, verdict: Verdict) -> bool:
    if family_type in ID_FAMILY_TYPES and _chain_length(world) > ID_CHAIN:
        return False
    pairs = _conflict_pairs(world, verdict)
    closure = priority_closure(world)
    ordered = [(a, b) for a, b in pairs if (a, b) in closure or (b, a) in closure]
    if family_type == "partial_priority_conflict":
        return bool(ordered) and len(ordered) < len(pairs)
    if family_type == "unresolved_conflict":
        return verdict.answer == "conflict_unresolved"
    if family_type == "multiple_compatible_overrides":
        return len(overriding_rules(world, verdict)) >= 2
    if family_type == "missing_precondition_distractor":
        idle = [n for n in world.norms if n.name not in verdict.statuses]
        return len(verdict.statuses) >= 2 and bool(idle) and bool(pairs)
    if family_type == "priority_chain":
        return any(
            (winner, loser) in closure and (_distance(world, winner, loser) or 0) >= 3
            for loser in verdict.defeated
            for winner in verdict.decisive
        )
    return bool(pairs)  # distractor_conflict


_ROOTS: dict[str, Callable[[_Draft], None]] = {
    "partial_priority_conflict": _partial_priority_conflict,
    "unresolved_conflict": _unresolved_conflict,
    "multiple_compatible_overrides": _multiple_compatible_overrides,
    "missing_precondition_distractor": _missing_precondition_distractor,
    "priority_chain": _priority_chain,
    "distractor_conflict": _distractor_conflict,
}

# Edits ---------------------------------------------------------------------------------------

#: Per family type, the weights of the support edits (drop a fact of the minimal support, drop
#: a fact a bearing rule rests on, add the missing facts of a rule) and of the priority edits
#: (add an edge, remove one, reverse one, make one rule prevail over all it conflicts with).
_SUPPORT_WEIGHTS = {
    "partial_priority_conflict": {"drop_support": 3, "drop_enabling": 2, "enable": 1},
    "unresolved_conflict": {"drop_support": 0, "drop_enabling": 2, "enable": 3},
    "multiple_compatible_overrides": {"drop_support": 4, "drop_enabling": 1, "enable": 2},
    "missing_precondition_distractor": {"drop_support": 2, "drop_enabling": 1, "enable": 4},
    "priority_chain": {"drop_support": 2, "drop_enabling": 2, "enable": 1},
    "distractor_conflict": {"drop_support": 2, "drop_enabling": 2, "enable": 1},
}
_PRIORITY_WEIGHTS = {
    "partial_priority_conflict": {"add": 2, "remove": 2, "reverse": 2, "prevail": 1},
    "unresolved_conflict": {"add": 2, "remove": 1, "reverse": 1, "prevail": 3},
    "multiple_compatible_overrides": {"add": 1, "remove": 3, "reverse": 2, "prevail": 0},
    "missing_precondition_distractor": {"add": 2, "remove": 2, "reverse": 2, "prevail": 1},
    "priority_chain": {"add": 1, "remove": 3, "reverse": 2, "prevail": 0},
    "distractor_conflict": {"add": 2, "remove": 2, "reverse": 2, "prevail": 1},
}


def _weighted(
    rng: random.Random, weights: dict[str, int], options: dict[str, list]
) -> tuple[str, object] | None:
    """A kind drawn by weight among those with options, and one of its options."""
    kinds = [kind for kind, found in options.items() if found and weights[kind]]
    if not kinds:
        return None
    kind = rng.choices(kinds, weights=[weights[kind] for kind in kinds])[0]
    return kind, rng.choice(options[kind])


def _with_facts(world: World, rng: random.Random, drop=(), add=()) -> World:
    facts = [fact for fact in world.facts if fact.atom not in drop]
    for atom in add:
        facts.insert(rng.randint(0, len(facts)), Fact(atom))
    return World.build([*facts, *world.identities, *world.norms, *world.priorities, world.query])


def _support_edit(
    family_type: str, draft: _Draft, world: World, verdict: Verdict, rng: random.Random
) -> World | None:
    present = {fact.atom for fact in world.facts}
    bearing = [rule for rule in draft.rules if rule.name in verdict.statuses]
    idle = [rule for rule in draft.rules if rule.name not in verdict.statuses]
    drops = sorted({a for rule in bearing for a in rule.enabling if a in present})
    missing = [tuple(a for a in rule.enabling if a not in present) for rule in idle]
    options = {
        "drop_support": [(a,) for a in verdict.support.facts],
        "drop_enabling": [(a,) for a in drops],
        "enable": [atoms for atoms in missing if atoms],
    }
    chosen = _weighted(rng, _SUPPORT_WEIGHTS[family_type], options)
    if chosen is None:
        return None
    kind, atoms = chosen
    if kind == "enable":
        return _with_facts(world, rng, add=atoms)
    return _with_facts(world, rng, drop=atoms)


def _priority_edit(
    family_type: str, world: World, verdict: Verdict, rng: random.Random
) -> World | None:
    closure = priority_closure(world)
    pairs = _conflict_pairs(world, verdict)
    edges = [(p.stronger, p.weaker) for p in world.priorities]
    bearing = list(verdict.statuses)
    unordered = [
        pair
        for a, b in pairs
        if (a, b) not in closure and (b, a) not in closure
        for pair in ((a, b), (b, a))
    ]
    prevail = []
    for rule in bearing:
        beaten = [b for a, b in (*pairs, *((b, a) for a, b in pairs)) if a == rule]
        new = tuple((rule, b) for b in beaten if (rule, b) not in closure)
        if new:
            prevail.append(new)
    options = {
        "add": [((a, b),) for a, b in unordered],
        "remove": list(edges),
        "reverse": list(edges),
        "prevail": prevail,
    }
    chosen = _weighted(rng, _PRIORITY_WEIGHTS[family_type], options)
    if chosen is None:
        return None
    kind, argument = chosen
    if kind in ("add", "prevail"):
        edges += list(argument)
    else:
        index = edges.index(argument)
        edges[index : index + 1] = [] if kind == "remove" else [argument[::-1]]
    priorities = [Priority(a, b) for a, b in edges]
    try:
        edited = World.build(
            [*world.facts, *world.identities, *world.norms, *priorities, world.query]
        )
    except InputError:  # a cycle
        return None
    if family_type in ID_FAMILY_TYPES and _chain_length(edited) > ID_CHAIN:
        return None
    return edited


def _distractor(family_type: str, draft: _Draft, world: World, rng: random.Random) -> World | None:
    """Facts about a person the world does not name (or about the queried person, with
    predicates the world does not use), sometimes a stranger with a role the query's rules
    use, and rules about another action: one rule, or for `distractor_conflict` a conflict of
    two or three rules, sometimes with a priority between two of them."""
    domain = draft.domain
    used = {fact.atom.predicate for fact in world.facts}
    used |= {a.predicate for rule in world.identities for a in (*rule.body, rule.head)}
    used |= {a.predicate for norm in world.norms for a in norm.body}
    roles = [role for role in sorted(domain.roles) if role not in used]
    actions = [
        a for a in sorted(domain.actions) if a not in {n.action.predicate for n in world.norms}
    ]
    named = {a for fact in world.facts for a in fact.atom.arguments} | {draft.subject}
    strangers = [p for p in domain.people if p not in named]
    conflict = family_type == "distractor_conflict"
    count = rng.randint(2, 3) if conflict else 1
    if len(roles) < count or not actions or not strangers:
        return None
    rng.shuffle(roles)
    person = rng.choice(strangers) if rng.random() < 0.6 else draft.subject
    action = rng.choice(actions)
    if conflict:
        labels = ["forbidden", draft.pro(), rng.choice(LABELS)][:count]
    else:
        labels = [rng.choice(LABELS)]
    facts = [Atom(role, (person,)) for role in roles[:count]]
    known = [predicate for predicate in sorted(used) if _unary(world, predicate)]
    if known and rng.random() < 0.5:  # a stranger with a predicate the query's rules use
        facts.append(Atom(rng.choice(known), (rng.choice(strangers),)))
    numbers = [int(norm.name[len(draft.prefix) :]) for norm in world.norms]
    norms = [
        Norm(
            f"{draft.prefix}{max(numbers) + 1 + i}",
            (Atom(role, ("X",)),),
            label,
            Atom(action, ("X",)),
        )
        for i, (role, label) in enumerate(zip(roles, labels, strict=False))
    ]
    priorities = list(world.priorities)
    if conflict and rng.random() < 0.5:
        names = [n.name for n in norms]
        stronger, weaker = rng.sample(names, 2)
        if _conflicting(norms[names.index(stronger)].label, norms[names.index(weaker)].label):
            priorities.append(Priority(stronger, weaker))
    edited = _with_facts(world, rng, add=facts)
    return World.build(
        [*edited.facts, *world.identities, *world.norms, *norms, *priorities, world.query]
    )


def _unary(world: World, predicate: str) -> bool:
    """Whether the predicate has one argument everywhere in the world."""
    atoms = [fact.atom for fact in world.facts]
    atoms += [a for rule in world.identities for a in (*rule.body, rule.head)]
    atoms += [a for norm in world.norms for a in norm.body]
    return all(len(a.arguments) == 1 for a in atoms if a.predicate == predicate)


def _changes(record: ChangeRecord) -> bool:
    """Whether a change record changes anything about the query."""
    return bool(
        record.answer_change
        or any(record.support_change.values())
        or record.status_change
        or any(record.attack_change.values())
    )


def _accepted(role: str, root: World, variant: World, record: ChangeRecord) -> bool:
    if record.relation != role or variant == root:
        return False
    return not _changes(record) if role in INVARIANT else _changes(record)


# Families -------------------------------------------------------------------------------------


def make_family(family_type: str, seed: int) -> Family:
    """The family of this type and seed (deterministic in both): a root drawn until it has
    its type's situation and each role an accepted variant."""
    if family_type not in FAMILY_TYPES:
        raise ValueError(f"unknown family type '{family_type}'; expected one of {FAMILY_TYPES}")
    identifier = family_id(family_type, seed)
    rng = stream("norm-family", family_type, seed)
    for _ in range(ROOT_DRAWS):
        draft = _Draft(rng)
        try:
            _ROOTS[family_type](draft)
            root = draft.world()
        except (_Exhausted, InputError):
            continue
        verdict = solve_world(root)
        if not _root_ok(family_type, root, verdict):
            continue
        found = _variants(family_type, draft, root, verdict, rng)
        if found is not None:
            variants, records = found
            return Family(
                identifier,
                family_type,
                split_of(identifier, family_type),
                root,
                variants,
                draft.domain.name,
                verdict.to_json(),
                records,
            )
    raise GenerationError(f"no {family_type} family for seed {seed} in {ROOT_DRAWS} draws")


def _variants(
    family_type: str, draft: _Draft, root: World, verdict: Verdict, rng: random.Random
) -> tuple[dict[str, World], dict[str, dict]] | None:
    edits: dict[str, Callable[[], World | None]] = {
        "surface_invariant": lambda: reorder(root, rng),
        "support_delta": lambda: _support_edit(family_type, draft, root, verdict, rng),
        "priority_delta": lambda: _priority_edit(family_type, root, verdict, rng),
        "distractor_invariant": lambda: _distractor(family_type, draft, root, rng),
    }
    variants: dict[str, World] = {}
    records: dict[str, dict] = {}
    for role in ROLES:
        for _ in range(EDIT_DRAWS):
            variant = edits[role]()
            if variant is None:
                continue
            solved = solve_world(variant)
            record = change_record(verdict, solved)
            if _accepted(role, root, variant, record):
                variants[role] = variant
                records[role] = {
                    "change_record": record.to_json(),
                    "variant_verdict": solved.to_json(),
                }
                break
        else:
            return None
    return variants, records
