"""resmgr's Prometheus collector over a small state, and the HTTP server
that serves it."""

from __future__ import annotations

import math
import threading
from typing import Any

import pytest
import trio
from prometheus_client.parser import text_string_to_metric_families

from peloton.core.errors import InvalidArgument
from peloton.observability.http import respond, serve_http
from peloton.resmgr.metrics import POOL_FIGURES, metrics_route
from peloton.resmgr.state import ResmgrState
from tests.resmgr.test_state import dequeue, enqueue, ok, pool, task


class FakeNode:
    def __init__(self, leading: bool = True, state: int = 2) -> None:
        self.lock = threading.Lock()
        self.leading = leading
        self.state = state

    def is_leader(self) -> bool:
        return self.leading

    def leader(self) -> str | None:
        return "127.0.0.1:7001"

    def status(self) -> dict[str, Any]:
        return {"state": self.state, "raft_term": 3}


def small_state() -> ResmgrState:
    """/org/a (cpu 6..10, controller limit) and /org/b; slack 2 reported."""
    s = ResmgrState(num_shards=2)
    ok(s, "pool.create", pool("org", cpu=(10, 10)))
    ok(s, "pool.create", {**pool("a", "org", cpu=(6, 10)), "controller_limit": 50.0})
    ok(s, "pool.create", pool("b", "org", cpu=(4, 10)))
    ok(s, "cluster.capacity", {"cluster": "c1", "physical": [10, 1000, 0, 0],
                               "slack": [2, 0, 0, 0]})
    enqueue(s, "a", [task(0, cpu=2, controller=True)], [task(1, cpu=1, preemptible=False)],
            [task(2, cpu=1, revocable=True)], [task(3, cpu=9, job="big")])
    dequeue(s, 1)
    return s


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def value(found: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str,
          **labels: str) -> float:
    return found[("peloton_resmgr_" + name, tuple(sorted(labels.items())))]


def test_a_scrape_has_every_pool_figure_queue_task_state_and_the_raft_role() -> None:
    s = small_state()
    body, content_type = metrics_route(s, FakeNode(), {"127.0.0.1:7001": "127.0.0.1:5001"})()
    assert content_type.startswith("text/plain")
    found = samples(body.decode())
    # Every figure for every pool and kind, root included.
    for name, _ in POOL_FIGURES:
        for path in ("/", "/org", "/org/a", "/org/b"):
            for kind in ("cpu", "memory", "disk", "gpu"):
                assert ("peloton_resmgr_pool_" + name,
                        (("kind", kind), ("pool", path))) in found, (name, path, kind)
    ent = s.entitlements["a"]
    assert value(found, "pool_entitlement", pool="/org/a", kind="cpu") == pytest.approx(
        ent.entitlement.cpu)
    assert value(found, "pool_reservation", pool="/", kind="cpu") == 10
    assert value(found, "pool_limit", pool="/org/a", kind="memory") == math.inf
    # Allocation: controller 2 + non-preemptible 1 + revocable 1; rolled up.
    for path in ("/org/a", "/org", "/"):
        assert value(found, "pool_allocation", pool=path, kind="cpu") == 4
        assert value(found, "pool_slack_allocation", pool=path, kind="cpu") == 1
        assert value(found, "pool_non_slack_allocation", pool=path, kind="cpu") == 3
        assert value(found, "pool_controller_allocation", pool=path, kind="cpu") == 2
        assert value(found, "pool_non_preemptible_allocation", pool=path, kind="cpu") == 1
        assert value(found, "pool_demand", pool=path, kind="cpu") == 9
    assert value(found, "pool_slack_entitlement", pool="/", kind="cpu") == 2
    assert value(found, "pool_queue_size", pool="/org/a", queue="pending") == 1
    assert value(found, "pool_queue_size", pool="/org/b", queue="revocable") == 0
    assert value(found, "tasks", state="READY") == 2
    assert value(found, "tasks", state="PLACING") == 1
    assert value(found, "tasks", state="PENDING") == 1
    assert value(found, "ready_queue_length") == 2
    assert value(found, "cluster_capacity", cluster="c1", kind="memory") == 1000
    assert value(found, "cluster_slack", cluster="c1", kind="cpu") == 2
    assert value(found, "leader") == 1
    assert value(found, "raft_role", role="leader") == 1
    assert value(found, "raft_role", role="follower") == 0
    assert value(found, "raft_leader_info", leader="127.0.0.1:5001") == 1
    assert value(found, "raft_term") == 3


def test_a_follower_exports_too_and_says_it_follows() -> None:
    body, _ = metrics_route(small_state(), FakeNode(leading=False, state=0))()
    found = samples(body.decode())
    assert value(found, "leader") == 0
    assert value(found, "raft_role", role="follower") == 1
    assert value(found, "pool_allocation", pool="/org/a", kind="cpu") == 4


def test_a_scrape_takes_the_node_lock() -> None:
    node = FakeNode()
    route = metrics_route(small_state(), node)
    with node.lock:
        done = threading.Event()
        worker = threading.Thread(target=lambda: (route(), done.set()))
        worker.start()
        assert not done.wait(0.05)  # waits for the lock
    worker.join(5)
    assert done.is_set()


def ok_route() -> tuple[bytes, str]:
    return b"up 1\n", "text/plain"


def failing_route() -> tuple[bytes, str]:
    raise InvalidArgument("boom")


@pytest.mark.parametrize(("head", "status", "body"), [
    (b"GET /metrics HTTP/1.1\r\nHost: x", b"200 OK", b"up 1\n"),
    (b"GET /metrics?x=1 HTTP/1.0", b"200 OK", b"up 1\n"),
    (b"HEAD /metrics HTTP/1.1", b"200 OK", b""),
    (b"GET /nope HTTP/1.1", b"404 Not Found", b"no such path '/nope'; try /fail, /metrics\n"),
    (b"POST /metrics HTTP/1.1", b"405 Method Not Allowed", b"POST is not allowed; use GET\n"),
    (b"garbage", b"400 Bad Request", b"bad request line\n"),
    (b"GET /fail HTTP/1.1", b"500 Internal Server Error", b"internal error\n"),
])
def test_respond(head: bytes, status: bytes, body: bytes) -> None:
    response = respond({"/metrics": ok_route, "/fail": failing_route}, head)
    first, _, rest = response.partition(b"\r\n")
    assert first == b"HTTP/1.1 " + status
    headers, _, got = rest.partition(b"\r\n\r\n")
    assert got == body and b"Connection: close" in headers


async def test_serve_http_on_loopback(nursery: trio.Nursery) -> None:
    host, port = await nursery.start(serve_http, {"/metrics": ok_route}, "127.0.0.1", 0)
    assert host == "127.0.0.1" and port > 0
    stream = await trio.open_tcp_stream(host, port)
    await stream.send_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    data = b""
    with trio.fail_after(5):
        while chunk := await stream.receive_some():
            data += chunk
    assert data.startswith(b"HTTP/1.1 200 OK") and data.endswith(b"\r\n\r\nup 1\n")
    # A client that sends half a request and goes away does not hurt.
    stream = await trio.open_tcp_stream(host, port)
    await stream.send_all(b"GET /met")
    await stream.aclose()
