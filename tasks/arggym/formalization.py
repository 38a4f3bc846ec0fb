"""formalization: write a theory, described in controlled natural language, as directives.

The model reads a description realized sentence by sentence from template pools
(`argc.tasks.arggym.templates`), technical or paraphrastic, together with the statuses a correct
formalization induces on some queried claims, and answers with `.arg` directives. The answer
is solved under the instance's ordering and scored as ArgGYM's Appendix B says:

- B: pair F1 between the statuses the submitted theory induces on the queried claims and the
  specified ones;
- S: F1 between the multisets of directive signatures of the submitted and the reference
  theory; a signature names rules by what they say, not by their names (see `Signer`), so
  renaming rules and reordering directives or antecedents leave it unchanged;
- T: F1 over the type-sensitive decisions (axioms and strict rules), when the reference has
  any: recall over the reference's, precision over the submission's;
- native 0.4B + 0.6S, or 0.25B + 0.35S + 0.40T with type-sensitive decisions;
- success: behavioural equivalence: every literal the reference theory names (both
  polarities of each atom of its premises, axioms and rules) has the same grounded status in
  the submitted theory. A literal `-r` that undercuts a reference rule `r` is compared with
  `-r'` for the submitted rule `r'` with the same signature, so renamed rules succeed too.

Success is behavioural only, so a theory that merely reproduces the statuses (axioms for the
justified literals, rules that cancel each other for the undecided ones) succeeds with S near
0. The score therefore also carries S (`FormalizationScore.structure`), which training rewards
may require beyond success (`argc.train.rewards`); the benchmark's success is unchanged.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from argc.compiler import LimitExceeded, QueryResult, Solution, solve
from argc.dsl.errors import ArgcError
from argc.dsl.ir import (
    Axiom,
    Contradictory,
    Contrary,
    Directive,
    Literal,
    Ordering,
    OrderingHeader,
    Premise,
    PremisePreference,
    QueryHeader,
    Rule,
    RulePreference,
    SemanticsHeader,
    Theory,
)
from argc.dsl.parser import parse_directives, parse_theory
from argc.tasks.answers import MAX_ANSWER_CHARS, pair_f1
from argc.tasks.arggym.symbols import literal_of
from argc.tasks.arggym.templates import PARAPHRASTIC, Realizer
from argc.tasks.builder import Builder
from argc.tasks.framework import (
    SCORING_LIMITS,
    Candidate,
    Instance,
    Score,
    Task,
    knobs,
    register,
)
from argc.tasks.prompts import LEGEND, answer_request, claim_list

#: Most directives a submitted theory may have; longer answers score 0.
MAX_DIRECTIVES = 200
#: Limits for solving a submitted theory; hitting them scores 0.
THEORY_LIMITS = replace(SCORING_LIMITS, seconds=5.0)

_HEADERS = (OrderingHeader, SemanticsHeader, QueryHeader)


# Curriculum --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Curriculum:
    """The knobs of one level: the theory's structure, the description's register and order,
    the queried claims, and the features the gate requires."""

    goals: int  # support derivations
    depth: int  # rules per derivation
    branching: int  # two-antecedent rules per derivation
    strict_share: float  # chance that a derivation step is strict
    axiom_share: float  # chance that a base premise is an axiom
    rebuts: int  # defeasible rules concluding the negation of a derivation step
    undercuts: int  # defeasible rules saying that a derivation step does not apply
    undermines: int  # ordinary premises contradicting a premise
    defenders: int  # rebuts or undercuts of attacking rules
    firm: int  # axiom + strict rule contradicting a defeasible step
    contested: int  # pairs of defeasible rules with opposite heads
    rule_preferences: int  # preferences deciding a rebut or contested pair
    premise_preferences: int  # preferences deciding an undermine
    distractors: int  # unrelated short derivations
    isolated: int  # unrelated premises
    paraphrastic: float  # chance that a sentence uses a paraphrastic template
    interleave: bool  # sentences in any order (otherwise knowledge, rules, preferences)
    queries: int  # queried claims with their required statuses
    min_rules: int  # gate: at least this many rules
    needs: tuple[str, ...] = field(default=())  # gate: features that must be present


def curriculum(level: int) -> Curriculum:
    """Level 1 is one conflict over a one-step derivation, told technically; the levels add
    deeper and branching derivations, strict rules, axioms, undermining, undercutters,
    defenders, rule and premise preferences that decide conflicts, strict-and-firm
    attackers, several goals and distractors, with a rising share of paraphrase."""
    needs = [
        feature
        for feature, first in (
            ("undermine", 2),
            ("strict", 3),
            ("axiom", 4),
            ("undercut", 5),
            ("rule_preference", 6),
            ("premise_preference", 7),
            ("decisive_preference", 8),
        )
        if level >= first
    ]
    return Curriculum(
        goals=1 + (level >= 10) + (level >= 15),
        depth=1 + level // 5,
        branching=level // 6,
        strict_share=0.0 if level < 3 else round(min(0.1 + 0.02 * level, 0.4), 2),
        axiom_share=0.0 if level < 4 else 0.15,
        rebuts=1 + level // 10,
        undercuts=0 if level < 5 else 1 + level // 13,
        undermines=0 if level < 2 else 1 + level // 11,
        defenders=level // 7,
        firm=int(level >= 10),
        contested=int(level >= 3) + int(level >= 12),
        rule_preferences=0 if level < 6 else 1 + level // 11,
        premise_preferences=0 if level < 7 else 1 + level // 13,
        distractors=level // 8,
        isolated=(level >= 2) + level // 7,
        paraphrastic=round(min(0.05 * (level + 1), 0.8), 2),
        interleave=level >= 10,
        queries=4 + level // 3,
        min_rules=2 + level // 3,
        needs=tuple(needs),
    )


# Generation --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Described(Candidate):
    """A candidate with its natural-language description, one sentence per directive."""

    description: tuple[str, ...] = ()
    gate: str = ""  # the level's gate facts: need/1, min_rules/1


class _Composer:
    """Builds a reference theory with the structures a level asks for."""

    def __init__(self, rng: random.Random, knobs: Curriculum) -> None:
        self.rng = rng
        self.knobs = knobs
        self.b = Builder(rng)
        self.rebut_pairs: list[tuple[Rule, Rule]] = []
        self.undermined: list[Literal] = []

    def attack(self, kind: str, rules: Sequence[Rule]) -> Rule | Literal:
        """A rebut, undercut or undermine on one of `rules` (an undermine when none of them
        is defeasible); returns the attacking rule or premise."""
        b, knobs = self.b, self.knobs
        defeasible = [rule for rule in rules if not rule.strict]
        if not defeasible:
            kind = "undermine"
        if kind == "undermine":
            ordinary = [p for p in b.premises if p.complement not in b.premises]
            target = self.rng.choice(ordinary) if ordinary else b.base(b.atom())
            b.salient += [target, target.complement]
            self.undermined.append(target)
            return b.base(target.complement)
        victim = self.rng.choice(defeasible)
        head = victim.head.complement if kind == "rebut" else Literal(victim.name, True)
        b.salient += [victim.head, head]
        support = b.derivation(
            self.rng.randint(0, 1), strict_share=knobs.strict_share, axiom_share=knobs.axiom_share
        )
        body = [support[-1].head] if support else [b.base(b.atom(), knobs.axiom_share)]
        made = b.rule(body, head)
        if kind == "rebut":
            self.rebut_pairs.append((made, victim))
        return made

    def compose(self) -> Builder:
        b, knobs, rng = self.b, self.knobs, self.rng
        derivations = [
            b.derivation(knobs.depth, knobs.branching, knobs.strict_share, knobs.axiom_share)
            for _ in range(knobs.goals)
        ]
        steps = [rule for derivation in derivations for rule in derivation]
        goals = [derivation[-1].head for derivation in derivations]
        if all(rule.strict for rule in steps):  # rebuts and undercuts need a defeasible step
            extension = b.rule([goals[0]], b.atom())
            steps.append(extension)
            goals.append(extension.head)
        if knobs.strict_share and not any(rule.strict for rule in steps):
            extension = b.rule([goals[0]], b.atom(), strict=True)
            steps.append(extension)
            goals.append(extension.head)
        kinds = (
            ["rebut"] * knobs.rebuts
            + ["undercut"] * knobs.undercuts
            + ["undermine"] * knobs.undermines
        )
        rng.shuffle(kinds)
        attackers = [self.attack(kind, steps) for kind in kinds]
        for _ in range(knobs.defenders):
            rules = [attacker for attacker in attackers if isinstance(attacker, Rule)]
            self.attack(rng.choice(["rebut", "undercut"]), rules or steps)
        for _ in range(knobs.firm):
            defeasible = [rule for rule in steps if not rule.strict]
            if defeasible:
                victim = rng.choice(defeasible)
                anchor = b.base(b.atom(), axiom_share=1.0)
                b.salient += [victim.head, victim.head.complement]
                b.rule([anchor], victim.head.complement, strict=True)
        for _ in range(knobs.contested):
            claim = b.atom(False)
            b.salient += [claim, claim.complement]
            first = b.rule([b.base(b.atom(), knobs.axiom_share)], claim)
            second = b.rule([b.base(b.atom(), knobs.axiom_share)], claim.complement)
            self.rebut_pairs.append((first, second))
        for first, second in rng.sample(
            self.rebut_pairs, min(knobs.rule_preferences, len(self.rebut_pairs))
        ):
            stronger, weaker = (first, second) if rng.random() < 0.5 else (second, first)
            b.prefer_rules(stronger, weaker)
        undermined = sorted(set(self.undermined), key=str)
        for target in rng.sample(undermined, min(knobs.premise_preferences, len(undermined))):
            pair = [target, target.complement]
            rng.shuffle(pair)
            b.prefer_premises(*pair)
        b.salient += goals
        for _ in range(knobs.distractors):
            b.derivation(rng.randint(1, 2), strict_share=knobs.strict_share)
        for _ in range(knobs.isolated):
            b.base(b.atom(), knobs.axiom_share)
        if "axiom" in knobs.needs and not b.axioms:
            self.make_axiom()
        return b

    def make_axiom(self) -> None:
        """Turn an uncontested ordinary premise into an axiom."""
        b = self.b
        free = [p for p in b.premises if p.complement not in b.premises]
        if not free:
            return
        chosen = self.rng.choice(free)
        b.directives[b.directives.index(Premise(chosen))] = Axiom(chosen)
        b.premises.remove(chosen)
        b.axioms.append(chosen)


def _knowledge_rules_preferences(directive: Directive) -> int:
    if isinstance(directive, Axiom | Premise):
        return 0
    return 1 if isinstance(directive, Rule) else 2


# Scoring -----------------------------------------------------------------------------------


class Signer:
    """Rename-invariant signatures of directives, as small integers shared by the theories
    compared in one scoring.

    A literal is signed by its atom and sign, except that a literal whose atom names a
    defeasible rule of its own theory (an undercutter `-r` or an applicability literal `r`)
    is signed by that rule's signature. A rule is signed by its kind, the set of its
    antecedents' signatures and its head's signature; a rule preference by the signatures
    of its two rules; premises, axioms, premise preferences and contraries by their
    literals' (a contradictory declaration by the set of its two literals'). Signatures are
    interned, so nested ones cost no more than flat ones. A rule that reaches itself through
    undercutter literals gets a `cycle` mark at that point.
    """

    def __init__(self) -> None:
        self.table: dict[tuple, int] = {}

    def intern(self, key: tuple) -> int:
        return self.table.setdefault(key, len(self.table))

    def of(self, theory: Theory) -> _TheorySigner:
        return _TheorySigner(self, theory)


class _TheorySigner:
    def __init__(self, signer: Signer, theory: Theory) -> None:
        self.signer = signer
        self.rules = {rule.name: rule for rule in theory.rules}
        self.defeasible = {rule.name for rule in theory.rules if not rule.strict}
        self.memo: dict[str, int] = {}
        self.active: set[str] = set()

    def literal(self, literal: Literal) -> int:
        if literal.atom in self.defeasible:
            return self.signer.intern(("applies", self.rule(literal.atom), literal.negated))
        return self.signer.intern(("atom", literal.atom, literal.negated))

    def rule(self, name: str) -> int:
        if name in self.memo:
            return self.memo[name]
        if name in self.active:
            return self.signer.intern(("cycle",))
        self.active.add(name)
        rule = self.rules[name]
        body = frozenset(self.literal(item) for item in rule.body)
        key = ("rule", rule.strict, body, self.literal(rule.head))
        self.active.discard(name)
        self.memo[name] = self.signer.intern(key)
        return self.memo[name]

    def directive(self, directive: Directive) -> int | None:
        """A directive's signature; None for header directives, which are not compared."""
        if isinstance(directive, Premise):
            return self.signer.intern(("premise", self.literal(directive.literal)))
        if isinstance(directive, Axiom):
            return self.signer.intern(("axiom", self.literal(directive.literal)))
        if isinstance(directive, Rule):
            return self.rule(directive.name)
        if isinstance(directive, RulePreference):
            stronger, weaker = self.rule(directive.stronger), self.rule(directive.weaker)
            return self.signer.intern(("prefer_rule", stronger, weaker))
        if isinstance(directive, PremisePreference):
            stronger, weaker = self.literal(directive.stronger), self.literal(directive.weaker)
            return self.signer.intern(("prefer_premise", stronger, weaker))
        if isinstance(directive, Contrary):
            attacker, attacked = self.literal(directive.attacker), self.literal(directive.attacked)
            return self.signer.intern(("contrary", attacker, attacked))
        if isinstance(directive, Contradictory):
            pair = frozenset((self.literal(directive.first), self.literal(directive.second)))
            return self.signer.intern(("contradictory", pair))
        return None

    def directives(self, directives: Iterable[Directive]) -> Counter[int]:
        found = (self.directive(directive) for directive in directives)
        return Counter(signature for signature in found if signature is not None)

    def decisions(self, directives: Iterable[Directive]) -> Counter[int]:
        """Signatures of the type-sensitive directives: axioms and strict rules."""
        return self.directives(
            d for d in directives if isinstance(d, Axiom) or (isinstance(d, Rule) and d.strict)
        )


def multiset_f1(predicted: Counter, gold: Counter) -> float:
    """F1 of two multisets: true positives are the common elements counted with multiplicity;
    two empty multisets agree fully, an empty one against a non-empty one scores 0."""
    if not predicted and not gold:
        return 1.0
    common = sum((predicted & gold).values())
    if common == 0:
        return 0.0
    precision, recall = common / sum(predicted.values()), common / sum(gold.values())
    return 2 * precision * recall / (precision + recall)


def rule_correspondence(
    reference: Theory, submitted: Theory, signer: Signer | None = None
) -> dict[str, str]:
    """For each defeasible reference rule, the submitted defeasible rule with the same
    signature (the first by name when several have it); rules without a twin are left out."""
    signer = signer or Signer()
    ours, theirs = signer.of(reference), signer.of(submitted)
    available: dict[int, list[str]] = {}
    for rule in sorted(submitted.defeasible_rules, key=lambda r: r.name):
        available.setdefault(theirs.rule(rule.name), []).append(rule.name)
    found = {}
    for rule in sorted(reference.defeasible_rules, key=lambda r: r.name):
        twins = available.get(ours.rule(rule.name))
        if twins:
            found[rule.name] = twins.pop(0)
    return found


def behaviour_differences(
    statuses: dict[str, str], solution: Solution, correspondence: dict[str, str]
) -> list[tuple[str, str, str]]:
    """(literal, reference status, submitted status) for every literal whose grounded status
    differs; a literal on a reference rule's name is read on its submitted twin's name."""
    differences = []
    for text, expected in sorted(statuses.items()):
        literal = Literal.parse(text)
        twin = correspondence.get(literal.atom, literal.atom)
        found = solution.status(Literal(twin, literal.negated))
        if found != expected:
            differences.append((text, expected, found))
    return differences


_FENCE = re.compile(r"^\s*```")
_BULLET = re.compile(r"^(\s*)(?:[-*•+]|\d+[.)])\s+(?=\[)")


def clean_answer(answer: str) -> str:
    """Blank out Markdown code fences, drop list bullets before directives and leading blank
    lines; keep the rest as is (error positions count from the first non-blank line)."""
    lines = ["" if _FENCE.match(line) else _BULLET.sub(r"\1", line) for line in answer.split("\n")]
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(lines)


@dataclass(frozen=True)
class Comparison:
    """The parts of a formalization's score."""

    behaviour: float  # B
    structure: float  # S
    types: float | None  # T, None when the reference has no axiom or strict rule
    differences: list[tuple[str, str, str]]
    literals: int

    @property
    def native(self) -> float:
        if self.types is None:
            return 0.4 * self.behaviour + 0.6 * self.structure
        return 0.25 * self.behaviour + 0.35 * self.structure + 0.40 * self.types

    @property
    def success(self) -> bool:
        return not self.differences


def compare(
    reference: Theory,
    target: dict[str, Any],
    submitted: Theory,
    directives: Sequence[Directive],
    solution: Solution,
) -> Comparison:
    """Score a solved submission (`directives` as written, duplicates included) against the
    reference theory and its target."""
    signer = Signer()
    ours, theirs = signer.of(reference), signer.of(submitted)
    reference_directives = list(reference.directives())
    structure = multiset_f1(theirs.directives(directives), ours.directives(reference_directives))
    gold_decisions = ours.decisions(reference_directives)
    types = multiset_f1(theirs.decisions(directives), gold_decisions) if gold_decisions else None
    claims = {Literal.parse(claim): status for claim, status in target["claims"].items()}
    behaviour, _ = pair_f1(((claim, solution.status(claim)) for claim in claims), claims)
    correspondence = rule_correspondence(reference, submitted, signer)
    differences = behaviour_differences(target["statuses"], solution, correspondence)
    return Comparison(behaviour, structure, types, differences, len(target["statuses"]))


# The task ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class FormalizationScore(Score):
    """A formalization's score with its structural agreement S (rounded like `native`)."""

    structure: float


@register
class Formalization(Task):
    name = "formalization"

    def parameters(self, level: int) -> dict[str, Any]:
        return knobs(curriculum(level))

    def candidate(self, rng: random.Random, level: int) -> Candidate:
        knobs = curriculum(level)
        b = _Composer(rng, knobs).compose()
        theory = b.theory()
        rule_names = {rule.name for rule in theory.rules}
        salient = sorted(
            {literal for literal in b.salient if literal.atom not in rule_names}, key=str
        )
        others = sorted(
            {
                literal
                for literal in (*theory.premises, *theory.axioms, *(r.head for r in theory.rules))
                if literal.atom not in rule_names
            }
            - set(salient),
            key=str,
        )
        wanted = knobs.queries
        queried = rng.sample(salient, min(wanted - wanted // 3, len(salient)))
        queried += rng.sample(others, min(wanted - len(queried), len(others)))
        rng.shuffle(queried)
        directives = list(theory.directives())
        rng.shuffle(directives)
        if not knobs.interleave:
            directives.sort(key=_knowledge_rules_preferences)
        realizer = Realizer(
            rng, knobs.paraphrastic, frozenset(rule.name for rule in theory.defeasible_rules)
        )
        sentences = [realizer.sentence(directive) for directive in directives]
        paraphrastic = sum(sentence.register == PARAPHRASTIC for sentence in sentences)
        return Described(
            theory=b.theory([QueryHeader(tuple(queried))]),
            params={
                "queried": [str(claim) for claim in queried],
                "sentences": len(sentences),
                "paraphrastic": paraphrastic,
                "templates": [sentence.template for sentence in sentences],
            },
            description=tuple(sentence.text for sentence in sentences),
            gate="".join(f"need({feature}).\n" for feature in knobs.needs)
            + f"min_rules({knobs.min_rules}).\n",
        )

    def gate_program(self, candidate: Candidate) -> str:
        gate = candidate.gate if isinstance(candidate, Described) else ""
        return gate + self.program

    def target(self, candidate: Candidate, result: QueryResult, ordering: Ordering) -> Any:
        statuses = {
            str(literal_of(symbol.arguments[0])): symbol.arguments[1].name
            for symbol in result.shown
        }
        reference = candidate.theory.without_header()
        signer = Signer().of(reference)
        signatures = [signer.rule(rule.name) for rule in reference.rules]
        if len(set(signatures)) != len(signatures):
            return None  # two rules say the same: renaming could not tell them apart
        return {
            "claims": {str(claim): statuses[str(claim)] for claim in candidate.theory.queries},
            "statuses": dict(sorted(statuses.items())),
            "directives": [str(directive) for directive in reference.directives()],
        }

    def prompt(self, candidate: Candidate, target: Any, ordering: Ordering) -> str:
        assert isinstance(candidate, Described)
        required = "\n".join(f"{claim}: {status}" for claim, status in target["claims"].items())
        return "\n\n".join(
            [
                "The following text describes a defeasible argumentation theory (ASPIC+)."
                " Translate it into directives. The theory is evaluated under grounded"
                f" semantics with the {ordering.principle} {ordering.set_comparison} strength"
                " ordering.",
                "Description:\n" + "\n".join(candidate.description),
                "How to read the description: an ordinary premise can be challenged, an axiom"
                " cannot; a defeasible rule (a consideration, which holds presumably, normally"
                " or usually) can be attacked, a strict rule (a principle, which holds"
                " necessarily or without exception) cannot. 'not x', 'x does not hold', 'x is"
                " false' and 'it is not the case that x' all state the literal -x; 'rule r"
                " does not apply' (or 'consideration r does not apply', 'set r aside', 'r gives"
                " no support') states -r, the undercutter of rule r. Preferences say which rule"
                " or ordinary premise is the stronger one.",
                "A correct formalization gives these grounded statuses to the following claims"
                f" ({claim_list(Literal.parse(c) for c in target['claims'])}):\n{required}\n"
                "A claim is justified when some argument for it is in the grounded extension,"
                " overruled when every argument for it is defeated by the grounded extension"
                " (or it has no argument), and undecided otherwise.",
                "Write the theory in these directives:\n" + LEGEND.split("\n", 1)[1] + "\n"
                "Use the atom names exactly as the description writes them. Name each rule"
                " once (the names in the description are a good choice) and refer to rules by"
                " those names in preferences and undercutters. Header directives ([ordering:"
                " ...], [semantics: ...], [query: ...]) are not needed and are ignored.",
                answer_request(
                    f"the theory's directives, one per line (at most {MAX_DIRECTIVES}), e.g."
                    " [premise: ab1] or [defeasible r1: ab1 AND -cd2 => ef3]."
                ),
            ]
        )

    def reference(self, target: Any) -> str:
        return "\n".join(target["directives"])

    def score_answer(self, instance: Instance, answer: str) -> Score:
        if len(answer) > MAX_ANSWER_CHARS:
            return Score(0.0, False, f"answer longer than {MAX_ANSWER_CHARS:,} characters")
        text = clean_answer(answer)
        try:
            written = parse_directives(text, "<answer>")
        except ArgcError as error:
            return Score(0.0, False, f"does not parse: {error}")
        directives = [d for d in written if not isinstance(d, _HEADERS)]
        if not directives:
            return Score(0.0, False, "no directives")
        if len(directives) > MAX_DIRECTIVES:
            return Score(0.0, False, f"{len(directives)} directives; at most {MAX_DIRECTIVES}")
        try:
            submitted = Theory.from_directives(directives, filename="<answer>", source=text)
        except ArgcError as error:
            return Score(0.0, False, f"not a valid theory: {error}")
        try:
            solution = solve(
                submitted,
                ordering=instance.strength,
                semantics="grounded",
                limits=THEORY_LIMITS,
            )
        except LimitExceeded as error:
            return Score(0.0, False, f"submitted theory exceeds the scoring limits: {error}")
        target = instance.target
        reference = parse_theory("\n".join(target["directives"]), "<reference>")
        result = compare(reference, target, submitted, directives, solution)
        parts = f"B {result.behaviour:.3f}, S {result.structure:.3f}"
        if result.types is not None:
            parts += f", T {result.types:.3f}"
        if result.success:
            reason = f"behaviourally equivalent on all {result.literals} literals ({parts})"
        else:
            literal, expected, found = result.differences[0]
            reason = (
                f"differs on {len(result.differences)} of {result.literals} literals, e.g."
                f" {literal} is {found}, not {expected} ({parts})"
            )
        native, structure = round(result.native, 6), round(result.structure, 6)
        return FormalizationScore(native, result.success, reason, structure)
