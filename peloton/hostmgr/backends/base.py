"""What a hostmgr needs from the thing that really runs tasks.

A backend owns a set of hosts (``hosts()``), starts and kills task runs on
them, and reports what happens to each run through the ``report`` callback
given to ``run()``. The contract every backend keeps:

- ``launch`` is idempotent per mesos task id: a known id is not started again.
- A launched run is reported ``RUNNING`` once it exists, then exactly one
  terminal update (``SUCCEEDED``, ``FAILED``, ``KILLED`` or ``LOST``); a run
  that cannot be started gets only the terminal ``FAILED``.
- ``kill`` returns promptly; the ``KILLED`` update arrives later via
  ``report``. A run that was asked to stop is reported ``KILLED`` however it
  then exits (Mesos's command executor does the same).
- ``known`` gives the latest status of a run for reconciliation; None means
  the backend has never heard of it (the caller may declare it lost).

Usage (for slack, see ``peloton.hostmgr.hostpool``): the host pool counts a
non-revocable run as using ``assumed_cpu_usage`` of its cpu from launch; a
backend that measures what runs use calls ``on_usage`` (set by the host
manager; may be None) with ``(mesos task id, cpu)`` pairs now and then.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import trio

from peloton.core.resources import ZERO, Resources
from peloton.core.states import TaskState
from peloton.hostmgr.hostpool import HostSpec

DEFAULT_KILL_GRACE_SECONDS = 30.0
"""SIGTERM -> SIGKILL grace when a task does not set one (Mesos's default)."""

MAX_READ_BYTES = 1 << 20
"""The most ``read_sandbox_file`` returns per call (well under gRPC's 4 MiB)."""

REASON_KILLED_ON_REQUEST = "REASON_KILLED_ON_REQUEST"
REASON_COMMAND_FAILED = "REASON_COMMAND_EXECUTOR_FAILED"
REASON_LAUNCH_FAILED = "REASON_CONTAINER_LAUNCH_FAILED"
# A run its health check ended (Mesos kills a task whose checks keep failing).
REASON_UNHEALTHY = "REASON_TASK_UNHEALTHY"


@dataclass(frozen=True, slots=True)
class HealthCheck:
    """A run's liveness check (the task's ``healthCheck``; Mesos's defaults
    for what it leaves 0): ``command`` runs ``/bin/sh -c command`` in the
    sandbox with the task's environment (only PATH with ``clean_env``) and
    passes on exit 0; ``http`` GETs ``path`` on 127.0.0.1:``port`` and
    passes on a 2xx or 3xx status. The first check comes ``initial_s`` after
    the run starts, then one every ``interval_s``; a check that takes
    longer than ``timeout_s`` fails; ``max_failures`` failures in a row end
    the run (FAILED, ``REASON_TASK_UNHEALTHY``)."""

    kind: str  # "command" or "http"
    command: str = ""
    clean_env: bool = False
    port: int = 0
    path: str = "/"
    initial_s: float = 15.0
    interval_s: float = 10.0
    timeout_s: float = 20.0
    max_failures: int = 3


@dataclass(frozen=True, slots=True)
class LaunchSpec:
    """One run of one task, ready for a backend.

    ``shell=True`` runs ``command`` with ``/bin/sh -c`` (``arguments``
    ignored); ``shell=False`` executes ``command`` with ``arguments`` as its
    argv (Mesos's convention: ``arguments[0]`` is argv[0]; when
    ``arguments`` is empty argv is just ``[command]``). ``ports`` maps an
    environment variable name to the port assigned under it.
    ``kill_grace_seconds`` 0 means ``DEFAULT_KILL_GRACE_SECONDS``.
    ``fd_limit`` (the task's ``resource.fdLimit``) caps the file
    descriptors the task may open (RLIMIT_NOFILE); 0 leaves the host's.
    """

    mesos_task_id: str
    task_id: str
    job_id: str
    instance_id: int
    hostname: str
    shell: bool
    command: str
    arguments: tuple[str, ...] = ()
    environment: Mapping[str, str] = field(default_factory=dict)
    ports: Mapping[str, int] = field(default_factory=dict)
    resources: Resources = ZERO
    kill_grace_seconds: float = 0.0
    fd_limit: int = 0
    # What the host manager keeps of a run besides the backend's concern: the
    # jobmgr shard its events go to, whether its cpu is slack, its labels. A
    # backend that adopts runs after a restart (``adopted``) gives them back.
    shard: int = 0
    revocable: bool = False
    labels: tuple[tuple[str, str], ...] = ()
    health: HealthCheck | None = None
    # A stateful task's persistent volume: (volume id, path in the sandbox,
    # size in MB). It outlives the run, on its host, until deleted.
    volume: tuple[str, str, int] | None = None

    @property
    def grace(self) -> float:
        return self.kill_grace_seconds if self.kill_grace_seconds > 0 else (
            DEFAULT_KILL_GRACE_SECONDS)


@dataclass(frozen=True, slots=True)
class StatusUpdate:
    """A state change of one run. ``exit_code`` is the exit status, or ``-N``
    when the run was ended by signal N; ``timestamp`` is wall-clock seconds."""

    mesos_task_id: str
    state: TaskState
    hostname: str
    message: str = ""
    exit_code: int = 0
    reason: str = ""
    timestamp: float = 0.0
    # task_pb2.HealthState after a health check changed it; 0: nothing said.
    health: int = 0


Report = Callable[[StatusUpdate], None]
UsageReport = Callable[[Sequence[tuple[str, float]]], None]


class Backend(abc.ABC):
    """Runs task runs on hosts. See the module docstring for the contract."""

    capabilities: frozenset[str] = frozenset()
    """What the backend can run beyond plain commands, e.g. ``"DOCKER"``."""

    assumed_cpu_usage: float = 1.0
    """The fraction of a non-revocable run's cpu counted as used until the
    backend reports a measurement (1.0: a run makes no slack before it has
    been measured)."""

    on_usage: UsageReport | None = None
    """Set by the host manager: called with measured cpu per run."""

    @abc.abstractmethod
    def hosts(self) -> list[HostSpec]:
        """The hosts this backend offers now."""

    @abc.abstractmethod
    async def run(self, report: Report, *,
                  task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Run until cancelled, delivering every status update to ``report``
        (called synchronously, from trio). ``task_status.started()`` once
        ``launch`` and ``kill`` can be called."""

    @abc.abstractmethod
    async def launch(self, specs: Sequence[LaunchSpec]) -> None:
        """Start these runs; return once each has started or failed to start
        (and ``RUNNING`` or ``FAILED`` has been reported). Known mesos task
        ids are skipped."""

    @abc.abstractmethod
    async def kill(self, mesos_task_ids: Sequence[str],
                   grace_seconds: float | None = None) -> None:
        """Ask these runs to stop: SIGTERM, then SIGKILL after the grace
        period (each run's own, or ``grace_seconds`` when given; 0 kills at
        once). Returns promptly; ``KILLED`` is reported when a run is gone.
        Unknown and already finished runs are ignored."""

    async def delete_volumes(self, hostname: str, volume_ids: Sequence[str]) -> None:
        """Delete these persistent volumes of ``hostname`` (one of ours), with
        what they hold; unknown ones are skipped. None are kept by default
        (simulated hosts)."""
        await trio.lowlevel.checkpoint()

    def adopted(self) -> list[LaunchSpec]:
        """Runs this backend found still running when it started (a host
        manager that died left them), to account for again; none by default."""
        return []

    def found_ended(self) -> list[tuple[int, StatusUpdate]]:
        """(jobmgr shard, end) of the runs this backend found ended when it
        started: the host manager announces them again, since the one before
        may have died before a job manager acknowledged them. None by
        default (a backend that keeps no runs across starts)."""
        return []

    def acknowledged(self, mesos_task_ids: Sequence[str]) -> None:
        """A job manager has recorded how these runs ended (their end events
        were purged from its stream): a backend keeping ended runs may let
        them go. Nothing to do by default."""
        return None

    def enforced(self) -> list[str]:
        """The limits this backend holds a run to on its hosts (as ``host
        query`` shows them); none by default. Valid once ``run`` started."""
        return []

    @abc.abstractmethod
    def known(self, mesos_task_id: str) -> StatusUpdate | None:
        """The latest status of a run, or None if this backend never saw it."""

    def sandboxes(self) -> Path | None:
        """The directory holding every run's sandbox on disk, served over
        HTTP by the host manager (``peloton.hostmgr.files``); None where the
        sandboxes are not files (simulated runs)."""
        return None

    def sandbox(self, mesos_task_id: str) -> str:
        """A run's sandbox directory, absolute; empty where it is not on disk."""
        return ""

    @abc.abstractmethod
    async def read_sandbox_file(self, mesos_task_id: str, path: str, offset: int,
                                length: int) -> tuple[bytes, int, list[str]]:
        """Read up to ``length`` bytes at ``offset`` of a file in a run's
        sandbox (``path`` relative to it; empty reads nothing, which lists the
        sandbox). At most ``MAX_READ_BYTES`` come back per call; ``length`` 0
        means that many.

        Returns (data, size of the file, paths of the files in the sandbox).
        Raises NotFound for an unknown run or file, InvalidArgument for a
        path that leaves the sandbox or a negative offset or length.
        """
