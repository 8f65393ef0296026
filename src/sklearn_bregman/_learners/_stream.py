"""A run of the engine over kept constraints: what ``fit`` sweeps once and
what ``partial_fit`` keeps between calls.

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
(The user guide's streams page measures what a warm call saves.)

:class:`PairStream` is that memory for pairs: the rows of the pairs' points
in the engine's coordinates (the data's for ITML, the initial factor's for
the kernel learners, each row once per batch), the pairs' indices into them,
signs, bounds, duals and targets, and the r x r state; :class:`RowStream`
the same for general rows.  A ``fit`` is one run of a new stream that is not
kept; a ``partial_fit`` call adds its batch to the kept one and sweeps.
With ``max_constraints=m`` the oldest constraints are retired when more
than m are kept: their rows, duals and targets are dropped, the state is
not changed, so their duals stay frozen in it (the prior of the kept ones
becomes ``M_prior^-1 + sum_retired sign_c nu_c v_c v_c'``): memory is
O(m (r + 1)) whatever the length of the stream, and each call then finds
the nearest matrix to that moving prior that meets the last m constraints.

A stream is never changed in place: :meth:`~_Stream.added` and
:meth:`~_Stream.swept` return a new one (sharing the arrays they do not
change), and each call draws from its own copy of the random stream
(:meth:`~_Stream.for_call`), so that a call that fails leaves the stream
it started from as it was, its random state included.  The first call too:
a stream starts from the call's private copy of the estimator's
``random_state`` (:func:`~sklearn_bregman._utils._state.call_random_state`),
never from the user's RandomState (or NumPy's global one) itself, which the
user may draw from between calls.
"""

import copy

import numpy as np

from .._constraints._containers import pair_constraints_of_valid
from .._engine import LinearRows, warn_skipped_rows, warn_zero_length

__all__ = ["PairStream", "RowStream"]


class _Stream:
    """What both streams share: the divergence, its basis and state, the
    kept constraints' fields (one array per name in ``_FIELDS``, first axis
    the constraint), the counts, and the window of ``max_constraints``.

    Parameters
    ----------
    divergence : Divergence
        The strategy that sweeps (:mod:`._divergences`).
    basis : object
        The divergence's basis, fixed by the first call.
    state : ndarray of shape (r, r)
        The engine's state at the start: the prior (M0 or log M0), or a
        fitted model's.
    rng : RandomState
        Draws the constraints from labels and the sweeps' random order,
        call after call: the stream's own (a first call's private copy of
        the estimator's ``random_state``, never the user's object).
    max_constraints : int or None
        Most constraints kept (the oldest are retired); ``None``: all.
    bounds : str, tuple or None, default=None
        The bound rule of the stream, fixed by the first call: the
        percentiles measured then as ``(upper, lower)``, or the estimator's
        ``bounds`` ('relative' or two numbers); ``None`` until then.
    G0 : ndarray of shape (n, r) or None, default=None
        The first call's training rows of the initial factor (the kernel
        learners' ``embedding_`` maps them).
    """

    _FIELDS = ()

    def __init__(self, divergence, basis, state, *, rng, max_constraints, bounds=None,
                 G0=None, **empty):
        self.divergence = divergence
        self.basis = basis
        self.state = np.array(state, dtype=np.float64, order="C", copy=True)
        self.rng = rng
        self.max_constraints = max_constraints
        self.bounds = bounds
        self.G0 = G0
        for name in self._FIELDS:
            setattr(self, name, empty.get(name, np.empty(0)))
        #: constraints added (those never visited included), and retired
        self.n_seen = 0
        self.n_retired = 0

    def __len__(self):
        return self.bound.size

    def _replace(self, **changes):
        """A new stream with ``changes`` (the arrays not changed are shared,
        and never written to)."""
        new = copy.copy(self)
        new.__dict__.update(changes)
        return new

    def for_call(self, *, max_constraints):
        """The stream a new call works on: its own copy of the random stream
        (the call's draws leave this one's as it was if the call fails), and
        the window of this call's ``max_constraints`` (a ``set_params``
        between calls is honoured)."""
        return self._replace(rng=copy.deepcopy(self.rng), max_constraints=max_constraints)

    def fixing_bounds(self, bounds):
        """This stream, or a new one with the bound rule ``bounds`` when none
        is fixed yet (a run that continues a fitted model takes its first
        batch's)."""
        return self if self.bounds is not None else self._replace(bounds=bounds)

    def _keep(self, **batch):
        """A new stream with a batch appended (every field, with dual 0 and
        target its bound) and the oldest retired beyond ``max_constraints``:
        their rows, duals and targets are dropped, the state keeps their
        duals' contribution (module docstring)."""
        m = batch["bound"].size
        batch.update(nu=np.zeros(m), xi=batch["bound"].copy())
        fields = {name: np.concatenate([getattr(self, name), batch[name]])
                  for name in self._FIELDS}
        extra = fields["bound"].size - (self.max_constraints or fields["bound"].size)
        retired = max(extra, 0)
        if retired:
            fields = {name: value[retired:].copy() for name, value in fields.items()}
        return self._replace(n_seen=self.n_seen + m, n_retired=self.n_retired + retired,
                             **fields)

    def _took(self, result):
        """The stream where a run ended: the next call starts there."""
        return self._replace(state=np.array(result.state, order="C", copy=True),
                             nu=result.dual.copy(), xi=result.targets.copy())

    def _last(self, values, n_batch):
        """``values`` of the last batch's ``n_batch`` constraints (0 for those
        already retired, when the window is smaller than the batch)."""
        out = np.zeros(n_batch)
        m = min(n_batch, len(self))
        out[n_batch - m:] = values[len(self) - m:]
        return out


class PairStream(_Stream):
    """The pair constraints of a run, kept between ``partial_fit`` calls, and
    the state.

    The rows of the pairs' points are kept once per batch in ``table`` (in
    the engine's coordinates); the pairs index them.  Parameters as
    :class:`_Stream`.
    """

    _FIELDS = ("i", "j", "sign", "bound", "skipped", "nu", "xi")

    def __init__(self, divergence, basis, state, *, rng, max_constraints, bounds=None,
                 G0=None, table=None):
        r = np.shape(state)[0]
        super().__init__(divergence, basis, state, rng=rng, max_constraints=max_constraints,
                         bounds=bounds, G0=G0, i=np.empty(0, np.intp), j=np.empty(0, np.intp),
                         sign=np.empty(0, np.int8), skipped=np.empty(0, bool))
        self.table = np.empty((0, r)) if table is None else table

    def added(self, C, pairs, skipped, *, owner):
        """A new stream that keeps the constraints of ``pairs`` (indices into
        the rows ``C``, in the state's coordinates) with dual 0 and target
        their bound.  Zero-length pairs (``skipped``: no matrix moves them)
        are reported once, here, and kept, never visited, for the optimality
        test, which holds them to their bound at distance 0 (a dissimilar one
        then stays violated and ``converged_`` False).  Retires the oldest
        beyond ``max_constraints``, and the rows no kept pair uses."""
        skipped = np.asarray(skipped, dtype=bool)
        warn_zero_length(skipped, owner)
        offset = self.table.shape[0]
        new = self._replace(table=np.concatenate([self.table, C]) if offset else
                            np.asarray(C, dtype=np.float64))
        new = new._keep(i=pairs.i + offset, j=pairs.j + offset,
                        sign=np.asarray(pairs.sign, np.int8),
                        bound=np.asarray(pairs.bound, np.float64), skipped=skipped)
        if new.n_retired > self.n_retired:  # rows of the retired pairs only: dropped
            used, inverse = np.unique(np.concatenate([new.i, new.j]), return_inverse=True)
            c = len(new)
            new = new._replace(table=new.table[used], i=inverse[:c], j=inverse[c:])
        return new

    def swept(self, params):
        """Sweep every kept constraint from where the last call stopped until
        the optimality conditions hold on them all (``params``: the
        divergence's sweep parameters; the random order is drawn from this
        stream's random stream): the new stream and the engine's
        :class:`~sklearn_bregman._engine.ProjectionResult` (its duals are the
        kept constraints')."""
        pairs = pair_constraints_of_valid(self.i, self.j, self.sign, self.bound)
        # (the zero-length pairs were reported once, by added)
        result = self.divergence.sweep_pairs(self.table, pairs, self.state,
                                             skipped=self.skipped, start=(self.nu, self.xi),
                                             params={**params, "random_state": self.rng},
                                             basis=self.basis)
        return self._took(result), result

    def batch_duals(self, n_batch):
        """The duals of the last batch's ``n_batch`` constraints."""
        return self._last(self.nu, n_batch)


class RowStream(_Stream):
    """The general rows (JMLR 2009, Section 6.2.2) of a run, kept between
    ``partial_fit`` calls, and the state: :class:`PairStream` for relative,
    similarity and linear constraints and triplets.

    Rows are kept as the engine builds them
    (:class:`~sklearn_bregman._engine.LinearRows`: ``C_c = sum_k S[c, k]
    V[c, k] V[c, k]'`` scaled to unit size under the initial state ``X0``,
    which the stream fixes), with their duals and slack targets in those
    scaled units; a batch with more vectors per row widens the others with
    unused slots.  Parameters as :class:`_Stream`.
    """

    _FIELDS = ("V", "S", "kind", "bound", "scale", "flip", "skipped", "fixed", "nu", "xi")

    def __init__(self, divergence, basis, state, *, rng, max_constraints, bounds=None,
                 G0=None):
        r = np.shape(state)[0]
        super().__init__(divergence, basis, state, rng=rng, max_constraints=max_constraints,
                         bounds=bounds, G0=G0, V=np.empty((0, 1, r)),
                         S=np.empty((0, 1), np.int8), kind=np.empty(0, np.int8),
                         skipped=np.empty(0, bool), fixed=np.empty(0, bool))

    def added(self, rows, *, owner):
        """A new stream that keeps a batch's rows (a
        :class:`~sklearn_bregman._engine.LinearRows`) with dual 0 and target
        their bound; the skipped ones (zero in the initial kernel's range)
        are reported once, here, and kept unvisited for the optimality test.
        Retires the oldest beyond ``max_constraints``."""
        warn_skipped_rows(rows.skipped, owner, rows.fixed)
        q = max(self.V.shape[1], rows.V.shape[1])
        new = self._replace(V=_widen(self.V, q), S=_widen(self.S, q))
        return new._keep(V=_widen(rows.V, q), S=_widen(rows.S, q), kind=rows.kind,
                         bound=rows.bound, scale=rows.scale, flip=rows.flip,
                         skipped=rows.skipped, fixed=rows.fixed)

    def swept(self, params):
        """Sweep every kept row from where the last call stopped until the
        optimality conditions hold on them all: the new stream and the
        engine's :class:`~sklearn_bregman._engine.ProjectionResult` (duals and
        targets in the rows' scaled units)."""
        rows = LinearRows(V=np.ascontiguousarray(self.V), S=np.ascontiguousarray(self.S),
                          kind=self.kind, bound=self.bound, scale=self.scale,
                          flip=self.flip, skipped=self.skipped, fixed=self.fixed)
        result = self.divergence.sweep_rows(rows, self.state, start=(self.nu, self.xi),
                                            params={**params, "random_state": self.rng},
                                            basis=self.basis)
        return self._took(result), result

    def batch_duals(self, n_batch):
        """The last batch's duals in the user's units and sense."""
        return self._last(self.nu * self.flip / self.scale, n_batch)


def _widen(A, q):
    """``A`` (rows of vectors, shape (c, q0, ...)) with unused slots up to ``q``."""
    if A.shape[1] == q:
        return A
    pad = [(0, 0), (0, q - A.shape[1])] + [(0, 0)] * (A.ndim - 2)
    return np.pad(A, pad)
