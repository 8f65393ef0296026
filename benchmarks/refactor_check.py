"""Fitted models before and after a refactor: the same fits, array by array.

A change that moves code (issue 33's rule: models bitwise or to rounding
equal before and after) is checked by fitting a fixed set of models (every
learner, its streams, the pair and triplet classifiers, the nearest
correlation matrix; 40 fits on iris, breast cancer and a perturbed
correlation matrix) on the commit before and on the one after, and comparing
every fitted array.

Usage::

    git worktree add /tmp/before <commit>
    (cd /tmp/before && python setup.py build_ext --inplace)
    PYTHONPATH=/tmp/before/src python benchmarks/refactor_check.py save before.npz
    python benchmarks/refactor_check.py save after.npz
    python benchmarks/refactor_check.py compare before.npz after.npz

``compare`` prints every array that is not bitwise equal with its largest
relative difference, and the count of those that are.
"""

import sys
import warnings

import numpy as np


def fitted_arrays():
    """The fitted arrays (and numbers) of the fixed set of fits, by name."""
    from sklearn.datasets import load_breast_cancer, load_iris
    from sklearn.preprocessing import StandardScaler

    import sklearn_bregman as sb
    from sklearn_bregman.constraints import (
        RelativeConstraints,
        pairs_from_labels,
        triplets_from_labels,
    )

    warnings.simplefilter("ignore")
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    Xb, yb = load_breast_cancer(return_X_y=True)
    Xb = StandardScaler().fit_transform(Xb)[:300]
    yb = yb[:300]
    out = {}

    def keep(name, est, Xt=None):
        for k, v in vars(est).items():
            if k.endswith("_") and not k.startswith("_"):
                if isinstance(v, np.ndarray) and v.dtype.kind in "biuf":
                    out[f"{name}.{k}"] = v
                elif isinstance(v, (int, float, bool, np.number)):
                    out[f"{name}.{k}"] = np.asarray(v)
        if Xt is not None and hasattr(est, "transform"):
            try:
                out[f"{name}.transform"] = np.asarray(est.transform(Xt))
            except Exception as e:  # noqa: BLE001 - recorded, compared by name
                out[f"{name}.transform_error"] = np.array(str(type(e)))

    for cls in (sb.LogDetKernelLearner, sb.VonNeumannKernelLearner):
        n = cls.__name__
        keep(f"{n}.lin", cls(random_state=0).fit(X, y), X[:20])
        keep(f"{n}.rbf", cls(kernel="rbf", rank=20, random_state=0).fit(X, y), X[:20])
        keep(f"{n}.rbf_pct", cls(kernel="rbf", rank=20, bounds="percentile", slack=np.inf,
                                 random_state=0).fit(X, y), X[:20])
        keep(f"{n}.rel", cls(kernel="rbf", rank=15, label_constraints="relative",
                             n_constraints=200, random_state=0).fit(X, y), X[:20])
        t = triplets_from_labels(y, 150, random_state=1)
        keep(f"{n}.trip", cls(kernel="rbf", rank=15, random_state=0).fit(X, triplets=t), X[:20])
        pc = pairs_from_labels(y, 100, random_state=3)
        rc = RelativeConstraints([0, 1, 2], [3, 4, 5], [0, 1, 2], [60, 70, 120], ratio=1.5)
        keep(f"{n}.mixed", cls(kernel="rbf", rank=15, random_state=0).fit(X, constraints=[pc, rc]),
             X[:20])
        # streams
        s = cls(kernel="rbf", rank=15, random_state=0)
        idx = np.random.RandomState(0).permutation(150)
        for b in range(3):
            sel = idx[b * 50:(b + 1) * 50]
            s.partial_fit(X[sel], y[sel])
        keep(f"{n}.stream", s, X[:20])
        s = cls(kernel="rbf", rank=15, random_state=0, max_constraints=300)
        for b in range(3):
            sel = idx[b * 50:(b + 1) * 50]
            s.partial_fit(X[sel], triplets=triplets_from_labels(y[sel], 60, random_state=b))
        keep(f"{n}.rowstream", s, X[:20])
        s = cls(kernel="rbf", rank=15, random_state=0).fit(X, y)
        s.partial_fit(X[idx[:50]], y[idx[:50]])
        keep(f"{n}.after_fit", s, X[:20])

    keep("itml", sb.ITMLTransformer(random_state=0).fit(X, y), X[:20])
    keep("itml_cov", sb.ITMLTransformer(prior="covariance", random_state=0).fit(Xb, yb), Xb[:20])
    s = sb.ITMLTransformer(random_state=0)
    for b in range(3):
        s.partial_fit(X[b::3], y[b::3])
    keep("itml.stream", s, X[:20])
    keep("db", sb.DefiniteBoost(kernel="rbf", rank=10, epsilon=0.05, random_state=0).fit(X, y),
         X[:20])
    s = sb.DefiniteBoost(kernel="rbf", rank=10, random_state=0)
    s.partial_fit(X, y)
    s.partial_fit(X, y)
    keep("db.meg", s, X[:20])
    keep("sklr", sb.SKLRClusterer(n_clusters=3, n_triplets=200, random_state=0).fit(X, y), X[:20])
    keep("csi", sb.CSIDecomposition(kernel="rbf", rank=10, random_state=0).fit(X, y), X[:20])
    keep("kkm", sb.KernelKMeans(n_clusters=3, kernel="rbf", random_state=0).fit(X))
    C = np.corrcoef(Xb[:, :12].T) + 0.05 * np.random.RandomState(0).standard_normal((12, 12))
    C = (C + C.T) / 2
    for div in ("logdet", "vonneumann", "frobenius"):
        keep(f"nc.{div}", sb.NearestCorrelation(divergence=div).fit(C))
    pc = pairs_from_labels(y, 200, random_state=0)
    pairs = np.column_stack([pc.i, pc.j])
    clf = sb.PairClassifier(sb.ITMLTransformer(random_state=0), preprocessor=X).fit(pairs, pc.sign)
    keep("pairclf", clf)
    out["pairclf.df"] = clf.decision_function(pairs)
    clf = sb.PairClassifier(sb.LogDetKernelLearner(kernel="rbf", rank=10, random_state=0),
                            preprocessor=X)
    clf.partial_fit(pairs[:100], pc.sign[:100]).partial_fit(pairs[100:], pc.sign[100:])
    out["pairclf.stream.df"] = clf.decision_function(pairs)
    t = triplets_from_labels(y, 200, random_state=0)
    tclf = sb.TripletClassifier(sb.LogDetKernelLearner(kernel="rbf", rank=10, random_state=0),
                                preprocessor=X).fit(t)
    out["tripclf.df"] = tclf.decision_function(t)
    return out


def compare(before, after):
    """Print what differs between two saved sets; returns the worst relative
    difference (0.0 when every array is bitwise equal)."""
    a, b = np.load(before), np.load(after)
    ka, kb = set(a.files), set(b.files)
    if ka != kb:
        print("only before:", sorted(ka - kb))
        print("only after:", sorted(kb - ka))
    worst, bitwise = 0.0, 0
    for k in sorted(ka & kb):
        x, z = a[k], b[k]
        if x.shape != z.shape:
            print(f"{k}: shape {x.shape} before, {z.shape} after")
            worst = np.inf
            continue
        if x.dtype.kind in "US":
            if not np.array_equal(x, z):
                print(f"{k}: {x} before, {z} after")
            continue
        if np.array_equal(x, z, equal_nan=True):
            bitwise += 1
            continue
        x, z = x.astype(float), z.astype(float)
        d = np.max(np.abs(x - z)) / max(np.max(np.abs(x)), 1e-300)
        worst = max(worst, d)
        print(f"{k}: max relative difference {d:.3g}")
    print(f"{bitwise} of {len(ka & kb)} arrays bitwise equal; worst relative difference "
          f"of the rest {worst:.3g}")
    return worst


if __name__ == "__main__":
    if sys.argv[1:2] == ["save"] and len(sys.argv) == 3:
        arrays = fitted_arrays()
        np.savez(sys.argv[2], **arrays)
        print(len(arrays), "arrays saved to", sys.argv[2])
    elif sys.argv[1:2] == ["compare"] and len(sys.argv) == 4:
        compare(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
