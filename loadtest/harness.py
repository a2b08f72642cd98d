"""``python -m loadtest SCENARIO`` (``peloton-loadtest``): run a scenario on real daemons.

::

    python -m loadtest smoke                     # a shipped scenario (loadtest/scenarios/)
    python -m loadtest my.yaml --out /tmp/run    # a scenario file, a run directory of your own
    python -m loadtest 10k-hosts-100k-tasks --keep --profile

What a run does, in order:

1. writes ``RUN/cluster.yaml`` for the scenario (3 resmgr, N jobmgr, M
   placement workers, K hostmgr shards with the ``sim`` backend, free
   loopback ports) and starts it with ``peloton.ops.minicluster.up``
   (daemon logs in ``RUN/logs/``); ``--profile`` attaches ``py-spy record``
   to every daemon (flame graphs in ``RUN/profiles/NAME.svg``);
2. creates the scenario's pools, notes the resmgr leader's idle RSS;
3. submits the workload through the jobmgr API (at most ``concurrency``
   Creates in flight; each job's create time is the wall clock just before
   its Create is sent), and a probe job every ``probes.every_s`` while bulk
   jobs are still running;
4. once a second: the resmgr leader's ``GetStats`` (task states, Raft
   counters), one job ``Query`` (summaries of the jobs not yet terminal:
   never a task listing), each daemon's CPU and RSS from ``/proc``; prints a
   progress line to stderr (``\\r``-updated on a terminal, else every 10 s);
5. stops when every job is terminal, or after ``timeout_s``;
6. stops the cluster (unless ``--keep``), then reads the jobmgrs' SQLite
   store read-only for correctness and latency (``loadtest.measure``);
7. writes ``RUN/report.json``, ``RUN/timeseries.json``, ``RUN/plot.png``
   and prints a table.

Exit status: 0 when every task completed exactly once and nothing was lost
or over-committed; 1 when the run finished with problems (they are listed);
2 when the scenario is invalid or the cluster did not start.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import gc
import math
import os
import pathlib
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, TextIO

import trio
import yaml

from loadtest import measure
from loadtest import report as reporting
from loadtest.measure import JobRecord
from loadtest.scenario import ClusterSpec, PoolSpec, Scenario, TaskShape, WorkloadGroup
from loadtest.scenario import load as load_scenario
from peloton.core.errors import (
    AlreadyExists,
    DeadlineExceeded,
    InvalidArgument,
    PelotonError,
    Unavailable,
)
from peloton.core.ids import new_job_id
from peloton.daemon import GC_THRESHOLD, freeze_long_lived
from peloton.jobmgr.model import length_delimited
from peloton.observability import loop as loop_monitor
from peloton.ops import clusterfile, minicluster

__all__ = ["LoadTest", "cluster_data", "host_capacity", "job_config", "main", "pool_config"]

POLL_S = 1.0
POLL_SHARE = 10.0
STALL_S = 300.0
CHECKPOINT_S = 60.0
PROGRESS_EVERY_S = 10.0
CREATE_ATTEMPTS = 3
PELOTON_KINDS = {"cpu": "cpu", "memory_mb": "memory", "disk_mb": "disk", "gpu": "gpu"}
ACTIVE_JOB_STATES = ("INITIALIZED", "PENDING", "RUNNING", "KILLING", "UNINITIALIZED")
BULK_PREFIX = "lt-"
PROBE_PREFIX = "lt-probe-"
# A service's run sleeps this long plus its version: it runs until stopped.
SERVICE_RUN_S = 86_400


# --------------------------------------------------------------------------- pure builders

LOADTEST_USER = "loadtest"
LOADTEST_PASSWORD = "loadtest.password"


def secure_section(directory: pathlib.Path) -> dict[str, Any]:
    """``--secure``: the cluster file's security section, with what it names
    written in ``directory``: a CA, the daemons' certificate and the
    cluster secret (``peloton.ops.certs``), and the harness's own user (an
    admin; password file 0600)."""
    import secrets

    from peloton.ops.certs import make_certs

    make_certs(directory / "tls")
    password = directory / LOADTEST_PASSWORD
    password.write_text(secrets.token_urlsafe(24) + "\n")
    password.chmod(0o600)
    return {
        "tls": {"cert": "tls/server.crt", "key": "tls/server.key", "ca": "tls/ca.crt"},
        "cluster_secret_file": "tls/cluster.secret",
        "auth": {"users": [{"name": LOADTEST_USER, "password_file": LOADTEST_PASSWORD,
                            "role": "admin"}],
                 "roles": [{"name": "admin", "accept": ["*"]}]},
        "client": {"user": LOADTEST_USER, "password_file": LOADTEST_PASSWORD},
    }



def cluster_data(scenario: Scenario, directory: pathlib.Path, ports: list[int]) -> dict[str, Any]:
    """The cluster file for ``scenario`` in ``directory`` on the given loopback
    ports (``clusterfile.ports_needed`` of them, in ``clusterfile.build``'s order).

    Hostmgr shard ``k`` is sim cluster ``sim{k}`` with its share of the hosts
    and of the GPU hosts, seeded ``seed + k``.
    """
    c = scenario.cluster
    shape = c.host_shape
    return clusterfile.build(directory, ports, resmgrs=c.resmgrs, jobmgrs=c.jobmgrs,
                             placements=c.placements, num_shards=c.shards, hostmgrs=[{
                                 "name": f"hostmgr-{k}", "cluster": f"sim{k}", "backend": "sim",
                                 "hosts": c.hosts_of_shard(k), "cpu": shape.cpu,
                                 "memory_mb": shape.memory_mb, "disk_mb": shape.disk_mb,
                                 "gpu_hosts": c.gpu_hosts_of_shard(k),
                                 "gpu_per_host": c.gpu_per_host,
                                 "failure_rate": c.failure_rate, "seed": scenario.seed + k,
                             } for k in range(c.hostmgr_shards)],
                             placement_options=(
                                 {} if c.placement_bulk_tasks_per_s is None
                                 else {"bulk_tasks_per_s": c.placement_bulk_tasks_per_s}))


def host_capacity(cluster: ClusterSpec) -> Callable[[str], tuple[float, float, float, float] | None]:
    """hostname (``sim{k}-h{i:05d}``) -> (cpu, memory_mb, disk_mb, gpu); None if not ours.

    The sim backend gives the last ``gpu_hosts`` hosts of a shard its GPUs.
    """
    shape = cluster.host_shape

    def capacity(hostname: str) -> tuple[float, float, float, float] | None:
        prefix, _, index = hostname.partition("-h")
        if not prefix.startswith("sim") or not prefix[3:].isdigit() or not index.isdigit():
            return None
        k, i = int(prefix[3:]), int(index)
        if k >= cluster.hostmgr_shards or i >= cluster.hosts_of_shard(k):
            return None
        gpu = cluster.gpu_per_host if i >= cluster.hosts_of_shard(k) - \
            cluster.gpu_hosts_of_shard(k) else 0.0
        return (shape.cpu, shape.memory_mb, shape.disk_mb, gpu)

    return capacity


def pool_config(pool: PoolSpec, capacity: Mapping[str, float]) -> Any:
    """The ResourcePoolConfig of ``pool`` (amounts resolved against ``capacity``)."""
    from peloton.spec.respool import load_respool_config

    resources = [{"kind": PELOTON_KINDS[kind], "reservation": reservation, "limit": limit,
                  "share": 1}
                 for kind, (reservation, limit) in pool.resources(capacity).items()]
    config, _ = load_respool_config({"owningTeam": "loadtest", "resources": resources,
                                     "description": "created by loadtest"}, path=pool.path)
    return config


def _seconds(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".") or "0"


def job_config(name: str, job_type: str, instances: int, task: TaskShape, duration: float,
               max_failures: int = 0, label: str = "", max_unavailable: int = 0,
               version: int = 1) -> Any:
    """A validated v0 JobConfig: ``instances`` tasks that ``sleep duration``;
    a service's run for a day (until stopped), its ``version`` in the
    command so that each version's config differs."""
    from peloton.spec.job import load_job_config

    service = job_type == "service"
    command = f"sleep {SERVICE_RUN_S + version}" if service else f"sleep {_seconds(duration)}"
    config, _ = load_job_config({
        "name": name, "type": "SERVICE" if service else "BATCH",
        "instanceCount": instances, "owningTeam": "loadtest",
        "labels": [{"key": "loadtest", "value": label or name}],
        "sla": {"maximumUnavailableInstances": max_unavailable} if service else {},
        "defaultConfig": {
            "resource": {"cpuLimit": task.cpu, "memLimitMb": task.memory_mb,
                         "diskLimitMb": task.disk_mb, "gpuLimit": task.gpu},
            "command": {"shell": True, "value": command},
            "restartPolicy": {"maxFailures": max_failures},
        },
    })
    return config


def create_bytes(job_id: str, config: bytes, name: str) -> bytes:
    """A serialized ``job.CreateRequest`` for job ``job_id``: ``config`` (a
    serialized JobConfig without a name) with ``name`` as its name. Equal,
    field for field, to the message built and serialized (a test holds
    them to it), in half the time (4.9 us against 10.0): the single-task
    load sends 2,000 Creates a second from the machine the cluster runs
    on, and building them was a fifth of the harness's cpu."""
    config += length_delimited(b"\x12", name.encode())  # JobConfig.name (2)
    job = length_delimited(b"\x0a", job_id.encode())  # JobID.value (1)
    # CreateRequest.id (1), CreateRequest.config (2)
    return length_delimited(b"\x0a", job) + length_delimited(b"\x12", config)


def draw_duration(rng: random.Random, task: TaskShape) -> float:
    low, high = task.duration_s
    return low if low == high else round(rng.uniform(low, high), 3)


# --------------------------------------------------------------------------- progress


class Progress:
    """One status line on ``stream``: rewritten in place on a terminal, else
    printed every :data:`PROGRESS_EVERY_S` seconds."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.last_print = -math.inf
        self.shown = False

    def update(self, t: float, line: str) -> None:
        if self.tty:
            self.stream.write("\r" + line + "\x1b[K")
            self.stream.flush()
            self.shown = True
        elif t - self.last_print >= PROGRESS_EVERY_S:
            self.stream.write(line + "\n")
            self.stream.flush()
            self.last_print = t

    def note(self, line: str) -> None:
        self.clear()
        self.stream.write(line + "\n")
        self.stream.flush()

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


# --------------------------------------------------------------------------- the run


class LoadTest:
    """One run of one scenario in ``run_dir``. :meth:`run` does everything and
    returns the report (also written to ``run_dir/report.json``)."""

    def __init__(self, scenario: Scenario, run_dir: pathlib.Path, *, keep: bool = False,
                 profile: bool = False, stream: TextIO = sys.stderr,
                 stall_s: float | None = None, secure: bool = False,
                 tune_gc: bool = False) -> None:
        self.scenario = scenario
        self.run_dir = run_dir.absolute()
        self.keep = keep
        self.profile = profile
        self.secure = secure
        # The command's own process: the daemons' collector settings (a
        # young collection each 50,000 allocations, the living frozen each
        # 10 s). With CPython's, collections of the 100,000 jobs' records
        # took ~1 s of a single-task run's ~8 s of harness cpu.
        self.tune_gc = tune_gc
        self.progress = Progress(stream)
        self.state: minicluster.State | None = None
        self.config: Any = None
        self.jobs: dict[str, JobRecord] = {}
        self.samples: list[dict[str, Any]] = []
        self.problems: list[str] = []
        self.timed_out = False
        self.stopped_early = ""
        longest = max(g.task.duration_s[1] for g in scenario.workload)
        self.stall_s = stall_s if stall_s is not None else max(STALL_S, 2 * longest)
        self.t0 = 0.0  # wall clock of the first submission
        self.t_end = 0.0
        self.cluster_start_s = 0.0
        self.leader = ""
        self.leader_changes: list[str] = []
        self.idle_rss: dict[str, int] = {}
        self.final_proc: dict[str, measure.ProcSample] = {}
        self.first_proc: dict[str, measure.ProcSample] = {}
        self.died: dict[str, float] = {}
        self.stats_first: Any = None
        self.stats_last: Any = None
        self.max_tracked = 0
        self.submit_errors: list[str] = []
        self.harness_cpu_run = 0.0
        self.profilers: list[tuple[str, subprocess.Popen[bytes], pathlib.Path]] = []
        self.rng = random.Random(scenario.seed)
        self._submitting_done = False
        self._bulk_active = -1
        self._probes_done = False
        self._active_total = -1
        # Services: their jobs' task counts (latest sample), their updates
        # (job -> [update id, created, ended, state]), the most instances of
        # an updating job seen down, and of any service job PREEMPTING.
        self.service_jobs: dict[str, WorkloadGroup] = {}
        self._job_stats: dict[str, Mapping[str, int]] = {}
        self.updates: dict[str, list[Any]] = {}
        self.most_unavailable = 0
        self.most_unavailable_job = ""
        self.service_preempting = 0
        # Host maintenance: host -> when its drain began; when every drained
        # host was DOWN (0: not yet).
        self.drained: dict[str, float] = {}
        self.drain_started = 0.0
        self.drain_down = 0.0
        self._non_service_active = -1
        self._services_stopping = False
        self._updates_done = not any(g.update for g in scenario.workload)
        self._names: dict[str, str] = {}
        self._batch_done = trio.Event()  # every job but the services is over
        self._drain_begun = trio.Event()  # the scenario's hosts are in maintenance

    def say(self, line: str) -> None:
        self.progress.note(line)

    # -- the whole run ----------------------------------------------------------
    def run(self) -> dict[str, Any]:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self._write_cluster_file()
        began = time.monotonic()
        self.say(f"loadtest {self.scenario.name}: starting the cluster in {self.run_dir} "
                 f"({self._describe_cluster()})")
        try:
            self.state = minicluster.up(self.run_dir, timeout=self.scenario.cluster.ready_timeout,
                                        out=lambda line: None)
        except minicluster.ClusterNotReady as error:
            self.say(f"the cluster did not start: {error}")
            for line in error.details:
                self.say(line)
            raise
        self.cluster_start_s = time.monotonic() - began
        self.say(f"cluster up in {self.cluster_start_s:.1f}s")
        store: pathlib.Path = self.config.storage_path()
        try:
            if self.profile:
                self._start_profilers()
            try:
                minicluster.run_trio(_within_rpc, self._drive)
            except (PelotonError, OSError, RuntimeError, ExceptionGroup) as error:
                # Whatever broke, the store still says what happened: report it.
                self.problems.append(f"the harness's run ended with an error: {error!r}")
                self.say(f"! the run ended with an error: {error!r}")
            if self.t0 and not self.t_end:
                self.t_end = time.time()
            self.harness_cpu_run = measure.own_cpu_s()
        finally:
            self.progress.clear()
            self._stop_profilers()
            if not self.keep:
                self.say("stopping the cluster")
                minicluster.down(self.run_dir, out=lambda line: None)
            else:
                self.say(f"--keep: the cluster runs on; stop it with "
                         f"`peloton minicluster down --dir {self.run_dir}`")
        self.say(f"reading {store}")
        analysis = measure.analyse_store(str(store), self.jobs,
                                         host_capacity(self.scenario.cluster),
                                         drained=self.drained)
        report = reporting.build(self, analysis)
        reporting.write_json(self.run_dir / "report.json", report)
        self._write_timeseries()
        self.say(reporting.write_plot(self.run_dir / "plot.png", self.samples,
                                      f"loadtest {self.scenario.name}"))
        return report

    def _describe_cluster(self) -> str:
        c = self.scenario.cluster
        pace = ("" if c.placement_bulk_tasks_per_s is None
                else f" (bulk pace {c.placement_bulk_tasks_per_s:g} tasks/s each)")
        return (f"{c.resmgrs} resmgr, {c.jobmgrs} jobmgr, {c.placements} placement{pace}, "
                f"{c.hostmgr_shards} hostmgr with {c.hosts} sim hosts")

    def _write_cluster_file(self) -> None:
        from peloton import config as cluster_config

        c = self.scenario.cluster
        path = minicluster.cluster_path(self.run_dir)
        if path.exists():
            raise InvalidArgument(f"{path} exists: a run directory is used once; pick another "
                                  f"--out", field="--out")
        data = cluster_data(self.scenario, self.run_dir, minicluster.free_ports(
            clusterfile.ports_needed(c.resmgrs, c.jobmgrs, c.hostmgr_shards)))
        minicluster.write_raft_secret(self.run_dir)
        if self.secure:
            data["security"] = secure_section(self.run_dir)
        path.write_text(f"# loadtest {self.scenario.name}: written by the load-test harness\n"
                        + yaml.safe_dump(data, sort_keys=False, default_flow_style=None))
        self.config = cluster_config.load(path)

    # -- profiling ----------------------------------------------------------------
    def _start_profilers(self) -> None:
        assert self.state is not None
        exe = shutil.which("py-spy") or str(pathlib.Path(sys.executable).parent / "py-spy")
        if not os.access(exe, os.X_OK):
            self.say("--profile: py-spy is not installed (pip install py-spy); "
                     "running without profiles")
            return
        out = self.run_dir / "profiles"
        out.mkdir(exist_ok=True)
        for d in self.state.daemons:
            path = out / f"{d.name}.folded"
            log = open(out / f"{d.name}.py-spy.log", "wb")  # noqa: SIM115 (closed with the process)
            proc = subprocess.Popen([exe, "record", "--pid", str(d.pid), "--output", str(path),
                                     "--format", "raw", "--rate", "50", "--nonblocking"],
                                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
            log.close()
            self.profilers.append((d.name, proc, path))
        self.say(f"--profile: py-spy records every daemon into {out}/NAME.folded")

    def _stop_profilers(self) -> None:
        for _, proc, _ in self.profilers:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
        give_up = time.monotonic() + 60
        for name, proc, path in self.profilers:
            try:
                proc.wait(timeout=max(0.1, give_up - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            if not path.exists():
                self.problems.append(f"py-spy wrote no profile for {name} "
                                     f"(see {path.with_suffix('.py-spy.log')})")
                continue
            with open(path) as folded:
                path.with_suffix(".top.txt").write_text(measure.profile_summary(folded))
        self.profilers = []

    # -- inside trio ----------------------------------------------------------------
    async def _drive(self) -> None:
        assert self.state is not None
        if not self.secure:
            await self._drive_cluster()
            return
        from peloton.core.security import Credentials
        from peloton.rpc.client import configured

        # A user for the public calls, the cluster secret for resmgr's
        # internal ClusterService (its statistics): an operator's tool.
        security = self.config.security
        with configured(security.client_ssl(), Credentials(
                LOADTEST_USER, (self.run_dir / LOADTEST_PASSWORD).read_text().strip(),
                cluster_secret=security.cluster_secret)):
            await self._drive_cluster()

    async def _drive_cluster(self) -> None:
        from peloton.api.private.cluster import cluster_grpc
        from peloton.client import PelotonClient
        from peloton.rpc import ServiceClient

        assert self.state is not None
        self.client = PelotonClient(self.state.jobmgr_addresses, timeout=30.0, deadline=60.0)
        self.cluster = ServiceClient(self.config.resmgr_addresses,
                                     cluster_grpc.ClusterServiceStub,
                                     channels=self.client.channels, deadline=10.0)
        try:
            await self._create_pools()
            await self._find_leader()
            for d in self.state.daemons:
                sample = measure.read_proc(d.pid)
                if sample is not None:
                    self.idle_rss[d.name] = sample.rss_bytes
                    self.first_proc[d.name] = sample
            self.stats_first = await self._stats()
            self.t0 = time.time()
            timeout = self.scenario.timeout_s
            async with trio.open_nursery() as nursery:
                self._done = trio.Event()
                if self.tune_gc:
                    gc.set_threshold(*GC_THRESHOLD)
                    nursery.start_soon(freeze_long_lived)
                nursery.start_soon(self._sampler)
                nursery.start_soon(self._submit_all)
                nursery.start_soon(self._probe_loop)
                nursery.start_soon(self._services_loop)
                nursery.start_soon(self._drain_loop)
                if threading.current_thread() is threading.main_thread():
                    nursery.start_soon(self._stop_on_signal)
                with trio.move_on_after(timeout):
                    await self._done.wait()
                if not self._done.is_set():
                    self.timed_out = True
                    self.problems.append(f"timed out after {timeout:g}s with tasks not "
                                         f"terminal")
                elif self.stopped_early:
                    self.problems.append(f"stopped early: {self.stopped_early}")
                nursery.cancel_scope.cancel()
            self.t_end = time.time()
            if not self.samples or self.t_end - self.t0 - self.samples[-1]["t"] > 0.5:
                await self._sample()  # the state at the end
            self.stats_last = await self._stats()
            await self._find_leader()
            for d in self.state.daemons:
                sample = measure.read_proc(d.pid)
                if sample is not None:
                    self.final_proc[d.name] = sample
        finally:
            self.client.close()

    async def _create_pools(self) -> None:
        capacity = self.scenario.cluster.capacity()
        self.pool_ids: dict[str, str] = {}
        for pool in self.scenario.pools:
            self.pool_ids[pool.path] = await self.client.create_respool(
                pool.path, pool_config(pool, capacity))
        names = ", ".join(self.pool_ids)
        self.say(f"pools created: {names}")

    async def _find_leader(self) -> None:
        from peloton.api.private.cluster import cluster_pb2

        try:
            view = await self.cluster.call("GetClusterView", cluster_pb2.GetClusterViewRequest(),
                                           timeout=5.0)
        except PelotonError as error:
            self.problems.append(f"no resmgr leader answered GetClusterView: {error}")
            return
        by_address = {d.grpc: d.name for d in self.config.of_kind("resmgr")}
        leader = by_address.get(view.leader, view.leader)
        if self.leader and leader != self.leader:
            self.leader_changes.append(f"{self.leader} -> {leader}")
            self.problems.append(f"the resmgr leader changed during the run "
                                 f"({self.leader} -> {leader})")
        self.leader = leader

    async def _stats(self) -> Any:
        from peloton.api.private.cluster import cluster_pb2

        try:
            return await self.cluster.call("GetStats", cluster_pb2.GetStatsRequest(),
                                           timeout=5.0, deadline=5.0)
        except PelotonError:
            return None

    # -- submitting ----------------------------------------------------------------
    async def _submit_all(self) -> None:
        limiter = trio.Semaphore(self.scenario.concurrency)
        async with trio.open_nursery() as groups:
            for group in self.scenario.workload:
                groups.start_soon(self._submit_group, group, limiter)
        self._submitting_done = True
        total = sum(1 for j in self.jobs.values() if not j.probe)
        self.say(f"[{time.time() - self.t0:6.1f}s] all {total} bulk jobs submitted "
                 f"({len(self.submit_errors)} errors)")

    async def _submit_group(self, group: WorkloadGroup, limiter: trio.Semaphore) -> None:
        """The group's jobs, from ``scenario.concurrency`` clients: each sends
        its next Create once its last was answered (and, at a rate, once
        the next job is due), while it holds one of ``limiter``'s places
        (the scenario's concurrency, shared by the groups).

        A client is a task that loops, as a user's client does. One task a
        job, started by a loop that waited for a place, cost a task's start
        a job and two more turns of the harness's loop between an answer and
        the next Create (the harness's cpu a job in the single-task load,
        177 -> 169 us)."""
        from peloton.api.v0.job import job_pb2
        from peloton.api.v0.peloton import peloton_pb2

        start = trio.current_time() + group.start_s
        await trio.sleep_until(start)
        # One validated config per distinct duration: a batch job's Create
        # is its bytes with the job's id and name put in (``create_bytes``),
        # a service's a copy of the message.
        templates: dict[float, tuple[Any, bytes]] = {}  # (config, its bytes)
        numbers = iter(range(group.jobs))  # shared: each job goes to one client
        service = group if group.type == "service" else None

        async def client() -> None:
            for n in numbers:
                if group.arrival.mode == "rate":
                    due = start + n / group.arrival.jobs_per_s
                    if due > trio.current_time():
                        await trio.sleep_until(due)
                duration = draw_duration(self.rng, group.task)
                template = templates.get(duration)
                if template is None:
                    config = job_config(
                        f"{BULK_PREFIX}{group.name}", group.type, group.instances, group.task,
                        duration, group.max_failures, label=group.name,
                        max_unavailable=group.max_unavailable)
                    config.respoolID.value = self.pool_ids[group.pool]
                    config.ClearField("name")
                    template = templates[duration] = (config, config.SerializeToString())
                base, encoded = template
                name = f"{BULK_PREFIX}{group.name}-{n:05d}"
                job_id = new_job_id()
                if service is None:
                    request: Any = create_bytes(job_id, encoded, name)
                else:
                    config = type(base)()
                    config.CopyFrom(base)
                    config.name = name
                    request = job_pb2.CreateRequest(id=peloton_pb2.JobID(value=job_id),
                                                    config=config)
                try:
                    limiter.acquire_nowait()
                except trio.WouldBlock:
                    await limiter.acquire()
                await self._create(group.name, job_id, name, group.instances, request, limiter,
                                   service)

        async with trio.open_nursery() as clients:
            for _ in range(min(self.scenario.concurrency, group.jobs)):
                clients.start_soon(client)

    async def _create(self, group: str, job_id: str, name: str, instances: int, request: Any,
                      limiter: trio.Semaphore | None,
                      service: WorkloadGroup | None = None) -> None:
        """Send one Create (``request``: the message, or its bytes) and note
        when it was sent and answered."""
        if service is not None:
            self.service_jobs[job_id] = service
            self._names[job_id] = name
        record = JobRecord(job_id, group, instances, time.time())
        self.jobs[job_id] = record
        try:
            for attempt in range(CREATE_ATTEMPTS):
                try:
                    await self.client.send_create(request, job_id)
                except AlreadyExists:
                    pass  # an earlier attempt went through (same id, same config)
                except (DeadlineExceeded, Unavailable) as error:
                    if attempt + 1 < CREATE_ATTEMPTS:
                        continue
                    record.error = str(error)
                except PelotonError as error:
                    record.error = str(error)
                break
            if record.error:
                self.submit_errors.append(f"{name}: {record.error}")
                if len(self.submit_errors) <= 5:
                    self.say(f"create {name} failed: {record.error}")
            else:
                record.acked_at = time.time()
        finally:
            if limiter is not None:
                limiter.release()

    # -- services ------------------------------------------------------------------
    async def _services_loop(self) -> None:
        """Update each service group's jobs once its update time has come and
        every instance runs; follow the updates to their end. When the batch
        work is done too, stop the services (they never end by themselves)."""
        groups = [g for g in self.scenario.workload if g.type == "service" and g.update]
        async with trio.open_nursery() as nursery:
            for group in groups:
                nursery.start_soon(self._update_group, group)
        self._updates_done = True
        if not any(g.type == "service" for g in self.scenario.workload):
            return
        await self._batch_done.wait()
        if self.scenario.drain is not None:
            # The drain waits for every instance to run: stopped first, the
            # services would hold it back for ever.
            await self._drain_begun.wait()
        await self._stop_services()

    async def _update_group(self, group: WorkloadGroup) -> None:
        assert group.update is not None
        await trio.sleep_until(trio.current_time() + group.update.after_s)
        while True:  # every job acknowledged and every instance RUNNING
            jobs = [j for j, g in self.service_jobs.items() if g is group]
            if (self._submitting_done and len(jobs) == group.jobs and all(
                    self._job_stats.get(j, {}).get("RUNNING", 0) == group.instances
                    for j in jobs)):
                break
            await trio.sleep(POLL_S)
        self.say(f"[{time.time() - self.t0:6.1f}s] updating the {len(jobs)} jobs of "
                 f"{group.name} ({group.jobs * group.instances} instances, batches of "
                 f"{group.update.batch_size}, at most {group.max_unavailable} down per job)")
        config = job_config(f"{BULK_PREFIX}{group.name}", group.type, group.instances,
                            group.task, 0, group.max_failures, label=group.name,
                            max_unavailable=group.max_unavailable, version=2)
        async with trio.open_nursery() as nursery:
            for job_id in jobs:
                nursery.start_soon(self._update_job, job_id, group, config)

    async def _update_job(self, job_id: str, group: WorkloadGroup, base: Any) -> None:
        from peloton.api.v0.peloton import peloton_pb2
        from peloton.api.v0.update import update_pb2
        from peloton.api.v0.update.svc import update_svc_pb2

        assert group.update is not None
        config = type(base)()
        config.CopyFrom(base)
        config.name = self._names[job_id]
        config.respoolID.value = self.pool_ids[group.pool]
        record = self.updates[job_id] = ["", time.time(), 0.0, "creating"]
        try:
            reply = await self.client.updates.call("CreateUpdate", update_svc_pb2.CreateUpdateRequest(
                jobId=peloton_pb2.JobID(value=job_id), jobConfig=config,
                updateConfig=update_pb2.UpdateConfig(batchSize=group.update.batch_size)))
        except PelotonError as error:
            record[3] = f"create failed: {error}"
            self.problems.append(f"the update of {job_id} was refused: {error}")
            return
        record[0] = reply.updateID.value
        terminal = {update_pb2.SUCCEEDED, update_pb2.ABORTED, update_pb2.FAILED,
                    update_pb2.ROLLED_BACK}
        while True:
            await trio.sleep(POLL_S)
            try:
                got = await self.client.updates.call("GetUpdate", update_svc_pb2.GetUpdateRequest(
                    updateId=reply.updateID, statusOnly=True))
            except PelotonError:
                continue
            state = got.updateInfo.status.state
            record[3] = update_pb2.State.Name(state)
            if state in terminal:
                record[2] = time.time()
                if state != update_pb2.SUCCEEDED:
                    self.problems.append(f"the update of {job_id} ended {record[3]}")
                return

    def _services_all_run(self) -> bool:
        """Every service job is acknowledged and each instance RUNNING."""
        groups = [g for g in self.scenario.workload if g.type == "service"]
        return self._submitting_done and all(
            sum(1 for g in self.service_jobs.values() if g is group) == group.jobs
            for group in groups) and all(
            self._job_stats.get(j, {}).get("RUNNING", 0) == g.instances
            for j, g in self.service_jobs.items())

    async def _drain_loop(self) -> None:
        """Put ``drain.hosts`` hosts (spread evenly over the sorted names)
        into maintenance once ``drain.after_s`` has passed and every service
        instance runs; then follow them until every one is DOWN."""
        from peloton.api.v0.host import host_pb2
        from peloton.api.v0.host.svc import host_svc_pb2

        drain = self.scenario.drain
        if drain is None:
            return
        await trio.sleep(max(0.0, self.t0 + drain.after_s - time.time()))
        while True:
            if self._services_all_run():
                break
            await trio.sleep(POLL_S)
        reply = await self.client.hosts.call("QueryHosts", host_svc_pb2.QueryHostsRequest())
        names = sorted(h.hostname for h in reply.host_infos)
        step = len(names) / drain.hosts
        chosen = [names[int(i * step)] for i in range(drain.hosts)]
        self.say(f"[{time.time() - self.t0:6.1f}s] draining {len(chosen)} of {len(names)} "
                 "hosts for maintenance")
        self.drain_started = time.time()
        self._drain_begun.set()
        limiter = trio.Semaphore(32)

        async def one(hostname: str) -> None:
            async with limiter:
                try:
                    await self.client.hosts.call("StartMaintenance",
                                                 host_svc_pb2.StartMaintenanceRequest(
                                                     hostname=hostname))
                except PelotonError as error:
                    self.problems.append(f"StartMaintenance of {hostname}: {error}")
                    return
                # In effect from its answer on: nothing may be placed there after.
                self.drained[hostname] = time.time()

        async with trio.open_nursery() as nursery:
            for hostname in chosen:
                nursery.start_soon(one, hostname)
        wanted = set(chosen)
        while True:
            await trio.sleep(POLL_S)
            try:
                reply = await self.client.hosts.call("QueryHosts", host_svc_pb2.QueryHostsRequest(
                    host_states=[host_pb2.HOST_STATE_DOWN]))
            except PelotonError:
                continue
            if wanted <= {h.hostname for h in reply.host_infos}:
                self.drain_down = time.time()
                self.say(f"[{self.drain_down - self.t0:6.1f}s] all {len(chosen)} drained "
                         f"hosts are DOWN ({self.drain_down - self.drain_started:.1f}s)")
                return

    async def _stop_services(self) -> None:
        from peloton.api.v0.job import job_pb2
        from peloton.api.v0.peloton import peloton_pb2

        self.say(f"[{time.time() - self.t0:6.1f}s] batch work done and updates over: "
                 f"stopping {len(self.service_jobs)} service jobs")
        for job_id in self.service_jobs:
            try:
                await self.client.jobs.call("Stop", job_pb2.StopRequest(
                    id=peloton_pb2.JobID(value=job_id)))
            except PelotonError as error:
                self.problems.append(f"stopping service {job_id}: {error}")

    async def _probe_loop(self) -> None:
        from peloton.api.v0.job import job_pb2
        from peloton.api.v0.peloton import peloton_pb2

        probes = self.scenario.probes
        if probes is None:
            self._probes_done = True
            return
        rng = random.Random(self.scenario.seed + 1)
        n = 0
        start = trio.current_time()
        async with trio.open_nursery() as creates:
            while probes.max is None or n < probes.max:
                await trio.sleep_until(start + n * probes.every_s)
                if self._submitting_done and self._bulk_active == 0:
                    break
                config = job_config(f"{PROBE_PREFIX}{n:05d}", "batch", probes.instances,
                                    probes.task, draw_duration(rng, probes.task), label="probe")
                config.respoolID.value = self.pool_ids[probes.pool]
                job_id = new_job_id()
                creates.start_soon(self._create, "probe", job_id, config.name, probes.instances,
                                   job_pb2.CreateRequest(id=peloton_pb2.JobID(value=job_id),
                                                         config=config), None)
                n += 1
        self._probes_done = True

    def _stop(self, reason: str) -> None:
        """End the run now (the report says why); the first reason wins."""
        if not self._done.is_set():
            self.stopped_early = reason
            self.say(f"! stopping: {reason}")
            self._done.set()

    async def _stop_on_signal(self) -> None:
        """SIGINT or SIGTERM ends the run early but still writes the report;
        a second one interrupts for good."""
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for signum in signals:
                self._stop(f"interrupted ({signal.Signals(signum).name})")
                break
        await trio.sleep_forever()

    # -- sampling ----------------------------------------------------------------
    async def _sampler(self) -> None:
        """Sample once a second; less often when a sample's calls take over
        ``POLL_S / POLL_SHARE`` (GetStats counts every tracked task under the
        Raft lock), so the harness's own load on the daemons stays small.

        Ends the run when every job is terminal, when every jobmgr has died,
        or when no counter moved for ``stall_s`` seconds. Rewrites
        ``timeseries.json`` every :data:`CHECKPOINT_S` seconds, so a run
        that is killed leaves its samples behind."""
        assert self.state is not None
        next_at = trio.current_time()
        last_move = trio.current_time()
        last_key: tuple[int, ...] = ()
        last_checkpoint = trio.current_time()
        jobmgrs = {d.name for d in self.state.daemons if d.kind == "jobmgr"}
        while True:
            began = trio.current_time()
            await self._sample()
            took = trio.current_time() - began
            if self._submitting_done and self._probes_done and self._non_service_active == 0:
                self._batch_done.set()
            # A drain that began is followed until its hosts are DOWN: a run
            # whose last jobs ended a moment after it began reported it unfinished.
            drain_over = not self.drain_started or bool(self.drain_down)
            if (self._submitting_done and self._probes_done and self._active_total == 0
                    and drain_over and not self._done.is_set()):
                self._done.set()
            if self.samples:
                s = self.samples[-1]
                key = tuple(s[k] for k in ("created", "admitted", "placed", "launched",
                                           "running_total", "completed"))
                if key != last_key:
                    last_key, last_move = key, trio.current_time()
                elif trio.current_time() - last_move > self.stall_s:
                    self._stop(f"no progress for {self.stall_s:g}s")
            if jobmgrs and jobmgrs <= set(self.died):
                self._stop("every jobmgr died")
            if trio.current_time() - last_checkpoint >= CHECKPOINT_S:
                last_checkpoint = trio.current_time()
                await trio.to_thread.run_sync(self._write_timeseries)
            next_at = max(next_at + max(POLL_S, POLL_SHARE * took), trio.current_time())
            await trio.sleep_until(next_at)

    def _write_timeseries(self) -> None:
        reporting.write_json(self.run_dir / "timeseries.json",
                             {"scenario": self.scenario.name, "t0": self.t0,
                              "samples": list(self.samples)})

    async def _query_active(self) -> tuple[dict[str, int], int, set[str]] | None:
        """(task counts by state over the jobs not yet terminal, their tasks,
        their ids) from one summary Query; None if no jobmgr answered."""
        from peloton.api.v0.job import job_pb2
        from peloton.api.v0.query import query_pb2

        request = job_pb2.QueryRequest(summaryOnly=True, spec=job_pb2.QuerySpec(
            jobStates=list(ACTIVE_JOB_STATES),
            pagination=query_pb2.PaginationSpec(limit=1_000_000)))
        try:
            reply = await self.client.jobs.call("Query", request, timeout=10.0, deadline=10.0)
        except PelotonError:
            return None
        counts: dict[str, int] = {}
        ids: set[str] = set()
        bulk = tasks = others = 0
        now = time.time()
        for summary in reply.results:
            job_id = summary.id.value
            ids.add(job_id)
            tasks += summary.instanceCount
            stats = summary.runtime.taskStats
            service = job_id in self.service_jobs
            if not service:
                others += 1
                if not summary.name.startswith(PROBE_PREFIX):
                    bulk += 1
            else:
                self._job_stats[job_id] = dict(stats)
                self.service_preempting = max(self.service_preempting,
                                              stats.get("PREEMPTING", 0))
                update = self.updates.get(job_id)
                draining = self.drain_started and not self.drain_down
                if draining or (update is not None and update[0] and not update[2]
                                and update[1] <= now):
                    down = summary.instanceCount - stats.get("RUNNING", 0)
                    if down > self.most_unavailable:
                        self.most_unavailable, self.most_unavailable_job = down, job_id
            for state, n in stats.items():
                counts[state] = counts.get(state, 0) + n
        self._bulk_active = bulk if self._submitting_done or bulk else self._bulk_active
        self._non_service_active = others
        self._active_total = len(ids)
        return counts, tasks, ids

    async def _sample(self) -> None:
        assert self.state is not None
        now = time.time()
        acked = [j for j in self.jobs.values() if j.acked_at and j.acked_at <= now]
        stats = await self._stats()
        active = await self._query_active()
        t = time.time() - self.t0
        previous = self.samples[-1] if self.samples else None
        rm_states: dict[str, int] = dict(stats.taskStates) if stats is not None else {}
        created = 0
        if active is not None:
            # Jobs the jobmgrs have: those not terminal (some whose Create has not
            # returned yet), and those acknowledged before the query that left it.
            jm_states, active_tasks, ids = active
            finished = sum(j.instances for j in acked if j.job_id not in ids)
            jm_states = dict(jm_states)
            jm_states["SUCCEEDED"] = jm_states.get("SUCCEEDED", 0) + finished
            created = active_tasks + finished
        if active is None or stats is None:
            if previous is None:
                return
            sample = dict(previous)
            sample["stale"] = True
        else:
            sample = measure.derive_counters(created, stats.tasks, rm_states, jm_states)
            if previous is not None:
                for key in ("admitted", "placed", "launched", "running_total", "completed"):
                    sample[key] = max(sample[key], previous[key])
        sample["t"] = round(t, 3)
        sample["jobs_acked"] = len(acked)
        sample["jobs_active"] = self._active_total
        if stats is not None:
            sample["tracked"] = stats.tasks
            sample["ready_gangs"] = stats.readyGangs
            sample["placements_waiting"] = stats.placementsWaiting
            sample["raft_applied"] = stats.appliedCommands
            if stats.commitSeconds:
                sample["commit_p50_s"] = round(stats.commitSeconds["p50"], 4)
                sample["commit_p99_s"] = round(stats.commitSeconds["p99"], 4)
            self.max_tracked = max(self.max_tracked, stats.tasks)
        cpu: dict[str, float] = {}
        rss: dict[str, int] = {}
        for d in self.state.daemons:
            proc = measure.read_proc(d.pid)
            if proc is None:
                if d.name not in self.died:
                    self.died[d.name] = t
                    self.problems.append(f"{d.name} (pid {d.pid}) died at {t:.0f}s; see "
                                         f"{minicluster.log_path(self.run_dir, d.name)}")
                    self.say(f"! {d.name} died at {t:.0f}s")
                continue
            cpu[d.name] = proc.cpu_s
            rss[d.name] = proc.rss_bytes
            self.final_proc[d.name] = proc
        sample["cpu_s"] = cpu
        sample["rss_bytes"] = rss
        self.samples.append(sample)
        self._show(sample)

    def _show(self, s: Mapping[str, Any]) -> None:
        first = reporting.window_start(self.samples, len(self.samples) - 1, 5.0)
        dt = s["t"] - first["t"]
        run_rate = (s["running_total"] - first["running_total"]) / dt if dt > 0 else 0.0
        done_rate = (s["completed"] - first["completed"]) / dt if dt > 0 else 0.0
        total = self.scenario.bulk_tasks + sum(j.instances for j in self.jobs.values()
                                               if j.probe and not j.error)
        backlog = s["pending"] + s["ready"] + s["placing"] + s["placed_waiting"]
        self.progress.update(s["t"], (
            f"[{s['t']:6.0f}s] submitted {s['created']}/{total}  backlog {backlog}  "
            f"launching {s['launching']}  running {s['running']}  completed {s['completed']}  "
            f"running/s {run_rate:.0f}  completed/s {done_rate:.0f}"))


async def _within_rpc(fn: Callable[[], Any]) -> Any:
    """``fn()`` inside ``open_rpc()`` (its connections closed at the end)."""
    from peloton.rpc import open_rpc

    async with open_rpc():
        return await fn()


# --------------------------------------------------------------------------- the command


def default_run_dir(name: str) -> pathlib.Path:
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return pathlib.Path("loadtest-runs") / f"{name}-{stamp}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="peloton-loadtest",
        description="Run a load-test scenario on a local cluster of real daemons and report "
                    "throughput, latency, cost and correctness (see loadtest/README.md).")
    parser.add_argument("scenario", help="a shipped scenario's name (smoke, "
                        "10k-hosts-100k-tasks, ...) or the path of a scenario file")
    parser.add_argument("--out", type=pathlib.Path, default=None,
                        help="the run directory (default loadtest-runs/SCENARIO-TIMESTAMP)")
    parser.add_argument("--keep", action="store_true",
                        help="leave the cluster running after the run")
    parser.add_argument("--profile", action="store_true",
                        help="record every daemon with py-spy (RUN/profiles/NAME.folded, NAME.top.txt)")
    parser.add_argument("--secure", action="store_true",
                        help="TLS, a user and the cluster secret on every call (the Raft "
                             "password is always on)")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="override the scenario's timeout_s")
    parser.add_argument("--stall", type=float, default=None, metavar="SECONDS",
                        help=f"give up when no counter moved for this long (default "
                             f"{STALL_S:g}, or twice the longest task if longer)")
    parser.add_argument("--loop-monitor", type=float, default=None, metavar="MS",
                        help="every daemon logs its trio loop's ready wait and the steps "
                             "longer than MS milliseconds, every 10 s (peloton.observability.loop)")
    args = parser.parse_args(argv)
    if args.loop_monitor is not None:
        if not args.loop_monitor > 0:
            print("peloton-loadtest: --loop-monitor must be positive", file=sys.stderr)
            return 2
        os.environ[loop_monitor.ENV] = f"{args.loop_monitor:g}"  # the daemons inherit it
    try:
        scenario = load_scenario(args.scenario)
    except InvalidArgument as error:
        print(f"peloton-loadtest: {error}", file=sys.stderr)
        return 2
    if args.timeout is not None:
        if not args.timeout > 0:
            print("peloton-loadtest: --timeout must be positive", file=sys.stderr)
            return 2
        from dataclasses import replace
        scenario = replace(scenario, timeout_s=args.timeout)
    run_dir = args.out or default_run_dir(scenario.name)
    if args.stall is not None and not args.stall > 0:
        print("peloton-loadtest: --stall must be positive", file=sys.stderr)
        return 2
    test = LoadTest(scenario, run_dir, keep=args.keep, profile=args.profile,
                    stall_s=args.stall, secure=args.secure, tune_gc=True)
    try:
        report = test.run()
    except minicluster.ClusterNotReady:
        return 2
    except InvalidArgument as error:
        print(f"peloton-loadtest: {error}", file=sys.stderr)
        return 2
    except PelotonError as error:
        print(f"peloton-loadtest: the run failed: {error} (logs in {test.run_dir / 'logs'})",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\npeloton-loadtest: interrupted", file=sys.stderr)
        return 130
    except BaseExceptionGroup as group:
        if group.subgroup(KeyboardInterrupt) is None:
            raise
        print("\npeloton-loadtest: interrupted", file=sys.stderr)
        return 130
    print(reporting.format_table(report))
    print(f"report: {test.run_dir / 'report.json'}")
    return 0 if report["correct"] else 1


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError):
        sys.exit(main())
