"""Generate the frozen reference corpus for lodestar_polars' ranking metrics.

What it computes
----------------
For each of the eight public functions of lodestar_polars

    dcg_score, ndcg_score, top_k_accuracy_score, average_precision_score,
    coverage_error, label_ranking_loss, label_ranking_average_precision_score,
    reciprocal_rank_score

and, since issue 11, roc_auc_score, log_loss, brier_score_loss and calibration_curve
(drawn from their own ``numpy.random.default_rng(SEED + 11)``, so the first eight files
did not change; label matrices, multiclass AUC and ``labels=`` since the issue "every verdict
right", from ``SEED + 12``, appended), it writes ``corpus/data/<function>.json``: a list of cases, each holding the exact
keyword arguments, the value scikit-learn 1.9.1 returns for them (or the exception
it raises, with its exact message), every warning emitted, the per-row values and,
for binary ``average_precision_score`` cases, the trapezoid ``auc(recall, precision)``
of ``precision_recall_curve`` on the same data (the number AP is *not*).
The schema is documented in ``corpus/README.md``.

Sources of the cases: every number quoted by the seed documents and by
``shared/reference/sklearn-semantics.md`` (sections 0-8), the docstring examples of
each sklearn function, the error lists of the semantics document (except raw numpy
internals: "not broadcastable", "shapes not aligned", IndexErrors, 2-D weights),
and ~50 pseudo-random cases per function drawn from ``numpy.random.default_rng(SEED)``.

Why it is frozen
----------------
The library's tests must not import scikit-learn: it is only the optional
``corpus`` extra.  The expected values are therefore computed once, here, and
committed as JSON; tests read them through ``tests/_corpus.py``.  Regenerate with

    pip install -e .[corpus]
    PYTHONHASHSEED=0 python corpus/generate.py

The script re-executes itself with ``PYTHONHASHSEED=0`` when that is not already set,
because the text of one sklearn message (the set of valid ``average`` values of
``average_precision_score``) depends on string hashing.

Seed
----
``SEED = 20260509``; all random cases come from one ``numpy.random.Generator``
(PCG64) created from it, drawn in a fixed order, so the output is byte-identical
from run to run (``manifest.json`` carries a date: set ``SOURCE_DATE_EPOCH`` to pin it).

Inputs are passed to sklearn only after a JSON round trip (encode, ``json.dumps``,
``json.loads``, decode), so the recorded value is exactly what sklearn returns for
the JSON the tests will read.

reciprocal_rank_score (RR)
--------------------------
RR has no sklearn counterpart; its values are derived here, exactly:

* per row, ``relevant = y_true > 0``; the row's value is ``1/rank`` of the first
  relevant document, ``0`` if that rank is greater than ``k`` or if nothing is relevant;
* default (``ignore_ties=False``): the exact expectation over all orderings of tied
  scores (each tie group uniformly permuted).  Only the first tie group (in
  descending score order) that contains a relevant document matters.  If it starts
  after ``b`` better-scored documents, has ``c`` members of which ``r`` are relevant,
  the first relevant document is at offset ``j`` (0-based) inside it with probability
  ``C(c-1-j, r-1) / C(c, r)``, so ``RR = sum_j P(j) * [b+j+1 <= k] / (b+j+1)``.
  This is evaluated with ``fractions.Fraction`` and converted to float once (correctly
  rounded).  It is cross-checked against brute-force enumeration of the permutations
  of that tie group (groups of <= 7), and of all tie groups at once when the number
  of orderings is small;
* ``ignore_ties=True``: ties broken by descending column index (the later column
  ranks first), no averaging;
* output ``float(np.average(per_row, weights=sample_weight))``.
Parameter/input validation reuses sklearn's own ``validate_params``, ``check_array``
and ``check_consistent_length`` so the messages have sklearn's wording with the name
``reciprocal_rank_score``.  A single document per row is accepted.
On untied rows with exactly one relevant item the generator asserts that RR equals
sklearn's ``label_ranking_average_precision_score``.
"""

from __future__ import annotations

import os
import sys

if os.environ.get("PYTHONHASHSEED") != "0":  # the 'average' set's order in one message
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable, *sys.argv])

import datetime as _dt
import itertools
import json
import math
import platform
import warnings
from fractions import Fraction
from math import comb
from numbers import Integral
from pathlib import Path

import numpy as np
import scipy
import sklearn
from sklearn.calibration import calibration_curve
from sklearn.metrics import (
    auc,
    average_precision_score,
    brier_score_loss,
    coverage_error,
    dcg_score,
    label_ranking_average_precision_score,
    label_ranking_loss,
    log_loss,
    ndcg_score,
    precision_recall_curve,
    roc_auc_score,
    top_k_accuracy_score,
)
from sklearn.utils import check_array, check_consistent_length
from sklearn.utils._param_validation import Interval, InvalidParameterError, validate_params
from sklearn.utils.multiclass import type_of_target

SEED = 20260509
ROOT = Path(__file__).resolve().parent
DATA = ROOT / "data"
NAN, INF = float("nan"), float("inf")

# --------------------------------------------------------------------------- encoding


def enc(x):
    """Python/numpy object -> JSON-able object; non-finite floats become strings."""
    if isinstance(x, np.ndarray):
        return enc(x.tolist())
    if isinstance(x, (list, tuple)):
        return [enc(v) for v in x]
    if isinstance(x, dict):
        return {k: enc(v) for k, v in x.items()}
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return x
    return x


_SPECIAL = {"nan": NAN, "inf": INF, "-inf": -INF}


def dec(x):
    if isinstance(x, list):
        return [dec(v) for v in x]
    if isinstance(x, dict):
        return {k: dec(v) for k, v in x.items()}
    if isinstance(x, str) and x in _SPECIAL:
        return _SPECIAL[x]
    return x


def roundtrip(kwargs):
    return dec(json.loads(json.dumps(enc(kwargs), allow_nan=False)))


# --------------------------------------------------------------------------- calling sklearn

FUNCS = {
    "dcg_score": dcg_score,
    "ndcg_score": ndcg_score,
    "top_k_accuracy_score": top_k_accuracy_score,
    "average_precision_score": average_precision_score,
    "coverage_error": coverage_error,
    "label_ranking_loss": label_ranking_loss,
    "label_ranking_average_precision_score": label_ranking_average_precision_score,
    "roc_auc_score": roc_auc_score,
    "log_loss": log_loss,
    "brier_score_loss": brier_score_loss,
    "calibration_curve": calibration_curve,
}
NP_AVERAGE_FUNCS = {"dcg_score", "ndcg_score", "coverage_error", "label_ranking_loss",
                    "label_ranking_average_precision_score", "top_k_accuracy_score"}
RAISE_TYPES = ("ZeroDivisionError", "IndexError", "TypeError", "ValueError")


def _exc_record(e):
    t = type(e)
    if isinstance(e, InvalidParameterError):
        name = "ValueError"
    else:
        name = next((n for n in RAISE_TYPES for c in t.__mro__ if c.__name__ == n), t.__name__)
    return {"type": name, "is_invalid_parameter_error": isinstance(e, InvalidParameterError),
            "message": str(e)}


def as_called(f, kw):
    """Call sklearn as the semantics document did.

    sklearn 1.9.1's average_precision_score reads ``y_score.shape`` for multiclass y_true
    before converting it, so a list y_score raises AttributeError there; it is called with
    ``np.asarray(y_score)`` (what the semantics document did), everything else with the lists.
    """
    if f is average_precision_score and isinstance(kw.get("y_score"), list):
        kw = dict(kw, y_score=np.asarray(kw["y_score"]))
    return kw


def call(f, kw):
    kw = as_called(f, kw)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            v, exc = f(**kw), None
        except Exception as e:  # noqa: BLE001
            v, exc = None, e
    ws = [{"category": x.category.__name__, "message": str(x.message)} for x in w]
    return v, exc, ws


def quiet(f, kw):
    kw = as_called(f, kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(**kw)


def value_and_type(v):
    if isinstance(v, tuple):  # calibration_curve: (prob_true, prob_pred)
        return [x.tolist() for x in v], "tuple"
    if isinstance(v, np.ndarray):
        return v.tolist(), "ndarray"
    if type(v) is int:
        return v, "int"
    if type(v) is float:
        return v, "float"
    if type(v) is np.float64:  # roc_auc_score(multi_class="ovo"): np.average's scalar
        return float(v), "float64"
    msg = f"unexpected return type {type(v)!r}: {v!r}"
    raise AssertionError(msg)


CASES: dict[str, list[dict]] = {name: [] for name in [*FUNCS, "reciprocal_rank_score"]}
STATS = {"ap_binary_checked": 0, "ap_trapezoid_coincide": 0, "rr_lrap_identity_rows": 0,
         "rr_enumerated_rows": 0, "rr_block_enumerated_rows": 0}


def _is_binary_ap(kw):
    try:
        return type_of_target(np.asarray(kw["y_true"])) == "binary"
    except Exception:  # noqa: BLE001
        return False


def add(fname, cid, kwargs, tags=(), per_row="auto"):
    """Run sklearn on the JSON round trip of kwargs and record the case."""
    kw = roundtrip(kwargs)
    f = FUNCS[fname]
    v, exc, ws = call(f, kw)
    case = {"id": cid, "kwargs": enc(kwargs), "expected": None, "expected_type": None,
            "per_row": None, "raises": None, "warns": ws, "tags": sorted(set(tags)),
            "trapezoid": None}
    if exc is not None:
        case["raises"] = _exc_record(exc)
        if "error" not in case["tags"]:
            case["tags"] = sorted({*case["tags"], "error"})
    else:
        case["expected"], case["expected_type"] = value_and_type(v)
        if per_row == "auto":
            per_row = compute_per_row(fname, kw, v)
        case["per_row"] = per_row
        if fname == "average_precision_score" and _is_binary_ap(kw):
            case["trapezoid"] = trapezoid(kw)
            check_ap_vs_trapezoid(kw, v, case["trapezoid"])
    case = enc(case)
    assert case["id"] not in {c["id"] for c in CASES[fname]}, case["id"]
    CASES[fname].append(case)
    return case


def onehot(n, i):
    w = [0.0] * n
    w[i] = 1.0
    return w


def compute_per_row(fname, kw, v):
    f = FUNCS[fname]
    n = len(kw["y_true"])
    if fname == "average_precision_score":
        if _is_binary_ap(kw):
            return [v]
        if kw.get("average", "macro") != "samples":
            return None
    elif fname not in NP_AVERAGE_FUNCS:
        return None
    out = []
    for i in range(n):
        kw2 = dict(kw, sample_weight=onehot(n, i))
        if fname == "top_k_accuracy_score":
            kw2["normalize"] = False
        r = quiet(f, kw2)
        assert type(r) is float, (fname, kw2, r)
        out.append(r)
    return out


def trapezoid(kw):
    y = np.ravel(np.asarray(kw["y_true"]))
    s = np.ravel(np.asarray(kw["y_score"], dtype=float))
    sw = kw.get("sample_weight")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p, r, _ = precision_recall_curve(y, s, pos_label=kw.get("pos_label", 1), sample_weight=sw)
            return float(auc(r, p))
    except Exception:  # noqa: BLE001
        return None


def exact_ap_and_trap(y, s, w, pos_label):
    """AP and trapezoid of the PR curve, exactly, from the definitions (Fractions)."""
    idx = [i for i in range(len(y)) if w is None or w[i] != 0]
    idx.sort(key=lambda i: -s[i])
    tp = fp = Fraction(0)
    P, TP = [], []
    for pos, i in enumerate(idx):
        wi = Fraction(1) if w is None else Fraction(float(w[i]))
        if y[i] == pos_label:
            tp += wi
        else:
            fp += wi
        if pos == len(idx) - 1 or s[idx[pos + 1]] != s[i]:
            P.append(tp / (tp + fp) if tp + fp != 0 else Fraction(0))
            TP.append(tp)
    R = [t / TP[-1] if TP[-1] != 0 else Fraction(1) for t in TP]
    ap = sum((R[j] - (R[j - 1] if j else 0)) * P[j] for j in range(len(P)))
    tr = sum((R[j] - (R[j - 1] if j else 0)) * (P[j] + (P[j - 1] if j else 1)) / 2 for j in range(len(P)))
    return max(Fraction(0), ap), tr


def check_ap_vs_trapezoid(kw, v, tr):
    y = np.ravel(np.asarray(kw["y_true"])).tolist()
    s = np.ravel(np.asarray(kw["y_score"], dtype=float)).tolist()
    pos_label = kw.get("pos_label", 1)
    if not (any(a == pos_label for a in y) and any(a != pos_label for a in y)) or tr is None:
        return
    sw = kw.get("sample_weight")
    ap_x, tr_x = exact_ap_and_trap(y, s, sw, pos_label)
    assert abs(float(ap_x) - v) <= 1e-12 * max(1, abs(v)), (kw, v, float(ap_x))
    assert abs(float(tr_x) - tr) <= 1e-12 * max(1, abs(tr)), (kw, tr, float(tr_x))
    STATS["ap_binary_checked"] += 1
    if v == tr:
        assert ap_x == tr_x or abs(ap_x - tr_x) < Fraction(1, 10**13), (kw, v, tr, ap_x, tr_x)
        STATS["ap_trapezoid_coincide"] += 1
    else:
        assert ap_x != tr_x, (kw, v, tr)


def add_ragged(fname, cid, rows_true, rows_score, tags=(), sample_weight=None, **extra):
    """Rows of different lengths: sklearn on each row alone, then the weighted mean."""
    per_row = []
    f = FUNCS.get(fname)
    for t, s in zip(rows_true, rows_score, strict=True):
        assert len(t) == len(s) >= 2
        kw = roundtrip({"y_true": [t], "y_score": [s], **extra})
        if f is None:
            v = rr_reference(**kw)
        else:
            v, exc, ws = call(f, kw)
            assert exc is None, (cid, exc, ws)
            assert not ws, (cid, exc, ws)
        per_row.append(v)
    w = None if sample_weight is None else roundtrip(sample_weight)
    if fname == "label_ranking_average_precision_score":  # sklearn's own aggregation
        out = 0.0
        for i, v in enumerate(per_row):
            out += v * (1.0 if w is None else w[i])
        expected = float(out / (len(per_row) if w is None else np.sum(w)))
    else:
        expected = float(np.average(per_row, weights=w))
    kwargs = {"y_true": rows_true, "y_score": rows_score, **extra}
    if sample_weight is not None:
        kwargs["sample_weight"] = sample_weight
    case = enc({"id": cid, "kwargs": kwargs, "expected": expected, "expected_type": "float",
                "per_row": per_row, "raises": None, "warns": [],
                "tags": sorted({*tags, "ragged"} | ({"weights"} if sample_weight is not None else set())),
                "trapezoid": None})
    assert case["id"] not in {c["id"] for c in CASES[fname]}, case["id"]
    CASES[fname].append(case)


# --------------------------------------------------------------------------- reciprocal rank (ours)


def _groups_desc(s):
    """Tie groups (lists of indices, ascending) in descending score order."""
    out = {}
    for i, x in enumerate(s):
        out.setdefault(x, []).append(i)
    return [out[v] for v in sorted(out, reverse=True)]


def rr_row_formula(g, s, k):
    b = 0
    for grp in _groups_desc(s):
        c = len(grp)
        r = sum(1 for i in grp if g[i] > 0)
        if r:
            tot = Fraction(0)
            for j in range(c - r + 1):
                rank = b + j + 1
                if k is None or rank <= k:
                    tot += Fraction(comb(c - 1 - j, r - 1), comb(c, r)) / rank
            return tot
        b += c
    return Fraction(0)


def _rr_of_order(g, order, k):
    for p, i in enumerate(order, start=1):
        if g[i] > 0:
            return Fraction(1, p) if k is None or p <= k else Fraction(0)
    return Fraction(0)


def rr_row_enumerate_all(g, s, k):
    groups = _groups_desc(s)
    perms = [list(itertools.permutations(grp)) for grp in groups]
    total, count = Fraction(0), 0
    for combo in itertools.product(*perms):
        order = [i for part in combo for i in part]
        total += _rr_of_order(g, order, k)
        count += 1
    return total / count


def rr_row_enumerate_block(g, s, k):
    b = 0
    for grp in _groups_desc(s):
        if any(g[i] > 0 for i in grp):
            perms = list(itertools.permutations(grp))
            total = Fraction(0)
            for perm in perms:
                for p, i in enumerate(perm, start=b + 1):
                    if g[i] > 0:
                        total += Fraction(1, p) if k is None or p <= k else 0
                        break
            return total / len(perms)
        b += len(grp)
    return Fraction(0)


def rr_row(g, s, k=None, ignore_ties=False, check=True):
    if ignore_ties:
        order = sorted(range(len(s)), key=lambda i: (s[i], i), reverse=True)
        return float(_rr_of_order(g, order, k))
    val = rr_row_formula(g, s, k)
    groups = _groups_desc(s)
    crit = next((grp for grp in groups if any(g[i] > 0 for i in grp)), [])
    if check and len(crit) <= 7:
        assert rr_row_enumerate_block(g, s, k) == val
        STATS["rr_block_enumerated_rows"] += 1
    if check and math.prod(math.factorial(len(grp)) for grp in groups) <= 5000:
        assert rr_row_enumerate_all(g, s, k) == val
        STATS["rr_enumerated_rows"] += 1
    return float(val)


@validate_params(
    {
        "y_true": ["array-like"],
        "y_score": ["array-like"],
        "k": [Interval(Integral, 1, None, closed="left"), None],
        "sample_weight": ["array-like", None],
        "ignore_ties": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def reciprocal_rank_score(y_true, y_score, *, k=None, sample_weight=None, ignore_ties=False):
    """The reference implementation used to freeze RR (validation: sklearn's machinery)."""
    y_true = check_array(y_true, ensure_2d=False)
    y_score = check_array(y_score, ensure_2d=False)
    check_consistent_length(y_true, y_score, sample_weight)
    assert y_true.ndim == 2
    assert y_true.shape == y_score.shape
    per_row = [rr_row(g.tolist(), s.tolist(), k, ignore_ties) for g, s in zip(y_true, y_score, strict=False)]
    return float(np.average(per_row, weights=sample_weight))


def rr_reference(**kw):
    return reciprocal_rank_score(**kw)




def add_rr(cid, kwargs, tags=()):
    kw = roundtrip(kwargs)
    v, exc, ws = call(reciprocal_rank_score, kw)
    case = {"id": cid, "kwargs": enc(kwargs), "expected": None, "expected_type": None,
            "per_row": None, "raises": None, "warns": ws, "tags": sorted(set(tags)),
            "trapezoid": None}
    if exc is not None:
        case["raises"] = _exc_record(exc)
        case["tags"] = sorted({*case["tags"], "error"})
    else:
        case["expected"], case["expected_type"] = value_and_type(v)
        y_true, y_score = np.asarray(kw["y_true"], float), np.asarray(kw["y_score"], float)
        case["per_row"] = [rr_row(g.tolist(), s.tolist(), kw.get("k"), kw.get("ignore_ties", False), check=False)
                           for g, s in zip(y_true, y_score, strict=False)]
    case = enc(case)
    assert case["id"] not in {c["id"] for c in CASES["reciprocal_rank_score"]}, case["id"]
    CASES["reciprocal_rank_score"].append(case)
    return case


# --------------------------------------------------------------------------- random helpers

rng = np.random.default_rng(SEED)
TIE_LEVELS = [0.0, 0.25, 0.5, 0.75, 1.0]


def r_int(lo, hi):  # inclusive
    return int(rng.integers(lo, hi + 1))


def tied_row(n):
    return [TIE_LEVELS[i] for i in rng.integers(0, len(TIE_LEVELS), n)]


def untied_row(n):
    while True:
        row = [round(float(x), 6) for x in rng.random(n)]
        if len(set(row)) == n:
            return row


def has_ties(row):
    return len(set(row)) < len(row)


def relevance_row(n, kind):
    if kind == "int":
        return [int(x) for x in rng.integers(0, 5, n)]
    return [float(x) / 2 for x in rng.integers(0, 9, n)] if rng.random() < 0.5 else \
        [round(float(x) * 4, 3) for x in rng.random(n)]


def binary_row(n, p=None):
    p = rng.random() if p is None else p
    return [int(x) for x in (rng.random(n) < p)]


def weights(n):
    return [round(float(x), 4) + 0.05 for x in rng.random(n) * 3]


def straddling_k(score_rows):
    """A k such that some row has a tie group occupying positions both < k and >= k."""
    cands = []
    for s in score_rows:
        start = 0
        for grp in _groups_desc(s):
            if len(grp) >= 2:
                cands.extend(range(start + 1, start + len(grp)))
            start += len(grp)
    return int(rng.choice(cands)) if cands else None


def k_tags(score_rows, k):
    tags = set()
    if k is None:
        return tags
    if any(k > len(s) for s in score_rows):
        tags.add("k-past-end")
    for s in score_rows:
        start = 0
        for grp in _groups_desc(s):
            if len(grp) >= 2 and start < k < start + len(grp):
                tags.add("k-straddles-tie")
            start += len(grp)
    return tags


def pick_k(score_rows, ncols):
    mode = rng.integers(0, 5)
    if mode == 0:
        return None
    if mode == 1:
        return r_int(1, ncols)
    if mode == 2:
        k = straddling_k(score_rows)
        return k if k is not None else r_int(1, ncols)
    if mode == 3:
        return ncols + r_int(1, 5)
    return r_int(1, max(1, ncols // 2))


# =========================================================================== dcg / ndcg

R4, T4 = [[3, 2, 1, 0]], [[0.5] * 4]
TR = [[10, 0, 0, 1, 5]]


def dcg_ndcg_fixed():
    d, n = "dcg_score", "ndcg_score"
    # section 0 / seeds
    add(d, "seed-dcg-tied-3210", {"y_true": R4, "y_score": T4}, ["seed", "ties"])
    add(d, "seed-dcg-tied-3210-ignore_ties", {"y_true": R4, "y_score": T4, "ignore_ties": True},
        ["seed", "ties", "ignore_ties"])
    add(n, "seed-ndcg-tied-3210", {"y_true": R4, "y_score": T4}, ["seed", "ties"])
    add(n, "seed-ndcg-tied-3210-ignore_ties", {"y_true": R4, "y_score": T4, "ignore_ties": True},
        ["seed", "ties", "ignore_ties"])
    add(d, "seed-dcg-linear-3210", {"y_true": R4, "y_score": [[4, 3, 2, 1]]}, ["seed"])
    add(d, "seed-dcg-exponential-7310", {"y_true": [[7, 3, 1, 0]], "y_score": [[4, 3, 2, 1]]}, ["seed"])
    add(d, "seed-dcg-exponential-7310-ignore_ties", {"y_true": [[7, 3, 1, 0]], "y_score": [[4, 3, 2, 1]],
                                                     "ignore_ties": True}, ["seed", "ignore_ties"])
    add(d, "seed-dcg-exponential-gains-of-3210", {"y_true": [[7, 3, 1, 0]], "y_score": R4}, ["seed"])
    # docstrings
    add(d, "docstring-dcg", {"y_true": TR, "y_score": [[.1, .2, .3, 4, 70]]}, ["docstring"])
    add(d, "docstring-dcg-k2", {"y_true": TR, "y_score": [[.1, .2, .3, 4, 70]], "k": 2}, ["docstring"])
    add(d, "docstring-dcg-ties-k1", {"y_true": TR, "y_score": [[1, 0, 0, 0, 1]], "k": 1},
        ["docstring", "ties", "k-straddles-tie"])
    add(d, "docstring-dcg-ties-k1-ignore_ties", {"y_true": TR, "y_score": [[1, 0, 0, 0, 1]], "k": 1,
                                                 "ignore_ties": True},
        ["docstring", "ties", "ignore_ties", "ignore_ties-tied"])
    add(n, "docstring-ndcg", {"y_true": TR, "y_score": [[.1, .2, .3, 4, 70]]}, ["docstring"])
    add(n, "docstring-ndcg-2", {"y_true": TR, "y_score": [[.05, 1.1, 1., .5, .0]]}, ["docstring"])
    add(n, "docstring-ndcg-k4", {"y_true": TR, "y_score": [[.05, 1.1, 1., .5, .0]], "k": 4}, ["docstring"])
    add(n, "docstring-ndcg-perfect-k4", {"y_true": TR, "y_score": TR, "k": 4}, ["docstring", "ties"])
    add(n, "docstring-ndcg-ties-k1", {"y_true": TR, "y_score": [[1, 0, 0, 0, 1]], "k": 1},
        ["docstring", "ties", "k-straddles-tie"])
    add(n, "docstring-ndcg-ties-k1-ignore_ties", {"y_true": TR, "y_score": [[1, 0, 0, 0, 1]], "k": 1,
                                                  "ignore_ties": True},
        ["docstring", "ties", "ignore_ties", "ignore_ties-tied"])
    # section 2/3 values
    add(d, "dcg-tie-straddles-k2", {"y_true": R4, "y_score": [[1, .5, .5, 0]], "k": 2}, ["ties", "k-straddles-tie"])
    add(n, "ndcg-tie-straddles-k2", {"y_true": R4, "y_score": [[1, .5, .5, 0]], "k": 2}, ["ties", "k-straddles-tie"])
    for kk in (1, 3, 4, 100):
        tags = ["k-past-end"] if kk > 4 else []
        add(d, f"dcg-3210-k{kk}", {"y_true": R4, "y_score": [[4, 3, 2, 1]], "k": kk}, tags)
        add(n, f"ndcg-3210-k{kk}", {"y_true": R4, "y_score": [[4, 3, 2, 1]], "k": kk}, tags)
    add(d, "dcg-k-true", {"y_true": R4, "y_score": [[4, 3, 2, 1]], "k": True}, ["k-bool"])
    add(n, "ndcg-k-true", {"y_true": R4, "y_score": [[1, 2, 3, 4]], "k": True}, ["k-bool"])
    add(d, "dcg-k5-past-end-tied", {"y_true": R4, "y_score": T4, "k": 5}, ["k-past-end", "ties"])
    add(d, "dcg-log_base-10", {"y_true": R4, "y_score": [[4, 3, 2, 1]], "log_base": 10}, ["log_base"])
    add(d, "dcg-log_base-1", {"y_true": R4, "y_score": [[4, 3, 2, 1]], "log_base": 1}, ["log_base", "degenerate"])
    add(d, "dcg-log_base-0.5", {"y_true": R4, "y_score": [[4, 3, 2, 1]], "log_base": 0.5}, ["log_base"])
    add(d, "dcg-log_base-e", {"y_true": R4, "y_score": [[4, 3, 2, 1]], "log_base": math.e}, ["log_base"])
    add(d, "dcg-log_base-true", {"y_true": R4, "y_score": [[4, 3, 2, 1]], "log_base": True}, ["log_base", "degenerate"])
    add(d, "dcg-log_base-10-tied", {"y_true": R4, "y_score": T4, "log_base": 10}, ["log_base", "ties"])
    add(d, "dcg-log_base-0.5-tied-k2", {"y_true": R4, "y_score": [[1, .5, .5, 0]], "k": 2, "log_base": 0.5},
        ["log_base", "ties", "k-straddles-tie"])
    add(n, "ndcg-all-irrelevant", {"y_true": [[0, 0, 0]], "y_score": [[1, 2, 3]]}, ["degenerate"])
    add(n, "ndcg-all-irrelevant-ignore_ties", {"y_true": [[0, 0, 0]], "y_score": [[1, 2, 3]], "ignore_ties": True},
        ["degenerate", "ignore_ties"])
    add(d, "dcg-all-irrelevant", {"y_true": [[0, 0, 0]], "y_score": [[1, 2, 3]]}, ["degenerate"])
    add(n, "ndcg-zero-row-counts", {"y_true": [[0, 0], [1, 0]], "y_score": [[.2, .1], [.1, .2]]}, ["degenerate"])
    add(d, "dcg-negative-gain", {"y_true": [[-1, 2]], "y_score": [[1, 2]]}, [])
    add(d, "dcg-bool-gain", {"y_true": [[True, False]], "y_score": [[1, 2]]}, [])
    add(d, "dcg-weights-1-3", {"y_true": [[1, 2], [0, 1]], "y_score": [[2, 1], [1, 2]], "sample_weight": [1, 3]},
        ["weights"])
    add(n, "ndcg-weights-1-3", {"y_true": [[1, 2], [0, 1]], "y_score": [[2, 1], [1, 2]], "sample_weight": [1, 3]},
        ["weights"])
    add(d, "dcg-weights-nan", {"y_true": [[1, 2], [0, 1]], "y_score": [[1, 2], [1, 2]], "sample_weight": [1, NAN]},
        ["weights", "nan-weight"])
    add(n, "ndcg-weights-nan", {"y_true": [[1, 2], [0, 1]], "y_score": [[1, 2], [1, 2]], "sample_weight": [1, NAN]},
        ["weights", "nan-weight"])
    add(d, "dcg-negative-weight", {"y_true": [[1, 2], [0, 1]], "y_score": [[2, 1], [1, 2]],
                                   "sample_weight": [-1, 2]}, ["weights", "negative-weight"])
    add(n, "ndcg-negative-weight", {"y_true": [[1, 2], [0, 1]], "y_score": [[2, 1], [1, 2]],
                                    "sample_weight": [-1, 2]}, ["weights", "negative-weight"])
    add(n, "ndcg-self-2-3-3", {"y_true": [[2, 3, 3]], "y_score": [[2, 3, 3]]}, ["ties"])
    add(d, "dcg-negative-zero-ties", {"y_true": [[1, 2]], "y_score": [[0.0, -0.0]]}, ["ties"])
    add(n, "ndcg-negative-zero-ties", {"y_true": [[1, 2]], "y_score": [[0.0, -0.0]]}, ["ties"])
    add(n, "ndcg-exponential-vs-linear-3210", {"y_true": [[7, 3, 1, 0]], "y_score": T4}, ["seed", "ties"])
    add(n, "ndcg-multilabel-indicator-truth", {"y_true": [[1, 0, 1], [0, 1, 0]],
                                               "y_score": [[.2, .3, .1], [.5, .5, .1]]}, ["ties"])
    add(n, "ndcg-float-gains", {"y_true": [[0.5, 1.5, 0.25]], "y_score": [[.3, .2, .1]]}, [])
    add(n, "ndcg-negative-zero-gain", {"y_true": [[-0.0, 1.0]], "y_score": [[.3, .2]]}, ["degenerate"])
    # seed chapter 3: slates ranked by position (scores descending)
    desc10 = [[float(10 - i) for i in range(10)]]
    slates = {"top": [1, 1, 1, 0, 0, 0, 0, 0, 0, 0], "middle": [0, 0, 0, 1, 1, 1, 0, 0, 0, 0],
              "bottom": [0, 0, 0, 0, 0, 0, 0, 1, 1, 1]}
    quoted = {"top": 1.0, "middle": 0.5508, "bottom": 0.4250}
    for name, row in slates.items():
        c = add(n, f"seed-slate-hits-{name}", {"y_true": [row], "y_score": desc10}, ["seed"])
        assert round(c["expected"], 4) == quoted[name], (name, c["expected"])
    desc5 = [[5.0, 4.0, 3.0, 2.0, 1.0]]
    for name, row, q in [("linear-30011", [3, 0, 0, 1, 1], 0.9241), ("linear-11003", [1, 1, 0, 0, 3], 0.6758),
                         ("exponential-70011", [7, 0, 0, 1, 1], 0.9615),
                         ("exponential-11007", [1, 1, 0, 0, 7], 0.5336)]:
        c = add(n, f"seed-gain-{name}", {"y_true": [row], "y_score": desc5}, ["seed"])
        assert round(c["expected"], 4) == q, (name, c["expected"])
    for pos, q in [(1, 1.0), (2, 0.6309), (3, 0.5), (4, 0.4307), (9, 0.3010), (10, 0.2891)]:
        row = [0] * 10
        row[pos - 1] = 1
        c = add(n, f"seed-single-relevant-at-{pos}", {"y_true": [row], "y_score": desc10}, ["seed"])
        assert round(c["expected"], 4) == q, (pos, c["expected"])
    for pos, q in [(1, 1.00), (2, 0.63), (3, 0.50), (5, 0.39), (10, 0.29)]:
        row = [0] * 10
        row[pos - 1] = 1
        c = add(d, f"seed-discount-at-{pos}", {"y_true": [row], "y_score": desc10}, ["seed"])
        assert round(c["expected"], 2) == q, (pos, c["expected"])

    # errors
    ok2 = {"y_true": [[1, 2], [0, 1]], "y_score": [[1, 2], [1, 2]]}
    for f in (d, n):
        add(f, f"error-{f}-k-0", {"y_true": R4, "y_score": R4, "k": 0}, ["error", "param"])
        add(f, f"error-{f}-k-negative", {"y_true": R4, "y_score": R4, "k": -1}, ["error", "param"])
        add(f, f"error-{f}-k-float", {"y_true": R4, "y_score": R4, "k": 2.0}, ["error", "param"])
        add(f, f"error-{f}-k-str", {"y_true": R4, "y_score": R4, "k": "2"}, ["error", "param"])
        add(f, f"error-{f}-ignore_ties-int", {"y_true": R4, "y_score": R4, "ignore_ties": 1}, ["error", "param"])
        add(f, f"error-{f}-ignore_ties-none", {"y_true": R4, "y_score": R4, "ignore_ties": None}, ["error", "param"])
        add(f, f"error-{f}-sample_weight-str", {"y_true": R4, "y_score": R4, "sample_weight": "x"},
            ["error", "param"])
        add(f, f"error-{f}-nan-score", {"y_true": [[1, 2]], "y_score": [[NAN, 2]]}, ["error", "non-finite"])
        add(f, f"error-{f}-nan-true", {"y_true": [[NAN, 2]], "y_score": [[1, 2]]}, ["error", "non-finite"])
        add(f, f"error-{f}-inf-score", {"y_true": [[1, 2]], "y_score": [[INF, 2]]}, ["error", "non-finite"])
        add(f, f"error-{f}-neginf-score", {"y_true": [[1, 2]], "y_score": [[-INF, 2]]}, ["error", "non-finite"])
        add(f, f"error-{f}-inf-true", {"y_true": [[INF, 2]], "y_score": [[1, 2]]}, ["error", "non-finite"])
        add(f, f"error-{f}-inconsistent-length", {"y_true": [[1, 2], [0, 1]], "y_score": [[1, 2]]}, ["error"])
        add(f, f"error-{f}-weight-length", {**ok2, "sample_weight": [1, 2, 3]}, ["error", "weights"])
        add(f, f"error-{f}-weights-zero", {**ok2, "sample_weight": [0, 0]}, ["error", "weights"])
        add(f, f"error-{f}-weights-cancel", {**ok2, "sample_weight": [1, -1]}, ["error", "weights"])
        add(f, f"error-{f}-dim3", {"y_true": [[[1, 2]]], "y_score": [[[1, 2]]]}, ["error"])
        add(f, f"error-{f}-empty", {"y_true": [], "y_score": []}, ["error"])
        add(f, f"error-{f}-zero-columns", {"y_true": [[], []], "y_score": [[], []]}, ["error"])
        add(f, f"error-{f}-strings", {"y_true": [["a", "b"]], "y_score": [[1, 2]]}, ["error"])
        add(f, f"error-{f}-format-binary-1d", {"y_true": [1, 0], "y_score": [1, 2]}, ["error", "format"])
        add(f, f"error-{f}-format-continuous-1d", {"y_true": [0.5, 1.5], "y_score": [1, 2]}, ["error", "format"])
        add(f, f"error-{f}-format-multiclass-1d", {"y_true": [3, 2, 1], "y_score": [1, 2, 3]}, ["error", "format"])
    add(d, "error-dcg_score-single-column", {"y_true": [[1], [0]], "y_score": [[1], [2]]}, ["error", "format"])
    add(d, "error-dcg_score-single-column-multiclass", {"y_true": [[3], [2], [1]], "y_score": [[1], [2], [3]]},
        ["error", "format"])
    for lb in (0, -1, NAN, INF, None):
        add(d, f"error-dcg_score-log_base-{lb}", {"y_true": R4, "y_score": R4, "log_base": lb}, ["error", "param"])
    add(d, "error-dcg_score-log_base-str", {"y_true": R4, "y_score": R4, "log_base": "2"}, ["error", "param"])
    add(n, "error-ndcg_score-log_base-kwarg", {"y_true": R4, "y_score": R4, "log_base": 2}, ["error", "param"])
    add(n, "error-ndcg_score-single-document", {"y_true": [[1], [0]], "y_score": [[1], [2]]}, ["error"])
    add(n, "error-ndcg_score-negative", {"y_true": [[-1, 2]], "y_score": [[1, 2]]}, ["error"])
    add(n, "error-ndcg_score-negative-single-column", {"y_true": [[-1], [2]], "y_score": [[1], [2]]}, ["error"])
    add(n, "error-ndcg_score-negative-1d", {"y_true": [-1, 2], "y_score": [1, 2]}, ["error"])


def dcg_ndcg_random():
    for fname in ("dcg_score", "ndcg_score"):
        for i in range(50):
            nrows, ncols = r_int(1, 8), r_int(2, 30)
            rel_kind = "int" if rng.random() < 0.7 else "float"
            G = [relevance_row(ncols, rel_kind) for _ in range(nrows)]
            ignore = rng.random() < 0.25
            tied = (not ignore) and rng.random() < 0.6
            S = [tied_row(ncols) if tied else untied_row(ncols) for _ in range(nrows)]
            kw = {"y_true": G, "y_score": S}
            k = pick_k(S, ncols)
            if k is not None:
                kw["k"] = k
            if fname == "dcg_score" and rng.random() < 0.4:
                kw["log_base"] = [2, 10, math.e, 0.5][r_int(0, 3)]
            if ignore:
                kw["ignore_ties"] = True
            if rng.random() < 0.4:
                kw["sample_weight"] = weights(nrows)
            tags = {"random"} | k_tags(S, k)
            tags |= {"ties"} if any(has_ties(s) for s in S) else set()
            tags |= {"ignore_ties"} if ignore else set()
            tags |= {"weights"} if "sample_weight" in kw else set()
            tags |= {"log_base"} if "log_base" in kw else set()
            tags |= {"float-relevance"} if rel_kind == "float" else set()
            if any(all(x == 0 for x in g) for g in G):
                tags.add("degenerate")
            assert not (ignore and "ties" in tags)
            add(fname, f"random-{fname.split('_')[0]}-{i:02d}", kw, tags)
        for i in range(10):
            nrows = r_int(2, 6)
            lens = [r_int(2, 30) for _ in range(nrows)]
            ignore = i % 4 == 3
            tied = not ignore and i % 2 == 0
            G = [relevance_row(n, "int") for n in lens]
            S = [tied_row(n) if tied else untied_row(n) for n in lens]
            extra = {}
            if i % 3 == 1:
                extra["k"] = r_int(1, max(lens) + 2)
            if ignore:
                extra["ignore_ties"] = True
            if fname == "dcg_score" and i % 5 == 2:
                extra["log_base"] = 10
            sw = weights(nrows) if i % 2 == 1 else None
            tags = {"random"} | k_tags(S, extra.get("k"))
            tags |= {"ties"} if any(has_ties(s) for s in S) else set()
            tags |= {"ignore_ties"} if ignore else set()
            add_ragged(fname, f"ragged-{fname.split('_')[0]}-{i:02d}", G, S, tags, sample_weight=sw, **extra)
    add_ragged("ndcg_score", "ragged-ndcg-with-irrelevant-row", [[0, 0], [3, 2, 1, 0, 0]],
               [[.1, .2], [.5, .5, .1, .9, .2]], ["degenerate", "ties"])
    add_ragged("dcg_score", "ragged-dcg-seed-rows", [[3, 2, 1, 0], [10, 0, 0, 1, 5]],
               [[.5, .5, .5, .5], [.1, .2, .3, 4, 70]], ["seed", "ties"], sample_weight=[1, 3])


# =========================================================================== top_k


def topk_fixed():
    t = "top_k_accuracy_score"
    YT, YS = [0, 1, 2, 2], [[.5, .2, .2], [.3, .4, .2], [.2, .4, .3], [.7, .2, .1]]
    add(t, "docstring-topk", {"y_true": YT, "y_score": YS, "k": 2}, ["docstring", "ties"])
    add(t, "docstring-topk-normalize-false", {"y_true": YT, "y_score": YS, "k": 2, "normalize": False},
        ["docstring", "ties", "normalize"])
    add(t, "topk-default-k", {"y_true": YT, "y_score": YS}, ["docstring", "ties"])
    for true, kk, cid in [(0, 1, "tie-class0-k1"), (2, 1, "tie-class2-k1"), (1, 2, "tie-class1-k2"),
                          (0, 2, "tie-class0-k2")]:
        add(t, f"topk-{cid}", {"y_true": [true], "y_score": [[.5, .5, .5]], "k": kk, "labels": [0, 1, 2]},
            ["ties", "labels"])
    add(t, "topk-ties-k1-three-rows", {"y_true": [0, 1, 2], "y_score": [[.5, .5, .1]] * 3, "k": 1}, ["ties"])
    add(t, "topk-k-equals-n-classes", {"y_true": [0, 1, 2], "y_score": [[.5, .3, .2]] * 3, "k": 3},
        ["k-past-end"])
    add(t, "topk-k-past-n-classes", {"y_true": [0, 1, 2], "y_score": [[.5, .3, .2]] * 3, "k": 5}, ["k-past-end"])
    add(t, "topk-k-true", {"y_true": [0, 1, 2], "y_score": [[.5, .3, .2]] * 3, "k": True}, ["k-bool"])
    add(t, "topk-binary-threshold-0.5", {"y_true": [0, 1, 1, 0], "y_score": [.2, .5, .51, .9], "k": 1}, ["binary"])
    add(t, "topk-binary-all-0.5", {"y_true": [0, 1], "y_score": [.5, .5], "k": 1}, ["binary", "ties"])
    add(t, "topk-binary-threshold-0-above-1", {"y_true": [0, 1], "y_score": [.3, 1.2], "k": 1}, ["binary"])
    add(t, "topk-binary-threshold-0-below-0", {"y_true": [0, 1, 1], "y_score": [-.2, 0., .7], "k": 1}, ["binary"])
    add(t, "topk-binary-k2-warns", {"y_true": [0, 1, 1, 0], "y_score": [.2, .5, .51, .9], "k": 2},
        ["binary", "k-past-end"])
    add(t, "topk-binary-default-k", {"y_true": [0, 1, 1, 0], "y_score": [.2, .5, .51, .9]}, ["binary", "k-past-end"])
    add(t, "topk-binary-strings", {"y_true": ["a", "b", "b", "a"], "y_score": [.2, .6, .7, .1], "k": 1},
        ["binary", "strings"])
    add(t, "topk-binary-strings-reversed", {"y_true": ["b", "a", "a", "b"], "y_score": [.2, .6, .7, .1], "k": 1},
        ["binary", "strings"])
    add(t, "topk-binary-1-2", {"y_true": [1, 2, 2, 1], "y_score": [.2, .6, .7, .1], "k": 1}, ["binary"])
    add(t, "topk-binary-minus1-1", {"y_true": [-1, 1, 1, -1], "y_score": [-.2, .6, -.7, .1], "k": 1}, ["binary"])
    add(t, "topk-binary-labels-single-class", {"y_true": [1, 1], "y_score": [.2, .6], "k": 1, "labels": [0, 1]},
        ["binary", "labels"])
    add(t, "topk-binary-column", {"y_true": [0, 1, 1, 0], "y_score": [[.2], [.5], [.51], [.9]], "k": 1}, ["binary"])
    add(t, "topk-binary-weights", {"y_true": [0, 1, 1, 0], "y_score": [.2, .5, .51, .9], "k": 1,
                                   "sample_weight": [1, 2, 3, 4]}, ["binary", "weights"])
    add(t, "topk-labels-more-than-present", {"y_true": [0, 1, 1], "y_score": [[.1, .2, .3, .4]] * 3, "k": 3,
                                             "labels": [0, 1, 2, 3]}, ["labels"])
    add(t, "topk-weights-1-2-3", {"y_true": [0, 1, 2], "y_score": [[.1, .2, .3]] * 3, "k": 1,
                                  "sample_weight": [1, 2, 3]}, ["weights"])
    add(t, "topk-weights-normalize-false", {"y_true": [0, 1, 2], "y_score": [[.1, .2, .3]] * 3, "k": 1,
                                            "sample_weight": [1, 2, 3], "normalize": False},
        ["weights", "normalize"])
    add(t, "topk-weights-zero-normalize-false", {"y_true": [0, 1, 2], "y_score": [[.1, .2, .3]] * 3,
                                                 "sample_weight": [0, 0, 0], "normalize": False},
        ["weights", "normalize", "degenerate"])
    add(t, "topk-weights-negative", {"y_true": [0, 1, 2], "y_score": [[.1, .2, .3]] * 3, "k": 2,
                                     "sample_weight": [-1, 2, 3]}, ["weights", "negative-weight"])
    add(t, "topk-column-y_true", {"y_true": [[0], [1], [2]], "y_score": [[.1, .2, .7]] * 3, "k": 1}, [])
    add(t, "topk-string-labels", {"y_true": ["a", "c", "b"], "y_score": [[.1, .2, .7, 0]] * 3, "k": 1,
                                  "labels": ["a", "b", "c", "d"]}, ["labels", "strings"])
    add(t, "topk-weights-nan", {"y_true": [0, 1, 2], "y_score": [[.1, .2, .3]] * 3, "k": 1,
                                "sample_weight": [1, NAN, 1]}, ["weights", "nan-weight"])
    add(t, "topk-weights-nan-normalize-false", {"y_true": [0, 1, 2], "y_score": [[.1, .2, .3]] * 3, "k": 1,
                                                "sample_weight": [1, NAN, 1], "normalize": False},
        ["weights", "nan-weight", "normalize"])
    add(t, "topk-normalize-false-unweighted", {"y_true": [0, 1, 2, 0], "y_score": [[.5, .5, .1]] * 4, "k": 2,
                                               "normalize": False}, ["normalize", "ties"])
    # errors
    Y3 = {"y_true": [0, 1, 2], "y_score": [[.5, .3, .2]] * 3}
    add(t, "error-topk-k-0", {**Y3, "k": 0}, ["param"])
    add(t, "error-topk-k-none", {**Y3, "k": None}, ["param"])
    add(t, "error-topk-k-float", {**Y3, "k": 2.0}, ["param"])
    add(t, "error-topk-normalize-int", {**Y3, "normalize": 1}, ["param"])
    add(t, "error-topk-binary-2d-scores-with-labels", {"y_true": [0, 1, 1, 0], "y_score": [[.8, .2]] * 4, "k": 1,
                                                       "labels": [0, 1]}, ["labels"])
    add(t, "error-topk-binary-2d-3-classes", {"y_true": [0, 1], "y_score": [[.2, .6, .2]] * 2}, [])
    add(t, "error-topk-single-class", {"y_true": [1, 1], "y_score": [.2, .6], "k": 1}, [])
    add(t, "error-topk-multiclass-1d-scores", {"y_true": [0, 1, 2], "y_score": [.1, .2, .3]}, [])
    add(t, "error-topk-class-count-mismatch", {"y_true": [0, 1, 2], "y_score": [[.1, .2, .3, .4]] * 3}, [])
    add(t, "error-topk-labels-not-unique", {"y_true": [0, 1, 2], "y_score": [[.1, .2, .3]] * 3,
                                            "labels": [0, 1, 1, 2]}, ["labels"])
    add(t, "error-topk-labels-not-ordered", {"y_true": [0, 1, 2], "y_score": [[.1, .2, .3]] * 3,
                                             "labels": [0, 2, 1]}, ["labels"])
    add(t, "error-topk-labels-count", {"y_true": [0, 1, 2], "y_score": [[.1, .2, .3]] * 3,
                                       "labels": [0, 1, 2, 3]}, ["labels"])
    add(t, "error-topk-labels-missing", {"y_true": [0, 1, 4], "y_score": [[.1, .2, .3, .4]] * 3,
                                         "labels": [0, 1, 2, 3]}, ["labels"])
    add(t, "error-topk-continuous", {"y_true": [.5, 1.5, 2], "y_score": [[.1, .2, .3]] * 3}, ["format"])
    add(t, "error-topk-multilabel", {"y_true": [[0, 1], [1, 0]], "y_score": [[.1, .2], [.3, .4]]}, ["format"])
    add(t, "error-topk-nan-score", {"y_true": [0, 1, 2], "y_score": [[NAN, .2, .3]] * 3}, ["non-finite"])
    add(t, "error-topk-inf-score", {"y_true": [0, 1, 2], "y_score": [[INF, .2, .3]] * 3}, ["non-finite"])
    add(t, "error-topk-nan-true", {"y_true": [0, 1, NAN], "y_score": [[.1, .2, .3]] * 3}, ["non-finite"])
    add(t, "error-topk-inconsistent-length", {"y_true": [0, 1, 2], "y_score": [[.1, .2, .3]] * 4}, [])
    add(t, "error-topk-weight-length", {"y_true": [0, 1, 2], "y_score": [[.1, .2, .3]] * 3,
                                        "sample_weight": [1, 2]}, ["weights"])
    add(t, "error-topk-weights-zero", {"y_true": [0, 1, 2], "y_score": [[.1, .2, .3]] * 3,
                                       "sample_weight": [0, 0, 0]}, ["weights"])
    add(t, "error-topk-weights-cancel", {"y_true": [0, 1, 2], "y_score": [[.1, .2, .3]] * 3,
                                         "sample_weight": [1, -1, 0]}, ["weights"])
    add(t, "error-topk-binary-1d-with-3-labels", {"y_true": [0, 1], "y_score": [.2, .6], "labels": [0, 1, 2]},
        ["labels"])
    add(t, "error-topk-empty", {"y_true": [], "y_score": []}, [])
    add(t, "error-topk-single-sample-3-columns", {"y_true": [0], "y_score": [[.1, .2, .7]], "k": 1}, [])


def topk_random():
    t = "top_k_accuracy_score"
    for i in range(50):
        ncls = r_int(3, 8)
        nrows = r_int(3, 12)
        tied = rng.random() < 0.6
        S = [tied_row(ncls) if tied else untied_row(ncls) for _ in range(nrows)]
        y = [r_int(0, ncls - 1) for _ in range(nrows)]
        kw = {"y_true": y, "y_score": S, "k": r_int(1, ncls), "labels": list(range(ncls))}
        if rng.random() < 0.3:
            kw["normalize"] = False
        if rng.random() < 0.4:
            kw["sample_weight"] = weights(nrows)
        tags = {"random", "labels"} | ({"ties"} if any(has_ties(s) for s in S) else set())
        tags |= {"k-straddles-tie"} if "k-straddles-tie" in k_tags(S, kw["k"]) else set()
        tags |= {"k-past-end"} if kw["k"] >= ncls else set()
        tags |= {"weights"} if "sample_weight" in kw else set()
        tags |= {"normalize"} if "normalize" in kw else set()
        add(t, f"random-topk-multiclass-{i:02d}", kw, tags)
    for i in range(10):
        n = r_int(2, 12)
        y = binary_row(n, 0.5)
        y[0], y[1] = 0, 1
        if i % 3 == 0:
            s = [TIE_LEVELS[j] for j in rng.integers(0, 5, n)]
        elif i % 3 == 1:
            s = [round(float(x) * 2 - 0.5, 3) for x in rng.random(n)]
        else:
            s = [round(float(x), 3) for x in rng.random(n)]
        kw = {"y_true": y, "y_score": s, "k": 1}
        if i % 2:
            kw["sample_weight"] = weights(n)
        add(t, f"random-topk-binary-{i:02d}", kw, {"random", "binary"} | ({"weights"} if i % 2 else set()))


# =========================================================================== coverage / lrl / lrap

LABEL_FUNCS = ("coverage_error", "label_ranking_loss", "label_ranking_average_precision_score")
SHORT = {"coverage_error": "cov", "label_ranking_loss": "lrl", "label_ranking_average_precision_score": "lrap"}


def label_fixed():
    T2, S2 = [[1, 0, 0], [0, 0, 1]], [[.75, .5, 1.], [1., .2, .1]]
    for f in LABEL_FUNCS:
        s = SHORT[f]
        add(f, f"docstring-{s}-worked-example", {"y_true": T2, "y_score": S2}, ["docstring", "seed"])
        add(f, f"{s}-no-relevant", {"y_true": [[0, 0, 0]], "y_score": [[.1, .2, .3]]}, ["degenerate"])
        add(f, f"{s}-all-relevant", {"y_true": [[1, 1, 1]], "y_score": [[.1, .2, .3]]}, ["degenerate"])
        add(f, f"seed-{s}-empty-row-below-one", {"y_true": [[0, 0, 0], [1, 0, 0]], "y_score": [[.7, .2, .1]] * 2},
            ["seed", "degenerate"])
        add(f, f"{s}-all-tied", {"y_true": [[1, 0, 0]], "y_score": [[.5, .5, .5]]}, ["ties"])
        add(f, f"{s}-partial-tie", {"y_true": [[1, 0, 1, 0]], "y_score": [[.5, .5, .9, .1]]}, ["ties"])
        add(f, f"{s}-minus-one-relevant", {"y_true": [[1, -1, -1], [-1, 1, -1]],
                                           "y_score": [[.5, .2, .1], [.1, .2, .3]]}, [])
        add(f, f"{s}-zero-five", {"y_true": [[5, 0, 0], [0, 5, 0]], "y_score": [[.5, .2, .1], [.1, .2, .3]]}, [])
        add(f, f"{s}-weights-1-3", {"y_true": T2, "y_score": S2, "sample_weight": [1, 3]}, ["weights"])
        add(f, f"seed-{s}-negative-weight", {"y_true": T2, "y_score": S2, "sample_weight": [-1, 2]},
            ["weights", "negative-weight", "seed"])
        add(f, f"{s}-weights-nan", {"y_true": T2, "y_score": S2, "sample_weight": [1, NAN]},
            ["weights", "nan-weight"])
        add(f, f"seed-{s}-all-equal-scores", {"y_true": [[1, 0, 0], [0, 1, 1]],
                                              "y_score": [[.5, .5, .5], [2, 2, 2]]}, ["seed", "ties"])
        add(f, f"{s}-two-tied", {"y_true": [[0, 1]], "y_score": [[.5, .5]]}, ["ties", "seed"])
        add(f, f"{s}-bool-truth", {"y_true": [[True, False, True]], "y_score": [[.1, .5, .3]]}, [])
        add(f, f"{s}-float-truth", {"y_true": [[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]],
                                    "y_score": [[.1, .5, .3], [.3, .3, .2]]}, ["ties"])
        add(f, f"{s}-all-zero-matrix", {"y_true": [[0, 0], [0, 0]], "y_score": [[.1, .5], [.3, .3]]},
            ["degenerate", "ties"])
        add(f, f"{s}-negative-zero-ties", {"y_true": [[1, 0]], "y_score": [[-0.0, 0.0]]}, ["ties"])
        # errors
        add(f, f"error-{s}-different-shape", {"y_true": [[1, 0, 0]], "y_score": [[.5, .2]]}, [])
        add(f, f"error-{s}-inconsistent-length", {"y_true": [[1, 0, 0]], "y_score": [[.5, .2, .1]] * 2}, [])
        add(f, f"error-{s}-multiclass-multioutput", {"y_true": [[1, 0, 2]], "y_score": [[.5, .2, .1]]}, ["format"])
        add(f, f"error-{s}-continuous-multioutput", {"y_true": [[1, 0, .5]], "y_score": [[.5, .2, .1]]},
            ["format"])
        add(f, f"error-{s}-nan-score", {"y_true": [[1, 0, 0]], "y_score": [[NAN, .2, .1]]}, ["non-finite"])
        add(f, f"error-{s}-neginf-score", {"y_true": [[1, 0, 0]], "y_score": [[-INF, .2, .1]]}, ["non-finite"])
        add(f, f"error-{s}-inf-score", {"y_true": [[1, 0, 0]], "y_score": [[INF, .2, .1]]}, ["non-finite"])
        add(f, f"error-{s}-nan-true", {"y_true": [[1, NAN, 0]], "y_score": [[.5, .2, .1]]}, ["non-finite"])
        add(f, f"error-{s}-weight-length", {"y_true": T2, "y_score": S2, "sample_weight": [1, 2, 3]}, ["weights"])
        add(f, f"error-{s}-zero-columns", {"y_true": [[], []], "y_score": [[], []]}, [])
        add(f, f"error-{s}-strings", {"y_true": [[1, 0]], "y_score": [["a", "b"]]}, [])
        add(f, f"error-{s}-dim3", {"y_true": [[[1, 0]]], "y_score": [[[.1, .2]]]}, [])
        add(f, f"error-{s}-binary-1d", {"y_true": [1, 0], "y_score": [.5, .2]}, ["format"])
        add(f, f"error-{s}-weights-str", {"y_true": T2, "y_score": S2, "sample_weight": "x"}, ["param"])
        if f != "label_ranking_average_precision_score":
            add(f, f"error-{s}-single-column", {"y_true": [[1], [0]], "y_score": [[.5], [.2]]}, ["format"])
            add(f, f"error-{s}-weights-zero", {"y_true": T2, "y_score": S2, "sample_weight": [0, 0]}, ["weights"])
            add(f, f"error-{s}-weights-cancel", {"y_true": T2, "y_score": S2, "sample_weight": [1, -1]},
                ["weights"])
        else:
            add(f, "lrap-single-column", {"y_true": [[1], [0]], "y_score": [[.5], [.2]]}, ["degenerate"])
            add(f, "lrap-weights-zero", {"y_true": T2, "y_score": S2, "sample_weight": [0, 0]},
                ["weights", "degenerate"])
            add(f, "lrap-weights-cancel", {"y_true": T2, "y_score": S2, "sample_weight": [1, -1]},
                ["weights", "degenerate"])
            add(f, "error-lrap-column-vs-1d", {"y_true": [[1], [0]], "y_score": [.5, .2]}, [])
            add(f, "lrap-tied-two-relevant", {"y_true": [[1, 1, 0]], "y_score": [[.5, .5, .5]]}, ["ties"])
        if f == "label_ranking_loss":
            add(f, "error-lrl-multiclass-1d", {"y_true": [1, 0, 2], "y_score": [.5, .2, .1]}, ["format"])
        if f == "label_ranking_average_precision_score":
            add(f, "error-lrap-multiclass-1d", {"y_true": [1, 0, 2], "y_score": [.5, .2, .1]}, ["format"])
    add("coverage_error", "docstring-cov", {"y_true": [[1, 0, 0], [0, 1, 1]], "y_score": [[1, 0, 0], [0, 1, 1]]},
        ["docstring", "ties"])
    add("coverage_error", "cov-two-tied-relevant-last", {"y_true": [[0, 1]], "y_score": [[.5, .5]]}, ["ties"])


def label_random():
    for f in LABEL_FUNCS:
        s = SHORT[f]
        for i in range(45):
            nrows, ncols = r_int(1, 10), r_int(2, 30)
            T = [binary_row(ncols) for _ in range(nrows)]
            if nrows >= 2 and rng.random() < 0.5:
                T[r_int(0, nrows - 1)] = [0] * ncols
            if nrows >= 2 and rng.random() < 0.4:
                T[r_int(0, nrows - 1)] = [1] * ncols
            tied = rng.random() < 0.6
            S = [tied_row(ncols) if tied else untied_row(ncols) for _ in range(nrows)]
            kw = {"y_true": T, "y_score": S}
            if rng.random() < 0.4:
                kw["sample_weight"] = weights(nrows)
            tags = {"random"} | ({"ties"} if any(has_ties(r) for r in S) else set())
            tags |= {"weights"} if "sample_weight" in kw else set()
            if any(sum(r) in (0, ncols) for r in T):
                tags.add("degenerate")
            add(f, f"random-{s}-{i:02d}", kw, tags)
        for i in range(10):
            nrows = r_int(2, 6)
            lens = [r_int(2, 30) for _ in range(nrows)]
            T = [binary_row(n) for n in lens]
            if i % 4 == 0:
                T[0] = [0] * lens[0]
            if i % 4 == 1:
                T[-1] = [1] * lens[-1]
            tied = i % 2 == 0
            S = [tied_row(n) if tied else untied_row(n) for n in lens]
            sw = weights(nrows) if i % 3 == 1 else None
            tags = {"random"} | ({"ties"} if any(has_ties(r) for r in S) else set())
            if any(sum(r) in (0, len(r)) for r in T):
                tags.add("degenerate")
            add_ragged(f, f"ragged-{s}-{i:02d}", T, S, tags, sample_weight=sw)


# =========================================================================== average precision


def ap_fixed():
    a = "average_precision_score"
    B = {"y_true": [0, 0, 1, 1], "y_score": [.1, .4, .35, .8]}
    add(a, "docstring-ap-binary", B, ["docstring", "seed", "binary"])
    add(a, "seed-ap-two-tied", {"y_true": [0, 1], "y_score": [.5, .5]}, ["seed", "binary", "ties"])
    add(a, "seed-ap-two-tied-samples", {"y_true": [[0, 1]], "y_score": [[.5, .5]], "average": "samples"},
        ["seed", "ties", "multilabel"])
    add(a, "ap-all-tied-prevalence", {"y_true": [0, 1, 1], "y_score": [.3, .3, .3]}, ["binary", "ties"])
    Y = [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 0]]
    S = [[.9, .2, .1], [.3, .6, .4], [.4, .7, .5], [.5, .1, .3]]
    W4 = [1, 2, 0, 4]
    for avg in (None, "micro", "macro", "samples", "weighted"):
        add(a, f"ap-multilabel-{avg}", {"y_true": Y, "y_score": S, "average": avg}, ["multilabel", "degenerate"])
        add(a, f"ap-multilabel-{avg}-weighted-1-2-0-4", {"y_true": Y, "y_score": S, "average": avg,
                                                          "sample_weight": W4},
            ["multilabel", "weights", "degenerate"])
    add(a, "ap-multilabel-default-average", {"y_true": Y, "y_score": S}, ["multilabel", "degenerate"])
    Z, SZ = [[0, 0], [0, 0], [0, 0]], [[.1, .2], [.3, .4], [.5, .6]]
    for avg in (None, "macro", "micro", "samples", "weighted"):
        add(a, f"ap-all-zero-{avg}", {"y_true": Z, "y_score": SZ, "average": avg}, ["multilabel", "degenerate"])
    add(a, "ap-binary-no-positive", {"y_true": [0, 0, 0], "y_score": [.1, .2, .3]}, ["binary", "degenerate"])
    add(a, "ap-binary-all-positive", {"y_true": [1, 1, 1], "y_score": [.1, .2, .3]}, ["binary", "degenerate"])
    add(a, "ap-binary-single-positive-sample", {"y_true": [1], "y_score": [.3]}, ["binary", "degenerate"])
    add(a, "ap-binary-single-negative-sample", {"y_true": [0], "y_score": [.3]}, ["binary", "degenerate"])
    add(a, "ap-pos_label-0", {**B, "pos_label": 0}, ["binary", "pos_label"])
    add(a, "ap-labels-1-2-default-pos_label", {"y_true": [1, 1, 2, 2], "y_score": [.1, .4, .35, .8]},
        ["binary", "pos_label"])
    add(a, "ap-labels-1-2-pos_label-2", {"y_true": [1, 1, 2, 2], "y_score": [.1, .4, .35, .8], "pos_label": 2},
        ["binary", "pos_label"])
    add(a, "ap-labels-minus1-1", {"y_true": [-1, -1, 1, 1], "y_score": [.1, .4, .35, .8]}, ["binary"])
    add(a, "ap-labels-bool", {"y_true": [False, False, True, True], "y_score": [.1, .4, .35, .8]}, ["binary"])
    add(a, "ap-labels-float", {"y_true": [0., 0., 1., 1.], "y_score": [.1, .4, .35, .8]}, ["binary"])
    add(a, "ap-labels-strings-pos_label-b", {"y_true": ["a", "a", "b", "b"], "y_score": [.1, .4, .35, .8],
                                             "pos_label": "b"}, ["binary", "pos_label", "strings"])
    add(a, "ap-single-class-pos_label-5", {"y_true": [0, 0], "y_score": [.1, .2], "pos_label": 5},
        ["binary", "pos_label", "degenerate"])
    add(a, "ap-pos_label-float-1", {**B, "pos_label": 1.0}, ["binary", "pos_label"])
    add(a, "ap-pos_label-true", {**B, "pos_label": True}, ["binary", "pos_label"])
    add(a, "ap-binary-weights-1-2-3-4", {**B, "sample_weight": [1, 2, 3, 4]}, ["binary", "weights"])
    add(a, "ap-binary-weights-zero-dropped", {**B, "sample_weight": [1, 0, 1, 1]}, ["binary", "weights"])
    add(a, "ap-binary-negative-weight", {**B, "sample_weight": [1, -1, 1, 2]},
        ["binary", "weights", "negative-weight"])
    add(a, "ap-binary-cancelling-weights", {**B, "sample_weight": [1, -1, 1, -1]},
        ["binary", "weights", "negative-weight", "degenerate"])  # meaningless value, kept as sklearn's
    add(a, "ap-binary-average-none-ignored", {**B, "average": None}, ["binary"])
    add(a, "ap-binary-average-micro-ignored", {**B, "average": "micro"}, ["binary"])
    add(a, "ap-binary-column", {"y_true": [[1], [0], [1]], "y_score": [[.1], [.3], [.5]], "average": None},
        ["binary"])
    add(a, "ap-multilabel-1-2-values", {"y_true": [[1, 2], [2, 1], [2, 2]], "y_score": [[.1, .2], [.3, .4], [.5, .6]],
                                        "average": None}, ["multilabel"])
    add(a, "ap-multilabel-extra-truth-column", {"y_true": Y, "y_score": [r[:2] for r in S]}, ["multilabel"])
    yt = [0, 0, 1, 1, 2, 2]
    ys = [[.7, .2, .1], [.4, .3, .3], [.1, .8, .1], [.2, .3, .5], [.4, .4, .2], [.1, .2, .7]]
    add(a, "docstring-ap-multiclass", {"y_true": yt, "y_score": ys}, ["docstring", "multiclass", "ties"])
    for avg in ("micro", "samples", None, "weighted", "macro"):
        add(a, f"docstring-ap-multiclass-{avg}", {"y_true": yt, "y_score": ys, "average": avg},
            ["docstring", "multiclass", "ties"])
    add(a, "ap-multiclass-weights", {"y_true": yt, "y_score": ys, "sample_weight": [1, 2, 3, 1, 2, 3]},
        ["multiclass", "weights", "ties"])
    add(a, "ap-weighted-all-zero-weights", {"y_true": Y, "y_score": S, "average": "weighted",
                                            "sample_weight": [0, 0, 0, 0]}, ["multilabel", "weights", "degenerate"])
    add(a, "ap-multilabel-zero-five", {"y_true": [[5, 0], [0, 5]], "y_score": [[.9, .1], [.2, .8]], "average": None},
        ["multilabel", "degenerate"])
    Y3, S3 = [[1, 0], [0, 1], [1, 1]], [[.9, .1], [.2, .8], [.5, .5]]
    add(a, "ap-weighted-tiny-support-int-zero", {"y_true": Y3, "y_score": S3, "average": "weighted",
                                                 "sample_weight": [1e-9] * 3}, ["multilabel", "weights", "degenerate"])
    add(a, "ap-weighted-small-support", {"y_true": Y3, "y_score": S3, "average": "weighted",
                                         "sample_weight": [1e-8] * 3}, ["multilabel", "weights"])
    add(a, "ap-samples-weights-nan", {"y_true": Y, "y_score": S, "average": "samples",
                                      "sample_weight": [1, NAN, 1, 1]}, ["multilabel", "weights", "nan-weight"])
    add(a, "ap-samples-negative-weight", {"y_true": Y, "y_score": S, "average": "samples",
                                          "sample_weight": [1, -1, 2, 1]}, ["multilabel", "weights", "negative-weight"])
    # seed chapter 3 slates (AP column)
    desc10 = [float(10 - i) for i in range(10)]
    for name, row, q in [("top", [1, 1, 1, 0, 0, 0, 0, 0, 0, 0], 1.0), ("middle", [0, 0, 0, 1, 1, 1, 0, 0, 0, 0], 0.383),
                         ("bottom", [0, 0, 0, 0, 0, 0, 0, 1, 1, 1], 0.216)]:
        c = add(a, f"seed-slate-hits-{name}", {"y_true": row, "y_score": desc10}, ["seed", "binary"])
        assert round(c["expected"], 3) == q, (name, c["expected"])
    # errors
    add(a, "error-ap-pos_label-not-present", {"y_true": [0, 0, 2, 2], "y_score": [.1, .4, .35, .8]}, ["pos_label"])
    add(a, "error-ap-pos_label-not-present-strings", {"y_true": ["a", "a", "b", "b"], "y_score": [.1, .4, .35, .8]},
        ["pos_label", "strings"])
    add(a, "error-ap-pos_label-not-present-0-5", {"y_true": [5, 0, 0], "y_score": [.9, .1, .2]}, ["pos_label"])
    add(a, "error-ap-multilabel-pos_label", {"y_true": Y, "y_score": S, "pos_label": 0}, ["pos_label"])
    add(a, "error-ap-multiclass-pos_label", {"y_true": yt, "y_score": ys, "pos_label": 2}, ["pos_label"])
    add(a, "error-ap-multiclass-shape", {"y_true": yt, "y_score": [r[:2] for r in ys]}, ["multiclass"])
    add(a, "error-ap-continuous", {"y_true": [.1, .2, .3, .4], "y_score": [.1, .4, .35, .8]}, ["format"])
    add(a, "error-ap-multiclass-multioutput", {"y_true": [[0, 1, 2]], "y_score": [[.1, .2, .3]]}, ["format"])
    add(a, "error-ap-nan-score", {"y_true": [0, 0, 1, 1], "y_score": [NAN, .4, .35, .8]}, ["non-finite"])
    add(a, "error-ap-inf-score", {"y_true": [0, 0, 1, 1], "y_score": [INF, .4, .35, .8]}, ["non-finite"])
    add(a, "error-ap-nan-true", {"y_true": [0, NAN, 1, 1], "y_score": [.1, .4, .35, .8]}, ["non-finite"])
    add(a, "error-ap-nan-true-multilabel", {"y_true": [[1, NAN], [0, 1]], "y_score": [[.1, .2], [.3, .4]]}, ["non-finite"])
    add(a, "error-ap-inconsistent-length", {"y_true": [0, 0, 1, 1], "y_score": [.1, .4, .35]}, [])
    add(a, "error-ap-binary-2d-score", {"y_true": [0, 0, 1, 1], "y_score": [[.9, .1]] * 4}, [])
    add(a, "error-ap-weight-length", {**B, "sample_weight": [1, 2, 3]}, ["weights"])
    add(a, "error-ap-weights-zero", {**B, "sample_weight": [0, 0, 0, 0]}, ["weights"])
    add(a, "error-ap-weights-nan", {**B, "sample_weight": [1, NAN, 1, 1]}, ["weights"])
    add(a, "error-ap-macro-weights-zero", {"y_true": Y, "y_score": S, "average": "macro",
                                           "sample_weight": [0, 0, 0, 0]}, ["weights", "multilabel"])
    add(a, "error-ap-samples-weights-zero", {"y_true": Y, "y_score": S, "average": "samples",
                                             "sample_weight": [0, 0, 0, 0]}, ["weights", "multilabel"])
    add(a, "error-ap-samples-weights-cancel", {"y_true": Y, "y_score": S, "average": "samples",
                                               "sample_weight": [1, -1, 0, 0]}, ["weights", "multilabel"])
    add(a, "error-ap-micro-weights-nan", {"y_true": Y, "y_score": S, "average": "micro",
                                          "sample_weight": [1, NAN, 1, 1]}, ["weights", "multilabel"])
    add(a, "error-ap-weighted-weights-nan", {"y_true": Y, "y_score": S, "average": "weighted",
                                             "sample_weight": [1, NAN, 1, 1]}, ["weights", "multilabel"])
    add(a, "error-ap-average-binary", {"y_true": [0, 1], "y_score": [.1, .2], "average": "binary"},
        ["param", "hash-dependent"])
    add(a, "error-ap-pos_label-none", {"y_true": [0, 1], "y_score": [.1, .2], "pos_label": None}, ["param"])
    add(a, "error-ap-weights-str", {**B, "sample_weight": "x"}, ["param"])


def ap_random():
    a = "average_precision_score"
    for i in range(26):
        n = r_int(2, 30)
        y = binary_row(n)
        if i % 9 != 8:  # most cases have both classes
            if sum(y) == 0:
                y[r_int(0, n - 1)] = 1
            if sum(y) == n:
                y[r_int(0, n - 1)] = 0
        tied = i % 2 == 0
        s = tied_row(n) if tied else untied_row(n)
        kw = {"y_true": y, "y_score": s}
        if i % 3 == 1:
            kw["sample_weight"] = weights(n)
        if i % 7 == 3:
            kw["y_true"] = [2 * v - 1 for v in y]  # {-1, 1}
        tags = {"random", "binary"} | ({"ties"} if has_ties(s) else set())
        tags |= {"weights"} if "sample_weight" in kw else set()
        if sum(y) in (0, n):
            tags.add("degenerate")
        add(a, f"random-ap-binary-{i:02d}", kw, tags)
    avgs = [None, "micro", "macro", "samples", "weighted"]
    for i in range(20):
        nrows, ncols = r_int(2, 10), r_int(2, 6)
        T = [binary_row(ncols) for _ in range(nrows)]
        tied = i % 2 == 0
        S = [tied_row(ncols) if tied else untied_row(ncols) for _ in range(nrows)]
        kw = {"y_true": T, "y_score": S, "average": avgs[i % 5]}
        if i % 3 == 2:
            kw["sample_weight"] = weights(nrows)
        tags = {"random", "multilabel"} | ({"ties"} if any(has_ties(r) for r in S) else set())
        tags |= {"weights"} if "sample_weight" in kw else set()
        cols = list(zip(*T, strict=False))
        if any(sum(r) == 0 for r in T) or any(sum(c) == 0 for c in cols):
            tags.add("degenerate")
        add(a, f"random-ap-multilabel-{i:02d}", kw, tags)
    for i in range(8):
        ncls = r_int(3, 5)
        nrows = r_int(ncls, 12)
        y = list(range(ncls)) + [r_int(0, ncls - 1) for _ in range(nrows - ncls)]
        y = [int(v) for v in rng.permutation(y)]
        S = [tied_row(ncls) if i % 2 == 0 else untied_row(ncls) for _ in range(nrows)]
        kw = {"y_true": y, "y_score": S, "average": avgs[i % 5]}
        if i % 3 == 0:
            kw["sample_weight"] = weights(nrows)
        tags = {"random", "multiclass"} | ({"ties"} if any(has_ties(r) for r in S) else set())
        tags |= {"weights"} if "sample_weight" in kw else set()
        add(a, f"random-ap-multiclass-{i:02d}", kw, tags)


# =========================================================================== reciprocal rank


def rr_fixed():
    add_rr("seed-rr-tied-3210", {"y_true": R4, "y_score": T4}, ["seed", "ties"])
    add_rr("seed-rr-tied-3210-ignore_ties", {"y_true": R4, "y_score": T4, "ignore_ties": True},
           ["seed", "ties", "ignore_ties"])
    desc10 = [[float(10 - i) for i in range(10)]]
    for name, row, q in [("top", [1, 1, 1, 0, 0, 0, 0, 0, 0, 0], 1.0), ("middle", [0, 0, 0, 1, 1, 1, 0, 0, 0, 0], 0.25),
                         ("bottom", [0, 0, 0, 0, 0, 0, 0, 1, 1, 1], 0.125)]:
        c = add_rr(f"seed-slate-hits-{name}", {"y_true": [row], "y_score": desc10}, ["seed"])
        assert c["expected"] == q
    add_rr("rr-docstring-dcg-data", {"y_true": TR, "y_score": [[.1, .2, .3, 4, 70]]}, ["docstring"])
    add_rr("rr-docstring-dcg-ties-k1", {"y_true": TR, "y_score": [[1, 0, 0, 0, 1]], "k": 1}, ["ties"])
    add_rr("rr-two-tied-one-relevant", {"y_true": [[0, 1]], "y_score": [[.5, .5]]}, ["ties"])
    add_rr("rr-two-tied-one-relevant-k1", {"y_true": [[0, 1]], "y_score": [[.5, .5]], "k": 1},
           ["ties", "k-straddles-tie"])
    add_rr("rr-tie-straddles-k", {"y_true": [[0, 0, 1, 0, 0]], "y_score": [[.9, .5, .5, .5, .1]], "k": 2},
           ["ties", "k-straddles-tie"])
    add_rr("rr-all-irrelevant", {"y_true": [[0, 0, 0]], "y_score": [[.1, .2, .3]]}, ["degenerate"])
    add_rr("rr-zero-row-counts", {"y_true": [[0, 0], [1, 0]], "y_score": [[.2, .1], [.1, .2]]}, ["degenerate"])
    add_rr("rr-single-document", {"y_true": [[1], [0]], "y_score": [[.3], [.2]]}, ["degenerate"])
    add_rr("rr-single-document-k1", {"y_true": [[1], [1]], "y_score": [[.3], [.2]], "k": 1}, ["degenerate"])
    add_rr("rr-k-past-end", {"y_true": [[0, 0, 1]], "y_score": [[.3, .2, .1]], "k": 10}, ["k-past-end"])
    add_rr("rr-k-cuts-first-relevant", {"y_true": [[0, 0, 1]], "y_score": [[.3, .2, .1]], "k": 2}, [])
    add_rr("rr-k-true", {"y_true": [[0, 1, 1]], "y_score": [[.3, .2, .1]], "k": True}, ["k-bool"])
    add_rr("rr-float-relevance", {"y_true": [[0.0, 0.5, 2.5]], "y_score": [[.3, .2, .1]]}, ["float-relevance"])
    add_rr("rr-graded-relevance", {"y_true": [[0, 4, 0, 1]], "y_score": [[.9, .2, .8, .1]]}, [])
    add_rr("rr-weights-1-3", {"y_true": [[1, 0], [0, 1]], "y_score": [[.2, .1], [.2, .1]], "sample_weight": [1, 3]},
           ["weights"])
    add_rr("rr-negative-weight", {"y_true": [[1, 0], [0, 1]], "y_score": [[.2, .1], [.2, .1]],
                                  "sample_weight": [-1, 2]}, ["weights", "negative-weight"])
    add_rr("rr-weights-nan", {"y_true": [[1, 0], [0, 1]], "y_score": [[.2, .1], [.2, .1]],
                              "sample_weight": [1, NAN]}, ["weights", "nan-weight"])
    add_rr("rr-negative-zero-ties", {"y_true": [[0, 1]], "y_score": [[0.0, -0.0]]}, ["ties"])
    add_rr("rr-bool-truth", {"y_true": [[False, True, True]], "y_score": [[.3, .2, .2]]}, ["ties"])
    # large tie blocks: formula only for the largest, block enumeration where c <= 7
    for c, r, b, k in [(8, 1, 0, None), (10, 3, 2, None), (12, 2, 1, 5), (20, 4, 0, None), (20, 1, 3, 10),
                       (16, 16, 1, None), (25, 5, 0, 3)]:
        g = [0] * b + [1] * r + [0] * (c - r)
        s = [float(b - i + 1) for i in range(b)] + [0.5] * c
        kw = {"y_true": [g], "y_score": [s]}
        if k is not None:
            kw["k"] = k
        add_rr(f"rr-large-tie-c{c}-r{r}-b{b}-k{k}", kw, ["ties", "large-tie"] + sorted(k_tags([s], k)))
    # errors (validation reuses sklearn's machinery: same messages, function name reciprocal_rank_score)
    ok = {"y_true": [[1, 0], [0, 1]], "y_score": [[.2, .1], [.2, .1]]}
    add_rr("error-rr-k-0", {**ok, "k": 0}, ["param"])
    add_rr("error-rr-k-negative", {**ok, "k": -1}, ["param"])
    add_rr("error-rr-k-float", {**ok, "k": 2.0}, ["param"])
    add_rr("error-rr-ignore_ties-int", {**ok, "ignore_ties": 1}, ["param"])
    add_rr("error-rr-sample_weight-str", {**ok, "sample_weight": "x"}, ["param"])
    add_rr("error-rr-nan-score", {"y_true": [[1, 0]], "y_score": [[NAN, .1]]}, ["non-finite"])
    add_rr("error-rr-nan-true", {"y_true": [[NAN, 0]], "y_score": [[.2, .1]]}, ["non-finite"])
    add_rr("error-rr-inf-score", {"y_true": [[1, 0]], "y_score": [[INF, .1]]}, ["non-finite"])
    add_rr("error-rr-inconsistent-length", {"y_true": [[1, 0], [0, 1]], "y_score": [[.2, .1]]}, [])
    add_rr("error-rr-weight-length", {**ok, "sample_weight": [1, 2, 3]}, ["weights"])
    add_rr("error-rr-weights-zero", {**ok, "sample_weight": [0, 0]}, ["weights"])
    add_rr("error-rr-weights-cancel", {**ok, "sample_weight": [1, -1]}, ["weights"])


def rr_random():
    for i in range(45):
        nrows, ncols = r_int(1, 8), r_int(2, 30)
        rel_kind = "int" if rng.random() < 0.7 else "float"
        G = [relevance_row(ncols, rel_kind) for _ in range(nrows)]
        for g in G:  # sparser relevance, as RR is about the first relevant one
            for j in range(ncols):
                if rng.random() < 0.6:
                    g[j] = 0 if rel_kind == "int" else 0.0
        ignore = rng.random() < 0.25
        tied = (not ignore) and rng.random() < 0.65
        S = [tied_row(ncols) if tied else untied_row(ncols) for _ in range(nrows)]
        kw = {"y_true": G, "y_score": S}
        k = pick_k(S, ncols)
        if k is not None:
            kw["k"] = k
        if ignore:
            kw["ignore_ties"] = True
        if rng.random() < 0.4:
            kw["sample_weight"] = weights(nrows)
        tags = {"random"} | k_tags(S, k) | ({"ties"} if any(has_ties(s) for s in S) else set())
        tags |= {"ignore_ties"} if ignore else set()
        tags |= {"weights"} if "sample_weight" in kw else set()
        tags |= {"float-relevance"} if rel_kind == "float" else set()
        if any(all(x == 0 for x in g) for g in G):
            tags.add("degenerate")
        add_rr(f"random-rr-{i:02d}", kw, tags)
    for i in range(10):
        nrows = r_int(2, 6)
        lens = [r_int(2, 30) for _ in range(nrows)]
        G = [[int(x) for x in (rng.random(n) < 0.25)] for n in lens]
        ignore = i % 4 == 3
        S = [untied_row(n) if ignore or i % 2 else tied_row(n) for n in lens]
        extra = {}
        if i % 3 == 1:
            extra["k"] = r_int(1, max(lens) + 2)
        if ignore:
            extra["ignore_ties"] = True
        sw = weights(nrows) if i % 2 == 1 else None
        tags = {"random"} | k_tags(S, extra.get("k")) | ({"ties"} if any(has_ties(s) for s in S) else set())
        tags |= {"ignore_ties"} if ignore else set()
        add_ragged("reciprocal_rank_score", f"ragged-rr-{i:02d}", G, S, tags, sample_weight=sw, **extra)
    # identity with LRAP: untied rows with exactly one relevant item
    for i in range(8):
        nrows, ncols = r_int(1, 7), r_int(2, 20)
        G = []
        for _ in range(nrows):
            g = [0] * ncols
            g[r_int(0, ncols - 1)] = 1
            G.append(g)
        S = [untied_row(ncols) for _ in range(nrows)]
        c = add_rr(f"rr-lrap-identity-{i:02d}", {"y_true": G, "y_score": S}, ["random", "lrap-identity"])
        lr = label_ranking_average_precision_score(G, S)
        for g, s, v in zip(G, S, c["per_row"], strict=False):
            assert label_ranking_average_precision_score([g], [s]) == v, (g, s, v)
            STATS["rr_lrap_identity_rows"] += 1
        assert lr == c["expected"], (lr, c["expected"])


# =========================================================================== AUC and calibration
#
# Added with issue 11.  These cases draw from their own generator (SEED + 11), so the
# files above are byte-identical to what they were before this section existed.

rng11 = np.random.default_rng(SEED + 11)


def _prob_row(n, decimals):
    """Probabilities on a grid (ties, exact 0 and 1 possible) or free (6 decimals)."""
    return [round(float(x), decimals) for x in rng11.random(n)]


def _labels_row(n, p=None):
    p = float(rng11.uniform(0.15, 0.85)) if p is None else p
    y = [int(x) for x in (rng11.random(n) < p)]
    if len(set(y)) < 2:
        y[0] = 1 - y[0]
    return y


def _weights11(n):
    return [round(float(x), 4) + 0.05 for x in rng11.random(n) * 3]


def roc_auc_fixed():
    add("roc_auc_score", "docstring-roc-curve", {"y_true": [0, 0, 1, 1], "y_score": [0.1, 0.4, 0.35, 0.8]},
        ["docstring", "binary"])
    add("roc_auc_score", "all-tied", {"y_true": [0, 1, 0, 1, 1], "y_score": [0.5] * 5}, ["ties", "binary"])
    add("roc_auc_score", "tie-across-classes", {"y_true": [0, 1, 1, 0], "y_score": [0.2, 0.5, 0.9, 0.5]},
        ["ties", "binary"])
    add("roc_auc_score", "perfect", {"y_true": [0, 0, 1, 1], "y_score": [0.1, 0.2, 0.3, 0.4]}, ["binary"])
    add("roc_auc_score", "inverted", {"y_true": [1, 1, 0, 0], "y_score": [0.1, 0.2, 0.3, 0.4]}, ["binary"])
    add("roc_auc_score", "bool-labels", {"y_true": [False, True, True, False, True],
                                         "y_score": [0.3, 0.3, 0.8, 0.1, 0.2]}, ["binary", "ties"])
    add("roc_auc_score", "labels-minus-one-one", {"y_true": [-1, 1, 1, -1], "y_score": [0.3, 0.6, 0.2, 0.1]},
        ["binary", "labels"])
    add("roc_auc_score", "labels-one-two", {"y_true": [1, 2, 2, 1, 1], "y_score": [3, 5, 1, 2, 0]},
        ["binary", "labels"])
    add("roc_auc_score", "string-labels", {"y_true": ["b", "a", "b", "a"], "y_score": [0.9, 0.2, 0.4, 0.6]},
        ["binary", "strings"])
    add("roc_auc_score", "negative-scores", {"y_true": [0, 1, 0, 1, 0], "y_score": [-3.5, 2.0, -0.5, 0.0, 1.5]},
        ["binary"])
    add("roc_auc_score", "monotone-sigmoid", {"y_true": [0, 1, 0, 1, 0],
                                              "y_score": [float(1 / (1 + math.exp(-v)))
                                                          for v in [-3.5, 2.0, -0.5, 0.0, 1.5]]},
        ["binary", "monotone"])
    add("roc_auc_score", "one-class-positive", {"y_true": [1, 1, 1], "y_score": [0.2, 0.5, 0.1]},
        ["degenerate", "binary"])
    add("roc_auc_score", "one-class-negative", {"y_true": [0, 0], "y_score": [0.2, 0.5]},
        ["degenerate", "binary"])
    add("roc_auc_score", "weights", {"y_true": [0, 1, 1, 0, 1], "y_score": [0.1, 0.4, 0.4, 0.8, 0.9],
                                     "sample_weight": [1.0, 2.0, 0.5, 3.0, 1.0]}, ["weights", "ties"])
    add("roc_auc_score", "zero-weight-dropped", {"y_true": [0, 1, 1, 0], "y_score": [0.1, 0.4, 0.2, 0.8],
                                                 "sample_weight": [1.0, 1.0, 0.0, 1.0]}, ["weights"])
    for mf in (0.1, 0.25, 0.5, 0.8, 1.0, 1):
        add("roc_auc_score", f"max-fpr-{mf!r}", {"y_true": [0, 0, 1, 1, 0, 1, 0],
                                                 "y_score": [0.1, 0.4, 0.35, 0.8, 0.6, 0.6, 0.2],
                                                 "max_fpr": mf}, ["max_fpr", "ties"])
    add("roc_auc_score", "max-fpr-weights", {"y_true": [0, 1, 1, 0, 1], "y_score": [0.1, 0.4, 0.4, 0.8, 0.9],
                                             "sample_weight": [1.0, 2.0, 0.5, 3.0, 1.0], "max_fpr": 0.3},
        ["weights", "max_fpr"])
    add("roc_auc_score", "column-vector", {"y_true": [[0], [1], [1], [0]], "y_score": [[0.2], [0.3], [0.9], [0.1]]},
        ["binary"])
    # errors
    add("roc_auc_score", "error-nan-score", {"y_true": [0, 1], "y_score": [NAN, 0.2]}, ["non-finite"])
    add("roc_auc_score", "error-inf-score", {"y_true": [0, 1], "y_score": [INF, 0.2]}, ["non-finite"])
    add("roc_auc_score", "error-lengths", {"y_true": [0, 1, 1], "y_score": [0.1, 0.2]}, [])
    add("roc_auc_score", "error-max-fpr-0", {"y_true": [0, 1], "y_score": [0.1, 0.2], "max_fpr": 0}, ["param"])
    add("roc_auc_score", "error-max-fpr-big", {"y_true": [0, 1], "y_score": [0.1, 0.2], "max_fpr": 1.5},
        ["param"])
    add("roc_auc_score", "error-average", {"y_true": [0, 1], "y_score": [0.1, 0.2], "average": "x"},
        ["param", "hash-dependent"])
    add("roc_auc_score", "error-multi-class-option", {"y_true": [0, 1], "y_score": [0.1, 0.2],
                                                      "multi_class": "x"}, ["param", "hash-dependent"])
    add("roc_auc_score", "error-multiclass-raise", {"y_true": [0, 1, 2], "y_score": [0.1, 0.2, 0.3]},
        ["multiclass", "format"])
    add("roc_auc_score", "error-multiclass-max-fpr", {"y_true": [0, 1, 2], "y_score": [0.1, 0.2, 0.3],
                                                      "max_fpr": 0.5}, ["multiclass"])
    add("roc_auc_score", "error-2d-score", {"y_true": [0, 1, 1, 0], "y_score": [[0.1, 0.9], [0.2, 0.8],
                                                                               [0.3, 0.7], [0.4, 0.6]]},
        ["format"])
    add("roc_auc_score", "error-zero-weights", {"y_true": [0, 1], "y_score": [0.1, 0.2],
                                                "sample_weight": [0.0, 0.0]}, ["weights"])


def roc_auc_random():
    for i in range(40):
        n = int(rng11.integers(2, 40))
        y = _labels_row(n)
        s = _prob_row(n, int(rng11.integers(1, 4)) if rng11.random() < 0.6 else 6)
        kw = {"y_true": y, "y_score": s}
        tags = {"random", "binary"} | ({"ties"} if has_ties(s) else set())
        if i % 4 == 1:
            kw["sample_weight"] = _weights11(n)
            tags.add("weights")
        if i % 5 == 2:
            kw["max_fpr"] = round(float(rng11.uniform(0.05, 1.0)), 3)
            tags.add("max_fpr")
        add("roc_auc_score", f"random-auc-{i:02d}", kw, tags)


def proba_fixed():
    for fname in ("log_loss", "brier_score_loss"):
        add(fname, "docstring-binary", {"y_true": [0, 1, 1, 0], "y_proba": [0.1, 0.9, 0.8, 0.3]},
            ["docstring", "binary"])
        add(fname, "clipped-0-and-1", {"y_true": [0, 1, 1, 0], "y_proba": [0.0, 1.0, 0.0, 1.0]},
            ["binary", "degenerate"])
        add(fname, "exact-hits", {"y_true": [0, 1, 1, 0], "y_proba": [0.0, 1.0, 1.0, 0.0]}, ["binary"])
        add(fname, "tiny-probabilities", {"y_true": [1, 0, 1, 0], "y_proba": [1e-20, 1 - 1e-17, 3e-16, 0.5]},
            ["binary", "degenerate"])
        add(fname, "constant-half", {"y_true": [0, 1, 1, 0, 1], "y_proba": [0.5] * 5}, ["binary"])
        add(fname, "bool-labels", {"y_true": [True, False, True], "y_proba": [0.7, 0.2, 0.4]}, ["binary"])
        add(fname, "weights", {"y_true": [0, 1, 1, 0], "y_proba": [0.1, 0.9, 0.8, 0.3],
                               "sample_weight": [1.0, 0.5, 2.0, 0.25]}, ["weights", "binary"])
        add(fname, "multiclass", {"y_true": ["eggs", "ham", "spam"],
                                  "y_proba": [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.2, 0.2, 0.6]]},
            ["docstring", "multiclass", "strings"])
        add(fname, "two-columns", {"y_true": [0, 1, 1], "y_proba": [[0.8, 0.2], [0.3, 0.7], [0.6, 0.4]]},
            ["binary"])
        add(fname, "error-above-one", {"y_true": [0, 1], "y_proba": [0.1, 1.2]}, ["param"])
        add(fname, "error-below-zero", {"y_true": [0, 1], "y_proba": [-0.1, 0.2]}, ["param"])
        add(fname, "error-nan", {"y_true": [0, 1], "y_proba": [NAN, 0.2]}, ["non-finite"])
        add(fname, "error-lengths", {"y_true": [0, 1, 1], "y_proba": [0.1, 0.2]}, [])
    add("log_loss", "docstring-multiclass", {"y_true": ["spam", "ham", "ham", "spam"],
                                             "y_proba": [[0.1, 0.9], [0.9, 0.1], [0.8, 0.2], [0.35, 0.65]]},
        ["docstring", "strings"])
    add("log_loss", "one-class-with-labels", {"y_true": [1, 1, 1], "y_proba": [0.9, 0.6, 0.2],
                                              "labels": [0, 1]}, ["binary", "labels", "degenerate"])
    add("log_loss", "normalize-false", {"y_true": [0, 1, 1, 0], "y_proba": [0.1, 0.9, 0.8, 0.3],
                                        "normalize": False}, ["normalize", "binary"])
    add("log_loss", "normalize-false-weights", {"y_true": [0, 1, 1, 0], "y_proba": [0.1, 0.9, 0.8, 0.3],
                                                "normalize": False, "sample_weight": [1.0, 0.5, 2.0, 0.25]},
        ["normalize", "weights", "binary"])
    add("log_loss", "rows-not-summing-to-one", {"y_true": [0, 1, 2], "y_proba": [[0.5, 0.1, 0.1],
                                                                              [0.2, 0.7, 0.1],
                                                                              [0.2, 0.2, 0.6]]},
        ["multiclass"])
    add("log_loss", "error-one-class", {"y_true": [1, 1], "y_proba": [0.9, 0.6]}, ["degenerate"])
    add("log_loss", "error-normalize", {"y_true": [0, 1], "y_proba": [0.1, 0.6], "normalize": 1}, ["param"])
    add("log_loss", "error-label-missing", {"y_true": [0, 2], "y_proba": [0.1, 0.6], "labels": [0, 1]},
        ["labels"])
    add("log_loss", "error-classes-columns", {"y_true": [0, 1, 2], "y_proba": [[0.2, 0.8], [0.3, 0.7],
                                                                             [0.6, 0.4]]}, ["multiclass"])
    add("brier_score_loss", "docstring-pos-label", {"y_true": ["spam", "ham", "ham", "spam"],
                                                    "y_proba": [0.1, 0.9, 0.8, 0.3], "pos_label": "ham"},
        ["docstring", "strings", "pos_label"])
    add("brier_score_loss", "one-class", {"y_true": [1, 1], "y_proba": [0.5, 0.2]}, ["binary", "degenerate"])
    add("brier_score_loss", "labels-one-two", {"y_true": [1, 2, 2, 1], "y_proba": [0.5, 0.2, 0.9, 0.1]},
        ["binary", "labels"])
    add("brier_score_loss", "pos-label-zero", {"y_true": [0, 1, 1, 0], "y_proba": [0.1, 0.9, 0.8, 0.3],
                                               "pos_label": 0}, ["binary", "pos_label"])
    add("brier_score_loss", "multiclass-unscaled", {"y_true": ["eggs", "ham", "spam"],
                                                    "y_proba": [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1],
                                                                [0.2, 0.2, 0.6]],
                                                    "scale_by_half": True}, ["multiclass"])
    add("brier_score_loss", "binary-unscaled", {"y_true": [0, 1, 1, 0], "y_proba": [0.1, 0.9, 0.8, 0.3],
                                                "scale_by_half": False}, ["binary"])
    add("brier_score_loss", "error-multiclass-1d", {"y_true": [0, 1, 2], "y_proba": [0.1, 0.2, 0.3]},
        ["format", "multiclass"])
    add("brier_score_loss", "error-strings-no-pos-label", {"y_true": ["a", "b"], "y_proba": [0.1, 0.2]},
        ["strings", "pos_label"])


def proba_random():
    for fname in ("log_loss", "brier_score_loss"):
        for i in range(30):
            n = int(rng11.integers(2, 40))
            y = _labels_row(n)
            p = _prob_row(n, int(rng11.integers(1, 4)) if rng11.random() < 0.5 else 6)
            kw = {"y_true": y, "y_proba": p}
            tags = {"random", "binary"}
            if i % 4 == 1:
                kw["sample_weight"] = _weights11(n)
                tags.add("weights")
            add(fname, f"random-{i:02d}", kw, tags)
        for i in range(6):
            n, k = int(rng11.integers(4, 25)), int(rng11.integers(3, 6))
            y = [int(v) for v in rng11.permutation(np.resize(np.arange(k), n))]
            m = rng11.random((n, k))
            m = (m / m.sum(axis=1, keepdims=True)).tolist()
            add(fname, f"random-multiclass-{i:02d}", {"y_true": y, "y_proba": m}, ["random", "multiclass"])


def calibration_fixed():
    f = "calibration_curve"
    dy, dp = [0, 0, 0, 0, 1, 1, 1, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.65, 0.7, 0.8, 0.9, 1.0]
    add(f, "docstring", {"y_true": dy, "y_prob": dp, "n_bins": 3}, ["docstring"])
    add(f, "docstring-quantile", {"y_true": dy, "y_prob": dp, "n_bins": 3, "strategy": "quantile"},
        ["docstring", "quantile"])
    add(f, "default-bins", {"y_true": dy, "y_prob": dp}, [])
    edges = [0.0, 0.2, 0.2, 0.4, 0.6, 0.6000000000000001, 0.8, 1.0, 0.19999999999999998]
    add(f, "on-the-edges", {"y_true": [0, 1, 0, 1, 1, 0, 1, 1, 0], "y_prob": edges}, ["edges"])
    add(f, "on-the-edges-10", {"y_true": [0, 1, 0, 1, 1, 0, 1, 1, 0], "y_prob": edges, "n_bins": 10},
        ["edges"])
    add(f, "one-bin", {"y_true": [0, 1, 1, 0], "y_prob": [0.1, 0.9, 0.8, 0.3], "n_bins": 1}, [])
    add(f, "one-bin-quantile", {"y_true": [0, 1, 1, 0], "y_prob": [0.1, 0.9, 0.8, 0.3], "n_bins": 1,
                                "strategy": "quantile"}, ["quantile"])
    add(f, "more-bins-than-rows", {"y_true": [0, 1, 1], "y_prob": [0.1, 0.5, 0.55], "n_bins": 20}, [])
    add(f, "quantile-duplicates", {"y_true": [0, 1, 1, 0, 1, 0], "y_prob": [0.5, 0.5, 0.5, 0.5, 0.9, 0.1],
                                   "n_bins": 4, "strategy": "quantile"}, ["quantile", "ties"])
    add(f, "quantile-many-bins", {"y_true": [0, 1, 1, 0, 1], "y_prob": [0.3, 0.6, 0.6, 0.2, 0.7],
                                  "n_bins": 7, "strategy": "quantile"}, ["quantile", "ties"])
    add(f, "one-class", {"y_true": [1, 1, 1], "y_prob": [0.2, 0.7, 0.9]}, ["degenerate"])
    add(f, "bool-labels", {"y_true": [True, False, True, False], "y_prob": [0.8, 0.3, 0.6, 0.5]}, [])
    add(f, "labels-minus-one-one", {"y_true": [1, -1, 1, -1], "y_prob": [0.8, 0.3, 0.6, 0.5]}, ["labels"])
    add(f, "pos-label-string", {"y_true": ["a", "b", "b"], "y_prob": [0.2, 0.7, 0.4], "pos_label": "b"},
        ["strings", "pos_label"])
    add(f, "error-outside", {"y_true": [0, 1], "y_prob": [0.1, 1.2]}, [])
    add(f, "error-negative", {"y_true": [0, 1], "y_prob": [-0.1, 0.2]}, [])
    add(f, "error-n-bins-0", {"y_true": [0, 1], "y_prob": [0.1, 0.2], "n_bins": 0}, ["param"])
    add(f, "error-n-bins-float", {"y_true": [0, 1], "y_prob": [0.1, 0.2], "n_bins": 2.0}, ["param"])
    add(f, "error-strategy", {"y_true": [0, 1], "y_prob": [0.1, 0.2], "strategy": "x"},
        ["param", "hash-dependent"])
    add(f, "error-three-labels", {"y_true": [0, 1, 2], "y_prob": [0.1, 0.2, 0.3], "pos_label": 1}, ["format"])
    add(f, "error-strings-no-pos-label", {"y_true": ["a", "b"], "y_prob": [0.1, 0.2]}, ["strings"])
    add(f, "error-lengths", {"y_true": [0, 1, 1], "y_prob": [0.1, 0.2]}, [])


def calibration_random():
    for i in range(40):
        n = int(rng11.integers(2, 60))
        y = _labels_row(n)
        p = _prob_row(n, int(rng11.integers(1, 3)) if rng11.random() < 0.5 else 6)
        kw = {"y_true": y, "y_prob": p, "n_bins": int(rng11.integers(1, 16))}
        tags = {"random"}
        if i % 2:
            kw["strategy"] = "quantile"
            tags.add("quantile")
        add("calibration_curve", f"random-{i:02d}", kw, tags)


# --------------------------------------------------------------------------- issue "every verdict right"
# Label matrices and multiclass targets for roc_auc_score, label-matrix y_true and labels= for
# log_loss and brier_score_loss, and negative weights.  Their own generator (SEED + 12), and
# appended after the cases above, so every earlier case is byte-identical.

rng12 = np.random.default_rng(SEED + 12)


def add_auto(fname, cid, kwargs, tags=()):
    """``add``, the id prefixed ``error-`` exactly when scikit-learn raises."""
    cid = cid.removeprefix("error-")
    return add(fname, f"{'error-' if quiet_outcome(fname, kwargs) else ''}{cid}", kwargs, tags)

ML_TRUE = [[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 1], [1, 0, 0]]
ML_SCORE = [[0.9, 0.2, 0.4], [0.3, 0.6, 0.4], [0.5, 0.5, 0.1], [0.5, 0.3, 0.8], [0.2, 0.7, 0.4]]
ML_WEIGHT = [1.0, 2.0, 0.5, 1.0, 3.0]
MC_TRUE = [0, 1, 2, 2, 1, 0, 2]
MC_PROBA = [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.3, 0.6], [0.3, 0.3, 0.4], [0.4, 0.4, 0.2],
            [0.5, 0.1, 0.4], [0.2, 0.5, 0.3]]
OVO_SCORES = [[0.1, 0.8, 0.1], [0.3, 0.4, 0.3], [0.35, 0.5, 0.15], [0, 0.2, 0.8]]
AVERAGES = (None, "micro", "macro", "weighted", "samples")


def _avg_id(average):
    return "none" if average is None else average


def roc_auc_negative_weights():
    f = "roc_auc_score"
    y, s = [0, 0, 0, 1], [0.1, 0.2, 0.3, 0.4]
    add_auto(f, "error-negative-weights-curve-falls", {"y_true": y, "y_score": s, "sample_weight": [-1, 1, 1, -1]},
        ["weights", "negative-weight"])
    add_auto(f, "negative-weights-max-fpr", {"y_true": y, "y_score": s, "sample_weight": [-1, 1, 1, -1],
                                        "max_fpr": 0.5}, ["weights", "negative-weight", "max_fpr"])
    add_auto(f, "error-negative-weight-on-a-negative", {"y_true": y, "y_score": s, "sample_weight": [-1, 1, 1, 1]},
        ["weights", "negative-weight"])
    add_auto(f, "negative-weight-max-fpr", {"y_true": y, "y_score": s, "sample_weight": [-1, 1, 1, 1],
                                       "max_fpr": 0.5}, ["weights", "negative-weight", "max_fpr"])
    add_auto(f, "negative-weight-positives-cancel", {"y_true": y, "y_score": s, "sample_weight": [1, 1, 1, -1]},
        ["weights", "negative-weight", "degenerate"])
    add_auto(f, "negative-weight-harmless", {"y_true": [0, 1, 0, 1, 1], "y_score": [0.1, 0.9, 0.3, 0.8, 0.4],
                                        "sample_weight": [2.0, 1.0, -0.5, 1.0, 1.0]},
        ["weights", "negative-weight"])
    add_auto(f, "error-zero-weight-max-fpr-one-point", {"y_true": [0, 1, 1], "y_score": [0.1, 0.2, 0.3],
                                                   "sample_weight": [0, 1, 1], "max_fpr": 0.5},
        ["weights", "max_fpr", "degenerate"])
    add_auto(f, "zero-weight-no-negative", {"y_true": [0, 1, 1], "y_score": [0.1, 0.2, 0.3],
                                       "sample_weight": [0, 1, 1]}, ["weights", "degenerate"])
    for i in range(12):
        n = int(rng12.integers(3, 12))
        yy = _labels_row12(n)
        ss = [round(float(x), 1) for x in rng12.random(n)]
        w = [float(x) for x in rng12.choice([-1.0, 0.0, 0.5, 1.0, 2.0], n)]
        kw = {"y_true": yy, "y_score": ss, "sample_weight": w}
        if i % 2:
            kw["max_fpr"] = round(float(rng12.uniform(0.1, 0.9)), 2)
        case = quiet_outcome(f, kw)
        add_auto(f, f"{'error-' if case else ''}random-negative-weights-{i:02d}", kw,
            ["random", "weights", "negative-weight"])


def quiet_outcome(fname, kwargs):
    """True when scikit-learn raises on these kwargs (for the id's ``error-`` prefix)."""
    _, exc, _ = call(FUNCS[fname], roundtrip(kwargs))
    return exc is not None


def _labels_row12(n):
    y = [int(x) for x in (rng12.random(n) < 0.5)]
    if len(set(y)) < 2:
        y[0] = 1 - y[0]
    return y


def roc_auc_multilabel():
    f = "roc_auc_score"
    for average in AVERAGES:
        a = _avg_id(average)
        kw = {"y_true": ML_TRUE, "y_score": ML_SCORE}
        if average != "macro":
            kw["average"] = average
        add_auto(f, f"multilabel-{a}", kw, ["multilabel"])
        add_auto(f, f"multilabel-{a}-weights", dict(kw, sample_weight=ML_WEIGHT), ["multilabel", "weights"])
        add_auto(f, f"multilabel-{a}-max-fpr", dict(kw, max_fpr=0.4), ["multilabel", "max_fpr"])
        add_auto(f, f"multilabel-{a}-minus-one-one", dict(kw, y_true=[[2 * v - 1 for v in r] for r in ML_TRUE]),
            ["multilabel", "labels"])
        add_auto(f, f"error-multilabel-{a}-zero-two", dict(kw, y_true=[[2 * v for v in r] for r in ML_TRUE]),
            ["multilabel", "labels"])
        # scikit-learn's toy matrices: columns (or rows) of one class warn and give NaN
        add_auto(f, f"multilabel-{a}-one-class-column", dict(kw, y_true=[[0, 1], [0, 1]], y_score=[[0, 1], [1, 0]]),
            ["multilabel", "degenerate"])
        add_auto(f, f"multilabel-{a}-ties", dict(kw, y_true=[[1, 0], [0, 1]], y_score=[[0.5, 0.5], [0.5, 0.5]]),
            ["multilabel", "ties"])
        add_auto(f, f"multilabel-{a}-float", dict(kw, y_true=[[float(v) for v in r] for r in ML_TRUE]),
            ["multilabel"])
        add_auto(f, f"multilabel-{a}-negative-weight", dict(kw, sample_weight=[1.0, -1.0, 1.0, 2.0, 1.0]),
            ["multilabel", "weights", "negative-weight"])
        add_auto(f, f"error-multilabel-{a}-lengths", dict(kw, y_score=ML_SCORE[:4]), ["multilabel"])
        add_auto(f, f"error-multilabel-{a}-1d-score", dict(kw, y_score=[0.1, 0.2, 0.3, 0.4, 0.5]),
            ["multilabel", "format"])
    add_auto(f, "multilabel-weighted-no-positive", {"y_true": [[0, 0], [0, 0], [0, 0]],
                                              "y_score": [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]],
                                              "average": "weighted"}, ["multilabel", "degenerate"])
    add_auto(f, "multilabel-fewer-score-columns", {"y_true": ML_TRUE, "y_score": [r[:2] for r in ML_SCORE]},
        ["multilabel"])
    add_auto(f, "error-multilabel-samples-fewer-score-columns",
        {"y_true": ML_TRUE, "y_score": [r[:2] for r in ML_SCORE], "average": "samples"}, ["multilabel"])
    add_auto(f, "multilabel-samples-one-class-rows", {"y_true": [[1, 1, 1], [0, 1, 0], [0, 0, 0]],
                                                "y_score": [[0.1, 0.2, 0.3]] * 3, "average": "samples"},
        ["multilabel", "degenerate"])
    add_auto(f, "error-multiclass-multioutput", {"y_true": [[0, 1, 2], [2, 1, 0]],
                                            "y_score": [[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]]}, ["format"])
    for i in range(10):
        n, k = int(rng12.integers(2, 15)), int(rng12.integers(2, 6))
        yy = (rng12.random((n, k)) < 0.4).astype(int).tolist()
        ss = np.round(rng12.random((n, k)), int(rng12.integers(1, 3))).tolist()
        w = [round(float(x), 3) + 0.1 for x in rng12.random(n) * 2] if i % 3 == 1 else None
        mf = round(float(rng12.uniform(0.1, 1.0)), 2) if i % 4 == 2 else None
        for average in AVERAGES:
            kw = {"y_true": yy, "y_score": ss, "average": average}
            if w is not None:
                kw["sample_weight"] = w
            if mf is not None:
                kw["max_fpr"] = mf
            err = quiet_outcome(f, kw)
            add_auto(f, f"{'error-' if err else ''}random-multilabel-{i:02d}-{_avg_id(average)}", kw,
                ["random", "multilabel"])


def roc_auc_multiclass():
    f = "roc_auc_score"
    for mc in ("ovr", "ovo"):
        for average in (None, "micro", "macro", "weighted"):
            kw = {"y_true": MC_TRUE, "y_score": MC_PROBA, "multi_class": mc, "average": average}
            err = quiet_outcome(f, kw)
            add_auto(f, f"{'error-' if err else ''}multiclass-{mc}-{_avg_id(average)}", kw, ["multiclass"])
        base = {"y_true": MC_TRUE, "y_score": MC_PROBA, "multi_class": mc}
        add_auto(f, f"multiclass-{mc}-labels", dict(base, labels=[0, 1, 2]), ["multiclass", "labels"])
        add_auto(f, f"multiclass-{mc}-strings", dict(base, y_true=[["ant", "bee", "cat"][v] for v in MC_TRUE]),
            ["multiclass", "strings"])
        add_auto(f, f"multiclass-{mc}-absent-class", {"y_true": [0, 2, 0, 2], "multi_class": mc,
                                                 "y_score": [[0.2, 0.0, 0.8], [0.6, 0.0, 0.4],
                                                             [0.55, 0.0, 0.45], [0.4, 0.0, 0.6]],
                                                 "labels": [0, 1, 2]}, ["multiclass", "labels", "degenerate"])
        add_auto(f, f"multiclass-{mc}-absent-string-class", {"y_true": ["a", "d", "a", "d"], "multi_class": mc,
                                                        "y_score": [[0.2, 0.0, 0.8], [0.6, 0.0, 0.4],
                                                                    [0.55, 0.0, 0.45], [0.4, 0.0, 0.6]],
                                                        "labels": ["a", "b", "d"]},
            ["multiclass", "labels", "strings", "degenerate"])
        add_auto(f, f"multiclass-{mc}-ovo-toy", {"y_true": [0, 1, 0, 2], "y_score": OVO_SCORES, "multi_class": mc,
                                            "average": "weighted"}, ["multiclass"])
        add_auto(f, f"multiclass-{mc}-chance", {"y_true": [3, 1, 2, 0], "y_score": [[0.25] * 4] * 4,
                                           "multi_class": mc}, ["multiclass", "ties"])
        add_auto(f, f"multiclass-{mc}-max-fpr-one", dict(base, max_fpr=1.0), ["multiclass", "max_fpr"])
        add_auto(f, f"error-multiclass-{mc}-max-fpr", dict(base, max_fpr=0.5), ["multiclass", "max_fpr"])
        add_auto(f, f"error-multiclass-{mc}-not-probabilities", dict(base, y_score=[[2 * v for v in r] for r in MC_PROBA]),
            ["multiclass"])
        add_auto(f, f"error-multiclass-{mc}-1d-score", dict(base, y_score=[0.5, 0.4, 0.8, 0.9, 0.8, 0.7, 0.1]),
            ["multiclass", "format"])
        add_auto(f, f"error-multiclass-{mc}-samples", dict(base, average="samples"), ["multiclass", "param"])
        for j, (y, labels) in enumerate([
            ([0, 1, 2, 2], [0, 2, 0]),
            (["a", "b", "c", "c"], ["a", "a", "b"]),
            ([0, 2, 0, 2], None),
            (["a", "b", "c", "c"], ["a", "c", "b"]),
            ([0, 1, 2, 2], [0, 1]),
            (["a", "b", "c", "c"], ["a", "b", "c", "d"]),
            (["a", "b", "c", "e"], ["a", "b", "c"]),
            ([0, 1, 2, 3], [0, 1, 2]),
        ]):
            add_auto(f, f"error-multiclass-{mc}-labels-{j}", {"y_true": y, "y_score": OVO_SCORES, "labels": labels,
                                                         "multi_class": mc}, ["multiclass", "labels"])
    add_auto(f, "multiclass-ovr-weights", {"y_true": MC_TRUE, "y_score": MC_PROBA, "multi_class": "ovr",
                                      "sample_weight": [1.0, 2.0, 1.0, 0.5, 1.0, 3.0, 2.0]},
        ["multiclass", "weights"])
    add_auto(f, "multiclass-ovr-weighted-weights", {"y_true": MC_TRUE, "y_score": MC_PROBA, "multi_class": "ovr",
                                               "average": "weighted",
                                               "sample_weight": [1.0, 2.0, 1.0, 0.5, 1.0, 3.0, 2.0]},
        ["multiclass", "weights"])
    add_auto(f, "multiclass-ovr-micro-weights", {"y_true": MC_TRUE, "y_score": MC_PROBA, "multi_class": "ovr",
                                            "average": "micro",
                                            "sample_weight": [1.0, 2.0, 1.0, 0.5, 1.0, 3.0, 2.0]},
        ["multiclass", "weights"])
    add_auto(f, "multiclass-ovr-weighted-zero-total", {"y_true": MC_TRUE, "y_score": MC_PROBA, "multi_class": "ovr",
                                                  "average": "weighted",
                                                  "sample_weight": [1.0, -1.0, 1.0, -1.0, 0.0, 0.0, 0.0]},
        ["multiclass", "weights", "negative-weight", "degenerate"])
    add_auto(f, "error-multiclass-ovo-weights", {"y_true": MC_TRUE, "y_score": MC_PROBA, "multi_class": "ovo",
                                            "sample_weight": [1.0] * 7}, ["multiclass", "weights"])
    add_auto(f, "error-multiclass-ovr-lengths", {"y_true": MC_TRUE[:6], "y_score": MC_PROBA, "multi_class": "ovr"},
        ["multiclass"])
    add_auto(f, "error-multiclass-ovo-lengths", {"y_true": MC_TRUE[:6], "y_score": MC_PROBA, "multi_class": "ovo"},
        ["multiclass"])
    for i in range(12):
        n, k = int(rng12.integers(3, 30)), int(rng12.integers(3, 6))
        yy = [int(v) for v in rng12.integers(0, k, n)]
        pp = rng12.dirichlet(np.ones(k), n)
        if i % 3 == 0:
            pp = np.round(pp, 1)
            pp[:, -1] = np.round(1 - pp[:, :-1].sum(axis=1), 10)
            pp = np.clip(pp, 0, 1)
        for mc in ("ovr", "ovo"):
            for average in ("macro", "weighted") + ((None, "micro") if mc == "ovr" else ()):
                kw = {"y_true": yy, "y_score": pp.tolist(), "multi_class": mc, "average": average}
                if i % 4 == 1:
                    kw["labels"] = list(range(k))
                if mc == "ovr" and i % 3 == 2:
                    kw["sample_weight"] = [round(float(x), 3) + 0.1 for x in rng12.random(n) * 2]
                err = quiet_outcome(f, kw)
                add_auto(f, f"{'error-' if err else ''}random-multiclass-{i:02d}-{mc}-{_avg_id(average)}", kw,
                    ["random", "multiclass"])


def proba_matrices():
    indicator = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0]]
    proba = [[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.5, 0.4, 0.1]]
    for fname in ("log_loss", "brier_score_loss"):
        add_auto(fname, "indicator", {"y_true": indicator, "y_proba": proba}, ["multilabel"])
        add_auto(fname, "indicator-weights", {"y_true": indicator, "y_proba": proba,
                                         "sample_weight": [1.0, 2.0, 3.0, 4.0]}, ["multilabel", "weights"])
        add_auto(fname, "indicator-bool", {"y_true": [[bool(v) for v in r] for r in indicator], "y_proba": proba},
            ["multilabel"])
        add_auto(fname, "indicator-float", {"y_true": [[float(v) for v in r] for r in indicator], "y_proba": proba},
            ["multilabel"])
        add_auto(fname, "indicator-two-ones", {"y_true": [[1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0]],
                                          "y_proba": proba}, ["multilabel"])
        add_auto(fname, "indicator-zero-two", {"y_true": [[2 * v for v in r] for r in indicator], "y_proba": proba},
            ["multilabel", "labels"])
        add_auto(fname, "indicator-minus-one-one", {"y_true": [[2 * v - 1 for v in r] for r in indicator],
                                               "y_proba": proba}, ["multilabel", "labels"])
        add_auto(fname, "indicator-all-zero", {"y_true": [[0, 0, 0]] * 4, "y_proba": proba},
            ["multilabel", "degenerate"])
        add_auto(fname, "indicator-two-columns", {"y_true": [[0, 1], [1, 0], [1, 1]],
                                             "y_proba": [[0.2, 0.8], [0.7, 0.3], [0.4, 0.6]]}, ["multilabel"])
        add_auto(fname, "indicator-not-summing-to-one", {"y_true": [[0, 1], [1, 0], [1, 1]],
                                                    "y_proba": [[0.2, 0.7], [0.7, 0.3], [0.4, 0.6]]},
            ["multilabel"])
        add_auto(fname, "error-indicator-with-labels", {"y_true": indicator, "y_proba": proba, "labels": [0, 1, 2]},
            ["multilabel", "labels"])
        add_auto(fname, "error-indicator-columns", {"y_true": indicator,
                                               "y_proba": [[0.7, 0.3], [0.4, 0.6], [0.5, 0.5], [0.6, 0.4]]},
            ["multilabel"])
        add_auto(fname, "error-multiclass-multioutput", {"y_true": [[0, 1, 2], [2, 1, 0], [0, 1, 2], [1, 1, 1]],
                                                    "y_proba": proba}, ["format"])
        add_auto(fname, "error-continuous-multioutput", {"y_true": [[0.5 * v for v in r] for r in indicator],
                                                    "y_proba": proba}, ["format"])
        add_auto(fname, "error-continuous", {"y_true": [0.5, 0.2, 0.3, 0.1], "y_proba": proba}, ["format"])
        add_auto(fname, "error-list-column", {"y_true": [[0], [1], [1], [0]], "y_proba": proba}, ["format"])
        # labels=
        add_auto(fname, "labels-absent-class", {"y_true": [0, 2], "y_proba": [[0.6, 0.3, 0.1], [0.2, 0.2, 0.6]],
                                           "labels": [0, 1, 2]}, ["labels", "multiclass"])
        add_auto(fname, "labels-absent-string-class", {"y_true": ["a", "c"],
                                                  "y_proba": [[0.6, 0.3, 0.1], [0.2, 0.2, 0.6]],
                                                  "labels": ["a", "b", "c"]}, ["labels", "multiclass", "strings"])
        add_auto(fname, "labels-unsorted", {"y_true": ["eggs", "spam", "ham"],
                                       "y_proba": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
                                       "labels": ["spam", "eggs", "ham"]}, ["labels", "multiclass", "strings"])
        add_auto(fname, "labels-one-class", {"y_true": ["eggs"], "y_proba": [[0.9, 0.1]], "labels": ["eggs", "ham"]},
            ["labels", "degenerate"])
        add_auto(fname, "labels-four-classes", {"y_true": ["eggs", "spam", "ham"],
                                           "y_proba": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 1, 0, 0]],
                                           "labels": ["eggs", "ham", "spam", "yams"]}, ["labels", "multiclass"])
        add_auto(fname, "labels-weights", {"y_true": [1, 2, 2, 1], "y_proba": [[0.7, 0.1, 0.2], [0.2, 0.7, 0.1],
                                                                          [0.1, 0.7, 0.2], [0.3, 0.3, 0.4]],
                                      "labels": [1, 2, 3], "sample_weight": [1.0, 0.5, 2.0, 1.5]},
            ["labels", "weights", "multiclass"])
        add_auto(fname, "error-labels-too-many", {"y_true": ["eggs", "spam", "ham"],
                                             "y_proba": [[1, 0, 0], [0, 1, 0], [0, 1, 0]],
                                             "labels": ["eggs", "spam", "ham", "yams"]}, ["labels"])
        add_auto(fname, "error-labels-one", {"y_true": [0, 0], "y_proba": [[0.9, 0.1], [0.8, 0.2]], "labels": [0]},
            ["labels"])
        add_auto(fname, "error-labels-undeclared", {"y_true": ["a", "b", "c"],
                                               "y_proba": [[0.9, 0.1, 0.0], [0.1, 0.9, 0.0], [0.1, 0.1, 0.8]],
                                               "labels": ["a", "c", "d"]}, ["labels"])
        add_auto(fname, "error-labels-repeated", {"y_true": [0, 1, 1], "y_proba": [0.5, 0.2, 0.3], "labels": [0, 0, 1]},
            ["labels"])
    add_auto("log_loss", "indicator-normalize-false", {"y_true": indicator, "y_proba": proba, "normalize": False},
        ["multilabel", "normalize"])
    add_auto("log_loss", "indicator-two-columns-vector", {"y_true": [[0, 1], [1, 0], [1, 1]], "y_proba": [0.8, 0.3, 0.6]},
        ["multilabel"])
    add_auto("brier_score_loss", "error-indicator-vector", {"y_true": [[0, 1], [1, 0], [1, 1]],
                                                       "y_proba": [0.8, 0.3, 0.6]}, ["multilabel", "format"])
    for scale in (True, False, "auto"):
        add_auto("brier_score_loss", f"indicator-scale-{str(scale).lower()}",
            {"y_true": indicator, "y_proba": proba, "scale_by_half": scale}, ["multilabel"])
        add_auto("brier_score_loss", f"labels-scale-{str(scale).lower()}",
            {"y_true": ["eggs", "spam"], "y_proba": [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1]],
             "labels": ["eggs", "ham", "spam"], "scale_by_half": scale}, ["labels", "multiclass"])
        add_auto("brier_score_loss", f"indicator-two-columns-scale-{str(scale).lower()}",
            {"y_true": [[0, 1], [1, 0], [1, 1]], "y_proba": [[0.2, 0.8], [0.7, 0.3], [0.4, 0.6]],
             "scale_by_half": scale}, ["multilabel"])
    for fname in ("log_loss", "brier_score_loss"):
        for i in range(8):
            n, k = int(rng12.integers(2, 20)), int(rng12.integers(2, 6))
            yy = (rng12.random((n, k)) < 0.4).astype(int)
            if i % 2:
                yy = np.zeros((n, k), dtype=int)
                yy[np.arange(n), rng12.integers(0, k, n)] = 1
            pp = rng12.dirichlet(np.ones(k), n).tolist()
            kw = {"y_true": yy.tolist(), "y_proba": pp}
            if i % 3 == 1:
                kw["sample_weight"] = [round(float(x), 3) + 0.1 for x in rng12.random(n) * 2]
            err = quiet_outcome(fname, kw)
            add_auto(fname, f"{'error-' if err else ''}random-indicator-{i:02d}", kw, ["random", "multilabel"])
        for i in range(6):
            n, k = int(rng12.integers(2, 20)), int(rng12.integers(3, 6))
            yy = [int(v) for v in rng12.integers(0, k - 1, n)]
            pp = rng12.dirichlet(np.ones(k), n).tolist()
            kw = {"y_true": yy, "y_proba": pp, "labels": list(range(k))}
            err = quiet_outcome(fname, kw)
            add_auto(fname, f"{'error-' if err else ''}random-labels-{i:02d}", kw, ["random", "labels", "multiclass"])


# =========================================================================== main


def main():
    dcg_ndcg_fixed()
    dcg_ndcg_random()
    topk_fixed()
    topk_random()
    label_fixed()
    label_random()
    ap_fixed()
    ap_random()
    rr_fixed()
    rr_random()
    roc_auc_fixed()
    roc_auc_random()
    proba_fixed()
    proba_random()
    calibration_fixed()
    calibration_random()
    roc_auc_negative_weights()
    roc_auc_multilabel()
    roc_auc_multiclass()
    proba_matrices()

    DATA.mkdir(parents=True, exist_ok=True)
    counts, total = {}, 0
    for name, cases in CASES.items():
        for c in cases:
            assert (c["raises"] is None) != (c["expected_type"] is None), c["id"]
            assert c["id"].startswith("error-") == (c["raises"] is not None), (c["id"], c["raises"])
            assert len(c["kwargs"]["y_true"]) > 0 or c["raises"], c["id"]
        text = json.dumps(cases, indent=None, allow_nan=False, ensure_ascii=True, separators=(",", ":"))
        text = text.replace("},{\"id\"", "},\n{\"id\"")  # one case per line: readable diffs
        (DATA / f"{name}.json").write_text(text + "\n")
        counts[name] = len(cases)
        total += len(text) + 1
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    date = (_dt.datetime.fromtimestamp(int(epoch), _dt.UTC) if epoch
            else _dt.datetime.now(_dt.UTC)).date().isoformat()
    manifest = {
        "generator": "corpus/generate.py",
        "generated": date,
        "seed": SEED,
        "pythonhashseed": os.environ.get("PYTHONHASHSEED"),
        "versions": {"sklearn": sklearn.__version__, "numpy": np.__version__, "scipy": scipy.__version__,
                     "python": platform.python_version()},
        "machine": platform.machine(),
        "cases": counts,
        "total_cases": sum(counts.values()),
        "total_bytes": total,
        "checks": {
            "ap_binary_cases_with_both_classes": STATS["ap_binary_checked"],
            "ap_trapezoid_coincide": STATS["ap_trapezoid_coincide"],
            "rr_rows_checked_by_full_enumeration": STATS["rr_enumerated_rows"],
            "rr_rows_checked_by_tie_block_enumeration": STATS["rr_block_enumerated_rows"],
            "rr_rows_equal_to_lrap": STATS["rr_lrap_identity_rows"],
        },
    }
    (ROOT / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(json.dumps(manifest, indent=2))


if __name__ == "__main__":
    main()
