"""The storage gateway on SQLite: one file, shared by every jobmgr on the machine.

Connections and threads. Each :class:`SQLiteStorage` has two connections, a
writer and a reader, each reached from its own worker thread
(``trio.to_thread.run_sync`` under a ``CapacityLimiter(1)``). WAL mode lets
the reader run beside the writer, so reads (the API's Get, List and Query,
a Create's existence check) never queue behind write batches. (A
``:memory:`` database has one connection for both.)

Small groups commit on the trio thread. A hop to the worker thread and back
cost more than a small group's commit itself: waking the worker while
holding the GIL let the kernel run it at once, and both threads then waited
on each other (``start_thread_soon`` was a fifth of a loaded jobmgr's
held-GIL samples). A group of at most ``INLINE_ROWS`` rows commits inline
when the file's write lock is free (``BEGIN IMMEDIATE`` without a busy
wait, tried again ``BUSY_RETRIES`` times a short sleep apart while another
process holds it; still held, the group goes to the thread, which waits)
and a commit does not sync (``synchronous`` OFF or NORMAL: in WAL
mode a commit is a write to the log). An inline commit does not
checkpoint (``wal_autocheckpoint`` 0 for it; a checkpoint copies and
syncs); one in the thread does as SQLite does by default (once the log
holds 1,000 pages), and the first group after ``CHECKPOINT_ROWS`` rows
committed inline goes to the thread. 1,000 one-instance jobs from 4 API
clients (``loadtest.small_jobs --rows api``, tmpfs), alternately: 110.2
and 110.0 jobs/s with every group in the thread, 127.5 and 125.6 with the
small ones inline (a jobmgr's cpu a job 4.1-4.3 -> 3.4-3.5 ms). Up to 1,000
rows, not 64: in the single-task load a group of a hundred rows in the
thread took 10 ms at the median (75 us a row: the worker and the trio
thread handed the GIL to and fro at each row) and a shard's writer waited
for it; inline it takes a few ms, the daemons' cpu a job fell by ~8% and
the load went from 1,394 to 1,545 jobs/s (means of 4 and 6 runs).

Group commit. Writes from many trio tasks queue, and whoever finds the
writer idle commits the queued writes in one transaction, each write in a
savepoint of its own (a write alone needs none): a write that fails (a
stale epoch, a row of another shard) is rolled back alone and raises to
its caller, the others land. A
write returns only after the COMMIT that holds it. Whoever starts a group
first lets the tasks runnable at that moment run (one ``checkpoint``), so
that what they write joins it: an inline commit ran at once, alone, and
nearly every write was a transaction of its own (a BEGIN and a COMMIT
cost ~125 us of a jobmgr's trio thread on ext4). In the single-task load
that made 0.6 commits a job, 0.25 with the round, and the load ran faster
in 4 of 5 alternate pairs (e.g. 1,516 against 1,437 and 1,219 against
1,097 jobs/s). Under load this turns
dozens of small transactions (one per launch batch, event batch, create)
into one; it also takes the file's write lock far less often, which
matters when several jobmgr processes share the file. A group holds the
oldest queued write, then the small ones (a small job's create, a few
events), then the others in order, up to about ``GROUP_ROWS`` rows: so a
small write waits for one bounded group, not behind a burst of bulk
creates committed as one (a probe job's create waited up to 1.4 s, at p99,
during a burst of 100,000 tasks), and the oldest write always goes next. A write whose caller is cancelled before its group
starts is dropped; once its group has started it finishes (committed or
rolled back), and the cancellation is delivered after.

Processes. Several processes may open the same file: WAL mode lets readers
run beside the one writer. Writes take the write lock up front
(``BEGIN IMMEDIATE``) and wait up to ``busy_timeout`` for it, then raise
``Unavailable``. Reads that need two statements (a page and its total, a
shard's jobs and their tasks) run in one read transaction, so one snapshot.

Durability. ``synchronous=NORMAL`` (the default) in WAL mode survives a crash
of the process but may lose the last transactions on power loss; that is the
same promise as the Raft log, which pysyncobj does not fsync either. Storage is
the source of truth for jobs and tasks, so ``synchronous="FULL"`` (fsync per
commit) is a config option; batching rows per transaction is what keeps either
fast (reference/pysyncobj-and-costs.md §4.2).

Every write is fenced by the shard's epoch (see ``gateway``). sqlite3 errors
are translated here, once: locked/busy/full/I-O → ``Unavailable``; a duplicate
key → ``AlreadyExists``; anything else → ``Internal``.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import json
import logging
import os
import pathlib
import sqlite3
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter
from typing import Any, TypeVar, cast

import trio

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
from peloton.storage.gateway import (
    ACTIVE_EXCLUDED_JOB_STATES,
    JOB_ORDER_COLUMNS,
    JobRow,
    ShardRow,
    ShardWrite,
    Storage,
    TaskEventRow,
    TaskRow,
    UpdateRow,
)

__all__ = ["SCHEMA_VERSION", "SQLiteStorage", "open_sqlite"]

T = TypeVar("T")

log = logging.getLogger(__name__)

SCHEMA_VERSION = 6


def _rewrite_blobs(conn: sqlite3.Connection, table: str, key: str,
                   columns: dict[str, Callable[[bytes], bytes]]) -> None:
    """Rewrite ``columns`` of every row of ``table`` (each through its function)."""
    names = ", ".join(columns)
    sets = ", ".join(f"{c} = ?" for c in columns)
    last: tuple[Any, ...] = ()
    while True:
        rows = conn.execute(
            f"SELECT {key}, {names} FROM {table}"
            + (f" WHERE ({key}) > ({', '.join('?' * len(last))})" if last else "")
            + f" ORDER BY {key} LIMIT 2000", last).fetchall()
        if not rows:
            return
        width = key.count(",") + 1
        conn.executemany(
            f"UPDATE {table} SET {sets} WHERE ({key}) = ({', '.join('?' * width)})",
            [(*(fn(blob) for fn, blob in zip(columns.values(), row[width:], strict=True)),
              *row[:width]) for row in rows])
        last = tuple(rows[-1][:width])


def _wire_v2(conn: sqlite3.Connection) -> None:
    """Stored protobuf from this project's first numbering of Peloton's
    messages to upstream's (see peloton.storage.wire)."""
    from peloton.storage import wire

    _rewrite_blobs(conn, "jobs", "job_id", {"config": wire.upgrade_job_config,
                                            "runtime": wire.upgrade_job_runtime})
    _rewrite_blobs(conn, "tasks", "job_id, instance_id", {"runtime": wire.upgrade_task_runtime})


# _MIGRATIONS[v] takes a store at version v-1 to version v (0: empty file):
# SQL statements, or a function of the connection, in one write transaction.
_MIGRATIONS: dict[int, tuple[str | Callable[[sqlite3.Connection], None], ...]] = {
    1: (
        """CREATE TABLE jobs (
            job_id          TEXT PRIMARY KEY NOT NULL,
            shard           INTEGER NOT NULL,
            name            TEXT NOT NULL,
            owner           TEXT NOT NULL,
            respool_id      TEXT NOT NULL,
            state           INTEGER NOT NULL,
            goal_state      INTEGER NOT NULL,
            instance_count  INTEGER NOT NULL,
            labels          TEXT NOT NULL,      -- JSON [[key, value], ...]
            creation_time   REAL NOT NULL,
            update_time     REAL NOT NULL,
            completion_time REAL NOT NULL,
            config_version  INTEGER NOT NULL,
            config          BLOB NOT NULL,
            runtime         BLOB NOT NULL
        )""",
        "CREATE INDEX jobs_by_shard_state ON jobs (shard, state)",
        "CREATE INDEX jobs_by_creation_time ON jobs (creation_time)",
        """CREATE TABLE tasks (
            job_id      TEXT NOT NULL,
            instance_id INTEGER NOT NULL,
            run_id      INTEGER NOT NULL,
            state       INTEGER NOT NULL,
            goal_state  INTEGER NOT NULL,
            host        TEXT NOT NULL,
            name        TEXT NOT NULL,
            update_time REAL NOT NULL,
            runtime     BLOB NOT NULL,
            PRIMARY KEY (job_id, instance_id)
        ) WITHOUT ROWID""",
        """CREATE TABLE task_events (
            job_id      TEXT NOT NULL,
            instance_id INTEGER NOT NULL,
            run_id      INTEGER NOT NULL,
            state       INTEGER NOT NULL,
            timestamp   REAL NOT NULL,
            host        TEXT NOT NULL,
            message     TEXT NOT NULL
        )""",
        # timestamp last: newest-first reads of one task walk the index backwards.
        "CREATE INDEX task_events_by_task ON task_events (job_id, instance_id, timestamp)",
        """CREATE TABLE shards (
            shard       INTEGER PRIMARY KEY NOT NULL,
            epoch       INTEGER NOT NULL,
            owner       TEXT NOT NULL,
            update_time REAL NOT NULL
        )""",
    ),
    2: (_wire_v2,),
    3: (
        """CREATE TABLE job_configs (
            job_id  TEXT NOT NULL,
            version INTEGER NOT NULL,
            config  BLOB NOT NULL,
            PRIMARY KEY (job_id, version)
        ) WITHOUT ROWID""",
        # Every job's current config is its first stored version.
        "INSERT INTO job_configs (job_id, version, config) "
        "SELECT job_id, config_version, config FROM jobs",
        """CREATE TABLE updates (
            update_id   TEXT PRIMARY KEY NOT NULL,
            job_id      TEXT NOT NULL,
            state       INTEGER NOT NULL,
            create_time REAL NOT NULL,
            update_time REAL NOT NULL,
            record      TEXT NOT NULL      -- JSON, peloton.jobmgr.update
        )""",
        "CREATE INDEX updates_by_job ON updates (job_id, create_time)",
    ),
    4: (
        # AdminService's lockdown: the components every jobmgr holds back.
        "CREATE TABLE lockdown (component TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID",
    ),
    5: (
        # A query by state (a monitor's of the active jobs, `job query
        # --states`) reads the jobs in those states, newest first, not
        # every job the store ever had: jobs_by_shard_state leads with the
        # shard, so it scanned the whole table (100,000 jobs: 16 ms to
        # count 13,000 active ones and 70 ms to find them, each second).
        "CREATE INDEX jobs_by_state ON jobs (state, creation_time)",
    ),
    6: (
        # A shard's active jobs are found along jobs_by_state (its active
        # states' ranges, the shard a filter), as a new owner loads them.
        # jobs_by_shard_state spread each state change over a page a shard:
        # a commit of several shards' jobs wrote a page of it for each.
        "DROP INDEX IF EXISTS jobs_by_shard_state",
    ),
}

_SYNCHRONOUS = ("OFF", "NORMAL", "FULL", "EXTRA")

# Up to this many rows (or ids) a statement takes them one by one, in a
# text made for their number (``_Insert``, ``_where_in``): a jobmgr's small
# writes then run a statement a table, and no JSON array is made and read
# (``bench_storage --shards 16``, groups of 7 jobs: 888k instructions a
# job with JSON arrays for the ids, 857k without).
EXACT = 32
# Prepared statements a connection keeps (the sqlite3 module's default is
# 128): each _Insert's exact sizes (six tables x EXACT), the id lists'
# (two x EXACT) and the rest.
STATEMENTS = 384

# Wall-clock seconds, computed by SQLite (shards.update_time is informational).
_NOW = "((julianday('now') - 2440587.5) * 86400.0)"

_JOB_COLUMNS = (
    "job_id", "shard", "name", "owner", "respool_id", "state", "goal_state",
    "instance_count", "labels", "creation_time", "update_time", "completion_time",
    "config_version", "config", "runtime",
)
_TASK_COLUMNS = (
    "job_id", "instance_id", "run_id", "state", "goal_state", "host", "name",
    "update_time", "runtime",
)
_EVENT_COLUMNS = ("job_id", "instance_id", "run_id", "state", "timestamp", "host", "message")

_JOB_SELECT = ", ".join(_JOB_COLUMNS)
_TASK_SELECT = ", ".join(_TASK_COLUMNS)
_EVENT_SELECT = ", ".join(_EVENT_COLUMNS)


class _Insert:
    """An INSERT (or an upsert, given ``key``) of many rows in few statements.

    ``executemany`` steps once per row, and the sqlite3 module releases and
    retakes the GIL around every step. While the trio thread is busy, each
    retake waits out its switch interval: on a copy of a million-task store,
    2,000 task rows (and their events) took 3.8 s instead of 40 ms with one
    busy Python thread beside the writer. One statement of up to
    :attr:`CHUNK` rows retakes it once (190 ms under the same load). Up to
    ``EXACT`` rows go in one statement of their number; more in chunks
    of powers of two, so a few statement texts serve every batch and stay
    in the connection's statement cache (``STATEMENTS``). Rows of one
    statement apply in order, so a later row for the same key wins, as
    with ``executemany``.

    Exact sizes for small batches: with 16 shards a jobmgr's writes carry a
    few rows a table, and powers of two made 5 rows two statements (4 + 1)
    and 7 three; each statement binds, steps and resets on its own.
    ``bench_storage --shards 16``, callgrind: groups of 7 jobs 888k
    instructions a job against 953k, groups of 20 724k against 737k.
    """

    CHUNK = 256  # 15 job columns x 256 = 3,840 variables (SQLite allows 32,766)

    def __init__(self, table: str, columns: tuple[str, ...], key: tuple[str, ...] = (),
                 fixed: tuple[str, ...] = ()) -> None:
        """An upsert on ``key`` updates every column but the key's and
        ``fixed`` (a row's columns that never change)."""
        self._head = f"INSERT INTO {table} ({', '.join(columns)}) VALUES "
        self._row = f"({', '.join('?' * len(columns))})"
        updates = ", ".join(f"{c} = excluded.{c}" for c in columns
                            if c not in key and c not in fixed)
        self._tail = f" ON CONFLICT ({', '.join(key)}) DO UPDATE SET {updates}" if key else ""
        self._sql: dict[int, str] = {}

    def sql(self, rows: int) -> str:
        text = self._sql.get(rows)
        if text is None:
            text = self._sql[rows] = self._head + ", ".join([self._row] * rows) + self._tail
        return text

    def run(self, conn: sqlite3.Connection, rows: Sequence[tuple[Any, ...]]) -> None:
        if len(rows) <= EXACT:
            if rows:
                conn.execute(self.sql(len(rows)), list(chain.from_iterable(rows)))
            return
        done = 0
        while done < len(rows):
            n = min(self.CHUNK, 1 << ((len(rows) - done).bit_length() - 1))
            conn.execute(self.sql(n), list(chain.from_iterable(rows[done:done + n])))
            done += n


# A job's shard and creation time never change (a write may not move a
# job to another shard): an update that leaves them out leaves the index
# on creation_time alone, where setting them rewrote its entry each time.
_UPSERT_JOBS = _Insert("jobs", _JOB_COLUMNS, ("job_id",), fixed=("shard", "creation_time"))
_INSERT_JOBS = _Insert("jobs", _JOB_COLUMNS)
_INSERT_JOB = _INSERT_JOBS.sql(1)
_UPSERT_TASKS = _Insert("tasks", _TASK_COLUMNS, ("job_id", "instance_id"))
_INSERT_EVENTS = _Insert("task_events", _EVENT_COLUMNS)
_UPSERT_CONFIGS = _Insert("job_configs", ("job_id", "version", "config"), ("job_id", "version"))
_UPDATE_COLUMNS = ("update_id", "job_id", "state", "create_time", "update_time", "record")
_UPSERT_UPDATES = _Insert("updates", _UPDATE_COLUMNS, ("update_id",))
_update_tuple = attrgetter(*_UPDATE_COLUMNS)
# Sets of values travel as one JSON array parameter: no variable-count limit,
# one prepared statement whatever the size.
_IN_JSON = "IN (SELECT value FROM json_each(?))"

def _load_shard_sql(active_only: bool) -> tuple[str, str]:
    # Active only: along jobs_by_state (the active states' ranges), the
    # shard a filter; all: every job, the shard a filter (a scan). Then
    # tasks by primary key (job_id, ...).
    where = f"j.state {_IN_JSON} AND j.shard = ?" if active_only else "j.shard = ?"
    job_columns = ", ".join(f"j.{c}" for c in _JOB_COLUMNS)
    task_columns = ", ".join(f"t.{c}" for c in _TASK_COLUMNS)
    return (
        f"SELECT {job_columns} FROM jobs AS j WHERE {where} ORDER BY j.job_id",
        f"SELECT {task_columns} FROM jobs AS j JOIN tasks AS t ON t.job_id = j.job_id "
        f"WHERE {where} ORDER BY t.job_id, t.instance_id",
    )


# _LOAD_SHARD[active_only] = (jobs query, tasks query); parameters (shard[, terminal states]).
_LOAD_SHARD = {flag: _load_shard_sql(flag) for flag in (True, False)}

# TaskRow and TaskEventRow are named tuples of _TASK_COLUMNS and
# _EVENT_COLUMNS, in order: each is its own SQL row.
_active_json = json.dumps(sorted(int(s) for s in JobState
                                 if int(s) not in ACTIVE_EXCLUDED_JOB_STATES))


@functools.lru_cache(maxsize=1024)
def _labels_json(labels: tuple[tuple[str, str], ...]) -> str:
    """A job's labels as stored. Cached: a job row is written at each of
    its changes, with the same labels (a small job's 3-4 rows a job, each
    json.dumps ~7 us)."""
    return json.dumps([[k, v] for k, v in labels], ensure_ascii=False, separators=(",", ":"))


def _job_tuple(job: JobRow) -> tuple[Any, ...]:
    return (
        job.job_id, job.shard, job.name, job.owner, job.respool_id, job.state,
        job.goal_state, job.instance_count,
        _labels_json(tuple((k, v) for k, v in job.labels)) if job.labels else "[]",
        job.creation_time, job.update_time, job.completion_time, job.config_version,
        job.config, job.runtime,
    )


def _job_from_row(row: tuple[Any, ...]) -> JobRow:
    (job_id, shard, name, owner, respool_id, state, goal_state, instance_count, labels,
     creation_time, update_time, completion_time, config_version, config, runtime) = row
    return JobRow(
        job_id, shard, name, owner, respool_id, state, goal_state, instance_count,
        list(_labels_of(labels)) if labels != "[]" else [], creation_time,
        update_time, completion_time, config_version, config, runtime,
    )


@functools.lru_cache(maxsize=1024)
def _labels_of(stored: str) -> tuple[tuple[str, str], ...]:
    """A job's stored labels, parsed. Cached: jobs share labels, and a
    summary query of thousands of jobs parsed each job's."""
    return tuple((k, v) for k, v in json.loads(stored))


def _fold(value: object) -> str | None:
    """SQL ``peloton_fold(x)``: Unicode case folding (SQLite's lower() is ASCII-only)."""
    return value.casefold() if isinstance(value, str) else None


def _unavailable_code(name: str) -> bool:
    return name.startswith((
        "SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_FULL", "SQLITE_IOERR", "SQLITE_CANTOPEN",
        "SQLITE_PROTOCOL", "SQLITE_READONLY",
    ))


def _translate(exc: sqlite3.Error) -> PelotonError:
    """One sqlite3 error -> the project's tree (the only place this happens)."""
    name = getattr(exc, "sqlite_errorname", None) or ""
    text = f"sqlite: {exc}" + (f" ({name})" if name else "")
    if _unavailable_code(name) or (
        not name and isinstance(exc, sqlite3.OperationalError)
        and ("locked" in str(exc) or "busy" in str(exc))
    ):
        return Unavailable(text)
    if name in ("SQLITE_CONSTRAINT_PRIMARYKEY", "SQLITE_CONSTRAINT_UNIQUE"):
        return AlreadyExists(text)
    return Internal(text)


@contextlib.contextmanager
def _transaction(conn: sqlite3.Connection, mode: str) -> Iterator[None]:
    """BEGIN <mode> ... COMMIT, or ROLLBACK on any error (then re-raise)."""
    conn.execute(f"BEGIN {mode}")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _check_page(offset: int, limit: int | None) -> None:
    if offset < 0:
        raise InvalidArgument(f"must be >= 0, got {offset}", field="offset")
    if limit is not None and limit < 0:
        raise InvalidArgument(f"must be >= 0, got {limit}", field="limit")


def _fence(conn: sqlite3.Connection, shard: int, epoch: int) -> None:
    """Inside a write transaction: Aborted if ``shard`` has a higher epoch
    than ``epoch``; otherwise raise the stored epoch to ``epoch``."""
    _fence_at(conn, shard, epoch, _stored_epochs(conn, [shard]).get(shard))


def _fence_at(conn: sqlite3.Connection, shard: int, epoch: int, stored: int | None) -> None:
    """``_fence`` with the shard's stored epoch read already (None: no row)."""
    if stored is None:
        conn.execute(
            f"INSERT INTO shards (shard, epoch, owner, update_time) VALUES (?, ?, '', {_NOW})",
            (shard, epoch),
        )
    elif stored > epoch:
        raise Aborted(f"shard {shard} is owned by epoch {stored} now (write had epoch {epoch})")
    elif stored < epoch:
        conn.execute(
            f"UPDATE shards SET epoch = ?, update_time = {_NOW} WHERE shard = ?", (epoch, shard)
        )


@functools.lru_cache(maxsize=4 * EXACT)
def _in_list(head: str, n: int) -> str:
    """``head IN (?, ...)`` with ``n`` parameters."""
    return f"{head} IN ({', '.join('?' * n)})"


def _where_in(head: str, values: Collection[Any]) -> tuple[str, tuple[Any, ...]]:
    """``head IN`` ``values`` and its parameters: one a value up to EXACT
    (SQLite reads ``IN (?)`` as ``= ?``), a JSON array past that."""
    if len(values) <= EXACT:
        return _in_list(head, len(values)), tuple(values)
    return f"{head} {_IN_JSON}", (json.dumps(list(values)),)


def _stored_epochs(conn: sqlite3.Connection, shards: Sequence[int]) -> dict[int, int]:
    """The stored epoch of each of ``shards`` that has a row, in one read."""
    if not shards:
        return {}
    return dict(conn.execute(*_where_in("SELECT shard, epoch FROM shards WHERE shard", shards)))


def _shards_of(conn: sqlite3.Connection, job_ids: Collection[str]) -> dict[str, int]:
    if not job_ids:
        return {}
    return dict(conn.execute(*_where_in("SELECT job_id, shard FROM jobs WHERE job_id", job_ids)))


def _check_ownership(
    conn: sqlite3.Connection,
    shard: int,
    jobs: Sequence[JobRow],
    tasks: Sequence[TaskRow],
    events: Sequence[TaskEventRow],
    delete_jobs: Sequence[str],
    others: frozenset[str] | set[str] = frozenset(),
) -> None:
    """Every row of the write must belong to ``shard``; tasks, events and
    ``others`` (the jobs of configs and updates) must name a job that exists
    or that this write creates."""
    for job in jobs:
        if job.shard != shard:
            raise InvalidArgument(
                f"job {job.job_id} is in shard {job.shard}, not {shard}", field="jobs"
            )
    new_ids = {job.job_id for job in jobs}
    task_ids = {t.job_id for t in tasks}
    event_ids = {e.job_id for e in events}
    stored = _shards_of(conn, new_ids | task_ids | event_ids | others | set(delete_jobs))
    for job_id, stored_shard in stored.items():
        if stored_shard != shard:
            raise InvalidArgument(
                f"job {job_id} is in shard {stored_shard}, not {shard}", field="jobs"
            )
    for field, ids in (("tasks", task_ids), ("events", event_ids), ("configs", others)):
        missing = ids - new_ids - stored.keys()
        if missing:
            raise NotFound(f"job {min(missing)} not found", field=field)


def _write_fused(conn: sqlite3.Connection, writes: Sequence[ShardWrite]) -> bool:
    """Several shards' batches as one: two reads check every fence and every
    row's job, then each table takes all batches' rows in a statement or
    two. With 16 shards a jobmgr's small writes come a few shards at a time
    (``ShardEngine._lend_peers``), and each shard's took a savepoint, its
    fence, its check and its inserts: 4.4 statements a job in the
    single-task load, 3.2 written so. False, having
    written nothing, when a batch would fail (or two share a job or a
    shard): then each batch goes alone and fails alone."""
    shards = [w.shard for w in writes]
    if len(set(shards)) != len(shards):
        return False
    stored_epochs = _stored_epochs(conn, shards)
    # Every job a batch names: its batch's shard. Loops, not a set built
    # for each kind of row of each batch: with a job a task, those were
    # ~10 us a batch of a shard.
    owners: dict[str, int] = {}
    made: set[str] = set()
    for w in writes:
        shard = w.shard
        if stored_epochs.get(shard, -1) > w.epoch:
            return False
        for job in w.jobs:
            if job.shard != shard or owners.setdefault(job.job_id, shard) != shard:
                return False
            made.add(job.job_id)
        for rows in (w.tasks, w.events, w.updates):
            for row in rows:
                if owners.setdefault(row.job_id, shard) != shard:
                    return False
        for keyed in (w.configs, w.delete_tasks):
            for key in keyed:
                if owners.setdefault(key[0], shard) != shard:
                    return False
    named: Collection[str] = owners.keys()
    if any(w.delete_jobs for w in writes):
        named = set(owners)  # (as ``_check_ownership``: a job deleted need not exist)
        for w in writes:
            for job_id in w.delete_jobs:
                if owners.setdefault(job_id, w.shard) != w.shard:
                    return False
    stored = _shards_of(conn, owners.keys())
    if any(owners[job_id] != shard for job_id, shard in stored.items()):
        return False
    if len(named) > len(made) and any(
            job_id not in made and job_id not in stored for job_id in named):
        return False
    for w in writes:
        _fence_at(conn, w.shard, w.epoch, stored_epochs.get(w.shard))
    _write_rows(conn, writes)
    return True


def _write_rows(conn: sqlite3.Connection, writes: Sequence[ShardWrite]) -> None:
    """The batches' rows, checked already: each table's in a statement or
    two, then each batch's deletions (instances a workflow removed, then
    whole jobs)."""
    jobs = [_job_tuple(j) for w in writes for j in w.jobs]
    if jobs:
        _UPSERT_JOBS.run(conn, jobs)
    tasks = [t for w in writes for t in w.tasks]
    if tasks:
        _UPSERT_TASKS.run(conn, tasks)
    events = [e for w in writes for e in w.events]
    if events:
        _INSERT_EVENTS.run(conn, events)
    configs = [c for w in writes for c in w.configs]
    if configs:
        _UPSERT_CONFIGS.run(conn, configs)
    updates = [_update_tuple(u) for w in writes for u in w.updates]
    if updates:
        _UPSERT_UPDATES.run(conn, updates)
    for w in writes:
        for table in ("task_events", "tasks"):
            if w.delete_tasks:
                conn.executemany(f"DELETE FROM {table} WHERE job_id = ? AND instance_id = ?",
                                 w.delete_tasks)
        if w.delete_jobs:
            ids = (json.dumps(list(w.delete_jobs)),)
            for table in ("task_events", "tasks", "job_configs", "updates", "jobs"):
                conn.execute(f"DELETE FROM {table} WHERE job_id {_IN_JSON}", ids)


@dataclass(eq=False, slots=True)
class _Write:
    """One queued write: what it runs, its size in rows, and how it ended."""

    fn: Callable[[sqlite3.Connection], Any]
    rows: int = 1
    finished: bool = False
    result: Any = None
    error: Exception | None = None


# A group commits at most about this many rows (unless its first write alone
# is more), and writes of at most SMALL_WRITE_ROWS go first.
GROUP_ROWS = 5000
SMALL_WRITE_ROWS = 100
# A group of at most this many rows may commit on the trio thread (0.15 ms
# at the median in the single-task load, 10 ms at p99, 30 at most); after
# this many rows so, the next group commits in the thread, where SQLite
# checkpoints (its own cadence is 1,000 pages of log, ~5,000 rows).
INLINE_ROWS = 1000
CHECKPOINT_ROWS = 5000
# SQLite's default wal_autocheckpoint, which commits in the thread keep.
AUTOCHECKPOINT_PAGES = 1000
# A small group that finds the write lock taken (the jobmgrs share the
# file) tries again on the trio thread this often, this many times, before
# it goes to the thread. Another process's small commit holds the lock
# ~0.1 ms; in the single-task load ~7% of a jobmgr's groups found it
# taken, and each thread hop (the worker woken, the lock handed over)
# cost more than the commit.
BUSY_RETRIES = 3
BUSY_RETRY_S = 0.0005


def _next_group(queued: list[_Write]) -> tuple[list[_Write], list[_Write]]:
    """The writes the next transaction commits: the oldest queued, then the
    small ones, then the others in order, while the group stays within
    GROUP_ROWS; and the writes that stay queued, in order. Queued writes
    are all in flight at once, so any order of them is one their callers
    could have seen."""
    group, rows = [queued[0]], queued[0].rows
    taken = [True] + [False] * (len(queued) - 1)
    for small in (True, False):
        for k, entry in enumerate(queued[1:], 1):
            if (entry.rows <= SMALL_WRITE_ROWS) == small and rows + entry.rows <= GROUP_ROWS:
                group.append(entry)
                taken[k] = True
                rows += entry.rows
    return group, [w for w, t in zip(queued, taken, strict=True) if not t]


def _close(conn: sqlite3.Connection | None) -> None:
    if conn is not None:
        try:
            conn.close()
        except sqlite3.Error as exc:
            raise _translate(exc) from exc


class SQLiteStorage(Storage):
    """:class:`Storage` on one SQLite file; open with :func:`open_sqlite`."""

    def __init__(self, writer: sqlite3.Connection, reader: sqlite3.Connection | None, *,
                 busy_timeout_ms: int = 0, inline: bool = False) -> None:
        """Use :meth:`open`. ``reader`` None: reads use the writer's connection.
        ``inline``: small groups may commit on the trio thread (the writer's
        commits do not sync); those commits do not checkpoint."""
        self._conn: sqlite3.Connection | None = writer
        self._busy_timeout_ms = busy_timeout_ms
        # The writer's busy_timeout now: 0 while it commits on the trio
        # thread (it must not wait there), the configured one for commits in
        # its thread. Set only when that changes: two PRAGMAs a write were
        # ~8 us of a small write's ~86.
        self._writer_busy_ms = busy_timeout_ms
        self._inline = inline
        self._inline_rows = 0  # rows committed inline since the last commit in the thread
        self._autocheckpoint = AUTOCHECKPOINT_PAGES  # the writer's wal_autocheckpoint
        self._reader: sqlite3.Connection | None = reader
        self._shared = reader is None
        self._write_limiter = trio.CapacityLimiter(1)
        self._read_limiter = (trio.CapacityLimiter(1) if reader is not None
                              else self._write_limiter)
        self._queued: list[_Write] = []  # writes waiting for the next group
        self._committing = False
        self._committed = trio.Event()  # set (and replaced) when a group ends

    @classmethod
    async def open(
        cls,
        path: str | os.PathLike[str],
        *,
        synchronous: str = "NORMAL",
        busy_timeout: float = 10.0,
    ) -> SQLiteStorage:
        """Open (creating if absent, with its directory) the store at
        ``path`` and bring its schema to :data:`SCHEMA_VERSION`.

        ``synchronous`` is SQLite's PRAGMA (OFF, NORMAL, FULL, EXTRA);
        ``busy_timeout`` is how many seconds a call waits for another
        connection's lock before raising ``Unavailable``. Raises
        ``FailedPrecondition`` if the file has a newer schema than this code.
        """
        mode = synchronous.upper()
        if mode not in _SYNCHRONOUS:
            raise InvalidArgument(
                f"{synchronous!r} is not one of {', '.join(_SYNCHRONOUS)}", field="synchronous"
            )
        if busy_timeout < 0:
            raise InvalidArgument(f"must be >= 0, got {busy_timeout}", field="busy_timeout")
        path = os.fspath(path)
        timeout_ms = int(busy_timeout * 1000)
        if path != ":memory:" and not path.startswith("file:"):
            # A jobmgr may start before anything else made the cluster's
            # data directory (daemons started together, on several hosts).
            try:
                pathlib.Path(path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise FailedPrecondition(f"cannot make the directory of {path}: {error}",
                                         field="storage.path") from None
        # In WAL mode a commit syncs only with FULL or EXTRA.
        inline = mode in ("OFF", "NORMAL")
        writer = await trio.to_thread.run_sync(_connect, path, mode, timeout_ms, True)
        reader = None
        if path != ":memory:":
            try:
                reader = await trio.to_thread.run_sync(_connect, path, mode, timeout_ms, False)
            except BaseException:
                writer.close()
                raise
        return cls(writer, reader, busy_timeout_ms=timeout_ms, inline=inline)

    # ---- plumbing -----------------------------------------------------------

    async def _read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` with the reader connection in its thread."""
        return await trio.to_thread.run_sync(self._in_reader, fn, limiter=self._read_limiter)

    def _in_reader(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        conn = self._conn if self._shared else self._reader
        if conn is None:
            raise Unavailable("sqlite storage is closed")
        try:
            return fn(conn)
        except sqlite3.Error as exc:
            raise _translate(exc) from exc

    async def _write(self, fn: Callable[[sqlite3.Connection], T], rows: int = 1) -> T:
        """Run ``fn`` (of about ``rows`` rows) inside a write transaction,
        grouped with other writes queued meanwhile (see the module's doc);
        its result or error."""
        entry = _Write(fn, rows)
        self._queued.append(entry)
        try:
            while not entry.finished:
                if self._committing:
                    await self._committed.wait()
                    continue
                self._committing = True
                group: list[_Write] = []
                try:
                    # One scheduling round first: the writes that the tasks
                    # runnable now make (the shards' writers woken by one
                    # batch of Creates or events) join this group.
                    await trio.lowlevel.checkpoint()
                    group, self._queued = _next_group(self._queued)
                    rows = sum(w.rows for w in group)
                    if rows <= INLINE_ROWS and await self._begin_inline():
                        self._inline_rows += rows
                        self._commit_group(group, begun=True)
                    else:
                        # Not abandoned on cancel: a group that started finishes.
                        await trio.to_thread.run_sync(self._commit_group, group,
                                                      limiter=self._write_limiter)
                finally:
                    # What did not run (cancelled before it started) goes back
                    # in line; this caller's own write may not have been in it.
                    self._queued[:0] = [w for w in group if not w.finished]
                    self._committing = False
                    self._committed.set()
                    self._committed = trio.Event()
        except trio.Cancelled:
            if entry in self._queued:  # its group has not started: it never runs
                self._queued.remove(entry)
            raise
        if entry.error is not None:
            raise entry.error
        return cast(T, entry.result)

    async def _begin_inline(self) -> bool:
        """On the trio thread: begin the write transaction of a small group
        here if no checkpoint is due, nothing uses the writer's connection
        in a thread (a read of a shared one) and the write lock is free, or
        frees within ``BUSY_RETRIES`` short sleeps (another process's commit
        holds it; each try takes no wait); False: the group goes to the
        thread, which waits for the lock up to ``busy_timeout``."""
        for attempt in range(BUSY_RETRIES + 1):
            if attempt:
                await trio.sleep(BUSY_RETRY_S)
            conn = self._conn
            if (not self._inline or conn is None or self._inline_rows >= CHECKPOINT_ROWS
                    or self._write_limiter.borrowed_tokens):
                return False
            self._set_autocheckpoint(conn, 0)
            self._set_busy_timeout(conn, 0)
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError:  # busy: another process writes
                continue
            return True
        return False

    def _commit_group(self, group: list[_Write], begun: bool = False) -> None:
        """In the writer thread (or on the trio thread, ``begun`` by
        :meth:`_begin_inline`): one transaction, a savepoint per write of
        a group of several.
        Every entry ends with its result or its error; only what is not an
        ``Exception`` (after failing every entry) propagates."""
        conn = self._conn
        try:
            if conn is None:
                raise Unavailable("sqlite storage is closed")
            try:
                if not begun:
                    self._set_autocheckpoint(conn, AUTOCHECKPOINT_PAGES)
                    self._set_busy_timeout(conn, self._busy_timeout_ms)
                    self._inline_rows = 0
                    conn.execute("BEGIN IMMEDIATE")
                try:
                    # Alone, a write's failure is the transaction's: rolled
                    # back whole, no savepoint needed.
                    alone = len(group) == 1
                    for entry in group:
                        if not alone:
                            conn.execute("SAVEPOINT one_write")
                        try:
                            entry.result = entry.fn(conn)
                        except Exception as exc:
                            if not alone:
                                conn.execute("ROLLBACK TO one_write")
                            elif conn.in_transaction:  # (some errors end it)
                                conn.execute("ROLLBACK")
                            entry.error = (_translate(exc) if isinstance(exc, sqlite3.Error)
                                           else exc)
                        if not alone:
                            conn.execute("RELEASE one_write")
                    if conn.in_transaction:
                        conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise _translate(exc) from exc
        except BaseException as exc:  # nothing of the group landed
            failure = exc if isinstance(exc, Exception) else Internal(f"write interrupted: {exc!r}")
            for entry in group:
                entry.result, entry.error = None, copy.copy(failure)
            if failure is not exc:
                raise
        finally:
            for entry in group:
                entry.finished = True

    def _set_busy_timeout(self, conn: sqlite3.Connection, ms: int) -> None:
        """The writer's busy_timeout for its next ``BEGIN IMMEDIATE``."""
        if self._writer_busy_ms != ms:
            conn.execute(f"PRAGMA busy_timeout = {ms}")
            self._writer_busy_ms = ms

    def _set_autocheckpoint(self, conn: sqlite3.Connection, pages: int) -> None:
        """The writer's ``wal_autocheckpoint`` for its next commit: 0 for
        one on the trio thread, SQLite's default for one in its thread."""
        if self._autocheckpoint != pages:
            conn.execute(f"PRAGMA wal_autocheckpoint = {pages}")
            self._autocheckpoint = pages

    async def aclose(self) -> None:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(self._close_writer, limiter=self._write_limiter)
            if not self._shared:
                await trio.to_thread.run_sync(self._close_reader, limiter=self._read_limiter)

    def _close_writer(self) -> None:
        conn, self._conn = self._conn, None
        _close(conn)

    def _close_reader(self) -> None:
        conn, self._reader = self._reader, None
        _close(conn)

    async def settings(self) -> dict[str, str | int]:
        """The connection's effective PRAGMAs (journal_mode, synchronous, busy_timeout ms)."""

        def run(conn: sqlite3.Connection) -> dict[str, str | int]:
            sync = conn.execute("PRAGMA synchronous").fetchone()[0]
            return {
                "journal_mode": conn.execute("PRAGMA journal_mode").fetchone()[0],
                "synchronous": _SYNCHRONOUS[sync] if 0 <= sync < len(_SYNCHRONOUS) else sync,
                "busy_timeout": conn.execute("PRAGMA busy_timeout").fetchone()[0],
                "schema_version": conn.execute(
                    "SELECT version FROM schema_version"
                ).fetchone()[0],
            }

        return await self._read(run)

    # ---- shards -------------------------------------------------------------

    async def claim_shard(self, shard: int, epoch: int, owner: str) -> None:
        def run(conn: sqlite3.Connection) -> None:
            row = conn.execute("SELECT epoch FROM shards WHERE shard = ?", (shard,)).fetchone()
            if row is not None and row[0] > epoch:
                raise Aborted(
                    f"shard {shard} is owned by epoch {row[0]} now (claim had epoch {epoch})"
                )
            conn.execute(
                "INSERT INTO shards (shard, epoch, owner, update_time) "
                f"VALUES (?, ?, ?, {_NOW}) ON CONFLICT (shard) DO UPDATE SET "
                "epoch = excluded.epoch, owner = excluded.owner, "
                "update_time = excluded.update_time",
                (shard, epoch, owner),
            )

        await self._write(run)

    async def get_shard(self, shard: int) -> ShardRow | None:
        def run(conn: sqlite3.Connection) -> ShardRow | None:
            row = conn.execute(
                "SELECT shard, epoch, owner, update_time FROM shards WHERE shard = ?", (shard,)
            ).fetchone()
            return None if row is None else ShardRow(*row)

        return await self._read(run)

    # ---- writes -------------------------------------------------------------

    async def write(
        self,
        shard: int,
        epoch: int,
        *,
        jobs: Sequence[JobRow] = (),
        tasks: Sequence[TaskRow] = (),
        events: Sequence[TaskEventRow] = (),
        configs: Sequence[tuple[str, int, bytes]] = (),
        updates: Sequence[UpdateRow] = (),
        delete_jobs: Sequence[str] = (),
        delete_tasks: Sequence[tuple[str, int]] = (),
    ) -> None:
        [error] = await self.write_across([ShardWrite(
            shard, epoch, jobs=jobs, tasks=tasks, events=events, configs=configs,
            updates=updates, delete_jobs=delete_jobs, delete_tasks=delete_tasks)])
        if error is not None:
            raise error

    async def write_across(self, writes: Sequence[ShardWrite]) -> list[PelotonError | None]:
        """One write, a savepoint per shard's batch (when there are several)."""
        # Snapshot the lists: other trio tasks run while the thread works.
        writes = [ShardWrite(w.shard, w.epoch, tuple(w.jobs), tuple(w.tasks), tuple(w.events),
                             tuple(w.configs), tuple(w.updates), tuple(w.delete_jobs),
                             tuple(w.delete_tasks)) for w in writes]
        out: list[PelotonError | None] = [None] * len(writes)
        if not writes:
            return out

        def apply(conn: sqlite3.Connection, w: ShardWrite) -> None:
            _fence(conn, w.shard, w.epoch)
            _check_ownership(conn, w.shard, w.jobs, w.tasks, w.events, w.delete_jobs,
                             {c[0] for c in w.configs} | {u.job_id for u in w.updates}
                             | {job_id for job_id, _ in w.delete_tasks})
            _write_rows(conn, [w])

        def run(conn: sqlite3.Connection) -> None:
            if len(writes) == 1:  # its failure is the write's: rolled back whole
                apply(conn, writes[0])
                return
            conn.execute("SAVEPOINT all_shards")
            try:
                fused = _write_fused(conn, writes)
            except sqlite3.Error:
                fused = False
            conn.execute("RELEASE all_shards" if fused else "ROLLBACK TO all_shards")
            if fused:
                return
            conn.execute("RELEASE all_shards")
            for k, w in enumerate(writes):
                conn.execute("SAVEPOINT one_shard")
                try:
                    apply(conn, w)
                except (PelotonError, sqlite3.Error) as error:
                    conn.execute("ROLLBACK TO one_shard")
                    out[k] = _translate(error) if isinstance(error, sqlite3.Error) else error
                conn.execute("RELEASE one_shard")

        try:
            await self._write(run, rows=sum(
                1 + len(w.jobs) + len(w.tasks) + len(w.events) + len(w.configs)
                + len(w.updates) + len(w.delete_jobs) + len(w.delete_tasks) for w in writes))
        except PelotonError as error:  # the transaction's: every batch's
            return [error] if len(writes) == 1 else [copy.copy(error) for _ in writes]
        return out

    async def create_job(
        self, shard: int, epoch: int, job: JobRow, tasks: Sequence[TaskRow] = ()
    ) -> None:
        [failed] = await self.create_jobs(shard, epoch, [(job, tasks)])
        if failed is not None:
            raise failed

    async def create_jobs(
        self, shard: int, epoch: int, jobs: Sequence[tuple[JobRow, Sequence[TaskRow]]]
    ) -> list[PelotonError | None]:
        [out] = await self.create_jobs_across([(shard, epoch, jobs)])
        if isinstance(out, PelotonError):
            raise out
        return out

    async def create_jobs_across(
        self, parts: Sequence[tuple[int, int, Sequence[tuple[JobRow, Sequence[TaskRow]]]]]
    ) -> list[list[PelotonError | None] | Aborted]:
        """One write, each shard fenced once, the jobs in a statement or two a
        table (each job alone, in a savepoint, only when one of them fails)."""
        outs: list[list[PelotonError | None] | Aborted] = []
        valid: list[tuple[int, int, int, list[tuple[int, JobRow, tuple[TaskRow, ...]]]]] = []
        rows = 0
        for k, (shard, epoch, jobs) in enumerate(parts):
            out: list[PelotonError | None] = [None] * len(jobs)
            outs.append(out)
            fine = []
            for i, (job, given) in enumerate(jobs):
                tasks = tuple(given)
                other = next((t.job_id for t in tasks if t.job_id != job.job_id), None)
                if job.shard != shard:
                    out[i] = InvalidArgument(f"job {job.job_id} is in shard {job.shard}, "
                                             f"not {shard}", field="job.shard")
                elif other is not None:
                    out[i] = InvalidArgument(f"task of job {other} in create_job of "
                                             f"{job.job_id}", field="tasks")
                else:
                    fine.append((i, job, tasks))
                    rows += 2 + len(tasks)
            if fine:
                valid.append((k, shard, epoch, fine))

        def insert(conn: sqlite3.Connection, job: JobRow, tasks: tuple[TaskRow, ...]) -> None:
            try:
                conn.execute(_INSERT_JOB, _job_tuple(job))
            except sqlite3.IntegrityError as error:  # the key: no SELECT first
                if getattr(error, "sqlite_errorname", "") == "SQLITE_CONSTRAINT_PRIMARYKEY":
                    raise AlreadyExists(f"job {job.job_id} already exists") from None
                raise
            _UPSERT_CONFIGS.run(conn, [(job.job_id, job.config_version, job.config)])
            if tasks:
                # Upsert: replaces leftovers of a job id that was never cleaned up.
                _UPSERT_TASKS.run(conn, tasks)

        def run(conn: sqlite3.Connection) -> None:
            fenced: list[tuple[int, list[tuple[int, JobRow, tuple[TaskRow, ...]]]]] = []
            # Every shard's fence in one read (a batch lent several shards'
            # creates: a read a shard was 0.63 statements a job with 16).
            stored = _stored_epochs(conn, [shard for _, shard, _, _ in valid])
            for k, shard, epoch, fine in valid:
                try:
                    _fence_at(conn, shard, epoch, stored.get(shard))  # (refused: no change)
                except Aborted as refused:
                    outs[k] = refused
                    continue
                stored[shard] = max(epoch, stored.get(shard, epoch))  # (for a part after)
                fenced.append((k, fine))
            if not fenced:
                return
            # Every job, config and task in one statement per table (a few:
            # ``_Insert.CHUNK``), not five statements a job (a savepoint, its
            # three inserts, the release): in the single-task load a jobmgr
            # ran 8.1 statements a job before, 4.4 after. An id already
            # taken (a retried create) fails the jobs' statement: then each
            # job goes alone, in its own savepoint, and says which.
            conn.execute("SAVEPOINT all_jobs")
            try:
                made = [job for _, fine in fenced for _, job, _ in fine]
                _INSERT_JOBS.run(conn, [_job_tuple(job) for job in made])
                _UPSERT_CONFIGS.run(conn, [(job.job_id, job.config_version, job.config)
                                           for job in made])
                # Upsert: replaces leftovers of a job id that was never cleaned up.
                _UPSERT_TASKS.run(conn, [t for _, fine in fenced for _, _, tasks in fine
                                         for t in tasks])
            except sqlite3.Error:
                conn.execute("ROLLBACK TO all_jobs")
            else:
                conn.execute("RELEASE all_jobs")
                return
            conn.execute("RELEASE all_jobs")
            for k, fine in fenced:
                out = outs[k]
                assert isinstance(out, list)
                for i, job, tasks in fine:
                    conn.execute("SAVEPOINT one_job")
                    try:
                        insert(conn, job, tasks)
                    except (PelotonError, sqlite3.Error) as error:
                        conn.execute("ROLLBACK TO one_job")
                        out[i] = _translate(error) if isinstance(error, sqlite3.Error) else error
                    conn.execute("RELEASE one_job")

        if valid:
            await self._write(run, rows=rows)
        return outs

    # ---- reads --------------------------------------------------------------

    async def get_job(self, job_id: str) -> JobRow | None:
        def run(conn: sqlite3.Connection) -> JobRow | None:
            row = conn.execute(
                f"SELECT {_JOB_SELECT} FROM jobs WHERE job_id = ?", (job_id,)
            ).fetchone()
            return None if row is None else _job_from_row(row)

        return await self._read(run)

    async def get_jobs(self, job_ids: Sequence[str]) -> list[JobRow]:
        wanted = list(dict.fromkeys(job_ids))
        if not wanted:
            return []

        def run(conn: sqlite3.Connection) -> list[JobRow]:
            rows = conn.execute(
                f"SELECT {_JOB_SELECT} FROM jobs WHERE job_id {_IN_JSON}", (json.dumps(wanted),)
            ).fetchall()
            by_id = {row[0]: row for row in rows}
            return [_job_from_row(by_id[i]) for i in wanted if i in by_id]

        return await self._read(run)

    async def query_jobs(
        self,
        *,
        states: Sequence[int] = (),
        respool_id: str | None = None,
        owner: str | None = None,
        name: str | None = None,
        labels: Sequence[tuple[str, str]] = (),
        keywords: Sequence[str] = (),
        created: tuple[float, float] | None = None,
        completed: tuple[float, float] | None = None,
        order_by: Sequence[tuple[str, bool]] = (),
        offset: int = 0,
        limit: int = 100,
    ) -> tuple[list[JobRow], int]:
        """See :meth:`Storage.query_jobs`. An empty string in ``respool_id``,
        ``owner`` or ``name`` means no filter, as in Peloton's proto3 API.
        Case folding is Python's ``str.casefold``."""
        _check_page(offset, limit)
        where: list[str] = []
        params: list[Any] = []
        state_clause = f"state {_IN_JSON}"
        if states:
            where.append(state_clause)
            params.append(json.dumps([int(s) for s in states]))
        if respool_id:
            where.append("respool_id = ?")
            params.append(respool_id)
        if owner:
            where.append("owner = ?")
            params.append(owner)
        if name:
            where.append("instr(peloton_fold(name), ?) > 0")
            params.append(name.casefold())
        for key, value in labels:
            where.append(
                "EXISTS (SELECT 1 FROM json_each(jobs.labels) AS l "
                "WHERE json_extract(l.value, '$[0]') = ? AND json_extract(l.value, '$[1]') = ?)"
            )
            params += [key, value]
        for keyword in keywords:
            where.append(
                "(instr(peloton_fold(name), ?) > 0 OR instr(peloton_fold(owner), ?) > 0"
                " OR EXISTS (SELECT 1 FROM json_each(jobs.labels) AS l"
                " WHERE instr(peloton_fold(json_extract(l.value, '$[0]')), ?) > 0"
                " OR instr(peloton_fold(json_extract(l.value, '$[1]')), ?) > 0))"
            )
            params += [keyword.casefold()] * 4
        for column, bounds in (("creation_time", created), ("completion_time", completed)):
            if bounds is not None:
                where.append(f"{column} BETWEEN ? AND ?")
                params += list(bounds)
        for column, _ in order_by:
            if column not in JOB_ORDER_COLUMNS:
                raise InvalidArgument(f"cannot order jobs by {column!r}; by one of "
                                      f"{', '.join(JOB_ORDER_COLUMNS)}", field="order_by")
        order = ", ".join(f"{c} {'DESC' if d else 'ASC'}" for c, d in order_by) or (
            "creation_time DESC")
        clause = " AND ".join(where) if where else "1"
        # The count takes jobs_by_state (covering). The rows too when every
        # state asked for is an active one (jobs pass through those: few at
        # any time, sorted after); with an ended state (nearly every job a
        # store has) the page is read along the order (``+state``: not by
        # jobs_by_state), which stops at the page's end, where jobs_by_state
        # would have sorted every ended job.
        row_clause = clause
        if states and not ACTIVE_EXCLUDED_JOB_STATES.isdisjoint(int(s) for s in states):
            row_clause = clause.replace(state_clause, "+" + state_clause, 1)

        def run(conn: sqlite3.Connection) -> tuple[list[JobRow], int]:
            with _transaction(conn, "DEFERRED"):
                total = conn.execute(
                    f"SELECT count(*) FROM jobs WHERE {clause}", params
                ).fetchone()[0]
                if limit == 0 or offset >= total:
                    return [], total
                rows = conn.execute(
                    f"SELECT {_JOB_SELECT} FROM jobs WHERE {row_clause} "
                    f"ORDER BY {order}, job_id LIMIT {int(limit)} OFFSET {int(offset)}",
                    params,
                ).fetchall()
            return [_job_from_row(r) for r in rows], total

        return await self._read(run)

    async def get_job_configs(self, job_id: str) -> dict[int, bytes]:
        def run(conn: sqlite3.Connection) -> dict[int, bytes]:
            return {version: bytes(config) for version, config in conn.execute(
                "SELECT version, config FROM job_configs WHERE job_id = ?", (job_id,))}

        return await self._read(run)

    async def jobs_changed(self, since: float) -> list[JobRow]:
        def run(conn: sqlite3.Connection) -> list[JobRow]:
            return [_job_from_row(r) for r in conn.execute(
                f"SELECT {_JOB_SELECT} FROM jobs WHERE update_time > ? ORDER BY update_time",
                (since,))]

        return await self._read(run)

    async def tasks_changed(self, job_id: str, since: float) -> list[TaskRow]:
        def run(conn: sqlite3.Connection) -> list[TaskRow]:
            return [TaskRow(*r) for r in conn.execute(
                f"SELECT {_TASK_SELECT} FROM tasks WHERE job_id = ? AND update_time > ? "
                "ORDER BY update_time", (job_id, since))]

        return await self._read(run)

    async def get_lockdown(self) -> list[str]:
        def run(conn: sqlite3.Connection) -> list[str]:
            return [c for (c,) in conn.execute(
                "SELECT component FROM lockdown ORDER BY component")]

        return await self._read(run)

    async def set_lockdown(self, components: Sequence[str]) -> None:
        wanted = sorted(set(components))

        def run(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM lockdown")
            conn.executemany("INSERT INTO lockdown (component) VALUES (?)",
                             [(c,) for c in wanted])

        await self._write(run)

    async def get_update(self, update_id: str) -> UpdateRow | None:
        def run(conn: sqlite3.Connection) -> UpdateRow | None:
            row = conn.execute(f"SELECT {', '.join(_UPDATE_COLUMNS)} FROM updates "
                               "WHERE update_id = ?", (update_id,)).fetchone()
            return UpdateRow(*row) if row else None

        return await self._read(run)

    async def list_updates(self, job_id: str, *, limit: int = 100) -> list[UpdateRow]:
        _check_page(0, limit)

        def run(conn: sqlite3.Connection) -> list[UpdateRow]:
            return [UpdateRow(*r) for r in conn.execute(
                f"SELECT {', '.join(_UPDATE_COLUMNS)} FROM updates WHERE job_id = ? "
                "ORDER BY create_time DESC, rowid DESC LIMIT ?", (job_id, limit))]

        return await self._read(run)

    async def get_task(self, job_id: str, instance_id: int) -> TaskRow | None:
        def run(conn: sqlite3.Connection) -> TaskRow | None:
            row = conn.execute(
                f"SELECT {_TASK_SELECT} FROM tasks WHERE job_id = ? AND instance_id = ?",
                (job_id, instance_id),
            ).fetchone()
            return None if row is None else TaskRow(*row)

        return await self._read(run)

    async def list_tasks(
        self,
        job_id: str,
        *,
        instance_from: int = 0,
        instance_to: int | None = None,
        states: Sequence[int] = (),
        names: Sequence[str] = (),
        hosts: Sequence[str] = (),
        offset: int = 0,
        limit: int | None = None,
    ) -> tuple[list[TaskRow], int]:
        _check_page(offset, limit)
        where = ["job_id = ?", "instance_id >= ?"]
        params: list[Any] = [job_id, instance_from]
        if instance_to is not None:
            where.append("instance_id < ?")
            params.append(instance_to)
        for column, values in (("state", [int(s) for s in states]), ("name", list(names)),
                               ("host", list(hosts))):
            if values:
                where.append(f"{column} {_IN_JSON}")
                params.append(json.dumps(values))
        clause = " AND ".join(where)
        page = -1 if limit is None else int(limit)

        def run(conn: sqlite3.Connection) -> tuple[list[TaskRow], int]:
            with _transaction(conn, "DEFERRED"):
                total = conn.execute(
                    f"SELECT count(*) FROM tasks WHERE {clause}", params
                ).fetchone()[0]
                if page == 0 or offset >= total:
                    return [], total
                rows = conn.execute(
                    f"SELECT {_TASK_SELECT} FROM tasks WHERE {clause} "
                    f"ORDER BY instance_id LIMIT {page} OFFSET {int(offset)}",
                    params,
                ).fetchall()
            return [TaskRow(*r) for r in rows], total

        return await self._read(run)

    async def task_events(
        self, job_id: str, instance_id: int, *, limit: int = 100,
        runs: tuple[int, int] | None = None,
    ) -> list[TaskEventRow]:
        _check_page(0, limit)
        low, high = runs if runs is not None else (0, 2**62)

        def run(conn: sqlite3.Connection) -> list[TaskEventRow]:
            rows = conn.execute(
                f"SELECT {_EVENT_SELECT} FROM task_events WHERE job_id = ? AND instance_id = ? "
                "AND run_id BETWEEN ? AND ? ORDER BY timestamp DESC, rowid DESC LIMIT ?",
                (job_id, instance_id, low, high, limit),
            ).fetchall()
            return [TaskEventRow(*r) for r in rows]

        return await self._read(run)

    async def delete_task_events(
        self, shard: int, epoch: int, job_id: str, instance_id: int, *, up_to_run: int
    ) -> int:
        def run(conn: sqlite3.Connection) -> int:
            _fence(conn, shard, epoch)
            row = conn.execute("SELECT shard FROM jobs WHERE job_id = ?", (job_id,)).fetchone()
            if row is None:
                raise NotFound(f"job {job_id} does not exist")
            if row[0] != shard:
                raise InvalidArgument(f"job {job_id} is in shard {row[0]}, not {shard}",
                                      field="job_id")
            return conn.execute(
                "DELETE FROM task_events WHERE job_id = ? AND instance_id = ? AND run_id <= ?",
                (job_id, instance_id, up_to_run)).rowcount

        return await self._write(run)

    async def load_shard(
        self, shard: int, *, active_only: bool = True
    ) -> tuple[list[JobRow], list[TaskRow]]:
        jobs_sql, tasks_sql = _LOAD_SHARD[active_only]
        params: tuple[Any, ...] = (_active_json, shard) if active_only else (shard,)

        def run(conn: sqlite3.Connection) -> tuple[list[JobRow], list[TaskRow]]:
            with _transaction(conn, "DEFERRED"):
                job_rows = conn.execute(jobs_sql, params).fetchall()
                task_rows = conn.execute(tasks_sql, params).fetchall()
            return [_job_from_row(r) for r in job_rows], [TaskRow(*r) for r in task_rows]

        return await self._read(run)

    async def stats(self) -> dict[str, int]:
        def run(conn: sqlite3.Connection) -> dict[str, int]:
            with _transaction(conn, "DEFERRED"):
                return {
                    key: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                    for key, table in (("jobs", "jobs"), ("tasks", "tasks"),
                                       ("events", "task_events"), ("shards", "shards"))
                }

        return await self._read(run)


def _connect(path: str, synchronous: str, busy_timeout_ms: int, writer: bool) -> sqlite3.Connection:
    """In a worker thread: connect and set PRAGMAs; the writer first brings
    the schema up to date (so the reader, opened after it, finds it)."""
    try:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False,
                               cached_statements=STATEMENTS)
    except sqlite3.Error as exc:
        raise _translate(exc) from exc
    try:
        conn.execute(f"PRAGMA busy_timeout = {busy_timeout_ms}")
        mode = _journal_mode_wal(conn, busy_timeout_ms)
        if mode.lower() != "wal" and path != ":memory:":
            raise FailedPrecondition(f"sqlite at {path} refused WAL mode (got {mode})")
        conn.execute(f"PRAGMA synchronous = {synchronous}")
        conn.execute("PRAGMA foreign_keys = OFF")
        # A savepoint's journal (a write's in a group, each create's in a
        # batch) spilled to a temp file past 64 KiB: in the single-task load
        # a jobmgr made 15 files a second and wrote 3,750 pages a second to
        # them, 2.6% of its cpu. In memory it is what the write changed.
        conn.execute("PRAGMA temp_store = MEMORY")
        conn.create_function("peloton_fold", 1, _fold, deterministic=True)
        if writer:
            _migrate(conn, path)
    except BaseException as exc:
        conn.close()
        if isinstance(exc, sqlite3.Error):
            raise _translate(exc) from exc
        raise
    return conn


def _journal_mode_wal(conn: sqlite3.Connection, busy_timeout_ms: int) -> str:
    """Switch to WAL. Switching needs an exclusive lock and SQLite answers
    SQLITE_BUSY at once (no busy handler) while another process opens the
    same new file, so retry until the busy timeout. (In the worker thread.)"""
    give_up = time.monotonic() + busy_timeout_ms / 1000
    while True:
        try:
            return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc).lower():
                raise
            if time.monotonic() > give_up:
                raise
            time.sleep(0.02)


def _migrate(conn: sqlite3.Connection, path: str) -> None:
    """Bring the schema to SCHEMA_VERSION in one write transaction (several
    processes opening one new file at once: the first creates, the rest see it)."""
    with _transaction(conn, "IMMEDIATE"):
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
        version = row[0] or 0
        if version > SCHEMA_VERSION:
            raise FailedPrecondition(
                f"sqlite at {path} has schema version {version}; "
                f"this code knows up to {SCHEMA_VERSION}"
            )
        for target in range(version + 1, SCHEMA_VERSION + 1):
            if version and target > 1:
                log.warning("sqlite at %s: migrating schema version %d to %d", path,
                            target - 1, target)
            for statement in _MIGRATIONS[target]:
                if callable(statement):
                    statement(conn)
                else:
                    conn.execute(statement)
        if version < SCHEMA_VERSION:
            conn.execute("DELETE FROM schema_version")
            conn.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))


async def open_sqlite(
    path: str | os.PathLike[str], *, synchronous: str = "NORMAL", busy_timeout: float = 10.0
) -> SQLiteStorage:
    """Open the SQLite store at ``path``; see :meth:`SQLiteStorage.open`."""
    return await SQLiteStorage.open(path, synchronous=synchronous, busy_timeout=busy_timeout)
