"""scikit-learn 1.9.1's input checks, rewritten on NumPy alone.

:mod:`lodestar_polars.arrays` answers exactly as scikit-learn does, errors
included, without importing scikit-learn or SciPy.  This module holds the
small part of ``sklearn.utils`` that decides those answers:

* the parameter checks of ``validate_params`` that
  :mod:`lodestar_polars._base.validation` does not already cover (array-likes,
  AP's ``average`` and ``pos_label``);
* ``check_array``, ``column_or_1d``, ``check_consistent_length`` and
  ``_check_sample_weight`` (only the options the ranking metrics use);
* ``type_of_target``, the dispatcher of every ranking metric;
* ``np.average``, the final step of most of them.

Each helper performs the same NumPy operations in the same order as its
scikit-learn original wherever an operation can fail or warn, so the
exception (type and text) and the warnings are the same.
"""

from __future__ import annotations

import functools
import inspect
import numbers
import warnings
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from lodestar_polars.exceptions import InvalidParameterError

# --------------------------------------------------------------------------- parameters


def is_sparse(value: object) -> bool:
    """A SciPy sparse matrix or array, told by its module (SciPy is never imported here)."""
    return type(value).__module__.startswith("scipy.sparse")


def _is_array_like(value: object) -> bool:
    """sklearn's ``"array-like"`` constraint: dense array-likes, not sparse ones."""
    arraylike = hasattr(value, "__len__") or hasattr(value, "shape") or hasattr(value, "__array__")
    return arraylike and not np.isscalar(value) and not is_sparse(value)


def check_array_like(
    value: object, name: str, caller: str, *, allow_none: bool = False, sparse: bool = False
) -> None:
    """The ``"array-like"`` constraint (optionally with sparse input and ``None``)."""
    if value is None and allow_none:
        return
    if _is_array_like(value) or (sparse and is_sparse(value)):
        return
    rules = ["an array-like"]
    if sparse:
        rules.append("a sparse array or matrix")
    if allow_none:
        rules.append("None")
    rule = rules[0] if len(rules) == 1 else f"{', '.join(rules[:-1])} or {rules[-1]}"
    msg = f"The {name!r} parameter of {caller} must be {rule}. Got {value!r} instead."
    raise InvalidParameterError(msg)


# The set as scikit-learn 1.9.1 prints it under PYTHONHASHSEED=0.  Its own
# order follows string hashing (a set literal), so it varies between
# interpreters; this text is fixed.
_AVERAGE_OPTIONS = ("weighted", "macro", "micro", "samples")


def check_average(average: object, caller: str) -> str | None:
    """AP's ``average``: one of the four names, or None."""
    if average is None or (isinstance(average, str) and average in _AVERAGE_OPTIONS):
        return average
    options = ", ".join(repr(a) for a in _AVERAGE_OPTIONS)
    msg = (
        f"The 'average' parameter of {caller} must be a str among {{{options}}} or None. "
        f"Got {average!r} instead."
    )
    raise InvalidParameterError(msg)


def check_pos_label(pos_label: object, caller: str) -> None:
    """AP's ``pos_label``: a real number, a str or a bool."""
    if isinstance(pos_label, (numbers.Real, str, bool, np.bool_)):
        return
    msg = (
        f"The 'pos_label' parameter of {caller} must be an instance of 'float', an instance "
        f"of 'str' or an instance of 'bool' or an instance of 'numpy.bool'. "
        f"Got {pos_label!r} instead."
    )
    raise InvalidParameterError(msg)


# --------------------------------------------------------------------------- arrays


def assert_all_finite(array: np.ndarray, *, input_name: str = "") -> None:
    """sklearn's ``_assert_all_finite`` (NaN reported before infinity)."""
    if array.dtype == np.dtype("object"):
        if np.any(array != array):  # noqa: PLR0124 (NaN is the value unequal to itself)
            msg = "Input contains NaN"
            raise ValueError(msg)
        return
    if array.dtype.kind not in "fc":
        return
    with np.errstate(over="ignore"):
        if np.isfinite(np.sum(array)):
            return
    padded = input_name + " " if input_name else ""
    if np.isnan(array).any():
        msg = f"Input {padded}contains NaN."
    elif np.isinf(array).any():
        msg = f"Input {padded}contains infinity or a value too large for {array.dtype!r}."
    else:  # the sum overflowed but every value is finite
        return
    raise ValueError(msg)


def num_samples(x: Any) -> int:
    """sklearn's ``_num_samples``: the first dimension of an array-like."""
    shape = getattr(x, "shape", None)
    if shape is not None:
        if len(shape) == 0:
            msg = (
                "Input should have at least 1 dimension i.e. satisfy "
                f"`len(x.shape) > 0`, got scalar `{x!r}` instead."
            )
            raise TypeError(msg)
        if isinstance(shape[0], numbers.Integral):
            return int(shape[0])
    if not hasattr(x, "__len__"):
        x = np.asarray(x)
    return len(x)


def check_consistent_length(*arrays: Any) -> None:
    """Every non-None argument has the same number of samples (first dimension)."""
    lengths = [num_samples(x) for x in arrays if x is not None]
    if len(set(lengths)) > 1:
        msg = f"Found input variables with inconsistent numbers of samples: {lengths!r}"
        raise ValueError(msg)


def check_array(
    array: Any,
    *,
    ensure_2d: bool = True,
    numeric: bool = True,
    ensure_all_finite: bool = True,
    allow_nd: bool = False,
    ensure_min_samples: int = 1,
    ensure_min_features: int = 1,
    input_name: str = "",
    accept_sparse: bool = False,
) -> np.ndarray:
    """sklearn's ``check_array`` (``dtype="numeric"`` or ``None``), dense out.

    With ``accept_sparse`` a SciPy sparse matrix or array is made dense
    (``.toarray()``); without it, refused in scikit-learn's sentence.
    """
    if is_sparse(array):
        if not accept_sparse:
            name = input_name or "X"
            msg = (
                f"Sparse data was passed for {name}, but dense data is required. Use "
                "'.toarray()' to convert to a dense numpy array."
            )
            raise TypeError(msg)
        array = array.toarray()
    if isinstance(array, np.matrix):
        msg = (
            "np.matrix is not supported. Please convert to a numpy array with "
            "np.asarray. For more information see: "
            "https://numpy.org/doc/stable/reference/generated/numpy.matrix.html"
        )
        raise TypeError(msg)
    dtype_orig = getattr(array, "dtype", None)
    dtype = None
    if numeric and getattr(dtype_orig, "kind", None) == "O":
        dtype = np.float64
    arr = np.asarray(array, dtype=dtype)
    if numeric and arr.dtype.kind == "O":
        # a list that NumPy can only hold as objects (None among numbers):
        # scikit-learn keeps the objects and fails later, somewhere in its
        # maths; convert now, as it does for an object array
        arr = arr.astype(np.float64)
    if ensure_2d:
        if arr.ndim == 0:
            msg = (
                f"Expected 2D array, got scalar array instead:\narray={arr}.\n"
                "Reshape your data either using array.reshape(-1, 1) if "
                "your data has a single feature or array.reshape(1, -1) "
                "if it contains a single sample."
            )
            raise ValueError(msg)
        if arr.ndim == 1:
            msg = (
                f"Expected 2D array, got 1D array instead:\narray={arr}.\n"
                "Reshape your data either using array.reshape(-1, 1) if "
                "your data has a single feature or array.reshape(1, -1) "
                "if it contains a single sample."
            )
            raise ValueError(msg)
    if numeric and arr.dtype.kind in "USV":
        msg = (
            "dtype='numeric' is not compatible with arrays of bytes/strings."
            "Convert your data to numeric values explicitly instead."
        )
        raise ValueError(msg)
    if not allow_nd and arr.ndim >= 3:
        msg = f"Found array with dim {arr.ndim}, while dim <= 2 is required."
        raise ValueError(msg)
    if ensure_all_finite:
        assert_all_finite(arr, input_name=input_name)
    if ensure_min_samples > 0:
        n_samples = num_samples(arr)
        if n_samples < ensure_min_samples:
            msg = (
                f"Found array with {n_samples} sample(s) (shape={arr.shape}) while a"
                f" minimum of {ensure_min_samples} is required."
            )
            raise ValueError(msg)
    if ensure_min_features > 0 and arr.ndim == 2 and arr.shape[1] < ensure_min_features:
        msg = (
            f"Found array with {arr.shape[1]} feature(s) (shape={arr.shape}) while"
            f" a minimum of {ensure_min_features} is required."
        )
        raise ValueError(msg)
    return arr


def column_or_1d(y: Any, *, dtype: Any = None, input_name: str = "") -> np.ndarray:
    """sklearn's ``column_or_1d``: a 1-D array, or an ``(n, 1)`` column made 1-D."""
    arr = check_array(
        y,
        ensure_2d=False,
        numeric=False,
        ensure_all_finite=False,
        ensure_min_samples=0,
        input_name=input_name,
    )
    if dtype is not None:
        arr = arr.astype(dtype)
    if arr.ndim == 1:
        return arr
    if arr.ndim == 2 and arr.shape[1] == 1:
        return arr.reshape(-1)
    msg = f"y should be a 1d array, got an array of shape {arr.shape} instead."
    raise ValueError(msg)


def check_sample_weight(sample_weight: np.ndarray, n_samples: int) -> np.ndarray:
    """sklearn's ``_check_sample_weight`` as ``precision_recall_curve`` calls it.

    Returns float64 weights (float32 weights give the same products in the
    float64 cumulative sums scikit-learn takes).
    """
    keep = sample_weight.dtype in (np.dtype(np.float64), np.dtype(np.float32))
    w = check_array(
        sample_weight if keep else sample_weight.astype(np.float64),
        ensure_2d=False,
        input_name="sample_weight",
    )
    if w.ndim != 1:
        msg = (
            f"Sample weights must be 1D array or scalar, got {w.ndim}D array. Expected "
            f"either a scalar value or a 1D array of length {n_samples}."
        )
        raise ValueError(msg)
    if w.shape != (n_samples,):
        msg = f"sample_weight.shape == {w.shape}, expected {(n_samples,)}!"
        raise ValueError(msg)
    if np.all(w == 0):
        msg = "Sample weights must contain at least one non-zero number."
        raise ValueError(msg)
    return w.astype(np.float64)


# --------------------------------------------------------------------------- targets


def _unique(y: np.ndarray) -> np.ndarray:
    """``xp.unique_values``: sorted distinct values, every NaN kept apart."""
    if y.dtype.kind == "f":
        return np.unique(y, equal_nan=False)
    return np.unique(y)


def _is_integral_float(labels: np.ndarray) -> bool:
    return labels.dtype.kind == "f" and bool(
        np.all(labels.astype(np.int64).astype(labels.dtype) == labels)
    )


def _as_target_array(y: Any) -> np.ndarray:
    if isinstance(y, np.ndarray):
        return y
    with warnings.catch_warnings():
        warnings.simplefilter("error", getattr(np, "exceptions", np).VisibleDeprecationWarning)
        try:
            return np.asarray(y)
        except (ValueError, getattr(np, "exceptions", np).VisibleDeprecationWarning):
            # ragged sequences: an object array, as sklearn falls back to
            return np.asarray(y, dtype=object)


def is_multilabel(y: np.ndarray) -> bool:
    """A 2-D array of more than one column holding at most two integral values."""
    if not (y.ndim == 2 and y.shape[1] > 1):
        return False
    labels = _unique(y)
    return labels.shape[0] < 3 and (y.dtype.kind in "biu" or _is_integral_float(labels))


def type_of_target(y: Any, *, input_name: str = "") -> str:
    """sklearn's ``type_of_target`` for dense input.

    One of ``binary``, ``multiclass``, ``continuous``, ``multilabel-indicator``,
    ``multiclass-multioutput``, ``continuous-multioutput`` or ``unknown``.
    Non-integral floats that are NaN or infinite raise (``Input y_true
    contains NaN.``), after NumPy's cast warning, as in scikit-learn.
    """
    y = _as_target_array(y)
    if is_multilabel(y):
        return "multilabel-indicator"
    first: Any = None
    try:
        first = y[0]
    except IndexError:
        pass
    else:
        if isinstance(first, bytes):
            msg = (
                "Support for labels represented as bytes is not supported. Convert "
                "the labels to a string or integer format."
            )
            raise TypeError(msg)
        if (
            not hasattr(first, "__array__")
            and isinstance(first, Sequence)
            and not isinstance(first, str)
        ):
            msg = (
                "You appear to be using a legacy multi-label data"
                " representation. Sequence of sequences are no"
                " longer supported; use a binary array or sparse"
                " matrix instead - the MultiLabelBinarizer"
                " transformer can convert to this format."
            )
            raise ValueError(msg)
    if y.ndim not in (1, 2):
        return "unknown"
    if not min(y.shape):
        return "binary" if y.ndim == 1 else "unknown"
    if y.dtype == object and not isinstance(y.flat[0], str):
        return "unknown"
    suffix = "-multioutput" if y.ndim == 2 and y.shape[1] > 1 else ""
    if y.dtype.kind == "f":
        integral = y.astype(np.int64)
        if np.any(y != integral.astype(y.dtype)):
            assert_all_finite(y, input_name=input_name)
            return "continuous" + suffix
    if _unique(y).shape[0] > 2 or (y.ndim == 2 and len(first) > 1):
        return "multiclass" + suffix
    return "binary"


# --------------------------------------------------------------------------- averaging


def average(values: np.ndarray, weights: Any = None) -> Any:
    """``np.average(values, weights=weights)``, as scikit-learn calls it.

    Weights summing to zero raise ``ZeroDivisionError: Weights sum to zero,
    can't be normalized``; NaN weights give NaN; a 2-D weight raises
    ``TypeError`` (the shapes differ).
    """
    return np.average(values, weights=weights)


_F = TypeVar("_F", bound=Callable[..., Any])


def _binds_like_sklearn(func: _F) -> _F:
    """Bind the arguments first, as ``validate_params`` does.

    A wrong keyword then raises ``TypeError: got an unexpected keyword argument
    'x'``, scikit-learn's text (Python's own names the function first).
    """
    signature = inspect.signature(func)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        signature.bind(*args, **kwargs)
        return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
