"""How a stage's work is split into Snakemake jobs: every piece once, no job larger than needed."""

from hypothesis import given
from hypothesis import strategies as st

from fmeasure.experiments.config import sample_chunks


@given(st.lists(st.integers(1, 5000), min_size=1, max_size=12))
def test_figure5_jobs_cover_each_number_once_and_none_samples_more_than_the_largest(ns):
    jobs = sample_chunks(ns)
    assert sorted(n for job in jobs for n in job) == sorted(ns)
    assert all(sum(job) <= max(ns) for job in jobs)
    assert all(job == sorted(job) for job in jobs)
    # first fit from the largest down: no two jobs could be one (half-full bins would be merged)
    assert sum(1 for job in jobs if 2 * sum(job) <= max(ns)) <= 1


def test_figure5_jobs_of_the_default_config():
    assert sample_chunks([10, 20, 50, 100, 200, 500, 1000, 2000]) == [[10, 20, 50, 100, 200, 500, 1000], [2000]]
    assert sample_chunks([10, 50]) == [[10], [50]]  # the smoke config: 10 + 50 is more than 50
