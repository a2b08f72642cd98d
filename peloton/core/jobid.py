"""A job's id, made and told apart without ``re``: ``peloton.cli.quick``
answers a command before ``re`` (and the ``enum`` it imports, ~5 ms of cpu
here) would be loaded. ``peloton.core.ids`` re-exports :func:`new_job_id`;
its own ``is_job_id``, a regular expression, is three times as fast as
:func:`is_job_id` here where ``re`` is loaded anyway (the daemons check
ids in every call), and a test holds the two to the same answers.
"""

from __future__ import annotations

import os
import time

__all__ = ["is_job_id", "new_job_id"]

_HEX = frozenset("0123456789abcdefABCDEF")
_HYPHENS = (8, 13, 18, 23)


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


def is_job_id(value: str) -> bool:
    """A UUID's text: 8-4-4-4-12 hex digits, either case."""
    return (len(value) == 36 and value.count("-") == 4
            and all(value[i] == "-" for i in _HYPHENS) and _HEX.issuperset(value.replace("-", "")))
