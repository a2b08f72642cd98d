"""The resmgr replicated state machine. Pure: no clock, randomness or I/O.

It holds what Peloton kept in resmgr memory and ZooKeeper: the pool tree,
the task tracker, per-pool pending queues, the READY queue, placements
waiting for their jobmgr shard, the membership of the other daemons and the
jobmgr shard map. ``apply(blob)`` takes one msgpack command (see
``peloton.raft.codec``) and returns ``[ok, value]``; the leader stamps the
time into every command that needs one, so replicas that apply the same log
reach the same state (tests/resmgr/test_state.py replays a log twice).
Every applied command also steps ``chain``, a running digest of the
commands, their results and ``summary()`` that replicas publish and compare
(``peloton.resmgr.digest``; tests/resmgr/test_digest.py).

Task life in resmgr::

    enqueue -> PENDING --admission--> READY --dequeue--> PLACING
    PLACING --set placements--> PLACED --get placements--> LAUNCHING
    LAUNCHING --update--> RUNNING ... --update(terminal)--> forgotten
    PLACING/LAUNCHING past their deadline -> READY (placed again; a PLACING
    gang goes back whole, a LAUNCHING task alone)
    READY/PLACING --preempted--> PENDING (the gang whole, admitted again later)
    RUNNING --preempted--> PREEMPTING --update(terminal)--> forgotten

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
change any of them mark it stale; it is recomputed once before admission
runs and once at the end of the command, so ``entitlements`` always equals
``compute`` of the current state (no clock: replicas agree, and a restored
snapshot recomputes the same numbers). Whatever changed the inputs runs an
admission pass over every leaf, in tree order; ``cluster.tick`` runs one too,
as Peloton's periodic task scheduler does.

Preemption (reference/peloton.md §4.7; the ranking is
``peloton.resmgr.preemption``) runs in ``cluster.tick``, before its
admission pass, once capacity is known. A leaf is *over* when its non-slack
allocation exceeds its non-slack entitlement, or its slack allocation its
slack entitlement, in any kind, by more than its PREEMPTING tasks will free.
``over_since`` notes the tick time a leaf was first seen over and forgets
it as soon as a tick sees it within; a leaf over for ``sustain`` seconds
(the tick's ``sustain``, else PREEMPTION_SUSTAIN_S) gives back the excess
and its timer starts again: revocable tasks cover the slack excess, then
preemptible non-revocable ones the non-slack excess, taken greedily in
Peloton's order (READY, PLACING, RUNNING; ascending priority; most
recently started first; a task that frees no needed kind is skipped).
Non-preemptible tasks are never candidates; nor are tasks being placed or
launched (PLACED, LAUNCHING), so a launch is never cut in half.

* A READY or PLACING victim goes back to PENDING with its whole gang (under
  a new gang id: the READY queue and the placement worker holding the old
  one find it gone) when the whole gang is in that state; its allocation
  becomes demand again. A gang part of which has moved on is left alone.
* A RUNNING victim becomes PREEMPTING: still allocated (and counted in
  ``freeing``) until its run's terminal update, queued once in its jobmgr
  shard's ``PreemptionQueue``. The shard's owner takes victims in batches
  (``preemptions.get``), kills them and reports their end; a victim
  handed out and still tracked PREEMPTION_REDELIVER_S later is handed out
  again (at least once: an owner may die mid-kill). Non-terminal reports
  never undo PREEMPTING.

Priority preemption (our extension; Peloton never built it), in leaves whose
config sets ``priorityPreemption``: the leaf's waiting gangs, highest
priority first (at most PRIORITY_GANGS_PER_TICK a tick), each take the room
their entitlement or a limit denies them from the same leaf's preemptible
tasks of their own kind (revocable or not) and of strictly lower priority,
in the same order: all a gang needs or none, and the walk stops at the
first gang it cannot serve. A gang the controller limit or the reservation
rule refuses is passed over (so a non-preemptible gang is never admitted
beyond the reservation). Nothing is taken until the first gang lacking
room has waited ``sustain`` seconds (``starved_since``).

Candidates come from ``victims``, an index per (leaf, revocable) of
priority -> admitted tasks of preemptible gangs, in the order they were
admitted or last became RUNNING (one dict entry a task; PENDING and
PREEMPTING tasks are not in it). A tick costs O(pools); a pool's index is
walked only when it has been over for the sustain period, and only as far
as the victims go (READY and PLACING tasks are found in one sweep). The
index order, the timers and the queues are part of the snapshot; a
snapshot from before preemption gets an index in tracker order.
"""

from __future__ import annotations

import collections
import hashlib
import heapq
import math
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import msgpack

from peloton.core.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PelotonError,
)
from peloton.core.resources import EPSILON, KINDS, ZERO, Resources
from peloton.core.states import TERMINAL_TASK_STATES, TaskState
from peloton.raft.codec import Command, decode
from peloton.resmgr import digest as chain_digest
from peloton.resmgr import entitlement, preemption, respool
from peloton.resmgr.entitlement import Entitlement, PoolInput
from peloton.resmgr.preemption import excess, needs
from peloton.resmgr.respool import ROOT, Pool, ResourceSpec
from peloton.shard.assignment import Ownership, assign
from peloton.shard.partition import DEFAULT_NUM_SHARDS

PLACING_TIMEOUT = 30.0
# Peloton's ``preemption.enabled``: pools over their entitlement give back
# the excess, and the reservation admitter keeps non-preemptible work
# within reservations (elastic capacity stays reclaimable).
PREEMPTION_ENABLED = True
# How long a leaf must stay over its entitlement (or a gang wait for
# priority preemption) before tasks are preempted, in state seconds; a
# cluster.tick may name another (the cluster file's preemption.sustain_s).
PREEMPTION_SUSTAIN_S = 10.0
# A victim handed to its jobmgr shard owner and still not ended is handed
# out again after this long (the owner may have died before killing it).
PREEMPTION_REDELIVER_S = 60.0
# Waiting gangs priority preemption walks per leaf and tick, at most.
PRIORITY_GANGS_PER_TICK = 1000
LAUNCHING_TIMEOUT = 60.0
# What ``pending_gangs`` calls admitted gangs that wait for placement.
PLACEMENT_QUEUE = "placement"
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
# Results kept for idempotent retries: the last RECENT_KEYS commands, and of
# those only the ones applied in the last RECENT_S seconds (a caller retries
# within its 10 s deadline; a get_placements result holds 100 placements).
RECENT_KEYS = 10000
RECENT_S = 60.0
# Full-state digests a replica keeps (and may have due) at once, and how far
# ahead of its applied index one may be asked for (so none stays due long).
FULL_DIGESTS = 8
FULL_DIGEST_AHEAD = 100_000

# The flags of a task row in gangs.enqueue.
TASK_PREEMPTIBLE, TASK_CONTROLLER, TASK_REVOCABLE = 1, 2, 4

# A leaf's queues, in the order an admission pass visits them.
NON_PREEMPTIBLE, CONTROLLER, REVOCABLE, PENDING = (
    "non-preemptible", "controller", "revocable", "pending")
QUEUES = (NON_PREEMPTIBLE, CONTROLLER, REVOCABLE, PENDING)


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
        self._size += 1

    def popleft(self) -> int:
        """The next gang id, taking pools in turn (IndexError when empty)."""
        pool = self._turn.popleft()
        queue = self._by_pool[pool]
        gang_id = queue.popleft()
        self._size -= 1
        if queue:
            self._turn.append(pool)
        else:
            del self._by_pool[pool]
        return gang_id

    def __len__(self) -> int:
        return self._size

    def __bool__(self) -> bool:
        return self._size > 0

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
        """Restore from ``dump()`` (or from the old flat list of gang ids)."""
        self._by_pool.clear()
        self._turn.clear()
        self._size = 0
        for row in rows:
            if isinstance(row, int):
                if row in self._gangs:
                    self.append(row)
                continue
            pool, ids = row
            self._by_pool[pool] = deque(ids)
            self._turn.append(pool)
            self._size += len(ids)


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


class ResmgrState:
    """See the module docstring. Mutated only through ``apply``."""

    def __init__(self, num_shards: int = DEFAULT_NUM_SHARDS, *, pinned: bool = False) -> None:
        # The jobmgr shard count: the cluster file's until the first
        # heartbeat that names one pins it (shard.__init__ has the protocol).
        self.num_shards = num_shards
        self.shards_pinned = pinned
        self.now = 0.0
        self.pools: dict[str, Pool] = {ROOT: respool.new_root()}
        self.tasks: dict[str, TaskEntry] = {}
        self.current_run: dict[str, str] = {}  # task id -> mesos task id
        self.gangs: dict[int, Gang] = {}
        # leaf pool -> queue name (QUEUES) -> priority -> gang ids
        self.queues: dict[str, dict[str, dict[int, deque[int]]]] = {}
        self.ready = ReadyQueue(self.gangs)
        self.placements: dict[int, deque[list[Any]]] = {}  # shard -> placements
        self.members: dict[str, Member] = {}
        self.shards: dict[int, Ownership] = {}
        self.capacity: dict[str, Resources] = {}
        # Allocated-but-idle resources per cluster, as its hostmgr reports
        # them: what revocable gangs may use (the slack entitlement's root).
        self.slack_capacity: dict[str, Resources] = {}
        self.next_gang = 1
        self.applied = 0
        # Derived from the above (never snapshotted): see the module docstring.
        self.entitlements: dict[str, Entitlement] = {}
        # Tasks per state, kept as states change (reads never scan the tracker).
        self.state_counts: collections.Counter[int] = collections.Counter()
        # (deadline, mesos task ids) in the order set; PLACING's and
        # LAUNCHING's timeouts are constants and ``now`` never goes back, so
        # each deque is sorted and ``tick`` pops only what expired. Entries
        # are checked against the task when popped (it may have moved on).
        self.deadlines: dict[int, deque[tuple[float, list[str]]]] = {
            TaskState.PLACING: deque(), TaskState.LAUNCHING: deque()}
        # READY gangs backing off after a failed placement: a heap of
        # (retry_at, gang id); ``tick`` hands the due ones to placement.
        self.backoff: list[tuple[float, int]] = []
        # One Resources tuple per distinct task shape (a million tasks of a
        # thousand jobs share a handful).
        self._shapes: dict[Resources, Resources] = {}
        # Preemption (module docstring). The candidates of each leaf, split
        # by revocable: priority -> mesos task ids of admitted tasks of
        # preemptible gangs, in the order they were admitted or last became
        # RUNNING (the last is the most recently started). PENDING and
        # PREEMPTING tasks are not in it. One dict entry a task.
        self.victims: dict[tuple[str, bool], dict[int, dict[str, None]]] = {}
        # Leaf -> the state time since which it has been over its
        # entitlement (by more than its PREEMPTING tasks will free).
        self.over_since: dict[str, float] = {}
        # Leaf -> [gang id, since]: the waiting gang priority preemption is
        # for, and since when it has waited for it.
        self.starved_since: dict[str, list[Any]] = {}
        # jobmgr shard -> RUNNING victims to kill (PREEMPTING tasks).
        self.preemptions: dict[int, PreemptionQueue] = {}
        # Derived (rebuilt on restore): what each leaf's PREEMPTING tasks
        # still hold, [non-slack, slack]; freed when their runs end.
        self.freeing: dict[str, list[Resources]] = {}
        self._stale = True
        self._entitle()
        self.recent: OrderedDict[str, tuple[float, Any]] = OrderedDict()
        # The running digest of the applied commands (peloton.resmgr.digest):
        # replicated and snapshotted; ``chain_since`` is the applied index it
        # started from (0: the start of the log).
        self.chain = chain_digest.seed(0)
        self.chain_since = 0
        # Diagnostics of this replica since it started; not part of the state.
        self.command_counts: collections.Counter[str] = collections.Counter()
        self.command_items: collections.Counter[str] = collections.Counter()
        self.history = chain_digest.History()  # its last (applied index, chain) pairs
        self.history.record(self.applied, self.chain)
        # Full-state digests asked for (``digest_full_at``), by applied index.
        self.full_digest_due: set[int] = set()
        self.full_digests: OrderedDict[int, str] = OrderedDict()

    # -- entry point ----------------------------------------------------
    def apply(self, blob: bytes) -> Any:
        command = decode(blob)
        self.applied += 1
        self.command_counts[command.name] += 1
        self.command_items[command.name] += _items(command.payload)
        if command.key and command.key in self.recent:
            result = self.recent[command.key][1]
        else:
            result = self._run(command)
        try:
            tail = msgpack.packb([result, self.summary()], use_bin_type=True)
        except (TypeError, ValueError):  # not msgpack: the same on every replica
            tail = msgpack.packb([type(result).__name__, self.summary()], use_bin_type=True)
        self.chain = chain_digest.step(self.chain, blob, tail)
        self.history.record(self.applied, self.chain)
        if self.full_digest_due and self.applied in self.full_digest_due:
            self._full_digest_now()
        return result

    def _run(self, command: Command) -> Any:
        handler = COMMANDS.get(command.name)
        if handler is None:
            result: Any = [False, ["InvalidArgument", f"unknown command {command.name}", None]]
        else:
            try:
                result = [True, handler(self, command.payload)]
            except PelotonError as error:
                result = [False, [type(error).__name__, error.message, error.field]]
            except Exception as error:  # a bug; every replica hits it the same way
                result = [False, ["Internal", f"{command.name} failed: {error!r}", None]]
        self._entitle()  # what reads see is never stale
        if command.key:
            recent = self.recent
            recent[command.key] = (self.now, result)
            while recent and (len(recent) > RECENT_KEYS
                              or next(iter(recent.values()))[0] < self.now - RECENT_S):
                recent.popitem(last=False)
        return result

    def _set_state(self, entry: TaskEntry, state: int) -> None:
        counts = self.state_counts
        counts[entry.state] -= 1
        counts[state] += 1
        entry.state = state

    def _shape(self, vector: list[float]) -> Resources:
        r = Resources(*vector)
        return self._shapes.setdefault(r, r)

    # -- pools ----------------------------------------------------------
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
        self.over_since.pop(pool.id, None)
        self.starved_since.pop(pool.id, None)
        self.freeing.pop(pool.id, None)
        self._stale = True
        self._schedule()

    # -- tasks ----------------------------------------------------------
    def _forget(self, entry: TaskEntry) -> None:
        """Drop a task everywhere; release what it held."""
        if self.tasks.pop(entry.mesos_task_id, None) is not None:
            self.state_counts[entry.state] -= 1
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

    # -- the victim index ------------------------------------------------
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

    def enqueue(self, p: dict[str, Any]) -> list[list[str]]:
        """Queue gangs in a leaf pool. Idempotent per run; newer runs supersede.

        A gang is a list of task rows ``[mesos task id, task id, run, shard,
        priority, resources, task bytes, flags]`` (flags: TASK_PREEMPTIBLE |
        TASK_CONTROLLER | TASK_REVOCABLE); journals from before rows hold
        one dict a task with those names, and still apply."""
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
            total = shapes[0] if len(shapes) == 1 else Resources.sum(shapes)
            revocable = all(t[7] & TASK_REVOCABLE for t in fresh)
            counted = _regular(total, revocable)
            if not counted.fits_in(limit):
                for t in fresh:
                    failed.append([t[0], "gang needs more than the pool's limit: "
                                   + ", ".join(counted.exceeding(limit))])
                continue
            gang = Gang(self.next_gang, pool.id, max(t[4] for t in fresh),
                        [t[0] for t in fresh], total,
                        preemptible=all(t[7] & TASK_PREEMPTIBLE for t in fresh),
                        controller=any(t[7] & TASK_CONTROLLER for t in fresh),
                        revocable=revocable)
            self.next_gang += 1
            self.gangs[gang.id] = gang
            for t, shape in zip(fresh, shapes, strict=True):
                entry = TaskEntry(t[0], t[1], pool.id, t[3], TaskState.PENDING, shape, t[4],
                                  gang.id, t[6])
                self.tasks[entry.mesos_task_id] = entry
                self.current_run[entry.task_id] = entry.mesos_task_id
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
        return failed

    def _queue(self, pool_id: str, queue: str, gang: Gang) -> None:
        self.queues[pool_id].setdefault(queue, {}).setdefault(gang.priority, deque()).append(
            gang.id)

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
        gang = Gang(self.next_gang, entry.pool, entry.priority, [entry.mesos_task_id],
                    entry.resources, *flags)
        self.next_gang += 1
        self.gangs[gang.id] = gang
        self._set_state(entry, TaskState.READY)
        entry.gang, entry.placement, entry.deadline = gang.id, None, 0
        self.ready.append(gang.id)

    # -- entitlement and admission ------------------------------------
    def capacity_known(self) -> bool:
        return not self.total_capacity().is_zero()

    def _entitle(self) -> None:
        """Recompute every pool's entitlement if its inputs changed."""
        if not self._stale:
            return
        self._stale = False
        inputs = {}
        for p in self.pools.values():
            leaf = p.is_leaf()
            inputs[p.id] = PoolInput(
                id=p.id, parent=p.parent, children=tuple(p.children),
                reservation=p.reservation(), limit=p.limit(), share=p.share(),
                static=p.static(),
                demand=p.demand if leaf else ZERO,
                allocation=(p.allocation - p.slack_allocation).clamp_zero() if leaf else ZERO,
                slack_demand=p.slack_demand if leaf else ZERO,
                slack_allocation=p.slack_allocation if leaf else ZERO,
                slack_limit_pct=p.slack_limit)
        self.entitlements = entitlement.compute(inputs, ROOT, self.total_capacity(),
                                               self.total_slack_capacity())

    def _schedule(self) -> None:
        """One admission pass: fresh entitlements, then every leaf with
        waiting gangs, in tree order (so every replica admits the same)."""
        self._entitle()
        for leaf in respool.leaves(self.pools, ROOT):
            if any(self.queues.get(leaf, {}).values()):
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
        ent = self.entitlements.get(pool.id)
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
                        continue
                    if (gang.preemptible, gang.controller, gang.revocable) != flags:
                        if kin is not None and admitted:
                            self._allocate(kin, Resources.sum(admitted))
                            admitted = []
                        flags = (gang.preemptible, gang.controller, gang.revocable)
                        kin, room = gang, self._room(gang)
                    need = gang.resources
                    if not all(n <= 0.0 or n <= r + EPSILON
                               for n, r in zip(need, room, strict=True)):
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

    def dequeue(self, p: dict[str, Any]) -> list[list[str]]:
        """Hand up to ``limit`` READY gangs to a placement worker (-> PLACING).

        Returns the gangs' mesos task ids, not the tasks: results are kept
        for idempotent retries, so they must stay small; the caller reads
        the tasks from the tracker.
        """
        out: list[list[str]] = []
        deadline = self.now + PLACING_TIMEOUT
        while self.ready and len(out) < p["limit"]:
            gang = self.gangs.get(self.ready.popleft())
            if gang is None or not gang.tasks:
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

    def set_placements(self, p: dict[str, Any]) -> None:
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
                self.placements.setdefault(shard, deque()).append(
                    [hostname, agent, lease, cluster, refs])
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
                    heapq.heappush(self.backoff, (gang.retry_at, gid))

    def get_placements(self, p: dict[str, Any]) -> list[list[Any]]:
        """Up to ``limit`` placements of the given shards (-> LAUNCHING),
        taken from the shards in turn, one at a time: drained in the order
        listed, a backlog in the first shards kept the last ones waiting
        call after call (probe jobs waited 13-23 s in the 1M load test)."""
        out: list[list[Any]] = []
        deadline = self.now + LAUNCHING_TIMEOUT
        launching: list[str] = []
        queues = [(s, q) for s in dict.fromkeys(p["shards"]) if (q := self.placements.get(s))]
        while queues and len(out) < p["limit"]:
            still: list[tuple[int, deque[list[Any]]]] = []
            for shard, queue in queues:
                if len(out) >= p["limit"]:
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
                        self._set_state(entry, TaskState.LAUNCHING)
                        entry.deadline = deadline
                        live.append([mid, tid, ports])
                        launching.append(mid)
                if live:
                    out.append([hostname, agent, lease, cluster, live])
                if queue:
                    still.append((shard, queue))
                else:
                    del self.placements[shard]
            queues = still
        if launching:
            self.deadlines[TaskState.LAUNCHING].append((deadline, launching))
        return out

    def update_tasks(self, p: dict[str, Any]) -> None:
        released = False
        for mid, state in p["updates"]:
            entry = self.tasks.get(mid)
            if entry is None:
                continue
            if state in TERMINAL_TASK_STATES:
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
        # Released allocation frees the ancestors' limits and changes
        # entitlements: any leaf's queue may move.
        if released:
            self._schedule()

    # -- membership and shards -----------------------------------------
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
            self._assign_shards()
        return self.view()

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
        """Hand back to placement the gangs whose backoff ended (a gang that
        moved on meanwhile, or was admitted afresh, has another retry_at)."""
        while self.backoff and self.backoff[0][0] <= self.now:
            retry_at, gid = heapq.heappop(self.backoff)
            gang = self.gangs.get(gid)
            if gang is None or gang.retry_at != retry_at or not gang.tasks:
                continue
            gang.retry_at = 0.0
            if all(self.tasks[m].state == TaskState.READY for m in gang.tasks):
                self.ready.append(gid)

    # -- preemption -----------------------------------------------------
    def _preempt(self, sustain: float) -> None:
        """Inter-pool preemption of every leaf over its entitlement for
        ``sustain`` seconds, then priority preemption in leaves that ask for
        it (module docstring). Leaves in tree order: replicas agree."""
        if not PREEMPTION_ENABLED or not self.capacity_known():
            self.over_since.clear()
            self.starved_since.clear()
            return
        self._entitle()
        for leaf in respool.leaves(self.pools, ROOT):
            ent = self.entitlements.get(leaf)
            if ent is None:
                continue
            pool = self.pools[leaf]
            freeing = self.freeing.get(leaf, [ZERO, ZERO])
            used = (pool.allocation - pool.slack_allocation).clamp_zero() - freeing[0]
            slack_used = pool.slack_allocation - freeing[1]
            non_slack = excess(used, ent.non_slack_entitlement)
            slack = excess(slack_used, ent.slack_entitlement)
            if needs(non_slack) or needs(slack):
                since = self.over_since.setdefault(leaf, self.now)
                if self.now - since >= sustain:
                    del self.over_since[leaf]  # Peloton resets its counter
                    path = respool.path_of(self.pools, leaf)
                    if needs(slack):
                        self._give_back(leaf, True, slack, (
                            f"pool {path} uses more slack than its slack entitlement: "
                            + ", ".join(slack_used.exceeding(ent.slack_entitlement))))
                    if needs(non_slack):
                        self._give_back(leaf, False, non_slack, (
                            f"pool {path} uses more than its entitlement: "
                            + ", ".join(used.exceeding(ent.non_slack_entitlement))))
            else:
                self.over_since.pop(leaf, None)
            if pool.priority_preemption:
                self._priority_preempt(leaf, sustain)
            else:
                self.starved_since.pop(leaf, None)

    def _priority_preempt(self, leaf: str, sustain: float) -> None:
        """Our extension (module docstring). The leaf's waiting gangs,
        highest priority first, each take the room they lack from the leaf's
        preemptible tasks of their own kind (revocable or not) and of strictly
        lower priority: all a gang needs or none, and the walk stops at the
        first gang it cannot serve. Nothing happens until the first gang that
        lacks room has waited ``sustain`` seconds. Plans first, then acts."""
        self._entitle()
        pool, ent = self.pools[leaf], self.entitlements[leaf]
        freeing = self.freeing.get(leaf, [ZERO, ZERO])
        # What the pool will hold once its PREEMPTING tasks ended, the
        # victims chosen so far are gone and the gangs served so far admitted.
        used = [(pool.allocation - pool.slack_allocation).clamp_zero() - freeing[0],
                pool.slack_allocation - freeing[1]]
        bound = [ent.non_slack_entitlement, ent.slack_entitlement]
        ancestors = respool.ancestors(self.pools, leaf)
        limits = [p.limit() for p in ancestors]
        # Against limits: the slack cpu of revocable tasks does not count.
        freed_for_limits = freeing[0] + _regular(freeing[1], True)
        held = [limit_usage(p) - freed_for_limits for p in ancestors]
        kinds = [pool.np_allocation, pool.controller_allocation]
        streams: dict[bool, Iterator[tuple[Any, Resources, int]]] = {}
        plan: list[tuple[Gang, list[Any]]] = []
        first: Gang | None = None
        for n, gang in enumerate(self._waiting(leaf)):
            if n >= PRIORITY_GANGS_PER_TICK:
                break
            r, c = gang.resources, int(gang.revocable)
            counted = _regular(r, gang.revocable)
            if not self._kind_admits(pool, gang, kinds):
                continue  # preempting other tasks cannot help it
            need = excess(used[c] + r, bound[c])
            for amount, limit in zip(held, limits, strict=True):
                need = Resources(*map(max, need, excess(amount + counted, limit)))
            if needs(need):
                if first is None:
                    first = gang
                    mark = self.starved_since.get(leaf)
                    if mark is None or mark[0] != gang.id:
                        mark = self.starved_since[leaf] = [gang.id, self.now]
                    if self.now - mark[1] < sustain:
                        return
                if gang.revocable not in streams:
                    # Gangs come by descending priority: nothing at or above
                    # this one's priority is ever a candidate (not even walked).
                    streams[gang.revocable] = self._units(
                        self.victims.get((leaf, gang.revocable), {}), gang.priority)
                lower = ((key, res) for key, res, priority in streams[gang.revocable]
                         if priority < gang.priority)
                chosen, _ = preemption.select(lower, need, whole=True)
                if not chosen:
                    break
                freed = Resources.sum([self.gangs[k].resources if isinstance(k, int)
                                       else self.tasks[k].resources for k in chosen])
                used[c] = used[c] - freed
                held = [amount - _regular(freed, gang.revocable) for amount in held]
                plan.append((gang, chosen))
            used[c] = used[c] + r
            held = [amount + counted for amount in held]
            if not gang.preemptible and not gang.revocable:
                kinds[0] = kinds[0] + r
            if gang.controller and not gang.revocable:
                kinds[1] = kinds[1] + r
        if first is None:
            self.starved_since.pop(leaf, None)
            return
        del self.starved_since[leaf]  # acted (or could not): wait a period again
        path = respool.path_of(self.pools, leaf)
        whys = [f"priority preemption in pool {path}: a gang of priority {gang.priority} "
                f"waits ({self.refusal(gang)})" for gang, _ in plan]
        for (gang, chosen), why in zip(plan, whys, strict=True):
            for key in chosen:
                if isinstance(key, int):
                    self._gang_to_pending(self.gangs[key], why)
                else:
                    self._to_preempting(self.tasks[key], gang.revocable, why)

    def _waiting(self, leaf: str) -> Iterator[Gang]:
        """The leaf's waiting gangs by descending priority, across its queues
        (QUEUES order on a tie, FIFO within a queue and priority)."""
        queues = self.queues.get(leaf) or {}

        def of(queue: dict[int, deque[int]]) -> Iterator[Gang]:
            for priority in sorted(queue, reverse=True):
                for gid in queue[priority]:
                    gang = self.gangs.get(gid)
                    if gang is not None and gang.tasks:
                        yield gang

        return heapq.merge(*(of(queues[name]) for name in QUEUES if queues.get(name)),
                           key=lambda g: -g.priority)

    def _kind_admits(self, pool: Pool, gang: Gang, kinds: list[Resources]) -> bool:
        """The admitters preemption cannot satisfy: the controller limit and
        the reservation rule, against ``kinds`` = [non-preemptible,
        controller] allocation (including gangs planned ahead of this one)."""
        r = gang.resources
        limit = pool.controller_limit_resources()
        if gang.controller and not gang.revocable and limit is not None and _over(
                kinds[1], r, limit):
            return False
        return not (PREEMPTION_ENABLED and not gang.preemptible and not gang.revocable
                    and _over(kinds[0], r, pool.reservation()))

    def _give_back(self, leaf: str, revocable: bool, need: Resources, why: str, *,
                   below: int | None = None, whole: bool = False) -> None:
        """Preempt the leaf's candidates of one kind (revocable or not) in
        Peloton's order until ``need`` is covered (``preemption.select``)."""
        buckets = self.victims.get((leaf, revocable))
        if not buckets:
            return
        units = ((key, held) for key, held, _ in self._units(buckets, below))
        chosen, _ = preemption.select(units, need, whole=whole)
        for key in chosen:
            if isinstance(key, int):
                self._gang_to_pending(self.gangs[key], why)
            else:
                self._to_preempting(self.tasks[key], revocable, why)

    def _units(self, buckets: dict[int, dict[str, None]],
               below: int | None) -> Iterator[tuple[Any, Resources, int]]:
        """Candidates as ``(key, resources, priority)`` in rank order: a
        RUNNING task alone (key: its id), a READY or PLACING task with its
        whole gang (key: the gang id, priority: the gang's) when the gang is
        all in that state; a gang part of which moved on is left alone this
        time (it is being placed). Reads the state: consume before changing it."""
        tasks, gangs = self.tasks, self.gangs
        seen: set[int] = set()
        for mid in preemption.ranked(buckets, lambda m: tasks[m].state, below=below):
            entry = tasks[mid]
            if entry.state == TaskState.RUNNING:
                yield mid, entry.resources, entry.priority
                continue
            if entry.gang in seen:
                continue
            seen.add(entry.gang)
            gang = gangs[entry.gang]
            if (below is None or gang.priority < below) and all(
                    tasks[m].state == entry.state for m in gang.tasks):
                yield gang.id, gang.resources, gang.priority

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

    def preemptions_due(self, shards: list[int]) -> bool:
        """Whether ``get_preemptions`` would hand out something now (a read)."""
        return any(q.due(self.now) for s in shards if (q := self.preemptions.get(s)))

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

    # -- reads (callers hold the node lock) ------------------------------
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
        backing_off = sorted((g.retry_at, g.id) for _, gid in self.backoff
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

    def total_capacity(self) -> Resources:
        return Resources.sum(list(self.capacity.values())) if self.capacity else ZERO

    def slack_needed(self, cluster: str) -> float:
        """The slack cpu ``cluster`` must provide for the revocable work that
        runs or waits: what it holds and waits for (rolled up at the root),
        less the other clusters' slack (a read; O(clusters))."""
        root = self.entitlements.get(ROOT)
        if root is None:
            return 0.0
        others = math.fsum(r.cpu for c, r in self.slack_capacity.items() if c != cluster)
        return max(0.0, root.slack_allocation.cpu + root.slack_demand.cpu - others)

    def total_slack_capacity(self) -> Resources:
        return Resources.sum(list(self.slack_capacity.values())) if self.slack_capacity else ZERO

    # -- snapshot -------------------------------------------------------
    def snapshot(self) -> bytes:
        return msgpack.packb({
            "num_shards": self.num_shards, "now": self.now, "next_gang": self.next_gang,
            "applied": self.applied,
            "pools": [[p.id, p.name, p.parent, p.config,
                       {k: [s.reservation, s.limit, s.share, s.type] for k, s in p.resources.items()},
                       p.policy, p.controller_limit, p.slack_limit, p.children,
                       list(p.allocation), list(p.demand), list(p.np_allocation),
                       list(p.controller_allocation), list(p.slack_allocation),
                       list(p.slack_demand), p.priority_preemption] for p in self.pools.values()],
            "tasks": [[e.mesos_task_id, e.task_id, e.pool, e.shard, e.state, list(e.resources),
                       e.priority, e.gang, e.task, e.deadline, e.placement, e.reason]
                      for e in self.tasks.values()],
            "gangs": [[g.id, g.pool, g.priority, g.tasks, list(g.resources), g.preemptible,
                       g.controller, g.revocable, g.attempts, g.retry_at]
                      for g in self.gangs.values()],
            "backoff": self.backoff,
            "queues": {pid: {name: [[pr, list(q)] for pr, q in queue.items()]
                             for name, queue in qs.items()}
                       for pid, qs in self.queues.items()},
            "ready": self.ready.dump(),
            "placements": [[s, list(q)] for s, q in self.placements.items()],
            "members": [[m.id, m.kind, m.address, m.cluster, m.expires, m.num_shards]
                        for m in self.members.values()],
            "shards": [[s, sh.owner, sh.epoch, sh.act_from] for s, sh in self.shards.items()],
            "shards_pinned": self.shards_pinned,
            "capacity": {c: list(r) for c, r in self.capacity.items()},
            "slack_capacity": {c: list(r) for c, r in self.slack_capacity.items()},
            "recent": [[k, at, result] for k, (at, result) in self.recent.items()],
            # The victim index's order is part of the state (it ranks victims).
            "victims": [[pool, revocable, priority, list(bucket)]
                        for (pool, revocable), buckets in self.victims.items()
                        for priority, bucket in buckets.items()],
            "over_since": [[pool, since] for pool, since in self.over_since.items()],
            "starved_since": [[pool, *mark] for pool, mark in self.starved_since.items()],
            "preemptions": [[s, q.dump()] for s, q in self.preemptions.items()],
            "chain": [self.chain_since, self.chain],
            # Non-leaves carry their leaves' slack allocation (older snapshots: 0).
            "slack_rolled_up": True,
        }, use_bin_type=True)

    def restore(self, blob: bytes) -> None:
        d = msgpack.unpackb(blob, raw=False, strict_map_key=False)
        due, done = self.full_digest_due, self.full_digests  # asked of this replica
        self.__init__(d["num_shards"])  # type: ignore[misc]
        self.now, self.next_gang, self.applied = d["now"], d["next_gang"], d["applied"]
        # A snapshot from before the chain starts one here (digest module).
        self.chain_since, self.chain = d.get("chain") or (self.applied,
                                                          chain_digest.seed(self.applied))
        self.history.record(self.applied, self.chain)
        self.full_digest_due = {i for i in due if i > self.applied}
        self.full_digests = done
        self.pools = {}
        for row in d["pools"]:
            # Snapshots before issue 4 lack the split accounting (all zero)
            # and the priority preemption flag (off).
            pid, name, parent, config, res, policy, cl, sl, children, *rest = row
            vectors = rest[:6] + [[0.0] * 4] * (6 - len(rest[:6]))
            alloc, demand, np_alloc, ctl_alloc, slack_alloc, slack_demand = (
                Resources(*v) for v in vectors)
            self.pools[pid] = Pool(pid, name, parent, config,
                                   {k: ResourceSpec(*v) for k, v in res.items()}, policy, cl, sl,
                                   children, alloc, demand, np_alloc, ctl_alloc, slack_alloc,
                                   slack_demand, bool(rest[6]) if len(rest) > 6 else False)
        if not d.get("slack_rolled_up"):
            for pool in self.pools.values():
                if pool.children and pool.id != ROOT:
                    pool.slack_allocation = Resources.sum(
                        [self.pools[leaf].slack_allocation
                         for leaf in respool.leaves(self.pools, pool.id)])
        expiring: list[TaskEntry] = []
        for row in d["tasks"]:
            e = TaskEntry(row[0], row[1], row[2], row[3], row[4], self._shape(row[5]), row[6],
                          row[7], row[8], row[9], row[10], row[11])
            self.tasks[e.mesos_task_id] = e
            self.current_run[e.task_id] = e.mesos_task_id
            self.state_counts[e.state] += 1
            if e.deadline and e.state in self.deadlines:
                expiring.append(e)
        expiring.sort(key=lambda e: e.deadline)
        for e in expiring:
            queue = self.deadlines[e.state]
            if queue and queue[-1][0] == e.deadline:
                queue[-1][1].append(e.mesos_task_id)
            else:
                queue.append((e.deadline, [e.mesos_task_id]))
        self.gangs = {g[0]: Gang(g[0], g[1], g[2], g[3], Resources(*g[4]), *g[5:10])
                      for g in d["gangs"]}
        self.backoff = [(at, gid) for at, gid in d.get("backoff", [])]  # a heap as saved
        self._restore_preemption(d)
        self.queues = {}
        for pid, qs in d["queues"].items():
            if isinstance(qs, list):  # before issue 4: the pending queue only
                qs = {PENDING: qs} if qs else {}
            self.queues[pid] = {name: {pr: deque(q) for pr, q in queue}
                                for name, queue in qs.items()}
        self.ready = ReadyQueue(self.gangs)
        self.ready.load(d["ready"])
        self.placements = {s: deque(q) for s, q in d["placements"]}
        self.members = {m[0]: Member(*m) for m in d["members"]}
        self.shards = {s: Ownership(o, e, at) for s, o, e, at in d["shards"]}
        # A snapshot from before pinning: its count was in use, so it holds.
        self.shards_pinned = d.get("shards_pinned", True)
        self.capacity = {c: Resources(*r) for c, r in d["capacity"].items()}
        self.slack_capacity = {c: Resources(*r) for c, r in d.get("slack_capacity", {}).items()}
        # Before RECENT_S, rows were [key, result]: keep them as of now.
        self.recent = OrderedDict((row[0], (row[1], row[2]) if len(row) == 3
                                   else (self.now, row[1])) for row in d["recent"])
        self._stale = True
        self._entitle()

    def _restore_preemption(self, d: dict[str, Any]) -> None:
        """The victim index, timers and queues of a snapshot; a snapshot from
        before preemption gets an index in tracker order and none of the rest."""
        if "victims" in d:
            tasks = self.tasks
            for pool, revocable, priority, mids in d["victims"]:
                # The tracker's own strings: one copy of each id in memory.
                self.victims.setdefault((pool, revocable), {})[priority] = dict.fromkeys(
                    tasks[m].mesos_task_id for m in mids)
        else:
            for e in self.tasks.values():
                gang = self.gangs[e.gang]
                if gang.preemptible and e.state not in (TaskState.PENDING, TaskState.PREEMPTING):
                    self._index(e, gang.revocable)
        self.over_since = {pool: since for pool, since in d.get("over_since", [])}
        self.starved_since = {pool: [gid, since] for pool, gid, since in d.get("starved_since", [])}
        self.preemptions = {s: PreemptionQueue.load(q) for s, q in d.get("preemptions", [])}
        for e in self.tasks.values():
            if e.state == TaskState.PREEMPTING:
                revocable = self.gangs[e.gang].revocable
                freeing = self.freeing.setdefault(e.pool, [ZERO, ZERO])
                freeing[revocable] = freeing[revocable] + e.resources

    def digest(self) -> str:
        """A hash of the whole state (its snapshot): as costly as a snapshot
        (~0.7 s at 200k tracked tasks), so only on demand (``digest_full_at``)."""
        return hashlib.blake2b(self.snapshot(), digest_size=12).hexdigest()

    # -- the running digest (peloton.resmgr.digest) -----------------------
    def summary(self) -> list[Any]:
        """A few figures of the state, O(1) to read, hashed into the chain
        with each result: a state that diverged in them shows at once."""
        return [self.applied, self.now, self.next_gang, len(self.tasks), len(self.gangs),
                len(self.ready), sorted([s, n] for s, n in self.state_counts.items() if n)]

    def reset_digest(self, p: dict[str, Any]) -> None:
        """``digest.reset``: start the chain again from this applied index, on
        every replica alike (the leader proposes it when replicas' chains have
        different origins; see the digest module)."""
        self.chain_since = self.applied
        self.chain = chain_digest.seed(self.applied)

    def digest_full_at(self, index: int) -> None:
        """Compute the full-state digest right after applying ``index`` (replica
        local, read back from ``full_digests``). It costs a snapshot's time on
        the thread that applies commands: for tests and diagnosis."""
        if index <= self.applied:
            raise InvalidArgument(f"fullDigestAt {index} is not after the applied index "
                                  f"{self.applied}", field="fullDigestAt")
        if index > self.applied + FULL_DIGEST_AHEAD:
            raise InvalidArgument(f"fullDigestAt {index} is more than {FULL_DIGEST_AHEAD} "
                                  f"ahead of the applied index {self.applied}",
                                  field="fullDigestAt")
        if len(self.full_digest_due) >= FULL_DIGESTS:
            raise FailedPrecondition(f"{FULL_DIGESTS} full digests are already due "
                                     f"(at {sorted(self.full_digest_due)})",
                                     field="fullDigestAt")
        self.full_digest_due.add(index)

    def _full_digest_now(self) -> None:
        self.full_digest_due.discard(self.applied)
        self.full_digests[self.applied] = self.digest()
        while len(self.full_digests) > FULL_DIGESTS:
            self.full_digests.popitem(last=False)


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


def _items(payload: Any) -> int:
    """How many tasks, placements or updates a command carries (diagnostics)."""
    if isinstance(payload, dict):
        for key in ("gangs", "placed", "updates"):
            if key in payload:
                items = payload[key]
                return sum(len(g) for g in items) if key == "gangs" else len(items)
    return 1


# The command table is the Raft log's schema: names are stable forever
# (tests/resmgr/test_state.py pins them). Add new names; never rename.
COMMANDS: dict[str, Callable[[ResmgrState, Any], Any]] = {
    "pool.create": ResmgrState.pool_create,
    "pool.update": ResmgrState.pool_update,
    "pool.delete": ResmgrState.pool_delete,
    "gangs.enqueue": ResmgrState.enqueue,
    "gangs.dequeue": ResmgrState.dequeue,
    "placements.set": ResmgrState.set_placements,
    "placements.get": ResmgrState.get_placements,
    "tasks.update": ResmgrState.update_tasks,
    "member.heartbeat": ResmgrState.heartbeat,
    "cluster.tick": ResmgrState.tick,
    "cluster.capacity": ResmgrState.set_capacity,
    "preemptions.get": ResmgrState.get_preemptions,
    "digest.reset": ResmgrState.reset_digest,
}

__all__ = ["COMMANDS", "KINDS", "ResmgrState"]
