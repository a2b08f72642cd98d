"""The gRPC client: every failure comes out as a PelotonError, in time."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest
import trio

from peloton.api.private.cluster import cluster_grpc, cluster_pb2
from peloton.core.errors import DeadlineExceeded, Unavailable
from peloton.rpc import Channels, ServiceClient, call_once, open_rpc, serve_grpc

# Every test here runs on HTTP/2, then on the short wire (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("both_wires")


async def test_a_server_that_never_answers_gives_deadline_exceeded() -> None:
    """A peer that accepts the connection and then says nothing (a process
    frozen or dying) must not hold the caller past its deadline."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    accepted: list[trio.SocketStream] = []

    async def mute(stream: trio.SocketStream) -> None:
        accepted.append(stream)
        await trio.sleep_forever()

    async with open_rpc(), trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, mute, listeners)
        channels = Channels()
        with trio.fail_after(10), pytest.raises(DeadlineExceeded):
            await call_once(channels, f"127.0.0.1:{port}", cluster_grpc.ClusterServiceStub,
                            "GetClusterView", cluster_pb2.GetClusterViewRequest(), 0.5)
        channels.close()
        nursery.cancel_scope.cancel()
    assert accepted


async def test_nothing_listening_is_unavailable() -> None:
    async with open_rpc():
        channels = Channels()
        with trio.fail_after(10), pytest.raises(Unavailable, match="cannot reach"):
            await call_once(channels, "127.0.0.1:1", cluster_grpc.ClusterServiceStub,
                            "GetClusterView", cluster_pb2.GetClusterViewRequest(), 2.0)
        channels.close()


async def test_a_connection_closed_under_a_call_is_unavailable_and_dropped() -> None:
    """A peer that dies after it took the request (SIGKILLed): the call is
    UNAVAILABLE at once, and the next call opens a new connection."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    accepted: list[trio.SocketStream] = []

    async def dies(stream: trio.SocketStream) -> None:
        accepted.append(stream)
        await stream.receive_some(65536)
        await stream.aclose()

    async with open_rpc(), trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, dies, listeners)
        channels = Channels()
        address = f"127.0.0.1:{port}"
        for _ in range(2):
            with trio.fail_after(10), pytest.raises(Unavailable, match="connection closed"):
                await call_once(channels, address, cluster_grpc.ClusterServiceStub,
                                "GetClusterView", cluster_pb2.GetClusterViewRequest(), 5.0)
            assert address not in channels._channels
        channels.close()
        nursery.cancel_scope.cancel()
    assert len(accepted) == 2


class Counting:
    """ClusterService.GetClusterView that counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    async def GetClusterView(self, request: Any) -> Any:
        self.calls += 1
        return cluster_pb2.ClusterView()

    async def Heartbeat(self, request: Any) -> Any:
        return cluster_pb2.HeartbeatResponse()

    async def GetStats(self, request: Any) -> Any:
        return cluster_pb2.Stats()


async def test_a_call_goes_first_where_it_prefers_when_that_is_one_of_its_addresses() -> None:
    """``prefer`` picks the first try among the client's addresses and
    leaves where other calls go alone; an address not among them is not
    called."""
    first, second = Counting(), Counting()
    async with open_rpc(), trio.open_nursery() as nursery:
        addresses = []
        for impl in (first, second):
            host, port = await nursery.start(partial(
                serve_grpc, [(cluster_grpc.ClusterServiceBase, impl)], "127.0.0.1", 0))
            addresses.append(f"{host}:{port}")
        client = ServiceClient(addresses, cluster_grpc.ClusterServiceStub, channels=Channels())
        view = cluster_pb2.GetClusterViewRequest()
        with trio.fail_after(20):
            await client.call("GetClusterView", view)
            await client.call("GetClusterView", view, prefer=addresses[1])
            await client.call("GetClusterView", view, prefer="127.0.0.1:1")  # not ours
            await client.call("GetClusterView", view)
        client.channels.close()
        nursery.cancel_scope.cancel()
    assert (first.calls, second.calls) == (3, 1)
