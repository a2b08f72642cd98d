"""Errors travel in Peloton's response ``error`` fields, with an OK status,
where the response has a field for them; our clients raise them again."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import trio
from grpclib.client import Channel

from peloton.api.v0.job import job_grpc, job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.respool import respool_pb2
from peloton.api.v0.task import task_grpc, task_pb2
from peloton.core.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PelotonError,
    Unavailable,
)
from peloton.rpc import Channels, call_once, open_rpc, serve_grpc
from peloton.rpc.errorfields import InstanceOutOfRange, from_response, to_response
from tests.upstream import on_asyncio

JOB = "6a1f5c2e-8d3b-4f7a-9c1e-2b5d4e6f7a8b"


def round_trip(error: PelotonError, response_type: Any, request: Any) -> Any:
    response = to_response(error, response_type, request)
    assert response is not None
    again = from_response(response_type.FromString(response.SerializeToString()))
    return response, again


def test_already_exists_is_create_error_already_exists_with_the_id() -> None:
    request = job_pb2.CreateRequest(id=peloton_pb2.JobID(value=JOB))
    response, again = round_trip(AlreadyExists(f"job {JOB} already exists"),
                                 job_pb2.CreateResponse, request)
    assert response.error.alreadyExists.id.value == JOB
    assert response.error.alreadyExists.message == f"job {JOB} already exists"
    assert type(again) is AlreadyExists and again.message == f"job {JOB} already exists"


def test_invalid_config_and_invalid_id_keep_the_field() -> None:
    request = job_pb2.CreateRequest(id=peloton_pb2.JobID(value="nope"))
    response, again = round_trip(
        InvalidArgument("must be at least 1", field="instancecount"),
        job_pb2.CreateResponse, request)
    assert response.error.HasField("invalidConfig")
    assert (type(again), again.field, again.message) == (
        InvalidArgument, "instancecount", "must be at least 1")
    response, again = round_trip(InvalidArgument("'nope' is not a job id", field="id"),
                                 job_pb2.CreateResponse, request)
    assert response.error.invalidJobId.id.value == "nope"
    assert again.field == "id"


def test_task_get_has_its_errors_at_the_top() -> None:
    request = task_pb2.GetRequest(jobId=peloton_pb2.JobID(value=JOB), instanceId=12)
    response, again = round_trip(InstanceOutOfRange(JOB, 10, 12), task_pb2.GetResponse, request)
    assert (response.outOfRange.jobId.value, response.outOfRange.instanceCount) == (JOB, 10)
    assert isinstance(again, InvalidArgument) and again.field == "instanceId"
    assert "has 10 instances" in again.message
    response, again = round_trip(NotFound(f"job {JOB} does not exist"), task_pb2.GetResponse,
                                 request)
    assert response.notFound.id.value == JOB and isinstance(again, NotFound)


def test_pool_delete_tells_busy_from_not_a_leaf() -> None:
    request = respool_pb2.DeleteRequest(path=respool_pb2.ResourcePoolPath(value="/a"))
    busy = to_response(FailedPrecondition("resource pool /a is busy: it has running tasks"),
                       respool_pb2.DeleteResponse, request)
    leaf = to_response(FailedPrecondition("resource pool /a is not a leaf: it has 2 children"),
                       respool_pb2.DeleteResponse, request)
    assert busy is not None and busy.error.isBusy.message.endswith("running tasks")
    assert leaf is not None and leaf.error.HasField("isNotLeaf")
    assert isinstance(from_response(busy), FailedPrecondition)


def test_errors_a_response_cannot_hold_stay_statuses() -> None:
    request = job_pb2.GetRequest()
    assert to_response(Unavailable("no leader"), job_pb2.GetResponse, request) is None
    assert to_response(AlreadyExists("x"), job_pb2.GetResponse, request) is None
    assert from_response(job_pb2.GetResponse()) is None


class Failing:
    def __init__(self, error: PelotonError) -> None:
        self.error = error

    def __getattr__(self, name: str) -> Any:
        async def method(request: Any) -> Any:
            raise self.error
        return method


@asynccontextmanager
async def serving(impl: Any) -> AsyncIterator[str]:
    async with open_rpc(), trio.open_nursery() as nursery:
        host, port = await nursery.start(lambda task_status: serve_grpc(
            [(job_grpc.JobManagerBase, impl), (task_grpc.TaskManagerBase, impl)],
            "127.0.0.1", 0, task_status=task_status))
        yield f"{host}:{port}"
        nursery.cancel_scope.cancel()


async def test_over_the_wire_an_upstream_client_reads_ok_and_the_field() -> None:
    async with serving(Failing(NotFound(f"job {JOB} does not exist"))) as address:
        host, port = address.split(":")

        async def upstream_client() -> Any:  # a plain stub: what generated clients do
            channel = Channel(host, int(port))
            try:
                return await job_grpc.JobManagerStub(channel).Get(
                    job_pb2.GetRequest(id=peloton_pb2.JobID(value=JOB)))
            finally:
                channel.close()

        with trio.fail_after(20):
            reply = await on_asyncio(upstream_client)
            assert reply.error.notFound.id.value == JOB
            assert reply.error.notFound.message == f"job {JOB} does not exist"
            channels = Channels()
            with pytest.raises(NotFound, match="does not exist"):
                await call_once(channels, address, job_grpc.JobManagerStub, "Get",
                                job_pb2.GetRequest(id=peloton_pb2.JobID(value=JOB)), 10.0)
            channels.close()


async def test_over_the_wire_other_errors_stay_grpc_statuses() -> None:
    async with serving(Failing(Unavailable("resmgr has no leader"))) as address:
        channels = Channels()
        with trio.fail_after(20), pytest.raises(Unavailable, match="no leader"):
            await call_once(channels, address, job_grpc.JobManagerStub, "Get",
                            job_pb2.GetRequest(), 10.0)
        channels.close()
