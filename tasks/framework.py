"""The task framework: a task is a generator of candidate theories, an ASP query over the
solved model (gates as integrity constraints, the gold target as `#show`), a prompt, an
answer reader and a scorer. Generation is deterministic in (task, level, ordering, seed)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import random
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterator, MutableMapping, Sequence
from dataclasses import dataclass, field, is_dataclass
from functools import cached_property, lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any, ClassVar

from argc.compiler import (
    LimitExceeded,
    Limits,
    MachineLimitExceeded,
    QueryResult,
    TimeLimitExceeded,
    query,
)
from argc.dsl.errors import ArgcError
from argc.dsl.ir import ORDERINGS, Ordering, Theory
from argc.dsl.parser import parse_theory
from argc.tasks.answers import UnreadableAnswer, answer_region, answer_text

LEVELS = tuple(range(1, 16))
#: Every (level, ordering) cell of a task.
CELLS = tuple((level, ordering) for level in LEVELS for ordering in ORDERINGS)

#: Limits for solving generated candidates (and for the constructive tasks' minimum search).
#: Only the counts decide: a candidate past the arguments, instantiations, attacks, the
#: conflicts of a search or the extensions is rejected, at the same point on every machine.
#: The counts bound a candidate's work to seconds (the most a search took at levels 13-15 of
#: the benchmark was 1,905 conflicts, 0.08 s); the time limit, far above that, and the memory
#: only fail loudly (GenerationStopped), never reject a candidate.
GENERATION_LIMITS = Limits(seconds=300.0, arguments=5_000, conflicts=100_000)
#: Limits for solving a theory built from an untrusted answer; hitting them scores 0. The
#: instantiation and attack bounds keep grounding within the time and well under 1 GB.
SCORING_LIMITS = Limits(seconds=10.0, arguments=5_000, instantiations=50_000, attacks=500_000)


class GenerationFailed(ArgcError):
    """No candidate passed the gates within the attempt bound."""


class GenerationStopped(ArgcError):
    """Generation reached a limit of the machine (the time limit or the memory), not a count:
    which candidate passes would then depend on the machine, so no instance is made."""


def generation_stopped(what: str, exceeded: MachineLimitExceeded) -> GenerationStopped:
    """The error for generating `what` (an instance, named) when `exceeded` fired."""
    limit = "the time limit" if isinstance(exceeded, TimeLimitExceeded) else "the memory"
    return GenerationStopped(
        f"{what}: generation stopped: {exceeded}. {limit.capitalize()}, not a count limit, was"
        " reached, and an instance may not depend on the machine's speed, load or memory, so"
        " none is made (run it again with more time or memory, or on a less loaded machine)"
    )


#: How the scorers' reasons begin when the answer itself could not be read (a syntax error,
#: an empty or oversized answer, a theory that does not build, a scorer failure).
UNREADABLE_REASONS = (
    "unreadable",
    "does not parse",
    "answer longer than",
    "no directives",
    "not a valid theory",
    "unscorable",
    "scorer error",
)


def is_unreadable(reason: str) -> bool:
    """Whether a score's reason says the answer could not be read (format compliance)."""
    return reason.startswith(UNREADABLE_REASONS)


@dataclass(frozen=True)
class Score:
    """A scored response: native score in [0, 1], complete success, and why."""

    native: float
    success: bool
    reason: str

    def details(self) -> dict[str, Any] | None:
        """What reports need to know of the answer beyond its score (JSON values; None for
        most tasks)."""
        return None


@dataclass(frozen=True)
class Candidate:
    """A generated theory before the gates, with task-specific parameters (JSON values)."""

    theory: Theory
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Instance:
    """One task instance, as written to JSONL: everything a scorer needs is stored here."""

    id: str
    task: str
    level: int
    ordering: str
    set: str
    seed: int
    theory: str
    prompt: str
    reference: str
    target: Any
    meta: dict[str, Any]

    @property
    def strength(self) -> Ordering:
        """The argument ordering the instance is evaluated under."""
        return Ordering(self.ordering, self.set)

    @cached_property
    def parsed_theory(self) -> Theory:
        """The theory, parsed once a process for every instance with the same text (a batch
        scores copies of an instance under many ids, a worker sees each in every request)."""
        try:
            return _parsed_theory(self.theory)
        except ArgcError:
            return parse_theory(self.theory, f"<{self.id}>")  # the error names the instance

    @cached_property
    def group_key(self) -> str:
        """What the score of an answer depends on besides the answer: the instance's JSON
        line without its id, so that copies of an instance under other ids score as one
        group (made once per instance object)."""
        record = self.record()
        record.pop("id")
        return json.dumps(record, sort_keys=True, ensure_ascii=False)

    def record(self) -> dict[str, Any]:
        """The fields by name (the nested values shared with the instance, not copied)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    def to_json(self) -> str:
        """One canonical JSON line (sorted keys): byte-identical for identical instances."""
        return json.dumps(self.record(), sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Instance:
        names = cls.__dataclass_fields__
        return cls(**{name: record[name] for name in names})


@lru_cache(maxsize=1024)
def _parsed_theory(text: str) -> Theory:
    """A theory text parsed (theories are immutable, so one object serves every instance)."""
    return parse_theory(text)


class Scorer(ABC):
    """What scoring an answer needs of a task: its name, its world family and its scorer.
    Tasks generated from theories are `Task`s; world families with their own generators
    (KG worlds) register scorers alone."""

    name: ClassVar[str]
    #: The world family the task belongs to: ArgGYM's theories (in the frozen benchmark),
    #: normative worlds or KG worlds.
    suite: ClassVar[str] = "arggym"
    #: Tasks of one family draw the same random candidates for the same coordinates (a
    #: matched pair of tasks over the same theories); default: the task's own name.
    family: ClassVar[str | None] = None
    #: Whether the answer is the last <answer> region of a response (else the whole
    #: response is the answer: a solution trace ending with its answer sentence).
    tagged: ClassVar[bool] = True
    #: The answer's closed labels (statuses, verdicts, relation names; for KG tasks the
    #: entity words of every split). A tokenizer built for training keeps each a single
    #: token, so a model picks a label at once rather than composing one from the pieces of
    #: two, and a held-out name is not cut into letters (`argc.train.tiny.train_tokenizer`).
    labels: ClassVar[tuple[str, ...]] = ()
    #: Whether scoring an answer only reads it (an LALR parse of at most
    #: `argc.tasks.answers.MAX_ANSWER_CHARS` characters) and compares it with the instance's
    #: target, running neither the engine nor anything else whose cost the answer sets: such
    #: answers are scored in the caller's process rather than in an isolated worker
    #: (`argc.tasks.isolation`).
    reads_only: ClassVar[bool] = False

    @abstractmethod
    def score_answer(self, instance: Instance, answer: str) -> Score:
        """Score the answer (the text of the last <answer> region, or the whole response of
        an untagged task, read by `answer_text`) against the instance's target."""

    def score_answers(self, instance: Instance, answers: Sequence[str]) -> list[Score]:
        """Scores of several answers to one instance (a GRPO group). Tasks whose scorer
        solves a theory per answer override this to solve them together."""
        return [self.score_answer(instance, answer) for answer in answers]

    def score_groups(self, groups: Sequence[tuple[Instance, Sequence[str]]]) -> list[list[Score]]:
        """Scores of the answers of several groups (instances of this task, e.g. the prompts
        of one GRPO batch). Tasks whose scorer solves a theory per answer override this to
        solve the theories of every group together."""
        return [self.score_answers(instance, answers) for instance, answers in groups]

    def parameters(self, level: int) -> dict[str, Any]:
        """The curriculum parameters of a level (documented in docs/curriculum.md)."""
        return {}


class Task(Scorer):
    """A reasoning task over generated theories. Subclasses set `name` and implement the
    abstract methods; the ASP query lives beside the module in `tasks/<name>.lp`."""

    #: Most candidates tried per instance before GenerationFailed.
    attempts: ClassVar[int] = 400
    #: The query file of a task defined outside the package (default: `tasks/<name>.lp`).
    program_file: ClassVar[Path | None] = None

    @cached_property
    def program(self) -> str:
        """The task's ASP query: gates and the gold target over the solved model (shared by
        the tasks of a family)."""
        if self.program_file is not None:
            return Path(self.program_file).read_text(encoding="utf-8")
        name = self.family or self.name
        package = type(self).__module__.rpartition(".")[0]  # beside the task's module
        return files(package).joinpath(f"{name}.lp").read_text(encoding="utf-8")

    @abstractmethod
    def candidate(self, rng: random.Random, level: int) -> Candidate:
        """A candidate theory for a curriculum level."""

    def gate_program(self, candidate: Candidate) -> str:
        """The query for a candidate (the task's program plus candidate-specific facts)."""
        return self.program

    @abstractmethod
    def target(self, candidate: Candidate, result: QueryResult, ordering: Ordering) -> Any:
        """The gold target (JSON value) from the query's shown atoms, or None to reject."""

    @abstractmethod
    def prompt(self, candidate: Candidate, target: Any, ordering: Ordering) -> str:
        """The prompt shown to the model."""

    @abstractmethod
    def reference(self, target: Any) -> str:
        """A reference answer (the text inside <answer>) that scores complete success."""


def knobs(curriculum: Any) -> dict[str, Any]:
    """A curriculum dataclass as JSON values: nested dataclasses (a builder Shape) are merged
    into the top level and tuples become lists."""
    found: dict[str, Any] = {}
    for name, value in vars(curriculum).items():
        if is_dataclass(value):
            found.update(knobs(value))
        else:
            found[name] = list(value) if isinstance(value, tuple) else value
    return found


#: The tasks argc ships, by name, with the module whose import registers each, in the order
#: the registry lists them: a command imports the modules of the tasks it meets only.
BUILTIN_TASKS: dict[str, str] = {
    **{
        name: f"argc.tasks.arggym.{module}"
        for name, module in (
            ("attack", "attack"),
            ("defence", "defence"),
            ("attack_defense", "attack_defense"),
            ("claim_chain", "claim_chain"),
            ("counter_argument", "counter_argument"),
            ("counter_argument_strict", "counter_argument"),
            ("defeat_diagnosis", "defeat_diagnosis"),
            ("formalization", "formalization"),
            ("perturbation", "perturbation"),
            ("preference_construction", "preference_construction"),
            ("semantics_query", "semantics_query"),
            ("status_query", "status_query"),
        )
    },
    **dict.fromkeys(
        ("kg_deductive", "kg_abductive", "kg_inductive", "kg_analogy"), "argc.tasks.kg.scoring"
    ),
    **dict.fromkeys(
        ("norm_answer", "norm_proof", "norm_falsification", "norm_change_record"),
        "argc.tasks.norms.ladder",
    ),
}


class Registry(MutableMapping[str, "Scorer"]):
    """The registered tasks by name. A built-in task's module is imported when the task is
    first looked up (or when the registry is listed), so that a command scoring one task does
    not import every other; listing gives the built-in tasks in BUILTIN_TASKS' order, then
    the others in the order they were registered."""

    def __init__(self, builtin: dict[str, str]) -> None:
        self._builtin = builtin
        self._tasks: dict[str, Scorer] = {}

    def _load(self, name: str) -> None:
        module = self._builtin.get(name)
        if module is not None and name not in self._tasks:
            importlib.import_module(module)
            if name not in self._tasks:
                raise RuntimeError(f"importing {module} did not register the task {name!r}")

    def __getitem__(self, name: str) -> Scorer:
        self._load(name)
        return self._tasks[name]

    def __setitem__(self, name: str, task: Scorer) -> None:
        self._tasks[name] = task

    def __delitem__(self, name: str) -> None:
        del self._tasks[name]

    def __contains__(self, name: object) -> bool:
        return name in self._tasks or name in self._builtin

    def load_all(self) -> None:
        """Import the module of every built-in task now."""
        for name in self._builtin:
            self._load(name)

    def __iter__(self) -> Iterator[str]:
        self.load_all()
        listed = [name for name in self._builtin if name in self._tasks]
        return iter(listed + [name for name in self._tasks if name not in self._builtin])

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def names(self) -> list[str]:
        """Every task's name, sorted, without importing a module (for messages and help)."""
        return sorted({*self._builtin, *self._tasks})


REGISTRY: Registry = Registry(BUILTIN_TASKS)


def suite_tasks(suite: str = "arggym") -> list[str]:
    """The registered tasks of a suite (`arggym`: ArgGYM's tasks; `norms`: normative
    worlds; `kg`: KG worlds), sorted."""
    return sorted(name for name, task in REGISTRY.items() if task.suite == suite)


def generated_tasks() -> list[str]:
    """The registered tasks generated from theories (`generate`), every suite, sorted."""
    return sorted(name for name, task in REGISTRY.items() if isinstance(task, Task))


def register(cls: type[Scorer]) -> type[Scorer]:
    """Class decorator: make a task available by name."""
    REGISTRY[cls.name] = cls()
    return cls


#: The task files loaded so far, in order (scoring workers load the same).
_LOADED: list[str] = []


def loaded_task_files() -> tuple[str, ...]:
    """The files `load_tasks` has imported in this process, as absolute paths."""
    return tuple(_LOADED)


def load_tasks(path: str | Path) -> None:
    """Import a Python file that defines and registers tasks (`argc generate --load`)."""
    spec = importlib.util.spec_from_file_location(f"argc_user_tasks.{Path(path).stem}", path)
    if spec is None or spec.loader is None:
        raise ArgcError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except OSError as error:
        raise ArgcError(f"{path}: cannot load tasks: {error}") from None
    absolute = str(Path(path).resolve())
    if absolute not in _LOADED:
        _LOADED.append(absolute)


def get_task(name: str) -> Scorer:
    try:
        return REGISTRY[name]
    except KeyError:
        raise ArgcError(f"unknown task '{name}'; known: {', '.join(REGISTRY.names())}") from None


def instance_rng(task: str, level: int, ordering: Ordering, seed: int) -> random.Random:
    """The generator's random source: a hash of the coordinates, the same on every machine."""
    key = f"argc/{task}/{level}/{ordering.principle}/{ordering.set_comparison}/{seed}"
    return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))


def instance_id(task: str, level: int, ordering: Ordering, seed: int) -> str:
    return f"{task}-L{level:02d}-{ordering.principle}-{ordering.set_comparison}-{seed}"


def generate(task_name: str, level: int, ordering: Ordering, seed: int) -> Instance:
    """The instance of a task for (level, ordering, seed); candidates failing a gate or a
    count limit are rejected and counted in `meta["rejections"]`. GenerationStopped (naming
    the instance) when the time limit or the memory is reached instead."""
    task = get_task(task_name)
    if not isinstance(task, Task):
        raise ArgcError(
            f"{task_name} is a {task.suite} task, generated by `argc {task.suite} generate`"
        )
    if level not in LEVELS:
        raise ArgcError(f"level must be between 1 and {LEVELS[-1]}, not {level}")
    try:
        return _generated(task, level, ordering, seed)
    except MachineLimitExceeded as exceeded:
        name = instance_id(task.name, level, ordering, seed)
        raise generation_stopped(name, exceeded) from exceeded


def _judged(task: Task, candidate: Candidate, ordering: Ordering) -> tuple[QueryResult, Any] | str:
    """A candidate's solved gate query and gold target, or why it is rejected: `limits` (a
    count limit), `gate` or `target`. A machine limit is raised, never a rejection."""
    try:
        result = query(
            candidate.theory,
            task.gate_program(candidate),
            ordering=ordering,
            limits=GENERATION_LIMITS,
        )
    except MachineLimitExceeded:
        raise
    except LimitExceeded:
        return "limits"
    if not result.satisfiable:
        return "gate"
    target = task.target(candidate, result, ordering)
    return "target" if target is None else (result, target)


def _generated(task: Task, level: int, ordering: Ordering, seed: int) -> Instance:
    rng = instance_rng(task.family or task.name, level, ordering, seed)
    rejections: Counter[str] = Counter()
    for _ in range(task.attempts):
        candidate = task.candidate(rng, level)
        judged = _judged(task, candidate, ordering)
        if isinstance(judged, str):
            rejections[judged] += 1
            continue
        result, target = judged
        return Instance(
            id=instance_id(task.name, level, ordering, seed),
            task=task.name,
            level=level,
            ordering=ordering.principle,
            set=ordering.set_comparison,
            seed=seed,
            theory=candidate.theory.to_text(),
            prompt=task.prompt(candidate, target, ordering),
            reference=task.reference(target),
            target=target,
            meta={
                "params": candidate.params,
                "curriculum": task.parameters(level),
                "rejections": dict(sorted(rejections.items())),
                "attempts": sum(rejections.values()) + 1,
                "arguments": len(result.solution.arguments),
                "defeats": len(result.solution.defeats),
            },
        )
    raise GenerationFailed(
        f"{task.name} level {level} {ordering} seed {seed}: no candidate passed the gates in"
        f" {task.attempts} attempts ({dict(rejections)})"
    )


def generate_json(job: tuple[str, int, Ordering, int]) -> str:
    """`generate(task, level, ordering, seed).to_json()`, for worker processes."""
    return generate(*job).to_json()


def load_all_tasks(paths: Sequence[str]) -> None:
    """Load task files (a worker process's set-up: the caller's loaded task files)."""
    for path in paths:
        load_tasks(path)


def score(instance: Instance, response: str) -> Score:
    """Score an untrusted response: never raises; a response without <answer> scores 0."""
    return score_group(instance, [response])[0]


def score_group(instance: Instance, responses: Sequence[str]) -> list[Score]:
    """Score several untrusted responses to one instance at once (the task solves their
    theories together where it can): never raises; a response without <answer> scores 0,
    and an answer that breaks the group's scoring is scored alone."""
    scores, answers = _answers(instance, responses)
    distinct = _distinct(answers)
    found = _guarded(instance, distinct)
    if found is None:  # the group failed as a whole: each answer alone, failing alone
        found = [_guarded(instance, [answer])[0] for answer in distinct]
    return _filled(scores, answers, dict(zip(distinct, found, strict=True)))


def score_groups(groups: Sequence[tuple[Instance, Sequence[str]]]) -> list[list[Score]]:
    """Score the responses of several groups (a GRPO batch: the completions of several
    prompts) at once: the theories of all answers to instances of one task are solved
    together where the task can. Never raises; the scores are those `score_group` gives
    each group, to which groups fall back when their joint scoring fails."""
    prepared = [_answers(instance, responses) for instance, responses in groups]
    by_task: dict[str, list[int]] = {}
    for index, (instance, _) in enumerate(groups):
        by_task.setdefault(instance.task, []).append(index)
    found: list[list[Score] | None] = [None] * len(groups)
    for task, indices in by_task.items():
        jobs = [(groups[k][0], _distinct(prepared[k][1])) for k in indices]
        pooled = _pooled(task, jobs) if len(indices) > 1 else None
        for position, k in enumerate(indices):
            if pooled is None:
                found[k] = score_group(*groups[k])
            else:
                by_answer = dict(zip(jobs[position][1], pooled[position], strict=True))
                found[k] = _filled(*prepared[k], by_answer)
    return found  # type: ignore[return-value]


def _answers(
    instance: Instance, responses: Sequence[str]
) -> tuple[list[Score | None], list[tuple[int, str]]]:
    """Each response's answer with its index, as `answer_text` reads it for every task, and
    the zero Score of each response that has no <answer> region or whose answer holds a
    character no answer may hold (None in the others' places)."""
    scores: list[Score | None] = [None] * len(responses)
    answers: list[tuple[int, str]] = []
    tagged = instance.task not in REGISTRY or REGISTRY[instance.task].tagged
    for index, response in enumerate(responses):
        answer = answer_region(response) if tagged else response
        if answer is None:
            scores[index] = Score(0.0, False, "no <answer>...</answer> region")
            continue
        try:
            answers.append((index, answer_text(answer)))
        except UnreadableAnswer as error:
            scores[index] = Score(0.0, False, str(error))
    return scores, answers


def _distinct(answers: list[tuple[int, str]]) -> list[str]:
    """The different answers, in order: identical answers to one instance (frequent in a
    GRPO group) are scored once, since a score depends on the instance and answer alone."""
    return list(dict.fromkeys(answer for _, answer in answers))


def _filled(
    scores: list[Score | None], answers: list[tuple[int, str]], found: dict[str, Score]
) -> list[Score]:
    """`scores` with the answers' scores (`found`, by answer) in their places."""
    scores = list(scores)
    for index, answer in answers:
        scores[index] = found[answer]
    return scores  # type: ignore[return-value]


def _pooled(task: str, groups: list[tuple[Instance, list[str]]]) -> list[list[Score]] | None:
    """The task's scores of several groups scored together; None when that fails (or a
    scorer answers with the wrong number of scores), so that each group is scored alone."""
    try:
        found = get_task(task).score_groups(groups)
    except Exception:  # noqa: BLE001 - each group is then scored alone, failing alone
        return None
    if len(found) != len(groups) or any(
        len(scores) != len(answers) for scores, (_, answers) in zip(found, groups, strict=True)
    ):
        return None
    return list(found)


def _guarded(instance: Instance, answers: list[str]) -> list[Score] | None:
    """The task's scores of the answers; one failure's Score for a single answer, None when
    a group of several fails."""
    if not answers:
        return []
    try:
        return get_task(instance.task).score_answers(instance, answers)
    except ArgcError as error:
        failure = Score(0.0, False, f"unscorable: {error}")
    except Exception as error:  # noqa: BLE001 - a scorer must never raise on model output
        failure = Score(0.0, False, f"scorer error: {type(error).__name__}: {error}")
    return [failure] if len(answers) == 1 else None
