"""Host pools: each host in exactly one, default kept, moves checked."""

from __future__ import annotations

import pytest

from peloton.core.errors import AlreadyExists, FailedPrecondition, InvalidArgument, NotFound
from peloton.hostmgr.hostpools import DEFAULT_POOL, HostPools


def pools_of(*hosts: str) -> HostPools:
    pools = HostPools()
    for h in hosts:
        assert pools.add_host(h) == DEFAULT_POOL
    return pools


def test_create_change_delete() -> None:
    pools = pools_of("h1", "h2", "h3")
    pools.create("batch")
    with pytest.raises(AlreadyExists):
        pools.create("batch")
    with pytest.raises(InvalidArgument, match="name"):
        pools.create("bad\x00name")
    pools.change("h2", DEFAULT_POOL, "batch")
    assert pools.pools() == {"batch": ["h2"], "default": ["h1", "h3"]}
    with pytest.raises(FailedPrecondition, match="is in pool 'batch'"):
        pools.change("h2", DEFAULT_POOL, "batch")
    with pytest.raises(NotFound):
        pools.change("h9", DEFAULT_POOL, "batch")
    with pytest.raises(NotFound):
        pools.change("h1", DEFAULT_POOL, "nope")
    assert pools.delete("batch") == ["h2"]
    assert pools.pools() == {"default": ["h1", "h2", "h3"]}
    with pytest.raises(InvalidArgument, match="default"):
        pools.delete(DEFAULT_POOL)


def test_move_hosts_to_the_wanted_numbers_in_order() -> None:
    pools = pools_of("h1", "h2", "h3", "h4")
    pools.create("stateless")
    assert pools.move(DEFAULT_POOL, 1, "stateless", 3, ["h4", "h3", "h2", "h1"]) == [
        "h4", "h3", "h2"]
    assert pools.pools()["default"] == ["h1"]
    with pytest.raises(InvalidArgument, match="add up to 4"):
        pools.move(DEFAULT_POOL, 0, "stateless", 3, [])
    with pytest.raises(InvalidArgument, match="fewer than"):
        pools.move(DEFAULT_POOL, 2, "stateless", 2, [])


def test_pools_survive_a_restart() -> None:
    pools = pools_of("h1", "h2")
    pools.create("gpu")
    pools.change("h1", DEFAULT_POOL, "gpu")
    again = HostPools()
    again.load(pools.to_json())
    assert again.add_host("h1") == "gpu" and again.add_host("h2") == DEFAULT_POOL
    assert again.pools() == pools.pools()
