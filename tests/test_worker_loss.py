"""A worker lost in the middle of a fit on dask arrays (project issue 34).

A real ``distributed.LocalCluster`` of two worker processes under nannies
(one thread each; the ``lossy_client`` fixture, started and closed around
this module) runs the fits.  Each fit on chunked data runs in a
thread joined with a timeout (a hang fails the test instead of blocking the
suite), while a worker process is killed (``SIGKILL``: no goodbye, its
memory gone; its nanny starts a new one) at a moment chosen
deterministically, never by a sleep:

- *between two computations*, from the fit's own thread: a package function
  is wrapped (``monkeypatch``) so that the kill happens right before (or
  after) its n-th call, and the wrapper waits until the scheduler has
  removed the worker before the fit goes on.  What that worker held
  (persisted chunks: greedy Cholesky's ``[G | d]``, randomly pivoted
  Cholesky's residual diagonal, k-means' rows) is lost then.
- *while tasks run*, from the scheduler: a scheduler plugin kills the
  worker holding the result of the n-th task of a given key prefix as soon
  as that task finishes, the other tasks of the pass in flight.

The disturbed fit must give the undisturbed fit's model on the same data
and ``random_state`` bitwise (every chunk is recomputed by the same code,
one BLAS thread per worker, every sum taken in a fixed order): pivots,
pairs, sweeps, M and the embedding (the learned kernel on every point is
``E E'``) of LogDetKernelLearner; iterations, centres, inertia and labels
of KernelKMeans.  Or it must fail with an error that says data were lost.

What dask recomputes: a key lost with its worker is computed again from
its graph, which the scheduler keeps as long as some client holds the key
or a key built from it (persisted chunks included: greedy Cholesky's chain
of steps is replayed for the lost chunks, from the first step).  What it
cannot: data scattered to the lost worker (``client.scatter``), which has
no graph; the computations that need it are cancelled ("lost
dependencies").  And a choice the package makes from the cluster's state
(``init='auto'`` of KernelKMeans, from the workers' memory) must be made
when the data enter the fit, not when k-means starts, or a worker lost in
between changes the model: see the last tests.
"""

import os
import signal
import threading
import time
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

import dask  # noqa: E402
from dask.utils import key_split  # noqa: E402
from distributed import Client, LocalCluster, get_task_stream  # noqa: E402
from distributed.diagnostics.plugin import SchedulerPlugin  # noqa: E402
from sklearn.datasets import make_blobs, make_classification  # noqa: E402

import sklearn_bregman._data._dask as dask_module  # noqa: E402
import sklearn_bregman._data._dask_kmeans as kmeans_module  # noqa: E402
import sklearn_bregman._engine._driver as driver  # noqa: E402
from sklearn_bregman import KernelKMeans, LogDetKernelLearner  # noqa: E402

#: Longest a fit (or the removal of a killed worker) may take before the
#: test calls it a hang; an undisturbed fit here takes one to three seconds.
TIMEOUT = 25.0

CHUNKS = (300, 300, 300, 300)


# ---------------------------------------------------------------------------
# Data, the cluster's state between tests, the undisturbed fits
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pairs_data():
    X, y = make_classification(1200, 6, n_informative=4, n_redundant=0, n_classes=3,
                               random_state=0)
    return da.from_array(X, chunks=(CHUNKS, 6)), da.from_array(y, chunks=(CHUNKS,))


@pytest.fixture(scope="module")
def blobs_data():
    # overlapping blobs: Lloyd's iterations take several passes
    X, _ = make_blobs(1200, 4, centers=5, cluster_std=1.5, random_state=2)
    return da.from_array(X, chunks=(CHUNKS, 4))


def _import_package():
    import sklearn_bregman._data._dask  # noqa: F401


def _n_tasks(dask_scheduler):
    return len(dask_scheduler.tasks)


def _settle(client):
    """Two live workers that have imported the package, and nothing left of
    the previous test on the scheduler (so the victim is chosen by the data
    of this fit)."""
    client.wait_for_workers(2, timeout=TIMEOUT)
    client.run(_import_package)
    deadline = time.monotonic() + 5
    while client.run_on_scheduler(_n_tasks) and time.monotonic() < deadline:
        time.sleep(0.02)


#: The workers import the package as they start (a worker started by its
#: nanny after a kill too, while the fit goes on on the other).
PRELOAD = ["sklearn_bregman._data._dask"]


@pytest.fixture(scope="module")
def lossy_client():
    """A ``LocalCluster`` of two worker processes (one thread each) under
    nannies and its client, for this module, as conftest's ``client``: the
    tests kill its workers, and the nannies start new ones under the same
    names.  A SpecCluster closes a worker's nanny for good when no worker of
    its name is back ``lost-worker-timeout`` (15 s) after a loss; with a kill
    every few seconds that check can fall in the half second before the
    next restart registers (it did), hence the longer timeout."""
    with dask.config.set({"distributed.deploy.lost-worker-timeout": "1h"}), LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
            preload=PRELOAD) as cluster, Client(cluster) as client:
        yield client


@pytest.fixture
def cluster(lossy_client):
    """The module's cluster, settled before the test; the killing plugin
    taken off after it."""
    _settle(lossy_client)
    yield lossy_client
    if KillOnTask.name in lossy_client.run_on_scheduler(_plugin_names):
        lossy_client.unregister_scheduler_plugin(KillOnTask.name)


def _within(seconds, function):
    """``function()`` in a thread joined with a timeout: its result and the
    time it took, its exception re-raised, or a failure if it still runs (a
    hang)."""
    out = {}

    def target():
        try:
            out["value"] = function()
        except BaseException as exc:  # noqa: BLE001 (handed to the test)
            out["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    start = time.perf_counter()
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"the fit still runs after {seconds} s: a hang")
    if "error" in out:
        raise out["error"]
    return out["value"], time.perf_counter() - start


def _logdet(low_rank):
    return LogDetKernelLearner(kernel="rbf", gamma=0.1, rank=12, low_rank=low_rank,
                               random_state=0)


def _kkmeans(low_rank, init="auto"):
    return KernelKMeans(5, kernel="rbf", gamma=0.05, rank=12, low_rank=low_rank, n_init=2,
                        init=init, max_iter=50, random_state=0)


def _fit_logdet(low_rank, Xd, yd):
    """The model of a LogDet fit, in NumPy (the lazy embedding computed)."""
    m = _logdet(low_rank).fit(Xd, yd)
    return {"pivots": m.pivots_, "i": m.constraints_.i, "j": m.constraints_.j,
            "n_iter": m.n_iter_, "metric": m.metric_, "embedding": m.embedding_.compute()}


def _fit_kkmeans(low_rank, Xd, init="auto"):
    """The model of a KernelKMeans fit, in NumPy (the lazy labels computed)."""
    m = _kkmeans(low_rank, init).fit(Xd)
    return {"n_iter": m.n_iter_, "centers": m.cluster_centers_, "inertia": m.inertia_,
            "labels": m.labels_.compute()}


def _assert_same_model(reference, disturbed):
    """Bitwise: the same pivots, pairs, sweeps, M and learned kernel (E E'),
    or the same iterations, centres, inertia and labels."""
    assert reference.keys() == disturbed.keys()
    for name, value in reference.items():
        np.testing.assert_array_equal(disturbed[name], value, err_msg=name)


def _prefixes(keys):
    return Counter(key_split(k) for k in keys)


def _counted(client, function):
    """``function()`` within the timeout, with the tasks the workers ran,
    counted by prefix."""
    with get_task_stream(client) as stream:
        value, seconds = _within(TIMEOUT, function)
    return value, seconds, _prefixes(task["key"] for task in stream.data)


@pytest.fixture(scope="module")
def reference(lossy_client, pairs_data, blobs_data):
    """The undisturbed fits, each run once on the module's cluster:
    ``reference(kind, low_rank)`` gives (model, seconds, tasks run)."""
    cache = {}

    def get(kind, low_rank):
        if (kind, low_rank) not in cache:
            _settle(lossy_client)
            fit = ((lambda: _fit_logdet(low_rank, *pairs_data)) if kind == "logdet" else
                   (lambda: _fit_kkmeans(low_rank, blobs_data)))
            cache[kind, low_rank] = _counted(lossy_client, fit)
        return cache[kind, low_rank]

    return get


# ---------------------------------------------------------------------------
# Killing a worker
# ---------------------------------------------------------------------------


def _workers(dask_scheduler):
    return list(dask_scheduler.workers)


def _removal(address, dask_scheduler):
    """What the scheduler recorded when it removed the worker: the computed
    keys it lost (recomputed from their graph), the scattered ones it lost
    (gone) and the tasks that were running there; None before."""
    for _, event in dask_scheduler.get_events(address):
        if isinstance(event, dict) and event.get("action") == "remove-worker":
            return (list(event["lost-computed-tasks"]), list(event["lost-scattered-tasks"]),
                    list(event["processing-tasks"]))
    return None


def _await_removal(client, address):
    deadline = time.monotonic() + TIMEOUT
    while (removal := client.run_on_scheduler(_removal, address)) is None:
        if time.monotonic() > deadline:
            pytest.fail(f"the scheduler did not remove the killed worker {address}")
        time.sleep(0.01)
    return removal


class _Killer:
    """Kills the worker process holding the most keys (SIGKILL) and waits
    until the scheduler has removed it; records what was lost."""

    def __init__(self, client):
        self.client = client
        self.kills = []  # (lost computed keys, lost scattered keys)

    def __call__(self):
        has_what = self.client.has_what()
        victim = max(sorted(has_what), key=lambda a: len(has_what[a]))
        os.kill(self.client.run(os.getpid)[victim], signal.SIGKILL)
        computed, scattered, _ = _await_removal(self.client, victim)
        self.kills.append((computed, scattered))


def _kill_at_call(monkeypatch, owner, name, nth, kill, after=False):
    """Kill a worker right before (``after``: right after) the ``nth`` call of
    ``owner.name``, in the calling thread; returns the count of calls."""
    original = getattr(owner, name)
    calls = [0]

    def wrapper(*args, **kwargs):
        calls[0] += 1
        if calls[0] == nth and not after:
            kill()
        result = original(*args, **kwargs)
        if calls[0] == nth and after:
            kill()
        return result

    monkeypatch.setattr(owner, name, wrapper)
    return calls


class KillOnTask(SchedulerPlugin):
    """Kills (SIGKILL) the worker holding the result of the ``nth`` task of
    key prefix ``prefix`` (dask's ``key_split``: the function's name without
    its leading underscores) as it reaches memory, from the scheduler."""

    name = "kill-on-task"

    def __init__(self, prefix, nth, pids):
        self.prefix, self.nth, self.pids = prefix, nth, pids
        self.seen = 0
        self.killed = None

    async def start(self, scheduler):
        self.scheduler = scheduler

    def transition(self, key, start, finish, *args, **kwargs):
        if finish != "memory" or key_split(key) != self.prefix:
            return
        self.seen += 1
        if self.seen == self.nth:
            address = min(ws.address for ws in self.scheduler.tasks[key].who_has)
            os.kill(self.pids[address], signal.SIGKILL)
            self.killed = (address, key)


def _plugin_names(dask_scheduler):
    return list(dask_scheduler.plugins)


def _plugin_state(dask_scheduler):
    plugin = dask_scheduler.plugins[KillOnTask.name]
    return plugin.seen, plugin.killed


def _kill_on_task(client, prefix, nth):
    client.register_plugin(KillOnTask(prefix, nth, client.run(os.getpid)))


def _killed_on_task(client):
    """The key whose worker the plugin killed, and what the scheduler lost."""
    seen, killed = client.run_on_scheduler(_plugin_state)
    assert killed is not None, f"fewer tasks of the prefix ran than chosen ({seen})"
    address, key = killed
    return key, _await_removal(client, address)


def _report(case, seconds, ref, tasks, lost):
    """One line per case (``pytest -s`` shows them): times, what was lost
    and how many more tasks the disturbed fit ran than the undisturbed."""
    _, ref_seconds, ref_tasks = ref
    more = {p: tasks[p] - ref_tasks.get(p, 0) for p in sorted(tasks)
            if tasks[p] > ref_tasks.get(p, 0)}
    print(f"\n[worker loss] {case}: {seconds:.2f} s (undisturbed {ref_seconds:.2f} s); "
          f"lost {dict(lost)}; tasks run again {more}")


# ---------------------------------------------------------------------------
# LogDetKernelLearner: the factor's chunks, then the sweeps on the client
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("low_rank, where, nth, after", [
    # greedy Cholesky's factor built, [G | d] persisted: the pairs' rows are
    # gathered from it next
    ("cholesky", "low_rank_factor", 1, True),
    # randomly pivoted Cholesky after its first round: the residual diagonal
    ("rpcholesky", "_per_chunk", 2, False),
])
def test_logdet_survives_a_worker_lost_after_chunks_are_persisted(
        cluster, reference, pairs_data, monkeypatch, low_rank, where, nth, after):
    ref = reference("logdet", low_rank)
    kill = _Killer(cluster)
    owner = dask_module.DaskRows if where == "low_rank_factor" else dask_module
    calls = _kill_at_call(monkeypatch, owner, where, nth, kill, after=after)
    model, seconds, tasks = _counted(cluster, lambda: _fit_logdet(low_rank, *pairs_data))
    assert calls[0] >= nth and len(kill.kills) == 1
    (computed, scattered), = kill.kills
    assert computed and not scattered  # persisted chunks lost, recomputed
    _assert_same_model(ref[0], model)
    _report(f"LogDet {low_rank}, killed at {where} #{nth}", seconds, ref, tasks,
            _prefixes(computed))


@pytest.mark.parametrize("low_rank, prefix, nth", [
    ("cholesky", "greedy_step", 4 * 6 + 2),  # in the pass of the 7th pivot
    ("rpcholesky", "round_update", 2),  # in the first round's pass
])
def test_logdet_survives_a_worker_lost_while_the_factor_is_built(
        cluster, reference, pairs_data, low_rank, prefix, nth):
    ref = reference("logdet", low_rank)
    _kill_on_task(cluster, prefix, nth)
    model, seconds, tasks = _counted(cluster, lambda: _fit_logdet(low_rank, *pairs_data))
    key, (computed, scattered, running) = _killed_on_task(cluster)
    assert key in computed and not scattered
    _assert_same_model(ref[0], model)
    _report(f"LogDet {low_rank}, killed as {prefix} #{nth} finished", seconds, ref, tasks,
            {"computed": dict(_prefixes(computed)), "running": dict(_prefixes(running))})


@pytest.mark.parametrize("low_rank", ["cholesky", "rpcholesky"])
def test_logdet_survives_a_worker_lost_during_the_sweeps(
        cluster, reference, pairs_data, monkeypatch, low_rank):
    # the sweeps run on the client, on the rows the pairs touch gathered
    # once; greedy Cholesky's factor stays persisted on the workers (for
    # embedding_ and transform), randomly pivoted Cholesky's is replayed
    # from X whenever needed
    ref = reference("logdet", low_rank)
    kill = _Killer(cluster)
    loop = driver.sweep_until_settled
    sweeps = [0]

    def sweeping(run, *args, **kwargs):
        def one_sweep():
            stats = run()
            sweeps[0] += 1
            if sweeps[0] == 1:
                kill()
            return stats
        return loop(one_sweep, *args, **kwargs)

    monkeypatch.setattr(driver, "sweep_until_settled", sweeping)
    model, seconds, tasks = _counted(cluster, lambda: _fit_logdet(low_rank, *pairs_data))
    assert sweeps[0] >= 1 and len(kill.kills) == 1
    (computed, scattered), = kill.kills
    assert not scattered
    if low_rank == "cholesky":  # its persisted factor was lost (and recomputed)
        assert "greedy_step" in _prefixes(computed)
    _assert_same_model(ref[0], model)
    _report(f"LogDet {low_rank}, killed after sweep 1", seconds, ref, tasks,
            _prefixes(computed))


# ---------------------------------------------------------------------------
# KernelKMeans: Lloyd's passes over the persisted rows of the factor
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("low_rank", ["cholesky", "rpcholesky"])
def test_kernel_kmeans_survives_a_worker_lost_between_lloyd_passes(
        cluster, reference, blobs_data, monkeypatch, low_rank):
    ref = reference("kkmeans", low_rank)
    assert ref[0]["n_iter"] >= 3  # several passes: the kill falls among them
    kill = _Killer(cluster)
    calls = _kill_at_call(monkeypatch, kmeans_module, "_lloyd_pass", 2, kill)
    model, seconds, tasks = _counted(cluster, lambda: _fit_kkmeans(low_rank, blobs_data))
    assert calls[0] >= 2 and len(kill.kills) == 1
    (computed, scattered), = kill.kills
    assert computed and not scattered  # the persisted rows of the factor
    _assert_same_model(ref[0], model)
    _report(f"KernelKMeans {low_rank}, killed before Lloyd pass 2", seconds, ref, tasks,
            _prefixes(computed))


@pytest.mark.parametrize("low_rank", ["cholesky", "rpcholesky"])
def test_kernel_kmeans_survives_a_worker_lost_during_a_lloyd_pass(
        cluster, reference, blobs_data, low_rank):
    ref = reference("kkmeans", low_rank)
    assert ref[0]["n_iter"] >= 3
    # the second chunk of the second Lloyd pass to finish (four chunks a pass)
    _kill_on_task(cluster, "lloyd_chunk", 4 + 2)
    model, seconds, tasks = _counted(cluster, lambda: _fit_kkmeans(low_rank, blobs_data))
    key, (computed, scattered, running) = _killed_on_task(cluster)
    assert key in computed and not scattered
    _assert_same_model(ref[0], model)
    _report(f"KernelKMeans {low_rank}, killed as lloyd_chunk #6 finished", seconds, ref,
            tasks, {"computed": dict(_prefixes(computed)),
                    "running": dict(_prefixes(running))})


# ---------------------------------------------------------------------------
# What dask cannot recompute: chunks scattered to the lost worker
# ---------------------------------------------------------------------------


def test_scattered_chunks_lost_with_their_worker_give_an_error(cluster, pairs_data,
                                                             monkeypatch):
    from distributed.client import FutureCancelledError

    X, y = pairs_data[0].compute(), pairs_data[1].compute()
    futures = cluster.scatter([X[i:i + 300] for i in range(0, 1200, 300)])
    Xd = da.concatenate([da.from_delayed(f, shape=(300, 6), dtype=X.dtype)
                         for f in futures])
    kill = _Killer(cluster)
    _kill_at_call(monkeypatch, dask_module, "_per_chunk", 2, kill)
    start = time.perf_counter()
    with pytest.raises(FutureCancelledError, match="lost dependencies"):
        _within(TIMEOUT, lambda: _logdet("rpcholesky").fit(Xd, y))
    (_, scattered), = kill.kills
    assert scattered  # X's chunks on that worker: no graph to recompute them from
    print(f"\n[worker loss] scattered X, killed at _per_chunk #2: error after "
          f"{time.perf_counter() - start:.2f} s; lost scattered {dict(_prefixes(scattered))}")
    del futures


# ---------------------------------------------------------------------------
# A choice made from the cluster's state: KernelKMeans' init='auto'
# ---------------------------------------------------------------------------

#: Per worker: the factor's rows (1200 x 12 float64, 115.2 kB) fit in half
#: of two workers' memory but not of one's.  Only ``room_on_workers`` reads
#: it: the memory thresholds (spill, pause, terminate) are off.  init='auto'
#: is decided from the memory measured when the data entered the fit (before
#: this test's fix: when k-means started, so that the lost worker switched
#: the seeding to 'sample' and changed the model without a word).
SMALL_MEMORY = "200kB"


@pytest.fixture
def small_memory_client():
    """A cluster of its own (two worker processes of ``SMALL_MEMORY`` each),
    the default client during the test; its workers are closed, not
    replaced."""
    off = {f"distributed.worker.memory.{k}": False
           for k in ("target", "spill", "pause", "terminate")}
    with dask.config.set(off), LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, memory_limit=SMALL_MEMORY,
            dashboard_address=":0", preload=PRELOAD) as cluster, Client(cluster) as client:
        yield client


async def _close_a_worker(dask_scheduler):
    """Remove a worker and close it (its nanny does not start another): a
    machine gone for good, the keys it held lost."""
    address = sorted(dask_scheduler.workers)[0]
    await dask_scheduler.remove_worker(address, stimulus_id="test-worker-loss", close=True)
    return address


@pytest.mark.parametrize("init", ["auto", "k-means||"])
def test_kernel_kmeans_with_a_worker_closed_before_kmeans(small_memory_client, blobs_data,
                                                          monkeypatch, init):
    client = small_memory_client
    undisturbed, _ = _within(TIMEOUT, lambda: _fit_kkmeans("rpcholesky", blobs_data, init))
    chosen = []  # (init, persist) of each k-means on the chunks
    kmeans_dask = kmeans_module.kmeans_dask

    def recording(*args, **kwargs):
        chosen.append((kwargs["init"], kwargs["persist"]))
        return kmeans_dask(*args, **kwargs)

    monkeypatch.setattr(dask_module, "kmeans_dask", recording)
    closed = []

    def close():
        closed.append(client.run_on_scheduler(_close_a_worker))

    calls = _kill_at_call(monkeypatch, dask_module.DaskRows, "low_rank_factor", 1, close,
                          after=True)
    disturbed, _ = _within(TIMEOUT, lambda: _fit_kkmeans("rpcholesky", blobs_data, init))
    assert calls[0] == 1 and len(closed) == 1
    assert len(client.run_on_scheduler(_workers)) == 1
    # (init, persist): ('k-means||', False) now (the rows no longer fit in one
    # worker: computed anew at each pass, the same model); ('k-means||', True)
    # in the undisturbed fit
    assert chosen == [("k-means||", False)]
    assert disturbed["n_iter"] == undisturbed["n_iter"], (
        f"{disturbed['n_iter']} Lloyd iterations instead of {undisturbed['n_iter']}; "
        f"k-means ran with (init, persist) = {chosen}")
    _assert_same_model(undisturbed, disturbed)
