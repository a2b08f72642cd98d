"""``peloton minicluster``: the local cluster (``peloton.ops.minicluster``)."""

from __future__ import annotations

import json
import signal
from typing import Any

from peloton.cli.common import (
    EXIT_ERROR,
    EXIT_OK,
    Cli,
)
from peloton.ops import minicluster

SIZE_FLAGS = ("hosts", "cpu", "memory_mb", "disk_mb", "gpu", "jobmgrs", "placements",
               "resmgrs", "shards", "clusters", "sim_clusters", "isolate_tasks")


def minicluster_up(cli: Cli) -> int:
    a = cli.args
    given: dict[str, Any] = {k: getattr(a, k) for k in SIZE_FLAGS if getattr(a, k) is not None}
    if a.attribute:
        given["attributes"] = tuple(a.attribute)
    if a.host_attribute:
        given["host_attributes"] = tuple(a.host_attribute)
    sizes = minicluster.Sizes(**given) if given else None
    try:
        minicluster.up(a.dir, sizes, clean=a.clean, timeout=a.ready_timeout, out=cli.print,
                       pelotons_port=True)
    except minicluster.ClusterNotReady as error:
        print(f"peloton: {error}", file=cli.stderr)
        for line in error.details:
            print(line, file=cli.stderr)
        print("peloton: stopped the daemons that were started", file=cli.stderr)
        return EXIT_ERROR
    return EXIT_OK


def minicluster_status(cli: Cli) -> int:
    info = minicluster.status(cli.args.dir)
    if cli.json:
        cli.print(json.dumps(info, indent=2))
    else:
        cli.print(minicluster.format_status(info))
    healthy = bool(info["daemons"]) and all(d["alive"] for d in info["daemons"]) \
        and "leader" in info
    return EXIT_OK if healthy else EXIT_ERROR


def minicluster_down(cli: Cli) -> int:
    minicluster.down(cli.args.dir, clean=cli.args.clean, out=cli.print)
    return EXIT_OK


def minicluster_kill(cli: Cli) -> int:
    a = cli.args
    pid = minicluster.kill(a.dir, a.name, a.signal)
    cli.print(f"sent {signal.Signals(a.signal).name} to {a.name} (pid {pid})")
    return EXIT_OK


def minicluster_restart(cli: Cli) -> int:
    a = cli.args
    try:
        pid = minicluster.restart(a.dir, a.name, timeout=a.ready_timeout)
    except minicluster.ClusterNotReady as error:
        print(f"peloton: {error}", file=cli.stderr)
        for line in error.details:
            print(line, file=cli.stderr)
        return EXIT_ERROR
    cli.print(f"{a.name} restarted (pid {pid})")
    return EXIT_OK
