"""Slack from the host managers in resmgr: when a report is worth a Raft
command, and what a shrinking slack does to the slack entitlement (the
figure preemption reclaims revocable tasks by)."""

from __future__ import annotations

import pytest

from peloton.core.resources import Resources
from peloton.resmgr.service import slack_changed
from tests.resmgr.test_admission import capacity, ready, three_pools, waiting
from tests.resmgr.test_state import enqueue, ok, task


@pytest.mark.parametrize(("known", "reported", "propose"), [
    (None, 0.0, True),  # never reported
    (0.0, 0.0, False),
    (0.0, 0.3, True),  # slack appears, however little
    (0.3, 0.0, True),  # and disappears
    (10.0, 10.9, False),  # under 1 cpu
    (10.0, 11.0, True),
    (10.0, 9.0, True),
    (100.0, 104.0, False),  # under 5 %
    (100.0, 95.0, True),
    (1000.0, 1049.0, False),
    (1000.0, 1050.0, True),
])
def test_slack_is_proposed_only_when_it_moved_enough(known: float | None, reported: float,
                                                     propose: bool) -> None:
    known_slack = None if known is None else Resources(cpu=known)
    assert slack_changed(known_slack, [reported, 0.0, 0.0, 0.0]) is propose


def test_shrinking_slack_leaves_revocable_work_above_its_slack_entitlement() -> None:
    """The reclaim path: hostmgr's slack falls below what revocable tasks
    hold, resmgr's slack entitlement follows it down, and the pool's slack
    allocation exceeds it (what inter-pool preemption frees, revocable tasks
    first); new revocable gangs wait meanwhile."""
    s = three_pools()
    capacity(s, 100)
    ok(s, "cluster.capacity", {"cluster": "c1", "physical": [100, 0, 0, 0],
                               "slack": [4, 0, 0, 0]})
    enqueue(s, "p1", *[[task(i, revocable=True)] for i in range(4)])
    assert ready(s, 0, 1, 2, 3) == [True] * 4
    assert s.entitlements["p1"].slack_entitlement.cpu == pytest.approx(4)
    # Non-revocable tasks got busy: only 1 idle cpu is left in the cluster.
    ok(s, "cluster.capacity", {"cluster": "c1", "physical": [100, 0, 0, 0],
                               "slack": [1, 0, 0, 0]})
    # The allocation stays (the tasks run) but the slack entitlement follows
    # the slack down: 3 cpus over it, what preemption frees (revocable first).
    pool = s.pools["p1"]
    assert pool.slack_allocation.cpu == 4
    assert s.entitlements["p1"].slack_entitlement.cpu == pytest.approx(1)
    enqueue(s, "p1", [task(9, revocable=True)])
    assert waiting(s, "p1") == [("revocable", "slack entitlement: cpu 4 + 1 > 1")]
