"""Time the inference of a dataset's fitted BR, LFP and EFP together, in rounds (Table 5's times)."""

from fmeasure import datasets
from fmeasure.experiments.parametric import load_model, time_inference
from fmeasure.io import atomic_output, script_logging

log = script_logging(snakemake)  # noqa: F821
inp, par = snakemake.input, snakemake.params  # noqa: F821
ds = datasets.load(inp.data)
models = {name: load_model(path) for name, path in zip(par.learners, inp.models)}
times = time_inference(ds, models, par.repeats, par.repeat_below_s)
with atomic_output(snakemake.output[0]) as tmp:  # noqa: F821
    times.to_csv(tmp, index=False)
log.info("%d timings of %s on %s", len(times), ", ".join(models), ds.name)
