"""The resmgr state machine, driven only through ``apply(encoded command)``.

Pools and their validation, admission (limits of the pool and its ancestors,
priority, FIFO, head-of-line blocking, whole gangs), the task life from
PENDING to LAUNCHING and back, runs superseding each other, timeouts,
membership and the shard map, idempotency keys, and the properties a Raft
state machine must keep: two replicas applying one log agree, and a replica
restored from a snapshot behaves like the one that took it.
"""

from __future__ import annotations

import collections
import itertools
import math
from collections.abc import Iterator
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from peloton.core.resources import Resources
from peloton.core.states import TaskState
from peloton.raft.codec import VERSION, Command, encode
from peloton.resmgr.state import (
    COMMANDS,
    LAUNCHING_TIMEOUT,
    MEMBER_TTL,
    PLACING_TIMEOUT,
    TASK_CONTROLLER,
    TASK_PREEMPTIBLE,
    TASK_REVOCABLE,
    ResmgrState,
    limit_usage,
)

# --------------------------------------------------------------------------- builders

_keys = itertools.count()


def apply(state: ResmgrState, name: str, payload: Any, *, key: str | None = None) -> list[Any]:
    """Apply one command; the decoded ``[ok, value]`` result."""
    return state.apply(encode(Command(name, f"k{next(_keys)}" if key is None else key, payload)))


def ok(state: ResmgrState, name: str, payload: Any, **kw: Any) -> Any:
    result = apply(state, name, payload, **kw)
    assert result[0] is True, result
    return result[1]


def err(state: ResmgrState, name: str, payload: Any) -> tuple[str, str, str | None]:
    """Apply a command expected to fail; (error class, message, field)."""
    result = apply(state, name, payload)
    assert result[0] is False, result
    cls, message, field = result[1]
    return cls, message, field


def pool(pid: str, parent: str = "root", *, name: str | None = None,
         **kinds: tuple[float, float] | tuple[float, float, float]) -> dict[str, Any]:
    """A pool.create/update payload; kinds are ``cpu=(reservation, limit[, share])``."""
    resources = {k: [v[0], v[1], v[2] if len(v) > 2 else 1.0, 1] for k, v in kinds.items()}
    return {"id": pid, "name": name or pid, "parent": parent, "config": b"cfg-" + pid.encode(),
            "resources": resources}


def mid(instance: int, run: int = 1, job: str = "j1") -> str:
    return f"{job}-{instance}-{run}"


def task(instance: int, run: int = 1, *, cpu: float = 1.0, memory: float = 0.0,
         priority: int = 0, shard: int = 0, job: str = "j1",
         **flags: bool) -> list[Any]:
    """One task row of a gangs.enqueue payload; ``flags`` are preemptible,
    controller, revocable (left out: preemptible, neither of the others)."""
    bits = ((TASK_PREEMPTIBLE if flags.get("preemptible", True) else 0)
            | (TASK_CONTROLLER if flags.get("controller", False) else 0)
            | (TASK_REVOCABLE if flags.get("revocable", False) else 0))
    return [mid(instance, run, job), f"{job}-{instance}", run, shard, priority,
            [cpu, memory, 0.0, 0.0], f"task {job}-{instance}-{run}".encode(), bits]


def enqueue(state: ResmgrState, pool_id: str, *gangs: list[list[Any]],
            requeue: bool = False) -> list[list[str]]:
    return ok(state, "gangs.enqueue", {"pool": pool_id, "gangs": list(gangs), "requeue": requeue})


def dequeue(state: ResmgrState, limit: int = 100) -> list[list[bytes]]:
    """The dequeued gangs' tasks (the command returns ids; the service reads the tasks)."""
    gangs = ok(state, "gangs.dequeue", {"limit": limit})
    return [[state.tasks[mid].task for mid in gang] for gang in gangs]


def place(state: ResmgrState, host: str, *mids: str, ports: list[int] | None = None,
          failed: list[list[Any]] | None = None) -> None:
    placed = [[host, f"agent-{host}", f"lease-{host}", "c1", [[m, ports or []] for m in mids]]]
    ok(state, "placements.set", {"placed": placed if mids else [], "failed": failed or []})


def get_placements(state: ResmgrState, *shards: int, limit: int = 100) -> list[list[Any]]:
    return ok(state, "placements.get", {"shards": list(shards) or [0], "limit": limit})


def update(state: ResmgrState, *updates: tuple[str, TaskState]) -> None:
    ok(state, "tasks.update", {"updates": [[m, int(s)] for m, s in updates]})


def heartbeat(state: ResmgrState, member: str, now: float, kind: str = "jobmgr",
              **extra: Any) -> dict[str, Any]:
    return ok(state, "member.heartbeat", {
        "now": now, "member": {"id": member, "kind": kind, "address": f"{member}:1",
                               "cluster": ""}, **extra})


def tick(state: ResmgrState, now: float) -> None:
    ok(state, "cluster.tick", {"now": now})


def state_of(state: ResmgrState, m: str) -> TaskState | None:
    entry = state.tasks.get(m)
    return None if entry is None else TaskState(entry.state)


def cpu_allocation(state: ResmgrState, pool_id: str) -> float:
    return state.pools[pool_id].allocation.cpu


def cpu_demand(state: ResmgrState, pool_id: str) -> float:
    return state.pools[pool_id].demand.cpu


def domain(state: ResmgrState) -> dict[str, Any]:
    """The state's content without the applied-entries counter, the running
    digest of the applied commands and the result cache."""
    d = msgpack.unpackb(state.snapshot(), raw=False, strict_map_key=False)
    del d["applied"], d["recent"], d["chain"]
    return d


def tree() -> ResmgrState:
    """root / org (cpu 10 reserved, limit 10) / {a, b} (cpu 4 reserved, limit 10 each)."""
    s = ResmgrState(num_shards=8)
    ok(s, "pool.create", pool("org", cpu=(10, 10), memory=(1000, 1000)))
    ok(s, "pool.create", pool("a", "org", cpu=(4, 10)))
    ok(s, "pool.create", pool("b", "org", cpu=(4, 10)))
    return s


@pytest.fixture
def s() -> ResmgrState:
    return tree()


# --------------------------------------------------------------------------- schema


def test_command_table_is_pinned() -> None:
    # The Raft log's schema: renaming a command breaks replay of existing logs.
    assert sorted(COMMANDS) == [
        "cluster.capacity",
        "cluster.tick",
        "digest.reset",
        "gangs.dequeue",
        "gangs.enqueue",
        "member.heartbeat",
        "placements.get",
        "placements.set",
        "pool.create",
        "pool.delete",
        "pool.update",
        "preemptions.get",
        "tasks.update",
    ]
    assert VERSION == 1


def test_unknown_command_is_an_error_result_and_changes_nothing(s: ResmgrState) -> None:
    before = domain(s)
    assert apply(s, "pool.explode", {}) == [False, ["InvalidArgument",
                                                    "unknown command pool.explode", None]]
    assert domain(s) == before


def test_a_handler_bug_is_an_internal_error_result(s: ResmgrState) -> None:
    ok_, (cls, message, field) = apply(s, "tasks.update", {})  # no "updates"
    assert (ok_, cls, field) == (False, "Internal", None)
    assert message == "tasks.update failed: KeyError('updates')"


def test_a_command_of_another_version_is_refused() -> None:
    blob = msgpack.packb([VERSION + 1, "cluster.tick", "k", {"now": 1.0}], use_bin_type=True)
    with pytest.raises(ValueError, match="unsupported command version 2"):
        ResmgrState().apply(blob)


# --------------------------------------------------------------------------- pools


def test_pool_create_builds_the_tree(s: ResmgrState) -> None:
    assert s.pools["root"].children == ["org"]
    assert s.pools["org"].children == ["a", "b"]
    assert (s.pools["a"].parent, s.pools["a"].config) == ("org", b"cfg-a")
    assert s.pools["a"].limit() == Resources(10, math.inf, math.inf, math.inf)
    assert s.pools["a"].reservation() == Resources(4, 0, 0, 0)
    assert s.pools["a"].is_leaf() and not s.pools["org"].is_leaf()
    assert not s.pools["root"].is_leaf()
    # Defaults: PriorityFIFO, no controller limit, 20% slack.
    a = s.pools["a"]
    assert (a.policy, a.controller_limit, a.slack_limit) == (1, 0.0, 20.0)


@pytest.mark.parametrize(("payload", "want"), [
    # child limit > parent limit
    (pool("c", "org", cpu=(0, 11)),
     ("InvalidArgument", "cpu limit 11 exceeds the parent's limit 10", "resources")),
    # parent must define the kind
    (pool("c", "org", gpu=(0, 1)),
     ("InvalidArgument", "parent /org does not define gpu", "resources")),
    # siblings' reservations + this one > parent reservation
    (pool("c", "org", cpu=(3, 5)),
     ("InvalidArgument", "cpu reservations of /org's children would be 11, more than its "
                         "reservation 10", "resources")),
    # reservation > limit
    (pool("c", "org", cpu=(2, 1)),
     ("InvalidArgument", "cpu reservation 2 exceeds its limit 1", "resources")),
    # negative numbers
    (pool("c", "org", cpu=(-1, 1)), ("InvalidArgument", "cpu reservation -1 is negative",
                                     "resources")),
    (pool("c", "org", cpu=(0, 1, -2)), ("InvalidArgument", "cpu share -2 is negative",
                                        "resources")),
    # unknown kind
    (pool("c", "org", cpus=(0, 1)),
     ("InvalidArgument", "unknown resource kind 'cpus'; kinds are cpu, memory, disk, gpu",
      "resources")),
    # names
    (pool("c", "org", name="x/y"),
     ("InvalidArgument", "pool name 'x/y' must be non-empty and contain no '/'", "name")),
    ({**pool("c", "org"), "name": ""},
     ("InvalidArgument", "pool name '' must be non-empty and contain no '/'", "name")),
    # duplicate sibling name (another id)
    (pool("c", "org", name="a"), ("AlreadyExists", "resource pool /org/a already exists", None)),
    (pool("c", name="org"), ("AlreadyExists", "resource pool /org already exists", None)),
    # unknown parent
    (pool("c", "nope"), ("NotFound", "parent resource pool nope does not exist", None)),
    # id taken
    (pool("a", "org"), ("FailedPrecondition", "resource pool id a is taken", None)),
    (pool("root"), ("FailedPrecondition", "resource pool id root is taken", None)),
    # percentages
    ({**pool("c", "org"), "controller_limit": 101.0},
     ("InvalidArgument", "controller_limit 101% is outside 0..100", "controllerLimit")),
    ({**pool("c", "org"), "slack_limit": -1.0},
     ("InvalidArgument", "slack_limit -1% is outside 0..100", "slackLimit")),
])
def test_pool_create_rejects(s: ResmgrState, payload: dict[str, Any],
                             want: tuple[str, str, str | None]) -> None:
    before = domain(s)
    assert err(s, "pool.create", payload) == want
    assert domain(s) == before


def test_pool_create_accepts_the_boundaries(s: ResmgrState) -> None:
    # Limit equal to the parent's, reservations summing exactly to the parent's,
    # reservation equal to the limit, a kind the child leaves undefined.
    ok(s, "pool.update", pool("b", "org", cpu=(3, 10)))
    assert ok(s, "pool.create", pool("c", "org", cpu=(3, 3))) == "c"
    # Float sums within epsilon of the parent's reservation.
    ok(s, "pool.create", pool("x", cpu=(0.3, 1), memory=(0.3, 1)))
    for i in range(3):
        ok(s, "pool.create", pool(f"x{i}", "x", cpu=(0.1, 1)))


def test_a_pool_with_tasks_cannot_get_children(s: ResmgrState) -> None:
    enqueue(s, "a", [task(0)])
    assert err(s, "pool.create", pool("c", "a")) == (
        "FailedPrecondition", "resource pool /org/a has jobs; only a pool without tasks can get "
        "children", None)
    update(s, (mid(0), TaskState.SUCCEEDED))
    ok(s, "pool.create", pool("c", "a"))
    assert not s.pools["a"].is_leaf()


def test_pool_update_changes_config_and_keeps_accounting(s: ResmgrState) -> None:
    enqueue(s, "a", [task(0, cpu=2)])
    ok(s, "pool.update", {**pool("a", "org", cpu=(2, 8)), "controller_limit": 50.0})
    a = s.pools["a"]
    assert (a.limit().cpu, a.reservation().cpu, a.controller_limit) == (8, 2, 50.0)
    assert (a.allocation.cpu, s.pools["org"].children) == (2, ["a", "b"])


@pytest.mark.parametrize(("payload", "want"), [
    (pool("a", "root", cpu=(4, 10)),
     ("InvalidArgument", "a resource pool's parent cannot change", "parent")),
    (pool("nope", "org"), ("NotFound", "resource pool nope does not exist", None)),
    (pool("root", None), ("NotFound", "resource pool root does not exist", None)),  # type: ignore[arg-type]
    (pool("a", "org", cpu=(4, 11)),
     ("InvalidArgument", "cpu limit 11 exceeds the parent's limit 10", "resources")),
    (pool("a", "org", cpu=(7, 10)),
     ("InvalidArgument", "cpu reservations of /org's children would be 11, more than its "
                         "reservation 10", "resources")),
    (pool("a", "org", name="b"), ("AlreadyExists", "resource pool /org/b already exists", None)),
    # A parent's update must keep room for its children.
    (pool("org", cpu=(10, 9), memory=(1000, 1000)),
     ("InvalidArgument", "cpu reservation 10 exceeds its limit 9", "resources")),
    (pool("org", cpu=(8, 9), memory=(1000, 1000)),
     ("InvalidArgument", "cpu limit 9 is below child a's limit 10", "resources")),
    (pool("org", cpu=(7, 10), memory=(1000, 1000)),
     ("InvalidArgument", "cpu reservation 7 is below the sum of the children's "
                         "reservations 8", "resources")),
    (pool("org", memory=(1000, 1000)),
     ("InvalidArgument", "child a defines cpu, which the update removes", "resources")),
])
def test_pool_update_rejects(s: ResmgrState, payload: dict[str, Any],
                             want: tuple[str, str, str | None]) -> None:
    before = domain(s)
    assert err(s, "pool.update", payload) == want
    assert domain(s) == before


def test_pool_update_with_force_skips_the_tree_rules(s: ResmgrState) -> None:
    ok(s, "pool.update", {**pool("org", cpu=(1, 1)), "force": True})
    assert s.pools["org"].limit().cpu == 1
    # ...but never moves a pool.
    cls, _, field = err(s, "pool.update", {**pool("a", "root"), "force": True})
    assert (cls, field) == ("InvalidArgument", "parent")


def test_pool_delete(s: ResmgrState) -> None:
    assert ok(s, "pool.delete", {"path": "/org/b"}) is None
    assert "b" not in s.pools and s.pools["org"].children == ["a"]
    assert "b" not in s.queues
    # The name is free again.
    ok(s, "pool.create", pool("b2", "org", name="b", cpu=(4, 10)))


@pytest.mark.parametrize(("path", "want"), [
    ("/org", ("FailedPrecondition", "resource pool /org is not a leaf: it has 2 child pool(s); "
                                    "delete them first", None)),
    ("/", ("InvalidArgument", "the root resource pool cannot be deleted", "path")),
    ("/org/zzz", ("NotFound", "resource pool /org/zzz does not exist", None)),
    ("/nope/a", ("NotFound", "resource pool /nope does not exist", None)),
    ("org/a", ("InvalidArgument", "resource pool path 'org/a' must start with '/'", "path")),
])
def test_pool_delete_rejects(s: ResmgrState, path: str, want: tuple[str, str, str | None]) -> None:
    before = domain(s)
    assert err(s, "pool.delete", {"path": path}) == want
    assert domain(s) == before


@pytest.mark.parametrize("how", ["pending", "admitted"])
def test_a_busy_pool_cannot_be_deleted(s: ResmgrState, how: str) -> None:
    if how == "pending":
        enqueue(s, "b", [task(9, cpu=10)])  # org is full: a's task waits
    enqueue(s, "a", [task(0)])
    a = s.pools["a"]
    assert (a.allocation.is_zero(), a.demand.is_zero()) == (how == "pending", how == "admitted")
    before = domain(s)
    assert err(s, "pool.delete", {"path": "/org/a"}) == (
        "FailedPrecondition", "resource pool /org/a is busy: it has running or pending tasks",
        None)
    assert domain(s) == before
    update(s, (mid(0), TaskState.KILLED))
    ok(s, "pool.delete", {"path": "/org/a"})


# --------------------------------------------------------------------------- admission


def test_enqueue_admits_while_the_limit_allows(s: ResmgrState) -> None:
    failed = enqueue(s, "a", [task(0, cpu=4)], [task(1, cpu=4)], [task(2, cpu=4)])
    assert failed == []
    assert [state_of(s, mid(i)) for i in range(3)] == [
        TaskState.READY, TaskState.READY, TaskState.PENDING]
    assert (cpu_allocation(s, "a"), cpu_allocation(s, "org")) == (8, 8)
    assert (cpu_demand(s, "a"), cpu_allocation(s, "b")) == (4, 0)
    assert len(s.ready) == 2


def test_admission_respects_every_ancestor(s: ResmgrState) -> None:
    enqueue(s, "a", [task(0, cpu=8)])
    enqueue(s, "b", [task(1, cpu=4)])  # b's own limit is 10, but org has only 2 left
    assert state_of(s, mid(1)) == TaskState.PENDING
    assert cpu_allocation(s, "org") == 8
    enqueue(s, "b", [task(2, cpu=2)])  # head-of-line: behind task 1 though it fits
    assert state_of(s, mid(2)) == TaskState.PENDING
    # A task ending in a sibling pool frees the common ancestor: b's queue moves.
    update(s, (mid(0), TaskState.SUCCEEDED))
    assert (state_of(s, mid(1)), state_of(s, mid(2))) == (TaskState.READY, TaskState.READY)
    assert (cpu_allocation(s, "a"), cpu_allocation(s, "b"), cpu_allocation(s, "org")) == (0, 6, 6)
    assert cpu_demand(s, "b") == 0


def test_raising_a_limit_admits_waiting_gangs(s: ResmgrState) -> None:
    ok(s, "pool.update", pool("a", "org", cpu=(4, 4)))
    enqueue(s, "a", [task(0, cpu=4)], [task(1, cpu=4)])
    assert state_of(s, mid(1)) == TaskState.PENDING
    ok(s, "pool.update", pool("a", "org", cpu=(4, 8)))
    assert state_of(s, mid(1)) == TaskState.READY


def test_raising_an_ancestor_limit_admits_waiting_gangs(s: ResmgrState) -> None:
    enqueue(s, "a", [task(0, cpu=8)])
    enqueue(s, "b", [task(1, cpu=4)])
    assert state_of(s, mid(1)) == TaskState.PENDING
    ok(s, "pool.update", pool("org", cpu=(10, 20), memory=(1000, 1000)))
    assert state_of(s, mid(1)) == TaskState.READY
    assert cpu_allocation(s, "org") == 12


def test_head_of_line_blocking_within_a_priority(s: ResmgrState) -> None:
    enqueue(s, "a", [task(0, cpu=8)], [task(1, cpu=4)], [task(2, cpu=1)])
    assert [state_of(s, mid(i)) for i in range(3)] == [
        TaskState.READY, TaskState.PENDING, TaskState.PENDING]
    [(gang, queue, reason), (_, _, reason2)] = s.pending_gangs("a", 10)
    assert (gang.tasks, queue) == ([mid(1)], "pending")
    assert reason == "limit of /org/a: cpu 8 + 4 > 10"
    assert reason2 == (f"behind gang {gang.id} in the pending queue (higher priority or "
                       "earlier arrival)")


def test_lower_priority_waits_behind_a_blocked_higher_priority(s: ResmgrState) -> None:
    enqueue(s, "a", [task(0, cpu=8)])
    enqueue(s, "a", [task(1, cpu=4, priority=5)], [task(2, cpu=1, priority=1)])
    assert (state_of(s, mid(1)), state_of(s, mid(2))) == (TaskState.PENDING, TaskState.PENDING)


def test_priority_order_then_fifo(s: ResmgrState) -> None:
    enqueue(s, "a", [task(0, cpu=10)])  # fills the pool
    enqueue(s, "a", [task(1, cpu=3, priority=0)], [task(2, cpu=3, priority=7)],
            [task(3, cpu=3, priority=7)], [task(4, cpu=3, priority=2)])
    assert all(state_of(s, mid(i)) == TaskState.PENDING for i in range(1, 5))
    assert [g.tasks for g, _, _ in s.pending_gangs("a", 10)] == [[mid(2)], [mid(3)], [mid(4)],
                                                             [mid(1)]]
    dequeue(s)
    update(s, (mid(0), TaskState.SUCCEEDED))
    # 9 of 10 cpus: priority 7 first (FIFO among them), then priority 2; 0 waits.
    assert [s.gangs[g].tasks for g in s.ready] == [[mid(2)], [mid(3)], [mid(4)]]
    assert state_of(s, mid(1)) == TaskState.PENDING
    assert [t.decode() for g in dequeue(s) for t in g] == [
        "task j1-2-1", "task j1-3-1", "task j1-4-1"]


def test_gang_priority_is_its_highest_task_priority(s: ResmgrState) -> None:
    enqueue(s, "a", [task(0, cpu=10)])
    enqueue(s, "a", [task(1, priority=3)], [task(2, priority=1), task(3, priority=4)])
    assert [g.priority for g, _, _ in s.pending_gangs("a", 10)] == [4, 3]


def test_journals_with_dict_task_rows_still_apply(s: ResmgrState) -> None:
    """Before rows, gangs.enqueue carried a dict a task: the same state."""
    rows = [task(0, cpu=2, priority=3, shard=1, preemptible=False),
            task(1, controller=True), task(2, revocable=True)]
    names = ("mesos_task_id", "task_id", "run", "shard", "priority", "resources", "task")
    dicts = [{**dict(zip(names, row[:7], strict=True)),
              "preemptible": bool(row[7] & TASK_PREEMPTIBLE),
              "controller": bool(row[7] & TASK_CONTROLLER),
              "revocable": bool(row[7] & TASK_REVOCABLE)} for row in rows]
    other = ResmgrState(num_shards=s.num_shards)
    other.restore(s.snapshot())
    payload = {"pool": "a", "requeue": False}
    ok(s, "gangs.enqueue", {**payload, "gangs": [[row] for row in rows]}, key="same")
    ok(other, "gangs.enqueue", {**payload, "gangs": [[d] for d in dicts]}, key="same")
    assert domain(other) == domain(s)
    assert other.chain != s.chain  # the same state, but not the same command


def test_a_gang_is_admitted_whole_or_not_at_all(s: ResmgrState) -> None:
    enqueue(s, "a", [task(0, cpu=5)])
    enqueue(s, "a", [task(1, cpu=2), task(2, cpu=2), task(3, cpu=2)])  # 6 > 5 left
    assert {state_of(s, mid(i)) for i in (1, 2, 3)} == {TaskState.PENDING}
    assert (cpu_allocation(s, "a"), cpu_demand(s, "a")) == (5, 6)
    update(s, (mid(0), TaskState.FAILED))
    assert {state_of(s, mid(i)) for i in (1, 2, 3)} == {TaskState.READY}
    assert (cpu_allocation(s, "a"), cpu_demand(s, "a")) == (6, 0)
    assert [len(g) for g in dequeue(s)] == [3]


def test_a_gang_bigger_than_the_limit_is_rejected(s: ResmgrState) -> None:
    failed = enqueue(s, "a", [task(0, cpu=6), task(1, cpu=6)], [task(2, cpu=1)])
    assert failed == [[mid(0), "gang needs more than the pool's limit: cpu 12 > 10"],
                      [mid(1), "gang needs more than the pool's limit: cpu 12 > 10"]]
    assert mid(0) not in s.tasks and mid(1) not in s.tasks
    assert state_of(s, mid(2)) == TaskState.READY
    # The limit is the smallest along the path (org's memory limit here).
    failed = enqueue(s, "b", [task(3, memory=1001)])
    assert failed == [[mid(3), "gang needs more than the pool's limit: memory 1001 > 1000"]]


def test_enqueue_rejects_unknown_and_non_leaf_pools(s: ResmgrState) -> None:
    before = domain(s)
    assert err(s, "gangs.enqueue", {"pool": "org", "gangs": [[task(0)]]}) == (
        "InvalidArgument", "resource pool /org is not a leaf; jobs go to leaf pools", "respoolID")
    assert err(s, "gangs.enqueue", {"pool": "root", "gangs": [[task(0)]]})[0] == "InvalidArgument"
    assert err(s, "gangs.enqueue", {"pool": "zz", "gangs": [[task(0)]]}) == (
        "NotFound", "resource pool zz does not exist", None)
    assert domain(s) == before


# --------------------------------------------------------------------------- task life


def test_dequeue_hands_out_ready_gangs_as_placing(s: ResmgrState) -> None:
    tick(s, 100.0)
    enqueue(s, "a", [task(0), task(1)], [task(2)], [task(3)])
    assert dequeue(s, limit=2) == [[b"task j1-0-1", b"task j1-1-1"], [b"task j1-2-1"]]
    assert [state_of(s, mid(i)) for i in range(4)] == [
        TaskState.PLACING, TaskState.PLACING, TaskState.PLACING, TaskState.READY]
    assert s.tasks[mid(0)].deadline == 100.0 + PLACING_TIMEOUT
    assert dequeue(s) == [[b"task j1-3-1"]]
    assert dequeue(s) == []


def test_placements_flow_per_shard(s: ResmgrState) -> None:
    tick(s, 10.0)
    enqueue(s, "a", [task(0, shard=1)], [task(1, shard=2)], [task(2, shard=1)])
    dequeue(s)
    place(s, "h1", mid(0), mid(1), ports=[31000])
    assert [state_of(s, mid(i)) for i in range(3)] == [
        TaskState.PLACED, TaskState.PLACED, TaskState.PLACING]
    assert s.tasks[mid(0)].placement == ["h1", "agent-h1", "lease-h1", [31000], "c1"]
    assert set(s.placements) == {1, 2}
    # A shard's owner gets only its shard's tasks; placement -> LAUNCHING.
    assert get_placements(s, 2) == [["h1", "agent-h1", "lease-h1", "c1",
                                     [[mid(1), "j1-1", [31000]]]]]
    assert state_of(s, mid(1)) == TaskState.LAUNCHING
    assert s.tasks[mid(1)].deadline == 10.0 + LAUNCHING_TIMEOUT
    assert state_of(s, mid(0)) == TaskState.PLACED
    assert set(s.placements) == {1}
    assert get_placements(s, 2) == []
    place(s, "h2", mid(2))
    assert get_placements(s, 1, 2, limit=1) == [["h1", "agent-h1", "lease-h1", "c1",
                                                 [[mid(0), "j1-0", [31000]]]]]
    assert get_placements(s, 1) == [["h2", "agent-h2", "lease-h2", "c1", [[mid(2), "j1-2", []]]]]
    assert s.placements == {}


def test_an_express_set_hands_over_the_placements_of_the_shards_it_takes(
        s: ResmgrState) -> None:
    """The shards in ``take`` have an express GetPlacements waiting at the
    leader: their placements go LAUNCHING in the set itself and come back
    for the leader to hand over (no placements.get); the others queue."""
    tick(s, 10.0)
    enqueue(s, "a", [task(0, shard=1)], [task(1, shard=2)], [task(2, shard=1)])
    dequeue(s)
    handed = ok(s, "placements.set", {"placed": [
        ["h1", "agent-h1", "lease-h1", "c1", [[mid(0), []], [mid(1), [31000]]]],
        ["h2", "agent-h2", "lease-h2", "c1", [[mid(2), []]]]],
        "failed": [], "express": True, "take": [1]})
    assert handed == [[1, "h1", "agent-h1", "lease-h1", "c1", [[mid(0), "j1-0", []]]],
                      [1, "h2", "agent-h2", "lease-h2", "c1", [[mid(2), "j1-2", []]]]]
    assert [state_of(s, mid(i)) for i in range(3)] == [
        TaskState.LAUNCHING, TaskState.PLACED, TaskState.LAUNCHING]
    assert s.tasks[mid(0)].deadline == 10.0 + LAUNCHING_TIMEOUT
    assert set(s.express_placements) == {2} and get_placements(s, 1) == []
    assert ok(s, "placements.set", {"placed": [], "failed": []}) is None
    tick(s, 10.0 + LAUNCHING_TIMEOUT)  # handed but never launched: placed again
    assert state_of(s, mid(0)) == TaskState.READY


def test_get_placements_takes_the_shards_in_turn(s: ResmgrState) -> None:
    """A backlog in one shard does not keep another's placements waiting."""
    enqueue(s, "a", *[[task(i, shard=1)] for i in range(4)], [task(9, shard=3)])
    dequeue(s)
    for i in range(4):
        place(s, f"h{i}", mid(i))
    place(s, "h9", mid(9))
    got = get_placements(s, 1, 3, limit=2)
    assert [p[0] for p in got] == ["h0", "h9"]  # not h0, h1
    assert 3 not in s.placements
    assert [p[0] for p in get_placements(s, 1, 3, 1, limit=10)] == ["h1", "h2", "h3"]
    assert s.placements == {}


def test_set_placements_ignores_tasks_not_placing(s: ResmgrState) -> None:
    enqueue(s, "a", [task(0)], [task(1)])
    dequeue(s, limit=1)
    place(s, "h1", mid(0), mid(1), "j1-9-1")  # 1 is READY, 9 unknown
    assert (state_of(s, mid(0)), state_of(s, mid(1))) == (TaskState.PLACED, TaskState.READY)
    assert [[r[0] for r in p[4]] for p in s.placements[0]] == [[mid(0)]]


def test_failed_placements_go_back_to_ready_after_a_backoff(s: ResmgrState) -> None:
    enqueue(s, "a", [task(0), task(1)], [task(2)])
    tick(s, 100.0)
    dequeue(s)
    place(s, "h1", failed=[[[mid(0), mid(1)], "no host with 1 cpu"]])
    assert (state_of(s, mid(0)), state_of(s, mid(1))) == (TaskState.READY, TaskState.READY)
    assert s.tasks[mid(0)].reason == "no host with 1 cpu"
    assert state_of(s, mid(2)) == TaskState.PLACING
    assert cpu_allocation(s, "a") == 3  # still admitted
    assert dequeue(s) == []  # backing off: 1 s after the first failure
    tick(s, 100.9)
    assert dequeue(s) == []
    tick(s, 101.0)
    # The gang comes back whole.
    assert dequeue(s) == [[b"task j1-0-1", b"task j1-1-1"]]
    # Reported twice: the second report finds nothing PLACING to move.
    place(s, "h1", failed=[[[mid(2)], "x"]])
    place(s, "h1", failed=[[[mid(2)], "x"]])
    tick(s, 102.0)
    assert list(s.ready).count(s.tasks[mid(2)].gang) == 1


def test_why_a_run_waits_for_placement(s: ResmgrState) -> None:
    enqueue(s, "a", [task(0)])
    tick(s, 100.0)
    assert s.wait_reason(mid(0)) == ("waiting for placement: admitted; waiting for a "
                                     "placement worker")
    [(_, queue, _)] = s.pending_gangs("a", 10, placement=True)
    assert queue == "placement" and s.pending_gangs("a", 10) == []
    dequeue(s)
    assert s.wait_reason(mid(0)) == "being placed"
    place(s, "h1", failed=[[[mid(0)], "10000 hosts: 10000 fail `hostname == db-7`"]])
    assert s.wait_reason(mid(0)) == (
        "waiting for placement: placement failed 1 time, next attempt in 1 s: 10000 hosts: "
        "10000 fail `hostname == db-7`")
    [(_, _, reason)] = s.pending_gangs("a", 10, placement=True)
    assert reason.startswith("placement failed 1 time, next attempt in 1 s")
    assert s.wait_reason("no-such-run") is None


def test_the_backoff_doubles_to_a_cap_shorter_when_short_of_resources(s: ResmgrState) -> None:
    enqueue(s, "a", [task(0)])
    now = 100.0
    tick(s, now)
    waits = []
    for _ in range(8):
        dequeue(s)
        place(s, "h1", failed=[[[mid(0)], "no host satisfies constraint"]])
        gang = s.gangs[s.tasks[mid(0)].gang]
        waits.append(gang.retry_at - now)
        now = gang.retry_at
        tick(s, now)
    assert waits == [1, 2, 4, 8, 16, 32, 60, 60]
    assert s.gangs[s.tasks[mid(0)].gang].attempts == 8
    dequeue(s)
    place(s, "h1", failed=[[[mid(0)], "no host fits cpu 1", True]])
    assert s.gangs[s.tasks[mid(0)].gang].retry_at - now == 4.0
    other = ResmgrState(num_shards=4)
    other.restore(s.snapshot())  # the backoff is replicated state
    assert other.backoff == s.backoff
    assert other.gangs[s.tasks[mid(0)].gang].attempts == 9


def test_a_gang_short_of_room_goes_back_when_ended_runs_free_its_room(
        s: ResmgrState) -> None:
    """Placement found no host with room for gangs that were admitted: runs
    not yet ended (or not yet started) held it. When runs end, the gangs
    short of room go back to placement, oldest first, as far as what the
    ended runs held covers them, without waiting out their backoff; a gang
    that failed for another reason waits its backoff out."""
    enqueue(s, "a", [task(0)], [task(1)], [task(2, cpu=2)], [task(3)], [task(4)])
    tick(s, 100.0)
    dequeue(s)
    place(s, "h1", mid(0), mid(1))
    get_placements(s)
    update(s, (mid(0), TaskState.RUNNING), (mid(1), TaskState.RUNNING))
    place(s, "h1", failed=[[[mid(2)], "no host fits cpu 2", True],
                           [[mid(3)], "no host fits cpu 1", True],
                           [[mid(4)], "no host satisfies constraint"]])
    assert dequeue(s) == []  # all three back off
    update(s, (mid(0), TaskState.SUCCEEDED))  # 1 cpu free: not the 2 the oldest needs
    assert dequeue(s) == []
    update(s, (mid(1), TaskState.SUCCEEDED))
    assert dequeue(s) == []  # each time 1 cpu: the 2-cpu gang at the head waits
    tick(s, 101.0)  # its backoff over, and 3's, and 4's
    assert dequeue(s) == [[b"task j1-2-1"], [b"task j1-3-1"], [b"task j1-4-1"]]
    place(s, "h1", mid(2))
    get_placements(s)
    update(s, (mid(2), TaskState.RUNNING))
    place(s, "h1", failed=[[[mid(3)], "no host fits cpu 1", True],
                           [[mid(4)], "no host satisfies constraint"]])
    update(s, (mid(2), TaskState.SUCCEEDED))  # 2 cpu free: 3 goes back at once
    assert dequeue(s) == [[b"task j1-3-1"]]
    assert s.short_backoff == [] and len(s.backoff) == 1
    tick(s, 103.0)  # 4's second backoff: 2 s
    assert dequeue(s) == [[b"task j1-4-1"]]


def test_room_is_wanted_while_gangs_wait_for_what_runs_free(s: ResmgrState) -> None:
    """What UpdateTasksState answers (the jobmgrs report ends sooner while
    it is so): tasks not admitted, or gangs placement found no room for."""
    assert not s.room_wanted()
    enqueue(s, "a", [task(0, cpu=8)], [task(1, cpu=4)])  # a's limit is 10: 1 waits
    assert state_of(s, mid(1)) == TaskState.PENDING and s.room_wanted()
    update(s, (mid(0), TaskState.SUCCEEDED))
    assert state_of(s, mid(1)) == TaskState.READY and not s.room_wanted()
    tick(s, 100.0)
    dequeue(s)
    place(s, "h1", failed=[[[mid(1)], "no host satisfies constraint"]])
    assert not s.room_wanted()  # no end frees a constraint
    tick(s, 101.0)
    dequeue(s)
    place(s, "h1", failed=[[[mid(1)], "no host fits cpu 4", True]])
    assert s.room_wanted()


def test_the_backoff_heaps_are_replicated_state(s: ResmgrState) -> None:
    enqueue(s, "a", [task(0)], [task(1)])
    tick(s, 100.0)
    dequeue(s)
    place(s, "h1", failed=[[[mid(0)], "no host fits cpu 1", True],
                           [[mid(1)], "no host satisfies constraint"]])
    other = ResmgrState(num_shards=4)
    other.restore(s.snapshot())
    assert (other.backoff, other.short_backoff) == (s.backoff, s.short_backoff)
    assert len(s.backoff) == len(s.short_backoff) == 1
    assert other.snapshot() == s.snapshot()
    # Two heaps of the same entries laid out differently (a replica that
    # restored holds sorted ones) snapshot to the same bytes: full digests
    # compare replicas by them.
    s.short_backoff = [(100.0, 8), (200.0, 9), (150.0, 7)]
    first = s.snapshot()
    s.short_backoff = [(100.0, 8), (150.0, 7), (200.0, 9)]
    assert s.snapshot() == first
    # A replica of the code before short gangs were kept apart reads every
    # gang backing off from one heap.
    assert msgpack.unpackb(s.snapshot(), strict_map_key=False)["backoff"] == sorted(
        [list(due) for due in s.backoff + s.short_backoff])


def test_a_terminal_update_releases_and_admits_the_next_gang(s: ResmgrState) -> None:
    enqueue(s, "a", [task(0, cpu=6)], [task(1, cpu=6)])
    dequeue(s)
    place(s, "h1", mid(0))
    get_placements(s, 0)
    update(s, (mid(0), TaskState.RUNNING))
    assert state_of(s, mid(0)) == TaskState.RUNNING
    assert s.tasks[mid(0)].deadline == 0.0
    update(s, (mid(0), TaskState.SUCCEEDED))
    assert mid(0) not in s.tasks and "j1-0" not in s.current_run
    assert state_of(s, mid(1)) == TaskState.READY
    assert (cpu_allocation(s, "a"), cpu_allocation(s, "org")) == (6, 6)
    # Unknown and repeated updates are no-ops.
    before = domain(s)
    update(s, (mid(0), TaskState.SUCCEEDED), ("j1-77-1", TaskState.FAILED))
    assert domain(s) == before


@pytest.mark.parametrize("terminal", [TaskState.SUCCEEDED, TaskState.FAILED, TaskState.LOST,
                                      TaskState.KILLED, TaskState.DELETED])
@pytest.mark.parametrize("stage", ["pending", "ready", "placing", "placed", "launching"])
def test_a_task_ended_at_any_stage_is_forgotten(s: ResmgrState, terminal: TaskState,
                                                stage: str) -> None:
    ok(s, "pool.update", pool("a", "org", cpu=(4, 4)))
    enqueue(s, "a", [task(0, cpu=4)], [task(1, cpu=2), task(2, cpu=2)])
    m = mid(1) if stage == "pending" else mid(0)
    if stage in ("placing", "placed", "launching"):
        dequeue(s)
    if stage in ("placed", "launching"):
        place(s, "h1", m)
    if stage == "launching":
        get_placements(s, 0)
    assert state_of(s, m) == TaskState[stage.upper()]
    update(s, (m, terminal))
    assert m not in s.tasks
    if stage == "pending":
        # The rest of the gang stays; its demand shrinks.
        assert cpu_demand(s, "a") == 2 and s.gangs[s.tasks[mid(2)].gang].tasks == [mid(2)]
        assert s.gangs[s.tasks[mid(2)].gang].resources.cpu == 2
    else:
        # The gang behind it is admitted into the freed room.
        assert cpu_allocation(s, "a") == 4 and cpu_demand(s, "a") == 0
        assert state_of(s, mid(1)) == TaskState.READY
    assert s.placements.get(0) is None or stage == "placed"
    assert get_placements(s, 0) == []


def test_non_terminal_updates_leave_pending_tasks_alone(s: ResmgrState) -> None:
    enqueue(s, "a", [task(0, cpu=10)], [task(1)])
    update(s, (mid(1), TaskState.RUNNING))
    assert state_of(s, mid(1)) == TaskState.PENDING


def test_a_newer_run_supersedes_the_older(s: ResmgrState) -> None:
    enqueue(s, "a", [task(0, run=1, cpu=4)])
    dequeue(s)
    place(s, "h1", mid(0, 1))
    enqueue(s, "a", [task(0, run=2, cpu=4)])
    assert mid(0, 1) not in s.tasks
    assert s.current_run["j1-0"] == mid(0, 2)
    assert state_of(s, mid(0, 2)) == TaskState.READY
    assert (cpu_allocation(s, "a"), cpu_allocation(s, "org")) == (4, 4)  # not 8
    # The old run's placement is never handed out.
    assert get_placements(s, 0) == []


def test_a_newer_run_of_a_pending_task_keeps_demand_right(s: ResmgrState) -> None:
    enqueue(s, "a", [task(9, cpu=10)])
    enqueue(s, "a", [task(0, run=1, cpu=3)])
    enqueue(s, "a", [task(0, run=2, cpu=3)])
    assert (cpu_demand(s, "a"), state_of(s, mid(0, 2))) == (3, TaskState.PENDING)
    assert [g.tasks for g, _, _ in s.pending_gangs("a", 10)] == [[mid(0, 2)]]
    update(s, (mid(9), TaskState.SUCCEEDED))
    assert state_of(s, mid(0, 2)) == TaskState.READY
    assert (cpu_demand(s, "a"), cpu_allocation(s, "a")) == (0, 3)


def test_an_older_run_is_rejected_and_the_same_run_is_a_no_op(s: ResmgrState) -> None:
    enqueue(s, "a", [task(0, run=3)])
    before = domain(s)
    assert enqueue(s, "a", [task(0, run=2)]) == [
        [mid(0, 2), "run 2 is older than the tracked run 3"]]
    assert enqueue(s, "a", [task(0, run=3)]) == []
    assert domain(s) == before


def test_requeue_of_a_launching_task_places_it_again(s: ResmgrState) -> None:
    enqueue(s, "a", [task(0, cpu=2), task(1, cpu=2)])
    dequeue(s)
    place(s, "h1", mid(0), mid(1))
    get_placements(s, 0)
    # Without requeue the same run is a no-op.
    enqueue(s, "a", [task(0, cpu=2)])
    assert state_of(s, mid(0)) == TaskState.LAUNCHING
    enqueue(s, "a", [task(0, cpu=2)], requeue=True)
    assert state_of(s, mid(0)) == TaskState.READY
    assert s.tasks[mid(0)].placement is None
    assert state_of(s, mid(1)) == TaskState.LAUNCHING
    assert cpu_allocation(s, "a") == 4  # still admitted, not counted twice
    # Placed again as a gang of its own.
    assert dequeue(s) == [[b"task j1-0-1"]]
    assert s.gangs[s.tasks[mid(1)].gang].tasks == [mid(1)]


def test_requeue_of_a_placed_task_never_launches_the_old_placement(s: ResmgrState) -> None:
    enqueue(s, "a", [task(0)])
    dequeue(s)
    place(s, "old", mid(0))
    enqueue(s, "a", [task(0)], requeue=True)
    dequeue(s)
    place(s, "new", mid(0))
    assert [p[0] for p in get_placements(s, 0)] == ["new"]
    assert s.tasks[mid(0)].placement[0] == "new"  # type: ignore[index]


def test_requeue_leaves_tasks_before_launch_alone(s: ResmgrState) -> None:
    enqueue(s, "a", [task(0)], [task(1)])
    dequeue(s, limit=1)
    before = domain(s)
    enqueue(s, "a", [task(0)], [task(1)], requeue=True)  # PLACING, READY
    assert domain(s) == before


def test_placing_and_launching_time_out_back_to_ready(s: ResmgrState) -> None:
    tick(s, 1000.0)
    enqueue(s, "a", [task(0)], [task(1)])
    dequeue(s)
    place(s, "h1", mid(1))
    get_placements(s, 0)
    tick(s, 1000.0 + PLACING_TIMEOUT - 0.5)
    assert (state_of(s, mid(0)), state_of(s, mid(1))) == (TaskState.PLACING, TaskState.LAUNCHING)
    tick(s, 1000.0 + PLACING_TIMEOUT)
    assert state_of(s, mid(0)) == TaskState.READY
    assert s.tasks[mid(0)].reason == "PLACING timed out"
    tick(s, 1000.0 + LAUNCHING_TIMEOUT)
    assert state_of(s, mid(1)) == TaskState.READY
    assert s.tasks[mid(1)].reason == "LAUNCHING timed out"
    assert cpu_allocation(s, "a") == 2
    assert sorted(t for g in dequeue(s) for t in g) == [b"task j1-0-1", b"task j1-1-1"]


def test_a_placing_gang_times_out_whole(s: ResmgrState) -> None:
    tick(s, 0.0)
    enqueue(s, "a", [task(0), task(1), task(2)])
    dequeue(s)
    tick(s, PLACING_TIMEOUT)
    assert {state_of(s, mid(i)) for i in range(3)} == {TaskState.READY}
    assert len({s.tasks[mid(i)].gang for i in range(3)}) == 1
    assert dequeue(s) == [[b"task j1-0-1", b"task j1-1-1", b"task j1-2-1"]]


def test_running_tasks_do_not_time_out(s: ResmgrState) -> None:
    tick(s, 0.0)
    enqueue(s, "a", [task(0)])
    dequeue(s)
    place(s, "h1", mid(0))
    get_placements(s, 0)
    update(s, (mid(0), TaskState.RUNNING))
    tick(s, 10 * LAUNCHING_TIMEOUT)
    assert state_of(s, mid(0)) == TaskState.RUNNING


def test_time_never_goes_back(s: ResmgrState) -> None:
    tick(s, 50.0)
    tick(s, 20.0)
    heartbeat(s, "p", 10.0, kind="placement")
    assert s.now == 50.0
    assert s.members["p"].expires == 50.0 + MEMBER_TTL


def test_capacity_is_summed_over_clusters(s: ResmgrState) -> None:
    assert s.total_capacity() == Resources()
    ok(s, "cluster.capacity", {"cluster": "c1", "physical": [4, 100, 10, 0]})
    ok(s, "cluster.capacity", {"cluster": "c2", "physical": [2, 50, 10, 1]})
    ok(s, "cluster.capacity", {"cluster": "c1", "physical": [8, 100, 10, 0]})
    assert s.total_capacity() == Resources(10, 150, 20, 1)


# --------------------------------------------------------------------------- membership


def owners(state: ResmgrState) -> dict[int, str]:
    return {i: sh.owner for i, sh in state.shards.items()}


def assert_balanced(state: ResmgrState) -> None:
    live = {m.id for m in state.members.values() if m.kind == "jobmgr" and m.expires > state.now}
    assert set(state.shards) == set(range(state.num_shards))
    assert set(owners(state).values()) <= live
    counts = [list(owners(state).values()).count(m) for m in live]
    assert max(counts) - min(counts) <= 1


def test_heartbeats_keep_members_and_tick_expires_them() -> None:
    s = ResmgrState(num_shards=4)
    view = heartbeat(s, "p0", 100.0, kind="placement")
    assert view["members"] == [["p0", "placement", "p0:1", "", 100.0 + MEMBER_TTL, 0]]
    assert view["shards"] == [] and view["num_shards"] == 4
    heartbeat(s, "h0", 101.0, kind="hostmgr", ttl=20.0)
    tick(s, 100.0 + MEMBER_TTL - 0.1)
    assert set(s.members) == {"p0", "h0"}
    tick(s, 100.0 + MEMBER_TTL)
    assert set(s.members) == {"h0"}
    heartbeat(s, "h0", 110.0, kind="hostmgr")
    tick(s, 120.0)
    assert s.members == {}


def test_the_first_map_is_made_at_a_tick_and_a_lone_jobmgr_owns_every_shard() -> None:
    s = ResmgrState(num_shards=8)
    heartbeat(s, "p0", 99.0, kind="placement")
    assert s.shards == {}
    assert heartbeat(s, "j1", 100.0)["shards"] == []  # the tick makes the first map
    tick(s, 100.2)
    assert [[i, sh.owner, sh.epoch, sh.act_from] for i, sh in s.shards.items()] == [
        [i, "j1", 1, 100.2] for i in range(8)]


def test_jobmgrs_that_start_together_share_the_first_map_at_once() -> None:
    """Both heartbeat before the tick: an even split, each may act now
    (had the first heartbeat taken every shard, half would wait out its
    lease to move)."""
    s = ResmgrState(num_shards=8)
    heartbeat(s, "j1", 100.0)
    heartbeat(s, "j2", 100.1)
    tick(s, 100.4)
    assert_balanced(s)
    assert {(sh.epoch, sh.act_from) for sh in s.shards.values()} == {(1, 100.4)}


def test_a_jobmgr_that_joins_before_the_first_owner_heard_of_its_map_acts_at_once() -> None:
    """The tick made the map for j1 alone; j2 joined before j1's next
    heartbeat: j1 never knew of the shards that move, so j2 need not wait
    out j1's lease (as it did, ~10 s, when a cluster's jobmgrs started a
    tick apart)."""
    s = ResmgrState(num_shards=8)
    heartbeat(s, "j1", 100.0)
    tick(s, 100.2)
    view = heartbeat(s, "j2", 100.3)
    assert_balanced(s)
    assert [row for row in view["shards"] if row[1] == "j2"] == [
        [i, "j2", 2, 100.3] for i in (4, 5, 6, 7)]
    # Once j1 has heard of the map, its shards wait for it again.
    heartbeat(s, "j1", 100.5)
    assert all(sh.told for sh in s.shards.values() if sh.owner == "j1")
    view = heartbeat(s, "j3", 100.6)
    # One shard comes from each; j2 learned of its shards from the reply to
    # the heartbeat that gave them: both are waited out.
    assert sorted((row[2], row[3]) for row in view["shards"] if row[1] == "j3") == [
        (2, 100.5 + MEMBER_TTL), (3, 100.3 + MEMBER_TTL)]


def test_a_new_jobmgr_takes_shards_after_the_old_lease() -> None:
    s = ResmgrState(num_shards=8)
    heartbeat(s, "j1", 100.0)
    tick(s, 100.0)
    heartbeat(s, "j1", 102.0)  # lease to 107
    view = heartbeat(s, "j2", 103.0)
    assert_balanced(s)
    moved = [row for row in view["shards"] if row[1] == "j2"]
    assert moved == [[i, "j2", 2, 102.0 + MEMBER_TTL] for i in (4, 5, 6, 7)]
    assert [row for row in view["shards"] if row[1] == "j1"] == [
        [i, "j1", 1, 100.0] for i in (0, 1, 2, 3)]
    # Heartbeats of settled members move nothing.
    heartbeat(s, "j1", 104.0)
    heartbeat(s, "j2", 104.0)
    assert heartbeat(s, "j1", 105.0)["shards"] == view["shards"]


def test_a_third_jobmgr_keeps_the_spread_within_one() -> None:
    s = ResmgrState(num_shards=8)
    heartbeat(s, "j1", 100.0)
    tick(s, 100.0)
    heartbeat(s, "j2", 100.0)
    heartbeat(s, "j3", 100.0)
    assert_balanced(s)
    assert sorted(list(owners(s).values()).count(m) for m in ("j1", "j2", "j3")) == [2, 3, 3]


def test_a_dead_owners_shards_move_with_a_new_epoch() -> None:
    s = ResmgrState(num_shards=6)
    heartbeat(s, "j1", 100.0)
    heartbeat(s, "j2", 100.0)
    heartbeat(s, "j3", 100.0)
    tick(s, 100.0)
    before = {i: (sh.owner, sh.epoch) for i, sh in s.shards.items()}
    heartbeat(s, "j2", 104.0)
    heartbeat(s, "j3", 104.0)
    tick(s, 105.0)  # j1's lease (100 + 5) ran out
    assert "j1" not in s.members
    assert_balanced(s)
    for i, sh in s.shards.items():
        if before[i][0] == "j1":
            assert (sh.owner in ("j2", "j3"), sh.epoch, sh.act_from) == (True,
                                                                           before[i][1] + 1, 105.0)
        else:
            assert (sh.owner, sh.epoch) == before[i]


def test_an_expired_owner_loses_its_shards_at_the_next_tick() -> None:
    s = ResmgrState(num_shards=2)
    heartbeat(s, "j1", 100.0)
    tick(s, 100.0)
    heartbeat(s, "j2", 200.0)  # j1's lease ran out at 105: no shard has a live owner
    assert owners(s) == {0: "j1", 1: "j1"}
    tick(s, 200.0)
    assert owners(s) == {0: "j2", 1: "j2"}
    assert [(sh.epoch, sh.act_from) for sh in s.shards.values()] == [(2, 200.0), (2, 200.0)]


def test_the_first_heartbeat_pins_the_shard_count() -> None:
    s = ResmgrState(num_shards=16)  # this replica's cluster file
    heartbeat(s, "p0", 100.0, kind="placement", num_shards=4)  # the leader's
    assert (s.num_shards, s.shards_pinned) == (4, True)
    heartbeat(s, "j1", 101.0, num_shards=8)  # a later leader's own count changes nothing
    tick(s, 101.0)
    assert s.num_shards == 4 and set(s.shards) == {0, 1, 2, 3}
    other = ResmgrState(num_shards=32)
    other.restore(s.snapshot())
    assert (other.num_shards, other.shards_pinned) == (4, True)


def test_a_map_made_before_pinning_keeps_its_count() -> None:
    s = ResmgrState(num_shards=4)
    heartbeat(s, "j1", 100.0)  # a log from before heartbeats named a count
    tick(s, 100.0)
    heartbeat(s, "j1", 101.0, num_shards=8)
    assert (s.num_shards, s.shards_pinned, len(s.shards)) == (4, True, 4)


def test_a_jobmgr_with_another_shard_count_gets_no_shard() -> None:
    s = ResmgrState(num_shards=4)
    heartbeat(s, "j1", 100.0, num_shards=4)
    tick(s, 100.0)
    view = ok(s, "member.heartbeat", {"now": 100.5, "num_shards": 4, "member": {
        "id": "j2", "kind": "jobmgr", "address": "j2:1", "cluster": "", "num_shards": 8}})
    assert {row[1] for row in view["shards"]} == {"j1"}
    assert next(m for m in view["members"] if m[0] == "j2")[5] == 8


def test_shards_stay_put_while_no_jobmgr_lives() -> None:
    s = ResmgrState(num_shards=2)
    heartbeat(s, "j1", 100.0)
    tick(s, 100.0)
    tick(s, 200.0)
    assert owners(s) == {0: "j1", 1: "j1"} and s.members == {}
    heartbeat(s, "j2", 300.0)
    assert owners(s) == {0: "j1", 1: "j1"}  # until the tick
    tick(s, 300.0)
    assert {i: (sh.owner, sh.epoch, sh.act_from) for i, sh in s.shards.items()} == {
        0: ("j2", 2, 300.0), 1: ("j2", 2, 300.0)}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["j1", "j2", "j3", "j4", "tick"]),
                          st.floats(0, 4)), min_size=1, max_size=40),
       st.integers(1, 17))
def test_shard_map_invariants(steps: list[tuple[str, float]], num_shards: int) -> None:
    s = ResmgrState(num_shards=num_shards)
    now = 0.0
    epochs: dict[int, tuple[str, int]] = {}
    for who, dt in steps:
        now += dt
        if who == "tick":
            tick(s, now)
        else:
            heartbeat(s, who, now)
        live = {m.id for m in s.members.values() if m.kind == "jobmgr" and m.expires > s.now}
        # Balanced from the first tick with a live jobmgr on (a heartbeat
        # while no shard has a live owner leaves the map to the tick).
        if live and (who == "tick" or any(sh.owner in live for sh in s.shards.values())):
            assert_balanced(s)
        for i, sh in s.shards.items():
            old = epochs.get(i)
            if old is not None:
                assert sh.epoch >= old[1]
                assert (sh.owner == old[0]) == (sh.epoch == old[1])
            epochs[i] = (sh.owner, sh.epoch)


# --------------------------------------------------------------------------- idempotency


def test_a_repeated_key_returns_the_first_result_and_changes_nothing(s: ResmgrState) -> None:
    enqueue(s, "a", [task(0)], [task(1)])
    first = apply(s, "gangs.dequeue", {"limit": 1}, key="d-1")
    before = domain(s)
    assert apply(s, "gangs.dequeue", {"limit": 1}, key="d-1") == first
    assert domain(s) == before
    # The key, not the payload, decides.
    assert apply(s, "gangs.dequeue", {"limit": 5}, key="d-1") == first
    assert domain(s) == before
    assert state_of(s, mid(1)) == TaskState.READY


def test_a_repeated_failed_command_repeats_its_error(s: ResmgrState) -> None:
    first = apply(s, "pool.create", pool("c", "nope"), key="c-1")
    assert first[0] is False
    ok(s, "pool.create", pool("nope"))
    assert apply(s, "pool.create", pool("c", "nope"), key="c-1") == first
    assert "c" not in s.pools


def test_repeated_pool_create_is_idempotent(s: ResmgrState) -> None:
    assert apply(s, "pool.create", pool("c", "org"), key="same") == [True, "c"]
    before = domain(s)
    assert apply(s, "pool.create", pool("c", "org"), key="same") == [True, "c"]
    assert domain(s) == before and s.pools["org"].children == ["a", "b", "c"]


def test_commands_without_a_key_are_not_cached(s: ResmgrState) -> None:
    assert apply(s, "pool.create", pool("c", "org"), key="")[0] is True
    assert apply(s, "pool.create", pool("c", "org"), key="")[1][0] == "FailedPrecondition"
    assert s.recent.get("") is None


# --------------------------------------------------------------------------- invariants


def check_invariants(state: ResmgrState, *, limits: bool) -> None:
    """Accounting agrees with the tracked tasks; queues agree with task states."""
    def close(x: Resources, y: Resources) -> bool:
        return all(math.isclose(a, b, abs_tol=1e-6) for a, b in zip(x, y, strict=True))

    zero = {p: Resources() for p in state.pools}
    held, pending, slack_pending = dict(zero), dict(zero), dict(zero)
    np_held, controller_held, slack_held = dict(zero), dict(zero), dict(zero)
    for e in state.tasks.values():
        assert state.current_run[e.task_id] == e.mesos_task_id
        assert e.mesos_task_id in state.gangs[e.gang].tasks
        gang = state.gangs[e.gang]
        if e.state == TaskState.PENDING:
            if gang.revocable:
                slack_pending[e.pool] = slack_pending[e.pool] + e.resources
            else:
                pending[e.pool] = pending[e.pool] + e.resources
            assert any(gang.id in q.get(gang.priority, ())
                       for q in state.queues[e.pool].values())
        else:
            if not gang.preemptible and not gang.revocable:
                np_held[e.pool] = np_held[e.pool] + e.resources
            if gang.controller and not gang.revocable:
                controller_held[e.pool] = controller_held[e.pool] + e.resources
            p = e.pool
            while p != "root":
                held[p] = held[p] + e.resources
                if gang.revocable:  # summed up the tree, like the allocation
                    slack_held[p] = slack_held[p] + e.resources
                p = state.pools[p].parent  # type: ignore[assignment]
        if e.state == TaskState.READY:
            # Queued for placement, or waiting out a failed placement's backoff.
            assert e.gang in state.ready or any(
                gid == e.gang for _, gid in state.backoff + state.short_backoff)
    for pid, p in state.pools.items():
        if pid == "root":
            continue
        assert close(p.allocation, held[pid]), (pid, p.allocation, held[pid])
        assert close(p.demand, pending[pid]), (pid, p.demand, pending[pid])
        assert close(p.slack_demand, slack_pending[pid])
        assert close(p.np_allocation, np_held[pid])
        assert close(p.controller_allocation, controller_held[pid])
        assert close(p.slack_allocation, slack_held[pid])
        if limits:
            # Revocable tasks' slack cpu is bounded by the slack, not by limits.
            assert limit_usage(p).fits_in(p.limit()), (pid, p.allocation, p.slack_allocation)
    for g in state.gangs.values():
        assert g.tasks
        assert all(state.tasks[m].gang == g.id for m in g.tasks)
    assert set(state.current_run.values()) == set(state.tasks)
    # The per-state counts and the deadline index agree with a scan.
    counts = collections.Counter(e.state for e in state.tasks.values())
    assert {k: n for k, n in state.state_counts.items() if n} == dict(counts)
    indexed = {(mid, at) for st_, q in state.deadlines.items() for at, mids in q for mid in mids
               if state.tasks.get(mid) is not None and state.tasks[mid].state == st_}
    for e in state.tasks.values():
        if e.state in (TaskState.PLACING, TaskState.LAUNCHING):
            assert (e.mesos_task_id, e.deadline) in indexed
    check_preemption_invariants(state)
    # What reads see is the entitlement of the current state, never a stale one.
    fresh = ResmgrState()
    fresh.restore(state.snapshot())
    assert fresh.entitlements == state.entitlements


def check_preemption_invariants(state: ResmgrState) -> None:
    """The victim index holds exactly the admitted tasks of preemptible gangs
    that are not PREEMPTING, by pool, kind and priority; every PREEMPTING task
    is of a preemptible gang, queued once for its shard, and counted in its
    pool's ``freeing``; a queue's handed-out victims are in redelivery order."""
    in_index: set[str] = set()
    for (pool_id, revocable), buckets in state.victims.items():
        assert buckets
        for priority, bucket in buckets.items():
            assert bucket
            for m in bucket:
                e = state.tasks[m]
                assert (e.pool, e.priority, state.gangs[e.gang].revocable) == (
                    pool_id, priority, revocable)
                assert m not in in_index
                in_index.add(m)
    assert in_index == {e.mesos_task_id for e in state.tasks.values()
                        if state.gangs[e.gang].preemptible
                        and e.state not in (TaskState.PENDING, TaskState.PREEMPTING)}
    queued: dict[str, int] = {}
    for shard, queue in state.preemptions.items():
        assert len(queue)
        times = list(queue.handed.values())
        assert times == sorted(times)
        for m in [*queue.fresh, *queue.handed]:
            assert m not in queued
            queued[m] = shard
    preempting = [e for e in state.tasks.values() if e.state == TaskState.PREEMPTING]
    assert queued == {e.mesos_task_id: e.shard for e in preempting}
    freeing: dict[str, list[Resources]] = {}
    for e in preempting:
        gang = state.gangs[e.gang]
        assert gang.preemptible
        f = freeing.setdefault(e.pool, [Resources(), Resources()])
        f[gang.revocable] = f[gang.revocable] + e.resources
    assert set(state.freeing) <= set(freeing)
    for pool_id, (non_slack, slack) in freeing.items():
        got = state.freeing.get(pool_id, [Resources(), Resources()])
        assert all(math.isclose(a, b, abs_tol=1e-6)
                   for a, b in zip([*got[0], *got[1]], [*non_slack, *slack], strict=True))


# --------------------------------------------------------------------------- determinism

POOL_IDS = ["p", "q", "r", "s"]
JOBMGRS = ["j1", "j2", "j3"]
MIDS = [mid(i, r) for i in range(8) for r in (1, 2, 3)]
STATES = [TaskState.LAUNCHED, TaskState.STARTING, TaskState.RUNNING, TaskState.SUCCEEDED,
          TaskState.FAILED, TaskState.LOST, TaskState.KILLED, TaskState.DELETED]

small = st.integers(0, 6).map(float)


@st.composite
def pool_payloads(draw: st.DrawFn) -> dict[str, Any]:
    reservation = draw(small)
    return {**pool(draw(st.sampled_from(POOL_IDS)), draw(st.sampled_from(["root", *POOL_IDS])),
                   cpu=(reservation, reservation + draw(small))),
            "priority_preemption": draw(st.booleans())}


@st.composite
def gangs(draw: st.DrawFn) -> list[list[Any]]:
    instances = draw(st.lists(st.integers(0, 7), min_size=1, max_size=3, unique=True))
    flags = draw(st.sampled_from([{}, {"preemptible": False}, {"controller": True},
                                  {"preemptible": False, "controller": True},
                                  {"revocable": True}]))
    return [task(i, draw(st.integers(1, 3)), cpu=draw(st.sampled_from([0.5, 1.0, 2.0, 3.0])),
                 priority=draw(st.integers(0, 2)), shard=draw(st.integers(0, 3)), **flags)
            for i in instances]


placement_sets = st.builds(
    lambda placed, failed, flags: {"placed": placed, "failed": failed, **flags},
    st.lists(st.builds(lambda h, ms: [h, "agent-" + h, "lease-" + h, "c1",
                                      [[m, [31000]] for m in ms]],
                       st.sampled_from(["h1", "h2"]),
                       st.lists(st.sampled_from(MIDS), max_size=3)), max_size=2),
    st.lists(st.builds(lambda ms: [ms, "no room"], st.lists(st.sampled_from(MIDS), max_size=3)),
             max_size=2),
    st.sampled_from([{}, {"express": True}, {"express": True, "take": [0, 1]},
                     {"express": True, "take": [2, 3]}]))


def commands(*, with_updates: bool = True) -> st.SearchStrategy[tuple[str, Any]]:
    """(name, payload) pairs; a payload's "dt" is turned into an increasing "now"."""
    options = [
        st.tuples(st.just("pool.create"), pool_payloads()),
        st.tuples(st.just("pool.delete"),
                  st.builds(lambda a, b: {"path": f"/{a}" + (f"/{b}" if b else "")},
                            st.sampled_from(POOL_IDS), st.sampled_from([None, *POOL_IDS]))),
        st.tuples(st.just("gangs.enqueue"),
                  st.builds(lambda p, gs, rq, take: {"pool": p, "gangs": gs, "requeue": rq,
                                                     **({"take": take} if take else {})},
                            st.sampled_from(POOL_IDS), st.lists(gangs(), min_size=1, max_size=3),
                            st.booleans(), st.sampled_from([0, 0, 1, 3]))),
        st.tuples(st.just("gangs.dequeue"), st.builds(lambda n: {"limit": n}, st.integers(1, 4))),
        st.tuples(st.just("placements.set"), placement_sets),
        st.tuples(st.just("placements.get"),
                  st.builds(lambda sh, n: {"shards": sh, "limit": n},
                            st.lists(st.integers(0, 3), max_size=4, unique=True),
                            st.integers(1, 4))),
        st.tuples(st.just("tasks.update"),
                  st.builds(lambda us: {"updates": [[m, int(x)] for m, x in us]},
                            st.lists(st.tuples(st.sampled_from(MIDS), st.sampled_from(STATES)),
                                     max_size=4))),
        st.tuples(st.just("member.heartbeat"),
                  st.builds(lambda who, kind, dt: {"dt": dt, "member": {
                      "id": who, "kind": kind, "address": who + ":1"}},
                      st.sampled_from(JOBMGRS), st.sampled_from(["jobmgr", "jobmgr", "placement"]),
                      st.floats(0, 3))),
        st.tuples(st.just("cluster.tick"), st.builds(
            lambda dt, sustain: {"dt": dt} if sustain is None else {"dt": dt, "sustain": sustain},
            st.sampled_from([0.0, 1.0, 20.0, 70.0]), st.sampled_from([None, 0.0, 1.0]))),
        st.tuples(st.just("preemptions.get"),
                  st.builds(lambda sh, n: {"shards": sh, "limit": n},
                            st.lists(st.integers(0, 3), max_size=4, unique=True),
                            st.integers(1, 4))),
        st.tuples(st.just("cluster.capacity"),
                  st.builds(lambda c, n, slack: {"cluster": c, "physical": [n, 1024.0, 0.0, 0.0],
                                                 "slack": [slack, 0.0, 0.0, 0.0]},
                            st.sampled_from(["c1", "c2"]), small, small)),
        st.tuples(st.just("digest.reset"), st.just({})),
    ]
    if with_updates:
        options.append(st.tuples(st.just("pool.update"), pool_payloads()))
    return st.one_of(options)


def log_of(steps: list[tuple[str, Any, int]]) -> Iterator[bytes]:
    """Encode steps; keys come from a small set so some repeat."""
    now = 0.0
    for i, (name, payload, key) in enumerate(steps):
        if "dt" in payload:
            now += payload["dt"]
            payload = {**{k: v for k, v in payload.items() if k != "dt"}, "now": now}
        yield encode(Command(name, f"key-{key}" if key >= 0 else f"unique-{i}", payload))


command_logs = st.lists(
    st.tuples(commands(), st.integers(-6, 3)).map(lambda t: (t[0][0], t[0][1], t[1])),
    max_size=60)


def seeded() -> ResmgrState:
    s = ResmgrState(num_shards=4)
    for blob in log_of([("pool.create", pool("p", cpu=(4, 6)), -1),
                        ("pool.create", pool("q", cpu=(2, 4)), -1)]):
        s.apply(blob)
    return s


def test_a_replica_counts_its_time_applying_each_command_apart_from_the_state(
        s: ResmgrState) -> None:
    before = s.snapshot()
    ok(s, "cluster.tick", {"now": 1.0})
    enqueue(s, "a", [task(0)], [task(1)])
    assert s.command_counts["gangs.enqueue"] == 1
    assert s.command_seconds["gangs.enqueue"] > 0 and s.command_seconds["cluster.tick"] > 0
    # Diagnostics, like the counts: a fresh replica restored from this
    # state starts them over (two replicas' timings differ; their states not).
    fresh = ResmgrState(num_shards=8)
    fresh.restore(before)
    assert not fresh.command_seconds


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(command_logs)
def test_two_replicas_applying_one_log_agree(steps: list[tuple[str, Any, int]]) -> None:
    log = list(log_of(steps))
    one, two = seeded(), seeded()
    results_one = [one.apply(blob) for blob in log]
    results_two = [two.apply(blob) for blob in log]
    assert results_one == results_two
    assert one.digest() == two.digest()
    assert one.snapshot() == two.snapshot()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(command_logs)
def test_reads_between_commands_do_not_change_what_a_replica_does(
        steps: list[tuple[str, Any, int]]) -> None:
    """Entitlements are computed when read after a change (the leader's
    GetResourcePool, metrics, the capacity loop), and a pass keeps the
    bounds of its start: a replica read between every command applies the
    log exactly as one never read, and both read what compute says."""
    log = list(log_of(steps))
    read, unread = seeded(), seeded()
    for replica in (read, unread):  # a known capacity: admission follows entitlement
        replica.apply(encode(Command("cluster.capacity", "", {
            "cluster": "c1", "physical": [2.0, 0.0, 0.0, 0.0]})))
    for blob in log:
        assert read.apply(blob) == unread.apply(blob)
        for leaf in read.pools:
            read.pending_gangs(leaf, 10)
        read.slack_needed("c1")
        assert read.entitlements == unread.entitlements
    assert read.snapshot() == unread.snapshot()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(command_logs, st.data())
def test_a_restored_snapshot_behaves_like_the_original(steps: list[tuple[str, Any, int]],
                                                       data: st.DataObject) -> None:
    log = list(log_of(steps))
    cut = data.draw(st.integers(0, len(log)))
    original = seeded()
    for blob in log[:cut]:
        original.apply(blob)
    restored = ResmgrState(num_shards=99)
    restored.restore(original.snapshot())
    assert restored.digest() == original.digest()
    assert restored.current_run == original.current_run
    for blob in log[cut:]:
        assert restored.apply(blob) == original.apply(blob)
        assert restored.digest() == original.digest()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(commands(with_updates=False), st.integers(-6, 1))
                .map(lambda t: (t[0][0], t[0][1], t[1])), max_size=60))
def test_accounting_invariants_hold_under_any_log(steps: list[tuple[str, Any, int]]) -> None:
    s = seeded()
    for blob in log_of(steps):
        s.apply(blob)
        check_invariants(s, limits=True)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(command_logs)
def test_accounting_invariants_hold_with_pool_updates(steps: list[tuple[str, Any, int]]) -> None:
    s = seeded()
    for blob in log_of(steps):
        s.apply(blob)
        check_invariants(s, limits=False)


def test_snapshot_round_trip_of_a_busy_state(s: ResmgrState) -> None:
    tick(s, 5.0)
    heartbeat(s, "j1", 5.0)
    ok(s, "cluster.capacity", {"cluster": "c1", "physical": [16, 4096, 100, 0]})
    enqueue(s, "a", [task(0, cpu=4, shard=1), task(1, cpu=4, shard=2)], [task(2, cpu=4)])
    enqueue(s, "b", [task(3, priority=2)])
    dequeue(s, limit=1)
    place(s, "h1", mid(0), mid(1), ports=[1, 2])
    get_placements(s, 2)
    copy = ResmgrState()
    copy.restore(s.snapshot())
    assert copy.digest() == s.digest()
    assert copy.snapshot() == s.snapshot()
    assert (copy.num_shards, copy.now, copy.next_gang, copy.applied) == (8, 5.0, s.next_gang,
                                                                          s.applied)
    assert copy.tasks == s.tasks and copy.gangs == s.gangs and copy.pools == s.pools
    assert copy.queues == s.queues and copy.ready == s.ready
    assert copy.placements == s.placements and copy.members == s.members
    assert copy.shards == s.shards and copy.capacity == s.capacity and copy.recent == s.recent
    more = [encode(Command("tasks.update", "u-1", {"updates": [[mid(0), 9], [mid(1), 14]]})),
            encode(Command("cluster.tick", "t-1", {"now": 100.0}))]
    for state in (s, copy):
        for blob in more:
            state.apply(blob)
    assert copy.digest() == s.digest()
    assert state_of(s, mid(2)) == TaskState.READY


def test_placement_takes_pools_in_turn() -> None:
    """A busy pool's admitted backlog does not hold back another pool's gang."""
    s = ResmgrState()
    ok(s, "pool.create", pool("busy", cpu=(0, 100)))
    ok(s, "pool.create", pool("small", cpu=(0, 100)))
    enqueue(s, "busy", *([task(i, job="jb")] for i in range(5)))
    enqueue(s, "small", [task(0, job="js")])
    first = dequeue(s, limit=2)
    assert sorted(t.decode() for g in first for t in g) == ["task jb-0-1", "task js-0-1"]
    assert [t.decode() for g in dequeue(s) for t in g] == [f"task jb-{i}-1" for i in range(1, 5)]
