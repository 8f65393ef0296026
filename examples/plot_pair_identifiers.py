"""
ROC AUC grid search over pairs of file names, through a callable preprocessor
===============================================================================

How metric-learn's users work with judged pairs: the pairs are not arrays of
points but pairs of *identifiers* (file names, database keys), and a
``preprocessor`` turns identifiers into points when they are needed.  Here
scikit-learn's handwritten digits stand for an image store: each of the
1,797 images gets a file name (``"digits/00042.png"``) and a loader (a
callable that "reads" the files it is given, and counts how many it read).
1,500 pairs of file names are drawn from the labels (half the same digit,
half different), split 70 / 30, stratified.

``PairClassifier(ITMLTransformer(), preprocessor=load)`` is tuned by a
3-fold ``GridSearchCV`` on the training pairs over ITML's ``slack``, scored
by the ROC AUC of the held-out fold (``scoring='roc_auc'``: metric-learn's
pair ``score``), and the ROC curves of the test pairs are drawn for the
Euclidean distance of the pixels and for the learned metric.  The loader is
called once per fit or score on the distinct files it needs; the number of
files it read is printed.  The figure is saved next to this file as
``pair_identifiers.png``.

Run: ``python examples/plot_pair_identifiers.py`` (about ten seconds).
"""

# %%
# Imports and the experiment's settings.

import os
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import roc_auc_score, roc_curve
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split

from sklearn_bregman import ITMLTransformer, PairClassifier
from sklearn_bregman.constraints import pairs_from_labels

N_PAIRS = 1500
SLACKS = [0.01, 0.1, 1.0, 10.0]

try:  # the PNG goes next to the script
    HERE = os.path.dirname(os.path.abspath(__file__))
except NameError:  # sphinx-gallery: no __file__, run from the script's directory
    HERE = os.getcwd()


# %%
# The image store: file names, and a loader that returns the pixels of the
# files it is given (one row per name, in order), as a preprocessor must.


class ImageStore:
    """Stands for a directory of images: ``store.load(names)`` "reads" them."""

    def __init__(self, images):
        self.names = np.array([f"digits/{k:05d}.png" for k in range(len(images))])
        pixels = dict(zip(self.names, images / 16.0))
        self.files_read = [0]
        files_read = self.files_read

        # a plain function, not a bound method: scikit-learn's clone deep-copies
        # parameters, and a function is copied as itself (a bound method would
        # take a copy of the store along)
        def load(names):
            files_read[0] += len(names)
            return np.array([pixels[name] for name in names])

        self.load = load


# %%
# The experiment: ``main`` tunes, scores, prints and draws.


def main():
    t_start = time.perf_counter()
    digits = load_digits()
    store = ImageStore(digits.data)
    pc = pairs_from_labels(digits.target, N_PAIRS, random_state=0)
    file_pairs = store.names[np.column_stack([pc.i, pc.j])]  # (n_pairs, 2) strings
    same = np.asarray(pc.sign, dtype=int)
    train, test = train_test_split(np.arange(len(same)), test_size=0.3, random_state=0,
                                   stratify=same)
    print(f"{len(train)} training pairs, e.g. {file_pairs[train[0]].tolist()} "
          f"({'same digit' if same[train[0]] > 0 else 'different digits'})")

    search = GridSearchCV(
        PairClassifier(ITMLTransformer(random_state=0), preprocessor=store.load),
        {"estimator__slack": SLACKS}, scoring="roc_auc",
        cv=StratifiedKFold(3, shuffle=True, random_state=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        search.fit(file_pairs[train], same[train])
    for slack, auc in zip(SLACKS, search.cv_results_["mean_test_score"]):
        print(f"slack {slack:6g}: cross-validated ROC AUC {auc:.4f}")
    print(f"chosen slack {search.best_params_['estimator__slack']:g}; the loader read "
          f"{store.files_read[0]} files over the {len(SLACKS) * 3 + 1} fits and their scoring")

    best = search.best_estimator_
    P = store.load(file_pairs[test].ravel()).reshape(len(test), 2, -1)
    scores = {"Euclidean (pixels)": -((P[:, 0] - P[:, 1]) ** 2).sum(1),
              "ITML (learned)": best.decision_function(file_pairs[test])}

    fig, ax = plt.subplots(figsize=(5.5, 5))
    for name, s in scores.items():
        fpr, tpr, _ = roc_curve(same[test], s)
        auc = roc_auc_score(same[test], s)
        print(f"held-out ROC AUC  {name:20s} {auc:.4f}")
        ax.plot(fpr, tpr, label=f"{name} (AUC {auc:.3f})")
    ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
    ax.set_xlabel("false positive rate (different digits called the same)")
    ax.set_ylabel("true positive rate")
    ax.set_title(f"digits: {len(test)} held-out pairs of file names")
    ax.set_aspect("equal")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    out = os.path.join(HERE, "pair_identifiers.png")
    fig.savefig(out, dpi=120)
    print(f"saved {out}")
    plt.show()
    print(f"run time {time.perf_counter() - t_start:.1f} s")


# %%
# Run it: the numbers are printed and the figure drawn (and saved next to
# the script as a PNG).

if __name__ == "__main__":
    main()
