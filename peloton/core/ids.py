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


def _is_number(text: str) -> bool:
    # ASCII digits only: int() would also take " 1", "+1", "1_0" and other scripts' digits.
    return text.isascii() and text.isdigit()


def parse_mesos_task_id(value: str) -> tuple[str, int, int]:
    """``<job>-<instance>-<run>`` -> (job, instance, run); ValueError if malformed
    (the job part must be a UUID, the numbers plain decimal digits)."""
    parts = value[37:].split("-")
    if (value[36:37] != "-" or not is_job_id(value[:36]) or len(parts) != 2
            or not all(_is_number(p) for p in parts)):
        raise ValueError(f"not a task run id: {value!r}")
    return value[:36], int(parts[0]), int(parts[1])


def parse_task_id(value: str) -> tuple[str, int]:
    """``<job>-<instance>`` -> (job, instance); ValueError if malformed
    (the job part must be a UUID, the instance plain decimal digits)."""
    if value[36:37] != "-" or not is_job_id(value[:36]) or not _is_number(value[37:]):
        raise ValueError(f"not a task id: {value!r}")
    return value[:36], int(value[37:])


def shard_of(job_id: str, num_shards: int) -> int:
    digest = hashlib.blake2b(job_id.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % num_shards
