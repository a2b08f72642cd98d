"""Several clusters in one Peloton: a hostmgr shard each, local and sim mixed.

``minicluster up --clusters 2 --sim-clusters 1``: the clusters local and
local1 run real processes, sim simulates its hosts. A job pinned to a
cluster by a HOST constraint on the ``cluster`` attribute runs there only;
a SIGKILL of the first cluster's hostmgr leaves the other clusters' runs
untouched. Host pools span the clusters: a job kept to a pool by its
``host_pool`` attribute runs on the pool's hosts.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import trio

from peloton.api.v0.host.svc import host_svc_pb2
from peloton.api.v0.job import job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.task import task_pb2
from peloton.api.v1alpha.host.svc import host_svc_pb2 as v1_host_svc_pb2
from peloton.client import PelotonClient
from peloton.core.errors import AlreadyExists, InvalidArgument, NotFound
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


def pinned(cluster: str, instances: int = 2, key: str = "cluster") -> job_pb2.JobConfig:
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
      label: {{key: {key}, value: {cluster}}}
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


async def every_cluster(client: PelotonClient) -> None:
    """Until each cluster's hostmgr answers (one may be restarting)."""
    with trio.fail_after(60):
        while True:
            reply = await client.hosts.call("QueryHosts", host_svc_pb2.QueryHostsRequest())
            if len(reply.host_infos) == 3:
                return
            await trio.sleep(0.2)


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


async def test_host_pools_span_the_clusters_and_keep_jobs_to_their_hosts(
        cluster: LocalCluster, client: PelotonClient) -> None:
    hosts = client.hosts
    await every_cluster(client)
    await hosts.call("CreateHostPool", host_svc_pb2.CreateHostPoolRequest(name="batch"))
    with pytest.raises(AlreadyExists):
        await hosts.call("CreateHostPool", host_svc_pb2.CreateHostPoolRequest(name="batch"))
    await hosts.call("ChangeHostPool", host_svc_pb2.ChangeHostPoolRequest(
        hostname="local1-0", sourcePool="default", destinationPool="batch"))
    pools = await hosts.call("ListHostPools", host_svc_pb2.ListHostPoolsRequest())
    assert {p.name: list(p.hosts) for p in pools.pools} == {
        "batch": ["local1-0"], "default": ["local-0", "sim-h00000"]}
    # A job kept to the pool lands on its host only.
    job_id = await client.create_job("/clusters", pinned("batch", 1, key="host_pool"))
    assert [(rt.cluster, rt.host) for rt in await running(client, job_id)] == [
        ("local1", "local1-0")]
    # The pools outlive a hostmgr restart; the v1alpha service says the same.
    cluster.restart("hostmgr-1")
    listed = await client.hosts_v1alpha.call("ListHostPools",
                                             v1_host_svc_pb2.ListHostPoolsRequest())
    assert {p.name: list(p.hosts) for p in listed.pools}["batch"] == ["local1-0"]
    info = await hosts.call("QueryHosts", host_svc_pb2.QueryHostsRequest())
    assert {h.hostname: h.current_pool for h in info.host_infos}["local1-0"] == "batch"
    # Moved back by MoveHosts, then the pool goes.
    await hosts.call("MoveHosts", host_svc_pb2.MoveHostsRequest(
        sourcePool="batch", srcPoolDesiredHosts=0, destinationPool="default",
        destPoolDesiredHosts=3))
    await hosts.call("DeleteHostPool", host_svc_pb2.DeleteHostPoolRequest(name="batch"))
    pools = await hosts.call("ListHostPools", host_svc_pb2.ListHostPoolsRequest())
    assert [(p.name, len(p.hosts)) for p in pools.pools] == [("default", 3)]
    with pytest.raises(InvalidArgument, match="default"):
        await hosts.call("DeleteHostPool", host_svc_pb2.DeleteHostPoolRequest(
            name="default"))


async def test_a_create_is_checked_against_the_largest_host_of_every_cluster(
        cluster: LocalCluster, client: PelotonClient) -> None:
    await every_cluster(client)
    # Every cluster's hosts have 2 cpu (the pool allows 6): the jobmgr asks
    # each host manager at once and takes the largest.
    too_large = pinned("sim", 1)
    too_large.defaultConfig.resource.cpuLimit = 3
    with pytest.raises(InvalidArgument, match="more than the largest host has: cpu") as error:
        await client.create_job("/clusters", too_large)
    assert error.value.field == "defaultconfig.resource"
    fits = pinned("sim", 1)
    fits.defaultConfig.resource.cpuLimit = 2
    job_id = await client.create_job("/clusters", fits)
    await client.tasks.call("Stop", task_pb2.StopRequest(
        jobId=peloton_pb2.JobID(value=job_id)))
