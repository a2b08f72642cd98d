"""The owner loop under trio's MockClock, with a fake resmgr."""

from __future__ import annotations

from typing import Any

import pytest
import trio
import trio.testing

from peloton.api.private.cluster import cluster_pb2 as cpb
from peloton.core.errors import Unavailable
from peloton.shard.owner import ShardOwner

LEASE, PERIOD, MARGIN = 10.0, 1.0, 1.5


def view(now: float, shards: dict[int, tuple[str, int, float]], num_shards: int = 4,
         ) -> cpb.ClusterView:
    return cpb.ClusterView(now=now, numShards=num_shards, shards=[
        cpb.ShardOwner(shard=s, owner=o, epoch=e, actFrom=at) for s, (o, e, at) in shards.items()])


class FakeResmgr:
    """Answers heartbeats with ``self.view`` after ``delay`` seconds, or
    hangs (``stalled``), or fails (``failing``)."""

    def __init__(self, v: cpb.ClusterView) -> None:
        self.view = v
        self.delay = 0.0
        self.stalled = False
        self.failing = False
        self.sent: list[float] = []

    async def heartbeat(self) -> cpb.ClusterView:
        self.sent.append(trio.current_time())
        if self.stalled:
            await trio.sleep_forever()
        await trio.sleep(self.delay)
        if self.failing:
            raise Unavailable("resmgr is away")
        return self.view


class Workers:
    def __init__(self) -> None:
        self.log: list[tuple[str, int, int, float]] = []

    async def run(self, shard: int, epoch: int) -> None:
        self.log.append(("start", shard, epoch, trio.current_time()))
        try:
            await trio.sleep_forever()
        finally:
            self.log.append(("stop", shard, epoch, trio.current_time()))


@pytest.fixture
def clock() -> trio.testing.MockClock:
    return trio.testing.MockClock(autojump_threshold=0)


async def start(resmgr: FakeResmgr, workers: Workers, nursery: trio.Nursery,
                num_shards: int = 4) -> ShardOwner:
    owner = ShardOwner("j1", num_shards, resmgr.heartbeat, workers.run, lease=LEASE,
                       period=PERIOD, margin=MARGIN)
    nursery.start_soon(owner.run)
    return owner


async def test_the_owner_stops_acting_exactly_when_its_lease_lapses(
        clock: trio.testing.MockClock) -> None:
    resmgr = FakeResmgr(view(1000.0, {0: ("j1", 1, 1000.0), 1: ("j2", 1, 1000.0)}))
    workers = Workers()
    async with trio.open_nursery() as nursery:
        owner = await start(resmgr, workers, nursery)
        await trio.sleep(2.5)  # heartbeats at 0, 1, 2 succeed
        assert workers.log == [("start", 0, 1, 0.0)]
        resmgr.stalled = True  # the heartbeat sent at 3 never returns
        await trio.sleep(20)
        # Counted from the last heartbeat that succeeded, sent at 2.0.
        assert workers.log[-1] == ("stop", 0, 1, 2.0 + LEASE - MARGIN)
        assert not owner.acting() and owner.owned() == {}
        nursery.cancel_scope.cancel()


async def test_a_slow_reply_does_not_stretch_the_lease(clock: trio.testing.MockClock) -> None:
    resmgr = FakeResmgr(view(1000.0, {0: ("j1", 1, 1000.0)}))
    resmgr.delay = 3.0  # each reply takes 3 s
    workers = Workers()
    async with trio.open_nursery() as nursery:
        owner = await start(resmgr, workers, nursery)
        await trio.sleep(3.5)
        assert owner.lease.ends_at == 0.0 + LEASE - MARGIN  # sent at 0, not received at 3
        nursery.cancel_scope.cancel()


async def test_failing_heartbeats_end_acting_at_the_lease_not_at_the_failure(
        clock: trio.testing.MockClock) -> None:
    resmgr = FakeResmgr(view(1000.0, {0: ("j1", 1, 1000.0)}))
    workers = Workers()
    async with trio.open_nursery() as nursery:
        await start(resmgr, workers, nursery)
        await trio.sleep(0.5)
        resmgr.failing = True  # from the heartbeat sent at 1
        await trio.sleep(3)
        assert workers.log == [("start", 0, 1, 0.0)]  # still within its lease
        await trio.sleep(10)
        assert workers.log[-1] == ("stop", 0, 1, 0.0 + LEASE - MARGIN)
        resmgr.failing = False  # back: the shard is taken up again
        await trio.sleep(1)
        assert workers.log[-1][:3] == ("start", 0, 1)
        nursery.cancel_scope.cancel()


async def test_a_new_owner_waits_for_act_from(clock: trio.testing.MockClock) -> None:
    # resmgr's clock reads 1000 and says: act from 1004 (the old owner's end).
    resmgr = FakeResmgr(view(1000.0, {2: ("j1", 5, 1004.0)}))
    resmgr.delay = 0.25
    workers = Workers()
    async with trio.open_nursery() as nursery:
        await start(resmgr, workers, nursery)
        await trio.sleep(6)
        assert workers.log[0] == ("start", 2, 5, 0.25 + 4.0)
        nursery.cancel_scope.cancel()


async def test_a_shard_that_moves_away_or_changes_epoch_is_dropped(
        clock: trio.testing.MockClock) -> None:
    resmgr = FakeResmgr(view(1000.0, {0: ("j1", 1, 1000.0), 1: ("j1", 1, 1000.0)}))
    workers = Workers()
    async with trio.open_nursery() as nursery:
        owner = await start(resmgr, workers, nursery)
        await trio.sleep(0.5)
        assert owner.owned() == {0: 1, 1: 1}
        resmgr.view = view(1001.0, {0: ("j2", 2, 1011.0), 1: ("j1", 2, 1001.0)})
        await trio.sleep(1)
        assert owner.owned() == {1: 2}
        assert ("stop", 0, 1, 1.0) in workers.log and ("stop", 1, 1, 1.0) in workers.log
        assert workers.log[-1] == ("start", 1, 2, 1.0)
        nursery.cancel_scope.cancel()


async def test_a_jobmgr_that_disagrees_on_num_shards_acts_on_nothing(
        clock: trio.testing.MockClock) -> None:
    resmgr = FakeResmgr(view(1000.0, {0: ("j1", 1, 1000.0)}, num_shards=8))
    workers = Workers()
    async with trio.open_nursery() as nursery:
        owner = await start(resmgr, workers, nursery, num_shards=16)
        await trio.sleep(3)
        assert workers.log == [] and owner.owned() == {}
        assert owner.refusal == (
            "num_shards: this jobmgr's cluster file says 16, but the cluster was bootstrapped "
            "with 8 shards; it acts on no shard until its cluster file says 8")
        nursery.cancel_scope.cancel()


async def test_a_worker_that_returns_is_started_again_while_the_map_says_so(
        clock: trio.testing.MockClock) -> None:
    resmgr = FakeResmgr(view(1000.0, {0: ("j1", 1, 1000.0)}))
    starts: list[float] = []

    async def fenced(shard: int, epoch: int) -> Any:
        starts.append(trio.current_time())

    async with trio.open_nursery() as nursery:
        owner = ShardOwner("j1", 4, resmgr.heartbeat, fenced, lease=LEASE, period=PERIOD,
                           margin=MARGIN)
        nursery.start_soon(owner.run)
        await trio.sleep(2.5)
        assert starts == [0.0, 1.0, 2.0]
        nursery.cancel_scope.cancel()
