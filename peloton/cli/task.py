"""``peloton task``: list, get, logs, stop, start and restart tasks of a job."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.task import task_pb2
from peloton.cli.common import (
    EXIT_OK,
    Cli,
    group,
    instance_arg,
    job_id_arg,
    leaf,
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

    def text() -> str:
        rows = []
        for instance in sorted(reply.result.value):
            t = reply.result.value[instance]
            rt = t.runtime
            rows.append((instance, t.config.name or "-", task_pb2.TaskState.Name(rt.state),
                         rt.host or "-", short_time(rt.startTime), _task_message(rt)))
        return table(("INSTANCE", "NAME", "STATE", "HOST", "STARTED", "MESSAGE"), rows)

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
    cli.stdout.flush()
    buffer = getattr(cli.stdout, "buffer", None)
    if buffer is not None:
        buffer.write(data)
        buffer.flush()
    else:
        cli.stdout.write(data.decode(errors="replace"))
    return EXIT_OK


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
