"""A store written before the API became wire-identical with Peloton's opens
with every stored value intact, read through the current messages.

``tests/data/jobs-wire-v1.db`` was written by the code of e026b40 (schema
version 1): one job with an SLA, a port, a restart policy, a preemption
policy, an instance override, and three tasks (one SUCCEEDED with its agent,
lease and port, one RUNNING in its second run with a restart waiting and
HEALTHY, one FAILED with exit code 3 in its third run).
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from peloton.api.v0.job import job_pb2
from peloton.api.v0.task import task_pb2
from peloton.core.states import JobState, TaskState
from peloton.jobmgr.model import Job
from peloton.storage import SCHEMA_VERSION, open_sqlite, wire

V1_STORE = Path(__file__).resolve().parents[1] / "data" / "jobs-wire-v1.db"
JOB_ID = "6a1f5c2e-8d3b-4f7a-9c1e-2b5d4e6f7a8b"


@pytest.fixture
def old_store(tmp_path: Path) -> Path:
    path = tmp_path / "jobs.db"
    shutil.copy(V1_STORE, path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchone() == (1,)
    return path


async def test_a_version_1_store_is_migrated_on_open(old_store: Path) -> None:
    async with await open_sqlite(old_store) as store:
        assert (await store.settings())["schema_version"] == SCHEMA_VERSION == 6
        rows, tasks = await store.load_shard(5)
        configs = await store.get_job_configs(JOB_ID)
    [row] = rows
    job = Job.from_rows(row, tasks)
    config = job.config
    # SlaConfig was renumbered: each value is still where its name says.
    assert (config.sla.priority, config.sla.preemptible, config.sla.revocable,
            config.sla.maximumRunningInstances, config.sla.maxRunningTime,
            config.sla.maximumUnavailableInstances) == (7, True, False, 2, 300, 0)
    assert config.placementStrategy == job_pb2.PLACEMENT_STRATEGY_SPREAD_JOB
    task = config.defaultConfig
    assert (task.name, task.resource.cpuLimit, task.resource.memLimitMb,
            task.resource.fdLimit) == ("worker", 0.5, 64, 100)
    assert task.command.environment.variables[0].value == "1"
    assert (task.ports[0].name, task.ports[0].envName) == ("http", "PORT_HTTP")
    assert task.preemptionPolicy.killOnPreempt and task.restartPolicy.maxFailures == 2
    assert not task.HasField("executor") and not task.revocable
    assert config.instanceConfig[2].command.value == "exit 3"
    assert [(label.key, label.value) for label in config.labels] == [("team", "infra")]
    assert (job.state, job.config_version, job.creation_time) == (
        JobState.RUNNING, 2, 1_700_000_000.0)
    assert configs == {2: row.config}  # schema 3: the current config is a stored version

    tasks = sorted(tasks, key=lambda t: t.instance_id)
    done, running, failed = job.tasks
    assert (done.state, done.host, done.agent, done.lease, done.cluster, done.ports) == (
        TaskState.SUCCEEDED, "host-1", "agent-1", "lease-1", "local", {"http": 31001})
    assert (running.run, running.restart, running.failures, running.health) == (
        2, True, 1, task_pb2.HEALTHY)
    assert (failed.exit_code, failed.failures, failed.reason, failed.completion_time) == (
        3, 2, "REASON_COMMAND_EXITED", 1_700_000_040.0)
    runtime = task_pb2.RuntimeInfo.FromString(tasks[2].runtime)
    assert runtime.mesosTaskId.value == f"{JOB_ID}-2-3"
    assert runtime.prevMesosTaskId.value == f"{JOB_ID}-2-2"
    assert runtime.terminationStatus.exit_code == 3
    assert runtime.terminationStatus.reason == (
        task_pb2.TerminationStatus.TERMINATION_STATUS_REASON_FAILED)
    # What is stored now is what the current code writes for the same facts
    # (which adds the run's config version: runs stored before had none).
    written = failed.runtime()
    assert (written.configVersion, written.desiredConfigVersion) == (2, 2)
    written.ClearField("configVersion")
    written.ClearField("desiredConfigVersion")
    assert tasks[2].runtime == written.SerializeToString()


async def test_a_migrated_store_opens_again_unchanged(old_store: Path) -> None:
    async with await open_sqlite(old_store):
        pass
    with sqlite3.connect(old_store) as conn:
        before = conn.execute("SELECT runtime FROM tasks ORDER BY instance_id").fetchall()
    async with await open_sqlite(old_store) as store:
        assert (await store.settings())["schema_version"] == SCHEMA_VERSION
    with sqlite3.connect(old_store) as conn:
        assert conn.execute("SELECT runtime FROM tasks ORDER BY instance_id").fetchall() == before


def test_the_upgrade_reads_old_numbers_by_name() -> None:
    old = wire._v1("peloton.api.v0.job.SlaConfig")(revocable=True, maximumUnavailableInstances=4)
    config = wire._v1("peloton.api.v0.job.JobConfig")(name="j")
    config.sla.CopyFrom(old)
    new = job_pb2.JobConfig.FromString(wire.upgrade_job_config(config.SerializeToString()))
    assert (new.name, new.sla.revocable, new.sla.maximumUnavailableInstances,
            new.sla.preemptible) == ("j", True, 4, False)
    # The same bytes read with today's messages would have meant something else.
    misread = job_pb2.JobConfig.FromString(config.SerializeToString())
    assert misread.sla.maximumUnavailableInstances == 1
