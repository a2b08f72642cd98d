"""Task events from the host managers, for every shard a jobmgr acts for.

A host manager keeps a stream of events per shard (``peloton.hostmgr.events``),
pull-based and acknowledged: an event stays until a consumer says it has it
persisted. A jobmgr follows all its shards' streams of a host manager in one
long poll (``WaitForEvents`` with a cursor a shard), not one a shard: with 16
shards and two host managers the jobmgrs made ~470 calls a second in the
single-task load, each carrying ~4 events, and the calls were two thirds of
what the host managers served.

Each shard's events go to its writer in order through a deliverer of its
own, so a shard whose writer is busy (a large create) holds up neither the
poll nor the other shards. A cursor carries two offsets: the events its
writer has persisted (``purgeOffset``: the host manager forgets them) and
those on their way to it (``after``: not answered again). A batch the writer
refuses (the store unavailable) is dropped with everything queued after it,
and the stream is read again from what was persisted: at least once, in
order. A shard with more than ``IN_FLIGHT`` events on their way is left out
of the poll until its writer catches up.

A host manager that restarted numbers its events from 1 again (another
``incarnation``): every cursor starts over, and each shard asks it where its
runs stand (a full reconcile), since the events it had not delivered are
gone.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import trio

from peloton.api.private.hostmgrsvc import hostmgrsvc_pb2 as hpb
from peloton.core.errors import PelotonError
from peloton.jobmgr.engine import ShardEngine
from peloton.rpc import ServiceClient

log = logging.getLogger(__name__)

# Events one poll answers at most; events a shard may have on their way to
# its writer before its stream is left out of the poll.
LIMIT = 4000
IN_FLIGHT = 2000
# How long a poll waits for an event (ms), and its call's deadline (s).
WAIT_MS = 1000
CALL_S = 5.0

Batch = tuple[int, list[hpb.TaskEvent]]  # (the cursor's generation, events)


@dataclass(eq=False)
class _Cursor:
    """Where this jobmgr stands in one shard's stream of one host manager."""

    engine: ShardEngine
    persisted: int = 0  # acknowledged at the next poll
    received: int = 0  # handed to the deliverer
    # Bumped when what is queued must be dropped (a refused batch, a
    # restarted host manager): a batch of an older generation is skipped.
    generation: int = 0
    send: trio.MemorySendChannel[Batch] = field(init=False)
    recv: trio.MemoryReceiveChannel[Batch] = field(init=False)

    def __post_init__(self) -> None:
        self.send, self.recv = trio.open_memory_channel[Batch](float("inf"))

    def start_over(self) -> None:
        """Read the stream again from what the writer persisted."""
        self.generation += 1
        self.received = self.persisted


class ClusterEvents:
    """Follows the streams of one host manager (``cluster``) for the shards
    ``engines()`` names, delivering each shard's events to its engine's
    ``deliver`` (the jobmgr's lanes and writer)."""

    def __init__(self, cluster: str, client: Callable[[], ServiceClient],
                 engines: Callable[[], dict[int, ShardEngine]],
                 engines_changed: Callable[[], trio.Event],
                 deliver: Callable[[ShardEngine, list[hpb.TaskEvent]], Awaitable[None]],
                 reconcile: Callable[[ShardEngine], Awaitable[None]]) -> None:
        self.cluster = cluster
        self._client = client
        self._engines = engines
        self._engines_changed = engines_changed
        self._deliver = deliver
        self._reconcile = reconcile
        self._cursors: dict[int, _Cursor] = {}
        self._incarnation = ""
        # Set (and replaced) when a deliverer's batch is persisted.
        self._persisted = trio.Event()

    async def run(self) -> None:
        """Poll and deliver until cancelled."""
        async with trio.open_nursery() as nursery:
            while True:
                changed = self._engines_changed()
                self._follow(nursery)
                # Each cursor polled, as it is now: one replaced (another
                # engine of the shard) or started over while the poll is
                # out drops what the poll answers for it.
                polled = {shard: (c, c.generation) for shard, c in self._cursors.items()
                          if c.received - c.persisted < IN_FLIGHT}
                cursors = [hpb.ShardCursor(shard=shard, purgeOffset=c.persisted, after=c.received)
                           for shard, (c, _) in polled.items()]
                if not cursors:
                    # No shard to follow (wait for one), or all of them
                    # full (wait for a writer to catch up).
                    with trio.move_on_after(WAIT_MS / 1000):
                        await (self._persisted if self._cursors else changed).wait()
                    continue
                try:
                    reply = await self._poll(cursors, changed)
                except PelotonError as error:
                    log.info("events from %s: %s", self.cluster, error)
                    await trio.sleep(0.5)
                    continue
                except Exception:  # a bug: say so loudly; the events come back
                    log.exception("events from %s", self.cluster)
                    await trio.sleep(5.0)
                    continue
                if reply is not None:
                    self._follow(nursery)  # (a shard let go meanwhile takes none)
                    await self._take(reply, polled)

    def _follow(self, nursery: trio.Nursery) -> None:
        """A cursor (and its deliverer) for each shard acted for; none for
        a shard let go (its deliverer ends once its engine stopped)."""
        engines = self._engines()
        for shard, cursor in list(self._cursors.items()):
            if engines.get(shard) is not cursor.engine:
                del self._cursors[shard]
                cursor.send.close()
        for shard, engine in engines.items():
            if shard not in self._cursors:
                cursor = self._cursors[shard] = _Cursor(engine)
                nursery.start_soon(self._deliverer, shard, cursor)

    async def _poll(self, cursors: list[hpb.ShardCursor],
                    changed: trio.Event) -> hpb.WaitForEventsResponse | None:
        """One WaitForEvents; None if the shards acted for changed first
        (the poll is made again with theirs)."""
        request = hpb.WaitForEventsRequest(cursors=cursors, limit=LIMIT, timeout=WAIT_MS,
                                           incarnation=self._incarnation)
        client = self._client()
        answer: list[hpb.WaitForEventsResponse] = []
        async with trio.open_nursery() as nursery:
            async def call() -> None:
                answer.append(await client.call("WaitForEvents", request, timeout=CALL_S))
                nursery.cancel_scope.cancel()

            async def watch() -> None:
                await changed.wait()
                nursery.cancel_scope.cancel()

            nursery.start_soon(call)
            nursery.start_soon(watch)
        return answer[0] if answer else None

    async def _take(self, reply: hpb.WaitForEventsResponse,
                    polled: dict[int, tuple[_Cursor, int]]) -> None:
        if reply.incarnation != self._incarnation:
            # Offsets count from 1 again; a host manager that restarted lost
            # the events it had not delivered: ask it where each run stands.
            restarted = bool(self._incarnation)
            self._incarnation = reply.incarnation
            for shard, cursor in self._cursors.items():
                cursor.persisted = 0
                cursor.start_over()
                if shard in polled:
                    polled[shard] = (cursor, cursor.generation)
            if restarted:
                log.info("hostmgr of %s restarted: reconciling %d shards", self.cluster,
                         len(self._cursors))
                async with trio.open_nursery() as reconciles:
                    for cursor in self._cursors.values():
                        reconciles.start_soon(self._reconcile, cursor.engine)
        by_shard: dict[int, list[hpb.TaskEvent]] = {}
        for event in reply.events:
            by_shard.setdefault(event.shard, []).append(event)
        for shard, events in by_shard.items():
            following = self._cursors.get(shard)
            if following is None or (following, following.generation) != polled.get(shard):
                # Let go meanwhile (not acknowledged: its next owner reads
                # it), or started over (read again, in order).
                continue
            fresh = [e for e in events if e.offset > following.received]
            if fresh:
                following.received = fresh[-1].offset
                following.send.send_nowait((following.generation, fresh))

    async def _deliverer(self, shard: int, cursor: _Cursor) -> None:
        """Hand the shard's batches to its writer, in order, all that wait
        at once (so a small job's event queued behind a bulk batch goes in
        the next turn's express lane, not a turn later); note what was
        persisted, for the next poll to acknowledge."""
        async for generation, first in cursor.recv:
            # Batches queued behind a refused one (an older generation) are
            # dropped: they come again, in order.
            events = list(first) if generation == cursor.generation else []
            while True:
                try:
                    later, more = cursor.recv.receive_nowait()
                except (trio.WouldBlock, trio.EndOfChannel):
                    break
                if later == cursor.generation:
                    events += more
            generation = cursor.generation
            if not events:
                continue
            if cursor.engine.stopped or self._cursors.get(shard) is not cursor:
                return  # let go: its next owner reads the stream
            try:
                await self._deliver(cursor.engine, events)
            except PelotonError as error:
                if cursor.engine.stopped:
                    return
                log.info("events of shard %d from %s: %s", shard, self.cluster, error)
                cursor.start_over()
                await trio.sleep(0.5)
                continue
            except Exception:
                log.exception("events of shard %d from %s", shard, self.cluster)
                cursor.start_over()
                await trio.sleep(5.0)
                continue
            if generation == cursor.generation:
                cursor.persisted = max(cursor.persisted, events[-1].offset)
                self._persisted.set()
                self._persisted = trio.Event()
