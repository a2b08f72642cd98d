"""The harness's clients: how many Creates are in flight, and when each goes."""

from __future__ import annotations

import pathlib
from typing import Any

import trio
import trio.testing

from loadtest.harness import LoadTest
from loadtest.scenario import parse


def _scenario(jobs: int, concurrency: int, rate: float | None) -> Any:
    arrival = {"mode": "rate", "jobs_per_s": rate} if rate else {"mode": "burst"}
    return parse({
        "name": "clients", "concurrency": concurrency,
        "cluster": {"hosts": 10, "host_shape": {"cpu": 4, "memory_mb": 4096, "disk_mb": 4096}},
        "pools": [{"path": "/p", "cpu": "cluster", "memory_mb": "cluster",
                   "disk_mb": "cluster", "gpu": 0}],
        "workload": [{"name": "w", "jobs": jobs, "instances": 1, "type": "batch",
                      "task": {"cpu": 1, "memory_mb": 32, "disk_mb": 32, "duration_s": 1},
                      "arrival": arrival, "pool": "/p"}],
    })


class _Clients(LoadTest):
    """A harness whose Creates take ``answer_s`` and are only counted."""

    answer_s = 0.010

    def __init__(self, scenario: Any, run_dir: pathlib.Path) -> None:
        super().__init__(scenario, run_dir)
        self.in_flight = self.most_in_flight = 0
        self.sent: list[tuple[float, str]] = []
        self.pool_ids = {"/p": "a-pool-id"}

    async def _create(self, group: str, job_id: str, name: str, instances: int, request: Any,
                      limiter: trio.Semaphore | None, service: Any = None) -> None:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        self.sent.append((trio.current_time(), name))
        try:
            await trio.sleep(self.answer_s)
        finally:
            self.in_flight -= 1
            if limiter is not None:
                limiter.release()


def _submit(harness: _Clients) -> None:
    async def main() -> None:
        harness.t0 = 0.0
        await harness._submit_all()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_clients_keep_concurrency_creates_in_flight(tmp_path: pathlib.Path) -> None:
    harness = _Clients(_scenario(jobs=100, concurrency=8, rate=None), tmp_path)
    _submit(harness)
    names = [name for _, name in harness.sent]
    assert len(names) == 100 and len(set(names)) == 100  # each job once
    assert harness.most_in_flight == 8
    # Each client sends its next Create as its last is answered: 100 jobs
    # from 8 clients take ceil(100 / 8) answers' time, not more.
    assert max(t for t, _ in harness.sent) < 13 * _Clients.answer_s


def test_clients_send_no_job_before_it_is_due(tmp_path: pathlib.Path) -> None:
    harness = _Clients(_scenario(jobs=50, concurrency=32, rate=100.0), tmp_path)
    _submit(harness)
    sent = sorted(harness.sent)
    start = sent[0][0]
    for t, name in sent:
        n = int(name.rsplit("-", 1)[1])
        assert t >= start + n / 100.0 - 1e-9, (name, t)
    # Offered 100 a second and answered in 10 ms, a few clients keep up.
    assert harness.most_in_flight <= 2
    assert sent[-1][0] - start < 50 / 100.0 + 0.02


def test_a_batch_jobs_create_is_the_message_it_stands_for() -> None:
    """The bytes the clients send for a batch job parse as the message the
    harness would build: the template's fields, the job's id and name."""
    from loadtest.harness import create_bytes, job_config
    from loadtest.scenario import TaskShape
    from peloton.api.v0.job import job_pb2
    from peloton.api.v0.peloton import peloton_pb2

    config = job_config("lt-w", "batch", 1, TaskShape(cpu=1, memory_mb=32, disk_mb=32,
                                                      duration_s=(10, 10)), 10, label="w")
    config.respoolID.value = "a-pool-id"
    template = job_pb2.JobConfig()
    template.CopyFrom(config)
    template.ClearField("name")
    name = "lt-w-" + "x" * 200  # a name longer than a one-byte length
    built = job_pb2.CreateRequest(id=peloton_pb2.JobID(value="0" * 36), config=config)
    built.config.name = name
    sent = job_pb2.CreateRequest.FromString(create_bytes("0" * 36, template.SerializeToString(),
                                                          name))
    assert sent == built
