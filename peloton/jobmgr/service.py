"""jobmgr: the public API front and the owner of its shards' jobs.

Any jobmgr answers every public call. Writes to a job go to the owner of the
job's shard (``shard_of(job_id)``), forwarded if that is another instance;
reads come straight from storage. Respool and host calls are forwarded to
resmgr and hostmgr, so a client needs only jobmgr addresses.

Ownership follows the shard protocol (``peloton.shard``): a
``ShardOwner`` heartbeats, keeps the lease and runs ``run_shard`` (a
``ShardEngine`` and its loops) for each shard it may act on.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Sequence
from functools import partial
from typing import Any, Literal

import trio

from peloton.api.mesos.v1 import mesos_pb2
from peloton.api.private.cluster import cluster_grpc
from peloton.api.private.cluster import cluster_pb2 as cpb
from peloton.api.private.hostmgrsvc import hostmgrsvc_grpc
from peloton.api.private.hostmgrsvc import hostmgrsvc_pb2 as hpb
from peloton.api.private.resmgrsvc import resmgrsvc_grpc
from peloton.api.private.resmgrsvc import resmgrsvc_pb2 as rpb
from peloton.api.v0.host import host_pb2
from peloton.api.v0.host.svc import host_svc_grpc, host_svc_pb2
from peloton.api.v0.job import job_grpc, job_pb2
from peloton.api.v0.job.svc import job_svc_grpc, job_svc_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.query import query_pb2
from peloton.api.v0.respool import respool_grpc, respool_pb2
from peloton.api.v0.respool.svc import respool_svc_grpc, respool_svc_pb2
from peloton.api.v0.task import task_grpc, task_pb2
from peloton.api.v0.task.svc import task_svc_grpc, task_svc_pb2
from peloton.api.v0.update import update_pb2
from peloton.api.v0.update.svc import update_svc_grpc, update_svc_pb2
from peloton.config import HEARTBEAT_PERIOD, HEARTBEAT_TIMEOUT, MEMBER_LEASE, ClusterConfig
from peloton.core.errors import (
    Aborted,
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PelotonError,
    Unavailable,
    VersionConflict,
)
from peloton.core.ids import is_job_id, mesos_task_id, new_job_id
from peloton.core.recent import Recent
from peloton.core.resources import Resources
from peloton.core.states import TERMINAL_JOB_STATES, JobState, TaskState
from peloton.jobmgr.engine import (
    HELD_MESSAGE,
    Context,
    LaunchPlan,
    Reports,
    ShardEngine,
    daemon_fits,
    is_preemptible,
    placed_tasks,
    send_launches,
)
from peloton.jobmgr.enqueue import EXPRESS, GangBatcher
from peloton.jobmgr.events import ClusterEvents
from peloton.jobmgr.intake import POLL_S, Intake
from peloton.jobmgr.model import Job, Task, load_versions, rfc3339
from peloton.jobmgr.update import Update as JobUpdate
from peloton.rpc import Channels, ServiceClient, add_reply_metadata, serve_grpc
from peloton.rpc.errorfields import InstanceOutOfRange
from peloton.rpc.http_json import serve_http_json
from peloton.shard.owner import ShardOwner
from peloton.shard.partition import SHARD_OWNER_METADATA, shard_of, shard_of_run
from peloton.shard.routing import owner_of
from peloton.spec.job import validate_job_config, with_daemon_hosts
from peloton.storage.gateway import Storage, UpdateRow
from peloton.storage.sqlite import open_sqlite

log = logging.getLogger(__name__)

# Events come as at-least-once streams, so reconciling is the safety net:
# runs in transit every RECONCILE_PERIOD, every run on a host every
# FULL_RECONCILE_EVERY periods (asking about 300k running runs every 15 s
# was a fifth of the jobmgr's and hostmgr's CPU in the 1M-task load test).
RECONCILE_PERIOD = 15.0
FULL_RECONCILE_EVERY = 8


def full_round(rounds: int, shard: int) -> bool:
    """Whether a shard's reconcile round ``rounds`` asks about every run:
    the first, then every FULL_RECONCILE_EVERY, the shards' full rounds
    spread over that cycle by shard number. Aligned, every shard of a
    jobmgr asked about and applied all its runs in the same 15 s (16 x
    30,000 at a million tasks), which held its loop past its lease."""
    return rounds == 0 or (rounds + shard) % FULL_RECONCILE_EVERY == 0


# How often runs are checked against their job's sla.maxRunningTime (Peloton
# checks every 30 min; a minute's limit should end near a minute).
DEADLINE_PERIOD = 1.0
# Runs a task view asks resmgr about (why they wait), at most.
WAIT_REASONS_LIMIT = 10_000
# Placement batches launching at once (each holds up to 100 placements) while
# the next is fetched: launching waits on SQLite and the host managers.
LAUNCH_BATCHES = 4
# How often hosts are looked at: draining ones, and new ones for daemon jobs.
MAINTENANCE_PERIOD = 2.0
# AdminService's components (Peloton's lockdown), and how often each jobmgr
# reads the lockdown from storage.
LOCK_GOAL_STATE, LOCK_READ, LOCK_WRITE, LOCK_KILL, LOCK_LAUNCH = (
    "GoalStateEngine", "Read", "Write", "Kill", "Launch")
LOCKDOWN_PERIOD = 1.0
# A create checks its pool and the largest host against answers at most this
# old (a call each per create was a third of a small job's cost in jobmgr);
# resmgr's admission still holds every task to its pool's current limits.
CHECK_CACHE_S = 1.0
# ...and looks them up again ahead of time while creates came within this
# long (Recent.keep_fresh), so a create seldom waits for either lookup.
CHECK_KEEP_FRESH_S = 60.0
# A Query's summaries made between two yields to the other tasks (~9 ms
# of a fast core).
SUMMARIES_A_STEP = 1000
# GetActiveJobs (a debug call) lists at most this many job ids.
ACTIVE_JOBS_LIMIT = 1_000_000
# GetPodEvents answers at most this many events (of up to `limit` runs).
POD_EVENTS_LIMIT = 10_000


class Jobmgr:
    def __init__(self, name: str, address: str, config: ClusterConfig, storage: Storage) -> None:
        self.name = name
        self.address = address
        self.config = config
        self.storage = storage
        self.channels = Channels()
        self.resmgr = ServiceClient(config.resmgr_addresses, resmgrsvc_grpc.ResourceManagerServiceStub,
                                    channels=self.channels)
        self.respool = ServiceClient(config.resmgr_addresses, respool_grpc.ResourceManagerStub,
                                     channels=self.channels)
        self.cluster = ServiceClient(config.resmgr_addresses, cluster_grpc.ClusterServiceStub,
                                     channels=self.channels, deadline=HEARTBEAT_TIMEOUT)
        self.engines: dict[int, ShardEngine] = {}
        # Set (and replaced) when a shard's engine starts acting or stops.
        self.engines_changed = trio.Event()
        self.gangs = GangBatcher()
        self.intake = Intake(self.gangs, self._pool_backlog, share=self._shard_share)
        self.gangs.on_waiting = self.intake.note
        # What a create checks, as resmgr and the host managers said lately.
        self._pools: Recent[str, respool_pb2.ResourcePoolInfo] = Recent(
            self._pool_info, CHECK_CACHE_S)
        self._largest: Recent[None, Resources] = Recent(self._capacity, CHECK_CACHE_S)
        # Pools' ids by path: a spec sent as it is (`peloton job create`)
        # names its pool by path, and each create looked it up at resmgr.
        self._pool_ids: Recent[str, respool_pb2.LookupResponse] = Recent(
            self._lookup_pool, CHECK_CACHE_S)
        self._heartbeat_request = cpb.HeartbeatRequest(member=cpb.Member(
            id=name, kind="jobmgr", address=address, numShards=config.num_shards))
        self.owner = ShardOwner(name, config.num_shards, self._heartbeat, self.run_shard,
                                lease=MEMBER_LEASE, period=HEARTBEAT_PERIOD)
        self._hostmgr_clients: dict[str, ServiceClient] = {}
        self.reports = Reports(self.resmgr)
        self.ctx = Context(storage, self.resmgr, self.hostmgr_for, self.hostmgrs,
                           hold_kills=lambda: LOCK_KILL in self.lockdown,
                           reports=self.reports, engines=self.engines)
        self.capabilities: frozenset[str] = frozenset()
        # Components the operator locked down (AdminService.Lockdown).
        self.lockdown: frozenset[str] = frozenset()

    # -- cluster view ------------------------------------------------------
    def hostmgr_for(self, cluster: str) -> ServiceClient:
        view = self.view
        address = None
        if view is not None:
            for m in view.members:
                if m.kind == "hostmgr" and m.cluster == cluster:
                    address = m.address
        if address is None:
            raise Unavailable(f"no host manager for cluster {cluster!r} is alive")
        client = self._hostmgr_clients.get(address)
        if client is None:
            client = self._hostmgr_clients[address] = ServiceClient(
                [address], hostmgrsvc_grpc.InternalHostServiceStub, channels=self.channels,
                deadline=5.0)
        return client

    def hostmgrs(self) -> list[tuple[str, ServiceClient]]:
        view = self.view
        clusters = sorted({m.cluster for m in view.members if m.kind == "hostmgr"}) if view else []
        return [(c, self.hostmgr_for(c)) for c in clusters]

    def owner_address(self, shard: int) -> tuple[str, bool]:
        """(address of the shard's owner, whether it is this instance)."""
        view = self.view
        if view is None:
            raise Unavailable("jobmgr has not joined the cluster yet")
        owner, address = owner_of(self.owner.owners, shard)
        return (self.address, True) if owner == self.name else (address, False)

    @property
    def view(self) -> cpb.ClusterView | None:
        return self.owner.view  # type: ignore[no-any-return]

    @property
    def view_changed(self) -> trio.Event:
        return self.owner.view_changed

    async def _heartbeat(self) -> cpb.ClusterView:
        reply = await self.cluster.call("Heartbeat", self._heartbeat_request,
                                        timeout=HEARTBEAT_TIMEOUT)
        return reply.view

    async def run_shard(self, shard: int, epoch: int) -> None:
        """Act on ``shard`` at ``epoch`` until cancelled or fenced off."""
        engine = ShardEngine(self.ctx, shard, epoch, self.name)
        self.engines[shard] = engine
        try:
            while True:
                try:
                    await engine.recover()
                    break
                except PelotonError as error:
                    if engine.stopped:
                        log.warning("shard %d: fenced off (%s)", shard, error)
                        return
                    log.warning("shard %d: recovery failed (%s); retrying", shard, error)
                    await trio.sleep(1.0)
            async with trio.open_nursery() as nursery:
                # The shard's one writer: every change below goes through it.
                nursery.start_soon(engine.serve_inbox)
                # Its task events come through consume_events (all shards').
                self._engines_changed()
                nursery.start_soon(self._reconcile_loop, engine)
                nursery.start_soon(self._deadline_loop, engine)
                nursery.start_soon(engine.audit_resmgr)
                # A fenced engine (a newer epoch wrote) ends its shard here;
                # the owner starts it again if the map still says so.
                await engine.fenced.wait()
                log.warning("shard %d: fenced off at epoch %d", shard, epoch)
                nursery.cancel_scope.cancel()
        finally:
            if self.engines.get(shard) is engine:
                del self.engines[shard]
            self._engines_changed()

    def _engines_changed(self) -> None:
        self.engines_changed.set()
        self.engines_changed = trio.Event()

    def _acting_engines(self) -> dict[int, ShardEngine]:
        return {s: e for s, e in self.engines.items() if e.ready.is_set() and not e.stopped}

    async def consume_events(self) -> None:
        """Follow every acting shard's task events, one poll a host manager
        for all of them (``peloton.jobmgr.events``), for each cluster as it
        joins."""
        followed: set[str] = set()
        async with trio.open_nursery() as nursery:
            while True:
                for cluster, _ in self.hostmgrs():
                    if cluster not in followed:
                        followed.add(cluster)
                        nursery.start_soon(ClusterEvents(
                            cluster, partial(self.hostmgr_for, cluster), self._acting_engines,
                            lambda: self.engines_changed, self._deliver_events,
                            self._reconcile_all).run)
                await self.view_changed.wait()

    async def _deliver_events(self, engine: ShardEngine, events: list[hpb.TaskEvent]) -> None:
        """A shard's events to its writer: small jobs' ahead of its queued
        work, as their creates and launches go; each job's events stay
        together and in order."""
        small, rest = engine.by_lane(events, EXPRESS)
        if small:
            await engine.submit(engine.on_events, small, urgent=True)
        if rest:
            await engine.submit(engine.on_events, rest)

    async def _reconcile_all(self, engine: ShardEngine) -> None:
        """Where every run of the shard stands (its events may be lost)."""
        try:
            answer = await engine.ask_reconcile(full=True)
            await engine.submit(engine.apply_reconcile, *answer)
        except PelotonError as error:
            # The next full round (FULL_RECONCILE_EVERY) asks again.
            log.info("reconcile of shard %d: %s", engine.shard, error)

    async def _reconcile_loop(self, engine: ShardEngine) -> None:
        """Reconcile the shard's runs with the host managers: all of them at
        once (a new owner learns what ended while nobody owned the shard, or
        while the whole cluster was down), then the runs in transit every
        RECONCILE_PERIOD and all of them every FULL_RECONCILE_EVERY periods."""
        rounds = 0
        while not engine.stopped:
            try:
                # Ask the host managers outside the writer; apply in it.
                if LOCK_GOAL_STATE in self.lockdown:
                    await trio.sleep(RECONCILE_PERIOD)
                    continue
                answer = await engine.ask_reconcile(full=full_round(rounds, engine.shard))
                await engine.submit(engine.apply_reconcile, *answer)
            except PelotonError as error:
                log.info("reconcile of shard %d: %s", engine.shard, error)
            rounds += 1
            await trio.sleep(RECONCILE_PERIOD)

    async def _deadline_loop(self, engine: ShardEngine) -> None:
        """sla.maxRunningTime and service restart backoffs, every DEADLINE_PERIOD seconds."""
        while not engine.stopped:
            await trio.sleep(DEADLINE_PERIOD)
            if LOCK_GOAL_STATE in self.lockdown:
                continue
            try:
                await engine.submit(engine.run_timers)
            except PelotonError as error:
                log.info("timers of shard %d: %s", engine.shard, error)

    def _acting_shards(self) -> list[int]:
        """The owned shards whose engines have recovered and still act."""
        if not self.owner.acting():
            return []
        return [s for s, e in self.engines.items() if e.ready.is_set() and not e.stopped]

    def _shard_of_run(self, mesos_task_id: str) -> int | None:
        """The shard of a run's job, or None for an id that names no job."""
        return shard_of_run(mesos_task_id, self.config.num_shards)

    async def lockdown_loop(self) -> None:
        """Follow the operator's lockdown (AdminService), kept in storage so
        every jobmgr holds the same components back; the kills held back
        while Kill was locked are sent when it is lifted."""
        while True:
            try:
                await self.apply_lockdown(frozenset(await self.storage.get_lockdown()))
            except PelotonError as error:
                log.info("reading the lockdown: %s", error)
            await trio.sleep(LOCKDOWN_PERIOD)

    async def apply_lockdown(self, components: frozenset[str]) -> None:
        before, self.lockdown = self.lockdown, components
        if before != components:
            log.warning("lockdown: %s", ", ".join(sorted(components)) or "none")
        if LOCK_KILL in before and LOCK_KILL not in components:
            for engine in list(self.engines.values()):
                if engine.ready.is_set() and not engine.stopped:
                    with contextlib.suppress(PelotonError):
                        await engine.submit(engine.resend_kills)

    async def placement_loop(self, express: bool = False) -> None:
        """Pull placements for every owned shard and launch them, with up to
        LAUNCH_BATCHES batches launching while the next one is fetched.

        ``express``: only express placements (small jobs', placed apart from
        bulk batches), each batch launched at once as urgent work of its
        shards' writers: a small job's launch waits neither for a free
        launch slot nor behind a bulk load's launches."""
        slots = None if express else trio.Semaphore(LAUNCH_BATCHES)
        async with trio.open_nursery() as nursery:
            while True:
                shards = self._acting_shards()
                if not shards or LOCK_LAUNCH in self.lockdown:
                    # (locked down: placements wait in resmgr, and are placed
                    # again once their leases lapse)
                    await trio.sleep(0.2)
                    continue
                if slots is not None:
                    await slots.acquire()
                try:
                    reply = await self.resmgr.call("GetPlacements", rpb.GetPlacementsRequest(
                        shards=shards, limit=100, timeout=1000, express=express), timeout=5.0)
                except PelotonError as error:
                    if slots is not None:
                        slots.release()
                    log.info("get %splacements: %s", "express " if express else "", error)
                    await trio.sleep(0.5)
                    continue
                if slots is not None or reply.placements:
                    nursery.start_soon(self._launch_batch, list(reply.placements), slots,
                                       express)

    async def preemption_loop(self) -> None:
        """Pull, for every owned shard at once, the runs resmgr preempted (a
        batch a call, long-polled) and have each shard's engine kill them.
        At least once: resmgr hands a victim out again if its run has not
        ended a while later, and ``ShardEngine.preempt`` is safe to repeat."""
        while True:
            shards = self._acting_shards()
            if not shards:
                await trio.sleep(0.2)
                continue
            try:
                reply = await self.resmgr.call("GetPreemptibleTasks",
                                               rpb.GetPreemptibleTasksRequest(
                                                   shards=shards, limit=100, timeout=1000),
                                               timeout=5.0)
            except PelotonError as error:
                log.info("get preemptible tasks: %s", error)
                await trio.sleep(0.5)
                continue
            by_shard: dict[int, list[tuple[str, str]]] = {}
            for victim in reply.tasks:
                shard = self._shard_of_run(victim.mesosTaskId)
                if shard is not None:
                    by_shard.setdefault(shard, []).append((victim.mesosTaskId, victim.message))
            for shard, victims in by_shard.items():
                engine = self.engines.get(shard)
                if engine is None:
                    continue  # moved away: resmgr hands them to the new owner later
                try:
                    await engine.submit(engine.preempt, victims)
                except PelotonError as error:
                    log.warning("shard %d preemption: %s", shard, error)

    def host_services(self) -> list[tuple[str, ServiceClient]]:
        """(cluster, its hostmgr's public HostService) for every hostmgr."""
        view = self.view
        return [(m.cluster, ServiceClient([m.address], host_svc_grpc.HostServiceStub,
                                          channels=self.channels, deadline=5.0))
                for m in (view.members if view else []) if m.kind == "hostmgr"]

    async def _hosts(self, states: Sequence[host_pb2.HostState] = ()) -> list[tuple[str, Any]]:
        """(cluster, HostInfo) of every host of every cluster that answers;
        only those in ``states``, when given."""
        out: list[tuple[str, Any]] = []
        for cluster, client in self.host_services():
            try:
                reply = await client.call("QueryHosts", host_svc_pb2.QueryHostsRequest(
                    host_states=states))
            except PelotonError as error:
                log.info("hosts of %s: %s", cluster, error)
                continue
            out += [(cluster, h) for h in reply.host_infos]
        return out

    async def up_hosts(self) -> list[tuple[str, tuple[float, float, float, float],
                                           dict[str, str]]]:
        """(hostname, capacity, attributes) of every host that is UP."""
        return _up(await self._hosts())

    async def maintenance_loop(self) -> None:
        """Every MAINTENANCE_PERIOD: move the runs of owned shards off hosts
        draining for maintenance (``ShardEngine.drain``), and give daemon
        jobs an instance on each host that is up and has none
        (``ShardEngine.grow_daemons``)."""
        while True:
            await trio.sleep(MAINTENANCE_PERIOD)
            engines = [e for e in map(self.engines.get, self._acting_shards()) if e is not None]
            if not engines:
                continue
            with_daemons = {e.shard for e in engines if e.holds_daemons()}
            # Every host only for daemon jobs: 10,000 hosts' infos every 2 s
            # were a third of a busy host manager's cpu.
            hosts = await self._hosts(() if with_daemons else (host_pb2.HOST_STATE_DRAINING,))
            draining = {(c, h.hostname) for c, h in hosts
                        if h.state == host_pb2.HOST_STATE_DRAINING}
            up = _up(hosts)
            for engine in engines:
                daemons = engine.shard in with_daemons
                if not draining and not daemons:
                    continue
                try:
                    if draining:
                        await engine.submit(engine.drain, draining)
                    if daemons:
                        await engine.submit(engine.grow_daemons, up)
                except PelotonError as error:
                    log.warning("shard %d hosts: %s", engine.shard, error)

    async def _launch_batch(self, placements: list[rpb.Placement], slots: trio.Semaphore | None,
                            urgent: bool = False) -> None:
        """Record each shard's placements in its writer, send them all
        outside the writers (one call a cluster: host managers take their
        time, and the shards' events go on meanwhile), and place the refused
        ones again in their writers (``urgent``: ahead of their inboxes)."""
        try:
            by_shard: dict[int, list[rpb.Placement]] = {}
            for p in placements:
                for t in p.tasks:
                    shard = self._shard_of_run(t.mesosTaskId)
                    if shard is not None:
                        by_shard.setdefault(shard, []).append(p)
                        break
            plans: list[tuple[ShardEngine, LaunchPlan]] = []

            async def record(engine: ShardEngine, batch: list[rpb.Placement]) -> None:
                # A shard's share of a batch that is small (a stream of small
                # jobs split 16 ways) takes the lane too: the writer that
                # records it records the other idle writers' shares with it,
                # in one turn and one write (``ShardEngine._lend_peers``).
                small = urgent or placed_tasks(batch) <= EXPRESS
                try:
                    plans.append((engine, await engine.submit(engine.record_launch, batch,
                                                              urgent=small)))
                except PelotonError as error:
                    log.warning("shard %d launch: %s", engine.shard, error)

            async with trio.open_nursery() as nursery:
                for shard, batch in by_shard.items():
                    engine = self.engines.get(shard)
                    if engine is not None:
                        nursery.start_soon(record, engine, batch)
            refused = await send_launches(self.ctx, plans)
            async with trio.open_nursery() as nursery:
                for engine, tasks, why in refused:
                    nursery.start_soon(self._place_again, engine, tasks, why, urgent)
        finally:
            if slots is not None:
                slots.release()

    @staticmethod
    async def _place_again(engine: ShardEngine, tasks: list[Task], why: str,
                           urgent: bool) -> None:
        try:
            await engine.submit(engine.place_again, tasks, why, urgent=urgent)
        except PelotonError as error:
            log.warning("shard %d launch: %s", engine.shard, error)

    # -- routing -------------------------------------------------------------
    async def engine_for(self, job_id: str) -> ShardEngine | None:
        """The local engine owning ``job_id``'s shard, or None if another owns it."""
        shard = shard_of(job_id, self.config.num_shards)
        found = self._engine_for(shard)
        if found is not False:  # (no cancel scope a call when the answer is known)
            return found
        with trio.move_on_after(10):
            while True:
                await self.view_changed.wait()
                found = self._engine_for(shard)
                if found is not False:
                    return found
        raise Unavailable(f"shard {shard} of job {job_id} is not being served yet; retry")

    def _engine_for(self, shard: int) -> ShardEngine | Literal[False] | None:
        """``engine_for``'s answer from the view as it is: False while it
        must wait (no view yet, or the shard ours but its engine not ready)."""
        if self.view is None:
            return False
        owner = self.owner.owners.get(shard)
        if owner is not None and owner[0] != self.name:
            return None
        engine = self.engines.get(shard)
        if engine is not None and engine.ready.is_set() and not engine.stopped:
            return engine
        return False

    async def route(self, job_id: str, stub: type, method: str, request: Any,
                    local: Callable[[ShardEngine], Awaitable[Any]]) -> Any:
        """Run ``local`` on the owner of the job's shard (here or forwarded).

        ``local`` runs outside the shard's writer: what it changes it must
        ``engine.submit`` (checks and reads that need no order can go
        before). It must be safe to run again: when the shard moves while it
        runs, its fenced write is refused (Aborted) and it runs again on the
        new owner (the handlers are idempotent: a create finds its job)."""
        num_shards = self.config.num_shards
        for _ in range(5):
            engine = await self.engine_for(job_id)
            try:
                address, _ = self.owner_address(shard_of(job_id, num_shards))
                # Where the client may send this shard's next call (a hint:
                # a stale one costs a forward, as now).
                add_reply_metadata(SHARD_OWNER_METADATA, f"{num_shards} {address}")
                if engine is not None:
                    return await local(engine)
                client = ServiceClient([address], stub, channels=self.channels, deadline=2.0)
                return await client.call(method, request, timeout=30.0)
            except VersionConflict:
                raise
            except (Unavailable, Aborted) as error:
                if engine is None and isinstance(error, Aborted):
                    # The owner's own answer: it retries its fenced writes itself.
                    raise
                log.info("%s of job %s: %s; trying the shard's owner again", method, job_id, error)
                await self.view_changed.wait()
        raise Unavailable(f"could not reach the owner of job {job_id}; retry")

    async def capacity(self) -> tuple[Resources, frozenset[str]]:
        """The largest host of any cluster (as of at most CHECK_CACHE_S
        ago), and what the backends can run."""
        return await self._largest.get(None), self.capabilities

    async def keep_checks_fresh(self) -> None:
        """Runs for ever: what creates check is looked up again ahead of
        time (``CHECK_KEEP_FRESH_S``)."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._pools.keep_fresh, CHECK_KEEP_FRESH_S)
            nursery.start_soon(self._largest.keep_fresh, CHECK_KEEP_FRESH_S)

    async def _capacity(self, _: None) -> Resources:
        # Each host manager at once; the first error is the caller's.
        hosts: list[Resources] = []
        errors: list[Exception] = []

        async def ask(client: ServiceClient) -> None:
            try:
                reply = await client.call("ClusterCapacity", hpb.ClusterCapacityRequest())
            except Exception as error:
                errors.append(error)
                return
            h = reply.largestHost
            hosts.append(Resources(h.cpu, h.memMb, h.diskMb, h.gpu))

        async with trio.open_nursery() as nursery:
            for _cluster, client in self.hostmgrs():
                nursery.start_soon(ask, client)
        if errors:
            raise errors[0]
        largest = Resources()
        for host in hosts:
            largest = Resources(*map(max, largest, host))
        return largest

    async def pool_info(self, pool_id: str) -> respool_pb2.ResourcePoolInfo:
        """Resource pool ``pool_id`` as resmgr has it (as of at most
        CHECK_CACHE_S ago, unless changed through this jobmgr)."""
        return await self._pools.get(pool_id)

    def _shard_share(self) -> float:
        """The part of the shards this jobmgr owns (``Intake``): at least one
        shard's, since a create reaches only the owner of its shard."""
        return max(len(self.engines), 1) / self.config.num_shards

    async def _pool_backlog(self, pool_id: str) -> int:
        """resmgr's count of a pool's gangs not yet placed (``Intake``)."""
        reply = await self.resmgr.call("EnqueueGangs", rpb.EnqueueGangsRequest(
            respoolID=peloton_pb2.ResourcePoolID(value=pool_id)), timeout=1.0, deadline=POLL_S)
        return reply.waiting  # type: ignore[no-any-return]

    async def _pool_info(self, pool_id: str) -> respool_pb2.ResourcePoolInfo:
        reply = await self.respool.call("GetResourcePool", respool_pb2.GetRequest(
            id=peloton_pb2.ResourcePoolID(value=pool_id)))
        return reply.poolinfo  # type: ignore[no-any-return]

    async def respool_call(self, method: str, request: Any) -> Any:
        """A v0 ResourceManager call, at the resmgr leader; a pool found by
        its path is as of at most CHECK_CACHE_S ago (a pool not found is
        asked for again), unless changed through this jobmgr."""
        if method == "LookupResourcePoolID":
            try:
                return await self._pool_ids.get(request.path.value)
            except _NotKept as answer:
                return answer.reply
        try:
            return await self.respool.call(method, request)
        finally:
            if method in ("CreateResourcePool", "UpdateResourcePool", "DeleteResourcePool"):
                self._pools.forget()
                self._pool_ids.forget()

    async def _lookup_pool(self, path: str) -> respool_pb2.LookupResponse:
        reply = await self.respool.call("LookupResourcePoolID", respool_pb2.LookupRequest(
            path=respool_pb2.ResourcePoolPath(value=path)))
        if not reply.id.value or reply.HasField("error"):
            raise _NotKept(reply)
        return reply  # type: ignore[no-any-return]


class _NotKept(Exception):
    """An answer to give once, not to keep (a pool that was not found)."""

    def __init__(self, reply: Any) -> None:
        super().__init__("not kept")
        self.reply = reply


def _job_id(request_id: peloton_pb2.JobID) -> str:
    value = request_id.value
    if not value:
        raise InvalidArgument("a job id is required", field="id")
    if not is_job_id(value):
        raise InvalidArgument(f"{value!r} is not a job id (a UUID)", field="id")
    return value


async def _stop(engine: ShardEngine, job: Job, tasks: list[Task]) -> None:
    job.goal = JobState.KILLED
    job.desired_state_version += 1  # written with the kills
    await engine.kill(tasks)


async def _start(engine: ShardEngine, job: Job, tasks: list[Task]) -> list[int]:
    job.desired_state_version += 1  # written with the starts
    return await engine.start(tasks)


async def _restart(engine: ShardEngine, job: Job, tasks: list[Task]) -> None:
    await engine.restart(tasks)


# The properties a query orders by (PaginationSpec.orderBy), by their
# spelling folded (creation_time, creationTime): jobs by a stored column,
# tasks by what their TaskInfo holds.
JOB_ORDER = {"creationtime": "creation_time", "completiontime": "completion_time",
             "updatetime": "update_time", "name": "name", "owner": "owner", "state": "state",
             "instancecount": "instance_count", "id": "job_id", "jobid": "job_id"}
TASK_ORDER: dict[str, Callable[[task_pb2.TaskInfo], Any]] = {
    "creationtime": lambda t: t.runtime.startTime, "host": lambda t: t.runtime.host,
    "instanceid": lambda t: t.instanceId, "message": lambda t: t.runtime.message,
    "name": lambda t: t.config.name, "reason": lambda t: t.runtime.reason,
    "state": lambda t: t.runtime.state,
}


def _order(spec: query_pb2.PaginationSpec, field: str, known: Iterable[str]
           ) -> list[tuple[str, bool]]:
    """(property, descending) for each of ``spec.orderBy``; a property not
    in ``known`` (folded spellings) is refused naming it."""
    out = []
    names = sorted(known)
    for i, order in enumerate(spec.orderBy):
        key = order.property.value.replace("_", "").lower()
        if key not in names:
            raise InvalidArgument(f"cannot order by {order.property.value!r}; by one of "
                                  f"{', '.join(names)}", field=f"{field}.orderBy[{i}].property")
        out.append((key, order.order == query_pb2.OrderBy.DESC))
    return out


def _time_range(spec: Any, name: str) -> tuple[float, float] | None:
    """A TimeRange of a QuerySpec as (low, high) seconds; an end not set is open."""
    if not spec.HasField(name):
        return None
    bounds = getattr(spec, name)
    low = bounds.min.seconds + bounds.min.nanos / 1e9 if bounds.HasField("min") else 0.0
    high = bounds.max.seconds + bounds.max.nanos / 1e9 if bounds.HasField("max") else 1e18
    if low > high:
        raise InvalidArgument("min is after max", field=f"spec.{name}")
    return low, high


def _up(hosts: list[tuple[str, Any]]) -> list[tuple[str, tuple[float, float, float, float],
                                                    dict[str, str]]]:
    """(hostname, capacity, attributes) of the hosts that are UP."""
    return [(h.hostname, (h.cpu, h.memMb, h.diskMb, h.gpu),
             {label.key: label.value for label in h.labels})
            for _, h in hosts if h.state == host_pb2.HOST_STATE_UP]


async def _held_or_loaded(jm: Jobmgr, engine: ShardEngine, job_id: str) -> Job:
    """The job as its shard's owner holds it, or, ended (its owner lets go
    of ended jobs, and a new owner loads active ones only), as storage has
    it, held again from now on. In the owner's writer."""
    job = engine.jobs.get(job_id)
    if job is None:
        row = await jm.storage.get_job(job_id)
        if row is None:
            raise NotFound(f"job {job_id} does not exist")
        task_rows, _ = await jm.storage.list_tasks(job_id)
        job = await load_versions(Job.from_rows(row, task_rows), jm.storage)
        engine.jobs[job_id] = job
    return job


def _cached(engine: ShardEngine, job_id: str) -> Job:
    """The job as its shard's owner holds it (GetCache)."""
    job = engine.jobs.get(job_id)
    if job is None:
        raise NotFound(f"job {job_id} is not in its owner's cache (it has ended, or does "
                       "not exist)")
    return job


def _as_submitted(stored: bytes) -> bytes:
    """A stored job config as its client sent it: a daemon job's instances
    are the cluster's (one per host), not the client's."""
    config = job_pb2.JobConfig.FromString(stored)
    if config.type != job_pb2.DAEMON:
        return stored
    config.ClearField("instanceCount")
    config.ClearField("instanceConfig")
    return config.SerializeToString(deterministic=True)


def _page(spec: query_pb2.PaginationSpec, field: str, *,
          default_limit: int | None) -> tuple[int, int | None]:
    """(offset, limit) of a query's PaginationSpec: ``limit`` results from
    ``offset`` (``default_limit`` when unset; None: all), never past
    ``maxLimit`` results in all when that is set."""
    limit: int | None = spec.limit or default_limit
    if spec.maxLimit:
        room = max(0, spec.maxLimit - spec.offset)
        limit = room if limit is None else min(limit, room)
    return spec.offset, limit


def _ranges(ranges: Any, count: int) -> list[int]:
    if not ranges:
        return list(range(count))
    out: set[int] = set()
    for i, r in enumerate(ranges):
        end = min(r.to, count) if r.to else count
        if r.to and r.to <= getattr(r, "from"):
            raise InvalidArgument(f"instance range {getattr(r, 'from')}:{r.to} is empty",
                                  field=f"ranges[{i}]")
        out.update(range(getattr(r, "from"), end))
    return sorted(out)


async def _on_owner(jm: Jobmgr, job_id: str, ranges: Any, stub: type, method: str,
                    request: Any,
                    act: Callable[[ShardEngine, Job, list[Task]], Awaitable[Any]]) -> Any:
    """``act`` on the job's tasks in ``ranges`` (all when empty), in the
    writer of the shard's owner (the request is forwarded there when that is
    another jobmgr). An ended job, not kept in memory, is loaded for it."""

    async def body(engine: ShardEngine) -> Any:
        job = await _held_or_loaded(jm, engine, job_id)
        instances = _ranges(ranges, job.config.instanceCount)
        return await act(engine, job, [job.tasks[i] for i in instances])

    async def local(engine: ShardEngine) -> Any:
        return await engine.submit(body, engine)

    return await jm.route(job_id, stub, method, request, local)


async def _refresh(jm: Jobmgr, job_id: str, ranges: Any, stub: type, method: str,
                   request: Any) -> None:
    """Peloton's debug Refresh: the host managers' latest status of the
    runs (on a host) of these instances, applied as events, and the job's
    state derived again. Only what the hosts report is applied: a run they
    do not know is left to the shard's reconcile rounds, which see it twice
    before they act."""

    async def body(engine: ShardEngine) -> Any:
        job = engine.jobs.get(job_id)
        if job is None:
            if await jm.storage.get_job(job_id) is None:
                raise NotFound(f"job {job_id} does not exist")
            return None  # an ended job: nothing runs, nothing to refresh
        tasks = [job.tasks[i] for i in _ranges(ranges, job.config.instanceCount)]
        _, known, _ = await engine.ask_reconcile(full=True, among=tasks)

        async def apply() -> None:
            if known:
                await engine.on_events(known)
            if job.refresh_state(time.time()):
                await engine.persist([job], [])
        await engine.submit(apply)
        return None

    await jm.route(job_id, stub, method, request, body)


def _refuse_secrets(request: Any) -> None:
    """A create or update's ``secrets``: no host backend hands a task a
    secret, so a request that carries some is refused, never half-done."""
    if request.secrets:
        raise InvalidArgument("not supported yet: no host backend hands a task a secret; give "
                              "an environment variable its value",
                              field="secrets")


# Shapes of job whose pool check ``JobHandler`` keeps (all are dropped when
# more come: a cluster's jobs come in few shapes).
CHECKED_SHAPES = 1024


def _job_shape(config: job_pb2.JobConfig) -> tuple[Any, ...] | None:
    """What of ``config`` the pool check reads (``JobHandler._check_fits``):
    the pool, each instance's resources, revocable and preemption settings
    (every instance's the default's when none is overridden; None when
    some is), the gang, and the instances checked (those of the gang and
    one after it)."""
    if config.instanceConfig:
        return None
    task, sla = config.defaultConfig, config.sla
    r = task.resource
    return (config.respoolID.value, r.cpuLimit, r.memLimitMb, r.diskLimitMb, r.gpuLimit,
            task.revocable, task.preemptionPolicy.type, sla.revocable, sla.preemptible,
            sla.minimumRunningInstances,
            min(config.instanceCount, max(1, sla.minimumRunningInstances) + 1))


class JobHandler:
    """peloton.api.v0.job.JobManager"""

    def __init__(self, jm: Jobmgr) -> None:
        self.jm = jm
        # What ``_check_pool`` found for a shape of job (``_job_shape``),
        # with the pool's answer and the largest host it was checked
        # against: it holds while those are the same objects. A stream of
        # like jobs (a pipeline's, a load's) was checked anew for each one,
        # ~5% of a jobmgr's cpu in the single-task load.
        self._checked: dict[tuple[Any, ...], tuple[respool_pb2.ResourcePoolInfo, Resources,
                                                   InvalidArgument | None]] = {}

    async def _check_pool(self, config: job_pb2.JobConfig) -> None:
        pool_id = config.respoolID.value
        if not pool_id:
            raise InvalidArgument("the job needs a resource pool", field="respoolID")
        info = await self.jm.pool_info(pool_id)
        if info.children or not info.parent.value:
            raise InvalidArgument(f"resource pool {info.path.value} is not a leaf; submit jobs "
                                  "to a leaf pool", field="respoolID")
        largest, _ = await self.jm.capacity()
        shape = _job_shape(config)
        if shape is not None:
            hit = self._checked.get(shape)
            if hit is not None and hit[0] is info and hit[1] is largest:
                if hit[2] is not None:
                    raise copy.copy(hit[2])
                return
        found: InvalidArgument | None = None
        try:
            self._check_fits(config, info, largest)
        except InvalidArgument as error:
            found = error
        if shape is not None:
            if len(self._checked) >= CHECKED_SHAPES:
                self._checked.clear()
            self._checked[shape] = (info, largest, copy.copy(found))
        if found is not None:
            raise found

    @staticmethod
    def _check_fits(config: job_pb2.JobConfig, info: respool_pb2.ResourcePoolInfo,
                    largest: Resources) -> None:
        """Whether each instance of ``config`` could ever run in pool
        ``info`` (its limit, its reservation for what cannot be preempted,
        its slack limit for what is revocable) and on the largest host."""
        limits = {r.kind: r.limit for r in info.config.resources}
        reserved = {r.kind: r.reservation for r in info.config.resources}
        slack_pct = (info.config.slackLimit.maxPercent if info.config.HasField("slackLimit")
                     else 20.0)
        gang = max(1, config.sla.minimumRunningInstances)
        from peloton.spec.job import merged_task_config
        for i in range(config.instanceCount):
            cfg = merged_task_config(config, i)
            r = cfg.resource
            need = Resources(r.cpuLimit, r.memLimitMb, r.diskLimitMb, r.gpuLimit)
            scale = gang if i < gang else 1
            as_gang = f" (as a gang of {gang})" if scale > 1 else ""
            revocable = config.sla.revocable or cfg.revocable
            for kind, amount in zip(("cpu", "memory", "disk", "gpu"), need.scale(scale),
                                    strict=True):
                if revocable and kind != "cpu":
                    # Revocable tasks take memory, disk and gpu from the
                    # pool's reservation, up to its slack limit (their cpu
                    # is slack, which no pool limit bounds).
                    allowed = reserved.get(kind, 0.0) * slack_pct / 100.0
                    if amount > allowed + 1e-9:
                        raise InvalidArgument(
                            f"instance {i} is revocable and needs {kind} {amount:g}"
                            f"{as_gang}, more "
                            f"than pool {info.path.value} lets revocable tasks use ({allowed:g}: "
                            f"its slackLimit {slack_pct:g}% of its {kind} reservation "
                            f"{reserved.get(kind, 0.0):g}); it could never run",
                            field="sla.revocable")
                if revocable and kind == "cpu":
                    continue
                if kind in limits and amount > limits[kind] + 1e-9:
                    raise InvalidArgument(
                        f"instance {i} needs {kind} {amount:g}"
                        f"{as_gang}, more than "
                        f"the limit {limits[kind]:g} of pool {info.path.value}; it could never "
                        "run", field="defaultconfig.resource")
            if not is_preemptible(config, cfg) and not (config.sla.revocable or cfg.revocable):
                # Non-preemptible work runs only within the pool's reservation
                # (nothing could take elastic capacity back from it): a gang
                # that does not fit would wait for ever.
                for kind, amount in zip(("cpu", "memory", "disk", "gpu"), need.scale(scale),
                                        strict=True):
                    if amount > reserved.get(kind, 0.0) + 1e-9:
                        raise InvalidArgument(
                            f"instance {i} is non-preemptible and needs {kind} {amount:g}"
                            f"{as_gang}, "
                            f"more than pool {info.path.value} reserves "
                            f"({reserved.get(kind, 0.0):g}); non-preemptible tasks run only "
                            f"within their pool's reservation: reserve {kind} in the pool, or "
                            "make the job preemptible (sla.preemptible: true)",
                            field="sla.preemptible")
            if largest != Resources() and not need.fits_in(largest):
                raise InvalidArgument(
                    f"instance {i} needs more than the largest host has: "
                    + ", ".join(need.exceeding(largest)), field="defaultconfig.resource")
            if i > 0 and not config.instanceConfig and i >= gang:
                break  # every other instance is the same

    async def create_on(self, engine: ShardEngine, job_id: str, config: job_pb2.JobConfig, *,
                        workflow: JobUpdate | None = None) -> None:
        """Create the job on its shard's owner (``engine``); a repeat of the
        same create (its reply was lost) changes nothing. With ``workflow``
        its instances start in that workflow's batches (v1alpha create)."""
        validate_job_config(config, capabilities=self.jm.capabilities)
        job_config = config
        if config.type == job_pb2.DAEMON:
            hosts = [name for name, capacity, labels in await self.jm.up_hosts()
                     if daemon_fits(config, name, capacity, labels)]
            if not hosts:
                raise FailedPrecondition("no host that is up fits the daemon job's task "
                                         "(its resources and HOST constraint)",
                                         field="defaultConfig")
            job_config = with_daemon_hosts(config, hosts)
        await self._check_pool(job_config)
        # A large create waits while its pool's placement backlog is long
        # (peloton.jobmgr.intake); a workflow's tasks start in its batches.
        async with self.jm.intake.admit(job_config.respoolID.value,
                                        0 if workflow else job_config.instanceCount):
            job = Job.new(job_id, engine.shard, job_config, time.time())
            if workflow is not None:
                for t in job.tasks:
                    t.held, t.message = True, HELD_MESSAGE % workflow.id
            try:
                # A small job's create goes ahead of its shard's queued work
                # (a bulk load's creates, events and launches): its lane.
                created = await engine.submit(engine.create, job,
                                              urgent=len(job.tasks) <= EXPRESS)
            except AlreadyExists:
                # A client that retries a create (its reply was lost) with the
                # same id and config gets the same answer: create is idempotent.
                existing = await self.jm.storage.get_job(job_id)
                if existing is not None and _as_submitted(existing.config) == \
                        config.SerializeToString(deterministic=True):
                    return
                raise AlreadyExists(f"job {job_id} already exists with another config") from None
            if created:
                if workflow is not None:
                    await engine.submit(engine.start_create_workflow, job, workflow)
                    return
                # Written PENDING: that is durable (a new owner enqueues PENDING
                # tasks). The batcher hands them to resmgr with other creates'.
                self.jm.gangs.add(engine, job.respool_id,
                                  [t for t in job.tasks if t.state == TaskState.PENDING])

    async def Create(self, request: job_pb2.CreateRequest) -> Any:
        config = request.config
        if not request.HasField("config"):
            raise InvalidArgument("a job config is required", field="config")
        _refuse_secrets(request)
        job_id = request.id.value or new_job_id()
        if not is_job_id(job_id):
            raise InvalidArgument(f"{job_id!r} is not a job id (a UUID)", field="id")
        # Forwarded with the id chosen here (the owner must not choose another).
        forwarded = request if request.id.value else job_pb2.CreateRequest(
            id=peloton_pb2.JobID(value=job_id), config=config)

        async def local(engine: ShardEngine) -> Any:
            await self.create_on(engine, job_id, config)
            return job_pb2.CreateResponse(jobId=peloton_pb2.JobID(value=job_id))

        return await self.jm.route(job_id, job_grpc.JobManagerStub, "Create", forwarded, local)

    async def Get(self, request: job_pb2.GetRequest) -> Any:
        job_id = _job_id(request.id)
        row = await self.jm.storage.get_job(job_id)
        if row is None:
            raise NotFound(f"job {job_id} does not exist")
        info = job_pb2.JobInfo(id=peloton_pb2.JobID(value=job_id))
        info.config.ParseFromString(row.config)
        info.runtime.ParseFromString(row.runtime)
        return job_pb2.GetResponse(jobInfo=info)

    async def Query(self, request: job_pb2.QueryRequest) -> Any:
        spec = request.spec
        offset, page = _page(spec.pagination, "spec.pagination", default_limit=100)
        limit = 100 if page is None else page
        order = [(JOB_ORDER[key], desc)
                 for key, desc in _order(spec.pagination, "spec.pagination", JOB_ORDER)]
        respool_id = request.respoolID.value
        if spec.respool.value:
            found = await self.jm.respool.call("LookupResourcePoolID", respool_pb2.LookupRequest(
                path=spec.respool))
            if respool_id and respool_id != found.id.value:
                raise InvalidArgument(f"respoolID {respool_id} is not the pool at "
                                      f"{spec.respool.value}", field="spec.respool")
            respool_id = found.id.value
        rows, total = await self.jm.storage.query_jobs(
            states=[int(s) for s in spec.jobStates], respool_id=respool_id or None,
            owner=spec.owner or None, name=spec.name or None,
            labels=[(label.key, label.value) for label in spec.labels],
            keywords=list(spec.keywords), created=_time_range(spec, "creationTimeRange"),
            completed=_time_range(spec, "completionTimeRange"), order_by=order,
            offset=offset, limit=limit)
        reply = job_pb2.QueryResponse(spec=spec, pagination=query_pb2.Pagination(
            offset=offset, limit=limit, total=total))
        for n, row in enumerate(rows):
            if n and not n % SUMMARIES_A_STEP:
                # A monitor's query of every active job (20,000 in the
                # single-task load, ~9 us each) held this jobmgr's loop
                # 100-170 ms at once: every shard's creates and events here
                # waited as long.
                await trio.lowlevel.checkpoint()
            # Parsed in place, not built and copied in: a monitor's query of
            # every active job answers thousands of these a second.
            summary = reply.results.add()
            summary.id.value = row.job_id
            summary.runtime.ParseFromString(row.runtime)
            config = job_pb2.JobConfig.FromString(row.config)
            summary.name, summary.type, summary.owner = config.name, config.type, config.owner
            summary.owningTeam, summary.instanceCount = config.owningTeam, config.instanceCount
            summary.labels.extend(config.labels)
            summary.respoolID.CopyFrom(config.respoolID)
            summary.sla.CopyFrom(config.sla)
            if not request.summaryOnly:
                # As Peloton: a query's job configs leave out instanceConfig.
                config.ClearField("instanceConfig")
                reply.records.add(id=peloton_pb2.JobID(value=row.job_id), config=config,
                                  runtime=summary.runtime)
        return reply

    async def delete_on(self, engine: ShardEngine, job_id: str) -> None:
        """Delete the job (in the writer of its shard's owner): what runs is
        killed, and the job is forgotten."""
        job = engine.jobs.get(job_id)
        if job is None:
            if await self.jm.storage.get_job(job_id) is None:
                raise NotFound(f"job {job_id} does not exist")
            await engine.persist(delete=[job_id])
            return
        await engine.delete(job)

    async def Delete(self, request: job_pb2.DeleteRequest) -> Any:
        job_id = _job_id(request.id)

        async def body(engine: ShardEngine) -> Any:
            await self.delete_on(engine, job_id)
            return job_pb2.DeleteResponse()

        async def local(engine: ShardEngine) -> Any:
            return await engine.submit(body, engine)

        return await self.jm.route(job_id, job_grpc.JobManagerStub, "Delete", request, local)

    async def Update(self, request: job_pb2.UpdateRequest) -> Any:
        job_id = _job_id(request.id)
        _refuse_secrets(request)

        async def body(engine: ShardEngine) -> Any:
            job = await _held_or_loaded(self.jm, engine, job_id)
            new = request.config
            if job.config.type == job_pb2.DAEMON:
                raise InvalidArgument("a daemon job's instances follow the hosts (one on each "
                                      "that fits); it takes no update", field="config")
            validate_job_config(new, capabilities=self.jm.capabilities)
            old = job.config
            for name in ("name", "owningTeam", "type"):
                if getattr(new, name) != getattr(old, name):
                    raise InvalidArgument(f"{name} of a batch job cannot change", field=name)
            if new.respoolID.value and new.respoolID.value != old.respoolID.value:
                raise InvalidArgument("respoolID of a job cannot change", field="respoolID")
            if new.defaultConfig != old.defaultConfig:
                raise InvalidArgument("defaultConfig of a batch job cannot change; only "
                                      "instances can be added", field="defaultConfig")
            if new.instanceCount < old.instanceCount:
                raise InvalidArgument(f"instanceCount can only grow ({old.instanceCount} -> "
                                      f"{new.instanceCount})", field="instanceCount")
            for i, cfg in old.instanceConfig.items():
                if new.instanceConfig.get(i) != cfg:
                    raise InvalidArgument(f"instance {i}'s config cannot change",
                                          field=f"instanceConfig.{i}")
            new.respoolID.value = old.respoolID.value
            added = await engine.add_instances(job, new)
            return job_pb2.UpdateResponse(id=request.id,
                                          message=f"added {len(added)} instance(s)")

        async def local(engine: ShardEngine) -> Any:
            return await engine.submit(body, engine)

        return await self.jm.route(job_id, job_grpc.JobManagerStub, "Update", request, local)

    async def _act(self, request: Any, method: str, config: str,
                   act: Callable[[ShardEngine, Job, list[Task]], Awaitable[Any]]) -> Any:
        """Restart, Start and Stop of a job's instances (all when no ranges):
        the task service's actions, checked against ``resourceVersion``."""
        job_id = _job_id(request.id)
        if getattr(request, config).batchSize:
            raise InvalidArgument(
                "doing it in batches is not supported yet (a service's restart already rolls "
                "within sla.maximumUnavailableInstances); leave it 0",
                field=f"{config}.batchSize")

        async def checked(engine: ShardEngine, job: Job, tasks: list[Task]) -> Any:
            if request.resourceVersion and request.resourceVersion != job.config_version:
                # (not Aborted: that is the shard fence's, which route retries)
                raise FailedPrecondition(
                    f"job {job_id} is at version {job.config_version}, not "
                    f"{request.resourceVersion}; read it again", field="resourceVersion")
            await act(engine, job, tasks)
            return getattr(job_pb2, f"{method}Response")(resourceVersion=job.config_version)

        return await _on_owner(self.jm, job_id, request.ranges, job_grpc.JobManagerStub,
                               method, request, checked)

    async def Restart(self, request: job_pb2.RestartRequest) -> Any:
        return await self._act(request, "Restart", "restartConfig", _restart)

    async def Start(self, request: job_pb2.StartRequest) -> Any:
        return await self._act(request, "Start", "startConfig", _start)

    async def Stop(self, request: job_pb2.StopRequest) -> Any:
        return await self._act(request, "Stop", "stopConfig", _stop)

    async def Refresh(self, request: job_pb2.RefreshRequest) -> Any:
        await _refresh(self.jm, _job_id(request.id), (), job_grpc.JobManagerStub, "Refresh",
                       request)
        return job_pb2.RefreshResponse()

    async def GetCache(self, request: job_pb2.GetCacheRequest) -> Any:
        job_id = _job_id(request.id)

        async def local(engine: ShardEngine) -> Any:
            job = _cached(engine, job_id)
            return job_pb2.GetCacheResponse(config=job.config, runtime=job.runtime())

        return await self.jm.route(job_id, job_grpc.JobManagerStub, "GetCache", request, local)

    async def GetActiveJobs(self, request: job_pb2.GetActiveJobsRequest) -> Any:
        active = [int(s) for s in job_pb2.JobState.values()
                  if JobState(s) not in TERMINAL_JOB_STATES]
        rows, _ = await self.jm.storage.query_jobs(states=active, limit=ACTIVE_JOBS_LIMIT)
        return job_pb2.GetActiveJobsResponse(
            ids=[peloton_pb2.JobID(value=row.job_id) for row in rows])


class TaskHandler:
    """peloton.api.v0.task.TaskManager"""

    def __init__(self, jm: Jobmgr) -> None:
        self.jm = jm

    async def _job_row(self, job_id: str) -> Any:
        row = await self.jm.storage.get_job(job_id)
        if row is None:
            raise NotFound(f"job {job_id} does not exist")
        return row

    def _info(self, job_id: str, config: job_pb2.JobConfig, row: Any) -> task_pb2.TaskInfo:
        from peloton.spec.job import merged_task_config
        merged = merged_task_config(config, row.instance_id)
        merged.name = merged.name or row.name
        return task_pb2.TaskInfo(instanceId=row.instance_id, config=merged,
                                 runtime=task_pb2.RuntimeInfo.FromString(row.runtime),
                                 jobId=peloton_pb2.JobID(value=job_id))

    async def Get(self, request: task_pb2.GetRequest) -> Any:
        job_id = _job_id(request.jobId)
        job = await self._job_row(job_id)
        config = job_pb2.JobConfig.FromString(job.config)
        if request.instanceId >= config.instanceCount:
            raise InstanceOutOfRange(job_id, config.instanceCount, request.instanceId)
        row = await self.jm.storage.get_task(job_id, request.instanceId)
        if row is None:
            raise NotFound(f"task {job_id}-{request.instanceId} does not exist")
        info = self._info(job_id, config, row)
        await self._say_why_waiting([info])
        reply = task_pb2.GetResponse(result=info)
        return reply

    async def List(self, request: task_pb2.ListRequest) -> Any:
        job_id = _job_id(request.jobId)
        job = await self._job_row(job_id)
        config = job_pb2.JobConfig.FromString(job.config)
        r = request.range
        rows, _ = await self.jm.storage.list_tasks(
            job_id, instance_from=getattr(r, "from"), instance_to=r.to or None)
        infos = [self._info(job_id, config, row) for row in rows]
        await self._say_why_waiting(infos)
        reply = task_pb2.ListResponse()
        for info in infos:
            reply.result.value[info.instanceId].CopyFrom(info)
        return reply

    async def Query(self, request: task_pb2.QueryRequest) -> Any:
        job_id = _job_id(request.jobId)
        job = await self._job_row(job_id)
        config = job_pb2.JobConfig.FromString(job.config)
        spec = request.spec
        offset, limit = _page(spec.pagination, "spec.pagination", default_limit=None)
        order = _order(spec.pagination, "spec.pagination", TASK_ORDER)
        filters = dict(states=[int(s) for s in spec.taskStates], names=list(spec.names),
                       hosts=list(spec.hosts))
        if not order:  # instance order: the store pages
            rows, total = await self.jm.storage.list_tasks(job_id, offset=offset, limit=limit,
                                                           **filters)  # type: ignore[arg-type]
            infos = [self._info(job_id, config, r) for r in rows]
        else:  # ordered by what the runtimes hold: all of the job's matches, then a page
            rows, total = await self.jm.storage.list_tasks(job_id, **filters)  # type: ignore[arg-type]
            infos = [self._info(job_id, config, r) for r in rows]
            for key, desc in reversed(order):  # stable sorts: the first key decides last
                infos.sort(key=TASK_ORDER[key], reverse=desc)
            infos = infos[offset:None if limit is None else offset + limit]
        await self._say_why_waiting(infos)
        return task_pb2.QueryResponse(records=infos, pagination=query_pb2.Pagination(
            offset=offset, limit=len(infos) if limit is None else limit, total=total))

    async def _say_why_waiting(self, infos: list[task_pb2.TaskInfo]) -> None:
        """Give PENDING tasks resmgr's reason as their message (a read: nothing
        is written). Best effort: without resmgr the stored message stays."""
        waiting = {i.runtime.mesosTaskId.value: i for i in infos
                   if i.runtime.state == task_pb2.PENDING}
        ids = list(waiting)[:WAIT_REASONS_LIMIT]
        if not ids:
            return
        try:
            reply = await self.jm.resmgr.call("GetWaitReasons", rpb.GetWaitReasonsRequest(
                mesosTaskIds=ids), timeout=2.0)
        except PelotonError as error:
            log.info("why tasks wait: %s", error)
            return
        for mid, why in reply.reasons.items():
            info = waiting[mid]
            stored = info.runtime.message
            # "waiting for admission and placement (retry 1 of 3)": keep the note.
            note = stored[stored.index("("):] if stored.endswith(")") and "(" in stored else ""
            info.runtime.message = f"{why} {note}" if note else why

    async def _on_owner(self, request: Any, method: str,
                        act: Callable[[ShardEngine, Job, list[Task]], Awaitable[Any]]) -> Any:
        return await _on_owner(self.jm, _job_id(request.jobId), request.ranges,
                               task_grpc.TaskManagerStub, method, request, act)

    async def Stop(self, request: task_pb2.StopRequest) -> Any:
        async def act(engine: ShardEngine, job: Job, tasks: list[Task]) -> Any:
            await _stop(engine, job, tasks)
            return task_pb2.StopResponse(stoppedInstanceIds=[t.instance for t in tasks])
        return await self._on_owner(request, "Stop", act)

    async def Start(self, request: task_pb2.StartRequest) -> Any:
        async def act(engine: ShardEngine, job: Job, tasks: list[Task]) -> Any:
            return task_pb2.StartResponse(startedInstanceIds=await _start(engine, job, tasks))
        return await self._on_owner(request, "Start", act)

    async def Restart(self, request: task_pb2.RestartRequest) -> Any:
        async def act(engine: ShardEngine, job: Job, tasks: list[Task]) -> Any:
            await _restart(engine, job, tasks)
            return task_pb2.RestartResponse()
        return await self._on_owner(request, "Restart", act)

    async def Refresh(self, request: task_pb2.RefreshRequest) -> Any:
        ranges = [request.range] if request.HasField("range") else []
        await _refresh(self.jm, _job_id(request.jobId), ranges, task_grpc.TaskManagerStub,
                       "Refresh", request)
        return task_pb2.RefreshResponse()

    async def GetCache(self, request: task_pb2.GetCacheRequest) -> Any:
        job_id = _job_id(request.jobId)

        async def local(engine: ShardEngine) -> Any:
            job = _cached(engine, job_id)
            if request.instanceId >= len(job.tasks):
                raise InstanceOutOfRange(job_id, len(job.tasks), request.instanceId)
            return task_pb2.GetCacheResponse(
                runtime=job.tasks[request.instanceId].runtime(),
                labels=job.task_config(request.instanceId).labels)

        return await self.jm.route(job_id, task_grpc.TaskManagerStub, "GetCache", request,
                                   local)

    async def GetPodEvents(self, request: task_pb2.GetPodEventsRequest) -> Any:
        """The state changes of an instance's runs, newest first: of the run
        ``runId`` names, or of the last ``limit`` runs (10 when 0), as
        Peloton answers."""
        job_id = _job_id(request.jobId)
        job = await self._job_row(job_id)
        if request.instanceId >= job.instance_count:
            raise InstanceOutOfRange(job_id, job.instance_count, request.instanceId)
        if request.runId:
            prefix = f"{job_id}-{request.instanceId}-"
            run_text = request.runId.removeprefix(prefix)
            if not request.runId.startswith(prefix) or not run_text.isdigit():
                raise InvalidArgument(f"{request.runId!r} is not a run of {prefix[:-1]} "
                                      f"({prefix}<run>)", field="runId")
            last = first = int(run_text)
        else:
            row = await self.jm.storage.get_task(job_id, request.instanceId)
            last = row.run_id if row is not None else 0
            first = max(1, last - (request.limit or 10) + 1)
        events = await self.jm.storage.task_events(job_id, request.instanceId,
                                                   limit=POD_EVENTS_LIMIT, runs=(first, last))
        reply = task_pb2.GetPodEventsResponse()
        for e in events:
            reply.result.add(
                taskId=mesos_pb2.TaskID(value=mesos_task_id(job_id, e.instance_id, e.run_id)),
                prevTaskId=mesos_pb2.TaskID(
                    value=mesos_task_id(job_id, e.instance_id, e.run_id - 1)
                    if e.run_id > 1 else ""),
                actualState=TaskState(e.state).name, timestamp=rfc3339(e.timestamp),
                hostname=e.host, message=e.message)
        return reply

    async def DeletePodEvents(self, request: task_pb2.DeletePodEventsRequest) -> Any:
        """Delete an instance's events of runs up to and including ``runId``."""
        job_id = _job_id(request.jobId)

        async def local(engine: ShardEngine) -> Any:
            await self.jm.storage.delete_task_events(
                engine.shard, engine.epoch, job_id, request.instanceId,
                up_to_run=request.runId)
            return task_pb2.DeletePodEventsResponse()

        return await self.jm.route(job_id, task_grpc.TaskManagerStub, "DeletePodEvents",
                                   request, local)

    async def _sandbox(self, job_id: str, instance: int, run_id: str, path: str,
                       offset: int, length: int) -> hpb.ReadSandboxFileResponse:
        job = await self._job_row(job_id)
        config = job_pb2.JobConfig.FromString(job.config)
        if instance >= config.instanceCount:
            raise InstanceOutOfRange(job_id, config.instanceCount, instance)
        row = await self.jm.storage.get_task(job_id, instance)
        if row is None:
            raise NotFound(f"task {job_id}-{instance} does not exist")
        runtime = task_pb2.RuntimeInfo.FromString(row.runtime)
        mesos_id = run_id or runtime.mesosTaskId.value
        if not runtime.host and not run_id:
            raise FailedPrecondition(f"task {job_id}-{instance} has not been launched yet "
                                     f"(state {TaskState(row.state).name})")
        last: PelotonError = NotFound(f"no host manager knows the sandbox of {mesos_id}")
        for _, client in self.jm.hostmgrs():
            try:
                return await client.call("ReadSandboxFile", hpb.ReadSandboxFileRequest(
                    mesosTaskId=mesos_id, path=path, offset=offset, length=length))
            except NotFound as error:
                last = error
        raise last

    async def BrowseSandbox(self, request: task_pb2.BrowseSandboxRequest) -> Any:
        """The run's sandbox files, and where to fetch them as from a Mesos
        agent (``http://hostname:port/files/download?path=<path>``): the
        host manager that ran it serves them (its ``files:`` address); the
        paths are absolute, as an agent's are. Without such a server, the
        run's host and the paths within the sandbox."""
        reply = await self._sandbox(_job_id(request.jobId), request.instanceId, request.taskId,
                                    "", 0, 0)
        if not (reply.filesAddress and reply.sandbox):
            return task_pb2.BrowseSandboxResponse(hostname=reply.hostname, paths=reply.paths)
        host, _, port = reply.filesAddress.rpartition(":")
        return task_pb2.BrowseSandboxResponse(
            hostname=host, port=port,
            paths=[f"{reply.sandbox.rstrip('/')}/{path}" for path in reply.paths])

    async def ReadSandboxFile(self, request: task_pb2.ReadSandboxFileRequest) -> Any:
        reply = await self._sandbox(_job_id(request.jobId), request.instanceId, request.taskId,
                                    request.path or "stdout", request.offset,
                                    request.length or 1 << 20)
        return task_pb2.ReadSandboxFileResponse(data=reply.data, size=reply.size,
                                                taskId=request.taskId)


# What an update may change of a job's config; the rest must stay as it is.
UPDATABLE = frozenset({"defaultConfig", "instanceConfig", "instanceCount", "labels",
                       "description", "ldapGroups", "owningTeam", "changeLog"})
# UpdateConfig fields that no update does yet.
UPDATE_REFUSED = {
    "stopBeforeUpdate": "stopping every instance before the update",
    "inPlace": "updating in place (holding each instance's host for it)",
    "startTasks": "starting stopped instances with the update",
}


async def pause_update(engine: ShardEngine, job: Job, update: JobUpdate) -> None:
    if update.state != update_pb2.PAUSED:
        update.prior, update.state = update.state, int(update_pb2.PAUSED)
    await engine.save_update(job, update)


async def resume_update(engine: ShardEngine, job: Job, update: JobUpdate) -> None:
    if update.state == update_pb2.PAUSED:
        update.state = update.prior or int(update_pb2.ROLLING_FORWARD)
    await engine.save_update(job, update)
    await engine.run_updates([job.id])


async def abort_update(engine: ShardEngine, job: Job, update: JobUpdate) -> None:
    update.state = int(update_pb2.ABORTED)
    await engine.save_update(job, update)


async def control_on(engine: ShardEngine, job_id: str, update_id: str | None, request: Any,
                     change: Callable[[ShardEngine, Job, JobUpdate], Awaitable[None]],
                     check: Callable[[Job], None] | None = None, stored: int = 0) -> None:
    """Pause, resume, abort or roll back the job's running update (the one
    ``update_id`` names, when given), in the writer of its shard's owner:
    the job's workflow version moves on. ``check`` sees the job first."""
    update, job = engine.updates.get(job_id), engine.jobs.get(job_id)
    if job is not None and check is not None:
        check(job)
    if update is None or job is None or (update_id is not None and update.id != update_id):
        if update_id:
            raise FailedPrecondition(f"update {update_id} is "
                                     f"{update_pb2.State.Name(stored)}, not running",  # type: ignore[arg-type]
                                     field="updateId")
        raise FailedPrecondition(f"job {job_id} has no workflow running", field="job_id")
    if ("opaque_data" in request.DESCRIPTOR.fields_by_name
            and request.HasField("opaque_data")):
        update.opaque = request.opaque_data.data
    await change(engine, job, update)
    job.workflow_version += 1
    await engine.persist([job])


class UpdateHandler:
    """peloton.api.v0.update.svc.UpdateService: updates of service jobs."""

    def __init__(self, jm: Jobmgr) -> None:
        self.jm = jm

    async def _row(self, update_id: peloton_pb2.UpdateID) -> UpdateRow:
        if not update_id.value:
            raise InvalidArgument("an update id is required", field="updateId")
        row = await self.jm.storage.get_update(update_id.value)
        if row is None:
            raise NotFound(f"update {update_id.value} does not exist")
        return row

    async def begin(self, engine: ShardEngine, job_id: str, new: job_pb2.JobConfig,
                    cfg: update_pb2.UpdateConfig, update_id: str, opaque: str, *,
                    restart: frozenset[int] | None = None,
                    check: Callable[[Job], None] | None = None) -> None:
        """Start rolling ``new`` out over the job (in the writer of its
        shard's owner): an update, or with ``restart`` a rolling restart of
        those instances. ``check`` sees the job first (a version check)."""
        job = engine.jobs.get(job_id)
        if job is None:
            raise NotFound(f"job {job_id} does not exist or has ended")
        if check is not None:
            check(job)
        if job.config.type != job_pb2.SERVICE:
            raise InvalidArgument("updates roll out service jobs; a batch job adds "
                                  "instances with JobManager.Update", field="jobId")
        running = engine.updates.get(job_id)
        if running is not None:
            raise FailedPrecondition(f"job {job_id} has update {running.id} "
                                     f"{update_pb2.State.Name(running.state)}; abort it "
                                     "first", field="jobId")
        new.respoolID.CopyFrom(new.respoolID if new.respoolID.value
                               else job.config.respoolID)
        validate_job_config(new, capabilities=self.jm.capabilities)
        for field in job_pb2.JobConfig.DESCRIPTOR.fields:
            if field.name not in UPDATABLE and getattr(new, field.name) != getattr(
                    job.config, field.name):
                raise InvalidArgument(
                    "an update changes the task configs (defaultConfig, instanceConfig), "
                    "the instance count and the job's labels, description and owners; "
                    "this cannot change in an update",
                    field=f"jobConfig.{field.name}")
        now = time.time()
        update = JobUpdate(update_id, job_id, int(update_pb2.PAUSED if cfg.startPaused
                                                  else update_pb2.ROLLING_FORWARD),
                           cfg, 0, 0, now, now,
                           prior=int(update_pb2.ROLLING_FORWARD),
                           opaque=opaque)
        update.restart = restart
        await engine.start_update(job, new, update)

    async def CreateUpdate(self, request: update_svc_pb2.CreateUpdateRequest) -> Any:
        job_id = _job_id(request.jobId)
        cfg = request.updateConfig
        for name, what in UPDATE_REFUSED.items():
            if getattr(cfg, name):
                raise InvalidArgument(f"not supported yet: {what}", field=f"updateConfig.{name}")
        if not 0 <= cfg.batchPercentage <= 100:
            raise InvalidArgument(f"must be a percentage, got {cfg.batchPercentage:g}",
                                  field="updateConfig.batchPercentage")
        if not request.HasField("jobConfig"):
            raise InvalidArgument("the job's new config is required", field="jobConfig")
        new = job_pb2.JobConfig()
        new.CopyFrom(request.jobConfig)
        update_id = str(uuid.uuid4())

        async def body(engine: ShardEngine) -> Any:
            await self.begin(engine, job_id, new, cfg, update_id, request.opaque_data.data)
            return update_svc_pb2.CreateUpdateResponse(
                updateID=peloton_pb2.UpdateID(value=update_id))

        async def local(engine: ShardEngine) -> Any:
            return await engine.submit(body, engine)

        return await self.jm.route(job_id, update_svc_grpc.UpdateServiceStub, "CreateUpdate",
                                   request, local)

    async def GetUpdate(self, request: update_svc_pb2.GetUpdateRequest) -> Any:
        row = await self._row(request.updateId)
        job = await self.jm.storage.get_job(row.job_id)
        update = JobUpdate.from_row(row)
        return update_svc_pb2.GetUpdateResponse(updateInfo=update.info(
            job.instance_count if job else 0, status_only=request.statusOnly))

    async def ListUpdates(self, request: update_svc_pb2.ListUpdatesRequest) -> Any:
        job_id = _job_id(request.jobID)
        job = await self.jm.storage.get_job(job_id)
        if job is None:
            raise NotFound(f"job {job_id} does not exist")
        if request.limit < 0:
            raise InvalidArgument(f"must not be negative, got {request.limit}", field="limit")
        rows = await self.jm.storage.list_updates(job_id, limit=request.limit or 100)
        return update_svc_pb2.ListUpdatesResponse(updateInfo=[
            JobUpdate.from_row(r).info(job.instance_count) for r in rows])

    async def _control(self, request: Any, method: str,
                       change: Callable[[ShardEngine, Job, JobUpdate], Awaitable[None]]) -> Any:
        row = await self._row(request.updateId)

        async def body(engine: ShardEngine) -> Any:
            await control_on(engine, row.job_id, row.update_id, request, change,
                             stored=row.state)
            return getattr(update_svc_pb2, f"{method}Response")()

        async def local(engine: ShardEngine) -> Any:
            return await engine.submit(body, engine)

        return await self.jm.route(row.job_id, update_svc_grpc.UpdateServiceStub, method,
                                   request, local)

    async def PauseUpdate(self, request: update_svc_pb2.PauseUpdateRequest) -> Any:
        return await self._control(request, "PauseUpdate", pause_update)

    async def ResumeUpdate(self, request: update_svc_pb2.ResumeUpdateRequest) -> Any:
        return await self._control(request, "ResumeUpdate", resume_update)

    async def AbortUpdate(self, request: update_svc_pb2.AbortUpdateRequest) -> Any:
        if request.softAbort:
            raise InvalidArgument("not supported yet: a soft abort; an abort stops the "
                                  "update where it is", field="softAbort")

        return await self._control(request, "AbortUpdate", abort_update)

    async def RollbackUpdate(self, request: update_svc_pb2.RollbackUpdateRequest) -> Any:
        async def rollback(engine: ShardEngine, job: Job, update: JobUpdate) -> None:
            if update.rolling_back:
                raise FailedPrecondition(f"update {update.id} is already rolling back",
                                         field="updateId")
            await engine.roll_back(job, update)
        return await self._control(request, "RollbackUpdate", rollback)

    async def GetUpdateCache(self, request: update_svc_pb2.GetUpdateCacheRequest) -> Any:
        row = await self._row(request.updateId)

        async def local(engine: ShardEngine) -> Any:
            update, job = engine.updates.get(row.job_id), engine.jobs.get(row.job_id)
            if update is None or job is None or update.id != row.update_id:
                raise NotFound(f"update {row.update_id} is not running, so not in the cache")
            target = update.to_version
            return update_svc_pb2.GetUpdateCacheResponse(
                jobId=peloton_pb2.JobID(value=job.id), state=update.state,  # type: ignore[arg-type]
                instancesTotal=[t.instance for t in job.tasks],
                instancesDone=sorted(update.done), instancesFailed=sorted(update.failed),
                instancesUpdated=[t.instance for t in job.tasks if t.desired == target],
                instancesCurrent=[t.instance for t in job.tasks if t.desired == target
                                  and t.instance not in update.done
                                  and t.instance not in update.failed])

        return await self.jm.route(row.job_id, update_svc_grpc.UpdateServiceStub,
                                   "GetUpdateCache", request, local)


class RespoolForwarder:
    """peloton.api.v0.respool.ResourceManager, forwarded to the resmgr leader."""

    def __init__(self, jm: Jobmgr) -> None:
        for name in ("CreateResourcePool", "GetResourcePool", "DeleteResourcePool",
                     "UpdateResourcePool", "LookupResourcePoolID", "Query"):
            setattr(self, name, self._forward(name))
        self.jm = jm

    def _forward(self, name: str) -> Callable[[Any], Awaitable[Any]]:
        async def call(request: Any) -> Any:
            return await self.jm.respool_call(name, request)
        return call


class JobService:
    """peloton.api.v0.job.svc.JobService: the JobManager's calls under their
    newer names (errors as gRPC status codes, as upstream's newer handlers
    answer), each the JobManager call it stands for."""

    def __init__(self, jobs: JobHandler) -> None:
        self.jobs = jobs

    async def CreateJob(self, request: job_svc_pb2.CreateJobRequest) -> Any:
        config = job_pb2.JobConfig()
        config.CopyFrom(request.config)
        if request.pool.value:
            # The pool by its path, as the newer API names it.
            found = await self.jobs.jm.respool_call(
                "LookupResourcePoolID", respool_pb2.LookupRequest(path=request.pool))
            if config.respoolID.value and config.respoolID.value != found.id.value:
                raise InvalidArgument(f"config.respoolID {config.respoolID.value} is not the "
                                      f"pool at {request.pool.value}", field="pool")
            config.respoolID.CopyFrom(found.id)
        reply = await self.jobs.Create(job_pb2.CreateRequest(
            id=request.id, config=config if request.HasField("config") else None,
            secrets=request.secrets))
        return job_svc_pb2.CreateJobResponse(jobId=reply.jobId)

    async def GetJob(self, request: job_svc_pb2.GetJobRequest) -> Any:
        reply = await self.jobs.Get(job_pb2.GetRequest(id=request.id))
        return job_svc_pb2.GetJobResponse(result=reply.jobInfo.config)

    async def QueryJobs(self, request: job_svc_pb2.QueryJobsRequest) -> Any:
        spec = job_pb2.QuerySpec()
        spec.CopyFrom(request.spec)
        if request.HasField("pagination"):
            spec.pagination.CopyFrom(request.pagination)
        reply = await self.jobs.Query(job_pb2.QueryRequest(spec=spec))
        return job_svc_pb2.QueryJobsResponse(records=reply.records,
                                             pagination=reply.pagination, spec=reply.spec)

    async def DeleteJob(self, request: job_svc_pb2.DeleteJobRequest) -> Any:
        await self.jobs.Delete(job_pb2.DeleteRequest(id=request.id))
        return job_svc_pb2.DeleteJobResponse()

    async def UpdateJob(self, request: job_svc_pb2.UpdateJobRequest) -> Any:
        await self.jobs.Update(job_pb2.UpdateRequest(id=request.id, config=request.config,
                                                     secrets=request.secrets))
        return job_svc_pb2.UpdateJobResponse()

    async def _act(self, method: str, config: str, request: Any) -> Any:
        """RestartJob, StartJob and StopJob: the JobManager's Restart, Start
        and Stop, whose requests have the same fields."""
        batch = getattr(request, config).batchSize
        reply = await getattr(self.jobs, method)(getattr(job_pb2, f"{method}Request")(
            id=request.id, ranges=request.ranges, resourceVersion=request.resourceVersion,
            **{config: getattr(job_pb2, f"{method}Config")(batchSize=batch)}))
        return getattr(job_svc_pb2, f"{method}JobResponse")(
            resourceVersion=reply.resourceVersion)

    async def RestartJob(self, request: job_svc_pb2.RestartJobRequest) -> Any:
        return await self._act("Restart", "restartConfig", request)

    async def StartJob(self, request: job_svc_pb2.StartJobRequest) -> Any:
        return await self._act("Start", "startConfig", request)

    async def StopJob(self, request: job_svc_pb2.StopJobRequest) -> Any:
        return await self._act("Stop", "stopConfig", request)

    async def RefreshJob(self, request: job_svc_pb2.RefreshJobRequest) -> Any:
        await self.jobs.Refresh(job_pb2.RefreshRequest(id=request.id))
        return job_svc_pb2.RefreshJobResponse()

    async def GetJobCache(self, request: job_svc_pb2.GetJobCacheRequest) -> Any:
        reply = await self.jobs.GetCache(job_pb2.GetCacheRequest(id=request.id))
        return job_svc_pb2.GetJobCacheResponse(config=reply.config, runtime=reply.runtime)


class TaskService:
    """peloton.api.v0.task.svc.TaskService: the TaskManager's calls under
    their newer names; errors as gRPC status codes, as upstream's newer
    handlers answer (a response's error field is raised again)."""

    def __init__(self, tasks: TaskHandler) -> None:
        self.tasks = tasks

    async def GetTask(self, request: task_svc_pb2.GetTaskRequest) -> Any:
        reply = await self.tasks.Get(task_pb2.GetRequest(jobId=request.jobId,
                                                         instanceId=request.instanceId))
        return task_svc_pb2.GetTaskResponse(result=reply.result, results=[reply.result])

    async def ListTasks(self, request: task_svc_pb2.ListTasksRequest) -> Any:
        reply = await self.tasks.List(task_pb2.ListRequest(jobId=request.jobId,
                                                           range=request.range))
        out = task_svc_pb2.ListTasksResponse()
        for instance, info in reply.result.value.items():
            out.tasks[instance].CopyFrom(info)
        return out

    async def StartTasks(self, request: task_svc_pb2.StartTasksRequest) -> Any:
        reply = await self.tasks.Start(task_pb2.StartRequest(jobId=request.jobId,
                                                             ranges=request.ranges))
        return task_svc_pb2.StartTasksResponse(started=reply.startedInstanceIds,
                                               failed=reply.invalidInstanceIds)

    async def StopTasks(self, request: task_svc_pb2.StopTasksRequest) -> Any:
        reply = await self.tasks.Stop(task_pb2.StopRequest(jobId=request.jobId,
                                                           ranges=request.ranges))
        return task_svc_pb2.StopTasksResponse(stopped=reply.stoppedInstanceIds,
                                              failed=reply.invalidInstanceIds)

    async def RestartTasks(self, request: task_svc_pb2.RestartTasksRequest) -> Any:
        job_id = _job_id(request.jobId)
        row = await self.tasks._job_row(job_id)
        await self.tasks.Restart(task_pb2.RestartRequest(jobId=request.jobId,
                                                         ranges=request.ranges))
        return task_svc_pb2.RestartTasksResponse(
            stopped=_ranges(request.ranges, row.instance_count))

    async def QueryTasks(self, request: task_svc_pb2.QueryTasksRequest) -> Any:
        spec = task_pb2.QuerySpec()
        spec.CopyFrom(request.spec)
        if request.HasField("pagination"):
            spec.pagination.CopyFrom(request.pagination)
        reply = await self.tasks.Query(task_pb2.QueryRequest(jobId=request.jobId, spec=spec))
        return task_svc_pb2.QueryTasksResponse(records=reply.records,
                                               pagination=reply.pagination)

    async def BrowseSandbox(self, request: task_svc_pb2.BrowseSandboxRequest) -> Any:
        reply = await self.tasks.BrowseSandbox(task_pb2.BrowseSandboxRequest(
            jobId=request.jobId, instanceId=request.instanceId, taskId=request.taskId))
        return task_svc_pb2.BrowseSandboxResponse(hostname=reply.hostname, port=reply.port,
                                                  paths=reply.paths)

    async def RefreshTasks(self, request: task_svc_pb2.RefreshTasksRequest) -> Any:
        await self.tasks.Refresh(task_pb2.RefreshRequest(jobId=request.jobId,
                                                         range=request.range))
        return task_svc_pb2.RefreshTasksResponse()

    async def GetTaskCache(self, request: task_svc_pb2.GetTaskCacheRequest) -> Any:
        reply = await self.tasks.GetCache(task_pb2.GetCacheRequest(
            jobId=request.jobId, instanceId=request.instanceId))
        return task_svc_pb2.GetTaskCacheResponse(runtime=reply.runtime)

    async def GetPodEvents(self, request: task_svc_pb2.GetPodEventsRequest) -> Any:
        reply = await self.tasks.GetPodEvents(task_pb2.GetPodEventsRequest(
            jobId=request.jobId, instanceId=request.instanceId, limit=request.limit))
        out = task_svc_pb2.GetPodEventsResponse()
        for e in reply.result:
            out.result.add(
                taskId=peloton_pb2.TaskID(value=e.taskId.value), actualState=e.actualState,
                goalState=e.goalState, timestamp=e.timestamp, hostname=e.hostname,
                message=e.message, reason=e.reason,
                prevTaskId=peloton_pb2.TaskID(value=e.prevTaskId.value))
        return out


class ResourcePoolService:
    """peloton.api.v0.respool.ResourcePoolService: the pool calls under their
    newer names (errors as gRPC status codes, as upstream's newer handlers
    answer), each the ResourceManager call it stands for."""

    def __init__(self, jm: Jobmgr) -> None:
        self.jm = jm

    async def _call(self, method: str, request: Any) -> Any:
        return await self.jm.respool_call(method, request)

    async def CreateResourcePool(self, request: respool_svc_pb2.CreateResourcePoolRequest
                                 ) -> Any:
        reply = await self._call("CreateResourcePool", respool_pb2.CreateRequest(
            id=request.id, config=request.config))
        return respool_svc_pb2.CreateResourcePoolResponse(id=reply.result)

    async def GetResourcePool(self, request: respool_svc_pb2.GetResourcePoolRequest) -> Any:
        reply = await self._call("GetResourcePool", respool_pb2.GetRequest(
            id=request.id, includeChildPools=request.includeChildPools))
        return respool_svc_pb2.GetResourcePoolResponse(resPool=reply.poolinfo,
                                                       childResPools=reply.childPools)

    async def DeleteResourcePool(self, request: respool_svc_pb2.DeleteResourcePoolRequest
                                 ) -> Any:
        if not request.id.value:
            raise InvalidArgument("a resource pool id is required", field="id")
        pool = await self._call("GetResourcePool", respool_pb2.GetRequest(id=request.id))
        await self._call("DeleteResourcePool", respool_pb2.DeleteRequest(
            path=pool.poolinfo.path))
        return respool_svc_pb2.DeleteResourcePoolResponse()

    async def UpdateResourcePool(self, request: respool_svc_pb2.UpdateResourcePoolRequest
                                 ) -> Any:
        await self._call("UpdateResourcePool", respool_pb2.UpdateRequest(
            id=request.id, config=request.config, Force=request.Force))
        return respool_svc_pb2.UpdateResourcePoolResponse()

    async def LookupResourcePoolID(self, request: respool_svc_pb2.LookupResourcePoolIDRequest
                                   ) -> Any:
        reply = await self._call("LookupResourcePoolID", respool_pb2.LookupRequest(
            path=request.path))
        return respool_svc_pb2.LookupResourcePoolIDResponse(id=reply.id)

    async def QueryResourcePools(self, request: respool_svc_pb2.QueryResourcePoolsRequest
                                 ) -> Any:
        reply = await self._call("Query", respool_pb2.QueryRequest())
        return respool_svc_pb2.QueryResourcePoolsResponse(resPools=reply.resourcePools)


class HostForwarder:
    """peloton.api.v0.host.svc.HostService over every hostmgr shard."""

    def __init__(self, jm: Jobmgr) -> None:
        self.jm = jm

    async def QueryHosts(self, request: host_svc_pb2.QueryHostsRequest) -> Any:
        reply = host_svc_pb2.QueryHostsResponse()
        for _, client in self.jm.host_services():
            part = await client.call("QueryHosts", request)
            reply.host_infos.extend(part.host_infos)
        return reply

    async def _on_host(self, method: str, request: Any) -> Any:
        """``method`` on the hostmgr whose cluster has the host."""
        last: PelotonError = NotFound(f"no cluster has a host {request.hostname!r}",
                                      field="hostname")
        for _, client in self.jm.host_services():
            try:
                return await client.call(method, request)
            except NotFound as error:
                last = error
        raise last

    async def StartMaintenance(self, request: host_svc_pb2.StartMaintenanceRequest) -> Any:
        return await self._on_host("StartMaintenance", request)

    async def CompleteMaintenance(self, request: host_svc_pb2.CompleteMaintenanceRequest
                                  ) -> Any:
        return await self._on_host("CompleteMaintenance", request)

    # Host pools: each cluster has its own; a pool name is the same pool in
    # every cluster (created and deleted in all of them).
    async def ListHostPools(self, request: host_svc_pb2.ListHostPoolsRequest) -> Any:
        pools: dict[str, list[str]] = {}
        for _, client in self.jm.host_services():
            part = await client.call("ListHostPools", request)
            for p in part.pools:
                pools.setdefault(p.name, []).extend(p.hosts)
        return host_svc_pb2.ListHostPoolsResponse(pools=[
            host_pb2.HostPoolInfo(name=name, hosts=sorted(hosts))
            for name, hosts in sorted(pools.items())])

    async def _everywhere(self, method: str, request: Any, missing: type[PelotonError]) -> Any:
        """``method`` on every cluster; ``missing`` (AlreadyExists, NotFound)
        only when every cluster answered it (a repeat after a partial
        failure completes)."""
        answers = []
        last: PelotonError = Unavailable("no cluster is serving")
        for _, client in self.jm.host_services():
            try:
                answers.append(await client.call(method, request))
            except missing as error:
                last = error
        if not answers:
            raise last
        return answers[0]

    async def CreateHostPool(self, request: host_svc_pb2.CreateHostPoolRequest) -> Any:
        return await self._everywhere("CreateHostPool", request, AlreadyExists)

    async def DeleteHostPool(self, request: host_svc_pb2.DeleteHostPoolRequest) -> Any:
        return await self._everywhere("DeleteHostPool", request, NotFound)

    async def ChangeHostPool(self, request: host_svc_pb2.ChangeHostPoolRequest) -> Any:
        try:
            return await self._on_host("ChangeHostPool", request)
        except NotFound as error:
            # A cluster that was away when the pool was created lacks it:
            # made there too, if another cluster has it.
            # (the field comes back in the message from another process)
            named = error.field or error.message.partition(":")[0]
            if named != "destinationPool" or request.destinationPool not in {
                    p.name for p in (await self.ListHostPools(
                        host_svc_pb2.ListHostPoolsRequest())).pools}:
                raise
        for _, client in self.jm.host_services():
            with contextlib.suppress(AlreadyExists):
                await client.call("CreateHostPool", host_svc_pb2.CreateHostPoolRequest(
                    name=request.destinationPool))
        return await self._on_host("ChangeHostPool", request)

    async def MoveHosts(self, request: host_svc_pb2.MoveHostsRequest) -> Any:
        """Peloton's resize, over every cluster: hosts move from the source
        pool to the destination, the least busy first."""
        from peloton.hostmgr.hostpools import HostPools
        pools = HostPools()
        hosts = (await self.QueryHosts(host_svc_pb2.QueryHostsRequest())).host_infos
        listed = (await self.ListHostPools(host_svc_pb2.ListHostPoolsRequest())).pools
        data = {"pools": [p.name for p in listed],
                "hosts": {h: p.name for p in listed for h in p.hosts}}
        pools.load(data)
        order = [h.hostname for h in sorted(hosts, key=lambda h: (h.tasks, h.hostname))]
        moved = pools.move(request.sourcePool, request.srcPoolDesiredHosts,
                           request.destinationPool, request.destPoolDesiredHosts, order)
        for hostname in moved:
            await self.ChangeHostPool(host_svc_pb2.ChangeHostPoolRequest(
                hostname=hostname, sourcePool=request.sourcePool,
                destinationPool=request.destinationPool))
        return host_svc_pb2.MoveHostsResponse()


async def serve(config: ClusterConfig, name: str, *,
                task_status: trio.TaskStatus[tuple[str, int]] = trio.TASK_STATUS_IGNORED) -> None:
    """Run one jobmgr instance until cancelled."""
    me = config.get(name)
    host, port = me.grpc.rsplit(":", 1)
    storage = await open_sqlite(config.storage_path(),
                                synchronous=config.storage.get("synchronous", "NORMAL"))
    jm = Jobmgr(name, me.grpc, config, storage)
    jm.capabilities = frozenset(me.options.get("capabilities", ()))
    try:
        jobs, tasks, updates = JobHandler(jm), TaskHandler(jm), UpdateHandler(jm)
        hosts, pools = HostForwarder(jm), ResourcePoolService(jm)
        services: list[tuple[type, object]] = [
            (job_grpc.JobManagerBase, jobs),
            (job_svc_grpc.JobServiceBase, JobService(jobs)),
            (task_grpc.TaskManagerBase, tasks),
            (task_svc_grpc.TaskServiceBase, TaskService(tasks)),
            (respool_grpc.ResourceManagerBase, RespoolForwarder(jm)),
            (host_svc_grpc.HostServiceBase, hosts),
            (update_svc_grpc.UpdateServiceBase, updates),
            (respool_svc_grpc.ResourcePoolServiceBase, pools),
        ]
        # (imported here: these services are built on this module's handlers)
        from peloton.api.v0.volume.svc import volume_svc_grpc
        from peloton.api.v1alpha.host.svc import host_svc_grpc as v1_host_svc_grpc
        from peloton.api.v1alpha.job.stateless.svc import stateless_svc_grpc
        from peloton.api.v1alpha.pod.svc import pod_svc_grpc
        from peloton.api.v1alpha.respool.svc import respool_svc_grpc as v1_respool_svc_grpc
        from peloton.api.v1alpha.volume.svc import volume_svc_grpc as v1_volume_svc_grpc
        from peloton.jobmgr.hosts_v1alpha import HostServiceV1Alpha
        from peloton.jobmgr.respool_v1alpha import ResourcePoolServiceV1Alpha
        from peloton.jobmgr.stateless import PodService, StatelessJobService
        from peloton.jobmgr.volumes import VolumeService, VolumeServiceV1Alpha
        services += [
            (stateless_svc_grpc.JobServiceBase, StatelessJobService(jobs, tasks, updates)),
            (pod_svc_grpc.PodServiceBase, PodService(jobs, tasks)),
            (volume_svc_grpc.VolumeServiceBase, VolumeService(jm)),
            (v1_volume_svc_grpc.VolumeServiceBase, VolumeServiceV1Alpha(jm)),
            (v1_host_svc_grpc.HostServiceBase, HostServiceV1Alpha(hosts)),
            (v1_respool_svc_grpc.ResourcePoolServiceBase, ResourcePoolServiceV1Alpha(pools)),
        ]
        from peloton.api.v1alpha.admin.svc import admin_svc_grpc
        from peloton.api.v1alpha.watch.svc import watch_svc_grpc
        from peloton.jobmgr.admin import AdminService, gated
        from peloton.jobmgr.watch import WatchService
        services.append((watch_svc_grpc.WatchServiceBase, WatchService(jm)))
        services = [(base, gated(impl, jm)) for base, impl in services]
        services.append((admin_svc_grpc.AdminServiceBase, AdminService(jm)))
        async with trio.open_nursery() as nursery:
            address = await nursery.start(partial(
                serve_grpc, max_message_bytes=config.max_message_bytes,
                security=config.security), services, host,
                int(port))
            if me.options.get("http"):
                # Peloton's YARPC HTTP/JSON beside gRPC: the same handlers.
                http_host, http_port = me.options["http"].rsplit(":", 1)
                from peloton.jobmgr.specs import spec_readers
                await nursery.start(partial(
                    serve_http_json, max_message_bytes=config.max_message_bytes,
                    security=config.security, readers=spec_readers(jm.capabilities)),
                    services, http_host, int(http_port))
            nursery.start_soon(jm.owner.run)
            nursery.start_soon(jm.placement_loop)
            nursery.start_soon(jm.placement_loop, True)
            nursery.start_soon(jm.preemption_loop)
            nursery.start_soon(jm.maintenance_loop)
            nursery.start_soon(jm.lockdown_loop)
            nursery.start_soon(jm.gangs.run)
            nursery.start_soon(jm.intake.run)
            nursery.start_soon(jm.keep_checks_fresh)
            nursery.start_soon(jm.reports.serve)
            nursery.start_soon(jm.consume_events)
            task_status.started(address)
    finally:
        jm.channels.close()
        with trio.CancelScope(shield=True):
            await storage.aclose()

__all__ = ["Jobmgr", "serve", "uuid"]
