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
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any

import h11
import trio
from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message

from peloton.core.errors import (
    DeadlineExceeded,
    InvalidArgument,
    PelotonError,
    ResourceExhausted,
    Unimplemented,
)
from peloton.rpc.errorfields import to_response

__all__ = ["Procedure", "procedures", "serve_http_json"]

log = logging.getLogger(__name__)

READ_TIMEOUT = 30.0
MAX_HEAD = 64 * 1024
# A call without Context-TTL-MS gets this long.
DEFAULT_TTL = 60.0

# YARPC's code names and the HTTP status its transport gives each.
_YARPC = {
    "INVALID_ARGUMENT": ("invalid-argument", 400),
    "NOT_FOUND": ("not-found", 404),
    "ALREADY_EXISTS": ("already-exists", 409),
    "FAILED_PRECONDITION": ("failed-precondition", 400),
    "ABORTED": ("aborted", 409),
    "UNAVAILABLE": ("unavailable", 503),
    "DEADLINE_EXCEEDED": ("deadline-exceeded", 504),
    "RESOURCE_EXHAUSTED": ("resource-exhausted", 429),
    "UNIMPLEMENTED": ("unimplemented", 501),
    "INTERNAL": ("internal", 500),
}


@dataclass(frozen=True, slots=True)
class Procedure:
    call: Callable[[Any], Awaitable[Any]]
    request_type: type[Message]
    response_type: type[Message]


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
                                  handler.reply_type)
            out[f"{service}::{method}"] = procedure
            out.setdefault(f"{service.rpartition('.')[2]}.{method}", procedure)
    return out


@dataclass(slots=True)
class _Answer:
    status: int
    body: bytes
    content_type: str
    rpc_status: str = ""


def _error(error: PelotonError, encoding: str) -> _Answer:
    code, status = _YARPC.get(error.code, ("unknown", 500))
    message = error.message if not error.field else f"{error.field}: {error.message}"
    if encoding == "json":
        body = json.dumps({"code": code, "message": message}).encode() + b"\n"
        return _Answer(status, body, "application/json", code)
    return _Answer(status, message.encode(), "text/plain; charset=utf-8", code)


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> str:
    for key, value in headers:
        if key.lower() == name:
            return value.decode("latin-1").strip()
    return ""


async def answer(table: dict[str, Procedure], method: bytes, headers: list[tuple[bytes, bytes]],
                 body: bytes, max_bytes: int) -> _Answer:
    """The answer to one request (headers lower-cased by h11)."""
    encoding = _header(headers, b"rpc-encoding").lower() or (
        "json" if "json" in _header(headers, b"content-type").lower() else "")
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
    try:
        with trio.fail_after(ttl):
            response = await procedure.call(request)
    except trio.TooSlowError:
        return _error(DeadlineExceeded(f"{name} took longer than its "
                                       f"Context-TTL-MS {ttl_text or int(DEFAULT_TTL * 1000)}"),
                      encoding)
    except PelotonError as error:
        response = to_response(error, procedure.response_type, request)
        if response is None:
            return _error(error, encoding)
    except Exception as error:
        log.exception("HTTP %s failed", name)
        return _error(PelotonError(f"internal error in {name}: {error!r}"), encoding)
    if encoding == "json":
        return _Answer(200, json_format.MessageToJson(response).encode() + b"\n",
                       "application/json")
    return _Answer(200, response.SerializeToString(), "application/x-protobuf")


async def _serve_connection(table: dict[str, Procedure], max_bytes: int,
                            stream: trio.SocketStream) -> None:
    conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)

    async def send(event: Any) -> None:
        data = conn.send(event)
        if data:
            await stream.send_all(data)

    try:
        while True:
            request: h11.Request | None = None
            body = bytearray()
            with trio.move_on_after(READ_TIMEOUT):
                while True:
                    event = conn.next_event()
                    if event is h11.NEED_DATA:
                        data = await stream.receive_some(65536)
                        conn.receive_data(data)
                        if not data and conn.their_state is not h11.DONE:
                            return
                        continue
                    if isinstance(event, h11.Request):
                        request = event
                    elif isinstance(event, h11.Data):
                        body += event.data
                        if len(body) > max_bytes + 1:
                            break  # answered 429 below; the rest is not read
                    elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                        break
            if request is None:
                return
            result = await answer(table, request.method, list(request.headers), bytes(body),
                                  max_bytes)
            headers = [("Content-Type", result.content_type),
                       ("Content-Length", str(len(result.body)))]
            if result.rpc_status:
                headers.append(("Rpc-Status", result.rpc_status))
            await send(h11.Response(status_code=result.status, headers=headers))
            await send(h11.Data(data=result.body))
            await send(h11.EndOfMessage())
            if conn.our_state is h11.MUST_CLOSE or conn.their_state is not h11.DONE:
                return
            conn.start_next_cycle()
    except h11.RemoteProtocolError as error:
        try:
            await stream.send_all(
                f"HTTP/1.1 {error.error_status_hint} Bad Request\r\nContent-Length: 0\r\n"
                "Connection: close\r\n\r\n".encode())
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass  # the client went away
    finally:
        await stream.aclose()


async def serve_http_json(services: Iterable[tuple[type, object]], host: str, port: int, *,
                          max_message_bytes: int,
                          task_status: trio.TaskStatus[tuple[str, int]] = trio.TASK_STATUS_IGNORED,
                          ) -> None:
    """Serve ``services`` (generated ``*Base`` class, implementation) as
    HTTP/JSON on ``host:port`` until cancelled."""
    table = procedures(services)
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(partial(
            trio.serve_tcp, partial(_serve_connection, table, max_message_bytes), port,
            host=host.strip("[]")))
        sockname = listeners[0].socket.getsockname()
        task_status.started((sockname[0], sockname[1]))
