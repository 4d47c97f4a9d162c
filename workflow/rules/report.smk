# The assembled report: findings first (every claim of the paper with its verdict), the corrections
# to the paper, then every enabled stage's tables and figures, ours beside the paper's.

localrules:
    assemble_report,


rule assemble_report:
    input:
        get_report_inputs(),
        findings=get_report_findings(),
    output:
        md="results/report.md",
        findings=captioned("results/findings.csv", "findings.rst", "0. Findings"),
        deviations="results/tables/deviations.csv",
    params:
        title=config["report"]["title"],
        sections=get_report_sections(),
        skipped=SKIPPED_DATASETS,
        captions=REPORT_CAPTION_OF,
        not_run=get_report_not_run(),
        theory_tables=get_theory_tables(),
    log:
        "logs/report/assemble.log",
    benchmark:
        "results/benchmarks/report/assemble.tsv"
    conda:
        ENV
    script:
        "../scripts/report_assemble.py"
