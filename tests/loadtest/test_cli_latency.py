"""``python -m loadtest.cli_latency`` refuses bad arguments before starting
anything, and its p90 is the nearest rank (the figures themselves need a
real cluster: they are measured, not tested)."""

from __future__ import annotations

import pytest

from loadtest import cli_latency


def test_repeat_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli_latency.main(["--repeat", "0"])
    assert exit_info.value.code == 2
    assert "--repeat must be at least 1" in capsys.readouterr().err


def test_p90_is_the_nearest_rank() -> None:
    assert cli_latency.p90([float(n) for n in range(10, 0, -1)]) == 9.0
    assert cli_latency.p90([5.0]) == 5.0
    assert cli_latency.p90([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0]) == 10.0
