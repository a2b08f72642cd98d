"""Intake: a large create waits while its pool's placement backlog is long,
for at most its time limit and never past its caller's deadline; a small
create never waits; resmgr is asked while a create waits."""

from __future__ import annotations

import itertools
import logging

import pytest
import trio
import trio.testing

from peloton.core.errors import Unavailable
from peloton.jobmgr.enqueue import EXPRESS, GangBatcher
from peloton.jobmgr.intake import HOLD_SPREAD, MAX_HOLD_S, POLL_S, Intake

LIMIT = 5000


class Resmgr:
    """What resmgr says of each pool's gangs not yet placed."""

    def __init__(self) -> None:
        self.waiting: dict[str, int] = {}
        self.asked: list[tuple[float, str]] = []
        self.down = False

    async def ask(self, pool: str) -> int:
        self.asked.append((trio.current_time(), pool))
        if self.down:
            raise Unavailable("no resmgr leader")
        return self.waiting.get(pool, 0)


def intake(resmgr: Resmgr, batcher: GangBatcher | None = None, share: float = 1.0) -> Intake:
    return Intake(batcher or GangBatcher(), resmgr.ask, backlog=LIMIT, share=lambda: share)


async def create(gate: Intake, pool: str, tasks: int, done: list[tuple[str, float]],
                 name: str, release: trio.Event | None = None) -> None:
    """A create through the intake; with ``release``, its tasks stay in the
    count until it is set (rows and the write, not yet in the batcher)."""
    async with gate.admit(pool, tasks):
        done.append((name, trio.current_time()))
        if release is not None:
            await release.wait()


async def test_a_large_create_waits_for_its_pools_backlog_to_fall(
        autojump_clock: trio.testing.MockClock) -> None:
    resmgr = Resmgr()
    resmgr.waiting["bulk"] = LIMIT + 1000
    gate = intake(resmgr)
    gate.note("bulk", LIMIT + 1000)  # as an EnqueueGangs reply said
    done: list[tuple[str, float]] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(gate.run)
        nursery.start_soon(create, gate, "bulk", 1000, done, "large")
        nursery.start_soon(create, gate, "bulk", EXPRESS, done, "small")
        nursery.start_soon(create, gate, "other", 1000, done, "other pool")
        await trio.sleep(1.0)
        assert sorted(name for name, _ in done) == ["other pool", "small"]
        resmgr.waiting["bulk"] = LIMIT - 1000  # placement took some: the next poll hears it
        await trio.sleep(1.0)
        nursery.cancel_scope.cancel()
    assert [name for name, _ in done][2:] == ["large"]
    assert 1.0 <= done[2][1] <= 1.0 + 2 * POLL_S
    assert gate.held == 1 and gate.held_timed_out == 0
    # Asked while the create waited, every POLL_S, and then no more.
    times = [t for t, pool in resmgr.asked if pool == "bulk"]
    assert 9 <= len(times) <= 12 and max(times) <= done[2][1]


async def test_what_a_create_admitted_counts_until_its_tasks_are_in_the_batcher(
        autojump_clock: trio.testing.MockClock) -> None:
    """Creates that wait go one after another as the backlog allows, not
    all at once: each admitted create's tasks count until its block ends."""
    resmgr = Resmgr()
    resmgr.waiting["bulk"] = LIMIT - 500
    gate = intake(resmgr)
    gate.note("bulk", LIMIT - 500)
    done: list[tuple[str, float]] = []
    release = trio.Event()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(gate.run)
        nursery.start_soon(create, gate, "bulk", 1000, done, "first", release)
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(create, gate, "bulk", 1000, done, "second", release)
        await trio.sleep(1.0)
        assert [name for name, _ in done] == ["first"]  # 4,500 + 1,000 admitted
        assert gate.backlog("bulk") == LIMIT + 500
        release.set()  # the first's tasks left the count (the batcher's part is 0 here)
        await trio.sleep(1.0)
        nursery.cancel_scope.cancel()
    assert [name for name, _ in done] == ["first", "second"]


async def test_the_batchers_unsent_tasks_of_the_pool_count() -> None:
    class Engine:
        stopped = False

    batcher = GangBatcher()
    gate = intake(Resmgr(), batcher)
    gate.note("bulk", 100)
    batcher.add(Engine(), "bulk", [object()] * 300)  # type: ignore[arg-type,list-item]
    batcher.add(Engine(), "other", [object()] * 7)  # type: ignore[arg-type,list-item]
    assert gate.backlog("bulk") == 400
    assert gate.backlog("other") == 7


async def test_a_create_waits_at_most_its_time_limit(
        autojump_clock: trio.testing.MockClock, caplog: pytest.LogCaptureFixture) -> None:
    """A pool that waits for capacity for minutes still takes creates; one
    whose backlog cannot be asked (no resmgr leader) too, and that is
    logged once, not at every ask."""
    caplog.set_level(logging.INFO, logger="peloton.jobmgr.intake")
    resmgr = Resmgr()
    resmgr.down = True
    gate = intake(resmgr)
    gate.note("bulk", 10 * LIMIT)
    done: list[tuple[str, float]] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(gate.run)
        began = trio.current_time()
        await create(gate, "bulk", 1000, done, "large")
        nursery.cancel_scope.cancel()
    assert done[0][1] - began == pytest.approx(MAX_HOLD_S)
    assert gate.held == 1 and gate.held_timed_out == 1
    assert gate.held_s == pytest.approx(MAX_HOLD_S)
    assert len(resmgr.asked) >= MAX_HOLD_S / POLL_S - 1
    assert [r.getMessage() for r in caplog.records] == [
        "asking resmgr for pool bulk's backlog: no resmgr leader"]


async def test_a_create_stops_waiting_a_second_before_its_callers_deadline(
        autojump_clock: trio.testing.MockClock) -> None:
    gate = intake(Resmgr())
    gate.note("bulk", 10 * LIMIT)
    done: list[tuple[str, float]] = []
    began = trio.current_time()
    with trio.move_on_after(3.0):  # the call's grpc-timeout, as the server applies it
        await create(gate, "bulk", 1000, done, "large")
    assert done and done[0][1] - began == pytest.approx(2.0)


async def test_creates_held_together_go_for_their_time_limits_a_few_at_a_time(
        autojump_clock: trio.testing.MockClock) -> None:
    """Sixteen clients' creates held at once (a capacity-bound pool) do not
    all go for the limit in the same second: each limit is the next of a
    spread around MAX_HOLD_S, and the average stays MAX_HOLD_S."""
    resmgr = Resmgr()
    resmgr.waiting["bulk"] = 10 * LIMIT  # placement takes nothing meanwhile
    gate = intake(resmgr)
    gate.note("bulk", 10 * LIMIT)
    done: list[tuple[str, float]] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(gate.run)
        began = trio.current_time()
        async with trio.open_nursery() as clients:
            for k in range(16):
                clients.start_soon(create, gate, "bulk", 1000, done, f"client {k}")
        nursery.cancel_scope.cancel()
    waited = sorted(t - began for _, t in done)
    assert len(waited) == 16 and gate.held_timed_out == 16
    assert waited[0] >= MAX_HOLD_S - HOLD_SPREAD and waited[-1] < MAX_HOLD_S + HOLD_SPREAD
    assert min(b - a for a, b in itertools.pairwise(waited)) > 0.15
    assert max(sum(1 for w in waited if t <= w < t + 1.0) for t in waited) <= 4
    assert sum(waited) / 16 == pytest.approx(MAX_HOLD_S, abs=0.1)


@pytest.mark.parametrize(("share", "admitted"), [(1.0, 5), (0.5, 3)])
async def test_the_tasks_on_their_way_count_for_each_jobmgr_by_its_share_of_the_shards(
        autojump_clock: trio.testing.MockClock, share: float, admitted: int) -> None:
    """Creates reach each jobmgr for its share of the shards: the tasks on
    their way to resmgr that one jobmgr knows of stand for the others' too,
    so two jobmgrs on a pool with nothing queued let in about the bound
    between them, not the bound each."""
    resmgr = Resmgr()
    gate = intake(resmgr, share=share)
    gate.note("bulk", 0)
    done: list[tuple[str, float]] = []
    release = trio.Event()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(gate.run)
        for k in range(6):
            nursery.start_soon(create, gate, "bulk", 1000, done, f"create {k}", release)
            await trio.testing.wait_all_tasks_blocked()
        await trio.sleep(1.0)
        assert len(done) == admitted
        assert gate.backlog("bulk") == round(admitted * 1000 / share)
        nursery.cancel_scope.cancel()
