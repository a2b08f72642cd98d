"""The resmgr state's snapshot: its format, its version and the migrations.

A snapshot is one msgpack map (``dump``). It holds everything replicas must
agree on; what is derived (entitlements, per-state counts, the deadline
queues, what PREEMPTING tasks are freeing) is rebuilt by ``load``. The
order of the victim index is part of the state: it ranks victims.

``VERSION`` names the format. ``load`` brings an older snapshot up to it,
one ``MIGRATIONS`` step at a time, and refuses one from a newer version
(a replica must not guess at a format it does not know). A snapshot that
names no version is version 0: the shapes written before versions existed,
which differ from version 1 in what they lack (``_from_0`` lists them).

To change the format: bump ``VERSION``, write the step from the previous
version as a function of the decoded map, add it to ``MIGRATIONS``, and
add its case to tests/resmgr/test_snapshot.py.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgpack

from peloton.core.errors import FailedPrecondition
from peloton.core.resources import ZERO, Resources
from peloton.core.states import TaskState
from peloton.resmgr import digest as chain_digest
from peloton.resmgr.respool import ROOT, Pool, ResourceSpec
from peloton.resmgr.tracker import PENDING, Gang, Member, PreemptionQueue, ReadyQueue, TaskEntry
from peloton.shard.assignment import Ownership

if TYPE_CHECKING:
    from peloton.resmgr.state import ResmgrState

VERSION = 5

# A member row's length in version 1 (``_from_0`` pads shorter ones).
MEMBER_ROW = 6


def dump(state: ResmgrState) -> bytes:
    s = state
    return msgpack.packb({
        "version": VERSION,
        "num_shards": s.num_shards, "now": s.now, "next_gang": s.next_gang,
        "applied": s.applied,
        "pools": [[p.id, p.name, p.parent, p.config,
                   {k: [r.reservation, r.limit, r.share, r.type] for k, r in p.resources.items()},
                   p.policy, p.controller_limit, p.slack_limit, p.children,
                   list(p.allocation), list(p.demand), list(p.np_allocation),
                   list(p.controller_allocation), list(p.slack_allocation),
                   list(p.slack_demand), p.priority_preemption] for p in s.pools.values()],
        "tasks": [[e.mesos_task_id, e.task_id, e.pool, e.shard, e.state, list(e.resources),
                   e.priority, e.gang, e.task, e.deadline, e.placement, e.reason]
                  for e in s.tasks.values()],
        "gangs": [[g.id, g.pool, g.priority, g.tasks, list(g.resources), g.preemptible,
                   g.controller, g.revocable, g.attempts, g.retry_at]
                  for g in s.gangs.values()],
        # Every gang backing off, in one heap (as a replica before the
        # short ones were kept apart reads it), and which are short of room;
        # sorted (a sorted list is a heap), so every replica's snapshot of
        # the same state is the same bytes, however its heaps are laid out.
        "backoff": sorted(s.backoff + s.short_backoff),
        "short_backoff": sorted(s.short_backoff),
        "job_sla": [[job, *sla] for job, sla in s.job_sla.items()],
        "queues": {pid: {name: [[pr, list(q)] for pr, q in queue.items()]
                         for name, queue in qs.items()}
                   for pid, qs in s.queues.items()},
        "ready": s.ready.dump(),
        "gone": s.gone,
        "placements": [[shard, list(q)] for shard, q in s.placements.items()],
        "express_placements": [[shard, list(q)] for shard, q in s.express_placements.items()],
        "members": [[m.id, m.kind, m.address, m.cluster, m.expires, m.num_shards]
                    for m in s.members.values()],
        "shards": [[shard, sh.owner, sh.epoch, sh.act_from, sh.told]
                   for shard, sh in s.shards.items()],
        "shards_pinned": s.shards_pinned,
        "capacity": {c: list(r) for c, r in s.capacity.items()},
        "slack_capacity": {c: list(r) for c, r in s.slack_capacity.items()},
        "recent": [[k, at, result] for k, (at, result) in s.recent.items()],
        "victims": [[pool, revocable, priority, list(bucket)]
                    for (pool, revocable), buckets in s.victims.items()
                    for priority, bucket in buckets.items()],
        "over_since": [[pool, since] for pool, since in s.over_since.items()],
        "starved_since": [[pool, *mark] for pool, mark in s.starved_since.items()],
        "preemptions": [[shard, q.dump()] for shard, q in s.preemptions.items()],
        "chain": [s.chain_since, s.chain],
    }, use_bin_type=True)


def decode(blob: bytes) -> dict[str, Any]:
    """A snapshot as a map of the current ``VERSION``."""
    d: dict[str, Any] = msgpack.unpackb(blob, raw=False, strict_map_key=False)
    version = d.get("version", 0)
    if not isinstance(version, int) or not 0 <= version <= VERSION:
        raise FailedPrecondition(f"resmgr snapshot version {version!r} is not one this "
                                 f"resmgr reads (0 to {VERSION}); upgrade this replica")
    while version < VERSION:
        d = MIGRATIONS[version](d)
        version += 1
        d["version"] = version
    return d


def load(state: ResmgrState, d: dict[str, Any]) -> None:
    """Fill a fresh ``state`` (just constructed with ``d["num_shards"]``)
    from a decoded snapshot, and rebuild what is derived."""
    s = state
    s.now, s.next_gang, s.applied = d["now"], d["next_gang"], d["applied"]
    s.chain_since, s.chain = d["chain"]
    s.pools = {}
    for pid, name, parent, config, res, policy, cl, sl, children, *rest in d["pools"]:
        alloc, demand, np_alloc, ctl_alloc, slack_alloc, slack_demand = (
            Resources(*v) for v in rest[:6])
        s.pools[pid] = Pool(pid, name, parent, config,
                            {k: ResourceSpec(*v) for k, v in res.items()}, policy, cl, sl,
                            children, alloc, demand, np_alloc, ctl_alloc, slack_alloc,
                            slack_demand, bool(rest[6]))
    expiring: list[TaskEntry] = []
    for row in d["tasks"]:
        e = TaskEntry(row[0], row[1], row[2], row[3], row[4], s._shape(row[5]), row[6],
                      row[7], row[8], row[9], row[10], row[11])
        s.tasks[e.mesos_task_id] = e
        s.current_run[e.task_id] = e.mesos_task_id
        s.state_counts[e.state] += 1
        if e.deadline and e.state in s.deadlines:
            expiring.append(e)
    expiring.sort(key=lambda e: e.deadline)
    for e in expiring:
        queue = s.deadlines[e.state]
        if queue and queue[-1][0] == e.deadline:
            queue[-1][1].append(e.mesos_task_id)
        else:
            queue.append((e.deadline, [e.mesos_task_id]))
    s.gangs = {g[0]: Gang(g[0], g[1], g[2], g[3], Resources(*g[4]), *g[5:10])
               for g in d["gangs"]}
    short = [(at, gid) for at, gid in d.get("short_backoff", ())]  # heaps: sorted
    s.short_backoff = sorted(short)
    s.backoff = [(at, gid) for at, gid in d["backoff"]]
    if short:
        apart = set(short)
        s.backoff = [due for due in s.backoff if due not in apart]
    s.job_sla = {job: [k, n, tracked] for job, k, n, tracked in d["job_sla"]}
    tasks = s.tasks
    for pool, revocable, priority, mids in d["victims"]:
        # The tracker's own strings: one copy of each id in memory.
        s.victims.setdefault((pool, revocable), {})[priority] = dict.fromkeys(
            tasks[m].mesos_task_id for m in mids)
    s.over_since = {pool: since for pool, since in d["over_since"]}
    s.starved_since = {pool: [gid, since] for pool, gid, since in d["starved_since"]}
    s.preemptions = {shard: PreemptionQueue.load(q) for shard, q in d["preemptions"]}
    for e in s.tasks.values():
        if e.state == TaskState.PREEMPTING:
            revocable = s.gangs[e.gang].revocable
            freeing = s.freeing.setdefault(e.pool, [ZERO, ZERO])
            freeing[revocable] = freeing[revocable] + e.resources
    s.queues = {pid: {name: {pr: deque(q) for pr, q in queue} for name, queue in qs.items()}
                for pid, qs in d["queues"].items()}
    for qs in s.queues.values():
        for by_priority in qs.values():
            for ids in by_priority.values():
                for gid in ids:
                    gang = s.gangs.get(gid)
                    if gang is not None:
                        gang.queued = True
    s.ready = ReadyQueue(s.gangs)
    s.ready.load(d["ready"])
    s.gone = dict(d["gone"])
    s.placements = {shard: deque(q) for shard, q in d["placements"]}
    s.express_placements = {shard: deque(q) for shard, q in d["express_placements"]}
    s.members = {m[0]: Member(*m) for m in d["members"]}
    s.shards = {shard: Ownership(o, e, at, told) for shard, o, e, at, told in d["shards"]}
    s.shards_pinned = d["shards_pinned"]
    s.capacity = {c: Resources(*r) for c, r in d["capacity"].items()}
    s.slack_capacity = {c: Resources(*r) for c, r in d["slack_capacity"].items()}
    s.recent = OrderedDict((k, (at, result)) for k, at, result in d["recent"])


# --------------------------------------------------------------------------- migrations


def _from_0(d: dict[str, Any]) -> dict[str, Any]:
    """Version 0 (no ``version`` key) to 1. Version 0 snapshots may lack:

    * per pool, the split accounting (non-preemptible, controller, slack
      allocation, slack demand: zero) and the priority preemption flag (off);
      and in non-leaves the slack allocation of their leaves (``slack_rolled_up``
      unset: it is summed here);
    * per gang, the placement attempts and retry time (none);
    * per member, the shard count it hashes with (0: taken to agree);
    * leaf queues other than pending (a queue was a plain list of gang ids);
    * the READY queue per pool (it was one list of gang ids, in order);
    * the retry time of a kept result (taken as the snapshot's ``now``);
    * the running digest (it starts at the snapshot's applied index);
    * the pinned shard count (the count in use holds: pinned);
    * the placement backoff heap, the slack capacity, and all of preemption:
      its timers and queues empty, the victim index built in tracker order.
    """
    zero = [0.0, 0.0, 0.0, 0.0]
    pools = {}
    for row in d["pools"]:
        rest = row[9:]
        vectors = rest[:6] + [zero] * (6 - len(rest[:6]))
        flag = bool(rest[6]) if len(rest) > 6 else False
        pools[row[0]] = row[:9] + vectors + [flag]
    if not d.get("slack_rolled_up"):
        for pid, row in pools.items():
            if row[8] and pid != ROOT:
                total = Resources.sum([Resources(*pools[leaf][13])
                                       for leaf in _leaves(pools, pid)])
                row[13] = list(total)
    d["pools"] = list(pools.values())
    d.pop("slack_rolled_up", None)
    d["gangs"] = [g + [True, False, False, 0, 0.0][len(g) - 5:] for g in d["gangs"]]
    d["members"] = [m + [0] * (MEMBER_ROW - len(m)) for m in d["members"]]
    d["queues"] = {pid: ({PENDING: qs} if qs else {}) if isinstance(qs, list) else qs
                   for pid, qs in d["queues"].items()}
    gang_pool = {g[0]: g[1] for g in d["gangs"]}
    if d["ready"] and all(isinstance(row, int) for row in d["ready"]):
        by_pool: dict[str, list[int]] = {}
        for gid in d["ready"]:
            if gid in gang_pool:
                by_pool.setdefault(gang_pool[gid], []).append(gid)
        d["ready"] = [[pool, ids] for pool, ids in by_pool.items()]
    d["recent"] = [row if len(row) == 3 else [row[0], d["now"], row[1]] for row in d["recent"]]
    d.setdefault("chain", [d["applied"], chain_digest.seed(d["applied"])])
    d.setdefault("shards_pinned", True)
    d.setdefault("backoff", [])
    d.setdefault("slack_capacity", {})
    if "victims" not in d:
        gangs = {g[0]: g for g in d["gangs"]}
        index: dict[tuple[str, bool], dict[int, list[str]]] = {}
        for row in d["tasks"]:
            gang = gangs[row[7]]
            if gang[5] and row[4] not in (TaskState.PENDING, TaskState.PREEMPTING):
                index.setdefault((row[2], gang[7]), {}).setdefault(row[6], []).append(row[0])
        d["victims"] = [[pool, revocable, priority, mids]
                        for (pool, revocable), buckets in index.items()
                        for priority, mids in buckets.items()]
    for key in ("over_since", "starved_since", "preemptions"):
        d.setdefault(key, [])
    return d


def _leaves(pools: dict[str, list[Any]], pool_id: str) -> list[str]:
    """``respool.leaves`` over snapshot rows (children at index 8)."""
    children = pools[pool_id][8]
    if not children and pool_id != ROOT:
        return [pool_id]
    return [leaf for child in children for leaf in _leaves(pools, child)]


def _from_1(d: dict[str, Any]) -> dict[str, Any]:
    """Version 1 to 2: services' SLA bounds (``job_sla``) came in version 2;
    a version 1 state has none (the field was refused then)."""
    d.setdefault("job_sla", [])
    return d


def _from_2(d: dict[str, Any]) -> dict[str, Any]:
    """Version 2 to 3: whether a shard's owner was told of it came in
    version 3; an older owner is taken to know (its shards move only when
    its membership ends, as they did)."""
    d["shards"] = [[*row[:4], True] for row in d["shards"]]
    return d


def _from_3(d: dict[str, Any]) -> dict[str, Any]:
    """Version 3 to 4: express placements (small jobs', served first) came
    in version 4; an older state's placements are all in the shards' queues."""
    d["express_placements"] = []
    return d


def _from_4(d: dict[str, Any]) -> dict[str, Any]:
    """Version 4 to 5: the count of gone gangs' ids each leaf's queues hold
    came in version 5; an older state's is counted from its queues."""
    live = {g[0] for g in d["gangs"] if g[3]}
    gone: dict[str, int] = {}
    for pid, qs in d["queues"].items():
        for queue in qs.values():
            for _, ids in queue:
                gone[pid] = gone.get(pid, 0) + sum(1 for gid in ids if gid not in live)
    for pid, ids in d["ready"]:
        gone[pid] = gone.get(pid, 0) + sum(1 for gid in ids if gid not in live)
    d["gone"] = {pid: n for pid, n in gone.items() if n}
    return d


MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {
    0: _from_0,
    1: _from_1,
    2: _from_2,
    3: _from_3,
    4: _from_4,
}
