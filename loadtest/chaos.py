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

Beside them run ``--services`` service jobs (``--service-instances``
instances of 0.5 cpu, ``sla.maximumUnavailableInstances: 1``), each rolled
to a new version (``CreateUpdate``) every ``--update-every`` seconds while
the kills go on, one update after another. A service's run writes a
``svcstart`` line, and a ``svcstop`` line when it is asked to stop; every
half second the harness also notes which service runs are alive (their
processes' ``PELOTON_TASK_ID``). It counts:

- *instances doubled*: a moment when two runs of one instance were alive
  at once (seen together, or one started before the other had stopped);
- *updates not succeeded*: an update acknowledged to the harness that did
  not end SUCCEEDED (nothing here fails: every one must);
- *services not converged*: a service whose instances were not all
  RUNNING at its last version once the kills stopped (within
  ``--settle-s``).

A service run's cpu counts on its host from its start to its stop (or the
last moment it was seen alive) in the over-commit count. Once every job
has ended, the pool's cpu that resmgr counts allocated must be the
services' alone (*cpu held by ended runs*: an end that never reached
resmgr would hold its run's cpu for ever).

The report is printed and written as JSON (``--out``); the exit status is
1 when any count is not 0. Tasks sleep a random 1-4 s; hosts are 4 cpu.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import math
import os
import pathlib
import random
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import trio

from peloton.api.v0.job import job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.task import task_pb2
from peloton.api.v0.update import update_pb2
from peloton.api.v0.update.svc import update_svc_pb2
from peloton.client import PelotonClient
from peloton.core.errors import PelotonError
from peloton.rpc import open_rpc
from peloton.spec.job import load_job_config
from peloton.spec.respool import load_respool_config
from peloton.testing.cluster import LocalCluster

KINDS = ("resmgr", "jobmgr", "placement", "hostmgr")
LOG_TAIL = 40  # lines of each daemon's log a failed run prints
HOSTS, CPU, TASK_CPU, SERVICE_CPU = 4, 4.0, 1.0, 0.5
UPDATE_ENDS = {update_pb2.SUCCEEDED: "SUCCEEDED", update_pb2.ABORTED: "ABORTED",
               update_pb2.FAILED: "FAILED", update_pb2.ROLLED_BACK: "ROLLED_BACK"}
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


def service_config(name: str, instances: int, version: int,
                   markers: pathlib.Path) -> job_pb2.JobConfig:
    """A service whose runs note their start, and their stop when asked to
    stop (SIGTERM), in ``markers/svc-<job id>``."""
    line = ("$PELOTON_JOB_ID-$PELOTON_INSTANCE_ID $PELOTON_TASK_ID "
            f"$(basename $(dirname $MESOS_SANDBOX)) v{version}")
    out = f"{markers}/svc-$PELOTON_JOB_ID"
    cmd = (f'L="{line}"; echo "svcstart $L $(date +%s.%N)" >> {out}; '
           f"trap 'kill $S; echo \"svcstop $L $(date +%s.%N)\" >> {out}; exit 0' TERM; "
           "sleep 86400 & S=$!; wait $S")
    config, _ = load_job_config({
        "name": name, "type": "SERVICE", "instanceCount": instances,
        "sla": {"maximumUnavailableInstances": 1},
        "defaultConfig": {
            "resource": {"cpuLimit": SERVICE_CPU, "memLimitMb": 32, "diskLimitMb": 10},
            "command": {"shell": True, "value": cmd,
                        "environment": {"variables": [{"name": "CHAOS_SERVICE", "value": "1"}]}},
        },
    })
    return config


def live_service_runs() -> dict[str, set[str]]:
    """Instance (``<job id>-<i>``) -> the run ids (PELOTON_TASK_ID) of the
    service runs whose processes are alive now (zombies are not)."""
    live: dict[str, set[str]] = defaultdict(set)
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            environ = pathlib.Path(f"/proc/{pid}/environ").read_bytes()
            if b"CHAOS_SERVICE=1" not in environ:
                continue
            stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if stat.rsplit(")", 1)[1].split()[0] == "Z":
            continue
        env = dict(item.split(b"=", 1) for item in environ.split(b"\0") if b"=" in item)
        run = env.get(b"PELOTON_TASK_ID", b"").decode()
        job, instance = env.get(b"PELOTON_JOB_ID", b"").decode(), env.get(
            b"PELOTON_INSTANCE_ID", b"").decode()
        if run and job and instance:
            live[f"{job}-{instance}"].add(run)
    return live


class Services:
    """The service jobs, their updates, and what the sampler saw alive."""

    def __init__(self, client: PelotonClient, markers: pathlib.Path, count: int,
                 instances: int) -> None:
        self.client, self.markers = client, markers
        self.count, self.instances = count, instances
        self.jobs: dict[str, str] = {}  # job id -> name
        self.version: dict[str, int] = {}  # job id -> the version of its last update
        self.updates: list[tuple[str, str, str]] = []  # (job id, update id, end state)
        self.last_update: dict[str, str] = {}
        self.seen: dict[str, tuple[float, float]] = {}  # run id -> first, last seen alive
        self.together: list[dict[str, Any]] = []  # moments two runs of an instance lived
        self.alive_at_end: set[str] = set()
        self.converged = 0

    def config(self, name: str, version: int) -> job_pb2.JobConfig:
        return service_config(name, self.instances, version, self.markers)

    async def create(self) -> None:
        for n in range(self.count):
            name = f"chaos-svc-{n}"
            job_id = await self.client.create_job("/chaos", self.config(name, 1))
            self.jobs[job_id], self.version[job_id] = name, 1

    async def sample(self, stop: trio.Event) -> None:
        """Every half second: which service runs are alive."""
        while not stop.is_set():
            live = await trio.to_thread.run_sync(live_service_runs)
            now = time.time()
            for instance, runs in live.items():
                for run in runs:
                    first, _ = self.seen.get(run, (now, now))
                    self.seen[run] = (first, now)
                if len(runs) > 1 and len(self.together) < 20:
                    self.together.append({"instance": instance, "at": now,
                                          "runs": sorted(runs)})
            with trio.move_on_after(0.5):
                await stop.wait()

    async def _create_update(self, job_id: str, config: job_pb2.JobConfig) -> str:
        """The new update's id. A reply lost to a kill may hide an update
        that was made: the job's runtime names it then."""
        request = update_svc_pb2.CreateUpdateRequest(
            jobId=peloton_pb2.JobID(value=job_id), jobConfig=config,
            updateConfig=update_pb2.UpdateConfig(batchSize=1))
        known = {u for j, u, _ in self.updates if j == job_id} | {self.last_update.get(job_id)}
        while True:
            try:
                reply = await self.client.updates.call("CreateUpdate", request)
                return str(reply.updateID.value)
            except PelotonError:
                pass
            with contextlib.suppress(PelotonError):
                made = (await self.client.get_job(job_id)).runtime.updateID.value
                if made and made not in known:
                    return str(made)
            await trio.sleep(1.0)

    async def _wait_update(self, update_id: str) -> tuple[str, int]:
        """(end state, config version) of an update, once it ended."""
        request = update_svc_pb2.GetUpdateRequest(updateId=peloton_pb2.UpdateID(value=update_id))
        while True:
            with contextlib.suppress(PelotonError):
                info = (await self.client.updates.call("GetUpdate", request)).updateInfo
                if info.status.state in UPDATE_ENDS:
                    return UPDATE_ENDS[info.status.state], int(info.configVersion)
            await trio.sleep(0.5)

    async def roll(self, job_id: str, every: float, stop: trio.Event) -> None:
        """Update the service to a new version, one update after another,
        until ``stop``; then wait for the last one to end."""
        name = self.jobs[job_id]
        while not stop.is_set():
            version = self.version[job_id] + 1
            update_id = await self._create_update(job_id, self.config(name, version))
            self.last_update[job_id], self.version[job_id] = update_id, version
            state = "NOT_ENDED"  # (unless it ends before the harness gives up)
            try:
                state, _ = await self._wait_update(update_id)
            finally:
                self.updates.append((job_id, update_id, state))
            with trio.move_on_after(every):
                await stop.wait()

    async def wait_converged(self) -> None:
        """Count the services whose every instance runs their last version."""
        for job_id in self.jobs:
            update_id = self.last_update.get(job_id)
            wanted = (await self._wait_update(update_id))[1] if update_id else 1
            while True:
                with contextlib.suppress(PelotonError):
                    reply = await self.client.tasks.call("List", task_pb2.ListRequest(
                        jobId=peloton_pb2.JobID(value=job_id)))
                    runtimes = [info.runtime for info in reply.result.value.values()]
                    if len(runtimes) == self.instances and all(
                            rt.state == task_pb2.RUNNING and rt.configVersion == wanted
                            for rt in runtimes):
                        self.converged += 1
                        break
                await trio.sleep(0.5)
        live = await trio.to_thread.run_sync(live_service_runs)
        self.alive_at_end = set().union(*live.values())

    def runs(self, end_of_test: float) -> list[dict[str, Any]]:
        """Each service run: its instance, host, start and end (its stop, or
        the last moment it was seen alive; the end of the test if it lives)."""
        found: dict[str, dict[str, Any]] = {}
        for path in self.markers.glob("svc-*"):
            for raw in path.read_text().splitlines():
                parts = raw.split()
                # A stop line may lack its time (the SIGTERM the host manager
                # sends the run's cgroup can reach the trap's `date`): the
                # run's end is then the last moment it was seen alive.
                if len(parts) != 6:
                    continue
                what, instance, run, host, _version, ts = parts
                facts = found.setdefault(run, {"instance": instance, "run": run, "host": host})
                with contextlib.suppress(ValueError):
                    facts[what] = float(ts)
        out = []
        for run, facts in found.items():
            if "svcstart" not in facts:
                continue
            _, last_seen = self.seen.get(run, (facts["svcstart"], facts["svcstart"]))
            end = max(facts.get("svcstop", facts["svcstart"]), last_seen)
            if run in self.alive_at_end:
                end = end_of_test
            out.append({**facts, "start": facts["svcstart"], "end": end})
        return out

    def report(self, runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """The counts, from ``runs`` (``self.runs``) and what was seen."""
        by_instance: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in runs:
            by_instance[r["instance"]].append(r)
        doubled = list(self.together)
        for instance, spans in by_instance.items():
            spans.sort(key=lambda r: r["start"])
            doubled += [{"instance": instance, "at": b["start"], "runs": [a["run"], b["run"]]}
                        for a, b in itertools.pairwise(spans) if b["start"] < a["end"]]
        ends: dict[str, int] = defaultdict(int)
        for _, _, state in self.updates:
            ends[state] += 1
        return {
            "services": len(self.jobs), "service_instances": self.instances,
            "service_runs": len(runs), "service_runs_seen_alive": len(self.seen),
            "updates": len(self.updates),
            "updates_by_state": dict(ends),
            "updates_not_succeeded": sum(n for s, n in ends.items() if s != "SUCCEEDED"),
            "services_not_converged": len(self.jobs) - self.converged,
            "instances_doubled": len({d["instance"] for d in doubled}),
            "doubled_examples": doubled[:5],
        }


def analyse(markers: pathlib.Path, jobs: dict[str, int],
            services: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """The counts, from the batch runs' marker files, with ``services``'
    runs (``Services.runs``) on their hosts."""
    runs: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)  # task -> run -> facts
    for path in markers.iterdir():
        if path.name.startswith("svc-"):  # (the services', read by ``Services.runs``)
            continue
        for raw in path.read_text().splitlines():
            parts = raw.split()
            if len(parts) != 5:
                continue
            what, task, run, host, ts = parts[0], parts[1], parts[2], parts[3], float(parts[4])
            facts = runs[task].setdefault(run, {"host": host})
            facts[what] = ts
    lost = 0
    again = []
    intervals: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
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
                intervals[f["host"]].append((f["start"], end, TASK_CPU))
    for r in services:
        intervals[r["host"]].append((r["start"], r["end"], SERVICE_CPU))
    overcommitted = 0
    examples: list[dict[str, Any]] = []
    for host, spans in intervals.items():
        # (an end sorts before a start at the same moment)
        events = sorted([(s, cpu) for s, _, cpu in spans] + [(e, -cpu) for _, e, cpu in spans])
        running = 0.0
        for at, step in events:
            running += step
            if running > CPU + 1e-9:
                overcommitted += 1
                if len(examples) < 5:
                    examples.append({"host": host, "at": at, "cpu": running})
                break
    return {"tasks": sum(jobs.values()), "runs": sum(len(r) for r in runs.values()),
            "lost": lost, "run_again_after_success": len(again),
            "run_again_examples": sorted(set(again))[:5],
            "overcommitted_hosts": overcommitted, "overcommit_examples": examples}


async def held_by_ended_runs(client: PelotonClient, running_cpu: float) -> float:
    """The cpu resmgr still counts allocated in the pool beyond what runs
    there now (``running_cpu``), once every batch job has ended: a run's end
    that never reached resmgr holds its cpu for ever. Asked until it is 0,
    for at most 30 s (ends on their way)."""
    held = math.inf
    with trio.move_on_after(30):
        while True:
            with contextlib.suppress(PelotonError):
                info = (await client.get_respool("/chaos")).poolinfo
                held = round(sum(u.allocation for u in info.usage if u.kind == "cpu")
                             - running_cpu, 3)
                if held <= 0:
                    break
            await trio.sleep(1)
    return held


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
            services = Services(client, markers, args.services, args.service_instances)
            await services.create()

            async def submit() -> None:
                for n in range(args.jobs):
                    spec, _ = load_job_config(job_yaml(f"chaos-{n}", args.instances,
                                                       rng.randint(1, 4), markers))
                    job_id = await client.create_job("/chaos", spec)
                    jobs[job_id] = args.instances
                    await trio.sleep(args.submit_every)

            async def kill_loop(done: trio.Event) -> None:
                daemons = [d.name for d in cluster.config.daemons]
                for _ in range(args.kills):
                    await trio.sleep(args.every)
                    name = rng.choice(daemons)
                    await trio.to_thread.run_sync(cluster.kill, name)
                    kills.append((time.time(), name))
                    await trio.sleep(rng.uniform(0.2, 2.0))
                    await trio.to_thread.run_sync(cluster.restart, name)
                done.set()

            async def settle() -> None:
                terminal = {job_pb2.SUCCEEDED, job_pb2.FAILED, job_pb2.KILLED}
                while True:
                    states = {}
                    for job_id in jobs:
                        try:
                            states[job_id] = (await client.get_job(job_id)).runtime.state
                        except PelotonError:
                            states[job_id] = job_pb2.UNKNOWN
                    report["jobs_succeeded"] = sum(1 for s in states.values()
                                                   if s == job_pb2.SUCCEEDED)
                    report["jobs_not_terminal"] = sum(1 for s in states.values()
                                                      if s not in terminal)
                    if not report["jobs_not_terminal"]:
                        break
                    await trio.sleep(2)
                await services.wait_converged()

            report["jobs_not_terminal"] = args.jobs
            stopped, sampled = trio.Event(), trio.Event()
            async with trio.open_nursery() as outer:
                outer.start_soon(services.sample, sampled)
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(submit)
                    nursery.start_soon(kill_loop, stopped)
                    rolling = trio.CancelScope()

                    async def roll_all() -> None:
                        with rolling:
                            async with trio.open_nursery() as rolls:
                                for job_id in services.jobs:
                                    rolls.start_soon(services.roll, job_id, args.update_every,
                                                     stopped)
                    nursery.start_soon(roll_all)
                    await stopped.wait()
                    # (the updates under way when the kills stop may take this long)
                    rolling.deadline = trio.current_time() + args.settle_s
                with trio.move_on_after(args.settle_s):
                    await settle()
                    report["cpu_held_by_ended_runs"] = await held_by_ended_runs(
                        client, len(services.jobs) * args.service_instances * SERVICE_CPU)
                sampled.set()
            report["kills"] = len(kills)
            report["kills_by_kind"] = {k: sum(1 for _, n in kills if n.startswith(k))
                                       for k in KINDS}
            report["jobs"] = len(jobs)
            service_runs = services.runs(time.time())
            report.update(analyse(markers, jobs, service_runs))
            report.update(services.report(service_runs))
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
    parser.add_argument("--services", type=int, default=2,
                        help="service jobs rolled to a new version while the kills go on")
    parser.add_argument("--service-instances", type=int, default=3)
    parser.add_argument("--update-every", type=float, default=2.0,
                        help="seconds between one update of a service ending and the next")
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
        bad = any(report.get(count, 1) for count in (
            "lost", "run_again_after_success", "overcommitted_hosts", "jobs_not_terminal",
            "instances_doubled", "updates_not_succeeded", "services_not_converged",
            "cpu_held_by_ended_runs"))
        if bad:  # what the daemons said last, for a failure seen where the run is gone
            for log_file in sorted((top / "cluster" / "logs").glob("*.log")):
                lines = log_file.read_text(errors="replace").splitlines()[-LOG_TAIL:]
                print(f"--- the last {len(lines)} lines of {log_file.name}", *lines,
                      sep="\n", file=sys.stderr)
        if not os.environ.get("PELOTON_CHAOS_KEEP"):
            shutil.rmtree(top, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
