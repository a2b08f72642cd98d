"""The lanes a small job has through resmgr under a bulk load.

A large gangs.enqueue waits for one of LARGE_IN_FLIGHT slots into the Raft
log, while a small one (and every other command) goes in at once; a
dequeue marks the gangs of the small pools it emptied as express, for the
placement worker to place apart from the bulk batch. Driven through the
service handler over a state with a fake Raft node.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
import trio
import trio.testing

from peloton.api.private.resmgrsvc import resmgrsvc_pb2 as rpb
from peloton.core.errors import NotFound
from peloton.core.states import TaskState
from peloton.resmgr.service import (
    EXPRESS_GANGS,
    LARGE_COMMAND_BYTES,
    LARGE_IN_FLIGHT,
    ROWS_A_STEP,
    Resmgr,
    ResmgrServiceHandler,
    task_row,
)
from peloton.resmgr.state import ResmgrState
from tests.resmgr.test_state import ok, pool
from tests.steps import mark_steps


class FakeNode:
    """Applies each command at once, unless it is larger than
    LARGE_COMMAND_BYTES and ``hold`` is not set: then it waits for it."""

    def __init__(self, state: ResmgrState) -> None:
        self.state = state
        self.lock = threading.Lock()
        self.hold = trio.Event()
        self.hold.set()
        self.in_flight = 0
        self.most_in_flight = 0
        self.applied = trio.Event()  # set at each apply (and nudge)
        self.commit_s = 0.0

    def is_leader(self) -> bool:
        return True

    async def submit(self, blob: bytes) -> Any:
        if self.commit_s:  # a commit's time, in which other tasks run
            await trio.sleep(self.commit_s)
        if len(blob) > LARGE_COMMAND_BYTES:
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            await self.hold.wait()
            self.in_flight -= 1
        with self.lock:
            result = self.state.apply(blob)
        self.nudge()
        return result

    def watch_applied(self) -> trio.Event:
        return self.applied

    def nudge(self) -> None:
        self.applied.set()
        self.applied = trio.Event()


def service() -> tuple[FakeNode, ResmgrServiceHandler]:
    state = ResmgrState(num_shards=8)
    ok(state, "cluster.tick", {"now": 1.0})
    ok(state, "pool.create", pool("bulk", cpu=(0, 100_000), memory=(0, 10**9)))
    ok(state, "pool.create", pool("probes", cpu=(0, 1000), memory=(0, 10**9)))
    node = FakeNode(state)
    return node, ResmgrServiceHandler(Resmgr(node, state, {}))  # type: ignore[arg-type]


def proposals(handler: ResmgrServiceHandler) -> list[tuple[str, Any]]:
    """What the handler proposes from now on, (name, payload) each."""
    proposed: list[tuple[str, Any]] = []
    propose = handler.rm.propose

    async def counted(name: str, payload: Any, **kw: Any) -> Any:
        proposed.append((name, payload))
        return await propose(name, payload, **kw)

    handler.rm.propose = counted  # type: ignore[method-assign]
    return proposed


def gangs(job: str, count: int, *, name_bytes: int = 0) -> list[rpb.Gang]:
    """``count`` gangs of one task each; ``name_bytes`` pads each task."""
    return [rpb.Gang(tasks=[rpb.Task(id=f"{job}-{k}", jobId=job, mesosTaskId=f"{job}-{k}-1",
                                     resource=rpb.Resources(cpu=1.0, memMb=1.0),
                                     name="x" * name_bytes)])
            for k in range(count)]


async def test_large_enqueues_wait_for_a_slot_and_small_ones_do_not() -> None:
    node, handler = service()
    node.hold = trio.Event()
    done: list[str] = []

    async def enqueue(pool_id: str, job: str, count: int, name_bytes: int) -> None:
        await handler.EnqueueGangs(rpb.EnqueueGangsRequest(
            respoolID={"value": pool_id}, gangs=gangs(job, count, name_bytes=name_bytes)))
        done.append(job)

    async with trio.open_nursery() as nursery:
        for k in range(LARGE_IN_FLIGHT + 2):  # each one large command
            nursery.start_soon(enqueue, "bulk", f"bulk{k}", 100, 200)
        await trio.testing.wait_all_tasks_blocked()
        assert node.in_flight == LARGE_IN_FLIGHT  # the others wait for a slot
        nursery.start_soon(enqueue, "probes", "probe", 10, 0)
        await trio.testing.wait_all_tasks_blocked()
        assert done == ["probe"]  # past the large ones
        node.hold.set()
    assert sorted(done) == sorted(["probe"] + [f"bulk{k}" for k in range(LARGE_IN_FLIGHT + 2)])
    assert node.most_in_flight == LARGE_IN_FLIGHT
    assert len(handler.rm.state.tasks) == 10 + 100 * (LARGE_IN_FLIGHT + 2)


async def test_a_large_enqueue_yields_between_gangs_while_it_makes_rows(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A bulk request's rows are made a gang at a time, with a yield to the
    leader's other tasks after every ROWS_A_STEP tasks and never inside a
    gang; it is still one enqueue."""
    from peloton.resmgr import service as service_module

    _, handler = service()
    seen = mark_steps(monkeypatch, (service_module, "task_row", "r"))
    sizes = [ROWS_A_STEP - 50, ROWS_A_STEP - 50, 100, 50]
    request = rpb.EnqueueGangsRequest(respoolID={"value": "bulk"})
    for g, size in enumerate(sizes):
        request.gangs.add(tasks=[rpb.Task(id=f"j-{g}{k:03d}", jobId="j",
                                          mesosTaskId=f"j-{g}{k:03d}-1",
                                          resource=rpb.Resources(cpu=1.0, memMb=1.0))
                                 for k in range(size)])
    reply = await handler.EnqueueGangs(request)
    assert not reply.failed
    # (the proposal after the rows yields too)
    assert "".join(seen).rstrip("|").split("|") == ["r" * (2 * ROWS_A_STEP - 100), "r" * 150]
    assert len(handler.rm.state.tasks) == sum(sizes)


async def test_a_dequeue_marks_the_gangs_of_small_pools_it_emptied_express() -> None:
    _, handler = service()
    await handler.EnqueueGangs(rpb.EnqueueGangsRequest(respoolID={"value": "bulk"},
                                                       gangs=gangs("bulk", 100)))
    await handler.EnqueueGangs(rpb.EnqueueGangsRequest(respoolID={"value": "probes"},
                                                       gangs=gangs("probe", 3)))
    reply = await handler.DequeueGangs(rpb.DequeueGangsRequest(limit=10))
    jobs = [g.tasks[0].jobId for g in reply.gangs]
    # Pools take turns; the probes' three gangs emptied their pool.
    assert jobs == ["bulk", "probe"] * 3 + ["bulk"] * 4
    assert [jobs[i] for i in reply.express] == ["probe"] * 3
    # The rest of the bulk pool: emptied, but more than EXPRESS_GANGS gangs.
    reply = await handler.DequeueGangs(rpb.DequeueGangsRequest(limit=1000))
    assert len(reply.gangs) == 93 and list(reply.express) == []  # more than EXPRESS_GANGS
    assert EXPRESS_GANGS < 93


async def test_a_gang_that_comes_wakes_one_dequeue_not_every_waiting_one(
        autojump_clock: trio.abc.Clock) -> None:
    """Every placement cycle long-polls DequeueGangs. When gangs become
    READY otherwise than by an enqueue that hands them over (below: the
    enqueue commands proposed as they are, with no ``take``), only as many
    propose a dequeue as the gangs waiting could fill (their limits); the
    rest keep waiting, and look again when a dequeue in flight is done."""
    node, handler = service()
    node.commit_s = 0.01
    proposed = proposals(handler)
    got: list[int] = []

    async def dequeue(limit: int) -> None:
        reply = await handler.DequeueGangs(rpb.DequeueGangsRequest(limit=limit, timeout=1000))
        got.append(len(reply.gangs))

    async def ready(job: str, count: int) -> None:
        await handler.rm.propose("gangs.enqueue", {"pool": "probes", "gangs": [
            [task_row(t) for t in g.tasks] for g in gangs(job, count)]})

    async with trio.open_nursery() as nursery:
        for _ in range(8):
            nursery.start_soon(dequeue, 2)
        await trio.testing.wait_all_tasks_blocked()
        await ready("probe", 1)
        await trio.sleep(0.1)  # commits take 0.01 s
        assert [n for n, _ in proposed].count("gangs.dequeue") == 1 and got == [1]
        # Five gangs: three dequeues of two may take them, one after another
        # or at once; none proposes for nothing.
        await ready("more", 5)
        await trio.sleep(0.1)
        assert [n for n, _ in proposed].count("gangs.dequeue") == 4 and sorted(got) == [1, 1, 2, 2]
    assert sorted(got) == [0, 0, 0, 0, 1, 1, 2, 2]  # the rest timed out, empty


async def test_an_enqueue_hands_its_gangs_to_the_dequeues_waiting_for_them(
        autojump_clock: trio.abc.Clock) -> None:
    """A small enqueue (at most EXPRESS_GANGS gangs) dequeues in its own
    command for the DequeueGangs calls waiting (up to their limits, less
    what is handed already), and the leader hands the gangs to them: no
    gangs.dequeue at all (a small job's gang made one). Gangs a waiter gave
    up on wait for the next; a task killed meanwhile is not handed; a large
    enqueue takes nothing (handed gangs go first-come, ahead of a probe)."""
    node, handler = service()
    node.commit_s = 0.01
    proposed = proposals(handler)
    got: list[list[str]] = []

    async def dequeue(limit: int, timeout: int = 1000) -> None:
        reply = await handler.DequeueGangs(rpb.DequeueGangsRequest(limit=limit,
                                                                   timeout=timeout))
        got.append(sorted(t.mesosTaskId for g in reply.gangs for t in g.tasks))

    async with trio.open_nursery() as nursery:
        for _ in range(3):
            nursery.start_soon(dequeue, 2)
        await trio.testing.wait_all_tasks_blocked()
        await handler.EnqueueGangs(rpb.EnqueueGangsRequest(respoolID={"value": "probes"},
                                                           gangs=gangs("probe", 5)))
        await trio.sleep(0.1)
    assert sorted(got) == [["probe-0-1", "probe-1-1"], ["probe-2-1", "probe-3-1"],
                           ["probe-4-1"]]
    assert [n for n, _ in proposed] == ["gangs.enqueue"] and proposed[0][1]["take"] == 5
    state = handler.rm.state
    assert {state.tasks[f"probe-{k}-1"].state for k in range(5)} == {TaskState.PLACING}
    # Handed over to a waiter that went: the next call takes what still holds.
    handler._waiting_limits += 5
    await handler.EnqueueGangs(rpb.EnqueueGangsRequest(respoolID={"value": "probes"},
                                                       gangs=gangs("late", 2)))
    handler._waiting_limits -= 5
    await handler.UpdateTasksState(rpb.UpdateTasksStateRequest(updates=[
        rpb.TaskStateUpdate(mesosTaskId="late-0-1", state=TaskState.KILLED)]))
    got.clear()
    await dequeue(10, timeout=0)
    assert got == [["late-1-1"]] and not handler.rm.dequeued
    assert "gangs.dequeue" not in [n for n, _ in proposed]
    handler._waiting_limits += 100
    proposed.clear()
    await handler.EnqueueGangs(rpb.EnqueueGangsRequest(respoolID={"value": "probes"},
                                                       gangs=gangs("big", EXPRESS_GANGS + 1)))
    assert [("take" in p) for _, p in proposed] == [False] and not handler.rm.dequeued


async def test_a_pool_left_with_ready_gangs_is_not_express() -> None:
    _, handler = service()
    await handler.EnqueueGangs(rpb.EnqueueGangsRequest(respoolID={"value": "probes"},
                                                       gangs=gangs("probe", 5)))
    reply = await handler.DequeueGangs(rpb.DequeueGangsRequest(limit=3))
    assert len(reply.gangs) == 3 and list(reply.express) == []
    reply = await handler.DequeueGangs(rpb.DequeueGangsRequest(limit=3))
    assert len(reply.gangs) == 2 and list(reply.express) == [0, 1]


async def placed(bulk: int, probes: int) -> ResmgrServiceHandler:
    """A service whose ``bulk`` bulk tasks and ``probes`` probe tasks are
    placed (one a host), the probes' as express placements."""
    _, handler = service()
    for pool_id, job, count in (("bulk", "bulk", bulk), ("probes", "probe", probes)):
        await handler.EnqueueGangs(rpb.EnqueueGangsRequest(respoolID={"value": pool_id},
                                                           gangs=gangs(job, count)))
    await handler.DequeueGangs(rpb.DequeueGangsRequest(limit=10))
    for job, count, express in (("bulk", bulk, False), ("probe", probes, True)):
        await handler.SetPlacements(rpb.SetPlacementsRequest(placements=[
            rpb.Placement(hostname=f"{job}-h{k}", agentId="a", leaseId=f"{job}-l{k}",
                          cluster="c1", tasks=[rpb.TaskRef(mesosTaskId=f"{job}-{k}-1")])
            for k in range(count)], express=express))
    return handler


async def test_express_placements_go_ahead_of_their_shards_bulk_placements() -> None:
    handler = await placed(3, 1)
    got = await handler.GetPlacements(rpb.GetPlacementsRequest(shards=[0], limit=2))
    assert [p.hostname for p in got.placements] == ["probe-h0", "bulk-h0"]


async def test_an_express_get_takes_only_express_placements() -> None:
    handler = await placed(2, 2)
    state = handler.rm.state
    copy = ResmgrState(num_shards=8)
    copy.restore(state.snapshot())  # express placements are replicated state
    assert copy.express_placements == state.express_placements
    assert [row[0] for row in state.express_placements[0]] == ["probe-h0", "probe-h1"]
    got = await handler.GetPlacements(rpb.GetPlacementsRequest(shards=[0], limit=100,
                                                               express=True))
    assert [p.hostname for p in got.placements] == ["probe-h0", "probe-h1"]  # in order
    got = await handler.GetPlacements(rpb.GetPlacementsRequest(shards=[0], limit=100,
                                                               express=True, timeout=0))
    assert list(got.placements) == []  # the bulk ones are not for it
    got = await handler.GetPlacements(rpb.GetPlacementsRequest(shards=[0], limit=100))
    assert [p.hostname for p in got.placements] == ["bulk-h0", "bulk-h1"]


async def test_a_small_jobs_placement_wakes_its_shards_express_get_alone(
        autojump_clock: trio.abc.Clock) -> None:
    """A jobmgr long-polls GetPlacements twice, express and not. An express
    placement is the express call's while one waits for its shard: the
    other call does not wake for it (both did, and each made a Raft
    command, one of them for nothing), and the call gets it from the
    placements.set command itself, with no placements.get; with no express
    call waiting, the other call takes it (with a placements.get)."""
    node, handler = service()
    node.commit_s = 0.01  # both calls woken would propose before either applies
    proposed = proposals(handler)

    def gets() -> list[bool]:  # each placements.get proposed: whether express
        return [bool(p.get("express")) for name, p in proposed if name == "placements.get"]

    got: dict[bool, list[str]] = {True: [], False: []}

    async def get(express: bool) -> None:
        reply = await handler.GetPlacements(rpb.GetPlacementsRequest(
            shards=[0, 1], limit=100, timeout=1000, express=express))
        got[express].extend(p.hostname for p in reply.placements)

    async def place(job: str, express: bool) -> None:
        await handler.EnqueueGangs(rpb.EnqueueGangsRequest(respoolID={"value": "probes"},
                                                           gangs=gangs(job, 1)))
        await handler.DequeueGangs(rpb.DequeueGangsRequest(limit=10))
        await handler.SetPlacements(rpb.SetPlacementsRequest(placements=[rpb.Placement(
            hostname=f"{job}-h", agentId="a", leaseId=f"{job}-l", cluster="c1",
            tasks=[rpb.TaskRef(mesosTaskId=f"{job}-0-1")])], express=express))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(get, True)
        nursery.start_soon(get, False)
        await trio.testing.wait_all_tasks_blocked()
        await place("probe", True)
        await trio.sleep(0.1)
        assert got == {True: ["probe-h"], False: []} and gets() == []
        await place("bulk", False)  # the waiting bulk call wakes for its own
    assert got == {True: ["probe-h"], False: ["bulk-h"]} and gets() == [False]
    await place("late", True)  # no express call waits: the other takes it
    await get(False)
    assert got[False] == ["bulk-h", "late-h"] and gets() == [False, False]
    state = handler.rm.state
    assert [state.tasks[f"{j}-0-1"].state for j in ("probe", "bulk", "late")] == [
        TaskState.LAUNCHING] * 3


async def test_a_placement_handed_over_waits_for_the_next_express_call_while_it_holds(
) -> None:
    """The express call a placements.set handed placements to may be gone
    by then (its timeout): the next one takes them, with no placements.get.
    One whose run ended (or was placed again) meanwhile is dropped."""
    _, handler = service()
    proposed = proposals(handler)
    await handler.EnqueueGangs(rpb.EnqueueGangsRequest(respoolID={"value": "probes"},
                                                       gangs=gangs("probe", 2)))
    await handler.DequeueGangs(rpb.DequeueGangsRequest(limit=10))
    handler._express_waiting[0] += 1  # a call waits (then goes)
    await handler.SetPlacements(rpb.SetPlacementsRequest(placements=[
        rpb.Placement(hostname=f"h{k}", agentId="a", leaseId=f"l{k}", cluster="c1",
                      tasks=[rpb.TaskRef(mesosTaskId=f"probe-{k}-1")]) for k in range(2)],
        express=True))
    handler._express_waiting[0] -= 1
    state = handler.rm.state
    assert [state.tasks[f"probe-{k}-1"].state for k in range(2)] == [TaskState.LAUNCHING] * 2
    assert state.express_placements == {} and len(handler.rm.handed[0]) == 2
    reply = await handler.UpdateTasksState(rpb.UpdateTasksStateRequest(updates=[
        rpb.TaskStateUpdate(mesosTaskId="probe-1-1", state=TaskState.KILLED)]))
    assert not reply.roomWanted  # nothing waits for what the run held
    proposed.clear()
    got = await handler.GetPlacements(rpb.GetPlacementsRequest(shards=[0], express=True,
                                                               timeout=0))
    assert [p.hostname for p in got.placements] == ["h0"] and proposed == []
    assert dict(handler.rm.handed) == {}


async def test_an_enqueues_reply_counts_its_pools_gangs_not_yet_placed() -> None:
    """EnqueueGangsResponse.waiting (the jobmgrs' intake holds large creates
    by it): PENDING and READY gangs of the request's pool; a request without
    gangs only asks, and proposes nothing."""
    _, handler = service()
    reply = await handler.EnqueueGangs(rpb.EnqueueGangsRequest(respoolID={"value": "bulk"},
                                                               gangs=gangs("bulk", 10)))
    assert reply.waiting == 10
    reply = await handler.EnqueueGangs(rpb.EnqueueGangsRequest(respoolID={"value": "probes"},
                                                               gangs=gangs("probe", 3)))
    assert reply.waiting == 3
    await handler.DequeueGangs(rpb.DequeueGangsRequest(limit=4))  # pools in turn: 2 and 2
    state = handler.rm.state
    applied = state.applied
    asked = [(await handler.EnqueueGangs(rpb.EnqueueGangsRequest(respoolID={"value": p}))).waiting
             for p in ("bulk", "probes")]
    assert asked == [8, 1]
    assert state.applied == applied
    with pytest.raises(NotFound, match="resource pool nowhere does not exist"):
        await handler.EnqueueGangs(rpb.EnqueueGangsRequest(respoolID={"value": "nowhere"}))
