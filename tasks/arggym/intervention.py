"""What the six constructive tasks share (ArgGYM §3.3, Appendix A.1 and B): intervention
languages and their legality, the declared candidate space with its verified minimum, and the
execution-based scorer.

A task states goals (claim → requested grounded status) over a base theory and declares a
candidate space of directives; `fewest_additions` (one clingo optimisation) establishes the
fewest candidates that reach every goal and keep the theory consistent. Instances whose minimum
is not established within the count limits of SEARCH_LIMITS are rejected.
"""

from __future__ import annotations

import random
from abc import abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from argc.compiler import (
    LimitExceeded,
    MachineLimitExceeded,
    QueryResult,
    Solution,
    solve_many,
)
from argc.compiler.facts import literal_term
from argc.compiler.intervention import Minimum, fewest_additions
from argc.dsl.errors import ArgcError
from argc.dsl.ir import (
    Axiom,
    Contradictory,
    Directive,
    Literal,
    Ordering,
    Premise,
    PremisePreference,
    Rule,
    RulePreference,
    Theory,
)
from argc.dsl.parser import parse_intervention
from argc.tasks.answers import MAX_ANSWER_CHARS
from argc.tasks.builder import Builder, Chain
from argc.tasks.framework import (
    GENERATION_LIMITS,
    SCORING_LIMITS,
    Candidate,
    Instance,
    Score,
    Task,
    knobs,
)
from argc.tasks.prompts import answer_request, theory_block

#: Limits for the minimum search at generation time, those of generation: a search past a
#: count (the grounding's, or the optimisation's conflicts) is rejected, the same on every
#: machine; the time limit and the memory stop generation instead (GenerationStopped).
SEARCH_LIMITS = GENERATION_LIMITS

# Intervention languages ------------------------------------------------------------------

#: The kinds of directive an intervention may add, with the form each is written in.
FORMS = {
    "defeasible": "[defeasible <new name>: <antecedent> AND ... => <consequent>]",
    "strict": "[strict <new name>: <antecedent> AND ... -> <consequent>]",
    "prefer_rule": "[prefer_rule: <defeasible rule> > <defeasible rule>]",
    "prefer_premise": "[prefer_premise: <ordinary premise> > <ordinary premise>]",
    "negated_premise": "[premise: -<p>] only as the negation of an ordinary premise p written"
    " above without a leading -",
}
#: Adding rules, preferences and undermining premises, without strict rules.
ATTACKING = ("defeasible", "prefer_rule", "prefer_premise", "negated_premise")


def rejection(
    directive: Directive,
    base: Theory,
    language: Sequence[str],
    new_rules: dict[str, Rule],
    new_premises: set[Literal],
    context: Legality,
) -> str | None:
    """Why `directive` is illegal in `language` (None when legal), by the rules the prompt
    states. `new_rules` and `new_premises` are the legal additions of the same intervention,
    which preferences may name."""
    if isinstance(directive, Rule):
        return _rule_rejection(directive, language, context)
    if isinstance(directive, RulePreference):
        if "prefer_rule" not in language:
            return "rule preferences may not be added"
        known = {rule.name for rule in base.rules if not rule.strict}
        known |= {name for name, rule in new_rules.items() if not rule.strict}
        for name in (directive.stronger, directive.weaker):
            if name not in known:
                return f"'{name}' is not a defeasible rule"
        return None if directive.stronger != directive.weaker else "a rule preferred to itself"
    if isinstance(directive, PremisePreference):
        if "prefer_premise" not in language:
            return "premise preferences may not be added"
        known = set(base.premises) | new_premises
        for literal in (directive.stronger, directive.weaker):
            if literal not in known:
                return f"'{literal}' is not an ordinary premise"
        return None if directive.stronger != directive.weaker else "a premise preferred to itself"
    if isinstance(directive, Premise):
        if "negated_premise" not in language:
            return "premises may not be added"
        return _premise_rejection(directive.literal, base)
    if isinstance(directive, Axiom):
        return "axioms may not be added"
    if isinstance(directive, Contradictory):
        return "contradictory declarations may not be added: they change the language"
    return f"'{directive}' may not be added"


@dataclass(frozen=True)
class Legality:
    """What the legality of an intervention's new rules depends on: the rule names taken,
    the atoms of the theory and of the answer (a rule may not be named like one), and the
    literals antecedents may use (those of the theory's premises, axioms and rules, and the
    negations of ordinary premises the answer legally adds)."""

    rule_names: frozenset[str]
    atoms: frozenset[str]
    known: frozenset[Literal]

    @classmethod
    def of(cls, directives: Sequence[Directive], base: Theory) -> Legality:
        known = set(base.premises) | set(base.axioms)
        for rule in base.rules:
            known.update((*rule.body, rule.head))
        atoms = {literal.atom for literal in base.literals()}
        for directive in directives:
            atoms.update(literal.atom for literal in _literals_of(directive))
            added = isinstance(directive, Premise)
            if added and _premise_rejection(directive.literal, base) is None:
                known.add(directive.literal)
        return cls(frozenset(rule.name for rule in base.rules), frozenset(atoms), frozenset(known))


def _literals_of(directive: Directive) -> tuple[Literal, ...]:
    if isinstance(directive, Rule):
        return (*directive.body, directive.head)
    if isinstance(directive, (Premise, Axiom)):
        return (directive.literal,)
    if isinstance(directive, PremisePreference):
        return (directive.stronger, directive.weaker)
    return ()


def _rule_rejection(rule: Rule, language: Sequence[str], context: Legality) -> str | None:
    if rule.kind not in language:
        return f"{rule.kind} rules may not be added"
    if rule.name in context.rule_names:
        return f"rule name '{rule.name}' is already a rule of the theory"
    if rule.name in context.atoms:
        return f"rule name '{rule.name}' is an atom of the theory or of the answer"
    if not rule.body or len(set(rule.body)) != len(rule.body):
        return f"rule '{rule.name}' needs distinct antecedents"
    unknown = [str(literal) for literal in rule.body if literal not in context.known]
    if unknown:
        return f"antecedent(s) {', '.join(unknown)} not present in the theory"
    return None


def _premise_rejection(literal: Literal, base: Theory) -> str | None:
    """A new premise must be `-p` for an ordinary premise `p` (written without `-`)."""
    if not literal.negated:
        return f"'{literal}' is not the negation of an ordinary premise"
    if literal.complement in base.axioms:
        return f"'{literal}' would undermine the axiom {literal.complement}"
    if literal.complement not in base.premises:
        return f"'{literal}' negates no ordinary premise of the theory"
    return None


def legal_part(
    directives: Sequence[Directive], base: Theory, language: Sequence[str]
) -> tuple[list[Directive], list[str]]:
    """The legal directives of an intervention, and a reason for each rejected one. A rule
    name defined twice keeps its first definition; preferences may name rules and premises
    the intervention adds."""
    context = Legality.of(directives, base)
    new_rules: dict[str, Rule] = {}
    new_premises: set[Literal] = set()
    for directive in directives:
        if rejection(directive, base, language, new_rules, new_premises, context) is not None:
            continue
        if isinstance(directive, Rule):
            new_rules.setdefault(directive.name, directive)
        elif isinstance(directive, Premise):
            new_premises.add(directive.literal)
    legal, reasons = [], []
    kept_rules: set[str] = set()
    for directive in directives:
        reason = rejection(directive, base, language, new_rules, new_premises, context)
        if isinstance(directive, Rule) and reason is None:
            if directive.name in kept_rules or new_rules[directive.name] != directive:
                reason = f"rule name '{directive.name}' is defined twice"
            kept_rules.add(directive.name)
        if reason is None:
            legal.append(directive)
        else:
            reasons.append(f"{directive}: {reason}")
    return legal, reasons


# Support analysis and candidate spaces ---------------------------------------------------


@dataclass
class Support:
    """What the arguments for a literal are built from, in a solved theory."""

    rules: set[str] = field(default_factory=set)  # defeasible rules
    premises: set[Literal] = field(default_factory=set)  # ordinary premises
    rebuttable: set[Literal] = field(default_factory=set)  # conclusions of defeasible rules
    conclusions: set[Literal] = field(default_factory=set)  # every sub-conclusion


def support(solution: Solution, literal: Literal) -> Support:
    """The union over every argument for `literal` and all their sub-arguments."""
    return _parts(solution, [argument.name for argument in solution.arguments_for(literal)])


def _parts(solution: Solution, names: Iterable[str]) -> Support:
    """What the named arguments and all their sub-arguments are built from."""
    theory = solution.theory
    defeasible = {rule.name for rule in theory.defeasible_rules}
    found = Support()
    for part in {sub for name in names for sub in solution.subarguments(name)}:
        argument = solution.arguments[part]
        found.conclusions.add(argument.conclusion)
        if argument.top_rule is None:
            if argument.conclusion in theory.premises:
                found.premises.add(argument.conclusion)
        elif argument.top_rule in defeasible:
            found.rules.add(argument.top_rule)
            found.rebuttable.add(argument.conclusion)
    return found


def sources(solution: Solution, avoid: Iterable[Literal], count: int) -> list[Literal]:
    """Up to `count` justified ordinary premises and axioms outside `avoid`, premises first,
    each group sorted as text: antecedents for the rules of a candidate space."""
    theory, avoid = solution.theory, set(avoid)
    found = []
    for group in (theory.premises, theory.axioms):
        found += sorted(
            (
                literal
                for literal in group
                if literal not in avoid and solution.status(literal) == "justified"
            ),
            key=str,
        )
    return found[:count]


class Space:
    """A declared candidate space: directives in a fixed order, new rules named `nr1`,
    `nr2`, ... (skipping names the theory uses); no rule repeats an existing rule's
    antecedent and consequent (PyArg would merge the two; a strict and a defeasible candidate
    may share them, one being a twin of the other), and none concludes a literal of
    `not_concluding` (a defence's space leaves out fresh derivations of what it defends, so
    that its minimum counts defences; answers may still add such rules)."""

    def __init__(self, theory: Theory, not_concluding: Iterable[Literal] = ()) -> None:
        self.theory = theory
        self.not_concluding = set(not_concluding)
        self.directives: dict[Directive, None] = {}
        self.taken = {rule.name for rule in theory.rules} | {
            literal.atom for literal in theory.literals()
        }
        self.shapes = {(rule.body, rule.head) for rule in theory.rules}
        self.made: set[tuple[tuple[tuple[Literal, ...], Literal], bool]] = set()
        self.premises = set(theory.premises)
        self.preferred = {(p.stronger, p.weaker) for p in theory.rule_preferences}
        self.preferred |= {(str(p.stronger), str(p.weaker)) for p in theory.premise_preferences}
        self.numbered = 0

    def _name(self) -> str:
        while True:
            self.numbered += 1
            name = f"nr{self.numbered}"
            if name not in self.taken:
                self.taken.add(name)
                return name

    def rule(self, body: Sequence[Literal], head: Literal, strict: bool = False) -> Rule | None:
        shape = (tuple(body), head)
        if shape in self.shapes or head in body or head in self.not_concluding:
            return None
        if (shape, strict) in self.made:
            return None
        self.made.add((shape, strict))
        made = Rule(self._name(), tuple(body), head, strict=strict)
        self.directives[made] = None
        return made

    def prefer_rule(self, stronger: str, weaker: str) -> None:
        if stronger != weaker and (stronger, weaker) not in self.preferred:
            self.preferred.add((stronger, weaker))
            self.directives[RulePreference(stronger, weaker)] = None

    def prefer_premise(self, stronger: Literal, weaker: Literal) -> None:
        if stronger != weaker and (str(stronger), str(weaker)) not in self.preferred:
            self.preferred.add((str(stronger), str(weaker)))
            self.directives[PremisePreference(stronger, weaker)] = None

    def negate_premise(self, premise: Literal) -> Literal | None:
        """`[premise: -p]` for an ordinary premise p written without `-` (None for a negated
        premise, which no addition may undermine, and when -p is already known)."""
        negation = premise.complement
        if premise.negated or negation in self.premises or negation in self.theory.axioms:
            return None
        self.premises.add(negation)
        self.directives[Premise(negation)] = None
        return negation

    def counter(
        self, solution: Solution, literal: Literal, antecedents: Sequence[Literal], strict: bool
    ) -> None:
        """From each antecedent, a rule concluding the negation of `literal`, preferred to
        every defeasible rule of the arguments for `literal` (and, from an ordinary premise,
        that premise to each of their ordinary premises); with `strict`, a strict twin too."""
        met = support(solution, literal)
        for antecedent in antecedents:
            made = self.rule([antecedent], literal.complement)
            if strict:
                self.rule([antecedent], literal.complement, strict=True)
            if made is None:
                continue
            for rule in sorted(met.rules):
                self.prefer_rule(made.name, rule)
            if antecedent in self.theory.premises:
                for premise in sorted(met.premises, key=str):
                    self.prefer_premise(antecedent, premise)

    def attacks_on(
        self, solution: Solution, literal: Literal, antecedents: Sequence[Literal], strict: bool
    ) -> None:
        """Candidates that attack the support of `literal`: a counter (see `counter`) to each
        defeasible conclusion of its arguments, a rule undercutting each defeasible rule from
        each antecedent, and for each ordinary premise its negation as a premise, preferred to
        it. With `strict`, strict twins of the new rules."""
        found = support(solution, literal)
        for conclusion in sorted(found.rebuttable, key=str):
            self.counter(solution, conclusion, antecedents, strict)
        for rule in sorted(found.rules):
            for antecedent in antecedents:
                self.rule([antecedent], Literal(rule, True))
                if strict:
                    self.rule([antecedent], Literal(rule, True), strict=True)
        for premise in sorted(found.premises, key=str):
            negation = self.negate_premise(premise)
            if negation is not None:
                self.prefer_premise(negation, premise)

    def conflicts(self, solution: Solution, literal: Literal, support_wins: bool) -> None:
        """Preferences deciding the symmetric conflicts (rebuts and undermines) on the
        support of `literal`: each element of the attacked sub-argument over each element of
        the attacker (`support_wins`), or the other way round."""
        inside = support_arguments(solution, literal)
        for attack in solution.direct_attacks:
            if attack.on in inside and attack.kind != "undercut":
                if support_wins:
                    self.order(solution, attack.on, attack.attacker)
                else:
                    self.order(solution, attack.attacker, attack.on)

    def order(self, solution: Solution, stronger: str, weaker: str) -> None:
        """Preferences putting each element of argument `stronger` over each of `weaker`."""
        high, low = _parts(solution, [stronger]), _parts(solution, [weaker])
        for first in sorted(high.rules):
            for second in sorted(low.rules):
                self.prefer_rule(first, second)
        for first in sorted(high.premises, key=str):
            for second in sorted(low.premises, key=str):
                self.prefer_premise(first, second)

    def listing(self) -> list[Directive]:
        return list(self.directives)


def support_arguments(solution: Solution, literal: Literal) -> set[str]:
    """The arguments for `literal` and all their sub-arguments, by name."""
    return {
        sub
        for argument in solution.arguments_for(literal)
        for sub in solution.subarguments(argument.name)
    }


# Theories --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """One curriculum level of a constructive task: the smallest minimum it accepts and the
    material placed around its structure."""

    least: int  # fewest directives an instance may need (smaller minima are rejected)
    strict_decoys: int  # defeasible-then-strict chains apart from the structure
    contested: int  # premise pairs p, -p with -p preferred


@dataclass(frozen=True)
class SourcedPlan(Plan):
    antecedents: int  # premises and axioms the candidate space builds new rules from


#: Route kinds (ArgGYM's chain configurations): whether each step is strict, given the
#: route's depth. Kinds named `axiom_...` start from an axiom, the others from a premise.
ROUTE_KINDS = {
    "open": lambda depth: [False] * depth,
    "strict_last": lambda depth: [False] * (depth - 1) + [True],
    "axiom_strict_last": lambda depth: [False] * (depth - 1) + [True],
    "scarce": lambda depth: [index % 2 == 1 or index == depth - 1 for index in range(depth)],
    "one_open": lambda depth: [False] + [True] * (depth - 1),
    "strict_mid": lambda depth: [index == depth // 2 for index in range(depth)],
}


@dataclass(frozen=True)
class RoutedPlan(SourcedPlan):
    routes: tuple[str, ...]  # the kinds of the target's independent routes
    depth: int  # rules on a route
    junctions: int  # route steps that also take a branch (over all routes)
    rivals: int  # route steps with a rival that the link principle decides


def spread(total: int, parts: int) -> list[int]:
    """`total` shared among `parts` as evenly as possible, the first parts taking more."""
    return [total // parts + (index < total % parts) for index in range(parts)]


def routed_theory(rng: random.Random, plan: RoutedPlan) -> tuple[Builder, Literal, list[Chain]]:
    """A target derived along the plan's routes (in random order), junctions spread over
    them, and rivals on defeasible steps between the first and the last of some of them; the
    first rival is also preferred to its route's first step and its premise to the route's
    root (where that step is defeasible and the root an ordinary premise), so that it wins
    under weakest-link elitist (`Builder.rival`)."""
    builder = Builder(rng)
    target = builder.atom(False)
    kinds = list(plan.routes)
    rng.shuffle(kinds)
    chains = [
        builder.chain(
            ROUTE_KINDS[kind](plan.depth),
            goal=target,
            junctions=share,
            axiom=kind.startswith("axiom"),
        )
        for kind, share in zip(kinds, spread(plan.junctions, len(kinds)), strict=True)
    ]
    steps = [(chain, rule) for chain in chains for rule in chain.steps[1:-1] if not rule.strict]
    rng.shuffle(steps)
    steps.sort(key=lambda step: not _rooted(step[0]))
    for index, (chain, rule) in enumerate(steps[: plan.rivals]):
        builder.rival(rule, chain if index == 0 and _rooted(chain) else None)
    return builder, target, chains


def _rooted(chain: Chain) -> bool:
    """Whether a chain starts from an ordinary premise with a defeasible step."""
    return chain.premises[:1] == [chain.root] and not chain.steps[0].strict


def finished(
    builder: Builder, plan: Plan, level: int, targets: Sequence[Literal], **params: Any
) -> Candidate:
    """The candidate theory: the builder's structure with the plan's decoys and contested
    premises, the language's other forms (`Builder.enrichment`) and a spare source premise,
    premises and rules each in random order."""
    for _ in range(plan.strict_decoys):
        builder.strict_decoy()
    for _ in range(plan.contested):
        builder.contested_premise()
    builder.enrichment()
    builder.base(builder.atom(), axiom_share=0.5)
    directives = list(builder.directives)
    builder.rng.shuffle(directives)
    return Candidate(
        Theory.from_directives(directives),
        {"targets": [str(t) for t in targets], "level": level, **params},
    )


# The task base class ---------------------------------------------------------------------


def text_map(mapping: dict[Literal, str]) -> dict[str, str]:
    return {
        str(literal): value for literal, value in sorted(mapping.items(), key=lambda i: str(i[0]))
    }


def intervention_target(
    solution: Solution,
    goals: dict[Literal, str],
    space: Sequence[Directive],
    minimum: Minimum,
    language: Sequence[str],
) -> dict[str, Any]:
    """The stored target: goals and their statuses before the intervention, the support
    sub-goals of each overruled goal (for partial credit), the candidate space and its
    verified minimum, and a witness of that size."""
    subgoals = {}
    for literal, status in goals.items():
        if status == "overruled":
            found = support(solution, literal).conclusions - {literal}
            found -= set(solution.theory.axioms)
            subgoals[str(literal)] = text_map({sub: solution.status(sub) for sub in found})
    return {
        "goals": text_map(goals),
        "initial": text_map({literal: solution.status(literal) for literal in goals}),
        "subgoals": subgoals,
        "language": list(language),
        "min_directives": minimum.size,
        "witness": [str(directive) for directive in minimum.witness],
        "candidate_space": [str(directive) for directive in space],
        "candidate_space_size": len(space),
    }


class InterventionTask(Task):
    """A constructive task: `goals` and `space` over the solved base theory; the gate query
    `<name>.lp` sees `target(L)` facts for the claims in `params["targets"]`."""

    #: The kinds of directive (keys of FORMS) an answer may add.
    language: ClassVar[tuple[str, ...]] = ATTACKING

    @abstractmethod
    def plan(self, level: int) -> Plan:
        """The curriculum of a level."""

    @abstractmethod
    def space(self, candidate: Candidate, solution: Solution) -> list[Directive]:
        """The declared candidate space."""

    @abstractmethod
    def goals(
        self, candidate: Candidate, solution: Solution, space: Sequence[Directive]
    ) -> dict[Literal, str] | None:
        """The requested statuses (None to reject the candidate)."""

    def parameters(self, level: int) -> dict[str, Any]:
        return knobs(self.plan(level))

    def targets(self, candidate: Candidate) -> list[Literal]:
        """The target claims the generator chose."""
        return [Literal.parse(text) for text in candidate.params.get("targets", [])]

    def antecedents(
        self, candidate: Candidate, solution: Solution, avoid: Iterable[Literal]
    ) -> list[Literal]:
        """The sources new candidate rules start from (the level's `antecedents` of them)."""
        plan = self.plan(candidate.params["level"])
        assert isinstance(plan, SourcedPlan)
        return sources(solution, avoid, plan.antecedents)

    def gate_program(self, candidate: Candidate) -> str:
        facts = "".join(f"target({literal_term(target)}).\n" for target in self.targets(candidate))
        return facts + self.program

    def minimum(
        self,
        candidate: Candidate,
        goals: dict[Literal, str],
        space: Sequence[Directive],
        ordering: Ordering,
    ) -> Minimum | None:
        """The verified minimum, or None when none exists, it is below the level's `least`
        curriculum parameter (at least 1: the goals must not already hold) or the search
        passed a count limit of SEARCH_LIMITS (a machine limit is raised)."""
        try:
            found = fewest_additions(
                candidate.theory, space, goals, ordering=ordering, limits=SEARCH_LIMITS
            )
        except MachineLimitExceeded:
            raise
        except LimitExceeded:
            return None
        least = max(1, self.plan(candidate.params["level"]).least)
        return found if found is not None and found.size >= least else None

    def target(self, candidate: Candidate, result: QueryResult, ordering: Ordering) -> Any:
        solution = result.solution
        space = self.space(candidate, solution)
        goals = self.goals(candidate, solution, space)
        if not goals:
            return None
        found = self.minimum(candidate, goals, space, ordering)
        if found is None:
            return None
        return intervention_target(solution, goals, space, found, self.language)

    def prompt(self, candidate: Candidate, target: Any, ordering: Ordering) -> str:
        forms = "\n".join(f"  {FORMS[kind]}" for kind in target["language"])
        return "\n\n".join(
            [
                theory_block(candidate.theory, ordering),
                objective(target),
                "Permitted additions, written exactly in these forms:\n" + forms,
                _RULES_OF_THE_GAME,
                answer_request("one directive per line."),
            ]
        )

    def reference(self, target: Any) -> str:
        return "\n".join(target["witness"])

    def score_answer(self, instance: Instance, answer: str) -> Score:
        return score_intervention(instance, answer)

    def score_answers(self, instance: Instance, answers: Sequence[str]) -> list[Score]:
        return score_interventions(instance, answers)

    def score_groups(self, groups: Sequence[tuple[Instance, Sequence[str]]]) -> list[list[Score]]:
        return score_intervention_groups(groups)


def objective(target: dict[str, Any]) -> str:
    """What the intervention must achieve: each goal with its status before."""
    now = ", ".join(f"{claim} is {status}" for claim, status in target["initial"].items())
    wanted = [
        f"{claim} {'stays' if target['initial'][claim] == status else 'becomes'} {status}"
        for claim, status in target["goals"].items()
    ]
    return (
        f"Currently {now}. What is the minimal set of directives to add so that"
        f" {_conjunction(wanted)}?"
    )


def _conjunction(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


_RULES_OF_THE_GAME = (
    "Only the permitted additions are applied; anything else is rejected but still counts"
    " toward the size of the answer. A new rule's name must not be used by a rule of the"
    " theory, an earlier line of the answer, or an atom of the theory or of the answer (an"
    " atom is a name without its leading -). Rule antecedents must be literals already present"
    " in the theory (or negations of ordinary premises the answer adds). A rule name in a"
    " consequent, written -<name>, switches that rule off. A preference may name a rule or"
    " premise the answer adds. The answer must be minimal: one using more than twice the"
    " fewest directives that work scores zero. A directive that cannot be read at all scores"
    " the whole answer zero. An answer that reaches every goal while leaving the theory"
    " inconsistent (some literal and its negation both justified) also scores zero."
)


# Scoring ---------------------------------------------------------------------------------


def score_intervention(instance: Instance, answer: str) -> Score:
    """ArgGYM's execution-based scorer (Appendix B) of one answer: see `score_interventions`."""
    return score_interventions(instance, [answer])[0]


#: What an answer's theory is made of: the instance's theory text and the set of directives
#: the answer adds. Theories made of the same directives in another order have the same
#: statuses, so they are solved once.
_TheoryKey = tuple[str, frozenset[Directive]]


@dataclass(frozen=True)
class _Executable:
    """A readable answer of acceptable size: the theory it makes (the instance's theory, its
    text `base`, with the directives `added`), to be solved."""

    theory: Theory
    size: int
    note: str
    base: str
    added: frozenset[Directive]

    @property
    def key(self) -> _TheoryKey:
        return self.base, self.added


def score_interventions(instance: Instance, answers: Sequence[str]) -> list[Score]:
    """ArgGYM's execution-based scorer (Appendix B). Success: 0.5 + 0.5·min(1, m/n). A
    consistent failure: 0.25 × the average progress over the goals. Zero for unreadable
    answers, answers of more than 2m directives, and inconsistent results. The theories the
    answers make are solved together (identical ones once), each within the scoring limits."""
    return score_intervention_groups([(instance, answers)])[0]


def score_intervention_groups(
    groups: Sequence[tuple[Instance, Sequence[str]]],
) -> list[list[Score]]:
    """`score_interventions` of several groups (instances and their answers), the theories
    of all answers solved together: in batches per ordering, theories with the same
    directives (in any order: the statuses do not depend on it) once."""
    prepared = [
        [_executable(instance, answer) for answer in answers] for instance, answers in groups
    ]
    wanted: dict[Ordering, dict[_TheoryKey, Theory]] = {}
    for (instance, _), items in zip(groups, prepared, strict=True):
        theories = wanted.setdefault(instance.strength, {})
        for p in items:
            if isinstance(p, _Executable):
                theories.setdefault(p.key, p.theory)
    solved: dict[tuple[Ordering, _TheoryKey], Solution | LimitExceeded] = {}
    for ordering, theories in wanted.items():
        found = solve_many(list(theories.values()), ordering=ordering, limits=SCORING_LIMITS)
        solved.update(zip(((ordering, key) for key in theories), found, strict=True))
    return [
        [
            _executed(instance, p, solved[instance.strength, p.key])
            if isinstance(p, _Executable)
            else p
            for p in items
        ]
        for (instance, _), items in zip(groups, prepared, strict=True)
    ]


def _executable(instance: Instance, answer: str) -> Score | _Executable:
    """The theory an answer makes, or its Score when it scores zero without solving."""
    if len(answer) > MAX_ANSWER_CHARS:
        return Score(0.0, False, f"answer longer than {MAX_ANSWER_CHARS:,} characters")
    try:
        directives = parse_intervention(answer, "<answer>")
    except ArgcError as error:
        return Score(0.0, False, f"unreadable directive: {error}")
    n, m = len(directives), instance.target["min_directives"]
    if n == 0:
        return Score(0.0, False, "no directives")
    if n > 2 * m:
        return Score(0.0, False, f"{n} directives: more than twice the minimum {m}")
    base = instance.parsed_theory
    legal, rejected = legal_part(directives, base, instance.target["language"])
    note = f"; rejected {len(rejected)}: {'; '.join(rejected)}" if rejected else ""
    return _Executable(base.apply(legal), n, note, instance.theory, frozenset(legal))


def _executed(instance: Instance, answer: _Executable, solution: Solution | ArgcError) -> Score:
    """The score of an executed answer from its solution (or the limit it hit)."""
    target, note, n = instance.target, answer.note, answer.size
    m = target["min_directives"]
    if isinstance(solution, ArgcError):
        return Score(0.0, False, f"cannot execute the intervention: {solution}{note}")
    if not solution.consistent:
        return Score(0.0, False, f"the resulting theory is inconsistent{note}")
    goals = {Literal.parse(claim): status for claim, status in target["goals"].items()}
    missed = [f"{g} is {solution.status(g)}" for g, s in goals.items() if solution.status(g) != s]
    if not missed:
        native = 0.5 + 0.5 * min(1.0, m / n)
        return Score(native, True, f"every goal reached with {n} directives (minimum {m}){note}")
    progress = goal_progress(target, solution)
    return Score(0.25 * progress, False, f"goals missed: {', '.join(missed)}{note}")


def goal_progress(target: dict[str, Any], solution: Solution) -> float:
    """Average progress over the goals (Appendix B): 1 for a reached goal; 0.4 for moving a
    justified/overruled goal to undecided from another status; for an overruled goal,
    alternatively 0.3u with u the share of relevant support sub-goals now overruled. A goal
    already satisfied before counts only if broken (as 0)."""
    values = []
    for claim, wanted in target["goals"].items():
        before, after = target["initial"][claim], solution.status(Literal.parse(claim))
        if before == wanted:
            if after != wanted:
                values.append(0.0)
            continue
        if after == wanted:
            values.append(1.0)
            continue
        credit = 0.0
        if after == "undecided" and before != "undecided" and wanted != "undecided":
            credit = 0.4
        if wanted == "overruled":
            credit = max(credit, 0.3 * _defeated_share(target["subgoals"].get(claim, {}), solution))
        values.append(credit)
    return sum(values) / len(values) if values else 0.0


def _defeated_share(subgoals: dict[str, str], solution: Solution) -> float:
    """The share of relevant sub-goals (justified before, or changed) now overruled."""
    relevant = [
        (before, solution.status(Literal.parse(claim))) for claim, before in subgoals.items()
    ]
    relevant = [
        (before, after) for before, after in relevant if before == "justified" or after != before
    ]
    if not relevant:
        return 0.0
    return sum(after == "overruled" for _, after in relevant) / len(relevant)
