"""A shard's event stream: in order, at least once, until acknowledged."""

from __future__ import annotations

import trio
import trio.testing

from peloton.core.states import TaskState
from peloton.hostmgr.backends.base import StatusUpdate
from peloton.hostmgr.events import EventStreams


def update(mid: str) -> StatusUpdate:
    return StatusUpdate(mid, TaskState.RUNNING, "h1")


async def test_events_come_in_order_until_acknowledged(
        autojump_clock: trio.testing.MockClock) -> None:
    streams = EventStreams()
    for i in range(5):
        streams.add(3, update(f"bulk-{i}-1"))
    streams.add(4, update("other-0-1"))
    events = await streams.wait(3, 0, 2, 1.0)
    assert [(o, u.mesos_task_id) for o, u in events] == [(1, "bulk-0-1"), (2, "bulk-1-1")]
    # Not acknowledged: the same again (a new owner asking from 0).
    assert await streams.wait(3, 0, 2, 1.0) == events
    assert [o for o, _ in await streams.wait(3, 2, 10, 1.0)] == [3, 4, 5]
    assert streams.pending() == {3: 3, 4: 1}  # acknowledged up to 2
    # Nothing more: it waits out its timeout and answers nothing.
    assert await streams.wait(3, 5, 10, 1.0) == []
    assert trio.current_time() == 1.0
    assert streams.pending() == {4: 1}


async def test_a_waiting_consumer_wakes_for_a_new_event(
        autojump_clock: trio.testing.MockClock) -> None:
    streams = EventStreams()
    got: list[list[tuple[int, StatusUpdate]]] = []

    async def consume() -> None:
        got.append(await streams.wait(0, 0, 10, 30.0))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(consume)
        await trio.sleep(1)
        streams.add(0, update("a-0-1"))
    assert [(o, u.mesos_task_id) for o, u in got[0]] == [(1, "a-0-1")]
    assert trio.current_time() == 1.0


async def test_a_purged_end_is_acknowledged(autojump_clock: trio.testing.MockClock) -> None:
    """A consumer that purged a run's end has recorded it: the backend is
    told (it may then forget the run); a state that is not an end is not
    passed on, nor is what was not purged."""
    acknowledged: list[list[str]] = []
    streams = EventStreams(on_acknowledged=acknowledged.append)
    streams.add(1, update("a-0-1"))
    streams.add(1, StatusUpdate("a-0-1", TaskState.SUCCEEDED, "h1"))
    streams.add(1, StatusUpdate("b-0-1", TaskState.LOST, "h1"))
    streams.add(2, StatusUpdate("c-0-1", TaskState.FAILED, "h1"))
    assert len(await streams.wait(1, 0, 10, 1.0)) == 3
    assert acknowledged == []
    await streams.wait(1, 2, 10, 1.0)
    assert acknowledged == [["a-0-1"]]
    await streams.wait(1, 3, 10, 1.0)
    assert acknowledged == [["a-0-1"], ["b-0-1"]]


async def test_a_wait_of_several_shards_answers_any_of_them(
        autojump_clock: trio.testing.MockClock) -> None:
    """One wait follows several shards: each is purged to its own offset,
    events a consumer has on their way (up to ``after``) are not answered
    again, and it wakes for an event of any of them."""
    streams = EventStreams()
    for i in range(4):
        streams.add(1, update(f"a-{i}-1"))
    streams.add(2, update("b-0-1"))
    streams.add(9, update("other-0-1"))
    got = await streams.wait_many([(1, 1, 2), (2, 0, 0)], 10, 1.0)
    assert sorted((s, o, u.mesos_task_id) for s, o, u in got) == [
        (1, 3, "a-2-1"), (1, 4, "a-3-1"), (2, 1, "b-0-1")]
    assert streams.pending() == {1: 3, 2: 1, 9: 1}  # shard 1 purged up to 1 only
    # Everything answered is on its way: the wait waits, then wakes for shard 2.
    woke: list[list[tuple[int, int, StatusUpdate]]] = []

    async def wait() -> None:
        woke.append(await streams.wait_many([(1, 4, 4), (2, 1, 1)], 10, 30.0))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(wait)
        await trio.sleep(2)
        streams.add(9, update("other-1-1"))  # not a followed shard: still waiting
        await trio.sleep(1)
        assert not woke
        streams.add(2, update("b-1-1"))
    assert [(s, o) for s, o, _ in woke[0]] == [(2, 2)]
    assert trio.current_time() == 3.0
    assert streams.pending() == {2: 1, 9: 2}
    # Nothing in any of them: the wait ends at its timeout, empty.
    assert await streams.wait_many([(2, 2, 2)], 10, 1.0) == []
    assert await streams.wait_many([], 10, 1.0) == []


async def test_a_wait_of_several_shards_takes_them_in_turn_within_its_limit(
        autojump_clock: trio.testing.MockClock) -> None:
    streams = EventStreams()
    for shard in (1, 2, 3):
        for i in range(5):
            streams.add(shard, update(f"s{shard}-{i}-1"))
    firsts = []
    for _ in range(3):
        got = await streams.wait_many([(1, 0, 0), (2, 0, 0), (3, 0, 0)], 4, 1.0)
        assert len(got) == 4 and len({s for s, _, _ in got}) == 1  # a busy shard fills it
        firsts.append(got[0][0])
    assert sorted(firsts) == [1, 2, 3]  # each shard came first once


async def test_a_wait_that_found_only_starts_lingers_for_an_end(
        autojump_clock: trio.testing.MockClock) -> None:
    """With a linger, a wait that found runs' starts but no end waits that
    much longer: an end that comes meanwhile goes in the same answer (a
    short run's two states: one answer, one write, one report), and answers
    at once; so does a full answer; with nothing more, the starts go when
    the linger is out, and never later than the wait's own timeout."""
    streams = EventStreams(linger=0.025)
    got: list[tuple[float, list[str]]] = []

    async def wait(after: int, limit: int = 10, timeout: float = 30.0) -> None:
        many = await streams.wait_many([(0, after, after)], limit, timeout)
        got.append((trio.current_time(), [f"{u.mesos_task_id}:{u.state.name}"
                                          for _, _, u in many]))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(wait, 0)
        await trio.sleep(1)
        streams.add(0, update("a-0-1"))
        await trio.sleep(0.01)
        streams.add(0, StatusUpdate("a-0-1", TaskState.SUCCEEDED, "h1"))
    assert got == [(1.01, ["a-0-1:RUNNING", "a-0-1:SUCCEEDED"])]

    streams.add(0, update("b-0-1"))
    start = trio.current_time()
    await wait(2)  # a start alone: after the linger
    assert got[-1] == (start + 0.025, ["b-0-1:RUNNING"])
    streams.add(0, update("c-0-1"))
    streams.add(0, update("d-0-1"))
    await wait(3, limit=2)  # a full answer: at once
    assert got[-1] == (start + 0.025, ["c-0-1:RUNNING", "d-0-1:RUNNING"])
    streams.add(0, update("e-0-1"))
    await wait(5, timeout=0.01)  # the wait's timeout bounds the linger
    assert got[-1] == (start + 0.035, ["e-0-1:RUNNING"])
