"""The grpclib server from trio: how it reads requests.

A public service refuses a request larger than its limit from the length
prefix alone, and one that does not decode as INVALID_ARGUMENT; the
daemons' internal services take requests of any size.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import trio
from grpclib.client import Channel
from grpclib.const import Cardinality, Status
from grpclib.exceptions import GRPCError

from peloton.api.private.cluster import cluster_grpc, cluster_pb2
from peloton.api.v0.job import job_grpc, job_pb2
from peloton.core.errors import NotFound, ResourceExhausted
from peloton.rpc import Channels, add_reply_metadata, call_once, open_rpc, serve_grpc
from tests.upstream import on_asyncio

# Every test here runs on HTTP/2, then on the short wire (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("both_wires")

LIMIT = 64 * 1024


class Echo:
    """Every method answers its response type, empty; ``seen`` counts calls."""

    def __init__(self, responses: dict[str, Any]) -> None:
        self.responses = responses
        self.seen: list[str] = []

    def __getattr__(self, name: str) -> Any:
        async def method(request: Any) -> Any:
            self.seen.append(name)
            return self.responses.get(name, job_pb2.CreateResponse)()
        return method


@asynccontextmanager
async def serving(impl: Echo) -> AsyncIterator[str]:
    async with open_rpc(), trio.open_nursery() as nursery:
        host, port = await nursery.start(
            lambda task_status: serve_grpc(
                [(job_grpc.JobManagerBase, impl),
                 (cluster_grpc.ClusterServiceBase, impl)],
                "127.0.0.1", 0, max_message_bytes=LIMIT, task_status=task_status))
        yield f"{host}:{port}"
        nursery.cancel_scope.cancel()


def create(description_bytes: int) -> job_pb2.CreateRequest:
    return job_pb2.CreateRequest(config=job_pb2.JobConfig(
        name="big", description="x" * description_bytes))


async def test_a_public_request_over_the_limit_is_refused_before_it_is_read(
        caplog: pytest.LogCaptureFixture) -> None:
    impl = Echo({})
    async with serving(impl) as address:
        channels = Channels()
        with trio.fail_after(20):
            await call_once(channels, address, job_grpc.JobManagerStub, "Create",
                            create(LIMIT - 100), 10.0)
            with caplog.at_level(logging.WARNING), pytest.raises(
                    ResourceExhausted, match=r"JobManagerBase.Create: the request has \d+ bytes, "
                    rf"more than the {LIMIT} this server takes \(rpc.max_message_bytes\)"):
                await call_once(channels, address, job_grpc.JobManagerStub, "Create",
                                create(LIMIT + 1), 10.0)
            # The connection still serves.
            await call_once(channels, address, job_grpc.JobManagerStub, "Create",
                            create(10), 10.0)
        channels.close()
    assert impl.seen == ["Create", "Create"]
    assert [r.levelname for r in caplog.records if "refused a request" in r.message] == [
        "WARNING"]


async def test_an_internal_service_takes_requests_of_any_size() -> None:
    impl = Echo({"Heartbeat": cluster_pb2.HeartbeatResponse})
    async with serving(impl) as address:
        channels = Channels()
        big = cluster_pb2.HeartbeatRequest(member=cluster_pb2.Member(id="x" * (LIMIT * 4)))
        with trio.fail_after(20):
            await call_once(channels, address, cluster_grpc.ClusterServiceStub, "Heartbeat",
                            big, 10.0)
        channels.close()
    assert impl.seen == ["Heartbeat"]


class Garbage:
    """A 'message' whose bytes are no protobuf message at all."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def SerializeToString(self) -> bytes:
        return self.data


async def test_garbage_is_invalid_argument_in_one_log_line(
        caplog: pytest.LogCaptureFixture) -> None:
    impl = Echo({})
    async with serving(impl) as address:
        host, port = address.split(":")

        async def send() -> None:
            channel = Channel(host, int(port))
            try:
                async with channel.request("/peloton.api.v0.job.JobManager/Create",
                                           Cardinality.UNARY_UNARY, Garbage,
                                           job_pb2.CreateResponse) as stream:
                    await stream.send_message(Garbage(b"\xff\xff\xff\xff"), end=True)
                    await stream.recv_message()
            finally:
                channel.close()

        with caplog.at_level(logging.WARNING), trio.fail_after(20), pytest.raises(
                GRPCError) as caught:
            await on_asyncio(send)
    assert caught.value.status is Status.INVALID_ARGUMENT
    assert "is not a valid peloton.api.v0.job.CreateRequest" in (caught.value.message or "")
    assert impl.seen == []
    lines = [r for r in caplog.records if r.name == "peloton.rpc.server"]
    assert len(lines) == 1 and lines[0].exc_info is None



class Hinting(Echo):
    """Adds reply metadata before it answers (``Create``) or fails (``Get``);
    ``Heartbeat`` adds none."""

    def __getattr__(self, name: str) -> Any:
        async def method(request: Any) -> Any:
            self.seen.append(name)
            if name == "Heartbeat":
                return cluster_pb2.HeartbeatResponse()
            add_reply_metadata("peloton-test-hint", f"{name} answered")
            if name == "Get":
                raise NotFound("no such job")
            return job_pb2.CreateResponse()
        return method


async def test_a_handler_sends_metadata_with_its_reply_and_with_its_error_answer() -> None:
    impl = Hinting({})
    async with serving(impl) as address:
        channels = Channels()
        created: dict[bytes, bytes] = {}
        got: dict[bytes, bytes] = {}
        plain: dict[bytes, bytes] = {}
        with trio.fail_after(20):
            await call_once(channels, address, job_grpc.JobManagerStub, "Create", create(1),
                            10.0, created)
            with pytest.raises(NotFound):  # Peloton's error field, with an OK status
                await call_once(channels, address, job_grpc.JobManagerStub, "Get",
                                job_pb2.GetRequest(), 10.0, got)
            # A call of another handler carries none of it.
            await call_once(channels, address, cluster_grpc.ClusterServiceStub, "Heartbeat",
                            cluster_pb2.HeartbeatRequest(), 10.0, plain)
        channels.close()
    assert created[b"peloton-test-hint"] == b"Create answered"
    assert got[b"peloton-test-hint"] == b"Get answered"
    assert b"peloton-test-hint" not in plain
