"""The paper's stages, one module per rule file (``workflow/rules/<stage>.smk``).

Each module has the same verbs: ``run_*`` computes and returns pandas DataFrames, ``write_*``
writes tables and figures. The library (everything outside this package) never imports it.
"""
