"""``peloton job``: create, get, status, query, stop, delete and update jobs.

``get``, ``status`` and ``create`` go over the jobmgrs' HTTP/JSON API when
the cluster file gives their ``http:`` addresses (``Cli.call``), so they
start neither trio nor grpclib; this module imports neither at its top.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from peloton.api.v0.job import job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.query import query_pb2
from peloton.api.v0.respool import respool_pb2
from peloton.api.v0.task import task_pb2
from peloton.cli.common import (
    EXIT_OK,
    Cli,
    load_spec,
    order_spec,
    page_note,
)
from peloton.cli.output import (
    job_status_text,
    message_yaml,
    short_time,
    table,
)
from peloton.cli.plain import created_once
from peloton.core.errors import AlreadyExists, NotFound
from peloton.spec.paths import split_respool_path

if TYPE_CHECKING:
    from peloton.client import PelotonClient
    from peloton.rpc.http_client import HttpClient

JOB_MANAGER = "peloton.api.v0.job.JobManager"
RESOURCE_MANAGER = "peloton.api.v0.respool.ResourceManager"


def _load_job(cli: Cli, path: str) -> job_pb2.JobConfig:
    from peloton.spec.job import load_job_config
    return load_spec(cli, path, lambda text: load_job_config(text, capabilities=frozenset()))


def job_create(cli: Cli) -> int:
    """``job create`` reading the spec here (``peloton.cli.plain.job_create``
    sends it to the jobmgr as it is, where it can)."""
    a = cli.args
    split_respool_path(a.respool)
    config = _load_job(cli, a.file)
    # The id is chosen here, before the first send, so the gRPC path after
    # an HTTP attempt that got no answer sends the same create again.
    chosen = a.id or cli.new_job_id()
    given = a.id is not None
    job_id = cli.call(lambda c: _create(c, a.respool, config, chosen, given=given),
                      http=lambda h: create_over_http(h, a.respool, config, chosen, given=given))
    cli.emit(job_pb2.CreateResponse(jobId=peloton_pb2.JobID(value=job_id)),
             lambda: f"Job {job_id} created")
    return EXIT_OK


async def create_over_grpc(cli: Cli, c: PelotonClient, chosen: str, *, given: bool) -> str:
    """``job create`` of job ``chosen`` over gRPC, the spec read here."""
    return await _create(c, cli.args.respool, _load_job(cli, cli.args.file), chosen,
                         given=given)


async def _create(c: PelotonClient, respool: str, config: job_pb2.JobConfig, chosen: str, *,
                  given: bool) -> str:
    try:
        return await c.create_job(respool, config, job_id=chosen)
    except AlreadyExists:
        if given:
            raise
        return chosen  # our id, fresh: an earlier send of ours went through


def create_over_http(h: HttpClient, respool: str, config: job_pb2.JobConfig, chosen: str, *,
                     given: bool) -> str:
    """``PelotonClient.create_job`` over HTTP/JSON: the pool's id, then the
    create of job ``chosen`` (see ``peloton.cli.plain.created_once``)."""
    reply = h.call(RESOURCE_MANAGER, "LookupResourcePoolID", respool_pb2.LookupRequest(
        path=respool_pb2.ResourcePoolPath(value=respool)), respool_pb2.LookupResponse)
    if not reply.id.value:
        raise NotFound(f"resource pool {respool} does not exist")
    request = job_pb2.CreateRequest(id=peloton_pb2.JobID(value=chosen), config=config)
    request.config.respoolID.value = reply.id.value
    return created_once(lambda: str(h.call(JOB_MANAGER, "Create", request,
                                           job_pb2.CreateResponse).jobId.value or chosen),
                        chosen, given=given)


def _get_job(cli: Cli, job_id: str) -> job_pb2.GetResponse:
    request = job_pb2.GetRequest(id=peloton_pb2.JobID(value=job_id))
    return cli.call(lambda c: c.jobs.call("Get", request),
                    http=lambda h: h.call(JOB_MANAGER, "Get", request, job_pb2.GetResponse))


def job_get(cli: Cli) -> int:
    reply = _get_job(cli, cli.args.job)
    cli.emit(reply, lambda: message_yaml(reply.jobInfo))
    return EXIT_OK


def job_status(cli: Cli) -> int:
    """With ``--json``: the runtime as protobuf JSON (``peloton.cli.plain``
    prints the text)."""
    from peloton.spec.yamlproto import message_to_dict
    info = _get_job(cli, cli.args.job).jobInfo
    cli.emit(info.runtime, lambda: job_status_text(message_to_dict(info)))
    return EXIT_OK


def job_query(cli: Cli) -> int:
    a = cli.args
    spec = job_pb2.QuerySpec(
        jobStates=a.states or [], labels=a.labels or [], keywords=a.keywords or [],
        owner=a.owner or "", name=a.name or "",
        pagination=query_pb2.PaginationSpec(
            offset=a.offset, limit=a.limit, maxLimit=a.total,
            orderBy=order_spec(a.sort, a.order, default="creation_time")))
    if a.days:
        spec.creationTimeRange.min.FromSeconds(int(time.time() - a.days * 86400))

    async def query(c: PelotonClient) -> job_pb2.QueryResponse:
        request = job_pb2.QueryRequest(spec=spec, summaryOnly=True)
        if a.respool:
            request.respoolID.value = await c.lookup_respool(a.respool)
        return await c.jobs.call("Query", request)

    reply = cli.call(query)

    def text() -> str:
        rows = []
        for s in reply.results:
            stats = s.runtime.taskStats
            rows.append((s.id.value, s.name, s.owner or s.owningTeam,
                         job_pb2.JobState.Name(s.runtime.state),
                         short_time(s.runtime.creationTime), s.instanceCount,
                         stats.get("RUNNING", 0), stats.get("SUCCEEDED", 0),
                         stats.get("FAILED", 0), stats.get("KILLED", 0)))
        out = table(("ID", "NAME", "OWNER", "STATE", "CREATED", "INSTANCES", "RUNNING",
                     "SUCCEEDED", "FAILED", "KILLED"), rows)
        return out + page_note(len(rows), reply.pagination.total, a.offset, "jobs")

    cli.emit(reply, text)
    return EXIT_OK


def job_refresh(cli: Cli) -> int:
    a = cli.args
    reply = cli.call(lambda c: c.jobs.call("Refresh", job_pb2.RefreshRequest(
        id=peloton_pb2.JobID(value=a.job))))
    cli.emit(reply, lambda: f"Job {a.job} refreshed")
    return EXIT_OK


def job_cache(cli: Cli) -> int:
    a = cli.args
    reply = cli.call(lambda c: c.jobs.call("GetCache", job_pb2.GetCacheRequest(
        id=peloton_pb2.JobID(value=a.job))))
    cli.emit(reply, lambda: message_yaml(reply))
    return EXIT_OK


def job_active_list(cli: Cli) -> int:
    reply = cli.call(lambda c: c.jobs.call("GetActiveJobs", job_pb2.GetActiveJobsRequest()))
    cli.emit(reply, lambda: "\n".join(sorted(i.value for i in reply.ids)) or "(no active jobs)")
    return EXIT_OK


def job_stop(cli: Cli) -> int:
    job_id = cli.args.job

    async def stop(c: PelotonClient) -> task_pb2.StopResponse:
        return await c.tasks.call("Stop", task_pb2.StopRequest(
            jobId=peloton_pb2.JobID(value=job_id)))

    reply = cli.call(stop)
    cli.emit(reply, lambda: f"Job {job_id}: stopping {len(reply.stoppedInstanceIds)} "
                            f"instance(s)")
    return EXIT_OK


def job_delete(cli: Cli) -> int:
    job_id = cli.args.job

    async def delete(c: PelotonClient) -> job_pb2.DeleteResponse:
        return await c.jobs.call("Delete", job_pb2.DeleteRequest(
            id=peloton_pb2.JobID(value=job_id)))

    reply = cli.call(delete)
    cli.emit(reply, lambda: f"Job {job_id} deleted")
    return EXIT_OK


def job_update(cli: Cli) -> int:
    a = cli.args
    config = _load_job(cli, a.file)

    async def update(c: PelotonClient) -> job_pb2.UpdateResponse:
        return await c.jobs.call("Update", job_pb2.UpdateRequest(
            id=peloton_pb2.JobID(value=a.job), config=config))

    reply = cli.call(update)
    cli.emit(reply, lambda: f"Job {a.job} updated" + (f": {reply.message}"
                                                      if reply.message else ""))
    return EXIT_OK
