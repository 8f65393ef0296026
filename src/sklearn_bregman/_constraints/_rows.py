"""Constraint containers as rows of the engine (JMLR 2009, Section 6.2.2).

The kernel learners hold the learned kernel as ``K = B X B'`` with ``B`` the
rows of the training points in the engine's coordinates (the initial factor
G0 for LogDet, the orthonormal basis U for von Neumann) and ``X`` r x r.  A
linear constraint ``tr(K A) <= b`` then reads ``tr(X B' A B) <= b``; this
module writes ``B' A B`` of every kind as ``sum_k s_k v_k v_k'`` with signs
``s_k = +-1`` (what the compiled sweeps take):

- pair ``d(i, j)``: ``b_i - b_j`` (+1); rank one;
- relative ``ratio d(i, j) - d(k, l)``: ``sqrt(ratio) (b_i - b_j)`` (+1) and
  ``b_k - b_l`` (-1); rank two;
- relative on kernel entries ``K(k, l) - ratio K(i, j)``:
  ``sqrt(ratio) (b_i - b_j) / 2`` (+1), ``sqrt(ratio) (b_i + b_j) / 2`` (-1),
  ``(b_k + b_l) / 2`` (+1), ``(b_k - b_l) / 2`` (-1); rank four at most;
- kernel entry ``K(i, j)``, ``i != j``: ``(b_i + b_j) / 2`` (+1) and
  ``(b_i - b_j) / 2`` (-1); rank two; on the diagonal ``b_i`` (+1);
- general ``tr(K A)``: the eigenvectors of ``B' A B`` times the square roots
  of the |eigenvalues| (their signs); rank at most r.

A row of sense ``>=`` is negated, and every row is divided by its size at
the start, ``sum_k |s_k| v_k' X0 v_k`` (so one ``tol`` and one ``slack``
serve rows of any scale: relative constraints with no margin have bound 0).
"""

import numpy as np
from scipy import linalg

from .._engine import ZERO_LENGTH_RTOL, LinearRows, max_squared_norm
from ._containers import (
    LinearConstraints,
    PairConstraints,
    RelativeConstraints,
    SimilarityConstraints,
    TripletConstraints,
    check_quadruplets,
    check_triplet_constraints,
    check_triplets,
    triplet_constraints_of_valid,
)
from ._validation import empty_error

#: The kinds a kernel learner takes besides pairs.
ROW_KINDS = (RelativeConstraints, SimilarityConstraints, LinearConstraints,
             TripletConstraints)
#: Eigenvalues of B' A B below this share of the largest are dropped.
EIG_RTOL = 1e-12


def _pair_part(pc, B):
    V = (B[pc.i] - B[pc.j])[:, None, :]
    S = pc.sign.astype(np.int8)[:, None]
    # sign -1 (d >= b) is -d <= -b: S = -1 already negates d
    return V, S, np.ones(len(pc), np.int8), pc.sign * pc.bound, pc.sign.astype(float)


def _relative_part(rc, B):
    sr = np.sqrt(rc.ratio)[:, None]
    if rc.measure == "distance":
        V = np.stack([sr * (B[rc.i] - B[rc.j]), B[rc.k] - B[rc.l]], axis=1)
        S = np.tile(np.array([1, -1], np.int8), (len(rc), 1))
    else:
        # K(k, l) - ratio K(i, j), each entry as a difference of squares
        bi, bj, bk, bl = B[rc.i], B[rc.j], B[rc.k], B[rc.l]
        V = 0.5 * np.stack([sr * (bi - bj), sr * (bi + bj), bk + bl, bk - bl], axis=1)
        S = np.tile(np.array([1, -1, 1, -1], np.int8), (len(rc), 1))
    kind = np.where(rc.equality, 0, 1).astype(np.int8)
    return V, S, kind, -rc.margin, np.ones(len(rc))


def _self_comparisons(rc):
    """Relative rows whose verdict no kernel changes, by their indices: an
    inequality ``ratio d(i, j) - d(k, l) <= -margin`` with ``i == j`` and no
    margin to make (``-d(k, l) <= 0``: holds under every kernel), with
    ``k == l`` and a margin of at least 0 (``ratio d(i, j) <= 0``: under
    none), or comparing a pair with itself (``(ratio - 1) d(i, j)``: holds
    for ``ratio <= 1`` with no margin, never for ``ratio > 1``).  A triplet
    or quadruplet that repeats a point gives them; the engine skips them and
    measures them where they stand.  Rows with a margin that a kernel can
    make or miss stay in the sweep."""
    if rc.measure != "distance":
        return np.zeros(len(rc), dtype=bool)
    zero_ij, zero_kl = rc.i == rc.j, rc.k == rc.l
    same = ((rc.i == rc.k) & (rc.j == rc.l)) | ((rc.i == rc.l) & (rc.j == rc.k))
    ineq = ~rc.equality
    holds = (zero_ij & ~zero_kl & (rc.margin <= 0)) | (
        same & ~zero_ij & (rc.ratio <= 1) & (rc.margin <= 0))
    fails = (zero_kl & ~zero_ij & (rc.margin >= 0)) | (
        same & ~zero_ij & (rc.ratio > 1) & (rc.margin >= 0))
    return ineq & (holds | fails)


def _similarity_part(sc, B):
    bi, bj = B[sc.i], B[sc.j]
    diag = sc.i == sc.j
    V = np.stack([0.5 * (bi + bj), 0.5 * (bi - bj)], axis=1)
    V[diag, 0] = bi[diag]
    V[diag, 1] = 0.0
    flip = np.where(sc.sense < 0, -1.0, 1.0)
    S = (np.array([1, -1], np.int8)[None, :] * flip[:, None]).astype(np.int8)
    S[diag, 1] = 0
    kind = np.where(sc.sense == 0, 0, 1).astype(np.int8)
    return V, S, kind, flip * sc.bound, flip


def _linear_part(lc, B, n):
    r = B.shape[1]
    parts = []
    for c, A in enumerate(lc.matrices):
        if isinstance(A, tuple):
            Z, s = A
            if Z.shape[0] != n:
                raise ValueError(f"constraints: LinearConstraints matrix {c} has "
                                 f"{Z.shape[0]} rows; the training set has {n} samples.")
            Y = B.T @ Z
            C = (Y * s) @ Y.T
        else:
            if A.shape[0] != n:
                raise ValueError(f"constraints: LinearConstraints matrix {c} is "
                                 f"{A.shape[0]} x {A.shape[0]}; the training set has "
                                 f"{n} samples.")
            C = B.T @ np.asarray(A @ B)
        w, E = linalg.eigh(0.5 * (C + C.T))
        keep = np.abs(w) > EIG_RTOL * np.abs(w).max(initial=0.0)
        # (q_c, r) vectors sqrt|w| e and their signs; q_c = 0 for a zero row
        parts.append(((E[:, keep] * np.sqrt(np.abs(w[keep]))).T,
                      np.sign(w[keep]).astype(np.int8)))
    q = max([p[0].shape[0] for p in parts] + [1])
    V = np.zeros((len(lc), q, r))
    S = np.zeros((len(lc), q), np.int8)
    for c, (Vc, Sc) in enumerate(parts):
        V[c, :Vc.shape[0]] = Vc
        S[c, :Sc.shape[0]] = Sc
    flip = np.where(lc.sense < 0, -1.0, 1.0)
    S = (S * flip[:, None]).astype(np.int8)
    kind = np.where(lc.sense == 0, 0, 1).astype(np.int8)
    return V, S, kind, flip * lc.bound, flip


def as_constraint_list(constraints):
    """A list of containers from one container or a list/tuple of them
    (``None`` when ``constraints`` is something else, e.g. pairs as an
    array or an ``(i, j, sign)`` tuple)."""
    kinds = ROW_KINDS + (PairConstraints,)
    if isinstance(constraints, kinds):
        return [constraints]
    if isinstance(constraints, (list, tuple)) and constraints and all(
            isinstance(c, kinds) for c in constraints):
        return list(constraints)
    return None


def _length_of(con):
    """Rows of a validated container (pairs as an array: unknown, None)."""
    return len(con) if isinstance(con, ROW_KINDS + (PairConstraints,)) else None


def constraints_of_fit(constraints, triplets, n_samples, *, quadruplets=None, ratio=1.0):
    """The containers a kernel learner's ``fit`` is given, checked against the data.

    A container was validated by its constructor and is read-only since;
    here its sample indices are checked against ``n_samples`` and the
    matrices of linear constraints against the training set's size (pairs'
    indices by :func:`~sklearn_bregman.constraints.check_pairs`, when their
    bounds are set), with messages that name the parameter
    (``constraints``, ``constraints[k]`` in a list, ``triplets``,
    ``quadruplets``) and the kind; triplets and quadruplets given as arrays
    are validated here, and each quadruplet ``a, b, c, d`` becomes the
    relative row ``ratio d(a, b) <= d(c, d)`` (JMLR 2009, Section 6.2.2) of
    a :class:`RelativeConstraints`, after the triplets.

    One rule for empty containers: an empty container adds no constraint
    (it is left out); when nothing is left, the fit raises the one
    ValueError of :func:`~sklearn_bregman._constraints._validation.empty_error`.

    Parameters
    ----------
    constraints : container, list of containers, array-like or None
    triplets : array-like of shape (n_triplets, 3), TripletConstraints or None
    n_samples : int
    quadruplets : array-like of shape (n_quadruplets, 4) or None, default=None
    ratio : float, default=1.0
        The quadruplets' rows' ratio (the learner's ``ratio``).

    Returns
    -------
    list or None
        The containers (triplets given as an array in a TripletConstraints;
        pairs given as an array or a tuple are passed on as they are:
        :func:`check_pairs` reads them when their bounds are set); ``None``
        when neither argument is given, or pairs alone are given as an array
        (the pair path).
    """
    if isinstance(constraints, (list, tuple)) and len(constraints) == 0:
        raise empty_error("constraints", f"the empty {type(constraints).__name__}")
    con_list = None if constraints is None else as_constraint_list(constraints)
    if con_list is None and triplets is None and quadruplets is None:
        return None
    if con_list is not None:
        listed = isinstance(constraints, (list, tuple))
        items = [(c, f"constraints[{k}]" if listed else "constraints")
                 for k, c in enumerate(con_list)]
    else:
        items = [] if constraints is None else [(constraints, "constraints")]
    if triplets is not None:
        items.append((triplets, "triplets"))
    if quadruplets is not None:
        items.append((quadruplets, "quadruplets"))
    checked = []
    for con, name in items:
        given = (type(con).__name__ if isinstance(con, ROW_KINDS + (PairConstraints,))
                 else "array")
        # (a container was validated when it was built, and is read-only: its
        # indices are checked against the data here, pairs' by check_pairs)
        if name == "quadruplets":
            q = check_quadruplets(con, n_samples, name=name)
            con = RelativeConstraints(q[:, 0], q[:, 1], q[:, 2], q[:, 3], ratio=ratio)
        elif name == "triplets" and not isinstance(con, TripletConstraints):
            con = triplet_constraints_of_valid(check_triplets(con, n_samples, name=name),
                                               np.empty((0, 3), np.intp))
        elif isinstance(con, TripletConstraints):
            con = check_triplet_constraints(con, None, n_samples, name=name)
        elif isinstance(con, ROW_KINDS):
            _check_range(con, name, n_samples)
        checked.append((con, name, given))
    kept = [c for c, _, _ in checked if _length_of(c) != 0]
    if not kept:
        if len(checked) == 1:
            name, what = checked[0][1], f"the {checked[0][2]}"
        else:
            passed = [n for n, v in (("constraints", constraints), ("triplets", triplets),
                                     ("quadruplets", quadruplets)) if v is not None]
            listed = ", ".join(passed[:-1]) + " and " + passed[-1]
            name, what = "constraints", (f"every container given ({listed})"
                                         if len(passed) > 1 else "every container in it")
        raise empty_error(name, what, " (or labels y to draw them from, with "
                                      "constraints=None, triplets=None and "
                                      "quadruplets=None)")
    return kept


def _check_range(con, name, n_samples):
    """The sample indices of a relative or similarity container below
    ``n_samples``, and the matrices of linear constraints n x n."""
    kind = type(con).__name__
    if isinstance(con, LinearConstraints):
        for c, A in enumerate(con.matrices):
            m = A[0].shape[0] if isinstance(A, tuple) else A.shape[0]
            if m != n_samples:
                size = f"has {m} rows" if isinstance(A, tuple) else f"is {m} x {m}"
                raise ValueError(f"{name}: {kind} matrix {c} {size}; the training set "
                                 f"has {n_samples} samples.")
        return
    fields = ({"i": con.i, "j": con.j, "k": con.k, "l": con.l}
              if isinstance(con, RelativeConstraints) else {"i": con.i, "j": con.j})
    for field, idx in fields.items():
        bad = np.flatnonzero(idx >= n_samples)
        if bad.size:
            raise ValueError(
                f"{name}: {kind} index out of range in row {bad[0]} "
                f"({field}={idx[bad[0]]}); indices must lie in "
                f"[0, {n_samples - 1}] for {n_samples} samples."
            )


def build_rows(constraint_list, B, X0, *, triplet_ratio=1.0):
    """The engine's rows of a list of containers.

    Parameters
    ----------
    constraint_list : list
        Containers of the kinds in :data:`ROW_KINDS` and ``PairConstraints``
        (with bounds set).  Triplets become relative rows with ratio
        ``triplet_ratio`` (:meth:`RelativeConstraints.from_triplets`).
    B : ndarray of shape (n, r)
        Rows of the training points in the engine's coordinates.
    X0 : ndarray of shape (r, r)
        The initial state's matrix (not its logarithm): the rows' sizes are
        measured under it.

    Returns
    -------
    LinearRows
    """
    n, r = B.shape
    parts, fixed = [], []
    for con in constraint_list:
        if isinstance(con, TripletConstraints):
            con = RelativeConstraints.from_triplets(con, ratio=triplet_ratio)
        fixed.append(_self_comparisons(con) if isinstance(con, RelativeConstraints)
                     else np.zeros(len(con), dtype=bool))
        if isinstance(con, PairConstraints):
            parts.append(_pair_part(con, B))
        elif isinstance(con, RelativeConstraints):
            parts.append(_relative_part(con, B))
        elif isinstance(con, SimilarityConstraints):
            parts.append(_similarity_part(con, B))
        else:
            parts.append(_linear_part(con, B, n))
    q = max(p[0].shape[1] for p in parts)
    c = sum(p[0].shape[0] for p in parts)
    V = np.zeros((c, q, r))
    S = np.zeros((c, q), np.int8)
    start = 0
    for p in parts:
        m, qp = p[1].shape
        V[start:start + m, :qp] = p[0]
        S[start:start + m, :qp] = p[1]
        start += m
    kind = np.concatenate([p[2] for p in parts]).astype(np.int8)
    bound = np.concatenate([np.asarray(p[3], float) for p in parts])
    flip = np.concatenate([np.asarray(p[4], float) for p in parts])
    # each row's size at the start; rows of no size cannot be moved
    size = np.einsum("cqr,cqr->cq", V @ X0, V)
    size = (np.abs(S) * size).sum(axis=1)
    # as zero_length_pairs: relative to the largest initial kernel diagonal
    L0 = linalg.cholesky(X0, lower=True)
    floor = ZERO_LENGTH_RTOL * max(max_squared_norm(B @ L0), np.finfo(float).tiny)
    skipped = size <= floor
    # rows of both signs can vanish as matrices while their vectors do not
    # (K(i, j) with b_i = 0 is (b_j/2)(b_j/2)' - (b_j/2)(b_j/2)'): no kernel of
    # the range moves them either.  |L0' C L0| from R S R', R of a QR of the
    # row's vectors, so that nothing squared cancels
    mixed = np.flatnonzero((S > 0).any(axis=1) & (S < 0).any(axis=1) & ~skipped)
    for start in range(0, mixed.size, 4096):
        rows_ = mixed[start:start + 4096]
        R = np.linalg.qr(np.swapaxes(V[rows_] @ L0, 1, 2))[1]
        C = np.einsum("cik,ck,cjk->cij", R, S[rows_].astype(float), R)
        skipped[rows_] |= np.sqrt(np.einsum("cij,cij->c", C, C)) <= floor
    scale = np.where(skipped, 1.0, size)
    V /= np.sqrt(scale)[:, None, None]
    return LinearRows(V=np.ascontiguousarray(V), S=np.ascontiguousarray(S), kind=kind,
                      bound=bound / scale, scale=scale, flip=flip, skipped=skipped,
                      fixed=np.concatenate(fixed) & ~skipped)
