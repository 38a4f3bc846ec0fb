"""Random small normative worlds, and their verdicts and change records worked out by brute
force from the definitions (docs/norms.md), independently of clingo and of the compiler:
naive forward chaining, explicit argument trees, a grounded labelling by iteration, and
every subset of the decisive rules for the minimal support."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass

from argc.dsl.norms.world import (
    INCOMPATIBLE,
    Atom,
    Fact,
    IdentityRule,
    Norm,
    Priority,
    Query,
    World,
)

CONSTANTS = ("a", "b", "c")
UNARY = ("p", "q", "s")
ACTIONS = ("act", "go")


def random_world(seed: int) -> World:
    """A world over three constants: unary and binary facts, identity rules (possibly
    cyclic), up to six normative rules with one or two body atoms on two actions, and
    priorities along a random order (acyclic); the query mostly about a constant the unary
    facts name."""
    rng = random.Random(seed)
    facts = {Atom(rng.choice(UNARY), (rng.choice(CONSTANTS),)) for _ in range(rng.randint(1, 6))}
    facts |= {
        Atom("r", (rng.choice(CONSTANTS), rng.choice(CONSTANTS))) for _ in range(rng.randint(0, 3))
    }
    identities = []
    for _ in range(rng.randint(0, 3)):
        first, second = rng.sample(UNARY, 2)
        if rng.random() < 0.5:
            identities.append(IdentityRule((Atom(first, ("X",)),), Atom(second, ("X",))))
        else:
            body = (Atom("r", ("X", "Y")), Atom(first, ("Y",)))
            identities.append(IdentityRule(body, Atom(second, ("X",))))
    norms = []
    for number in range(1, rng.randint(2, 6) + 1):
        body = [Atom(rng.choice(UNARY), ("X",))]
        if rng.random() < 0.3:
            body.append(Atom("r", ("X", rng.choice(["Y", rng.choice(CONSTANTS)]))))
        label = rng.choice(("permitted", "forbidden", "forbidden", "obligated"))
        action = Atom(rng.choice(ACTIONS), ("X",))
        norms.append(Norm(f"n{number}", tuple(body), label, action))
    priorities = _random_priorities(rng, norms)
    named = sorted({atom.arguments[0] for atom in facts if len(atom.arguments) == 1})
    subject = rng.choice(named) if rng.random() < 0.8 else rng.choice(CONSTANTS)
    query = Query(Atom(rng.choice(ACTIONS), (subject,)))
    return World.build(
        [
            *(Fact(atom) for atom in sorted(facts)),
            *identities,
            *norms,
            *sorted(priorities, key=str),
            query,
        ]
    )


def _condition(rng: random.Random, terms: tuple[str, ...]) -> Atom:
    """A unary or binary atom over `terms`, which repeat often."""
    if rng.random() < 0.5:
        return Atom(rng.choice(UNARY), (rng.choice(terms),))
    return Atom("r", (rng.choice(terms), rng.choice(terms)))


def _shared_body(rng: random.Random, subject: str) -> tuple[Atom, ...]:
    """One or two conditions over a few variables and a constant, naming `subject`; a
    condition repeated literally now and then, and now and then a symmetric pair
    `r(Y, subject), r(Z, subject)`, so that ground instances repeat conditions (literally,
    or once two variables take one value) and two bindings give one ground rule."""
    terms = (subject, subject, "Y", "Z", rng.choice(CONSTANTS))
    body = [_condition(rng, terms) for _ in range(rng.randint(1, 2))]
    if all(subject not in atom.arguments for atom in body):
        body.append(Atom(rng.choice(UNARY), (subject,)))
    if rng.random() < 0.3:
        body.insert(rng.randrange(len(body) + 1), rng.choice(body))
    if rng.random() < 0.25:  # two of subject's relations, the same one where Y = Z
        body[rng.randrange(len(body)) :] += [Atom("r", ("Y", subject)), Atom("r", ("Z", subject))]
    return tuple(body)


def shared_world(seed: int) -> World:
    """A world like `random_world`'s whose identity and normative rules share variables
    between conditions (`r(Y, X), r(Z, X)`), repeat a condition (`p(X), p(X)`) or name a
    constant a variable can take (`p(X), p(a)`), on the queried action and on another: ground
    instances with repeated conditions, and bindings that give one ground rule twice."""
    rng = random.Random(f"shared-{seed}")
    facts = {Atom(rng.choice(UNARY), (rng.choice(CONSTANTS),)) for _ in range(rng.randint(2, 6))}
    facts |= {
        Atom("r", (rng.choice(CONSTANTS), rng.choice(CONSTANTS))) for _ in range(rng.randint(2, 6))
    }
    identities = [
        IdentityRule(_shared_body(rng, "X"), Atom(rng.choice(UNARY), ("X",)))
        for _ in range(rng.randint(0, 2))
    ]
    norms = []
    for number in range(1, rng.randint(2, 5) + 1):
        label = rng.choice(("permitted", "forbidden", "forbidden", "obligated"))
        action = Atom(rng.choice(ACTIONS), ("X",))
        norms.append(Norm(f"n{number}", _shared_body(rng, "X"), label, action))
    priorities = _random_priorities(rng, norms)
    named = sorted({atom.arguments[0] for atom in facts if len(atom.arguments) == 1})
    query = Query(Atom(rng.choice(ACTIONS), (rng.choice(named),)))
    return World.build(
        [
            *(Fact(atom) for atom in sorted(facts)),
            *identities,
            *norms,
            *sorted(priorities, key=str),
            query,
        ]
    )


def repeated_instances(world: World) -> tuple[int, int]:
    """How many ground instances of the world's rules whose bodies hold repeat a condition,
    and how many are a ground rule (the same conclusion and set of conditions) that another
    binding of the same rule gives too."""
    found = holding(world)
    rules = [(f"identity{n}", rule.body, rule.head) for n, rule in enumerate(world.identities)]
    rules += [(norm.name, norm.body, norm.action) for norm in world.norms]
    repeated, twice, seen = 0, 0, set()
    for name, body, head in rules:
        for binding in _bindings(world, _variables(body)):
            ground = [atom.substitute(binding) for atom in body]
            if set(ground) <= found:
                repeated += len(set(ground)) < len(ground)
                rule = (name, head.substitute(binding), frozenset(ground))
                twice += rule in seen
                seen.add(rule)
    return repeated, twice


def constants(world: World) -> list[str]:
    """The constants a world names anywhere."""
    atoms = [fact.atom for fact in world.facts]
    atoms += [atom for rule in world.identities for atom in (*rule.body, rule.head)]
    atoms += [atom for norm in world.norms for atom in (*norm.body, norm.action)]
    atoms += [world.query.action] if world.query is not None else []
    return sorted({term for atom in atoms for term in atom.arguments if not term[:1].isupper()})


def _bindings(world: World, variables: list[str]) -> Iterator[dict[str, str]]:
    for values in itertools.product(constants(world), repeat=len(variables)):
        yield dict(zip(variables, values, strict=True))


def _variables(atoms) -> list[str]:
    return list(dict.fromkeys(v for atom in atoms for v in atom.variables))


def identity_instances(world: World) -> list[tuple[tuple[Atom, ...], Atom]]:
    """Every ground instance of the identity rules (over the world's constants)."""
    found = []
    for rule in world.identities:
        for binding in _bindings(world, _variables(rule.body)):
            found.append(
                (tuple(a.substitute(binding) for a in rule.body), rule.head.substitute(binding))
            )
    return found


def holding(world: World) -> set[Atom]:
    """Every atom that holds: the facts and what the identity rules derive, by naive
    iteration to a fixed point."""
    found = {fact.atom for fact in world.facts}
    instances = identity_instances(world)
    while True:
        more = {head for body, head in instances if set(body) <= found} - found
        if not more:
            return found
        found |= more


def fact_sets(world: World, atom: Atom, banned: frozenset[Atom] = frozenset()) -> set[frozenset]:
    """The fact sets of the arguments for `atom` (no conclusion repeats on a branch)."""
    if atom in banned:
        return set()
    found: set[frozenset] = set()
    if Fact(atom) in world.facts:
        found.add(frozenset([atom]))
    for body, head in identity_instances(world):
        if head != atom:
            continue
        options = [fact_sets(world, b, banned | {atom}) for b in body]
        for combination in itertools.product(*options):
            found.add(frozenset().union(*combination))
    return found


@dataclass(frozen=True)
class BruteArgument:
    rule: str
    label: str
    facts: frozenset


def closure(world: World) -> set[tuple[str, str]]:
    pairs = {(p.stronger, p.weaker) for p in world.priorities}
    while True:
        more = {(a, d) for a, b in pairs for c, d in pairs if b == c} - pairs
        if not more:
            return pairs
        pairs |= more


def arguments(world: World) -> list[BruteArgument]:
    """The arguments for labels of the queried action."""
    found = set()
    for norm in world.norms:
        for binding in _bindings(world, _variables(norm.body)):
            if norm.action.substitute(binding) != world.query.action:
                continue
            options = [fact_sets(world, atom.substitute(binding)) for atom in norm.body]
            for combination in itertools.product(*options):
                found.add(BruteArgument(norm.name, norm.label, frozenset().union(*combination)))
    return sorted(found, key=lambda a: (a.rule, a.label, sorted(map(str, a.facts))))


def _incompatible(first: str, second: str) -> bool:
    return (first, second) in INCOMPATIBLE or (second, first) in INCOMPATIBLE


def labelling(args: list[BruteArgument], stronger: set[tuple[str, str]]) -> dict[int, str]:
    """Grounded labels (in/out/undecided) of the arguments, by iteration."""

    def defeats(a: BruteArgument, b: BruteArgument) -> bool:
        return _incompatible(a.label, b.label) and (b.rule, a.rule) not in stronger

    label = dict.fromkeys(range(len(args)), "undecided")
    changed = True
    while changed:
        changed = False
        for i, b in enumerate(args):
            if label[i] != "undecided":
                continue
            defeaters = [j for j, a in enumerate(args) if defeats(a, b)]
            if all(label[j] == "out" for j in defeaters):
                label[i], changed = "in", True
            elif any(label[j] == "in" for j in defeaters):
                label[i], changed = "out", True
    return label


@dataclass(frozen=True)
class BruteVerdict:
    answer: str
    decisive: tuple[str, ...]
    defeated: tuple[str, ...]
    statuses: dict
    attacks: tuple
    defeats: tuple
    support_rules: tuple[str, ...]
    support_facts: tuple[str, ...]
    args: tuple[BruteArgument, ...]


def verdict(world: World) -> BruteVerdict:
    args = arguments(world)
    stronger = closure(world)
    label = labelling(args, stronger)
    status_of = {"in": "justified", "undecided": "undecided", "out": "overruled"}
    statuses: dict[str, str] = {}
    justified: dict[str, set[str]] = {}
    for i, argument in enumerate(args):
        status = status_of[label[i]]
        order = ("justified", "undecided", "overruled")
        if argument.rule not in statuses or order.index(status) < order.index(
            statuses[argument.rule]
        ):
            statuses[argument.rule] = status
        if status == "justified":
            justified.setdefault(argument.label, set()).add(argument.rule)
    answer = next(
        (lab for lab in ("forbidden", "obligated", "permitted") if lab in justified),
        "conflict_unresolved" if args else "no_applicable_norm",
    )
    decisive = tuple(sorted(justified.get(answer, ())))
    attacks = {(a.rule, b.rule) for a in args for b in args if _incompatible(a.label, b.label)}
    defeats = {(a, b) for a, b in attacks if (b, a) not in stronger}
    rules, facts = _support(args, label, stronger, answer, justified) if decisive else ((), ())
    return BruteVerdict(
        answer,
        decisive,
        tuple(sorted(r for r, s in statuses.items() if s == "overruled")),
        dict(sorted(statuses.items())),
        tuple(sorted(attacks)),
        tuple(sorted(defeats)),
        rules,
        facts,
        tuple(args),
    )


def _support(args, label, stronger, answer, justified) -> tuple[tuple, tuple]:
    """Every subset of the justified rules on the answer's side, smallest first."""
    side = {
        lab for lab in ("permitted", "forbidden", "obligated") if not _incompatible(lab, answer)
    }
    candidates = sorted({rule for lab in side for rule in justified.get(lab, ())})
    rests_on = {
        rule: frozenset().union(
            *(
                a.facts
                for i, a in enumerate(args)
                if a.rule == rule and a.label in side and label[i] == "in"
            )
        )
        for rule in candidates
    }
    for size in range(1, len(candidates) + 1):
        found = []
        for chosen in itertools.combinations(candidates, size):
            kept = [a for a in args if a.label not in side or a.rule in chosen]
            kept_label = labelling(kept, stronger)
            sustained = any(a.label == answer and kept_label[i] == "in" for i, a in enumerate(kept))
            beaten = all(kept_label[i] == "out" for i, a in enumerate(kept) if a.label not in side)
            if sustained and beaten:
                facts = frozenset().union(*(rests_on[rule] for rule in chosen))
                found.append((len(facts), tuple(sorted(chosen)), facts))
        if found:
            _, rules, facts = min(found, key=lambda item: (item[0], item[1]))
            return rules, tuple(sorted(str(f) for f in facts))
    raise AssertionError("the justified rules on the answer's side sustain it")


def change_record(root: World, variant: World) -> dict:
    """The change record from the brute-force verdicts of two worlds."""
    before, after = verdict(root), verdict(variant)

    def content(world: World):
        return (
            frozenset(world.facts),
            frozenset(world.identities),
            frozenset(world.norms),
            frozenset(world.priorities),
            world.query,
        )

    def relevant_priorities(world: World, v: BruteVerdict):
        return {(s, w) for s, w in closure(world) if s in v.statuses and w in v.statuses}

    if content(root) == content(variant):
        relation = "surface_invariant"
    elif set(before.args) != set(after.args):
        relation = "support_delta"
    elif relevant_priorities(root, before) != relevant_priorities(variant, after):
        relation = "priority_delta"
    else:
        relation = "distractor_invariant"
    support_before = {*before.support_rules, *before.support_facts}
    support_after = {*after.support_rules, *after.support_facts}
    statuses = {}
    for rule in sorted({*before.statuses, *after.statuses}):
        old = before.statuses.get(rule, "inapplicable")
        new = after.statuses.get(rule, "inapplicable")
        if old != new:
            statuses[rule] = {"from": old, "to": new}
    return {
        "relation": relation,
        "answer_change": None
        if before.answer == after.answer
        else {"from": before.answer, "to": after.answer},
        "support_change": {
            "added": sorted(support_after - support_before),
            "removed": sorted(support_before - support_after),
        },
        "status_change": statuses,
        "attack_change": {
            "added": sorted(list(p) for p in set(after.attacks) - set(before.attacks)),
            "removed": sorted(list(p) for p in set(before.attacks) - set(after.attacks)),
        },
    }


def many_norms_world(count: int) -> World:
    """`count` normative rules with distinct names on one action, permitting and forbidding
    in turn over ten conditions of one person, with a priority of every seventh rule over
    the next: about count²/2 rule-level attacks."""
    conditions = [Atom(f"c{number}", ("alice",)) for number in range(10)]
    norms = [
        Norm(
            f"r{number}",
            (Atom(f"c{number % 10}", ("X",)),),
            "forbidden" if number % 2 else "permitted",
            Atom("enter_archive", ("X",)),
        )
        for number in range(count)
    ]
    priorities = [Priority(f"r{n}", f"r{n + 1}") for n in range(0, count - 1, 7)]
    query = Query(Atom("enter_archive", ("alice",)))
    return World.build([*map(Fact, conditions), *norms, *priorities, query])


def _random_priorities(rng: random.Random, norms: list[Norm]) -> set[Priority]:
    """Each pair of norms, in a random order of the norms, ranked with probability 0.35."""
    order = [norm.name for norm in norms]
    rng.shuffle(order)
    return {
        Priority(order[i], order[j])
        for i, j in itertools.combinations(range(len(order)), 2)
        if rng.random() < 0.35
    }
