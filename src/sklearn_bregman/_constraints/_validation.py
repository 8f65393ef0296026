"""Validation of the constraint containers' fields: one set of rules.

The containers of :mod:`sklearn_bregman.constraints` check their fields
when they are built, and the fits that consume them check them again
through the same functions, so that a container changed after its
construction gets the same message as a bad one built anew.  Every message
names the owner (the container, or the parameter a user passed) and the
field, and the first bad row; nothing is coerced silently.
"""

import numbers

import numpy as np
import scipy.sparse as sp

__all__ = ["as_bound", "as_field", "as_indices", "as_reals", "as_sense", "as_sign",
           "broadcast_fields", "check_bound_values", "check_linear_matrix", "empty_error",
           "field_name", "first_bad_object", "plain", "read_array", "same_row",
           "validate_linear", "validate_pairs", "validate_quadruplets", "validate_relative",
           "validate_similarity", "validate_triplets"]

_INTP_MAX = np.iinfo(np.intp).max


def field_name(owner, field):
    """``'owner: field'`` (or ``'field'``): who is blamed in a message."""
    return f"{owner}: {field}" if owner else field


def read_array(values, field, owner):
    """``np.asarray(values)``, with NumPy's failures turned into our messages."""
    if isinstance(values, (dict, set, frozenset, str, bytes)):
        raise TypeError(
            f"{field_name(owner, field)} must be an array-like of numbers; got a "
            f"{type(values).__name__}."
        )
    try:
        arr = np.asarray(values)
    except (ValueError, TypeError):
        raise ValueError(
            f"{field_name(owner, field)} could not be read as an array: "
            f"{_ragged(values)}."
        ) from None
    if arr.dtype.kind == "O" and arr.ndim == 0:
        raise TypeError(
            f"{field_name(owner, field)} must be an array-like of numbers; got a "
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


def first_bad_object(flat):
    """Index of the first entry of an object array that is not a real number
    (bools excluded), or None."""
    for k, v in enumerate(flat):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
            return k
    return None


def plain(v):
    """A NumPy scalar as the Python number it holds (for messages)."""
    return v.item() if isinstance(v, np.generic) else v


def as_indices(arr, field, owner, rows):
    """Integer-valued ``arr`` as intp, or a ValueError/TypeError naming
    ``field`` and the first bad row.

    Integers and integral floats are indices; booleans (a mask?), strings,
    complex numbers, NaN, infinities, non-integral floats, negative values
    and values beyond the platform's index range are rejected.  ``rows(k)``
    maps a flat position to the reported row.
    """
    where = field_name(owner, field)
    kind = arr.dtype.kind
    if kind == "b":
        raise TypeError(
            f"{where} must hold integer sample indices; got booleans (for a mask, "
            "pass np.flatnonzero(mask))."
        )
    if kind == "O":
        flat = arr.reshape(-1)
        k = first_bad_object(flat)
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
    v = plain(flat[k])
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


def as_field(values, field, owner):
    """A 1-D field (a scalar counts as one constraint); 2-D input is an error."""
    arr = read_array(values, field, owner)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise ValueError(
            f"{field_name(owner, field)} must be 1-D, one entry per constraint; got an "
            f"array of shape {arr.shape}."
        )
    return arr


def validate_pairs(i, j, sign, bound, owner):
    """The fields of a pair set, validated: ``(i, j, sign, bound)`` as
    contiguous intp, intp, int8 and float64 arrays of one length.

    The one place where pair constraints are checked (the constructor of
    :class:`PairConstraints` and :func:`check_pairs` call it); ``owner``
    prefixes every message.  The range of the indices against a number of
    samples is :func:`check_pairs`' job.
    """
    def same_row(k):  # a field's flat position is its row
        return k

    i_arr = as_field(i, "i", owner)
    j_arr = as_field(j, "j", owner)
    s_arr = as_field(sign, "sign", owner)
    b_arr = None if bound is None else as_field(bound, "bound", owner)
    lengths = [i_arr.shape[0], j_arr.shape[0], s_arr.shape[0],
               i_arr.shape[0] if b_arr is None else b_arr.shape[0]]
    if len(set(lengths)) != 1:
        got = (f"{lengths[0]}, {lengths[1]} and {lengths[2]}" if b_arr is None else
               f"{lengths[0]}, {lengths[1]}, {lengths[2]} and {lengths[3]}")
        raise ValueError(
            f"{field_name(owner, 'i, j and sign' if b_arr is None else 'i, j, sign and bound')} "
            f"must have the same length (one entry per constraint); got {got}."
        )
    i_arr = np.ascontiguousarray(as_indices(i_arr, "i", owner, same_row))
    j_arr = np.ascontiguousarray(as_indices(j_arr, "j", owner, same_row))
    # (i == j is a pair of length zero, as a pair of two identical points:
    # the learners skip both with one warning that counts them, and hold a
    # dissimilar one to its bound, which it then misses)
    s_arr = as_sign(s_arr, owner)
    n = i_arr.shape[0]
    b_arr = np.full(n, np.nan) if b_arr is None else as_bound(b_arr, owner)
    return i_arr, j_arr, s_arr, b_arr


def as_sign(arr, owner):
    where = field_name(owner, "sign")
    msg = f"{where} must be +1 (similar) or -1 (dissimilar)"
    kind = arr.dtype.kind
    if kind == "b":
        raise TypeError(f"{msg}; got booleans.")
    if kind == "O":
        k = first_bad_object(arr)
        if k is not None:
            raise TypeError(f"{msg}; row {k} has {arr[k]!r}.")
        ok = np.array([v == 1 or v == -1 for v in arr], dtype=bool)
    elif kind in "iuf":
        ok = (arr == 1) | (arr == -1)
    else:
        raise TypeError(f"{msg}; got an array of dtype {arr.dtype}.")
    if not ok.all():
        k = np.flatnonzero(~ok)[0]
        raise ValueError(f"{msg}; row {k} has {plain(arr[k])!r}.")
    return np.ascontiguousarray(arr.astype(np.int8) if kind != "O" else
                                np.array([int(v) for v in arr], dtype=np.int8))


def as_bound(arr, owner):
    where = field_name(owner, "bound")
    kind = arr.dtype.kind
    if kind == "b":
        raise TypeError(f"{where} must hold squared distances (numbers); got booleans.")
    if kind == "O":
        k = first_bad_object(arr)
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
    check_bound_values(b, allow_nan=True, owner=owner)
    return b


def check_bound_values(bound, allow_nan, owner="constraints"):
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


def validate_triplets(t, field, owner):
    """An (m, 3) intp array of triplets; the one place where triplets are
    checked (:class:`TripletConstraints` and :func:`check_triplets`).
    ``None`` or an empty list is no triplet.  A row may repeat a point (a
    pair of it then joins a point to itself): the learners skip what no
    kernel changes, with one warning that counts them."""
    if t is None:
        return np.empty((0, 3), dtype=np.intp)
    arr = read_array(t, field, owner)
    where = field_name(owner, field)
    if arr.size == 0 and arr.shape in ((0,), (0, 3)):
        return np.empty((0, 3), dtype=np.intp)
    if arr.ndim != 2 or arr.shape[1] != 3:
        raise ValueError(
            f"{where} must be an array of shape (n_triplets, 3) with rows i, j, k; "
            f"got shape {arr.shape}."
        )
    tri = as_indices(arr, field, owner, rows=lambda k: f"{k // 3} ({arr[k // 3].tolist()})")
    return np.ascontiguousarray(tri)


def validate_quadruplets(q, field, owner):
    """An (m, 4) intp array of quadruplets ``a, b, c, d`` (each asking
    ``d(a, b) < d(c, d)``); the one place where quadruplets are checked (the
    kernel learners' ``quadruplets=``).  ``None`` or an empty list is no
    quadruplet.  A pair may join a point to itself, and the two pairs may
    be the same: the learners skip what no kernel changes, with one warning
    that counts them."""
    if q is None:
        return np.empty((0, 4), dtype=np.intp)
    arr = read_array(q, field, owner)
    where = field_name(owner, field)
    if arr.size == 0 and arr.shape in ((0,), (0, 4)):
        return np.empty((0, 4), dtype=np.intp)
    if arr.ndim != 2 or arr.shape[1] != 4:
        raise ValueError(
            f"{where} must be an array of shape (n_quadruplets, 4) with rows a, b, c, d "
            f"(each asking d(a, b) < d(c, d)); got shape {arr.shape}."
        )
    quad = as_indices(arr, field, owner, rows=lambda k: f"{k // 4} ({arr[k // 4].tolist()})")
    return np.ascontiguousarray(quad)


def as_reals(arr, field, owner, *, low=-np.inf, low_closed=True):
    """A float64 field of finite numbers (above ``low``), or an error naming it."""
    where = field_name(owner, field)
    if arr.dtype.kind == "b" or (arr.dtype.kind == "O" and first_bad_object(arr) is not None):
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
        raise ValueError(f"{where} must hold {what}; row {k} has {plain(out[k])!r}.")
    return out


def as_sense(arr, owner):
    """``sense`` as int8 in {+1, -1, 0}, or an error naming the first bad row."""
    where = field_name(owner, "sense")
    msg = f"{where} must be +1 (<= bound), -1 (>= bound) or 0 (== bound)"
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iufO":
        raise TypeError(f"{msg}; got an array of dtype {arr.dtype}.")
    if arr.dtype.kind == "O" and first_bad_object(arr) is not None:
        raise TypeError(f"{msg}; got {arr[first_bad_object(arr)]!r}.")
    vals = arr.astype(np.float64)
    ok = (vals == 1) | (vals == -1) | (vals == 0)
    if not ok.all():
        k = np.flatnonzero(~ok)[0]
        raise ValueError(f"{msg}; row {k} has {plain(arr[k])!r}.")
    return np.ascontiguousarray(vals.astype(np.int8))


def broadcast_fields(owner, **fields):
    """1-D fields of one length (one-entry fields broadcast), or an error
    naming them.  The common length is that of the fields with other than
    one entry (0 included: empty containers are fine), else 1."""
    arrs = {name: as_field(v, name, owner) for name, v in fields.items()}
    lengths = {a.shape[0] for a in arrs.values()} - {1}
    if len(lengths) > 1:
        got = ", ".join(f"{k}: {v.shape[0]}" for k, v in arrs.items())
        raise ValueError(
            f"{owner}: {', '.join(arrs)} must have one entry per constraint (or "
            f"one for all); got {got}."
        )
    n = lengths.pop() if lengths else 1
    for name, a in arrs.items():
        if a.shape[0] != n:
            arrs[name] = np.repeat(a, n)
    return arrs


def same_row(k):
    return k


def check_linear_matrix(A, c, owner):
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


#: ``sense`` as the user reads it.
_SENSE_TEXT = {1: "<=", -1: ">=", 0: "="}


def validate_relative(i, j, k, l, margin, ratio, equality, measure, owner):  # noqa: E741
    """The fields of a set of relative constraints, validated: a dict with
    ``i, j, k, l`` (intp), ``margin``, ``ratio`` (float64; ratio > 0),
    ``equality`` (bool) and ``measure``, all of one length (one-entry fields
    broadcast).  The one place where relative constraints are checked (the
    constructor of ``RelativeConstraints`` and the fits that consume one)."""
    if not (isinstance(measure, str) and measure in ("distance", "similarity")):
        raise ValueError(f"{owner}: measure must be 'distance' or 'similarity'; got "
                         f"{measure!r}.")
    f = broadcast_fields(owner, i=i, j=j, k=k, l=l, margin=margin, ratio=ratio,
                         equality=equality)
    out = {name: np.ascontiguousarray(as_indices(f[name], name, owner, same_row))
           for name in ("i", "j", "k", "l")}
    out["margin"] = as_reals(f["margin"], "margin", owner)
    out["ratio"] = as_reals(f["ratio"], "ratio", owner, low=0.0, low_closed=False)
    eq = f["equality"]
    if eq.dtype.kind != "b":
        raise TypeError(f"{owner}: equality must hold booleans; got dtype {eq.dtype}.")
    out["equality"] = np.ascontiguousarray(eq)
    out["measure"] = measure
    # (i == j, k == l and a pair compared with itself are rows like any
    # other: a triplet or quadruplet that repeats a point gives them; the
    # engine skips those whose verdict no kernel changes, and counts them)
    return out


def validate_similarity(i, j, sense, bound, owner):
    """The fields of a set of bounds on kernel entries, validated: a dict
    with ``i, j`` (intp), ``sense`` (int8) and ``bound`` (float64, finite),
    of one length.  A diagonal entry ``K(i, i)`` of a positive definite
    kernel is positive: a row asking it to be ``<= b`` or ``= b`` with
    ``b <= 0`` is refused (``>= b`` with ``b <= 0`` always holds)."""
    f = broadcast_fields(owner, i=i, j=j, sense=sense, bound=bound)
    out = {"i": np.ascontiguousarray(as_indices(f["i"], "i", owner, same_row)),
           "j": np.ascontiguousarray(as_indices(f["j"], "j", owner, same_row)),
           "sense": as_sense(f["sense"], owner),
           "bound": as_reals(f["bound"], "bound", owner)}
    bad = np.flatnonzero((out["i"] == out["j"]) & (out["sense"] >= 0) & (out["bound"] <= 0))
    if bad.size:
        k = bad[0]
        raise ValueError(
            f"{owner}: row {k} asks K({out['i'][k]}, {out['i'][k]}) "
            f"{_SENSE_TEXT[int(out['sense'][k])]} {out['bound'][k]:g}; a diagonal entry "
            "of a positive definite kernel is positive (a diagonal entry's bound must be "
            "> 0 unless its sense is -1, >=)."
        )
    return out


def validate_linear(matrices, bound, sense, owner):
    """The fields of a set of general linear constraints, validated:
    ``(matrices, bound, sense)`` with every matrix checked by
    :func:`check_linear_matrix`, ``bound`` float64 (finite) and ``sense``
    int8, one entry per matrix (a single bound or sense serves all)."""
    # one matrix (sparse, 2-D array or a (Z, s) pair) or a sequence of them
    if (sp.issparse(matrices) or isinstance(matrices, tuple)
            or (isinstance(matrices, np.ndarray) and matrices.ndim == 2)):
        matrices = [matrices]
    if not isinstance(matrices, (list, np.ndarray)):
        raise TypeError(f"{owner}: matrices must be a matrix, a (Z, s) pair or a "
                        f"list of them; got a {type(matrices).__name__}.")
    matrices = list(matrices)
    f = broadcast_fields(owner, bound=bound, sense=sense)
    if f["bound"].shape[0] == 1 and len(matrices) != 1:
        f = broadcast_fields(owner, bound=np.repeat(f["bound"], len(matrices)),
                             sense=f["sense"] if f["sense"].shape[0] != 1
                             else np.repeat(f["sense"], len(matrices)))
    if f["bound"].shape[0] != len(matrices):
        raise ValueError(f"{owner}: {len(matrices)} matrices but "
                         f"{f['bound'].shape[0]} bounds.")
    b = as_reals(f["bound"], "bound", owner)
    s = as_sense(f["sense"], owner)
    matrices = [check_linear_matrix(A, c, owner) for c, A in enumerate(matrices)]
    sizes = [A[0].shape[0] if isinstance(A, tuple) else A.shape[0] for A in matrices]
    c = next((c for c, m in enumerate(sizes) if m != sizes[0]), None)
    if c is not None:
        raise ValueError(f"{owner}: matrix {c} acts on {sizes[c]} samples but matrix 0 "
                         f"on {sizes[0]}; every matrix is n x n for the same n.")
    return matrices, b, s


def empty_error(name, what, alternative=""):
    """The one error of a fit given constraints that hold none."""
    return ValueError(
        f"{name} is empty: {what} holds no constraint, and a fit given constraints "
        f"needs at least one{alternative}."
    )
