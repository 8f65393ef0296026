"""The projection engine shared by every learner of the suite.

This package's interface is the only door into the engine: estimator and
factor modules import from ``sklearn_bregman._engine``, never from its
submodules.

``_logdet.pyx``, ``_vonneumann.pyx``, ``_definiteboost_steps.pyx``, ``_triplet_sweep.pyx``,
``_linear.pyx``, ``_vn_linear.pyx`` and ``_correlation.pyx`` (projections onto
a unit diagonal) hold the compiled sweeps (every projection of one pass over
the constraints, in C; vector kernels in the ``.h`` files), ``_csi_steps.pyx`` the
compiled steps of Cholesky with side information (``_testing.pyx`` exposes
compiled internals to the tests only and is not exported here);
:mod:`._geometry` computes squared distances of pairs of rows,
:mod:`._linear_rows` sets up the sweeps on general linear rows and
:mod:`._unit_diagonal` those onto a unit diagonal;
:mod:`._frobenius` solves the Frobenius-norm nearest correlation matrix
(Qi & Sun's Newton method on its dual, or Higham's alternating projections);
:mod:`._driver` runs sweeps until the dual variables stop moving and the
optimality (KKT) conditions hold, and guards the state.  See
ARCHITECTURE.md, layer 3, and the user guide, docs/user_guide/convergence.md
("What a fit promises").
"""

from ._csi_steps import (
    cholesky_append,
    complete_pending,
    estimated_gains,
    lookahead_added,
    lookahead_chosen,
    lookahead_step,
    move_pivot,
    move_pivot_u,
    qr_append,
    qr_step,
    rotate_chain,
)
from ._definiteboost_steps import meg_steps
from ._driver import (
    DIVERGED_LOG,
    ZERO_LENGTH_RTOL,
    ProjectionResult,
    UnitDiagonalResult,
    definiteboost,
    max_squared_norm,
    moderate_state,
    pair_projections,
    relative_gap,
    renormalise_log_trace,
    triplet_projections,
    warn_zero_length,
    zero_length_pairs,
)
from ._frobenius import FrobeniusResult, frobenius_nearest_correlation
from ._geometry import pair_sqdist
from ._linear_rows import LinearRows, linear_projections, row_values, warn_skipped_rows
from ._unit_diagonal import logdet_nearest_correlation, vonneumann_nearest_correlation

__all__ = [
    "DIVERGED_LOG",
    "ZERO_LENGTH_RTOL",
    "FrobeniusResult",
    "LinearRows",
    "ProjectionResult",
    "UnitDiagonalResult",
    "cholesky_append",
    "complete_pending",
    "definiteboost",
    "linear_projections",
    "logdet_nearest_correlation",
    "estimated_gains",
    "frobenius_nearest_correlation",
    "lookahead_added",
    "lookahead_chosen",
    "lookahead_step",
    "max_squared_norm",
    "meg_steps",
    "moderate_state",
    "move_pivot",
    "move_pivot_u",
    "pair_sqdist",
    "pair_projections",
    "qr_append",
    "qr_step",
    "relative_gap",
    "renormalise_log_trace",
    "rotate_chain",
    "row_values",
    "triplet_projections",
    "vonneumann_nearest_correlation",
    "warn_skipped_rows",
    "warn_zero_length",
    "zero_length_pairs",
]
