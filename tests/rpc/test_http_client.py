"""The blocking HTTP/JSON client: the gRPC client's answers, errors and
retries, over YARPC's HTTP transport.

Against scripted stdlib HTTP servers in threads (each answer given in
advance), with a fake clock for the backoff (no sleeps), and against the
real HTTP/JSON server for the error texts.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import trio

from peloton.api.v0.job import job_grpc, job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.core.errors import (
    BY_CODE,
    AlreadyExists,
    DeadlineExceeded,
    InvalidArgument,
    NotFound,
    NotLeader,
    PelotonError,
    Unavailable,
)
from peloton.rpc.errorfields import to_response
from peloton.rpc.errors import from_grpc, to_grpc
from peloton.rpc.http_client import HttpClient, NotOverHttp, Target, is_transport_error
from peloton.rpc.http_json import serve_http_json
from peloton.rpc.yarpc import CODES, error_text, from_status

JOB = "6a1f5c2e-8d3b-4f7a-9c1e-2b5d4e6f7a8b"
PROTO = "application/x-protobuf"
JOBS = "peloton.api.v0.job.JobManager"
GET = job_pb2.GetRequest(id=peloton_pb2.JobID(value=JOB))

Answer = tuple[int, dict[str, str], bytes]


def ok(name: str = "hello") -> Answer:
    info = job_pb2.JobInfo(id=peloton_pb2.JobID(value=JOB), config=job_pb2.JobConfig(name=name))
    return 200, {"Content-Type": PROTO}, job_pb2.GetResponse(jobInfo=info).SerializeToString()


def failed(error: PelotonError) -> Answer:
    name, status = CODES[error.code]
    return status, {"Content-Type": "text/plain; charset=utf-8", "Rpc-Status": name}, \
        error_text(error).encode()


class Scripted(http.server.ThreadingHTTPServer):
    """Answers POSTs from ``script`` in order ("close": drop the connection
    unanswered), recording each request's headers."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script: list[Answer | str] = []
        self.seen: list[dict[str, str]] = []
        self.address = f"127.0.0.1:{self.server_address[1]}"
        threading.Thread(target=self.serve_forever, args=(0.01,), daemon=True).start()


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Scripted

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.server.seen.append(dict(self.headers))
        action = self.server.script.pop(0) if self.server.script else ok()
        if action == "close":
            self.close_connection = True
            return
        assert not isinstance(action, str)
        status, headers, body = action
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def servers() -> Iterator[list[Scripted]]:
    made = [Scripted(), Scripted()]
    yield made
    for server in made:
        server.shutdown()
        server.server_close()


def target(server: Scripted, grpc: str) -> Target:
    return Target(grpc, server.address)


def closed() -> str:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


def client(targets: list[Target], clock: Clock | None = None, **options: Any) -> HttpClient:
    clock = clock or Clock()
    return HttpClient(targets, clock=clock, sleep=clock.sleep, **options)


def test_a_call_sends_yarpcs_headers_and_reads_the_answer(servers: list[Scripted]) -> None:
    c = client([target(servers[0], "g:1")], headers=[("authorization", "Basic eDp5")],
               timeout=5)
    reply = c.call(JOBS, "Get", GET, job_pb2.GetResponse)
    assert reply.jobInfo.config.name == "hello"
    headers = {k.lower(): v for k, v in servers[0].seen[0].items()}
    assert headers["rpc-procedure"] == "peloton.api.v0.job.JobManager::Get"
    assert headers["rpc-encoding"] == "proto" and headers["content-type"] == PROTO
    assert headers["authorization"] == "Basic eDp5"
    assert headers["context-ttl-ms"] == "6000"  # its own timeout speaks first
    c.call(JOBS, "Get", GET, job_pb2.GetResponse)  # one connection, kept
    c.close()


def test_an_error_field_is_the_exception_it_stands_for(servers: list[Scripted]) -> None:
    answer = to_response(NotFound(f"job {JOB} does not exist"), job_pb2.GetResponse, GET)
    assert answer is not None
    servers[0].script = [(200, {"Content-Type": PROTO}, answer.SerializeToString())]
    with pytest.raises(NotFound, match=f"^job {JOB} does not exist$"):
        client([target(servers[0], "g:1")]).call(JOBS, "Get", GET, job_pb2.GetResponse)


@pytest.mark.parametrize("error", [
    InvalidArgument("must be positive", field="instanceCount"),
    AlreadyExists("job exists"), NotFound("nope"),
    *(cls("why") for code, cls in BY_CODE.items() if code != "UNAVAILABLE"),
], ids=lambda e: f"{e.code}")
def test_a_status_reads_as_over_grpc(servers: list[Scripted], error: PelotonError) -> None:
    servers[0].script = [failed(error)]
    with pytest.raises(PelotonError) as raised:
        client([target(servers[0], "g:1")]).call(JOBS, "Get", GET, job_pb2.GetResponse)
    over_grpc = from_grpc(to_grpc(error))
    assert type(raised.value) is type(over_grpc)
    assert str(raised.value) == str(over_grpc)


def test_unavailable_moves_on_and_the_answering_jobmgr_is_kept(
        servers: list[Scripted]) -> None:
    servers[0].script = [failed(Unavailable("shard 3 is not being served yet; retry"))]
    c = client([target(servers[0], "g:1"), target(servers[1], "g:2")])
    assert c.call(JOBS, "Get", GET, job_pb2.GetResponse).jobInfo.config.name == "hello"
    c.call(JOBS, "Get", GET, job_pb2.GetResponse)
    assert (len(servers[0].seen), len(servers[1].seen)) == (1, 2)


def test_a_leader_hint_is_followed(servers: list[Scripted]) -> None:
    servers[0].script = [failed(NotLeader("not the leader", leader="g:2"))]
    c = client([target(servers[0], "g:1"), Target("g:3", closed()), target(servers[1], "g:2")])
    assert c.call(JOBS, "Get", GET, job_pb2.GetResponse).jobInfo.config.name == "hello"
    assert (len(servers[0].seen), len(servers[1].seen)) == (1, 1)


def test_unavailable_everywhere_backs_off_until_the_deadline(servers: list[Scripted]) -> None:
    busy = failed(Unavailable("resmgr has no leader"))
    servers[0].script = [busy] * 50
    servers[1].script = [busy] * 50
    clock = Clock()
    c = client([target(servers[0], "g:1"), target(servers[1], "g:2")], clock, timeout=2.0)
    with pytest.raises(Unavailable, match=r"^resmgr has no leader$"):
        c.call(JOBS, "Get", GET, job_pb2.GetResponse)
    # Rounds 50 ms apart, doubling; then, as the first answer asked to
    # retry, the rest of the deadline once more (as the gRPC client does).
    assert clock.sleeps == [0.05, 0.1, 0.2, 0.4, 0.8, 0.05, 0.1, 0.2]
    assert clock.now <= 2.0


def test_nothing_to_reach_before_any_answer_is_not_over_http() -> None:
    c = client([Target("g:1", closed()), Target("g:2", closed())])
    with pytest.raises(NotOverHttp) as raised:
        c.call(JOBS, "Get", GET, job_pb2.GetResponse)
    assert is_transport_error(raised.value.cause)


def test_a_stranger_answering_before_any_answer_is_not_over_http(
        servers: list[Scripted]) -> None:
    servers[0].script = [(404, {"Content-Type": "text/html"}, b"<h1>no</h1>")]
    with pytest.raises(NotOverHttp, match="not Peloton's HTTP/JSON API"):
        client([target(servers[0], "g:1")]).call(JOBS, "Get", GET, job_pb2.GetResponse)


def test_a_lost_jobmgr_after_an_answer_is_unavailable_by_its_grpc_address(
        servers: list[Scripted]) -> None:
    clock = Clock()
    c = client([target(servers[0], "g:1")], clock, timeout=1.0)
    c.call(JOBS, "Get", GET, job_pb2.GetResponse)
    servers[0].script = ["close"] * 100
    with pytest.raises(Unavailable, match=r"^cannot reach g:1: ") as raised:
        c.call(JOBS, "Get", GET, job_pb2.GetResponse)
    assert is_transport_error(raised.value)
    assert clock.sleeps  # retried with a backoff until its deadline


def test_an_attempt_longer_than_the_timeout_is_deadline_exceeded() -> None:
    stalled = Scripted()
    release = threading.Event()
    answered = threading.Event()

    class Slow(_Handler):
        def do_POST(self) -> None:
            if answered.is_set():
                release.wait(10)
            answered.set()
            super().do_POST()

    stalled.RequestHandlerClass = Slow
    try:
        c = client([target(stalled, "g:1")], timeout=0.2)
        c.call(JOBS, "Get", GET, job_pb2.GetResponse)
        with pytest.raises(DeadlineExceeded, match=r"^Get to g:1 took longer than 0.2s$") as e:
            c.call(JOBS, "Get", GET, job_pb2.GetResponse)
        assert is_transport_error(e.value)
    finally:
        release.set()
        stalled.shutdown()
        stalled.server_close()


def test_a_request_larger_than_the_servers_take_is_not_sent(servers: list[Scripted]) -> None:
    c = client([target(servers[0], "g:1")], max_request_bytes=10)
    with pytest.raises(NotOverHttp, match="more than the 10"):
        c.call(JOBS, "Get", GET, job_pb2.GetResponse)
    assert servers[0].seen == []


@pytest.mark.parametrize("error", [NotLeader("lost it", leader="h:1"), NotLeader("lost it"),
                                   Unavailable("later"),
                                   InvalidArgument("bad", field="config.name")])
def test_yarpc_text_reads_back_as_grpc_status_text(error: PelotonError) -> None:
    name, _ = CODES[error.code]
    back, over_grpc = from_status(name, error_text(error)), from_grpc(to_grpc(error))
    assert type(back) is type(over_grpc) and str(back) == str(over_grpc)
    assert getattr(back, "leader", None) == getattr(over_grpc, "leader", None)


class Jobs:
    async def Get(self, request: job_pb2.GetRequest) -> job_pb2.GetResponse:
        if request.id.value == "boom":
            raise RuntimeError("boom")
        if request.id.value == "gone":
            raise NotFound("job gone does not exist")
        return job_pb2.GetResponse(jobInfo=job_pb2.JobInfo(id=request.id))


async def test_against_the_http_json_server() -> None:
    async with trio.open_nursery() as nursery:
        host, port = await nursery.start(lambda task_status: serve_http_json(
            [(job_grpc.JobManagerBase, Jobs())], "127.0.0.1", 0, max_message_bytes=1 << 16,
            task_status=task_status))

        def calls() -> list[str]:
            c = HttpClient([Target("g:1", f"{host}:{port}")], timeout=5)
            out = []
            for job_id in (JOB, "gone", "boom"):
                try:
                    reply = c.call(JOBS, "Get", job_pb2.GetRequest(
                        id=peloton_pb2.JobID(value=job_id)), job_pb2.GetResponse)
                    out.append(reply.jobInfo.id.value)
                except PelotonError as error:
                    out.append(f"{type(error).__name__}: {error}")
            c.close()
            return out

        assert await trio.to_thread.run_sync(calls) == [
            JOB, "NotFound: job gone does not exist",
            # as the gRPC server says it (peloton.rpc.server)
            "Internal: internal error in JobManagerBase.Get: RuntimeError('boom')"]
        nursery.cancel_scope.cancel()
