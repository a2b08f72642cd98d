"""The update planner (peloton.jobmgr.update.step): batches, what counts as
done and failed, when an update succeeds, fails or rolls back."""

from __future__ import annotations

from peloton.api.v0.job import job_pb2
from peloton.api.v0.task import task_pb2
from peloton.api.v0.update import update_pb2
from peloton.core.states import TaskState
from peloton.jobmgr.model import Job
from peloton.jobmgr.update import Update, batch_size, step

JOB = "6a1f5c2e-8d3b-4f7a-9c1e-2b5d4e6f7a8b"
S = update_pb2.State


def service(instances: int = 4, command: str = "old") -> Job:
    config = job_pb2.JobConfig(name="svc", type=job_pb2.SERVICE, instanceCount=instances)
    config.defaultConfig.command.value = command
    job = Job.new(JOB, 0, config, 0.0)
    for t in job.tasks:
        t.state = TaskState.RUNNING
    return job


def updated(job: Job, command: str = "new", **cfg: object) -> Update:
    """Version 2 of ``job`` running ``command``, and its update."""
    new = job_pb2.JobConfig()
    new.CopyFrom(job.config)
    new.defaultConfig.command.value = command
    job.set_config(new, 2)
    return Update("u1", JOB, S.ROLLING_FORWARD, update_pb2.UpdateConfig(**cfg), 1, 2, 0.0, 0.0)


def run_new_version(job: Job, instances: list[int], state: TaskState = TaskState.RUNNING,
                    ) -> None:
    for t in job.tasks:
        if t.instance in instances:
            t.version, t.run, t.state = t.desired, t.run + 1, state


def test_batches_of_batch_size_then_done_then_succeeded() -> None:
    job = service(4)
    update = updated(job, batchSize=2)
    plan = step(job, update)
    assert [t.instance for t in plan.take] == [0, 1] and plan.state is None
    for t in plan.take:
        t.desired = 2
    assert step(job, update).take == []  # two in flight: nothing more
    run_new_version(job, [0, 1])
    plan = step(job, update)
    assert update.done == {0, 1} and [t.instance for t in plan.take] == [2, 3]
    for t in plan.take:
        t.desired = 2
    run_new_version(job, [2, 3])
    assert step(job, update).state == S.SUCCEEDED


def test_unavailable_instances_go_first_and_unstarted_runs_wait() -> None:
    job = service(4)
    job.tasks[3].state = TaskState.FAILED  # in its restart backoff
    job.tasks[1].state = TaskState.PENDING  # not started: waits
    job.tasks[2].health = task_pb2.UNHEALTHY
    update = updated(job, batchSize=2)
    assert [t.instance for t in step(job, update).take] == [2, 3]


def test_an_unchanged_instance_takes_the_new_number_without_a_restart() -> None:
    job = service(3)
    job.config.instanceConfig[1].command.value = "pinned"
    job._configs.clear()
    update = updated(job, batchSize=1)
    job.config.instanceConfig[1].command.value = "pinned"  # the same in both versions
    plan = step(job, update)
    assert [t.instance for t in plan.relabel] == [1]
    assert [t.instance for t in plan.take] == [0]


def test_a_health_check_must_pass_before_an_instance_is_done() -> None:
    job = service(1)
    update = updated(job)
    job.tasks[0].desired = 2
    run_new_version(job, [0])
    job.tasks[0].health = task_pb2.HEALTH_UNKNOWN
    assert step(job, update).state is None and update.done == set()
    job.tasks[0].health = task_pb2.HEALTHY
    assert step(job, update).state == S.SUCCEEDED


def test_failed_attempts_fail_the_instance_then_roll_back_or_fail() -> None:
    for rollback, want in ((True, "rollback"), (False, S.FAILED)):
        job = service(2)
        update = updated(job, maxInstanceAttempts=2, maxFailureInstances=1,
                         rollbackOnFailure=rollback)
        for t in step(job, update).take:
            t.desired = 2
        run_new_version(job, [0], TaskState.FAILED)
        assert step(job, update).state is None and update.attempts == {0: 1}
        assert step(job, update).state is None and update.attempts == {0: 1}  # counted once
        run_new_version(job, [0], TaskState.FAILED)
        plan = step(job, update)
        assert update.failed == {0}
        assert (plan.rollback if want == "rollback" else plan.state) == (
            True if want == "rollback" else want)


def test_a_rollback_that_is_out_ends_rolled_back() -> None:
    job = service(1)
    update = updated(job)
    update.rolling_back = True
    job.tasks[0].desired = 2
    run_new_version(job, [0])
    assert step(job, update).state == S.ROLLED_BACK


def test_batch_size_from_the_config() -> None:
    assert batch_size(update_pb2.UpdateConfig(), 7) == 7
    assert batch_size(update_pb2.UpdateConfig(batchSize=3), 7) == 3
    assert batch_size(update_pb2.UpdateConfig(batchPercentage=10), 7) == 1
    assert batch_size(update_pb2.UpdateConfig(batchPercentage=50), 7) == 4


def test_the_record_round_trips() -> None:
    job = service(2)
    update = updated(job, batchSize=1, rollbackOnFailure=True)
    update.done, update.attempts, update.counted, update.opaque = {1}, {0: 2}, {0: 3}, "x"
    again = Update.from_row(update.row())
    assert again == update
    info = again.info(2)
    assert (info.status.numTasksDone, info.status.numTasksRemaining, info.configVersion,
            info.prevConfigVersion, info.opaque_data.data) == (1, 1, 2, 1, "x")


def test_a_stopped_instance_takes_the_new_number_and_stays_stopped() -> None:
    job = service(2)
    job.tasks[1].goal, job.tasks[1].state = TaskState.KILLED, TaskState.KILLED
    update = updated(job, batchSize=1)
    plan = step(job, update)
    assert [t.instance for t in plan.relabel] == [1] and [t.instance for t in plan.take] == [0]
    for t in plan.relabel:
        t.version = t.desired = 2
    for t in plan.take:
        t.desired = 2
    run_new_version(job, [0])
    assert step(job, update).state == S.SUCCEEDED and update.done == {0, 1}
