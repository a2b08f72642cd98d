"""Core state numbers are the v0 API's: pinned to the generated protobuf enums."""

from __future__ import annotations

import pytest

from peloton.api.v0.job import job_pb2
from peloton.api.v0.task import task_pb2
from peloton.core.states import (
    ON_HOST_TASK_STATES,
    TERMINAL_JOB_STATES,
    TERMINAL_TASK_STATES,
    JobState,
    TaskState,
)


@pytest.mark.parametrize(("ours", "theirs"), [
    (TaskState, task_pb2.TaskState.DESCRIPTOR),
    (JobState, job_pb2.JobState.DESCRIPTOR),
])
def test_numbers_equal_the_protobuf_enums(ours: type, theirs: object) -> None:
    proto = {v.name: v.number for v in theirs.values}  # type: ignore[attr-defined]
    assert {s.name: int(s) for s in ours} == proto


def test_the_reference_numbering_holds() -> None:
    # reference/peloton.md §2.5; LAUNCHED=15 is out of order on purpose.
    assert (TaskState.LAUNCHED, TaskState.DELETED, TaskState.RESERVED) == (15, 16, 17)
    assert (JobState.KILLING, JobState.UNINITIALIZED, JobState.DELETED) == (7, 8, 9)


def test_state_sets() -> None:
    assert set(TERMINAL_TASK_STATES) == {TaskState.SUCCEEDED, TaskState.FAILED, TaskState.LOST,
                                         TaskState.KILLED, TaskState.DELETED}
    assert set(TERMINAL_JOB_STATES) == {JobState.SUCCEEDED, JobState.FAILED, JobState.KILLED,
                                        JobState.DELETED}
    assert not ON_HOST_TASK_STATES & TERMINAL_TASK_STATES
    assert TaskState.RUNNING in ON_HOST_TASK_STATES and TaskState.PLACED not in ON_HOST_TASK_STATES
    # Plain ints (as they come off the wire or out of msgpack) test as members.
    assert 9 in TERMINAL_TASK_STATES and 8 not in TERMINAL_TASK_STATES
