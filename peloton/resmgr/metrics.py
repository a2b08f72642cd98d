"""Prometheus gauges of a resmgr replica, read from its state at scrape time.

``ResmgrCollector`` is a custom prometheus-client collector: nothing is
counted as commands apply (no per-command cost); each scrape takes the node
lock once and reads the replicated state (reference/peloton.md §11, names as
Peloton's ``respool/metrics.go`` where they exist):

``peloton_resmgr_pool_<figure>{pool="/a/b",kind="cpu"}``
    per pool (root ``/`` included) and resource kind, where ``<figure>`` is
    reservation, limit, share, entitlement, non_slack_entitlement,
    slack_entitlement, allocation (total, revocable included),
    non_slack_allocation, slack_allocation, controller_allocation,
    non_preemptible_allocation, demand, slack_demand. A non-leaf's
    allocations and demands are the sums over its leaves.
``peloton_resmgr_pool_queue_size{pool,queue}``
    gangs waiting in each queue of a leaf (pending, non-preemptible,
    controller, revocable).
``peloton_resmgr_tasks{state}``
    tracked tasks per resmgr task state.
``peloton_resmgr_ready_queue_length``
    admitted gangs waiting for placement.
``peloton_resmgr_cluster_capacity{cluster,kind}``, ``peloton_resmgr_cluster_slack{cluster,kind}``
    what each hostmgr shard reported (slack: cpu only).
``peloton_resmgr_raft_role{role}`` (1 for this replica's role: leader,
follower or candidate), ``peloton_resmgr_leader`` (1 if this replica
leads), ``peloton_resmgr_raft_leader_info{leader}`` (the leader's gRPC
address), ``peloton_resmgr_raft_term``, ``peloton_resmgr_applied_commands``.
``peloton_resmgr_applied_index``
    the commands this replica applied. Its running digest
    (``peloton.resmgr.digest``) is not a metric: a label that changes with
    every command would make a new series on every scrape; GetStats with
    ``replicaLocal`` and ``peloton minicluster status`` show it.
``peloton_resmgr_digest_checks_total{replica}``,
``peloton_resmgr_digest_mismatches_total{replica}``,
``peloton_resmgr_digest_agreed_index{replica}``
    this replica's comparisons of its digest with each other replica's
    (made while it leads, counted since the process started): how many, how
    many found a different chain at the same index, the highest index found
    equal.

Only the leader's figures are authoritative. Followers apply the same log,
so theirs are the same up to replication lag, and they export them too;
``peloton_resmgr_leader`` tells a scraper which replica to believe.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from typing import Any, Protocol

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    Metric,
)

from peloton.core.resources import KINDS, ZERO, Resources
from peloton.core.states import TaskState
from peloton.resmgr import respool
from peloton.resmgr.digest import Checker
from peloton.resmgr.state import QUEUES, ResmgrState

PREFIX = "peloton_resmgr_"

POOL_FIGURES = (
    ("reservation", "Reservation of the pool (root: the cluster's capacity)."),
    ("limit", "Limit of the pool (+Inf where the pool sets none)."),
    ("share", "Share of the pool."),
    ("entitlement", "Non-revocable entitlement."),
    ("non_slack_entitlement", "What non-revocable tasks may use of the entitlement."),
    ("slack_entitlement", "Slack cpu, and memory/disk/gpu, revocable tasks may use."),
    ("allocation", "Resources held by admitted tasks, revocable ones included."),
    ("non_slack_allocation", "Resources held by admitted non-revocable tasks."),
    ("slack_allocation", "Resources held by admitted revocable tasks."),
    ("controller_allocation", "Resources held by admitted controller tasks."),
    ("non_preemptible_allocation", "Resources held by admitted non-preemptible tasks."),
    ("demand", "Resources of non-revocable gangs waiting for admission."),
    ("slack_demand", "Resources of revocable gangs waiting for admission."),
)

_ROLES = {0: "follower", 1: "candidate", 2: "leader"}


class Node(Protocol):
    """What the collector needs of the Raft node (``peloton.raft.node.RaftNode``)."""

    @property
    def lock(self) -> AbstractContextManager[Any]: ...  # held while reading the state

    def is_leader(self) -> bool: ...
    def leader(self) -> str | None: ...
    def status(self) -> dict[str, Any]: ...


class ResmgrCollector:
    """Builds every family from the state at scrape time (module docstring)."""

    def __init__(self, state: ResmgrState, node: Node,
                 raft_to_grpc: Mapping[str, str] | None = None,
                 checker: Checker | None = None) -> None:
        self.state = state
        self.node = node
        self.raft_to_grpc = dict(raft_to_grpc or {})
        self.checker = checker

    def describe(self) -> list[Metric]:
        return []  # families depend on the state: no describe-time collect

    def collect(self) -> Iterator[Metric]:
        with self.node.lock:
            families = state_families(self.state)
            if self.checker is not None:
                families.extend(check_families(self.checker))
        yield from families
        yield from self._raft()

    def _raft(self) -> list[Metric]:
        status = self.node.status()
        leading = self.node.is_leader()
        role = "leader" if leading else _ROLES.get(int(status.get("state", 0)), "follower")
        roles = GaugeMetricFamily(PREFIX + "raft_role", "1 for this replica's Raft role.",
                                  labels=["role"])
        for name in ("leader", "follower", "candidate"):
            roles.add_metric([name], 1.0 if name == role else 0.0)
        leader = GaugeMetricFamily(PREFIX + "leader",
                                   "1 if this replica leads (only its figures are "
                                   "authoritative).", value=1.0 if leading else 0.0)
        out: list[Metric] = [roles, leader]
        raft_leader = self.node.leader()
        if raft_leader:
            info = GaugeMetricFamily(PREFIX + "raft_leader_info",
                                     "The Raft leader's gRPC address, as this replica sees it.",
                                     labels=["leader"])
            info.add_metric([self.raft_to_grpc.get(raft_leader, raft_leader)], 1.0)
            out.append(info)
        if "raft_term" in status:
            out.append(GaugeMetricFamily(PREFIX + "raft_term", "The current Raft term.",
                                         value=float(status["raft_term"])))
        return out


def state_families(state: ResmgrState) -> list[Metric]:
    """Every family read from ``state`` (call under the node lock)."""
    pools = state.pools
    paths = {pid: respool.path_of(pools, pid) for pid in pools}
    # Leaf-only accounting rolled up to every ancestor.
    controller: dict[str, Resources] = dict.fromkeys(pools, ZERO)
    non_preemptible: dict[str, Resources] = dict.fromkeys(pools, ZERO)
    for pid, pool in pools.items():
        if pool.is_leaf() and pid != respool.ROOT:
            for aid in [a.id for a in respool.ancestors(pools, pid)] + [respool.ROOT]:
                controller[aid] = controller[aid] + pool.controller_allocation
                non_preemptible[aid] = non_preemptible[aid] + pool.np_allocation
    capacity = state.total_capacity()
    figures = {name: GaugeMetricFamily(PREFIX + "pool_" + name, doc, labels=["pool", "kind"])
               for name, doc in POOL_FIGURES}
    for pid in sorted(pools, key=paths.__getitem__):
        pool = pools[pid]
        if pid == respool.ROOT:
            reservation, limit, share = capacity, capacity, Resources(1, 1, 1, 1)
        else:
            reservation, limit, share = pool.reservation(), pool.limit(), pool.share()
        ent = state.entitlements.get(pid)
        values: dict[str, Resources] = {
            "reservation": reservation, "limit": limit, "share": share,
            "controller_allocation": controller[pid],
            "non_preemptible_allocation": non_preemptible[pid]}
        if ent is not None:
            values.update(
                entitlement=ent.entitlement, non_slack_entitlement=ent.non_slack_entitlement,
                slack_entitlement=ent.slack_entitlement,
                allocation=ent.allocation + ent.slack_allocation,
                non_slack_allocation=ent.allocation, slack_allocation=ent.slack_allocation,
                demand=ent.demand, slack_demand=ent.slack_demand)
        path = paths[pid]
        for name, vector in values.items():
            family = figures[name]
            for kind, value in zip(KINDS, vector, strict=True):
                family.add_metric([path, kind], float(value))
    out: list[Metric] = list(figures.values())

    queues = GaugeMetricFamily(PREFIX + "pool_queue_size",
                               "Gangs waiting in a leaf pool's queue.", labels=["pool", "queue"])
    for pid in sorted(pools, key=paths.__getitem__):
        if not pools[pid].is_leaf():
            continue
        leaf = state.queues.get(pid, {})
        for name in QUEUES:
            queue = leaf.get(name, {})
            queues.add_metric([paths[pid], name], float(sum(len(q) for q in queue.values())))
    out.append(queues)

    tasks = GaugeMetricFamily(PREFIX + "tasks", "Tracked tasks per resmgr task state.",
                              labels=["state"])
    for value, count in sorted(state.state_counts.items()):
        if count:
            tasks.add_metric([TaskState(value).name], float(count))
    out.append(tasks)
    out.append(GaugeMetricFamily(PREFIX + "ready_queue_length",
                                 "Admitted gangs waiting for placement.",
                                 value=float(len(state.ready))))
    out.append(GaugeMetricFamily(PREFIX + "applied_commands",
                                 "Raft commands this replica applied (since its snapshot).",
                                 value=float(state.applied)))
    out.append(GaugeMetricFamily(PREFIX + "applied_index",
                                 "Commands this replica's state machine applied (the index "
                                 "its digest belongs to).", value=float(state.applied)))
    clusters = GaugeMetricFamily(PREFIX + "cluster_capacity",
                                 "Physical capacity a host manager reported.",
                                 labels=["cluster", "kind"])
    for cluster, vector in sorted(state.capacity.items()):
        for kind, value in zip(KINDS, vector, strict=True):
            clusters.add_metric([cluster, kind], float(value))
    slack = GaugeMetricFamily(PREFIX + "cluster_slack",
                              "Allocated-but-idle cpu a host manager reported (revocable "
                              "tasks run on it).", labels=["cluster", "kind"])
    for cluster, vector in sorted(state.slack_capacity.items()):
        slack.add_metric([cluster, "cpu"], float(vector.cpu))
    out.extend([clusters, slack])
    return out


def check_families(checker: Checker) -> list[Metric]:
    """This replica's comparisons of its digest with the others' (under the lock)."""
    checks = CounterMetricFamily(PREFIX + "digest_checks",
                                 "Comparisons of this replica's running digest with another "
                                 "replica's (made while it leads).", labels=["replica"])
    mismatches = CounterMetricFamily(PREFIX + "digest_mismatches",
                                     "Comparisons that found another replica's digest different "
                                     "at the same applied index: a divergence.",
                                     labels=["replica"])
    agreed = GaugeMetricFamily(PREFIX + "digest_agreed_index",
                               "The highest applied index at which another replica's digest "
                               "was found equal to this one's.", labels=["replica"])
    for peer, check in sorted(checker.peers.items()):
        checks.add_metric([peer], float(check.checks))
        mismatches.add_metric([peer], float(check.mismatches))
        agreed.add_metric([peer], float(check.agreed_index))
    return [checks, mismatches, agreed]


def metrics_route(state: ResmgrState, node: Node,
                  raft_to_grpc: Mapping[str, str] | None = None,
                  checker: Checker | None = None,
                  ) -> Callable[[], tuple[bytes, str]]:
    """An HTTP route (``peloton.observability.http``) serving the text format."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(ResmgrCollector(state, node, raft_to_grpc,  # type: ignore[arg-type]
                                      checker))

    def route() -> tuple[bytes, str]:
        return generate_latest(registry), CONTENT_TYPE_LATEST

    return route
