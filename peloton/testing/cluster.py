"""A real local cluster for tests: every daemon as its own process.

::

    with LocalCluster.start(tmp_path, hosts=2, cpu=2) as cluster:
        addresses = cluster.addresses          # jobmgr host:port list
        cluster.kill(cluster.resmgr_leader())  # SIGKILL the Raft leader
        cluster.restart("resmgr-0")

or as a pytest fixture::

    @pytest.fixture
    def cluster(tmp_path):
        with local_cluster(tmp_path / "cluster") as c:
            yield c

It is ``peloton minicluster`` (``peloton.ops.minicluster``) in a directory of
the test's own; ``PELOTON_HOME`` is not read or changed. The methods are
synchronous and block; from an async test call them through
``trio.to_thread.run_sync``.
"""

from __future__ import annotations

import os
import pathlib
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import Any

from peloton import config as cluster_config
from peloton.client import within_rpc
from peloton.config import ClusterConfig
from peloton.core.errors import NotFound
from peloton.ops import minicluster

__all__ = ["LocalCluster", "local_cluster"]


class LocalCluster:
    """A running local cluster in ``directory`` (see :meth:`start`)."""

    def __init__(self, directory: pathlib.Path, state: minicluster.State) -> None:
        self.directory = directory
        self.state = state
        self.config: ClusterConfig = cluster_config.load(state.config_file)

    @classmethod
    def start(cls, directory: str | os.PathLike[str], *, timeout: float = minicluster.READY_TIMEOUT,
              clean: bool = False, extra: dict[str, Any] | None = None,
              **sizes: Any) -> LocalCluster:
        """Start a cluster in ``directory`` and wait until it takes jobs.

        ``sizes`` are :class:`peloton.ops.minicluster.Sizes` fields (hosts,
        cpu, memory_mb, disk_mb, gpu, jobmgrs, placements, resmgrs, shards);
        ``extra`` adds top-level keys to a new cluster file (e.g.
        ``{"preemption": {"sustain_s": 1}}``).
        A ``cluster.yaml`` already in ``directory`` is reused (same ports and
        data) unless ``clean``. Raises ClusterNotReady (whose ``details`` hold
        the logs of daemons that exited) after stopping what it started.
        """
        path = pathlib.Path(directory).absolute()
        state = minicluster.up(path, minicluster.Sizes(**sizes), clean=clean, timeout=timeout,
                               out=lambda line: None, extra=extra)
        return cls(path, state)

    # -- what runs -----------------------------------------------------------
    @property
    def addresses(self) -> list[str]:
        """The jobmgr addresses (every public service is served there)."""
        return list(self.state.jobmgr_addresses)

    @property
    def resmgr_addresses(self) -> list[str]:
        return self.config.resmgr_addresses

    def names(self, kind: str | None = None) -> list[str]:
        """Daemon names, of one kind (resmgr, jobmgr, placement, hostmgr) or all."""
        return [d.name for d in self.config.daemons if kind is None or d.kind == kind]

    def pid(self, name: str) -> int:
        return self._refresh().get(name).pid

    def alive(self, name: str) -> bool:
        return minicluster.is_alive(self.pid(name), name)

    def log(self, name: str) -> str:
        """Everything daemon ``name`` wrote so far (all its runs)."""
        self.config.get(name)
        try:
            return minicluster.log_path(self.directory, name).read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def _refresh(self) -> minicluster.State:
        state = minicluster.read_state(self.directory)
        if state is not None:
            self.state = state
        return self.state

    # -- faults --------------------------------------------------------------
    def kill(self, name: str, sig: int = signal.SIGKILL) -> int:
        """Send ``sig`` to daemon ``name``; returns its pid."""
        return minicluster.kill(self.directory, name, sig)

    def restart(self, name: str, *, timeout: float = 30.0) -> int:
        """Start daemon ``name`` again (stopping it first if it runs) and wait
        until it serves; returns its new pid."""
        pid = minicluster.restart(self.directory, name, timeout=timeout)
        self._refresh()
        return pid

    def view(self) -> Any:
        """The resmgr leader's ClusterView (peloton.private.cluster)."""
        return minicluster.run_trio(within_rpc, self.view_async)

    async def view_async(self) -> Any:
        """``view`` from inside trio (within ``open_rpc``)."""
        from peloton.api.private.cluster import cluster_grpc, cluster_pb2
        from peloton.rpc import Channels, ServiceClient

        channels = Channels()
        try:
            client = ServiceClient(self.resmgr_addresses, cluster_grpc.ClusterServiceStub,
                                   channels=channels, deadline=10.0)
            return await client.call("GetClusterView", cluster_pb2.GetClusterViewRequest(),
                                     timeout=5.0)
        finally:
            channels.close()

    def resmgr_leader(self) -> str:
        """The name of the resmgr replica that leads (waits up to ~10 s for one)."""
        leader = self.view().leader
        for d in self.config.of_kind("resmgr"):
            if d.grpc == leader:
                return d.name
        raise NotFound(f"the leader's address {leader!r} is not a resmgr of this cluster")

    @property
    def num_shards(self) -> int:
        return self.config.num_shards

    def owner_of_shard(self, shard: int) -> str:
        """The name of the jobmgr that owns ``shard`` now."""
        for s in self.view().shards:
            if s.shard == shard:
                return str(s.owner)
        raise NotFound(f"shard {shard} has no owner")

    # -- the end ---------------------------------------------------------------
    def stop(self, *, clean: bool = False) -> None:
        """Stop every daemon (idempotent); ``clean`` also deletes the directory."""
        minicluster.down(self.directory, clean=clean, out=lambda line: None)

    def __enter__(self) -> LocalCluster:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


@contextmanager
def local_cluster(directory: str | os.PathLike[str], **sizes: Any) -> Iterator[LocalCluster]:
    """``LocalCluster.start(directory, **sizes)``, stopped on exit (for fixtures)."""
    cluster = LocalCluster.start(directory, **sizes)
    try:
        yield cluster
    finally:
        cluster.stop()
