"""Batched solving (`solve_many`): the same Solutions as `solve`, limits per theory, a theory
that explodes failing alone, and the parts of a Solution read lazily (and pickled whole)."""

from __future__ import annotations

import pickle
import random
import time
from dataclasses import replace
from itertools import permutations

import pytest
from margins import GRACE
from random_theories import random_theory
from test_limits import rebut_storm, wide_theory

from argc.compiler import LimitExceeded, Limits, solve, solve_many
from argc.compiler.batch import (
    BatchSession,
    needed_predicates,
    shared_facts,
    tagged_encoding,
    tagged_facts,
    varying_predicates,
)
from argc.compiler.control import Budget
from argc.compiler.encodings import program_encodings
from argc.compiler.facts import PREFERENCE_INPUTS, theory_facts
from argc.compiler.solution import SOURCED
from argc.compiler.solve import GROUNDED_READS, _Reader, _solution, _solve
from argc.dsl.ir import (
    ORDERINGS,
    Directive,
    Literal,
    Ordering,
    PremisePreference,
    RulePreference,
    Theory,
)
from argc.dsl.parser import parse_theory

PARTS = (*SOURCED, "more_extensions")


def _same(left, right, context: str = "") -> None:
    for part in PARTS:
        assert getattr(left, part) == getattr(right, part), f"{part} {context}"


@pytest.mark.parametrize("batch_size", [1, 3, 32])
def test_batches_give_the_solutions_of_single_solves(batch_size):
    theories = [random_theory(seed, scale=2 if seed % 5 == 4 else 1) for seed in range(40)]
    for index, ordering in enumerate(ORDERINGS):  # some theories choose their own ordering
        theories[index] = replace(theories[index], ordering=ordering)
    found = solve_many(theories, batch_size=batch_size)
    for seed, (theory, solution) in enumerate(zip(theories, found, strict=True)):
        _same(solution, solve(theory), f"seed {seed}")
        assert solution.ordering == (theory.ordering or Ordering())


def test_an_ordering_given_to_every_theory_overrides_their_headers():
    ordering = Ordering("weakest-link", "democratic")
    theories = [replace(random_theory(seed), ordering=ORDERINGS[seed % 4]) for seed in range(8)]
    for theory, solution in zip(theories, solve_many(theories, ordering=ordering), strict=True):
        assert solution.ordering == ordering
        _same(solution, solve(theory, ordering=ordering))


@pytest.mark.parametrize("semantics", ["preferred", "stable", "complete"])
def test_other_semantics_are_solved_one_at_a_time_with_the_same_results(semantics):
    theories = [random_theory(seed) for seed in range(6)]
    for theory, solution in zip(theories, solve_many(theories, semantics=semantics), strict=True):
        _same(solution, solve(theory, semantics=semantics))


def test_each_theory_is_counted_against_its_own_limits():
    """The batch numbers and counts every theory's arguments and instantiations separately,
    exactly as a Session of its own does."""
    theories = [random_theory(seed, scale=2) for seed in range(12)]
    session = BatchSession(Limits(), len(theories))
    session.load(program_encodings(Ordering(), "grounded"))
    facts = "".join(tagged_facts(theory_facts(t), k) for k, t in enumerate(theories))
    session.ground([("base", facts)])
    for theory, budget in zip(theories, session.budget.budgets, strict=True):
        alone: Budget = _solve(theory, None, None, None)[0].budget
        assert budget.structures == alone.structures
        assert budget.sub_arguments == alone.sub_arguments
        assert budget.instantiations == alone.instantiations
        assert budget.attacks == alone.attacks


def test_a_theory_past_its_limits_fails_alone():
    small = [random_theory(seed) for seed in range(5)]
    storm, wide = parse_theory(rebut_storm(10)), parse_theory(wide_theory())
    limits = Limits(attacks=50_000, instantiations=10_000)
    theories = [small[0], storm, small[1], small[2], wide, small[3], small[4]]
    started = time.monotonic()
    found = solve_many(theories, limits=limits)
    assert time.monotonic() - started < GRACE
    assert isinstance(found[1], LimitExceeded) and "50,000 attacks" in str(found[1])
    assert isinstance(found[4], LimitExceeded) and "10,000 partial rule" in str(found[4])
    for index in (0, 2, 3, 5, 6):
        _same(found[index], solve(theories[index], limits=limits), f"theory {index}")


def test_a_batch_out_of_time_solves_each_theory_alone():
    """The wide theory runs the whole batch out of time: the others are solved again alone
    (each within the limit of its own), and it fails alone."""
    small = [random_theory(seed) for seed in range(3)]
    theories = [small[0], parse_theory(wide_theory()), small[1], small[2]]
    limits = Limits(seconds=1, instantiations=10**9)
    started = time.monotonic()
    found = solve_many(theories, limits=limits)
    assert time.monotonic() - started < 2 + GRACE  # the batch, then the wide theory alone
    assert isinstance(found[1], LimitExceeded) and "time limit of 1 s" in str(found[1])
    for index in (0, 2, 3):
        _same(found[index], solve(theories[index]), f"theory {index}")


def test_the_batch_size_must_be_positive():
    with pytest.raises(ValueError, match="batch size"):
        solve_many([random_theory(0)], batch_size=0)


def test_a_solution_pickles_whole_after_its_model_is_gone():
    solution = solve_many([random_theory(3), random_theory(4)])[0]
    copy = pickle.loads(pickle.dumps(solution))
    _same(copy, solve(random_theory(3)))
    assert copy.theory == solution.theory


def test_parts_are_read_only_when_asked():
    solution = solve(random_theory(7))
    assert "arguments" not in vars(solution)
    assert solution.statuses
    assert "arguments" not in vars(solution)  # statuses need no argument names
    assert solution.grounded <= set(solution.arguments)


def test_every_atom_of_the_encodings_carries_the_theory_or_its_base():
    rendered = "\n".join(str(statement) for statement in tagged_encoding("arguments"))
    assert "built(ArgcBase,app(R,T),@argument(ArgcBase,app(R,T),H,N,T))" in rendered
    rendered = "\n".join(str(statement) for statement in tagged_encoding("defeat", _VARYING))
    assert (
        "defeats_on(ArgcTheory,A,B) :- attacks_on(ArgcBase,A,B,undercut);"
        " base_of(ArgcTheory,ArgcBase)." in rendered
    )
    assert tagged_facts('rule("r1", pos("a")).\nquery(neg("b")).\n', 4).splitlines() == [
        "theory_id(4).",
        "base_id(4).",
        "base_of(4,4).",
        'rule(4,"r1", pos("a")).',
        'query(4,neg("b")).',
    ]


def test_a_batch_grounds_only_the_rules_its_solutions_read():
    """A batch of grounded Solutions leaves out the rules that nothing its Solutions read
    depends on (the claims and overruled/1, which statuses.lp defines for queries), and
    refuses to read them."""
    for ordering in ORDERINGS:
        needed = needed_predicates(program_encodings(ordering, "grounded"), GROUNDED_READS)
        assert needed >= GROUNDED_READS
        assert {("conc", 2), ("inside", 2), ("weaker", 2), ("opposes", 2)} <= needed
        assert not {("claim", 1), ("named", 1), ("overruled", 1), ("symmetric", 2)} & needed
    theories = [random_theory(seed) for seed in range(3)]
    session = BatchSession(Limits(), len(theories))
    session.load(program_encodings(Ordering(), "grounded"), PREFERENCE_INPUTS, GROUNDED_READS)
    session.ground([("base", session.facts([theory_facts(t) for t in theories]))])
    assert not session.atoms("overruled", 2)
    with pytest.raises(ValueError, match="overruled/1"):
        session.view(0).rows("overruled", 1)
    for k, theory in enumerate(theories):
        reader = _Reader(session.view(k), theory)
        _same(_solution(reader, theory, Ordering(), "grounded", None), solve(theory))


# Theories that differ only in their preferences ---------------------------------------------

_VARYING = varying_predicates(
    program_encodings(Ordering(), "grounded"), frozenset(PREFERENCE_INPUTS)
)


def preference_variants(theory: Theory, count: int, seed: int) -> list[Theory]:
    """`count` theories with the knowledge and rules of `theory` and random preferences over
    its defeasible rules and ordinary premises (the first with none)."""
    rng = random.Random(seed)
    bare = replace(theory, rule_preferences=(), premise_preferences=())
    rules = [rule.name for rule in bare.defeasible_rules]
    premises = list(bare.premises)
    variants = [bare]
    while len(variants) < count:
        preferences: list[Directive] = []
        for names, kind in ((rules, RulePreference), (premises, PremisePreference)):
            if len(names) > 1:
                preferences += [kind(*rng.sample(names, 2)) for _ in range(rng.randint(0, 3))]
        variants.append(bare.apply(list(dict.fromkeys(preferences))))
    return variants


def test_arguments_and_attacks_do_not_vary_with_preferences():
    """What a batch grounds once per base: everything up to the attacks and the sets that
    comparisons read; what it grounds per theory: comparisons, defeats, labels, statuses."""
    for shared in ("arg", 1), ("conc", 2), ("attacks_on", 3), ("inside", 2), ("member", 2):
        assert shared not in _VARYING
    for varying in ("below", 2), ("weaker", 2), ("defeats_on", 2), ("grounded_in", 1):
        assert varying in _VARYING
    assert ("claim", 1) in _VARYING  # premise preferences name literals (statuses.lp)


def test_preference_variants_share_a_base_and_keep_their_own_solutions():
    bases = [random_theory(seed, scale=2 if seed % 3 == 2 else 1) for seed in range(12)]
    families = [preference_variants(theory, 4, seed) for seed, theory in enumerate(bases)]
    theories = [family[k] for k in range(4) for family in families]  # variants apart
    for ordering in ORDERINGS:
        found = solve_many(theories, ordering=ordering)
        for index, (theory, solution) in enumerate(zip(theories, found, strict=True)):
            _same(solution, solve(theory, ordering=ordering), f"theory {index}, {ordering}")


def test_a_batch_builds_the_arguments_of_preference_variants_once():
    first, second = preference_variants(random_theory(3, scale=2), 3, 0), [random_theory(5)]
    theories = [first[0], second[0], first[1], first[2]]
    session = BatchSession(Limits(), len(theories))
    session.load(program_encodings(Ordering(), "grounded"), varying=PREFERENCE_INPUTS)
    session.ground([("base", session.facts([theory_facts(t) for t in theories]))])
    assert session.bases == [0, 1, 0, 0]
    budgets = session.budget.budgets
    assert budgets[0].structures == _solve(first[0], None, None, None)[0].budget.structures
    assert budgets[1].structures == _solve(second[0], None, None, None)[0].budget.structures
    assert budgets[2].structures == budgets[3].structures == []  # numbered by their base
    for k, theory in enumerate(theories):
        reader = _Reader(session.view(k), theory)
        _same(_solution(reader, theory, Ordering(), "grounded", None), solve(theory))


def test_shared_facts_write_a_base_once():
    facts = ['premise(pos("a")).\nrule_pref("r", "s").\n', 'premise(pos("a")).\n']
    text, bases = shared_facts(facts, PREFERENCE_INPUTS)
    assert bases == [0, 0]
    assert text.splitlines() == [
        "theory_id(0).",
        "base_of(0,0).",
        "base_id(0).",
        'premise(0,pos("a")).',
        'rule_pref(0,"r", "s").',
        "theory_id(1).",
        "base_of(1,0).",
    ]


def test_variants_past_their_limits_fail_alone():
    storm = parse_theory(rebut_storm(10) + "[premise: q1]\n[premise: q2]\n")
    variants = [
        storm,
        *(storm.apply([PremisePreference(*pair)]) for pair in permutations(storm.premises[-2:])),
    ]
    small = preference_variants(random_theory(1), 3, 1)
    theories = [small[0], variants[0], small[1], variants[1], variants[2], small[2]]
    limits = Limits(attacks=50_000)
    found = solve_many(theories, limits=limits)
    for index in (1, 3, 4):
        assert isinstance(found[index], LimitExceeded) and "50,000 attacks" in str(found[index])
    for index in (0, 2, 5):
        _same(found[index], solve(theories[index], limits=limits), f"theory {index}")


def test_literals_only_a_premise_preference_names_are_claims_in_a_batch():
    """The parser allows premise preferences over premises only; a theory built directly
    may name other literals, which are then claims (overruled: nothing argues for them)."""
    theory = random_theory(2)
    odd = replace(theory, premise_preferences=(PremisePreference(Literal("zz"), Literal("yy")),))
    found = solve_many([theory, odd, theory])
    _same(found[1], solve(odd))
    assert found[1].status(Literal("zz")) == "overruled"
    _same(found[0], solve(theory))
