"""Reward functions for GRPO, with TRL's signature `f(completions, instance, **kwargs)`: thin
adapters over `argc.tasks.score`, one float per completion. Answers are scored in worker
processes (`argc.tasks.isolation`): one hostile completion scores 0 at the scoring time limit
instead of stalling the step, and the completions of a batch are scored by every worker at once.

A completion is a string or a conversation (the content of its last assistant message is
read). `instance` holds `Instance.to_json()` strings (the dataset column). The functions never
raise: a completion that is neither, a content that is not a string, a completion longer than
MAX_ANSWER_CHARS, an instance that does not decode, or any error scores 0.

The modes mirror the reward designs the training studies compare: `success_reward` is the sparse
exact reward, `native_reward` the task's partial-credit score, `gated_reward` the
outcome-gated process reward and `format_reward` a shaping term for the answer interface. For
normative change records, `answer_change_reward` (answer-only), `record_exact_reward` (sparse)
and `make_mr_reward` (MR-aware partial credit) are NormWorlds-CF's three geometries.

The outcome the success and gated rewards read is the scorer's complete success, except that a
formalization must also reach a structural agreement S of `min_structure`: the benchmark's
behavioural success alone is won by a status table (axioms for the justified literals, rules
that cancel each other for the undecided ones) that formalizes nothing.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from argc.dsl.parser import parse_intervention
from argc.tasks import Instance, Score, get_task
from argc.tasks.answers import MAX_ANSWER_CHARS, answer_regions, answer_text
from argc.tasks.arggym.formalization import FormalizationScore
from argc.tasks.arggym.intervention import InterventionTask
from argc.tasks.framework import is_unreadable
from argc.tasks.isolation import default_scorer
from argc.tasks.kg.scoring import KgScore
from argc.tasks.kg.scoring import gated as kg_gated
from argc.tasks.norms.credit import MRWeights, answer_credit, mr_credit, sparse_credit
from argc.tasks.norms.ladder import RecordScore

Reward = Callable[..., list[float]]

#: The paper's default weight of the process term in the gated reward.
DEFAULT_PROCESS_RATIO = 0.8
#: The least structural agreement S for a formalization to count as a success in training.
#: References and renamed references have S = 1, and one directive changed in the smallest
#: reference (5 directives) gives 0.8; a status table reaches 0.18 at most, and the same with
#: the description's justified premises copied 0.58 at most (docs/training.md).
DEFAULT_MIN_STRUCTURE = 0.75


def completion_text(completion: Any) -> str | None:
    """A plain completion, or the content of a conversation's last assistant message; None for
    anything else and for completions longer than MAX_ANSWER_CHARS."""
    text = None
    if isinstance(completion, str):
        text = completion
    elif isinstance(completion, list | tuple):
        assistant = [m for m in completion if isinstance(m, dict) and m.get("role") == "assistant"]
        text = assistant[-1].get("content") if assistant else None
    return text if isinstance(text, str) and len(text) <= MAX_ANSWER_CHARS else None


@lru_cache(maxsize=4096)
def _instance(record: str) -> Instance:
    return Instance.from_record(json.loads(record))


#: Verdicts kept for the rewards that read the same answers (most recent last).
_VERDICTS: OrderedDict[tuple[str, str], Score] = OrderedDict()
_KEPT_VERDICTS = 4096


def _score(record: str, region: str) -> Score:
    """The scorer's verdict on one answer region (cached: several rewards read each one)."""
    return _scores([(record, region)])[0]


def _scores(pairs: Sequence[tuple[str, str]]) -> list[Score]:
    """Verdicts on (instance record, answer region) pairs; those not cached are scored by the
    isolated scorer's workers at once."""
    missing = list(dict.fromkeys(pair for pair in pairs if pair not in _VERDICTS))
    if missing:
        jobs = [
            (_instance(record), _response(_instance(record), region)) for record, region in missing
        ]
        for pair, verdict in zip(missing, default_scorer().score_many(jobs), strict=True):
            _VERDICTS[pair] = verdict
            while len(_VERDICTS) > _KEPT_VERDICTS:
                _VERDICTS.popitem(last=False)
    found = []
    for pair in pairs:
        _VERDICTS.move_to_end(pair)
        found.append(_VERDICTS[pair])
    return found


def _tagged(instance: Instance) -> bool:
    """Whether the instance's answers come in <answer> regions (a KG task reads the whole
    completion)."""
    return get_task(instance.task).tagged


def _response(instance: Instance, region: str) -> str:
    """The response that scores an answer region: the region in its tags, or as it is."""
    return f"<answer>{region}</answer>" if _tagged(instance) else region


def process_quality(instance: Instance, region: str, scored: Score) -> float:
    """The verified quality of a completely right answer beyond its outcome, in [0, 1].

    - Constructive tasks: the economy min(1, m/n) of the intervention, with m the minimum
      recorded in the instance (verified by a clingo optimisation) and n the directives given.
      It is 1 exactly when the answer takes no step beyond a verified minimal one.
    - Formalization: the native score, whose structural terms (rule structure, and rule types
      when graded) measure how closely the theory reproduces the reference's structure once its
      behaviour is equivalent.
    - The other analysis tasks: the native score, 1 on complete success, since their answer is
      itself the whole verified structure (every status, verdict, derivation step or failure
      record); for them the gated reward equals the success reward.
    """
    if isinstance(get_task(instance.task), InterventionTask):
        given = len(parse_intervention(answer_text(region), "<answer>"))
        return min(1.0, instance.target["min_directives"] / given)
    return scored.native


def _rewards(
    completions: Sequence[Any],
    instance: Sequence[Any],
    value: Callable[[Instance, list[str], Score], float],
) -> list[float]:
    """One reward per completion: `value(instance, regions, score of the last region)` for a
    completion with an answer region, 0 otherwise and on any error."""
    answers = [_answer(completion, instance, index) for index, completion in enumerate(completions)]
    _scores([(record, regions[-1]) for record, regions in answers if regions])
    found: list[float] = []
    for record, regions in answers:
        try:
            scored = _score(record, regions[-1]) if regions else None
            found.append(float(value(_instance(record), regions, scored)) if scored else 0.0)
        except Exception:  # noqa: BLE001 - a reward must never stop training
            found.append(0.0)
    return found


def _answer(completion: Any, instance: Sequence[Any], index: int) -> tuple[Any, list[str]]:
    """The instance record and the answer regions of one completion (none when unreadable)."""
    try:
        text = completion_text(completion)
        record = instance[index]
        if text is None:
            return record, []
        return record, answer_regions(text) if _tagged(_instance(record)) else [text]
    except Exception:  # noqa: BLE001 - a completion or record that does not read scores 0
        return None, []


def _unit(name: str, value: Any) -> None:
    """Refuse an option value outside [0, 1] (NaN included)."""
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= 1:
        raise ValueError(f"{name} must lie in [0, 1], not {value!r}")


def succeeded(scored: Score, min_structure: float) -> bool:
    """Complete success for training: the scorer's success and, for a formalization, a
    structural agreement S ≥ `min_structure` (0 keeps the benchmark's success)."""
    if isinstance(scored, FormalizationScore):
        return scored.success and scored.structure >= min_structure
    return scored.success


def make_success_reward(min_structure: float = DEFAULT_MIN_STRUCTURE) -> Reward:
    """The sparse exact reward: 1 for a completely successful answer (`succeeded`), else 0."""
    _unit("min_structure", min_structure)

    def success_reward(
        completions: Sequence[Any], instance: Sequence[Any], **kwargs: Any
    ) -> list[float]:
        return _rewards(completions, instance, lambda _, __, s: float(succeeded(s, min_structure)))

    success_reward.__doc__ = f"1 on complete success (min_structure {min_structure}), else 0."
    return success_reward


#: The success reward with the default structural requirement.
success_reward = make_success_reward()


def native_reward(
    completions: Sequence[Any], instance: Sequence[Any], **kwargs: Any
) -> list[float]:
    """The task's native score in [0, 1] (partial credit: pair F1, goal progress, economy)."""
    return _rewards(completions, instance, lambda _, __, s: s.native)


def make_gated_reward(
    process_ratio: float = DEFAULT_PROCESS_RATIO, min_structure: float = DEFAULT_MIN_STRUCTURE
) -> Reward:
    """The outcome-gated process reward: 0 unless the answer is a complete success
    (`succeeded(..., min_structure)`), else
    `(1 - process_ratio) + process_ratio * process_quality(...)`.

    This is the paper's R = 0.8P + 0.2A for A = 1 and R = 0 for A = 0, with `process_ratio` the
    weight of P. The paper's A is the answer match and P the binary match of a parsed reasoning
    trace; here A is complete success (`succeeded`), and P, which a response without a trace
    cannot show, becomes the verified quality of the answer itself (`process_quality`): the
    economy of an intervention against its verified minimum, structural fidelity for
    formalization, and 1 where success already verifies the whole structure.
    """
    _unit("process_ratio", process_ratio)
    _unit("min_structure", min_structure)

    def value(instance: Instance, regions: list[str], scored: Score) -> float:
        if not succeeded(scored, min_structure):
            return 0.0
        process = process_quality(instance, regions[-1], scored)
        return (1.0 - process_ratio) + process_ratio * process

    def gated_reward(
        completions: Sequence[Any], instance: Sequence[Any], **kwargs: Any
    ) -> list[float]:
        return _rewards(completions, instance, value)

    gated_reward.__doc__ = (
        f"The outcome-gated process reward (process_ratio {process_ratio},"
        f" min_structure {min_structure})."
    )
    return gated_reward


def format_reward(
    completions: Sequence[Any], instance: Sequence[Any], **kwargs: Any
) -> list[float]:
    """The answer interface, in halves: 0.5 for exactly one <answer> region, plus 0.5 when the
    scored (last) region is not blank and the task's reader accepts it (the score's reason is
    not an unreadable-answer reason). So one readable region scores 1, one unreadable region
    0.5, several regions 0.5 or 0, and no region 0. The partial credit gives a signal while the
    grammar is still being learnt; a shaping term, meant beside an outcome reward."""

    def value(_: Instance, regions: list[str], scored: Score) -> float:
        single = len(regions) == 1
        readable = bool(regions[-1].strip()) and not is_unreadable(scored.reason)
        return 0.5 * single + 0.5 * readable

    return _rewards(completions, instance, value)


def _record_reward(
    credit: Callable[[dict, dict], float],
) -> Callable[[Instance, list[str], Score], float]:
    """A change record's credit from its score (0 for a score of another task)."""

    def value(_: Instance, __: list[str], scored: Score) -> float:
        if not isinstance(scored, RecordScore) or scored.submitted is None:
            return 0.0
        return credit(scored.submitted, scored.gold)

    return value


def answer_change_reward(
    completions: Sequence[Any], instance: Sequence[Any], **kwargs: Any
) -> list[float]:
    """Change records, answer-only: 1 when the answer change (or its absence) is right."""
    return _rewards(completions, instance, _record_reward(answer_credit))


def record_exact_reward(
    completions: Sequence[Any], instance: Sequence[Any], **kwargs: Any
) -> list[float]:
    """Change records, sparse: 1 for a readable record exact in every field, else 0."""
    return _rewards(completions, instance, _record_reward(sparse_credit))


def make_mr_reward(family: float = 0.3, relation: float = 0.3, fields: float = 0.4) -> Reward:
    """Change records, MR-aware: class-conditioned partial credit (`argc.tasks.norms.credit`):
    relation family, exact relation, and emptiness or per-field change credit, times the
    record's precision (each invented change item lowers it)."""
    weights = MRWeights(family, relation, fields)

    def mr_reward(
        completions: Sequence[Any], instance: Sequence[Any], **kwargs: Any
    ) -> list[float]:
        return _rewards(
            completions, instance, _record_reward(lambda s, g: mr_credit(s, g, weights))
        )

    mr_reward.__doc__ = f"MR-aware change-record credit ({weights})."
    return mr_reward


def _kg_reward(value: Callable[[KgScore], float]) -> Callable[[Instance, list[str], Score], float]:
    """A KG solution's reward from its two matches (0 for a score of another task)."""
    return lambda _, __, scored: value(scored) if isinstance(scored, KgScore) else 0.0


def make_kg_gated_reward(process_ratio: float = DEFAULT_PROCESS_RATIO) -> Reward:
    """KG tasks, the paper's outcome-gated reward: R = process_ratio * P + (1 -
    process_ratio) * A when the answer matches (A = 1), else 0; P is the binary match of
    the parsed trace against the gold one (Table 13)."""
    _unit("process_ratio", process_ratio)
    value = _kg_reward(lambda s: kg_gated(s.process, s.answer, process_ratio))

    def kg_gated_reward(
        completions: Sequence[Any], instance: Sequence[Any], **kwargs: Any
    ) -> list[float]:
        return _rewards(completions, instance, value)

    kg_gated_reward.__doc__ = f"KG outcome-gated reward (process_ratio {process_ratio})."
    return kg_gated_reward


def kg_answer_reward(
    completions: Sequence[Any], instance: Sequence[Any], **kwargs: Any
) -> list[float]:
    """KG tasks, answer-only: A, 1 when the answer matches."""
    return _rewards(completions, instance, _kg_reward(lambda s: float(s.answer)))


def kg_process_reward(
    completions: Sequence[Any], instance: Sequence[Any], **kwargs: Any
) -> list[float]:
    """KG tasks, process-only: P, 1 when the parsed trace matches the gold one."""
    return _rewards(completions, instance, _kg_reward(lambda s: float(s.process)))


#: Rewards by configuration name; "success", "gated", "mr" and "kg_gated" are factories
#: (`make_success_reward`, `make_gated_reward`, `make_mr_reward`, `make_kg_gated_reward`).
REWARDS: dict[str, Callable[..., Any]] = {
    "success": make_success_reward,
    "native": native_reward,
    "format": format_reward,
    "gated": make_gated_reward,
    "answer_change": answer_change_reward,
    "record_exact": record_exact_reward,
    "mr": make_mr_reward,
    "kg_gated": make_kg_gated_reward,
    "kg_answer": kg_answer_reward,
    "kg_process": kg_process_reward,
}
_FACTORIES = {"success", "gated", "mr", "kg_gated"}


def rewards_from_config(items: Sequence[str | dict[str, Any]]) -> list[Reward]:
    """Reward functions from names ("success") or one-key mappings of a name to its options
    ({"gated": {"process_ratio": 0.8}}); a factory named alone takes its defaults."""
    found: list[Reward] = []
    for item in items:
        if isinstance(item, dict) and len(item) == 1:
            name, options = next(iter(item.items()))
        else:
            name, options = item, None
        if not isinstance(name, str) or name not in REWARDS:
            raise ValueError(f"unknown reward {name!r}; known: {', '.join(sorted(REWARDS))}")
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"the options of reward {name!r} must be a mapping")
        if name not in _FACTORIES:
            if options:
                raise ValueError(f"reward {name!r} takes no options, got {sorted(options)}")
            found.append(REWARDS[name])
            continue
        try:
            found.append(REWARDS[name](**(options or {})))
        except TypeError as error:
            raise ValueError(f"reward {name!r}: {error}") from None
    return found
