"""Spec files sent as they are to the jobmgr's HTTP/JSON API
(``peloton.rpc.http_json.SPEC``): the job's YAML for ``JobManager.Create``.

The jobmgr runs the spec loader the ``peloton`` command would run
(``peloton.spec.job.load_job_config``, with this jobmgr's capabilities), so
a client sends the file without protobuf or PyYAML. Headers (a path or a
name is UTF-8: percent-encoded as in a URL, as the CLI sends it, since a
header is Latin-1; or raw, as ``curl -H`` sends what a user types):

- ``Peloton-Respool`` (required): the resource pool's path, ``/a/b``;
- ``Peloton-Job-Id`` (optional): the id to create the job with, so a
  client that got no answer can send the same create again;
- ``Peloton-Spec-Name`` (optional): the file's name, which the spec's
  errors and warnings begin with (``job.yaml: instancecount: ...``), as
  the CLI prints a spec it reads itself.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from peloton.api.v0.job import job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.respool import respool_pb2
from peloton.core.errors import InvalidArgument, NotFound
from peloton.rpc.errorfields import from_response
from peloton.rpc.http_json import Header, SpecReader, SubCall
from peloton.spec.job import load_job_config
from peloton.spec.paths import split_respool_path

__all__ = ["spec_readers"]

CREATE = "/peloton.api.v0.job.JobManager/Create"
LOOKUP = "peloton.api.v0.respool.ResourceManager::LookupResourcePoolID"


def spec_readers(capabilities: frozenset[str]) -> dict[str, SpecReader]:
    """The jobmgr's readers, for a jobmgr of ``capabilities``."""

    async def create(text: str, header: Header, call: SubCall,
                     warnings: list[str]) -> Any:
        respool = _text(header("peloton-respool"))
        if not respool:
            raise InvalidArgument("a job spec is created in a resource pool: give its path "
                                  "(/a/b)", field="Peloton-Respool")
        split_respool_path(respool)
        name = _text(header("peloton-spec-name"))
        try:
            config, said = load_job_config(text, capabilities=capabilities)
        except InvalidArgument as error:
            raise InvalidArgument(f"{name}: {error}") if name else error from None
        warnings += [f"{name}: {w}" if name else w for w in said]
        reply = await call(LOOKUP, respool_pb2.LookupRequest(
            path=respool_pb2.ResourcePoolPath(value=respool)))
        failed = from_response(reply)
        if failed is not None:
            raise failed
        if not reply.id.value:
            raise NotFound(f"resource pool {respool} does not exist")
        config.respoolID.value = reply.id.value
        return job_pb2.CreateRequest(id=peloton_pb2.JobID(value=header("peloton-job-id")),
                                     config=config)

    return {CREATE: create}


def _text(value: str) -> str:
    """A header's text: its bytes (Latin-1, as HTTP reads them) as UTF-8
    when they are, then percent-decoded."""
    try:
        value = value.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        pass
    return unquote(value)
