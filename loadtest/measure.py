"""What a load test measures, and how.

Three parts, kept apart:

- **Pure rules** (no I/O): :func:`percentiles`, :func:`derive_counters` (the
  cumulative admitted/placed/launched/running/completed counts from one
  snapshot of resmgr and jobmgr state counts), :func:`overcommit_sweep`
  (is any instant of a host's timeline over its capacity?), :func:`rate`.
- **/proc readers**: :func:`read_proc` (a daemon's CPU seconds and RSS),
  :func:`machine_cpu_s` (the whole machine's).
- **The store reader**: :func:`analyse_store` opens the jobmgrs' SQLite file
  read-only *after* the run and computes correctness and latency in a
  streaming pass (a million tasks in a few seconds and tens of MB).

Definitions (also in ``loadtest/README.md``):

- a task is *completed* when its current run's state is terminal and not
  LOST (SUCCEEDED, FAILED after its retries, KILLED); *lost* when it is not
  in the store, not terminal, or LOST;
- a *duplicate run* is a run ``(job, instance, run)`` with more than one
  terminal event in ``task_events`` (it ended twice); a run *started twice*
  has more than one RUNNING event;
- *create→RUNNING* of a task is the start time of its first run (the host
  backend's clock) minus the moment the harness sent the job's Create;
- *running/s* and *completed/s* are those of the bulk load (probe jobs
  excluded): its tasks that started (ended) over the time from its first
  Create to its last start (end);
- a host is *over-committed* when, at some instant, the runs on it (each
  from its start to its completion) need more of some resource than the host has;
  a run with no recorded end (the run was cut short) ends after its
  ``sleep N`` as the sim backend ends it.
"""

from __future__ import annotations

import math
import os
import re
import resource
import sqlite3
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

__all__ = [
    "CLK_TCK",
    "JobRecord",
    "ProcSample",
    "StoreAnalysis",
    "analyse_store",
    "derive_counters",
    "file_create_us",
    "machine_cpu_s",
    "overcommit_sweep",
    "percentiles",
    "rate",
    "read_proc",
]

# Task state numbers (peloton.core.states.TaskState; pinned to the v0 API there).
INITIALIZED, PENDING, READY, PLACING, PLACED, LAUNCHING = 1, 2, 3, 4, 5, 6
STARTING, RUNNING, SUCCEEDED, FAILED, LOST, KILLING, KILLED, LAUNCHED, DELETED = (
    7, 8, 9, 10, 11, 13, 14, 15, 16)
TERMINAL = (SUCCEEDED, FAILED, LOST, KILLED, DELETED)
TERMINAL_NAMES = frozenset({"SUCCEEDED", "FAILED", "LOST", "KILLED", "DELETED"})
EPSILON = 1e-6

CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


# --------------------------------------------------------------------------- pure rules


def percentiles(values: Sequence[float]) -> dict[str, float | None]:
    """p50, p90, p99 (nearest rank), max, mean and count of ``values``.

    Empty input gives None for every figure but count.
    """
    n = len(values)
    if not n:
        return {"p50": None, "p90": None, "p99": None, "max": None, "mean": None, "count": 0}
    ordered = sorted(values)

    def rank(p: float) -> float:
        return float(ordered[max(0, math.ceil(p / 100.0 * n) - 1)])

    return {"p50": rank(50), "p90": rank(90), "p99": rank(99), "max": float(ordered[-1]),
            "mean": sum(ordered) / n, "count": n}


def derive_counters(created_tasks: int, tracked: int, resmgr: Mapping[str, int],
                    jobmgr: Mapping[str, int]) -> dict[str, int]:
    """Cumulative counts and the backlog from one snapshot of state counts.

    ``created_tasks`` is the tasks of every job the jobmgrs have; ``tracked``
    and ``resmgr`` the tasks the resmgr leader tracks and those by state
    (GetStats; resmgr forgets a task once it is terminal); ``jobmgr`` the
    tasks of every job by stored state (the taskStats of a job Query),
    terminal ones included. Until a task ends, resmgr's state is the one
    used: the jobmgr reports each step to it, and a terminal state is the
    only stored state that never goes back. A task has been *admitted* once
    it left resmgr's PENDING, *placed* once it left PLACING, *launched* once
    its jobmgr took the placement (resmgr LAUNCHING), *running* once it
    reached RUNNING (now or before), *completed* once terminal in the store.
    The sources are sampled a few milliseconds apart, so a count may be off
    by what moved meanwhile; the caller keeps the cumulative ones monotonic.
    """
    terminal = sum(n for s, n in jobmgr.items() if s in TERMINAL_NAMES)
    rm_pending = resmgr.get("PENDING", 0)
    ready = resmgr.get("READY", 0)
    placing = resmgr.get("PLACING", 0)
    placed_waiting = resmgr.get("PLACED", 0)
    launching = resmgr.get("LAUNCHING", 0)
    # Tasks resmgr has seen: those it tracks and those it forgot because they ended.
    seen = min(created_tasks, tracked + terminal)
    admitted = seen - rm_pending
    placed = admitted - ready - placing
    launched = placed - placed_waiting
    running_total = launched - launching
    return {
        "created": created_tasks,
        "admitted": max(0, admitted),
        "placed": max(0, placed),
        "launched": max(0, launched),
        "running_total": max(0, running_total),
        "completed": terminal,
        # the backlog, now
        "pending": max(0, created_tasks - seen) + rm_pending,
        "ready": ready,
        "placing": placing,
        "placed_waiting": placed_waiting,
        "launching": launching,
        "running": max(0, running_total - terminal),
    }


def rate(count: float, seconds: float) -> float | None:
    return count / seconds if seconds > 0 and count > 0 else None


@dataclass(frozen=True, slots=True)
class Overcommit:
    hostname: str
    at: float
    used: tuple[float, ...]
    capacity: tuple[float, ...]


def overcommit_sweep(hostname: str, intervals: Iterable[tuple[float, float, tuple[float, ...]]],
                     capacity: tuple[float, ...]) -> Overcommit | None:
    """The first instant at which the runs on one host need more than ``capacity``.

    ``intervals`` are ``(start, end, need)``: a run holds ``need`` on
    ``[start, end)`` (so a run that ends when another starts does not
    overlap it). None when the host was never over-committed.
    """
    points: list[tuple[float, int, tuple[float, ...]]] = []
    for start, end, need in intervals:
        if end < start:
            end = start
        points.append((start, 1, need))
        points.append((end, 0, need))  # 0 sorts first: ends before starts at the same instant
    points.sort(key=lambda p: (p[0], p[1]))
    used = [0.0] * len(capacity)
    for at, starting, need in points:
        sign = 1.0 if starting else -1.0
        for k, amount in enumerate(need):
            used[k] += sign * amount
        if starting and any(used[k] > capacity[k] + EPSILON for k in range(len(capacity))):
            return Overcommit(hostname, at, tuple(used), capacity)
    return None


# --------------------------------------------------------------------------- /proc


@dataclass(frozen=True, slots=True)
class ProcSample:
    cpu_s: float
    rss_bytes: int
    hwm_bytes: int


def command_deltas(first: Any, last: Any) -> dict[str, tuple[int, int, float]]:
    """The Raft commands resmgr applied between two of its GetStats, by
    name: (commands, items they carried, seconds applying them); names
    with none left out."""
    out: dict[str, tuple[int, int, float]] = {}
    for name, count in last.commands.items():
        commands = count - first.commands.get(name, 0)
        if commands > 0:
            out[name] = (commands,
                         last.commandItems.get(name, 0) - first.commandItems.get(name, 0),
                         last.commandSeconds.get(name, 0.0) - first.commandSeconds.get(name, 0.0))
    return out


def own_cpu_s() -> float:
    """Cpu seconds this process has used (all its threads), user and system."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def machine_cpu_s(stat: str = "/proc/stat") -> float:
    """Cpu seconds the whole machine has been busy (every process's and the
    kernel's): user, nice, system, irq, softirq and steal, not idle or
    iowait."""
    with open(stat) as f:
        ticks = [int(v) for v in f.readline().split()[1:]]
    return sum(ticks[i] for i in (0, 1, 2, 5, 6, 7) if i < len(ticks)) / CLK_TCK


def file_create_us(directory: str | os.PathLike[str], files: int = 200) -> float:
    """Cpu microseconds one empty file's create costs in ``directory``
    (``files`` made in a new subdirectory, left there).

    What the local backend pays ~6 times a run (sandbox, stdout, stderr,
    record, claim, status). It is the filesystem's, and on some it moves a
    lot: ~11 us on tmpfs; on the development machine's ext4, which has no
    journal, ~35 us, and up to ~1,200 for 1-6 minutes after many files
    nearby were deleted (a new inode skips every recently freed one, a
    buffer lookup each; a benchmark that removes its directory slows the
    next). Benchmarks of real processes print it beside their figures."""
    where = os.path.join(directory, "file-create-probe")
    os.makedirs(where, exist_ok=True)
    start = own_cpu_s()
    for i in range(files):
        os.close(os.open(os.path.join(where, str(i)), os.O_CREAT | os.O_WRONLY, 0o644))
    return (own_cpu_s() - start) / files * 1e6


def read_proc(pid: int) -> ProcSample | None:
    """CPU seconds (user + system), VmRSS and VmHWM of ``pid``; None if it has exited."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
        with open(f"/proc/{pid}/status", "rb") as f:
            status = f.read()
    except OSError:
        return None
    fields = stat.rpartition(b")")[2].split()
    if fields[0] in (b"Z", b"X"):
        return None  # exited; a zombie until its parent reaps it
    # after "(comm)": state is fields[0]; utime, stime are stat fields 14, 15 (1-based)
    cpu = (int(fields[11]) + int(fields[12])) / CLK_TCK
    rss = hwm = 0
    for line in status.splitlines():
        if line.startswith(b"VmRSS:"):
            rss = int(line.split()[1]) * 1024
        elif line.startswith(b"VmHWM:"):
            hwm = int(line.split()[1]) * 1024
    return ProcSample(cpu, rss, hwm)


# --------------------------------------------------------------------------- the store


@dataclass(slots=True)
class JobRecord:
    """One job the harness submitted (or tried to)."""

    job_id: str
    group: str  # workload group name, or "probe"
    instances: int
    created_at: float  # wall clock just before Create was sent
    acked_at: float = 0.0  # when Create returned; 0 if it failed
    error: str = ""

    @property
    def probe(self) -> bool:
        return self.group == "probe"


@dataclass(slots=True)
class StoreAnalysis:
    tasks_total: int = 0
    tasks_in_store: int = 0
    tasks_completed: int = 0
    tasks_succeeded: int = 0
    tasks_failed: int = 0
    tasks_killed: int = 0
    tasks_lost: int = 0
    tasks_not_terminal: int = 0
    tasks_missing: int = 0
    tasks_retried: int = 0
    duplicate_runs: int = 0
    runs_started_twice: int = 0
    overcommitted_hosts: int = 0
    overcommit_examples: list[dict[str, Any]] = field(default_factory=list)
    # Runs placed on a host (their LAUNCHING record) after its drain was in
    # effect that then ran there: nothing new may be placed on a draining host.
    started_on_draining: int = 0
    draining_examples: list[dict[str, Any]] = field(default_factory=list)
    hosts_used: int = 0
    runs_checked: int = 0
    create_to_running: dict[str, float | None] = field(default_factory=dict)
    # A bulk job's Create, sent to answered (the harness's clock): with a
    # fixed number of clients, what bounds the pace they can submit at.
    create_answered: dict[str, float | None] = field(default_factory=dict)
    probe_running: dict[str, float | None] = field(default_factory=dict)
    # Where a probe task's time to RUNNING goes, each from its job's Create
    # (percentiles): "stored", the job's creation time (its owner stamps it
    # as it builds the job, just before the write); "placed",
    # when its jobmgr took its placement (the LAUNCHING record); "running".
    probe_stages: dict[str, dict[str, float | None]] = field(default_factory=dict)
    # throughput of the bulk load (probe jobs excluded): first Create to last start/end
    first_create: float = 0.0
    last_running: float = 0.0
    last_completion: float = 0.0
    bulk_running_ever: int = 0
    bulk_completed: int = 0
    running_per_s: float | None = None
    completed_per_s: float | None = None
    seconds: float = 0.0  # how long the analysis took


def _ts(value: str) -> float:
    """RFC 3339 as the jobmgr writes it (``...Z``) to epoch seconds; 0 for empty."""
    if not value:
        return 0.0
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


_SLEEP = re.compile(r"sleep\s+(\d+(?:\.\d*)?)")

HostCapacity = Callable[[str], tuple[float, ...] | None]


def analyse_store(db_path: str, jobs: Mapping[str, JobRecord], capacity: HostCapacity, *,
                  clock: Callable[[], float] | None = None, examples: int = 5,
                  drained: Mapping[str, float] | None = None) -> StoreAnalysis:
    """Correctness and latency of every job in ``jobs`` from the jobmgrs' store.

    Opens ``db_path`` read-only (``mode=ro``), so it may run while the
    cluster still runs (WAL readers do not block the writer). ``capacity``
    gives a host's ``(cpu, memory_mb, disk_mb, gpu)`` (None: unknown host,
    not checked). Jobs of the store that are not in ``jobs`` are ignored;
    jobs of ``jobs`` whose Create failed count only if the store has them.
    ``drained`` maps hosts put into maintenance to when their drain was in
    effect (StartMaintenance had answered): a run placed there later (its
    LAUNCHING event) that then ran there (a RUNNING event) is counted.
    """
    import time as _time

    from peloton.api.v0.job import job_pb2
    from peloton.api.v0.task import task_pb2

    began = (clock or _time.monotonic)()
    out = StoreAnalysis()
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        conn.execute("PRAGMA query_only = ON")
        # -- jobs: the resources each of their tasks needs --------------------
        need_of: dict[str, tuple[float, ...]] = {}
        sleep_of: dict[str, float] = {}
        store_created: dict[str, float] = {}
        for job_id, config_blob, creation_time in conn.execute(
                "SELECT job_id, config, creation_time FROM jobs"):
            if job_id not in jobs:
                continue
            config = job_pb2.JobConfig.FromString(config_blob)
            r = config.defaultConfig.resource
            need_of[job_id] = (r.cpuLimit, r.memLimitMb, r.diskLimitMb, r.gpuLimit)
            sleep = _SLEEP.fullmatch(config.defaultConfig.command.value.strip())
            if sleep and not config.instanceConfig:
                sleep_of[job_id] = float(sleep.group(1))
            store_created[job_id] = creation_time
        counted = {j for j, rec in jobs.items() if rec.acked_at or j in need_of}
        out.tasks_total = sum(jobs[j].instances for j in counted)
        created = {j: (jobs[j].created_at or store_created.get(j, 0.0)) for j in counted}
        out.first_create = min((t for j, t in created.items() if not jobs[j].probe),
                               default=0.0)

        # -- tasks: the current run of each --------------------------------------
        bulk_latency: array[float] = array("d")
        probe_latency: array[float] = array("d")
        seen_per_job: dict[str, int] = dict.fromkeys(counted, 0)
        retried: list[tuple[str, int, int]] = []
        # per host: starts, ends, job index; intervals of runs before the current one
        # are added below from task_events.
        host_runs: dict[str, tuple[array[float], array[float], array[int]]] = {}
        job_index: dict[str, int] = {}
        job_needs: list[tuple[float, ...]] = []
        for job_id in counted:
            job_index[job_id] = len(job_needs)
            job_needs.append(need_of.get(job_id, (0.0, 0.0, 0.0, 0.0)))

        def add_run(host: str, start: float, end: float, job_id: str) -> None:
            runs = host_runs.get(host)
            if runs is None:
                runs = host_runs[host] = (array("d"), array("d"), array("q"))
            runs[0].append(start)
            runs[1].append(end)
            runs[2].append(job_index[job_id])

        runtime = task_pb2.RuntimeInfo()
        now = _time.time()

        def unfinished_end(job_id: str, start: float) -> float:
            """Where a run that has no recorded end ends: after its ``sleep N``
            (the sim backend ends it exactly then), else now."""
            sleep = sleep_of.get(job_id)
            return min(now, start + sleep) if sleep is not None else now

        for job_id, instance, run_id, state, host, blob in conn.execute(
                "SELECT job_id, instance_id, run_id, state, host, runtime FROM tasks"):
            if job_id not in seen_per_job:
                continue
            seen_per_job[job_id] += 1
            bulk = not jobs[job_id].probe
            runtime.ParseFromString(blob)
            start = _ts(runtime.startTime)
            end = _ts(runtime.completionTime)
            if state in TERMINAL:
                if state == LOST:
                    out.tasks_lost += 1
                else:
                    out.tasks_completed += 1
                    if state == SUCCEEDED:
                        out.tasks_succeeded += 1
                    elif state == FAILED:
                        out.tasks_failed += 1
                    else:
                        out.tasks_killed += 1
                    if bulk:
                        out.bulk_completed += 1
                        if end:
                            out.last_completion = max(out.last_completion, end)
            else:
                out.tasks_not_terminal += 1
                out.tasks_lost += 1
            if run_id > 1:
                retried.append((job_id, instance, run_id))
                continue  # the first run's start is in task_events
            if start:
                if bulk:
                    bulk_latency.append(start - created[job_id])
                    out.last_running = max(out.last_running, start)
                    out.bulk_running_ever += 1
                else:
                    probe_latency.append(start - created[job_id])
                if host:
                    add_run(host, start, end if end else unfinished_end(job_id, start), job_id)
        # -- probe stages: stored, placed (LAUNCHING), running ---------------------
        probe_ids = [j for j in counted if jobs[j].probe]
        stored: array[float] = array("d")
        placed: array[float] = array("d")
        for job_id in probe_ids:
            if job_id in store_created:
                stored.extend([store_created[job_id] - created[job_id]] * jobs[job_id].instances)
        for i in range(0, len(probe_ids), 500):
            part = probe_ids[i:i + 500]
            for job_id, ts in conn.execute(
                    f"SELECT job_id, min(timestamp) FROM task_events WHERE state = {LAUNCHING} "
                    f"AND run_id = 1 AND job_id IN ({', '.join('?' * len(part))}) "
                    f"GROUP BY job_id, instance_id", part):
                placed.append(ts - created[job_id])
        out.tasks_in_store = sum(seen_per_job.values())
        out.tasks_missing = sum(jobs[j].instances - n for j, n in seen_per_job.items())
        out.tasks_lost += out.tasks_missing
        out.tasks_retried = len(retried)

        # -- retried tasks: their earlier runs, from the events -----------------------
        if retried:
            current = {(j, i): r for j, i, r in retried}
            opened: dict[tuple[str, int, int], tuple[float, str]] = {}
            for job_id, instance, run_id, state, ts, host in conn.execute(
                    f"SELECT job_id, instance_id, run_id, state, timestamp, host FROM task_events "
                    f"WHERE state IN ({RUNNING}, {', '.join(map(str, TERMINAL))}) "
                    f"ORDER BY timestamp"):
                last = current.get((job_id, instance))
                if last is None:
                    continue
                key = (job_id, instance, run_id)
                if state == RUNNING:
                    if key not in opened:
                        opened[key] = (ts, host)
                        if run_id == 1 and jobs[job_id].probe:
                            probe_latency.append(ts - created[job_id])
                        elif run_id == 1:
                            bulk_latency.append(ts - created[job_id])
                            out.last_running = max(out.last_running, ts)
                            out.bulk_running_ever += 1
                elif key in opened:
                    start, run_host = opened.pop(key)
                    if run_id < last and run_host:
                        # Event times are the jobmgr's, not the backend's: close enough
                        # for runs that ended early, which is all a retry is.
                        add_run(run_host, start, ts, job_id)
            for (job_id, instance, run_id), (start, run_host) in opened.items():
                if run_id < current[(job_id, instance)] and run_host:
                    add_run(run_host, start, unfinished_end(job_id, start), job_id)
            # The current runs of retried tasks, from the rows again.
            for job_id, instance, host, blob in conn.execute(
                    "SELECT job_id, instance_id, host, runtime FROM tasks WHERE run_id > 1"):
                if (job_id, instance) not in current or not host:
                    continue
                runtime.ParseFromString(blob)
                start = _ts(runtime.startTime)
                if start:
                    add_run(host, start, _ts(runtime.completionTime)
                            or unfinished_end(job_id, start), job_id)

        # -- placed on a draining host --------------------------------------------------
        if drained:
            hosts = sorted(drained)
            late: dict[tuple[str, int, int], tuple[str, float]] = {}
            for i in range(0, len(hosts), 500):
                part = hosts[i:i + 500]
                for job_id, instance, run_id, ts, host in conn.execute(
                        f"SELECT job_id, instance_id, run_id, timestamp, host FROM task_events "
                        f"WHERE state = {LAUNCHING} AND host IN ({', '.join('?' * len(part))})",
                        part):
                    if ts > drained[host]:
                        late[(job_id, instance, run_id)] = (host, ts)
            for (job_id, instance, run_id), (host, ts) in late.items():
                ran = conn.execute(
                    f"SELECT 1 FROM task_events WHERE job_id = ? AND instance_id = ? AND "
                    f"run_id = ? AND state = {RUNNING} AND host = ? LIMIT 1",
                    (job_id, instance, run_id, host)).fetchone()
                if ran:
                    out.started_on_draining += 1
                    if len(out.draining_examples) < examples:
                        out.draining_examples.append({"host": host, "drained": drained[host],
                                                      "placed": ts, "run": f"{job_id}-"
                                                      f"{instance}-{run_id}"})

        # -- ended twice, started twice ---------------------------------------------------
        terminal = ", ".join(map(str, TERMINAL))
        for job_id, _count in conn.execute(
                f"SELECT job_id, count(*) FROM task_events WHERE state IN ({terminal}) "
                f"GROUP BY job_id, instance_id, run_id HAVING count(*) > 1"):
            if job_id in seen_per_job:
                out.duplicate_runs += 1
        for job_id, _count in conn.execute(
                f"SELECT job_id, count(*) FROM task_events WHERE state = {RUNNING} "
                f"GROUP BY job_id, instance_id, run_id HAVING count(*) > 1"):
            if job_id in seen_per_job:
                out.runs_started_twice += 1
    finally:
        conn.close()

    # -- over-commit ----------------------------------------------------------------------
    for host, (starts, ends, idx) in host_runs.items():
        out.runs_checked += len(starts)
        cap = capacity(host)
        if cap is None:
            continue
        found = overcommit_sweep(host, ((starts[k], ends[k], job_needs[idx[k]])
                                        for k in range(len(starts))), cap)
        if found is not None:
            out.overcommitted_hosts += 1
            if len(out.overcommit_examples) < examples:
                out.overcommit_examples.append({
                    "host": host, "at": found.at, "used": list(found.used),
                    "capacity": list(found.capacity)})
    out.hosts_used = len(host_runs)

    out.create_to_running = percentiles(bulk_latency)
    out.create_answered = percentiles(array("d", (
        rec.acked_at - rec.created_at for rec in jobs.values()
        if rec.acked_at and rec.created_at and not rec.probe)))
    out.probe_running = percentiles(probe_latency)
    if probe_latency:
        out.probe_stages = {"stored": percentiles(stored), "placed": percentiles(placed),
                            "running": out.probe_running}
    if out.first_create:
        if out.last_running:
            out.running_per_s = rate(out.bulk_running_ever, out.last_running - out.first_create)
        if out.last_completion:
            out.completed_per_s = rate(out.bulk_completed,
                                       out.last_completion - out.first_create)
    out.seconds = (clock or _time.monotonic)() - began
    return out


def profile_summary(folded: Iterable[str], top: int = 40) -> str:
    """The functions a py-spy ``--format raw`` profile (collapsed stacks:
    ``frame;frame;... count`` per line) spent its samples in: by own samples
    (where the CPU was) and by inclusive samples (what it was doing for)."""
    own: dict[str, int] = {}
    inclusive: dict[str, int] = {}
    total = 0
    for line in folded:
        stack, _, count_text = line.rstrip("\n").rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        total += count
        # "function (path/to/file.py:123)" -> "function (file.py)"
        frames = [re.sub(r" \((?:.*/)?([^/:]+)(?::\d+)?\)$", r" (\1)", f)
                  for f in stack.split(";")]
        own[frames[-1]] = own.get(frames[-1], 0) + count
        for frame in set(frames):
            inclusive[frame] = inclusive.get(frame, 0) + count
    if not total:
        return "no samples\n"
    lines = [f"{total} samples"]
    for title, table in (("own", own), ("inclusive", inclusive)):
        lines += ["", f"{'%':>6}  {title}"]
        for frame, count in sorted(table.items(), key=lambda kv: -kv[1])[:top]:
            lines.append(f"{100 * count / total:6.1f}  {frame}")
    return "\n".join(lines) + "\n"
