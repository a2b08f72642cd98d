"""Many small jobs on a local cluster of real processes, against one array.

``python -m loadtest.small_jobs [--jobs 1000] [--clients 4] [--hosts 100]``
starts a local cluster (``--hosts`` hosts of 4 cpu, the ``local`` backend)
and measures, submit -> every job SUCCEEDED, for one-cpu jobs running
``true``:

- *array*: one job of ``--jobs`` instances, one create;
- *api*: ``--jobs`` separate one-instance jobs from ``--clients`` concurrent
  API clients (each its own connection, one create after another);
- *cli*: the same through ``peloton job create``, ``--clients`` in
  parallel (``--cli-jobs`` of them, default ``--jobs``);
- *lone*: ``--lone-jobs`` one-instance jobs one at a time, each created
  when the one before is done, on the cluster otherwise idle: submit ->
  SUCCEEDED of each (its state asked every 10 ms), median and p90.

These are the rows of issue 15's table (Slurm 22.05 tuned: 56/s for the
array, 66/s for separate jobs from ``sbatch``, ~1 s for a lone job). It
prints one line per
row, with what a job cost in cpu ms: each kind of daemon, this harness
(its API clients), the rest (the runs' keeper, the tasks' own processes,
the CLI's processes) and the machine, and the Raft commands resmgr
applied a job (each ~1 ms of the three replicas' cpu), by kind with the
items they carried; then a JSON summary (``--out`` writes it), and stops
the cluster (``--keep`` keeps its directory: its ``jobs.db`` has every
task's events, their times).

The cluster lives in a new directory under ``$TMPDIR`` (``/tmp``). First it
prints what one file's create costs there (see
:func:`loadtest.measure.file_create_us`): on a filesystem where that cost
moves, ``TMPDIR=/dev/shm`` runs the rows on tmpfs.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import shutil
import sys
import tempfile
import time
from typing import Any

import trio

from loadtest.cli_latency import cli_env, peloton_command
from loadtest.measure import (
    command_deltas,
    file_create_us,
    machine_cpu_s,
    own_cpu_s,
    read_proc,
)
from peloton.api.private.cluster import cluster_grpc, cluster_pb2
from peloton.api.v0.job import job_pb2
from peloton.client import PelotonClient
from peloton.rpc import ServiceClient, open_rpc
from peloton.spec.job import load_job_config
from peloton.spec.respool import load_respool_config
from peloton.testing.cluster import LocalCluster

CPU = 4.0
POOL = """
name: small
resources:
- {{kind: cpu, reservation: {cpu}, limit: {cpu}, share: 1}}
- {{kind: memory, reservation: {memory}, limit: {memory}, share: 1}}
- {{kind: disk, reservation: {disk}, limit: {disk}, share: 1}}
- {{kind: gpu, reservation: 0, limit: 0, share: 1}}
"""
JOB = """
name: {name}
instancecount: {instances}
defaultconfig:
  resource: {{cpulimit: 1, memlimitmb: 16, disklimitmb: 1}}
  command: {{shell: true, value: 'true'}}
"""
POLL_S = 0.1
LONE_POLL_S = 0.01
DONE = (job_pb2.SUCCEEDED, job_pb2.FAILED, job_pb2.KILLED)
# Every state a job can still leave (DELETED: gone, and not in a row's jobs).
ACTIVE = (job_pb2.UNKNOWN, job_pb2.INITIALIZED, job_pb2.PENDING, job_pb2.RUNNING,
          job_pb2.KILLING, job_pb2.UNINITIALIZED)


async def _query(client: PelotonClient, states: tuple[Any, ...]) -> dict[str, int]:
    """job id -> state of every job in ``states`` (one summary Query)."""
    reply = await client.jobs.call("Query", job_pb2.QueryRequest(
        spec=job_pb2.QuerySpec(jobStates=states, pagination={"limit": 1_000_000}),
        summaryOnly=True))
    return {r.id.value: r.runtime.state for r in reply.results}


async def _ended(client: PelotonClient, job_ids: list[str], timeout: float) -> dict[str, int]:
    """Wait until every job (each acknowledged, so stored) is terminal;
    their states. Each poll asks for the jobs not yet ended, as a user
    waiting on ``squeue`` would: a poll of every ended job instead read the
    whole row's jobs from the jobmgrs' stores ten times a second, a third
    of a jobmgr's cpu once the creates were in, slowing what it timed."""
    wanted = set(job_ids)
    with trio.fail_after(timeout):
        while True:
            if wanted.isdisjoint(await _query(client, ACTIVE)):
                break
            await trio.sleep(POLL_S)
        states = await _query(client, DONE)
    return {job_id: states.get(job_id, job_pb2.UNKNOWN) for job_id in wanted}


def _row(name: str, jobs: int, took: float, states: dict[str, int],
         unit: str = "jobs") -> dict[str, Any]:
    """A row's figures; ``jobs`` counts ``unit``: the array row's are the
    tasks of its one job."""
    ok = sum(1 for s in states.values() if s == job_pb2.SUCCEEDED)
    return {"row": name, "jobs": jobs, "unit": unit, "seconds": round(took, 2),
            "per_s": round(jobs / took, 1), "succeeded": ok}


def _summary(row: dict[str, Any]) -> str:
    """A row's first printed line."""
    unit = row["unit"]
    what = f"{row['jobs']} tasks of one job" if unit == "tasks" else f"{row['jobs']} {unit}"
    return (f"{row['row']}: {what} in {row['seconds']:.2f} s = "
            f"{row['per_s']:.1f} {unit}/s ({row['succeeded']} succeeded)"
            + (f"; creates p50/p99/mean {row['create_ms_p50']}/{row['create_ms_p99']}/"
               f"{row['create_ms_mean']} ms, submitted in {row['submit_s']} s"
               if "create_ms_p50" in row else "")
            + (f"; each submit -> done p50/p90 {row['done_s_p50']:.3f}/"
               f"{row['done_s_p90']:.3f} s" if "done_s_p50" in row else ""))


async def array(client: PelotonClient, jobs: int) -> dict[str, Any]:
    config, _ = load_job_config(JOB.format(name="array", instances=jobs))
    start = time.monotonic()
    job_id = await client.create_job("/small", config)
    info = await client.wait_for_job(job_id, ("SUCCEEDED", "FAILED", "KILLED"), timeout=600,
                                     poll=POLL_S)
    took = time.monotonic() - start
    row = _row("array", jobs, took, {job_id: info.runtime.state}, unit="tasks")
    row["succeeded"] = jobs if info.runtime.state == job_pb2.SUCCEEDED else 0
    return row


async def api(cluster: LocalCluster, client: PelotonClient, jobs: int,
              clients: int) -> dict[str, Any]:
    config, _ = load_job_config(JOB.format(name="one", instances=1))
    ids: list[str] = []
    create_s: list[float] = []

    async def submitter(n: int) -> None:
        own = PelotonClient(cluster.addresses)  # its own connections
        try:
            for _ in range(n):
                began = time.monotonic()
                ids.append(await own.create_job("/small", config))
                create_s.append(time.monotonic() - began)
        finally:
            own.close()

    start = time.monotonic()
    async with trio.open_nursery() as nursery:
        for k in range(clients):
            nursery.start_soon(submitter, jobs // clients + (k < jobs % clients))
    submitted = time.monotonic() - start
    states = await _ended(client, ids, 600)
    row = _row("api", jobs, time.monotonic() - start, states)
    create_s.sort()
    row.update(submit_s=round(submitted, 2),
               create_ms_p50=round(1000 * create_s[len(create_s) // 2], 1),
               create_ms_p99=round(1000 * create_s[int(len(create_s) * 0.99)], 1),
               # The clients create one after another: their pace is
               # clients / this mean, whatever the cluster could take.
               create_ms_mean=round(1000 * sum(create_s) / len(create_s), 1))
    return row


async def cli(cluster: LocalCluster, client: PelotonClient, jobs: int, clients: int,
              top: pathlib.Path) -> dict[str, Any]:
    spec = top / "one.yaml"
    spec.write_text(JOB.format(name="one-cli", instances=1))
    # As a user of `peloton minicluster up` runs it: the cluster found by its
    # state file (so the quick commands go over HTTP/JSON), its bytecode
    # cached as an installed `peloton`'s is (cli_env).
    env = cli_env(cluster.directory.parent)
    create = [*peloton_command(), "job", "create", "/small", str(spec)]
    ids: list[str] = []

    async def submit() -> str:
        done = await trio.run_process(create, capture_stdout=True, capture_stderr=True,
                                      env=env)
        if done.returncode != 0:
            raise RuntimeError(f"peloton job create: {done.stderr.decode().strip()}")
        return str(done.stdout.decode().split()[-2])  # "Job <id> created"

    async def submitter(n: int) -> None:
        for _ in range(n):
            ids.append(await submit())

    await _ended(client, [await submit()], 60)  # untimed: writes the bytecode cache
    start = time.monotonic()
    async with trio.open_nursery() as nursery:
        for k in range(clients):
            nursery.start_soon(submitter, jobs // clients + (k < jobs % clients))
    states = await _ended(client, ids, 600)
    return _row("cli", jobs, time.monotonic() - start, states)


async def lone(client: PelotonClient, jobs: int) -> dict[str, Any]:
    config, _ = load_job_config(JOB.format(name="lone", instances=1))
    took: list[float] = []
    states: dict[str, int] = {}
    for _ in range(jobs):
        start = time.monotonic()
        job_id = await client.create_job("/small", config)
        info = await client.wait_for_job(job_id, ("SUCCEEDED", "FAILED", "KILLED"), timeout=60,
                                         poll=LONE_POLL_S)
        took.append(time.monotonic() - start)
        states[job_id] = info.runtime.state
    row = _row("lone", jobs, sum(took), states)
    took.sort()
    row.update(done_s_p50=round(took[len(took) // 2], 3),
               done_s_p90=round(took[int(len(took) * 0.9)], 3))
    return row


def _cpu(cluster: LocalCluster) -> dict[str, float]:
    """Cpu seconds so far: each kind of daemon's (summed), this harness's,
    and the machine's (``/proc/stat``: every process, the tasks' and this
    one's included)."""
    out: dict[str, float] = {"harness": own_cpu_s()}
    for name in cluster.names():
        sample = read_proc(cluster.pid(name))
        if sample is not None:
            kind = name.rsplit("-", 1)[0]
            out[kind] = out.get(kind, 0.0) + sample.cpu_s
    out["machine"] = machine_cpu_s()
    return out


def _per_job(before: dict[str, float], after: dict[str, float], jobs: int) -> dict[str, float]:
    """What one job cost each kind of daemon, this harness, the rest (the
    runs' keeper, the tasks' own processes, the CLI's), and the machine, in
    cpu ms."""
    per = {k: round(1000 * (after[k] - before.get(k, 0.0)) / jobs, 1) for k in after}
    per["rest"] = round(per["machine"] - sum(v for k, v in per.items() if k != "machine"), 1)
    return per


async def _raft_stats(resmgr: ServiceClient) -> Any:
    """The resmgr leader's GetStats (its commands and their items by name)."""
    return await resmgr.call("GetStats", cluster_pb2.GetStatsRequest(), timeout=10.0)


def _raft_per_job(before: Any, after: Any, jobs: int) -> dict[str, tuple[float, float]]:
    """Raft commands a row applied, per job, by name: (commands, items),
    with their total first; a leader change during the row counts what the
    new leader applied since it began."""
    per = {name: (round(commands / jobs, 2), round(items / jobs, 2))
           for name, (commands, items, _) in sorted(command_deltas(before, after).items())}
    total = (round(sum(c for c, _ in per.values()), 2), round(sum(i for _, i in per.values()), 2))
    return {"all": total, **per}


async def drive(cluster: LocalCluster, args: argparse.Namespace, top: pathlib.Path,
                out: Any) -> list[dict[str, Any]]:
    rows = []
    async with open_rpc():
        client = PelotonClient(cluster.addresses, timeout=60.0)
        try:
            cpu = args.hosts * CPU
            pool, _ = load_respool_config(POOL.format(cpu=cpu, memory=cpu * 64, disk=cpu * 10))
            await client.create_respool("/small", pool)
            resmgr = ServiceClient(cluster.resmgr_addresses, cluster_grpc.ClusterServiceStub,
                                   channels=client.channels, deadline=10.0)
            for mode in args.rows:
                before = _cpu(cluster)
                stats_before = await _raft_stats(resmgr)
                if mode == "array":
                    row = await array(client, args.jobs)
                elif mode == "api":
                    row = await api(cluster, client, args.jobs, args.clients)
                elif mode == "lone":
                    row = await lone(client, args.lone_jobs)
                else:
                    row = await cli(cluster, client, args.cli_jobs or args.jobs, args.clients,
                                    top)
                row["cpu_ms_per_job"] = _per_job(before, _cpu(cluster), row["jobs"])
                row["raft_per_job"] = _raft_per_job(stats_before, await _raft_stats(resmgr),
                                                    row["jobs"])
                rows.append(row)
                out(_summary(row))
                one = row["unit"][:-1]  # "job", or the array row's "task"
                out(f"  cpu ms per {one}: " + ", ".join(
                    f"{k} {v}" for k, v in row["cpu_ms_per_job"].items()))
                out(f"  raft commands (items) per {one}: " + ", ".join(
                    f"{k} {c} ({i})" for k, (c, i) in row["raft_per_job"].items()))
        finally:
            client.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtest.small_jobs", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--cli-jobs", type=int, default=0,
                        help="jobs in the cli row (default --jobs)")
    parser.add_argument("--lone-jobs", type=int, default=20,
                        help="jobs in the lone row, one at a time (20)")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--hosts", type=int, default=100)
    parser.add_argument("--rows", default="array,api,cli,lone",
                        help="which rows, in order (array, api, cli, lone)")
    parser.add_argument("--out", type=pathlib.Path, default=None)
    parser.add_argument("--keep", action="store_true",
                        help="keep the cluster's directory (its jobs.db) when done")
    args = parser.parse_args(argv)
    for flag in ("jobs", "clients", "hosts", "lone_jobs"):
        if getattr(args, flag) < 1:
            parser.error(f"--{flag.replace('_', '-')} must be at least 1")
    if args.cli_jobs < 0:
        parser.error("--cli-jobs must not be negative")
    args.rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    for r in args.rows:
        if r not in ("array", "api", "cli", "lone"):
            parser.error(f"--rows: unknown row {r!r} (array, api, cli, lone)")
    top = pathlib.Path(tempfile.mkdtemp(prefix="peloton-small-jobs-"))
    report: dict[str, Any] = {"command": " ".join(["python -m loadtest.small_jobs", *sys.argv[1:]])}
    try:
        # A run creates ~6 files; what one costs here moves these rows a lot.
        report["file_create_us"] = round(file_create_us(top), 1)
        print(f"a file's create in {top.parent}: {report['file_create_us']:.0f} us of cpu")
        with LocalCluster.start(top / "minicluster", hosts=args.hosts, cpu=CPU) as cluster:
            report["rows"] = trio.run(drive, cluster, args, top, print)
    finally:
        if args.keep:
            print(f"kept {top} (the cluster's jobs.db holds every task's events)")
        else:
            shutil.rmtree(top, ignore_errors=True)
    text = json.dumps(report, indent=2)
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n")
    return 0 if all(r["succeeded"] == r["jobs"] for r in report["rows"]) else 1


if __name__ == "__main__":
    sys.exit(main())
