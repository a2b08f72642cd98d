"""The shard partition function: BLAKE2b of the job id, mod S."""

from __future__ import annotations

import uuid
from collections import Counter

import pytest

from peloton.shard.partition import shard_of, shard_of_run

JOB = "7c2bd2a8-5f3e-4b7a-9d1e-0123456789ab"


def test_shard_of_is_pinned() -> None:
    # BLAKE2b, not hash(): every process, every run, every Python agrees.
    assert shard_of("00000000-0000-0000-0000-000000000000", 16) == 10
    assert shard_of("a5b1c2d3-0000-4000-8000-000000000001", 16) == 4
    assert shard_of(JOB, 1) == 0


@pytest.mark.parametrize("num_shards", [1, 7, 16, 32, 4096])
def test_shard_of_is_in_range_and_stable(num_shards: int) -> None:
    for i in range(200):
        job = str(uuid.UUID(int=i))
        s = shard_of(job, num_shards)
        assert 0 <= s < num_shards
        assert shard_of(job, num_shards) == s


def test_shard_of_spreads_jobs_evenly() -> None:
    ids = [str(uuid.UUID(int=i * 7919 + 1, version=4)) for i in range(10_000)]
    counts = Counter(shard_of(j, 16) for j in ids)
    assert set(counts) == set(range(16))
    # 625 expected per shard; a fair hash stays well within +-20%.
    assert min(counts.values()) >= 500 and max(counts.values()) <= 750


def test_a_run_is_in_its_jobs_shard() -> None:
    assert shard_of_run(f"{JOB}-3-7", 16) == shard_of(JOB, 16)
    assert shard_of_run("too-short", 16) is None
