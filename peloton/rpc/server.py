"""Serve gRPC services from trio.

A handler is an ordinary trio coroutine ``async def Method(request) ->
response``. ``serve_grpc`` binds the generated ``*Base`` classes (their
``__mapping__``: each method's path, cardinality and types) to such
handlers, maps ``PelotonError`` to gRPC status codes, and reports
unexpected exceptions as INTERNAL (logged with their traceback). The
HTTP/2 underneath is ``peloton.rpc.wire``.

A request to a public service (``peloton.api.v0``/``v1alpha``) larger than
``max_message_bytes`` is refused from its length prefix, before its body is
read (RESOURCE_EXHAUSTED, as gRPC's own servers answer, over 4 MiB by
default); one that does not decode is INVALID_ARGUMENT, logged in one
line. The daemons' internal services (``peloton.api.private``) carry whole
jobs' gangs and have no limit. A call's ``grpc-timeout`` bounds its
handler: past it the handler is cancelled and the call ends
DEADLINE_EXCEEDED. A call its client resets is cancelled.
"""

from __future__ import annotations

import contextvars
import logging
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import h2.errors
import h2.events
import trio
from google.protobuf.message import DecodeError
from grpclib.const import Status

from peloton.config import DEFAULT_MAX_MESSAGE_BYTES
from peloton.core.errors import PelotonError
from peloton.core.security import Security
from peloton.rpc import lean, wire
from peloton.rpc.errorfields import to_response
from peloton.rpc.errors import to_grpc

log = logging.getLogger(__name__)

Handler = Callable[[Any], Awaitable[Any]]

# The metadata the call being handled sends with its reply's headers.
_REPLY_METADATA: contextvars.ContextVar[list[tuple[bytes, bytes]]] = contextvars.ContextVar(
    "reply_metadata")


def add_reply_metadata(key: str, value: str) -> None:
    """Send ``key: value`` (a lower-case custom header, ASCII) with the
    reply of the call being handled, if it ends with one; outside a
    handler, nothing. Clients that do not know the key ignore it."""
    found = _REPLY_METADATA.get(None)
    if found is not None:
        found.append((key.encode("ascii"), value.encode("ascii")))


@dataclass(frozen=True, slots=True)
class Method:
    name: str  # Service.Method, for logs and errors
    fn: Handler
    request_type: Any
    reply_type: Any
    limit: int | None  # bytes; None: any size
    public: bool
    streams: bool  # server-streaming: fn returns the messages (a list or an async iterator)
    internal: bool  # a daemons' service (the cluster secret's)


def is_public(base: type) -> bool:
    """Whether ``base`` serves Peloton's public API (not a daemon's internal one)."""
    return not base.__module__.startswith("peloton.api.private.")


def methods(services: list[tuple[type, object]], *,
            max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> dict[bytes, Method]:
    """Each served path's method; a public service's requests are limited
    to ``max_message_bytes``."""
    table: dict[bytes, Method] = {}
    for base, impl in services:
        names = [n for n in getattr(base, "__abstractmethods__", ()) if n != "__mapping__"]
        missing = [n for n in names if not hasattr(impl, n)]
        if missing:
            raise TypeError(f"{type(impl).__name__} lacks {', '.join(sorted(missing))} "
                            f"of {base.__name__}")
        public = is_public(base)
        for path, handler in base.__mapping__(base).items():  # type: ignore[attr-defined]
            name = path.rsplit("/", 1)[1]
            table[path.encode()] = Method(
                f"{base.__name__}.{name}", getattr(impl, name), handler.request_type,
                handler.reply_type, max_message_bytes if public else None, public,
                handler.cardinality.name == "UNARY_STREAM",
                path.startswith("/peloton.private."))
    return table


# A client says which wire it speaks in its first bytes; one that says
# nothing for this long is dropped.
PREFACE_TIMEOUT = 10.0


class _Call:
    __slots__ = ("answer", "data", "ended", "method", "replying", "scope", "stream_id",
                 "timeout", "whole")

    def __init__(self, stream_id: int, method: Method, timeout: float | None) -> None:
        self.stream_id = stream_id
        self.method = method
        self.data: bytes | bytearray = bytearray()
        self.scope: trio.CancelScope | None = None
        self.timeout = timeout
        self.replying = False  # the reply's headers are out (or kept in ``answer``)
        self.ended = False  # its trailers are out, or the stream was reset
        # It came whole (the short wire's CALL frame): its reply may go so too,
        # headers and message kept in ``answer`` until the trailers join them.
        self.whole = False
        self.answer: tuple[list[tuple[bytes, bytes]], bytes] | None = None


class _ServerWire(wire.Wire):
    def __init__(self, stream: trio.abc.Stream, table: dict[bytes, Method],
                 security: Security | None, nursery: trio.Nursery, *, lean_wire: bool = False,
                 received: bytes = b"") -> None:
        super().__init__(stream, client_side=False, lean_wire=lean_wire, received=received)
        self.table = table
        self.security = security
        self.nursery = nursery
        self.calls: dict[int, _Call] = {}  # until their trailers are out

    def on_event(self, event: Any) -> None:
        kind = type(event)
        if kind is h2.events.DataReceived:
            call = self.calls.get(event.stream_id)
            if call is not None and call.scope is None:
                call.data += event.data
                if call.method.limit is not None and len(call.data) >= 5:
                    self._check_size(call)
        elif kind is h2.events.RequestReceived:
            self._request(event.stream_id, event.headers)
        elif kind is h2.events.StreamEnded:
            call = self.calls.get(event.stream_id)
            if call is not None and call.scope is None:
                self._start(call)
        elif kind is lean.CallReceived:
            self._request(event.stream_id, event.headers)
            call = self.calls.get(event.stream_id)
            if call is not None:
                call.data, call.whole = event.data, True
                if call.method.limit is not None:
                    self._check_size(call)
                if not call.ended:
                    self._start(call)
        elif kind is h2.events.StreamReset:
            call = self.calls.pop(event.stream_id, None)
            if call is not None:
                call.ended = True
                if call.scope is not None:
                    call.scope.cancel()

    def _start(self, call: _Call) -> None:
        """Serve a call whose request is all here."""
        # Its deadline set now, not once entered (a setter's cost).
        call.scope = (trio.CancelScope() if call.timeout is None else
                      trio.CancelScope(deadline=trio.current_time() + call.timeout))
        self.nursery.start_soon(self._serve, call)

    def on_lost(self) -> None:
        for call in self.calls.values():
            call.ended = True
            if call.scope is not None:
                call.scope.cancel()
        self.calls.clear()

    def _request(self, stream_id: int, headers: list[tuple[bytes, bytes]]) -> None:
        path = b""
        timeout: float | None = None
        for key, value in headers:
            if key == b":path":
                path = value
            elif key == b"grpc-timeout":
                timeout = wire.parse_timeout(value)
        method = self.table.get(path)
        if method is None:
            self._trailers_only(stream_id, Status.UNIMPLEMENTED,
                                f"{path.decode('ascii', 'replace')} is not a method "
                                "this server serves")
            return
        if self.security is not None:
            metadata = {key.decode("ascii", "replace"): value.decode("latin-1")
                        for key, value in headers if not key.startswith(b":")}
            why = self.security.check(path.decode(), metadata, internal=method.internal)
            if why is not None:
                code, _, message = why.partition(": ")
                self._trailers_only(stream_id, Status[code], message)
                return
        self.calls[stream_id] = _Call(stream_id, method, timeout)

    def _check_size(self, call: _Call) -> None:
        length = int.from_bytes(call.data[1:5], "big")
        limit = call.method.limit
        if limit is not None and length > limit:
            log.warning("%s: refused a request of %d bytes (limit %d)",
                        call.method.name, length, limit)
            self._finish(call, Status.RESOURCE_EXHAUSTED,
                         f"{call.method.name}: the request has {length} bytes, more than "
                         f"the {limit} this server takes (rpc.max_message_bytes)")
            call.data = bytearray()

    def _trailers_only(self, stream_id: int, status: Status, message: str | None) -> None:
        """A reply of a status alone; the rest of the request is not read."""
        try:
            self.h2.send_headers(stream_id, [(b":status", b"200"),
                                             (b"content-type", wire.CONTENT_TYPE),
                                             *wire.status_trailers(status.value, message)],
                                 end_stream=True)
        except wire.H2_ERRORS:
            return
        if self.h2.streams.get(stream_id) is not None and not self.h2.streams[stream_id].closed:
            # The request is still coming: stop it (gRPC's servers do so).
            self.reset(stream_id, h2.errors.ErrorCodes.NO_ERROR)
        self.kick()

    def _finish(self, call: _Call, status: Status, message: str | None) -> None:
        """End a call with ``status`` (its trailers, or a trailers-only reply)."""
        if call.ended:
            return
        call.ended = True
        self.calls.pop(call.stream_id, None)
        if not call.replying:
            self._trailers_only(call.stream_id, status, message)
            return
        try:
            if call.answer is not None:
                headers, data = call.answer
                self.h2.send_answer(  # type: ignore[union-attr]
                    call.stream_id, headers, data, wire.status_trailers(status.value, message))
            else:
                self.h2.send_headers(call.stream_id, wire.status_trailers(status.value, message),
                                     end_stream=True)
        except wire.H2_ERRORS:
            return
        self.kick()

    def _decode(self, call: _Call) -> Any:
        """The call's request, or None once the call was refused."""
        method = call.method
        found, why = wire.messages(call.data)
        call.data = bytearray()
        if why is not None:
            status = Status.UNIMPLEMENTED if "compressed" in why else Status.INVALID_ARGUMENT
            self._finish(call, status, f"{method.name}: {why}")
            return None
        if len(found) != 1:
            self._finish(call, Status.INVALID_ARGUMENT,
                         f"{method.name}: the request has {len(found)} messages, not one")
            return None
        try:
            return method.request_type.FromString(found[0])
        except (DecodeError, ValueError) as error:
            full = method.request_type.DESCRIPTOR.full_name
            log.warning("%s: refused a request that is not a %s: %s", method.name, full, error)
            self._finish(call, Status.INVALID_ARGUMENT,
                         f"{method.name}: the request is not a valid {full}: {error}")
            return None

    async def _serve(self, call: _Call) -> None:
        try:
            await self._answer(call)
        except Exception as error:  # ours, not the handler's: the connection must live on
            log.exception("answering %s failed", call.method.name)
            self._finish(call, Status.INTERNAL, f"internal error in {call.method.name}: "
                                                f"{error!r}")

    async def _answer(self, call: _Call) -> None:
        request = self._decode(call)
        if request is None:
            return
        method = call.method
        scope = call.scope
        assert scope is not None
        _REPLY_METADATA.set([])  # this task's own (each call is served by one)
        status, message = Status.OK, None
        with scope:
            try:
                if method.streams:
                    await self._stream(call, await method.fn(request))
                else:
                    await self._reply(call, await method.fn(request))
            except PelotonError as error:
                # Peloton's public responses carry most errors in their `error`
                # field (an OK status), which is what its clients read.
                answer = (to_response(error, method.reply_type, request)
                          if method.public and not method.streams else None)
                if answer is None:
                    grpc = to_grpc(error)
                    status, message = grpc.status, grpc.message
                else:
                    await self._reply(call, answer)
            except (trio.BrokenResourceError, trio.ClosedResourceError, *wire.H2_ERRORS):
                call.ended = True  # the client or the connection went away
            except Exception as error:
                log.exception("handler %s failed", method.name)
                status = to_grpc(PelotonError(f"{method.name}: {error!r}")).status
                message = f"internal error in {method.name}: {error!r}"
        if scope.cancelled_caught and not call.ended:
            status, message = Status.DEADLINE_EXCEEDED, f"{method.name} ran past its deadline"
        self._finish(call, status, message)

    def _headers(self, call: _Call) -> None:
        call.replying = True
        self.h2.send_headers(call.stream_id, _reply_headers())

    async def _reply(self, call: _Call, response: Any) -> None:
        data = wire.frame(response)
        if call.whole and len(data) <= self.h2.max_outbound_frame_size:
            # Sent with the trailers, in one frame (``_finish``).
            call.replying, call.answer = True, (_reply_headers(), data)
            return
        self._headers(call)
        await self.send_data(call.stream_id, data, end_stream=False)

    async def _stream(self, call: _Call, replies: Any) -> None:
        """A server-streaming call's messages, each sent as it comes."""
        self._headers(call)
        self.kick()
        if hasattr(replies, "__aiter__"):
            async for message in replies:
                await self.send_data(call.stream_id, wire.frame(message), end_stream=False)
        else:
            for message in replies:
                await self.send_data(call.stream_id, wire.frame(message), end_stream=False)


def _reply_headers() -> list[tuple[bytes, bytes]]:
    """A reply's headers: the call's own metadata after gRPC's."""
    return [(b":status", b"200"), (b"content-type", wire.CONTENT_TYPE),
            *_REPLY_METADATA.get([])]


async def _serve_connection(stream: trio.abc.Stream, table: dict[bytes, Method],
                            security: Security | None, context: ssl.SSLContext | None) -> None:
    if context is not None:
        stream = trio.SSLStream(stream, context, server_side=True)
        try:
            with trio.fail_after(10):
                await stream.do_handshake()
        except (trio.BrokenResourceError, trio.TooSlowError, OSError) as error:
            log.info("TLS handshake failed: %r", error)
            await trio.aclose_forcefully(stream)
            return
    # HTTP/2 or the short wire (our own clients'): the preface says which.
    received = b""
    prefaces = lean.CLIENT_PREFACES.values()
    try:
        with trio.fail_after(PREFACE_TIMEOUT):
            while (len(received) < lean.PREFACE_BYTES
                   and any(p.startswith(received) for p in prefaces)):
                data = await stream.receive_some(wire.READ_BYTES)
                if not data:
                    break
                received += data
    except (trio.TooSlowError, trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        await trio.aclose_forcefully(stream)
        return
    async with trio.open_nursery() as nursery:
        connection = _ServerWire(stream, table, security, nursery,
                                 lean_wire=received[:lean.PREFACE_BYTES] in prefaces,
                                 received=received)
        await connection.run()
        nursery.cancel_scope.cancel()


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
    table = methods(services, max_message_bytes=max_message_bytes)
    checks = security if security is not None and (security.users
                                                   or security.cluster_secret) else None
    context = security.server_ssl() if security is not None else None
    listeners = await trio.open_tcp_listeners(port, host=host)
    bound = listeners[0].socket.getsockname()

    async def handle(stream: trio.abc.Stream) -> None:
        await _serve_connection(stream, table, checks, context)

    async with trio.open_nursery() as nursery:
        await nursery.start(trio.serve_listeners, handle, listeners)
        task_status.started((bound[0], bound[1]))
        await trio.sleep_forever()
