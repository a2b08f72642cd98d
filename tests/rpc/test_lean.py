"""The short wire between our own programs (peloton.rpc.lean): how a client
comes to speak it, how it falls back, and its framing. (The calls' own
behaviour on it, errors, deadlines, limits, resets, is every test of
test_wire, test_client and test_server, which run on both wires.)"""

from __future__ import annotations

from typing import Any

import h2.errors
import h2.events
import h2.exceptions
import pytest
import trio

from peloton.api.private.cluster import cluster_grpc, cluster_pb2
from peloton.core.errors import Unavailable
from peloton.rpc import Channels, call_once, client, lean
from tests.rpc.test_wire import Cluster, serving


@pytest.fixture(autouse=True)
def _auto(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client, "WIRE", "auto")


async def _heartbeat(channels: Channels, address: str, member: str = "abc") -> int:
    reply = await call_once(channels, address, cluster_grpc.ClusterServiceStub, "Heartbeat",
                            cluster_pb2.HeartbeatRequest(member=cluster_pb2.Member(id=member)), 5)
    return int(reply.view.numShards)


async def test_a_client_learns_the_short_wire_on_its_first_connection() -> None:
    """The first call goes on HTTP/2; the server's settings say it speaks
    the short wire, so that connection closes once its call is over and the
    next calls take a short-wire connection."""
    async with serving(Cluster()) as address:
        channels = Channels()
        with trio.fail_after(10):
            assert await _heartbeat(channels, address) == 3
            first = channels._channels[address]
            assert not first.lean and first.going_away
            assert address in client._LEAN
            assert await _heartbeat(channels, address, "abcd") == 4
            second = channels._channels[address]
            assert second.lean and second.h2.confirmed  # type: ignore[union-attr]
            assert await _heartbeat(channels, address, "ab") == 2
            assert channels._channels[address] is second
        assert first.closed
        channels.close()


@pytest.mark.parametrize(("refused", "then"), [
    ((2,), "version 1"), ((1, 2), "HTTP/2")])
async def test_a_server_that_does_not_speak_a_version_is_called_in_the_one_before(
        refused: tuple[int, ...], then: str) -> None:
    """An address known to speak the short wire whose server does not speak
    this client's version (an older one took its place, or one that does
    not speak it at all): the connection closes unanswered, the call fails
    UNAVAILABLE (retried by ServiceClient), and the next goes in the version
    before, then on HTTP/2."""
    async with serving(Cluster()) as real, trio.open_nursery() as nursery:
        host, port = real.rsplit(":", 1)
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        older = f"127.0.0.1:{listeners[0].socket.getsockname()[1]}"
        closes = tuple(lean.CLIENT_PREFACES[v] for v in refused)

        async def older_server(stream: trio.SocketStream) -> None:
            """The real server behind a pipe that closes a connection opening
            with the prefaces of the versions it does not speak."""
            first = await stream.receive_some(65536)
            if first.startswith(closes):
                await stream.aclose()
                return
            upstream = await trio.open_tcp_stream(host, int(port))

            async def pipe(source: trio.abc.Stream, sink: trio.abc.Stream) -> None:
                with trio.move_on_after(30):
                    while data := await source.receive_some(65536):
                        await sink.send_all(data)

            async with upstream, stream, trio.open_nursery() as pipes:
                await upstream.send_all(first)
                pipes.start_soon(pipe, stream, upstream)
                await pipe(upstream, stream)
                pipes.cancel_scope.cancel()

        nursery.start_soon(trio.serve_listeners, older_server, listeners)
        client._LEAN[older] = lean.VERSION
        channels = Channels()
        with trio.fail_after(10):
            for version in sorted(refused, reverse=True):
                with pytest.raises(Unavailable):
                    await _heartbeat(channels, older)
                assert client._LEAN.get(older) == (version - 1 or None)
                channels.drop(older)
            assert await _heartbeat(channels, older) == 3
            used = channels._channels[older]
            if then == "HTTP/2":
                assert not used.lean
            else:  # and stays so
                assert used.lean and not used.h2.whole_calls  # type: ignore[union-attr]
                assert await _heartbeat(channels, older, "abcd") == 4
                assert channels._channels[older] is used
        channels.close()
        nursery.cancel_scope.cancel()


def _pair(version: int = lean.VERSION) -> tuple[lean.LeanConnection, lean.LeanConnection]:
    ends = tuple(lean.LeanConnection(client_side=side, max_frame=64, window=1024,
                                     max_headers=256, max_streams=10, version=version)
                 for side in (True, False))
    for end in ends:
        end.initiate_connection()
    return ends  # type: ignore[return-value]


def _feed(to: lean.LeanConnection, data: bytes, *, by: int) -> list[Any]:
    events: list[Any] = []
    for at in range(0, len(data), by):
        events += to.receive_data(data[at:at + by])
    return events


def _summary(events: list[Any]) -> list[tuple[Any, ...]]:
    return [(type(e).__name__, getattr(e, "stream_id", None), getattr(e, "headers", None),
             getattr(e, "data", None)) for e in events]


@pytest.mark.parametrize("by", [1, 2, 7, 9, 10_000])
def test_a_call_and_its_reply_cross_in_any_cut_of_their_bytes(by: int) -> None:
    near, far = _pair()
    stream_id = near.get_next_available_stream_id()
    near.send_headers(stream_id, [(b":path", b"/s/M"), (b"x", b"1")])
    near.send_data(stream_id, b"a" * 64)
    near.send_data(stream_id, b"b" * 10, end_stream=True)
    assert _summary(_feed(far, near.data_to_send(), by=by)) == [
        ("RequestReceived", 1, [(b":path", b"/s/M"), (b"x", b"1")], None),
        ("DataReceived", 1, None, b"a" * 64), ("DataReceived", 1, None, b"b" * 10),
        ("StreamEnded", 1, None, None)]
    far.send_headers(stream_id, [(b":status", b"200")])
    far.send_data(stream_id, b"reply")
    far.send_headers(stream_id, [(b"grpc-status", b"0")], end_stream=True)
    assert _summary(_feed(near, far.data_to_send(), by=by)) == [
        ("ResponseReceived", 1, [(b":status", b"200")], None),
        ("DataReceived", 1, None, b"reply"),
        ("TrailersReceived", 1, [(b"grpc-status", b"0")], None),
        ("StreamEnded", 1, None, None)]
    assert not near.streams and not far.streams  # both sides ended: forgotten
    assert near.get_next_available_stream_id() == 3


@pytest.mark.parametrize("by", [1, 2, 7, 9, 10_000])
def test_a_whole_call_and_its_answer_cross_in_one_frame_each(by: int) -> None:
    """Version 2: a unary call's request in one CALL frame, its reply in one
    ANSWER frame (headers, message, trailers), in any cut of their bytes."""
    near, far = _pair()
    far.receive_data(near.data_to_send())  # the prefaces: the server learns the version
    near.receive_data(far.data_to_send())
    assert near.whole_calls and far.whole_calls
    stream_id = near.get_next_available_stream_id()
    near.send_call(stream_id, [(b":path", b"/s/M"), (b"x", b"1")], b"a" * 64)
    [call] = _feed(far, near.data_to_send(), by=by)
    assert isinstance(call, lean.CallReceived)
    assert (call.stream_id, call.headers, call.data) == (1, [(b":path", b"/s/M"), (b"x", b"1")],
                                                         b"a" * 64)
    far.send_answer(stream_id, [(b":status", b"200")], b"reply", [(b"grpc-status", b"0")])
    [answer] = _feed(near, far.data_to_send(), by=by)
    assert isinstance(answer, lean.AnswerReceived)
    assert (answer.stream_id, answer.headers, answer.data, answer.trailers) == (
        1, [(b":status", b"200")], b"reply", [(b"grpc-status", b"0")])
    assert not near.streams and not far.streams
    assert near.get_next_available_stream_id() == 3
    with pytest.raises(h2.exceptions.FrameTooLargeError):
        near.send_call(3, [(b":path", b"/s/M")], b"a" * 65)  # more than a frame: in frames


def test_a_version_1_client_sends_no_whole_call_and_its_server_answers_none() -> None:
    """A client of version 1 (an older one) says so in its preface: its
    server takes no CALL frame from it and answers it in HEADERS and DATA."""
    near, far = _pair(version=1)
    assert near.data_to_send() == lean.CLIENT_PREFACES[1]
    far.receive_data(lean.CLIENT_PREFACES[1])
    assert not near.whole_calls and not far.whole_calls
    with pytest.raises(h2.exceptions.ProtocolError, match="version 2"):
        near.send_call(1, [(b":path", b"/s/M")], b"x")
    call = lean._HEAD.pack(3, lean.CALL, 1) + b"\x92\x90\xc0"
    with pytest.raises(h2.exceptions.ProtocolError, match="CALL frame where none may come"):
        far.receive_data(call)


def test_a_reset_stream_takes_nothing_more_and_says_so_to_the_other_end() -> None:
    near, far = _pair()
    near.send_headers(1, [(b":path", b"/s/M")])
    far.receive_data(near.data_to_send())
    far.reset_stream(1, 8)
    with pytest.raises(h2.exceptions.StreamClosedError):
        far.send_data(1, b"late")
    [reset] = near.receive_data(far.data_to_send())
    assert isinstance(reset, h2.events.StreamReset) and reset.error_code == 8
    with pytest.raises(h2.exceptions.StreamClosedError):
        near.send_data(1, b"more")


def test_goaway_names_the_last_stream_the_server_took() -> None:
    near, far = _pair()
    for stream_id in (1, 3):
        near.send_headers(stream_id, [(b":path", b"/s/M")], end_stream=True)
    far.receive_data(near.data_to_send())
    far.close_connection()
    [gone] = near.receive_data(far.data_to_send())
    assert isinstance(gone, h2.events.ConnectionTerminated) and gone.last_stream_id == 3


def test_what_is_not_the_short_wire_is_a_protocol_error() -> None:
    _, far = _pair()
    with pytest.raises(h2.exceptions.ProtocolError, match="does not speak"):
        far.receive_data(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
    near2, far2 = _pair()
    far2.receive_data(near2.data_to_send())
    with pytest.raises(h2.exceptions.ProtocolError, match="more than the 64"):
        far2.receive_data(lean._HEAD.pack(65, lean.DATA, 1))
    with pytest.raises(h2.exceptions.ProtocolError, match="do not parse"):
        far2.receive_data(lean._HEAD.pack(2, lean.HEADERS, 1) + b"\xc1\xc1")
    with pytest.raises(h2.exceptions.ProtocolError, match="does not parse"):
        far2.receive_data(lean._HEAD.pack(2, lean.CALL, 3) + b"\xc1\xc1")
    with pytest.raises(h2.exceptions.ProtocolError, match="ANSWER frame sent to a server"):
        far2.receive_data(lean._HEAD.pack(1, lean.ANSWER, 3) + b"\x90")


def test_a_sender_waits_while_a_window_of_bytes_is_unwritten() -> None:
    near, _ = _pair()
    near.data_to_send()
    near.send_headers(1, [(b":path", b"/s/M")])
    near.send_data(1, b"x" * 64)
    assert 0 < near.local_flow_control_window(1) < 1024 - 64
    for _ in range(15):
        near.send_data(1, b"x" * 64)
    assert near.local_flow_control_window(1) == 0
    near.data_to_send()  # written
    assert near.local_flow_control_window(1) == 1024


async def test_a_connection_that_says_nothing_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server waits for a client's first bytes to know its wire, for
    PREFACE_TIMEOUT; one that sends none is closed."""
    from peloton.rpc import server

    monkeypatch.setattr(server, "PREFACE_TIMEOUT", 0.2)
    async with serving(Cluster()) as address:
        host, port = address.rsplit(":", 1)
        stream = await trio.open_tcp_stream(host, int(port))
        with trio.fail_after(5):
            assert await stream.receive_some(100) == b""
        await stream.aclose()


def test_a_server_refuses_a_stream_past_its_limit() -> None:
    near, far = _pair()  # 10 streams at most
    for stream_id in range(1, 24, 2):
        near.send_headers(stream_id, [(b":path", b"/s/M")])
    events = far.receive_data(near.data_to_send())
    assert [e.stream_id for e in events] == list(range(1, 20, 2))
    refused = near.receive_data(far.data_to_send())
    assert [(e.stream_id, e.error_code) for e in refused] == [
        (21, h2.errors.ErrorCodes.REFUSED_STREAM), (23, h2.errors.ErrorCodes.REFUSED_STREAM)]
