"""`argc bench diagnose`: the principle and set switches on hand-built theories whose outcome
is derived by hand, the matched-pair and scale tables on hand-written rows, the report, the
command's exit codes, and a run on a tiny build."""

from __future__ import annotations

import json
from dataclasses import astuple
from pathlib import Path

import pytest

from argc.bench.build import build
from argc.bench.diagnose import (
    Switches,
    _switch_job,
    diagnose,
    markdown,
    matched_pair,
    principle_switch,
    scale,
    set_switch,
    solve_switches,
    switches,
)
from argc.cli import main
from argc.dsl.errors import ArgcError
from argc.dsl.ir import ORDERINGS, Ordering
from argc.dsl.parser import parse_theory
from argc.tasks import Instance

LL_E, LL_D = Ordering("last-link", "elitist"), Ordering("last-link", "democratic")
WL_E, WL_D = Ordering("weakest-link", "elitist"), Ordering("weakest-link", "democratic")

# D3 = d3(d1(a)) concludes p, D2 = d2(c) concludes -p, with d1 < d2 < d3. Last-link compares
# {d3} with {d2}: D2 is weaker, so D3 defeats D2 and p is justified under either set
# comparison. Weakest-link compares {d1, d3} with {d2}: elitist makes D3 weaker (d1 < d2), so
# D2 defeats D3 and -p is justified; democratic needs d3 < d2 too, so D3 still defeats D2.
EARLIER_RULE = """\
[axiom: a]
[axiom: c]
[defeasible d1: a => b]
[defeasible d3: b => p]
[defeasible d2: c => -p]
[prefer_rule: d3 > d2]
[prefer_rule: d2 > d1]
"""
# Every argument has one defeasible rule and firm premises: both principles compare {d1} with
# {d2}, and on one-element sets elitist and democratic agree. No switch can change anything.
SINGLE_RULES = """\
[axiom: a]
[axiom: c]
[defeasible d1: a => p]
[defeasible d2: c => -p]
[prefer_rule: d1 > d2]
"""
# S = s1(d1(a), d2(a)) concludes p by a strict rule, so its last (and all) defeasible rules
# are {d1, d2}; D3 = d3(c) concludes -p, with d1 < d3 < d2. S rebuts D3 (D3 cannot rebut S's
# strict conclusion). Elitist: d1 < d3 makes S weaker, no defeat; democratic: d2 < d3 fails,
# so S defeats D3. The principles agree, as every defeasible rule of S is a last one.
TWO_LAST_RULES = """\
[axiom: a]
[axiom: c]
[defeasible d1: a => b]
[defeasible d2: a => e]
[strict s1: b AND e -> p]
[defeasible d3: c => -p]
[prefer_rule: d3 > d1]
[prefer_rule: d2 > d3]
"""


@pytest.mark.parametrize(
    ("text", "ordering", "expected"),
    [
        (EARLIER_RULE, LL_E, Switches(principle=True, set_comparison=False)),
        (EARLIER_RULE, LL_D, Switches(principle=False, set_comparison=False)),
        (EARLIER_RULE, WL_E, Switches(principle=True, set_comparison=True)),
        (EARLIER_RULE, WL_D, Switches(principle=False, set_comparison=True)),
        *((SINGLE_RULES, o, Switches(principle=False, set_comparison=False)) for o in ORDERINGS),
        *((TWO_LAST_RULES, o, Switches(principle=False, set_comparison=True)) for o in ORDERINGS),
    ],
)
def test_switches_of_hand_built_theories(text, ordering, expected):
    assert switches(parse_theory(text), ordering) == expected


def row(task: str, ordering: Ordering | str = LL_E, **fields) -> Instance:
    """A hand-written row (`ordering` as text writes an unreadable principle)."""
    level, seed = fields.pop("level", 1), fields.pop("seed", 0)
    principle, comparison = (
        (ordering, "elitist") if isinstance(ordering, str) else astuple(ordering)[:2]
    )
    record = {
        "id": f"{task}-{level}-{principle}-{comparison}-{seed}",
        "task": task,
        "level": level,
        "ordering": principle,
        "set": comparison,
        "seed": seed,
        "theory": EARLIER_RULE,
        "prompt": "",
        "reference": "",
        "target": {},
        "meta": {},
    }
    return Instance.from_record({**record, **fields})


def test_switch_tables_count_per_task_and_principle_beside_the_paper():
    instances = [
        row("status_query", LL_E, seed=0),
        row("status_query", WL_D, seed=1),
        row("status_query", LL_D, seed=2),
        row("my_task", LL_E),
        row("claim_chain", WL_E),
    ]
    found = [
        Switches(True, False),
        Switches(True, True),
        Switches(False, True),
        Switches(True, True),
        Switches(False, False),
    ]
    principle = principle_switch(instances, found)
    assert list(principle) == ["claim_chain", "status_query", "my_task"]
    assert principle["status_query"] == {
        "changed": 2,
        "rows": 3,
        "paper": {"changed": 107, "rows": 120},
    }
    assert principle["claim_chain"]["changed"] == 0
    assert principle["claim_chain"]["paper"] == {"changed": 120, "rows": 120}
    assert principle["my_task"]["paper"] is None
    table = set_switch(instances, found)
    assert table["status_query"]["last-link"] == {"changed": 1, "rows": 2}
    assert table["status_query"]["weakest-link"] == {"changed": 1, "rows": 1}
    assert table["status_query"]["paper_last_link"] == "differs"
    assert table["claim_chain"]["paper_last_link"] == "same"
    assert table["my_task"]["paper_last_link"] is None
    assert table["claim_chain"]["last-link"] == {"changed": 0, "rows": 0}


def pair_row(task: str, minimum: int | None, paired: int, **fields) -> Instance:
    target = {"paired_min_directives": paired}
    if minimum is not None:
        target["min_directives"] = minimum
    return row(task, target=target, **fields)


def test_matched_pair_counts_minima_gaps_partners_and_disagreements():
    instances = [
        pair_row("counter_argument", 3, 2, level=1),
        pair_row("counter_argument_strict", 2, 3, level=1),
        pair_row("counter_argument", 5, 3, ordering=WL_D, level=2, seed=1),
        pair_row("counter_argument_strict", 3, 5, ordering=WL_D, level=2, seed=1),
        # The strict row records its partner's minimum as 2; the partner records 4.
        pair_row("counter_argument", 4, 3, ordering=WL_D, level=2, seed=2),
        pair_row("counter_argument_strict", 3, 2, ordering=WL_D, level=2, seed=2),
        pair_row("counter_argument", 6, 5, level=3, seed=9),
        pair_row("attack", 9, 9),
    ]
    pair = matched_pair(instances)
    assert pair["pairs"] == 3
    assert pair["unpaired"] == {"counter_argument": 1, "counter_argument_strict": 0}
    assert pair["disagreeing"] == 1
    assert pair["ordinary"] == {"3": 1, "4": 1, "5": 1, "6": 1}
    assert pair["strict"] == {"2": 1, "3": 2}
    assert pair["gap"] == {"1": 2, "2": 1}
    assert pair["paper"]["gap"] == {"1": 112, "2": 8}
    assert pair["paper"]["ordinary"] == {"3": 40, "4": 48, "5": 24, "6": 8}
    assert pair["paper"]["strict"] == {"2": 48, "3": 40, "4": 24, "5": 8}


def test_a_pair_row_without_a_minimum_is_named():
    with pytest.raises(ArgcError, match="counter_argument_strict-1.*min_directives"):
        matched_pair([pair_row("counter_argument_strict", None, 3)])


def test_scale_medians_per_band():
    small = "[query: p, q]\n[axiom: a]\n[defeasible d1: a => p]\n"  # 2 directives, 2 queried
    large = "[query: p, q, r, s]\n" + EARLIER_RULE  # 7 directives, 4 queried
    instances = [
        row("status_query", theory=small, meta={"arguments": 2}, level=1),
        row("status_query", theory=large, meta={"arguments": 6}, level=5, seed=1),
        row("status_query", theory=EARLIER_RULE, meta={"arguments": 5}, level=11),
    ]
    table = scale(instances, [instance.parsed_theory for instance in instances])
    assert table["status_query"]["L1–L5"] == {
        "rows": 2,
        "directives": 4.5,
        "arguments": 4,
        "queried": 3,
    }
    assert table["status_query"]["L11–L15"] == {
        "rows": 1,
        "directives": 7,
        "arguments": 5,
        "queried": None,
    }
    assert "L6–L10" not in table["status_query"]


def write_rows(directory: Path, instances: list[Instance]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    text = "".join(instance.to_json() + "\n" for instance in instances)
    (directory / "rows.jsonl").write_text(text, encoding="utf-8")
    return directory


HAND_ROWS = [
    row("status_query", LL_E, seed=0),  # principle changes; last-link set switch does not
    row("status_query", LL_D, seed=1),  # neither
    row("status_query", WL_E, seed=2),  # both
    row("status_query", LL_D, theory=TWO_LAST_RULES, seed=3),  # set only
    row("claim_chain", LL_E, theory=SINGLE_RULES),  # neither
]


def test_command_reports_hand_derived_counts_and_writes_json(tmp_path, capsys):
    directory = write_rows(tmp_path / "bench", HAND_ROWS)
    out = tmp_path / "diagnostics.md"
    code = main(["bench", "diagnose", str(directory), "--workers", "1", "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert out.read_text(encoding="utf-8") == printed
    assert "| status_query | 2/4 | 107/120 |" in printed
    assert "| claim_chain | 0/1 | 120/120 |" in printed
    assert "| status_query | 1/3 | > 0 (the designed exception) | 1/1 |" in printed
    assert "| claim_chain | 0/1 | 0 (same relation) | 0/0 |" in printed
    assert "| 2 | 0 | 0 | 0 | 48 | 0 | 8 |" in printed  # paper figures beside argc's
    numbers = json.loads((tmp_path / "diagnostics.json").read_text(encoding="utf-8"))
    assert numbers["rows"] == 5
    assert numbers["principle_switch"]["status_query"]["changed"] == 2
    assert numbers["set_switch"]["status_query"]["last-link"] == {"changed": 1, "rows": 3}
    assert numbers["matched_pair"]["pairs"] == 0


def test_report_is_deterministic_whatever_the_workers(tmp_path):
    directory = write_rows(tmp_path / "bench", HAND_ROWS)
    one, two = (diagnose(directory, workers) for workers in (1, 2))
    assert one == two
    assert markdown(one, "x") == markdown(two, "x")


@pytest.mark.parametrize(
    ("setup", "extra", "message"),
    [
        (lambda d: None, [], "no such benchmark folder"),
        (lambda d: d.mkdir(), [], "cannot read"),
        (lambda d: write_rows(d, []), [], "no rows"),
        (lambda d: write_rows(d, [row("status_query", theory="[axiom a]")]), [], "status_query"),
        (lambda d: write_rows(d, [row("claim_chain", ordering="first-link")]), [], "first-link"),
        (lambda d: write_rows(d, HAND_ROWS), ["--out", "numbers.json"], "Markdown report"),
    ],
)
def test_bad_input_exits_2_in_one_line(tmp_path, capsys, monkeypatch, setup, extra, message):
    monkeypatch.chdir(tmp_path)
    setup(tmp_path / "bench")
    assert main(["bench", "diagnose", "bench", "--workers", "1", *extra]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("argc bench diagnose: ")
    assert message in lines[0]


# a and b have 75 arguments each (one per axiom), so t has 75 × 75 = 5,625: more than the
# 5,000 arguments a row may have.
EXPLODING = "[defeasible t: a AND b => t]\n" + "".join(
    f"[axiom: k{i}]\n[defeasible a{i}: k{i} => a]\n[defeasible b{i}: k{i} => b]\n"
    for i in range(75)
)


def test_a_row_past_the_limits_is_named_not_counted():
    theory = parse_theory(EXPLODING)
    assert "argument" in _switch_job((0, theory, LL_E))[1]
    with pytest.raises(ArgcError, match=r"1 row\(s\) could not be solved; row 2: .*argument"):
        solve_switches([parse_theory(SINGLE_RULES), theory], [LL_E, LL_E], 1)


def test_tiny_build_pairs_every_counter_row(tmp_path):
    out = tmp_path / "bench"
    build(out, 2, tasks=["counter_argument", "counter_argument_strict"], levels=[1])
    result = diagnose(out, 2)
    # One level × four orderings × two seeds per task; both arms accept the same seeds.
    pair = result["matched_pair"]
    assert (pair["pairs"], pair["unpaired"], pair["disagreeing"]) == (
        8,
        {"counter_argument": 0, "counter_argument_strict": 0},
        0,
    )
    # The generator keeps a pair only when the strict arm's minimum is lower.
    assert all(int(gap) >= 1 for gap in pair["gap"])
    assert sum(pair["gap"].values()) == 8
    assert {task: entry["rows"] for task, entry in result["principle_switch"].items()} == {
        "counter_argument": 8,
        "counter_argument_strict": 8,
    }
