"""New jobs' tasks, from every shard, handed to resmgr together.

A create is acknowledged once its job is in storage with its tasks PENDING:
that is all durability needs, because an owner that starts a shard hands
every PENDING task to resmgr again (``ShardEngine.recover``), and resmgr
takes a run it already has as a no-op. Sending the gangs is left to this
batcher, so a create no longer waits for a Raft commit, and the creates
that arrive while one ``EnqueueGangs`` is in flight (from any shard of this
jobmgr) go in the next one: one Raft command for many jobs, however many
clients create at once.

A call that fails is sent again (the tasks are still PENDING); a task that
changed meanwhile (killed, or already sent by a recovery) is left out, and
runs resmgr refuses are written FAILED by their shard's writer.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence

import trio

from peloton.api.private.resmgrsvc import resmgrsvc_pb2 as rpb
from peloton.core.errors import PelotonError
from peloton.core.states import TaskState
from peloton.jobmgr.engine import ShardEngine
from peloton.jobmgr.model import Task

log = logging.getLogger(__name__)

# Gangs per EnqueueGangs call (the engine's own chunk size).
CHUNK = 1000
# After a failed call, the next attempt waits this long (doubling to the cap).
RETRY_S, RETRY_CAP_S = 0.2, 5.0


class GangBatcher:
    """Collects new PENDING tasks from the shard engines; sends them."""

    def __init__(self) -> None:
        self._pending: list[tuple[ShardEngine, list[Task]]] = []
        self._wake = trio.Event()

    def add(self, engine: ShardEngine, tasks: Sequence[Task]) -> None:
        """Send ``tasks`` (PENDING, just written by ``engine``'s writer) soon."""
        if tasks:
            self._pending.append((engine, list(tasks)))
            self._wake.set()

    @property
    def waiting(self) -> int:
        """Tasks not yet handed to resmgr."""
        return sum(len(tasks) for _, tasks in self._pending)

    async def run(self) -> None:
        """Send what was added, one batch at a time, until cancelled."""
        delay = RETRY_S
        while True:
            await self._wake.wait()
            self._wake = trio.Event()
            batch, self._pending = self._pending, []
            try:
                await self._send(batch)
                delay = RETRY_S
            except PelotonError as error:
                live = [(e, ts) for e, ts in batch if not e.stopped]
                log.info("enqueueing %d new tasks: %s; again in %.1f s",
                         sum(len(ts) for _, ts in live), error, delay)
                self._pending[:0] = live
                await trio.sleep(delay)
                delay = min(delay * 2, RETRY_CAP_S)
                self._wake.set()

    async def _send(self, batch: list[tuple[ShardEngine, list[Task]]]) -> None:
        # What each task was when sent: only those still so are recorded.
        sent: list[tuple[ShardEngine, list[Task], dict[int, tuple[int, TaskState]]]] = []
        by_pool: dict[str, list[rpb.Gang]] = defaultdict(list)
        for engine, tasks in batch:
            if engine.stopped:
                continue  # the shard's next owner enqueues its PENDING tasks
            still = [t for t in tasks if t.state == TaskState.PENDING
                     and engine.jobs.get(t.job_id) is not None]
            engine.gangs_by_pool(still, by_pool)
            sent.append((engine, still, {id(t): (t.run, t.state) for t in still}))
        if not by_pool:
            return
        resmgr = batch[0][0].ctx.resmgr
        failed: dict[str, str] = {}
        for pool, gangs in by_pool.items():
            for i in range(0, len(gangs), CHUNK):
                reply = await resmgr.call("EnqueueGangs", rpb.EnqueueGangsRequest(
                    respoolID={"value": pool}, gangs=gangs[i:i + CHUNK]))
                failed.update((f.mesosTaskId, f.message) for f in reply.failed)
        if not failed:
            return
        for engine, tasks, before in sent:
            refused = [t for t in tasks if t.mesos_task_id in failed]
            if refused and not engine.stopped:
                try:
                    await engine.submit(engine.record_enqueued, refused, before, failed)
                except PelotonError as error:
                    log.info("shard %d: recording refused runs: %s", engine.shard, error)
