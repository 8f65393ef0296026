"""
A kernel for text, learned on sparse TF-IDF rows: SciPy's own documentation
===========================================================================

A real sparse data set that needs no download: the docstrings of the public
functions and classes of nine SciPy subpackages (``fft``, ``integrate``,
``interpolate``, ``linalg``, ``ndimage``, ``optimize``, ``signal``,
``spatial``, ``stats``) as installed with SciPy, one document each, labelled by their
subpackage.  scikit-learn's ``TfidfVectorizer`` turns them into a CSR matrix
(a few thousand words, about 1 % non-zeros), which goes into
``LogDetKernelLearner(kernel='cosine')`` as it is: the cosine kernel's
columns are computed from the sparse rows, and nothing dense of the size of
X is formed.  The learner is fitted on the labels of 60 % of the documents;
the other 40 % are mapped by ``transform`` and classified by their 5
nearest training documents, under the cosine kernel itself and under the
learned kernel.  The exact figures depend on the installed SciPy's
docstrings.  The figure shows the test documents in the first two principal
directions of each kernel's feature space (TruncatedSVD of the TF-IDF rows;
PCA of the learned coordinates) and is saved next to this file as
``sparse_docstrings.png``.

Run: ``python examples/plot_sparse_docstrings.py`` (a few seconds).
"""

# %%
# The documents: every public function and class of each subpackage with a
# docstring of at least 30 words.

import importlib
import inspect
import os
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.decomposition import PCA, TruncatedSVD
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier

from sklearn_bregman import LogDetKernelLearner

SUBPACKAGES = ["fft", "integrate", "interpolate", "linalg", "ndimage", "optimize",
               "signal", "spatial", "stats"]

try:  # the PNG goes next to the script
    HERE = os.path.dirname(os.path.abspath(__file__))
except NameError:  # sphinx-gallery: no __file__, run from the script's directory
    HERE = os.getcwd()

docs, labels, seen = [], [], set()
for k, name in enumerate(SUBPACKAGES):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (deprecated names)
        module = importlib.import_module(f"scipy.{name}")
    for attr in getattr(module, "__all__", dir(module)):
        obj = getattr(module, attr, None)
        doc = inspect.getdoc(obj) if callable(obj) else None
        if attr.startswith("_") or not doc or id(obj) in seen or len(doc.split()) < 30:
            continue
        seen.add(id(obj))
        docs.append(doc)
        labels.append(k)
labels = np.array(labels)
X = TfidfVectorizer(sublinear_tf=True, stop_words="english", min_df=2).fit_transform(docs)
print(f"{X.shape[0]} docstrings, {X.shape[1]} words, CSR with {X.nnz} non-zeros "
      f"({100 * X.nnz / np.prod(X.shape):.2f} %)")
print("per subpackage:", dict(zip(SUBPACKAGES, np.bincount(labels).tolist())))

# %%
# The kernel, learned from the labels of the training documents on the sparse
# rows; new documents mapped by ``transform``.

X_train, X_test, y_train, y_test = train_test_split(X, labels, test_size=0.4,
                                                    stratify=labels, random_state=0)
learner = LogDetKernelLearner(kernel="cosine", rank=min(300, X_train.shape[0]),
                              slack=10.0, random_state=0)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)
    warnings.simplefilter("ignore", UserWarning)  # (pairs of identical documents)
    learner.fit(X_train, y_train)
Z_train, Z_test = learner.transform(X_train), learner.transform(X_test)


def knn(A, B):
    return KNeighborsClassifier(5).fit(A, y_train).score(B, y_test)


# TF-IDF rows have unit norm: Euclidean neighbours are cosine neighbours
acc_cosine = knn(X_train, X_test)
acc_learned = knn(Z_train, Z_test)
print(f"5-NN accuracy on the test docstrings: cosine {acc_cosine:.3f}, "
      f"learned kernel {acc_learned:.3f} (rank {learner.rank_})")

# %%
# The test documents in the first two principal directions of each kernel's
# feature space.

before = TruncatedSVD(2, random_state=0).fit(X_train).transform(X_test)
after = PCA(2, random_state=0).fit(Z_train).transform(Z_test)
fig, axes = plt.subplots(1, 2, figsize=(11, 4.8))
for ax, P, title in [(axes[0], before, f"cosine kernel (5-NN {acc_cosine:.2f})"),
                     (axes[1], after, f"learned kernel (5-NN {acc_learned:.2f})")]:
    for k, name in enumerate(SUBPACKAGES):
        sel = y_test == k
        ax.scatter(P[sel, 0], P[sel, 1], s=10, alpha=0.7, label=f"scipy.{name}")
    ax.set_title(title)
    ax.set_xticks([])
    ax.set_yticks([])
axes[1].legend(fontsize=8, loc="best", markerscale=2)
fig.suptitle("SciPy docstrings, TF-IDF (sparse) -> LogDetKernelLearner(kernel='cosine')")
fig.tight_layout()
fig.savefig(os.path.join(HERE, "sparse_docstrings.png"), dpi=110)
