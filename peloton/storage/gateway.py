"""The storage gateway: the rows jobmgr persists and the interface every backend keeps.

Storage is the source of truth for jobs and tasks (the Raft log is not fsynced,
see DESIGN.md §2). It knows nothing about protobuf: configs and runtimes are
opaque ``bytes`` next to the few columns that queries and recovery need.

Fencing. Jobs are hash-partitioned into shards; each shard is owned by one
jobmgr at a time, under an *epoch* that grows each time ownership moves. The
store keeps, per shard, the highest epoch that has claimed or written it. Every
call that changes a shard's rows names the shard and the caller's epoch, and
runs as ONE transaction that first checks the fence:

* epoch lower than the stored one: raise :class:`~peloton.core.errors.Aborted`
  and change nothing (a stale owner is detected, not trusted);
* epoch equal: proceed;
* epoch higher, or shard never claimed: raise the stored epoch to it (an
  implicit claim that keeps the recorded owner), then proceed. So no write of a
  lower epoch can land after any write of a higher one.

Errors are the project's tree (``peloton.core.errors``): ``Aborted`` for a
stale epoch, ``AlreadyExists`` for a duplicate job, ``InvalidArgument`` for
rows that contradict the call (a job of another shard), ``NotFound`` for tasks
or events of a job that does not exist, ``Unavailable`` when the backend is
busy or unreachable (retry), ``FailedPrecondition`` for a store this code
cannot use (newer schema), ``Internal`` for anything else. A failed call
changes nothing.
"""

from __future__ import annotations

import abc
import dataclasses
from collections.abc import Sequence
from types import TracebackType
from typing import NamedTuple, Self

from peloton.core.errors import Aborted, PelotonError
from peloton.core.states import TERMINAL_JOB_STATES

__all__ = [
    "ACTIVE_EXCLUDED_JOB_STATES",
    "JobRow",
    "ShardRow",
    "ShardWrite",
    "Storage",
    "TaskEventRow",
    "TaskRow",
]

# load_shard(active_only=True) skips jobs in these states (JobState numbers).
ACTIVE_EXCLUDED_JOB_STATES: frozenset[int] = frozenset(int(s) for s in TERMINAL_JOB_STATES)


class JobRow(NamedTuple):
    """One job. ``state``/``goal_state`` are ``JobState`` numbers; times are
    seconds since the epoch; ``labels`` keep their order and may repeat keys.
    A named tuple, as TaskRow: a jobmgr makes one at each of a job's
    changes, and a summary query one for each job it reads (a frozen
    dataclass's ``__init__``, 15 fields, cost 1.2 us more)."""

    job_id: str
    shard: int
    name: str
    owner: str
    respool_id: str
    state: int
    goal_state: int
    instance_count: int
    labels: list[tuple[str, str]]
    creation_time: float
    update_time: float
    completion_time: float
    config_version: int
    config: bytes
    runtime: bytes


class TaskRow(NamedTuple):
    """The current run of one instance; ``state``/``goal_state`` are ``TaskState`` numbers.
    A named tuple, as TaskEventRow: a jobmgr makes one for every state a
    task passes (a frozen dataclass's ``__init__`` cost 1.1 us more), and
    its fields are the table's columns in order, so it is the SQL row."""

    job_id: str
    instance_id: int
    run_id: int
    state: int
    goal_state: int
    host: str
    name: str
    update_time: float
    runtime: bytes


class TaskEventRow(NamedTuple):
    """One state change of one run, appended, never updated."""

    job_id: str
    instance_id: int
    run_id: int
    state: int
    timestamp: float
    host: str
    message: str


@dataclasses.dataclass(frozen=True, slots=True)
class UpdateRow:
    """One update of a job (a workflow): ``state`` is an ``update.State``
    number; ``record`` is the jobmgr's JSON account of its progress."""

    update_id: str
    job_id: str
    state: int
    create_time: float
    update_time: float
    record: str


@dataclasses.dataclass(frozen=True, slots=True)
class ShardRow:
    """The fence of one shard: the highest epoch seen, and who claimed it."""

    shard: int
    epoch: int
    owner: str
    update_time: float


@dataclasses.dataclass(slots=True)
class ShardWrite:
    """One shard's batch of changes, as ``Storage.write`` takes them. (Not
    frozen: a frozen dataclass sets each field through ``object.__setattr__``,
    1.1 us a write instead of 0.3, and a jobmgr makes two for each shard's
    part of every fused write; nothing changes one once made.)"""

    shard: int
    epoch: int
    jobs: Sequence[JobRow] = ()
    tasks: Sequence[TaskRow] = ()
    events: Sequence[TaskEventRow] = ()
    configs: Sequence[tuple[str, int, bytes]] = ()
    updates: Sequence[UpdateRow] = ()
    delete_jobs: Sequence[str] = ()
    delete_tasks: Sequence[tuple[str, int]] = ()


# What query_jobs can order by.
JOB_ORDER_COLUMNS = ("creation_time", "completion_time", "update_time", "name", "owner",
                     "state", "instance_count", "job_id")


class Storage(abc.ABC):
    """What jobmgr needs from a store. Every method is async and safe to call
    from several trio tasks at once; each call is one atomic unit. Several
    ``Storage`` objects (in one or several processes) may share one store and
    see each other's committed writes.

    Usable as ``async with await open_x(...) as store:``.
    """

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    @abc.abstractmethod
    async def aclose(self) -> None:
        """Release the connection. Idempotent; later calls raise ``Unavailable``."""

    # ---- shards -------------------------------------------------------------

    @abc.abstractmethod
    async def claim_shard(self, shard: int, epoch: int, owner: str) -> None:
        """Record ``owner`` as the owner of ``shard`` at ``epoch``.

        Allowed when ``epoch`` >= the stored epoch (equal: an idempotent
        re-claim); raises ``Aborted`` and changes nothing when the stored
        epoch is higher.
        """

    @abc.abstractmethod
    async def get_shard(self, shard: int) -> ShardRow | None:
        """The shard's fence, or None if it was never claimed or written."""

    # ---- writes (fenced) ----------------------------------------------------

    @abc.abstractmethod
    async def write(
        self,
        shard: int,
        epoch: int,
        *,
        jobs: Sequence[JobRow] = (),
        tasks: Sequence[TaskRow] = (),
        events: Sequence[TaskEventRow] = (),
        configs: Sequence[tuple[str, int, bytes]] = (),
        updates: Sequence[UpdateRow] = (),
        delete_jobs: Sequence[str] = (),
        delete_tasks: Sequence[tuple[str, int]] = (),
    ) -> None:
        """Apply one batch of a shard's changes in ONE transaction.

        In order: check the fence (module docstring), upsert ``jobs``
        (every job must have ``shard``), upsert ``tasks`` (keyed by job and
        instance), append ``events`` (kept in the given order), upsert
        ``configs`` ((job id, version, JobConfig bytes): the versions a job's
        runs and updates refer to) and ``updates`` (keyed by update id),
        delete ``delete_jobs`` with their tasks, events, configs and updates
        (an unknown id is a no-op), and ``delete_tasks`` ((job id, instance):
        instances a workflow removed) with their events. Within one list a later row for the same
        key wins.

        Every job named by a task, event or delete must belong to ``shard``
        (``InvalidArgument`` otherwise); tasks and events must name a job
        that exists, possibly created by this same call (``NotFound``
        otherwise). On any error nothing is changed.
        """

    async def write_across(self, writes: Sequence[ShardWrite]) -> list[PelotonError | None]:
        """``write`` of several shards' batches, as one write where the
        store can: each batch's error (its fence's ``Aborted``, or what
        ``write`` raises), or None; a batch that fails changes nothing and
        fails no other."""
        out: list[PelotonError | None] = []
        for w in writes:
            try:
                await self.write(w.shard, w.epoch, jobs=w.jobs, tasks=w.tasks, events=w.events,
                                 configs=w.configs, updates=w.updates, delete_jobs=w.delete_jobs,
                                 delete_tasks=w.delete_tasks)
            except PelotonError as error:
                out.append(error)
            else:
                out.append(None)
        return out

    @abc.abstractmethod
    async def create_job(
        self, shard: int, epoch: int, job: JobRow, tasks: Sequence[TaskRow] = ()
    ) -> None:
        """Insert a new job and its tasks in ONE fenced transaction.

        Raises ``AlreadyExists`` if ``job.job_id`` exists (nothing changed),
        ``InvalidArgument`` if ``job.shard != shard`` or a task names
        another job.
        """

    async def create_jobs(
        self, shard: int, epoch: int, jobs: Sequence[tuple[JobRow, Sequence[TaskRow]]]
    ) -> list[PelotonError | None]:
        """``create_job`` of each (job, its tasks), as one write where the
        store can: each job's outcome, None for created or the error it
        alone met (``AlreadyExists``, ``InvalidArgument``), in order. A job
        that fails changes nothing and fails no other. A write the shard's
        fence refuses raises ``Aborted`` and reports no outcome (in this
        default, which creates them one by one, the jobs before it stay
        made; a create sent again finds its job)."""
        out: list[PelotonError | None] = []
        for job, tasks in jobs:
            try:
                await self.create_job(shard, epoch, job, tasks)
            except Aborted:
                raise
            except PelotonError as error:
                out.append(error)
            else:
                out.append(None)
        return out

    async def create_jobs_across(
        self, parts: Sequence[tuple[int, int, Sequence[tuple[JobRow, Sequence[TaskRow]]]]]
    ) -> list[list[PelotonError | None] | Aborted]:
        """``create_jobs`` of several shards' (shard, epoch, jobs) parts, as
        one write where the store can: each part's outcomes, or the
        ``Aborted`` its shard's fence answered (that part changed nothing;
        the others are made)."""
        outs: list[list[PelotonError | None] | Aborted] = []
        for shard, epoch, jobs in parts:
            try:
                outs.append(await self.create_jobs(shard, epoch, jobs))
            except Aborted as refused:
                outs.append(refused)
        return outs

    # ---- reads (unfenced; anyone may read) ----------------------------------

    @abc.abstractmethod
    async def get_job(self, job_id: str) -> JobRow | None:
        """The job, or None."""

    @abc.abstractmethod
    async def get_jobs(self, job_ids: Sequence[str]) -> list[JobRow]:
        """The jobs that exist, in the order asked (a repeated id appears once)."""

    @abc.abstractmethod
    async def query_jobs(
        self,
        *,
        states: Sequence[int] = (),
        respool_id: str | None = None,
        owner: str | None = None,
        name: str | None = None,
        labels: Sequence[tuple[str, str]] = (),
        keywords: Sequence[str] = (),
        created: tuple[float, float] | None = None,
        completed: tuple[float, float] | None = None,
        order_by: Sequence[tuple[str, bool]] = (),
        offset: int = 0,
        limit: int = 100,
    ) -> tuple[list[JobRow], int]:
        """Search jobs; returns (one page, total number matching).

        Filters combine with AND: ``states`` any of; ``respool_id`` and
        ``owner`` exact; ``name`` case-insensitive substring (Peloton's
        ``*name*``); ``labels`` every (key, value) pair present; every
        keyword a case-insensitive substring of the name, the owner, or
        some label key or value; ``created`` and ``completed`` (low, high)
        bound creation_time and completion_time, both ends included (a job
        not completed has completion_time 0). Ordered by ``order_by``
        ((column, descending) pairs, columns of :data:`JOB_ORDER_COLUMNS`),
        by default creation_time descending, then job_id. ``offset``/
        ``limit`` must be >= 0 (``InvalidArgument``); the page and the
        total come from one snapshot.
        """

    @abc.abstractmethod
    async def get_job_configs(self, job_id: str) -> dict[int, bytes]:
        """Every stored config version of a job (version -> JobConfig bytes)."""

    @abc.abstractmethod
    async def jobs_changed(self, since: float) -> list[JobRow]:
        """Jobs written after ``since`` (their update_time), oldest first."""

    @abc.abstractmethod
    async def tasks_changed(self, job_id: str, since: float) -> list[TaskRow]:
        """A job's tasks written after ``since`` (their update_time)."""

    @abc.abstractmethod
    async def get_lockdown(self) -> list[str]:
        """The components an operator locked down (AdminService), sorted."""

    @abc.abstractmethod
    async def set_lockdown(self, components: Sequence[str]) -> None:
        """Make ``components`` the locked-down ones (not fenced: an
        operator's act, not a shard owner's)."""

    @abc.abstractmethod
    async def get_update(self, update_id: str) -> UpdateRow | None:
        """The update, or None."""

    @abc.abstractmethod
    async def list_updates(self, job_id: str, *, limit: int = 100) -> list[UpdateRow]:
        """Up to ``limit`` updates of a job, newest first."""

    @abc.abstractmethod
    async def get_task(self, job_id: str, instance_id: int) -> TaskRow | None:
        """The task, or None."""

    @abc.abstractmethod
    async def list_tasks(
        self,
        job_id: str,
        *,
        instance_from: int = 0,
        instance_to: int | None = None,
        states: Sequence[int] = (),
        names: Sequence[str] = (),
        hosts: Sequence[str] = (),
        offset: int = 0,
        limit: int | None = None,
    ) -> tuple[list[TaskRow], int]:
        """A job's tasks with ``instance_from <= instance_id < instance_to``
        (Peloton's ``InstanceRange``; ``None``: no upper bound), state, name
        and host each in the given set when one is given. Returns (the page
        ordered by instance_id, total matching); ``limit=None`` means all.
        """

    @abc.abstractmethod
    async def task_events(
        self, job_id: str, instance_id: int, *, limit: int = 100,
        runs: tuple[int, int] | None = None,
    ) -> list[TaskEventRow]:
        """Up to ``limit`` events of one instance, newest first (by timestamp,
        then by the order they were written); only those of runs
        ``runs[0] <= run_id <= runs[1]`` when given."""

    @abc.abstractmethod
    async def delete_task_events(
        self, shard: int, epoch: int, job_id: str, instance_id: int, *, up_to_run: int
    ) -> int:
        """Delete the events of one instance's runs ``run_id <= up_to_run`` in
        one fenced transaction; returns how many went. The job must belong
        to ``shard`` (``InvalidArgument``) and exist (``NotFound``)."""

    @abc.abstractmethod
    async def load_shard(
        self, shard: int, *, active_only: bool = True
    ) -> tuple[list[JobRow], list[TaskRow]]:
        """Every job of ``shard`` and all their tasks, from one snapshot.

        ``active_only`` skips jobs whose state is terminal (SUCCEEDED,
        FAILED, KILLED, DELETED; ``ACTIVE_EXCLUDED_JOB_STATES``). Jobs are
        ordered by job_id, tasks by (job_id, instance_id). Used when a
        jobmgr takes over a shard; meant for 100k tasks in one call.
        """

    @abc.abstractmethod
    async def stats(self) -> dict[str, int]:
        """Row counts: ``{"jobs": .., "tasks": .., "events": .., "shards": ..}``."""
