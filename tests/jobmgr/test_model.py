"""The stored forms of a task: its times as RFC 3339 text, its runtime."""

from __future__ import annotations

import dataclasses
import datetime

from hypothesis import example, given
from hypothesis import strategies as st

from peloton.api.v0.task import task_pb2
from peloton.core.states import TaskState
from peloton.jobmgr.model import Task, from_rfc3339, rfc3339

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
