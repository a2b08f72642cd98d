"""Tests of place_batch: first fit per kind, strategies, gangs, constraints, reasons."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from peloton.core.errors import InvalidArgument
from peloton.core.resources import ZERO, Resources
from peloton.placement.engine import place_batch
from peloton.placement.filters import satisfies
from peloton.placement.model import (
    BatchResult,
    Constraint,
    GangRequest,
    HostOffer,
    HostState,
    LabelConstraint,
    TaskRequest,
)


def offer(name: str, cpu: float = 4, memory: float = 1024, disk: float = 1024,
          gpu: float = 0, ports: tuple[int, ...] = (),
          attributes: dict[str, str] | None = None, slack: float = 0.0) -> HostOffer:
    return HostOffer(f"lease-{name}", name, f"agent-{name}", "c1",
                     Resources(cpu, memory, disk, gpu), ports, attributes or {}, slack)


_ids = iter(range(1_000_000))


def task(cpu: float = 1, memory: float = 128, disk: float = 0, gpu: float = 0,
         num_ports: int = 0, constraint: Constraint | None = None,
         labels: tuple[tuple[str, str], ...] = (), job_id: str = "j1",
         revocable: bool = False) -> TaskRequest:
    n = next(_ids)
    return TaskRequest(f"{job_id}-{n}-1", f"{job_id}-{n}", 0, Resources(cpu, memory, disk, gpu),
                       num_ports, constraint, labels, job_id, revocable)


def gang(*tasks: TaskRequest, strategy: str = "pack") -> GangRequest:
    return GangRequest(tuple(tasks), strategy)


def hosts_of(result: BatchResult) -> list[list[str]]:
    return [[p.hostname for p in placed] for placed in result.placed]


@pytest.mark.parametrize(("need", "offers", "want_host", "reason"), [
    (task(cpu=3), [offer("a", cpu=2), offer("b", cpu=4)], "b", "insufficient_cpu"),
    (task(memory=2048), [offer("a", memory=1024), offer("b", memory=4096)], "b",
     "insufficient_memory"),
    (task(disk=2048), [offer("a", disk=1024), offer("b", disk=4096)], "b", "insufficient_disk"),
    (task(gpu=2), [offer("a", gpu=1), offer("b", gpu=2)], "b", "insufficient_gpu"),
    (task(num_ports=2), [offer("a", ports=(1,)), offer("b", ports=(7, 8, 9))], "b",
     "insufficient_ports"),
])
def test_first_fit_per_kind(need: TaskRequest, offers: list[HostOffer], want_host: str,
                            reason: str) -> None:
    result = place_batch([gang(need)], offers)
    assert hosts_of(result) == [[want_host]]
    assert result.failed == []
    assert result.used_leases == {f"lease-{want_host}"}
    assert result.reasons == Counter({reason: 1})


def test_ports_are_assigned_in_order_and_never_twice() -> None:
    result = place_batch([gang(task(num_ports=2), task(num_ports=1)), gang(task(num_ports=1))],
                         [offer("a", cpu=8, ports=(31000, 31001, 31002, 31003))])
    assert [[p.ports for p in placed] for placed in result.placed] == [
        [(31000, 31001), (31002,)], [(31003,)]]
    p = result.placed[0][0]
    assert (p.lease_id, p.hostname, p.agent_id, p.cluster) == ("lease-a", "a", "agent-a", "c1")


def test_pack_fills_one_host_spread_uses_all() -> None:
    offers = [offer("a"), offer("b"), offer("c")]
    packed = place_batch([gang(task(), task(), task(), strategy="pack")], offers)
    assert hosts_of(packed) == [["a", "a", "a"]]
    assert packed.used_leases == {"lease-a"}
    spread = place_batch([gang(task(), task(), task(), strategy="spread")], offers)
    assert sorted(hosts_of(spread)[0]) == ["a", "b", "c"]


def test_pack_is_best_fit_and_spread_worst_fit() -> None:
    offers = [offer("big", cpu=16, memory=4096), offer("small", cpu=2, memory=512)]
    assert hosts_of(place_batch([gang(task(cpu=2, memory=512))], offers)) == [["small"]]
    assert hosts_of(place_batch([gang(task(cpu=2, memory=512), strategy="spread")],
                                offers)) == [["big"]]


def test_spread_job_avoids_hosts_holding_the_same_job() -> None:
    # "a" stays the emptiest host, yet the second task of j1 goes elsewhere.
    offers = [offer("a", cpu=64, memory=65536), offer("b", cpu=4, memory=1024)]
    result = place_batch([gang(task(job_id="j1"), task(job_id="j1"), strategy="spread"),
                          gang(task(job_id="j2"), strategy="spread")], offers)
    assert hosts_of(result) == [["a", "b"], ["a"]]


def test_gang_is_all_or_nothing_and_undo_restores_the_host() -> None:
    offers = [offer("a", cpu=2, ports=(1, 2, 3)), offer("b", cpu=4, gpu=1)]
    three = gang(task(num_ports=1, labels=(("app", "x"),)),
                 task(num_ports=1, labels=(("app", "x"),)),
                 task(num_ports=1, labels=(("app", "x"),)))
    anti = LabelConstraint("task", "app", "x", "eq", 0)
    later = gang(task(cpu=2, num_ports=3, constraint=anti))
    result = place_batch([three, later], offers)
    assert len(result.failed) == 1
    failed_gang, reason = result.failed[0]
    assert failed_gang is three
    assert "gang of 3 tasks" in reason and "2 fitted" in reason
    # Free cpu, all three ports and the task labels were given back.
    assert hosts_of(result) == [["a"]]
    assert result.placed[0][0].ports == (1, 2, 3)
    assert result.used_leases == {"lease-a"}


def test_host_affinity_by_hostname() -> None:
    affinity = LabelConstraint("host", "hostname", "c", "eq", 1)
    offers = [offer("a"), offer("b"), offer("c")]
    result = place_batch([gang(task(constraint=affinity), task(constraint=affinity))], offers)
    assert hosts_of(result) == [["c", "c"]]
    assert result.reasons == Counter({"constraint": 4})


def test_host_attribute_constraint_on_cluster_attribute() -> None:
    in_zone = LabelConstraint("host", "zone", "z2", "eq", 1)
    offers = [offer("a", attributes={"zone": "z1"}), offer("b", attributes={"zone": "z2"})]
    assert hosts_of(place_batch([gang(task(constraint=in_zone))], offers)) == [["b"]]


def test_task_anti_affinity_places_one_per_host() -> None:
    anti = LabelConstraint("task", "app", "web", "eq", 0)
    web = (("app", "web"),)
    offers = [offer("a", cpu=16), offer("b", cpu=16), offer("c", cpu=16)]
    result = place_batch([gang(task(constraint=anti, labels=web)) for _ in range(4)], offers)
    assert sorted(h for placed in hosts_of(result) for h in placed) == ["a", "b", "c"]
    assert len(result.failed) == 1
    assert result.failed[0][1].startswith(
        "no host satisfies constraint task app=web eq 0; 3 hosts leased (constraint 3)")


def test_gpu_hosts_are_kept_for_gpu_tasks() -> None:
    offers = [offer("gpu", cpu=32, gpu=4), offer("cpu", cpu=2)]
    result = place_batch([gang(task(cpu=2)), gang(task(cpu=2)), gang(task(cpu=2, gpu=1))],
                         offers)
    assert hosts_of(result) == [["cpu"], ["gpu"]]
    assert result.failed[0][1].startswith(
        "hosts that fit have GPUs, which are kept for tasks that ask for GPUs; 2 hosts leased")
    assert result.reasons["scarce_gpu"] == 2


def test_failure_reason_names_the_short_kind_and_counts() -> None:
    offers = [offer("a", cpu=4), offer("b", cpu=2), offer("g", cpu=64, gpu=1)]
    result = place_batch([gang(task(cpu=20))], offers)
    assert result.placed == []
    assert result.failed[0][1] == ("no host fits cpu 20 (largest free 4); 3 hosts leased "
                                   "(insufficient_cpu 2, scarce_gpu 1)")
    assert result.reasons == Counter({"insufficient_cpu": 2, "scarce_gpu": 1})
    assert result.used_leases == set()


def test_no_offers() -> None:
    result = place_batch([gang(task())], [])
    assert result.placed == []
    assert "no hosts leased" in result.failed[0][1]


def test_repeated_failures_reuse_the_first_reason() -> None:
    offers = [offer("a", cpu=1)]
    result = place_batch([gang(task(cpu=2)) for _ in range(3)], offers)
    assert len({reason for _, reason in result.failed}) == 1
    assert result.reasons == Counter({"insufficient_cpu": 1})  # scanned once


def test_gangs_keep_input_order_and_empty_gang_is_placed() -> None:
    offers = [offer("a", cpu=2)]
    g1, g2, g3 = gang(task(cpu=1)), gang(), gang(task(cpu=1))
    result = place_batch([g1, g2, g3], offers)
    assert hosts_of(result) == [["a"], [], ["a"]]


def test_max_feasible_bounds_the_scan() -> None:
    # Host "z" at the end fits best, but the scan stops after 2 feasible hosts.
    offers = [offer("a", cpu=8), offer("b", cpu=8), offer("z", cpu=1)]
    assert hosts_of(place_batch([gang(task(cpu=1))], offers, max_feasible=2)) == [["a"]]
    assert hosts_of(place_batch([gang(task(cpu=1))], offers, max_feasible=3)) == [["z"]]
    with pytest.raises(InvalidArgument):
        place_batch([], offers, max_feasible=0)


def test_input_offers_are_not_modified_and_result_is_deterministic() -> None:
    offers = [offer("a", ports=(1, 2)), offer("b")]
    gangs = [gang(task(num_ports=1), task()), gang(task(cpu=4), strategy="spread")]
    first = place_batch(gangs, offers)
    assert offers[0].free == Resources(4, 1024, 1024, 0) and offers[0].ports == (1, 2)
    assert place_batch(gangs, offers) == first


# --- revocable tasks: slack cpu only ------------------------------------------


def test_revocable_tasks_go_only_where_slack_is_and_others_never_use_it() -> None:
    offers = [offer("idle", cpu=4), offer("slack", cpu=0, slack=3),
              offer("little", cpu=4, slack=0.5)]
    revocable = [task(cpu=1, revocable=True) for _ in range(3)]
    result = place_batch([gang(t) for t in revocable] + [gang(task(cpu=4)), gang(task(cpu=1))],
                         offers)
    # Revocable: on the host with slack (not on regular cpu, not on 0.5 of
    # slack); non-revocable: regular cpu only, the slack host has none.
    placed = hosts_of(result)
    assert placed[:3] == [["slack"]] * 3
    assert sorted(h for [h] in placed[3:]) == ["idle", "little"]
    # A fourth revocable task finds no slack left; the reason says so.
    result = place_batch([gang(*revocable), gang(task(cpu=1, revocable=True))], offers)
    assert hosts_of(result) == [["slack"] * 3]
    [(_, reason)] = result.failed
    assert reason == ("no host has 1 slack cpu free for a revocable task (most free slack "
                      "0.5); 3 hosts leased (insufficient_slack_cpu 3)")


def test_a_revocable_gang_that_fails_gives_its_slack_back() -> None:
    offers = [offer("a", cpu=0, memory=300, slack=2)]
    big = gang(task(cpu=1, memory=128, revocable=True), task(cpu=1, memory=256, revocable=True))
    result = place_batch([big, gang(task(cpu=2, memory=256, revocable=True))], offers)
    # The gang's second task is short of memory (regular): undone, and the
    # next gang gets the whole 2 cpus of slack.
    assert hosts_of(result) == [["a"]] and result.failed[0][0] is big
    assert "memory" in result.failed[0][1]


# --- property: invariants for random offers and gangs ----------------------

_offers = st.lists(
    st.builds(
        lambda i, cpu, mem, gpu, nports, rack, slack: HostOffer(
            f"lease-{i}", f"h{i}", f"agent-{i}", "c1", Resources(cpu, mem, 100.0, gpu),
            tuple(range(1000, 1000 + nports)), {"rack": rack}, slack),
        st.integers(0, 10_000), st.sampled_from([0.5, 2.0, 4.0, 8.0]),
        st.sampled_from([128.0, 1024.0, 4096.0]), st.sampled_from([0.0, 0.0, 0.0, 1.0, 2.0]),
        st.integers(0, 6), st.sampled_from(["r1", "r2"]),
        st.sampled_from([0.0, 0.0, 0.5, 2.0, 6.0])),
    min_size=1, max_size=8, unique_by=lambda o: o.lease_id)

_constraints = st.one_of(
    st.none(), st.none(), st.none(),  # mostly unconstrained, so many gangs do get placed
    st.builds(LabelConstraint, st.just("host"), st.just("rack"), st.sampled_from(["r1", "r2"]),
              st.sampled_from(["eq", "lt", "gt"]), st.integers(0, 1)),
    st.builds(LabelConstraint, st.just("task"), st.just("app"), st.sampled_from(["a", "b"]),
              st.sampled_from(["eq", "lt", "gt"]), st.integers(0, 2)),
)

_tasks = st.builds(
    lambda cpu, mem, gpu, ports, constraint, app, job, revocable: task(
        cpu=cpu, memory=mem, disk=10.0, gpu=gpu, num_ports=ports, constraint=constraint,
        labels=(("app", app),), job_id=job, revocable=revocable),
    st.sampled_from([0.5, 1.0, 1.5]), st.sampled_from([64.0, 256.0]),
    st.sampled_from([0.0, 0.0, 0.0, 1.0]), st.integers(0, 2), _constraints,
    st.sampled_from(["a", "b"]), st.sampled_from(["j1", "j2"]), st.booleans())

_gangs = st.lists(
    st.builds(lambda ts, s: GangRequest(tuple(ts), s), st.lists(_tasks, max_size=4),
              st.sampled_from(["pack", "spread"])),
    max_size=8)


@settings(max_examples=300, deadline=None)
@given(_offers, _gangs, st.integers(1, 4))
def test_placement_invariants(offers: list[HostOffer], gangs: list[GangRequest],
                              max_feasible: int) -> None:
    result = place_batch(gangs, offers, max_feasible=max_feasible)
    by_lease = {o.lease_id: o for o in offers}

    # Every gang is either fully placed or fully failed, in input order.
    i = j = 0
    for g in gangs:
        if i < len(result.placed) and tuple(p.task for p in result.placed[i]) == g.tasks:
            i += 1
        else:
            assert j < len(result.failed) and result.failed[j][0] is g
            j += 1
    assert (i, j) == (len(result.placed), len(result.failed))
    assert all(reason for _, reason in result.failed)

    # No host's placed resources exceed its free, nor revocable cpu its slack;
    # no port twice; GPU hosts only for GPU work.
    used: dict[str, Resources] = defaultdict(lambda: ZERO)
    slack: dict[str, float] = defaultdict(float)
    ports: dict[str, list[int]] = defaultdict(list)
    for placed in result.placed:
        for p in placed:
            o = by_lease[p.lease_id]
            assert p.hostname == o.hostname
            need = p.task.resources
            if p.task.revocable:
                slack[p.lease_id] += need.cpu
                need = need._replace(cpu=0.0)
            used[p.lease_id] = used[p.lease_id] + need
            assert len(p.ports) == p.task.num_ports
            ports[p.lease_id].extend(p.ports)
            if o.free.gpu > 0:
                assert p.task.resources.gpu > 0
            c = p.task.constraint
            if isinstance(c, LabelConstraint) and c.kind == "host":
                assert satisfies(HostState.from_offer(o), c)
    for lease, total in used.items():
        assert total.fits_in(by_lease[lease].free), (lease, total)
        assert slack[lease] <= by_lease[lease].slack_cpu + 1e-6, (lease, slack[lease])
    for lease, assigned in ports.items():
        assert len(assigned) == len(set(assigned))
        assert set(assigned) <= set(by_lease[lease].ports)
    assert result.used_leases == set(used)


def test_spread_job() -> None:
    """placementStrategy SPREAD_JOB, from the resmgr task to distinct hosts,
    counting the job's tasks already running on a host; PACK_HOST packs."""
    from peloton.api.private.resmgrsvc import resmgrsvc_pb2 as rpb
    from peloton.api.v0.job import job_pb2
    from peloton.placement.worker import gang_request

    def three(strategy: int) -> list[GangRequest]:
        return [gang_request(rpb.Gang(tasks=[rpb.Task(
            id=f"j1-{i}", jobId="j1", mesosTaskId=f"j1-{i}-1",
            resource=rpb.Resources(cpu=1, memMb=128), placementStrategy=strategy)]))
            for i in range(3)]

    offers = [offer(name, cpu=8) for name in "abcd"]
    spread = place_batch(three(job_pb2.PLACEMENT_STRATEGY_SPREAD_JOB), offers)
    assert len({h for hs in hosts_of(spread) for h in hs}) == 3
    packed = place_batch(three(job_pb2.PLACEMENT_STRATEGY_PACK_HOST), offers)
    assert len({h for hs in hosts_of(packed) for h in hs}) == 1
    # A later batch of the same job: "a" already runs one of j1 (the lease says).
    busy = [HostOffer("lease-a", "a", "agent-a", "c1", Resources(64, 65536, 1024, 0),
                      jobs={"j1": 1}), offer("b", cpu=4)]
    again = place_batch([gang(task(job_id="j1"), strategy="spread")], busy)
    assert hosts_of(again) == [["b"]]


def test_task_anti_affinity_counts_the_jobs_own_instances_and_running_tasks() -> None:
    anti = LabelConstraint("task", "app", "x", "lt", 1)

    def instance() -> GangRequest:
        return gang(task(labels=(("app", "x"),), constraint=anti))

    offers = [offer(name, cpu=8) for name in "abc"]
    result = place_batch([instance() for _ in range(4)], offers)
    assert sorted(h for hs in hosts_of(result) for h in hs) == ["a", "b", "c"]
    [(_, why)] = result.failed
    assert why.startswith("no host satisfies constraint task app=x lt 1; 3 hosts leased")
    # A host where an app=x task runs already (the lease counts it) is out.
    running = [HostOffer("lease-a", "a", "agent-a", "c1", Resources(8, 1024, 1024, 0),
                         task_labels={("app", "x"): 1}), offer("b", cpu=8)]
    assert hosts_of(place_batch([instance()], running)) == [["b"]]
