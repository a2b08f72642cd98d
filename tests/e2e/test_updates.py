"""Rolling updates of a service job on a real local cluster (v0 UpdateService).

One 10-instance service with ``sla.maximumUnavailableInstances: 1`` goes
through: an update in batches of 2 that is paused and resumed mid-way (never
more than one instance down, sampled every 0.1 s); an update whose new
version fails its health check and rolls itself back; an update aborted
mid-way; and an update that finishes across a SIGKILL of every jobmgr.
Then a daemon job: one instance per host, one more when a host joins, none
on a host in maintenance.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import trio
import yaml

from peloton.api.v0.host import host_pb2
from peloton.api.v0.host.svc import host_svc_pb2
from peloton.api.v0.job import job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.task import task_pb2
from peloton.api.v0.update import update_pb2
from peloton.api.v0.update.svc import update_svc_pb2
from peloton.client import PelotonClient
from peloton.core.errors import FailedPrecondition, InvalidArgument, NotFound
from peloton.ops import clusterfile
from peloton.rpc import open_rpc
from peloton.spec.job import load_job_config
from peloton.spec.respool import load_respool_config
from peloton.testing.cluster import LocalCluster

pytestmark = pytest.mark.cluster

INSTANCES = 10
POOL = """
name: updates
resources:
- {kind: cpu, reservation: 4, limit: 4, share: 1}
- {kind: memory, reservation: 4096, limit: 4096, share: 1}
- {kind: disk, reservation: 1024, limit: 1024, share: 1}
- {kind: gpu, reservation: 0, limit: 0, share: 1}
"""


def spec(version: str, *, check: str = "true") -> job_pb2.JobConfig:
    config, _ = load_job_config(f"""
name: web
type: SERVICE
instancecount: {INSTANCES}
sla: {{maximumUnavailableInstances: 1}}
defaultconfig:
  resource: {{cpulimit: 0.1, memlimitmb: 32, disklimitmb: 10}}
  command: {{value: "echo {version}; exec sleep 600"}}
  healthcheck:
    enabled: true
    type: COMMAND
    commandcheck: {{command: "{check}"}}
    initialintervalsecs: 1
    intervalsecs: 1
    maxconsecutivefailures: 1
""")
    return config


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    with LocalCluster.start(tmp_path_factory.mktemp("updates"), hosts=2, cpu=4) as c:
        yield c


@pytest.fixture
async def client(cluster: LocalCluster) -> AsyncIterator[PelotonClient]:
    async with open_rpc():
        client = PelotonClient(cluster.addresses)
        try:
            await client.lookup_respool("/updates")
        except NotFound:
            config, _ = load_respool_config(POOL)
            await client.create_respool("/updates", config)
        yield client
        client.close()


class Service:
    def __init__(self, client: PelotonClient, job_id: str) -> None:
        self.client, self.job_id = client, job_id
        self.jid = peloton_pb2.JobID(value=job_id)
        self.most_down = 0

    async def runtimes(self) -> list[task_pb2.RuntimeInfo]:
        reply = await self.client.tasks.call("List", task_pb2.ListRequest(jobId=self.jid))
        return [reply.result.value[i].runtime for i in sorted(reply.result.value)]

    async def sample(self) -> list[task_pb2.RuntimeInfo]:
        rts = await self.runtimes()
        self.most_down = max(self.most_down, sum(not up(rt) for rt in rts))
        return rts

    async def wait_all_up(self, version: int, timeout: float = 120) -> None:
        with trio.fail_after(timeout):
            while True:
                rts = await self.sample()
                if all(up(rt) and rt.configVersion == version for rt in rts):
                    return
                await trio.sleep(0.1)

    async def update(self, config: job_pb2.JobConfig, **update: Any) -> str:
        reply = await self.client.updates.call("CreateUpdate", update_svc_pb2.CreateUpdateRequest(
            jobId=self.jid, jobConfig=config, updateConfig=update_pb2.UpdateConfig(**update)))
        return str(reply.updateID.value)

    async def info(self, update_id: str) -> update_pb2.UpdateInfo:
        reply = await self.client.updates.call("GetUpdate", update_svc_pb2.GetUpdateRequest(
            updateId=peloton_pb2.UpdateID(value=update_id)))
        return reply.updateInfo

    async def wait_state(self, update_id: str, states: set[int],
                         timeout: float = 180) -> update_pb2.UpdateInfo:
        with trio.fail_after(timeout):
            while True:
                await self.sample()
                info = await self.info(update_id)
                if info.status.state in states:
                    return info
                await trio.sleep(0.1)

    async def wait_done(self, update_id: str, instances: int, timeout: float = 120) -> None:
        with trio.fail_after(timeout):
            while (await self.info(update_id)).status.numTasksDone < instances:
                await self.sample()
                await trio.sleep(0.1)

    async def control(self, method: str, update_id: str) -> None:
        request = getattr(update_svc_pb2, f"{method}Request")(
            updateId=peloton_pb2.UpdateID(value=update_id))
        await self.client.updates.call(method, request)


def up(rt: task_pb2.RuntimeInfo) -> bool:
    return rt.state == task_pb2.RUNNING and rt.healthy == task_pb2.HEALTHY


async def test_rolling_updates_pause_resume_roll_back_abort_and_survive_a_jobmgr_kill(
        cluster: LocalCluster, client: PelotonClient) -> None:
    job_id = await client.create_job("/updates", spec("v1"))
    svc = Service(client, job_id)
    await svc.wait_all_up(1)
    svc.most_down = 0  # (all were down while they started)

    # Refused, naming what: a field no update changes, a batch-only field.
    renamed = spec("v2")
    renamed.name = "other"
    with pytest.raises(InvalidArgument, match=r"jobConfig\.name"):
        await svc.update(renamed)
    with pytest.raises(InvalidArgument, match="inPlace"):
        await svc.update(spec("v2"), inPlace=True)

    # 1. batches of 2, within sla.maximumUnavailableInstances 1; paused mid-way.
    started = time.monotonic()
    first = await svc.update(spec("v2"), batchSize=2)
    with pytest.raises(FailedPrecondition, match="abort it first"):
        await svc.update(spec("v3"))
    await svc.wait_done(first, 2)
    await svc.control("PauseUpdate", first)
    paused = await svc.info(first)
    assert paused.status.state == update_pb2.PAUSED
    await trio.sleep(3)  # nothing moves while paused (a batch in flight may land)
    assert (await svc.info(first)).status.numTasksDone <= paused.status.numTasksDone + 2
    await svc.control("ResumeUpdate", first)
    done = await svc.wait_state(first, {update_pb2.SUCCEEDED})
    took = time.monotonic() - started
    assert (done.status.numTasksDone, done.configVersion, done.prevConfigVersion) == (
        INSTANCES, 2, 1)
    await svc.wait_all_up(2)
    assert svc.most_down == 1, svc.most_down
    out = await client.read_task_file(job_id, 3)
    assert out == b"v2\n"

    # 2. a new version whose health check fails: rolled back by itself.
    svc.most_down = 0
    bad = await svc.update(spec("v3", check="false"), batchSize=1, maxInstanceAttempts=1,
                           maxFailureInstances=1, rollbackOnFailure=True)
    back = await svc.wait_state(bad, {update_pb2.ROLLED_BACK, update_pb2.FAILED})
    assert back.status.state == update_pb2.ROLLED_BACK and back.configVersion == 4
    await svc.wait_all_up(4)
    assert svc.most_down == 1
    assert await client.read_task_file(job_id, 0) == b"v2\n"

    # 3. aborted mid-way: it stops taking instances.
    aborted = await svc.update(spec("v5"), batchSize=1)
    await svc.wait_done(aborted, 1)
    await svc.control("AbortUpdate", aborted)
    assert (await svc.info(aborted)).status.state == update_pb2.ABORTED
    with pytest.raises(FailedPrecondition, match="ABORTED, not running"):
        await svc.control("ResumeUpdate", aborted)
    await trio.sleep(3)
    versions = [rt.configVersion for rt in await svc.runtimes()]
    assert 5 in versions and 4 in versions, versions

    # 4. every jobmgr SIGKILLed mid-update: the update still finishes.
    last = await svc.update(spec("v6"), batchSize=2)
    await svc.wait_done(last, 2)
    for name in cluster.names("jobmgr"):
        cluster.kill(name)
    for name in cluster.names("jobmgr"):
        cluster.restart(name)
    finished = await svc.wait_state(last, {update_pb2.SUCCEEDED, update_pb2.FAILED},
                                    timeout=240)
    assert finished.status.state == update_pb2.SUCCEEDED
    await svc.wait_all_up(finished.configVersion)

    listed = await client.updates.call("ListUpdates", update_svc_pb2.ListUpdatesRequest(
        jobID=svc.jid))
    assert [u.updateId.value for u in listed.updateInfo] == [last, aborted, bad, first]
    job = await client.get_job(job_id)
    assert job.runtime.updateID.value == last
    await client.tasks.call("Stop", task_pb2.StopRequest(jobId=svc.jid))
    await client.wait_for_job(job_id, ("KILLED",), timeout=60)
    print(f"10-instance update in batches of 2 (with a 3 s pause): {took:.1f} s")


async def test_a_daemon_job_runs_on_every_host_and_on_one_that_joins(
        cluster: LocalCluster, client: PelotonClient) -> None:
    """One instance per host that fits; a host that joins gets one; a host in
    maintenance has none (its instance waits), and gets it back after."""
    config, _ = load_job_config("""
name: agent
type: DAEMON
defaultconfig:
  resource: {cpulimit: 0.1, memlimitmb: 32, disklimitmb: 10}
  command: {value: "exec sleep 600"}
""")
    job_id = await client.create_job("/updates", config)
    jid = peloton_pb2.JobID(value=job_id)

    async def running_on() -> dict[str, str]:
        reply = await client.tasks.call("List", task_pb2.ListRequest(jobId=jid))
        return {rt.host: task_pb2.TaskState.Name(rt.state)
                for rt in (t.runtime for t in reply.result.value.values())
                if rt.state == task_pb2.RUNNING}

    async def wait_for(hosts: set[str], timeout: float = 120) -> None:
        with trio.fail_after(timeout):
            while True:
                if set(await running_on()) == hosts:
                    return
                await trio.sleep(0.3)

    await wait_for({"local-0", "local-1"})
    info = await client.get_job(job_id)
    assert info.config.instanceCount == 2

    # A third host joins: the cluster file has it now, its hostmgr restarts.
    path = cluster.directory / "cluster.yaml"
    data = yaml.safe_load(path.read_text())
    data["hostmgr"][0]["hosts"] = 3
    clusterfile.write_cluster_file(path, data)
    cluster.restart("hostmgr-0")
    await wait_for({"local-0", "local-1", "local-2"})
    assert (await client.get_job(job_id)).config.instanceCount == 3

    # None on a host in maintenance; back when it is.
    await client.hosts.call("StartMaintenance", host_svc_pb2.StartMaintenanceRequest(
        hostname="local-2"))
    await wait_for({"local-0", "local-1"})
    assert await _down(client, "local-2")
    await client.hosts.call("CompleteMaintenance", host_svc_pb2.CompleteMaintenanceRequest(
        hostname="local-2"))
    await wait_for({"local-0", "local-1", "local-2"})
    await client.tasks.call("Stop", task_pb2.StopRequest(jobId=jid))
    await client.wait_for_job(job_id, ("KILLED",), timeout=60)


async def _down(client: PelotonClient, hostname: str, timeout: float = 60) -> bool:
    with trio.fail_after(timeout):
        while True:
            reply = await client.hosts.call("QueryHosts", host_svc_pb2.QueryHostsRequest())
            if {h.hostname: h.state for h in reply.host_infos}[hostname] == (
                    host_pb2.HOST_STATE_DOWN):
                return True
            await trio.sleep(0.3)
