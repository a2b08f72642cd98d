"""Gangs that go while they wait (killed, or sent back to PENDING as a new
gang) leave their ids in their leaf's admission and READY queues, which
drop them at their heads. ``waiting_gangs`` (the count the jobmgrs' intake
holds large creates by) does not count them, and a leaf where they pile up
is swept: after a mass kill the pool does not look full, and its queues do
not keep a hundred thousand ids of gangs that are gone.
"""

from __future__ import annotations

from typing import Any

import msgpack
from hypothesis import HealthCheck, example, given, settings

from peloton.core.states import TaskState
from peloton.resmgr import snapshot
from peloton.resmgr.state import ResmgrState
from peloton.resmgr.tracker import SWEEP_MIN
from tests.resmgr.test_state import (
    command_logs,
    dequeue,
    enqueue,
    log_of,
    mid,
    ok,
    pool,
    seeded,
    task,
    update,
)


def gone_ids(s: ResmgrState, pool_id: str) -> int:
    """The ids of gone gangs the leaf's queues hold, counted the long way."""
    def gone(gid: int) -> bool:
        gang = s.gangs.get(gid)
        return gang is None or not gang.tasks

    held = [gid for queue in s.queues.get(pool_id, {}).values()
            for ids in queue.values() for gid in ids] + s.ready.of_pool(pool_id)
    return sum(1 for gid in held if gone(gid))


def live_waiting(s: ResmgrState, pool_id: str) -> int:
    return s.queued_ids(pool_id) - gone_ids(s, pool_id)


def full_pool(gangs: int) -> ResmgrState:
    """Leaf "p" admits two one-cpu gangs; the others of ``gangs`` wait PENDING."""
    s = ResmgrState(num_shards=4)
    ok(s, "pool.create", pool("p", cpu=(2, 2)))
    ok(s, "cluster.capacity", {"cluster": "c1", "physical": [2.0, 1024.0, 0.0, 0.0]})
    enqueue(s, "p", *[[task(0, job=f"j{i}")] for i in range(gangs)])
    return s


def kill(s: ResmgrState, jobs: range) -> None:
    update(s, *[(mid(0, job=f"j{i}"), TaskState.KILLED) for i in jobs])


def test_a_mass_kill_of_waiting_gangs_leaves_none_counted_and_sweeps_the_queues() -> None:
    s = full_pool(1_002)
    assert s.waiting_gangs("p") == 1_002  # 2 READY, 1,000 PENDING behind a full pool
    kill(s, range(2, 1_002))  # every PENDING one, its head first
    assert s.waiting_gangs("p") == 2
    assert s.queued_ids("p") == 2  # swept: the queues hold no gone gang's id
    assert "p" not in s.gone


def test_a_few_gone_ids_stay_until_a_head_drops_them_and_are_not_counted() -> None:
    s = full_pool(502)
    kill(s, range(400, 450))  # 50 behind the head: too few to sweep for
    assert s.queued_ids("p") == 502 and s.gone["p"] == 50
    assert s.waiting_gangs("p") == 452 == live_waiting(s, "p")
    ok(s, "pool.update", pool("p", cpu=(500, 500)))  # room: admission reaches them
    ok(s, "cluster.capacity", {"cluster": "c1", "physical": [500.0, 1024.0, 0.0, 0.0]})
    assert s.waiting_gangs("p") == 452 == s.queued_ids("p")  # all READY now, none gone
    assert "p" not in s.gone


def test_ready_gangs_killed_are_not_counted_and_a_dequeue_drops_them() -> None:
    s = full_pool(2)
    enqueue(s, "p", *[[task(0, job=f"k{i}", cpu=0.0, memory=1.0)] for i in range(SWEEP_MIN)])
    assert len(s.ready) == 2 + SWEEP_MIN  # no cpu asked: all admitted
    update(s, *[(mid(0, job=f"k{i}"), TaskState.KILLED) for i in range(1, SWEEP_MIN)])
    assert s.gone["p"] == SWEEP_MIN - 1 and s.waiting_gangs("p") == 3
    assert s.queued_ids("p") == 2 + SWEEP_MIN  # too few gone to sweep for
    assert len(dequeue(s, limit=3)) == 3  # j0, j1 and k0, the gone behind them stay
    assert s.waiting_gangs("p") == 0 and s.gone["p"] == SWEEP_MIN - 1
    assert dequeue(s) == [] and s.queued_ids("p") == 0  # dropped at the head
    assert "p" not in s.gone


def test_a_gang_preempted_back_to_pending_leaves_its_old_id_uncounted() -> None:
    """A READY victim goes back to PENDING as a new gang; its old id stays
    in the READY queue."""
    s = ResmgrState(num_shards=4)
    for leaf in ("a", "b"):
        ok(s, "pool.create", pool(leaf, cpu=(2, 4)))
    ok(s, "cluster.capacity", {"cluster": "c1", "physical": [4.0, 1024.0, 0.0, 0.0]})
    enqueue(s, "a", *[[task(i, job="ja")] for i in range(4)])  # a takes b's share too
    assert s.waiting_gangs("a") == 4
    enqueue(s, "b", *[[task(i, job="jb")] for i in range(2)])  # b asks for its reservation
    ok(s, "cluster.tick", {"now": 100.0, "sustain": 0.0})
    back = [m for m, e in s.tasks.items() if m.startswith("ja") and e.state == TaskState.PENDING]
    assert back, "the test needs a preempted READY gang"
    assert s.waiting_gangs("a") == live_waiting(s, "a") == 4
    assert s.gone.get("a", 0) == gone_ids(s, "a") > 0


def test_a_version_4_snapshot_counts_its_gone_ids_from_its_queues() -> None:
    s = full_pool(502)
    kill(s, range(400, 450))
    d: dict[str, Any] = msgpack.unpackb(s.snapshot(), raw=False, strict_map_key=False)
    d["version"] = 4
    del d["gone"]
    back = ResmgrState()
    back.restore(msgpack.packb(d, use_bin_type=True))
    assert back.gone == {"p": 50} and back.digest() == s.digest()
    assert snapshot.VERSION == 5


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(command_logs)
# A READY task reported LAUNCHED, then ended: its gang went with its id
# still in the READY queue (counted by whether it was READY, it was missed).
@example(steps=[
    ("gangs.enqueue", {"pool": "p", "requeue": False, "gangs": [[[
        "j1-0-1", "j1-0", 1, 0, 0, [0.5, 0.0, 0.0, 0.0], b"task j1-0-1", 1]]]}, 2),
    ("tasks.update", {"updates": [["j1-0-1", TaskState.LAUNCHED],
                                  ["j1-0-1", TaskState.SUCCEEDED]]}, 0)])
def test_every_leafs_count_is_the_gone_ids_its_queues_hold(
        steps: list[tuple[str, Any, int]]) -> None:
    s = seeded()
    for blob in log_of(steps):
        s.apply(blob)
        for leaf in set(s.queues) | set(s.gone):
            assert s.gone.get(leaf, 0) == gone_ids(s, leaf), leaf
            assert s.waiting_gangs(leaf) == live_waiting(s, leaf)


def test_a_restored_state_knows_which_gangs_are_queued() -> None:
    """Whether a gang's id is queued is not in snapshots: a restored state
    reads it from its queues, and counts a queued gang that goes."""
    s = full_pool(3)  # j0 and j1 admitted (their ids in the READY queue), j2 waits
    back = ResmgrState()
    back.restore(s.snapshot())
    update(back, (mid(0, job="j0"), TaskState.LAUNCHED), (mid(0, job="j0"), TaskState.SUCCEEDED))
    update(back, (mid(0, job="j2"), TaskState.KILLED))
    assert back.gone == {"p": 2} == {"p": gone_ids(back, "p")}
