"""What the resmgr state machine costs per task, without Raft or gRPC.

Replays a load test's command stream through ``ResmgrState.apply`` in one
process: enqueue JOBS x INSTANCES tasks, then cycles of dequeue, set
placements, get placements, RUNNING, and end, with ``cluster.tick`` and
heartbeats between them as the leader would send, and reports time per
command kind, bytes of RSS per tracked task and the snapshot's size
and time, and what the running digest (``peloton.resmgr.digest``) adds to
each command, measured by hashing the same inputs again. A quick way to
see a change to ``peloton/resmgr/state.py`` move the figures before running
a full load test (``--repeat 5``: each command's least time of five runs,
steadier on a busy machine)::

    python -m loadtest.bench_resmgr --jobs 1000 --instances 1000
"""

from __future__ import annotations

import argparse
import collections
import gc
import math
import os
import time
import uuid
from typing import Any

import msgpack

from peloton.api.private.resmgrsvc import resmgrsvc_pb2 as rpb
from peloton.core.states import TaskState
from peloton.raft.codec import Command, encode
from peloton.resmgr import digest
from peloton.resmgr.service import task_row
from peloton.resmgr.state import ResmgrState

RUNNING, SUCCEEDED = int(TaskState.RUNNING), int(TaskState.SUCCEEDED)


def task(job: str, instance: int, shard: int, preemptible: bool = False) -> rpb.Task:
    return rpb.Task(
        id=f"{job}-{instance}", jobId=job, mesosTaskId=f"{job}-{instance}-1",
        resource=rpb.Resources(cpu=1, memMb=1024, diskMb=1024), priority=0,
        preemptible=preemptible, shard=shard, type=rpb.BATCH, minInstances=1,
        name=f"bulk-{instance}")


def _job_id() -> str:
    """A fresh job id (a UUID's 36 characters)."""
    return uuid.uuid4().hex[:8] + "-" + uuid.uuid4().hex[:4] + "-0000-0000-000000000000"


class Bench:
    def __init__(self, shards: int = 32, preemptible: bool = False) -> None:
        self.state = ResmgrState(shards)
        self.preemptible = preemptible  # admitted tasks then sit in the victim index
        self.now = 1_000_000.0
        self.seconds: dict[str, float] = collections.defaultdict(float)
        self.calls: collections.Counter[str] = collections.Counter()
        self.digest_seconds: dict[str, float] = collections.defaultdict(float)

    def apply(self, name: str, payload: Any) -> Any:
        blob = encode(Command(name, uuid.uuid4().hex, payload))
        start = time.perf_counter()
        result = self.state.apply(blob)
        self.seconds[name] += time.perf_counter() - start
        self.calls[name] += 1
        # The running digest's part of that, done again on the same inputs.
        start = time.perf_counter()
        tail = msgpack.packb([result, self.state.summary()], use_bin_type=True)
        digest.step(self.state.chain, blob, tail)
        self.digest_seconds[name] += time.perf_counter() - start
        ok, value = result
        if not ok:
            raise RuntimeError(f"{name}: {value}")
        return value

    def setup(self) -> None:
        self.apply("member.heartbeat", {"now": self.now, "member": {
            "id": "jm", "kind": "jobmgr", "address": "x", "cluster": ""}})
        for pid, parent, amount in (("bulk", "root", 1e9), ("probes", "root", 1e6)):
            self.apply("pool.create", {
                "id": pid, "name": pid, "parent": parent, "config": b"",
                "resources": {k: [amount, amount, 1, 1] for k in
                              ("cpu", "memory", "disk", "gpu")}})
        self.apply("cluster.capacity", {"cluster": "c", "physical": [320000, 1.3e9, 1e10, 0]})

    def enqueue(self, jobs: int, instances: int) -> None:
        for j in range(jobs):
            job = _job_id()
            shard = j % self.state.num_shards
            tasks = [task_row(task(job, i, shard, self.preemptible)) for i in range(instances)]
            for i in range(0, instances, 250):
                self.apply("gangs.enqueue", {"pool": "bulk", "requeue": False,
                                             "gangs": [[t] for t in tasks[i:i + 250]]})

    def cycle(self, batch: int) -> int:
        """One placement round for ``batch`` tasks; returns how many ran."""
        self.now += 0.5
        self.apply("cluster.tick", {"now": self.now})
        self.apply("member.heartbeat", {"now": self.now, "member": {
            "id": "jm", "kind": "jobmgr", "address": "x", "cluster": ""}})
        gangs = self.apply("gangs.dequeue", {"limit": batch})
        mids = [m for g in gangs for m in g]
        for i in range(0, len(mids), 400):
            chunk = mids[i:i + 400]
            self.apply("placements.set", {"failed": [], "placed": [
                [f"host-{k}", f"agent-{k}", f"lease-{k}", "c", [[m, []]]]
                for k, m in enumerate(chunk)]})
        got = 0
        while True:
            placed = self.apply("placements.get", {"shards": list(range(self.state.num_shards)),
                                                   "limit": 100})
            if not placed:
                break
            got += sum(len(p[4]) for p in placed)
        for i in range(0, len(mids), 500):
            self.apply("tasks.update", {"updates": [[m, RUNNING] for m in mids[i:i + 500]]})
        return got

    def one_task_jobs(self, jobs: int) -> float:
        """``jobs`` jobs of one task, each through its own commands, as a
        cluster of few submitters sends them (enqueue, dequeue, placements
        set and got, RUNNING, SUCCEEDED); seconds of apply per job."""
        before = sum(self.seconds.values())
        for j in range(jobs):
            job = _job_id()
            self.apply("gangs.enqueue", {"pool": "bulk", "requeue": False, "gangs": [
                [task_row(task(job, 0, j % self.state.num_shards, self.preemptible))]]})
            mids = [m for g in self.apply("gangs.dequeue", {"limit": 1}) for m in g]
            self.apply("placements.set", {"failed": [], "placed": [
                ["host-0", "agent-0", "lease-0", "c", [[m, []] for m in mids]]]})
            while self.apply("placements.get", {"shards": list(range(self.state.num_shards)),
                                                "limit": 100}):
                pass
            for state in (RUNNING, SUCCEEDED):
                self.apply("tasks.update", {"updates": [[m, state] for m in mids]})
        return (sum(self.seconds.values()) - before) / jobs

    def finish(self, mids: list[str]) -> None:
        for i in range(0, len(mids), 500):
            self.apply("tasks.update", {"updates": [[m, SUCCEEDED] for m in mids[i:i + 500]]})


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=100)
    parser.add_argument("--instances", type=int, default=1000)
    parser.add_argument("--cycles", type=int, default=40)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--preemptible", action="store_true",
                        help="preemptible tasks (each admitted one in the victim index)")
    parser.add_argument("--one-task-jobs", type=int, default=0, metavar="N",
                        help="instead: N jobs of one task, each through its own commands")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="measure N times, each on a fresh state; the table gives each "
                             "command's least ms (a busy machine only ever adds time)")
    args = parser.parse_args(argv)
    if args.one_task_jobs < 0:
        parser.error("--one-task-jobs must not be negative")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    least: dict[str, float] = {}
    for _ in range(args.repeat):
        bench = measure(args)
        if bench is None:
            return
        for name, secs in bench.seconds.items():
            least[name] = min(least.get(name, math.inf), secs / bench.calls[name])
    assert bench is not None
    print(f"{'command':<20}{'calls':>8}{'ms each':>10}{'total s':>9}{'digest us':>11}"
          f"{'digest %':>10}")
    for name, secs in sorted(bench.seconds.items(), key=lambda kv: -kv[1]):
        calls = bench.calls[name]
        chain = bench.digest_seconds[name]
        print(f"{name:<20}{calls:>8}{least[name] * 1000:>10.2f}{secs:>9.2f}"
              f"{chain / calls * 1e6:>11.1f}{100 * chain / secs:>9.1f}%")
    total, chain = sum(bench.seconds.values()), sum(bench.digest_seconds.values())
    print(f"running digest: {chain:.3f} s of {total:.2f} s applying ({100 * chain / total:.1f}%)")
    if args.repeat > 1:
        print(f"(ms each: the least of {args.repeat} runs; the other columns: the last run)")


def measure(args: argparse.Namespace) -> Bench | None:
    """One run of the benchmark, its figures printed; the Bench (None after
    ``--one-task-jobs``, which prints its own)."""
    total = args.jobs * args.instances
    bench = Bench(preemptible=args.preemptible)
    bench.setup()
    if args.one_task_jobs > 0:
        per_job = bench.one_task_jobs(args.one_task_jobs)
        print(f"{args.one_task_jobs:,} one-task jobs: {per_job * 1000:.3f} ms of apply a job "
              "(each replica's); per command: " + ", ".join(
                  f"{name} {secs / bench.calls[name] * 1000:.3f} ms"
                  for name, secs in sorted(bench.seconds.items())
                  if bench.calls[name] >= args.one_task_jobs))
        return None
    gc.collect()
    base = rss_bytes()
    start = time.perf_counter()
    bench.enqueue(args.jobs, args.instances)
    enqueue_s = time.perf_counter() - start
    gc.collect()
    held = rss_bytes() - base
    print(f"tracked {len(bench.state.tasks):,} tasks: {held / len(bench.state.tasks):,.0f} "
          f"bytes/task ({held / 2**20:,.0f} MiB); enqueue {total / enqueue_s:,.0f} tasks/s")

    ran = 0
    start = time.perf_counter()
    for _ in range(args.cycles):
        ran += bench.cycle(args.batch)
    cycles_s = time.perf_counter() - start
    print(f"{args.cycles} cycles placed {ran:,} tasks: {ran / cycles_s:,.0f} tasks/s of "
          "resmgr apply time")
    running = [m for m, e in bench.state.tasks.items() if e.state == RUNNING]
    bench.finish(running)

    start = time.perf_counter()
    blob = bench.state.snapshot()
    snap_s = time.perf_counter() - start
    start = time.perf_counter()
    ResmgrState().restore(blob)
    restore_s = time.perf_counter() - start
    print(f"snapshot {len(blob) / 2**20:,.0f} MiB in {snap_s:.2f} s, restore {restore_s:.2f} s")
    return bench


if __name__ == "__main__":
    main()
