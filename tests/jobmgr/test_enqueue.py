"""GangBatcher: creates from every shard share an EnqueueGangs, a few calls
are in flight at once, calls that are not full start a period apart, pools
take turns, a failed call is sent again, and refused runs go back to their
shard's writer."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import trio
import trio.testing

from peloton.api.private.resmgrsvc import resmgrsvc_pb2 as rpb
from peloton.core.errors import NotFound, Unavailable
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
    def __init__(self, refuse: frozenset[str] = frozenset(), failures: int = 0,
                 gone: bool = False) -> None:
        self.calls: list[rpb.EnqueueGangsRequest] = []
        self.refuse = refuse
        self.failures = failures
        self.gone = gone
        self.release = trio.Event()
        self.release.set()

    async def call(self, method: str, request: rpb.EnqueueGangsRequest) -> Any:
        assert method == "EnqueueGangs"
        await self.release.wait()
        if self.failures:
            self.failures -= 1
            raise Unavailable("no resmgr leader")
        self.calls.append(request)
        if self.gone:
            raise NotFound(f"resource pool {request.respoolID.value} does not exist")
        reply = rpb.EnqueueGangsResponse(waiting=10 * len(self.calls))
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
    why: dict[str, str] = field(default_factory=dict)

    def enqueue_requests(self, tasks: Sequence[FakeTask],
                         requests: dict[str, list[rpb.EnqueueGangsRequest]]) -> None:
        for t in tasks:
            pool = self.jobs[t.job_id]
            calls = requests.setdefault(pool, [])
            if not calls:
                calls.append(rpb.EnqueueGangsRequest(respoolID={"value": pool}))
            calls[0].gangs.add().tasks.add(mesosTaskId=t.mesos_task_id)

    async def submit(self, fn: Any, *args: Any) -> Any:
        return await fn(*args)

    async def record_enqueued(self, tasks: Sequence[FakeTask], sent: Any, failed: Any) -> None:
        self.recorded.append([t.mesos_task_id for t in tasks])
        self.why.update(failed)


def engines(resmgr: FakeResmgr, count: int) -> list[FakeEngine]:
    return [FakeEngine(shard, FakeCtx(resmgr)) for shard in range(count)]


def new_job(engine: FakeEngine, job_id: str, instances: int = 1,
            pool: str = "pool-1") -> list[FakeTask]:
    engine.jobs[job_id] = pool
    return [FakeTask(job_id, k) for k in range(instances)]


def held(in_flight: int, period: float = 0.0) -> tuple[FakeResmgr, GangBatcher]:
    """A batcher whose calls wait until ``resmgr.release`` is set (and
    start with no pace between them, by default)."""
    resmgr = FakeResmgr()
    resmgr.release = trio.Event()
    return resmgr, GangBatcher(in_flight=in_flight, period=period)


def add(batcher: GangBatcher, engine: FakeEngine, tasks: list[FakeTask]) -> None:
    batcher.add(engine, engine.jobs[tasks[0].job_id], tasks)  # type: ignore[arg-type]


def sent(resmgr: FakeResmgr) -> list[list[str]]:
    return [[t.mesosTaskId for g in c.gangs for t in g.tasks] for c in resmgr.calls]


async def added(batcher: GangBatcher, engine: FakeEngine,
                *jobs: tuple[str, int, str]) -> None:
    """Add each (job id, instances, pool), then let every sender act."""
    for job_id, instances, pool in jobs:
        add(batcher, engine, new_job(engine, job_id, instances, pool))
    await trio.testing.wait_all_tasks_blocked()


@asynccontextmanager
async def serving(batcher: GangBatcher) -> AsyncIterator[None]:
    """``batcher`` sends while the block runs."""
    async with trio.open_nursery() as nursery:
        nursery.start_soon(batcher.run)
        yield
        nursery.cancel_scope.cancel()


def jobs_sent(resmgr: FakeResmgr) -> list[list[str]]:
    """Each call's jobs."""
    return [sorted({m.rsplit("-", 2)[0] for m in ids}) for ids in sent(resmgr)]


async def test_creates_that_arrive_together_go_in_one_call() -> None:
    """While a call is in flight, the creates that come meanwhile wait for
    it, and then go in one call (from every shard)."""
    resmgr, batcher = held(2)
    a, b = engines(resmgr, 2)
    async with serving(batcher):
        add(batcher, a, new_job(a, "j0"))
        await trio.testing.wait_all_tasks_blocked()
        assert batcher.waiting == 0  # taken at once
        for k in range(1, 6):  # from both shards, while it is in flight
            engine = (a, b)[k % 2]
            add(batcher, engine, new_job(engine, f"j{k}"))
            await trio.testing.wait_all_tasks_blocked()
        assert batcher.waiting == 5  # the idle sender waits: too few for a call of their own
        resmgr.release.set()
        await trio.testing.wait_all_tasks_blocked()
    assert sent(resmgr) == [["j0-0-1"], ["j1-0-1", "j2-0-1", "j3-0-1", "j4-0-1", "j5-0-1"]]
    assert batcher.waiting == 0


async def test_a_backlog_of_a_chunk_or_more_goes_in_more_calls_at_once() -> None:
    resmgr, batcher = held(2)
    (a,) = engines(resmgr, 1)
    async with serving(batcher):
        add(batcher, a, new_job(a, "first"))
        await trio.testing.wait_all_tasks_blocked()
        add(batcher, a, new_job(a, "big", 1000))  # a whole chunk: the second sender takes it
        await trio.testing.wait_all_tasks_blocked()
        assert batcher.waiting == 0
        add(batcher, a, new_job(a, "more", 1000))  # both busy: it waits
        await trio.testing.wait_all_tasks_blocked()
        assert batcher.waiting == 1000
        resmgr.release.set()
        await trio.testing.wait_all_tasks_blocked()
    assert sorted(len(ids) for ids in sent(resmgr)) == [1, 1000, 1000]


async def test_calls_not_full_start_a_period_apart_and_after_quiet_at_once(
        mock_clock: trio.testing.MockClock) -> None:
    """A fast stream of small creates shares calls a period apart (every
    later hop then carries many tasks, not the few of one round trip); a
    full call's tasks do not wait, nor a lone job after a quiet spell, nor
    jobs that come one at a time, nor another pool's job for this pool's
    pace."""
    resmgr = FakeResmgr()
    batcher = GangBatcher(period=0.2)
    (a,) = engines(resmgr, 1)
    async with serving(batcher):
        await added(batcher, a, ("j0", 1, "pool-1"))
        await added(batcher, a, ("j1", 1, "pool-1"))
        assert sent(resmgr) == [["j0-0-1"], ["j1-0-1"]]  # no rate yet, then a fast one
        add(batcher, a, new_job(a, "j2"))
        mock_clock.jump(0.1)
        await added(batcher, a, ("j3", 1, "pool-1"))
        assert len(resmgr.calls) == 2  # j1's call answered, its period not over
        mock_clock.jump(0.1)
        await trio.testing.wait_all_tasks_blocked()
        assert sent(resmgr)[2:] == [["j2-0-1", "j3-0-1"]]
        await added(batcher, a, ("big", 1000, "pool-1"))  # a full call: no pace
        await added(batcher, a, ("probe", 1, "probes"))  # its pool's first call
        assert [len(ids) for ids in sent(resmgr)[3:]] == [1000, 1]
        mock_clock.jump(5)
        await added(batcher, a, ("lone", 1, "pool-1"))
        for k in range(2):  # one at a time, 30 a second: no pace
            mock_clock.jump(0.033)
            await added(batcher, a, (f"s{k}", 1, "pool-1"))
        assert sent(resmgr)[5:] == [["lone-0-1"], ["s0-0-1"], ["s1-0-1"]]


async def test_pools_take_turns_and_a_call_holds_at_most_a_chunk() -> None:
    """A small job in another pool goes in the next call, not behind the
    backlog of a large load; a create larger than a chunk is one call (its
    gangs are never cut)."""
    resmgr, batcher = held(1)
    (a,) = engines(resmgr, 1)
    async with serving(batcher):
        add(batcher, a, new_job(a, "first", 1, "bulk"))
        await trio.testing.wait_all_tasks_blocked()  # in flight: the rest wait
        for k in range(3):
            add(batcher, a, new_job(a, f"bulk{k}", 600, "bulk"))
        add(batcher, a, new_job(a, "huge", 1500, "bulk"))
        add(batcher, a, new_job(a, "probe", 2, "probes"))
        resmgr.release.set()
        await trio.testing.wait_all_tasks_blocked()
    calls = [(c.respoolID.value, sorted({m.rsplit("-", 2)[0] for m in ids}), len(ids))
             for c, ids in zip(resmgr.calls, sent(resmgr), strict=True)]
    # The probe goes beside bulk0 (the express lane opens beside a large
    # call): it is in flight with bulk0 and, as trio schedules it, may be
    # answered after the call that follows bulk0, never after bulk2.
    assert calls[0] == ("bulk", ["first"], 1)
    assert sorted(calls[1:4]) == [("bulk", ["bulk0"], 600), ("bulk", ["bulk1"], 600),
                                  ("probes", ["probe"], 2)]
    assert calls[4:] == [("bulk", ["bulk2"], 600), ("bulk", ["huge"], 1500)]


async def test_a_small_pool_goes_beside_large_calls_in_the_express_lane() -> None:
    """With every sender busy with a bulk load's calls, a small job's tasks
    go at once in the express call; a second small pool waits for it, and
    the bulk backlog for a sender of its own."""
    resmgr, batcher = held(1)
    (a,) = engines(resmgr, 1)
    async with serving(batcher):
        await added(batcher, a, ("bulk0", 1000, "bulk"))
        await added(batcher, a, ("bulk1", 1000, "bulk"), ("probe0", 10, "probes"))
        assert batcher.waiting == 1000  # the probe went; bulk1 waits for bulk0's sender
        # bulk2: more than EXPRESS, not express
        await added(batcher, a, ("probe1", 10, "probes2"), ("bulk2", 101, "bulk3"))
        assert batcher.waiting == 1111
        resmgr.release.set()
        await trio.testing.wait_all_tasks_blocked()
    jobs = jobs_sent(resmgr)
    assert sorted(jobs[:2]) == [["bulk0"], ["probe0"]]
    assert sorted(map(tuple, jobs[2:])) == [("bulk1",), ("bulk2",), ("probe1",)]
    assert batcher.waiting == 0


async def test_beside_a_pools_large_call_its_new_tasks_wait_for_its_pace(
        mock_clock: trio.testing.MockClock) -> None:
    """The express lane is for other pools' small jobs: what a pool gets
    while its own large call is in flight waits for the pool's period
    (through the express lane it made a call of a few tasks each time)."""
    resmgr, batcher = held(1, period=0.2)
    (a,) = engines(resmgr, 1)
    resmgr.release.set()
    async with serving(batcher):
        await added(batcher, a, ("warm0", 1, "bulk"))
        await added(batcher, a, ("warm1", 1, "bulk"))  # its creates come fast
        resmgr.release = trio.Event()
        mock_clock.jump(0.2)
        await added(batcher, a, ("bulk0", 200, "bulk"))
        await added(batcher, a, ("bulk1", 1, "bulk"), ("probe", 1, "probes"))
        assert batcher.waiting == 1  # the probe went beside bulk0; bulk1 waits
        resmgr.release.set()
        await trio.testing.wait_all_tasks_blocked()
        assert batcher.waiting == 1
        mock_clock.jump(0.2)
        await trio.testing.wait_all_tasks_blocked()
    jobs = jobs_sent(resmgr)
    assert jobs[:2] == [["warm0"], ["warm1"]] and jobs[4:] == [["bulk1"]]
    assert sorted(jobs[2:4]) == [["bulk0"], ["probe"]]


async def test_a_failed_call_is_sent_again_and_changed_tasks_are_left_out(
        mock_clock: trio.testing.MockClock) -> None:
    mock_clock.autojump_threshold = 0  # the retries' waits pass at once
    resmgr = FakeResmgr(failures=2)
    batcher = GangBatcher()
    (a,) = engines(resmgr, 1)
    kept, killed = new_job(a, "j0"), new_job(a, "j1")
    async with serving(batcher):
        batcher.add(a, "pool-1", kept + killed)  # type: ignore[arg-type]
        await trio.testing.wait_all_tasks_blocked()
        killed[0].state = TaskState.KILLED  # stopped before it reached resmgr
        await trio.sleep(10)
    assert [[t.mesosTaskId for g in c.gangs for t in g.tasks] for c in resmgr.calls] == [
        ["j0-0-1"]]


async def test_refused_runs_go_to_their_shards_writer_and_stopped_shards_are_skipped(
) -> None:
    resmgr = FakeResmgr(refuse=frozenset({"j1-0-1"}))
    batcher = GangBatcher()
    a, b, gone = engines(resmgr, 3)
    gone.stopped = True  # its next owner enqueues its PENDING tasks
    async with serving(batcher):
        add(batcher, a, new_job(a, "j0"))
        add(batcher, b, new_job(b, "j1"))
        add(batcher, gone, new_job(gone, "j2"))
        await trio.testing.wait_all_tasks_blocked()
    (call,) = resmgr.calls
    assert [t.mesosTaskId for g in call.gangs for t in g.tasks] == ["j0-0-1", "j1-0-1"]
    assert (a.recorded, b.recorded, gone.recorded) == ([], [["j1-0-1"]], [])


async def test_a_pool_deleted_after_the_create_fails_its_tasks_once(
        mock_clock: trio.testing.MockClock) -> None:
    """A create checks its pool against an answer up to a second old: when
    resmgr says the pool is gone (in its log's order, so for good), the
    tasks fail saying so, instead of being sent again for ever."""
    mock_clock.autojump_threshold = 0
    resmgr = FakeResmgr(gone=True)
    batcher = GangBatcher()
    (a,) = engines(resmgr, 1)
    async with serving(batcher):
        add(batcher, a, new_job(a, "j0", instances=2))
        await trio.sleep(30)
    assert len(resmgr.calls) == 1 and a.recorded == [["j0-0-1", "j0-1-1"]]
    assert a.why == {mid: "not enqueued: resource pool pool-1 does not exist"
                     for mid in ("j0-0-1", "j0-1-1")}


async def test_each_replys_count_of_the_pools_waiting_gangs_is_told() -> None:
    """What the intake holds large creates by (peloton.jobmgr.intake)."""
    heard: list[tuple[str, int]] = []
    resmgr = FakeResmgr()
    batcher = GangBatcher(in_flight=1, period=0,
                          on_waiting=lambda pool, n: heard.append((pool, n)))
    (a,) = engines(resmgr, 1)
    async with serving(batcher):
        add(batcher, a, new_job(a, "j0", 3, "bulk"))
        await trio.testing.wait_all_tasks_blocked()
        add(batcher, a, new_job(a, "j1", 2, "other"))
        await trio.testing.wait_all_tasks_blocked()
    assert heard == [("bulk", 10), ("other", 20)]


class SenderSteps(trio.abc.Instrument):
    """Counts the steps of the batcher's senders."""

    def __init__(self) -> None:
        self.steps = 0

    def before_task_step(self, task: trio.lowlevel.Task) -> None:
        if task.name.endswith("_sender"):
            self.steps += 1


async def test_creates_held_by_their_pace_do_not_wake_the_senders(
        mock_clock: trio.testing.MockClock) -> None:
    """While a pool's pace holds its creates, adding more wakes no sender
    (each add woke all five, to park again); the call goes when the pace
    ends, and a pool whose own pace ends sooner than the senders would
    wake has them look again."""
    resmgr = FakeResmgr()
    batcher = GangBatcher(period=0.2)
    (a,) = engines(resmgr, 1)
    counter = SenderSteps()
    async with serving(batcher):
        await added(batcher, a, ("j0", 1, "pool-1"), ("j1", 1, "pool-1"))
        mock_clock.jump(0.01)
        await added(batcher, a, ("j2", 1, "pool-1"))  # j1 went now: a fast pace
        calls = len(resmgr.calls)
        trio.lowlevel.add_instrument(counter)
        for k in range(50):  # the first arms the senders' timers (none waited)
            await added(batcher, a, (f"s{k}", 1, "pool-1"))
        assert counter.steps <= 5 and len(resmgr.calls) == calls
        mock_clock.jump(0.2)
        await trio.testing.wait_all_tasks_blocked()
        assert len(resmgr.calls) == calls + 1 and len(sent(resmgr)[-1]) >= 50

        # pool-2 paced until 0.2 s from now, pool-1 (and the senders) until
        # 0.25: pool-2's next task wakes them to wait for its pace instead.
        mock_clock.jump(1)
        await added(batcher, a, ("p0", 1, "pool-2"))
        mock_clock.jump(0.001)
        await added(batcher, a, ("p1", 1, "pool-2"))
        mock_clock.jump(0.05)
        await added(batcher, a, ("t0", 1, "pool-1"))
        mock_clock.jump(0.001)
        await added(batcher, a, ("t1", 1, "pool-1"))
        await added(batcher, a, ("t2", 1, "pool-1"))
        await added(batcher, a, ("p2", 1, "pool-2"))
        mock_clock.jump(0.16)  # pool-2's pace is over, pool-1's is not
        await trio.testing.wait_all_tasks_blocked()
        assert sent(resmgr)[-1] == ["p2-0-1"]
        trio.lowlevel.remove_instrument(counter)
