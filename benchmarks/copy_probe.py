"""How many steps a tiny Qwen2 of argc's shape needs to copy queried names into its answer.

Every ArgGYM answer, KG answer and change-record field names something the prompt names. The
probe isolates that lookup: a sequence is 12 rule lines `[defeasible n1: n2 => n3]` over 14
random names (two letters and a digit, as ArgGYM's claims), then "State the status of each
of the following claims: a, b, c." with three of them, and the answer `a: x` `b: x` `c: x`,
so the answer's only content is the three names in order (the study's warm-up,
`argc.train.lookup`, trains the same way on key-value lines). The tokenizer is the one argc builds
(`argc.train.tiny`), the loss is on the answer alone, and every 100 steps the script prints
the teacher-forced token accuracy on 200 fresh sequences' answers (about 0.72 is the format
alone) and the share of answers right in every token, with tokens/s.

    OMP_NUM_THREADS=1 python benchmarks/copy_probe.py --hidden 128 --layers 2 --lr 3e-3
    OMP_NUM_THREADS=1 python benchmarks/copy_probe.py --hidden 256 --layers 4 --lr 1e-3
"""

from __future__ import annotations

import argparse
import random
import string
import time

from transformers import Qwen2Config

from argc.train.lookup import WarmupSpec, train_on
from argc.train.tiny import seeded_model, token_ids, train_tokenizer

LINES, POOL, QUERIED, BATCH = 12, 14, 3, 16


def name(rng: random.Random) -> str:
    return (
        rng.choice(string.ascii_lowercase)
        + rng.choice(string.ascii_lowercase)
        + str(rng.randrange(10))
    )


def example(rng: random.Random) -> tuple[str, str]:
    """A (prompt, answer) pair: rule lines over a pool of names, and three queried names."""
    pool = sorted({name(rng) for _ in range(POOL)})
    rules = ["[defeasible {}: {} => {}]".format(*rng.sample(pool, 3)) for _ in range(LINES)]
    queried = rng.sample(pool, QUERIED)
    prompt = "\n".join(rules) + "\n\nState the status of each of the following claims: "
    prompt += ", ".join(queried) + ".\n<answer>"
    return prompt, "\n".join(f"{n}: x" for n in queried) + "</answer>"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0, help="the sequences' and the model's")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    tokenizer = train_tokenizer(("".join(example(rng)) for _ in range(3000)), 1024)
    config = Qwen2Config(
        hidden_size=args.hidden,
        intermediate_size=2 * args.hidden,
        num_hidden_layers=args.layers,
        num_attention_heads=args.heads,
        num_key_value_heads=args.heads,
        tie_word_embeddings=True,
        **token_ids(tokenizer),
    )
    model = seeded_model(config, args.seed)
    print(f"parameters {sum(p.numel() for p in model.parameters()):,}", flush=True)
    spec = WarmupSpec(
        steps=args.steps, batch_size=BATCH, learning_rate=args.lr, seed=args.seed, eval_every=100
    )
    held_out = {"copy": [example(random.Random(99 + n)) for n in range(200)]}
    start = time.perf_counter()

    def report(point: dict[str, float]) -> None:
        seconds = time.perf_counter() - start
        print(
            f"step {point['step']}  token accuracy {point['copy_accuracy']:.3f}"
            f"  answers right {point['copy_answers']:.2f}  {seconds:.0f} s"
            f"  {point['tokens'] / seconds:,.0f} tokens/s",
            flush=True,
        )

    train_on(model, tokenizer, example, held_out, spec, report)


if __name__ == "__main__":
    main()
