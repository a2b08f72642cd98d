"""Stateful tasks on a real local cluster: a persistent volume per instance.

A service whose task keeps a counter in its volume: every run (restarts
included) goes back to the volume's host and finds what the last run
wrote; the v0 and v1alpha VolumeServices show the volume; a volume is
deleted only when its task is stopped, and with its job.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import AsyncIterator, Iterator

import pytest
import trio

from peloton.api.v0.host.svc import host_svc_pb2
from peloton.api.v0.job import job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.task import task_pb2
from peloton.api.v0.volume import volume_pb2
from peloton.api.v0.volume.svc import volume_svc_pb2
from peloton.api.v1alpha.peloton import peloton_pb2 as v1
from peloton.api.v1alpha.volume import volume_pb2 as v1volume
from peloton.api.v1alpha.volume.svc import volume_svc_pb2 as v1svc
from peloton.client import PelotonClient
from peloton.core.errors import FailedPrecondition, NotFound
from peloton.rpc import open_rpc
from peloton.spec.job import load_job_config
from peloton.spec.respool import load_respool_config
from peloton.testing.cluster import LocalCluster

pytestmark = pytest.mark.cluster

POOL = """
name: stateful
resources:
- {kind: cpu, reservation: 2, limit: 2, share: 1}
- {kind: memory, reservation: 1024, limit: 1024, share: 1}
- {kind: disk, reservation: 1024, limit: 1024, share: 1}
- {kind: gpu, reservation: 0, limit: 0, share: 1}
"""
JOB = """
name: counter
type: SERVICE
instancecount: 1
defaultconfig:
  resource: {cpulimit: 0.1, memlimitmb: 32, disklimitmb: 10}
  volume: {containerpath: data, sizemb: 10}
  command:
    value: 'n=$(cat data/n 2>/dev/null || echo 0); n=$((n+1)); echo $n > data/n; echo run $n; exec sleep 600'
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    # Each run a user of its own (where we may switch users): the volume
    # follows the task from user to user.
    with LocalCluster.start(tmp_path_factory.mktemp("stateful"), hosts=3, cpu=2,
                            isolate_tasks=os.geteuid() == 0) as c:
        yield c


@pytest.fixture
async def client(cluster: LocalCluster) -> AsyncIterator[PelotonClient]:
    async with open_rpc():
        client = PelotonClient(cluster.addresses)
        try:
            await client.lookup_respool("/stateful")
        except NotFound:
            config, _ = load_respool_config(POOL)
            await client.create_respool("/stateful", config)
        yield client
        client.close()


async def task(client: PelotonClient, job_id: str) -> task_pb2.RuntimeInfo:
    reply = await client.tasks.call("Get", task_pb2.GetRequest(
        jobId=peloton_pb2.JobID(value=job_id), instanceId=0))
    return reply.result.runtime


async def running(client: PelotonClient, job_id: str, run: int) -> task_pb2.RuntimeInfo:
    with trio.fail_after(60):
        while True:
            rt = await task(client, job_id)
            if rt.state == task_pb2.RUNNING and rt.mesosTaskId.value.endswith(f"-{run}"):
                return rt
            await trio.sleep(0.2)


async def stopped(client: PelotonClient, job_id: str) -> None:
    with trio.fail_after(60):
        while True:
            if (await task(client, job_id)).state == task_pb2.KILLED:
                return
            await trio.sleep(0.2)


async def says(client: PelotonClient, job_id: str, text: str) -> bool:
    """Whether the current run's stdout comes to be ``text`` (it may not have
    written it yet when it is RUNNING)."""
    with trio.move_on_after(10):
        while True:
            if await client.read_task_file(job_id, 0) == text.encode():
                return True
            await trio.sleep(0.1)
    return False


def volume_dirs(cluster: LocalCluster) -> list[pathlib.Path]:
    return sorted(cluster.directory.rglob("*-volume"))


async def test_a_stateful_tasks_volume_outlives_its_runs_on_its_host(
        cluster: LocalCluster, client: PelotonClient) -> None:
    if os.geteuid() == 0:
        hosts = await client.hosts.call("QueryHosts", host_svc_pb2.QueryHostsRequest())
        assert all("task users" in h.limitsEnforced for h in hosts.host_infos)
    config, _ = load_job_config(JOB)
    job_id = await client.create_job("/stateful", config)
    jid = peloton_pb2.JobID(value=job_id)
    first = await running(client, job_id, 1)
    host = first.host
    assert first.desiredHost == host and first.volumeID.value == f"{job_id}-0-volume"
    assert await says(client, job_id, "run 1\n")
    listed = await client.volumes.call("ListVolumes", volume_svc_pb2.ListVolumesRequest(
        jobId=jid))
    info = listed.volumes[f"{job_id}-0-volume"]
    assert (info.hostname, info.state, info.sizeMB, info.containerPath) == (
        host, volume_pb2.CREATED, 10, "data")
    got = await client.volumes_v1alpha.call("GetVolume", v1svc.GetVolumeRequest(
        volume_id=v1.VolumeID(value=f"{job_id}-0-volume")))
    assert (got.result.hostname, got.result.state) == (host, v1volume.VOLUME_STATE_CREATED)
    with pytest.raises(FailedPrecondition, match="stop it"):
        await client.volumes.call("DeleteVolume", volume_svc_pb2.DeleteVolumeRequest(
            id=peloton_pb2.VolumeID(value=f"{job_id}-0-volume")))

    # Each restart goes back to the volume's host and finds the last run's count
    # (three hosts: a run placed anywhere would land elsewhere 2 times in 3).
    for run in (2, 3, 4):
        await client.tasks.call("Restart", task_pb2.RestartRequest(jobId=jid))
        again = await running(client, job_id, run)
        assert again.host == host
        assert await says(client, job_id, f"run {run}\n")

    # Stopped, its volume may go; the next run starts from nothing.
    await client.tasks.call("Stop", task_pb2.StopRequest(jobId=jid))
    await stopped(client, job_id)
    await client.volumes_v1alpha.call("DeleteVolume", v1svc.DeleteVolumeRequest(
        volume_id=v1.VolumeID(value=f"{job_id}-0-volume")))
    assert volume_dirs(cluster) == []
    after = await client.volumes.call("GetVolume", volume_svc_pb2.GetVolumeRequest(
        id=peloton_pb2.VolumeID(value=f"{job_id}-0-volume")))
    assert after.result.state == volume_pb2.INITIALIZED
    await client.tasks.call("Start", task_pb2.StartRequest(jobId=jid))
    await running(client, job_id, 5)
    assert await says(client, job_id, "run 1\n")
    assert len(volume_dirs(cluster)) == 1

    # Deleted with its job.
    await client.tasks.call("Stop", task_pb2.StopRequest(jobId=jid))
    await stopped(client, job_id)
    await client.jobs.call("Delete", job_pb2.DeleteRequest(id=jid))
    assert volume_dirs(cluster) == []
