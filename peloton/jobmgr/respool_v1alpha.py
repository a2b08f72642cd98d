"""Peloton's v1alpha ResourcePoolService, served by jobmgr over the v0 one.

A v1alpha ``ResourcePoolSpec`` has the wire of a v0 ``ResourcePoolConfig``
(a ``Revision`` that of a ``ChangeLog``), and a ``ResourcePoolInfo`` that of
the v0 one, so each message is read as its v0 twin byte for byte, and each
call is the v0 call it stands for (resmgr's checks and errors included).
"""

from __future__ import annotations

from typing import Any, TypeVar

from google.protobuf.message import Message

from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.respool import respool_pb2 as v0
from peloton.api.v0.respool.svc import respool_svc_pb2 as v0svc
from peloton.api.v1alpha.peloton import peloton_pb2 as v1
from peloton.api.v1alpha.respool import respool_pb2 as v1respool
from peloton.api.v1alpha.respool.svc import respool_svc_pb2 as svc
from peloton.jobmgr.service import ResourcePoolService

__all__ = ["ResourcePoolServiceV1Alpha"]

M = TypeVar("M", bound=Message)


def _as(message: Message, kind: type[M]) -> M:
    return kind.FromString(message.SerializeToString())


def _id(value: v1.ResourcePoolID) -> peloton_pb2.ResourcePoolID:
    return peloton_pb2.ResourcePoolID(value=value.value)


class ResourcePoolServiceV1Alpha:
    """peloton.api.v1alpha.respool.ResourcePoolService"""

    def __init__(self, pools: ResourcePoolService) -> None:
        self.pools = pools

    async def CreateResourcePool(self, request: svc.CreateResourcePoolRequest) -> Any:
        reply = await self.pools.CreateResourcePool(v0svc.CreateResourcePoolRequest(
            id=_id(request.respool_id), config=_as(request.spec, v0.ResourcePoolConfig)))
        return svc.CreateResourcePoolResponse(respool_id=v1.ResourcePoolID(
            value=reply.id.value))

    async def GetResourcePool(self, request: svc.GetResourcePoolRequest) -> Any:
        reply = await self.pools.GetResourcePool(v0svc.GetResourcePoolRequest(
            id=_id(request.respool_id), includeChildPools=request.include_child_pools))
        return svc.GetResourcePoolResponse(
            respool=_as(reply.resPool, v1respool.ResourcePoolInfo),
            child_respools=[_as(c, v1respool.ResourcePoolInfo) for c in reply.childResPools])

    async def DeleteResourcePool(self, request: svc.DeleteResourcePoolRequest) -> Any:
        await self.pools.DeleteResourcePool(v0svc.DeleteResourcePoolRequest(
            id=_id(request.respool_id)))
        return svc.DeleteResourcePoolResponse()

    async def UpdateResourcePool(self, request: svc.UpdateResourcePoolRequest) -> Any:
        await self.pools.UpdateResourcePool(v0svc.UpdateResourcePoolRequest(
            id=_id(request.respool_id), config=_as(request.spec, v0.ResourcePoolConfig),
            Force=request.Force))
        return svc.UpdateResourcePoolResponse()

    async def LookupResourcePoolID(self, request: svc.LookupResourcePoolIDRequest) -> Any:
        reply = await self.pools.LookupResourcePoolID(v0svc.LookupResourcePoolIDRequest(
            path=v0.ResourcePoolPath(value=request.path.value)))
        return svc.LookupResourcePoolIDResponse(respool_id=v1.ResourcePoolID(
            value=reply.id.value))

    async def QueryResourcePools(self, request: svc.QueryResourcePoolsRequest) -> Any:
        reply = await self.pools.QueryResourcePools(v0svc.QueryResourcePoolsRequest())
        return svc.QueryResourcePoolsResponse(respools=[
            _as(p, v1respool.ResourcePoolInfo) for p in reply.resPools])
