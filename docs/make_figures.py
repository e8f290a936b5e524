"""Draw the figures of docs/plot.md into docs/figures/ (run: ``python docs/make_figures.py``).

Every figure comes from a seeded simulation and the package's own functions,
so running this again gives the same pictures.  Needs matplotlib (the
``plot`` extra).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib as mpl

mpl.use("Agg")

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

import lodestar_polars as lp  # noqa: E402
from lodestar_polars import plot  # noqa: E402

OUT = Path(__file__).resolve().parent / "figures"
mpl.rcParams["svg.hashsalt"] = "lodestar"


def _runs(rng: np.random.Generator) -> pl.DataFrame:
    """Three runs over 200 queries of 30 documents, better runs sharper scores."""
    frames = []
    relevance = rng.random((200, 30)) < 0.15
    for name, signal in (("bm25", 0.8), ("dense", 1.2), ("hybrid", 1.5)):
        score = signal * relevance + rng.normal(size=relevance.shape)
        frames.append(
            pl.DataFrame(
                {
                    "run": name,
                    "query": np.repeat(np.arange(200), 30),
                    "rel": relevance.reshape(-1).astype(int),
                    "score": score.reshape(-1),
                }
            )
        )
    return pl.concat(frames)


def main() -> None:
    """Write the five PNGs."""
    OUT.mkdir(exist_ok=True)
    rng = np.random.default_rng(20261201)
    log = _runs(rng)
    curves = pl.concat(
        log.group_by("run", "query")
        .agg(lp.ndcg("rel", "score", k=k).alias("value"))
        .group_by("run")
        .agg(pl.col("value").mean())
        .with_columns(k=pl.lit(k))
        for k in (1, 3, 5, 10, 20, 30)
    ).sort("run", "k")
    per_query = log.group_by("run", "query").agg(ndcg=lp.ndcg("rel", "score", k=10))
    p = rng.beta(2, 5, 4000)
    clicks = (rng.random(4000) < p).astype(int)
    models = pl.concat(
        [
            pl.DataFrame({"model": "calibrated", "click": clicks, "p": p}),
            pl.DataFrame({"model": "squared", "click": clicks, "p": p**2}),
        ]
    )
    table = pl.DataFrame(
        {
            "run": ["bm25", "dense", "hybrid"] * 2,
            "metric": ["ndcg@10"] * 3 + ["recall@30"] * 3,
            "mean": [0.41, 0.47, 0.52, 0.83, 0.86, 0.88],
            "difference": [0.0, 0.06, 0.11, 0.0, 0.03, 0.05],
            "ci_low": [0.0, 0.03, 0.08, 0.0, -0.01, 0.02],
            "ci_high": [0.0, 0.09, 0.14, 0.0, 0.07, 0.08],
            "p_value": [1.0, 0.0004, 1e-9, 1.0, 0.11, 0.003],
            "significant": [False, True, True, False, False, True],
        }
    )
    figures = {
        "metric_at_k": plot.metric_at_k(curves, title="nDCG@k, mean over 200 queries"),
        "per_query": plot.per_query_distribution(per_query, metric="ndcg", baseline="bm25"),
        "precision_recall": plot.precision_recall_curve(log, "rel", "score", by="query", run="run"),
        "calibration": plot.calibration_diagram(models, "click", "p", by="model"),
        "comparison": plot.comparison_chart(table, alpha=0.05),
    }
    for name, figure in figures.items():
        figure.savefig(OUT / f"{name}.png", dpi=80, metadata={"Software": None})


if __name__ == "__main__":
    main()
