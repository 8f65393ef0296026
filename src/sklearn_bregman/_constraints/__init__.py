"""Side information as constraints.

The containers and the generators that draw them from labels
(``_containers``, named by the public :mod:`sklearn_bregman.constraints`),
the checks of their fields (``_validation``), the labels and their samplers
(``_labels``), the bounds of pairs (``_bounds``), and a fit's constraints
resolved into what the engine sweeps (``_resolve``, ``_rows``).
ARCHITECTURE.md's import layers say what this folder may import.
"""
