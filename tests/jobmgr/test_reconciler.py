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
    ACT_RULES,
    DEADLINE_EXCEEDED,
    EXIT_RULES,
    PROGRESS_RULES,
    TABLE_SIZE,
    Act,
    Decision,
    Ending,
    Input,
    Update,
    decide,
    gone,
    respond,
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
    assert set(EXIT_RULES) == set(itertools.product((S.SUCCEEDED, S.RUNNING, S.KILLED),
                                                    Ending, ENDS))
    assert TABLE_SIZE == len(EXIT_RULES) + len(PROGRESS_RULES) + len(ACT_RULES) == 244


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


@pytest.mark.parametrize(("state", "stale"), [
    (S.RUNNING, S.LAUNCHED), (S.RUNNING, S.STARTING), (S.STARTING, S.LAUNCHED)])
def test_a_report_behind_the_runs_state_is_stale(state: TaskState, stale: TaskState) -> None:
    """A reconcile answer can be older than an event applied before it: an
    earlier state coming after a later one decides nothing; forward moves
    are taken."""
    assert not decide(job(), running(state=state), Update(stale), 1.0).changes
    assert decide(job(), running(state=stale), Update(state), 1.0).changes["state"] == state


def test_running_is_taken_with_its_start_time_and_reported() -> None:
    t, d = after(running(state=S.LAUNCHING, start_time=0.0),
                 Update(S.RUNNING, hostname="h2", timestamp=7.0))
    assert d.report
    assert (t.state, t.host, t.start_time, t.message) == (S.RUNNING, "h2", 7.0, "running on h2")


# --------------------------------------------------------------------------- the other inputs

ON_HOST = (S.LAUNCHING, S.LAUNCHED, S.STARTING, S.RUNNING, S.KILLING, S.PREEMPTING)
NOT_PLACED = (S.INITIALIZED, S.PENDING)


@pytest.mark.parametrize(("kind", "goal", "state", "want"), [
    # A placement launches a run that waits for one, and ends a stopped one.
    (Input.PLACED, S.SUCCEEDED, S.PENDING, Act.LAUNCH),
    (Input.PLACED, S.KILLED, S.PENDING, Act.END),
    (Input.PLACED, S.SUCCEEDED, S.LAUNCHING, Act.NONE),  # a stale placement
    (Input.PLACED, S.SUCCEEDED, S.SUCCEEDED, Act.NONE),
    # A refused launch is placed again, unless the task was stopped meanwhile.
    (Input.REFUSED, S.SUCCEEDED, S.LAUNCHING, Act.REQUEUE),
    (Input.REFUSED, S.KILLED, S.KILLING, Act.END),
    (Input.REFUSED, S.SUCCEEDED, S.RUNNING, Act.NONE),
    # A run its host manager does not know: a lost launch is placed again,
    # anything else ended unseen.
    (Input.UNKNOWN, S.SUCCEEDED, S.LAUNCHING, Act.REQUEUE),
    (Input.UNKNOWN, S.KILLED, S.LAUNCHING, Act.GONE),
    (Input.UNKNOWN, S.SUCCEEDED, S.RUNNING, Act.GONE),
    (Input.UNKNOWN, S.SUCCEEDED, S.FAILED, Act.NONE),
    # Stop: kill on the host, end before it, only the goal once ended.
    *[(Input.STOP, g, st_, Act.KILL) for g in (S.SUCCEEDED, S.KILLED) for st_ in ON_HOST],
    *[(Input.STOP, g, st_, Act.END) for g in (S.SUCCEEDED, S.KILLED) for st_ in NOT_PLACED],
    (Input.STOP, S.SUCCEEDED, S.SUCCEEDED, Act.MARK),
    # Start: a new run of an ended task; a stopping one only gets its goal back.
    (Input.START, S.KILLED, S.KILLED, Act.NEW_RUN),
    (Input.START, S.SUCCEEDED, S.FAILED, Act.NEW_RUN),
    (Input.START, S.KILLED, S.KILLING, Act.MARK),
    (Input.START, S.SUCCEEDED, S.RUNNING, Act.NONE),
    # Restart: kill the run on its host (its end starts the next), leave one
    # not placed yet as it is (it starts with the config it would restart
    # with), start an ended one.
    (Input.RESTART, S.SUCCEEDED, S.RUNNING, Act.KILL),
    (Input.RESTART, S.SUCCEEDED, S.PENDING, Act.NONE),
    (Input.RESTART, S.SUCCEEDED, S.SUCCEEDED, Act.NEW_RUN),
    # A rolling restart marks a run on a host (the roll timer takes it down
    # in turn); the roll kills a marked run unless it is being stopped.
    (Input.ROLLING_RESTART, S.RUNNING, S.RUNNING, Act.MARK),
    (Input.ROLLING_RESTART, S.RUNNING, S.PENDING, Act.NONE),
    (Input.ROLLING_RESTART, S.RUNNING, S.FAILED, Act.NEW_RUN),
    (Input.ROLLING_RESTART, S.KILLED, S.KILLING, Act.NONE),
    (Input.ROLL, S.RUNNING, S.RUNNING, Act.KILL),
    (Input.ROLL, S.RUNNING, S.LAUNCHED, Act.KILL),
    (Input.ROLL, S.RUNNING, S.KILLING, Act.NONE),
    (Input.ROLL, S.RUNNING, S.PREEMPTING, Act.NONE),
    (Input.ROLL, S.KILLED, S.RUNNING, Act.NONE),
    # Preemption: only runs on a host, never one being killed; again if asked again.
    (Input.PREEMPT, S.SUCCEEDED, S.RUNNING, Act.KILL),
    (Input.PREEMPT, S.SUCCEEDED, S.LAUNCHING, Act.KILL),
    (Input.PREEMPT, S.SUCCEEDED, S.PREEMPTING, Act.KILL_AGAIN),
    (Input.PREEMPT, S.KILLED, S.KILLING, Act.NONE),
    (Input.PREEMPT, S.SUCCEEDED, S.PENDING, Act.NONE),
    # The deadline kills a running run of a task meant to succeed.
    (Input.DEADLINE, S.SUCCEEDED, S.RUNNING, Act.KILL),
    (Input.DEADLINE, S.KILLED, S.KILLING, Act.NONE),
    (Input.DEADLINE, S.SUCCEEDED, S.LAUNCHED, Act.NONE),
    # A service's restart timer starts an ended run of a task meant to run;
    # the deadline is a batch rule.
    (Input.BACKOFF, S.RUNNING, S.FAILED, Act.NEW_RUN),
    (Input.BACKOFF, S.RUNNING, S.SUCCEEDED, Act.NEW_RUN),
    (Input.BACKOFF, S.KILLED, S.FAILED, Act.NONE),
    (Input.BACKOFF, S.SUCCEEDED, S.FAILED, Act.NONE),
    (Input.BACKOFF, S.RUNNING, S.RUNNING, Act.NONE),
    (Input.DEADLINE, S.RUNNING, S.RUNNING, Act.NONE),
    (Input.PLACED, S.RUNNING, S.PENDING, Act.LAUNCH),
    (Input.STOP, S.RUNNING, S.RUNNING, Act.KILL),
    # A new owner resumes what the old one left half done.
    (Input.OWNER, S.SUCCEEDED, S.INITIALIZED, Act.ENQUEUE),
    (Input.OWNER, S.SUCCEEDED, S.PENDING, Act.RESEND),
    (Input.OWNER, S.SUCCEEDED, S.LAUNCHING, Act.ASK),
    (Input.OWNER, S.SUCCEEDED, S.PREEMPTING, Act.KILL_AGAIN),
    (Input.OWNER, S.KILLED, S.PREEMPTING, Act.KILL_AGAIN),
    (Input.OWNER, S.KILLED, S.RUNNING, Act.KILL),
    (Input.OWNER, S.KILLED, S.PENDING, Act.END),
    (Input.OWNER, S.SUCCEEDED, S.RUNNING, Act.NONE),
    (Input.OWNER, S.KILLED, S.KILLED, Act.NONE),
])
def test_act_rules(kind: Input, goal: TaskState, state: TaskState, want: Act) -> None:
    assert ACT_RULES.get((kind, goal, state), Act.NONE) == want


def task_in(state: TaskState, goal: TaskState = S.SUCCEEDED, **fields: object) -> Task:
    return dataclasses.replace(running(goal=goal, **fields), state=state)


def test_a_stop_kills_on_the_host_and_drops_a_restart_and_a_preemption() -> None:
    a = respond(job(), task_in(S.PREEMPTING, restart=True, preempted=True), Input.STOP, 5.0)
    assert a.act == Act.KILL
    assert a.changes == {"goal": S.KILLED, "restart": False, "state": S.KILLING,
                         "preempted": False, "message": "killing on request"}


def test_a_stop_before_launch_ends_the_run_there() -> None:
    a = respond(job(), task_in(S.PENDING), Input.STOP, 5.0)
    assert (a.act, a.changes["state"], a.changes["completion_time"]) == (Act.END, S.KILLED, 5.0)


def test_a_start_is_a_new_run() -> None:
    a = respond(job(), task_in(S.FAILED, goal=S.SUCCEEDED, run=3), Input.START, 5.0)
    assert a.act == Act.NEW_RUN
    assert (a.changes["run"], a.changes["state"], a.changes["goal"]) == (4, S.INITIALIZED,
                                                                         S.SUCCEEDED)


def test_a_preemption_says_why_and_kill_on_preempt_makes_it_final() -> None:
    a = respond(job(), task_in(S.RUNNING), Input.PREEMPT, 5.0, "pool a over")
    assert a.changes == {"state": S.PREEMPTING, "preempted": True,
                         "message": "preempted: pool a over"}
    final = job()
    final.config.defaultConfig.preemptionPolicy.killOnPreempt = True
    final._configs.clear()  # merged configs are cached from creation on
    assert respond(final, task_in(S.RUNNING), Input.PREEMPT, 5.0, "x").changes["goal"] == S.KILLED


def test_the_deadline_kills_only_past_max_running_time() -> None:
    j = job()
    j.config.sla.maxRunningTime = 30
    t = task_in(S.RUNNING, start_time=100.0)
    assert respond(j, t, Input.DEADLINE, 129.0).act == Act.NONE
    a = respond(j, t, Input.DEADLINE, 130.0)
    assert (a.act, a.changes["state"], a.changes["reason"]) == (Act.KILL, S.KILLING,
                                                                DEADLINE_EXCEEDED)


def test_a_run_gone_unseen_ended_as_meant_or_was_lost() -> None:
    assert gone(task_in(S.RUNNING), 1.0).state == S.LOST
    assert gone(task_in(S.PREEMPTING), 1.0).state == S.KILLED
    assert gone(task_in(S.KILLING, goal=S.KILLED), 1.0).state == S.KILLED


def test_a_service_run_that_ends_waits_for_its_backoff() -> None:
    t = running(goal=S.RUNNING, failures=1)
    d = decide(job(), t, Update(S.SUCCEEDED, message="exit 0"), 10.0)
    assert not d.new_run and d.report
    assert (d.changes["state"], d.changes["failures"]) == (S.SUCCEEDED, 2)
    ended = dataclasses.replace(t, **d.changes)
    assert respond(job(), ended, Input.BACKOFF, 10.0 + 59.9).act == Act.NONE  # 30 s x 2
    assert respond(job(), ended, Input.BACKOFF, 10.0 + 60.0).act == Act.NEW_RUN


def test_a_health_verdict_on_a_running_run_is_recorded() -> None:
    d = decide(job(), running(), Update(S.RUNNING, health=task_pb2.UNHEALTHY), 1.0)
    assert d.changes == {"health": task_pb2.UNHEALTHY} and not d.report
