"""sklearn_bregman: kernel and metric learning with Bregman matrix divergences.

Estimators follow scikit-learn's API and work in ``Pipeline`` and
``GridSearchCV``.
"""

import importlib.metadata

from ._learners._base import learner_tags
from ._learners._cluster import KernelKMeans
from ._learners._csi import CSIDecomposition
from ._learners._definiteboost import DefiniteBoost
from ._learners._itml import ITMLTransformer
from ._learners._kernel_learning import LogDetKernelLearner, VonNeumannKernelLearner
from ._learners._nearest_correlation import NearestCorrelation
from ._learners._scorers import kernel_kmeans_scorer, knn_scorer
from ._learners._sklr import SKLRClusterer
from ._tuples._pairs import PairClassifier, PairKFold
from ._tuples._quadruplets import QuadrupletClassifier
from ._tuples._triplets import TripletClassifier
from .constraints import (
    PairConstraints,
    TripletConstraints,
    equal_triplets_from_labels,
    pairs_from_labels,
    triplets_from_labels,
)

__version__ = importlib.metadata.version("sklearn_bregman")

__all__ = [
    "CSIDecomposition",
    "DefiniteBoost",
    "ITMLTransformer",
    "KernelKMeans",
    "LogDetKernelLearner",
    "NearestCorrelation",
    "PairClassifier",
    "PairKFold",
    "PairConstraints",
    "QuadrupletClassifier",
    "SKLRClusterer",
    "TripletClassifier",
    "TripletConstraints",
    "VonNeumannKernelLearner",
    "kernel_kmeans_scorer",
    "knn_scorer",
    "learner_tags",
    "equal_triplets_from_labels",
    "pairs_from_labels",
    "triplets_from_labels",
    "__version__",
]
