"""How a jobmgr spreads its shards' full reconcile rounds over time."""

from __future__ import annotations

from peloton.jobmgr.service import FULL_RECONCILE_EVERY, full_round


def test_full_reconcile_rounds_are_spread_over_the_shards() -> None:
    """Every shard asks about all its runs first, then once every
    FULL_RECONCILE_EVERY rounds; the shards of an owner take turns, so a
    round never has more than its share of them asking about everything."""
    shards = range(16)
    assert all(full_round(0, s) for s in shards)
    for rounds in range(1, 4 * FULL_RECONCILE_EVERY):
        full = [s for s in shards if full_round(rounds, s)]
        assert len(full) == 16 // FULL_RECONCILE_EVERY
    for s in shards:
        assert sum(full_round(r, s) for r in range(1, FULL_RECONCILE_EVERY + 1)) == 1
