"""Preemption end to end, through the API, on a real local cluster.

A small cluster of its own (2 hosts of 2 cpu: 4 cpu in all) with the
preemption sustain period lowered to 1 s through the cluster file, so a
pool over its entitlement gives back within a couple of seconds. Tasks
sleep (killed by SIGTERM at once); every wait polls the API with a deadline.
Each test stops its jobs, so the next starts from an idle cluster.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import trio

from peloton.api.v0.job import job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.task import task_pb2
from peloton.client import PelotonClient
from peloton.core.errors import InvalidArgument
from peloton.rpc import open_rpc
from peloton.spec.job import load_job_config
from peloton.spec.respool import load_respool_config
from peloton.testing.cluster import LocalCluster

pytestmark = pytest.mark.cluster

TERMINAL = ("SUCCEEDED", "FAILED", "KILLED")
PREEMPTED = task_pb2.TerminationStatus.TERMINATION_STATUS_REASON_PREEMPTED_RESOURCES


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    with LocalCluster.start(tmp_path_factory.mktemp("preemption"), hosts=2, cpu=2,
                            placements=1, extra={"preemption": {"sustain_s": 1}}) as c:
        yield c


@dataclass
class Env:
    client: PelotonClient
    jobs: list[str] = field(default_factory=list)  # to stop after the test


@contextlib.asynccontextmanager
async def open_env(cluster: LocalCluster, *,
                   idle: Callable[[PelotonClient], Awaitable[Any]] | None = None,
                   ) -> AsyncIterator[Env]:
    """An Env on ``cluster``. On exit its jobs are stopped and waited for,
    then ``idle`` is awaited: the next test finds the cluster idle."""
    async with open_rpc():
        e = Env(PelotonClient(cluster.addresses))
        try:
            yield e
        finally:
            for job_id in e.jobs:
                await e.client.tasks.call("Stop", task_pb2.StopRequest(
                    jobId=peloton_pb2.JobID(value=job_id)))
            for job_id in e.jobs:
                await e.client.wait_for_job(job_id, TERMINAL, timeout=30)
            if idle is not None:
                await idle(e.client)
            e.client.close()


@pytest.fixture
async def env(cluster: LocalCluster) -> AsyncIterator[Env]:
    async with open_env(cluster) as e:
        yield e


async def make_pool(client: PelotonClient, name: str, *, reservation: float,
                    priority_preemption: bool = False) -> str:
    config, _ = load_respool_config(f"""
name: {name}
resources:
- {{kind: cpu, reservation: {reservation}, limit: 4, share: 1}}
- {{kind: memory, reservation: 256, limit: 4096, share: 1}}
- {{kind: disk, reservation: 256, limit: 4096, share: 1}}
priorityPreemption: {str(priority_preemption).lower()}
""", path=f"/{name}")
    await client.create_respool(f"/{name}", config)
    return f"/{name}"


async def start_job(env: Env, pool: str, name: str, instances: int, *,
                    priority: int = 0, preemptible: bool = True,
                    kill_on_preempt: bool = False) -> str:
    config, _ = load_job_config(f"""
name: {name}
instancecount: {instances}
sla: {{priority: {priority}, preemptible: {str(preemptible).lower()}}}
defaultconfig:
  resource: {{cpulimit: 1, memlimitmb: 32, disklimitmb: 10}}
  killgraceperiodseconds: 2
  preemptionpolicy: {{killonpreempt: {str(kill_on_preempt).lower()}}}
  command: {{shell: true, value: 'sleep 600'}}
""")
    job_id = await env.client.create_job(pool, config)
    env.jobs.append(job_id)
    return job_id


async def runtimes(client: PelotonClient, job_id: str) -> list[task_pb2.RuntimeInfo]:
    reply = await client.tasks.call("List", task_pb2.ListRequest(
        jobId=peloton_pb2.JobID(value=job_id)))
    return [reply.result.value[i].runtime for i in sorted(reply.result.value)]


def state(rt: task_pb2.RuntimeInfo) -> str:
    return task_pb2.TaskState.Name(rt.state)


def run_of(rt: task_pb2.RuntimeInfo) -> int:
    return int(rt.mesosTaskId.value.rsplit("-", 1)[1])


async def until(what: str, check: Callable[[], Awaitable[Any]], timeout: float = 30) -> Any:
    """Poll ``check`` until it returns something true; fail naming ``what``
    and the last value after ``timeout`` seconds."""
    last: Any = None
    with trio.move_on_after(timeout):
        while True:
            last = await check()
            if last:
                return last
            await trio.sleep(0.2)
    raise AssertionError(f"{what}: not so after {timeout}s (last: {last!r})")


async def all_running(client: PelotonClient, job_id: str) -> list[task_pb2.RuntimeInfo]:
    seen: list[str] = []

    async def check() -> list[task_pb2.RuntimeInfo] | None:
        rts = await runtimes(client, job_id)
        seen[:] = [f"{state(rt)} run {run_of(rt)}: {rt.message}" for rt in rts]
        return rts if all(state(rt) == "RUNNING" for rt in rts) else None
    try:
        return await until(f"every task of {job_id} RUNNING", check)
    except AssertionError as error:
        raise AssertionError(f"{error}; tasks: {seen}") from None


async def entitlement(client: PelotonClient, pool: str) -> float:
    info = (await client.get_respool(pool)).poolinfo
    return next(u.entitlement for u in info.usage if u.kind == "cpu")


async def test_an_idle_pools_share_flows_to_a_busy_pool_and_comes_back_by_preemption(
        env: Env) -> None:
    """/A uses all 4 cpu while /B is idle; /B gets busy, /A goes over its
    entitlement and gives 2 cpu back (its non-preemptible task untouched);
    /B's job ends and /A takes the cpu again."""
    client = env.client
    a = await make_pool(client, "A", reservation=1)
    b = await make_pool(client, "B", reservation=1)
    steady = await start_job(env, a, "steady", 1, preemptible=False)
    elastic = await start_job(env, a, "elastic", 3)
    await all_running(client, steady)
    await all_running(client, elastic)
    assert await entitlement(client, a) == pytest.approx(4)

    busy = await start_job(env, b, "busy", 2)
    await all_running(client, busy)
    assert (await entitlement(client, a), await entitlement(client, b)) == (
        pytest.approx(2), pytest.approx(2))
    [kept] = await runtimes(client, steady)
    assert (state(kept), run_of(kept)) == ("RUNNING", 1)  # non-preemptible: never touched
    rts = await runtimes(client, elastic)
    preempted = [rt for rt in rts if run_of(rt) == 2]
    assert len(preempted) == 2 and all(state(rt) == "PENDING" for rt in preempted)
    assert all("run 1 preempted: pool /A uses more than its entitlement" in rt.message
               for rt in preempted), [rt.message for rt in preempted]
    assert [state(rt) for rt in rts if run_of(rt) == 1] == ["RUNNING"]
    assert all(rt.failureCount == 0 for rt in rts)

    await client.tasks.call("Stop", task_pb2.StopRequest(jobId=peloton_pb2.JobID(value=busy)))
    rts = await all_running(client, elastic)  # B's share flows back to A
    assert sorted(run_of(rt) for rt in rts) == [1, 2, 2]


async def test_priority_preemption_inside_a_pool(env: Env) -> None:
    """/P is full of priority-0 tasks; a priority-10 job there takes 2 cpu
    from them, and they wait behind it."""
    client = env.client
    p = await make_pool(client, "P", reservation=0, priority_preemption=True)
    # Non-preemptible work runs only within a reservation: refused, naming why.
    with pytest.raises(InvalidArgument, match=re.escape(
            "sla.preemptible: instance 0 is non-preemptible and needs cpu 1, more than pool /P "
            "reserves (0)")):
        await start_job(env, p, "np", 1, preemptible=False)
    assert env.jobs == []
    low = await start_job(env, p, "low", 4, priority=0)
    await all_running(client, low)
    high = await start_job(env, p, "high", 2, priority=10)
    await all_running(client, high)
    rts = await runtimes(client, low)
    assert sorted((run_of(rt), state(rt)) for rt in rts) == [
        (1, "RUNNING"), (1, "RUNNING"), (2, "PENDING"), (2, "PENDING")]
    assert all("priority preemption in pool /P: a gang of priority 10 waits" in rt.message
               for rt in rts if run_of(rt) == 2)
    pending = (await client.get_respool(p)).poolinfo
    assert next(u.demand for u in pending.usage if u.kind == "cpu") == 2


async def test_a_non_preemptible_job_is_never_preempted(env: Env) -> None:
    """In /N the non-preemptible tasks have the lowest priority, so the
    ranking would take them first: the preemptible ones go instead (and,
    killOnPreempt, end KILLED for good)."""
    client = env.client
    n = await make_pool(client, "N", reservation=2, priority_preemption=True)
    steady = await start_job(env, n, "steady", 2, priority=0, preemptible=False)
    spark = await start_job(env, n, "spark", 2, priority=1, kill_on_preempt=True)
    await all_running(client, steady)
    await all_running(client, spark)
    high = await start_job(env, n, "high", 2, priority=10)
    await all_running(client, high)
    info = await client.wait_for_job(spark, TERMINAL, timeout=30)
    assert job_pb2.JobState.Name(info.runtime.state) == "KILLED"
    for rt in await runtimes(client, spark):
        assert (state(rt), run_of(rt), rt.goalState) == ("KILLED", 1, task_pb2.KILLED)
        assert rt.terminationStatus.reason == PREEMPTED
    for rt in await runtimes(client, steady):
        assert (state(rt), run_of(rt)) == ("RUNNING", 1)
