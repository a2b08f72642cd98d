"""Peloton's API over HTTP with JSON, the way its YARPC HTTP transport takes it.

Peloton's daemons answered YARPC over HTTP beside gRPC, so its own
documentation calls the job manager with ``curl``::

    curl -X POST -H 'content-type: application/json' \\
      -H 'Rpc-Procedure: JobManager.Get' -H 'Rpc-Service: peloton-jobmgr' \\
      -H 'Rpc-Caller: peloton-client' -H 'Context-TTL-MS: 1000' \\
      -H 'Rpc-Encoding: json' --data '{"id": {"value": "<job id>"}}' \\
      localhost:5292/api/v1

Routing is by the ``Rpc-Procedure`` header, as YARPC routes: ``JobManager.Get``
or the full ``peloton.api.v0.job.JobManager::Get``; any path is taken
(``/api/v1``, a per-service path). The body is protobuf JSON
(``Rpc-Encoding: json``) or protobuf bytes (``proto``); the answer is in the
same encoding. ``Context-TTL-MS`` bounds the call. The handlers are the
gRPC services' own, so an answer is the same either way: a failure the
response has an ``error`` field for comes back in it with 200 (see
:mod:`peloton.rpc.errorfields`); any other failure is a JSON error
``{"code": "not-found", "message": ...}`` with YARPC's HTTP status for its
code and the ``Rpc-Status`` header.

One answer of our own, for clients that would rather not load protobuf
or PyYAML (the ``peloton`` command's ``job get``, ``job status`` and
``task list``; see ``peloton.cli.plain``): a JSON request with
``Accept: application/vnd.peloton.plain+yaml`` (:data:`PLAIN`) is
answered with the YAML ``peloton`` prints of the response
(``peloton.cli.output.to_yaml`` of ``peloton.spec.yamlproto.message_to_dict``:
enum names, integers as integers, also 64-bit ones and map keys, which
JSON cannot keep); ``PLAIN; field=jobInfo`` gives one top-level field of
it. ``application/vnd.peloton.plain+json`` (:data:`PLAIN_JSON`) is the
same data as JSON, for a client that reads fields of it (``task list``):
there 64-bit integers stay numbers, and map keys are strings, as JSON has
them. A failure in the response's error field comes back as the JSON error
it stands for, so such a client reads every failure from ``Rpc-Status``.

And one request of our own: ``Content-Type: application/vnd.peloton.spec+yaml``
(:data:`SPEC`) sends a spec file as it is, for a procedure the server has a
:data:`SpecReader` for (the jobmgr's: ``JobManager.Create``, a job's YAML
with ``Peloton-Respool: /pool``; see ``peloton.jobmgr.specs``). The server
reads it with the spec loader the CLI would run, so neither the client nor
``curl`` needs protobuf or PyYAML; ``Peloton-Spec-Name`` names the file in
the spec's errors and warnings, and the warnings come back in a
``Peloton-Warnings`` header, a JSON list of strings. Every answer to such a
request has ``Peloton-Spec-Read: yes`` from a server that reads specs:
without it, the server took the spec for protobuf JSON. The answer is as
for a JSON request (``Rpc-Encoding`` picks proto), ``Accept`` included::

    curl -H 'Rpc-Procedure: JobManager.Create' -H 'Peloton-Respool: /DefaultResPool' \\
      -H 'Content-Type: application/vnd.peloton.spec+yaml' --data-binary @job.yaml \\
      localhost:5292/api/v1
"""

from __future__ import annotations

import base64
import json
import logging
import math
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

import trio
from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message

from peloton.cli.output import to_yaml
from peloton.core.errors import (
    DeadlineExceeded,
    InvalidArgument,
    PelotonError,
    ResourceExhausted,
    Unimplemented,
)
from peloton.core.security import AUTH_HEADER, SECRET_HEADER, Security
from peloton.rpc.errorfields import from_response, to_response
from peloton.rpc.h11serve import Answer, serve_http
from peloton.rpc.media import PLAIN, PLAIN_JSON, SPEC, SPEC_READ, WARNINGS
from peloton.rpc.yarpc import CODES, error_text
from peloton.spec.yamlproto import message_to_dict

__all__ = ["PLAIN", "PLAIN_JSON", "SPEC", "SPEC_READ", "WARNINGS", "Procedure", "SpecReader",
           "procedures", "serve_http_json"]

log = logging.getLogger(__name__)

# A call without Context-TTL-MS gets this long.
DEFAULT_TTL = 60.0
# Makes a procedure's request from a SPEC request's text. It gets a
# header's value by its lower-case name ("" when absent), ``call``, which
# makes another procedure's call as the same caller (``"ResourceManager.
# LookupResourcePoolID"``, checked as that call would be), and a list to add
# the spec's warnings to. Returns the request; raises the PelotonError to
# answer (as a YARPC error, never in the response's error field).
Header = Callable[[str], str]
SubCall = Callable[[str, Message], Awaitable[Any]]
SpecReader = Callable[[str, Header, SubCall, list[str]], Awaitable[Message]]


@dataclass(frozen=True, slots=True)
class Procedure:
    call: Callable[[Any], Awaitable[Any]]
    request_type: type[Message]
    response_type: type[Message]
    path: str = ""  # /package.Service/Method
    name: str = ""  # its handler as gRPC names it in errors: JobManagerBase.Get


def procedures(services: Iterable[tuple[type, object]]) -> dict[str, Procedure]:
    """Every unary method of the generated ``*Base`` classes, served by the
    matching methods of their implementations, under the names YARPC
    accepts: ``Service.Method`` and ``package.Service::Method``."""
    out: dict[str, Procedure] = {}
    for base, impl in services:
        for path, handler in base.__mapping__(base).items():  # type: ignore[attr-defined]
            service, method = path.strip("/").split("/")
            if handler.cardinality.name != "UNARY_UNARY" or not hasattr(impl, method):
                continue
            procedure = Procedure(getattr(impl, method), handler.request_type,
                                  handler.reply_type, path, f"{base.__name__}.{method}")
            out[f"{service}::{method}"] = procedure
            out.setdefault(f"{service.rpartition('.')[2]}.{method}", procedure)
    return out


def _error(error: PelotonError, encoding: str) -> Answer:
    code, status = CODES.get(error.code, ("unknown", 500))
    message = error_text(error)
    if encoding == "json":
        body = json.dumps({"code": code, "message": message}).encode() + b"\n"
        return Answer(status, body, "application/json", [("Rpc-Status", code)])
    return Answer(status, message.encode(), "text/plain; charset=utf-8",
                  [("Rpc-Status", code)])


def _base64(value: object) -> str:
    """Bytes that are not UTF-8 text, in a plain JSON answer: base64, as
    protobuf JSON has them."""
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    raise TypeError(f"{type(value).__name__} is not JSON")


def _parameter(media_type: str, name: str) -> str:
    """The ``name=value`` parameter of a media type (``a/b; field=x``), or ""."""
    for part in media_type.split(";")[1:]:
        key, _, value = part.partition("=")
        if key.strip().lower() == name:
            return value.strip().strip('"')
    return ""


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> str:
    for key, value in headers:
        if key.lower() == name:
            return value.decode("latin-1").strip()
    return ""


async def answer(table: dict[str, Procedure], method: bytes, headers: list[tuple[bytes, bytes]],
                 body: bytes, max_bytes: int, security: Security | None = None,
                 readers: dict[str, SpecReader] | None = None) -> Answer:
    """The answer to one request (headers lower-cased by h11); ``readers``
    by procedure path (``/package.Service/Method``) for SPEC requests."""
    answered = await _answer(table, method, headers, body, max_bytes, security, readers)
    if readers and _header(headers, b"content-type").lower().startswith(SPEC):
        answered.headers.append((SPEC_READ, "yes"))
    return answered


async def _answer(table: dict[str, Procedure], method: bytes, headers: list[tuple[bytes, bytes]],
                  body: bytes, max_bytes: int, security: Security | None,
                  readers: dict[str, SpecReader] | None) -> Answer:
    content_type = _header(headers, b"content-type").lower()
    spec = content_type.startswith(SPEC)
    encoding = _header(headers, b"rpc-encoding").lower() or (
        "json" if spec or "json" in content_type else "")
    if encoding not in ("json", "proto"):
        return _error(InvalidArgument(
            f"unknown encoding {encoding or '(none)'!r}; send Rpc-Encoding: json (protobuf "
            "JSON) or proto (protobuf bytes)", field="Rpc-Encoding"), "json")
    if method != b"POST":
        return _error(InvalidArgument(f"{method.decode('latin-1')} is not allowed; "
                                      "POST the request", field="method"), encoding)
    name = _header(headers, b"rpc-procedure")
    procedure = table.get(name)
    if procedure is None:
        return _error(Unimplemented(
            f"no procedure {name or '(none)'!r}; this server has "
            f"{', '.join(sorted(n for n in table if '::' not in n))}"), encoding)
    refused = _refusal(security, procedure, headers)
    if refused is not None:
        return _error(refused, encoding)
    if len(body) > max_bytes:
        return _error(ResourceExhausted(f"the request has {len(body)} bytes, more than the "
                                        f"{max_bytes} this server takes"), encoding)
    ttl_text = _header(headers, b"context-ttl-ms")
    try:
        ttl = int(ttl_text) / 1000 if ttl_text else DEFAULT_TTL
    except ValueError:
        ttl = -1.0
    if not (0 < ttl < math.inf):
        return _error(InvalidArgument(f"expected milliseconds > 0, got {ttl_text!r}",
                                      field="Context-TTL-MS"), encoding)
    if spec:
        reader = (readers or {}).get(procedure.path)
        if reader is None:
            return _error(InvalidArgument(
                f"{name} takes no {SPEC} request (a spec file); send its request as "
                "protobuf JSON or bytes", field="Content-Type"), encoding)
        try:
            text = body.decode()
        except UnicodeDecodeError as error:
            return _error(InvalidArgument(f"the spec is not UTF-8 text: {error}",
                                          field="body"), encoding)
    else:
        request = procedure.request_type()
        try:
            if encoding == "json":
                json_format.Parse(body or b"{}", request)
            else:
                request.ParseFromString(body)
        except (json_format.ParseError, DecodeError, ValueError, UnicodeDecodeError) as error:
            return _error(InvalidArgument(f"the body is not a valid "
                                          f"{request.DESCRIPTOR.full_name}: {error}",
                                          field="body"), encoding)

    async def call(other: str, message: Message) -> Any:
        target = table.get(other)
        if target is None:
            raise Unimplemented(f"no procedure {other!r}")
        refused = _refusal(security, target, headers)
        if refused is not None:
            raise refused
        return await target.call(message)

    def header(key: str) -> str:
        return _header(headers, key.encode())

    warnings: list[str] = []
    try:
        with trio.fail_after(ttl):
            if spec:
                assert reader is not None
                try:
                    request = await reader(text, header, call, warnings)
                except PelotonError as error:  # the spec's: no response holds it
                    return _warned(_error(error, encoding), warnings)
            response = await procedure.call(request)
    except trio.TooSlowError:
        return _warned(_error(DeadlineExceeded(
            f"{name} took longer than its Context-TTL-MS "
            f"{ttl_text or int(DEFAULT_TTL * 1000)}"), encoding), warnings)
    except PelotonError as error:
        response = to_response(error, procedure.response_type, request)
        if response is None:
            return _warned(_error(error, encoding), warnings)
    except Exception as error:
        log.exception("HTTP %s failed", name)
        # In the gRPC server's words, so a client reads the same error either way.
        return _warned(_error(PelotonError(
            f"internal error in {procedure.name or name}: {error!r}"), encoding), warnings)
    return _warned(_encoded(response, encoding, _header(headers, b"accept")), warnings)


def _refusal(security: Security | None, procedure: Procedure,
             headers: list[tuple[bytes, bytes]]) -> PelotonError | None:
    """Why ``security`` refuses this caller ``procedure`` (None: it may call)."""
    if security is None:
        return None
    why = security.check(procedure.path, {
        AUTH_HEADER: _header(headers, AUTH_HEADER.encode()),
        SECRET_HEADER: _header(headers, SECRET_HEADER.encode())}, internal=False)
    if why is None:
        return None
    code, _, message = why.partition(": ")
    error = PelotonError(message)
    error.code = code
    return error


def _warned(answer: Answer, warnings: list[str]) -> Answer:
    if warnings:
        answer.headers.append((WARNINGS, json.dumps(warnings)))
    return answer


def _encoded(response: Message, encoding: str, accept: str) -> Answer:
    """The answer that carries ``response``, as the request asked for it."""
    plain = next((t for t in (PLAIN, PLAIN_JSON) if accept.startswith(t)), "")
    if encoding == "json" and plain:
        failed = from_response(response)
        if failed is not None:
            return _error(failed, encoding)
        data = message_to_dict(response)
        field = _parameter(accept, "field")
        if field:
            data = data.get(field, {})
        if plain == PLAIN:
            return Answer(200, to_yaml(data).encode(), PLAIN)
        return Answer(200, json.dumps(data, default=_base64).encode() + b"\n", PLAIN_JSON)
    if encoding == "json":
        return Answer(200, json_format.MessageToJson(response).encode() + b"\n",
                      "application/json")
    return Answer(200, response.SerializeToString(), "application/x-protobuf")


async def serve_http_json(services: Iterable[tuple[type, object]], host: str, port: int, *,
                          max_message_bytes: int, security: Security | None = None,
                          readers: dict[str, SpecReader] | None = None,
                          task_status: trio.TaskStatus[tuple[str, int]] = trio.TASK_STATUS_IGNORED,
                          ) -> None:
    """Serve ``services`` (generated ``*Base`` class, implementation) as
    HTTP/JSON on ``host:port`` until cancelled; with ``security``, over TLS
    when it has a certificate, and each call checked as gRPC's are (the
    user in an ``Authorization: Basic`` header); SPEC requests through
    ``readers`` (by procedure path)."""
    table = procedures(services)
    checked = security if security is not None and (
        security.users or security.cluster_secret) else None

    async def handle(method: bytes, target: bytes, headers: list[tuple[bytes, bytes]],
                     body: bytes) -> Answer:
        return await answer(table, method, headers, body, max_message_bytes, checked, readers)

    await serve_http(handle, host, port, max_body=max_message_bytes, task_status=task_status,
                     ssl_context=security.server_ssl() if security is not None else None)
