"""The resmgr service's translation between Task messages and state rows."""

from __future__ import annotations

import math

import pytest

from peloton.api.private.resmgrsvc import resmgrsvc_pb2 as rpb
from peloton.api.v0.respool import respool_pb2
from peloton.api.v0.task import task_pb2
from peloton.core.errors import InvalidArgument
from peloton.core.resources import Resources
from peloton.resmgr.service import STORED_APART, pool_payload, task_message, task_row
from peloton.resmgr.state import TASK_CONTROLLER, TASK_REVOCABLE, TaskEntry

JOB = "8ab3a9a2-2c1b-4b2c-9d55-0123456789ab"


def full_task(**fields: object) -> rpb.Task:
    t = rpb.Task(id=f"{JOB}-7", jobId=JOB, mesosTaskId=f"{JOB}-7-3",
                 resource=rpb.Resources(cpu=1.5, memMb=256, diskMb=64, gpu=1), priority=4,
                 preemptible=False, numPorts=2, controller=True, revocable=True, shard=11,
                 type=rpb.STATELESS, minInstances=3, name="web",
                 constraint=task_pb2.Constraint(type=task_pb2.Constraint.LABEL_CONSTRAINT))
    for name, value in fields.items():
        setattr(t, name, value)
    return t


def test_a_row_keeps_apart_what_the_state_has_and_the_message_comes_back_whole() -> None:
    t = full_task()
    mid, tid, run, shard, priority, resources, rest, flags = task_row(t)
    assert (mid, tid, run, shard, priority) == (f"{JOB}-7-3", f"{JOB}-7", 3, 11, 4)
    assert resources == [1.5, 256, 64, 1]
    assert flags == TASK_CONTROLLER | TASK_REVOCABLE  # not preemptible
    stored = rpb.Task.FromString(rest)
    assert not any(stored.HasField(f) if f == "resource" else getattr(stored, f)
                   for f in STORED_APART)
    assert len(rest) < len(t.SerializeToString()) / 2
    entry = TaskEntry(mid, tid, "pool", shard, 2, Resources(*resources), priority, 1, rest)
    assert task_message(entry) == t


def test_a_services_bound_on_instances_down_ends_the_row() -> None:
    assert len(task_row(full_task())) == 8
    assert task_row(full_task(maxUnavailable=2, instances=9))[8] == [2, 9]


@pytest.mark.parametrize("fields", [
    {"mesosTaskId": f"{JOB}-7"},           # no run
    {"mesosTaskId": f"{JOB}-7-x"},         # run not a number
    {"mesosTaskId": f"{JOB}-8-3"},         # run of another instance
    {"jobId": "another-job"},              # id not of this job
])
def test_ids_not_of_one_run_are_refused_naming_the_field(fields: dict[str, str]) -> None:
    with pytest.raises(InvalidArgument) as caught:
        task_row(full_task(**fields))
    assert caught.value.field == "gangs.tasks.mesosTaskId"


@pytest.mark.parametrize("on", [False, True])
def test_pool_payload_carries_priority_preemption(on: bool) -> None:
    config = respool_pb2.ResourcePoolConfig(name="p", priorityPreemption=on)
    assert pool_payload("id-1", config, "root")["priority_preemption"] is on


@pytest.mark.parametrize(("config", "field"), [
    (respool_pb2.ResourcePoolConfig(name="p", resources=[respool_pb2.ResourceConfig(
        kind="cpu", reservation=1, limit=math.nan, share=1)]), "resources[0].limit"),
    (respool_pb2.ResourcePoolConfig(name="p", resources=[respool_pb2.ResourceConfig(
        kind="cpu", reservation=1e308, limit=1e308, share=1)]), "resources[0].reservation"),
    (respool_pb2.ResourcePoolConfig(name="a\0b"), "name"),
])
def test_an_api_pool_is_checked_as_a_file_is(config: respool_pb2.ResourcePoolConfig,
                                              field: str) -> None:
    """What the API sends goes through the file's checks before it becomes
    a Raft command: a NaN limit (no limit at all to min()) or a NUL name
    never reaches the replicated state."""
    with pytest.raises(InvalidArgument) as caught:
        pool_payload("id-1", config, "root")
    assert caught.value.field == field


async def test_active_tasks_are_the_runs_held_of_the_shards_asked() -> None:
    """What a recovered jobmgr shard compares with its own runs
    (``ShardEngine.audit_resmgr``): every run resmgr holds of its shards,
    in any state, with the state."""
    from tests.resmgr.test_lanes import service

    _, handler = service()
    await handler.EnqueueGangs(rpb.EnqueueGangsRequest(respoolID={"value": "bulk"}, gangs=[
        rpb.Gang(tasks=[rpb.Task(id=f"{job}-0", jobId=job, mesosTaskId=f"{job}-0-1", shard=shard,
                                 resource=rpb.Resources(cpu=1.0, memMb=1.0))])
        for job, shard in (("a", 1), ("b", 2), ("c", 1))]))
    tasks = handler.rm.state.tasks
    reply = await handler.GetActiveTasks(rpb.GetActiveTasksRequest(shards=[1, 5]))
    assert sorted((t.mesosTaskId, t.state) for t in reply.tasks) == [
        ("a-0-1", tasks["a-0-1"].state), ("c-0-1", tasks["c-0-1"].state)]
    assert not (await handler.GetActiveTasks(rpb.GetActiveTasksRequest(shards=[4]))).tasks
