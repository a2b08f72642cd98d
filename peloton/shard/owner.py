"""One jobmgr's side of the shard protocol, as a trio loop.

``ShardOwner.run`` heartbeats every ``period`` seconds; each reply is the
cluster view with the shard map. It starts a worker (``run_shard(shard,
epoch)``, supplied by the jobmgr) for every shard the map gives it, from the
shard's ``act_from``, and cancels it when the shard moves away, when its
epoch changes, or when this jobmgr's own lease lapses: the lease is counted
from when each successful heartbeat was sent and is watched by a timer of
its own, so a jobmgr whose heartbeats hang stops acting on time, not after
a heartbeat finally fails. A jobmgr whose ``num_shards`` differs from the
one pinned in resmgr's state acts on no shard and says why (``refusal``).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from peloton.core.errors import PelotonError
from peloton.shard.lease import FENCE_MARGIN, Lease, local_act_from
from peloton.shard.routing import Owners, shard_owners

log = logging.getLogger(__name__)

Heartbeat = Callable[[], Awaitable[Any]]  # -> ClusterView
RunShard = Callable[[int, int], Awaitable[None]]  # (shard, epoch); returns when it stops


def num_shards_refusal(configured: int, pinned: int) -> str | None:
    """Why a jobmgr configured with ``configured`` shards must not act in a
    cluster pinned at ``pinned`` (None when they agree)."""
    if pinned == configured:
        return None
    return (f"num_shards: this jobmgr's cluster file says {configured}, but the cluster was "
            f"bootstrapped with {pinned} shards; it acts on no shard until its cluster file "
            f"says {pinned}")


class ShardOwner:
    """Runs ``run_shard`` for the shards this jobmgr owns, while it may."""

    def __init__(self, name: str, num_shards: int, heartbeat: Heartbeat, run_shard: RunShard, *,
                 lease: float, period: float, margin: float = FENCE_MARGIN) -> None:
        self.name = name
        self.num_shards = num_shards
        self._heartbeat = heartbeat
        self._run_shard = run_shard
        self._lease_duration = lease
        self._period = period
        self._margin = margin
        self.lease = Lease()
        self.view: Any = None
        self.owners: Owners = {}  # of ``view``
        self.view_changed = trio.Event()
        self.refusal: str | None = None
        self._renewed = trio.Event()
        self._workers: dict[int, tuple[int, trio.CancelScope]] = {}  # shard -> (epoch, scope)
        self._nursery: trio.Nursery | None = None

    # -- what the rest of the jobmgr asks ------------------------------------
    def acting(self) -> bool:
        return self.lease.acting(trio.current_time())

    def owned(self) -> dict[int, int]:
        """Shards with a worker (started or waiting for its ``act_from``) -> epoch."""
        return {shard: epoch for shard, (epoch, _) in self._workers.items()}

    # -- the loop ---------------------------------------------------------------
    async def run(self) -> None:
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            nursery.start_soon(self._watch_lease)
            failures = 0
            while True:
                sent_at = trio.current_time()
                try:
                    view = await self._heartbeat()
                except PelotonError as error:
                    failures += 1
                    log.warning("heartbeat failed: %s", error)
                else:
                    if failures:
                        log.info("heartbeat works again after %d failures", failures)
                        failures = 0
                    self.lease = self.lease.renewed(sent_at, self._lease_duration, self._margin)
                    self._renewed.set()
                    self._apply(view, trio.current_time())
                await trio.sleep(self._period)

    async def _watch_lease(self) -> None:
        """Cancel every worker the moment the lease lapses."""
        while True:
            ends_at = self.lease.ends_at
            if not math.isinf(ends_at):
                await trio.sleep_until(ends_at)
            if self.lease.acting(trio.current_time()):
                continue  # renewed while this slept
            if self._workers:
                log.warning("lease lapsed (no heartbeat sent since %.1f s before now reached "
                            "resmgr): acting on no shard", self._lease_duration - self._margin)
                self._drop_all("lease lapsed")
            self._renewed = trio.Event()
            await self._renewed.wait()

    def _apply(self, view: Any, received_at: float) -> None:
        self.view = view
        self.owners = shard_owners(view)
        self.view_changed.set()
        self.view_changed = trio.Event()
        refusal = num_shards_refusal(self.num_shards, view.numShards)
        if refusal != self.refusal:
            self.refusal = refusal
            if refusal:
                log.error("%s", refusal)
        if refusal:
            self._drop_all("num_shards mismatch")
            return
        mine = {s.shard: s for s in view.shards if s.owner == self.name}
        for shard, (epoch, _) in list(self._workers.items()):
            if shard not in mine or mine[shard].epoch != epoch:
                self._drop(shard, "ownership moved")
        started = []
        for shard, s in sorted(mine.items()):
            if shard not in self._workers:
                assert self._nursery is not None
                scope = trio.CancelScope()
                self._workers[shard] = (s.epoch, scope)
                at = local_act_from(received_at, view.now, s.actFrom)
                self._nursery.start_soon(self._own, shard, s.epoch, at, scope)
                started.append(shard)
        if started:
            log.info("the shard map gives this instance shards %s (now %d in all)",
                     ",".join(map(str, started)), len(self._workers))

    async def _own(self, shard: int, epoch: int, act_from: float,
                   scope: trio.CancelScope) -> None:
        try:
            with scope:
                await trio.sleep_until(act_from)
                log.info("shard %d: taking ownership at epoch %d", shard, epoch)
                await self._run_shard(shard, epoch)
        finally:
            if self._workers.get(shard, (None, None))[1] is scope:
                del self._workers[shard]

    def _drop(self, shard: int, why: str) -> None:
        worker = self._workers.pop(shard, None)
        if worker is not None:
            log.info("shard %d dropped: %s", shard, why)
            worker[1].cancel()

    def _drop_all(self, why: str) -> None:
        for shard in list(self._workers):
            self._drop(shard, why)
