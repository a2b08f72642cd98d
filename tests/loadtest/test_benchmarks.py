"""The side benchmarks (``python -m loadtest.small_jobs``,
``python -m loadtest.bench_rpc``, ``python -m loadtest.bench_local``,
``python -m loadtest.bench_resmgr``, ``python -m loadtest.bench_tasks``,
``python -m loadtest.bench_storage``, ``python -m loadtest.bench_engine``) refuse bad arguments before they start
anything; their figures are measured, not tested."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import trio

from loadtest import (
    bench_engine,
    bench_local,
    bench_resmgr,
    bench_rpc,
    bench_storage,
    bench_tasks,
    small_jobs,
)
from peloton.core.states import JobState, TaskState
from peloton.storage.sqlite import SQLiteStorage


@pytest.mark.parametrize(("main", "argv", "words"), [
    (small_jobs.main, ["--rows", "array,lone,bogus"], "--rows: unknown row 'bogus'"),
    (small_jobs.main, ["--jobs", "0"], "--jobs must be at least 1"),
    (small_jobs.main, ["--clients", "0"], "--clients must be at least 1"),
    (small_jobs.main, ["--hosts", "-1"], "--hosts must be at least 1"),
    (small_jobs.main, ["--cli-jobs", "-5"], "--cli-jobs must not be negative"),
    (small_jobs.main, ["--lone-jobs", "0"], "--lone-jobs must be at least 1"),
    (bench_rpc.main, ["--calls", "0"], "--calls must be at least 1"),
    (bench_rpc.main, ["--concurrency", "1,x"], "--concurrency: expected numbers like 1,16"),
    (bench_rpc.main, ["--concurrency", "0"], "--concurrency: each level must be at least 1"),
    (bench_rpc.main, ["--concurrency", ","], "--concurrency: each level must be at least 1"),
    (bench_local.main, ["--runs", "0"], "--runs must be at least 1"),
    (bench_local.main, ["--batch", "-1"], "--batch must be at least 1"),
    (bench_resmgr.main, ["--repeat", "0"], "--repeat must be at least 1"),
    (bench_resmgr.main, ["--one-task-jobs", "-1"], "--one-task-jobs must not be negative"),
    (bench_tasks.main, ["--repeat", "0"], "--repeat must be at least 1"),
    (bench_tasks.main, ["--instances", "0"], "--instances must be at least 1"),
    (bench_tasks.main, ["--jobs", "0"], "--jobs must be at least 1"),
    (bench_storage.main, ["--jobs", "0"], "--jobs must be at least 1"),
    (bench_storage.main, ["--group", "0"], "--group must be at least 1"),
    (bench_storage.main, ["--repeat", "-2"], "--repeat must be at least 1"),
    (bench_storage.main, ["--shards", "0"], "--shards must be at least 1"),
    (bench_engine.main, ["--jobs", "0"], "--jobs must be at least 1"),
    (bench_engine.main, ["--group", "-1"], "--group must be at least 1"),
    (bench_engine.main, ["--shards", "1,0"], "--shards must be at least 1"),
    (bench_engine.main, ["--shards", "1,x"], "--shards: expected numbers like 1,8"),
])
def test_bad_arguments_are_refused_naming_the_flag(
        main: Callable[[list[str]], int], argv: list[str], words: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert words in capsys.readouterr().err


def test_counting_instructions_needs_callgrind(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(bench_rpc.shutil, "which", lambda name: None)
    with pytest.raises(SystemExit) as exit_info:
        bench_rpc.main(["--instructions"])
    assert exit_info.value.code == 2
    assert "--instructions needs valgrind" in capsys.readouterr().err


def test_a_callgrind_files_count_is_read(tmp_path: Path) -> None:
    dump = tmp_path / "server.out.1"
    dump.write_text("# callgrind format\nversion: 1\nevents: Ir\nsummary: 563296809\n"
                    "fn=main\n0 12\n")
    assert bench_rpc.callgrind_total(str(dump)) == 563296809
    (tmp_path / "end.out").write_text("events: Ir\nfn=x\n0 3\ntotals: 42\n")
    assert bench_rpc.callgrind_total(str(tmp_path / "end.out")) == 42
    (tmp_path / "other").write_text("not one\n")
    with pytest.raises(ValueError, match="not a callgrind output file"):
        bench_rpc.callgrind_total(str(tmp_path / "other"))


def test_a_jobs_cpu_is_split_by_daemon_and_the_rest() -> None:
    before = {"jobmgr": 1.0, "resmgr": 2.0, "machine": 10.0}
    after = {"jobmgr": 1.5, "resmgr": 2.2, "machine": 12.0}
    assert small_jobs._per_job(before, after, 100) == {
        "jobmgr": 5.0, "resmgr": 2.0, "machine": 20.0, "rest": 13.0}


def test_a_rows_raft_commands_are_counted_per_job_by_kind() -> None:
    from peloton.api.private.cluster import cluster_pb2

    before = cluster_pb2.Stats(commands={"gangs.enqueue": 10, "tasks.update": 4},
                               commandItems={"gangs.enqueue": 10, "tasks.update": 9})
    after = cluster_pb2.Stats(commands={"gangs.enqueue": 30, "tasks.update": 4,
                                        "placements.set": 5},
                              commandItems={"gangs.enqueue": 110, "tasks.update": 9,
                                            "placements.set": 100})
    assert small_jobs._raft_per_job(before, after, 100) == {
        "all": (0.25, 2.0), "gangs.enqueue": (0.2, 1.0), "placements.set": (0.05, 1.0)}


def test_repeated_runs_report_each_commands_least_time(
        capsys: pytest.CaptureFixture[str]) -> None:
    bench_resmgr.main(["--jobs", "2", "--instances", "10", "--cycles", "2", "--batch", "5",
                       "--repeat", "2"])
    out = capsys.readouterr().out
    assert out.count("tracked 20 tasks") == 2  # two fresh runs
    assert "gangs.enqueue" in out and "(ms each: the least of 2 runs" in out


def test_one_task_jobs_each_go_through_their_own_commands_and_end() -> None:
    bench = bench_resmgr.Bench()
    bench.setup()
    assert bench.one_task_jobs(3) > 0
    assert bench.calls["gangs.enqueue"] == 3 and bench.calls["tasks.update"] == 6
    assert not bench.state.tasks  # every run ended, and resmgr let go of it


def test_the_task_paths_are_measured_on_a_launch_the_host_manager_accepts(
        capsys: pytest.CaptureFixture[str]) -> None:
    bench_tasks.main(["--instances", "20", "--jobs", "10", "--repeat", "1"])
    out = capsys.readouterr().out
    assert "launches of 200 tasks on 100 hosts" in out
    for row in ("row", "event", "enqueue", "launch build", "launch handle"):
        assert f"\n  {row} " in out


@pytest.mark.parametrize("shards", [1, 4])
def test_the_storage_replay_takes_every_job_to_its_end(tmp_path: Path, shards: int) -> None:
    """What ``bench_storage`` times is a one-task job's whole life in the
    store: each job SUCCEEDED, its task through three states with an event
    each, whichever kind of job id, and in its own shard's part of each
    write when there are several."""
    for n, ids in enumerate((bench_storage.new_job_id, bench_storage.random_job_id)):
        path = tmp_path / f"jobs-{n}.db"
        trio.run(bench_storage.replay, path, ids, 7, 3, shards)

        async def read(path: Path = path) -> None:
            store = await SQLiteStorage.open(path)
            try:
                jobs, total = await store.query_jobs()
                assert total == 7 and {j.state for j in jobs} == {JobState.SUCCEEDED}
                assert {j.shard for j in jobs} <= set(range(shards))
                for job in jobs:
                    [task], _ = await store.list_tasks(job.job_id)
                    assert task.state == TaskState.SUCCEEDED
                    events = await store.task_events(job.job_id, 0)
                    assert sorted(e.state for e in events) == sorted(
                        [TaskState.LAUNCHED, TaskState.RUNNING, TaskState.SUCCEEDED])
            finally:
                await store.aclose()

        trio.run(read)


def test_small_jobs_rows_name_what_they_count() -> None:
    """The array row counts one job's tasks; the others count jobs."""
    succeeded: dict[str, int] = {"a": small_jobs.job_pb2.SUCCEEDED}
    array = small_jobs._row("array", 1000, 2.5, succeeded, unit="tasks")
    array["succeeded"] = 1000
    assert small_jobs._summary(array) == (
        "array: 1000 tasks of one job in 2.50 s = 400.0 tasks/s (1000 succeeded)")
    four: dict[str, int] = dict.fromkeys("abcd", small_jobs.job_pb2.SUCCEEDED)
    api = small_jobs._row("api", 4, 0.5, four)
    api.update(create_ms_p50=3.1, create_ms_p99=9.0, create_ms_mean=4.0, submit_s=0.2)
    assert small_jobs._summary(api) == (
        "api: 4 jobs in 0.50 s = 8.0 jobs/s (4 succeeded); "
        "creates p50/p99/mean 3.1/9.0/4.0 ms, submitted in 0.2 s")


@pytest.mark.parametrize("shards", [1, 3])
def test_the_engine_replay_takes_every_job_to_its_end_in_its_shard(
        tmp_path: Path, shards: int) -> None:
    """What ``bench_engine`` times is a one-task job's whole life through a
    jobmgr's writers: created, placed, RUNNING and SUCCEEDED in the store,
    each job in the shard its group gave it."""
    cpu = trio.run(bench_engine.replay, tmp_path, shards, 4, 10)
    assert cpu > 0

    async def read() -> None:
        store = await SQLiteStorage.open(tmp_path / "jobs.db")
        try:
            jobs, total = await store.query_jobs()
            assert total == 10 and {j.state for j in jobs} == {JobState.SUCCEEDED}
            assert {j.shard for j in jobs} == set(range(shards))
            for job in jobs:
                [task], _ = await store.list_tasks(job.job_id)
                assert task.state == TaskState.SUCCEEDED
                events = await store.task_events(job.job_id, 0)
                assert TaskState.RUNNING in {e.state for e in events}
        finally:
            await store.aclose()

    trio.run(read)
