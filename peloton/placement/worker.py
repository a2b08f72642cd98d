"""A placement worker: dequeue gangs, lease hosts, place, hand back.

Workers are stateless and run as a pool (any number, any process). Each
cycle pulls a batch of READY gangs from resmgr, leases candidate hosts from
every hostmgr shard (a small job's part: from one first), runs the pure
``place_batch`` over them, returns the placements and failures with one
``SetPlacements`` call, and releases the leases it did not use. A worker
that dies mid-cycle loses nothing: its gangs go back to READY after
resmgr's placing timeout, its leases expire.
"""

from __future__ import annotations

import logging
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from typing import Any

import trio

from peloton.api.private.cluster import cluster_grpc
from peloton.api.private.cluster import cluster_pb2 as cpb
from peloton.api.private.hostmgrsvc import hostmgrsvc_grpc
from peloton.api.private.hostmgrsvc import hostmgrsvc_pb2 as hpb
from peloton.api.private.resmgrsvc import resmgrsvc_grpc
from peloton.api.private.resmgrsvc import resmgrsvc_pb2 as rpb
from peloton.api.v0.job import job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.task import task_pb2
from peloton.config import HEARTBEAT_PERIOD, HEARTBEAT_TIMEOUT, PLACEMENT_BATCH, ClusterConfig
from peloton.core.errors import PelotonError, Unavailable
from peloton.core.resources import Resources
from peloton.hostmgr.constraints import describe as describe_host
from peloton.hostmgr.constraints import host_check
from peloton.placement.engine import place_batch
from peloton.placement.model import (
    AndConstraint,
    Constraint,
    GangRequest,
    HostOffer,
    LabelConstraint,
    OrConstraint,
    TaskRequest,
)
from peloton.rpc import Channels, ServiceClient

log = logging.getLogger(__name__)

CONCURRENT_CYCLES = 4
REPORT_PERIOD = 10.0
# Hosts are leased until their free resources are this many times the batch's.
DEMAND_MARGIN = 1.5

_CONDITIONS = {task_pb2.LabelConstraint.CONDITION_LESS_THAN: "lt",
               task_pb2.LabelConstraint.CONDITION_EQUAL: "eq",
               task_pb2.LabelConstraint.CONDITION_GREATER_THAN: "gt"}


def constraint_of(c: task_pb2.Constraint) -> Constraint | None:
    if c.type == task_pb2.Constraint.LABEL_CONSTRAINT:
        lc = c.labelConstraint
        return LabelConstraint("task" if lc.kind == task_pb2.LabelConstraint.TASK else "host",
                               lc.label.key, lc.label.value,
                               _CONDITIONS.get(lc.condition, "eq"), lc.requirement)
    if c.type == task_pb2.Constraint.AND_CONSTRAINT:
        return AndConstraint(tuple(x for x in map(constraint_of, c.andConstraint.constraints)
                                   if x is not None))
    if c.type == task_pb2.Constraint.OR_CONSTRAINT:
        return OrConstraint(tuple(x for x in map(constraint_of, c.orConstraint.constraints)
                                  if x is not None))
    return None


def task_request(t: rpb.Task) -> TaskRequest:
    r = t.resource
    return TaskRequest(t.mesosTaskId, t.id, t.shard, Resources(r.cpu, r.memMb, r.diskMb, r.gpu),
                       t.numPorts, constraint_of(t.constraint),
                       labels=tuple((lab.key, lab.value) for lab in t.labels), job_id=t.jobId,
                       revocable=t.revocable)


def gang_request(g: rpb.Gang) -> GangRequest:
    """A gang of one job: its placement strategy is its first task's."""
    spread = bool(g.tasks) and (
        g.tasks[0].placementStrategy == job_pb2.PLACEMENT_STRATEGY_SPREAD_JOB)
    return GangRequest(tuple(task_request(t) for t in g.tasks),
                       strategy="spread" if spread else "pack")


def task_leaves(constraint: Constraint | None) -> Iterator[LabelConstraint]:
    """The TASK-kind leaves of a constraint tree."""
    if isinstance(constraint, LabelConstraint):
        if constraint.kind == "task":
            yield constraint
    elif constraint is not None:
        for c in constraint.items:
            yield from task_leaves(c)


def _least(tasks: list[TaskRequest]) -> rpb.Resources:
    """Per kind, the least any of ``tasks`` needs."""
    return rpb.Resources(cpu=min(t.resources.cpu for t in tasks),
                         memMb=min(t.resources.memory for t in tasks),
                         diskMb=min(t.resources.disk for t in tasks),
                         gpu=min(t.resources.gpu for t in tasks))


def _host_constraint_key(g: rpb.Gang) -> bytes:
    """The gang's constraint, serialized, when it has HOST-kind leaves (the
    host managers filter by those); b"" otherwise."""
    if g.tasks and g.tasks[0].HasField("constraint") and host_check(g.tasks[0].constraint):
        return g.tasks[0].constraint.SerializeToString(deterministic=True)
    return b""


def _host_filter(gangs: list[GangRequest]) -> hpb.HostFilter:
    """What to lease for these gangs: hosts with room for the smallest task,
    enough of them for all (with room to pack), and the counts of running
    tasks that SPREAD_JOB and TASK-label constraints need."""
    tasks = [t for g in gangs for t in g.tasks]
    # Revocable tasks take their cpu from slack: a host with enough slack
    # for the smallest of them qualifies too (hostmgr's revocableMinimum).
    regular = [t for t in tasks if not t.revocable]
    revocable = [t for t in tasks if t.revocable] if len(regular) < len(tasks) else []
    need = Resources.sum([t.resources for t in tasks])
    # Constraints can rule out most leased hosts: then lease without a demand bound.
    bounded = all(t.constraint is None for t in tasks)
    spread_jobs = sorted({t.job_id for g in gangs if g.strategy == "spread"
                          for t in g.tasks if t.job_id})
    count_labels = sorted({(leaf.key, leaf.value) for t in tasks
                           for leaf in task_leaves(t.constraint)})
    return hpb.HostFilter(
        minimum=_least(regular) if regular else None,
        revocableMinimum=_least(revocable) if revocable else None,
        numPorts=min(t.num_ports for t in tasks), maxHosts=min(len(tasks), 500),
        # Ports enough for every task of the batch on one host (a port
        # list on each of 500 leases is most of a reply's size).
        portSample=min(sum(t.num_ports for t in tasks), 100),
        # Enough hosts for the batch with room to pack (from each host
        # manager: any one may have the room), not one per task.
        demand=rpb.Resources(cpu=need.cpu * DEMAND_MARGIN, memMb=need.memory * DEMAND_MARGIN,
                             diskMb=need.disk * DEMAND_MARGIN, gpu=need.gpu * DEMAND_MARGIN)
        if bounded else None,
        spreadJobs=spread_jobs,
        countLabels=[peloton_pb2.Label(key=k, value=v) for k, v in count_labels])


_HOST_RESULTS = (("MISMATCH_CONSTRAINTS", "fail `{}`"),
                 ("INSUFFICIENT_OFFER_RESOURCES", "lack resources"),
                 ("MISMATCH_PORTS", "lack ports"),
                 ("MISMATCH_STATUS", "are leased to other placements"),
                 ("MATCH", "were leased for it"))


def _with_host_counts(reason: str, key: bytes, counts: Counter[str]) -> str:
    """A failed gang's reason, led by how the host managers' hosts fared
    against its HOST-kind constraint: ``10000 hosts: 9998 fail `hostname ==
    db-7`, 2 lack resources; ...``."""
    if not key or not counts.get("hosts"):
        return reason
    constraint = task_pb2.Constraint.FromString(key)
    parts = [f"{counts[name]} {what.format(describe_host(constraint))}"
             for name, what in _HOST_RESULTS if counts.get(name)]
    summary = f"{counts['hosts']} hosts: {', '.join(parts)}"
    # With no host leased, placement has nothing to add.
    return summary if reason.startswith("no hosts leased") else f"{summary}; {reason}"


class PlacementWorker:
    """One worker: CONCURRENT_CYCLES cycles of dequeue, lease, place, hand
    back. Its cluster file entry may set ``batch`` (gangs a dequeue takes,
    500) and ``bulk_tasks_per_s``: the most tasks of bulk parts it places a
    second (the express parts, a small job's, are never held). Unset, bulk
    work goes as fast as the machine takes it; on a machine whose cores the
    daemons share, that pace leaves every hop of a small job's way waiting
    for a busy core (README, "a seventh session")."""

    def __init__(self, config: ClusterConfig, name: str) -> None:
        self.name = name
        options = config.get(name).options
        self.batch: int = options.get("batch", PLACEMENT_BATCH)
        self.bulk_tasks_per_s: float | None = options.get("bulk_tasks_per_s")
        # When the worker's next bulk task's slot opens (trio's clock).
        self._bulk_free_at = 0.0
        self.channels = Channels()
        self.resmgr = ServiceClient(config.resmgr_addresses,
                                    resmgrsvc_grpc.ResourceManagerServiceStub,
                                    channels=self.channels)
        self.cluster = ServiceClient(config.resmgr_addresses, cluster_grpc.ClusterServiceStub,
                                     channels=self.channels, deadline=HEARTBEAT_TIMEOUT)
        self.hostmgrs: dict[str, str] = {}  # cluster -> address
        # Where cycles spend their time, logged every REPORT_PERIOD seconds.
        self.phase_s: dict[str, float] = defaultdict(float)
        self.counts: Counter[str] = Counter()
        self._reported = time.monotonic()
        self._turn = 0

    def _phase(self, name: str, since: float) -> float:
        now = time.monotonic()
        self.phase_s[name] += now - since
        return now

    def _report(self) -> None:
        now = time.monotonic()
        if now - self._reported < REPORT_PERIOD or not self.counts["cycles"]:
            return
        cycles = self.counts["cycles"]
        phases = ", ".join(f"{k} {v / cycles * 1000:.0f}" for k, v in self.phase_s.items())
        held = (f"; {self.counts['held']} held for the bulk pace "
                f"({self.bulk_tasks_per_s:g} tasks/s)" if self.counts["held"] else "")
        log.info("%d cycles in %.0fs: %d gangs, %d tasks placed, %d failed; ms a cycle: %s%s",
                 cycles, now - self._reported, self.counts["gangs"], self.counts["placed"],
                 self.counts["failed"], phases, held)
        self.phase_s.clear()
        self.counts.clear()
        self._reported = now

    def _hostmgr(self, cluster: str) -> ServiceClient:
        address = self.hostmgrs.get(cluster)
        if address is None:  # its hostmgr left the view mid-cycle
            raise Unavailable(f"no host manager for cluster {cluster!r} is alive")
        return ServiceClient([address], hostmgrsvc_grpc.InternalHostServiceStub,
                             channels=self.channels, deadline=5.0)

    async def heartbeat_loop(self) -> None:
        request = cpb.HeartbeatRequest(member=cpb.Member(id=self.name, kind="placement"))
        while True:
            try:
                reply = await self.cluster.call("Heartbeat", request, timeout=HEARTBEAT_TIMEOUT)
                self.hostmgrs = {m.cluster: m.address for m in reply.view.members
                                 if m.kind == "hostmgr"}
            except PelotonError as error:
                log.info("heartbeat: %s", error)
            await trio.sleep(HEARTBEAT_PERIOD)

    async def run(self) -> None:
        while True:
            if not self.hostmgrs:
                await trio.sleep(0.2)
                continue
            failed = False
            try:
                await self.cycle()
            except* PelotonError as group:  # a cycle's two parts fail apart
                for error in group.exceptions:
                    log.warning("placement cycle: %s", error)
                failed = True
            if failed:
                await trio.sleep(0.5)

    async def cycle(self) -> int:
        """One dequeue-place-return round; the number of gangs handled.

        The gangs of small pools (``DequeueGangsResponse.express``) are
        placed apart from the rest, at the same time: leased, placed and
        handed back on their own, so a small job's placement does not wait
        for a bulk batch's (the lane a probe job needs under a large load).
        """
        began = time.monotonic()
        reply = await self.resmgr.call("DequeueGangs", rpb.DequeueGangsRequest(
            limit=self.batch, timeout=1000), timeout=5.0)
        if not reply.gangs:
            return 0
        self._phase("dequeue", began)
        express = set(reply.express)
        parts = [[g for i, g in enumerate(reply.gangs) if i in express],
                 [g for i, g in enumerate(reply.gangs) if i not in express]]
        until = self._reserve(sum(len(g.tasks) for g in parts[1]))
        async with trio.open_nursery() as nursery:
            for part, fast in zip(parts, (True, False), strict=True):
                if part:
                    nursery.start_soon(self._place, part, fast)
        self.counts.update(cycles=1, gangs=len(reply.gangs))
        self._report()
        if until > trio.current_time():
            # The bulk part's slots have not all passed: dequeue again then.
            self.counts.update(held=1)
            await trio.sleep_until(until)
        return len(reply.gangs)

    def _reserve(self, bulk_tasks: int) -> float:
        """Take the next ``bulk_tasks`` slots of the worker's bulk pace
        (``bulk_tasks_per_s``); when the last of them opens (0: no limit)."""
        if not bulk_tasks or self.bulk_tasks_per_s is None:
            return 0.0
        start = max(trio.current_time(), self._bulk_free_at)
        self._bulk_free_at = start + bulk_tasks / self.bulk_tasks_per_s
        return self._bulk_free_at

    async def _place(self, dequeued: list[rpb.Gang], express: bool = False) -> None:
        """Lease hosts for ``dequeued``, place them, release the leases not
        used and hand the placements and failures to resmgr (``express``:
        ahead of bulk placements).

        A bulk part leases from every cluster at once. An express part asks
        the cluster whose turn it is, and the others only for the gangs it
        could not place: on a loaded machine each host manager's answer
        takes its turn on a busy core, and waiting for the slowest of them
        (and releasing at each) was a probe job's longest leg in a wave of
        ending tasks."""
        t = time.monotonic()
        gangs = [gang_request(g) for g in dequeued]
        # Gangs whose tasks have HOST-kind constraints lease apart, one group
        # per constraint: the host managers lease only hosts that satisfy it
        # and count those that do not (Peloton's hostmgr filter).
        keys = [_host_constraint_key(g) for g in dequeued]
        counts: dict[bytes, Counter[str]] = defaultdict(Counter)
        # The cluster offered first (packed first) takes turns, so the host
        # managers share the work.
        clusters = sorted(self.hostmgrs)
        self._turn += 1
        clusters = clusters[self._turn % len(clusters):] + clusters[:self._turn % len(clusters)]
        asked = clusters[:1] if express else clusters
        offers = await self._acquire(gangs, keys, range(len(gangs)), asked, counts)
        t = self._phase("acquire", t)
        result = place_batch(gangs, offers)
        if result.failed and len(asked) < len(clusters):
            # The whole part again over every offer (it is small): one
            # result, whose reasons count every host seen.
            t = self._phase("place", t)
            index = {id(g): i for i, g in enumerate(gangs)}
            again = [index[id(g)] for g, _ in result.failed]
            offers += await self._acquire(gangs, keys, again, clusters[len(asked):], counts)
            t = self._phase("acquire", t)
            result = place_batch(gangs, offers)
        request = rpb.SetPlacementsRequest(express=express)
        by_lease: dict[str, list[Any]] = defaultdict(list)
        for placed_gang in result.placed:
            for p in placed_gang:
                by_lease[p.lease_id].append(p)
        for lease_id, placed in by_lease.items():
            first = placed[0]
            msg = request.placements.add(hostname=first.hostname, agentId=first.agent_id,
                                         leaseId=lease_id, cluster=first.cluster)
            for p in placed:
                msg.tasks.add(pelotonTaskId=p.task.task_id, mesosTaskId=p.task.mesos_task_id,
                              shard=p.task.shard)
                msg.ports.extend(p.ports)
        by_id = {t.mesosTaskId: t for g in dequeued for t in g.tasks}
        key_of = {g.tasks[0].mesos_task_id: key for g, key in zip(gangs, keys, strict=True)
                  if g.tasks}
        for gang, reason in result.failed:
            key = key_of.get(gang.tasks[0].mesos_task_id, b"") if gang.tasks else b""
            seen = counts.get(key, Counter())
            # Short of resources only if some host passes its constraint: a
            # gang no host can take waits for hosts to change, not tasks to end.
            short = (bool(gang.tasks) and gang.tasks[0].mesos_task_id in result.short
                     and (not key or seen["hosts"] > seen["MISMATCH_CONSTRAINTS"]))
            request.failedPlacements.add(
                reason=_with_host_counts(reason, key, seen), shortOfResources=short,
                gang=rpb.Gang(tasks=[by_id[t.mesos_task_id] for t in gang.tasks]))
        # Tell each host manager which leases were not used, and which were
        # used for runs of several jobmgr shards (each launches its own part:
        # the host is held until every part launched), before resmgr hands
        # the placements to the shards. A lease of one shard's runs is one
        # launch, which consumes it: a small job's cycle, which uses the one
        # host it leased, makes no call here (one a job before).
        per_cluster: dict[str, hpb.ReleaseHostsRequest] = defaultdict(hpb.ReleaseHostsRequest)
        for offer in offers:
            if offer.lease_id not in result.used_leases:
                per_cluster[offer.cluster].leaseIds.append(offer.lease_id)
        for lease_id, placed in by_lease.items():
            if len({p.task.shard for p in placed}) > 1:
                per_cluster[placed[0].cluster].planned.add(
                    leaseId=lease_id, mesosTaskIds=[p.task.mesos_task_id for p in placed])
        t = self._phase("place", t)

        async def release(cluster: str, request: hpb.ReleaseHostsRequest) -> None:
            try:
                await self._hostmgr(cluster).call("ReleaseHosts", request)
            except PelotonError as error:
                log.info("release hosts of %s: %s (they expire)", cluster, error)

        async with trio.open_nursery() as nursery:
            for cluster, request_ in per_cluster.items():
                nursery.start_soon(release, cluster, request_)
        t = self._phase("release", t)
        await self.resmgr.call("SetPlacements", request)
        self._phase("set", t)
        self.counts.update(placed=sum(len(g) for g in result.placed),
                           failed=sum(len(g.tasks) for g, _ in result.failed))

    async def _acquire(self, gangs: list[GangRequest], keys: list[bytes], members: Iterable[int],
                       clusters: list[str], counts: dict[bytes, Counter[str]],
                       ) -> list[HostOffer]:
        """Lease hosts for the gangs ``members`` (indexes of ``gangs``) from
        ``clusters``, each constraint group at each cluster at once; count
        what the host managers' filters saw in ``counts``. The offers come
        in ``clusters``' order."""
        groups: dict[bytes, list[int]] = defaultdict(list)
        for i in members:
            groups[keys[i]].append(i)
        by_cluster: dict[str, list[HostOffer]] = defaultdict(list)

        async def acquire(cluster: str, key: bytes, host_filter: hpb.HostFilter) -> None:
            try:
                got = await self._hostmgr(cluster).call(
                    "AcquireHosts", hpb.AcquireHostsRequest(filter=host_filter))
            except PelotonError as error:
                log.info("acquire hosts from %s: %s", cluster, error)
                return
            counts[key].update(got.filterResultCounts)
            counts[key]["hosts"] += got.totalHosts
            by_cluster[cluster].extend(
                HostOffer(lease.leaseId, lease.hostname, lease.agentId, lease.cluster or cluster,
                          Resources(lease.available.cpu, lease.available.memMb,
                                    lease.available.diskMb, lease.available.gpu),
                          tuple(lease.ports), dict(lease.attributes), lease.slackCpu,
                          jobs=dict(lease.jobTasks),
                          task_labels={(c.key, c.value): c.count for c in lease.taskLabels})
                for lease in got.leases)

        async with trio.open_nursery() as nursery:
            for key, group in groups.items():
                host_filter = _host_filter([gangs[i] for i in group])
                if key:
                    host_filter.constraint.ParseFromString(key)
                for cluster in clusters:
                    nursery.start_soon(acquire, cluster, key, host_filter)
        return [offer for cluster in clusters for offer in by_cluster.get(cluster, ())]


async def serve(config: ClusterConfig, name: str, *,
                task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
    """Run one placement worker until cancelled."""
    config.get(name)
    worker = PlacementWorker(config, name)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(worker.heartbeat_loop)
            # Cycles overlap: while one waits on a Raft commit (dequeue or set
            # placements, ~50-100 ms each) another places. Safe: a dequeue hands
            # each gang to one cycle, and a leased host is offered to nobody else.
            for _ in range(CONCURRENT_CYCLES):
                nursery.start_soon(worker.run)
            task_status.started()
    finally:
        worker.channels.close()
