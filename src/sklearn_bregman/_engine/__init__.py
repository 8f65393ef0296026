"""The projection engine shared by every learner of the suite.

``_logdet.pyx`` holds the compiled sweep (every projection of one pass over
the constraints, in C); :mod:`._driver` runs sweeps until the dual variables
stop moving.  See DESIGN.md, layer 3.
"""

from ._driver import ProjectionResult, logdet_pair_projections

__all__ = ["ProjectionResult", "logdet_pair_projections"]
