"""Side information as constraints: the containers, and the generators from labels.

A pair constraint asks the learned squared distance of two training points to
stay below a bound (similar pair, sign +1) or above one (dissimilar pair,
sign -1)::

    sign = +1:  d(i, j) <= bound        sign = -1:  d(i, j) >= bound

:class:`PairConstraints` holds a set of them as flat arrays so that the
compiled projection sweeps can walk them without Python objects per pair;
:class:`TripletConstraints` holds relative comparisons of three points, and
:class:`RelativeConstraints`, :class:`SimilarityConstraints` and
:class:`LinearConstraints` the other linear kinds of JMLR 2009, Section
6.2.2.  The generators draw them from class labels.

This is the public door of the constraints (ARCHITECTURE.md): the
containers and generators live in the private folder ``_constraints``, with
the checks of their fields, the labels and their samplers and the bounds
(whose :func:`set_pair_bounds` and :func:`percentile_bounds` are public
here); :func:`pair_sqdist` is the engine's.
"""

from ._constraints._bounds import percentile_bounds, set_pair_bounds
from ._constraints._containers import (
    LinearConstraints,
    PairConstraints,
    RelativeConstraints,
    SimilarityConstraints,
    TripletConstraints,
    check_pairs,
    check_triplet_constraints,
    check_triplets,
    equal_triplets_from_labels,
    pairs_from_labels,
    relative_from_labels,
    triplets_from_labels,
)
from ._engine import pair_sqdist

__all__ = [
    "LinearConstraints",
    "PairConstraints",
    "RelativeConstraints",
    "SimilarityConstraints",
    "TripletConstraints",
    "check_pairs",
    "check_triplet_constraints",
    "check_triplets",
    "equal_triplets_from_labels",
    "pair_sqdist",
    "pairs_from_labels",
    "percentile_bounds",
    "relative_from_labels",
    "set_pair_bounds",
    "triplets_from_labels",
]
