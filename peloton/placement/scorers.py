"""Placement scorers: ``(host_state, task) -> float`` in 0..100, higher is better.

Scorers only see hosts that passed every filter. They compare hosts by what
would be free *after* placing the task, each kind as a fraction of the
batch's largest free amount of that kind (``HostState.scale``), so a host
with 4 free cpus and one with 64 are on the same scale. Kinds no offer has
(scale 0, typically gpu) are ignored. For a revocable task the cpu that
counts is the host's free slack cpu (what it takes from), on the same scale.
"""

from __future__ import annotations

from collections.abc import Callable

from peloton.placement.model import HostState, TaskRequest

Scorer = Callable[[HostState, TaskRequest], float]


def _fraction_after(host: HostState, task: TaskRequest, cpu: float) -> float:
    w = host.weights
    if not (w[0] or w[1] or w[2] or w[3]):
        return 1.0
    free, need = host.free, task.resources
    # Hot path: written out, not a loop over kinds (it runs per feasible host per task).
    fraction = ((cpu - need.cpu) * w[0] + (free.memory - need.memory) * w[1]
                + (free.disk - need.disk) * w[2] + (free.gpu - need.gpu) * w[3])
    return 0.0 if fraction < 0.0 else 1.0 if fraction > 1.0 else fraction


def free_fraction_after(host: HostState, task: TaskRequest) -> float:
    """Mean over kinds of (free after placing / batch scale), in 0..1.

    1.0 when no kind has a non-zero scale (nothing to compare).
    """
    return _fraction_after(host, task, host.free.cpu)


def slack_fraction_after(host: HostState, task: TaskRequest) -> float:
    """``free_fraction_after`` for a revocable task: slack cpu left after
    placing it stands for the cpu kind."""
    return _fraction_after(host, task, host.slack)


def pack(host: HostState, task: TaskRequest) -> float:
    """Prefer the host left with the LEAST free resources (bin packing, best fit).

    Peloton's default PACK: fill hosts before starting new ones, which keeps
    whole hosts free for big tasks.
    """
    return 100.0 * (1.0 - free_fraction_after(host, task))


def spread(host: HostState, task: TaskRequest) -> float:
    """Prefer the host left with the MOST free resources (worst fit).

    SPREAD_JOB: a host that already holds n > 0 of the job's tasks (running,
    or placed by this batch) scores below 1, less for larger n, and every
    other host at least 1, so a job's tasks land on distinct hosts while
    such hosts are feasible, then on the least used (a preference, not a
    filter; a TASK anti-affinity constraint is the rule).
    """
    if task.job_id and (n := host.jobs.get(task.job_id, 0)) > 0:
        return 1.0 / (1.0 + n)
    return 1.0 + 99.0 * free_fraction_after(host, task)


def pack_slack(host: HostState, task: TaskRequest) -> float:
    """``pack`` for revocable tasks: the host left with the least slack."""
    return 100.0 * (1.0 - slack_fraction_after(host, task))


def spread_slack(host: HostState, task: TaskRequest) -> float:
    """``spread`` for revocable tasks: the host left with the most slack."""
    if task.job_id and (n := host.jobs.get(task.job_id, 0)) > 0:
        return 1.0 / (1.0 + n)
    return 1.0 + 99.0 * slack_fraction_after(host, task)


SCORERS: dict[str, Scorer] = {"pack": pack, "spread": spread}
REVOCABLE_SCORERS: dict[str, Scorer] = {"pack": pack_slack, "spread": spread_slack}
"""The scorer of each strategy for revocable tasks (chosen once per task)."""
