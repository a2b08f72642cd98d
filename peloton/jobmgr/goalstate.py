"""Goal-state rules for batch jobs: pure functions over plain data.

``derive_job_state`` is Peloton's runtime updater (reference/peloton.md
§2.6); ``on_task_exit`` decides what a task's end means for it (done,
retried under ``restartPolicy.maxFailures``, or failed for good).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from peloton.core.states import JobState, TaskState

# What one run's terminal state means for the task when its goal is to succeed.
RETRYABLE = frozenset({TaskState.FAILED, TaskState.LOST})


def derive_job_state(counts: Mapping[int, int], instance_count: int, current: JobState,
                     *, controller_state: TaskState | None = None) -> JobState:
    """The job state from its tasks' state counts (Peloton's order of rules).

    ``controller_state`` is the state of instance 0 when it is a controller
    task: once it is terminal, the job ends as it ended.
    """
    if controller_state in (TaskState.SUCCEEDED, TaskState.FAILED, TaskState.LOST,
                            TaskState.KILLED):
        return {TaskState.SUCCEEDED: JobState.SUCCEEDED, TaskState.KILLED: JobState.KILLED}.get(
            controller_state, JobState.FAILED)
    c = Counter({TaskState(k): v for k, v in counts.items()})
    total = sum(c.values())
    if total > instance_count:
        return JobState.PENDING
    succeeded, failed, lost, killed = (c[TaskState.SUCCEEDED], c[TaskState.FAILED],
                                       c[TaskState.LOST], c[TaskState.KILLED])
    if succeeded >= instance_count:
        return JobState.SUCCEEDED
    if succeeded + failed + lost >= instance_count:
        return JobState.FAILED
    if killed > 0 and succeeded + failed + killed + lost >= instance_count:
        return JobState.KILLED
    if current == JobState.KILLING:
        return JobState.KILLING
    if c[TaskState.RUNNING] > 0 or c[TaskState.STARTING] > 0:
        return JobState.RUNNING
    if total and c[TaskState.INITIALIZED] == total:
        return JobState.INITIALIZED
    return JobState.PENDING


def on_task_exit(state: TaskState, goal: TaskState, failures: int,
                 max_failures: int) -> tuple[TaskState, bool]:
    """(state to record, whether to start a new run) for a run that ended.

    ``failures`` counts failed runs before this one. A run that failed or was
    lost while the goal is to succeed runs again until ``max_failures``
    retries are used; a killed run whose goal is not KILLED was killed by the
    system (e.g. its host), and is retried the same way.
    """
    if goal == TaskState.KILLED:
        return (TaskState.KILLED if state not in (TaskState.SUCCEEDED, TaskState.FAILED)
                else state), False
    if state == TaskState.SUCCEEDED:
        return TaskState.SUCCEEDED, False
    if state in RETRYABLE or state == TaskState.KILLED:
        if failures < max_failures:
            return state, True
        return (TaskState.FAILED if state == TaskState.KILLED else state), False
    return state, False
