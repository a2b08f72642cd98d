"""Which live jobmgr owns which shard (pure; applied in resmgr's Raft state).

Deterministic: every replica computes the same map from the same inputs.
"""

from __future__ import annotations

import collections
from collections.abc import Collection, Mapping
from dataclasses import dataclass


@dataclass(slots=True)
class Ownership:
    owner: str
    epoch: int
    # resmgr time from which the owner may act: when the previous owner's
    # membership ran out (it stops acting before then), or when assigned.
    act_from: float
    # Whether the owner has heartbeated since it got the shard: only then
    # can it know it owns it, and act. A shard moves from an owner that was
    # never told at once: nothing of it is acting to wait out.
    told: bool = False


def tell(shards: dict[int, Ownership], member: str) -> None:
    """``member`` heartbeated: the reply tells it every shard it owns."""
    for ownership in shards.values():
        if ownership.owner == member:
            ownership.told = True


def _free_from(current: Ownership | None, members: Mapping[str, float], now: float) -> float:
    """When the owner after ``current`` may act: once ``current``'s owner
    stopped (its membership ended). An owner that never knew of the shard
    never acted on it: then once the one before it stopped, as ``current``
    would have."""
    if current is None:
        return now
    if not current.told:
        return max(now, current.act_from)
    return max(now, members.get(current.owner, now))


def assign(shards: dict[int, Ownership], members: Mapping[str, float],
           eligible: Collection[str], num_shards: int, now: float) -> None:
    """Give every shard of ``range(num_shards)`` an owner among the live
    ``eligible`` jobmgrs, in place, and rebalance. ``members`` maps every
    jobmgr member to when its membership expires.

    A shard keeps a live eligible owner. A shard with none goes to the least
    loaded one (ties by id); a shard moved away from a member may be acted on
    only once that member's membership ends (it stops acting before then),
    or at once if that member was never told it owned it.
    Every change bumps the shard's epoch. With no live eligible jobmgr
    nothing changes.
    """
    live = {m: members[m] for m in eligible if m in members and members[m] > now}
    if not live:
        return
    ids = sorted(live)
    counts = collections.Counter({m: 0 for m in ids})
    for ownership in shards.values():
        if ownership.owner in counts:
            counts[ownership.owner] += 1
    for s in range(num_shards):
        current = shards.get(s)
        if current is not None and current.owner in counts:
            continue
        owner = min(ids, key=lambda m: (counts[m], m))
        shards[s] = Ownership(owner, (current.epoch if current else 0) + 1,
                              _free_from(current, members, now))
        counts[owner] += 1
    while True:
        most = max(ids, key=lambda m: (counts[m], m))
        least = min(ids, key=lambda m: (counts[m], m))
        if counts[most] - counts[least] <= 1:
            break
        s = max(i for i, o in shards.items() if o.owner == most)
        shards[s] = Ownership(least, shards[s].epoch + 1, _free_from(shards[s], live, now))
        counts[most] -= 1
        counts[least] += 1
