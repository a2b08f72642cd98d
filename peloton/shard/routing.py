"""Where a shard's owner is, from the latest cluster view (pure)."""

from __future__ import annotations

from typing import Any

from peloton.core.errors import Unavailable

# shard -> (owner id, owner's gRPC address, None while the owner is not a
# live member): what a ClusterView says of each shard, made once a view.
Owners = dict[int, tuple[str, str | None]]


def shard_owners(view: Any) -> Owners:
    """Each shard of a ``ClusterView`` with its owner (``""``: none) and
    that owner's address. A jobmgr routes every call by it: one look-up,
    not a scan of the view's shards and members a call."""
    addresses = {m.id: m.address for m in view.members}
    return {s.shard: (s.owner, addresses.get(s.owner)) for s in view.shards}


def owner_of(owners: Owners, shard: int) -> tuple[str, str]:
    """(owner id, owner's gRPC address) of ``shard``; Unavailable while the
    shard has no owner that is a live member."""
    owner, address = owners.get(shard, ("", None))
    if address is None:
        raise Unavailable(f"shard {shard} has no owner right now; retry shortly")
    return owner, address
