"""Slack from the host managers in resmgr: when a report is worth a Raft
command, what a shrinking slack does to the slack entitlement (the figure
preemption reclaims revocable tasks by), and pool limits, which bound
revocable memory, disk and gpu but not revocable (slack) cpu."""

from __future__ import annotations

import msgpack
import pytest

from peloton.core.resources import Resources
from peloton.core.states import TaskState as T
from peloton.resmgr.service import slack_changed
from peloton.resmgr.state import ResmgrState, limit_usage
from tests.resmgr.test_admission import capacity, ready, three_pools, waiting
from tests.resmgr.test_preemption import capacity as pcapacity
from tests.resmgr.test_preemption import preemptions, running, states, tick
from tests.resmgr.test_state import check_invariants, enqueue, mid, ok, pool, state_of, task, update


@pytest.mark.parametrize(("known", "reported", "propose"), [
    (None, 0.0, True),  # never reported
    (0.0, 0.0, False),
    (0.0, 0.3, True),  # slack appears, however little
    (0.3, 0.0, True),  # and disappears
    (10.0, 10.9, False),  # under 1 cpu
    (10.0, 11.0, True),
    (10.0, 9.0, True),
    (100.0, 104.0, False),  # under 5 %
    (100.0, 95.0, True),
    (1000.0, 1049.0, False),
    (1000.0, 1050.0, True),
])
def test_slack_is_proposed_only_when_it_moved_enough(known: float | None, reported: float,
                                                     propose: bool) -> None:
    known_slack = None if known is None else Resources(cpu=known)
    assert slack_changed(known_slack, [reported, 0.0, 0.0, 0.0]) is propose


def test_shrinking_slack_leaves_revocable_work_above_its_slack_entitlement() -> None:
    """The reclaim path: hostmgr's slack falls below what revocable tasks
    hold, resmgr's slack entitlement follows it down, and the pool's slack
    allocation exceeds it (what inter-pool preemption frees, revocable tasks
    first); new revocable gangs wait meanwhile."""
    s = three_pools()
    capacity(s, 100)
    ok(s, "cluster.capacity", {"cluster": "c1", "physical": [100, 0, 0, 0],
                               "slack": [4, 0, 0, 0]})
    enqueue(s, "p1", *[[task(i, revocable=True)] for i in range(4)])
    assert ready(s, 0, 1, 2, 3) == [True] * 4
    assert s.entitlements["p1"].slack_entitlement.cpu == pytest.approx(4)
    # Non-revocable tasks got busy: only 1 idle cpu is left in the cluster.
    ok(s, "cluster.capacity", {"cluster": "c1", "physical": [100, 0, 0, 0],
                               "slack": [1, 0, 0, 0]})
    # The allocation stays (the tasks run) but the slack entitlement follows
    # the slack down: 3 cpus over it, what preemption frees (revocable first).
    pool = s.pools["p1"]
    assert pool.slack_allocation.cpu == 4
    assert s.entitlements["p1"].slack_entitlement.cpu == pytest.approx(1)
    enqueue(s, "p1", [task(9, revocable=True)])
    assert waiting(s, "p1") == [("revocable", "slack entitlement: cpu 4 + 1 > 1")]


@pytest.mark.parametrize(("known", "reported", "needed", "propose"), [
    (2.0, 1.5, 1.8, True),  # below what revocable work needs: every step
    (1.5, 1.49, 1.8, True),  # (down: preemption takes it back)
    (0.1, 1.09, 0.9, True),  # (up: admits what waits)
    (1.5, 1.51, 1.8, True),
    (2.0, 1.9, 1.8, False),  # still above it: small steps wait
    (1.9, 2.5, 1.8, False),
    (1.5, 1.5, 1.8, False),
    (1.5, 1.49, 0.0, False),  # nothing revocable: the coarse rule alone
])
def test_slack_is_proposed_exactly_up_to_what_revocable_work_needs(
        known: float, reported: float, needed: float, propose: bool) -> None:
    assert slack_changed(Resources(cpu=known), [reported, 0.0, 0.0, 0.0], needed) is propose


def test_slack_needed_is_what_revocable_work_holds_or_waits_for_beyond_other_clusters() -> None:
    s = three_pools()
    capacity(s, 100)
    ok(s, "cluster.capacity", {"cluster": "c1", "physical": [100, 0, 0, 0],
                               "slack": [3, 0, 0, 0]})
    ok(s, "cluster.capacity", {"cluster": "c2", "physical": [10, 0, 0, 0],
                               "slack": [1, 0, 0, 0]})
    enqueue(s, "p1", *[[task(i, revocable=True)] for i in range(2)])
    enqueue(s, "p2", *[[task(i, job="j2", revocable=True)] for i in range(3)])
    assert s.pools["p2"].slack_demand.cpu == 1  # 4 held, 1 waits
    assert s.slack_needed("c1") == 4  # c2 has 1
    assert s.slack_needed("c2") == 2
    assert s.slack_needed("c3") == 1


# --------------------------------------------------------------------------- limits


def limited() -> ResmgrState:
    """org (cpu limit 2, memory limit 1000) / leaf (cpu limit 2, memory 1000
    reserved): 8 cpu of capacity, 2 of it slack."""
    s = ResmgrState(num_shards=4)
    ok(s, "pool.create", pool("org", cpu=(2, 2), memory=(1000, 1000)))
    ok(s, "pool.create", pool("leaf", "org", cpu=(2, 2), memory=(1000, 1000)))
    ok(s, "cluster.capacity", {"cluster": "c1", "physical": [8, 1000, 0, 0],
                               "slack": [2, 0, 0, 0]})
    return s


def test_slack_cpu_does_not_count_against_pool_limits() -> None:
    """Peloton bounds revocable cpu by the slack alone: a pool at its cpu
    limit still runs revocable work, and revocable work never keeps its
    non-revocable gangs out (here or in an ancestor)."""
    s = limited()
    enqueue(s, "leaf", [task(0, cpu=1, memory=100)])
    enqueue(s, "leaf", *[[task(i, cpu=1, memory=100, revocable=True)] for i in (1, 2)])
    assert ready(s, 0, 1, 2) == [True, True, True]
    assert s.pools["leaf"].allocation.cpu == 3  # above the limit of 2, by slack only
    assert s.pools["org"].slack_allocation == Resources(2, 200)
    enqueue(s, "leaf", [task(3, cpu=1, memory=100)])
    assert ready(s, 3) == [True]
    assert limit_usage(s.pools["org"]) == Resources(2, 400)
    # Revocable memory is the pool's own, and counts (until preemption
    # takes it back: the gang's demand leaves the revocable tasks 100 of it).
    enqueue(s, "leaf", [task(4, cpu=0, memory=700)])
    assert waiting(s, "leaf") == [("pending", "limit of /org/leaf: memory 400 + 700 > 1000")]
    assert s.entitlements["leaf"].slack_entitlement.memory == 100


def test_a_revocable_gang_may_need_more_cpu_than_the_limit() -> None:
    s = limited()
    assert enqueue(s, "leaf", [task(0, cpu=3, revocable=True)]) == []
    assert waiting(s, "leaf") == [("revocable", "slack entitlement: cpu 0 + 3 > 2")]
    assert enqueue(s, "leaf", [task(1, cpu=3)]) == [
        [mid(1), "gang needs more than the pool's limit: cpu 3 > 2"]]
    assert enqueue(s, "leaf", [task(2, memory=1001, revocable=True)]) == [
        [mid(2), "gang needs more than the pool's limit: memory 1001 > 1000"]]


def test_revocable_gangs_wait_for_slack_while_capacity_is_unknown() -> None:
    """With no capacity reported the limits alone admit non-revocable work,
    but nothing bounds revocable cpu but the slack: it waits."""
    s = ResmgrState(num_shards=4)
    ok(s, "pool.create", pool("p", cpu=(0, 4)))
    enqueue(s, "p", [task(0, revocable=True)], [task(1)])
    assert ready(s, 0, 1) == [False, True]
    assert waiting(s, "p") == [("revocable", "slack entitlement: cpu 0 + 1 > 0")]


def test_a_snapshot_from_before_the_roll_up_gets_it() -> None:
    s = limited()
    enqueue(s, "leaf", *[[task(i, cpu=1, memory=100, revocable=True)] for i in (0, 1)])
    blob = msgpack.unpackb(s.snapshot(), raw=False, strict_map_key=False)
    del blob["version"]  # version 0, and the roll-up not marked done
    for row in blob["pools"]:
        if row[0] == "org":
            row[13] = [0.0, 0.0, 0.0, 0.0]  # what older versions kept there
    old = ResmgrState()
    old.restore(msgpack.packb(blob, use_bin_type=True))
    assert old.pools["org"].slack_allocation == Resources(2, 200)
    assert old.digest() == s.digest()


# --------------------------------------------------------------------------- reclaiming


def test_shrinking_slack_preempts_revocable_tasks_after_the_sustain_period() -> None:
    """The whole reclaim inside resmgr: the slack falls below what revocable
    tasks hold; once the pool has been over its slack entitlement for the
    sustain period its revocable tasks go, the most recently started first,
    as far as needed; preemptible and non-preemptible tasks stay."""
    s = ResmgrState(num_shards=4)
    ok(s, "pool.create", pool("p", cpu=(4, 10), memory=(1000, 1000)))
    pcapacity(s, 10, 1000, slack_cpu=2)
    enqueue(s, "p", [task(0, cpu=2, preemptible=False)], [task(1, cpu=2)],
            *[[task(i, cpu=0.5, revocable=True)] for i in (2, 3, 4)])
    running(s, *[mid(i) for i in range(5)])
    pcapacity(s, 10, 1000, slack_cpu=0.7)  # the lenders got busy
    assert s.entitlements["p"].slack_entitlement.cpu == pytest.approx(0.7)
    tick(s, 10.0, sustain=2.0)
    tick(s, 11.0, sustain=2.0)
    assert set(states(s, *[mid(i) for i in range(5)])) == {T.RUNNING}  # not yet
    tick(s, 12.0, sustain=2.0)
    # 1.5 held, 0.7 left: 0.8 to free, two tasks of 0.5, the latest first.
    assert states(s, *[mid(i) for i in range(5)]) == [
        T.RUNNING, T.RUNNING, T.RUNNING, T.PREEMPTING, T.PREEMPTING]
    assert s.tasks[mid(4)].reason == ("pool /p uses more slack than its slack entitlement: "
                                      "cpu 1.5 > 0.7")
    assert [m for m, _ in preemptions(s, 0)] == [mid(4), mid(3)]
    tick(s, 20.0, sustain=2.0)  # PREEMPTING tasks count as freed: nothing more
    assert state_of(s, mid(2)) == T.RUNNING
    update(s, (mid(3), T.KILLED), (mid(4), T.KILLED))
    enqueue(s, "p", [task(3, run=2, cpu=0.5, revocable=True)])  # jobmgr's next run
    assert waiting(s, "p") == [("revocable", "slack entitlement: cpu 0.5 + 0.5 > 0.7")]
    check_invariants(s, limits=True)


def test_slack_gone_entirely_preempts_every_revocable_task_of_every_pool() -> None:
    s = three_pools()
    pcapacity(s, 100, 0, slack_cpu=4)
    for pid in ("p1", "p2"):
        enqueue(s, pid, *[[task(i, job=pid, revocable=True)] for i in range(2)])
    running(s, *[mid(i, job=pid) for pid in ("p1", "p2") for i in range(2)])
    pcapacity(s, 100, 0, slack_cpu=0)
    tick(s, 1.0, sustain=0.0)
    assert {state_of(s, mid(i, job=pid)) for pid in ("p1", "p2") for i in range(2)} == {
        T.PREEMPTING}


def test_another_pools_demand_takes_memory_from_revocable_tasks_first() -> None:
    """/x's revocable tasks hold 200 of its memory beyond its reservation,
    lent while /y was idle. /y wants its reservation: /x's entitlement falls
    to its reservation, which its non-revocable task fills, so its slack
    entitlement keeps 100 of memory; one revocable task goes, not the
    preemptible non-revocable one (lower priority though it is)."""
    s = ResmgrState(num_shards=4)
    ok(s, "pool.create", {**pool("x", cpu=(0, 100), memory=(500, 1000)), "slack_limit": 50.0})
    ok(s, "pool.create", pool("y", cpu=(0, 100), memory=(500, 1000)))
    pcapacity(s, 100, 1000, slack_cpu=4)
    enqueue(s, "x", [task(0, memory=400, priority=0, job="x")],
            *[[task(i, memory=100, priority=5, job="x", revocable=True)] for i in (1, 2)])
    running(s, *[mid(i, job="x") for i in range(3)])
    assert s.entitlements["x"].entitlement.memory == pytest.approx(800)
    enqueue(s, "y", [task(0, memory=500, job="y")])
    ent = s.entitlements["x"]
    assert (ent.entitlement.memory, ent.slack_entitlement.memory) == (
        pytest.approx(500), pytest.approx(100))
    tick(s, 1.0, sustain=0.0)
    assert states(s, *[mid(i, job="x") for i in range(3)]) == [
        T.RUNNING, T.RUNNING, T.PREEMPTING]
    assert s.tasks[mid(2, job="x")].reason == (
        "pool /x uses more slack than its slack entitlement: memory 200 > 100")
    check_invariants(s, limits=True)
