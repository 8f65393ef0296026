"""The projection engine shared by every learner of the suite.

``_logdet.pyx``, ``_vonneumann.pyx``, ``_definiteboost.pyx`` and ``_sklr.pyx``
hold the compiled sweeps (every
projection of one pass over the constraints, in C; vector kernels in the
``.h`` files); :mod:`._driver` runs sweeps until the dual variables stop
moving and the optimality (KKT) conditions hold, and guards the state.  See
DESIGN.md, layer 3, and README.md, "What a fit promises".
"""

from ._driver import ProjectionResult, definiteboost, pair_projections, triplet_projections

__all__ = ["ProjectionResult", "definiteboost", "pair_projections", "triplet_projections"]
