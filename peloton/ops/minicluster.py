"""The local cluster: every daemon as its own process on loopback.

``up`` writes ``cluster.yaml`` with free loopback ports unless it exists, so
a cluster that was brought ``down`` comes back with the same ports and the
same data (pools and jobs survive). ``--clean`` starts afresh. ``up`` returns
only once the cluster can take a job (see :func:`cluster_problems`), and
stops what it started if it cannot. ``down`` stops every daemon (SIGTERM,
then SIGKILL after a grace period) and is safe to run when nothing runs.

The CLI (``peloton minicluster ...``) and the test harness
(``peloton.testing.cluster.LocalCluster``) both call the functions here.
Operations on one directory are serialised by a lock file. The parts are
their own modules: ``layout`` (the directory), ``clusterfile``,
``processes`` and ``status``; their public names are re-exported here.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import shutil
import signal
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import trio

from peloton import config as cluster_config
from peloton.client import within_rpc
from peloton.config import ClusterConfig, DaemonConfig
from peloton.core.errors import FailedPrecondition, NotFound
from peloton.ops.clusterfile import (
    Sizes,
    cluster_data,
    prepare,
    sizes_of,
)
from peloton.ops.layout import (
    LOOPBACK,
    RAFT_SECRET,
    cluster_path,
    default_dir,
    free_ports,
    locked,
    log_path,
    logs_path,
    peloton_home,
    resolve,
    state_path,
    write_raft_secret,
)
from peloton.ops.processes import (
    STOP_GRACE,
    check_ports,
    daemons_of,
    exit_report,
    is_alive,
    log_size,
    serving,
    start_daemon,
    stop_processes,
)
from peloton.ops.statefile import (
    ClientView,
    DaemonRecord,
    State,
    read_state,
    read_state_lenient,
    write_state,
)
from peloton.ops.status import cluster_problems, format_status, run_trio, status

__all__ = [
    "LOOPBACK",
    "RAFT_SECRET",
    "READY_TIMEOUT",
    "ClusterNotReady",
    "DaemonRecord",
    "Sizes",
    "State",
    "cluster_data",
    "cluster_path",
    "cluster_problems",
    "default_dir",
    "down",
    "format_status",
    "free_ports",
    "is_alive",
    "kill",
    "log_path",
    "peloton_home",
    "prepare",
    "read_state",
    "restart",
    "run_trio",
    "sizes_of",
    "status",
    "up",
    "write_raft_secret",
    "write_state",
]


READY_TIMEOUT = 90.0


Out = Callable[[str], None]


class ClusterNotReady(FailedPrecondition):
    """The cluster did not come up; ``details`` are the lines that say why
    (the tails of the logs of daemons that exited)."""

    def __init__(self, message: str, details: list[str] | None = None) -> None:
        super().__init__(message)
        self.details = details or []


@contextlib.contextmanager
def operate_as_daemon(config: ClusterConfig) -> Iterator[None]:
    """Inside the block, who holds the cluster file calls as its daemons do
    (TLS, the cluster secret): ``minicluster up`` and ``status`` read
    internal services. What the process had configured comes back after
    it (a test, or the load test, goes on calling as itself)."""
    security = config.security
    if not (security.tls or security.cluster_secret):
        yield
        return
    from peloton.rpc.client import configured
    with configured(security.client_ssl(), security.daemon_credentials()):
        yield


async def _wait_ready(directory: pathlib.Path, config: ClusterConfig, records: list[DaemonRecord],
                      offsets: dict[str, int], timeout: float) -> None:
    from peloton.rpc import Channels

    problems = ["nothing checked yet"]
    heard: dict[str, float] = {}
    channels = Channels()
    try:
        with operate_as_daemon(config), trio.move_on_after(timeout):
            while True:
                exited = [d for d in records if not is_alive(d.pid, d.name)]
                if exited:
                    names = ", ".join(d.name for d in exited)
                    raise ClusterNotReady(f"{names} exited while the cluster was starting",
                                          exit_report(directory, exited))
                waiting = [name for name, offset in offsets.items()
                           if not serving(directory, name, offset)]
                if waiting:
                    problems = [f"waiting for {', '.join(waiting)} to serve"]
                else:
                    problems = await cluster_problems(config, channels, heard)
                    if not problems:
                        return
                await trio.sleep(0.2)
    finally:
        channels.close()
    raise ClusterNotReady(f"the cluster was not ready after {timeout:g}s: {'; '.join(problems)}",
                          [f"the daemons' logs are in {logs_path(directory)}"])


def _summary(state: State) -> list[str]:
    return [
        f"  jobmgr:  {','.join(state.jobmgr_addresses)}",
        f"  data:    {state.directory}",
        f"  logs:    {logs_path(state.directory)}",
    ]


def client_view(config: ClusterConfig) -> ClientView:
    """What ``state.json`` tells a client of ``config`` (see ``ClientView``)."""
    security = config.security
    return ClientView({d.grpc: str(d.options["http"]) for d in config.of_kind("jobmgr")
                       if d.options.get("http")},
                      config.max_message_bytes,
                      plain=security.ca is None and not security.client.user)


def _record(directory: pathlib.Path, d: DaemonConfig, pid: int) -> DaemonRecord:
    return DaemonRecord(d.name, d.kind, pid, d.grpc, str(log_path(directory, d.name)))


def up(directory: str | os.PathLike[str] | None = None, sizes: Sizes | None = None, *,
       clean: bool = False, timeout: float = READY_TIMEOUT, out: Out = print,
       extra: Mapping[str, Any] | None = None, pelotons_port: bool = False) -> State:
    """Start the local cluster in ``directory`` and wait until it can take a job.

    Reuses ``cluster.yaml`` when it exists (``sizes`` is then ignored, with a
    note), unless ``clean``, which first deletes the directory. A cluster that
    already runs is left alone; daemons of it that died are started again.
    Raises ClusterNotReady (after stopping what it started) when the cluster
    is not ready within ``timeout`` seconds or a daemon exits meanwhile. A
    new cluster file gives the first jobmgr Peloton's HTTP port (5292) when
    ``pelotons_port`` and it is free (``peloton minicluster up`` asks; tests
    do not, so they never take it).
    """
    directory = resolve(directory)
    if sizes is not None:
        sizes.check()
    with locked(directory):
        state = read_state_lenient(directory)
        alive = {d.name for d in state.daemons if is_alive(d.pid, d.name)} if state else set()
        if clean:
            if alive:
                raise FailedPrecondition(
                    f"a local cluster is running in {directory}; stop it first with "
                    f"`peloton minicluster down` (--clean deletes its data)")
            _wipe(directory)
            state = None
        config, written = prepare(directory, sizes, extra=extra, pelotons_port=pelotons_port)
        config_file = cluster_path(directory)
        if state is None:
            # Daemons of this cluster that no state.json lists (it was lost).
            strays = daemons_of(config_file)
            if strays:
                by_name = {d.name: d for d in config.daemons}
                state = State(directory, config_file,
                              [_record(directory, by_name[n], pid) for pid, n in strays.items()
                               if n in by_name], config.jobmgr_addresses, time.time(),
                              client_view(config))
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
        check_ports(to_start)
        kept = [d for d in state.daemons if d.name in alive] if state else []
        began = time.monotonic()
        offsets = {d.name: log_size(log_path(directory, d.name)) for d in to_start}
        started: list[DaemonRecord] = []
        new_state = State(directory, config_file, kept, config.jobmgr_addresses, time.time(),
                          client_view(config))
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
    directory = resolve(directory)
    if not directory.exists():
        out(f"no local cluster in {directory}")
        return []
    with locked(directory):
        state = read_state_lenient(directory)
        pids = {d.pid: d.name for d in state.daemons} if state else {}
        pids.update(daemons_of(cluster_path(directory)))
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
    directory = resolve(directory)
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
    directory = resolve(directory)
    with locked(directory):
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
        check_ports([daemon])
        offset = log_size(log_path(directory, name))
        proc = start_daemon(directory, state.config_file, daemon)
        record.pid = proc.pid
        state.client = client_view(config)
        write_state(state)
        give_up = time.monotonic() + timeout
        while not serving(directory, name, offset):
            if proc.poll() is not None:
                raise ClusterNotReady(f"{name} exited while restarting",
                                      exit_report(directory, [record]))
            if time.monotonic() > give_up:
                raise ClusterNotReady(f"{name} did not serve within {timeout:g}s",
                                      [f"its log is {log_path(directory, name)}"])
            time.sleep(0.05)
        return proc.pid
