"""Scorers: usable as GridSearchCV scoring, on suite transformers and pipelines."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.decomposition import PCA
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler

from sklearn_bregman import LogDetKernelLearner
from sklearn_bregman.metrics import kernel_kmeans_scorer, knn_scorer

CV = StratifiedKFold(3, shuffle=True, random_state=0)
SCORERS = [knn_scorer(5), kernel_kmeans_scorer("nmi"), kernel_kmeans_scorer("ari")]


@pytest.mark.parametrize("scorer", SCORERS, ids=repr)
def test_scorer_in_grid_search_over_a_pipeline(scorer):
    X, y = load_iris(return_X_y=True)
    pipe = Pipeline([("sc", StandardScaler()), ("pca", PCA())])
    gs = GridSearchCV(pipe, {"pca__n_components": [1, 3]}, scoring=scorer, cv=CV, n_jobs=2,
                      error_score="raise").fit(X, y)
    assert -1 < gs.best_score_ <= 1


@pytest.mark.parametrize("scorer", SCORERS, ids=repr)
def test_scorer_tunes_a_kernel_learner(scorer):
    X, y = load_iris(return_X_y=True)
    learner = LogDetKernelLearner(kernel="rbf", rank=15, random_state=0)
    gs = GridSearchCV(learner, {"gamma": [0.1, 1.0], "slack": [0.1, 10.0]}, scoring=scorer,
                      cv=CV, n_jobs=2, error_score="raise").fit(X, y)
    assert gs.best_score_ > 0.6
    assert set(gs.best_params_) == {"gamma", "slack"}


def test_knn_scorer_is_leave_one_out():
    y = np.repeat([0, 1, 2], 10)
    X = y[:, None] * 100.0 + np.random.default_rng(0).standard_normal((30, 1))
    identity = FunctionTransformer().fit(X)
    assert knn_scorer(3)(identity, X, y) == 1.0
    # one point of class 2 put amid class 0: only it is misclassified
    X[-1] = 0.0
    assert knn_scorer(3)(identity, X, y) == pytest.approx(29 / 30)


def test_unlabeled_samples_are_not_scored():
    y = np.repeat([0, 1], 10)
    X = y[:, None] * 100.0 + np.random.default_rng(0).standard_normal((20, 1))
    identity = FunctionTransformer().fit(X)
    y_semi = y.copy()
    X_noisy = X.copy()
    X_noisy[0] = 100.0  # misplaced, but unlabeled
    y_semi[0] = -1
    assert knn_scorer(3)(identity, X_noisy, y_semi) == 1.0
    assert kernel_kmeans_scorer("ari")(identity, X_noisy, y_semi) == 1.0


def test_bad_arguments():
    with pytest.raises(ValueError, match="metric must be"):
        kernel_kmeans_scorer("accuracy")
    with pytest.raises(ValueError, match="n_neighbors"):
        knn_scorer(0)
    with pytest.raises(TypeError, match="transform"):
        knn_scorer(3)(object(), np.zeros((4, 1)), np.array([0, 0, 1, 1]))
