"""Peloton's hierarchical max-min entitlement, as a pure function.

``compute`` takes the pool tree (``PoolInput`` per pool: leaf demand and
allocation, each pool's reservation, limit, share and reservation type per
kind), the capacity the hostmgr shards report and the slack (revocable)
capacity, and returns every pool's ``Entitlement``. No time, no I/O; the same
input gives the same output, whatever the order of the mapping
(reference/peloton.md §4.4; Peloton's ``pkg/resmgr/entitlement``).

One cycle
---------
1. **Roll-up.** Demand, allocation, slack demand and slack allocation of a
   non-leaf are the sums over its children (its own fields are ignored).
2. **Root.** Root entitlement = capacity (Peloton sets root reservation =
   limit = capacity); root slack entitlement = slack capacity, cpu only.
3. **Non-revocable entitlement**, top down, per kind, children in sorted id
   order. A child's requirement is
   ``R = allocation + demand + min(slack limit, slack allocation + slack demand)``
   capped at its limit, where the slack limit is ``slack_limit_pct`` % of the
   reservation for memory, disk and gpu, and 0 for cpu.

   * Phase 1 (reservation): ``reservation`` if the kind is STATIC, else
     ``min(R, reservation)``.
   * Phase 2 (demand-capped fair share): what is left goes to the children
     whose R exceeds their reservation, in proportion to share, each capped
     at ``R - reservation``, until it is gone or nobody needs more.
   * Phase 3 (unclaimed): anything still left is split by share over *all*
     children and each child's total is capped at its limit; the excess is
     dropped, as in Peloton (it stays unassigned for this cycle).
4. **Slack entitlement**, top down from the parent's slack cpu ``S``:

   * Phase 1: the revocable tasks' claim on non-revocable memory/disk/gpu is
     ``slackReq = min(slack limit, slack allocation + slack demand)``; what
     the child's entitlement leaves after its non-revocable requirement
     (``entitlement - (allocation + demand)``, clamped at 0) bounds it:
     ``slackAssign = min(available, slackReq)``. The child's
     ``non_slack_entitlement = entitlement - slackAssign`` (so its cpu equals
     the entitlement's cpu). The slack cpu already allocated is kept:
     ``slackAssign.cpu = slack allocation cpu`` (scaled down in proportion
     when the children hold more than ``S``), and ``S`` loses it.
   * Phase 2: the rest of ``S`` goes by cpu share to the children's slack cpu
     demand, exactly like phase 2 above.
   * Phase 3: whatever remains is split by cpu share over all children, with
     no cap (revocable cpu has no limit).

   ``slack_entitlement`` is ``slackAssign`` after phases 2 and 3. The root's
   non-slack entitlement is the capacity (Peloton never sets the root's).

Where this deviates from Peloton's code, and why
------------------------------------------------
* **Phase 2 is solved exactly instead of by rounds.** Peloton repeats rounds
  in which every child with unmet demand is offered
  ``share * E_round / totalShare`` (``totalShare`` frozen after phase 1, so
  satisfied children's fraction is not handed out that round) until
  ``E < epsilon``. Every round gives all unsatisfied children the same
  increment per unit of share, so the loop converges to weighted water-
  filling: the level ``L`` with ``sum(min(unmet_c, share_c * L)) = E``. We
  compute that limit directly (sort by ``unmet/share``, raise the level), in
  O(n log n) per level and kind and within float rounding, instead of a loop
  whose round count grows with ``log(E/epsilon) / (fraction of share that is
  satisfied)`` and that stops up to epsilon short. The limit is the same
  (``tests/resmgr/test_entitlement.py`` runs Peloton's literal loop against
  it).
* **Share 0.** Peloton divides by a zero ``totalShare`` (NaN) when every
  child with unmet demand has share 0. Here share-0 children form a second
  tier: they are filled equally from what positive-share children leave.
  Phase 3 with an all-zero total share splits equally.
* **Reservations are passed up as requirement.** Peloton computes a
  non-leaf's requirement from rolled-up demand alone, so a STATIC child (or a
  child whose slack limit is larger than its parent's) can be assigned more
  in phase 1 than its parent was entitled to. Here a non-leaf's requirement
  is at least the sum of its children's phase-1 assignments. That is a no-op
  for trees without STATIC kinds and slack demand, and it makes STATIC hold
  at every depth: whenever capacity covers the top-level reservations, every
  pool gets at least its phase-1 assignment (its reservation if STATIC or if
  its requirement reaches it).
* **No overcommit in phase 1.** If phase-1 assignments still exceed the
  parent's entitlement (capacity below the reservations, e.g. after hosts
  left), they are scaled down in proportion so children never sum to more
  than the parent. Peloton clamps the remainder at 0 and overcommits.
* **Slack that shrank is not kept.** Peloton's slack phase 1 keeps every
  child's current slack cpu allocation whatever the parent's slack cpu, so
  revocable cpu never looks over-allocated to resmgr (Mesos's QoS
  controller reclaimed it on the agents). Here, when the children hold
  more slack cpu than their parent's slack entitlement (the host managers'
  slack fell: non-revocable tasks got busier), what each keeps is scaled
  down in proportion, so children never sum to more than the parent and a
  pool's slack allocation above its slack entitlement is the excess that
  preemption reclaims, revocable tasks first.
* Epsilon: Peloton skips phases 2 and 3 when less than its epsilon is left;
  we hand out every positive remainder (the difference is dust).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from peloton.core.errors import Internal
from peloton.core.resources import KINDS, ZERO, Resources

_new = tuple.__new__  # a Resources of four floats, without the named tuple's __new__


@dataclass(frozen=True, slots=True)
class PoolInput:
    """One pool as the calculation sees it.

    ``reservation`` is 0, ``limit`` math.inf and ``share`` 1 where the pool does
    not define a kind. ``demand`` and the allocations matter for leaves only;
    a non-leaf's are the sums over its children.
    """

    id: str
    parent: str | None  # None for the root
    children: tuple[str, ...]
    reservation: Resources
    limit: Resources
    share: Resources
    static: tuple[bool, bool, bool, bool]  # per kind: STATIC reservation type
    demand: Resources  # non-revocable pending demand
    allocation: Resources  # non-slack allocation
    slack_demand: Resources  # revocable pending demand
    slack_allocation: Resources  # revocable allocation
    slack_limit_pct: float = 20.0  # slackLimit.maxPercent


@dataclass(frozen=True, slots=True)
class Entitlement:
    entitlement: Resources  # total non-revocable entitlement
    non_slack_entitlement: Resources  # of which non-revocable tasks may use
    slack_entitlement: Resources  # slack cpu + memory/disk/gpu for revocable tasks
    demand: Resources  # rolled up
    allocation: Resources
    slack_demand: Resources
    slack_allocation: Resources


@dataclass(frozen=True, slots=True)
class Claim:
    """A child as its parent's level sees it: ``requirement`` is already
    capped at ``limit`` (and, for a non-leaf, at least what its own children
    take in phase 1)."""

    id: str
    requirement: Resources
    reservation: Resources
    limit: Resources
    share: Resources
    static: tuple[bool, bool, bool, bool]


@dataclass(frozen=True, slots=True)
class Assignment:
    """One child's entitlement after each phase of its parent's level."""

    reserved: Resources  # after phase 1
    demanded: Resources  # after phases 1 and 2: the demand-capped max-min fair part
    entitlement: Resources  # after phase 3


@dataclass(frozen=True, slots=True)
class Rollup:
    demand: Resources
    allocation: Resources
    slack_demand: Resources
    slack_allocation: Resources
    requirement: Resources  # capped at the pool's limit
    reserved: Resources  # what phase 1 gives it when its parent can afford it


# --- one level ---------------------------------------------------------------------------


def water_fill(amount: float, unmet: Sequence[float], weight: Sequence[float]) -> list[float]:
    """Weighted max-min split of ``amount``: child ``i`` gets
    ``min(unmet[i], weight[i] * L)`` with the level ``L`` as high as ``amount``
    allows (the limit of Peloton's phase-2 rounds). Children with weight 0 get
    only what the others leave, equally. The result sums to
    ``min(amount, sum(unmet))`` up to rounding; a non-positive amount gives
    zeros."""
    given = [0.0] * len(unmet)
    remaining = amount
    for positive in (True, False):
        if remaining <= 0.0:
            break
        tier = [i for i, u in enumerate(unmet) if u > 0.0 and (weight[i] > 0.0) == positive]
        if not tier:
            continue
        w = {i: (weight[i] if positive else 1.0) for i in tier}
        ratio = {i: unmet[i] / w[i] for i in tier}
        tier.sort(key=ratio.__getitem__)
        suffix = [math.fsum(w[i] for i in tier[k:]) for k in range(len(tier))]
        level = 0.0
        k = 0
        while k < len(tier):
            i = tier[k]
            cost = (ratio[i] - level) * suffix[k]
            if cost > remaining:
                break
            remaining -= cost
            level = ratio[i]
            given[i] = unmet[i]
            k += 1
        if k < len(tier):
            level += remaining / suffix[k]
            for i in tier[k:]:
                given[i] = min(unmet[i], w[i] * level)
            remaining = 0.0
    return given


def _split_by_share(amount: float, shares: Sequence[float]) -> list[float]:
    total = math.fsum(shares)
    if total > 0.0:
        return [amount * s / total for s in shares]
    return [amount / len(shares)] * len(shares)


def distribute_level(entitlement: Resources, claims: Sequence[Claim]) -> dict[str, Assignment]:
    """Peloton's three phases for the children of one pool, per kind.

    ``entitlement`` is the parent's; the children's ``entitlement`` sum to at
    most it and each is at most the child's limit. Phase 2 gives exact
    weighted max-min fairness: every child still short of its requirement
    after phase 2 has the same ``(demanded - reserved) / share``, and no child
    has more. Order of ``claims`` does not matter.
    """
    ordered = sorted(claims, key=lambda c: c.id)
    if not ordered:
        return {}
    reserved: list[list[float]] = [[0.0] * 4 for _ in ordered]
    demanded: list[list[float]] = [[0.0] * 4 for _ in ordered]
    final: list[list[float]] = [[0.0] * 4 for _ in ordered]
    for k in range(len(KINDS)):
        available = max(0.0, entitlement[k])
        need = [c.reservation[k] if c.static[k] else min(c.requirement[k], c.reservation[k])
                for c in ordered]
        total_need = math.fsum(need)
        if total_need > available:  # deviation: scale instead of overcommitting
            need = [n * available / total_need for n in need]
        left = max(0.0, available - math.fsum(need))
        if left > 0.0:
            unmet = [max(0.0, c.requirement[k] - c.reservation[k]) for c in ordered]
            extra = water_fill(left, unmet, [c.share[k] for c in ordered])
            left = max(0.0, left - math.fsum(extra))
        else:  # (what water_fill gives of nothing)
            extra = [0.0] * len(ordered)
        unclaimed = (_split_by_share(left, [c.share[k] for c in ordered]) if left > 0.0
                     else [0.0] * len(ordered))
        for j, c in enumerate(ordered):
            reserved[j][k] = need[j]
            demanded[j][k] = need[j] + extra[j]
            final[j][k] = min(demanded[j][k] + unclaimed[j], c.limit[k])
    return {c.id: Assignment(_new(Resources, reserved[j]), _new(Resources, demanded[j]),
                             _new(Resources, final[j]))
            for j, c in enumerate(ordered)}


# --- the tree ----------------------------------------------------------------------------


# Kind by kind, unrolled, as min() and max() choose (Resources(*map(min, a,
# b)) took twice as long, and a compute makes several a pool at every
# enqueue, on every replica).
def _min(a: Resources, b: Resources) -> Resources:
    return _new(Resources, (b[0] if b[0] < a[0] else a[0], b[1] if b[1] < a[1] else a[1],
                            b[2] if b[2] < a[2] else a[2], b[3] if b[3] < a[3] else a[3]))


def _max(a: Resources, b: Resources) -> Resources:
    return _new(Resources, (b[0] if b[0] > a[0] else a[0], b[1] if b[1] > a[1] else a[1],
                            b[2] if b[2] > a[2] else a[2], b[3] if b[3] > a[3] else a[3]))


def slack_limit(pool: PoolInput) -> Resources:
    """What revocable tasks may take of non-revocable memory/disk/gpu: the
    percentage of the reservation; cpu 0 (revocable cpu is slack)."""
    pct = pool.slack_limit_pct / 100.0
    return Resources(0.0, pool.reservation.memory * pct, pool.reservation.disk * pct,
                     pool.reservation.gpu * pct)


def _slack_requirement(pool: PoolInput, slack_allocation: Resources,
                       slack_demand: Resources) -> Resources:
    return _min(slack_limit(pool), slack_allocation + slack_demand)


def _order(pools: Mapping[str, PoolInput], root: str) -> list[str]:
    """Pool ids top down (parents before children, siblings sorted)."""
    if root not in pools:
        raise Internal(f"root pool {root!r} is not in the tree")
    out = [root]
    seen = {root}
    for pid in out:  # grows while iterating: breadth first
        for child in sorted(pools[pid].children):
            if child not in pools:
                raise Internal(f"pool {pid!r} names a missing child {child!r}")
            if child in seen:
                raise Internal(f"pool {child!r} appears twice in the tree")
            seen.add(child)
            out.append(child)
    return out


def rollup(pools: Mapping[str, PoolInput], root: str,
           order: Sequence[str] | None = None) -> dict[str, Rollup]:
    """Bottom-up sums, each pool's requirement and its phase-1 assignment
    (``order``: ``_order``'s, when the caller has it)."""
    if order is None:
        order = _order(pools, root)
    out: dict[str, Rollup] = {}
    for pid in reversed(order):
        pool = pools[pid]
        if pool.children:
            kids = [out[c] for c in pool.children]
            demand = Resources.sum([r.demand for r in kids])
            allocation = Resources.sum([r.allocation for r in kids])
            slack_demand = Resources.sum([r.slack_demand for r in kids])
            slack_allocation = Resources.sum([r.slack_allocation for r in kids])
            floor = Resources(*(math.fsum(r.reserved[k] for r in kids)
                                for k in range(len(KINDS))))
        else:
            demand, allocation = pool.demand, pool.allocation
            slack_demand, slack_allocation = pool.slack_demand, pool.slack_allocation
            floor = ZERO
        wanted = allocation + demand + _slack_requirement(pool, slack_allocation, slack_demand)
        requirement = _min(_max(wanted, floor), pool.limit)
        res, static = pool.reservation, pool.static
        reserved = _new(Resources, (
            res[0] if static[0] else (res[0] if res[0] < requirement[0] else requirement[0]),
            res[1] if static[1] else (res[1] if res[1] < requirement[1] else requirement[1]),
            res[2] if static[2] else (res[2] if res[2] < requirement[2] else requirement[2]),
            res[3] if static[3] else (res[3] if res[3] < requirement[3] else requirement[3])))
        out[pid] = Rollup(demand, allocation, slack_demand, slack_allocation,
                          requirement, reserved)
    return out


def claims_of(pools: Mapping[str, PoolInput], rolled: Mapping[str, Rollup],
              parent: str) -> list[Claim]:
    """The claims of ``parent``'s children, in sorted id order."""
    return [Claim(c, rolled[c].requirement, pools[c].reservation, pools[c].limit,
                  pools[c].share, pools[c].static)
            for c in sorted(pools[parent].children)]


def _slack_level(pools: Mapping[str, PoolInput], rolled: Mapping[str, Rollup],
                 parent: str, slack: Resources, entitlement: Mapping[str, Resources]
                 ) -> dict[str, tuple[Resources, Resources]]:
    """(non-slack entitlement, slack entitlement) of ``parent``'s children."""
    kids = sorted(pools[parent].children)
    non_slack: list[Resources] = []
    assigned: list[Resources] = []
    kept = [rolled[c].slack_allocation.cpu for c in kids]
    held = math.fsum(kept)
    if held > slack.cpu:  # deviation: slack shrank below what revocable tasks hold
        kept = [k * max(0.0, slack.cpu) / held for k in kept]
    for j, c in enumerate(kids):
        roll = rolled[c]
        available = (entitlement[c] - (roll.allocation + roll.demand)).clamp_zero()
        assign = _min(available, _slack_requirement(pools[c], roll.slack_allocation,
                                                    roll.slack_demand))
        non_slack.append(entitlement[c] - assign)
        assigned.append(assign._replace(cpu=kept[j]))
    left = max(0.0, slack.cpu - math.fsum(a.cpu for a in assigned))
    shares = [pools[c].share.cpu for c in kids]
    extra = water_fill(left, [rolled[c].slack_demand.cpu for c in kids], shares)
    left = max(0.0, left - math.fsum(extra))
    unclaimed = _split_by_share(left, shares) if left > 0.0 else [0.0] * len(kids)
    return {c: (non_slack[j], assigned[j]._replace(cpu=assigned[j].cpu + extra[j]
                                                  + unclaimed[j]))
            for j, c in enumerate(kids)}


def slack_levels(pools: Mapping[str, PoolInput], rolled: Mapping[str, Rollup],
                 order: Sequence[str], entitlement: Mapping[str, Resources],
                 capacity: Resources, slack_capacity: Resources
                 ) -> tuple[dict[str, Resources], dict[str, Resources]]:
    """Every pool's (non-slack entitlement, slack entitlement), top down
    (``order``: ``_order``'s, root first)."""
    root = order[0]
    non_slack: dict[str, Resources] = {root: capacity}
    slack: dict[str, Resources] = {root: Resources(cpu=slack_capacity.cpu)}
    for pid in order:
        if pools[pid].children:
            for cid, (ns, s) in _slack_level(pools, rolled, pid, slack[pid],
                                             entitlement).items():
                non_slack[cid] = ns
                slack[cid] = s
    return non_slack, slack


def compute(pools: Mapping[str, PoolInput], root: str, capacity: Resources,
            slack_capacity: Resources) -> dict[str, Entitlement]:
    """Every pool's entitlement for one cycle (module docstring has the rules).

    ``pools`` must hold a tree under ``root`` (children named by id, each
    once); an inconsistent tree raises ``Internal``. Pools not under ``root``
    are ignored. Guarantees: a non-root pool's entitlement is at most its
    limit; children's entitlements sum to at most their parent's; if
    ``capacity`` covers the reservations of root's children, every pool gets
    at least its reservation where the kind is STATIC or its requirement
    reaches the reservation.
    """
    order = _order(pools, root)
    rolled = rollup(pools, root, order)
    ent: dict[str, Resources] = {root: capacity}
    for pid in order:
        if pools[pid].children:
            for cid, a in distribute_level(ent[pid], claims_of(pools, rolled, pid)).items():
                ent[cid] = a.entitlement
    if not slack_capacity.cpu and all(r.slack_demand == ZERO and r.slack_allocation == ZERO
                                      for r in rolled.values()):
        # No slack and no revocable work: the slack levels assign nothing,
        # so each pool's non-slack entitlement is its entitlement and its
        # slack entitlement zero (what ``slack_levels`` computes then,
        # without walking the tree again).
        non_slack = ent
        slack = dict.fromkeys(order, ZERO)
        slack[root] = Resources(cpu=slack_capacity.cpu)
    else:
        non_slack, slack = slack_levels(pools, rolled, order, ent, capacity, slack_capacity)
    return {pid: Entitlement(ent[pid], non_slack[pid], slack[pid], rolled[pid].demand,
                             rolled[pid].allocation, rolled[pid].slack_demand,
                             rolled[pid].slack_allocation)
            for pid in order}
