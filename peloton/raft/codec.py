"""The Raft command codec: versioned msgpack records, never pickled objects.

A command is ``[VERSION, name, key, payload]``: ``name`` selects the handler
in the state machine's command table, ``key`` is an idempotency key (a
retried command with the same key returns the first result and changes
nothing), ``payload`` is plain msgpack data. A command's result is
``[ok: bool, value]`` where a failure's value is ``[error class name,
message, field]`` so the error crosses the Raft log as data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgpack

VERSION = 1
# pysyncobj sends an entry in chunks only when it is at least
# ``appendEntriesBatchSizeBytes`` (RaftNode sets 1 MiB), and its chunking
# breaks on entries just under a multiple of that size
# (reference/pysyncobj-and-costs.md): commands stay a quarter below it, so
# they are never chunked. A gang is one command: this bounds its size.
MAX_COMMAND_BYTES = 768 * 1024


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    key: str
    payload: Any


def encode(command: Command) -> bytes:
    return msgpack.packb([VERSION, command.name, command.key, command.payload],
                         use_bin_type=True)


def decode(blob: bytes) -> Command:
    version, name, key, payload = msgpack.unpackb(blob, raw=False, strict_map_key=False)
    if version != VERSION:
        raise ValueError(f"unsupported command version {version}")
    return Command(name, key, payload)
