"""What a one-task job's writes cost the jobmgr's SQLite store, per job.

Replays, through :class:`peloton.storage.sqlite.SQLiteStorage` (the
jobmgr's own calls, in one process, on one trio thread), what a jobmgr
writes for each job of ``10k-hosts-100k-single-task-jobs``: its create
(job, config and task rows), then its task through LAUNCHED, RUNNING and
SUCCEEDED (a task row and an event each) with its job's row at the first
and the last. Each step writes ``--group`` jobs at once, the way creates
and events that arrive together are committed together; ``--jobs`` jobs
in all, so the store grows past SQLite's page cache as a loaded jobmgr's
does.

It prints the process's cpu and the wall time a job for the job ids the
jobmgr makes (time-ordered, ``new_job_id``) and for random (version 4)
ones, each ``--repeat`` times in turn, in a fresh store in a new
temporary directory (``TMPDIR`` chooses where)::

    python -m loadtest.bench_storage --jobs 60000 --group 20
"""

from __future__ import annotations

import argparse
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import trio

from loadtest.bench_tasks import SHAPE
from loadtest.harness import job_config
from peloton.core.ids import new_job_id
from peloton.core.states import JobState, TaskState
from peloton.jobmgr.model import Job
from peloton.storage.sqlite import SQLiteStorage

SHARD, EPOCH = 0, 1
# A task's states after its create, each written with its event; its job's
# row is written again at the first (RUNNING) and the last (SUCCEEDED).
STEPS = ((TaskState.LAUNCHED, None), (TaskState.RUNNING, JobState.RUNNING),
         (TaskState.SUCCEEDED, JobState.SUCCEEDED))


def random_job_id() -> str:
    return str(uuid.uuid4())


async def replay(path: Path, ids: Callable[[], str], jobs: int, group: int) -> tuple[float, float]:
    """The cpu and wall seconds of ``jobs`` one-task jobs' writes."""
    config = job_config("bench", "batch", 1, SHAPE, SHAPE.duration_s[0])
    store = await SQLiteStorage.open(path)
    try:
        await store.claim_shard(SHARD, EPOCH, "bench")
        # Groups in flight: the newest was created this step, the oldest
        # takes its last step (the way a steady load overlaps them).
        stages: list[list[Job]] = []
        cpu, wall = time.process_time(), time.perf_counter()
        made = 0
        while made < jobs or any(stages):
            now = time.time()
            batch = [Job.new(ids(), SHARD, config, now) for _ in range(min(group, jobs - made))]
            made += len(batch)
            if batch:
                failed = await store.create_jobs(
                    SHARD, EPOCH, [(job.row(now), [t.row(now) for t in job.tasks]) for job in batch])
                assert not any(failed), failed
            stages.insert(0, batch)
            for (state, job_state), older in zip(STEPS, stages[1:], strict=False):
                tasks, events, rows = [], [], []
                for job in older:
                    task = job.tasks[0]
                    task.state = state
                    tasks.append(task.row(now))
                    events.append(task.event(now))
                    if job_state is not None:
                        job.state = job_state
                        rows.append(job.row(now))
                if tasks:
                    await store.write(SHARD, EPOCH, jobs=rows, tasks=tasks, events=events)
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
    args = parser.parse_args(argv)
    for name in ("jobs", "group", "repeat"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    kinds: dict[str, Callable[[], str]] = {"time-ordered": new_job_id,
                                           "random (v4)": random_job_id}
    print(f"a one-task job's writes, {args.jobs} jobs in groups of {args.group} "
          f"(us a job: cpu, wall)")
    for _ in range(args.repeat):
        for name, ids in kinds.items():
            with tempfile.TemporaryDirectory(prefix="bench-storage-") as tmp:
                cpu, wall = trio.run(replay, Path(tmp) / "jobs.db", ids, args.jobs, args.group)
            print(f"  {name:<14}{cpu / args.jobs * 1e6:8.1f}{wall / args.jobs * 1e6:8.1f}",
                  flush=True)


if __name__ == "__main__":
    main()
