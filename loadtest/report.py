"""The load test's outputs: ``report.json``, ``timeseries.json``, ``plot.png`` and the table.

``build`` computes the report from a finished run (the harness's samples,
daemons, jobs and counters) and the analysis of its store
(``loadtest.measure``); the harness only drives the run.

``report.json`` keeps stable top-level keys (:data:`STABLE_KEYS`) so runs can
be compared by scripts; everything else in it is an extra that may grow.
Figures that could not be measured are ``null``. Nothing here talks to the
cluster; :func:`write_plot` is the only function that needs matplotlib,
and it says so instead of failing when matplotlib is missing.
"""

from __future__ import annotations

import datetime
import json
import os
import pathlib
import platform
import resource
import statistics
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from loadtest import measure
from loadtest.measure import StoreAnalysis

if TYPE_CHECKING:
    from loadtest.harness import LoadTest

__all__ = [
    "STABLE_KEYS",
    "build",
    "format_table",
    "machine_info",
    "write_json",
    "write_plot",
]

STABLE_KEYS = (
    "scenario", "tasks_total", "tasks_completed", "tasks_lost", "duplicate_runs",
    "overcommitted_hosts", "wall_s", "running_per_s", "completed_per_s",
    "create_to_running_p50_s", "create_to_running_p99_s", "probe_running_p99_s", "daemons",
)
"""Top-level keys every report has (``daemons``: name -> ``cpu_s``, ``peak_rss_bytes``)."""

MIB = 1024 * 1024


def machine_info() -> dict[str, Any]:
    """nproc, CPU model, memory and Python of this machine (best effort, Linux first)."""
    model = platform.processor() or ""
    memory = None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    memory = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    return {"nproc": os.cpu_count(), "cpu_model": model, "memory_bytes": memory,
            "python": sys.version.split()[0], "implementation": platform.python_implementation(),
            "platform": platform.platform()}


def write_json(path: pathlib.Path, data: Any) -> None:
    """Write ``data`` as indented JSON, atomically."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n")
    tmp.replace(path)


# --------------------------------------------------------------------------- the table


def _num(value: Any, fmt: str = ".1f", unit: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:{fmt}}{unit}"
    return f"{value}{unit}"


def _rows(title: str, rows: Sequence[tuple[str, str]]) -> list[str]:
    width = max(len(k) for k, _ in rows)
    return [title] + [f"  {k:<{width}}  {v}" for k, v in rows]


def format_table(report: Mapping[str, Any]) -> str:
    """A readable summary of ``report`` (what the harness prints at the end)."""
    r = report
    lines: list[str] = []
    verdict = "OK" if r.get("correct") else "PROBLEMS"
    lines.append(f"loadtest {r['scenario']}: {verdict}"
                 + ("  (timed out)" if r.get("timed_out") else ""))
    lines += _rows("workload", [
        ("tasks", f"{r['tasks_total']} ({r.get('bulk_tasks', '-')} bulk in "
                  f"{r.get('bulk_jobs', '-')} jobs, {r.get('probe_tasks', 0)} probe in "
                  f"{r.get('probe_jobs', 0)} jobs)"),
        ("hosts", f"{r.get('hosts', '-')} in {r.get('hostmgr_shards', '-')} hostmgr shard(s)"),
        ("wall", _num(r["wall_s"], ".1f", " s") + f"  (cluster start "
                 f"{_num(r.get('cluster_start_s'), '.1f', ' s')})"),
        ("submit errors", str(r.get("submit_errors", 0))),
    ])
    lines += _rows("throughput (tasks/s, first create to last)", [
        ("admitted", _num(r.get("admitted_per_s"))),
        ("placed", _num(r.get("placed_per_s"))),
        ("launched", _num(r.get("launched_per_s"))),
        ("running", _num(r["running_per_s"])
         + f"   (peak {_num(r.get('peak_running_per_s'))} over 5 s)"),
        ("completed", _num(r["completed_per_s"])),
    ])
    lines += _rows("create -> RUNNING (s)", [
        ("bulk", "p50 {}  p90 {}  p99 {}  max {}".format(
            _num(r["create_to_running_p50_s"], ".2f"), _num(r.get("create_to_running_p90_s"),
                                                             ".2f"),
            _num(r["create_to_running_p99_s"], ".2f"), _num(r.get("create_to_running_max_s"),
                                                             ".2f"))),
        ("probes", "p50 {}  p99 {}  max {}".format(
            _num(r.get("probe_running_p50_s"), ".2f"), _num(r["probe_running_p99_s"], ".2f"),
            _num(r.get("probe_running_max_s"), ".2f"))),
        ("Create answered", "p50 {}  p90 {}  p99 {}  max {}".format(
            *(_num((r.get("create_answered_s") or {}).get(k), ".3f")
              for k in ("p50", "p90", "p99", "max")))),
        *((f"probe {stage}", "p50 {}  p99 {}  max {}".format(
            *(_num(pcts.get(k), ".2f") for k in ("p50", "p99", "max"))))
          for stage, pcts in (r.get("probe_stages_s") or {}).items() if stage != "running"),
    ])
    lines += _rows("correctness", [
        ("completed", f"{r['tasks_completed']} of {r['tasks_total']} "
                      f"(succeeded {r.get('tasks_succeeded', '-')}, failed "
                      f"{r.get('tasks_failed', '-')}, retried {r.get('tasks_retried', '-')})"),
        ("lost", f"{r['tasks_lost']} (not terminal {r.get('tasks_not_terminal', '-')}, missing "
                 f"{r.get('tasks_missing', '-')})"),
        ("duplicate runs", f"{r['duplicate_runs']} (started twice "
                           f"{r.get('runs_started_twice', '-')})"),
        ("over-committed hosts", f"{r['overcommitted_hosts']} of {r.get('hosts_used', '-')} "
                                 f"used ({r.get('runs_checked', '-')} runs checked)"),
    ])
    raft = [("commands/s", _num(r.get("raft_commands_per_s"))),
            ("items/command", _num(r.get("raft_items_per_command"))),
            ("commit latency", f"p50 {_num(r.get('raft_commit_p50_s'), '.3f')} s, worst p99 "
                               f"{_num(r.get('raft_commit_p99_max_s'), '.3f')} s"),
            ("bytes/task tracked", _num(r.get("bytes_per_task_tracked"), ".0f")
             + f"  (max tracked {r.get('max_tasks_tracked', '-')})")]
    applied = sorted(((c.get("apply_s", 0.0), name, c["commands"])
                      for name, c in (r.get("raft_commands") or {}).items()), reverse=True)
    if applied and applied[0][0] > 0:
        raft.append(("apply, s (ms each)", ", ".join(
            f"{name} {s:.1f} ({s / n * 1000:.1f})" for s, name, n in applied[:4])))
    lines += _rows(f"resmgr (leader {r.get('resmgr_leader') or '-'})", raft)
    daemons = r.get("daemons") or {}
    if daemons:
        wall = r.get("wall_s") or 0
        width = max(len(n) for n in daemons)
        lines.append(f"daemons{'':<{max(0, width - 5)}}  cpu s   cpu %   peak RSS")
        for name, d in daemons.items():
            pct = 100.0 * d["cpu_s"] / wall if wall and d.get("cpu_s") is not None else None
            rss = d.get("peak_rss_bytes")
            dead = "  DIED" if d.get("died") else ""
            lines.append(f"  {name:<{width}}  {_num(d.get('cpu_s'), '7.1f')} "
                         f"{_num(pct, '6.0f')}%  {_num(rss / MIB if rss else None, '7.0f')} MiB"
                         f"{dead}")
    harness = r.get("harness")
    if harness:
        lines.append(f"  {'(harness)':<{max(9, len('(harness)'))}}  "
                     f"cpu {_num(harness.get('cpu_s'), '.1f')} s, "
                     f"peak RSS {_num((harness.get('peak_rss_bytes') or 0) / MIB, '.0f')} MiB")
    services = r.get("services")
    if services:
        lines += _rows("services", [
            ("instances", f"{services['instances']} in {services['jobs']} jobs; updates "
                          f"{services['updates']}"),
            ("update", f"p50 {_num(services['update_s_p50'], '.1f', ' s')}, max "
                       f"{_num(services['update_s_max'], '.1f', ' s')}"),
            ("most down at once", f"{services['most_unavailable_seen']} of one job "
                                  f"(its SLA allows {services['max_unavailable_allowed']})"),
            ("preempted", str(services["preempting_seen"])),
        ])
    drain = r.get("drain")
    if drain:
        lines += _rows("drain", [
            ("hosts", f"{drain['hosts']} put into maintenance at "
                      f"{_num(drain['at_s'], '.1f', ' s')}; all DOWN after "
                      f"{_num(drain['down_after_s'], '.1f', ' s')}"),
            ("placed there after", f"{drain['started_on_draining']} runs that then ran "
                                   "(must be 0)"),
        ])
    for problem in r.get("problems", []):
        lines.append(f"! {problem}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- the plot


def _smoothed_rate(times: Sequence[float], counts: Sequence[float],
                   window: float = 5.0) -> list[float]:
    """d(count)/dt at each sample, since the latest sample at least ``window``
    seconds older (the first one early on; samples may be sparser than that)."""
    out: list[float] = []
    j = 0
    for i, t in enumerate(times):
        while j + 1 < i and times[j + 1] <= t - window:
            j += 1
        dt = t - times[j]
        out.append((counts[i] - counts[j]) / dt if dt > 0 else 0.0)
    return out


def write_plot(path: pathlib.Path, samples: Sequence[Mapping[str, Any]], title: str) -> str:
    """Draw throughput (top) and backlog (bottom) over time to ``path``.

    Returns a line saying what was done: written, or skipped and why
    (matplotlib missing, no samples).
    """
    if len(samples) < 2:
        return "plot skipped: fewer than two samples"
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return ("plot skipped: matplotlib is not installed "
                "(pip install matplotlib, or pip install -e '.[dev]')")
    t = [s["t"] for s in samples]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(11, 7), sharex=True)
    for key, label in (("admitted", "admitted"), ("placed", "placed"),
                       ("running_total", "running"), ("completed", "completed")):
        top.plot(t, _smoothed_rate(t, [s[key] for s in samples]), label=label)
    top.set_ylabel("tasks/s (5 s window)")
    top.set_title(title)
    top.legend(loc="upper right")
    top.grid(alpha=0.3)
    for key, label in (("pending", "pending (not admitted)"), ("ready", "ready (admitted)"),
                       ("placing", "placing"), ("placed_waiting", "placed, not taken"),
                       ("launching", "launching"), ("running", "running")):
        bottom.plot(t, [s[key] for s in samples], label=label)
    bottom.set_ylabel("tasks")
    bottom.set_xlabel("seconds since the first submission")
    bottom.legend(loc="upper right")
    bottom.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return f"plot: {path}"


def build(run: LoadTest, a: StoreAnalysis) -> dict[str, Any]:
    """The report of a finished ``run`` (its samples, daemons, jobs and
    counters) and the analysis of its store."""
    wall = max(0.0, run.t_end - run.t0)
    daemons: dict[str, dict[str, Any]] = {}
    assert run.state is not None
    for d in run.state.daemons:
        last = run.final_proc.get(d.name)
        first = run.first_proc.get(d.name)
        daemons[d.name] = {
            "kind": d.kind,
            "cpu_s": (round(last.cpu_s - first.cpu_s, 2) if last and first else None),
            "cpu_s_total": round(last.cpu_s, 2) if last else None,
            "peak_rss_bytes": last.hwm_bytes if last else None,
            "idle_rss_bytes": run.idle_rss.get(d.name),
            "died": d.name in run.died,
        }
    bulk = [j for j in run.jobs.values() if not j.probe]
    probes = [j for j in run.jobs.values() if j.probe]

    bulk_tasks = sum(j.instances for j in bulk if j.acked_at)

    def reached(key: str) -> float | None:
        """Tasks/s for counter ``key``: the bulk load's tasks over the time the
        counter took to reach their number (it counts probe tasks too: they
        are few). None if it never did."""
        for s in run.samples:
            if s[key] >= bulk_tasks > 0:
                return measure.rate(bulk_tasks, s["t"])
        return None

    peak = 0.0
    for i, s in enumerate(run.samples):
        start = window_start(run.samples, i, 5.0)
        dt = s["t"] - start["t"]
        if dt > 0:
            peak = max(peak, (s["running_total"] - start["running_total"]) / dt)
    raft_per_s = items_per_command = None
    p50s = [s["commit_p50_s"] for s in run.samples if "commit_p50_s" in s]
    p99s = [s["commit_p99_s"] for s in run.samples if "commit_p99_s" in s]
    commands: dict[str, dict[str, Any]] = {}
    if run.stats_first is not None and run.stats_last is not None and wall > 0:
        f, last_stats = run.stats_first, run.stats_last
        applied = last_stats.appliedCommands - f.appliedCommands
        raft_per_s = applied / wall if applied >= 0 else None
        n_cmds = n_items = 0
        for name, (dc, di, ds) in measure.command_deltas(f, last_stats).items():
            commands[name] = {"commands": dc, "items": di, "apply_s": round(ds, 3)}
            n_cmds += dc
            n_items += di
        items_per_command = n_items / n_cmds if n_cmds else None
    leader = daemons.get(run.leader) or {}
    bytes_per_task = None
    if leader.get("peak_rss_bytes") and leader.get("idle_rss_bytes") and run.max_tracked:
        bytes_per_task = (leader["peak_rss_bytes"] - leader["idle_rss_bytes"]) \
            / run.max_tracked
    own = resource.getrusage(resource.RUSAGE_SELF)
    services = _services(run)
    correct = (a.tasks_total > 0 and a.tasks_completed == a.tasks_total and a.tasks_lost == 0
               and a.duplicate_runs == 0 and a.overcommitted_hosts == 0
               and not run.timed_out and not run.stopped_early
               and (services is None or services_ok(services))
               and a.started_on_draining == 0
               and (run.scenario.drain is None or bool(run.drain_down)))
    problems = list(run.problems)
    if services is not None and not services["within_sla"]:
        problems.append(f"{services['most_unavailable_seen']} instances of one updating service "
                        f"were down at once; its SLA allows "
                        f"{services['max_unavailable_allowed']}")
    if services is not None and services["preempting_seen"]:
        problems.append(f"{services['preempting_seen']} service instances were preempted")
    if a.tasks_lost:
        problems.append(f"{a.tasks_lost} tasks lost ({a.tasks_not_terminal} not terminal, "
                        f"{a.tasks_missing} missing from the store)")
    if a.duplicate_runs:
        problems.append(f"{a.duplicate_runs} runs ended more than once")
    if a.overcommitted_hosts:
        problems.append(f"{a.overcommitted_hosts} hosts over-committed, e.g. "
                        f"{a.overcommit_examples[:1]}")
    if a.started_on_draining:
        problems.append(f"{a.started_on_draining} runs were placed on hosts after their "
                        f"drain was in effect and ran there, e.g. {a.draining_examples[:1]}")
    if run.scenario.drain is not None and not run.drain_down:
        problems.append("the drained hosts did not all go DOWN")
    if run.submit_errors:
        problems.append(f"{len(run.submit_errors)} job creates failed, e.g. "
                        f"{run.submit_errors[0]}")
    c = run.scenario.cluster
    lat, probe = a.create_to_running, a.probe_running
    return {
        # -- stable keys --
        "scenario": run.scenario.name,
        "tasks_total": a.tasks_total,
        "tasks_completed": a.tasks_completed,
        "tasks_lost": a.tasks_lost,
        "duplicate_runs": a.duplicate_runs,
        "overcommitted_hosts": a.overcommitted_hosts,
        "wall_s": round(wall, 3),
        "running_per_s": round_or_none(a.running_per_s),
        "completed_per_s": round_or_none(a.completed_per_s),
        "create_to_running_p50_s": round_or_none(lat["p50"], 3),
        "create_to_running_p99_s": round_or_none(lat["p99"], 3),
        "probe_running_p99_s": round_or_none(probe["p99"], 3),
        "daemons": daemons,
        # -- extras --
        "correct": correct,
        "timed_out": run.timed_out,
        "stopped_early": run.stopped_early or None,
        "problems": problems,
        "started_at": datetime.datetime.fromtimestamp(run.t0, datetime.UTC).isoformat()
        if run.t0 else None,
        "run_dir": str(run.run_dir),
        "cluster_start_s": round(run.cluster_start_s, 2),
        "hosts": c.hosts,
        "hostmgr_shards": c.hostmgr_shards,
        "jobmgrs": c.jobmgrs,
        "placements": c.placements,
        "placement_bulk_tasks_per_s": c.placement_bulk_tasks_per_s,
        "bulk_jobs": len(bulk),
        "bulk_tasks": bulk_tasks,
        "probe_jobs": len(probes),
        "probe_tasks": sum(j.instances for j in probes if j.acked_at),
        "submit_errors": len(run.submit_errors),
        "tasks_succeeded": a.tasks_succeeded,
        "tasks_failed": a.tasks_failed,
        "tasks_killed": a.tasks_killed,
        "tasks_retried": a.tasks_retried,
        "tasks_not_terminal": a.tasks_not_terminal,
        "tasks_missing": a.tasks_missing,
        "runs_started_twice": a.runs_started_twice,
        "runs_checked": a.runs_checked,
        "hosts_used": a.hosts_used,
        "overcommit_examples": a.overcommit_examples,
        "admitted_per_s": round_or_none(reached("admitted")),
        "placed_per_s": round_or_none(reached("placed")),
        "launched_per_s": round_or_none(reached("launched")),
        "peak_running_per_s": round_or_none(peak),
        "create_to_running_p90_s": round_or_none(lat["p90"], 3),
        "create_to_running_max_s": round_or_none(lat["max"], 3),
        "create_to_running_mean_s": round_or_none(lat["mean"], 3),
        "create_answered_s": {k: round_or_none(a.create_answered.get(k), 4)
                              for k in ("p50", "p90", "p99", "max")},
        "probe_running_p50_s": round_or_none(probe["p50"], 3),
        "probe_running_p90_s": round_or_none(probe["p90"], 3),
        "probe_running_max_s": round_or_none(probe["max"], 3),
        "probe_stages_s": {stage: {k: round_or_none(pcts[k], 3) for k in ("p50", "p99", "max")}
                           for stage, pcts in a.probe_stages.items()},
        "raft_commands_per_s": round_or_none(raft_per_s),
        # Of the leader's last 2,000 commits, sampled each second: the
        # median p50 and the worst p99 over the run.
        "raft_commit_p50_s": round_or_none(statistics.median(p50s), 3) if p50s else None,
        "raft_commit_p99_max_s": round_or_none(max(p99s), 3) if p99s else None,
        "raft_items_per_command": round_or_none(items_per_command),
        "raft_commands": commands,
        "resmgr_leader": run.leader,
        "leader_changes": run.leader_changes,
        "max_tasks_tracked": run.max_tracked,
        "bytes_per_task_tracked": round_or_none(bytes_per_task, 0),
        "services": services,
        "drain": None if run.scenario.drain is None else {
            "hosts": len(run.drained),
            "at_s": round_or_none(run.drain_started - run.t0 if run.drain_started else None),
            "down_after_s": round_or_none(run.drain_down - run.drain_started
                                          if run.drain_down else None),
            "started_on_draining": a.started_on_draining},
        "harness": {"cpu_s": round(run.harness_cpu_run, 2),
                    "peak_rss_bytes": own.ru_maxrss * 1024,
                    "analysis_s": round(a.seconds, 2)},
        "machine": machine_info(),
    }


def services_ok(services: Mapping[str, Any]) -> bool:
    """Every update succeeded, within its SLA, and no service was preempted."""
    return bool(services["within_sla"] and services["preempting_seen"] == 0
                and services["updates"].get("SUCCEEDED", 0) == services["updated_jobs"])


def _services(run: LoadTest) -> dict[str, Any] | None:
    """Service jobs and their updates: how long the updates took, the most
    instances of one updating job seen down at once (against its SLA), and
    whether any service instance was ever being preempted."""
    if not run.service_jobs:
        return None
    groups = {id(g): g for g in run.service_jobs.values()}.values()
    updated = [u for u in run.updates.values() if u[0]]
    durations = sorted(u[2] - u[1] for u in updated if u[2])
    allowed = min(g.max_unavailable for g in groups) if groups else 0
    states: dict[str, int] = {}
    for u in run.updates.values():
        states[u[3]] = states.get(u[3], 0) + 1
    return {
        "jobs": len(run.service_jobs),
        "instances": sum(g.instances for g in run.service_jobs.values()),
        "updated_jobs": len(run.updates),
        "updates": states,
        "update_s_p50": round(statistics.median(durations), 1) if durations else None,
        "update_s_max": round(durations[-1], 1) if durations else None,
        "max_unavailable_allowed": allowed,
        "most_unavailable_seen": run.most_unavailable,
        "within_sla": run.most_unavailable <= allowed,
        "preempting_seen": run.service_preempting,
    }


def window_start(samples: list[dict[str, Any]], i: int, window: float) -> dict[str, Any]:
    """The latest sample at least ``window`` seconds before sample ``i`` (else the first)."""
    t = samples[i]["t"]
    j = i
    while j > 0 and samples[j]["t"] > t - window:
        j -= 1
    return samples[j]


def round_or_none(value: float | None, digits: int = 1) -> float | None:
    return None if value is None else round(value, digits)
