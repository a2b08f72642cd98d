"""A running digest of what a resmgr replica applied, cheap per command.

Replicas apply one Raft log, so they should hold one state; pysyncobj's
follower truncation (reference/pysyncobj-and-costs.md) and our own bugs are
how they could stop doing so. Hashing the whole state (``ResmgrState.digest``,
a snapshot) costs seconds at a million tracked tasks, so it cannot follow
every command. Instead every replica keeps a *chain*, started from ``seed(origin)`` and stepped by
each command it applies::

    chain(n) = sha256(chain(n-1) + command(n) + msgpack([result(n), summary(n)]))[:16]

``n`` is the applied index (the commands this replica's state machine has
applied, ``ResmgrState.applied``; the same on every replica at the same log
position, unlike pysyncobj's index, which also counts its own entries).
The command is the encoded Raft entry; the result is what ``apply``
returned (results are a function of the state, so a diverged state shows up
in them); the summary (``ResmgrState.summary``) adds a few counters of the
state that cost nothing to read. Everything hashed is a function of the log:
no clock, no replica-local diagnostics, no iteration over unordered sets.
msgpack is self-delimiting, so the concatenation is unambiguous.

Equal chains at one index mean, with overwhelming probability, that both
replicas applied the same commands since ``origin`` with the same results.
Chains are comparable only between replicas with the same origin: 0 for a
replica that applied the log from its start, or the index of the snapshot
it restored when that snapshot predates the chain (the chain itself is in
snapshots, so a restored replica carries on with the same values).
``digest.reset`` at index R sets every replica's chain to ``seed(R)`` (before
R itself is hashed in) and its origin to R; the leader proposes it when it
sees origins differ.

Cost: one hash over the command's bytes (sha256 with SHA-NI: ~1.8 GB/s here;
blake2b measured 1.0 GB/s) plus a msgpack of the result, i.e. microseconds
against the milliseconds a batch command takes to apply.

``History`` keeps each replica's last ``HISTORY`` (index, chain) pairs so
two replicas at different indices can still be compared at a common one;
``Checker`` is the leader's comparison with the other replicas (pure: the
service does the calls and the logging).
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

SEED = b"peloton-resmgr-chain-1"
DIGEST_BYTES = 16
# Pairs each replica keeps: at ~100 commands/s, 40 s of log, ~600 KB.
HISTORY = 4096


def seed(index: int) -> bytes:
    """The chain of a replica whose chain starts at applied index ``index``."""
    return hashlib.sha256(SEED + index.to_bytes(8, "big")).digest()[:DIGEST_BYTES]


# hashlib lets go of the GIL to hash 2,048 bytes or more. The tick thread
# applies (and hashes) while trio's thread works, and took the GIL back only
# when trio's switch interval ended: a 230 KB command's hash took 1.2 ms of
# wall time for 0.15 ms of cpu beside a busy thread (0.27 ms in pieces that
# keep it), on every replica, for every command. A result can be as large
# (a dequeue's run ids), so both go in pieces.
_GIL_KEPT = 2047


def _hash_in(h: Any, data: bytes) -> None:
    if len(data) <= _GIL_KEPT:
        h.update(data)
        return
    view = memoryview(data)
    for start in range(0, len(view), _GIL_KEPT):
        h.update(view[start:start + _GIL_KEPT])


def step(chain: bytes, command: bytes, tail: bytes) -> bytes:
    """The chain after one more command (``tail``: its packed result and summary)."""
    h = hashlib.sha256(chain)
    _hash_in(h, command)
    _hash_in(h, tail)
    return h.digest()[:DIGEST_BYTES]


class History:
    """The last ``size`` (applied index, chain) pairs, contiguous indices."""

    __slots__ = ("_pairs",)

    def __init__(self, size: int = HISTORY) -> None:
        self._pairs: deque[tuple[int, bytes]] = deque(maxlen=size)

    def record(self, index: int, chain: bytes) -> None:
        pairs = self._pairs
        if pairs and pairs[-1][0] + 1 != index:
            pairs.clear()  # a restore jumped: older pairs are of another run
        pairs.append((index, chain))

    def at(self, index: int) -> bytes | None:
        pairs = self._pairs
        if not pairs:
            return None
        pos = index - pairs[0][0]
        if 0 <= pos < len(pairs):
            return pairs[pos][1]
        return None

    def last(self, n: int) -> list[tuple[int, bytes]]:
        """The last ``n`` pairs, oldest first."""
        if n <= 0:
            return []
        pairs = self._pairs
        return list(pairs)[-n:] if n < len(pairs) else list(pairs)

    def __len__(self) -> int:
        return len(self._pairs)


@dataclass(frozen=True, slots=True)
class Report:
    """What one replica says of its chain (``ReplicaDigest`` on the wire)."""

    applied: int
    chain: bytes
    since: int
    history: tuple[tuple[int, bytes], ...] = ()


AGREE, MISMATCH, NO_COMMON_INDEX, ORIGIN_DIFFERS = (
    "agree", "mismatch", "no common index", "origin differs")


@dataclass(slots=True)
class PeerCheck:
    """The leader's comparisons with one other replica (since this process began)."""

    checks: int = 0
    mismatches: int = 0
    agreed_index: int = 0  # highest applied index found equal
    mismatch_index: int = 0  # the last index found different
    outcome: str = ""
    # When the last outcome was a mismatch: (index, ours, theirs) as hex.
    last_mismatch: tuple[int, str, str] | None = None


@dataclass(slots=True)
class Checker:
    """Compares this replica's chain with other replicas' reports."""

    peers: dict[str, PeerCheck] = field(default_factory=dict)

    def compare(self, peer: str, since: int, history: History,
                theirs: Report) -> tuple[str, int, bytes | None, bytes | None]:
        """Compare at the highest index both hold; returns ``(outcome, index,
        our chain, their chain)`` and counts it. Only a difference at the same
        index and origin is a mismatch."""
        check = self.peers.setdefault(peer, PeerCheck())
        check.checks += 1
        if theirs.since != since:
            check.outcome = ORIGIN_DIFFERS
            return ORIGIN_DIFFERS, 0, None, None
        for index, chain in sorted(_pairs(theirs), reverse=True):
            ours = history.at(index)
            if ours is None:
                continue
            if ours == chain:
                check.outcome = AGREE
                check.agreed_index = max(check.agreed_index, index)
                return AGREE, index, ours, chain
            check.outcome = MISMATCH
            check.mismatches += 1
            check.mismatch_index = index
            check.last_mismatch = (index, ours.hex(), chain.hex())
            return MISMATCH, index, ours, chain
        check.outcome = NO_COMMON_INDEX
        return NO_COMMON_INDEX, 0, None, None


def _pairs(report: Report) -> Iterable[tuple[int, bytes]]:
    yield (report.applied, report.chain)
    yield from report.history


__all__ = ["AGREE", "HISTORY", "MISMATCH", "NO_COMMON_INDEX", "ORIGIN_DIFFERS", "Checker",
           "History", "PeerCheck", "Report", "seed", "step"]
