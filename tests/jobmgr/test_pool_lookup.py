"""A jobmgr keeps a pool's id by its path for CHECK_CACHE_S: a spec sent as
it is (``peloton job create``) names its pool by path, and each create
looked it up at resmgr. A pool not found is asked for again; a pool
created, changed or deleted through this jobmgr is looked up anew."""

from __future__ import annotations

import pathlib
from typing import Any

import trio
import trio.testing

from peloton import config as cluster_config
from peloton.api.v0.respool import respool_pb2
from peloton.jobmgr.service import CHECK_CACHE_S, Jobmgr


class FakeRespool:
    """resmgr's pools: /a is pool-a; every call is counted."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.pools = {"/a": "pool-a"}

    async def call(self, method: str, request: Any, **_: Any) -> Any:
        self.calls.append(method)
        if method == "LookupResourcePoolID":
            reply = respool_pb2.LookupResponse()
            found = self.pools.get(request.path.value)
            if found is None:
                reply.error.notFound.path.value = request.path.value
            else:
                reply.id.value = found
            return reply
        if method == "DeleteResourcePool":
            self.pools = {}
            return respool_pb2.DeleteResponse()
        raise AssertionError(method)


def lookup(path: str) -> respool_pb2.LookupRequest:
    return respool_pb2.LookupRequest(path=respool_pb2.ResourcePoolPath(value=path))


async def test_a_pool_found_by_path_is_kept_a_while(
        tmp_path: pathlib.Path, autojump_clock: trio.testing.MockClock) -> None:
    config = cluster_config.parse({
        "data_dir": str(tmp_path), "raft_password": "a-raft-secret-of-20-chars",
        "resmgr": [{"name": "resmgr-0", "grpc": "127.0.0.1:1", "raft": "127.0.0.1:2"}],
        "jobmgr": [{"name": "jobmgr-0", "grpc": "127.0.0.1:3"}]}, base=tmp_path)
    jm = Jobmgr("jobmgr-0", "127.0.0.1:3", config, storage=None)  # type: ignore[arg-type]
    fake = jm.respool = FakeRespool()  # type: ignore[assignment]

    async def found(path: str) -> str:
        reply = await jm.respool_call("LookupResourcePoolID", lookup(path))
        return str(reply.id.value) or f"error {reply.error.notFound.path.value}"

    assert [await found("/a") for _ in range(3)] == ["pool-a"] * 3
    assert fake.calls == ["LookupResourcePoolID"]  # one call for the three
    assert [await found("/b"), await found("/b")] == ["error /b", "error /b"]
    assert len(fake.calls) == 3  # not found: asked each time
    await trio.sleep(CHECK_CACHE_S)
    assert await found("/a") == "pool-a" and len(fake.calls) == 4  # lapsed: asked again
    await jm.respool_call("DeleteResourcePool", respool_pb2.DeleteRequest(
        path=respool_pb2.ResourcePoolPath(value="/a")))
    assert await found("/a") == "error /a"  # deleted through this jobmgr: asked at once
    assert fake.calls[-2:] == ["DeleteResourcePool", "LookupResourcePoolID"]
