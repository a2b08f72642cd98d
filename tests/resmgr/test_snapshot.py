"""The snapshot format: a version in every snapshot, migrations from the
older ones, and a refusal of a version this replica does not know.

The domain tests restore version 0 snapshots of their own features (split
accounting in test_admission, the victim index in test_preemption, the
slack roll-up in test_slack, the running digest in test_digest); this file
covers the rest of version 0 and the machinery.
"""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from peloton.core.errors import FailedPrecondition
from peloton.core.states import TaskState
from peloton.resmgr import snapshot
from peloton.resmgr.state import ResmgrState
from tests.resmgr.test_state import (
    dequeue,
    enqueue,
    heartbeat,
    mid,
    ok,
    place,
    pool,
    task,
    tick,
    update,
)


def busy() -> ResmgrState:
    """Two pools, gangs in every stage, a member, a kept result."""
    s = ResmgrState(num_shards=4)
    ok(s, "pool.create", pool("a", cpu=(2, 8)))
    ok(s, "pool.create", pool("b", cpu=(2, 8)))
    heartbeat(s, "j1", 10.0, num_shards=4)
    enqueue(s, "a", [task(0)], [task(1)], [task(2)])
    enqueue(s, "b", [task(0, job="jb")], [task(1, job="jb")])
    dequeue(s, limit=1)
    place(s, "h1", mid(0))
    update(s, (mid(1), TaskState.RUNNING))
    tick(s, 11.0)
    return s


def unpacked(s: ResmgrState) -> dict[str, Any]:
    d: dict[str, Any] = msgpack.unpackb(s.snapshot(), raw=False, strict_map_key=False)
    return d


def restored(d: dict[str, Any]) -> ResmgrState:
    other = ResmgrState()
    other.restore(msgpack.packb(d, use_bin_type=True))
    return other


def test_a_snapshot_names_its_version_and_restores_to_the_same_state() -> None:
    s = busy()
    d = unpacked(s)
    assert d["version"] == snapshot.VERSION
    assert restored(d).digest() == s.digest()


def test_a_newer_version_is_refused_and_leaves_the_replica_as_it_was() -> None:
    s = busy()
    d = unpacked(s)
    d["version"] = snapshot.VERSION + 1
    other = busy()
    before = other.digest()
    with pytest.raises(FailedPrecondition, match=f"version {snapshot.VERSION + 1} is not one"):
        other.restore(msgpack.packb(d, use_bin_type=True))
    assert other.digest() == before


def test_version_0_rows_and_queues_are_brought_up_to_date() -> None:
    """The shapes written before versions: a flat READY list, kept results
    without their time, members without a shard count, no pinned count,
    no backoff heap and no slack capacity."""
    s = busy()
    d = unpacked(s)
    del d["version"], d["shards_pinned"], d["backoff"], d["slack_capacity"]
    d["ready"] = [gid for _, ids in d["ready"] for gid in ids] + [10_000]  # a gang gone
    d["recent"] = [[key, result] for key, _, result in d["recent"]]
    d["members"] = [row[:5] for row in d["members"]]
    old = restored(d)
    assert old.ready.dump() == s.ready.dump()
    assert list(old.recent) == list(s.recent)
    assert all(at == s.now for at, _ in old.recent.values())
    assert old.members["j1"].num_shards == 0  # said nothing: taken to agree
    assert old.shards_pinned  # the count in use holds
    assert old.backoff == [] and old.slack_capacity == {}
    assert old.tasks.keys() == s.tasks.keys()


def test_every_migration_step_is_registered() -> None:
    assert sorted(snapshot.MIGRATIONS) == list(range(snapshot.VERSION))


def test_a_version_1_snapshot_has_no_service_bounds() -> None:
    s = ResmgrState()
    d = msgpack.unpackb(s.snapshot(), raw=False, strict_map_key=False)
    d["version"] = 1
    del d["job_sla"]
    restored = ResmgrState()
    restored.restore(msgpack.packb(d, use_bin_type=True))
    assert restored.job_sla == {}


def test_a_version_2_snapshots_shard_owners_are_taken_to_know_their_shards() -> None:
    """A shard then moved only when its owner's membership ended; so it does
    after the upgrade, from every owner of the old map."""
    s = busy()
    d = unpacked(s)
    assert d["shards"] and all(len(row) == 5 for row in d["shards"])
    d["version"] = 2
    d["shards"] = [row[:4] for row in d["shards"]]
    assert all(sh.told for sh in restored(d).shards.values())


def test_a_version_3_snapshot_has_no_express_placements() -> None:
    s = busy()
    d = unpacked(s)
    assert d["express_placements"] == []
    d["version"] = 3
    del d["express_placements"]
    back = restored(d)
    assert back.express_placements == {} and back.placements == s.placements
