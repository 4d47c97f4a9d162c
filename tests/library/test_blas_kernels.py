"""The same fitted chain under two CPUs' floating-point kernels.

OpenBLAS picks its kernels by CPU at run time, and kernels of different CPUs round differently.
``OPENBLAS_CORETYPE`` makes one machine run another CPU's kernels, so two fits of the same chain in
two processes, one under this CPU's kernels and one under another type's, stand for the same fit
on two machines. The tuned logistic models of the chain are run to their optimum
(``fmeasure.learners.logistic.POLISH_TOL``), so their logits agree to about 1e-10 whatever the
kernels; stopped where lbfgs stops (tol 1e-4), the same fits differ by about 1e-3 in the logits here
(on scene's full chain by 0.05), enough to change which label vectors the chain samples.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

#: A chain on correlated features, large enough (1,200 x 300) that the kernels' blocking differs.
FIT = """
import json, sys
import numpy as np
import threadpoolctl
from fmeasure.learners.pcc import ProbabilisticClassifierChain

rng = np.random.default_rng(0)
n, d, m = 1200, 300, 4
Z = rng.normal(size=(n, 5))
X = Z @ rng.normal(size=(5, d)) + 0.3 * rng.normal(size=(n, d))
Y = (Z[:, :m] + rng.normal(size=(n, m)) > 0.5).astype(int)
chain = ProbabilisticClassifierChain(Cs=[0.1, 1.0, 10.0], cv=3, random_state=0, n_jobs=1).fit(X, Y)
logits = X[:200] @ chain.coef_x_.T + chain.intercept_
kernels = sorted({i.get("architecture") for i in threadpoolctl.threadpool_info() if i["internal_api"] == "openblas"})
print(json.dumps({"kernels": kernels, "C": chain.C_.tolist(), "logits": logits.tolist(), "coef_y": chain.coef_y_.tolist()}))
"""


def _fit(coretype=None):
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    if coretype:
        env["OPENBLAS_CORETYPE"] = coretype
    r = subprocess.run([sys.executable, "-c", FIT], capture_output=True, text=True, env=env, check=True)
    return json.loads(r.stdout.splitlines()[-1])


def test_chain_fit_is_the_same_under_two_cpus_kernels():
    here = _fit()
    if not here["kernels"]:
        pytest.skip("NumPy and SciPy do not use OpenBLAS here: no kernel type to choose")
    other = "SandyBridge" if "Haswell" in here["kernels"] else "Haswell"
    there = _fit(other)
    assert here["kernels"] != there["kernels"], (here["kernels"], there["kernels"])  # two kernel sets ran
    assert here["C"] == there["C"]
    for key in ("logits", "coef_y"):
        a, b = np.array(here[key]), np.array(there[key])
        assert np.abs(a - b).max() <= 1e-9 * max(1.0, np.abs(a).max()), (key, np.abs(a - b).max())
