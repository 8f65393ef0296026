"""Model selection on a real dask.distributed cluster.

A ``distributed.LocalCluster`` with two worker processes is started and
closed by the fixture (no mock): ``GridSearchCV(..., n_jobs=-1)`` under
joblib's dask backend must run its fits on the workers and find what the
same search finds in this process.
"""

import warnings

import joblib
import numpy as np
from sklearn.datasets import load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV
from sklearn.preprocessing import StandardScaler

from sklearn_bregman import LogDetKernelLearner, knn_scorer


def test_grid_search_on_a_local_cluster_matches_the_local_run(client):
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    grid = {"slack": [1.0, 10.0], "gamma": [0.05, 0.1]}
    learner = LogDetKernelLearner(kernel="rbf", rank=20, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        local = GridSearchCV(learner, grid, cv=3, scoring=knn_scorer()).fit(X, y)
        from distributed import get_task_stream

        # joblib.parallel_config(backend="dask") from joblib 1.3 on; parallel_backend
        # is the same switch and exists in the lowest joblib we support (1.2)
        with get_task_stream(client) as stream, joblib.parallel_backend("dask"):
            remote = GridSearchCV(learner, grid, cv=3, scoring=knn_scorer(),
                                  n_jobs=-1).fit(X, y)
    assert remote.best_params_ == local.best_params_
    np.testing.assert_array_equal(remote.cv_results_["mean_test_score"],
                                  local.cv_results_["mean_test_score"])
    np.testing.assert_array_equal(remote.best_estimator_.metric_,
                                  local.best_estimator_.metric_)
    # the fits ran on the cluster's workers
    workers = {task["worker"] for task in stream.data}
    assert len(stream.data) > 0 and workers <= set(client.scheduler_info()["workers"])
