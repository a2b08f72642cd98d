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

The state is built in layers, one module each, each adding to the one below:

* ``tracker``: the fields, the task and gang records, and the bookkeeping
  of a task's moves (state counts, allocation and demand, the victim index);
* ``admission``: entitlement, the admission pass, why a gang waits;
* ``reclaim``: the preemption pass;
* ``commands``: the Raft log's commands (``COMMANDS``), one method each;
* this module: ``ResmgrState``, which applies commands, keeps results for
  idempotent retries and the running digest, and snapshots through
  ``snapshot`` (versioned, with migrations).
"""

from __future__ import annotations

import collections
import hashlib
import time
from collections import OrderedDict, deque
from typing import Any

import msgpack

from peloton.core.errors import FailedPrecondition, InvalidArgument, PelotonError
from peloton.core.resources import KINDS
from peloton.core.states import TaskState
from peloton.raft.codec import Command, decode
from peloton.resmgr import digest as chain_digest
from peloton.resmgr import respool
from peloton.resmgr import snapshot as snapshots
from peloton.resmgr.admission import PLACEMENT_QUEUE, PREEMPTION_ENABLED, limit_usage
from peloton.resmgr.commands import (
    COMMANDS,
    LAUNCHING_TIMEOUT,
    MEMBER_TTL,
    PLACING_TIMEOUT,
    Commands,
    placement_backoff,
)
from peloton.resmgr.reclaim import PREEMPTION_REDELIVER_S, PREEMPTION_SUSTAIN_S
from peloton.resmgr.respool import ROOT
from peloton.resmgr.tracker import (
    QUEUES,
    TASK_CONTROLLER,
    TASK_PREEMPTIBLE,
    TASK_REVOCABLE,
    Gang,
    Member,
    PreemptionQueue,
    ReadyQueue,
    TaskEntry,
)
from peloton.shard.partition import DEFAULT_NUM_SHARDS

# Results kept for idempotent retries: the last RECENT_KEYS commands, and of
# those only the ones applied in the last RECENT_S seconds (a caller retries
# within its 10 s deadline; a get_placements result holds 100 placements).
RECENT_KEYS = 10000
RECENT_S = 60.0
# Full-state digests a replica keeps (and may have due) at once, and how far
# ahead of its applied index one may be asked for (so none stays due long).
FULL_DIGESTS = 8
FULL_DIGEST_AHEAD = 100_000


class ResmgrState(Commands):
    """See the module docstring. Mutated only through ``apply``."""

    def __init__(self, num_shards: int = DEFAULT_NUM_SHARDS, *, pinned: bool = False) -> None:
        # The jobmgr shard count: the cluster file's until the first
        # heartbeat that names one pins it (shard.__init__ has the protocol).
        self.num_shards = num_shards
        self.shards_pinned = pinned
        self.now = 0.0
        self.pools = {ROOT: respool.new_root()}
        self.tasks = {}
        self.current_run = {}  # task id -> mesos task id
        self.gangs = {}
        # leaf pool -> queue name (QUEUES) -> priority -> gang ids
        self.queues = {}
        self.ready = ReadyQueue(self.gangs)
        self.placements = {}  # shard -> placements
        self.express_placements = {}  # shard -> small jobs' placements, served first
        self.members = {}
        self.shards = {}
        self.capacity = {}
        # Allocated-but-idle resources per cluster, as its hostmgr reports
        # them: what revocable gangs may use (the slack entitlement's root).
        self.slack_capacity = {}
        self.next_gang = 1
        self.applied = 0
        # Derived from the above (never snapshotted): see the module docstring.
        self._entitlements = {}
        # Pool id -> (its Pool, reservation, limit, share, static): what the
        # entitlement takes of a pool's config, built once a Pool object.
        self._pool_configs = {}
        # Tasks per state, kept as states change (reads never scan the tracker).
        self.state_counts = collections.Counter()
        # (deadline, mesos task ids) in the order set; PLACING's and
        # LAUNCHING's timeouts are constants and ``now`` never goes back, so
        # each deque is sorted and ``tick`` pops only what expired. Entries
        # are checked against the task when popped (it may have moved on).
        self.deadlines = {
            TaskState.PLACING: deque(), TaskState.LAUNCHING: deque()}
        # READY gangs backing off after a failed placement: heaps of
        # (retry_at, gang id); ``tick`` hands the due ones to placement.
        # Those that failed short of room are apart: runs that end hand
        # them back sooner (``Commands._retry_short``).
        self.backoff = []
        self.short_backoff = []
        # Job id -> [maximumUnavailableInstances, instanceCount, tracked
        # tasks] of services whose SLA bounds their instances down, while
        # any of their tasks is tracked: preemption keeps to the bound.
        self.job_sla = {}
        # One Resources tuple per distinct task shape (a million tasks of a
        # thousand jobs share a handful).
        self._shapes = {}
        # Preemption (module docstring). The candidates of each leaf, split
        # by revocable: priority -> mesos task ids of admitted tasks of
        # preemptible gangs, in the order they were admitted or last became
        # RUNNING (the last is the most recently started). PENDING and
        # PREEMPTING tasks are not in it. One dict entry a task.
        self.victims = {}
        # Leaf -> the state time since which it has been over its
        # entitlement (by more than its PREEMPTING tasks will free).
        self.over_since = {}
        # Leaf -> [gang id, since]: the waiting gang priority preemption is
        # for, and since when it has waited for it.
        self.starved_since = {}
        # jobmgr shard -> RUNNING victims to kill (PREEMPTING tasks).
        self.preemptions = {}
        # Derived (rebuilt on restore): what each leaf's PREEMPTING tasks
        # still hold, [non-slack, slack]; freed when their runs end.
        self.freeing = {}
        self.gone = {}
        self._sweep_due = set()
        self._stale = True
        self._entitle()
        self.recent = OrderedDict()
        # The running digest of the applied commands (peloton.resmgr.digest):
        # replicated and snapshotted; ``chain_since`` is the applied index it
        # started from (0: the start of the log).
        self.chain = chain_digest.seed(0)
        self.chain_since = 0
        # Diagnostics of this replica since it started; not part of the state.
        self.command_counts: collections.Counter[str] = collections.Counter()
        self.command_items: collections.Counter[str] = collections.Counter()
        self.command_seconds: collections.defaultdict[str, float] = collections.defaultdict(float)
        self.history = chain_digest.History()  # its last (applied index, chain) pairs
        self.history.record(self.applied, self.chain)
        # Full-state digests asked for (``digest_full_at``), by applied index.
        self.full_digest_due: set[int] = set()
        self.full_digests: OrderedDict[int, str] = OrderedDict()

    def apply(self, blob: bytes) -> Any:
        began = time.perf_counter()
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
        self.command_seconds[command.name] += time.perf_counter() - began
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
        if self._sweep_due:
            self._sweep()
        if command.key:
            recent = self.recent
            recent[command.key] = (self.now, result)
            while recent and (len(recent) > RECENT_KEYS
                              or next(iter(recent.values()))[0] < self.now - RECENT_S):
                recent.popitem(last=False)
        return result

    # -- snapshot -------------------------------------------------------
    def snapshot(self) -> bytes:
        return snapshots.dump(self)

    def restore(self, blob: bytes) -> None:
        d = snapshots.decode(blob)
        due, done = self.full_digest_due, self.full_digests  # asked of this replica
        self.__init__(d["num_shards"])  # type: ignore[misc]
        snapshots.load(self, d)
        self.history.record(self.applied, self.chain)
        self.full_digest_due = {i for i in due if i > self.applied}
        self.full_digests = done
        self._stale = True
        self._entitle()

    def digest(self) -> str:
        """A hash of the whole state (its snapshot): as costly as a snapshot
        (~0.7 s at 200k tracked tasks), so only on demand (``digest_full_at``)."""
        return hashlib.blake2b(self.snapshot(), digest_size=12).hexdigest()

    def summary(self) -> list[Any]:
        """A few figures of the state, O(1) to read, hashed into the chain
        with each result: a state that diverged in them shows at once."""
        return [self.applied, self.now, self.next_gang, len(self.tasks), len(self.gangs),
                len(self.ready), sorted([s, n] for s, n in self.state_counts.items() if n)]

    def room_wanted(self) -> bool:
        """Whether gangs wait for what ended runs free: tasks not yet
        admitted (their pools' entitlement), or gangs a placement found no
        room for (``short_backoff``). O(1)."""
        return self.state_counts[TaskState.PENDING] > 0 or bool(self.short_backoff)

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


def _items(payload: Any) -> int:
    """How many tasks, placements or updates a command carries (diagnostics)."""
    if isinstance(payload, dict):
        for key in ("gangs", "placed", "updates"):
            if key in payload:
                items = payload[key]
                return sum(len(g) for g in items) if key == "gangs" else len(items)
    return 1



__all__ = [
    "COMMANDS", "KINDS", "LAUNCHING_TIMEOUT", "MEMBER_TTL", "PLACEMENT_QUEUE", "PLACING_TIMEOUT",
    "PREEMPTION_ENABLED", "PREEMPTION_REDELIVER_S", "PREEMPTION_SUSTAIN_S", "QUEUES",
    "TASK_CONTROLLER", "TASK_PREEMPTIBLE", "TASK_REVOCABLE", "Gang", "Member", "PreemptionQueue",
    "ReadyQueue", "ResmgrState", "TaskEntry", "limit_usage", "placement_backoff",
]
