"""The scaling table of ``python -m loadtest.compare``."""

from __future__ import annotations

import json
import pathlib

import pytest

from loadtest import compare


def report(scenario: str, hosts: int, tasks: int, cpu: float, rss: int) -> dict:
    return {"scenario": scenario, "hosts": hosts, "tasks_total": tasks, "wall_s": 10.0,
            "running_per_s": 1000.0, "create_to_running_p50_s": 1.5,
            "create_to_running_p99_s": 3.0, "probe_running_p99_s": 0.5,
            "bytes_per_task_tracked": 2000.0, "correct": True,
            "daemons": {"resmgr-0": {"cpu_s": cpu, "peak_rss_bytes": rss},
                        "jobmgr-0": {"cpu_s": cpu, "peak_rss_bytes": rss // 2}}}


def test_rows_are_sorted_by_size_with_cost_per_task(tmp_path: pathlib.Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    big, small = tmp_path / "big", tmp_path / "small"
    for path, data in ((big, report("big", 10_000, 100_000, 50.0, 2**30)),
                       (small, report("small", 1_000, 10_000, 2.0, 2**28))):
        path.mkdir()
        (path / "report.json").write_text(json.dumps(data))
    assert compare.main([str(big), str(small / "report.json"), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["scenario"] for r in rows] == ["small", "big"]
    assert rows[1]["cpu_ms_per_task"] == pytest.approx(1.0)  # 100 CPU-s / 100k tasks
    assert rows[1]["max_rss_mib"] == 1024 and rows[1]["max_rss_daemon"] == "resmgr-0"
    assert compare.main([str(small)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("| scenario | hosts | tasks |")
    assert "| small | 1,000 | 10,000 |" in lines[2]


def test_a_path_without_a_report_is_named(tmp_path: pathlib.Path) -> None:
    with pytest.raises(SystemExit, match=r"report\.json"):
        compare.main([str(tmp_path)])


def test_the_gauge_is_the_pace_times_the_host_managers_cpu_a_task(
        tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = report("single", 10_000, 100_000, 20.0, 2**28)
    data["running_per_s"] = 2_000.0
    data["daemons"].update({"hostmgr-0": {"cpu_s": 3.0, "peak_rss_bytes": 1},
                            "hostmgr-1": {"cpu_s": 3.5, "peak_rss_bytes": 1}})
    (tmp_path / "report.json").write_text(json.dumps(data))
    assert compare.main([str(tmp_path), "--json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["hostmgr_ms_per_task"] == pytest.approx(0.065)  # 6.5 CPU-s / 100k tasks
    assert row["gauge"] == pytest.approx(130.0)
    assert compare.main([str(tmp_path), "--gauge"]) == 0
    header, _, line = capsys.readouterr().out.splitlines()
    assert header.endswith("| hostmgr CPU ms/task | gauge |")
    assert line.endswith("| 0.065 | 130 |")
    assert compare.main([str(tmp_path)]) == 0  # the table without --gauge is as it was
    assert "gauge" not in capsys.readouterr().out


def test_a_run_without_host_managers_has_no_gauge(tmp_path: pathlib.Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "report.json").write_text(json.dumps(report("x", 10, 10, 1.0, 1)))
    assert compare.main([str(tmp_path), "--gauge"]) == 0
    assert capsys.readouterr().out.splitlines()[2].endswith("| - | - |")
