"""Peloton's v1alpha HostService, served by jobmgr over the v0 one.

The v1alpha messages carry the same facts under snake_case names and
prefixed enum values with the same numbers; each call is the v0 call it
stands for, over every cluster (``HostForwarder``).
"""

from __future__ import annotations

from typing import Any

from peloton.api.v0.host.svc import host_svc_pb2 as v0
from peloton.api.v1alpha.host import host_pb2
from peloton.api.v1alpha.host.svc import host_svc_pb2 as svc
from peloton.api.v1alpha.peloton import peloton_pb2 as v1
from peloton.jobmgr.service import HostForwarder

__all__ = ["HostServiceV1Alpha"]


class HostServiceV1Alpha:
    """peloton.api.v1alpha.host.svc.HostService"""

    def __init__(self, hosts: HostForwarder) -> None:
        self.hosts = hosts

    async def QueryHosts(self, request: svc.QueryHostsRequest) -> Any:
        reply = await self.hosts.QueryHosts(v0.QueryHostsRequest(
            host_states=request.host_states))  # type: ignore[arg-type]
        return svc.QueryHostsResponse(host_infos=[
            host_pb2.HostInfo(hostname=h.hostname, ip=h.ip, state=h.state,  # type: ignore[arg-type]
                              goal_state=h.goal_state,  # type: ignore[arg-type]
                              labels=[v1.Label(key=lab.key, value=lab.value)
                                      for lab in h.labels])
            for h in reply.host_infos])

    async def StartMaintenance(self, request: svc.StartMaintenanceRequest) -> Any:
        reply = await self.hosts.StartMaintenance(v0.StartMaintenanceRequest(
            hostnames=request.hostnames, hostname=request.hostname))
        return svc.StartMaintenanceResponse(hostname=reply.hostname)

    async def CompleteMaintenance(self, request: svc.CompleteMaintenanceRequest) -> Any:
        reply = await self.hosts.CompleteMaintenance(v0.CompleteMaintenanceRequest(
            hostnames=request.hostnames, hostname=request.hostname))
        return svc.CompleteMaintenanceResponse(hostname=reply.hostname)

    async def ListHostPools(self, request: svc.ListHostPoolsRequest) -> Any:
        reply = await self.hosts.ListHostPools(v0.ListHostPoolsRequest())
        return svc.ListHostPoolsResponse(pools=[
            host_pb2.HostPoolInfo(name=p.name, hosts=p.hosts) for p in reply.pools])

    async def CreateHostPool(self, request: svc.CreateHostPoolRequest) -> Any:
        await self.hosts.CreateHostPool(v0.CreateHostPoolRequest(name=request.name))
        return svc.CreateHostPoolResponse()

    async def DeleteHostPool(self, request: svc.DeleteHostPoolRequest) -> Any:
        await self.hosts.DeleteHostPool(v0.DeleteHostPoolRequest(name=request.name))
        return svc.DeleteHostPoolResponse()

    async def ChangeHostPool(self, request: svc.ChangeHostPoolRequest) -> Any:
        await self.hosts.ChangeHostPool(v0.ChangeHostPoolRequest(
            hostname=request.hostname, sourcePool=request.sourcePool,
            destinationPool=request.destinationPool))
        return svc.ChangeHostPoolResponse()
