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

Every other input goes through ``respond(job, task, input, now)`` and
``ACT_RULES``, keyed by (input, goal state, current state): a placement, a
refused launch, a run the host managers do not know, a user's stop, start or
restart, a preemption victim, the deadline timer, and a new shard owner
resuming the task. It returns an ``Action``: the act (launch, kill, end,
place again, start a new run, ...) and the fields to write first.

New workloads add rows (a service's goal RUNNING restarts every ended run
with backoff), not branches. ``TABLE_SIZE`` counts the rows of all three.
"""

from __future__ import annotations

import enum
import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from peloton.api.v0.task import task_pb2
from peloton.core.states import ON_HOST_TASK_STATES, TERMINAL_TASK_STATES, TaskState
from peloton.spec.job import runs_until_stopped

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
    # A service's: the end is recorded and counted, and a new run starts once
    # restart_backoff(failures) has passed since it ended (Input.BACKOFF).
    LATER = "later"


# Peloton's initial_task_backoff and max_task_backoff: a service instance that
# ended runs again after 30 s x 2^(failures - 1), at most an hour, counted from
# its end (reference/peloton.md §7.4).
INITIAL_TASK_BACKOFF = 30.0
MAX_TASK_BACKOFF = 3600.0


def restart_backoff(failures: int) -> float:
    """Seconds an ended service run waits before the next, after ``failures`` ends."""
    return min(MAX_TASK_BACKOFF, INITIAL_TASK_BACKOFF * 2.0 ** min(max(failures, 1) - 1, 30))


@dataclass(frozen=True, slots=True)
class ExitRule:
    record: TaskState  # what the ended run is written as (when it is not run again)
    again: Again = Again.NO
    # The ended run's stored message keeps why it was stopped (the preemption,
    # the deadline) before the host manager's word.
    keep_why: bool = False


# (goal, why it is ending, the state it ended in) -> rule. Goal SUCCEEDED is a
# batch task's; RUNNING a service task's; KILLED a stopped task's (or one
# preempted with killOnPreempt, or past its deadline).
EXIT_RULES: dict[tuple[TaskState, Ending, TaskState], ExitRule] = {}
for _end in S.SUCCEEDED, S.FAILED, S.LOST, S.KILLED:
    # A service instance runs until stopped: whatever ended it, it runs
    # again: at once after a preemption or a restart (not counted), after
    # the backoff otherwise (counted). A deadline never applies to a service.
    EXIT_RULES[(S.RUNNING, Ending.OWN, _end)] = ExitRule(_end, Again.LATER)
    EXIT_RULES[(S.RUNNING, Ending.DEADLINE, _end)] = ExitRule(_end, Again.LATER, keep_why=True)
    EXIT_RULES[(S.RUNNING, Ending.PREEMPTED, _end)] = ExitRule(S.KILLED, Again.YES, keep_why=True)
    EXIT_RULES[(S.RUNNING, Ending.RESTART, _end)] = ExitRule(_end, Again.YES)
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
# A run moves on in this order only: a report behind the run's state is
# stale. A reconcile round asks outside the writer and applies inside it, so
# its answer (STARTING, from the local backend while a process starts) can
# come after the run's RUNNING event and would set it back.
PROGRESS_ORDER = {S.LAUNCHED: 1, S.STARTING: 2, S.RUNNING: 3}


@dataclass(frozen=True, slots=True)
class Update:
    """A status update of one run from its host manager."""

    state: TaskState
    hostname: str = ""
    message: str = ""
    exit_code: int = 0
    reason: str = ""
    timestamp: float = 0.0
    health: int = 0  # task_pb2.HealthState from a health check; 0: nothing said


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
    if task.terminal:
        return Decision()
    if state == task.state:
        if state == S.RUNNING and update.health and update.health != task.health:
            return Decision({"health": update.health})  # a health check's verdict
        return Decision()
    if state not in TERMINAL_TASK_STATES:
        if not PROGRESS_RULES.get((task.state in STOPPING, state), False):
            return Decision()
        if PROGRESS_ORDER.get(state, 0) < PROGRESS_ORDER.get(task.state, 0):
            return Decision()
        host = update.hostname or task.host
        changes: dict[str, Any] = {
            "state": state, "host": host,
            "message": update.message or (f"running on {host}" if state == S.RUNNING
                                          else task.message)}
        if update.health:
            changes["health"] = update.health
        if state == S.RUNNING and not task.start_time:
            changes["start_time"] = update.timestamp or now
        return Decision(changes, report=state == S.RUNNING)

    why = ending(task, state)
    rule = EXIT_RULES[(task.goal, why, state)]
    max_failures = job.run_config(task).restartPolicy.maxFailures
    again = rule.again == Again.YES or (rule.again == Again.RETRY
                                        and task.failures < max_failures)
    stopped_why = task.message  # "preempted: <the pool and the numbers>", the deadline
    message = (f"{stopped_why}; {update.message}" if rule.keep_why and update.message
               else stopped_why if rule.keep_why else update.message)
    preempted = why == Ending.PREEMPTED
    ended = task.replaced(state=rule.record if not again or rule.again != Again.RETRY
                          else state, message=message, exit_code=update.exit_code,
                          preempted=preempted, completion_time=update.timestamp or now)
    if not again:
        changes = {
            "state": ended.state, "message": message, "exit_code": update.exit_code,
            "preempted": preempted, "completion_time": ended.completion_time,
            "reason": task.reason if why == Ending.DEADLINE else update.reason}
        if rule.again == Again.LATER:  # a service: counted; Input.BACKOFF starts the next
            changes["failures"] = task.failures + 1
        return Decision(changes, ended_run=ended, report=True)
    failures = task.failures + (1 if rule.again == Again.RETRY else 0)
    return Decision({
        "failures": failures, "restart": False, "preempted": False, "run": task.run + 1,
        "version": task.desired or task.version,
        "health": initial_health(job.task_config(task.instance, task.desired)),
        "state": S.INITIALIZED, "host": "", "lease": "", "ports": {},
        "start_time": 0.0, "completion_time": 0.0,
        "message": (f"run {task.run} {stopped_why}" if preempted
                    else f"retry {failures} of {max_failures}" if rule.again == Again.RETRY
                    else "restarting")}, ended_run=ended, report=True, new_run=True)


# --------------------------------------------------------------------------- the other inputs


class Input(enum.Enum):
    """What else happens to a task besides its host manager's status updates."""

    PLACED = "placed"  # resmgr placed the run on a host
    REFUSED = "launch refused"  # the host manager refused the run's launch
    UNKNOWN = "unknown"  # the host manager did not know the run in two reconcile rounds
    STOP = "stop"  # a user stops the task
    START = "start"  # a user starts the task
    RESTART = "restart"  # a user restarts the task
    # A user restarts a task of a service whose sla.maximumUnavailableInstances
    # bounds how many instances may be down at once: a running one is marked,
    # and ROLL takes it down when its turn comes (``rolling_restarts``).
    ROLLING_RESTART = "rolling restart"
    ROLL = "roll"  # the roll timer: a run marked for restart may go down now
    PREEMPT = "preempt"  # resmgr chose the run as a preemption victim
    DEADLINE = "deadline"  # the deadline timer: the run may be past sla.maxRunningTime
    BACKOFF = "backoff"  # the restart timer: an ended service run may run again
    OWNER = "new owner"  # a new owner loaded the shard and resumes the task


class Act(enum.Enum):
    """What the engine carries out (after writing the decision's changes)."""

    NONE = "none"  # nothing to do
    LAUNCH = "launch"  # write LAUNCHING on the placement's host, then launch there
    END = "end"  # the run ends without ever having started: report its end
    KILL = "kill"  # write it stopping, then ask its host manager to kill it
    KILL_AGAIN = "kill again"  # send its kill again (the first may never have gone out)
    REQUEUE = "requeue"  # the same run back to PENDING and to resmgr
    RESEND = "resend"  # hand the same run to resmgr again (it may not have it)
    ENQUEUE = "enqueue"  # hand the run to resmgr (held while maximumRunningInstances is full)
    ASK = "ask"  # ask the host managers whether its launch happened (then UNKNOWN or not)
    NEW_RUN = "new run"  # a new run, INITIALIZED, to resmgr
    MARK = "mark"  # only the goal or the restart mark changes
    GONE = "gone"  # the run ended unseen: decide() its end (KILLED if meant to stop, else LOST)


NOT_PLACED = (S.INITIALIZED, S.PENDING)
RUNNING_STATES = (S.LAUNCHED, S.STARTING, S.RUNNING)
ALL_STATES = (*NOT_PLACED, S.LAUNCHING, *RUNNING_STATES, S.KILLING, S.PREEMPTING,
              S.SUCCEEDED, S.FAILED, S.LOST, S.KILLED)
# A batch task's goal, a service task's, a stopped task's.
GOALS = (S.SUCCEEDED, S.RUNNING, S.KILLED)


def _rule(kind: Input, goal: TaskState, state: TaskState) -> Act:
    """The row of ACT_RULES for (input, goal, current state); the table is
    built from it once, and lookups never call it."""
    ended = state in TERMINAL_TASK_STATES
    on_host = state in ON_HOST_TASK_STATES
    stop = goal == S.KILLED
    if kind == Input.OWNER and ended:
        return Act.NONE
    if kind == Input.PLACED:
        return (Act.END if stop else Act.LAUNCH) if state in NOT_PLACED else Act.NONE
    if kind == Input.REFUSED:  # the run is not on a host
        return Act.NONE if ended else Act.END if stop else (
            Act.REQUEUE if state == S.LAUNCHING else Act.NONE)
    if kind == Input.UNKNOWN:
        return Act.NONE if ended else (
            Act.REQUEUE if state == S.LAUNCHING and not stop else Act.GONE)
    if kind == Input.STOP or (kind == Input.OWNER and stop and state != S.PREEMPTING):
        return Act.MARK if ended else Act.KILL if on_host else Act.END
    if kind == Input.START:
        return Act.NEW_RUN if ended else Act.MARK if stop else Act.NONE
    # Restarting a run that has not started yet changes nothing: it starts
    # with the config it would restart with.
    if kind == Input.RESTART:
        return Act.NEW_RUN if ended else Act.KILL if on_host else Act.NONE
    if kind == Input.ROLLING_RESTART:
        return Act.NEW_RUN if ended else Act.MARK if on_host and not stop else Act.NONE
    if kind == Input.ROLL:
        return Act.KILL if on_host and goal == S.RUNNING and state not in STOPPING else (
            Act.NONE)
    if kind == Input.PREEMPT:
        return (Act.KILL_AGAIN if state == S.PREEMPTING
                else Act.KILL if on_host and state != S.KILLING else Act.NONE)
    if kind == Input.DEADLINE:  # batch only (sla.maxRunningTime)
        return Act.KILL if state == S.RUNNING and goal == S.SUCCEEDED else Act.NONE
    if kind == Input.BACKOFF:
        return Act.NEW_RUN if ended and goal == S.RUNNING else Act.NONE
    # A new owner resumes what the old one left half done.
    return {S.INITIALIZED: Act.ENQUEUE, S.PENDING: Act.RESEND, S.LAUNCHING: Act.ASK,
            S.PREEMPTING: Act.KILL_AGAIN}.get(state, Act.NONE)


# (input, goal, current state) -> act; rows that act on nothing are left out.
ACT_RULES: dict[tuple[Input, TaskState, TaskState], Act] = {
    key: rule for key, rule in (
        (key, _rule(*key))
        for key in itertools.product(Input, GOALS, ALL_STATES))
    if rule != Act.NONE
}

TABLE_SIZE = len(EXIT_RULES) + len(PROGRESS_RULES) + len(ACT_RULES)


@dataclass(slots=True)
class Action:
    """What the engine does for one input: ``act`` after setting ``changes``
    on the task (a dict, as in ``Decision``)."""

    act: Act
    changes: dict[str, Any] = field(default_factory=dict)


NOTHING = Action(Act.NONE)


def initial_health(config: task_pb2.TaskConfig) -> int:
    """A new run's health (Peloton's GetInitialHealthState): unknown until
    checked when it has a health check, else DISABLED."""
    return (task_pb2.HEALTH_UNKNOWN if config.healthCheck.enabled
            else task_pb2.DISABLED)


def task_goal(job: Job) -> TaskState:
    """What a task of ``job`` converges to unless stopped: a service's runs
    forever (RUNNING), a batch task's ends (SUCCEEDED)."""
    return S.RUNNING if runs_until_stopped(job.config) else S.SUCCEEDED


def bounded_restarts(job: Job) -> bool:
    """Whether a restart of ``job`` rolls: a service whose
    sla.maximumUnavailableInstances bounds how many instances are down."""
    return runs_until_stopped(job.config) and job.config.sla.maximumUnavailableInstances > 0


def available(job: Job, task: Task) -> bool:
    """Whether the instance serves: RUNNING and, when it has a health check,
    HEALTHY (Peloton counts an unhealthy or unchecked instance as down)."""
    if task.state != S.RUNNING or task.goal != S.RUNNING:
        return False
    return task.health not in (task_pb2.HEALTH_UNKNOWN, task_pb2.UNHEALTHY)


def rolling_restarts(job: Job) -> list[Task]:
    """The runs marked for restart (``Input.ROLLING_RESTART``) that may go
    down now, in instance order: those already down, then available ones
    while fewer than sla.maximumUnavailableInstances instances are down;
    pure. Each goes through ``respond(..., Input.ROLL, ...)``."""
    marked = [t for t in job.tasks if t.restart and t.goal == S.RUNNING
              and t.state in ON_HOST_TASK_STATES and t.state not in STOPPING]
    if not marked:
        return []
    up = [t for t in marked if available(job, t)]
    down = sum(1 for t in job.tasks if not available(job, t))
    budget = job.config.sla.maximumUnavailableInstances - down
    return [t for t in marked if not available(job, t)] + up[:max(0, budget)]


def past_deadline(job: Job, task: Task, now: float) -> bool:
    limit = job.config.sla.maxRunningTime
    return bool(limit and task.start_time and now - task.start_time >= limit)


def respond(job: Job, task: Task, kind: Input, now: float, detail: str = "") -> Action:
    """What ``kind`` means for ``task``; pure. ``detail`` is the host of a
    placement, why a launch was refused, or why the run was preempted."""
    if kind == Input.DEADLINE and not past_deadline(job, task, now):
        return NOTHING
    if kind == Input.BACKOFF and now < task.completion_time + restart_backoff(task.failures):
        return NOTHING
    if kind == Input.ROLL and not task.restart:
        return NOTHING
    what = ACT_RULES.get((kind, task.goal, task.state), Act.NONE)
    if what == Act.NONE:
        return NOTHING
    changes: dict[str, Any] = {}
    if kind in (Input.STOP, Input.OWNER) and what in (Act.MARK, Act.KILL, Act.END):
        changes.update(goal=S.KILLED, restart=False)
    elif kind == Input.RESTART and what == Act.KILL:
        changes["restart"] = True
    elif kind == Input.ROLLING_RESTART and what == Act.MARK:
        changes.update(restart=True, message=(
            "restart waits its turn: at most "
            f"{job.config.sla.maximumUnavailableInstances} instances down at once "
            "(sla.maximumUnavailableInstances)"))
    if what == Act.LAUNCH:
        changes.update(state=S.LAUNCHING, message=f"launching on {detail}")
    elif what == Act.END:
        changes.update(state=S.KILLED, completion_time=now, message=(
            "stopped before it was launched" if kind == Input.PLACED
            else "stopped" if kind == Input.REFUSED else "stopped before launch"))
    elif what == Act.KILL and kind == Input.PREEMPT:
        changes.update(state=S.PREEMPTING, preempted=True, message=f"preempted: {detail}")
        if job.run_config(task).preemptionPolicy.killOnPreempt:
            changes["goal"] = S.KILLED  # Peloton's kill-on-preempt: not run again
    elif what == Act.KILL and kind == Input.DEADLINE:
        changes.update(goal=S.KILLED, state=S.KILLING, reason=DEADLINE_EXCEEDED, message=(
            f"ran longer than the job's maxRunningTime of {job.config.sla.maxRunningTime} s; "
            "killed"))
    elif what == Act.KILL:  # a stop overrides a preemption in progress: no new run
        changes.update(state=S.KILLING, preempted=False, message=(
            "restarting" if kind in (Input.RESTART, Input.ROLL) else "killing on request"))
    elif what == Act.REQUEUE:
        changes.update(state=S.PENDING, host="", lease="", message=(
            f"launch refused: {detail}" if kind == Input.REFUSED
            else "launch was lost; placing again"))
    elif what == Act.NEW_RUN:
        changes.update(goal=task_goal(job), run=task.run + 1, preempted=False,
                       version=task.desired or task.version,
                       health=initial_health(job.task_config(task.instance, task.desired)),
                       state=S.INITIALIZED, host="", lease="", ports={}, start_time=0.0,
                       completion_time=0.0, message=(
                           f"restarting after {restart_backoff(task.failures):g} s of backoff "
                           f"({task.failures} ends so far)" if kind == Input.BACKOFF
                           else "started on request"))
    elif what == Act.MARK and kind == Input.START:
        changes["goal"] = task_goal(job)
    return Action(what, changes)


def apply(task: Task, changes: dict[str, Any]) -> None:
    """Set a decision's or an action's changes on the task."""
    for name, value in changes.items():
        setattr(task, name, value)


def gone(task: Task, now: float) -> Update:
    """The end of a run its host manager no longer knows (``Act.GONE``): a
    run meant to stop (or preempted) ended as meant; any other was lost."""
    state = S.KILLED if task.goal == S.KILLED or task.state == S.PREEMPTING else S.LOST
    return Update(state, message="the host manager does not know this run", timestamp=now)
