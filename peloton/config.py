"""The cluster file: one YAML file describes every daemon of a cluster.

::

    data_dir: /path/to/cluster        # logs, Raft journals, SQLite, sandboxes
    num_shards: 16                    # jobmgr shards; fixed at bootstrap
    storage: {kind: sqlite, path: jobs.db}     # relative to data_dir
    raft_password_file: raft.secret   # required (or raft_password: ...): the
                                      # Raft group's shared secret, mode 0600
    resmgr:                           # the Raft group (3 members)
      - {name: resmgr-0, grpc: 127.0.0.1:5394, raft: 127.0.0.1:7394,
         metrics: 127.0.0.1:9394}     # optional: Prometheus /metrics, loopback only
    jobmgr:                           # http (optional): Peloton's HTTP/JSON API
      - {name: jobmgr-0, grpc: 127.0.0.1:5392, http: 127.0.0.1:5292}
    placement:
      - {name: placement-0}
    hostmgr:
      - {name: hostmgr-0, grpc: 127.0.0.1:5391, cluster: local, backend: local,
         hosts: 3, cpu: 4, memory_mb: 8192, disk_mb: 102400, gpu: 0,
         files: 127.0.0.1:5051}   # optional: sandboxes over HTTP, loopback only
    preemption:                       # optional
      sustain_s: 10                   # seconds a pool stays over its entitlement
                                      # (or a gang waits) before tasks are preempted
    rpc:                              # optional
      max_message_bytes: 4194304      # the largest request a public API serves

Every daemon reads the whole file and picks its own entry by ``name``; the
rest tells it where its peers are. Errors name the offending key.

The Raft secret is required, on loopback too: pysyncobj unpickles what
reaches its port, and only the members' sealing (AES-GCM,
``peloton.raft.seal``: its tag checked before anything is unpickled) keeps
a stranger's bytes out. It comes from
``raft_password_file`` (relative to the cluster file; readable by its owner
only) or, inline, ``raft_password``; it is read only by the resmgr replicas
(``ClusterConfig.raft_secret``), so a CLI that cannot read it still works.
"""

from __future__ import annotations

import ipaddress
import math
import os
import pathlib
import stat
from dataclasses import dataclass, field
from typing import Any

import yaml

from peloton.core.errors import InvalidArgument
from peloton.core.security import Security, is_loopback, parse_security
from peloton.shard.partition import DEFAULT_NUM_SHARDS


@dataclass(frozen=True, slots=True)
class DaemonConfig:
    kind: str
    name: str
    grpc: str = ""
    raft: str = ""
    options: dict[str, Any] = field(default_factory=dict)


# The largest request a public API service reads, unless the cluster file's
# rpc.max_message_bytes says otherwise; gRPC's own servers default to the same.
DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class ClusterConfig:
    data_dir: pathlib.Path
    num_shards: int
    storage: dict[str, Any]
    daemons: tuple[DaemonConfig, ...]
    raft_password: str | None = None
    raft_password_file: pathlib.Path | None = None
    # preemption.sustain_s; None: resmgr's default (PREEMPTION_SUSTAIN_S).
    preemption_sustain_s: float | None = None
    # rpc.max_message_bytes: the largest request a public service reads.
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    # security: TLS, users and roles, the cluster secret (peloton.rpc.security).
    security: Security = field(default_factory=Security)

    def raft_secret(self) -> str:
        """The Raft group's shared secret; InvalidArgument naming the key
        when the file cannot be read, is open to others, or is too short."""
        if self.raft_password is not None:
            return self.raft_password
        path = self.raft_password_file
        assert path is not None  # parse requires one of the two
        try:
            with path.open() as f:
                mode = os.fstat(f.fileno()).st_mode
                secret = f.read().strip()
        except OSError as error:
            raise InvalidArgument(f"cannot read {path}: {error.strerror}",
                                  field="raft_password_file")
        if mode & 0o077:
            raise InvalidArgument(f"{path} has mode {stat.S_IMODE(mode):04o}: the Raft secret "
                                  f"must be readable by its owner only (chmod 600 {path})",
                                  field="raft_password_file")
        _check_secret(secret, f"the content of {path}", "raft_password_file")
        return secret

    def of_kind(self, kind: str) -> list[DaemonConfig]:
        return [d for d in self.daemons if d.kind == kind]

    def get(self, name: str) -> DaemonConfig:
        for d in self.daemons:
            if d.name == name:
                return d
        names = ", ".join(d.name for d in self.daemons)
        raise InvalidArgument(f"no daemon named {name!r} in the cluster file ({names})",
                              field="name")

    @property
    def resmgr_addresses(self) -> list[str]:
        return [d.grpc for d in self.of_kind("resmgr")]

    @property
    def jobmgr_addresses(self) -> list[str]:
        return [d.grpc for d in self.of_kind("jobmgr")]

    def raft_to_grpc(self) -> dict[str, str]:
        return {d.raft: d.grpc for d in self.of_kind("resmgr")}

    def storage_path(self) -> pathlib.Path:
        return self.data_dir / str(self.storage.get("path", "jobs.db"))


KINDS = ("resmgr", "jobmgr", "placement", "hostmgr")

# Membership: every daemon but resmgr heartbeats each HEARTBEAT_PERIOD
# seconds; a heartbeat is a Raft commit, which under a million-task load on
# two cores can take seconds, so it may take up to HEARTBEAT_TIMEOUT; a
# member not heard from for MEMBER_LEASE is gone (a jobmgr's shards move).
HEARTBEAT_PERIOD = 1.0
HEARTBEAT_TIMEOUT = 4.0
MEMBER_LEASE = 10.0
# The shortest Raft secret taken (what `minicluster up` writes has 43).
MIN_SECRET_CHARS = 16
_NEEDS = {"resmgr": ("grpc", "raft"), "jobmgr": ("grpc",), "placement": (), "hostmgr": ("grpc",)}
# Keys a daemon entry may have, where the kind has a fixed set (a hostmgr's
# are its backend's options).
_KEYS = {"resmgr": ("name", "grpc", "raft", "metrics"),
         "jobmgr": ("name", "grpc", "http", "capabilities"),
         "placement": ("name", "batch", "bulk_tasks_per_s")}
# Gangs a placement worker's dequeue asks for (its entry's ``batch``), and
# the most resmgr hands out in one dequeue.
PLACEMENT_BATCH, MAX_PLACEMENT_BATCH = 500, 1000


def _placement_options(entry: dict[str, Any], where: str) -> None:
    """A placement entry's ``batch`` (gangs a dequeue takes, 1..1000) and
    ``bulk_tasks_per_s`` (the most tasks of bulk work it places a second:
    a positive number; absent, no limit)."""
    batch = entry.get("batch", PLACEMENT_BATCH)
    if isinstance(batch, bool) or not isinstance(batch, int) or not (
            1 <= batch <= MAX_PLACEMENT_BATCH):
        raise InvalidArgument(f"must be a whole number in 1..{MAX_PLACEMENT_BATCH}, "
                              f"got {batch!r}", field=f"{where}.batch")
    if "bulk_tasks_per_s" in entry:
        rate = entry["bulk_tasks_per_s"]
        if (isinstance(rate, bool) or not isinstance(rate, int | float)
                or not math.isfinite(rate) or rate <= 0):
            raise InvalidArgument(f"must be a positive number of tasks a second, got {rate!r}",
                                  field=f"{where}.bulk_tasks_per_s")


def _address(value: Any, where: str) -> str:
    port = value.rpartition(":")[2] if isinstance(value, str) and ":" in value else ""
    if not (port.isascii() and port.isdigit() and int(port) <= 65535):
        raise InvalidArgument(f"expected host:port, got {value!r}", field=where)
    return value


def _loopback_address(value: Any, where: str,
                      why: str = "metrics are served on loopback only") -> str:
    address = _address(value, where)
    host = address.rpartition(":")[0].strip("[]")
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise InvalidArgument(f"must be a loopback address (127.0.0.1:PORT), got {value!r}: "
                              f"{why}", field=where)
    return address


def _check_secret(secret: str, what: str, where: str) -> None:
    if len(secret) < MIN_SECRET_CHARS:
        raise InvalidArgument(f"{what} is {len(secret)} characters; a Raft secret needs at "
                              f"least {MIN_SECRET_CHARS} (`peloton minicluster up` writes one, "
                              "or: python -c 'import secrets; print(secrets.token_urlsafe())')",
                              field=where)


def _raft_secret(data: dict[str, Any],
                 base: pathlib.Path | None) -> tuple[str | None, pathlib.Path | None]:
    inline, path = data.get("raft_password"), data.get("raft_password_file")
    if inline is None and path is None:
        raise InvalidArgument("required: the Raft group's shared secret (or raft_password "
                              "inline); pysyncobj runs what reaches its port unless every "
                              "message is authenticated with it", field="raft_password_file")
    if inline is not None and path is not None:
        raise InvalidArgument("give raft_password or raft_password_file, not both",
                              field="raft_password")
    if inline is not None:
        if not isinstance(inline, str):
            raise InvalidArgument(f"must be a string, got {type(inline).__name__}",
                                  field="raft_password")
        _check_secret(inline, "the password", "raft_password")
        return inline, None
    if not isinstance(path, str) or not path:
        raise InvalidArgument(f"must be a path, got {path!r}", field="raft_password_file")
    resolved = pathlib.Path(path)
    if not resolved.is_absolute() and base is not None:
        resolved = base / resolved
    return None, resolved


def parse(data: Any, *, base: pathlib.Path | None = None) -> ClusterConfig:
    if not isinstance(data, dict):
        raise InvalidArgument("the cluster file must be a mapping", field="")
    known = {"data_dir", "num_shards", "storage", "raft_password", "raft_password_file",
             "preemption", "rpc", "security", *KINDS}
    for key in data:
        if key not in known:
            raise InvalidArgument(f"unknown key; known keys are {', '.join(sorted(known))}",
                                  field=str(key))
    if "data_dir" not in data:
        raise InvalidArgument("required", field="data_dir")
    if not isinstance(data["data_dir"], str) or not data["data_dir"]:
        raise InvalidArgument(f"must be a path, got {data['data_dir']!r}", field="data_dir")
    data_dir = pathlib.Path(data["data_dir"])
    if not data_dir.is_absolute() and base is not None:
        data_dir = base / data_dir
    num_shards = data.get("num_shards", DEFAULT_NUM_SHARDS)
    if (not isinstance(num_shards, int) or isinstance(num_shards, bool)
            or not 1 <= num_shards <= 4096):
        raise InvalidArgument(f"must be an integer in 1..4096, got {num_shards!r}",
                              field="num_shards")
    daemons = []
    names: set[str] = set()
    for kind in KINDS:
        entries = data.get(kind) or []
        if not isinstance(entries, list):
            raise InvalidArgument("must be a list of daemons", field=kind)
        for i, entry in enumerate(entries):
            where = f"{kind}[{i}]"
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                raise InvalidArgument("each daemon needs a name", field=where)
            if entry["name"] in names:
                raise InvalidArgument(f"duplicate daemon name {entry['name']!r}",
                                      field=f"{where}.name")
            names.add(entry["name"])
            for need in _NEEDS[kind]:
                if need not in entry:
                    raise InvalidArgument("required", field=f"{where}.{need}")
            allowed = _KEYS.get(kind)
            if allowed is not None:
                for key in entry:
                    if key not in allowed:
                        raise InvalidArgument(f"unknown key; a {kind} entry has "
                                              f"{', '.join(allowed)}", field=f"{where}.{key}")
            if "metrics" in entry:
                _loopback_address(entry["metrics"], f"{where}.metrics")
            if kind == "placement":
                _placement_options(entry, where)
            if "http" in entry:
                _address(entry["http"], f"{where}.http")
            if kind == "hostmgr" and "files" in entry:
                _loopback_address(entry["files"], f"{where}.files",
                                  "sandbox files are served on loopback only")
            grpc = _address(entry["grpc"], f"{where}.grpc") if "grpc" in entry else ""
            raft = _address(entry["raft"], f"{where}.raft") if "raft" in entry else ""
            options = {k: v for k, v in entry.items() if k not in ("name", "grpc", "raft")}
            daemons.append(DaemonConfig(kind, entry["name"], grpc, raft, options))
    if not any(d.kind == "resmgr" for d in daemons):
        raise InvalidArgument("a cluster needs at least one resmgr", field="resmgr")
    storage = data.get("storage") or {"kind": "sqlite"}
    if not isinstance(storage, dict):
        raise InvalidArgument(f"must be a mapping, got {storage!r}", field="storage")
    if storage.get("kind", "sqlite") != "sqlite":
        raise InvalidArgument(f"unknown storage kind {storage.get('kind')!r}; known: sqlite",
                              field="storage.kind")
    password, password_file = _raft_secret(data, base)
    security = parse_security(data.get("security"), base or pathlib.Path.cwd())
    if not security.complete:
        # Off loopback, anyone who reaches a port could call it.
        for d in daemons:
            for name, address in (("grpc", d.grpc), ("http", d.options.get("http", ""))):
                if address and not is_loopback(address.rsplit(":", 1)[0]):
                    raise InvalidArgument(
                        f"{address} is not a loopback address: serving off loopback needs "
                        "security (tls, auth users and cluster_secret_file)",
                        field=f"{d.kind}[{d.name}].{name}")
    return ClusterConfig(data_dir, num_shards, storage, tuple(daemons), password, password_file,
                         _preemption_sustain(data.get("preemption")),
                         _max_message_bytes(data.get("rpc")), security)


def _only_key(section: Any, name: str, key: str) -> Any:
    """The value of ``key`` in the optional section ``name`` (a mapping with
    that key alone), or None when the section or the key is absent."""
    if section is None:
        return None
    if not isinstance(section, dict):
        raise InvalidArgument(f"must be a mapping, got {section!r}", field=name)
    for other in section:
        if other != key:
            raise InvalidArgument(f"unknown key; known keys are {key}", field=f"{name}.{other}")
    return section.get(key)


def _max_message_bytes(section: Any) -> int:
    value = _only_key(section, "rpc", "max_message_bytes")
    if value is None:
        return DEFAULT_MAX_MESSAGE_BYTES
    if (not isinstance(value, int) or isinstance(value, bool)
            or not 1024 <= value <= 2**31 - 1):
        raise InvalidArgument(f"must be a number of bytes in 1024..2147483647, got {value!r}",
                              field="rpc.max_message_bytes")
    return value


def _preemption_sustain(section: Any) -> float | None:
    value = _only_key(section, "preemption", "sustain_s")
    if value is None:
        return None
    if (not isinstance(value, int | float) or isinstance(value, bool)
            or not 0 <= value <= 86400):
        raise InvalidArgument(f"must be a number of seconds in 0..86400, got {value!r}",
                              field="preemption.sustain_s")
    return float(value)


def load(path: str | pathlib.Path) -> ClusterConfig:
    path = pathlib.Path(path)
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as error:
        raise InvalidArgument(f"cannot read cluster file: {error.strerror}", field=str(path))
    except yaml.YAMLError as error:
        raise InvalidArgument(f"not valid YAML: {error}", field=str(path))
    return parse(data, base=path.parent)
