"""The daemon's housekeeping: long-lived objects leave the cyclic GC's reach."""

from __future__ import annotations

import gc
import os
import pathlib
import sys

import pytest
import trio
import trio.testing

from peloton.daemon import GC_FREEZE_PERIOD, freeze_long_lived


async def test_objects_alive_are_frozen_at_start_and_every_period(
        autojump_clock: trio.testing.MockClock) -> None:
    gc.unfreeze()
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(freeze_long_lived)
            await trio.testing.wait_all_tasks_blocked()  # the first freeze runs at once
            frozen = gc.get_freeze_count()
            assert frozen > 0
            survivors = [[i] for i in range(1000)]  # containers: tracked by the GC
            await trio.sleep(GC_FREEZE_PERIOD + 0.01)
            assert gc.get_freeze_count() >= frozen + len(survivors)
            nursery.cancel_scope.cancel()
    finally:
        gc.unfreeze()


def test_a_daemon_collects_cycles_every_50000_allocations_not_700(
        monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path) -> None:
    from peloton import daemon

    seen: list[tuple[int, int, int]] = []
    monkeypatch.setattr(daemon.trio, "run", lambda *args, **kwargs: seen.append(
        gc.get_threshold()))
    # main also sets the process's switch interval and umask: put them back.
    before, interval, mask = gc.get_threshold(), sys.getswitchinterval(), os.umask(0o022)
    try:
        assert daemon.main(["jobmgr", "--config", str(tmp_path / "c.yaml"),
                            "--name", "jobmgr-0"]) == 0
    finally:
        gc.set_threshold(*before)
        sys.setswitchinterval(interval)
        os.umask(mask)
    assert seen == [daemon.GC_THRESHOLD] and daemon.GC_THRESHOLD[0] == 50_000
