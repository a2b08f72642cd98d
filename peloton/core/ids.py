"""Identifiers.

A job id is a UUID string. A Peloton task id is ``<job>-<instance>``; a run
of that task (Peloton's Mesos task id) is ``<job>-<instance>-<run>`` with
``run`` counting from 1. Which shard a job belongs to is
``peloton.shard.partition``'s.
"""

from __future__ import annotations

import re

from peloton.core.jobid import new_job_id

__all__ = ["CREATE_ATTEMPTS", "create_unanswered", "is_job_id", "mesos_task_id", "new_job_id",
           "parse_mesos_task_id", "parse_task_id", "task_id", "volume_id"]

# Sends of one create (same job id) before a client gives up: the CLI's and
# PelotonClient.create_job's.
CREATE_ATTEMPTS = 3


def create_unanswered(job_id: str, error: object) -> str:
    """What a client says when none of its creates of ``job_id`` was answered."""
    return (f"no answer to {CREATE_ATTEMPTS} creates of job {job_id} ({error}); it may "
            f"exist: `peloton job get {job_id}` tells, and the same create with "
            f"`--id {job_id}` is safe to repeat")


_UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_JOB_ID = re.compile(_UUID)
# One regex instead of uuid.UUID(): this runs for every status update.
_RUN_ID = re.compile(f"({_UUID})-([0-9]+)-([0-9]+)")
_TASK_ID = re.compile(f"({_UUID})-([0-9]+)")


def is_job_id(value: str) -> bool:
    return _JOB_ID.fullmatch(value) is not None


def task_id(job_id: str, instance: int) -> str:
    return f"{job_id}-{instance}"


def volume_id(job_id: str, instance: int) -> str:
    """The persistent volume of a stateful instance: one per instance, kept
    across its runs (``<job id>-<instance>-volume``)."""
    return f"{job_id}-{instance}-volume"


def mesos_task_id(job_id: str, instance: int, run: int) -> str:
    return f"{job_id}-{instance}-{run}"


def parse_mesos_task_id(value: str) -> tuple[str, int, int]:
    """``<job>-<instance>-<run>`` -> (job, instance, run); ValueError if malformed
    (the job part must be a UUID, the numbers plain decimal digits)."""
    match = _RUN_ID.fullmatch(value)
    if match is None:
        raise ValueError(f"not a task run id: {value!r}")
    return match[1], int(match[2]), int(match[3])


def parse_task_id(value: str) -> tuple[str, int]:
    """``<job>-<instance>`` -> (job, instance); ValueError if malformed
    (the job part must be a UUID, the instance plain decimal digits)."""
    match = _TASK_ID.fullmatch(value)
    if match is None:
        raise ValueError(f"not a task id: {value!r}")
    return match[1], int(match[2])
