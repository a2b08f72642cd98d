"""``peloton demo``: a new user's first run, in one command.

Starts the local cluster (or uses the running one), creates Peloton's
``/DefaultResPool`` from its example file if it is missing, runs Peloton's
example batch job (``examples/testjob.yaml``, 10 instances, ~100 s because
its controller task sleeps 100 s) to a terminal state while printing
progress, then prints each instance's output. Exit 0 only if it SUCCEEDED.
"""

from __future__ import annotations

import importlib.resources
import pathlib
import time

import trio

from peloton.api.v0.job import job_pb2
from peloton.cli.common import EXIT_ERROR, EXIT_OK, Cli
from peloton.cli.minicluster import SIZE_FLAGS, minicluster_up
from peloton.client import PelotonClient
from peloton.core.errors import NotFound
from peloton.spec.job import load_job_config
from peloton.spec.respool import load_respool_config

POOL = "/DefaultResPool"
TERMINAL = ("SUCCEEDED", "FAILED", "KILLED")


def example(name: str) -> str:
    return (importlib.resources.files("peloton.examples") / name).read_text()


def run(cli: Cli) -> int:
    cli.args.clean = False
    for flag in (*SIZE_FLAGS, "attribute", "host_attribute"):
        setattr(cli.args, flag, None)
    if minicluster_up(cli) != EXIT_OK:
        return EXIT_ERROR
    job_file = cli.args.job_file
    job_text = (example(job_file) if job_file == "testjob.yaml"
                else pathlib.Path(job_file).read_text())
    config, warnings = load_job_config(job_text)
    for warning in warnings:
        cli.warn(warning)

    async def demo(client: PelotonClient) -> str:
        try:
            await client.lookup_respool(POOL)
            cli.print(f"resource pool {POOL} exists")
        except NotFound:
            pool, _ = load_respool_config(example("default_respool.yaml"), path=POOL)
            await client.create_respool(POOL, pool)
            cli.print(f"created resource pool {POOL}")
        job_id = await client.create_job(POOL, config)
        cli.print(f"Job {job_id} created ({config.instanceCount} instances of "
                  f"{config.name}); waiting for it to finish")
        start = time.monotonic()
        last = ""
        while True:
            info = await client.get_job(job_id)
            state = job_pb2.JobState.Name(info.runtime.state)
            counts = ", ".join(f"{k} {v}" for k, v in sorted(info.runtime.taskStats.items()) if v)
            line = f"  {time.monotonic() - start:5.0f}s  {state:<10} {counts}"
            if line.split("s", 1)[1] != last:
                cli.print(line)
                last = line.split("s", 1)[1]
            if state in TERMINAL:
                break
            await trio.sleep(1.0)
        cli.print(f"job {job_id}: {state} in {time.monotonic() - start:.0f}s")
        for instance in range(config.instanceCount):
            out = (await client.read_task_file(job_id, instance)).decode(errors="replace")
            cli.print(f"  instance {instance}: {out.strip() or '(no output)'}")
        cli.print(f"more: peloton job status {job_id}; peloton task list {job_id}; "
                  f"peloton task logs {job_id} 1; stop the cluster with "
                  "peloton minicluster down")
        return state

    state = cli.call(demo)
    return EXIT_OK if state == "SUCCEEDED" else EXIT_ERROR
