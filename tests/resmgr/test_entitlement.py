"""Entitlement (reference/peloton.md §4.4): Peloton's worked example and
hand-computed cases as tables, then Hypothesis properties over random trees
and random levels against naive references: a bisection water-filling and
Peloton's literal phase-2 round loop."""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from peloton.core.errors import Internal
from peloton.core.resources import KINDS, Resources
from peloton.resmgr.entitlement import (
    Claim,
    Entitlement,
    PoolInput,
    claims_of,
    compute,
    distribute_level,
    rollup,
    slack_levels,
    water_fill,
)

INF = math.inf
ZERO = Resources()
ELASTIC = (False, False, False, False)
STATIC = (True, True, True, True)


def uni(x: float) -> Resources:
    return Resources(x, x, x, x)


def pool(pid: str, parent: str | None = "root", *, res: float | Resources = 0.0,
         limit: float | Resources = INF, share: float | Resources = 1.0,
         static: tuple[bool, bool, bool, bool] = ELASTIC, demand: float | Resources = 0.0,
         allocation: Resources = ZERO, slack_demand: Resources = ZERO,
         slack_allocation: Resources = ZERO, slack_pct: float = 20.0) -> PoolInput:
    def vec(v: float | Resources) -> Resources:
        return v if isinstance(v, Resources) else uni(v)
    return PoolInput(pid, parent, (), vec(res), vec(limit), vec(share), static, vec(demand),
                     allocation, slack_demand, slack_allocation, slack_pct)


def tree(*pools: PoolInput) -> dict[str, PoolInput]:
    """Root first or not: fills ``children`` from ``parent``; adds a bare root."""
    by_id = {p.id: p for p in pools}
    by_id.setdefault("root", pool("root", None))
    out = {}
    for p in by_id.values():
        kids = tuple(sorted(c.id for c in by_id.values() if c.parent == p.id))
        out[p.id] = PoolInput(p.id, p.parent, kids, p.reservation, p.limit, p.share, p.static,
                              p.demand, p.allocation, p.slack_demand, p.slack_allocation,
                              p.slack_limit_pct)
    return out


def cpus(result: dict[str, Entitlement], *ids: str) -> list[float]:
    return [result[i].entitlement.cpu for i in ids]


# --- Peloton's worked example (docs/user-guide.md) ----------------------------------------


def worked_example(d1: float) -> dict[str, Entitlement]:
    pools = tree(*(pool(f"rp{i}", res=20, limit=100, share=1, demand=d)
                   for i, d in ((1, d1), (2, 80), (3, 80))))
    return compute(pools, "root", uni(100), ZERO)


def test_worked_example_demands_10_80_80_give_10_45_45() -> None:
    out = worked_example(10)
    for kind in KINDS:
        got = [getattr(out[p].entitlement, kind) for p in ("rp1", "rp2", "rp3")]
        assert got == pytest.approx([10, 45, 45], abs=1e-9)


def test_worked_example_first_demand_50_gives_a_third_each() -> None:
    out = worked_example(50)
    got = cpus(out, "rp1", "rp2", "rp3")
    assert got == pytest.approx([100 / 3] * 3, abs=1e-9)
    assert [round(x, 1) for x in got] == [33.3, 33.3, 33.3]
    assert sum(got) == pytest.approx(100, abs=1e-9)


def test_worked_example_matches_pelotons_literal_round_loop() -> None:
    for d1 in (10, 50):
        pools = tree(*(pool(f"rp{i}", res=20, limit=100, demand=d)
                       for i, d in ((1, d1), (2, 80), (3, 80))))
        ours = distribute_level(uni(100), [
            Claim(p.id, p.demand, p.reservation, p.limit, p.share, p.static)
            for p in pools.values() if p.parent])
        rows = [(pools[c].demand.cpu, 20.0, 100.0, 1.0, False) for c in ("rp1", "rp2", "rp3")]
        assert [ours[c].demanded.cpu for c in ("rp1", "rp2", "rp3")] == pytest.approx(
            peloton_phase_1_2(100, rows), abs=1e-6)


# --- hand-computed cases -------------------------------------------------------------------


def test_two_level_tree_lends_unused_reservation_across_subtrees() -> None:
    # A (res 60) has A1 (res 30, demand 50) and A2 (res 30, idle); B (res 40) wants 70.
    pools = tree(pool("A", res=60, limit=100), pool("B", res=40, limit=100, demand=70),
                 pool("A1", "A", res=30, limit=100, demand=50),
                 pool("A2", "A", res=30, limit=100, demand=0))
    out = compute(pools, "root", uni(100), ZERO)
    # root: A min(50, 60) = 50, B 40, 10 left for B's unmet 30 -> B 50.
    # A: A1 30 + its unmet 20 = 50, A2 0.
    assert cpus(out, "A", "B", "A1", "A2") == pytest.approx([50, 50, 50, 0], abs=1e-9)
    assert out["A"].demand == uni(50)
    assert out["root"].demand == uni(120)


def test_demand_of_a_non_leaf_is_rolled_up_and_its_own_ignored() -> None:
    pools = tree(pool("A", demand=999), pool("A1", "A", demand=3, allocation=uni(2),
                                             slack_demand=uni(1), slack_allocation=uni(4)),
                 pool("A2", "A", demand=5))
    out = compute(pools, "root", uni(100), ZERO)
    assert out["A"].demand == uni(8)
    assert out["A"].allocation == uni(2)
    assert out["A"].slack_demand == uni(1)
    assert out["A"].slack_allocation == uni(4)


def test_static_reservation_is_kept_without_demand() -> None:
    static = tree(pool("S", res=20, limit=100, static=STATIC), pool("E", res=20, limit=100,
                                                                      demand=100))
    elastic = tree(pool("S", res=20, limit=100), pool("E", res=20, limit=100, demand=100))
    assert cpus(compute(static, "root", uni(100), ZERO), "S", "E") == pytest.approx([20, 80])
    assert cpus(compute(elastic, "root", uni(100), ZERO), "S", "E") == pytest.approx([0, 100])


def test_static_reservation_deep_in_the_tree_is_covered_by_its_parent() -> None:
    # P is elastic and idle, but its child C is STATIC: P must be entitled to C's 30
    # (Peloton would give P 0 and C 30, overcommitting P).
    pools = tree(pool("P", res=50, limit=100), pool("Q", res=50, limit=100, demand=100),
                 pool("C", "P", res=30, limit=100, static=STATIC), pool("D", "P", res=20))
    out = compute(pools, "root", uni(100), ZERO)
    assert cpus(out, "P", "Q", "C", "D") == pytest.approx([30, 70, 30, 0])


def test_static_per_kind() -> None:
    pools = tree(pool("S", res=20, static=(True, False, False, False)),
                 pool("E", demand=100, limit=100))
    out = compute(pools, "root", uni(100), ZERO)
    assert out["S"].entitlement == Resources(20, 0, 0, 0)
    assert out["E"].entitlement == Resources(80, 100, 100, 100)


def test_limit_caps_phase_two() -> None:
    pools = tree(pool("A", limit=30, demand=100), pool("B", limit=100, demand=100))
    assert cpus(compute(pools, "root", uni(100), ZERO), "A", "B") == pytest.approx([30, 70])


def test_phase_three_caps_at_limit_and_drops_the_excess() -> None:
    # A wants nothing (limit 30), B wants 10: 90 unclaimed, 45 each by share; A is
    # capped at 30 and the 15 over stays unassigned, as in Peloton.
    pools = tree(pool("A", limit=30, demand=0), pool("B", limit=100, demand=10))
    assert cpus(compute(pools, "root", uni(100), ZERO), "A", "B") == pytest.approx([30, 55])


def test_phase_three_splits_leftover_by_share_over_all_children() -> None:
    idle = tree(pool("A", share=1), pool("B", share=3))
    assert cpus(compute(idle, "root", uni(100), ZERO), "A", "B") == pytest.approx([25, 75])
    # A's demand 40 is met in phase 2; the 60 left go 1:3 to A and B alike.
    busy = tree(pool("A", share=1, demand=40), pool("B", share=3))
    assert cpus(compute(busy, "root", uni(100), ZERO), "A", "B") == pytest.approx([55, 45])


def test_phase_two_follows_shares_and_caps_at_demand() -> None:
    both = tree(pool("A", share=1, demand=100), pool("B", share=3, demand=100))
    assert cpus(compute(both, "root", uni(100), ZERO), "A", "B") == pytest.approx([25, 75])
    small = tree(pool("A", share=1, demand=10), pool("B", share=3, demand=100))
    assert cpus(compute(small, "root", uni(100), ZERO), "A", "B") == pytest.approx([10, 90])


def test_share_zero_children_get_what_the_others_leave() -> None:
    pools = tree(pool("A", share=0, demand=50), pool("B", share=1, demand=30))
    # B 30 first; A takes the remaining up to 50; the last 20 go by share (all to B).
    assert cpus(compute(pools, "root", uni(100), ZERO), "A", "B") == pytest.approx([50, 50])
    idle = tree(pool("A", share=0), pool("B", share=0))
    assert cpus(compute(idle, "root", uni(100), ZERO), "A", "B") == pytest.approx([50, 50])


def test_capacity_below_reservations_scales_instead_of_overcommitting() -> None:
    pools = tree(pool("A", res=60, demand=100), pool("B", res=40, static=STATIC))
    out = compute(pools, "root", uni(50), ZERO)
    assert cpus(out, "A", "B") == pytest.approx([30, 20])


def test_root_gets_capacity_and_slack_cpu_only() -> None:
    out = compute(tree(pool("A")), "root", Resources(10, 20, 30, 1), Resources(5, 6, 7, 8))
    assert out["root"].entitlement == Resources(10, 20, 30, 1)
    assert out["root"].non_slack_entitlement == Resources(10, 20, 30, 1)
    assert out["root"].slack_entitlement == Resources(5, 0, 0, 0)


def test_slack_cpu_keeps_allocation_then_follows_demand_then_share() -> None:
    pools = tree(pool("A", slack_demand=Resources(cpu=6), slack_allocation=Resources(cpu=1)),
                 pool("B", slack_allocation=Resources(cpu=2)))
    out = compute(pools, "root", uni(100), Resources(cpu=10))
    # allocations 1 and 2 kept; A's demand 6 met; last 1 split 1:1.
    assert [out[p].slack_entitlement.cpu for p in ("A", "B")] == pytest.approx([7.5, 2.5])
    for p in ("A", "B"):
        assert out[p].non_slack_entitlement.cpu == out[p].entitlement.cpu


def test_slack_memory_is_capped_by_slack_limit_and_what_entitlement_leaves() -> None:
    a = pool("A", res=Resources(0, 100, 0, 0), demand=Resources(0, 30, 0, 0),
             slack_demand=Resources(0, 50, 0, 0), slack_pct=20)
    pools = tree(a, pool("B"))
    out = compute(pools, "root", Resources(0, 200, 0, 0), ZERO)
    # requirement 30 + min(20, 50) = 50; 150 unclaimed split 1:1 -> 125.
    assert out["A"].entitlement.memory == pytest.approx(125)
    assert out["A"].slack_entitlement.memory == pytest.approx(20)
    assert out["A"].non_slack_entitlement.memory == pytest.approx(105)
    tight = compute(pools, "root", Resources(0, 40, 0, 0), ZERO)
    # only 40 to give: 30 for the non-revocable demand, 10 left for revocable tasks.
    assert tight["A"].entitlement.memory == pytest.approx(40)
    assert tight["A"].slack_entitlement.memory == pytest.approx(10)
    assert tight["A"].non_slack_entitlement.memory == pytest.approx(30)


def test_slack_that_shrank_below_what_is_held_is_kept_in_proportion() -> None:
    pools = tree(pool("A", "root", slack_allocation=Resources(cpu=3)),
                 pool("B", "root", slack_allocation=Resources(cpu=1), slack_demand=uni(2)),
                 pool("C", "root"))
    out = compute(pools, "root", Resources(100, 100, 100, 0), Resources(cpu=2))
    # 4 held, 2 left: each keeps half of what it holds; nothing for demand.
    assert [out[p].slack_entitlement.cpu for p in "ABC"] == pytest.approx([1.5, 0.5, 0])
    assert out["A"].slack_allocation.cpu - out["A"].slack_entitlement.cpu == pytest.approx(1.5)


def test_slack_flows_down_two_levels() -> None:
    pools = tree(pool("A", share=1), pool("B", share=1),
                 pool("A1", "A", slack_demand=Resources(cpu=8)), pool("A2", "A"))
    out = compute(pools, "root", uni(100), Resources(cpu=10))
    # root: A's rolled slack demand 8 met, then 2 split -> A 9, B 1; A: A1 8 + 0.5.
    assert [out[p].slack_entitlement.cpu for p in ("A", "B", "A1", "A2")] == pytest.approx(
        [9, 1, 8.5, 0.5])


def test_order_of_the_mapping_does_not_matter() -> None:
    pools = tree(pool("A", res=30, demand=50, share=2), pool("B", res=10, demand=70),
                 pool("C", res=5, demand=5, static=STATIC), pool("A1", "A", demand=20),
                 pool("A2", "A", demand=40, share=3))
    want = compute(pools, "root", uni(100), Resources(cpu=7))
    items = list(pools.items())
    for seed in range(5):
        random.Random(seed).shuffle(items)
        assert compute(dict(items), "root", uni(100), Resources(cpu=7)) == want


def test_a_broken_tree_is_an_internal_error() -> None:
    pools = tree(pool("A"))
    with pytest.raises(Internal):
        compute(pools, "nope", uni(1), ZERO)
    pools["root"] = PoolInput("root", None, ("A", "ghost"), ZERO, uni(INF), uni(1), ELASTIC,
                              ZERO, ZERO, ZERO, ZERO, 20)
    with pytest.raises(Internal):
        compute(pools, "root", uni(1), ZERO)


def test_water_fill_basics() -> None:
    assert water_fill(10, [2, 100, 100], [1, 1, 3]) == pytest.approx([2, 2, 6])
    assert water_fill(100, [2, 3], [1, 1]) == pytest.approx([2, 3])
    assert water_fill(0, [2, 3], [1, 1]) == [0, 0]
    assert water_fill(5, [], []) == []


# --- references ----------------------------------------------------------------------------

Row = tuple[float, float, float, float, bool]  # requirement, reservation, limit, share, static


def reference_phase_1_2(amount: float, rows: Sequence[Row]) -> list[float]:
    """Phases 1 and 2 for one kind, the obvious way: reservations first, then the
    weighted water level found by bisection on sum(min(unmet, share * level))."""
    base = [res if static else min(req, res) for req, res, _, _, static in rows]
    left = amount - sum(base)
    unmet = [max(0.0, req - res) for req, res, _, _, _ in rows]
    if sum(unmet) <= left:
        return [b + u for b, u in zip(base, unmet, strict=True)]
    lo, hi = 0.0, max(u / s for u, (_, _, _, s, _) in zip(unmet, rows, strict=True) if u > 0)
    for _ in range(200):
        mid = (lo + hi) / 2
        if sum(min(u, r[3] * mid) for u, r in zip(unmet, rows, strict=True)) > left:
            hi = mid
        else:
            lo = mid
    return [b + min(u, r[3] * lo) for b, u, r in zip(base, unmet, rows, strict=True)]


def peloton_phase_1_2(amount: float, rows: Sequence[Row]) -> list[float]:
    """Peloton's calculateAssignmentsFromReservation + distributeRemainingResources,
    transcribed (with a smaller epsilon so it runs to the limit)."""
    assignment, demand, total_share = [], [], 0.0
    entitlement = amount
    for req, res, _, share, static in rows:
        assignment.append(res if static else min(req, res))
        if req > res:
            total_share += share
            demand.append(req - res)
        else:
            demand.append(0.0)
    entitlement = max(0.0, entitlement - sum(assignment))
    remaining = entitlement
    rounds = 0
    while remaining > 1e-10 and any(d > 1e-10 for d in demand):
        rounds += 1
        assert rounds < 100_000
        for i, (_, _, _, share, _) in enumerate(rows):
            if remaining < 1e-10:
                break
            if demand[i] < 1e-10:
                continue
            value = share * entitlement / total_share
            if value > demand[i]:
                value, demand[i] = demand[i], 0.0
            else:
                demand[i] -= value
            if remaining > value:
                remaining -= value
            else:
                value, remaining = remaining, 0.0
            assignment[i] += value
        entitlement = remaining
    return assignment


# --- Hypothesis: one level -----------------------------------------------------------------

values = st.floats(0, 300, allow_nan=False, allow_subnormal=False)


@st.composite
def levels(draw: st.DrawFn, *, covered: bool = True) -> tuple[float, list[Row]]:
    n = draw(st.integers(1, 6))
    rows: list[Row] = []
    for _ in range(n):
        res = draw(values)
        limit = draw(st.one_of(st.just(INF), st.floats(0, 300).map(lambda x, r=res: r + x)))
        req = min(draw(values), limit)
        rows.append((req, res, limit, float(draw(st.integers(1, 5))), draw(st.booleans())))
    floor = sum(res if static else min(req, res) for req, res, _, _, static in rows)
    amount = floor + draw(values) if covered else draw(values)
    return amount, rows


def level_claims(rows: Sequence[Row]) -> list[Claim]:
    return [Claim(f"c{i}", uni(req), uni(res), uni(limit), uni(share),
                  (static, static, static, static))
            for i, (req, res, limit, share, static) in enumerate(rows)]


def close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


@settings(max_examples=300, deadline=None)
@given(levels())
def test_level_phase_1_2_matches_the_references(level: tuple[float, list[Row]]) -> None:
    amount, rows = level
    out = distribute_level(uni(amount), level_claims(rows))
    got = [out[f"c{i}"].demanded.cpu for i in range(len(rows))]
    for want in (reference_phase_1_2(amount, rows), peloton_phase_1_2(amount, rows)):
        assert all(close(g, w) for g, w in zip(got, want, strict=True)), (got, want)


@settings(max_examples=300, deadline=None)
@given(levels())
def test_level_is_max_min_fair_among_children_with_unmet_demand(
        level: tuple[float, list[Row]]) -> None:
    amount, rows = level
    out = distribute_level(uni(amount), level_claims(rows))
    extra = []
    short = []
    for i, (req, _, _, share, _) in enumerate(rows):
        a = out[f"c{i}"]
        extra.append((a.demanded.cpu - a.reserved.cpu) / share)
        if a.demanded.cpu < req - 1e-6:
            short.append(i)
    if short:
        level_ = max(extra[i] for i in short)
        assert all(close(extra[i], level_) for i in short)
        assert all(x <= level_ + 1e-6 * max(1.0, level_) for x in extra)
        # work conserving: nothing is left for phase 3 while someone is short
        assert close(sum(out[f"c{i}"].demanded.cpu for i in range(len(rows))), amount)


@settings(max_examples=300, deadline=None)
@given(levels(covered=False))
def test_level_never_exceeds_limits_or_the_parent(level: tuple[float, list[Row]]) -> None:
    amount, rows = level
    out = distribute_level(uni(amount), level_claims(rows))
    total = 0.0
    for i, (_, _, limit, _, _) in enumerate(rows):
        a = out[f"c{i}"]
        assert a.reserved.cpu <= a.demanded.cpu <= a.entitlement.cpu + 1e-9
        assert a.entitlement.cpu <= limit
        total += a.entitlement.cpu
    assert total <= amount * (1 + 1e-9) + 1e-9


# --- Hypothesis: trees ---------------------------------------------------------------------


def vec(draw: st.DrawFn, strategy: st.SearchStrategy[float]) -> Resources:
    return Resources(*(draw(strategy) for _ in KINDS))


@st.composite
def trees(draw: st.DrawFn, *, covered: bool = True
          ) -> tuple[dict[str, PoolInput], Resources, Resources]:
    """Up to 8 pools, depth <= 3, reservations that nest, limits within the parent's."""
    n = draw(st.integers(1, 8))
    parent = {0: -1}
    depth = {0: 0}
    for i in range(1, n + 1):
        parent[i] = draw(st.sampled_from([p for p in range(i) if depth[p] < 3]))
        depth[i] = depth[parent[i]] + 1
    kids = {i: [j for j in range(1, n + 1) if parent[j] == i] for i in range(n + 1)}
    name = {i: "root" if i == 0 else f"p{i}" for i in range(n + 1)}
    res = {0: vec(draw, values)}
    limit = {0: uni(INF)}
    fields: dict[int, dict[str, object]] = {}
    for p in range(n + 1):  # parents have smaller numbers than their children
        fractions = {c: vec(draw, st.floats(0, 1)) for c in kids[p]}
        for k, kind in enumerate(KINDS):
            total = sum(f[k] for f in fractions.values())
            for c in kids[p]:
                r = res[p][k] * fractions[c][k] / max(1.0, total)
                res.setdefault(c, ZERO)
                res[c] = res[c]._replace(**{kind: r})
                plim = limit[p][k]
                if plim == INF and draw(st.booleans()):
                    lim = INF
                elif plim == INF:
                    lim = r + draw(values)
                else:
                    lim = r + draw(st.floats(0, 1)) * (plim - r)
                limit.setdefault(c, ZERO)
                limit[c] = limit[c]._replace(**{kind: max(lim, r)})
        for c in kids[p]:
            leaf = not kids[c]
            fields[c] = dict(
                share=Resources(*(float(draw(st.integers(1, 5))) for _ in KINDS)),
                static=tuple(draw(st.booleans()) for _ in KINDS),
                demand=vec(draw, values) if leaf else ZERO,
                allocation=vec(draw, st.floats(0, 50)) if leaf and draw(st.booleans()) else ZERO,
                slack_demand=vec(draw, st.floats(0, 50)) if leaf else ZERO,
                slack_allocation=vec(draw, st.floats(0, 10)) if leaf else ZERO,
                slack_limit_pct=draw(st.sampled_from([0.0, 20.0, 50.0, 100.0])))
    pools = {"root": PoolInput("root", None, tuple(name[c] for c in kids[0]), ZERO, uni(INF),
                               uni(1), ELASTIC, ZERO, ZERO, ZERO, ZERO, 20.0)}
    for c in range(1, n + 1):
        f = fields[c]
        pools[name[c]] = PoolInput(name[c], name[parent[c]], tuple(name[g] for g in kids[c]),
                                   res[c], limit[c], f["share"], f["static"],  # type: ignore[arg-type]
                                   f["demand"], f["allocation"], f["slack_demand"],  # type: ignore[arg-type]
                                   f["slack_allocation"], f["slack_limit_pct"])  # type: ignore[arg-type]
    top = Resources.sum([res[c] for c in kids[0]])
    capacity = top + vec(draw, values) if covered else vec(draw, values)
    slack_alloc = sum(p.slack_allocation.cpu for p in pools.values())
    # Mostly more slack than revocable tasks hold; sometimes less (it shrank).
    slack_capacity = Resources(cpu=slack_alloc * draw(st.sampled_from([0.0, 0.5, 1.0, 1.0]))
                               + draw(values))
    return pools, capacity, slack_capacity


def le(a: float, b: float) -> bool:
    return a <= b + 1e-6 * max(1.0, abs(b))


def check_tree(pools: dict[str, PoolInput], out: dict[str, Entitlement]) -> None:
    for pid, p in pools.items():
        e = out[pid]
        for k in range(len(KINDS)):
            if p.parent is not None:
                assert le(e.entitlement[k], p.limit[k]), (pid, KINDS[k])  # (a)
            if p.children:  # (b)
                assert le(sum(out[c].entitlement[k] for c in p.children), e.entitlement[k])
            assert le(e.non_slack_entitlement[k], e.entitlement[k])
        if p.children:
            assert le(sum(out[c].slack_entitlement.cpu for c in p.children),
                      e.slack_entitlement.cpu)
        if p.parent is not None:
            assert e.non_slack_entitlement.cpu == e.entitlement.cpu
            pct = p.slack_limit_pct / 100
            for k in range(1, len(KINDS)):
                assert le(e.slack_entitlement[k], p.reservation[k] * pct)
                assert close(e.non_slack_entitlement[k] + e.slack_entitlement[k],
                             e.entitlement[k])


@settings(max_examples=300, deadline=None)
@given(trees())
def test_tree_invariants_and_reservations(case: tuple[dict[str, PoolInput], Resources,
                                                      Resources]) -> None:
    pools, capacity, slack_capacity = case
    out = compute(pools, "root", capacity, slack_capacity)
    assert out["root"].entitlement == capacity
    check_tree(pools, out)
    for pid, p in pools.items():  # (c): reservations honoured, at every depth
        if p.parent is None:
            continue
        wanted = out[pid].allocation + out[pid].demand
        for k in range(len(KINDS)):
            if p.static[k] or wanted[k] >= p.reservation[k]:
                assert le(p.reservation[k], out[pid].entitlement[k]), (pid, KINDS[k])


@settings(max_examples=200, deadline=None)
@given(trees(covered=False))
def test_tree_invariants_hold_when_capacity_is_short(
        case: tuple[dict[str, PoolInput], Resources, Resources]) -> None:
    pools, capacity, slack_capacity = case
    check_tree(pools, compute(pools, "root", capacity, slack_capacity))


@settings(max_examples=200, deadline=None)
@given(trees())
def test_without_slack_or_revocable_work_the_slack_levels_are_skipped_exactly(
        case: tuple[dict[str, PoolInput], Resources, Resources]) -> None:
    """No slack capacity and no revocable demand or allocation anywhere:
    ``compute`` skips the slack levels, and its figures are theirs, bit for
    bit (a -0.0 aside, which compares equal)."""
    pools, capacity, _ = case
    pools = {pid: dataclasses.replace(p, slack_demand=ZERO, slack_allocation=ZERO)
             for pid, p in pools.items()}
    out = compute(pools, "root", capacity, ZERO)
    order = [pid for pid in out]  # compute's own order: root first, top down
    ent = {pid: e.entitlement for pid, e in out.items()}
    non_slack, slack = slack_levels(pools, rollup(pools, "root"), order, ent, capacity, ZERO)
    assert {pid: e.non_slack_entitlement for pid, e in out.items()} == non_slack
    assert {pid: e.slack_entitlement for pid, e in out.items()} == slack


@settings(max_examples=200, deadline=None)
@given(trees())
def test_each_level_of_the_tree_matches_the_reference(
        case: tuple[dict[str, PoolInput], Resources, Resources]) -> None:
    """(d) on whole trees: at every parent, phases 1-2 equal the bisection reference
    fed with the parent's entitlement and the children's requirements, and the final
    entitlements are what distribute_level gives."""
    pools, capacity, slack_capacity = case
    out = compute(pools, "root", capacity, slack_capacity)
    rolled = rollup(pools, "root")
    for pid, p in pools.items():
        if not p.children:
            continue
        claims = claims_of(pools, rolled, pid)
        level = distribute_level(out[pid].entitlement, claims)
        for k in range(len(KINDS)):
            rows = [(c.requirement[k], c.reservation[k], c.limit[k], c.share[k], c.static[k])
                    for c in claims]
            if sum(r[1] if r[4] else min(r[0], r[1]) for r in rows) > out[pid].entitlement[k]:
                continue  # scaled phase 1: not the reference's domain
            want = reference_phase_1_2(out[pid].entitlement[k], rows)
            for c, w in zip(claims, want, strict=True):
                assert close(level[c.id].demanded[k], w)
                assert level[c.id].entitlement[k] == out[c.id].entitlement[k]
