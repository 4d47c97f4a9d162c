"""Benchmark: what a fresh install pays to compile the numba kernels, per kernel.

Run from the repository root:

    PYTHONPATH=src python benchmarks/bench_compile.py             # the package's kernels
    PYTHONPATH=src python benchmarks/bench_compile.py --repeats 3 # best of three, each in a new process

Each run is a new interpreter with an empty numba cache (``NUMBA_CACHE_DIR`` a new temporary
folder) that calls ``fmeasure.learners.warmup.compile_kernels`` (what the workflow runs once before
its first job on a fresh install, and the test session before its workers start). It prints the CPU
seconds of each top-level kernel's compilation (its callees included), the total, and every callee
compiled for more than one type signature, with the parameters that differ.

A callee compiled again for a literal argument (``Literal[int](0)``: a counter set to 0 before a
loop, a side given as 0 or 1) or for a float32 scalar next to a float64 one repeats the whole
compilation of that callee and its own callees: the script fails (exit 1) when it finds one. Two
signatures that differ in an array's dtype (float32 and float64 count matrices, int32 and int64
CSR index arrays) are the callers' data types and are only listed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

#: Runs in the new interpreter: compile everything, report per kernel (JSON on the last line).
_CHILD = r"""
import json, time
from numba.core import dispatcher

original = dispatcher.Dispatcher.compile
depth = [0]
top = {}

def timed(self, sig):
    t = time.process_time()
    depth[0] += 1
    try:
        return original(self, sig)
    finally:
        depth[0] -= 1
        if depth[0] == 0:
            name = self.py_func.__module__.rsplit(".", 1)[-1] + "." + self.py_func.__name__
            top[name] = top.get(name, 0.0) + time.process_time() - t

dispatcher.Dispatcher.compile = timed
from fmeasure.learners.warmup import compile_kernels

t = time.process_time()
compile_kernels()
total = time.process_time() - t
import sys
from numba.core.registry import CPUDispatcher

multi = {}
for modname, mod in sorted(sys.modules.items()):  # every kernel of the package, wherever it lives
    if not modname.startswith("fmeasure"):
        continue
    for name, f in sorted(vars(mod).items()):
        if isinstance(f, CPUDispatcher) and f.py_func.__module__ == modname and len(f.signatures) > 1:
            sigs = [[str(a) for a in s] for s in f.signatures]
            multi[modname.rsplit(".", 1)[-1] + "." + name] = [
                sorted({s[i] for s in sigs}) for i in range(len(sigs[0])) if len({s[i] for s in sigs}) > 1
            ]
print(json.dumps({"total": total, "top": top, "multi": multi}))
"""


def run_once() -> dict:
    with tempfile.TemporaryDirectory(prefix="fmeasure-numba-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        out = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def repeated(types: list[str]) -> bool:
    """Whether differing parameter types are a repeat the kernels' code causes (a literal, or a
    float32 scalar beside a float64 one), not the callers' array dtypes."""
    return any(t.startswith("Literal[") for t in types) or set(types) == {"float32", "float64"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=1, help="runs, each in a new process (best CPU kept)")
    args = ap.parse_args(argv)
    runs = [run_once() for _ in range(args.repeats)]
    best = min(runs, key=lambda r: r["total"])
    print(f"compile_kernels on an empty cache: {best['total']:.1f} CPU s (best of {len(runs)})")
    for name, cpu in sorted(best["top"].items(), key=lambda kv: -kv[1]):
        print(f"  {cpu:6.2f} s  {name}")
    bad = []
    print("callees compiled for more than one signature (the parameters that differ):")
    for name, params in sorted(best["multi"].items()):
        for types in params:
            flag = "  <- repeated by the kernels' code" if repeated(types) else ""
            print(f"  {name}: {' / '.join(types)}{flag}")
            if flag:
                bad.append(name)
    if not best["multi"]:
        print("  none")
    if bad:
        print(f"FAIL: compiled again for a literal or a float32 scalar: {', '.join(sorted(set(bad)))}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
