"""``peloton resmgr pending``: the gangs waiting in a leaf pool, and why."""

from __future__ import annotations

from collections.abc import Sequence

from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.respool import respool_pb2
from peloton.cli.common import (
    EXIT_OK,
    Cli,
)
from peloton.cli.output import (
    message_json,
    number,
    spans,
    table,
)
from peloton.client import PelotonClient
from peloton.spec.paths import split_respool_path


def _gang_instances(task_ids: Sequence[str]) -> str:
    """``["<job>-0", "<job>-1", "<job>-4"]`` -> ``"<job> 0-1, 4"`` (per job)."""
    by_job: dict[str, list[int]] = {}
    for task_id in task_ids:
        job, _, instance = task_id.rpartition("-")
        by_job.setdefault(job, []).append(int(instance) if instance.isdigit() else 0)
    return "; ".join(f"{job} {spans(instances)}" for job, instances in by_job.items())


def resmgr_pending(cli: Cli) -> int:
    a = cli.args
    split_respool_path(a.path)

    async def pending(c: PelotonClient) -> respool_pb2.GetResponse:
        pool_id = await c.lookup_respool(a.path)
        return await c.respools.call("GetResourcePool", respool_pb2.GetRequest(
            id=peloton_pb2.ResourcePoolID(value=pool_id), pendingLimit=a.limit))

    reply = cli.call(pending)

    def text() -> str:
        if not reply.pending:
            return f"No gang waits for admission or placement in {a.path}"
        return table(["QUEUE", "PRIORITY", "INSTANCES", "CPU", "MEM MB", "DISK MB", "GPU",
                      "REASON"],
                     [[g.queue, g.priority, _gang_instances(g.taskIds), number(g.cpu),
                       number(g.memMb), number(g.diskMb), number(g.gpu), g.reason]
                      for g in reply.pending])

    if cli.json:
        cli.print(message_json(respool_pb2.GetResponse(pending=reply.pending)))
    else:
        cli.print(text())
    return EXIT_OK
