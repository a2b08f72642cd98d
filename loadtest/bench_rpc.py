"""What one gRPC call costs: cpu per unary call, client and server.

``python -m loadtest.bench_rpc [--calls 3000] [--concurrency 1,16]`` starts
a server process (``peloton.rpc.serve_grpc``, a JobManager whose ``Get``
answers a small JobInfo) and calls it from this process the way daemons
call each other (``peloton.rpc.call_once`` over a shared channel), one
after another and then ``N`` at a time. It prints calls per second and
the cpu each call took in each process (``getrusage`` here, ``/proc``
there). Every hop of a job's path through the cluster pays about this,
at each end (see the README's small-jobs figures).

With ``--instructions`` it counts instructions instead, under valgrind's
callgrind (which must be on PATH): the server's over ``2 x --calls``
calls at each level (its counters zeroed before them), the client's as
the difference between a run of ``2 x --calls`` calls and one of
``--calls``. Cpu seconds on a shared machine vary by a fifth from one
minute to the next; instruction counts repeat to ~0.5%, so a change of
a few percent to a call's path shows (docs/performance.md, the
thirty-third session). Each process runs ~50 times slower under it.
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

import trio

from loadtest.measure import own_cpu_s, read_proc
from peloton.api.v0.job import job_grpc, job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.rpc import Channels, call_once, open_rpc, serve_grpc

WARMUP = 50


class _Jobs:
    """JobManager with ``Get`` only (the rest are not called)."""

    def __getattr__(self, name: str) -> Any:
        async def method(request: Any) -> Any:
            raise NotImplementedError(name)
        return method

    async def Get(self, request: job_pb2.GetRequest) -> job_pb2.GetResponse:
        info = job_pb2.JobInfo(id=request.id)
        info.config.name = "bench"
        return job_pb2.GetResponse(jobInfo=info)


async def _serve(port_file: str) -> None:
    async with open_rpc(), trio.open_nursery() as nursery:
        _, port = await nursery.start(
            lambda task_status: serve_grpc([(job_grpc.JobManagerBase, _Jobs())],
                                           "127.0.0.1", 0, task_status=task_status))
        await trio.Path(port_file + ".tmp").write_text(str(port))
        os.replace(port_file + ".tmp", port_file)


async def _calls(address: str, calls: int, concurrency: int) -> tuple[float, float]:
    """(seconds, this process's cpu seconds) of ``calls`` calls."""
    async with open_rpc():
        channels = Channels()
        request = job_pb2.GetRequest(id=peloton_pb2.JobID(value="bench"))

        async def caller(n: int) -> None:
            for _ in range(n):
                await call_once(channels, address, job_grpc.JobManagerStub, "Get", request,
                                timeout=10.0)

        try:
            await caller(WARMUP)
            before, began = own_cpu_s(), time.perf_counter()
            async with trio.open_nursery() as nursery:
                for k in range(concurrency):
                    nursery.start_soon(caller, calls // concurrency + (k < calls % concurrency))
            took, after = time.perf_counter() - began, own_cpu_s()
        finally:
            channels.close()
    return took, after - before


def _calls_in_process(address: str, calls: int, concurrency: int) -> None:
    """``_calls`` as a process of its own (the client counted by callgrind)."""
    trio.run(_calls, address, calls, concurrency)


def callgrind_total(path: str) -> int:
    """The instructions a callgrind output file counted (its ``summary:``
    or ``totals:`` line)."""
    with open(path) as f:
        for line in f:
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise ValueError(f"{path} is not a callgrind output file (no summary or totals)")


def _under_callgrind(out: str, *command: str) -> list[str]:
    return ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command]


def _count(address: str, calls: int, level: int, server: subprocess.Popen[bytes],
           top: str) -> tuple[float, float]:
    """(server, client) instructions a call at ``level`` in flight."""
    client: dict[int, int] = {}
    for n in (calls, 2 * calls):
        out = os.path.join(top, f"client-{level}-{n}.out")
        subprocess.run(_under_callgrind(out, sys.executable, "-c",
                                        "import sys; from loadtest.bench_rpc import "
                                        "_calls_in_process as c; c(sys.argv[1], "
                                        "int(sys.argv[2]), int(sys.argv[3]))",
                                        address, str(n), str(level)),
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client[n] = callgrind_total(out)
        if n == calls:  # the server counts the larger run only (zeroed after this one)
            subprocess.run(["callgrind_control", "-z", str(server.pid)], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    before = set(glob.glob(os.path.join(top, "server.out*")))
    subprocess.run(["callgrind_control", "-d", str(server.pid)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not (dumps := set(glob.glob(os.path.join(top, "server.out.*"))) - before):
        if time.monotonic() > deadline:
            raise SystemExit("loadtest.bench_rpc: callgrind did not dump the server's counts")
        time.sleep(0.2)
    time.sleep(1)  # written whole
    served = callgrind_total(max(dumps, key=os.path.getmtime))
    return served / (2 * calls + WARMUP), (client[2 * calls] - client[calls]) / calls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtest.bench_rpc",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3000, help="timed calls per row (3000)")
    parser.add_argument("--concurrency", default="1,16",
                        help="calls in flight, one row each (1,16)")
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions a call with callgrind instead of cpu time")
    args = parser.parse_args(argv)
    if args.instructions and not (shutil.which("valgrind") and shutil.which("callgrind_control")):
        parser.error("--instructions needs valgrind (callgrind and callgrind_control) on PATH")
    if args.calls < 1:
        parser.error("--calls must be at least 1")
    try:
        levels = [int(v) for v in args.concurrency.split(",") if v.strip()]
    except ValueError:
        parser.error(f"--concurrency: expected numbers like 1,16, got {args.concurrency!r}")
    if not levels or min(levels) < 1:
        parser.error("--concurrency: each level must be at least 1")
    with tempfile.TemporaryDirectory(prefix="peloton-bench-rpc-") as top:
        port_file = os.path.join(top, "port")
        serve = [sys.executable, "-c", "import sys, trio; from loadtest.bench_rpc import "
                 "_serve; trio.run(_serve, sys.argv[1])", port_file]
        server = subprocess.Popen(_under_callgrind(os.path.join(top, "server.out"), *serve)
                                  if args.instructions else serve,
                                  stderr=subprocess.DEVNULL if args.instructions else None)
        try:
            deadline = time.monotonic() + (300 if args.instructions else 60)
            while not os.path.exists(port_file):
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("loadtest.bench_rpc: the server did not start")
                time.sleep(0.05)
            with open(port_file) as f:
                address = f"127.0.0.1:{f.read()}"
            for level in levels:
                if args.instructions:
                    at_server, at_client = _count(address, args.calls, level, server, top)
                    print(f"{level:>3} in flight: instructions per call {at_client:9.0f} client, "
                          f"{at_server:9.0f} server (callgrind)", flush=True)
                    continue
                served = read_proc(server.pid)
                took, cpu = trio.run(_calls, address, args.calls, level)
                done = read_proc(server.pid)
                server_cpu = (done.cpu_s - served.cpu_s) if done and served else float("nan")
                print(f"{level:>3} in flight: {args.calls / took:7.0f} calls/s, cpu per call "
                      f"{1e6 * cpu / args.calls:6.0f} us client, "
                      f"{1e6 * server_cpu / args.calls:6.0f} us server", flush=True)
        finally:
            server.terminate()
            server.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
