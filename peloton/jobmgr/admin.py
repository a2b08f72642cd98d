"""Peloton's v1alpha AdminService: an operator locks components down.

The components (``Component``) are held back by every jobmgr, which reads
the lockdown from storage each second (``Jobmgr.lockdown_loop``):

- ``GoalStateEngine``: the shards' timers (restarts after backoff,
  deadlines, rolling restarts, updates) and reconciles pause;
- ``Read`` / ``Write``: the public read calls (Get*, List*, Query*,
  Lookup*, Browse*, Read*, Watch) / every other public call are refused
  FAILED_PRECONDITION (the AdminService itself never is);
- ``Kill``: kills are held back (runs wait KILLING) and sent when lifted;
- ``Launch``: no placement is taken from resmgr, so nothing is launched.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from peloton.api.v1alpha.admin.svc import admin_svc_pb2 as svc
from peloton.core.errors import FailedPrecondition, InvalidArgument
from peloton.jobmgr.service import LOCK_READ, LOCK_WRITE, Jobmgr

__all__ = ["AdminService", "gated", "is_read"]

READ_PREFIXES = ("Get", "List", "Query", "Lookup", "Browse", "Read", "Watch")


def is_read(method: str) -> bool:
    return method.startswith(READ_PREFIXES)


class AdminService:
    """peloton.api.v1alpha.admin.svc.AdminService"""

    def __init__(self, jm: Jobmgr) -> None:
        self.jm = jm

    @staticmethod
    def _names(components: Any) -> list[str]:
        names = []
        for i, c in enumerate(components):
            if c not in svc.Component.values():
                raise InvalidArgument(f"{c} is not a component", field=f"components[{i}]")
            names.append(svc.Component.Name(c))
        return names

    async def _set(self, add: list[str], remove: list[str]) -> None:
        current = set(await self.jm.storage.get_lockdown())
        wanted = (current | set(add)) - set(remove)
        await self.jm.storage.set_lockdown(sorted(wanted))
        await self.jm.apply_lockdown(frozenset(wanted))

    async def Lockdown(self, request: svc.LockdownRequest) -> Any:
        names = self._names(request.components)
        await self._set(names, [])
        return svc.LockdownResponse(successes=request.components)

    async def RemoveLockdown(self, request: svc.RemoveLockdownRequest) -> Any:
        names = self._names(request.components)
        await self._set([], names)
        return svc.RemoveLockdownResponse(successes=request.components)


class _Gate:
    """A public service's handlers, refused while their kind is locked down."""

    def __init__(self, impl: object, jm: Jobmgr) -> None:
        self._impl, self._jm = impl, jm

    def __getattr__(self, name: str) -> Callable[[Any], Awaitable[Any]]:
        handler = getattr(self._impl, name)
        kind = LOCK_READ if is_read(name) else LOCK_WRITE

        async def call(request: Any) -> Any:
            if kind in self._jm.lockdown:
                raise FailedPrecondition(f"{name}: the cluster's {kind.lower()} calls are "
                                         "locked down by an operator (AdminService)")
            return await handler(request)
        return call


def gated(impl: object, jm: Jobmgr) -> object:
    return _Gate(impl, jm)
