"""Placement filters: ``(host_state, task) -> None`` to pass, or a reason name.

Each filter is named for what it checks and returns a short, stable reason
name that the engine counts, so "why is my task pending?" has an answer.
``FILTERS`` lists them cheapest first; the engine stops at the first rejection,
so each rejected host is counted under exactly one reason.

Reason names: ``insufficient_cpu``, ``insufficient_slack_cpu``,
``insufficient_memory``, ``insufficient_disk``, ``insufficient_gpu``,
``insufficient_ports``, ``scarce_gpu``, ``constraint``.

Resources are checked by one of two filters, by the kind of task
(``filters_for`` picks): ``resources_fit`` for non-revocable tasks, which
never use slack, and ``slack_fits`` for revocable ones, whose cpu comes from
the host's free slack cpu and the rest from its regular free resources.
"""

from __future__ import annotations

from collections.abc import Callable

from peloton.core.resources import EPSILON, Resources
from peloton.placement.model import (
    AndConstraint,
    Constraint,
    HostState,
    LabelConstraint,
    OrConstraint,
    TaskRequest,
)

Filter = Callable[[HostState, TaskRequest], "str | None"]


def _short_of(need: Resources, cpu: float, free: Resources, cpu_reason: str) -> str | None:
    """The first kind (cpu, memory, disk, gpu) ``need`` does not fit in, with
    ``cpu`` free cpu and ``free`` for the other kinds."""
    if need.cpu > cpu + EPSILON:
        return cpu_reason
    if need.memory > free.memory + EPSILON:
        return "insufficient_memory"
    if need.disk > free.disk + EPSILON:
        return "insufficient_disk"
    if need.gpu > free.gpu + EPSILON:
        return "insufficient_gpu"
    return None


def resources_fit(host: HostState, task: TaskRequest) -> str | None:
    """Each kind the task asks for fits in the host's remaining free resources.

    Kinds are checked in the order cpu, memory, disk, gpu; the first short
    kind names the reason.
    """
    free = host.free
    return _short_of(task.resources, free.cpu, free, "insufficient_cpu")


def slack_fits(host: HostState, task: TaskRequest) -> str | None:
    """A revocable task's cpu fits in the host's free slack cpu, and its
    memory, disk and gpu in the host's regular free resources (Peloton:
    revocable cpu, non-revocable everything else). Passes non-revocable
    tasks (``resources_fit`` checks those)."""
    if not task.revocable:
        return None
    return _short_of(task.resources, host.slack, host.free, "insufficient_slack_cpu")


def ports_available(host: HostState, task: TaskRequest) -> str | None:
    """The host still has at least ``task.num_ports`` unassigned ports."""
    if task.num_ports > host.free_ports:
        return "insufficient_ports"
    return None


def gpu_scarce(host: HostState, task: TaskRequest) -> str | None:
    """A host with GPUs is kept for tasks that ask for GPUs.

    Peloton's scarce-resource rule (``scarce_resource_types: [GPU]``): CPU-only
    work must not strand a GPU host's GPUs by eating its cpu and memory.
    """
    if host.has_gpu and task.resources.gpu <= EPSILON:
        return "scarce_gpu"
    return None


def constraint_satisfied(host: HostState, task: TaskRequest) -> str | None:
    """The task's constraint (if any) holds on this host, see ``satisfies``."""
    if task.constraint is None or satisfies(host, task.constraint):
        return None
    return "constraint"


def label_count(host: HostState, leaf: LabelConstraint) -> int:
    """Occurrences of ``(leaf.key, leaf.value)`` among the host's HOST or TASK labels."""
    if leaf.kind == "host":
        return host.host_label_count(leaf.key, leaf.value)
    return host.task_labels.get((leaf.key, leaf.value), 0)


def satisfies(host: HostState, constraint: Constraint) -> bool:
    """Evaluate a constraint tree on ``host`` (Peloton §5.4 semantics)."""
    if isinstance(constraint, LabelConstraint):
        count = label_count(host, constraint)
        if constraint.condition == "eq":
            return count == constraint.requirement
        if constraint.condition == "lt":
            return count < constraint.requirement
        return count > constraint.requirement
    if isinstance(constraint, AndConstraint):
        return all(satisfies(host, c) for c in constraint.items)
    if isinstance(constraint, OrConstraint):
        return any(satisfies(host, c) for c in constraint.items)
    raise TypeError(f"not a constraint: {constraint!r}")


# Cheap compares before the constraint tree walk; resources first so a full host
# is counted under what it is short of. A task runs one of the two resource
# filters (``filters_for``): ``resources_fit`` would refuse a revocable task
# the regular cpu it does not use.
FILTERS: tuple[Filter, ...] = (resources_fit, slack_fits, ports_available, gpu_scarce,
                               constraint_satisfied)


def filters_for(task: TaskRequest, *, any_gpu_host: bool = True) -> tuple[Filter, ...]:
    """The filters of ``FILTERS`` that can reject ``task``, in order.

    Like kube-scheduler's PreFilter "skip": a task without ports, constraint
    or (on a batch without GPU hosts) GPU scarcity to worry about does not pay
    for those checks on every host it scans. Resources are checked by
    ``slack_fits`` for a revocable task and ``resources_fit`` otherwise. For
    a non-revocable task the first rejection is the same as with all of
    ``FILTERS``, provided ``any_gpu_host`` is true whenever a host of the
    batch has GPUs.
    """
    checks: list[Filter] = [slack_fits if task.revocable else resources_fit]
    if task.num_ports > 0:
        checks.append(ports_available)
    if any_gpu_host and task.resources.gpu <= EPSILON:
        checks.append(gpu_scarce)
    if task.constraint is not None:
        checks.append(constraint_satisfied)
    return tuple(checks)


def first_rejection(host: HostState, task: TaskRequest,
                    filters: tuple[Filter, ...] | None = None) -> str | None:
    """Run ``filters`` (default: every filter that applies to ``task``,
    ``filters_for``) in order; the first reason, or None if the host passes all."""
    if filters is None:
        filters = filters_for(task)
    for f in filters:
        reason = f(host, task)
        if reason is not None:
            return reason
    return None


def describe(constraint: Constraint) -> str:
    """Readable form for failure reasons, e.g. ``host hostname=h1 eq 1``."""
    if isinstance(constraint, LabelConstraint):
        return (f"{constraint.kind} {constraint.key}={constraint.value} "
                f"{constraint.condition} {constraint.requirement}")
    if isinstance(constraint, AndConstraint):
        return "(" + " and ".join(describe(c) for c in constraint.items) + ")"
    return "(" + " or ".join(describe(c) for c in constraint.items) + ")"


def has_task_leaf(constraint: Constraint | None) -> bool:
    """True if any leaf counts TASK labels (whose outcome changes as a batch places tasks)."""
    if constraint is None:
        return False
    if isinstance(constraint, LabelConstraint):
        return constraint.kind == "task"
    return any(has_task_leaf(c) for c in constraint.items)
