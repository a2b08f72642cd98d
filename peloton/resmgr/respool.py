"""The resource-pool tree: Peloton's validation rules as pure functions.

Pools form a tree under ``root`` (path ``/``). Jobs go only to leaves. A
pool's resources are a map ``kind -> ResourceSpec``; a kind a pool does not
define is unlimited there (its ancestors still bound it). Every rejection
names the rule and the numbers (reference/peloton.md §4.2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from peloton.core.errors import AlreadyExists, FailedPrecondition, InvalidArgument, NotFound
from peloton.core.resources import EPSILON, KINDS, ZERO, Resources

ROOT = "root"
ELASTIC, STATIC = 1, 2  # ReservationType


@dataclass(slots=True)
class ResourceSpec:
    reservation: float
    limit: float
    share: float
    type: int = 1  # ELASTIC


@dataclass(slots=True)
class Pool:
    id: str
    name: str
    parent: str | None
    config: bytes = b""  # the ResourcePoolConfig as the user gave it
    resources: dict[str, ResourceSpec] = field(default_factory=dict)
    policy: int = 1
    controller_limit: float = 0.0  # percent; 0 = none
    slack_limit: float = 20.0  # percent
    children: list[str] = field(default_factory=list)
    # Accounting of a leaf (reference/peloton.md §4.3); a non-leaf's
    # ``allocation`` and ``slack_allocation`` are the sums over its leaves
    # (its limit counts the first without the second's cpu), the other
    # fields stay zero there (the entitlement calculation rolls them up).
    allocation: Resources = ZERO  # total: every admitted, unfinished gang
    demand: Resources = ZERO  # non-revocable gangs waiting for admission
    np_allocation: Resources = ZERO  # of allocation: non-preemptible gangs
    controller_allocation: Resources = ZERO  # of allocation: controller gangs
    slack_allocation: Resources = ZERO  # of allocation: revocable gangs
    slack_demand: Resources = ZERO  # revocable gangs waiting for admission
    # Our extension (ResourcePoolConfig.priorityPreemption): a higher-priority
    # gang waiting in this leaf may preempt its lower-priority tasks.
    priority_preemption: bool = False

    def has_tasks(self) -> bool:
        return not (self.allocation.is_zero() and self.demand.is_zero()
                    and self.slack_demand.is_zero())

    def limit(self) -> Resources:
        return Resources(*(self.resources[k].limit if k in self.resources else math.inf
                           for k in KINDS))

    def reservation(self) -> Resources:
        return Resources(*(self.resources[k].reservation if k in self.resources else 0.0
                           for k in KINDS))

    def share(self) -> Resources:
        return Resources(*(self.resources[k].share if k in self.resources else 1.0
                           for k in KINDS))

    def static(self) -> tuple[bool, bool, bool, bool]:
        """Per kind: is the reservation STATIC (held whatever the demand)?"""
        s = [k in self.resources and self.resources[k].type == STATIC for k in KINDS]
        return (s[0], s[1], s[2], s[3])

    def controller_limit_resources(self) -> Resources | None:
        """What controller gangs may hold: ``controller_limit`` % of the
        reservation; None when the pool sets no controller limit (0)."""
        if self.controller_limit <= 0:
            return None
        return self.reservation().scale(self.controller_limit / 100.0)

    def is_leaf(self) -> bool:
        return not self.children and self.id != ROOT


def new_root() -> Pool:
    return Pool(id=ROOT, name="root", parent=None)


def path_of(pools: dict[str, Pool], pool_id: str) -> str:
    names: list[str] = []
    pool = pools[pool_id]
    while pool.parent is not None:
        names.append(pool.name)
        pool = pools[pool.parent]
    return "/" + "/".join(reversed(names))


def lookup(pools: dict[str, Pool], path: str) -> Pool:
    """The pool at ``path`` ('/' is root); NotFound names the missing part."""
    if not path.startswith("/"):
        raise InvalidArgument(f"resource pool path {path!r} must start with '/'", field="path")
    pool = pools[ROOT]
    walked = ""
    for name in (p for p in path.split("/") if p):
        walked += "/" + name
        for child in pool.children:
            if pools[child].name == name:
                pool = pools[child]
                break
        else:
            raise NotFound(f"resource pool {walked} does not exist")
    return pool


def ancestors(pools: dict[str, Pool], pool_id: str) -> list[Pool]:
    """The pool and its ancestors below root, nearest first."""
    out = []
    pool = pools[pool_id]
    while pool.id != ROOT:
        out.append(pool)
        pool = pools[pool.parent]  # type: ignore[index]
    return out


def leaves(pools: dict[str, Pool], pool_id: str) -> list[str]:
    """Ids of the leaves under ``pool_id`` (itself if a leaf), depth first in child order."""
    pool = pools[pool_id]
    if pool.is_leaf():
        return [pool.id]
    return [leaf for child in pool.children for leaf in leaves(pools, child)]


def effective_limit(pools: dict[str, Pool], pool_id: str) -> Resources:
    limit = Resources(math.inf, math.inf, math.inf, math.inf)
    for pool in ancestors(pools, pool_id):
        limit = Resources(*map(min, limit, pool.limit()))
    return limit


def validate_config(pool: Pool) -> None:
    """Rules that need no tree: known kinds, no negatives, reservation <= limit."""
    if not pool.name or "/" in pool.name:
        raise InvalidArgument(f"pool name {pool.name!r} must be non-empty and contain no '/'",
                              field="name")
    for kind, spec in pool.resources.items():
        if kind not in KINDS:
            raise InvalidArgument(f"unknown resource kind {kind!r}; kinds are {', '.join(KINDS)}",
                                  field="resources")
        for attr in ("reservation", "limit", "share"):
            if getattr(spec, attr) < 0:
                raise InvalidArgument(f"{kind} {attr} {getattr(spec, attr):g} is negative",
                                      field="resources")
        if spec.reservation > spec.limit + EPSILON:
            raise InvalidArgument(
                f"{kind} reservation {spec.reservation:g} exceeds its limit {spec.limit:g}",
                field="resources")
    for attr in ("controller_limit", "slack_limit"):
        if not 0 <= getattr(pool, attr) <= 100:
            raise InvalidArgument(f"{attr} {getattr(pool, attr):g}% is outside 0..100",
                                  field=attr.replace("_l", "L"))


def validate_against_tree(pools: dict[str, Pool], pool: Pool, *, creating: bool) -> None:
    """Parent exists, sibling names unique, limits and reservations nest."""
    validate_config(pool)
    if pool.parent not in pools:
        raise NotFound(f"parent resource pool {pool.parent} does not exist")
    parent = pools[pool.parent]  # type: ignore[index]
    siblings = [pools[c] for c in parent.children if c != pool.id]
    if any(s.name == pool.name for s in siblings):
        raise AlreadyExists(f"resource pool {path_of(pools, parent.id).rstrip('/')}/{pool.name} "
                            "already exists")
    if creating and parent.id != ROOT and parent.has_tasks():
        raise FailedPrecondition(
            f"resource pool {path_of(pools, parent.id)} has jobs; only a pool without tasks "
            "can get children")
    if parent.id != ROOT:
        _validate_against_parent(pools, pool, parent, siblings)
    if not creating:
        _validate_against_children(pools, pool)


def _validate_against_parent(pools: dict[str, Pool], pool: Pool, parent: Pool,
                             siblings: list[Pool]) -> None:
    """The parent defines every kind the pool does; limits and reservations nest."""
    for kind, spec in pool.resources.items():
        pspec = parent.resources.get(kind)
        if pspec is None:
            raise InvalidArgument(f"parent {path_of(pools, parent.id)} does not define {kind}",
                                  field="resources")
        if spec.limit > pspec.limit + EPSILON:
            raise InvalidArgument(f"{kind} limit {spec.limit:g} exceeds the parent's limit "
                                  f"{pspec.limit:g}", field="resources")
        total = spec.reservation + sum(s.resources[kind].reservation for s in siblings
                                       if kind in s.resources)
        if total > pspec.reservation + EPSILON:
            raise InvalidArgument(
                f"{kind} reservations of {path_of(pools, parent.id)}'s children would be "
                f"{total:g}, more than its reservation {pspec.reservation:g}", field="resources")


def _validate_against_children(pools: dict[str, Pool], pool: Pool) -> None:
    """An updated pool (top-level ones too) still defines every kind its children
    define, at a limit no lower than theirs and a reservation no lower than the
    sum of theirs."""
    for child in (pools[c] for c in pool.children):
        for kind, cspec in child.resources.items():
            own = pool.resources.get(kind)
            if own is None:
                raise InvalidArgument(f"child {child.name} defines {kind}, which the update "
                                      "removes", field="resources")
            if cspec.limit > own.limit + EPSILON:
                raise InvalidArgument(f"{kind} limit {own.limit:g} is below child "
                                      f"{child.name}'s limit {cspec.limit:g}",
                                      field="resources")
    for kind, spec in pool.resources.items():
        total = sum(pools[c].resources[kind].reservation for c in pool.children
                    if kind in pools[c].resources)
        if total > spec.reservation + EPSILON:
            raise InvalidArgument(f"{kind} reservation {spec.reservation:g} is below the sum "
                                  f"of the children's reservations {total:g}",
                                  field="resources")


def validate_delete(pools: dict[str, Pool], pool: Pool) -> None:
    where = path_of(pools, pool.id)
    if pool.id == ROOT:
        raise InvalidArgument("the root resource pool cannot be deleted", field="path")
    if pool.children:
        raise FailedPrecondition(f"resource pool {where} is not a leaf: it has "
                                 f"{len(pool.children)} child pool(s); delete them first")
    if pool.has_tasks():
        raise FailedPrecondition(f"resource pool {where} is busy: it has running or pending tasks")
