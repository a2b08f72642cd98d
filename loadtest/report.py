"""The load test's outputs: ``report.json``, ``timeseries.json``, ``plot.png`` and the table.

``report.json`` keeps stable top-level keys (:data:`STABLE_KEYS`) so runs can
be compared by scripts; everything else in it is an extra that may grow.
Figures that could not be measured are ``null``. Nothing here talks to the
cluster; :func:`write_plot` is the only function that needs matplotlib,
and it says so instead of failing when matplotlib is missing.
"""

from __future__ import annotations

import json
import os
import pathlib
import platform
import sys
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "STABLE_KEYS",
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
