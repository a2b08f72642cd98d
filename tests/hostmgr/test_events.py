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
