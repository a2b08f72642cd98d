"""How cost grows with size: one row per load-test run, from its ``report.json``.

``python -m loadtest.compare RUN_DIR_OR_REPORT ...`` prints a Markdown table
(sorted by hosts, then tasks) with what the issue asks to compare across
sizes: tasks/s, create -> RUNNING and probe latency, CPU per task (all
daemons together), the largest daemon's peak RSS and resmgr's bytes per
tracked task. ``--json`` prints the rows instead.

``--gauge`` adds the host managers' CPU per task and the machine gauge:
the running pace times that CPU. In a load that the machine's cpu bounds
(``10k-hosts-100k-single-task-jobs``), the host managers do the same
work a task in every run, so their CPU per task is the machine's speed
in the run's minutes, and the pace is about a constant over it. On a VM
whose speed moves from one hour to the next, runs of such a load on the
same code give about the same gauge whatever their pace, and a change
that makes a task cheaper lowers it (``docs/performance.md``,
thirty-ninth session). A load capped elsewhere (a placement worker's
pace) has no such constant.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from collections.abc import Mapping, Sequence
from typing import Any

COLUMNS = (
    ("scenario", "scenario"),
    ("hosts", "hosts"),
    ("tasks", "tasks"),
    ("wall_s", "wall s"),
    ("running_per_s", "running/s"),
    ("peak_running_per_s", "peak/s (5 s)"),
    ("p50_s", "create→RUNNING p50 s"),
    ("p99_s", "p99 s"),
    ("probe_p99_s", "probe p99 s"),
    ("cpu_ms_per_task", "CPU ms/task"),
    ("max_rss_mib", "largest RSS MiB"),
    ("bytes_per_task_tracked", "resmgr B/task"),
    ("correct", "correct"),
)
GAUGE_COLUMNS = (
    ("hostmgr_ms_per_task", "hostmgr CPU ms/task"),
    ("gauge", "gauge"),
)
FINE = {"hostmgr_ms_per_task"}  # a few hundredths of a ms: shown to the thousandth


def row_of(report: Mapping[str, Any]) -> dict[str, Any]:
    """The comparison row of one report (keys of COLUMNS)."""
    daemons: Mapping[str, Mapping[str, Any]] = report.get("daemons", {})
    tasks = report.get("tasks_total") or 0
    cpu = sum(d.get("cpu_s", 0.0) for d in daemons.values())
    hostmgr = sum(d.get("cpu_s", 0.0) for name, d in daemons.items()
                  if name.startswith("hostmgr"))
    hostmgr_ms = hostmgr * 1000 / tasks if tasks and hostmgr else None
    pace = report.get("running_per_s")
    largest: tuple[str | None, Mapping[str, Any]] = max(
        daemons.items(), key=lambda kv: kv[1].get("peak_rss_bytes", 0), default=(None, {}))
    return {
        "scenario": report.get("scenario"),
        "hosts": report.get("hosts"),
        "tasks": tasks,
        "wall_s": report.get("wall_s"),
        "running_per_s": report.get("running_per_s"),
        "peak_running_per_s": report.get("peak_running_per_s"),
        "p50_s": report.get("create_to_running_p50_s"),
        "p99_s": report.get("create_to_running_p99_s"),
        "probe_p99_s": report.get("probe_running_p99_s"),
        "cpu_ms_per_task": cpu * 1000 / tasks if tasks else None,
        "max_rss_mib": (largest[1].get("peak_rss_bytes", 0) / 2**20) if largest[0] else None,
        "max_rss_daemon": largest[0],
        "bytes_per_task_tracked": report.get("bytes_per_task_tracked"),
        "correct": report.get("correct"),
        "hostmgr_ms_per_task": hostmgr_ms,
        "gauge": pace * hostmgr_ms if pace and hostmgr_ms else None,
    }


def _cell(value: Any, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.{digits}f}" if abs(value) < 100 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def table(rows: Sequence[Mapping[str, Any]],
          columns: Sequence[tuple[str, str]] = COLUMNS) -> str:
    lines = ["| " + " | ".join(title for _, title in columns) + " |",
             "| " + " | ".join("---" for _ in columns) + " |"]
    for row in rows:
        cells = [_cell(row.get(key), 3 if key in FINE else 2) for key, _ in columns]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def load(path: pathlib.Path) -> dict[str, Any]:
    report = path / "report.json" if path.is_dir() else path
    try:
        data = json.loads(report.read_text())
    except (OSError, ValueError) as error:
        raise SystemExit(f"loadtest.compare: {report}: {error}")
    if not isinstance(data, dict) or "scenario" not in data:
        raise SystemExit(f"loadtest.compare: {report}: not a load-test report")
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtest.compare",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=pathlib.Path,
                        help="run directories (or their report.json)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--gauge", action="store_true",
                        help="add the host managers' CPU ms a task and the machine gauge "
                             "(running/s times it) to the table")
    args = parser.parse_args(argv)
    rows = sorted((row_of(load(p)) for p in args.runs),
                  key=lambda r: (r["hosts"] or 0, r["tasks"] or 0))
    columns = COLUMNS + GAUGE_COLUMNS if args.gauge else COLUMNS
    print(json.dumps(rows, indent=2) if args.json else table(rows, columns))
    return 0


if __name__ == "__main__":
    sys.exit(main())
