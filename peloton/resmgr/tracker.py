"""What resmgr tracks of each task and gang, and the moves every command shares.

A ``TaskEntry`` is one run of one task (its mesos task id names the run);
a ``Gang`` the tasks admitted and placed as one. ``Tracker`` is the base of
the state machine (``peloton.resmgr.state``): it declares the state's fields
(``ResmgrState.__init__`` sets them) and keeps the accounting in step as a
task changes state: the per-state counts, a pool's demand and allocation
(split by kind: non-preemptible, controller, slack), the victim index
preemption ranks from, and what PREEMPTING tasks are freeing.
"""

from __future__ import annotations

import collections
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from peloton.core.resources import ZERO, Resources
from peloton.core.states import TaskState
from peloton.resmgr import respool
from peloton.resmgr.entitlement import Entitlement
from peloton.resmgr.respool import Pool
from peloton.shard.assignment import Ownership

# The flags of a task row in gangs.enqueue.
TASK_PREEMPTIBLE, TASK_CONTROLLER, TASK_REVOCABLE = 1, 2, 4

# A leaf's queues, in the order an admission pass visits them.
NON_PREEMPTIBLE, CONTROLLER, REVOCABLE, PENDING = (
    "non-preemptible", "controller", "revocable", "pending")
QUEUES = (NON_PREEMPTIBLE, CONTROLLER, REVOCABLE, PENDING)

# Gone gangs' ids a leaf's queues hold before a sweep is considered
# (``Tracker._sweep``): below it the ids cost less than looking.
SWEEP_MIN = 64



@dataclass(slots=True)
class TaskEntry:
    mesos_task_id: str
    task_id: str
    pool: str
    shard: int
    state: int
    resources: Resources
    priority: int
    gang: int
    # The rest of the resmgrsvc.Task message: the service clears the fields
    # kept above (ids, resources, priority, shard) and puts them back when it
    # hands the task to placement (``service.task_message``).
    task: bytes
    deadline: float = 0.0
    placement: list[Any] | None = None  # [hostname, agent, lease, ports, cluster]
    reason: str = ""


@dataclass(slots=True)
class Gang:
    id: int
    pool: str
    priority: int
    tasks: list[str]  # mesos task ids
    resources: Resources
    # From its tasks (resmgrsvc.Task flags, decoded by the service at
    # enqueue): non-preemptible if any task is, controller if any task is,
    # revocable only if all are.
    preemptible: bool = True
    controller: bool = False
    revocable: bool = False
    # Placement attempts that failed, and when it may be handed to
    # placement again (0: not backing off).
    attempts: int = 0
    retry_at: float = 0.0
    # Whether its id sits in one of its leaf's admission queues or the
    # READY queue (a queue's head drops the id of a gang that is gone, so
    # a gang that goes while queued is counted in ``gone``). Not in
    # snapshots: restored from the queues.
    queued: bool = False

    def kind(self) -> str:
        """The special queue this gang moves to when it fails from pending."""
        if not self.preemptible and not self.revocable:
            return NON_PREEMPTIBLE
        if self.controller:
            return CONTROLLER
        if self.revocable:
            return REVOCABLE
        return PENDING


@dataclass(slots=True)
class Member:
    id: str
    kind: str
    address: str
    cluster: str
    expires: float
    num_shards: int = 0  # a jobmgr's configured shard count (0: not said)


class ReadyQueue:
    """Admitted gangs waiting for placement: FIFO per pool, pools in turn.

    A placement batch takes one gang from each pool in turn, so a small job
    in one pool is not stuck behind a hundred thousand admitted tasks of
    another (admission already bounds each pool by its entitlement; this
    keeps placement from undoing that fairness with one global FIFO).
    """

    def __init__(self, gangs: dict[int, Gang]) -> None:
        self._gangs = gangs
        self._by_pool: dict[str, deque[int]] = {}
        self._turn: deque[str] = deque()  # pools with waiting gangs, in turn order
        self._size = 0

    def append(self, gang_id: int) -> None:
        gang = self._gangs[gang_id]
        queue = self._by_pool.get(gang.pool)
        if queue is None:
            queue = self._by_pool[gang.pool] = deque()
        if not queue:
            self._turn.append(gang.pool)
        queue.append(gang_id)
        gang.queued = True
        self._size += 1

    def pop(self) -> tuple[str, int]:
        """The next (pool, gang id), taking pools in turn (IndexError when empty)."""
        pool = self._turn.popleft()
        queue = self._by_pool[pool]
        gang_id = queue.popleft()
        gang = self._gangs.get(gang_id)
        if gang is not None:
            gang.queued = False
        self._size -= 1
        if queue:
            self._turn.append(pool)
        else:
            del self._by_pool[pool]
        return pool, gang_id

    def sweep(self, pool: str, live: Callable[[int], bool]) -> None:
        """Drop the pool's ids that ``live`` refuses (gangs that are gone),
        keeping the others' order and the pool's turn."""
        queue = self._by_pool.get(pool)
        if queue is None:
            return
        kept = deque(gid for gid in queue if live(gid))
        self._size -= len(queue) - len(kept)
        if kept:
            self._by_pool[pool] = kept
        else:
            del self._by_pool[pool]
            self._turn.remove(pool)

    def __len__(self) -> int:
        return self._size

    def __bool__(self) -> bool:
        return self._size > 0

    def holds(self, pool: str) -> bool:
        """Whether ``pool`` has a gang waiting."""
        return pool in self._by_pool

    def count(self, pool: str) -> int:
        """How many of ``pool``'s gangs wait."""
        queue = self._by_pool.get(pool)
        return 0 if queue is None else len(queue)

    def of_pool(self, pool: str) -> list[int]:
        return list(self._by_pool.get(pool, ()))

    def __iter__(self) -> Any:
        for pool in self._turn:
            yield from self._by_pool[pool]

    def __contains__(self, gang_id: object) -> bool:
        return any(gang_id in q for q in self._by_pool.values())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ReadyQueue) and self.dump() == other.dump()

    def dump(self) -> list[list[Any]]:
        return [[pool, list(self._by_pool[pool])] for pool in self._turn]

    def load(self, rows: list[Any]) -> None:
        """Restore from ``dump()``."""
        self._by_pool.clear()
        self._turn.clear()
        self._size = 0
        for pool, ids in rows:
            self._by_pool[pool] = deque(ids)
            self._turn.append(pool)
            self._size += len(ids)
            for gid in ids:
                gang = self._gangs.get(gid)
                if gang is not None:
                    gang.queued = True


class PreemptionQueue:
    """RUNNING victims of one jobmgr shard, until their runs end.

    ``fresh`` holds victims never handed out, in the order chosen;
    ``handed`` those given to the shard's owner, each with the time from
    which it is handed out again. ``take`` moves what it hands out to the
    end of ``handed`` with ``now + delay``; ``now`` never goes back and the
    delay is constant, so ``handed`` stays sorted by that time and both
    ``due`` and ``take`` look only at the front. A victim leaves the queue
    when its run is forgotten (ended or superseded).
    """

    __slots__ = ("fresh", "handed")

    def __init__(self) -> None:
        self.fresh: OrderedDict[str, None] = OrderedDict()
        self.handed: OrderedDict[str, float] = OrderedDict()

    def add(self, mid: str) -> None:
        if mid not in self.handed:
            self.fresh[mid] = None

    def discard(self, mid: str) -> None:
        self.fresh.pop(mid, None)
        self.handed.pop(mid, None)

    def due(self, now: float) -> bool:
        return bool(self.fresh) or (bool(self.handed)
                                    and next(iter(self.handed.values())) <= now)

    def take(self, now: float, limit: int, again_at: float) -> list[str]:
        """Up to ``limit`` victims to kill: fresh ones first, then those
        handed out before whose time to be handed out again has come."""
        out: list[str] = []
        while self.fresh and len(out) < limit:
            mid, _ = self.fresh.popitem(last=False)
            self.handed[mid] = again_at
            out.append(mid)
        while self.handed and len(out) < limit:
            mid, at = next(iter(self.handed.items()))
            if at > now:
                break
            self.handed[mid] = again_at
            self.handed.move_to_end(mid)
            out.append(mid)
        return out

    def __len__(self) -> int:
        return len(self.fresh) + len(self.handed)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PreemptionQueue) and self.dump() == other.dump()

    def dump(self) -> list[Any]:
        return [list(self.fresh), [[m, at] for m, at in self.handed.items()]]

    @classmethod
    def load(cls, row: list[Any]) -> PreemptionQueue:
        queue = cls()
        queue.fresh.update((m, None) for m in row[0])
        queue.handed.update((m, at) for m, at in row[1])
        return queue



class Tracker:
    """The state's fields, and the bookkeeping of a task's moves."""

    num_shards: int
    shards_pinned: bool
    now: float
    pools: dict[str, Pool]
    tasks: dict[str, TaskEntry]
    current_run: dict[str, str]
    gangs: dict[int, Gang]
    queues: dict[str, dict[str, dict[int, deque[int]]]]
    ready: ReadyQueue
    placements: dict[int, deque[list[Any]]]
    express_placements: dict[int, deque[list[Any]]]
    members: dict[str, Member]
    shards: dict[int, Ownership]
    capacity: dict[str, Resources]
    slack_capacity: dict[str, Resources]
    next_gang: int
    applied: int
    _entitlements: dict[str, Entitlement]
    _pool_configs: dict[str, tuple[Pool, Resources, Resources, Resources,
                                   tuple[bool, bool, bool, bool]]]
    state_counts: collections.Counter[int]
    deadlines: dict[int, deque[tuple[float, list[str]]]]
    backoff: list[tuple[float, int]]
    short_backoff: list[tuple[float, int]]
    job_sla: dict[str, list[int]]
    _shapes: dict[Resources, Resources]
    victims: dict[tuple[str, bool], dict[int, dict[str, None]]]
    over_since: dict[str, float]
    starved_since: dict[str, list[Any]]
    preemptions: dict[int, PreemptionQueue]
    freeing: dict[str, list[Resources]]
    # Leaf -> gangs that went (killed, or sent back to PENDING as a new
    # gang) while their ids sat in its admission or READY queues, whose
    # heads drop such ids when they reach them: those ids still counted in
    # ``len`` (``waiting_gangs`` takes them off). Replicated and
    # snapshotted: it decides when a leaf's queues are swept.
    gone: dict[str, int]
    _sweep_due: set[str]  # leaves to sweep when the command ends
    _stale: bool
    recent: OrderedDict[str, tuple[float, Any]]
    chain: bytes
    chain_since: int

    def _set_state(self, entry: TaskEntry, state: int) -> None:
        counts = self.state_counts
        counts[entry.state] -= 1
        counts[state] += 1
        entry.state = state

    def _shape(self, vector: list[float]) -> Resources:
        """The shared vector equal to ``vector``. Looked up by its tuple (a
        Resources hashes and compares as one): making a Resources first,
        through the named tuple's own ``__new__``, was most of the cost, for
        every task enqueued, on every replica."""
        found = self._shapes.get(tuple(vector))  # type: ignore[call-overload]
        if found is None:
            r = Resources(*vector)
            found = self._shapes.setdefault(r, r)
        return found

    def _track_sla(self, task_id: str, max_unavailable: int, instances: int) -> None:
        """Note a tracked task of a job whose SLA bounds its instances down."""
        job = task_id.rpartition("-")[0]
        sla = self.job_sla.get(job)
        if sla is None:
            self.job_sla[job] = [max_unavailable, instances, 1]
        else:
            sla[0], sla[1] = max_unavailable, instances
            sla[2] += 1

    def instances_down(self, job: str, instances: int) -> int:
        """How many of the job's instances have no RUNNING run here (being
        placed, preempted, or between runs). O(instances)."""
        tasks, current = self.tasks, self.current_run
        up = 0
        for i in range(instances):
            mid = current.get(f"{job}-{i}")
            if mid is not None and tasks[mid].state == TaskState.RUNNING:
                up += 1
        return instances - up

    def _forget(self, entry: TaskEntry) -> None:
        """Drop a task everywhere; release what it held."""
        if self.tasks.pop(entry.mesos_task_id, None) is not None:
            self.state_counts[entry.state] -= 1
            if self.job_sla:
                job = entry.task_id.rpartition("-")[0]
                sla = self.job_sla.get(job)
                if sla is not None:
                    sla[2] -= 1
                    if sla[2] <= 0:
                        del self.job_sla[job]
        if self.current_run.get(entry.task_id) == entry.mesos_task_id:
            del self.current_run[entry.task_id]
        pool = self.pools.get(entry.pool)
        gang = self.gangs.get(entry.gang)
        revocable = gang is not None and gang.revocable
        if entry.state == TaskState.PREEMPTING:
            self._unfree(entry, revocable)
        elif entry.state != TaskState.PENDING and gang is not None and gang.preemptible:
            self._unindex(entry, revocable)
        if entry.state == TaskState.PENDING:
            if pool is not None:
                if revocable:
                    pool.slack_demand = (pool.slack_demand - entry.resources).clamp_zero()
                else:
                    pool.demand = (pool.demand - entry.resources).clamp_zero()
        else:
            self._release(entry.pool, entry.resources, gang)
        self._stale = True
        if gang is not None and entry.mesos_task_id in gang.tasks:
            gang.tasks.remove(entry.mesos_task_id)
            gang.resources = (gang.resources - entry.resources).clamp_zero()
            if not gang.tasks:
                del self.gangs[gang.id]
                if gang.queued:
                    self._went(gang.pool)

    def _went(self, pool_id: str) -> None:
        """A gang whose id sits in one of the leaf's queues is gone."""
        gone = self.gone[pool_id] = self.gone.get(pool_id, 0) + 1
        if gone >= SWEEP_MIN:
            self._sweep_due.add(pool_id)

    def _dropped_gone(self, pool_id: str) -> None:
        """A queue's head dropped a gone gang's id."""
        gone = self.gone.get(pool_id, 0)
        if gone > 1:
            self.gone[pool_id] = gone - 1
        elif gone:
            del self.gone[pool_id]

    def queued_ids(self, pool_id: str) -> int:
        """The ids in the leaf's admission and READY queues, gone gangs'
        included. O(queues x priorities)."""
        return sum(len(gangs) for queue in self.queues.get(pool_id, {}).values()
                   for gangs in queue.values()) + self.ready.count(pool_id)

    def _sweep(self) -> None:
        """At the end of a command: sweep the leaves where gone gangs are a
        quarter of the ids queued or more (each sweep is O(ids), so a gone
        gang costs O(1) of sweeping), then none of their ids is gone."""
        due, self._sweep_due = self._sweep_due, set()
        gangs = self.gangs

        def live(gid: int) -> bool:
            gang = gangs.get(gid)
            return gang is not None and bool(gang.tasks)

        for pool_id in due:  # leaves are independent: their order does not matter
            if self.gone.get(pool_id, 0) * 4 < self.queued_ids(pool_id):
                continue
            for queue in self.queues.get(pool_id, {}).values():
                for priority in list(queue):
                    kept = deque(gid for gid in queue[priority] if live(gid))
                    if kept:
                        queue[priority] = kept
                    else:
                        del queue[priority]
            self.ready.sweep(pool_id, live)
            self.gone.pop(pool_id, None)

    def _release(self, pool_id: str, amount: Resources, gang: Gang | None) -> None:
        if pool_id not in self.pools:
            return
        leaf = self.pools[pool_id]
        revocable = gang is not None and gang.revocable
        if gang is not None:
            if not gang.preemptible and not gang.revocable:
                leaf.np_allocation = (leaf.np_allocation - amount).clamp_zero()
            if gang.controller and not gang.revocable:
                leaf.controller_allocation = (leaf.controller_allocation - amount).clamp_zero()
        for pool in respool.ancestors(self.pools, pool_id):
            pool.allocation = (pool.allocation - amount).clamp_zero()
            if revocable:
                pool.slack_allocation = (pool.slack_allocation - amount).clamp_zero()

    def _allocate(self, gang: Gang, amount: Resources) -> None:
        """Count ``amount`` (gangs of ``gang``'s pool and kind) as allocated."""
        leaf = self.pools[gang.pool]
        if not gang.preemptible and not gang.revocable:
            leaf.np_allocation = leaf.np_allocation + amount
        if gang.controller and not gang.revocable:
            leaf.controller_allocation = leaf.controller_allocation + amount
        if gang.revocable:
            leaf.slack_demand = (leaf.slack_demand - amount).clamp_zero()
        else:
            leaf.demand = (leaf.demand - amount).clamp_zero()
        for p in respool.ancestors(self.pools, gang.pool):
            p.allocation = p.allocation + amount
            if gang.revocable:
                p.slack_allocation = p.slack_allocation + amount
        self._stale = True

    def _index(self, entry: TaskEntry, revocable: bool) -> None:
        """Add an admitted task of a preemptible gang (or move it to the end:
        it is the most recently started now)."""
        bucket = self.victims.setdefault((entry.pool, revocable), {}).setdefault(
            entry.priority, {})
        bucket.pop(entry.mesos_task_id, None)
        bucket[entry.mesos_task_id] = None

    def _unindex(self, entry: TaskEntry, revocable: bool) -> None:
        key = (entry.pool, revocable)
        buckets = self.victims.get(key)
        bucket = buckets.get(entry.priority) if buckets is not None else None
        if bucket is None or entry.mesos_task_id not in bucket:
            return
        del bucket[entry.mesos_task_id]
        if not bucket:
            del buckets[entry.priority]  # type: ignore[union-attr]
            if not buckets:
                del self.victims[key]

    def _unfree(self, entry: TaskEntry, revocable: bool) -> None:
        """A PREEMPTING task ends or is superseded: it frees what it held."""
        freeing = self.freeing.get(entry.pool)
        if freeing is not None:
            freeing[revocable] = (freeing[revocable] - entry.resources).clamp_zero()
            if freeing[0].is_zero() and freeing[1].is_zero():
                del self.freeing[entry.pool]
        queue = self.preemptions.get(entry.shard)
        if queue is not None:
            queue.discard(entry.mesos_task_id)
            if not queue:
                del self.preemptions[entry.shard]

    def _queue(self, pool_id: str, queue: str, gang: Gang) -> None:
        # (No setdefault: its default, a new dict and deque, was made for
        # every gang of every enqueue.)
        by_priority = self.queues[pool_id].get(queue)
        if by_priority is None:
            by_priority = self.queues[pool_id][queue] = {}
        gangs = by_priority.get(gang.priority)
        if gangs is None:
            gangs = by_priority[gang.priority] = deque()
        gangs.append(gang.id)
        gang.queued = True

    def _to_ready_single(self, entry: TaskEntry) -> None:
        """Place one admitted task again, as a gang of its own."""
        old = self.gangs.get(entry.gang)
        flags = (True, False, False)
        if old is not None:
            flags = (old.preemptible, old.controller, old.revocable)
        if old is not None and entry.mesos_task_id in old.tasks:
            old.tasks.remove(entry.mesos_task_id)
            old.resources = (old.resources - entry.resources).clamp_zero()
            if not old.tasks:
                del self.gangs[old.id]
                if old.queued:
                    self._went(old.pool)
        gang = Gang(self.next_gang, entry.pool, entry.priority, [entry.mesos_task_id],
                    entry.resources, *flags)
        self.next_gang += 1
        self.gangs[gang.id] = gang
        self._set_state(entry, TaskState.READY)
        entry.gang, entry.placement, entry.deadline = gang.id, None, 0
        self.ready.append(gang.id)

    def _gang_to_pending(self, gang: Gang, why: str) -> None:
        """A READY or PLACING victim: back to PENDING, whole, as a new gang
        (its old id may still sit in the READY queue or with a placement
        worker; both find it gone); its allocation becomes demand again."""
        pool = self.pools[gang.pool]
        self._release(gang.pool, gang.resources, gang)
        if gang.revocable:
            pool.slack_demand = pool.slack_demand + gang.resources
        else:
            pool.demand = pool.demand + gang.resources
        new = Gang(self.next_gang, gang.pool, gang.priority, list(gang.tasks), gang.resources,
                   gang.preemptible, gang.controller, gang.revocable)
        self.next_gang += 1
        if gang.queued:
            self._went(gang.pool)  # its old id stays in the queue
        del self.gangs[gang.id]
        self.gangs[new.id] = new
        for mid in new.tasks:
            entry = self.tasks[mid]
            self._unindex(entry, gang.revocable)
            self._set_state(entry, TaskState.PENDING)
            entry.gang, entry.deadline, entry.placement, entry.reason = new.id, 0.0, None, why
        self._queue(gang.pool, PENDING, new)
        self._stale = True

    def _to_preempting(self, entry: TaskEntry, revocable: bool, why: str) -> None:
        """A RUNNING victim: PREEMPTING, still allocated until its run ends,
        queued for its shard's owner to kill."""
        self._unindex(entry, revocable)
        self._set_state(entry, TaskState.PREEMPTING)
        entry.reason = why
        freeing = self.freeing.setdefault(entry.pool, [ZERO, ZERO])
        freeing[revocable] = freeing[revocable] + entry.resources
        queue = self.preemptions.get(entry.shard)
        if queue is None:
            queue = self.preemptions[entry.shard] = PreemptionQueue()
        queue.add(entry.mesos_task_id)
