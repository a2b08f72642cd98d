"""gRPC's HTTP/2 on trio: deadlines, cancellation, flow control, many calls
on one connection, and grpclib (Peloton's generated clients) on the other end."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import trio
from grpclib.client import Channel
from grpclib.const import Cardinality, Status
from grpclib.exceptions import GRPCError

from peloton.api.private.cluster import cluster_grpc, cluster_pb2
from peloton.core.errors import DeadlineExceeded, NotFound
from peloton.rpc import Channels, call_once, open_rpc, serve_grpc
from peloton.rpc.wire import format_timeout, messages, parse_timeout
from tests.upstream import on_asyncio

# Every test here runs on HTTP/2, then on the short wire (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("both_wires")


class Cluster:
    """ClusterService: ``Heartbeat`` answers the length of the member id (as numShards); ``GetClusterView``
    answers ``view_bytes`` bytes of members, or waits (``stall``)."""

    def __init__(self, view_bytes: int = 0) -> None:
        self.view_bytes = view_bytes
        self.stall = trio.Event()
        self.stalled: list[str] = []  # how each stalled call ended

    async def Heartbeat(self, request: cluster_pb2.HeartbeatRequest) -> Any:
        if request.member.id == "missing":
            raise NotFound("no such member")
        return cluster_pb2.HeartbeatResponse(
            view=cluster_pb2.ClusterView(numShards=len(request.member.id)))

    async def GetClusterView(self, request: Any) -> cluster_pb2.ClusterView:
        view = cluster_pb2.ClusterView()
        if not self.view_bytes:
            try:
                await trio.sleep_forever()
            except trio.Cancelled:
                self.stalled.append("cancelled")
                self.stall.set()
                raise
        for k in range(self.view_bytes // 100):
            view.members.add(id=f"{k:099d}")
        return view

    async def GetStats(self, request: Any) -> Any:
        return cluster_pb2.Stats()


@asynccontextmanager
async def serving(impl: Cluster) -> AsyncIterator[str]:
    async with open_rpc(), trio.open_nursery() as nursery:
        host, port = await nursery.start(lambda task_status: serve_grpc(
            [(cluster_grpc.ClusterServiceBase, impl)], "127.0.0.1", 0,
            task_status=task_status))
        yield f"{host}:{port}"
        nursery.cancel_scope.cancel()


def test_grpc_timeout_round_trips() -> None:
    assert parse_timeout(format_timeout(2.5)) == pytest.approx(2.5)
    assert parse_timeout(format_timeout(0.0001)) == pytest.approx(0.001)
    assert parse_timeout(format_timeout(10 ** 9)) == 99_999_999
    assert parse_timeout(b"3S") == 3 and parse_timeout(b"2M") == 120
    for bad in (b"", b"S", b"12", b"1x", b"123456789m"):
        assert parse_timeout(bad) is None


def test_messages_are_read_by_their_prefixes() -> None:
    two = b"\x00\x00\x00\x00\x02ab" + b"\x00\x00\x00\x00\x00"
    assert messages(two) == ([b"ab", b""], None)
    assert messages(b"\x00\x00\x00\x00\x05ab")[1] == "a message was cut short"
    assert "compressed" in (messages(b"\x01\x00\x00\x00\x00")[1] or "")


async def test_a_deadline_cancels_the_handler_and_the_caller_is_told() -> None:
    impl = Cluster()
    async with serving(impl) as address:
        channels = Channels()
        with trio.fail_after(10):
            with pytest.raises(DeadlineExceeded, match=r"took longer than 0\.3s"):
                await call_once(channels, address, cluster_grpc.ClusterServiceStub,
                                "GetClusterView", cluster_pb2.GetClusterViewRequest(), 0.3)
            await impl.stall.wait()
            # The connection still serves.
            reply = await call_once(channels, address, cluster_grpc.ClusterServiceStub,
                                    "Heartbeat", cluster_pb2.HeartbeatRequest(
                                        member=cluster_pb2.Member(id="abc")), 5)
        channels.close()
    assert impl.stalled == ["cancelled"]
    assert reply.view.numShards == 3


async def test_a_caller_cancelled_resets_its_call_and_the_handler_stops() -> None:
    impl = Cluster()
    async with serving(impl) as address:
        channels = Channels()
        with trio.fail_after(10):
            with trio.move_on_after(0.2):
                await call_once(channels, address, cluster_grpc.ClusterServiceStub,
                                "GetClusterView", cluster_pb2.GetClusterViewRequest(), 60)
            await impl.stall.wait()
        channels.close()
    assert impl.stalled == ["cancelled"]


async def test_many_calls_share_one_connection_and_each_gets_its_own_reply() -> None:
    impl = Cluster()
    got: dict[int, int] = {}
    async with serving(impl) as address:
        channels = Channels()

        async def one(k: int) -> None:
            if k % 7 == 0:
                with pytest.raises(NotFound, match="no such member"):
                    await call_once(channels, address, cluster_grpc.ClusterServiceStub,
                                    "Heartbeat", cluster_pb2.HeartbeatRequest(
                                        member=cluster_pb2.Member(id="missing")), 10)
                got[k] = -1
                return
            reply = await call_once(channels, address, cluster_grpc.ClusterServiceStub,
                                    "Heartbeat", cluster_pb2.HeartbeatRequest(
                                        member=cluster_pb2.Member(id="x" * k)), 10)
            got[k] = reply.view.numShards

        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                for k in range(1, 301):
                    nursery.start_soon(one, k)
        assert len(channels._channels) == 1
        channels.close()
    assert got == {k: (-1 if k % 7 == 0 else k) for k in range(1, 301)}


async def test_replies_larger_than_every_window_wait_for_the_peer() -> None:
    """grpclib keeps HTTP/2's 64 KiB windows: a 3 MB reply goes out as its
    window updates come, and so does a 3 MB request to us."""
    impl = Cluster(view_bytes=3_000_000)
    async with serving(impl) as address:
        host, port = address.split(":")

        async def upstream() -> tuple[int, int]:
            channel = Channel(host, int(port))
            try:
                stub = cluster_grpc.ClusterServiceStub(channel)
                view = await stub.GetClusterView(cluster_pb2.GetClusterViewRequest())
                beat = await stub.Heartbeat(cluster_pb2.HeartbeatRequest(
                    member=cluster_pb2.Member(id="y" * 3_000_000)))
                return len(view.members), beat.view.numShards
            finally:
                channel.close()

        with trio.fail_after(30):
            members, epoch = await on_asyncio(upstream)
            # and our own client, whose windows are larger than the reply
            channels = Channels()
            view = await call_once(channels, address, cluster_grpc.ClusterServiceStub,
                                   "GetClusterView", cluster_pb2.GetClusterViewRequest(), 10)
            channels.close()
    assert members == 30_000 == len(view.members)
    assert epoch == 3_000_000


async def test_a_method_not_served_is_unimplemented_to_any_client() -> None:
    async with serving(Cluster()) as address:
        host, port = address.split(":")

        async def upstream() -> None:
            channel = Channel(host, int(port))
            try:
                async with channel.request("/peloton.private.cluster.ClusterService/Nope",
                                           Cardinality.UNARY_UNARY,
                                           cluster_pb2.GetStatsRequest,
                                           cluster_pb2.Stats) as stream:
                    await stream.send_message(cluster_pb2.GetStatsRequest(), end=True)
                    await stream.recv_message()
            finally:
                channel.close()

        with trio.fail_after(20), pytest.raises(GRPCError) as caught:
            await on_asyncio(upstream)
    assert caught.value.status is Status.UNIMPLEMENTED
    assert "ClusterService/Nope is not a method this server serves" in (
        caught.value.message or "")


async def test_a_connection_near_its_last_stream_id_gives_way_to_a_new_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """HTTP/2 numbers at most 2**30 calls a connection: the client moves to a
    new connection before it runs out, and closes the old one when its last
    call is over."""
    from peloton.rpc import client

    monkeypatch.setattr(client, "LAST_STREAM_ID", 5)  # streams 1, 3, 5 on the first
    async with serving(Cluster()) as address:
        channels = Channels()
        seen = []
        with trio.fail_after(10):
            for k in range(1, 6):
                reply = await call_once(channels, address, cluster_grpc.ClusterServiceStub,
                                        "Heartbeat", cluster_pb2.HeartbeatRequest(
                                            member=cluster_pb2.Member(id="z" * k)), 5)
                assert reply.view.numShards == k
                seen.append(channels._channels[address])
        channels.close()
    assert seen[0] is seen[1] is seen[2] and seen[3] is seen[4] and seen[2] is not seen[3]
    assert seen[0].closed


async def test_an_http_answer_without_a_grpc_status_is_mapped_as_grpc_says(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A proxy or a plain HTTP/2 server in the way: 503 is UNAVAILABLE (retried).
    (It never says it speaks the short wire: calls to it stay HTTP/2's.)"""
    import h2.config
    import h2.connection
    import h2.events

    from peloton.core.errors import Unavailable
    from peloton.rpc import client

    monkeypatch.setattr(client, "WIRE", "auto")

    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]

    async def proxy(stream: trio.SocketStream) -> None:
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))
        conn.initiate_connection()
        await stream.send_all(conn.data_to_send())
        while data := await stream.receive_some(65536):
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.RequestReceived):
                    conn.send_headers(event.stream_id, [(":status", "503")], end_stream=True)
            await stream.send_all(conn.data_to_send())

    async with open_rpc(), trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, proxy, listeners)
        channels = Channels()
        with trio.fail_after(10), pytest.raises(
                Unavailable, match="answered HTTP 503 without a gRPC status"):
            await call_once(channels, f"127.0.0.1:{port}", cluster_grpc.ClusterServiceStub,
                            "GetStats", cluster_pb2.GetStatsRequest(), 5)
        channels.close()
        nursery.cancel_scope.cancel()
