"""The local cluster: every daemon as its own process on loopback.

One directory holds a local cluster (default ``$PELOTON_HOME/minicluster``,
else ``~/.peloton/minicluster``)::

    DIR/cluster.yaml     the cluster file (peloton.config); written once, then reused
    DIR/raft.secret      the Raft group's shared secret (mode 0600), made with it
    DIR/state.json       what runs now: each daemon's name, kind, pid, address,
                         and the jobmgr addresses (what ``peloton`` reads to find
                         the cluster); present only while the cluster is up
    DIR/logs/NAME.log    each daemon's stdout and stderr, appended across runs
    DIR/...              Raft journals, the SQLite database, task sandboxes

``up`` writes ``cluster.yaml`` with free loopback ports unless it exists, so
a cluster that was brought ``down`` comes back with the same ports and the
same data (pools and jobs survive). ``--clean`` starts afresh. ``up`` returns
only once the cluster can take a job (see :func:`cluster_problems`), and
stops what it started if it cannot. ``down`` stops every daemon (SIGTERM,
then SIGKILL after a grace period) and is safe to run when nothing runs.

The CLI (``peloton minicluster ...``) and the test harness
(``peloton.testing.cluster.LocalCluster``) both call the functions here.
Operations on one directory are serialised by a lock file.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import errno
import fcntl
import json
import os
import pathlib
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import Any, TypeVar

import trio
import yaml

from peloton import config as cluster_config
from peloton.client import within_rpc
from peloton.config import ClusterConfig, DaemonConfig
from peloton.core.errors import FailedPrecondition, InvalidArgument, NotFound, PelotonError

__all__ = [
    "READY_TIMEOUT",
    "ClusterNotReady",
    "DaemonRecord",
    "Sizes",
    "State",
    "cluster_data",
    "cluster_problems",
    "default_dir",
    "down",
    "format_status",
    "free_ports",
    "is_alive",
    "kill",
    "peloton_home",
    "prepare",
    "read_state",
    "restart",
    "run_trio",
    "sizes_of",
    "status",
    "up",
    "write_state",
]

READY_TIMEOUT = 90.0
STOP_GRACE = 10.0
LOG_TAIL = 20
STATE_VERSION = 1
LOOPBACK = "127.0.0.1"

Out = Callable[[str], None]
T = TypeVar("T")


class ClusterNotReady(FailedPrecondition):
    """The cluster did not come up; ``details`` are the lines that say why
    (the tails of the logs of daemons that exited)."""

    def __init__(self, message: str, details: list[str] | None = None) -> None:
        super().__init__(message)
        self.details = details or []


# --------------------------------------------------------------------------- layout


def peloton_home() -> pathlib.Path:
    """``$PELOTON_HOME``, else ``~/.peloton``."""
    home = os.environ.get("PELOTON_HOME")
    return pathlib.Path(home).expanduser() if home else pathlib.Path.home() / ".peloton"


def default_dir() -> pathlib.Path:
    return peloton_home() / "minicluster"


def cluster_path(directory: pathlib.Path) -> pathlib.Path:
    return directory / "cluster.yaml"


def state_path(directory: pathlib.Path) -> pathlib.Path:
    return directory / "state.json"


def logs_path(directory: pathlib.Path) -> pathlib.Path:
    return directory / "logs"


def log_path(directory: pathlib.Path, name: str) -> pathlib.Path:
    return logs_path(directory) / f"{name}.log"


def _resolve(directory: str | os.PathLike[str] | None) -> pathlib.Path:
    return pathlib.Path(directory).expanduser().absolute() if directory else default_dir()


@contextlib.contextmanager
def _locked(directory: pathlib.Path) -> Iterator[None]:
    """Serialise up/down/restart on one directory (blocks while another runs)."""
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


# --------------------------------------------------------------------------- the cluster file


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
        if not 1 <= self.shards <= 4096:
            raise InvalidArgument(f"must be in 1..4096, got {self.shards}", field="--shards")

    @property
    def ports_needed(self) -> int:
        # gRPC and Raft per resmgr, gRPC per jobmgr and the hostmgr, then
        # /metrics per resmgr.
        return 3 * self.resmgrs + self.jobmgrs + 1


def free_ports(count: int, host: str = LOOPBACK) -> list[int]:
    """``count`` distinct ports that were free on ``host`` a moment ago.

    All sockets stay bound until every port is chosen, so none repeats.
    """
    sockets: list[socket.socket] = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sockets.append(s)
            s.bind((host, 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


RAFT_SECRET = "raft.secret"


def write_raft_secret(directory: pathlib.Path) -> str:
    """Make ``directory/raft.secret`` (256 random bits, mode 0600) unless it
    exists; returns the name a cluster file in ``directory`` gives it by."""
    path = directory / RAFT_SECRET
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return RAFT_SECRET
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_urlsafe(32) + "\n")
    return RAFT_SECRET


def cluster_data(directory: pathlib.Path, sizes: Sizes, ports: list[int]) -> dict[str, Any]:
    """The cluster file's content for ``sizes`` on the given loopback ports
    (``sizes.ports_needed`` of them, used in order)."""
    if len(ports) < sizes.ports_needed:
        raise ValueError(f"need {sizes.ports_needed} ports, got {len(ports)}")
    next_port = iter(ports)

    def address() -> str:
        return f"{LOOPBACK}:{next(next_port)}"

    resmgrs = [{"name": f"resmgr-{i}", "grpc": address(), "raft": address()}
               for i in range(sizes.resmgrs)]
    jobmgrs = [{"name": f"jobmgr-{i}", "grpc": address()} for i in range(sizes.jobmgrs)]
    hostmgrs = [{
        "name": "hostmgr-0", "grpc": address(), "cluster": "local", "backend": "local",
        "hosts": sizes.hosts, "cpu": sizes.cpu, "memory_mb": sizes.memory_mb,
        "disk_mb": sizes.disk_mb, "gpu": sizes.gpu,
    }]
    for resmgr in resmgrs:
        resmgr["metrics"] = address()
    return {
        "data_dir": str(directory),
        "num_shards": sizes.shards,
        "storage": {"kind": "sqlite", "path": "jobs.db"},
        "raft_password_file": RAFT_SECRET,
        "resmgr": resmgrs,
        "jobmgr": jobmgrs,
        "placement": [{"name": f"placement-{i}"} for i in range(sizes.placements)],
        "hostmgr": hostmgrs,
    }


_HEADER = """\
# A local Peloton cluster, written by `peloton minicluster up`.
# `peloton minicluster up` reuses this file (same ports, same data) until
# `peloton minicluster down --clean` removes the directory.
"""


def sizes_of(config: ClusterConfig) -> Sizes:
    """The sizes a cluster file describes (the first hostmgr's hosts)."""
    hostmgrs = config.of_kind("hostmgr")
    opts = hostmgrs[0].options if hostmgrs else {}
    defaults = Sizes()
    return Sizes(
        hosts=int(opts.get("hosts", defaults.hosts)), cpu=float(opts.get("cpu", defaults.cpu)),
        memory_mb=float(opts.get("memory_mb", defaults.memory_mb)),
        disk_mb=float(opts.get("disk_mb", defaults.disk_mb)),
        gpu=float(opts.get("gpu", defaults.gpu)),
        jobmgrs=len(config.of_kind("jobmgr")), placements=len(config.of_kind("placement")),
        resmgrs=len(config.of_kind("resmgr")), shards=config.num_shards)


def prepare(directory: pathlib.Path, sizes: Sizes | None = None, *,
            extra: Mapping[str, Any] | None = None) -> tuple[ClusterConfig, bool]:
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
    data = cluster_data(directory, sizes, free_ports(sizes.ports_needed)) | dict(extra or {})
    cluster_config.parse(data)  # a bad extra key fails here, before anything is written
    write_raft_secret(directory)
    _write_cluster_file(path, data)
    return cluster_config.load(path), True


def _write_cluster_file(path: pathlib.Path, data: Mapping[str, Any]) -> None:
    tmp = path.with_suffix(".yaml.tmp")
    tmp.write_text(_HEADER + yaml.safe_dump(dict(data), sort_keys=False,
                                            default_flow_style=None))
    tmp.replace(path)


def _add_raft_secret(path: pathlib.Path) -> None:
    """Give a cluster file this module wrote before Raft secrets existed one
    (a file of the user's own is left as it is: its error names the key)."""
    text = path.read_text()
    if not text.startswith(_HEADER):
        return
    data = yaml.safe_load(text)
    if not isinstance(data, dict) or "raft_password" in data or "raft_password_file" in data:
        return
    data = {"raft_password_file": write_raft_secret(path.parent), **data}
    _write_cluster_file(path, data)


# --------------------------------------------------------------------------- state.json


@dataclasses.dataclass(slots=True)
class DaemonRecord:
    name: str
    kind: str
    pid: int
    address: str = ""
    log: str = ""


@dataclasses.dataclass(slots=True)
class State:
    directory: pathlib.Path
    config_file: pathlib.Path
    daemons: list[DaemonRecord]
    jobmgr_addresses: list[str]
    started: float = 0.0

    def get(self, name: str) -> DaemonRecord:
        for d in self.daemons:
            if d.name == name:
                return d
        raise NotFound(f"no daemon named {name!r} in the local cluster "
                       f"({', '.join(d.name for d in self.daemons)})")

    def to_json(self) -> dict[str, Any]:
        return {
            "version": STATE_VERSION,
            "dir": str(self.directory),
            "config": str(self.config_file),
            "started": self.started,
            "jobmgr_addresses": list(self.jobmgr_addresses),
            "daemons": [dataclasses.asdict(d) for d in self.daemons],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> State:
        try:
            return cls(pathlib.Path(data["dir"]), pathlib.Path(data["config"]),
                       [DaemonRecord(str(d["name"]), str(d["kind"]), int(d["pid"]),
                                     str(d.get("address", "")), str(d.get("log", "")))
                        for d in data["daemons"]],
                       [str(a) for a in data["jobmgr_addresses"]], float(data.get("started", 0)))
        except (KeyError, TypeError, ValueError) as error:
            raise InvalidArgument(f"not a minicluster state file ({error!r})") from None


def read_state(directory: pathlib.Path) -> State | None:
    """The state of the cluster in ``directory``; None if it is not up.

    Raises InvalidArgument when the file exists but cannot be read.
    """
    path = state_path(directory)
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise InvalidArgument(f"cannot read {path}: {error.strerror}") from None
    try:
        return State.from_json(json.loads(text))
    except (ValueError, InvalidArgument) as error:
        raise InvalidArgument(f"{path} is damaged ({error}); "
                              "run `peloton minicluster down` to clear it") from None


def write_state(state: State) -> None:
    """Write ``state.json`` atomically."""
    path = state_path(state.directory)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(state.to_json(), indent=2) + "\n")
    tmp.replace(path)


def _read_state_lenient(directory: pathlib.Path) -> State | None:
    try:
        return read_state(directory)
    except InvalidArgument:
        return None


# --------------------------------------------------------------------------- processes

# Processes this process started: their liveness is Popen.poll(), which also
# reaps them (a zombie still answers kill(pid, 0)).
_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


def _proc_cmdline(pid: int) -> list[bytes] | None:
    try:
        return pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None


def _is_zombie(pid: int) -> bool:
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].strip().startswith("Z")


def is_alive(pid: int, name: str | None = None) -> bool:
    """Whether ``pid`` is a live peloton daemon (named ``name``, if given).

    A recycled pid that now belongs to another program does not count
    (checked through /proc where there is one).
    """
    if pid <= 0:
        return False
    child = _CHILDREN.get(pid)
    if child is not None:
        return child.poll() is None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False  # someone else's process: not one of our daemons
    if _is_zombie(pid):
        return False
    args = _proc_cmdline(pid)
    if args is None:
        return True
    if b"peloton.daemon" not in args and not any(a.endswith(b"peloton-daemon") for a in args):
        return False
    return name is None or name.encode() in args


def _exit_code(pid: int) -> int | None:
    child = _CHILDREN.get(pid)
    return child.poll() if child is not None else None


def _daemons_of(config_file: pathlib.Path) -> dict[int, str]:
    """Live daemon processes started with ``--config config_file``: pid -> name."""
    found: dict[int, str] = {}
    proc = pathlib.Path("/proc")
    if not proc.is_dir():
        return found
    wanted = str(config_file).encode()
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        args = _proc_cmdline(int(entry.name))
        if not args or b"peloton.daemon" not in args:
            continue
        try:
            i = args.index(b"--config")
            name = args[args.index(b"--name") + 1].decode()
        except (ValueError, IndexError):
            continue
        if i + 1 < len(args) and args[i + 1] == wanted and is_alive(int(entry.name)):
            found[int(entry.name)] = name
    return found


def start_daemon(directory: pathlib.Path, config_file: pathlib.Path,
                 daemon: DaemonConfig) -> subprocess.Popen[bytes]:
    """Start one daemon in its own session, logging to ``DIR/logs/NAME.log``."""
    log = log_path(directory, daemon.name)
    log.parent.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    with open(log, "ab") as out:
        out.write(f"--- {stamp} peloton minicluster: starting {daemon.name}\n".encode())
        out.flush()
        proc = subprocess.Popen(
            [sys.executable, "-m", "peloton.daemon", daemon.kind, "--config", str(config_file),
             "--name", daemon.name],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True, cwd=directory, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    _CHILDREN[proc.pid] = proc
    return proc


def _signal(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


def stop_processes(pids: Mapping[int, str], *, grace: float = STOP_GRACE) -> list[str]:
    """SIGTERM each, SIGKILL what is left after ``grace`` seconds; returns the
    names that needed SIGKILL."""
    live = {pid: name for pid, name in pids.items() if is_alive(pid, name)}
    for pid in live:
        _signal(pid, signal.SIGTERM)
    give_up = time.monotonic() + grace
    while live and time.monotonic() < give_up:
        time.sleep(0.05)
        live = {pid: name for pid, name in live.items() if is_alive(pid, name)}
    for pid in live:
        _signal(pid, signal.SIGKILL)
    give_up = time.monotonic() + 5
    remaining = dict(live)
    while remaining and time.monotonic() < give_up:
        time.sleep(0.05)
        remaining = {pid: name for pid, name in remaining.items() if is_alive(pid, name)}
    for pid in pids:
        child = _CHILDREN.get(pid)
        if child is not None and child.poll() is not None:
            del _CHILDREN[pid]
    return sorted(live.values())


def _port_in_use(address: str) -> bool:
    host, _, port = address.rpartition(":")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, int(port)))
        except OSError as error:
            return error.errno == errno.EADDRINUSE
    return False


def _check_ports(daemons: list[DaemonConfig]) -> None:
    for d in daemons:
        for role, address in (("gRPC", d.grpc), ("Raft", d.raft)):
            if address and _port_in_use(address):
                raise FailedPrecondition(
                    f"{address} ({d.name}'s {role} port) is in use by another process; stop "
                    f"that process, or start afresh with `peloton minicluster up --clean` "
                    f"(which deletes this cluster's data and picks new ports)")


def tail(path: pathlib.Path, lines: int = LOG_TAIL) -> list[str]:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 64 * 1024))
            text = f.read().decode(errors="replace")
    except OSError:
        return []
    return text.splitlines()[-lines:]


def _log_size(path: pathlib.Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _serving(directory: pathlib.Path, name: str, offset: int) -> bool:
    """Whether ``NAME.log`` has the daemon's ``ready NAME ...`` line past ``offset``."""
    try:
        with open(log_path(directory, name), "rb") as f:
            f.seek(offset)
            text = f.read()
    except OSError:
        return False
    return any(line.startswith(f"ready {name} ".encode()) for line in text.splitlines())


def _exit_report(directory: pathlib.Path, records: list[DaemonRecord]) -> list[str]:
    lines: list[str] = []
    for d in records:
        code = _exit_code(d.pid)
        how = f"exited with code {code}" if code is not None else "exited"
        log = log_path(directory, d.name)
        lines.append(f"--- {d.name} {how}; last {LOG_TAIL} lines of {log}:")
        lines.extend(f"    {line}" for line in tail(log))
    return lines


# --------------------------------------------------------------------------- trio bridge


def run_trio(fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    """``trio.run(fn, *args)``, in a thread of its own if trio already runs here."""
    try:
        trio.lowlevel.current_trio_token()
    except RuntimeError:
        return trio.run(fn, *args)
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = trio.run(fn, *args)
        except BaseException as error:
            outcome["error"] = error

    thread = threading.Thread(target=target, name="peloton-minicluster")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- readiness


async def cluster_problems(config: ClusterConfig, channels: Any) -> list[str]:
    """What keeps the cluster from taking a job; empty when it can.

    It can when the resmgr leader answers GetClusterView with a fresh view in
    which every shard has a live jobmgr owner that may act on it, a hostmgr
    and a placement worker are live members, and a jobmgr answers a resource
    pool Query. Must run inside ``peloton.rpc.open_rpc()``.
    """
    from peloton.api.private.cluster import cluster_grpc, cluster_pb2
    from peloton.api.v0.respool import respool_grpc, respool_pb2
    from peloton.rpc import ServiceClient
    from peloton.shard.owner import num_shards_refusal

    view_client = ServiceClient(config.resmgr_addresses, cluster_grpc.ClusterServiceStub,
                                channels=channels, deadline=1.0)
    try:
        view = await view_client.call("GetClusterView", cluster_pb2.GetClusterViewRequest(),
                                      timeout=2.0)
    except PelotonError as error:
        return [f"no resmgr leader answers GetClusterView yet ({error})"]
    if abs(time.time() - view.now) > 10:
        return ["the resmgr leader has not refreshed the cluster view yet"]
    live = {m.id: m for m in view.members if m.leaseExpires > view.now}
    problems = []
    jobmgrs = {i for i, m in live.items() if m.kind == "jobmgr"}
    owned = {s.shard for s in view.shards if s.owner in jobmgrs and s.actFrom <= view.now}
    if len(owned) < view.numShards or not view.numShards:
        problems.append(f"{view.numShards - len(owned)} of {view.numShards} shards have no "
                        f"acting jobmgr owner (live jobmgrs: {', '.join(sorted(jobmgrs)) or 'none'})")
    for m in sorted(live.values(), key=lambda m: m.id):
        refusal = num_shards_refusal(m.numShards, view.numShards) if m.numShards else None
        if m.kind == "jobmgr" and refusal:
            problems.append(f"{m.id} acts on no shard: {refusal}")
    if not any(m.kind == "hostmgr" for m in live.values()):
        problems.append("no hostmgr has joined the cluster")
    if not any(m.kind == "placement" for m in live.values()):
        problems.append("no placement worker has joined the cluster")
    if problems:
        return problems
    pools = ServiceClient(config.jobmgr_addresses, respool_grpc.ResourceManagerStub,
                          channels=channels, deadline=1.0)
    try:
        await pools.call("Query", respool_pb2.QueryRequest(), timeout=2.0)
    except PelotonError as error:
        return [f"no jobmgr answers a resource pool Query ({error})"]
    return []


async def _wait_ready(directory: pathlib.Path, config: ClusterConfig, records: list[DaemonRecord],
                      offsets: dict[str, int], timeout: float) -> None:
    from peloton.rpc import Channels

    problems = ["nothing checked yet"]
    channels = Channels()
    try:
        with trio.move_on_after(timeout):
            while True:
                exited = [d for d in records if not is_alive(d.pid, d.name)]
                if exited:
                    names = ", ".join(d.name for d in exited)
                    raise ClusterNotReady(f"{names} exited while the cluster was starting",
                                          _exit_report(directory, exited))
                waiting = [name for name, offset in offsets.items()
                           if not _serving(directory, name, offset)]
                if waiting:
                    problems = [f"waiting for {', '.join(waiting)} to serve"]
                else:
                    problems = await cluster_problems(config, channels)
                    if not problems:
                        return
                await trio.sleep(0.2)
    finally:
        channels.close()
    raise ClusterNotReady(f"the cluster was not ready after {timeout:g}s: {'; '.join(problems)}",
                          [f"the daemons' logs are in {logs_path(directory)}"])


# --------------------------------------------------------------------------- commands


def _summary(state: State) -> list[str]:
    return [
        f"  jobmgr:  {','.join(state.jobmgr_addresses)}",
        f"  data:    {state.directory}",
        f"  logs:    {logs_path(state.directory)}",
    ]


def _record(directory: pathlib.Path, d: DaemonConfig, pid: int) -> DaemonRecord:
    return DaemonRecord(d.name, d.kind, pid, d.grpc, str(log_path(directory, d.name)))


def up(directory: str | os.PathLike[str] | None = None, sizes: Sizes | None = None, *,
       clean: bool = False, timeout: float = READY_TIMEOUT, out: Out = print,
       extra: Mapping[str, Any] | None = None) -> State:
    """Start the local cluster in ``directory`` and wait until it can take a job.

    Reuses ``cluster.yaml`` when it exists (``sizes`` is then ignored, with a
    note), unless ``clean``, which first deletes the directory. A cluster that
    already runs is left alone; daemons of it that died are started again.
    Raises ClusterNotReady (after stopping what it started) when the cluster
    is not ready within ``timeout`` seconds or a daemon exits meanwhile.
    """
    directory = _resolve(directory)
    if sizes is not None:
        sizes.check()
    with _locked(directory):
        state = _read_state_lenient(directory)
        alive = {d.name for d in state.daemons if is_alive(d.pid, d.name)} if state else set()
        if clean:
            if alive:
                raise FailedPrecondition(
                    f"a local cluster is running in {directory}; stop it first with "
                    f"`peloton minicluster down` (--clean deletes its data)")
            _wipe(directory)
            state = None
        config, written = prepare(directory, sizes, extra=extra)
        config_file = cluster_path(directory)
        if state is None:
            # Daemons of this cluster that no state.json lists (it was lost).
            strays = _daemons_of(config_file)
            if strays:
                by_name = {d.name: d for d in config.daemons}
                state = State(directory, config_file,
                              [_record(directory, by_name[n], pid) for pid, n in strays.items()
                               if n in by_name], config.jobmgr_addresses, time.time())
                alive = {d.name for d in state.daemons}
        if not written and sizes is not None and sizes != sizes_of(config):
            out(f"note: reusing {cluster_path(directory)} (its sizes, ports and data); "
                f"use --clean to start afresh with other sizes")
        if state is not None and alive == {d.name for d in config.daemons}:
            out(f"a local cluster is already running in {directory}")
            for line in _summary(state):
                out(line)
            return state
        to_start = [d for d in config.daemons if d.name not in alive]
        _check_ports(to_start)
        kept = [d for d in state.daemons if d.name in alive] if state else []
        began = time.monotonic()
        offsets = {d.name: _log_size(log_path(directory, d.name)) for d in to_start}
        started: list[DaemonRecord] = []
        new_state = State(directory, config_file, kept, config.jobmgr_addresses, time.time())
        try:
            for d in to_start:
                started.append(_record(directory, d, start_daemon(directory, config_file, d).pid))
            order = {d.name: i for i, d in enumerate(config.daemons)}
            new_state.daemons = sorted(kept + started, key=lambda r: order.get(r.name, 0))
            write_state(new_state)
            run_trio(within_rpc, _wait_ready, directory, config, started, offsets, timeout)
        except BaseException:
            stop_processes({d.pid: d.name for d in new_state.daemons})
            with contextlib.suppress(FileNotFoundError):
                state_path(directory).unlink()
            raise
        if kept:
            out(f"started {', '.join(d.name for d in started)}; local cluster up in "
                f"{time.monotonic() - began:.1f}s")
        else:
            out(f"local cluster up in {time.monotonic() - began:.1f}s "
                f"({len(config.daemons)} daemons)")
        for line in _summary(new_state):
            out(line)
        return new_state


def _wipe(directory: pathlib.Path) -> None:
    """Delete everything in ``directory`` but the lock file."""
    if not directory.exists():
        return
    for entry in directory.iterdir():
        if entry.name == ".lock":
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def down(directory: str | os.PathLike[str] | None = None, *, clean: bool = False,
         grace: float = STOP_GRACE, out: Out = print) -> list[str]:
    """Stop every daemon of the cluster in ``directory``; returns their names.

    SIGTERM, then SIGKILL for what still runs after ``grace`` seconds. Also
    stops daemons of this cluster that ``state.json`` does not list. Removes
    ``state.json``, and with ``clean`` the whole directory. Idempotent.
    """
    directory = _resolve(directory)
    if not directory.exists():
        out(f"no local cluster in {directory}")
        return []
    with _locked(directory):
        state = _read_state_lenient(directory)
        pids = {d.pid: d.name for d in state.daemons} if state else {}
        pids.update(_daemons_of(cluster_path(directory)))
        live = {pid: name for pid, name in pids.items() if is_alive(pid, name)}
        killed = stop_processes(live, grace=grace)
        with contextlib.suppress(FileNotFoundError):
            state_path(directory).unlink()
        if live:
            note = f" ({', '.join(killed)} needed SIGKILL)" if killed else ""
            out(f"stopped {len(live)} daemon(s) in {directory}{note}")
        else:
            out(f"no local cluster is running in {directory}")
        if clean:
            _wipe(directory)
            shutil.rmtree(directory, ignore_errors=True)
            out(f"removed {directory}")
        return sorted(live.values())


def kill(directory: str | os.PathLike[str] | None, name: str,
         sig: int = signal.SIGKILL) -> int:
    """Send ``sig`` to daemon ``name``; returns its pid. For failure tests."""
    directory = _resolve(directory)
    state = read_state(directory)
    if state is None:
        raise FailedPrecondition(f"no local cluster is running in {directory}")
    record = state.get(name)
    if not is_alive(record.pid, name):
        raise FailedPrecondition(f"{name} (pid {record.pid}) is not running")
    os.kill(record.pid, sig)
    return record.pid


def restart(directory: str | os.PathLike[str] | None, name: str, *,
            timeout: float = 30.0, grace: float = STOP_GRACE) -> int:
    """Start daemon ``name`` again with the same cluster file (stopping it
    first if it runs) and wait until it serves; returns the new pid."""
    directory = _resolve(directory)
    with _locked(directory):
        state = read_state(directory)
        if state is None:
            raise FailedPrecondition(f"no local cluster is running in {directory}; "
                                     "start it with `peloton minicluster up`")
        config = cluster_config.load(state.config_file)
        daemon = config.get(name)
        try:
            record = state.get(name)
        except NotFound:
            record = _record(directory, daemon, 0)
            state.daemons.append(record)
        if is_alive(record.pid, name):
            stop_processes({record.pid: name}, grace=grace)
        _check_ports([daemon])
        offset = _log_size(log_path(directory, name))
        proc = start_daemon(directory, state.config_file, daemon)
        record.pid = proc.pid
        write_state(state)
        give_up = time.monotonic() + timeout
        while not _serving(directory, name, offset):
            if proc.poll() is not None:
                raise ClusterNotReady(f"{name} exited while restarting",
                                      _exit_report(directory, [record]))
            if time.monotonic() > give_up:
                raise ClusterNotReady(f"{name} did not serve within {timeout:g}s",
                                      [f"its log is {log_path(directory, name)}"])
            time.sleep(0.05)
        return proc.pid


async def _replica_digests(channels: Any, addresses: list[str]) -> dict[str, dict[str, Any]]:
    """Each resmgr replica's running digest and, for the leader, its checks of
    the others' (GetStats with replicaLocal; a replica that does not answer
    is left out)."""
    from peloton.api.private.cluster import cluster_grpc, cluster_pb2
    from peloton.rpc import call_once

    out: dict[str, dict[str, Any]] = {}

    async def one(address: str) -> None:
        try:
            reply = await call_once(channels, address, cluster_grpc.ClusterServiceStub,
                                    "GetStats", cluster_pb2.GetStatsRequest(replicaLocal=True),
                                    1.0)
        except PelotonError:
            return
        d = reply.digest
        out[address] = {"applied": d.appliedIndex, "digest": d.chain, "since": d.chainSince,
                        "leading": reply.leading,
                        "checks": [{"replica": c.replica, "outcome": c.outcome,
                                    "agreed_index": c.agreedIndex, "mismatches": c.mismatches,
                                    "mismatch_index": c.mismatchIndex}
                                   for c in reply.digestChecks]}

    async with trio.open_nursery() as nursery:
        for address in addresses:
            nursery.start_soon(one, address)
    return out


async def _status_rpc(config: ClusterConfig, jobmgrs: list[str]) -> dict[str, Any]:
    from peloton.api.private.cluster import cluster_grpc, cluster_pb2
    from peloton.api.v0.host.svc import host_svc_grpc, host_svc_pb2
    from peloton.rpc import Channels, ServiceClient

    info: dict[str, Any] = {}
    channels = Channels()
    try:
        info["digests"] = await _replica_digests(channels, config.resmgr_addresses)
        client = ServiceClient(config.resmgr_addresses, cluster_grpc.ClusterServiceStub,
                               channels=channels, deadline=2.0)
        try:
            view = await client.call("GetClusterView", cluster_pb2.GetClusterViewRequest(),
                                     timeout=2.0)
        except PelotonError as error:
            info["view_error"] = str(error)
        else:
            info["leader"] = view.leader
            live = [m for m in view.members if m.leaseExpires > view.now]
            info["members"] = [{"id": m.id, "kind": m.kind, "address": m.address,
                                "cluster": m.cluster} for m in live]
            shards: dict[str, int] = {}
            for s in view.shards:
                if s.owner:
                    shards[s.owner] = shards.get(s.owner, 0) + 1
            info["num_shards"] = view.numShards
            info["shards"] = shards
        if jobmgrs:
            hosts = ServiceClient(jobmgrs, host_svc_grpc.HostServiceStub, channels=channels,
                                  deadline=2.0)
            try:
                reply = await hosts.call("QueryHosts", host_svc_pb2.QueryHostsRequest(),
                                         timeout=3.0)
            except PelotonError as error:
                info["hosts_error"] = str(error)
            else:
                info["hosts"] = [{
                    "hostname": h.hostname, "cluster": h.cluster, "tasks": h.tasks,
                    "cpu": [h.cpuAllocated, h.cpu], "mem_mb": [h.memMbAllocated, h.memMb],
                    "disk_mb": [h.diskMbAllocated, h.diskMb], "gpu": [h.gpuAllocated, h.gpu],
                } for h in reply.hostInfos]
    finally:
        channels.close()
    return info


def status(directory: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """What runs in ``directory``: daemons (alive or not), the resmgr leader,
    shards per jobmgr, hosts. ``running`` is False when nothing runs."""
    directory = _resolve(directory)
    state = read_state(directory)
    info: dict[str, Any] = {"dir": str(directory), "running": False, "daemons": []}
    if state is None:
        if cluster_path(directory).exists():
            info["stopped"] = True
        return info
    for d in state.daemons:
        info["daemons"].append({"name": d.name, "kind": d.kind, "pid": d.pid,
                                "address": d.address, "alive": is_alive(d.pid, d.name)})
    info["running"] = any(d["alive"] for d in info["daemons"])
    info["jobmgr_addresses"] = state.jobmgr_addresses
    if info["running"]:
        config = cluster_config.load(state.config_file)
        metrics = {d.name: d.options["metrics"] for d in config.of_kind("resmgr")
                   if d.options.get("metrics")}
        for d in info["daemons"]:
            if d["name"] in metrics:
                d["metrics"] = f"http://{metrics[d['name']]}/metrics"
        info.update(run_trio(within_rpc, _status_rpc, config, state.jobmgr_addresses))
        by_address = {d.grpc: d.name for d in config.daemons if d.grpc}
        if info.get("leader"):
            info["leader_name"] = by_address.get(info["leader"], info["leader"])
        digests = info.pop("digests", {})
        for d in info["daemons"]:
            if d["address"] in digests:
                d["digest"] = digests[d["address"]]
                for check in d["digest"]["checks"]:
                    check["name"] = by_address.get(check["replica"], check["replica"])
    return info


def _digest_check(check: Mapping[str, Any]) -> str:
    text = f"{check['name']} {check['outcome'] or 'not yet compared'}"
    if check["outcome"] == "agree":
        text += f" at {check['agreed_index']}"
    if check["mismatches"]:
        text += (f" (DIVERGED: {check['mismatches']} mismatches, the last at "
                 f"{check['mismatch_index']})")
    return text


def format_status(info: Mapping[str, Any]) -> str:
    directory = info["dir"]
    if not info["daemons"]:
        if info.get("stopped"):
            return (f"the local cluster in {directory} is stopped; "
                    "start it with `peloton minicluster up`")
        return f"no local cluster in {directory}; start one with `peloton minicluster up`"
    lines = [f"local cluster in {directory}"]
    width = max(len(d["name"]) for d in info["daemons"])
    for d in info["daemons"]:
        alive = "alive" if d["alive"] else "DEAD "
        address = f"  {d['address']}" if d["address"] else ""
        metrics = f"  metrics {d['metrics']}" if d.get("metrics") else ""
        digest = d.get("digest")
        chain = f"  applied {digest['applied']} digest {digest['digest'][:12]}" if digest else ""
        lines.append(f"  {d['name']:<{width}}  {alive}  pid {d['pid']:<7}{address}{metrics}"
                     f"{chain}")
    if "view_error" in info:
        lines.append(f"resmgr leader: none answers ({info['view_error']})")
    elif "leader" in info:
        lines.append(f"resmgr leader: {info.get('leader_name')} ({info['leader']})")
        checks = [c for d in info["daemons"] if d.get("digest", {}).get("leading")
                  for c in d["digest"]["checks"]]
        if checks:
            lines.append("replica digests (the leader's last check): " + ", ".join(
                _digest_check(c) for c in sorted(checks, key=lambda c: c["name"])))
        shards = info.get("shards", {})
        owned = sum(shards.values())
        parts = [f"{owner} {n}" for owner, n in sorted(shards.items())]
        unowned = info.get("num_shards", 0) - owned
        if unowned:
            parts.append(f"unowned {unowned}")
        lines.append(f"shards ({info.get('num_shards', 0)}): {', '.join(parts) or 'none'}")
        kinds: dict[str, int] = {}
        for m in info.get("members", []):
            kinds[m["kind"]] = kinds.get(m["kind"], 0) + 1
        lines.append("live members: " + (", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
                                         or "none"))
    if "hosts_error" in info:
        lines.append(f"hosts: cannot query ({info['hosts_error']})")
    elif "hosts" in info:
        lines.append(f"hosts ({len(info['hosts'])}):")
        for h in info["hosts"]:
            lines.append(f"  {h['hostname']:<10} {h['cluster']:<8} tasks {h['tasks']:<4} "
                         f"cpu {h['cpu'][0]:g}/{h['cpu'][1]:g}  "
                         f"mem {h['mem_mb'][0]:g}/{h['mem_mb'][1]:g} MB  "
                         f"disk {h['disk_mb'][0]:g}/{h['disk_mb'][1]:g} MB  "
                         f"gpu {h['gpu'][0]:g}/{h['gpu'][1]:g}")
    return "\n".join(lines)
