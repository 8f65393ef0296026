"""
Relative constraints against pairs, same learner, same number of constraints
============================================================================

JMLR 2009, Section 6.2.2: besides distance bounds on pairs, the LogDet
kernel learner takes relative comparisons ``ratio * d(i, j) <= d(i, k)``
("i is closer to j, of its class, than to k, of another class"), each a
rank-two projection in O(r^2).  A relative constraint needs no bound: it
asks for an order, not for a distance, so it does not depend on the
'relative' / 'percentile' rules that set the pairs' bounds.

Data: 600 handwritten digits of scikit-learn's ``load_digits`` (10 classes,
64 pixels, standardised).  Initial kernel: Gaussian (``gamma=0.02``), rank 40.
For each number of constraints, each of three stratified 50/50 splits draws
that many constraints from the training labels only, either pairs
(``label_constraints='pairs'``: half same-class, half different-class, the
'relative' bounds of Section 7.1) or relative rows
(``label_constraints='relative'``, ``ratio=4``); both with ``slack=10``.
Two held-out figures are measured on the other half:

- triplet accuracy: the share of 2,000 held-out triplets (i, j of one class,
  k of another) with d(i, j) < d(i, k) in the learned embedding;
- 5-NN accuracy on the learned embedding (training half as the reference).

Dotted lines: the initial kernel (no learning).

Run: ``python examples/plot_relative_constraints.py`` (about 15 s on two
cores); it prints the table and saves ``relative_constraints.png`` next to
this script.
"""

# %%
# Imports and the experiment's settings.

import warnings
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler

from sklearn_bregman import LogDetKernelLearner
from sklearn_bregman.constraints import triplets_from_labels

N_CONSTRAINTS = [50, 100, 200, 400, 800]
KINDS = {"pairs": "pairs (distance bounds)", "relative": "relative (ratio 4)"}

try:  # the PNG goes next to the script
    HERE = Path(__file__).parent
except NameError:  # sphinx-gallery: no __file__, run from the script's directory
    HERE = Path.cwd()


# %%
# The experiment: ``main`` computes the scores, prints them and draws the
# figure.


def triplet_accuracy(Z, T):
    d_ij = ((Z[T[:, 0]] - Z[T[:, 1]]) ** 2).sum(1)
    d_ik = ((Z[T[:, 0]] - Z[T[:, 2]]) ** 2).sum(1)
    return float(np.mean(d_ij < d_ik))


def scores(Z_train, y_train, Z_test, y_test, T):
    knn = KNeighborsClassifier(5).fit(Z_train, y_train)
    return triplet_accuracy(Z_test, T), knn.score(Z_test, y_test)


def main():
    X, y = load_digits(return_X_y=True)
    idx = np.random.default_rng(0).choice(len(X), 600, replace=False)
    X, y = StandardScaler().fit_transform(X[idx]), y[idx]
    splits = list(StratifiedShuffleSplit(3, test_size=0.5, random_state=0).split(X, y))
    results = {kind: np.zeros((len(N_CONSTRAINTS), 2)) for kind in KINDS}
    base = np.zeros(2)
    for s, (tr, te) in enumerate(splits):
        T = triplets_from_labels(y[te], 2000, random_state=s)
        for c, nc in enumerate(N_CONSTRAINTS):
            for kind in KINDS:
                learner = LogDetKernelLearner(
                    kernel="rbf", gamma=0.02, rank=40, label_constraints=kind,
                    n_constraints=nc, ratio=4.0, slack=10.0, random_state=s,
                )
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    learner.fit(X[tr], y[tr])
                results[kind][c] += scores(learner.transform(X[tr]), y[tr],
                                           learner.transform(X[te]), y[te], T)
        phi = learner.factor_
        base += scores(phi.transform(X[tr]), y[tr], phi.transform(X[te]), y[te], T)
    for kind in KINDS:
        results[kind] /= len(splits)
    base /= len(splits)

    print("constraints   triplet accuracy (pairs / relative)   5-NN accuracy "
          "(pairs / relative)")
    for c, nc in enumerate(N_CONSTRAINTS):
        p, r = results["pairs"][c], results["relative"][c]
        print(f"{nc:11d}   {p[0]:.3f} / {r[0]:.3f}{'':21s}{p[1]:.3f} / {r[1]:.3f}")
    print(f"initial kernel: triplet accuracy {base[0]:.3f}, 5-NN accuracy {base[1]:.3f}")

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), constrained_layout=True)
    for ax, k, title in zip(axes, range(2), ["held-out triplet accuracy",
                                            "held-out 5-NN accuracy"]):
        for kind, label in KINDS.items():
            ax.plot(N_CONSTRAINTS, results[kind][:, k], "o-", label=label)
        ax.axhline(base[k], ls=":", c="gray", label="initial kernel")
        ax.set_xscale("log")
        ax.set_xticks(N_CONSTRAINTS, [str(n) for n in N_CONSTRAINTS])
        ax.minorticks_off()
        ax.set_xlabel("constraints drawn from the training labels")
        ax.set_title(title)
        ax.grid(alpha=0.3)
    axes[0].legend()
    fig.suptitle("LogDetKernelLearner on digits: relative constraints vs pairs "
                 "(JMLR 2009, §6.2.2)")
    out = HERE / "relative_constraints.png"
    fig.savefig(out, dpi=110)
    print(f"saved {out}")
    plt.show()


# %%
# Run it: the numbers are printed and the figure drawn (and saved next to
# the script as a PNG).

if __name__ == "__main__":
    main()
