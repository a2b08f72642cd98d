"""The goal-state engine of one owned shard.

A ``ShardEngine`` exists while this jobmgr owns a shard (epoch ``epoch``).
It loads the shard's jobs from storage, then converges every task towards
its goal: enqueue to resmgr, launch placements, record status updates,
retry failures, kill on stop. Every change is written to storage, fenced by
the epoch, before it is acted on or acknowledged; a stale owner's write
fails with ``Aborted`` and the engine stops.

One writer: every change runs in ``serve_inbox``, one ``submit`` at a
time (docs/architecture.md, jobmgr); small jobs' work waiting for the
idle writers of other shards may run in one writer's turn, those shards
lent to it meanwhile (``ShardEngine._lend_peers``). What a status update, a placement, a
user's action, a preemption, a timer or a new owner means for a task is a
table lookup in ``reconciler`` (``decide``, ``respond``); the engine writes
the changes, fenced, and carries the acts out.

Batching: one storage transaction and one resmgr call per batch of
placements or events, never per task.

Preemption: resmgr hands a shard's owner the runs it preempted
(``preempt``); each is written PREEMPTING, then killed with its own grace
period. Its end starts a new run (not counted against
``restartPolicy.maxFailures``) unless ``preemptionPolicy.killOnPreempt``
made its goal KILLED. Victims may come twice and a new owner finds
PREEMPTING runs in storage: both are killed (again), which is harmless.
"""

from __future__ import annotations

import collections
import contextlib
import copy
import itertools
import logging
import math
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol, TypeVar

import trio

from peloton.api.private.hostmgrsvc import hostmgrsvc_pb2 as hpb
from peloton.api.private.resmgrsvc import resmgrsvc_pb2 as rpb
from peloton.api.v0.job import job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.task import task_pb2
from peloton.api.v0.update import update_pb2
from peloton.core.errors import (
    BY_CODE,
    Aborted,
    AlreadyExists,
    DeadlineExceeded,
    FailedPrecondition,
    Internal,
    InvalidArgument,
    NotFound,
    PelotonError,
    Unavailable,
)
from peloton.core.ids import parse_mesos_task_id, task_id, volume_id
from peloton.core.states import (
    ON_HOST_TASK_STATES,
    TERMINAL_JOB_STATES,
    TERMINAL_TASK_STATES,
    JobState,
    TaskState,
)
from peloton.hostmgr.constraints import host_check
from peloton.jobmgr.model import Job, Task, load_versions
from peloton.jobmgr.reconciler import (
    Act,
    Input,
    Update,
    apply,
    bounded_restarts,
    decide,
    gone,
    initial_health,
    respond,
    rolling_restarts,
    task_goal,
)
from peloton.jobmgr.update import ACTIVE as UPDATE_ACTIVE
from peloton.jobmgr.update import Update as JobUpdate
from peloton.jobmgr.update import step as update_step
from peloton.rpc import ServiceClient
from peloton.spec.job import (
    pinned_host,
    runs_until_stopped,
    task_name,
    with_daemon_hosts,
)
from peloton.storage.gateway import ShardWrite, Storage, UpdateRow

UpdateState = update_pb2.State

log = logging.getLogger(__name__)

PENDING_MESSAGE = "waiting for admission and placement"
HELD_MESSAGE = "waits for its batch in workflow %s"
MAX_RUNNING_MESSAGE = ("waiting for room: at most %d instances of this job run at once "
                       "(sla.maximumRunningInstances)")
# Runs whose next event matters most: a launch that never happened, a kill
# that never landed. Reconciled more often than runs simply running.
IN_TRANSIT_STATES = frozenset({TaskState.LAUNCHING, TaskState.KILLING, TaskState.PREEMPTING})

RESMGR_STATE_REPORTED = frozenset({TaskState.RUNNING, *TERMINAL_TASK_STATES})


@dataclass
class Context:
    """What every shard engine of one jobmgr process shares."""

    storage: Storage
    resmgr: ServiceClient
    hostmgr_for: Callable[[str], ServiceClient]  # cluster -> client
    hostmgrs: Callable[[], list[tuple[str, ServiceClient]]]  # (cluster, client) pairs
    clock: Callable[[], float] = time.time
    # True while an operator holds kills back (AdminService lockdown of
    # Kill): the runs stay KILLING, and their kills go when it is lifted.
    hold_kills: Callable[[], bool] = lambda: False
    # Every shard's reports to resmgr, sent while ``Reports.serve`` runs.
    reports: Reports | None = None
    # This jobmgr's engines by shard: a writer that writes small jobs'
    # creates, events or express placements takes those waiting for the
    # idle writers of the others (``ShardEngine.serve_inbox``).
    # ``lend_waker``: the engine whose idle writer was woken for such work
    # and has not run yet; it takes what is given to other idle writers
    # meanwhile, which are not woken.
    engines: Mapping[int, ShardEngine] = field(default_factory=dict)
    lend_waker: ShardEngine | None = None


def is_preemptible(config: job_pb2.JobConfig, cfg: task_pb2.TaskConfig) -> bool:
    """The job's ``sla.preemptible``, unless the task's preemptionPolicy says otherwise."""
    if cfg.preemptionPolicy.type == task_pb2.PreemptionPolicy.TYPE_PREEMPTIBLE:
        return True
    if cfg.preemptionPolicy.type == task_pb2.PreemptionPolicy.TYPE_NON_PREEMPTIBLE:
        return False
    return config.sla.preemptible


def launch_request(launches: Sequence[tuple[rpb.Placement, Sequence[tuple[Job, Task]]]],
                   shard: int, epoch: int) -> hpb.LaunchTasksBatchRequest:
    """One cluster's launches of one shard, each placement's tasks on its host."""
    return launches_request([(shard, epoch, launches)])


def launches_request(parts: Sequence[tuple[int, int, Sequence[tuple[
        rpb.Placement, Sequence[tuple[Job, Task]]]]]]) -> hpb.LaunchTasksBatchRequest:
    """One cluster's launches of any shards ((shard, epoch, launches) parts,
    in order), a launch a lease, in the order the leases first come. A job's
    tasks share their config (Job.task_config): the batch carries each once
    and the tasks name it (configIndex, 1-based).

    The placements of several shards on one lease (resmgr hands each shard's
    owner its part of a host's placement) go as one launch: a lease is what
    a launch takes whole, so its outcome is theirs all (``_launch_on``).
    Sent apart, a host's placement in the single-task load (16 shards, ~29
    tasks a host) came as 7.5 launches, each its own lease lookup,
    accounting, backend call and task in the host manager."""
    request = hpb.LaunchTasksBatchRequest()
    index: dict[int, int] = {}
    configs = request.configs
    by_lease: dict[str, hpb.LaunchTasksRequest] = {}
    for shard, epoch, launches in parts:
        for placement, chosen in launches:
            launch = by_lease.get(placement.leaseId)
            if launch is None:
                launch = by_lease[placement.leaseId] = request.launches.add(
                    leaseId=placement.leaseId, hostname=placement.hostname)
            for job, task in chosen:
                cfg = job.run_config(task)
                at = index.get(id(cfg))
                if at is None:
                    configs.append(cfg)
                    at = index[id(cfg)] = len(configs)
                ports = [task.ports[p.name] for p in cfg.ports if p.name in task.ports] if (
                    task.ports) else None
                launch.tasks.add(taskId=task_id(job.id, task.instance),
                                 mesosTaskId=task.mesos_task_id, configIndex=at, ports=ports,
                                 shard=shard, epoch=epoch, jobId=job.id,
                                 instanceId=task.instance,
                                 revocable=job.config.sla.revocable or cfg.revocable)
    return request


Launches = list[tuple[rpb.Placement, list[tuple[Job, Task]]]]


async def send_launches(ctx: Context, plans: Sequence[tuple[ShardEngine, LaunchPlan]]
                        ) -> list[tuple[ShardEngine, list[Task], str]]:
    """Send recorded plans of any of this jobmgr's shards, one call per
    cluster for all of them, the clusters at once; the refused launches'
    shards, tasks and why. Not the writers': it only reads the tasks, and a
    stop meanwhile is a kill that the host manager takes before or after
    the launch. (With a call a shard and a cluster, each carried a
    placement or two when many small jobs ran: 0.54 launch calls a job.)"""
    by_cluster: dict[str, list[tuple[ShardEngine, Launches]]] = defaultdict(list)
    for engine, plan in plans:
        for cluster, launches in plan.items():
            # A plan sent late (a slow send, a stale owner's) may no longer
            # be its tasks': a reconcile found the run lost and it was
            # placed again (another lease), sent back to resmgr or ended.
            # Launched now, an ended run would run again. In transit it is
            # still planned (KILLING or PREEMPTING: stopped meanwhile; the
            # host manager takes the kill before or after the launch).
            still: Launches = []
            for placement, chosen in launches:
                kept = [(job, task) for job, task in chosen
                        if task.lease == placement.leaseId
                        and task.state in IN_TRANSIT_STATES]
                if kept:
                    still.append((placement, kept))
            if still:
                by_cluster[cluster].append((engine, still))
    refused: list[tuple[ShardEngine, list[Task], str]] = []
    async with trio.open_nursery() as nursery:
        for cluster, parts in by_cluster.items():
            nursery.start_soon(_launch_on, ctx, cluster, parts, refused)
    return refused


async def _launch_on(ctx: Context, cluster: str, parts: list[tuple[ShardEngine, Launches]],
                     refused_out: list[tuple[ShardEngine, list[Task], str]]) -> None:
    """Launch on one cluster's hosts in one call; each lease's launch
    succeeds or is refused alone."""
    request = launches_request([(e.shard, e.epoch, launches) for e, launches in parts])
    try:
        reply = await ctx.hostmgr_for(cluster).call("LaunchTasksBatch", request)
    except PelotonError as error:
        # Unknown outcome: the host manager may have launched. Its events
        # (or a reconcile after the launch timeout) settle it.
        log.warning("launch on %d hosts of %s: %s", len(request.launches), cluster, error)
        return
    # Each launch's placements (a lease's, of one shard or several), in the
    # request's order of launches.
    sent: dict[str, list[tuple[ShardEngine, list[tuple[Job, Task]]]]] = {}
    for engine, launches in parts:
        for placement, chosen in launches:
            sent.setdefault(placement.leaseId, []).append((engine, chosen))
    refused: dict[tuple[ShardEngine, str], list[Task]] = defaultdict(list)  # (shard, why) -> tasks
    for launch, pieces, outcome in zip(request.launches, sent.values(), reply.outcomes,
                                       strict=False):
        if not outcome.code:
            continue
        kind = BY_CODE.get(outcome.code, Internal)
        if issubclass(kind, (FailedPrecondition, InvalidArgument, NotFound)):
            log.info("launch on %s refused (%s); placing again", launch.hostname,
                     outcome.message)
            for engine, chosen in pieces:
                refused[(engine, outcome.message)].extend(task for _, task in chosen)
        else:
            log.warning("launch on %s: %s: %s", launch.hostname, outcome.code,
                        outcome.message)
    refused_out.extend((engine, tasks, why) for (engine, why), tasks in refused.items())


def _reports(updates: Iterable[tuple[str, TaskState]]) -> rpb.UpdateTasksStateRequest:
    """(run id, state) pairs as resmgr takes them, written in place."""
    request = rpb.UpdateTasksStateRequest()
    add = request.updates.add
    for mesos_id, state in updates:
        add(mesosTaskId=mesos_id, state=state)  # type: ignore[arg-type]
    return request


def _task_template(job: Job, cfg: task_pb2.TaskConfig, volume_host: str) -> rpb.Task:
    """What resmgr's Task of each of ``job``'s runs with ``cfg`` (on
    ``volume_host``) holds but its ids and name."""
    r = cfg.resource
    sla = job.config.sla
    return rpb.Task(
        jobId=job.id,
        resource=rpb.Resources(cpu=r.cpuLimit, memMb=r.memLimitMb, diskMb=r.diskLimitMb,
                               gpu=r.gpuLimit),
        priority=sla.priority, preemptible=is_preemptible(job.config, cfg),
        numPorts=sum(1 for p in cfg.ports if p.value == 0), controller=cfg.controller,
        revocable=sla.revocable or cfg.revocable, shard=job.shard,
        type=(rpb.DAEMON if job.config.type == job_pb2.DAEMON else rpb.STATELESS
              if job.config.type == job_pb2.SERVICE else rpb.BATCH),
        minInstances=max(1, sla.minimumRunningInstances),
        constraint=on_volume_host(cfg.constraint, volume_host),
        placementStrategy=job.config.placementStrategy, labels=cfg.labels,
        maxUnavailable=sla.maximumUnavailableInstances if bounded_restarts(job) else 0,
        instances=job.config.instanceCount if bounded_restarts(job) else 0,
    )


def add_gangs(job: Job, tasks: Sequence[Task], requests: list[rpb.EnqueueGangsRequest],
              new: Callable[[], rpb.EnqueueGangsRequest], limit: int = 0) -> None:
    """Add the gangs of ``job``'s ``tasks`` (in instance order) to the last
    of ``requests``, starting one (``new``) when there is none or it holds
    ``limit`` gangs (0: no limit). Written in place, from one template per
    config: a Task built whole, copied into its gang and the gang into the
    request cost 27.5-29 us a task, this 7.8."""
    templates: dict[tuple[int, str], rpb.Task] = {}
    for gang in gangs_of(job, sorted(tasks, key=lambda t: t.instance)):
        if not requests or (limit and len(requests[-1].gangs) >= limit):
            requests.append(new())
        msgs = requests[-1].gangs.add().tasks
        for task in gang:
            cfg = job.run_config(task)
            key = (id(cfg), task.volume_host)
            template = templates.get(key)
            if template is None:
                template = templates[key] = _task_template(job, cfg, task.volume_host)
            msg = msgs.add(id=task_id(job.id, task.instance), mesosTaskId=task.mesos_task_id,
                           name=task.name)
            msg.MergeFrom(template)


def on_volume_host(constraint: task_pb2.Constraint, host: str) -> task_pb2.Constraint:
    """A stateful task's constraint: its own, and its volume's host (where
    its first run was placed) once it has one."""
    if not host:
        return constraint
    pin = task_pb2.Constraint(type=task_pb2.Constraint.LABEL_CONSTRAINT,
                              labelConstraint=task_pb2.LabelConstraint(
                                  kind=task_pb2.LabelConstraint.HOST,
                                  condition=task_pb2.LabelConstraint.CONDITION_EQUAL,
                                  requirement=1,
                                  label=peloton_pb2.Label(key="hostname", value=host)))
    if constraint.type == task_pb2.Constraint.UNKNOWN_CONSTRAINT:
        return pin
    return task_pb2.Constraint(type=task_pb2.Constraint.AND_CONSTRAINT,
                               andConstraint=task_pb2.AndConstraint(
                                   constraints=[constraint, pin]))


def daemon_fits(config: job_pb2.JobConfig, hostname: str,
                capacity: tuple[float, float, float, float], labels: Mapping[str, str]) -> bool:
    """Whether a daemon job has an instance on this host: its task fits the
    host's capacity (cpu, memory, disk, gpu) and its HOST constraint holds."""
    r = config.defaultConfig.resource
    if any(need > have for need, have in zip(
            (r.cpuLimit, r.memLimitMb, r.diskLimitMb, r.gpuLimit), capacity, strict=True)):
        return False
    check = host_check(config.defaultConfig.constraint)
    return check is None or check(hostname, labels)


def gangs_of(job: Job, tasks: Sequence[Task]) -> list[list[Task]]:
    """Peloton's gangs: instances below minimumRunningInstances go together."""
    gang_size = job.config.sla.minimumRunningInstances
    if gang_size <= 1:
        return [[t] for t in tasks]
    together = [t for t in tasks if t.instance < gang_size]
    return ([together] if together else []) + [[t] for t in tasks if t.instance >= gang_size]


class _Reply:
    __slots__ = ("done", "error", "value")

    def __init__(self) -> None:
        self.done = trio.Event()
        self.value: Any = None
        self.error: Exception | None = None


_Work = tuple[Callable[..., Awaitable[Any]], tuple[Any, ...], _Reply]


async def _wake() -> None:
    """Sent through an empty inbox so that urgent work is seen."""
# cluster -> (placement, its (job, task) pairs to launch)
LaunchPlan = dict[str, Launches]
# Inputs a shard's writer may have waiting; senders wait beyond that.
INBOX_SIZE = 64
# The most creates waiting one after another that run as one write.
CREATE_BATCH = INBOX_SIZE
# A writer's group of small jobs' creates (or events) takes other idle
# shards' while it has fewer tasks (events) than this.
ACROSS_ROWS = 1000
# Events a batch applies between two yields to the other tasks.
EVENTS_A_STEP = 500
# Tasks a step turns into rows (a group of creates, a launch's record, a
# write) between two yields to the other tasks.
ROWS_A_STEP = 1000
# A write of at most this many tasks is a small part (``write_of``).
SMALL_PART = 8
# Tries of one batch of task-state reports to resmgr refused with an
# error; one that failed with one of REPORT_RETRIED (resmgr could not
# answer) is tried until it answers.
REPORT_ATTEMPTS = 10
REPORT_RETRIED = (Unavailable, DeadlineExceeded, Aborted)
# How long a recovered shard waits to ask resmgr again which runs it holds.
AUDIT_RETRY_S = 2.0
# Reports a call carries at most, and the calls in flight at once.
REPORT_BATCH = 5000
REPORT_SENDERS = 2
# Calls start at least this far apart; what is put meanwhile rides along.
# A call is a Raft command at resmgr (three replicas apply it), and a
# report only frees what its run held, so it can wait: without a pace, a
# cluster of small jobs made 0.55 calls a job (the senders went again as
# soon as a commit answered, with the one or two reports that came in the
# commit's time). After a quiet spell the first report goes at once.
# REPORT_PERIOD_S while resmgr's last answer said gangs wait for what runs
# free (UpdateTasksStateResponse.roomWanted: tasks not admitted, or gangs
# placement found no room for), REPORT_IDLE_PERIOD_S while none does: the
# reports then only keep resmgr's books (a run RUNNING, what a pool holds),
# and a call a job every 0.05 s was 0.2 of a small job's 0.7 Raft commands
# in ``loadtest.small_jobs --rows api`` (each ~1.1 ms of the three
# replicas' cpu).
REPORT_PERIOD_S = 0.05
REPORT_IDLE_PERIOD_S = 0.2


class Reports:
    """What every shard of a jobmgr tells resmgr of its runs (RUNNING, or
    ended: resmgr releases what they held), queued by the shards' writers
    and sent in ``UpdateTasksState`` calls, each taking all that waits (at
    most ``REPORT_BATCH``), one starting each ``REPORT_PERIOD_S`` at most
    (``REPORT_IDLE_PERIOD_S`` while resmgr says no gang waits for room),
    ``REPORT_SENDERS`` in flight at most.

    With a sender a shard, each call (and each Raft command at resmgr)
    carried the one or two reports a shard had at a time when many small
    jobs ran (16 shards: 0.69 calls a job, 2.7 updates a command). A
    shard that stops leaves what it put to be sent. Order does not
    matter (resmgr ignores a report of a run it has forgotten), and the
    writers never wait for resmgr's commit. A failed call is tried again a
    second apart: until resmgr answers while it cannot (an end it missed
    would hold the run's resources there for ever), ``REPORT_ATTEMPTS``
    times when it answers with an error. The reports of a jobmgr that dies
    go with it; the shard's next owner finds their runs
    (``ShardEngine.audit_resmgr``)."""

    def __init__(self, resmgr: ServiceClient) -> None:
        self._resmgr = resmgr
        self._send, self._recv = trio.open_memory_channel[
            list[tuple[str, TaskState]]](math.inf)
        self._serving = 0
        # What resmgr's last answer said (as if so until one answers).
        self.room_wanted = True

    @property
    def served(self) -> bool:
        return self._serving > 0

    def put(self, updates: list[tuple[str, TaskState]]) -> None:
        self._send.send_nowait(updates)

    async def serve(self, senders: int = REPORT_SENDERS) -> None:
        """Send what is put, until cancelled: each call takes all that
        waits (whole puts, until it holds REPORT_BATCH or more), calls
        start a period apart but for a full one, and at most ``senders``
        are in flight."""
        self._serving += 1
        try:
            calls = trio.Semaphore(senders)
            started = -math.inf
            async with trio.open_nursery() as nursery:
                while True:
                    batch = list(await self._recv.receive())
                    if len(batch) < REPORT_BATCH:
                        await trio.sleep_until(started + (
                            REPORT_PERIOD_S if self.room_wanted else REPORT_IDLE_PERIOD_S))
                    await calls.acquire()
                    while len(batch) < REPORT_BATCH:
                        try:
                            batch.extend(self._recv.receive_nowait())
                        except trio.WouldBlock:
                            break
                    started = trio.current_time()
                    nursery.start_soon(self._call, batch, calls)
        finally:
            self._serving -= 1

    async def _call(self, batch: list[tuple[str, TaskState]], calls: trio.Semaphore) -> None:
        try:
            attempt = 0
            while True:
                try:
                    reply = await self._resmgr.call("UpdateTasksState", _reports(batch))
                    self.room_wanted = reply.roomWanted
                    return
                except PelotonError as error:
                    # While resmgr cannot answer (no leader, all down) the
                    # reports wait: one dropped would hold its run's
                    # resources there for ever. What it refuses is a bug.
                    attempt += 1
                    lasting = not isinstance(error, REPORT_RETRIED)
                    log.warning("reporting %d task states to resmgr (attempt %d%s): %s",
                                len(batch), attempt,
                                f" of {REPORT_ATTEMPTS}" if lasting else "", error)
                    if lasting and attempt >= REPORT_ATTEMPTS:
                        return
                    await trio.sleep(1.0)
        finally:
            calls.release()


def _needs_timers(job: Job) -> bool:
    """Whether ``run_timers`` has work for ``job`` (now or later)."""
    config = job.config
    return bool(runs_until_stopped(config) or config.sla.maxRunningTime
                or len(job.tasks) > config.instanceCount)


class _Staged(Protocol):
    """A shard's change made in memory, its write not yet done."""

    write: ShardWrite


_S = TypeVar("_S", bound=_Staged)


@dataclass(slots=True)
class _Applied:
    """A batch of events applied to a shard's tasks: its write, and what
    comes after it (``ShardEngine._after_events``)."""

    write: ShardWrite
    jobs: dict[str, Job]
    report: list[Task]
    retry: list[Task]
    # Whether one of the jobs has ``sla.maximumRunningInstances`` (its held
    # tasks may start now).
    limited: bool = False

    def waits(self) -> bool:
        """Whether what comes after the write may wait for resmgr."""
        return bool(self.retry) or self.limited


@dataclass(slots=True)
class _Placed:
    """A batch of placements recorded in a shard's tasks: its write, the
    launches, and the runs to report (``ShardEngine._after_placements``)."""

    write: ShardWrite
    plans: list[tuple[rpb.Placement, list[tuple[Job, Task]]]]
    report: list[Task]


class _Jobs(dict[str, Job]):
    """A shard's jobs by id, noting each id put in (``touched``)."""

    __slots__ = ("touched",)

    def __init__(self) -> None:
        super().__init__()
        self.touched: set[str] = set()

    def __setitem__(self, job_id: str, job: Job) -> None:
        super().__setitem__(job_id, job)
        self.touched.add(job_id)


class ShardEngine:
    @property
    def stopped(self) -> bool:
        return self.fenced.is_set()

    def __init__(self, ctx: Context, shard: int, epoch: int, owner: str) -> None:
        self.ctx = ctx
        self.shard = shard
        self.epoch = epoch
        self.owner = owner
        # The shard's jobs by id. Each one put in, and each one written
        # (``persist``), is noted for the next timers pass (``run_timers``):
        # only those can have ended, or come to need timers, since it.
        self.jobs = _Jobs()
        # Jobs the timers pass looks at each second (an ordered set): those
        # that run until stopped, have ``sla.maxRunningTime`` or more tasks
        # than instances. 100,000 one-task batch jobs need none of this, and
        # a scan of every job held took 4% of a jobmgr's cpu in that load.
        self._timed: dict[str, None] = {}
        self.ready = trio.Event()
        self.fenced = trio.Event()  # set when a newer epoch's write refused ours
        # The shard's one writer (``serve_inbox``) runs what ``submit`` sends.
        self._inbox_send, self._inbox_recv = trio.open_memory_channel[_Work](INBOX_SIZE)
        # Work sent with ``submit(urgent=True)``: the writer runs it before
        # the inbox's. ``_idle``: the writer waits on an empty inbox.
        self._urgent: collections.deque[_Work] = collections.deque()
        self._idle = False
        # While another shard's writer writes this one's small creates or
        # events with its own (``_lend_peers``), this one's writer waits
        # for ``_returned``.
        self._lent = False
        self._returned = trio.Event()
        self._serving = True
        self._waiting: set[_Reply] = set()
        self._unknown: set[str] = set()  # runs the host managers did not know last round
        # The running updates of the shard's jobs, by job id.
        self.updates: dict[str, JobUpdate] = {}

    # -- the one writer -------------------------------------------------------
    async def serve_inbox(self) -> None:
        """Run what ``submit`` sends, one at a time, in arrival order (urgent
        work first: a small job's launch does not wait behind a bulk load's
        events and launches): every change to this shard's jobs happens here
        (``recover`` runs before), so no two changes interleave across an
        await. Creates waiting one after another run as one (``create_all``:
        one write for them all), urgent ones (small jobs') with urgent
        ones, and with those waiting for this jobmgr's idle writers of
        other shards (``_lend_peers``), as small jobs' events are. Runs
        until cancelled; then whatever waits is answered Unavailable."""
        held: _Work | None = None
        try:
            while True:
                urgent = bool(self._urgent)
                if urgent:
                    work = self._urgent.popleft()
                elif held is not None:
                    work, held = held, None
                else:
                    self._idle = True
                    try:
                        work = await self._inbox_recv.receive()
                    except trio.EndOfChannel:
                        return
                    finally:
                        self._idle = False
                    if self._lent:  # another writer writes this shard's work
                        await self._returned.wait()
                    if self._urgent and work[0] is not _wake:
                        # Urgent work came meanwhile: it goes first (and a
                        # woken writer takes other idle writers' creates
                        # and events without delay: ``submit``).
                        held = work
                        continue
                fn, args, reply = work
                if fn is _wake:
                    continue
                if urgent and fn == self.on_events:  # small jobs' events
                    await self._run_lent([(self, [work]), *self._lend_peers(
                        "on_events", len(args[0]))], _events_across)
                    continue
                if urgent and fn == self.record_launch:  # express placements
                    await self._run_lent([(self, [work]), *self._lend_peers(
                        "record_launch", placed_tasks(args[0]))], _launches_across)
                    continue
                if self.ctx.lend_waker is self and not (urgent and fn == self.create):
                    self._release_waker()  # (it takes nothing of the others)
                if fn != self.create:
                    try:
                        reply.value = await fn(*args)
                    except Exception as error:  # the caller's to handle
                        reply.error = error
                    reply.done.set()
                    continue
                if urgent:  # small jobs' creates, with each other
                    batch, after = self._creates_behind(work, self._from_urgent)
                    if after is not None:
                        self._urgent.appendleft(after)
                    await self._run_lent([(self, batch), *self._lend_peers(
                        "create", _tasks(batch))], _creates_across)
                else:
                    batch, held = self._creates_behind(work, self._from_inbox)
                    await self._run_lent([(self, batch)], _creates_across)
        finally:
            self._serving = False
            self._inbox_recv.close()
            for reply in list(self._waiting):
                if not reply.done.is_set():
                    reply.error = Unavailable(f"shard {self.shard} stopped serving here")
                    reply.done.set()
            if self.ctx.lend_waker is self:
                self._release_waker()

    def _release_waker(self) -> None:
        """This writer, woken for a small job's create, events or placements,
        takes nothing of the other idle writers: what was given to them since
        counts on it (``submit``), and their own writers take it."""
        self.ctx.lend_waker = None
        for peer in self.ctx.engines.values():
            if peer is not self and peer._idle and peer._urgent:
                peer._wake_writer()

    def _lend_peers(self, kind: str, size: int) -> list[tuple[ShardEngine, list[_Work]]]:
        """The small jobs' creates (``kind`` "create"), events ("on_events")
        or express placements ("record_launch") waiting for this jobmgr's
        other writers that are idle (waiting for their inboxes, or woken
        and not run yet), each such shard lent to this writer until they
        are written (its writer waits: ``serve_inbox``), while the group
        (of ``size`` so far) has fewer than ACROSS_ROWS tasks or events. With 16 shards each writer took
        one or two creates, batches of events or placements a turn when a
        job was a task (a write, a fence and task switches each); taken
        together they are one turn and one write."""
        ctx = self.ctx
        # Whatever waits for an idle writer is taken or woken here: none of
        # it counts on a woken writer any more.
        ctx.lend_waker = None
        lent: list[tuple[ShardEngine, list[_Work]]] = []
        for peer in ctx.engines.values():
            if peer is self or not peer._idle or peer._lent or not peer._urgent:
                continue
            if size >= ACROSS_ROWS or peer.stopped or peer._urgent[0][0] != getattr(peer, kind):
                peer._wake_writer()  # its work may count on a woken writer (``submit``)
                continue
            if kind == "create":
                taken, after = peer._creates_behind(peer._urgent.popleft(), peer._from_urgent)
                if after is not None:
                    peer._urgent.appendleft(after)
                size += _tasks(taken)
            else:
                taken = [peer._urgent.popleft()]
                given = taken[0][1][0]
                size += len(given) if kind == "on_events" else placed_tasks(given)
            peer._lent, peer._returned = True, trio.Event()
            lent.append((peer, taken))
        return lent

    async def _run_lent(self, batches: list[tuple[ShardEngine, list[_Work]]],
                        run: Callable[[list[tuple[ShardEngine, list[_Work]]]],
                                      Awaitable[list[list[Any]]]]) -> None:
        """Run ``batches`` (the first this shard's work, the others lent to
        this writer: returned after) with ``run`` (each work's answer, or
        the error it met) and answer each."""
        try:
            outcomes = await run(batches)
        except BaseException:  # (cancelled) the lent shards' writers never see theirs
            for engine, batch in batches[1:]:
                for _, _, reply in batch:
                    if not reply.done.is_set():
                        reply.error = Unavailable(f"shard {engine.shard} stopped serving here")
                        reply.done.set()
            raise
        finally:
            for engine, _ in batches[1:]:
                engine._lent = False
                engine._returned.set()
        for (_, batch), outs in zip(batches, outcomes, strict=True):
            for (_, _, reply), outcome in zip(batch, outs, strict=True):
                if isinstance(outcome, Exception):
                    reply.error = outcome
                else:
                    reply.value = outcome
                reply.done.set()

    def _wake_writer(self) -> None:
        """Wake the idle writer (urgent work waits)."""
        with contextlib.suppress(trio.WouldBlock):  # full: it wakes anyway
            self._inbox_send.send_nowait((_wake, (), _Reply()))

    def _creates_behind(self, first: _Work, take: Callable[[], _Work | None]
                        ) -> tuple[list[_Work], _Work | None]:
        """``first`` (a create) and the creates that ``take`` gives right
        behind it, up to CREATE_BATCH, each of another job; and the work
        that ended the run, if one was taken."""
        batch = [first]
        ids = {first[1][0].id}
        while len(batch) < CREATE_BATCH:
            work = take()
            if work is None:
                return batch, None
            if work[0] != self.create or work[1][0].id in ids:
                return batch, work
            batch.append(work)
            ids.add(work[1][0].id)
        return batch, None

    def _from_inbox(self) -> _Work | None:
        try:
            return self._inbox_recv.receive_nowait()
        except (trio.WouldBlock, trio.EndOfChannel):
            return None

    def _from_urgent(self) -> _Work | None:
        return self._urgent.popleft() if self._urgent else None

    async def submit(self, fn: Callable[..., Awaitable[Any]], *args: Any,
                     urgent: bool = False) -> Any:
        """Run ``fn(*args)`` as this shard's writer and return what it returns
        (or raise what it raised). Waits while the inbox is full; ``urgent``
        work goes ahead of the inbox, and never waits for room."""
        reply = _Reply()
        self._waiting.add(reply)
        try:
            if urgent:
                if not self._serving:
                    raise Unavailable(f"shard {self.shard} stopped serving here")
                self._urgent.append((fn, args, reply))
                if self._idle:  # the writer waits on the inbox: wake it
                    ctx = self.ctx
                    if fn != self.create and fn != self.on_events and fn != self.record_launch:
                        self._wake_writer()
                    elif ctx.lend_waker is None or not ctx.lend_waker._idle:
                        # (a woken writer takes this work with its own)
                        ctx.lend_waker = self
                        self._wake_writer()
            else:
                try:
                    await self._inbox_send.send((fn, args, reply))
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    raise Unavailable(f"shard {self.shard} stopped serving here") from None
            await reply.done.wait()
        finally:
            self._waiting.discard(reply)
        if reply.error is not None:
            raise reply.error
        return reply.value

    # -- storage ----------------------------------------------------------
    async def persist(self, jobs: Iterable[Job] = (), tasks: Iterable[Task] = (), *,
                      ended_runs: Sequence[Task] = (), delete: Sequence[str] = (),
                      configs: Sequence[tuple[str, int, bytes]] = (),
                      updates: Sequence[UpdateRow] = (), events: bool = True,
                      drop: Sequence[tuple[str, int]] = ()) -> None:
        """Write jobs and tasks (with an event per task, and per ended run;
        none with ``events`` False: the tasks' states did not change), new
        config versions and updates; ``drop`` (job id, instance): instances
        a workflow removed, deleted."""
        [error] = await persist_across([(self, await self.write_of(
            jobs, tasks, ended_runs=ended_runs, delete=delete, configs=configs,
            updates=updates, events=events, drop=drop))])
        if error is not None:
            raise error

    async def write_of(self, jobs: Iterable[Job] = (), tasks: Iterable[Task] = (), *,
                       ended_runs: Sequence[Task] = (), delete: Sequence[str] = (),
                       configs: Sequence[tuple[str, int, bytes]] = (),
                       updates: Sequence[UpdateRow] = (), events: bool = True,
                       drop: Sequence[tuple[str, int]] = ()) -> ShardWrite:
        """``persist``'s rows, for ``persist_across``."""
        now = self.ctx.clock()
        task_list = tasks if type(tasks) is list else list(tasks)
        touched = self.jobs.touched
        job_rows = []
        for j in jobs:
            job_rows.append(j.row(now))
            touched.add(j.id)
        if len(task_list) <= SMALL_PART:
            # With 16 shards a fused run's parts are a task or two each,
            # and this is once a part: loops, not a comprehension each
            # (a function made and called; 24,000 instructions a job of
            # ``loadtest.bench_engine`` over 8 shards).
            task_rows = []
            event_rows = []
            for t in task_list:
                task_rows.append(t.row(now))
                touched.add(t.job_id)
            if events:
                for t in ended_runs:
                    event_rows.append(t.event(now))
                for t in task_list:
                    event_rows.append(t.event(now))
            return ShardWrite(self.shard, self.epoch, job_rows, task_rows, event_rows, configs,
                              updates, delete, drop)
        task_list = list(task_list)  # (its own: other tasks run at the checkpoints)
        touched.update([t.job_id for t in task_list])
        task_rows = []
        for start in range(0, len(task_list), ROWS_A_STEP):
            if start:
                # A bulk launch or batch of events writes thousands of tasks:
                # the other shards' writers and a small job's lane run
                # between their rows (only this shard's writer changes its
                # tasks, and it is the one waiting here).
                await trio.lowlevel.checkpoint()
            task_rows += [t.row(now) for t in task_list[start:start + ROWS_A_STEP]]
        event_rows = ([t.event(now) for t in ended_runs] + [t.event(now) for t in task_list]
                      if events else [])
        return ShardWrite(self.shard, self.epoch, job_rows, task_rows, event_rows, configs,
                          updates, delete, drop)

    # -- recovery -----------------------------------------------------------
    async def recover(self) -> None:
        """Claim the shard in storage, load it, and resume every task.

        It yields to the other tasks after each job it builds or resumes: a
        shard of 30,000 tasks took seconds of one step on a busy 2-core box,
        and an owner taking 16 such shards at once held its event loop past
        its lease, lost the shards, took them again and held it again."""
        await self.ctx.storage.claim_shard(self.shard, self.epoch, self.owner)
        rows, task_rows = await self.ctx.storage.load_shard(self.shard)
        by_job: dict[str, list[Any]] = defaultdict(list)
        for t in task_rows:
            by_job[t.job_id].append(t)
        for row in rows:
            await trio.lowlevel.checkpoint()
            job = Job.from_rows(row, by_job[row.job_id])
            self.jobs[row.job_id] = job
            if job.old_versions():  # runs (or an update) of earlier config versions
                await load_versions(job, self.ctx.storage)
        await self.recover_updates()
        for job in self.jobs.values():
            if job.id not in self.updates:
                # (the workflow that held them ended, or was never written)
                await self.release_held(job)
        self.ready.set()
        log.info("shard %d epoch %d: loaded %d active jobs", self.shard, self.epoch,
                 len(self.jobs))
        todo: dict[Act, list[Task]] = defaultdict(list)
        now = self.ctx.clock()
        for job in list(self.jobs.values()):
            await trio.lowlevel.checkpoint()
            for task in job.tasks:
                todo[respond(job, task, Input.OWNER, now).act].append(task)
        to_enqueue, requeue, launching = todo[Act.ENQUEUE], todo[Act.RESEND], todo[Act.ASK]
        # The old owner may not have sent these kills.
        stopping, preempting = todo[Act.KILL] + todo[Act.END], todo[Act.KILL_AGAIN]
        if launching:
            lost = await self._reconcile_launching(launching)
            if lost:  # written before they are placed again, as reconcile does
                await self.persist({t.job_id: self.jobs[t.job_id] for t in lost}.values(), lost)
            requeue.extend(lost)
        await self.enqueue(to_enqueue)
        await self.enqueue(requeue, requeue=True)
        if stopping:
            await self.kill(stopping)
        try:
            await self._send_kills(preempting)
        except PelotonError as error:  # resmgr hands them out again later
            log.warning("shard %d: killing preempted runs: %s", self.shard, error)

    async def _reconcile_launching(self, tasks: list[Task]) -> list[Task]:
        """Runs whose launch the old owner may or may not have sent.

        A run the host manager knows is on its way (its events follow); one
        it does not know never started, so it is placed again, same run.
        """
        known: set[str] = set()
        ids = [t.mesos_task_id for t in tasks]
        for _cluster, client in self.ctx.hostmgrs():
            # With our epoch: from here on the host manager refuses the old
            # owner's launches, so a run it does not know now never starts.
            reply = await client.call("ReconcileTasks", hpb.ReconcileTasksRequest(
                mesosTaskIds=ids, shard=self.shard, epoch=self.epoch))
            known.update(e.mesosTaskId for e in reply.events)
        now = self.ctx.clock()
        unknown = []
        for task in tasks:
            if task.mesos_task_id not in known:
                action = respond(self.jobs[task.job_id], task, Input.UNKNOWN, now)
                apply(task, action.changes)  # REQUEUE: the tasks were LAUNCHING
                unknown.append(task)
        return unknown

    async def _send_kills(self, tasks: Sequence[Task]) -> None:
        """Ask the tasks' host managers to kill their runs (each with its own
        grace period; a repeated kill never extends it)."""
        by_cluster: dict[str, list[str]] = defaultdict(list)
        for t in tasks:
            by_cluster[t.cluster].append(t.mesos_task_id)
        await self._kill_on(by_cluster)

    async def _kill_on(self, by_cluster: Mapping[str, list[str]]) -> None:
        """KillTasks per cluster, unless an operator holds kills back: then
        the runs stay as they are (KILLING) until ``resend_kills``."""
        if self.ctx.hold_kills() and by_cluster:
            log.warning("shard %d: kills locked down; holding back %d", self.shard,
                        sum(map(len, by_cluster.values())))
            return
        for cluster, ids in by_cluster.items():
            await self.ctx.hostmgr_for(cluster).call("KillTasks",
                                                     hpb.KillTasksRequest(mesosTaskIds=ids))

    async def resend_kills(self) -> None:
        """Send the kill of every run being killed or preempted (after a Kill
        lockdown: they waited KILLING, PREEMPTING); a repeated kill is harmless."""
        await self._send_kills([t for job in self.jobs.values() for t in job.tasks
                                if t.state in (TaskState.KILLING, TaskState.PREEMPTING)])

    # -- enqueue --------------------------------------------------------------
    def _hold_over_max_running(self, tasks: Sequence[Task]) -> tuple[list[Task], list[Task]]:
        """(tasks that may start, tasks held INITIALIZED) under each job's
        ``sla.maximumRunningInstances``: at most N instances are scheduled
        (past INITIALIZED and not ended) at once, lowest instances first
        (Peloton's evaluate_sla)."""
        start: list[Task] = []
        held: list[Task] = []
        by_job: dict[str, list[Task]] = defaultdict(list)
        for t in tasks:
            by_job[t.job_id].append(t)
        for job_id, job_tasks in by_job.items():
            job = self.jobs[job_id]
            limit = job.config.sla.maximumRunningInstances
            if not limit or limit >= len(job.tasks):
                start.extend(job_tasks)
                continue
            asking = {id(t) for t in job_tasks}
            busy = sum(1 for t in job.tasks if id(t) not in asking and not t.terminal
                       and t.state != TaskState.INITIALIZED)
            room = max(0, limit - busy)
            job_tasks.sort(key=lambda t: t.instance)
            start.extend(job_tasks[:room])
            for t in job_tasks[room:]:
                if t.state != TaskState.INITIALIZED or t.message != MAX_RUNNING_MESSAGE % limit:
                    t.state, t.message = TaskState.INITIALIZED, MAX_RUNNING_MESSAGE % limit
                    held.append(t)
        return start, held

    async def _start_held(self, jobs: Iterable[Job]) -> None:
        """Start the INITIALIZED tasks of jobs with maximumRunningInstances
        that now have room (after runs ended)."""
        waiting = [t for job in jobs if job.config.sla.maximumRunningInstances
                   for t in job.tasks if t.state == TaskState.INITIALIZED
                   and t.goal != TaskState.KILLED and not t.held]
        if waiting:
            await self.enqueue(waiting)

    async def enqueue(self, tasks: Sequence[Task], *, requeue: bool = False) -> None:
        """Hand tasks to resmgr as gangs (batched per pool); record PENDING.
        A new run waits INITIALIZED while its job is at its
        ``sla.maximumRunningInstances``."""
        if not tasks:
            return
        if not requeue:
            tasks = [t for t in tasks if not t.held]  # waiting for a workflow's batch
            tasks, held = self._hold_over_max_running(tasks)
            if held:
                await self.persist({t.job_id: self.jobs[t.job_id] for t in held}.values(), held)
        if not tasks:
            return
        sent, failed = await self.send_gangs(tasks, requeue=requeue)
        await self.record_enqueued(tasks, sent, failed)

    async def send_gangs(self, tasks: Sequence[Task], *, requeue: bool = False
                         ) -> tuple[dict[int, tuple[int, TaskState]], dict[str, str]]:
        """Send tasks to resmgr as gangs (one call per pool and 1,000 gangs).
        Reads only, so callers may run it outside the writer; returns what
        each task was when sent, and the runs resmgr refused, with why."""
        requests: dict[str, list[rpb.EnqueueGangsRequest]] = {}
        self.enqueue_requests(tasks, requests, limit=1000, requeue=requeue)
        sent = {id(t): (t.run, t.state) for t in tasks}
        failed: dict[str, str] = {}
        for calls in requests.values():
            for request in calls:
                reply = await self.ctx.resmgr.call("EnqueueGangs", request)
                failed.update((f.mesosTaskId, f.message) for f in reply.failed)
        return sent, failed

    def enqueue_requests(self, tasks: Sequence[Task],
                         requests: dict[str, list[rpb.EnqueueGangsRequest]],
                         *, limit: int = 0, requeue: bool = False) -> None:
        """Add ``tasks``' gangs (as resmgr takes them) to their pools'
        EnqueueGangs requests, a new one each ``limit`` gangs (0: no limit)."""
        by_job: dict[str, list[Task]] = defaultdict(list)
        for t in tasks:
            by_job[t.job_id].append(t)
        for job_id, job_tasks in by_job.items():
            job = self.jobs[job_id]
            pool = job.respool_id
            add_gangs(job, job_tasks, requests.setdefault(pool, []),
                      partial(rpb.EnqueueGangsRequest, respoolID={"value": pool},
                              requeue=requeue), limit)

    async def record_enqueued(self, tasks: Sequence[Task], sent: dict[int, tuple[int, TaskState]],
                              failed: dict[str, str]) -> None:
        """The writer's part of an enqueue: refused runs FAILED, the rest
        PENDING. While the calls were in flight, earlier chunks may already
        have been placed, launched and running: only what is still as it was
        sent is written."""
        now = self.ctx.clock()
        changed = []
        for t in tasks:
            if (t.run, t.state) != sent[id(t)]:
                continue
            if t.mesos_task_id in failed:
                t.state, t.message, t.completion_time = (TaskState.FAILED,
                                                         failed[t.mesos_task_id], now)
                changed.append(t)
            elif t.state != TaskState.PENDING:
                # A new run says why it exists (a retry, a preemption).
                t.message = (f"{PENDING_MESSAGE} ({t.message})"
                             if t.state == TaskState.INITIALIZED and t.message else PENDING_MESSAGE)
                t.state = TaskState.PENDING
                changed.append(t)
        if not changed:
            return
        jobs = {t.job_id: self.jobs[t.job_id] for t in changed}
        for job in jobs.values():
            job.refresh_state(now)
        await self.persist(jobs.values(), changed)

    # -- placements -> launch -------------------------------------------------
    async def launch(self, placements: Sequence[rpb.Placement]) -> None:
        """Record placements, then launch them on their hosts (and place the
        refused ones again)."""
        plan = await self.record_launch(placements)
        for tasks, why in await self.send_launches(plan):
            await self.place_again(tasks, why)

    async def record_launch(self, placements: Sequence[rpb.Placement]) -> LaunchPlan:
        """Write the placed tasks LAUNCHING (and end those stopped meanwhile);
        the launches to send, per cluster. The writer's part of a launch."""
        [outcome] = await launches_across([(self, placements)])
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    async def _apply_placements(self, placements: Sequence[rpb.Placement],
                                now: float) -> _Placed:
        """``record_launch`` up to its write."""
        plans: list[tuple[rpb.Placement, list[tuple[Job, Task]]]] = []
        changed: list[Task] = []
        skipped: list[Task] = []
        running: list[Task] = []
        seen = 0
        for p in placements:
            if seen >= ROWS_A_STEP:  # a bulk get's 100 placements hold thousands
                seen = 0
                await trio.lowlevel.checkpoint()
            seen += len(p.tasks)
            chosen: list[tuple[Job, Task]] = []
            ports = list(p.ports)
            for ref in p.tasks:
                task, job = self.find(ref.mesosTaskId)
                if task is None or job is None:
                    continue
                action = respond(job, task, Input.PLACED, now, p.hostname)
                apply(task, action.changes)
                if action.act == Act.END:  # stopped while waiting: it ends here
                    skipped.append(task)
                elif task.state == TaskState.RUNNING:
                    # Placed again: resmgr never had its RUNNING (the report
                    # died with a jobmgr), timed its launch out and placed
                    # it anew; told now, or it does so every LAUNCHING_TIMEOUT.
                    running.append(task)
                if action.act != Act.LAUNCH:
                    continue
                cfg = job.run_config(task)
                assigned: dict[str, int] = {}
                for port in cfg.ports:
                    if port.value:
                        assigned[port.name] = port.value
                    elif ports:
                        assigned[port.name] = ports.pop(0)
                task.host, task.agent = p.hostname, p.agentId
                # A new launch attempt: an unknown-mark of an earlier one
                # (refused or lost) says nothing about this one.
                if self._unknown:
                    self._unknown.discard(task.mesos_task_id)
                task.lease, task.cluster, task.ports = p.leaseId, p.cluster, assigned
                if cfg.HasField("volume") and not task.volume_host:
                    # Its persistent volume is made there: its runs stay there.
                    task.volume_host = p.hostname
                chosen.append((job, task))
                changed.append(task)
            if chosen:
                plans.append((p, chosen))
        touched = {job.id: job for _, chosen in plans for job, _ in chosen}
        for t in skipped:
            touched[t.job_id] = self.jobs[t.job_id]
        for job in touched.values():
            job.refresh_state(now)
        return _Placed(await self.write_of(touched.values(), changed + skipped), plans,
                       skipped + running)

    async def _after_placements(self, placed: _Placed) -> LaunchPlan:
        """``record_launch`` after its write."""
        if placed.report:
            await self.report_states(placed.report)
        # A stop that came while the placement was being recorded wins; the
        # unused lease simply expires in the host manager.
        by_cluster: LaunchPlan = defaultdict(list)
        for placement, chosen in placed.plans:
            chosen = [(job, task) for job, task in chosen if task.goal != TaskState.KILLED]
            if chosen:
                by_cluster[placement.cluster].append((placement, chosen))
        return by_cluster

    async def send_launches(self, plan: LaunchPlan) -> list[tuple[list[Task], str]]:
        """Send this shard's recorded plan (``send_launches`` of the
        module); the refused launches' tasks and why."""
        return [(tasks, why) for _, tasks, why in await send_launches(self.ctx, [(self, plan)])]

    async def place_again(self, tasks: list[Task], why: str) -> None:
        """Tasks whose launch was refused go back to resmgr (stopped ones
        end). A failure is logged: fenced off, or resmgr unreachable, whoever
        owns the shard next finds these tasks LAUNCHING and reconciles them."""
        try:
            await self._place_again(tasks, why)
        except PelotonError as again:
            log.warning("placing again after a refused launch: %s", again)

    async def _place_again(self, tasks: list[Task], why: str) -> None:
        now = self.ctx.clock()
        todo: dict[Act, list[Task]] = defaultdict(list)
        for t in tasks:
            job = self.jobs.get(t.job_id)
            if job is not None:
                action = respond(job, t, Input.REFUSED, now, why)
                apply(t, action.changes)
                todo[action.act].append(t)
        ended, again = todo[Act.END], todo[Act.REQUEUE]
        jobs = {t.job_id: self.jobs[t.job_id] for t in ended}
        for job in jobs.values():
            job.refresh_state(now)
        await self.persist(jobs.values(), again + ended)
        await self.report_states(ended)
        await self.enqueue(again, requeue=True)

    # -- status updates -------------------------------------------------------
    def find(self, mesos_id: str) -> tuple[Task | None, Job | None]:
        """The task whose current run ``mesos_id`` is, and its job (None
        where unknown). Split by hand: a job known here has a valid id, so
        only the numbers need checking (parse_mesos_task_id's expression
        was 3% of a jobmgr's samples, once a task event and twice with
        ``by_lane``)."""
        head, _, run = mesos_id.rpartition("-")
        job_id, _, instance = head.rpartition("-")
        job = self.jobs.get(job_id)
        if job is None or not (instance.isdigit() and run.isdigit()
                               and instance.isascii() and run.isascii()):
            return None, None
        i = int(instance)
        if i >= len(job.tasks):
            return None, job
        task = job.tasks[i]
        return (task if task.run == int(run) else None), job

    def by_lane(self, events: Sequence[hpb.TaskEvent], small: int
                ) -> tuple[list[hpb.TaskEvent], list[hpb.TaskEvent]]:
        """``events`` split, each part in their order: those of this shard's
        jobs of at most ``small`` tasks (urgent work, like their creates and
        launches), and the rest (with the events of jobs not known here)."""
        urgent: list[hpb.TaskEvent] = []
        rest: list[hpb.TaskEvent] = []
        for e in events:
            _, job = self.find(e.mesosTaskId)
            (urgent if job is not None and len(job.tasks) <= small else rest).append(e)
        return urgent, rest

    async def on_events(self, events: Sequence[hpb.TaskEvent]) -> None:
        """Apply a batch of status updates (at-least-once: repeats are no-ops)."""
        [error] = await events_across([(self, events)])
        if error is not None:
            raise error

    async def _apply_events(self, events: Sequence[hpb.TaskEvent], now: float) -> _Applied | None:
        """``on_events`` up to its write: what the events changed (None:
        nothing)."""
        changed: dict[tuple[str, int], Task] = {}
        ended_runs: list[Task] = []
        retry: list[Task] = []
        report: list[Task] = []
        jobs: dict[str, Job] = {}
        for i, e in enumerate(events):
            if i % EVENTS_A_STEP == EVENTS_A_STEP - 1:
                # A full reconcile's answer holds every run of the shard:
                # other tasks (the lease's heartbeats among them) run between.
                await trio.lowlevel.checkpoint()
            task, job = self.find(e.mesosTaskId)
            if task is None or job is None:
                continue
            decision = decide(job, task, Update(
                TaskState(e.state), e.hostname, e.message, e.exitCode, e.reason, e.timestamp,
                e.healthy), now)
            if not decision.changes:
                continue
            apply(task, decision.changes)
            if decision.new_run and decision.ended_run is not None:
                ended_runs.append(decision.ended_run)  # stays as an event
            if decision.report:
                report.append(decision.ended_run or task)
            if decision.new_run:
                retry.append(task)
            changed[(job.id, task.instance)] = task
            jobs[job.id] = job
        if not changed:
            return None
        limited = False
        for job in jobs.values():
            job.refresh_state(now)
            if not limited and job.config.sla.maximumRunningInstances:
                limited = True
        # Events of ended runs first, then the current rows.
        return _Applied(await self.write_of(jobs.values(), list(changed.values()),
                                            ended_runs=ended_runs), jobs, report, retry,
                        limited)

    async def _after_events(self, applied: _Applied) -> None:
        """``on_events`` after its write. (Each step only when it has work:
        with 16 shards a fused run of events is several shards' parts of a
        task or two, and each empty step was a coroutine and its checks.)"""
        if applied.report:
            await self.report_states(applied.report)
        if applied.retry:
            await self.enqueue(applied.retry)
        if applied.limited:
            await self._start_held(applied.jobs.values())

    async def report_states(self, tasks: Sequence[Task]) -> None:
        """Tell resmgr that runs are RUNNING or ended (it releases what they
        held). While the jobmgr's ``Reports`` are served, queued for them:
        the writer does not wait for resmgr's Raft commit."""
        # A task whose start and end came in one batch is here twice; its
        # state is the end's both times.
        states = {t.mesos_task_id: t.state for t in tasks if t.state in RESMGR_STATE_REPORTED}
        await self._report(list(states.items()))

    async def audit_resmgr(self) -> None:
        """Report again what resmgr missed of this shard's runs.

        A run's end is written, then its report queued in memory; a jobmgr
        that dies in between takes the report with it, and resmgr would
        hold what the run used for ever (a chaos run's cluster stalled so,
        its pool's 16 cpu held by 14 runs long ended). Run once the shard
        is recovered, and retried until resmgr answers. A run counts as
        ended when this shard has its end, has a later run of its task, or
        no longer has its job or instance (ended and unloaded, or deleted);
        a report of a run resmgr has forgotten meanwhile is ignored. A run
        resmgr holds LAUNCHING that runs here is reported RUNNING (a lost
        RUNNING report; else it would time out and be placed again)."""
        request = rpb.GetActiveTasksRequest(shards=[self.shard])
        while True:
            try:
                reply = await self.ctx.resmgr.call("GetActiveTasks", request)
                break
            except PelotonError as error:
                log.info("shard %d: asking resmgr which runs it holds: %s; retrying",
                         self.shard, error)
                await trio.sleep(AUDIT_RETRY_S)
        held = [(t.mesosTaskId, TaskState(t.state)) for t in reply.tasks]
        missed = await self.submit(self._missed_among, held) if held else []
        if missed:
            log.warning("shard %d: resmgr missed the state of %d runs (%d ended); reported "
                        "them again", self.shard, len(missed),
                        sum(1 for _, state in missed if state != TaskState.RUNNING))
            await self._report(missed)

    async def _missed_among(self, held: Sequence[tuple[str, TaskState]]
                            ) -> list[tuple[str, TaskState]]:
        """The writer's part of ``audit_resmgr``: of the runs resmgr holds
        (with its state of each), those that ended, with their ends (LOST
        where this shard no longer has them), and those it holds LAUNCHING
        that run."""
        missed: list[tuple[str, TaskState]] = []
        for mid, theirs in held:
            task, job = self.find(mid)
            if task is not None:
                if task.terminal:
                    missed.append((mid, task.state))
                elif task.state == TaskState.RUNNING and theirs == TaskState.LAUNCHING:
                    missed.append((mid, TaskState.RUNNING))
                continue
            try:
                _, instance, run = parse_mesos_task_id(mid)
            except ValueError:
                continue  # (not one of ours)
            if job is None or instance >= len(job.tasks) or job.tasks[instance].run > run:
                missed.append((mid, TaskState.LOST))
        return missed

    async def _report(self, updates: list[tuple[str, TaskState]]) -> None:
        if not updates:
            return
        reports = self.ctx.reports
        if reports is not None and reports.served:
            reports.put(updates)
            return
        await self.ctx.resmgr.call("UpdateTasksState", _reports(updates))

    async def reconcile(self, *, full: bool = True) -> None:
        """Ask the host managers about every run that should be on a host
        (``full``), or only those launching or being killed.

        Known runs get their latest status applied (a lost event costs at most
        one round). A run unknown in two rounds in a row never started
        (LAUNCHING: placed again, same run), is gone (KILLING: KILLED), or was
        lost with its host manager (LOST: retried by the restart policy).
        """
        await self.apply_reconcile(*await self.ask_reconcile(full=full))

    async def ask_reconcile(self, *, full: bool, among: Iterable[Task] | None = None,
                            ) -> tuple[set[str], list[hpb.TaskEvent], set[str]]:
        """Ask the host managers (reads only, so not the writer's) about the
        shard's runs, or those ``among`` these tasks: (the runs asked about,
        the latest status of those they know, those they do not)."""
        states = ON_HOST_TASK_STATES if full else IN_TRANSIT_STATES
        tasks: list[Task] = []
        if among is None:
            seen = 0
            for job in list(self.jobs.values()):
                # A shard of 30,000 tasks is not one step; nor is a shard of
                # 30,000 one-task jobs 30,000 steps.
                if seen >= ROWS_A_STEP:
                    seen = 0
                    await trio.lowlevel.checkpoint()
                seen += len(job.tasks) + 1
                tasks.extend(t for t in job.tasks if t.state in states)
        else:
            tasks = [t for t in among if t.state in states]
        by_cluster: dict[str, list[str]] = defaultdict(list)
        for t in tasks:
            by_cluster[t.cluster].append(t.mesos_task_id)
        known: list[hpb.TaskEvent] = []
        unknown: set[str] = set()
        for cluster, ids in by_cluster.items():
            for i in range(0, len(ids), 5000):
                reply = await self.ctx.hostmgr_for(cluster).call(
                    "ReconcileTasks", hpb.ReconcileTasksRequest(
                        mesosTaskIds=ids[i:i + 5000], shard=self.shard, epoch=self.epoch))
                known.extend(reply.events)
                unknown.update(reply.unknown)
        return {t.mesos_task_id for t in tasks}, known, unknown

    async def apply_reconcile(self, asked: set[str], known: Sequence[hpb.TaskEvent],
                              unknown: set[str]) -> None:
        """The writer's part of a reconcile round (``ask_reconcile``'s answer)."""
        if known:
            await self.on_events(known)
        missing = unknown & self._unknown
        # Runs not asked about this round keep their mark from the last.
        self._unknown = (self._unknown - asked) | (unknown - missing)
        if not missing:
            return
        now = self.ctx.clock()
        requeue: list[Task] = []
        lost: list[hpb.TaskEvent] = []
        for mid in sorted(missing):
            task, job = self.find(mid)
            if task is None or job is None:
                continue
            action = respond(job, task, Input.UNKNOWN, now)
            apply(task, action.changes)
            if action.act == Act.REQUEUE:
                requeue.append(task)
            elif action.act == Act.GONE:
                end = gone(task, now)
                lost.append(hpb.TaskEvent(mesosTaskId=mid, state=int(end.state),  # type: ignore[arg-type]
                                          message=end.message, timestamp=end.timestamp))
        if requeue:
            await self.persist({t.job_id: self.jobs[t.job_id] for t in requeue}.values(), requeue)
            await self.enqueue(requeue, requeue=True)
        if lost:
            await self.on_events(lost)

    # -- sla.maxRunningTime ------------------------------------------------------
    def _sort_touched(self) -> None:
        """Look at the jobs held or written since the last pass: let go of
        the batch jobs that have ended (their state and every task's
        terminal, no update running): they are in storage, which is where a
        new owner finds them too (it loads active jobs only), and the
        handlers that act on an ended job load it from there (kept, every
        job a shard ever ran was held for as long as its jobmgr lived).
        Services and daemon jobs (few, long-lived) stay until their jobmgr
        stops. Note the others that need the timers. A job ends, or comes
        to need them, only by a change, and every change is written."""
        touched, self.jobs.touched = self.jobs.touched, set()
        for job_id in touched:
            job = self.jobs.get(job_id)
            if job is None:
                continue
            service = runs_until_stopped(job.config)
            if (not service and job.terminal and job_id not in self.updates
                    and all(t.terminal for t in job.tasks)):
                del self.jobs[job_id]
            elif _needs_timers(job):
                self._timed[job_id] = None

    def _timed_jobs(self) -> list[Job]:
        """The jobs that need the timers, in the order they came to."""
        jobs = []
        for job_id in list(self._timed):
            job = self.jobs.get(job_id)
            if job is not None and _needs_timers(job):
                jobs.append(job)
            else:  # let go of, or changed: a later change notes it again
                del self._timed[job_id]
        return jobs

    def holds_daemons(self) -> bool:
        """Whether a daemon job is among the shard's jobs: those run until
        stopped, so each is timed, or noted for the next pass."""
        for job_id in itertools.chain(self._timed, self.jobs.touched):
            job = self.jobs.get(job_id)
            if job is not None and job.config.type == job_pb2.DAEMON:
                return True
        return False

    async def run_timers(self) -> None:
        """The shard's timers, each second: kill the runs of jobs with
        ``sla.maxRunningTime`` that have run that long (each ends FAILED,
        reason DEADLINE_TIMEOUT_EXCEEDED, and is not retried, as Peloton's
        deadline tracker does), start again the ended runs of service
        instances whose restart backoff has passed, take down the next runs
        of rolling restarts, and trim the instances an update removed.
        O(tasks of such jobs).

        Ended jobs are let go here (``_sort_touched``) first."""
        self._sort_touched()
        now = self.ctx.clock()
        over: list[Task] = []
        again: list[Task] = []
        timed = self._timed_jobs()
        for job in timed:
            service = runs_until_stopped(job.config)
            if not service and not job.config.sla.maxRunningTime:
                continue
            for t in job.tasks:
                if service:
                    if not t.terminal:
                        continue
                    action = respond(job, t, Input.BACKOFF, now)
                else:
                    action = respond(job, t, Input.DEADLINE, now)
                if action.act == Act.NONE:
                    continue
                apply(t, action.changes)
                (again if action.act == Act.NEW_RUN else over).append(t)
        await self.roll([job for job in timed if bounded_restarts(job)])
        await self.run_updates()
        for job in timed:
            if (self.jobs.get(job.id) is job and len(job.tasks) > job.config.instanceCount
                    and job.id not in self.updates):
                await self.trim(job)
        if not over and not again:
            return
        jobs = {t.job_id: self.jobs[t.job_id] for t in over + again}
        for job in jobs.values():
            job.refresh_state(now)
        await self.persist(jobs.values(), over + again)
        await self._send_kills(over)
        await self.enqueue(again)

    # -- updates ----------------------------------------------------------------
    async def recover_updates(self) -> None:
        """The running updates of the loaded jobs, from storage."""
        for job in self.jobs.values():
            if not job.update_id:
                continue
            row = await self.ctx.storage.get_update(job.update_id)
            if row is None or row.state not in UPDATE_ACTIVE:
                continue
            update = JobUpdate.from_row(row)
            await load_versions(job, self.ctx.storage, (update.from_version,
                                                        update.to_version))
            self.updates[job.id] = update

    async def start_update(self, job: Job, config: job_pb2.JobConfig,
                           update: JobUpdate) -> None:
        """Make ``config`` the job's current version and start rolling it out."""
        update.from_version, version = job.config_version, job.config_version + 1
        update.to_version = version
        first = job.config.instanceCount
        job.set_config(config, version)
        job.update_id = update.id
        job.workflow_version += 1
        # Instances the update adds wait for their batch.
        added = [Task(job.id, i, task_name(config, i), version=version, desired=version,
                      goal=task_goal(job), health=initial_health(job.task_config(i)),
                      held=True, message=HELD_MESSAGE % update.id)
                 for i in range(first, config.instanceCount)]
        job.tasks.extend(added)
        self.updates[job.id] = update
        await self.persist([job], added, configs=[(job.id, version, config.SerializeToString(
            deterministic=True))], updates=[update.row()])
        await self.run_updates([job.id])

    async def start_create_workflow(self, job: Job, update: JobUpdate) -> None:
        """Roll a new job's first version out in batches (a v1alpha create
        with a ``create_spec``): its instances were created held."""
        update.from_version, update.to_version = 0, job.config_version
        job.update_id = update.id
        job.workflow_version += 1
        self.updates[job.id] = update
        await self.persist([job], updates=[update.row()])
        await self.run_updates([job.id])

    async def trim(self, job: Job) -> None:
        """Remove the instances past the job's instance count (an update
        removed them): stop the live ones, and once every one
        has ended, delete them. The update's batches stop them in turn; an
        update that ended with some left has them stopped at once here."""
        extra = job.tasks[job.config.instanceCount:]
        if not extra:
            return
        drop = self.drop_extra(job)
        if drop:
            await self.persist([job], drop=drop)
            return
        live = [t for t in extra if not (t.terminal or t.held) and t.goal != TaskState.KILLED]
        if live:
            await self.kill(live)

    def drop_extra(self, job: Job) -> list[tuple[str, int]]:
        """Take the instances past the job's count out of it once every one
        has ended; returns them for ``persist``'s ``drop`` (none while one
        still runs)."""
        count = job.config.instanceCount
        extra = job.tasks[count:]
        if not extra or not all(t.terminal or t.held for t in extra):
            return []
        del job.tasks[count:]
        job.refresh_state(self.ctx.clock())
        return [(job.id, t.instance) for t in extra]

    def unhold(self, job: Job) -> list[Task]:
        """Let go, in memory, of the instances a workflow still holds (it
        ended); returns them, to be written and then started."""
        held = [t for t in job.tasks[:job.config.instanceCount] if t.held]
        for t in held:
            t.held, t.message = False, ""
        return held

    async def after_workflow(self, job: Job, released: list[Task]) -> None:
        """What follows a workflow's end once it is written: the instances it
        held start, and those past the count still alive are stopped (they
        go once they have ended)."""
        if released:
            await self.enqueue(released)
        await self.trim(job)

    async def release_held(self, job: Job) -> None:
        """A recovered shard's jobs whose workflow ended: the instances it
        held are let go (the recovery's pass enqueues them)."""
        held = self.unhold(job)
        if held:
            await self.persist([job], held, events=False)

    async def save_update(self, job: Job, update: JobUpdate) -> None:
        """Write an update's record (its state changed). An ended one stops
        here, in the same write as what it leaves (its held instances let
        go, its removed ones deleted if they have ended): a reader never
        sees it ended with them as they were."""
        update.update_time = self.ctx.clock()
        ended = update.state not in UPDATE_ACTIVE
        released: list[Task] = []
        drop: list[tuple[str, int]] = []
        if ended:
            self.updates.pop(job.id, None)
            released, drop = self.unhold(job), self.drop_extra(job)
        await self.persist([job] if released or drop else (), released,
                           updates=[update.row()], events=False, drop=drop)
        if ended:
            await self.after_workflow(job, released)

    async def roll_back(self, job: Job, update: JobUpdate) -> None:
        """Roll the update's old config out again, as a newer version."""
        old = job_pb2.JobConfig()
        old.CopyFrom(job.config_at(update.from_version))
        version = job.config_version + 1
        job.set_config(old, version)
        update.to_version, update.rolling_back = version, True
        update.state = int(UpdateState.ROLLING_BACKWARD)
        update.done.clear()
        update.failed.clear()
        update.attempts.clear()
        update.counted.clear()
        update.update_time = self.ctx.clock()
        await self.persist([job], configs=[(job.id, version, old.SerializeToString(
            deterministic=True))], updates=[update.row()])
        await self.run_updates([job.id])

    async def run_updates(self, job_ids: Iterable[str] | None = None) -> None:
        """Move each rolling update on (``update.step``): instances whose
        config did not change take the new number, the next batch restarts
        into it, and the update ends, fails or rolls back when its instances
        say so. Each change is written before it is acted on."""
        now = self.ctx.clock()
        for job_id in list(self.updates if job_ids is None else job_ids):
            update, job = self.updates.get(job_id), self.jobs.get(job_id)
            if job is None:  # deleted
                self.updates.pop(job_id, None)
                continue
            if update is None:
                continue
            if update.state not in (UpdateState.ROLLING_FORWARD,
                                    UpdateState.ROLLING_BACKWARD):
                continue
            plan = update_step(job, update)
            update.note(now, plan.done, int(UpdateState.SUCCEEDED))
            update.note(now, plan.failed, int(UpdateState.FAILED))
            update.note(now, [t.instance for t in plan.take + plan.start])
            for t in plan.start:
                t.held, t.message = False, ""
            for t in plan.relabel:
                t.version = t.desired = update.to_version
            for t in plan.take:
                t.desired = update.to_version
            if plan.state is not None:
                update.state = plan.state
            if not (plan.relabel or plan.take or plan.start or plan.remove or plan.drop
                    or plan.changed or plan.rollback or plan.state is not None):
                continue
            update.update_time = now
            ended = update.state not in UPDATE_ACTIVE
            if ended:
                del self.updates[job_id]
            # What the update leaves goes in the write that may end it (see
            # save_update): held instances let go, removed ones deleted.
            released = self.unhold(job) if ended else []
            drop = self.drop_extra(job)  # (plan.drop)
            # Versions only: no state changed, so no event (the restarts write theirs).
            await self.persist([job], plan.relabel + plan.take + plan.start + released,
                               updates=[update.row()], events=False, drop=drop)
            if plan.start:
                await self.enqueue(plan.start)
            if plan.take:
                await self.restart(plan.take)
            if plan.remove:
                await self.kill(plan.remove)
            if ended:
                await self.after_workflow(job, released)
            if plan.rollback:
                await self.roll_back(job, update)

    # -- more instances -----------------------------------------------------------
    async def add_instances(self, job: Job, config: job_pb2.JobConfig) -> list[Task]:
        """Make ``config`` (the job's, with more instances) its new version
        and start the instances it adds; returns their tasks."""
        version, first = job.config_version + 1, job.config.instanceCount
        job.set_config(config, version)
        added = [Task(job.id, i, task_name(config, i), version=version, desired=version,
                      goal=task_goal(job), health=initial_health(job.task_config(i)))
                 for i in range(first, config.instanceCount)]
        job.tasks.extend(added)
        if job.state in TERMINAL_JOB_STATES and added:
            job.state = JobState.PENDING
        job.refresh_state(self.ctx.clock())
        await self.persist([job], added, configs=[
            (job.id, version, config.SerializeToString(deterministic=True))])
        await self.enqueue(added)
        return added

    async def grow_daemons(self, hosts: Sequence[tuple[str, tuple[float, float, float, float],
                                                       Mapping[str, str]]]) -> None:
        """Give each running daemon job an instance on every host in ``hosts``
        (UP hosts: name, capacity, attributes) that fits it and has none."""
        for job in list(self.jobs.values()):
            if (job.config.type != job_pb2.DAEMON or job.terminal
                    or job.goal == JobState.KILLED or job.id in self.updates):
                continue
            covered = {pinned_host(c) for c in job.config.instanceConfig.values()}
            new = [name for name, capacity, labels in hosts if name not in covered
                   and daemon_fits(job.config, name, capacity, labels)]
            if new:
                log.info("daemon job %s: %d more instance(s), on %s", job.id, len(new),
                         ", ".join(new))
                await self.add_instances(job, with_daemon_hosts(job.config, new))

    # -- host maintenance ---------------------------------------------------------
    async def drain(self, hosts: Collection[tuple[str, str]]) -> None:
        """Move this shard's runs off hosts draining for maintenance ((cluster,
        hostname) each): a service's instance restarts elsewhere, rolling
        within its sla.maximumUnavailableInstances; a batch task is
        preempted (killed with its grace period) and runs again elsewhere,
        not counted as a failure; a daemon's instance is preempted too, and
        its next run waits for the host, which it is pinned to. Runs already
        going are left as they are, so repeating it changes nothing."""
        services: list[Task] = []
        batch: list[tuple[str, str]] = []
        for job in self.jobs.values():
            service = job.config.type == job_pb2.SERVICE
            for t in job.tasks:
                # (a launch in flight there is refused, and placed again elsewhere)
                if (t.state not in ON_HOST_TASK_STATES or (t.cluster, t.host) not in hosts
                        or t.restart or t.state in (TaskState.LAUNCHING, TaskState.KILLING,
                                                    TaskState.PREEMPTING)
                        or t.goal == TaskState.KILLED):
                    continue
                if service:
                    services.append(t)
                else:
                    batch.append((t.mesos_task_id,
                                  f"host {t.host} is being drained for maintenance"))
        if services:
            await self.restart(services)
        if batch:
            await self.preempt(batch)

    # -- preemption -------------------------------------------------------------
    async def preempt(self, victims: Sequence[tuple[str, str]]) -> None:
        """Kill runs resmgr preempted, ``(mesos task id, why)`` each.

        A run on a host is written PREEMPTING (before the kill, so a new owner
        knows to finish it), then killed with its own grace period; its end
        (``on_events``) decides what follows. A run already PREEMPTING is
        killed again (the first kill may never have been sent). A run that
        ended, was superseded, or is being stopped is left alone: its end
        reaches resmgr anyway. Safe to repeat.
        """
        now = self.ctx.clock()
        changed: list[Task] = []
        jobs: dict[str, Job] = {}
        kill: list[Task] = []
        for mid, why in victims:
            task, job = self.find(mid)
            if task is None or job is None:
                continue
            action = respond(job, task, Input.PREEMPT, now, why)
            if action.act == Act.KILL_AGAIN:
                kill.append(task)
            if action.act != Act.KILL:
                continue
            apply(task, action.changes)
            changed.append(task)
            jobs[job.id] = job
            kill.append(task)
        if changed:
            for job in jobs.values():
                job.refresh_state(now)
            await self.persist(jobs.values(), changed)
        await self._send_kills(kill)

    # -- stop / start / restart / delete ---------------------------------------
    async def kill(self, tasks: Sequence[Task]) -> None:
        """Make KILLED the goal of these tasks and carry it out."""
        now = self.ctx.clock()
        on_host: dict[str, list[str]] = defaultdict(list)
        ended: list[Task] = []
        for t in tasks:
            action = respond(self.jobs[t.job_id], t, Input.STOP, now)
            apply(t, action.changes)
            if action.act == Act.KILL:
                on_host[t.cluster].append(t.mesos_task_id)
            elif action.act == Act.END:
                ended.append(t)
        jobs = {t.job_id: self.jobs[t.job_id] for t in tasks}
        for job in jobs.values():
            job.refresh_state(now)
        await self.persist(jobs.values(), tasks)
        await self.report_states(ended)
        await self._kill_on(on_host)

    async def start(self, tasks: Sequence[Task]) -> list[int]:
        """Start a new run of each ended task (goal: succeed)."""
        started = []
        fresh = []
        now = self.ctx.clock()
        for t in tasks:
            action = respond(self.jobs[t.job_id], t, Input.START, now)
            if action.act == Act.NONE:
                continue
            apply(t, action.changes)
            if action.act == Act.NEW_RUN:
                fresh.append(t)
            started.append(t.instance)
        jobs = {t.job_id: self.jobs[t.job_id] for t in tasks}
        for job in jobs.values():
            job.goal = JobState.RUNNING if runs_until_stopped(job.config) else (
                JobState.SUCCEEDED)
            job.refresh_state(now)
        await self.persist(jobs.values(), tasks)
        await self.enqueue(fresh)
        return started

    async def restart(self, tasks: Sequence[Task], *, check_sla: bool = True) -> None:
        """Restart these tasks: each running run is killed and replaced by a
        new run, each ended task starts a new run. A service whose
        sla.maximumUnavailableInstances bounds its instances down rolls: its
        runs are marked and taken down in turn (``roll``), unless
        ``check_sla`` is False (v1alpha RestartPod): then they go at once."""
        running = [t for t in tasks if not t.terminal]
        now = self.ctx.clock()
        kill = []
        for t in running:
            job = self.jobs[t.job_id]
            kind = (Input.ROLLING_RESTART if check_sla and bounded_restarts(job)
                    else Input.RESTART)
            action = respond(job, t, kind, now)
            apply(t, action.changes)
            if action.act == Act.KILL:
                kill.append(t)
        if running:
            jobs = {t.job_id: self.jobs[t.job_id] for t in running}
            for job in jobs.values():
                job.refresh_state(now)
            await self.persist(jobs.values(), running)
            await self._send_kills(kill)
            if check_sla:
                await self.roll([job for job in jobs.values() if bounded_restarts(job)])
        await self.start([t for t in tasks if t.terminal])

    async def roll(self, jobs: Iterable[Job]) -> None:
        """Take down the runs of these jobs marked for a rolling restart whose
        turn has come (``rolling_restarts``); each is killed and replaced
        (its end decides the new run). Called on a restart and each second
        (``run_timers``), so the next go as soon as others serve again."""
        now = self.ctx.clock()
        kill: list[Task] = []
        changed: list[Job] = []
        for job in jobs:
            due = rolling_restarts(job)
            for t in due:
                apply(t, respond(job, t, Input.ROLL, now).changes)
            if due:
                kill += due
                changed.append(job)
                job.refresh_state(now)
        if kill:
            await self.persist(changed, kill)
            await self._send_kills(kill)

    async def delete(self, job: Job) -> None:
        """Kill what runs, release it in resmgr now, and forget the job.

        The KILLED events of its runs will find no job, so resmgr hears of
        the end here; the host managers free the hosts when the runs exit.
        """
        live = [t for t in job.tasks if not t.terminal]
        volumes = [(t.volume_host, volume_id(job.id, t.instance)) for t in job.tasks
                   if t.volume_host]
        await self.kill(job.tasks)
        updates = [rpb.TaskStateUpdate(mesosTaskId=t.mesos_task_id, state=int(TaskState.KILLED))  # type: ignore[arg-type]
                   for t in live]
        if updates:
            await self.ctx.resmgr.call("UpdateTasksState",
                                       rpb.UpdateTasksStateRequest(updates=updates))
        await self.persist(delete=[job.id])
        self.jobs.pop(job.id, None)
        await self.delete_volumes(volumes)

    async def delete_volumes(self, volumes: Sequence[tuple[str, str]]) -> None:
        """Delete persistent volumes, (host, volume id) each, on whichever
        cluster has the host. Best effort: a host manager that cannot be
        reached keeps the data, and says nothing of it again."""
        by_host: dict[str, list[str]] = defaultdict(list)
        for host, volume in volumes:
            by_host[host].append(volume)
        for host, ids in by_host.items():
            for cluster, client in self.ctx.hostmgrs():
                try:
                    await client.call("DeleteVolumes", hpb.DeleteVolumesRequest(
                        hostname=host, volumeIds=ids))
                except PelotonError as error:
                    log.warning("deleting volumes %s on %s (cluster %s): %s", ids, host,
                                cluster, error)

    async def create(self, job: Job) -> bool:
        """Write a new job with its tasks PENDING (the caller enqueues them
        next). Written once, not INITIALIZED and then again PENDING: a new
        owner re-enqueues PENDING tasks, and resmgr takes a run it already
        has as a no-op, so nothing is lost if enqueueing does not happen.
        False when the same job (same config) is here already: a repeated
        create; AlreadyExists when another config has its id. Through
        ``submit``, creates that wait together are written together."""
        [outcome] = await self.create_all([job])
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    async def create_all(self, jobs: Sequence[Job]) -> list[bool | Exception]:
        """``create`` of each of ``jobs`` (of distinct ids) in one storage
        write: each one's answer, or the error it met (the storage's for
        that job alone, or ``Aborted`` for all when the shard was fenced)."""
        [outcomes] = await create_across([(self, jobs)])
        return outcomes


async def create_across(parts: Sequence[tuple[ShardEngine, Sequence[Job]]]
                        ) -> list[list[bool | Exception]]:
    """``ShardEngine.create_all`` of several shards of this jobmgr in one
    storage write, each shard's part fenced by its epoch; the caller holds
    each shard (its writer's turn, or lent to it)."""
    ctx = parts[0][0].ctx
    now = ctx.clock()
    outs: list[list[bool | Exception]] = []
    fresh: list[tuple[int, list[int]]] = []  # (part, its new jobs)
    for k, (engine, jobs) in enumerate(parts):
        out: list[bool | Exception] = [False] * len(jobs)
        outs.append(out)
        new: list[int] = []
        for i, job in enumerate(jobs):
            current = engine.jobs.get(job.id)
            if current is not None:
                out[i] = (False if current.config == job.config else
                          AlreadyExists(f"job {job.id} already exists with another config"))
                continue
            limit = job.config.sla.maximumRunningInstances or len(job.tasks)
            for t in job.tasks:
                if t.state == TaskState.INITIALIZED and not t.held:
                    if t.instance < limit:
                        t.state, t.message = TaskState.PENDING, PENDING_MESSAGE
                    else:  # a new owner must not start it before there is room
                        t.message = MAX_RUNNING_MESSAGE % limit
            job.refresh_state(now)
            new.append(i)
        if new:
            fresh.append((k, new))
    if not fresh:
        return outs
    rows = []
    made = 0
    for k, new in fresh:
        engine, jobs = parts[k]
        part = []
        for i in new:
            if made >= ROWS_A_STEP:
                # A bulk load's group of creates is 16 jobs of 1,000 tasks,
                # 40 ms of rows on a fast core: made in one step, it held
                # every other shard's writer and a small job's lane as long.
                made = 0
                await trio.lowlevel.checkpoint()
            part.append((jobs[i].row(now), [t.row(now) for t in jobs[i].tasks]))
            made += len(jobs[i].tasks)
        rows.append((engine.shard, engine.epoch, part))
    try:
        results: list[list[PelotonError | None] | Aborted] | Exception = \
            await ctx.storage.create_jobs_across(rows)
    except Exception as error:  # each caller raises its own copy
        results = error
    for n, (k, new) in enumerate(fresh):
        engine, jobs = parts[k]
        result = results if isinstance(results, Exception) else results[n]
        if isinstance(result, Exception):
            if isinstance(result, Aborted):
                engine.fenced.set()
            for i in new:
                outs[k][i] = copy.copy(result)
            continue
        for i, failed in zip(new, result, strict=True):
            if failed is None:
                engine.jobs[jobs[i].id] = jobs[i]
                outs[k][i] = True
            else:
                outs[k][i] = failed
    return outs


async def persist_across(writes: Sequence[tuple[ShardEngine, ShardWrite]]
                         ) -> list[Exception | None]:
    """The writes (``ShardEngine.write_of``) of several shards of this
    jobmgr in one storage write; each one's error, or None. A shard whose
    fence refused its write (``Aborted``) stops."""
    if not writes:
        return []
    try:
        errors: list[Exception | None] = list(
            await writes[0][0].ctx.storage.write_across([w for _, w in writes]))
    except Exception as failed:  # each caller raises its own copy
        errors = [copy.copy(failed) for _ in writes]
    for (engine, _), error in zip(writes, errors, strict=True):
        if isinstance(error, Aborted):
            engine.fenced.set()
    return errors


async def _written_across(
        parts: Sequence[tuple[ShardEngine, Any]],
        stage: Callable[[ShardEngine, Any, float], Awaitable[_S | None]],
        finish: Callable[[ShardEngine, _S], Awaitable[Any]],
        apart: Callable[[_S], bool] = lambda _: False) -> list[Any]:
    """For each (engine, input) part: ``stage`` it (up to its write; None:
    nothing to write), write them all in one storage write
    (``persist_across``), then ``finish`` each; each part's answer
    (``finish``'s, None when nothing was written) or the error it met.
    The caller holds each shard (its writer's turn, or lent to it). The
    ``finish`` of parts ``apart`` says may wait run at once: one shard's
    wait holds no other."""
    now = parts[0][0].ctx.clock()
    out: list[Any] = [None] * len(parts)
    staged: list[tuple[int, _S]] = []
    for k, (engine, given) in enumerate(parts):
        try:
            done = await stage(engine, given, now)
        except Exception as failed:  # (a bug) the part's caller's
            out[k] = failed
            continue
        if done is not None:
            staged.append((k, done))
    written = await persist_across([(parts[k][0], done.write) for k, done in staged])
    ready: list[tuple[int, _S]] = []
    for (k, done), error in zip(staged, written, strict=True):
        if error is not None:
            out[k] = error
        else:
            ready.append((k, done))

    async def run(k: int, done: _S) -> None:
        try:
            out[k] = await finish(parts[k][0], done)
        except Exception as failed:  # the part's caller's
            out[k] = failed

    if len(ready) > 1 and any(apart(done) for _, done in ready):
        async with trio.open_nursery() as nursery:
            for k, done in ready:
                nursery.start_soon(run, k, done)
    else:
        # ``run``'s body inline: most fused runs' parts finish here, a task
        # or two each, and a coroutine a part was a measurable share of
        # one (``loadtest.bench_engine``, thirty-ninth session).
        for k, done in ready:
            try:
                out[k] = await finish(parts[k][0], done)
            except Exception as failed:  # the part's caller's
                out[k] = failed
    return out


async def events_across(parts: Sequence[tuple[ShardEngine, Sequence[hpb.TaskEvent]]]
                        ) -> list[Exception | None]:
    """``ShardEngine.on_events`` of several shards of this jobmgr, their
    writes in one storage write; each part's error, or None. Restarts are
    enqueued at resmgr after the write: parts that have them go at once."""
    return await _written_across(parts, ShardEngine._apply_events, ShardEngine._after_events,
                                 _Applied.waits)


async def launches_across(parts: Sequence[tuple[ShardEngine, Sequence[rpb.Placement]]]
                          ) -> list[LaunchPlan | Exception]:
    """``ShardEngine.record_launch`` of several shards of this jobmgr,
    their writes in one storage write; each part's plan, or its error."""
    return await _written_across(parts, ShardEngine._apply_placements,
                                 ShardEngine._after_placements)


def _one_each(across: Callable[[list[tuple[ShardEngine, Any]]], Awaitable[list[Any]]]
              ) -> Callable[[list[tuple[ShardEngine, list[_Work]]]], Awaitable[list[list[Any]]]]:
    """``across`` as ``ShardEngine._run_lent`` runs it: a work a shard,
    its one argument given, its answer returned."""
    async def run(batches: list[tuple[ShardEngine, list[_Work]]]) -> list[list[Any]]:
        outcomes = await across([(engine, work[1][0]) for engine, [work] in batches])
        return [[outcome] for outcome in outcomes]
    return run


_events_across = _one_each(events_across)
_launches_across = _one_each(launches_across)


def _tasks(batch: Sequence[_Work]) -> int:
    """The tasks of a batch of creates."""
    return sum(len(job.tasks) for _, (job,), _ in batch)


async def _creates_across(batches: list[tuple[ShardEngine, list[_Work]]]
                          ) -> list[list[bool | Exception]]:
    return await create_across([(engine, [job for _, (job,), _ in batch])
                                for engine, batch in batches])


def placed_tasks(placements: Sequence[rpb.Placement]) -> int:
    """The tasks of a batch of placements."""
    return sum(len(p.tasks) for p in placements)
