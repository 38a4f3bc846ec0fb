"""Natural-language rendering of a normative world, from template pools.

The symbolic world stays the source of truth: every statement is rendered, every constant
and rule id verbatim, and nothing else is said. Each statement kind (fact, identity rule,
norm with each label, priority, the question) has several phrasings, and a rendering is laid
out as prose or as lists; the choices come from the `rng` given, so a rendering is
deterministic per rng. Predicates and actions of the vocabulary use their phrases; others
read `p holds of a` and `the action go`.
"""

from __future__ import annotations

import random

from argc.dsl.norms.world import Atom, IdentityRule, Norm, Priority, World, is_variable
from argc.tasks.norms.vocabulary import ACTION_PHRASES, PHRASES

FACT_TEMPLATES = (
    "It is known that {fact}.",
    "The records show that {fact}.",
    "We know that {fact}.",
    "It is the case that {fact}.",
    "Note that {fact}.",
)
IDENTITY_TEMPLATES = (
    "If {body}, then {head}.",
    "Whenever {body}, it follows that {head}.",
    "For all {variables}: if {body}, then {head}.",
    "It always holds that {head} whenever {body}.",
)
NORM_TEMPLATES = (
    "{Rule} {id}: if {body}, then {deontic}.",
    "Under {rule} {id}, if {body}, {deontic}.",
    "{Rule} {id} states that whenever {body}, {deontic}.",
    "According to {rule} {id}, {deontic} whenever {body}.",
)
DEONTIC_TEMPLATES = {
    "permitted": ("{x} may {act}", "{x} is permitted to {act}", "{x} is allowed to {act}"),
    "forbidden": ("{x} must not {act}", "{x} is forbidden to {act}", "{x} is not allowed to {act}"),
    "obligated": ("{x} must {act}", "{x} is obliged to {act}", "{x} is required to {act}"),
}
PRIORITY_TEMPLATES = (
    "{Rule} {stronger} takes precedence over {rule} {weaker}.",
    "{Rule} {stronger} overrides {rule} {weaker}.",
    "Where {rule}s {stronger} and {weaker} conflict, {stronger} prevails.",
    "{Rule} {weaker} yields to {rule} {stronger}.",
    "{Rule} {stronger} has priority over {rule} {weaker}.",
)
QUESTION_TEMPLATES = (
    "Question: may {x} {act}?",
    "Is {x} permitted, forbidden or obliged to {act}?",
    "What do the {rule}s say about whether {x} may {act}?",
    "Question: what is the normative status of {x} wanting to {act}?",
    "Decide whether {x} may, must or must not {act}.",
)
#: What rules are called in one rendering.
RULE_NOUNS = ("rule", "provision", "norm")


def phrase(atom: Atom) -> str:
    """An atom in words: the vocabulary's phrase, or `p holds of a and b`."""
    template = PHRASES.get(atom.predicate)
    arguments = atom.arguments
    if template is not None and len(arguments) == template.count("{x}") + template.count("{y}"):
        return template.format(**dict(zip(("x", "y"), arguments, strict=False)))
    if not arguments:
        return f"{atom.predicate} holds"
    return f"{atom.predicate} holds of {' and '.join(arguments)}"


def action_phrase(action: Atom) -> tuple[str, str]:
    """(subject, verb phrase) of an action: its first argument and the vocabulary's phrase,
    or `the action go` for another action (further arguments in parentheses)."""
    verb = ACTION_PHRASES.get(action.predicate, f"carry out the action {action.predicate}")
    if not action.arguments:
        return "anyone", verb
    subject, *rest = action.arguments
    return subject, verb + (f" ({', '.join(rest)})" if rest else "")


def _conjunction(atoms: tuple[Atom, ...]) -> str:
    words = [phrase(atom) for atom in atoms]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


class _Renderer:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.rule = rng.choice(RULE_NOUNS)

    def pick(self, templates: tuple[str, ...], **values: str) -> str:
        text = self.rng.choice(templates)
        return text.format(rule=self.rule, Rule=self.rule.capitalize(), **values)

    def identity(self, rule: IdentityRule) -> str:
        variables = [t for atom in (*rule.body, rule.head) for t in atom.arguments]
        names = list(dict.fromkeys(t for t in variables if is_variable(t))) or ["cases"]
        return self.pick(
            IDENTITY_TEMPLATES,
            body=_conjunction(rule.body),
            head=phrase(rule.head),
            variables=" and ".join(names),
        )

    def norm(self, norm: Norm) -> str:
        subject, verb = action_phrase(norm.action)
        deontic = self.rng.choice(DEONTIC_TEMPLATES[norm.label]).format(x=subject, act=verb)
        return self.pick(
            NORM_TEMPLATES, id=norm.name, body=_conjunction(norm.body), deontic=deontic
        )

    def priority(self, priority: Priority) -> str:
        return self.pick(PRIORITY_TEMPLATES, stronger=priority.stronger, weaker=priority.weaker)

    def question(self, world: World) -> str:
        if world.query is None:
            return ""
        subject, verb = action_phrase(world.query.action)
        return self.pick(QUESTION_TEMPLATES, x=subject, act=verb)

    def sections(self, world: World) -> list[tuple[str, list[str]]]:
        return [
            ("Facts", [self.pick(FACT_TEMPLATES, fact=phrase(f.atom)) for f in world.facts]),
            ("Definitions", [self.identity(rule) for rule in world.identities]),
            (f"{self.rule.capitalize()}s", [self.norm(norm) for norm in world.norms]),
            ("Priorities", [self.priority(priority) for priority in world.priorities]),
        ]


def render(world: World, rng: random.Random) -> str:
    """The world in English: facts, definitions (identity rules), rules, priorities and the
    question, as prose paragraphs or as headed lists."""
    renderer = _Renderer(rng)
    sections = [(title, lines) for title, lines in renderer.sections(world) if lines]
    if rng.random() < 0.5:
        blocks = [" ".join(lines) for _, lines in sections]
    else:
        blocks = [
            f"{title}:\n" + "\n".join(f"- {line}" for line in lines) for title, lines in sections
        ]
    question = renderer.question(world)
    return "\n\n".join([*blocks, question] if question else blocks) + "\n"
