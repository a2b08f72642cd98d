"""The ``peloton`` command's quick path: HTTP/JSON when the running local
cluster's file gives the jobmgrs ``http:`` addresses, gRPC otherwise; the
same output, errors and exit status either way.

Against a fake jobmgr serving gRPC and HTTP/JSON by the same handlers (in a
thread; no daemons). Which transport a command used is told by
``Cli.secure``, which only the gRPC path calls. The imports a command
makes are checked in a new interpreter.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import socket
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from peloton import config as cluster_config
from peloton.api.v0.task import task_pb2
from peloton.cli import commands, output, plain
from peloton.cli.common import Cli, Handler
from peloton.cli.output import short_time
from peloton.cli.run import build_parser
from peloton.core.security import Role, Security
from peloton.ops import minicluster
from peloton.ops.certs import make_certs
from peloton.rpc.client import configure
from peloton.rpc.http_client import HttpClient, Target
from tests.cli.test_cli import EXAMPLES, JOB, FakeJobmgr, one_line, run

OTHER = "00000000-0000-4000-8000-000000000000"
ONE = ("name: a\ninstancecount: 1\ndefaultconfig:\n  resource: {cpulimit: 1, memlimitmb: 32}\n"
       "  command: {value: 'true'}\n")
ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _isolated(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("PELOTON_HOME", str(tmp_path / "home"))
    for name in ("PELOTON_CLUSTER", "PELOTON_USER", "PELOTON_PASSWORD", "PELOTON_CA"):
        monkeypatch.delenv(name, raising=False)
    yield
    configure(None, None)  # the gRPC path's TLS and credentials are the process's


@pytest.fixture
def grpc_used(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """One entry per command that took the gRPC path."""
    used: list[str] = []
    secure = Cli.secure

    def recording(self: Cli) -> None:
        used.append("grpc")
        secure(self)

    monkeypatch.setattr(Cli, "secure", recording)
    return used


def closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


def write_cluster(home: pathlib.Path, grpc: str, http: str | None, *,
                  security: dict[str, Any] | None = None,
                  running: list[str] | None = None, view: bool = True,
                  extra: dict[str, Any] | None = None) -> pathlib.Path:
    """A running local cluster's directory as the CLI sees it: its cluster
    file (one jobmgr at ``grpc``, ``http``) and its state file (jobmgrs
    ``running``, default ``[grpc]``; with the cluster file's client view
    as ``minicluster up`` writes it, unless not ``view``). ``extra``:
    more sections of the cluster file."""
    directory = home / "minicluster"
    directory.mkdir(parents=True, exist_ok=True)
    jobmgr = {"name": "jobmgr-0", "grpc": grpc, **({"http": http} if http else {})}
    data: dict[str, Any] = {
        "data_dir": str(directory), "raft_password": "a-raft-secret-of-20-chars",
        "resmgr": [{"name": "resmgr-0", "grpc": "127.0.0.1:1", "raft": "127.0.0.1:2"}],
        "jobmgr": [jobmgr]}
    if security is not None:
        data["security"] = security
    data.update(extra or {})
    (directory / "cluster.yaml").write_text(yaml.safe_dump(data))
    addresses = running or [grpc]
    client = minicluster.client_view(cluster_config.parse(data, base=directory)) if view else None
    minicluster.write_state(minicluster.State(
        directory, directory / "cluster.yaml",
        [minicluster.DaemonRecord("jobmgr-0", "jobmgr", 999_999, addresses[0])], addresses, 1.0,
        client))
    return directory


@pytest.fixture
def fake(tmp_path: pathlib.Path) -> Iterator[FakeJobmgr]:
    with FakeJobmgr(http=True) as server:
        write_cluster(tmp_path / "home", server.address, server.http_address)
        yield server


QUICK = [
    ["job", "get", JOB],
    ["--json", "job", "get", JOB],
    ["job", "status", JOB],
    ["job", "status", JOB, "-j"],
    ["task", "list", JOB],
    ["task", "list", JOB, "--json"],
    ["task", "get", JOB, "1"],
    ["task", "get", JOB, "5"],  # out of range: an error field
    ["task", "get", OTHER, "0"],  # notFound at the top of the response
    ["job", "get", OTHER],  # GetResponse.error.notFound
    ["task", "list", OTHER],
    ["job", "create", "/Nope", str(EXAMPLES / "testjob.yaml")],  # no such pool
    ["job", "create", "NoSlash", str(EXAMPLES / "testjob.yaml")],  # refused before a call
]


def task_listing() -> task_pb2.ListResponse:
    """Tasks out of order (10 after 2), with times, an exit code and a
    state at its default (which plain data leaves out)."""
    reply = task_pb2.ListResponse()
    reply.result.value[0].runtime.state = task_pb2.RUNNING
    for i in (2, 10):
        info = reply.result.value[i]
        info.instanceId, info.config.name = i, f"t{i}"
        info.runtime.host, info.runtime.startTime = "local-1", "2026-11-25T10:00:00Z"
        info.runtime.state = task_pb2.SUCCEEDED
    failed = reply.result.value[10].runtime
    failed.state, failed.message = task_pb2.FAILED, "command failed"
    failed.terminationStatus.exit_code = 3
    reply.result.value[3].instanceId = 3
    return reply


@pytest.mark.parametrize("argv", QUICK, ids=lambda argv: " ".join(argv[:3]))
def test_quick_commands_answer_over_http_as_over_grpc(
        capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path, fake: FakeJobmgr,
        grpc_used: list[str], argv: list[str]) -> None:
    over_http = run(capsys, *argv)
    assert grpc_used == [], "the command went over gRPC"
    write_cluster(tmp_path / "home", fake.address, None)  # no http: address any more
    over_grpc = run(capsys, *argv)
    assert over_http == over_grpc
    assert grpc_used == ([] if "NoSlash" in argv else ["grpc"])


def test_task_list_prints_the_same_table_over_http_and_grpc(
        capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path, fake: FakeJobmgr,
        grpc_used: list[str]) -> None:
    """By instance number (10 after 2), with an exit code, and a state at
    its default (UNKNOWN, which plain data leaves out)."""
    fake.tasks.listing = task_listing()
    code, out, err = run(capsys, "task", "list", JOB)
    assert code == 0, err
    started = short_time("2026-11-25T10:00:00Z")
    assert out.splitlines() == [
        "INSTANCE  NAME  STATE      HOST     STARTED              MESSAGE",
        "0         -     RUNNING    -        -",
        f"2         t2    SUCCEEDED  local-1  {started}",
        "3         -     UNKNOWN    -        -",
        f"10        t10   FAILED     local-1  {started}  command failed (exit 3)"]
    assert grpc_used == []
    assert task_pb2.TaskState.Name(0) == output.UNKNOWN_STATE
    write_cluster(tmp_path / "home", fake.address, None)  # no http: address any more
    assert run(capsys, "task", "list", JOB) == (code, out, err)
    assert grpc_used == ["grpc"]


def test_job_create_over_http(capsys: pytest.CaptureFixture[str], fake: FakeJobmgr,
                              grpc_used: list[str]) -> None:
    code, out, err = run(capsys, "job", "create", "/DefaultResPool",
                         str(EXAMPLES / "testjob.yaml"))
    assert code == 0, err
    [request] = fake.jobs.created
    assert out == f"Job {request.id.value} created\n"
    assert request.config.respoolID.value == "pool-1"
    assert err.count("peloton: warning:") == 2
    code, out, _ = run(capsys, "job", "create", "/DefaultResPool", "--id", JOB, "-j",
                       str(EXAMPLES / "testjob.yaml"))
    assert code == 0 and json.loads(out) == {"jobId": {"value": JOB}}
    assert fake.jobs.created[-1].id.value == JOB
    assert grpc_used == []


def test_a_create_not_answered_in_time_is_sent_again(
        capsys: pytest.CaptureFixture[str], fake: FakeJobmgr, grpc_used: list[str]) -> None:
    """The create is the first call: a jobmgr that has not answered yet
    may not serve HTTP, so the same create (same id) goes on over gRPC."""
    fake.jobs.stalls = [5.0]
    code, out, err = run(capsys, "--timeout", "1", "job", "create", "/DefaultResPool",
                         str(EXAMPLES / "testjob.yaml"))
    assert code == 0, err
    ids = {r.id.value for r in fake.jobs.created}
    assert len(fake.jobs.created) >= 2 and len(ids) == 1
    assert out == f"Job {ids.pop()} created\n"
    assert err.count("peloton: warning:") == 2  # once, though read twice
    assert grpc_used == ["grpc"]


def test_a_create_never_answered_names_the_id(
        capsys: pytest.CaptureFixture[str], fake: FakeJobmgr, grpc_used: list[str]) -> None:
    fake.jobs.stalls = [5.0, 5.0, 5.0, 5.0]
    code, out, err = run(capsys, "--timeout", "1", "job", "create", "/DefaultResPool",
                         str(EXAMPLES / "testjob.yaml"))
    assert code == 1 and out == ""
    ids = {r.id.value for r in fake.jobs.created}
    assert 1 <= len(fake.jobs.created) <= 4 and len(ids) == 1
    [job_id] = ids
    assert err.splitlines()[-1].startswith(f"peloton: no answer to 3 creates of job {job_id} "
                                           f"(Create to {fake.address} took longer than 1s)")


def test_a_create_answered_once_over_http_is_sent_again_over_http(
        capsys: pytest.CaptureFixture[str], fake: FakeJobmgr, grpc_used: list[str]) -> None:
    """A jobmgr that answered (here: an AlreadyExists of an earlier send)
    serves HTTP: a stalled create is sent again there, with its id."""
    client = HttpClient([Target(fake.address, fake.http_address)], timeout=1.0)
    fake.jobs.stalls = [5.0]
    sends: list[int] = []

    def send() -> str:
        sends.append(1)
        return str(client.call_spec(plain.JOB_MANAGER, "Create", ONE,
                                    {"Peloton-Respool": "/DefaultResPool",
                                     "Peloton-Job-Id": JOB}, warn=print)["jobId"]["value"])

    try:
        assert client.call_plain(plain.JOB_MANAGER, "Get", {"id": {"value": JOB}})
        assert plain.created_once(send, JOB, given=False) == JOB
    finally:
        client.close()
    assert len(sends) == 2 and [r.id.value for r in fake.jobs.created] == [JOB, JOB]


def test_a_spec_the_jobmgr_refuses_reads_as_the_clis_own_refusal(
        capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path, fake: FakeJobmgr,
        grpc_used: list[str]) -> None:
    """The jobmgr reads the spec: its errors and warnings name the file as
    the CLI names it when it reads the spec itself (over gRPC)."""
    bad = tmp_path / "bad job.yaml"
    bad.write_text("name: x\ninstancecount: -1\n")
    odd = tmp_path / "jöb.yaml"
    odd.write_text("name: x\ninstancecount: 1\ncommand: {value: 'true'}\n")
    runs = [("job", "create", "/DefaultResPool", str(bad)),
            ("job", "create", "/DefaultResPool", str(odd)),
            ("job", "create", "/Nope", str(EXAMPLES / "testjob.yaml"))]
    over_http = [run(capsys, *argv) for argv in runs]
    assert grpc_used == []
    assert over_http[0] == (1, "", f"peloton: {bad}: instancecount: must not be negative, "
                                   "got -1\n")
    assert over_http[1][0] == 1 and over_http[1][2].startswith(f"peloton: {odd}: command:")
    assert over_http[2][2].count("peloton: warning: ") == 2
    write_cluster(tmp_path / "home", fake.address, None)  # no http: address any more
    assert [run(capsys, *argv) for argv in runs] == over_http
    assert fake.jobs.created == []


def test_a_jobmgr_that_reads_no_specs_gets_the_create_over_grpc(
        capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path,
        grpc_used: list[str]) -> None:
    """A jobmgr from before specs were sent as they are would take the YAML
    for protobuf JSON: the CLI reads the spec itself, and uses gRPC."""
    with FakeJobmgr(http=True, reads_specs=False) as server:
        write_cluster(tmp_path / "home", server.address, server.http_address)
        code, out, err = run(capsys, "job", "create", "/DefaultResPool", "--id", JOB,
                             str(EXAMPLES / "testjob.yaml"))
        assert (code, out) == (0, f"Job {JOB} created\n"), err
        assert err.count("peloton: warning:") == 2
        assert [r.id.value for r in server.jobs.created] == [JOB]
        assert server.jobs.created[0].config.respoolID.value == "pool-1"
    assert grpc_used == ["grpc"]


def test_an_http_address_nothing_answers_at_goes_to_grpc(
        capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path, fake: FakeJobmgr,
        grpc_used: list[str]) -> None:
    write_cluster(tmp_path / "home", fake.address, closed_port())
    code, out, err = run(capsys, "job", "get", JOB)
    assert code == 0, err
    assert "name: fake" in out and grpc_used == ["grpc"]
    code, out, err = run(capsys, "job", "create", "/DefaultResPool",
                         str(EXAMPLES / "testjob.yaml"))
    assert code == 0, err
    [request] = fake.jobs.created
    assert out == f"Job {request.id.value} created\n"


def test_an_unreachable_cluster_reads_the_same_with_an_http_address(
        capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path,
        grpc_used: list[str]) -> None:
    grpc = closed_port()
    write_cluster(tmp_path / "home", grpc, closed_port())
    code, out, err = run(capsys, "--timeout", "1", "job", "get", JOB)
    assert code == 1 and out == ""
    assert one_line(err) == (f"peloton: cannot reach the cluster at {grpc} "
                             "(is it running? try peloton minicluster status)")
    assert grpc_used == ["grpc"]


def test_explicit_addresses_use_http_only_for_the_running_local_cluster(
        capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path, fake: FakeJobmgr,
        grpc_used: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PELOTON_CLUSTER", fake.address)
    assert run(capsys, "job", "get", JOB)[0] == 0
    assert grpc_used == []  # the running cluster's jobmgr: its http: address
    write_cluster(tmp_path / "home", fake.address, fake.http_address,
                  running=["127.0.0.1:1"])  # the local cluster runs elsewhere
    assert run(capsys, "job", "get", JOB)[0] == 0
    assert grpc_used == ["grpc"]


def test_a_request_larger_than_the_servers_take_goes_to_grpc(
        capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path, fake: FakeJobmgr,
        grpc_used: list[str]) -> None:
    write_cluster(tmp_path / "home", fake.address, fake.http_address,
                  extra={"rpc": {"max_message_bytes": 1024}})
    large = tmp_path / "large.yaml"
    large.write_text(f"name: large\ndescription: {'x' * 2000}\ninstancecount: 1\n"
                     "defaultconfig: {resource: {cpulimit: 1, memlimitmb: 32},"
                     " command: {value: 'true'}}\n")
    code, out, err = run(capsys, "job", "create", "/DefaultResPool", str(large))
    assert code == 0, err
    assert grpc_used == ["grpc"]  # the lookup went over HTTP, the create over gRPC
    assert {r.id.value for r in fake.jobs.created} == {out.split()[1]}


# --------------------------------------------------------------------------- credentials


def secret(path: pathlib.Path, text: str) -> str:
    path.write_text(text + "\n")
    path.chmod(0o600)
    return str(path)


@pytest.fixture
def secured(tmp_path: pathlib.Path) -> Iterator[tuple[FakeJobmgr, pathlib.Path]]:
    """A fake jobmgr over TLS that takes user alice (password ``alice-pw``)."""
    tls = tmp_path / "tls"
    make_certs(tls)
    security = Security(cert=tls / "server.crt", key=tls / "server.key", ca=tls / "ca.crt",
                        users={"alice": (hashlib.sha256(b"alice-pw").digest(),
                                         Role("all", ("*",)))})
    with FakeJobmgr(http=True, security=security) as server:
        yield server, tls


@pytest.mark.parametrize("how", ["flags", "environment", "cluster file"])
def test_credentials_and_tls_over_http_as_over_grpc(
        capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path,
        secured: tuple[FakeJobmgr, pathlib.Path], grpc_used: list[str],
        monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    server, tls = secured
    password = secret(tmp_path / "alice.password", "alice-pw")
    home = tmp_path / "home"
    argv = ["job", "get", JOB]
    section: dict[str, Any] = {"tls": {"cert": str(tls / "server.crt"),
                                       "key": str(tls / "server.key"),
                                       "ca": str(tls / "ca.crt")}}
    if how == "flags":
        argv += ["--user", "alice", "--password-file", password, "--ca", str(tls / "ca.crt")]
    elif how == "environment":
        monkeypatch.setenv("PELOTON_USER", "alice")
        monkeypatch.setenv("PELOTON_PASSWORD", "alice-pw")
        monkeypatch.setenv("PELOTON_CA", str(tls / "ca.crt"))
    else:
        section["client"] = {"user": "alice", "password_file": password}
    results = []
    for http in (server.http_address, None):
        write_cluster(home, server.address, http, security=section)
        results.append(run(capsys, *argv))
        if how != "cluster file":  # and no user at all: refused alike
            monkeypatch.delenv("PELOTON_USER", raising=False)
            results.append(run(capsys, "--ca", str(tls / "ca.crt"), "job", "get", JOB))
            if how == "environment":
                monkeypatch.setenv("PELOTON_USER", "alice")
    assert grpc_used == ["grpc"] * (len(results) // 2)  # the second half only
    half = len(results) // 2
    assert results[:half] == results[half:]
    code, out, err = results[0]
    assert code == 0 and "name: fake" in out, err
    if how != "cluster file":
        assert results[1][0] == 1
        assert one_line(results[1][2]) == ("peloton: a user and password are required "
                                           "(Basic authorization)")


def test_a_bad_ca_file_is_refused_before_any_call(
        capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path, fake: FakeJobmgr) -> None:
    bad = tmp_path / "not-a-ca.crt"
    bad.write_text("nonsense\n")
    code, _, err = run(capsys, "--ca", str(bad), "job", "get", JOB)
    assert code == 1 and one_line(err).startswith(f"peloton: --ca {bad}: ")


# --------------------------------------------------------------------------- what is imported


def imports_of(argv: list[str], env: dict[str, str]) -> tuple[int, set[str], str]:
    """(exit status, the heavy modules loaded, stderr) of ``peloton ARGV``
    run in a new interpreter."""
    script = ("import sys\nfrom peloton.cli.main import main\ncode = main(sys.argv[1:])\n"
              "heavy = ('trio', 'trio_asyncio', 'grpclib', 'asyncio', 'google.protobuf', "
              "'yaml', 'peloton.client', 'ssl', 'uuid', 'shutil', 'datetime', "
              "'encodings.idna')\n"
              "print('IMPORTED', *sorted(m for m in heavy if m in sys.modules), file=sys.stderr)\n"
              "sys.exit(code)\n")
    done = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=60)
    line = next(ln for ln in done.stderr.splitlines() if ln.startswith("IMPORTED"))
    return done.returncode, set(line.split()[1:]), done.stderr


def test_help_imports_no_rpc_protobuf_or_yaml(tmp_path: pathlib.Path) -> None:
    env = {**os.environ, "PELOTON_HOME": str(tmp_path / "home")}
    for argv in (["--help"], ["job", "--help"], ["task", "list", "--help"], ["--version"]):
        code, heavy, err = imports_of(argv, env)
        assert code == 0, err
        if argv == ["--version"]:  # importlib.metadata's own imports
            heavy -= {"shutil", "datetime"}
        assert heavy == set(), argv


def test_quick_commands_import_neither_trio_nor_grpclib(tmp_path: pathlib.Path,
                                                        fake: FakeJobmgr) -> None:
    env = {**os.environ, "PELOTON_HOME": str(tmp_path / "home")}
    env.pop("PELOTON_CLUSTER", None)
    # job get, job status and task list have their answers as plain data;
    # job create sends the spec as it is, for the jobmgr to read. None reads
    # YAML for the cluster file: the state file says what a client needs.
    # Nor do they import uuid, shutil, datetime or the "idna" codec (7 ms of
    # a `job create`'s 53 of cpu).
    for argv in (["job", "get", JOB], ["job", "status", JOB], ["task", "list", JOB],
                 ["job", "create", "/DefaultResPool", str(EXAMPLES / "testjob.yaml")]):
        code, heavy, err = imports_of(argv, env)
        assert code == 0, err
        assert heavy == set(), argv


def test_a_state_file_without_a_client_view_sends_to_the_cluster_files_http_addresses(
        capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path, grpc_used: list[str]) -> None:
    """A state file written before it carried the cluster file's client
    view: the HTTP addresses come from the cluster file."""
    with FakeJobmgr(http=True) as server:
        write_cluster(tmp_path / "home", server.address, server.http_address, view=False)
        code, out, err = run(capsys, "job", "status", JOB)
        assert out.startswith(f"job:        {JOB}")
        assert code == 0, err
        assert grpc_used == []


# --------------------------------------------------------------------------- the command tree


def leaves(parser: Any) -> Iterator[Any]:
    sub = getattr(parser, "_subparsers", None)
    if sub is None:
        yield parser
        return
    for child in sub._group_actions[0].choices.values():
        yield from leaves(child)


def test_every_command_names_a_handler_that_exists() -> None:
    found = 0
    for parser in leaves(build_parser()):
        handler = parser.get_default("func")
        assert isinstance(handler, Handler), parser.prog
        assert callable(handler.resolve()), parser.prog
        found += 1
    assert found > 70


def test_the_nouns_built_on_demand_print_the_same_help(
        capsys: pytest.CaptureFixture[str]) -> None:
    full = build_parser().format_help()
    assert build_parser(wanted=set()).format_help() == full
    assert run(capsys, "--help") == (0, full, "")
    assert [name for name, _, _ in commands.NOUNS] == list(
        build_parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]

