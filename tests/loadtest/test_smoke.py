"""The ``smoke`` scenario end to end on real daemons: correctness, never speed."""

from __future__ import annotations

import io
import json
import pathlib

import pytest

from loadtest.harness import LoadTest
from loadtest.report import STABLE_KEYS, format_table
from loadtest.scenario import load
from peloton.rpc import client as rpc_client

pytestmark = pytest.mark.cluster


@pytest.mark.timeout(240)
def test_smoke_scenario_runs_correctly(tmp_path: pathlib.Path) -> None:
    """With ``--secure``: TLS, a user and the cluster secret on every call
    and the Raft password (the plain path differs only in the file)."""
    run_dir = tmp_path / "run"
    progress = io.StringIO()
    report = LoadTest(load("smoke"), run_dir, stream=progress, secure=True).run()
    # What it configured for its calls is undone: this process's next
    # channels are plain again (the rest of the suite shares it).
    assert (rpc_client._SSL, rpc_client._METADATA) == (None, [])

    problems = report["problems"]
    assert report["tasks_total"] > 0, problems
    assert report["tasks_completed"] == report["tasks_total"], problems
    assert report["tasks_lost"] == 0, problems
    assert report["duplicate_runs"] == 0, problems
    assert report["overcommitted_hosts"] == 0, problems
    assert report["correct"] and not report["timed_out"], problems
    assert report["bulk_tasks"] == load("smoke").bulk_tasks
    services = report["services"]
    assert services["updates"] == {"SUCCEEDED": 2}, problems
    assert services["within_sla"] and services["preempting_seen"] == 0, services

    written = json.loads((run_dir / "report.json").read_text())
    for key in STABLE_KEYS:
        assert key in written, key
    assert set(written["daemons"]) == {
        "resmgr-0", "resmgr-1", "resmgr-2", "jobmgr-0", "jobmgr-1", "placement-0",
        "placement-1", "hostmgr-0"}
    for figures in written["daemons"].values():
        assert figures["cpu_s"] is not None and figures["peak_rss_bytes"] > 0
    # Where the probes' time went, in the order a task goes there.
    stages = written["probe_stages_s"]
    assert list(stages) == ["stored", "placed", "running"]
    assert -0.01 < stages["stored"]["p50"] <= stages["placed"]["p50"] <= stages["running"]["p50"]
    assert "probe placed" in format_table(written)
    # How long the bulk jobs' Creates took to be answered.
    answered = written["create_answered_s"]
    assert 0 < answered["p50"] <= answered["p99"] <= answered["max"]
    assert "Create answered" in format_table(written)
    # The leader's time applying each kind of command.
    applied = written["raft_commands"]["gangs.enqueue"]
    assert applied["commands"] > 0 and applied["apply_s"] > 0
    assert "apply, s (ms each)" in format_table(written)
    samples = json.loads((run_dir / "timeseries.json").read_text())["samples"]
    assert samples and samples[-1]["completed"] >= report["bulk_tasks"]
    assert "submitted" in progress.getvalue()
    assert "loadtest smoke: OK" in format_table(written)
    # the cluster was stopped
    assert not (run_dir / "state.json").exists()
