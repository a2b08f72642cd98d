"""The running digest replicas publish (``peloton.resmgr.digest``), driven
through ``ResmgrState.apply``: replicas applying one log have one chain at
every applied index, a replica restored from a snapshot carries on with it,
and a replica whose state or results differ has another chain. Plus the
history each replica keeps and the leader's comparison of two replicas.
"""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from peloton.core.errors import FailedPrecondition, InvalidArgument
from peloton.core.states import TaskState
from peloton.raft.codec import Command, encode
from peloton.resmgr import digest
from peloton.resmgr.digest import (
    AGREE,
    MISMATCH,
    NO_COMMON_INDEX,
    ORIGIN_DIFFERS,
    Checker,
    History,
    Report,
)
from peloton.resmgr.state import FULL_DIGEST_AHEAD, FULL_DIGESTS, ResmgrState
from tests.resmgr.test_state import (
    command_logs,
    dequeue,
    enqueue,
    log_of,
    mid,
    ok,
    place,
    seeded,
    task,
    tick,
    tree,
)


def chains(state: ResmgrState, log: list[bytes]) -> list[tuple[int, bytes]]:
    out = []
    for blob in log:
        state.apply(blob)
        out.append((state.applied, state.chain))
    return out


def report(state: ResmgrState, n: int = 64) -> Report:
    return Report(state.applied, state.chain, state.chain_since,
                  tuple(state.history.last(n)))


def busy() -> ResmgrState:
    """tree() with a placed task waiting for its jobmgr shard, and a READY one."""
    s = tree()
    tick(s, 5.0)
    enqueue(s, "a", [task(0, cpu=2)], [task(1, cpu=2)])
    dequeue(s, limit=1)
    place(s, "h1", mid(0))
    return s


def replicas() -> tuple[ResmgrState, ResmgrState]:
    """Two replicas of busy() (the second restored from the first's snapshot)."""
    one, two = busy(), ResmgrState()
    two.restore(one.snapshot())
    return one, two


_keys = iter(range(10**9))


def both(name: str, payload: Any, *states: ResmgrState) -> list[Any]:
    """Apply one command (one blob, one key) to each replica; their results."""
    blob = encode(Command(name, f"both-{next(_keys)}", payload))
    return [s.apply(blob) for s in states]


def old_snapshot(state: ResmgrState) -> bytes:
    """``state``'s snapshot as written before the chain existed."""
    d = msgpack.unpackb(state.snapshot(), raw=False, strict_map_key=False)
    del d["chain"], d["version"]
    return msgpack.packb(d, use_bin_type=True)


# --------------------------------------------------------------------------- properties


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(command_logs)
def test_two_replicas_applying_one_log_have_one_chain_at_every_index(
        steps: list[tuple[str, Any, int]]) -> None:
    log = list(log_of(steps))
    one, two = seeded(), seeded()
    assert chains(one, log) == chains(two, log)
    assert one.history.last(len(log) + 1) == two.history.last(len(log) + 1)
    assert (one.chain_since, one.chain) == (two.chain_since, two.chain)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(command_logs, st.data())
def test_a_replica_restored_mid_log_continues_the_same_chain(
        steps: list[tuple[str, Any, int]], data: st.DataObject) -> None:
    log = list(log_of(steps))
    cut = data.draw(st.integers(0, len(log)))
    original = seeded()
    chains(original, log[:cut])
    restored = ResmgrState(num_shards=99)
    restored.restore(original.snapshot())
    assert (restored.applied, restored.chain_since, restored.chain) == (
        original.applied, original.chain_since, original.chain)
    assert chains(restored, log[cut:]) == chains(original, log[cut:])
    # Its history starts at the snapshot, and the leader's check agrees.
    assert restored.history.last(1) == [(original.applied, original.chain)]
    outcome, index, _, _ = Checker().compare("r", original.chain_since, original.history,
                                             report(restored))
    assert (outcome, index) == (AGREE, original.applied)


def test_the_same_commands_on_a_tampered_state_give_another_chain() -> None:
    """A difference the summary sees (a task the other replica lacks)."""
    one, two = replicas()
    assert one.chain == two.chain
    del two.tasks[mid(1)]  # the READY task, lost by one replica
    two.state_counts[TaskState.READY] -= 1
    both("cluster.tick", {"now": 6.0}, one, two)
    assert one.applied == two.applied and one.chain != two.chain


def test_a_different_result_gives_another_chain() -> None:
    """A difference only a result shows: the placement's host."""
    one, two = replicas()
    two.placements[0][0][0] = "h2"  # one replica recorded another host
    both("cluster.tick", {"now": 6.0}, one, two)
    assert one.chain == two.chain  # invisible until a command reads it
    [first, second] = both("placements.get", {"shards": [0], "limit": 10}, one, two)
    assert (first[1][0][0], second[1][0][0]) == ("h1", "h2")
    assert one.chain != two.chain
    outcome, index, ours, theirs = Checker().compare("two", one.chain_since, one.history,
                                                     report(two))
    assert (outcome, index, ours, theirs) == (MISMATCH, one.applied, one.chain, two.chain)


def test_a_difference_no_result_shows_yet_takes_the_full_digest() -> None:
    """What the chain cannot see until a command reads it: the full-state
    digest, computed on demand at one applied index, does."""
    one, two = replicas()
    two.tasks[mid(1)].reason = "tampered"
    for s in (one, two):
        s.digest_full_at(s.applied + 2)
    both("cluster.tick", {"now": 6.0}, one, two)
    both("cluster.tick", {"now": 7.0}, one, two)
    assert one.chain == two.chain
    [(i1, d1)] = one.full_digests.items()
    [(i2, d2)] = two.full_digests.items()
    assert i1 == i2 == one.applied and d1 != d2


def test_a_repeated_key_and_an_error_result_are_chained_too() -> None:
    one = tree()
    before = one.chain
    ok(one, "cluster.tick", {"now": 1.0}, key="same")
    after_first = one.chain
    ok(one, "cluster.tick", {"now": 1.0}, key="same")  # answered from the cache
    assert len({before, after_first, one.chain}) == 3
    assert one.applied == one.history.last(1)[0][0]


# --------------------------------------------------------------------------- origins


def test_a_snapshot_from_before_the_chain_starts_one_at_its_index() -> None:
    s = busy()
    first, second = ResmgrState(), ResmgrState()
    first.restore(old_snapshot(s))
    second.restore(old_snapshot(s))
    assert (first.chain_since, first.chain) == (s.applied, digest.seed(s.applied))
    assert first.chain == second.chain  # both started from the same index
    # The replica that applied the whole log has another origin: not comparable.
    assert Checker().compare("r", s.chain_since, s.history, report(first))[0] == ORIGIN_DIFFERS
    # digest.reset starts every chain again at one index.
    blob = encode(Command("digest.reset", "reset-1", {}))
    for state in (s, first):
        state.apply(blob)
    assert (s.chain_since, s.chain) == (first.chain_since, first.chain)
    assert s.chain_since == s.applied  # the reset's own index
    both("cluster.tick", {"now": 9.0}, s, first)
    assert Checker().compare("r", s.chain_since, s.history, report(first))[0] == AGREE


@pytest.mark.parametrize("size", [0, 2046, 2047, 2048, 4094, 4095, 230_000])
def test_a_step_is_the_documented_hash_for_commands_of_any_size(size: int) -> None:
    """Hashed in pieces (to keep the GIL), a command's step is still
    sha256(chain + command + tail)[:16], whatever the sizes: chains in
    snapshots and replicas of other versions compare equal."""
    import hashlib

    chain, command, tail = b"c" * 16, bytes(i % 251 for i in range(size)), b"t" * size
    assert digest.step(chain, command, tail) == hashlib.sha256(
        chain + command + tail).digest()[:16]


# --------------------------------------------------------------------------- history


def test_history_keeps_the_last_pairs_and_forgets_on_a_jump() -> None:
    h = History(size=3)
    assert h.at(0) is None and h.last(5) == []
    for i in range(1, 6):
        h.record(i, bytes([i]))
    assert h.last(5) == [(3, b"\x03"), (4, b"\x04"), (5, b"\x05")]
    assert h.last(1) == [(5, b"\x05")] and h.last(0) == []
    assert [h.at(i) for i in (2, 3, 5, 6)] == [None, b"\x03", b"\x05", None]
    h.record(100, b"x")  # a restore jumped ahead: the older pairs are of another run
    assert h.last(5) == [(100, b"x")] and h.at(5) is None


def test_the_checker_compares_at_the_highest_common_index() -> None:
    ours = History()
    for i in range(10, 20):
        ours.record(i, bytes([i]))
    checker = Checker()
    # A follower behind (up to 15), reporting its last pairs.
    theirs = Report(15, bytes([15]), 0, tuple((i, bytes([i])) for i in range(12, 16)))
    assert checker.compare("f", 0, ours, theirs) == (AGREE, 15, b"\x0f", b"\x0f")
    # Ahead of us: compared where both are.
    ahead = Report(25, b"z", 0, tuple((i, bytes([i])) for i in range(18, 20)))
    assert checker.compare("f", 0, ours, ahead)[:2] == (AGREE, 19)
    # Too far behind for our history.
    assert checker.compare("f", 0, ours, Report(3, b"\x03", 0))[0] == NO_COMMON_INDEX
    # Different at 14: a mismatch, with both values kept.
    bad = Report(14, b"!", 0)
    assert checker.compare("f", 0, ours, bad) == (MISMATCH, 14, b"\x0e", b"!")
    check = checker.peers["f"]
    assert (check.checks, check.mismatches, check.agreed_index, check.mismatch_index) == (
        4, 1, 19, 14)
    assert check.last_mismatch == (14, "0e", "21") and check.outcome == MISMATCH


# --------------------------------------------------------------------------- full digests


def test_full_digests_are_taken_at_the_asked_index_on_every_replica() -> None:
    one, two = replicas()
    at = one.applied + 3
    for s in (one, two):
        s.digest_full_at(at)
    for now in (6.0, 7.0, 8.0, 9.0):
        both("cluster.tick", {"now": now}, one, two)
    assert list(one.full_digests) == [at] and one.full_digests == two.full_digests
    assert not one.full_digest_due


def test_a_full_digest_of_the_past_or_too_many_is_refused_naming_the_field() -> None:
    s = busy()
    with pytest.raises(InvalidArgument) as past:
        s.digest_full_at(s.applied)
    assert past.value.field == "fullDigestAt"
    assert f"not after the applied index {s.applied}" in str(past.value)
    with pytest.raises(InvalidArgument, match="more than 100000 ahead") as far:
        s.digest_full_at(s.applied + FULL_DIGEST_AHEAD + 1)
    assert far.value.field == "fullDigestAt"
    for i in range(FULL_DIGESTS):
        s.digest_full_at(s.applied + 1 + i)
    with pytest.raises(FailedPrecondition) as many:
        s.digest_full_at(s.applied + 100)
    assert many.value.field == "fullDigestAt"


def test_a_due_full_digest_survives_a_restore_ahead_of_it() -> None:
    s = busy()
    copy = ResmgrState()
    copy.digest_full_at(s.applied + 1)  # a fresh replica asked, then a snapshot arrives
    copy.digest_full_at(2)  # passed by the snapshot: dropped
    copy.restore(s.snapshot())
    assert copy.full_digest_due == {s.applied + 1}
    s.digest_full_at(s.applied + 1)
    both("cluster.tick", {"now": 6.0}, s, copy)
    assert copy.full_digests == s.full_digests and len(s.full_digests) == 1
