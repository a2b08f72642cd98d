"""Admission with entitlement (reference/peloton.md §4.5): the admitters one
by one, movement between a leaf's four queues, entitlement recomputed when
demand, allocation, capacity or the tree change, the capacity-unknown
fallback, and determinism (snapshot/restore, two replicas)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from peloton.core.resources import Resources
from peloton.core.states import TaskState
from peloton.resmgr import state as state_module
from peloton.resmgr.state import ResmgrState
from tests.resmgr.test_state import dequeue, domain, enqueue, mid, ok, pool, state_of, task, update


def capacity(s: ResmgrState, cpu: float, memory: float = 0.0) -> None:
    ok(s, "cluster.capacity", {"cluster": "c1", "physical": [cpu, memory, 0.0, 0.0]})


def ready(s: ResmgrState, *instances: int, job: str = "j1") -> list[bool]:
    return [state_of(s, mid(i, job=job)) == TaskState.READY for i in instances]


def waiting(s: ResmgrState, pool_id: str) -> list[tuple[str, str]]:
    """(queue, reason) of each waiting gang."""
    return [(q, r) for _, q, r in s.pending_gangs(pool_id, 1000)]


def gangs(n: int, *, job: str = "j1", start: int = 0, **kw: Any) -> list[list[dict[str, Any]]]:
    return [[task(start + i, job=job, **kw)] for i in range(n)]


def three_pools() -> ResmgrState:
    """The user guide's example: 3 pools, reservation 20, limit 100, share 1."""
    s = ResmgrState(num_shards=4)
    for pid in ("p1", "p2", "p3"):
        ok(s, "pool.create", pool(pid, cpu=(20, 100, 1)))
    return s


def cpu_entitlement(s: ResmgrState, pid: str) -> float:
    return s.entitlements[pid].entitlement.cpu


def admitted(s: ResmgrState, pid: str) -> float:
    return s.pools[pid].allocation.cpu


# --------------------------------------------------------------------------- the worked example


def test_the_worked_example_entitlements_and_admission() -> None:
    s = three_pools()
    capacity(s, 0.5)  # known, but nothing fits: the demand piles up
    enqueue(s, "p1", *gangs(10, job="a"))
    enqueue(s, "p2", *gangs(80, job="b"))
    enqueue(s, "p3", *gangs(80, job="c"))
    assert [admitted(s, p) for p in ("p1", "p2", "p3")] == [0, 0, 0]
    assert [s.entitlements[p].demand.cpu for p in ("p1", "p2", "p3")] == [10, 80, 80]
    capacity(s, 100)  # the cluster grows: entitlement recomputed, admission runs
    assert [cpu_entitlement(s, p) for p in ("p1", "p2", "p3")] == pytest.approx([10, 45, 45])
    assert [admitted(s, p) for p in ("p1", "p2", "p3")] == [10, 45, 45]
    [(queue, reason), *_] = waiting(s, "p2")
    assert queue == "pending" and reason == "entitlement: cpu 45 + 1 > 45"
    # RP1's demand rises to 50 (10 running + 40 waiting): each pool 33.3.
    enqueue(s, "p1", *gangs(40, job="a", start=10))
    assert [cpu_entitlement(s, p) for p in ("p1", "p2", "p3")] == pytest.approx(
        [100 / 3] * 3)
    assert admitted(s, "p1") == 33  # up to its entitlement, whole gangs
    assert waiting(s, "p1")[0][1] == "entitlement: cpu 33 + 1 > 33.3333"


def test_entitlement_is_recomputed_when_demand_changes() -> None:
    s = three_pools()
    capacity(s, 100)
    assert [cpu_entitlement(s, p) for p in ("p1", "p2", "p3")] == pytest.approx([100 / 3] * 3)
    enqueue(s, "p1", *gangs(10))
    # p1 wants 10; the other 90 go by share: demand-capped, then unclaimed.
    assert cpu_entitlement(s, "p1") == pytest.approx(10 + 90 / 3)
    update(s, *[(mid(i), TaskState.SUCCEEDED) for i in range(10)])
    assert cpu_entitlement(s, "p1") == pytest.approx(100 / 3)
    assert s.entitlements["root"].entitlement.cpu == 100


def test_a_new_pool_changes_the_others_entitlement() -> None:
    s = three_pools()
    capacity(s, 90)
    assert cpu_entitlement(s, "p1") == pytest.approx(30)
    ok(s, "pool.create", pool("p4", cpu=(0, 100, 1)))
    assert cpu_entitlement(s, "p1") == pytest.approx(22.5)


# --------------------------------------------------------------------------- admitters


def test_capacity_unknown_falls_back_to_limits() -> None:
    s = three_pools()
    assert s.total_capacity() == Resources()
    enqueue(s, "p1", *gangs(100))
    enqueue(s, "p1", *gangs(2, start=100))
    assert admitted(s, "p1") == 100  # the limit, although every entitlement is 0
    assert cpu_entitlement(s, "p1") == 0
    assert waiting(s, "p1")[0] == ("pending", "limit of /p1: cpu 100 + 1 > 100")
    # Non-preemptible gangs too: the reservation admitter needs capacity known.
    s2 = three_pools()
    enqueue(s2, "p1", *gangs(30, preemptible=False))
    assert admitted(s2, "p1") == 30


def test_reservation_admitter_and_the_non_preemptible_queue() -> None:
    assert state_module.PREEMPTION_ENABLED  # Peloton's default, and ours
    s = three_pools()
    capacity(s, 100)
    enqueue(s, "p1", [task(0, cpu=15, preemptible=False)], [task(1, cpu=10, preemptible=False)],
            [task(2, cpu=10)])
    # 15 + 10 > 20 reserved: gang 1 moves to the non-preemptible queue and
    # the preemptible gang behind it is admitted (elastic share).
    assert ready(s, 0, 1, 2) == [True, False, True]
    assert waiting(s, "p1") == [("non-preemptible", "reservation (non-preemptible): "
                                 "cpu 15 + 10 > 20")]
    assert s.pools["p1"].np_allocation.cpu == 15
    dequeue(s)
    update(s, (mid(0), TaskState.SUCCEEDED))
    assert ready(s, 1) == [True]
    assert s.pools["p1"].np_allocation.cpu == 10


def test_controller_admitter_and_the_controller_queue() -> None:
    s = three_pools()
    ok(s, "pool.update", {**pool("p1", cpu=(20, 100, 1)), "controller_limit": 10.0})
    capacity(s, 100)
    enqueue(s, "p1", [task(0, cpu=1.5, controller=True)], [task(1, cpu=1, controller=True)],
            [task(2, cpu=1)])
    assert ready(s, 0, 1, 2) == [True, False, True]
    assert waiting(s, "p1") == [("controller", "controller limit (10% of reservation): "
                                 "cpu 1.5 + 1 > 2")]
    assert s.pools["p1"].controller_allocation.cpu == 1.5
    # No controller limit: controller gangs are ordinary ones.
    enqueue(s, "p2", *gangs(3, job="x", controller=True))
    assert admitted(s, "p2") == 3


def test_revocable_gangs_use_slack_entitlement() -> None:
    s = three_pools()
    capacity(s, 100)
    enqueue(s, "p1", [task(0, revocable=True)], [task(1)])
    # No slack capacity yet: revocable gangs wait in their own queue, and
    # do not block the non-revocable gang behind them.
    assert ready(s, 0, 1) == [False, True]
    assert waiting(s, "p1") == [("revocable", "slack entitlement: cpu 0 + 1 > 0")]
    assert s.pools["p1"].slack_demand.cpu == 1 and s.pools["p1"].demand.cpu == 0
    assert s.entitlements["p1"].slack_demand.cpu == 1
    # The host manager reports idle cpu: the revocable gang runs on it.
    ok(s, "cluster.capacity", {"cluster": "c1", "physical": [100, 0, 0, 0],
                               "slack": [4, 0, 0, 0]})
    assert s.total_slack_capacity().cpu == 4
    assert ready(s, 0) == [True]
    assert s.pools["p1"].slack_allocation.cpu == 1
    # A report without slack (a command logged before slack existed) keeps it.
    ok(s, "cluster.capacity", {"cluster": "c1", "physical": [90, 0, 0, 0]})
    assert s.total_slack_capacity().cpu == 4
    restored = ResmgrState(num_shards=4)
    restored.restore(s.snapshot())
    assert restored.slack_capacity == s.slack_capacity
    assert restored.entitlements == s.entitlements


def test_entitlement_head_of_line_blocks_the_pending_queue() -> None:
    s = three_pools()
    capacity(s, 3)
    enqueue(s, "p2", [task(0, cpu=1, job="x")])
    enqueue(s, "p3", [task(0, cpu=1, job="y")])
    enqueue(s, "p1", [task(0, cpu=2)], [task(1, cpu=0.5)])
    # Reservations (2.5, 1, 1) exceed capacity 3: scaled, p1 gets 5/3.
    assert cpu_entitlement(s, "p1") == pytest.approx(5 / 3)
    # The preemptible head fails entitlement and has no special queue: it
    # blocks the pool, even though the smaller gang would fit.
    assert ready(s, 0, 1) == [False, False]
    reasons = waiting(s, "p1")
    assert reasons[0] == ("pending", "entitlement: cpu 0 + 2 > 1.66667")
    assert reasons[1][0] == "pending" and reasons[1][1].startswith("behind gang")


def test_special_queues_are_visited_before_pending() -> None:
    s = three_pools()
    capacity(s, 100)
    enqueue(s, "p1", [task(0, cpu=20, preemptible=False)], [task(1, cpu=5, preemptible=False)])
    assert waiting(s, "p1")[0][0] == "non-preemptible"
    enqueue(s, "p1", [task(2, cpu=5, priority=9)])  # preemptible: not held up
    assert ready(s, 2) == [True]
    dequeue(s)
    update(s, (mid(0), TaskState.SUCCEEDED))
    # The released reservation goes to the waiting non-preemptible gang.
    assert ready(s, 1) == [True]
    assert s.pools["p1"].np_allocation.cpu == 5


def test_limit_still_bounds_ancestors() -> None:
    s = ResmgrState()
    ok(s, "pool.create", pool("org", cpu=(10, 10)))
    ok(s, "pool.create", pool("a", "org", cpu=(5, 10)))
    ok(s, "pool.create", pool("b", "org", cpu=(5, 10)))
    enqueue(s, "a", *gangs(8))  # capacity unknown: limits only
    capacity(s, 100)
    enqueue(s, "b", *gangs(4, job="j2"))
    assert admitted(s, "b") == 2
    assert waiting(s, "b")[0][1] in ("limit of /org: cpu 10 + 1 > 10",
                                     "entitlement: cpu 2 + 1 > 2")


# --------------------------------------------------------------------------- determinism


def busy() -> ResmgrState:
    s = three_pools()
    ok(s, "pool.update", {**pool("p2", cpu=(20, 100, 1)), "controller_limit": 10.0})
    capacity(s, 40)
    enqueue(s, "p1", *gangs(30, job="a"))
    enqueue(s, "p2", *gangs(5, job="b", controller=True, cpu=2))
    enqueue(s, "p3", *gangs(25, job="c", preemptible=False), [task(99, job="c", revocable=True)])
    dequeue(s, limit=3)
    return s


def test_snapshot_restore_keeps_queues_accounting_and_entitlement() -> None:
    s = busy()
    copy = ResmgrState()
    copy.restore(s.snapshot())
    assert copy.digest() == s.digest()
    assert copy.pools == s.pools and copy.gangs == s.gangs and copy.queues == s.queues
    assert copy.entitlements == s.entitlements
    assert {q for qs in s.queues.values() for q in qs} >= {"controller", "non-preemptible",
                                                          "revocable"}
    for state in (s, copy):
        capacity(state, 80)
        update(state, (mid(0, job="a"), TaskState.SUCCEEDED))
    assert domain(copy) == domain(s) and copy.entitlements == s.entitlements


def test_two_replicas_agree() -> None:
    one, two = busy(), busy()
    assert domain(one) == domain(two)
    assert one.entitlements == two.entitlements
    assert all(math.isfinite(e.entitlement.cpu) for e in one.entitlements.values())


def test_an_old_snapshot_without_split_accounting_restores() -> None:
    import msgpack

    s = ResmgrState()
    ok(s, "pool.create", pool("a", cpu=(2, 4)))
    enqueue(s, "a", [task(0)], [task(1, cpu=4)])
    d = msgpack.unpackb(s.snapshot(), raw=False, strict_map_key=False)
    del d["version"]  # version 0: the shapes from before versions
    d["pools"] = [row[:11] for row in d["pools"]]
    d["gangs"] = [row[:5] for row in d["gangs"]]
    d["queues"] = {pid: qs.get("pending", []) for pid, qs in d["queues"].items()}
    old = ResmgrState()
    old.restore(msgpack.packb(d, use_bin_type=True))
    assert old.pools["a"].allocation == s.pools["a"].allocation
    assert [g.tasks for g, _, _ in old.pending_gangs("a", 10)] == [[mid(1)]]
