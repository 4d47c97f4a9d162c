# The assembled report: every enabled stage's tables and figures, ours beside the paper's.

localrules:
    assemble_report,


rule assemble_report:
    input:
        get_report_inputs(),
        notes=get_report_notes(),
    output:
        "results/report.md",
    params:
        title=config["report"]["title"],
        sections=get_report_sections(),
        skipped=SKIPPED_DATASETS,
        captions=REPORT_CAPTIONS,
    log:
        "logs/report/assemble.log",
    conda:
        ENV
    script:
        "../scripts/report_assemble.py"
