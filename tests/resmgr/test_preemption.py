"""Preemption (reference/peloton.md §4.7, and priority preemption inside a
pool, which Peloton never built).

First the pure ranking and greedy selection (``peloton.resmgr.preemption``)
as tables and a property against plain sorting; then the state machine
through ``apply``: the sustained over-allocation counter, the victims and
their order, revocable tasks for slack excess, non-preemptible tasks never
chosen, READY/PLACING victims back to PENDING whole, RUNNING victims
PREEMPTING and handed to their shard's owner at least once, priority
preemption on and off, idempotency, snapshots, and Hypothesis properties
(accounting invariants, replicas agree, a restored snapshot behaves the
same) over logs that preempt.
"""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from peloton.core.resources import Resources
from peloton.core.states import TaskState
from peloton.raft.codec import Command, encode
from peloton.resmgr import preemption
from peloton.resmgr.preemption import excess, rank_key, ranked, select
from peloton.resmgr.state import PREEMPTION_REDELIVER_S, PREEMPTION_SUSTAIN_S, ResmgrState
from tests.resmgr.test_state import (
    apply,
    check_invariants,
    dequeue,
    domain,
    enqueue,
    get_placements,
    log_of,
    mid,
    ok,
    place,
    pool,
    state_of,
    task,
    update,
)

T = TaskState
R = Resources

# =========================================================================== pure


@pytest.mark.parametrize(("used", "bound", "want"), [
    (R(4, 100), R(3, 100), R(1, 0)),
    (R(3, 100), R(4, 200), R()),
    (R(3 + 1e-9), R(3), R()),  # within epsilon
    (R(1, 2, 3, 4), R(), R(1, 2, 3, 4)),
    (R(-1), R(), R()),
])
def test_excess(used: Resources, bound: Resources, want: Resources) -> None:
    assert excess(used, bound) == want


# Tasks a..h: (state, priority); buckets list them in start order (last = most recent).
STATES = {"a": T.RUNNING, "b": T.READY, "c": T.RUNNING, "d": T.PLACING, "e": T.LAUNCHING,
          "f": T.RUNNING, "g": T.PLACED, "h": T.READY}
BUCKETS = {5: ["a", "b", "c"], 1: ["d", "e", "f"], 3: ["g", "h"]}


@pytest.mark.parametrize(("below", "want"), [
    # READY by ascending priority, then PLACING, then RUNNING (most recent
    # first within a priority); PLACED and LAUNCHING are never candidates.
    (None, ["h", "b", "d", "f", "c", "a"]),
    (5, ["h", "d", "f"]),
    (3, ["d", "f"]),
    (1, []),
])
def test_ranked_order(below: int | None, want: list[str]) -> None:
    assert list(ranked(BUCKETS, STATES.__getitem__, below=below)) == want


def test_ranked_walks_running_tasks_only_as_far_as_asked() -> None:
    asked: list[str] = []

    def state_of(t: str) -> int:
        asked.append(t)
        return T.RUNNING

    buckets = {0: [f"t{i}" for i in range(1000)]}
    first = ranked(buckets, state_of)
    assert [next(first) for _ in range(3)] == ["t999", "t998", "t997"]
    assert len(asked) == 1000 + 3  # one sweep for READY/PLACING, then three


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(
    st.integers(0, 5),
    st.lists(st.sampled_from([T.READY, T.PLACING, T.RUNNING, T.LAUNCHING, T.PLACED]),
             max_size=6), max_size=4))
def test_ranked_is_sorting_by_rank_key(drawn: dict[int, list[T]]) -> None:
    """Against the obvious implementation: sort every candidate by
    (state order, priority, most recent first)."""
    states: dict[str, int] = {}
    started: dict[str, int] = {}
    buckets: dict[int, list[str]] = {}
    clock = 0
    for priority, task_states in drawn.items():
        for i, state in enumerate(task_states):
            name = f"{priority}.{i}"
            states[name], started[name] = state, clock
            clock += 1
            buckets.setdefault(priority, []).append(name)
    candidates = [n for n in states if states[n] in preemption.CANDIDATE_STATES]
    want = sorted(candidates, key=lambda n: rank_key(states[n], int(n.split(".")[0]), started[n]))
    assert list(ranked(buckets, states.__getitem__)) == want


@pytest.mark.parametrize(("units", "need", "whole", "want", "left"), [
    # Greedy in order until covered; the last may overshoot.
    ([("a", R(2)), ("b", R(2)), ("c", R(2))], R(3), False, ["a", "b"], R()),
    # A unit freeing no needed kind is skipped (b holds only memory).
    ([("a", R(1)), ("b", R(0, 512)), ("c", R(1, 64))], R(2), False, ["a", "c"], R()),
    # Two kinds needed: whatever reduces either is taken.
    ([("a", R(0, 100)), ("b", R(1)), ("c", R(1, 100))], R(1, 150), False, ["a", "b", "c"], R()),
    # Not enough: all of them, and what is still needed.
    ([("a", R(1)), ("b", R(1))], R(3), False, ["a", "b"], R(1)),
    # ...or, whole, nothing.
    ([("a", R(1)), ("b", R(1))], R(3), True, [], R(1)),
    ([("a", R(1)), ("b", R(2))], R(3), True, ["a", "b"], R()),
    # Nothing needed: nothing chosen; a repeated key counts once.
    ([("a", R(1))], R(), False, [], R()),
    ([("a", R(1)), ("a", R(1)), ("b", R(1))], R(2), False, ["a", "b"], R()),
])
def test_select(units: list[tuple[str, Resources]], need: Resources, whole: bool,
                want: list[str], left: Resources) -> None:
    assert select(units, need, whole=whole) == (want, left)


# =========================================================================== the state

SUSTAIN = PREEMPTION_SUSTAIN_S


def capacity(s: ResmgrState, cpu: float, memory: float = 0.0, slack_cpu: float = 0.0) -> None:
    ok(s, "cluster.capacity", {"cluster": "c1", "physical": [cpu, memory, 0.0, 0.0],
                               "slack": [slack_cpu, 0.0, 0.0, 0.0]})


def tick(s: ResmgrState, now: float, sustain: float | None = None) -> None:
    payload: dict[str, Any] = {"now": now}
    if sustain is not None:
        payload["sustain"] = sustain
    ok(s, "cluster.tick", payload)


def states(s: ResmgrState, *mids: str) -> list[T | None]:
    return [state_of(s, m) for m in mids]


def running(s: ResmgrState, *mids: str) -> None:
    """Take READY tasks through placement to RUNNING (in the order given)."""
    dequeue(s)
    for m in mids:
        place(s, "h1", m)
    get_placements(s, *range(s.num_shards))
    for m in mids:
        update(s, (m, T.RUNNING))


def preemptions(s: ResmgrState, *shards: int, limit: int = 100) -> list[list[str]]:
    return ok(s, "preemptions.get", {"shards": list(shards) or [0], "limit": limit})


def two_pools() -> ResmgrState:
    """a and b: cpu reservation 2, limit 8, share 1 each; capacity 8 cpu."""
    s = ResmgrState(num_shards=4)
    ok(s, "pool.create", pool("a", cpu=(2, 8)))
    ok(s, "pool.create", pool("b", cpu=(2, 8)))
    capacity(s, 8)
    return s


def a_takes_b_share(s: ResmgrState, **flags: Any) -> list[str]:
    """a runs 8 one-cpu tasks (b idle, so b's share flowed to a)."""
    mids = [mid(i, job="ja") for i in range(8)]
    enqueue(s, "a", *[[task(i, job="ja", **flags)] for i in range(8)])
    running(s, *mids)
    assert s.pools["a"].allocation.cpu == 8
    return mids


def b_gets_busy(s: ResmgrState, n: int = 4) -> None:
    enqueue(s, "b", *[[task(i, job="jb")] for i in range(n)])


# --------------------------------------------------------------------------- sustained


def test_over_allocation_must_last_the_sustain_period() -> None:
    s = two_pools()
    mids = a_takes_b_share(s)
    tick(s, 100.0)
    assert s.over_since == {}  # a is within its entitlement while b is idle
    b_gets_busy(s)  # b's entitlement comes back: a is now over by 2
    assert s.entitlements["a"].entitlement.cpu == pytest.approx(4)
    tick(s, 101.0)
    assert s.over_since == {"a": 101.0}
    tick(s, 101.0 + SUSTAIN - 0.5)
    assert T.PREEMPTING not in states(s, *mids)
    tick(s, 101.0 + SUSTAIN)
    assert states(s, *mids).count(T.PREEMPTING) == 4
    # The counter is reset after acting, and the PREEMPTING tasks' cpu counts as
    # being freed: a is not over again while they end.
    tick(s, 200.0)
    assert s.over_since == {} and states(s, *mids).count(T.PREEMPTING) == 4


def test_the_counter_resets_when_the_pool_drops_below_its_entitlement() -> None:
    s = two_pools()
    mids = a_takes_b_share(s)
    b_gets_busy(s)
    tick(s, 10.0)
    assert s.over_since == {"a": 10.0}
    # b's demand goes away before the period ends: a is within again.
    update(s, *[(mid(i, job="jb"), T.KILLED) for i in range(4)])
    tick(s, 15.0)
    assert s.over_since == {}
    b_gets_busy(s)
    tick(s, 15.0 + 1)
    tick(s, 10.0 + SUSTAIN)  # would have been enough without the reset
    assert T.PREEMPTING not in states(s, *mids)
    tick(s, 16.0 + SUSTAIN)
    assert states(s, *mids).count(T.PREEMPTING) == 4


def test_the_sustain_period_comes_with_the_tick() -> None:
    s = two_pools()
    mids = a_takes_b_share(s)
    b_gets_busy(s)
    tick(s, 10.0, sustain=0.0)
    assert states(s, *mids).count(T.PREEMPTING) == 4


def test_nothing_is_preempted_while_capacity_is_unknown() -> None:
    s = ResmgrState()
    ok(s, "pool.create", pool("a", cpu=(2, 8)))
    enqueue(s, "a", *[[task(i)] for i in range(8)])  # limits only: 8 admitted
    running(s, *[mid(i) for i in range(8)])
    tick(s, 1.0, sustain=0.0)
    tick(s, 100.0, sustain=0.0)
    assert set(states(s, *[mid(i) for i in range(8)])) == {T.RUNNING}
    assert s.over_since == {}
    # Capacity becomes known and is smaller: now a is over, and gives back.
    capacity(s, 5)
    tick(s, 101.0, sustain=0.0)
    assert states(s, *[mid(i) for i in range(8)]).count(T.PREEMPTING) == 3


# --------------------------------------------------------------------------- victims


def test_victims_in_pelotons_order() -> None:
    """READY, then PLACING, then RUNNING; ascending priority; most recently
    started first."""
    s = ResmgrState(num_shards=4)
    ok(s, "pool.create", pool("a", cpu=(0, 20)))
    ok(s, "pool.create", pool("b", cpu=(11, 20)))
    capacity(s, 12)
    # RUNNING: r0 (prio 1), r1 (prio 0), r2 (prio 0, started last), r3 (prio 2).
    enqueue(s, "a", [task(0, priority=1, job="r")], [task(1, job="r")], [task(2, job="r")],
            [task(3, priority=2, job="r")])
    running(s, *[mid(i, job="r") for i in (0, 1, 3, 2)])
    # PLACING: p0 (prio 2); READY: y0 (prio 3), y1 (prio 0).
    enqueue(s, "a", [task(0, priority=2, job="p")])
    dequeue(s)
    enqueue(s, "a", [task(0, priority=3, job="y")], [task(1, job="y")])
    assert states(s, mid(0, job="p"), mid(0, job="y")) == [T.PLACING, T.READY]
    assert s.pools["a"].allocation.cpu == 7
    # b's reservation takes all but 1 cpu from a: six of seven go, in this order.
    enqueue(s, "b", *[[task(i, job="b")] for i in range(11)])
    assert s.entitlements["a"].entitlement.cpu == pytest.approx(1)
    tick(s, 1.0, sustain=0.0)
    assert states(s, mid(1, job="y"), mid(0, job="y"), mid(0, job="p")) == [T.PENDING] * 3
    assert [m for m, _ in preemptions(s)] == [mid(2, job="r"), mid(1, job="r"), mid(0, job="r")]
    assert state_of(s, mid(3, job="r")) == T.RUNNING  # the highest priority stays
    reason = s.tasks[mid(2, job="r")].reason
    assert reason == "pool /a uses more than its entitlement: cpu 7 > 1"
    assert s.tasks[mid(0, job="y")].reason == reason
    check_invariants(s, limits=True)


def test_non_preemptible_tasks_are_never_chosen() -> None:
    s = ResmgrState(num_shards=4)
    ok(s, "pool.create", pool("a", cpu=(4, 8)))
    ok(s, "pool.create", pool("b", cpu=(4, 8)))
    # Admitted before capacity was known (limits only): 6 beyond a's reservation.
    enqueue(s, "a", *[[task(i, preemptible=False)] for i in range(6)])
    enqueue(s, "a", [task(6)], [task(7)])
    capacity(s, 8)
    running(s, *[mid(i) for i in range(8)])
    b_gets_busy(s, 8)
    assert s.entitlements["a"].entitlement.cpu == pytest.approx(4)
    tick(s, 1.0, sustain=0.0)
    # a holds 8 and is entitled to 4: only its two preemptible tasks go...
    assert states(s, *[mid(i) for i in range(8)]) == [T.RUNNING] * 6 + [T.PREEMPTING] * 2
    update(s, (mid(6), T.KILLED), (mid(7), T.KILLED))
    # ...and the non-preemptible six stay however long a stays over.
    for now in (2.0, 3.0, 100.0):
        tick(s, now, sustain=0.0)
    assert states(s, *[mid(i) for i in range(6)]) == [T.RUNNING] * 6
    assert s.pools["a"].allocation.cpu == 6 and s.preemptions == {}


def test_ready_and_placing_gangs_go_back_to_pending_whole() -> None:
    s = two_pools()
    enqueue(s, "a", [task(0, cpu=2), task(1, cpu=2)], [task(2, cpu=2), task(3, cpu=2)])
    dequeue(s, limit=1)  # gang 0-1 PLACING, gang 2-3 READY
    assert states(s, *[mid(i) for i in range(4)]) == [T.PLACING] * 2 + [T.READY] * 2
    capacity(s, 6)
    b_gets_busy(s, 6)
    assert s.entitlements["a"].entitlement.cpu == pytest.approx(3)
    tick(s, 1.0, sustain=0.0)
    assert states(s, *[mid(i) for i in range(4)]) == [T.PENDING] * 4
    a = s.pools["a"]
    assert (a.allocation.cpu, a.demand.cpu) == (0, 8)
    # Whole gangs still (new ids), queued again for admission.
    gangs = {s.tasks[mid(i)].gang for i in range(4)}
    assert sorted(len(s.gangs[g].tasks) for g in gangs) == [2, 2]
    # The PLACING gang's placement, arriving late, is ignored; the READY
    # queue's stale id hands out nothing.
    place(s, "h1", mid(0), mid(1))
    assert states(s, mid(0), mid(1)) == [T.PENDING] * 2
    assert all(mid(i) not in {m for g in ok(s, "gangs.dequeue", {"limit": 10}) for m in g}
               for i in range(4))
    check_invariants(s, limits=True)
    # b's tasks end: a gang is admitted again, whole (6 cpu: not both).
    update(s, *[(mid(i, job="jb"), T.SUCCEEDED) for i in range(6)])
    assert sorted(map(int, states(s, *[mid(i) for i in range(4)]))) == [T.PENDING] * 2 + [
        T.READY] * 2


def test_a_gang_being_placed_in_part_is_left_alone() -> None:
    s = two_pools()
    enqueue(s, "a", [task(0, cpu=2), task(1, cpu=2)], [task(2, cpu=4)])
    dequeue(s)
    place(s, "h1", mid(0))  # gang 0-1 half placed
    running(s, mid(2))
    b_gets_busy(s, 6)
    tick(s, 1.0, sustain=0.0)
    # Needed: 6 of 8; gang 0-1 is half LAUNCHING, so only task 2 goes.
    assert states(s, mid(0), mid(1), mid(2)) == [T.LAUNCHING, T.PLACING, T.PREEMPTING]


def test_running_victims_stay_allocated_until_their_runs_end() -> None:
    s = two_pools()
    mids = a_takes_b_share(s)
    b_gets_busy(s)
    tick(s, 1.0, sustain=0.0)
    victims = [m for m in mids if state_of(s, m) == T.PREEMPTING]
    assert len(victims) == 4
    assert s.pools["a"].allocation.cpu == 8
    assert s.freeing["a"][0].cpu == 4
    # Reports of the run that are not its end change nothing.
    update(s, (victims[0], T.RUNNING), (victims[1], T.LAUNCHED))
    assert states(s, *victims) == [T.PREEMPTING] * 4
    update(s, *[(m, T.KILLED) for m in victims])
    assert s.pools["a"].allocation.cpu == 4 and "a" not in s.freeing
    assert s.preemptions == {}


def test_victims_are_handed_to_their_shard_owner_at_least_once() -> None:
    s = two_pools()
    enqueue(s, "a", *[[task(i, shard=i % 2, job="ja")] for i in range(8)])
    running(s, *[mid(i, job="ja") for i in range(8)])
    b_gets_busy(s)
    tick(s, 1.0, sustain=0.0)
    by_shard = {0: [mid(i, job="ja") for i in (6, 4)], 1: [mid(i, job="ja") for i in (7, 5)]}
    assert {sh: list(q.fresh) for sh, q in s.preemptions.items()} == by_shard
    assert s.preemptions_due([0]) and not s.preemptions_due([2, 3])
    # Batched, per shard, each once.
    assert [m for m, _ in preemptions(s, 1, limit=1)] == by_shard[1][:1]
    assert [m for m, _ in preemptions(s, 0, 1)] == by_shard[0] + by_shard[1][1:]
    assert preemptions(s, 0, 1) == [] and not s.preemptions_due([0, 1])
    # One ends; the owner of the rest may have died: they come again later.
    update(s, (by_shard[0][0], T.KILLED))
    tick(s, 1.0 + PREEMPTION_REDELIVER_S, sustain=0.0)
    assert s.preemptions_due([0])
    assert [m for m, _ in preemptions(s, 0, 1)] == [by_shard[0][1], *by_shard[1]]
    check_invariants(s, limits=True)


def test_preemptions_get_is_idempotent_per_key() -> None:
    s = two_pools()
    a_takes_b_share(s)
    b_gets_busy(s)
    tick(s, 1.0, sustain=0.0)
    first = apply(s, "preemptions.get", {"shards": [0], "limit": 2}, key="p-1")
    before = domain(s)
    assert apply(s, "preemptions.get", {"shards": [0], "limit": 2}, key="p-1") == first
    assert domain(s) == before
    assert len(first[1]) == 2


def test_a_newer_run_of_a_victim_supersedes_it() -> None:
    s = two_pools()
    mids = a_takes_b_share(s)
    b_gets_busy(s)
    tick(s, 1.0, sustain=0.0)
    victim = next(m for m in mids if state_of(s, m) == T.PREEMPTING)
    instance = int(victim.split("-")[1])
    enqueue(s, "a", [task(instance, run=2, job="ja")])
    assert victim not in s.tasks and state_of(s, mid(instance, 2, job="ja")) == T.PENDING
    assert all(victim not in q.fresh for q in s.preemptions.values())
    check_invariants(s, limits=True)


def test_revocable_tasks_give_back_the_slack_excess() -> None:
    """Non-revocable demand shrinks the slack entitlement's memory: the
    revocable tasks go, the non-revocable preemptible one does not."""
    s = ResmgrState(num_shards=4)
    ok(s, "pool.create", pool("p", cpu=(10, 10), memory=(1000, 1000)))
    capacity(s, 10, 1000, slack_cpu=4)
    enqueue(s, "p", [task(0, memory=100, revocable=True)], [task(1, memory=100, revocable=True)],
            [task(2, memory=100)])
    running(s, mid(0), mid(1), mid(2))
    enqueue(s, "p", [task(3, cpu=2, memory=750)])  # waits: memory limit 1000
    assert state_of(s, mid(3)) == T.PENDING
    # 1000 - (100 + 750) is left for revocable tasks' memory, not 200.
    assert s.entitlements["p"].slack_entitlement.memory == pytest.approx(150)
    tick(s, 1.0, sustain=0.0)
    assert states(s, mid(0), mid(1), mid(2)) == [T.RUNNING, T.PREEMPTING, T.RUNNING]
    why = s.tasks[mid(1)].reason
    assert why == "pool /p uses more slack than its slack entitlement: memory 200 > 150"
    update(s, (mid(1), T.KILLED))
    assert state_of(s, mid(3)) == T.READY


# --------------------------------------------------------------------------- priority


def one_pool(*, priority_preemption: bool, reservation: float = 0.0) -> ResmgrState:
    s = ResmgrState(num_shards=4)
    ok(s, "pool.create", {**pool("p", cpu=(reservation, 4)),
                          "priority_preemption": priority_preemption})
    capacity(s, 4)
    return s


def test_priority_preemption_is_off_by_default() -> None:
    s = ResmgrState()
    ok(s, "pool.create", pool("p", cpu=(0, 4)))
    capacity(s, 4)
    enqueue(s, "p", *[[task(i)] for i in range(4)])
    running(s, *[mid(i) for i in range(4)])
    enqueue(s, "p", [task(0, priority=9, job="hi")])
    for now in (1.0, 2.0, 100.0):
        tick(s, now, sustain=0.0)
    assert set(states(s, *[mid(i) for i in range(4)])) == {T.RUNNING}
    assert s.starved_since == {}


def test_priority_preemption_takes_strictly_lower_priority_tasks() -> None:
    s = one_pool(priority_preemption=True)
    enqueue(s, "p", [task(0, priority=1)], [task(1, priority=5)], [task(2, priority=0)],
            [task(3, priority=1)])
    running(s, *[mid(i) for i in range(4)])
    enqueue(s, "p", [task(0, cpu=2, priority=5, job="hi")])
    tick(s, 1.0, sustain=2.0)
    assert s.starved_since == {"p": [s.tasks[mid(0, job="hi")].gang, 1.0]}
    tick(s, 3.0, sustain=2.0)
    # Two cpus, lowest priority first, most recently started first among equals;
    # the equal-priority task (5) is never taken.
    assert states(s, *[mid(i) for i in range(4)]) == [
        T.RUNNING, T.RUNNING, T.PREEMPTING, T.PREEMPTING]
    assert s.tasks[mid(2)].reason == (
        "priority preemption in pool /p: a gang of priority 5 waits (entitlement: cpu 4 + 2 > 4)")
    assert s.starved_since == {}
    tick(s, 10.0, sustain=0.0)  # their cpu is being freed: nothing more
    assert states(s, mid(0)) == [T.RUNNING]
    update(s, (mid(2), T.KILLED), (mid(3), T.KILLED))
    assert state_of(s, mid(0, job="hi")) == T.READY


def test_priority_preemption_serves_every_waiting_gang_it_can_at_once() -> None:
    s = one_pool(priority_preemption=True)
    enqueue(s, "p", *[[task(i)] for i in range(4)])
    running(s, *[mid(i) for i in range(4)])
    enqueue(s, "p", *[[task(i, priority=9, job="hi")] for i in range(3)])
    tick(s, 1.0, sustain=0.0)
    assert states(s, *[mid(i) for i in range(4)]).count(T.PREEMPTING) == 3
    update(s, *[(m, T.KILLED) for m in s.tasks if state_of(s, m) == T.PREEMPTING])
    assert states(s, *[mid(i, job="hi") for i in range(3)]) == [T.READY] * 3


def test_priority_preemption_stops_at_the_first_gang_it_cannot_serve() -> None:
    s = one_pool(priority_preemption=True)
    enqueue(s, "p", [task(0)], [task(1)], [task(2, priority=5)], [task(3, priority=5)])
    running(s, *[mid(i) for i in range(4)])
    # a (9) takes one priority-0 task; b (3) needs two below 3, and one is
    # left: b gets nothing, and c (1), behind it, is not looked at.
    enqueue(s, "p", [task(0, priority=9, job="a")], [task(0, cpu=2, priority=3, job="b")],
            [task(0, priority=1, job="c")])
    tick(s, 1.0, sustain=0.0)
    assert states(s, *[mid(i) for i in range(4)]) == [T.RUNNING, T.PREEMPTING] + [T.RUNNING] * 2


def test_priority_preemption_takes_all_it_needs_or_nothing() -> None:
    s = one_pool(priority_preemption=True)
    enqueue(s, "p", [task(0, priority=1)], [task(1, priority=7)], [task(2, priority=7)],
            [task(3, priority=7)])
    running(s, *[mid(i) for i in range(4)])
    enqueue(s, "p", [task(0, cpu=2, priority=5, job="hi")])  # only one cpu below 5
    tick(s, 1.0, sustain=0.0)
    assert set(states(s, *[mid(i) for i in range(4)])) == {T.RUNNING}


def test_priority_preemption_never_takes_non_preemptible_tasks() -> None:
    s = one_pool(priority_preemption=True, reservation=4)
    enqueue(s, "p", [task(0, preemptible=False)], [task(1, preemptible=False)], [task(2)],
            [task(3)])
    running(s, *[mid(i) for i in range(4)])
    enqueue(s, "p", [task(0, cpu=3, priority=5, job="hi")])
    tick(s, 1.0, sustain=0.0)
    assert set(states(s, *[mid(i) for i in range(4)])) == {T.RUNNING}
    enqueue(s, "p", [task(1, cpu=2, priority=9, job="hi")])  # the new head: 2 cpus
    tick(s, 2.0, sustain=0.0)
    assert states(s, *[mid(i) for i in range(4)]) == [T.RUNNING] * 2 + [T.PREEMPTING] * 2


def test_priority_preemption_keeps_a_non_preemptible_gang_within_the_reservation() -> None:
    s = one_pool(priority_preemption=True, reservation=2)
    enqueue(s, "p", [task(0, preemptible=False)], *[[task(i)] for i in range(1, 4)])
    running(s, *[mid(i) for i in range(4)])
    # 1 + 2 > 2 reserved: priority preemption could make room, but the
    # reservation rule would still refuse it.
    enqueue(s, "p", [task(0, cpu=2, priority=5, job="hi", preemptible=False)])
    tick(s, 1.0, sustain=0.0)
    assert set(states(s, *[mid(i) for i in range(4)])) == {T.RUNNING}
    assert s.pending_gangs("p", 1)[0][1] == "non-preemptible"
    # Within the reservation it may.
    s2 = one_pool(priority_preemption=True, reservation=2)
    enqueue(s2, "p", *[[task(i)] for i in range(4)])
    running(s2, *[mid(i) for i in range(4)])
    enqueue(s2, "p", [task(0, cpu=2, priority=5, job="hi", preemptible=False)])
    tick(s2, 1.0, sustain=0.0)
    assert states(s2, *[mid(i) for i in range(4)]).count(T.PREEMPTING) == 2


def test_priority_preemption_can_be_turned_on_by_pool_update() -> None:
    s = one_pool(priority_preemption=False)
    enqueue(s, "p", *[[task(i)] for i in range(4)])
    running(s, *[mid(i) for i in range(4)])
    enqueue(s, "p", [task(0, priority=9, job="hi")])
    tick(s, 1.0, sustain=0.0)
    assert T.PREEMPTING not in states(s, *[mid(i) for i in range(4)])
    ok(s, "pool.update", {**pool("p", cpu=(0, 4)), "priority_preemption": True})
    assert s.pools["p"].priority_preemption
    tick(s, 2.0, sustain=0.0)
    assert states(s, *[mid(i) for i in range(4)]).count(T.PREEMPTING) == 1


def test_priority_preemption_must_be_a_boolean() -> None:
    s = ResmgrState()
    before = domain(s)
    result = apply(s, "pool.create", {**pool("p", cpu=(0, 4)), "priority_preemption": "yes"})
    assert result == [False, ["InvalidArgument", "priorityPreemption must be true or false, "
                                                 "got 'yes'", "priorityPreemption"]]
    assert domain(s) == before


# --------------------------------------------------------------------------- snapshots


def busy() -> ResmgrState:
    s = two_pools()
    ok(s, "pool.update", {**pool("b", cpu=(2, 8)), "priority_preemption": True})
    enqueue(s, "a", *[[task(i, shard=i % 4, job="ja", priority=i % 3)] for i in range(8)])
    running(s, *[mid(i, job="ja") for i in (3, 1, 4, 0, 5, 2, 7, 6)])
    b_gets_busy(s)
    tick(s, 1.0)  # a over: counting
    enqueue(s, "b", [task(9, priority=2, job="jb")])
    tick(s, 1.0 + SUSTAIN)
    preemptions(s, 0, limit=1)
    tick(s, 2.0 + SUSTAIN)
    return s


def test_snapshot_restore_keeps_preemption_state() -> None:
    s = busy()
    assert s.preemptions and s.victims
    copy = ResmgrState()
    copy.restore(s.snapshot())
    assert copy.snapshot() == s.snapshot()
    assert (copy.victims, copy.over_since, copy.starved_since, copy.preemptions, copy.freeing) == (
        s.victims, s.over_since, s.starved_since, s.preemptions, s.freeing)
    assert copy.pools["b"].priority_preemption
    more = [("preemptions.get", {"shards": [0, 1, 2, 3], "limit": 3}),
            ("tasks.update", {"updates": [[mid(1, job="ja"), int(T.KILLED)]]}),
            ("cluster.tick", {"now": 200.0, "sustain": 0.0})]
    for name, payload in more:
        blob = encode(Command(name, f"more-{name}", payload))
        assert copy.apply(blob) == s.apply(blob)
        assert copy.digest() == s.digest()


def test_a_snapshot_from_before_preemption_restores() -> None:
    s = two_pools()
    enqueue(s, "a", *[[task(i, job="ja", revocable=i == 0)] for i in range(3)])
    running(s, mid(1, job="ja"), mid(2, job="ja"))
    d = msgpack.unpackb(s.snapshot(), raw=False, strict_map_key=False)
    for key in ("version", "victims", "over_since", "starved_since", "preemptions"):
        del d[key]
    d["pools"] = [row[:15] for row in d["pools"]]
    old = ResmgrState()
    old.restore(msgpack.packb(d, use_bin_type=True))
    assert old.victims == s.victims  # rebuilt from the tracker, in its order
    assert not old.pools["a"].priority_preemption
    check_invariants(old, limits=True)


# --------------------------------------------------------------------------- properties

POOLS = ["p", "q"]
# Each pool's tasks belong to two jobs of its own (runs never move between pools).
JOBS = {"p": ["p", "px"], "q": ["q", "qx"]}
PMIDS = [mid(i, r, job) for jobs in JOBS.values() for job in jobs for i in range(3)
         for r in (1, 2)]


@st.composite
def preempting_enqueues(draw: st.DrawFn) -> dict[str, Any]:
    """A gangs.enqueue of 1-3 gangs of one of the pool's own jobs."""
    pool_id = draw(st.sampled_from(POOLS))
    job = draw(st.sampled_from(JOBS[pool_id]))
    gangs = []
    for _ in range(draw(st.integers(1, 3))):
        instances = draw(st.lists(st.integers(0, 2), min_size=1, max_size=2, unique=True))
        flags = draw(st.sampled_from([{}, {}, {}, {"preemptible": False}, {"revocable": True},
                                      {"controller": True}]))
        gangs.append([task(i, draw(st.sampled_from([1, 1, 2])), cpu=draw(st.sampled_from([0.5, 1.0, 2.0])),
                           memory=draw(st.sampled_from([0.0, 100.0])),
                           priority=draw(st.integers(0, 2)), shard=draw(st.integers(0, 1)),
                           job=job, **flags) for i in instances])
    return {"pool": pool_id, "gangs": gangs, "requeue": False}


def preempting_commands() -> st.SearchStrategy[tuple[str, Any]]:
    """Commands that make pools go over their entitlement and preempt
    (enqueues, runs and ticks weighted up)."""
    def enqueue_() -> st.SearchStrategy[tuple[str, Any]]:
        return st.tuples(st.just("gangs.enqueue"), preempting_enqueues())

    def tick_() -> st.SearchStrategy[tuple[str, Any]]:
        return st.tuples(st.just("cluster.tick"), st.builds(
            lambda dt, sustain: {"dt": dt, "sustain": sustain},
            st.sampled_from([0.0, 1.0, 3.0, 70.0]), st.sampled_from([0.0, 0.0, 2.0])))

    def run_() -> st.SearchStrategy[tuple[str, Any]]:
        return st.tuples(st.just("tasks.update"), st.builds(
            lambda us: {"updates": [[m, int(x)] for m, x in us]},
            st.lists(st.tuples(st.sampled_from(PMIDS),
                               st.sampled_from([T.RUNNING, T.RUNNING, T.RUNNING, T.KILLED,
                                                T.SUCCEEDED])),
                     min_size=1, max_size=6)))

    return st.one_of(
        enqueue_(), enqueue_(), enqueue_(), tick_(), tick_(), tick_(), run_(), run_(),
        st.tuples(st.just("gangs.dequeue"), st.builds(lambda n: {"limit": n}, st.integers(1, 3))),
        st.tuples(st.just("placements.set"), st.builds(
            lambda ms: {"placed": [["h1", "a-h1", "l-h1", "c1", [[m, []] for m in ms]]],
                        "failed": []}, st.lists(st.sampled_from(PMIDS), max_size=3))),
        st.tuples(st.just("preemptions.get"), st.builds(
            lambda sh, n: {"shards": sh, "limit": n},
            st.lists(st.integers(0, 1), min_size=1, max_size=2, unique=True), st.integers(1, 3))),
        st.tuples(st.just("cluster.capacity"), st.builds(
            lambda cpu, slack: {"cluster": "c1", "physical": [cpu, 1000.0, 0.0, 0.0],
                                "slack": [slack, 0.0, 0.0, 0.0]},
            st.sampled_from([2.0, 4.0, 6.0]), st.sampled_from([0.0, 2.0]))),
        st.tuples(st.just("pool.update"), st.builds(
            lambda pid, on: {**pool(pid, cpu=(2, 6), memory=(500, 1000)),
                             "priority_preemption": on},
            st.sampled_from(POOLS), st.booleans())),
    )


preempting_logs = st.lists(
    st.tuples(preempting_commands(), st.integers(-6, 1)).map(lambda t: (t[0][0], t[0][1], t[1])),
    min_size=5, max_size=50)


def seeded_for_preemption() -> ResmgrState:
    """p (priority preemption off) and q (on) with 6 cpu of capacity, each
    running three 1-cpu tasks (q's of priority 0, one revocable on slack):
    both at their entitlement, so a higher-priority gang in q preempts q's
    own tasks, and less capacity (or a pool update) puts pools over."""
    s = ResmgrState(num_shards=2)
    p_tasks = [task(i, cpu=1.0, priority=i, shard=i % 2, job="p") for i in range(3)]
    q_tasks = [task(i, cpu=1.0, priority=0, shard=i % 2, job="q", revocable=i == 2)
               for i in range(3)]
    for blob in log_of([("pool.create", pool("p", cpu=(2, 6), memory=(500, 1000)), -1),
                        ("pool.create", {**pool("q", cpu=(2, 6), memory=(500, 1000)),
                                         "priority_preemption": True}, -1),
                        ("cluster.capacity", {"cluster": "c1", "physical": [6.0, 1000, 0, 0],
                                              "slack": [2.0, 0, 0, 0]}, -1),
                        ("gangs.enqueue", {"pool": "p", "gangs": [[t] for t in p_tasks]}, -1),
                        ("gangs.enqueue", {"pool": "q", "gangs": [[t] for t in q_tasks]}, -1),
                        ("tasks.update", {"updates": [[t[0], int(T.RUNNING)]
                                                      for t in p_tasks + q_tasks]}, -1)]):
        assert s.apply(blob)[0]
    return s


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preempting_logs)
def test_accounting_invariants_hold_while_preempting(steps: list[tuple[str, Any, int]]) -> None:
    s = seeded_for_preemption()
    for blob in log_of(steps):
        s.apply(blob)
        check_invariants(s, limits=True)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preempting_logs, st.data())
def test_replicas_and_restored_snapshots_agree_while_preempting(
        steps: list[tuple[str, Any, int]], data: st.DataObject) -> None:
    log = list(log_of(steps))
    cut = data.draw(st.integers(0, len(log)))
    one, two = seeded_for_preemption(), seeded_for_preemption()
    for blob in log[:cut]:
        assert one.apply(blob) == two.apply(blob)
    restored = ResmgrState()
    restored.restore(two.snapshot())
    for blob in log[cut:]:
        result = one.apply(blob)
        assert restored.apply(blob) == result
    assert one.digest() == restored.digest()


def test_priority_preemption_never_walks_tasks_of_equal_or_higher_priority(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A full pool of priority-0 tasks with priority-0 gangs waiting (the
    usual busy pool) costs no walk of its tasks, however many."""
    s = one_pool(priority_preemption=True)
    enqueue(s, "p", *[[task(i, cpu=0.01)] for i in range(400)])
    running(s, *[mid(i) for i in range(400)])
    enqueue(s, "p", *[[task(i, job="more")] for i in range(3)])
    walked: list[str] = []
    real = preemption.ranked

    def counting(buckets: Any, state_of: Any, **kw: Any) -> Any:
        yield from real(buckets, lambda m: walked.append(m) or state_of(m), **kw)

    monkeypatch.setattr(preemption, "ranked", counting)
    tick(s, 1.0, sustain=0.0)
    assert walked == [] and T.PREEMPTING not in states(s, *[mid(i) for i in range(400)])


# --------------------------------------------------------------------------- service SLA


def test_preemption_keeps_a_service_within_its_maximum_unavailable_instances() -> None:
    """A service of 8 instances with sla.maximumUnavailableInstances 1 fills
    a; b needs 4 cpu back: only one instance at a time is preempted (the
    next pass after it runs again), while a job without the bound gives all
    at once (test_over_allocation_must_last_the_sustain_period)."""
    s = two_pools()
    mids = [mid(i, job="svc") for i in range(8)]
    enqueue(s, "a", *[[[*task(i, job="svc"), [1, 8]]] for i in range(8)])
    running(s, *mids)
    assert s.job_sla == {"svc": [1, 8, 8]}
    b_gets_busy(s)
    tick(s, 10.0, sustain=0.0)
    assert states(s, *mids).count(T.PREEMPTING) == 1
    tick(s, 11.0, sustain=0.0)
    assert states(s, *mids).count(T.PREEMPTING) == 1  # one is down: no other goes
    [victim] = [m for m in mids if state_of(s, m) == T.PREEMPTING]
    update(s, (victim, T.KILLED))
    # Its next run waits for placement: the instance is still down.
    instance = int(victim.split("-")[1])
    enqueue(s, "a", [[*task(instance, 2, job="svc"), [1, 8]]])
    tick(s, 12.0, sustain=0.0)
    assert states(s, *mids).count(T.PREEMPTING) == 0
    assert s.job_sla == {"svc": [1, 8, 8]}
    # A snapshot keeps the bound; once the job's tasks are gone, so is it.
    restored = ResmgrState()
    restored.restore(s.snapshot())
    assert restored.job_sla == s.job_sla and restored.snapshot() == s.snapshot()
    update(s, *[(m, T.KILLED) for m in mids if m != victim])
    update(s, (mid(instance, 2, job="svc"), T.KILLED))
    assert s.job_sla == {}

