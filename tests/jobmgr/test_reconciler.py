"""The task rules as tables (pure): complete, Peloton's, and what decide() does."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from peloton.api.v0.job import job_pb2
from peloton.api.v0.task import task_pb2
from peloton.core.states import TaskState
from peloton.jobmgr.model import Job, Task
from peloton.jobmgr.reconciler import (
    DEADLINE_EXCEEDED,
    EXIT_RULES,
    PROGRESS_RULES,
    TABLE_SIZE,
    Decision,
    Ending,
    Update,
    decide,
)

S = TaskState
T = TaskState
JOB = "0b5c7e1e-3f7a-4c8e-9d1a-2f6b8c9d0e1f"
ENDS = (S.SUCCEEDED, S.FAILED, S.LOST, S.KILLED)


def job(max_failures: int = 2) -> Job:
    return Job.new(JOB, 0, job_pb2.JobConfig(
        name="j", instanceCount=1, defaultConfig=task_pb2.TaskConfig(
            restartPolicy=task_pb2.RestartPolicy(maxFailures=max_failures))), 0.0)


def test_every_goal_ending_and_end_has_a_rule() -> None:
    assert set(EXIT_RULES) == set(itertools.product((S.SUCCEEDED, S.KILLED), Ending, ENDS))
    assert TABLE_SIZE == len(EXIT_RULES) + len(PROGRESS_RULES) == 38


def after(task: Task, update: Update, max_failures: int = 2) -> tuple[Task, Decision]:
    """The task as the engine writes it after ``update``, and the decision."""
    d = decide(job(max_failures), task, update, 10.0)
    new = dataclasses.replace(task)
    for name, value in d.changes.items():
        setattr(new, name, value)
    return new, d


def exit_of(end: S, goal: S, failures: int, max_failures: int) -> tuple[S, bool]:
    """(state the ended run is written as, whether a new run starts) for a
    run that ended by itself."""
    t, d = after(running(goal=goal, failures=failures), Update(end), max_failures)
    assert d.changes and d.ended_run is not None
    return (d.ended_run.state, True) if d.new_run else (t.state, False)


@pytest.mark.parametrize(("case", "state", "goal", "failures", "max_failures", "want"), [
    ("success", T.SUCCEEDED, T.SUCCEEDED, 0, 0, (T.SUCCEEDED, False)),
    ("success after failures", T.SUCCEEDED, T.SUCCEEDED, 2, 3, (T.SUCCEEDED, False)),
    ("failure, retries left", T.FAILED, T.SUCCEEDED, 0, 2, (T.FAILED, True)),
    ("failure, last retry", T.FAILED, T.SUCCEEDED, 1, 2, (T.FAILED, True)),
    ("failure, no retries left", T.FAILED, T.SUCCEEDED, 2, 2, (T.FAILED, False)),
    ("failure, none allowed", T.FAILED, T.SUCCEEDED, 0, 0, (T.FAILED, False)),
    ("lost, retries left", T.LOST, T.SUCCEEDED, 0, 1, (T.LOST, True)),
    ("lost, no retries left", T.LOST, T.SUCCEEDED, 1, 1, (T.LOST, False)),
    ("killed on request", T.KILLED, T.KILLED, 0, 5, (T.KILLED, False)),
    ("lost while being killed", T.LOST, T.KILLED, 0, 5, (T.KILLED, False)),
    ("succeeded while being killed", T.SUCCEEDED, T.KILLED, 0, 5, (T.SUCCEEDED, False)),
    ("failed while being killed", T.FAILED, T.KILLED, 0, 5, (T.FAILED, False)),
    ("killed by the system, retries left", T.KILLED, T.SUCCEEDED, 0, 1, (T.KILLED, True)),
    ("killed by the system, none left", T.KILLED, T.SUCCEEDED, 1, 1, (T.FAILED, False)),
    ])
def test_exit_of(case: str, state: TaskState, goal: TaskState, failures: int,
                      max_failures: int, want: tuple[TaskState, bool]) -> None:
    assert exit_of(state, goal, failures, max_failures) == want, case


@given(st.sampled_from([T.FAILED, T.LOST, T.KILLED]), st.integers(0, 10), st.integers(0, 10))
def test_retries_stop_after_max_failures(state: TaskState, failures: int,
                                         max_failures: int) -> None:
    _, again = exit_of(state, T.SUCCEEDED, failures, max_failures)
    assert again == (failures < max_failures)


def running(**fields: object) -> Task:
    t = Task(JOB, 0, "j-0", state=S.RUNNING, host="h1", start_time=5.0)
    for name, value in fields.items():
        setattr(t, name, value)
    return t


def test_a_failed_run_is_retried_and_counted_until_max_failures() -> None:
    t, d = after(running(), Update(S.FAILED, message="exit 3", exit_code=3))
    assert d.new_run and d.report
    assert (t.state, t.run, t.failures, t.message) == (S.INITIALIZED, 2, 1, "retry 1 of 2")
    assert d.ended_run is not None and (d.ended_run.state, d.ended_run.exit_code) == (S.FAILED, 3)
    t, last = after(running(failures=2), Update(S.FAILED))
    assert (t.state, last.new_run) == (S.FAILED, False)


def test_a_preempted_run_runs_again_uncounted_with_why() -> None:
    t = running(state=S.PREEMPTING, message="preempted: pool /a over its entitlement")
    t, d = after(t, Update(S.KILLED, message="SIGTERM"))
    assert (t.run, t.failures) == (2, 0)
    assert t.message == "run 1 preempted: pool /a over its entitlement"
    assert d.ended_run is not None and d.ended_run.message == (
        "preempted: pool /a over its entitlement; SIGTERM")


def test_a_run_past_its_deadline_fails_for_good() -> None:
    t = running(state=S.KILLING, goal=S.KILLED, reason=DEADLINE_EXCEEDED,
                message="ran longer than the job's maxRunningTime of 5 s; killed")
    t, d = after(t, Update(S.KILLED, reason="REASON_COMMAND_EXECUTOR_FAILED"))
    assert not d.new_run
    assert (t.state, t.reason) == (S.FAILED, DEADLINE_EXCEEDED)


def test_a_restart_starts_a_new_run_without_counting_it() -> None:
    t, _ = after(running(state=S.KILLING, restart=True), Update(S.KILLED), 0)
    assert (t.run, t.failures, t.message) == (2, 0, "restarting")


@pytest.mark.parametrize("update", [
    Update(S.RUNNING),  # a repeat
    Update(S.STARTING),  # never undoes a kill in its grace period (below)
])
def test_repeats_and_reports_during_a_kill_decide_nothing(update: Update) -> None:
    assert not decide(job(), running(), Update(S.RUNNING), 1.0).changes
    assert not decide(job(), running(state=S.KILLING), update, 1.0).changes


def test_running_is_taken_with_its_start_time_and_reported() -> None:
    t, d = after(running(state=S.LAUNCHING, start_time=0.0),
                 Update(S.RUNNING, hostname="h2", timestamp=7.0))
    assert d.report
    assert (t.state, t.host, t.start_time, t.message) == (S.RUNNING, "h2", 7.0, "running on h2")
