"""Random SIGKILLs of every daemon kind under a load of real processes.

``python -m loadtest.chaos [--kills 100] [--every 3] [--jobs 40] [--instances 10]``
(``just chaos``) starts a local cluster (real processes, the ``local``
backend), submits batch jobs whose every run writes a marker outside the
daemons, a line when it starts and one when it ends well (``start`` /
``done``, with its run id and host), and meanwhile SIGKILLs a random daemon
(resmgr, jobmgr, placement, hostmgr) every ``--every`` seconds, starting it
again a moment later, ``--kills`` times. Then it waits for every job to be
terminal and counts, from the markers alone:

- *lost*: tasks that never ended well (every job must end SUCCEEDED);
- *run again after success*: a run that started after a run of the same
  task had ended well (a completed task must never run again);
- *over-committed*: a moment when a host ran more cpu than it has (from
  the start and end markers; a run without its end counts until the
  next run of its task starts, or until the end).

The report is printed and written as JSON (``--out``); the exit status is
1 when any count is not 0. Tasks sleep a random 1-4 s; hosts are 4 cpu.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from typing import Any

import trio

from peloton.api.v0.job import job_pb2
from peloton.client import PelotonClient
from peloton.core.errors import PelotonError
from peloton.rpc import open_rpc
from peloton.spec.job import load_job_config
from peloton.spec.respool import load_respool_config
from peloton.testing.cluster import LocalCluster

KINDS = ("resmgr", "jobmgr", "placement", "hostmgr")
HOSTS, CPU, TASK_CPU = 4, 4.0, 1.0
POOL = """
name: chaos
resources:
- {kind: cpu, reservation: 16, limit: 16, share: 1}
- {kind: memory, reservation: 16384, limit: 16384, share: 1}
- {kind: disk, reservation: 16384, limit: 16384, share: 1}
- {kind: gpu, reservation: 0, limit: 0, share: 1}
"""


def job_yaml(name: str, instances: int, seconds: int, markers: pathlib.Path) -> str:
    # Each run: a start line, its work, then a done line (only if it ended well).
    line = ("$PELOTON_JOB_ID-$PELOTON_INSTANCE_ID $PELOTON_TASK_ID "
            "$(basename $(dirname $MESOS_SANDBOX))")
    cmd = (f'echo "start {line} $(date +%s.%N)" >> {markers}/$PELOTON_JOB_ID; '
           f'sleep {seconds} && echo "done {line} $(date +%s.%N)" >> {markers}/$PELOTON_JOB_ID')
    return f"""
name: {name}
instancecount: {instances}
sla: {{preemptible: true}}
defaultconfig:
  resource: {{cpulimit: {TASK_CPU}, memlimitmb: 64, disklimitmb: 10}}
  restartpolicy: {{maxfailures: 100}}
  command: {{shell: true, value: '{cmd}'}}
"""


def analyse(markers: pathlib.Path, jobs: dict[str, int]) -> dict[str, Any]:
    """The counts, from the marker files alone."""
    runs: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)  # task -> run -> facts
    for path in markers.iterdir():
        for raw in path.read_text().splitlines():
            parts = raw.split()
            if len(parts) != 5:
                continue
            what, task, run, host, ts = parts[0], parts[1], parts[2], parts[3], float(parts[4])
            facts = runs[task].setdefault(run, {"host": host})
            facts[what] = ts
    lost = 0
    again = []
    intervals: dict[str, list[tuple[float, float]]] = defaultdict(list)
    end_of_test = time.time()
    for job_id, instances in jobs.items():
        for i in range(instances):
            task = f"{job_id}-{i}"
            task_runs = sorted(runs.get(task, {}).values(), key=lambda f: f.get("start", 0))
            if not any("done" in f for f in task_runs):
                lost += 1
            first_done = min((f["done"] for f in task_runs if "done" in f), default=None)
            if first_done is not None:
                again += [task for f in task_runs if f.get("start", 0) > first_done]
            for k, f in enumerate(task_runs):
                if "start" not in f:
                    continue
                end = f.get("done") or (task_runs[k + 1].get("start", end_of_test)
                                        if k + 1 < len(task_runs) else end_of_test)
                intervals[f["host"]].append((f["start"], end))
    overcommitted = 0
    examples: list[dict[str, Any]] = []
    for host, spans in intervals.items():
        events = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans],
                        key=lambda x: (x[0], x[1]))
        running = 0
        for at, step in events:
            running += step
            if running * TASK_CPU > CPU + 1e-9:
                overcommitted += 1
                if len(examples) < 5:
                    examples.append({"host": host, "at": at, "running": running})
                break
    return {"tasks": sum(jobs.values()), "runs": sum(len(r) for r in runs.values()),
            "lost": lost, "run_again_after_success": len(again),
            "run_again_examples": sorted(set(again))[:5],
            "overcommitted_hosts": overcommitted, "overcommit_examples": examples}


async def drive(cluster: LocalCluster, args: argparse.Namespace, markers: pathlib.Path,
                report: dict[str, Any]) -> None:
    rng = random.Random(args.seed)
    async with open_rpc():
        client = PelotonClient(cluster.addresses, timeout=30.0, deadline=120.0)
        try:
            config, _ = load_respool_config(POOL)
            await client.create_respool("/chaos", config)
            jobs: dict[str, int] = {}
            kills: list[tuple[float, str]] = []

            async def submit() -> None:
                for n in range(args.jobs):
                    spec, _ = load_job_config(job_yaml(f"chaos-{n}", args.instances,
                                                       rng.randint(1, 4), markers))
                    job_id = await client.create_job("/chaos", spec)
                    jobs[job_id] = args.instances
                    await trio.sleep(args.submit_every)

            async def kill_loop() -> None:
                daemons = [d.name for d in cluster.config.daemons]
                for _ in range(args.kills):
                    await trio.sleep(args.every)
                    name = rng.choice(daemons)
                    await trio.to_thread.run_sync(cluster.kill, name)
                    kills.append((time.time(), name))
                    await trio.sleep(rng.uniform(0.2, 2.0))
                    await trio.to_thread.run_sync(cluster.restart, name)

            async with trio.open_nursery() as nursery:
                nursery.start_soon(submit)
                nursery.start_soon(kill_loop)
            report["kills"] = len(kills)
            report["kills_by_kind"] = {k: sum(1 for _, n in kills if n.startswith(k))
                                       for k in KINDS}
            terminal = {job_pb2.SUCCEEDED, job_pb2.FAILED, job_pb2.KILLED}
            states: dict[str, int] = {}
            with trio.move_on_after(args.settle_s):
                while True:
                    states = {}
                    for job_id in jobs:
                        try:
                            states[job_id] = (await client.get_job(job_id)).runtime.state
                        except PelotonError:
                            states[job_id] = job_pb2.UNKNOWN
                    if all(s in terminal for s in states.values()):
                        break
                    await trio.sleep(2)
            report["jobs"] = len(jobs)
            report["jobs_succeeded"] = sum(1 for s in states.values() if s == job_pb2.SUCCEEDED)
            report["jobs_not_terminal"] = sum(1 for s in states.values() if s not in terminal)
            report.update(analyse(markers, jobs))
        finally:
            client.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtest.chaos", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--every", type=float, default=3.0, help="seconds between kills")
    parser.add_argument("--jobs", type=int, default=60)
    parser.add_argument("--instances", type=int, default=10)
    parser.add_argument("--submit-every", type=float, default=4.0)
    parser.add_argument("--settle-s", type=float, default=600.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=pathlib.Path, default=None)
    args = parser.parse_args(argv)
    top = pathlib.Path(tempfile.mkdtemp(prefix="peloton-chaos-"))
    markers = top / "markers"
    markers.mkdir()
    markers.chmod(0o777)  # (whatever user the runs are)
    report: dict[str, Any] = {"command": " ".join(["python -m loadtest.chaos", *sys.argv[1:]])}
    started = time.time()
    try:
        with LocalCluster.start(top / "cluster", hosts=HOSTS, cpu=CPU) as cluster:
            trio.run(drive, cluster, args, markers, report)
    finally:
        report["wall_s"] = round(time.time() - started, 1)
        text = json.dumps(report, indent=2)
        print(text)
        if args.out is not None:
            args.out.write_text(text + "\n")
        if not os.environ.get("PELOTON_CHAOS_KEEP"):
            shutil.rmtree(top, ignore_errors=True)
    bad = (report.get("lost", 1) or report.get("run_again_after_success", 1)
           or report.get("overcommitted_hosts", 1) or report.get("jobs_not_terminal", 1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
