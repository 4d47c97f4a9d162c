# All Snakemake-side Python of the workflow: selected datasets and stages, input functions
# (get_*), and the registry of each stage's targets. Logic beyond lookups lives in fmeasure.
import functools
import os
import sys

try:
    from fmeasure.experiments.config import (STAGE_TABLES, content_entry, dataset_config, dataset_view,
                                             exit_on_config_error, lp_surrogates, needs_refit,
                                             sample_chunks, select_datasets, setting_config, setting_datasets, used_fits)
    from fmeasure.experiments.registry import (FOPTIMAL_MODELS, OWN_TARGET_STAGES, PARAMETRIC_LEARNERS,
                                               SCALING_LEARNERS, SIM_DATA_MODELS, THEORY_SURROGATES, TREE_MODELS,
                                               pattern)
    from fmeasure.experiments.report import not_run_reasons
    from fmeasure.experiments.theory import FINDINGS_TABLES as THEORY_FINDINGS_TABLES
except ImportError as _exc:
    raise ImportError(
        f"the fmeasure package is not importable ({_exc}): run `pip install -e '.[pipeline]'` in the repository first"
    ) from None


wildcard_constraints:
    dataset="[A-Za-z0-9_-]+",


# The names a wildcard may take where it stands for a learner, model, surrogate or data model: those
# of fmeasure.experiments.registry (the lists the config's schema takes its enums from), set in each
# rule's wildcard_constraints, so that no job runs for a name the config cannot hold.
PARAMETRIC_LEARNER = pattern(PARAMETRIC_LEARNERS)
SCALING_LEARNER = pattern(SCALING_LEARNERS)
TREE_MODEL = pattern(TREE_MODELS)
FOPTIMAL_MODEL = pattern(FOPTIMAL_MODELS)
THEORY_SURROGATE = pattern(THEORY_SURROGATES)
SIM_DATA_MODEL = pattern(SIM_DATA_MODELS)


ENV = "../../envs/fmeasure.yaml"
REPORT_CAPTIONS = os.path.join(workflow.basedir, "workflow", "report")
DATA_DIR = config["data"]["dir"]
STAGES = config["stages"]  # a list of known stages: the Snakefile has checked the config
DATASETS, SKIPPED_DATASETS = exit_on_config_error(select_datasets, config)
for _message in SKIPPED_DATASETS:
    print(f"WARNING: skipping {_message}", file=sys.stderr)

# Each stage file registers its final outputs here: STAGE_TARGETS["<stage>"] = [paths].
STAGE_TARGETS = {}

# Output path -> caption file (workflow/report/<name>.rst), filled by captioned(): the assembled
# report looks a figure's caption up by its path, the same caption Snakemake's HTML report shows.
REPORT_CAPTION_OF = {}


def captioned(path, caption, category):
    """``report(path, ...)`` with the caption ``workflow/report/<caption>``, registered by path."""
    REPORT_CAPTION_OF[path] = os.path.join(REPORT_CAPTIONS, caption)
    return report(path, caption=f"../report/{caption}", category=category)


def get_all_targets():
    """Final outputs of the enabled stages, plus the assembled report."""
    targets = [t for stage in STAGES for t in STAGE_TARGETS.get(stage, [])]
    return targets + ["results/report.md", "results/findings.csv"]


def get_report_stages():
    """The enabled stages, then the stages run by their own target whose outputs all exist."""
    extra = [s for s in OWN_TARGET_STAGES if s not in STAGES and STAGE_TARGETS.get(s)
             and all(os.path.exists(t) for t in STAGE_TARGETS[s])]
    return list(STAGES) + extra


def get_report_inputs():
    """Everything the report assembles: the reported stages' tables and figures."""
    return [t for stage in get_report_stages() for t in STAGE_TARGETS.get(stage, [])]


def get_report_sections():
    """Stage -> its outputs, in the order of `stages`, for the assembled report."""
    return {stage: STAGE_TARGETS.get(stage, []) for stage in get_report_stages()}


def get_report_findings():
    """The findings CSVs (results/findings/<stage>.csv) that the enabled stages register."""
    return [t for t in get_report_inputs() if t.startswith("results/findings/")]


def get_report_not_run():
    """The paper's stages that are not run, with the reason (for the findings table)."""
    return not_run_reasons(STAGES, os.path.join(workflow.basedir, "workflow", "rules"))


def get_theory_tables():
    """The theory tables the corrections section is written from (if the theory stage runs)."""
    if "theory" not in STAGES:
        return {}
    return {k: f"results/tables/theory_{k}.csv" for k in THEORY_FINDINGS_TABLES}


def get_catalog_entry(wildcards):
    """What decides a parsed dataset (files' names and sha256, format, counts, options), not
    where its files come from: changing mirrors or URLs reruns nothing."""
    return content_entry(config, wildcards.dataset)


def get_file_sha256(wildcards):
    """The sha256 of one raw file: its identity. Mirrors, URLs and timeouts are read by the
    fetch script at run time, so that changing them reruns nothing."""
    entry = config["catalog"][wildcards.dataset]
    for spec in entry.get("files", {}).values():
        if spec["name"] == wildcards.filename:
            return spec["sha256"]
    raise ValueError(f"catalog entry {wildcards.dataset!r} lists no file {wildcards.filename!r}")


def get_table1_catalog(wildcards=None):
    return {d: content_entry(config, d) for d in DATASETS}


def get_raw_files(wildcards):
    """The verified raw files of a dataset (none for a synthetic one: it is generated)."""
    entry = config["catalog"][wildcards.dataset]
    return [f"{DATA_DIR}/raw/{wildcards.dataset}/{f['name']}" for f in entry.get("files", {}).values()]


def get_raw_dir(wildcards):
    return f"{DATA_DIR}/raw/{wildcards.dataset}"


def get_parsed(wildcards):
    return f"{DATA_DIR}/parsed/{wildcards.dataset}.npz"


def get_all_parsed(wildcards=None):
    return [f"{DATA_DIR}/parsed/{d}.npz" for d in DATASETS]


# ---- theory
def get_theory_lp_rows(wildcards=None):
    return [f"results/theory/lp/{s}.csv" for s in lp_surrogates(config["theory"]["lp"])]


def get_theory_lp_dists(wildcards=None):
    return [f"results/theory/lp/{s}_dist.csv" for s in lp_surrogates(config["theory"]["lp"])]


# ---- pcc
def get_pcc_table4_rows(wildcards=None):
    return [f"results/pcc/{d}/table4_rows.csv" for d in DATASETS]


def get_pcc_curves(wildcards=None):
    """Figure 5's points: one file per dataset and job of several numbers of samples, none of which
    samples more than the largest number alone (a job per number paid a new process per point)."""
    chunks = sample_chunks(config["pcc"]["figure5"]["n_samples"])
    return [f"results/pcc/{d}/curve_{'-'.join(map(str, c))}.csv" for d in DATASETS for c in chunks]


def get_pcc_exact(wildcards=None):
    return [f"results/pcc/{d}/exact.csv" for d in DATASETS]


# ---- parametric (Table 5)
def get_parametric_records(wildcards=None):
    """One fit+predict record per (dataset, learner) of the parametric stage."""
    learners = config["parametric"]["learners"]
    return [f"results/parametric/{d}/{lrn}.json" for d in DATASETS for lrn in learners]


def get_parametric_learners(wildcards=None):
    return config["parametric"]["learners"]


def get_parametric_inputs(wildcards):
    """The parsed dataset; for LFP also BR's fitted model and record when BR runs too (LFP then
    predicts from BR's label models instead of fitting the same ones again)."""
    inputs = {"data": get_parsed(wildcards)}
    if wildcards.learner == "LFP" and "BR" in config["parametric"]["learners"]:
        inputs["br_model"] = f"results/parametric/{wildcards.dataset}/BR.pkl"
        inputs["br_record"] = f"results/parametric/{wildcards.dataset}/BR.json"
    return inputs


def get_parametric_models(wildcards):
    """The fitted learners of one dataset, in the order of get_parametric_learners."""
    return [f"results/parametric/{wildcards.dataset}/{lrn}.pkl" for lrn in get_parametric_learners()]


def get_parametric_inference_times(wildcards=None):
    return [f"results/parametric/{d}/inference_times.csv" for d in DATASETS]


# ---- voting (Table 7)
def get_voting_fits(wildcards):
    """The shared fits the ensemble's members use (one job each) for one dataset."""
    return [f"results/voting/{wildcards.dataset}/fit_{f}.npz" for f in used_fits(config["voting"])]


def get_voting_scores(wildcards=None):
    return [f"results/voting/{d}/scores.csv" for d in DATASETS]


def get_voting_curves(wildcards=None):
    return [f"results/voting/{d}/curve.csv" for d in DATASETS]


# ---- structured (Table 6)
def get_structured_rml_rows(wildcards=None):
    """One RML row (fit, test F, times) per dataset."""
    return [f"results/structured/{d}/rml.csv" for d in DATASETS]


def get_structured_extra_rows(wildcards=None):
    """Rows appended to Table 6 "beyond the paper": the config's files, and the F-measure trees
    when their stage is enabled."""
    extra = list(config["structured"]["extra_rows"])
    if "trees" in STAGES and "results/tables/ftrees.csv" not in extra:
        extra.append("results/tables/ftrees.csv")
    return extra


# ---- ablations
def get_ablation_settings(wildcards=None):
    """The configured settings whose stage is enabled (name -> spec)."""
    specs = config["ablations"]["settings"]
    return {name: spec for name, spec in specs.items() if spec["stage"] in STAGES}


def get_ablation_runs(wildcards=None):
    """One result file per (setting, dataset) to run."""
    return [f"results/ablations/{name}/{d}.csv" for name, spec in get_ablation_settings().items()
            for d in setting_datasets(spec, DATASETS)]


def get_ablation_tables(wildcards=None):
    """This run's Table 4 and/or Table 5, for the stages enabled."""
    return {STAGE_TABLES[s]: f"results/tables/{STAGE_TABLES[s]}.csv" for s in STAGE_TABLES if s in STAGES}


def get_ablation_inputs(wildcards):
    """The parsed dataset, plus the stage's fitted chain for PCC settings that need no refit, and the
    stage's fitted BR for parametric settings with LFP (used when the setting keeps BR's settings)."""
    spec = config["ablations"]["settings"][wildcards.setting]
    inputs = {"data": get_parsed(wildcards)}
    if not needs_refit(spec):
        inputs["model"] = f"results/pcc/{wildcards.dataset}/chain.pkl"
        inputs["info"] = f"results/pcc/{wildcards.dataset}/fit.json"
    learners = config["parametric"]["learners"]
    if spec["stage"] == "parametric" and "LFP" in (spec.get("methods") or learners) and "BR" in learners:
        inputs["br_model"] = f"results/parametric/{wildcards.dataset}/BR.pkl"
        inputs["br_record"] = f"results/parametric/{wildcards.dataset}/BR.json"
    return inputs


def get_ablation_spec(wildcards):
    return config["ablations"]["settings"][wildcards.setting]


def stage_config(stage, key=None):
    """A params function: ``stage``'s config block as the job's dataset runs it (its
    dataset_overrides merged in), or one ``key`` of it."""
    def params(wildcards):
        block = dataset_config(config, stage, wildcards.dataset)
        return block if key is None else block[key]
    return params


def get_ablation_config(wildcards):
    """The stage config block of the dataset (its dataset_overrides) with the setting's overrides applied."""
    return setting_config(dataset_view(config, wildcards.dataset), wildcards.setting)


def get_parametric_instances(wildcards=None):
    """Per-instance test scores of every (dataset, learner) of the parametric stage."""
    learners = config["parametric"]["learners"]
    return [f"results/parametric/{d}/{lrn}_instances.csv.gz" for d in DATASETS for lrn in learners]


# ---- resources: memory, run time and threads sized from each dataset's counts
# (formulas and coefficients: fmeasure.experiments.resources; a failed job retries with more).
from fmeasure.experiments.resources import dataset_counts, job_resources
from snakemake.exceptions import WorkflowError as _NoCores


def _local_cores():
    """The run's cores when its jobs run on this machine (None on a cluster, in a job a cluster
    started, and in a dry run without --cores): job_resources then gives a job at most half."""
    if not (workflow.is_main_process and workflow.local_exec):
        return None
    try:
        cores = workflow.cores
    except _NoCores:  # no --cores (a dry run)
        return None
    return cores if isinstance(cores, int) else None


def _job_resources(rule, wildcards, attempt=1):
    counts, view = dataset_counts(config, wildcards.dataset), dataset_view(config, wildcards.dataset)
    return job_resources(rule, counts, attempt, view, _local_cores())


def get_mem_mb(rule):
    """``mem_mb`` of a job of ``rule``: grows with the dataset and with each retry."""
    def mem_mb(wildcards, attempt):
        return _job_resources(rule, wildcards, attempt)["mem_mb"]
    return mem_mb


def get_runtime(rule):
    """``runtime`` (minutes) of a job of ``rule``: grows with the dataset and with each retry."""
    def runtime(wildcards, attempt):
        return _job_resources(rule, wildcards, attempt)["runtime"]
    return runtime


def get_threads(rule):
    """Threads of a job of ``rule``: the stage's configured threads, one for a small dataset, at
    most half the cores of a run on this machine."""
    def threads(wildcards):
        return _job_resources(rule, wildcards)["threads"]
    return threads


# ---- scaling (not in the default run): one job per (learner, n, m) cell
from fmeasure.experiments.scaling import RESOURCE_JOB as SCALING_RESOURCE_JOB, cells as scaling_cells


def get_scaling_cells(wildcards=None):
    return [f"results/scaling/{lrn}_n{n}_m{m}.json" for lrn, n, m in scaling_cells(config["scaling"])]


def _scaling_counts(wildcards):
    cfg = config["scaling"]
    return {"n_train": int(wildcards.n), "n_test": cfg["n_test"], "d": cfg["d"], "m": int(wildcards.m)}


def get_scaling_mem_mb(wildcards, attempt):
    """The formula of the pipeline job that fits the cell's learner, at the cell's shape."""
    return job_resources(SCALING_RESOURCE_JOB[wildcards.learner], _scaling_counts(wildcards), attempt)["mem_mb"]


def get_scaling_runtime(wildcards, attempt):
    """The cell's time limit plus the generation of its data (minutes)."""
    return int(config["scaling"]["timeout_s"] / 60 * 1.5 ** (attempt - 1)) + 5


# ---- peers (public F-maximizers beside ours)
from fmeasure.experiments.peers import (check_config as check_peers_config, dataset_protocol as peer_dataset_protocol,
                                        dataset_seeds as peer_dataset_seeds, protocol_spec as peers_protocol,
                                        protocol_hash as peers_protocol_hash, system_settings, system_spec)
from fmeasure.experiments.registry import PEER_SYSTEMS

PEERS_CFG = config["peers"]
PEERS = PEERS_CFG["run"]  # systems of fmeasure.experiments.registry.PEER_SYSTEMS (checked with the config)
exit_on_config_error(check_peers_config, PEERS_CFG, PEERS)
PEER_PATTERN = pattern(PEER_SYSTEMS)
PEER_ADAPTER = os.path.join(workflow.basedir, "workflow", "scripts", "peers_adapter.py")
PEER_SEEDS = [int(s) for s in PEERS_CFG["seeds"]]
# The protocol every run record carries (its hash), so that the tables refuse records of another
# one; a change of it reruns the runs (the hash is a parameter of peers_run).
PEERS_PROTOCOL = peers_protocol(PEERS_CFG, root=workflow.basedir)
PEERS_PROTOCOL_HASH = peers_protocol_hash(PEERS_PROTOCOL)
# The runs of the stage (results/peers/), and the reruns of the check of the cheaper protocol
# (results/peers_check/): the datasets of the full protocol under the large datasets' one.
PEER_VARIANTS = "peers|peers_check"


@functools.cache
def get_peer_datasets():
    """The peers' datasets (peers.datasets). Every one must be had: a dataset whose files cannot be
    found stops the stage with one line naming it, so that the number of datasets never shrinks
    unnoticed. Checked only when a peers job is asked for, so that other runs never look for them."""
    available, skipped = exit_on_config_error(select_datasets, config, PEERS_CFG["datasets"], "peers.datasets")
    if skipped:
        print("Error: peers stage: every dataset of peers.datasets is needed; " + "; ".join(skipped), file=sys.stderr)
        raise SystemExit(1)
    return available


def peer_tuning(dataset, variant="peers"):
    """How the dataset is tuned (the full protocol, or the large datasets'); the check's reruns use
    the large datasets' protocol on every dataset."""
    tuning = peer_dataset_protocol(PEERS_CFG, config["catalog"].get(dataset))
    if variant == "peers_check":
        large = PEERS_CFG["large"]
        tuning = {**tuning, "name": "large (check)", "cv": int(large["cv"]), "n_seeds": int(large["seeds"])}
    return tuning


def get_peer_tuning(wildcards):
    return peer_tuning(wildcards.dataset, getattr(wildcards, "variant", "peers"))


def get_peer_check_datasets():
    """The datasets of the full protocol: the check reruns them under the large datasets' protocol."""
    return [d for d in get_peer_datasets()
            if peer_dataset_protocol(PEERS_CFG, config["catalog"].get(d))["name"] == "full"]


def get_peer_requirements(wildcards):
    """The pinned requirements file of a peer that has its own environment (relative: to the repository)."""
    return os.path.join(workflow.basedir, system_spec(PEERS_CFG, wildcards.peer)["env"])


def get_peer_prefix(wildcards):
    return os.path.join(PEERS_CFG["env_dir"], wildcards.peer)


def get_peer_python_versions(wildcards):
    """The Python versions (X.Y) a peer's own environment can be built with."""
    return system_spec(PEERS_CFG, wildcards.peer)["python"]


def get_peer_env_record(wildcards):
    """The build record of the peer's environment; none for systems in the project's environment."""
    env = system_spec(PEERS_CFG, wildcards.peer)["env"]
    return [] if env == "project" else [f"results/peers/env/{wildcards.peer}.json"]


def get_peer_python(wildcards):
    env = system_spec(PEERS_CFG, wildcards.peer)["env"]
    if env == "project":
        return sys.executable
    prefix = os.path.abspath(get_peer_prefix(wildcards))
    return os.path.join(prefix, "Scripts", "python.exe") if os.name == "nt" else os.path.join(prefix, "bin", "python")


def get_peer_grid(wildcards):
    """The grid of the system's tuned setting."""
    return system_spec(PEERS_CFG, wildcards.peer)["grid"]


def get_peer_fixed(wildcards):
    """The keyword arguments the system gets in every setting."""
    return system_spec(PEERS_CFG, wildcards.peer)["params"]


def _peer_records(variant, datasets):
    out = []
    for d in datasets:
        tuning = peer_tuning(d, variant)
        out += [f"results/{variant}/{d}/{p}_{s}_seed{seed}.json" for p in PEERS
                for s in system_settings(PEERS_CFG, p) for seed in peer_dataset_seeds(PEERS_CFG, p, tuning)]
    return out


def get_peer_records(wildcards=None):
    """One run record per (dataset, system, setting, seed)."""
    return _peer_records("peers", get_peer_datasets())


def get_peer_instances(wildcards=None):
    return [r[: -len(".json")] + "_instances.csv.gz" for r in get_peer_records()]


def get_peer_check_records(wildcards=None):
    """The check's reruns: the datasets of the full protocol under the large datasets' one."""
    return _peer_records("peers_check", get_peer_check_datasets())


def get_peer_check_instances(wildcards=None):
    return [r[: -len(".json")] + "_instances.csv.gz" for r in get_peer_check_records()]
