"""Commands that print an answer without loading protobuf or PyYAML:
``job get``, ``job status``, ``task list`` and ``job create``.

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

``job create`` sends the spec file as it is (``peloton.rpc.http_json.SPEC``)
and the jobmgr reads it with the same spec loader (``peloton.jobmgr.specs``):
its errors and warnings come back naming the file, as the CLI would name
it. Over gRPC, and with ``--json``, the CLI reads the spec itself
(``peloton.cli.job``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from peloton.cli.common import EXIT_OK, Cli, read_text
from peloton.cli.output import job_status_text, task_rows, to_yaml

if TYPE_CHECKING:
    from peloton.client import PelotonClient
    from peloton.rpc.http_client import HttpClient

JOB_MANAGER = "peloton.api.v0.job.JobManager"
TASK_MANAGER = "peloton.api.v0.task.TaskManager"


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


def job_create(cli: Cli) -> int:
    """Over HTTP, the spec goes as it is and the jobmgr reads it; without
    HTTP addresses, or with ``--json``, as ``peloton.cli.job.job_create``."""
    from peloton.core.errors import PelotonError
    a = cli.args
    try:
        http = not cli.json and bool(cli.http_targets(cli.addresses()))
    except PelotonError:  # said after the spec's own problems, as always
        http = False
    if not http:
        from peloton.cli.job import job_create as with_messages
        return with_messages(cli)
    from peloton.spec.paths import split_respool_path
    split_respool_path(a.respool)
    spec = read_text(a.file)
    # The id is chosen here, before the first send, so a create sent again
    # (over HTTP, or over gRPC after an HTTP attempt) is the same create.
    chosen = a.id or cli.new_job_id()
    given = a.id is not None
    headers = {"Peloton-Respool": quote(a.respool), "Peloton-Spec-Name": quote(a.file),
               "Peloton-Job-Id": chosen}
    warned: list[str] = []

    def warn(warnings: list[str]) -> None:
        for warning in warnings:
            if warning not in warned:  # once, if the create is sent again
                warned.append(warning)
                cli.warn(warning)

    def over_http(h: HttpClient) -> str:
        return created_once(lambda: str(h.call_spec(
            JOB_MANAGER, "Create", spec, headers, warn=warn).get("jobId", {}).get("value")
            or chosen), chosen, given=given)

    # When no jobmgr answered over HTTP, or one answered that reads no specs.
    async def over_grpc(c: PelotonClient) -> str:
        from peloton.cli.job import create_over_grpc
        return await create_over_grpc(cli, c, chosen, given=given)

    job_id = cli.call(over_grpc, http=over_http)
    cli.print(f"Job {job_id} created")
    return EXIT_OK


def created_once(send: Callable[[], str], chosen: str, *, given: bool) -> str:
    """The id of the job ``send()`` creates with id ``chosen``, sent again
    (the same create) while an attempt is not answered, up to
    CREATE_ATTEMPTS times, as ``PelotonClient.create_job`` does. ``given``:
    the user chose the id, so an AlreadyExists is theirs to see; else it
    means an earlier send of ours went through."""
    from peloton.core.errors import AlreadyExists, DeadlineExceeded, Unavailable
    from peloton.core.ids import CREATE_ATTEMPTS, create_unanswered
    from peloton.rpc.http_client import is_transport_error
    attempt = 0
    while True:
        attempt += 1
        try:
            return send()
        except AlreadyExists:
            if given:
                raise
            return chosen
        except (DeadlineExceeded, Unavailable) as error:
            if not is_transport_error(error):
                raise
            if attempt == CREATE_ATTEMPTS:
                raise DeadlineExceeded(create_unanswered(chosen, error)) from None
