"""The daemons of a local cluster as processes: start, find, signal, stop.

``state.json`` (``peloton.ops.statefile``) records what runs; a pid is
taken as that daemon only while its command line still names it.
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import os
import pathlib
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from peloton.core.errors import FailedPrecondition
from peloton.ops.layout import log_path
from peloton.ops.statefile import DaemonRecord

if TYPE_CHECKING:  # (the CLI reads the state file without the cluster file's parser)
    from peloton.config import DaemonConfig

STOP_GRACE = 10.0


LOG_TAIL = 20


# Processes this process started: their liveness is Popen.poll(), which also
# reaps them (a zombie still answers kill(pid, 0)).
CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


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
    child = CHILDREN.get(pid)
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
    child = CHILDREN.get(pid)
    return child.poll() if child is not None else None


def daemons_of(config_file: pathlib.Path) -> dict[int, str]:
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
    CHILDREN[proc.pid] = proc
    return proc


def send_signal(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


def stop_processes(pids: Mapping[int, str], *, grace: float = STOP_GRACE) -> list[str]:
    """SIGTERM each, SIGKILL what is left after ``grace`` seconds; returns the
    names that needed SIGKILL."""
    live = {pid: name for pid, name in pids.items() if is_alive(pid, name)}
    for pid in live:
        send_signal(pid, signal.SIGTERM)
    give_up = time.monotonic() + grace
    while live and time.monotonic() < give_up:
        time.sleep(0.05)
        live = {pid: name for pid, name in live.items() if is_alive(pid, name)}
    for pid in live:
        send_signal(pid, signal.SIGKILL)
    give_up = time.monotonic() + 5
    remaining = dict(live)
    while remaining and time.monotonic() < give_up:
        time.sleep(0.05)
        remaining = {pid: name for pid, name in remaining.items() if is_alive(pid, name)}
    for pid in pids:
        child = CHILDREN.get(pid)
        if child is not None and child.poll() is not None:
            del CHILDREN[pid]
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


def check_ports(daemons: list[DaemonConfig]) -> None:
    for d in daemons:
        for role, address in (("gRPC", d.grpc), ("Raft", d.raft),
                              ("metrics", d.options.get("metrics", "")),
                              ("HTTP/JSON", d.options.get("http", "")),
                              ("sandbox files", d.options.get("files", ""))):
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


def log_size(path: pathlib.Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def serving(directory: pathlib.Path, name: str, offset: int) -> bool:
    """Whether ``NAME.log`` has the daemon's ``ready NAME ...`` line past ``offset``."""
    try:
        with open(log_path(directory, name), "rb") as f:
            f.seek(offset)
            text = f.read()
    except OSError:
        return False
    return any(line.startswith(f"ready {name} ".encode()) for line in text.splitlines())


def exit_report(directory: pathlib.Path, records: list[DaemonRecord]) -> list[str]:
    lines: list[str] = []
    for d in records:
        code = _exit_code(d.pid)
        how = f"exited with code {code}" if code is not None else "exited"
        log = log_path(directory, d.name)
        lines.append(f"--- {d.name} {how}; last {LOG_TAIL} lines of {log}:")
        lines.extend(f"    {line}" for line in tail(log))
    return lines
