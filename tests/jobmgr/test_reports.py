"""A jobmgr's reports to resmgr (``engine.Reports``): what every shard puts
goes in as few ``UpdateTasksState`` calls as the senders allow, a failed
call is tried again, and nothing put is lost or sent twice.

Each test takes pytest-trio's ``autojump_clock``: the retry's second passes
at once.
"""

from __future__ import annotations

from typing import Any, cast

import trio
import trio.testing

from peloton.api.private.resmgrsvc import resmgrsvc_pb2 as rpb
from peloton.core.errors import Internal, PelotonError, Unavailable
from peloton.core.states import TaskState
from peloton.jobmgr import engine
from peloton.jobmgr.engine import Reports
from peloton.rpc.client import ServiceClient

RUNNING, SUCCEEDED = TaskState.RUNNING, TaskState.SUCCEEDED


class Resmgr:
    """UpdateTasksState calls, held while ``gate`` is closed; the first
    ``failures`` of them fail with ``error``; each answer says
    ``room_wanted``."""

    def __init__(self, failures: int = 0, error: PelotonError | None = None) -> None:
        self.room_wanted = True
        self.calls: list[list[tuple[str, int]]] = []
        self.failures = failures
        self.error = error or Unavailable("resmgr is electing a leader")
        self.attempts = 0
        self.gate: trio.Event | None = None
        self.in_flight = 0

    async def call(self, method: str, request: Any, **_: Any) -> Any:
        assert method == "UpdateTasksState"
        self.in_flight += 1
        try:
            if self.gate is not None:
                await self.gate.wait()
            self.attempts += 1
            if self.failures:
                self.failures -= 1
                raise self.error
            self.calls.append([(u.mesosTaskId, u.state) for u in request.updates])
            return rpb.UpdateTasksStateResponse(roomWanted=self.room_wanted)
        finally:
            self.in_flight -= 1


def sent(resmgr: Resmgr) -> list[tuple[str, int]]:
    return [u for call in resmgr.calls for u in call]


async def test_what_every_shard_put_goes_in_one_call(autojump_clock: Any) -> None:
    resmgr = Resmgr()
    reports = Reports(cast(ServiceClient, resmgr))
    assert not reports.served
    # Three shards' writers, before a sender takes anything.
    reports.put([("a-0-1", RUNNING)])
    reports.put([("b-0-1", SUCCEEDED), ("b-1-1", RUNNING)])
    reports.put([("c-0-1", RUNNING)])
    async with trio.open_nursery() as nursery:
        nursery.start_soon(reports.serve, 1)
        await trio.testing.wait_all_tasks_blocked()
        assert reports.served
        assert resmgr.calls == [[("a-0-1", RUNNING), ("b-0-1", SUCCEEDED), ("b-1-1", RUNNING),
                                 ("c-0-1", RUNNING)]]
        nursery.cancel_scope.cancel()
    assert not reports.served


async def test_puts_during_the_calls_in_flight_wait_for_the_next(autojump_clock: Any) -> None:
    resmgr = Resmgr()
    resmgr.gate = trio.Event()
    reports = Reports(cast(ServiceClient, resmgr))
    period = engine.REPORT_PERIOD_S
    async with trio.open_nursery() as nursery:
        nursery.start_soon(reports.serve)
        await trio.testing.wait_all_tasks_blocked()
        start = trio.current_time()
        reports.put([("a-0-1", RUNNING)])
        await trio.testing.wait_all_tasks_blocked()
        assert resmgr.in_flight == 1  # at once
        reports.put([("b-0-1", RUNNING)])
        await trio.sleep_until(start + period)  # the next call waits for its turn,
        await trio.testing.wait_all_tasks_blocked()
        assert resmgr.in_flight == engine.REPORT_SENDERS == 2  # not for the first's answer
        for k in range(5):
            reports.put([(f"c-{k}-1", SUCCEEDED)])
        await trio.sleep(10 * period)
        assert resmgr.in_flight == 2  # two at most in flight: the five wait
        resmgr.gate.set()
        await trio.testing.wait_all_tasks_blocked()
        # The five puts went in one call, not one call each.
        assert resmgr.calls[2:] == [[(f"c-{k}-1", SUCCEEDED) for k in range(5)]]
        nursery.cancel_scope.cancel()


async def test_calls_are_further_apart_while_no_gang_waits_for_room(
        autojump_clock: Any) -> None:
    """REPORT_IDLE_PERIOD_S apart while resmgr's answers say nothing waits
    for what runs free, REPORT_PERIOD_S once one says something does."""
    resmgr = Resmgr()
    resmgr.room_wanted = False
    reports = Reports(cast(ServiceClient, resmgr))
    assert reports.room_wanted  # until resmgr says otherwise
    async with trio.open_nursery() as nursery:
        nursery.start_soon(reports.serve)
        await trio.testing.wait_all_tasks_blocked()
        start = trio.current_time()
        reports.put([("a-0-1", RUNNING)])
        await trio.testing.wait_all_tasks_blocked()
        assert len(resmgr.calls) == 1 and not reports.room_wanted
        reports.put([("b-0-1", SUCCEEDED)])
        await trio.sleep_until(start + engine.REPORT_IDLE_PERIOD_S - 0.001)
        assert len(resmgr.calls) == 1
        resmgr.room_wanted = True
        await trio.sleep_until(start + engine.REPORT_IDLE_PERIOD_S)
        await trio.testing.wait_all_tasks_blocked()
        assert resmgr.calls[1:] == [[("b-0-1", SUCCEEDED)]] and reports.room_wanted
        reports.put([("c-0-1", SUCCEEDED)])
        await trio.sleep_until(start + engine.REPORT_IDLE_PERIOD_S + engine.REPORT_PERIOD_S)
        await trio.testing.wait_all_tasks_blocked()
        assert resmgr.calls[2:] == [[("c-0-1", SUCCEEDED)]]
        nursery.cancel_scope.cancel()


async def test_a_call_carries_at_most_a_batch(autojump_clock: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(engine, "REPORT_BATCH", 3)
    resmgr = Resmgr()
    reports = Reports(cast(ServiceClient, resmgr))
    for k in range(4):
        reports.put([(f"a-{k}-1", RUNNING), (f"b-{k}-1", RUNNING)])
    async with trio.open_nursery() as nursery:
        nursery.start_soon(reports.serve, 1)
        await trio.sleep(engine.REPORT_PERIOD_S)
        await trio.testing.wait_all_tasks_blocked()
        nursery.cancel_scope.cancel()
    # Whole puts: a call takes puts until it holds the batch or more.
    assert [len(c) for c in resmgr.calls] == [4, 4]
    assert sorted(sent(resmgr)) == sorted(
        (f"{j}-{k}-1", RUNNING) for j in "ab" for k in range(4))


async def test_a_failed_call_is_tried_again(autojump_clock: Any) -> None:
    resmgr = Resmgr(failures=3)
    reports = Reports(cast(ServiceClient, resmgr))
    reports.put([("a-0-1", SUCCEEDED)])
    async with trio.open_nursery() as nursery:
        nursery.start_soon(reports.serve, 1)
        start = trio.current_time()
        await trio.sleep(2.5)
        assert not resmgr.calls and resmgr.failures == 0  # three tries, a second apart
        await trio.sleep(1.0)
        assert resmgr.calls == [[("a-0-1", SUCCEEDED)]]
        assert trio.current_time() - start == 3.5
        nursery.cancel_scope.cancel()
    assert resmgr.calls == [[("a-0-1", SUCCEEDED)]]


async def test_reports_wait_out_a_resmgr_that_cannot_answer(autojump_clock: Any) -> None:
    """However long resmgr has no leader: a dropped end would hold its
    run's resources there for ever."""
    failures = engine.REPORT_ATTEMPTS * 6
    resmgr = Resmgr(failures=failures)
    reports = Reports(cast(ServiceClient, resmgr))
    reports.put([("a-0-1", SUCCEEDED)])
    async with trio.open_nursery() as nursery:
        nursery.start_soon(reports.serve, 1)
        await trio.sleep(failures + 0.5)
        assert resmgr.calls == [[("a-0-1", SUCCEEDED)]]
        nursery.cancel_scope.cancel()


async def test_a_report_resmgr_refuses_is_given_up(autojump_clock: Any) -> None:
    resmgr = Resmgr(failures=100, error=Internal("a bug"))
    reports = Reports(cast(ServiceClient, resmgr))
    reports.put([("a-0-1", SUCCEEDED)])
    async with trio.open_nursery() as nursery:
        nursery.start_soon(reports.serve, 1)
        await trio.sleep(60)
        assert resmgr.attempts == engine.REPORT_ATTEMPTS and not resmgr.calls
        reports.put([("b-0-1", SUCCEEDED)])  # the sender goes on with the next
        await trio.sleep(60)
        assert resmgr.attempts == 2 * engine.REPORT_ATTEMPTS
        nursery.cancel_scope.cancel()


async def test_without_senders_a_report_is_its_own_call(autojump_clock: Any) -> None:
    """An engine whose jobmgr serves no reports (tests, tools) calls at once."""
    from peloton.jobmgr.engine import Context, ShardEngine
    from peloton.jobmgr.model import Task

    resmgr = Resmgr()
    reports = Reports(cast(ServiceClient, resmgr))
    ctx = Context(storage=cast(Any, None), resmgr=cast(ServiceClient, resmgr),
                  hostmgr_for=lambda _: cast(ServiceClient, None), hostmgrs=list,
                  reports=reports)
    shard = ShardEngine(ctx, 0, 1, "jm-1")
    task = cast(Task, type("T", (), {"mesos_task_id": "a-0-1", "state": RUNNING})())
    await shard.report_states([task])
    assert resmgr.calls == [[("a-0-1", RUNNING)]]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(reports.serve, 1)
        await trio.testing.wait_all_tasks_blocked()
        resmgr.gate = trio.Event()  # served: queued, the writer does not wait
        await shard.report_states([task])
        await trio.testing.wait_all_tasks_blocked()
        assert resmgr.in_flight == 1 and len(resmgr.calls) == 1
        resmgr.gate.set()
        await trio.testing.wait_all_tasks_blocked()
        assert len(resmgr.calls) == 2
        nursery.cancel_scope.cancel()


async def test_a_sender_calls_at_most_once_a_period(autojump_clock: Any) -> None:
    """What is put while a sender's last call is younger than
    REPORT_PERIOD_S waits for it and goes in one call; after a quiet spell
    the first put goes at once."""
    resmgr = Resmgr()
    reports = Reports(cast(ServiceClient, resmgr))
    period = engine.REPORT_PERIOD_S
    async with trio.open_nursery() as nursery:
        nursery.start_soon(reports.serve, 1)
        await trio.testing.wait_all_tasks_blocked()
        start = trio.current_time()
        reports.put([("a-0-1", RUNNING)])
        await trio.testing.wait_all_tasks_blocked()
        assert resmgr.calls == [[("a-0-1", RUNNING)]]  # at once
        for k in range(3):  # one after another, in the period
            await trio.sleep(period / 4)
            reports.put([(f"b-{k}-1", RUNNING)])
            await trio.testing.wait_all_tasks_blocked()
            assert len(resmgr.calls) == 1
        await trio.sleep_until(start + period)
        await trio.testing.wait_all_tasks_blocked()
        assert resmgr.calls[1:] == [[(f"b-{k}-1", RUNNING) for k in range(3)]]
        await trio.sleep(10 * period)  # quiet: the next goes at once again
        reports.put([("c-0-1", SUCCEEDED)])
        await trio.testing.wait_all_tasks_blocked()
        assert resmgr.calls[2:] == [[("c-0-1", SUCCEEDED)]]
        nursery.cancel_scope.cancel()

