"""The job state from its tasks' states: Peloton's runtime updater
(reference/peloton.md §2.6), a pure function. What a task's own updates mean
for it is ``peloton.jobmgr.reconciler``'s."""

from __future__ import annotations

from collections.abc import Mapping

from peloton.core.states import JobState, TaskState


def derive_job_state(counts: Mapping[int, int], instance_count: int, current: JobState,
                     *, controller_state: TaskState | None = None,
                     service_goal: JobState | None = None) -> JobState:
    """The job state from its tasks' state counts (Peloton's order of rules).

    ``controller_state`` is the state of instance 0 when it is a controller
    task: once it is terminal, the job ends as it ended. A service job
    (``service_goal``: its goal) never ends by its tasks' ends, which only
    wait for their restart: while its goal is RUNNING it is RUNNING while an
    instance runs, else PENDING (INITIALIZED before any task was handed
    out); once stopped it is KILLED when every task has ended.
    """
    # IntEnum members hash and compare as their numbers: ``counts`` keyed by
    # either is read as is (a Counter of TaskStates built here cost more
    # than the rest of a job's state change). The states are read once, by
    # number (an enum member's lookup and a helper's call at each read were
    # most of this function's time, and it runs at each of a job's changes).
    get = counts.get
    total = sum(counts.values())
    running = get(_RUNNING, 0) or get(_STARTING, 0)
    succeeded, failed = get(_SUCCEEDED, 0), get(_FAILED, 0)
    lost, killed = get(_LOST, 0), get(_KILLED, 0)
    if service_goal is not None:
        ended = succeeded + failed + lost + killed
        if service_goal == JobState.KILLED and total and ended == total:
            return JobState.KILLED
        if running:
            return JobState.RUNNING
        return JobState.INITIALIZED if total and get(_INITIALIZED, 0) == total else (
            JobState.PENDING)
    if controller_state in _ENDED:
        return {TaskState.SUCCEEDED: JobState.SUCCEEDED, TaskState.KILLED: JobState.KILLED}.get(
            controller_state, JobState.FAILED)
    if total > instance_count:
        return JobState.PENDING
    if succeeded >= instance_count:
        return JobState.SUCCEEDED
    if succeeded + failed + lost >= instance_count:
        return JobState.FAILED
    if killed > 0 and succeeded + failed + killed + lost >= instance_count:
        return JobState.KILLED
    if current == JobState.KILLING:
        return JobState.KILLING
    if running:
        return JobState.RUNNING
    if total and get(_INITIALIZED, 0) == total:
        return JobState.INITIALIZED
    return JobState.PENDING


_RUNNING, _STARTING, _INITIALIZED = (int(TaskState.RUNNING), int(TaskState.STARTING),
                                     int(TaskState.INITIALIZED))
_SUCCEEDED, _FAILED, _LOST, _KILLED = (int(TaskState.SUCCEEDED), int(TaskState.FAILED),
                                       int(TaskState.LOST), int(TaskState.KILLED))
_ENDED = frozenset((TaskState.SUCCEEDED, TaskState.FAILED, TaskState.LOST, TaskState.KILLED))
