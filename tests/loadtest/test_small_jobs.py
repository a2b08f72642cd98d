"""``python -m loadtest.small_jobs`` refuses bad arguments before it starts
anything (its figures need a real cluster: they are measured, not tested)."""

from __future__ import annotations

import pytest

from loadtest import small_jobs


@pytest.mark.parametrize(("argv", "words"), [
    (["--rows", "array,bogus"], "--rows: unknown row 'bogus'"),
    (["--jobs", "0"], "--jobs must be at least 1"),
    (["--clients", "0"], "--clients must be at least 1"),
    (["--hosts", "-1"], "--hosts must be at least 1"),
    (["--cli-jobs", "-5"], "--cli-jobs must not be negative"),
])
def test_bad_arguments_are_refused_naming_the_flag(
        argv: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        small_jobs.main(argv)
    assert exit_info.value.code == 2
    assert words in capsys.readouterr().err


def test_a_jobs_cpu_is_split_by_daemon_and_the_rest() -> None:
    before = {"jobmgr": 1.0, "resmgr": 2.0, "machine": 10.0}
    after = {"jobmgr": 1.5, "resmgr": 2.2, "machine": 12.0}
    assert small_jobs._per_job(before, after, 100) == {
        "jobmgr": 5.0, "resmgr": 2.0, "machine": 20.0, "rest": 13.0}
