"""A jobmgr shard owner's in-memory jobs and tasks, and their stored form.

The cache mirrors what is stored: every change is written (in a batch)
before it is acted on or acknowledged, so a new owner that loads the shard
from storage resumes from the same facts.
"""

from __future__ import annotations

import datetime
import functools
import math
from collections import Counter, _count_elements  # type: ignore[attr-defined]
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any

from peloton.api.v0.job import job_pb2
from peloton.api.v0.task import task_pb2
from peloton.core.ids import mesos_task_id, volume_id
from peloton.core.states import TERMINAL_JOB_STATES, TERMINAL_TASK_STATES, JobState, TaskState
from peloton.jobmgr.goalstate import derive_job_state
from peloton.jobmgr.reconciler import initial_health
from peloton.spec.job import merged_task_config, runs_until_stopped, task_name
from peloton.storage.gateway import JobRow, Storage, TaskEventRow, TaskRow


def rfc3339(ts: float) -> str:
    """``ts`` as datetime's isoformat in UTC, with Z (microseconds, or none
    when 0), in half its time: a jobmgr writes one for each task's
    start in every row after it, and the tasks of a batch start within a
    few seconds of each other, so the seconds' text is kept."""
    if not ts:
        return ""
    frac, whole = math.modf(ts)  # rounded as datetime.fromtimestamp rounds
    us = round(frac * 1e6)
    if us >= 1_000_000:
        whole, us = whole + 1, us - 1_000_000
    elif us < 0:
        whole, us = whole - 1, us + 1_000_000
    second = _second(int(whole))
    return f"{second}.{us:06d}Z" if us else f"{second}Z"


@functools.lru_cache(maxsize=256)
def _second(whole: int) -> str:
    return datetime.datetime.fromtimestamp(whole, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S")


def from_rfc3339(value: str) -> float:
    if not value:
        return 0.0
    return datetime.datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


@dataclass(slots=True)
class Task:
    job_id: str
    instance: int
    name: str
    run: int = 1
    state: TaskState = TaskState.INITIALIZED
    goal: TaskState = TaskState.SUCCEEDED
    host: str = ""
    agent: str = ""
    lease: str = ""
    cluster: str = ""
    ports: dict[str, int] = field(default_factory=dict)
    message: str = ""
    reason: str = ""
    exit_code: int = 0
    failures: int = 0
    start_time: float = 0.0
    completion_time: float = 0.0
    restart: bool = False
    # This run was preempted (resmgr took its resources back): it is
    # PREEMPTING, or ended so, and its termination reason says so.
    preempted: bool = False
    # task_pb2.HealthState of this run (DISABLED without a health check).
    health: int = 0
    # The job config version this run uses (0: the job's current one, for a
    # task written before versions were kept), and the one its next run
    # will use: an update moves ``desired`` to its version, then restarts it.
    version: int = 0
    desired: int = 0
    # Added by a workflow (a create in batches, an update that adds
    # instances): INITIALIZED until the workflow takes it in a batch.
    held: bool = False
    # A stateful task (with a persistent volume): the host its volume is on,
    # set when its first run is placed; every later run goes there.
    volume_host: str = ""

    @property
    def mesos_task_id(self) -> str:
        return mesos_task_id(self.job_id, self.instance, self.run)

    @property
    def terminal(self) -> bool:
        return self.state in TERMINAL_TASK_STATES

    def runtime(self) -> task_pb2.RuntimeInfo:
        # TaskState's numbers are the proto's; fields mostly left empty are
        # set only when not (a keyword argument costs its conversion).
        rt = task_pb2.RuntimeInfo(
            state=self.state, goalState=self.goal,  # type: ignore[arg-type]
            host=self.host, startTime=rfc3339(self.start_time), leaseId=self.lease,
            cluster=self.cluster, healthy=self.health,  # type: ignore[arg-type]
        )
        if self.message:
            rt.message = self.message
        if self.reason:
            rt.reason = self.reason
        if self.failures:
            rt.failureCount = self.failures
        if self.completion_time:
            rt.completionTime = rfc3339(self.completion_time)
        if self.restart:
            rt.restartRequested = True
        if self.held:
            rt.workflowHold = True
        rt.mesosTaskId.value = self.mesos_task_id
        rt.configVersion, rt.desiredConfigVersion = self.version, self.desired or self.version
        if self.agent:
            rt.agentID.value = self.agent
        if self.volume_host:
            rt.desiredHost = self.volume_host
            rt.volumeID.value = volume_id(self.job_id, self.instance)
        if self.ports:
            rt.ports.update(self.ports)
        if self.run > 1:
            rt.prevMesosTaskId.value = mesos_task_id(self.job_id, self.instance, self.run - 1)
        if self.terminal and self.state != TaskState.SUCCEEDED:
            # A run ended by signal N reports exit code -N (the backends'
            # convention); Peloton keeps the signal apart.
            if self.exit_code >= 0:
                rt.terminationStatus.exit_code = self.exit_code
            else:
                rt.terminationStatus.signal = str(-self.exit_code)
            rt.terminationStatus.reason = (
                task_pb2.TerminationStatus.TERMINATION_STATUS_REASON_PREEMPTED_RESOURCES
                if self.preempted
                else task_pb2.TerminationStatus.TERMINATION_STATUS_REASON_DEADLINE_TIMEOUT_EXCEEDED
                if self.reason == "DEADLINE_TIMEOUT_EXCEEDED"
                else task_pb2.TerminationStatus.TERMINATION_STATUS_REASON_KILLED_ON_REQUEST
                if self.state == TaskState.KILLED
                else task_pb2.TerminationStatus.TERMINATION_STATUS_REASON_FAILED)
        return rt

    def replaced(self, **changes: Any) -> Task:
        """A copy with ``changes``: dataclasses.replace in a fifth of its
        time (a jobmgr copies each run that ends)."""
        new = Task(*_task_fields(self))
        for name, value in changes.items():
            setattr(new, name, value)
        return new

    def row(self, now: float) -> TaskRow:
        return TaskRow(self.job_id, self.instance, self.run, int(self.state), int(self.goal),
                       self.host, self.name, now, self.runtime().SerializeToString())

    def event(self, now: float) -> TaskEventRow:
        return TaskEventRow(self.job_id, self.instance, self.run, int(self.state), now,
                            self.host, self.message)

    @classmethod
    def from_row(cls, row: TaskRow) -> Task:
        rt = task_pb2.RuntimeInfo.FromString(row.runtime)
        return cls(row.job_id, row.instance_id, row.name, row.run_id, TaskState(row.state),
                   TaskState(row.goal_state), rt.host, rt.agentID.value, rt.leaseId, rt.cluster,
                   dict(rt.ports), rt.message, rt.reason,
                   (-int(rt.terminationStatus.signal) if rt.terminationStatus.signal
                    else rt.terminationStatus.exit_code),
                   rt.failureCount, from_rfc3339(rt.startTime), from_rfc3339(rt.completionTime),
                   rt.restartRequested,
                   row.state == TaskState.PREEMPTING or rt.terminationStatus.reason
                   == task_pb2.TerminationStatus.TERMINATION_STATUS_REASON_PREEMPTED_RESOURCES,
                   int(rt.healthy), rt.configVersion, rt.desiredConfigVersion, rt.workflowHold,
                   rt.desiredHost)


# Task configs that jobs share, by their bytes (all are dropped when more
# come). A stream of jobs made from one spec (a pipeline's, the single-task
# load's) has one config: a launch batch carries it once, and the host
# manager converts it once, not once a job.
SHARED_CONFIGS = 4096
_shared_configs: dict[bytes, task_pb2.TaskConfig] = {}


def shared_task_config(cfg: task_pb2.TaskConfig) -> task_pb2.TaskConfig:
    """The config equal to ``cfg`` that jobs share (``cfg`` itself if none
    is yet); like ``Job.task_config``'s, it must not be modified."""
    key = cfg.SerializeToString(deterministic=True)
    found = _shared_configs.get(key)
    if found is None:
        if len(_shared_configs) >= SHARED_CONFIGS:
            _shared_configs.clear()
        found = _shared_configs[key] = cfg
    return found


_state_of = attrgetter("state")
_VARINT_1 = [bytes((n,)) for n in range(0x80)]


def varint(n: int) -> bytes:
    """``n`` (>= 0) as a protobuf varint."""
    if 0 <= n < 0x80:
        return _VARINT_1[n]
    if n < 0:  # every field written so is unsigned (protobuf refuses it too)
        raise ValueError(f"{n} is not an unsigned varint")
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def length_delimited(tag: bytes, data: bytes) -> bytes:
    """A length-delimited field (a string, a message, a map entry)."""
    return tag + varint(len(data)) + data


def _time_field(tag: bytes, ts: float) -> bytes:
    return length_delimited(tag, rfc3339(ts).encode())


# upb's deterministic order of a map's string keys: bytewise, except that a
# key that begins a longer one comes after it (its sort reverses the bytes'
# comparison, not the lengths', and it encodes back to front). No state's
# name begins another's, so this is the names' plain order.
_STATS_ORDER = {int(state): rank for rank, state in enumerate(
    sorted(TaskState, key=lambda s: s.name + "\U0010ffff"))}


@functools.lru_cache(maxsize=4096)
def _stats_entry(state: int, n: int) -> bytes:
    """A job runtime's ``taskStats`` entry (field 5): ``n`` tasks in ``state``."""
    return length_delimited(b"\x2a", length_delimited(b"\x0a", TaskState(state).name.encode())
                  + b"\x10" + varint(n))


@functools.lru_cache(maxsize=1024)
def _version_entry(version: int, n: int) -> bytes:
    """A job runtime's ``taskConfigVersionStats`` entry (field 15)."""
    return length_delimited(b"\x7a", b"\x08" + varint(version) + b"\x10" + varint(n))


def _tally(items: Iterable[int]) -> Counter[int]:
    """``Counter(items)`` without Counter's own update, which asks an ABC
    first whether ``items`` is a Mapping: for a job of one task, most of
    the call (a job is tallied at each of its tasks' changes)."""
    counts: Counter[int] = Counter()
    _count_elements(counts, items)
    return counts


_task_fields = attrgetter(*(f.name for f in fields(Task)))


@dataclass(slots=True)
class Job:
    id: str
    shard: int
    config: job_pb2.JobConfig
    state: JobState = JobState.INITIALIZED
    goal: JobState = JobState.SUCCEEDED
    creation_time: float = 0.0
    start_time: float = 0.0
    completion_time: float = 0.0
    config_version: int = 1
    tasks: list[Task] = field(default_factory=list)
    # The job's latest update (peloton.jobmgr.update), running or ended.
    update_id: str = ""
    # With config_version, the job's v1alpha EntityVersion: bumped when its
    # goal changes (start, stop) and when a workflow begins or is paused,
    # resumed or aborted, so a client's write of a stale view is refused.
    desired_state_version: int = 0
    workflow_version: int = 0
    # Earlier config versions that runs or an update still refer to; the
    # current one is ``config`` at ``config_version``.
    versions: dict[int, job_pb2.JobConfig] = field(default_factory=dict, repr=False)
    _configs: dict[tuple[int, int], task_pb2.TaskConfig] = field(default_factory=dict,
                                                                 repr=False)
    # What the last row took from the config (the config, its name, owner,
    # pool, instance count, labels as pairs and bytes): a config is not
    # changed in place (a new version is a new message), and reading a
    # message's fields costs more than a tuple's.
    _stored_config: tuple[job_pb2.JobConfig, str, str, str, int, list[tuple[str, str]],
                          bytes] | None = field(default=None, repr=False, compare=False)
    # The creation and start times of the last runtime written, and their
    # fields' bytes: they rarely change, and each was ~0.8 us to write.
    _times: tuple[float, float, bytes] = field(default=(0.0, 0.0, b""), repr=False,
                                               compare=False)

    @property
    def respool_id(self) -> str:
        return self.config.respoolID.value

    @property
    def terminal(self) -> bool:
        return self.state in TERMINAL_JOB_STATES

    def config_at(self, version: int) -> job_pb2.JobConfig:
        """The job's config of ``version`` (0 or the current: ``config``)."""
        if not version or version == self.config_version:
            return self.config
        return self.versions[version]

    def task_config(self, instance: int, version: int = 0) -> task_pb2.TaskConfig:
        """The merged config of ``instance`` in config ``version`` (0: the
        current); shared, so callers must not modify it.

        Instances without an override share one merged default (a 10,000-task
        job builds one message, not 10,000), and jobs share equal ones
        (``shared_task_config``).
        """
        version = version or self.config_version
        config = self.config_at(version)
        key = (version, instance if instance in config.instanceConfig else -1)
        cached = self._configs.get(key)
        if cached is None:
            cached = self._configs[key] = shared_task_config(merged_task_config(config, instance))
        return cached

    def run_config(self, task: Task) -> task_pb2.TaskConfig:
        """The config ``task``'s current run was launched with."""
        return self.task_config(task.instance, task.version)

    def set_config(self, config: job_pb2.JobConfig, version: int) -> None:
        """Make ``config`` the current one at ``version``, keeping the one it
        replaces for the runs (and an update) that still refer to it."""
        self.versions[self.config_version] = self.config
        self.config, self.config_version = config, version
        self.versions.pop(version, None)

    def controller(self) -> Task | None:
        if self.tasks and self.task_config(0).controller:
            return self.tasks[0]
        return None

    def counts(self) -> Mapping[int, int]:
        """Its tasks by state (one task's without a Counter: 0.7 us less at
        each of a one-task job's changes)."""
        tasks = self.tasks
        if len(tasks) == 1:
            return {tasks[0].state: 1}
        return _tally(map(_state_of, tasks))

    def refresh_state(self, now: float) -> bool:
        """Re-derive the job state; True if it changed."""
        controller = self.controller()
        state = derive_job_state(self.counts(), self.config.instanceCount, self.state,
                                 controller_state=controller.state if controller else None,
                                 service_goal=(self.goal if runs_until_stopped(self.config)
                                               else None))
        if state == self.state:
            return False
        if state == JobState.RUNNING and not self.start_time:
            self.start_time = now
        if state in TERMINAL_JOB_STATES:
            self.completion_time = now
        else:
            self.completion_time = 0.0
        self.state = state
        return True

    def runtime(self) -> job_pb2.RuntimeInfo:
        rt = job_pb2.RuntimeInfo(
            state=self.state.name, goalState=self.goal.name, creationTime=rfc3339(self.creation_time),
            startTime=rfc3339(self.start_time), completionTime=rfc3339(self.completion_time),
            configurationVersion=self.config_version,
            desiredStateVersion=self.desired_state_version,
            workflowVersion=self.workflow_version)
        if self.update_id:
            rt.updateID.value = self.update_id
        for state, n in self.counts().items():
            rt.taskStats[TaskState(state).name] = n
        for version, n in _tally(t.version or self.config_version for t in self.tasks).items():
            rt.taskConfigVersionStats[version] = n
        return rt

    def runtime_bytes(self) -> bytes:
        """``runtime().SerializeToString(deterministic=True)``, the same
        bytes, written directly: a job row is written at each of the job's
        changes (3-4 times for a job of one task), and building the message
        to serialise it was most of the row's cost."""
        out = b"\x08" + varint(self.state) if self.state else b""
        created, started, times = self._times
        if created != self.creation_time or started != self.start_time:
            created, started = self.creation_time, self.start_time
            times = ((_time_field(b"\x12", created) if created else b"")
                     + (_time_field(b"\x1a", started) if started else b""))
            self._times = (created, started, times)
        out += times
        if self.completion_time:
            out += _time_field(b"\x22", self.completion_time)
        tasks = self.tasks
        if len(tasks) == 1:
            out += _stats_entry(tasks[0].state, 1)
        else:
            counts = self.counts()
            for state in sorted(counts, key=_STATS_ORDER.__getitem__):
                out += _stats_entry(state, counts[state])
        if self.goal:
            out += b"\x38" + varint(self.goal)
        if self.config_version:
            out += b"\x40" + varint(self.config_version)
        if self.update_id:
            out += length_delimited(b"\x52", length_delimited(b"\x0a", self.update_id.encode()))
        if self.workflow_version:
            out += b"\x60" + varint(self.workflow_version)
        if self.desired_state_version:
            out += b"\x70" + varint(self.desired_state_version)
        if len(tasks) == 1:
            out += _version_entry(tasks[0].version or self.config_version, 1)
        else:
            for version, n in sorted(  # upb's order of integer keys: descending
                    _tally(t.version or self.config_version for t in tasks).items(),
                    reverse=True):
                out += _version_entry(version, n)
        return out

    def row(self, now: float) -> JobRow:
        c = self.config
        stored = self._stored_config
        if stored is None or stored[0] is not c:
            stored = self._stored_config = (
                c, c.name, c.owner or c.owningTeam, c.respoolID.value, c.instanceCount,
                [(label.key, label.value) for label in c.labels],
                c.SerializeToString(deterministic=True))
        _, name, owner, pool, instances, labels, data = stored
        return JobRow(self.id, self.shard, name, owner, pool, int(self.state), int(self.goal),
                      instances, labels, self.creation_time, now, self.completion_time,
                      self.config_version, data, self.runtime_bytes())

    @classmethod
    def from_rows(cls, row: JobRow, tasks: list[TaskRow]) -> Job:
        rt = job_pb2.RuntimeInfo.FromString(row.runtime)
        job = cls(row.job_id, row.shard, job_pb2.JobConfig.FromString(row.config),
                  JobState(row.state), JobState(row.goal_state), row.creation_time,
                  from_rfc3339(rt.startTime), row.completion_time, row.config_version)
        job.tasks = sorted((Task.from_row(t) for t in tasks), key=lambda t: t.instance)
        job.update_id = rt.updateID.value
        job.desired_state_version, job.workflow_version = (rt.desiredStateVersion,
                                                           rt.workflowVersion)
        for t in job.tasks:  # written before versions were kept: the current one
            t.version = t.version or job.config_version
            t.desired = t.desired or t.version
        return job

    def old_versions(self) -> set[int]:
        """The versions its tasks refer to besides the current one."""
        return {v for t in self.tasks for v in (t.version, t.desired)} - {self.config_version}


    @classmethod
    def new(cls, job_id: str, shard: int, config: job_pb2.JobConfig, now: float) -> Job:
        """A new job: a service's goal is to run (RUNNING), a batch job's to
        finish (SUCCEEDED), and its tasks' likewise."""
        service = runs_until_stopped(config)
        job = cls(job_id, shard, config, creation_time=now,
                  goal=JobState.RUNNING if service else JobState.SUCCEEDED)
        goal = TaskState.RUNNING if service else TaskState.SUCCEEDED
        job.tasks = [Task(job_id, i, task_name(config, i), goal=goal,
                          health=initial_health(job.task_config(i)), version=1, desired=1)
                     for i in range(config.instanceCount)]
        return job


async def load_versions(job: Job, storage: Storage, extra: Iterable[int] = ()) -> Job:
    """Read the earlier config versions ``job``'s runs (and ``extra``) refer to."""
    wanted = (job.old_versions() | set(extra)) - {job.config_version} - job.versions.keys()
    if wanted:
        stored = await storage.get_job_configs(job.id)
        for version in wanted:
            if version in stored:
                job.versions[version] = job_pb2.JobConfig.FromString(stored[version])
            else:  # never written (cannot happen since schema 3): the current one
                for t in job.tasks:
                    t.version = job.config_version if t.version == version else t.version
                    t.desired = job.config_version if t.desired == version else t.desired
    return job
