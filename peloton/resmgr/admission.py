"""Admission: which waiting gangs a leaf pool takes now, and why the others wait.

Admission (reference/peloton.md §4.5, Peloton's ``respool/admission.go``).
Every leaf has four queues, each PriorityFIFO (highest priority first, FIFO
within one): pending, non-preemptible, controller and revocable. A pass
visits them in the order non-preemptible, controller, revocable, pending and
admits a queue's head gang, whole, when every admitter passes:

* entitlement: a non-revocable gang needs
  ``(allocation - slack allocation) + gang <= non-slack entitlement``, a
  revocable one ``slack allocation + gang <= slack entitlement``;
* controller limit: a non-revocable controller gang in a pool with a
  controller limit needs ``controller allocation + gang <= limit % x reservation``;
* reservation: a non-preemptible, non-revocable gang needs
  ``non-preemptible allocation + gang <= reservation`` (such work never uses
  elastic resources). As in Peloton, only with preemption enabled
  (``PREEMPTION_ENABLED``, on): elastic capacity stays reclaimable because
  only preemptible work uses it;
* limit: the allocation of the pool and of each ancestor plus the gang stays
  within their limits (entitlement never exceeds limits, but allocations
  made before capacity was known can). Slack cpu is not counted, on either
  side (``limit_usage``): as in Peloton, revocable cpu is bounded by the
  slack entitlement alone, so revocable work runs in a pool at its cpu
  limit and never keeps the pool's non-revocable gangs out; revocable
  memory, disk and gpu are the pool's own and count. Every pool's
  ``slack_allocation`` is kept (non-leaves: the sum over their leaves) for it.

A gang of the pending queue that fails moves to the queue of its kind
(non-preemptible, else controller, else revocable) and the pass goes on;
any other failure stops that queue (head-of-line blocking). An admitted
gang's resources count as allocation, split by kind, until its tasks end.

**Capacity unknown.** Until a hostmgr has reported capacity (the sum over
clusters is zero), entitlements are all zero; admission then uses the limit
rule alone, so a fresh cluster still runs jobs. Revocable gangs still need
the slack entitlement (zero until a hostmgr reports slack): nothing else
bounds their cpu.

**Slack.** ``slack_capacity`` holds, per cluster, the cpu its non-revocable
tasks were given but leave idle (its hostmgr measures or models it;
``cluster.capacity`` carries it, and the leader proposes it only when it
moved enough). It is the root of the slack entitlement revocable gangs are
admitted against. When it shrinks below what revocable gangs hold, pools
keep their slack allocation only in proportion, so a pool's slack
allocation above its slack entitlement is what preemption reclaims
(revocable tasks only: it is the slack excess). Non-revocable demand for
memory, disk or gpu that revocable tasks hold shrinks the slack
entitlement of the pool short of it (its revocable tasks get only what
its entitlement leaves after the non-revocable requirement), so those
revocable tasks are that pool's first victims too.

Entitlement (``peloton.resmgr.entitlement.compute``) is a function of the
tree, each leaf's demand and allocation, the capacity and the slack capacity
(allocated-but-idle resources) the hostmgr shards report. Commands that
change any of them mark it stale; it is recomputed at the start of an
admission pass that has gangs to admit (the pass keeps those bounds, its
own admissions do not move them), and when it is read after a change, so
``entitlements`` always equals ``compute`` of the current state (no clock:
replicas agree, and a restored snapshot recomputes the same numbers). A
command used to recompute it at its end as well, and every pass at its
start, gangs waiting or not (a task's end runs a pass): in the
single-task-jobs load that was two fifths of a follower's busy cpu.
Whatever changed the inputs runs an admission pass over every leaf, in tree
order; ``cluster.tick`` runs one too, as Peloton's periodic task scheduler
does.
"""

from __future__ import annotations

import math
from collections import deque
from itertools import chain

from peloton.core.resources import EPSILON, KINDS, ZERO, Resources
from peloton.core.states import TaskState
from peloton.resmgr import entitlement, respool
from peloton.resmgr.entitlement import PoolInput
from peloton.resmgr.respool import ROOT, Pool
from peloton.resmgr.tracker import PENDING, QUEUES, Gang, Tracker

# Peloton's ``preemption.enabled``: pools over their entitlement give back
# the excess, and the reservation admitter keeps non-preemptible work
# within reservations (elastic capacity stays reclaimable).
PREEMPTION_ENABLED = True
# What ``pending_gangs`` calls admitted gangs that wait for placement.
PLACEMENT_QUEUE = "placement"


class Admission(Tracker):
    """Entitlement, the admission pass and the reasons gangs wait."""

    def capacity_known(self) -> bool:
        return not self.total_capacity().is_zero()

    def total_capacity(self) -> Resources:
        return Resources.sum(list(self.capacity.values())) if self.capacity else ZERO

    def total_slack_capacity(self) -> Resources:
        return Resources.sum(list(self.slack_capacity.values())) if self.slack_capacity else ZERO

    def slack_needed(self, cluster: str) -> float:
        """The slack cpu ``cluster`` must provide for the revocable work that
        runs or waits: what it holds and waits for (rolled up at the root),
        less the other clusters' slack (a read; O(clusters))."""
        root = self.entitlements.get(ROOT)
        if root is None:
            return 0.0
        others = math.fsum(r.cpu for c, r in self.slack_capacity.items() if c != cluster)
        return max(0.0, root.slack_allocation.cpu + root.slack_demand.cpu - others)

    @property
    def entitlements(self) -> dict[str, entitlement.Entitlement]:
        """Every pool's entitlement, of the current state (computed if a
        change made it stale)."""
        self._entitle()
        return self._entitlements

    def _entitle(self) -> None:
        """Recompute every pool's entitlement if its inputs changed."""
        if not self._stale:
            return
        self._stale = False
        inputs = {}
        configs = self._pool_configs
        for p in self.pools.values():
            leaf = p.is_leaf()
            config = configs.get(p.id)
            if config is None or config[0] is not p:  # (an update makes a new Pool)
                config = configs[p.id] = (p, p.reservation(), p.limit(), p.share(), p.static())
            inputs[p.id] = PoolInput(
                p.id, p.parent, tuple(p.children), config[1], config[2], config[3], config[4],
                p.demand if leaf else ZERO,
                (p.allocation - p.slack_allocation).clamp_zero() if leaf else ZERO,
                p.slack_demand if leaf else ZERO, p.slack_allocation if leaf else ZERO,
                p.slack_limit)
        self._entitlements = entitlement.compute(inputs, ROOT, self.total_capacity(),
                                               self.total_slack_capacity())

    def _schedule(self) -> None:
        """One admission pass: fresh entitlements, then every leaf with
        waiting gangs, in tree order (so every replica admits the same).
        With no gang waiting, nothing (the entitlements are computed when
        next read)."""
        waiting = [leaf for leaf in respool.leaves(self.pools, ROOT)
                   if any(self.queues.get(leaf, {}).values())]
        if waiting:
            self._entitle()
        for leaf in waiting:  # admitting in one leaf changes no other's queues
            self._admit(leaf)

    def refusal(self, gang: Gang) -> str | None:
        """Why ``gang`` cannot be admitted now (the admitter and the numbers),
        or None if every admitter passes."""
        pool = self.pools[gang.pool]
        need = gang.resources
        ent = self.entitlements.get(pool.id)
        if gang.revocable and ent is not None:
            # Always, capacity known or not: nothing else bounds slack cpu.
            over = _over(pool.slack_allocation, need, ent.slack_entitlement)
            if over:
                return "slack entitlement: " + ", ".join(over)
        if self.capacity_known():
            if ent is not None and not gang.revocable:
                used = (pool.allocation - pool.slack_allocation).clamp_zero()
                over = _over(used, need, ent.non_slack_entitlement)
                if over:
                    return "entitlement: " + ", ".join(over)
            limit = pool.controller_limit_resources()
            if gang.controller and not gang.revocable and limit is not None:
                over = _over(pool.controller_allocation, need, limit)
                if over:
                    return (f"controller limit ({pool.controller_limit:g}% of reservation): "
                            + ", ".join(over))
            if PREEMPTION_ENABLED and not gang.preemptible and not gang.revocable:
                over = _over(pool.np_allocation, need, pool.reservation())
                if over:
                    return "reservation (non-preemptible): " + ", ".join(over)
        counted = _regular(need, gang.revocable)
        for p in respool.ancestors(self.pools, pool.id):
            over = _over(limit_usage(p), counted, p.limit())
            if over:
                return f"limit of {respool.path_of(self.pools, p.id)}: " + ", ".join(over)
        return None

    def _room(self, gang: Gang) -> Resources:
        """How much more a gang of ``gang``'s kind may take now: per kind,
        the least headroom (bound - usage) over the admitters ``refusal``
        applies to it. Within one pass the bounds stay put and admitting
        a gang of the same kind adds its resources to exactly the usages
        counted here, so a pass admits against this vector instead of
        asking ``refusal`` for every gang."""
        pool = self.pools[gang.pool]
        rooms: list[Resources] = []
        ent = self._entitlements.get(pool.id)
        if gang.revocable and ent is not None:
            rooms.append(ent.slack_entitlement - pool.slack_allocation)
        if self.capacity_known():
            if ent is not None and not gang.revocable:
                used = (pool.allocation - pool.slack_allocation).clamp_zero()
                rooms.append(ent.non_slack_entitlement - used)
            limit = pool.controller_limit_resources()
            if gang.controller and not gang.revocable and limit is not None:
                rooms.append(limit - pool.controller_allocation)
            if PREEMPTION_ENABLED and not gang.preemptible and not gang.revocable:
                rooms.append(pool.reservation() - pool.np_allocation)
        for p in respool.ancestors(self.pools, pool.id):
            room = p.limit() - limit_usage(p)
            rooms.append(room._replace(cpu=math.inf) if gang.revocable else room)
        return Resources(*(min(kind) for kind in zip(*rooms, strict=True)))

    def _admit(self, pool_id: str) -> None:
        """Admit what the leaf's queues allow (module docstring)."""
        queues = self.queues.get(pool_id)
        if not queues:
            return
        for name in QUEUES:
            queue = queues.get(name)
            if not queue:
                continue
            self._admit_queue(pool_id, name, queue)
            if not queue:
                del queues[name]

    def _admit_queue(self, pool_id: str, name: str, queue: dict[int, deque[int]]) -> None:
        # Gangs of one kind admitted in a row are allocated as one sum.
        flags: tuple[bool, bool, bool] | None = None
        room = ZERO
        kin: Gang | None = None
        admitted: list[Resources] = []
        try:
            for priority in sorted(queue, reverse=True):
                gangs = queue[priority]
                while gangs:
                    gang = self.gangs.get(gangs[0])
                    if gang is None or not gang.tasks:
                        gangs.popleft()
                        self._dropped_gone(pool_id)
                        continue
                    if (gang.preemptible, gang.controller, gang.revocable) != flags:
                        if kin is not None and admitted:
                            self._allocate(kin, Resources.sum(admitted))
                            admitted = []
                        flags = (gang.preemptible, gang.controller, gang.revocable)
                        kin, room = gang, self._room(gang)
                    need = gang.resources
                    # Per kind: needs none, or fits (a generator over the
                    # four kinds cost more than the comparisons).
                    if not ((need[0] <= 0.0 or need[0] <= room[0] + EPSILON)
                            and (need[1] <= 0.0 or need[1] <= room[1] + EPSILON)
                            and (need[2] <= 0.0 or need[2] <= room[2] + EPSILON)
                            and (need[3] <= 0.0 or need[3] <= room[3] + EPSILON)):
                        kind = gang.kind()
                        if name != PENDING or kind == PENDING:
                            return  # head-of-line: this queue is full for now
                        gangs.popleft()
                        self._queue(pool_id, kind, gang)
                        continue
                    gangs.popleft()
                    room = room - need
                    admitted.append(need)
                    for mid in gang.tasks:
                        entry = self.tasks[mid]
                        self._set_state(entry, TaskState.READY)
                        if gang.preemptible:
                            self._index(entry, gang.revocable)
                    gang.retry_at = 0.0  # admitted afresh: a backoff it had is over
                    self.ready.append(gang.id)
                del queue[priority]
        finally:
            if kin is not None and admitted:
                self._allocate(kin, Resources.sum(admitted))

    def waiting_gangs(self, pool_id: str) -> int:
        """A leaf's gangs waiting for placement: PENDING (queued for
        admission) and READY (not backing off). O(queues x priorities).
        The queues still hold gone gangs' ids (killed while they waited)
        until their heads or a sweep drop them; those are not counted, so a
        mass kill does not make the pool look full."""
        return max(0, self.queued_ids(pool_id) - self.gone.get(pool_id, 0))

    def pending_gangs(self, pool_id: str, limit: int, *,
                      placement: bool = False) -> list[tuple[Gang, str, str]]:
        """Waiting gangs of a leaf as ``(gang, queue, reason)``, in the order
        admission visits them: queues as QUEUES, then priority, then FIFO. A
        queue's head waits for the admitter that refuses it; a gang behind
        it says so unless an admitter refuses it too. With ``placement``,
        admitted gangs waiting for placement follow (queue PLACEMENT_QUEUE),
        those ready now first, then those backing off by retry time."""
        out: list[tuple[Gang, str, str]] = []
        for name in QUEUES:
            queue = self.queues.get(pool_id, {}).get(name, {})
            head: Gang | None = None
            for priority in sorted(queue, reverse=True):
                for gid in queue[priority]:
                    gang = self.gangs.get(gid)
                    if gang is None or not gang.tasks:
                        continue
                    reason = self.refusal(gang)
                    if reason is None:
                        reason = (f"behind gang {head.id} in the {name} queue (higher priority "
                                  "or earlier arrival)" if head is not None
                                  else "admissible: admitted at the next admission pass")
                    head = head or gang
                    out.append((gang, name, reason))
                    if len(out) >= limit:
                        return out
        if not placement:
            return out
        # Admitted, waiting for placement: the last placement failure says why.
        backing_off = sorted((g.retry_at, g.id) for _, gid in chain(self.backoff,
                                                                     self.short_backoff)
                             if (g := self.gangs.get(gid)) is not None and g.pool == pool_id
                             and g.retry_at)
        ready = [(0.0, gid) for gid in self.ready.of_pool(pool_id)]
        for retry_at, gid in ready + backing_off:
            gang = self.gangs.get(gid)
            if gang is None or not gang.tasks:
                continue
            out.append((gang, PLACEMENT_QUEUE, self.placement_reason(gang, retry_at)))
            if len(out) >= limit:
                break
        return out

    def wait_reason(self, mesos_task_id: str) -> str | None:
        """Why a tracked run waits (None when it is not waiting here)."""
        entry = self.tasks.get(mesos_task_id)
        gang = self.gangs.get(entry.gang) if entry is not None else None
        if entry is None or gang is None:
            return None
        if entry.state == TaskState.PENDING:
            why = self.refusal(gang)
            return (f"waiting for admission: {why}" if why
                    else "admissible: admitted at the next admission pass")
        if entry.state == TaskState.READY:
            return f"waiting for placement: {self.placement_reason(gang, gang.retry_at)}"
        if entry.state == TaskState.PLACING:
            return "being placed"
        return None

    def placement_reason(self, gang: Gang, retry_at: float = 0.0) -> str:
        """Why an admitted gang is not placed yet."""
        why = self.tasks[gang.tasks[0]].reason
        if not gang.attempts:
            return "admitted; waiting for a placement worker"
        when = (f"next attempt in {max(0.0, retry_at - self.now):.0f} s" if retry_at
                else "being retried now")
        times = "time" if gang.attempts == 1 else "times"
        return f"placement failed {gang.attempts} {times}, {when}: {why}"


def limit_usage(pool: Pool) -> Resources:
    """What counts against ``pool``'s limit: its allocation without the
    slack cpu its revocable tasks hold (Peloton bounds revocable cpu by the
    slack alone; their memory, disk and gpu are the pool's and count)."""
    a = pool.allocation
    return a._replace(cpu=max(0.0, a.cpu - pool.slack_allocation.cpu))


def _regular(amount: Resources, revocable: bool) -> Resources:
    """The part of a gang's ``amount`` that counts against pool limits."""
    return amount._replace(cpu=0.0) if revocable else amount


def _over(used: Resources, need: Resources, bound: Resources) -> list[str]:
    """Kinds where ``used + need`` exceeds ``bound``, e.g. ['cpu 12 + 2 > 13.5']."""
    return [f"{kind} {u:g} + {n:g} > {b:g}"
            for kind, u, n, b in zip(KINDS, used, need, bound, strict=True)
            if n > 0.0 and u + n > b + EPSILON]

