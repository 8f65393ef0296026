"""The constraint containers and the generators that draw them from labels.

The public names are :mod:`sklearn_bregman.constraints`'s (the door that
names them); the checks of their fields are :mod:`._validation`'s, the
labels and their samplers :mod:`._labels`'s, the bounds :mod:`._bounds`'s.
"""

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from .._utils._sklearn_compat import Interval, StrOptions, validate_params
from ._labels import LabelIndex, draw_label_pairs, equal_triplets, outlier_triplets
from ._validation import (
    empty_error,
    read_array,
    validate_linear,
    validate_pairs,
    validate_quadruplets,
    validate_relative,
    validate_similarity,
    validate_triplets,
)

__all__ = [
    "LinearConstraints",
    "PairConstraints",
    "RelativeConstraints",
    "SimilarityConstraints",
    "TripletConstraints",
    "check_pairs",
    "check_quadruplets",
    "check_triplet_constraints",
    "check_triplets",
    "pair_constraints_of_valid",
    "equal_triplets_from_labels",
    "pairs_from_labels",
    "relative_from_labels",
    "triplet_constraints_of_valid",
    "triplets_from_labels",
]


# --------------------------------------------------------------------------
# The containers: validated once, at construction, and read-only after
# --------------------------------------------------------------------------


def _frozen(value):
    """``value`` (an array, a sparse matrix, a (Z, s) pair or a list of
    them) as a read-only copy that nobody else holds."""
    if isinstance(value, np.ndarray):
        out = np.array(value, copy=True, order="C")
        out.flags.writeable = False
        return out
    if sp.issparse(value):
        out = value.copy()
        for name in ("data", "indices", "indptr", "row", "col", "offsets"):
            arr = getattr(out, name, None)
            if isinstance(arr, np.ndarray):
                arr.flags.writeable = False
        return out
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    return value


class _ReadOnly:
    """A container whose fields are validated once, by its constructor, and
    read-only after: its arrays are its own non-writeable copies, and its
    attributes cannot be set, so what a fit reads is what was validated (a
    container is never checked again "in case its arrays were changed")."""

    __slots__ = ()

    def _set_fields(self, **fields):
        for name, value in fields.items():
            object.__setattr__(self, name, _frozen(value))

    def __setattr__(self, name, value):
        raise AttributeError(
            f"{type(self).__name__} is read-only: its fields are validated once, when it "
            f"is built; build a new one (with the {name!r} you want) instead of setting "
            f"{name!r}.")

    def __delattr__(self, name):
        raise AttributeError(f"{type(self).__name__} is read-only: cannot delete {name!r}.")

    def __setstate__(self, state):
        # (unpickling and copy.copy: the arrays come back writeable; frozen again)
        self._set_fields(**state)


class PairConstraints(_ReadOnly):
    """A set of pair constraints held as flat arrays.

    The constructor validates its input and raises a ValueError or TypeError
    that names the field (``i``, ``j``, ``sign`` or ``bound``) and the first
    bad row; nothing is coerced silently:

    - ``i`` and ``j`` hold non-negative integer indices: integers, or floats
      with integral values; booleans (a mask is not a list of indices),
      strings, NaN and non-integral values are rejected; a row with
      ``i == j`` is a pair of length zero, which the learners skip with one
      warning that counts them (a dissimilar one then misses its bound);
    - ``sign`` is exactly +1 or -1;
    - ``bound`` holds non-negative finite numbers, or NaN for "unset";
    - every field is 1-D (a scalar counts as one constraint) and all have
      the same length.

    Whether the indices lie below the number of training points is checked
    by :func:`check_pairs` (every estimator calls it), as the container does
    not know the data.  The container is read-only: its arrays are its own
    non-writeable copies of what it was given, and its fields cannot be set
    (build a new container instead), so a fit reads what was validated.

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
        If a value is invalid (a non-integral or negative index, a sign
        other than +1/-1, a negative or infinite bound) or the fields
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
        i, j, sign, bound = validate_pairs(i, j, sign, bound, owner="PairConstraints")
        self._set_fields(i=i, j=j, sign=sign, bound=bound)

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
        """Return a copy (its own read-only arrays).

        Returns
        -------
        PairConstraints
            The copy.
        """
        return pair_constraints_of_valid(self.i, self.j, self.sign, self.bound)

    def with_bound(self, bound):
        """Return a copy with the bounds ``bound``.

        The bounds are checked as the constructor checks them (finite,
        non-negative, NaN for unset); the container itself is read-only.

        Parameters
        ----------
        bound : array-like of shape (n_constraints,)
            The new bounds.

        Returns
        -------
        PairConstraints
            The copy.
        """
        return PairConstraints(self.i, self.j, self.sign, bound)

    def __getitem__(self, key):
        parts = [np.atleast_1d(a[key]) for a in (self.i, self.j, self.sign, self.bound)]
        if parts[0].ndim != 1:
            raise IndexError(
                "PairConstraints can be indexed by an integer, a slice, an array of "
                "integers or a boolean mask (a 1-D selection of constraints); got "
                f"{key!r}."
            )
        return pair_constraints_of_valid(*parts)

    def __repr__(self):
        return (
            f"PairConstraints(n_constraints={len(self)}, n_similar={self.n_similar}, "
            f"n_dissimilar={self.n_dissimilar})"
        )


def pair_constraints_of_valid(i, j, sign, bound):
    """A :class:`PairConstraints` of arrays that are valid by construction
    (intp, intp, int8, float64 of one length, as the generators, the streams
    and the bound rules produce them), without checking them again: the
    package's fast path past the constructor's checks (not public)."""
    pc = PairConstraints.__new__(PairConstraints)
    pc._set_fields(i=np.asarray(i, np.intp), j=np.asarray(j, np.intp),
                   sign=np.asarray(sign, np.int8), bound=np.asarray(bound, np.float64))
    return pc


def _refuse_other_kind(value, name, kind, takes):
    """A TypeError when ``value`` is (or is a list holding) a constraint
    container of another kind than ``kind``: NumPy would read some of them
    as ragged sequences, and the message would speak of lengths."""
    kinds = (PairConstraints, TripletConstraints, RelativeConstraints,
             SimilarityConstraints, LinearConstraints)
    if isinstance(value, kinds) and not isinstance(value, kind):
        raise TypeError(f"{name} must be {takes}; got a {type(value).__name__}.")
    if isinstance(value, (list, tuple)):
        other = [v for v in value if isinstance(v, kinds) and not isinstance(v, kind)]
        if other:
            raise TypeError(f"{name} must be {takes}; got a {type(value).__name__} "
                            f"holding a {type(other[0]).__name__}.")


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
        If an index is not an integer or is out of range, a sign is not
        +1/-1, a bound is negative or
        infinite, or the fields have different lengths.  The checks are
        those of :class:`PairConstraints` (a container passed its own when
        it was built: only the range is checked); the message names the
        parameter ``constraints``, the field and the first offending row.
        Also when there is no constraint ("constraints is empty").
    TypeError
        If the constraints do not hold numbers, or are a container of
        another kind (a TripletConstraints, a RelativeConstraints ...).
    """
    owner = "constraints"
    _refuse_other_kind(constraints, "constraints", PairConstraints,
                       "pair constraints: a PairConstraints, a tuple (i, j, sign[, bound]) or "
                       "an array of shape (n_constraints, 3 or 4)")
    if isinstance(constraints, PairConstraints):
        fields = None
    elif isinstance(constraints, tuple) and len(constraints) in (3, 4):
        fields = constraints
    else:
        arr = read_array(constraints, "constraints", None)
        if arr.ndim != 2 or arr.shape[1] not in (3, 4):
            raise ValueError(
                "constraints must be a PairConstraints, a tuple (i, j, sign[, bound]) "
                "or an array of shape (n_constraints, 3 or 4) with columns "
                f"i, j, sign[, bound]; got an array of shape {arr.shape}."
            )
        fields = tuple(arr[:, c] for c in range(arr.shape[1]))
    if fields is None:  # validated when it was built, and read-only since
        pc = constraints
    else:
        pc = pair_constraints_of_valid(*validate_pairs(
            *fields, *([None] * (4 - len(fields))), owner=owner))

    if len(pc) == 0:
        raise empty_error("constraints", "the PairConstraints" if isinstance(
            constraints, PairConstraints) else "it")
    bad = np.flatnonzero((pc.i >= n_samples) | (pc.j >= n_samples))
    if bad.size:
        k = bad[0]
        raise ValueError(
            f"constraints: index out of range in row {k} (i={pc.i[k]}, j={pc.j[k]}); "
            f"indices must lie in [0, {n_samples - 1}] for {n_samples} samples."
        )
    return pc


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
        Capped by the number of distinct admissible pairs; more than
        ``LABEL_DRAW_MAX_CONSTRAINTS`` = 10**7 pairs after that cap (also by
        the default, for more than 500 classes) are refused with a
        ValueError, before any work.
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
    labels = LabelIndex(y, unlabeled)
    i, j, sign = draw_label_pairs(labels, n_constraints, check_random_state(random_state))
    return pair_constraints_of_valid(i, j, sign, np.full(i.size, np.nan))


# --------------------------------------------------------------------------
# Relative comparisons: triplets (Amid, Gionis & Ukkonen, Section 3.2)
# --------------------------------------------------------------------------

#: Engine rows of each kind (``TripletConstraints.rows``).
INEQUALITY, EQUALITY = 1, 0


class TripletConstraints(_ReadOnly):
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
    by :func:`check_triplets` when the triplets are used in a fit.  The
    container is read-only, as :class:`PairConstraints`.

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
        self._set_fields(outlier=validate_triplets(outlier, "outlier", "TripletConstraints"),
                         equal=validate_triplets(equal, "equal", "TripletConstraints"))

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
        """Return a copy (its own read-only arrays).

        Returns
        -------
        TripletConstraints
            The copy.
        """
        return triplet_constraints_of_valid(self.outlier, self.equal)

    def __repr__(self):
        return (f"TripletConstraints(n_outlier={self.outlier.shape[0]}, "
                f"n_equal={self.equal.shape[0]})")


def triplet_constraints_of_valid(outlier, equal):
    """A :class:`TripletConstraints` of (m, 3) intp arrays that are valid by
    construction (from the generators or :func:`check_triplet_constraints`),
    without checking them again (not public)."""
    tc = TripletConstraints.__new__(TripletConstraints)
    tc._set_fields(outlier=np.asarray(outlier, np.intp), equal=np.asarray(equal, np.intp))
    return tc


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
        (use :func:`check_triplet_constraints`) or a container of another
        kind (a PairConstraints ...).
    """
    if isinstance(triplets, TripletConstraints):
        raise TypeError(
            f"{name} must be an array of shape (n_triplets, 3); a TripletConstraints "
            "holds two of them: validate it with check_triplet_constraints."
        )
    _refuse_other_kind(triplets, name, TripletConstraints,
                       "an array of shape (n_triplets, 3) of triplets (rows i, j, k)")
    t = validate_triplets(triplets, name, None)
    _check_index_range(t, n_samples, name)
    return t


def _check_index_range(t, n_samples, name):
    """Triplets ``t`` (m, 3) index fewer than ``n_samples`` points."""
    bad = np.flatnonzero((t >= n_samples).any(1))
    if bad.size:
        k = bad[0]
        raise ValueError(
            f"{name}: index out of range in row {k} ({t[k].tolist()}); indices must "
            f"lie in [0, {n_samples - 1}] for {n_samples} samples."
        )


def check_triplet_constraints(triplets, equal_triplets, n_samples, *, name="triplets"):
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
    name : str, default="triplets"
        Parameter name used in error messages.

    Returns
    -------
    TripletConstraints
        A validated copy.

    Raises
    ------
    ValueError, TypeError
        As :func:`check_triplets`, naming ``triplets``, ``equal_triplets``,
        ``triplets.outlier`` or ``triplets.equal``; a ValueError when both a
        TripletConstraints and ``equal_triplets`` are given, a TypeError
        when ``triplets`` is a container of another kind (a
        PairConstraints ...).
    """
    _refuse_other_kind(triplets, name, TripletConstraints,
                       "a TripletConstraints or an array of shape (n_triplets, 3) of "
                       "triplets (rows i, j, k)")
    if isinstance(triplets, TripletConstraints):
        if equal_triplets is not None:
            raise ValueError(
                f"{name} is a TripletConstraints, which carries its own equality "
                "triplets (.equal); equal_triplets must then be None. Put all the "
                "equality triplets in the TripletConstraints, or pass two arrays."
            )
        # (validated when it was built, and read-only since: the range only)
        _check_index_range(triplets.outlier, n_samples, f"{name}.outlier")
        _check_index_range(triplets.equal, n_samples, f"{name}.equal")
        return triplets
    outlier = check_triplets(triplets, n_samples, name=name)
    equal = check_triplets(equal_triplets, n_samples, name="equal_triplets")
    return triplet_constraints_of_valid(outlier, equal)


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
        Fewer are returned when fewer distinct triplets exist; more than
        ``LABEL_DRAW_MAX_CONSTRAINTS`` = 10**7 after that cap are refused
        with a ValueError, before any work.
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
    return outlier_triplets(y, n_triplets, coarse=coarse, unlabeled=unlabeled,
                            random_state=random_state)


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
        exist; more than ``LABEL_DRAW_MAX_CONSTRAINTS`` = 10**7 after that
        cap are refused with a ValueError, before any work.
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
    return equal_triplets(y, n_triplets, mode=mode, unlabeled=unlabeled,
                          random_state=random_state)


# --------------------------------------------------------------------------
# Linear constraints beyond pairs (JMLR 2009, Section 6.2.2)
# --------------------------------------------------------------------------

#: ``sense`` of a row of the kinds below: the value at most the bound (+1),
#: at least the bound (-1), or equal to it (0).
SENSES = {1: "<=", -1: ">=", 0: "=="}


class RelativeConstraints(_ReadOnly):
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
    TypeError naming the field and the first bad row; the container is
    read-only after (as :class:`PairConstraints`), and a fit checks whether
    the indices lie below the number of training points.  Empty fields
    make an empty container; a fit given no constraint at all refuses it
    (ValueError "... is empty").

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
        self._set_fields(**validate_relative(i, j, k, l, margin, ratio, equality, measure,
                                             owner="RelativeConstraints"))

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


class SimilarityConstraints(_ReadOnly):
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
        Finite numbers.  A diagonal entry of a positive definite kernel is
        positive: ``K(i, i) <= b`` or ``K(i, i) = b`` with ``b <= 0`` is
        refused (a ValueError); ``K(i, i) >= b`` with ``b <= 0`` always
        holds.

    Attributes
    ----------
    i, j : ndarray of dtype intp
    sense : ndarray of dtype int8
    bound : ndarray of dtype float64

    Notes
    -----
    As :class:`RelativeConstraints`: the constructor names the field and
    the first bad row, the container is read-only after, a fit checks the
    indices against the data, and an empty container is fine until a fit is
    given no constraint at all.

    Examples
    --------
    >>> from sklearn_bregman.constraints import SimilarityConstraints
    >>> SimilarityConstraints([0, 2], [1, 2], [-1, 0], [0.5, 1.0])
    SimilarityConstraints(n_constraints=2, n_equality=1)
    """

    def __init__(self, i, j, sense, bound):
        self._set_fields(**validate_similarity(i, j, sense, bound,
                                               owner="SimilarityConstraints"))

    def __len__(self):
        return self.i.shape[0]

    def __repr__(self):
        return (f"SimilarityConstraints(n_constraints={len(self)}, "
                f"n_equality={int(np.count_nonzero(self.sense == 0))})")


class LinearConstraints(_ReadOnly):
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
    matrices : tuple
        Read-only copies of the matrices given.
    bound : ndarray of dtype float64
    sense : ndarray of dtype int8

    Notes
    -----
    As :class:`RelativeConstraints`: the constructor names the field (or
    the matrix) and the first bad row, the container is read-only after, a
    fit checks that every matrix is n x n for its n training points, and an
    empty container is fine until a fit is given no constraint at all.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_bregman.constraints import LinearConstraints
    >>> ones = np.ones((5, 1))
    >>> LinearConstraints([(ones, [1.0])], [2.0], sense=-1)  # sum of K >= 2
    LinearConstraints(n_constraints=1, n_equality=0)
    """

    def __init__(self, matrices, bound, sense=1):
        matrices, bound, sense = validate_linear(matrices, bound, sense,
                                                 owner="LinearConstraints")
        self._set_fields(matrices=matrices, bound=bound, sense=sense)

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
    t = outlier_triplets(y, n_constraints, unlabeled=unlabeled, random_state=random_state,
                         param="n_constraints")
    return RelativeConstraints(t[:, 0], t[:, 1], t[:, 0], t[:, 2], ratio=ratio,
                               margin=margin)


def check_quadruplets(quadruplets, n_samples, *, name="quadruplets"):
    """Validate user-given quadruplets: rows ``a, b, c, d`` of sample indices.

    A quadruplet asks the pair ``(a, b)`` to be closer than the pair
    ``(c, d)``, :math:`d(a, b) < d(c, d)`: the relative comparison of two
    pairs of JMLR 2009, Section 6.2.2, and metric-learn's quadruplet.  The
    kernel learners' ``quadruplets=`` turns each row into the relative row
    ``ratio d(a, b) <= d(c, d)`` of a :class:`RelativeConstraints`.

    Parameters
    ----------
    quadruplets : array-like of shape (n_quadruplets, 4)
        Rows ``a, b, c, d`` of integer sample indices.
    n_samples : int
        Number of training points the indices refer to.
    name : str, default="quadruplets"
        Parameter name used in error messages.

    Returns
    -------
    ndarray of shape (n_quadruplets, 4), intp
        The validated quadruplets.

    Raises
    ------
    ValueError
        If the array has the wrong shape, holds non-integers or an index out
        of range.  The message names ``name`` and the first offending row.
        (A pair joining a point to itself, ``a == b`` or ``c == d``, and two
        equal pairs are rows like any other: the learners skip those no
        kernel changes, with one warning that counts them.)
    TypeError
        If the array does not hold numbers, or is a constraint container (a
        RelativeConstraints is passed as ``constraints``).
    """
    _refuse_other_kind(quadruplets, name, type(None),
                       "an array of shape (n_quadruplets, 4) of quadruplets (rows a, b, c, "
                       "d; pass a RelativeConstraints as constraints)")
    q = validate_quadruplets(quadruplets, name, None)
    bad = np.flatnonzero((q >= n_samples).any(1))
    if bad.size:
        k = bad[0]
        raise ValueError(
            f"{name}: index out of range in row {k} ({q[k].tolist()}); indices must "
            f"lie in [0, {n_samples - 1}] for {n_samples} samples."
        )
    return q
