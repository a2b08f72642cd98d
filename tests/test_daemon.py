"""The daemon's housekeeping: long-lived objects leave the cyclic GC's reach."""

from __future__ import annotations

import gc

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
