"""A job's YAML sent as it is to the jobmgr's HTTP/JSON API
(``peloton.jobmgr.specs``), as ``curl`` sends it: the jobmgr reads it with
the CLI's spec loader and creates the job.

Against the CLI tests' fake jobmgr, which serves the jobmgr's readers
over its own handlers (a thread; no daemons); its Create answers with the
id asked for. tests/e2e/test_interop.py posts a spec to a real jobmgr
with curl (the id chosen there, the job run).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from peloton.api.v0.job import job_pb2
from peloton.rpc.http_json import SPEC, SPEC_READ, WARNINGS
from tests.cli.test_cli import EXAMPLES, JOB, FakeJobmgr

CREATE = {"Rpc-Procedure": "JobManager.Create", "Content-Type": SPEC,
          "Peloton-Respool": "/DefaultResPool", "Peloton-Job-Id": JOB}
ONE = ("name: one\ninstancecount: 1\ndefaultconfig:\n  resource: {cpulimit: 1, memlimitmb: 32}\n"
       "  command: {value: 'true'}\n")


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeJobmgr]:
    with FakeJobmgr(http=True) as server:
        yield server


def post(fake: FakeJobmgr, body: str | bytes, headers: dict[str, Any]
         ) -> tuple[int, dict[str, str], Any]:
    """(status, headers, the JSON answer) of one request."""
    data = body.encode() if isinstance(body, str) else body
    request = urllib.request.Request(f"http://{fake.http_address}/api/v1", data=data,
                                     headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, dict(reply.headers), json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read())


def test_a_job_yaml_posted_as_it_is_creates_the_job(fake: FakeJobmgr) -> None:
    status, headers, answer = post(fake, ONE, CREATE)
    assert (status, headers[SPEC_READ]) == (200, "yes")
    assert answer == {"jobId": {"value": JOB}}  # protobuf JSON: no Accept
    request = fake.jobs.created[-1]
    assert request.id.value == JOB
    assert request.config.name == "one" and request.config.respoolID.value == "pool-1"
    assert request.config.defaultConfig.resource.cpuLimit == 1
    assert WARNINGS not in headers


def test_pelotons_example_comes_with_its_warnings(fake: FakeJobmgr) -> None:
    """testjob.yaml has two keys Peloton's loader takes and ignores."""
    text = (EXAMPLES / "testjob.yaml").read_text()
    status, headers, _ = post(fake, text, CREATE)
    assert status == 200
    warnings = json.loads(headers[WARNINGS])
    assert len(warnings) == 2 and all(isinstance(w, str) for w in warnings)
    _, named, _ = post(fake, text, CREATE | {"Peloton-Spec-Name": "my%20j%C3%B6b.yaml"})
    assert json.loads(named[WARNINGS]) == [f"my jöb.yaml: {w}" for w in warnings]
    # as curl -H sends what a user typed: raw UTF-8
    _, raw, _ = post(fake, text, CREATE | {"Peloton-Spec-Name": "jöb.yaml".encode()})
    assert json.loads(raw[WARNINGS]) == [f"jöb.yaml: {w}" for w in warnings]
    # ... and with a failure after the spec was read: no such pool
    status, headers, answer = post(fake, text, CREATE | {"Peloton-Respool": "/Nope"})
    assert (status, headers["Rpc-Status"]) == (404, "not-found")
    assert answer == {"code": "not-found", "message": "resource pool /Nope does not exist"}
    assert json.loads(headers[WARNINGS]) == warnings


def test_a_spec_the_loader_refuses_names_the_file_and_creates_nothing(
        fake: FakeJobmgr) -> None:
    before = len(fake.jobs.created)
    bad = "name: x\ninstancecount: -1\n"
    status, headers, answer = post(fake, bad, CREATE)
    assert (status, headers["Rpc-Status"], headers[SPEC_READ]) == (
        400, "invalid-argument", "yes")
    assert answer["message"] == "instancecount: must not be negative, got -1"
    _, _, answer = post(fake, bad, CREATE | {"Peloton-Spec-Name": "job.yaml"})
    assert answer["message"] == "job.yaml: instancecount: must not be negative, got -1"
    _, _, answer = post(fake, "name: [", CREATE | {"Peloton-Spec-Name": "job.yaml"})
    assert answer["message"].startswith("job.yaml: ")
    assert len(fake.jobs.created) == before


@pytest.mark.parametrize(("headers", "body", "message"), [
    ({"Peloton-Respool": ""}, ONE, "Peloton-Respool: a job spec is created in a resource pool"),
    ({"Peloton-Respool": "DefaultResPool"}, ONE, "path: resource pool path 'DefaultResPool' "
                                                 "must start with '/'"),
    ({}, b"name: \xff\n", "body: the spec is not UTF-8 text"),
    ({"Rpc-Procedure": "JobManager.Get"}, ONE, "Content-Type: JobManager.Get takes no "
                                               f"{SPEC} request"),
])
def test_what_a_spec_request_lacks_is_named(fake: FakeJobmgr, headers: dict[str, str],
                                           body: str | bytes, message: str) -> None:
    before = len(fake.jobs.created)
    status, _, answer = post(fake, body, CREATE | headers)
    assert (status, answer["code"]) == (400, "invalid-argument")
    assert answer["message"].startswith(message), answer
    assert len(fake.jobs.created) == before


def test_the_answer_is_as_asked_for(fake: FakeJobmgr) -> None:
    status, headers, answer = post(fake, ONE, CREATE | {
        "Accept": "application/vnd.peloton.plain+json"})
    assert status == 200 and headers["Content-Type"] == "application/vnd.peloton.plain+json"
    assert answer == {"jobId": {"value": JOB}}
    request = urllib.request.Request(
        f"http://{fake.http_address}/api/v1", data=ONE.encode(),
        headers=CREATE | {"Rpc-Encoding": "proto"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as reply:
        assert job_pb2.CreateResponse.FromString(reply.read()).jobId.value == JOB
