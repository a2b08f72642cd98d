"""``peloton-daemon KIND --config CLUSTER.yaml --name NAME``: run one daemon.

KIND is resmgr, jobmgr, placement or hostmgr; the cluster file
(``peloton.config``) says where NAME listens and where its peers are. The
daemon runs until SIGTERM or SIGINT, then shuts down cleanly. On start it
prints one line ``ready <name> <address>`` to stdout once it serves.
With ``PELOTON_LOOP_MONITOR=MS`` in its environment it logs, every 10 s,
what held its trio loop (``peloton.observability.loop``).
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from peloton import config as cluster_config
from peloton.core.errors import PelotonError
from peloton.observability import loop as loop_monitor
from peloton.rpc import open_rpc
from peloton.rpc.client import configure as configure_client

# Every GC_FREEZE_PERIOD the objects alive are moved out of the cyclic
# collector's reach (gc.freeze): a full collection then walks only what
# was made since. resmgr's ~2.75M objects at 900k tracked tasks made a full
# collection take 0.84 s of held GIL (more on a busy machine), long enough
# for pysyncobj's tick thread to miss its heartbeats and lose the leadership
# (10k-hosts-1m-tasks-at-once). With it: longest collection 0.09 s, and GC
# time 0.67 s instead of 4.96 s over 900k enqueued tasks. Frozen objects
# are still freed by reference counting; only a reference cycle among
# objects frozen while alive is never collected (the state has none).
GC_FREEZE_PERIOD = 10.0

# How long a thread that wants the GIL waits before the running one must
# give it up (CPython's default is 5 ms). A worker thread that blocks often
# (sqlite3 steps, pysyncobj's socket calls) releases the GIL each time and
# then waits a whole interval to get it back while the trio thread computes:
# the convoy that made 2,000 SQLite rows take 3.8 s beside one busy thread.
# 1 ms cuts that wait fivefold for a few more switches a second.
SWITCH_INTERVAL = 0.001


# The cyclic collector's thresholds: a young collection once this many
# container objects were allocated (less those freed), not CPython's 700.
# Reference counting frees almost everything a daemon makes; a collection
# only walks what is alive at that moment, which is about as much after
# 700 allocations as after 50,000. At 700 the local host manager collected
# ~30 times a second in the small-jobs API row, 9% of its cpu (the jobmgr
# 4%); at 50,000 the row ran 4-8% faster (alternately, 274-284 against
# 255-271 jobs/s) with the same peak RSS in the single-task load.
GC_THRESHOLD = (50_000, 10, 10)


async def freeze_long_lived(period: float = GC_FREEZE_PERIOD) -> None:
    """Freeze the objects alive now, and again every ``period`` seconds."""
    while True:
        gc.freeze()
        await trio.sleep(period)


def _serve_fn(kind: str) -> Callable[..., Awaitable[Any]]:
    if kind == "resmgr":
        from peloton.resmgr import service as resmgr
        return resmgr.serve
    if kind == "jobmgr":
        from peloton.jobmgr import service as jobmgr
        return jobmgr.serve
    if kind == "placement":
        from peloton.placement import worker
        return worker.serve
    if kind == "hostmgr":
        from peloton.hostmgr import service as hostmgr
        return hostmgr.serve
    raise ValueError(kind)


async def run(kind: str, config_path: str, name: str) -> None:
    config = cluster_config.load(config_path)
    me = config.get(name)
    if me.kind != kind:
        raise PelotonError(f"daemon {name!r} is a {me.kind}, not a {kind}")
    serve = _serve_fn(kind)
    # Every call this daemon makes: over TLS when the cluster has it, with
    # the cluster secret its peers' internal services ask for.
    configure_client(config.security.client_ssl(), config.security.daemon_credentials())
    async with open_rpc():
        with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
            async with trio.open_nursery() as nursery:
                address = await nursery.start(serve, config, name)
                where = f"{address[0]}:{address[1]}" if address else "-"
                print(f"ready {name} {where}", flush=True)

                async def stop_on_signal() -> None:
                    async for signum in signals:
                        logging.getLogger(__name__).info("got signal %d; stopping", signum)
                        nursery.cancel_scope.cancel()
                        return

                nursery.start_soon(stop_on_signal)
                nursery.start_soon(freeze_long_lived)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="peloton-daemon", description=__doc__)
    parser.add_argument("kind", choices=["resmgr", "jobmgr", "placement", "hostmgr"])
    parser.add_argument("--config", required=True, help="the cluster file")
    parser.add_argument("--name", required=True, help="this daemon's name in the cluster file")
    parser.add_argument("--log-level", default="INFO")
    args = parser.parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("pysyncobj").setLevel(logging.WARNING)
    # grpclib logs every cancelled long poll at INFO.
    logging.getLogger("grpclib").setLevel(logging.WARNING)
    sys.setswitchinterval(SWITCH_INTERVAL)
    gc.set_threshold(*GC_THRESHOLD)
    # What a daemon writes (jobs.db, the Raft journal and dump, run records,
    # host pools) is its own: no task, whatever its user, reads it.
    os.umask(0o077)
    try:
        instruments = loop_monitor.from_environment()
    except ValueError as error:
        print(f"peloton-daemon: {error}", file=sys.stderr)
        return 2
    try:
        trio.run(run, args.kind, args.config, args.name, instruments=instruments)
    except PelotonError as error:
        print(f"peloton-daemon: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
