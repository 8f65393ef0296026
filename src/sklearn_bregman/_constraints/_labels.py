"""Class labels, and the random pairs and triplets drawn from them.

What :func:`~sklearn_bregman.constraints.pairs_from_labels`,
:func:`~sklearn_bregman.constraints.triplets_from_labels`,
:func:`~sklearn_bregman.constraints.equal_triplets_from_labels` and
:func:`~sklearn_bregman.constraints.relative_from_labels` (which validate
their parameters and wrap the results in containers) and the estimators'
fits (whose parameters are valid) share: the checks of the labels, the
samplers, and a :class:`LabelIndex` that says where the labeled samples of
each class are (for labels in memory; ``sklearn_bregman._data._dask`` has the
same index for labels in a dask array).  Everything here returns plain
index arrays.
"""

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets

from .._utils._warnings import column_or_1d, warn

__all__ = ["LABEL_DRAW_MAX_CONSTRAINTS", "LabelIndex", "check_labels",
           "draw_label_pairs", "equal_triplets", "encode_labels", "n_equal_triplets",
           "outlier_triplets"]

#: Most pairs or triplets one draw from labels returns.  The result alone
#: takes 16-25 bytes a row and the draw several times that (candidates, the
#: sort that makes them distinct): 10**7 rows stay near a GB.  A larger
#: request (after capping it by the rows that exist) is refused before any
#: work, naming the parameter; so is the default 40 c^2 when y has so many
#: classes that it exceeds this (c > 500): the caller then chooses a count.
LABEL_DRAW_MAX_CONSTRAINTS = 10**7


def _check_draw_size(asked, effective, param, what, n_classes):
    """Refuse a draw of more than ``LABEL_DRAW_MAX_CONSTRAINTS`` rows.

    ``asked`` is the caller's count (None: the default 40 c^2), ``effective``
    the rows that would be returned (capped by the rows that exist).
    """
    if effective <= LABEL_DRAW_MAX_CONSTRAINTS:
        return
    if asked is None:
        raise ValueError(
            f"{param}=None draws the default 40 c^2 = {40 * n_classes**2} {what} for "
            f"the c={n_classes} classes of y, more than the "
            f"{LABEL_DRAW_MAX_CONSTRAINTS} a draw from labels returns "
            f"(LABEL_DRAW_MAX_CONSTRAINTS); pass {param} (at most "
            f"{LABEL_DRAW_MAX_CONSTRAINTS})."
        )
    raise ValueError(
        f"{param}={asked} asks for {effective} {what} (of those y admits), more than "
        f"the {LABEL_DRAW_MAX_CONSTRAINTS} a draw from labels returns "
        f"(LABEL_DRAW_MAX_CONSTRAINTS); pass {param} <= {LABEL_DRAW_MAX_CONSTRAINTS}."
    )


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


def check_labels(y, n_samples):
    """Class labels ``y`` as a 1-D array of ``n_samples`` entries, or an error."""
    y = column_or_1d(y)
    if y.shape[0] != n_samples:
        raise ValueError(f"y has {len(y)} entries but X has {n_samples} samples.")
    return y


def encode_labels(y, unlabeled):
    """Validated labels: ``(y, idx, classes, y_enc)`` with ``idx`` the labeled
    samples, ``classes`` their distinct labels and ``y_enc`` their codes."""
    y = column_or_1d(y)
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        # (before scikit-learn's check, which casts them to int: a RuntimeWarning)
        k = int(np.flatnonzero(~np.isfinite(y))[0])
        raise ValueError(f"Input y contains {'NaN' if np.isnan(y[k]) else 'infinity'} "
                         f"(sample {k}); class labels are finite.")
    try:
        check_classification_targets(y)
    except ValueError as exc:  # ("Unknown label type: unknown" names nothing)
        raise ValueError(f"y must hold class labels (integers or strings), one per "
                         f"sample; {exc}") from None
    n = y.shape[0]
    if unlabeled is None:
        labeled = np.ones(n, dtype=bool)
    else:
        labeled = y != unlabeled
        present = set(np.unique(y).tolist())
        if present == {-1, 1} and unlabeled == -1:
            warn("y holds only the labels -1 and 1, and -1 marks unlabeled samples "
                 "(unlabeled=-1): the samples labelled -1 get no constraint. If -1 is "
                 "a class, pass unlabeled=None.")
    idx = np.flatnonzero(labeled)
    classes, y_enc = np.unique(y[idx], return_inverse=True)
    return y, idx, classes, y_enc


class LabelIndex:
    """Where the labeled samples of each class are, for drawing pairs from labels.

    The in-memory case; :class:`sklearn_bregman._data._dask.DaskLabelIndex` answers
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

    def __init__(self, y, unlabeled):
        y, idx, classes, y_enc = encode_labels(y, unlabeled)
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


def draw_label_pairs(labels, n_constraints, rng, param="n_constraints"):
    """Pairs drawn from the labels of a :class:`LabelIndex` (or of its dask
    counterpart): same-class pairs and different-class pairs, half each.

    More than ``LABEL_DRAW_MAX_CONSTRAINTS`` pairs (after capping by the
    pairs that exist) are refused with a ValueError naming ``param``, before
    any work.

    Returns the fields ``(i, j, sign)`` of a pair set (intp, intp, int8;
    distinct pairs, shuffled), for a container to wrap.
    """
    n = labels.n
    classes, counts = labels.classes, labels.counts
    n_classes = classes.shape[0]
    if n_classes < 2:
        what = "no labeled sample" if n_classes == 0 else f"one class ({classes[0]!r})"
        raise ValueError(
            f"y has {what} among the labeled samples; pair constraints from labels "
            "need at least two classes."
        )
    asked = n_constraints
    if n_constraints is None:
        n_constraints = 40 * n_classes**2

    n_lab = int(counts.sum())
    same_per_class = counts * (counts - 1) // 2
    n_same_avail = int(same_per_class.sum())
    n_diff_avail = int((n_lab * n_lab - int((counts**2).sum())) // 2)

    n_same = min((n_constraints + 1) // 2, n_same_avail)
    n_diff = min(n_constraints - n_same, n_diff_avail)
    n_same = min(n_constraints - n_diff, n_same_avail)
    _check_draw_size(asked, n_same + n_diff, param, "pairs", n_classes)

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
        # Every pair (a, b), a < b, of labeled positions of different classes,
        # in the order of np.triu_indices(n_lab) (so the pick is that of a
        # listing of all pairs) but built in O(n_diff_avail), not O(n_lab^2):
        # each position pairs with the positions of the later classes.
        idx, y_enc = labels.all_labeled()
        order = np.argsort(y_enc, kind="stable")
        start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        reps = n_lab - start[1:][y_enc[order]]
        s = np.repeat(np.arange(n_lab), reps)
        t = np.arange(s.shape[0]) - np.repeat(np.cumsum(reps) - reps, reps) \
            + np.repeat(start[1:][y_enc[order]], reps)
        p, q = order[s], order[t]
        a, b = np.minimum(p, q), np.maximum(p, q)
        keep = np.argsort(_encode(a, b, n_lab), kind="stable")
        return idx[a[keep]], idx[b[keep]]

    si, sj = _sample_pairs(rng, n_same, n_same_avail, draw_same, all_same, n)
    di, dj = _sample_pairs(rng, n_diff, n_diff_avail, draw_diff, all_diff, n)
    i = np.concatenate([si, di])
    j = np.concatenate([sj, dj])
    sign = np.concatenate([np.ones(si.size, np.int8), -np.ones(di.size, np.int8)])
    perm = rng.permutation(i.size)
    return i[perm], j[perm], sign[perm]


def n_equal_triplets(counts):
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


def outlier_triplets(y, n_triplets=None, *, coarse=None, unlabeled=-1, random_state=None,
                     param="n_triplets"):
    """:func:`~sklearn_bregman.constraints.triplets_from_labels` without its
    parameter validation, for callers whose parameters are valid (the
    estimators validate theirs in ``fit``): an (m, 3) intp array.

    More than ``LABEL_DRAW_MAX_CONSTRAINTS`` triplets (after capping by the
    triplets that exist) are refused with a ValueError naming ``param``
    (the caller's name of ``n_triplets``), before any draw.
    """
    rng = check_random_state(random_state)
    y, idx, classes, y_enc = encode_labels(y, unlabeled)
    if classes.shape[0] < 2:
        what = "no labeled sample" if classes.shape[0] == 0 else f"one class ({classes[0]!r})"
        raise ValueError(
            f"y has {what} among the labeled samples; outlier triplets from labels "
            "need at least two classes."
        )
    asked = n_triplets
    if n_triplets is None:
        n_triplets = 40 * classes.shape[0] ** 2
    levels = [(y_enc, classes.shape[0])]
    if coarse is not None:
        coarse = column_or_1d(coarse, input_name="coarse")
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
    available = 0
    for codes, n_codes in levels:
        c = np.bincount(codes, minlength=n_codes).astype(np.float64)
        available += float((c * (c - 1) / 2 * (c.sum() - c)).sum())
    _check_draw_size(asked, min(int(n_triplets), available), param, "triplets",
                     classes.shape[0])
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


def equal_triplets(y, n_triplets, *, mode="mixed", unlabeled=-1, random_state=None):
    """:func:`~sklearn_bregman.constraints.equal_triplets_from_labels` without
    its parameter validation, for callers whose parameters are valid: an
    (m, 3) intp array (more than ``LABEL_DRAW_MAX_CONSTRAINTS`` triplets,
    after capping by those that exist, are refused).
    """
    rng = check_random_state(random_state)
    y, idx, classes, y_enc = encode_labels(y, unlabeled)
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
    n_same_avail, n_diff_avail = n_equal_triplets(counts)
    n_same = n_diff = 0
    if mode == "same":
        n_same = min(int(n_triplets), n_same_avail)
    elif mode == "different":
        n_diff = min(int(n_triplets), n_diff_avail)
    else:  # half each; one kind takes over what the other cannot supply
        n_same = min((int(n_triplets) + 1) // 2, n_same_avail)
        n_diff = min(int(n_triplets) - n_same, n_diff_avail)
        n_same = min(int(n_triplets) - n_diff, n_same_avail)
    # (before any list or draw; the listings below are O(available) and only
    # taken when at most twice the wanted count is available)
    _check_draw_size(n_triplets, n_same + n_diff, "n_triplets", "triplets",
                     classes.shape[0])

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
