"""Sentence-template pools for the formalization task: each directive of a theory is realized
as one sentence, in a technical or a paraphrastic register, with the template and the wording
of negations chosen by the generator's random source.

Every template of a pool expresses the same argumentation-theoretic distinction, and the
registers keep the distinctions apart with their own cue words: ordinary premises can be
*challenged* or *disputed*, axioms are *beyond dispute*; defeasible rules hold *presumably*,
*normally* or *usually* and are called *considerations*, strict rules hold *necessarily* or
*without exception* and are called *principles*; an undercutter says that a rule *does not
apply*; preferences say which rule or premise is *preferred*, *stronger* or *more reliable*.
Atom and rule names are written as they are: they are never capitalized or inflected.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from argc.dsl.ir import (
    Axiom,
    Directive,
    Literal,
    Premise,
    PremisePreference,
    Rule,
    RulePreference,
)

TECHNICAL, PARAPHRASTIC = "technical", "paraphrastic"


@dataclass(frozen=True)
class Template:
    """A sentence pattern; `key` names it in instance metadata (pool, register, number)."""

    key: str
    text: str


def _pool(kind: str, register: str, *texts: str) -> tuple[Template, ...]:
    return tuple(
        Template(f"{kind}.{register[0]}{number}", text) for number, text in enumerate(texts, 1)
    )


# Slots: {lit} a literal; {name} a rule name; {body} the antecedents; {head} the consequent;
# {target} the rule an undercutter disables; {stronger} / {weaker} the ordered items.
POOLS: dict[tuple[str, str], tuple[Template, ...]] = {
    ("premise", TECHNICAL): _pool(
        "premise",
        TECHNICAL,
        "{lit} is an ordinary premise.",
        "The knowledge base contains the ordinary premise {lit}.",
        "There is an ordinary premise: {lit}.",
    ),
    ("premise", PARAPHRASTIC): _pool(
        "premise",
        PARAPHRASTIC,
        "We assume that {lit}, although this assumption can be challenged.",
        "It is taken for granted, but open to dispute, that {lit}.",
        "As a working assumption that others may contest, {lit}.",
    ),
    ("axiom", TECHNICAL): _pool(
        "axiom",
        TECHNICAL,
        "{lit} is an axiom.",
        "The knowledge base contains the axiom {lit}.",
        "There is an axiom (a premise that cannot be attacked): {lit}.",
    ),
    ("axiom", PARAPHRASTIC): _pool(
        "axiom",
        PARAPHRASTIC,
        "It is beyond dispute that {lit}.",
        "It is an established fact, which nothing can call into question, that {lit}.",
        "Certainly {lit}; this cannot be challenged.",
    ),
    ("defeasible", TECHNICAL): _pool(
        "defeasible",
        TECHNICAL,
        "There is a defeasible rule {name}: if {body} then presumably {head}.",
        "Defeasible rule {name} concludes {head} from {body}.",
        "Rule {name} is defeasible: from {body} it presumably concludes {head}.",
    ),
    ("defeasible", PARAPHRASTIC): _pool(
        "defeasible",
        PARAPHRASTIC,
        "Normally, whenever {body}, it follows that {head}, unless there is reason to doubt"
        " it; call this consideration {name}.",
        "As a rule of thumb, which we call consideration {name}, if {body}, then usually {head}.",
        "Consideration {name}: that {body} is a good but fallible reason to believe that {head}.",
    ),
    ("strict", TECHNICAL): _pool(
        "strict",
        TECHNICAL,
        "There is a strict rule {name}: if {body} then necessarily {head}.",
        "Strict rule {name} concludes {head} from {body}.",
        "Rule {name} is strict: from {body} it necessarily concludes {head}.",
    ),
    ("strict", PARAPHRASTIC): _pool(
        "strict",
        PARAPHRASTIC,
        "Whenever {body}, it is necessarily the case that {head}, without exception; call"
        " this principle {name}.",
        "Principle {name}: if {body}, then {head}, no matter what.",
        "By principle {name}, which admits no exception, {head} as soon as {body}.",
    ),
    ("undercut", TECHNICAL): _pool(
        "undercut",
        TECHNICAL,
        "There is a defeasible rule {name}: if {body} then presumably rule {target} does not"
        " apply.",
        "Defeasible rule {name} undercuts rule {target} on the basis of {body}.",
        "Rule {target} does not apply when {body}; this exception is the defeasible rule {name}.",
    ),
    ("undercut", PARAPHRASTIC): _pool(
        "undercut",
        PARAPHRASTIC,
        "Normally, when {body}, consideration {target} does not apply; call this exception {name}.",
        "If {body}, that is usually a reason, though not a conclusive one, to set"
        " consideration {target} aside; call this consideration {name}.",
        "Exception {name}: consideration {target} gives no support when {body}, unless there"
        " is reason to doubt the exception.",
    ),
    ("prefer_rule", TECHNICAL): _pool(
        "prefer_rule",
        TECHNICAL,
        "Rule {stronger} is preferred over rule {weaker}.",
        "Rule {weaker} is weaker than rule {stronger}.",
        "In the rule ordering, {stronger} ranks above {weaker}.",
    ),
    ("prefer_rule", PARAPHRASTIC): _pool(
        "prefer_rule",
        PARAPHRASTIC,
        "Where they conflict, consideration {stronger} carries more weight than"
        " consideration {weaker}.",
        "Consideration {weaker} counts for less than consideration {stronger}.",
        "When in doubt, trust consideration {stronger} over consideration {weaker}.",
    ),
    ("prefer_premise", TECHNICAL): _pool(
        "prefer_premise",
        TECHNICAL,
        "The ordinary premise {stronger} is preferred over the ordinary premise {weaker}.",
        "Premise {weaker} is weaker than premise {stronger}.",
        "In the premise ordering, {stronger} ranks above {weaker}.",
    ),
    ("prefer_premise", PARAPHRASTIC): _pool(
        "prefer_premise",
        PARAPHRASTIC,
        "The assumption that {stronger} is more reliable than the assumption that {weaker}.",
        "If in doubt, trust the assumption that {stronger} rather than the assumption that"
        " {weaker}.",
        "The assumption that {weaker} is less reliable than the assumption that {stronger}.",
    ),
}

# Wordings of a literal. Technical: a name (`ab1`, `not ab1`); paraphrastic: a clause
# (`ab1 holds`, `ab1 does not hold`, ...). `it is not the case that` is not used inside a
# conjunction, where its scope would be ambiguous.
TECHNICAL_POSITIVE = ("{atom}",)
TECHNICAL_NEGATIVE = ("not {atom}",)
PARAPHRASTIC_POSITIVE = ("{atom} holds", "{atom} is the case", "{atom} is true")
PARAPHRASTIC_NEGATIVE = ("{atom} does not hold", "{atom} is false")
PARAPHRASTIC_NEGATIVE_ALONE = ("it is not the case that {atom}",)
_OWN_WORDS = ("not ", "it is not ", "rule ", "consideration ")


@dataclass(frozen=True)
class Sentence:
    """A realized directive: its text, the template used and the register."""

    text: str
    template: str
    register: str


class Realizer:
    """Realizes directives as sentences; `paraphrastic` is the chance of that register.

    `defeasible` names the theory's defeasible rules, so that a literal `-r` for such a rule
    is read as an undercutter ("rule r does not apply")."""

    def __init__(self, rng: random.Random, paraphrastic: float, defeasible: frozenset[str]) -> None:
        self.rng = rng
        self.paraphrastic = paraphrastic
        self.defeasible = defeasible

    def literal(self, literal: Literal, register: str, alone: bool = True) -> str:
        if literal.atom in self.defeasible:
            word = "rule" if register == TECHNICAL else "consideration"
            verb = "does not apply" if literal.negated else "applies"
            return f"{word} {literal.atom} {verb}"
        if register == TECHNICAL:
            forms = TECHNICAL_NEGATIVE if literal.negated else TECHNICAL_POSITIVE
        elif literal.negated:
            forms = PARAPHRASTIC_NEGATIVE + (PARAPHRASTIC_NEGATIVE_ALONE if alone else ())
        else:
            forms = PARAPHRASTIC_POSITIVE
        return self.rng.choice(forms).format(atom=literal.atom)

    def body(self, body: tuple[Literal, ...], register: str) -> str:
        parts = [self.literal(item, register, alone=len(body) == 1) for item in body]
        if len(parts) == 1:
            return parts[0]
        return ", ".join(parts[:-1]) + " and " + parts[-1]

    def sentence(self, directive: Directive) -> Sentence:
        register = PARAPHRASTIC if self.rng.random() < self.paraphrastic else TECHNICAL
        kind, slots = self._slots(directive, register)
        template = self.rng.choice(POOLS[(kind, register)])
        text = template.text.format(**slots)
        if text.startswith(_OWN_WORDS):  # a sentence opening with a wording, not a name
            text = text[0].upper() + text[1:]
        return Sentence(text, template.key, register)

    def _slots(self, directive: Directive, register: str) -> tuple[str, dict[str, str]]:
        if isinstance(directive, Premise | Axiom):
            kind = "premise" if isinstance(directive, Premise) else "axiom"
            return kind, {"lit": self.literal(directive.literal, register)}
        if isinstance(directive, Rule):
            head = directive.head
            body = self.body(directive.body, register)
            if not directive.strict and head.negated and head.atom in self.defeasible:
                return "undercut", {"name": directive.name, "body": body, "target": head.atom}
            kind = "strict" if directive.strict else "defeasible"
            return kind, {
                "name": directive.name,
                "body": body,
                "head": self.literal(head, register),
            }
        if isinstance(directive, RulePreference):
            return "prefer_rule", {"stronger": directive.stronger, "weaker": directive.weaker}
        if isinstance(directive, PremisePreference):
            return "prefer_premise", {
                "stronger": self.literal(directive.stronger, register),
                "weaker": self.literal(directive.weaker, register),
            }
        raise ValueError(f"no template for {directive}")
