"""hostmgr: one shard per cluster; host leases, launches, kills, events.

Holds the pure ``HostPool`` (what each host has, what runs there, which
host is leased) in front of a ``Backend`` (local processes, simulated hosts
or Mesos). Registers its cluster with resmgr by heartbeat. Status updates
from the backend free resources and go to the event stream of the jobmgr
shard that launched the task. Measured usage from the backend moves the
pool's slack, which ``ClusterCapacity`` reports to resmgr.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
import pathlib
import secrets
import time
from functools import partial
from typing import Any

import trio

from peloton.api.private.cluster import cluster_grpc
from peloton.api.private.cluster import cluster_pb2 as cpb
from peloton.api.private.hostmgrsvc import hostmgrsvc_grpc
from peloton.api.private.hostmgrsvc import hostmgrsvc_pb2 as hpb
from peloton.api.private.resmgrsvc import resmgrsvc_pb2 as rpb
from peloton.api.v0.host import host_pb2
from peloton.api.v0.host.svc import host_svc_grpc, host_svc_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.task import task_pb2
from peloton.config import HEARTBEAT_PERIOD, HEARTBEAT_TIMEOUT, ClusterConfig, DaemonConfig
from peloton.core.errors import FailedPrecondition, InvalidArgument, NotFound, PelotonError
from peloton.core.ids import volume_id
from peloton.core.resources import Resources
from peloton.core.states import TERMINAL_TASK_STATES, TaskState
from peloton.hostmgr.backends.base import Backend, HealthCheck, LaunchSpec, StatusUpdate
from peloton.hostmgr.constraints import host_check
from peloton.hostmgr.events import EventStreams
from peloton.hostmgr.files import serve_files
from peloton.hostmgr.hostpool import (
    DOWN,
    DRAINING,
    MAINTENANCE_STATES,
    MAX_LEASE_PORTS,
    UP,
    HostPool,
    HostSpec,
)
from peloton.hostmgr.hostpools import POOL_ATTRIBUTE, HostPools
from peloton.rpc import ServiceClient, serve_grpc
from peloton.spec.text import check_name

log = logging.getLogger(__name__)

LEASE_TTL = 30.0
# A jobmgr's wait for events that found runs' starts but no end waits this
# much longer for an end (EventStreams.wait_many). A `true` run ended
# 6-30 ms (p10-p90; median 16) after its start on two busy cores; a start
# is shown that much later at most.
EVENTS_LINGER_S = 0.025


def res_msg(r: Resources) -> rpb.Resources:
    return rpb.Resources(cpu=r.cpu, memMb=r.memory, diskMb=r.disk, gpu=r.gpu)


def resources_of(r: rpb.Resources) -> Resources:
    return Resources(r.cpu, r.memMb, r.diskMb, r.gpu)


def _number(me: DaemonConfig, key: str, default: float, what: str = "a number") -> float:
    """A hostmgr entry's finite number option, or InvalidArgument naming it."""
    value = me.options.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidArgument(f"must be {what}, got {value!r}", field=f"hostmgr[{me.name}].{key}")
    return float(value)


def _task_users(me: DaemonConfig) -> tuple[int, int] | None:
    """A local hostmgr's ``task_users``: ``isolated`` (each run a user of
    its own, in a sandbox only it can read) or ``host manager`` (runs are
    the host manager's user, the default)."""
    from peloton.hostmgr.backends.local import TASK_UID_COUNT, TASK_UID_FIRST
    value = me.options.get("task_users", "host manager")
    if value == "host manager":
        return None
    if value == "isolated":
        if os.geteuid() != 0:
            raise InvalidArgument("isolated task users need a host manager running as root",
                                  field=f"hostmgr[{me.name}].task_users")
        return TASK_UID_FIRST, TASK_UID_COUNT
    raise InvalidArgument(f"must be 'isolated' or 'host manager', got {value!r}",
                          field=f"hostmgr[{me.name}].task_users")


def _whole(me: DaemonConfig, key: str, default: int) -> int:
    value = me.options.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"must be a whole number, got {value!r}",
                              field=f"hostmgr[{me.name}].{key}")
    return value


def attributes_option(value: Any, field: str) -> dict[str, str]:
    """A cluster file's ``attributes``: a mapping of printable names to
    scalar values (kept as text, as hosts report them)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidArgument(f"must be a mapping of name: value, got {value!r}", field=field)
    out: dict[str, str] = {}
    for key, item in value.items():
        if not isinstance(key, str) or not key:
            raise InvalidArgument(f"attribute names are non-empty text, got {key!r}",
                                  field=field)
        check_name(key, f"{field}.{key}", "attribute name", max_chars=255)
        if isinstance(item, dict | list) or item is None:
            raise InvalidArgument(f"must be a text or number, got {item!r}",
                                  field=f"{field}.{key}")
        text = str(item).lower() if isinstance(item, bool) else str(item)
        check_name(text, f"{field}.{key}", "attribute value", max_chars=1024)
        out[key] = text
    return out


def host_attributes_option(value: Any, field: str) -> dict[str, dict[str, str]]:
    """A cluster file's ``host_attributes``: hostname -> attributes."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidArgument(f"must be a mapping of hostname: attributes, got {value!r}",
                              field=field)
    return {str(host): attributes_option(attrs, f"{field}.{host}")
            for host, attrs in value.items()}


# What a hostmgr entry may set, by backend (beside name and grpc).
_COMMON_KEYS = ("cluster", "backend", "files")
LOCAL_KEYS = (*_COMMON_KEYS, "hosts", "cpu", "memory_mb", "disk_mb", "gpu", "first_port",
              "usage_period", "usage_window", "attributes", "host_attributes", "pids_max",
              "task_users", "gc_delay")
SIM_KEYS = (*_COMMON_KEYS, "hosts", "shapes", "cpu", "memory_mb", "disk_mb", "gpu",
            "gpu_hosts", "gpu_per_host", "hosts_per_rack", "zones", "attributes",
            "failure_rate", "default_duration", "seed", "first_port", "ports_per_host",
            "host_loss", "finished_limit", "cpu_usage")


HOST_STATES = {UP: host_pb2.HOST_STATE_UP, DRAINING: host_pb2.HOST_STATE_DRAINING,
               DOWN: host_pb2.HOST_STATE_DOWN}


def make_backend(me: DaemonConfig, data_dir: pathlib.Path) -> Backend:
    opts = me.options
    kind = opts.get("backend", "local")
    known = {"local": LOCAL_KEYS, "sim": SIM_KEYS}.get(kind, ())
    for key in opts:
        if known and key not in known:
            raise InvalidArgument(f"unknown key for a {kind} hostmgr; known: "
                                  f"{', '.join(known)}", field=f"hostmgr[{me.name}].{key}")
    if kind == "local":
        from peloton.hostmgr.backends.local import (
            DEFAULT_PIDS_MAX,
            GC_DELAY,
            GC_DELAY_MIN,
            USAGE_PERIOD,
            USAGE_WINDOW,
            LocalBackend,
        )
        period = _number(me, "usage_period", USAGE_PERIOD, "a number of seconds")
        window = _number(me, "usage_window", USAGE_WINDOW, "a number of seconds")
        where = f"hostmgr[{me.name}]."
        gc_delay = _number(me, "gc_delay", GC_DELAY, "a number of seconds")
        if gc_delay < GC_DELAY_MIN:
            raise InvalidArgument(
                f"must be at least {GC_DELAY_MIN:.0f} seconds (a recent run's sandbox stays "
                f"readable), got {gc_delay:g}",
                field=where + "gc_delay")
        return LocalBackend(data_dir / me.name, hosts=_whole(me, "hosts", 3),
                            cpu=_number(me, "cpu", 4), memory_mb=_number(me, "memory_mb", 8192),
                            disk_mb=_number(me, "disk_mb", 102400), gpu=_number(me, "gpu", 0),
                            cluster=str(opts.get("cluster", "local")),
                            first_port=_whole(me, "first_port", 31000),
                            usage_period=period, usage_window=window,
                            attributes=attributes_option(opts.get("attributes"),
                                                         where + "attributes"),
                            host_attributes=host_attributes_option(
                                opts.get("host_attributes"), where + "host_attributes"),
                            pids_max=_whole(me, "pids_max", DEFAULT_PIDS_MAX),
                            task_uids=_task_users(me), gc_delay=gc_delay)
    if kind == "sim":
        from peloton.hostmgr.backends.sim import SimBackend
        return SimBackend.from_options({"cluster": "local", **opts})
    raise InvalidArgument(f"unknown host backend {kind!r}; known: local, sim",
                          field=f"hostmgr[{me.name}].backend")


class Hostmgr:
    def __init__(self, backend: Backend, cluster: str) -> None:
        self.backend = backend
        self.cluster = cluster
        self.pool = HostPool(assumed_cpu_usage=backend.assumed_cpu_usage)
        backend.on_usage = self.pool.set_usage
        self.host_pools = HostPools()
        self.pools_path: pathlib.Path | None = None
        for spec in backend.hosts():
            self.pool.add_host(self._with_pool(spec))
        self.events = EventStreams(on_acknowledged=backend.acknowledged,
                                   linger=EVENTS_LINGER_S)
        self.shard_of_task: dict[str, int] = {}
        # Where the sandboxes are served over HTTP (peloton.hostmgr.files).
        self.files_address = ""
        self.killed_early: set[str] = set()
        self.maintenance_path: pathlib.Path | None = None
        # New at each start: event offsets count within one incarnation.
        self.incarnation = secrets.token_hex(8)
        # jobmgr shard -> the newest owner epoch seen in its launches and
        # reconciles: launches from older epochs are refused (``fence``).
        self.shard_epochs: dict[int, int] = {}
        if hasattr(backend, "on_host_change"):
            backend.on_host_change = self._host_changed

    def _host_changed(self, hostname: str, up: bool) -> None:
        """A backend lost a host (its runs were reported LOST first) or got it back."""
        if up:
            spec = self.backend.host_spec(hostname)  # type: ignore[attr-defined]
            if spec is not None:
                self.pool.add_host(self._with_pool(spec))
        else:
            self.pool.remove_host(hostname)

    def fence(self, shard: int, epoch: int, mesos_task_id: str) -> None:
        """Note that ``shard`` has an owner at ``epoch`` (0: unfenced, nothing
        to note); FailedPrecondition for a launch (``mesos_task_id``) from an
        epoch older than one seen: its sender no longer owns the shard, and
        its successor may have placed the run again or ended it. Checked
        and noted before any await, so a reconcile that saw the run unknown
        is never followed by that run's stale launch."""
        if not epoch:
            return
        newest = self.shard_epochs.get(shard, 0)
        if epoch < newest:
            raise FailedPrecondition(
                f"task {mesos_task_id}: launched by the owner of shard {shard} at epoch "
                f"{epoch}, but the shard has an owner at epoch {newest}", field="epoch")
        self.shard_epochs[shard] = epoch

    def adopt(self, specs: list[LaunchSpec]) -> None:
        """Account for runs the backend found still running at its start:
        they hold their resources and ports, and their events go to their
        shards, as before the restart."""
        for spec in specs:
            self.pool.adopt(spec.hostname, spec.mesos_task_id, spec.resources,
                            list(spec.ports.values()), revocable=spec.revocable,
                            labels=spec.labels)
            self.shard_of_task[spec.mesos_task_id] = spec.shard
        if specs:
            log.info("adopted %d runs that outlived the last host manager", len(specs))

    def announce_ended(self, found: list[tuple[int, StatusUpdate]]) -> None:
        """Publish again the ends of runs the backend found ended at its
        start, to their shards' streams: the last host manager may have died
        before a job manager acknowledged them (a repeat changes nothing),
        and the backend keeps each run until one does."""
        for shard, update in found:
            self.shard_of_task[update.mesos_task_id] = shard
            self.events.add(shard, update)
        if found:
            log.info("announced the ends of %d runs found ended", len(found))

    def report(self, update: StatusUpdate) -> None:
        """Backend callback (in trio): account, then publish to the shard's stream."""
        if update.state in TERMINAL_TASK_STATES:
            self.pool.task_ended(update.mesos_task_id)
        shard = self.shard_of_task.get(update.mesos_task_id)
        if shard is None:
            log.warning("status of unknown task %s dropped", update.mesos_task_id)
            if update.state in TERMINAL_TASK_STATES:  # no job manager will hear of it
                self.backend.acknowledged([update.mesos_task_id])
            return
        self.events.add(shard, update)

    async def expire_loop(self) -> None:
        while True:
            await trio.sleep(1.0)
            self.pool.expire(time.time())
            await self.drained()

    # -- host pools -------------------------------------------------------------
    def _with_pool(self, spec: HostSpec) -> HostSpec:
        """The host as constraints see it: with its pool as ``host_pool``."""
        pool = self.host_pools.add_host(spec.hostname)
        return dataclasses.replace(spec, attributes={**spec.attributes, POOL_ATTRIBUTE: pool})

    def _repool(self, hostnames: list[str]) -> None:
        for hostname in hostnames:
            view = self.pool.host(hostname)
            if view is not None:
                self.pool.add_host(self._with_pool(view.spec))

    def load_pools(self, path: pathlib.Path | None) -> None:
        """The host pools as the last run left them."""
        self.pools_path = path
        if path is None or not path.exists():
            return
        self.host_pools.load(json.loads(path.read_text()))
        self._repool([v.spec.hostname for v in self.pool.hosts()])

    async def save_pools(self, changed: list[str]) -> None:
        """Apply a change of pools to the hosts' attributes and keep it on disk."""
        self._repool(changed)
        path = self.pools_path
        if path is None:
            return
        data = json.dumps(self.host_pools.to_json(), sort_keys=True)

        def write() -> None:
            tmp = path.with_suffix(".tmp")
            tmp.write_text(data)
            tmp.replace(path)

        await trio.to_thread.run_sync(write)

    # -- maintenance -----------------------------------------------------------
    def load_maintenance(self, path: pathlib.Path | None) -> None:
        """The hosts' maintenance states as the last run left them."""
        self.maintenance_path = path
        if path is None or not path.exists():
            return
        for hostname, state in json.loads(path.read_text()).items():
            if self.pool.host(hostname) is not None and state in MAINTENANCE_STATES:
                self.pool.set_maintenance(hostname, state)

    async def save_maintenance(self) -> None:
        path = self.maintenance_path
        if path is None:
            return
        states = {v.spec.hostname: v.maintenance for v in self.pool.hosts()
                  if v.maintenance != UP}

        def write() -> None:
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(states, sort_keys=True))
            tmp.replace(path)

        await trio.to_thread.run_sync(write)

    async def set_maintenance(self, hostname: str, state: str) -> None:
        self.pool.set_maintenance(hostname, state)
        log.info("host %s: %s", hostname, state)
        await self.save_maintenance()

    async def drained(self) -> None:
        """A draining host with nothing left on it is DOWN. (Views of the
        draining hosts only: a view of each of 5,000 hosts every second held
        the loop 200-280 ms under a million-task load.)"""
        for view in self.pool.hosts(maintenance=(DRAINING,)):
            if view.tasks == 0:
                await self.set_maintenance(view.spec.hostname, DOWN)


def health_check(config: task_pb2.HealthCheckConfig) -> HealthCheck | None:
    """The backend's form of a task's health check (None when it has none
    enabled); fields left 0 take Mesos's defaults (HealthCheck)."""
    if not config.enabled:
        return None
    default = HealthCheck("command")
    common = dict(
        initial_s=float(config.initialIntervalSecs or default.initial_s),
        interval_s=float(config.intervalSecs or default.interval_s),
        timeout_s=float(config.timeoutSecs or default.timeout_s),
        max_failures=int(config.maxConsecutiveFailures or default.max_failures))
    if config.type == task_pb2.HealthCheckConfig.HTTP:
        return HealthCheck("http", port=config.httpCheck.port,
                           path=config.httpCheck.path or "/", **common)  # type: ignore[arg-type]
    return HealthCheck("command", command=config.commandCheck.command,
                       clean_env=config.commandCheck.unshareEnvironments,
                       **common)  # type: ignore[arg-type]


@dataclasses.dataclass(frozen=True, slots=True)
class _Launchable:
    """What a TaskConfig gives each run launched with it: converted once a
    batch (the tasks of a job share one config; converted per task, a
    1,000-task batch took 19 us a task, now 10.5). Shared by the runs'
    LaunchSpecs, so read-only."""

    resources: Resources
    shell: bool
    command: str
    arguments: tuple[str, ...]
    environment: dict[str, str]
    kill_grace_seconds: float
    fd_limit: int
    labels: tuple[tuple[str, str], ...]
    health: HealthCheck | None
    revocable: bool
    # (its fixed value or 0, the environment variable it goes in), in order
    ports: tuple[tuple[int, str], ...]
    static_ports: frozenset[int]
    volume: tuple[str, int] | None  # (path in the sandbox, size in MB)

    @classmethod
    def of(cls, cfg: task_pb2.TaskConfig) -> _Launchable:
        r, cmd = cfg.resource, cfg.command
        return cls(
            resources=Resources(r.cpuLimit, r.memLimitMb, r.diskLimitMb, r.gpuLimit),
            shell=cmd.shell if cmd.HasField("shell") else True, command=cmd.value,
            arguments=tuple(cmd.arguments),
            environment={v.name: v.value for v in cmd.environment.variables},
            kill_grace_seconds=float(cfg.killGracePeriodSeconds), fd_limit=int(r.fdLimit),
            labels=tuple((lab.key, lab.value) for lab in cfg.labels),
            health=health_check(cfg.healthCheck), revocable=cfg.revocable,
            ports=tuple((p.value, p.envName or f"PORT_{p.name.upper()}") for p in cfg.ports),
            static_ports=frozenset(p.value for p in cfg.ports if p.value),
            volume=((cfg.volume.containerPath, cfg.volume.sizeMB)
                    if cfg.HasField("volume") else None))


def _event(offset: int, u: StatusUpdate, shard: int = 0) -> hpb.TaskEvent:
    return hpb.TaskEvent(offset=offset, mesosTaskId=u.mesos_task_id, state=int(u.state),  # type: ignore[arg-type]
                         message=u.message, hostname=u.hostname, exitCode=u.exit_code,
                         timestamp=u.timestamp, reason=u.reason,
                         healthy=u.health, shard=shard)  # type: ignore[arg-type]


class InternalHandler:
    """peloton.private.hostmgrsvc.InternalHostService"""

    def __init__(self, hm: Hostmgr) -> None:
        self.hm = hm

    async def AcquireHosts(self, request: hpb.AcquireHostsRequest) -> Any:
        f = request.filter
        revocable = f.HasField("revocableMinimum")
        leases, counts = self.hm.pool.acquire(
            resources_of(f.minimum) if f.HasField("minimum") or not revocable else None,
            f.numPorts, f.maxHosts or 1, time.time(), LEASE_TTL,
            port_sample=f.portSample if f.HasField("portSample") else MAX_LEASE_PORTS,
            demand=resources_of(f.demand) if f.HasField("demand") else None,
            slack_minimum=resources_of(f.revocableMinimum) if revocable else None,
            host_ok=host_check(f.constraint) if f.HasField("constraint") else None)
        reply = hpb.AcquireHostsResponse(filterResultCounts=counts,
                                         totalHosts=self.hm.pool.host_count())
        jobs = list(f.spreadJobs)
        labels = [(label.key, label.value) for label in f.countLabels]
        for lease in leases:
            msg = reply.leases.add(leaseId=lease.lease_id, hostname=lease.hostname,
                                   agentId=lease.agent_id, available=res_msg(lease.free),
                                   ports=lease.ports, attributes=dict(lease.attributes),
                                   cluster=lease.cluster, slackCpu=lease.slack)
            if jobs or labels:
                on_host, labelled = self.hm.pool.tasks_on(lease.hostname, jobs, labels)
                msg.jobTasks.update(on_host)
                for (key, value), count in labelled.items():
                    msg.taskLabels.add(key=key, value=value, count=count)
        return reply

    async def ReleaseHosts(self, request: hpb.ReleaseHostsRequest) -> Any:
        self.hm.pool.release(list(request.leaseIds))
        for planned in request.planned:
            self.hm.pool.plan(planned.leaseId, list(planned.mesosTaskIds))
        return hpb.ReleaseHostsResponse()

    async def LaunchTasks(self, request: hpb.LaunchTasksRequest) -> Any:
        for i, t in enumerate(request.tasks):
            if t.configIndex:
                raise InvalidArgument("names a batch's config; LaunchTasks takes a task's own",
                                      field=f"tasks[{i}].configIndex")
        await self._launch(request, [])
        return hpb.LaunchTasksResponse()

    async def LaunchTasksBatch(self, request: hpb.LaunchTasksBatchRequest) -> Any:
        """Every launch at once (a backend's launch may wait on I/O: Mesos
        calls, process starts); each succeeds or fails alone. The configs
        the tasks name are converted once, when first used."""
        reply = hpb.LaunchTasksBatchResponse()
        shared: list[_Launchable | task_pb2.TaskConfig] = list(request.configs)

        async def one(launch: hpb.LaunchTasksRequest, outcome: hpb.LaunchOutcome) -> None:
            try:
                await self._launch(launch, shared)
            except PelotonError as error:
                outcome.code, outcome.message = error.code, str(error)  # names its field

        async with trio.open_nursery() as nursery:
            for launch in request.launches:
                nursery.start_soon(one, launch, reply.outcomes.add(leaseId=launch.leaseId))
        return reply

    async def _launch(self, request: hpb.LaunchTasksRequest,
                      shared: list[_Launchable | task_pb2.TaskConfig]) -> None:
        """One host's launch; ``shared``: its batch's configs, each replaced
        by its conversion when a task first uses it."""
        hm = self.hm
        templates: list[_Launchable] = []
        for i, t in enumerate(request.tasks):
            hm.fence(t.shard, t.epoch, t.mesosTaskId)
            if not t.configIndex:
                templates.append(_Launchable.of(t.config))
                continue
            if t.configIndex > len(shared):
                raise InvalidArgument(f"{t.configIndex} is past the batch's {len(shared)} configs",
                                      field=f"tasks[{i}].configIndex")
            tpl = shared[t.configIndex - 1]
            if not isinstance(tpl, _Launchable):
                tpl = shared[t.configIndex - 1] = _Launchable.of(tpl)
            templates.append(tpl)
        pool, backend = hm.pool, hm.backend
        fresh = [(t, tpl) for t, tpl in zip(request.tasks, templates, strict=True)
                 if pool.host_of(t.mesosTaskId) is None and backend.known(t.mesosTaskId) is None]
        if not fresh:
            return  # a repeated launch: already done
        lease = pool.lease(request.leaseId)
        if lease is None:
            raise FailedPrecondition(f"host lease {request.leaseId} is unknown or expired")
        specs = []
        entries = []
        revocable = set()
        labels = {}
        for t, tpl in fresh:
            mesos_id = t.mesosTaskId
            slack = t.revocable or tpl.revocable
            if slack:
                revocable.add(mesos_id)
            ports = {}
            dynamic: list[int] = []
            if t.ports or tpl.ports:
                given = t.ports
                for i, (value, name) in enumerate(tpl.ports):
                    ports[name] = value or (given[i] if i < len(given) else 0)
                dynamic = [p for p in given if p not in tpl.static_ports]
            if tpl.labels:
                labels[mesos_id] = tpl.labels
            specs.append(LaunchSpec(
                mesos_task_id=mesos_id, task_id=t.taskId, job_id=t.jobId,
                instance_id=t.instanceId, hostname=lease.hostname, shell=tpl.shell,
                command=tpl.command, arguments=tpl.arguments, environment=tpl.environment,
                ports=ports, resources=tpl.resources,
                kill_grace_seconds=tpl.kill_grace_seconds, fd_limit=tpl.fd_limit,
                shard=t.shard, revocable=slack, labels=tpl.labels,
                health=tpl.health,
                volume=((volume_id(t.jobId, t.instanceId), *tpl.volume) if tpl.volume
                        else None)))
            entries.append((mesos_id, tpl.resources, dynamic))
        pool.launch(request.leaseId, entries, time.time(), revocable=revocable, labels=labels)
        for t, _ in fresh:
            hm.shard_of_task[t.mesosTaskId] = t.shard
        early = [s for s in specs if s.mesos_task_id in hm.killed_early]
        if early:
            for s in early:
                hm.killed_early.discard(s.mesos_task_id)
                hm.report(StatusUpdate(s.mesos_task_id, TaskState.KILLED, s.hostname,
                                       message="killed before launch", timestamp=time.time()))
        await backend.launch([s for s in specs if s not in early])

    async def DeleteVolumes(self, request: hpb.DeleteVolumesRequest) -> Any:
        await self.hm.backend.delete_volumes(request.hostname, list(request.volumeIds))
        return hpb.DeleteVolumesResponse()

    async def KillTasks(self, request: hpb.KillTasksRequest) -> Any:
        hm = self.hm
        known = [m for m in request.mesosTaskIds if hm.backend.known(m) is not None]
        # A kill may overtake its launch (two connections): remember it.
        hm.killed_early.update(m for m in request.mesosTaskIds if hm.backend.known(m) is None)
        if known:
            await hm.backend.kill(known, request.gracePeriodSeconds or None)
        return hpb.KillTasksResponse()

    async def ClusterCapacity(self, request: hpb.ClusterCapacityRequest) -> Any:
        physical, allocated, largest, hosts = self.hm.pool.capacity()
        slack, lent = self.hm.pool.slack()
        # Allocated counts what revocable tasks hold of slack too; slack in
        # hundredths of a cpu (the running sum's float noise goes).
        return hpb.ClusterCapacityResponse(
            cluster=self.hm.cluster, physical=res_msg(physical),
            allocated=res_msg(allocated._replace(cpu=allocated.cpu + lent)),
            slack=rpb.Resources(cpu=math.floor(slack * 100 + 1e-6) / 100),
            largestHost=res_msg(largest), hosts=hosts)

    async def WaitForEvents(self, request: hpb.WaitForEventsRequest) -> Any:
        # One shard (shard, purgeOffset) is a cursor of its own.
        cursors = [(c.shard, c.purgeOffset, c.after) for c in request.cursors] or [
            (request.shard, request.purgeOffset, request.purgeOffset)]
        if request.incarnation != self.hm.incarnation:
            # An offset of an earlier incarnation counts events this one never had.
            cursors = [(shard, 0, 0) for shard, _, _ in cursors]
        many = await self.hm.events.wait_many(cursors, request.limit or 1000,
                                              (request.timeout or 0) / 1000)
        return hpb.WaitForEventsResponse(
            events=[_event(offset, update, shard) for shard, offset, update in many],
            incarnation=self.hm.incarnation)

    async def ReconcileTasks(self, request: hpb.ReconcileTasksRequest) -> Any:
        if request.epoch:
            self.hm.fence(request.shard, request.epoch, "")
        reply = hpb.ReconcileTasksResponse()
        for mid in request.mesosTaskIds:
            update = self.hm.backend.known(mid)
            if update is None:
                reply.unknown.append(mid)
            else:
                reply.events.append(_event(0, update))
        return reply

    async def ReadSandboxFile(self, request: hpb.ReadSandboxFileRequest) -> Any:
        update = self.hm.backend.known(request.mesosTaskId)
        if update is None:
            raise NotFound(f"task run {request.mesosTaskId} is unknown to cluster "
                           f"{self.hm.cluster}")
        data, size, paths = await self.hm.backend.read_sandbox_file(
            request.mesosTaskId, request.path, request.offset, request.length)
        return hpb.ReadSandboxFileResponse(data=data, size=size, hostname=update.hostname,
                                           paths=paths,
                                           sandbox=self.hm.backend.sandbox(request.mesosTaskId),
                                           filesAddress=self.hm.files_address)


class HostHandler:
    """peloton.api.v0.host.svc.HostService"""

    def __init__(self, hm: Hostmgr) -> None:
        self.hm = hm

    async def QueryHosts(self, request: host_svc_pb2.QueryHostsRequest) -> Any:
        wanted = set(request.host_states)
        reply = host_svc_pb2.QueryHostsResponse()
        states = [m for m, s in HOST_STATES.items() if s in wanted]
        if wanted and not states:  # only states no host is ever in
            return reply
        for view in self.hm.pool.hosts(states):
            state = HOST_STATES[view.maintenance]
            c, a = view.spec.capacity, view.allocated
            reply.host_infos.add(hostname=view.spec.hostname, ip="127.0.0.1", state=state,
                                cluster=view.spec.cluster, cpu=c.cpu, memMb=c.memory,
                                diskMb=c.disk, gpu=c.gpu, cpuAllocated=a.cpu,
                                memMbAllocated=a.memory, diskMbAllocated=a.disk,
                                gpuAllocated=a.gpu, tasks=view.tasks,
                                labels=[peloton_pb2.Label(key=k, value=v) for k, v in
                                        sorted(view.spec.attributes.items())],
                                limitsEnforced=self.hm.backend.enforced(),
                                current_pool=self.hm.host_pools.pool_of(view.spec.hostname),
                                desired_pool=self.hm.host_pools.pool_of(view.spec.hostname))
        return reply

    # -- host pools ------------------------------------------------------------
    async def ListHostPools(self, request: host_svc_pb2.ListHostPoolsRequest) -> Any:
        return host_svc_pb2.ListHostPoolsResponse(pools=[
            host_pb2.HostPoolInfo(name=name, hosts=hosts)
            for name, hosts in self.hm.host_pools.pools().items()])

    async def CreateHostPool(self, request: host_svc_pb2.CreateHostPoolRequest) -> Any:
        self.hm.host_pools.create(request.name)
        await self.hm.save_pools([])
        return host_svc_pb2.CreateHostPoolResponse()

    async def DeleteHostPool(self, request: host_svc_pb2.DeleteHostPoolRequest) -> Any:
        moved = self.hm.host_pools.delete(request.name)
        await self.hm.save_pools(moved)
        return host_svc_pb2.DeleteHostPoolResponse()

    async def ChangeHostPool(self, request: host_svc_pb2.ChangeHostPoolRequest) -> Any:
        self.hm.host_pools.change(request.hostname, request.sourcePool,
                                  request.destinationPool)
        await self.hm.save_pools([request.hostname])
        return host_svc_pb2.ChangeHostPoolResponse()

    async def MoveHosts(self, request: host_svc_pb2.MoveHostsRequest) -> Any:
        """Move hosts between two pools, the least busy first."""
        order = [v.spec.hostname for v in sorted(self.hm.pool.hosts(),
                                                 key=lambda v: (v.tasks, v.spec.hostname))]
        moved = self.hm.host_pools.move(request.sourcePool, request.srcPoolDesiredHosts,
                                        request.destinationPool, request.destPoolDesiredHosts,
                                        order)
        await self.hm.save_pools(moved)
        return host_svc_pb2.MoveHostsResponse()

    @staticmethod
    def _hostname(request: Any) -> str:
        names = [request.hostname] if request.hostname else list(request.hostnames)
        if len(names) != 1 or not names[0]:
            raise InvalidArgument("name one host (hostname)", field="hostname")
        return str(names[0])

    def _view(self, hostname: str) -> Any:
        view = self.hm.pool.host(hostname)
        if view is None:
            raise NotFound(f"no host {hostname!r} in cluster {self.hm.cluster}",
                           field="hostname")
        return view

    async def StartMaintenance(self, request: host_svc_pb2.StartMaintenanceRequest) -> Any:
        """The host takes nothing new and its runs move off: each jobmgr
        restarts its services' instances there within their SLA and
        preempts its batch tasks there (they run again elsewhere); once
        nothing runs on it, it is DOWN."""
        hostname = self._hostname(request)
        if self._view(hostname).maintenance == UP:
            await self.hm.set_maintenance(hostname, DRAINING)
            await self.hm.drained()
        return host_svc_pb2.StartMaintenanceResponse(hostname=hostname)

    async def CompleteMaintenance(self, request: host_svc_pb2.CompleteMaintenanceRequest
                                  ) -> Any:
        hostname = self._hostname(request)
        view = self._view(hostname)
        if view.maintenance == DRAINING:
            raise FailedPrecondition(f"host {hostname} is still draining ({view.tasks} runs "
                                     "on it); it can come back once it is DOWN",
                                     field="hostname")
        if view.maintenance == UP:
            raise FailedPrecondition(f"host {hostname} is not in maintenance",
                                     field="hostname")
        await self.hm.set_maintenance(hostname, UP)
        return host_svc_pb2.CompleteMaintenanceResponse(hostname=hostname)


async def heartbeat_loop(config: ClusterConfig, member: cpb.Member) -> None:
    client = ServiceClient(config.resmgr_addresses, cluster_grpc.ClusterServiceStub,
                           deadline=HEARTBEAT_TIMEOUT)
    request = cpb.HeartbeatRequest(member=member)
    while True:
        try:
            await client.call("Heartbeat", request, timeout=HEARTBEAT_TIMEOUT)
        except PelotonError as error:
            log.info("heartbeat: %s", error)
        await trio.sleep(HEARTBEAT_PERIOD)


async def serve(config: ClusterConfig, name: str, *,
                task_status: trio.TaskStatus[tuple[str, int]] = trio.TASK_STATUS_IGNORED) -> None:
    """Run one hostmgr shard until cancelled."""
    me = config.get(name)
    backend = make_backend(me, config.data_dir)
    cluster = str(me.options.get("cluster", "local"))
    hm = Hostmgr(backend, cluster)
    hm.load_maintenance(config.data_dir / name / "maintenance.json"
                        if backend.sandboxes() is not None else None)
    hm.load_pools(config.data_dir / name / "host_pools.json"
                  if backend.sandboxes() is not None else None)
    host, port = me.grpc.rsplit(":", 1)
    async with trio.open_nursery() as nursery:
        await nursery.start(backend.run, hm.report)
        hm.adopt(backend.adopted())
        hm.announce_ended(backend.found_ended())
        address = await nursery.start(partial(
            serve_grpc, max_message_bytes=config.max_message_bytes,
                security=config.security), [
            (hostmgrsvc_grpc.InternalHostServiceBase, InternalHandler(hm)),
            (host_svc_grpc.HostServiceBase, HostHandler(hm)),
        ], host, int(port))
        files, sandboxes = me.options.get("files"), backend.sandboxes()
        if files and sandboxes is not None:
            files_host, files_port = files.rsplit(":", 1)
            bound = await nursery.start(serve_files, sandboxes, files_host, int(files_port))
            hm.files_address = f"{files_host}:{bound[1]}"
        nursery.start_soon(hm.expire_loop)
        nursery.start_soon(heartbeat_loop, config, cpb.Member(
            id=name, kind="hostmgr", address=me.grpc, cluster=cluster))
        task_status.started(address)
