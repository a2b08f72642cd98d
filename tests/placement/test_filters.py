"""Table-driven tests of each placement filter and scorer."""

from __future__ import annotations

import pytest

from peloton.core.errors import InvalidArgument
from peloton.core.resources import Resources
from peloton.placement.filters import (
    constraint_satisfied,
    describe,
    filters_for,
    first_rejection,
    gpu_scarce,
    has_task_leaf,
    ports_available,
    resources_fit,
    slack_fits,
)
from peloton.placement.model import (
    AndConstraint,
    Constraint,
    GangRequest,
    HostOffer,
    HostState,
    LabelConstraint,
    OrConstraint,
    TaskRequest,
)
from peloton.placement.scorers import pack, spread


def host(cpu: float = 4, memory: float = 1024, disk: float = 1024, gpu: float = 0,
         ports: tuple[int, ...] = (), attributes: dict[str, str] | None = None,
         hostname: str = "h1", scale: Resources | None = None, slack: float = 0.0) -> HostState:
    offer = HostOffer(f"lease-{hostname}", hostname, f"agent-{hostname}", "c1",
                      Resources(cpu, memory, disk, gpu), ports, attributes or {}, slack)
    return HostState.from_offer(offer, scale)


def task(cpu: float = 1, memory: float = 128, disk: float = 0, gpu: float = 0,
         num_ports: int = 0, constraint: Constraint | None = None,
         labels: tuple[tuple[str, str], ...] = (), job_id: str = "j1",
         task_id: str = "j1-0", revocable: bool = False) -> TaskRequest:
    return TaskRequest(f"{task_id}-1", task_id, 0, Resources(cpu, memory, disk, gpu),
                       num_ports, constraint, labels, job_id, revocable)


def revocable(cpu: float = 1, memory: float = 128, disk: float = 0,
              gpu: float = 0) -> TaskRequest:
    return task(cpu, memory, disk, gpu, revocable=True)


def label(kind: str, key: str, value: str, condition: str, requirement: int) -> LabelConstraint:
    return LabelConstraint(kind, key, value, condition, requirement)


@pytest.mark.parametrize(("h", "t", "want"), [
    (host(), task(), None),
    (host(cpu=4), task(cpu=4), None),
    (host(cpu=1.0), task(cpu=0.1 * 10), None),  # float sums compare with epsilon
    (host(cpu=4), task(cpu=4.5), "insufficient_cpu"),
    (host(memory=100), task(memory=128), "insufficient_memory"),
    (host(disk=10), task(disk=11), "insufficient_disk"),
    (host(gpu=1), task(gpu=2), "insufficient_gpu"),
    (host(cpu=0, memory=0), task(cpu=1, memory=1), "insufficient_cpu"),  # first kind short
])
def test_resources_fit(h: HostState, t: TaskRequest, want: str | None) -> None:
    assert resources_fit(h, t) == want


@pytest.mark.parametrize(("h", "t", "want"), [
    # Revocable: cpu from slack only, regular free cpu does not count.
    (host(cpu=4, slack=0), revocable(cpu=1), "insufficient_slack_cpu"),
    (host(cpu=0, slack=2), revocable(cpu=2), None),
    (host(cpu=0, slack=1.0), revocable(cpu=0.1 * 10), None),  # epsilon
    (host(cpu=8, slack=1), revocable(cpu=1.5), "insufficient_slack_cpu"),
    # ... memory, disk and gpu from the regular free resources.
    (host(slack=4, memory=100), revocable(memory=128), "insufficient_memory"),
    (host(slack=4, disk=10), revocable(disk=11), "insufficient_disk"),
    (host(slack=4, gpu=0), revocable(gpu=1), "insufficient_gpu"),
    (host(cpu=0, slack=0, memory=0), revocable(cpu=1, memory=1), "insufficient_slack_cpu"),
    # Non-revocable tasks are resources_fit's: this filter passes them.
    (host(cpu=0, slack=0), task(cpu=1), None),
])
def test_slack_fits(h: HostState, t: TaskRequest, want: str | None) -> None:
    assert slack_fits(h, t) == want


@pytest.mark.parametrize(("h", "t", "want"), [
    # A non-revocable task never uses slack, however much there is.
    (host(cpu=0, slack=8), task(cpu=1), "insufficient_cpu"),
    (host(cpu=1, slack=8), task(cpu=1), None),
    # A revocable task is checked against slack, not regular cpu.
    (host(cpu=8, slack=0), revocable(cpu=1), "insufficient_slack_cpu"),
    (host(cpu=0, slack=1), revocable(cpu=1), None),
])
def test_each_task_runs_the_resource_filter_of_its_kind(h: HostState, t: TaskRequest,
                                                        want: str | None) -> None:
    assert first_rejection(h, t) == want


def test_revocable_tasks_take_slack_and_give_it_back() -> None:
    h = host(cpu=2, memory=1024, slack=3)
    t = revocable(cpu=2, memory=512)
    h.take(t)
    assert (h.slack, h.free.cpu, h.free.memory) == (1.0, 2.0, 512.0)
    assert slack_fits(h, revocable(cpu=2)) == "insufficient_slack_cpu"
    h.give_back(t)
    assert (h.slack, h.free.cpu, h.free.memory) == (3.0, 2.0, 1024.0)


def test_resources_fit_sees_batch_usage() -> None:
    h = host(cpu=4)
    h.take(task(cpu=3))
    assert resources_fit(h, task(cpu=1)) is None
    assert resources_fit(h, task(cpu=2)) == "insufficient_cpu"


@pytest.mark.parametrize(("ports", "taken", "need", "want"), [
    ((), 0, 0, None),
    ((), 0, 1, "insufficient_ports"),
    ((31000, 31001), 0, 2, None),
    ((31000, 31001), 1, 2, "insufficient_ports"),
    ((31000, 31001, 31002), 1, 2, None),
])
def test_ports_available(ports: tuple[int, ...], taken: int, need: int,
                         want: str | None) -> None:
    h = host(ports=ports)
    if taken:
        h.take(task(num_ports=taken))
    assert ports_available(h, task(num_ports=need)) == want


@pytest.mark.parametrize(("host_gpu", "task_gpu", "want"), [
    (0, 0, None),
    (2, 1, None),
    (2, 0, "scarce_gpu"),
    (0, 1, None),  # resources_fit rejects it, not this filter
])
def test_gpu_scarce(host_gpu: float, task_gpu: float, want: str | None) -> None:
    assert gpu_scarce(host(gpu=host_gpu), task(gpu=task_gpu)) == want


def test_gpu_host_stays_scarce_after_its_gpus_are_used() -> None:
    h = host(gpu=1)
    h.take(task(gpu=1))
    assert gpu_scarce(h, task()) == "scarce_gpu"


RACK = {"rack": "r1", "zone": "z1"}


@pytest.mark.parametrize(("constraint", "placed_labels", "want"), [
    (None, [], None),
    # HOST labels: attributes plus a synthetic hostname.
    (label("host", "hostname", "h1", "eq", 1), [], None),
    (label("host", "hostname", "h2", "eq", 1), [], "constraint"),
    (label("host", "rack", "r1", "eq", 1), [], None),
    (label("host", "rack", "r2", "eq", 1), [], "constraint"),
    (label("host", "rack", "r2", "eq", 0), [], None),
    (label("host", "rack", "r1", "lt", 1), [], "constraint"),
    (label("host", "rack", "r1", "gt", 0), [], None),
    # TASK labels: tasks this batch put on the host.
    (label("task", "app", "web", "eq", 0), [], None),
    (label("task", "app", "web", "eq", 0), [("app", "web")], "constraint"),
    (label("task", "app", "web", "eq", 0), [("app", "db")], None),
    (label("task", "app", "web", "lt", 2), [("app", "web")], None),
    (label("task", "app", "web", "lt", 2), [("app", "web"), ("app", "web")], "constraint"),
    (label("task", "app", "web", "gt", 0), [], "constraint"),
    (label("task", "app", "web", "gt", 0), [("app", "web")], None),
    # AND / OR, nested.
    (AndConstraint((label("host", "rack", "r1", "eq", 1),
                    label("host", "zone", "z1", "eq", 1))), [], None),
    (AndConstraint((label("host", "rack", "r1", "eq", 1),
                    label("host", "zone", "z2", "eq", 1))), [], "constraint"),
    (OrConstraint((label("host", "rack", "r9", "eq", 1),
                   label("host", "zone", "z1", "eq", 1))), [], None),
    (OrConstraint((label("host", "rack", "r9", "eq", 1),
                   label("host", "zone", "z9", "eq", 1))), [], "constraint"),
    (AndConstraint((OrConstraint((label("host", "hostname", "h9", "eq", 1),
                                  label("host", "rack", "r1", "eq", 1))),
                    label("task", "app", "web", "eq", 0))), [("app", "web")], "constraint"),
    (AndConstraint(()), [], None),
    (OrConstraint(()), [], "constraint"),
])
def test_constraint_satisfied(constraint: Constraint | None,
                              placed_labels: list[tuple[str, str]], want: str | None) -> None:
    h = host(attributes=RACK)
    for lab in placed_labels:
        h.take(task(cpu=0, memory=0, labels=(lab,)))
    assert constraint_satisfied(h, task(constraint=constraint)) == want


def test_task_labels_are_counted_back_on_give_back() -> None:
    h = host()
    t = task(labels=(("app", "web"),))
    h.take(t)
    anti = task(constraint=label("task", "app", "web", "eq", 0))
    assert constraint_satisfied(h, anti) == "constraint"
    h.give_back(t)
    assert constraint_satisfied(h, anti) is None


@pytest.mark.parametrize(("h", "t", "want"), [
    (host(), task(), None),
    (host(cpu=0), task(num_ports=1), "insufficient_cpu"),
    (host(gpu=1), task(num_ports=1), "insufficient_ports"),
    (host(gpu=1), task(), "scarce_gpu"),
    (host(gpu=1), task(gpu=1, constraint=label("host", "hostname", "x", "eq", 1)), "constraint"),
])
def test_filters_run_in_order(h: HostState, t: TaskRequest, want: str | None) -> None:
    assert first_rejection(h, t) == want
    # Skipping the filters that cannot reject the task changes nothing.
    assert first_rejection(h, t, filters_for(t, any_gpu_host=h.has_gpu)) == want


def test_filters_for_skips_what_cannot_reject() -> None:
    assert filters_for(task()) == (resources_fit, gpu_scarce)
    assert filters_for(revocable(), any_gpu_host=False) == (slack_fits,)
    assert filters_for(task(), any_gpu_host=False) == (resources_fit,)
    assert filters_for(task(gpu=1, num_ports=1, constraint=AndConstraint(()))) == (
        resources_fit, ports_available, constraint_satisfied)


def test_describe_and_task_leaf() -> None:
    c = AndConstraint((label("host", "hostname", "h1", "eq", 1),
                       OrConstraint((label("task", "app", "web", "lt", 2),))))
    assert describe(c) == "(host hostname=h1 eq 1 and (task app=web lt 2))"
    assert has_task_leaf(c)
    assert not has_task_leaf(label("host", "rack", "r1", "eq", 1))
    assert not has_task_leaf(None)


@pytest.mark.parametrize("bad", [
    lambda: LabelConstraint("node", "k", "v", "eq", 1),
    lambda: LabelConstraint("host", "k", "v", "ge", 1),
    lambda: GangRequest((), "random"),
    lambda: task(num_ports=-1),
    lambda: task(cpu=-1),
])
def test_invalid_model_values(bad: object) -> None:
    with pytest.raises(InvalidArgument):
        bad()  # type: ignore[operator]


# Scorers compare free-after-placing as a fraction of the batch's largest free.
SCALE = Resources(8, 1000, 1000, 0)


@pytest.mark.parametrize(("h", "t", "want_pack", "want_spread"), [
    # Leaves 4/8 cpu, 500/1000 mem, 500/1000 disk free: half.
    (host(cpu=8, memory=1000, disk=1000, scale=SCALE), task(cpu=4, memory=500, disk=500),
     50.0, 50.5),
    # Exactly fills the host.
    (host(cpu=4, memory=500, disk=500, scale=SCALE), task(cpu=4, memory=500, disk=500),
     100.0, 1.0),
    # Places nothing on the largest host.
    (host(cpu=8, memory=1000, disk=1000, scale=SCALE), task(cpu=0, memory=0, disk=0),
     0.0, 100.0),
    # Kinds with scale 0 are ignored.
    (host(cpu=2, memory=0, disk=0, scale=Resources(4, 0, 0, 0)), task(cpu=1, memory=0),
     75.0, 25.75),
])
def test_pack_and_spread(h: HostState, t: TaskRequest, want_pack: float,
                         want_spread: float) -> None:
    assert pack(h, t) == pytest.approx(want_pack)
    assert spread(h, t) == pytest.approx(want_spread)


def test_pack_prefers_fuller_host_and_spread_emptier() -> None:
    small = host(cpu=2, memory=256, disk=0, scale=Resources(8, 1024, 0, 0), hostname="small")
    big = host(cpu=8, memory=1024, disk=0, scale=Resources(8, 1024, 0, 0), hostname="big")
    t = task(cpu=1, memory=128)
    assert pack(small, t) > pack(big, t)
    assert spread(big, t) > spread(small, t)


def test_revocable_scorers_count_slack_for_cpu() -> None:
    from peloton.placement.scorers import REVOCABLE_SCORERS

    scale = Resources(8, 1000, 0, 0)
    lots = host(cpu=0, memory=1000, slack=8, scale=scale, hostname="lots")
    some = host(cpu=8, memory=1000, slack=2, scale=scale, hostname="some")
    t = revocable(cpu=2, memory=0)
    # pack leaves the least slack (fills "some"), spread the most.
    assert REVOCABLE_SCORERS["pack"](some, t) > REVOCABLE_SCORERS["pack"](lots, t)
    assert REVOCABLE_SCORERS["spread"](lots, t) > REVOCABLE_SCORERS["spread"](some, t)
    assert REVOCABLE_SCORERS["pack"](some, t) == pytest.approx(50.0)  # 0/8 cpu, 1000/1000 mem


def test_spread_scores_below_one_on_hosts_with_the_same_job_less_for_more() -> None:
    h = host(cpu=8, memory=1024)
    h.take(task(cpu=1, job_id="j1"))
    assert spread(h, task(job_id="j1")) == 0.5
    h.take(task(cpu=1, job_id="j1"))
    assert spread(h, task(job_id="j1")) == 1 / 3
    assert spread(h, task(job_id="j2")) >= 1.0
    assert spread(h, task(job_id="")) > 0.0  # no job id, no SPREAD_JOB rule
