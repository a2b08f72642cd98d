"""The lease a jobmgr counts for itself, and the shard assignment (pure)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from peloton.shard.assignment import Ownership, assign, tell
from peloton.shard.lease import Lease, local_act_from


def test_the_lease_counts_from_when_the_heartbeat_was_sent() -> None:
    lease = Lease().renewed(sent_at=100.0, duration=10.0, margin=1.5)
    assert lease.ends_at == 108.5  # not from the reply's arrival, however late
    assert lease.acting(108.4) and not lease.acting(108.5)


def test_a_late_reply_to_an_older_heartbeat_never_shortens_the_lease() -> None:
    lease = Lease().renewed(sent_at=105.0, duration=10.0, margin=1.5)
    assert lease.renewed(sent_at=101.0, duration=10.0, margin=1.5) == lease


def test_no_lease_before_the_first_heartbeat() -> None:
    assert not Lease().acting(0.0)


def test_act_from_is_late_rather_than_early() -> None:
    # resmgr said "from 1005" in a view made at 1000 (its clock); the reply
    # arrived at 50 on ours: act from 55, never before.
    assert local_act_from(received_at=50.0, view_now=1000.0, act_from=1005.0) == 55.0
    assert local_act_from(received_at=50.0, view_now=1000.0, act_from=990.0) == 50.0


def test_unowned_shards_go_to_the_least_loaded_in_id_order() -> None:
    shards: dict[int, Ownership] = {}
    assign(shards, {"a": 20.0, "b": 20.0}, ["a", "b"], 4, now=10.0)
    assert {s: (o.owner, o.epoch, o.act_from) for s, o in shards.items()} == {
        0: ("a", 1, 10.0), 1: ("b", 1, 10.0), 2: ("a", 1, 10.0), 3: ("b", 1, 10.0)}


def test_a_newcomer_gets_shards_from_the_old_owner_after_its_membership_ends() -> None:
    shards: dict[int, Ownership] = {}
    assign(shards, {"a": 20.0}, ["a"], 4, now=10.0)
    tell(shards, "a")
    assign(shards, {"a": 25.0, "b": 25.0}, ["a", "b"], 4, now=12.0)
    moved = {s: o for s, o in shards.items() if o.owner == "b"}
    assert len(moved) == 2
    assert all((o.epoch, o.act_from, o.told) == (2, 25.0, False) for o in moved.values())


def test_a_shard_moves_at_once_from_an_owner_never_told_of_it() -> None:
    """Jobmgrs that start a moment apart: the first map went to the first
    alone, and it has not heartbeated since, so it acts on nothing."""
    shards: dict[int, Ownership] = {}
    assign(shards, {"a": 20.0}, ["a"], 4, now=10.0)
    assign(shards, {"a": 20.0, "b": 21.0}, ["a", "b"], 4, now=11.0)
    assert {(o.owner, o.epoch, o.act_from) for o in shards.values() if o.owner == "b"} == {
        ("b", 2, 11.0)}


def test_a_shard_never_told_to_its_owner_waits_for_the_one_before() -> None:
    """a knew and acted; the shard went to b, which never heard of it, then
    to c: c still waits for a's membership to end."""
    shards: dict[int, Ownership] = {}
    assign(shards, {"a": 20.0}, ["a"], 2, now=10.0)
    tell(shards, "a")
    assign(shards, {"a": 25.0, "b": 25.0}, ["a", "b"], 2, now=12.0)
    assert shards[1] == Ownership("b", 2, 25.0)
    assign(shards, {"a": 25.0, "c": 26.0}, ["a", "c"], 2, now=13.0)  # b left untold
    assert shards[1] == Ownership("c", 3, 25.0)


def test_an_expired_owners_shards_move_from_its_expiry() -> None:
    shards: dict[int, Ownership] = {}
    assign(shards, {"a": 20.0, "b": 20.0}, ["a", "b"], 2, now=10.0)
    tell(shards, "a")
    assign(shards, {"a": 20.0, "b": 40.0}, ["a", "b"], 2, now=21.0)
    assert all(o.owner == "b" for o in shards.values())
    assert shards[0] == Ownership("b", 2, 21.0)


def test_a_jobmgr_that_disagrees_on_the_count_gets_no_shard() -> None:
    shards: dict[int, Ownership] = {}
    assign(shards, {"a": 20.0, "odd": 20.0}, ["a"], 4, now=10.0)
    assert {o.owner for o in shards.values()} == {"a"}


def test_nothing_changes_without_a_live_eligible_jobmgr() -> None:
    shards = {0: Ownership("a", 3, 1.0)}
    assign(shards, {"a": 5.0}, ["a"], 1, now=10.0)
    assert shards == {0: Ownership("a", 3, 1.0)}


@given(st.lists(st.tuples(st.sampled_from("abcde"), st.booleans()), min_size=1, max_size=30),
       st.integers(1, 40))
def test_every_shard_has_one_live_owner_and_counts_differ_by_at_most_one(
        steps: list[tuple[str, bool]], num_shards: int) -> None:
    shards: dict[int, Ownership] = {}
    members: dict[str, float] = {}
    now = 0.0
    for member, join in steps:
        now += 1.0
        if join:
            members[member] = 0.0
        else:
            members.pop(member, None)
        members = {m: now + 10.0 for m in members}  # the others heartbeat too
        before = {s: (o.owner, o.epoch) for s, o in shards.items()}
        assign(shards, members, list(members), num_shards, now)
        if not members:
            continue
        assert set(shards) == set(range(num_shards))
        assert all(o.owner in members for o in shards.values())
        counts = [sum(o.owner == m for o in shards.values()) for m in members]
        assert max(counts) - min(counts) <= 1
        for s, o in shards.items():  # every change of owner bumps the epoch
            if s in before and before[s][0] != o.owner:
                assert o.epoch == before[s][1] + 1
