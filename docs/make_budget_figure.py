"""Draw docs/figures/budget_curve.png, the figure of docs/budget.md and docs/plot.md.

Run: ``python docs/make_budget_figure.py``. The scenario is docs/budget.md's (the same seed,
so the same picture); needs matplotlib (the ``plot`` extra). Kept apart from
``make_figures.py`` while the budget work is on its own branch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib as mpl

mpl.use("Agg")

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

import lodestar_polars as lp  # noqa: E402
from lodestar_polars import plot  # noqa: E402

OUT = Path(__file__).resolve().parent / "figures"


def main() -> None:
    """Write the PNG."""
    rng = np.random.default_rng(0)
    relevant = pl.DataFrame({"user": np.repeat(np.arange(40), 10), "item": np.arange(400)})

    def source(name: str, reach: float, scale: float) -> pl.DataFrame:
        found = rng.random(400) < reach
        rank = np.ceil(rng.exponential(scale, 400)).astype(np.int64)
        keep = found & (rank <= 1000)
        rows = relevant.filter(keep).with_columns(source=pl.lit(name), rank=rank[keep])
        return rows.unique(["user", "rank"], keep="first", maintain_order=True)

    cands = pl.concat(
        [source("popular", 0.3, 20.0), source("ann", 0.6, 300.0), source("neural", 0.9, 400.0)]
    )
    cost: dict[str, Any] = {
        "popular": lambda k: 0.5 + 0.001 * k,
        "ann": lambda k: 2.0 + 0.01 * k,
        "neural": lambda k: 8.0 + 0.02 * k,
    }
    curve = lp.budget_curve(
        cands, by="user", item="item", source="source", rank="rank", relevant=relevant, cost=cost
    )
    figure = plot.budget_curve(
        curve, budgets=[3.0, 10.0, 20.0], title="Recall against latency (ms), 40 users"
    )
    OUT.mkdir(exist_ok=True)
    figure.savefig(OUT / "budget_curve.png", dpi=80, metadata={"Software": None})


if __name__ == "__main__":
    main()
