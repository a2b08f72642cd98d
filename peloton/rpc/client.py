"""Call gRPC services from trio, following the leader and retrying.

``ServiceClient(addresses, StubClass)`` calls one service that may be served
by several addresses (resmgr replicas, jobmgr instances). It sticks to the
address that last answered, follows ``NotLeader`` hints, and moves to the
next address when one is unreachable, until ``deadline`` seconds pass.

Only UNAVAILABLE outcomes are retried, and only for the time allowed; every
call that changes state must therefore be idempotent (the servers make them
so with idempotency keys) — a timed-out call may still have taken effect.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import logging
import ssl
from collections.abc import AsyncIterator, Iterator
from typing import Any

import h2.events
import trio
from google.protobuf.message import DecodeError
from grpclib.const import Status
from grpclib.exceptions import GRPCError

from peloton.core.errors import DeadlineExceeded, Internal, NotLeader, PelotonError, Unavailable
from peloton.core.security import Credentials
from peloton.rpc import lean, wire
from peloton.rpc.errorfields import from_response
from peloton.rpc.errors import from_grpc

log = logging.getLogger(__name__)


def split_address(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"not a host:port address: {address!r}")
    return host.strip("[]"), int(port)


# What every channel of this process uses (``configure``): TLS (the CA it
# trusts) and the credentials it shows (a user's, or a daemon's secret).
_SSL: ssl.SSLContext | None = None
_METADATA: list[tuple[bytes, bytes]] = []


def configure(context: ssl.SSLContext | None, credentials: Credentials | None) -> None:
    """Make every channel opened from now on use TLS with ``context`` (None:
    plain) and send ``credentials`` with each call."""
    global _SSL, _METADATA
    _SSL = context
    _METADATA = ([(key.encode(), value.encode()) for key, value in credentials.metadata()]
                 if credentials is not None else [])


@contextlib.contextmanager
def configured(context: ssl.SSLContext | None,
               credentials: Credentials | None) -> Iterator[None]:
    """``configure`` for the channels opened inside the block, and what was
    configured before restored after it (a program that drives a cluster
    as a library, like the load test in the test suite)."""
    global _SSL, _METADATA
    before = _SSL, _METADATA
    configure(context, credentials)
    try:
        yield
    finally:
        _SSL, _METADATA = before


class _Call:
    __slots__ = ("data", "done", "error", "headers", "trailers")

    def __init__(self) -> None:
        self.done = trio.Event()
        self.headers: list[tuple[bytes, bytes]] = []
        self.data = bytearray()
        self.trailers: list[tuple[bytes, bytes]] = []
        self.error: PelotonError | None = None


LAST_STREAM_ID = 2**31 - 2**20  # a client's streams are odd numbers below 2**31

# Which wire this process's calls go on: "auto", HTTP/2 to an address until
# its server says (in its HTTP/2 settings) that it speaks the short wire
# (``peloton.rpc.lean``), which the connections after that one take; "http2"
# only; "lean" from the first connection on (tests).
WIRE = "auto"
# The addresses known to speak it, with the version to speak to each. One
# whose short-wire connection closes before its server answered the
# preface (an older version serves there now) is spoken to in the version
# before, and after version 1 on HTTP/2 again.
_LEAN: dict[str, int] = {}


class _ClientWire(wire.Wire):
    def __init__(self, stream: trio.abc.Stream, address: str, scheme: bytes, *,
                 lean_wire: bool = False, lean_version: int = lean.VERSION) -> None:
        super().__init__(stream, client_side=True, lean_wire=lean_wire,
                         lean_version=lean_version)
        self.address = address
        self._authority = address.encode()
        self._scheme = scheme
        self._metadata = _METADATA
        self.calls: dict[int, _Call] = {}
        self._stream_freed = trio.Event()

    def on_event(self, event: Any) -> None:
        kind = type(event)
        if kind is h2.events.ConnectionTerminated:
            # Calls it will not answer (past its last stream) may go elsewhere.
            last = event.last_stream_id or 0
            for stream_id in [s for s in self.calls if s > last]:
                self.calls[stream_id].error = Unavailable(f"{self.address} is going away")
                self._end(stream_id)
            return
        call = self.calls.get(getattr(event, "stream_id", 0))
        if kind is lean.AnswerReceived:
            if call is not None:
                call.headers, call.data, call.trailers = event.headers, event.data, event.trailers
            self._end(event.stream_id)
        elif kind is h2.events.StreamEnded or kind is h2.events.StreamReset:
            if call is not None and kind is h2.events.StreamReset:
                call.error = Unavailable(f"{self.address} reset the call "
                                         f"(HTTP/2 error {event.error_code})")
            self._end(event.stream_id)  # (a stream given up on frees its place too)
        elif call is None:  # given up on, or not a call's event
            return
        elif kind is h2.events.DataReceived:
            call.data += event.data
        elif kind is h2.events.ResponseReceived:
            call.headers = event.headers
        elif kind is h2.events.TrailersReceived:
            call.trailers = event.headers

    def _end(self, stream_id: int) -> None:
        call = self.calls.pop(stream_id, None)
        if call is not None:
            call.done.set()
        self._stream_freed.set()
        self._stream_freed = trio.Event()
        if self.going_away and not self.calls:
            self.abort()  # replaced by another connection, and its last call is over

    def on_settings(self, event: Any) -> None:
        if WIRE == "auto" and not self.lean and lean.speaks_lean(event):
            # This connection's calls finish on it; the next ones go on the
            # short wire (Channels.get opens it), in the version it speaks.
            _LEAN.setdefault(self.address, lean.VERSION)
            self.going_away = True
            if not self.calls:
                self.abort()

    def on_lost(self) -> None:
        if self.lean and not self.h2.confirmed:  # type: ignore[union-attr]
            version = _LEAN.pop(self.address, lean.VERSION) - 1
            if version >= 1:
                _LEAN[self.address] = version
        for call in self.calls.values():
            if call.error is None:
                call.error = Unavailable(f"cannot reach {self.address}: its connection closed")
            call.done.set()
        self.calls.clear()
        self._stream_freed.set()

    async def call(self, path: bytes, data: bytes, timeout: float) -> _Call:
        """Send one request (already framed) and wait for the whole reply."""
        h2conn = self.h2
        while (not self.closed and h2conn.open_outbound_streams
               >= h2conn.remote_settings.max_concurrent_streams):
            await self._stream_freed.wait()
        if self.closed or self.going_away:
            raise Unavailable(f"cannot reach {self.address}: its connection closed")
        if self.lean:  # what our servers read of a request's headers
            headers = [(b":path", path), (b"grpc-timeout", wire.format_timeout(timeout)),
                       *self._metadata]
        else:
            headers = [(b":method", b"POST"), (b":scheme", self._scheme), (b":path", path),
                       (b":authority", self._authority), (b"te", b"trailers"),
                       (b"content-type", wire.CONTENT_TYPE),
                       (b"grpc-timeout", wire.format_timeout(timeout)), *self._metadata]
        # A request that fits in a frame, and in the window, goes whole
        # (the short wire's version 2): one frame, not three.
        whole = (self.lean and h2conn.whole_calls  # type: ignore[union-attr]
                 and len(data) <= min(h2conn.max_outbound_frame_size,
                                      h2conn.room()))  # type: ignore[union-attr]
        try:
            stream_id = h2conn.get_next_available_stream_id()
            if whole:
                h2conn.send_call(stream_id, headers, data)  # type: ignore[union-attr]
            else:
                h2conn.send_headers(stream_id, headers)
        except wire.H2_ERRORS as error:
            self.going_away = True
            raise Unavailable(f"cannot call {self.address} on this connection: {error}") from None
        if stream_id >= LAST_STREAM_ID:
            self.going_away = True  # HTTP/2 numbers 2**30 calls a connection; the next opens another
        call = self.calls[stream_id] = _Call()
        try:
            if whole:
                self.kick()
            else:
                try:
                    await self.send_data(stream_id, data, end_stream=True)
                except wire.H2_ERRORS:
                    pass  # the server answered before it read it all: its answer says why
            await call.done.wait()
        except BaseException:
            if not call.done.is_set():
                self.calls.pop(stream_id, None)
                self.reset(stream_id)
            raise
        return call


class Channels:
    """One HTTP/2 connection per address, shared by every client of a
    process; a connection is opened on first use and dropped when it fails."""

    def __init__(self) -> None:
        self._channels: dict[str, _ClientWire] = {}
        self._connecting: dict[str, trio.Event] = {}

    async def get(self, address: str) -> _ClientWire:
        while True:
            channel = self._channels.get(address)
            if channel is not None and not channel.closed and not channel.going_away:
                return channel
            pending = self._connecting.get(address)
            if pending is None:
                break
            await pending.wait()
        if channel is not None and not channel.calls:
            channel.abort()
        self._connecting[address] = done = trio.Event()
        try:
            channel = self._channels[address] = await _connect(address)
        finally:
            del self._connecting[address]
            done.set()
        return channel

    def drop(self, address: str) -> None:
        """Forget the connection to ``address`` (the next call opens another)
        and close it."""
        channel = self._channels.pop(address, None)
        if channel is not None:
            channel.abort()

    def close(self) -> None:
        for address in list(self._channels):
            self.drop(address)

    async def aclose(self) -> None:
        """Close every connection, each with a GOAWAY first."""
        channels, self._channels = list(self._channels.values()), {}
        for channel in channels:
            await channel.close()


# The nursery of ``open_rpc``: where the connections' readers and writers run.
_CONNECTIONS: contextvars.ContextVar[trio.Nursery] = contextvars.ContextVar("grpc_connections")


@contextlib.asynccontextmanager
async def open_rpc() -> AsyncIterator[None]:
    """What a program that calls gRPC runs inside: the connections it opens
    live in this block's nursery, and leaving it closes them."""
    raised: BaseException | None = None
    async with trio.open_nursery() as nursery:
        token = _CONNECTIONS.set(nursery)
        try:
            yield
        except BaseException as error:  # raised below as itself, not in the nursery's group
            raised = error
        finally:
            _CONNECTIONS.reset(token)
            with trio.CancelScope(shield=True):
                await close_default_channels()
            nursery.cancel_scope.cancel()  # and any other Channels' connections
    if raised is not None:
        raise raised


async def _connect(address: str) -> _ClientWire:
    nursery = _CONNECTIONS.get(None)
    if nursery is None:
        raise RuntimeError("gRPC calls are made inside peloton.rpc.open_rpc()")
    host, port = split_address(address)
    try:
        stream: trio.abc.Stream = await trio.open_tcp_stream(host, port)
        if _SSL is not None:
            stream = trio.SSLStream(stream, _SSL, server_hostname=host)
            await stream.do_handshake()
    except (OSError, trio.BrokenResourceError) as error:
        raise Unavailable(f"cannot reach {address}: {error}") from None
    channel = _ClientWire(stream, address, b"https" if _SSL is not None else b"http",
                          lean_wire=WIRE == "lean" or (WIRE == "auto" and address in _LEAN),
                          lean_version=_LEAN.get(address, lean.VERSION))
    nursery.start_soon(channel.run, name=f"grpc connection to {address}")
    return channel


_DEFAULT_CHANNELS: Channels | None = None


def default_channels() -> Channels:
    global _DEFAULT_CHANNELS
    if _DEFAULT_CHANNELS is None:
        _DEFAULT_CHANNELS = Channels()
    return _DEFAULT_CHANNELS


async def close_default_channels() -> None:
    global _DEFAULT_CHANNELS
    if _DEFAULT_CHANNELS is not None:
        channels, _DEFAULT_CHANNELS = _DEFAULT_CHANNELS, None
        await channels.aclose()


# gRPC's status for an HTTP status that came without one (its spec's table).
_STATUS_BY_HTTP = {400: Status.INTERNAL, 401: Status.UNAUTHENTICATED,
                   403: Status.PERMISSION_DENIED, 404: Status.UNIMPLEMENTED,
                   429: Status.UNAVAILABLE, 502: Status.UNAVAILABLE,
                   503: Status.UNAVAILABLE, 504: Status.UNAVAILABLE}


@functools.cache
def _method(stub_cls: type, method: str) -> tuple[bytes, Any, bool]:
    """(path, reply type, whether the server streams) of a generated stub's method."""
    found = getattr(stub_cls(None), method)
    return (found.name.encode(), found.reply_type,
            type(found).__name__ == "UnaryStreamMethod")


def _outcome(call: _Call, reply_type: Any, streams: bool, address: str) -> Any:
    """The reply (a list of them for a server-streaming method), or the
    PelotonError its status names."""
    if call.error is not None:
        raise call.error
    fields = dict(call.headers)
    fields.update(call.trailers)
    value = fields.get(b":status", b"200")
    http = int(value) if value.isdigit() else 0
    code = fields.get(b"grpc-status")
    if code is None or http != 200:
        status = _STATUS_BY_HTTP.get(http, Status.UNKNOWN)
        instead = "without a gRPC status" if code is None else "instead of 200"
        raise from_grpc(GRPCError(status, f"{address} answered HTTP {http} {instead}"))
    try:
        status = Status(int(code))
    except ValueError:
        status = Status.UNKNOWN
    if status is not Status.OK:
        raise from_grpc(GRPCError(status, wire.grpc_message(fields.get(b"grpc-message"))))
    found, why = wire.messages(call.data)
    if why is not None or (not streams and len(found) != 1):
        raise Internal(f"{address} answered what is not one gRPC message: "
                       f"{why or f'{len(found)} messages'}")
    try:
        replies = [reply_type.FromString(data) for data in found]
    except (DecodeError, ValueError) as error:
        raise Internal(f"{address} answered what is not a "
                       f"{reply_type.DESCRIPTOR.full_name}: {error}") from None
    return replies if streams else replies[0]


async def call_once(channels: Channels, address: str, stub_cls: type, method: str,
                    request: Any, timeout: float,
                    metadata: dict[bytes, bytes] | None = None) -> Any:
    """One attempt at one address; every failure comes out as a PelotonError.

    A server-streaming method's reply is the list of its messages. The
    reply's headers go into ``metadata``, if given, whatever the outcome."""
    path, reply_type, streams = _method(stub_cls, method)
    data = wire.frame(request)
    with trio.move_on_after(timeout) as scope:
        channel = await channels.get(address)
        call = await channel.call(path, data, timeout)
    if scope.cancelled_caught:
        raise DeadlineExceeded(f"{method} to {address} took longer than {timeout:g}s")
    if metadata is not None:
        metadata.update(call.headers)
    try:
        response = _outcome(call, reply_type, streams, address)
    except Unavailable:
        if channel.closed:
            channels.drop(address)
        raise
    answered = from_response(response) if not streams else None
    if answered is not None:  # Peloton's error fields: the same exceptions
        raise answered
    return response


class ServiceClient:
    """Calls to one service served at any of ``addresses``."""

    def __init__(self, addresses: list[str], stub_cls: type, *,
                 channels: Channels | None = None, deadline: float = 20.0) -> None:
        if not addresses:
            raise ValueError("no addresses to call")
        self.addresses = list(addresses)
        self.stub_cls = stub_cls
        self.channels = channels or default_channels()
        self.deadline = deadline
        self._preferred = self.addresses[0]

    def set_addresses(self, addresses: list[str]) -> None:
        if addresses:
            self.addresses = list(addresses)
            if self._preferred not in self.addresses:
                self._preferred = self.addresses[0]

    async def call(self, method: str, request: Any, *, timeout: float = 10.0,
                   deadline: float | None = None, prefer: str | None = None,
                   metadata: dict[bytes, bytes] | None = None) -> Any:
        """Call ``method``; retry UNAVAILABLE elsewhere until ``deadline`` (s).

        ``prefer``: the address to try first, if it is one of ours (else
        the one that answered last). ``metadata``: filled with the headers
        of the reply (see ``call_once``)."""
        give_up = trio.current_time() + (self.deadline if deadline is None else deadline)
        delay = 0.05
        last: PelotonError | None = None
        address = prefer if prefer is not None and prefer in self.addresses else self._preferred
        tried: set[str] = set()
        while True:
            try:
                response = await call_once(self.channels, address, self.stub_cls, method,
                                           request, timeout, metadata)
                if address != prefer:
                    self._preferred = address
                return response
            except NotLeader as error:
                last = error
                tried.add(address)
                if error.leader and error.leader != address:
                    if error.leader not in self.addresses:
                        self.addresses.append(error.leader)
                    address = error.leader
                    continue
            except Unavailable as error:
                last = error
                tried.add(address)
            untried = [a for a in self.addresses if a not in tried]
            if untried:
                address = untried[0]
                continue
            if trio.current_time() + delay > give_up:
                assert last is not None
                raise last
            await trio.sleep(delay)
            delay = min(delay * 2, 1.0)
            tried.clear()
            address = self.addresses[(self.addresses.index(address) + 1) % len(self.addresses)]
