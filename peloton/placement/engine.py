"""All-or-nothing gang placement over one batch of leased hosts.

``place_batch`` is the pure core a placement worker calls once per cycle: the
gangs it dequeued from resmgr and the host offers it leased from hostmgr go
in, placements and failure reasons come out. No I/O, no clock.

How a task finds a host (the pipeline of CONVENTIONS.md):

1. Hosts are scanned from a rotating cursor: the host the previous task was
   placed on. Packing therefore keeps filling that host, and hosts the batch
   has already filled behind the cursor are not rescanned by every task.
2. Each host runs the filters of ``filters.FILTERS`` cheapest first, less
   those that cannot reject this task (``filters.filters_for``); the first
   rejection is counted under its reason name. A revocable task is checked
   by ``slack_fits`` (its cpu against the lease's free slack cpu) instead of
   ``resources_fit``, so it lands only where slack is, and a non-revocable
   task never touches slack.
3. The scan stops once ``max_feasible`` hosts passed every filter. This is
   kube-scheduler's ``percentageOfNodesToScore``: scoring a bounded sample of
   feasible hosts gives nearly the same quality as scoring all of them, while
   in Python a full scan of 10,000 hosts costs over 1 ms per task
   (reference/pysyncobj-and-costs.md §4.3). Measured here: ~1.2 µs per
   scanned host, so ~60-80 µs per task at K=50 on 10,000 hosts.
4. The feasible hosts are scored by the gang's strategy (``scorers.SCORERS``)
   and the best wins; ties go to the first seen. A perfect 100 ends the scan.

A gang is placed whole or not at all: its tasks are placed tentatively, in
order, on the batch's mutable view of the hosts (so each sees the ones
before it); if one finds no host, the gang's placements are undone in
reverse order, restoring free resources and ports exactly, and the gang
fails with a reason built from its failing task's most common rejection.
Gangs are placed in input order, so an earlier gang has first pick.

Complexity, for H offers, T tasks, K = ``max_feasible``: building the view is
O(H). A task that fits scans until K feasible hosts are found, O(K / p) for a
feasible fraction p of hosts, at most O(H). A task that fits nowhere scans all
H hosts once; later tasks with the same needs (and no TASK-label constraint)
that meet the same committed state fail in O(1) from a memo, since outside a
gang's tentative placements free capacity only shrinks during a batch.
Undo is O(gang size); ports are handed out by a cursor, O(ports taken).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence

from peloton.core.errors import InvalidArgument
from peloton.placement.filters import Filter, describe, filters_for, has_task_leaf
from peloton.placement.model import (
    BatchResult,
    GangRequest,
    HostOffer,
    HostState,
    TaskPlacement,
    TaskRequest,
    batch_scale,
    scale_weights,
)
from peloton.placement.scorers import REVOCABLE_SCORERS, SCORERS, Scorer

DEFAULT_MAX_FEASIBLE = 50


def place_batch(gangs: Sequence[GangRequest], offers: Sequence[HostOffer], *,
                max_feasible: int = DEFAULT_MAX_FEASIBLE) -> BatchResult:
    """Place ``gangs`` in order on ``offers``, each gang all together or not at all.

    ``offers`` must have distinct lease ids; they are not modified. Every
    gang lands in exactly one of ``result.placed`` (a list of placements in
    the gang's task order; an empty gang is placed as an empty list) or
    ``result.failed`` (with a human reason), each keeping input order.
    No host is given more than its offered free resources or the same port
    twice. Deterministic: the same input gives the same result.
    """
    if max_feasible < 1:
        raise InvalidArgument(f"must be at least 1, got {max_feasible}", field="max_feasible")
    scale = batch_scale(offers)
    weights = scale_weights(scale)
    hosts = [HostState.from_offer(offer, scale, weights=weights) for offer in offers]
    any_gpu_host = scale.gpu > 0.0
    result = BatchResult()
    cursor = 0
    # needs -> failure detail, for tasks that found no host in committed state.
    known_failures: dict[Hashable, tuple[str, bool]] = {}

    for gang in gangs:
        taken: list[tuple[HostState, TaskPlacement]] = []
        failure: str | None = None
        for task in gang.tasks:
            memo_key = None if taken or has_task_leaf(task.constraint) else _needs(task)
            if memo_key is not None and memo_key in known_failures:
                failure, short = known_failures[memo_key]
                break
            rejections: Counter[str] = Counter()
            checks = filters_for(task, any_gpu_host=any_gpu_host)
            scorer = (REVOCABLE_SCORERS if task.revocable else SCORERS)[gang.strategy]
            index = _best_host(hosts, cursor, task, checks, scorer, max_feasible, rejections)
            result.reasons.update(rejections)
            if index < 0:
                failure, short = _failure_detail(hosts, task, rejections)
                if memo_key is not None:
                    known_failures[memo_key] = (failure, short)
                break
            cursor = index
            host = hosts[index]
            offer = host.offer
            ports = host.take(task)
            taken.append((host, TaskPlacement(offer.lease_id, offer.hostname, offer.agent_id,
                                              offer.cluster, task, ports)))
        if failure is None:
            result.placed.append([placement for _, placement in taken])
            continue
        for host, placement in reversed(taken):
            host.give_back(placement.task)
        if len(gang.tasks) > 1:
            failure += (f"; gang of {len(gang.tasks)} tasks placed all or none, "
                        f"{len(taken)} fitted before task {task.task_id}")
        result.failed.append((gang, failure))
        if short and gang.tasks:
            result.short.add(gang.tasks[0].mesos_task_id)

    result.used_leases = {host.offer.lease_id for host in hosts if host.placed}
    return result


def _needs(task: TaskRequest) -> Hashable:
    """What decides whether a task without TASK-label constraints fits a host."""
    return (task.resources, task.num_ports, task.constraint, task.revocable)


def _best_host(hosts: list[HostState], start: int, task: TaskRequest,
               checks: tuple[Filter, ...], scorer: Scorer, max_feasible: int,
               rejections: Counter[str]) -> int:
    """Index of the best-scoring feasible host among the first ``max_feasible``
    feasible hosts from ``start`` (wrapping), or -1; counts rejections."""
    n = len(hosts)
    best_index = -1
    best_score = -1.0
    feasible = 0
    i = start
    for _ in range(n):
        host = hosts[i]
        for check in checks:
            reason = check(host, task)
            if reason is not None:
                rejections[reason] += 1
                break
        else:
            score = scorer(host, task)
            if score > best_score:
                best_score, best_index = score, i
                if score >= 100.0:
                    break  # nothing can beat it; ties go to the first seen
            feasible += 1
            if feasible >= max_feasible:
                break
        i += 1
        if i == n:
            i = 0
    return best_index


_REASON_DEPTH = {"insufficient_ports": 1, "scarce_gpu": 2, "constraint": 3}
_KIND_UNITS = {"cpu": "", "memory": " MiB", "disk": " MiB", "gpu": ""}


_SHORTAGES = frozenset({"insufficient_cpu", "insufficient_memory", "insufficient_disk",
                        "insufficient_gpu", "insufficient_slack_cpu", "insufficient_ports"})


def _failure_detail(hosts: list[HostState], task: TaskRequest,
                    rejections: Counter[str]) -> tuple[str, bool]:
    """Human reason for a task that fit no host, from its most common
    rejection, and whether that is a shortage of resources.

    e.g. ``no host fits cpu 20 (largest free 4); 3 hosts leased
    (insufficient_cpu 2, scarce_gpu 1)``.
    """
    if not hosts:
        return f"no hosts leased for task {task.task_id}", True
    # Ties go to the later filter: a host that got further is the better hint.
    reason = max(rejections, key=lambda r: (rejections[r], _REASON_DEPTH.get(r, 0)))
    if reason in ("insufficient_cpu", "insufficient_memory", "insufficient_disk",
                  "insufficient_gpu"):
        kind = reason.removeprefix("insufficient_")
        need = getattr(task.resources, kind)
        # Only hosts the task may use at all: a GPU host's cpu is no help to a CPU task.
        wants_gpu = task.resources.gpu > 0.0
        largest = max((getattr(host.free, kind) for host in hosts
                       if wants_gpu or not host.has_gpu), default=0.0)
        unit = _KIND_UNITS[kind]
        detail = f"no host fits {kind} {need:g}{unit} (largest free {largest:g}{unit})"
    elif reason == "insufficient_slack_cpu":
        most = max(host.slack for host in hosts)
        detail = (f"no host has {task.resources.cpu:g} slack cpu free for a revocable task "
                  f"(most free slack {most:g})")
    elif reason == "insufficient_ports":
        most = max(host.free_ports for host in hosts)
        detail = f"no host has {task.num_ports} free ports (most free {most})"
    elif reason == "scarce_gpu":
        detail = "hosts that fit have GPUs, which are kept for tasks that ask for GPUs"
    elif reason == "constraint" and task.constraint is not None:
        detail = f"no host satisfies constraint {describe(task.constraint)}"
    else:
        detail = f"no host passes filter {reason}"
    breakdown = ", ".join(f"{name} {count}" for name, count in rejections.most_common())
    return f"{detail}; {len(hosts)} hosts leased ({breakdown})", reason in _SHORTAGES
