"""Large creates wait while their pool's placement backlog is long.

A create is acknowledged once its tasks are in storage (PENDING), and a
burst of large creates (a million tasks from 16 clients) was turned into
rows, written and enqueued at 25,000 tasks a second, four times what
placement takes: for the 38 s of that burst both jobmgrs' loops, their
writers and resmgr's Raft thread were saturated, and a small job created
then waited 1-2.7 s to run (most of it in the jobmgr: the create's rows, its
LAUNCHING and RUNNING writes behind the bulk's). Creating tasks faster than
placement takes them gains nothing: they wait in resmgr either way.

So a create of more than ``EXPRESS`` tasks first asks ``Intake.admit``. It
goes at once while its pool's backlog is under ``BACKLOG`` gangs; the
backlog is what resmgr said last of the pool's gangs not yet placed
(``EnqueueGangsResponse.waiting``, in every reply to the batcher), the tasks
the batcher has not sent yet, and those of creates admitted and not yet
handed to it. Otherwise it waits for the backlog to fall, asking resmgr
every ``POLL_S`` while any create waits (an EnqueueGangs without gangs),
and goes anyway after its time limit, or a second before its caller's
deadline: a pool that waits for capacity for minutes still takes creates,
one a ``MAX_HOLD_S`` per client on average. Small creates never wait here.

The time limits are spread over ``MAX_HOLD_S`` +- ``HOLD_SPREAD``, each
create's the next of a golden-ratio sequence. With one limit for all,
the clients of a capacity-bound million (16, each creating again as soon
as it is answered) went in step: their creates all went for the limit in
the same second, 16,000 tasks of rows, writes and enqueues every 5 s and
nothing between, and a probe job created in that second waited for the
cores 0.8-1.6 s (the capacity-bound run's slowest probes). Spread, the
same creates go a few at a time.

The backlog counts gangs on resmgr's side and tasks on ours: equal for
jobs without gang scheduling (a gang a task); for gangs of many tasks the
count is low, so they wait less. Creates are checked one pool at a time: a
pool's backlog holds its own creates only.

The bound is the pool's, not a jobmgr's. resmgr's count holds every
jobmgr's enqueued gangs, but the tasks on their way to it (the batcher's,
the admitted creates') each jobmgr knows of its own only; it counts the
other jobmgrs' as its own, scaled by its share of the shards (creates go
to the owner of their job's shard, so each gets about its share). Counted
as its own alone, on a cluster that had nothing queued, two jobmgrs let
113,000 tasks of creates in within 2 s before resmgr's count reached
them (``10k-hosts-1m-tasks-at-once``, 16 clients), twice the bound; so
counted, 70,000.
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import AsyncIterator, Awaitable, Callable

import trio

from peloton.core.errors import PelotonError
from peloton.jobmgr.enqueue import EXPRESS, GangBatcher

log = logging.getLogger(__name__)

# A pool's gangs waiting for placement above which its large creates wait:
# ~7 s of placement's pace at its fastest (~7,000 a second on the 2-core
# box), so placement does not run dry while an admitted create's tasks
# make their way to resmgr (rows, the write, the enqueue: seconds under such
# a load). At 20,000 it did: a million at once ran at 5,382 tasks/s, against
# 6,705 at 50,000 (one run each).
BACKLOG = 50_000
# The longest a create waits here, on average; each create's limit is
# MAX_HOLD_S + HOLD_SPREAD * (a number in [-1, 1), the next of a
# golden-ratio sequence, so the limits of creates held together differ as
# much as they can). And how far before its caller's deadline it stops
# waiting.
MAX_HOLD_S = 5.0
HOLD_SPREAD = 2.5
DEADLINE_MARGIN_S = 1.0
_GOLDEN = (5 ** 0.5 - 1) / 2
# While a create waits, its pool's backlog is asked this often.
POLL_S = 0.1
REPORT_S = 10.0


class Intake:
    """Admission of large creates by their pool's placement backlog."""

    def __init__(self, gangs: GangBatcher, ask: Callable[[str], Awaitable[int]], *,
                 backlog: int = BACKLOG, share: Callable[[], float] = lambda: 1.0) -> None:
        self._gangs = gangs
        self._ask = ask  # a pool's gangs waiting for placement, from resmgr
        self._share = share  # this jobmgr's share of the shards, (0, 1]
        self._limit = backlog
        self._heard: dict[str, int] = {}
        self._admitted: dict[str, int] = {}  # tasks of creates not yet in the batcher
        self._waiting: dict[str, int] = {}  # creates waiting, by pool
        self._lot = trio.lowlevel.ParkingLot()  # creates waiting for a change
        self._poller = trio.lowlevel.ParkingLot()  # the poller, while none wait
        self._unanswered: set[str] = set()  # pools whose last ask failed (logged)
        # Where the next time limit falls in the spread (0 to 1; the first
        # is MAX_HOLD_S).
        self._spread = 0.5
        # Creates that waited, how long together, and how many of them went
        # for their time limit: logged every REPORT_S while there are any.
        self.held = self.held_timed_out = 0
        self.held_s = 0.0
        self._reported = (0, 0, 0.0)

    def backlog(self, pool: str) -> int:
        """resmgr's count of the pool's gangs, and the tasks on their way
        to it: ours, and the other jobmgrs' as many again for their share
        of the shards (see the module)."""
        ours = self._gangs.pool_waiting(pool) + self._admitted.get(pool, 0)
        return self._heard.get(pool, 0) + math.ceil(ours / self._share())

    def hold_limit(self) -> float:
        """The next held create's time limit (see the module)."""
        limit = MAX_HOLD_S + HOLD_SPREAD * (2 * self._spread - 1)
        self._spread = (self._spread + _GOLDEN) % 1.0
        return limit

    def note(self, pool: str, waiting: int) -> None:
        """resmgr's count of ``pool``'s gangs not yet placed."""
        self._heard[pool] = waiting
        self._lot.unpark_all()

    @contextlib.asynccontextmanager
    async def admit(self, pool: str, tasks: int) -> AsyncIterator[None]:
        """Wait (see the module) until a create of ``tasks`` tasks in
        ``pool`` may go; its tasks count in the backlog until the block
        ends (when they are in the batcher, or the create failed)."""
        if tasks > EXPRESS and self.backlog(pool) >= self._limit:
            began = trio.current_time()
            until = min(began + self.hold_limit(),
                        trio.current_effective_deadline() - DEADLINE_MARGIN_S)
            self._waiting[pool] = self._waiting.get(pool, 0) + 1
            self._poller.unpark_all()
            try:
                with trio.move_on_at(until) as scope:
                    while self.backlog(pool) >= self._limit:
                        await self._lot.park()
                self.held_timed_out += scope.cancelled_caught
            finally:
                self._waiting[pool] -= 1
                if not self._waiting[pool]:
                    del self._waiting[pool]
                self.held += 1
                self.held_s += trio.current_time() - began
        self._admitted[pool] = self._admitted.get(pool, 0) + tasks
        try:
            yield
        finally:
            self._admitted[pool] -= tasks
            if not self._admitted[pool]:
                del self._admitted[pool]
            self._lot.unpark_all()

    async def run(self) -> None:
        """Ask resmgr for the backlog of the pools creates wait for, every
        POLL_S while any does, until cancelled; log what waited."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._report_loop)
            await self._poll_loop()

    async def _report_loop(self) -> None:
        while True:
            await trio.sleep(REPORT_S)
            held, timed_out, held_s = self.held, self.held_timed_out, self.held_s
            was = self._reported
            if held == was[0]:
                continue
            self._reported = (held, timed_out, held_s)
            n = held - was[0]
            full = [f"{pool} {backlog}" for pool in sorted(self._heard)
                    if (backlog := self.backlog(pool)) >= self._limit]
            log.info("%d large creates waited for their pools' placement backlog (%.2f s "
                     "each on average, %d for the time limit); pools at the bound now: %s", n,
                     (held_s - was[2]) / n, timed_out - was[1], ", ".join(full) or "none")

    async def _poll_loop(self) -> None:
        while True:
            if not self._waiting:
                await self._poller.park()
                continue
            for pool in list(self._waiting):
                try:
                    self.note(pool, await self._ask(pool))
                except PelotonError as error:  # the waits end by their time limit
                    if pool not in self._unanswered:  # once, not every POLL_S
                        self._unanswered.add(pool)
                        log.info("asking resmgr for pool %s's backlog: %s", pool, error)
                else:
                    self._unanswered.discard(pool)
            await trio.sleep(POLL_S)


__all__ = ["BACKLOG", "HOLD_SPREAD", "MAX_HOLD_S", "POLL_S", "Intake"]
