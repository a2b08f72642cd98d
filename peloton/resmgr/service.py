"""resmgr's gRPC services and leader loops, around the Raft state machine.

Writes become Raft commands (``propose``); reads look at the leader's state
under the node lock. A replica that does not lead answers every call with
``NotLeader`` carrying the leader's gRPC address, which clients follow.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import math
import time
import uuid
from functools import partial
from typing import Any

import trio

from peloton.api.private.cluster import cluster_grpc
from peloton.api.private.cluster import cluster_pb2 as cpb
from peloton.api.private.hostmgrsvc import hostmgrsvc_grpc
from peloton.api.private.hostmgrsvc import hostmgrsvc_pb2 as hpb
from peloton.api.private.resmgrsvc import resmgrsvc_grpc
from peloton.api.private.resmgrsvc import resmgrsvc_pb2 as rpb
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.respool import respool_grpc, respool_pb2
from peloton.config import MAX_PLACEMENT_BATCH, MEMBER_LEASE, ClusterConfig
from peloton.core import errors
from peloton.core.errors import InvalidArgument, NotFound, NotLeader, PelotonError, Unavailable
from peloton.core.resources import EPSILON, KINDS, Resources
from peloton.core.states import TaskState
from peloton.observability.http import serve_http
from peloton.raft.codec import MAX_COMMAND_BYTES, Command, encode
from peloton.raft.node import RaftNode
from peloton.resmgr import respool
from peloton.resmgr.digest import HISTORY, MISMATCH, ORIGIN_DIFFERS, Checker, PeerCheck, Report
from peloton.resmgr.metrics import metrics_route
from peloton.resmgr.state import (
    TASK_CONTROLLER,
    TASK_PREEMPTIBLE,
    TASK_REVOCABLE,
    ResmgrState,
    TaskEntry,
)
from peloton.rpc import Channels, call_once, serve_grpc
from peloton.shard.partition import DEFAULT_NUM_SHARDS
from peloton.spec.respool import validate_respool_config

log = logging.getLogger(__name__)

TICK_PERIOD = 0.5
# Capacity and slack are asked for this often (an O(1) call per host manager;
# only changes are replicated), so slack that appears or shrinks shows soon.
CAPACITY_PERIOD = 2.0
COMMIT_SAMPLES = 2000
# The leader compares its running digest with each other replica's this
# often; a replica reports its last DIGEST_REPORT (index, chain) pairs, so a
# follower that lags by fewer commands still shares an index with it.
DIGEST_CHECK_PERIOD = 3.0
DIGEST_REPORT = 64
# A replica that keeps diverging is logged again at most this often.
MISMATCH_LOG_PERIOD = 60.0


# Items a command carries: each is a Raft entry every replica applies under
# the state lock, so a bounded batch keeps reads and heartbeats flowing.
TASKS_PER_COMMAND = 400
MAX_DEQUEUE = MAX_PLACEMENT_BATCH
# Tasks an EnqueueGangs request turns into rows between two yields.
ROWS_A_STEP = 250
# A dequeue marks as express the gangs of a pool it emptied of READY gangs
# when they were at most this many (DequeueGangsResponse.express).
EXPRESS_GANGS = 50
# Victims per preemptions.get: its result (ids and reasons, ~200 bytes
# each) is kept for idempotent retries, like a dequeue's.
MAX_PREEMPTIONS = 100
# Raft's log is one queue: a command commits after every command ahead of it
# is replicated and applied. New work is the one flood: a burst of creates
# can be enqueued far ahead of what placement takes (the stages after it
# go at placement's pace). So large gangs.enqueue commands go in at most
# LARGE_IN_FLIGHT at a time, and every other command (a small job's
# enqueue, the placement stages, heartbeats) never waits for them: it is
# behind at most that many, not behind every large enqueue the jobmgrs have
# in flight (tens during a burst of 100,000 tasks, which held a probe job's
# enqueue commit up to 1.4 s at p99). Gating the placement stages' commands
# too held a probe's placement behind the bulk enqueues instead.
LARGE_COMMAND_BYTES = 8 * 1024
LARGE_IN_FLIGHT = 4


# Slack moves with every task's usage. Up to what revocable work holds or
# waits for (``ResmgrState.slack_needed``) every step is replicated: below
# what they hold it is slack preemption must take back, below what they
# wait for it is what admits them. Above that it is replicated only when it
# moved to or from zero, or by at least SLACK_MIN_CHANGE cpus and
# SLACK_REL_CHANGE of the replicated figure (against that figure, so small
# steps add up), so usage noise does not flood Raft.
SLACK_MIN_CHANGE = 1.0
SLACK_REL_CHANGE = 0.05


def slack_changed(known: Resources | None, reported: list[float], needed: float = 0.0) -> bool:
    """Whether a cluster's reported slack differs enough from the replicated
    one to propose it. ``needed`` is the slack cpu that matters exactly (see
    SLACK_MIN_CHANGE): a change of the figure up to it is always proposed."""
    if known is None:
        return True
    for old, new in zip(known, reported, strict=True):
        if (old > 0.0) != (new > 0.0) or abs(new - old) >= max(SLACK_MIN_CHANGE,
                                                                 SLACK_REL_CHANGE * old):
            return True
    return abs(min(reported[0], needed) - min(known.cpu, needed)) > EPSILON


def _chunks(items: list[Any], weight: Any, limit: int = TASKS_PER_COMMAND) -> list[list[Any]]:
    """Split ``items`` into runs whose summed ``weight`` stays within ``limit``."""
    out: list[list[Any]] = []
    current: list[Any] = []
    total = 0
    for item in items:
        w = weight(item)
        if current and total + w > limit:
            out.append(current)
            current, total = [], 0
        current.append(item)
        total += w
    if current:
        out.append(current)
    return out


ENQUEUE_COMMAND_BYTES = 36 * 1024


def _gang_bytes(gang: list[list[Any]]) -> int:
    """About what a gang's rows take in a gangs.enqueue command."""
    return sum(len(row[0]) + len(row[1]) + len(row[6]) + 64 for row in gang)


def resources_of(r: rpb.Resources) -> list[float]:
    return [r.cpu, r.memMb, r.diskMb, r.gpu]


# Task fields the state keeps in its own columns; the Task bytes it stores
# leave them out (a third of a million tasks' memory, and of the Raft log).
STORED_APART = ("id", "jobId", "mesosTaskId", "resource", "priority", "shard")


def task_row(t: rpb.Task) -> list[Any]:
    """A Task as the state's gangs.enqueue row, its stored-apart fields cleared
    from the bytes; raises InvalidArgument for ids not of one run."""
    tid, sep, run_text = t.mesosTaskId.rpartition("-")
    if not sep or not run_text.isdigit() or tid != t.id or t.id.rpartition("-")[0] != t.jobId:
        raise InvalidArgument(
            f"task ids must read <jobId>-<instance>-<run>: got mesosTaskId "
            f"{t.mesosTaskId!r}, id {t.id!r}, jobId {t.jobId!r}",
            field="gangs.tasks.mesosTaskId")
    rest = rpb.Task()
    rest.CopyFrom(t)
    for name in STORED_APART:
        rest.ClearField(name)
    # The gang's kind, for admission (the state never parses the Task bytes).
    flags = ((TASK_PREEMPTIBLE if t.preemptible else 0)
             | (TASK_CONTROLLER if t.controller else 0)
             | (TASK_REVOCABLE if t.revocable else 0))
    row = [t.mesosTaskId, t.id, int(run_text), t.shard, t.priority, resources_of(t.resource),
           rest.SerializeToString(), flags]
    if t.maxUnavailable:  # a service's bound on instances down (preemption keeps to it)
        row.append([t.maxUnavailable, t.instances])
    return row


def task_message(entry: TaskEntry) -> rpb.Task:
    """The resmgrsvc.Task a tracked task was enqueued with."""
    t = rpb.Task.FromString(entry.task)
    t.id, t.mesosTaskId, t.priority, t.shard = (entry.task_id, entry.mesos_task_id,
                                                entry.priority, entry.shard)
    t.jobId = entry.task_id.rpartition("-")[0]
    r = entry.resources
    t.resource.cpu, t.resource.memMb, t.resource.diskMb, t.resource.gpu = r
    return t


def _dequeued(taken: list[list[TaskEntry]], more: dict[str, bool]) -> rpb.DequeueGangsResponse:
    """The reply to a dequeue of ``taken`` gangs; express: the gangs of a pool
    this dequeue emptied of READY gangs (``more[pool]`` false) and took at
    most EXPRESS_GANGS of."""
    reply = rpb.DequeueGangsResponse()
    by_pool: dict[str, list[int]] = collections.defaultdict(list)
    for entries in taken:
        gang = reply.gangs.add()
        for entry in entries:
            gang.tasks.append(task_message(entry))
        if entries:
            by_pool[entries[-1].pool].append(len(reply.gangs) - 1)
    reply.express.extend(sorted(i for pool, indexes in by_pool.items()
                                if len(indexes) <= EXPRESS_GANGS and not more[pool]
                                for i in indexes))
    return reply


MAX_WAIT_REASONS = 10_000


class Resmgr:
    """The leader-side logic shared by the three gRPC services."""

    def __init__(self, node: RaftNode, state: ResmgrState, raft_to_grpc: dict[str, str], *,
                 preemption_sustain: float | None = None, peers: list[str] | None = None,
                 me: str = "", num_shards: int = DEFAULT_NUM_SHARDS) -> None:
        self.node = node
        self.state = state
        self.num_shards = num_shards  # this replica's cluster file's
        self.raft_to_grpc = raft_to_grpc
        # The other replicas' gRPC addresses, and the leader's comparisons of
        # their running digests with ours (``check_digests``).
        self.peers = list(peers or [])
        self.me = me
        self.checker = Checker()
        self._mismatch_logged: dict[str, float] = {}
        # Stamped into each tick (the log, not the replica, says how long).
        self.tick_payload: dict[str, Any] = (
            {} if preemption_sustain is None else {"sustain": preemption_sustain})
        self.channels = Channels()
        self.commit_s: collections.deque[float] = collections.deque(maxlen=COMMIT_SAMPLES)
        self.large = trio.CapacityLimiter(LARGE_IN_FLIGHT)  # see LARGE_COMMAND_BYTES
        # Placements a placements.set command took for the express
        # GetPlacements waiting here (shard -> lease -> [hostname, agent,
        # lease, cluster, refs]), until one of them takes them. This
        # leader's memory only: lost with it, they launch after their
        # LAUNCHING_TIMEOUT like the answer of a GetPlacements that was lost.
        self.handed: dict[int, dict[str, list[Any]]] = collections.defaultdict(dict)
        # Gangs (their tasks' ids) a gangs.enqueue command dequeued for the
        # DequeueGangs calls waiting here, until they take them; the same.
        self.dequeued: collections.deque[list[str]] = collections.deque()

    def commit_stats(self) -> dict[str, float]:
        """p50, p99 and max of the last commits' latency, in seconds."""
        if not self.commit_s:
            return {}
        ordered = sorted(self.commit_s)
        return {"p50": ordered[len(ordered) // 2], "p99": ordered[int(len(ordered) * 0.99)],
                "max": ordered[-1]}

    def _not_leader(self) -> NotLeader:
        leader = self.node.leader()
        return NotLeader("this resmgr replica is not the leader",
                         leader=self.raft_to_grpc.get(leader or "", None))

    def require_leader(self) -> None:
        if not self.node.is_leader():
            raise self._not_leader()

    async def propose(self, name: str, payload: Any, *, key: str | None = None,
                      deadline: float = 10.0, gated: bool = False) -> Any:
        """Replicate one command; retry an unknown outcome with the same key.
        ``gated``: a large one waits for one of LARGE_IN_FLIGHT slots."""
        blob = encode(Command(name, key or uuid.uuid4().hex, payload))
        if len(blob) > MAX_COMMAND_BYTES:
            raise InvalidArgument(f"{name} command is {len(blob)} bytes; split the batch",
                                  field="request")
        async with (self.large if gated and len(blob) > LARGE_COMMAND_BYTES
                    else contextlib.nullcontext()):
            began = trio.current_time()  # the commit's latency, not the gate's wait
            give_up = began + deadline
            while True:
                try:
                    ok, value = await self.node.submit(blob)
                    self.commit_s.append(trio.current_time() - began)
                    break
                except NotLeader:
                    raise self._not_leader() from None
                except Unavailable:
                    if trio.current_time() > give_up:
                        raise
                    await trio.sleep(0.05)
        if not ok:
            cls_name, message, field = value
            raise getattr(errors, cls_name, errors.Internal)(message, field=field)
        return value

    async def propose_all(self, name: str, payloads: list[Any], *,
                          gated: bool = False) -> list[Any]:
        """Replicate independent commands concurrently (Raft batches them
        into the same appends); their results in ``payloads``' order, or
        the first error after all finished."""
        if len(payloads) <= 1:
            return [await self.propose(name, payload, gated=gated) for payload in payloads]
        errors_: list[PelotonError] = []
        results: list[Any] = [None] * len(payloads)

        async def one(k: int) -> None:
            try:
                results[k] = await self.propose(name, payloads[k], gated=gated)
            except PelotonError as error:
                errors_.append(error)

        async with trio.open_nursery() as nursery:
            for k in range(len(payloads)):
                nursery.start_soon(one, k)
        if errors_:
            raise errors_[0]
        return results

    async def wait_until(self, ready: Any, timeout_ms: int) -> bool:
        """Wait (at most ``timeout_ms``) until ``ready()`` holds under the lock."""
        with trio.move_on_after(timeout_ms / 1000):
            while True:
                with self.node.lock:
                    if ready():
                        return True
                    applied = self.node.watch_applied()
                await applied.wait()
        with self.node.lock:
            return bool(ready())

    # -- leader loops ----------------------------------------------------
    async def run_leader_loops(self) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._tick_loop)
            nursery.start_soon(self._capacity_loop)
            nursery.start_soon(self._digest_loop)

    async def _digest_loop(self) -> None:
        while True:
            await trio.sleep(DIGEST_CHECK_PERIOD)
            if self.node.is_leader() and self.peers:
                await self.check_digests()

    async def check_digests(self) -> None:
        """Compare each other replica's running digest with ours, once.

        Detection, not repair: a different chain at the same applied index
        and origin is logged at ERROR with both values and counted
        (``Checker``, exported as metrics and in GetStats). Chains of
        different origins (a replica restored a snapshot from before the
        chain) are made comparable by proposing ``digest.reset``.
        """
        reset: list[str] = []

        async def check(peer: str) -> None:
            try:
                reply = await call_once(
                    self.channels, peer, cluster_grpc.ClusterServiceStub, "GetStats",
                    cpb.GetStatsRequest(replicaLocal=True, digestHistory=DIGEST_REPORT), 2.0)
            except PelotonError as error:
                check = self.checker.peers.setdefault(peer, PeerCheck())
                if check.outcome != "unreachable":
                    log.info("cannot compare digests with resmgr %s: %s", peer, error)
                check.outcome = "unreachable"
                return
            theirs = report_of(reply.digest)
            with self.node.lock:
                state = self.state
                since, applied = state.chain_since, state.applied
                outcome, index, ours, chain = self.checker.compare(peer, since, state.history,
                                                                   theirs)
            if outcome == MISMATCH:
                assert ours is not None and chain is not None
                now = trio.current_time()
                count = self.checker.peers[peer].mismatches
                if now - self._mismatch_logged.get(peer, -math.inf) >= MISMATCH_LOG_PERIOD:
                    self._mismatch_logged[peer] = now
                    log.error("resmgr replicas DIVERGED: at applied index %d (chain since %d) "
                              "this replica (%s) has digest %s, %s has %s (%d mismatches so far)",
                              index, since, self.me or "the leader", ours.hex(), peer,
                              chain.hex(), count)
            elif (outcome == ORIGIN_DIFFERS and theirs.applied >= since
                  and applied >= theirs.since):
                log.warning("resmgr %s's digest chain starts at applied index %d, ours at %d "
                            "(a snapshot from before the chain): starting both again",
                            peer, theirs.since, since)
                reset.append(peer)

        async with trio.open_nursery() as nursery:
            for peer in self.peers:
                nursery.start_soon(check, peer)
        if reset and self.node.is_leader():
            try:
                await self.propose("digest.reset", {"replicas": sorted(reset)}, deadline=2.0)
            except PelotonError as error:
                log.info("digest.reset not applied: %s", error)

    async def _tick_loop(self) -> None:
        while True:
            await trio.sleep(TICK_PERIOD)
            if self.node.is_leader():
                try:
                    await self.propose("cluster.tick", {**self.tick_payload, "now": time.time()},
                                       deadline=1.0)
                except PelotonError as error:
                    log.debug("tick not applied: %s", error)

    async def _capacity_loop(self) -> None:
        while True:
            await trio.sleep(CAPACITY_PERIOD if self.state.capacity else 0.5)
            if not self.node.is_leader():
                continue
            with self.node.lock:
                hostmgrs = [m for m in self.state.members.values() if m.kind == "hostmgr"]
            for member in hostmgrs:
                try:
                    reply = await call_once(self.channels, member.address,
                                            hostmgrsvc_grpc.InternalHostServiceStub,
                                            "ClusterCapacity", hpb.ClusterCapacityRequest(), 5.0)
                    physical = resources_of(reply.physical)
                    slack = resources_of(reply.slack)
                    with self.node.lock:
                        known = self.state.capacity.get(reply.cluster)
                        known_slack = self.state.slack_capacity.get(reply.cluster)
                        needed = self.state.slack_needed(reply.cluster)
                    if (known is None or list(known) != physical
                            or slack_changed(known_slack, slack, needed)):
                        await self.propose("cluster.capacity", {
                            "cluster": reply.cluster, "physical": physical, "slack": slack})
                except PelotonError as error:
                    log.info("capacity of %s unknown: %s", member.address, error)


# -- peloton.api.v0.respool.ResourceManager ------------------------------

def pool_payload(pool_id: str, config: respool_pb2.ResourcePoolConfig, parent: str,
                 *, force: bool = False) -> dict[str, Any]:
    """The pool.create/pool.update payload of an API request's config, after
    the checks a file gets (finite, in range, a printable name): nothing
    invalid reaches the replicated state."""
    validate_respool_config(config)
    resources: dict[str, list[float]] = {}
    for i, r in enumerate(config.resources):
        if r.kind not in KINDS:
            raise InvalidArgument(f"unknown resource kind {r.kind!r}; kinds are "
                                  f"{', '.join(KINDS)}", field=f"resources[{i}].kind")
        if r.kind in resources:
            raise InvalidArgument(f"resource kind {r.kind} appears twice",
                                  field=f"resources[{i}].kind")
        resources[r.kind] = [r.reservation, r.limit, r.share, r.type or 1]
    return {
        "id": pool_id, "name": config.name, "parent": parent,
        "config": config.SerializeToString(deterministic=True), "resources": resources,
        "policy": config.policy or 1,
        "controller_limit": config.controllerLimit.maxPercent,
        "slack_limit": config.slackLimit.maxPercent if config.HasField("slackLimit") else 20.0,
        "priority_preemption": config.priorityPreemption,
        "force": force,
    }


class RespoolHandler:
    def __init__(self, rm: Resmgr) -> None:
        self.rm = rm

    def _info(self, pool: respool.Pool) -> respool_pb2.ResourcePoolInfo:
        state = self.rm.state
        info = respool_pb2.ResourcePoolInfo(
            id=peloton_pb2.ResourcePoolID(value=pool.id),
            path=respool_pb2.ResourcePoolPath(value=respool.path_of(state.pools, pool.id)),
            children=[peloton_pb2.ResourcePoolID(value=c) for c in pool.children],
        )
        if pool.parent is not None:
            info.parent.value = pool.parent
        if pool.config:
            info.config.ParseFromString(pool.config)
        else:
            info.config.name = pool.name
            capacity = state.total_capacity()
            for kind, amount in zip(KINDS, capacity, strict=True):
                info.config.resources.add(kind=kind, reservation=amount, limit=amount, share=1)
        if pool.id == respool.ROOT:
            capacity = state.total_capacity()
            reservation, limit, share = capacity, capacity, Resources(1, 1, 1, 1)
        else:
            reservation, limit, share = pool.reservation(), pool.limit(), pool.share()
        ent = state.entitlements.get(pool.id)
        zero = Resources()
        slack_allocation = ent.slack_allocation if ent else zero
        allocation = (ent.allocation + ent.slack_allocation) if ent else pool.allocation
        columns = zip(KINDS, reservation, limit, share, allocation, slack_allocation,
                      ent.entitlement if ent else zero,
                      ent.non_slack_entitlement if ent else zero,
                      ent.slack_entitlement if ent else zero,
                      ent.demand if ent else zero, ent.slack_demand if ent else zero,
                      strict=True)
        for kind, res, lim, shr, alloc, salloc, e, nse, se, dem, sdem in columns:
            info.usage.add(kind=kind, allocation=alloc, slack=salloc, entitlement=e,
                            demand=dem, slackEntitlement=se, slackAllocation=salloc,
                            reservation=res, limit=lim, share=shr, nonSlackEntitlement=nse,
                            slackDemand=sdem)
        return info

    def _pending(self, pool: respool.Pool, limit: int) -> list[respool_pb2.PendingGang]:
        state = self.rm.state
        out = []
        for gang, queue, reason in state.pending_gangs(pool.id, limit, placement=True):
            r = gang.resources
            out.append(respool_pb2.PendingGang(
                taskIds=[state.tasks[m].task_id for m in gang.tasks], priority=gang.priority,
                cpu=r.cpu, memMb=r.memory, diskMb=r.disk, gpu=r.gpu, queue=queue,
                reason=reason))
        return out

    async def CreateResourcePool(self, request: respool_pb2.CreateRequest) -> Any:
        self.rm.require_leader()
        config = request.config
        if not config.HasField("parent") or not config.parent.value:
            raise InvalidArgument("a new pool needs its parent's id", field="config.parent")
        pool_id = request.id.value or str(uuid.uuid4())
        value = await self.rm.propose("pool.create", pool_payload(pool_id, config,
                                                                  config.parent.value))
        return respool_pb2.CreateResponse(result=peloton_pb2.ResourcePoolID(value=value))

    async def UpdateResourcePool(self, request: respool_pb2.UpdateRequest) -> Any:
        self.rm.require_leader()
        with self.rm.node.lock:
            pool = self.rm.state.pools.get(request.id.value)
            if pool is None or pool.id == respool.ROOT:
                raise NotFound(f"resource pool {request.id.value or '(empty id)'} does not exist")
            parent = pool.parent
        if request.config.parent.value and request.config.parent.value != parent:
            raise InvalidArgument("a resource pool's parent cannot change", field="config.parent")
        await self.rm.propose("pool.update", pool_payload(request.id.value, request.config,
                                                          parent or "", force=request.Force))
        return respool_pb2.UpdateResponse()

    async def DeleteResourcePool(self, request: respool_pb2.DeleteRequest) -> Any:
        self.rm.require_leader()
        await self.rm.propose("pool.delete", {"path": request.path.value})
        return respool_pb2.DeleteResponse()

    async def GetResourcePool(self, request: respool_pb2.GetRequest) -> Any:
        self.rm.require_leader()
        with self.rm.node.lock:
            pools = self.rm.state.pools
            pool = pools.get(request.id.value or respool.ROOT)
            if pool is None:
                raise NotFound(f"resource pool {request.id.value} does not exist")
            reply = respool_pb2.GetResponse(poolinfo=self._info(pool))
            if request.includeChildPools:
                reply.childPools.extend(self._info(pools[c]) for c in pool.children)
            if request.pendingLimit:
                reply.pending.extend(self._pending(pool, request.pendingLimit))
        return reply

    async def LookupResourcePoolID(self, request: respool_pb2.LookupRequest) -> Any:
        self.rm.require_leader()
        with self.rm.node.lock:
            pool = respool.lookup(self.rm.state.pools, request.path.value or "/")
        return respool_pb2.LookupResponse(id=peloton_pb2.ResourcePoolID(value=pool.id))

    async def Query(self, request: respool_pb2.QueryRequest) -> Any:
        self.rm.require_leader()
        with self.rm.node.lock:
            pools = self.rm.state.pools
            infos = [self._info(p) for p in sorted(pools.values(),
                                                    key=lambda p: respool.path_of(pools, p.id))]
        return respool_pb2.QueryResponse(resourcePools=infos)


# -- peloton.private.resmgrsvc.ResourceManagerService --------------------

class ResmgrServiceHandler:
    def __init__(self, rm: Resmgr) -> None:
        self.rm = rm
        # Gangs the DequeueGangs commands in flight may take (their limits),
        # and the limits of the DequeueGangs calls waiting for gangs.
        self._claimed = 0
        self._waiting_limits = 0
        self._taking = 0  # what the enqueues in flight take for them
        # Per shard, the express GetPlacements calls waiting for it.
        self._express_waiting: collections.Counter[int] = collections.Counter()

    async def EnqueueGangs(self, request: rpb.EnqueueGangsRequest) -> Any:
        self.rm.require_leader()
        pool_id = request.respoolID.value
        if not request.gangs:  # only asks how many of the pool's gangs wait
            return rpb.EnqueueGangsResponse(waiting=self._waiting(pool_id))
        gangs = []
        made = 0
        for gang in request.gangs:
            if made >= ROWS_A_STEP:
                # A bulk request's 1,000 rows were the leader's longest loop
                # step (up to 160-180 ms wall in a million-task run, on two
                # busy cores), and every small job's hop here waited for it.
                made = 0
                await trio.lowlevel.checkpoint()
            gangs.append([task_row(t) for t in gang.tasks])
            made += len(gang.tasks)
        # A bulk task's row is ~150 bytes; a constraint or a long name can
        # make it far more, so commands are cut by size (a gang is never cut),
        # and replicated together: one after another, a large create's
        # commands took a commit each.
        payloads = [{"pool": pool_id, "gangs": chunk, "requeue": request.requeue}
                    for chunk in _chunks(gangs, _gang_bytes, limit=ENQUEUE_COMMAND_BYTES)]
        # A small job's gangs go to the placement workers waiting for gangs
        # in this command, not in a gangs.dequeue of their own (one a small
        # job). Only a few, and only as many as the waiting calls want and
        # are not handed already: gangs handed over go first-come, so a
        # bulk load's there would keep a probe behind them.
        take = 0 if len(gangs) > EXPRESS_GANGS else min(
            len(gangs), self._waiting_limits - self._taking - len(self.rm.dequeued))
        if take > 0:
            payloads[0]["take"] = take
            self._taking += take
        try:
            results = await self.rm.propose_all("gangs.enqueue", payloads, gated=True)
        finally:
            if take > 0:
                self._taking -= take
        failed = []
        for result in results:
            if isinstance(result, dict):
                failed.extend(result["failed"])
                if result["taken"]:
                    self.rm.dequeued.extend(result["taken"])
                    self.rm.node.nudge()  # the DequeueGangs calls waiting for them
            else:
                failed.extend(result)
        return rpb.EnqueueGangsResponse(
            failed=[rpb.TaskFailure(mesosTaskId=m, message=msg) for m, msg in failed],
            waiting=self._waiting(pool_id))

    def _waiting(self, pool_id: str) -> int:
        """EnqueueGangsResponse.waiting: the leaf's gangs not yet placed."""
        with self.rm.node.lock:
            state = self.rm.state
            pool = state.pools.get(pool_id)
            if pool is None:
                raise NotFound(f"resource pool {pool_id} does not exist")
            return state.waiting_gangs(pool_id)

    async def DequeueGangs(self, request: rpb.DequeueGangsRequest) -> Any:
        self.rm.require_leader()
        limit = min(request.limit or 100, MAX_DEQUEUE)
        deadline = trio.current_time() + (request.timeout or 0) / 1000
        dequeued = self.rm.dequeued
        while True:
            # Only while more gangs wait than the dequeues in flight may
            # take: every placement cycle long-polls here, and when one
            # small job's gang came, each of them (eight) made a Raft
            # command for it, seven of which found nothing (15,242 commands
            # a minute for ~2,600 dequeues in 10k-hosts-100k-single-task-jobs).
            # Gangs an enqueue dequeued for the waiting calls come first.
            self._waiting_limits += limit
            try:
                ready = await self.rm.wait_until(
                    lambda: bool(dequeued) or len(self.rm.state.ready) > self._claimed,
                    int(max(0.0, deadline - trio.current_time()) * 1000))
            finally:
                self._waiting_limits -= limit
            if ready and dequeued:
                reply = self._take_dequeued(limit)
                if reply.gangs:
                    return reply
                continue
            # (Woken for gangs handed over that another call took first.)
            if ready and len(self.rm.state.ready) > self._claimed:
                self._claimed += limit
                try:
                    gangs = await self.rm.propose("gangs.dequeue", {"limit": limit})
                finally:
                    self._claimed -= limit
                    # The waiters that stood back for this claim look again.
                    self.rm.node.nudge()
                if gangs:
                    # Under the lock (which Raft's applies take too) only
                    # what the reply needs: the entries (their enqueued
                    # fields never change) and which pools still hold more.
                    with self.rm.node.lock:
                        state = self.rm.state
                        taken = [[e for mid in mids if (e := state.tasks.get(mid)) is not None]
                                 for mids in gangs]  # those not killed since
                        more = {e.pool: state.ready.holds(e.pool) for g in taken for e in g}
                    return _dequeued(taken, more)
            if trio.current_time() >= deadline:
                return rpb.DequeueGangsResponse()

    def _take_dequeued(self, limit: int) -> rpb.DequeueGangsResponse:
        """Up to ``limit`` of the gangs an enqueue dequeued for the waiting
        calls, their tasks still PLACING (not timed out or killed since)."""
        dequeued = self.rm.dequeued
        with self.rm.node.lock:
            state = self.rm.state
            taken: list[list[TaskEntry]] = []
            while dequeued and len(taken) < limit:
                entries = [e for mid in dequeued.popleft()
                           if (e := state.tasks.get(mid)) is not None
                           and e.state == TaskState.PLACING]
                if entries:
                    taken.append(entries)
            more = {e.pool: state.ready.holds(e.pool) for g in taken for e in g}
        return _dequeued(taken, more)

    async def SetPlacements(self, request: rpb.SetPlacementsRequest) -> Any:
        self.rm.require_leader()
        placed = [[p.hostname, p.agentId, p.leaseId, p.cluster,
                   [[t.mesosTaskId, list(p.ports)] for t in p.tasks]]
                  for p in request.placements]
        failed = [[[t.mesosTaskId for t in f.gang.tasks], f.reason, f.shortOfResources]
                  for f in request.failedPlacements]
        # Chunk by tasks, not placements: a packed host carries many. The
        # chunks touch different tasks, so they commit in any order, together.
        # Express placements (a small job's) queue apart (commands.set_placements).
        flags: dict[str, Any] = {}
        if request.express:
            flags["express"] = True
            # The shards whose owners wait for express placements get them
            # from this command, not from a placements.get of their own.
            take = sorted(s for s in {t.shard for p in request.placements for t in p.tasks}
                          if self._express_waiting[s])
            if take:
                flags["take"] = take
        payloads = ([{"placed": c, "failed": [], **flags}
                     for c in _chunks(placed, lambda p: len(p[4]))]
                    + [{"placed": [], "failed": c} for c in _chunks(failed, lambda f: len(f[0]))])
        results = await self.rm.propose_all("placements.set", payloads)
        handed = [h for result in results if result for h in result]
        if handed:
            for shard, hostname, agent, lease, cluster, refs in handed:
                self.rm.handed[shard][lease] = [hostname, agent, lease, cluster, refs]
            self.rm.node.nudge()  # the express calls waiting for them
        return rpb.SetPlacementsResponse()

    def _take_handed(self, shards: list[int], limit: int) -> list[list[Any]]:
        """Up to ``limit`` placements handed over for ``shards`` whose runs
        are still LAUNCHING there (not timed out, placed again or ended
        since); the rest of them are dropped."""
        out: list[list[Any]] = []
        state = self.rm.state
        with self.rm.node.lock:
            for shard in shards:
                waiting = self.rm.handed.get(shard)
                while waiting and len(out) < limit:
                    hostname, agent, lease, cluster, refs = waiting.pop(next(iter(waiting)))
                    live = [ref for ref in refs
                            if (e := state.tasks.get(ref[0])) is not None
                            and e.state == TaskState.LAUNCHING and e.placement is not None
                            and e.placement[2] == lease]
                    if live:
                        out.append([hostname, agent, lease, cluster, live])
                if not waiting:
                    self.rm.handed.pop(shard, None)
        return out

    async def GetPlacements(self, request: rpb.GetPlacementsRequest) -> Any:
        self.rm.require_leader()
        shards = sorted(set(request.shards))
        state = self.rm.state
        express = request.express

        express_waiting = self._express_waiting
        handed = self.rm.handed

        def waiting() -> bool:
            if express:
                return any(handed.get(s) or state.express_placements.get(s) for s in shards)
            # A shard's express placements (and those handed over) are the
            # express call's to take while one waits for them: both calls
            # of a jobmgr woke for each small job's placement and each made
            # a Raft command, one of them for nothing (~2 GetPlacements a
            # job at 40 one-task jobs a second).
            return any(state.placements.get(s)
                       or ((handed.get(s) or state.express_placements.get(s))
                           and not express_waiting[s])
                       for s in shards)

        if express:  # until its command took them
            express_waiting.update(shards)
        limit = min(request.limit or 100, 100)
        try:
            if not await self.rm.wait_until(waiting, request.timeout):
                return rpb.GetPlacementsResponse()
            got = self._take_handed(
                shards if express else [s for s in shards if not express_waiting[s]], limit)
            if not got:
                payload: dict[str, Any] = {"shards": shards, "limit": limit}
                if express:
                    payload["express"] = True
                got = await self.rm.propose("placements.get", payload)
        finally:
            if express:
                express_waiting.subtract(shards)
        reply = rpb.GetPlacementsResponse()
        for hostname, agent, lease, cluster, refs in got:
            p = reply.placements.add(hostname=hostname, agentId=agent, leaseId=lease,
                                     cluster=cluster)
            for mid, tid, ports in refs:
                p.tasks.add(pelotonTaskId=tid, mesosTaskId=mid)
                p.ports.extend(ports)
        return reply

    async def UpdateTasksState(self, request: rpb.UpdateTasksStateRequest) -> Any:
        self.rm.require_leader()
        updates = [[u.mesosTaskId, int(u.state)] for u in request.updates]
        # Any order is right: an update for a task already forgotten is ignored.
        await self.rm.propose_all("tasks.update", [{"updates": updates[i:i + 500]}
                                                   for i in range(0, len(updates), 500)])
        with self.rm.node.lock:
            wanted = self.rm.state.room_wanted()
        return rpb.UpdateTasksStateResponse(roomWanted=wanted)

    async def GetPreemptibleTasks(self, request: rpb.GetPreemptibleTasksRequest) -> Any:
        """The shard owners' batch of victims to kill (at least once)."""
        self.rm.require_leader()
        shards = sorted(set(request.shards))
        state = self.rm.state
        if not shards or not await self.rm.wait_until(lambda: state.preemptions_due(shards),
                                                       request.timeout):
            return rpb.GetPreemptibleTasksResponse()
        got = await self.rm.propose("preemptions.get", {
            "shards": shards, "limit": min(request.limit or MAX_PREEMPTIONS, MAX_PREEMPTIONS)})
        return rpb.GetPreemptibleTasksResponse(tasks=[
            rpb.PreemptionCandidate(mesosTaskId=mid, message=why,
                                    reason=rpb.PREEMPTION_REASON_REVOKE_RESOURCES)
            for mid, why in got])

    async def GetActiveTasks(self, request: rpb.GetActiveTasksRequest) -> Any:
        """The runs this resmgr holds of the given jobmgr shards, in any
        state (a recovered shard reports again those it knows ended)."""
        self.rm.require_leader()
        shards = set(request.shards)
        with self.rm.node.lock:
            held = [(e.mesos_task_id, e.state) for e in self.rm.state.tasks.values()
                    if e.shard in shards]
        reply = rpb.GetActiveTasksResponse()
        add = reply.tasks.add
        for mid, state in held:
            add(mesosTaskId=mid, state=state)  # type: ignore[arg-type]
        return reply

    async def GetWaitReasons(self, request: rpb.GetWaitReasonsRequest) -> Any:
        self.rm.require_leader()
        if len(request.mesosTaskIds) > MAX_WAIT_REASONS:
            raise InvalidArgument(f"at most {MAX_WAIT_REASONS} runs a call, got "
                                  f"{len(request.mesosTaskIds)}", field="mesosTaskIds")
        reply = rpb.GetWaitReasonsResponse()
        with self.rm.node.lock:
            state = self.rm.state
            for mid in request.mesosTaskIds:
                why = state.wait_reason(mid)
                if why is not None:
                    reply.reasons[mid] = why
        return reply

    async def GetPendingTasks(self, request: rpb.GetPendingTasksRequest) -> Any:
        self.rm.require_leader()
        with self.rm.node.lock:
            state = self.rm.state
            if request.respoolID.value not in state.pools:
                raise NotFound(f"resource pool {request.respoolID.value} does not exist")
            pending = state.pending_gangs(request.respoolID.value, request.limit or 100,
                                          placement=True)
            reply = rpb.GetPendingTasksResponse()
            for gang, queue, reason in pending:
                entry = reply.gangs.add(reason=reason, queue=queue)
                entry.gang.tasks.extend(task_message(state.tasks[m]) for m in gang.tasks)
        return reply


# -- peloton.private.cluster.ClusterService ------------------------------

def view_message(view: dict[str, Any], leader: str, resmgrs: list[str]) -> cpb.ClusterView:
    return cpb.ClusterView(
        leader=leader, resmgrs=resmgrs, numShards=view["num_shards"], now=view["now"],
        members=[cpb.Member(id=i, kind=k, address=a, cluster=c, leaseExpires=e, numShards=n)
                 for i, k, a, c, e, n in view["members"]],
        shards=[cpb.ShardOwner(shard=s, owner=o, epoch=e, actFrom=at)
                for s, o, e, at in view["shards"]],
    )


def report_of(message: cpb.ReplicaDigest) -> Report:
    """A ReplicaDigest as the digest module's Report."""
    return Report(message.appliedIndex, bytes.fromhex(message.chain), message.chainSince,
                  tuple((p.index, bytes.fromhex(p.digest)) for p in message.history))


def digest_check(peer: str, check: PeerCheck) -> cpb.DigestCheck:
    _, ours, theirs = check.last_mismatch or (0, "", "")
    return cpb.DigestCheck(replica=peer, checks=check.checks, mismatches=check.mismatches,
                           agreedIndex=check.agreed_index, mismatchIndex=check.mismatch_index,
                           ours=ours, theirs=theirs, outcome=check.outcome)


class ClusterHandler:
    def __init__(self, rm: Resmgr, resmgrs: list[str], self_grpc: str) -> None:
        self.rm = rm
        self.resmgrs = resmgrs
        self.self_grpc = self_grpc

    async def Heartbeat(self, request: cpb.HeartbeatRequest) -> Any:
        self.rm.require_leader()
        m = request.member
        if m.kind not in ("jobmgr", "placement", "hostmgr") or not m.id:
            raise InvalidArgument(f"unknown member kind {m.kind!r}", field="member.kind")
        member: dict[str, Any] = {"id": m.id, "kind": m.kind, "address": m.address,
                                  "cluster": m.cluster}
        if m.numShards:
            member["num_shards"] = m.numShards
        # num_shards: the count this leader was configured with, pinned by
        # the first heartbeat of a new cluster (peloton/shard).
        view = await self.rm.propose("member.heartbeat", {
            "now": time.time(), "ttl": MEMBER_LEASE, "num_shards": self.rm.num_shards,
            "member": member})
        return cpb.HeartbeatResponse(view=view_message(view, self.self_grpc, self.resmgrs))

    async def GetStats(self, request: cpb.GetStatsRequest) -> Any:
        """The leader's stats; any replica's own with ``replicaLocal``."""
        if not request.replicaLocal:
            self.rm.require_leader()
        if request.digestHistory > HISTORY:
            raise InvalidArgument(f"digestHistory is at most {HISTORY}, got "
                                  f"{request.digestHistory}", field="digestHistory")
        with self.rm.node.lock:
            state = self.rm.state
            if request.fullDigestAt:
                state.digest_full_at(request.fullDigestAt)
            counts = {TaskState(k).name: n for k, n in state.state_counts.items() if n}
            reply = cpb.Stats(
                appliedCommands=state.applied, commands=dict(state.command_counts),
                commandItems=dict(state.command_items), taskStates=dict(counts),
                commandSeconds=dict(state.command_seconds),
                tasks=len(state.tasks), readyGangs=len(state.ready),
                placementsWaiting=sum(len(q) for q in state.placements.values())
                + sum(len(q) for q in state.express_placements.values())
                + sum(len(h) for h in self.rm.handed.values()),
                commitSeconds=self.rm.commit_stats(), replica=self.self_grpc,
                leading=self.rm.node.is_leader(),
                digest=cpb.ReplicaDigest(
                    appliedIndex=state.applied, chain=state.chain.hex(),
                    chainSince=state.chain_since,
                    history=[cpb.DigestPoint(index=i, digest=c.hex())
                             for i, c in state.history.last(request.digestHistory)],
                    fullDigests=[cpb.DigestPoint(index=i, digest=d)
                                 for i, d in state.full_digests.items()]),
                digestChecks=[digest_check(peer, check) for peer, check
                              in sorted(self.rm.checker.peers.items())])
        reply.raft.update({k: str(v) for k, v in self.rm.node.status().items()
                           if isinstance(v, (int, float, str))})
        return reply

    async def GetClusterView(self, request: cpb.GetClusterViewRequest) -> Any:
        self.rm.require_leader()
        with self.rm.node.lock:
            view = self.rm.state.view()
        return view_message(view, self.self_grpc, self.resmgrs)


async def serve(config: ClusterConfig, name: str, *,
                task_status: trio.TaskStatus[tuple[str, int]] = trio.TASK_STATUS_IGNORED) -> None:
    """Run one resmgr replica until cancelled."""
    me = config.get(name)
    members = config.of_kind("resmgr")
    state = ResmgrState(config.num_shards)
    node = RaftNode(state, me.raft, [d.raft for d in members if d.name != name],
                    data_dir=config.data_dir / name, password=config.raft_secret())
    node.attach()
    rm = Resmgr(node, state, config.raft_to_grpc(),
                preemption_sustain=config.preemption_sustain_s,
                peers=[d.grpc for d in members if d.name != name], me=me.grpc,
                num_shards=config.num_shards)
    host, port = me.grpc.rsplit(":", 1)
    try:
        async with trio.open_nursery() as nursery:
            address = await nursery.start(partial(
                serve_grpc, max_message_bytes=config.max_message_bytes,
                security=config.security), [
                (respool_grpc.ResourceManagerBase, RespoolHandler(rm)),
                (resmgrsvc_grpc.ResourceManagerServiceBase, ResmgrServiceHandler(rm)),
                (cluster_grpc.ClusterServiceBase,
                 ClusterHandler(rm, config.resmgr_addresses, me.grpc)),
            ], host, int(port))
            metrics = me.options.get("metrics")
            if metrics:  # Prometheus /metrics (config.py checked it is loopback)
                mhost, mport = str(metrics).rsplit(":", 1)
                where = await nursery.start(serve_http, {
                    "/metrics": metrics_route(state, node, config.raft_to_grpc(), rm.checker)},
                    mhost, int(mport))
                log.info("metrics on http://%s:%d/metrics", where[0], where[1])
            nursery.start_soon(rm.run_leader_loops)
            task_status.started(address)
    finally:
        rm.channels.close()
        node.close()
