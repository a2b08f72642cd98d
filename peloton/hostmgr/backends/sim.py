"""The ``sim`` backend: thousands of simulated hosts in one hostmgr process.

For load tests: nothing runs. A launched run is a row in a dict and an entry
in one timer heap; it "runs" for a duration read from its command and then
reports one terminal update. Everything is O(log n) per run and a few hundred
bytes per live run, so a million runs over a load test and fifty thousand
hosts are cheap.

**Hosts.** Host ``i`` is ``{cluster}-h{i:05d}`` with agent id
``{cluster}-S{i}``. Its shape is ``shapes[i % len(shapes)]`` (default 32 cpu,
128 GiB memory, 1 TiB disk); the *last* ``gpu_hosts`` hosts carry
``gpu_per_host`` GPUs. Attributes: ``rack`` (``rack-{i // hosts_per_rack}``),
``zone`` (``zone-{i % zones}``), then whatever ``attributes`` adds (a mapping
given to every host, or a function of ``i`` returning a mapping; either may
override rack and zone), then ``cluster`` and ``hostname``. Every host offers
the same port range, ``first_port`` .. ``first_port + ports_per_host - 1``
(as every Mesos agent does; nothing is bound, so hosts cannot collide).

**How long a run lasts.** The command is read as a tiny shell script
(``shell=True``; ``shell=False`` runs argv as one command, or argv[2] when
argv is ``sh -c SCRIPT``). Commands are separated by ``;``, ``&&``, ``||``,
``&``, ``|`` or newlines, and ``&&``/``||`` skip by the last status as a shell
does. ``sleep N...`` (``/bin/sleep`` too; suffixes s/m/h/d, ``infinity``)
takes N seconds, ``true`` and ``:`` take none, ``false`` fails with 1,
``exit K`` ends the script with K (``exit`` alone with the last status). Any
other command takes no time and succeeds. The run lasts the sum of its
sleeps; if it slept nowhere but ran some other command (``echo hi``,
``python train.py``) it lasts ``default_duration``; a script of only
``true``/``false``/``exit`` lasts 0. ``PELOTON_SIM_DURATION`` in the run's
environment overrides the duration (an unparsable value fails the launch).
The exit code is the script's; a run that would exit 0 instead fails with
exit code 1 with probability ``failure_rate``, drawn from
``random.Random(seed)`` in launch order (deterministic for a seed).

**Updates.** ``launch`` reports ``RUNNING`` for each new run before it
returns; the one terminal update (``SUCCEEDED``, or ``FAILED`` with
``REASON_COMMAND_EXECUTOR_FAILED``) comes from the timer at exactly
``launch time + duration`` on trio's clock (so MockClock tests can assert
exact times; even a 0 s run ends on the timer, after ``launch`` returns).
Timestamps in updates are ``clock()`` (``time.time`` unless injected).
One trio task in ``run()`` serves every run: it sleeps until the earliest end
in the heap (woken early when a launch pushes an earlier one) and reports
what is due in batches; a second task runs only with ``host_loss``.

**Usage.** A simulated non-revocable run uses ``cpu_usage`` (0.5 by
default) of the cpu it was given, from launch to end: the host pool counts
it so (``assumed_cpu_usage``) and the rest is slack that revocable tasks
can run on. Deterministic and O(1) per run; ``cpu_usage: 1`` makes no slack.

**Kill.** A simulated run obeys SIGTERM at once: ``kill`` reports ``KILLED``
(exit code -15, ``REASON_KILLED_ON_REQUEST``) for each live run before it
returns, whatever the grace period.

**Hosts lost.** ``lose_host`` reports every live run of the host ``LOST``
(``REASON_AGENT_REMOVED``), takes the host out of ``hosts()`` and then calls
``on_host_change(hostname, False)``; ``restore_host`` puts it back and calls
``on_host_change(hostname, True)`` (``host_spec`` gives its spec). A launch on
a lost host reports only ``LOST``. With ``host_loss=HostLoss(every_s,
down_s)``, ``run()`` loses a random up host (its own seeded generator) every
``every_s`` seconds and restores it ``down_s`` later.

**Memory.** A live run costs a dict entry, a small slots record, a heap entry
and a per-host set entry (~300-400 bytes). A finished run keeps only its final
``StatusUpdate`` for ``known`` and ``read_sandbox_file``, for the last
``finished_limit`` (200,000) finished runs, oldest forgotten first; a
forgotten run is unknown (None) again, and would be started afresh if
launched again under its id.

**Stop.** When ``run()`` ends, live runs are dropped unreported and ``known``
says ``LOST`` for them, as the local backend does.
"""

from __future__ import annotations

import math
import posixpath
import random
import re
import time
from collections import defaultdict, deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from heapq import heapify, heappop, heappush
from typing import Any

import trio

from peloton.api.v0.task import task_pb2
from peloton.core.errors import FailedPrecondition, InvalidArgument, NotFound
from peloton.core.resources import Resources
from peloton.core.states import TaskState
from peloton.hostmgr.backends.base import (
    MAX_READ_BYTES,
    REASON_COMMAND_FAILED,
    REASON_KILLED_ON_REQUEST,
    REASON_LAUNCH_FAILED,
    Backend,
    LaunchSpec,
    Report,
    StatusUpdate,
)
from peloton.hostmgr.hostpool import HostSpec
from peloton.spec.job import DOCKER, MESOS_CONTAINERIZER

REASON_AGENT_REMOVED = "REASON_AGENT_REMOVED"
DURATION_VARIABLE = "PELOTON_SIM_DURATION"
FINISHED_LIMIT = 200_000
"""How many finished runs' final statuses are kept by default."""
SANDBOX_FILES = ["stdout", "stderr"]

_TIMER_BATCH = 10_000
"""The timer reports at most this many due runs between checkpoints."""
_PLAN_CACHE_LIMIT = 4096
_COMPACT_AT = 65_536
"""Rebuild the heap once this many (and over half of it) entries are stale."""
_SIGTERM = 15


@dataclass(frozen=True, slots=True)
class HostShape:
    """The capacity of one simulated host (memory and disk in MiB)."""

    cpu: float = 32
    memory_mb: float = 128 * 1024
    disk_mb: float = 1024 * 1024
    gpu: float = 0


@dataclass(frozen=True, slots=True)
class HostLoss:
    """Lose a random up host every ``every_s`` seconds, back ``down_s`` later."""

    every_s: float
    down_s: float


@dataclass(eq=False, slots=True)
class _Live:
    hostname: str
    started: float  # clock() at launch: the RUNNING update's timestamp
    end: float      # trio time of the terminal update
    exit_code: int


Attributes = Mapping[str, str] | Callable[[int], Mapping[str, str]]


class SimBackend(Backend):
    """Simulated hosts and runs; see the module docstring for the behaviour.

    ``on_host_change`` (settable) is called ``(hostname, up)`` after a host is
    lost or restored.
    """

    capabilities = frozenset({DOCKER, MESOS_CONTAINERIZER})  # a simulated host runs anything

    def __init__(self, *, cluster: str = "sim", hosts: int = 1000,
                 shapes: Sequence[HostShape] | None = None, gpu_hosts: int = 0,
                 gpu_per_host: float = 4, hosts_per_rack: int = 40, zones: int = 3,
                 attributes: Attributes | None = None, failure_rate: float = 0.0,
                 default_duration: float = 1.0, seed: int = 0, first_port: int = 31000,
                 ports_per_host: int = 1000, host_loss: HostLoss | None = None,
                 finished_limit: int = FINISHED_LIMIT, cpu_usage: float = 0.5,
                 clock: Callable[[], float] | None = None) -> None:
        shapes = list(shapes) if shapes is not None else [HostShape()]
        _check(hosts >= 0, "hosts", f"must not be negative, got {hosts}")
        _check(bool(shapes), "shapes", "must name at least one shape")
        _check(0 <= gpu_hosts <= hosts, "gpu_hosts", f"must be in 0..{hosts}, got {gpu_hosts}")
        _check(gpu_per_host >= 0, "gpu_per_host", f"must not be negative, got {gpu_per_host}")
        _check(hosts_per_rack >= 1, "hosts_per_rack", f"must be positive, got {hosts_per_rack}")
        _check(zones >= 1, "zones", f"must be positive, got {zones}")
        _check(0.0 <= failure_rate <= 1.0, "failure_rate",
               f"must be in [0, 1], got {failure_rate}")
        _check(0.0 <= default_duration < math.inf, "default_duration",
               f"must be a non-negative number of seconds, got {default_duration}")
        _check(ports_per_host >= 0 and first_port >= 1
               and first_port + ports_per_host - 1 <= 65535, "ports_per_host",
               f"{ports_per_host} ports from {first_port} exceed 65535")
        _check(finished_limit >= 0, "finished_limit",
               f"must not be negative, got {finished_limit}")
        _check(0.0 <= cpu_usage <= 1.0, "cpu_usage",
               f"must be a fraction in [0, 1] of a run's cpu, got {cpu_usage}")
        if host_loss is not None:
            _check(0 < host_loss.every_s < math.inf, "host_loss.every_s",
                   f"must be a positive number of seconds, got {host_loss.every_s}")
            _check(0 <= host_loss.down_s < math.inf, "host_loss.down_s",
                   f"must be a non-negative number of seconds, got {host_loss.down_s}")
        for shape in shapes:
            _check(min(shape.cpu, shape.memory_mb, shape.disk_mb, shape.gpu) >= 0, "shapes",
                   f"resources must not be negative: {shape}")

        self.cluster = cluster
        self.default_duration = float(default_duration)
        self.failure_rate = float(failure_rate)
        self.assumed_cpu_usage = float(cpu_usage)
        self.host_loss = host_loss
        self.on_host_change: Callable[[str, bool], None] | None = None
        self._clock = clock if clock is not None else time.time
        self._rng = random.Random(seed)
        self._loss_rng = random.Random(f"{seed}/host-loss")
        self._finished_limit = finished_limit

        self._specs = _make_hosts(cluster, hosts, shapes, gpu_hosts, gpu_per_host,
                                  hosts_per_rack, zones, attributes,
                                  (first_port, first_port + ports_per_host - 1))
        self._by_name = {spec.hostname: spec for spec in self._specs}
        self._down: set[str] = set()

        self._live: dict[str, _Live] = {}
        self._heap: list[tuple[float, str]] = []  # (end, mesos task id), stale ones included
        self._stale = 0
        self._on_host: defaultdict[str, set[str]] = defaultdict(set)
        self._finished: dict[str, StatusUpdate] = {}
        self._finished_order: deque[str] = deque()
        self._plans: dict[tuple[bool, str, tuple[str, ...]], tuple[float | None, int]] = {}

        self._report: Report | None = None
        self._wakeup = trio.Event()
        self._deadline = -math.inf  # what the timer waits for; -inf while it is busy

    @classmethod
    def from_options(cls, options: Mapping[str, Any], *,
                     clock: Callable[[], float] | None = None) -> SimBackend:
        """Build from a hostmgr's cluster-file options (plain YAML values).

        Keys (all optional): ``cluster``, ``hosts``, ``shapes`` (a list of
        ``{cpu, memory_mb, disk_mb, gpu}``; without it one shape from the
        top-level ``cpu``, ``memory_mb``, ``disk_mb``), ``gpu_hosts``,
        ``gpu_per_host``, ``hosts_per_rack``, ``zones``, ``attributes`` (a
        mapping added to every host), ``failure_rate``, ``default_duration``,
        ``seed``, ``first_port``, ``ports_per_host``, ``host_loss``
        (``{every_s, down_s}``), ``finished_limit``, ``cpu_usage``. Other
        keys are left to the caller.
        """
        o = options
        default = HostShape()
        raw_shapes = o.get("shapes")
        if raw_shapes is None:
            shapes = [HostShape(cpu=_num(o, "cpu", default.cpu),
                                memory_mb=_num(o, "memory_mb", default.memory_mb),
                                disk_mb=_num(o, "disk_mb", default.disk_mb))]
        else:
            _check(isinstance(raw_shapes, list), "shapes", "must be a list of mappings")
            shapes = []
            for n, raw in enumerate(raw_shapes):
                _check(isinstance(raw, Mapping), f"shapes[{n}]", "must be a mapping")
                unknown = set(raw) - {"cpu", "memory_mb", "disk_mb", "gpu"}
                _check(not unknown, f"shapes[{n}]", f"unknown keys {sorted(unknown)}")
                shapes.append(HostShape(
                    cpu=_num(raw, "cpu", default.cpu, f"shapes[{n}]."),
                    memory_mb=_num(raw, "memory_mb", default.memory_mb, f"shapes[{n}]."),
                    disk_mb=_num(raw, "disk_mb", default.disk_mb, f"shapes[{n}]."),
                    gpu=_num(raw, "gpu", 0, f"shapes[{n}].")))
        loss = None
        raw_loss = o.get("host_loss")
        if raw_loss is not None:
            _check(isinstance(raw_loss, Mapping), "host_loss",
                   "must be a mapping {every_s, down_s}")
            unknown = set(raw_loss) - {"every_s", "down_s"}
            _check(not unknown, "host_loss", f"unknown keys {sorted(unknown)}")
            _check("every_s" in raw_loss, "host_loss.every_s", "is required")
            loss = HostLoss(every_s=_num(raw_loss, "every_s", 0, "host_loss."),
                            down_s=_num(raw_loss, "down_s", 60.0, "host_loss."))
        attributes = o.get("attributes")
        if attributes is not None:
            _check(isinstance(attributes, Mapping), "attributes", "must be a mapping")
            attributes = {str(k): str(v) for k, v in attributes.items()}
        return cls(cluster=str(o.get("cluster", "sim")), hosts=_int(o, "hosts", 1000),
                   shapes=shapes, gpu_hosts=_int(o, "gpu_hosts", 0),
                   gpu_per_host=_num(o, "gpu_per_host", 4),
                   hosts_per_rack=_int(o, "hosts_per_rack", 40), zones=_int(o, "zones", 3),
                   attributes=attributes, failure_rate=_num(o, "failure_rate", 0.0),
                   default_duration=_num(o, "default_duration", 1.0),
                   seed=_int(o, "seed", 0), first_port=_int(o, "first_port", 31000),
                   ports_per_host=_int(o, "ports_per_host", 1000), host_loss=loss,
                   finished_limit=_int(o, "finished_limit", FINISHED_LIMIT),
                   cpu_usage=_num(o, "cpu_usage", 0.5), clock=clock)

    # -- hosts ---------------------------------------------------------------

    def hosts(self) -> list[HostSpec]:
        """The hosts that are up, in index order."""
        if not self._down:
            return list(self._specs)
        down = self._down
        return [spec for spec in self._specs if spec.hostname not in down]

    def host_spec(self, hostname: str) -> HostSpec | None:
        """The spec of one of our hosts, up or down; None if not ours."""
        return self._by_name.get(hostname)

    def is_up(self, hostname: str) -> bool:
        return hostname in self._by_name and hostname not in self._down

    def lose_host(self, hostname: str) -> list[str]:
        """Lose a host now: report each of its live runs LOST, drop it from
        ``hosts()``, then call ``on_host_change(hostname, False)``. Returns the
        mesos task ids reported lost. A host already down is left alone
        (returns []); NotFound if the host is not ours."""
        if hostname not in self._by_name:
            raise NotFound(f"host {hostname!r} is not a simulated host of {self.cluster}",
                           field="hostname")
        if hostname in self._down:
            return []
        self._down.add(hostname)
        lost = sorted(self._on_host.pop(hostname, ()))
        ts = self._clock()
        message = f"host {hostname} was lost"
        for mesos_task_id in lost:
            del self._live[mesos_task_id]
            self._stale += 1
            self._finish(StatusUpdate(mesos_task_id, TaskState.LOST, hostname, message, 0,
                                      REASON_AGENT_REMOVED, ts))
        self._maybe_compact()
        if self.on_host_change is not None:
            self.on_host_change(hostname, False)
        return lost

    def restore_host(self, hostname: str) -> None:
        """Bring a lost host back (empty), then call ``on_host_change(hostname,
        True)``. A host that is up is left alone; NotFound if not ours."""
        if hostname not in self._by_name:
            raise NotFound(f"host {hostname!r} is not a simulated host of {self.cluster}",
                           field="hostname")
        if hostname not in self._down:
            return
        self._down.discard(hostname)
        if self.on_host_change is not None:
            self.on_host_change(hostname, True)

    # -- run -----------------------------------------------------------------

    async def run(self, report: Report, *,
                  task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        if self._report is not None:
            raise FailedPrecondition("the sim backend is already running")
        self._report = report
        try:
            async with trio.open_nursery() as nursery:
                if self.host_loss is not None:
                    nursery.start_soon(self._host_loss_loop, self.host_loss)
                task_status.started()
                await self._timer_loop()
        finally:
            self._report = None
            self._deadline = -math.inf
            self._stop()

    async def _timer_loop(self) -> None:
        heap = self._heap
        while True:
            if heap and heap[0][0] <= trio.current_time():
                self._expire(trio.current_time())
                await trio.lowlevel.checkpoint()
                continue
            self._wakeup = trio.Event()
            self._deadline = heap[0][0] if heap else math.inf
            with trio.move_on_at(self._deadline):
                await self._wakeup.wait()
            self._deadline = -math.inf

    def _expire(self, now: float) -> None:
        """Report up to ``_TIMER_BATCH`` runs due by ``now``."""
        heap = self._heap
        live_runs = self._live
        on_host = self._on_host
        ts = self._clock()
        done = 0
        while heap and heap[0][0] <= now and done < _TIMER_BATCH:
            end, mesos_task_id = heappop(heap)
            live = live_runs.get(mesos_task_id)
            if live is None or live.end != end:
                self._stale -= 1
                continue
            del live_runs[mesos_task_id]
            on_host[live.hostname].discard(mesos_task_id)
            code = live.exit_code
            if code == 0:
                status = StatusUpdate(mesos_task_id, TaskState.SUCCEEDED, live.hostname,
                                      _exit_message(0), 0, "", ts)
            else:
                status = StatusUpdate(mesos_task_id, TaskState.FAILED, live.hostname,
                                      _exit_message(code), code, REASON_COMMAND_FAILED, ts)
            self._finish(status)
            done += 1

    async def _host_loss_loop(self, loss: HostLoss) -> None:
        restores: list[tuple[float, str]] = []
        next_loss = trio.current_time() + loss.every_s
        while True:
            await trio.sleep_until(min(next_loss, restores[0][0] if restores else math.inf))
            now = trio.current_time()
            while restores and restores[0][0] <= now:
                self.restore_host(heappop(restores)[1])
            if next_loss <= now:
                next_loss += loss.every_s
                hostname = self._pick_up_host()
                if hostname is not None:
                    self.lose_host(hostname)
                    heappush(restores, (now + loss.down_s, hostname))

    def _pick_up_host(self) -> str | None:
        specs = self._specs
        if len(self._down) >= len(specs):
            return None
        rng = self._loss_rng
        for _ in range(64):
            hostname = specs[rng.randrange(len(specs))].hostname
            if hostname not in self._down:
                return hostname
        return rng.choice(self.hosts()).hostname  # nearly all down: pick among the rest

    def _stop(self) -> None:
        ts = self._clock()
        for mesos_task_id, live in self._live.items():
            self._record(StatusUpdate(mesos_task_id, TaskState.LOST, live.hostname,
                                      "the sim backend stopped", 0, "", ts))
        self._live.clear()
        self._heap.clear()
        self._on_host.clear()
        self._stale = 0

    # -- launch and kill ------------------------------------------------------

    async def launch(self, specs: Sequence[LaunchSpec]) -> None:
        """Start each run not already known (live or among the remembered
        finished ones); ``RUNNING`` (or a launch ``FAILED``, or ``LOST`` on a
        lost host) is reported for each before this returns. Raises
        FailedPrecondition before ``run()`` has started and InvalidArgument
        (starting nothing) if a spec names a host that is not ours."""
        report = self._report
        if report is None:
            raise FailedPrecondition("the sim backend is not running")
        by_name = self._by_name
        for spec in specs:
            if spec.hostname not in by_name:
                raise InvalidArgument(
                    f"task {spec.mesos_task_id}: host {spec.hostname!r} is not a simulated "
                    f"host of {self.cluster}", field="hostname")
        now = trio.current_time()
        ts = self._clock()
        heap = self._heap
        live_runs = self._live
        finished = self._finished
        on_host = self._on_host
        rate = self.failure_rate
        rng = self._rng
        earliest = math.inf
        for spec in specs:
            mesos_task_id = spec.mesos_task_id
            if mesos_task_id in live_runs or mesos_task_id in finished:
                continue
            hostname = by_name[spec.hostname].hostname  # our own copy of the string
            if hostname in self._down:
                self._finish(StatusUpdate(mesos_task_id, TaskState.LOST, hostname,
                                          f"host {hostname} is lost", 0,
                                          REASON_AGENT_REMOVED, ts))
                continue
            try:
                duration, code = self._plan(spec)
            except ValueError as exc:
                self._finish(StatusUpdate(mesos_task_id, TaskState.FAILED, hostname, str(exc),
                                          0, REASON_LAUNCH_FAILED, ts))
                continue
            if code == 0 and rate and rng.random() < rate:
                code = 1
            end = now + duration
            live_runs[mesos_task_id] = _Live(hostname, ts, end, code)
            on_host[hostname].add(mesos_task_id)
            heappush(heap, (end, mesos_task_id))
            if end < earliest:
                earliest = end
            # Simulated health checks always pass: a checked run is HEALTHY.
            report(StatusUpdate(mesos_task_id, TaskState.RUNNING, hostname, "", 0, "", ts,
                                health=task_pb2.HEALTHY if spec.health is not None else 0))
        if earliest < self._deadline:
            self._wakeup.set()
        await trio.lowlevel.checkpoint()

    def _plan(self, spec: LaunchSpec) -> tuple[float, int]:
        """(duration, exit code) of a run; ValueError if its duration
        variable does not parse."""
        key = (spec.shell, spec.command, spec.arguments)
        plan = self._plans.get(key)
        if plan is None:
            if len(self._plans) >= _PLAN_CACHE_LIMIT:
                self._plans.clear()
            plan = self._plans[key] = plan_command(spec.shell, spec.command, spec.arguments)
        slept, code = plan
        override = spec.environment.get(DURATION_VARIABLE) if spec.environment else None
        if override is not None:
            seconds = _parse_seconds(override)
            if seconds is None:
                raise ValueError(f"{DURATION_VARIABLE}={override!r} is not a duration")
            return seconds, code
        return (self.default_duration if slept is None else slept), code

    async def kill(self, mesos_task_ids: Sequence[str],
                   grace_seconds: float | None = None) -> None:
        """Report ``KILLED`` now for each live run among these (simulated
        runs stop on SIGTERM, so the grace period never matters). Unknown and
        finished runs are ignored."""
        ts = self._clock()
        for mesos_task_id in mesos_task_ids:
            live = self._live.pop(mesos_task_id, None)
            if live is None:
                continue
            self._on_host[live.hostname].discard(mesos_task_id)
            self._stale += 1
            self._finish(StatusUpdate(
                mesos_task_id, TaskState.KILLED, live.hostname,
                "Killed on request: Command terminated by signal 15 (SIGTERM)", -_SIGTERM,
                REASON_KILLED_ON_REQUEST, ts))
        self._maybe_compact()
        await trio.lowlevel.checkpoint()

    def _maybe_compact(self) -> None:
        # Killed and lost runs leave their heap entries behind; rebuild the
        # heap when they are most of it, so memory follows the live runs.
        if self._stale > _COMPACT_AT and 2 * self._stale > len(self._heap):
            live_runs = self._live
            self._heap[:] = [(end, mid) for end, mid in self._heap
                             if (live := live_runs.get(mid)) is not None and live.end == end]
            heapify(self._heap)
            self._stale = 0

    # -- status --------------------------------------------------------------

    def known(self, mesos_task_id: str) -> StatusUpdate | None:
        live = self._live.get(mesos_task_id)
        if live is not None:
            return StatusUpdate(mesos_task_id, TaskState.RUNNING, live.hostname, "", 0, "",
                                live.started)
        return self._finished.get(mesos_task_id)

    def live_count(self) -> int:
        """How many runs are live now."""
        return len(self._live)

    def _record(self, status: StatusUpdate) -> None:
        self._finished[status.mesos_task_id] = status
        order = self._finished_order
        order.append(status.mesos_task_id)
        if len(order) > self._finished_limit:
            self._finished.pop(order.popleft(), None)

    def _finish(self, status: StatusUpdate) -> None:
        self._record(status)
        if self._report is not None:
            self._report(status)

    # -- sandbox -------------------------------------------------------------

    async def read_sandbox_file(self, mesos_task_id: str, path: str, offset: int,
                                length: int) -> tuple[bytes, int, list[str]]:
        """A synthetic sandbox: ``stdout`` holds one line naming the run and
        its host, ``stderr`` is empty."""
        await trio.lowlevel.checkpoint()
        status = self.known(mesos_task_id)
        if status is None:
            raise NotFound(f"task run {mesos_task_id} is not known on this host manager")
        if offset < 0:
            raise InvalidArgument(f"must not be negative, got {offset}", field="offset")
        if length < 0:
            raise InvalidArgument(f"must not be negative, got {length}", field="length")
        if not path:
            return b"", 0, list(SANDBOX_FILES)
        name = posixpath.normpath(path)
        if path.startswith("/") or name == ".." or name.startswith("../"):
            raise InvalidArgument(f"{path!r} is outside the sandbox", field="path")
        if name == "stdout":
            content = f"simulated run of {mesos_task_id} on {status.hostname}\n".encode()
        elif name == "stderr":
            content = b""
        elif name == ".":
            raise InvalidArgument(f"{path!r} is a directory", field="path")
        else:
            raise NotFound(f"{path!r} does not exist in the sandbox", field="path")
        limit = min(length, MAX_READ_BYTES) if length else MAX_READ_BYTES
        return content[offset:offset + limit], len(content), list(SANDBOX_FILES)


# -- hosts -------------------------------------------------------------------


def _make_hosts(cluster: str, count: int, shapes: list[HostShape], gpu_hosts: int,
                gpu_per_host: float, hosts_per_rack: int, zones: int,
                attributes: Attributes | None, ports: tuple[int, int]) -> list[HostSpec]:
    plain = [Resources(s.cpu, s.memory_mb, s.disk_mb, s.gpu) for s in shapes]
    gpu = [Resources(s.cpu, s.memory_mb, s.disk_mb, gpu_per_host) for s in shapes]
    zone_names = [f"zone-{z}" for z in range(zones)]
    static = attributes if isinstance(attributes, Mapping) else None
    per_host = attributes if callable(attributes) else None
    first_gpu = count - gpu_hosts
    n_shapes = len(shapes)
    specs: list[HostSpec] = []
    append = specs.append
    rack_index = -1
    rack = ""
    for i in range(count):
        if i // hosts_per_rack != rack_index:
            rack_index = i // hosts_per_rack
            rack = f"rack-{rack_index}"
        hostname = f"{cluster}-h{i:05d}"
        attrs = {"rack": rack, "zone": zone_names[i % zones]}
        if static is not None:
            attrs.update(static)
        elif per_host is not None:
            attrs.update(per_host(i))
        attrs["cluster"] = cluster
        attrs["hostname"] = hostname
        append(HostSpec(hostname, f"{cluster}-S{i}",
                        (gpu if i >= first_gpu else plain)[i % n_shapes], ports, attrs,
                        cluster))
    return specs


# -- commands ----------------------------------------------------------------

_SEPARATOR = re.compile(r"(&&|\|\||[;\n&|])")
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ash", "ksh"})
_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def plan_command(shell: bool, command: str, arguments: Sequence[str] = (),
                 ) -> tuple[float | None, int]:
    """What a simulated run of this command does: (seconds it sleeps, or
    None when it only runs commands of unknown length; exit code). See the
    module docstring for the rules. Pure."""
    if not shell:
        argv = list(arguments) or [command]
        if len(argv) >= 3 and _base(argv[0]) in _SHELLS and argv[1] == "-c":
            return _plan_script(argv[2])
        return _plan_script_words([argv])
    return _plan_script(command)


def _plan_script(script: str) -> tuple[float | None, int]:
    parts = _SEPARATOR.split(script)
    # parts alternate: command, separator, command, ...
    commands: list[list[str]] = []
    separators: list[str] = []
    for n, part in enumerate(parts):
        if n % 2:
            separators.append(part)
        else:
            commands.append(part.split())
    return _plan_script_words(commands, separators)


def _plan_script_words(commands: list[list[str]], separators: Sequence[str] = (),
                       ) -> tuple[float | None, int]:
    slept = 0.0
    did_sleep = False
    did_other = False
    status = 0
    for n, words in enumerate(commands):
        if n and ((separators[n - 1] == "&&" and status != 0)
                  or (separators[n - 1] == "||" and status == 0)):
            continue  # skipped by the last status
        if not words:
            continue
        name = _base(words[0])
        if name == "sleep":
            seconds = 0.0
            for arg in words[1:]:
                value = _parse_seconds(arg)
                if value is None:
                    status = 1  # sleep: invalid time interval
                    break
                seconds += value
            else:
                if len(words) > 1:
                    slept += seconds
                    did_sleep = True
                    status = 0
                else:
                    status = 1  # sleep: missing operand
        elif name in ("true", ":"):
            status = 0
        elif name == "false":
            status = 1
        elif name == "exit":
            if len(words) > 1:
                try:
                    status = int(words[1]) % 256
                except ValueError:
                    status = 2  # sh: exit: Illegal number
            break
        else:
            did_other = True
            status = 0
    if did_sleep:
        return slept, status
    return (None if did_other else 0.0), status


def _base(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def _parse_seconds(text: str) -> float | None:
    """GNU sleep's NUMBER[smhd] (or ``inf``/``infinity``) in seconds; None
    if it does not parse or is negative."""
    text = text.strip()
    unit = _UNITS.get(text[-1:], 0.0)
    number = text[:-1] if unit else text
    if not unit:
        unit = 1.0
    try:
        value = float(number)
    except ValueError:
        return None
    if math.isnan(value) or value < 0:
        return None
    return value * unit


_EXIT_MESSAGES: dict[int, str] = {}


def _exit_message(code: int) -> str:
    message = _EXIT_MESSAGES.get(code)
    if message is None:
        message = _EXIT_MESSAGES[code] = f"Command exited with status {code}"
    return message


def _check(ok: bool, field: str, message: str) -> None:
    if not ok:
        raise InvalidArgument(message, field=field)


def _num(options: Mapping[str, Any], key: str, default: float, prefix: str = "") -> float:
    value = options.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidArgument(f"must be a number, got {value!r}", field=prefix + key)
    return float(value)


def _int(options: Mapping[str, Any], key: str, default: int) -> int:
    value = options.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"must be an integer, got {value!r}", field=key)
    return value
