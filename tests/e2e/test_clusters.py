"""Several clusters in one Peloton: a hostmgr shard each, local and sim mixed.

``minicluster up --clusters 2 --sim-clusters 1``: the clusters local and
local1 run real processes, sim simulates its hosts. A job pinned to a
cluster by a HOST constraint on the ``cluster`` attribute runs there only;
a SIGKILL of the first cluster's hostmgr leaves the other clusters' runs
untouched.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import trio

from peloton.api.v0.host.svc import host_svc_pb2
from peloton.api.v0.job import job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.task import task_pb2
from peloton.client import PelotonClient
from peloton.core.errors import NotFound
from peloton.rpc import open_rpc
from peloton.spec.job import load_job_config
from peloton.spec.respool import load_respool_config
from peloton.testing.cluster import LocalCluster

pytestmark = pytest.mark.cluster

POOL = """
name: clusters
resources:
- {kind: cpu, reservation: 6, limit: 6, share: 1}
- {kind: memory, reservation: 4096, limit: 4096, share: 1}
- {kind: disk, reservation: 1024, limit: 1024, share: 1}
- {kind: gpu, reservation: 0, limit: 0, share: 1}
"""


def pinned(cluster: str, instances: int = 2) -> job_pb2.JobConfig:
    config, _ = load_job_config(f"""
name: on-{cluster}
type: SERVICE
instancecount: {instances}
defaultconfig:
  resource: {{cpulimit: 0.5, memlimitmb: 32, disklimitmb: 10}}
  command: {{value: "exec sleep 600"}}
  constraint:
    type: LABEL_CONSTRAINT
    labelconstraint:
      kind: HOST
      condition: CONDITION_EQUAL
      requirement: 1
      label: {{key: cluster, value: {cluster}}}
""")
    return config


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    with LocalCluster.start(tmp_path_factory.mktemp("clusters"), hosts=1, cpu=2, clusters=2,
                            sim_clusters=1) as c:
        yield c


@pytest.fixture
async def client(cluster: LocalCluster) -> AsyncIterator[PelotonClient]:
    async with open_rpc():
        client = PelotonClient(cluster.addresses)
        try:
            await client.lookup_respool("/clusters")
        except NotFound:
            config, _ = load_respool_config(POOL)
            await client.create_respool("/clusters", config)
        yield client
        client.close()


async def running(client: PelotonClient, job_id: str) -> list[task_pb2.RuntimeInfo]:
    with trio.fail_after(90):
        while True:
            reply = await client.tasks.call("List", task_pb2.ListRequest(
                jobId=peloton_pb2.JobID(value=job_id)))
            runtimes = [reply.result.value[i].runtime for i in sorted(reply.result.value)]
            if runtimes and all(rt.state == task_pb2.RUNNING for rt in runtimes):
                return runtimes
            await trio.sleep(0.2)


async def test_jobs_pinned_to_a_cluster_run_there_and_outlive_another_clusters_hostmgr(
        cluster: LocalCluster, client: PelotonClient) -> None:
    hosts = await client.hosts.call("QueryHosts", host_svc_pb2.QueryHostsRequest())
    assert sorted((h.cluster, h.hostname) for h in hosts.host_infos) == [
        ("local", "local-0"), ("local1", "local1-0"), ("sim", "sim-h00000")]
    assert all(dict((lab.key, lab.value) for lab in h.labels)["cluster"] == h.cluster
               for h in hosts.host_infos)

    second = await client.create_job("/clusters", pinned("local1"))
    simulated = await client.create_job("/clusters", pinned("sim"))
    first = await client.create_job("/clusters", pinned("local"))
    on_second = await running(client, second)
    assert {(rt.cluster, rt.host) for rt in on_second} == {("local1", "local1-0")}
    assert {rt.cluster for rt in await running(client, simulated)} == {"sim"}
    assert {rt.cluster for rt in await running(client, first)} == {"local"}

    # The first cluster's hostmgr dies: the other clusters' runs go on.
    cluster.kill("hostmgr-0")
    await trio.sleep(5)
    after = await running(client, second)
    assert [rt.mesosTaskId.value for rt in after] == [rt.mesosTaskId.value for rt in on_second]
    assert {rt.cluster for rt in await running(client, simulated)} == {"sim"}
    cluster.restart("hostmgr-0")
    # Its own runs are adopted by the new hostmgr: the same runs, still running.
    assert {rt.cluster for rt in await running(client, first)} == {"local"}
