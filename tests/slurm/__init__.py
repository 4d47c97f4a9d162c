"""Test helpers for running the pipeline on a throwaway Slurm cluster."""
