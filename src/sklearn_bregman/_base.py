"""Pieces shared by the pair-constraint learners of the suite."""

from numbers import Integral, Real

import numpy as np
from scipy import linalg
from sklearn.utils._param_validation import Interval, StrOptions

from sklearn.utils.validation import column_or_1d

from ._engine import max_squared_norm
from .constraints import check_pairs, pairs_from_labels, set_pair_bounds

#: Parameter constraints common to every learner driven by pair constraints
#: (scikit-learn's declarative validation, checked once at the top of fit).
PAIR_LEARNER_PARAMETERS = {
    # (0, inf]: inf means hard constraints.
    "slack": [Interval(Real, 0, np.inf, closed="right")],
    "n_constraints": [Interval(Integral, 1, None, closed="left"), None],
    "bounds": [StrOptions({"percentile", "relative"}), tuple, list, np.ndarray],
    "epsilon": [Interval(Real, 0, 1, closed="left")],
    "unlabeled": [Integral, str, None],
    "order": [StrOptions({"cyclic", "random"})],
    "tol": [Interval(Real, 0, None, closed="neither")],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "random_state": ["random_state"],
    "verbose": ["verbose"],
}


def resolve_pair_constraints(estimator, y, constraints, G, M0, n_samples, rng):
    """The validated constraint set of a ``fit`` call, with every bound set.

    ``constraints`` wins when given (``y`` is then free for later steps of a
    pipeline); otherwise pairs are drawn from the labels ``y``.  Bounds left
    unset are filled by the estimator's ``bounds`` rule, measured on the rows
    of ``G`` under the prior ``M0``.
    """
    if constraints is not None:
        pairs = check_pairs(constraints, n_samples)
        source = "constraints"
    elif y is None:
        raise ValueError(
            f"{type(estimator).__name__} requires y to be passed, but the target y is "
            "None. Pass class labels y, or pair constraints with constraints=..."
        )
    else:
        y = column_or_1d(y, warn=True)
        if y.shape[0] != n_samples:
            raise ValueError(
                f"y has {len(y)} entries but X has {n_samples} samples."
            )
        pairs = pairs_from_labels(
            y, estimator.n_constraints, unlabeled=estimator.unlabeled, random_state=rng
        )
        # errors about them name what the user passed: labels, not constraints
        source = (f"the {len(pairs)} pairs drawn from y (bounds={estimator.bounds!r}, "
                  f"epsilon={estimator.epsilon})")
    return set_pair_bounds(
        pairs, G, M0, bounds=estimator.bounds, epsilon=estimator.epsilon, random_state=rng,
        source=source,
    )


def check_factor_scale(G, owner):
    """Squared distances of the rows of ``G`` neither overflow nor underflow.

    The engine works with squared distances ``|g_i - g_j|^2 <= 4 max |g|^2``
    and their reciprocals; data so large (or so small) that these leave
    double precision would come back as non-finite bounds or as every pair
    "coinciding", far from the data the user passed.  Raises a ValueError
    that says so and names the remedy (rescale X).
    """
    scale = max_squared_norm(G)
    big = np.finfo(np.float64).max / 4
    small = np.sqrt(np.finfo(np.float64).tiny)  # ~1.5e-154
    if np.isfinite(scale) and small <= scale <= big:
        return
    what = ("are not finite in" if np.isnan(scale) else
            "overflow" if scale > big else "underflow")
    raise ValueError(
        f"{owner}: the squared distances between the training points {what} double "
        f"precision (largest squared norm of a training point in the initial kernel's "
        f"feature space: {scale:.3g}); rescale X (e.g. with StandardScaler) or the "
        "kernel."
    )


def mapped(Z, estimator, X):
    """``transform``'s result ``Z`` for the points ``X``, or a ValueError if
    finite coordinates overflowed through the learned map (no output of the
    suite is silently non-finite)."""
    if not np.isfinite(Z).all():
        raise ValueError(
            f"{type(estimator).__name__}.transform: the learned map sends these points "
            "beyond double precision (largest |X| = "
            f"{float(np.abs(X).max(initial=0.0)):.3g}); rescale X as the training data."
        )
    return Z


def components_from_metric(A):
    """L with A = L^T L: the upper Cholesky factor, or a clipped eigen-root
    if rounding left A numerically singular."""
    try:
        return linalg.cholesky(A, lower=False)
    except linalg.LinAlgError:
        w, V = linalg.eigh(A)
        return np.sqrt(np.clip(w, 0.0, None))[:, None] * V.T


def set_pair_fit_attributes(estimator, result, pairs):
    """The fitted attributes every pair-constraint learner shares.

    ``metric_`` (the learned r x r matrix), ``components_`` (L with
    ``metric_ = L' L``), ``constraints_``, ``dual_coef_``, ``n_iter_``,
    ``converged_`` and ``max_violation_``, from a
    :class:`~sklearn_bregman._engine.ProjectionResult`.
    """
    estimator.metric_ = result.M
    estimator.components_ = components_from_metric(result.M)
    estimator.constraints_ = pairs
    estimator.dual_coef_ = result.dual
    estimator.n_iter_ = result.n_iter
    estimator.converged_ = result.converged
    estimator.max_violation_ = result.max_violation
