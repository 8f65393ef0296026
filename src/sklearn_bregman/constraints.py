"""Side information as constraints: pair sets, their generation and bounds.

A pair constraint asks the learned squared distance of two training points to
stay below a bound (similar pair, sign +1) or above one (dissimilar pair,
sign -1)::

    sign = +1:  d(i, j) <= bound        sign = -1:  d(i, j) >= bound

:class:`PairConstraints` holds a set of them as flat arrays so that the
compiled projection sweeps can walk them without Python objects per pair.
"""

import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d

from ._sklearn_compat import Interval, StrOptions, validate_params

__all__ = [
    "LinearConstraints",
    "PairConstraints",
    "RelativeConstraints",
    "SimilarityConstraints",
    "TripletConstraints",
    "check_pairs",
    "check_triplet_constraints",
    "check_triplets",
    "equal_triplets_from_labels",
    "pair_sqdist",
    "pairs_from_labels",
    "percentile_bounds",
    "relative_from_labels",
    "set_pair_bounds",
    "triplets_from_labels",
]

#: Number of random pairs used to estimate the 'percentile' bounds.
_PERCENTILE_PAIRS = 10_000
#: Rows per block when squared distances are computed for many pairs.
_CHUNK = 8192


# --------------------------------------------------------------------------
# Validation of the containers' fields (one place for pairs and triplets)
# --------------------------------------------------------------------------

_INTP_MAX = np.iinfo(np.intp).max


def _where(owner, field):
    """``'owner: field'`` (or ``'field'``): who is blamed in a message."""
    return f"{owner}: {field}" if owner else field


def _read_array(values, field, owner):
    """``np.asarray(values)``, with NumPy's failures turned into our messages."""
    if isinstance(values, (dict, set, frozenset, str, bytes)):
        raise TypeError(
            f"{_where(owner, field)} must be an array-like of numbers; got a "
            f"{type(values).__name__}."
        )
    try:
        arr = np.asarray(values)
    except (ValueError, TypeError):
        raise ValueError(
            f"{_where(owner, field)} could not be read as an array: "
            f"{_ragged(values)}."
        ) from None
    if arr.dtype.kind == "O" and arr.ndim == 0:
        raise TypeError(
            f"{_where(owner, field)} must be an array-like of numbers; got a "
            f"{type(arr.item()).__name__}."
        )
    return arr


def _ragged(values):
    """Where a nested sequence that NumPy cannot read is ragged."""
    def size(row):
        try:
            return len(row) if not isinstance(row, (str, bytes)) else None
        except TypeError:
            return None

    def describe(n):
        return ("a single value" if n is None else
                f"{n} entr{'y' if n == 1 else 'ies'}")

    try:
        rows = list(values)
    except TypeError:
        return "not a sequence of numbers"
    sizes = [size(r) for r in rows]
    for k, n in enumerate(sizes):
        if n != sizes[0]:
            return f"row {k} has {describe(n)} but row 0 has {describe(sizes[0])}"
    return "its rows have unequal lengths or do not hold numbers"


def _first_bad_object(flat):
    """Index of the first entry of an object array that is not a real number
    (bools excluded), or None."""
    for k, v in enumerate(flat):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
            return k
    return None


def _plain(v):
    """A NumPy scalar as the Python number it holds (for messages)."""
    return v.item() if isinstance(v, np.generic) else v


def _as_indices(arr, field, owner, rows):
    """Integer-valued ``arr`` as intp, or a ValueError/TypeError naming
    ``field`` and the first bad row.

    Integers and integral floats are indices; booleans (a mask?), strings,
    complex numbers, NaN, infinities, non-integral floats, negative values
    and values beyond the platform's index range are rejected.  ``rows(k)``
    maps a flat position to the reported row.
    """
    where = _where(owner, field)
    kind = arr.dtype.kind
    if kind == "b":
        raise TypeError(
            f"{where} must hold integer sample indices; got booleans (for a mask, "
            "pass np.flatnonzero(mask))."
        )
    if kind == "O":
        flat = arr.reshape(-1)
        k = _first_bad_object(flat)
        if k is not None:
            raise TypeError(
                f"{where} must hold integer sample indices; row {rows(k)} has "
                f"{flat[k]!r}."
            )
        # Python numbers, compared exactly (an int may exceed any fixed dtype)
        for k, v in enumerate(flat):
            if isinstance(v, numbers.Integral):
                ok = 0 <= v <= _INTP_MAX
            else:
                f = float(v)
                ok = np.isfinite(f) and f == np.floor(f) and 0 <= f < _INTP_MAX
            if not ok:
                return _index_error(where, flat, k, rows)
        return np.array([int(v) for v in flat], dtype=np.intp).reshape(arr.shape)
    if kind not in "iuf":
        raise TypeError(
            f"{where} must hold integer sample indices; got an array of dtype "
            f"{arr.dtype}."
        )
    flat = arr.reshape(-1)
    if kind == "f":
        with np.errstate(invalid="ignore"):
            ok = np.isfinite(flat) & (flat == np.floor(flat)) & (flat >= 0) & \
                (flat < float(_INTP_MAX))
    elif kind == "u":
        ok = flat <= _INTP_MAX
    else:
        ok = flat >= 0
    if not ok.all():
        return _index_error(where, flat, np.flatnonzero(~ok)[0], rows)
    return arr.astype(np.intp, copy=False)


def _index_error(where, flat, k, rows):
    v = _plain(flat[k])
    if isinstance(v, float) and not (np.isfinite(v) and v == int(v)):
        raise ValueError(
            f"{where} must be integers (sample indices); row {rows(k)} has {v!r}."
        )
    if v < 0:
        raise ValueError(
            f"{where}: index out of range in row {rows(k)}: {v!r} is negative; sample "
            "indices are >= 0."
        )
    raise ValueError(
        f"{where}: index out of range in row {rows(k)}: {v!r} is too large to be a "
        "sample index."
    )


def _as_field(values, field, owner):
    """A 1-D field (a scalar counts as one constraint); 2-D input is an error."""
    arr = _read_array(values, field, owner)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise ValueError(
            f"{_where(owner, field)} must be 1-D, one entry per constraint; got an "
            f"array of shape {arr.shape}."
        )
    return arr


def _validate_pairs(i, j, sign, bound, owner):
    """The fields of a pair set, validated: ``(i, j, sign, bound)`` as
    contiguous intp, intp, int8 and float64 arrays of one length.

    The one place where pair constraints are checked (the constructor of
    :class:`PairConstraints` and :func:`check_pairs` call it); ``owner``
    prefixes every message.  The range of the indices against a number of
    samples is :func:`check_pairs`' job.
    """
    def same_row(k):  # a field's flat position is its row
        return k

    i_arr = _as_field(i, "i", owner)
    j_arr = _as_field(j, "j", owner)
    s_arr = _as_field(sign, "sign", owner)
    b_arr = None if bound is None else _as_field(bound, "bound", owner)
    lengths = [i_arr.shape[0], j_arr.shape[0], s_arr.shape[0],
               i_arr.shape[0] if b_arr is None else b_arr.shape[0]]
    if len(set(lengths)) != 1:
        got = (f"{lengths[0]}, {lengths[1]} and {lengths[2]}" if b_arr is None else
               f"{lengths[0]}, {lengths[1]}, {lengths[2]} and {lengths[3]}")
        raise ValueError(
            f"{_where(owner, 'i, j and sign' if b_arr is None else 'i, j, sign and bound')} "
            f"must have the same length (one entry per constraint); got {got}."
        )
    i_arr = np.ascontiguousarray(_as_indices(i_arr, "i", owner, same_row))
    j_arr = np.ascontiguousarray(_as_indices(j_arr, "j", owner, same_row))
    bad = np.flatnonzero(i_arr == j_arr)
    if bad.size:
        raise ValueError(
            f"{owner + ': ' if owner else ''}row {bad[0]} joins point {i_arr[bad[0]]} "
            "to itself (i == j)."
        )
    s_arr = _as_sign(s_arr, owner)
    n = i_arr.shape[0]
    b_arr = np.full(n, np.nan) if b_arr is None else _as_bound(b_arr, owner)
    return i_arr, j_arr, s_arr, b_arr


def _as_sign(arr, owner):
    where = _where(owner, "sign")
    msg = f"{where} must be +1 (similar) or -1 (dissimilar)"
    kind = arr.dtype.kind
    if kind == "b":
        raise TypeError(f"{msg}; got booleans.")
    if kind == "O":
        k = _first_bad_object(arr)
        if k is not None:
            raise TypeError(f"{msg}; row {k} has {arr[k]!r}.")
        ok = np.array([v == 1 or v == -1 for v in arr], dtype=bool)
    elif kind in "iuf":
        ok = (arr == 1) | (arr == -1)
    else:
        raise TypeError(f"{msg}; got an array of dtype {arr.dtype}.")
    if not ok.all():
        k = np.flatnonzero(~ok)[0]
        raise ValueError(f"{msg}; row {k} has {_plain(arr[k])!r}.")
    return np.ascontiguousarray(arr.astype(np.int8) if kind != "O" else
                                np.array([int(v) for v in arr], dtype=np.int8))


def _as_bound(arr, owner):
    where = _where(owner, "bound")
    kind = arr.dtype.kind
    if kind == "b":
        raise TypeError(f"{where} must hold squared distances (numbers); got booleans.")
    if kind == "O":
        k = _first_bad_object(arr)
        if k is not None:
            raise TypeError(
                f"{where} must hold squared distances (numbers, NaN for unset); row "
                f"{k} has {arr[k]!r}."
            )
    elif kind not in "iuf":
        raise TypeError(
            f"{where} must hold squared distances (numbers); got an array of dtype "
            f"{arr.dtype}."
        )
    b = np.ascontiguousarray(arr, dtype=np.float64)
    _check_bound_values(b, allow_nan=True, owner=owner)
    return b


class PairConstraints:
    """A set of pair constraints held as flat arrays.

    The constructor validates its input and raises a ValueError or TypeError
    that names the field (``i``, ``j``, ``sign`` or ``bound``) and the first
    bad row; nothing is coerced silently:

    - ``i`` and ``j`` hold non-negative integer indices: integers, or floats
      with integral values; booleans (a mask is not a list of indices),
      strings, NaN and non-integral values are rejected, and so is a row with
      ``i == j``;
    - ``sign`` is exactly +1 or -1;
    - ``bound`` holds non-negative finite numbers, or NaN for "unset";
    - every field is 1-D (a scalar counts as one constraint) and all have
      the same length.

    Whether the indices lie below the number of training points is checked
    by :func:`check_pairs` (every estimator calls it), as the container does
    not know the data.

    Parameters
    ----------
    i, j : array-like of shape (n_constraints,)
        Row indices (into the training data) of the two points of each pair.
    sign : array-like of shape (n_constraints,)
        +1 for a similar pair (``d(i, j) <= bound``), -1 for a dissimilar
        pair (``d(i, j) >= bound``).
    bound : array-like of shape (n_constraints,), default=None
        Bound on the squared distance.  ``None`` (or NaN entries) means "not
        set yet": the estimator fills it with its ``bounds`` rule.

    Attributes
    ----------
    i, j : ndarray of dtype intp
    sign : ndarray of dtype int8
    bound : ndarray of dtype float64 (NaN where unset)

    Raises
    ------
    ValueError
        If a value is invalid (a non-integral or negative index, ``i == j``,
        a sign other than +1/-1, a negative or infinite bound) or the fields
        have different lengths or more than one dimension.
    TypeError
        If a field does not hold numbers (strings, booleans, a dict, ...).

    Examples
    --------
    >>> from sklearn_bregman.constraints import PairConstraints
    >>> c = PairConstraints([0, 1], [2, 3], [1, -1], [0.5, 4.0])
    >>> len(c), c.n_similar, c.n_dissimilar
    (2, 1, 1)
    >>> PairConstraints([0, 1], [2, 3], [257, -1])
    Traceback (most recent call last):
    ...
    ValueError: PairConstraints: sign must be +1 (similar) or -1 (dissimilar); row 0 has 257.
    """

    def __init__(self, i, j, sign, bound=None):
        self.i, self.j, self.sign, self.bound = _validate_pairs(
            i, j, sign, bound, owner="PairConstraints")

    @classmethod
    def _from_valid(cls, i, j, sign, bound):
        """Internal fast path: wrap arrays that are valid by construction
        (intp, intp, int8, float64 of one length, as produced by the
        generators, :meth:`copy` and indexing) without checking them again."""
        self = cls.__new__(cls)
        self.i, self.j = np.ascontiguousarray(i), np.ascontiguousarray(j)
        self.sign, self.bound = np.ascontiguousarray(sign), np.ascontiguousarray(bound)
        return self

    def __len__(self):
        return self.i.shape[0]

    @property
    def n_similar(self):
        """Number of similar pairs (sign +1)."""
        return int(np.count_nonzero(self.sign > 0))

    @property
    def n_dissimilar(self):
        """Number of dissimilar pairs (sign -1)."""
        return int(np.count_nonzero(self.sign < 0))

    def to_array(self):
        """Return the constraints as an array of shape (n_constraints, 4).

        Columns are ``i, j, sign, bound``; :func:`check_pairs` reads it back.

        Returns
        -------
        ndarray of shape (n_constraints, 4)
            The constraints, as floats.
        """
        return np.column_stack([self.i, self.j, self.sign, self.bound]).astype(float)

    def copy(self):
        """Return a deep copy (the arrays are copied, not shared).

        Returns
        -------
        PairConstraints
            The copy.
        """
        return PairConstraints._from_valid(self.i.copy(), self.j.copy(),
                                           self.sign.copy(), self.bound.copy())

    def __getitem__(self, key):
        parts = [np.atleast_1d(a[key]) for a in (self.i, self.j, self.sign, self.bound)]
        if parts[0].ndim != 1:
            raise IndexError(
                "PairConstraints can be indexed by an integer, a slice, an array of "
                "integers or a boolean mask (a 1-D selection of constraints); got "
                f"{key!r}."
            )
        return PairConstraints._from_valid(*parts)

    def __repr__(self):
        return (
            f"PairConstraints(n_constraints={len(self)}, n_similar={self.n_similar}, "
            f"n_dissimilar={self.n_dissimilar})"
        )


def check_pairs(constraints, n_samples):
    """Validate user-given pair constraints.

    Parameters
    ----------
    constraints : PairConstraints, array-like or tuple
        An array-like of shape (n_constraints, 3 or 4), or a tuple
        ``(i, j, sign)`` / ``(i, j, sign, bound)``.
        Rows of an array are ``i, j, sign[, bound]``; sign is +1 (similar) or
        -1 (dissimilar); a NaN bound is filled later by the ``bounds`` rule.
    n_samples : int
        Number of training points the indices refer to.

    Returns
    -------
    PairConstraints
        A validated copy.

    Raises
    ------
    ValueError
        If an index is not an integer or is out of range, a pair joins a
        point to itself, a sign is not +1/-1, a bound is negative or
        infinite, or the fields have different lengths.  The checks are
        those of :class:`PairConstraints` (a container is checked again, in
        case its arrays were changed after construction); the message names
        the parameter ``constraints``, the field and the first offending row.
    TypeError
        If the constraints do not hold numbers.
    """
    owner = "constraints"
    if isinstance(constraints, PairConstraints):
        fields = (constraints.i, constraints.j, constraints.sign, constraints.bound)
    elif isinstance(constraints, tuple) and len(constraints) in (3, 4):
        fields = constraints
    else:
        arr = _read_array(constraints, "constraints", None)
        if arr.ndim != 2 or arr.shape[1] not in (3, 4):
            raise ValueError(
                "constraints must be a PairConstraints, a tuple (i, j, sign[, bound]) "
                "or an array of shape (n_constraints, 3 or 4) with columns "
                f"i, j, sign[, bound]; got an array of shape {arr.shape}."
            )
        fields = tuple(arr[:, c] for c in range(arr.shape[1]))
    i, j, sign, bound = _validate_pairs(*fields, *([None] * (4 - len(fields))),
                                        owner=owner)
    pc = PairConstraints._from_valid(i, j, sign, bound).copy()

    if len(pc) == 0:
        raise ValueError("constraints is empty: at least one pair constraint is needed.")
    bad = np.flatnonzero((pc.i >= n_samples) | (pc.j >= n_samples))
    if bad.size:
        k = bad[0]
        raise ValueError(
            f"constraints: index out of range in row {k} (i={pc.i[k]}, j={pc.j[k]}); "
            f"indices must lie in [0, {n_samples - 1}] for {n_samples} samples."
        )
    return pc


def _check_bound_values(bound, allow_nan, owner="constraints"):
    """Bounds are finite and non-negative (NaN means unset if ``allow_nan``)."""
    if not allow_nan and np.any(np.isnan(bound)):
        k = np.flatnonzero(np.isnan(bound))[0]
        raise ValueError(f"{owner}: every bound must be set; bound in row {k} is NaN.")
    bad = np.flatnonzero(np.isinf(bound))
    if bad.size:
        raise ValueError(
            f"{owner}: bounds must be finite (NaN for unset); bound in row {bad[0]} is "
            f"{bound[bad[0]]}."
        )
    with np.errstate(invalid="ignore"):
        bad = np.flatnonzero(bound < 0)
    if bad.size:
        k = bad[0]
        raise ValueError(
            f"{owner}: bounds are squared distances and must be non-negative; bound in "
            f"row {k} is {bound[k]}."
        )


def pair_sqdist(G, i, j, M=None):
    """Squared distances ``(g_i - g_j)' M (g_i - g_j)`` of many pairs.

    Computed in blocks, so memory stays O(block * r) whatever the number of
    pairs.

    Parameters
    ----------
    G : ndarray of shape (n, r)
        Coordinates of the n points (e.g. a low-rank factor's rows).
    i, j : ndarray of shape (c,)
        Row indices of the two points of each pair.
    M : ndarray of shape (r, r), default=None
        Symmetric matrix; ``None`` means the identity.

    Returns
    -------
    ndarray of shape (c,)
        The squared distance of each pair.
    """
    out = np.empty(len(i))
    for start in range(0, len(i), _CHUNK):
        sl = slice(start, start + _CHUNK)
        V = G[i[sl]] - G[j[sl]]
        if M is None:
            out[sl] = np.einsum("ij,ij->i", V, V)
        else:
            out[sl] = np.einsum("ij,ij->i", V @ M, V)
    return out


def _encode(lo, hi, n):
    return lo.astype(np.int64) * n + hi


def _sample_pairs(rng, n_wanted, n_available, draw, enumerate_all, n):
    """Draw ``n_wanted`` distinct unordered pairs.

    ``draw(size)`` returns candidate ``(i, j)`` arrays (rejected candidates
    already removed); ``enumerate_all()`` lists every admissible pair and is
    used when more than half of them are wanted.
    """
    if n_wanted <= 0:
        return np.empty(0, np.intp), np.empty(0, np.intp)
    if 2 * n_wanted >= n_available:
        i, j = enumerate_all()
        keep = rng.choice(len(i), n_wanted, replace=False)
        return i[keep], j[keep]
    keys = np.empty(0, np.int64)
    while keys.size < n_wanted:
        i, j = draw(2 * (n_wanted - keys.size) + 64)
        lo, hi = np.minimum(i, j), np.maximum(i, j)
        keys = np.union1d(keys, _encode(lo, hi, n))
    keys = keys[rng.choice(keys.size, n_wanted, replace=False)]
    return (keys // n).astype(np.intp), (keys % n).astype(np.intp)


def _check_labels(y, n_samples):
    """Class labels ``y`` as a 1-D array of ``n_samples`` entries, or an error."""
    y = column_or_1d(y, warn=True)
    if y.shape[0] != n_samples:
        raise ValueError(f"y has {len(y)} entries but X has {n_samples} samples.")
    return y


def _labeled(y, unlabeled, stacklevel):
    """Validated labels: ``(y, idx, classes, y_enc)`` with ``idx`` the labeled
    samples, ``classes`` their distinct labels and ``y_enc`` their codes."""
    y = column_or_1d(y, warn=True)
    check_classification_targets(y)
    n = y.shape[0]
    if unlabeled is None:
        labeled = np.ones(n, dtype=bool)
    else:
        labeled = y != unlabeled
        present = set(np.unique(y).tolist())
        if present == {-1, 1} and unlabeled == -1:
            warnings.warn(
                "y holds only the labels -1 and 1, and -1 marks unlabeled samples "
                "(unlabeled=-1): the samples labelled -1 get no constraint. If -1 is "
                "a class, pass unlabeled=None.",
                UserWarning,
                stacklevel=stacklevel,
            )
    idx = np.flatnonzero(labeled)
    classes, y_enc = np.unique(y[idx], return_inverse=True)
    return y, idx, classes, y_enc


@validate_params(
    {
        "y": ["array-like"],
        "n_constraints": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "unlabeled": [numbers.Integral, str, None],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def pairs_from_labels(y, n_constraints=None, *, unlabeled=-1, random_state=None):
    """Random similar / dissimilar pairs from class labels.

    Similar pairs join two points of one class, dissimilar pairs two points of
    different classes; each kind gets half of ``n_constraints`` (the other
    kind takes over what one kind cannot supply), pairs are distinct, and the
    result is shuffled.  Bounds are left unset (NaN).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels.  Samples labelled ``unlabeled`` take part in no pair.
    n_constraints : int, default=None
        Number of pairs.  ``None`` gives ITML's default 40 c^2 for c classes.
        Capped by the number of distinct admissible pairs.
    unlabeled : int, str or None, default=-1
        Label that marks an unlabeled sample (scikit-learn's semi-supervised
        convention).  ``None``: every label is a class.
    random_state : int, RandomState instance or None, default=None
        Seeds the draw.

    Returns
    -------
    PairConstraints
        The pairs, with bounds unset (NaN).

    Warns
    -----
    UserWarning
        When the labels are exactly {-1, +1} and ``unlabeled=-1``: half of a
        binary problem would be read as unlabeled.
    """
    return _pairs_from_labels(y, n_constraints, unlabeled=unlabeled,
                              random_state=random_state, stacklevel=5)


def _pairs_from_labels(y, n_constraints=None, *, unlabeled=-1, random_state=None,
                       stacklevel=3):
    """:func:`pairs_from_labels` without its parameter validation, for callers whose
    parameters are valid (the estimators validate theirs in ``fit``).

    ``stacklevel`` places the {-1, +1} warning: 3 is this function's caller.
    """
    rng = check_random_state(random_state)
    return _draw_label_pairs(_LabelIndex(y, unlabeled, stacklevel), n_constraints, rng)


class _LabelIndex:
    """Where the labeled samples of each class are, for drawing pairs from labels.

    The in-memory case; :class:`sklearn_bregman._dask.DaskLabelIndex` answers
    the same questions about labels in a dask array without collecting them.

    Attributes
    ----------
    n : int
        Number of samples.
    classes : ndarray
        The distinct labels of the labeled samples, sorted.
    counts : ndarray of shape (n_classes,), int64
        Labeled samples per class.
    """

    def __init__(self, y, unlabeled, stacklevel):
        y, idx, classes, y_enc = _labeled(y, unlabeled, stacklevel + 1)
        self.n = y.shape[0]
        self.classes = classes
        self.counts = np.bincount(y_enc, minlength=classes.shape[0]).astype(np.int64)
        self._idx, self._y_enc = idx, y_enc
        # labeled samples grouped by class: class k owns by_class[start[k]:start[k+1]]
        self._by_class = idx[np.argsort(y_enc, kind="stable")]
        self._start = np.concatenate([[0], np.cumsum(self.counts)])
        self._y_full = np.full(self.n, -1, dtype=np.intp)
        self._y_full[idx] = y_enc

    def of_class(self, k, a):
        """The ``a``-th labeled sample (in index order) of class code ``k``."""
        return self._by_class[self._start[k] + a]

    def labeled(self, pos):
        """The ``pos``-th labeled sample, in index order."""
        return self._idx[pos]

    def codes(self, i):
        """Class codes of samples ``i`` (-1: unlabeled)."""
        return self._y_full[i]

    def all_labeled(self):
        """Every labeled sample and its class code."""
        return self._idx, self._y_enc


def _pairs_of_fit(estimator, y, constraints, n_samples, rng, label_index):
    """The pairs of a learner's ``fit`` and their source (for messages).

    ``constraints`` wins when given (``y`` is then free for later steps of a
    pipeline); otherwise pairs are drawn from the labels ``y`` by
    :func:`_draw_label_pairs` on ``label_index(y)`` (a :class:`_LabelIndex`,
    or its dask counterpart).  ``estimator`` gives its name and its
    ``n_constraints``, ``bounds`` and ``epsilon``.
    """
    if constraints is not None:
        return check_pairs(constraints, n_samples), "constraints"
    if y is None:
        raise ValueError(
            f"{type(estimator).__name__} requires y to be passed, but the target y is "
            "None. Pass class labels y, or pair constraints with constraints=..."
        )
    pairs = _draw_label_pairs(label_index(y), estimator.n_constraints, rng)
    # errors about them name what the user passed: labels, not constraints
    return pairs, (f"the {len(pairs)} pairs drawn from y (bounds={estimator.bounds!r}, "
                   f"epsilon={estimator.epsilon})")


def _draw_label_pairs(labels, n_constraints, rng):
    """Pairs drawn from the labels of a :class:`_LabelIndex` (or of its dask
    counterpart): same-class pairs and different-class pairs, half each."""
    n = labels.n
    classes, counts = labels.classes, labels.counts
    n_classes = classes.shape[0]
    if n_classes < 2:
        what = "no labeled sample" if n_classes == 0 else f"one class ({classes[0]!r})"
        raise ValueError(
            f"y has {what} among the labeled samples; pair constraints from labels "
            "need at least two classes."
        )
    if n_constraints is None:
        n_constraints = 40 * n_classes**2

    n_lab = int(counts.sum())
    same_per_class = counts * (counts - 1) // 2
    n_same_avail = int(same_per_class.sum())
    n_diff_avail = int((n_lab * n_lab - int((counts**2).sum())) // 2)

    n_same = min((n_constraints + 1) // 2, n_same_avail)
    n_diff = min(n_constraints - n_same, n_diff_avail)
    n_same = min(n_constraints - n_diff, n_same_avail)

    def draw_same(size):
        k = rng.choice(n_classes, size=size, p=same_per_class / same_per_class.sum())
        a = (rng.random_sample(size) * counts[k]).astype(np.int64)
        b = (rng.random_sample(size) * counts[k]).astype(np.int64)
        keep = a != b
        return labels.of_class(k[keep], a[keep]), labels.of_class(k[keep], b[keep])

    def all_same():
        parts_i, parts_j = [], []
        for k in range(n_classes):
            m = labels.of_class(np.full(counts[k], k), np.arange(counts[k]))
            a, b = np.triu_indices(m.shape[0], k=1)
            parts_i.append(m[a])
            parts_j.append(m[b])
        return np.concatenate(parts_i), np.concatenate(parts_j)

    def draw_diff(size):
        i = labels.labeled(rng.randint(0, n_lab, size))
        j = labels.labeled(rng.randint(0, n_lab, size))
        keep = labels.codes(i) != labels.codes(j)
        return i[keep], j[keep]

    def all_diff():
        idx, y_enc = labels.all_labeled()
        a, b = np.triu_indices(n_lab, k=1)
        keep = y_enc[a] != y_enc[b]
        return idx[a[keep]], idx[b[keep]]

    si, sj = _sample_pairs(rng, n_same, n_same_avail, draw_same, all_same, n)
    di, dj = _sample_pairs(rng, n_diff, n_diff_avail, draw_diff, all_diff, n)
    i = np.concatenate([si, di])
    j = np.concatenate([sj, dj])
    sign = np.concatenate([np.ones(si.size, np.int8), -np.ones(di.size, np.int8)])
    perm = rng.permutation(i.size)
    return PairConstraints._from_valid(i[perm], j[perm], sign[perm],
                                       np.full(i.size, np.nan))


def set_pair_bounds(constraints, G, M=None, *, bounds="percentile", epsilon=0.25,
                    random_state=None, source="constraints"):
    """Fill the unset (NaN) bounds of ``constraints``.

    Parameters
    ----------
    constraints : PairConstraints
        Validated constraints; bounds already set are kept.
    G : ndarray of shape (n, r)
        Rows of the training points under the prior (data, or initial factor).
    M : ndarray of shape (r, r), default=None
        Prior metric on ``G``'s rows (``None``: identity).
    bounds : {'percentile', 'relative'} or (upper, lower)
        - ``'percentile'``: similar pairs get the 5th, dissimilar pairs the 95th
          percentile of the squared distances of random pairs of points
          (ITML, Davis et al. 2007).
        - ``'relative'``: each pair's own initial squared distance ``d0``
          times ``1 - epsilon`` (similar) or ``1 + epsilon`` (dissimilar)
          (Kulis et al. 2009, Section 7.1).
        - two numbers ``(upper, lower)``: similar pairs ``d <= upper``,
          dissimilar pairs ``d >= lower``.
    epsilon : float, default=0.25
        Relative margin of ``'relative'``; in [0, 1).
    random_state : int, RandomState instance or None
        Draws the random pairs of ``'percentile'``.
    source : str, default='constraints'
        What the constraints are to the user (the parameter they passed, or
        e.g. "the pairs drawn from y"), for error messages; kept on the copy
        as its ``source`` attribute, for the engine's messages.

    Returns
    -------
    PairConstraints
        A copy with every bound set.
    """
    out = constraints.copy()
    unset = np.isnan(out.bound)
    if unset.any():
        sim = unset & (out.sign > 0)
        dis = unset & (out.sign < 0)
        if isinstance(bounds, str) and bounds == "percentile":
            upper, lower = percentile_bounds(G, M, random_state=random_state)
            out.bound[sim] = upper
            out.bound[dis] = lower
        elif isinstance(bounds, str) and bounds == "relative":
            if not (0.0 <= epsilon < 1.0):
                raise ValueError(f"epsilon must lie in [0, 1); got {epsilon!r}.")
            d0 = pair_sqdist(G, out.i[unset], out.j[unset], M)
            factor = np.where(out.sign[unset] > 0, 1.0 - epsilon, 1.0 + epsilon)
            out.bound[unset] = factor * d0
        elif isinstance(bounds, str):
            raise ValueError(
                "bounds must be 'percentile', 'relative' or two numbers (upper, lower); "
                f"got {bounds!r}."
            )
        else:
            try:
                upper, lower = (float(b) for b in bounds)
            except (TypeError, ValueError):
                raise ValueError(
                    "bounds must be 'percentile', 'relative' or two numbers "
                    f"(upper, lower); got {bounds!r}."
                ) from None
            if not (np.isfinite(upper) and np.isfinite(lower)) or upper <= 0 or lower < 0:
                raise ValueError(
                    "bounds=(upper, lower) needs a finite upper > 0 (similar pairs) and "
                    f"a finite lower >= 0 (dissimilar pairs); got {bounds!r}."
                )
            out.bound[sim] = upper
            out.bound[dis] = lower
    _check_bound_values(out.bound, allow_nan=False, owner=source)
    out.source = source
    return out


def percentile_bounds(G, M=None, *, low=5.0, high=95.0, random_state=None):
    """ITML's bounds: percentiles of squared distances of random pairs.

    Zero distances (duplicate points, and pairs within 1e-12 of the largest
    sampled distance) are left out, so the upper bound on similar pairs
    stays positive and resolvable.

    Parameters
    ----------
    G : ndarray of shape (n, r)
        Coordinates of the n points (at least 2), e.g. an initial factor.
    M : ndarray of shape (r, r), default=None
        Symmetric matrix of the squared distances
        ``(g_i - g_j)' M (g_i - g_j)``; ``None`` means the identity.
    low : float, default=5.0
        Percentile of the upper bound on similar pairs.
    high : float, default=95.0
        Percentile of the lower bound on dissimilar pairs.
    random_state : int, RandomState instance or None, default=None
        Seeds the random pairs (10,000 pairs of distinct points).

    Returns
    -------
    upper, lower : float
        The ``low`` and ``high`` percentiles.
    """
    i, j = _percentile_pairs(G.shape[0], check_random_state(random_state))
    return _percentiles(pair_sqdist(G, i, j, M), low, high)


def _percentile_pairs(n, rng):
    """The random pairs of distinct points whose distances give the
    'percentile' bounds."""
    if n < 2:
        raise ValueError("percentile bounds need at least 2 samples.")
    i = rng.randint(0, n, _PERCENTILE_PAIRS)
    j = (i + 1 + rng.randint(0, n - 1, _PERCENTILE_PAIRS)) % n
    return i, j


def _percentiles(d, low, high):
    """The ``low`` and ``high`` percentiles of the squared distances ``d`` of
    :func:`_percentile_pairs`, zero ones left out."""
    # pairs that coincide, to rounding (1e-12 of the largest, as the
    # engine's zero-length test), are left out, so that the bound is one
    # that double precision can resolve
    d = d[d > 1e-12 * d.max(initial=0.0)]
    if d.size == 0:
        raise ValueError(
            "bounds='percentile': every sampled pair of points has zero distance; "
            "the data has (almost) no spread. Give explicit bounds."
        )
    upper, lower = np.percentile(d, [low, high])
    return float(upper), float(lower)


# --------------------------------------------------------------------------
# Relative comparisons: triplets (Amid, Gionis & Ukkonen, Section 3.2)
# --------------------------------------------------------------------------

#: Engine rows of each kind (``TripletConstraints.rows``).
INEQUALITY, EQUALITY = 1, 0


class TripletConstraints:
    """Relative comparisons of three points: outlier and "don't know" triplets.

    An outlier triplet ``(i, j | k)`` says that ``k`` is the odd one out; with
    margin ``gamma > 1`` it gives the two inequalities (eq. 1-2)::

        gamma^2 d(i, j) <= d(i, k)        gamma^2 d(j, i) <= d(j, k)

    An equality triplet ``(i, j, k)`` is a "don't know" answer: the three
    points are about equally far apart (eq. 3)::

        d(i, j) = d(i, k),   d(j, i) = d(j, k),   d(k, i) = d(k, j)

    The constructor validates its input, as :class:`PairConstraints` does,
    and raises a ValueError or TypeError that names the field (``outlier``
    or ``equal``) and the first bad row: each field has shape (m, 3) (an
    empty list is no triplet), holds non-negative integer indices (integers,
    or floats with integral values; booleans, strings, NaN and non-integral
    values are rejected), and the three points of a row are distinct.
    Whether the indices lie below the number of training points is checked
    by :func:`check_triplets` when the triplets are used in a fit.

    Parameters
    ----------
    outlier : array-like of shape (n_outlier, 3), default=None
        Rows ``i, j, k`` with ``k`` the outlier.
    equal : array-like of shape (n_equal, 3), default=None
        Rows ``i, j, k`` of equidistant points.

    Attributes
    ----------
    outlier, equal : ndarray of dtype intp and shape (m, 3)
        The validated triplets of each kind.

    Raises
    ------
    ValueError
        If a field has the wrong shape, a non-integral or negative index, or
        a row that repeats a point.
    TypeError
        If a field does not hold numbers.

    Examples
    --------
    >>> from sklearn_bregman.constraints import TripletConstraints
    >>> t = TripletConstraints(outlier=[[0, 1, 5], [2, 3, 4]], equal=[[0, 2, 4]])
    >>> len(t), t.rows(margin=2 ** 0.5)[0].shape
    (3, (7,))
    """

    def __init__(self, outlier=None, equal=None):
        self.outlier = _validate_triplets(outlier, "outlier", "TripletConstraints")
        self.equal = _validate_triplets(equal, "equal", "TripletConstraints")

    @classmethod
    def _from_valid(cls, outlier, equal):
        """Internal fast path: wrap (m, 3) intp arrays that are valid by
        construction (from the generators or :meth:`copy`) without checking
        them again."""
        self = cls.__new__(cls)
        self.outlier = np.ascontiguousarray(outlier)
        self.equal = np.ascontiguousarray(equal)
        return self

    def __len__(self):
        return self.outlier.shape[0] + self.equal.shape[0]

    def rows(self, margin):
        """The scalar constraints of the engine, as flat arrays.

        Every row is ``gamma2 * d(a, b) <= d(a, c)`` (kind ``INEQUALITY``) or
        ``d(a, b) = d(a, c)`` (kind ``EQUALITY``, ``gamma2 = 1``); the rank-two
        constraint matrix in the factor's coordinates is
        ``gamma2 u u' - w w'`` with ``u = g_a - g_b``, ``w = g_a - g_c``
        (eq. 25).  Outlier triplets give two rows each, equality triplets three.

        Parameters
        ----------
        margin : float
            The margin gamma of the outlier triplets (``gamma2 = margin**2``).

        Returns
        -------
        a, b, c : ndarray of shape (n_rows,), intp
            The three points of each row.
        kind : ndarray of shape (n_rows,), int8
            ``INEQUALITY`` or ``EQUALITY``.
        gamma2 : ndarray of shape (n_rows,)
            ``margin**2`` for inequalities, 1 for equalities.
        source : ndarray of shape (n_rows,), intp
            The triplet of each row: ``t < n_outlier`` indexes ``outlier``,
            larger values ``equal[t - n_outlier]``.
        """
        o, e = self.outlier, self.equal
        no, ne = o.shape[0], e.shape[0]
        a = np.concatenate([o[:, 0], o[:, 1], e[:, 0], e[:, 1], e[:, 2]])
        b = np.concatenate([o[:, 1], o[:, 0], e[:, 1], e[:, 0], e[:, 0]])
        c = np.concatenate([o[:, 2], o[:, 2], e[:, 2], e[:, 2], e[:, 1]])
        kind = np.concatenate([np.full(2 * no, INEQUALITY, np.int8),
                               np.full(3 * ne, EQUALITY, np.int8)])
        gamma2 = np.where(kind == INEQUALITY, float(margin) ** 2, 1.0)
        t_o = np.arange(no, dtype=np.intp)
        t_e = no + np.arange(ne, dtype=np.intp)
        source = np.concatenate([t_o, t_o, t_e, t_e, t_e])
        return (a.astype(np.intp), b.astype(np.intp), c.astype(np.intp), kind,
                gamma2, source)

    def copy(self):
        """Return a deep copy (the arrays are copied, not shared).

        Returns
        -------
        TripletConstraints
            The copy.
        """
        return TripletConstraints._from_valid(self.outlier.copy(), self.equal.copy())

    def __repr__(self):
        return (f"TripletConstraints(n_outlier={self.outlier.shape[0]}, "
                f"n_equal={self.equal.shape[0]})")


def _validate_triplets(t, field, owner):
    """An (m, 3) intp array of triplets with distinct points per row; the one
    place where triplets are checked (:class:`TripletConstraints` and
    :func:`check_triplets`).  ``None`` or an empty list is no triplet."""
    if t is None:
        return np.empty((0, 3), dtype=np.intp)
    arr = _read_array(t, field, owner)
    where = _where(owner, field)
    if arr.size == 0 and arr.shape in ((0,), (0, 3)):
        return np.empty((0, 3), dtype=np.intp)
    if arr.ndim != 2 or arr.shape[1] != 3:
        raise ValueError(
            f"{where} must be an array of shape (n_triplets, 3) with rows i, j, k; "
            f"got shape {arr.shape}."
        )
    tri = _as_indices(arr, field, owner, rows=lambda k: f"{k // 3} ({arr[k // 3].tolist()})")
    bad = np.flatnonzero((tri[:, 0] == tri[:, 1]) | (tri[:, 0] == tri[:, 2])
                         | (tri[:, 1] == tri[:, 2]))
    if bad.size:
        raise ValueError(
            f"{where}: row {bad[0]} ({tri[bad[0]].tolist()}) repeats a point; the three "
            "points of a triplet must be distinct."
        )
    return np.ascontiguousarray(tri)


def check_triplets(triplets, n_samples, *, name="triplets"):
    """Validate user-given triplets (outlier or equality).

    Parameters
    ----------
    triplets : array-like of shape (n_triplets, 3)
        Rows ``i, j, k`` of integer sample indices.
    n_samples : int
        Number of training points the indices refer to.
    name : str, default="triplets"
        Parameter name used in error messages.

    Returns
    -------
    ndarray of shape (n_triplets, 3), intp
        The validated triplets.

    Raises
    ------
    ValueError
        If the array has the wrong shape, holds non-integers, an index out of
        range, or a row that repeats a point (the checks of
        :class:`TripletConstraints`, and the range).  The message names
        ``name`` and the first offending row.
    TypeError
        If the array does not hold numbers, or is a :class:`TripletConstraints`
        (use :func:`check_triplet_constraints`).
    """
    if isinstance(triplets, TripletConstraints):
        raise TypeError(
            f"{name} must be an array of shape (n_triplets, 3); a TripletConstraints "
            "holds two of them: validate it with check_triplet_constraints."
        )
    t = _validate_triplets(triplets, name, None)
    bad = np.flatnonzero((t >= n_samples).any(1))
    if bad.size:
        k = bad[0]
        raise ValueError(
            f"{name}: index out of range in row {k} ({t[k].tolist()}); indices must "
            f"lie in [0, {n_samples - 1}] for {n_samples} samples."
        )
    return t


def check_triplet_constraints(triplets, equal_triplets, n_samples):
    """Validate the triplets of a fit: arrays, or one TripletConstraints.

    Parameters
    ----------
    triplets : TripletConstraints, array-like of shape (n_outlier, 3) or None
        Outlier triplets; a :class:`TripletConstraints` brings its outlier
        and its equality triplets.
    equal_triplets : array-like of shape (n_equal, 3) or None
        Equality triplets.  Must be None when ``triplets`` is a
        :class:`TripletConstraints` (its ``equal`` triplets are used: two
        sources of equality triplets are an error rather than merged).
    n_samples : int
        Number of training points the indices refer to.

    Returns
    -------
    TripletConstraints
        A validated copy.

    Raises
    ------
    ValueError, TypeError
        As :func:`check_triplets`, naming ``triplets``, ``equal_triplets``,
        ``triplets.outlier`` or ``triplets.equal``; a ValueError when both a
        TripletConstraints and ``equal_triplets`` are given.
    """
    if isinstance(triplets, TripletConstraints):
        if equal_triplets is not None:
            raise ValueError(
                "triplets is a TripletConstraints, which carries its own equality "
                "triplets (.equal); equal_triplets must then be None. Put all the "
                "equality triplets in the TripletConstraints, or pass two arrays."
            )
        # checked again: the arrays may have been changed since construction
        outlier = check_triplets(triplets.outlier, n_samples, name="triplets.outlier")
        equal = check_triplets(triplets.equal, n_samples, name="triplets.equal")
    else:
        outlier = check_triplets(triplets, n_samples, name="triplets")
        equal = check_triplets(equal_triplets, n_samples, name="equal_triplets")
    return TripletConstraints._from_valid(outlier.copy(), equal.copy())


def _n_equal_triplets(counts):
    """Numbers of distinct unordered triplets of points all of one class
    (``sum_k C(c_k, 3)``) and each of a different class (the elementary
    symmetric polynomial ``e3`` of the class sizes), as exact Python ints."""
    same = e1 = e2 = e3 = 0
    for c in counts.tolist():
        same += c * (c - 1) * (c - 2) // 6
        e3 += e2 * c
        e2 += e1 * c
        e1 += c
    return same, e3


def _combinations3(m):
    """All ``a < b < c`` in ``range(m)``, as an array of shape (C(m, 3), 3)."""
    a, b = np.triu_indices(m, k=1)
    reps = m - 1 - b
    a3, b3 = np.repeat(a, reps), np.repeat(b, reps)
    c3 = b3 + 1 + np.arange(a3.shape[0]) - np.repeat(np.cumsum(reps) - reps, reps)
    return np.column_stack([a3, b3, c3]).astype(np.intp)


def _draw_unique(rng, n_wanted, draw, canonical, max_rounds=64):
    """Up to ``n_wanted`` distinct triplets from a sampler.

    ``draw(size)`` returns candidate rows (m, 3); ``canonical`` maps rows to
    the form under which two rows are the same triplet.  Stops early (with
    fewer rows) when the sampler keeps returning known triplets.
    """
    seen = np.empty((0, 3), dtype=np.intp)
    rows = np.empty((0, 3), dtype=np.intp)
    stale = 0
    while rows.shape[0] < n_wanted and stale < max_rounds:
        cand = draw(2 * (n_wanted - rows.shape[0]) + 16)
        if cand.shape[0] == 0:
            stale += 1
            continue
        key = canonical(cand)
        # first occurrence of each new key, in draw order
        _, first = np.unique(key, axis=0, return_index=True)
        first.sort()
        cand, key = cand[first], key[first]
        if seen.shape[0]:
            both = np.concatenate([seen, key])
            _, inv = np.unique(both, axis=0, return_inverse=True)
            fresh = ~np.isin(inv[seen.shape[0]:], inv[:seen.shape[0]])
            cand, key = cand[fresh], key[fresh]
        stale = stale + 1 if cand.shape[0] == 0 else 0
        cand, key = cand[: n_wanted - rows.shape[0]], key[: n_wanted - rows.shape[0]]
        rows = np.concatenate([rows, cand])
        seen = np.concatenate([seen, key])
    return rows


def _outlier_sampler(rng, idx, codes, n_classes):
    """Sampler of ``(i, j | k)`` with codes[i] == codes[j] != codes[k]."""
    counts = np.bincount(codes, minlength=n_classes).astype(np.float64)
    n_lab = counts.sum()
    weight = counts * (counts - 1) / 2 * (n_lab - counts)
    if weight.sum() <= 0:
        return None, 0
    by_class = idx[np.argsort(codes, kind="stable")]
    start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    full = np.full(idx.max() + 1, -1, dtype=np.intp)
    full[idx] = codes

    def draw(size):
        cls = rng.choice(n_classes, size=size, p=weight / weight.sum())
        a = (rng.random_sample(size) * counts[cls]).astype(np.int64)
        b = (rng.random_sample(size) * counts[cls]).astype(np.int64)
        k = idx[rng.randint(0, idx.size, size)]
        i, j = by_class[start[cls] + a], by_class[start[cls] + b]
        keep = (a != b) & (full[k] != cls)
        return np.column_stack([i[keep], j[keep], k[keep]]).astype(np.intp)

    return draw, int(weight.sum())


def _outlier_key(t):
    return np.column_stack([np.minimum(t[:, 0], t[:, 1]), np.maximum(t[:, 0], t[:, 1]),
                            t[:, 2]])


@validate_params(
    {
        "y": ["array-like"],
        "n_triplets": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "coarse": ["array-like", None],
        "unlabeled": [numbers.Integral, str, None],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def triplets_from_labels(y, n_triplets=None, *, coarse=None, unlabeled=-1,
                         random_state=None):
    """Random outlier triplets ``(i, j | k)`` from class labels.

    Each triplet joins two points of one class (``i``, ``j``) and one point
    of another class (``k``, the odd one out), as the relative comparisons
    of Amid, Gionis & Ukkonen (Section 5.2).  Triplets are distinct (``(i, j
    | k)`` and ``(j, i | k)`` are the same).

    Multi-resolution mode (the paper's "mixed" constraints, Section 5.3):
    with ``coarse`` labels that group the classes (e.g. ``y % 2`` for even
    vs. odd digits), half of the triplets come from the fine classes and
    half from the coarse groups (two points of one group, the outlier from
    another group), so one learned kernel clusters well at both levels.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels.  Samples labelled ``unlabeled`` take part in no triplet.
    n_triplets : int, default=None
        Number of triplets; ``None``: 40 c^2 for c classes (as the pairs).
        Fewer are returned when fewer distinct triplets exist.
    coarse : array-like of shape (n_samples,), default=None
        Coarse label of every sample; samples of one class must share it.
    unlabeled : int, str or None, default=-1
        Label that marks an unlabeled sample.
    random_state : int, RandomState instance or None, default=None
        Seeds the draw.

    Returns
    -------
    ndarray of shape (n_triplets, 3), intp
        Rows ``i, j, k`` with ``k`` the outlier, shuffled.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_bregman.constraints import triplets_from_labels
    >>> y = np.repeat(np.arange(4), 5)
    >>> t = triplets_from_labels(y, 30, coarse=y % 2, random_state=0)
    >>> i, j, k = t.T
    >>> fine = (y[i] == y[j]) & (y[k] != y[i])
    >>> coarse = (y[i] % 2 == y[j] % 2) & (y[k] % 2 != y[i] % 2)
    >>> t.shape, bool(np.all(fine | coarse)), bool(coarse.any() and (fine & ~coarse).any())
    ((30, 3), True, True)
    """
    return _triplets_from_labels(y, n_triplets, coarse=coarse, unlabeled=unlabeled,
                                 random_state=random_state, stacklevel=5)


def _triplets_from_labels(y, n_triplets=None, *, coarse=None, unlabeled=-1,
                          random_state=None, stacklevel=3):
    """:func:`triplets_from_labels` without its parameter validation, for callers whose
    parameters are valid (the estimators validate theirs in ``fit``).

    ``stacklevel`` places the {-1, +1} warning: 3 is this function's caller.
    """
    rng = check_random_state(random_state)
    y, idx, classes, y_enc = _labeled(y, unlabeled, stacklevel)
    if classes.shape[0] < 2:
        what = "no labeled sample" if classes.shape[0] == 0 else f"one class ({classes[0]!r})"
        raise ValueError(
            f"y has {what} among the labeled samples; outlier triplets from labels "
            "need at least two classes."
        )
    if n_triplets is None:
        n_triplets = 40 * classes.shape[0] ** 2
    levels = [(y_enc, classes.shape[0])]
    if coarse is not None:
        coarse = column_or_1d(coarse, warn=True)
        if coarse.shape[0] != y.shape[0]:
            raise ValueError(
                f"coarse has {coarse.shape[0]} entries but y has {y.shape[0]}."
            )
        groups, g_enc = np.unique(coarse[idx], return_inverse=True)
        # every class must sit in one group
        pairs = np.unique(np.column_stack([y_enc, g_enc]), axis=0)
        if pairs.shape[0] != classes.shape[0]:
            raise ValueError(
                "coarse must group the classes: all samples of one class need the "
                "same coarse label."
            )
        if groups.shape[0] < 2:
            raise ValueError("coarse needs at least two groups.")
        levels.append((g_enc, groups.shape[0]))
    parts, left = [], int(n_triplets)
    for level, (codes, n_codes) in enumerate(levels):
        want = -(-left // (len(levels) - level))  # fair share of what is left
        draw, available = _outlier_sampler(rng, idx, codes, n_codes)
        if draw is None:
            continue
        got = _draw_unique(rng, min(want, available), draw, _outlier_key)
        if parts:  # a coarse triplet may repeat a fine one: keep one copy
            old = np.concatenate(parts)
            both = np.concatenate([_outlier_key(old), _outlier_key(got)])
            _, inv = np.unique(both, axis=0, return_inverse=True)
            got = got[~np.isin(inv[old.shape[0]:], inv[:old.shape[0]])]
        parts.append(got)
        left -= got.shape[0]
    out = np.concatenate(parts) if parts else np.empty((0, 3), np.intp)
    if out.shape[0] == 0:
        raise ValueError(
            "No outlier triplet can be drawn: every class has fewer than two "
            "labeled samples."
        )
    return np.ascontiguousarray(out[rng.permutation(out.shape[0])])


@validate_params(
    {
        "y": ["array-like"],
        "n_triplets": [Interval(numbers.Integral, 1, None, closed="left")],
        "mode": [StrOptions({"mixed", "same", "different"})],
        "unlabeled": [numbers.Integral, str, None],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def equal_triplets_from_labels(y, n_triplets, *, mode="mixed", unlabeled=-1,
                               random_state=None):
    """Random "don't know" triplets ``(i, j, k)`` from class labels.

    The paper's equality constraints (Section 5.6): three points all of one
    class, or each of a different class, so that none is an obvious outlier.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels.  Samples labelled ``unlabeled`` take part in no triplet.
    n_triplets : int
        Number of triplets wanted.  Capped by the number of distinct
        triplets available (``sum_k C(c_k, 3)`` of one class and the sum of
        ``c_a c_b c_c`` over three classes, for classes of ``c_k`` labeled
        samples), so a large request costs no more than the triplets that
        exist.
    mode : {'mixed', 'same', 'different'}, default='mixed'
        'same': three points of one class; 'different': three classes;
        'mixed': half of each kind (one kind takes over what the other
        cannot supply).
    unlabeled : int, str or None, default=-1
        Label that marks an unlabeled sample.
    random_state : int, RandomState instance or None, default=None
        Seeds the draw.

    Returns
    -------
    ndarray of shape (n_returned, 3), intp
        Distinct triplets (as unordered sets), shuffled; ``n_returned`` is
        ``n_triplets`` or the number available, whichever is smaller.

    Examples
    --------
    >>> from sklearn_bregman.constraints import equal_triplets_from_labels
    >>> equal_triplets_from_labels([0, 0, 0, 1, 1, 1], 10**6, mode="same").shape
    (2, 3)
    """
    return _equal_triplets_from_labels(y, n_triplets, mode=mode, unlabeled=unlabeled,
                                       random_state=random_state, stacklevel=5)


def _equal_triplets_from_labels(y, n_triplets, *, mode="mixed", unlabeled=-1,
                                random_state=None, stacklevel=3):
    """:func:`equal_triplets_from_labels` without its parameter validation, for
    callers whose parameters are valid.

    ``stacklevel`` places the {-1, +1} warning: 3 is this function's caller.
    """
    rng = check_random_state(random_state)
    y, idx, classes, y_enc = _labeled(y, unlabeled, stacklevel)
    counts = np.bincount(y_enc, minlength=classes.shape[0])
    can_same = bool(np.any(counts >= 3))
    can_diff = classes.shape[0] >= 3
    if (mode == "same" and not can_same) or (mode == "different" and not can_diff) or \
            not (can_same or can_diff):
        raise ValueError(
            f"equal triplets with mode={mode!r} cannot be drawn from these labels "
            f"({classes.shape[0]} classes, largest has {counts.max() if counts.size else 0} "
            "samples)."
        )
    full = np.full(y.shape[0], -1, dtype=np.intp)
    full[idx] = y_enc
    by_class = idx[np.argsort(y_enc, kind="stable")]
    start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    weight = counts * (counts - 1.0) * (counts - 2.0)  # ordered triples per class

    def draw_same(size):
        k = rng.choice(classes.shape[0], size=size, p=weight / weight.sum())
        pos = (rng.random_sample((size, 3)) * counts[k][:, None]).astype(np.int64)
        t = by_class[start[k][:, None] + pos]
        return t[(pos[:, 0] != pos[:, 1]) & (pos[:, 0] != pos[:, 2])
                 & (pos[:, 1] != pos[:, 2])]

    def draw_different(size):
        t = idx[rng.randint(0, idx.size, (size, 3))]
        c = full[t]
        return t[(c[:, 0] != c[:, 1]) & (c[:, 0] != c[:, 2]) & (c[:, 1] != c[:, 2])]

    # Distinct triplets available of each kind, exactly (Python integers):
    # sum_k C(c_k, 3) of one class, e3(c) of three classes.
    n_same_avail, n_diff_avail = _n_equal_triplets(counts)
    n_same = n_diff = 0
    if mode == "same":
        n_same = min(int(n_triplets), n_same_avail)
    elif mode == "different":
        n_diff = min(int(n_triplets), n_diff_avail)
    else:  # half each; one kind takes over what the other cannot supply
        n_same = min((int(n_triplets) + 1) // 2, n_same_avail)
        n_diff = min(int(n_triplets) - n_same, n_diff_avail)
        n_same = min(int(n_triplets) - n_diff, n_same_avail)

    def enum_same():
        parts = []
        for k in np.flatnonzero(counts >= 3):
            members = by_class[start[k]:start[k + 1]]
            parts.append(members[_combinations3(counts[k])])
        return np.concatenate(parts)

    def enum_different():
        a, b, c = _combinations3(classes.shape[0]).T
        ca, cb, cc = counts[a], counts[b], counts[c]
        size = ca * cb * cc
        t = np.repeat(np.arange(a.shape[0]), size)
        o = np.arange(t.shape[0]) - np.repeat(np.cumsum(size) - size, size)
        pa, pb, pc = o // (cb[t] * cc[t]), (o // cc[t]) % cb[t], o % cc[t]
        return np.column_stack([by_class[start[a[t]] + pa], by_class[start[b[t]] + pb],
                                by_class[start[c[t]] + pc]])

    parts = []
    for want, avail, draw, enum in ((n_same, n_same_avail, draw_same, enum_same),
                                    (n_diff, n_diff_avail, draw_different,
                                     enum_different)):
        if want == 0:
            continue
        if 2 * want >= avail:  # most of them: list them all and pick
            every = enum()
            parts.append(every[rng.choice(every.shape[0], want, replace=False)])
        else:
            parts.append(_draw_unique(rng, want, draw, lambda t: np.sort(t, axis=1)))
    got = np.concatenate(parts)
    if got.shape[0] == 0:
        raise ValueError("No equal triplet could be drawn from these labels.")
    return np.ascontiguousarray(got[rng.permutation(got.shape[0])])


# --------------------------------------------------------------------------
# Linear constraints beyond pairs (JMLR 2009, Section 6.2.2)
# --------------------------------------------------------------------------

#: ``sense`` of a row of the kinds below: the value at most the bound (+1),
#: at least the bound (-1), or equal to it (0).
SENSES = {1: "<=", -1: ">=", 0: "=="}


def _as_reals(arr, field, owner, *, low=-np.inf, low_closed=True):
    """A float64 field of finite numbers (above ``low``), or an error naming it."""
    where = _where(owner, field)
    if arr.dtype.kind == "b" or (arr.dtype.kind == "O" and _first_bad_object(arr) is not None):
        raise TypeError(f"{where} must hold numbers.")
    if arr.dtype.kind not in "iufO":
        raise TypeError(f"{where} must hold numbers; got an array of dtype {arr.dtype}.")
    out = np.ascontiguousarray(arr, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(out) | ((out < low) if low_closed else (out <= low))
    if bad.any():
        k = np.flatnonzero(bad)[0]
        what = "finite numbers" if low == -np.inf else (
            f"finite numbers {'>=' if low_closed else '>'} {low:g}")
        raise ValueError(f"{where} must hold {what}; row {k} has {out[k]!r}.")
    return out


def _as_sense(arr, owner):
    """``sense`` as int8 in {+1, -1, 0}, or an error naming the first bad row."""
    where = _where(owner, "sense")
    msg = f"{where} must be +1 (<= bound), -1 (>= bound) or 0 (== bound)"
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iufO":
        raise TypeError(f"{msg}; got an array of dtype {arr.dtype}.")
    if arr.dtype.kind == "O" and _first_bad_object(arr) is not None:
        raise TypeError(f"{msg}; got {arr[_first_bad_object(arr)]!r}.")
    vals = arr.astype(np.float64)
    ok = (vals == 1) | (vals == -1) | (vals == 0)
    if not ok.all():
        k = np.flatnonzero(~ok)[0]
        raise ValueError(f"{msg}; row {k} has {_plain(arr[k])!r}.")
    return np.ascontiguousarray(vals.astype(np.int8))


def _fields(owner, **fields):
    """1-D fields of one length (scalars broadcast), or an error naming them."""
    arrs = {name: _as_field(v, name, owner) for name, v in fields.items()}
    n = max(a.shape[0] for a in arrs.values())
    for name, a in arrs.items():
        if a.shape[0] == 1 and n != 1:
            arrs[name] = np.repeat(a, n)
        elif a.shape[0] != n:
            lengths = ", ".join(f"{k}: {v.shape[0]}" for k, v in arrs.items())
            raise ValueError(
                f"{owner}: {', '.join(arrs)} must have one entry per constraint (or "
                f"one for all); got {lengths}."
            )
    return arrs


def _same_row(k):
    return k


class RelativeConstraints:
    """Relative comparisons of two pairs (JMLR 2009, Section 6.2.2).

    Row ``c`` asks the pair ``(i, j)`` to be closer than the pair ``(k, l)``
    in the learned squared distance ``d``::

        ratio * d(i, j) - d(k, l) <= -margin          (equality=False)
        ratio * d(i, j) - d(k, l)  = -margin          (equality=True)

    ``k == i`` gives the three-point form "``j`` is closer to ``i`` than
    ``l`` is" (an outlier triplet of SKLR with ``ratio = gamma^2``).  In the
    factor's coordinates the constraint matrix is
    ``ratio u u' - w w'`` (``u = g_i - g_j``, ``w = g_k - g_l``): rank two and
    indefinite, projected in O(r^2).

    With ``measure='similarity'`` the rows compare kernel entries instead
    (the paper's ``K_jk <= K_lm``), the pair ``(i, j)`` being the more
    similar one: ``-K`` takes the place of ``d``::

        K(k, l) - ratio * K(i, j) <= -margin    (or = -margin)

    ``i == j`` and ``k == l`` are then allowed (diagonal entries); the
    constraint matrix has rank four at most.

    The constructor validates its input and raises a ValueError or
    TypeError naming the field and the first bad row; whether the indices
    lie below the number of training points is checked when the
    constraints are used in a fit.

    Parameters
    ----------
    i, j, k, l : array-like of shape (n_constraints,)
        Sample indices of the closer pair ``(i, j)`` and the farther pair
        ``(k, l)``; for distances ``i != j`` and ``k != l``; the pairs
        differ.
    margin : float or array-like of shape (n_constraints,), default=0.0
        Additive margin, in the units of ``d`` (or of ``K``).
    ratio : float or array-like of shape (n_constraints,), default=1.0
        Multiplicative margin (> 0): a scale-free way to ask for a gap.
    equality : bool or array-like of shape (n_constraints,), default=False
        Rows that must hold with equality (a two-sided bound).
    measure : {'distance', 'similarity'}, default='distance'
        Compare squared distances or kernel entries.

    Attributes
    ----------
    i, j, k, l : ndarray of dtype intp
    margin, ratio : ndarray of dtype float64
    equality : ndarray of dtype bool
    measure : str

    Examples
    --------
    >>> from sklearn_bregman.constraints import RelativeConstraints
    >>> rc = RelativeConstraints([0, 1], [1, 2], [0, 1], [3, 4], ratio=2.0)
    >>> len(rc), rc
    (2, RelativeConstraints(n_constraints=2, n_equality=0))
    >>> RelativeConstraints([0], [0], [1], [2], measure="similarity")  # K(1, 2) <= K(0, 0)
    RelativeConstraints(n_constraints=1, n_equality=0, measure='similarity')
    """

    def __init__(self, i, j, k, l, *, margin=0.0, ratio=1.0, equality=False,  # noqa: E741
                 measure="distance"):
        owner = "RelativeConstraints"
        if measure not in ("distance", "similarity"):
            raise ValueError(f"{owner}: measure must be 'distance' or 'similarity'; got "
                             f"{measure!r}.")
        self.measure = measure
        f = _fields(owner, i=i, j=j, k=k, l=l, margin=margin, ratio=ratio,
                    equality=equality)
        for name in ("i", "j", "k", "l"):
            setattr(self, name, np.ascontiguousarray(
                _as_indices(f[name], name, owner, _same_row)))
        self.margin = _as_reals(f["margin"], "margin", owner)
        self.ratio = _as_reals(f["ratio"], "ratio", owner, low=0.0, low_closed=False)
        eq = f["equality"]
        if eq.dtype.kind != "b":
            raise TypeError(f"{owner}: equality must hold booleans; got dtype {eq.dtype}.")
        self.equality = np.ascontiguousarray(eq)
        for a, b in (("i", "j"), ("k", "l")) if measure == "distance" else ():
            bad = np.flatnonzero(getattr(self, a) == getattr(self, b))
            if bad.size:
                raise ValueError(f"{owner}: row {bad[0]} has {a} == {b} (a pair joins a "
                                 "point to itself).")
        same = (((self.i == self.k) & (self.j == self.l))
                | ((self.i == self.l) & (self.j == self.k)))
        if same.any():
            raise ValueError(f"{owner}: row {np.flatnonzero(same)[0]} compares a pair "
                             "with itself.")

    @classmethod
    def from_triplets(cls, triplets, *, ratio=1.0):
        """The rows of outlier (and equality) triplets.

        An outlier triplet ``(i, j | k)`` gives ``ratio d(i, j) <= d(i, k)`` and
        ``ratio d(j, i) <= d(j, k)``; an equality triplet the three equality
        rows of SKLR (eq. 1-3, ``ratio = gamma^2``).

        Parameters
        ----------
        triplets : TripletConstraints or array-like of shape (m, 3)
            Outlier triplets (rows ``i, j, k`` with ``k`` the odd one out),
            or a :class:`TripletConstraints` with outlier and equal triplets.
        ratio : float, default=1.0
            Multiplicative margin of the outlier rows.

        Returns
        -------
        RelativeConstraints
        """
        if not isinstance(triplets, TripletConstraints):
            triplets = TripletConstraints(outlier=triplets)
        ratio = float(ratio)
        if not (np.isfinite(ratio) and ratio > 0):
            raise ValueError(f"ratio must be a finite number > 0; got {ratio!r}.")
        a, b, c, kind, gamma2, _ = triplets.rows(np.sqrt(ratio))
        return cls(a, b, a, c, ratio=gamma2, equality=kind == EQUALITY)

    def __len__(self):
        return self.i.shape[0]

    def __repr__(self):
        extra = "" if self.measure == "distance" else f", measure={self.measure!r}"
        return (f"RelativeConstraints(n_constraints={len(self)}, "
                f"n_equality={int(np.count_nonzero(self.equality))}{extra})")



class SimilarityConstraints:
    """Bounds on entries of the learned kernel (JMLR 2009, Section 6.2.2).

    Row ``c`` reads ``K(i, j) <= bound`` (``sense`` +1), ``K(i, j) >= bound``
    (-1) or ``K(i, j) = bound`` (0); ``i == j`` bounds a diagonal entry (a
    squared norm).  The constraint matrix ``(e_i e_j' + e_j e_i') / 2`` is
    rank two and indefinite in the factor's coordinates (rank one on the
    diagonal).

    Parameters
    ----------
    i, j : array-like of shape (n_constraints,)
        Sample indices (``i == j`` allowed).
    sense : array-like of shape (n_constraints,)
        +1, -1 or 0 as above.
    bound : array-like of shape (n_constraints,)
        Finite numbers (a diagonal entry bounded from above needs a bound
        > 0, or no PSD kernel of full rank meets it).

    Attributes
    ----------
    i, j : ndarray of dtype intp
    sense : ndarray of dtype int8
    bound : ndarray of dtype float64

    Examples
    --------
    >>> from sklearn_bregman.constraints import SimilarityConstraints
    >>> SimilarityConstraints([0, 2], [1, 2], [-1, 0], [0.5, 1.0])
    SimilarityConstraints(n_constraints=2, n_equality=1)
    """

    def __init__(self, i, j, sense, bound):
        owner = "SimilarityConstraints"
        f = _fields(owner, i=i, j=j, sense=sense, bound=bound)
        self.i = np.ascontiguousarray(_as_indices(f["i"], "i", owner, _same_row))
        self.j = np.ascontiguousarray(_as_indices(f["j"], "j", owner, _same_row))
        self.sense = _as_sense(f["sense"], owner)
        self.bound = _as_reals(f["bound"], "bound", owner)
        bad = np.flatnonzero((self.i == self.j) & (self.sense == 1) & (self.bound <= 0))
        if bad.size:
            raise ValueError(
                f"{owner}: row {bad[0]} asks K({self.i[bad[0]]}, {self.i[bad[0]]}) <= "
                f"{self.bound[bad[0]]:g}; a diagonal entry of a positive definite "
                "kernel is positive."
            )

    def __len__(self):
        return self.i.shape[0]

    def __repr__(self):
        return (f"SimilarityConstraints(n_constraints={len(self)}, "
                f"n_equality={int(np.count_nonzero(self.sense == 0))})")



class LinearConstraints:
    """General linear constraints ``tr(K A_c) <= b_c`` on the learned kernel.

    JMLR 2009, Section 6.2.2.  Each ``A_c`` is an n x n matrix (n the number
    of training points) given as a scipy sparse matrix, a dense array, or a
    low-rank symmetric factorisation ``(Z, s)`` meaning ``Z diag(s) Z'``
    (``Z`` of shape (n, q)); only its symmetric part counts.  In the
    factor's coordinates it becomes ``G0' A_c G0`` (r x r), formed once per
    fit in O(nnz(A) r + n r^2) (sparse) or O(n q r) (factored); each
    projection then costs O(q_c r^2) with ``q_c <= r`` the rank of that
    matrix.

    Parameters
    ----------
    matrices : list of sparse matrix, ndarray or (Z, s) tuple
        The ``A_c``.
    bound : array-like of shape (n_constraints,)
        Finite numbers ``b_c``.
    sense : int or array-like of shape (n_constraints,), default=1
        +1: ``tr(K A) <= b``; -1: ``>=``; 0: ``==``.

    Attributes
    ----------
    matrices : list
    bound : ndarray of dtype float64
    sense : ndarray of dtype int8

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_bregman.constraints import LinearConstraints
    >>> ones = np.ones((5, 1))
    >>> LinearConstraints([(ones, [1.0])], [2.0], sense=-1)  # sum of K >= 2
    LinearConstraints(n_constraints=1, n_equality=0)
    """

    def __init__(self, matrices, bound, sense=1):
        owner = "LinearConstraints"
        # one matrix (sparse, 2-D array or a (Z, s) pair) or a sequence of them
        if (sp.issparse(matrices) or isinstance(matrices, tuple)
                or (isinstance(matrices, np.ndarray) and matrices.ndim == 2)):
            matrices = [matrices]
        if not isinstance(matrices, (list, np.ndarray)):
            raise TypeError(f"{owner}: matrices must be a matrix, a (Z, s) pair or a "
                            f"list of them; got a {type(matrices).__name__}.")
        matrices = list(matrices)
        f = _fields(owner, bound=bound, sense=sense)
        if f["bound"].shape[0] == 1 and len(matrices) != 1:
            f = _fields(owner, bound=np.repeat(f["bound"], len(matrices)),
                        sense=f["sense"] if f["sense"].shape[0] != 1
                        else np.repeat(f["sense"], len(matrices)))
        if f["bound"].shape[0] != len(matrices):
            raise ValueError(f"{owner}: {len(matrices)} matrices but "
                             f"{f['bound'].shape[0]} bounds.")
        self.bound = _as_reals(f["bound"], "bound", owner)
        self.sense = _as_sense(f["sense"], owner)
        self.matrices = [_check_linear_matrix(A, c, owner) for c, A in enumerate(matrices)]

    def __len__(self):
        return len(self.matrices)

    def __repr__(self):
        return (f"LinearConstraints(n_constraints={len(self)}, "
                f"n_equality={int(np.count_nonzero(self.sense == 0))})")

    def n_rows(self):
        """Return the size n the matrices act on (the training set).

        Returns
        -------
        int or None
            The number n, or None if there is no constraint.
        """
        if not self.matrices:
            return None
        A = self.matrices[0]
        return A[0].shape[0] if isinstance(A, tuple) else A.shape[0]


def _check_linear_matrix(A, c, owner):
    """One ``A_c``: a square sparse matrix or array, or ``(Z, s)``."""
    where = f"{owner}: matrix {c}"
    if isinstance(A, tuple):
        if len(A) != 2:
            raise ValueError(f"{where} must be (Z, s) for Z diag(s) Z'; got a tuple of "
                             f"{len(A)}.")
        Z = np.asarray(A[0], dtype=np.float64)
        if Z.ndim == 1:
            Z = Z[:, None]
        s = np.atleast_1d(np.asarray(A[1], dtype=np.float64))
        if Z.ndim != 2 or s.ndim != 1 or s.shape[0] != Z.shape[1]:
            raise ValueError(f"{where}: Z must be (n, q) and s (q,); got shapes {Z.shape} "
                             f"and {s.shape}.")
        if not (np.isfinite(Z).all() and np.isfinite(s).all()):
            raise ValueError(f"{where} contains NaN or infinity.")
        return (np.ascontiguousarray(Z), s)
    if sp.issparse(A):
        A = sp.csr_matrix(A, dtype=np.float64)
        data = A.data
    else:
        A = np.asarray(A, dtype=np.float64)
        data = A
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"{where} must be square (n x n); got shape {A.shape}.")
    if not np.isfinite(data).all():
        raise ValueError(f"{where} contains NaN or infinity.")
    return A


@validate_params(
    {
        "y": ["array-like"],
        "n_constraints": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "ratio": [Interval(numbers.Real, 0, None, closed="neither")],
        "margin": [numbers.Real],
        "unlabeled": [numbers.Integral, str, None],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def relative_from_labels(y, n_constraints=None, *, ratio=1.0, margin=0.0, unlabeled=-1,
                         random_state=None):
    """Relative constraints from class labels: a point is closer to its class.

    Each row takes two points ``i, j`` of one class and a point ``k`` of
    another and asks ``ratio * d(i, j) <= d(i, k) - margin`` (JMLR 2009,
    Section 6.2.2: relative comparison constraints; the triplets are those
    of :func:`triplets_from_labels`).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels; samples labelled ``unlabeled`` take part in no row.
    n_constraints : int, default=None
        Number of rows; ``None``: 40 c^2 for c classes (as the pairs).
    ratio : float, default=1.0
        Multiplicative margin (> 0).
    margin : float, default=0.0
        Additive margin, in squared-distance units.
    unlabeled : int, str or None, default=-1
        Label that marks an unlabeled sample.
    random_state : int, RandomState instance or None, default=None
        Seeds the draw.

    Returns
    -------
    RelativeConstraints
        One row per triplet.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_bregman.constraints import relative_from_labels
    >>> y = np.repeat([0, 1, 2], 10)
    >>> rc = relative_from_labels(y, 50, ratio=2.0, random_state=0)
    >>> len(rc), bool(np.all((y[rc.i] == y[rc.j]) & (y[rc.i] != y[rc.l])))
    (50, True)
    """
    return _relative_from_labels(y, n_constraints, ratio=ratio, margin=margin,
                                 unlabeled=unlabeled, random_state=random_state,
                                 stacklevel=6)


def _relative_from_labels(y, n_constraints=None, *, ratio=1.0, margin=0.0, unlabeled=-1,
                          random_state=None, stacklevel=3):
    """:func:`relative_from_labels` without its parameter validation (for the
    estimators, which validate theirs in ``fit``)."""
    t = _triplets_from_labels(y, n_constraints, unlabeled=unlabeled,
                              random_state=random_state, stacklevel=stacklevel)
    return RelativeConstraints(t[:, 0], t[:, 1], t[:, 0], t[:, 2], ratio=ratio,
                               margin=margin)
