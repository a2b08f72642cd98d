"""What a one-task job costs a jobmgr's writers, and what splitting it over shards adds.

Replays, through :class:`peloton.jobmgr.engine.ShardEngine` with the real
SQLite store (resmgr and the host managers answered in memory, nothing sent
over a network), what a jobmgr's writers do for each job of
``10k-hosts-100k-single-task-jobs``: its create, its placement (LAUNCHING),
its RUNNING and its SUCCEEDED. Jobs come in groups of ``--group``; each
step of a group is one call of the writers' fused path (``create_across``,
``launches_across``, ``events_across``: one storage write for the group),
with the group's jobs spread over ``K`` shards of one jobmgr, for each K of
``--shards``, run alternately ``--repeat`` times. It prints the process's
cpu a job for each run::

    python -m loadtest.bench_engine --group 8 --jobs 8000 --shards 1,8

What it leaves out is the rest of a jobmgr: the RPCs, the writers' turns
and lending (``serve_inbox``), the event polls, the gangs' batcher. So a
difference between shard counts here is what each shard's part of a fused
write costs. Timed on a busy or noisy machine that difference can hide;
counted in instructions it cannot (the runs of two sizes, so start-up
drops out)::

    valgrind --tool=callgrind --callgrind-out-file=cg.out \
        python -m loadtest.bench_engine --jobs 1200 --shards 8 --repeat 1

docs/performance.md, thirty-ninth session: ~93,000 instructions a part,
then ~59,000.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any, cast

import trio

from loadtest.bench_tasks import SHAPE
from loadtest.harness import job_config
from peloton.api.private.hostmgrsvc import hostmgrsvc_pb2 as hpb
from peloton.api.private.resmgrsvc import resmgrsvc_pb2 as rpb
from peloton.core.ids import new_job_id
from peloton.core.states import TaskState
from peloton.jobmgr.engine import (
    Context,
    Reports,
    ShardEngine,
    create_across,
    events_across,
    launches_across,
)
from peloton.jobmgr.model import Job
from peloton.rpc import ServiceClient
from peloton.storage.sqlite import SQLiteStorage

EPOCH = 1
CLUSTER = "bench"
STEPS = 4  # created, placed, RUNNING, SUCCEEDED


class _Answers:
    """resmgr and a host manager, answering every call with an empty reply."""

    REPLIES = {"UpdateTasksState": rpb.UpdateTasksStateResponse,
               "EnqueueGangs": rpb.EnqueueGangsResponse,
               "KillTasks": hpb.KillTasksResponse}

    async def call(self, method: str, request: Any, **_: Any) -> Any:
        return self.REPLIES[method]()


async def replay(directory: Path, shards: int, group: int, jobs: int) -> float:
    """The cpu seconds of ``jobs`` one-task jobs' four steps, in groups of
    ``group`` spread over ``shards`` shards; raises if a job did not end
    SUCCEEDED."""
    # (synchronous NORMAL, as a jobmgr's: small groups commit on the trio thread)
    store = await SQLiteStorage.open(directory / "jobs.db")
    client = cast(ServiceClient, _Answers())
    engines: dict[int, ShardEngine] = {}
    # Runs' states go to resmgr as a jobmgr sends them: queued, and sent
    # in batches by the reports' senders.
    reports = Reports(client)
    ctx = Context(storage=store, resmgr=client, hostmgr_for=lambda cluster: client,
                  hostmgrs=lambda: [(CLUSTER, client)], engines=engines, reports=reports)
    async with store, trio.open_nursery() as nursery:
        nursery.start_soon(reports.serve)
        for shard in range(shards):
            await store.claim_shard(shard, EPOCH, "bench")
            engines[shard] = ShardEngine(ctx, shard, EPOCH, "bench")
        config = job_config("bench", "batch", 1, SHAPE, SHAPE.duration_s[0])
        config.respoolID.value = "bench-pool"
        # Groups in flight: the newest is created this round, the oldest
        # ends (the way a steady load overlaps them).
        stages: list[tuple[int, dict[ShardEngine, list[Job]]]] = []
        made = hosts = 0
        cpu = time.process_time()
        while made < jobs or stages:
            if made < jobs:
                parts: dict[ShardEngine, list[Job]] = {}
                now = time.time()
                size = min(group, jobs - made)
                for i in range(size):
                    engine = engines[i % shards]
                    parts.setdefault(engine, []).append(
                        Job.new(new_job_id(), engine.shard, config, now))
                made += size
                await create_across(list(parts.items()))
                stages.append((0, parts))
            for step, parts in stages:
                if step == 1:
                    placements = []
                    for engine, js in parts.items():
                        mine = []
                        for job in js:
                            hosts += 1
                            p = rpb.Placement(hostname=f"h{hosts}", agentId=f"a{hosts}",
                                              leaseId=f"l{hosts}", cluster=CLUSTER)
                            p.tasks.add(mesosTaskId=job.tasks[0].mesos_task_id,
                                        shard=engine.shard)
                            mine.append(p)
                        placements.append((engine, mine))
                    await launches_across(placements)
                elif step in (2, 3):
                    state = TaskState.RUNNING if step == 2 else TaskState.SUCCEEDED
                    events = [(engine, [hpb.TaskEvent(
                        mesosTaskId=job.tasks[0].mesos_task_id,
                        state=state,  # type: ignore[arg-type]  # (the proto's numbers)
                        hostname=job.tasks[0].host, timestamp=time.time(), shard=engine.shard)
                        for job in js]) for engine, js in parts.items()]
                    errors = await events_across(events)
                    if any(errors):
                        raise RuntimeError(f"events refused: {errors}")
            stages = [(step + 1, parts) for step, parts in stages if step + 1 < STEPS]
        cpu = time.process_time() - cpu
        nursery.cancel_scope.cancel()
    ended = sum(1 for engine in engines.values() for job in engine.jobs.values()
                if job.tasks[0].state == TaskState.SUCCEEDED)
    if ended != jobs:
        raise RuntimeError(f"{ended} of {jobs} jobs ended SUCCEEDED")
    return cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtest.bench_engine",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=8000)
    parser.add_argument("--group", type=int, default=8, help="jobs a step of a group")
    parser.add_argument("--shards", default="1,8",
                        help="shard counts to compare, comma-separated")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    try:
        counts = [int(s) for s in args.shards.split(",")]
    except ValueError:
        parser.error(f"--shards: expected numbers like 1,8, got {args.shards!r}")
    for name, value in (("--jobs", args.jobs), ("--group", args.group),
                        ("--repeat", args.repeat), *(("--shards", c) for c in counts)):
        if value < 1:
            parser.error(f"{name} must be at least 1 (got {value})")
    print(f"{args.jobs:,} one-task jobs, groups of {args.group}, through the writers' "
          f"fused paths (us of cpu a job)")
    results: dict[int, list[float]] = {c: [] for c in counts}
    for rep in range(args.repeat):
        order = counts if rep % 2 == 0 else counts[::-1]
        for count in order:
            with tempfile.TemporaryDirectory(prefix="bench-engine-") as tmp:
                cpu = trio.run(replay, Path(tmp), count, args.group, args.jobs)
            results[count].append(cpu / args.jobs * 1e6)
            print(f"  {count:3d} shard(s): {results[count][-1]:7.1f}", flush=True)
    for count in counts:
        runs = sorted(results[count])
        print(f"{count:3d} shard(s): median {runs[len(runs) // 2]:.1f} us a job "
              f"({', '.join(f'{r:.1f}' for r in results[count])})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
