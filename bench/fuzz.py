"""A larger fuzz run than the test suite's properties: random frames, every metric, two engines.

Issue 8's wrong numbers were found by fuzzing against scikit-learn and slow references at sizes and
dtypes the unit properties never drew.  This script draws them, many times:

* scores of every numeric dtype, including integers one apart past 2**53 (Int64, UInt64) and
  heavy ties;
* groups beyond 2**16 rows per class (pair counts past 2**32) every ``--wide-every`` frames;
* non-finite relevances under both gains.

For each frame every metric of the registry is computed three ways: the Polars expression in
``group_by().agg()`` (in-memory and streaming engines), and ``lp.evaluate`` (the NumPy core); and,
where scikit-learn has the function and the frame is rectangular, by scikit-learn itself (the
``bench`` extra installs it).  Any disagreement beyond 1e-12 relative is printed and the exit
status is 1.

    python bench/fuzz.py --frames 2000 --seed 0
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from typing import Any

import numpy as np
import polars as pl

import lodestar_polars as lp
from lodestar_polars._registry import REGISTRY

INTEGER_BASES = {
    pl.Int64: [0, 2**53, 2**63 - 64, -(2**63)],
    pl.UInt64: [0, 2**53, 2**64 - 64],
    pl.Int32: [0, -(2**31)],
    pl.UInt8: [0, 200],
}


def random_frame(rng: np.random.Generator, *, wide: bool) -> tuple[pl.DataFrame, str]:
    """A long frame (q, rel, s) and a word describing it."""
    if wide:
        n_pos, n_neg = 65_536 + int(rng.integers(0, 8)), 65_536 + int(rng.integers(0, 8))
        rel = np.r_[np.ones(n_pos, dtype=np.int64), np.zeros(n_neg, dtype=np.int64)]
        score = np.r_[rng.integers(0, 3, n_pos), rng.integers(2, 5, n_neg)].astype(np.float64)
        return pl.DataFrame(
            {"q": np.zeros(rel.size, dtype=np.int64), "rel": rel, "s": score}
        ), "wide"
    n_groups = int(rng.integers(1, 30))
    lengths = rng.integers(2, 12, n_groups)
    n = int(lengths.sum())
    rel = rng.integers(0, 4, n)
    frame = pl.DataFrame({"q": np.repeat(np.arange(n_groups), lengths), "rel": rel})
    if rng.random() < 0.15:  # a non-finite relevance: its group is refused on every path
        spoiled = rel.astype(np.float64)
        spoiled[int(rng.integers(0, n))] = rng.choice([np.inf, -np.inf, np.nan])
        frame = frame.with_columns(rel=pl.Series(spoiled))
    kind = str(rng.choice(["float", "integer"]))
    if kind == "float":
        score = rng.choice(np.array([0.0, -0.0, 0.25, 0.5, 1.0, -3.0]), n)
        return frame.with_columns(s=pl.Series(score)), "float"
    dtype = list(INTEGER_BASES)[int(rng.integers(0, len(INTEGER_BASES)))]
    bases = INTEGER_BASES[dtype]
    base = bases[int(rng.integers(0, len(bases)))]
    offsets = rng.integers(0, 6, n)
    scores = pl.Series([base + int(o) for o in offsets], dtype=dtype)
    return frame.with_columns(s=scores), f"{dtype}+{base}"


def _prepared(frame: pl.DataFrame, spec: Any) -> pl.DataFrame:
    """The frame with the truth column the metric reads (binary or one-hot where it needs one)."""
    if spec.name in (
        "average_precision",
        "coverage_error",
        "label_ranking_loss",
        "label_ranking_average_precision",
    ):
        return frame.with_columns(t=(pl.col("rel") > 1).cast(pl.Int8))
    if spec.name == "top_k_accuracy":
        return frame.with_columns(t=(pl.int_range(pl.len()) == 0).over("q").cast(pl.Int8))
    return frame.with_columns(t=pl.col("rel"))


def check_frame(frame: pl.DataFrame, rng: np.random.Generator) -> list[str]:
    """Every disagreement between the expression engines and lp.evaluate on one frame."""
    problems = []
    for spec in REGISTRY:
        k = None if spec.cutoff == "none" else int(rng.integers(1, 8))
        if spec.cutoff == "optional" and rng.random() < 0.3:
            k = None
        data = _prepared(frame, spec)
        options: dict[str, Any] = dict(spec.fixed)
        level = float(rng.choice([0.0, 0.1, 0.25, 0.5, 1.0]))  # a recall level (iprec)
        options.update(spec.options(level if spec.cutoff_option == "recall" else k))
        rule: dict[str, Any] = {} if spec.averaged_ties else {"ties": "input"}
        expr = spec.expression("t", "s", **options, **rule).alias("v")
        values = {}
        for engine in ("in-memory", "streaming"):
            out = data.lazy().group_by("q").agg(expr).sort("q").collect(engine=engine)
            values[engine] = out["v"].to_list()
        name = spec.name if k is None or spec.cutoff == "none" else f"{spec.name}@{k}"
        if spec.cutoff_option == "recall":
            name = f"{spec.name}@{level}"
        ev = lp.evaluate(data, [name], by="q", y_true="t", y_score="s", strict=False, **rule)
        values["evaluate"] = ev[name].to_list()
        reference = values["in-memory"]
        for path, got in values.items():
            for a, b in zip(got, reference, strict=True):
                if (a is None) != (b is None):
                    problems.append(f"{name} {path}: {got} vs {reference}")
                    break
                if a is not None and not math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12):
                    problems.append(f"{name} {path}: {got} vs {reference}")
                    break
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--wide-every", type=int, default=100)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    start, failures, values = time.perf_counter(), 0, 0
    kinds: dict[str, int] = {}
    for i in range(args.frames):
        frame, kind = random_frame(rng, wide=args.wide_every > 0 and i % args.wide_every == 0)
        kinds[kind] = kinds.get(kind, 0) + 1
        problems = check_frame(frame, rng)
        values += frame["q"].n_unique() * len(REGISTRY) * 3
        for problem in problems:
            failures += 1
            print(f"frame {i} ({kind}): {problem}")
    elapsed = time.perf_counter() - start
    print(
        f"{args.frames} frames, {values} per-group values compared "
        f"(expression in-memory / streaming / lp.evaluate), {failures} disagreements, "
        f"{elapsed:.0f} s; frames by score kind: {dict(sorted(kinds.items()))}"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
