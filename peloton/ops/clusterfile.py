"""The cluster file of a local cluster, and of a load test's: one builder.

``build`` lays out the daemons of a cluster on loopback ports (each
resmgr's gRPC and Raft address, the jobmgrs, the hostmgrs, then each
resmgr's ``/metrics``); the local cluster (``cluster_data``: one hostmgr of
local processes) and the load-test harness (sim hostmgr shards) give it
their host managers. ``prepare`` reads a directory's cluster file or writes
one on free ports.
"""

from __future__ import annotations

import dataclasses
import pathlib
from collections.abc import Mapping
from typing import Any

import yaml

from peloton import config as cluster_config
from peloton.config import ClusterConfig
from peloton.core.errors import InvalidArgument
from peloton.ops.layout import (
    LOOPBACK,
    PELOTON_HTTP_PORT,
    RAFT_SECRET,
    cluster_path,
    free_ports,
    port_is_free,
    write_raft_secret,
)


@dataclasses.dataclass(frozen=True, slots=True)
class Sizes:
    """How big a local cluster is: daemons per kind and the virtual hosts."""

    hosts: int = 3
    cpu: float = 4
    memory_mb: float = 8192
    disk_mb: float = 102400
    gpu: float = 0
    jobmgrs: int = 2
    placements: int = 2
    resmgrs: int = 3
    shards: int = 16
    # Host attributes (what HOST-kind constraints match): (key, value) on
    # every host, then (hostname, key, value) on one.
    attributes: tuple[tuple[str, str], ...] = ()
    host_attributes: tuple[tuple[str, str, str], ...] = ()
    # Clusters (one hostmgr shard each): ``clusters`` of local processes
    # (local, local1, ...; hosts <cluster>-<i>), then ``sim_clusters``
    # simulated ones (sim, sim1, ...), each of ``hosts`` hosts of this shape.
    clusters: int = 1
    sim_clusters: int = 0
    # Local runs as users of their own, each in a sandbox only it can read.
    isolate_tasks: bool = False

    def check(self) -> None:
        """Raises InvalidArgument naming the flag that is out of range."""
        for name in ("hosts", "jobmgrs", "placements", "resmgrs"):
            if getattr(self, name) < 1:
                raise InvalidArgument(f"must be at least 1, got {getattr(self, name)}",
                                      field=f"--{name}")
        for name in ("cpu", "memory_mb", "disk_mb"):
            if not getattr(self, name) > 0:
                raise InvalidArgument(f"must be positive, got {getattr(self, name)}",
                                      field=f"--{name.replace('_', '-')}")
        if self.gpu < 0:
            raise InvalidArgument(f"must not be negative, got {self.gpu}", field="--gpu")
        if not 1 <= self.clusters <= MAX_CLUSTERS:
            raise InvalidArgument(f"must be in 1..{MAX_CLUSTERS}, got {self.clusters}",
                                  field="--clusters")
        if not 0 <= self.sim_clusters <= MAX_CLUSTERS:
            raise InvalidArgument(f"must be in 0..{MAX_CLUSTERS}, got {self.sim_clusters}",
                                  field="--sim-clusters")
        if not 1 <= self.shards <= 4096:
            raise InvalidArgument(f"must be in 1..4096, got {self.shards}", field="--shards")
        hostnames = {f"{_cluster_name('local', k)}-{i}" for k in range(self.clusters)
                     for i in range(self.hosts)}
        for host, _, _ in self.host_attributes:
            if host not in hostnames:
                raise InvalidArgument(f"no host {host!r}; hosts are local-0..local-"
                                      f"{self.hosts - 1}", field="--host-attribute")

    def hostmgr_options(self, cluster: str = "local") -> dict[str, Any]:
        """A local hostmgr entry's host options (the attributes of its own hosts)."""
        options: dict[str, Any] = {"hosts": self.hosts, "cpu": self.cpu,
                                   "memory_mb": self.memory_mb, "disk_mb": self.disk_mb,
                                   "gpu": self.gpu}
        if self.isolate_tasks:
            options["task_users"] = "isolated"
        if self.attributes:
            options["attributes"] = dict(self.attributes)
        if self.host_attributes:
            per_host: dict[str, dict[str, str]] = {}
            for host, key, value in self.host_attributes:
                if host.rpartition("-")[0] == cluster:
                    per_host.setdefault(host, {})[key] = value
            if per_host:
                options["host_attributes"] = per_host
        return options

    @property
    def ports_needed(self) -> int:
        return ports_needed(self.resmgrs, self.jobmgrs, self.clusters + self.sim_clusters)

    def hostmgrs(self) -> list[dict[str, Any]]:
        """The hostmgr entries: one per cluster, local ones first."""
        out: list[dict[str, Any]] = []
        for k in range(self.clusters):
            entry = {"name": f"hostmgr-{k}", "cluster": _cluster_name("local", k),
                     "backend": "local", **self.hostmgr_options(_cluster_name("local", k))}
            if k:  # the hosts' dynamic ports must not overlap the first cluster's
                entry["first_port"] = LOCAL_FIRST_PORT + k * self.hosts * LOCAL_PORTS_PER_HOST
            out.append(entry)
        for k in range(self.sim_clusters):
            out.append({"name": f"hostmgr-{self.clusters + k}",
                        "cluster": _cluster_name("sim", k), "backend": "sim",
                        "hosts": self.hosts, "cpu": self.cpu, "memory_mb": self.memory_mb,
                        "disk_mb": self.disk_mb, "gpu_per_host": self.gpu,
                        "gpu_hosts": self.hosts if self.gpu else 0,
                        **({"attributes": dict(self.attributes)} if self.attributes else {})})
        return out


# Clusters a minicluster may have of each kind.
MAX_CLUSTERS = 8
# The local backend's dynamic ports: from 31000, 200 per host.
LOCAL_FIRST_PORT, LOCAL_PORTS_PER_HOST = 31000, 200


def _cluster_name(kind: str, k: int) -> str:
    return kind if k == 0 else f"{kind}{k}"


def ports_needed(resmgrs: int, jobmgrs: int, hostmgrs: int) -> int:
    """Loopback ports a cluster of that many daemons binds: gRPC and Raft per
    resmgr, gRPC per jobmgr and hostmgr, then /metrics per resmgr, HTTP/JSON
    per jobmgr and sandbox files per hostmgr."""
    return 3 * resmgrs + 2 * jobmgrs + 2 * hostmgrs


def build(directory: pathlib.Path, ports: list[int], *, resmgrs: int, jobmgrs: int,
          placements: int, num_shards: int, hostmgrs: list[dict[str, Any]],
          placement_options: dict[str, Any] | None = None) -> dict[str, Any]:
    """A cluster file's content: the daemons on the given loopback ports
    (``ports_needed`` of them, used in order: each resmgr's gRPC and Raft
    address, the jobmgrs, the hostmgrs, each resmgr's /metrics, each jobmgr's
    HTTP/JSON, then each hostmgr's sandbox files), SQLite
    storage and the Raft secret file in ``directory``. Each of ``hostmgrs``
    is a hostmgr entry without its ``grpc`` address (name first); every
    placement entry gets ``placement_options``."""
    needed = ports_needed(resmgrs, jobmgrs, len(hostmgrs))
    if len(ports) < needed:
        raise ValueError(f"need {needed} ports, got {len(ports)}")
    next_port = iter(ports)

    def address() -> str:
        return f"{LOOPBACK}:{next(next_port)}"

    resmgr = [{"name": f"resmgr-{i}", "grpc": address(), "raft": address()}
              for i in range(resmgrs)]
    jobmgr = [{"name": f"jobmgr-{i}", "grpc": address()} for i in range(jobmgrs)]
    hostmgr = [{"name": h["name"], "grpc": address(),
                **{k: v for k, v in h.items() if k != "name"}} for h in hostmgrs]
    for r in resmgr:
        r["metrics"] = address()
    for j in jobmgr:
        j["http"] = address()
    for h in hostmgr:
        h["files"] = address()
    return {
        "data_dir": str(directory),
        "num_shards": num_shards,
        "storage": {"kind": "sqlite", "path": "jobs.db"},
        "raft_password_file": RAFT_SECRET,
        "resmgr": resmgr,
        "jobmgr": jobmgr,
        "placement": [{"name": f"placement-{i}", **(placement_options or {})}
                      for i in range(placements)],
        "hostmgr": hostmgr,
    }


def cluster_data(directory: pathlib.Path, sizes: Sizes, ports: list[int], *,
                 pelotons_port: bool = False) -> dict[str, Any]:
    """The local cluster's file for ``sizes`` on the given loopback ports
    (``sizes.ports_needed`` of them): one hostmgr of local processes. With
    ``pelotons_port`` (the user's own cluster, not a test's), the first
    jobmgr serves HTTP/JSON on Peloton's port, 5292, when it is free
    (Peloton's documentation calls it there)."""
    data = build(directory, ports, resmgrs=sizes.resmgrs, jobmgrs=sizes.jobmgrs,
                 placements=sizes.placements, num_shards=sizes.shards,
                 hostmgrs=sizes.hostmgrs())
    if pelotons_port and data["jobmgr"] and port_is_free(PELOTON_HTTP_PORT):
        data["jobmgr"][0]["http"] = f"{LOOPBACK}:{PELOTON_HTTP_PORT}"
    return data


HEADER = """\
# A local Peloton cluster, written by `peloton minicluster up`.
# `peloton minicluster up` reuses this file (same ports, same data) until
# `peloton minicluster down --clean` removes the directory.
"""


def sizes_of(config: ClusterConfig) -> Sizes:
    """The sizes a cluster file describes (the first hostmgr's hosts)."""
    hostmgrs = config.of_kind("hostmgr")
    opts = hostmgrs[0].options if hostmgrs else {}
    defaults = Sizes()
    kinds = [h.options.get("backend", "local") for h in hostmgrs]
    return Sizes(
        clusters=max(1, kinds.count("local")), sim_clusters=kinds.count("sim"),
        isolate_tasks=opts.get("task_users") == "isolated",
        hosts=int(opts.get("hosts", defaults.hosts)), cpu=float(opts.get("cpu", defaults.cpu)),
        memory_mb=float(opts.get("memory_mb", defaults.memory_mb)),
        disk_mb=float(opts.get("disk_mb", defaults.disk_mb)),
        gpu=float(opts.get("gpu", defaults.gpu)),
        jobmgrs=len(config.of_kind("jobmgr")), placements=len(config.of_kind("placement")),
        resmgrs=len(config.of_kind("resmgr")), shards=config.num_shards,
        attributes=tuple(sorted((str(k), str(v))
                                for k, v in (opts.get("attributes") or {}).items())),
        host_attributes=tuple(sorted(
            (str(h), str(k), str(v))
            for h, attrs in (opts.get("host_attributes") or {}).items()
            for k, v in (attrs or {}).items())))


def prepare(directory: pathlib.Path, sizes: Sizes | None = None, *,
            extra: Mapping[str, Any] | None = None,
            pelotons_port: bool = False) -> tuple[ClusterConfig, bool]:
    """The cluster file of ``directory``: read if it exists, else written for
    ``sizes`` on free ports, with the top-level keys of ``extra`` added (e.g.
    ``{"preemption": {"sustain_s": 1}}``). Returns (config, whether it was
    written now)."""
    path = cluster_path(directory)
    if path.exists():
        _add_raft_secret(path)
        return cluster_config.load(path), False
    sizes = sizes or Sizes()
    sizes.check()
    directory.mkdir(parents=True, exist_ok=True)
    data = cluster_data(directory, sizes, free_ports(sizes.ports_needed),
                        pelotons_port=pelotons_port) | dict(extra or {})
    cluster_config.parse(data, base=directory)  # a bad extra key fails here, first
    write_raft_secret(directory)
    write_cluster_file(path, data)
    return cluster_config.load(path), True


def write_cluster_file(path: pathlib.Path, data: Mapping[str, Any]) -> None:
    tmp = path.with_suffix(".yaml.tmp")
    tmp.write_text(HEADER + yaml.safe_dump(dict(data), sort_keys=False,
                                            default_flow_style=None))
    tmp.replace(path)


def _add_raft_secret(path: pathlib.Path) -> None:
    """Give a cluster file this module wrote before Raft secrets existed one
    (a file of the user's own is left as it is: its error names the key)."""
    text = path.read_text()
    if not text.startswith(HEADER):
        return
    data = yaml.safe_load(text)
    if not isinstance(data, dict) or "raft_password" in data or "raft_password_file" in data:
        return
    data = {"raft_password_file": write_raft_secret(path.parent), **data}
    write_cluster_file(path, data)
