"""The pool tree's pure rules: paths, lookups, limits along a path, and every
validation rule of reference/peloton.md §4.2 with the error it gives."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from peloton.core.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PelotonError,
)
from peloton.core.resources import Resources
from peloton.resmgr import respool
from peloton.resmgr.respool import ROOT, Pool, ResourceSpec

INF = math.inf


def spec(reservation: float, limit: float, share: float = 1.0) -> ResourceSpec:
    return ResourceSpec(reservation, limit, share)


def make(pid: str, parent: str | None = ROOT, *, name: str | None = None,
         **kinds: ResourceSpec) -> Pool:
    return Pool(id=pid, name=name or pid, parent=parent, resources=dict(kinds))


def add(pools: dict[str, Pool], pool: Pool) -> Pool:
    respool.validate_against_tree(pools, pool, creating=True)
    pools[pool.id] = pool
    pools[pool.parent].children.append(pool.id)  # type: ignore[index]
    return pool


@pytest.fixture
def pools() -> dict[str, Pool]:
    """/org (cpu 10/10, memory 100/200) with /org/a and /org/b (cpu 4/8 each), and /solo."""
    tree = {ROOT: respool.new_root()}
    add(tree, make("org", cpu=spec(10, 10), memory=spec(100, 200)))
    add(tree, make("a", "org", cpu=spec(4, 8)))
    add(tree, make("b", "org", cpu=spec(4, 8), memory=spec(50, 200)))
    add(tree, make("solo"))
    return tree


# --------------------------------------------------------------------------- paths and limits


def test_root_and_pool_basics(pools: dict[str, Pool]) -> None:
    root = pools[ROOT]
    assert (root.id, root.name, root.parent, root.is_leaf()) == ("root", "root", None, False)
    assert respool.new_root().is_leaf() is False  # root never takes jobs, even when bare
    assert pools["a"].limit() == Resources(8, INF, INF, INF)
    assert pools["a"].reservation() == Resources(4, 0, 0, 0)
    assert pools["org"].limit() == Resources(10, 200, INF, INF)
    assert pools["solo"].limit() == Resources(INF, INF, INF, INF)
    assert ResourceSpec(1, 2, 3).type == 1  # ELASTIC by default


@pytest.mark.parametrize(("pid", "path"), [
    (ROOT, "/"), ("org", "/org"), ("a", "/org/a"), ("solo", "/solo")])
def test_path_of_and_lookup_agree(pools: dict[str, Pool], pid: str, path: str) -> None:
    assert respool.path_of(pools, pid) == path
    assert respool.lookup(pools, path).id == pid


def test_lookup_ignores_doubled_and_trailing_slashes(pools: dict[str, Pool]) -> None:
    assert respool.lookup(pools, "//org///a/").id == "a"


@pytest.mark.parametrize(("path", "error", "message"), [
    ("org", InvalidArgument, "resource pool path 'org' must start with '/'"),
    ("", InvalidArgument, "resource pool path '' must start with '/'"),
    ("/nope", NotFound, "resource pool /nope does not exist"),
    ("/org/c", NotFound, "resource pool /org/c does not exist"),
    ("/org/a/deeper", NotFound, "resource pool /org/a/deeper does not exist"),
])
def test_lookup_names_the_missing_part(pools: dict[str, Pool], path: str,
                                       error: type[PelotonError], message: str) -> None:
    with pytest.raises(error) as info:
        respool.lookup(pools, path)
    assert info.value.message == message


def test_ancestors_leaves_and_effective_limit(pools: dict[str, Pool]) -> None:
    assert [p.id for p in respool.ancestors(pools, "a")] == ["a", "org"]
    assert [p.id for p in respool.ancestors(pools, "solo")] == ["solo"]
    assert respool.ancestors(pools, ROOT) == []
    assert respool.leaves(pools, ROOT) == ["a", "b", "solo"]
    assert respool.leaves(pools, "org") == ["a", "b"]
    assert respool.leaves(pools, "a") == ["a"]
    # The smallest limit per kind along the path; undefined kinds are unlimited.
    assert respool.effective_limit(pools, "a") == Resources(8, 200, INF, INF)
    assert respool.effective_limit(pools, "solo") == Resources(INF, INF, INF, INF)


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(("pool", "field", "message"), [
    (Pool("x", "", ROOT), "name", "pool name '' must be non-empty and contain no '/'"),
    (make("x", name="a/b"), "name", "pool name 'a/b' must be non-empty and contain no '/'"),
    (make("x", cpus=spec(0, 1)), "resources",
     "unknown resource kind 'cpus'; kinds are cpu, memory, disk, gpu"),
    (make("x", gpu=spec(-1, 1)), "resources", "gpu reservation -1 is negative"),
    (make("x", gpu=spec(0, -1)), "resources", "gpu limit -1 is negative"),
    (make("x", gpu=spec(0, 1, -0.5)), "resources", "gpu share -0.5 is negative"),
    (make("x", disk=spec(2, 1)), "resources", "disk reservation 2 exceeds its limit 1"),
    (Pool("x", "x", ROOT, controller_limit=100.5), "controllerLimit",
     "controller_limit 100.5% is outside 0..100"),
    (Pool("x", "x", ROOT, controller_limit=-1), "controllerLimit",
     "controller_limit -1% is outside 0..100"),
    (Pool("x", "x", ROOT, slack_limit=101), "slackLimit", "slack_limit 101% is outside 0..100"),
])
def test_validate_config_rejects(pool: Pool, field: str, message: str) -> None:
    with pytest.raises(InvalidArgument) as info:
        respool.validate_config(pool)
    assert (info.value.field, info.value.message) == (field, message)


def test_validate_config_accepts_the_boundaries() -> None:
    respool.validate_config(Pool("x", "x", ROOT, {}, controller_limit=100, slack_limit=0,
                                 resources={"cpu": spec(1, 1), "gpu": spec(0, 0, 0),
                                            "memory": spec(1 + 1e-9, 1)}))


@pytest.mark.parametrize(("pool", "error", "field", "message"), [
    (make("x", "nope"), NotFound, None, "parent resource pool nope does not exist"),
    (make("x", "org", name="a"), AlreadyExists, None, "resource pool /org/a already exists"),
    (make("x", name="org"), AlreadyExists, None, "resource pool /org already exists"),
    (make("x", "org", cpu=spec(0, 11)), InvalidArgument, "resources",
     "cpu limit 11 exceeds the parent's limit 10"),
    (make("x", "org", disk=spec(0, 1)), InvalidArgument, "resources",
     "parent /org does not define disk"),
    (make("x", "org", cpu=spec(2.5, 5)), InvalidArgument, "resources",
     "cpu reservations of /org's children would be 10.5, more than its reservation 10"),
    (make("x", "org", memory=spec(60, 60)), InvalidArgument, "resources",
     "memory reservations of /org's children would be 110, more than its reservation 100"),
    (make("x", "org", cpu=spec(3, 2)), InvalidArgument, "resources",
     "cpu reservation 3 exceeds its limit 2"),
])
def test_validate_create_rejects(pools: dict[str, Pool], pool: Pool, error: type[PelotonError],
                                 field: str | None, message: str) -> None:
    with pytest.raises(error) as info:
        respool.validate_against_tree(pools, pool, creating=True)
    assert (info.value.field, info.value.message) == (field, message)


def test_validate_create_accepts(pools: dict[str, Pool]) -> None:
    # Under root anything goes (root follows the cluster's capacity).
    respool.validate_against_tree(pools, make("x", cpu=spec(1e6, 1e6)), creating=True)
    # Exactly the rest of the parent's reservation, the parent's full limit.
    respool.validate_against_tree(pools, make("x", "org", cpu=spec(2, 10), memory=spec(50, 200)),
                                  creating=True)
    # A kind the child leaves out is bounded by its ancestors only.
    respool.validate_against_tree(pools, make("x", "org"), creating=True)


@pytest.mark.parametrize("busy", ["allocation", "demand"])
def test_a_pool_with_tasks_gets_no_children(pools: dict[str, Pool], busy: str) -> None:
    setattr(pools["a"], busy, Resources(cpu=1))
    with pytest.raises(FailedPrecondition, match="resource pool /org/a has jobs"):
        respool.validate_against_tree(pools, make("x", "a"), creating=True)


def updated(pools: dict[str, Pool], pid: str, **changes: Any) -> Pool:
    old = pools[pid]
    return Pool(pid, changes.get("name", old.name), old.parent,
                resources=changes.get("resources", dict(old.resources)), children=old.children)


@pytest.mark.parametrize(("pid", "changes", "message"), [
    ("org", {"resources": {"cpu": spec(7, 7), "memory": spec(100, 200)}},
     "cpu limit 7 is below child a's limit 8"),
    ("org", {"resources": {"cpu": spec(7, 8), "memory": spec(100, 200)}},
     "cpu reservation 7 is below the sum of the children's reservations 8"),
    ("org", {"resources": {"cpu": spec(10, 10)}},
     "child b defines memory, which the update removes"),
    ("a", {"resources": {"cpu": spec(6.5, 8)}},
     "cpu reservations of /org's children would be 10.5, more than its reservation 10"),
    ("a", {"resources": {"cpu": spec(4, 10.5)}}, "cpu limit 10.5 exceeds the parent's limit 10"),
])
def test_validate_update_rejects(pools: dict[str, Pool], pid: str, changes: dict[str, Any],
                                 message: str) -> None:
    with pytest.raises(InvalidArgument) as info:
        respool.validate_against_tree(pools, updated(pools, pid, **changes), creating=False)
    assert (info.value.field, info.value.message) == ("resources", message)


def test_validate_update_accepts(pools: dict[str, Pool]) -> None:
    # The pool's own old numbers do not count as a sibling's.
    respool.validate_against_tree(pools, updated(pools, "a", resources={"cpu": spec(6, 10)}),
                                  creating=False)
    # Renaming to its own name or a free one; a busy pool may be updated.
    pools["a"].allocation = Resources(cpu=3)
    respool.validate_against_tree(pools, updated(pools, "a"), creating=False)
    respool.validate_against_tree(pools, updated(pools, "a", name="a2"), creating=False)
    with pytest.raises(AlreadyExists, match="/org/b already exists"):
        respool.validate_against_tree(pools, updated(pools, "a", name="b"), creating=False)
    # Room for the children exactly.
    respool.validate_against_tree(
        pools, updated(pools, "org", resources={"cpu": spec(8, 8), "memory": spec(50, 200)}),
        creating=False)


@pytest.mark.parametrize(("pid", "error", "field", "message"), [
    (ROOT, InvalidArgument, "path", "the root resource pool cannot be deleted"),
    ("org", FailedPrecondition, None,
     "resource pool /org is not a leaf: it has 2 child pool(s); delete them first"),
])
def test_validate_delete_rejects(pools: dict[str, Pool], pid: str, error: type[PelotonError],
                                 field: str | None, message: str) -> None:
    with pytest.raises(error) as info:
        respool.validate_delete(pools, pools[pid])
    assert (info.value.field, info.value.message) == (field, message)


@pytest.mark.parametrize("busy", ["allocation", "demand"])
def test_a_busy_leaf_is_not_deleted(pools: dict[str, Pool], busy: str) -> None:
    respool.validate_delete(pools, pools["a"])
    setattr(pools["a"], busy, Resources(memory=0.5))
    with pytest.raises(FailedPrecondition) as info:
        respool.validate_delete(pools, pools["a"])
    assert info.value.message == "resource pool /org/a is busy: it has running or pending tasks"
    # Float dust left by releases is not "busy".
    setattr(pools["a"], busy, Resources(cpu=1e-9))
    respool.validate_delete(pools, pools["a"])


# --------------------------------------------------------------------------- property


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 7), st.integers(0, 5), st.integers(0, 5)),
                max_size=25))
def test_an_accepted_tree_always_nests(steps: list[tuple[int, int, int]]) -> None:
    """Whatever is accepted keeps limits and reservations nested under each parent."""
    tree = {ROOT: respool.new_root()}
    for n, (parent_index, reservation, extra) in enumerate(steps):
        parents = sorted(tree)
        parent = parents[parent_index % len(parents)]
        try:
            add(tree, make(f"p{n}", parent, cpu=spec(reservation, reservation + extra)))
        except PelotonError:
            continue
    for pool in tree.values():
        if pool.id == ROOT or pool.parent == ROOT:
            continue
        parent = tree[pool.parent]  # type: ignore[index]
        assert pool.limit().fits_in(parent.limit())
        siblings = sum(tree[c].reservation().cpu for c in parent.children)
        assert siblings <= parent.reservation().cpu + 1e-6
    names = [(p.parent, p.name) for p in tree.values()]
    assert len(names) == len(set(names))
