"""Per-jobmgr-shard task event streams: pull-based, acknowledged, at-least-once.

Each shard has a buffer of events with increasing offsets. A consumer asks
for events after the offset it has processed and, in the same call, purges
everything up to it. Events stay until purged, so an owner that dies before
persisting what it pulled loses nothing: the next owner gets them again.
A purged run's end is thereby acknowledged (``on_acknowledged``): the
backend may forget the run once its ``gc_delay`` has passed.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import trio

from peloton.core.states import TERMINAL_TASK_STATES
from peloton.hostmgr.backends.base import StatusUpdate


@dataclass(slots=True)
class _Stream:
    events: deque[tuple[int, StatusUpdate]] = field(default_factory=deque)
    next_offset: int = 1
    last_end: int = 0  # the offset of the last run's end added

    def ahead(self, after: int) -> bool:
        """Whether it holds an event with offset above ``after``."""
        return bool(self.events) and self.events[-1][0] > after

    def count_ahead(self, after: int) -> int:
        return min(len(self.events), self.next_offset - 1 - after)


class EventStreams:
    """``linger``: how long a wait that found only runs' starts (no end)
    waits on for an end before it answers (``wait_many``)."""

    def __init__(self, on_acknowledged: Callable[[Sequence[str]], None] | None = None, *,
                 linger: float = 0.0) -> None:
        self._streams: dict[int, _Stream] = {}
        self._on_acknowledged = on_acknowledged
        self._linger = linger
        # Set (and replaced) at every event: what waits wake for.
        self._added = trio.Event()
        self._rotation = 0

    def _stream(self, shard: int) -> _Stream:
        stream = self._streams.get(shard)
        if stream is None:
            stream = self._streams[shard] = _Stream()
        return stream

    def add(self, shard: int, update: StatusUpdate) -> None:
        stream = self._stream(shard)
        stream.events.append((stream.next_offset, update))
        if update.state in TERMINAL_TASK_STATES:
            stream.last_end = stream.next_offset
        stream.next_offset += 1
        self._added.set()
        self._added = trio.Event()

    def purge(self, shard: int, offset: int) -> None:
        stream = self._stream(shard)
        ended: list[str] = []
        while stream.events and stream.events[0][0] <= offset:
            update = stream.events.popleft()[1]
            if update.state in TERMINAL_TASK_STATES:
                ended.append(update.mesos_task_id)
        if ended and self._on_acknowledged is not None:
            self._on_acknowledged(ended)

    async def wait(self, shard: int, after: int, limit: int,
                   timeout: float) -> list[tuple[int, StatusUpdate]]:
        """One shard's events with offset > ``after`` (at most ``limit``),
        purged up to it, waiting up to ``timeout`` (``wait_many``'s)."""
        many = await self.wait_many([(shard, after, after)], limit, timeout)
        return [(offset, update) for _, offset, update in many]

    async def wait_many(self, cursors: Sequence[tuple[int, int, int]], limit: int,
                        timeout: float) -> list[tuple[int, int, StatusUpdate]]:
        """Events of several shards at once. ``cursors``: (shard, purge,
        after) triples: each shard's stream is purged up to ``purge``, and
        its events with offsets above ``after`` (at least ``purge``) are
        answered, as (shard, offset, event) triples, at most ``limit``,
        waiting up to ``timeout`` for one. The shards take turns to come
        first, so a busy one does not keep the others waiting.

        Found events but no run's end among them (fewer than ``limit``),
        it waits up to the streams' ``linger`` more for one: a short run's
        start and end then go in one answer, and the consumer records them
        in one write and reports one state (not two) to resmgr. When runs
        come one at a time (small jobs from a CLI), each otherwise cost two
        answers, two writes, two reports and two Raft commands."""
        streams = []
        for shard, purge, after in cursors:
            self.purge(shard, purge)
            streams.append((shard, max(after, purge), self._stream(shard)))

        with trio.move_on_after(timeout):
            while not any(stream.ahead(after) for _, after, stream in streams):
                await self._added.wait()
            if self._linger > 0:
                with trio.move_on_after(self._linger):
                    while not (any(stream.last_end > after for _, after, stream in streams)
                               or sum(stream.count_ahead(after)
                                      for _, after, stream in streams) >= limit):
                        await self._added.wait()
        out: list[tuple[int, int, StatusUpdate]] = []
        if not streams:
            return out
        self._rotation += 1
        first = self._rotation % len(streams)
        for shard, after, stream in streams[first:] + streams[:first]:
            if not stream.ahead(after):
                continue
            for offset, update in stream.events:
                if offset > after:
                    if len(out) >= limit:
                        return out
                    out.append((shard, offset, update))
        return out

    def pending(self) -> dict[int, int]:
        return {s: len(st.events) for s, st in self._streams.items() if st.events}
