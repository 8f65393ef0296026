"""Test-wide settings: one BLAS / OpenMP thread, and the hypothesis profiles.

The suite's problems are small (tens to hundreds of samples): threads buy
nothing there, and on a machine whose cores are busy (CI runners, a shared
box) OpenBLAS' and OpenMP's threads wait for each other at every call.  A
fit of SKLRClusterer on 400 digits took 14-17 s with two threads on two
loaded cores against 0.2-0.3 s with one, and tests/test_sklr.py 61 s against
6 s.  Hence ``_single_threaded_libraries`` below: every test runs with one thread per
library (GridSearchCV's n_jobs workers are processes, limited by joblib).

Hypothesis profiles of the property-based tests (tests/test_properties.py):

- ``default`` (used unless told otherwise): a fixed budget of 40 examples per
  test, derandomized so that every CI run draws the same examples, no
  deadline (a fit's duration varies with the machine), no example database.
- ``thorough``: 600 examples per test, freshly random at every run, for a
  longer local search: ``python -m pytest tests/test_properties.py
  --hypothesis-profile=thorough``.
"""

import pytest
from hypothesis import HealthCheck, settings
from threadpoolctl import threadpool_limits

_COMMON = dict(
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.filter_too_much],
)

settings.register_profile("default", max_examples=40, derandomize=True, **_COMMON)
settings.register_profile("thorough", max_examples=600, derandomize=False, **_COMMON)
settings.load_profile("default")


@pytest.fixture(scope="session", autouse=True)
def _single_threaded_libraries():
    # set up after collection: NumPy's and SciPy's BLAS and scikit-learn's
    # OpenMP runtime are loaded by then (the test modules import them)
    with threadpool_limits(1):
        yield


@pytest.fixture(scope="module")
def client():
    """A real ``distributed.LocalCluster`` of two worker processes (one thread
    each) and its client, started and closed around each module that asks
    for it (tests/test_distributed.py, test_dask.py, test_dask_kmeans.py)."""
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        yield client
