"""Jobs to shards: BLAKE2b of the job id, modulo the cluster's shard count.

Never Python's ``hash()``, which is randomised per process: every daemon
must map a job to the same shard.
"""

from __future__ import annotations

import hashlib

JOB_ID_LENGTH = 36  # a UUID's text
# The shard count of a cluster file that names none.
DEFAULT_NUM_SHARDS = 16
# The reply metadata of a call a jobmgr routes by job: "<num_shards>
# <address of the owner of the job's shard>". A client that sends the
# shard's next call there saves the jobmgr a forward; a stale hint costs
# only that forward.
SHARD_OWNER_METADATA = "peloton-shard-owner"


def shard_of(job_id: str, num_shards: int) -> int:
    """The shard of ``job_id`` among ``num_shards`` (``num_shards`` >= 1)."""
    digest = hashlib.blake2b(job_id.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % num_shards


def shard_of_run(mesos_task_id: str, num_shards: int) -> int | None:
    """The shard of a run's job (``<job>-<instance>-<run>``), or None when
    the id is too short to name a job."""
    if len(mesos_task_id) < JOB_ID_LENGTH:
        return None
    return shard_of(mesos_task_id[:JOB_ID_LENGTH], num_shards)
