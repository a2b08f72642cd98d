"""GangBatcher: creates from every shard share one EnqueueGangs, a failed
call is sent again, and refused runs go back to their shard's writer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import trio
import trio.testing

from peloton.api.private.resmgrsvc import resmgrsvc_pb2 as rpb
from peloton.core.errors import Unavailable
from peloton.core.states import TaskState
from peloton.jobmgr.enqueue import GangBatcher


@dataclass
class FakeTask:
    job_id: str
    instance: int
    state: TaskState = TaskState.PENDING
    run: int = 1

    @property
    def mesos_task_id(self) -> str:
        return f"{self.job_id}-{self.instance}-{self.run}"


class FakeResmgr:
    def __init__(self, refuse: frozenset[str] = frozenset(), failures: int = 0) -> None:
        self.calls: list[rpb.EnqueueGangsRequest] = []
        self.refuse = refuse
        self.failures = failures
        self.release = trio.Event()
        self.release.set()

    async def call(self, method: str, request: rpb.EnqueueGangsRequest) -> Any:
        assert method == "EnqueueGangs"
        await self.release.wait()
        if self.failures:
            self.failures -= 1
            raise Unavailable("no resmgr leader")
        self.calls.append(request)
        reply = rpb.EnqueueGangsResponse()
        for gang in request.gangs:
            for t in gang.tasks:
                if t.mesosTaskId in self.refuse:
                    reply.failed.add(mesosTaskId=t.mesosTaskId, message="pool is gone")
        return reply


@dataclass
class FakeCtx:
    resmgr: FakeResmgr


@dataclass
class FakeEngine:
    shard: int
    ctx: FakeCtx
    jobs: dict[str, Any] = field(default_factory=dict)
    stopped: bool = False
    recorded: list[list[str]] = field(default_factory=list)

    def gangs_by_pool(self, tasks: Sequence[FakeTask], by_pool: dict[str, list[rpb.Gang]]
                      ) -> None:
        for t in tasks:
            by_pool["pool-1"].append(rpb.Gang(tasks=[rpb.Task(mesosTaskId=t.mesos_task_id)]))

    async def submit(self, fn: Any, *args: Any) -> Any:
        return await fn(*args)

    async def record_enqueued(self, tasks: Sequence[FakeTask], sent: Any, failed: Any) -> None:
        self.recorded.append([t.mesos_task_id for t in tasks])


def engines(resmgr: FakeResmgr, count: int) -> list[FakeEngine]:
    return [FakeEngine(shard, FakeCtx(resmgr)) for shard in range(count)]


def new_job(engine: FakeEngine, job_id: str) -> list[FakeTask]:
    engine.jobs[job_id] = object()
    return [FakeTask(job_id, 0)]


async def test_creates_that_arrive_together_go_in_one_call() -> None:
    resmgr = FakeResmgr()
    resmgr.release = trio.Event()  # the first call waits: the rest pile up
    batcher = GangBatcher()
    a, b = engines(resmgr, 2)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(batcher.run)
        batcher.add(a, new_job(a, "j0"))  # type: ignore[arg-type]
        await trio.testing.wait_all_tasks_blocked()
        for k in range(1, 6):  # from both shards, while the first is in flight
            engine = (a, b)[k % 2]
            batcher.add(engine, new_job(engine, f"j{k}"))  # type: ignore[arg-type]
        resmgr.release.set()
        await trio.testing.wait_all_tasks_blocked()
        nursery.cancel_scope.cancel()
    assert [[t.mesosTaskId for g in c.gangs for t in g.tasks] for c in resmgr.calls] == [
        ["j0-0-1"], ["j1-0-1", "j2-0-1", "j3-0-1", "j4-0-1", "j5-0-1"]]
    assert batcher.waiting == 0


async def test_a_failed_call_is_sent_again_and_changed_tasks_are_left_out(
        mock_clock: trio.testing.MockClock) -> None:
    mock_clock.autojump_threshold = 0  # the retries' waits pass at once
    resmgr = FakeResmgr(failures=2)
    batcher = GangBatcher()
    (a,) = engines(resmgr, 1)
    kept, killed = new_job(a, "j0"), new_job(a, "j1")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(batcher.run)
        batcher.add(a, kept + killed)  # type: ignore[arg-type]
        await trio.testing.wait_all_tasks_blocked()
        killed[0].state = TaskState.KILLED  # stopped before it reached resmgr
        await trio.sleep(10)
        nursery.cancel_scope.cancel()
    assert [[t.mesosTaskId for g in c.gangs for t in g.tasks] for c in resmgr.calls] == [
        ["j0-0-1"]]


async def test_refused_runs_go_to_their_shards_writer_and_stopped_shards_are_skipped(
) -> None:
    resmgr = FakeResmgr(refuse=frozenset({"j1-0-1"}))
    batcher = GangBatcher()
    a, b, gone = engines(resmgr, 3)
    gone.stopped = True  # its next owner enqueues its PENDING tasks
    async with trio.open_nursery() as nursery:
        nursery.start_soon(batcher.run)
        batcher.add(a, new_job(a, "j0"))  # type: ignore[arg-type]
        batcher.add(b, new_job(b, "j1"))  # type: ignore[arg-type]
        batcher.add(gone, new_job(gone, "j2"))  # type: ignore[arg-type]
        await trio.testing.wait_all_tasks_blocked()
        nursery.cancel_scope.cancel()
    (call,) = resmgr.calls
    assert [t.mesosTaskId for g in call.gangs for t in g.tasks] == ["j0-0-1", "j1-0-1"]
    assert (a.recorded, b.recorded, gone.recorded) == ([], [["j1-0-1"]], [])
