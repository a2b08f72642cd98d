"""Commands that print an answer without loading protobuf or PyYAML: ``job get``.

Over the jobmgrs' HTTP/JSON API they ask for the answer as the YAML they
print (``HttpClient.call_text``), which the server makes with the same
functions as here (``peloton.rpc.http_json.PLAIN``), so what they print
is the same whichever way the answer came; over gRPC (a cluster without
HTTP addresses) they load the messages and make it themselves. Importing
protobuf and PyYAML is most of a quick command's time. ``--json`` prints
protobuf JSON, so it goes the usual way (``peloton.cli.job``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from peloton.cli.common import EXIT_OK, Cli
from peloton.cli.output import to_yaml

if TYPE_CHECKING:
    from peloton.client import PelotonClient

JOB_MANAGER = "peloton.api.v0.job.JobManager"


def job_get(cli: Cli) -> int:
    if cli.json:
        from peloton.cli.job import job_get as as_protobuf_json
        return as_protobuf_json(cli)
    job_id = cli.args.job

    async def over_grpc(c: PelotonClient) -> str:
        from peloton.api.v0.job import job_pb2
        from peloton.api.v0.peloton import peloton_pb2
        from peloton.spec.yamlproto import message_to_dict
        reply = await c.jobs.call("Get", job_pb2.GetRequest(id=peloton_pb2.JobID(value=job_id)))
        return to_yaml(message_to_dict(reply).get("jobInfo", {}))

    text = cli.call(over_grpc, http=lambda h: h.call_text(
        JOB_MANAGER, "Get", {"id": {"value": job_id}}, field="jobInfo"))
    cli.print(text.rstrip("\n"))
    return EXIT_OK
