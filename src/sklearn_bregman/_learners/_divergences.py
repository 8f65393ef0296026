"""The divergences of the kernel learners, as strategies.

A kernel learner (:mod:`._kernel_learning`) holds one :class:`Divergence` and
asks it everything that depends on the divergence; nothing else branches on
which divergence it is (ARCHITECTURE.md, "How to add a divergence").  The
learned kernel is ``K = G0 M G0'`` (JMLR 2009, Section 4.2, Lemma 8); the
engine works on an r x r *state* in coordinates the divergence chooses:

- LogDet is invariant under congruence (any factor G0 with M0 = I will do):
  the coordinates are G0's own rows, the state is M, the prior I.
- von Neumann is invariant under orthogonal changes of basis only: the
  problem is posed on an orthonormal basis U of range(G0) (thin SVD
  ``G0 = U S V'``), from ``log X0 = diag(log S^2)``; the state is log X
  with ``K = U X U'``, so ``M = V S^-1 X S^-1 V'``.

The *basis* is what a run fixes at its first call (nothing for LogDet,
``(s, Vt)`` for von Neumann): later batches of a ``partial_fit`` stream
enter the same coordinates through it, and the sweeps get it too.

The von Neumann state is a logarithm, so the kernel's scale shifts it:
``X * t`` shifts log X0 by ``2 log t``, and beyond the engine's guard
(``DIVERGED_LOG``) the start itself would count as diverged although the
problem is scale-equivariant (``D(cX, cX0) = c D(X, X0)``).  The engine
therefore holds the kernel in units of a power of four ``c`` taken from S
(:func:`kernel_unit`; 1 for every kernel whose start is well inside the
guard, so those runs are untouched): its state is ``log(X / c)``, and the
bounds and slack targets it sees are the user's divided by ``c`` -- exact
rescalings, undone on the way out.
"""

from dataclasses import replace

import numpy as np
from scipy import linalg

from .._constraints._containers import pair_constraints_of_valid
from .._engine import DIVERGED_LOG, linear_projections, pair_projections
from ._base import metric_from_log

__all__ = ["Divergence", "LogDet", "VonNeumann", "kernel_unit"]


class Divergence:
    """What a kernel learner needs of a divergence.

    A subclass implements every method below; :class:`LogDet` and
    :class:`VonNeumann` are the two of the package, and the recipe in
    ARCHITECTURE.md adds a third the same way (a test builds one).

    ``params`` passed to the sweeps holds ``slack``, ``order``, ``tol``,
    ``max_iter``, ``verbose``, ``random_state`` (the run's RandomState) and
    ``owner`` (the estimator's name, for messages); the rows' sweep also
    gets ``advice`` (what the warning suggests when hard rows stay
    violated).  ``basis`` passed to the sweeps is the run's, as
    :meth:`basis` returned it.
    """

    def basis(self, G, touched, G_t):
        """The basis a run works in, and the rows ``touched`` in it.

        Parameters
        ----------
        G : rows object
            The initial factor's training rows (:mod:`sklearn_bregman._data`).
        touched : ndarray of shape (t,)
            Rows of ``G`` the constraints use.
        G_t : ndarray of shape (t, r)
            Those rows of G0.

        Returns
        -------
        basis : object
            What :meth:`coordinates` and the state conversions need.
        C_t : ndarray of shape (t, r')
            The touched rows in the engine's coordinates.
        """
        raise NotImplementedError

    def coordinates(self, basis, G_rows):
        """Rows of G0 (``phi0`` of points) in the engine's coordinates."""
        raise NotImplementedError

    def initial_state(self, basis, rank):
        """The engine's state at the prior (the initial kernel)."""
        raise NotImplementedError

    def prior(self, basis, rank):
        """The initial kernel in the engine's coordinates, as a matrix (the
        general rows are scaled to unit size under it)."""
        raise NotImplementedError

    def state_of_metric(self, M, basis):
        """The engine's state of the learned kernel ``G0 M G0'``."""
        raise NotImplementedError

    def metric_of_state(self, state, basis):
        """M of ``K = G0 M G0'`` from the engine's state."""
        raise NotImplementedError

    def sweep_pairs(self, C, pairs, state, *, skipped, start, params, basis):
        """Bregman projections on pair constraints until they settle.

        ``C`` holds the rows of the pairs' points in the engine's coordinates
        and ``pairs`` (a PairConstraints) index them; ``skipped`` flags the
        zero-length pairs (never visited); ``start`` is ``(nu, xi)``, the
        duals and slack targets to start from; ``basis`` the run's.  Returns
        the engine's :class:`~sklearn_bregman._engine.ProjectionResult`.
        """
        raise NotImplementedError

    def sweep_rows(self, rows, state, *, start, params, basis):
        """Bregman projections on general linear rows
        (:class:`~sklearn_bregman._engine.LinearRows`, JMLR 2009, Section
        6.2.2) until they settle; returns a ProjectionResult."""
        raise NotImplementedError

    def counts(self, result):
        """Fitted attributes of this divergence's own, from a run's result
        (a dict; e.g. von Neumann's ``n_evals_``)."""
        return {}


class _EngineDivergence(Divergence):
    """A divergence whose sweeps are the engine's, registered under ``name``
    (``_engine._driver.SWEEPS`` and ``_engine._linear_rows.LINEAR_SWEEPS``)."""

    name = None

    def sweep_pairs(self, C, pairs, state, *, skipped, start, params, basis):
        return pair_projections(C, pairs, state, divergence=self.name, skip=skipped,
                                start=start, warn_skipped=False, **params)

    def sweep_rows(self, rows, state, *, start, params, basis):
        return linear_projections(rows, state, divergence=self.name, start=start,
                                  warn_skipped=False, **params)


class LogDet(_EngineDivergence):
    """LogDet (JMLR 2009, Alg. 1-2, Section 5.1): the state is M, the prior I."""

    name = "logdet"

    def basis(self, G, touched, G_t):
        # invariant under congruence: the factor's own coordinates will do
        return None, G_t

    def coordinates(self, basis, G_rows):
        return G_rows

    def initial_state(self, basis, rank):
        return np.eye(rank)

    def prior(self, basis, rank):
        return np.eye(rank)

    def state_of_metric(self, M, basis):
        return M

    def metric_of_state(self, state, basis):
        return state


def kernel_unit(s):
    """The exponent ``k`` of the unit ``c = 4**k`` in which the von Neumann
    engine holds a kernel whose initial factor has singular values ``s``.

    The start is ``log X0 = diag(log s^2)``; while its entries lie within
    ``DIVERGED_LOG / 2`` of 0 (``s^2`` in about 1e-50 .. 1e50: the constraints
    keep the other half of the guard's range to move it) the unit is 1
    (``k = 0``, the run is the one it always was).  Beyond, ``c`` is the power
    of four nearest ``s_max s_min``, the geometric middle of the initial
    spectrum, so that ``log(X0 / c)`` is centred on 0 (``s_min >= 1e-10
    s_max``, so within about 23 of it): a power of two, so that ``s / 2**k``
    and every rescaling by ``c`` are exact.
    """
    log_s = np.log2(s)
    if 2.0 * np.log(2.0) * np.abs(log_s).max(initial=0.0) <= DIVERGED_LOG / 2:
        return 0
    return int(np.rint((log_s.max() + log_s.min()) / 2))


def _in_unit(basis):
    """``(S / 2**k, Vt, c)`` of a von Neumann basis: the singular values in
    the engine's unit (``K0 / c = U (S / 2**k)^2 U'``), and ``c = 4**k``."""
    s, Vt = basis
    k = kernel_unit(s)
    return np.ldexp(s, -k), Vt, np.ldexp(1.0, 2 * k)


class VonNeumann(_EngineDivergence):
    """von Neumann (JMLR 2009, Alg. 3, Section 5.2): posed on an orthonormal
    basis U of range(G0), the state is ``log(X / c)`` with ``K = U X U'``, in
    the unit ``c`` of :func:`kernel_unit` (module docstring)."""

    name = "vonneumann"

    def basis(self, G, touched, G_t):
        # the rows of U at the touched rows (G0 = U S V'), as the rows object
        # computes them: in memory from the SVD of G0, on dask chunks from the
        # R of a tall-skinny QR
        U_t, s, Vt = G.orthonormal_rows(touched, G_t)
        return (s, Vt), U_t

    def coordinates(self, basis, G_rows):
        s, Vt = basis
        return (G_rows @ Vt.T) / s

    def initial_state(self, basis, rank):
        return np.diag(2.0 * np.log(_in_unit(basis)[0]))

    def prior(self, basis, rank):
        # in the engine's unit: the general rows are scaled to unit size under
        # X0 / c, so that their values stay near 1 in the engine (their
        # bounds, built from the user's, are c times the engine's: sweep_rows)
        return np.diag(_in_unit(basis)[0] ** 2)

    def state_of_metric(self, M, basis):
        # K / c = G0 M G0' / c = U (S~ V' M V S~) U' with S~ = S / 2**k
        s, Vt, _ = _in_unit(basis)
        X = s[:, None] * (Vt @ M @ Vt.T) * s
        w, Q = linalg.eigh((X + X.T) / 2)
        return (Q * np.log(np.maximum(w, np.finfo(float).tiny))) @ Q.T

    def metric_of_state(self, state, basis):
        s, Vt, _ = _in_unit(basis)
        return metric_from_log(state, s, Vt)

    def sweep_pairs(self, C, pairs, state, *, skipped, start, params, basis):
        # bounds and slack targets are squared distances: the engine's are the
        # user's / c (its warnings show them times c).  The duals (of log X,
        # on orthonormal rows) and the slack update xi exp(-alpha / gamma) do
        # not depend on the unit.
        c = _in_unit(basis)[2]
        nu, xi = start
        scaled = pair_constraints_of_valid(pairs.i, pairs.j, pairs.sign, pairs.bound / c)
        result = pair_projections(C, scaled, state, divergence=self.name, skip=skipped,
                                  start=(nu, xi / c), warn_skipped=False, unit=c, **params)
        return replace(result, targets=result.targets * c)

    def sweep_rows(self, rows, state, *, start, params, basis):
        # The rows are unit-sized under X0 / c (prior), so their matrices are
        # c times those unit-sized under X0 and their duals 1/c times those;
        # the bounds and targets the builder and the stream hold are the
        # user's over those sizes, c times the engine's (and the sizes that
        # take the engine's values back to the user's, for the warnings, c
        # times theirs).  The quadratic slack penalty gamma / 2 (xi - b)^2
        # weighs against D(X, X0) = c D(X / c, X0 / c): gamma / c against the
        # engine's divergence, the same problem.
        c = _in_unit(basis)[2]
        nu, xi = start
        engine_rows = replace(rows, bound=rows.bound / c, scale=rows.scale * c)
        result = super().sweep_rows(engine_rows, state, start=(nu, xi / c),
                                    params={**params, "slack": params["slack"] / c},
                                    basis=basis)
        return replace(result, targets=result.targets * c)

    def counts(self, result):
        return {"n_evals_": result.n_evals}
