"""A jobmgr follows its shards' task events from a host manager in one poll:
each shard's events reach its writer in order, at least once, and are
acknowledged once persisted (``peloton.jobmgr.events``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import trio
import trio.testing

from peloton.api.private.hostmgrsvc import hostmgrsvc_pb2 as hpb
from peloton.core.errors import Unavailable
from peloton.core.states import TaskState
from peloton.hostmgr.backends.base import StatusUpdate
from peloton.hostmgr.events import EventStreams
from peloton.jobmgr import events as jm_events
from peloton.jobmgr.events import ClusterEvents


@dataclass(eq=False)
class FakeEngine:
    shard: int
    stopped: bool = False


class FakeHostmgr:
    """WaitForEvents as the host manager answers it, over real streams."""

    def __init__(self) -> None:
        self.streams = EventStreams()
        self.incarnation = "one"
        self.requests: list[hpb.WaitForEventsRequest] = []

    def add(self, shard: int, mid: str) -> None:
        self.streams.add(shard, StatusUpdate(mid, TaskState.RUNNING, "h1"))

    async def call(self, method: str, request: hpb.WaitForEventsRequest, *,
                   timeout: float) -> hpb.WaitForEventsResponse:
        assert method == "WaitForEvents"
        self.requests.append(request)
        same = request.incarnation == self.incarnation
        many = await self.streams.wait_many(
            [(c.shard, c.purgeOffset, c.after) if same else (c.shard, 0, 0)
             for c in request.cursors], request.limit, request.timeout / 1000)
        return hpb.WaitForEventsResponse(incarnation=self.incarnation, events=[
            hpb.TaskEvent(shard=s, offset=o, mesosTaskId=u.mesos_task_id) for s, o, u in many])


@dataclass
class Jobmgr:
    engines: dict[int, FakeEngine] = field(default_factory=dict)
    changed: trio.Event = field(default_factory=trio.Event)
    delivered: list[tuple[int, list[str]]] = field(default_factory=list)
    refuse: set[str] = field(default_factory=set)  # runs whose batch is refused once
    reconciled: list[int] = field(default_factory=list)
    # What an engine's writer waits for before its turn (None: nothing).
    hold: Callable[[Any], trio.Event | None] = lambda engine: None

    def set_engines(self, engines: dict[int, FakeEngine]) -> None:
        self.engines = engines
        self.changed.set()
        self.changed = trio.Event()

    async def deliver(self, engine: Any, events: list[hpb.TaskEvent]) -> None:
        held = self.hold(engine)
        if held is not None:
            await held.wait()
        await trio.sleep(0.01)  # the writer's turn
        if engine.stopped:  # fenced off: its writes are refused
            raise Unavailable(f"shard {engine.shard} stopped serving here")
        mids = [e.mesosTaskId for e in events]
        if self.refuse & set(mids):
            self.refuse -= set(mids)
            raise Unavailable("the store is busy")
        self.delivered.append((engine.shard, mids))

    async def reconcile(self, engine: Any) -> None:
        self.reconciled.append(engine.shard)

    def follow(self, hostmgr: FakeHostmgr) -> ClusterEvents:
        return ClusterEvents("c", lambda: hostmgr, lambda: dict(self.engines),  # type: ignore[arg-type, return-value]
                             lambda: self.changed, self.deliver, self.reconcile)

    def of(self, shard: int) -> list[str]:
        return [m for s, mids in self.delivered if s == shard for m in mids]


async def test_each_shards_events_arrive_in_order_and_are_acknowledged_once_persisted(
        autojump_clock: trio.testing.MockClock) -> None:
    hm, jm = FakeHostmgr(), Jobmgr()
    jm.set_engines({1: FakeEngine(1), 2: FakeEngine(2)})
    async with trio.open_nursery() as nursery:
        nursery.start_soon(jm.follow(hm).run)
        for i in range(6):
            hm.add(1 + i % 2, f"r{i}-0-1")
            await trio.sleep(0.003)
        await trio.sleep(2)
        assert jm.of(1) == ["r0-0-1", "r2-0-1", "r4-0-1"]
        assert jm.of(2) == ["r1-0-1", "r3-0-1", "r5-0-1"]
        # One poll follows both shards; what was persisted is purged by the next.
        assert {c.shard for c in hm.requests[-1].cursors} == {1, 2}
        assert hm.streams.pending() == {}
        assert len(hm.requests) < 10  # polls, not one a shard an event
        nursery.cancel_scope.cancel()


async def test_a_refused_batch_is_read_again_before_anything_after_it(
        autojump_clock: trio.testing.MockClock) -> None:
    """The writer refuses a batch (the store unavailable): it and what was
    queued behind it come again, in order, and nothing is delivered twice
    out of order."""
    hm, jm = FakeHostmgr(), Jobmgr()
    jm.refuse = {"b-0-1"}
    jm.set_engines({1: FakeEngine(1)})
    async with trio.open_nursery() as nursery:
        nursery.start_soon(jm.follow(hm).run)
        await trio.sleep(0.1)
        for mid in ("a-0-1", "b-0-1", "c-0-1", "d-0-1"):
            hm.add(1, mid)
            await trio.sleep(0.005)
        await trio.sleep(3)
        nursery.cancel_scope.cancel()
    got = jm.of(1)
    assert "b-0-1" in got and got == sorted(got)  # in order
    assert got.index("b-0-1") < got.index("c-0-1") < got.index("d-0-1")
    assert hm.streams.pending() == {}


async def test_a_shard_taken_meanwhile_is_followed_at_once_from_its_first_event(
        autojump_clock: trio.testing.MockClock) -> None:
    """A poll out for some shards is made again when the jobmgr acts for
    another; a shard let go is no longer acknowledged (its next owner reads
    its stream from what was persisted)."""
    hm, jm = FakeHostmgr(), Jobmgr()
    jm.set_engines({1: FakeEngine(1)})
    hm.add(2, "early-0-1")  # before this jobmgr owned shard 2
    async with trio.open_nursery() as nursery:
        nursery.start_soon(jm.follow(hm).run)
        await trio.sleep(0.5)  # a poll of shard 1 waits
        jm.set_engines({1: jm.engines[1], 2: FakeEngine(2)})
        await trio.sleep(0.1)
        assert jm.of(2) == ["early-0-1"]
        assert trio.current_time() < 1.0  # not after the first poll's wait
        jm.set_engines({2: jm.engines[2]})
        hm.add(1, "later-0-1")
        await trio.sleep(2)
        assert jm.of(1) == [] and hm.streams.pending() == {1: 1}
        nursery.cancel_scope.cancel()


async def test_a_restarted_host_manager_is_reconciled_and_read_from_its_first_event(
        autojump_clock: trio.testing.MockClock) -> None:
    hm, jm = FakeHostmgr(), Jobmgr()
    jm.set_engines({1: FakeEngine(1), 2: FakeEngine(2)})
    async with trio.open_nursery() as nursery:
        nursery.start_soon(jm.follow(hm).run)
        hm.add(1, "a-0-1")
        await trio.sleep(2)
        assert jm.reconciled == []  # the first answer names the incarnation
        hm.streams, hm.incarnation = EventStreams(), "two"  # it restarted
        hm.add(1, "b-0-1")
        await trio.sleep(2)
        assert sorted(jm.reconciled) == [1, 2]
        assert jm.of(1) == ["a-0-1", "b-0-1"]
        assert hm.requests[-1].incarnation == "two"
        nursery.cancel_scope.cancel()


async def test_a_shard_with_too_much_on_its_way_is_left_out_until_it_catches_up(
        autojump_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jm_events, "IN_FLIGHT", 2)
    hm, jm = FakeHostmgr(), Jobmgr()
    jm.set_engines({1: FakeEngine(1)})
    for i in range(5):
        hm.add(1, f"r{i}-0-1")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(jm.follow(hm).run)
        await trio.sleep(0.5)
        assert jm.of(1) == [f"r{i}-0-1" for i in range(5)]
        # Left out while full, polled (and acknowledged) again as soon as
        # its writer caught up, not a poll's wait later.
        assert hm.streams.pending() == {}
        nursery.cancel_scope.cancel()


async def test_a_shards_new_engine_gets_what_its_old_one_had_not_persisted(
        autojump_clock: trio.testing.MockClock) -> None:
    """The shard's engine is replaced (a new epoch) while its events are on
    their way to the old one's writer, which never persists them: the new
    engine reads the stream from its first unacknowledged event."""
    hm, jm = FakeHostmgr(), Jobmgr()
    old = FakeEngine(1)
    stuck = trio.Event()
    jm.hold = lambda engine: stuck if engine is old else None
    jm.set_engines({1: old})
    async with trio.open_nursery() as nursery:
        nursery.start_soon(jm.follow(hm).run)
        for mid in ("a-0-1", "b-0-1", "c-0-1"):
            hm.add(1, mid)
        await trio.sleep(2)
        assert jm.delivered == []
        old.stopped = True
        jm.set_engines({1: FakeEngine(1)})
        await trio.sleep(2)
        assert jm.of(1) == ["a-0-1", "b-0-1", "c-0-1"]
        assert hm.streams.pending() == {}
        stuck.set()  # the old writer's turn comes at last: it delivers nothing more
        await trio.sleep(1)
        assert jm.of(1) == ["a-0-1", "b-0-1", "c-0-1"]
        nursery.cancel_scope.cancel()


async def test_what_waits_for_a_busy_writer_goes_to_it_in_one_turn(
        autojump_clock: trio.testing.MockClock) -> None:
    """Batches that came while the shard's writer was busy go to it
    together (a small job's event among them is in the next turn's express
    lane, not behind each batch in turn), in order."""
    hm, jm = FakeHostmgr(), Jobmgr()
    busy = trio.Event()
    jm.hold = lambda engine: busy if not jm.delivered else None
    jm.set_engines({1: FakeEngine(1)})
    async with trio.open_nursery() as nursery:
        nursery.start_soon(jm.follow(hm).run)
        for mid in ("a-0-1", "b-0-1", "c-0-1", "d-0-1"):
            hm.add(1, mid)
            await trio.sleep(0.1)  # each comes in a poll of its own
        busy.set()
        await trio.sleep(1)
        nursery.cancel_scope.cancel()
    assert jm.delivered == [(1, ["a-0-1"]), (1, ["b-0-1", "c-0-1", "d-0-1"])]
