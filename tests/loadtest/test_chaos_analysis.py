"""What ``loadtest.chaos`` counts, from markers written by hand: the
counts must catch what they name (a run is not seen twice by mistake, and
an overlap is not missed)."""

from __future__ import annotations

import pathlib

from loadtest.chaos import Services, analyse

JOB = "0190a0a0-0000-7000-8000-000000000001"


def services(markers: pathlib.Path, lines: list[str],
             seen: dict[str, tuple[float, float]] | None = None) -> Services:
    (markers / f"svc-{JOB}").write_text("".join(line + "\n" for line in lines))
    svc = Services(client=None, markers=markers, count=1, instances=2)  # type: ignore[arg-type]
    svc.jobs[JOB] = "web"
    svc.seen = dict(seen or {})
    return svc


def test_runs_one_after_another_are_not_doubled(tmp_path: pathlib.Path) -> None:
    svc = services(tmp_path, [
        f"svcstart {JOB}-0 {JOB}-0-1 local-0 v1 10.0",
        f"svcstop {JOB}-0 {JOB}-0-1 local-0 v1 20.0",
        f"svcstart {JOB}-0 {JOB}-0-2 local-1 v2 20.5",
    ], seen={f"{JOB}-0-1": (10.1, 19.9)})
    svc.alive_at_end = {f"{JOB}-0-2"}
    out = svc.report(svc.runs(100.0))
    assert (out["instances_doubled"], out["service_runs"]) == (0, 2)
    runs = {r["run"]: r for r in svc.runs(100.0)}
    assert runs[f"{JOB}-0-1"]["end"] == 20.0 and runs[f"{JOB}-0-2"]["end"] == 100.0


def test_a_run_started_before_the_last_one_stopped_is_doubled(tmp_path: pathlib.Path) -> None:
    # The first run wrote no stop (SIGKILLed), but was seen alive at 25.
    svc = services(tmp_path, [
        f"svcstart {JOB}-1 {JOB}-1-1 local-0 v1 10.0",
        f"svcstart {JOB}-1 {JOB}-1-2 local-1 v2 20.0",
        f"svcstop {JOB}-1 {JOB}-1-2 local-1 v2 30.0",
    ], seen={f"{JOB}-1-1": (10.0, 25.0)})
    out = svc.report(svc.runs(100.0))
    assert out["instances_doubled"] == 1
    assert out["doubled_examples"][0]["runs"] == [f"{JOB}-1-1", f"{JOB}-1-2"]


def test_two_runs_seen_alive_together_are_doubled(tmp_path: pathlib.Path) -> None:
    svc = services(tmp_path, [])
    svc.together.append({"instance": f"{JOB}-0", "at": 5.0, "runs": ["a", "b"]})
    assert svc.report(svc.runs(100.0))["instances_doubled"] == 1


def test_updates_that_did_not_succeed_and_services_not_converged(
        tmp_path: pathlib.Path) -> None:
    svc = services(tmp_path, [])
    svc.updates = [(JOB, "u1", "SUCCEEDED"), (JOB, "u2", "ROLLED_BACK"),
                   (JOB, "u3", "NOT_ENDED")]
    out = svc.report(svc.runs(100.0))
    assert out["updates_by_state"] == {"SUCCEEDED": 1, "ROLLED_BACK": 1, "NOT_ENDED": 1}
    assert (out["updates_not_succeeded"], out["services_not_converged"]) == (2, 1)


def test_service_runs_count_on_their_hosts_cpu(tmp_path: pathlib.Path) -> None:
    # Four batch runs of 1 cpu fill local-0 (4 cpu) from 10 to 20; a service
    # run of 0.5 cpu there from 15 over-commits it, one on local-1 does not.
    markers = tmp_path / "m"
    markers.mkdir()
    batch = "b0000000-0000-7000-8000-000000000002"
    (markers / batch).write_text("".join(
        f"start {batch}-{i} {batch}-{i}-1 local-0 10.0\n"
        f"done {batch}-{i} {batch}-{i}-1 local-0 20.0\n" for i in range(4)))
    jobs = {batch: 4}
    elsewhere = [{"host": "local-1", "start": 15.0, "end": 30.0}]
    assert analyse(markers, jobs, elsewhere)["overcommitted_hosts"] == 0
    there = [{"host": "local-0", "start": 15.0, "end": 30.0}]
    out = analyse(markers, jobs, there)
    assert out["overcommitted_hosts"] == 1 and out["overcommit_examples"][0]["cpu"] == 4.5
    # Ending as the next starts is not an overlap.
    after = [{"host": "local-0", "start": 20.0, "end": 30.0}]
    assert analyse(markers, jobs, after)["overcommitted_hosts"] == 0
