"""The stored forms of a task and a job: times as RFC 3339 text, runtimes."""

from __future__ import annotations

import dataclasses
import datetime

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from peloton.api.v0.job import job_pb2
from peloton.api.v0.task import task_pb2
from peloton.core.states import JobState, TaskState
from peloton.jobmgr.model import Job, Task, from_rfc3339, rfc3339, shared_task_config

JOB = "5b7c2a52-1d7e-4a3f-9a53-3f1d2e6c0b11"


@given(st.floats(min_value=1e-6, max_value=4e9, allow_nan=False))
@example(1795709835.0)  # a whole second: no fraction, as isoformat
@example(1795709835.9999996)  # rounds up into the next second
@example(1500000000.0000005)  # half a microsecond: rounded half to even
def test_rfc3339_is_datetimes_isoformat_in_utc(ts: float) -> None:
    expected = datetime.datetime.fromtimestamp(ts, datetime.UTC).isoformat()
    assert rfc3339(ts) == expected.replace("+00:00", "Z")
    assert abs(from_rfc3339(rfc3339(ts)) - ts) <= 1e-6 * max(1.0, ts / 1e9)


def test_no_time_is_empty_text() -> None:
    assert rfc3339(0.0) == "" and from_rfc3339("") == 0.0


def test_runtime_sets_what_the_task_has() -> None:
    """Fields left at their defaults stay unset; each set one is stored."""
    bare = Task(JOB, 3, "job-3").runtime()
    assert bare == task_pb2.RuntimeInfo(
        state=task_pb2.INITIALIZED, goalState=task_pb2.SUCCEEDED, configVersion=0,
        mesosTaskId={"value": f"{JOB}-3-1"})
    full = Task(JOB, 3, "job-3", run=2, state=TaskState.FAILED, goal=TaskState.RUNNING,
                host="h1", agent="a1", lease="l1", cluster="c1", ports={"http": 31000},
                message="boom", reason="REASON_COMMAND_EXECUTOR_FAILED", exit_code=3,
                failures=2, start_time=1795709835.25, completion_time=1795709840.5,
                restart=True, health=2, version=4, desired=5, held=True,
                volume_host="h1").runtime()
    assert (full.state, full.goalState, full.host, full.agentID.value, full.leaseId,
            full.cluster, dict(full.ports), full.message, full.reason, full.failureCount,
            full.startTime, full.completionTime, full.restartRequested, full.healthy,
            full.configVersion, full.desiredConfigVersion, full.workflowHold,
            full.desiredHost, full.prevMesosTaskId.value,
            full.terminationStatus.exit_code) == (
        task_pb2.FAILED, task_pb2.RUNNING, "h1", "a1", "l1", "c1", {"http": 31000}, "boom",
        "REASON_COMMAND_EXECUTOR_FAILED", 2, "2026-11-26T16:17:15.250000Z",
        "2026-11-26T16:17:20.500000Z", True, 2, 4, 5, True, "h1", f"{JOB}-3-1", 3)
    assert full.volumeID.value


def test_replaced_is_dataclasses_replace() -> None:
    task = Task(JOB, 3, "job-3", state=TaskState.RUNNING, host="h1", ports={"http": 1},
                start_time=5.0, version=2)
    copy = task.replaced(state=TaskState.SUCCEEDED, exit_code=0, completion_time=9.0)
    assert copy == dataclasses.replace(task, state=TaskState.SUCCEEDED, exit_code=0,
                                       completion_time=9.0)
    assert copy is not task and task.state == TaskState.RUNNING


_times = st.one_of(st.just(0.0), st.floats(min_value=1e-6, max_value=4e9, allow_nan=False))


@given(state=st.sampled_from(JobState), goal=st.sampled_from(JobState), created=_times,
       started=_times, completed=_times, config_version=st.integers(0, 2**40),
       workflow=st.integers(0, 2**40), desired=st.integers(0, 2**40),
       update_id=st.text(max_size=40),
       tasks=st.lists(st.tuples(st.sampled_from(TaskState), st.integers(0, 300)), max_size=40))
@example(state=JobState.RUNNING, goal=JobState.SUCCEEDED, created=1795709835.25,
         started=0.0, completed=0.0, config_version=1, workflow=0, desired=0, update_id="",
         tasks=[(TaskState.RUNNING, 1)])
def test_a_jobs_runtime_bytes_are_the_messages_deterministic_serialisation(
        state: JobState, goal: JobState, created: float, started: float, completed: float,
        config_version: int, workflow: int, desired: int, update_id: str,
        tasks: list[tuple[TaskState, int]]) -> None:
    """The stored job runtime, written directly (``runtime_bytes``), is byte
    for byte what protobuf writes for ``runtime()``: map entries included,
    in upb's deterministic order."""
    job = Job(JOB, 0, job_pb2.JobConfig(instanceCount=len(tasks)), state=state, goal=goal,
              creation_time=created, start_time=started, completion_time=completed,
              config_version=config_version, update_id=update_id,
              desired_state_version=desired, workflow_version=workflow)
    job.tasks = [Task(JOB, i, f"job-{i}", state=s, version=v)
                 for i, (s, v) in enumerate(tasks)]
    stored = job.runtime_bytes()
    assert job_pb2.RuntimeInfo.FromString(stored) == job.runtime()
    assert stored == job.runtime().SerializeToString(deterministic=True)


def test_a_jobs_runtime_bytes_follow_its_times_when_they_change() -> None:
    """The times' bytes kept from one row to the next are written again
    when the job starts, or its times are set anew (a recovered job)."""
    job = Job.new(JOB, 0, job_pb2.JobConfig(instanceCount=1), 1795709835.25)
    for change in ({}, {"start_time": 1795709836.5}, {"start_time": 1795709836.5},
                   {"completion_time": 1795709846.0}, {"creation_time": 1795709800.0},
                   {"start_time": 0.0}):
        for name, value in change.items():
            setattr(job, name, value)
        assert job.runtime_bytes() == job.runtime().SerializeToString(deterministic=True)
        assert job.row(1.0).runtime == job.runtime_bytes()


def test_a_jobs_row_follows_its_config_when_it_changes() -> None:
    """The row's labels and config bytes are kept from one row to the next,
    and taken again when the job takes a new config version."""
    config = job_pb2.JobConfig(name="a", instanceCount=1, labels=[{"key": "k", "value": "1"}])
    job = Job.new(JOB, 0, config, 5.0)
    first = job.row(6.0)
    assert (first.labels, first.config) == ([("k", "1")], config.SerializeToString())
    second = job_pb2.JobConfig(name="a", instanceCount=1, labels=[{"key": "k", "value": "2"}])
    job.set_config(second, 2)
    row = job.row(7.0)
    assert (row.labels, row.config, row.config_version) == (
        [("k", "2")], second.SerializeToString(deterministic=True), 2)


def test_a_negative_version_is_refused_not_written() -> None:
    """As protobuf refuses a negative value for an unsigned field."""
    job = Job.new(JOB, 0, job_pb2.JobConfig(instanceCount=1), 5.0)
    job.workflow_version = -1
    with pytest.raises(ValueError):
        job.runtime_bytes()


def test_jobs_of_equal_task_configs_share_one() -> None:
    """Jobs made from one spec share their task config (a launch batch
    carries it once); configs that differ do not."""
    def spec(command: str) -> job_pb2.JobConfig:
        return job_pb2.JobConfig(name="j", instanceCount=2, defaultConfig=task_pb2.TaskConfig(
            command={"value": command}))

    a, b = (Job.new(f"job-{k}", 0, spec("true"), 1.0) for k in "ab")
    assert a.task_config(0) is b.task_config(0) is b.task_config(1)
    other = spec("false")
    other.instanceConfig[1].command.value = "true"
    c = Job.new("job-c", 0, other, 1.0)
    assert c.task_config(0) is not a.task_config(0)
    assert c.task_config(0).command.value == "false"
    # The override makes instance 1's merged config equal to the others'.
    assert c.task_config(1) is a.task_config(0)
    fresh = task_pb2.TaskConfig(command={"value": "echo"})
    assert shared_task_config(fresh) is fresh
    assert shared_task_config(task_pb2.TaskConfig(
        command={"value": "echo"})) is fresh
