"""Load-test scenarios: a YAML file that says which cluster to start and what to run on it.

::

    name: smoke                      # defaults to the file's stem
    description: CI-sized            # optional, free text
    timeout_s: 110                   # from the first submission until every task is terminal
    concurrency: 16                  # job creates in flight at once
    seed: 0                          # durations drawn from ranges, sim failures
    cluster:
      resmgrs: 3                     # the Raft group
      jobmgrs: 2
      placements: 2
      hostmgr_shards: 1              # hostmgr-K runs sim cluster simK
      shards: 16                     # jobmgr shards
      hosts: 50                      # in total, split as evenly as possible across hostmgr shards
      host_shape: {cpu: 4, memory_mb: 8192, disk_mb: 102400}
      gpu_hosts: 0                   # the last hosts of each shard carry gpu_per_host GPUs
      gpu_per_host: 4
      failure_rate: 0.0              # a run that would succeed fails with this probability
      ready_timeout_s: 120           # default 90 s + 10 ms per host
      placement_bulk_tasks_per_s: 2250   # each placement worker's bulk pace (default: none)
    pools:                           # created in order; default: one pool /loadtest = the cluster
      - path: /loadtest
        cpu: cluster                 # reservation = limit = the cluster's capacity
        memory_mb: 90%               # percent of the capacity
        disk_mb: {reservation: 0, limit: cluster}
        gpu: 0                       # a number: reservation = limit = it
    workload:
      - name: bulk
        jobs: 20
        instances: 20
        type: batch                  # or service: runs until the run ends, then stopped
        max_unavailable: 5%          # service: sla.maximumUnavailableInstances (or a number)
        update: {after_s: 30, batch_size: 100}   # service: a rolling update once all run
        task: {cpu: 1, memory_mb: 128, disk_mb: 128, gpu: 0, duration_s: [1, 2]}
        arrival: {mode: burst}       # or {mode: rate, jobs_per_s: 5}
        pool: /loadtest              # default: the first pool
        start_s: 0                   # when this group starts, after the first
        max_failures: 3              # the jobs' restartPolicy.maxFailures
    probes:                          # optional: small jobs submitted during the load
      every_s: 2
      instances: 10
      task: {cpu: 0.1, memory_mb: 32, duration_s: 1}
      pool: /loadtest
      max: 100                       # at most this many probe jobs (default unbounded)
    drain:                           # optional: host maintenance during the load
      after_s: 60                    # from the first submission
      hosts: 10%                     # of the cluster's hosts (or a number), spread evenly

``duration_s`` is a number of seconds or ``[low, high]``: each job draws its
own duration uniformly from the range (every instance of a job lasts as
long; the ``sim`` backend runs ``sleep N``). Every error is an
:class:`peloton.core.errors.InvalidArgument` naming the offending field
(``workload[0].task.cpu``). Parsing is pure: :func:`load` is the only
function here that reads a file.
"""

from __future__ import annotations

import dataclasses
import math
import pathlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from peloton.core.errors import InvalidArgument
from peloton.spec.respool import split_respool_path

__all__ = [
    "SCENARIO_DIR",
    "Arrival",
    "ClusterSpec",
    "HostShape",
    "PoolSpec",
    "DrainSpec",
    "ProbeSpec",
    "Quantity",
    "Scenario",
    "TaskShape",
    "UpdateSpec",
    "WorkloadGroup",
    "builtin_names",
    "load",
    "parse",
    "resolve",
]

SCENARIO_DIR = pathlib.Path(__file__).resolve().parent / "scenarios"
POOL_KINDS = ("cpu", "memory_mb", "disk_mb", "gpu")
"""Scenario names of the pool resource kinds; Peloton calls them cpu, memory, disk, gpu."""
JOB_TYPES = ("batch", "service")
ARRIVAL_MODES = ("burst", "rate")


# --------------------------------------------------------------------------- the model


@dataclass(frozen=True, slots=True)
class HostShape:
    cpu: float = 32.0
    memory_mb: float = 128 * 1024.0
    disk_mb: float = 1024 * 1024.0


@dataclass(frozen=True, slots=True)
class ClusterSpec:
    resmgrs: int = 3
    jobmgrs: int = 2
    placements: int = 2
    hostmgr_shards: int = 1
    shards: int = 16
    hosts: int = 100
    host_shape: HostShape = field(default_factory=HostShape)
    gpu_hosts: int = 0
    gpu_per_host: float = 4.0
    failure_rate: float = 0.0
    ready_timeout_s: float | None = None
    # Each placement worker's bulk_tasks_per_s (None: no limit).
    placement_bulk_tasks_per_s: float | None = None

    def hosts_of_shard(self, k: int) -> int:
        """Hosts of hostmgr shard ``k``: the first ``hosts % K`` shards get one more."""
        base, extra = divmod(self.hosts, self.hostmgr_shards)
        return base + (1 if k < extra else 0)

    def gpu_hosts_of_shard(self, k: int) -> int:
        base, extra = divmod(self.gpu_hosts, self.hostmgr_shards)
        return min(self.hosts_of_shard(k), base + (1 if k < extra else 0))

    @property
    def ready_timeout(self) -> float:
        """How long starting the cluster may take (more hosts, longer)."""
        if self.ready_timeout_s is not None:
            return self.ready_timeout_s
        return 90.0 + 0.01 * self.hosts

    def capacity(self) -> dict[str, float]:
        """The whole cluster, per pool kind."""
        s = self.host_shape
        gpus = sum(self.gpu_hosts_of_shard(k) for k in range(self.hostmgr_shards))
        return {"cpu": s.cpu * self.hosts, "memory_mb": s.memory_mb * self.hosts,
                "disk_mb": s.disk_mb * self.hosts, "gpu": self.gpu_per_host * gpus}


@dataclass(frozen=True, slots=True)
class Quantity:
    """A pool amount: ``cluster``, ``N%`` (of the cluster's capacity) or a number."""

    value: float
    relative: bool = False  # value is a fraction of the capacity

    def resolve(self, capacity: float) -> float:
        return self.value * capacity if self.relative else self.value


@dataclass(frozen=True, slots=True)
class PoolSpec:
    path: str
    reservation: dict[str, Quantity]
    limit: dict[str, Quantity]

    def resources(self, capacity: Mapping[str, float]) -> dict[str, tuple[float, float]]:
        """kind -> (reservation, limit), resolved against the cluster's capacity."""
        return {kind: (self.reservation[kind].resolve(capacity[kind]),
                       self.limit[kind].resolve(capacity[kind]))
                for kind in POOL_KINDS if kind in self.limit}


@dataclass(frozen=True, slots=True)
class TaskShape:
    cpu: float = 1.0
    memory_mb: float = 128.0
    disk_mb: float = 128.0
    gpu: float = 0.0
    duration_s: tuple[float, float] = (1.0, 1.0)  # (low, high); equal for a fixed duration


@dataclass(frozen=True, slots=True)
class Arrival:
    mode: str = "burst"
    jobs_per_s: float = 0.0


@dataclass(frozen=True, slots=True)
class UpdateSpec:
    """A rolling update of a service group's jobs to a new config."""

    after_s: float = 0.0  # from the first submission, once every instance runs
    batch_size: int = 0


@dataclass(frozen=True, slots=True)
class WorkloadGroup:
    name: str
    jobs: int
    instances: int
    task: TaskShape
    type: str = "batch"
    arrival: Arrival = field(default_factory=Arrival)
    pool: str = ""
    start_s: float = 0.0
    max_failures: int = 0
    # Services: sla.maximumUnavailableInstances of each job, and an update.
    max_unavailable: int = 0
    update: UpdateSpec | None = None

    @property
    def tasks(self) -> int:
        return self.jobs * self.instances


@dataclass(frozen=True, slots=True)
class ProbeSpec:
    every_s: float
    instances: int = 10
    task: TaskShape = field(default_factory=lambda: TaskShape(cpu=0.1, memory_mb=32.0,
                                                              disk_mb=32.0))
    pool: str = ""
    max: int | None = None


@dataclass(frozen=True, slots=True)
class DrainSpec:
    """Hosts put into maintenance (StartMaintenance) during the load."""

    after_s: float
    hosts: int


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    cluster: ClusterSpec
    pools: tuple[PoolSpec, ...]
    workload: tuple[WorkloadGroup, ...]
    probes: ProbeSpec | None = None
    drain: DrainSpec | None = None
    timeout_s: float = 600.0
    concurrency: int = 16
    seed: int = 0
    description: str = ""

    @property
    def bulk_tasks(self) -> int:
        return sum(g.tasks for g in self.workload)

    @property
    def bulk_jobs(self) -> int:
        return sum(g.jobs for g in self.workload)


# --------------------------------------------------------------------------- parsing helpers


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidArgument(f"must be a mapping, got {value!r}", field=where)
    return value


def _known(data: Mapping[str, Any], known: tuple[str, ...], prefix: str) -> None:
    for key in data:
        if key not in known:
            raise InvalidArgument(f"unknown key; known keys are {', '.join(known)}",
                                  field=f"{prefix}{key}")


def _value(value: Any, where: str, *, minimum: float = 0.0, positive: bool = False,
           maximum: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidArgument(f"must be a number, got {value!r}", field=where)
    if positive and not value > 0:
        raise InvalidArgument(f"must be more than 0, got {value!r}", field=where)
    if value < minimum or value > maximum:
        bound = f"in {minimum:g}..{maximum:g}" if maximum < math.inf else f">= {minimum:g}"
        raise InvalidArgument(f"must be {bound}, got {value!r}", field=where)
    return float(value)


def _number(data: Mapping[str, Any], key: str, default: float, where: str, *,
            minimum: float = 0.0, positive: bool = False, maximum: float = math.inf) -> float:
    """``data[key]`` (else ``default``) as a float; errors name ``where + key``."""
    return _value(data.get(key, default), where + key, minimum=minimum, positive=positive,
                  maximum=maximum)


def _integer(data: Mapping[str, Any], key: str, default: int, where: str, *,
             minimum: int = 0, maximum: int | None = None) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"must be an integer, got {value!r}", field=where + key)
    if value < minimum or (maximum is not None and value > maximum):
        bound = f"in {minimum}..{maximum}" if maximum is not None else f">= {minimum}"
        raise InvalidArgument(f"must be {bound}, got {value!r}", field=where + key)
    return value


_PERCENT = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*%\s*$")


def _quantity(value: Any, where: str) -> Quantity:
    if value == "cluster":
        return Quantity(1.0, relative=True)
    if isinstance(value, str):
        m = _PERCENT.match(value)
        if m:
            return Quantity(float(m.group(1)) / 100.0, relative=True)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) \
            or value < 0:
        raise InvalidArgument(f"must be 'cluster', a percentage such as '50%', or a "
                              f"non-negative number, got {value!r}", field=where)
    return Quantity(float(value))


# --------------------------------------------------------------------------- sections


def _cluster(data: Any) -> ClusterSpec:
    d = _mapping(data, "cluster")
    _known(d, ("resmgrs", "jobmgrs", "placements", "hostmgr_shards", "shards", "hosts",
               "host_shape", "gpu_hosts", "gpu_per_host", "failure_rate", "ready_timeout_s",
               "placement_bulk_tasks_per_s"),
           "cluster.")
    w = "cluster."
    shape_data = _mapping(d.get("host_shape"), "cluster.host_shape")
    _known(shape_data, ("cpu", "memory_mb", "disk_mb"), "cluster.host_shape.")
    default = HostShape()
    sw = "cluster.host_shape."
    shape = HostShape(cpu=_number(shape_data, "cpu", default.cpu, sw, positive=True),
                      memory_mb=_number(shape_data, "memory_mb", default.memory_mb, sw,
                                        positive=True),
                      disk_mb=_number(shape_data, "disk_mb", default.disk_mb, sw, positive=True))
    hostmgr_shards = _integer(d, "hostmgr_shards", 1, w, minimum=1)
    hosts = _integer(d, "hosts", 100, w, minimum=1)
    if hosts < hostmgr_shards:
        raise InvalidArgument(f"{hosts} hosts cannot fill {hostmgr_shards} hostmgr shards",
                              field="cluster.hosts")
    gpu_hosts = _integer(d, "gpu_hosts", 0, w, minimum=0, maximum=hosts)
    timeout = d.get("ready_timeout_s")
    pace = d.get("placement_bulk_tasks_per_s")
    return ClusterSpec(
        resmgrs=_integer(d, "resmgrs", 3, w, minimum=1),
        jobmgrs=_integer(d, "jobmgrs", 2, w, minimum=1),
        placements=_integer(d, "placements", 2, w, minimum=1),
        hostmgr_shards=hostmgr_shards,
        shards=_integer(d, "shards", 16, w, minimum=1, maximum=4096),
        hosts=hosts, host_shape=shape, gpu_hosts=gpu_hosts,
        gpu_per_host=_number(d, "gpu_per_host", 4.0, w),
        failure_rate=_number(d, "failure_rate", 0.0, w, maximum=1.0),
        ready_timeout_s=None if timeout is None else _number(d, "ready_timeout_s", 0, w,
                                                             positive=True),
        placement_bulk_tasks_per_s=None if pace is None else _number(
            d, "placement_bulk_tasks_per_s", 0, w, positive=True))


def _pool(data: Any, where: str) -> PoolSpec:
    d = _mapping(data, where)
    _known(d, ("path", *POOL_KINDS), f"{where}.")
    path = d.get("path")
    if not isinstance(path, str) or not path.startswith("/"):
        raise InvalidArgument(f"must be an absolute pool path such as /loadtest, got {path!r}",
                              field=f"{where}.path")
    try:
        parts = split_respool_path(path)
    except InvalidArgument as error:
        raise InvalidArgument(error.message, field=f"{where}.path")
    if not parts:
        raise InvalidArgument("the root pool '/' exists already; name a pool under it",
                              field=f"{where}.path")
    reservation: dict[str, Quantity] = {}
    limit: dict[str, Quantity] = {}
    for kind in POOL_KINDS:
        if kind not in d:
            continue
        value = d[kind]
        kw = f"{where}.{kind}"
        if isinstance(value, Mapping):
            _known(value, ("reservation", "limit"), f"{kw}.")
            if "limit" not in value:
                raise InvalidArgument("required", field=f"{kw}.limit")
            limit[kind] = _quantity(value["limit"], f"{kw}.limit")
            reservation[kind] = _quantity(value.get("reservation", 0), f"{kw}.reservation")
            if (reservation[kind].relative == limit[kind].relative
                    and reservation[kind].value > limit[kind].value):
                raise InvalidArgument("reservation is more than the limit",
                                      field=f"{kw}.reservation")
        else:
            limit[kind] = reservation[kind] = _quantity(value, kw)
    return PoolSpec("/" + "/".join(parts), reservation, limit)


def _duration(value: Any, where: str) -> tuple[float, float]:
    if isinstance(value, list):
        if len(value) != 2:
            raise InvalidArgument(f"must be seconds or [low, high], got {value!r}", field=where)
        low = _value(value[0], where + "[0]")
        high = _value(value[1], where + "[1]")
        if low > high:
            raise InvalidArgument(f"low {low:g} is more than high {high:g}", field=where)
        return low, high
    seconds = _value(value, where)
    return seconds, seconds


def _task(data: Any, where: str, default: TaskShape) -> TaskShape:
    d = _mapping(data, where)
    _known(d, ("cpu", "memory_mb", "disk_mb", "gpu", "duration_s"), f"{where}.")
    w = f"{where}."
    duration = (_duration(d["duration_s"], f"{where}.duration_s") if "duration_s" in d
                else default.duration_s)
    return TaskShape(cpu=_number(d, "cpu", default.cpu, w, positive=True),
                     memory_mb=_number(d, "memory_mb", default.memory_mb, w),
                     disk_mb=_number(d, "disk_mb", default.disk_mb, w),
                     gpu=_number(d, "gpu", default.gpu, w),
                     duration_s=duration)


def _arrival(data: Any, where: str) -> Arrival:
    d = _mapping(data, where)
    _known(d, ("mode", "jobs_per_s"), f"{where}.")
    mode = d.get("mode", "burst")
    if mode not in ARRIVAL_MODES:
        raise InvalidArgument(f"must be one of {', '.join(ARRIVAL_MODES)}, got {mode!r}",
                              field=f"{where}.mode")
    if mode == "rate":
        if "jobs_per_s" not in d:
            raise InvalidArgument("required when mode is rate", field=f"{where}.jobs_per_s")
        return Arrival("rate", _number(d, "jobs_per_s", 0, f"{where}.", positive=True))
    if "jobs_per_s" in d:
        raise InvalidArgument("only for mode: rate", field=f"{where}.jobs_per_s")
    return Arrival("burst")


def _group(data: Any, where: str) -> WorkloadGroup:
    d = _mapping(data, where)
    _known(d, ("name", "jobs", "instances", "task", "type", "arrival", "pool", "start_s",
               "max_failures", "max_unavailable", "update"), f"{where}.")
    name = d.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise InvalidArgument(f"must be a name of letters, digits, '_', '.', '-', got {name!r}",
                              field=f"{where}.name")
    for key in ("jobs", "instances"):
        if key not in d:
            raise InvalidArgument("required", field=f"{where}.{key}")
    kind = d.get("type", "batch")
    if kind not in JOB_TYPES:
        raise InvalidArgument(f"must be one of {', '.join(JOB_TYPES)}, got {kind!r}",
                              field=f"{where}.type")
    pool = d.get("pool", "")
    if not isinstance(pool, str):
        raise InvalidArgument(f"must be a pool path, got {pool!r}", field=f"{where}.pool")
    w = f"{where}."
    instances = _integer(d, "instances", 1, w, minimum=1, maximum=100_000)
    if kind != "service":
        for key in ("max_unavailable", "update"):
            if key in d:
                raise InvalidArgument("only for type: service", field=f"{w}{key}")
    unavailable = d.get("max_unavailable", 0)
    if isinstance(unavailable, str) and unavailable.endswith("%"):
        try:
            number = float(unavailable[:-1])
        except ValueError:
            raise InvalidArgument(f"must be a number or a percentage, got {unavailable!r}",
                                  field=f"{w}max_unavailable")
        share = _value(number, f"{w}max_unavailable", positive=True, maximum=100.0)
        max_unavailable = max(1, math.floor(instances * share / 100))
    else:
        max_unavailable = _integer(d, "max_unavailable", 0, w, maximum=instances)
    update = None
    if "update" in d:
        u = _mapping(d["update"], f"{w}update")
        _known(u, ("after_s", "batch_size"), f"{w}update.")
        update = UpdateSpec(_number(u, "after_s", 0.0, f"{w}update."),
                            _integer(u, "batch_size", 0, f"{w}update.", maximum=instances))
    return WorkloadGroup(
        name=name, jobs=_integer(d, "jobs", 1, w, minimum=1), instances=instances,
        max_unavailable=max_unavailable, update=update,
        task=_task(d.get("task"), f"{where}.task", TaskShape()), type=kind,
        arrival=_arrival(d.get("arrival"), f"{where}.arrival"), pool=pool,
        start_s=_number(d, "start_s", 0.0, w), max_failures=_integer(d, "max_failures", 0, w,
                                                                     maximum=100))


def _probes(data: Any) -> ProbeSpec | None:
    if data is None:
        return None
    d = _mapping(data, "probes")
    _known(d, ("every_s", "instances", "task", "pool", "max"), "probes.")
    if "every_s" not in d:
        raise InvalidArgument("required", field="probes.every_s")
    pool = d.get("pool", "")
    if not isinstance(pool, str):
        raise InvalidArgument(f"must be a pool path, got {pool!r}", field="probes.pool")
    default = ProbeSpec(every_s=1.0)
    return ProbeSpec(every_s=_number(d, "every_s", 1.0, "probes.", positive=True),
                     instances=_integer(d, "instances", 10, "probes.", minimum=1,
                                        maximum=100_000),
                     task=_task(d.get("task"), "probes.task", default.task), pool=pool,
                     max=None if d.get("max") is None else _integer(d, "max", 0, "probes.",
                                                                    minimum=1))


def _drain(data: Any, hosts: int) -> DrainSpec | None:
    if data is None:
        return None
    d = _mapping(data, "drain")
    _known(d, ("after_s", "hosts"), "drain.")
    raw = d.get("hosts")
    if raw is None:
        raise InvalidArgument("required", field="drain.hosts")
    match = _PERCENT.match(raw) if isinstance(raw, str) else None
    if match is not None:
        count = math.floor(hosts * float(match.group(1)) / 100)
    elif isinstance(raw, int) and not isinstance(raw, bool):
        count = raw
    else:
        raise InvalidArgument(f"must be a number of hosts or a percentage, got {raw!r}",
                              field="drain.hosts")
    if not 1 <= count < hosts:
        raise InvalidArgument(f"drains {count} of {hosts} hosts; drain at least one and "
                              "leave one", field="drain.hosts")
    return DrainSpec(after_s=_number(d, "after_s", 0.0, "drain."), hosts=count)


def parse(data: Any, *, default_name: str = "") -> Scenario:
    """A :class:`Scenario` from parsed YAML; InvalidArgument names the bad field.

    Also checks what spans sections: pool paths are unique and each pool's
    parent is ``/`` or an earlier pool; workload and probe pools exist; a
    task fits on a host; workload names are unique.
    """
    if not isinstance(data, Mapping):
        raise InvalidArgument("a scenario must be a mapping", field="")
    _known(data, ("name", "description", "timeout_s", "concurrency", "seed", "cluster",
                  "pools", "workload", "probes", "drain"), "")
    name = data.get("name", default_name)
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise InvalidArgument(f"must be a name of letters, digits, '_', '.', '-', got {name!r}",
                              field="name")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise InvalidArgument("must be text", field="description")
    cluster = _cluster(data.get("cluster"))

    raw_pools = data.get("pools")
    if raw_pools is None:
        pools: tuple[PoolSpec, ...] = (_pool({"path": "/loadtest", **dict.fromkeys(
            ("cpu", "memory_mb", "disk_mb", "gpu"), "cluster")}, "pools[0]"),)
    else:
        if not isinstance(raw_pools, list) or not raw_pools:
            raise InvalidArgument("must be a non-empty list of pools", field="pools")
        pools = tuple(_pool(p, f"pools[{i}]") for i, p in enumerate(raw_pools))
    seen: set[str] = set()
    for i, pool in enumerate(pools):
        parent = pool.path.rpartition("/")[0] or "/"
        if pool.path in seen:
            raise InvalidArgument(f"pool {pool.path} is listed twice", field=f"pools[{i}].path")
        if parent != "/" and parent not in seen:
            raise InvalidArgument(f"the parent {parent} must be listed before {pool.path}",
                                  field=f"pools[{i}].path")
        seen.add(pool.path)
    parents = {p.path.rpartition("/")[0] for p in pools}
    leaves = [p.path for p in pools if p.path not in parents]

    raw_workload = data.get("workload")
    if not isinstance(raw_workload, list) or not raw_workload:
        raise InvalidArgument("must be a non-empty list of workload groups", field="workload")
    groups = []
    names: set[str] = set()
    for i, raw in enumerate(raw_workload):
        group = _group(raw, f"workload[{i}]")
        if group.name in names:
            raise InvalidArgument(f"workload name {group.name!r} is used twice",
                                  field=f"workload[{i}].name")
        names.add(group.name)
        leaf = group.pool or leaves[0]
        if leaf not in leaves:
            raise InvalidArgument(f"{leaf!r} is not a leaf pool of the scenario "
                                  f"({', '.join(leaves)})", field=f"workload[{i}].pool")
        _check_fits(group.task, cluster, f"workload[{i}].task")
        groups.append(dataclasses.replace(group, pool=leaf))
    probes = _probes(data.get("probes"))
    if probes is not None:
        leaf = probes.pool or leaves[0]
        if leaf not in leaves:
            raise InvalidArgument(f"{leaf!r} is not a leaf pool of the scenario "
                                  f"({', '.join(leaves)})", field="probes.pool")
        _check_fits(probes.task, cluster, "probes.task")
        probes = ProbeSpec(probes.every_s, probes.instances, probes.task, leaf, probes.max)
    return Scenario(
        name=name, cluster=cluster, pools=pools, workload=tuple(groups), probes=probes,
        drain=_drain(data.get("drain"), cluster.hosts),
        timeout_s=_number(data, "timeout_s", 600.0, "", positive=True),
        concurrency=_integer(data, "concurrency", 16, "", minimum=1, maximum=1024),
        seed=_integer(data, "seed", 0, ""), description=description)


def _check_fits(task: TaskShape, cluster: ClusterSpec, where: str) -> None:
    shape = cluster.host_shape
    for key, need, have in (("cpu", task.cpu, shape.cpu),
                            ("memory_mb", task.memory_mb, shape.memory_mb),
                            ("disk_mb", task.disk_mb, shape.disk_mb)):
        if need > have:
            raise InvalidArgument(f"{need:g} is more than a host has ({have:g}); the task "
                                  f"could never run", field=f"{where}.{key}")
    if task.gpu > 0 and (cluster.gpu_hosts == 0 or task.gpu > cluster.gpu_per_host):
        raise InvalidArgument(f"{task.gpu:g} GPUs: no host has that many "
                              f"({cluster.gpu_hosts} GPU hosts of {cluster.gpu_per_host:g})",
                              field=f"{where}.gpu")


# --------------------------------------------------------------------------- files


def builtin_names() -> list[str]:
    """The scenarios shipped in ``loadtest/scenarios/``."""
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.yaml"))


def resolve(name_or_path: str) -> pathlib.Path:
    """``loadtest/scenarios/NAME.yaml`` for a shipped scenario's name, else a path.

    InvalidArgument (field ``scenario``) when neither exists.
    """
    builtin = SCENARIO_DIR / f"{name_or_path}.yaml"
    if "/" not in name_or_path and builtin.is_file():
        return builtin
    path = pathlib.Path(name_or_path).expanduser()
    if path.is_file():
        return path
    raise InvalidArgument(f"no scenario {name_or_path!r}: not a file, and not one of the "
                          f"shipped scenarios ({', '.join(builtin_names())})", field="scenario")


def load(name_or_path: str) -> Scenario:
    """Read and parse a scenario by shipped name or path."""
    path = resolve(name_or_path)
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as error:
        raise InvalidArgument(f"cannot read {path}: {error.strerror}", field="scenario")
    except yaml.YAMLError as error:
        raise InvalidArgument(f"{path} is not valid YAML: {error}", field="scenario")
    return parse(data, default_name=path.stem)
