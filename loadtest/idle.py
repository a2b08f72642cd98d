"""What an idle local cluster costs, and what a job that no host can take adds.

``python -m loadtest.idle [--window S] [--dir DIR]`` starts a local cluster
(as ``peloton minicluster up``), sums the cpu time of its daemons over
``--window`` seconds (60) with no job, then creates a job whose constraint
no host satisfies (``hostname == db-7``), prints what ``task list`` and
``resmgr pending`` say about it after 10 s, and sums the daemons' cpu over
the same window again. The difference is what waiting costs: placement
backs off instead of retrying the gang four times a second.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import trio

from peloton.client import PelotonClient
from peloton.rpc import open_rpc
from peloton.spec.job import load_job_config
from peloton.spec.respool import load_respool_config
from peloton.testing.cluster import LocalCluster

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "peloton" / "examples"
NOWHERE = """
name: nowhere
instanceCount: 3
defaultConfig:
  resource: {cpuLimit: 0.1, memLimitMb: 32}
  command: {value: "sleep 1"}
  constraint:
    type: LABEL_CONSTRAINT
    labelConstraint:
      kind: HOST
      condition: CONDITION_EQUAL
      label: {key: hostname, value: db-7}
      requirement: 1
"""
TICK = os.sysconf("SC_CLK_TCK")


def daemons_cpu(pids: list[int]) -> float:
    """Cpu seconds (user + system) the processes have used so far."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                fields = f.read().rpartition(b")")[2].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            continue
    return total / TICK


def over(pids: list[int], window: float) -> float:
    before = daemons_cpu(pids)
    time.sleep(window)
    return daemons_cpu(pids) - before


async def create_unplaceable(cluster: LocalCluster) -> str:
    async with open_rpc():
        client = PelotonClient(cluster.addresses)
        try:
            pool, _ = load_respool_config((EXAMPLES / "default_respool.yaml").read_text())
            await client.create_respool("/DefaultResPool", pool)
            config, _ = load_job_config(NOWHERE)
            return await client.create_job("/DefaultResPool", config)
        finally:
            client.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtest.idle",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--window", type=float, default=60.0,
                        help="seconds to sum cpu over, each time (default 60)")
    parser.add_argument("--dir", type=pathlib.Path, default=None,
                        help="the cluster's directory (default: a new temporary one)")
    args = parser.parse_args(argv)
    if not args.window > 0:
        parser.error("--window must be positive")
    directory = args.dir or pathlib.Path(tempfile.mkdtemp(prefix="peloton-idle-"))
    cluster = LocalCluster.start(directory, clean=True)
    try:
        pids = [d.pid for d in cluster.state.daemons]
        idle = over(pids, args.window)
        print(f"no job: {idle:.2f} cpu s over {args.window:g} s ({len(pids)} daemons)",
              flush=True)
        job_id = trio.run(create_unplaceable, cluster)
        time.sleep(10)
        env = {**os.environ, "PELOTON_CLUSTER": ",".join(cluster.addresses)}
        for command in (["task", "list", job_id], ["resmgr", "pending", "/DefaultResPool"]):
            out = subprocess.run([sys.executable, "-m", "peloton.cli.main", *command],
                                 capture_output=True, text=True, env=env)
            print(f"$ peloton {' '.join(command)}\n{out.stdout}{out.stderr}", flush=True)
        waiting = over(pids, args.window)
        print(f"a job no host can take, waiting: {waiting:.2f} cpu s over {args.window:g} s "
              f"({waiting - idle:+.2f} s)", flush=True)
    finally:
        cluster.stop(clean=args.dir is None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
