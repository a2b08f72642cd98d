"""The ``local`` backend: real processes on this machine, as several virtual hosts.

Like a few Mesos agents on a laptop. Host ``local-i`` is only a name and a
resource budget (the pool does the accounting; nothing is enforced on the
process). Each run is a child process in its own session, so a kill reaches
everything it spawned, with its own sandbox::

    <root>/sandboxes/<hostname>/<mesos_task_id>/{stdout,stderr,...}

The sandbox is the run's working directory and ``MESOS_SANDBOX``. The
environment is this process's, then the task's own variables, then each
port's variable, then ``PELOTON_JOB_ID``, ``PELOTON_INSTANCE_ID``,
``PELOTON_TASK_ID`` (the mesos task id ``<job>-<instance>-<run>``, as Peloton
sets it) and ``MESOS_SANDBOX`` (later ones win).

Each virtual host hands out its own block of ports (``ports_per_host`` from
``first_port`` on), so runs on different virtual hosts never collide.

**Runs outlive a host manager that dies.** Each run is started by the
keeper (``supervise.py --serve``, one process per backend, in a session of
its own, outliving the backend until its last run ends), which reaps it
and writes how it ended to ``<root>/runs/<mesos_task_id>.status``; the
run's record (``.json``: its spec) is written once, before the keeper is
asked, the keeper claims the run (``.pid``: its pid and start time) before
it lets it run, and a kill first leaves a ``.kill`` mark (which says when
its SIGKILL is due: a host manager that dies in a kill's grace leaves the
next one to finish it). So a host manager
killed at any moment of a launch leaves no run that the next one neither
knows nor counts: a record without a pid or a claim is given up (the run
is LOST, and a keeper that comes late kills it before it runs anything). A
``run()`` that starts reads the records: a run still alive (same pid,
same start time) is adopted (RUNNING, watched through a pidfd, killable,
its usage sampled; ``adopted`` lists them for the host pool), and one that
ended meanwhile is known with its real end (``known``: the jobmgr's
reconcile asks). When ``run()`` is
cancelled (the host manager stops cleanly) every live run is SIGKILLed and
reaped, and known as LOST from then on. When a run's main process exits,
whatever it left behind in its process group is SIGKILLed too, as Mesos
destroys a container.

**Ended runs go** ``gc_delay`` seconds after they end (a day by default;
Mesos's agent's ``--gc_delay``), once a job manager has recorded their end
(``acknowledged``: their end events were purged, as a Mesos agent keeps a
status update until the framework acknowledges it): the host manager
forgets them and removes their records and sandboxes, so its memory, its
disk and the time its start takes to read the records follow the recent
runs, not every run there ever was. A run whose end no job manager has
recorded stays however long that takes; one found ended at a start is
announced again (``found_ended``).

**Usage.** Every ``usage_period`` seconds (2 by default) one pass over
``/proc`` (in a worker thread) sums the cpu time (user + system, and that of
reaped children) of each live run's process group. A run's usage is the cpu
time it gained over the last ``usage_window`` seconds (10; at least one
period) divided by the time that took, once it has two samples; it goes to ``on_usage`` and from
there to the host pool's slack. Until then the pool counts a run as using
all its cpu (``assumed_cpu_usage`` 1.0), so a new run makes no slack.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import trio

from peloton.api.v0.task import task_pb2
from peloton.core.errors import FailedPrecondition, InvalidArgument, NotFound
from peloton.core.resources import Resources
from peloton.core.states import TERMINAL_TASK_STATES, TaskState
from peloton.hostmgr.backends import spawner, supervise
from peloton.hostmgr.backends.base import (
    MAX_READ_BYTES,
    REASON_COMMAND_FAILED,
    REASON_KILLED_ON_REQUEST,
    REASON_LAUNCH_FAILED,
    REASON_UNHEALTHY,
    Backend,
    HealthCheck,
    LaunchSpec,
    Report,
    StatusUpdate,
)
from peloton.hostmgr.backends.cgroups import MIN_MEMORY_MB, MemoryCgroups
from peloton.hostmgr.backends.spawner import Spawned, Spawner, SpawnFailed
from peloton.hostmgr.hostpool import HostSpec

log = logging.getLogger(__name__)
SUPERVISOR = spawner.SUPERVISOR
PREPARE_BATCH = 64  # runs of a launch prepared in one thread hop
# A launch of at most this many runs, none with a persistent volume, is
# prepared in the loop (``_small``): a run's preparation (its sandbox,
# outputs, cgroups, record: ~0.4 ms, most of it the kernel's) costs less
# than the hop (~0.2 ms of cpu with its wake-ups, a worker thread's GIL
# wait), and small launches are most of a busy cluster of small jobs.
PREPARE_HERE = 2
KEEPER_STATUS_S = 10.0  # the longest an ended run's end is waited for from its keeper
# The most processes a run may have at once (its pids cgroup); the cluster
# file's pids_max on a local hostmgr says otherwise.
DEFAULT_PIDS_MAX = 8192
# The users runs get, one each while they run (uid = gid): numbers no
# account of the machine uses, so a run owns nothing but its sandbox.
TASK_UID_FIRST, TASK_UID_COUNT = 200_000, 65_536
# Mesos's reason for a task its memory limit ended.
REASON_MEMORY_LIMIT = "REASON_CONTAINER_LIMITATION_MEMORY"
# A task's PATH unless it sets one: Mesos's for command tasks.
TASK_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# Mesos's reason for a task that wrote more than its disk limit (disk/du).
REASON_DISK_LIMIT = "REASON_CONTAINER_LIMITATION_DISK"
# How often a run's sandbox is measured against its diskLimitMb (Mesos's
# container_disk_watch_interval is 15 s).
DISK_CHECK_PERIOD = 10.0
# How long an ended run is kept (its record, its end for ``known``, its
# sandbox for reads) at least: Mesos's agent removes a sandbox
# ``--gc_delay`` (a week) after its executor ends. A day here: every run
# kept costs memory and ~0.11 ms of each start, which reads every record
# (5,000 runs: 0.55 s). At least GC_DELAY_MIN, for reads of a recent run's
# sandbox. A run whose end no job manager has acknowledged is kept past it.
GC_DELAY = 86400.0
GC_DELAY_MIN = 600.0
# How often the runs past their gc_delay go (a tenth of the least delay).
GC_PERIOD = 60.0
CGROUP_SWEEP_AGE = 600.0  # an empty run cgroup this old is one left behind

MAX_LISTED_FILES = 1000
"""``read_sandbox_file`` lists at most this many sandbox files."""

USAGE_PERIOD = 2.0
USAGE_WINDOW = 10.0

CpuReader = Callable[[Collection[int]], dict[int, float]]
"""process group ids -> cpu seconds their processes have used so far."""


def read_group_cpu(pgids: Collection[int], proc: str = "/proc") -> dict[int, float]:
    """Cpu seconds (user + system, reaped children included) of the live
    processes of each process group in ``pgids``, from one pass over
    ``proc``. Groups with no process read 0. Blocking: call it in a thread."""
    wanted = set(pgids)
    out = dict.fromkeys(wanted, 0.0)
    if not wanted:
        return out
    tick = float(os.sysconf("SC_CLK_TCK"))
    with os.scandir(proc) as entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            try:
                with open(os.path.join(entry.path, "stat"), "rb") as f:
                    data = f.read()
            except OSError:
                continue  # gone meanwhile
            # After "(comm)": field 3 is rest[0]; pgrp is field 5, utime,
            # stime, cutime, cstime are fields 14-17.
            rest = data.rpartition(b")")[2].split()
            try:
                group = int(rest[2])
                if group in wanted:
                    out[group] += (int(rest[11]) + int(rest[12]) + int(rest[13])
                                   + int(rest[14])) / tick
            except (IndexError, ValueError):
                continue
    return out


@dataclass(eq=False, slots=True)
class _Run:
    spec: LaunchSpec
    sandbox: Path
    status: StatusUpdate
    process: trio.Process | Spawned | None = None
    pgid: int = 0  # its first process's pid: it leads the run's session and group
    kill_requested: bool = False
    unhealthy: str = ""  # why its health check ended it
    over_disk: str = ""  # why its disk check ended it
    gpus: tuple[int, ...] = ()  # the device indexes it holds on its host
    uid: int = 0  # the user (and group) it runs as; 0: the host manager's own
    # Its deadline is when SIGTERM escalates to SIGKILL; a later kill with a
    # shorter grace moves it earlier.
    kill_scope: trio.CancelScope | None = None
    exited: trio.Event = field(default_factory=trio.Event)


class LocalBackend(Backend):
    """Runs each task run as a local child process on one of ``hosts``
    virtual hosts named ``local-0``, ``local-1``, ... with the given resources
    each (memory and disk in MiB)."""

    capabilities = frozenset[str]()  # plain commands only: no Docker, no Mesos containers

    def __init__(self, root: Path, hosts: int = 3, cpu: float = 4, memory_mb: float = 8192,
                 disk_mb: float = 102400, gpu: float = 0, cluster: str = "local", *,
                 first_port: int = 31000, ports_per_host: int = 200,
                 usage_period: float = USAGE_PERIOD, usage_window: float = USAGE_WINDOW,
                 cpu_reader: CpuReader | None = None, memory_limits: bool = True,
                 attributes: Mapping[str, str] | None = None,
                 host_attributes: Mapping[str, Mapping[str, str]] | None = None,
                 pids_max: int = DEFAULT_PIDS_MAX,
                 disk_check_period: float = DISK_CHECK_PERIOD,
                 task_uids: tuple[int, int] | None = None,
                 gc_delay: float = GC_DELAY) -> None:
        if hosts < 0:
            raise InvalidArgument(f"must not be negative, got {hosts}", field="hosts")
        if pids_max < 1:
            raise InvalidArgument(f"must be at least 1, got {pids_max}", field="pids_max")
        self._pids_max = pids_max
        # Each run as a user of its own (uid = gid, from this range: first,
        # count), in a sandbox only it can read; None: as the host manager.
        if task_uids is not None and os.geteuid() != 0:
            raise InvalidArgument("running tasks as users of their own needs a host manager "
                                  "running as root", field="task_uids")
        self._uids: range | None = (range(task_uids[0], task_uids[0] + task_uids[1])
                                    if task_uids is not None else None)
        self._uid_of: dict[str, int] = {}  # live runs' users
        self._disk_period = disk_check_period
        if not 0 < gc_delay < float("inf"):
            raise InvalidArgument(f"must be a positive number of seconds, got {gc_delay}",
                                  field="gc_delay")
        self._gc_delay = gc_delay
        # (when it ended, on trio's clock; mesos task id) of ended runs, in
        # the order they ended: the oldest go first.
        self._ended_at: deque[tuple[float, str]] = deque()
        # Ended runs whose end no job manager has acknowledged yet, and
        # those of them past their gc_delay (they go once acknowledged).
        self._unacknowledged: set[str] = set()
        self._overdue: set[str] = set()
        # (shard, end) of the ended runs found at the start, to announce.
        self._found_ended: list[tuple[int, StatusUpdate]] = []
        if not 0 < usage_period < float("inf"):
            raise InvalidArgument(f"must be a positive number of seconds, got {usage_period}",
                                  field="usage_period")
        if not 0 < usage_window < float("inf"):
            raise InvalidArgument(f"must be a positive number of seconds, got {usage_window}",
                                  field="usage_window")
        if ports_per_host < 0 or first_port < 1 or first_port + hosts * ports_per_host > 65536:
            raise InvalidArgument(
                f"{hosts} hosts x {ports_per_host} ports from {first_port} exceed 65535",
                field="ports_per_host")
        self._root = Path(root).absolute()
        self._runs_dir = self._root / "runs"
        capacity = Resources(cpu=cpu, memory=memory_mb, disk=disk_mb, gpu=gpu)
        # Hosts are named after their cluster: local-0, local-1, ...; local1-0, ...
        names = [f"{cluster}-{i}" for i in range(hosts)]
        for name in host_attributes or {}:
            if name not in names:
                raise InvalidArgument(f"no host {name!r} here (hosts: {cluster}-0..{cluster}-"
                                      f"{hosts - 1})", field=f"host_attributes.{name}")
        # Every host's attributes: ``cluster``, ``attributes``, then its own over them.
        self._hosts = [
            HostSpec(hostname=name, agent_id=f"{cluster}-S{i}", capacity=capacity,
                     ports=(first_port + i * ports_per_host,
                            first_port + (i + 1) * ports_per_host - 1),
                     attributes={"cluster": cluster, **(attributes or {}),
                                 **(host_attributes or {}).get(name, {})},
                     cluster=cluster)
            for i, name in enumerate(names)
        ]
        self._hostnames = frozenset(h.hostname for h in self._hosts)
        self._sandboxes = {name: self._root / "sandboxes" / name for name in names}
        # Each host's free GPU device indexes (0..gpu-1): a run holds
        # ceil(its gpu) of them, lowest first, named in CUDA_VISIBLE_DEVICES.
        self._free_gpus: dict[str, list[int]] = {name: list(range(int(gpu))) for name in names}
        self._runs: dict[str, _Run] = {}
        self._nursery: trio.Nursery | None = None
        self._spawner = Spawner()
        self._report: Report | None = None
        self._usage_period = usage_period
        self._usage_window = usage_window
        self._read_cpu: CpuReader = cpu_reader or read_group_cpu
        self._live: dict[str, int] = {}  # runs that have a process group: its id
        self._adopted: list[LaunchSpec] = []
        self._adopted_taken = trio.Event()  # adopted runs report ends only after
        self._samples: dict[str, deque[tuple[float, float]]] = {}  # (time, cpu seconds)
        # A memory cgroup per run (resource.memLimitMb), found at run().
        self._want_memory_limits = memory_limits
        self.cgroups: MemoryCgroups | None = None

    def hosts(self) -> list[HostSpec]:
        return list(self._hosts)

    def enforced(self) -> list[str]:
        """Open files and GPU devices always; memory, cpu and processes as
        far as the run's cgroups go (none without cgroups)."""
        return [*(self.cgroups.enforced if self.cgroups is not None else []),
                "open files", "GPU devices", "disk",
                *(["task users"] if self._uids is not None else [])]

    def _take_uid(self, mesos_task_id: str, uid: int = 0) -> int:
        """A user for the run: ``uid`` (an adopted run's) or the lowest free."""
        if self._uids is None:
            return 0
        if not uid:
            used = set(self._uid_of.values())
            uid = next((u for u in self._uids if u not in used), 0)
            if not uid:
                raise FailedPrecondition(f"all {len(self._uids)} task users are in use")
        self._uid_of[mesos_task_id] = uid
        return uid

    async def run(self, report: Report, *,
                  task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        await trio.to_thread.run_sync(
            partial(self._root.joinpath("sandboxes").mkdir, parents=True, exist_ok=True))
        await trio.to_thread.run_sync(
            partial(self._runs_dir.mkdir, parents=True, exist_ok=True))
        if self._want_memory_limits:
            self.cgroups, why = await trio.to_thread.run_sync(MemoryCgroups.detect)
            if self.cgroups is not None:
                log.info("local tasks get cgroups under %s limiting %s (memLimitMb, at least "
                         "%d MB; cpuLimit as shares and CFS quota; %d processes)",
                         self.cgroups.base, ", ".join(self.cgroups.enforced), MIN_MEMORY_MB,
                         self._pids_max)
                missing = {"cpu", "pids"} - set(self.cgroups.enforced)
                if missing:
                    log.warning("local tasks run WITHOUT %s limits: no usable cgroup "
                                "controller", " or ".join(sorted(missing)))
            else:
                log.warning("local tasks run WITHOUT memory limits: %s", why)
        self._report = report
        found = await trio.to_thread.run_sync(_read_records, self._runs_dir)
        cgroups = self.cgroups
        if cgroups is not None:  # runs that ended unwatched leave theirs behind
            ended = [r.spec.mesos_task_id for r in found if r.pidfd is None]

            def remove_all() -> None:
                for mid in ended:
                    cgroups.remove(mid)

            await trio.to_thread.run_sync(remove_all)
        try:
            async with trio.open_nursery() as outer:
                # Outlives the runs' nursery: their ends arrive through it.
                await outer.start(self._spawner.run)
                try:
                    async with trio.open_nursery() as nursery:
                        self._nursery = nursery
                        self._take_over(found, nursery)
                        nursery.start_soon(self.sweep_cgroups)
                        nursery.start_soon(self._usage_loop)
                        nursery.start_soon(self._disk_loop)
                        nursery.start_soon(self._gc_loop)
                        task_status.started()
                        await trio.sleep_forever()
                finally:
                    self._spawner.close()
        finally:
            self._nursery = None
            self._report = None
            if cgroups is not None:  # its spares go with it
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(cgroups.retire_spares, 0)


    def _take_over(self, found: list[_Record], nursery: trio.Nursery) -> None:
        """Know the runs of earlier host managers: adopt the live ones, and
        keep how the others ended (for ``known``)."""
        for record in found:
            spec, mid = record.spec, record.spec.mesos_task_id
            if mid in self._runs:
                continue
            sandbox = self._root / "sandboxes" / spec.hostname / mid
            if record.pidfd is not None:
                run = _Run(spec=spec, sandbox=sandbox, status=_status(spec, TaskState.RUNNING),
                           pgid=record.pid, kill_requested=record.killed,
                           gpus=self._hold_gpus(spec.hostname, record.gpus),
                           uid=self._take_uid(mid, record.uid) if record.uid else 0)
                self._runs[mid] = run
                self._live[mid] = record.pid
                self._adopted.append(spec)
                nursery.start_soon(self._watch_adopted, run, record.pidfd, record.keeper)
                if record.killed:
                    # Killed by the last host manager, which died in the
                    # kill's grace: its SIGTERM went (it marks just before it
                    # signals; one that died in between leaves the run only
                    # the SIGKILL), and the SIGKILL is this one's to send,
                    # when due. (A mark without a time, from an older
                    # version: a whole grace from now.)
                    due = record.kill_due if record.kill_due is not None else (
                        time.time() + spec.grace)
                    run.kill_scope = trio.CancelScope(
                        deadline=trio.current_time() + max(0.0, due - time.time()))
                    nursery.start_soon(self._escalate, run)
                if spec.health is not None:
                    nursery.start_soon(self._health_loop, run, spec.health)
            else:
                run = _Run(spec=spec, sandbox=sandbox, status=record.ended or _status(
                    spec, TaskState.LOST, message="the run ended while no host manager "
                                                  "watched it; how is unknown"))
                run.exited.set()
                self._runs[mid] = run
                # Kept gc_delay from this start (when it ended is not known),
                # and until a job manager acknowledges its end announced again.
                self._ended_at.append((trio.current_time(), mid))
                self._unacknowledged.add(mid)
                self._found_ended.append((spec.shard, run.status))
        if self._adopted:
            log.info("adopted %d runs still alive after the last host manager",
                     len(self._adopted))

    def adopted(self) -> list[LaunchSpec]:
        self._adopted_taken.set()
        return list(self._adopted)

    def found_ended(self) -> list[tuple[int, StatusUpdate]]:
        found, self._found_ended = self._found_ended, []
        return found

    async def _watch_adopted(self, run: _Run, pidfd: int,
                             keeper: tuple[int, int] | None) -> None:
        """Wait for an adopted run to exit (it is not our child: a pidfd
        says when); its status file, written by its keeper (or its own
        supervisor), says how it ended."""
        mid = run.spec.mesos_task_id
        try:
            await self._adopted_taken.wait()
            await trio.lowlevel.wait_readable(pidfd)
        except BaseException:
            if run.kill_requested is False:
                _killpg(run.pgid, signal.SIGKILL)  # the backend stops: as for our children
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(_mark, self._runs_dir / f"{mid}.lost")
                    if self.cgroups is not None:
                        await trio.to_thread.run_sync(self._end_cgroup, self.cgroups, mid)
            run.status = _status(run.spec, TaskState.LOST, message="the local backend stopped")
            raise
        finally:
            os.close(pidfd)
            run.exited.set()
            self._live.pop(mid, None)
            self._samples.pop(mid, None)
        _killpg(run.pgid, signal.SIGKILL)  # whatever the task left in its group
        ended = await trio.to_thread.run_sync(_kept_status, self._runs_dir, run.spec,
                                              run.kill_requested, keeper)
        ended = _limited(run) or ended
        if self.cgroups is not None:
            await trio.to_thread.run_sync(self._end_cgroup, self.cgroups, mid)
        self._finish(run, ended or (_status(
            run.spec, TaskState.KILLED, reason=REASON_KILLED_ON_REQUEST,
            message="Killed on request; it ended without a word of how from its keeper or "
                    "supervisor") if run.kill_requested else _status(
            run.spec, TaskState.LOST,
            message="it ended without a word of how from its keeper or supervisor")))

    # -- launch --------------------------------------------------------------

    async def launch(self, specs: Sequence[LaunchSpec]) -> None:
        """Start each run not already known; return when each is RUNNING or
        FAILED. Raises FailedPrecondition before ``run()`` has started and
        InvalidArgument (starting nothing) if a spec names a host that is not
        one of ours."""
        if self._nursery is None:
            raise FailedPrecondition("the local backend is not running")
        for spec in specs:
            if spec.hostname not in self._hostnames:
                raise InvalidArgument(
                    f"task {spec.mesos_task_id}: host {spec.hostname!r} is not a local host",
                    field="hostname")
        fresh: list[_Run] = []
        for spec in specs:
            if spec.mesos_task_id in self._runs:
                continue
            # Registered before any await, so a concurrent duplicate is skipped too.
            run = _Run(spec=spec, sandbox=self._sandboxes[spec.hostname] / spec.mesos_task_id,
                       status=_status(spec, TaskState.STARTING))
            self._runs[spec.mesos_task_id] = run
            wanted = math.ceil(spec.resources.gpu - 1e-9)
            free = self._free_gpus.get(spec.hostname, [])
            if wanted > len(free):
                self._finish(run, _status(spec, TaskState.FAILED, reason=REASON_LAUNCH_FAILED,
                                          message=f"needs {wanted} GPUs; {spec.hostname} has "
                                                  f"{len(free)} free"))
                continue
            run.gpus = tuple(free[:wanted])
            del free[:wanted]
            try:
                run.uid = self._take_uid(spec.mesos_task_id)
            except FailedPrecondition as full:
                self._finish(run, _status(spec, TaskState.FAILED, reason=REASON_LAUNCH_FAILED,
                                          message=full.message))
                continue
            fresh.append(run)
        if not fresh:
            await trio.lowlevel.checkpoint()
            return
        # Shielded (it is short): a run registered above must end up RUNNING or
        # FAILED, never stuck half-started by a cancelled caller.
        with trio.CancelScope(shield=True):
            # A thread hop for up to PREPARE_BATCH runs (a hop costs ~0.2 ms
            # of cpu; each run prepared holds its two output files open).
            for first in range(0, len(fresh), PREPARE_BATCH):
                runs = fresh[first:first + PREPARE_BATCH]
                plans = [self._plan(run) for run in runs]
                prepared = (_prepare_runs(plans, self._root) if _small(plans)
                            else await trio.to_thread.run_sync(_prepare_runs, plans,
                                                               self._root))
                for run, plan, (files, cgroups, why) in zip(runs, plans, prepared, strict=True):
                    if why is not None:
                        self._launch_failed(run, files, why)
                    else:
                        await self._start(run, plan, files, cgroups)

    def _plan(self, run: _Run) -> _Plan:
        spec = run.spec
        env = _environment(spec, run.sandbox, run.gpus)
        if spec.shell:
            # (The keeper starts this form through its trampoline.)
            exe, argv = supervise.SHELL, [supervise.SHELL, "-c", spec.command]
        else:
            # Mesos's exec convention: arguments are the whole argv, argv[0] included.
            exe, argv = spec.command, list(spec.arguments) or [spec.command]
        make_cgroups = None if self.cgroups is None else partial(
            self.cgroups.create, spec.mesos_task_id, spec.resources.memory,
            spec.resources.cpu, self._pids_max)
        # Recorded before the keeper is asked (which claims it before it
        # lets it run): a host manager that dies from here on leaves the next
        # one the run to adopt, or to give up before it ever starts; never a
        # run it neither knows nor counts (see supervise.py).
        record = partial(_write_record, self._runs_dir, spec, None, run.gpus, run.uid)
        return _Plan(run.sandbox, self._volume_link(spec), run.uid, env, spec.command, exe, argv,
                     self._runs_dir / f"{spec.mesos_task_id}.status", make_cgroups, record)

    async def _start(self, run: _Run, plan: _Plan, files: tuple[int, ...],
                     cgroups: list[str]) -> None:
        spec, env, exe, status_file = run.spec, plan.env, plan.exe, plan.status_file
        stdout, stderr = files
        args = [str(status_file), os.pathsep.join(cgroups), str(spec.fd_limit),
                str(run.uid), exe, *plan.argv]
        process: trio.Process | Spawned
        try:
            try:  # started by the keeper: a vfork, not an interpreter's start
                process = await self._spawner.spawn(
                    args, cwd=run.sandbox, env=env, stdout=stdout, stderr=stderr,
                    status_file=status_file)
            except SpawnFailed as why:
                log.info("starting %s's supervisor on its own: %s", spec.mesos_task_id, why)
                process = await trio.lowlevel.open_process(
                    [sys.executable, "-S", "-E", SUPERVISOR, *args], cwd=run.sandbox,
                    env=env, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr,
                    start_new_session=True)
        except OSError as exc:
            self._finish(run, _status(
                spec, TaskState.FAILED, reason=REASON_LAUNCH_FAILED,
                message=f"Failed to launch {spec.command!r}: {exc.strerror or exc}"))
            return
        finally:
            os.close(stdout)
            os.close(stderr)
        run.process, run.pgid = process, process.pid
        nursery = self._nursery
        if nursery is None:  # the backend stopped while this process started
            _killpg(run.pgid, signal.SIGKILL)
            run.status = _status(spec, TaskState.LOST, message="the local backend stopped")
            return
        self._set(run, _status(spec, TaskState.RUNNING, health=_first_health(spec)))
        self._live[spec.mesos_task_id] = process.pid
        nursery.start_soon(self._supervise, run, process)
        if spec.health is not None:
            nursery.start_soon(self._health_loop, run, spec.health)
        if run.kill_requested:  # kill() came while the process was starting
            await self._mark_kill(run)
            self._begin_kill(run)

    def _launch_failed(self, run: _Run, files: tuple[int, ...], message: str) -> None:
        """The run could not start: its output files closed, FAILED with
        Mesos's launch-failed reason and ``message``."""
        for fd in files:
            os.close(fd)
        self._finish(run, _status(run.spec, TaskState.FAILED, reason=REASON_LAUNCH_FAILED,
                                  message=message))

    async def _supervise(self, run: _Run, process: trio.Process | Spawned) -> None:
        try:
            await process.wait()
        except BaseException:
            # The backend is stopping: leave no orphans behind.
            _killpg(run.pgid, signal.SIGKILL)
            with trio.CancelScope(shield=True):
                await process.wait()
                await trio.to_thread.run_sync(
                    _mark, self._runs_dir / f"{run.spec.mesos_task_id}.lost")
                if self.cgroups is not None:
                    await trio.to_thread.run_sync(self._end_cgroup, self.cgroups,
                                                  run.spec.mesos_task_id)
            run.status = _status(run.spec, TaskState.LOST, message="the local backend stopped")
            raise
        finally:
            run.exited.set()
            self._live.pop(run.spec.mesos_task_id, None)
            self._samples.pop(run.spec.mesos_task_id, None)
        _killpg(run.pgid, signal.SIGKILL)  # whatever the task left in its group
        mid, cgroups = run.spec.mesos_task_id, self.cgroups
        if isinstance(process, Spawned):  # the keeper said why it could not start, if so
            launch_error = process.launch_error
            oom = cgroups is not None and await self._end_cgroup_soon(cgroups, run.spec,
                                                                       self._pids_max)
        else:
            launch_error, oom = await trio.to_thread.run_sync(
                self._ended, self._runs_dir / f"{mid}.status", cgroups, mid)
        status = (_status(run.spec, TaskState.FAILED, reason=REASON_LAUNCH_FAILED,
                          message=launch_error) if launch_error
                  else _exit_status(run, process.returncode))
        if oom and status.state != TaskState.SUCCEEDED and not run.kill_requested:
            limit = max(run.spec.resources.memory, MIN_MEMORY_MB)
            status = _status(run.spec, TaskState.FAILED, exit_code=status.exit_code,
                             reason=REASON_MEMORY_LIMIT,
                             message=f"exceeded its memory limit of {limit:g} MB "
                                     f"(killed by the OOM killer); {status.message}")
        self._finish(run, status)

    @classmethod
    def _ended(cls, status_file: Path, cgroups: MemoryCgroups | None,
               run: str) -> tuple[str | None, bool]:
        """In a worker thread, once for an ended run its own supervisor
        started (a hop costs ~0.2 ms of cpu): why it could not start, if it
        could not, and whether the OOM killer struck (its cgroup ended)."""
        launch_error = supervise.launch_error(str(status_file))
        return launch_error, cgroups is not None and cls._end_cgroup(cgroups, run)

    @classmethod
    async def _end_cgroup_soon(cls, cgroups: MemoryCgroups, spec: LaunchSpec,
                               pids_max: int) -> bool:
        """``_end_cgroup``, here when the run left nothing in its cgroups
        (nearly always: they are kept as spares, or removed in ~150 us of
        the kernel's, less than a thread hop costs a run, ~0.2 ms with its
        wake-ups), in a worker thread when something is left to kill and
        wait for."""
        run = spec.mesos_task_id
        oom = cgroups.oom_killed(run)
        if cgroups.pids(run):
            return await trio.to_thread.run_sync(cls._end_cgroup, cgroups, run) or oom
        if oom:
            cgroups.remove(run)
        else:
            cgroups.release(run, spec.resources.memory, spec.resources.cpu, pids_max)
        return oom

    @staticmethod
    def _end_cgroup(cgroups: MemoryCgroups, run: str) -> bool:
        """Kill what is left in the run's cgroup (a child that left the
        process group), remove it; whether the OOM killer struck."""
        oom = cgroups.oom_killed(run)
        for pid in cgroups.pids(run):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for _ in range(100):
            if not cgroups.pids(run):
                break
            time.sleep(0.01)
        cgroups.remove(run)
        return oom

    # -- health --------------------------------------------------------------

    async def _health_loop(self, run: _Run, check: HealthCheck) -> None:
        """Check the run's health until it ends: HEALTHY or UNHEALTHY is
        reported when it changes, and ``max_failures`` failures in a row
        end the run (killed with its grace period; it ends FAILED,
        REASON_TASK_UNHEALTHY)."""
        with trio.move_on_after(check.initial_s):
            await run.exited.wait()
        failures, health = 0, task_pb2.HEALTH_UNKNOWN
        while not run.exited.is_set() and not run.kill_requested:
            ok, why = await _check(run, check)
            if run.exited.is_set() or run.kill_requested:
                return
            failures = 0 if ok else failures + 1
            now = task_pb2.HEALTHY if ok else task_pb2.UNHEALTHY
            if now != health:
                health = now
                self._set(run, replace(run.status, health=health, timestamp=time.time(),
                                       message="" if ok else f"health check failed: {why}"))
            if failures >= check.max_failures:
                run.unhealthy = (f"failed {failures} health checks in a row; the last: {why}")
                await self.kill([run.spec.mesos_task_id])
                return
            with trio.move_on_after(check.interval_s):
                await run.exited.wait()

    # -- usage ---------------------------------------------------------------

    async def _usage_loop(self) -> None:
        while True:
            await trio.sleep(self._usage_period)
            if self.on_usage is not None:  # nobody listening: no /proc pass
                await self.sample_usage()

    async def _disk_loop(self) -> None:
        while True:
            await trio.sleep(self._disk_period)
            await self.check_disk()

    async def check_disk(self) -> None:
        """Measure every live run's sandbox (as Mesos's disk/du isolator
        does), and its persistent volume, and kill the runs over their
        diskLimitMb or their volume's sizeMB: each ends FAILED,
        REASON_CONTAINER_LIMITATION_DISK."""
        runs = [r for mid in list(self._live) if (r := self._runs.get(mid)) is not None
                and (r.spec.resources.disk > 0 or r.spec.volume) and not r.kill_requested]
        if not runs:
            return
        # One thread hop for every sandbox of the pass.
        usage = await trio.to_thread.run_sync(lambda: [
            (_disk_usage(r.sandbox), _disk_usage(self._volume_dir(r.spec)) if r.spec.volume
             else 0) for r in runs])
        for run, (used, in_volume) in zip(runs, usage, strict=True):
            if run.exited.is_set() or run.kill_requested:
                continue
            limit = run.spec.resources.disk
            size = run.spec.volume[2] if run.spec.volume else 0
            if limit > 0 and used > limit * 1024 * 1024:
                run.over_disk = (f"used {used / 1024 / 1024:.1f} MB of disk in its sandbox, "
                                 f"more than its limit of {limit:g} MB")
            elif size and in_volume > size * 1024 * 1024:
                run.over_disk = (f"used {in_volume / 1024 / 1024:.1f} MB in its persistent "
                                 f"volume, more than its sizeMB {size}")
            else:
                continue
            await self.kill([run.spec.mesos_task_id])

    # -- ended runs ----------------------------------------------------------

    async def _gc_loop(self) -> None:
        while True:
            await trio.sleep(GC_PERIOD)
            await self.collect_garbage()
            await self.sweep_cgroups()

    async def sweep_cgroups(self) -> int:
        """Remove the empty run cgroups older than ``CGROUP_SWEEP_AGE``
        that no run of ours holds (see ``MemoryCgroups.sweep``); how many
        went."""
        cgroups = self.cgroups
        if cgroups is None:
            return 0
        keep = {mid for mid, run in self._runs.items() if not run.exited.is_set()}
        await trio.to_thread.run_sync(cgroups.retire_spares)
        gone = await trio.to_thread.run_sync(cgroups.sweep, keep, CGROUP_SWEEP_AGE)
        if gone:
            log.info("removed %d empty run cgroups left behind", gone)
        return gone

    def acknowledged(self, mesos_task_ids: Sequence[str]) -> None:
        self._unacknowledged.difference_update(mesos_task_ids)

    async def collect_garbage(self) -> int:
        """Forget the runs that ended ``gc_delay`` ago or more and whose end
        a job manager acknowledged, and remove their records and sandboxes
        (a persistent volume stays: only its link goes); returns how many
        went."""
        cutoff = trio.current_time() - self._gc_delay
        while self._ended_at and self._ended_at[0][0] <= cutoff:
            self._overdue.add(self._ended_at.popleft()[1])
        gone: list[tuple[str, Path]] = []
        for mid in self._overdue - self._unacknowledged:
            self._overdue.discard(mid)
            run = self._runs.get(mid)
            if run is not None and run.exited.is_set():
                del self._runs[mid]
                gone.append((mid, run.sandbox))
        if gone:
            await trio.to_thread.run_sync(_remove_runs, self._runs_dir, gone)
            log.info("removed %d runs that ended %.0f s ago or more, and their sandboxes",
                     len(gone), self._gc_delay)
        if self._overdue:
            log.info("%d runs that ended %.0f s ago or more are kept until a job manager "
                     "acknowledges their end", len(self._overdue), self._gc_delay)
        return len(gone)

    # -- persistent volumes --------------------------------------------------
    def _volume_dir(self, spec: LaunchSpec) -> Path:
        assert spec.volume is not None
        return self._root / "volumes" / spec.hostname / spec.volume[0]

    def _volume_link(self, spec: LaunchSpec) -> tuple[Path, Path] | None:
        """(the volume's directory, its link in the run's sandbox)."""
        if spec.volume is None:
            return None
        return self._volume_dir(spec), Path(spec.volume[1])

    async def delete_volumes(self, hostname: str, volume_ids: Sequence[str]) -> None:
        if hostname not in self._hostnames:
            await trio.lowlevel.checkpoint()
            return
        paths = [self._root / "volumes" / hostname / v for v in volume_ids
                 if v and "/" not in v and v not in (".", "..")]
        await trio.to_thread.run_sync(_remove_trees, paths)

    async def sample_usage(self) -> list[tuple[str, float]]:
        """Take one sample of every live run's cpu time and report (and
        return) the usage of the runs with two samples or more."""
        live = {pgid: mid for mid, pgid in self._live.items()}
        if not live:
            return []
        cpu = await trio.to_thread.run_sync(self._read_cpu, list(live))
        now = trio.current_time()
        window = self._usage_window
        updates: list[tuple[str, float]] = []
        for pgid, mid in live.items():
            if mid not in self._live:
                continue  # ended while we read
            samples = self._samples.get(mid)
            if samples is None:
                samples = self._samples[mid] = deque()
            samples.append((now, cpu.get(pgid, 0.0)))
            # Keep one sample at or before the window's start: the span is
            # the whole window once the run is that old.
            while len(samples) > 2 and samples[1][0] <= now - window:
                samples.popleft()
            if len(samples) >= 2:
                (t0, c0), (t1, c1) = samples[0], samples[-1]
                if t1 > t0:
                    updates.append((mid, max(0.0, (c1 - c0) / (t1 - t0))))
        if updates and self.on_usage is not None:
            self.on_usage(updates)
        return updates

    # -- kill ----------------------------------------------------------------

    async def kill(self, mesos_task_ids: Sequence[str],
                   grace_seconds: float | None = None) -> None:
        now = trio.current_time()
        for mesos_task_id in mesos_task_ids:
            run = self._runs.get(mesos_task_id)
            if run is None or run.status.state in TERMINAL_TASK_STATES:
                continue
            grace = run.spec.grace if grace_seconds is None else max(0.0, grace_seconds)
            if run.kill_scope is not None:
                if now + grace < run.kill_scope.deadline:
                    run.kill_scope.deadline = now + grace
                    if run.pgid:
                        await self._mark_kill(run)  # the next host manager's due time too
                continue
            run.kill_requested = True
            run.kill_scope = trio.CancelScope(deadline=now + grace)
            if run.pgid:
                # Marked first: a host manager that dies mid-kill leaves the
                # next one knowing the run was killed, not lost, and when to
                # end it if its SIGTERM did not.
                await self._mark_kill(run)
                self._begin_kill(run)
        await trio.lowlevel.checkpoint()

    async def _mark_kill(self, run: _Run) -> None:
        """The run's ``.kill`` mark, holding the wall-clock time its
        SIGKILL is due (its kill scope's deadline)."""
        assert run.kill_scope is not None
        due = time.time() + max(0.0, run.kill_scope.deadline - trio.current_time())
        await trio.to_thread.run_sync(_write_kill_mark, self._runs_dir, run.spec.mesos_task_id,
                                      due)

    def _begin_kill(self, run: _Run) -> None:
        self._signal(run, signal.SIGTERM)
        if self._nursery is not None:
            self._nursery.start_soon(self._escalate, run)

    async def _escalate(self, run: _Run) -> None:
        assert run.kill_scope is not None
        with run.kill_scope:
            await run.exited.wait()
        if not run.exited.is_set():
            self._signal(run, signal.SIGKILL)

    def _signal(self, run: _Run, signum: int) -> None:
        """Signal the run's process group and, with cgroups, every process in
        its cgroup that left the group: a child that did (plain `timeout`,
        setsid) gets the SIGTERM and its grace too. Each process gets the
        signal once: to many programs a second SIGTERM or SIGINT means "stop
        now", skipping the graceful stop the grace period is for. (cgroup.procs
        is a sysfs read: it does not block.)"""
        _killpg(run.pgid, signum)
        if self.cgroups is not None:
            for pid in self.cgroups.pids(run.spec.mesos_task_id):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    if os.getpgid(pid) != run.pgid:
                        os.kill(pid, signum)

    # -- status --------------------------------------------------------------

    def known(self, mesos_task_id: str) -> StatusUpdate | None:
        run = self._runs.get(mesos_task_id)
        return run.status if run is not None else None

    def _set(self, run: _Run, status: StatusUpdate) -> None:
        run.status = status
        if self._report is not None:
            self._report(status)

    def _finish(self, run: _Run, status: StatusUpdate) -> None:
        run.exited.set()
        self._ended_at.append((trio.current_time(), run.spec.mesos_task_id))
        self._unacknowledged.add(run.spec.mesos_task_id)
        self._uid_of.pop(run.spec.mesos_task_id, None)
        if run.gpus:  # back to the host's free devices, lowest first
            free = self._free_gpus.setdefault(run.spec.hostname, [])
            free.extend(run.gpus)
            free.sort()
            run.gpus = ()
        self._set(run, status)

    def _hold_gpus(self, hostname: str, gpus: Sequence[int]) -> tuple[int, ...]:
        """Take an adopted run's devices off its host's free list."""
        free = self._free_gpus.get(hostname, [])
        held = tuple(g for g in gpus if g in free)
        for g in held:
            free.remove(g)
        return held

    # -- sandbox -------------------------------------------------------------

    def sandboxes(self) -> Path:
        return self._root / "sandboxes"

    def sandbox(self, mesos_task_id: str) -> str:
        run = self._runs.get(mesos_task_id)
        return str(run.sandbox) if run is not None else ""

    async def read_sandbox_file(self, mesos_task_id: str, path: str, offset: int,
                                length: int) -> tuple[bytes, int, list[str]]:
        run = self._runs.get(mesos_task_id)
        if run is None:
            raise NotFound(f"task run {mesos_task_id} is not known on this host manager (a "
                           f"run and its sandbox go {self._gc_delay:.0f} s after it ends: "
                           "its gc_delay)")
        if offset < 0:
            raise InvalidArgument(f"must not be negative, got {offset}", field="offset")
        if length < 0:
            raise InvalidArgument(f"must not be negative, got {length}", field="length")
        return await trio.to_thread.run_sync(_read_sandbox, run.sandbox, path, offset, length)


def _status(spec: LaunchSpec, state: TaskState, *, message: str = "", exit_code: int = 0,
            reason: str = "", health: int = 0) -> StatusUpdate:
    return StatusUpdate(mesos_task_id=spec.mesos_task_id, state=state, hostname=spec.hostname,
                        message=message, exit_code=exit_code, reason=reason,
                        timestamp=time.time(), health=health)


def _first_health(spec: LaunchSpec) -> int:
    return task_pb2.HEALTH_UNKNOWN if spec.health is not None else 0


def _environment(spec: LaunchSpec, sandbox: Path, gpus: Sequence[int] = ()) -> dict[str, str]:
    """A run's environment, clean of the host manager's own (which may hold
    its secrets): PATH (Mesos's default for command tasks), HOME (the
    sandbox), the task's own variables (which may set either), each port's
    variable, then Peloton's and Mesos's, and the GPU devices it holds
    (CUDA_VISIBLE_DEVICES; empty without any, so it sees none)."""
    env = {"PATH": TASK_PATH, "HOME": str(sandbox)}
    env.update(spec.environment)
    env.update({name: str(port) for name, port in spec.ports.items()})
    env.update(PELOTON_JOB_ID=spec.job_id, PELOTON_INSTANCE_ID=str(spec.instance_id),
               PELOTON_TASK_ID=spec.mesos_task_id, MESOS_SANDBOX=str(sandbox),
               CUDA_VISIBLE_DEVICES=",".join(map(str, gpus)))
    return env


async def _check(run: _Run, check: HealthCheck) -> tuple[bool, str]:
    """One health check of ``run``: (passed, why not)."""
    with trio.move_on_after(check.timeout_s):
        if check.kind == "http":
            return await _http_check(check.port, check.path)
        env = ({"PATH": TASK_PATH} if check.clean_env
               else _environment(run.spec, run.sandbox, run.gpus))
        try:
            done = await trio.run_process(["/bin/sh", "-c", check.command], cwd=run.sandbox,
                                          **_as_user(run.uid),
                                          env=env, check=False, stdin=subprocess.DEVNULL,
                                          capture_stdout=True, capture_stderr=True)
        except OSError as error:
            return False, f"cannot run {check.command!r}: {error.strerror or error}"
        if done.returncode == 0:
            return True, ""
        return False, f"{check.command!r} exited with status {done.returncode}"
    return False, f"no answer within {check.timeout_s:g} s"


async def _http_check(port: int, path: str) -> tuple[bool, str]:
    try:
        stream = await trio.open_tcp_stream("127.0.0.1", port)
    except OSError as error:
        return False, f"http://127.0.0.1:{port}{path}: {error.strerror or error}"
    async with stream:
        await stream.send_all(f"GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n"
                              "User-Agent: peloton-health-check\r\n\r\n".encode())
        head = b""
        while b"\r\n" not in head and len(head) < 4096:
            data = await stream.receive_some(4096)
            if not data:
                break
            head += data
    line = head.split(b"\r\n", 1)[0].decode("latin-1")
    parts = line.split()
    if len(parts) < 2 or not parts[1].isdigit():
        return False, f"http://127.0.0.1:{port}{path}: not an HTTP answer ({line[:60]!r})"
    status = int(parts[1])
    if 200 <= status < 400:
        return True, ""
    return False, f"http://127.0.0.1:{port}{path} answered {status}"


def _exit_status(run: _Run, returncode: int | None) -> StatusUpdate:
    code = returncode if returncode is not None else 0
    return _limited(run, code) or _ended(run.spec, run.kill_requested, code)


def _limited(run: _Run, code: int = 0) -> StatusUpdate | None:
    """How a run the backend itself ended ends: its health check or its
    disk limit (None: neither)."""
    if run.unhealthy:
        return _status(run.spec, TaskState.FAILED, exit_code=code, reason=REASON_UNHEALTHY,
                       message=run.unhealthy, health=task_pb2.UNHEALTHY)
    if run.over_disk:
        return _status(run.spec, TaskState.FAILED, exit_code=code, reason=REASON_DISK_LIMIT,
                       message=f"exceeded its disk limit: {run.over_disk}")
    return None


def _disk_usage(root: Path) -> int:
    """Bytes the files under ``root`` take on disk (blocks, as du counts;
    symlinks not followed). Blocking: call it in a thread."""
    total = 0
    stack = [str(root)]
    while stack:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
                        else:
                            total += entry.stat(follow_symlinks=False).st_blocks * 512
                    except OSError:
                        continue
        except OSError:
            continue
    return total


def _ended(spec: LaunchSpec, killed: bool, code: int) -> StatusUpdate:
    """How a run ended, from its exit status (negative: the signal that ended it)."""
    how = (f"Command exited with status {code}" if code >= 0
           else f"Command terminated by signal {-code} ({_signal_name(-code)})")
    if killed:
        return _status(spec, TaskState.KILLED, exit_code=code,
                       reason=REASON_KILLED_ON_REQUEST, message=f"Killed on request: {how}")
    if code == 0:
        return _status(spec, TaskState.SUCCEEDED, message=how)
    return _status(spec, TaskState.FAILED, exit_code=code, reason=REASON_COMMAND_FAILED,
                   message=how)


# --------------------------------------------------------------------------- run records


@dataclass(slots=True)
class _Record:
    """A run an earlier host manager started, as its files tell it."""

    spec: LaunchSpec
    pid: int
    pidfd: int | None  # open on its live process (or supervisor); None when it ended
    killed: bool
    ended: StatusUpdate | None  # how it ended, if it did and that is known
    gpus: tuple[int, ...] = ()  # the GPU device indexes it held
    uid: int = 0  # the user it ran as
    # The keeper (pid, start time) that writes its end, when a keeper
    # started it (its claim says); None: its own supervisor writes it.
    keeper: tuple[int, int] | None = None
    # When its kill's SIGKILL is due (wall clock), as its ``.kill`` mark
    # says; None: not killed, or a mark without a time.
    kill_due: float | None = None


_SPEC_FIELDS = ("mesos_task_id", "task_id", "job_id", "instance_id", "hostname", "shell",
                "command", "arguments", "ports", "kill_grace_seconds", "fd_limit", "shard",
                "revocable", "labels")


def _write_record(runs: Path, spec: LaunchSpec, pid: int | None, gpus: Sequence[int] = (),
                  uid: int = 0) -> None:
    """The run's record: enough of its spec to account for it and watch it
    after a restart, and its process's pid and start time (a reused pid
    has another), or None: written before the run starts, whose claim then
    holds them (supervise.py). Not its environment (it may hold
    secrets)."""
    data = {name: getattr(spec, name) for name in _SPEC_FIELDS}
    data["resources"] = list(spec.resources)
    data["health"] = asdict(spec.health) if spec.health is not None else None
    data["gpus"] = list(gpus)
    data["uid"] = uid
    data["pid"], data["start"] = pid, supervise.start_ticks(pid) if pid is not None else None
    # (Strings, not Paths: this runs for every run's start.)
    path = f"{runs}/{spec.mesos_task_id}.json"
    supervise.put(f"{path}.tmp", json.dumps(data).encode())
    os.replace(f"{path}.tmp", path)


def _mark(path: Path) -> None:
    path.touch()


def _write_kill_mark(runs: Path, mesos_task_id: str, due: float) -> None:
    (runs / f"{mesos_task_id}.kill").write_text(repr(due))


def _read_kill_mark(runs: Path, mesos_task_id: str) -> tuple[bool, float | None]:
    """Whether the run was killed, and when its SIGKILL is due (None: the
    mark holds no time)."""
    try:
        text = (runs / f"{mesos_task_id}.kill").read_text()
    except FileNotFoundError:
        return False, None
    try:
        return True, float(text)
    except ValueError:
        return True, None


def _read_status(runs: Path, spec: LaunchSpec, killed: bool) -> StatusUpdate | None:
    """How a run ended, from the status its keeper (or supervisor) wrote
    (None: none written)."""
    try:
        data = json.loads((runs / f"{spec.mesos_task_id}.status").read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    if "launch_error" in data:
        return _status(spec, TaskState.FAILED, reason=REASON_LAUNCH_FAILED,
                       message=str(data["launch_error"]))
    code = -int(data["signal"]) if "signal" in data else int(data.get("exit_code", 0))
    return _ended(spec, killed, code)


def _kept_status(runs: Path, spec: LaunchSpec, killed: bool,
                 keeper: tuple[int, int] | None,
                 deadline: float | None = None) -> StatusUpdate | None:
    """How a run that has ended ended (None: nothing says). A keeper writes
    it once it has reaped the run, a moment after the run is gone: waited
    for while that keeper lives, until ``deadline`` (``time.monotonic()``;
    default ``KEEPER_STATUS_S`` from now). Blocking."""
    if deadline is None:
        deadline = time.monotonic() + KEEPER_STATUS_S
    while True:
        ended = _read_status(runs, spec, killed)
        if (ended is not None or keeper is None or supervise.start_ticks(keeper[0]) != keeper[1]
                or time.monotonic() > deadline):
            return ended
        time.sleep(0.005)


def _read_records(runs: Path) -> list[_Record]:
    """Every run record under ``runs``, with its process opened (pidfd)
    when it still runs. Blocking: call it in a thread."""
    out: list[_Record] = []
    if not runs.is_dir():
        return out
    # One wait for keepers' ends for the whole scan: a keeper that is stuck
    # costs a start KEEPER_STATUS_S at most, not that much a run.
    deadline = time.monotonic() + KEEPER_STATUS_S
    for path in sorted(runs.glob("*.json")):
        try:
            data = json.loads(path.read_text())
            health = data.get("health")
            spec = LaunchSpec(**{name: data[name] for name in _SPEC_FIELDS if name in data},
                              resources=Resources(*data["resources"]),
                              health=HealthCheck(**health) if health else None)
            spec = replace(spec, arguments=tuple(spec.arguments),
                           labels=tuple((str(k), str(v)) for k, v in spec.labels))
            pid = int(data["pid"]) if data.get("pid") is not None else None
            start = data.get("start")
            gpus = tuple(int(g) for g in data.get("gpus") or ())
            uid = int(data.get("uid") or 0)
        except (OSError, ValueError, KeyError, TypeError) as error:
            log.warning("run record %s is unreadable (%s); left alone", path, error)
            continue
        mid = spec.mesos_task_id
        killed, kill_due = _read_kill_mark(runs, mid)
        lost = (runs / f"{mid}.lost").exists()
        # Killed when its host manager stopped: LOST, whatever its keeper wrote of it.
        ended = (_status(spec, TaskState.LOST, message="killed when its host manager stopped")
                 if lost and not killed else _read_status(runs, spec, killed))
        given_up = False
        keeper: tuple[int, int] | None = None
        if ended is None and pid is None:
            # Recorded before it started: its keeper's (or supervisor's) claim
            # says which process it is, or, with none, the launch is given up
            # here, atomically against a keeper claiming it just now.
            try:
                claim = supervise.abandon(str(runs / f"{mid}.status"))
                if claim is not None:
                    pid, start = int(claim["pid"]), claim.get("start")
                if claim is not None and "keeper" in claim:
                    keeper = int(claim["keeper"]), int(claim["keeper_start"])
            except (OSError, ValueError, KeyError, TypeError) as error:
                log.warning("the claim of run %s is unreadable (%s); left alone", mid, error)
                continue
            given_up = claim is None
        pidfd = None
        if (ended is None and pid is not None and start is not None
                and supervise.start_ticks(pid) == start):
            try:
                pidfd = os.pidfd_open(pid)
            except OSError:
                pidfd = None
        if ended is None and pidfd is None:
            ended = _kept_status(runs, spec, killed, keeper, deadline)
        if ended is None and pidfd is None:
            if killed:
                ended = _status(spec, TaskState.KILLED, reason=REASON_KILLED_ON_REQUEST,
                                message="Killed on request; it ended while no host manager "
                                        "watched it")
            elif given_up:
                ended = _status(spec, TaskState.LOST,
                                message="its host manager died while starting it; it never ran")
        out.append(_Record(spec, pid or 0, pidfd, killed, ended, gpus, uid, keeper, kill_due))
    return out


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return "unknown signal"


def _not_executable(exe: str, path: str | None) -> str | None:
    """Why ``exe`` (searched on ``path`` if it has no slash) cannot be
    executed, as exec would say it, or None if it can."""
    if shutil.which(exe, path=path) is not None:
        return None
    if "/" in exe and os.path.exists(exe):
        return "Permission denied"
    return "No such file or directory"


def _killpg(pgid: int, signum: int) -> None:
    # A run's first process (or its supervisor) leads its session: the group id is its pid.
    if not pgid:
        return
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass  # the group is already gone


def _as_user(uid: int) -> dict[str, Any]:
    """subprocess options that run a command as the run's user (none: as we are)."""
    return {"user": uid, "group": uid, "extra_groups": []} if uid else {}


def _remove_runs(runs: Path, gone: list[tuple[str, Path]]) -> None:
    """The files of ended runs: their records, claims, marks and sandboxes."""
    for mid, _ in gone:
        for suffix in (".json", ".status", ".pid", ".kill", ".lost"):
            (runs / f"{mid}{suffix}").unlink(missing_ok=True)
    _remove_trees([sandbox for _, sandbox in gone])


def _remove_trees(paths: list[Path]) -> None:
    for path in paths:
        shutil.rmtree(path, ignore_errors=True)


def _make_sandbox(path: Path, volume: tuple[Path, Path] | None, uid: int, root: Path) -> None:
    """Make the sandbox; with a persistent volume, make the volume's
    directory (kept from an earlier run if there is one) and link it into
    the sandbox at its path (a relative link: it never climbs above
    ``root``). A run with a user of its own (``uid``) owns its sandbox and
    volume, mode 0700: no other run can read or write them; the
    directories above them (up to ``root``) can be passed through but not
    listed."""
    try:
        os.mkdir(path)  # (its parent, the host's sandboxes, is there nearly always)
    except FileExistsError:
        if not os.path.isdir(path):
            raise
    except FileNotFoundError:
        path.mkdir(parents=True, exist_ok=True)
    if uid:
        _passable(path.parent, root)
        os.chown(path, uid, uid)
        path.chmod(0o700)
    if volume is not None:
        directory, inside = volume
        directory.mkdir(parents=True, exist_ok=True)
        link = path / inside
        link.parent.mkdir(parents=True, exist_ok=True)
        if uid:
            _passable(directory.parent, root)
            _own_tree(directory, uid)
            for d in (link.parent, *link.parent.parents):
                if d == path:
                    break
                os.chown(d, uid, uid)
        if not link.is_symlink():
            link.symlink_to(os.path.relpath(directory, link.parent), target_is_directory=True)


def _passable(directory: Path, root: Path) -> None:
    """``directory`` and those above it up to ``root``: passable (x), not
    readable, by others."""
    for d in (directory, *directory.parents):
        if d.stat().st_mode & 0o777 != 0o711:
            d.chmod(0o711)
        if d == root or root not in d.parents:
            return


def _own_tree(directory: Path, uid: int) -> None:
    """Give a volume to the run using it now (each run has its own user)."""
    os.chown(directory, uid, uid)
    directory.chmod(0o700)
    for parent, dirs, files in os.walk(directory):
        for name in dirs + files:
            os.chown(os.path.join(parent, name), uid, uid, follow_symlinks=False)


@dataclass(frozen=True, slots=True)
class _Plan:
    """What starting a run takes, worked out before its thread hop."""

    sandbox: Path
    volume: tuple[Path, Path] | None  # (its directory, the link's path inside the sandbox)
    uid: int
    env: dict[str, str]
    command: str  # the spec's
    exe: str
    argv: list[str]
    status_file: Path
    make_cgroups: Callable[[], list[str]] | None
    record: Callable[[], None]


_Prepared = tuple[tuple[int, ...], list[str], str | None]


def _small(plans: list[_Plan]) -> bool:
    """Whether preparing ``plans`` is bounded and brief enough for the
    loop: at most PREPARE_HERE runs, none with a persistent volume (whose
    tree a run with a user of its own is given, file by file)."""
    return len(plans) <= PREPARE_HERE and all(plan.volume is None for plan in plans)


def _prepare_runs(plans: list[_Plan], root: Path) -> list[_Prepared]:
    """In a worker thread, in one hop for a launch's runs, what each run
    needs before it starts, in order: its sandbox, its output files (stdout,
    stderr), a check that its executable can be executed, its cgroups and
    its record. For each: the files (``()`` if they could not be opened),
    the cgroups, and why the run cannot start (None if it can)."""
    return [_prepare_run(plan, root) for plan in plans]


def _prepare_run(plan: _Plan, root: Path) -> _Prepared:
    try:
        _make_sandbox(plan.sandbox, plan.volume, plan.uid, root)
    except OSError as exc:
        return (), [], f"cannot create sandbox: {exc}"
    try:
        files = _open_outputs(plan.sandbox)
    except OSError as exc:
        return (), [], f"cannot open sandbox outputs: {exc}"
    missing = _not_executable(plan.exe, plan.env.get("PATH"))
    if missing:  # as exec would fail, but before the run is ever RUNNING
        return files, [], f"Failed to launch {plan.command!r}: {missing}"
    make_cgroups, record = plan.make_cgroups, plan.record
    cgroups: list[str] = []
    if make_cgroups is not None:
        try:
            cgroups = make_cgroups()
        except OSError as exc:
            return files, [], f"cannot make the task's cgroups: {exc}"
    try:
        record()
    except OSError as exc:
        return files, cgroups, f"cannot record the run: {exc}"
    return files, cgroups, None


_OUTPUT_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC


def _open_outputs(sandbox: Path) -> tuple[int, int]:
    """The run's stdout and stderr files, opened to append (descriptors:
    the caller closes them; half a builtin open()'s cost a run)."""
    stdout = os.open(f"{sandbox}/stdout", _OUTPUT_FLAGS, 0o666)
    try:
        return stdout, os.open(f"{sandbox}/stderr", _OUTPUT_FLAGS, 0o666)
    except BaseException:
        os.close(stdout)
        raise


def _read_sandbox(sandbox: Path, path: str, offset: int, length: int,
                  ) -> tuple[bytes, int, list[str]]:
    root = sandbox.resolve()
    if not root.is_dir():
        raise NotFound(f"sandbox {sandbox} does not exist")
    files: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        files.extend(Path(dirpath, name).relative_to(root).as_posix()
                     for name in sorted(filenames))
        if len(files) >= MAX_LISTED_FILES:
            del files[MAX_LISTED_FILES:]
            break
    if not path:
        return b"", 0, files
    target = (root / path).resolve()
    if not target.is_relative_to(root):
        raise InvalidArgument(f"{path!r} is outside the sandbox", field="path")
    if target.is_dir():
        raise InvalidArgument(f"{path!r} is a directory", field="path")
    try:
        with open(target, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            f.seek(offset)
            data = f.read(min(length, MAX_READ_BYTES) if length else MAX_READ_BYTES)
    except FileNotFoundError:
        raise NotFound(f"{path!r} does not exist in the sandbox", field="path")
    return data, size, files

