"""What a daemon's trio loop does with its time: a diagnostic instrument.

A small job's path crosses a dozen trio loops (client, jobmgr, resmgr,
placement, host managers). At each it waits twice: for its task's turn
after it became runnable (the *ready wait*: every step scheduled ahead of
it runs first), and for any step that runs long without a checkpoint. Under
a bulk load those waits are the probe tail. ``LoopMonitor`` measures both:
every ``period`` seconds it logs the steps run, the share of the time spent
in them, the ready wait's p50/p99/max and the steps longer than
``long_step`` seconds, grouped by task and by where each long step
resumed and suspended (the awaits around the code that held the loop),
with the loop thread's own cpu in them: a step much longer than its cpu
waited for the GIL (another thread of the process ran) or for a core.

It costs a few clock reads, a dict update and a walk down the task's
coroutine chain a step (a few microseconds), so it is off unless asked
for: a daemon started with ``PELOTON_LOOP_MONITOR`` set to a
number of milliseconds installs it with that ``long_step``
(``python -m loadtest SCENARIO --loop-monitor`` sets it for every daemon).
"""

from __future__ import annotations

import bisect
import logging
import os
import time
from collections import Counter
from types import CodeType
from typing import Any

import trio

log = logging.getLogger(__name__)

ENV = "PELOTON_LOOP_MONITOR"
PERIOD = 10.0
# Upper bounds (seconds) of the ready wait's histogram buckets; the last is open.
_BOUNDS = (0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2,
           0.5, 1.0, 2.0, 5.0)
# The most long-step places one report names.
_TOP = 8
# Frames of these are skipped when naming where a step stopped.
_LIBRARIES = (f"{os.sep}trio{os.sep}", f"{os.sep}grpclib{os.sep}", f"{os.sep}contextlib")


Place = tuple[CodeType, int] | None


def _suspended_at(coro: Any) -> Place:
    """(code, line) of the innermost frame of a suspended coroutine chain
    that is not trio's or grpclib's own: where a step that just ended handed
    the loop back. Read every step; made text (``_describe``) only for the
    long ones."""
    where: Place = None
    for _ in range(64):
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
        if frame is None:
            break
        code = frame.f_code
        if where is None or not any(part in code.co_filename for part in _LIBRARIES):
            where = (code, frame.f_lineno)
        coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
    return where


def _describe(where: Place, otherwise: str) -> str:
    """``file:line (function)``, or ``otherwise`` for no frame."""
    if where is None:
        return otherwise
    code, line = where
    return f"{os.path.basename(code.co_filename)}:{line} ({code.co_name})"


def percentile(counts: list[int], q: float) -> float:
    """The upper bound of the bucket holding the ``q`` quantile of a
    histogram over ``_BOUNDS`` (the open last bucket reports twice the
    largest bound)."""
    total = sum(counts)
    if not total:
        return 0.0
    rank = q * total
    seen = 0
    for i, n in enumerate(counts):
        seen += n
        if seen >= rank:
            return _BOUNDS[i] if i < len(_BOUNDS) else _BOUNDS[-1] * 2
    return _BOUNDS[-1] * 2


class LoopMonitor(trio.abc.Instrument):
    def __init__(self, long_step: float = 0.02, period: float = PERIOD,
                 clock: Any = time.perf_counter, cpu_clock: Any = time.thread_time) -> None:
        self.long_step = long_step
        self.period = period
        self._clock = clock
        self._cpu_clock = cpu_clock
        self._cpu_began = 0.0
        self._scheduled: dict[trio.lowlevel.Task, float] = {}
        self._began = 0.0
        self._resumed_at: Place = None
        self._reset(clock())

    def _reset(self, now: float) -> None:
        self.since = now
        self.steps = 0
        self.busy = 0.0
        self.max_wait = 0.0
        self.waits = [0] * (len(_BOUNDS) + 1)
        self.long: Counter[str] = Counter()  # place -> count
        self.long_s: Counter[str] = Counter()  # place -> seconds
        self.long_cpu: Counter[str] = Counter()  # place -> this thread's cpu seconds
        self.long_max: dict[str, float] = {}

    def task_scheduled(self, task: trio.lowlevel.Task) -> None:
        self._scheduled[task] = self._clock()

    def task_exited(self, task: trio.lowlevel.Task) -> None:
        self._scheduled.pop(task, None)

    def before_task_step(self, task: trio.lowlevel.Task) -> None:
        self._resumed_at = _suspended_at(task.coro)
        self._cpu_began = self._cpu_clock()
        now = self._began = self._clock()
        queued = self._scheduled.pop(task, None)
        if queued is not None:
            wait = now - queued
            self.waits[bisect.bisect_left(_BOUNDS, wait)] += 1
            if wait > self.max_wait:
                self.max_wait = wait

    def after_task_step(self, task: trio.lowlevel.Task) -> None:
        now = self._clock()
        ran = now - self._began
        self.steps += 1
        self.busy += ran
        if ran >= self.long_step:
            place = (f"{task.name}: {_describe(self._resumed_at, 'start')} -> "
                     f"{_describe(_suspended_at(task.coro), 'end')}")
            self.long[place] += 1
            self.long_s[place] += ran
            self.long_cpu[place] += self._cpu_clock() - self._cpu_began
            if ran > self.long_max.get(place, 0.0):
                self.long_max[place] = ran
        if now - self.since >= self.period:
            log.info("%s", self.report(now))
            self._reset(now)

    def report(self, now: float) -> str:
        span = max(now - self.since, 1e-9)
        long_total = sum(self.long_s.values())
        head = (f"loop: {self.steps} steps in {span:.1f}s, busy {self.busy / span:.0%}; "
                f"ready wait p50 {percentile(self.waits, 0.5) * 1000:g} ms, "
                f"p99 {percentile(self.waits, 0.99) * 1000:g} ms, "
                f"max {self.max_wait * 1000:.0f} ms; "
                f"{sum(self.long.values())} steps over {self.long_step * 1000:g} ms "
                f"({long_total:.2f}s)")
        top = sorted(self.long_s, key=self.long_s.__getitem__, reverse=True)[:_TOP]
        return head + "".join(
            f"\n  {self.long_s[p]:.2f}s (cpu {self.long_cpu[p]:.2f}s) in {self.long[p]} "
            f"(max {self.long_max[p] * 1000:.0f} ms) {p}" for p in top)


def from_environment() -> list[trio.abc.Instrument]:
    """A ``LoopMonitor`` when ``PELOTON_LOOP_MONITOR`` names its long step
    in milliseconds; none otherwise. A value that is not a positive number
    is refused, naming the variable."""
    value = os.environ.get(ENV, "").strip()
    if not value:
        return []
    try:
        ms = float(value)
    except ValueError:
        ms = -1.0
    if not ms > 0:
        raise ValueError(f"{ENV} must be a positive number of milliseconds, not {value!r}")
    return [LoopMonitor(long_step=ms / 1000)]
