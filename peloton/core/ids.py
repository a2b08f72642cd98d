"""Identifiers.

A job id is a UUID string. A Peloton task id is ``<job>-<instance>``; a run
of that task (Peloton's Mesos task id) is ``<job>-<instance>-<run>`` with
``run`` counting from 1. Which shard a job belongs to is
``peloton.shard.partition``'s.
"""

from __future__ import annotations

import os
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


_HEX = frozenset("0123456789abcdefABCDEF")
_HYPHENS = (8, 13, 18, 23)


def is_job_id(value: str) -> bool:
    """A UUID's text: 8-4-4-4-12 hex digits, either case. By hand, not a
    regex: ``peloton job get`` checks its argument without importing
    ``re``, and the daemons parse a run id at every status update."""
    return (len(value) == 36 and value.count("-") == 4
            and all(value[i] == "-" for i in _HYPHENS) and _HEX.issuperset(value.replace("-", "")))


def _decimal(text: str) -> bool:
    return text.isascii() and text.isdigit()


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
    job = value[:36]
    instance, _, run = value[37:].partition("-")
    if not (value[36:37] == "-" and is_job_id(job) and _decimal(instance)
            and _decimal(run)):
        raise ValueError(f"not a task run id: {value!r}")
    return job, int(instance), int(run)


def parse_task_id(value: str) -> tuple[str, int]:
    """``<job>-<instance>`` -> (job, instance); ValueError if malformed
    (the job part must be a UUID, the instance plain decimal digits)."""
    job, instance = value[:36], value[37:]
    if not (value[36:37] == "-" and is_job_id(job) and _decimal(instance)):
        raise ValueError(f"not a task id: {value!r}")
    return job, int(instance)
