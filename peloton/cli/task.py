"""``peloton task``: list, get, logs, stop, start and restart tasks of a job.

``list`` and ``get`` go over the jobmgrs' HTTP/JSON API when the cluster
file gives their ``http:`` addresses (``Cli.call``), so they start neither
trio nor grpclib; this module imports neither at its top.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.query import query_pb2
from peloton.api.v0.task import task_pb2
from peloton.cli.common import (
    EXIT_OK,
    Cli,
    order_spec,
    page_note,
)
from peloton.cli.output import (
    message_yaml,
    short_time,
    spans,
    table,
    task_rows,
)

if TYPE_CHECKING:
    from peloton.client import PelotonClient

TASK_MANAGER = "peloton.api.v0.task.TaskManager"


def task_list(cli: Cli) -> int:
    a = cli.args
    request = task_pb2.ListRequest(jobId=peloton_pb2.JobID(value=a.job))
    if a.range is not None:
        request.range.CopyFrom(a.range)
    reply = cli.call(lambda c: c.tasks.call("List", request), http=lambda h: h.call(
        TASK_MANAGER, "List", request, task_pb2.ListResponse))

    cli.emit(reply, lambda: _task_rows(
        reply.result.value[i] for i in sorted(reply.result.value)))
    return EXIT_OK


def _task_rows(infos: Any) -> str:
    from peloton.spec.yamlproto import message_to_dict
    return task_rows(message_to_dict(t) for t in infos)


def task_query(cli: Cli) -> int:
    a = cli.args
    spec = task_pb2.QuerySpec(
        taskStates=a.states or [], names=a.names or [], hosts=a.hosts or [],
        pagination=query_pb2.PaginationSpec(
            offset=a.offset, limit=a.limit,
            orderBy=order_spec(a.sort, a.order, default="instance_id")))
    reply = cli.call(lambda c: c.tasks.call("Query", task_pb2.QueryRequest(
        jobId=peloton_pb2.JobID(value=a.job), spec=spec)))

    def text() -> str:
        return _task_rows(reply.records) + page_note(
            len(reply.records), reply.pagination.total, a.offset, "tasks")

    cli.emit(reply, text)
    return EXIT_OK


def task_refresh(cli: Cli) -> int:
    a = cli.args
    request = task_pb2.RefreshRequest(jobId=peloton_pb2.JobID(value=a.job))
    if a.range is not None:
        request.range.CopyFrom(a.range)
    reply = cli.call(lambda c: c.tasks.call("Refresh", request))
    cli.emit(reply, lambda: f"Job {a.job}: tasks refreshed")
    return EXIT_OK


def task_cache(cli: Cli) -> int:
    a = cli.args
    reply = cli.call(lambda c: c.tasks.call("GetCache", task_pb2.GetCacheRequest(
        jobId=peloton_pb2.JobID(value=a.job), instanceId=a.instance)))
    cli.emit(reply, lambda: message_yaml(reply))
    return EXIT_OK


def task_events(cli: Cli) -> int:
    a = cli.args
    reply = cli.call(lambda c: c.tasks.call("GetPodEvents", task_pb2.GetPodEventsRequest(
        jobId=peloton_pb2.JobID(value=a.job), instanceId=a.instance, limit=a.limit,
        runId=a.run or "")))

    def text() -> str:
        return table(("RUN", "STATE", "TIME", "HOST", "MESSAGE"), [
            (e.taskId.value.rsplit("-", 1)[1], e.actualState, short_time(e.timestamp),
             e.hostname or "-", e.message) for e in reply.result])

    cli.emit(reply, text)
    return EXIT_OK


def task_get(cli: Cli) -> int:
    a = cli.args
    request = task_pb2.GetRequest(jobId=peloton_pb2.JobID(value=a.job), instanceId=a.instance)
    reply = cli.call(lambda c: c.tasks.call("Get", request), http=lambda h: h.call(
        TASK_MANAGER, "Get", request, task_pb2.GetResponse))
    cli.emit(reply, lambda: message_yaml(reply.result))
    return EXIT_OK


def task_logs(cli: Cli) -> int:
    a = cli.args
    path = a.file or ("stderr" if a.stderr else "stdout")
    run = a.run or a.run_id or ""
    data = cli.call(lambda c: c.read_task_file(a.job, a.instance, path, run))
    write_bytes(cli, data)
    return EXIT_OK


def write_bytes(cli: Cli, data: bytes) -> None:
    """A file's bytes to standard output, as they are."""
    cli.stdout.flush()
    buffer = getattr(cli.stdout, "buffer", None)
    if buffer is not None:
        buffer.write(data)
        buffer.flush()
    else:
        cli.stdout.write(data.decode(errors="replace"))


def task_action(verb: str) -> Callable[[Cli], int]:
    """``task stop|start|restart``: the TaskManager method of that name."""
    method = verb.capitalize()
    request_cls = getattr(task_pb2, f"{method}Request")

    def action(cli: Cli) -> int:
        a = cli.args
        request = request_cls(jobId=peloton_pb2.JobID(value=a.job), ranges=a.ranges or [])

        async def call(c: PelotonClient) -> Any:
            return await c.tasks.call(method, request)

        reply = cli.call(call)
        which = ", ".join(_range_text(r) for r in a.ranges) if a.ranges else "all"
        if verb == "stop":
            done = f"stopping instance(s) {spans(reply.stoppedInstanceIds)}"
        elif verb == "start":
            done = f"starting instance(s) {spans(reply.startedInstanceIds)}"
        else:
            done = f"restarting instance(s) {which}"
        cli.emit(reply, lambda: f"Job {a.job}: {done}")
        return EXIT_OK

    return action


def _range_text(r: task_pb2.InstanceRange) -> str:
    lo = getattr(r, "from")
    return f"{lo}:{r.to if r.to else ''}"
