"""The host/lease pool: filters and counts, leases, launches, ports, expiry, and
the never-overcommitted invariant under random operation sequences."""

from __future__ import annotations

import pytest
from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from peloton.core.errors import FailedPrecondition, InvalidArgument, NotFound
from peloton.core.resources import EPSILON, ZERO, Resources
from peloton.hostmgr.hostpool import (
    DOWN,
    DRAINING,
    INSUFFICIENT_OFFER_RESOURCES,
    MATCH,
    MAX_LEASE_PORTS,
    MISMATCH_PORTS,
    MISMATCH_STATUS,
    UP,
    HostPool,
    HostSpec,
)

BIG = Resources(cpu=8, memory=16384, disk=100000, gpu=0)
TTL = 60.0


def spec(name: str, capacity: Resources = BIG, ports: tuple[int, int] = (31000, 31009),
         **attributes: str) -> HostSpec:
    return HostSpec(hostname=name, agent_id=f"agent-{name}", capacity=capacity, ports=ports,
                    attributes=attributes, cluster="c1")


def pool_of(*specs: HostSpec) -> HostPool:
    pool = HostPool()
    for s in specs:
        pool.add_host(s)
    return pool


def test_empty_pool_acquires_nothing():
    assert HostPool().acquire(Resources(cpu=1), 0, 5, now=0, lease_ttl=TTL) == ([], {})


@pytest.mark.parametrize(
    ("minimum", "num_ports", "max_hosts", "expected_hosts", "expected_counts"),
    [
        # Everything fits: stop after max_hosts matches.
        (Resources(cpu=1), 0, 2, ["a", "b"], {MATCH: 2}),
        (Resources(cpu=1), 0, 10, ["a", "b", "c", "small"], {MATCH: 4}),
        # Resources filter out the small host.
        (Resources(cpu=4), 0, 10, ["a", "b", "c"], {MATCH: 3, INSUFFICIENT_OFFER_RESOURCES: 1}),
        (Resources(memory=20000), 0, 10, [], {INSUFFICIENT_OFFER_RESOURCES: 4}),
        # Ports: the small host has only 2 ports.
        (Resources(cpu=1), 3, 10, ["a", "b", "c"], {MATCH: 3, MISMATCH_PORTS: 1}),
        (Resources(cpu=1), 11, 10, [], {MISMATCH_PORTS: 4}),
        # Resources are checked before ports: each host counted once.
        (Resources(cpu=4), 3, 10, ["a", "b", "c"], {MATCH: 3, INSUFFICIENT_OFFER_RESOURCES: 1}),
        # Epsilon: 0.1 * 10 cpu fits a 1-cpu host.
        (Resources(cpu=sum([0.1] * 10)), 0, 10, ["a", "b", "c", "small"], {MATCH: 4}),
    ],
)
def test_acquire_filters_and_counts(minimum, num_ports, max_hosts, expected_hosts,
                                    expected_counts):
    pool = pool_of(spec("a"), spec("b"), spec("c"),
                   spec("small", Resources(cpu=1, memory=1024, disk=1000), ports=(40000, 40001)))
    leases, counts = pool.acquire(minimum, num_ports, max_hosts, now=0, lease_ttl=TTL)
    assert [lease.hostname for lease in leases] == expected_hosts
    assert counts == expected_counts


def test_leased_hosts_are_not_offered_again():
    pool = pool_of(spec("a"), spec("b"), spec("c"))
    first, _ = pool.acquire(Resources(cpu=1), 0, 2, now=0, lease_ttl=TTL)
    second, counts = pool.acquire(Resources(cpu=1), 0, 3, now=1, lease_ttl=TTL)
    assert [lease.hostname for lease in second] == ["c"]
    assert counts == {MATCH: 1, MISMATCH_STATUS: 2}
    assert {lease.hostname for lease in first}.isdisjoint(lease.hostname for lease in second)
    third, counts = pool.acquire(Resources(cpu=1), 0, 3, now=2, lease_ttl=TTL)
    assert third == [] and counts == {MISMATCH_STATUS: 3}
    assert all(view.leased for view in pool.hosts())


def test_lease_contents_and_ids_are_deterministic():
    pool = pool_of(spec("a", ports=(31000, 31999), zone="z1"))
    pool.launch(pool.acquire(ZERO, 0, 1, now=0, lease_ttl=TTL)[0][0].lease_id,
                [("t1", Resources(cpu=2, memory=1000), [31000, 31002])], now=0)
    [lease], _ = pool.acquire(Resources(cpu=1), 2, 1, now=5, lease_ttl=TTL)
    assert lease.lease_id == "a-2"
    assert (lease.hostname, lease.agent_id, lease.cluster) == ("a", "agent-a", "c1")
    assert lease.free == Resources(cpu=6, memory=15384, disk=100000)
    assert lease.ports[:3] == (31001, 31003, 31004)
    assert len(lease.ports) == MAX_LEASE_PORTS
    assert lease.attributes == {"zone": "z1"}
    assert lease.expires == 5 + TTL
    assert pool.lease("a-2") == lease


def test_scan_is_bounded_and_rotates():
    pool = pool_of(*(spec(f"h{i}") for i in range(6)))
    first, counts = pool.acquire(ZERO, 0, 2, now=0, lease_ttl=TTL)
    assert [x.hostname for x in first] == ["h0", "h1"] and counts == {MATCH: 2}
    pool.release([x.lease_id for x in first])
    # The next scan starts after the last host examined.
    second, counts = pool.acquire(ZERO, 0, 2, now=0, lease_ttl=TTL)
    assert [x.hostname for x in second] == ["h2", "h3"] and counts == {MATCH: 2}
    pool.release([x.lease_id for x in second])
    third, _ = pool.acquire(ZERO, 0, 3, now=0, lease_ttl=TTL)
    assert [x.hostname for x in third] == ["h4", "h5", "h0"]


def test_seeded_start_is_deterministic():
    def hosts_for(seed: int) -> list[str]:
        pool = pool_of(*(spec(f"h{i}") for i in range(50)))
        return [x.hostname for x in pool.acquire(ZERO, 0, 3, now=0, lease_ttl=TTL, rng_seed=seed)[0]]

    assert hosts_for(7) == hosts_for(7)
    assert len({tuple(hosts_for(seed)) for seed in range(10)}) > 1


@pytest.mark.parametrize(("max_hosts", "num_ports"), [(0, 0), (-1, 0), (1, -1)])
def test_acquire_rejects_bad_arguments(max_hosts, num_ports):
    with pytest.raises(InvalidArgument):
        pool_of(spec("a")).acquire(ZERO, num_ports, max_hosts, now=0, lease_ttl=TTL)


def test_launch_consumes_the_lease_and_allocates():
    pool = pool_of(spec("a"))
    [lease], _ = pool.acquire(Resources(cpu=1), 1, 1, now=0, lease_ttl=TTL)
    pool.launch(lease.lease_id, [("t1", Resources(cpu=1, memory=100), [31000]),
                                 ("t2", Resources(cpu=2, memory=100), [])], now=1)
    view = pool.host("a")
    assert view is not None
    assert view.allocated == Resources(cpu=3, memory=200)
    assert view.free == Resources(cpu=5, memory=16184, disk=100000)
    assert (view.tasks, view.leased, view.free_ports) == (2, False, 9)
    assert pool.host_of("t1") == "a" and pool.host_of("t2") == "a"
    assert pool.lease(lease.lease_id) is None
    # Another jobmgr shard's part of the same placement still launches on
    # the used lease while nobody else holds the host...
    pool.launch(lease.lease_id, [("t3", Resources(cpu=1), [])], now=1)
    # ...and the host is offered again, with what is left.
    [again], _ = pool.acquire(Resources(cpu=1), 0, 1, now=2, lease_ttl=TTL)
    assert again.free.cpu == 4 and 31000 not in again.ports
    # Once someone else leases the host, the used lease is no good.
    with pytest.raises(FailedPrecondition, match=lease.lease_id):
        pool.launch(lease.lease_id, [("t4", Resources(cpu=1), [])], now=2)


def test_relaunch_of_known_tasks_is_skipped():
    pool = pool_of(spec("a", Resources(cpu=2)))
    [lease], _ = pool.acquire(ZERO, 0, 1, now=0, lease_ttl=TTL)
    pool.launch(lease.lease_id, [("t1", Resources(cpu=2), [31000])], now=0)
    [lease], _ = pool.acquire(ZERO, 0, 1, now=0, lease_ttl=TTL)
    # Same task, same port, full host: no error and no double allocation.
    pool.launch(lease.lease_id, [("t1", Resources(cpu=2), [31000])], now=0)
    view = pool.host("a")
    assert view is not None and view.allocated == Resources(cpu=2) and view.tasks == 1


@pytest.mark.parametrize(
    ("tasks", "match"),
    [
        ([("t1", Resources(cpu=9), [])], "cpu 9 > 8"),
        ([("t1", Resources(cpu=5), []), ("t2", Resources(cpu=4), [])], "cpu 9 > 8"),
        ([("t1", Resources(gpu=1), [])], "gpu"),
        ([("t1", Resources(cpu=1), [30999])], "port 30999"),
        ([("t1", Resources(cpu=1), [31010])], "port 31010"),
        ([("t1", Resources(cpu=1), [31005]), ("t2", Resources(cpu=1), [31005])], "port 31005"),
        ([("t1", Resources(cpu=1), [31001])], "port 31001"),  # used by "old"
        ([("elsewhere", Resources(cpu=1), [])], "host b"),
    ],
)
def test_bad_launch_changes_nothing(tasks, match):
    pool = pool_of(spec("a"), spec("b"))
    leases, _ = pool.acquire(ZERO, 0, 2, now=0, lease_ttl=TTL)
    pool.launch(leases[0].lease_id, [("old", Resources(cpu=0), [31001])], now=0)
    pool.launch(leases[1].lease_id, [("elsewhere", Resources(cpu=1), [])], now=0)
    [lease], _ = pool.acquire(ZERO, 0, 1, now=0, lease_ttl=TTL)
    assert lease.hostname == "a"
    before = pool.hosts()
    with pytest.raises(InvalidArgument, match=match):
        pool.launch(lease.lease_id, tasks, now=0)
    assert pool.hosts() == before
    assert pool.lease(lease.lease_id) == lease
    assert pool.host_of("t1") is None


def test_launch_on_expired_lease_fails():
    pool = pool_of(spec("a"))
    [lease], _ = pool.acquire(ZERO, 0, 1, now=0, lease_ttl=10)
    with pytest.raises(FailedPrecondition, match=lease.lease_id):
        pool.launch(lease.lease_id, [("t1", Resources(cpu=1), [])], now=10)
    with pytest.raises(FailedPrecondition, match="nope"):
        pool.launch("nope", [], now=0)
    assert pool.host_of("t1") is None


def test_task_ended_frees_resources_and_ports_idempotently():
    pool = pool_of(spec("a"))
    [lease], _ = pool.acquire(ZERO, 0, 1, now=0, lease_ttl=TTL)
    pool.launch(lease.lease_id, [("t1", Resources(cpu=0.1, memory=1), [31000, 31001]),
                                 ("t2", Resources(cpu=0.2, memory=2), [31002])], now=0)
    pool.task_ended("t1")
    pool.task_ended("t1")
    pool.task_ended("never-launched")
    view = pool.host("a")
    assert view is not None and view.tasks == 1 and view.free_ports == 9
    assert pool.host_of("t1") is None
    pool.task_ended("t2")
    view = pool.host("a")
    assert view is not None and view.allocated == ZERO and view.free_ports == 10


def test_expiry():
    pool = pool_of(spec("a"), spec("b"), spec("c"))
    early, _ = pool.acquire(ZERO, 0, 2, now=0, lease_ttl=10)
    late, _ = pool.acquire(ZERO, 0, 1, now=5, lease_ttl=10)
    assert pool.expire(9.99) == []
    assert pool.expire(10) == [x.lease_id for x in early]
    assert pool.expire(10) == []
    assert [v.leased for v in pool.hosts()] == [False, False, True]
    assert pool.expire(15) == [late[0].lease_id]


def test_acquire_treats_expired_leases_as_free():
    pool = pool_of(spec("a"))
    [old], _ = pool.acquire(ZERO, 0, 1, now=0, lease_ttl=10)
    [new], counts = pool.acquire(ZERO, 0, 1, now=10, lease_ttl=10)
    assert counts == {MATCH: 1} and new.lease_id != old.lease_id
    assert pool.lease(old.lease_id) is None
    with pytest.raises(FailedPrecondition):
        pool.launch(old.lease_id, [], now=10)


def test_release_is_idempotent_and_ignores_unknown_ids():
    pool = pool_of(spec("a"), spec("b"))
    leases, _ = pool.acquire(ZERO, 0, 2, now=0, lease_ttl=TTL)
    ids = [x.lease_id for x in leases]
    pool.release([*ids, "unknown"])
    pool.release(ids)
    assert not any(v.leased for v in pool.hosts())
    again, _ = pool.acquire(ZERO, 0, 2, now=0, lease_ttl=TTL)
    assert len(again) == 2
    # Releasing a consumed lease does not free the host's new lease.
    pool.launch(again[0].lease_id, [], now=0)
    pool.release([again[0].lease_id])
    assert pool.lease(again[1].lease_id) is not None


def test_remove_host_returns_its_tasks_and_drops_its_lease():
    pool = pool_of(spec("a"), spec("b"))
    leases, _ = pool.acquire(ZERO, 0, 2, now=0, lease_ttl=TTL)
    pool.launch(leases[0].lease_id, [("t1", Resources(cpu=1), []), ("t2", ZERO, [])], now=0)
    [lease], _ = pool.acquire(ZERO, 0, 1, now=0, lease_ttl=TTL)
    assert lease.hostname == "a"
    assert sorted(pool.remove_host("a")) == ["t1", "t2"]
    assert pool.remove_host("a") == []
    assert pool.host_of("t1") is None and pool.lease(lease.lease_id) is None
    pool.release([lease.lease_id])
    pool.task_ended("t1")
    assert [v.spec.hostname for v in pool.hosts()] == ["b"]


def test_add_host_again_replaces_spec_and_keeps_tasks():
    pool = pool_of(spec("a"))
    [lease], _ = pool.acquire(ZERO, 0, 1, now=0, lease_ttl=TTL)
    pool.launch(lease.lease_id, [("t1", Resources(cpu=2), [])], now=0)
    pool.add_host(spec("a", Resources(cpu=1)))
    view = pool.host("a")
    assert view is not None and view.tasks == 1 and view.free == ZERO
    assert len(pool.hosts()) == 1
    assert pool.acquire(Resources(cpu=0.5), 0, 1, now=0, lease_ttl=TTL)[1] == {
        INSUFFICIENT_OFFER_RESOURCES: 1}


def test_add_host_rejects_bad_ports():
    with pytest.raises(InvalidArgument):
        HostPool().add_host(spec("a", ports=(65000, 70000)))


def test_capacity():
    pool = pool_of(spec("a", Resources(cpu=8, memory=100)),
                   spec("b", Resources(cpu=2, memory=500, gpu=1)))
    assert HostPool().capacity() == (ZERO, ZERO, ZERO, 0)
    [lease], _ = pool.acquire(Resources(gpu=1), 0, 1, now=0, lease_ttl=TTL)
    pool.launch(lease.lease_id, [("t1", Resources(cpu=1, gpu=1), [])], now=0)
    physical, allocated, largest, hosts = pool.capacity()
    assert physical == Resources(cpu=10, memory=600, gpu=1)
    assert allocated == Resources(cpu=1, gpu=1)
    assert largest == Resources(cpu=8, memory=500, gpu=1)
    assert hosts == 2


# -- slack --------------------------------------------------------------------


def test_slack_is_allocated_but_idle_cpu_and_revocable_tasks_use_only_that():
    pool = pool_of(spec("a", Resources(cpu=8, memory=1000)))
    assert pool.slack() == (0.0, 0.0)
    [lease], _ = pool.acquire(Resources(cpu=4), 0, 1, now=0, lease_ttl=TTL)
    pool.launch(lease.lease_id, [("busy", Resources(cpu=4, memory=100), [])], now=0)
    # Until measured, a task counts as using all its cpu: no slack.
    assert pool.slack() == (0.0, 0.0)
    pool.set_usage([("busy", 1.0)])
    assert pool.slack() == (3.0, 0.0)
    # Regular free cpu (4) is no slack; a revocable lease sees the 3 idle cpus.
    [lease], counts = pool.acquire(None, 0, 1, now=1, lease_ttl=TTL,
                                   slack_minimum=Resources(cpu=2, memory=100))
    assert counts == {MATCH: 1} and lease.slack == 3.0 and lease.free.cpu == 4.0
    pool.launch(lease.lease_id, [("rev", Resources(cpu=2, memory=100), [])], now=1,
                revocable={"rev"})
    view = pool.host("a")
    assert view is not None
    # Its cpu is lent from slack; its memory is regular.
    assert view.allocated == Resources(cpu=4, memory=200) and view.lent == 2.0
    assert pool.slack() == (3.0, 2.0)
    # Only 1 slack cpu is free now: a revocable task of 2 is refused at launch...
    [lease], _ = pool.acquire(Resources(cpu=1), 0, 1, now=2, lease_ttl=TTL)
    assert lease.slack == 1.0
    with pytest.raises(InvalidArgument, match="need 2 cpu of slack; host a has 1 slack"):
        pool.launch(lease.lease_id, [("rev2", Resources(cpu=2), [])], now=2,
                    revocable={"rev2"})
    # ... and not leased for revocable work either.
    pool.release([lease.lease_id])
    assert pool.acquire(None, 0, 1, now=3, lease_ttl=TTL,
                        slack_minimum=Resources(cpu=2)) == ([], {INSUFFICIENT_OFFER_RESOURCES: 1})
    # The busy task gets busier: slack shrinks below what was lent.
    pool.set_usage([("busy", 3.5)])
    assert pool.slack() == (0.5, 2.0)
    assert pool.host("a").slack == 0.5
    pool.task_ended("rev")
    assert pool.slack() == (0.5, 0.0)
    pool.task_ended("busy")
    assert pool.slack() == (0.0, 0.0) and pool.host("a").allocated == ZERO


def test_a_modelled_usage_makes_slack_at_launch_and_a_removed_host_takes_its_slack():
    pool = HostPool(assumed_cpu_usage=0.25)
    for name in ("a", "b"):
        pool.add_host(spec(name, Resources(cpu=8, memory=1000)))
    leases, _ = pool.acquire(Resources(cpu=4), 0, 2, now=0, lease_ttl=TTL)
    for n, lease in enumerate(leases):
        pool.launch(lease.lease_id, [(f"t{n}", Resources(cpu=4), [])], now=0)
    assert pool.slack() == (6.0, 0.0)
    pool.remove_host("a")
    assert pool.slack() == (3.0, 0.0)
    with pytest.raises(InvalidArgument, match="cpu_usage"):
        HostPool(assumed_cpu_usage=1.5)


def test_non_revocable_tasks_never_use_slack():
    pool = HostPool(assumed_cpu_usage=0.0)
    pool.add_host(spec("a", Resources(cpu=4, memory=1000)))
    [lease], _ = pool.acquire(Resources(cpu=4), 0, 1, now=0, lease_ttl=TTL)
    pool.launch(lease.lease_id, [("idle", Resources(cpu=4), [])], now=0)
    assert pool.slack() == (4.0, 0.0)
    # 4 slack cpus, no regular cpu: a non-revocable lease finds nothing.
    assert pool.acquire(Resources(cpu=1), 0, 1, now=1, lease_ttl=TTL)[0] == []
    [lease], _ = pool.acquire(Resources(cpu=1), 0, 1, now=1, lease_ttl=TTL,
                              slack_minimum=Resources(cpu=1))
    with pytest.raises(InvalidArgument, match="cpu 1 > 0"):
        pool.launch(lease.lease_id, [("regular", Resources(cpu=1), [])], now=1)


def test_a_revocable_lease_counts_slack_towards_the_demand():
    pool = HostPool(assumed_cpu_usage=0.0)
    for i in range(4):
        pool.add_host(spec(f"h{i}", Resources(cpu=4, memory=1000)))
    leases, _ = pool.acquire(Resources(cpu=4), 0, 4, now=0, lease_ttl=TTL)
    for n, lease in enumerate(leases):
        pool.launch(lease.lease_id, [(f"t{n}", Resources(cpu=4), [])], now=0)
    leases, _ = pool.acquire(None, 0, 4, now=1, lease_ttl=TTL, demand=Resources(cpu=6),
                             slack_minimum=Resources(cpu=1))
    assert len(leases) == 2 and all(x.slack == 4.0 for x in leases)


# -- property: never overcommitted, allocated == sum of tasks ----------------

RESOURCES = st.builds(Resources, cpu=st.sampled_from([0, 0.1, 0.5, 1, 2, 3]),
                      memory=st.sampled_from([0, 64, 100, 1000]),
                      disk=st.just(0.0), gpu=st.sampled_from([0, 0, 0, 1]))


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6


class PoolMachine(RuleBasedStateMachine):
    """Random acquires, launches (some tasks revocable), usage changes,
    ends, releases, expiry and hosts coming and going. Invariants: no host
    is over-committed in regular resources, a launch never lends more slack
    cpu than the host has free, slack is never negative, and the pool's
    running sums equal the sums over its hosts."""

    def __init__(self) -> None:
        super().__init__()
        # Half a task's cpu counts as used at launch: slack exists from the start.
        self.pool = HostPool(assumed_cpu_usage=0.5)
        for i in range(4):
            self.pool.add_host(spec(f"h{i}", Resources(cpu=4, memory=2000, gpu=i % 2),
                                    ports=(1000, 1004)))
        self.now = 0.0
        self.leases: list[str] = []
        self.tasks: list[str] = []
        self.counter = 0

    @rule(minimum=st.none() | RESOURCES, slack_minimum=st.none() | RESOURCES,
          num_ports=st.integers(0, 3), max_hosts=st.integers(1, 5),
          ttl=st.sampled_from([1.0, 5.0]), seed=st.none() | st.integers(0, 3))
    def acquire(self, minimum, slack_minimum, num_ports, max_hosts, ttl, seed):
        if minimum is None and slack_minimum is None:
            with pytest.raises(InvalidArgument):
                self.pool.acquire(None, num_ports, max_hosts, self.now, ttl, seed)
            return
        leases, counts = self.pool.acquire(minimum, num_ports, max_hosts, self.now, ttl, seed,
                                           slack_minimum=slack_minimum)
        assert len(leases) <= max_hosts
        assert counts.get(MATCH, 0) == len(leases)
        assert sum(counts.values()) <= len(self.pool.hosts())
        for lease in leases:
            regular = minimum is not None and minimum.fits_in(lease.free)
            on_slack = slack_minimum is not None and slack_minimum._replace(cpu=0).fits_in(
                lease.free) and slack_minimum.cpu <= lease.slack + EPSILON
            assert regular or on_slack
            assert len(lease.ports) >= num_ports and lease.slack >= 0.0
        self.leases.extend(x.lease_id for x in leases)

    @precondition(lambda self: self.leases)
    @rule(data=st.data(), batch=st.lists(st.tuples(RESOURCES, st.integers(0, 2), st.booleans()),
                                         max_size=3))
    def launch(self, data, batch):
        lease_id = data.draw(st.sampled_from(self.leases))
        lease = self.pool.lease(lease_id)
        tasks = []
        revocable = set()
        for resources, nports, is_revocable in batch:
            self.counter += 1
            ports = data.draw(st.lists(st.integers(999, 1005), max_size=nports))
            tasks.append((f"t{self.counter}", resources, ports))
            if is_revocable:
                revocable.add(f"t{self.counter}")
        if data.draw(st.booleans()) and self.tasks:  # sometimes relaunch a known task
            known = data.draw(st.sampled_from(self.tasks))
            tasks.append((known, Resources(cpu=1), []))
        host = self.pool._hosts.get(lease.hostname) if lease is not None else None
        before = host.view() if host is not None else None
        try:
            self.pool.launch(lease_id, tasks, self.now, revocable=revocable)
        except (FailedPrecondition, InvalidArgument):
            if lease is not None and lease.expires > self.now:
                assert self.pool.lease(lease_id) == lease  # unchanged
            if host is not None:
                assert host.view() == before
            event("launch rejected")
            return
        event("launch accepted")
        # A fresh lease is consumed; a used one may launch again (another
        # shard's part of the placement) until it expires.
        assert self.pool.lease(lease_id) is None
        self.tasks.extend(t[0] for t in tasks)
        host = self.pool._hosts[self.pool.host_of(tasks[0][0])] if tasks else None
        if host is not None and before is not None and host.lent > before.lent + EPSILON:
            event("slack lent")
            # Lent only what was free: the host's slack covers what it lent.
            assert host.lent - before.lent <= max(0.0, before.slack - before.lent) + EPSILON
            assert host.lent <= host.slack() + EPSILON

    @rule(cpu=st.sampled_from([0.1, 0.5, 1.0, 2.0]), over=st.sampled_from([0.0, 0.5]))
    def revocable_on_slack(self, cpu, over):
        """Make slack (a non-revocable task that uses half its cpu), lease for
        revocable work and launch one task of the slack it offers, or more
        (refused)."""
        leases, _ = self.pool.acquire(Resources(cpu=2), 0, 1, self.now, 5.0)
        if leases:
            self.counter += 1
            self.pool.launch(leases[0].lease_id, [(f"t{self.counter}", Resources(cpu=2), [])],
                             self.now)
            self.tasks.append(f"t{self.counter}")
        leases, _ = self.pool.acquire(None, 0, 1, self.now, 5.0,
                                      slack_minimum=Resources(cpu=cpu, memory=64))
        if not leases:
            return
        lease = leases[0]
        self.counter += 1
        task_id = f"t{self.counter}"
        want = lease.slack + over
        try:
            self.pool.launch(lease.lease_id, [(task_id, Resources(cpu=want, memory=64), [])],
                             self.now, revocable={task_id})
        except InvalidArgument:
            assert over > 0
            self.pool.release([lease.lease_id])
            event("revocable launch refused: not enough slack")
            return
        assert over == 0
        event("revocable launch on slack")
        self.tasks.append(task_id)
        host = self.pool._hosts[lease.hostname]
        assert host.free_slack() <= EPSILON and host.lent <= host.slack() + EPSILON

    @precondition(lambda self: self.tasks)
    @rule(data=st.data(), fraction=st.sampled_from([0.0, 0.3, 1.0, 1.5]))
    def usage_changes(self, data, fraction):
        """Non-revocable tasks get busier or idler (the local backend's samples)."""
        task_id = data.draw(st.sampled_from(self.tasks))
        name = self.pool.host_of(task_id)
        cpu = self.pool._hosts[name].tasks[task_id][0].cpu if name else 1.0
        self.pool.set_usage([(task_id, cpu * fraction), ("unknown", 3.0)])

    @precondition(lambda self: self.tasks)
    @rule(data=st.data())
    def task_ended(self, data):
        self.pool.task_ended(data.draw(st.sampled_from(self.tasks)))

    @precondition(lambda self: self.leases)
    @rule(data=st.data())
    def release(self, data):
        self.pool.release(data.draw(st.lists(st.sampled_from(self.leases), max_size=3)))

    @rule(dt=st.sampled_from([0.0, 0.5, 1.0, 3.0]))
    def tick(self, dt):
        self.now += dt
        for lease_id in self.pool.expire(self.now):
            assert self.pool.lease(lease_id) is None

    @invariant()
    def never_overcommitted_and_allocation_is_the_sum_of_tasks(self):
        hosts = {v.spec.hostname: v for v in self.pool.hosts()}
        on_host: dict[str, list[Resources]] = {name: [] for name in hosts}
        lent = dict.fromkeys(hosts, 0.0)
        usage = dict.fromkeys(hosts, 0.0)
        for t in set(self.tasks):
            name = self.pool.host_of(t)
            if name is not None:
                resources, _, revocable, used = self.pool._hosts[name].tasks[t]
                if revocable:
                    on_host[name].append(resources._replace(cpu=0.0))
                    lent[name] += resources.cpu
                else:
                    on_host[name].append(resources)
                    usage[name] += used
        for name, view in hosts.items():
            assert view.allocated.fits_in(view.spec.capacity), name
            total = Resources.sum(on_host[name])
            assert all(abs(a - b) <= EPSILON for a, b in zip(view.allocated, total, strict=True))
            assert view.tasks == len(on_host[name])
            assert _close(view.lent, lent[name]) and _close(view.usage, usage[name])
            assert _close(view.slack, max(0.0, view.allocated.cpu - view.usage))
            assert view.slack >= 0.0 and self.pool._hosts[name].free_slack() >= 0.0
            internal = self.pool._hosts[name]
            used = [p for _, ports, _, _ in internal.tasks.values() for p in ports]
            assert len(used) == len(set(used)) and set(used) == internal.used_ports
            assert all(1000 <= p <= 1004 for p in used)
        # capacity() and slack() keep their sums as hosts and tasks change.
        physical, allocated, _, count = self.pool.capacity()
        assert count == len(hosts)
        assert physical == Resources.sum([v.spec.capacity for v in hosts.values()])
        want = Resources.sum([v.allocated for v in hosts.values()])
        assert all(abs(a - b) <= EPSILON for a, b in zip(allocated, want, strict=True))
        slack, lent_total = self.pool.slack()
        assert slack >= 0.0 and lent_total >= 0.0
        assert _close(slack, sum(v.slack for v in hosts.values()))
        assert _close(lent_total, sum(v.lent for v in hosts.values()))

    @rule(i=st.integers(0, 5))
    def host_comes_and_goes(self, i):
        if self.pool.host(f"h{i}") is not None and i >= 2:
            self.pool.remove_host(f"h{i}")
        else:
            self.pool.add_host(spec(f"h{i}", Resources(cpu=4, memory=2000, gpu=i % 2),
                                    ports=(1000, 1004)))

    @invariant()
    def one_lease_per_host(self):
        leased = [x.hostname for x in self.pool._leases.values()]
        assert len(leased) == len(set(leased))
        assert sum(v.leased for v in self.pool.hosts()) == len(leased)


PoolMachine.TestCase.settings = settings(max_examples=200, stateful_step_count=40,
                                         deadline=None)
TestPoolProperties = PoolMachine.TestCase


def test_a_planned_lease_holds_its_host_until_every_part_launched():
    """One placement spans two jobmgr shards; each launches its own part."""
    pool = pool_of(spec("a"))
    [lease], _ = pool.acquire(Resources(cpu=1), 0, 1, now=0, lease_ttl=TTL)
    pool.plan(lease.lease_id, ["s1-task", "s2-task"])
    pool.launch(lease.lease_id, [("s1-task", Resources(cpu=1), [])], now=1)
    # The host is still held for the second part: nobody else gets it.
    assert pool.acquire(Resources(cpu=1), 0, 1, now=1, lease_ttl=TTL)[0] == []
    pool.launch(lease.lease_id, [("s2-task", Resources(cpu=1), [])], now=2)
    [again], _ = pool.acquire(Resources(cpu=1), 0, 1, now=2, lease_ttl=TTL)
    assert again.free.cpu == lease.free.cpu - 2


def test_release_forgets_a_plan():
    pool = pool_of(spec("a"))
    [lease], _ = pool.acquire(Resources(cpu=1), 0, 1, now=0, lease_ttl=TTL)
    pool.plan(lease.lease_id, ["t1"])
    pool.release([lease.lease_id])
    assert len(pool.acquire(Resources(cpu=1), 0, 1, now=1, lease_ttl=TTL)[0]) == 1


def test_a_lease_lists_as_many_free_ports_as_asked():
    pool = pool_of(spec("a", ports=(1000, 1300)))
    [lease], _ = pool.acquire(ZERO, 0, 1, now=0, lease_ttl=TTL, port_sample=3)
    assert lease.ports == (1000, 1001, 1002)
    pool.release([lease.lease_id])
    [lease], _ = pool.acquire(ZERO, 0, 1, now=0, lease_ttl=TTL, port_sample=0)
    assert lease.ports == ()
    pool.release([lease.lease_id])
    [lease], _ = pool.acquire(ZERO, 0, 1, now=0, lease_ttl=TTL, port_sample=1000)
    assert len(lease.ports) == MAX_LEASE_PORTS


def test_acquire_stops_once_the_demand_is_covered():
    pool = pool_of(*(spec(f"h{i}", Resources(cpu=4, memory=100)) for i in range(10)))
    leases, _ = pool.acquire(ZERO, 0, 10, now=0, lease_ttl=TTL, demand=Resources(cpu=10))
    assert len(leases) == 3  # 4 + 4 + 4 >= 10
    # A kind left at zero bounds nothing; memory needs all 10 hosts here.
    pool = pool_of(*(spec(f"h{i}", Resources(cpu=4, memory=100)) for i in range(10)))
    leases, _ = pool.acquire(ZERO, 0, 10, now=0, lease_ttl=TTL,
                             demand=Resources(cpu=1, memory=950))
    assert len(leases) == 10


def test_gpu_hosts_do_not_cover_a_demand_without_gpus():
    pool = pool_of(spec("g1", Resources(cpu=8, gpu=1)), spec("g2", Resources(cpu=8, gpu=1)),
                   spec("c1", Resources(cpu=8)))
    leases, _ = pool.acquire(ZERO, 0, 10, now=0, lease_ttl=TTL, demand=Resources(cpu=8))
    assert [x.hostname for x in leases] == ["g1", "g2", "c1"]


def test_tasks_on_counts_what_runs_per_job_and_label():
    pool = pool_of(spec("h1"))
    job, other = "7c2bd2a8-5f3e-4b7a-9d1e-0123456789ab", "8c2bd2a8-5f3e-4b7a-9d1e-0123456789ab"
    lease = pool.acquire(ZERO, 0, 1, now=0, lease_ttl=TTL)[0][0]
    pool.launch(lease.lease_id, [(f"{job}-0-1", Resources(cpu=1), []),
                                 (f"{job}-1-1", Resources(cpu=1), []),
                                 (f"{other}-0-1", Resources(cpu=1), [])], now=1,
                labels={f"{job}-0-1": [("app", "x")], f"{other}-0-1": [("app", "x")]})
    assert pool.tasks_on("h1", [job, other, "nope"], [("app", "x"), ("app", "y")]) == (
        {job: 2, other: 1}, {("app", "x"): 2})
    pool.task_ended(f"{job}-0-1")
    pool.task_ended(f"{other}-0-1")
    pool.task_ended(f"{other}-0-1")  # repeated: harmless
    assert pool.tasks_on("h1", [job, other], [("app", "x")]) == ({job: 1}, {})


def test_a_host_in_maintenance_is_leased_to_nobody_and_takes_no_launch():
    pool = pool_of(spec("a"), spec("b"))
    [lease], _ = pool.acquire(Resources(cpu=1), 0, 1, now=0, lease_ttl=TTL, rng_seed=0)
    held = lease.hostname
    pool.set_maintenance(held, DRAINING)  # its lease goes with it
    with pytest.raises(FailedPrecondition):  # its lease is gone
        pool.launch(lease.lease_id, [("t1", Resources(cpu=1), ())], now=1)
    leases, counts = pool.acquire(Resources(cpu=1), 0, 5, now=1, lease_ttl=TTL)
    assert [x.hostname for x in leases] != [] and held not in [x.hostname for x in leases]
    assert counts[MISMATCH_STATUS] == 1
    assert pool.host(held).maintenance == DRAINING  # type: ignore[union-attr]
    pool.set_maintenance(held, UP)
    pool.release([x.lease_id for x in leases])
    leases, _ = pool.acquire(Resources(cpu=1), 0, 5, now=2, lease_ttl=TTL)
    assert held in [x.hostname for x in leases]
    with pytest.raises(NotFound):
        pool.set_maintenance("nowhere", DOWN)
    with pytest.raises(InvalidArgument):
        pool.set_maintenance("a", "SLEEPING")
