"""The preemption pass: when a pool gives resources back, and what its victims become.

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
version 0 snapshot (``snapshot._from_0``) gets an index in tracker order.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Iterator
from typing import Any

from peloton.core.resources import ZERO, Resources
from peloton.core.states import TaskState
from peloton.resmgr import preemption, respool
from peloton.resmgr.admission import PREEMPTION_ENABLED, Admission, _over, _regular, limit_usage
from peloton.resmgr.preemption import excess, needs
from peloton.resmgr.respool import ROOT, Pool
from peloton.resmgr.tracker import QUEUES, Gang

# How long a leaf must stay over its entitlement (or a gang wait for
# priority preemption) before tasks are preempted, in state seconds; a
# cluster.tick may name another (the cluster file's preemption.sustain_s).
PREEMPTION_SUSTAIN_S = 10.0
# A victim handed to its jobmgr shard owner and still not ended is handed
# out again after this long (the owner may have died before killing it).
PREEMPTION_REDELIVER_S = 60.0
# Waiting gangs priority preemption walks per leaf and tick, at most.
PRIORITY_GANGS_PER_TICK = 1000


class Reclaim(Admission):
    """Inter-pool and priority preemption, run by ``cluster.tick``."""

    def _preempt(self, sustain: float) -> None:
        """Inter-pool preemption of every leaf over its entitlement for
        ``sustain`` seconds, then priority preemption in leaves that ask for
        it (module docstring). Leaves in tree order: replicas agree."""
        if not PREEMPTION_ENABLED or not self.capacity_known():
            self.over_since.clear()
            self.starved_since.clear()
            return
        self._entitle()  # the bounds of this pass: its own changes do not move them
        for leaf in respool.leaves(self.pools, ROOT):
            ent = self._entitlements.get(leaf)
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
        budget: dict[str, int] = {}  # job -> RUNNING instances it may still lose
        for mid in preemption.ranked(buckets, lambda m: tasks[m].state, below=below):
            entry = tasks[mid]
            if entry.state == TaskState.RUNNING:
                if self.job_sla and not self._within_sla(entry.task_id, budget):
                    continue
                yield mid, entry.resources, entry.priority
                continue
            if entry.gang in seen:
                continue
            seen.add(entry.gang)
            gang = gangs[entry.gang]
            if (below is None or gang.priority < below) and all(
                    tasks[m].state == entry.state for m in gang.tasks):
                yield gang.id, gang.resources, gang.priority

    def _within_sla(self, task_id: str, budget: dict[str, int]) -> bool:
        """Whether preempting this RUNNING task keeps its job within its
        sla.maximumUnavailableInstances, counting the instances down now and
        those this pass offered already (``budget``, per job); a job with no
        such bound always is. An offered task the selection passes over
        still uses its job's turn this pass (the next pass sees it again)."""
        job = task_id.rpartition("-")[0]
        sla = self.job_sla.get(job)
        if sla is None:
            return True
        left = budget.get(job)
        if left is None:
            left = sla[0] - self.instances_down(job, sla[1])
        budget[job] = left - 1
        return left > 0

    def preemptions_due(self, shards: list[int]) -> bool:
        """Whether ``get_preemptions`` would hand out something now (a read)."""
        return any(q.due(self.now) for s in shards if (q := self.preemptions.get(s)))
