"""A cluster with TLS, users and roles, and a cluster secret.

Every daemon serves gRPC and HTTP/JSON over TLS with the cluster's own CA
(``peloton.ops.certs``); a public call needs a user whose role accepts it;
the internal services take only the daemons' cluster secret; the CLI
reads its credentials and CA from flags.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import pathlib
import ssl
import sys
from collections.abc import AsyncIterator, Iterator

import pytest
import trio
import yaml

from peloton.api.private.hostmgrsvc import hostmgrsvc_grpc
from peloton.api.private.hostmgrsvc import hostmgrsvc_pb2 as hpb
from peloton.api.v0.job import job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.client import PelotonClient
from peloton.core.errors import PelotonError, PermissionDenied, Unauthenticated
from peloton.core.security import Credentials
from peloton.ops.certs import make_certs
from peloton.rpc import ServiceClient, open_rpc
from peloton.rpc.client import configure
from peloton.spec.job import load_job_config
from peloton.spec.respool import load_respool_config
from peloton.testing.cluster import LocalCluster

pytestmark = pytest.mark.cluster

POOL = """
name: secure
resources:
- {kind: cpu, reservation: 1, limit: 1, share: 1}
- {kind: memory, reservation: 256, limit: 256, share: 1}
- {kind: disk, reservation: 256, limit: 256, share: 1}
- {kind: gpu, reservation: 0, limit: 0, share: 1}
"""
JOB = """
name: secure
instancecount: 1
defaultconfig:
  resource: {cpulimit: 0.1, memlimitmb: 32, disklimitmb: 10}
  command: {value: "echo over tls"}
"""


def secret(path: pathlib.Path, text: str) -> None:
    path.write_text(text + "\n")
    path.chmod(0o600)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    d = tmp_path_factory.mktemp("secure")
    make_certs(d / "tls")
    secret(d / "admin.password", "admin-password")
    secret(d / "reader.password", "reader-password")
    security = {
        "tls": {"cert": "tls/server.crt", "key": "tls/server.key", "ca": "tls/ca.crt"},
        "cluster_secret_file": "tls/cluster.secret",
        "auth": {"users": [{"name": "admin", "password_file": "admin.password", "role": "admin"},
                           {"name": "reader", "password_file": "reader.password",
                            "role": "reader"}],
                 "roles": [{"name": "admin", "accept": ["*"]},
                           {"name": "reader", "accept": ["*.Get*", "*.List*", "*.Query*",
                                                         "*.Lookup*"]}]},
    }
    try:
        with LocalCluster.start(d, hosts=1, cpu=2, extra={"security": security}) as c:
            yield c
    finally:
        configure(None, None)


def context(cluster: LocalCluster) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=str(cluster.directory / "tls/ca.crt"))
    ctx.set_alpn_protocols(["h2"])
    return ctx


@pytest.fixture
async def admin(cluster: LocalCluster) -> AsyncIterator[PelotonClient]:
    configure(context(cluster), Credentials("admin", "admin-password"))
    async with open_rpc():
        client = PelotonClient(cluster.addresses)
        yield client
        client.close()


async def as_user(cluster: LocalCluster, credentials: Credentials | None,
                  ctx: ssl.SSLContext | None, job_id: str) -> job_pb2.GetResponse:
    configure(ctx, credentials)
    client = PelotonClient(cluster.addresses, deadline=3.0, connect_deadline=3.0)
    try:
        return await client.jobs.call("Get", job_pb2.GetRequest(
            id=peloton_pb2.JobID(value=job_id)))
    finally:
        client.close()


async def test_tls_users_roles_and_the_cluster_secret(cluster: LocalCluster,
                                                      admin: PelotonClient) -> None:
    config, _ = load_respool_config(POOL)
    await admin.create_respool("/secure", config)
    job, _ = load_job_config(JOB)
    job_id = await admin.create_job("/secure", job)
    await admin.wait_for_job(job_id, ["SUCCEEDED"], timeout=60)
    assert await admin.read_task_file(job_id, 0) == b"over tls\n"

    ctx = context(cluster)
    reader = Credentials("reader", "reader-password")
    assert (await as_user(cluster, reader, ctx, job_id)).jobInfo.runtime.state == (
        job_pb2.SUCCEEDED)
    with pytest.raises(PermissionDenied, match="role reader may not call"):
        configure(ctx, reader)
        client = PelotonClient(cluster.addresses)
        try:
            await client.jobs.call("Create", job_pb2.CreateRequest(config=job))
        finally:
            client.close()
    with pytest.raises(Unauthenticated):
        await as_user(cluster, None, ctx, job_id)
    with pytest.raises(Unauthenticated):
        await as_user(cluster, Credentials("reader", "wrong"), ctx, job_id)
    with pytest.raises(PelotonError):  # plain text to a TLS server
        await as_user(cluster, reader, None, job_id)

    # A user, even the admin, does not reach a daemon's internal service.
    configure(ctx, Credentials("admin", "admin-password"))
    internal = ServiceClient([cluster.config.of_kind("hostmgr")[0].grpc],
                             hostmgrsvc_grpc.InternalHostServiceStub, deadline=3.0)
    with pytest.raises(Unauthenticated, match="only the cluster's daemons"):
        await internal.call("ClusterCapacity", hpb.ClusterCapacityRequest())

    # HTTP/JSON over TLS, with the user in an Authorization header.
    host, port = cluster.config.of_kind("jobmgr")[0].options["http"].rsplit(":", 1)

    def post(user: str | None) -> tuple[int, dict]:
        conn = http.client.HTTPSConnection(host, int(port), context=ssl.create_default_context(
            cafile=str(cluster.directory / "tls/ca.crt")), timeout=10)
        headers = {"Rpc-Procedure": "JobManager.Get", "Rpc-Encoding": "json",
                   "Content-Type": "application/json"}
        if user:
            headers["Authorization"] = "Basic " + base64.b64encode(user.encode()).decode()
        conn.request("POST", "/api/v1", json.dumps({"id": {"value": job_id}}), headers)
        answer = conn.getresponse()
        return answer.status, json.loads(answer.read() or b"{}")
    status, body = post("reader:reader-password")
    assert status == 200 and body["jobInfo"]["runtime"]["state"] == "SUCCEEDED"
    assert post(None)[0] == 401

    # The CLI: its CA and user from flags (gRPC: no local cluster it knows runs there).
    nowhere = {**os.environ, "PELOTON_HOME": str(cluster.directory.parent / "nowhere")}
    base = [sys.executable, "-m", "peloton.cli.main", "--cluster", cluster.addresses[0],
            "--ca", str(cluster.directory / "tls/ca.crt")]
    reader_flags = ["--user", "reader", "--password-file",
                    str(cluster.directory / "reader.password")]
    ok = await trio.run_process([*base, *reader_flags, "job", "get", job_id], env=nowhere,
                                capture_stdout=True, capture_stderr=True, check=False)
    out, err = ok.stdout.decode(), ok.stderr.decode()
    assert ok.returncode == 0 and "SUCCEEDED" in out, err
    refused = await trio.run_process([*base, "job", "get", job_id], env=nowhere,
                                     capture_stdout=True, capture_stderr=True, check=False)
    assert refused.returncode != 0
    assert "user and password are required" in refused.stderr.decode()
    assert "security" in yaml.safe_load((cluster.directory / "cluster.yaml").read_text())

    # The CLI finding the cluster by its state file: HTTP/JSON over TLS (the
    # CA from the cluster file), the user from flags; what gRPC answered,
    # without trio.
    home = cluster.directory.parent / f"{cluster.directory.name}-home"
    home.mkdir(exist_ok=True)
    if not (home / "minicluster").exists():
        (home / "minicluster").symlink_to(cluster.directory)
    found = {**os.environ, "PELOTON_HOME": str(home)}
    found.pop("PELOTON_CLUSTER", None)
    quick = [sys.executable, "-c", "import sys\nfrom peloton.cli.main import main\n"
             "code = main(sys.argv[1:])\nprint('trio:', 'trio' in sys.modules, file=sys.stderr)"
             "\nsys.exit(code)"]

    async def cli(*argv: str) -> tuple[int, str, str]:
        done = await trio.run_process([*quick, *argv], env=found, capture_stdout=True,
                                      capture_stderr=True, check=False)
        return done.returncode, done.stdout.decode(), done.stderr.decode()

    code, out_http, err = await cli(*reader_flags, "job", "get", job_id)
    assert code == 0 and out_http == out, err
    assert err.endswith("trio: False\n"), err
    code, _, err = await cli("job", "get", job_id)
    assert code == 1 and err.splitlines()[0] == refused.stderr.decode().strip()
    assert err.endswith("trio: False\n"), err
    (cluster.directory / "job.yaml").write_text(JOB)
    code, _, err = await cli(*reader_flags, "job", "create", "/secure",
                             str(cluster.directory / "job.yaml"))
    assert code == 1
    assert "role reader may not call peloton.api.v0.job.JobManager.Create" in err, err
