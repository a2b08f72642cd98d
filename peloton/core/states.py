"""Task and job states, numbered as Peloton's v0 API numbers them.

``tests/core/test_states.py`` pins these numbers to the generated protobuf
enums, so core code can use them without importing the API layer.
"""

from __future__ import annotations

import enum


class TaskState(enum.IntEnum):
    UNKNOWN = 0
    INITIALIZED = 1
    PENDING = 2
    READY = 3
    PLACING = 4
    PLACED = 5
    LAUNCHING = 6
    STARTING = 7
    RUNNING = 8
    SUCCEEDED = 9
    FAILED = 10
    LOST = 11
    PREEMPTING = 12
    KILLING = 13
    KILLED = 14
    LAUNCHED = 15
    DELETED = 16
    RESERVED = 17


class JobState(enum.IntEnum):
    UNKNOWN = 0
    INITIALIZED = 1
    PENDING = 2
    RUNNING = 3
    SUCCEEDED = 4
    FAILED = 5
    KILLED = 6
    KILLING = 7
    UNINITIALIZED = 8
    DELETED = 9


TERMINAL_TASK_STATES = frozenset(
    {TaskState.SUCCEEDED, TaskState.FAILED, TaskState.LOST, TaskState.KILLED, TaskState.DELETED}
)
TERMINAL_JOB_STATES = frozenset(
    {JobState.SUCCEEDED, JobState.FAILED, JobState.KILLED, JobState.DELETED}
)
# States in which a run exists on a host (or may: LAUNCHING is unknown).
ON_HOST_TASK_STATES = frozenset(
    {TaskState.LAUNCHING, TaskState.LAUNCHED, TaskState.STARTING, TaskState.RUNNING,
     TaskState.KILLING, TaskState.PREEMPTING}
)
