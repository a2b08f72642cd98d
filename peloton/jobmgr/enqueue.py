"""New jobs' tasks, from every shard, handed to resmgr together.

A create is acknowledged once its job is in storage with its tasks PENDING:
that is all durability needs, because an owner that starts a shard hands
every PENDING task to resmgr again (``ShardEngine.recover``), and resmgr
takes a run it already has as a no-op. Sending the gangs is left to this
batcher, so a create does not wait for a Raft commit, and the creates that
arrive while calls are in flight (from any shard of this jobmgr) go in the
next ones: one Raft command for many jobs, however many clients create at
once.

One call is in flight while fewer than ``CHUNK`` tasks wait (so a steady
stream of small creates shares its calls), and up to ``IN_FLIGHT`` while
more do; each call is of one pool and about ``CHUNK`` tasks, and the pools
take turns: a probe job's ten tasks go in the next call, not behind the
hundred thousand tasks another pool's creates left waiting (one call at a
time, in arrival order, made both the pace of a large load and a small
job's wait the length of one Raft commit per thousand tasks of the whole
backlog).

A pool with at most ``EXPRESS`` tasks waiting has a lane of its own while
a large call is in flight: one more sender takes such pools at once, so a
small job does not wait for a free call behind a bulk load's (on the 2-core
box a probe's tasks waited up to 0.7 s for one, at p99, during a burst of
100,000 tasks). The calls of a steady stream of small creates stay shared:
the lane opens only beside a large call.

A pool's calls that are not full start at least ``PERIOD_S`` apart while
its creates come fast (``PACE_RATE``), and what is added meanwhile rides
along; after a quiet spell the first goes at once, jobs that come one at a
time wait for nothing, and another pool's job does not wait for this
pool's pace. The express lane keeps it too: beside a pool's own large
call, what the pool gets meanwhile waits for its period.

Without a pace, a stream of small creates made a call every round trip
(~25 ms), each carrying the few jobs created in it, and every later hop
followed that rhythm: resmgr's Raft commands, the placement batches, the
launches, the shards' writer turns and the host managers' calls each
carried a few tasks. In the 100,000 one-task-job load the daemons spent
2.1-2.4 ms of cpu a job without it, 1.1-1.4 with it (docs/performance.md,
the twenty-seventh session).

A call that fails is sent again (the tasks are still PENDING); a task that
changed meanwhile (killed, or already sent by a recovery) is left out, and
runs resmgr refuses are written FAILED by their shard's writer.
"""

from __future__ import annotations

import logging
import math
from collections import deque
from collections.abc import Callable, Sequence

import trio

from peloton.api.private.resmgrsvc import resmgrsvc_pb2 as rpb
from peloton.core.errors import InvalidArgument, NotFound, PelotonError
from peloton.core.states import TaskState
from peloton.jobmgr.engine import ShardEngine
from peloton.jobmgr.model import Task

log = logging.getLogger(__name__)

# Tasks per EnqueueGangs call (more when one create has more: its gangs are
# never cut here), and calls in flight.
CHUNK = 1000
IN_FLIGHT = 4
# A pool with at most this many tasks waiting may go in the express call.
EXPRESS = 100
# A pool's calls of fewer than CHUNK tasks start at least this far apart,
# while its creates come at PACE_RATE tasks a second or more (by its last
# call: its tasks over the time since the call before). Slower, a period
# would add its wait to each job and save few calls: jobs submitted one
# after another (``loadtest.small_jobs --rows lone``, 13-30 a second) each
# waited ~0.15 s for it.
PERIOD_S = 0.2
PACE_RATE = 100.0
# After a failed call, its sender waits this long (doubling to the cap).
RETRY_S, RETRY_CAP_S = 0.2, 5.0

Batch = list[tuple[ShardEngine, list[Task]]]


class GangBatcher:
    """Collects new PENDING tasks from the shard engines; sends them."""

    def __init__(self, *, in_flight: int = IN_FLIGHT, period: float = PERIOD_S,
                 on_waiting: Callable[[str, int], None] | None = None) -> None:
        self._in_flight = in_flight
        self._period = period
        # When each pool's last call started, and its tasks a second.
        self._started: dict[str, float] = {}
        self._rate: dict[str, float] = {}
        # Told each reply's count of the pool's gangs not yet placed
        # (EnqueueGangsResponse.waiting): ``peloton.jobmgr.intake``.
        self.on_waiting = on_waiting
        self._by_pool: dict[str, deque[tuple[ShardEngine, list[Task]]]] = {}
        self._turn: deque[str] = deque()  # pools with tasks waiting, in turn
        self._waiting = 0
        self._pool_waiting: dict[str, int] = {}
        self._busy = 0  # calls in flight
        self._busy_large = 0  # of them, with more than EXPRESS tasks
        self._lot = trio.lowlevel.ParkingLot()
        # When each parked sender but the express one wakes by itself.
        self._parked: dict[object, float] = {}

    def add(self, engine: ShardEngine, pool: str, tasks: Sequence[Task]) -> None:
        """Send ``tasks`` (of pool ``pool``, PENDING, just written by
        ``engine``'s writer) soon, together: a gang is never cut."""
        if tasks:
            self._put(pool, [(engine, list(tasks))])
            if self._lot and self._wakes():
                self._lot.unpark_all()

    def _wakes(self) -> bool:
        """Whether what ``add`` put makes a parked sender's work: a call it
        may start now, or a pace that ends before any parked sender wakes.
        Woken at every add, the five senders took 0.7 task switches a job
        in the single-task load, nearly all to park again."""
        if self._ready(True) is not None or self._ready(False) is not None:
            return True
        return self._paced_until() < min(self._parked.values(), default=math.inf)

    @property
    def waiting(self) -> int:
        """Tasks not yet handed to resmgr."""
        return self._waiting

    def pool_waiting(self, pool: str) -> int:
        """Of them, ``pool``'s."""
        return self._pool_waiting.get(pool, 0)

    def _put(self, pool: str, batch: Batch, *, front: bool = False) -> None:
        queue = self._by_pool.get(pool)
        if queue is None:
            queue = self._by_pool[pool] = deque()
            self._turn.append(pool)
        if front:
            queue.extendleft(reversed(batch))
        else:
            queue.extend(batch)
        size = sum(len(tasks) for _, tasks in batch)
        self._waiting += size
        self._pool_waiting[pool] = self._pool_waiting.get(pool, 0) + size

    def _small_pool(self) -> str | None:
        """The first pool in turn with at most EXPRESS tasks waiting whose
        pace lets it go (a bulk pool whose large call just left waits)."""
        now = trio.current_time()
        return next((pool for pool in self._turn if self._pool_waiting[pool] <= EXPRESS
                     and not self._held(pool, now)), None)

    def _held(self, pool: str, now: float) -> bool:
        """Whether ``pool``'s next call waits for its pace: its last one
        started less than a period ago, and its creates come fast."""
        return (now < self._started.get(pool, -math.inf) + self._period
                and self._rate.get(pool, 0.0) >= PACE_RATE)

    def _take(self, pool: str | None = None) -> tuple[str, Batch]:
        """Up to CHUNK tasks (never none) of ``pool``, by default the next
        pool in turn."""
        if pool is None:
            pool = self._turn.popleft()
        else:
            self._turn.remove(pool)
        queue = self._by_pool[pool]
        batch: Batch = [queue.popleft()]
        size = len(batch[0][1])
        while queue and size + len(queue[0][1]) <= CHUNK:
            batch.append(queue.popleft())
            size += len(batch[-1][1])
        if queue:
            self._turn.append(pool)
            self._pool_waiting[pool] -= size
        else:
            del self._by_pool[pool], self._pool_waiting[pool]
        self._waiting -= size
        return pool, batch

    async def run(self) -> None:
        """Send what was added, ``in_flight`` calls at a time and the
        express lane's, until cancelled."""
        async with trio.open_nursery() as nursery:
            for _ in range(self._in_flight):
                nursery.start_soon(self._sender)
            nursery.start_soon(self._sender, True)

    def _next(self, express: bool) -> tuple[str, Batch] | None:
        """What a sender (the express one, or one of the others) sends now."""
        pool = self._ready(express)
        return None if pool is None else self._take(pool)

    def _ready(self, express: bool) -> str | None:
        """The pool whose call such a sender may start now, if any."""
        if not self._turn:
            return None
        if express:
            return self._small_pool() if self._busy_large else None
        if self._busy and self._waiting < CHUNK:
            return None
        return self._due()

    def _due(self) -> str | None:
        """The first pool in turn whose call may start: not held by its
        pace (``_held``), or with a full call's tasks waiting."""
        now = trio.current_time()
        return next((pool for pool in self._turn if self._pool_waiting[pool] >= CHUNK
                     or not self._held(pool, now)), None)

    def _paced_until(self) -> float:
        """When the first pool that waits for its pace may go (inf: none)."""
        if self._busy and self._waiting < CHUNK:
            return math.inf  # the call in flight wakes the senders
        return min((self._started.get(pool, -math.inf) + self._period for pool in self._turn),
                   default=math.inf)

    def _note_start(self, pool: str, tasks: int) -> None:
        now = trio.current_time()
        if len(self._started) > 64:  # pools come and go: forget past paces
            self._started = {p: t for p, t in self._started.items() if t + self._period > now}
            self._rate = {p: r for p, r in self._rate.items() if p in self._started}
        last = self._started.get(pool)
        self._rate[pool] = 0.0 if last is None else tasks / max(now - last, 1e-3)
        self._started[pool] = now

    async def _sender(self, express: bool = False) -> None:
        delay = RETRY_S
        while True:
            taken = self._next(express)
            if taken is None:
                until = math.inf if express else self._paced_until()
                token = object()
                if not express:
                    self._parked[token] = until
                try:
                    with trio.move_on_at(until):
                        await self._lot.park()
                finally:
                    self._parked.pop(token, None)
                continue
            pool, batch = taken
            size = sum(len(tasks) for _, tasks in batch)
            self._note_start(pool, size)
            large = size > EXPRESS
            self._busy += 1
            self._busy_large += large
            if large:
                self._lot.unpark_all()  # the express lane opens beside it
            try:
                await self._send(pool, batch)
                delay = RETRY_S
            except PelotonError as error:
                live = [(e, ts) for e, ts in batch if not e.stopped]
                log.info("enqueueing %d new tasks: %s; again in %.1f s",
                         sum(len(ts) for _, ts in live), error, delay)
                if live:
                    self._put(pool, live, front=True)
                await trio.sleep(delay)
                delay = min(delay * 2, RETRY_CAP_S)
            finally:
                self._busy -= 1
                self._busy_large -= large
                self._lot.unpark_all()  # what waited for this call may go

    async def _send(self, pool: str, batch: Batch) -> None:
        # What each task was when sent: only those still so are recorded.
        sent: list[tuple[ShardEngine, list[Task], dict[int, tuple[int, TaskState]]]] = []
        requests: dict[str, list[rpb.EnqueueGangsRequest]] = {}
        for engine, tasks in batch:
            if engine.stopped:
                continue  # the shard's next owner enqueues its PENDING tasks
            still = [t for t in tasks if t.state == TaskState.PENDING
                     and engine.jobs.get(t.job_id) is not None]
            engine.enqueue_requests(still, requests)
            sent.append((engine, still, {id(t): (t.run, t.state) for t in still}))
        if not requests.get(pool):
            return
        [request] = requests[pool]  # one request: no limit to the gangs in it
        gangs = request.gangs
        try:
            reply = await batch[0][0].ctx.resmgr.call("EnqueueGangs", request)
        except (NotFound, InvalidArgument) as error:
            # resmgr's answer in its log's order, so for good: the pool was
            # deleted, or got children, after the create checked it (against
            # an answer up to CHECK_CACHE_S old). Sent again, it would wait
            # for ever; its tasks fail, saying why.
            failed = {t.mesosTaskId: f"not enqueued: {error.message}"
                      for gang in gangs for t in gang.tasks}
        else:
            failed = {f.mesosTaskId: f.message for f in reply.failed}
            if self.on_waiting is not None:
                self.on_waiting(pool, reply.waiting)
        if not failed:
            return
        for engine, tasks, before in sent:
            refused = [t for t in tasks if t.mesos_task_id in failed]
            if refused and not engine.stopped:
                try:
                    await engine.submit(engine.record_enqueued, refused, before, failed)
                except PelotonError as error:
                    log.info("shard %d: recording refused runs: %s", engine.shard, error)
