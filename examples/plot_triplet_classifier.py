"""
Relative comparisons as samples: TripletClassifier
==================================================

:class:`~sklearn_bregman.TripletClassifier` treats each relative comparison
"a is closer to b than to c" as one sample: ``fit`` learns a kernel from the
training triplets (here with :class:`~sklearn_bregman.SKLRClusterer`, the
semi-supervised kernel learning of Amid, Gionis & Ukkonen, 2016, Sections 4
and 5), and ``score`` is the fraction of held-out comparisons that the
learned distance orders correctly.

Data: scikit-learn's wine (178 samples, standardised).  The samples are
split in two halves; training triplets "two wines of one cultivar, the odd
one out from another" are drawn among the first half only, test triplets
among the second half only, so no test comparison involves a point a
training comparison has seen.  All 178 points are in the learned kernel
(``preprocessor=X``): SKLR is semi-supervised.
"""

# %%
# Triplets from labels
# --------------------

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_wine
from sklearn.decomposition import PCA
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from sklearn_bregman import SKLRClusterer, TripletClassifier
from sklearn_bregman.constraints import triplets_from_labels

X, y = load_wine(return_X_y=True)
X = StandardScaler().fit_transform(X)
train, test = train_test_split(np.arange(len(y)), test_size=0.5, stratify=y, random_state=0)
y_train, y_test = np.full_like(y, -1), np.full_like(y, -1)
y_train[train], y_test[test] = y[train], y[test]
T_train = triplets_from_labels(y_train, 800, random_state=0)
T_test = triplets_from_labels(y_test, 2000, random_state=1)


def euclidean_score(T):
    """Fraction of triplets (a, b | c) with d(a, b) < d(a, c) in the features."""
    d_ab = ((X[T[:, 0]] - X[T[:, 1]]) ** 2).sum(1)
    d_ac = ((X[T[:, 0]] - X[T[:, 2]]) ** 2).sum(1)
    return float(np.mean(d_ab < d_ac))


print(f"held-out triplets ordered correctly by the Euclidean distance: "
      f"{euclidean_score(T_test):.3f}")

# %%
# Held-out accuracy against the number of training triplets
# ---------------------------------------------------------

N_TRIPLETS = [25, 50, 100, 200, 400, 800]
scores = []
for m in N_TRIPLETS:
    clf = TripletClassifier(SKLRClusterer(n_clusters=3, random_state=0), preprocessor=X)
    clf.fit(T_train[:m])
    scores.append(clf.score(T_test))
    print(f"{m:4d} training triplets: held-out accuracy {scores[-1]:.3f}")

# %%
# The figure
# ----------
# Left: the held-out accuracy.  Middle and right: the first two principal
# components of the standardised features and of the kernel learned from
# 800 triplets (``estimator_.embedding_``), test points filled, training
# points hollow.

embedding = clf.estimator_.embedding_
fig, axes = plt.subplots(1, 3, figsize=(14, 4.2), constrained_layout=True)
axes[0].plot(N_TRIPLETS, scores, marker="o", label="TripletClassifier(SKLRClusterer)")
axes[0].axhline(euclidean_score(T_test), color="gray", ls="--", label="Euclidean")
axes[0].set_xscale("log")
axes[0].set_xticks(N_TRIPLETS, [str(m) for m in N_TRIPLETS])
axes[0].minorticks_off()
axes[0].set_xlabel("training triplets")
axes[0].set_ylabel("held-out triplets ordered correctly")
axes[0].set_ylim(0.85, 1.0)
axes[0].grid(alpha=0.3)
axes[0].legend(loc="lower right")
for ax, Z, title in [(axes[1], X, "standardised features"),
                     (axes[2], embedding, "learned kernel (800 triplets)")]:
    P = PCA(2).fit_transform(Z)
    for c in np.unique(y):
        ax.scatter(*P[test][y[test] == c].T, color=f"C{c}", s=15, label=f"cultivar {c}")
        ax.scatter(*P[train][y[train] == c].T, facecolors="none", edgecolors=f"C{c}", s=15)
    ax.set_title(f"PCA of the {title}")
    ax.set_xticks([])
    ax.set_yticks([])
axes[1].legend()
fig.suptitle("wine: relative comparisons learned by SKLR, scored on unseen points")
plt.show()

# %%
# Takeaway: a few dozen comparisons among the training half already order
# the comparisons among unseen points better than the Euclidean distance.

print(f"Euclidean {euclidean_score(T_test):.3f} -> learned from {N_TRIPLETS[-1]} triplets "
      f"{scores[-1]:.3f}")
