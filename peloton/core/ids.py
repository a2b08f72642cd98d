"""Identifiers.

A job id is a UUID string. A Peloton task id is ``<job>-<instance>``; a run
of that task (Peloton's Mesos task id) is ``<job>-<instance>-<run>`` with
``run`` counting from 1. Which shard a job belongs to is
``peloton.shard.partition``'s.
"""

from __future__ import annotations

import os
import re
import time

# Sends of one create (same job id) before a client gives up: the CLI's and
# PelotonClient.create_job's.
CREATE_ATTEMPTS = 3


def create_unanswered(job_id: str, error: object) -> str:
    """What a client says when none of its creates of ``job_id`` was answered."""
    return (f"no answer to {CREATE_ATTEMPTS} creates of job {job_id} ({error}); it may "
            f"exist: `peloton job get {job_id}` tells, and the same create with "
            f"`--id {job_id}` is safe to repeat")


def new_job_id() -> str:
    """A time-ordered UUID (RFC 9562's version 7): the creation's Unix time
    in milliseconds (48 bits), then 74 random bits, with the version and
    variant bits set; lower-case text, as ``str(uuid.UUID(...))`` gives it.

    Why not a random (version 4) one, as Peloton makes: every table a job
    writes is keyed by its id, so random ids put each new job's rows on a
    page of their own in every B-tree, and a commit of a few jobs wrote a
    page per row (``COMMIT`` was 13% of a jobmgr's cpu in the single-task
    load). Ids of one moment share the B-trees' last pages; the shard, a
    hash of the whole id, is as even as before. Not ``uuid`` itself:
    importing it (and the ``platform`` it imports) cost ``peloton job
    create`` 2.3 ms of its ~53 ms of cpu."""
    ms = time.time_ns() // 1_000_000 % (1 << 48)
    b = bytearray(ms.to_bytes(6, "big") + os.urandom(10))
    b[6] = (b[6] & 0x0F) | 0x70  # version 7
    b[8] = (b[8] & 0x3F) | 0x80  # the RFC 4122 / 9562 variant
    h = b.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


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
