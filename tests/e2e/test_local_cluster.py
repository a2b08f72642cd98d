"""End to end, through the API, on a real local cluster of separate processes.

One cluster (3 resmgr, 2 jobmgr, 2 placement, 1 hostmgr with the local
backend) serves the whole module. Waits poll the API with a deadline; the
processes run on real time, so MockClock cannot drive them.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import signal
import time
import urllib.request
from typing import Any

import pytest
import trio

from peloton.api.private.cluster import cluster_grpc
from peloton.api.private.cluster import cluster_pb2 as cpb
from peloton.api.v0.host import host_pb2
from peloton.api.v0.host.svc import host_svc_pb2
from peloton.api.v0.job import job_pb2
from peloton.api.v0.job.svc import job_svc_grpc, job_svc_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.query import query_pb2
from peloton.api.v0.respool import respool_pb2
from peloton.api.v0.respool.svc import respool_svc_pb2
from peloton.api.v0.task import task_pb2
from peloton.api.v0.task.svc import task_svc_grpc, task_svc_pb2
from peloton.client import PelotonClient
from peloton.core.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    Unavailable,
)
from peloton.core.ids import new_job_id
from peloton.hostmgr.backends.cgroups import MemoryCgroups
from peloton.ops import minicluster
from peloton.rpc import Channels, ServiceClient, call_once, open_rpc
from peloton.shard.partition import shard_of
from peloton.spec.job import load_job_config
from peloton.spec.respool import load_respool_config
from peloton.testing.cluster import LocalCluster

pytestmark = pytest.mark.cluster

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "peloton" / "examples"
TERMINAL = ("SUCCEEDED", "FAILED", "KILLED")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    # One host in rack r1 (as `minicluster up --host-attribute local-1:rack=r1`).
    with LocalCluster.start(tmp_path_factory.mktemp("cluster"),
                            host_attributes=(("local-1", "rack", "r1"),)) as c:
        yield c


@pytest.fixture
async def client(cluster: LocalCluster):
    async with open_rpc():
        client = PelotonClient(cluster.addresses)
        await ensure_pool(client)
        yield client
        client.close()


def pool_config(name: str) -> respool_pb2.ResourcePoolConfig:
    config, _ = load_respool_config((EXAMPLES / "default_respool.yaml").read_text())
    config.name = name
    return config


def job_yaml(command: str, instances: int = 10, *, cpu: float = 0.5,
             max_failures: int = 0, name: str = "e2e") -> str:
    return f"""
name: {name}
instancecount: {instances}
defaultconfig:
  resource: {{cpulimit: {cpu}, memlimitmb: 64, disklimitmb: 10}}
  restartpolicy: {{maxfailures: {max_failures}}}
  command: {{shell: true, value: '{command}'}}
"""


async def ensure_pool(client: PelotonClient, path: str = "/DefaultResPool") -> str:
    try:
        return await client.lookup_respool(path)
    except NotFound:
        return await client.create_respool(path, pool_config(path.rsplit("/", 1)[1]))


async def run_job(client: PelotonClient, text: str, *, pool: str = "/DefaultResPool",
                  timeout: float = 60) -> tuple[str, str]:
    config, _ = load_job_config(text)
    job_id = await client.create_job(pool, config)
    info = await client.wait_for_job(job_id, TERMINAL, timeout=timeout)
    return job_id, job_pb2.JobState.Name(info.runtime.state)


async def test_peloton_example_job_succeeds_with_readable_output(client: PelotonClient) -> None:
    """examples/testjob.yaml in /DefaultResPool, as a new user runs it."""
    config, warnings = load_job_config((EXAMPLES / "testjob.yaml").read_text())
    assert len(warnings) == 2  # the legacy SLA keys
    job_id = await client.create_job("/DefaultResPool", config)
    info = await client.wait_for_job(job_id, TERMINAL, timeout=240)
    assert job_pb2.JobState.Name(info.runtime.state) == "SUCCEEDED"
    assert info.runtime.taskStats["SUCCEEDED"] == 10
    for instance in range(10):
        out = (await client.read_task_file(job_id, instance)).decode()
        if instance < 3:
            assert out == "Hello instance 0\n"
        else:
            assert out.startswith(f"Job {job_id} instance {instance}: {job_id}-{instance}-1")


async def test_a_rack_constraint_lands_on_labelled_hosts_only(client: PelotonClient) -> None:
    """A HOST-kind constraint on an attribute from the cluster file: every
    instance runs on the one host in rack r1, and QueryHosts shows it."""
    text = job_yaml("true", 4, cpu=0.1) + """  constraint:
    type: LABEL_CONSTRAINT
    labelconstraint: {kind: HOST, condition: CONDITION_EQUAL,
                      label: {key: rack, value: r1}, requirement: 1}
"""
    job_id, state = await run_job(client, text)
    assert state == "SUCCEEDED"
    reply = await client.tasks.call("List", task_pb2.ListRequest(
        jobId=peloton_pb2.JobID(value=job_id)))
    assert {t.runtime.host for t in reply.result.value.values()} == {"local-1"}
    hosts = await client.hosts.call("QueryHosts", host_svc_pb2.QueryHostsRequest())
    labels = {h.hostname: [(label.key, label.value) for label in h.labels]
              for h in hosts.host_infos}
    common = [("cluster", "local"), ("host_pool", "default")]  # every host's
    assert labels == {"local-0": common, "local-1": sorted([*common, ("rack", "r1")]),
                      "local-2": common}
    # What the local backend enforces (what its cgroups can, here as there).
    cgroups, _ = MemoryCgroups.detect()
    want = [*(cgroups.enforced if cgroups else []), "open files", "GPU devices", "disk"]
    assert {tuple(h.limitsEnforced) for h in hosts.host_infos} == {tuple(want)}


async def test_failed_task_is_retried_up_to_max_failures(client: PelotonClient) -> None:
    job_id, state = await run_job(client, job_yaml("exit 3", 1, max_failures=2))
    assert state == "FAILED"
    reply = await client.tasks.call("Get", task_pb2.GetRequest(
        jobId=peloton_pb2.JobID(value=job_id), instanceId=0))
    runtime = reply.result.runtime
    assert runtime.mesosTaskId.value.endswith("-0-3")  # three runs: the first and two retries
    assert runtime.terminationStatus.exit_code == 3
    assert runtime.failureCount == 2


async def test_stop_kills_running_tasks(client: PelotonClient) -> None:
    config, _ = load_job_config(job_yaml("sleep 600", 3))
    job_id = await client.create_job("/DefaultResPool", config)
    await client.wait_for_job(job_id, ("RUNNING",), timeout=30)
    await client.tasks.call("Stop", task_pb2.StopRequest(
        jobId=peloton_pb2.JobID(value=job_id)))
    info = await client.wait_for_job(job_id, TERMINAL, timeout=30)
    assert job_pb2.JobState.Name(info.runtime.state) == "KILLED"


async def test_job_level_actions_and_the_debug_calls(client: PelotonClient) -> None:
    """JobManager Stop/Start/Restart (with resourceVersion), Refresh,
    GetCache, GetActiveJobs; TaskManager Refresh, GetCache, GetPodEvents,
    DeletePodEvents: none answers UNIMPLEMENTED."""
    config, _ = load_job_config(job_yaml("sleep 600", 2))
    job_id = await client.create_job("/DefaultResPool", config)
    jid = peloton_pb2.JobID(value=job_id)
    await client.wait_for_job(job_id, ("RUNNING",), timeout=30)

    cache = await client.jobs.call("GetCache", job_pb2.GetCacheRequest(id=jid))
    assert cache.config.instanceCount == 2 and cache.runtime.configurationVersion == 1
    active = await client.jobs.call("GetActiveJobs", job_pb2.GetActiveJobsRequest())
    assert job_id in {i.value for i in active.ids}
    await client.jobs.call("Refresh", job_pb2.RefreshRequest(id=jid))
    await client.tasks.call("Refresh", task_pb2.RefreshRequest(jobId=jid))
    task_cache = await client.tasks.call("GetCache", task_pb2.GetCacheRequest(
        jobId=jid, instanceId=1))
    assert task_pb2.TaskState.Name(task_cache.runtime.state) in ("LAUNCHED", "STARTING",
                                                                 "RUNNING")
    with pytest.raises(InvalidArgument, match="instanceId"):
        await client.tasks.call("GetCache", task_pb2.GetCacheRequest(jobId=jid, instanceId=7))

    with pytest.raises(InvalidArgument) as refused:
        await client.jobs.call("Restart", job_pb2.RestartRequest(
            id=jid, restartConfig=job_pb2.RestartConfig(batchSize=1)))
    assert str(refused.value).startswith("restartConfig.batchSize: doing it in batches")
    with pytest.raises(FailedPrecondition, match="at version 1, not 7"):
        await client.jobs.call("Stop", job_pb2.StopRequest(id=jid, resourceVersion=7))
    stopped = await client.jobs.call("Stop", job_pb2.StopRequest(id=jid, resourceVersion=1))
    assert stopped.resourceVersion == 1
    await client.wait_for_job(job_id, ("KILLED",), timeout=30)
    await client.jobs.call("Start", job_pb2.StartRequest(id=jid, ranges=[
        task_pb2.InstanceRange(**{"from": 0, "to": 1})]))
    await client.wait_for_job(job_id, ("RUNNING",), timeout=30)

    events = await client.tasks.call("GetPodEvents", task_pb2.GetPodEventsRequest(
        jobId=jid, instanceId=0))
    runs = [e.taskId.value for e in events.result]
    assert runs[0].endswith("-0-2") and runs[-1].endswith("-0-1"), runs  # newest run first
    assert "KILLED" in [e.actualState for e in events.result]
    only = await client.tasks.call("GetPodEvents", task_pb2.GetPodEventsRequest(
        jobId=jid, instanceId=0, runId=f"{job_id}-0-1"))
    assert {e.taskId.value for e in only.result} == {f"{job_id}-0-1"}
    await client.tasks.call("DeletePodEvents", task_pb2.DeletePodEventsRequest(
        jobId=jid, instanceId=0, runId=1))
    left = await client.tasks.call("GetPodEvents", task_pb2.GetPodEventsRequest(
        jobId=jid, instanceId=0))
    assert left.result and all(e.taskId.value.endswith("-0-2") for e in left.result)

    await client.jobs.call("Stop", job_pb2.StopRequest(id=jid))
    await client.wait_for_job(job_id, ("KILLED",), timeout=30)
    # An ended batch job is let go by its owner at its next timer round (as
    # Peloton untracks it): its cache says KILLED until then, then NotFound.
    with trio.fail_after(10):
        while True:
            try:
                cache = await client.jobs.call("GetCache", job_pb2.GetCacheRequest(id=jid))
            except NotFound as gone:
                assert "it has ended" in str(gone)
                break
            assert cache.runtime.state == job_pb2.KILLED
            await trio.sleep(0.2)
    with pytest.raises(NotFound, match="cache"):
        await client.jobs.call("GetCache", job_pb2.GetCacheRequest(
            id=peloton_pb2.JobID(value=new_job_id())))


async def test_host_maintenance_drains_a_host_and_brings_it_back(
        client: PelotonClient) -> None:
    """StartMaintenance: nothing new goes to the host, a service's instances
    there restart elsewhere (one at a time: maximumUnavailableInstances 1),
    a batch job's tasks there run again elsewhere without counting as
    failures; then the host is DOWN, and CompleteMaintenance brings it UP."""
    service, _ = load_job_config("""
name: drained-service
type: SERVICE
instancecount: 3
sla: {maximumUnavailableInstances: 1}
defaultconfig:
  resource: {cpulimit: 0.2, memlimitmb: 32}
  command: {value: "sleep 600"}
""")
    batch, _ = load_job_config(job_yaml("sleep 600", 3, cpu=0.2, name="drained-batch"))
    ids = [await client.create_job("/DefaultResPool", c) for c in (service, batch)]
    for job_id in ids:
        await client.wait_for_job(job_id, ("RUNNING",), timeout=60)

    async def runtimes() -> list[task_pb2.RuntimeInfo]:
        out = []
        for job_id in ids:
            reply = await client.tasks.call("List", task_pb2.ListRequest(
                jobId=peloton_pb2.JobID(value=job_id)))
            out += [reply.result.value[i].runtime for i in sorted(reply.result.value)]
        return out

    with trio.fail_after(60):  # every instance runs (on a host)
        while True:
            rts = await runtimes()
            if all(rt.state == task_pb2.RUNNING for rt in rts):
                break
            await trio.sleep(0.2)
    hosts = [rt.host for rt in rts]
    host = max(set(hosts), key=hosts.count)
    await client.hosts.call("StartMaintenance", host_svc_pb2.StartMaintenanceRequest(
        hostname=host))
    with trio.fail_after(90):
        while True:
            rts = await runtimes()
            if all(rt.state == task_pb2.RUNNING and rt.host != host for rt in rts):
                break
            await trio.sleep(0.2)
    assert all(rt.failureCount == 0 for rt in rts)
    moved = [rt for rt in rts if not rt.mesosTaskId.value.endswith("-1")]
    assert len(moved) == hosts.count(host)
    with trio.fail_after(30):
        while True:
            reply = await client.hosts.call("QueryHosts", host_svc_pb2.QueryHostsRequest())
            state = {h.hostname: h.state for h in reply.host_infos}[host]
            if state == host_pb2.HOST_STATE_DOWN:
                break
            await trio.sleep(0.2)
    with pytest.raises(FailedPrecondition, match="not in maintenance"):
        await client.hosts.call("CompleteMaintenance", host_svc_pb2.CompleteMaintenanceRequest(
            hostname=next(h for h in ("local-0", "local-1", "local-2") if h != host)))
    await client.hosts.call("CompleteMaintenance", host_svc_pb2.CompleteMaintenanceRequest(
        hostname=host))
    reply = await client.hosts.call("QueryHosts", host_svc_pb2.QueryHostsRequest())
    assert {h.hostname: h.state for h in reply.host_infos}[host] == host_pb2.HOST_STATE_UP
    for job_id in ids:
        await client.tasks.call("Stop", task_pb2.StopRequest(jobId=peloton_pb2.JobID(
            value=job_id)))
        await client.wait_for_job(job_id, TERMINAL, timeout=60)


async def test_the_newer_resource_pool_service_names(client: PelotonClient) -> None:
    """v0 ResourcePoolService: create, get, look up, query, update, delete."""
    svc = client.respool_service
    root = await client.lookup_respool("/")
    config = pool_config("svc-pool")
    config.parent.value = root
    for r in config.resources:
        r.reservation = r.limit = min(r.limit, 1.0)
    created = await svc.call("CreateResourcePool", respool_svc_pb2.CreateResourcePoolRequest(
        config=config))
    pool = created.id
    got = await svc.call("GetResourcePool", respool_svc_pb2.GetResourcePoolRequest(id=pool))
    assert got.resPool.path.value == "/svc-pool"
    found = await svc.call("LookupResourcePoolID", respool_svc_pb2.LookupResourcePoolIDRequest(
        path=respool_pb2.ResourcePoolPath(value="/svc-pool")))
    assert found.id == pool
    listed = await svc.call("QueryResourcePools", respool_svc_pb2.QueryResourcePoolsRequest())
    assert pool in [p.id for p in listed.resPools]
    config.description = "updated"
    await svc.call("UpdateResourcePool", respool_svc_pb2.UpdateResourcePoolRequest(
        id=pool, config=config))
    got = await svc.call("GetResourcePool", respool_svc_pb2.GetResourcePoolRequest(id=pool))
    assert got.resPool.config.description == "updated"
    await svc.call("DeleteResourcePool", respool_svc_pb2.DeleteResourcePoolRequest(id=pool))
    with pytest.raises(NotFound):
        await svc.call("GetResourcePool", respool_svc_pb2.GetResourcePoolRequest(id=pool))


async def test_the_newer_job_service_names(cluster: LocalCluster,
                                           client: PelotonClient) -> None:
    """v0 JobService: the JobManager's calls under their newer names, the
    pool by its path; secrets refused with the field named."""
    svc = ServiceClient(cluster.addresses, job_svc_grpc.JobServiceStub,
                        channels=client.channels)
    await ensure_pool(client)
    path = respool_pb2.ResourcePoolPath(value="/DefaultResPool")
    config, _ = load_job_config(job_yaml("sleep 60", 2, name="jobsvc"))
    with pytest.raises(InvalidArgument) as refused:
        await svc.call("CreateJob", job_svc_pb2.CreateJobRequest(
            pool=path, config=config, secrets=[peloton_pb2.Secret(path="/s")]))
    assert str(refused.value).startswith("secrets: not supported yet")
    with pytest.raises(InvalidArgument) as mismatch:
        other = job_pb2.JobConfig()
        other.CopyFrom(config)
        other.respoolID.value = "not-that-pool"
        await svc.call("CreateJob", job_svc_pb2.CreateJobRequest(pool=path, config=other))
    assert str(mismatch.value).startswith("pool: ")
    created = await svc.call("CreateJob", job_svc_pb2.CreateJobRequest(pool=path,
                                                                      config=config))
    jid = created.jobId
    got = await svc.call("GetJob", job_svc_pb2.GetJobRequest(id=jid))
    assert got.result.name == "jobsvc" and got.result.instanceCount == 2
    assert got.result.respoolID.value == await client.lookup_respool("/DefaultResPool")
    queried = await svc.call("QueryJobs", job_svc_pb2.QueryJobsRequest(
        spec=job_pb2.QuerySpec(name="jobsvc"), pagination=query_pb2.PaginationSpec(limit=5)))
    assert [r.id.value for r in queried.records] == [jid.value]
    assert queried.pagination.limit == 5
    cache = await svc.call("GetJobCache", job_svc_pb2.GetJobCacheRequest(id=jid))
    assert cache.config.name == "jobsvc"
    with pytest.raises(InvalidArgument) as batched:
        await svc.call("StopJob", job_svc_pb2.StopJobRequest(
            id=jid, stopConfig=job_svc_pb2.StopConfig(batchSize=1)))
    assert str(batched.value).startswith("stopConfig.batchSize: ")
    stopped = await svc.call("StopJob", job_svc_pb2.StopJobRequest(id=jid))
    assert stopped.resourceVersion == cache.runtime.configurationVersion
    info = await client.wait_for_job(jid.value, TERMINAL, timeout=60)
    assert job_pb2.JobState.Name(info.runtime.state) == "KILLED"
    await svc.call("DeleteJob", job_svc_pb2.DeleteJobRequest(id=jid))
    with pytest.raises(NotFound):
        await svc.call("GetJob", job_svc_pb2.GetJobRequest(id=jid))


async def test_the_newer_task_service_names(cluster: LocalCluster,
                                            client: PelotonClient) -> None:
    """v0 TaskService: the TaskManager's calls under their newer names."""
    svc = ServiceClient(cluster.addresses, task_svc_grpc.TaskServiceStub,
                        channels=client.channels)
    job_id, state = await run_job(client, job_yaml("echo svc", 3))
    assert state == "SUCCEEDED"
    jid = peloton_pb2.JobID(value=job_id)
    got = await svc.call("GetTask", task_svc_pb2.GetTaskRequest(jobId=jid, instanceId=1))
    assert got.result.runtime.state == task_pb2.SUCCEEDED and len(got.results) == 1
    listed = await svc.call("ListTasks", task_svc_pb2.ListTasksRequest(jobId=jid))
    assert sorted(listed.tasks) == [0, 1, 2]
    queried = await svc.call("QueryTasks", task_svc_pb2.QueryTasksRequest(
        jobId=jid, pagination=query_pb2.PaginationSpec(limit=2)))
    assert len(queried.records) == 2 and queried.pagination.total == 3
    events = await svc.call("GetPodEvents", task_svc_pb2.GetPodEventsRequest(
        jobId=jid, instanceId=0))
    assert events.result[0].actualState == "SUCCEEDED"
    assert events.result[0].taskId.value == f"{job_id}-0-1"
    sandbox = await svc.call("BrowseSandbox", task_svc_pb2.BrowseSandboxRequest(
        jobId=jid, instanceId=0))
    assert any(p.endswith("/stdout") for p in sandbox.paths) and sandbox.port
    with pytest.raises(NotFound):
        await svc.call("GetTask", task_svc_pb2.GetTaskRequest(
            jobId=peloton_pb2.JobID(value=new_job_id())))


async def test_browse_sandbox_answers_where_to_fetch_the_files(client: PelotonClient) -> None:
    """As a Mesos agent: BrowseSandbox's host, port and absolute paths, then
    http://host:port/files/download?path=..., as Peloton's own CLI fetches."""
    job_id, state = await run_job(client, job_yaml("echo sandboxed", 1))
    assert state == "SUCCEEDED"
    reply = await client.tasks.call("BrowseSandbox", task_pb2.BrowseSandboxRequest(
        jobId=peloton_pb2.JobID(value=job_id), instanceId=0))
    assert reply.hostname == "127.0.0.1" and reply.port.isdigit()
    [stdout] = [p for p in reply.paths if p.endswith("/stdout")]
    assert stdout.startswith("/") and f"{job_id}-0-1" in stdout

    def fetch() -> bytes:
        url = f"http://{reply.hostname}:{reply.port}/files/download?path={stdout}"
        with urllib.request.urlopen(url, timeout=10) as answer:
            return bytes(answer.read())

    assert await trio.to_thread.run_sync(fetch) == b"sandboxed\n"


async def test_queries_order_page_and_bound_by_time(client: PelotonClient) -> None:
    ids = {}
    for name, command in (("qsort-b", "true"), ("qsort-a", "exit 1")):
        job_id, _ = await run_job(client, job_yaml(command, 3, name=name))
        ids[name] = job_id

    def spec(**page: Any) -> job_pb2.QuerySpec:
        return job_pb2.QuerySpec(keywords=["qsort-"], pagination=query_pb2.PaginationSpec(**page))

    def by(prop: str, order: int = query_pb2.OrderBy.ASC) -> list[query_pb2.OrderBy]:
        return [query_pb2.OrderBy(order=order, property=query_pb2.PropertyPath(value=prop))]

    reply = await client.jobs.call("Query", job_pb2.QueryRequest(spec=spec(orderBy=by("name"))))
    assert [r.name for r in reply.results] == ["qsort-a", "qsort-b"]
    assert [r.config.name for r in reply.records] == ["qsort-a", "qsort-b"]  # not summaryOnly
    # A summary is the job's config's summary fields and its runtime, as Get has them.
    info = (await client.jobs.call("Get", job_pb2.GetRequest(
        id=peloton_pb2.JobID(value=ids["qsort-a"])))).jobInfo
    c = info.config
    assert reply.results[0] == job_pb2.JobSummary(
        id=info.id, name=c.name, type=c.type, owner=c.owner, owningTeam=c.owningTeam,
        labels=c.labels, instanceCount=c.instanceCount, respoolID=c.respoolID,
        runtime=info.runtime, sla=c.sla)
    assert reply.records[0].runtime == info.runtime
    reply = await client.jobs.call("Query", job_pb2.QueryRequest(
        spec=spec(orderBy=by("creationTime", query_pb2.OrderBy.DESC), limit=1, offset=1),
        summaryOnly=True))
    assert [r.name for r in reply.results] == ["qsort-b"] and not reply.records
    assert (reply.pagination.offset, reply.pagination.total) == (1, 2)
    later = spec()
    later.creationTimeRange.min.FromSeconds(int(time.time()) + 3600)
    reply = await client.jobs.call("Query", job_pb2.QueryRequest(spec=later))
    assert reply.pagination.total == 0
    with pytest.raises(InvalidArgument, match="cannot order by 'size'"):
        await client.jobs.call("Query", job_pb2.QueryRequest(spec=spec(orderBy=by("size"))))

    failed = peloton_pb2.JobID(value=ids["qsort-a"])
    tasks = await client.tasks.call("Query", task_pb2.QueryRequest(jobId=failed, spec=(
        task_pb2.QuerySpec(pagination=query_pb2.PaginationSpec(
            orderBy=by("instance_id", query_pb2.OrderBy.DESC), limit=2)))))
    assert [t.instanceId for t in tasks.records] == [2, 1] and tasks.pagination.total == 3


async def test_peloton_service_example_runs_until_stopped(client: PelotonClient) -> None:
    """examples/testjob_stateless_service.yaml as it is: ten instances of a
    loop that never ends, goal RUNNING; the job runs until it is stopped,
    then ends KILLED."""
    config, warnings = load_job_config((EXAMPLES / "testjob_stateless_service.yaml").read_text())
    assert not warnings
    job_id = await client.create_job("/DefaultResPool", config)
    info = await client.wait_for_job(job_id, ("RUNNING",), timeout=60)
    assert job_pb2.JobState.Name(info.runtime.goalState) == "RUNNING"
    with trio.fail_after(60):
        while True:
            info = await client.get_job(job_id)
            if info.runtime.taskStats["RUNNING"] == 10:
                break
            await trio.sleep(0.2)
    out = (await client.read_task_file(job_id, 3)).decode()
    assert out.startswith("running")
    await client.tasks.call("Stop", task_pb2.StopRequest(jobId=peloton_pb2.JobID(value=job_id)))
    info = await client.wait_for_job(job_id, TERMINAL, timeout=60)
    assert job_pb2.JobState.Name(info.runtime.state) == "KILLED"
    assert info.runtime.taskStats["KILLED"] == 10


async def test_a_killed_service_instance_ends_failed_and_waits_for_its_backoff(
        client: PelotonClient) -> None:
    """SIGKILL of one instance's process: its run ends FAILED (signal 9) and
    counts, the goal stays RUNNING, the job stays RUNNING on the others, and
    the next run waits for Peloton's 30 s backoff (the engine tests time it)."""
    config, _ = load_job_config("""
name: killed-instance
type: SERVICE
instancecount: 3
defaultconfig:
  resource: {cpulimit: 0.2, memlimitmb: 64}
  command: {value: "echo $$ > pid; exec sleep 600"}
""")
    job_id = await client.create_job("/DefaultResPool", config)
    job = peloton_pb2.JobID(value=job_id)
    with trio.fail_after(60):
        while True:
            info = await client.get_job(job_id)
            if info.runtime.taskStats["RUNNING"] == 3:
                break
            await trio.sleep(0.2)
    with trio.fail_after(30):
        while True:
            with contextlib.suppress(NotFound):  # not written yet
                if pid := (await client.read_task_file(job_id, 1, "pid")).strip():
                    break
            await trio.sleep(0.1)
    os.kill(int(pid), signal.SIGKILL)
    with trio.fail_after(30):
        while True:
            reply = await client.tasks.call("Get", task_pb2.GetRequest(jobId=job, instanceId=1))
            runtime = reply.result.runtime
            if runtime.state == task_pb2.FAILED:
                break
            await trio.sleep(0.2)
    assert (runtime.goalState, runtime.failureCount) == (task_pb2.RUNNING, 1)
    assert runtime.mesosTaskId.value.endswith("-1-1")
    assert "signal 9" in runtime.message, runtime.message
    info = await client.get_job(job_id)
    assert job_pb2.JobState.Name(info.runtime.state) == "RUNNING"
    assert info.runtime.taskStats["RUNNING"] == 2
    await client.tasks.call("Stop", task_pb2.StopRequest(jobId=job))
    info = await client.wait_for_job(job_id, TERMINAL, timeout=30)
    assert job_pb2.JobState.Name(info.runtime.state) == "KILLED"


async def test_a_service_whose_health_check_fails_is_restarted(client: PelotonClient) -> None:
    """A liveness check that fails twice in a row ends the run (FAILED,
    unhealthy, reported by the host manager); the service's goal stays
    RUNNING, so the task waits for its restart backoff."""
    config, _ = load_job_config("""
name: unhealthy
type: SERVICE
instancecount: 1
defaultconfig:
  resource: {cpulimit: 0.5, memlimitmb: 64}
  command: {value: "sleep 600"}
  healthcheck:
    enabled: true
    type: COMMAND
    commandcheck: {command: "exit 1"}
    initialintervalsecs: 1
    intervalsecs: 1
    maxconsecutivefailures: 2
""")
    job_id = await client.create_job("/DefaultResPool", config)
    with trio.fail_after(60):
        while True:
            reply = await client.tasks.call("Get", task_pb2.GetRequest(
                jobId=peloton_pb2.JobID(value=job_id), instanceId=0))
            runtime = reply.result.runtime
            if runtime.state == task_pb2.FAILED:
                break
            await trio.sleep(0.2)
    assert runtime.goalState == task_pb2.RUNNING and runtime.failureCount == 1
    assert runtime.healthy == task_pb2.UNHEALTHY
    assert runtime.reason == "REASON_TASK_UNHEALTHY"
    assert runtime.message.startswith("failed 2 health checks in a row")
    await client.tasks.call("Stop", task_pb2.StopRequest(jobId=peloton_pb2.JobID(value=job_id)))
    info = await client.wait_for_job(job_id, TERMINAL, timeout=30)
    assert job_pb2.JobState.Name(info.runtime.state) == "KILLED"


async def test_a_service_restart_rolls_one_instance_at_a_time(client: PelotonClient) -> None:
    """sla.maximumUnavailableInstances 1: a restart of all three instances
    takes one down at a time; the next goes once the new run is RUNNING and
    its health check passed. Every poll sees at most one instance down."""
    config, _ = load_job_config("""
name: rolling
type: SERVICE
instancecount: 3
sla: {maximumUnavailableInstances: 1}
defaultconfig:
  resource: {cpulimit: 0.2, memlimitmb: 64}
  command: {value: "sleep 600"}
  healthcheck:
    enabled: true
    type: COMMAND
    commandcheck: {command: "true"}
    initialintervalsecs: 1
    intervalsecs: 1
""")
    job_id = await client.create_job("/DefaultResPool", config)
    job = peloton_pb2.JobID(value=job_id)

    async def runtimes() -> list[task_pb2.RuntimeInfo]:
        reply = await client.tasks.call("List", task_pb2.ListRequest(jobId=job))
        return [reply.result.value[i].runtime for i in sorted(reply.result.value)]

    def up(rt: task_pb2.RuntimeInfo) -> bool:
        return rt.state == task_pb2.RUNNING and rt.healthy == task_pb2.HEALTHY

    with trio.fail_after(60):
        while True:
            if all(up(rt) for rt in await runtimes()):
                break
            await trio.sleep(0.2)
    await client.tasks.call("Restart", task_pb2.RestartRequest(jobId=job))
    most_down, waited = 0, False
    with trio.fail_after(90):
        while True:
            rts = await runtimes()
            most_down = max(most_down, sum(not up(rt) for rt in rts))
            waited |= any(rt.message.startswith("restart waits its turn") for rt in rts)
            if all(up(rt) and rt.mesosTaskId.value.endswith("-2") for rt in rts):
                break
            await trio.sleep(0.1)
    assert most_down == 1 and waited
    await client.tasks.call("Stop", task_pb2.StopRequest(jobId=job))
    await client.wait_for_job(job_id, TERMINAL, timeout=30)


async def test_create_job_follows_its_pool_path_to_a_new_pool(client: PelotonClient) -> None:
    """create_job keeps a pool path's id a second. A pool deleted and made
    again under that path goes on taking its creates: through the same
    client at once, through another once the old id is refused. Once the
    path has no pool, the create says so."""
    await client.create_respool("/Again", pool_config("Again"))
    config, _ = load_job_config(job_yaml("true", 1))
    first = await client.create_job("/Again", config)
    await client.wait_for_job(first, TERMINAL, timeout=60)
    await client.delete_respool("/Again")
    made_again = await client.create_respool("/Again", pool_config("Again"))
    second = await client.create_job("/Again", config)
    assert (await client.get_job(second)).config.respoolID.value == made_again
    await client.wait_for_job(second, TERMINAL, timeout=60)
    await client.delete_respool("/Again")
    with pytest.raises(NotFound, match="/Again"):
        await client.create_job("/Again", config)
    # Another client knew a pool's id (one no create was checked against,
    # so the jobmgrs look it up and find it gone).
    other = PelotonClient(client.addresses)
    try:
        await client.create_respool("/Elsewhere", pool_config("Elsewhere"))
        await other._respool_ids.get("/Elsewhere")
        await client.delete_respool("/Elsewhere")
        newest = await client.create_respool("/Elsewhere", pool_config("Elsewhere"))
        third = await other.create_job("/Elsewhere", config)
        assert (await other.get_job(third)).config.respoolID.value == newest
        await other.wait_for_job(third, TERMINAL, timeout=60)
    finally:
        other.close()


async def test_bad_requests_get_clear_errors_and_change_nothing(client: PelotonClient) -> None:
    before, _ = await count_jobs(client)
    # A YAML error names the field (checked before anything is sent).
    with pytest.raises(InvalidArgument) as bad_yaml:
        load_job_config(job_yaml("true").replace("cpulimit", "cpulimt"))
    assert bad_yaml.value.field == "defaultconfig.resource.cpulimt"
    # An unknown pool.
    config, _ = load_job_config(job_yaml("true"))
    with pytest.raises(NotFound, match="/NoSuchPool"):
        await client.create_job("/NoSuchPool", config)
    # A job that can never fit its pool's limit (12 cpu).
    config, _ = load_job_config(job_yaml("true", 1, cpu=20))
    with pytest.raises(InvalidArgument, match="cpu 20"):
        await client.create_job("/DefaultResPool", config)
    # A delete of a pool that is not a leaf.
    await client.create_respool("/Parent", pool_config("Parent"))
    await client.create_respool("/Parent/Child", pool_config("Child"))
    with pytest.raises(FailedPrecondition, match="not a leaf"):
        await client.respools.call("DeleteResourcePool", respool_pb2.DeleteRequest(
            path=respool_pb2.ResourcePoolPath(value="/Parent")))
    assert await client.lookup_respool("/Parent/Child")
    # A job in a non-leaf pool.
    with pytest.raises(InvalidArgument, match="not a leaf"):
        await client.create_job("/Parent", config)
    after, _ = await count_jobs(client)
    assert after == before


async def count_jobs(client: PelotonClient) -> tuple[int, list[str]]:
    reply = await client.jobs.call("Query", job_pb2.QueryRequest(
        spec=job_pb2.QuerySpec(pagination=query_pb2.PaginationSpec(limit=1000)),
        summaryOnly=True))
    return reply.pagination.total, [s.id.value for s in reply.results]


async def test_calls_while_the_cluster_is_down_fail_quickly() -> None:
    async with open_rpc():
        client = PelotonClient(["127.0.0.1:1"], deadline=2.0)
        with trio.fail_after(10), pytest.raises(Unavailable):
            await client.lookup_respool("/DefaultResPool")


async def _job_through_kill(cluster: LocalCluster, client: PelotonClient,
                            victim: str | None) -> str:
    config, _ = load_job_config(job_yaml("sleep 4", 10))
    job_id = await client.create_job("/DefaultResPool", config)
    await client.wait_for_job(job_id, ("RUNNING",), timeout=30)
    name = victim or cluster.owner_of_shard(shard_of(job_id, cluster.num_shards))
    cluster.kill(name, signal.SIGKILL)
    try:
        info = await client.wait_for_job(job_id, TERMINAL, timeout=90)
    finally:
        cluster.restart(name)
    # Every instance ran exactly once: one run each, all succeeded.
    reply = await client.tasks.call("List", task_pb2.ListRequest(
        jobId=peloton_pb2.JobID(value=job_id)))
    runs = {i: t.runtime.mesosTaskId.value for i, t in reply.result.value.items()}
    assert len(runs) == 10
    assert all(m.endswith(f"-{i}-1") for i, m in runs.items()), runs
    return job_pb2.JobState.Name(info.runtime.state)


async def test_job_survives_sigkill_of_its_jobmgr(cluster: LocalCluster,
                                                  client: PelotonClient) -> None:
    assert await _job_through_kill(cluster, client, None) == "SUCCEEDED"


async def test_a_hostmgr_sigkill_loses_nothing_and_runs_nothing_twice(
        cluster: LocalCluster, client: PelotonClient, tmp_path: pathlib.Path) -> None:
    """The host manager dies while six runs are alive: its successor adopts
    the three still running (they keep their resources) and knows how the
    three that ended meanwhile ended; the jobmgr, seeing a new incarnation,
    reconciles at once. Each instance runs once; a marker per run counts."""
    from peloton.api.v0.host.svc import host_svc_pb2

    markers = tmp_path / "markers"
    config, _ = load_job_config(job_yaml(
        f"echo $PELOTON_TASK_ID >> {markers}; sleep $((3 + 12 * (PELOTON_INSTANCE_ID / 3)))",
        6))
    job_id = await client.create_job("/DefaultResPool", config)
    await client.wait_for_job(job_id, ("RUNNING",), timeout=30)
    with trio.fail_after(30):
        while True:  # every run has started (and written its marker)
            if markers.exists() and len(markers.read_text().split()) == 6:
                break
            await trio.sleep(0.2)
    cluster.kill("hostmgr-0", signal.SIGKILL)
    await trio.sleep(5)  # instances 0-2 end while no host manager watches
    cluster.restart("hostmgr-0")

    async def states() -> dict[int, str]:
        reply = await client.tasks.call("List", task_pb2.ListRequest(
            jobId=peloton_pb2.JobID(value=job_id)))
        return {i: task_pb2.TaskState.Name(t.runtime.state)
                for i, t in reply.result.value.items()}

    settled = {0: "SUCCEEDED", 1: "SUCCEEDED", 2: "SUCCEEDED",
               3: "RUNNING", 4: "RUNNING", 5: "RUNNING"}
    with trio.fail_after(20):  # settled by a reconcile now, not the periodic one
        while True:
            now = await states()
            if now == settled:
                break
            await trio.sleep(0.2)
    hosts = await client.hosts.call("QueryHosts", host_svc_pb2.QueryHostsRequest())
    assert sum(h.cpuAllocated for h in hosts.host_infos) == pytest.approx(1.5), now
    info = await client.wait_for_job(job_id, TERMINAL, timeout=60)
    assert job_pb2.JobState.Name(info.runtime.state) == "SUCCEEDED"
    runs = sorted(markers.read_text().split())
    assert runs == sorted(f"{job_id}-{i}-1" for i in range(6))  # each once, the first run


async def test_job_survives_sigkill_of_the_resmgr_leader(cluster: LocalCluster,
                                                         client: PelotonClient) -> None:
    """... and the replicas agree after the leader change: the new
    leader, the follower and the restarted old leader have one running
    digest at a common applied index, one full-state digest at another, and
    the leader's own comparisons found no divergence."""
    old = cluster.resmgr_leader()
    assert await _job_through_kill(cluster, client, old) == "SUCCEEDED"
    _, state = await run_job(client, job_yaml("true", 3))  # more work, the old leader back
    assert state == "SUCCEEDED"
    await assert_replicas_agree(cluster)


async def replica_stats(cluster: LocalCluster, **fields: Any) -> dict[str, cpb.Stats]:
    """Each resmgr replica's own GetStats (replicaLocal), by name; a replica
    that does not answer is left out."""
    out: dict[str, cpb.Stats] = {}
    for name in cluster.names("resmgr"):
        try:
            out[name] = await call_resmgr(cluster, name, **fields)
        except Unavailable:
            pass
    return out


async def assert_replicas_agree(cluster: LocalCluster) -> None:
    names = cluster.names("resmgr")
    # 1. The running digests at the highest applied index all three hold
    # (each keeps its last 4096 pairs, so replicas a few commands apart share one).
    with trio.fail_after(60):
        while True:
            stats = await replica_stats(cluster, digestHistory=4096)
            histories = {n: {p.index: p.digest for p in s.digest.history}
                         for n, s in stats.items()}
            common = set.intersection(*map(set, histories.values())) if histories else set()
            if len(stats) == len(names) and common:
                break
            await trio.sleep(0.2)
    index = max(common)
    assert len({s.digest.chainSince for s in stats.values()}) == 1, stats
    chains = {n: h[index] for n, h in histories.items()}
    assert len(set(chains.values())) == 1, f"replicas diverged at applied index {index}: {chains}"
    # 2. The whole state, hashed by every replica right after one applied index.
    with trio.fail_after(60):
        while True:
            at = max(s.digest.appliedIndex for s in stats.values()) + 8
            try:
                for n in names:
                    await call_resmgr(cluster, n, fullDigestAt=at)
                break
            except InvalidArgument:  # one had passed it already: further on
                stats = await replica_stats(cluster)
        while True:
            stats = await replica_stats(cluster)
            full = {n: {p.index: p.digest for p in s.digest.fullDigests}.get(at)
                    for n, s in stats.items()}
            if len(full) == len(names) and all(full.values()):
                break
            await trio.sleep(0.2)
    assert len(set(full.values())) == 1, f"states differ at applied index {at}: {full}"
    # 3. The leader compared each other replica past that index, and no
    # replica's comparisons ever found a different chain.
    with trio.fail_after(30):
        while True:
            stats = await replica_stats(cluster)
            [leader] = [s for s in stats.values() if s.leading] or [None]
            if leader is not None and len(leader.digestChecks) == len(names) - 1 and all(
                    c.agreedIndex >= at for c in leader.digestChecks):
                break
            await trio.sleep(0.5)
    assert [c for s in stats.values() for c in s.digestChecks if c.mismatches] == []


async def call_resmgr(cluster: LocalCluster, name: str, **fields: Any) -> cpb.Stats:
    channels = Channels()
    try:
        return await call_once(channels, cluster.config.get(name).grpc,
                               cluster_grpc.ClusterServiceStub, "GetStats",
                               cpb.GetStatsRequest(replicaLocal=True, **fields), 5.0)
    finally:
        channels.close()


async def test_ten_true_tasks(client: PelotonClient) -> None:
    """The figure the closing note reports (measured, not asserted)."""
    start = trio.current_time()
    _, state = await run_job(client, job_yaml("true", 10))
    assert state == "SUCCEEDED"
    print(f"10 x true: create to SUCCEEDED in {trio.current_time() - start:.2f}s")


REVOCABLE_JOB = """
name: revocable
instancecount: 3
sla: {preemptible: true, revocable: true}
defaultconfig:
  resource: {cpulimit: 1, memlimitmb: 64, disklimitmb: 10}
  command: {shell: true, value: 'sleep 0.5'}
"""


async def pending_gangs(client: PelotonClient, path: str) -> list[respool_pb2.PendingGang]:
    """What `peloton resmgr pending PATH` shows."""
    pool_id = await client.lookup_respool(path)
    reply = await client.respools.call("GetResourcePool", respool_pb2.GetRequest(
        id=peloton_pb2.ResourcePoolID(value=pool_id), pendingLimit=10))
    return list(reply.pending)


async def test_a_revocable_job_waits_for_slack_then_runs_only_on_it(
        client: PelotonClient) -> None:
    """No slack: the revocable job waits, and resmgr says why. A
    non-revocable task that idles on its 3 cpus makes them slack (measured
    from /proc); the revocable tasks then run, on that host only."""
    config, _ = load_job_config(REVOCABLE_JOB)
    revocable = await client.create_job("/DefaultResPool", config)
    reasons: list[str] = []
    with trio.fail_after(30):
        while not reasons:
            reasons = [g.reason for g in await pending_gangs(client, "/DefaultResPool")
                       if g.queue == "revocable"]
            await trio.sleep(0.2)
    assert reasons[0] == "slack entitlement: cpu 0 + 1 > 0", reasons
    info = await client.get_job(revocable)
    assert job_pb2.JobState.Name(info.runtime.state) in ("INITIALIZED", "PENDING")
    # An idle non-revocable task: allocated 3 cpus, uses none of them.
    config, _ = load_job_config(job_yaml("sleep 60", 1, cpu=3, name="idle"))
    idle = await client.create_job("/DefaultResPool", config)
    try:
        info = await client.wait_for_job(revocable, TERMINAL, timeout=60)
        assert job_pb2.JobState.Name(info.runtime.state) == "SUCCEEDED"
        tasks = await client.tasks.call("List", task_pb2.ListRequest(
            jobId=peloton_pb2.JobID(value=idle)))
        [slack_host] = {t.runtime.host for t in tasks.result.value.values()}
        tasks = await client.tasks.call("List", task_pb2.ListRequest(
            jobId=peloton_pb2.JobID(value=revocable)))
        assert {t.runtime.host for t in tasks.result.value.values()} == {slack_host}
    finally:
        await client.tasks.call("Stop", task_pb2.StopRequest(
            jobId=peloton_pb2.JobID(value=idle)))
        await client.wait_for_job(idle, TERMINAL, timeout=30)


UNPLACEABLE_JOB = """
name: nowhere
instancecount: 2
defaultconfig:
  resource: {cpulimit: 0.1, memlimitmb: 16, disklimitmb: 10}
  command: {shell: true, value: 'true'}
  constraint:
    type: LABEL_CONSTRAINT
    labelconstraint:
      kind: HOST
      condition: CONDITION_EQUAL
      requirement: 1
      label: {key: hostname, value: db-7}
"""


async def test_a_job_no_host_can_take_says_why_with_counts(
        cluster: LocalCluster, client: PelotonClient) -> None:
    """The host managers count the hosts a constraint rules out; the reason
    reaches `resmgr pending` and the tasks' message, and the gang backs off."""
    config, _ = load_job_config(UNPLACEABLE_JOB)
    job = await client.create_job("/DefaultResPool", config)
    hosts = minicluster.sizes_of(cluster.config).hosts
    want = f"{hosts} hosts: {hosts} fail `hostname == db-7`"
    try:
        reasons: list[str] = []
        with trio.fail_after(30):
            while not any(want in r for r in reasons):
                reasons = [g.reason for g in await pending_gangs(client, "/DefaultResPool")
                           if g.queue == "placement"]
                await trio.sleep(0.2)
        assert "placement failed" in reasons[0] and "next attempt in" in reasons[0], reasons
        tasks = await client.tasks.call("List", task_pb2.ListRequest(
            jobId=peloton_pb2.JobID(value=job)))
        messages = {t.runtime.message for t in tasks.result.value.values()}
        assert all(m.startswith("waiting for placement: placement failed") and want in m
                   for m in messages), messages
    finally:
        await client.tasks.call("Stop", task_pb2.StopRequest(jobId=peloton_pb2.JobID(value=job)))
        await client.wait_for_job(job, TERMINAL, timeout=30)


async def test_creates_learn_which_jobmgr_owns_a_shard_and_go_there(
        cluster: LocalCluster, client: PelotonClient) -> None:
    """Each create's answer names the owner of the job's shard (reply
    metadata); the client sends the shard's next creates there, so no
    jobmgr forwards them."""
    view = await cluster.view_async()
    owner_address = {m.id: m.address for m in view.members}
    owners = {s.shard: owner_address[s.owner] for s in view.shards}
    assert set(owners.values()) == set(client.addresses)  # two jobmgrs, both ours
    # Three jobs in a shard of each jobmgr, alternately.
    shards = [next(s for s, a in sorted(owners.items()) if a == address)
              for address in client.addresses]
    ids: dict[int, list[str]] = {s: [] for s in shards}
    while min(len(v) for v in ids.values()) < 3:
        job_id = new_job_id()
        found = ids.get(shard_of(job_id, cluster.num_shards))
        if found is not None and len(found) < 3:
            found.append(job_id)
    config, _ = load_job_config(job_yaml("true", 1))
    pool = await ensure_pool(client)
    first_tries: list[str | None] = []
    for a, b in zip(*ids.values(), strict=True):
        for job_id in (a, b):
            first_tries.append(client._owners.address(job_id))
            request = job_pb2.CreateRequest(id=peloton_pb2.JobID(value=job_id), config=config)
            request.config.respoolID.value = pool
            await client.send_create(request)
            assert client._owners.address(job_id) == owners[shard_of(job_id, cluster.num_shards)]
    assert client._owners.num_shards == cluster.num_shards
    # The first create of each shard went wherever; the rest to its owner.
    owner_of_each = [owners[shards[i % 2]] for i in range(6)]
    assert first_tries == [None, None, *owner_of_each[2:]]
    for job_id in [*ids[shards[0]], *ids[shards[1]]]:
        await client.wait_for_job(job_id, TERMINAL, timeout=60)
