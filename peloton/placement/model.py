"""Plain data of the placement pipeline.

Inputs (``HostOffer``, ``TaskRequest``, ``GangRequest``, constraints) and
outputs (``TaskPlacement``, ``BatchResult``) are frozen values. ``HostState`` is
the one mutable thing: the per-batch view of one leased host, which the engine
updates as it places tasks so that later tasks of the same batch see what
earlier ones took. Filters and scorers only read it.

Constraint semantics follow Peloton (reference §5.4): a ``LabelConstraint``
counts occurrences of exactly ``(key, value)`` among the host's labels (its
attributes plus a synthetic ``hostname`` label) or among the labels of tasks
placed on the host in this batch, and compares that count with
``requirement`` using ``condition`` (``lt``, ``eq``, ``gt``). Host affinity is
HOST ``hostname`` eq 1; anti-affinity between instances is TASK label eq 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from peloton.core.errors import InvalidArgument
from peloton.core.resources import ZERO, Resources

STRATEGIES = ("pack", "spread")
CONSTRAINT_KINDS = ("host", "task")
CONDITIONS = ("lt", "eq", "gt")
HOSTNAME_LABEL = "hostname"


@dataclass(frozen=True, slots=True)
class HostOffer:
    """A host leased from a hostmgr shard for one placement batch.

    ``free`` is what the lease offers (regular resources); ``ports`` are the
    free ports in the order they will be handed out; ``slack_cpu`` is the
    host's free slack cpu, which only revocable tasks use.
    """

    lease_id: str
    hostname: str
    agent_id: str
    cluster: str
    free: Resources
    ports: tuple[int, ...] = ()
    attributes: Mapping[str, str] = field(default_factory=dict)
    slack_cpu: float = 0.0
    # What already runs on the host, as far as the batch asked: tasks per
    # job id (SPREAD_JOB) and per task label (TASK-kind constraints).
    jobs: Mapping[str, int] = field(default_factory=dict)
    task_labels: Mapping[tuple[str, str], int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class LabelConstraint:
    """Compare the count of ``(key, value)`` labels on a host with ``requirement``.

    ``kind`` is ``host`` (host attributes and ``hostname``) or ``task``
    (labels of the tasks on the host: those running there and those this
    batch placed there).
    """

    kind: str
    key: str
    value: str
    condition: str
    requirement: int

    def __post_init__(self) -> None:
        if self.kind not in CONSTRAINT_KINDS:
            raise InvalidArgument(f"must be one of {CONSTRAINT_KINDS}, got {self.kind!r}",
                                  field="constraint.kind")
        if self.condition not in CONDITIONS:
            raise InvalidArgument(f"must be one of {CONDITIONS}, got {self.condition!r}",
                                  field="constraint.condition")


@dataclass(frozen=True, slots=True)
class AndConstraint:
    """Satisfied when every item is; an empty AND is satisfied."""

    items: tuple[Constraint, ...]


@dataclass(frozen=True, slots=True)
class OrConstraint:
    """Satisfied when any item is; an empty OR is not satisfied."""

    items: tuple[Constraint, ...]


Constraint = LabelConstraint | AndConstraint | OrConstraint


@dataclass(frozen=True, slots=True)
class TaskRequest:
    """One task to place. ``labels`` are what TASK constraints of later tasks
    count. A ``revocable`` task's cpu comes from a host's slack cpu, its
    memory, disk and gpu from the host's regular free resources."""

    mesos_task_id: str
    task_id: str
    shard: int
    resources: Resources
    num_ports: int = 0
    constraint: Constraint | None = None
    labels: tuple[tuple[str, str], ...] = ()
    job_id: str = ""
    revocable: bool = False

    def __post_init__(self) -> None:
        if self.num_ports < 0:
            raise InvalidArgument("must not be negative", field="num_ports")
        if any(v < 0 for v in self.resources):
            raise InvalidArgument("must not be negative", field="resources")


@dataclass(frozen=True, slots=True)
class GangRequest:
    """Tasks placed all together or not at all, with one strategy.

    ``pack`` prefers the host left with the least free resources (bin
    packing, Peloton's default); ``spread`` (SPREAD_JOB) prefers hosts with
    fewer of the job's tasks (running or placed by this batch), then the
    most free.
    """

    tasks: tuple[TaskRequest, ...]
    strategy: str = "pack"

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise InvalidArgument(f"must be one of {STRATEGIES}, got {self.strategy!r}",
                                  field="strategy")


@dataclass(frozen=True, slots=True)
class TaskPlacement:
    """Where one task goes, with the ports it was given on that host."""

    lease_id: str
    hostname: str
    agent_id: str
    cluster: str
    task: TaskRequest
    ports: tuple[int, ...]


@dataclass(slots=True)
class BatchResult:
    """Outcome of ``place_batch``.

    ``placed`` holds one list per placed gang (tasks in gang order), gangs in
    input order; ``failed`` holds each gang that could not be placed whole
    with a human reason; every input gang is in exactly one of the two.
    ``used_leases`` are the leases that received at least one task (release
    the rest). ``reasons`` counts filter rejections by reason name over the
    whole batch, placed tasks included. ``short`` holds the first task id
    (mesos) of each failed gang that failed for want of resources (free
    capacity, slack or ports, which come back as tasks end), as opposed to a
    constraint or GPU scarcity.
    """

    placed: list[list[TaskPlacement]] = field(default_factory=list)
    failed: list[tuple[GangRequest, str]] = field(default_factory=list)
    used_leases: set[str] = field(default_factory=set)
    reasons: Counter[str] = field(default_factory=Counter)
    short: set[str] = field(default_factory=set)


@dataclass(slots=True, eq=False)
class HostState:
    """Mutable per-batch view of one leased host.

    ``free``, ``slack`` (free slack cpu) and ``free_ports`` shrink as tasks
    are placed, revocable tasks' cpu from ``slack``; ``task_labels``
    and ``jobs`` count what runs here (as offered) plus what this batch
    placed here. ``scale`` is the per-kind
    largest free amount over the batch's offers, which scorers use to compare
    hosts of different sizes on one 0..100 scale. ``take``/``give_back`` must
    be paired in LIFO order (the engine undoes a failed gang in reverse),
    which lets ports be handed out by a cursor.
    """

    offer: HostOffer
    free: Resources
    free_ports: int
    scale: Resources
    # Per kind 1 / (scale * number of kinds with non-zero scale), 0 where the scale
    # is 0: scorers turn free resources into a mean fraction with four multiplications.
    weights: tuple[float, float, float, float]
    # Scarcity is judged on the lease as offered, so a GPU host stays reserved for
    # GPU work even after this batch used its GPUs.
    has_gpu: bool
    placed: int = 0
    slack: float = 0.0
    # Plain dicts, not Counters: a batch builds one view per leased host.
    task_labels: dict[tuple[str, str], int] = field(default_factory=dict)
    jobs: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_offer(cls, offer: HostOffer, scale: Resources | None = None, *,
                   weights: tuple[float, float, float, float] | None = None) -> HostState:
        """Fresh view of ``offer``.

        ``scale`` defaults to the offer's own free resources; ``weights`` to
        ``scale_weights(scale)`` (pass it in to compute it once per batch).
        """
        if scale is None:
            scale = offer.free
        return cls(offer=offer, free=offer.free, free_ports=len(offer.ports), scale=scale,
                   weights=scale_weights(scale) if weights is None else weights,
                   has_gpu=offer.free.gpu > 0.0, slack=offer.slack_cpu,
                   task_labels=dict(offer.task_labels), jobs=dict(offer.jobs))

    def host_label_count(self, key: str, value: str) -> int:
        """1 if the host carries label ``key=value`` (attributes or ``hostname``), else 0."""
        if key == HOSTNAME_LABEL and value == self.offer.hostname:
            return 1
        return 1 if self.offer.attributes.get(key) == value else 0

    def take(self, task: TaskRequest) -> tuple[int, ...]:
        """Account ``task`` on this host; returns the ports it gets (lowest index first)."""
        if task.revocable:
            need = task.resources
            self.slack -= need.cpu
            self.free = self.free - need._replace(cpu=0.0)
        else:
            self.free = self.free - task.resources
        ports = self.offer.ports
        start = len(ports) - self.free_ports
        self.free_ports -= task.num_ports
        self.placed += 1
        for lab in task.labels:
            self.task_labels[lab] = self.task_labels.get(lab, 0) + 1
        if task.job_id:
            self.jobs[task.job_id] = self.jobs.get(task.job_id, 0) + 1
        return ports[start:start + task.num_ports]

    def give_back(self, task: TaskRequest) -> None:
        """Undo the most recent ``take(task)`` still in effect on this host."""
        if task.revocable:
            need = task.resources
            self.slack += need.cpu
            self.free = self.free + need._replace(cpu=0.0)
        else:
            self.free = self.free + task.resources
        self.free_ports += task.num_ports
        self.placed -= 1
        for lab in task.labels:
            self.task_labels[lab] -= 1
        if task.job_id:
            self.jobs[task.job_id] -= 1


def scale_weights(scale: Resources) -> tuple[float, float, float, float]:
    """Weights that make ``sum(free_k * w_k)`` the mean of ``free_k / scale_k``."""
    kinds = sum(1 for v in scale if v > 0.0)
    w0, w1, w2, w3 = (1.0 / (v * kinds) if v > 0.0 else 0.0 for v in scale)
    return (w0, w1, w2, w3)


def batch_scale(offers: Sequence[HostOffer]) -> Resources:
    """Per-kind maximum of ``free`` over ``offers`` (ZERO for none)."""
    if not offers:
        return ZERO
    return Resources(max(o.free.cpu for o in offers), max(o.free.memory for o in offers),
                     max(o.free.disk for o in offers), max(o.free.gpu for o in offers))
