"""The short wire: gRPC calls between Peloton's own programs without HTTP/2.

HTTP/2 in pure Python is most of what a call costs: ``h2`` (with HPACK and
hyperframe) took 62-66% of the cpu of a bare unary call at each end
(``python -m loadtest.bench_rpc``, py-spy, 16 in flight), ~120 us of
~190. Between two programs of this project the same call goes on a
connection that frames it plainly, and each end costs a fraction of that.

``LeanConnection`` stands in for ``h2.connection.H2Connection`` under
``peloton.rpc.wire.Wire``: it takes the same calls and gives the same
events (``RequestReceived``, ``ResponseReceived``, ``TrailersReceived``,
``DataReceived``, ``StreamEnded``, ``StreamReset``,
``ConnectionTerminated``), so the server and the client read a call the
same way on either wire, and gRPC's own conventions (the 5-byte message
prefix, ``grpc-status`` trailers, ``grpc-timeout``, metadata) ride on it
unchanged.

The protocol:

- The client opens with its version's preface (``CLIENT_PREFACES``, 16
  bytes); the server answers
  ``SERVER_PREFACE`` before anything else. A server that does not speak
  the client's version (an older one) closes the connection, and the
  client speaks the version before to it, and after version 1 HTTP/2
  (``peloton.rpc.client``).
- Then frames: a 9-byte head (payload length u32, kind u8, stream id u32,
  big-endian) and the payload. Kinds: ``HEADERS`` (a msgpack list of
  names and values, alternately, as bytes), ``DATA``, ``RESET`` (u32 error
  code, HTTP/2's codes), ``GOAWAY`` (the stream id is the last one the
  sender took; u32 error code); ``END`` (0x10) or'd into ``HEADERS`` or
  ``DATA`` ends the sender's side of the stream. Streams are numbered as
  HTTP/2 does (a client's are odd and rise).
- A ``DATA`` frame carries at most ``max_frame`` bytes, a ``HEADERS`` frame
  ``max_headers`` (``peloton.rpc.wire``'s MAX_FRAME and MAX_HEADERS, as on
  HTTP/2); a larger one is a protocol error. A message goes in as many
  ``DATA`` frames as it needs. A server takes ``max_streams`` calls open at
  once and resets a stream past that with REFUSED_STREAM.
- No flow control of its own: TCP's. A sender waits while more than
  ``window`` bytes it queued are not yet written (``local_flow_control_window``;
  the wire's writer says when it wrote them).
- Version 2 (the client's preface says ``2``) adds a unary call's whole
  request in one frame and its whole reply in one: ``CALL`` (client to
  server; a msgpack list of the headers' flat list and the request's
  bytes; it opens the stream and ends the client's side) and ``ANSWER``
  (server to client, for a call that came as ``CALL``; a msgpack list of
  the headers' flat list, the reply's bytes and the trailers' flat list;
  it ends the stream). Three frames each way were three parses, three
  events and three sends for what is one request and one reply: counted
  with callgrind on ``loadtest.bench_rpc`` (16 in flight), a call cost
  the server 276k instructions and the client 255k before. A request or
  reply larger than a frame (or than the room in the window) goes as
  before, in ``HEADERS`` and ``DATA`` frames, and so does a streaming
  reply. A server of version 1 takes the version 2 preface for HTTP/2
  and closes the connection; the client then speaks version 1 to it
  (``peloton.rpc.client``).

A server says it speaks this wire in its HTTP/2 SETTINGS (``LEAN_SETTING``
with ``LEAN_MAGIC``; peers that do not know the setting ignore it, as HTTP/2
requires), so a client learns it on its first connection to an address and
opens the short one for the calls after (``peloton.rpc.client``).
"""

from __future__ import annotations

import struct
from typing import Any

import h2.errors
import h2.events
import h2.exceptions
import msgpack

# A client's preface by the version it speaks; the server's is one for both.
VERSION = 2
CLIENT_PREFACES = {1: b"PELOTON/LEAN 1\r\n", 2: b"PELOTON/LEAN 2\r\n"}
SERVER_PREFACE = b"PELOTON/LEAN OK\n"
PREFACE_BYTES = 16
assert all(len(p) == PREFACE_BYTES for p in (*CLIENT_PREFACES.values(), SERVER_PREFACE))

# The HTTP/2 setting a server of ours sends: its code (hyperframe sends only
# a code's low byte, so it is below 256: unassigned in IANA's registry) and
# a value no other meaning of the code would have.
LEAN_SETTING = 0xE1
LEAN_MAGIC = 0x4C45414E  # "LEAN"

HEADERS, DATA, RESET, GOAWAY, CALL, ANSWER = 1, 2, 3, 4, 5, 6
END = 0x10
_HEAD = struct.Struct(">IBI")
_U32 = struct.Struct(">I")

LAST_STREAM_ID = 2**31 - 1


class _Stream:
    __slots__ = ("headers_seen", "local_ended", "remote_ended")

    def __init__(self) -> None:
        self.headers_seen = False  # its first HEADERS came (a reply's: then trailers)
        self.local_ended = False
        self.remote_ended = False

    @property
    def closed(self) -> bool:
        return self.local_ended and self.remote_ended


class CallReceived:
    """A server's event: a whole unary request came in one ``CALL`` frame
    (its stream is open, and ended on the client's side)."""

    __slots__ = ("data", "headers", "stream_id")

    def __init__(self, stream_id: int, headers: list[tuple[bytes, bytes]], data: bytes) -> None:
        self.stream_id, self.headers, self.data = stream_id, headers, data


class AnswerReceived:
    """A client's event: a call's whole reply came in one ``ANSWER`` frame
    (its stream is over)."""

    __slots__ = ("data", "headers", "stream_id", "trailers")

    def __init__(self, stream_id: int, headers: list[tuple[bytes, bytes]], data: bytes,
                 trailers: list[tuple[bytes, bytes]]) -> None:
        self.stream_id, self.headers, self.data, self.trailers = (stream_id, headers, data,
                                                                   trailers)


class _Settings:
    __slots__ = ("max_concurrent_streams",)

    def __init__(self, max_concurrent_streams: int) -> None:
        self.max_concurrent_streams = max_concurrent_streams


class LeanConnection:
    """One end of a short-wire connection, as h2's ``H2Connection`` is of an
    HTTP/2 one: bytes in (``receive_data``) give events, calls queue bytes
    out (``data_to_send``)."""

    def __init__(self, *, client_side: bool, max_frame: int, window: int,
                 max_headers: int, max_streams: int, version: int = VERSION) -> None:
        """``version``: the one a client speaks (a server learns its
        client's from the preface)."""
        self.client_side = client_side
        # Whole calls in one frame each way (version 2): a client's from its
        # own version, a server's from its client's preface.
        self.whole_calls = client_side and version >= 2
        self._version = version
        self.max_outbound_frame_size = max_frame
        self.max_inbound_frame_size = max_frame
        self.remote_settings = _Settings(max_streams)
        self.streams: dict[int, _Stream] = {}
        self.confirmed = False  # the peer's preface came
        self._window = window
        self._max_headers = max_headers
        self._out: list[bytes] = []
        self._queued = 0  # bytes in _out
        self._in = b""
        self._next_stream_id = 1 if client_side else 2
        self._highest_remote = 0  # the last stream the peer opened (for GOAWAY)
        self._expect = (SERVER_PREFACE,) if client_side else tuple(CLIENT_PREFACES.values())

    # -- what the wire asks ------------------------------------------------

    def initiate_connection(self) -> None:
        self._queue(CLIENT_PREFACES[self._version] if self.client_side else SERVER_PREFACE)

    @property
    def open_outbound_streams(self) -> int:
        return len(self.streams)

    def get_next_available_stream_id(self) -> int:
        stream_id = self._next_stream_id
        if stream_id > LAST_STREAM_ID:
            raise h2.exceptions.NoAvailableStreamIDError("no stream ids left on this connection")
        return stream_id

    def local_flow_control_window(self, stream_id: int) -> int:
        self._open(stream_id)
        return self.room()

    def room(self) -> int:
        """Bytes that may be queued before a sender waits (the window's room)."""
        return max(0, self._window - self._queued)

    def data_to_send(self) -> bytes:
        out = b"".join(self._out)
        self._out.clear()
        self._queued = 0
        return out

    def acknowledge_received_data(self, acknowledged_size: int, stream_id: int) -> None:
        pass  # no flow control of its own

    def increment_flow_control_window(self, increment: int, stream_id: int | None = None) -> None:
        pass

    # -- sending -------------------------------------------------------------

    def send_headers(self, stream_id: int, headers: list[tuple[bytes, bytes]],
                     end_stream: bool = False) -> None:
        stream = self.streams.get(stream_id)
        if stream is None:
            stream = self._new_local(stream_id)
        elif stream.local_ended:
            raise h2.exceptions.StreamClosedError(stream_id)
        payload = msgpack.packb(_flat(headers))
        self._queue(_HEAD.pack(len(payload), HEADERS | END if end_stream else HEADERS, stream_id),
                    payload)
        if end_stream:
            self._end_local(stream_id, stream)

    def send_call(self, stream_id: int, headers: list[tuple[bytes, bytes]], data: bytes) -> None:
        """A whole unary request in one ``CALL`` frame (a client of version
        2; ``data`` at most a frame): it opens the stream and ends this side."""
        if not self.whole_calls:
            raise h2.exceptions.ProtocolError("CALL frames are version 2's")
        self._check_frame(data)
        self._new_local(stream_id).local_ended = True
        payload = msgpack.packb((_flat(headers), data))
        self._queue(_HEAD.pack(len(payload), CALL, stream_id), payload)

    def send_answer(self, stream_id: int, headers: list[tuple[bytes, bytes]], data: bytes,
                    trailers: list[tuple[bytes, bytes]]) -> None:
        """A call's whole reply in one ``ANSWER`` frame (to a call that came
        as ``CALL``; ``data`` at most a frame): it ends the stream."""
        stream = self._open(stream_id)
        self._check_frame(data)
        payload = msgpack.packb((_flat(headers), data, _flat(trailers)))
        self._queue(_HEAD.pack(len(payload), ANSWER, stream_id), payload)
        self._end_local(stream_id, stream)

    def send_data(self, stream_id: int, data: bytes, end_stream: bool = False) -> None:
        stream = self._open(stream_id)
        self._check_frame(data)
        self._queue(_HEAD.pack(len(data), DATA | END if end_stream else DATA, stream_id), data)
        if end_stream:
            self._end_local(stream_id, stream)

    def reset_stream(self, stream_id: int, error_code: int = 0) -> None:
        if self.streams.pop(stream_id, None) is None:
            raise h2.exceptions.StreamClosedError(stream_id)
        self._control(RESET, stream_id, error_code)

    def close_connection(self, error_code: int = 0) -> None:
        self._control(GOAWAY, self._highest_remote, error_code)

    def _control(self, kind: int, stream_id: int, error_code: int) -> None:
        """A RESET or GOAWAY frame: its payload is the error code alone."""
        self._queue(_HEAD.pack(4, kind, stream_id), _U32.pack(int(error_code)))

    def _new_local(self, stream_id: int) -> _Stream:
        """A stream this client opens (the next id it may take)."""
        if not self.client_side or stream_id != self._next_stream_id:
            raise h2.exceptions.StreamClosedError(stream_id)
        self._next_stream_id += 2
        stream = self.streams[stream_id] = _Stream()
        return stream

    def _check_frame(self, data: bytes) -> None:
        if len(data) > self.max_outbound_frame_size:
            raise h2.exceptions.FrameTooLargeError(
                f"{len(data)} bytes in one frame, more than {self.max_outbound_frame_size}")

    def _open(self, stream_id: int) -> _Stream:
        stream = self.streams.get(stream_id)
        if stream is None or stream.local_ended:
            raise h2.exceptions.StreamClosedError(stream_id)
        return stream

    def _end_local(self, stream_id: int, stream: _Stream) -> None:
        stream.local_ended = True
        if stream.remote_ended:
            del self.streams[stream_id]

    def _queue(self, *parts: bytes) -> None:
        for part in parts:
            self._out.append(part)
            self._queued += len(part)

    # -- receiving -----------------------------------------------------------

    def receive_data(self, data: bytes | bytearray) -> list[Any]:
        """The events in ``data`` (and what an earlier call left unparsed);
        raises h2's ProtocolError for bytes that are not this wire."""
        buf = self._in + data if self._in else bytes(data)
        at = 0
        if not self.confirmed:
            if not any(buf[:PREFACE_BYTES] == expect[:len(buf)] for expect in self._expect):
                raise h2.exceptions.ProtocolError("the peer does not speak the short wire")
            if len(buf) < PREFACE_BYTES:
                self._in = buf
                return []
            if not self.client_side:
                self.whole_calls = buf[:PREFACE_BYTES] != CLIENT_PREFACES[1]
            self.confirmed = True
            at = PREFACE_BYTES
        events: list[Any] = []
        total = len(buf)
        head = _HEAD.unpack_from
        while total - at >= 9:
            length, kind, stream_id = head(buf, at)
            limit = (self.max_inbound_frame_size if kind & 0x0F == DATA else
                     self.max_inbound_frame_size + self._max_headers if kind >= CALL else
                     self._max_headers)
            if length > limit:
                raise h2.exceptions.ProtocolError(
                    f"a frame of {length} bytes, more than the {limit} this end takes")
            end = at + 9 + length
            if end > total:
                break
            self._frame(kind, stream_id, buf[at + 9:end], events)
            at = end
        self._in = buf[at:]
        return events

    def _frame(self, kind: int, stream_id: int, payload: bytes, events: list[Any]) -> None:
        ended = bool(kind & END)
        kind &= 0x0F
        if kind == DATA:
            stream = self.streams.get(stream_id)
            if stream is None or stream.remote_ended:
                return  # reset or ended here: what was in flight is dropped
            events.append(h2.events.DataReceived(stream_id=stream_id, data=payload,
                                                 flow_controlled_length=len(payload)))
            if ended:
                self._end_remote(stream_id, stream, events)
        elif kind == HEADERS:
            try:
                flat = msgpack.unpackb(payload)
                headers = _pairs(flat)
            except (ValueError, TypeError, msgpack.UnpackException) as error:
                raise h2.exceptions.ProtocolError(f"headers that do not parse: {error}") from None
            stream = self.streams.get(stream_id)
            if stream is None:
                if not self._opens(stream_id):
                    return  # a reply to a call given up on, a stream reset here, or refused
                stream = self.streams[stream_id] = _Stream()
                stream.headers_seen = True
                events.append(h2.events.RequestReceived(stream_id=stream_id, headers=headers))
            elif stream.remote_ended:
                return
            elif stream.headers_seen:
                events.append(h2.events.TrailersReceived(stream_id=stream_id, headers=headers))
            else:
                stream.headers_seen = True
                events.append(h2.events.ResponseReceived(stream_id=stream_id, headers=headers))
            if ended:
                self._end_remote(stream_id, stream, events)
        elif kind == CALL:
            self._call(stream_id, payload, events)
        elif kind == ANSWER:
            self._answer(stream_id, payload, events)
        elif kind == RESET:
            if self.streams.pop(stream_id, None) is not None:
                events.append(h2.events.StreamReset(stream_id=stream_id,
                                                    error_code=_error_code(payload),
                                                    remote_reset=True))
        elif kind == GOAWAY:
            terminated = h2.events.ConnectionTerminated()
            terminated.last_stream_id = stream_id
            terminated.error_code = _error_code(payload)
            events.append(terminated)
        else:
            raise h2.exceptions.ProtocolError(f"a frame of unknown kind {kind}")

    def _opens(self, stream_id: int) -> bool:
        """Whether a stream the client opens is a new one this server takes
        (False: a late frame of one reset here, or one past the limit,
        refused with REFUSED_STREAM)."""
        if self.client_side or stream_id <= self._highest_remote or not stream_id % 2:
            return False
        self._highest_remote = stream_id
        if len(self.streams) >= self.remote_settings.max_concurrent_streams:
            # As an HTTP/2 server refuses a stream past its limit
            # (the client's call fails UNAVAILABLE and is retried).
            self._control(RESET, stream_id, h2.errors.ErrorCodes.REFUSED_STREAM)
            return False
        return True

    def _call(self, stream_id: int, payload: bytes, events: list[Any]) -> None:
        if self.client_side or not self.whole_calls:
            raise h2.exceptions.ProtocolError("a CALL frame where none may come")
        try:
            flat, data = msgpack.unpackb(payload)
            headers = _pairs(flat)
        except (ValueError, TypeError, msgpack.UnpackException) as error:
            raise h2.exceptions.ProtocolError(f"a call that does not parse: {error}") from None
        if not self._opens(stream_id):
            return
        stream = self.streams[stream_id] = _Stream()
        stream.headers_seen = stream.remote_ended = True
        events.append(CallReceived(stream_id, headers, data))

    def _answer(self, stream_id: int, payload: bytes, events: list[Any]) -> None:
        if not self.client_side:
            raise h2.exceptions.ProtocolError("an ANSWER frame sent to a server")
        try:
            flat, data, trailing = msgpack.unpackb(payload)
            headers = _pairs(flat)
            trailers = _pairs(trailing)
        except (ValueError, TypeError, msgpack.UnpackException) as error:
            raise h2.exceptions.ProtocolError(f"an answer that does not parse: {error}") from None
        stream = self.streams.pop(stream_id, None)
        if stream is None:
            return  # a call given up on (reset here)
        events.append(AnswerReceived(stream_id, headers, data, trailers))

    def _end_remote(self, stream_id: int, stream: _Stream, events: list[Any]) -> None:
        stream.remote_ended = True
        events.append(h2.events.StreamEnded(stream_id=stream_id))
        if stream.local_ended:
            del self.streams[stream_id]


def _flat(headers: list[tuple[bytes, bytes]]) -> list[bytes]:
    """Headers as the wire carries them: names and values, alternately."""
    flat: list[bytes] = []
    for name, value in headers:
        flat.append(name)
        flat.append(value)
    return flat


def _pairs(flat: list[bytes]) -> list[tuple[bytes, bytes]]:
    """Headers from the wire's flat list (ValueError when it is odd)."""
    return list(zip(flat[::2], flat[1::2], strict=True))


def _error_code(payload: bytes) -> int:
    """A RESET's or GOAWAY's error code (0: a payload that is not one)."""
    return int(_U32.unpack(payload)[0]) if len(payload) == 4 else 0


def speaks_lean(event: Any) -> bool:
    """Whether a ``RemoteSettingsChanged`` says the server speaks the short wire."""
    changed = event.changed_settings.get(LEAN_SETTING)
    return changed is not None and changed.new_value == LEAN_MAGIC

