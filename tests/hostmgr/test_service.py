"""The hostmgr's internal service over the sim backend: slack from modelled
usage reaches ClusterCapacity, revocable work is leased and launched only
where slack is free, and launching more than that is refused."""

from __future__ import annotations

import pathlib
from typing import Any

import pytest
import trio
import trio.testing

from peloton.api.private.hostmgrsvc import hostmgrsvc_pb2 as hpb
from peloton.api.private.resmgrsvc import resmgrsvc_pb2 as rpb
from peloton.config import DaemonConfig
from peloton.core.errors import InvalidArgument
from peloton.core.states import TaskState
from peloton.hostmgr.backends.base import StatusUpdate
from peloton.hostmgr.backends.local import LocalBackend
from peloton.hostmgr.backends.sim import SimBackend
from peloton.hostmgr.service import Hostmgr, InternalHandler, make_backend

JOB = "5b7c2a52-1d7e-4a3f-9a53-3f1d2e6c0b11"


async def start(nursery: trio.Nursery, **options: object) -> InternalHandler:
    backend = SimBackend(cluster="sim", **options)  # type: ignore[arg-type]
    hm = Hostmgr(backend, "sim")
    await nursery.start(backend.run, hm.report)
    return InternalHandler(hm)


def res(cpu: float = 0, mem: float = 0) -> rpb.Resources:
    return rpb.Resources(cpu=cpu, memMb=mem)


async def acquire(handler: InternalHandler, *, minimum: rpb.Resources | None = None,
                  revocable: rpb.Resources | None = None, hosts: int = 10,
                  ) -> hpb.AcquireHostsResponse:
    f = hpb.HostFilter(maxHosts=hosts, portSample=0)
    if minimum is not None:
        f.minimum.CopyFrom(minimum)
    if revocable is not None:
        f.revocableMinimum.CopyFrom(revocable)
    return await handler.AcquireHosts(hpb.AcquireHostsRequest(filter=f))


async def launch(handler: InternalHandler, lease: hpb.HostLease, instance: int, cpu: float,
                 *, revocable: bool = False, command: str = "sleep 100") -> None:
    task = hpb.LaunchableTask(taskId=f"{JOB}-{instance}", mesosTaskId=f"{JOB}-{instance}-1",
                              jobId=JOB, instanceId=instance, revocable=revocable)
    task.config.resource.cpuLimit = cpu
    task.config.resource.memLimitMb = 64
    task.config.command.value = command
    await handler.LaunchTasks(hpb.LaunchTasksRequest(leaseId=lease.leaseId,
                                                     hostname=lease.hostname, tasks=[task]))


async def slack(handler: InternalHandler) -> float:
    reply = await handler.ClusterCapacity(hpb.ClusterCapacityRequest())
    return reply.slack.cpu


async def test_sim_slack_feeds_capacity_and_revocable_leases(
        autojump_clock: trio.testing.MockClock, nursery: trio.Nursery):
    handler = await start(nursery, hosts=3, cpu_usage=0.25)
    assert await slack(handler) == 0.0
    # Nothing runs: no slack anywhere, so revocable work leases nothing.
    empty = await acquire(handler, revocable=res(1, 64))
    assert not empty.leases and empty.filterResultCounts == {"INSUFFICIENT_OFFER_RESOURCES": 3}
    # Non-revocable tasks of 16 cpu on one host use a quarter of it: 12 idle.
    [lease] = (await acquire(handler, minimum=res(16), hosts=1)).leases
    await launch(handler, lease, 0, 16)
    busy = lease.hostname
    assert await slack(handler) == 12.0
    capacity = await handler.ClusterCapacity(hpb.ClusterCapacityRequest())
    assert capacity.allocated.cpu == 16.0
    # A revocable-only filter leases the one host with slack, and says so.
    got = await acquire(handler, revocable=res(4, 64))
    assert [(x.hostname, x.slackCpu) for x in got.leases] == [(busy, 12.0)]
    assert got.filterResultCounts == {"MATCH": 1, "INSUFFICIENT_OFFER_RESOURCES": 2}
    await launch(handler, got.leases[0], 2, 10, revocable=True)
    capacity = await handler.ClusterCapacity(hpb.ClusterCapacityRequest())
    assert capacity.slack.cpu == 12.0 and capacity.allocated.cpu == 26.0
    # 2 slack cpus left on it: a revocable task of 4 is refused at launch,
    # on that host as on any other.
    [lease] = (await acquire(handler, minimum=res(1), revocable=res(1, 64), hosts=1)).leases
    with pytest.raises(InvalidArgument, match="slack"):
        await launch(handler, lease, 3, 4, revocable=True)
    # The tasks end: the slack goes with them.
    for instance in (0, 2):
        handler.hm.report(StatusUpdate(f"{JOB}-{instance}-1", TaskState.KILLED, busy))
    assert await slack(handler) == 0.0


def test_cpu_usage_and_usage_period_options(tmp_path):
    assert SimBackend.from_options({"hosts": 1}).assumed_cpu_usage == 0.5
    assert SimBackend.from_options({"hosts": 1, "cpu_usage": 1}).assumed_cpu_usage == 1.0
    for bad in (1.5, -0.1, "half"):
        with pytest.raises(InvalidArgument) as info:
            SimBackend.from_options({"hosts": 1, "cpu_usage": bad})
        assert info.value.field == "cpu_usage"
    for key, bad in (("usage_period", "2s"), ("usage_period", 0), ("usage_window", -1)):
        options = {"backend": "local", "hosts": 1, "usage_period": 1, key: bad}
        with pytest.raises(InvalidArgument) as info:
            make_backend(DaemonConfig("hostmgr", "hm", "127.0.0.1:1", "", options), tmp_path)
        assert info.value.field is not None and info.value.field.endswith(key)


def test_gc_delay_option(tmp_path):
    def backend(gc_delay: object) -> Any:
        return make_backend(DaemonConfig("hostmgr", "hm", "127.0.0.1:1", "", {
            "backend": "local", "hosts": 1, "gc_delay": gc_delay}), tmp_path)

    assert backend(3600)._gc_delay == 3600.0
    for bad, why in ((599, "at least 600 seconds"), ("1d", "a number of seconds")):
        with pytest.raises(InvalidArgument, match=why) as info:
            backend(bad)
        assert info.value.field == "hostmgr[hm].gc_delay"


async def _local_hostmgr(nursery: trio.Nursery, root: pathlib.Path) -> InternalHandler:
    """A host manager of one local host under ``root``, started as serve() starts it."""
    backend = LocalBackend(root, hosts=1, gc_delay=600)
    hm = Hostmgr(backend, "local")
    await nursery.start(backend.run, hm.report)
    hm.adopt(backend.adopted())
    hm.announce_ended(backend.found_ended())
    return InternalHandler(hm)


async def _events(handler: InternalHandler, shard: int, purge: int = 0, *,
                  wait_ms: int = 60_000) -> hpb.WaitForEventsResponse:
    """The events after ``purge`` (purged), waiting up to ``wait_ms`` for one."""
    return await handler.WaitForEvents(hpb.WaitForEventsRequest(
        shard=shard, purgeOffset=purge, limit=10, timeout=wait_ms,
        incarnation=handler.hm.incarnation))


async def test_a_wait_of_several_shards_names_each_events_shard(
        tmp_path: pathlib.Path, mock_clock: trio.testing.MockClock) -> None:
    """WaitForEvents with cursors answers the events of any of their shards,
    each naming its shard; cursors of another incarnation count from 1."""
    mock_clock.autojump_threshold = 0
    async with trio.open_nursery() as nursery:
        handler = await _local_hostmgr(nursery, tmp_path)
        hm = handler.hm
        for shard, mid in ((3, "a-0-1"), (5, "b-0-1"), (5, "c-0-1"), (7, "d-0-1")):
            hm.events.add(shard, StatusUpdate(mid, TaskState.RUNNING, "local-0"))
        reply = await handler.WaitForEvents(hpb.WaitForEventsRequest(
            cursors=[hpb.ShardCursor(shard=3), hpb.ShardCursor(shard=5, purgeOffset=1, after=1)],
            limit=10, timeout=1000, incarnation=hm.incarnation))
        assert sorted((e.shard, e.offset, e.mesosTaskId) for e in reply.events) == [
            (3, 1, "a-0-1"), (5, 2, "c-0-1")]
        assert reply.incarnation == hm.incarnation
        # An earlier incarnation's offsets mean nothing here: from the first event.
        reply = await handler.WaitForEvents(hpb.WaitForEventsRequest(
            cursors=[hpb.ShardCursor(shard=5, purgeOffset=2, after=2)], limit=10, timeout=1000,
            incarnation="another"))
        assert [(e.shard, e.offset) for e in reply.events] == [(5, 2)]  # 1 was purged above
        nursery.cancel_scope.cancel()


async def test_a_runs_end_stays_until_a_job_manager_acknowledged_it(
        tmp_path: pathlib.Path, mock_clock: trio.testing.MockClock) -> None:
    """A run that ended before any job manager purged its end (its host
    manager died first) is announced again by the next host manager, on its
    shard's stream, and kept past its gc_delay until that end is purged;
    then it goes."""
    mid = f"{JOB}-0-1"
    async with trio.open_nursery() as nursery:
        handler = await _local_hostmgr(nursery, tmp_path)
        lease = (await acquire(handler, minimum=res(0.1), hosts=1)).leases[0]
        task = hpb.LaunchableTask(taskId=f"{JOB}-0", mesosTaskId=mid, jobId=JOB, shard=3)
        task.config.resource.cpuLimit = 0.1
        task.config.resource.memLimitMb = 32
        task.config.command.value = "true"
        await handler.LaunchTasks(hpb.LaunchTasksRequest(
            leaseId=lease.leaseId, hostname=lease.hostname, tasks=[task]))
        seen = 0  # purging what came before its end (RUNNING)
        while TaskState((events := (await _events(handler, 3, purge=seen)).events)[-1].state) \
                != TaskState.SUCCEEDED:
            seen = events[-1].offset
        nursery.cancel_scope.cancel()  # the host manager goes; nothing purged
    async with trio.open_nursery() as nursery:
        handler = await _local_hostmgr(nursery, tmp_path)
        backend = handler.hm.backend
        assert isinstance(backend, LocalBackend)
        events = (await _events(handler, 3)).events
        assert [(e.mesosTaskId, TaskState(e.state)) for e in events] == [
            (mid, TaskState.SUCCEEDED)]
        mock_clock.jump(600)
        await backend.collect_garbage()
        assert backend.known(mid) is not None  # past gc_delay, not acknowledged
        assert not (await _events(handler, 3, purge=events[-1].offset, wait_ms=0)).events
        await backend.collect_garbage()
        assert backend.known(mid) is None
        nursery.cancel_scope.cancel()


async def test_a_batch_of_launches_succeeds_or_is_refused_per_host(
        autojump_clock: trio.testing.MockClock, nursery: trio.Nursery):
    handler = await start(nursery, hosts=2)
    first, second = (await acquire(handler, minimum=res(1), hosts=2)).leases

    def on(lease: hpb.HostLease, instance: int, lease_id: str = "") -> hpb.LaunchTasksRequest:
        task = hpb.LaunchableTask(taskId=f"{JOB}-{instance}", mesosTaskId=f"{JOB}-{instance}-1",
                                  jobId=JOB, instanceId=instance)
        task.config.resource.cpuLimit = 1
        task.config.command.value = "sleep 100"
        return hpb.LaunchTasksRequest(leaseId=lease_id or lease.leaseId,
                                      hostname=lease.hostname, tasks=[task])

    reply = await handler.LaunchTasksBatch(hpb.LaunchTasksBatchRequest(launches=[
        on(first, 0), on(second, 1, lease_id="no-such-lease"), on(second, 2)]))
    assert [(o.leaseId, o.code) for o in reply.outcomes] == [
        (first.leaseId, ""), ("no-such-lease", "FAILED_PRECONDITION"), (second.leaseId, "")]
    assert "unknown or expired" in reply.outcomes[1].message
    known = await handler.ReconcileTasks(hpb.ReconcileTasksRequest(
        mesosTaskIds=[f"{JOB}-{i}-1" for i in range(3)]))
    assert sorted(e.mesosTaskId for e in known.events) == [f"{JOB}-0-1", f"{JOB}-2-1"]


async def test_a_batch_carries_each_config_once_and_its_tasks_name_it(
        autojump_clock: trio.testing.MockClock, nursery: trio.Nursery):
    """Tasks of two hosts name the batch's configs by 1-based index (a task
    may still bring its own); each run gets its config's command,
    resources, environment, labels and ports. An index past the configs is
    that host's error, named; LaunchTasks alone takes no index."""
    handler = await start(nursery, hosts=3)
    first, second, third = (await acquire(handler, minimum=res(1), hosts=3)).leases
    launched: list[Any] = []
    backend_launch = handler.hm.backend.launch

    async def record(specs: Any) -> None:
        launched.extend(specs)
        await backend_launch(specs)

    handler.hm.backend.launch = record  # type: ignore[method-assign]
    shared = []
    for cpu, command in ((1, "sleep 10"), (2, "sleep 20")):
        cfg = hpb.LaunchableTask().config
        cfg.resource.cpuLimit, cfg.resource.memLimitMb, cfg.command.value = cpu, 64, command
        cfg.command.environment.variables.add(name="KIND", value=command)
        cfg.labels.add(key="kind", value=command)
        cfg.ports.add(name="http", envName="HTTP_PORT")
        shared.append(cfg)

    def task(instance: int, index: int, port: int) -> hpb.LaunchableTask:
        return hpb.LaunchableTask(taskId=f"{JOB}-{instance}", mesosTaskId=f"{JOB}-{instance}-1",
                                  jobId=JOB, instanceId=instance, configIndex=index,
                                  ports=[port])

    own = task(4, 0, 31004)
    own.config.resource.cpuLimit, own.config.command.value = 0.5, "sleep 40"
    reply = await handler.LaunchTasksBatch(hpb.LaunchTasksBatchRequest(configs=shared, launches=[
        hpb.LaunchTasksRequest(leaseId=first.leaseId, hostname=first.hostname,
                               tasks=[task(0, 1, 31000), task(1, 2, 31001)]),
        hpb.LaunchTasksRequest(leaseId=second.leaseId, hostname=second.hostname,
                               tasks=[task(2, 1, 31002), own]),
        hpb.LaunchTasksRequest(leaseId=third.leaseId, hostname=third.hostname,
                               tasks=[task(3, 3, 31003)])]))
    assert [o.code for o in reply.outcomes] == ["", "", "INVALID_ARGUMENT"]
    assert "tasks[0].configIndex" in reply.outcomes[2].message
    got = {s.instance_id: (s.hostname, s.command, s.resources.cpu, dict(s.environment),
                           s.labels, dict(s.ports)) for s in launched}
    assert got == {
        0: (first.hostname, "sleep 10", 1, {"KIND": "sleep 10"}, (("kind", "sleep 10"),),
            {"HTTP_PORT": 31000}),
        1: (first.hostname, "sleep 20", 2, {"KIND": "sleep 20"}, (("kind", "sleep 20"),),
            {"HTTP_PORT": 31001}),
        2: (second.hostname, "sleep 10", 1, {"KIND": "sleep 10"}, (("kind", "sleep 10"),),
            {"HTTP_PORT": 31002}),
        4: (second.hostname, "sleep 40", 0.5, {}, (), {}),
    }
    assert handler.hm.backend.known(f"{JOB}-3-1") is None
    with pytest.raises(InvalidArgument) as caught:
        await handler.LaunchTasks(hpb.LaunchTasksRequest(
            leaseId=third.leaseId, hostname=third.hostname, tasks=[task(3, 1, 31003)]))
    assert caught.value.field == "tasks[0].configIndex"


async def test_a_former_shard_owners_late_launch_is_refused(
        autojump_clock: trio.testing.MockClock, nursery: trio.Nursery):
    """The old owner (epoch 1) recorded a launch and sent it late; the new
    owner (epoch 2) asked first and found the run unknown, so it will place
    the run again or end it: the late launch must not start it."""
    handler = await start(nursery, hosts=2)
    first, second = (await acquire(handler, minimum=res(1), hosts=2)).leases

    def task(instance: int, epoch: int) -> hpb.LaunchableTask:
        t = hpb.LaunchableTask(taskId=f"{JOB}-{instance}", mesosTaskId=f"{JOB}-{instance}-1",
                               jobId=JOB, instanceId=instance, shard=3, epoch=epoch)
        t.config.resource.cpuLimit = 1
        t.config.command.value = "sleep 100"
        return t

    asked = await handler.ReconcileTasks(hpb.ReconcileTasksRequest(
        mesosTaskIds=[f"{JOB}-0-1"], shard=3, epoch=2))
    assert list(asked.unknown) == [f"{JOB}-0-1"]
    reply = await handler.LaunchTasksBatch(hpb.LaunchTasksBatchRequest(launches=[
        hpb.LaunchTasksRequest(leaseId=first.leaseId, hostname=first.hostname,
                               tasks=[task(0, epoch=1)])]))
    assert reply.outcomes[0].code == "FAILED_PRECONDITION"
    assert "shard 3 at epoch 1, but the shard has an owner at epoch 2" in reply.outcomes[0].message
    assert handler.hm.backend.known(f"{JOB}-0-1") is None
    # The new owner launches; launches that name no epoch are not fenced.
    await handler.LaunchTasks(hpb.LaunchTasksRequest(
        leaseId=second.leaseId, hostname=second.hostname, tasks=[task(0, epoch=2)]))
    assert handler.hm.backend.known(f"{JOB}-0-1") is not None
    handler.hm.fence(3, 0, "")
    assert handler.hm.shard_epochs == {3: 2}


def test_local_hosts_take_attributes_from_the_cluster_file(tmp_path: pathlib.Path) -> None:
    """``attributes`` on every host, ``host_attributes`` per host over them:
    what HOST-kind constraints match and QueryHosts reports."""
    me = DaemonConfig("hostmgr", "hostmgr-0", "127.0.0.1:1", options={
        "hosts": 3, "attributes": {"zone": "z1", "ssd": True},
        "host_attributes": {"local-1": {"rack": "r1", "zone": "z2"}}})
    backend = make_backend(me, tmp_path)
    assert [h.attributes for h in backend.hosts()] == [  # (and each its cluster)
        {"cluster": "local", "zone": "z1", "ssd": "true"},
        {"cluster": "local", "zone": "z2", "ssd": "true", "rack": "r1"},
        {"cluster": "local", "zone": "z1", "ssd": "true"}]


@pytest.mark.parametrize(("options", "field", "words"), [
    ({"hosts": "three"}, "hostmgr[hostmgr-0].hosts", "must be a whole number"),
    ({"cpu": "4 cores"}, "hostmgr[hostmgr-0].cpu", "must be a number"),
    ({"attributes": ["rack"]}, "hostmgr[hostmgr-0].attributes", "mapping of name: value"),
    ({"attributes": {"rack": {"a": 1}}}, "hostmgr[hostmgr-0].attributes.rack",
     "text or number"),
    ({"attributes": {"ra\0ck": "1"}}, "hostmgr[hostmgr-0].attributes.ra\0ck",
     "control character"),
    ({"host_attributes": {"local-7": {"rack": "r1"}}}, "host_attributes.local-7", "no host"),
])
def test_bad_host_options_name_the_key(tmp_path: pathlib.Path, options: dict[str, Any],
                                       field: str, words: str) -> None:
    me = DaemonConfig("hostmgr", "hostmgr-0", "127.0.0.1:1", options=options)
    with pytest.raises(InvalidArgument, match=words) as caught:
        make_backend(me, tmp_path)
    assert caught.value.field == field


async def test_query_hosts_by_state_answers_only_hosts_in_those_states(
        nursery: trio.Nursery) -> None:
    """QueryHosts' ``host_states``: the jobmgr's maintenance loop asks for
    the draining hosts only; a state no host is ever in answers none."""
    from peloton.api.v0.host import host_pb2
    from peloton.api.v0.host.svc import host_svc_pb2
    from peloton.hostmgr.hostpool import DRAINING
    from peloton.hostmgr.service import HostHandler

    handler = await start(nursery, hosts=4)
    hosts = HostHandler(handler.hm)
    handler.hm.pool.set_maintenance("sim-h00002", DRAINING)

    async def query(*states: int) -> list[tuple[str, int]]:
        reply = await hosts.QueryHosts(host_svc_pb2.QueryHostsRequest(host_states=states))
        return [(h.hostname, h.state) for h in reply.host_infos]

    assert await query(host_pb2.HOST_STATE_DRAINING) == [("sim-h00002", host_pb2.HOST_STATE_DRAINING)]
    assert [h for h, _ in await query(host_pb2.HOST_STATE_UP)] == [
        "sim-h00000", "sim-h00001", "sim-h00003"]
    assert len(await query()) == 4
    assert await query(host_pb2.HOST_STATE_INVALID) == []
