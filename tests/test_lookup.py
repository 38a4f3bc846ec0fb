"""The lookup warm-up (`argc.train.lookup`): its sequences, its batches and its training
loop, on a tiny model."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from argc.train import lookup, tiny  # noqa: E402

WORDS = [f"w{n}" for n in range(40)]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts = [" ".join(random.Random(n).sample(WORDS, 12)) + " Repeat: values" for n in range(200)]
    spec = tiny.TinySpec(hidden_size=32, layers=1, heads=2, vocab_size=320)
    return tiny.build(spec, texts, tmp_path_factory.mktemp("tiny") / "model")


def test_repeat_answers_repeat_the_prompts_run():
    rng = random.Random(0)
    for _ in range(50):
        prompt, answer = lookup.repeat_example(rng, WORDS, 9)
        run = answer.split(" ")
        assert 4 <= len(run) <= 9
        assert prompt == f"{answer}\nRepeat:\n"


def test_lookup_answers_give_each_asked_key_its_value():
    rng = random.Random(1)
    for _ in range(50):
        prompt, answer = lookup.lookup_example(rng, WORDS, 5, 3)
        lines, question = prompt.split("\n\n")
        values = dict(line.split(": ") for line in lines.split("\n"))
        asked = question.removeprefix("What are the values of ").removesuffix("?\n").split(", ")
        assert len(values) == 5 and len(asked) == 3
        assert answer == "\n".join(f"{key}: {values[key]}" for key in asked)


def test_vocabulary_words_are_single_whole_word_tokens(built):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(built)
    words = lookup.vocabulary_words(tokenizer)
    assert "Repeat" in words and "values" in words
    for word in words:
        assert word[0].isalpha() and len(word) > 1
        assert len(tokenizer(word)["input_ids"]) == 1


def test_batches_score_the_answer_and_its_end_only(built):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(built)
    pairs = [("w1 w2\nRepeat:\n", "w1 w2"), ("w3\nRepeat:\n", "w3 w4 w5")]
    ids, labels, mask = lookup.batch(tokenizer, pairs)
    for row, (prompt, answer) in enumerate(pairs):
        head = len(tokenizer(prompt)["input_ids"])
        tail = tokenizer(answer)["input_ids"] + [tokenizer.eos_token_id]
        assert labels[row, :head].eq(-100).all()
        assert labels[row, head : head + len(tail)].tolist() == tail
        assert int(mask[row].sum()) == head + len(tail)


def test_warm_up_trains_saves_and_records_its_curve(built, tmp_path):
    import json

    from transformers import AutoModelForCausalLM

    spec = lookup.WarmupSpec(steps=3, batch_size=2, held_out=3, eval_every=2, longest=6)
    curve = lookup.warm_up(built, tmp_path / "warm", spec)
    assert [point["step"] for point in curve] == [2, 3]
    assert curve[1]["tokens"] > curve[0]["tokens"] > 0
    assert 0 <= curve[-1]["repeat_accuracy"] <= 1 and 0 <= curve[-1]["lookup_answers"] <= 1
    assert json.loads((tmp_path / "warm" / "log_history.json").read_text()) == curve
    before = AutoModelForCausalLM.from_pretrained(built).state_dict()
    after = AutoModelForCausalLM.from_pretrained(tmp_path / "warm").state_dict()
    assert any(not before[name].equal(after[name]) for name in before)
    again = lookup.warm_up(built, tmp_path / "again", spec)
    assert again == curve  # the same seed draws the same sequences
