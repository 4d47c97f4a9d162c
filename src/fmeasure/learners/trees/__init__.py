"""F-measure decision trees and their bagging (paper Section 7.1.2).

A binary tree whose splits maximise ::

    Q = |N_L| / |N| F(N_L) + |N_R| / |N| F(N_R),   F(A) = max_h (1 / |A|) sum_{y in A} F(y, h),

the best mean instance-wise F-measure reachable on a node's training label vectors, i.e. the
value of the General F-measure Maximizer (GFM) on the node's empirical distribution. Leaves
predict that maximiser. :class:`.BaggedFMeasureTrees` fits B such trees on bootstrap samples and
predicts by GFM either over the pooled training label vectors of the leaves a query reaches
(``"pooled"``) or over the B trees' predictions (``"vote"``).

The package is organised like scikit-learn's ``sklearn.tree``:

* :mod:`.counts`: the per-example count vectors whose sums give P and P(y = 0), and GFM on them;
* :mod:`.binning`: candidate thresholds per attribute and the attributes coded by bin;
* :mod:`.splitter`: the split search of one node (histograms, cumulative counts, bounds);
* :mod:`.estimators`: :class:`.FMeasureTree`, :class:`.BaggedFMeasureTrees` and
  :func:`pooled_leaf_gfm`.
"""

from fmeasure.learners.trees.binning import BinnedData, bin_edges
from fmeasure.learners.trees.counts import gfm_from_counts, gfm_values, label_contributions
from fmeasure.learners.trees.estimators import BaggedFMeasureTrees, FMeasureTree, pooled_leaf_gfm
from fmeasure.learners.trees.splitter import split_statistics

__all__ = [
    "BaggedFMeasureTrees",
    "BinnedData",
    "FMeasureTree",
    "bin_edges",
    "gfm_from_counts",
    "gfm_values",
    "label_contributions",
    "pooled_leaf_gfm",
    "split_statistics",
]
