"""Goal-state rules: the job state from task counts (Peloton's runtime updater,
reference/peloton.md §2.6, rules in order) and what a run's end means."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from peloton.core.states import JobState, TaskState
from peloton.jobmgr.goalstate import derive_job_state

T = TaskState
J = JobState


def counts(**by_name: int) -> dict[int, int]:
    return {int(TaskState[name]): n for name, n in by_name.items()}


@pytest.mark.parametrize(("rule", "tasks", "n", "current", "want"), [
    # 1. more tasks than instances (a shrinking update): PENDING, whatever they are
    ("1 shrinking", counts(RUNNING=3), 2, J.RUNNING, J.PENDING),
    ("1 before 2", counts(SUCCEEDED=3), 2, J.RUNNING, J.PENDING),
    ("1 before 5", counts(KILLED=2, RUNNING=1), 2, J.KILLING, J.PENDING),
    # 2. every instance succeeded
    ("2 all succeeded", counts(SUCCEEDED=3), 3, J.RUNNING, J.SUCCEEDED),
    ("2 before 5", counts(SUCCEEDED=3), 3, J.KILLING, J.SUCCEEDED),
    # 3. every instance ended, none killed: FAILED (LOST counts as failed)
    ("3 one failed", counts(SUCCEEDED=2, FAILED=1), 3, J.RUNNING, J.FAILED),
    ("3 one lost", counts(SUCCEEDED=2, LOST=1), 3, J.RUNNING, J.FAILED),
    ("3 all failed", counts(FAILED=3), 3, J.PENDING, J.FAILED),
    ("3 before 5", counts(FAILED=1, LOST=1), 2, J.KILLING, J.FAILED),
    # 4. every instance ended, some killed: KILLED
    ("4 some killed", counts(SUCCEEDED=1, FAILED=1, KILLED=1), 3, J.RUNNING, J.KILLED),
    ("4 all killed", counts(KILLED=3), 3, J.KILLING, J.KILLED),
    ("4 killed and lost", counts(LOST=1, KILLED=1), 2, J.RUNNING, J.KILLED),
    # 5. a KILLING job stays KILLING until its tasks end
    ("5 killing", counts(KILLED=1, RUNNING=1), 2, J.KILLING, J.KILLING),
    ("5 killing, none started", counts(PENDING=2), 2, J.KILLING, J.KILLING),
    # 6. anything running (or starting): RUNNING
    ("6 running", counts(RUNNING=1, PENDING=2), 3, J.PENDING, J.RUNNING),
    ("6 starting", counts(STARTING=1, LAUNCHED=1), 2, J.PENDING, J.RUNNING),
    ("6 running with some ended", counts(RUNNING=1, SUCCEEDED=1, KILLED=1), 3, J.RUNNING,
     J.RUNNING),
    # INITIALIZED: every task created but none enqueued yet
    ("initialized", counts(INITIALIZED=3), 3, J.INITIALIZED, J.INITIALIZED),
    ("initialized, one pending", counts(INITIALIZED=2, PENDING=1), 3, J.INITIALIZED, J.PENDING),
    # else PENDING
    ("pending", counts(PENDING=1, READY=1, PLACING=1), 3, J.INITIALIZED, J.PENDING),
    ("launching", counts(PLACED=1, LAUNCHING=1, LAUNCHED=1), 3, J.PENDING, J.PENDING),
    ("no tasks", {}, 3, J.PENDING, J.PENDING),
    ("ended but not all", counts(SUCCEEDED=1, FAILED=1, PENDING=1), 3, J.RUNNING, J.PENDING),
])
def test_derive_job_state_rules_in_order(rule: str, tasks: dict[int, int], n: int,
                                         current: JobState, want: JobState) -> None:
    assert derive_job_state(tasks, n, current) == want, rule


@pytest.mark.parametrize(("controller", "want"), [
    (T.SUCCEEDED, J.SUCCEEDED),
    (T.FAILED, J.FAILED),
    (T.LOST, J.FAILED),
    (T.KILLED, J.KILLED),
])
def test_a_terminal_controller_ends_the_job_as_it_ended(controller: TaskState,
                                                        want: JobState) -> None:
    # Before every other rule: the other instances are still running.
    assert derive_job_state(counts(RUNNING=3), 4, J.RUNNING, controller_state=controller) == want
    assert derive_job_state(counts(RUNNING=9), 4, J.KILLING, controller_state=controller) == want


@pytest.mark.parametrize("controller", [T.INITIALIZED, T.PENDING, T.RUNNING, T.LAUNCHED, None])
def test_a_live_controller_leaves_the_rules_alone(controller: TaskState | None) -> None:
    assert derive_job_state(counts(RUNNING=1, SUCCEEDED=1), 2, J.PENDING,
                            controller_state=controller) == J.RUNNING
    assert derive_job_state(counts(SUCCEEDED=2), 2, J.RUNNING,
                            controller_state=controller) == J.SUCCEEDED


def test_counts_accept_plain_ints_and_enum_keys() -> None:
    assert derive_job_state({9: 2}, 2, J.RUNNING) == J.SUCCEEDED
    assert derive_job_state({T.SUCCEEDED: 2}, 2, J.RUNNING) == J.SUCCEEDED
    assert derive_job_state({int(T.RUNNING): 0, int(T.PENDING): 1}, 1, J.PENDING) == J.PENDING


@given(st.dictionaries(st.sampled_from(list(TaskState)), st.integers(0, 5)),
       st.integers(1, 20), st.sampled_from(list(JobState)))
def test_derive_job_state_is_total(tasks: dict[TaskState, int], n: int,
                                   current: JobState) -> None:
    state = derive_job_state(tasks, n, current)
    assert state in JobState
    if sum(tasks.values()) <= n and tasks.get(T.SUCCEEDED, 0) == n:
        assert state == J.SUCCEEDED
