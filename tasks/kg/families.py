"""The four KG task families over generated worlds (Table 8 of the depth-complexity paper).

- **deductive**: who possesses or owns the target object, or whether it is broken, after all
  events (`final_*`) or after its k-th event, k < D (`kth_*`); the forward trace.
- **abductive**: one element is hidden from the story, an event of the target's chain
  (`mask_one_event`, 3 requests in 4 at D >= 2) or its initial declaration
  (`mask_one_initial_fact`); the answer is the hidden element, and every element consistent
  with the visible story is accepted (`argc.compiler.kg.abduce`, in ASP). The form is the
  request's (`hides_event`), drawn before any graph; a graph where no element of that form
  leaves the target's states determined (every accepted element, wherever it fits, giving
  the target the states the hidden one does) is replaced by the next, so the mix is the
  drawn one at every depth and the gold backward trace is the only one the story allows.
  The last event of the chain is never hidden: nothing after it would show the gap (the
  paper appends a repair there; argc draws another graph instead, so D stays exact).
- **inductive**: a composite rule r is planted along its path on 2 or 3 chains (the support,
  part of the story); the question restates their conclusions with 1 to 3 other kinship
  facts as noise, and a chain of new persons along the same path as the query; the answer is
  r. Each chain's start holds r, and no other relation, to its end.
- **analogy**: two chains along r's path are planted; "A is to B as C is to ?" asks for the
  end D of C's chain, which must be the one answer (`analogy_answer`): C reaches D, and no
  one else, along every relation A holds to B; C is not A or B, D none of A, B, C.

A chain is planted on the world's persons whose genders fit, each only where its fact keeps
the family possible (`argc.dsl.kg.genealogy`), and on a new person of the split where none
does; after PLANTINGS draws that miss the conditions above, on new persons alone (on whom
they always hold). Rules are drawn by the frequency groups of Table 7 with each split's
policy (`rule_groups`). Every instance is solved with clingo: the deductive and abductive
gold traces read the model's timeline, the planted chains and the query are checked against
its derived relations (first against the reference simulator's, which rule out most draws
before they are solved); the dynamic families solve the target's timeline alone
(`solve_timelines`: its states follow from its own events). A family's builder is a
generator that yields the worlds, timelines and abduction problems it needs solved, so that
`generate_instances` draws many instances side by side and solves what they ask for in
batches (`solve_kg_many`, `solve_timelines`, `abduce_many`); each instance is the one
`generate_instance` draws alone. Everything is deterministic in (family, depth, complexity,
seed, split).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Generator, Iterable, Set
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from argc.compiler import MachineLimitExceeded
from argc.compiler.kg.abduce import Problem, abduce_many
from argc.compiler.kg.solve import BATCH_SIZE, solve_kg_many, solve_timelines
from argc.dsl.kg import genealogy, simulate
from argc.dsl.kg.world import (
    RELATION_GENDER,
    STANDARD,
    Declaration,
    Event,
    KgWorld,
    KinshipFact,
    Person,
)
from argc.tasks.framework import Instance, generation_stopped
from argc.tasks.kg.generator import KgGraph, generate_graph
from argc.tasks.kg.names import gender, object_words, person_pool, person_words
from argc.tasks.kg.rendering import render
from argc.tasks.kg.solutions import Analogy, Induction, Solution, solution_text
from argc.tasks.kg.traces import (
    SLOTS,
    abduction,
    action,
    chain_times,
    deduction,
    kinship_chain,
    rule_words,
)
from argc.tasks.norms.families import stream

FAMILIES = ("deductive", "abductive", "inductive", "analogy")
#: The question forms of each family (Table 8).
FORMS: dict[str, tuple[str, ...]] = {
    "deductive": tuple(f"{mode}_{slot}" for mode in ("final", "kth") for slot in SLOTS),
    "abductive": ("mask_one_event", "mask_one_initial_fact"),
    "inductive": ("rule_composition",),
    "analogy": ("analogy",),
}
#: The share of abductive requests (D >= 2) that hide an event rather than the target's
#: initial declaration (A.2.8).
MASK_EVENT = 0.75
#: 2**64 / golden ratio, odd: seed s * GOLDEN mod 2**64 spreads consecutive seeds evenly.
GOLDEN = 0x9E3779B97F4A7C15
#: Table 7: the composite rules by frequency group.
RULE_GROUPS: dict[str, tuple[str, ...]] = {
    "A": ("grandmother", "grandfather", "great_grandfather", "great_grandmother"),
    "B": ("aunt", "uncle", "cousin", "grand_nephew"),
    "C": ("mother_in_law", "brother_in_law", "grand_niece", "great_uncle"),
    "D": ("grandson", "granddaughter", "great_grandson", "great_granddaughter"),
    "E": ("nephew", "niece", "great_aunt"),
    "F": ("son_in_law", "daughter_in_law", "sister_in_law", "father_in_law"),
}
#: Table 7's long-tailed group weights, used for pretraining.
PRETRAIN_WEIGHTS = {"A": 0.50, "B": 0.30, "C": 0.15, "D": 0.04, "E": 0.01, "F": 0.0}
#: The groups each static family draws from: inductive A-E (F held out for evaluation),
#: analogy A-C.
FAMILY_GROUPS = {"inductive": "ABCDE", "analogy": "ABC"}
#: How many times an instance is drawn from a fresh graph before giving up.
ATTEMPTS = 40
QUESTIONS = {
    "final_possessor": "After all events, who possesses {o}?",
    "final_owner": "After all events, who owns {o}?",
    "final_integrity": "Is {o} broken or intact after all events?",
    "kth_possessor": "After the {k} operation involving {o}, who possesses {o}?",
    "kth_owner": "After the {k} operation involving {o}, who owns {o}?",
    "kth_integrity": "After the {k} operation involving {o}, is {o} broken or intact?",
    "abductive": (
        "Some information is missing from the story. Please infer the missing event or"
        " information involving {o}."
    ),
}
#: The four phrasings of the static questions.
INDUCTIVE_QUESTIONS = (
    "What is the relationship between {a} and {b}?",
    "What is {a} to {b}?",
    "How is {a} related to {b}?",
    "Which relation does {a} hold to {b}?",
)
ANALOGY_QUESTIONS = (
    "{a} is to {b} as {c} is to ?",
    "As {a} is to {b}, so {c} is to whom?",
    "{a} relates to {b} as {c} relates to whom?",
    "Complete the analogy: {a} : {b} :: {c} : ?",
)
#: Sentences stating a relation (basic or composite) in the static questions.
RELATION_SENTENCES = (
    "{x} is the {r} of {y}",
    "{x} holds the {r} relation to {y}",
    "{x} acts as the {r} of {y}",
    "{x} serves as {y}'s {r}",
)


class NoInstance(Exception):
    """The graph cannot carry an instance of the family (drawn again from another)."""


class Exhausted(RuntimeError):
    """None of the ATTEMPTS graphs of a request carries its family."""


@dataclass(frozen=True)
class KgInstance:
    """A task instance x = (Q, pi, a*): the world, the story shown, the question, the gold
    solution and the accepted answers."""

    family: str
    form: str
    depth: int
    complexity: int
    seed: int
    split: str
    target: str
    world: KgWorld
    story: str
    question: str
    solution: Solution
    accepted: tuple[str, ...]

    @cached_property
    def trace(self) -> str:
        return solution_text(self.solution)

    @property
    def answer(self) -> str:
        return self.solution.answer

    @property
    def prompt(self) -> str:
        return f"Story: {self.story}\nQuestion: {self.question}\nSolution:"

    @property
    def task(self) -> str:
        return f"kg_{self.family}"

    def instance(self) -> Instance:
        """The instance as the task framework scores it (`argc score`, rewards)."""
        return Instance(
            id=f"{self.task}-D{self.depth}-T{self.complexity}-{self.split}-{self.seed}",
            task=self.task,
            level=0,
            ordering="-",
            set="-",
            seed=self.seed,
            theory="",
            prompt=self.prompt,
            reference=self.trace,
            target={"form": self.form, "object": self.target, "accepted": list(self.accepted)},
            meta={"depth": self.depth, "complexity": self.complexity, "split": self.split},
        )

    def row(self) -> dict[str, Any]:
        """The instance record with the fields of a KG instance beside it: family, form,
        depth, complexity, world (`.kg` text), story, question, trace, answer, accepted."""
        return {
            **self.instance().record(),
            "family": self.family,
            "form": self.form,
            "depth": self.depth,
            "complexity": self.complexity,
            "world": self.world.to_text(),
            "story": self.story,
            "question": self.question,
            "trace": self.trace,
            "answer": self.answer,
            "accepted": list(self.accepted),
        }


@dataclass(frozen=True)
class Timeline:
    """A request for the timeline of a world's target object alone (`solve_timelines`):
    what the dynamic families read of a solved world, whose questions and traces are about
    the target, not the kinship or the other objects."""

    world: KgWorld
    target: str


#: What a builder asks for: a world to solve (its model), a world's timeline, or an
#: abduction problem (world, target, masked element) whose consistent set it needs.
Request = KgWorld | Timeline | Problem
#: An instance's builder: it yields each request, is sent its answer (the world's model or
#: timeline, the problem's consistent set), and returns the instance (NoInstance when its
#: graph cannot carry the family).
Builder = Generator[Request, Any, KgInstance]


def rule_groups(family: str, split: str) -> dict[str, float]:
    """The weight of each frequency group a family's rule is drawn from in a split: Table 7's
    long tail for pretraining, uniform over the family's groups for RL, and uniform with the
    held-out group F as well for evaluation (inductive)."""
    groups = FAMILY_GROUPS[family] + ("F" if split == "eval" and family == "inductive" else "")
    if split == "pretrain":
        return {group: PRETRAIN_WEIGHTS[group] for group in groups if PRETRAIN_WEIGHTS[group]}
    return dict.fromkeys(groups, 1.0)


def draw_rule(rng: random.Random, family: str, split: str) -> str:
    weights = rule_groups(family, split)
    group = rng.choices(list(weights), list(weights.values()))[0]
    return rng.choice(RULE_GROUPS[group])


def ordinal(number: int) -> str:
    if 10 <= number % 100 <= 20:
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th') }"


def _story(graph: KgGraph, world: KgWorld, family: str) -> str:
    rng = stream("kg-story", family, graph.split, graph.depth, graph.complexity, graph.seed)
    return render(replace(graph, world=world), rng)


def _instance(graph, family, form, world, story, question, solution, accepted) -> KgInstance:
    return KgInstance(
        family,
        form,
        graph.depth,
        graph.complexity,
        graph.seed,
        graph.split,
        graph.target,
        world,
        story,
        question,
        solution,
        accepted,
    )


# Dynamic families


def deductive(graph: KgGraph, rng: random.Random) -> Builder:
    """A deductive instance: a form (the k-th step forms need D >= 2), its forward trace."""
    forms = [form for form in FORMS["deductive"] if graph.depth > 1 or form.startswith("final")]
    form = rng.choice(forms)
    mode, slot = form.split("_", 1)
    steps = graph.depth if mode == "final" else rng.randint(1, graph.depth - 1)
    solution = deduction((yield Timeline(graph.world, graph.target)), graph.target, steps, slot)
    question = QUESTIONS[form].format(o=object_words(graph.target), k=ordinal(steps))
    story = _story(graph, graph.world, "deductive")
    return _instance(
        graph, "deductive", form, graph.world, story, question, solution, (solution.answer,)
    )


def _without(world: KgWorld, masked: Event | Declaration) -> KgWorld:
    """The visible world: the world without the hidden element (not checked: an object may
    lack its declaration)."""
    if isinstance(masked, Event):
        index = world.events.index(masked)
        return replace(world, events=world.events[:index] + world.events[index + 1 :])
    return replace(world, declarations=tuple(d for d in world.declarations if d != masked))


def _run(
    states: simulate.States, found: list[simulate.State], events: Iterable[Event], target: str
) -> list[simulate.State] | None:
    """The target's states `found` so far, then after each of `events` that affects it, run
    from `states`; None when an event's precondition fails."""
    found = list(found)
    for event in events:
        if simulate.precondition(event, states) is not None:
            return None
        states = simulate.apply(event, states)
        if target in simulate.affected(event):
            found.append(states[target])
    return found


def _target_states(world: KgWorld, target: str) -> list[simulate.State] | None:
    """The target's states after each event affecting it (s0 first); None when an event's
    precondition fails."""
    states = simulate.initial_states(world)
    return _run(states, [states[target]], world.events, target)


def _places(world: KgWorld, target: str) -> list[tuple[simulate.States, list[simulate.State]]]:
    """The states before each place among the world's events (before the first, ..., after
    the last) with the target's states so far, up to the first event whose precondition
    fails: an event inserted after it fails with it."""
    states = simulate.initial_states(world)
    found = [states[target]]
    places = [(states, found)]
    for event in world.events:
        if simulate.precondition(event, states) is not None:
            break
        states = simulate.apply(event, states)
        if target in simulate.affected(event):
            found = [*found, states[target]]
        places.append((states, found))
    return places


def _determined(world: KgWorld, target: str, masked, accepted) -> bool:
    """Every accepted element, at every place it fits, gives the target the states the
    hidden one does."""
    gold = _target_states(world, target)
    visible = _without(world, masked)
    places = None
    for element in accepted:
        if isinstance(element, Declaration):
            with_it = replace(visible, declarations=(*visible.declarations, element))
            found: Iterable[list[simulate.State] | None] = [_target_states(with_it, target)]
        else:
            places = places or _places(visible, target)
            events = visible.events
            found = (
                _run(states, so_far, (element, *events[place:]), target)
                for place, (states, so_far) in enumerate(places)
            )
        if any(states is not None and states != gold for states in found):
            return False
    return True


def hides_event(depth: int, complexity: int, seed: int, split: str) -> bool:
    """Whether the abductive request (D, T, seed, split) hides an event rather than the
    target's declaration: at D >= 2, when (seed * GOLDEN + a hash of the split and cell)
    mod 2**64 falls below MASK_EVENT of 2**64. Over consecutive seeds this is a
    low-discrepancy sequence (any run of n seeds hides an event in MASK_EVENT * n of them,
    give or take two); over hashed seeds it is a draw of probability MASK_EVENT."""
    if depth < 2:
        return False
    phase = stream("kg-abductive-form", split, depth, complexity).getrandbits(64)
    return (seed * GOLDEN + phase) % 2**64 < int(MASK_EVENT * 2**64)


def abductive(graph: KgGraph, rng: random.Random, hide_event: bool) -> Builder:
    """An abductive instance of the drawn form: an event of the target's chain but its last
    and those the world has twice (in random order, the first that leaves the target's
    states determined), or the target's declaration; NoInstance when no element of the
    form does."""
    world, target = graph.world, graph.target
    model = yield Timeline(world, target)
    if hide_event:
        # An event the world has twice is not hidden: the story would not tell which is.
        times = [
            time
            for time in chain_times(model, target)[:-1]
            if world.events.count(world.events[time - 1]) == 1
        ]
        choices: list[Event | Declaration] = [
            world.events[time - 1] for time in rng.sample(times, len(times))
        ]
    else:
        choices = [next(d for d in world.declarations if d.object == target)]
    for masked in choices:
        # The hidden element is always accepted: where it fits elsewhere with other states
        # for the target, no accepted set leaves them determined, so it is passed over
        # without solving its abduction.
        if not _determined(world, target, masked, (masked,)):
            continue
        accepted = yield (world, target, masked)
        if not _determined(world, target, masked, accepted):
            continue
        form = FORMS["abductive"][isinstance(masked, Declaration)]
        visible = _without(world, masked)
        return _instance(
            graph,
            "abductive",
            form,
            world,
            _story(graph, visible, "abductive"),
            QUESTIONS["abductive"].format(o=object_words(target)),
            abduction(model, target, masked),
            # An exchange is named from the target's side: both orders read the same.
            tuple(dict.fromkeys(action(element, target).text() for element in accepted)),
        )
    raise NoInstance(f"no {FORMS['abductive'][not hide_event]} leaves the target determined")


# Static families


def _fits(person: str, before: str | None, after: str | None) -> bool:
    """Whether a person's gender fits being the second person of relation `before` (whose
    inverse is taken in that gender) and the first of relation `after`."""
    kind = gender(person)
    if after is not None and RELATION_GENDER.get(after, kind) != kind:
        return False
    if before is None:
        return True
    inverse = simulate.INVERSE[before][kind != "male"]
    return RELATION_GENDER.get(inverse, kind) == kind


#: How many times a static family plants its chains on the world's persons before it plants
#: them on new persons alone.
PLANTINGS = 8


def _path_facts(chain: tuple[str, ...], path: tuple[str, ...]) -> list[KinshipFact]:
    return [KinshipFact(r, chain[i], chain[i + 1]) for i, r in enumerate(path)]


def _with(
    world: KgWorld, facts: Iterable[KinshipFact] = (), persons: Iterable[str] = ()
) -> KgWorld:
    """The world with further kinship facts (those it lacks) and new persons, unchecked."""
    return replace(
        world,
        persons=world.persons + tuple(Person(p, gender(p)) for p in persons),
        facts=world.facts + tuple(f for f in dict.fromkeys(facts) if f not in world.facts),
    )


def _newcomer(
    rng: random.Random, world: KgWorld, split: str, before: str | None, after: str | None
) -> str:
    """A person of the split's pool, with no first name of the world's, whose gender fits
    (`_fits`)."""
    used = {p.name.split("_", 1)[0] for p in world.persons}
    pool = person_pool(split)
    for person in rng.sample(pool, min(len(pool), 200)):
        if person.split("_", 1)[0] not in used and _fits(person, before, after):
            return person
    raise NoInstance("the name pool has no new person for the chain")


@dataclass(frozen=True)
class _Planting:
    """How a chain is planted: on the split's new persons alone (`fresh`), or on the world's
    persons where they fit, those of `used` last and those of `avoid` never at an end."""

    split: str
    fresh: bool = False
    used: frozenset[str] = frozenset()
    avoid: frozenset[str] = frozenset()


def _plant(
    rng: random.Random, world: KgWorld, path: tuple[str, ...], how: _Planting
) -> tuple[KgWorld, tuple[str, ...]]:
    """A chain p0..pn along the path, and the world with its facts (and new persons): each
    pi the first person of the world, in random order, whose gender fits (`_fits`) and
    whose fact keeps the family possible (`argc.dsl.kg.genealogy`), else a new person."""
    persons = [p.name for p in world.persons]
    chain: list[str] = []
    for index, (before, after) in enumerate(zip((None, *path), (*path, None), strict=True)):
        end = index in (0, len(path))
        options = [] if how.fresh else rng.sample(persons, len(persons))
        options.sort(key=lambda person: person in how.used)
        found = None
        for person in options:
            if person in chain or (end and person in how.avoid) or not _fits(person, before, after):
                continue
            fact = [KinshipFact(path[index - 1], chain[-1], person)] if chain else []
            if not fact or not genealogy.violations(_with(world, fact)):
                found = person
                break
        if found is None:
            found = _newcomer(rng, world, how.split, before, after)
            world = _with(world, persons=[found])
        if chain:
            world = _with(world, [KinshipFact(path[index - 1], chain[-1], found)])
        chain.append(found)
    return world, tuple(chain)


def _relations(relations: Set[tuple[str, str, str]], start: str, end: str) -> set[str]:
    """The relations (basic and composite) `start` holds to `end`."""
    return {r for r, x, y in relations if x == start and y == end}


def _exact(
    relations: Set[tuple[str, str, str]], chains: Iterable[tuple[str, ...]], rule: str
) -> bool:
    """Whether each chain's start holds to its end the rule and no other relation."""
    return all(_relations(relations, chain[0], chain[-1]) == {rule} for chain in chains)


def analogy_answer(relations: Set[tuple[str, str, str]], a: str, b: str, c: str) -> str | None:
    """The answer to A : B :: C : ?, the one person D whom C reaches along every relation
    (basic or composite) that A holds to B, and along nothing else of them; None when there
    is none or several, when C is A or B, or when D is A, B or C."""
    between = _relations(relations, a, b)
    if not between or c in (a, b):
        return None
    reached = {
        frozenset(y for r, x, y in relations if x == c and r == relation) for relation in between
    }
    if len(reached) != 1:
        return None
    (ends,) = reached
    if len(ends) != 1 or not ends.isdisjoint((a, b, c)):
        return None
    (answer,) = ends
    return answer


def _sentence(rng: random.Random, x: str, relation: str, y: str) -> str:
    return rng.choice(RELATION_SENTENCES).format(
        x=person_words(x), r=rule_words(relation), y=person_words(y)
    )


def _support(
    rng: random.Random, world: KgWorld, path: tuple[str, ...], rule: str, split: str
) -> tuple[KgWorld, list[tuple[str, ...]]]:
    """2 or 3 support chains of the rule, planted one by one (new persons alone after
    PLANTINGS tries): each with its own ends, each start holding the rule and nothing else to
    its end, also once the later chains are planted."""
    support: list[tuple[str, ...]] = []
    for _ in range(rng.choice((2, 3))):
        used = frozenset(person for chain in support for person in chain)
        for attempt in range(PLANTINGS + 1):
            how = _Planting(split, attempt == PLANTINGS, used)
            planted, chain = _plant(rng, world, path, how)
            ends = {(c[0], c[-1]) for c in support}
            if (chain[0], chain[-1]) not in ends and _exact(
                simulate.kinship(planted), (*support, chain), rule
            ):
                world = planted
                support.append(chain)
                break
        else:
            raise NoInstance(f"no support chain of {rule} keeps the others' relation exact")
    return world, support


def inductive(graph: KgGraph, rng: random.Random) -> Builder:
    """An inductive instance: the rule planted on 2-3 support chains, noise facts and a
    query chain of new persons; every chain's start holds the rule, and no other relation,
    to its end."""
    rule = draw_rule(rng, "inductive", graph.split)
    path = STANDARD[rule].path
    story_world, support = _support(rng, graph.world, path, rule, graph.split)
    world, query = _plant(rng, story_world, path, _Planting(graph.split, fresh=True))
    story_world, world = KgWorld.build(story_world.statements()), KgWorld.build(world.statements())
    model = yield world
    if not _exact(model.relations, (*support, query), rule):
        raise NoInstance(f"a chain's ends hold another relation than {rule}")
    planted = {(f.first, f.second) for c in support for f in _path_facts(c, path)}
    noise = [f for f in graph.world.facts if (f.first, f.second) not in planted]
    lines = [_sentence(rng, c[0], rule, c[-1]) for c in support]
    lines += [
        _sentence(rng, f.first, f.relation, f.second)
        for f in rng.sample(noise, min(len(noise), rng.randint(1, 3)))
    ]
    rng.shuffle(lines)
    query_text = ", and ".join(
        _sentence(rng, query[i], r, query[i + 1]) for i, r in enumerate(path)
    )
    ask = rng.choice(INDUCTIVE_QUESTIONS).format(
        a=person_words(query[0]), b=person_words(query[-1])
    )
    question = " ".join(f"{line}." for line in (*lines, query_text)) + " " + ask
    solution = Induction(
        tuple(kinship_chain(c, path, rule) for c in support),
        path,
        rule_words(rule),
        kinship_chain(query, path, rule),
        rule_words(rule),
    )
    story = _story(graph, story_world, "inductive")
    return _instance(
        graph, "inductive", "rule_composition", world, story, question, solution, (solution.answer,)
    )


def _analogy_chains(
    rng: random.Random, world: KgWorld, path: tuple[str, ...], split: str
) -> tuple[KgWorld, tuple[str, ...], tuple[str, ...]]:
    """The source and target chains along the path (on new persons alone after PLANTINGS
    tries), such that the target's end is the analogy's one answer (`analogy_answer`)."""
    for attempt in range(PLANTINGS + 1):
        fresh = attempt == PLANTINGS
        planted, source = _plant(rng, world, path, _Planting(split, fresh))
        ends = frozenset((source[0], source[-1]))
        planted, target = _plant(
            rng, planted, path, _Planting(split, fresh, frozenset(source), ends)
        )
        answer = analogy_answer(simulate.kinship(planted), source[0], source[-1], target[0])
        if answer == target[-1]:
            return KgWorld.build(planted.statements()), source, target
    raise NoInstance("no planted analogy has one answer")


def analogy(graph: KgGraph, rng: random.Random) -> Builder:
    """An analogy instance: two chains along a rule's path, the second's end the analogy's
    one answer (`analogy_answer`)."""
    rule = draw_rule(rng, "analogy", graph.split)
    path = STANDARD[rule].path
    world, source, target = _analogy_chains(rng, graph.world, path, graph.split)
    model = yield world
    if analogy_answer(model.relations, source[0], source[-1], target[0]) != target[-1]:
        raise NoInstance("the analogy has no single answer")
    ask = rng.choice(ANALOGY_QUESTIONS).format(
        a=person_words(source[0]), b=person_words(source[-1]), c=person_words(target[0])
    )
    solution = Analogy(
        kinship_chain(source, path, rule),
        kinship_chain(target, path, rule),
        person_words(target[-1]),
    )
    story = _story(graph, world, "analogy")
    return _instance(graph, "analogy", "analogy", world, story, ask, solution, (solution.answer,))


#: Each family's builder, called with a graph and the attempt's stream (the abductive one
#: with its request's form as well, `hides_event`).
BUILDERS: dict[str, Callable[..., Builder]] = {
    "deductive": deductive,
    "abductive": abductive,
    "inductive": inductive,
    "analogy": analogy,
}


class _Drawing:
    """One instance being drawn: the family's builder over the graphs of seeds derived from
    the instance's seed, one attempt after another, until one carries the family."""

    def __init__(self, family: str, depth: int, complexity: int, seed: int, split: str) -> None:
        if family not in BUILDERS:
            raise ValueError(f"unknown family {family!r}: one of {', '.join(FAMILIES)}")
        self.request = (family, depth, complexity, seed, split)
        self.attempt = -1
        self.builder: Builder | None = None
        self.instance: KgInstance | Exhausted | None = None

    def _next_builder(self) -> Builder:
        family, depth, complexity, seed, split = self.request
        self.attempt += 1
        if self.attempt == ATTEMPTS:
            raise Exhausted(f"no {family} instance at D{depth} T{complexity} seed {seed}")
        attempt = self.attempt
        graph_seed = (
            seed if attempt == 0 else int(stream("kg-retry", seed, attempt).random() * 2**62)
        )
        graph = generate_graph(depth, complexity, graph_seed, split)
        rng = stream("kg-instance", family, split, depth, complexity, seed, attempt)
        if family == "abductive":  # the form is the request's, kept over its graphs
            return abductive(graph, rng, hides_event(depth, complexity, seed, split))
        return BUILDERS[family](graph, rng)

    def advance(self, answer: Any = None) -> Request | None:
        """Run the builder on, given the answer to its last request (a failure to answer it
        is raised in the builder), to its next request; None once the instance is built or
        the attempts are exhausted. A builder that finds no instance gives way to the next
        attempt."""
        while True:
            try:
                if self.builder is None:
                    self.builder = self._next_builder()
                    return next(self.builder)
                if isinstance(answer, MachineLimitExceeded):
                    family, depth, complexity, seed, split = self.request
                    what = f"{family} D{depth} T{complexity} seed {seed} ({split})"
                    raise generation_stopped(what, answer) from answer
                if isinstance(answer, Exception):
                    return self.builder.throw(answer)
                return self.builder.send(answer)
            except StopIteration as built:
                self.instance = built.value
                return None
            except NoInstance:
                self.builder = None
            except Exhausted as exhausted:
                self.instance = exhausted
                return None


def generate_instances(
    requests: Iterable[tuple[str, int, int, int]], split: str = "rl", batch_size: int = BATCH_SIZE
) -> list[KgInstance | Exhausted]:
    """The instances of requests (family, D, T, seed), each the one `generate_instance`
    gives (or its Exhausted): drawn side by side, the worlds and abduction problems they ask
    for solved together (`batch_size` a program)."""
    drawings = [_Drawing(*request, split) for request in requests]
    asked = {index: drawing.advance() for index, drawing in enumerate(drawings)}
    while pending := {index: request for index, request in asked.items() if request is not None}:
        answers = _answers(list(pending.values()), batch_size)
        asked = {
            index: drawings[index].advance(answer)
            for index, answer in zip(pending, answers, strict=True)
        }
    return [drawing.instance for drawing in drawings]  # type: ignore[misc] - all built


def _answers(requests: list[Request], batch_size: int) -> list[Any]:
    """The model of each world, the target's timeline of each Timeline and the consistent
    set of each abduction problem (or the failure), each kind solved in batches."""
    answers: list[Any] = [None] * len(requests)
    worlds = [k for k, request in enumerate(requests) if isinstance(request, KgWorld)]
    timelines = [k for k, request in enumerate(requests) if isinstance(request, Timeline)]
    problems = [k for k, request in enumerate(requests) if isinstance(request, tuple)]
    found = (
        solve_kg_many([requests[k] for k in worlds], batch_size=batch_size),
        solve_timelines(
            [requests[k].world for k in timelines],  # type: ignore[union-attr]
            batch_size=batch_size,
            objects=[(requests[k].target,) for k in timelines],  # type: ignore[union-attr]
        ),
        abduce_many([requests[k] for k in problems], batch_size=batch_size),
    )
    for indices, solved in zip((worlds, timelines, problems), found, strict=True):
        for index, answer in zip(indices, solved, strict=True):
            answers[index] = answer
    return answers


def generate_instance(
    family: str, depth: int, complexity: int, seed: int, split: str = "rl"
) -> KgInstance:
    """The instance of a family at (D, T) for a seed: drawn from the graphs of seeds derived
    from it until one carries the family (Exhausted after ATTEMPTS)."""
    (instance,) = generate_instances([(family, depth, complexity, seed)], split)
    if isinstance(instance, Exhausted):
        raise instance
    return instance
