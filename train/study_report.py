"""The summary of a learning study (`argc.train.study`), computed from its files alone: the
held-out instances, the predictions before and after GRPO (`{id, response}` lines) and the
GRPO logs. Every success is the library scorer's (`argc score`), so a reader re-scoring the
committed files gets the same rates.

Beside the rates: Wilson 95 % intervals (`argc.bench.report.wilson`), the exact McNemar test
between paired runs (`argc.tasks.norms.metrics.mcnemar`), a trivial baseline scored the same
way, a scan of the after predictions for reward hacking, and the final successes re-verified
by an independent path where the library has one (VERIFIERS)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from argc.bench.report import wilson
from argc.tasks import Instance, Score, get_task
from argc.tasks.answers import UnreadableAnswer, answer_region
from argc.tasks.cli import prediction_scores, read_predictions
from argc.tasks.norms.metrics import mcnemar

#: The statuses a status_query claim can have (its trivial baseline labels every claim alike).
STATUSES = ("justified", "overruled", "undecided")
#: A response that repeats at least this many characters of its prompt verbatim copies it.
COPY_MIN_CHARS = 8


def successes(instances: Sequence[Instance], predictions: dict[str, str]) -> list[bool]:
    """Each instance's complete success under the library scorer, as `argc score`'s."""
    return [result.success for result in prediction_scores(instances, predictions)]


def per_task(instances: Sequence[Instance], predictions: dict[str, str]) -> dict[str, Any]:
    """The table `argc score` prints: per task, n, the success rate and the mean native score."""
    table: dict[str, list[Score]] = {}
    for instance, result in zip(instances, prediction_scores(instances, predictions), strict=True):
        table.setdefault(instance.task, []).append(result)
    return {
        task: {
            "n": len(results),
            "success": sum(r.success for r in results) / len(results),
            "native": round(sum(r.native for r in results) / len(results), 6),
        }
        for task, results in sorted(table.items())
    }


def rate(outcomes: Sequence[bool]) -> dict[str, Any]:
    """n, successes, the success fraction and its Wilson 95 % interval."""
    count = sum(outcomes)
    interval = wilson(count, len(outcomes))
    return {
        "n": len(outcomes),
        "successes": count,
        "success": count / len(outcomes) if outcomes else None,
        "wilson95": None if interval is None else [round(bound, 6) for bound in interval],
    }


def paired(first: Sequence[bool], second: Sequence[bool]) -> dict[str, Any]:
    """The exact McNemar test of two runs on the same instances, and the change in success."""
    test = mcnemar(first, second)
    n = len(first)
    return {**test, "delta": (sum(second) - sum(first)) / n if n else None}


# -- the trivial baseline ------------------------------------------------------------------


def trivial_predictions(instances: Sequence[Instance]) -> tuple[str, dict[str, str]]:
    """The trivial baseline's name and responses: for status_query, every queried claim
    given the one status that scores best over the held-out set; for a KG family, the most
    common gold answer sentence ("Therefore, the answer is ..."), no trace; for any other
    task, the most common gold answer (the majority label). Chosen with the held-out golds,
    so the baseline is if anything too strong."""
    if instances and all(instance.task == "status_query" for instance in instances):
        return _best_constant_status(instances)
    tagged = [get_task(instance.task).tagged for instance in instances]
    answers = [
        _final_answer(instance, tag) for instance, tag in zip(instances, tagged, strict=True)
    ]
    majority = Counter(answers).most_common(1)[0][0] if answers else ""
    response = {
        instance.id: f"<answer>{majority}</answer>" if tag else majority
        for instance, tag in zip(instances, tagged, strict=True)
    }
    return f"majority answer {majority!r}", response


def _final_answer(instance: Instance, tagged: bool) -> str:
    """The gold answer (a KG family's: the last sentence of its solution)."""
    if tagged:
        return instance.reference
    head, sep, tail = instance.reference.rpartition("Therefore")
    return f"{sep}{tail}".strip() if sep else instance.reference


def _best_constant_status(instances: Sequence[Instance]) -> tuple[str, dict[str, str]]:
    def labelled(status: str) -> dict[str, str]:
        return {
            instance.id: "<answer>"
            + "\n".join(f"{claim}: {status}" for claim in instance.target)
            + "</answer>"
            for instance in instances
        }

    best = max(STATUSES, key=lambda status: sum(successes(instances, labelled(status))))
    return f"every claim {best}", labelled(best)


# -- reward hacking ------------------------------------------------------------------------


def hacking_scan(
    instances: Sequence[Instance], predictions: dict[str, str], outcomes: Sequence[bool]
) -> dict[str, Any]:
    """What could betray reward hacking in a run's responses: their mean length against the
    references' (both in characters), the share that copies the question (the answer, at
    least COPY_MIN_CHARS characters, appears verbatim in the prompt), the share that is well
    formed (one answer region the task's reader accepts, or any text for a KG family) but
    wrong, the share of successes with more text outside the answer region (and its tags)
    than in it, and the share of the most common answer (a policy that answers everything
    alike has collapsed onto a constant, whatever its success). A closed label of a tagged
    task (a verdict, a status) is no copy, though the prompt lists them; a KG task's labels
    are the story's names, and a bare name is the copy the scan looks for."""
    n = len(instances)
    responses = [predictions.get(instance.id, "") for instance in instances]
    answers = [
        _answer(instance, response) for instance, response in zip(instances, responses, strict=True)
    ]
    copied = sum(
        1
        for instance, answer in zip(instances, answers, strict=True)
        if answer is not None
        and len(answer.strip()) >= COPY_MIN_CHARS
        and answer.strip() in instance.prompt
        and not _closed_label(instance, answer.strip())
    )
    formed = [
        _well_formed(instance, response)
        for instance, response in zip(instances, responses, strict=True)
    ]
    padded = sum(
        1
        for instance, response, answer, success in zip(
            instances, responses, answers, outcomes, strict=True
        )
        if success and answer is not None and _outside(instance, response, answer) > len(answer)
    )
    wins = sum(outcomes)
    common = Counter((a or "").strip() for a in answers).most_common(1)
    return {
        "mean_response_chars": _mean([len(r) for r in responses]),
        "mean_reference_chars": _mean([len(instance.reference) for instance in instances]),
        "copies_question": copied / n if n else None,
        "well_formed_but_wrong": sum(f and not s for f, s in zip(formed, outcomes, strict=True)) / n
        if n
        else None,
        "successes_mostly_outside_answer": padded / wins if wins else None,
        "most_common_answer_share": common[0][1] / n if n else None,
    }


def _answer(instance: Instance, response: str) -> str | None:
    return answer_region(response) if get_task(instance.task).tagged else response


def _closed_label(instance: Instance, answer: str) -> bool:
    """Whether the answer is one of the labels a tagged task's prompt offers to choose from."""
    task = get_task(instance.task)
    return task.tagged and answer in task.labels


def _outside(instance: Instance, response: str, answer: str) -> int:
    """Characters of a response outside its answer region and that region's tags."""
    tags = len("<answer></answer>") if get_task(instance.task).tagged else 0
    return len(response) - len(answer) - tags


def _well_formed(instance: Instance, response: str) -> bool:
    """One answer region that the task's reader accepts (a KG response: any text)."""
    if not get_task(instance.task).tagged:
        return bool(response.strip())
    from argc.train.rewards import format_reward

    return format_reward([response], instance=[instance.to_json()])[0] == 1.0


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


# -- independent re-verification -----------------------------------------------------------

#: An independent check of a successful response: True when it agrees, False when not.
Verifier = Callable[[Instance, str], bool]


def _pyarg_status_query(instance: Instance, response: str) -> bool:
    """The response's statuses against PyArg's grounded statuses of the queried claims
    (`argc.bench.oracle`, which needs PyArg from the `bench` extra)."""
    from argc.bench.oracle import oracle
    from argc.dsl.ir import Ordering
    from argc.tasks.answers import read_entries

    region = answer_region(response) or ""
    given = {str(claim): status for claim, status in read_entries(region, "status_map")}
    truth = oracle(instance.parsed_theory, Ordering(instance.ordering, instance.set)).statuses(
        list(instance.parsed_theory.queries)
    )
    return given == truth


def _simulated_kg_deductive(instance: Instance, response: str) -> bool:
    """The response against the trace of the reference simulator (`argc.dsl.kg.simulate`,
    plain Python from the event semantics) instead of the ASP timeline the gold was read
    from: the world is drawn again from the instance's coordinates (it must tell the same
    story), simulated, and its target's first steps written as a trace; the response must
    match that trace's process and answer."""
    from argc.compiler.kg.solve import KgTimeline
    from argc.dsl.kg import simulate
    from argc.tasks.kg.families import generate_instance
    from argc.tasks.kg.solutions import answer_match, extract_answer, parse_solution
    from argc.tasks.kg.solutions import process_match as same_process
    from argc.tasks.kg.traces import deduction

    meta = instance.meta
    drawn = generate_instance(
        "deductive", meta["depth"], meta["complexity"], instance.seed, meta["split"]
    )
    if drawn.prompt != instance.prompt:
        return False
    world = drawn.world
    simulated = KgTimeline(
        world,
        tuple(simulate.timeline(world)),
        ((), *(simulate.affected(event) for event in world.events)),
        {},
    )
    slot = drawn.form.split("_", 1)[1]
    truth = deduction(simulated, drawn.target, len(drawn.solution.steps), slot)
    found = extract_answer(response)
    try:
        process = same_process(parse_solution(response, "deductive"), truth)
    except UnreadableAnswer:
        return False
    return process and found is not None and answer_match(found, (truth.answer,), "deductive")


#: The independent verifiers by task, with their names; a task not listed has none in the
#: library (the brute-force simulator of the norm worlds is test code). A study script may
#: add its own here.
VERIFIERS: dict[str, tuple[str, Verifier]] = {
    "status_query": ("PyArg grounded statuses", _pyarg_status_query),
    "kg_deductive": ("KG reference simulator", _simulated_kg_deductive),
}


def reverify(
    instances: Sequence[Instance], predictions: dict[str, str], outcomes: Sequence[bool]
) -> dict[str, Any]:
    """The successes re-checked by their task's verifier: how many were checked and agreed,
    per verifier, and the tasks with no verifier (or whose verifier cannot run here)."""
    checked: Counter[str] = Counter()
    agreed: Counter[str] = Counter()
    missing: dict[str, str] = {}
    for instance, success in zip(instances, outcomes, strict=True):
        if not success:
            continue
        if instance.task not in VERIFIERS:
            missing[instance.task] = "no independent verifier in the library"
            continue
        name, verify = VERIFIERS[instance.task]
        try:
            ok = verify(instance, predictions[instance.id])
        except ImportError as error:
            missing[instance.task] = f"{name} unavailable: {error}"
            continue
        checked[name] += 1
        agreed[name] += ok
    return {
        "verifiers": {name: {"checked": checked[name], "agreed": agreed[name]} for name in checked},
        "unverified_tasks": dict(sorted(missing.items())),
    }


# -- completions shown ---------------------------------------------------------------------

#: Characters of a prompt's end shown beside a completion (a KG story is long; its question
#: and the solution cue are at the end).
PROMPT_TAIL = 240


def completion_examples(
    instances: Sequence[Instance],
    predictions: dict[str, str],
    right: int = 20,
    wrong: int = 10,
) -> str:
    """Markdown: `right` successful and `wrong` failed completions, each with its instance's
    id, the end of its prompt, the response and the scorer's reason. They are taken in
    turn from each cell (task and level, or KG depth and complexity) in the instances' order,
    so that every cell shows its completions."""
    scores = prediction_scores(instances, predictions)
    cells: dict[str, list[int]] = {}
    for index, instance in enumerate(instances):
        meta = instance.meta
        key = (
            f"D{meta['depth']} T{meta['complexity']}"
            if "depth" in meta
            else f"{instance.task} level {instance.level}"
        )
        cells.setdefault(key, []).append(index)
    sections = []
    for title, count, wanted in (("Successful", right, True), ("Failed", wrong, False)):
        queues = [[i for i in indices if scores[i].success == wanted] for indices in cells.values()]
        chosen: list[int] = []
        while len(chosen) < count and any(queues):
            chosen += [queue.pop(0) for queue in queues if queue][: count - len(chosen)]
        lines = [f"#### {title} completions ({len(chosen)})", ""]
        for index in chosen:
            instance = instances[index]
            tail = instance.prompt[-PROMPT_TAIL:].replace("\n", " ")
            lines += [
                f"- `{instance.id}`: {scores[index].reason}",
                f"  - prompt (end): …{tail}",
                f"  - response: {' '.join(predictions.get(instance.id, '').split())}",
            ]
        sections.append("\n".join(lines))
    return "\n\n".join(sections) + "\n"


# -- logs ----------------------------------------------------------------------------------


def grpo_figures(history: list[dict[str, Any]], completions_per_step: int) -> dict[str, Any]:
    """Steps, seconds, tokens/s, rewards/s (completions scored per second: each gets every
    reward function), the mean zero-std fraction and the reward means of a GRPO log."""
    from argc.train.metrics import reward_means, zero_std

    steps = max((int(entry.get("step", 0)) for entry in history), default=0)
    runtime = next((e["train_runtime"] for e in reversed(history) if "train_runtime" in e), None)
    tokens = next((e["num_tokens"] for e in reversed(history) if "num_tokens" in e), None)
    flat = zero_std(history)
    per_second = runtime is not None and runtime > 0
    return {
        "steps": steps,
        "seconds": None if runtime is None else round(runtime, 1),
        "tokens_per_s": round(tokens / runtime, 1) if per_second and tokens else None,
        "rewards_per_s": round(steps * completions_per_step / runtime, 3) if per_second else None,
        "zero_std_fraction": None if flat.mean is None else round(flat.mean, 4),
        "reward_means": {name: round(value, 4) for name, value in reward_means(history).items()},
    }


def read_predictions_file(path: Path) -> dict[str, str]:
    """The responses of a predictions file by id (`argc score`'s reader)."""
    return read_predictions(path)[0]


def write_json(path: Path, value: Any) -> None:
    """A JSON file written whole (atomically)."""
    from argc.files import write_output

    write_output(path, json.dumps(value, indent=1, sort_keys=True) + "\n")


# -- the summary ---------------------------------------------------------------------------


def summarise(
    out: Path,
    family: str,
    arms: Sequence[str],
    completions_per_step: int,
    minutes: float,
    training_cells: set[tuple[int, int]] | None = None,
) -> dict[str, Any]:
    """The summary of a study folder (module docstring), from its files: INSTANCES,
    `before.jsonl`, `after-<arm>.jsonl` and each arm's `log_history.json` and `curve.json`.
    The first arm's figures are also the top-level `success_after` (its predictions are
    `after.jsonl`). With `training_cells` (KG), success in and out of the recipe's cells."""
    from argc.tasks.cli import read_instances
    from argc.train.metrics import read_log_history

    instances = read_instances(out / "instances.jsonl")
    before_responses = read_predictions_file(out / "before.jsonl")
    before = successes(instances, before_responses)
    name, trivial = trivial_predictions(instances)
    baseline = successes(instances, trivial)
    rows: dict[str, Any] = {}
    outcomes: dict[str, list[bool]] = {}
    for arm in arms:
        responses = read_predictions_file(out / f"after-{arm}.jsonl")
        after = outcomes[arm] = successes(instances, responses)
        folder = out / "arms" / arm
        curve = folder / "curve.json"
        rows[arm] = {
            "after": rate(after),
            "argc_score": per_task(instances, responses),
            "mcnemar": paired(before, after),
            "against_trivial_baseline": paired(baseline, after),
            "grpo": grpo_figures(
                read_log_history(folder / "log_history.json"), completions_per_step
            ),
            "curve": json.loads(curve.read_text()) if curve.is_file() else [],
            "hacking": hacking_scan(instances, responses, after),
            "reverified": reverify(instances, responses, after),
        }
        if training_cells is not None:
            rows[arm]["cells"] = cell_split(instances, before, after, training_cells)
    first = arms[0]
    summary = {
        "family": family,
        "instances": len(instances),
        "tasks": dict(sorted(Counter(instance.task for instance in instances).items())),
        "success_before": rate(before)["success"],
        "success_after": rows[first]["after"]["success"],
        "after_arm": first,
        "before": rate(before),
        "before_argc_score": per_task(instances, before_responses),
        "trivial_baseline": {
            "name": name,
            **rate(baseline),
            "supervised_beats_it": paired(baseline, before),
        },
        "arms": rows,
        "between_arms": {
            f"{a} vs {b}": paired(outcomes[a], outcomes[b])
            for index, a in enumerate(arms)
            for b in arms[index + 1 :]
        },
        "before_hacking": hacking_scan(instances, before_responses, before),
        "minutes": round(minutes, 2),
    }
    return summary


def cell_split(
    instances: Sequence[Instance],
    before: Sequence[bool],
    after: Sequence[bool],
    cells: set[tuple[int, int]],
) -> dict[str, Any]:
    """Success before and after on the KG instances in the training cells and outside."""
    split: dict[str, Any] = {}
    for where, inside in (("in_recipe", True), ("out_of_recipe", False)):
        chosen = [
            index
            for index, instance in enumerate(instances)
            if ((instance.meta["depth"], instance.meta["complexity"]) in cells) == inside
        ]
        split[where] = {
            "before": rate([before[i] for i in chosen]),
            "after": rate([after[i] for i in chosen]),
        }
    return split


def write_curves(out: Path, summary: dict[str, Any], path: Path) -> None:
    """curves.png: per arm, the reward mean and the zero-std fraction over GRPO steps (its
    `log_history.json`) and the held-out success of the curve subset (step 0: the supervised
    checkpoint on it, or on the whole held-out set for a curve recorded without step 0)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from argc.files import write_png
    from argc.train.metrics import ZERO_STD, read_log_history

    figure, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    for arm, row in summary["arms"].items():
        history = read_log_history(out / "arms" / arm / "log_history.json")
        for axis, key in ((axes[0], "reward"), (axes[1], ZERO_STD)):
            points = [(e["step"], e[key]) for e in history if isinstance(e.get(key), int | float)]
            if points:
                axis.plot(*zip(*points, strict=True), marker=".", label=arm)
        curve = [(p["step"], p["success"]) for p in row["curve"]]
        if not curve or curve[0][0] != 0:
            curve.insert(0, (0, summary["success_before"]))
        axes[2].plot(*zip(*curve, strict=True), marker="o", label=arm)
    for axis, title in zip(
        axes, ("reward mean", "zero-std fraction", "held-out success"), strict=True
    ):
        axis.set_title(title)
        axis.set_xlabel("GRPO step")
        if axis.get_legend_handles_labels()[0]:
            axis.legend(fontsize=8)
    figure.tight_layout()
    write_png(figure, path)
    plt.close(figure)


def kg_heatmaps(
    instances: Sequence[Instance],
    runs: dict[str, Sequence[bool]],
    baseline: Sequence[bool],
    cells: dict[str, set[tuple[int, int]]],
    directory: Path,
) -> list[str]:
    """Depth x complexity heatmaps of pass@1 and SG of each run against the supervised
    checkpoint (`argc.train.metrics`), with each run's training cells for the in/out-of-recipe
    gains; returns the files written."""
    from argc.train.metrics import Prompt, build_report, write_heatmaps

    def prompts(checkpoint: str, outcomes: Sequence[bool]) -> list[Prompt]:
        return [
            Prompt(
                checkpoint,
                instance.id,
                instance.task,
                None,
                None,
                None,
                1,
                int(won),
                instance.meta["depth"],
                instance.meta["complexity"],
            )
            for instance, won in zip(instances, outcomes, strict=True)
        ]

    report = build_report(
        [p for name, outcomes in runs.items() for p in prompts(name, outcomes)],
        prompts("before", baseline),
        max_k=1,
        ceiling_k=1,
        recipe_cells={name: sorted(cells[name]) for name in runs},
    )
    directory.mkdir(parents=True, exist_ok=True)
    return [file for _, file in write_heatmaps(report, directory)]


def markdown_table(folders: Sequence[Path]) -> str:
    """The figures of finished studies (their summary.json), one Markdown row an arm: held-out
    success before and after GRPO with Wilson intervals, the exact McNemar p, steps, minutes,
    tokens/s and the zero-std fraction, as docs/learning.md records them."""

    def percent(row: dict[str, Any]) -> str:
        low, high = row["wilson95"]
        return f"{100 * row['success']:.1f} % [{100 * low:.1f}, {100 * high:.1f}]"

    lines = [
        "| study | arm | n | before | after | McNemar p | steps | minutes | tokens/s | zero-std |",
        "|---|---|---:|---|---|---:|---:|---:|---:|---:|",
    ]
    for folder in folders:
        summary = json.loads((Path(folder) / "summary.json").read_text())
        for arm, row in summary["arms"].items():
            grpo = row["grpo"]
            lines.append(
                f"| {summary['family']} | {arm} | {summary['instances']} |"
                f" {percent(summary['before'])} | {percent(row['after'])} |"
                f" {row['mcnemar']['p']:.3g} | {grpo['steps']} | {summary['minutes']} |"
                f" {grpo['tokens_per_s']} | {grpo['zero_std_fraction']} |"
            )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import sys

    sys.stdout.write(markdown_table([Path(arg) for arg in sys.argv[1:]]))
