"""Learning from a stream of pair constraints: what ``partial_fit`` keeps.

Bregman's method with dual corrections (JMLR 2009, Section 3.4; Censor &
Zenios 1997, Algorithm 6.3.1) keeps, after every projection, the state and
the duals tied to the prior: for the LogDet divergence
``M^-1 = M_prior^-1 + sum_c sign_c nu_c v_c v_c'`` (von Neumann:
``log M = log M_prior + sum_c ...``), and each slack target ``xi_c`` a
function of its bound and its dual (JMLR 2009, eq. 22).  A constraint that
has not been visited yet has dual 0 and target its bound.  So a run over
the constraints seen so far that starts from the state, duals and targets
where the last run stopped, with the new constraints at dual 0, is a run of
the same method on the union from the first prior: it converges to the
optimum of the union, which a ``fit`` on the union reaches from zero duals.
It is not much shorter in sweeps: cyclic projections converge linearly, and
the new constraints' duals disturb most of the old ones beyond ``tol``
(measured on the digits: 60 % of them after a batch of 5 %), so a warm call
takes about 0.8 of a cold fit's sweeps over the same constraints (the
saving of a stream is the refit's other work, and, with a window, the
constraints it no longer sweeps).

:class:`PairStream` is that memory: the two rows of each constraint in the
engine's coordinates (the data's for ITML, the initial factor's for the
kernel learners), signs, bounds, duals and targets, and the r x r state.
With ``max_constraints=m`` the oldest constraints are retired when more
than m are kept: their rows, duals and targets are dropped, the state is
not changed, so their duals stay frozen in it (the prior of the kept ones
becomes ``M_prior^-1 + sum_retired sign_c nu_c v_c v_c'``): memory is
O(m (r + 1)) whatever the length of the stream, and each call then finds
the nearest matrix to that moving prior that meets the last m constraints.
"""

import numpy as np

from .._constraints._containers import pair_constraints_of_valid
from .._engine import (
    LinearRows,
    linear_projections,
    pair_projections,
    warn_skipped_rows,
    warn_zero_length,
)

__all__ = ["PairStream", "RowStream"]


class _Stream:
    """What both streams share: the state, the kept constraints' fields (one
    array per name in ``_FIELDS``, first axis the constraint), the counts,
    and the window of ``max_constraints``."""

    _FIELDS = ()

    def __init__(self, state, *, divergence, rng, max_constraints, bounds=None, **empty):
        self.state = np.array(state, dtype=np.float64, order="C", copy=True)
        self.divergence = divergence
        self.bounds = bounds
        self.rng = rng
        self.max_constraints = max_constraints
        for name in self._FIELDS:
            setattr(self, name, empty.get(name, np.empty(0)))
        #: constraints added (those never visited included), and retired
        self.n_seen = 0
        self.n_retired = 0

    def __len__(self):
        return self.bound.size

    def _keep(self, **batch):
        """Append a batch (every field, with dual 0 and target its bound)
        and retire the oldest beyond ``max_constraints``: their rows, duals
        and targets are dropped, the state keeps their duals' contribution
        (module docstring)."""
        m = batch["bound"].size
        batch.update(nu=np.zeros(m), xi=batch["bound"].copy())
        self.n_seen += m
        for name in self._FIELDS:
            setattr(self, name, np.concatenate([getattr(self, name), batch[name]]))
        extra = len(self) - (self.max_constraints or len(self))
        if extra > 0:
            for name in self._FIELDS:
                setattr(self, name, getattr(self, name)[extra:].copy())
            self.n_retired += extra

    def _took(self, result):
        """Where a run ended: the next call starts there."""
        self.state = np.array(result.state, order="C", copy=True)
        self.nu = result.dual.copy()
        self.xi = result.targets.copy()
        return result

    def _last(self, values, n_batch):
        """``values`` of the last batch's ``n_batch`` constraints (0 for those
        already retired, when the window is smaller than the batch)."""
        out = np.zeros(n_batch)
        m = min(n_batch, len(self))
        out[n_batch - m:] = values[len(self) - m:]
        return out


class PairStream(_Stream):
    """The pair constraints kept between ``partial_fit`` calls, and the state.

    Parameters
    ----------
    state : ndarray of shape (r, r)
        The engine's state at the start: the prior M0 (LogDet) or log M0
        (von Neumann), in the coordinates of the rows that will be added.
    divergence : {'logdet', 'vonneumann'}
    rng : RandomState
        Draws the pairs from labels and the sweeps' random order, call after
        call.
    max_constraints : int or None
        Most constraints kept (the oldest are retired); ``None``: all.
    bounds : str or tuple, default=None
        The bound rule of the stream, fixed by the first call: the
        percentiles measured then as ``(upper, lower)``, or the estimator's
        ``bounds`` ('relative' or two numbers); ``None`` until then.
    """

    _FIELDS = ("Pi", "Pj", "sign", "bound", "skipped", "nu", "xi")

    def __init__(self, state, *, divergence, rng, max_constraints, bounds=None):
        r = np.shape(state)[0]
        super().__init__(state, divergence=divergence, rng=rng,
                         max_constraints=max_constraints, bounds=bounds,
                         Pi=np.empty((0, r)), Pj=np.empty((0, r)),
                         sign=np.empty(0, np.int8), skipped=np.empty(0, bool))

    def add(self, Pi, Pj, sign, bound, skipped, *, owner):
        """Keep the constraints ``v = Pi - Pj`` (rows in the state's
        coordinates) with dual 0 and target their bound.  Zero-length pairs
        (``skipped``: no matrix moves them) are reported once, here, and
        kept, never visited, for the optimality test, which holds them to
        their bound at distance 0 (a dissimilar one then stays violated and
        ``converged_`` False).  Retires the oldest beyond
        ``max_constraints``."""
        skipped = np.asarray(skipped, dtype=bool)
        warn_zero_length(skipped, owner)
        self._keep(Pi=Pi, Pj=Pj, sign=np.asarray(sign, np.int8),
                   bound=np.asarray(bound, np.float64), skipped=skipped)

    def run(self, *, slack, order, tol, max_iter, verbose, owner):
        """Sweep every kept constraint from where the last call stopped until
        the optimality conditions hold on them all; returns the engine's
        :class:`~sklearn_bregman._engine.ProjectionResult` (its duals are
        the kept constraints')."""
        c = len(self)
        G = np.concatenate([self.Pi, self.Pj])
        pairs = pair_constraints_of_valid(np.arange(c), c + np.arange(c),
                                          self.sign, self.bound)
        # (the zero-length pairs were reported once, by add)
        return self._took(pair_projections(
            G, pairs, self.state, divergence=self.divergence, slack=slack, order=order,
            tol=tol, max_iter=max_iter, random_state=self.rng, verbose=verbose,
            owner=owner, skip=self.skipped, start=(self.nu, self.xi), warn_skipped=False))

    def batch_duals(self, n_batch):
        """The duals of the last batch's ``n_batch`` constraints."""
        return self._last(self.nu, n_batch)


class RowStream(_Stream):
    """The general rows (JMLR 2009, Section 6.2.2) kept between ``partial_fit``
    calls, and the state: :class:`PairStream` for relative, similarity and
    linear constraints and triplets.

    Rows are kept as the engine builds them
    (:class:`~sklearn_bregman._engine.LinearRows`: ``C_c = sum_k S[c, k]
    V[c, k] V[c, k]'`` scaled to unit size under the initial state ``X0``,
    which the stream fixes), with their duals and slack targets in those
    scaled units; a batch with more vectors per row widens the others with
    unused slots.

    Parameters
    ----------
    state : ndarray of shape (r, r)
        The engine's state at the start (X0, or log X0 for von Neumann).
    divergence, rng, max_constraints
        As :class:`PairStream`.
    """

    _FIELDS = ("V", "S", "kind", "bound", "scale", "flip", "skipped", "nu", "xi")

    def __init__(self, state, *, divergence, rng, max_constraints):
        r = np.shape(state)[0]
        super().__init__(state, divergence=divergence, rng=rng,
                         max_constraints=max_constraints, V=np.empty((0, 1, r)),
                         S=np.empty((0, 1), np.int8), kind=np.empty(0, np.int8),
                         skipped=np.empty(0, bool))

    def add(self, rows, *, owner):
        """Keep a batch's rows (a :class:`~sklearn_bregman._engine.LinearRows`)
        with dual 0 and target their bound; the skipped ones (zero in the
        initial kernel's range) are reported once, here, and kept unvisited
        for the optimality test.  Retires the oldest beyond
        ``max_constraints``."""
        warn_skipped_rows(rows.skipped, owner)
        q = max(self.V.shape[1], rows.V.shape[1])
        self.V, self.S = _widen(self.V, q), _widen(self.S, q)
        self._keep(V=_widen(rows.V, q), S=_widen(rows.S, q), kind=rows.kind,
                   bound=rows.bound, scale=rows.scale, flip=rows.flip,
                   skipped=rows.skipped)

    def run(self, *, slack, order, tol, max_iter, verbose, owner, advice):
        """Sweep every kept row from where the last call stopped until the
        optimality conditions hold on them all; returns the engine's
        :class:`~sklearn_bregman._engine.ProjectionResult` (duals and targets
        in the rows' scaled units)."""
        rows = LinearRows(V=np.ascontiguousarray(self.V), S=np.ascontiguousarray(self.S),
                          kind=self.kind, bound=self.bound, scale=self.scale,
                          flip=self.flip, skipped=self.skipped)
        return self._took(linear_projections(
            rows, self.state, divergence=self.divergence, slack=slack, order=order,
            tol=tol, max_iter=max_iter, random_state=self.rng, verbose=verbose,
            owner=owner, advice=advice, start=(self.nu, self.xi), warn_skipped=False))

    def batch_duals(self, n_batch):
        """The last batch's duals in the user's units and sense."""
        return self._last(self.nu * self.flip / self.scale, n_batch)


def _widen(A, q):
    """``A`` (rows of vectors, shape (c, q0, ...)) with unused slots up to ``q``."""
    if A.shape[1] == q:
        return A
    pad = [(0, 0), (0, q - A.shape[1])] + [(0, 0)] * (A.ndim - 2)
    return np.pad(A, pad)
