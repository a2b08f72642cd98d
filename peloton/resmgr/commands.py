"""The commands of the resmgr Raft log: what each one does to the state.

``COMMANDS`` maps a command's name to its handler; it is the log's schema,
so names are stable forever (tests/resmgr/test_state.py pins them). A
handler takes the decoded payload, changes the state and returns a result
that msgpack can carry (results are kept for idempotent retries, so they
stay small). Handlers are deterministic: the leader stamps the time into
every command that needs one.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Callable
from operator import itemgetter
from typing import Any

from peloton.core.errors import FailedPrecondition, InvalidArgument, NotFound
from peloton.core.resources import ZERO, Resources
from peloton.core.states import ON_HOST_TASK_STATES, TERMINAL_TASK_STATES, TaskState
from peloton.resmgr import digest as chain_digest
from peloton.resmgr import respool
from peloton.resmgr.admission import _regular
from peloton.resmgr.reclaim import PREEMPTION_REDELIVER_S, PREEMPTION_SUSTAIN_S, Reclaim
from peloton.resmgr.respool import ROOT, Pool, ResourceSpec
from peloton.resmgr.tracker import (
    PENDING,
    TASK_CONTROLLER,
    TASK_PREEMPTIBLE,
    TASK_REVOCABLE,
    Gang,
    Member,
    TaskEntry,
)
from peloton.shard.assignment import assign, tell

PLACING_TIMEOUT = 30.0
LAUNCHING_TIMEOUT = 60.0
# A gang that placement could not place waits this long before it is handed
# to placement again: BASE * 2^(attempts - 1) seconds, up to CAP, or up to
# SHORTAGE_CAP when it was short of free resources (which come back as tasks
# end, so it should not wait a minute for them). Peloton §4.6.
PLACEMENT_BACKOFF_BASE = 1.0
PLACEMENT_BACKOFF_CAP = 60.0
PLACEMENT_BACKOFF_SHORTAGE_CAP = 4.0


def placement_backoff(attempts: int, short_of_resources: bool) -> float:
    """Seconds a gang waits after its ``attempts``-th failed placement (>= 1)."""
    cap = PLACEMENT_BACKOFF_SHORTAGE_CAP if short_of_resources else PLACEMENT_BACKOFF_CAP
    return min(cap, PLACEMENT_BACKOFF_BASE * 2.0 ** min(attempts - 1, 30))


MEMBER_TTL = 5.0  # for heartbeats that name no ttl (the service sends config.MEMBER_LEASE)


class Commands(Reclaim):
    """One method a command (``COMMANDS``)."""

    def _pool_from(self, p: dict[str, Any]) -> Pool:
        return Pool(
            id=p["id"], name=p["name"], parent=p["parent"], config=p["config"],
            resources={k: ResourceSpec(*v) for k, v in p["resources"].items()},
            policy=p.get("policy", 1), controller_limit=p.get("controller_limit", 0.0),
            slack_limit=p.get("slack_limit", 20.0),
            priority_preemption=_flag(p, "priority_preemption", "priorityPreemption"),
        )

    def pool_create(self, p: dict[str, Any]) -> str:
        if p["id"] in self.pools:
            raise FailedPrecondition(f"resource pool id {p['id']} is taken")
        pool = self._pool_from(p)
        respool.validate_against_tree(self.pools, pool, creating=True)
        self.pools[pool.id] = pool
        self.pools[pool.parent].children.append(pool.id)  # type: ignore[index]
        self.queues[pool.id] = {}
        self._stale = True
        self._schedule()  # a new pool takes a share: others' entitlement may shrink
        return pool.id

    def pool_update(self, p: dict[str, Any]) -> str:
        old = self.pools.get(p["id"])
        if old is None or old.id == ROOT:
            raise NotFound(f"resource pool {p['id']} does not exist")
        if p["parent"] != old.parent:
            raise InvalidArgument("a resource pool's parent cannot change", field="parent")
        pool = self._pool_from(p)
        pool.children = old.children
        for attr in ("allocation", "demand", "np_allocation", "controller_allocation",
                     "slack_allocation", "slack_demand"):
            setattr(pool, attr, getattr(old, attr))
        if not p.get("force"):
            respool.validate_against_tree(self.pools, pool, creating=False)
        self.pools[pool.id] = pool
        self._stale = True
        self._schedule()  # a raised limit or share may unblock gangs anywhere
        return pool.id

    def pool_delete(self, p: dict[str, Any]) -> None:
        pool = respool.lookup(self.pools, p["path"])
        respool.validate_delete(self.pools, pool)
        self.pools[pool.parent].children.remove(pool.id)  # type: ignore[index]
        del self.pools[pool.id]
        self.queues.pop(pool.id, None)
        self.gone.pop(pool.id, None)
        self.over_since.pop(pool.id, None)
        self.starved_since.pop(pool.id, None)
        self.freeing.pop(pool.id, None)
        self._stale = True
        self._schedule()

    def enqueue(self, p: dict[str, Any]) -> list[list[str]] | dict[str, Any]:
        """Queue gangs in a leaf pool. Idempotent per run; newer runs supersede.
        Returns the tasks refused, ``[mesos task id, why]`` each; with
        ``take`` (the limits of the placement workers' DequeueGangs waiting
        at the leader), ``{"failed": ..., "taken": ...}``: it then dequeues
        as a ``gangs.dequeue`` of that limit right after it would, and
        ``taken`` is what that dequeue returns, for the leader to hand over
        (a command less for each small job).

        A gang is a list of task rows ``[mesos task id, task id, run, shard,
        priority, resources, task bytes, flags]`` (flags: TASK_PREEMPTIBLE |
        TASK_CONTROLLER | TASK_REVOCABLE), and for a service whose SLA bounds
        its instances down, ``[maximumUnavailableInstances, instanceCount]``
        last (``job_sla``); journals from before rows hold one dict a task
        with those names, and still apply."""
        pool = self.pools.get(p["pool"])
        if pool is None:
            raise NotFound(f"resource pool {p['pool']} does not exist")
        if not pool.is_leaf():
            raise InvalidArgument(f"resource pool {respool.path_of(self.pools, pool.id)} is not "
                                  "a leaf; jobs go to leaf pools", field="respoolID")
        limit = respool.effective_limit(self.pools, pool.id)
        failed: list[list[str]] = []
        touched = False
        for tasks in p["gangs"]:
            fresh = []
            for t in map(_task_row, tasks):
                mid, tid, run = t[0], t[1], t[2]
                current = self.current_run.get(tid)
                if current is not None:
                    old = self.tasks[current]
                    old_run = int(current.rsplit("-", 1)[1])
                    if old_run > run:
                        failed.append([mid, f"run {run} is older than the tracked run {old_run}"])
                        continue
                    if old_run == run:
                        if p.get("requeue") and old.state in (TaskState.LAUNCHING,
                                                              TaskState.PLACED):
                            self._to_ready_single(old)
                        continue
                    self._forget(old)
                fresh.append(t)
            if not fresh:
                continue
            shapes = [self._shape(t[5]) for t in fresh]
            if len(fresh) == 1:  # most gangs: no generator for one task
                flags = fresh[0][7]
                total, priority = shapes[0], fresh[0][4]
                revocable = bool(flags & TASK_REVOCABLE)
                preemptible = bool(flags & TASK_PREEMPTIBLE)
                controller = bool(flags & TASK_CONTROLLER)
            else:
                total, priority = Resources.sum(shapes), max(t[4] for t in fresh)
                revocable = all(t[7] & TASK_REVOCABLE for t in fresh)
                preemptible = all(t[7] & TASK_PREEMPTIBLE for t in fresh)
                controller = any(t[7] & TASK_CONTROLLER for t in fresh)
            counted = _regular(total, revocable)
            if not counted.fits_in(limit):
                for t in fresh:
                    failed.append([t[0], "gang needs more than the pool's limit: "
                                   + ", ".join(counted.exceeding(limit))])
                continue
            gang = Gang(self.next_gang, pool.id, priority, [t[0] for t in fresh], total,
                        preemptible=preemptible, controller=controller, revocable=revocable)
            self.next_gang += 1
            self.gangs[gang.id] = gang
            for t, shape in zip(fresh, shapes, strict=True):
                entry = TaskEntry(t[0], t[1], pool.id, t[3], TaskState.PENDING, shape, t[4],
                                  gang.id, t[6])
                self.tasks[entry.mesos_task_id] = entry
                self.current_run[entry.task_id] = entry.mesos_task_id
                if len(t) > 8:
                    self._track_sla(entry.task_id, *t[8])
            self.state_counts[TaskState.PENDING] += len(fresh)
            if gang.revocable:
                pool.slack_demand = pool.slack_demand + total
            else:
                pool.demand = pool.demand + total
            self._queue(pool.id, PENDING, gang)
            touched = True
        if touched:
            self._stale = True
            self._schedule()
        if p.get("take"):
            return {"failed": failed, "taken": self.dequeue({"limit": p["take"]})}
        return failed

    def dequeue(self, p: dict[str, Any]) -> list[list[str]]:
        """Hand up to ``limit`` READY gangs to a placement worker (-> PLACING).

        Returns the gangs' mesos task ids, not the tasks: results are kept
        for idempotent retries, so they must stay small; the caller reads
        the tasks from the tracker.
        """
        out: list[list[str]] = []
        deadline = self.now + PLACING_TIMEOUT
        while self.ready and len(out) < p["limit"]:
            pool_id, gid = self.ready.pop()
            gang = self.gangs.get(gid)
            if gang is None or not gang.tasks:
                self._dropped_gone(pool_id)
                continue
            entries = [self.tasks[mid] for mid in gang.tasks]
            if any(e.state != TaskState.READY for e in entries):
                # A task of it moved on meanwhile (a late RUNNING report of a
                # run that timed out, a preempted run): never place that one
                # again; its READY mates go on alone.
                for e in entries:
                    if e.state == TaskState.READY:
                        self._to_ready_single(e)
                continue
            for entry in entries:
                self._set_state(entry, TaskState.PLACING)
                entry.deadline = deadline
            out.append(list(gang.tasks))
        if out:
            self.deadlines[TaskState.PLACING].append((deadline, [m for g in out for m in g]))
        return out

    def set_placements(self, p: dict[str, Any]) -> list[list[Any]] | None:
        """Placed runs -> PLACED, queued for their shard's owner; failed
        gangs -> READY after a backoff. Express placements (a small job's,
        placed apart from a bulk batch) have queues of their own, which
        ``get_placements`` serves first. Those of the shards in ``take``
        (whose owners' express ``GetPlacements`` wait at the leader) are
        taken at once (-> LAUNCHING, as ``get_placements`` takes them) and
        returned, ``[shard, hostname, agent, lease, cluster, refs]`` each,
        for the leader to hand over: a command less for each small job."""
        queues = self.express_placements if p.get("express") else self.placements
        take = frozenset(p.get("take", ()))
        handed: list[list[Any]] = []
        launching: list[str] = []
        deadline = self.now + LAUNCHING_TIMEOUT
        for hostname, agent, lease, cluster, tasks in p["placed"]:
            by_shard: dict[int, list[list[Any]]] = {}
            for mid, ports in tasks:
                entry = self.tasks.get(mid)
                if entry is None or entry.state != TaskState.PLACING:
                    continue  # killed or timed out meanwhile; its lease just expires
                self._set_state(entry, TaskState.PLACED)
                entry.placement = [hostname, agent, lease, ports, cluster]
                by_shard.setdefault(entry.shard, []).append([mid, entry.task_id, ports])
            for shard, refs in by_shard.items():
                if shard in take:
                    for mid, _, _ in refs:
                        self._launching(self.tasks[mid], deadline, launching)
                    handed.append([shard, hostname, agent, lease, cluster, refs])
                else:
                    queues.setdefault(shard, deque()).append(
                        [hostname, agent, lease, cluster, refs])
        if launching:
            self.deadlines[TaskState.LAUNCHING].append((deadline, launching))
        for mids, reason, *rest in p["failed"]:
            short = bool(rest and rest[0])
            for mid in mids:
                entry = self.tasks.get(mid)
                if entry is not None and entry.state == TaskState.PLACING:
                    entry.reason = reason
            gang_ids = {self.tasks[m].gang for m in mids if m in self.tasks}
            for gid in sorted(gang_ids):
                gang = self.gangs.get(gid)
                if gang is not None and all(self.tasks[m].state == TaskState.PLACING
                                            for m in gang.tasks):
                    for m in gang.tasks:
                        self._set_state(self.tasks[m], TaskState.READY)
                    # Back off instead of handing it out again at once: an
                    # unplaceable gang would keep the workers spinning.
                    gang.attempts += 1
                    gang.retry_at = self.now + placement_backoff(gang.attempts, short)
                    heapq.heappush(self.short_backoff if short else self.backoff,
                                   (gang.retry_at, gid))
        return handed or None  # (None: as before handing over, for the digest chain)

    def _launching(self, entry: TaskEntry, deadline: float, launching: list[str]) -> None:
        """A placed run handed to its shard's owner: it must launch by
        ``deadline`` (``launching`` collects the runs of one deadline)."""
        self._set_state(entry, TaskState.LAUNCHING)
        entry.deadline = deadline
        launching.append(entry.mesos_task_id)

    def get_placements(self, p: dict[str, Any]) -> list[list[Any]]:
        """Up to ``limit`` placements of the given shards (-> LAUNCHING),
        taken from the shards in turn, one at a time: drained in the order
        listed, a backlog in the first shards kept the last ones waiting
        call after call (probe jobs waited 13-23 s in the 1M load test).
        Express placements come first; with ``express``, only they do."""
        out: list[list[Any]] = []
        deadline = self.now + LAUNCHING_TIMEOUT
        launching: list[str] = []
        shards = list(dict.fromkeys(p["shards"]))
        self._take_placements(self.express_placements, shards, p["limit"], deadline, out,
                              launching)
        if not p.get("express"):
            self._take_placements(self.placements, shards, p["limit"], deadline, out,
                                  launching)
        if launching:
            self.deadlines[TaskState.LAUNCHING].append((deadline, launching))
        return out

    def _take_placements(self, by_shard: dict[int, deque[list[Any]]], shards: list[int],
                         limit: int, deadline: float, out: list[list[Any]],
                         launching: list[str]) -> None:
        """Move placements of ``shards`` from ``by_shard`` to ``out``, the
        shards in turn, until ``out`` holds ``limit`` (-> LAUNCHING)."""
        queues = [(s, q) for s in shards if (q := by_shard.get(s))]
        while queues and len(out) < limit:
            still: list[tuple[int, deque[list[Any]]]] = []
            for shard, queue in queues:
                if len(out) >= limit:
                    still.append((shard, queue))
                    continue
                hostname, agent, lease, cluster, refs = queue.popleft()
                live = []
                for mid, tid, ports in refs:
                    entry = self.tasks.get(mid)
                    # A task requeued and placed again has a newer placement
                    # further on: skip the stale one.
                    if (entry is not None and entry.state == TaskState.PLACED
                            and entry.placement is not None and entry.placement[2] == lease):
                        self._launching(entry, deadline, launching)
                        live.append([mid, tid, ports])
                if live:
                    out.append([hostname, agent, lease, cluster, live])
                if queue:
                    still.append((shard, queue))
                else:
                    del by_shard[shard]
            queues = still

    def update_tasks(self, p: dict[str, Any]) -> None:
        released = False
        freed: list[Resources] = []  # what the ended runs held on their hosts
        for mid, state in p["updates"]:
            entry = self.tasks.get(mid)
            if entry is None:
                continue
            if state in TERMINAL_TASK_STATES:
                if entry.state in ON_HOST_TASK_STATES:
                    freed.append(entry.resources)
                self._forget(entry)
                released = True
            elif (state != entry.state and entry.state not in (TaskState.PENDING,
                                                                 TaskState.PREEMPTING)
                  and state != TaskState.PREEMPTING):
                # A PREEMPTING task waits for its end; only resmgr preempts.
                self._set_state(entry, state)
                entry.deadline = 0.0
                gang = self.gangs[entry.gang]
                if state == TaskState.RUNNING and gang.preemptible:
                    self._index(entry, gang.revocable)  # the most recently started now
        if freed and self.short_backoff:
            self._retry_short(Resources.sum(freed))
        # Released allocation frees the ancestors' limits and changes
        # entitlements: any leaf's queue may move.
        if released:
            self._schedule()

    def heartbeat(self, p: dict[str, Any]) -> dict[str, Any]:
        self.now = max(self.now, p["now"])
        m = p["member"]
        if "num_shards" in p and not self.shards_pinned:
            # Bootstrap: the first heartbeat pins the leader's count (a map
            # made before pinning existed keeps the count it was made with).
            if not self.shards:
                self.num_shards = int(p["num_shards"])
            self.shards_pinned = True
        self.members[m["id"]] = Member(m["id"], m["kind"], m["address"], m.get("cluster", ""),
                                       self.now + p.get("ttl", MEMBER_TTL),
                                       int(m.get("num_shards", 0)))
        if m["kind"] == "jobmgr":
            if self._a_shard_has_a_live_owner():
                self._assign_shards()
            tell(self.shards, m["id"])
        # Else the next tick assigns (every 0.5 s): jobmgrs that start
        # together, as a cluster's do, then share the first map evenly,
        # where the first heartbeat would take every shard and the others
        # wait out its lease (10 s) for their share.
        return self.view()

    def _a_shard_has_a_live_owner(self) -> bool:
        return any((m := self.members.get(sh.owner)) is not None and m.expires > self.now
                   for sh in self.shards.values())

    def tick(self, p: dict[str, Any]) -> None:
        self.now = max(self.now, p["now"])
        for mid in [m.id for m in self.members.values() if m.expires <= self.now]:
            del self.members[mid]
        self._assign_shards()
        expired: list[str] = []
        for state, queue in self.deadlines.items():
            while queue and queue[0][0] <= self.now:
                deadline, mids = queue.popleft()
                for mid in mids:
                    e = self.tasks.get(mid)
                    if e is not None and e.state == state and e.deadline == deadline:
                        expired.append(mid)
        for mid in sorted(set(expired)):  # a task may be listed twice
            entry = self.tasks.get(mid)
            if entry is None or entry.state not in (TaskState.PLACING, TaskState.LAUNCHING):
                continue  # went back with its gang already
            entry.reason = f"{TaskState(entry.state).name} timed out"
            gang = self.gangs.get(entry.gang)
            if entry.state == TaskState.PLACING and gang is not None and all(
                    self.tasks[m].state == TaskState.PLACING for m in gang.tasks):
                # Placed as one, so placed again as one (never split a gang).
                for m in gang.tasks:
                    self._set_state(self.tasks[m], TaskState.READY)
                    self.tasks[m].deadline, self.tasks[m].reason = 0.0, entry.reason
                self.ready.append(gang.id)
            else:
                self._to_ready_single(entry)
        self._retry_placements()
        self._preempt(float(p.get("sustain", PREEMPTION_SUSTAIN_S)))
        self._schedule()  # Peloton's periodic task scheduler

    def _retry_placements(self) -> None:
        """Hand back to placement the gangs whose backoff ended, in the
        order they are due."""
        while due := [h for h in (self.backoff, self.short_backoff)
                      if h and h[0][0] <= self.now]:
            self._retry(heapq.heappop(min(due, key=itemgetter(0))))

    def _retry_short(self, room: Resources) -> None:
        """Runs that ended freed ``room`` on their hosts: the gangs that
        placement found short of room go back to it, oldest first, as far as
        ``room`` covers them, without waiting out their backoff. The room
        they lacked was held by runs ending or not yet started (with runs
        of a few milliseconds, a one-second backoff was most of a small
        job's wait); if it went to others meanwhile, they fail again and
        back off longer."""
        heap = self.short_backoff
        while heap:
            retry_at, gid = heap[0]
            gang = self.gangs.get(gid)
            if gang is not None and gang.retry_at == retry_at and gang.tasks:
                if not gang.resources.fits_in(room):
                    return
                room = room - gang.resources
            self._retry(heapq.heappop(heap))

    def _retry(self, due: tuple[float, int]) -> None:
        """Hand gang ``due[1]`` back to placement (unless it moved on since
        it backed off, or was admitted afresh: it has another retry_at)."""
        retry_at, gid = due
        gang = self.gangs.get(gid)
        if gang is None or gang.retry_at != retry_at or not gang.tasks:
            return
        gang.retry_at = 0.0
        if all(self.tasks[m].state == TaskState.READY for m in gang.tasks):
            self.ready.append(gid)

    def get_preemptions(self, p: dict[str, Any]) -> list[list[str]]:
        """Hand up to ``limit`` RUNNING victims of ``shards`` to their owner
        to kill, as ``[mesos task id, why]``. At least once: a victim still
        tracked ``PREEMPTION_REDELIVER_S`` later is handed out again."""
        out: list[list[str]] = []
        again_at = self.now + PREEMPTION_REDELIVER_S
        for shard in p["shards"]:
            queue = self.preemptions.get(shard)
            if queue is None:
                continue
            for mid in queue.take(self.now, p["limit"] - len(out), again_at):
                out.append([mid, self.tasks[mid].reason])
            if len(out) >= p["limit"]:
                break
        return out

    def set_capacity(self, p: dict[str, Any]) -> None:
        """A cluster's physical capacity and, optionally, its slack (commands
        logged before slack existed name none: it stays as it was)."""
        cluster = p["cluster"]
        physical = Resources(*p["physical"])
        slack = Resources(*p["slack"]) if "slack" in p else self.slack_capacity.get(cluster, ZERO)
        if self.capacity.get(cluster) != physical or self.slack_capacity.get(cluster, ZERO) != slack:
            self.capacity[cluster] = physical
            self.slack_capacity[cluster] = slack
            self._stale = True
            self._schedule()

    def _assign_shards(self) -> None:
        jobmgrs = {m.id: m for m in self.members.values() if m.kind == "jobmgr"}
        # A jobmgr that hashes with another shard count would act on the
        # wrong jobs: it gets no shard (0: a member from before the count
        # was sent, taken to agree).
        eligible = [i for i, m in jobmgrs.items() if m.num_shards in (0, self.num_shards)]
        assign(self.shards, {i: m.expires for i, m in jobmgrs.items()}, eligible,
               self.num_shards, self.now)

    def view(self) -> dict[str, Any]:
        return {
            "now": self.now,
            "num_shards": self.num_shards,
            "members": [[m.id, m.kind, m.address, m.cluster, m.expires, m.num_shards]
                        for m in sorted(self.members.values(), key=lambda m: m.id)],
            "shards": [[s, sh.owner, sh.epoch, sh.act_from]
                       for s, sh in sorted(self.shards.items())],
        }

    def reset_digest(self, p: dict[str, Any]) -> None:
        """``digest.reset``: start the chain again from this applied index, on
        every replica alike (the leader proposes it when replicas' chains have
        different origins; see the digest module)."""
        self.chain_since = self.applied
        self.chain = chain_digest.seed(self.applied)


def _flag(p: dict[str, Any], key: str, field: str) -> bool:
    value = p.get(key, False)
    if not isinstance(value, bool):
        raise InvalidArgument(f"{field} must be true or false, got {value!r}", field=field)
    return value


def _task_row(t: Any) -> Any:
    """A gangs.enqueue task as a row (see ``ResmgrState.enqueue``)."""
    if not isinstance(t, dict):
        return t
    flags = ((TASK_PREEMPTIBLE if t.get("preemptible", True) else 0)
             | (TASK_CONTROLLER if t.get("controller", False) else 0)
             | (TASK_REVOCABLE if t.get("revocable", False) else 0))
    return [t["mesos_task_id"], t["task_id"], t["run"], t["shard"], t["priority"],
            t["resources"], t["task"], flags]


# The command table is the Raft log's schema: names are stable forever
# (tests/resmgr/test_state.py pins them). Add new names; never rename.
COMMANDS: dict[str, Callable[[Commands, Any], Any]] = {
    "pool.create": Commands.pool_create,
    "pool.update": Commands.pool_update,
    "pool.delete": Commands.pool_delete,
    "gangs.enqueue": Commands.enqueue,
    "gangs.dequeue": Commands.dequeue,
    "placements.set": Commands.set_placements,
    "placements.get": Commands.get_placements,
    "tasks.update": Commands.update_tasks,
    "member.heartbeat": Commands.heartbeat,
    "cluster.tick": Commands.tick,
    "cluster.capacity": Commands.set_capacity,
    "preemptions.get": Commands.get_preemptions,
    "digest.reset": Commands.reset_digest,
}

