"""Top-k accuracy as a Polars expression (scikit-learn's ``top_k_accuracy_score``)."""

from __future__ import annotations

import polars as pl

from lodestar_polars._base.validation import check_k
from lodestar_polars._core.top_k import is_top_k
from lodestar_polars._metrics.expr import (
    Check,
    Metric,
    as_float,
    as_score,
    binary_check,
    input_checks,
)
from lodestar_polars._metrics.ties import later_row_first_position
from lodestar_polars.typing import IntoExprColumn


def top_k_accuracy_metric(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int = 2,
    name: str = "top_k_accuracy",
) -> Metric:
    """The :class:`Metric` behind :func:`top_k_accuracy`."""
    k = check_k(k, "top_k_accuracy", allow_none=False)  # type: ignore[assignment]
    truth, score = as_float(y_true), as_score(y_score)
    # The true row's 0-based position, equal scores the later row first.  One
    # rank, each group scalar read once (no common-subexpression elimination
    # inside group_by().agg(), docs/decisions/0008).  Exactly one true row is
    # checked below.
    ordinal = later_row_first_position(score)
    position = pl.when(truth == 1.0).then(ordinal).max().cast(pl.Int64) - 1
    value = is_top_k(position, k).cast(pl.Float64)
    n_true = (truth == 1.0).sum()
    one_true = Check(
        n_true != 1,
        pl.format(
            "top_k_accuracy needs exactly one true row per group (the true class). Got {} instead.",
            n_true,
        ),
    )
    return Metric(
        name, value, (*input_checks(truth, score), binary_check(truth, "top_k_accuracy"), one_true)
    )


def top_k_accuracy(y_true: IntoExprColumn, y_score: IntoExprColumn, *, k: int = 2) -> pl.Expr:
    """Whether one sample's true class is among its ``k`` best-scored classes.

    A group is one sample; its rows are the candidate classes, ``y_true`` is
    True on the true class (and only there) and ``y_score`` the class scores.
    The group scores 1.0 when the true class is among the ``k`` highest
    scores, else 0.0; the mean over groups is scikit-learn's
    ``top_k_accuracy_score``.

    Parameters
    ----------
    y_true
        True (or 1) on the true class's row, False (or 0) elsewhere.
    y_score
        The score of each class.
    k : int, default=2
        How many of the best-scored classes count as a hit.

    Returns
    -------
    polars.Expr
        A Float64 expression named ``top_k_accuracy``: 1.0 or 0.0 per group.

    Raises
    ------
    InvalidParameterError
        ``k`` below 1, ``None``, or not an int.

    See Also
    --------
    lodestar_polars.arrays.top_k_accuracy_score : scikit-learn's surface, with
        its binary rule and ``labels``.

    Notes
    -----
    Equal scores are ordered as scikit-learn orders them: the later row first
    (scikit-learn's stable sort, reversed, puts the higher class index first).
    So the true class is a hit when the rows scoring higher, plus the later
    rows scoring the same, number fewer than ``k``.

    A group is refused, and gets null, when it has zero or several true rows,
    a ``y_true`` other than 0/1/bool, or a null, NaN or infinite value.
    Unlike scikit-learn, a ``k`` at or past the number of classes does not
    warn (every group simply scores 1.0).

    Examples
    --------
    scikit-learn's docstring example: four samples, three classes each.

    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> df = pl.DataFrame(
    ...     {
    ...         "sample": [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3],
    ...         "truth": [True, False, False, False, True, False]
    ...         + [False, False, True, False, False, True],
    ...         "score": [0.5, 0.2, 0.2, 0.3, 0.4, 0.2, 0.2, 0.4, 0.3, 0.7, 0.2, 0.1],
    ...     }
    ... )
    >>> hits = df.group_by("sample", maintain_order=True).agg(
    ...     top2=lp.top_k_accuracy("truth", "score", k=2)
    ... )
    >>> hits["top2"].to_list()
    [1.0, 1.0, 1.0, 0.0]
    >>> hits["top2"].mean()
    0.75
    """
    return top_k_accuracy_metric(y_true, y_score, k=k).expr()
