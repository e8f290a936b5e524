"""lp.ranking_report at eval-log scale: the whole report against lp.evaluate's micro pass.

A long frame of ``--lists`` lists x ``--items`` candidates (default 100,000 x 100 = 1e7 rows),
scores with heavy ties (``integers(0, 64) / 8``), one clicked item per list drawn from a Zipf-like
popularity, ``--clusters`` entities (default 10,000; ten lists each) as the bootstrap unit, and a
training log of 1e6 clicks from the same popularity.  Each part runs in its own process
(best of ``--reps``), which reports its wall time and its peak resident memory (``ru_maxrss``):

* ``evaluate``: ``lp.evaluate(frame, ["hit_rate@1", "hit_rate@5", "hit_rate@10", "mrr@10",
  "ndcg@10"], by="list", mean=True)``, the same micro metrics, ties averaged;
* ``report``: ``lp.ranking_report`` with its default objectives (``accuracy`` and ``coverage``,
  which fits the comparability state), the popularity floor from ``train``, ``groups``, and the
  1000-resample bootstrap;
* ``bootstrap``: the bootstrap alone (per-unit sums to intervals), on the report's per-list values;
* ``floor``: Polars sorting the frame by (list, score descending), the cost any ranking pays.

With ``--lazy`` the log is written to Parquet under ``bench/data/`` (not committed), sorted by
list and shuffled, and each child process scans it (the frame never in its memory; peak RSS
is the child's ``VmHWM``, as in bench/out_of_core.py):

* ``evaluate``: ``lp.evaluate`` on the scan (read once, in parts);
* ``report``: ``lp.ranking_report`` on the scan, read once in parts of whole lists
  (``batch_rows`` 5e6, the default);
* ``report-whole``: the same call with ``batch_rows`` above the rows: the scan collected whole,
  the path every ``LazyFrame`` took before the parts;
* ``report-state``: ``report`` with the comparability state given (fitted and saved by the
  parent), so that the report does not fit it from the scan.

Usage: ``python bench/report.py [--lists 100000] [--items 100] [--clusters 10000] [--reps 2]
[--lazy [--calls evaluate,report,report-whole,report-state]]`` (``evaluate`` first: the
ratios are to it).  The printed table goes into docs/performance.md by hand.
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

import lodestar_polars as lp

METRICS = ["hit_rate@1", "hit_rate@5", "hit_rate@10", "mrr@10", "ndcg@10"]


def make(args: argparse.Namespace) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The scores frame and the training log."""
    rng = np.random.default_rng(3)
    n_lists, n_items = args.lists, args.items
    n = n_lists * n_items
    weights = 1.0 / np.arange(1, n_items + 1) ** 1.1
    weights /= weights.sum()
    truth = rng.choice(n_items, size=n_lists, p=weights)
    items = np.tile(np.arange(n_items, dtype=np.int32), n_lists)
    lists = np.repeat(np.arange(n_lists, dtype=np.int32), n_items)
    frame = pl.DataFrame(
        {
            "list": lists,
            "entity": lists // max(1, n_lists // args.clusters),
            "item": items,
            "score": rng.integers(0, 64, n) / 8.0,
            "clicked": items == np.repeat(truth, n_items),
        }
    )
    train = pl.DataFrame({"item": rng.choice(n_items, size=1_000_000, p=weights).astype(np.int32)})
    return frame, train


def objectives() -> tuple[str, ...]:
    """The report's objectives (its defaults)."""
    return ("accuracy", "coverage")


def part(name: str, args: argparse.Namespace) -> dict[str, Any]:
    """Time one part in this process: its best time and the process's peak RSS."""
    frame, train = make(args)
    gc.collect()
    runs: dict[str, Callable[[], Any]] = {
        "floor": lambda: frame.sort(["list", "score"], descending=[False, True]),
        "evaluate": lambda: lp.evaluate(
            frame, METRICS, by="list", y_true="clicked", y_score="score", mean=True
        ),
        "report": lambda: lp.ranking_report(
            frame,
            by="list",
            item="item",
            y_true="clicked",
            y_score="score",
            k=10,
            objectives=objectives(),  # type: ignore[arg-type]
            train=train,
            groups="entity",
        ),
    }
    if name == "bootstrap":
        from lodestar_polars._report.ranking_report import (
            _grade,
            _popularity,
            _uncertainty,
            score_block,
            tail_items,
        )

        g, base = _grade(
            frame,
            keys=["list"],
            item="item",
            score="score",
            truth="clicked",
            groups="entity",
            multi_positive="each",
            engine="auto",
        )
        pop, others, total, _ = _popularity(g, "item", train, None)
        assert pop is not None
        tail = tail_items(pop, total, 0.2, others)
        model = score_block(g, base["score"].to_numpy(), 10, tail)
        floor = score_block(g, pop[g.item_id], 10, tail)
        runs["bootstrap"] = lambda: _uncertainty(
            g.unit, int(g.g_list.size), model, floor, n_resamples=1000, confidence_level=0.95,
            seed=0, objective="accuracy",
        )  # fmt: skip
    times = []
    out = None
    for _ in range(args.reps):
        gc.collect()
        start = time.perf_counter()
        out = runs[name]()
        times.append(time.perf_counter() - start)
    result: dict[str, Any] = {
        "part": name,
        "seconds": min(times),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    if name == "evaluate":
        assert isinstance(out, pl.DataFrame)
        result["values"] = out.row(0, named=True)
    if name == "report":
        assert isinstance(out, dict)
        result["values"] = out["objectives"]["accuracy"]["micro"]
        result["objectives"] = list(out["objectives"])
    return result


DATA = Path(__file__).resolve().parent / "data"


def _vmhwm_mb() -> float:
    """The peak resident size of this process alone (Linux ``VmHWM``), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def lazy_part(name: str, layout: str, args: argparse.Namespace) -> dict[str, Any]:
    """Time one call on a scan of the Parquet log (this process never holds the frame)."""
    scan = pl.scan_parquet(DATA / f"report_{layout}.parquet")
    train = pl.scan_parquet(DATA / "report_train.parquet")
    kw: dict[str, Any] = dict(by="list", y_true="clicked", y_score="score")
    start = time.perf_counter()
    if name == "evaluate":
        out: Any = lp.evaluate(scan, METRICS, **kw, mean=True)
        if isinstance(out, pl.LazyFrame):
            out = out.collect()
        values = out.row(0, named=True)
    else:
        rows = args.lists * args.items
        state = None
        if name == "report-state":
            state = lp.ComparabilityState.load(DATA / "report_state.json")
        out = lp.ranking_report(
            scan, **kw, item="item", k=10, objectives=objectives(),  # type: ignore[arg-type]
            train=train, groups="entity", batch_rows=rows + 1 if name == "report-whole" else None,
            state=state,
        )  # fmt: skip
        values = out["objectives"]["accuracy"]["micro"]
    return {
        "part": name,
        "layout": layout,
        "seconds": time.perf_counter() - start,
        "peak_rss_mb": _vmhwm_mb(),
        "values": values,
        "payload": None if name == "evaluate" else json.dumps(out),
    }


def main_lazy(args: argparse.Namespace, base: list[str]) -> None:
    """Write the Parquet logs, then each (part, layout) in a fresh process."""
    DATA.mkdir(exist_ok=True)
    frame, train = make(args)
    frame.write_parquet(DATA / "report_sorted.parquet", row_group_size=1_000_000)
    frame.sample(fraction=1.0, shuffle=True, seed=5).write_parquet(
        DATA / "report_shuffled.parquet", row_group_size=1_000_000
    )
    train.write_parquet(DATA / "report_train.parquet")
    lp.fit_comparability(frame, by="list", item="item", y_score="score", y_true="clicked").save(
        DATA / "report_state.json"
    )
    del frame, train
    print("| log | part | seconds | x evaluate | peak RSS (MB) |")
    print("|---|---|---|---|---|")
    for layout in ("sorted", "shuffled"):
        results = {}
        for name in args.calls.split(","):
            cmd = [*base, "--lazy", "--part", name, "--layout", layout]
            done = subprocess.run(cmd, capture_output=True, text=True, check=True)
            results[name] = json.loads(done.stdout.strip().splitlines()[-1])
        payloads = {n: json.loads(r["payload"]) for n, r in results.items() if r["payload"]}
        if "report" in payloads and "report-whole" in payloads:
            same = payloads["report"]["uncertainty"] == payloads["report-whole"]["uncertainty"]
            assert same, "parts and whole differ"
        if "report" in payloads and "report-state" in payloads:
            same = payloads["report"]["objectives"] == payloads["report-state"]["objectives"]
            assert same, "a given state differs"
        for name in payloads:
            for key, value in results["evaluate"]["values"].items():
                got = results[name]["values"][key.replace("hit_rate", "hit")]
                assert abs(got - value) <= 1e-9 * max(1.0, abs(value)), (key, got, value)
        evaluate = results["evaluate"]["seconds"]
        for name, res in results.items():
            print(
                f"| {layout} | {name} | {res['seconds']:.1f} | {res['seconds'] / evaluate:.2f} | "
                f"{res['peak_rss_mb']:.0f} |",
                flush=True,
            )


def main() -> None:
    """Run each part in a fresh process and print the table."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--lists", type=int, default=100_000)
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--clusters", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--part", default=None)
    parser.add_argument("--lazy", action="store_true")
    parser.add_argument("--layout", default="sorted")
    parser.add_argument("--calls", default="evaluate,report,report-whole,report-state")
    args = parser.parse_args()
    if args.part:
        if args.lazy:
            print(json.dumps(lazy_part(args.part, args.layout, args)))
        else:
            print(json.dumps(part(args.part, args)))
        return
    base = [sys.executable, __file__, "--lists", str(args.lists), "--items", str(args.items)]
    base += ["--clusters", str(args.clusters), "--reps", str(args.reps)]
    if args.lazy:
        main_lazy(args, base)
        return
    # the data alone: the peak every part starts from
    results = {}
    for name in ("floor", "evaluate", "report", "bootstrap"):
        done = subprocess.run([*base, "--part", name], capture_output=True, text=True, check=True)
        results[name] = json.loads(done.stdout.strip().splitlines()[-1])
        print(json.dumps(results[name]), file=sys.stderr)
    ev, rep = results["evaluate"], results["report"]
    for key, value in ev["values"].items():
        name = key.replace("hit_rate", "hit")
        assert abs(rep["values"][name] - value) <= 1e-9 * max(1.0, abs(value)), (name, value)
    n = args.lists * args.items
    print(f"{args.lists:,} lists x {args.items} items = {n:,} rows, {args.clusters:,} clusters")
    print(f"report objectives: {rep['objectives']}")
    print("| part | seconds | x floor | x evaluate | peak RSS (MB) |")
    print("|---|---|---|---|---|")
    floor, evaluate = results["floor"]["seconds"], ev["seconds"]
    for name, res in results.items():
        s = res["seconds"]
        print(
            f"| {name} | {s:.2f} | {s / floor:.1f} | {s / evaluate:.2f} | "
            f"{res['peak_rss_mb']:.0f} |"
        )


if __name__ == "__main__":
    main()
