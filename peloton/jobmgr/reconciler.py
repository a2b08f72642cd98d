"""What a task's status update means for it: Peloton's task rules as tables.

Pure: no I/O, no clock (``now`` comes in). ``decide(job, task, update,
now)`` looks the update up in two tables keyed by the task's goal state, its
current state (refined by why it is being stopped) and the state the host
manager reports, and returns a ``Decision``: the fields to write and the
side effects (report to resmgr, start a new run) for the engine to carry
out, fenced write first. The engine batches decisions of many tasks into one
storage write and one call per daemon.

``EXIT_RULES`` is Peloton's ``task_fail_restart`` / ``task_terminated_retry``
and goal-state table (reference/peloton.md §7.2, §7.4) for a run that ended;
``PROGRESS_RULES`` for a run that moves on (launched, starting, running).
New workloads add rows (a service's goal RUNNING restarts every ended run
with backoff), not branches.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from peloton.core.states import TERMINAL_TASK_STATES, TaskState

if TYPE_CHECKING:  # the models only, for types: nothing here does I/O
    from peloton.jobmgr.model import Job, Task

# The reason a run killed for running past sla.maxRunningTime keeps (Peloton's
# deadline tracker): it then ends FAILED, and is not retried.
DEADLINE_EXCEEDED = "DEADLINE_TIMEOUT_EXCEEDED"

S = TaskState


class Ending(enum.Enum):
    """Why a run is ending, which decides what its end means."""

    OWN = "own"  # it ended by itself (or its host or a system kill ended it)
    PREEMPTED = "preempted"  # resmgr took its resources back (PREEMPTING)
    RESTART = "restart"  # a user's restart is killing it
    DEADLINE = "deadline"  # it ran past sla.maxRunningTime and is being killed


class Again(enum.Enum):
    NO = "no"
    YES = "yes"  # a new run, not counted against restartPolicy.maxFailures
    RETRY = "retry"  # a new run while failures < maxFailures (and counted), else ``record``


@dataclass(frozen=True, slots=True)
class ExitRule:
    record: TaskState  # what the ended run is written as (when it is not run again)
    again: Again = Again.NO
    # The ended run's stored message keeps why it was stopped (the preemption,
    # the deadline) before the host manager's word.
    keep_why: bool = False


# (goal, why it is ending, the state it ended in) -> rule. Goal SUCCEEDED is a
# batch task's; KILLED a stopped task's (or one preempted with killOnPreempt,
# or past its deadline).
EXIT_RULES: dict[tuple[TaskState, Ending, TaskState], ExitRule] = {}
for _goal in (S.SUCCEEDED, S.KILLED):
    for _end in S.SUCCEEDED, S.FAILED, S.LOST, S.KILLED:
        # A run past its deadline fails, whatever killed it; not retried.
        EXIT_RULES[(_goal, Ending.DEADLINE, _end)] = ExitRule(S.FAILED, keep_why=True)
        # A run that succeeded succeeded, whatever was under way.
        if _end == S.SUCCEEDED:
            for _why in Ending.OWN, Ending.PREEMPTED, Ending.RESTART:
                EXIT_RULES[(_goal, _why, _end)] = ExitRule(
                    S.SUCCEEDED, Again.YES if _why == Ending.RESTART and _goal == S.SUCCEEDED
                    else Again.NO)
            continue
        if _goal == S.KILLED:  # stopped: it ends as it ended, KILLED unless it failed
            ended = S.FAILED if _end == S.FAILED else S.KILLED
            for _why in Ending.OWN, Ending.RESTART:
                EXIT_RULES[(_goal, _why, _end)] = ExitRule(ended)
            EXIT_RULES[(_goal, Ending.PREEMPTED, _end)] = ExitRule(S.KILLED, keep_why=True)
            continue
        # Goal SUCCEEDED: a failed, lost or system-killed run is retried
        # within restartPolicy.maxFailures (a kill used up counts as a failure).
        EXIT_RULES[(_goal, Ending.OWN, _end)] = ExitRule(
            S.FAILED if _end == S.KILLED else _end, Again.RETRY)
        EXIT_RULES[(_goal, Ending.PREEMPTED, _end)] = ExitRule(S.KILLED, Again.YES,
                                                               keep_why=True)
        EXIT_RULES[(_goal, Ending.RESTART, _end)] = ExitRule(_end, Again.YES)
del _goal, _end

# (current state is being stopped, reported state) -> whether the report is
# taken. A report that a run is (still) running never undoes a kill in its
# grace period (KILLING, PREEMPTING).
PROGRESS_RULES: dict[tuple[bool, TaskState], bool] = {
    (stopping, reported): not stopping
    for stopping in (False, True)
    for reported in (S.LAUNCHED, S.STARTING, S.RUNNING)
}

TABLE_SIZE = len(EXIT_RULES) + len(PROGRESS_RULES)


@dataclass(frozen=True, slots=True)
class Update:
    """A status update of one run from its host manager."""

    state: TaskState
    hostname: str = ""
    message: str = ""
    exit_code: int = 0
    reason: str = ""
    timestamp: float = 0.0


@dataclass(slots=True)
class Decision:
    """What the engine does for one update: ``changes`` are the task's fields
    to set before it is written (empty: nothing changes; a dict, not a copy
    of the task: this runs for every status update of a million tasks);
    ``ended_run`` the run that ended, to record as an event and report to
    resmgr; ``report`` whether to tell resmgr (RUNNING, or an end);
    ``new_run`` whether the task starts a new run (to enqueue)."""

    changes: dict[str, Any] = field(default_factory=dict)
    ended_run: Task | None = None
    report: bool = False
    new_run: bool = False


STOPPING = frozenset({S.KILLING, S.PREEMPTING})


def ending(task: Task, reported: TaskState) -> Ending:
    if task.state == S.PREEMPTING and reported != S.SUCCEEDED:
        return Ending.PREEMPTED
    if task.reason == DEADLINE_EXCEEDED:
        return Ending.DEADLINE
    if task.restart and task.goal != S.KILLED:
        return Ending.RESTART
    return Ending.OWN


def decide(job: Job, task: Task, update: Update, now: float) -> Decision:
    """What ``update`` (about ``task``'s current run) means; pure. Repeats and
    stale reports decide nothing (at-least-once delivery)."""
    state = update.state
    if task.terminal or state == task.state:
        return Decision()
    if state not in TERMINAL_TASK_STATES:
        if not PROGRESS_RULES.get((task.state in STOPPING, state), False):
            return Decision()
        host = update.hostname or task.host
        changes: dict[str, Any] = {
            "state": state, "host": host,
            "message": update.message or (f"running on {host}" if state == S.RUNNING
                                          else task.message)}
        if state == S.RUNNING and not task.start_time:
            changes["start_time"] = update.timestamp or now
        return Decision(changes, report=state == S.RUNNING)

    why = ending(task, state)
    rule = EXIT_RULES[(task.goal, why, state)]
    max_failures = job.task_config(task.instance).restartPolicy.maxFailures
    again = rule.again == Again.YES or (rule.again == Again.RETRY
                                        and task.failures < max_failures)
    stopped_why = task.message  # "preempted: <the pool and the numbers>", the deadline
    message = (f"{stopped_why}; {update.message}" if rule.keep_why and update.message
               else stopped_why if rule.keep_why else update.message)
    preempted = why == Ending.PREEMPTED
    ended = replace(task, state=rule.record if not again or rule.again != Again.RETRY
                    else state, message=message, exit_code=update.exit_code,
                    preempted=preempted, completion_time=update.timestamp or now)
    if not again:
        return Decision({
            "state": ended.state, "message": message, "exit_code": update.exit_code,
            "preempted": preempted, "completion_time": ended.completion_time,
            "reason": task.reason if why == Ending.DEADLINE else update.reason},
            ended_run=ended, report=True)
    failures = task.failures + (1 if rule.again == Again.RETRY else 0)
    return Decision({
        "failures": failures, "restart": False, "preempted": False, "run": task.run + 1,
        "state": S.INITIALIZED, "host": "", "lease": "", "ports": {},
        "start_time": 0.0, "completion_time": 0.0,
        "message": (f"run {task.run} {stopped_why}" if preempted
                    else f"retry {failures} of {max_failures}" if rule.again == Again.RETRY
                    else "restarting")}, ended_run=ended, report=True, new_run=True)
