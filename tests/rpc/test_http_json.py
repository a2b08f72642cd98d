"""Peloton's API over HTTP/JSON: YARPC's headers, protobuf JSON in and out,
errors in the response's error field or as a JSON error with a status."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import trio
import yaml

from peloton.api.v0.job import job_grpc, job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.task import task_grpc
from peloton.cli.output import to_yaml
from peloton.core.errors import NotFound, Unavailable
from peloton.rpc import http_client
from peloton.rpc.http_json import PLAIN, PLAIN_JSON, procedures, serve_http_json
from peloton.spec.yamlproto import message_to_dict

JOB = "6a1f5c2e-8d3b-4f7a-9c1e-2b5d4e6f7a8b"
CURL_HEADERS = {  # Peloton's documented call
    "content-type": "application/json", "Rpc-Procedure": "JobManager.Get",
    "Rpc-Service": "peloton-jobmgr", "Rpc-Caller": "peloton-client",
    "Context-TTL-MS": "1000", "Rpc-Encoding": "json",
}


class Jobs:
    def __init__(self) -> None:
        self.calls: list[Any] = []

    async def Get(self, request: job_pb2.GetRequest) -> job_pb2.GetResponse:
        self.calls.append(request)
        if request.id.value == "missing":
            raise NotFound("job missing does not exist")
        if request.id.value == "down":
            raise Unavailable("resmgr has no leader")
        if request.id.value == "slow":
            await trio.sleep(5)
        info = job_pb2.JobInfo(id=request.id, config=job_pb2.JobConfig(name="hello"))
        info.runtime.state = job_pb2.SUCCEEDED
        return job_pb2.GetResponse(jobInfo=info)


@asynccontextmanager
async def serving(impl: Any) -> AsyncIterator[str]:
    async with trio.open_nursery() as nursery:
        host, port = await nursery.start(lambda task_status: serve_http_json(
            [(job_grpc.JobManagerBase, impl)], "127.0.0.1", 0, max_message_bytes=1 << 16,
            task_status=task_status))
        yield f"http://{host}:{port}"
        nursery.cancel_scope.cancel()


async def post(url: str, body: bytes, headers: dict[str, str],
               method: str = "POST") -> tuple[int, dict[str, str], bytes]:
    def run() -> tuple[int, dict[str, str], bytes]:
        request = urllib.request.Request(url, data=body if method == "POST" else None,
                                         headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=10) as reply:
                return reply.status, dict(reply.headers), reply.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()
    return await trio.to_thread.run_sync(run)


def test_both_procedure_names_are_served() -> None:
    table = procedures([(job_grpc.JobManagerBase, Jobs()), (task_grpc.TaskManagerBase, Jobs())])
    assert table["JobManager.Get"] is table["peloton.api.v0.job.JobManager::Get"]
    assert "TaskManager.List" not in table  # Jobs has no List: left out, not an AttributeError


async def test_pelotons_documented_curl_returns_the_job() -> None:
    impl = Jobs()
    async with serving(impl) as url:
        body = json.dumps({"id": {"value": JOB}}).encode()
        status, headers, data = await post(f"{url}/api/v1", body, CURL_HEADERS)
        assert status == 200 and headers["Content-Type"] == "application/json"
        reply = json.loads(data)
        assert reply["jobInfo"]["id"]["value"] == JOB
        assert reply["jobInfo"]["runtime"]["state"] == "SUCCEEDED"
        # the full procedure name, another path, protobuf bytes
        status, _, data = await post(
            f"{url}/peloton.api.v0.job.JobManager", job_pb2.GetRequest(
                id=peloton_pb2.JobID(value=JOB)).SerializeToString(),
            {"Rpc-Procedure": "peloton.api.v0.job.JobManager::Get", "Rpc-Encoding": "proto"})
        assert status == 200
        assert job_pb2.GetResponse.FromString(data).jobInfo.config.name == "hello"
    assert len(impl.calls) == 2


async def test_errors() -> None:
    async with serving(Jobs()) as url:
        def get(job: str) -> bytes:
            return json.dumps({"id": {"value": job}}).encode()

        # a failure the response has a field for: 200, in the field
        status, _, data = await post(f"{url}/api/v1", get("missing"), CURL_HEADERS)
        assert status == 200
        assert json.loads(data)["error"]["notFound"]["message"] == "job missing does not exist"
        # any other: YARPC's status and a JSON error
        status, headers, data = await post(f"{url}/api/v1", get("down"), CURL_HEADERS)
        assert (status, headers["Rpc-Status"]) == (503, "unavailable")
        assert json.loads(data) == {"code": "unavailable", "message": "resmgr has no leader"}
        status, _, data = await post(f"{url}/api/v1", get("slow"), CURL_HEADERS)
        assert status == 504 and json.loads(data)["code"] == "deadline-exceeded"
        status, _, data = await post(f"{url}/api/v1", b'{"id": 3}', CURL_HEADERS)
        assert status == 400 and "peloton.api.v0.job.GetRequest" in json.loads(data)["message"]
        status, _, data = await post(f"{url}/api/v1", get(JOB),
                                     CURL_HEADERS | {"Rpc-Procedure": "JobManager.Nope"})
        assert status == 501 and "JobManager.Get" in json.loads(data)["message"]
        status, _, data = await post(f"{url}/api/v1", get(JOB),
                                     CURL_HEADERS | {"Context-TTL-MS": "soon"})
        assert status == 400 and json.loads(data)["message"].startswith("Context-TTL-MS:")
        status, _, data = await post(f"{url}/api/v1", get(JOB),
                                     CURL_HEADERS | {"Rpc-Encoding": "thrift"})
        assert status == 400 and "Rpc-Encoding" in json.loads(data)["message"]
        status, _, _ = await post(f"{url}/api/v1", b"x" * (1 << 17), CURL_HEADERS)
        assert status == 429
        status, _, _ = await post(f"{url}/api/v1", b"", CURL_HEADERS, method="GET")
        assert status == 400


async def test_one_connection_serves_several_requests() -> None:
    async with serving(Jobs()) as url:
        host, port = url.removeprefix("http://").split(":")
        stream = await trio.open_tcp_stream(host, int(port))
        body = json.dumps({"id": {"value": JOB}}).encode()
        head = "".join(f"{k}: {v}\r\n" for k, v in CURL_HEADERS.items())
        one = (f"POST /api/v1 HTTP/1.1\r\nHost: x\r\n{head}Content-Length: {len(body)}\r\n\r\n"
               ).encode() + body
        await stream.send_all(one + one)
        data = b""
        with trio.fail_after(10):
            while data.count(b"HTTP/1.1 200") < 2 or not data.endswith(b"}\n"):
                data += await stream.receive_some(65536)
        await stream.aclose()
        assert data.count(JOB.encode()) == 2


async def test_plain_answers_are_the_yaml_the_cli_prints() -> None:
    """``Accept: PLAIN``: the response (or one field of it) as ``peloton``
    prints it, 64-bit integers and integer map keys kept (JSON would make
    them strings), and a failure its error field holds as the JSON error it
    stands for."""
    class Versioned(Jobs):
        async def Get(self, request: job_pb2.GetRequest) -> job_pb2.GetResponse:
            reply = await super().Get(request)
            reply.jobInfo.runtime.configurationVersion = 1 << 40  # uint64
            reply.jobInfo.config.instanceConfig[3].name = "third"  # map<uint32, TaskConfig>
            return reply

    # the client asks for what the server answers
    assert (http_client.PLAIN, http_client.PLAIN_JSON) == (PLAIN, PLAIN_JSON)
    get = json.dumps({"id": {"value": JOB}}).encode()
    async with serving(Versioned()) as url:
        status, headers, data = await post(f"{url}/api/v1", get,
                                           CURL_HEADERS | {"Accept": f"{PLAIN}; field=jobInfo"})
        assert status == 200 and headers["Content-Type"] == PLAIN
        assert yaml.safe_load(data) == {
            "id": {"value": JOB}, "config": {"name": "hello", "instanceConfig": {3: {
                "name": "third"}}},
            "runtime": {"state": "SUCCEEDED", "configurationVersion": 1 << 40}}
        expected = await Versioned().Get(job_pb2.GetRequest(id=peloton_pb2.JobID(value=JOB)))
        assert data.decode() == to_yaml(message_to_dict(expected.jobInfo))
        _, _, whole = await post(f"{url}/api/v1", get, CURL_HEADERS | {"Accept": PLAIN})
        assert yaml.safe_load(whole) == {"jobInfo": yaml.safe_load(data)}
        # the same as JSON: the version a number, the map key a string
        status, headers, data = await post(
            f"{url}/api/v1", get, CURL_HEADERS | {"Accept": f"{PLAIN_JSON}; field=jobInfo"})
        assert status == 200 and headers["Content-Type"] == PLAIN_JSON
        assert json.loads(data) == {
            "id": {"value": JOB}, "config": {"name": "hello", "instanceConfig": {"3": {
                "name": "third"}}},
            "runtime": {"state": "SUCCEEDED", "configurationVersion": 1 << 40}}
        # protobuf JSON writes the version as a string, the key too
        _, _, data = await post(f"{url}/api/v1", get, CURL_HEADERS)
        assert json.loads(data)["jobInfo"]["runtime"]["configurationVersion"] == str(1 << 40)
        status, headers, data = await post(
            f"{url}/api/v1", json.dumps({"id": {"value": "missing"}}).encode(),
            CURL_HEADERS | {"Accept": PLAIN})
        assert (status, headers["Rpc-Status"]) == (404, "not-found")
        assert json.loads(data) == {"code": "not-found", "message": "job missing does not exist"}
