"""Partitions on network namespaces: a resmgr leader cut off, a jobmgr cut off.

The test makes its own network: a bridge in its namespace and three
namespaces on it (10.231.7.10-12), each running one resmgr replica bound to
its own address, so every address is off loopback and the cluster file
carries what that needs (TLS, users, the cluster secret, the Raft
password; ``ops/cluster-3-machines.yaml``'s shape). Cutting the leader's
link off: the two others elect a new leader that serves a write (within
FAILOVER_S), and the old one, alone, acts on nothing (a write there is
refused).

A second network holds resmgr, hostmgr and placement in one namespace and
a jobmgr in each of two others. Cutting one jobmgr off while a job of its
shard runs: its lease lapses and it lets go of its shards before the other
jobmgr takes them (10 s, the member lease), it writes nothing more, the
other finishes the job with each instance run once, and a create sent to
the cut-off one changes nothing.
Nothing leaves the machine: the bridges have no route out.
"""

from __future__ import annotations

import datetime
import os
import pathlib
import secrets
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
import trio
import yaml

from peloton import config as cluster_config
from peloton.api.private.cluster import cluster_grpc
from peloton.api.private.cluster import cluster_pb2 as cpb
from peloton.api.v0.respool import respool_grpc, respool_pb2
from peloton.client import PelotonClient
from peloton.core.errors import NotFound, PelotonError
from peloton.core.ids import new_job_id
from peloton.core.security import Credentials
from peloton.ops.certs import make_certs
from peloton.rpc import ServiceClient, open_rpc
from peloton.rpc.client import configure
from peloton.shard.partition import shard_of
from peloton.spec.job import load_job_config
from peloton.spec.respool import load_respool_config

pytestmark = [
    pytest.mark.cluster,
    pytest.mark.skipif(os.geteuid() != 0 or shutil.which("ip") is None,
                       reason="network namespaces need root and iproute2"),
]

NET = "10.231.7"
# The Raft election timeout is 2-4 s (peloton.raft.node: shorter ones called
# elections under a million-task load on two cores); a write was served
# 2.5-3.7 s after the leader was cut off in seven runs (issue 14 asks for 5;
# the bound leaves room for a loaded CI machine).
FAILOVER_S = 8.0
POOL = """
name: {name}
resources:
- {{kind: cpu, reservation: 0, limit: 1, share: 1}}
"""


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=20)


class Net:
    """A bridge and ``count`` namespaces on it, removed at the end."""

    def __init__(self, net: str = NET, count: int = 3) -> None:
        tag = secrets.token_hex(3)
        self.bridge = f"pbr{tag}"
        self.spaces = [f"pns{tag}{i}" for i in range(count)]
        self.addresses = [f"{net}.{10 + i}" for i in range(count)]
        ip("link", "add", self.bridge, "type", "bridge")
        ip("addr", "add", f"{net}.1/24", "dev", self.bridge)
        ip("link", "set", self.bridge, "up")
        for i, (ns, address) in enumerate(zip(self.spaces, self.addresses, strict=True)):
            outside, inside = f"pv{tag}{i}", f"pe{tag}{i}"
            ip("netns", "add", ns)
            ip("link", "add", outside, "type", "veth", "peer", "name", inside)
            ip("link", "set", inside, "netns", ns)
            ip("link", "set", outside, "master", self.bridge)
            ip("link", "set", outside, "up")
            ip("-n", ns, "addr", "add", f"{address}/24", "dev", inside)
            ip("-n", ns, "link", "set", inside, "up")
            ip("-n", ns, "link", "set", "lo", "up")
        self.inside = [f"pe{tag}{i}" for i in range(count)]

    def cut(self, i: int) -> None:
        ip("-n", self.spaces[i], "link", "set", self.inside[i], "down")

    def close(self) -> None:
        for ns in self.spaces:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True, check=False)


def secure(d: pathlib.Path, addresses: list[str]) -> dict[str, object]:
    """Certificates, the Raft password and an admin user in ``d``: the
    settings a cluster off loopback needs (``ops/cluster-3-machines.yaml``)."""
    make_certs(d / "tls", addresses)
    for name, text in (("raft.secret", secrets.token_urlsafe(32)),
                       ("admin.password", "admin-password")):
        (d / name).write_text(text)
        (d / name).chmod(0o600)
    return {
        "data_dir": str(d / "data"), "raft_password_file": "raft.secret",
        "security": {
            "tls": {"cert": "tls/server.crt", "key": "tls/server.key", "ca": "tls/ca.crt"},
            "cluster_secret_file": "tls/cluster.secret",
            "auth": {"users": [{"name": "admin", "password_file": "admin.password",
                                "role": "admin"}],
                     "roles": [{"name": "admin", "accept": ["*"]}]}},
    }


def start(d: pathlib.Path, ns: str, kind: str, name: str) -> subprocess.Popen[bytes]:
    """One daemon of ``d/cluster.yaml`` in namespace ``ns``, logging to ``d/<name>.log``."""
    log = (d / f"{name}.log").open("wb")
    return subprocess.Popen(
        ["ip", "netns", "exec", ns, sys.executable, "-m", "peloton.daemon", kind,
         "--config", str(d / "cluster.yaml"), "--name", name],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        os.killpg(p.pid, 9)
        p.wait(timeout=10)


def as_operator(d: pathlib.Path) -> None:
    """Call as an operator: TLS, the admin user and the cluster secret."""
    security = cluster_config.load(d / "cluster.yaml").security
    configure(security.client_ssl(), Credentials("admin", "admin-password",
                                                 security.cluster_secret))


@pytest.fixture(scope="module")
def group(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Net, pathlib.Path,
                                                                       list[str]]]:
    d = tmp_path_factory.mktemp("partition")
    net = Net()
    procs: list[subprocess.Popen[bytes]] = []
    try:
        cluster = secure(d, net.addresses)
        cluster["resmgr"] = [{"name": f"resmgr-{i}", "grpc": f"{a}:5290", "raft": f"{a}:5291"}
                             for i, a in enumerate(net.addresses)]
        (d / "cluster.yaml").write_text(yaml.safe_dump(cluster))
        for i, ns in enumerate(net.spaces):
            procs.append(start(d, ns, "resmgr", f"resmgr-{i}"))
        yield net, d, [f"{a}:5290" for a in net.addresses]
    finally:
        stop(procs)
        net.close()
        configure(None, None)


async def leader(addresses: list[str]) -> str:
    client = ServiceClient(addresses, cluster_grpc.ClusterServiceStub, deadline=30.0)
    with trio.fail_after(60):
        while True:
            try:
                view = await client.call("GetClusterView", cpb.GetClusterViewRequest(),
                                         timeout=3.0)
                if view.leader:
                    return str(view.leader)
            except PelotonError:
                pass
            await trio.sleep(0.2)


async def root_id(addresses: list[str]) -> str:
    client = ServiceClient(addresses, respool_grpc.ResourceManagerStub, deadline=30.0)
    reply = await client.call("LookupResourcePoolID", respool_pb2.LookupRequest(
        path=respool_pb2.ResourcePoolPath(value="/")))
    return str(reply.id.value)


async def create_pool(addresses: list[str], name: str, deadline: float, root: str,
                      timeout: float = 2.0) -> None:
    pool, _ = load_respool_config(POOL.format(name=name))
    pool.parent.value = root
    client = ServiceClient(addresses, respool_grpc.ResourceManagerStub, deadline=deadline)
    reply = await client.call("CreateResourcePool", respool_pb2.CreateRequest(
        config=pool), timeout=timeout)
    assert reply.result.value, reply


async def test_a_cut_off_leader_is_replaced_and_acts_on_nothing(
        group: tuple[Net, pathlib.Path, list[str]]) -> None:
    net, d, addresses = group
    as_operator(d)
    async with open_rpc():
        old = await leader(addresses)
        root = await root_id(addresses)
        await create_pool(addresses, "before", 30.0, root)
        i = addresses.index(old)
        net.cut(i)
        cut_at = time.monotonic()
        others = [a for a in addresses if a != old]
        with trio.fail_after(30):
            while True:  # (a call in the middle of the election may time out)
                try:
                    # (short attempts: a follower's hint may still name the
                    # cut-off leader, whose packets go nowhere)
                    await create_pool(others, "after", 5.0, root, timeout=0.5)
                    break
                except PelotonError:
                    await trio.sleep(0.1)
        took = time.monotonic() - cut_at
        print(f"a new leader served {took:.1f}s after the cut (at {time.time() - took:.3f})")
        assert took < FAILOVER_S, f"a new leader served after {took:.1f}s"
        assert await leader(others) != old
        # The old leader, alone (asked from inside its namespace), commits nothing.
        done = await trio.run_process(
            ["ip", "netns", "exec", net.spaces[i], sys.executable, "-c", ALONE,
             str(d / "cluster.yaml"), old, root], capture_stdout=True, capture_stderr=True,
            check=False)
        out = done.stdout.decode()
        assert out.startswith("REFUSED"), (out, done.stderr.decode()[-2000:])


# Run inside the cut-off namespace: a write to the replica there.
ALONE = r"""
import sys, trio
from peloton import config
from peloton.api.v0.respool import respool_grpc, respool_pb2
from peloton.core.errors import PelotonError
from peloton.core.security import Credentials
from peloton.rpc import ServiceClient, open_rpc
from peloton.rpc.client import configure
from peloton.spec.respool import load_respool_config

security = config.load(sys.argv[1]).security
configure(security.client_ssl(), Credentials("admin", "admin-password",
                                             security.cluster_secret))
pool, _ = load_respool_config("name: lost\nresources:\n- {kind: cpu, reservation: 0, "
                              "limit: 1, share: 1}\n")
pool.parent.value = sys.argv[3]

async def main():
    async with open_rpc():
        client = ServiceClient([sys.argv[2]], respool_grpc.ResourceManagerStub, deadline=4.0)
        try:
            await client.call("CreateResourcePool", respool_pb2.CreateRequest(config=pool),
                              timeout=2.0)
            print("ACCEPTED")
        except PelotonError as error:
            print("REFUSED", type(error).__name__, error)

trio.run(main)
"""


# -- a jobmgr cut off ----------------------------------------------------------

SHARDS = 8
JOB = """
name: partitioned
instancecount: 2
defaultconfig:
  resource: {{cpulimit: 0.5, memlimitmb: 32, disklimitmb: 10}}
  command: {{shell: true, value: 'echo start >> {markers}/$PELOTON_INSTANCE_ID; sleep {seconds}; echo done >> {markers}/$PELOTON_INSTANCE_ID'}}
"""
JOB_POOL = """
name: part
resources:
- {kind: cpu, reservation: 2, limit: 2, share: 1}
- {kind: memory, reservation: 512, limit: 512, share: 1}
- {kind: disk, reservation: 512, limit: 512, share: 1}
- {kind: gpu, reservation: 0, limit: 0, share: 1}
"""


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Net, pathlib.Path]]:
    """resmgr, hostmgr and placement in the first namespace, jobmgr-a and
    jobmgr-b in the second and third."""
    d = tmp_path_factory.mktemp("shards")
    net = Net("10.231.8")
    procs: list[subprocess.Popen[bytes]] = []
    try:
        cluster = secure(d, net.addresses)
        first, a, b = net.addresses
        cluster.update({
            "num_shards": SHARDS,
            "resmgr": [{"name": "resmgr-0", "grpc": f"{first}:5290", "raft": f"{first}:5291"}],
            "jobmgr": [{"name": "jobmgr-a", "grpc": f"{a}:5392"},
                       {"name": "jobmgr-b", "grpc": f"{b}:5392"}],
            "placement": [{"name": "placement-0"}],
            "hostmgr": [{"name": "hostmgr-0", "grpc": f"{first}:5391", "backend": "local",
                         "hosts": 1, "cpu": 2, "memory_mb": 1024, "disk_mb": 1024}],
        })
        (d / "cluster.yaml").write_text(yaml.safe_dump(cluster))
        for ns, kind, name in ((net.spaces[0], "resmgr", "resmgr-0"),
                               (net.spaces[0], "hostmgr", "hostmgr-0"),
                               (net.spaces[0], "placement", "placement-0"),
                               (net.spaces[1], "jobmgr", "jobmgr-a"),
                               (net.spaces[2], "jobmgr", "jobmgr-b")):
            procs.append(start(d, ns, kind, name))
        yield net, d
    finally:
        stop(procs)
        net.close()
        configure(None, None)


async def shard_owners(resmgr: str) -> dict[int, str]:
    """Each shard's owner, once every owner may act on its shards."""
    client = ServiceClient([resmgr], cluster_grpc.ClusterServiceStub, deadline=10.0)
    view = await client.call("GetClusterView", cpb.GetClusterViewRequest(), timeout=3.0)
    if any(s.actFrom > view.now for s in view.shards):
        return {}
    return {s.shard: s.owner for s in view.shards}


def log_times(path: pathlib.Path, *texts: str) -> list[float]:
    """When each log line holding one of ``texts`` was written (seconds
    since the epoch)."""
    times = []
    for line in path.read_text(errors="replace").splitlines():
        if any(text in line for text in texts):
            stamp = datetime.datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f")
            times.append(stamp.timestamp())
    return times


async def test_a_cut_off_jobmgr_stops_writing_and_its_shards_move(
        shards: tuple[Net, pathlib.Path]) -> None:
    net, d = shards
    as_operator(d)
    resmgr = f"{net.addresses[0]}:5290"
    jobmgr_a, jobmgr_b = f"{net.addresses[1]}:5392", f"{net.addresses[2]}:5392"
    markers = d / "markers"
    markers.mkdir()
    async with open_rpc():
        with trio.fail_after(60):  # both jobmgrs own shards
            while True:
                try:
                    owners = await shard_owners(resmgr)
                    if len(owners) == SHARDS and set(owners.values()) == {"jobmgr-a",
                                                                          "jobmgr-b"}:
                        break
                except PelotonError:
                    pass
                await trio.sleep(0.5)
        of_a = {s for s, owner in owners.items() if owner == "jobmgr-a"}
        client = PelotonClient([jobmgr_b, jobmgr_a])
        pool, _ = load_respool_config(JOB_POOL)
        await client.create_respool("/part", pool)
        # A job of one of jobmgr-a's shards, running when the link goes.
        job_id = next(j for j in iter(new_job_id, None) if shard_of(j, SHARDS) in of_a)
        config, _ = load_job_config(JOB.format(markers=markers, seconds=20))
        await client.create_job("/part", config, job_id=job_id)
        with trio.fail_after(60):
            while True:  # (files written by the runs: no event to wait on)
                if len(list(markers.iterdir())) == 2:
                    break
                await trio.sleep(0.2)
        net.cut(1)
        cut_at = time.time()

        # Its shards move to jobmgr-b (after its lease, 10 s) ...
        with trio.fail_after(40):
            while True:
                if set((await shard_owners(resmgr)).values()) == {"jobmgr-b"}:
                    break
                await trio.sleep(0.5)
        # ... which finishes the job: each instance ran once.
        moved = time.time() - cut_at
        b_only = PelotonClient([jobmgr_b])
        await b_only.wait_for_job(job_id, ["SUCCEEDED"], timeout=60)
        print(f"shards moved {moved:.1f}s after the cut; the job SUCCEEDED at "
              f"{time.time() - cut_at:.1f}s")
        assert {p.name: p.read_text().split() for p in markers.iterdir()} == {
            "0": ["start", "done"], "1": ["start", "done"]}

        # The cut-off jobmgr let go of its shards before jobmgr-b took them,
        # and after that wrote nothing: no write of it reached the store's
        # fence, and the store's shards are all jobmgr-b's.
        lapsed = log_times(d / "jobmgr-a.log", "lease lapsed (")
        assert len(lapsed) == 1 and lapsed[0] > cut_at, lapsed
        taken = [t for t in log_times(d / "jobmgr-b.log",
                                      *(f"shard {s}: taking ownership" for s in of_a))
                 if t > cut_at]
        assert len(taken) == len(of_a) and min(taken) > lapsed[0], (taken, lapsed)
        a_log = (d / "jobmgr-a.log").read_text(errors="replace")
        assert "Aborted" not in a_log and "epoch" not in a_log.split("lease lapsed")[1], a_log
        with sqlite3.connect(f"file:{d / 'data' / 'jobs.db'}?mode=ro", uri=True) as db:
            rows = db.execute("SELECT shard, owner FROM shards").fetchall()
        assert {owner for shard, owner in rows if shard in of_a} == {"jobmgr-b"}

        # Asked from inside its namespace, it changes nothing.
        other = next(j for j in iter(new_job_id, None) if shard_of(j, SHARDS) in of_a)
        done = await trio.run_process(
            ["ip", "netns", "exec", net.spaces[1], sys.executable, "-c", CUT_OFF_CREATE,
             str(d / "cluster.yaml"), jobmgr_a, other], capture_stdout=True,
            capture_stderr=True, check=False)
        assert done.stdout.decode().startswith("REFUSED"), (done.stdout, done.stderr[-2000:])
        with pytest.raises(NotFound):
            await b_only.get_job(other)
        client.close()
        b_only.close()


# Run inside the cut-off jobmgr's namespace: a create sent to it.
CUT_OFF_CREATE = r"""
import sys, trio
from peloton import config
from peloton.api.v0.job import job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.client import PelotonClient
from peloton.core.errors import PelotonError
from peloton.core.security import Credentials
from peloton.rpc import open_rpc
from peloton.rpc.client import configure
from peloton.spec.job import load_job_config

security = config.load(sys.argv[1]).security
configure(security.client_ssl(), Credentials("admin", "admin-password",
                                             security.cluster_secret))
job, _ = load_job_config("name: lost\ninstancecount: 1\ndefaultconfig:\n"
                         "  resource: {cpulimit: 0.5, memlimitmb: 32, disklimitmb: 10}\n"
                         "  command: {value: 'true'}\n")

async def main():
    async with open_rpc():
        client = PelotonClient([sys.argv[2]], timeout=5.0, deadline=8.0)
        request = job_pb2.CreateRequest(id=peloton_pb2.JobID(value=sys.argv[3]), config=job)
        try:
            await client.jobs.call("Create", request)
            print("ACCEPTED")
        except PelotonError as error:
            print("REFUSED", type(error).__name__, error)
        client.close()

trio.run(main)
"""
