"""``python -m loadtest.bench_rpc`` refuses bad arguments before it starts
its server (its figures are measured, not tested)."""

from __future__ import annotations

import pytest

from loadtest import bench_rpc


@pytest.mark.parametrize(("argv", "words"), [
    (["--calls", "0"], "--calls must be at least 1"),
    (["--concurrency", "1,x"], "--concurrency: expected numbers like 1,16"),
    (["--concurrency", "0"], "--concurrency: each level must be at least 1"),
    (["--concurrency", ","], "--concurrency: each level must be at least 1"),
])
def test_bad_arguments_are_refused_naming_the_flag(
        argv: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        bench_rpc.main(argv)
    assert exit_info.value.code == 2
    assert words in capsys.readouterr().err
