"""Certificates of a world's verdict, and their checkers.

A proof certificate justifies the answer: the answer, its decisive and defeated rules and a
minimal support (rules and the facts they rest on). A falsification certificate rejects a
wrong candidate answer: the candidate, the type of its error, the rule it wrongly relies on
and the counter-evidence, one kind per error type (docs/norms.md has the table):
`priority_misread`, `defeated_rule_cited`, `unresolved_conflict_ignored`,
`missing_precondition`, `wrong_label`, `phantom_conflict`, `applicable_norm_ignored`.

The checkers accept any certificate that is correct, not only the canonical one: another
minimal support of the same size, another prevailing rule as counter-evidence. Each returns
a Check: passed, or the typed failure (`schema_failure`, `answer_error`, `invalid_proof`,
`not_wrong`, `missing_falsification`, `wrong_error_type`, `wrong_rule`,
`wrong_counter_evidence`) with a reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from argc.compiler.norms.theory import priority_closure
from argc.compiler.norms.verdict import ANSWERS, Verdict
from argc.dsl.norms.world import INCOMPATIBLE, LABELS, Atom, Norm

ERROR_TYPES = (
    "priority_misread",
    "defeated_rule_cited",
    "unresolved_conflict_ignored",
    "missing_precondition",
    "wrong_label",
    "phantom_conflict",
    "applicable_norm_ignored",
)
FAILURES = (
    "schema_failure",
    "answer_error",
    "invalid_proof",
    "not_wrong",
    "missing_falsification",
    "wrong_error_type",
    "wrong_rule",
    "wrong_counter_evidence",
)


@dataclass(frozen=True)
class Check:
    """A checker's result: `failure` is None when the certificate holds."""

    failure: str | None = None
    reason: str = ""

    @property
    def passed(self) -> bool:
        return self.failure is None


def proof_certificate(verdict: Verdict) -> dict:
    """The proof certificate of a verdict (JSON-ready)."""
    return {
        "answer": verdict.answer,
        "decisive": list(verdict.decisive),
        "defeated": list(verdict.defeated),
        "support": verdict.support.to_json(),
    }


# Facts of the world around the queried action ---------------------------------------------


class _Situation:
    """What a falsification needs to know about the verdict's world and action."""

    def __init__(self, verdict: Verdict) -> None:
        self.verdict = verdict
        world = verdict.world
        self.priorities = priority_closure(world)
        self.label = {norm.name: norm.label for norm in world.norms}
        ground = verdict.reading.compiled.ground
        #: The atoms that hold, by predicate.
        self.holding: dict[str, list[Atom]] = {}
        for atom in sorted({*ground.facts, *ground.derived}):
            self.holding.setdefault(atom.predicate, []).append(atom)
        #: Normative rules whose action can be the queried one, in world order.
        self.matching = [norm for norm in world.norms if _match(norm.action, verdict.query)]

    def rules_with(self, label: str, status: str | None = None) -> list[str]:
        """The rules bearing on the action that conclude `label` (with `status`)."""
        return sorted(
            rule
            for rule, found in self.verdict.statuses.items()
            if self.label[rule] == label and status in (None, found)
        )

    def prevailing_defeaters(self, rule: str) -> list[str]:
        """The justified rules that defeat `rule`, those with priority over it first."""
        verdict = self.verdict
        found = {
            attacker
            for attacker, attacked in verdict.defeats
            if attacked == rule and verdict.statuses.get(attacker) == "justified"
        }
        return sorted(found, key=lambda name: ((name, rule) not in self.priorities, name))

    def missing_fact(self, norm: Norm) -> Atom:
        """The first body atom of `norm` (its action bound to the query) that cannot hold
        together with the atoms before it."""
        binding = _match(norm.action, self.verdict.query) or {}
        for end in range(1, len(norm.body) + 1):
            if not any(_joins(norm.body[:end], binding, self.holding)):
                return norm.body[end - 1].substitute(binding)
        raise ValueError(f"the body of {norm.name} holds for {self.verdict.query}")


def _match(pattern: Atom, ground: Atom) -> dict[str, str] | None:
    """The binding that makes `pattern` equal to the ground atom, None when there is none."""
    if pattern.predicate != ground.predicate or len(pattern.arguments) != len(ground.arguments):
        return None
    binding: dict[str, str] = {}
    for term, value in zip(pattern.arguments, ground.arguments, strict=True):
        if term[:1].isupper():
            if binding.setdefault(term, value) != value:
                return None
        elif term != value:
            return None
    return binding


def _joins(
    body: tuple[Atom, ...], binding: dict[str, str], holding: dict[str, list[Atom]]
) -> Iterator[dict]:
    """Every extension of `binding` under which all the body atoms hold (`holding`: the
    atoms that hold, by predicate)."""
    if not body:
        yield binding
        return
    first = body[0].substitute(binding)
    for atom in holding.get(first.predicate, ()):
        found = _match(first, atom)
        if found is not None:
            yield from _joins(body[1:], {**binding, **found}, holding)


# Falsification -----------------------------------------------------------------------------


def wrong_candidates(verdict: Verdict) -> list[str]:
    """The answers that are wrong for this verdict, the most plausible first: labels of
    rules that bear on the action, labels of rules that would if their body held, then the
    remaining answers."""
    situation = _Situation(verdict)
    holds = {verdict.answer, *verdict.labels}
    ordered = [situation.label[rule] for rule in verdict.statuses]
    ordered += [norm.label for norm in situation.matching]
    ordered += list(ANSWERS)
    return list(dict.fromkeys(answer for answer in ordered if answer not in holds))


Falsification = tuple[str, "str | None", dict]


def falsification(verdict: Verdict, candidate: str) -> dict:
    """The falsification certificate of a wrong candidate answer (JSON-ready); ValueError
    when the candidate is not an answer or is right."""
    error, relies_on, evidence = _acceptable(_Situation(verdict), _wrong(verdict, candidate))[0]
    return {
        "candidate": candidate,
        "error_type": error,
        "relies_on": relies_on,
        "counter_evidence": evidence,
    }


def _wrong(verdict: Verdict, candidate: str) -> str:
    if candidate not in ANSWERS:
        raise ValueError(f"unknown answer {candidate!r}")
    if candidate == verdict.answer or candidate in verdict.labels:
        raise ValueError(f"{candidate!r} holds in this world")
    return candidate


def _acceptable(situation: _Situation, candidate: str) -> list[Falsification]:
    """Every correct falsification of a wrong candidate, the canonical one first."""
    verdict = situation.verdict
    if candidate in LABELS:
        undecided = situation.rules_with(candidate, "undecided")
        if verdict.answer == "conflict_unresolved" and undecided:
            evidence = {"conflicting": _opponents(situation, candidate)}
            return [("unresolved_conflict_ignored", rule, evidence) for rule in undecided]
        overruled = situation.rules_with(candidate, "overruled")
        if overruled:
            return [found for rule in overruled for found in _overruled(situation, rule)]
        return _inapplicable(situation, candidate) or [
            ("wrong_label", None, {"no_rule_concludes": candidate})
        ]
    if candidate == "conflict_unresolved":
        if verdict.defeated:
            return [found for rule in verdict.defeated for found in _overruled(situation, rule)]
        return _inapplicable(situation, None) or [
            ("phantom_conflict", None, {"unopposed": list(verdict.decisive)})
        ]
    reading = verdict.reading
    return [
        (
            "applicable_norm_ignored",
            None,
            {
                "applicable": rule,
                "facts": sorted(
                    str(fact)
                    for argument, name in reading.rule_of.items()
                    if name == rule
                    for fact in reading.facts(argument)
                ),
            },
        )
        for rule in sorted(verdict.statuses, key=lambda name: (name not in verdict.decisive, name))
    ]


def _opponents(situation: _Situation, label: str) -> list[str]:
    """The rules bearing on the action whose labels conflict with `label`."""
    return sorted(
        rule
        for rule in situation.verdict.statuses
        if (label, situation.label[rule]) in INCOMPATIBLE
        or (situation.label[rule], label) in INCOMPATIBLE
    )


def _overruled(situation: _Situation, rule: str) -> list[Falsification]:
    """A rule the candidate relies on is overruled: by priority, or by reinstatement."""
    found: list[Falsification] = []
    for defeater in situation.prevailing_defeaters(rule):
        if (defeater, rule) in situation.priorities:
            evidence = {"defeated_by": defeater, "priority": [defeater, rule]}
            found.append(("priority_misread", rule, evidence))
        else:
            found.append(("defeated_rule_cited", rule, {"defeated_by": defeater}))
    return found


def _inapplicable(situation: _Situation, label: str | None) -> list[Falsification]:
    """Rules the candidate could rest on whose bodies fail for the action: the first failing
    body atom canonical, any body atom that holds for no binding accepted too."""
    found: list[Falsification] = []
    for norm in situation.matching:
        if label in (None, norm.label) and norm.name not in situation.verdict.statuses:
            binding = _match(norm.action, situation.verdict.query) or {}
            first = situation.missing_fact(norm)
            atoms = [first] + [
                atom.substitute(binding)
                for atom in norm.body
                if not any(_joins((atom,), binding, situation.holding))
            ]
            for atom in dict.fromkeys(atoms):
                found.append(("missing_precondition", norm.name, {"missing_fact": str(atom)}))
    return found


# Checkers ----------------------------------------------------------------------------------


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


#: The parts of a proof certificate, in the order `check_proof` reports their failures.
PROOF_PARTS = ("answer", "decisive", "defeated", "support")


def proof_checks(verdict: Verdict, submitted: object) -> dict[str, Check] | None:
    """Each part of a submitted proof certificate (parsed JSON) checked on its own; None when
    the certificate does not follow the schema."""
    support = submitted.get("support") if isinstance(submitted, dict) else None
    if not (
        isinstance(submitted, dict)
        and isinstance(submitted.get("answer"), str)
        and _strings(submitted.get("decisive"))
        and _strings(submitted.get("defeated"))
        and isinstance(support, dict)
        and _strings(support.get("rules"))
        and _strings(support.get("facts"))
    ):
        return None
    found = {"answer": Check()}
    if submitted["answer"] != verdict.answer:
        found["answer"] = Check("answer_error", f"the answer is {verdict.answer}")
    for key in ("decisive", "defeated"):
        right = tuple(sorted(set(submitted[key]))) == getattr(verdict, key)
        reason = f"the {key} rules are {list(getattr(verdict, key))}"
        found[key] = Check() if right else Check("invalid_proof", reason)
    found["support"] = _support_check(verdict, support)
    return found


def _support_check(verdict: Verdict, support: dict) -> Check:
    """Whether rules and facts are a minimal support of the verdict's answer."""
    rules = tuple(sorted(set(support["rules"])))
    gold, problem = verdict.support, verdict.support_problem
    if problem is None:
        if rules or support["facts"]:
            return Check("invalid_proof", "the answer has no support")
        return Check()
    if len(rules) != len(gold.rules) or not problem.sustains(rules):
        return Check("invalid_proof", f"not a minimal support ({len(gold.rules)} rule(s))")
    facts = problem.facts_of(rules)
    if len(facts) != len(gold.facts) or sorted(set(support["facts"])) != sorted(map(str, facts)):
        return Check("invalid_proof", "the support's facts are not those its rules rest on")
    return Check()


def check_proof(verdict: Verdict, submitted: object) -> Check:
    """Whether a submitted proof certificate (parsed JSON) proves the verdict's answer: the
    first failing part, in PROOF_PARTS order."""
    checks = proof_checks(verdict, submitted)
    if checks is None:
        return Check("schema_failure", "expected answer, decisive, defeated, support.rules/facts")
    return next((checks[part] for part in PROOF_PARTS if not checks[part].passed), Check())


def check_falsification(verdict: Verdict, submitted: object) -> Check:
    """Whether a submitted falsification certificate (parsed JSON) rejects its candidate
    for a right reason."""
    if not (
        isinstance(submitted, dict)
        and isinstance(submitted.get("candidate"), str)
        and isinstance(submitted.get("error_type"), str)
        and isinstance(submitted.get("relies_on"), str | None)
        and isinstance(submitted.get("counter_evidence"), dict)
    ):
        return Check(
            "schema_failure", "expected candidate, error_type, relies_on, counter_evidence"
        )
    candidate = submitted["candidate"]
    if candidate not in ANSWERS:
        return Check("schema_failure", f"unknown answer {candidate!r}")
    if candidate == verdict.answer or candidate in verdict.labels:
        return Check("not_wrong", f"{candidate} holds in this world")
    accepted = _acceptable(_Situation(verdict), candidate)
    found = (submitted["error_type"], submitted["relies_on"], submitted["counter_evidence"])
    if found in accepted:
        return Check()
    if found[0] not in {error for error, _, _ in accepted}:
        return Check("wrong_error_type", f"the error is {accepted[0][0]}")
    if found[1] not in {rule for error, rule, _ in accepted if error == found[0]}:
        return Check("wrong_rule", f"the candidate relies on {accepted[0][1]}")
    return Check("wrong_counter_evidence", "the counter-evidence does not refute the candidate")


def check_rejection(verdict: Verdict, candidate: str, submitted: object) -> Check:
    """A falsification of a given candidate: `missing_falsification` when none is given or it
    is about another candidate."""
    if submitted is None or (
        isinstance(submitted, dict) and submitted.get("candidate") != candidate
    ):
        return Check("missing_falsification", f"the candidate {candidate} is not rejected")
    return check_falsification(verdict, submitted)
