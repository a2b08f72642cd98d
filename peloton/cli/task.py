"""``peloton task``: list, get, logs, stop, start and restart tasks of a job."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
    instance_arg,
    job_id_arg,
    leaf,
    list_arg,
    order_spec,
    page_note,
    parse_range,
)
from peloton.cli.output import (
    message_yaml,
    short_time,
    spans,
    table,
)
from peloton.client import PelotonClient


def _task_message(rt: task_pb2.RuntimeInfo) -> str:
    message = rt.message or rt.reason
    if rt.HasField("terminationStatus") and rt.terminationStatus.exit_code \
            and str(rt.terminationStatus.exit_code) not in message:
        message = f"{message} (exit {rt.terminationStatus.exit_code})".strip()
    return message


def task_list(cli: Cli) -> int:
    a = cli.args
    request = task_pb2.ListRequest(jobId=peloton_pb2.JobID(value=a.job))
    if a.range is not None:
        request.range.CopyFrom(a.range)

    async def list_tasks(c: PelotonClient) -> task_pb2.ListResponse:
        return await c.tasks.call("List", request)

    reply = cli.call(list_tasks)

    cli.emit(reply, lambda: _task_rows(
        reply.result.value[i] for i in sorted(reply.result.value)))
    return EXIT_OK


def _task_rows(infos: Any) -> str:
    rows = []
    for t in infos:
        rt = t.runtime
        rows.append((t.instanceId, t.config.name or "-", task_pb2.TaskState.Name(rt.state),
                     rt.host or "-", short_time(rt.startTime), _task_message(rt)))
    return table(("INSTANCE", "NAME", "STATE", "HOST", "STARTED", "MESSAGE"), rows)


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

    async def get(c: PelotonClient) -> task_pb2.GetResponse:
        return await c.tasks.call("Get", task_pb2.GetRequest(
            jobId=peloton_pb2.JobID(value=a.job), instanceId=a.instance))

    reply = cli.call(get)
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


def _task_action(verb: str) -> Callable[[Cli], int]:
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


def add_commands(commands: Any) -> None:
    """Register the ``task`` commands."""
    tk = group(commands, "task", "tasks of a job")
    p = leaf(tk, "list", task_list, "list a job's tasks")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("-r", "--range", type=parse_range, default=None, metavar="FROM:TO",
                   help="only these instances (to exclusive)")
    p = leaf(tk, "query", task_query, "search a job's tasks")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("-s", "--states", type=enum_list(task_pb2.TaskState),
                   help="comma-separated task states, e.g. RUNNING,FAILED")
    p.add_argument("--names", type=list_arg, help="task names (a,b,...)")
    p.add_argument("--hosts", type=list_arg, help="hosts (a,b,...)")
    add_paging(p, sort="instance_id (the default), creation_time, host, message, name, "
               "reason or state", order="ASC")
    p = leaf(tk, "refresh", task_refresh, "ask the hosts about tasks' runs again (debug)")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("-r", "--range", type=parse_range, default=None, metavar="FROM:TO",
                   help="only these instances (to exclusive)")
    p = leaf(tk, "cache", task_cache, "show a task as its shard's owner holds it (debug)")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("instance", type=instance_arg)
    p = leaf(tk, "events", task_events, "a task's state changes, newest run first")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("instance", type=instance_arg)
    p.add_argument("-r", "--run", default=None, metavar="MESOS_TASK_ID",
                   help="only this run (<job>-<instance>-<run>)")
    p.add_argument("-l", "--limit", type=count_arg, default=10,
                   help="of the last LIMIT runs (10)")
    p = leaf(tk, "get", task_get, "show one task")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("instance", type=instance_arg)
    p = leaf(tk, "logs", task_logs, "print a task's stdout (or another sandbox file)")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("instance", type=instance_arg)
    p.add_argument("run_id", nargs="?", default=None, metavar="MESOS_TASK_ID",
                   help="a past run (default: the current one)")
    p.add_argument("--stderr", action="store_true", help="print stderr instead of stdout")
    p.add_argument("-f", "--file", default=None, help="a sandbox file by name")
    p.add_argument("--run", default=None, metavar="MESOS_TASK_ID", help="a past run")
    for verb in ("stop", "start", "restart"):
        p = leaf(tk, verb, _task_action(verb), f"{verb} tasks of a job (default: all)")
        p.add_argument("job", type=job_id_arg)
        p.add_argument("-r", "--range", dest="ranges", action="append", type=parse_range,
                       metavar="FROM:TO", help="instances from <= i < to; repeatable")
