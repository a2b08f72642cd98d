"""Latency and failover on a real local cluster: the README's "Measured" table.

``python -m loadtest.failover [--repeat N] [--dir DIR]`` starts a local
cluster (3 resmgr, 2 jobmgr, 2 placement, 1 hostmgr with the ``local``
backend, as ``peloton minicluster up``) and measures, through the API:

- how long the cluster takes to start and take jobs;
- ``job create`` -> SUCCEEDED for 10 instances of ``true`` (median of N);
- SIGKILL of the resmgr leader -> another replica leads and answers (median
  of N, the old leader restarted in between);
- SIGKILL of the jobmgr owning shard 0 -> the shard has a new owner (median
  of N, restarted in between);
- SIGKILL of the hostmgr while four ``sleep 3`` tasks run, restarted after
  they ended: from the restarted hostmgr serving until the job shows
  SUCCEEDED (median of N; each instance must have run once).

It prints one line per figure and a JSON summary, then stops the cluster.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from peloton.api.v0.job import job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.task import task_pb2
from peloton.client import PelotonClient
from peloton.core.errors import NotFound, PelotonError
from peloton.rpc import open_rpc
from peloton.spec.job import load_job_config
from peloton.spec.respool import load_respool_config
from peloton.testing.cluster import LocalCluster

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "peloton" / "examples"
TEN_TRUE = """
name: ten-true
instancecount: 10
defaultconfig:
  resource: {cpulimit: 0.5, memlimitmb: 64, disklimitmb: 10}
  command: {shell: true, value: 'true'}
"""
FOUR_SLEEPS = """
name: four-sleeps
instancecount: 4
defaultconfig:
  resource: {cpulimit: 0.5, memlimitmb: 64, disklimitmb: 10}
  command: {shell: true, value: 'sleep 3'}
"""
POLL_S = 0.05


async def _until(check: Callable[[], Awaitable[bool]], timeout: float) -> float:
    """Seconds until ``check()`` is true (polled every POLL_S)."""
    start = time.monotonic()
    with trio.fail_after(timeout):
        while True:
            try:
                if await check():
                    return time.monotonic() - start
            except PelotonError:
                pass  # the cluster is between leaders: ask again
            await trio.sleep(POLL_S)


async def _measure(cluster: LocalCluster, repeat: int, out: Callable[[str], None]) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    client = PelotonClient(cluster.addresses)
    try:
        try:
            await client.lookup_respool("/DefaultResPool")
        except NotFound:
            config, _ = load_respool_config((EXAMPLES / "default_respool.yaml").read_text())
            await client.create_respool("/DefaultResPool", config)
        job, _ = load_job_config(TEN_TRUE)
        runs = []
        for _ in range(repeat):
            start = time.monotonic()
            job_id = await client.create_job("/DefaultResPool", job)
            info = await client.wait_for_job(job_id, ("SUCCEEDED", "FAILED", "KILLED"),
                                             timeout=60)
            runs.append(time.monotonic() - start)
            if info.runtime.state != job_pb2.JobState.SUCCEEDED:
                raise SystemExit(f"loadtest.failover: job {job_id} did not succeed")
        figures["ten_true_s"] = runs
        out(f"job create -> SUCCEEDED, 10 x true: median {statistics.median(runs):.2f} s "
            f"(of {repeat}: {', '.join(f'{r:.2f}' for r in runs)})")

        leader_runs = []
        for _ in range(repeat):
            old = (await cluster.view_async()).leader
            name = next(d.name for d in cluster.config.of_kind("resmgr") if d.grpc == old)
            cluster.kill(name, signal.SIGKILL)

            async def new_leader(old: str = old) -> bool:
                view = await cluster.view_async()
                return bool(view.leader) and view.leader != old

            leader_runs.append(await _until(new_leader, 60))
            await trio.to_thread.run_sync(cluster.restart, name)
        figures["resmgr_leader_failover_s"] = leader_runs
        out(f"SIGKILL of the resmgr leader -> a new leader answers: median "
            f"{statistics.median(leader_runs):.2f} s ({', '.join(f'{r:.2f}' for r in leader_runs)})")

        shard_runs = []
        for _ in range(repeat):
            view = await cluster.view_async()
            owner = next(str(s.owner) for s in view.shards if s.shard == 0)
            cluster.kill(owner, signal.SIGKILL)

            async def moved(owner: str = owner) -> bool:
                shards = (await cluster.view_async()).shards
                return any(s.shard == 0 and str(s.owner) != owner for s in shards)

            shard_runs.append(await _until(moved, 60))
            await trio.to_thread.run_sync(cluster.restart, owner)
        figures["jobmgr_shard_failover_s"] = shard_runs
        out(f"SIGKILL of a shard's jobmgr -> the shard has a new owner: median "
            f"{statistics.median(shard_runs):.2f} s ({', '.join(f'{r:.2f}' for r in shard_runs)})")

        hostmgr_runs = []
        sleeps, _ = load_job_config(FOUR_SLEEPS)
        for _ in range(repeat):
            job_id = await client.create_job("/DefaultResPool", sleeps)
            await client.wait_for_job(job_id, ("RUNNING",), timeout=60)
            cluster.kill("hostmgr-0", signal.SIGKILL)
            await trio.sleep(4)  # the runs end while no host manager watches
            await trio.to_thread.run_sync(cluster.restart, "hostmgr-0")

            async def settled(job_id: str = job_id) -> bool:
                info = await client.get_job(job_id)
                return info.runtime.state == job_pb2.JobState.SUCCEEDED

            hostmgr_runs.append(await _until(settled, 300))
            reply = await client.tasks.call("List", task_pb2.ListRequest(
                jobId=peloton_pb2.JobID(value=job_id)))
            if any(not t.runtime.mesosTaskId.value.endswith("-1")
                   for t in reply.result.value.values()):
                raise SystemExit(f"loadtest.failover: job {job_id} ran a task twice")
        figures["hostmgr_restart_settled_s"] = hostmgr_runs
        out(f"SIGKILL of the hostmgr -> after its restart the runs that ended meanwhile show "
            f"their end: median {statistics.median(hostmgr_runs):.2f} s "
            f"({', '.join(f'{r:.2f}' for r in hostmgr_runs)})")
    finally:
        client.close()
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtest.failover",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of each figure (default 5)")
    parser.add_argument("--dir", type=pathlib.Path, default=None,
                        help="the cluster's directory (default: a new temporary one)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    directory = args.dir or pathlib.Path(tempfile.mkdtemp(prefix="peloton-failover-"))
    start = time.monotonic()
    cluster = LocalCluster.start(directory, clean=True)
    try:
        up = time.monotonic() - start
        print(f"cluster up and taking jobs: {up:.1f} s", flush=True)

        async def run() -> dict[str, Any]:
            async with open_rpc():
                return await _measure(cluster, args.repeat, lambda line: print(line, flush=True))

        figures = trio.run(run)
        figures["cluster_up_s"] = up
        print(json.dumps(figures))
    finally:
        cluster.stop(clean=args.dir is None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
