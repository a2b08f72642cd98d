"""A create is checked against its pool and the largest host; what was found
for a shape of job is kept while the pool's answer and the largest host are
the same ones, so a stream of like jobs is not checked anew each time."""

from __future__ import annotations

from typing import Any

import pytest

from peloton.api.v0.job import job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.respool import respool_pb2
from peloton.api.v0.task import task_pb2
from peloton.core.errors import InvalidArgument
from peloton.core.resources import Resources
from peloton.jobmgr.service import JobHandler


def pool(cpu_limit: float) -> respool_pb2.ResourcePoolInfo:
    return respool_pb2.ResourcePoolInfo(
        path=respool_pb2.ResourcePoolPath(value="/batch"),
        parent=peloton_pb2.ResourcePoolID(value="root"),
        config=respool_pb2.ResourcePoolConfig(resources=[
            respool_pb2.ResourceConfig(kind="cpu", reservation=cpu_limit, limit=cpu_limit)]))


class FakeJobmgr:
    def __init__(self) -> None:
        self.info = pool(4)
        self.largest = Resources(8, 1024, 1024, 0)

    async def pool_info(self, pool_id: str) -> respool_pb2.ResourcePoolInfo:
        return self.info

    async def capacity(self) -> tuple[Resources, frozenset[str]]:
        return self.largest, frozenset()


def job(name: str, cpu: float, instances: int = 1) -> job_pb2.JobConfig:
    return job_pb2.JobConfig(
        name=name, instanceCount=instances, respoolID=peloton_pb2.ResourcePoolID(value="p1"),
        sla=job_pb2.SlaConfig(preemptible=True),
        defaultConfig=task_pb2.TaskConfig(resource=task_pb2.ResourceConfig(cpuLimit=cpu)))


@pytest.fixture
def handler(monkeypatch: pytest.MonkeyPatch) -> tuple[JobHandler, FakeJobmgr, list[str]]:
    jm = FakeJobmgr()
    handler = JobHandler(jm)  # type: ignore[arg-type]
    checked: list[str] = []
    check = JobHandler._check_fits

    def counting(config: job_pb2.JobConfig, *args: Any) -> None:
        checked.append(config.name)
        check(config, *args)

    monkeypatch.setattr(handler, "_check_fits", counting)
    return handler, jm, checked


async def test_jobs_of_one_shape_are_checked_once(
        handler: tuple[JobHandler, FakeJobmgr, list[str]]) -> None:
    h, _, checked = handler
    for name in ("a", "b", "c"):
        await h._check_pool(job(name, 1))
    assert checked == ["a"]
    await h._check_pool(job("d", 2))  # another shape
    await h._check_pool(job("e", 1, instances=5))  # more instances checked
    assert checked == ["a", "d", "e"]


async def test_a_shape_that_cannot_run_is_refused_each_time(
        handler: tuple[JobHandler, FakeJobmgr, list[str]]) -> None:
    h, _, checked = handler
    for name in ("a", "b"):
        with pytest.raises(InvalidArgument, match="more than the limit 4 of pool /batch") \
                as error:
            await h._check_pool(job(name, 5))
        assert error.value.field == "defaultconfig.resource"
    assert checked == ["a"]


async def test_a_new_answer_about_the_pool_or_the_hosts_is_checked_again(
        handler: tuple[JobHandler, FakeJobmgr, list[str]]) -> None:
    h, jm, checked = handler
    await h._check_pool(job("a", 3))
    jm.info = pool(2)  # the pool's limit lowered meanwhile
    with pytest.raises(InvalidArgument, match="limit 2"):
        await h._check_pool(job("b", 3))
    jm.info, jm.largest = pool(4), Resources(2, 1024, 1024, 0)
    with pytest.raises(InvalidArgument, match="largest host"):
        await h._check_pool(job("c", 3))
    assert checked == ["a", "b", "c"]


async def test_a_job_with_instances_of_their_own_is_always_checked(
        handler: tuple[JobHandler, FakeJobmgr, list[str]]) -> None:
    h, _, checked = handler
    for name in ("a", "b"):
        config = job(name, 1, instances=2)
        config.instanceConfig[1].resource.cpuLimit = 2
        await h._check_pool(config)
    assert checked == ["a", "b"]
