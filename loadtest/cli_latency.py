"""How long the ``peloton`` command takes, as a user runs it.

``python -m loadtest.cli_latency [--repeat N] [--dir DIR]`` starts a local
cluster (as ``peloton minicluster up``, in a directory of its own), creates
``/DefaultResPool`` and one job through the CLI, then runs each of

- ``peloton --help``
- ``peloton job get ID``
- ``peloton task list ID``
- ``peloton job create /DefaultResPool FILE`` (a one-instance job each time)

``--repeat`` times (10) as a new process, the way a shell runs it, and prints
the median and p90 (nearest rank) wall time of each, then a JSON summary,
and stops the cluster. The commands find the cluster as a user's do: from
the minicluster's state file (``PELOTON_HOME`` points at the directory), so
they use its cluster file (its HTTP/JSON addresses, its security section).
One untimed run of each comes first (``--warmup``), so a cold page cache or
bytecode compiling is not counted: the commands write and read their
bytecode under the run's directory (``PYTHONPYCACHEPREFIX``), as an
installed ``peloton`` does beside its sources, even where
``PYTHONDONTWRITEBYTECODE`` is set. ``--no-bytecode-cache`` measures
without (every module compiled at every run). The issue's bar: ``--help``
within 100 ms, ``job get`` within 150 ms (medians), on an idle machine.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

from peloton.testing.cluster import LocalCluster

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "peloton" / "examples"
ONE_TRUE = """\
name: cli-latency
instancecount: 1
defaultconfig:
  resource: {cpulimit: 0.1, memlimitmb: 32, disklimitmb: 10}
  command: {shell: true, value: 'true'}
"""
SAMPLE = """\
name: cli-latency-sample
instancecount: 10
defaultconfig:
  resource: {cpulimit: 0.1, memlimitmb: 32, disklimitmb: 10}
  command: {shell: true, value: 'sleep 600'}
"""


def peloton_command() -> list[str]:
    """The installed ``peloton`` script beside this interpreter (what a user
    runs), else ``python -m peloton.cli.main``."""
    script = pathlib.Path(sys.executable).parent / "peloton"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "peloton.cli.main"]


def cli_env(home: pathlib.Path, bytecode_cache: bool = True) -> dict[str, str]:
    """The environment a user's shell gives ``peloton``: this one's, without
    ``PELOTON_*`` (the cluster is found by the state file under ``home``),
    and with bytecode cached under ``home/pycache`` as an installed
    ``peloton`` caches it beside its sources, even where
    ``PYTHONDONTWRITEBYTECODE`` is set here (a process that compiles every
    module costs ~2x the cpu of one that loads them). ``bytecode_cache=False``:
    every module compiled at every run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PELOTON_")}
    env["PELOTON_HOME"] = str(home)
    if bytecode_cache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(home / "pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    return env


def run_cli(base: Sequence[str], args: Sequence[str], env: dict[str, str]) -> tuple[float, str]:
    """(wall seconds, stdout) of one run; SystemExit with its stderr if it fails."""
    start = time.perf_counter()
    done = subprocess.run([*base, *args], capture_output=True, text=True, env=env)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"loadtest.cli_latency: `peloton {' '.join(args)}` exited "
                         f"{done.returncode}: {done.stderr.strip()}")
    return took, done.stdout


def p90(values: Sequence[float]) -> float:
    """The 90th percentile by nearest rank (of 10 values: the 9th smallest)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)]


def measure(base: Sequence[str], commands: dict[str, list[str]], env: dict[str, str], *,
            repeat: int, warmup: int) -> dict[str, Any]:
    """Each command ``warmup`` times untimed, then ``repeat`` times timed."""
    figures: dict[str, Any] = {}
    for name, args in commands.items():
        for _ in range(warmup):
            run_cli(base, args, env)
        runs = [run_cli(base, args, env)[0] for _ in range(repeat)]
        figures[name] = {"median_ms": round(statistics.median(runs) * 1000, 1),
                         "p90_ms": round(p90(runs) * 1000, 1),
                         "runs_ms": [round(r * 1000, 1) for r in runs]}
        print(f"{name:<24} median {figures[name]['median_ms']:7.1f} ms   "
              f"p90 {figures[name]['p90_ms']:7.1f} ms   (of {repeat}: "
              f"{', '.join(f'{r:.0f}' for r in figures[name]['runs_ms'])})", flush=True)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtest.cli_latency",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10, help="timed runs of each (10)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed runs of each first (1)")
    parser.add_argument("--no-bytecode-cache", action="store_true",
                        help="compile every module at every run (PYTHONDONTWRITEBYTECODE)")
    parser.add_argument("--dir", type=pathlib.Path, default=None,
                        help="where the cluster lives, in DIR/minicluster (default: a new "
                             "temporary directory, deleted after)")
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.warmup < 0:
        parser.error("--repeat must be at least 1 and --warmup at least 0")
    home = args.dir or pathlib.Path(tempfile.mkdtemp(prefix="peloton-cli-latency-"))
    home = home.absolute()
    start = time.monotonic()
    cluster = LocalCluster.start(home / "minicluster", clean=True)
    try:
        print(f"cluster up and taking jobs: {time.monotonic() - start:.1f} s", flush=True)
        env = cli_env(home, bytecode_cache=not args.no_bytecode_cache)
        base = peloton_command()
        one, sample = home / "one-true.yaml", home / "sample.yaml"
        one.write_text(ONE_TRUE)
        sample.write_text(SAMPLE)
        run_cli(base, ["respool", "create", "/DefaultResPool",
                       str(EXAMPLES / "default_respool.yaml")], env)
        _, out = run_cli(base, ["job", "create", "/DefaultResPool", str(sample)], env)
        job_id = out.split()[1]  # "Job <id> created"
        figures = measure(base, {
            "--help": ["--help"],
            "job get": ["job", "get", job_id],
            "task list": ["task", "list", job_id],
            "job create": ["job", "create", "/DefaultResPool", str(one)],
        }, env, repeat=args.repeat, warmup=args.warmup)
        print(json.dumps({"repeat": args.repeat, "cpus": os.cpu_count(),
                          "bytecode_cache": not args.no_bytecode_cache,
                          "load_average": [round(x, 2) for x in os.getloadavg()],
                          "commands": figures}))
    finally:
        cluster.stop(clean=args.dir is None)
        if args.dir is None:
            shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
