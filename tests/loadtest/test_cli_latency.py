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


def test_cli_env_caches_bytecode_and_finds_the_cluster_by_its_state_file(monkeypatch, tmp_path):
    # A process that compiles every module costs ~2x the cpu of one that
    # loads them: the benchmarks run `peloton` as an installed one runs.
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setenv("PELOTON_CLUSTER", "127.0.0.1:1")
    env = cli_latency.cli_env(tmp_path)
    assert "PYTHONDONTWRITEBYTECODE" not in env
    assert env["PYTHONPYCACHEPREFIX"] == str(tmp_path / "pycache")
    assert env["PELOTON_HOME"] == str(tmp_path) and "PELOTON_CLUSTER" not in env
    cold = cli_latency.cli_env(tmp_path, bytecode_cache=False)
    assert cold["PYTHONDONTWRITEBYTECODE"] == "1" and "PYTHONPYCACHEPREFIX" not in cold
