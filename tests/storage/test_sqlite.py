"""The storage contract against SQLite, plus what only SQLite has."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from pathlib import Path

import pytest
import trio
import trio.testing

from peloton.core.errors import (
    Aborted,
    AlreadyExists,
    FailedPrecondition,
    Internal,
    InvalidArgument,
    NotFound,
    PelotonError,
    Unavailable,
)
from peloton.core.states import JobState
from peloton.storage import SCHEMA_VERSION, open_sqlite
from peloton.storage.gateway import ShardWrite, Storage, TaskEventRow, TaskRow
from peloton.storage.sqlite import (
    _EVENT_COLUMNS,
    _LOAD_SHARD,
    _TASK_COLUMNS,
    _UPSERT_TASKS,
    AUTOCHECKPOINT_PAGES,
    BUSY_RETRIES,
    BUSY_RETRY_S,
    CHECKPOINT_ROWS,
    EXACT,
    GROUP_ROWS,
    INLINE_ROWS,
    STATEMENTS,
    SQLiteStorage,
    _connect,
    _Insert,
    _shards_of,
    _stored_epochs,
)

from .conformance import J1, J2, J3, OpenStore, StorageContract, event, handles, job, task


class TestSQLiteContract(StorageContract):
    @pytest.fixture
    async def open_store(self, tmp_path: Path) -> AsyncIterator[OpenStore]:
        async with handles(lambda: open_sqlite(tmp_path / "peloton.db")) as opener:
            yield opener


def test_task_and_event_rows_are_their_tables_rows() -> None:
    """Written as they are: their fields are the columns, in order."""
    assert TaskRow._fields == _TASK_COLUMNS
    assert TaskEventRow._fields == _EVENT_COLUMNS


async def test_pragmas_default_to_wal_and_normal(tmp_path: Path) -> None:
    async with await open_sqlite(tmp_path / "p.db") as store:
        assert await store.settings() == {
            "journal_mode": "wal", "synchronous": "NORMAL", "busy_timeout": 10000,
            "schema_version": SCHEMA_VERSION,
        }


def test_a_savepoints_journal_stays_in_memory(tmp_path: Path) -> None:
    """What a savepoint's changes replace is kept in memory, not spilled to
    a temp file (SQLite's default past 64 KiB): a group's writes each have
    a savepoint."""
    conn = _connect(str(tmp_path / "t.db"), "NORMAL", 1000, True)
    try:
        conn.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB)")
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO t VALUES (?, ?)", ((i, b"x" * 1000) for i in range(2000)))
        conn.execute("COMMIT")
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("SAVEPOINT one_write")
        conn.execute("UPDATE t SET v = ?", (b"y" * 1000,))  # ~500 pages' journal: 2 MB
        open_files = []
        for fd in os.listdir("/proc/self/fd"):
            with contextlib.suppress(OSError):
                open_files.append(os.readlink(f"/proc/self/fd/{fd}"))
        assert not [f for f in open_files if "etilqs_" in f]  # SQLite's temp files' names
        conn.execute("ROLLBACK")
    finally:
        conn.close()


async def test_synchronous_full_is_an_option(tmp_path: Path) -> None:
    async with await open_sqlite(tmp_path / "p.db", synchronous="full",
                                 busy_timeout=2.5) as store:
        settings = await store.settings()
        assert (settings["synchronous"], settings["busy_timeout"]) == ("FULL", 2500)


async def test_bad_synchronous_is_invalid_argument(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgument) as info:
        await open_sqlite(tmp_path / "p.db", synchronous="sometimes")
    assert info.value.field == "synchronous"


async def test_data_survives_reopening(tmp_path: Path) -> None:
    async with await open_sqlite(tmp_path / "p.db") as store:
        await store.create_job(0, 1, job(), [task()])
    async with await open_sqlite(tmp_path / "p.db") as store:
        assert await store.get_job(job().job_id) == job()
        assert await store.get_task(job().job_id, 0) == task()


async def test_locked_database_is_unavailable_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    async with await open_sqlite(path, busy_timeout=0) as store:
        other = sqlite3.connect(path, isolation_level=None)  # another process's writer
        try:
            other.execute("BEGIN IMMEDIATE")
            with pytest.raises(Unavailable, match="locked"):
                await store.write(0, 1, jobs=[job()])
            assert await store.get_job(job().job_id) is None  # readers are not blocked
            other.execute("ROLLBACK")
        finally:
            other.close()
        await store.write(0, 1, jobs=[job()])  # the connection is still usable
        assert await store.get_job(job().job_id) == job()


async def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    async with await open_sqlite(path):
        pass
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    conn.close()
    with pytest.raises(FailedPrecondition, match="schema version"):
        await open_sqlite(path)


async def test_a_file_that_is_not_a_database_is_internal(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(Internal, match="not a database"):
        await open_sqlite(path)


async def test_closed_storage_is_unavailable_and_aclose_is_idempotent(tmp_path: Path) -> None:
    store = await open_sqlite(tmp_path / "p.db")
    await store.aclose()
    await store.aclose()
    with pytest.raises(Unavailable, match="closed"):
        await store.get_job(job().job_id)


@pytest.mark.parametrize("active_only", [True, False])
async def test_load_shard_walks_the_state_index_then_task_keys(
    tmp_path: Path, active_only: bool
) -> None:
    """A new owner reads its shard's active jobs along jobs_by_state (the
    active states' ranges), not along an index led by the shard, which
    would spread every state change over a page a shard; every job of a
    shard (no production path asks) is a scan."""
    async with await open_sqlite(tmp_path / "p.db"):
        pass
    conn = sqlite3.connect(tmp_path / "p.db")
    params = ("[0, 1, 2, 3, 7, 8]", 0) if active_only else (0,)
    try:
        plans = [" | ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params))
                 for sql in _LOAD_SHARD[active_only]]
        indexes = {row[0] for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'jobs'")}
    finally:
        conn.close()
    assert "jobs_by_shard_state" not in indexes
    if active_only:
        assert "SEARCH j USING INDEX jobs_by_state (state=?)" in plans[0]
        assert "SEARCH j USING INDEX jobs_by_state (state=?)" in plans[1]
        assert "SEARCH t USING PRIMARY KEY (job_id=?)" in plans[1]
    else:
        assert "SCAN j" in plans[0]
        assert "SCAN t" in plans[1]


async def test_several_handles_open_a_new_file_at_once(tmp_path):
    """Two jobmgr processes start together on a fresh database: both open it."""
    path = tmp_path / "new.db"
    stores = []

    async def open_one() -> None:
        stores.append(await open_sqlite(path))

    async with trio.open_nursery() as nursery:
        for _ in range(6):
            nursery.start_soon(open_one)
    for store in stores:
        assert (await store.stats())["jobs"] == 0
        await store.aclose()


# ---- group commit and the reader connection ---------------------------------


class _HeldWriter:
    """Occupies the writer thread with a write that waits until ``release``."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.go = threading.Event()

    def __call__(self, conn: sqlite3.Connection) -> None:
        self.started.set()
        self.go.wait(10)

    def release(self) -> None:
        self.go.set()


async def _hold_writer(store: SQLiteStorage, nursery: trio.Nursery) -> _HeldWriter:
    held = _HeldWriter()
    # Over INLINE_ROWS: its group goes to the writer's thread (it blocks).
    nursery.start_soon(store._write, held, INLINE_ROWS + 1)
    await trio.to_thread.run_sync(held.started.wait)
    return held


async def test_writes_queued_meanwhile_commit_together(tmp_path: Path) -> None:
    groups: list[int] = []
    async with await open_sqlite(tmp_path / "p.db") as store:
        commit = store._commit_group

        def counting(group: list, begun: bool = False) -> None:  # type: ignore[type-arg]
            groups.append(len(group))
            commit(group, begun)

        store._commit_group = counting  # type: ignore[method-assign]
        await store.write(0, 1, jobs=[job(instance_count=50)])
        async with trio.open_nursery() as nursery:
            held = await _hold_writer(store, nursery)
            for i in range(50):
                nursery.start_soon(partial(store.write, 0, 1, tasks=[task(instance_id=i)]))
            await trio.testing.wait_all_tasks_blocked()
            held.release()
        assert groups == [1, 1, 50]
        assert (await store.list_tasks(J1))[1] == 50


async def test_writes_started_in_one_scheduling_round_commit_together(
        tmp_path: Path) -> None:
    """The shards' writers woken together each write: the first to find the
    writer idle lets the others run first, and one inline commit holds
    them all (it committed alone at once, and each of the others too)."""
    seen: list[bool] = []
    async with await open_sqlite(tmp_path / "p.db") as store:
        groups = _group_sizes(store)
        async with trio.open_nursery() as nursery:
            for _ in range(8):
                nursery.start_soon(store._write, _where(seen), 3)
        assert groups == [[3] * 8]
    assert seen == [True] * 8  # on the trio thread


def _group_sizes(store: SQLiteStorage) -> list[list[int]]:
    """The rows of each write of each group ``store`` commits from now on."""
    groups: list[list[int]] = []
    commit = store._commit_group

    def sizes(group: list, begun: bool = False) -> None:  # type: ignore[type-arg]
        groups.append([entry.rows for entry in group])
        commit(group, begun)

    store._commit_group = sizes  # type: ignore[method-assign]
    return groups


async def test_a_group_is_bounded_and_small_writes_go_first(tmp_path: Path) -> None:
    """Writes queued behind large ones commit first, and a group holds about
    GROUP_ROWS rows at most: a small job's create waits for one bounded
    group, not for every bulk create queued before it."""
    async with await open_sqlite(tmp_path / "p.db") as store:
        groups = _group_sizes(store)
        big = GROUP_ROWS // 2 - 10
        async with trio.open_nursery() as nursery:
            held = await _hold_writer(store, nursery)
            for k in range(4):  # bulk creates of `big` tasks each, then a small one
                nursery.start_soon(store.create_job, 0, 1, job(f"bulk{k}", instance_count=big),
                                   [task(f"bulk{k}", instance_id=i) for i in range(big)])
                await trio.testing.wait_all_tasks_blocked()
            nursery.start_soon(store.create_job, 0, 1, job("probe", instance_count=10),
                               [task("probe", instance_id=i) for i in range(10)])
            await trio.testing.wait_all_tasks_blocked()
            held.release()
        assert groups == [[INLINE_ROWS + 1], [big + 2, 12, big + 2], [big + 2, big + 2]]
        assert sorted(j.job_id for j in await store.get_jobs(
            ["bulk0", "bulk1", "bulk2", "bulk3", "probe"])) == [
            "bulk0", "bulk1", "bulk2", "bulk3", "probe"]


async def test_a_write_that_starts_a_group_without_itself_waits_for_the_next(
        tmp_path: Path) -> None:
    """A write that finds the writer idle starts the next group, which may
    not hold it (the oldest write comes first and the group is bounded):
    that group commits once, and the write goes in the one after."""
    async with await open_sqlite(tmp_path / "p.db") as store:
        groups = _group_sizes(store)

        def nothing(conn: sqlite3.Connection) -> None:
            pass

        async def small_then_large() -> None:
            await store._write(nothing, 1)
            await store._write(nothing, 4000)  # finds the writer idle, the full one queued

        async with trio.open_nursery() as nursery:
            held = await _hold_writer(store, nursery)
            nursery.start_soon(small_then_large)
            await trio.testing.wait_all_tasks_blocked()
            nursery.start_soon(store._write, nothing, GROUP_ROWS)
            await trio.testing.wait_all_tasks_blocked()
            held.release()
        assert groups == [[INLINE_ROWS + 1], [1], [GROUP_ROWS], [4000]]


def _where(seen: list[bool]) -> Callable[[sqlite3.Connection], None]:
    """A write that notes whether it ran on the trio thread."""
    return lambda conn: seen.append(threading.current_thread() is threading.main_thread())


async def test_a_small_group_commits_on_the_trio_thread_a_large_one_in_the_writers(
        tmp_path: Path) -> None:
    seen: list[bool] = []
    async with await open_sqlite(tmp_path / "p.db") as store:
        await store._write(_where(seen), INLINE_ROWS)
        await store._write(_where(seen), INLINE_ROWS + 1)
    assert seen == [True, False]
    async with await open_sqlite(tmp_path / "full.db", synchronous="FULL") as store:
        await store._write(_where(seen), 1)  # a commit that syncs: never inline
    assert seen == [True, False, False]


async def test_a_small_group_waits_in_the_thread_while_another_process_writes(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """The file's write lock taken (another jobmgr's commit) and still taken
    after BUSY_RETRIES short sleeps: the group goes to the writer's thread,
    which waits for it (busy_timeout), and lands."""
    seen: list[bool] = []
    other = sqlite3.connect(tmp_path / "p.db", isolation_level=None, check_same_thread=False)
    async with await open_sqlite(tmp_path / "p.db") as store:
        # Inline first: the writer's busy_timeout is 0 for it, and back to
        # the configured one for the thread's commit below.
        await store._write(_where(seen), 1)
        other.execute("BEGIN IMMEDIATE")
        async with trio.open_nursery() as nursery:
            nursery.start_soon(store._write, _where(seen), 1)
            tries = 0
            while not store._write_limiter.borrowed_tokens:  # in the thread at last
                await trio.testing.wait_all_tasks_blocked()
                mock_clock.jump(BUSY_RETRY_S)
                tries += 1
            assert tries == BUSY_RETRIES + 1
            assert seen == [True]
            other.execute("COMMIT")
        assert seen == [True, False]
        await store._write(_where(seen), 1)  # the lock free again: inline
        assert seen == [True, False, True]
    other.close()


async def test_a_small_group_that_finds_the_lock_taken_tries_again_inline(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """Another process's commit ends within the retries: the group commits
    on the trio thread after all, no thread hop."""
    seen: list[bool] = []
    other = sqlite3.connect(tmp_path / "p.db", isolation_level=None, check_same_thread=False)
    async with await open_sqlite(tmp_path / "p.db") as store:
        other.execute("BEGIN IMMEDIATE")
        async with trio.open_nursery() as nursery:
            nursery.start_soon(store._write, _where(seen), 1)
            await trio.testing.wait_all_tasks_blocked()  # its first try found it taken
            assert seen == [] and not store._write_limiter.borrowed_tokens
            other.execute("COMMIT")
            mock_clock.jump(BUSY_RETRY_S)
        assert seen == [True]
    other.close()


async def test_a_failing_write_alone_leaves_nothing(tmp_path: Path) -> None:
    """A write alone in its group (no savepoint) that fails after a change:
    rolled back whole, its error raised, and the next write lands."""
    def half(conn: sqlite3.Connection) -> None:
        conn.execute("INSERT INTO lockdown (component) VALUES ('Launch')")
        raise NotFound("job x not found")

    async with await open_sqlite(tmp_path / "p.db") as store:
        with pytest.raises(NotFound):
            await store._write(half, 1)
        assert await store.get_lockdown() == []
        await store.set_lockdown(["Kill"])
        assert await store.get_lockdown() == ["Kill"]


async def test_a_jobs_write_keeps_its_shard_and_creation_time(tmp_path: Path) -> None:
    """They never change, so a job's update leaves them (and the index on
    creation_time) alone; every other column is written."""
    async with await open_sqlite(tmp_path / "p.db") as store:
        await store.write(0, 1, jobs=[job(J1, creation_time=1000.0)])
        changed = job(J1, creation_time=2000.0, state=int(JobState.RUNNING), update_time=3000.0,
                      runtime=b"new")
        await store.write(0, 1, jobs=[changed])
        assert await store.get_job(J1) == changed._replace(creation_time=1000.0)


async def test_only_commits_in_the_writers_thread_checkpoint(tmp_path: Path) -> None:
    """An inline commit does not checkpoint (wal_autocheckpoint 0 for it),
    one in the thread does as SQLite does by default; after CHECKPOINT_ROWS
    rows committed inline, the next group goes to the thread."""
    async with await open_sqlite(tmp_path / "p.db") as store:
        conn = store._conn
        assert conn is not None
        seen: list[bool] = []
        for _ in range(-(-CHECKPOINT_ROWS // INLINE_ROWS) + 1):  # ceil, and one more
            await store._write(_where(seen), INLINE_ROWS)
            if seen[-1]:
                assert conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
        assert seen[:-1] == [True] * (len(seen) - 1) and seen[-1] is False
        assert conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == AUTOCHECKPOINT_PAGES
        await store._write(_where(seen), 1)
        assert seen[-1] is True


async def test_a_failing_write_is_rolled_back_alone(tmp_path: Path) -> None:
    async with await open_sqlite(tmp_path / "p.db") as store:
        await store.claim_shard(0, 2, "jobmgr-b")
        await store.create_job(0, 2, job(J1))
        outcomes: dict[str, object] = {}

        async def attempt(name: str, write: Callable[[], Awaitable[None]]) -> None:
            try:
                await write()
                outcomes[name] = "ok"
            except PelotonError as error:
                outcomes[name] = type(error).__name__

        async with trio.open_nursery() as nursery:
            held = await _hold_writer(store, nursery)
            nursery.start_soon(attempt, "stale", lambda: store.write(0, 1, jobs=[job(J2)]))
            nursery.start_soon(attempt, "duplicate",
                               lambda: store.create_job(0, 2, job(J1, name="again")))
            nursery.start_soon(attempt, "fresh", lambda: store.write(0, 2, jobs=[job(J3)]))
            await trio.testing.wait_all_tasks_blocked()
            held.release()
        assert outcomes == {"stale": "Aborted", "duplicate": "AlreadyExists", "fresh": "ok"}
        assert await store.get_jobs([J1, J2, J3]) == [job(J1), job(J3)]


async def test_a_group_that_cannot_begin_fails_every_write_in_it(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    async with await open_sqlite(path, busy_timeout=0) as store:
        other = sqlite3.connect(path, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            outcomes: list[str] = []

            async def attempt(job_id: str) -> None:
                with pytest.raises(Unavailable, match="locked") as info:
                    await store.write(0, 1, jobs=[job(job_id)])
                outcomes.append(str(info.value))

            async with trio.open_nursery() as nursery:
                for job_id in (J1, J2, J3):
                    nursery.start_soon(attempt, job_id)
            other.execute("ROLLBACK")
        finally:
            other.close()
        assert len(outcomes) == 3
        assert await store.stats() == {"jobs": 0, "tasks": 0, "events": 0, "shards": 0}


async def test_a_write_cancelled_before_its_group_starts_never_lands(tmp_path: Path) -> None:
    async with await open_sqlite(tmp_path / "p.db") as store:
        async with trio.open_nursery() as nursery:
            held = await _hold_writer(store, nursery)
            scope = trio.CancelScope()

            async def cancelled() -> None:
                with scope:
                    await store.write(0, 1, jobs=[job(J1)])
                assert scope.cancelled_caught

            nursery.start_soon(cancelled)
            await trio.testing.wait_all_tasks_blocked()
            scope.cancel()
            nursery.start_soon(partial(store.write, 0, 1, jobs=[job(J2)]))
            await trio.testing.wait_all_tasks_blocked()
            held.release()
        assert [j.job_id for j in await store.get_jobs([J1, J2])] == [J2]


async def test_reads_do_not_wait_for_the_writer(tmp_path: Path) -> None:
    async with await open_sqlite(tmp_path / "p.db") as store:
        await store.create_job(0, 1, job(), [task()])
        async with trio.open_nursery() as nursery:
            held = await _hold_writer(store, nursery)
            assert await store.get_job(J1) == job()
            assert (await store.list_tasks(J1))[1] == 1
            held.release()


@pytest.mark.parametrize("count", [1, 2, EXACT, EXACT + 1, 3 * EXACT])
async def test_ids_are_looked_up_alike_in_lists_and_json_arrays(
        tmp_path: Path, count: int) -> None:
    """A job's shard and a shard's epoch are read by an ``IN (?, ...)`` of
    up to EXACT ids and through a JSON array past that: the same rows."""
    ids = [f"{n:08x}-0000-4000-8000-000000000000" for n in range(count)]
    async with await open_sqlite(tmp_path / "p.db") as store:
        for shard in range(count):
            await store.claim_shard(shard, shard + 1, "me")
        await store.create_jobs_across([
            (n % 3, n % 3 + 1, [(job(job_id, shard=n % 3), [])]) for n, job_id in enumerate(ids)])
        conn = store._conn
        assert conn is not None
        asked = [*ids, "00000000-0000-4000-8000-00000000dead"]
        assert _shards_of(conn, asked) == {job_id: n % 3 for n, job_id in enumerate(ids)}
        shards = [*range(count), count + 7]
        assert _stored_epochs(conn, shards) == {shard: shard + 1 for shard in range(count)}


def _chunks(rows: int) -> int:
    """Statements of powers of two, at most _Insert.CHUNK rows each."""
    count = 0
    while rows:
        rows -= min(_Insert.CHUNK, 1 << (rows.bit_length() - 1))
        count += 1
    return count


async def test_rows_go_in_few_statements_of_few_shapes(tmp_path: Path) -> None:
    async with await open_sqlite(tmp_path / "p.db") as store:
        await store.write(0, 1, jobs=[job(instance_count=1000)])
        conn = store._conn
        assert conn is not None
        statements: list[str] = []
        conn.set_trace_callback(statements.append)
        for size in (1, 3, 6, 31, 32, 255, 256, 257, 700):
            statements.clear()
            rows = [task(instance_id=i, host=f"h{size}") for i in range(size)]
            rows.append(task(instance_id=0, host=f"last-{size}"))  # a later row, same key
            await store.write(0, 1, tasks=rows)
            inserts = [s for s in statements if s.startswith("INSERT INTO tasks")]
            # Up to EXACT rows in one statement; more in chunks.
            assert len(inserts) == (1 if size < EXACT else _chunks(size + 1))
            assert (await store.get_task(J1, 0)).host == f"last-{size}"  # type: ignore[union-attr]
            assert (await store.get_task(J1, size - 1)).host == (  # type: ignore[union-attr]
                f"h{size}" if size > 1 else f"last-{size}")
        conn.set_trace_callback(None)
        assert (await store.list_tasks(J1))[1] == 700
    # Each size up to EXACT, then powers of two up to 256: every text stays
    # in the connection's statement cache.
    assert set(_UPSERT_TASKS._sql) <= {*range(1, EXACT + 1), 64, 128, 256}
    assert 6 * EXACT + 100 <= STATEMENTS


async def test_open_makes_the_stores_directory(tmp_path: Path) -> None:
    """A jobmgr may start before any other daemon made the data directory."""
    path = tmp_path / "not" / "yet" / "jobs.db"
    async with await open_sqlite(path) as store:
        assert await store.stats() == {"jobs": 0, "tasks": 0, "events": 0, "shards": 0}
    assert path.exists()
    (tmp_path / "file").write_text("")
    with pytest.raises(FailedPrecondition, match="cannot make the directory"):
        await open_sqlite(tmp_path / "file" / "jobs.db")


async def test_the_gateways_default_create_jobs_across_keeps_the_contract(
        tmp_path: Path) -> None:
    """A backend without a write of its own for several shards' creates
    gets ``Storage.create_jobs_across``: a part at a time, each refused
    part answered Aborted alone."""
    async with await open_sqlite(tmp_path / "p.db") as store:
        await store.claim_shard(1, 2, "jobmgr-b")
        outcomes = await Storage.create_jobs_across(store, [
            (0, 1, [(job(J1), [task(J1, 0)]), (job(J1, name="again"), [])]),
            (1, 1, [(job(J2, shard=1), [])]),
        ])
        first = outcomes[0]
        assert isinstance(first, list) and first[0] is None
        assert isinstance(first[1], AlreadyExists)
        assert isinstance(outcomes[1], Aborted)
        assert [j.job_id for j in await store.get_jobs([J1, J2])] == [J1]


async def test_the_gateways_default_write_across_keeps_the_contract(tmp_path: Path) -> None:
    """A backend without a write of its own for several shards' batches
    gets ``Storage.write_across``: a batch at a time, each failing alone."""
    async with await open_sqlite(tmp_path / "p.db") as store:
        await store.claim_shard(1, 2, "jobmgr-b")
        outcomes = await Storage.write_across(store, [
            ShardWrite(0, 1, jobs=[job(J1)]),
            ShardWrite(1, 1, jobs=[job(J2, shard=1)]),
        ])
        assert outcomes[0] is None and isinstance(outcomes[1], Aborted)
        assert [j.job_id for j in await store.get_jobs([J1, J2])] == [J1]


async def test_a_query_of_active_states_reads_only_those_jobs(tmp_path: Path) -> None:
    """Jobs queried by active states are found by jobs_by_state, not by a
    scan of every job the store has; a query with an ended state reads its
    page along the order instead (every ended job sorted would be most of
    the store). Both answer the same as without the index."""
    active = [int(JobState.PENDING), int(JobState.RUNNING)]
    ended = [int(JobState.SUCCEEDED)]
    async with await open_sqlite(tmp_path / "p.db") as store:
        for n in range(40):
            job_id = f"{n:08x}-0000-4000-8000-000000000000"
            state = JobState.RUNNING if n % 4 == 0 else JobState.SUCCEEDED
            await store.create_job(n % 2, 1, job(job_id, shard=n % 2, state=int(state),
                                                  creation_time=1000.0 + n), [])
        conn = store._reader
        assert conn is not None
        statements: list[str] = []
        conn.set_trace_callback(statements.append)
        running, running_total = await store.query_jobs(states=active, limit=5)
        done, done_total = await store.query_jobs(states=ended, limit=5)
        conn.set_trace_callback(None)
        assert running_total == 10 and done_total == 30
        assert [r.creation_time for r in running] == [1036.0, 1032.0, 1028.0, 1024.0, 1020.0]
        assert [r.creation_time for r in done] == [1039.0, 1038.0, 1037.0, 1035.0, 1034.0]

        def plan(sql: str) -> str:
            return " / ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}"))

        selects = [s for s in statements if s.startswith("SELECT")]
        assert len(selects) == 4
        assert all("jobs_by_state" in plan(s) for s in selects[:3])  # both counts, active rows
        assert "jobs_by_state" not in plan(selects[3])  # the ended page: along the order


async def test_creates_of_several_shards_go_in_a_few_statements(tmp_path: Path) -> None:
    """Jobs created together are written a table at a time, not a
    savepoint and three inserts each; one whose id is taken still fails
    alone and leaves the others made."""
    ids = [f"{n:08x}-0000-4000-8000-000000000000" for n in range(12)]
    async with await open_sqlite(tmp_path / "p.db") as store:
        conn = store._conn
        assert conn is not None
        statements: list[str] = []
        conn.set_trace_callback(statements.append)
        outcomes = await store.create_jobs_across([
            (shard, 1, [(job(i, shard=shard), [task(i, 0)]) for i in ids[shard::3]])
            for shard in range(3)])
        assert outcomes == [[None] * 4] * 3
        inserts = [s for s in statements if s.startswith("INSERT INTO jobs")]
        assert len(inserts) <= 2 and not any("one_job" in s for s in statements)
        assert len([s for s in statements if "FROM shards" in s]) == 1  # every fence at once

        await store.create_job(0, 1, job(J1, name="first"), [])
        statements.clear()
        outcomes = await store.create_jobs_across([
            (0, 1, [(job(J2), [task(J2, 0)]), (job(J1, name="again"), [task(J1, 0)])]),
            (1, 1, [(job(J3, shard=1), [task(J3, 0)])]),
        ])
        conn.set_trace_callback(None)
        first = outcomes[0]
        assert isinstance(first, list) and first[0] is None
        assert isinstance(first[1], AlreadyExists)
        assert outcomes[1] == [None]
        assert [j.job_id for j in await store.get_jobs([J1, J2, J3])] == [J1, J2, J3]
        assert (await store.get_job(J1)).name == "first"  # type: ignore[union-attr]
        assert await store.get_task(J1, 0) is None
        assert (await store.get_task(J3, 0)) == task(J3, 0)


@contextlib.asynccontextmanager
async def _two_jobs_traced(tmp_path: Path) -> AsyncIterator[tuple[SQLiteStorage, list[str]]]:
    """A store with J1 in shard 0 and J2 in shard 1, and the statements
    its writer runs from then on."""
    async with await open_sqlite(tmp_path / "p.db") as store:
        await store.create_job(0, 1, job(J1), [task(J1, 0)])
        await store.create_job(1, 1, job(J2, shard=1), [task(J2, 0)])
        conn = store._conn
        assert conn is not None
        statements: list[str] = []
        conn.set_trace_callback(statements.append)
        try:
            yield store, statements
        finally:
            conn.set_trace_callback(None)


async def test_several_shards_batches_go_in_a_few_statements(tmp_path: Path) -> None:
    """Batches of several shards that all pass their checks are written a
    table at a time (each shard's fence still raised to its epoch); one
    that would fail sends them one at a time, so it fails alone."""
    async with _two_jobs_traced(tmp_path) as (store, statements):
        outcomes = await store.write_across([
            ShardWrite(0, 3, jobs=[job(J1, name="one")], tasks=[task(J1, 0, host="a")],
                       events=[event(J1, 0)]),
            ShardWrite(1, 1, jobs=[job(J2, shard=1, name="two")],
                       tasks=[task(J2, 0, host="b")], events=[event(J2, 0)]),
            ShardWrite(2, 1, jobs=[job(J3, shard=2)], tasks=[task(J3, 0)]),
        ])
        assert outcomes == [None, None, None]
        for table in ("jobs", "tasks", "task_events"):  # (3 rows: 2 + 1, ``_Insert``)
            assert len([s for s in statements if s.startswith(f"INSERT INTO {table} ")]) <= 2
        assert not any("one_shard" in s for s in statements)
        assert [j.name for j in await store.get_jobs([J1, J2, J3])] == ["one", "two", job(J3).name]
        assert (await store.get_task(J2, 0)).host == "b"  # type: ignore[union-attr]
        assert len(await store.task_events(J1, 0)) == 1
        with pytest.raises(Aborted):  # shard 0 is epoch 3's now
            await store.write(0, 2, jobs=[job(J1)])

        statements.clear()
        outcomes = await store.write_across([
            ShardWrite(1, 1, jobs=[job(J2, shard=1, name="again")]),
            ShardWrite(2, 1, tasks=[task("00000000-0000-4000-8000-00000000dead", 0)]),
        ])
        assert outcomes[0] is None and isinstance(outcomes[1], NotFound)
        assert any("one_shard" in s for s in statements)
        assert (await store.get_job(J2)).name == "again"  # type: ignore[union-attr]


async def test_several_shards_batches_that_disagree_on_a_job_go_alone(tmp_path: Path) -> None:
    """The fused write's checks: a job named by two shards' batches, or a
    row for a job stored in another shard, sends the batches one at a
    time (the wrong one fails alone); deleting a job that is not there
    is no reason to."""
    async with _two_jobs_traced(tmp_path) as (store, statements):

        outcomes = await store.write_across([  # J1 named by shards 0 and 1
            ShardWrite(0, 1, tasks=[task(J1, 0, host="a")]),
            ShardWrite(1, 1, events=[event(J1, 0)]),
        ])
        assert outcomes[0] is None and isinstance(outcomes[1], InvalidArgument)
        assert any("one_shard" in s for s in statements)
        assert (await store.get_task(J1, 0)).host == "a"  # type: ignore[union-attr]
        assert await store.task_events(J1, 0) == []

        statements.clear()
        outcomes = await store.write_across([  # J2 is stored in shard 1
            ShardWrite(0, 1, tasks=[task(J2, 0, host="b")]),
            ShardWrite(1, 1, tasks=[task(J2, 0, host="c")]),
        ])
        assert isinstance(outcomes[0], InvalidArgument) and outcomes[1] is None
        assert (await store.get_task(J2, 0)).host == "c"  # type: ignore[union-attr]

        statements.clear()
        outcomes = await store.write_across([
            ShardWrite(0, 1, delete_jobs=[J3]),  # not there: nothing to delete
            ShardWrite(1, 1, delete_jobs=[J2]),
        ])
        assert outcomes == [None, None]
        assert not any("one_shard" in s for s in statements)
        assert await store.get_job(J2) is None and await store.get_task(J2, 0) is None
