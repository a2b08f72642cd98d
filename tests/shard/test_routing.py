"""Where a shard's owner is, as a jobmgr routes by it (``shard.routing``)."""

from __future__ import annotations

import pytest

from peloton.api.private.cluster import cluster_pb2 as cpb
from peloton.core.errors import Unavailable
from peloton.shard.routing import owner_of, shard_owners


def test_each_shard_has_its_owner_and_the_owners_address() -> None:
    view = cpb.ClusterView(
        members=[cpb.Member(id="j1", kind="jobmgr", address="127.0.0.1:1"),
                 cpb.Member(id="j2", kind="jobmgr", address="127.0.0.1:2")],
        shards=[cpb.ShardOwner(shard=0, owner="j1"), cpb.ShardOwner(shard=1, owner="j2"),
                cpb.ShardOwner(shard=2, owner="gone"), cpb.ShardOwner(shard=3, owner="")])
    owners = shard_owners(view)
    assert owners == {0: ("j1", "127.0.0.1:1"), 1: ("j2", "127.0.0.1:2"), 2: ("gone", None),
                      3: ("", None)}
    assert owner_of(owners, 0) == ("j1", "127.0.0.1:1")
    assert owner_of(owners, 1) == ("j2", "127.0.0.1:2")
    for shard in (2, 3, 4):  # not a live member's, no owner, not in the view
        with pytest.raises(Unavailable, match=f"shard {shard} has no owner"):
            owner_of(owners, shard)
