"""sklearn_bregman: kernel and metric learning with Bregman matrix divergences.

Estimators follow scikit-learn's API and work in ``Pipeline`` and
``GridSearchCV``.
"""

from .constraints import PairConstraints, pairs_from_labels
from .itml import ITMLTransformer
from .kernel_learning import LogDetKernelLearner

__version__ = "0.1.0.dev0"

__all__ = [
    "ITMLTransformer",
    "LogDetKernelLearner",
    "PairConstraints",
    "pairs_from_labels",
    "__version__",
]
