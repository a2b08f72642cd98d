"""The storage contract: every gateway backend passes these tests.

Use it by subclassing :class:`StorageContract` in a ``test_*.py`` module under a
``Test*`` name and overriding the ``open_store`` fixture. ``open_store`` yields
an async callable; each call opens a NEW ``Storage`` handle on the same empty
backing store (the same file, the same keyspace), as another jobmgr process
would. The fixture closes every handle it opened::

    class TestSQLite(StorageContract):
        @pytest.fixture
        async def open_store(self, tmp_path):
            async with handles(lambda: open_sqlite(tmp_path / "p.db")) as opener:
                yield opener
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
import trio

from peloton.core.errors import Aborted, AlreadyExists, InvalidArgument, NotFound
from peloton.core.states import JobState, TaskState
from peloton.storage import JobRow, Storage, TaskEventRow, TaskRow, UpdateRow
from peloton.storage.gateway import ShardWrite

OpenStore = Callable[[], Awaitable[Storage]]

J1 = "00000000-0000-4000-8000-000000000001"
J2 = "00000000-0000-4000-8000-000000000002"
J3 = "00000000-0000-4000-8000-000000000003"


@contextlib.asynccontextmanager
async def handles(open_one: OpenStore) -> AsyncIterator[OpenStore]:
    """Wrap a backend's opener so every handle it opens is closed at exit."""
    opened: list[Storage] = []

    async def opener() -> Storage:
        store = await open_one()
        opened.append(store)
        return store

    try:
        yield opener
    finally:
        for store in opened:
            await store.aclose()


def job(job_id: str = J1, *, shard: int = 0, **fields: object) -> JobRow:
    values: dict[str, object] = dict(
        job_id=job_id, shard=shard, name=f"job-{job_id[-4:]}", owner="alice",
        respool_id="/root/a", state=int(JobState.PENDING), goal_state=int(JobState.SUCCEEDED),
        instance_count=3, labels=[("team", "infra")], creation_time=1000.0,
        update_time=1000.0, completion_time=0.0, config_version=1,
        config=b"\x00config\xff", runtime=b"runtime",
    )
    values.update(fields)
    return JobRow(**values)  # type: ignore[arg-type]


def task(job_id: str = J1, instance_id: int = 0, **fields: object) -> TaskRow:
    values: dict[str, object] = dict(
        job_id=job_id, instance_id=instance_id, run_id=1, state=int(TaskState.PENDING),
        goal_state=int(TaskState.SUCCEEDED), host="", name=f"t{instance_id}",
        update_time=1000.0, runtime=b"rt",
    )
    values.update(fields)
    return TaskRow(**values)  # type: ignore[arg-type]


def event(job_id: str = J1, instance_id: int = 0, **fields: object) -> TaskEventRow:
    values: dict[str, object] = dict(
        job_id=job_id, instance_id=instance_id, run_id=1, state=int(TaskState.RUNNING),
        timestamp=1000.0, host="h1", message="",
    )
    values.update(fields)
    return TaskEventRow(**values)  # type: ignore[arg-type]


class StorageContract:
    """The contract; subclasses provide ``open_store``."""

    @pytest.fixture
    async def open_store(self) -> AsyncIterator[OpenStore]:
        raise NotImplementedError("a backend's test class overrides open_store")
        yield  # pragma: no cover

    @pytest.fixture
    async def store(self, open_store: OpenStore) -> Storage:
        return await open_store()

    # ---- create / get -------------------------------------------------------

    async def test_create_then_get(self, store: Storage) -> None:
        row = job(labels=[("team", "infra"), ("tier", "1"), ("team", "dup")])
        tasks = [task(instance_id=i) for i in range(3)]
        await store.create_job(0, 1, row, tasks)
        assert await store.get_job(J1) == row
        assert await store.get_task(J1, 2) == tasks[2]
        assert await store.get_job(J2) is None
        assert await store.get_task(J1, 3) is None
        assert await store.stats() == {"jobs": 1, "tasks": 3, "events": 0, "shards": 1}

    async def test_create_duplicate_raises_already_exists_and_changes_nothing(
        self, store: Storage
    ) -> None:
        await store.create_job(0, 1, job(name="first"), [task(instance_id=0)])
        with pytest.raises(AlreadyExists):
            await store.create_job(0, 1, job(name="second"), [task(instance_id=0, host="x"),
                                                               task(instance_id=7)])
        assert (await store.get_job(J1)).name == "first"  # type: ignore[union-attr]
        assert (await store.get_task(J1, 0)).host == ""  # type: ignore[union-attr]
        assert await store.get_task(J1, 7) is None

    async def test_create_rejects_rows_of_another_shard_or_job(self, store: Storage) -> None:
        with pytest.raises(InvalidArgument):
            await store.create_job(1, 1, job(shard=0))
        with pytest.raises(InvalidArgument):
            await store.create_job(0, 1, job(), [task(J2, 0)])
        assert await store.stats() == {"jobs": 0, "tasks": 0, "events": 0, "shards": 0}

    async def test_create_jobs_reports_each_jobs_outcome_and_fails_none_for_another(
        self, store: Storage
    ) -> None:
        await store.create_job(0, 1, job(J2, name="there"), [task(J2, 0)])
        outcomes = await store.create_jobs(0, 1, [
            (job(J1), [task(J1, 0), task(J1, 1)]),
            (job(J2, name="again"), [task(J2, 0, host="x")]),  # taken
            (job(J3, shard=1), []),  # another shard's
            (job(J3), [task(J1, 0)]),  # a task of another job
            (job(J1, name="twice"), [task(J1, 0, host="y")]),  # its id earlier in the call
        ])
        assert outcomes[0] is None
        assert isinstance(outcomes[1], AlreadyExists)
        assert isinstance(outcomes[2], InvalidArgument) and isinstance(outcomes[3], InvalidArgument)
        assert isinstance(outcomes[4], AlreadyExists)
        assert (await store.get_job(J1)) == job(J1)
        assert (await store.get_task(J1, 1)) == task(J1, 1)
        assert (await store.get_job(J2)).name == "there"  # type: ignore[union-attr]
        assert (await store.get_task(J2, 0)).host == ""  # type: ignore[union-attr]
        assert await store.get_job(J3) is None
        assert await store.create_jobs(0, 1, []) == []

    async def test_create_jobs_the_fence_refuses_raise_aborted(self, store: Storage) -> None:
        await store.claim_shard(0, 2, "jobmgr-b")
        with pytest.raises(Aborted):
            await store.create_jobs(0, 1, [(job(J1), [task()]), (job(J2), [])])
        assert await store.get_jobs([J1, J2]) == []

    async def test_create_jobs_across_fences_each_shard_alone(self, store: Storage) -> None:
        """Several shards' creates in one call: a part its shard's fence
        refuses answers Aborted and makes nothing; the others' jobs are
        made, each failing alone."""
        await store.claim_shard(1, 2, "jobmgr-b")
        await store.create_job(2, 1, job(J3, shard=2), [])
        outcomes = await store.create_jobs_across([
            (0, 1, [(job(J1), [task(J1, 0)])]),
            (1, 1, [(job(J2, shard=1), [task(J2, 0)])]),  # shard 1 is epoch 2's
            (2, 1, [(job(J3, shard=2, name="again"), []),  # taken
                    (job(J2, shard=0), [])]),  # another shard's
        ])
        assert outcomes[0] == [None]
        assert isinstance(outcomes[1], Aborted)
        third = outcomes[2]
        assert isinstance(third, list) and isinstance(third[0], AlreadyExists)
        assert isinstance(third[1], InvalidArgument)
        assert (await store.get_job(J1)) == job(J1)
        assert await store.get_job(J2) is None
        assert (await store.get_job(J3)).name != "again"  # type: ignore[union-attr]
        assert await store.create_jobs_across([]) == []

    async def test_write_across_fails_each_shards_batch_alone(self, store: Storage) -> None:
        """Several shards' batches in one call: a batch its fence refuses
        answers Aborted, one naming a job that does not exist NotFound;
        neither changes anything, and the others are written."""
        await store.claim_shard(1, 2, "jobmgr-b")
        outcomes = await store.write_across([
            ShardWrite(0, 1, jobs=[job(J1)], tasks=[task(J1, 0)]),
            ShardWrite(1, 1, jobs=[job(J2, shard=1)]),  # shard 1 is epoch 2's
            ShardWrite(2, 1, jobs=[job(J3, shard=2)], tasks=[task(J2, 0)]),  # no such job
        ])
        assert outcomes[0] is None
        assert isinstance(outcomes[1], Aborted) and isinstance(outcomes[2], NotFound)
        assert [j.job_id for j in await store.get_jobs([J1, J2, J3])] == [J1]
        assert (await store.get_task(J1, 0)) == task(J1, 0)
        assert await store.write_across([]) == []

    async def test_get_jobs_keeps_the_order_asked_and_skips_unknown(
        self, store: Storage
    ) -> None:
        await store.write(0, 1, jobs=[job(J1), job(J2), job(J3)])
        got = await store.get_jobs([J3, "nope", J1, J3])
        assert [j.job_id for j in got] == [J3, J1]
        assert await store.get_jobs([]) == []

    # ---- write --------------------------------------------------------------

    async def test_write_upserts_jobs_and_tasks(self, store: Storage) -> None:
        await store.create_job(0, 1, job(), [task(instance_id=i) for i in range(2)])
        updated = job(state=int(JobState.RUNNING), update_time=2000.0, runtime=b"new",
                      labels=[], config_version=2, config=b"v2")
        await store.write(
            0, 1, jobs=[updated],
            tasks=[task(instance_id=1, state=int(TaskState.RUNNING), host="h1", run_id=2),
                   task(instance_id=2)],
        )
        assert await store.get_job(J1) == updated
        assert await store.get_task(J1, 0) == task(instance_id=0)
        assert await store.get_task(J1, 1) == task(
            instance_id=1, state=int(TaskState.RUNNING), host="h1", run_id=2)
        assert await store.get_task(J1, 2) == task(instance_id=2)

    async def test_write_later_row_for_same_key_wins(self, store: Storage) -> None:
        await store.write(0, 1, jobs=[job(name="a"), job(name="b")],
                          tasks=[task(host="x"), task(host="y")])
        assert (await store.get_job(J1)).name == "b"  # type: ignore[union-attr]
        assert (await store.get_task(J1, 0)).host == "y"  # type: ignore[union-attr]

    async def test_events_are_appended_and_read_newest_first(self, store: Storage) -> None:
        await store.create_job(0, 1, job(), [task()])
        await store.write(0, 1, events=[
            event(state=int(TaskState.PENDING), timestamp=1.0),
            event(state=int(TaskState.LAUNCHED), timestamp=2.0),
        ])
        await store.write(0, 1, events=[
            event(state=int(TaskState.RUNNING), timestamp=3.0, message="up"),
            event(state=int(TaskState.KILLED), timestamp=3.0),  # same time: write order
            event(instance_id=1, timestamp=9.0),
        ])
        got = await store.task_events(J1, 0)
        assert [e.state for e in got] == [TaskState.KILLED, TaskState.RUNNING,
                                         TaskState.LAUNCHED, TaskState.PENDING]
        assert got[1] == event(state=int(TaskState.RUNNING), timestamp=3.0, message="up")
        assert [e.state for e in await store.task_events(J1, 0, limit=2)] == [
            TaskState.KILLED, TaskState.RUNNING]
        assert await store.task_events(J2, 0) == []

    async def test_events_of_some_runs_are_read_and_deleted(self, store: Storage) -> None:
        await store.create_job(0, 1, job(), [task()])
        await store.write(0, 1, events=[
            event(run_id=run, state=int(state), timestamp=run * 10.0 + i)
            for run in (1, 2, 3) for i, state in enumerate((TaskState.PENDING, TaskState.FAILED))
        ] + [event(instance_id=1, run_id=1)])
        got = await store.task_events(J1, 0, runs=(2, 3))
        assert [(e.run_id, e.state) for e in got] == [
            (3, TaskState.FAILED), (3, TaskState.PENDING), (2, TaskState.FAILED),
            (2, TaskState.PENDING)]
        assert await store.delete_task_events(0, 1, J1, 0, up_to_run=2) == 4
        assert [e.run_id for e in await store.task_events(J1, 0)] == [3, 3]
        assert len(await store.task_events(J1, 1)) == 1  # another instance keeps its events
        with pytest.raises(Aborted):
            await store.delete_task_events(0, 0, J1, 0, up_to_run=9)
        with pytest.raises(NotFound):
            await store.delete_task_events(0, 1, J3, 0, up_to_run=9)

    async def test_configs_and_updates_are_written_read_and_deleted(self, store: Storage) -> None:
        await store.create_job(0, 1, job(config=b"v1"), [task()])
        assert await store.get_job_configs(J1) == {1: b"v1"}
        first = UpdateRow("u1", J1, 2, 10.0, 10.0, '{"done": []}')
        second = UpdateRow("u2", J1, 1, 20.0, 20.0, "{}")
        await store.write(0, 1, configs=[(J1, 2, b"v2")], updates=[first, second])
        await store.write(0, 1, updates=[dataclasses.replace(first, state=4, update_time=30.0)])
        assert await store.get_job_configs(J1) == {1: b"v1", 2: b"v2"}
        assert await store.get_update("u1") == dataclasses.replace(first, state=4,
                                                                    update_time=30.0)
        assert [u.update_id for u in await store.list_updates(J1)] == ["u2", "u1"]
        assert [u.update_id for u in await store.list_updates(J1, limit=1)] == ["u2"]
        with pytest.raises(NotFound):
            await store.write(0, 1, updates=[UpdateRow("u3", J3, 1, 1.0, 1.0, "{}")])
        await store.write(0, 1, delete_jobs=[J1])
        assert await store.get_job_configs(J1) == {}
        assert await store.get_update("u1") is None

    async def test_write_deletes_jobs_with_their_tasks_and_events(self, store: Storage) -> None:
        await store.write(0, 1, jobs=[job(J1), job(J2)],
                          tasks=[task(J1, 0), task(J1, 1), task(J2, 0)],
                          events=[event(J1, 0), event(J2, 0)])
        await store.write(0, 1, delete_jobs=[J1, J3])  # J3 unknown: no-op
        assert await store.get_job(J1) is None
        assert await store.get_task(J1, 0) is None
        assert await store.task_events(J1, 0) == []
        assert await store.get_job(J2) is not None
        assert await store.stats() == {"jobs": 1, "tasks": 1, "events": 1, "shards": 1}

    async def test_write_deletes_instances_with_their_events(self, store: Storage) -> None:
        await store.write(0, 1, jobs=[job(J1)], tasks=[task(J1, 0), task(J1, 1), task(J1, 2)],
                          events=[event(J1, 1), event(J1, 2)])
        await store.write(0, 1, delete_tasks=[(J1, 1), (J1, 2), (J1, 7)])  # 7: no-op
        assert [t.instance_id for t in (await store.list_tasks(J1))[0]] == [0]
        assert await store.task_events(J1, 2) == []
        with pytest.raises(NotFound):
            await store.write(0, 1, delete_tasks=[(J3, 0)])

    async def test_what_changed_since(self, store: Storage) -> None:
        await store.write(0, 1, jobs=[job(J1), job(J2)], tasks=[task(J1, 0), task(J1, 1)])
        jobs = await store.jobs_changed(0.0)
        assert {j.job_id for j in jobs} == {J1, J2}
        latest = max(j.update_time for j in jobs)
        assert await store.jobs_changed(latest) == []
        tasks = await store.tasks_changed(J1, 0.0)
        assert [t.instance_id for t in tasks] == [0, 1]
        assert await store.tasks_changed(J1, max(t.update_time for t in tasks)) == []

    async def test_lockdown_is_kept(self, store: Storage) -> None:
        assert await store.get_lockdown() == []
        await store.set_lockdown(["Write", "Kill", "Write"])
        assert await store.get_lockdown() == ["Kill", "Write"]
        await store.set_lockdown([])
        assert await store.get_lockdown() == []

    async def test_write_with_nothing_only_checks_the_fence(self, store: Storage) -> None:
        await store.write(0, 1)
        assert await store.stats() == {"jobs": 0, "tasks": 0, "events": 0, "shards": 1}

    async def test_write_rejects_rows_of_another_shard_and_changes_nothing(
        self, store: Storage
    ) -> None:
        await store.write(1, 1, jobs=[job(J2, shard=1)], tasks=[task(J2, 0)])
        before = await store.stats()
        with pytest.raises(InvalidArgument):
            await store.write(0, 1, jobs=[job(J1), job(J3, shard=1)])
        with pytest.raises(InvalidArgument):  # J2 is stored in shard 1
            await store.write(0, 1, jobs=[job(J1)], tasks=[task(J2, 0, host="stolen")])
        with pytest.raises(InvalidArgument):
            await store.write(0, 1, delete_jobs=[J2])
        assert await store.stats() == before
        assert await store.get_job(J1) is None
        assert (await store.get_task(J2, 0)).host == ""  # type: ignore[union-attr]

    async def test_write_of_tasks_or_events_of_an_unknown_job_raises_not_found(
        self, store: Storage
    ) -> None:
        with pytest.raises(NotFound):
            await store.write(0, 1, tasks=[task(J1, 0)])
        with pytest.raises(NotFound):
            await store.write(0, 1, jobs=[job(J2)], events=[event(J1, 0)])
        assert await store.get_job(J2) is None
        await store.write(0, 1, jobs=[job(J1)], tasks=[task(J1, 0)], events=[event(J1, 0)])

    async def test_batch_of_10000_tasks_in_one_call(self, store: Storage) -> None:
        n = 10_000
        await store.write(0, 1, jobs=[job(instance_count=n)],
                          tasks=[task(instance_id=i, runtime=b"x" * 100) for i in range(n)],
                          events=[event(instance_id=i) for i in range(n)])
        assert await store.stats() == {"jobs": 1, "tasks": n, "events": n, "shards": 1}
        await store.write(0, 1, tasks=[task(instance_id=i, state=int(TaskState.RUNNING))
                                       for i in range(n)])
        rows, total = await store.list_tasks(J1, states=[int(TaskState.RUNNING)])
        assert total == n
        assert [t.instance_id for t in rows] == list(range(n))

    async def test_concurrent_calls_on_one_handle_all_land(self, store: Storage) -> None:
        await store.write(0, 1, jobs=[job(instance_count=50)])

        async def write_one(i: int) -> None:
            await store.write(0, 1, tasks=[task(instance_id=i)])

        async with trio.open_nursery() as nursery:
            for i in range(50):
                nursery.start_soon(write_one, i)
        assert (await store.list_tasks(J1))[1] == 50

    # ---- fencing ------------------------------------------------------------

    async def test_claim_records_epoch_and_owner(self, store: Storage) -> None:
        assert await store.get_shard(3) is None
        await store.claim_shard(3, 5, "jobmgr-a")
        row = await store.get_shard(3)
        assert row is not None
        assert (row.shard, row.epoch, row.owner) == (3, 5, "jobmgr-a")
        await store.claim_shard(3, 5, "jobmgr-a")  # idempotent re-claim
        await store.claim_shard(3, 6, "jobmgr-b")
        row = await store.get_shard(3)
        assert row is not None and (row.epoch, row.owner) == (6, "jobmgr-b")

    async def test_claim_with_an_older_epoch_raises_aborted(self, store: Storage) -> None:
        await store.claim_shard(0, 5, "jobmgr-b")
        with pytest.raises(Aborted, match="shard 0 is owned by epoch 5 now"):
            await store.claim_shard(0, 4, "jobmgr-a")
        row = await store.get_shard(0)
        assert row is not None and (row.epoch, row.owner) == (5, "jobmgr-b")

    async def test_stale_write_raises_aborted_and_changes_nothing(self, store: Storage) -> None:
        await store.claim_shard(0, 1, "jobmgr-a")
        await store.create_job(0, 1, job(), [task()])
        await store.claim_shard(0, 2, "jobmgr-b")
        with pytest.raises(Aborted, match="shard 0 is owned by epoch 2 now"):
            await store.write(0, 1, jobs=[job(name="stale"), job(J2)],
                              tasks=[task(host="stale")], events=[event()],
                              delete_jobs=[J1])
        with pytest.raises(Aborted):
            await store.create_job(0, 1, job(J3))
        assert await store.get_job(J1) == job()
        assert await store.get_task(J1, 0) == task()
        assert await store.stats() == {"jobs": 1, "tasks": 1, "events": 0, "shards": 1}
        await store.write(0, 2, jobs=[job(name="fresh")])  # the new owner writes
        assert (await store.get_job(J1)).name == "fresh"  # type: ignore[union-attr]

    async def test_a_write_raises_the_fence_to_its_epoch(self, store: Storage) -> None:
        await store.claim_shard(0, 1, "jobmgr-a")
        await store.write(0, 3, jobs=[job()])
        row = await store.get_shard(0)
        assert row is not None and (row.epoch, row.owner) == (3, "jobmgr-a")
        with pytest.raises(Aborted):
            await store.write(0, 2, jobs=[job(name="late")])
        with pytest.raises(Aborted):
            await store.claim_shard(0, 2, "jobmgr-b")

    async def test_fences_are_per_shard(self, store: Storage) -> None:
        await store.claim_shard(0, 9, "a")
        await store.claim_shard(1, 1, "b")
        await store.write(1, 1, jobs=[job(J2, shard=1)])
        assert await store.get_job(J2) is not None

    # ---- two handles (two processes) ----------------------------------------

    async def test_two_handles_see_each_others_writes_and_fences(
        self, open_store: OpenStore
    ) -> None:
        a = await open_store()
        b = await open_store()
        await a.claim_shard(0, 1, "jobmgr-a")
        await a.create_job(0, 1, job(), [task()])
        assert await b.get_job(J1) == job()
        await b.claim_shard(0, 2, "jobmgr-b")
        await b.write(0, 2, tasks=[task(host="h2")])
        assert (await a.get_task(J1, 0)).host == "h2"  # type: ignore[union-attr]
        with pytest.raises(Aborted):
            await a.write(0, 1, tasks=[task(host="h1")])
        assert (await b.get_task(J1, 0)).host == "h2"  # type: ignore[union-attr]

    async def test_two_handles_writing_different_shards_at_once(
        self, open_store: OpenStore
    ) -> None:
        a = await open_store()
        b = await open_store()
        await a.write(0, 1, jobs=[job(J1, shard=0, instance_count=200)])
        await b.write(1, 1, jobs=[job(J2, shard=1, instance_count=200)])

        async def fill(store: Storage, shard: int, job_id: str) -> None:
            for start in range(0, 200, 20):
                await store.write(shard, 1, tasks=[task(job_id, i)
                                                   for i in range(start, start + 20)])

        async with trio.open_nursery() as nursery:
            nursery.start_soon(fill, a, 0, J1)
            nursery.start_soon(fill, b, 1, J2)
        assert await a.stats() == {"jobs": 2, "tasks": 400, "events": 0, "shards": 2}

    # ---- query_jobs ---------------------------------------------------------

    async def _seed_query(self, store: Storage) -> None:
        await store.write(0, 1, jobs=[
            job(J1, name="Nightly-ETL", owner="alice", respool_id="/root/batch",
                state=int(JobState.RUNNING), creation_time=300.0,
                labels=[("team", "data"), ("env", "prod")]),
            job(J2, name="web-frontend", owner="bob", respool_id="/root/svc",
                state=int(JobState.SUCCEEDED), creation_time=200.0,
                labels=[("team", "web"), ("env", "prod")]),
            job(J3, name="etl-backfill", owner="carol", respool_id="/root/batch",
                state=int(JobState.PENDING), creation_time=300.0,
                labels=[("team", "data"), ("Project", "Ünïcode")]),
        ])

    async def test_query_orders_by_creation_time_desc_then_job_id(self, store: Storage) -> None:
        await self._seed_query(store)
        rows, total = await store.query_jobs()
        assert [r.job_id for r in rows] == [J1, J3, J2]
        assert total == 3
        assert rows[0] == await store.get_job(J1)

    @pytest.mark.parametrize(
        ("filters", "expected"),
        [
            ({"states": [int(JobState.RUNNING), int(JobState.PENDING)]}, [J1, J3]),
            ({"states": [int(JobState.KILLED)]}, []),
            ({"respool_id": "/root/batch"}, [J1, J3]),
            ({"owner": "bob"}, [J2]),
            ({"owner": "bo"}, []),  # owner is exact
            ({"name": "etl"}, [J1, J3]),  # name: case-insensitive substring
            ({"name": "NIGHTLY"}, [J1]),
            ({"labels": [("team", "data")]}, [J1, J3]),
            ({"labels": [("team", "data"), ("env", "prod")]}, [J1]),
            ({"labels": [("team", "dat")]}, []),
            ({"keywords": ["ALICE"]}, [J1]),  # owner
            ({"keywords": ["front"]}, [J2]),  # name
            ({"keywords": ["prod"]}, [J1, J2]),  # label value
            ({"keywords": ["proj"]}, [J3]),  # label key
            ({"keywords": ["ünï"]}, [J3]),  # non-ASCII folding
            ({"keywords": ["data", "etl"]}, [J1, J3]),  # all keywords
            ({"keywords": ["data", "web"]}, []),
            ({"respool_id": "/root/batch", "states": [int(JobState.PENDING)]}, [J3]),
            ({"owner": "", "name": "", "respool_id": ""}, [J1, J3, J2]),  # empty: no filter
            ({"created": (250.0, 400.0)}, [J1, J3]),
            ({"created": (200.0, 200.0)}, [J2]),  # both ends included
            ({"completed": (1.0, 1e12)}, []),  # none has completed
            ({"order_by": [("name", False)]}, [J1, J3, J2]),  # SQLite's byte order
            ({"order_by": [("owner", True)]}, [J3, J2, J1]),
            ({"order_by": [("creation_time", False), ("state", True)]}, [J2, J1, J3]),
        ],
    )
    async def test_query_filters(
        self, store: Storage, filters: dict[str, object], expected: list[str]
    ) -> None:
        await self._seed_query(store)
        rows, total = await store.query_jobs(**filters)  # type: ignore[arg-type]
        assert [r.job_id for r in rows] == expected
        assert total == len(expected)

    async def test_query_pagination_and_total(self, store: Storage) -> None:
        ids = [f"00000000-0000-4000-8000-{i:012d}" for i in range(25)]
        await store.write(0, 1, jobs=[job(i, creation_time=float(n)) for n, i in enumerate(ids)])
        newest_first = ids[::-1]
        rows, total = await store.query_jobs(limit=10)
        assert total == 25 and [r.job_id for r in rows] == newest_first[:10]
        rows, total = await store.query_jobs(offset=20, limit=10)
        assert total == 25 and [r.job_id for r in rows] == newest_first[20:]
        rows, total = await store.query_jobs(offset=30, limit=10)
        assert (rows, total) == ([], 25)
        rows, total = await store.query_jobs(limit=0)
        assert (rows, total) == ([], 25)
        with pytest.raises(InvalidArgument):
            await store.query_jobs(offset=-1)
        with pytest.raises(InvalidArgument):
            await store.query_jobs(limit=-1)
        with pytest.raises(InvalidArgument, match="cannot order jobs by 'config'"):
            await store.query_jobs(order_by=[("config", False)])

    # ---- list_tasks ---------------------------------------------------------

    async def test_list_tasks_ranges_filters_and_pages(self, store: Storage) -> None:
        running, pending = int(TaskState.RUNNING), int(TaskState.PENDING)
        await store.write(0, 1, jobs=[job(J1), job(J2)], tasks=[
            *(task(J1, i, state=running if i % 2 else pending, host=f"h{i % 3}",
                   name="odd" if i % 2 else "even") for i in range(10)),
            task(J2, 0),
        ])
        rows, total = await store.list_tasks(J1)
        assert total == 10 and [t.instance_id for t in rows] == list(range(10))
        assert rows[3] == task(J1, 3, state=running, host="h0", name="odd")

        async def ids(**kw: object) -> tuple[list[int], int]:
            rows, total = await store.list_tasks(J1, **kw)  # type: ignore[arg-type]
            return [t.instance_id for t in rows], total

        assert await ids(instance_from=3, instance_to=6) == ([3, 4, 5], 3)
        assert await ids(instance_from=8) == ([8, 9], 2)
        assert await ids(states=[running]) == ([1, 3, 5, 7, 9], 5)
        assert await ids(names=["even"], hosts=["h0", "h1"]) == ([0, 4, 6], 3)
        assert await ids(hosts=["h2"], instance_to=6) == ([2, 5], 2)
        assert await ids(offset=2, limit=3) == ([2, 3, 4], 10)
        assert await ids(states=[running], offset=4, limit=3) == ([9], 5)
        assert await ids(limit=0) == ([], 10)
        assert await ids(offset=20) == ([], 10)
        assert await store.list_tasks(J3) == ([], 0)
        with pytest.raises(InvalidArgument):
            await store.list_tasks(J1, offset=-1)

    # ---- load_shard ---------------------------------------------------------

    async def test_load_shard_returns_that_shards_active_jobs_and_their_tasks(
        self, store: Storage
    ) -> None:
        j4 = "00000000-0000-4000-8000-000000000004"
        await store.write(0, 1, jobs=[
            job(J1, state=int(JobState.RUNNING)),
            job(J2, state=int(JobState.SUCCEEDED)),
            job(J3, state=int(JobState.KILLING)),
        ], tasks=[task(J1, 1), task(J1, 0), task(J2, 0), task(J3, 0)])
        await store.write(1, 1, jobs=[job(j4, shard=1)], tasks=[task(j4, 0)])
        jobs, tasks = await store.load_shard(0)
        assert [j.job_id for j in jobs] == [J1, J3]
        assert [(t.job_id, t.instance_id) for t in tasks] == [(J1, 0), (J1, 1), (J3, 0)]
        assert tasks[0] == task(J1, 0)
        jobs, tasks = await store.load_shard(0, active_only=False)
        assert [j.job_id for j in jobs] == [J1, J2, J3]
        assert len(tasks) == 4
        for terminal in (JobState.FAILED, JobState.KILLED, JobState.DELETED):
            await store.write(0, 1, jobs=[job(J1, state=int(terminal))])
            assert [j.job_id for j in (await store.load_shard(0))[0]] == [J3]
        assert await store.load_shard(7) == ([], [])
