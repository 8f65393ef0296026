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
enter the same coordinates through it.
"""

import numpy as np
from scipy import linalg

from .._engine import linear_projections, pair_projections
from ._base import metric_from_log

__all__ = ["Divergence", "LogDet", "VonNeumann"]


class Divergence:
    """What a kernel learner needs of a divergence.

    A subclass implements every method below; :class:`LogDet` and
    :class:`VonNeumann` are the two of the package, and the recipe in
    ARCHITECTURE.md adds a third the same way (a test builds one).

    ``params`` passed to the sweeps holds ``slack``, ``order``, ``tol``,
    ``max_iter``, ``verbose``, ``random_state`` (the run's RandomState) and
    ``owner`` (the estimator's name, for messages); the rows' sweep also
    gets ``advice`` (what the warning suggests when hard rows stay
    violated).
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

    def sweep_pairs(self, C, pairs, state, *, skipped, start, params):
        """Bregman projections on pair constraints until they settle.

        ``C`` holds the rows of the pairs' points in the engine's coordinates
        and ``pairs`` (a PairConstraints) index them; ``skipped`` flags the
        zero-length pairs (never visited); ``start`` is ``(nu, xi)``, the
        duals and slack targets to start from.  Returns the engine's
        :class:`~sklearn_bregman._engine.ProjectionResult`.
        """
        raise NotImplementedError

    def sweep_rows(self, rows, state, *, start, params):
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

    def sweep_pairs(self, C, pairs, state, *, skipped, start, params):
        return pair_projections(C, pairs, state, divergence=self.name, skip=skipped,
                                start=start, warn_skipped=False, **params)

    def sweep_rows(self, rows, state, *, start, params):
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


class VonNeumann(_EngineDivergence):
    """von Neumann (JMLR 2009, Alg. 3, Section 5.2): posed on an orthonormal
    basis U of range(G0), the state is log X with ``K = U X U'``."""

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
        return np.diag(2.0 * np.log(basis[0]))

    def prior(self, basis, rank):
        return np.diag(basis[0] ** 2)

    def state_of_metric(self, M, basis):
        # K = G0 M G0' = U (S V' M V S) U'
        s, Vt = basis
        X = s[:, None] * (Vt @ M @ Vt.T) * s
        w, Q = linalg.eigh((X + X.T) / 2)
        return (Q * np.log(np.maximum(w, np.finfo(float).tiny))) @ Q.T

    def metric_of_state(self, state, basis):
        s, Vt = basis
        return metric_from_log(state, s, Vt)

    def counts(self, result):
        return {"n_evals_": result.n_evals}
