"""
Kernel k-means NMI against the number of constraints (JMLR 2009, Figure 1)
==========================================================================

The paper's Figure 1 clusters a 3-class subset of Pendigits with kernel
k-means on a kernel learned from an increasing number of pair constraints.
Here the stand-in is scikit-learn's digits restricted to 3, 8 and 9 (537
images, 64 pixels): LogDetKernelLearner learns from the linear kernel with
constraints drawn from the labels (relative bounds, epsilon = 0.25), then
KernelKMeans clusters every image with the learned kernel, and the
normalised mutual information with the true digits is averaged over five
draws of the constraints.  The initial kernel's NMI is the flat line.

Run: ``python examples/plot_kernel_kmeans_constraints.py`` (about 15 s); the
figure is saved next to this file as ``kernel_kmeans_constraints.png``.
"""

# %%
# Imports and the experiment's settings.

import os
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import normalized_mutual_info_score

from sklearn_bregman import (
    KernelKMeans,
    LogDetKernelLearner,
)

N_CONSTRAINTS = [10, 20, 50, 100, 200, 400, 800, 1600]
SLACKS = [1.0, 10.0, np.inf]
SEEDS = range(5)

try:  # the PNG goes next to the script
    HERE = os.path.dirname(os.path.abspath(__file__))
except NameError:  # sphinx-gallery: no __file__, run from the script's directory
    HERE = os.getcwd()


# %%
# The experiment: ``main`` computes the scores, prints them and draws the
# figure.


def main():
    X, y = load_digits(return_X_y=True)
    keep = np.isin(y, [3, 8, 9])
    X, y = X[keep], y[keep]

    def nmi(Z, seed):
        labels = KernelKMeans(n_clusters=3, kernel="linear", random_state=seed).fit_predict(Z)
        return normalized_mutual_info_score(y, labels)

    initial = np.mean([nmi(X, seed) for seed in SEEDS])
    print(f"initial linear kernel: NMI {initial:.3f}")
    curves = {}
    for slack in SLACKS:
        curve = []
        for n_constraints in N_CONSTRAINTS:
            scores = []
            for seed in SEEDS:
                learner = LogDetKernelLearner(kernel="linear", n_constraints=n_constraints,
                                              slack=slack, random_state=seed)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    learner.fit(X, y)
                # kernel k-means with the learned kernel K = E E' is k-means on E
                scores.append(nmi(learner.embedding_, seed))
            curve.append(np.mean(scores))
        curves[slack] = curve
        print(f"slack={slack}: " + ", ".join(
            f"{n}: {s:.3f}" for n, s in zip(N_CONSTRAINTS, curve)))

    fig, ax = plt.subplots(figsize=(6, 4))
    for slack, curve in curves.items():
        label = "LogDet, hard constraints" if np.isinf(slack) else f"LogDet, slack {slack:g}"
        ax.plot(N_CONSTRAINTS, curve, marker="o", label=label)
    ax.axhline(initial, color="gray", linestyle="--", label="initial linear kernel")
    ax.set_xscale("log")
    ax.set_xlabel("number of constraints")
    ax.set_ylabel("kernel k-means NMI")
    ax.set_title("digits 3 / 8 / 9: clustering with a learned kernel")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    out = os.path.join(HERE, "kernel_kmeans_constraints.png")
    fig.savefig(out, dpi=120)
    print(f"saved {out}")
    plt.show()


# %%
# Run it: the numbers are printed and the figure drawn (and saved next to
# the script as a PNG).

if __name__ == "__main__":
    main()
