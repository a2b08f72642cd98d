"""What a run costs the ``local`` backend itself: cpu per run of ``true``.

``python -m loadtest.bench_local [--runs 600] [--batch 10] [--hosts 4]``
starts a ``LocalBackend`` in this process (in a directory of its own,
cgroups when the machine lets it make them), launches ``--runs``
one-instance runs of ``true``, ``--batch`` a call, waits until every one
has ended, and prints the cpu this process used per run (``getrusage``:
its trio loop and its worker threads, not the keeper or the tasks), the
cpu the whole machine used per run (the keeper, the tasks, the kernel's
work for them) and the wall time. The host manager pays this for every
task it starts, before any RPC (see the README's small-jobs figures).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
import uuid
from pathlib import Path

import trio

from loadtest.measure import file_create_us, machine_cpu_s, own_cpu_s
from peloton.core.resources import Resources
from peloton.core.states import TaskState
from peloton.hostmgr.backends.base import LaunchSpec, StatusUpdate
from peloton.hostmgr.backends.local import LocalBackend

ENDED = (TaskState.SUCCEEDED, TaskState.FAILED, TaskState.LOST, TaskState.KILLED)


def _spec(hosts: int, k: int) -> LaunchSpec:
    job = str(uuid.uuid4())
    return LaunchSpec(mesos_task_id=f"{job}-0-1", task_id=f"{job}-0", job_id=job, instance_id=0,
                      hostname=f"local-{k % hosts}", shell=True, command="true",
                      resources=Resources(cpu=0.1, memory=32))


async def measure(root: Path, runs: int, batch: int, hosts: int
                  ) -> tuple[float, float, float]:
    """(cpu seconds of this process per run, of the machine per run, wall
    seconds in all)."""
    backend = LocalBackend(root, hosts=hosts)
    ended: set[str] = set()
    done = trio.Event()

    def on_update(update: StatusUpdate) -> None:
        if update.state in ENDED:
            ended.add(update.mesos_task_id)
            if len(ended) >= runs:
                done.set()

    async with trio.open_nursery() as nursery:
        await nursery.start(backend.run, on_update)
        before, machine_before = own_cpu_s(), machine_cpu_s()
        start = time.perf_counter()
        for k in range(0, runs, batch):
            await backend.launch([_spec(hosts, i) for i in range(k, min(runs, k + batch))])
        await done.wait()
        wall = time.perf_counter() - start
        cpu, machine = own_cpu_s() - before, machine_cpu_s() - machine_before
        nursery.cancel_scope.cancel()
    return cpu / runs, machine / runs, wall


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtest.bench_local", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=600)
    parser.add_argument("--batch", type=int, default=10, help="runs a launch call")
    parser.add_argument("--hosts", type=int, default=4)
    args = parser.parse_args(argv)
    for name in ("runs", "batch", "hosts"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    root = Path(tempfile.mkdtemp(prefix="peloton-bench-local-"))
    try:
        create_us = file_create_us(root)
        per_run, machine, wall = trio.run(measure, root, args.runs, args.batch, args.hosts)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{args.runs} runs of true: {1000 * per_run:.2f} ms of cpu a run in the backend's "
          f"process, {1000 * machine:.2f} in the machine's, {wall:.1f} s in all ({args.runs / wall:.0f} runs/s); a file's create "
          f"in {root.parent}: {create_us:.0f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
