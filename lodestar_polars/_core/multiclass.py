"""ROC AUC of every row of a label matrix at once (multilabel ``average="samples"``).

scikit-learn's ``roc_auc_score(average="samples")`` treats each row of a
``(n_samples, n_labels)`` indicator matrix as one binary problem and calls its
binary ROC AUC once per row.  :func:`roc_auc_rows` gives the same areas for
all rows in a few matrix operations: the rows are sorted by score
(descending), the true and false positives counted at every position, and
the trapezoids taken between the ends of the tie blocks (the points of
scikit-learn's ``roc_curve``; its collinear points add nothing to the area).
With ``max_fpr`` the curve is cut at that false-positive rate, the last
trapezoid interpolated as ``np.interp`` does, and the area standardised as
McClish's (scikit-learn's ``_binary_roc_auc_score``).
"""

from __future__ import annotations

import numpy as np


def roc_auc_rows(
    positive: np.ndarray, score: np.ndarray, max_fpr: float | None = None
) -> np.ndarray:
    """ROC AUC of each row of ``score`` against the 0/1 row of ``positive``.

    Parameters
    ----------
    positive : ndarray of shape (n_rows, n_labels)
        True where the label is positive (anything NumPy reads as a bool).
    score : ndarray of shape (n_rows, n_labels)
        Finite scores.
    max_fpr : float in (0, 1], optional
        Standardised partial AUC over ``[0, max_fpr]`` (``None`` or 1: the
        whole area).

    Returns
    -------
    ndarray of shape (n_rows,)
        The area of each row; NaN for a row holding one class.

    Examples
    --------
    >>> import numpy as np
    >>> roc_auc_rows(np.array([[0, 1, 1], [1, 0, 1], [1, 1, 1]]),
    ...              np.array([[0.1, 0.8, 0.5], [0.5, 0.5, 0.2], [0.1, 0.2, 0.3]]))
    array([1.  , 0.25,  nan])
    """
    n_rows, n_labels = score.shape
    order = np.argsort(-np.asarray(score, dtype=np.float64), axis=1, kind="stable")
    ranked = np.take_along_axis(np.asarray(score, dtype=np.float64), order, axis=1)
    truth = np.take_along_axis(np.asarray(positive, dtype=bool), order, axis=1)
    tps = np.cumsum(truth, axis=1, dtype=np.float64)
    fps = np.arange(1, n_labels + 1, dtype=np.float64) - tps
    n_pos, n_neg = tps[:, -1:], fps[:, -1:]
    defined = (n_pos[:, 0] > 0) & (n_neg[:, 0] > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        fpr, tpr = fps / n_neg, tps / n_pos
    end = np.ones((n_rows, n_labels), dtype=bool)
    end[:, :-1] = ranked[:, 1:] != ranked[:, :-1]
    # the previous end of a tie block (-1: the curve's origin) of each position
    ends = np.where(end, np.arange(n_labels), -1)
    previous = np.full((n_rows, n_labels), -1)
    previous[:, 1:] = np.maximum.accumulate(ends, axis=1)[:, :-1]
    at = np.maximum(previous, 0)
    x0 = np.where(previous >= 0, np.take_along_axis(fpr, at, axis=1), 0.0)
    y0 = np.where(previous >= 0, np.take_along_axis(tpr, at, axis=1), 0.0)
    with np.errstate(invalid="ignore"):
        if max_fpr is None or max_fpr == 1:
            area = np.where(end, (fpr - x0) * (tpr + y0) / 2.0, 0.0).sum(axis=1)
            return np.where(defined, area, np.nan)
        whole = end & (fpr <= max_fpr)
        cut = end & (x0 < max_fpr) & (fpr > max_fpr)
        with np.errstate(divide="ignore"):
            y_cut = y0 + (max_fpr - x0) * (tpr - y0) / (fpr - x0)
        pieces = np.where(whole, (fpr - x0) * (tpr + y0) / 2.0, 0.0)
        pieces += np.where(cut, (max_fpr - x0) * (y_cut + y0) / 2.0, 0.0)
        partial = pieces.sum(axis=1)
    min_area = 0.5 * max_fpr**2
    standardised = 0.5 * (1 + (partial - min_area) / (max_fpr - min_area))
    return np.where(defined, standardised, np.nan)
