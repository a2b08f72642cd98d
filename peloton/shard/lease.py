"""A jobmgr's lease on its shards, as the jobmgr itself counts it (pure).

resmgr keeps a member alive until ``applied_at + MEMBER_LEASE``, where
``applied_at`` is when its heartbeat was applied, which is after it was
sent. So a lease the jobmgr counts from the *send* time ends no later than
resmgr's, and with a margin for clock rates and ticks it ends strictly
earlier: the old owner has stopped before any new owner may start.

All times here are the jobmgr's own monotonic clock, except ``view_now``
and ``act_from``, which are resmgr's wall-clock stamps; only their
difference is used.
"""

from __future__ import annotations

from dataclasses import dataclass

# A jobmgr stops acting this long before resmgr could let its membership
# lapse (the Raft tick that expires members runs twice a second; clocks
# drift a little).
FENCE_MARGIN = 1.5


@dataclass(frozen=True, slots=True)
class Lease:
    """Until when this jobmgr may act on the shards it owns."""

    ends_at: float = float("-inf")

    def renewed(self, sent_at: float, duration: float, margin: float = FENCE_MARGIN) -> Lease:
        """The lease after a heartbeat sent at ``sent_at`` succeeded (a late
        reply to an older heartbeat never shortens it)."""
        return Lease(max(self.ends_at, sent_at + duration - margin))

    def acting(self, now: float) -> bool:
        return now < self.ends_at


def local_act_from(received_at: float, view_now: float, act_from: float) -> float:
    """When, on this jobmgr's clock, it may act on a shard that resmgr says
    may be acted on from ``act_from`` (resmgr's clock, which read
    ``view_now`` when it made the view this jobmgr received at
    ``received_at``). Late rather than early: the reply left resmgr before
    it arrived."""
    return received_at + max(0.0, act_from - view_now)
