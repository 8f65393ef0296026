"""
Labels arriving in batches: partial_fit against refitting from scratch
======================================================================

scikit-learn's breast cancer data (30 standardised features) arrive in 8
batches of 50 labelled tumours; after each batch, a 1-NN classifier on the
tumours seen so far is tested on 169 held-out ones in the metric learned
so far.  Three ways to keep the metric current:

- **refit**: ``ITMLTransformer.fit`` from scratch on the union of the pair
  constraints drawn from every batch so far;
- **partial_fit**: ``ITMLTransformer.partial_fit`` on each batch, every
  constraint kept: each call warm-starts from the current metric and duals
  and ends at the optimum of the union (the same metric as the refit, to the
  tolerance);
- **partial_fit, window**: ``max_constraints=300``: the last 300 constraints
  are swept, older ones live on, frozen, in the metric.

Left: held-out accuracy after each batch (Euclidean 1-NN for reference);
right: the time spent so far.  The figure is saved next to this file as
``partial_fit_stream.png``.

Run: ``python examples/plot_partial_fit_stream.py`` (a few seconds).
"""

# %%
# The stream and the three learners.

import os
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler

from sklearn_bregman import ITMLTransformer

try:  # the PNG goes next to the script
    HERE = os.path.dirname(os.path.abspath(__file__))
except NameError:  # sphinx-gallery: no __file__, run from the script's directory
    HERE = os.getcwd()

warnings.simplefilter("ignore", ConvergenceWarning)
X, y = load_breast_cancer(return_X_y=True)
X = StandardScaler().fit_transform(X)
order = np.random.RandomState(0).permutation(len(X))
X, y = X[order], y[order]
X_test, y_test = X[400:], y[400:]
batches = np.array_split(np.arange(400), 8)
N = len(batches)


def accuracy(transform, seen):
    knn = KNeighborsClassifier(1).fit(transform(X[seen]), y[seen])
    return knn.score(transform(X_test), y_test)


stream = ITMLTransformer(n_constraints=100, random_state=0)
window = ITMLTransformer(n_constraints=100, max_constraints=300, random_state=0)
curves = {name: ([], [], 0.0) for name in ("refit", "partial_fit", "window", "euclidean")}
union = []

for k, batch in enumerate(batches, 1):
    seen = np.concatenate(batches[:k])
    t0 = time.perf_counter()
    stream.partial_fit(X[batch], y[batch])
    t_stream = time.perf_counter() - t0
    c = stream.constraints_
    union.append(np.c_[batch[c.i], batch[c.j], c.sign, c.bound])
    t0 = time.perf_counter()
    refit = ITMLTransformer(random_state=0).fit(X, constraints=np.vstack(union))
    t_refit = time.perf_counter() - t0
    t0 = time.perf_counter()
    window.partial_fit(X[batch], y[batch])
    t_window = time.perf_counter() - t0
    for name, est, t in [("refit", refit, t_refit), ("partial_fit", stream, t_stream),
                         ("window", window, t_window)]:
        acc, times, total = curves[name]
        acc.append(accuracy(est.transform, seen))
        times.append(total + t)
        curves[name] = (acc, times, total + t)
    curves["euclidean"][0].append(accuracy(lambda Z: Z, seen))

# %%
# What each way reached, and what it cost.

for name in ("refit", "partial_fit", "window"):
    acc, times, _ = curves[name]
    print(f"{name:>12}: accuracy after {N} batches {acc[-1]:.3f}, "
          f"time of the whole stream {times[-1]:.2f} s")
print(f"{'euclidean':>12}: accuracy after {N} batches {curves['euclidean'][0][-1]:.3f}")
print(f"same metric as the refit: max |A_stream - A_refit| / max |A_refit| = "
      f"{np.abs(stream.metric_ - refit.metric_).max() / np.abs(refit.metric_).max():.1e}")

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
n = np.arange(1, N + 1)
styles = {"refit": "o-", "partial_fit": "s--", "window": "^-", "euclidean": "k:"}
labels = {"refit": "refit on the union", "partial_fit": "partial_fit (all kept)",
          "window": "partial_fit, max_constraints=300", "euclidean": "Euclidean"}
for name, style in styles.items():
    ax1.plot(n, curves[name][0], style, label=labels[name])
    if name != "euclidean":
        ax2.plot(n, curves[name][1], style, label=labels[name])
ax1.set(xlabel="batches of 50 labelled tumours", ylabel="held-out 1-NN accuracy")
ax2.set(xlabel="batches of 50 labelled tumours", ylabel="time so far (s)")
ax1.legend()
ax2.legend()
fig.tight_layout()
fig.savefig(os.path.join(HERE, "partial_fit_stream.png"), dpi=100)
