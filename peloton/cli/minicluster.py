"""``peloton minicluster``: the local cluster (``peloton.ops.minicluster``)."""

from __future__ import annotations

import argparse
import json
import signal
from typing import Any

from peloton.cli.common import (
    EXIT_ERROR,
    EXIT_OK,
    Cli,
    group,
    leaf,
    positive_float,
    signal_number,
)
from peloton.ops import minicluster

SIZE_FLAGS = ("hosts", "cpu", "memory_mb", "disk_mb", "gpu", "jobmgrs", "placements",
               "resmgrs", "shards", "clusters", "sim_clusters", "isolate_tasks")


def attribute_arg(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key, value


def host_attribute_arg(text: str) -> tuple[str, str, str]:
    host, sep, rest = text.partition(":")
    if not sep or not host:
        raise argparse.ArgumentTypeError(f"expected HOST:KEY=VALUE, got {text!r}")
    return (host, *attribute_arg(rest))


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


def add_commands(commands: Any) -> None:
    """Register the ``minicluster`` commands."""
    mc = group(commands, "minicluster", "a local cluster on this machine")
    dir_help = "the cluster's directory (default $PELOTON_HOME/minicluster or ~/.peloton/minicluster)"
    p = leaf(mc, "up", minicluster_up, "start the local cluster and wait until it takes jobs")
    p.add_argument("--dir", default=None, help=dir_help)
    p.add_argument("--hosts", type=int, help="virtual hosts (3)")
    p.add_argument("--cpu", type=float, help="CPUs per host (4)")
    p.add_argument("--memory-mb", type=float, help="memory per host in MiB (8192)")
    p.add_argument("--disk-mb", type=float, help="disk per host in MiB (102400)")
    p.add_argument("--gpu", type=float, help="GPUs per host (0)")
    p.add_argument("--jobmgrs", type=int, help="job managers (2)")
    p.add_argument("--placements", type=int, help="placement workers (2)")
    p.add_argument("--resmgrs", type=int, help="resource managers, one Raft group (3)")
    p.add_argument("--shards", type=int, help="job shards, fixed once created (16)")
    p.add_argument("--isolate-tasks", action="store_true", default=None,
                   help="run each local task as a user of its own, in a sandbox only it "
                        "can read (needs root; its commands must be reachable by any user)")
    p.add_argument("--clusters", type=int,
                   help="clusters of local processes, a hostmgr each: local, local1, ... (1)")
    p.add_argument("--sim-clusters", type=int,
                   help="simulated clusters besides: sim, sim1, ... (0); each has --hosts "
                        "hosts of this shape")
    p.add_argument("--attribute", type=attribute_arg, action="append", metavar="KEY=VALUE",
                   help="an attribute of every host (HOST-kind constraints match it); repeatable")
    p.add_argument("--host-attribute", type=host_attribute_arg, action="append",
                   metavar="HOST:KEY=VALUE",
                   help="an attribute of one host, e.g. local-0:rack=r1; repeatable")
    p.add_argument("--clean", action="store_true",
                   help="delete the directory first: new ports, no pools, no jobs")
    p.add_argument("--ready-timeout", type=positive_float, default=minicluster.READY_TIMEOUT,
                   metavar="SECONDS", help="how long to wait for the cluster (90)")
    p = leaf(mc, "status", minicluster_status, "show the daemons, the leader, shards, hosts")
    p.add_argument("--dir", default=None, help=dir_help)
    p = leaf(mc, "down", minicluster_down, "stop every daemon of the local cluster")
    p.add_argument("--dir", default=None, help=dir_help)
    p.add_argument("--clean", action="store_true", help="also delete the directory (all data)")
    p = leaf(mc, "kill", minicluster_kill, "send a signal to one daemon (failure tests)")
    p.add_argument("name", help="e.g. resmgr-0, jobmgr-1, hostmgr-0")
    p.add_argument("--signal", type=signal_number, default=signal.SIGKILL,
                   help="KILL (default), TERM, STOP, CONT, ...")
    p.add_argument("--dir", default=None, help=dir_help)
    p = leaf(mc, "restart", minicluster_restart, "start one daemon again (stopping it first)")
    p.add_argument("name")
    p.add_argument("--dir", default=None, help=dir_help)
    p.add_argument("--ready-timeout", type=positive_float, default=30.0, metavar="SECONDS")
