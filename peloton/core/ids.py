"""Identifiers and the shard partition function.

A job id is a UUID string. A Peloton task id is ``<job>-<instance>``; a run
of that task (Peloton's Mesos task id) is ``<job>-<instance>-<run>`` with
``run`` counting from 1. ``shard_of`` maps a job to one of S shards with
BLAKE2b, never Python's randomised ``hash()``, so every process agrees.
"""

from __future__ import annotations

import hashlib
import uuid


def new_job_id() -> str:
    return str(uuid.uuid4())


def is_job_id(value: str) -> bool:
    try:
        return str(uuid.UUID(value)) == value.lower()
    except ValueError:
        return False


def task_id(job_id: str, instance: int) -> str:
    return f"{job_id}-{instance}"


def mesos_task_id(job_id: str, instance: int, run: int) -> str:
    return f"{job_id}-{instance}-{run}"


def parse_mesos_task_id(value: str) -> tuple[str, int, int]:
    """``<job>-<instance>-<run>`` -> (job, instance, run); ValueError if malformed."""
    parts = value[37:].split("-")
    if len(value) < 40 or value[36] != "-" or len(parts) != 2:
        raise ValueError(f"not a task run id: {value!r}")
    return value[:36], int(parts[0]), int(parts[1])


def parse_task_id(value: str) -> tuple[str, int]:
    """``<job>-<instance>`` -> (job, instance); ValueError if malformed."""
    if len(value) < 38 or value[36] != "-":
        raise ValueError(f"not a task id: {value!r}")
    return value[:36], int(value[37:])


def shard_of(job_id: str, num_shards: int) -> int:
    digest = hashlib.blake2b(job_id.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % num_shards
