"""The v1alpha stateless JobService and PodService on a real local cluster.

Peloton's own ``stateless_testspec.yaml`` shape (a container with both a
shell command and the same program as its entrypoint) is created, replaced
in batches (paused, resumed), restarted for one pod, and its pods are
restarted, stopped and started; writes with a stale EntityVersion are
refused ABORTED. Then the other v1alpha services: pools, a live watch
(and its cancel), and an operator's lockdown of writes and kills. The job is the same job in the v0 view. Then it is
stopped and deleted.
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import AsyncIterator, Callable, Iterator

import pytest
import trio
from grpclib.client import Channel
from grpclib.exceptions import GRPCError

from peloton.api.v0.job import job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v1alpha.admin.svc import admin_svc_grpc, admin_svc_pb2
from peloton.api.v1alpha.job.stateless import stateless_pb2 as sl
from peloton.api.v1alpha.job.stateless.svc import stateless_svc_pb2 as svc
from peloton.api.v1alpha.peloton import peloton_pb2 as v1
from peloton.api.v1alpha.pod import pod_pb2
from peloton.api.v1alpha.pod.svc import pod_svc_pb2
from peloton.api.v1alpha.respool import respool_pb2 as v1respool
from peloton.api.v1alpha.respool.svc import respool_svc_grpc
from peloton.api.v1alpha.respool.svc import respool_svc_pb2 as v1respool_svc
from peloton.api.v1alpha.watch import watch_pb2
from peloton.api.v1alpha.watch.svc import watch_svc_grpc, watch_svc_pb2
from peloton.cli.main import main
from peloton.client import PelotonClient
from peloton.core.errors import Aborted, FailedPrecondition, InvalidArgument, NotFound
from peloton.core.ids import new_job_id
from peloton.jobmgr.service import LOCKDOWN_PERIOD
from peloton.rpc import ServiceClient, open_rpc
from peloton.rpc.errors import from_grpc
from peloton.spec.respool import load_respool_config
from peloton.spec.v1alpha import load_stateless_spec
from peloton.testing.cluster import LocalCluster
from tests.upstream import on_asyncio

pytestmark = pytest.mark.cluster

POOL = """
name: stateless
resources:
- {kind: cpu, reservation: 2, limit: 2, share: 1}
- {kind: memory, reservation: 2048, limit: 2048, share: 1}
- {kind: disk, reservation: 1024, limit: 1024, share: 1}
- {kind: gpu, reservation: 0, limit: 0, share: 1}
"""


def spec(word: str, instances: int = 3) -> sl.JobSpec:
    job, _ = load_stateless_spec(f"""
name: TestSpec
owner: testUser
owningteam: testTeam
instancecount: {instances}
sla: {{maximumunavailableinstances: 1}}
defaultspec:
  containers:
  - resource: {{cpulimit: 0.1, memlimitmb: 32.0, disklimitmb: 10}}
    command:
      shell: true
      value: 'echo {word}; exec sleep 600'
    entrypoint:
      value: /bin/sh
      arguments: ["-c", "echo {word}; exec sleep 600"]
""")
    return job


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    with LocalCluster.start(tmp_path_factory.mktemp("stateless"), hosts=2, cpu=2) as c:
        yield c


@pytest.fixture
async def client(cluster: LocalCluster) -> AsyncIterator[PelotonClient]:
    async with open_rpc():
        client = PelotonClient(cluster.addresses)
        try:
            await client.lookup_respool("/stateless")
        except NotFound:
            config, _ = load_respool_config(POOL)
            await client.create_respool("/stateless", config)
        yield client
        client.close()


def client_v1alpha_pools(client: PelotonClient) -> ServiceClient:
    return ServiceClient(client.addresses, respool_svc_grpc.ResourcePoolServiceStub,
                         channels=client.channels)


def client_admin(client: PelotonClient) -> ServiceClient:
    return ServiceClient(client.addresses, admin_svc_grpc.AdminServiceStub,
                         channels=client.channels)


async def pods(client: PelotonClient, job_id: str) -> list[pod_pb2.PodSummary]:
    replies = await client.stateless.call("ListPods", svc.ListPodsRequest(
        job_id=v1.JobID(value=job_id)))
    return [p for reply in replies for p in reply.pods]


async def wait_running(client: PelotonClient, job_id: str, config_version: int) -> None:
    with trio.fail_after(90):
        while True:
            found = await pods(client, job_id)
            if found and all(p.status.state == pod_pb2.POD_STATE_RUNNING
                             and p.status.version.value == f"{config_version}-0-0"
                             for p in found):
                return
            await trio.sleep(0.2)


async def wait_output(client: PelotonClient, job_id: str, instance: int, text: bytes) -> None:
    """Until the pod's stdout is ``text``: RUNNING means its process
    started, not that its shell has run ``echo`` yet (on a loaded machine
    the read came first once)."""
    with trio.fail_after(30):
        while (out := await client.read_task_file(job_id, instance)) != text:
            assert text.startswith(out), out
            await trio.sleep(0.1)


async def get(client: PelotonClient, job_id: str) -> svc.GetJobResponse:
    return await client.stateless.call("GetJob", svc.GetJobRequest(
        job_id=v1.JobID(value=job_id)))


async def wait_workflow(client: PelotonClient, job_id: str, state: int) -> sl.WorkflowStatus:
    with trio.fail_after(120):
        while True:
            status = (await get(client, job_id)).job_info.status.workflow_status
            if status.state == state:
                return status
            await trio.sleep(0.2)


async def wait_killed(client: PelotonClient, job_id: str) -> None:
    with trio.fail_after(60):
        while True:
            if (await get(client, job_id)).job_info.status.state == sl.JOB_STATE_KILLED:
                return
            await trio.sleep(0.2)


async def wait_pod_killed(client: PelotonClient, name: v1.PodName) -> None:
    with trio.fail_after(60):
        while True:
            pod = await client.pods.call("GetPod", pod_svc_pb2.GetPodRequest(
                pod_name=name, status_only=True))
            if pod.current.status.state == pod_pb2.POD_STATE_KILLED:
                return
            await trio.sleep(0.2)


async def test_a_stateless_job_through_its_life(client: PelotonClient) -> None:
    pool = await client.lookup_respool("/stateless")
    job = spec("one")
    job.respool_id.value = pool
    created = await client.stateless.call("CreateJob", svc.CreateJobRequest(spec=job))
    job_id = created.job_id.value
    assert created.version.value == "1-0-0"
    await wait_running(client, job_id, 1)
    got = await get(client, job_id)
    assert got.job_info.status.state == sl.JOB_STATE_RUNNING
    assert got.job_info.spec.name == "TestSpec"
    assert got.job_info.spec.sla.maximum_unavailable_instances == 1
    assert got.job_info.status.pod_stats["POD_STATE_RUNNING"] == 3
    await wait_output(client, job_id, 1, b"one\n")
    # One store: the v0 view sees a SERVICE job.
    v0 = await client.get_job(job_id)
    assert v0.config.type == job_pb2.SERVICE and v0.runtime.state == job_pb2.RUNNING
    assert (await client.stateless.call("GetJobIDFromJobName", svc.GetJobIDFromJobNameRequest(
        job_name="TestSpec"))).job_id[0].value == job_id

    # A field with no effect is refused by name; a stale version is ABORTED.
    odd = spec("two")
    odd.default_spec.containers[0].image = "nginx"
    with pytest.raises(InvalidArgument, match=r"containers\[0\]\.image"):
        await client.stateless.call("ReplaceJob", svc.ReplaceJobRequest(
            job_id=v1.JobID(value=job_id), spec=odd))
    with pytest.raises(Aborted, match="not 7-0-0"):
        await client.stateless.call("ReplaceJob", svc.ReplaceJobRequest(
            job_id=v1.JobID(value=job_id), version=v1.EntityVersion(value="7-0-0"),
            spec=spec("two")))

    # Replace, in batches of 1, started paused, then resumed.
    diff = await client.stateless.call("GetReplaceJobDiff", svc.GetReplaceJobDiffRequest(
        job_id=v1.JobID(value=job_id), spec=spec("two")))
    assert [(getattr(r, "from"), r.to) for r in diff.instances_updated] == [(0, 3)]
    replaced = await client.stateless.call("ReplaceJob", svc.ReplaceJobRequest(
        job_id=v1.JobID(value=job_id), version=got.job_info.status.version, spec=spec("two"),
        update_spec=sl.UpdateSpec(batch_size=1, start_paused=True)))
    assert replaced.version.value == "2-0-1"
    await wait_workflow(client, job_id, sl.WORKFLOW_STATE_PAUSED)
    resumed = await client.stateless.call("ResumeJobWorkflow", svc.ResumeJobWorkflowRequest(
        job_id=v1.JobID(value=job_id), version=replaced.version))
    assert resumed.version.value == "2-0-2"
    done = await wait_workflow(client, job_id, sl.WORKFLOW_STATE_SUCCEEDED)
    assert done.type == sl.WORKFLOW_TYPE_UPDATE and done.num_instances_completed == 3
    await wait_running(client, job_id, 2)
    await wait_output(client, job_id, 2, b"two\n")
    events = await client.stateless.call("GetWorkflowEvents", svc.GetWorkflowEventsRequest(
        job_id=v1.JobID(value=job_id), instance_id=2))
    assert events.events[0].state == sl.WORKFLOW_STATE_SUCCEEDED

    # Grow to 4 pods in batches of 1, then shrink to 3 again.
    grown = await client.stateless.call("ReplaceJob", svc.ReplaceJobRequest(
        job_id=v1.JobID(value=job_id), spec=spec("two", 4),
        update_spec=sl.UpdateSpec(batch_size=1)))
    assert grown.version.value == "3-0-3"
    await wait_workflow(client, job_id, sl.WORKFLOW_STATE_SUCCEEDED)
    await wait_running(client, job_id, 3)
    assert len(await pods(client, job_id)) == 4
    await wait_output(client, job_id, 3, b"two\n")
    await client.stateless.call("ReplaceJob", svc.ReplaceJobRequest(
        job_id=v1.JobID(value=job_id), spec=spec("two", 3),
        update_spec=sl.UpdateSpec(batch_size=1)))
    await wait_workflow(client, job_id, sl.WORKFLOW_STATE_SUCCEEDED)
    assert len(await pods(client, job_id)) == 3
    await wait_running(client, job_id, 4)

    # A rolling restart of pod 0 only: a new run of it, the same config.
    before = {p.pod_name.value: p.status.pod_id.value for p in await pods(client, job_id)}
    await client.stateless.call("RestartJob", svc.RestartJobRequest(
        job_id=v1.JobID(value=job_id), restart_spec=sl.RestartSpec(
            batch_size=1, ranges=[pod_pb2.InstanceIDRange(to=1)])))
    status = await wait_workflow(client, job_id, sl.WORKFLOW_STATE_SUCCEEDED)
    assert status.type == sl.WORKFLOW_TYPE_RESTART
    await wait_running(client, job_id, 5)
    after = {p.pod_name.value: p.status.pod_id.value for p in await pods(client, job_id)}
    name0 = f"{job_id}-0"
    assert after[name0] != before[name0]
    assert all(after[n] == before[n] for n in before if n != name0)
    workflows = await client.stateless.call("ListJobWorkflows", svc.ListJobWorkflowsRequest(
        job_id=v1.JobID(value=job_id)))
    assert [w.status.type for w in workflows.workflow_infos] == [
        sl.WORKFLOW_TYPE_RESTART] + [sl.WORKFLOW_TYPE_UPDATE] * 3

    # Pods: get (with the earlier runs), restart, stop, start.
    name = v1.PodName(value=name0)
    pod = await client.pods.call("GetPod", pod_svc_pb2.GetPodRequest(pod_name=name))
    assert pod.current.status.state == pod_pb2.POD_STATE_RUNNING
    assert pod.current.spec.containers[0].command.value == "echo two; exec sleep 600"
    assert pod.previous and pod.previous[0].status.pod_id.value == before[name0]
    await client.pods.call("StopPod", pod_svc_pb2.StopPodRequest(pod_name=name))
    await wait_pod_killed(client, name)
    await client.pods.call("StartPod", pod_svc_pb2.StartPodRequest(pod_name=name))
    await wait_running(client, job_id, 5)
    events = await client.pods.call("GetPodEvents", pod_svc_pb2.GetPodEventsRequest(
        pod_name=name))
    assert events.events[0].actual_state == "POD_STATE_RUNNING"
    with pytest.raises(InvalidArgument, match="pod_name"):
        await client.pods.call("GetPod", pod_svc_pb2.GetPodRequest(
            pod_name=v1.PodName(value="nope")))

    # Stop, then delete (a running job needs force).
    current = (await get(client, job_id)).job_info.status.version
    with pytest.raises(FailedPrecondition, match="force"):
        await client.stateless.call("DeleteJob", svc.DeleteJobRequest(
            job_id=v1.JobID(value=job_id), version=current))
    stopped = await client.stateless.call("StopJob", svc.StopJobRequest(
        job_id=v1.JobID(value=job_id), version=current))
    assert stopped.version.value.split("-")[1] == str(int(current.value.split("-")[1]) + 1)
    await wait_killed(client, job_id)
    await client.stateless.call("DeleteJob", svc.DeleteJobRequest(
        job_id=v1.JobID(value=job_id)))
    with pytest.raises(NotFound):
        await get(client, job_id)
    with pytest.raises(NotFound):
        await client.jobs.call("Get", job_pb2.GetRequest(id=peloton_pb2.JobID(value=job_id)))


EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "peloton" / "examples"


async def test_the_cli_runs_pelotons_stateless_example_unchanged(
        cluster: LocalCluster, client: PelotonClient,
        capsys: pytest.CaptureFixture[str]) -> None:
    async def peloton(*argv: str) -> str:
        capsys.readouterr()
        code = await trio.to_thread.run_sync(
            main, ["--cluster", ",".join(cluster.addresses), *argv])
        out = capsys.readouterr()
        assert code == 0, out.err
        return out.out

    # Created in batches of 1 (Peloton's create workflow).
    made = json.loads(await peloton("--json", "job", "stateless", "create", "/stateless",
                                    str(EXAMPLE / "stateless_testspec.yaml"), "1"))
    job_id = made["jobId"]["value"]
    created = await peloton("job", "stateless", "get", job_id, "--watch")
    assert created.rstrip().splitlines()[-1].startswith("UPDATE SUCCEEDED: 3/3 instances done")
    await wait_running(client, job_id, 1)
    events = await client.stateless.call("GetWorkflowEvents", svc.GetWorkflowEventsRequest(
        job_id=v1.JobID(value=job_id), instance_id=2))
    assert [e.state for e in events.events] == [sl.WORKFLOW_STATE_SUCCEEDED,
                                               sl.WORKFLOW_STATE_ROLLING_FORWARD]
    got = json.loads(await peloton("--json", "job", "stateless", "get", job_id))
    version = got["jobInfo"]["status"]["version"]["value"]
    assert got["jobInfo"]["spec"]["instanceCount"] == 3 and version == "1-0-1"
    assert "RUNNING" in await peloton("job", "stateless", "list-pods", job_id)
    assert job_id in await peloton("job", "stateless", "query", "-n", "TestSpec")
    assert (await peloton("pod", "logs", f"{job_id}-1")).startswith("running 3")
    await peloton("job", "stateless", "restart", job_id, version, "-r", "1:2",
                  "--batch-size", "1")
    watched = await peloton("job", "stateless", "get", job_id, "--watch")
    assert watched.rstrip().splitlines()[-1].startswith("RESTART SUCCEEDED: 3/3 instances done")
    pod = json.loads(await peloton("--json", "pod", "get", f"{job_id}-1"))
    assert pod["current"]["status"]["podId"]["value"].endswith("-2")
    assert "RESTART" in await peloton("job", "stateless", "list-updates", job_id)
    version = json.loads(await peloton("--json", "job", "stateless", "get", job_id))[
        "jobInfo"]["status"]["version"]["value"]
    await peloton("job", "stateless", "stop", job_id, version)
    await wait_killed(client, job_id)
    await peloton("job", "stateless", "delete", job_id, "--force",
                  (await get(client, job_id)).job_info.status.version.value)
    with pytest.raises(NotFound):
        await get(client, job_id)


async def watch(address: str, request: watch_svc_pb2.WatchRequest,
                until: Callable[[watch_svc_pb2.WatchResponse], bool],
                cancel: bool = False) -> list[watch_svc_pb2.WatchResponse]:
    """A watch's messages, read live over grpclib, up to the first that
    ``until`` accepts (then the stream is dropped); with ``cancel``, all of
    them until Cancel ends it."""
    async def run() -> list[watch_svc_pb2.WatchResponse]:
        host, port = address.rsplit(":", 1)
        channel = Channel(host, int(port))
        stub = watch_svc_grpc.WatchServiceStub(channel)
        out: list[watch_svc_pb2.WatchResponse] = []
        try:
            async with stub.Watch.open() as stream:
                await stream.send_message(request, end=True)
                async for reply in stream:
                    out.append(reply)
                    if len(out) == 1 and cancel:
                        await stub_cancel(channel, reply.watch_id)
                    elif until(reply) and not cancel:
                        await stream.cancel()
                        break
        finally:
            channel.close()
        return out
    try:
        return await on_asyncio(run)
    except GRPCError as error:
        raise from_grpc(error) from None


async def stub_cancel(channel: Channel, watch_id: str) -> None:
    await watch_svc_grpc.WatchServiceStub(channel).Cancel(
        watch_svc_pb2.CancelRequest(watch_id=watch_id))


async def test_watch_lockdown_and_v1alpha_pools(cluster: LocalCluster,
                                                client: PelotonClient) -> None:
    # v1alpha pools: the v0 ones under their v1alpha names.
    pools = client_v1alpha_pools(client)
    root = await pools.call("LookupResourcePoolID", v1respool_svc.LookupResourcePoolIDRequest(
        path=v1respool.ResourcePoolPath(value="/")))
    made = await pools.call("CreateResourcePool", v1respool_svc.CreateResourcePoolRequest(
        spec=v1respool.ResourcePoolSpec(name="v1pool", parent=root.respool_id, resources=[
            v1respool.ResourceSpec(kind=kind, reservation=0.5, limit=1, share=1)
            for kind in ("cpu", "memory", "disk", "gpu")])))
    got = await pools.call("GetResourcePool", v1respool_svc.GetResourcePoolRequest(
        respool_id=made.respool_id))
    assert (got.respool.path.value, got.respool.spec.name) == ("/v1pool", "v1pool")
    assert {r.kind for r in got.respool.spec.resources} == {"cpu", "memory", "disk", "gpu"}
    listed = await pools.call("QueryResourcePools", v1respool_svc.QueryResourcePoolsRequest())
    assert "/v1pool" in {p.path.value for p in listed.respools}
    await pools.call("DeleteResourcePool", v1respool_svc.DeleteResourcePoolRequest(
        respool_id=made.respool_id))

    # A watch of stateless jobs sees one created while it watches.
    pool = await client.lookup_respool("/stateless")
    job = spec("watched", 1)
    job.respool_id.value = pool
    job_id = new_job_id()
    async with trio.open_nursery() as nursery:
        seen: list[watch_svc_pb2.WatchResponse] = []

        async def watching() -> None:
            seen.extend(await watch(cluster.addresses[0], watch_svc_pb2.WatchRequest(
                stateless_job_filter=watch_pb2.StatelessJobFilter(
                    job_ids=[v1.JobID(value=job_id)])), lambda r: bool(r.stateless_jobs)))
        nursery.start_soon(watching)
        await trio.sleep(1)
        await client.stateless.call("CreateJob", svc.CreateJobRequest(
            job_id=v1.JobID(value=job_id), spec=job))
    assert seen[0].watch_id and not seen[0].stateless_jobs
    # (before the create, the job was not found)
    assert [r.stateless_jobs_not_found[0].value for r in seen[1:-1]] in ([], [job_id])
    assert seen[-1].stateless_jobs[0].job_id.value == job_id
    assert seen[-1].watch_id == seen[0].watch_id and seen[-1].revision >= seen[0].revision
    # Cancel ends a watch.
    with trio.fail_after(10):
        ended = await watch(cluster.addresses[0], watch_svc_pb2.WatchRequest(
            pod_filter=watch_pb2.PodFilter(job_id=v1.JobID(value=job_id))), bool, cancel=True)
    assert ended[0].watch_id
    with pytest.raises(InvalidArgument, match=r"pod_filter\.job_id"):
        await watch(cluster.addresses[0], watch_svc_pb2.WatchRequest(
            pod_filter=watch_pb2.PodFilter()), bool)

    # Lockdown: writes refused while Write is locked; launches held while Launch is.
    admin = client_admin(client)
    await admin.call("Lockdown", admin_svc_pb2.LockdownRequest(
        components=[admin_svc_pb2.Write]))
    await trio.sleep(2 * LOCKDOWN_PERIOD)
    with pytest.raises(FailedPrecondition, match="locked down"):
        await client.stateless.call("StopJob", svc.StopJobRequest(
            job_id=v1.JobID(value=job_id)))
    await get(client, job_id)  # reads go on
    await admin.call("RemoveLockdown", admin_svc_pb2.RemoveLockdownRequest(
        components=[admin_svc_pb2.Write]))
    await wait_running(client, job_id, 1)
    await admin.call("Lockdown", admin_svc_pb2.LockdownRequest(
        components=[admin_svc_pb2.Kill]))
    # Every jobmgr reads the lockdown each second; the job's owner may be the other one.
    await trio.sleep(2 * LOCKDOWN_PERIOD)
    await client.stateless.call("StopJob", svc.StopJobRequest(job_id=v1.JobID(value=job_id)))
    await trio.sleep(2)
    assert [p.status.state for p in await pods(client, job_id)] == [pod_pb2.POD_STATE_KILLING]
    await admin.call("RemoveLockdown", admin_svc_pb2.RemoveLockdownRequest(
        components=[admin_svc_pb2.Kill]))
    await wait_killed(client, job_id)
