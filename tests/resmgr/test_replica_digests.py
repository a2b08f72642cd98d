"""Replicas publish their running digest, and the leader compares them.

Three in-process replicas (state, a fake Raft node, the real ClusterService
over loopback gRPC) apply one log; the leader's ``check_digests`` asks the
others for their (applied index, chain) pairs with ``GetStats(replicaLocal)``
and compares at a common index. A divergence is logged at ERROR with both
values and counted; chains of different origins are started again with
``digest.reset``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import msgpack
import pytest
import trio
from prometheus_client.parser import text_string_to_metric_families

from peloton.api.private.cluster import cluster_grpc
from peloton.api.private.cluster import cluster_pb2 as cpb
from peloton.core.errors import InvalidArgument, Unavailable
from peloton.raft.codec import Command, encode
from peloton.resmgr.digest import AGREE, MISMATCH, NO_COMMON_INDEX, History
from peloton.resmgr.metrics import metrics_route
from peloton.resmgr.service import ClusterHandler, Resmgr
from peloton.resmgr.state import ResmgrState
from peloton.rpc import Channels, call_once, open_rpc, serve_grpc
from tests.resmgr.test_state import mid, pool, task


class Group:
    """What Raft would do for the test: every submitted command is applied
    by every replica, in one order."""

    def __init__(self) -> None:
        self.nodes: list[FakeNode] = []

    def apply(self, blob: bytes) -> list[Any]:
        results = []
        for node in self.nodes:
            with node.lock:
                results.append(node.machine.apply(blob))
        return results


class FakeNode:
    def __init__(self, machine: ResmgrState, group: Group, leading: bool) -> None:
        self.machine = machine
        self.lock = threading.Lock()
        self.group = group
        self.leading = leading
        group.nodes.append(self)

    def is_leader(self) -> bool:
        return self.leading

    def leader(self) -> str | None:
        return None

    def status(self) -> dict[str, Any]:
        return {"state": 2 if self.leading else 0}

    async def submit(self, blob: bytes) -> Any:
        results = self.group.apply(blob)
        return results[self.group.nodes.index(self)]


class Replica:
    def __init__(self, group: Group, leading: bool) -> None:
        self.state = ResmgrState(num_shards=4)
        self.node = FakeNode(self.state, group, leading)
        self.rm = Resmgr(self.node, self.state, {})  # type: ignore[arg-type]
        self.handler = ClusterHandler(self.rm, [], "")
        self.address = ""


@asynccontextmanager
async def replicas(n: int = 3) -> AsyncIterator[tuple[Group, list[Replica]]]:
    """``n`` replicas serving ClusterService on loopback; the first leads."""
    group = Group()
    out = [Replica(group, leading=i == 0) for i in range(n)]
    async with open_rpc(), trio.open_nursery() as nursery:
        for r in out:
            host, port = await nursery.start(
                serve_grpc, [(cluster_grpc.ClusterServiceBase, r.handler)], "127.0.0.1", 0)
            r.address = r.handler.self_grpc = r.rm.me = f"{host}:{port}"
        for r in out:
            r.rm.peers = [o.address for o in out if o is not r]
        try:
            yield group, out
        finally:
            for r in out:
                r.rm.channels.close()
            nursery.cancel_scope.cancel()


_keys = iter(range(10**9))


def run(group: Group, name: str, payload: Any) -> None:
    group.apply(encode(Command(name, f"g-{next(_keys)}", payload)))


def workload(group: Group) -> None:
    run(group, "cluster.tick", {"now": 1.0})
    run(group, "pool.create", pool("a", cpu=(4, 10)))
    run(group, "gangs.enqueue", {"pool": "a", "requeue": False,
                                 "gangs": [[task(0)], [task(1)]]})
    run(group, "gangs.dequeue", {"limit": 10})
    run(group, "placements.set", {"failed": [], "placed": [
        ["h1", "agent-h1", "lease-h1", "c1", [[mid(0), []], [mid(1), []]]]]})


async def stats(address: str, **fields: Any) -> cpb.Stats:
    channels = Channels()
    try:
        return await call_once(channels, address, cluster_grpc.ClusterServiceStub, "GetStats",
                               cpb.GetStatsRequest(**fields), 5.0)
    finally:
        channels.close()


async def test_every_replica_answers_with_its_own_digest() -> None:
    async with replicas(2) as (group, [leader, one]):
        workload(group)
        reply = await stats(one.address, replicaLocal=True, digestHistory=3)
        assert (reply.replica, reply.leading) == (one.address, False)
        digest = reply.digest
        assert (digest.appliedIndex, digest.chainSince) == (leader.state.applied, 0)
        assert digest.chain == leader.state.chain.hex()
        assert [(p.index, p.digest) for p in digest.history] == [
            (i, c.hex()) for i, c in leader.state.history.last(3)]
        assert [p.index for p in digest.history] == [3, 4, 5]
        # Without replicaLocal only the leader answers.
        with pytest.raises(Unavailable, match="not the leader"):
            await stats(one.address)
        assert (await stats(leader.address)).leading


async def test_a_full_digest_is_taken_where_asked_on_each_replica() -> None:
    async with replicas() as (group, rs):
        workload(group)
        at = rs[0].state.applied + 2
        for r in rs:
            await stats(r.address, replicaLocal=True, fullDigestAt=at)
        run(group, "cluster.tick", {"now": 2.0})
        run(group, "cluster.tick", {"now": 3.0})
        fulls = [(await stats(r.address, replicaLocal=True)).digest.fullDigests for r in rs]
        assert [[(p.index, p.digest) for p in f] for f in fulls] == [
            [(at, rs[0].state.digest())]] * 3


async def test_bad_digest_requests_are_refused_naming_the_field() -> None:
    async with replicas(1) as (group, [r]):
        workload(group)
        with pytest.raises(InvalidArgument, match="digestHistory: digestHistory is at most 4096"):
            await stats(r.address, replicaLocal=True, digestHistory=5000)
        with pytest.raises(InvalidArgument, match="fullDigestAt: fullDigestAt 5 is not after "
                                                  "the applied index 5"):
            await stats(r.address, replicaLocal=True, fullDigestAt=5)


async def test_the_leader_finds_agreement_then_logs_and_counts_a_divergence(
        caplog: pytest.LogCaptureFixture) -> None:
    async with replicas() as (group, [leader, one, two]):
        workload(group)
        await leader.rm.check_digests()
        checks = leader.rm.checker.peers
        assert {p: (c.outcome, c.agreed_index) for p, c in checks.items()} == {
            one.address: (AGREE, 5), two.address: (AGREE, 5)}
        # One follower recorded another host for the placement: the next
        # command that reads it gives another result, so another chain.
        with two.node.lock:
            two.state.placements[0][0][0] = "h2"
        run(group, "placements.get", {"shards": [0], "limit": 10})
        caplog.set_level(logging.ERROR, logger="peloton.resmgr.service")
        await leader.rm.check_digests()
        assert checks[one.address].outcome == AGREE
        bad = checks[two.address]
        assert (bad.outcome, bad.mismatches, bad.mismatch_index) == (MISMATCH, 1, 6)
        [record] = [r for r in caplog.records if r.levelno == logging.ERROR]
        message = record.getMessage()
        assert "DIVERGED: at applied index 6" in message
        assert leader.state.chain.hex() in message and two.state.chain.hex() in message
        # Counted in the leader's stats and metrics.
        reply = await stats(leader.address)
        [check] = [c for c in reply.digestChecks if c.replica == two.address]
        assert (check.mismatches, check.mismatchIndex, check.outcome) == (1, 6, MISMATCH)
        assert (check.ours, check.theirs) == (leader.state.chain.hex(), two.state.chain.hex())
        body, _ = metrics_route(leader.state, leader.node, {}, leader.rm.checker)()
        found = {(s.name, tuple(sorted(s.labels.items()))): s.value
                 for f in text_string_to_metric_families(body.decode()) for s in f.samples}
        assert found[("peloton_resmgr_digest_mismatches_total",
                      (("replica", two.address),))] == 1
        assert found[("peloton_resmgr_digest_mismatches_total",
                      (("replica", one.address),))] == 0
        assert found[("peloton_resmgr_digest_agreed_index", (("replica", one.address),))] == 6
        assert found[("peloton_resmgr_applied_index", ())] == 6
        # The digest itself is no metric (a label changing every command).
        assert not any(name.startswith("peloton_resmgr_digest_info") for name, _ in found)


async def test_a_lagging_or_unreachable_replica_is_no_mismatch() -> None:
    async with replicas(2) as (group, [leader, behind]):
        leader.state.history = History(size=50)
        workload(group)
        group.nodes.remove(behind.node)  # stops applying at 5
        for i in range(20):
            run(group, "cluster.tick", {"now": 10.0 + i})
        await leader.rm.check_digests()  # compared where it is
        assert leader.rm.checker.peers[behind.address].outcome == AGREE
        assert leader.rm.checker.peers[behind.address].agreed_index == 5
        for i in range(50):
            run(group, "cluster.tick", {"now": 30.0 + i})
        await leader.rm.check_digests()  # further behind than the leader remembers
        assert leader.rm.checker.peers[behind.address].outcome == NO_COMMON_INDEX
        leader.rm.peers = ["127.0.0.1:1"]
        await leader.rm.check_digests()
        assert leader.rm.checker.peers["127.0.0.1:1"].outcome == "unreachable"
        assert all(c.mismatches == 0 for c in leader.rm.checker.peers.values())


async def test_chains_of_different_origins_are_started_again() -> None:
    """A follower restored from a snapshot written before the chain existed."""
    async with replicas(2) as (group, [leader, follower]):
        workload(group)
        d = msgpack.unpackb(leader.state.snapshot(), raw=False, strict_map_key=False)
        del d["chain"], d["version"]
        with follower.node.lock:
            follower.state.restore(msgpack.packb(d, use_bin_type=True))
        assert follower.state.chain_since == 5 != leader.state.chain_since
        await leader.rm.check_digests()  # origins differ: digest.reset proposed
        assert leader.state.chain_since == follower.state.chain_since == 6
        await leader.rm.check_digests()
        assert leader.rm.checker.peers[follower.address].outcome == AGREE
