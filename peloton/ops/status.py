"""Whether a local cluster can take a job, and what ``minicluster status`` shows."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import trio

from peloton import config as cluster_config
from peloton.client import within_rpc
from peloton.config import ClusterConfig
from peloton.core.errors import PelotonError
from peloton.ops.layout import cluster_path, resolve
from peloton.ops.processes import is_alive
from peloton.ops.statefile import read_state

if TYPE_CHECKING:
    from peloton.rpc import Channels

T = TypeVar("T")


def run_trio(fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    """``trio.run(fn, *args)``, in a thread of its own if trio already runs here."""
    try:
        trio.lowlevel.current_trio_token()
    except RuntimeError:
        return trio.run(fn, *args)
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = trio.run(fn, *args)
        except BaseException as error:
            outcome["error"] = error

    thread = threading.Thread(target=target, name="peloton-minicluster")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]  # type: ignore[no-any-return]


async def cluster_problems(config: ClusterConfig, channels: Any,
                           heard: dict[str, float]) -> list[str]:
    """What keeps the cluster from taking a job; empty when it can.

    It can when the resmgr leader answers GetClusterView with a fresh view in
    which every shard has a live jobmgr owner that may act on it, every
    jobmgr, placement worker and hostmgr of the cluster file is a live
    member, every jobmgr has heartbeated since then, and a jobmgr answers a
    resource pool Query. ``heard`` is the caller's memory between calls
    (start with ``{}``): each jobmgr's lease when all that first held.
    Must run inside ``peloton.rpc.open_rpc()``.
    """
    from peloton.api.private.cluster import cluster_grpc, cluster_pb2
    from peloton.api.v0.respool import respool_grpc, respool_pb2
    from peloton.rpc import ServiceClient
    from peloton.shard.owner import num_shards_refusal

    view_client = ServiceClient(config.resmgr_addresses, cluster_grpc.ClusterServiceStub,
                                channels=channels, deadline=1.0)
    try:
        view = await view_client.call("GetClusterView", cluster_pb2.GetClusterViewRequest(),
                                      timeout=2.0)
    except PelotonError as error:
        return [f"no resmgr leader answers GetClusterView yet ({error})"]
    if abs(time.time() - view.now) > 10:
        return ["the resmgr leader has not refreshed the cluster view yet"]
    live = {m.id: m for m in view.members if m.leaseExpires > view.now}
    problems = []
    jobmgrs = {i for i, m in live.items() if m.kind == "jobmgr"}
    owned = {s.shard for s in view.shards if s.owner in jobmgrs and s.actFrom <= view.now}
    if len(owned) < view.numShards or not view.numShards:
        problems.append(f"{view.numShards - len(owned)} of {view.numShards} shards have no "
                        f"acting jobmgr owner (live jobmgrs: {', '.join(sorted(jobmgrs)) or 'none'})")
    for m in sorted(live.values(), key=lambda m: m.id):
        refusal = num_shards_refusal(m.numShards, view.numShards) if m.numShards else None
        if m.kind == "jobmgr" and refusal:
            problems.append(f"{m.id} acts on no shard: {refusal}")
    # Every member daemon of the cluster file, not just one of each kind: a
    # jobmgr that joins after `up` returned takes half the shards from the
    # first, and a job on a moving shard waits out the old owner's lease.
    missing = [d.name for d in config.daemons if d.kind != "resmgr" and d.name not in live]
    if missing:
        problems.append(f"{', '.join(missing)} {'has' if len(missing) == 1 else 'have'} "
                        "not joined the cluster")
    if problems:
        heard.clear()
        return problems
    # A jobmgr learns the members from its heartbeat's reply. Until it has
    # heartbeated since they were all live, it may not know every hostmgr:
    # `peloton host query` would miss a cluster's hosts for a second.
    leases = {i: m.leaseExpires for i, m in live.items() if m.kind == "jobmgr"}
    if not heard:
        heard.update(leases)
    behind = sorted(i for i, lease in leases.items() if lease <= heard.get(i, 0.0))
    if behind:
        return [f"{', '.join(behind)} {'has' if len(behind) == 1 else 'have'} not heartbeated "
                "since every member joined"]
    pools = ServiceClient(config.jobmgr_addresses, respool_grpc.ResourceManagerStub,
                          channels=channels, deadline=1.0)
    try:
        await pools.call("Query", respool_pb2.QueryRequest(), timeout=2.0)
    except PelotonError as error:
        return [f"no jobmgr answers a resource pool Query ({error})"]
    return []


async def _replica_digests(channels: Any, addresses: list[str]) -> dict[str, dict[str, Any]]:
    """Each resmgr replica's running digest and, for the leader, its checks of
    the others' (GetStats with replicaLocal; a replica that does not answer
    is left out)."""
    from peloton.api.private.cluster import cluster_grpc, cluster_pb2
    from peloton.rpc import call_once

    out: dict[str, dict[str, Any]] = {}

    async def one(address: str) -> None:
        try:
            reply = await call_once(channels, address, cluster_grpc.ClusterServiceStub,
                                    "GetStats", cluster_pb2.GetStatsRequest(replicaLocal=True),
                                    1.0)
        except PelotonError:
            return
        d = reply.digest
        out[address] = {"applied": d.appliedIndex, "digest": d.chain, "since": d.chainSince,
                        "leading": reply.leading,
                        "checks": [{"replica": c.replica, "outcome": c.outcome,
                                    "agreed_index": c.agreedIndex, "mismatches": c.mismatches,
                                    "mismatch_index": c.mismatchIndex}
                                   for c in reply.digestChecks]}

    async with trio.open_nursery() as nursery:
        for address in addresses:
            nursery.start_soon(one, address)
    return out


async def _status_rpc(config: ClusterConfig, jobmgrs: list[str]) -> dict[str, Any]:
    from peloton.ops.minicluster import operate_as_daemon
    from peloton.rpc import Channels

    channels = Channels()
    with operate_as_daemon(config):
        try:
            return await _status_calls(config, jobmgrs, channels)
        finally:
            channels.close()


async def _status_calls(config: ClusterConfig, jobmgrs: list[str],
                        channels: Channels) -> dict[str, Any]:
    from peloton.api.private.cluster import cluster_grpc, cluster_pb2
    from peloton.api.v0.host.svc import host_svc_grpc, host_svc_pb2
    from peloton.rpc import ServiceClient

    info: dict[str, Any] = {}
    info["digests"] = await _replica_digests(channels, config.resmgr_addresses)
    client = ServiceClient(config.resmgr_addresses, cluster_grpc.ClusterServiceStub,
                           channels=channels, deadline=2.0)
    try:
        view = await client.call("GetClusterView", cluster_pb2.GetClusterViewRequest(),
                                 timeout=2.0)
    except PelotonError as error:
        info["view_error"] = str(error)
    else:
        info["leader"] = view.leader
        live = [m for m in view.members if m.leaseExpires > view.now]
        info["members"] = [{"id": m.id, "kind": m.kind, "address": m.address,
                            "cluster": m.cluster} for m in live]
        shards: dict[str, int] = {}
        for s in view.shards:
            if s.owner:
                shards[s.owner] = shards.get(s.owner, 0) + 1
        info["num_shards"] = view.numShards
        info["shards"] = shards
    if jobmgrs:
        hosts = ServiceClient(jobmgrs, host_svc_grpc.HostServiceStub, channels=channels,
                              deadline=2.0)
        try:
            reply = await hosts.call("QueryHosts", host_svc_pb2.QueryHostsRequest(),
                                     timeout=3.0)
        except PelotonError as error:
            info["hosts_error"] = str(error)
        else:
            info["hosts"] = [{
                "hostname": h.hostname, "cluster": h.cluster, "tasks": h.tasks,
                "cpu": [h.cpuAllocated, h.cpu], "mem_mb": [h.memMbAllocated, h.memMb],
                "disk_mb": [h.diskMbAllocated, h.diskMb], "gpu": [h.gpuAllocated, h.gpu],
            } for h in reply.host_infos]
    return info


def status(directory: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """What runs in ``directory``: daemons (alive or not), the resmgr leader,
    shards per jobmgr, hosts. ``running`` is False when nothing runs."""
    directory = resolve(directory)
    state = read_state(directory)
    info: dict[str, Any] = {"dir": str(directory), "running": False, "daemons": []}
    if state is None:
        if cluster_path(directory).exists():
            info["stopped"] = True
        return info
    for d in state.daemons:
        info["daemons"].append({"name": d.name, "kind": d.kind, "pid": d.pid,
                                "address": d.address, "alive": is_alive(d.pid, d.name)})
    info["running"] = any(d["alive"] for d in info["daemons"])
    info["jobmgr_addresses"] = state.jobmgr_addresses
    if info["running"]:
        config = cluster_config.load(state.config_file)
        metrics = {d.name: d.options["metrics"] for d in config.of_kind("resmgr")
                   if d.options.get("metrics")}
        http = {d.name: d.options["http"] for d in config.of_kind("jobmgr")
                if d.options.get("http")}
        for d in info["daemons"]:
            if d["name"] in metrics:
                d["metrics"] = f"http://{metrics[d['name']]}/metrics"
            if d["name"] in http:
                d["http"] = f"http://{http[d['name']]}/api/v1"
        info.update(run_trio(within_rpc, _status_rpc, config, state.jobmgr_addresses))
        by_address = {d.grpc: d.name for d in config.daemons if d.grpc}
        if info.get("leader"):
            info["leader_name"] = by_address.get(info["leader"], info["leader"])
        digests = info.pop("digests", {})
        for d in info["daemons"]:
            if d["address"] in digests:
                d["digest"] = digests[d["address"]]
                for check in d["digest"]["checks"]:
                    check["name"] = by_address.get(check["replica"], check["replica"])
    return info


def _digest_check(check: Mapping[str, Any]) -> str:
    text = f"{check['name']} {check['outcome'] or 'not yet compared'}"
    if check["outcome"] == "agree":
        text += f" at {check['agreed_index']}"
    if check["mismatches"]:
        text += (f" (DIVERGED: {check['mismatches']} mismatches, the last at "
                 f"{check['mismatch_index']})")
    return text


def format_status(info: Mapping[str, Any]) -> str:
    directory = info["dir"]
    if not info["daemons"]:
        if info.get("stopped"):
            return (f"the local cluster in {directory} is stopped; "
                    "start it with `peloton minicluster up`")
        return f"no local cluster in {directory}; start one with `peloton minicluster up`"
    lines = [f"local cluster in {directory}"]
    width = max(len(d["name"]) for d in info["daemons"])
    for d in info["daemons"]:
        alive = "alive" if d["alive"] else "DEAD "
        address = f"  {d['address']}" if d["address"] else ""
        metrics = f"  metrics {d['metrics']}" if d.get("metrics") else ""
        metrics += f"  http/json {d['http']}" if d.get("http") else ""
        digest = d.get("digest")
        chain = f"  applied {digest['applied']} digest {digest['digest'][:12]}" if digest else ""
        lines.append(f"  {d['name']:<{width}}  {alive}  pid {d['pid']:<7}{address}{metrics}"
                     f"{chain}")
    if "view_error" in info:
        lines.append(f"resmgr leader: none answers ({info['view_error']})")
    elif "leader" in info:
        lines.append(f"resmgr leader: {info.get('leader_name')} ({info['leader']})")
        checks = [c for d in info["daemons"] if d.get("digest", {}).get("leading")
                  for c in d["digest"]["checks"]]
        if checks:
            lines.append("replica digests (the leader's last check): " + ", ".join(
                _digest_check(c) for c in sorted(checks, key=lambda c: c["name"])))
        shards = info.get("shards", {})
        owned = sum(shards.values())
        parts = [f"{owner} {n}" for owner, n in sorted(shards.items())]
        unowned = info.get("num_shards", 0) - owned
        if unowned:
            parts.append(f"unowned {unowned}")
        lines.append(f"shards ({info.get('num_shards', 0)}): {', '.join(parts) or 'none'}")
        kinds: dict[str, int] = {}
        for m in info.get("members", []):
            kinds[m["kind"]] = kinds.get(m["kind"], 0) + 1
        lines.append("live members: " + (", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
                                         or "none"))
    if "hosts_error" in info:
        lines.append(f"hosts: cannot query ({info['hosts_error']})")
    elif "hosts" in info:
        lines.append(f"hosts ({len(info['hosts'])}):")
        for h in info["hosts"]:
            lines.append(f"  {h['hostname']:<10} {h['cluster']:<8} tasks {h['tasks']:<4} "
                         f"cpu {h['cpu'][0]:g}/{h['cpu'][1]:g}  "
                         f"mem {h['mem_mb'][0]:g}/{h['mem_mb'][1]:g} MB  "
                         f"disk {h['disk_mb'][0]:g}/{h['disk_mb'][1]:g} MB  "
                         f"gpu {h['gpu'][0]:g}/{h['gpu'][1]:g}")
    return "\n".join(lines)
