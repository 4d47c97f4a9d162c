# Parametric plug-in models of Section 7.1.4 / Table 5: BR, LFP and EFP, all built from logistic
# regressions tuned per model by CV. One fit+predict job per (dataset, learner; LFP predicts from
# BR's fitted label models when BR runs too, as they are the same models), one job per dataset
# that times the fitted learners' inference together (Table 5's inference times), then the table.
# All logic lives in fmeasure.learners.parametric and fmeasure.experiments.parametric.

STAGE_TARGETS["parametric"] = ["results/tables/table5.csv", "results/tables/table5.md",
                                "results/findings/parametric.csv"]


localrules:
    parametric_all,
    parametric_table5,
    parametric_findings,


rule parametric_fit_predict:
    input:
        unpack(get_parametric_inputs),
    output:
        record="results/parametric/{dataset}/{learner}.json",
        instances="results/parametric/{dataset}/{learner}_instances.csv.gz",
        model="results/parametric/{dataset}/{learner}.pkl",
    params:
        cfg=stage_config("parametric"),
    wildcard_constraints:
        learner=PARAMETRIC_LEARNER,
    threads: get_threads("parametric_fit_predict")
    # The longest jobs of a run start first (EFP's m multinomial models among them).
    priority: 10
    resources:
        mem_mb=get_mem_mb("parametric_fit_predict"),
        runtime=get_runtime("parametric_fit_predict"),
    log:
        "logs/parametric/{dataset}_{learner}.log",
    benchmark:
        "results/benchmarks/parametric/{dataset}_{learner}.tsv"
    conda:
        ENV
    script:
        "../scripts/parametric_fit_predict.py"


rule parametric_inference_times:
    input:
        data=get_parsed,
        models=get_parametric_models,
    output:
        "results/parametric/{dataset}/inference_times.csv",
    params:
        learners=get_parametric_learners,
        repeats=stage_config("parametric", "timing_best_of"),
        repeat_below_s=stage_config("parametric", "repeat_below_s"),
    threads: get_threads("parametric_inference_times")
    resources:
        mem_mb=get_mem_mb("parametric_inference_times"),
        runtime=get_runtime("parametric_inference_times"),
    log:
        "logs/parametric/{dataset}_inference_times.log",
    benchmark:
        "results/benchmarks/parametric/{dataset}_inference_times.tsv"
    conda:
        ENV
    script:
        "../scripts/parametric_inference_times.py"


rule parametric_table5:
    input:
        records=get_parametric_records,
        times=get_parametric_inference_times,
    output:
        csv=captioned("results/tables/table5.csv", "parametric_table5.rst", category="Parametric"),
        md="results/tables/table5.md",
    params:
        cfg=config["parametric"],
    log:
        "logs/parametric/table5.log",
    benchmark:
        "results/benchmarks/parametric/table5.tsv"
    conda:
        ENV
    script:
        "../scripts/parametric_table5.py"


rule parametric_findings:
    input:
        instances=get_parametric_instances,
        table5="results/tables/table5.csv",
    output:
        "results/findings/parametric.csv",
    params:
        z=config["report"]["z"],
        n_boot=config["report"]["n_boot"],
        seed=config["report"]["seed"],
        deviation_points=config["report"]["deviation_points"],
    log:
        "logs/parametric/findings.log",
    benchmark:
        "results/benchmarks/parametric/findings.tsv"
    conda:
        ENV
    script:
        "../scripts/parametric_findings.py"


rule parametric_all:
    input:
        STAGE_TARGETS["parametric"],
