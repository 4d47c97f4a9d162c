"""Inference algorithms for the instance-wise F-measure (Sections 3-5 of the paper).

Every function accepts one instance or a batch and returns ``(h, value)``: ``h`` an int8 array
(m,) or (n, m), ``value`` the expected F-measure of ``h`` under the given inputs (a float or an
(n,) array). Inputs:

* ``gfm(delta, p_zero)``, ``gfm_from_p(P, p_zero)`` -- exact for any distribution (Section 5);
  ``gfm_from_samples(Y, weights=None)`` -- the same from a sample of label vectors (fast path);
  ``gfm_from_sample_rows(Y, rows, weights=None)`` -- the same when each sample is a set of rows
  of one label matrix (neighbours, leaves), read in sparse form;
* ``fm(p)``, ``jansche(p)``, ``lewis(p)``, ``marginal_modes(p)`` -- marginals; values are
  exact expectations under label independence;
* ``categorical(p)`` -- probabilities of the single-label vectors (Theorem 4.4);
* ``joint_mode``, ``threshold_marginals``, ``brute_force``, ``expected_f`` -- an explicit
  distribution given by support vectors and probabilities;
* ``from_samples(Ys, methods)`` -- MM, JM, FM and GFM from a sample of label vectors per
  instance: the one dispatch behind kNN, PCC and the simulations.
* ``loss_augmented(scores, y)`` -- label scores and true vectors: the most violating vector of a
  structured SVM with loss 1 - F (``value`` is score + loss, not an expected F).

Ties are broken deterministically: the smaller prediction first (the empty one before any
other), then the lowest label index.
"""

from .general import gfm, gfm_from_p, gfm_from_sample_rows, gfm_from_samples
from .independence import expected_f_independent, fm, jansche, lewis, marginal_modes
from .joint import brute_force, categorical, expected_f, joint_mode, threshold_marginals
from .samples import METHOD_LABELS, SAMPLE_METHODS, from_samples
from .structured import loss_augmented

__all__ = [
    "gfm",
    "gfm_from_p",
    "gfm_from_samples",
    "gfm_from_sample_rows",
    "fm",
    "jansche",
    "lewis",
    "marginal_modes",
    "joint_mode",
    "threshold_marginals",
    "categorical",
    "brute_force",
    "expected_f",
    "expected_f_independent",
    "from_samples",
    "SAMPLE_METHODS",
    "METHOD_LABELS",
    "loss_augmented",
]
