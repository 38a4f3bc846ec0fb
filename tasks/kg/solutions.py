"""Solutions to the KG tasks: their structures, their text in the paper's formats (Tables 9,
14 and 15 of the depth-complexity paper), a Lark parser back to the structures
(solutions.lark) and the binary process and answer matches of Table 13.

Structures hold names as written (`Karen Baylor Sawyer`, `the ivory chess piece`, rule
`great-aunt`), so a gold solution and a parsed completion compare directly. The process
match P compares what the paper's parser schema keeps: the target object's state sequence
(deductive), the backward steps' states and the gap or required initial state (abductive),
the support examples, the pattern path and rule and the query's application (inductive), the
source and target paths and rules (analogy). The answer match A compares normalised answers;
an abductive answer is read as an event or an initial declaration and matches when it is one
of the accepted elements (`argc.compiler.kg.abduce`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Union

from lark import Lark, Transformer
from lark.exceptions import LarkError

from argc.dsl.kg.simulate import State
from argc.dsl.syntax import lark_parser
from argc.tasks.answers import MAX_ANSWER_CHARS, UnreadableAnswer

#: Verbs of the operation events in trace steps and answers.
VERBS = {
    "sale": "sells",
    "gift": "gives",
    "loan": "lends",
    "return": "returns",
    "break": "breaks",
    "repair": "repairs",
    "exchange": "exchanges",
}
#: The last sentence of a solution and what follows it: the answer.
CONCLUSIONS = ("Therefore, the answer is", "Therefore, the missing information is:")


@dataclass(frozen=True)
class Action:
    """An operation event or initial declaration as written: its kind (`sale`, ..., `own`,
    `create`), persons and objects in the order the sentence names them."""

    kind: str
    persons: tuple[str, ...]
    objects: tuple[str, ...]

    def text(self) -> str:
        """The sentence (without its period)."""
        (p, *others), (o, *more) = self.persons, self.objects
        if self.kind in ("own", "create"):
            return f"{p} {self.kind} {o}"
        verb = VERBS[self.kind]
        if self.kind in ("break", "repair"):
            return f"{p} {verb} {o}"
        if self.kind == "exchange":
            return f"{p} {verb} {o} with {others[0]} for {more[0]}"
        return f"{p} {verb} {o} to {others[0]}"


@dataclass(frozen=True)
class Step:
    """A trace step: the event and the target's states around it (`before` is None in a
    forward trace, which states only the state after each step)."""

    action: Action
    after: State
    before: State | None = None


@dataclass(frozen=True)
class Deduction:
    """A forward trace: the target object, its initial state, each step and the answer."""

    object: str
    initial: State
    steps: tuple[Step, ...]
    answer: str


@dataclass(frozen=True)
class Abduction:
    """A backward trace: the visible steps from the last one back, how it ends (the gap's
    states `gap`; with `initial`, the stated initial state when the gap precedes the first
    step; or the `required_initial` state no declaration gives) and the answer."""

    object: str
    steps: tuple[Step, ...]
    gap: tuple[State, State] | None
    initial: State | None
    required_initial: State | None
    answer: str


@dataclass(frozen=True)
class Chain:
    """A kinship path: persons p0, ..., pn and relations r1, ..., rn (p(i-1) is the ri of
    pi), with the composite relation it gives p0 to pn (`rule`)."""

    persons: tuple[str, ...]
    relations: tuple[str, ...]
    rule: str


@dataclass(frozen=True)
class Induction:
    """Support examples, the pattern (path and rule) and its application to the query."""

    examples: tuple[Chain, ...]
    path: tuple[str, ...]
    rule: str
    query: Chain
    answer: str


@dataclass(frozen=True)
class Analogy:
    """The source pair's chain and the target's, whose last person is the answer."""

    source: Chain
    target: Chain
    answer: str


Solution = Union[Deduction, Abduction, Induction, Analogy]  # noqa: UP007

# Text


def state_text(state: State, thing: str) -> str:
    """`P own and possess the o (intact)`, or `P own the o, Q possess the o (broken)`."""
    owner, possessor, integrity = state
    if owner == possessor:
        return f"{owner} own and possess {thing} ({integrity})"
    return f"{owner} own {thing}, {possessor} possess {thing} ({integrity})"


def _chain_text(chain: Chain) -> str:
    persons, relations = chain.persons, chain.relations
    return ", and ".join(
        f"{persons[index]} is the {relation} of {persons[index + 1]}"
        for index, relation in enumerate(relations)
    )


def _fact_text(chain: Chain) -> str:
    return f"{chain.persons[0]} is the {chain.rule} of {chain.persons[-1]}"


def _deduction_text(solution: Deduction) -> list[str]:
    thing = solution.object
    parts = [f"Initial state: {state_text(solution.initial, thing)}."]
    for number, step in enumerate(solution.steps, 1):
        parts.append(f"Step {number}: {step.action.text()}.")
        parts.append(f"State: {state_text(step.after, thing)}.")
    parts.append(f"Therefore, the answer is {solution.answer}.")
    return parts


def _abduction_text(solution: Abduction) -> list[str]:
    thing = solution.object
    parts = ["Tracing backwards."]
    for index, step in enumerate(solution.steps):
        assert step.before is not None
        parts.append(f"{'Previous' if index else 'Last'} step: {step.action.text()}.")
        parts.append(f"Before: {state_text(step.before, thing)}.")
        parts.append(f"After: {state_text(step.after, thing)}.")
        if index:
            found = index == len(solution.steps) - 1 and solution.gap and not solution.initial
            parts.append(
                "After does not match before of the next step, gap found."
                if found
                else "After matches before of the next step, no gap."
            )
    if solution.initial is not None:
        parts.append(f"Initial state: {state_text(solution.initial, thing)}.")
        parts.append("Initial state does not match before of the next step, gap found.")
    if solution.gap is not None:
        before, after = solution.gap
        parts.append(f"Before the missing step: {state_text(before, thing)}.")
        parts.append(f"After the missing step: {state_text(after, thing)}.")
    if solution.required_initial is not None:
        parts.append(f"Required initial state: {state_text(solution.required_initial, thing)}.")
        parts.append("The story does not state this.")
    parts.append(f"Therefore, the missing information is: {solution.answer}.")
    return parts


def _induction_text(solution: Induction) -> list[str]:
    parts = [
        f"Example: {_chain_text(example)}, so {_fact_text(example)}."
        for example in solution.examples
    ]
    parts.append(f"The pattern is {' then '.join(solution.path)} gives {solution.rule}.")
    parts.append(f"Applying to query: {_chain_text(solution.query)}.")
    parts.append(f"By the same pattern, {_fact_text(solution.query)}.")
    parts.append(f"Therefore, the answer is {solution.answer}.")
    return parts


def _analogy_text(solution: Analogy) -> list[str]:
    source, target = solution.source, solution.target
    return [
        f"From the story, {_chain_text(source)}.",
        f"Through {' then '.join(source.relations)}, {_fact_text(source)}.",
        f"Similarly, {_chain_text(target)}.",
        f"By the same pattern, {_fact_text(target)}.",
        f"Therefore, the answer is {solution.answer}.",
    ]


def solution_text(solution: Solution) -> str:
    """The solution in the paper's format, one paragraph."""
    writers = {
        Deduction: _deduction_text,
        Abduction: _abduction_text,
        Induction: _induction_text,
        Analogy: _analogy_text,
    }
    return " ".join(writers[type(solution)](solution))


# Reading


@cache
def _parser() -> Lark:
    return lark_parser(
        "argc.tasks.kg",
        "solutions.lark",
        "kg-solutions",
        positions=False,
        lexer="contextual",
        start=["deduction", "abduction", "induction", "analogy", "missing_element"],
    )


def _answer(token) -> str:
    return str(token).strip().removesuffix(".").strip()


#: The grammar's event and declaration rules, and the kinds they name.
ACTION_RULES = {
    "sale": "sale",
    "gift": "gift",
    "loan": "loan",
    "return_": "return",
    "break_": "break",
    "repair": "repair",
    "exchange": "exchange",
    "own": "own",
    "create": "create",
}


class _Solution(Transformer):
    def __default__(self, data, children, meta):
        kind = ACTION_RULES.get(str(data))
        if kind is None:
            return super().__default__(data, children, meta)
        names = [str(child) for child in children]
        persons = tuple(name for name in names if not name.startswith("the "))
        objects = tuple(name for name in names if name.startswith("the "))
        return Action(kind, persons, objects)

    def held_state(self, children):
        person, thing, integrity = (str(child) for child in children)
        return State(person, person, integrity), thing

    def lent_state(self, children):
        owner, thing, possessor, _again, integrity = (str(child) for child in children)
        return State(owner, possessor, integrity), thing

    def missing_element(self, children):
        return children[0]

    def step(self, children):
        _number, action, (after, thing) = children
        return Step(action, after), thing

    def conclusion(self, children):
        return _answer(children[0])

    missing = conclusion

    def deduction(self, children):
        (initial, thing), *steps, answer = children
        return Deduction(thing, initial, tuple(step for step, _ in steps), answer)

    def around(self, children):
        (before, thing), (after, _) = children
        return before, after, thing

    def last(self, children):
        action, (before, after, thing) = children
        return Step(action, after, before), thing

    def previous(self, children):
        action, (before, after, thing), _comparison = children
        return Step(action, after, before), thing

    def no_gap(self, _children):
        return False

    def gap(self, _children):
        return True

    def gap_states(self, children):
        (before, _), (after, _) = children
        return {"gap": (before, after)}

    def ending(self, children):
        return children[0]

    def initial_gap(self, children):
        (initial, _), gap = children
        return {"initial": initial, **gap}

    def required_initial(self, children):
        ((state, _),) = children
        return {"required_initial": state}

    def no_ending(self, _children):
        return {}

    def abduction(self, children):
        *steps, ending, answer = children
        return Abduction(
            steps[0][1],
            tuple(step for step, _ in steps),
            ending.get("gap"),
            ending.get("initial"),
            ending.get("required_initial"),
            answer,
        )

    def fact(self, children):
        first, relation, second = (str(child) for child in children)
        return first, relation, second

    conclusion_fact = fact

    def path(self, relations):
        return tuple(str(relation) for relation in relations)

    def chain(self, facts):
        persons = [facts[0][0]]
        for first, _relation, second in facts:
            if first != persons[-1]:
                raise ValueError(f"the path breaks at {first}: it follows {persons[-1]}")
            persons.append(second)
        return tuple(persons), tuple(relation for _, relation, _ in facts)

    def example(self, children):
        path, conclusion = children
        return _closed_chain(*path, *conclusion)

    application = example

    def pattern(self, children):
        path, rule = children
        return path, str(rule)

    def induction(self, children):
        *examples, (path, rule), query, answer = children
        return Induction(tuple(examples), path, rule, query, answer)

    def analogy(self, children):
        source_path, through, source_fact, target_path, target_fact, answer = children
        if through != source_path[1]:
            raise ValueError(f"'through {' then '.join(through)}' is not the source's path")
        source = _closed_chain(*source_path, *source_fact)
        return Analogy(source, _closed_chain(*target_path, *target_fact), answer)


def _closed_chain(
    persons: tuple[str, ...], relations: tuple[str, ...], first: str, rule: str, last: str
) -> Chain:
    """A chain with its conclusion, which must relate its first and last persons."""
    if (first, last) != (persons[0], persons[-1]):
        raise ValueError(f"'{first} is the {rule} of {last}' does not conclude the path")
    return Chain(persons, relations, rule)


#: The start symbol of each family's solutions.
STARTS = {
    "deductive": "deduction",
    "abductive": "abduction",
    "inductive": "induction",
    "analogy": "analogy",
}


def _until_conclusion(text: str) -> str:
    """The text up to the end of the line of its last conclusion sentence."""
    at = max(text.rfind(conclusion) for conclusion in CONCLUSIONS)
    if at < 0:
        return text
    end = text.find("\n", at)
    return text if end < 0 else text[:end]


def parse_solution(text: str, family: str) -> Solution:
    """The structure of a solution text of a family (UnreadableAnswer when it has none)."""
    if len(text) > MAX_ANSWER_CHARS:
        raise UnreadableAnswer(f"the solution has {len(text):,} characters")
    try:
        return _Solution().transform(_parser().parse(_until_conclusion(text), STARTS[family]))
    except (LarkError, ValueError) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise UnreadableAnswer(f"unreadable {family} solution: {reason}") from None


def parse_missing(text: str) -> Action:
    """An abductive answer read as an event or an initial declaration."""
    if len(text) > MAX_ANSWER_CHARS:
        raise UnreadableAnswer(f"the answer has {len(text):,} characters")
    try:
        return _Solution().transform(_parser().parse(text.strip(), "missing_element"))
    except LarkError as error:
        raise UnreadableAnswer(f"unreadable missing element: {error}") from None


_CONCLUSION = re.compile(
    r"Therefore,\s+the\s+(?:answer\s+is|missing\s+information\s+is:)\s*([^\n]*)", re.IGNORECASE
)


def extract_answer(text: str) -> str | None:
    """The answer of a completion: what follows its last conclusion sentence on that line,
    without a final period; None without one."""
    matches = _CONCLUSION.findall(text[-MAX_ANSWER_CHARS:])
    return _answer(matches[-1]) if matches else None


def normalise(answer: str) -> str:
    """An answer for comparison: case-folded, spaces collapsed, `_` and `-` as spaces, quotes
    and a final period dropped."""
    answer = answer.strip().strip("\"'`*").removesuffix(".").replace("_", " ").replace("-", " ")
    return " ".join(answer.casefold().split())


# Matching


def _same_chain(one: Chain, other: Chain) -> bool:
    return (
        one.persons == other.persons
        and one.relations == other.relations
        and normalise(one.rule) == normalise(other.rule)
    )


def _states(steps: tuple[Step, ...]) -> list[tuple[State | None, State]]:
    return [(step.before, step.after) for step in steps]


def process_match(predicted: Solution, gold: Solution) -> bool:
    """P of Table 13: the predicted solution's process is the gold one's."""
    if type(predicted) is not type(gold):
        return False
    if isinstance(gold, Deduction):
        return (
            normalise(predicted.object) == normalise(gold.object)
            and predicted.initial == gold.initial
            and _states(predicted.steps) == _states(gold.steps)
        )
    if isinstance(gold, Abduction):
        return (
            normalise(predicted.object) == normalise(gold.object)
            and _states(predicted.steps) == _states(gold.steps)
            and (predicted.gap, predicted.initial, predicted.required_initial)
            == (gold.gap, gold.initial, gold.required_initial)
        )
    if isinstance(gold, Induction):
        return (
            {(e.persons, e.relations, normalise(e.rule)) for e in predicted.examples}
            == {(e.persons, e.relations, normalise(e.rule)) for e in gold.examples}
            and predicted.path == gold.path
            and normalise(predicted.rule) == normalise(gold.rule)
            and _same_chain(predicted.query, gold.query)
        )
    return _same_chain(predicted.source, gold.source) and _same_chain(predicted.target, gold.target)


def answer_match(answer: str, accepted: tuple[str, ...], family: str) -> bool:
    """A of Table 13: the answer equals an accepted answer after normalisation; an abductive
    answer is read as an event or declaration and compared with the accepted ones read the
    same way."""
    if family != "abductive":
        return normalise(answer) in {normalise(item) for item in accepted}
    try:
        action = parse_missing(answer)
    except UnreadableAnswer:
        return False
    return _canonical(action) in {_canonical(parse_missing(item)) for item in accepted}


def _canonical(action: Action) -> Action:
    """An exchange named from its second object's side is the same exchange."""
    if action.kind == "exchange" and action.objects[0] > action.objects[1]:
        return Action("exchange", action.persons[::-1], action.objects[::-1])
    return action
