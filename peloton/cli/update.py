"""``peloton update``: roll a service job out to a new config (v0 UpdateService)."""

from __future__ import annotations

from typing import Any

import trio

from peloton.api.v0.job import job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.task import task_pb2
from peloton.api.v0.update import update_pb2
from peloton.api.v0.update.svc import update_svc_pb2
from peloton.cli.common import (
    EXIT_OK,
    Cli,
    load_spec,
)
from peloton.cli.output import message_json, message_yaml, table
from peloton.client import PelotonClient
from peloton.spec.job import load_job_config
from peloton.spec.paths import split_respool_path

TERMINAL = frozenset({update_pb2.SUCCEEDED, update_pb2.ABORTED, update_pb2.FAILED,
                      update_pb2.ROLLED_BACK})
# How often --watch looks.
WATCH_PERIOD = 1.0


def _id(value: str) -> peloton_pb2.UpdateID:
    return peloton_pb2.UpdateID(value=value)


def update_create(cli: Cli) -> int:
    a = cli.args
    split_respool_path(a.respool)
    config = load_spec(cli, a.file, lambda text: load_job_config(text, capabilities=frozenset()))
    update = update_pb2.UpdateConfig(
        batchSize=a.batch_size, maxInstanceAttempts=a.maxattempts,
        maxFailureInstances=a.maxfailureInstances, rollbackOnFailure=a.rollbackOnFailure,
        startPaused=a.start_paused, inPlace=a.in_place)

    async def create(c: PelotonClient) -> update_svc_pb2.CreateUpdateResponse:
        config.respoolID.value = await c.lookup_respool(a.respool)
        request = update_svc_pb2.CreateUpdateRequest(
            jobId=peloton_pb2.JobID(value=a.job), jobConfig=config, updateConfig=update)
        if a.opaque_data:
            request.opaque_data.data = a.opaque_data
        return await c.updates.call("CreateUpdate", request)

    reply = cli.call(create)
    cli.emit(reply, lambda: f"Update {reply.updateID.value} created")
    return EXIT_OK


def _progress(info: update_pb2.UpdateInfo, tasks: Any, allowed: int) -> str:
    s = info.status
    total = s.numTasksDone + s.numTasksFailed + s.numTasksRemaining
    down = sum(1 for t in tasks if t.runtime.state != task_pb2.RUNNING
               or t.runtime.healthy == task_pb2.UNHEALTHY)
    limit = f" (at most {allowed} allowed)" if allowed else ""
    failed = f", {s.numTasksFailed} failed" if s.numTasksFailed else ""
    return (f"{update_pb2.State.Name(s.state)}: {s.numTasksDone}/{total} instances done"
            f"{failed}; {down} unavailable now{limit}")


def update_get(cli: Cli) -> int:
    a = cli.args

    async def get(c: PelotonClient) -> update_svc_pb2.GetUpdateResponse:
        return await c.updates.call("GetUpdate", update_svc_pb2.GetUpdateRequest(
            updateId=_id(a.update), statusOnly=a.status_only))

    if not a.watch:
        reply = cli.call(get)
        cli.emit(reply, lambda: message_yaml(reply.updateInfo))
        return EXIT_OK

    async def watch(c: PelotonClient) -> None:
        last = ""
        while True:
            info = (await get(c)).updateInfo
            jid = info.jobId
            job = await c.jobs.call("Get", job_pb2.GetRequest(id=jid))
            tasks = await c.tasks.call("List", task_pb2.ListRequest(jobId=jid))
            line = _progress(info, tasks.result.value.values(),
                             job.jobInfo.config.sla.maximumUnavailableInstances)
            if line != last:
                cli.print(line if not cli.json else message_json(info))
                last = line
            if info.status.state in TERMINAL:
                return
            await trio.sleep(WATCH_PERIOD)

    cli.call(watch)
    return EXIT_OK


def update_list(cli: Cli) -> int:
    a = cli.args
    reply = cli.call(lambda c: c.updates.call("ListUpdates", update_svc_pb2.ListUpdatesRequest(
        jobID=peloton_pb2.JobID(value=a.job), limit=a.limit)))

    def text() -> str:
        return table(("UPDATE", "STATE", "DONE", "FAILED", "REMAINING", "VERSION"), [
            (u.updateId.value, update_pb2.State.Name(u.status.state), u.status.numTasksDone,
             u.status.numTasksFailed, u.status.numTasksRemaining,
             f"{u.prevConfigVersion} -> {u.configVersion}") for u in reply.updateInfo])

    cli.emit(reply, text)
    return EXIT_OK


def update_cache(cli: Cli) -> int:
    a = cli.args
    reply = cli.call(lambda c: c.updates.call("GetUpdateCache",
                                              update_svc_pb2.GetUpdateCacheRequest(
                                                  updateId=_id(a.update))))
    cli.emit(reply, lambda: message_yaml(reply))
    return EXIT_OK


def control(verb: str, method: str) -> Any:
    """``update pause|resume|abort|rollback``: ``method``, then ``verb``."""
    def action(cli: Cli) -> int:
        a = cli.args
        request = getattr(update_svc_pb2, f"{method}Request")(updateId=_id(a.update))
        if getattr(a, "opaque_data", None):
            request.opaque_data.data = a.opaque_data
        reply = cli.call(lambda c: c.updates.call(method, request))
        cli.emit(reply, lambda: f"Update {a.update}: {verb}")
        return EXIT_OK
    return action
