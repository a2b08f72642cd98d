"""A short chaos run: random SIGKILLs of every daemon kind under a load of
real processes, counted from markers the runs write (``loadtest.chaos``;
``just chaos`` runs 100 kills)."""

from __future__ import annotations

import json
import pathlib

import pytest

from loadtest.chaos import main

pytestmark = pytest.mark.cluster


def test_kills_lose_nothing_and_run_nothing_twice(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "chaos.json"
    code = main(["--kills", "6", "--every", "2", "--jobs", "6", "--instances", "4",
                 "--submit-every", "1", "--seed", "3", "--out", str(out)])
    report = json.loads(out.read_text())
    assert code == 0, report
    assert report["kills"] == 6 and report["jobs_succeeded"] == 6
    assert (report["lost"], report["run_again_after_success"],
            report["overcommitted_hosts"]) == (0, 0, 0)
