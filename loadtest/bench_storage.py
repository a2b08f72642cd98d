"""What a one-task job's writes cost the jobmgr's SQLite store, per job.

Replays, through :class:`peloton.storage.sqlite.SQLiteStorage` (the
jobmgr's own calls, in one process, on one trio thread), what a jobmgr
writes for each job of ``10k-hosts-100k-single-task-jobs``: its create
(job, config and task rows), then its task through LAUNCHED, RUNNING and
SUCCEEDED (a task row and an event each) with its job's row at the first
and the last. Each step writes ``--group`` jobs at once, the way creates
and events that arrive together are committed together; ``--jobs`` jobs
in all, so the store grows past SQLite's page cache as a loaded jobmgr's
does. With ``--shards N`` the jobs hash to N shards and each write carries
every shard's part (``create_jobs_across``, ``write_across``), as a
jobmgr's writer that takes its idle peers' small work writes them: what
16 shards cost the store against one.

It prints the process's cpu and the wall time a job for the job ids the
jobmgr makes (time-ordered, ``new_job_id``) and for random (version 4)
ones, each ``--repeat`` times in turn, in a fresh store in a new
temporary directory (``TMPDIR`` chooses where)::

    python -m loadtest.bench_storage --jobs 60000 --group 20
    python -m loadtest.bench_storage --jobs 60000 --group 20 --shards 16
"""

from __future__ import annotations

import argparse
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

from loadtest.bench_tasks import SHAPE
from loadtest.harness import job_config
from peloton.core.ids import new_job_id
from peloton.core.states import JobState, TaskState
from peloton.jobmgr.model import Job
from peloton.shard.partition import shard_of
from peloton.storage.gateway import ShardWrite
from peloton.storage.sqlite import SQLiteStorage

EPOCH = 1
# A task's states after its create, each written with its event; its job's
# row is written again at the first (RUNNING) and the last (SUCCEEDED).
STEPS = ((TaskState.LAUNCHED, None), (TaskState.RUNNING, JobState.RUNNING),
         (TaskState.SUCCEEDED, JobState.SUCCEEDED))


def random_job_id() -> str:
    return str(uuid.uuid4())


async def replay(path: Path, ids: Callable[[], str], jobs: int, group: int,
                 shards: int = 1) -> tuple[float, float]:
    """The cpu and wall seconds of ``jobs`` one-task jobs' writes, the jobs
    hashed to ``shards`` shards and each write carrying every shard's part
    (``create_jobs_across``, ``write_across``), as a jobmgr that owns them
    all writes them."""
    config = job_config("bench", "batch", 1, SHAPE, SHAPE.duration_s[0])
    store = await SQLiteStorage.open(path)
    try:
        for shard in range(shards):
            await store.claim_shard(shard, EPOCH, "bench")
        # Groups in flight: the newest was created this step, the oldest
        # takes its last step (the way a steady load overlaps them).
        stages: list[list[Job]] = []
        cpu, wall = time.process_time(), time.perf_counter()
        made = 0
        while made < jobs or any(stages):
            now = time.time()
            batch = []
            for _ in range(min(group, jobs - made)):
                job_id = ids()
                batch.append(Job.new(job_id, shard_of(job_id, shards), config, now))
            made += len(batch)
            if batch:
                parts: dict[int, list[Any]] = {}
                for job in batch:
                    parts.setdefault(job.shard, []).append(
                        (job.row(now), [t.row(now) for t in job.tasks]))
                results = await store.create_jobs_across(
                    [(shard, EPOCH, part) for shard, part in sorted(parts.items())])
                assert not any(isinstance(r, Exception) or any(r) for r in results), results
            stages.insert(0, batch)
            for (state, job_state), older in zip(STEPS, stages[1:], strict=False):
                rows: dict[int, tuple[list[Any], list[Any], list[Any]]] = {}
                for job in older:
                    jobs_rows, tasks, events = rows.setdefault(job.shard, ([], [], []))
                    task = job.tasks[0]
                    task.state = state
                    tasks.append(task.row(now))
                    events.append(task.event(now))
                    if job_state is not None:
                        job.state = job_state
                        jobs_rows.append(job.row(now))
                if rows:
                    errors = await store.write_across([
                        ShardWrite(shard, EPOCH, jobs=j, tasks=t, events=e)
                        for shard, (j, t, e) in sorted(rows.items())])
                    assert not any(errors), errors
            del stages[len(STEPS) + 1:]
        return time.process_time() - cpu, time.perf_counter() - wall
    finally:
        await store.aclose()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=60000, help="one-task jobs a replay (60000)")
    parser.add_argument("--group", type=int, default=20,
                        help="jobs each write carries (20)")
    parser.add_argument("--repeat", type=int, default=2, metavar="N",
                        help="replays of each kind of id, in turn (2)")
    parser.add_argument("--shards", type=int, default=1,
                        help="shards the jobs hash to, all written together (1)")
    args = parser.parse_args(argv)
    for name in ("jobs", "group", "repeat", "shards"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    kinds: dict[str, Callable[[], str]] = {"time-ordered": new_job_id,
                                           "random (v4)": random_job_id}
    print(f"a one-task job's writes, {args.jobs} jobs in groups of {args.group} "
          f"over {args.shards} shard(s) (us a job: cpu, wall)")
    for _ in range(args.repeat):
        for name, ids in kinds.items():
            with tempfile.TemporaryDirectory(prefix="bench-storage-") as tmp:
                cpu, wall = trio.run(replay, Path(tmp) / "jobs.db", ids, args.jobs,
                                     args.group, args.shards)
            print(f"  {name:<14}{cpu / args.jobs * 1e6:8.1f}{wall / args.jobs * 1e6:8.1f}",
                  flush=True)


if __name__ == "__main__":
    main()
