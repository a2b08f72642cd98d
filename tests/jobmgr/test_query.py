"""JobManager.Query's summaries, and the loop's other tasks while it makes
thousands of them (a monitor's query of every active job)."""

from __future__ import annotations

import time
import uuid
from typing import Any

import trio
import trio.testing

from peloton.api.v0.job import job_pb2
from peloton.jobmgr.model import Job
from peloton.jobmgr.service import SUMMARIES_A_STEP, JobHandler
from peloton.storage.gateway import JobRow


def _rows(count: int) -> list[JobRow]:
    rows = []
    for n in range(count):
        config = job_pb2.JobConfig(name=f"job-{n:05d}", type=job_pb2.BATCH, owner="o",
                                   owningTeam="t", instanceCount=1)
        config.labels.add(key="k", value=str(n))
        config.respoolID.value = "pool"
        config.sla.priority = 3
        config.defaultConfig.command.value = "true"
        job = Job.new(str(uuid.uuid4()), 0, config, time.time())
        rows.append(job.row(time.time()))
    return rows


class _Storage:
    def __init__(self, rows: list[JobRow]) -> None:
        self.rows = rows

    async def query_jobs(self, **_: Any) -> tuple[list[JobRow], int]:
        return self.rows, len(self.rows)


class _Jobmgr:
    def __init__(self, rows: list[JobRow]) -> None:
        self.storage = _Storage(rows)


def test_a_query_of_many_jobs_lets_the_loop_run_between_its_summaries() -> None:
    rows = _rows(3 * SUMMARIES_A_STEP + 10)
    handler = JobHandler(_Jobmgr(rows))  # type: ignore[arg-type]
    turns = 0
    reply: Any = None

    async def main() -> None:
        nonlocal reply, turns
        async with trio.open_nursery() as nursery:
            async def others() -> None:  # the creates and events of the shards here
                nonlocal turns
                while True:
                    await trio.lowlevel.checkpoint()
                    turns += 1

            nursery.start_soon(others)
            await trio.lowlevel.checkpoint()
            before = turns
            reply = await handler.Query(job_pb2.QueryRequest(summaryOnly=True))
            turns -= before
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock())
    assert turns >= 2  # between its steps of summaries (three yields)
    assert [s.id.value for s in reply.results] == [r.job_id for r in rows]
    first = reply.results[0]
    assert (first.name, first.owner, first.owningTeam, first.instanceCount) == (
        "job-00000", "o", "t", 1)
    assert first.type == job_pb2.BATCH and first.respoolID.value == "pool"
    assert [(label.key, label.value) for label in first.labels] == [("k", "0")]
    assert first.sla.priority == 3
    assert first.runtime == job_pb2.RuntimeInfo.FromString(rows[0].runtime)
    assert not reply.records  # summaries only
