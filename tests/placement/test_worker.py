"""A placement cycle places the gangs of small pools apart from the bulk
batch (``DequeueGangsResponse.express``): leased, placed and handed back on
their own, so a small job is not held by the bulk part's hosts or commit.
resmgr and the host manager are fakes; the cycle and ``place_batch`` are real.
"""

from __future__ import annotations

from typing import Any

import trio
import trio.testing

from peloton import config
from peloton.api.private.hostmgrsvc import hostmgrsvc_pb2 as hpb
from peloton.api.private.resmgrsvc import resmgrsvc_pb2 as rpb
from peloton.core.errors import Unavailable
from peloton.placement.worker import PlacementWorker
from tests.test_config import valid


def gang(job: str, instance: int) -> rpb.Gang:
    return rpb.Gang(tasks=[rpb.Task(id=f"{job}-{instance}", jobId=job,
                                    mesosTaskId=f"{job}-{instance}-1",
                                    resource=rpb.Resources(cpu=1.0, memMb=10.0))])


class FakeResmgr:
    def __init__(self, reply: rpb.DequeueGangsResponse, fail_set: bool = False) -> None:
        self.reply = reply
        self.fail_set = fail_set
        self.sets: list[list[str]] = []
        self.express: list[bool] = []  # each SetPlacements' flag
        self.clusters: list[dict[str, str]] = []  # each set's task -> cluster
        self.failed: list[tuple[str, bool]] = []  # (reason, short of resources)

    async def call(self, method: str, request: Any, timeout: float | None = None) -> Any:
        if method == "DequeueGangs":
            return self.reply
        assert method == "SetPlacements"
        if self.fail_set:
            raise Unavailable("no resmgr leader")
        self.sets.append(sorted(t.mesosTaskId for p in request.placements for t in p.tasks))
        self.express.append(request.express)
        self.clusters.append({t.mesosTaskId: p.cluster for p in request.placements
                              for t in p.tasks})
        self.failed.extend((f.reason, f.shortOfResources) for f in request.failedPlacements)
        return rpb.SetPlacementsResponse()


class FakeHostmgr:
    """Leases one host per task asked for; holds leases of more than one
    host until ``release`` is set."""

    def __init__(self) -> None:
        self.release = trio.Event()
        self.leased = 0

    async def call(self, method: str, request: Any, timeout: float | None = None) -> Any:
        if method == "ReleaseHosts":
            return hpb.ReleaseHostsResponse()
        assert method == "AcquireHosts"
        hosts = request.filter.maxHosts
        if hosts > 1:
            await self.release.wait()
        reply = hpb.AcquireHostsResponse(totalHosts=100)
        for _ in range(hosts):
            self.leased += 1
            reply.leases.add(leaseId=f"lease-{self.leased}", hostname=f"h{self.leased}",
                             agentId=f"a{self.leased}", cluster="c1",
                             available=rpb.Resources(cpu=4.0, memMb=1000.0, diskMb=1000.0))
        return reply


def worker(resmgr: FakeResmgr, hostmgr: Any, *, data: dict[str, Any] | None = None,
           name: str = "placement-0") -> PlacementWorker:
    """A worker of the valid cluster file (or ``data``) on fakes: ``hostmgr``
    is cluster c1's, or a dict of fakes by cluster name."""
    w = PlacementWorker(config.parse(data or valid()), name)
    w.resmgr = resmgr  # type: ignore[assignment]
    hostmgrs = hostmgr if isinstance(hostmgr, dict) else {"c1": hostmgr}
    w.hostmgrs = {c: f"127.0.0.1:{i + 1}" for i, c in enumerate(hostmgrs)}
    w._hostmgr = hostmgrs.__getitem__  # type: ignore[method-assign]
    return w


async def test_express_gangs_are_placed_and_handed_back_apart_from_the_bulk() -> None:
    reply = rpb.DequeueGangsResponse(
        gangs=[gang("bulk", 0), gang("probe", 0), gang("bulk", 1), gang("bulk", 2)],
        express=[1])
    resmgr, hostmgr = FakeResmgr(reply), FakeHostmgr()
    w = worker(resmgr, hostmgr)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(w.cycle)
        await trio.testing.wait_all_tasks_blocked()
        # The bulk part waits for its hosts; the probe is placed already.
        assert resmgr.sets == [["probe-0-1"]]
        hostmgr.release.set()
    assert resmgr.sets == [["probe-0-1"], ["bulk-0-1", "bulk-1-1", "bulk-2-1"]]
    assert resmgr.express == [True, False]  # resmgr queues the first ahead of bulk ones
    assert w.counts["cycles"] == 1 and w.counts["gangs"] == 4 and w.counts["placed"] == 4


async def test_without_express_gangs_a_cycle_is_one_part() -> None:
    reply = rpb.DequeueGangsResponse(gangs=[gang("bulk", 0), gang("bulk", 1)])
    resmgr, hostmgr = FakeResmgr(reply), FakeHostmgr()
    hostmgr.release.set()
    assert await worker(resmgr, hostmgr).cycle() == 2
    assert resmgr.sets == [["bulk-0-1", "bulk-1-1"]] and resmgr.express == [False]


async def test_a_failed_part_is_logged_and_the_worker_goes_on(
        mock_clock: trio.testing.MockClock) -> None:
    """Both parts' SetPlacements fail: the errors come grouped from the
    cycle, and ``run`` logs them and tries again (its gangs go back to
    READY after resmgr's placing timeout)."""
    mock_clock.autojump_threshold = 0
    reply = rpb.DequeueGangsResponse(gangs=[gang("bulk", 0), gang("bulk", 1),
                                            gang("probe", 0)], express=[2])
    resmgr, hostmgr = FakeResmgr(reply, fail_set=True), FakeHostmgr()
    hostmgr.release.set()
    w = worker(resmgr, hostmgr)
    with trio.move_on_after(2):
        await w.run()
    assert hostmgr.leased >= 9  # three cycles or more, each leasing 1 + 2 hosts


class ClusterHostmgr:
    """A cluster's host manager: leases its hosts of ``cpu`` each (none if
    ``cpu`` is 0) and records every call."""

    def __init__(self, name: str, cpu: float, hosts: int = 2) -> None:
        self.name, self.cpu, self.hosts = name, cpu, hosts
        self.calls: list[str] = []
        self.released: list[str] = []
        self.planned: list[str] = []

    async def call(self, method: str, request: Any, timeout: float | None = None) -> Any:
        self.calls.append(method)
        if method == "ReleaseHosts":
            self.released.extend(request.leaseIds)
            self.planned.extend(p.leaseId for p in request.planned)
            return hpb.ReleaseHostsResponse()
        reply = hpb.AcquireHostsResponse(totalHosts=self.hosts)
        if self.cpu:
            for i in range(self.hosts):
                reply.leases.add(leaseId=f"{self.name}-lease-{i}", hostname=f"{self.name}-h{i}",
                                 agentId=f"{self.name}-a{i}", cluster=self.name,
                                 available=rpb.Resources(cpu=self.cpu, memMb=1000.0,
                                                         diskMb=1000.0))
        return reply


def two_clusters(reply: rpb.DequeueGangsResponse, cpu_a: float, cpu_b: float,
                 ) -> tuple[PlacementWorker, FakeResmgr, dict[str, ClusterHostmgr]]:
    resmgr = FakeResmgr(reply)
    hostmgrs = {"a": ClusterHostmgr("a", cpu_a), "b": ClusterHostmgr("b", cpu_b)}
    return worker(resmgr, hostmgrs), resmgr, hostmgrs


async def test_an_express_part_asks_one_cluster_when_it_places_everything_there() -> None:
    reply = rpb.DequeueGangsResponse(gangs=[gang("probe", 0), gang("probe", 1)], express=[0, 1])
    w, resmgr, hostmgrs = two_clusters(reply, 4.0, 4.0)
    asked = []
    for _ in range(2):  # the clusters take turns at being asked
        before = {name: len(h.calls) for name, h in hostmgrs.items()}
        await w.cycle()
        (cluster,) = [name for name, h in hostmgrs.items() if len(h.calls) > before[name]]
        asked.append(cluster)
    assert sorted(asked) == ["a", "b"]
    assert all(h.calls == ["AcquireHosts", "ReleaseHosts"] for h in hostmgrs.values())
    assert resmgr.sets == [["probe-0-1", "probe-1-1"]] * 2


async def test_an_express_part_asks_the_other_clusters_for_what_the_first_could_not_place(
) -> None:
    big = rpb.Gang(tasks=[rpb.Task(id="probe-1", jobId="probe", mesosTaskId="probe-1-1",
                                   resource=rpb.Resources(cpu=6.0, memMb=10.0))])
    reply = rpb.DequeueGangsResponse(gangs=[gang("probe", 0), big], express=[0, 1])
    # a's hosts (2 cpu) take only the small task, b's (8 cpu) both.
    w, resmgr, hostmgrs = two_clusters(reply, 2.0, 8.0)
    w._turn = 1  # the next cycle asks a first
    await w.cycle()
    a, b = hostmgrs["a"], hostmgrs["b"]
    assert a.calls == b.calls == ["AcquireHosts", "ReleaseHosts"]
    assert resmgr.clusters == [{"probe-0-1": "a", "probe-1-1": "b"}]
    # Each released what it did not use (what it used, one shard's runs, is
    # consumed by their launch).
    assert a.released == ["a-lease-1"] and b.released == ["b-lease-1"]
    assert a.planned == b.planned == []
    # Placed nowhere: the reason counts both clusters' hosts.
    huge = rpb.Gang(tasks=[rpb.Task(id="probe-2", jobId="probe", mesosTaskId="probe-2-1",
                                    resource=rpb.Resources(cpu=16.0, memMb=10.0))])
    nowhere = FakeResmgr(rpb.DequeueGangsResponse(gangs=[huge], express=[0]))
    w.resmgr = nowhere  # type: ignore[assignment]
    await w.cycle()
    assert nowhere.failed == [
        ("no host fits cpu 16 (largest free 8); 4 hosts leased (insufficient_cpu 4)", True)]


async def test_a_lease_is_planned_only_for_runs_of_several_shards(
        mock_clock: trio.testing.MockClock) -> None:
    """Each jobmgr shard launches its own part of a placement: a host leased
    for runs of two shards is held until both launched (planned), one
    shard's runs are one launch, which consumes the lease; a cycle that
    used every host it leased for one shard tells the host manager nothing."""
    pair = rpb.Gang(tasks=[
        rpb.Task(id=f"pair-{i}", jobId="pair", mesosTaskId=f"pair-{i}-1", shard=i + 1,
                 resource=rpb.Resources(cpu=1.0, memMb=10.0)) for i in range(2)])
    hostmgr = ClusterHostmgr("c1", 4.0, hosts=1)
    w = worker(FakeResmgr(rpb.DequeueGangsResponse(gangs=[pair], express=[0])), hostmgr)
    await w.cycle()
    assert hostmgr.calls == ["AcquireHosts", "ReleaseHosts"]
    assert (hostmgr.planned, hostmgr.released) == (["c1-lease-0"], [])
    hostmgr.calls.clear()
    w.resmgr = FakeResmgr(  # type: ignore[assignment]
        rpb.DequeueGangsResponse(gangs=[gang("one", 0)], express=[0]))
    await w.cycle()
    assert hostmgr.calls == ["AcquireHosts"]


async def test_a_bulk_part_asks_every_cluster_at_once() -> None:
    reply = rpb.DequeueGangsResponse(gangs=[gang("bulk", 0), gang("bulk", 1)])
    w, resmgr, hostmgrs = two_clusters(reply, 4.0, 4.0)
    await w.cycle()
    assert all(h.calls == ["AcquireHosts", "ReleaseHosts"] for h in hostmgrs.values())
    assert resmgr.express == [False]


class Dequeues(FakeResmgr):
    """Answers every dequeue with the same gangs; notes when each came and
    the limit it asked for."""

    def __init__(self, reply: rpb.DequeueGangsResponse) -> None:
        super().__init__(reply)
        self.at: list[float] = []
        self.limits: list[int] = []

    async def call(self, method: str, request: Any, timeout: float | None = None) -> Any:
        if method == "DequeueGangs":
            self.at.append(trio.current_time())
            self.limits.append(request.limit)
        return await super().call(method, request, timeout)


def paced(reply: rpb.DequeueGangsResponse, rate: float | None,
          name: str = "placement-0") -> tuple[PlacementWorker, Dequeues]:
    data = valid()
    if rate is not None:
        data["placement"][0]["bulk_tasks_per_s"] = rate
    resmgr, hostmgr = Dequeues(reply), FakeHostmgr()
    hostmgr.release.set()
    return worker(resmgr, hostmgr, data=data, name=name), resmgr


async def test_bulk_tasks_go_at_most_at_the_workers_pace_and_express_parts_never_wait(
        autojump_clock: trio.testing.MockClock) -> None:
    bulk = rpb.DequeueGangsResponse(gangs=[gang("bulk", i) for i in range(5)])
    w, resmgr = paced(bulk, 10.0)
    for _ in range(3):
        await w.cycle()
    # 5 tasks a cycle at 10 a second: a dequeue every half second.
    assert resmgr.at == [0.0, 0.5, 1.0] and trio.current_time() == 1.5
    # Cycles at once take the next slots in turn: four batches at once,
    # then one each time a cycle's slots have passed.
    resmgr.at.clear()
    async with trio.open_nursery() as nursery:
        for _ in range(4):
            nursery.start_soon(w.run)
        await trio.sleep(2.9)
        nursery.cancel_scope.cancel()
    assert sorted(resmgr.at) == [1.5] * 4 + [2.0, 2.5, 3.0, 3.5, 4.0]
    # A small job's part is never held: dequeued again at once.
    now = trio.current_time()
    express = rpb.DequeueGangsResponse(gangs=[gang("probe", 0)], express=[0])
    w, resmgr = paced(express, 10.0)
    for _ in range(3):
        await w.cycle()
    assert resmgr.at == [now] * 3
    # Without a pace, bulk parts are not held either.
    w, resmgr = paced(bulk, None)
    for _ in range(3):
        await w.cycle()
    assert resmgr.at == [now] * 3


async def test_a_workers_batch_is_its_dequeues_limit() -> None:
    empty = rpb.DequeueGangsResponse()
    for name, limit in (("placement-0", 500), ("placement-1", 50)):
        w, resmgr = paced(empty, None, name)
        assert await w.cycle() == 0
        assert resmgr.limits == [limit]
