"""Revocable jobs yield to non-revocable ones, end to end, on a real local cluster.

A cluster of its own: one host of 4 cpu and 1024 MiB, the preemption
sustain period at 1 s, and the host manager sampling usage every 0.5 s
over 2 s (instead of 2 s over 10 s), so a task's idle cpu turns into slack,
and back, within a couple of seconds. Every wait polls the API with a
deadline; each test stops its jobs, so the next starts from an idle cluster.

The two ways a non-revocable job gets resources back from revocable ones:

* cpu: revocable tasks run on the cpu non-revocable tasks were given but
  leave idle. When those get busy the slack shrinks below what revocable
  tasks hold, and resmgr preempts them (the pool's slack allocation is
  over its slack entitlement for the sustain period).
* memory, disk, gpu: revocable tasks take those from their pool's own.
  Non-revocable demand in a pool short of them shrinks the pool's slack
  entitlement (revocable tasks get only what the non-revocable requirement
  leaves), so its revocable tasks are preempted first, and the waiting job
  runs once they have gone.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import yaml

from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.respool import respool_pb2
from peloton.api.v0.task import task_pb2
from peloton.client import PelotonClient
from peloton.core.errors import InvalidArgument
from peloton.ops import minicluster
from peloton.spec.job import load_job_config
from peloton.spec.respool import load_respool_config
from peloton.testing.cluster import LocalCluster
from tests.e2e.test_preemption import Env, all_running, open_env, run_of, runtimes, state, until

pytestmark = pytest.mark.cluster

SLACK_EXCESS = "uses more slack than its slack entitlement"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    directory = tmp_path_factory.mktemp("revocable")
    minicluster.prepare(directory, minicluster.Sizes(hosts=1, cpu=4, memory_mb=1024,
                                                     placements=1),
                        extra={"preemption": {"sustain_s": 1}})
    path = minicluster.cluster_path(directory)
    data = yaml.safe_load(path.read_text())
    data["hostmgr"][0].update(usage_period=0.5, usage_window=2)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    with LocalCluster.start(directory) as c:  # reuses the file written above
        yield c


@pytest.fixture
async def env(cluster: LocalCluster) -> AsyncIterator[Env]:
    # Its jobs ended, wait until resmgr knows their slack is gone: it learns
    # the slack every 2 s, and the next test's revocable job must not be
    # admitted on this one's (and preempted once the truth is in).
    async with open_env(cluster, idle=lambda client: until(
            "no slack left", lambda: no_slack(client))) as e:
        yield e


async def no_slack(client: PelotonClient) -> bool:
    return (await usage(client, "/", "cpu")).slackEntitlement == 0


async def make_pool(client: PelotonClient, name: str, *, cpu: float, memory: float,
                    memory_limit: float, slack_pct: float = 20) -> str:
    config, _ = load_respool_config(f"""
name: {name}
resources:
- {{kind: cpu, reservation: {cpu}, limit: {cpu}, share: 1}}
- {{kind: memory, reservation: {memory}, limit: {memory_limit}, share: 1}}
- {{kind: disk, reservation: 256, limit: 1024, share: 1}}
slackLimit: {{maxPercent: {slack_pct}}}
""", path=f"/{name}")
    await client.create_respool(f"/{name}", config)
    return f"/{name}"


async def start_job(env: Env, pool: str, name: str, command: str, *, cpu: float,
                    memory: float = 32, instances: int = 1, preemptible: bool = True,
                    revocable: bool = False) -> str:
    config, _ = load_job_config(f"""
name: {name}
instancecount: {instances}
sla: {{preemptible: {str(preemptible).lower()}, revocable: {str(revocable).lower()}}}
defaultconfig:
  resource: {{cpulimit: {cpu}, memlimitmb: {memory}, disklimitmb: 10}}
  killgraceperiodseconds: 2
  command: {{shell: true, value: {json.dumps(command)}}}
""")
    job_id = await env.client.create_job(pool, config)
    env.jobs.append(job_id)
    return job_id


async def pending_reasons(client: PelotonClient, path: str, queue: str) -> list[str]:
    """Why the gangs of one of the pool's queues wait (`peloton resmgr pending`)."""
    reply = await client.respools.call("GetResourcePool", respool_pb2.GetRequest(
        id=peloton_pb2.ResourcePoolID(value=await client.lookup_respool(path)),
        pendingLimit=10))
    return [g.reason for g in reply.pending if g.queue == queue]


async def usage(client: PelotonClient, path: str, kind: str) -> respool_pb2.ResourceUsage:
    info = (await client.get_respool(path)).poolinfo
    return next(u for u in info.usage if u.kind == kind)


async def untouched(client: PelotonClient, *jobs: str) -> None:
    """Every task of ``jobs`` still runs its first run."""
    for job in jobs:
        for rt in await runtimes(client, job):
            assert (state(rt), run_of(rt)) == ("RUNNING", 1), rt


async def test_a_revocable_job_yields_when_its_lender_gets_busy(env: Env,
                                                                tmp_path: Path) -> None:
    """web idles on its cpu, which the revocable batch job runs on (beyond
    /R's cpu limit: slack cpu is not the pool's). web gets busy: the slack
    shrinks, batch is preempted and waits for slack again as run 2, while
    web and the non-preemptible steady run on untouched."""
    client = env.client
    r = await make_pool(client, "R", cpu=1.1, memory=512, memory_limit=1024)
    flag = tmp_path / "busy"
    # Idle until the flag appears, then busy for at most 20 s (--foreground
    # keeps the loop in the task's process group, where usage is measured).
    web = await start_job(env, r, "web", f"while [ ! -e {flag} ]; do sleep 0.2; done; "
                          "timeout --foreground 20 sh -c 'while :; do :; done'",
                          cpu=1, preemptible=False)
    steady = await start_job(env, r, "steady", "sleep 600", cpu=0.1, preemptible=False)
    batch = await start_job(env, r, "batch", "sleep 600", cpu=0.9, revocable=True)
    await all_running(client, web)
    await all_running(client, steady)
    await all_running(client, batch)  # once web's idle cpu is measured
    cpu = await usage(client, r, "cpu")
    assert (cpu.slackAllocation, cpu.allocation) == (pytest.approx(0.9), pytest.approx(2.0))

    flag.touch()

    async def preempted() -> task_pb2.RuntimeInfo | None:
        [rt] = await runtimes(client, batch)
        return rt if run_of(rt) > 1 else None

    rt = await until("batch preempted", preempted)
    assert f"run 1 preempted: pool /R {SLACK_EXCESS}: cpu 0.9 > " in rt.message, rt.message
    assert rt.failureCount == 0
    # Run 2 waits for slack while web stays busy.
    reasons = await until("batch waiting for slack", lambda: pending_reasons(client, r,
                                                                            "revocable"))
    assert re.fullmatch(r"slack entitlement: cpu 0 \+ 0\.9 > 0(\.\d+)?", reasons[0]), reasons
    # resmgr has run 2 once its enqueue committed; the jobmgr writes it
    # PENDING when the reply is back, a moment later.

    async def pending() -> task_pb2.RuntimeInfo | None:
        [rt] = await runtimes(client, batch)
        return rt if state(rt) == "PENDING" else None

    rt = await until("run 2 PENDING in the jobmgr", pending)
    assert (state(rt), run_of(rt)) == ("PENDING", 2)
    await untouched(client, web, steady)


async def test_a_non_revocable_job_takes_back_the_memory_revocable_tasks_hold(
        env: Env) -> None:
    """/M's revocable tasks hold 400 MiB of its memory (up to its slack
    limit, half its reservation). A non-revocable job needs 800 MiB: /M's
    memory limit and the host are short of it, so the revocable tasks go
    (the preemptible, non-revocable spare does not) and the job runs."""
    client = env.client
    m = await make_pool(client, "M", cpu=2, memory=1024, memory_limit=1024, slack_pct=50)
    # A revocable task that could never run is refused at create, naming why.
    with pytest.raises(InvalidArgument, match=re.escape(
            "sla.revocable: instance 0 is revocable and needs memory 600, more than pool /M "
            "lets revocable tasks use (512: its slackLimit 50% of its memory reservation "
            "1024); it could never run")):
        await start_job(env, m, "huge", "sleep 600", cpu=0.1, memory=600, revocable=True)
    web = await start_job(env, m, "web", "sleep 600", cpu=1, memory=64, preemptible=False)
    spare = await start_job(env, m, "spare", "sleep 600", cpu=0.5, memory=64)
    batch = await start_job(env, m, "batch", "sleep 600", cpu=0.4, memory=200, instances=2,
                            revocable=True)
    for job in (web, spare, batch):
        await all_running(client, job)

    report = await start_job(env, m, "report", "sleep 600", cpu=0.5, memory=800)
    await all_running(client, report)
    rts = await runtimes(client, batch)
    assert [(state(rt), run_of(rt)) for rt in rts] == [("PENDING", 2)] * 2
    assert all(f"run 1 preempted: pool /M {SLACK_EXCESS}: memory 400 > " in rt.message
               for rt in rts), [rt.message for rt in rts]
    await untouched(client, web, spare)
    # They wait for memory the pool no longer has for them.
    reasons = await until("batch waiting", lambda: pending_reasons(client, m, "revocable"))
    assert "memory 0 + 200 > " in reasons[0], reasons
