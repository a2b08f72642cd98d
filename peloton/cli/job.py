"""``peloton job``: create, get, status, query, stop, delete and update jobs."""

from __future__ import annotations

import time
from typing import Any

from peloton.api.v0.job import job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.query import query_pb2
from peloton.api.v0.task import task_pb2
from peloton.cli.common import (
    EXIT_OK,
    Cli,
    add_paging,
    count_arg,
    enum_list,
    group,
    job_id_arg,
    labels_arg,
    leaf,
    list_arg,
    load_spec,
    order_spec,
    page_note,
)
from peloton.cli.output import (
    message_yaml,
    short_time,
    table,
)
from peloton.client import PelotonClient
from peloton.spec.job import load_job_config
from peloton.spec.respool import split_respool_path


def _load_job(cli: Cli, path: str) -> job_pb2.JobConfig:
    return load_spec(cli, path, lambda text: load_job_config(text, capabilities=frozenset()))


def job_create(cli: Cli) -> int:
    a = cli.args
    split_respool_path(a.respool)
    config = _load_job(cli, a.file)
    job_id = cli.call(lambda c: c.create_job(a.respool, config, job_id=a.id))
    cli.emit(job_pb2.CreateResponse(jobId=peloton_pb2.JobID(value=job_id)),
             lambda: f"Job {job_id} created")
    return EXIT_OK


def _get_job(cli: Cli, job_id: str) -> job_pb2.GetResponse:
    async def get(c: PelotonClient) -> job_pb2.GetResponse:
        return await c.jobs.call("Get", job_pb2.GetRequest(id=peloton_pb2.JobID(value=job_id)))
    return cli.call(get)


def job_get(cli: Cli) -> int:
    reply = _get_job(cli, cli.args.job)
    cli.emit(reply, lambda: message_yaml(reply.jobInfo))
    return EXIT_OK


def _task_counts(runtime: job_pb2.RuntimeInfo) -> str:
    stats = {k: v for k, v in runtime.taskStats.items() if v}
    return ", ".join(f"{k} {v}" for k, v in sorted(stats.items())) or "none"


def job_status(cli: Cli) -> int:
    reply = _get_job(cli, cli.args.job)
    info = reply.jobInfo
    rt = info.runtime

    def text() -> str:
        rows = [
            ("job", info.id.value),
            ("name", info.config.name),
            ("state", job_pb2.JobState.Name(rt.state)),
            ("goal state", job_pb2.JobState.Name(rt.goalState)),
            ("created", short_time(rt.creationTime)),
            ("started", short_time(rt.startTime)),
            ("completed", short_time(rt.completionTime)),
            ("instances", str(info.config.instanceCount)),
            ("tasks", _task_counts(rt)),
        ]
        return "\n".join(f"{k + ':':<12}{v}" for k, v in rows)

    cli.emit(rt, text)
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


def add_commands(commands: Any) -> None:
    """Register the ``job`` commands."""
    jb = group(commands, "job", "jobs")
    p = leaf(jb, "create", job_create, "create a job in the pool RESPOOL from a YAML file")
    p.add_argument("respool", help="the pool's path, e.g. /DefaultResPool")
    p.add_argument("file")
    p.add_argument("-i", "--id", type=job_id_arg, default=None, help="the new job's id (a UUID)")
    p = leaf(jb, "get", job_get, "show a job's config and runtime")
    p.add_argument("job", type=job_id_arg)
    p = leaf(jb, "status", job_status, "show a job's state and task counts")
    p.add_argument("job", type=job_id_arg)
    p = leaf(jb, "query", job_query, "list jobs")
    p.add_argument("-s", "--states", type=enum_list(job_pb2.JobState),
                   help="comma-separated job states, e.g. RUNNING,PENDING")
    p.add_argument("-r", "--respool", help="only jobs of this pool (path)")
    p.add_argument("--name", help="only jobs with this name")
    p.add_argument("--owner", help="only jobs of this owner")
    p.add_argument("-l", "--labels", type=labels_arg, help="key=value[,key=value...]")
    p.add_argument("-k", "--keywords", type=list_arg,
                   help="words each found in the name, owner or a label (a,b,...)")
    p.add_argument("-d", "--days", type=count_arg, default=0,
                   help="only jobs created in the last DAYS days")
    add_paging(p, sort="creation_time (the default), completion_time, name, owner, state "
               "or instance_count", order="DESC")
    p.add_argument("-q", "--total", type=count_arg, default=100,
                   help="at most this many over all pages (100; 0: no bound)")
    p = leaf(jb, "refresh", job_refresh, "ask the hosts about a job's runs again (debug)")
    p.add_argument("job", type=job_id_arg)
    p = leaf(jb, "cache", job_cache, "show a job as its shard's owner holds it (debug)")
    p.add_argument("job", type=job_id_arg)
    leaf(jb, "active-list", job_active_list, "list the ids of jobs not ended (debug)")
    p = leaf(jb, "stop", job_stop, "stop every task of a job")
    p.add_argument("job", type=job_id_arg)
    p = leaf(jb, "delete", job_delete, "delete a job (it must have ended)")
    p.add_argument("job", type=job_id_arg)
    p = leaf(jb, "update", job_update, "update a job from a YAML file (batch: add instances)")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("file")
    from peloton.cli.stateless import add_job_commands
    add_job_commands(jb)
