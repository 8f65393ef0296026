"""ITMLTransformer: optimality, robustness (scikit-learn's checks: tests/test_common.py)."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import load_iris, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline

from sklearn_bregman import ITMLTransformer, PairConstraints
from sklearn_bregman.constraints import pair_sqdist


def feasible_problem(seed=0, n=40, d=5, c=30):
    """Pairs whose bounds a known SPD matrix A_star meets strictly."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    B = rng.standard_normal((d, d))
    A_star = B @ B.T / d + 0.5 * np.eye(d)
    i = rng.integers(0, n, c)
    j = (i + 1 + rng.integers(0, n - 1, c)) % n
    sign = np.where(rng.random(c) < 0.5, 1, -1)
    d_star = pair_sqdist(X, i, j, A_star)
    bound = np.where(sign > 0, 1.05 * d_star, 0.95 * d_star)
    return X, PairConstraints(i, j, sign, bound), A_star


def logdet_divergence(A, A0):
    P = np.linalg.solve(A0, A)
    return np.trace(P) - np.linalg.slogdet(P)[1] - A.shape[0]


@pytest.mark.parametrize("prior", ["identity", "spd"])
def test_hard_constraints_reach_the_kkt_point(prior):
    X, pc, A_star = feasible_problem()
    d = X.shape[1]
    A0 = np.eye(d) if prior == "identity" else np.diag(np.linspace(0.5, 2.0, d))
    itml = ITMLTransformer(slack=np.inf, prior=A0, tol=1e-12, max_iter=100000)
    itml.fit(X, constraints=pc)
    assert itml.converged_
    A, nu = itml.get_mahalanobis_matrix(), itml.dual_coef_
    dist = itml.pair_distance(np.stack([X[pc.i], X[pc.j]], axis=1), squared=True)

    # primal feasibility
    assert np.all(pc.sign * (dist - pc.bound) <= 1e-7 * pc.bound)
    # dual feasibility
    assert np.all(nu >= 0)
    # stationarity: A^-1 - A0^-1 = sum_c sign_c nu_c v_c v_c'
    V = X[pc.i] - X[pc.j]
    S = (V * (pc.sign * nu)[:, None]).T @ V
    lhs = np.linalg.inv(A) - np.linalg.inv(A0)
    assert np.abs(lhs - S).max() <= 1e-8 * np.abs(lhs).max()
    # complementary slackness: inactive constraints carry no dual weight
    inactive = pc.sign * (dist - pc.bound) < -1e-6 * pc.bound
    assert inactive.any() and (~inactive).any()
    assert np.all(nu[inactive] <= 1e-9 * nu.max())
    # the divergence is lower than at any feasible point we can build
    D = logdet_divergence(A, A0)
    for t in [0.0, 0.25, 0.5, 0.75, 0.95]:
        B = t * A + (1 - t) * A_star  # feasible: the constraints are linear in A
        assert D <= logdet_divergence(B, A0) + 1e-10


def test_slack_trades_constraints_for_divergence():
    X, pc, _ = feasible_problem(seed=1)
    viol, div = [], []
    for slack in [0.01, 1.0, 100.0]:
        itml = ITMLTransformer(slack=slack, tol=1e-10, max_iter=20000).fit(X, constraints=pc)
        dist = itml.pair_distance(np.stack([X[pc.i], X[pc.j]], axis=1), squared=True)
        viol.append(np.maximum(pc.sign * (dist - pc.bound) / pc.bound, 0).sum())
        div.append(logdet_divergence(itml.metric_, np.eye(X.shape[1])))
    assert viol[0] > viol[1] > viol[2]
    assert div[0] < div[1] < div[2]


def test_transform_components_and_metric_agree():
    X, y = load_iris(return_X_y=True)
    itml = ITMLTransformer(random_state=0).fit(X, y)
    A, L = itml.get_mahalanobis_matrix(), itml.components_
    assert np.allclose(L.T @ L, A)
    Z = itml.transform(X[:5])
    assert np.allclose(np.sum((Z[0] - Z[1]) ** 2), (X[0] - X[1]) @ A @ (X[0] - X[1]))
    assert np.allclose(itml.pair_distance([[X[0], X[1]]]), np.sqrt(np.sum((Z[0] - Z[1]) ** 2)))
    assert np.all(np.linalg.eigvalsh(A) > 0)
    assert itml.get_feature_names_out().tolist() == [f"itmltransformer{k}" for k in range(4)]


def test_learning_finds_the_informative_features():
    # Two informative features among eight noise features of 10x the scale:
    # Euclidean k-NN is near chance, the learned metric must recover.
    X, y = make_classification(600, 2, n_informative=2, n_redundant=0,
                               n_clusters_per_class=1, class_sep=2.0, random_state=0)
    noise = 10 * np.random.default_rng(0).standard_normal((600, 8))
    X = np.c_[X, noise]
    train, test = slice(0, 300), slice(300, None)
    knn = KNeighborsClassifier(5)
    before = knn.fit(X[train], y[train]).score(X[test], y[test])
    itml = ITMLTransformer(slack=10.0, random_state=0).fit(X[train], y[train])
    Z = itml.transform(X)
    after = knn.fit(Z[train], y[train]).score(Z[test], y[test])
    assert before < 0.75
    assert after > 0.95


def test_repeatable_and_picklable():
    X, y = load_iris(return_X_y=True)
    a = ITMLTransformer(order="random", random_state=3).fit(X, y)
    b = ITMLTransformer(order="random", random_state=3).fit(X, y)
    assert np.array_equal(a.metric_, b.metric_)
    c = pickle.loads(pickle.dumps(a))
    assert np.array_equal(c.transform(X), a.transform(X))


def test_unlabeled_samples_are_embedded_but_unconstrained():
    X, y = load_iris(return_X_y=True)
    y = y.copy()
    y[::2] = -1
    itml = ITMLTransformer(random_state=0).fit(X, y)
    used = np.union1d(itml.constraints_.i, itml.constraints_.j)
    assert np.all(y[used] != -1)
    assert itml.transform(X).shape == X.shape


def test_duplicate_points_are_skipped_with_one_warning():
    X, y = load_iris(return_X_y=True)
    X = X.copy()
    X[1] = X[0]
    pc = PairConstraints([0, 0, 2], [1, 1, 60], [1, 1, -1])
    with pytest.warns(UserWarning, match="2 of 3 constraints join two identical points") as rec:
        itml = ITMLTransformer(random_state=0).fit(X, constraints=pc)
    assert sum("identical points" in str(w.message) for w in rec) == 1
    assert np.all(itml.dual_coef_[:2] == 0)


def test_max_iter_ends_with_a_convergence_warning():
    # Infeasible hard constraints: the same pair must be near and far.
    X = np.random.default_rng(0).standard_normal((10, 3))
    d01 = float(np.sum((X[0] - X[1]) ** 2))
    pc = PairConstraints([0, 0], [1, 1], [1, -1], [0.5 * d01, 2 * d01])
    with pytest.warns(ConvergenceWarning, match="max_iter=20"):
        itml = ITMLTransformer(slack=np.inf, max_iter=20).fit(X, constraints=pc)
    assert not itml.converged_ and itml.n_iter_ == 20


def test_verbose_prints_one_line_per_sweep(capsys):
    X, y = load_iris(return_X_y=True)
    itml = ITMLTransformer(verbose=1, random_state=0).fit(X, y)
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "sweep" in ln]
    assert len(lines) == itml.n_iter_
    assert "dual change" in lines[0] and "satisfied" in lines[0]


X_ok = np.random.default_rng(0).standard_normal((20, 3))
y_ok = np.repeat([0, 1], 10)


@pytest.mark.parametrize(
    "params, X, y, fit_kw, match",
    [
        ({}, np.where(np.eye(20, 3) > 0, np.nan, X_ok), y_ok, {}, "NaN"),
        ({}, np.where(np.eye(20, 3) > 0, np.inf, X_ok), y_ok, {}, "infinity"),
        ({}, X_ok, np.zeros(20), {}, "at least two classes"),
        ({}, X_ok[:1], y_ok[:1], {}, "minimum of 2"),
        ({}, X_ok, None, {"constraints": [[0, 25, 1]]}, "constraints: index out of range"),
        ({}, X_ok, None, {"constraints": [[0, 1, 1, -1.0]]}, "constraints: bounds .*non-negative"),
        ({"prior": -np.eye(3)}, X_ok, y_ok, {}, "prior must be positive definite"),
        ({"prior": np.eye(4)}, X_ok, y_ok, {}, "prior must have shape"),
        ({"prior": np.triu(np.ones((3, 3)))}, X_ok, y_ok, {}, "prior must be a symmetric"),
        ({"prior": "covariance"}, np.c_[X_ok, X_ok[:, :1]], y_ok, {}, "prior='covariance'"),
        ({"slack": 0.0}, X_ok, y_ok, {}, "'slack' parameter"),
        ({"slack": -1.0}, X_ok, y_ok, {}, "'slack' parameter"),
        ({"bounds": "median"}, X_ok, y_ok, {}, "'bounds' parameter"),
        ({"bounds": (0.0, 1.0)}, X_ok, y_ok, {}, "upper > 0"),
        ({"max_iter": 0}, X_ok, y_ok, {}, "'max_iter' parameter"),
        ({}, X_ok, None, {}, "requires y to be passed"),
        ({}, X_ok, y_ok[:5], {}, "y has 5 entries"),
    ],
)
def test_bad_input_gets_a_clear_value_error(params, X, y, fit_kw, match):
    with pytest.raises(ValueError, match=match):
        ITMLTransformer(**params).fit(X, y, **fit_kw)


def test_similar_pair_with_zero_bound_is_rejected():
    pc = PairConstraints([0], [1], [1], [0.0])
    with pytest.raises(ValueError, match="similar pairs need a positive bound"):
        ITMLTransformer().fit(X_ok, constraints=pc)


def test_pair_distance_checks_its_input():
    itml = ITMLTransformer(random_state=0).fit(X_ok, y_ok)
    # a 2-D array and no preprocessor: not identifiers, and points are 3-D
    with pytest.raises(ValueError, match=r"\(n_pairs, 2, n_features\).*got a 2-D array"):
        itml.pair_distance(X_ok)


# hard constraints (slack=inf) on iris's folds are infeasible: that candidate
# warns and loses the search
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_grid_search_over_slack_in_a_pipeline():
    X, y = load_iris(return_X_y=True)
    pipe = Pipeline([("itml", ITMLTransformer(random_state=0)),
                     ("knn", KNeighborsClassifier(3))])
    gs = GridSearchCV(pipe, {"itml__slack": [0.1, 1.0, np.inf]}, cv=3, n_jobs=2,
                      error_score="raise")
    gs.fit(X, y)
    assert gs.best_score_ > 0.9


def test_constraints_as_fit_parameter_through_a_pipeline():
    X, y = load_iris(return_X_y=True)
    pc = PairConstraints([0, 1, 50], [2, 3, 100], [1, 1, -1])
    pipe = Pipeline([("itml", ITMLTransformer()), ("knn", KNeighborsClassifier(3))])
    pipe.fit(X, y, itml__constraints=pc)
    assert len(pipe.named_steps["itml"].constraints_) == 3


def test_set_output_pandas():
    pd = pytest.importorskip("pandas")
    X, y = load_iris(return_X_y=True, as_frame=True)
    out = ITMLTransformer(random_state=0).set_output(transform="pandas").fit(X, y).transform(X)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == [f"itmltransformer{k}" for k in range(4)]


def test_cyclic_and_random_order_reach_the_same_optimum():
    X, y = make_classification(400, 8, n_informative=4, n_classes=3, random_state=1)
    kw = dict(bounds="relative", tol=1e-9, max_iter=200000, random_state=0)
    a = ITMLTransformer(order="random", **kw).fit(X, y)
    b = ITMLTransformer(order="cyclic", **kw).fit(X, y)
    assert a.converged_ and b.converged_
    assert a.n_iter_ < b.n_iter_
    assert np.abs(a.metric_ - b.metric_).max() <= 1e-5 * np.abs(b.metric_).max()
