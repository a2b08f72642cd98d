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
