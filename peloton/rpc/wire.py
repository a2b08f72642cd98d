"""gRPC's HTTP/2 on trio: one connection, its reader and its writer.

``h2`` (the HTTP/2 state machine grpclib itself uses) does the framing,
HPACK and flow control; this module moves its bytes with trio and carries
gRPC's conventions (the 5-byte message prefix, ``grpc-status`` trailers,
``grpc-timeout``). The server (``peloton.rpc.server``) and the client
(``peloton.rpc.client``) each add what happens to a stream's events.

grpclib runs on asyncio, and trio-asyncio bridged every call between the
two loops: a unary call cost ~2 ms of cpu at the client and ~1.6 ms at the
server on the 2-core machine, more than the daemons' own work on a job of
one task (``python -m loadtest.bench_rpc``; see the rpc section of
docs/architecture.md). The generated ``*_grpc.py`` files are still grpclib's:
their ``__mapping__`` names each method's path, cardinality and types, and
their stubs name the method a client calls.

One task reads and hands events out; one task writes, sending whatever h2
has queued each time it is woken, so the replies of many calls finished
in one pass of the event loop leave in one ``send``.

Between two programs of ours a connection is the short wire instead
(``peloton.rpc.lean``): the same calls and events without HTTP/2, which
was most of a call's cpu.
"""

from __future__ import annotations

import abc
import logging
from typing import Any

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.settings
import trio
from grpclib.metadata import decode_grpc_message, encode_grpc_message
from h2.settings import SettingCodes

from peloton.rpc import lean

log = logging.getLogger(__name__)

# What a peer may send before it waits for us, per stream and per
# connection: a whole job's gangs fit without a round trip.
WINDOW = 32 * 1024 * 1024
MAX_FRAME = 1024 * 1024  # the largest frame we accept (HTTP/2 allows up to 16 MiB - 1)
MAX_STREAMS = 10_000  # calls a peer may have open on one connection
MAX_HEADERS = 64 * 1024  # bytes of one call's headers (h2's own default)
READ_BYTES = 256 * 1024

CONTENT_TYPE = b"application/grpc"
H2_ERRORS = (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError)
_LOST = (trio.BrokenResourceError, trio.ClosedResourceError, OSError)


def _configuration(client_side: bool) -> h2.config.H2Configuration:
    # Headers stay bytes; neither side's headers are checked or rewritten
    # by h2 (ours are well formed, and a peer's are read by name only).
    return h2.config.H2Configuration(
        client_side=client_side, header_encoding=None,
        validate_outbound_headers=False, normalize_outbound_headers=False,
        validate_inbound_headers=False, normalize_inbound_headers=False)


def frame(message: Any) -> bytes:
    """A message as gRPC sends it: uncompressed flag, length, bytes.
    ``message`` may be serialized already (``bytes``): a client that sends
    many requests made from one template encodes them itself."""
    data = message if isinstance(message, bytes) else message.SerializeToString()
    return b"\x00" + len(data).to_bytes(4, "big") + data


def status_trailers(code: int, message: str | None) -> list[tuple[bytes, bytes]]:
    trailers = [(b"grpc-status", str(code).encode())]
    if message:
        trailers.append((b"grpc-message", encode_grpc_message(message).encode()))
    return trailers


def grpc_message(value: bytes | None) -> str | None:
    return decode_grpc_message(value.decode("ascii", "replace")) if value else None


_TIMEOUT_UNITS = {b"H": 3600.0, b"M": 60.0, b"S": 1.0, b"m": 1e-3, b"u": 1e-6, b"n": 1e-9}


def parse_timeout(value: bytes) -> float | None:
    """``grpc-timeout``'s seconds, or None when it does not parse."""
    unit = _TIMEOUT_UNITS.get(value[-1:])
    digits = value[:-1]
    if unit is None or not digits.isdigit() or len(digits) > 8:
        return None
    return int(digits) * unit


def format_timeout(seconds: float) -> bytes:
    """``seconds`` as ``grpc-timeout`` (at most 8 digits, in milliseconds or coarser)."""
    millis = max(1, int(seconds * 1000))
    if millis < 100_000_000:
        return b"%dm" % millis
    return b"%dS" % min(int(seconds), 99_999_999)


class Wire(abc.ABC):
    """One HTTP/2 connection over a trio stream, or, with ``lean_wire``, one
    of the short wire between our own programs (``peloton.rpc.lean``: the same
    calls and events, without HTTP/2's cost); ``run`` until it closes.
    ``received``: what was read of the stream before (a server's look at
    which wire a client speaks); ``lean_version``: the short wire's version
    a client speaks (a server takes its client's)."""

    def __init__(self, stream: trio.abc.Stream, *, client_side: bool, lean_wire: bool = False,
                 received: bytes = b"", lean_version: int = lean.VERSION) -> None:
        self.stream = stream
        self.lean = lean_wire
        self._received = received
        self.closed = False
        self.going_away = False  # the peer said GOAWAY: no new calls on it
        self._wake = trio.Event()
        self._window = trio.Event()  # set (and replaced) when a send window may have opened
        self._scope = trio.CancelScope()  # ``run``'s: ``abort`` cancels it
        self._closing = False  # ``close``: the writer ends the connection once it sent GOAWAY
        self._finished = trio.Event()
        self.h2: h2.connection.H2Connection | lean.LeanConnection
        if lean_wire:
            self.h2 = lean.LeanConnection(client_side=client_side, max_frame=MAX_FRAME,
                                          window=WINDOW, max_headers=MAX_HEADERS,
                                          max_streams=MAX_STREAMS, version=lean_version)
            self.h2.initiate_connection()
            self.kick()
            return
        self.h2 = conn = h2.connection.H2Connection(_configuration(client_side))
        # Our settings hold from the first byte (not from the peer's ack): a
        # client may open many calls before it reads our SETTINGS frame.
        settings: dict[SettingCodes | int, int] = {
            SettingCodes.INITIAL_WINDOW_SIZE: WINDOW, SettingCodes.MAX_FRAME_SIZE: MAX_FRAME,
            SettingCodes.MAX_CONCURRENT_STREAMS: MAX_STREAMS,
            SettingCodes.MAX_HEADER_LIST_SIZE: MAX_HEADERS}
        if client_side:
            settings[SettingCodes.ENABLE_PUSH] = 0
        else:
            settings[lean.LEAN_SETTING] = lean.LEAN_MAGIC  # our clients take the short wire
        conn.local_settings = h2.settings.Settings(client=client_side,
                                                   initial_values=settings)  # type: ignore[arg-type]
        conn.max_inbound_frame_size = conn.incoming_buffer.max_frame_size = MAX_FRAME
        conn.initiate_connection()
        conn.increment_flow_control_window(WINDOW - conn.inbound_flow_control_window)
        self.kick()

    # -- what the two sides add -------------------------------------------

    @abc.abstractmethod
    def on_event(self, event: Any) -> None:
        """An h2 event of one of the connection's streams (window and
        settings changes are handled here)."""

    @abc.abstractmethod
    def on_lost(self) -> None:
        """The connection is gone: fail or cancel what is still open."""

    def on_settings(self, event: Any) -> None:  # noqa: B027
        """The peer's HTTP/2 settings (a client learns the short wire here);
        nothing by default."""

    # -- moving bytes -------------------------------------------------------

    def kick(self) -> None:
        """Have the writer send what h2 has queued."""
        self._wake.set()

    async def run(self) -> None:
        """Read and write until the peer or ``close`` ends the connection."""
        try:
            with self._scope:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._writer)
                    await self._reader()
                    nursery.cancel_scope.cancel()
        except Exception:  # a bug of ours ends this connection, not the process
            log.exception("a gRPC connection failed")
        finally:
            self.closed = True
            self.on_lost()
            self._window.set()
            with trio.CancelScope(shield=True):
                await trio.aclose_forcefully(self.stream)
            self._finished.set()

    async def _reader(self) -> None:
        receive = self.stream.receive_some
        data: bytes | bytearray
        data, self._received = self._received, b""
        while True:
            if not data:
                try:
                    data = await receive(READ_BYTES)
                except _LOST as error:
                    log.debug("connection lost: %r", error)
                    return
                if not data:
                    return
            try:
                events = self.h2.receive_data(data)
            except h2.exceptions.ProtocolError as error:
                log.warning("%s protocol error from the peer: %s",
                            "short-wire" if self.lean else "HTTP/2", error)
                self.kick()
                return
            data = b""
            for event in events:
                kind = type(event)
                if isinstance(event, h2.events.DataReceived):
                    # Acknowledged at once: what a call may hold is bounded
                    # by its own limit (the server's rpc.max_message_bytes).
                    self._acknowledge(event.flow_controlled_length, event.stream_id)
                elif kind is h2.events.WindowUpdated:
                    self.window_opened()
                    continue
                elif kind is h2.events.RemoteSettingsChanged:
                    self.window_opened()
                    self.on_settings(event)
                    continue
                elif kind is h2.events.ConnectionTerminated:
                    self.going_away = True
                self.on_event(event)
            self.kick()

    def _acknowledge(self, length: int, stream_id: int) -> None:
        if not length:
            return
        try:
            self.h2.acknowledge_received_data(length, stream_id)
        except H2_ERRORS:  # the stream ended meanwhile: the connection's window still counts it
            self.h2.increment_flow_control_window(length)

    async def _writer(self) -> None:
        send_all = self.stream.send_all
        while True:
            await self._wake.wait()
            self._wake = trio.Event()
            data = self.h2.data_to_send()
            if data:
                try:
                    await send_all(data)
                except _LOST as error:
                    log.debug("connection lost: %r", error)
                    self._scope.cancel()
                    return
                if self.lean:  # written: its senders may queue more
                    self.window_opened()
            if self._closing:
                self._scope.cancel()
                return

    def window_opened(self) -> None:
        self._window.set()
        self._window = trio.Event()

    async def send_data(self, stream_id: int, data: bytes, *, end_stream: bool) -> None:
        """Queue ``data`` on a stream, waiting for the peer's window when it
        is short; raises h2's StreamClosedError if the stream ends first."""
        h2conn = self.h2
        total, sent = len(data), 0
        view = memoryview(data)
        while True:
            if self.closed:
                raise trio.ClosedResourceError("the connection closed")
            room = min(total - sent, h2conn.local_flow_control_window(stream_id),
                       h2conn.max_outbound_frame_size)
            if room <= 0 and sent < total:
                self.kick()
                await self._window.wait()
                continue
            chunk = data if room == total else bytes(view[sent:sent + room])
            sent += room
            h2conn.send_data(stream_id, chunk, end_stream=end_stream and sent == total)
            if sent == total:
                break
        self.kick()

    def reset(self, stream_id: int, code: int = h2.errors.ErrorCodes.CANCEL) -> None:
        """End a stream of ours early (a call given up on, a reply refused)."""
        if self.closed:
            return
        try:
            self.h2.reset_stream(stream_id, code)
        except H2_ERRORS:
            return
        self.kick()

    def abort(self) -> None:
        """Close the connection now; what is open on it fails."""
        self.closed = True
        self._scope.cancel()

    async def close(self) -> None:
        """GOAWAY, a moment for the writer to send it, then ``abort``."""
        if self.closed:
            return
        try:
            self.h2.close_connection()
        except H2_ERRORS:
            pass
        self._closing = True
        self.kick()
        with trio.move_on_after(1):
            await self._finished.wait()
        self.abort()


def messages(data: bytes | bytearray) -> tuple[list[bytes], str | None]:
    """The gRPC messages in a stream's bytes, and why they do not parse (None: they do)."""
    out: list[bytes] = []
    view = memoryview(data)
    at, total = 0, len(data)
    while at < total:
        if total - at < 5:
            return out, "a message was cut short"
        if view[at]:
            return out, "compressed messages are not supported; send them plain"
        length = int.from_bytes(view[at + 1:at + 5], "big")
        if at + 5 + length > total:
            return out, "a message was cut short"
        out.append(bytes(view[at + 5:at + 5 + length]))
        at += 5 + length
    return out, None
