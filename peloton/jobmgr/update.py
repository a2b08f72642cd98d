"""Updates of a service job: a new config version rolled out in batches.

An update is Peloton's workflow (``../shared/reference/peloton.md`` §7.5):
the job's config becomes a new version at once, and its instances move to
it in batches of ``batchSize`` (0: all at once), each by a restart that
keeps within ``sla.maximumUnavailableInstances`` (the rolling restart's
marks). An instance whose config is the same in both versions only takes
the new number, and so does one its user stopped (it stays stopped). An
instance is **done** when its run uses the new version, is RUNNING, and is
HEALTHY where it has a health check (or is stopped); it has **failed**
when runs of the new version ended FAILED or LOST ``maxInstanceAttempts``
times (0: never). When ``maxFailureInstances`` instances (0: any number)
have failed, or every instance is done or failed with some failed, the
update rolls back (``rollbackOnFailure``: the old content, as a newer
version, rolled out the same way; ROLLED_BACK when it is out) or ends
FAILED. PAUSED keeps where it was; ABORTED stops taking instances.

Instances an update adds (and every instance of a job created in batches,
v1alpha ``CreateJob`` with a ``create_spec``) wait INITIALIZED, ``held``,
until their batch starts their first run; when the workflow ends any still
held start, and a new owner that finds held instances with no workflow
running starts them, so none waits for ever.

A rolling restart (v1alpha ``RestartJob``) is the same workflow over a new
version with the same content: the instances it names restart in batches,
the others only take the new number.

:func:`step` is pure: it reads a job and an update and says which
instances move now and what the update becomes. The engine
(``ShardEngine.run_updates``) carries it out and writes the record, so a new
owner continues where the old one was.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format

from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.task import task_pb2
from peloton.api.v0.update import update_pb2
from peloton.core.states import TERMINAL_TASK_STATES, TaskState
from peloton.jobmgr.model import Job, Task
from peloton.storage.gateway import UpdateRow

__all__ = ["ACTIVE", "Step", "Update", "step"]

S = update_pb2.State
ACTIVE = frozenset({S.INITIALIZED, S.ROLLING_FORWARD, S.PAUSED, S.ROLLING_BACKWARD})
TERMINAL = frozenset({S.SUCCEEDED, S.ABORTED, S.FAILED, S.ROLLED_BACK})
# Runs that have not started: an update waits for them rather than kill a
# launch in flight (they start with the version they were given).
NOT_STARTED = frozenset({TaskState.INITIALIZED, TaskState.PENDING, TaskState.READY,
                         TaskState.PLACING, TaskState.PLACED, TaskState.LAUNCHING})
_SERVES = frozenset({task_pb2.INVALID, task_pb2.DISABLED, task_pb2.HEALTHY})


@dataclass
class Update:
    id: str
    job_id: str
    state: int
    config: update_pb2.UpdateConfig
    from_version: int
    to_version: int
    create_time: float
    update_time: float
    prior: int = 0  # the state a pause left
    done: set[int] = field(default_factory=set)
    failed: set[int] = field(default_factory=set)
    attempts: dict[int, int] = field(default_factory=dict)
    counted: dict[int, int] = field(default_factory=dict)  # instance -> last run counted
    opaque: str = ""
    rolling_back: bool = False
    # A rolling restart (v1alpha RestartJob): these instances restart even
    # though their config is the same; the others only take the new number.
    restart: frozenset[int] | None = None
    # The workflow's events, oldest first: (update.State, time) each time
    # its state changed, and per instance when it was taken and when it
    # was done or failed (v1alpha GetWorkflowEvents).
    events: list[tuple[int, float]] = field(default_factory=list)
    instance_events: dict[int, list[tuple[int, float]]] = field(default_factory=dict)

    def note(self, now: float, instances: Iterable[int] = (), state: int | None = None
             ) -> None:
        """Record the workflow's state if it changed, and an event of
        ``state`` (default: the workflow's) for each of ``instances``."""
        if not self.events or self.events[-1][0] != self.state:
            self.events.append((self.state, now))
        for i in instances:
            self.instance_events.setdefault(i, []).append(
                (self.state if state is None else state, now))

    @property
    def active(self) -> bool:
        return self.state in ACTIVE

    def row(self) -> UpdateRow:
        record: dict[str, Any] = {
            "config": json_format.MessageToDict(self.config), "from": self.from_version,
            "to": self.to_version, "prior": self.prior, "done": sorted(self.done),
            "failed": sorted(self.failed),
            "attempts": {str(k): v for k, v in self.attempts.items()},
            "counted": {str(k): v for k, v in self.counted.items()}, "opaque": self.opaque,
            "rolling_back": self.rolling_back}
        if self.restart is not None:
            record["restart"] = sorted(self.restart)
        self.note(self.update_time)
        record["events"] = self.events
        record["instance_events"] = {str(k): v for k, v in self.instance_events.items()}
        return UpdateRow(self.id, self.job_id, self.state, self.create_time, self.update_time,
                         json.dumps(record, sort_keys=True))

    @classmethod
    def from_row(cls, row: UpdateRow) -> Update:
        r: dict[str, Any] = json.loads(row.record)
        return cls(row.update_id, row.job_id, row.state,
                   json_format.ParseDict(r["config"], update_pb2.UpdateConfig()), r["from"],
                   r["to"], row.create_time, row.update_time, r["prior"], set(r["done"]),
                   set(r["failed"]), {int(k): v for k, v in r["attempts"].items()},
                   {int(k): v for k, v in r["counted"].items()}, r["opaque"],
                   r["rolling_back"],
                   frozenset(r["restart"]) if "restart" in r else None,
                   [tuple(e) for e in r.get("events", [])],  # type: ignore[misc]
                   {int(k): [tuple(e) for e in v]  # type: ignore[misc]
                    for k, v in r.get("instance_events", {}).items()})

    def info(self, instances: int, *, status_only: bool = False) -> update_pb2.UpdateInfo:
        info = update_pb2.UpdateInfo(
            updateId=peloton_pb2.UpdateID(value=self.id), jobId=peloton_pb2.JobID(
                value=self.job_id), configVersion=self.to_version,
            prevConfigVersion=self.from_version, status=update_pb2.UpdateStatus(
                numTasksDone=len(self.done), numTasksFailed=len(self.failed),
                numTasksRemaining=max(0, instances - len(self.done) - len(self.failed)),
                state=self.state))  # type: ignore[arg-type]
        if self.opaque:
            info.opaque_data.data = self.opaque
        if not status_only:
            info.config.CopyFrom(self.config)
        return info


@dataclass
class Step:
    """What one look at an update decides."""

    take: list[Task] = field(default_factory=list)  # restart into the new version
    start: list[Task] = field(default_factory=list)  # held (added) instances to start
    remove: list[Task] = field(default_factory=list)  # instances the new version drops: stop
    drop: bool = False  # every dropped instance has ended: delete them
    relabel: list[Task] = field(default_factory=list)  # same config: the new number only
    state: int | None = None  # the update's new state, if it changes
    rollback: bool = False  # roll the old content out as a new version
    changed: bool = False  # the record changed (done, failed, attempts)
    done: list[int] = field(default_factory=list)  # instances done by this look
    failed: list[int] = field(default_factory=list)  # instances failed by this look


def batch_size(config: update_pb2.UpdateConfig, instances: int) -> int:
    """How many instances may be moving at once (0 in the config: all)."""
    if config.batchSize:
        return config.batchSize
    if config.batchPercentage:
        return max(1, math.ceil(instances * config.batchPercentage / 100))
    return max(1, instances)


def available(task: Task) -> bool:
    return task.state == TaskState.RUNNING and task.health in _SERVES


def stopped(task: Task) -> bool:
    """Stopped by its user: an update leaves it stopped."""
    return task.goal == TaskState.KILLED and task.state in TERMINAL_TASK_STATES


def step(job: Job, update: Update) -> Step:
    """The next moves of an active, unpaused update of ``job`` (pure; the
    record's done, failed and attempts are brought up to date in place)."""
    out = Step()
    target = update.to_version
    count = job.config_at(target).instanceCount
    moving = 0
    candidates: list[Task] = []
    removing: list[Task] = []
    for t in job.tasks:
        i = t.instance
        if i >= count:  # the new version has no such instance: it goes
            if t.terminal or t.held:
                continue
            if t.goal == TaskState.KILLED:
                moving += 1  # being stopped
            else:
                removing.append(t)
            continue
        if i in update.done or i in update.failed:
            continue
        if t.held:
            candidates.append(t)
            continue
        if t.desired != target:
            candidates.append(t)
            continue
        if t.version == target and (available(t) or stopped(t)):
            update.done.add(i)
            out.done.append(i)
            out.changed = True
            continue
        if (t.version == target and t.state in (TaskState.FAILED, TaskState.LOST)
                and update.counted.get(i) != t.run):
            update.counted[i] = t.run
            update.attempts[i] = update.attempts.get(i, 0) + 1
            out.changed = True
            limit = update.config.maxInstanceAttempts
            if limit and update.attempts[i] >= limit:
                update.failed.add(i)
                out.failed.append(i)
                continue
        moving += 1
    # Instances not serving go first (Peloton: unavailable, killed, then
    # available), then by instance.
    candidates.sort(key=lambda t: (available(t), t.instance))
    room = batch_size(update.config, len(job.tasks)) - moving
    for t in sorted(removing, key=lambda t: t.instance):
        if room > 0:
            out.remove.append(t)
            room -= 1
    for t in candidates:
        if t.held:  # an added instance: its first run starts in its batch
            if room > 0:
                out.start.append(t)
                room -= 1
            continue
        if t.state in NOT_STARTED:
            continue  # a run about to start: taken once it runs (or ends)
        restarting = update.restart is not None and t.instance in update.restart
        if stopped(t) or (not restarting
                          and job.run_config(t) == job.task_config(t.instance, target)):
            # The same config, or stopped by its user: the new number only (a
            # stopped instance stays stopped; startTasks is not supported).
            out.relabel.append(t)
        elif room > 0:
            out.take.append(t)
            room -= 1
    limit = update.config.maxFailureInstances
    extra = job.tasks[count:]
    gone = all(t.terminal or t.held for t in extra)
    out.drop = bool(extra) and gone
    settled = len(update.done) + len(update.failed) + len(out.relabel)
    if update.failed and ((limit and len(update.failed) >= limit)
                          or settled >= count):
        if update.config.rollbackOnFailure and not update.rolling_back:
            out.rollback = True
        else:
            out.state = S.FAILED
    elif settled >= count and gone and not (out.take or out.start or out.remove):
        out.state = S.ROLLED_BACK if update.rolling_back else S.SUCCEEDED
    return out
