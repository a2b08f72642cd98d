"""ShardEngine against the real SQLite store and in-memory resmgr/hostmgr fakes.

Every async test takes pytest-trio's ``mock_clock`` (a ``MockClock`` that
stands still): nothing here sleeps. Not ``autojump_clock``: with a threshold of
0 trio's loop polls without blocking while SQLite works in its thread (some
100,000 loop turns and seconds per test instead of milliseconds). The engine's own clock is
a ``Clock`` the test moves by hand, so stored ``update_time`` values tell which
call wrote a row.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, cast

import pytest
import trio
import trio.lowlevel
import trio.testing

from peloton.api.private.hostmgrsvc import hostmgrsvc_pb2 as hpb
from peloton.api.private.resmgrsvc import resmgrsvc_pb2 as rpb
from peloton.api.v0.job import job_pb2
from peloton.api.v0.task import task_pb2
from peloton.api.v0.update import update_pb2
from peloton.core.errors import (
    Aborted,
    AlreadyExists,
    FailedPrecondition,
    PelotonError,
    Unavailable,
)
from peloton.core.ids import mesos_task_id
from peloton.core.states import JobState, TaskState
from peloton.jobmgr import engine as engine_module
from peloton.jobmgr.engine import (
    EVENTS_A_STEP,
    ROWS_A_STEP,
    Context,
    LaunchPlan,
    ShardEngine,
    add_gangs,
)
from peloton.jobmgr.enqueue import EXPRESS
from peloton.jobmgr.model import Job, Task
from peloton.jobmgr.update import Update as JobUpdate
from peloton.rpc import ServiceClient
from peloton.storage.gateway import JobRow, ShardWrite, TaskRow
from peloton.storage.sqlite import SQLiteStorage
from tests.steps import mark_steps

JOB = "0b5c7e1e-3f7a-4c8e-9d1a-2f6b8c9d0e1f"
SHARD, EPOCH, CLUSTER = 3, 1, "c1"
T = TaskState


def mid(instance: int, run: int = 1) -> str:
    return mesos_task_id(JOB, instance, run)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class RecordingStore(SQLiteStorage):
    """The real SQLite store (opened as ``open_sqlite`` opens it), noting each
    fenced write: (call, task rows, number of events)."""

    writes: list[tuple[str, list[TaskRow], int]]

    async def write_across(self, writes: Sequence[ShardWrite]) -> list[PelotonError | None]:
        self.writes += [("write", list(w.tasks), len(w.events)) for w in writes]
        return await super().write_across(writes)

    async def create_jobs_across(
            self, parts: Sequence[tuple[int, int, Sequence[tuple[JobRow, Sequence[TaskRow]]]]]
    ) -> list[list[PelotonError | None] | Aborted]:
        self.writes += [("create_jobs", [t for _, tasks in jobs for t in tasks], len(jobs))
                        for _, _, jobs in parts]
        return await super().create_jobs_across(parts)


class FakeResmgr:
    def __init__(self) -> None:
        self.requests: list[tuple[str, Any]] = []
        self.unavailable = False
        self.held: list[str] = []  # the runs GetActiveTasks answers (RUNNING there)
        self.launching: set[str] = set()  # those of them it holds LAUNCHING

    async def call(self, method: str, request: Any, **kw: Any) -> Any:
        self.requests.append((method, request))
        if method == "GetActiveTasks":
            if self.unavailable:
                raise Unavailable("resmgr has no leader")
            return rpb.GetActiveTasksResponse(tasks=[
                rpb.TaskStateUpdate(mesosTaskId=m, state=task_pb2.LAUNCHING if m in self.launching
                                    else task_pb2.RUNNING) for m in self.held])
        if method == "EnqueueGangs":
            if self.unavailable:
                raise Unavailable("resmgr has no leader")
            return rpb.EnqueueGangsResponse()
        assert method == "UpdateTasksState", method
        return rpb.UpdateTasksStateResponse()

    def enqueues(self) -> list[tuple[bool, list[list[str]]]]:
        """(requeue, gangs as lists of run ids) of every EnqueueGangs."""
        return [(r.requeue, [[t.mesosTaskId for t in g.tasks] for g in r.gangs])
                for m, r in self.requests if m == "EnqueueGangs"]

    def updates(self) -> list[tuple[str, T]]:
        return [(u.mesosTaskId, T(u.state)) for m, r in self.requests
                if m == "UpdateTasksState" for u in r.updates]


class FakeHostmgr:
    """Knows the runs in ``known`` (their latest state); refuses leases on ``refuse``
    hosts. A launch it accepts is not added to ``known``: each test says what it knows."""

    def __init__(self) -> None:
        self.known: dict[str, T] = {}
        self.refuse: set[str] = set()
        self.requests: list[tuple[str, Any]] = []
        self.batches: list[hpb.LaunchTasksBatchRequest] = []
        self.hold: trio.Event | None = None  # set: a launch waits for it
        self.launching = trio.Event()  # set when a LaunchTasksBatch arrives

    async def call(self, method: str, request: Any, **kw: Any) -> Any:
        self.requests.append((method, request))
        if method == "ReconcileTasks":
            reply = hpb.ReconcileTasksResponse()
            for m in request.mesosTaskIds:
                if m in self.known:
                    reply.events.add(mesosTaskId=m, state=int(self.known[m]), hostname="hA")
                else:
                    reply.unknown.append(m)
            return reply
        if method == "LaunchTasksBatch":
            self.batches.append(request)
            self.launching.set()
            if self.hold is not None:
                await self.hold.wait()
            reply = hpb.LaunchTasksBatchResponse()
            for launch in request.launches:
                self.requests.append(("LaunchTasks", launch))  # one host's launch
                outcome = reply.outcomes.add(leaseId=launch.leaseId)
                if launch.hostname in self.refuse:
                    outcome.code = FailedPrecondition.code
                    outcome.message = f"host lease {launch.leaseId} is unknown or expired"
            return reply
        assert method == "KillTasks", method
        return hpb.KillTasksResponse()

    def asked(self) -> list[list[str]]:
        return [list(r.mesosTaskIds) for m, r in self.requests if m == "ReconcileTasks"]

    def launches(self) -> dict[str, tuple[str, list[str], list[list[int]]]]:
        """hostname -> (lease, run ids, ports per task) of every LaunchTasks."""
        return {r.hostname: (r.leaseId, [t.mesosTaskId for t in r.tasks],
                             [list(t.ports) for t in r.tasks])
                for m, r in self.requests if m == "LaunchTasks"}


@dataclass
class Harness:
    engine: ShardEngine
    store: RecordingStore
    resmgr: FakeResmgr
    hostmgr: FakeHostmgr
    clock: Clock

    def context(self) -> Context:
        return self.engine.ctx

    async def stored(self, instance: int) -> tuple[T, int, str]:
        """(state, run, host) of the instance's stored row."""
        row = await self.store.get_task(JOB, instance)
        assert row is not None
        return T(row.state), row.run_id, task_pb2.RuntimeInfo.FromString(row.runtime).host

    def states(self) -> list[T]:
        return [t.state for t in self.engine.jobs[JOB].tasks]


@pytest.fixture
async def h(tmp_path: Path) -> AsyncIterator[Harness]:
    store = await RecordingStore.open(tmp_path / "peloton.db")
    assert isinstance(store, RecordingStore)
    store.writes = []
    resmgr, hostmgr, clock = FakeResmgr(), FakeHostmgr(), Clock()
    ctx = Context(storage=store, resmgr=cast(ServiceClient, resmgr),
                  hostmgr_for=lambda cluster: cast(ServiceClient, hostmgr),
                  hostmgrs=lambda: [(CLUSTER, cast(ServiceClient, hostmgr))], clock=clock)
    async with store:
        yield Harness(ShardEngine(ctx, SHARD, EPOCH, "jm-1"), store, resmgr, hostmgr, clock)


def config(n: int, *, gang: int = 0, max_failures: int = 0,
           kill_on_preempt: bool = False) -> job_pb2.JobConfig:
    return job_pb2.JobConfig(
        name="sleeper", type=job_pb2.BATCH, instanceCount=n,
        respoolID={"value": "pool-1"},
        sla=job_pb2.SlaConfig(minimumRunningInstances=gang, preemptible=True),
        defaultConfig=task_pb2.TaskConfig(
            resource=task_pb2.ResourceConfig(cpuLimit=1, memLimitMb=64),
            ports=[task_pb2.PortConfig(name="http")],
            restartPolicy=task_pb2.RestartPolicy(maxFailures=max_failures),
            preemptionPolicy=task_pb2.PreemptionPolicy(killOnPreempt=kill_on_preempt)))


async def new_job(h: Harness, n: int, **options: Any) -> Job:
    job = Job.new(JOB, SHARD, config(n, **options), h.clock.now)
    await h.engine.create(job)
    await h.engine.enqueue(job.tasks)
    return job


def placement(host: str, *instances: int, ports: Sequence[int] = ()) -> rpb.Placement:
    return rpb.Placement(hostname=host, agentId=f"agent-{host}", leaseId=f"lease-{host}",
                         cluster=CLUSTER, ports=ports,
                         tasks=[rpb.TaskRef(mesosTaskId=mid(i), shard=SHARD) for i in instances])


async def running(h: Harness, *instances: int) -> None:
    """Launch the instances on hA and report them RUNNING."""
    await h.engine.launch([placement("hA", *instances)])
    await h.engine.on_events([hpb.TaskEvent(mesosTaskId=mid(i), state=T.RUNNING.name,
                                            hostname="hA") for i in instances])


# -- create and enqueue ------------------------------------------------------------


@pytest.mark.parametrize(("gang", "gangs"), [
    (0, [[mid(0)], [mid(1)], [mid(2)]]),
    (2, [[mid(0), mid(1)], [mid(2)]]),
])
async def test_create_writes_pending_tasks_once_and_enqueue_sends_gangs(
        mock_clock: trio.testing.MockClock, h: Harness, gang: int,
        gangs: list[list[str]]) -> None:
    job = Job.new(JOB, SHARD, config(3, gang=gang), h.clock.now)
    await h.engine.create(job)
    assert [(call, [T(t.state) for t in tasks]) for call, tasks, _ in h.store.writes] == [
        ("create_jobs", [T.PENDING] * 3)]
    assert h.states() == [T.PENDING] * 3 and job.state == JobState.PENDING
    stored_job = await h.store.get_job(JOB)
    assert stored_job is not None and JobState(stored_job.state) == JobState.PENDING
    assert h.resmgr.requests == []  # the caller enqueues

    h.clock.now = 1005.0
    await h.engine.enqueue(job.tasks)
    assert h.resmgr.enqueues() == [(False, gangs)]
    (_, request), = h.resmgr.requests
    assert request.respoolID.value == "pool-1"
    assert [t.minInstances for g in request.gangs for t in g.tasks] == [max(1, gang)] * 3
    # Nothing changed (the tasks were written PENDING): nothing is written.
    assert h.store.writes[1:] == []
    for i in range(3):
        row = await h.store.get_task(JOB, i)
        assert row is not None and (T(row.state), row.update_time) == (T.PENDING, 1000.0)
        assert await h.store.task_events(JOB, i) == []


# -- reconcile ---------------------------------------------------------------------


async def test_full_reconcile_applies_the_events_of_known_runs(
        mock_clock: trio.testing.MockClock, h: Harness) -> None:
    job = await new_job(h, 2)
    await h.engine.launch([placement("hA", 0, 1)])
    h.hostmgr.known = {mid(0): T.RUNNING, mid(1): T.SUCCEEDED}
    await h.engine.reconcile(full=True)
    assert h.hostmgr.asked() == [[mid(0), mid(1)]]
    assert h.states() == [T.RUNNING, T.SUCCEEDED] and job.state == JobState.RUNNING
    assert [(await h.stored(i))[0] for i in range(2)] == [T.RUNNING, T.SUCCEEDED]
    assert h.resmgr.updates() == [(mid(0), T.RUNNING), (mid(1), T.SUCCEEDED)]


async def test_a_recovered_shard_reports_again_what_resmgr_missed_of_its_runs(
        autojump_clock: trio.testing.MockClock, h: Harness) -> None:
    """A jobmgr that dies between writing runs' ends and sending their
    reports takes the reports with it: the shard's next owner asks resmgr
    which runs it holds and reports the ended ones again."""
    other = "0b5c7e1e-3f7a-4c8e-9d1a-000000000000"  # a job the shard no longer has
    job = await new_job(h, 4, max_failures=1)
    await running(h, 0, 1, 2, 3)
    await h.engine.on_events([hpb.TaskEvent(mesosTaskId=mid(0), state=T.SUCCEEDED.name),
                              hpb.TaskEvent(mesosTaskId=mid(1), state=T.FAILED.name)])
    assert [(t.state, t.run) for t in job.tasks] == [
        (T.SUCCEEDED, 1), (T.PENDING, 2), (T.RUNNING, 1), (T.RUNNING, 1)]
    h.resmgr.held = [mid(0), mid(1), mid(1, 2), mid(2), mid(3), f"{other}-0-1", mid(9),
                     "not-a-run"]
    h.resmgr.launching = {mid(3)}  # its RUNNING report was lost too
    h.resmgr.unavailable = True  # at first: asked again until it answers
    h.resmgr.requests.clear()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(h.engine.serve_inbox)
        nursery.start_soon(h.engine.audit_resmgr)
        await trio.sleep(5)
        h.resmgr.unavailable = False
        await trio.sleep(5)
        nursery.cancel_scope.cancel()
    asked = [r for m, r in h.resmgr.requests if m == "GetActiveTasks"]
    assert len(asked) >= 2 and all(list(r.shards) == [SHARD] for r in asked)
    # Ended here (0), a later run started (1's first), no such job or
    # instance: reported; running here while LAUNCHING there (3): RUNNING;
    # the ones this shard runs or has placed as resmgr has them, not.
    assert sorted(h.resmgr.updates()) == sorted([
        (mid(0), T.SUCCEEDED), (mid(1), T.LOST), (mid(3), T.RUNNING),
        (f"{other}-0-1", T.LOST), (mid(9), T.LOST)])


async def test_a_running_run_placed_again_is_reported_running_not_launched(
        mock_clock: trio.testing.MockClock, h: Harness) -> None:
    """Resmgr that never had a run's RUNNING (the report died with a jobmgr)
    times its launch out and places it again: the run keeps running where
    it is, and resmgr is told it runs, or it would place it again every
    LAUNCHING_TIMEOUT for as long as it runs (for ever, for a service)."""
    job = await new_job(h, 2)
    await running(h, 0)
    launches = len(h.hostmgr.batches)
    h.resmgr.requests.clear()
    await h.engine.launch([placement("hB", 0)])
    assert len(h.hostmgr.batches) == launches  # nothing launched
    assert (job.tasks[0].state, job.tasks[0].host) == (T.RUNNING, "hA")
    assert h.resmgr.updates() == [(mid(0), T.RUNNING)]


async def test_full_reconcile_acts_on_runs_unknown_two_rounds_in_a_row(
        mock_clock: trio.testing.MockClock, h: Harness) -> None:
    # 0 LAUNCHING, 1 RUNNING (one retry allowed), 2 KILLING (goal KILLED).
    job = await new_job(h, 3, max_failures=1)
    await running(h, 1, 2)
    await h.engine.launch([placement("hB", 0)])
    await h.engine.kill([job.tasks[2]])
    assert h.states() == [T.LAUNCHING, T.RUNNING, T.KILLING]
    before = (len(h.resmgr.requests), len(h.store.writes))

    await h.engine.reconcile(full=True)  # unknown once: only marked
    assert h.hostmgr.asked() == [[mid(0), mid(1), mid(2)]]
    assert h.states() == [T.LAUNCHING, T.RUNNING, T.KILLING]
    assert (len(h.resmgr.requests), len(h.store.writes)) == before

    h.clock.now = 1010.0
    await h.engine.reconcile(full=True)
    t0, t1, t2 = job.tasks
    # LAUNCHING: the launch never happened; the same run is placed again.
    assert (t0.state, t0.run, t0.host) == (T.PENDING, 1, "")
    assert await h.stored(0) == (T.PENDING, 1, "")
    # RUNNING: LOST, and the restart policy starts run 2.
    assert (t1.state, t1.run, t1.failures) == (T.PENDING, 2, 1)
    assert await h.stored(1) == (T.PENDING, 2, "")
    events = [(e.run_id, T(e.state)) for e in await h.store.task_events(JOB, 1)]
    assert (1, T.LOST) in events
    # KILLING with goal KILLED: it is gone, so KILLED.
    assert t2.state == T.KILLED and (await h.stored(2))[0] == T.KILLED
    assert h.resmgr.enqueues()[-2:] == [(True, [[mid(0)]]), (False, [[mid(1, 2)]])]
    assert h.resmgr.updates()[-2:] == [(mid(1), T.LOST), (mid(2), T.KILLED)]


async def test_partial_reconcile_asks_only_in_transit_runs_and_keeps_marks(
        mock_clock: trio.testing.MockClock, h: Harness) -> None:
    job = await new_job(h, 3)  # no retries: a lost run stays LOST
    await running(h, 1, 2)
    await h.engine.launch([placement("hB", 0)])
    await h.engine.kill([job.tasks[2]])
    h.hostmgr.known = {mid(0): T.LAUNCHING, mid(2): T.KILLING}  # 1 is unknown

    await h.engine.reconcile(full=True)  # marks 1
    await h.engine.reconcile(full=False)
    assert h.hostmgr.asked() == [[mid(0), mid(1), mid(2)], [mid(0), mid(2)]]
    assert h.states() == [T.LAUNCHING, T.RUNNING, T.KILLING]

    await h.engine.reconcile(full=True)  # unknown again, mark kept: acted on now
    assert h.states() == [T.LAUNCHING, T.LOST, T.KILLING]
    assert (await h.stored(1))[0] == T.LOST
    assert h.resmgr.updates()[-1] == (mid(1), T.LOST)


async def test_a_reconcile_answer_older_than_an_event_does_not_undo_it(
        mock_clock: trio.testing.MockClock, h: Harness) -> None:
    """A round asks outside the writer and applies inside it: the local
    backend answered STARTING for a run still starting, its RUNNING event
    was applied meanwhile, and the answer then set the task back to
    STARTING until a full round (two minutes) asked again."""
    job = await new_job(h, 1)
    await h.engine.launch([placement("hA", 0)])
    h.hostmgr.known = {mid(0): T.STARTING}
    answer = await h.engine.ask_reconcile(full=False)
    await h.engine.on_events([hpb.TaskEvent(mesosTaskId=mid(0), state=T.RUNNING.name,
                                            hostname="hA")])
    await h.engine.apply_reconcile(*answer)
    assert job.tasks[0].state == T.RUNNING and (await h.stored(0))[0] == T.RUNNING


async def test_a_runs_start_and_end_in_one_batch_are_one_write_and_one_report(
        mock_clock: trio.testing.MockClock, h: Harness) -> None:
    """The host manager holds a start back a moment for its end
    (``EventStreams.wait_many``): a short run's two states then cost one
    write and resmgr one report (its end: it releases what the run held)."""
    job = await new_job(h, 2)
    await h.engine.launch([placement("hA", 0, 1)])
    h.resmgr.requests.clear()
    writes = len(h.store.writes)
    await h.engine.on_events([
        hpb.TaskEvent(mesosTaskId=mid(0), state=T.RUNNING.name, hostname="hA"),
        hpb.TaskEvent(mesosTaskId=mid(1), state=T.RUNNING.name, hostname="hA"),
        hpb.TaskEvent(mesosTaskId=mid(0), state=T.SUCCEEDED.name, hostname="hA")])
    assert h.states() == [T.SUCCEEDED, T.RUNNING] and job.tasks[0].state == T.SUCCEEDED
    assert len(h.store.writes) == writes + 1
    assert h.resmgr.updates() == [(mid(0), T.SUCCEEDED), (mid(1), T.RUNNING)]


# -- launch --------------------------------------------------------------------------


async def test_find_takes_only_a_known_jobs_runs_by_their_exact_id(h: Harness) -> None:
    job = await new_job(h, 2)
    assert h.engine.find(mid(1)) == (job.tasks[1], job)
    assert h.engine.find(mid(1, run=2)) == (None, job)  # not its current run
    assert h.engine.find(mid(2)) == (None, job)  # past its instances
    other = "0d8a7a2e-5c1f-4b8e-9f0e-2a4c6e8b0d13"
    for bad in (f"{other}-0-1", f"{JOB}-x-1", f"{JOB}-0-1x", f"{JOB}-0-", f"{JOB}--1",
                f"{JOB}-\u0661-1", f"{JOB}-+1-1", f"{JOB}-0", JOB, "", "-0-1"):
        assert h.engine.find(bad) == (None, None), bad


async def test_launch_sends_one_launch_per_placement(
        mock_clock: trio.testing.MockClock, h: Harness) -> None:
    job = await new_job(h, 3)
    await h.engine.launch([placement("hA", 0, ports=[31000]),
                           placement("hB", 1, 2, ports=[32000, 32001])])
    assert h.states() == [T.LAUNCHING] * 3
    assert [(t.host, t.lease, t.cluster, t.ports) for t in job.tasks] == [
        ("hA", "lease-hA", CLUSTER, {"http": 31000}),
        ("hB", "lease-hB", CLUSTER, {"http": 32000}),
        ("hB", "lease-hB", CLUSTER, {"http": 32001})]
    assert [await h.stored(i) for i in range(3)] == [
        (T.LAUNCHING, 1, "hA"), (T.LAUNCHING, 1, "hB"), (T.LAUNCHING, 1, "hB")]
    assert h.hostmgr.launches() == {
        "hA": ("lease-hA", [mid(0)], [[31000]]),
        "hB": ("lease-hB", [mid(1), mid(2)], [[32000], [32001]])}
    # The tasks share their job's config: the batch carries it once.
    [batch] = h.hostmgr.batches
    assert list(batch.configs) == [job.task_config(0)]
    assert [t.configIndex for launch in batch.launches for t in launch.tasks] == [1, 1, 1]
    assert not any(t.HasField("config") for launch in batch.launches for t in launch.tasks)
    # Placements are recorded in one write, before any launch.
    assert [T(t.state) for t in h.store.writes[-1][1]] == [T.LAUNCHING] * 3
    assert job.tasks[0].message == "launching on hA"
    # Running, a task says where it runs (unless the host manager said more).
    await h.engine.on_events([hpb.TaskEvent(mesosTaskId=mid(0), state=T.RUNNING.name,
                                            hostname="hA")])
    assert job.tasks[0].message == "running on hA"


async def test_refused_placement_is_placed_again_while_the_others_launch(
        mock_clock: trio.testing.MockClock, h: Harness) -> None:
    job = await new_job(h, 3)
    h.hostmgr.refuse = {"hB"}
    await h.engine.launch([placement("hA", 0), placement("hB", 1, 2)])
    assert set(h.hostmgr.launches()) == {"hA", "hB"}
    assert h.states() == [T.LAUNCHING, T.PENDING, T.PENDING]
    assert [await h.stored(i) for i in range(3)] == [
        (T.LAUNCHING, 1, "hA"), (T.PENDING, 1, ""), (T.PENDING, 1, "")]
    assert job.tasks[1].message.startswith("launch refused: host lease lease-hB")
    assert h.resmgr.enqueues()[-1] == (True, [[mid(1)], [mid(2)]])  # same runs


async def test_shards_launch_on_a_cluster_in_one_call_and_refusals_go_back_to_each(
        mock_clock: trio.testing.MockClock, h: Harness) -> None:
    """A jobmgr's shards send what they recorded together: one
    LaunchTasksBatch a cluster, each task with its own shard's epoch."""
    other_job, other_shard, other_epoch = "5e6f7a8b-0000-4000-8000-000000000001", SHARD + 1, 7
    other = ShardEngine(h.context(), other_shard, other_epoch, "jm-1")
    mine = await new_job(h, 2)
    theirs = Job.new(other_job, other_shard, config(1), h.clock.now)
    await other.create(theirs)
    h.hostmgr.refuse = {"hC"}
    theirs_placement = rpb.Placement(
        hostname="hC", agentId="agent-hC", leaseId="lease-hC", cluster=CLUSTER,
        tasks=[rpb.TaskRef(mesosTaskId=mesos_task_id(other_job, 0, 1), shard=other_shard)])
    plans = [(h.engine, await h.engine.record_launch([placement("hA", 0), placement("hB", 1)])),
             (other, await other.record_launch([theirs_placement]))]
    refused = await engine_module.send_launches(h.context(), plans)
    [batch] = h.hostmgr.batches
    assert [(launch.hostname, [(t.shard, t.epoch) for t in launch.tasks])
            for launch in batch.launches] == [
        ("hA", [(SHARD, EPOCH)]), ("hB", [(SHARD, EPOCH)]), ("hC", [(other_shard, other_epoch)])]
    assert len(batch.configs) == 1  # the two jobs' configs are equal: carried once
    assert [(e, [t.instance for t in tasks]) for e, tasks, _ in refused] == [(other, [0])]
    assert [t.state for t in mine.tasks] == [T.LAUNCHING, T.LAUNCHING]


async def test_shards_placed_on_one_lease_launch_as_one_and_a_refusal_goes_back_to_each(
        mock_clock: trio.testing.MockClock, h: Harness) -> None:
    """A host's placement comes to each shard's owner in parts (one a
    shard): the parts of one lease go as one launch, each task with its own
    shard's epoch, and that launch's refusal sends every part's tasks back
    to its own shard to be placed again."""
    other_job, other_shard, other_epoch = "5e6f7a8b-0000-4000-8000-000000000001", SHARD + 1, 7
    other = ShardEngine(h.context(), other_shard, other_epoch, "jm-1")
    mine = await new_job(h, 3)
    theirs = Job.new(other_job, other_shard, config(1), h.clock.now)
    await other.create(theirs)
    theirs_on_hA = rpb.Placement(
        hostname="hA", agentId="agent-hA", leaseId="lease-hA", cluster=CLUSTER,
        tasks=[rpb.TaskRef(mesosTaskId=mesos_task_id(other_job, 0, 1), shard=other_shard)])
    plans = [(h.engine, await h.engine.record_launch([placement("hA", 0, 2), placement("hB", 1)])),
             (other, await other.record_launch([theirs_on_hA]))]
    await engine_module.send_launches(h.context(), plans)
    [batch] = h.hostmgr.batches
    assert [(launch.leaseId, [(t.mesosTaskId, t.shard, t.epoch) for t in launch.tasks])
            for launch in batch.launches] == [
        ("lease-hA", [(mid(0), SHARD, EPOCH), (mid(2), SHARD, EPOCH),
                      (mesos_task_id(other_job, 0, 1), other_shard, other_epoch)]),
        ("lease-hB", [(mid(1), SHARD, EPOCH)])]

    # Refused, the lease's launch sends both shards' tasks back; hB's stands.
    h.hostmgr.batches.clear()
    h.hostmgr.refuse = {"hA"}
    refused = await engine_module.send_launches(h.context(), plans)
    assert len(h.hostmgr.batches) == 1
    assert sorted((e.shard, [t.instance for t in tasks]) for e, tasks, _ in refused) == [
        (SHARD, [0, 2]), (other_shard, [0])]
    assert all(why.startswith("host lease lease-hA") for _, _, why in refused)
    assert [t.state for t in mine.tasks] == [T.LAUNCHING] * 3


async def test_failed_requeue_after_a_refusal_does_not_stop_the_batch(
        mock_clock: trio.testing.MockClock, h: Harness, tmp_path: Path) -> None:
    await new_job(h, 3)
    h.hostmgr.refuse = {"hB"}
    h.resmgr.unavailable = True
    await h.engine.launch([placement("hA", 0), placement("hB", 1, 2)])  # does not raise
    assert set(h.hostmgr.launches()) == {"hA", "hB"}
    assert h.resmgr.enqueues()[-1] == (True, [[mid(1)], [mid(2)]])  # tried, failed
    assert h.states() == [T.LAUNCHING, T.PENDING, T.PENDING]
    # Stored PENDING (not LAUNCHING): the next owner requeues them.
    assert [(await h.stored(i))[0] for i in range(3)] == [T.LAUNCHING, T.PENDING, T.PENDING]

    h.resmgr.unavailable, h.hostmgr.known = False, {mid(0): T.LAUNCHING}
    nxt = ShardEngine(h.context(), SHARD, EPOCH + 1, "jm-2")
    await nxt.recover()
    assert h.resmgr.enqueues()[-1] == (True, [[mid(1)], [mid(2)]])
    assert [t.state for t in nxt.jobs[JOB].tasks] == [T.LAUNCHING, T.PENDING, T.PENDING]


async def test_recovery_lets_other_tasks_run_between_jobs(h: Harness) -> None:
    """A new owner's recovery yields after each job it builds and resumes,
    so its heartbeats go on while it loads a large shard (one step for the
    whole shard held a busy owner's loop past its lease)."""
    jobs = [f"0b5c7e1e-3f7a-4c8e-9d1a-2f6b8c9d0e{i:02x}" for i in range(20)]
    for job_id in jobs:
        job = Job.new(job_id, SHARD, config(2), h.clock.now)
        await h.engine.create(job)
    nxt = ShardEngine(h.context(), SHARD, EPOCH + 1, "jm-2")
    seen: set[int] = set()  # how many jobs were built when the other task ran
    async with trio.open_nursery() as nursery:

        async def heartbeat() -> None:
            while True:
                seen.add(len(nxt.jobs))
                await trio.lowlevel.checkpoint()

        nursery.start_soon(heartbeat)
        await nxt.recover()
        nursery.cancel_scope.cancel()
    assert sorted(nxt.jobs) == sorted(jobs)
    # It ran while the shard was half built, again and again (trio may run
    # either task first in a round, so it can see a count twice).
    assert len([n for n in seen if 0 < n < len(jobs)]) >= len(jobs) // 4


async def test_a_large_batch_of_events_lets_other_tasks_run(h: Harness) -> None:
    """A full reconcile's answer (every run of the shard) is applied in
    steps of EVENTS_A_STEP events, so the lease's heartbeats go on."""
    n = 3 * EVENTS_A_STEP
    await new_job(h, n)
    await h.engine.launch([placement("hA", *range(n))])
    seen: set[int] = set()  # how many were RUNNING when the other task ran
    async with trio.open_nursery() as nursery:

        async def heartbeat() -> None:
            while True:
                seen.add(h.states().count(T.RUNNING))
                await trio.lowlevel.checkpoint()

        nursery.start_soon(heartbeat)
        await h.engine.on_events([hpb.TaskEvent(mesosTaskId=mid(i), state=T.RUNNING.name,
                                                hostname="hA") for i in range(n)])
        nursery.cancel_scope.cancel()
    assert h.states() == [T.RUNNING] * n
    # It ran while the batch was half applied (trio may run either task
    # first in a round, so not at every step).
    assert {k for k in seen if 0 < k < n} <= {EVENTS_A_STEP - 1, 2 * EVENTS_A_STEP - 1,
                                              3 * EVENTS_A_STEP - 1}
    assert any(0 < k < n for k in seen)


# -- reports that must not undo what the engine is doing -------------------------------


async def test_a_running_report_does_not_undo_a_kill_in_progress(
        mock_clock: trio.testing.MockClock, h: Harness) -> None:
    job = await new_job(h, 1)
    await running(h, 0)
    await h.engine.kill(job.tasks)
    h.hostmgr.known = {mid(0): T.RUNNING}  # still in its kill grace period
    await h.engine.reconcile(full=False)
    assert h.states() == [T.KILLING]


async def test_a_relaunched_run_is_not_requeued_after_one_unknown_round(
        mock_clock: trio.testing.MockClock, h: Harness) -> None:
    await new_job(h, 1)
    h.hostmgr.refuse = {"hA"}
    for host in ("hA", "hB"):  # the same run: refused on hA, accepted on hB
        h.hostmgr.hold, h.hostmgr.launching = trio.Event(), trio.Event()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(h.engine.launch, [placement(host, 0)])
            await h.hostmgr.launching.wait()
            await h.engine.reconcile(full=False)  # the launch is in flight: unknown
            h.hostmgr.hold.set()
    # The hB launch was unknown in one round only; the mark came from the hA one.
    assert h.states() == [T.LAUNCHING]
    assert [requeue for requeue, _ in h.resmgr.enqueues()] == [False, True]


# -- preemption ------------------------------------------------------------------------

WHY = "pool /p uses more than its entitlement: cpu 2 > 1"
KILLED_EVENT = "Killed on request: Command terminated by signal 15 (SIGTERM)"


def killed(*instances: int, run: int = 1) -> list[hpb.TaskEvent]:
    return [hpb.TaskEvent(mesosTaskId=mid(i, run), state=T.KILLED.name, message=KILLED_EVENT,
                          exitCode=-15) for i in instances]


def kills(h: Harness) -> list[list[str]]:
    return [list(r.mesosTaskIds) for m, r in h.hostmgr.requests if m == "KillTasks"]


async def test_a_preempted_run_is_killed_then_runs_again_without_using_a_retry(
        mock_clock: trio.testing.MockClock, h: Harness) -> None:
    job = await new_job(h, 2)  # maxFailures 0: a failure would end it
    await running(h, 0, 1)
    await h.engine.preempt([(mid(0), WHY)])
    t0 = job.tasks[0]
    assert h.states() == [T.PREEMPTING, T.RUNNING]
    assert (t0.message, t0.preempted) == (f"preempted: {WHY}", True)
    assert await h.stored(0) == (T.PREEMPTING, 1, "hA")  # written before the kill
    assert kills(h) == [[mid(0)]]

    await h.engine.on_events(killed(0))
    assert (t0.state, t0.run, t0.failures, t0.preempted) == (T.PENDING, 2, 0, False)
    assert t0.message == f"waiting for admission and placement (run 1 preempted: {WHY})"
    assert h.resmgr.updates()[-1] == (mid(0), T.KILLED)  # its allocation is released
    assert h.resmgr.enqueues()[-1] == (False, [[mid(0, 2)]])
    run1 = [(T(e.state), e.message) for e in await h.store.task_events(JOB, 0) if e.run_id == 1]
    assert (T.PREEMPTING, f"preempted: {WHY}") in run1
    assert (T.KILLED, f"preempted: {WHY}; {KILLED_EVENT}") in run1
    assert job.state == JobState.RUNNING


async def test_kill_on_preempt_ends_the_task_killed(
        mock_clock: trio.testing.MockClock, h: Harness) -> None:
    job = await new_job(h, 1, kill_on_preempt=True)
    await running(h, 0)
    await h.engine.preempt([(mid(0), WHY)])
    t0 = job.tasks[0]
    assert (t0.state, t0.goal) == (T.PREEMPTING, T.KILLED)
    await h.engine.on_events(killed(0))
    assert (t0.state, t0.run, t0.goal) == (T.KILLED, 1, T.KILLED)
    reason = task_pb2.TerminationStatus.TERMINATION_STATUS_REASON_PREEMPTED_RESOURCES
    assert t0.runtime().terminationStatus.reason == reason
    assert t0.message.startswith("preempted: ")
    assert job.state == JobState.KILLED
    assert [requeue for requeue, _ in h.resmgr.enqueues()] == [False]  # never again
    # The stored row says so too (a new owner reads it).
    row = await h.store.get_task(JOB, 0)
    assert row is not None
    assert task_pb2.RuntimeInfo.FromString(row.runtime).terminationStatus.reason == reason


async def test_preempt_is_safe_to_repeat_and_leaves_other_runs_alone(
        mock_clock: trio.testing.MockClock, h: Harness) -> None:
    job = await new_job(h, 4)
    await running(h, 0, 1, 2)
    await h.engine.kill([job.tasks[2]])  # being stopped by its user
    writes = len(h.store.writes)
    await h.engine.preempt([(mid(0), WHY), (mid(1, run=7), WHY), (mid(2), WHY), (mid(3), WHY),
                            ("not-a-run", WHY)])
    assert h.states() == [T.PREEMPTING, T.RUNNING, T.KILLING, T.PENDING]
    assert len(h.store.writes) == writes + 1
    # Handed out again (resmgr's at-least-once): killed again, nothing written.
    await h.engine.preempt([(mid(0), WHY)])
    assert len(h.store.writes) == writes + 1
    assert kills(h)[-2:] == [[mid(0)], [mid(0)]]
    # Its end, reported twice, starts one new run.
    await h.engine.on_events(killed(0))
    await h.engine.on_events(killed(0))
    assert (job.tasks[0].run, h.resmgr.enqueues()[-1]) == (2, (False, [[mid(0, 2)]]))
    assert [requeue for requeue, _ in h.resmgr.enqueues()] == [False, False]


async def test_a_running_report_does_not_undo_a_preemption(
        mock_clock: trio.testing.MockClock, h: Harness) -> None:
    await new_job(h, 1)
    await running(h, 0)
    await h.engine.preempt([(mid(0), WHY)])
    h.hostmgr.known = {mid(0): T.RUNNING}  # in its grace period
    await h.engine.reconcile(full=False)
    assert h.hostmgr.asked()[-1] == [mid(0)]  # watched as in transit
    assert h.states() == [T.PREEMPTING]


async def test_a_preempted_run_gone_from_its_host_runs_again(
        mock_clock: trio.testing.MockClock, h: Harness) -> None:
    job = await new_job(h, 1)
    await running(h, 0)
    await h.engine.preempt([(mid(0), WHY)])
    await h.engine.reconcile(full=False)
    await h.engine.reconcile(full=False)  # unknown twice: it is gone
    assert (job.tasks[0].state, job.tasks[0].run, job.tasks[0].failures) == (T.PENDING, 2, 0)


async def test_a_stop_overrides_a_preemption(
        mock_clock: trio.testing.MockClock, h: Harness) -> None:
    job = await new_job(h, 1)
    await running(h, 0)
    await h.engine.preempt([(mid(0), WHY)])
    await h.engine.kill(job.tasks)
    await h.engine.on_events(killed(0))
    t0 = job.tasks[0]
    assert (t0.state, t0.run, t0.preempted) == (T.KILLED, 1, False)
    assert t0.runtime().terminationStatus.reason == (
        task_pb2.TerminationStatus.TERMINATION_STATUS_REASON_KILLED_ON_REQUEST)


async def test_a_new_owner_finishes_a_preemption(
        mock_clock: trio.testing.MockClock, h: Harness) -> None:
    """The owner wrote PREEMPTING and died, maybe before its kill went out."""
    await new_job(h, 2, kill_on_preempt=False)
    await running(h, 0, 1)
    await h.engine.preempt([(mid(0), WHY)])
    h.hostmgr.known = {mid(0): T.RUNNING, mid(1): T.RUNNING}
    nxt = ShardEngine(h.context(), SHARD, EPOCH + 1, "jm-2")
    await nxt.recover()
    assert [t.state for t in nxt.jobs[JOB].tasks] == [T.PREEMPTING, T.RUNNING]
    assert nxt.jobs[JOB].tasks[0].preempted
    assert kills(h)[-1] == [mid(0)]  # killed again
    await nxt.on_events(killed(0))
    t0 = nxt.jobs[JOB].tasks[0]
    assert (t0.state, t0.run, t0.failures) == (T.PENDING, 2, 0)


async def test_max_running_time(h: Harness, mock_clock: trio.testing.MockClock) -> None:
    """sla.maxRunningTime: a run that has run that long is killed and ends
    FAILED with Peloton's DEADLINE_TIMEOUT_EXCEEDED, without a retry."""
    cfg = config(2, max_failures=3)
    cfg.sla.maxRunningTime = 5
    job = Job.new(JOB, SHARD, cfg, h.clock.now)
    await h.engine.create(job)
    await h.engine.enqueue(job.tasks)
    await running(h, 0)
    h.clock.now += 4.9
    await running(h, 1)
    await h.engine.run_timers()
    assert kills(h) == []
    h.clock.now += 0.1  # instance 0 has run 5 s
    await h.engine.run_timers()
    assert kills(h) == [[mid(0)]]
    assert h.states() == [T.KILLING, T.RUNNING]
    await h.engine.on_events(killed(0))
    task = h.engine.jobs[JOB].tasks[0]
    assert (task.state, task.run) == (T.FAILED, 1)  # not retried, though maxFailures is 3
    rt = task.runtime()
    assert rt.terminationStatus.reason == (
        task_pb2.TerminationStatus.TERMINATION_STATUS_REASON_DEADLINE_TIMEOUT_EXCEEDED)
    assert rt.message.startswith("ran longer than the job's maxRunningTime of 5 s; killed")
    h.clock.now += 100
    await h.engine.run_timers()
    assert kills(h) == [[mid(0)], [mid(1)]]


async def test_an_ended_batch_job_is_let_go_an_ended_service_is_kept(
        h: Harness, mock_clock: trio.testing.MockClock) -> None:
    """Each timer round lets go of the batch jobs that ended (storage has
    them, and a new owner loads active jobs only): a shard that ran a
    hundred thousand small jobs does not hold and scan them all. A
    stopped service stays: it may be started again in place."""
    await new_job(h, 2)
    await running(h, 0, 1)
    await h.engine.on_events(ended(0, T.SUCCEEDED))
    await h.engine.run_timers()
    assert JOB in h.engine.jobs  # one instance still runs
    await h.engine.on_events(ended(1, T.SUCCEEDED))
    assert h.engine.jobs[JOB].state == JobState.SUCCEEDED
    await h.engine.run_timers()
    assert JOB not in h.engine.jobs
    row = await h.store.get_job(JOB)
    assert row is not None and job_pb2.RuntimeInfo.FromString(row.runtime).state == \
        job_pb2.SUCCEEDED
    # A late repeat of an event of it finds no job, and changes nothing.
    await h.engine.on_events(ended(1, T.SUCCEEDED))
    assert await h.stored(1) == (T.SUCCEEDED, 1, "hA")
    # Held again from storage (as a handler does to act on an ended job)
    # and left unchanged: let go at the next round too.
    h.engine.jobs[JOB] = Job.from_rows(row, [r for r in (await h.store.list_tasks(JOB))[0]])
    await h.engine.run_timers()
    assert JOB not in h.engine.jobs

    other = "6c8d3b63-2e8f-4b5a-8b64-4a2e3f7d1c22"
    svc = Job.new(other, SHARD, service(1), h.clock.now)
    await h.engine.create(svc)
    svc.goal = JobState.KILLED
    await h.engine.kill(svc.tasks)
    assert svc.state == JobState.KILLED
    await h.engine.run_timers()
    assert other in h.engine.jobs


async def test_maximum_running_instances(h: Harness, mock_clock: trio.testing.MockClock) -> None:
    """sla.maximumRunningInstances: never more than N instances scheduled at
    once; the others wait INITIALIZED and start, lowest first, as runs end."""
    cfg = config(4, max_failures=1)
    cfg.sla.maximumRunningInstances = 2
    job = Job.new(JOB, SHARD, cfg, h.clock.now)
    await h.engine.create(job)
    await h.engine.enqueue(job.tasks)
    assert h.resmgr.enqueues() == [(False, [[mid(0)], [mid(1)]])]
    assert h.states() == [T.PENDING, T.PENDING, T.INITIALIZED, T.INITIALIZED]
    assert job.tasks[2].message == ("waiting for room: at most 2 instances of this job run at "
                                    "once (sla.maximumRunningInstances)")
    assert (await h.stored(3))[0] == T.INITIALIZED  # a new owner would not start it either
    await running(h, 0, 1)
    await h.engine.on_events([hpb.TaskEvent(mesosTaskId=mid(0), state=T.SUCCEEDED.name)])
    assert h.resmgr.enqueues()[-1] == (False, [[mid(2)]])
    assert h.states() == [T.SUCCEEDED, T.RUNNING, T.PENDING, T.INITIALIZED]
    # A retry keeps its place: it was scheduled, it stays within the limit.
    await h.engine.on_events([hpb.TaskEvent(mesosTaskId=mid(1), state=T.FAILED.name)])
    assert h.resmgr.enqueues()[-1] == (False, [[mid(1, 2)]])
    assert h.states() == [T.SUCCEEDED, T.PENDING, T.PENDING, T.INITIALIZED]


async def test_restart_policy_per_instance(h: Harness, mock_clock: trio.testing.MockClock) -> None:
    """An instanceConfig's restartPolicy overrides the default's for that instance."""
    cfg = config(2, max_failures=0)
    cfg.instanceConfig[1].restartPolicy.maxFailures = 2
    job = Job.new(JOB, SHARD, cfg, h.clock.now)
    await h.engine.create(job)
    await h.engine.enqueue(job.tasks)
    await running(h, 0, 1)
    await h.engine.on_events([hpb.TaskEvent(mesosTaskId=mid(0), state=T.FAILED.name),
                              hpb.TaskEvent(mesosTaskId=mid(1), state=T.FAILED.name)])
    t0, t1 = h.engine.jobs[JOB].tasks
    assert (t0.state, t0.run) == (T.FAILED, 1)  # the default: no retry
    assert (t1.state, t1.run, t1.failures) == (T.PENDING, 2, 1)  # its own: retried


async def test_the_shards_writer_runs_one_input_at_a_time_in_order(
        h: Harness, mock_clock: trio.testing.MockClock) -> None:
    """submit() hands work to serve_inbox: never two at once, in arrival
    order, errors back to their sender, and Unavailable once it stops."""
    mock_clock.autojump_threshold = 0  # no SQLite here: let the sleeps jump
    running_now = 0
    order: list[int] = []

    async def work(i: int) -> int:
        nonlocal running_now
        running_now += 1
        assert running_now == 1  # never interleaved, though each one awaits
        await trio.sleep(1)
        order.append(i)
        running_now -= 1
        if i == 3:
            raise FailedPrecondition("three")
        return i * 10

    results: dict[int, object] = {}

    async def send(i: int) -> None:
        try:
            results[i] = await h.engine.submit(work, i)
        except FailedPrecondition as error:
            results[i] = error.message

    async with trio.open_nursery() as nursery:
        nursery.start_soon(h.engine.serve_inbox)
        async with trio.open_nursery() as senders:
            for i in range(5):
                senders.start_soon(send, i)
                await trio.lowlevel.checkpoint()  # arrive in this order
        assert order == [0, 1, 2, 3, 4]
        assert results == {0: 0, 1: 10, 2: 20, 3: "three", 4: 40}
        nursery.start_soon(send, 5)
        await trio.sleep(0.5)  # 5 is running
        nursery.start_soon(send, 6)  # 6 waits in the inbox
        await trio.lowlevel.checkpoint()
        nursery.cancel_scope.cancel()  # the shard moves away
    with pytest.raises(Unavailable):
        await h.engine.submit(work, 7)


async def test_urgent_work_runs_ahead_of_the_inbox_and_wakes_an_idle_writer(
        h: Harness, mock_clock: trio.testing.MockClock) -> None:
    """submit(urgent=True) (a small job's launch) runs next, before work that
    waits in the inbox, still one at a time; it also wakes a writer that
    waits on an empty inbox, and is refused once the writer stopped."""
    mock_clock.autojump_threshold = 0
    order: list[str] = []

    async def work(name: str) -> str:
        await trio.sleep(1)
        order.append(name)
        return name

    async with trio.open_nursery() as nursery:
        nursery.start_soon(h.engine.serve_inbox)
        await trio.testing.wait_all_tasks_blocked()  # idle: waits on the inbox
        assert await h.engine.submit(work, "alone", urgent=True) == "alone"
        async with trio.open_nursery() as senders:
            for name in ("a", "b", "c"):
                senders.start_soon(h.engine.submit, work, name)
                await trio.lowlevel.checkpoint()  # arrive in this order
            await trio.sleep(0.5)  # "a" runs; "b" and "c" wait in the inbox
            senders.start_soon(partial(h.engine.submit, work, "urgent", urgent=True))
        assert order == ["alone", "a", "urgent", "b", "c"]
        nursery.cancel_scope.cancel()
    with pytest.raises(Unavailable):
        await h.engine.submit(work, "late", urgent=True)


async def test_small_jobs_events_are_told_apart_in_their_order(h: Harness) -> None:
    """A batch of events splits into those of small jobs (which the event
    consumer sends as urgent work, like their creates and launches) and the
    rest, each part in the batch's order, a job's events all in one part;
    events of unknown jobs go with the rest."""
    big = await new_job(h, 5)
    small = Job.new("6c1d8e2f-4a5b-4c6d-8e9f-0a1b2c3d4e5f", SHARD, config(2), h.clock.now)
    await h.engine.create(small)

    def event(job: Job, instance: int) -> hpb.TaskEvent:
        return hpb.TaskEvent(mesosTaskId=mesos_task_id(job.id, instance, 1),
                             state=T.RUNNING.name)

    events = [event(big, 0), event(small, 1), event(big, 3), event(small, 0),
              hpb.TaskEvent(mesosTaskId=mesos_task_id(small.id, 7, 1), state=T.RUNNING.name),
              hpb.TaskEvent(mesosTaskId=mesos_task_id(JOB[::-1], 0, 1), state=T.RUNNING.name)]
    urgent, rest = h.engine.by_lane(events, 2)
    assert urgent == [events[1], events[3], events[4]]
    assert rest == [events[0], events[2], events[5]]
    assert h.engine.by_lane(events, 5) == (events[:5], events[5:])


@pytest.mark.parametrize("urgent", [False, True])
async def test_creates_waiting_together_are_written_together(
        h: Harness, mock_clock: trio.testing.MockClock, urgent: bool) -> None:
    """Creates queued one after another run as one storage write (small
    jobs' urgent creates with each other); a create sent again (same id and
    config) answers False, another config with a taken id AlreadyExists,
    and other work still runs in order."""
    ids = [f"0b5c7e1e-3f7a-4c8e-9d1a-2f6b8c9d0e{i:02x}" for i in range(5)]
    results: dict[str, object] = {}
    ran: list[str] = []

    async def create(key: str, job_id: str, cfg: job_pb2.JobConfig) -> None:
        try:
            results[key] = await h.engine.submit(
                h.engine.create, Job.new(job_id, SHARD, cfg, h.clock.now), urgent=urgent)
        except AlreadyExists as error:
            results[key] = error.message

    async def other() -> None:
        ran.append(f"after {len(h.engine.jobs)} jobs")

    async with trio.open_nursery() as nursery:
        async with trio.open_nursery() as senders:
            for i, job_id in enumerate(ids):
                senders.start_soon(create, f"job{i}", job_id, config(1))
                await trio.lowlevel.checkpoint()  # arrive in this order
            senders.start_soon(create, "again", ids[0], config(1))
            await trio.lowlevel.checkpoint()
            senders.start_soon(create, "taken", ids[1], config(2))
            await trio.lowlevel.checkpoint()
            senders.start_soon(h.engine.submit, other)
            await trio.testing.wait_all_tasks_blocked()
            nursery.start_soon(h.engine.serve_inbox)  # all seven wait in the inbox
        nursery.cancel_scope.cancel()
    assert results == {**{f"job{i}": True for i in range(5)}, "again": False,
                       "taken": f"job {ids[1]} already exists with another config"}
    assert [(call, len(tasks), n) for call, tasks, n in h.store.writes] == [
        ("create_jobs", 5, 5)]
    assert ran == ["after 5 jobs"]
    assert [j.job_id for j in await h.store.get_jobs(ids)] == ids


class GatedStore(RecordingStore):
    """Notes the shards of each ``create_jobs_across`` call (and of each
    ``write_across`` in ``written``); while ``gate`` is set, a create
    waits for it before it writes."""

    across: list[list[int]]
    written: list[list[int]]
    gate: trio.Event | None

    async def write_across(self, writes: Sequence[ShardWrite]) -> list[PelotonError | None]:
        self.written.append([w.shard for w in writes])
        return await super().write_across(writes)

    async def create_jobs_across(
            self, parts: Sequence[tuple[int, int, Sequence[tuple[JobRow, Sequence[TaskRow]]]]]
    ) -> list[list[PelotonError | None] | Aborted]:
        self.across.append([shard for shard, _, _ in parts])
        if self.gate is not None:
            await self.gate.wait()
        return await super().create_jobs_across(parts)


@dataclass
class Peers:
    """Three shards' engines of one jobmgr (shards 3, 4, 5), sharing a
    Context as the jobmgr's do; each writer runs in a cancel scope of
    its own."""

    engines: list[ShardEngine]
    store: GatedStore
    scopes: dict[int, trio.CancelScope]

    async def create(self, engine: ShardEngine, n: int, out: dict[int, object]) -> None:
        """A small job's create in ``engine``'s shard (urgent, as
        ``create_on`` sends it); its answer, or error, in ``out``."""
        job = Job.new(peer_job(engine.shard, n), engine.shard, config(1), 1000.0)
        try:
            out[engine.shard * 10 + n] = await engine.submit(engine.create, job, urgent=True)
        except PelotonError as error:
            out[engine.shard * 10 + n] = error

    async def serve(self, engine: ShardEngine) -> None:
        with self.scopes.setdefault(engine.shard, trio.CancelScope()):
            await engine.serve_inbox()

    @contextlib.asynccontextmanager
    async def serving(self, count: int = 3) -> AsyncIterator[list[ShardEngine]]:
        """The first ``count`` engines' writers, running and idle."""
        engines = self.engines[:count]
        async with trio.open_nursery() as nursery:
            for engine in engines:
                nursery.start_soon(self.serve, engine)
            await trio.testing.wait_all_tasks_blocked()
            yield engines
            nursery.cancel_scope.cancel()

    def creates(self, senders: trio.Nursery, engines: Sequence[ShardEngine],
                out: dict[int, object], n: int = 0) -> None:
        for engine in engines:
            senders.start_soon(self.create, engine, n, out)


def peer_job(shard: int, n: int = 0) -> str:
    return f"0b5c7e1e-3f7a-4c8e-9d1a-2f6b8c9d0{shard:02x}{n}"


@pytest.fixture
async def peers(tmp_path: Path) -> AsyncIterator[Peers]:
    store = await GatedStore.open(tmp_path / "peloton.db")
    assert isinstance(store, GatedStore)
    store.writes, store.across, store.written, store.gate = [], [], [], None
    resmgr, hostmgr = FakeResmgr(), FakeHostmgr()
    engines: dict[int, ShardEngine] = {}
    ctx = Context(storage=store, resmgr=cast(ServiceClient, resmgr),
                  hostmgr_for=lambda cluster: cast(ServiceClient, hostmgr),
                  hostmgrs=lambda: [(CLUSTER, cast(ServiceClient, hostmgr))], clock=Clock(),
                  engines=engines)
    for shard in (3, 4, 5):
        engines[shard] = ShardEngine(ctx, shard, EPOCH, "jm-1")
    async with store:
        yield Peers(list(engines.values()), store, {})


async def test_idle_writers_creates_are_written_by_one_writer_in_one_write(
        peers: Peers, mock_clock: trio.testing.MockClock) -> None:
    """Small jobs' creates given to several idle writers of one jobmgr: the
    first writer woken takes the others' with its own (one turn, one
    write for the three shards); each job is its own shard's."""
    out: dict[int, object] = {}
    async with peers.serving() as engines, trio.open_nursery() as senders:
        for n in range(2):
            peers.creates(senders, engines, out, n)
    assert out == {shard * 10 + n: True for shard in (3, 4, 5) for n in range(2)}
    assert [sorted(shards) for shards in peers.store.across] == [[3, 4, 5]]
    for engine in peers.engines:
        assert sorted(engine.jobs) == [peer_job(engine.shard, n) for n in range(2)]
    rows = await peers.store.get_jobs([peer_job(s, n) for s in (3, 4, 5) for n in range(2)])
    assert [(r.job_id, r.shard) for r in rows] == [
        (peer_job(s, n), s) for s in (3, 4, 5) for n in range(2)]


async def test_creates_beyond_a_groups_size_go_to_their_own_writers(
        peers: Peers, mock_clock: trio.testing.MockClock,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A group at ACROSS_ROWS takes no more: the other idle
    writers' creates (not woken: the first writer was) are woken to be
    written by their own writers."""
    monkeypatch.setattr(engine_module, "ACROSS_ROWS", 1)
    out: dict[int, object] = {}
    async with peers.serving() as engines, trio.open_nursery() as senders:
        peers.creates(senders, engines, out)
    assert out == {30: True, 40: True, 50: True}
    assert sorted(peers.store.across) == [[3], [4], [5]]


async def test_a_lent_shards_writer_waits_until_its_creates_are_written(
        peers: Peers, mock_clock: trio.testing.MockClock) -> None:
    """A shard whose creates another writer took runs nothing else until
    they are written: work sent to it meanwhile finds their jobs."""
    peers.store.gate = gate = trio.Event()
    out: dict[int, object] = {}
    seen: list[tuple[int, bool]] = []

    async def look(engine: ShardEngine) -> None:
        seen.append((engine.shard, peer_job(engine.shard) in engine.jobs))

    async with peers.serving(2) as engines, trio.open_nursery() as senders:
        peers.creates(senders, engines, out)
        await trio.testing.wait_all_tasks_blocked()
        [shards] = peers.store.across  # one writer took both, and waits
        lent = peers.engines[[3, 4, 5].index(shards[1])]
        senders.start_soon(lent.submit, look, lent)
        await trio.testing.wait_all_tasks_blocked()
        assert seen == []  # its writer waits
        gate.set()
    assert out == {30: True, 40: True}
    assert seen == [(lent.shard, True)]


async def test_a_busy_writers_creates_stay_its_own(
        peers: Peers, mock_clock: trio.testing.MockClock) -> None:
    """A writer in the middle of other work keeps its creates: it writes
    them in its next turn, not another writer's."""
    release = trio.Event()
    out: dict[int, object] = {}
    async with peers.serving(2) as (a, b), trio.open_nursery() as senders:
        senders.start_soon(b.submit, release.wait)
        await trio.testing.wait_all_tasks_blocked()
        peers.creates(senders, (b, a), out)
        await trio.testing.wait_all_tasks_blocked()
        assert out == {30: True} and peers.store.across == [[3]]
        release.set()
    assert out == {30: True, 40: True} and peers.store.across == [[3], [4]]


async def test_a_fenced_peers_creates_fail_alone(
        peers: Peers, mock_clock: trio.testing.MockClock) -> None:
    """Taken together, a shard a newer epoch owns answers its creates
    Aborted and stops; the other shard's are made."""
    a, b = peers.engines[:2]
    await peers.store.claim_shard(b.shard, EPOCH + 1, "jm-2")
    out: dict[int, object] = {}
    async with peers.serving(2) as engines, trio.open_nursery() as senders:
        peers.creates(senders, engines, out)
    assert out[30] is True and isinstance(out[40], Aborted)
    assert [sorted(shards) for shards in peers.store.across] == [[3, 4]]
    assert b.stopped and not a.stopped
    assert [j.job_id for j in await peers.store.get_jobs([peer_job(3), peer_job(4)])] == [
        peer_job(3)]


async def test_a_writer_cancelled_with_lent_creates_answers_them_and_returns_the_shard(
        peers: Peers, mock_clock: trio.testing.MockClock) -> None:
    """The writer holding other shards' creates stops before their write:
    every one of them is answered Unavailable (a client sends it again),
    and the lent shard's writer goes on serving."""
    peers.store.gate = trio.Event()  # never set: the write never happens
    out: dict[int, object] = {}
    async with peers.serving(2) as (a, b):
        async with trio.open_nursery() as senders:
            peers.creates(senders, (a, b), out)
            await trio.testing.wait_all_tasks_blocked()
            [shards] = peers.store.across
            holder, lent = (a, b) if shards[0] == a.shard else (b, a)
            peers.scopes[holder.shard].cancel()
        assert all(isinstance(answer, Unavailable) for answer in out.values()) and len(out) == 2
        peers.store.gate = None
        await peers.create(lent, 1, out)  # its writer serves on
    assert out[lent.shard * 10 + 1] is True


async def launched(peers: Peers) -> dict[int, Job]:
    """A one-task job in each shard, written LAUNCHING on hA."""
    jobs = {}
    for engine in peers.engines:
        job = jobs[engine.shard] = Job.new(peer_job(engine.shard), engine.shard, config(1),
                                           1000.0)
        await engine.create(job)
        await engine.record_launch([rpb.Placement(
            hostname="hA", agentId="agent-hA", leaseId=f"lease-{engine.shard}", cluster=CLUSTER,
            tasks=[rpb.TaskRef(mesosTaskId=job.tasks[0].mesos_task_id, shard=engine.shard)])])
    peers.store.written.clear()
    return jobs


async def test_idle_writers_small_events_are_applied_in_one_turn_and_one_write(
        peers: Peers, mock_clock: trio.testing.MockClock) -> None:
    """Small jobs' events given to several idle writers (urgent, as the
    event consumer sends them) are applied by the first writer woken, and
    written in one write for the three shards."""
    jobs = await launched(peers)
    async with peers.serving() as engines, trio.open_nursery() as senders:
        for engine in engines:
            senders.start_soon(partial(engine.submit, engine.on_events, [hpb.TaskEvent(
                mesosTaskId=jobs[engine.shard].tasks[0].mesos_task_id, state=T.RUNNING.name,
                hostname="hA")], urgent=True))
    assert [sorted(shards) for shards in peers.store.written] == [[3, 4, 5]]
    for shard, job in jobs.items():
        assert job.tasks[0].state == T.RUNNING
        row = await peers.store.get_task(peer_job(shard), 0)
        assert row is not None and T(row.state) == T.RUNNING


async def test_idle_writers_express_placements_are_recorded_in_one_turn_and_one_write(
        peers: Peers, mock_clock: trio.testing.MockClock) -> None:
    """Express placements (small jobs', urgent) given to several idle
    writers are recorded by the first writer woken in one write for the
    three shards; each writer's caller gets its own shard's launches."""
    jobs = {}
    for engine in peers.engines:
        job = jobs[engine.shard] = Job.new(peer_job(engine.shard), engine.shard, config(1),
                                           1000.0)
        await engine.create(job)
    plans: dict[int, LaunchPlan] = {}

    async def place(engine: ShardEngine) -> None:
        run = jobs[engine.shard].tasks[0].mesos_task_id
        plans[engine.shard] = await engine.submit(engine.record_launch, [rpb.Placement(
            hostname=f"h{engine.shard}", agentId="agent", leaseId=f"lease-{engine.shard}",
            cluster=CLUSTER, tasks=[rpb.TaskRef(mesosTaskId=run, shard=engine.shard)])],
            urgent=True)

    async with peers.serving() as engines, trio.open_nursery() as senders:
        for engine in engines:
            senders.start_soon(place, engine)
    assert [sorted(shards) for shards in peers.store.written] == [[3, 4, 5]]
    for shard, job in jobs.items():
        [(placement, [(planned, task)])] = plans[shard][CLUSTER]
        assert (placement.hostname, planned, task) == (f"h{shard}", job, job.tasks[0])
        row = await peers.store.get_task(peer_job(shard), 0)
        assert row is not None and (T(row.state), row.host) == (T.LAUNCHING, f"h{shard}")


async def test_a_fenced_peers_events_fail_alone(
        peers: Peers, mock_clock: trio.testing.MockClock) -> None:
    """Taken together, a shard a newer epoch owns answers its events
    Aborted (its consumer reads them again) and stops; the other shard's
    are written."""
    jobs = await launched(peers)
    a, b = peers.engines[:2]
    await peers.store.claim_shard(b.shard, EPOCH + 1, "jm-2")
    out: dict[int, object] = {}

    async def send(engine: ShardEngine) -> None:
        try:
            out[engine.shard] = await engine.submit(engine.on_events, [hpb.TaskEvent(
                mesosTaskId=jobs[engine.shard].tasks[0].mesos_task_id, state=T.RUNNING.name,
                hostname="hA")], urgent=True)
        except PelotonError as error:
            out[engine.shard] = error

    async with peers.serving(2) as engines, trio.open_nursery() as senders:
        for engine in engines:
            senders.start_soon(send, engine)
    assert out[a.shard] is None and isinstance(out[b.shard], Aborted)
    assert b.stopped and not a.stopped
    assert [sorted(shards) for shards in peers.store.written] == [[3, 4]]
    stored = [await peers.store.get_task(peer_job(e.shard), 0) for e in (a, b)]
    assert [T(r.state) for r in stored if r is not None] == [T.RUNNING, T.LAUNCHING]


async def test_a_writer_taking_events_wakes_an_idle_writer_given_a_create(
        peers: Peers, mock_clock: trio.testing.MockClock) -> None:
    """The writer woken for events takes no creates: another idle writer
    given one (and not woken, the first writer was) is woken to write it."""
    jobs = await launched(peers)
    a, b = peers.engines[:2]
    out: dict[int, object] = {}
    async with peers.serving(2), trio.open_nursery() as senders:
        senders.start_soon(partial(a.submit, a.on_events, [hpb.TaskEvent(
            mesosTaskId=jobs[a.shard].tasks[0].mesos_task_id, state=T.RUNNING.name,
            hostname="hA")], urgent=True))
        peers.creates(senders, [b], out, n=1)
    assert out == {b.shard * 10 + 1: True}
    assert jobs[a.shard].tasks[0].state == T.RUNNING


async def test_a_group_of_large_creates_yields_while_it_makes_rows(h: Harness) -> None:
    """A bulk load's creates come in groups (16 jobs of 1,000 tasks): their
    rows are made a job at a time, with a yield to the other tasks (other
    shards' writers, a small job's lane) after every ROWS_A_STEP rows and
    never inside a job's; the group is still one storage write."""
    ids = [f"0b5c7e1e-3f7a-4c8e-9d1a-2f6b8c9d0e{i:02x}" for i in range(5)]
    jobs = [Job.new(job_id, SHARD, config(ROWS_A_STEP // 2), h.clock.now) for job_id in ids]
    with pytest.MonkeyPatch.context() as patch:
        seen = mark_steps(patch, (Task, "row", "r"))
        assert await h.engine.create_all(jobs) == [True] * 5
    rows = ROWS_A_STEP // 2
    # (then the storage's write yields once before it commits)
    assert "".join(seen).split("|") == ["r" * 2 * rows, "r" * 2 * rows, "r" * rows, ""]
    assert [(call, len(tasks), n) for call, tasks, n in h.store.writes] == [
        ("create_jobs", 5 * rows, 5)]


async def test_a_large_launch_and_its_write_yield_between_their_tasks(h: Harness) -> None:
    """A bulk GetPlacements answer holds thousands of tasks: recording the
    launch yields after every ROWS_A_STEP placed tasks (between
    placements), and writing them after every ROWS_A_STEP rows."""
    n = ROWS_A_STEP * 5 // 2
    job = await new_job(h, n)
    per_host = ROWS_A_STEP // 4
    placements = [placement(f"h{k}", *range(k * per_host, min(n, (k + 1) * per_host)))
                  for k in range(n // per_host)]
    with pytest.MonkeyPatch.context() as patch:
        seen = mark_steps(patch, (Task, "row", "r"), (engine_module, "respond", "p"))
        await h.engine.record_launch(placements)
    steps = [part for part in "".join(seen).split("|") if part]
    assert steps == ["p" * ROWS_A_STEP] * 2 + ["p" * (n - 2 * ROWS_A_STEP) + "r" * ROWS_A_STEP,
                                               "r" * ROWS_A_STEP, "r" * (n - 2 * ROWS_A_STEP)]
    assert all(t.state == T.LAUNCHING for t in job.tasks)


# --------------------------------------------------------------------------- service jobs


def service(n: int) -> job_pb2.JobConfig:
    cfg = config(n)
    cfg.type = job_pb2.SERVICE
    return cfg


def ended(instance: int, state: T, run: int = 1, code: int = 0) -> list[hpb.TaskEvent]:
    return [hpb.TaskEvent(mesosTaskId=mid(instance, run), state=state.name, hostname="hA",
                          message=f"{state.name} in the test", exitCode=code)]


async def test_a_service_instance_runs_again_after_its_backoff(
        h: Harness, mock_clock: trio.testing.MockClock) -> None:
    """type SERVICE: every instance's goal is RUNNING; a run that ends, even
    with exit 0, is recorded and counted, and a new run starts once Peloton's
    backoff (30 s x 2^(failures - 1)) has passed since it ended; the job stays
    RUNNING while an instance runs, else PENDING, never ending by itself."""
    job = Job.new(JOB, SHARD, service(2), h.clock.now)
    assert job.goal == JobState.RUNNING and {t.goal for t in job.tasks} == {T.RUNNING}
    await h.engine.create(job)
    await h.engine.enqueue(job.tasks)
    await running(h, 0, 1)
    assert job.state == JobState.RUNNING
    await h.engine.on_events(ended(0, T.SUCCEEDED))
    t0 = job.tasks[0]
    assert (t0.state, t0.goal, t0.failures, t0.run) == (T.SUCCEEDED, T.RUNNING, 1, 1)
    assert job.state == JobState.RUNNING  # instance 1 runs; the job never succeeds
    await h.engine.on_events(ended(1, T.FAILED, code=3))
    assert job.state == JobState.PENDING  # both wait for their restart
    enqueued = len(h.resmgr.enqueues())
    h.clock.now += 29.9
    await h.engine.run_timers()
    assert len(h.resmgr.enqueues()) == enqueued  # not yet
    h.clock.now += 0.1
    await h.engine.run_timers()
    assert [(t.run, t.state) for t in job.tasks] == [(2, T.PENDING), (2, T.PENDING)]
    assert "restarting after 30 s of backoff" in t0.message
    # The second end of one instance waits twice as long.
    await running(h, 0)
    await h.engine.on_events(ended(0, T.FAILED, run=2, code=1))
    assert t0.failures == 2
    h.clock.now += 59.9
    await h.engine.run_timers()
    assert t0.run == 2
    h.clock.now += 0.1
    await h.engine.run_timers()
    assert (t0.run, t0.state) == (3, T.PENDING)


async def test_a_stopped_service_ends_killed_and_starts_again(
        h: Harness, mock_clock: trio.testing.MockClock) -> None:
    job = Job.new(JOB, SHARD, service(2), h.clock.now)
    await h.engine.create(job)
    await h.engine.enqueue(job.tasks)
    await running(h, 0, 1)
    await h.engine.on_events(ended(1, T.FAILED, code=2))  # waiting for its backoff
    job.goal = JobState.KILLED  # what the job service's Stop does first
    await h.engine.kill(job.tasks)
    assert kills(h) == [[mid(0)]]
    await h.engine.on_events(killed(0))
    assert [t.state for t in job.tasks] == [T.KILLED, T.FAILED]
    assert job.state == JobState.KILLED  # stopped: killed, whatever its tasks' ends
    h.clock.now += 3600
    await h.engine.run_timers()
    assert [t.run for t in job.tasks] == [1, 1]  # a stopped service is not restarted
    await h.engine.start(job.tasks)
    assert job.goal == JobState.RUNNING
    assert [(t.goal, t.run) for t in job.tasks] == [(T.RUNNING, 2), (T.RUNNING, 2)]


async def test_a_preempted_service_instance_runs_again_at_once(
        h: Harness, mock_clock: trio.testing.MockClock) -> None:
    job = Job.new(JOB, SHARD, service(1), h.clock.now)
    await h.engine.create(job)
    await h.engine.enqueue(job.tasks)
    await running(h, 0)
    await h.engine.preempt([(mid(0), "pool over its entitlement")])
    await h.engine.on_events(killed(0))
    t0 = job.tasks[0]
    assert (t0.run, t0.state, t0.failures, t0.goal) == (2, T.PENDING, 0, T.RUNNING)


async def launched_again(h: Harness, instance: int, run: int, **event: Any) -> None:
    """Launch run ``run`` of the instance on hA and report it RUNNING."""
    await h.engine.launch([rpb.Placement(
        hostname="hA", agentId="agent-hA", leaseId="lease-hA", cluster=CLUSTER,
        tasks=[rpb.TaskRef(mesosTaskId=mid(instance, run), shard=SHARD)])])
    await h.engine.on_events([hpb.TaskEvent(mesosTaskId=mid(instance, run),
                                            state=T.RUNNING.name, hostname="hA", **event)])


async def test_a_service_restart_rolls_within_maximum_unavailable_instances(
        h: Harness, mock_clock: trio.testing.MockClock) -> None:
    """sla.maximumUnavailableInstances: a restart of a service takes down at
    most that many instances at once, counting those already down; the next
    goes once the new run serves (RUNNING, and HEALTHY when checked)."""
    cfg = service(4)
    cfg.sla.maximumUnavailableInstances = 2
    cfg.defaultConfig.healthCheck.enabled = True
    cfg.defaultConfig.healthCheck.commandCheck.command = "true"
    job = Job.new(JOB, SHARD, cfg, h.clock.now)
    await h.engine.create(job)
    await h.engine.enqueue(job.tasks)
    await running(h, 0, 1, 2, 3)
    await h.engine.on_events([hpb.TaskEvent(mesosTaskId=mid(i), state=T.RUNNING.name,
                                            hostname="hA", healthy=task_pb2.HEALTHY)
                              for i in (0, 1, 3)])  # instance 2 not checked yet: down
    await h.engine.restart(job.tasks)
    assert kills(h) == [[mid(2), mid(0)]]  # 2 was down already: it costs no turn
    assert [t.state for t in job.tasks] == [T.KILLING, T.RUNNING, T.KILLING, T.RUNNING]
    assert job.tasks[1].message == ("restart waits its turn: at most 2 instances down at "
                                    "once (sla.maximumUnavailableInstances)")
    assert (await h.stored(1))[0] == T.RUNNING and job.tasks[1].restart  # kept for a new owner
    await h.engine.on_events(killed(0) + killed(2))
    assert [(t.run, t.state) for t in job.tasks] == [
        (2, T.PENDING), (1, T.RUNNING), (2, T.PENDING), (1, T.RUNNING)]
    await h.engine.run_timers()
    assert len(kills(h)) == 1  # two are down: nobody else goes
    await launched_again(h, 0, 2)
    await h.engine.run_timers()
    assert len(kills(h)) == 1  # running, but its health is not known yet
    await h.engine.on_events([hpb.TaskEvent(mesosTaskId=mid(0, 2), state=T.RUNNING.name,
                                            hostname="hA", healthy=task_pb2.HEALTHY)])
    await h.engine.run_timers()
    assert kills(h)[1:] == [[mid(1)]]
    await h.engine.on_events(killed(1))
    await launched_again(h, 2, 2, healthy=task_pb2.HEALTHY)
    await h.engine.run_timers()
    assert kills(h)[2:] == [[mid(3)]]
    await h.engine.on_events(killed(3))
    await launched_again(h, 1, 2, healthy=task_pb2.HEALTHY)
    await launched_again(h, 3, 2, healthy=task_pb2.HEALTHY)
    await h.engine.run_timers()
    assert len(kills(h)) == 3
    assert [(t.run, t.state, t.restart, t.failures) for t in job.tasks] == [
        (2, T.RUNNING, False, 0)] * 4


async def test_an_update_that_removes_instances_ends_with_them_gone(
        h: Harness, mock_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch) -> None:
    """A shrink's update ends in the same write (and the same moment of the
    shard's memory) that deletes the instances it removed: a reader that
    sees it SUCCEEDED never lists them (ListPods did, for one write, in CI)."""
    job = Job.new(JOB, SHARD, service(3), h.clock.now)
    await h.engine.create(job)
    await h.engine.enqueue(job.tasks)
    await running(h, 0, 1, 2)
    seen: list[tuple[bool, int]] = []  # (update still active, tasks listed) at each write
    write = h.store.write

    async def noting(*args: Any, **kw: Any) -> None:
        seen.append((JOB in h.engine.updates, len(job.tasks)))
        await write(*args, **kw)

    monkeypatch.setattr(h.store, "write", noting)
    smaller = service(1)
    await h.engine.start_update(job, smaller, JobUpdate(
        "u1", JOB, int(update_pb2.ROLLING_FORWARD), update_pb2.UpdateConfig(batchSize=1),
        0, 0, h.clock.now, h.clock.now))
    assert kills(h) == [[mid(1)]]  # one removed instance a batch
    await h.engine.on_events(killed(1))
    await h.engine.run_timers()
    assert kills(h)[1:] == [[mid(2)]]
    await h.engine.on_events(killed(2))
    await h.engine.run_timers()
    assert h.engine.updates == {} and len(job.tasks) == 1
    assert all(active or listed == 1 for active, listed in seen), seen
    stored = await h.store.get_update("u1")
    assert stored is not None and stored.state == update_pb2.SUCCEEDED
    assert await h.store.get_task(JOB, 2) is None


async def test_an_aborted_update_lets_its_held_instances_go_as_it_ends(
        h: Harness, mock_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch) -> None:
    """An update that adds instances holds them until their batch; aborted,
    it lets them go (they start) in the write that records it ABORTED."""
    job = Job.new(JOB, SHARD, service(1), h.clock.now)
    await h.engine.create(job)
    await h.engine.enqueue(job.tasks)
    await running(h, 0)
    seen: list[tuple[bool, int]] = []  # (update still active, instances held) at each write
    write = h.store.write

    async def noting(*args: Any, **kw: Any) -> None:
        seen.append((JOB in h.engine.updates, sum(t.held for t in job.tasks)))
        await write(*args, **kw)

    monkeypatch.setattr(h.store, "write", noting)
    update = JobUpdate("u1", JOB, int(update_pb2.ROLLING_FORWARD),
                       update_pb2.UpdateConfig(batchSize=1), 0, 0, h.clock.now, h.clock.now)
    await h.engine.start_update(job, service(3), update)
    assert [t.held for t in job.tasks] == [False, False, True]  # 1 in its batch, 2 waits
    enqueued = len(h.resmgr.enqueues())
    update.state = int(update_pb2.ABORTED)
    await h.engine.save_update(job, update)
    assert [t.held for t in job.tasks] == [False] * 3
    assert h.resmgr.enqueues()[enqueued:] == [(False, [[mid(2)]])]
    assert all(active or held == 0 for active, held in seen), seen
    stored = await h.store.get_task(JOB, 2)
    message = task_pb2.RuntimeInfo.FromString(stored.runtime).message if stored else None
    assert message == "waiting for admission and placement"  # no longer the update's hold


async def test_restarting_a_task_not_yet_placed_changes_nothing(
        h: Harness, mock_clock: trio.testing.MockClock) -> None:
    """A run that has not started starts with the config it would restart
    with: a restart leaves it as it is, and it runs once."""
    job = await new_job(h, 1)
    await h.engine.restart(job.tasks)
    assert (job.tasks[0].state, job.tasks[0].restart) == (T.PENDING, False)
    await running(h, 0)
    await h.engine.on_events(ended(0, T.SUCCEEDED))
    assert (job.tasks[0].state, job.tasks[0].run) == (T.SUCCEEDED, 1)


def resmgr_tasks(job: Job, tasks: list[Task]) -> list[rpb.Task]:
    requests: list[rpb.EnqueueGangsRequest] = []
    add_gangs(job, tasks, requests, rpb.EnqueueGangsRequest)
    return [t for r in requests for g in r.gangs for t in g.tasks]


def resmgr_task(job: Job, task: Task) -> rpb.Task:
    [t] = resmgr_tasks(job, [task])
    return t


def test_gangs_are_written_in_place_from_a_template_a_config() -> None:
    """Each run as resmgr takes it: its own ids and name, its config's
    resources, a stateful run pinned to its volume's host; gangs in
    instance order, a new request every ``limit`` gangs."""
    cfg = config(5)
    cfg.sla.minimumRunningInstances = 2
    cfg.sla.priority = 7
    job = Job.new(JOB, SHARD, cfg, 0.0)
    job.tasks[3].volume_host = "hV"
    requests: list[rpb.EnqueueGangsRequest] = []
    add_gangs(job, list(reversed(job.tasks)), requests,
              partial(rpb.EnqueueGangsRequest, respoolID={"value": "pool-1"}), limit=3)
    assert [[[t.id for t in g.tasks] for g in r.gangs] for r in requests] == [
        [[f"{JOB}-0", f"{JOB}-1"], [f"{JOB}-2"], [f"{JOB}-3"]], [[f"{JOB}-4"]]]
    assert all(r.respoolID.value == "pool-1" for r in requests)
    tasks = [t for r in requests for g in r.gangs for t in g.tasks]
    assert [(t.mesosTaskId, t.name) for t in tasks] == [
        (f"{JOB}-{i}-1", job.tasks[i].name) for i in range(5)]
    assert all((t.jobId, t.priority, t.minInstances, t.shard, t.resource.cpu)
               == (JOB, 7, 2, SHARD, job.task_config(0).resource.cpuLimit) for t in tasks)
    pinned = [t.constraint.labelConstraint.label.value for t in tasks]
    assert pinned == ["", "", "", "hV", ""]


def test_resmgr_learns_a_services_bound_on_instances_down() -> None:
    """What preemption keeps to (resmgr's job_sla): the bound and the
    instance count, for services that set it; nothing for others."""
    cfg = service(4)
    cfg.sla.maximumUnavailableInstances = 1
    job = Job.new(JOB, SHARD, cfg, 0.0)
    t = resmgr_task(job, job.tasks[2])
    assert (t.maxUnavailable, t.instances) == (1, 4)
    for plain in (service(4), config(4)):
        t = resmgr_task(Job.new(JOB, SHARD, plain, 0.0), job.tasks[2])
        assert (t.maxUnavailable, t.instances) == (0, 0)


async def test_a_batchs_small_shares_are_recorded_in_one_write_and_large_ones_alone(
        peers: Peers, mock_clock: trio.testing.MockClock) -> None:
    """``Jobmgr._launch_batch`` splits a placement batch by shard. Shares
    of small jobs (a stream of one-task jobs, the batch split 16 ways) go
    in the writers' lane, so one writer records the idle writers' shares
    in one write; a share of more than EXPRESS tasks is its writer's own."""
    from peloton.jobmgr.service import Jobmgr

    jobs: dict[int, Job] = {}
    for engine, instances in zip(peers.engines, (1, 1, EXPRESS + 1), strict=True):
        job = jobs[engine.shard] = Job.new(peer_job(engine.shard), engine.shard,
                                           config(instances), 1000.0)
        await engine.create(job)
    shard_of = {t.mesos_task_id: job.shard for job in jobs.values() for t in job.tasks}
    jm = cast(Any, type("JM", (), {}))()
    jm.engines = {e.shard: e for e in peers.engines}
    jm.ctx = peers.engines[0].ctx
    jm._shard_of_run = shard_of.get
    placements = [rpb.Placement(hostname=f"h{n}", agentId="agent", leaseId=f"lease-{n}",
                                cluster=CLUSTER, tasks=[rpb.TaskRef(mesosTaskId=t.mesos_task_id,
                                                                    shard=job.shard)])
                  for n, (job, t) in enumerate((job, t) for job in jobs.values()
                                               for t in job.tasks)]
    async with peers.serving():
        await Jobmgr._launch_batch(jm, placements, None)
    assert sorted(sorted(shards) for shards in peers.store.written) == [[3, 4], [5]]
    for job in jobs.values():
        rows = [await peers.store.get_task(job.id, t.instance) for t in job.tasks]
        assert all(row is not None and T(row.state) == T.LAUNCHING for row in rows)
