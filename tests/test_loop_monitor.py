"""The loop monitor: ready waits and long steps, named by where they stopped."""

from __future__ import annotations

import pytest
import trio

from peloton import daemon
from peloton.observability import loop


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def hog(clock: FakeClock, seconds: float) -> None:
    clock.now += seconds  # a step that holds the loop this long
    await trio.lowlevel.checkpoint()


def test_long_steps_are_counted_by_task_and_where_they_handed_the_loop_back() -> None:
    clock = FakeClock()
    monitor = loop.LoopMonitor(long_step=0.02, period=1e9, clock=clock, cpu_clock=clock)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            for _ in range(3):
                nursery.start_soon(hog, clock, 0.05)
            nursery.start_soon(hog, clock, 0.001)

    trio.run(main, instruments=[monitor])
    (place,) = monitor.long
    # From where the step resumed (here the coroutine's start) to the await
    # that ended it.
    name, steps = place.split(": ")
    resumed, suspended = steps.split(" -> ")
    assert name == "tests.test_loop_monitor.hog"
    assert resumed.startswith("test_loop_monitor.py:") and resumed.endswith("(hog)")
    assert suspended.startswith("test_loop_monitor.py:") and suspended.endswith("(hog)")
    assert resumed != suspended
    assert monitor.long[place] == 3
    assert monitor.long_s[place] == pytest.approx(0.15)
    assert monitor.long_max[place] == pytest.approx(0.05)
    # The steps ran one after another (in an order trio may shuffle): the
    # last of a batch waited for at least two hogs' steps.
    assert 0.1 <= monitor.max_wait <= 0.15 + 1e-9
    report = monitor.report(clock.now)
    assert "3 steps over 20 ms (0.15s)" in report
    assert f"0.15s (cpu 0.15s) in 3 (max 50 ms) {place}" in report


def test_it_reports_and_starts_over_every_period(caplog: pytest.LogCaptureFixture) -> None:
    clock = FakeClock()
    monitor = loop.LoopMonitor(long_step=0.02, period=1.0, clock=clock)

    async def main() -> None:
        await hog(clock, 0.5)
        await hog(clock, 0.6)  # the period is over when this step ends
        await hog(clock, 0.001)

    with caplog.at_level("INFO", logger=loop.__name__):
        trio.run(main, instruments=[monitor])
    (line,) = [r.getMessage() for r in caplog.records]
    assert line.startswith("loop: ")
    assert "2 steps over 20 ms (1.10s)" in line
    assert not monitor.long  # counted afresh after the report


def test_percentile_reads_the_histogram() -> None:
    counts = [0] * (len(loop._BOUNDS) + 1)
    counts[0] = 98  # <= 0.1 ms
    counts[9] = 2  # <= 100 ms
    assert loop.percentile(counts, 0.5) == 0.0001
    assert loop.percentile(counts, 0.99) == 0.1
    assert loop.percentile([0] * len(counts), 0.99) == 0.0


def test_the_environment_turns_it_on_or_is_refused(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv(loop.ENV, raising=False)
    assert loop.from_environment() == []
    monkeypatch.setenv(loop.ENV, "25")
    (monitor,) = loop.from_environment()
    assert isinstance(monitor, loop.LoopMonitor) and monitor.long_step == 0.025
    for bad in ("soon", "0", "-3"):
        monkeypatch.setenv(loop.ENV, bad)
        with pytest.raises(ValueError, match=loop.ENV):
            loop.from_environment()
    # A daemon refuses to start with it, naming the variable.
    assert daemon.main(["resmgr", "--config", "/nonexistent.yaml", "--name", "x"]) == 2
    assert loop.ENV in capsys.readouterr().err
