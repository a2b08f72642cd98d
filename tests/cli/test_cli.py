"""The ``peloton`` command, run in-process: arguments, local validation,
errors as one line, JSON output, cluster discovery, and the calls it makes
(against a fake jobmgr served from a thread; no daemons)."""

from __future__ import annotations

import json
import pathlib
import threading
import time
from collections.abc import Iterator
from functools import partial
from typing import Any

import pytest
import trio

from peloton.api.mesos.v1 import mesos_pb2
from peloton.api.v0.job import job_grpc, job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.query import query_pb2
from peloton.api.v0.respool import respool_grpc, respool_pb2
from peloton.api.v0.task import task_grpc, task_pb2
from peloton.api.v0.update import update_pb2
from peloton.api.v0.update.svc import update_svc_grpc, update_svc_pb2
from peloton.cli import update as cli_update
from peloton.cli.common import parse_range
from peloton.cli.main import main
from peloton.cli.output import message_json, short_time, spans, table
from peloton.client.discovery import NO_CLUSTER, find_cluster
from peloton.config import DEFAULT_MAX_MESSAGE_BYTES
from peloton.core.errors import FailedPrecondition, InvalidArgument, NotFound
from peloton.core.security import Security
from peloton.jobmgr.specs import spec_readers
from peloton.ops import minicluster
from peloton.rpc import open_rpc, serve_grpc
from peloton.rpc.errorfields import InstanceOutOfRange
from peloton.rpc.http_json import serve_http_json
from peloton.spec.job import load_job_config

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "peloton" / "examples"
JOB = "5b7a4c8e-0f5d-4b8e-9d3a-2f9c1e0d7a64"


@pytest.fixture(autouse=True)
def _isolated(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees the user's cluster: empty PELOTON_HOME, no PELOTON_CLUSTER."""
    monkeypatch.setenv("PELOTON_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PELOTON_CLUSTER", raising=False)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("peloton: "), err
    return lines[0]


# --------------------------------------------------------------------------- arguments


@pytest.mark.parametrize("text,expected", [
    (":", (0, 0)), ("0:5", (0, 5)), ("3:", (3, 0)), (":10", (0, 10)), ("7", (7, 8)),
])
def test_parse_range(text: str, expected: tuple[int, int]) -> None:
    r = parse_range(text)
    assert (getattr(r, "from"), r.to) == expected


@pytest.mark.parametrize("text", ["5:2", "3:3", "a:b", "1:2:3", "-1:4", ""])
def test_bad_range_is_a_usage_error(capsys: pytest.CaptureFixture[str], text: str) -> None:
    code, out, err = run(capsys, "task", "stop", JOB, "-r", "0:1", "-r", text)
    assert code == 2
    assert out == ""
    line = one_line(err)
    assert "task stop" in line and "range" in line


def test_reversed_range_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "task", "restart", JOB, "-r", "5:2")
    assert code == 2
    assert "'5:2'" in one_line(err) and "greater than" in err


@pytest.mark.parametrize("argv,needle", [
    (["job", "create", "/DefaultResPool"], "required: file"),
    (["job"], "choose one of: create"),
    (["respool", "create"], "required: path, file"),
    (["task", "logs", JOB], "required: instance"),
    (["task", "get", JOB, "x"], "instance"),
    (["job", "get", "not-a-uuid"], "not a job id"),
    (["job", "query", "--states", "RUNNNING"], "unknown state 'RUNNNING'"),
    (["host", "query", "--states", "sideways"], "unknown state"),
    (["--timeout", "0", "job", "get", JOB], "must be positive"),
    (["frobnicate"], "invalid choice"),
    (["minicluster", "up", "--attribute", "rack"], "expected KEY=VALUE, got 'rack'"),
    (["minicluster", "up", "--host-attribute", "rack=r1"], "expected HOST:KEY=VALUE"),
    (["job", "stateless", "stop", JOB, "7"], "not an entity version"),
    (["job", "stateless", "create", "/p", "spec.yaml"], "required: batch-size"),
    (["pod", "get", "nope"], "not a pod name"),
    (["pod", "get", f"{JOB}-x"], "not a pod name"),
    (["job", "stateless", "workflow"], "choose one of: pause"),
])
def test_argument_errors(capsys: pytest.CaptureFixture[str], argv: list[str],
                         needle: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert needle in one_line(err)


def test_version_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.startswith("peloton ")
    code, out, _ = run(capsys, "job", "create", "--help")
    assert code == 0 and "respool" in out


def test_help_fits_the_terminal_width(capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """As argparse wraps help: to $COLUMNS (else the terminal's) less 2
    (the usage's options are not broken, so one may be wider)."""
    widest = {}
    for columns in (50, 100):
        monkeypatch.setenv("COLUMNS", str(columns))
        code, out, _ = run(capsys, "job", "create", "--help")
        assert code == 0
        body = out[out.index("\n\n"):]
        widest[columns] = max(len(line) for line in body.splitlines())
    assert widest[50] <= 48 < widest[100] <= 98


def test_global_options_may_follow_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "job", "get", JOB, "--cluster", "nonsense")
    assert code == 1
    assert one_line(err).startswith("peloton: --cluster: expected host:port")


# --------------------------------------------------------------------------- local files


def test_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path) -> None:
    code, out, err = run(capsys, "job", "create", "/DefaultResPool", str(tmp_path / "no.yaml"))
    assert code == 1 and out == ""
    assert one_line(err) == f"peloton: {tmp_path / 'no.yaml'}: no such file"


def test_directory_is_not_a_file(capsys: pytest.CaptureFixture[str],
                                 tmp_path: pathlib.Path) -> None:
    code, _, err = run(capsys, "respool", "create", "/p", str(tmp_path))
    assert code == 1
    assert "is a directory" in one_line(err)


def test_bad_job_yaml_names_the_field(capsys: pytest.CaptureFixture[str],
                                      tmp_path: pathlib.Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ninstancecount: 2\ndefaultconfig:\n  resource:\n    cpulimit: abc\n")
    code, out, err = run(capsys, "job", "create", "/DefaultResPool", str(bad))
    assert code == 1 and out == ""
    line = one_line(err)
    assert line.startswith(f"peloton: {bad}: defaultconfig.resource.cpulimit: ")


def test_yaml_syntax_error_is_one_line(capsys: pytest.CaptureFixture[str],
                                       tmp_path: pathlib.Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed\n")
    code, _, err = run(capsys, "job", "create", "/DefaultResPool", str(bad))
    assert code == 1
    assert "line" in one_line(err)


def test_docker_job_is_refused_locally(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "job", "create", "/DefaultResPool",
                       str(EXAMPLES / "helloworld_job.yaml"))
    assert code == 1
    assert "defaultconfig.container" in one_line(err)


def test_respool_file_with_parent_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "respool", "create", "/TestPelotonResPool_integration",
                       str(EXAMPLES / "test_respool_camelcase.yaml"))
    assert code == 1
    assert "parent" in one_line(err)


def test_bad_respool_path(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "respool", "get", "DefaultResPool")
    assert code == 1
    assert "must start with '/'" in one_line(err)


def test_legacy_keys_warn_but_do_not_stop(capsys: pytest.CaptureFixture[str]) -> None:
    # The warnings come first; the command then stops only for want of a cluster.
    code, _, err = run(capsys, "job", "create", "/DefaultResPool",
                       str(EXAMPLES / "testjob.yaml"))
    assert code == 1
    lines = err.splitlines()
    assert len(lines) == 3
    assert all(line.startswith("peloton: warning: ") for line in lines[:2])
    assert "minimuminstancecount" in lines[0]
    assert lines[2] == f"peloton: {NO_CLUSTER}"


# --------------------------------------------------------------------------- unreachable


def test_unreachable_cluster_is_reported_quickly(capsys: pytest.CaptureFixture[str]) -> None:
    began = time.monotonic()
    code, out, err = run(capsys, "--cluster", "127.0.0.1:1", "job", "get", JOB)
    assert time.monotonic() - began < 8
    assert code == 1 and out == ""
    line = one_line(err)
    assert line.startswith("peloton: cannot reach the cluster at 127.0.0.1:1 (is it running?")
    assert "peloton minicluster status" in line


def test_unreachable_minicluster_from_its_state_file(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: pathlib.Path) -> None:
    write_state(tmp_path / "home" / "minicluster", ["127.0.0.1:1"])
    code, _, err = run(capsys, "respool", "dump")
    assert code == 1
    assert one_line(err) == ("peloton: cannot reach the cluster at 127.0.0.1:1 "
                             "(is it running? try peloton minicluster status)")


# --------------------------------------------------------------------------- output


def test_json_formatter_prints_enum_names_and_camel_case() -> None:
    info = job_pb2.JobInfo(id=peloton_pb2.JobID(value=JOB))
    info.runtime.state = job_pb2.SUCCEEDED
    info.runtime.goalState = job_pb2.SUCCEEDED
    info.runtime.taskStats["SUCCEEDED"] = 3
    info.runtime.configurationVersion = 2
    text = message_json(job_pb2.GetResponse(jobInfo=info))
    data = json.loads(text)
    assert data["jobInfo"]["runtime"]["state"] == "SUCCEEDED"
    assert data["jobInfo"]["runtime"]["goalState"] == "SUCCEEDED"
    assert data["jobInfo"]["runtime"]["configurationVersion"] == "2"  # uint64: a string
    assert '"state": "SUCCEEDED"' in text
    assert text.startswith("{\n  \"jobInfo\"")


def test_json_of_a_full_job_has_the_job_state_first() -> None:
    # newcomer-check greps the first "state" of `peloton --json job get`.
    config, _ = load_job_config((EXAMPLES / "testjob.yaml").read_text())
    info = job_pb2.JobInfo(id=peloton_pb2.JobID(value=JOB), config=config)
    info.runtime.state = job_pb2.RUNNING
    text = message_json(job_pb2.GetResponse(jobInfo=info))
    first = next(line for line in text.splitlines() if '"state"' in line)
    assert first.strip() == '"state": "RUNNING"'


def test_table_and_spans_and_times() -> None:
    assert table(("A", "LONGER"), [(1, "x"), ("wide-cell", None)]) == (
        "A          LONGER\n1          x\nwide-cell")
    assert spans([5, 0, 1, 2, 7, 8]) == "0-2, 5, 7-8"
    assert spans([]) == "none"
    assert short_time("") == "-"
    assert short_time("garbage") == "garbage"
    assert len(short_time("2024-05-01T12:00:00.123456Z")) == len("2024-05-01 12:00:00")


# --------------------------------------------------------------------------- discovery


def write_state(directory: pathlib.Path, jobmgrs: list[str]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    minicluster.write_state(minicluster.State(
        directory, directory / "cluster.yaml",
        [minicluster.DaemonRecord("jobmgr-0", "jobmgr", 999_999, jobmgrs[0])], jobmgrs, 1.0))


def test_discovery_order(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    with pytest.raises(FailedPrecondition) as no_cluster:
        find_cluster(None)
    assert no_cluster.value.message == NO_CLUSTER

    write_state(home / "minicluster", ["127.0.0.1:7001", "127.0.0.1:7002"])
    assert find_cluster(None) == ["127.0.0.1:7001", "127.0.0.1:7002"]

    monkeypatch.setenv("PELOTON_CLUSTER", "10.0.0.1:5392, 10.0.0.2:5392")
    assert find_cluster(None) == ["10.0.0.1:5392", "10.0.0.2:5392"]

    assert find_cluster("h:1") == ["h:1"]
    assert find_cluster("") == ["10.0.0.1:5392", "10.0.0.2:5392"]


def test_discovery_uses_home_when_peloton_home_is_unset(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PELOTON_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    write_state(tmp_path / "user" / ".peloton" / "minicluster", ["127.0.0.1:7003"])
    assert find_cluster(None) == ["127.0.0.1:7003"]


@pytest.mark.parametrize("value", ["nonsense", "host:", ":5", "h:99999", "h:1,,oops"])
def test_discovery_rejects_bad_addresses(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(InvalidArgument) as flag:
        find_cluster(value)
    assert flag.value.field == "--cluster"
    monkeypatch.setenv("PELOTON_CLUSTER", value)
    with pytest.raises(InvalidArgument) as env:
        find_cluster(None)
    assert env.value.field == "PELOTON_CLUSTER"


def test_damaged_state_file(tmp_path: pathlib.Path) -> None:
    directory = tmp_path / "home" / "minicluster"
    directory.mkdir(parents=True)
    (directory / "state.json").write_text("{not json")
    with pytest.raises(InvalidArgument) as error:
        find_cluster(None)
    assert "minicluster down" in error.value.message


# --------------------------------------------------------------------------- a fake jobmgr


class _Unimplemented:
    def __getattr__(self, name: str) -> Any:
        async def method(request: Any) -> Any:
            raise NotImplementedError(name)
        return method


class FakeJobs(_Unimplemented):
    def __init__(self) -> None:
        self.created: list[job_pb2.CreateRequest] = []
        self.queries: list[job_pb2.QueryRequest] = []
        self.stalls: list[float] = []  # seconds the next creates take to answer

    async def Create(self, request: job_pb2.CreateRequest) -> job_pb2.CreateResponse:
        self.created.append(request)
        if self.stalls:
            await trio.sleep(self.stalls.pop(0))
        return job_pb2.CreateResponse(jobId=request.id)

    async def Get(self, request: job_pb2.GetRequest) -> job_pb2.GetResponse:
        if request.id.value != JOB:
            raise NotFound(f"job {request.id.value} does not exist")
        info = job_pb2.JobInfo(id=request.id)
        info.config.name = "fake"
        info.config.instanceCount = 2
        info.runtime.state = job_pb2.SUCCEEDED
        info.runtime.taskStats["SUCCEEDED"] = 2
        return job_pb2.GetResponse(jobInfo=info)


    async def Query(self, request: job_pb2.QueryRequest) -> job_pb2.QueryResponse:
        self.queries.append(request)
        reply = job_pb2.QueryResponse(pagination=query_pb2.Pagination(
            offset=request.spec.pagination.offset, limit=1, total=3))
        reply.results.add(id=peloton_pb2.JobID(value=JOB), name="fake", instanceCount=2)
        return reply

    async def GetActiveJobs(self, request: Any) -> Any:
        return job_pb2.GetActiveJobsResponse(ids=[peloton_pb2.JobID(value=JOB)])


class FakePools(_Unimplemented):
    def __init__(self) -> None:
        self.created: list[respool_pb2.CreateRequest] = []
        self.gets: list[respool_pb2.GetRequest] = []

    async def LookupResourcePoolID(self, request: respool_pb2.LookupRequest) -> Any:
        ids = {"/": "root", "/DefaultResPool": "pool-1"}
        if request.path.value not in ids:
            raise NotFound(f"resource pool {request.path.value} does not exist")
        return respool_pb2.LookupResponse(id=peloton_pb2.ResourcePoolID(
            value=ids[request.path.value]))

    async def CreateResourcePool(self, request: respool_pb2.CreateRequest) -> Any:
        self.created.append(request)
        return respool_pb2.CreateResponse(result=peloton_pb2.ResourcePoolID(value="pool-2"))

    @staticmethod
    def info() -> respool_pb2.ResourcePoolInfo:
        info = respool_pb2.ResourcePoolInfo(
            id=peloton_pb2.ResourcePoolID(value="pool-1"),
            parent=peloton_pb2.ResourcePoolID(value="root"),
            path=respool_pb2.ResourcePoolPath(value="/DefaultResPool"))
        info.config.name = "DefaultResPool"
        info.config.controllerLimit.maxPercent = 10
        info.config.priorityPreemption = True
        info.usage.add(kind="cpu", reservation=12, limit=12, share=1, entitlement=13.5,
                        allocation=12, demand=2, slackEntitlement=0, slackAllocation=0)
        info.usage.add(kind="gpu", reservation=0, limit=float("inf"), share=1)
        return info

    async def GetResourcePool(self, request: respool_pb2.GetRequest) -> Any:
        self.gets.append(request)
        reply = respool_pb2.GetResponse(poolinfo=self.info())
        if request.pendingLimit:
            reply.pending.add(taskIds=[f"{JOB}-0", f"{JOB}-1", f"{JOB}-2"], priority=3,
                              cpu=2, memMb=64, queue="pending",
                              reason="entitlement: cpu 12 + 2 > 13.5")
        return reply

    async def Query(self, request: respool_pb2.QueryRequest) -> Any:
        root = respool_pb2.ResourcePoolInfo(id=peloton_pb2.ResourcePoolID(value="root"),
                                            path=respool_pb2.ResourcePoolPath(value="/"))
        root.usage.add(kind="cpu", reservation=16, limit=16, share=1, entitlement=16,
                        allocation=12)
        return respool_pb2.QueryResponse(resourcePools=[self.info(), root])


class FakeTasks(_Unimplemented):
    FILE = b"line one\nline two\n\x00binary\xff\n"

    def __init__(self) -> None:
        self.reads: list[task_pb2.ReadSandboxFileRequest] = []
        self.stops: list[task_pb2.StopRequest] = []
        self.queries: list[Any] = []
        self.listing: task_pb2.ListResponse | None = None  # List's answer, if set

    async def ReadSandboxFile(self, request: task_pb2.ReadSandboxFileRequest) -> Any:
        self.reads.append(request)
        data = {"stdout": self.FILE, "stderr": b"oops\n"}[request.path]
        chunk = data[request.offset:request.offset + 7]  # force several reads
        return task_pb2.ReadSandboxFileResponse(data=chunk, size=len(data))

    async def Stop(self, request: task_pb2.StopRequest) -> Any:
        self.stops.append(request)
        return task_pb2.StopResponse(stoppedInstanceIds=[0, 1, 2, 4])

    async def Query(self, request: task_pb2.QueryRequest) -> Any:
        self.queries.append(request)
        reply = task_pb2.QueryResponse(pagination=query_pb2.Pagination(total=5))
        reply.records.add(instanceId=3).runtime.state = task_pb2.RUNNING
        return reply

    async def List(self, request: task_pb2.ListRequest) -> Any:
        if self.listing is not None:
            return self.listing
        reply = task_pb2.ListResponse()
        reply.result.value[0].runtime.state = task_pb2.RUNNING
        return reply

    async def Get(self, request: task_pb2.GetRequest) -> Any:
        if request.jobId.value != JOB:
            raise NotFound(f"job {request.jobId.value} does not exist")
        if request.instanceId >= 2:
            raise InstanceOutOfRange(JOB, 2, request.instanceId)
        reply = task_pb2.GetResponse()
        reply.result.instanceId = request.instanceId
        reply.result.runtime.state = task_pb2.RUNNING
        reply.result.runtime.host = "local-0"
        return reply

    async def GetPodEvents(self, request: task_pb2.GetPodEventsRequest) -> Any:
        self.queries.append(request)
        reply = task_pb2.GetPodEventsResponse()
        reply.result.add(taskId=mesos_pb2.TaskID(value=f"{JOB}-0-2"), actualState="RUNNING",
                         hostname="local-0", message="up")
        return reply


class FakeUpdates(_Unimplemented):
    def __init__(self) -> None:
        self.created: list[Any] = []
        self.gets = 0

    async def CreateUpdate(self, request: Any) -> Any:
        self.created.append(request)
        return update_svc_pb2.CreateUpdateResponse(updateID=peloton_pb2.UpdateID(value="u-1"))

    async def GetUpdate(self, request: Any) -> Any:
        self.gets += 1
        done = 1 if self.gets < 3 else 2
        info = update_pb2.UpdateInfo(jobId=peloton_pb2.JobID(value=JOB), status=(
            update_pb2.UpdateStatus(numTasksDone=done, numTasksRemaining=2 - done, state=(
                update_pb2.ROLLING_FORWARD if done < 2 else update_pb2.SUCCEEDED))))
        return update_svc_pb2.GetUpdateResponse(updateInfo=info)


class FakeJobmgr:
    """JobManager, TaskManager and ResourceManager on a loopback port, served
    by a trio run of its own in a thread; with ``http``, also as HTTP/JSON
    (``http_address``), by the same handlers, as a jobmgr serves them
    (reading job specs unless not ``reads_specs``)."""

    def __init__(self, *, http: bool = False, security: Security | None = None,
                 reads_specs: bool = True) -> None:
        self.reads_specs = reads_specs
        self.jobs, self.pools, self.tasks = FakeJobs(), FakePools(), FakeTasks()
        self.updates = FakeUpdates()
        self.address = ""
        self.http = http
        self.http_address = ""
        self.security = security
        self._ready = threading.Event()
        self._token: trio.lowlevel.TrioToken | None = None
        self._scope: trio.CancelScope | None = None
        self._thread = threading.Thread(target=trio.run, args=(self._main,), daemon=True)

    async def _main(self) -> None:
        async with open_rpc():
            self._token = trio.lowlevel.current_trio_token()
            with trio.CancelScope() as self._scope:
                async with trio.open_nursery() as nursery:
                    services = [
                        (job_grpc.JobManagerBase, self.jobs),
                        (task_grpc.TaskManagerBase, self.tasks),
                        (respool_grpc.ResourceManagerBase, self.pools),
                        (update_svc_grpc.UpdateServiceBase, self.updates),
                    ]
                    host, port = await nursery.start(partial(
                        serve_grpc, security=self.security), services, "127.0.0.1", 0)
                    self.address = f"{host}:{port}"
                    if self.http:
                        readers = spec_readers(frozenset()) if self.reads_specs else {}
                        host, port = await nursery.start(partial(
                            serve_http_json, max_message_bytes=DEFAULT_MAX_MESSAGE_BYTES,
                            security=self.security, readers=readers),
                            services, "127.0.0.1", 0)
                        self.http_address = f"{host}:{port}"
                    self._ready.set()

    def __enter__(self) -> FakeJobmgr:
        self._thread.start()
        assert self._ready.wait(10), "the fake jobmgr did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._token is not None and self._scope is not None
        self._token.run_sync_soon(self._scope.cancel)
        self._thread.join(10)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeJobmgr]:
    with FakeJobmgr() as server:
        monkeypatch.setenv("PELOTON_CLUSTER", server.address)
        yield server


def test_job_create_prints_the_id(capsys: pytest.CaptureFixture[str], fake: FakeJobmgr) -> None:
    code, out, err = run(capsys, "job", "create", "/DefaultResPool",
                         str(EXAMPLES / "testjob.yaml"))
    assert code == 0, err
    [request] = fake.jobs.created
    assert out == f"Job {request.id.value} created\n"
    assert request.config.respoolID.value == "pool-1"
    assert request.config.instanceCount == 10
    assert err.count("peloton: warning:") == 2


def test_a_create_not_answered_in_time_is_sent_again_with_its_id(
        capsys: pytest.CaptureFixture[str], fake: FakeJobmgr) -> None:
    """The first create takes longer than --timeout (a 100,000-task job on a
    busy shard): the CLI sends it again with the same id, so the server
    answers with the job the first made, and no second job exists."""
    fake.jobs.stalls = [5.0]
    code, out, err = run(capsys, "--timeout", "1", "job", "create", "/DefaultResPool",
                         str(EXAMPLES / "testjob.yaml"))
    assert code == 0, err
    ids = {r.id.value for r in fake.jobs.created}
    assert len(fake.jobs.created) >= 2 and len(ids) == 1  # sent again, with its id
    assert out == f"Job {ids.pop()} created\n"


def test_a_create_never_answered_names_the_id_to_check(
        capsys: pytest.CaptureFixture[str], fake: FakeJobmgr) -> None:
    fake.jobs.stalls = [5.0, 5.0, 5.0]
    code, out, err = run(capsys, "--timeout", "1", "job", "create", "/DefaultResPool",
                         str(EXAMPLES / "testjob.yaml"))
    assert code == 1 and out == ""
    # Each attempt that reached the server (on a loaded machine one may not
    # within its second) carried the same id.
    ids = {r.id.value for r in fake.jobs.created}
    assert 1 <= len(fake.jobs.created) <= 3 and len(ids) == 1
    [job_id] = ids
    assert f"no answer to 3 creates of job {job_id}" in err
    assert f"peloton job get {job_id}" in err and f"--id {job_id}" in err


def test_json_job_get(capsys: pytest.CaptureFixture[str], fake: FakeJobmgr) -> None:
    code, out, _ = run(capsys, "--json", "job", "get", JOB)
    assert code == 0
    assert '"state": "SUCCEEDED"' in out
    assert json.loads(out)["jobInfo"]["config"]["instanceCount"] == 2
    code, out, _ = run(capsys, "job", "get", JOB, "-j")
    assert code == 0 and json.loads(out)["jobInfo"]["id"]["value"] == JOB


def test_job_get_as_yaml_and_status(capsys: pytest.CaptureFixture[str],
                                    fake: FakeJobmgr) -> None:
    code, out, _ = run(capsys, "job", "get", JOB)
    assert code == 0
    assert "state: SUCCEEDED" in out and "name: fake" in out
    code, out, _ = run(capsys, "job", "status", JOB)
    assert code == 0
    assert out.splitlines() == [  # unset: the goal state (UNKNOWN, 0) and the times
        f"job:        {JOB}", "name:       fake", "state:      SUCCEEDED",
        "goal state: UNKNOWN", "created:    -", "started:    -", "completed:  -",
        "instances:  2", "tasks:      SUCCEEDED 2"]


def test_server_errors_are_one_line(capsys: pytest.CaptureFixture[str],
                                    fake: FakeJobmgr) -> None:
    other = "00000000-0000-4000-8000-000000000000"
    code, out, err = run(capsys, "job", "get", other)
    assert code == 1 and out == ""
    assert one_line(err) == f"peloton: job {other} does not exist"
    code, _, err = run(capsys, "job", "create", "/Nope", str(EXAMPLES / "testjob.yaml"))
    assert code == 1
    assert err.splitlines()[-1] == "peloton: resource pool /Nope does not exist"


def test_respool_create_sets_the_parent(capsys: pytest.CaptureFixture[str],
                                        fake: FakeJobmgr) -> None:
    code, out, err = run(capsys, "respool", "create", "/DefaultResPool/child",
                         str(EXAMPLES / "default_respool.yaml"))
    # The file's name is DefaultResPool, not child.
    assert code == 1 and "does not match" in one_line(err)
    code, out, err = run(capsys, "respool", "create", "/DefaultResPool",
                         str(EXAMPLES / "default_respool.yaml"))
    assert code == 0, err
    assert out == "Resource pool pool-2 created at /DefaultResPool\n"
    [request] = fake.pools.created
    assert request.config.parent.value == "root"
    assert request.config.name == "DefaultResPool"


def test_task_logs_reads_the_whole_file(capsysbinary: pytest.CaptureFixture[bytes],
                                        fake: FakeJobmgr) -> None:
    assert main(["task", "logs", JOB, "1"]) == 0
    out, _ = capsysbinary.readouterr()
    assert out == FakeTasks.FILE
    assert [r.offset for r in fake.tasks.reads] == list(range(0, len(FakeTasks.FILE), 7))
    assert {r.instanceId for r in fake.tasks.reads} == {1}
    assert main(["task", "logs", JOB, "0", "--stderr", "--run", f"{JOB}-0-2"]) == 0
    out, _ = capsysbinary.readouterr()
    assert out == b"oops\n"
    assert fake.tasks.reads[-1].taskId == f"{JOB}-0-2"


def test_task_stop_sends_ranges(capsys: pytest.CaptureFixture[str], fake: FakeJobmgr) -> None:
    code, out, _ = run(capsys, "task", "stop", JOB, "-r", "0:3", "-r", "4:")
    assert code == 0
    assert out == f"Job {JOB}: stopping instance(s) 0-2, 4\n"
    [request] = fake.tasks.stops
    assert [(getattr(r, "from"), r.to) for r in request.ranges] == [(0, 3), (4, 0)]
    code, out, _ = run(capsys, "job", "stop", JOB)
    assert code == 0
    assert list(fake.tasks.stops[-1].ranges) == []


def test_unimplemented_server_method_is_one_line(capsys: pytest.CaptureFixture[str],
                                                 fake: FakeJobmgr) -> None:
    code, _, err = run(capsys, "job", "delete", JOB)
    assert code == 1
    assert "Delete" in one_line(err)


def test_respool_get_prints_a_table_per_kind(capsys: pytest.CaptureFixture[str],
                                             fake: FakeJobmgr) -> None:
    code, out, err = run(capsys, "respool", "get", "/DefaultResPool")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "path:     /DefaultResPool"
    assert "controller limit 10%, slack limit 20%" in out
    assert "priority preemption: on" in lines
    header = lines.index(next(line for line in lines if line.startswith("KIND")))
    assert lines[header].split("  ")[0] == "KIND"
    assert "SLACK ENTITLEMENT" in lines[header] and "DEMAND" in lines[header]
    assert lines[header + 1].split() == ["cpu", "12", "12", "1", "13.5", "12", "2", "0", "0"]
    assert lines[header + 2].split()[:3] == ["gpu", "0", "unlimited"]
    code, out, _ = run(capsys, "respool", "get", "/DefaultResPool", "--json")
    assert code == 0
    assert json.loads(out)["poolinfo"]["config"]["priorityPreemption"] is True
    [cpu, _] = json.loads(out)["poolinfo"]["usage"]
    assert (cpu["entitlement"], cpu["demand"], cpu["reservation"]) == (13.5, 2, 12)


def test_respool_dump_tables_and_entries(capsys: pytest.CaptureFixture[str],
                                         fake: FakeJobmgr) -> None:
    code, out, err = run(capsys, "respool", "dump")
    assert code == 0, err
    blocks = out.strip().split("\n\n")
    assert [b.splitlines()[0] for b in blocks] == ["/  (id root)",
                                                   "/DefaultResPool  (id pool-1)"]
    assert blocks[1].splitlines()[2].split()[:5] == ["cpu", "12", "12", "1", "13.5"]
    code, out, _ = run(capsys, "respool", "dump", "--format", "json")
    entries = json.loads(out)
    assert entries[1]["resources"]["cpu"]["entitlement"] == 13.5
    assert entries[1]["priorityPreemption"] is True and "priorityPreemption" not in entries[0]
    assert entries[1]["resources"]["gpu"]["limit"] == "unlimited"


def test_resmgr_pending_lists_gangs_and_reasons(capsys: pytest.CaptureFixture[str],
                                                fake: FakeJobmgr) -> None:
    code, out, err = run(capsys, "resmgr", "pending", "/DefaultResPool", "--limit", "7")
    assert code == 0, err
    assert fake.pools.gets[-1].pendingLimit == 7
    header, row = out.splitlines()
    assert header.split()[:3] == ["QUEUE", "PRIORITY", "INSTANCES"]
    assert row.startswith("pending")
    assert f"{JOB} 0-2" in row and row.endswith("entitlement: cpu 12 + 2 > 13.5")
    code, out, _ = run(capsys, "--json", "resmgr", "pending", "/DefaultResPool")
    assert json.loads(out)["pending"][0]["reason"] == "entitlement: cpu 12 + 2 > 13.5"
    code, _, err = run(capsys, "resmgr", "pending", "/Nope")
    assert code == 1 and "does not exist" in one_line(err)


def test_job_query_sends_pelotons_query_spec(capsys: pytest.CaptureFixture[str],
                                            fake: FakeJobmgr) -> None:
    code, out, err = run(capsys, "job", "query", "-k", "etl,nightly", "-o", "1", "-n", "1",
                         "-q", "50", "-p", "name,owner", "-a", "asc", "-d", "2",
                         "-s", "RUNNING")
    assert code == 0, err
    [request] = fake.jobs.queries
    spec = request.spec
    assert list(spec.keywords) == ["etl", "nightly"] and list(spec.jobStates) == [
        job_pb2.RUNNING]
    page = spec.pagination
    assert (page.offset, page.limit, page.maxLimit) == (1, 1, 50)
    assert [(o.property.value, o.order) for o in page.orderBy] == [
        ("name", query_pb2.OrderBy.ASC), ("owner", query_pb2.OrderBy.ASC)]
    assert 2 * 86400 - 60 < time.time() - spec.creationTimeRange.min.seconds < 2 * 86400 + 60
    assert "(1 of 3 jobs from 1; --offset and --limit page through them)" in out
    assert run(capsys, "job", "query", "-n", "-1")[0] == 2  # argparse refuses it


def test_task_query_and_events(capsys: pytest.CaptureFixture[str], fake: FakeJobmgr) -> None:
    code, out, err = run(capsys, "task", "query", JOB, "-s", "RUNNING,FAILED", "--hosts",
                         "local-0", "-p", "state", "-a", "DESC", "-n", "1")
    assert code == 0, err
    query = fake.tasks.queries[0]
    assert list(query.spec.hosts) == ["local-0"] and query.spec.pagination.limit == 1
    assert [(o.property.value, o.order) for o in query.spec.pagination.orderBy] == [
        ("state", query_pb2.OrderBy.DESC)]
    assert "RUNNING" in out and "(1 of 5 tasks from 0" in out
    code, out, err = run(capsys, "task", "events", JOB, "0", "-l", "3")
    assert code == 0, err
    assert fake.tasks.queries[1].limit == 3
    assert out.splitlines()[1].split()[:2] == ["2", "RUNNING"]
    code, out, err = run(capsys, "job", "active-list")
    assert (code, out) == (0, f"{JOB}\n")


def test_update_create_sends_the_update_config(capsys: pytest.CaptureFixture[str],
                                               fake: FakeJobmgr, tmp_path: pathlib.Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli_update, "WATCH_PERIOD", 0.01)
    spec = tmp_path / "svc.yaml"
    spec.write_text("name: web\ntype: SERVICE\ninstancecount: 2\n"
                    "defaultconfig: {resource: {cpulimit: 1, memlimitmb: 32},"
                    " command: {value: 'sleep 60'}}\n")
    code, out, err = run(capsys, "update", "create", JOB, str(spec), "2", "/DefaultResPool",
                         "--maxattempts", "3", "--maxfailureInstances", "1",
                         "--rollbackOnFailure", "--start-paused", "--opaque-data", "ticket-7")
    assert code == 0, err
    [request] = fake.updates.created
    cfg = request.updateConfig
    assert (cfg.batchSize, cfg.maxInstanceAttempts, cfg.maxFailureInstances,
            cfg.rollbackOnFailure, cfg.startPaused) == (2, 3, 1, True, True)
    assert request.jobConfig.respoolID.value == "pool-1"
    assert request.opaque_data.data == "ticket-7"
    assert out == "Update u-1 created\n"
    code, out, err = run(capsys, "update", "get", "u-1", "--watch")
    assert code == 0, err
    assert out.splitlines() == [
        "ROLLING_FORWARD: 1/2 instances done; 0 unavailable now",
        "SUCCEEDED: 2/2 instances done; 0 unavailable now"]
