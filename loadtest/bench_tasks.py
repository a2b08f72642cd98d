"""What a bulk task costs the jobmgr and the host manager in Python, per task.

The per-task conversions of a batch job's path, each run alone in this
process on the load tests' task shape (a batch job of ``--instances``
tasks, its config as the harness makes it), none of them doing I/O:

- ``row`` / ``event``: the stored row (with its RuntimeInfo) and the event
  a jobmgr writes for each state a task passes (four rows and three events
  for a task that runs once);
- ``enqueue``: its part of an EnqueueGangs request (``add_gangs``),
  serialized;
- ``launch build``: its part of a LaunchTasksBatch request for 100 hosts
  (``launch_request``: ``--jobs`` jobs' tasks spread over them), serialized;
- ``launch handle``: the host manager parsing that request and handling it
  (``LaunchTasksBatch`` on a simulated cluster of 100 hosts: fencing,
  leases, the hosts' books, the runs' specs, the backend's launch).

Each figure is the least microseconds a task of ``--repeat`` runs (a busy
machine only ever adds time). A quick way to see a change to these paths
move before running a load test::

    python -m loadtest.bench_tasks --repeat 5
"""

from __future__ import annotations

import argparse
import math
import time
import uuid
from collections.abc import Callable

import trio

from loadtest.harness import job_config
from loadtest.scenario import TaskShape
from peloton.api.private.hostmgrsvc import hostmgrsvc_pb2 as hpb
from peloton.api.private.resmgrsvc import resmgrsvc_pb2 as rpb
from peloton.core.states import TaskState
from peloton.hostmgr.backends.sim import SimBackend
from peloton.hostmgr.service import Hostmgr, InternalHandler
from peloton.jobmgr.engine import add_gangs, launch_request
from peloton.jobmgr.model import Job, Task

HOSTS = 100
SHAPE = TaskShape(cpu=0.25, memory_mb=256, disk_mb=256, duration_s=(360, 360))


def jobs(count: int, instances: int) -> list[Job]:
    config = job_config("bench", "batch", instances, SHAPE, SHAPE.duration_s[0])
    now = time.time()
    made = [Job.new(str(uuid.uuid4()), 0, config, now) for _ in range(count)]
    for job in made:
        for task in job.tasks:
            task.state, task.host, task.agent = TaskState.RUNNING, "sim-h00001", "sim-h00001-1"
            task.lease, task.cluster, task.start_time = "lease", "sim", now
    return made


def least_us(fn: Callable[[], object], tasks: int, repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best / tasks * 1e6


def placements(leases: list[hpb.HostLease], made: list[Job], per_host: int
               ) -> list[tuple[rpb.Placement, list[tuple[Job, Task]]]]:
    """``per_host`` tasks on each lease's host, the jobs' tasks dealt in turn."""
    pairs = [(job, job.tasks[i]) for i in range(len(made[0].tasks)) for job in made]
    return [(rpb.Placement(leaseId=lease.leaseId, hostname=lease.hostname),
             pairs[k * per_host:(k + 1) * per_host]) for k, lease in enumerate(leases)]


async def launch_handled_us(made: list[Job], per_host: int) -> float:
    """Seconds of one LaunchTasksBatch on a fresh simulated host manager."""
    backend = SimBackend(cluster="sim", hosts=HOSTS)
    hm = Hostmgr(backend, "sim")
    handler = InternalHandler(hm)
    async with trio.open_nursery() as nursery:
        await nursery.start(backend.run, hm.report)
        f = hpb.HostFilter(maxHosts=HOSTS, portSample=0)
        leases = list((await handler.AcquireHosts(hpb.AcquireHostsRequest(filter=f))).leases)
        data = launch_request(placements(leases, made, per_host), 0, 0).SerializeToString()
        start = time.perf_counter()
        reply = await handler.LaunchTasksBatch(hpb.LaunchTasksBatchRequest.FromString(data))
        spent = time.perf_counter() - start
        assert not any(o.code for o in reply.outcomes), reply
        nursery.cancel_scope.cancel()
    return spent


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--instances", type=int, default=1000, help="tasks a job (1000)")
    parser.add_argument("--jobs", type=int, default=10,
                        help="jobs whose tasks a launch batch spreads over 100 hosts (10)")
    parser.add_argument("--repeat", type=int, default=5, metavar="N",
                        help="runs of each; the least is reported (5)")
    args = parser.parse_args(argv)
    if args.instances < 1:
        parser.error("--instances must be at least 1")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    [job] = jobs(1, args.instances)
    task = job.tasks[0]

    def enqueue() -> None:
        requests: list[rpb.EnqueueGangsRequest] = []
        add_gangs(job, job.tasks, requests, rpb.EnqueueGangsRequest)
        requests[0].SerializeToString()

    made = jobs(args.jobs, args.instances)
    per_host = min(args.jobs * args.instances // HOSTS, 10) or 1
    batch = placements([hpb.HostLease(leaseId=f"lease-{k}", hostname=f"sim-h{k:05d}")
                        for k in range(HOSTS)], made, per_host)
    launched = sum(len(chosen) for _, chosen in batch)
    handled = min(trio.run(launch_handled_us, made, per_host) for _ in range(args.repeat))
    figures = {
        "row": least_us(lambda: [task.row(1.0) for _ in range(1000)], 1000, args.repeat),
        "event": least_us(lambda: [task.event(1.0) for _ in range(1000)], 1000, args.repeat),
        "enqueue": least_us(enqueue, len(job.tasks), args.repeat),
        "launch build": least_us(lambda: launch_request(batch, 0, 0).SerializeToString(),
                                 launched, args.repeat),
        "launch handle": handled / launched * 1e6,
    }
    print(f"us a task (the least of {args.repeat} runs; a job of {args.instances} tasks, "
          f"launches of {launched} tasks on {HOSTS} hosts)")
    for name, us in figures.items():
        print(f"  {name:<14}{us:8.2f}")


if __name__ == "__main__":
    main()
