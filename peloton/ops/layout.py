"""Where a local cluster keeps its things: one directory holds it all.

    DIR/cluster.yaml     the cluster file (peloton.config); written once, then reused
    DIR/raft.secret      the Raft group's shared secret (mode 0600), made with it
    DIR/state.json       what runs now (``peloton.ops.statefile.State``)
    DIR/logs/NAME.log    each daemon's stdout and stderr, appended across runs
    DIR/...              Raft journals, the SQLite database, task sandboxes

The default directory is ``$PELOTON_HOME/minicluster``, else
``~/.peloton/minicluster``. Every server binds loopback (``LOOPBACK``).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pathlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import socket

# socket and secrets are imported by the functions that use them: every
# ``peloton`` command that finds its cluster by the state file imports this.

LOOPBACK = "127.0.0.1"


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


def resolve(directory: str | os.PathLike[str] | None) -> pathlib.Path:
    return pathlib.Path(directory).expanduser().absolute() if directory else default_dir()


@contextlib.contextmanager
def locked(directory: pathlib.Path) -> Iterator[None]:
    """Serialise up/down/restart on one directory (blocks while another runs)."""
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def free_ports(count: int, host: str = LOOPBACK) -> list[int]:
    """``count`` distinct ports that were free on ``host`` a moment ago.

    All sockets stay bound until every port is chosen, so none repeats.
    """
    import socket
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


# Peloton's jobmgr HTTP port (YARPC HTTP/JSON), as its documentation calls it.
PELOTON_HTTP_PORT = 5292


def port_is_free(port: int, host: str = LOOPBACK) -> bool:
    """Whether ``host:port`` could be bound a moment ago."""
    import socket
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


RAFT_SECRET = "raft.secret"


def write_raft_secret(directory: pathlib.Path) -> str:
    """Make ``directory/raft.secret`` (256 random bits, mode 0600) unless it
    exists; returns the name a cluster file in ``directory`` gives it by."""
    path = directory / RAFT_SECRET
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return RAFT_SECRET
    import secrets
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_urlsafe(32) + "\n")
    return RAFT_SECRET
