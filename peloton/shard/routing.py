"""Where a shard's owner is, from the latest cluster view (pure)."""

from __future__ import annotations

from typing import Any

from peloton.core.errors import Unavailable


def owner_of(view: Any, shard: int) -> tuple[str, str]:
    """(owner id, owner's gRPC address) of ``shard`` in a ``ClusterView``;
    Unavailable while the shard has no owner that is a live member."""
    for s in view.shards:
        if s.shard == shard:
            for m in view.members:
                if m.id == s.owner:
                    return m.id, m.address
            break
    raise Unavailable(f"shard {shard} has no owner right now; retry shortly")
