"""
k-NN accuracy against the number of labelled images: Euclidean vs ITML
======================================================================

For a growing labelled training set drawn from scikit-learn's digits, a
1-NN classifier is tested on the remaining images with the Euclidean
distance and with the Mahalanobis distance that ITMLTransformer learns from
the same labels (slack chosen by 3-fold CV on the training part).  Each point
is the mean over three random splits; the figure is saved next to this file
as ``itml_learning_curve.png``.

Run: ``python examples/plot_itml_learning_curve.py`` (about a minute).
"""

# %%
# Imports and the experiment's settings.

import os
import warnings

import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline

from sklearn_bregman import ITMLTransformer

N_TRAIN = [50, 100, 200, 400, 800]
SEEDS = [0, 1, 2]

try:  # the PNG goes next to the script
    HERE = os.path.dirname(os.path.abspath(__file__))
except NameError:  # sphinx-gallery: no __file__, run from the script's directory
    HERE = os.getcwd()


# %%
# The experiment: ``main`` computes the scores, prints them and draws the
# figure.


def main():
    X, y = load_digits(return_X_y=True)
    euclid = np.zeros((len(N_TRAIN), len(SEEDS)))
    itml = np.zeros_like(euclid)
    for a, n_train in enumerate(N_TRAIN):
        for b, seed in enumerate(SEEDS):
            X_tr, X_te, y_tr, y_te = train_test_split(
                X, y, train_size=n_train, stratify=y, random_state=seed)
            knn = KNeighborsClassifier(n_neighbors=1)
            euclid[a, b] = knn.fit(X_tr, y_tr).score(X_te, y_te)
            pipe = Pipeline([("itml", ITMLTransformer(random_state=seed)),
                             ("knn", KNeighborsClassifier(n_neighbors=1))])
            search = GridSearchCV(pipe, {"itml__slack": [0.1, 1.0, 10.0]}, cv=3)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                search.fit(X_tr, y_tr)
            itml[a, b] = search.score(X_te, y_te)
        print(f"n_train={n_train:4d}  1-NN accuracy  Euclidean {euclid[a].mean():.4f}  "
              f"ITML {itml[a].mean():.4f}")

    fig, ax = plt.subplots(figsize=(6, 4))
    for acc, label, marker in [(euclid, "Euclidean", "o"), (itml, "ITML (learned)", "s")]:
        ax.errorbar(N_TRAIN, acc.mean(1), yerr=acc.std(1), marker=marker, capsize=3,
                    label=label)
    ax.set_xscale("log")
    ax.set_xticks(N_TRAIN, [str(n) for n in N_TRAIN])
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("labelled training images")
    ax.set_ylabel("1-NN test accuracy")
    ax.set_title("digits: metric learned from labels by ITML")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    out = os.path.join(HERE, "itml_learning_curve.png")
    fig.savefig(out, dpi=120)
    print(f"saved {out}")
    plt.show()


# %%
# Run it: the numbers are printed and the figure drawn (and saved next to
# the script as a PNG).

if __name__ == "__main__":
    main()
