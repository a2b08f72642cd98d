"""Commands that print an answer without loading protobuf or PyYAML:
``job get``, ``job status`` and ``task list``.

Over the jobmgrs' HTTP/JSON API they ask for the answer as plain data
(``peloton.rpc.http_json.PLAIN``): ``job get`` as the YAML it prints
(``HttpClient.call_text``), ``job status`` and ``task list`` as JSON they
make their text of (``HttpClient.call_plain``). The server makes it with the same functions
as here, so what they print is the same whichever way the answer came;
over gRPC (a cluster without HTTP addresses) they load the messages and
make it themselves. Importing protobuf and PyYAML is most of a quick
command's time. ``--json`` prints protobuf JSON, and ``task list --range``
sends a range message, so those go the usual way (``peloton.cli.job``,
``peloton.cli.task``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from peloton.cli.common import EXIT_OK, Cli
from peloton.cli.output import short_time, table, to_yaml

if TYPE_CHECKING:
    from peloton.client import PelotonClient

JOB_MANAGER = "peloton.api.v0.job.JobManager"
TASK_MANAGER = "peloton.api.v0.task.TaskManager"
# The name of JobState 0 and TaskState 0, which plain data leaves out (a
# field at its default).
UNKNOWN_STATE = "UNKNOWN"


async def _job_info(c: PelotonClient, job_id: str) -> dict[str, Any]:
    """The job's ``JobInfo`` as plain data, over gRPC (loading the messages)."""
    from peloton.api.v0.job import job_pb2
    from peloton.api.v0.peloton import peloton_pb2
    from peloton.spec.yamlproto import message_to_dict
    reply = await c.jobs.call("Get", job_pb2.GetRequest(id=peloton_pb2.JobID(value=job_id)))
    return message_to_dict(reply).get("jobInfo", {})


def job_get(cli: Cli) -> int:
    if cli.json:
        from peloton.cli.job import job_get as as_protobuf_json
        return as_protobuf_json(cli)
    job_id = cli.args.job

    async def over_grpc(c: PelotonClient) -> str:
        return to_yaml(await _job_info(c, job_id))

    text = cli.call(over_grpc, http=lambda h: h.call_text(
        JOB_MANAGER, "Get", {"id": {"value": job_id}}, field="jobInfo"))
    cli.print(text.rstrip("\n"))
    return EXIT_OK


def job_status(cli: Cli) -> int:
    if cli.json:
        from peloton.cli.job import job_status as as_protobuf_json
        return as_protobuf_json(cli)
    job_id = cli.args.job

    info = cli.call(lambda c: _job_info(c, job_id), http=lambda h: h.call_plain(
        JOB_MANAGER, "Get", {"id": {"value": job_id}}, field="jobInfo"))
    cli.print(job_status_text(info))
    return EXIT_OK


def job_status_text(info: Mapping[str, Any]) -> str:
    """What ``job status`` prints of a ``JobInfo`` as plain data."""
    config, rt = info.get("config", {}), info.get("runtime", {})
    stats = {k: v for k, v in rt.get("taskStats", {}).items() if v}
    rows = [
        ("job", info.get("id", {}).get("value", "")),
        ("name", config.get("name", "")),
        ("state", rt.get("state", UNKNOWN_STATE)),
        ("goal state", rt.get("goalState", UNKNOWN_STATE)),
        ("created", short_time(rt.get("creationTime", ""))),
        ("started", short_time(rt.get("startTime", ""))),
        ("completed", short_time(rt.get("completionTime", ""))),
        ("instances", str(config.get("instanceCount", 0))),
        ("tasks", ", ".join(f"{k} {v}" for k, v in sorted(stats.items())) or "none"),
    ]
    return "\n".join(f"{k + ':':<12}{v}" for k, v in rows)


def task_list(cli: Cli) -> int:
    a = cli.args
    if cli.json or a.range is not None:
        from peloton.cli.task import task_list as with_messages
        return with_messages(cli)

    async def over_grpc(c: PelotonClient) -> dict[str, Any]:
        from peloton.api.v0.peloton import peloton_pb2
        from peloton.api.v0.task import task_pb2
        from peloton.spec.yamlproto import message_to_dict
        reply = await c.tasks.call("List", task_pb2.ListRequest(
            jobId=peloton_pb2.JobID(value=a.job)))
        return message_to_dict(reply)

    reply = cli.call(over_grpc, http=lambda h: h.call_plain(
        TASK_MANAGER, "List", {"jobId": {"value": a.job}}))
    # Map keys: instance ids, as numbers over gRPC and as strings in JSON.
    by_instance = reply.get("result", {}).get("value", {})
    cli.print(task_rows(by_instance[k] for k in sorted(by_instance, key=int)))
    return EXIT_OK


def task_rows(infos: Iterable[Mapping[str, Any]]) -> str:
    """The table of tasks (``TaskInfo`` as plain data) ``task list`` prints."""
    rows = []
    for t in infos:
        rt = t.get("runtime", {})
        rows.append((t.get("instanceId", 0), t.get("config", {}).get("name") or "-",
                     rt.get("state", UNKNOWN_STATE), rt.get("host") or "-",
                     short_time(rt.get("startTime", "")), task_message(rt)))
    return table(("INSTANCE", "NAME", "STATE", "HOST", "STARTED", "MESSAGE"), rows)


def task_message(rt: Mapping[str, Any]) -> str:
    """A task's message (else its reason), with its exit code if it has one."""
    message = rt.get("message") or rt.get("reason", "")
    code = rt.get("terminationStatus", {}).get("exitCode", 0)
    if code and str(code) not in message:
        message = f"{message} (exit {code})".strip()
    return str(message)
