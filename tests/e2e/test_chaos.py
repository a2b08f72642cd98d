"""A short chaos run: random SIGKILLs of every daemon kind under a load of
real processes (batch jobs, and services rolled to new versions meanwhile),
counted from markers the runs write and the processes seen alive
(``loadtest.chaos``; ``just chaos`` runs 100 kills)."""

from __future__ import annotations

import json
import pathlib

import pytest

from loadtest.chaos import main

pytestmark = pytest.mark.cluster


def test_kills_lose_nothing_run_nothing_twice_and_updates_finish(
        tmp_path: pathlib.Path) -> None:
    out = tmp_path / "chaos.json"
    # (--settle-s: a service update or a job stuck after the kills ends the
    # run with its report and the daemons' last log lines, well inside
    # pytest's timeout; they settle in seconds.)
    code = main(["--kills", "6", "--every", "2", "--jobs", "6", "--instances", "4",
                 "--submit-every", "1", "--seed", "3", "--settle-s", "90", "--out", str(out)])
    report = json.loads(out.read_text())
    assert code == 0, report
    assert report["kills"] == 6 and report["jobs_succeeded"] == 6
    assert (report["lost"], report["run_again_after_success"],
            report["overcommitted_hosts"]) == (0, 0, 0)
    # Two services of three instances, each updated one version after another.
    assert report["updates"] >= 2 and report["updates_by_state"] == {
        "SUCCEEDED": report["updates"]}
    assert (report["services_not_converged"], report["instances_doubled"],
            report["cpu_held_by_ended_runs"]) == (0, 0, 0)
    assert report["service_runs"] >= 6 * 2 and report["service_runs_seen_alive"] >= 6
