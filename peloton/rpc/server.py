"""Serve grpclib services from trio.

grpclib runs on asyncio; trio-asyncio runs that loop inside our trio run, so
a handler is an ordinary trio coroutine ``async def Method(request) ->
response``. ``serve_grpc`` binds the generated ``*Base`` classes to such
handlers, maps ``PelotonError`` to gRPC status codes, and reports unexpected
exceptions as INTERNAL (logged with their traceback).

Requests are read here, not by grpclib's ``Stream.recv_message``: a request
to a public service (``peloton.api.v0``/``v1alpha``) larger than
``max_message_bytes`` is refused from its length prefix, before its body is
read (RESOURCE_EXHAUSTED, as gRPC's own servers answer, over 4 MiB by
default); one that does not decode is INVALID_ARGUMENT, logged in one line
(grpclib answered UNKNOWN and logged a traceback). grpclib has no size limit
of its own (vmagamedov/grpclib#195). The daemons' internal services
(``peloton.api.private``) carry whole jobs' gangs and have no limit.

Every daemon runs inside ``open_rpc()`` (a trio-asyncio loop); nothing
outside ``peloton.rpc`` touches asyncio.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import trio
import trio_asyncio
from google.protobuf.message import DecodeError
from grpclib.const import Status
from grpclib.events import RecvRequest, listen
from grpclib.exceptions import GRPCError
from grpclib.server import Server

from peloton.config import DEFAULT_MAX_MESSAGE_BYTES
from peloton.core.errors import PelotonError
from peloton.core.security import Security
from peloton.rpc.errorfields import to_response
from peloton.rpc.errors import to_grpc

log = logging.getLogger(__name__)

Handler = Callable[[Any], Awaitable[Any]]


def _log_loop_error(loop: Any, context: dict[str, Any]) -> None:
    # trio-asyncio's default handler raises into the loop's nursery, so a
    # stray "Task exception was never retrieved" or grpclib's "Unclosed
    # connection" from an abandoned call would kill the whole daemon.
    log.warning("asyncio: %s", context.get("message"), exc_info=context.get("exception"))


@asynccontextmanager
async def open_rpc() -> AsyncIterator[Any]:
    """The asyncio loop grpclib needs, running inside trio."""
    async with trio_asyncio.open_loop() as loop:
        loop.set_exception_handler(_log_loop_error)
        yield loop


async def _receive(stream: Any, name: str, limit: int | None) -> Any:
    """The request of a unary call, or GRPCError: larger than ``limit`` bytes
    (None: no limit), compressed, missing, or not a message of its type.
    Reads grpclib's stream as its ``recv_message`` does (5-byte prefix: a
    compressed flag and the length), checking the length first."""
    raw = stream._stream
    meta = await raw.recv_data(5)
    if len(meta) < 5:
        raise GRPCError(Status.INVALID_ARGUMENT, f"{name}: the request has no message")
    if meta[0]:
        raise GRPCError(Status.UNIMPLEMENTED,
                        f"{name}: compressed requests are not supported; send them plain")
    length = int.from_bytes(meta[1:5], "big")
    if limit is not None and length > limit:
        log.warning("%s: refused a request of %d bytes (limit %d)", name, length, limit)
        raise GRPCError(Status.RESOURCE_EXHAUSTED,
                        f"{name}: the request has {length} bytes, more than the "
                        f"{limit} this server takes (rpc.max_message_bytes)")
    data = await raw.recv_data(length)
    try:
        request = stream._recv_type.FromString(data)
    except (DecodeError, ValueError) as error:
        log.warning("%s: refused a request that is not a %s: %s", name,
                    stream._recv_type.DESCRIPTOR.full_name, error)
        raise GRPCError(Status.INVALID_ARGUMENT,
                        f"{name}: the request is not a valid "
                        f"{stream._recv_type.DESCRIPTOR.full_name}: {error}") from None
    stream._messages_received += 1  # grpclib's counters, as recv_message keeps them
    raw.connection.messages_received += 1
    raw.connection.last_message_received = time.monotonic()
    return request


def _adapt(name: str, fn: Handler, limit: int | None, public: bool,
           streams: bool = False) -> Callable[[Any, Any], Awaitable[None]]:
    """grpclib's method for handler ``fn``; a server-streaming one
    (``streams``) returns the messages to send, in order: a list, or an
    async iterator (a live stream, sent as it yields)."""
    if streams:
        async def streaming(stream: Any, request: Any) -> None:
            send = trio_asyncio.aio_as_trio(stream.send_message)
            messages = await fn(request)
            if hasattr(messages, "__aiter__"):
                async for message in messages:
                    await send(message)
            else:
                for message in messages:
                    await send(message)
        call_in_trio = trio_asyncio.trio_as_aio(streaming)
    else:
        call_in_trio = trio_asyncio.trio_as_aio(fn)

    async def method(self: Any, stream: Any) -> None:
        request = await _receive(stream, name, limit)
        try:
            response = await (call_in_trio(stream, request) if streams
                              else call_in_trio(request))
        except PelotonError as error:
            # Peloton's public responses carry most errors in their `error`
            # field (an OK status), which is what its clients read.
            answer = (to_response(error, stream._send_type, request)
                      if public and not streams else None)
            if answer is None:
                raise to_grpc(error) from None
            response = answer
        except GRPCError:
            raise
        except Exception as error:
            log.exception("handler %s failed", name)
            raise GRPCError(to_grpc(PelotonError(f"{name}: {error!r}")).status,
                            f"internal error in {name}: {error!r}") from None
        if not streams:  # (a stream's messages are sent as they come)
            await stream.send_message(response)

    method.__name__ = name
    return method


def is_public(base: type) -> bool:
    """Whether ``base`` serves Peloton's public API (not a daemon's internal one)."""
    return not base.__module__.startswith("peloton.api.private.")


def bind(base: type, impl: object, *,
         max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> object:
    """An instance of generated ``base`` whose methods call ``impl``'s; a
    public service's requests are limited to ``max_message_bytes``."""
    names = [n for n in getattr(base, "__abstractmethods__", ()) if n != "__mapping__"]
    missing = [n for n in names if not hasattr(impl, n)]
    if missing:
        raise TypeError(f"{type(impl).__name__} lacks {', '.join(sorted(missing))} of {base.__name__}")
    public = is_public(base)
    limit = max_message_bytes if public else None
    streaming = {path.rsplit("/", 1)[1] for path, handler in
                 base.__mapping__(base).items()  # type: ignore[attr-defined]
                 if handler.cardinality.name == "UNARY_STREAM"}
    namespace = {n: _adapt(f"{base.__name__}.{n}", getattr(impl, n), limit, public,
                           n in streaming)
                 for n in names}
    return type(f"Bound{base.__name__}", (base,), namespace)()


async def serve_grpc(
    services: list[tuple[type, object]],
    host: str,
    port: int,
    *,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    security: Security | None = None,
    task_status: trio.TaskStatus[tuple[str, int]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve until cancelled; ``task_status.started((host, port))`` once bound.

    ``services`` pairs generated ``*Base`` classes with handler objects.
    Port 0 picks a free port (tests). With ``security``: TLS when it has a
    certificate, and each call checked (``Security.check``) before its
    handler runs.
    """
    server = Server([bind(base, impl, max_message_bytes=max_message_bytes)  # type: ignore[misc]
                     for base, impl in services])
    if security is not None and (security.users or security.cluster_secret):
        async def check(event: RecvRequest) -> None:
            why = security.check(event.method_name, dict(event.metadata),  # type: ignore[arg-type]
                                 internal=event.method_name.startswith("/peloton.private."))
            if why is not None:
                code, _, message = why.partition(": ")
                raise GRPCError(Status[code], message)
        listen(server, RecvRequest, check)
    await trio_asyncio.aio_as_trio(server.start)(
        host, port, ssl=security.server_ssl() if security is not None else None)
    try:
        bound = server._server.sockets[0].getsockname()  # type: ignore[union-attr]
        task_status.started((bound[0], bound[1]))
        await trio.sleep_forever()
    finally:
        server.close()
        with trio.CancelScope(shield=True), trio.move_on_after(2):
            await trio_asyncio.aio_as_trio(server.wait_closed)()
