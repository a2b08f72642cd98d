"""``peloton``: the command line of a Peloton cluster, shaped like Peloton's own.

::

    peloton [--cluster HOST:PORT[,...]] [--json] [--timeout S] COMMAND ...

    peloton minicluster up|status|down|kill|restart      a local cluster
    peloton respool create|update|get|dump|delete        resource pools
    peloton job create|get|status|query|stop|delete|update
    peloton task list|get|logs|stop|start|restart
    peloton host query
    peloton resmgr pending PATH                         why gangs wait (admission, placement)

The cluster is found from ``--cluster``, then ``PELOTON_CLUSTER``, then the
local minicluster's state file (see ``peloton.client.discovery``). Every
error ends the command with a non-zero status and one line on stderr,
``peloton: <what went wrong>``.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import IO, Any, NoReturn, TypeVar

import trio

from peloton.api.v0.host import host_pb2
from peloton.api.v0.host.svc import host_svc_pb2
from peloton.api.v0.job import job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.respool import respool_pb2
from peloton.api.v0.task import task_pb2
from peloton.cli.output import (
    message_json,
    message_yaml,
    number,
    short_time,
    spans,
    table,
    to_yaml_flow,
)
from peloton.client import ClusterUnreachable, PelotonClient, within_rpc
from peloton.client.discovery import ENV, find_cluster
from peloton.core.errors import PelotonError
from peloton.core.ids import is_job_id
from peloton.ops import minicluster
from peloton.spec.job import load_job_config
from peloton.spec.respool import load_respool_config, split_respool_path

__all__ = ["main", "parse_range"]

T = TypeVar("T")

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(Exception):
    """The command line is wrong (exit status 2)."""


class Failure(Exception):
    """A local problem (a file, a bad id) worth one line (exit status 1)."""


# --------------------------------------------------------------------------- argument types


_RANGE = re.compile(r"(\d*):(\d*)")


def parse_range(text: str) -> task_pb2.InstanceRange:
    """``from:to`` (``to`` exclusive; either side may be left out; ``:`` is
    every instance) or a single instance ``N``. ``to`` 0 in the result means
    "to the last instance". Raises ArgumentTypeError with the reason."""
    value = text.strip()
    if value.isdigit():
        return task_pb2.InstanceRange(**{"from": int(value), "to": int(value) + 1})
    match = _RANGE.fullmatch(value)
    if match is None:
        raise argparse.ArgumentTypeError(
            f"bad instance range {text!r}: expected from:to, e.g. 0:5, 3:, :10, or : for all")
    lo = int(match.group(1)) if match.group(1) else 0
    hi = int(match.group(2)) if match.group(2) else 0
    if match.group(2) and hi <= lo:
        raise argparse.ArgumentTypeError(
            f"bad instance range {text!r}: 'to' must be greater than 'from' "
            f"(instances from <= i < to)")
    return task_pb2.InstanceRange(**{"from": lo, "to": hi})


def _instance(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"an instance is a number from 0, got {text!r}")
    return int(text)


def _job_id(text: str) -> str:
    value = text.strip()
    if not is_job_id(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a job id (a UUID such as "
                                         f"5b7a4c8e-0f5d-4b8e-9d3a-2f9c1e0d7a64)")
    return value.lower()


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text!r}")
    return value


def _enum_list(enum: Any, prefix: str = "") -> Callable[[str], list[int]]:
    names = list(enum.keys())

    def parse(text: str) -> list[int]:
        out = []
        for raw in (p.strip() for p in text.split(",")):
            if not raw:
                continue
            name = raw.upper()
            for candidate in (name, prefix + name):
                if candidate in names:
                    out.append(enum.Value(candidate))
                    break
            else:
                known = ", ".join(names)
                raise argparse.ArgumentTypeError(f"unknown state {raw!r}; known: {known}")
        return out
    return parse


def _labels(text: str) -> list[peloton_pb2.Label]:
    out = []
    for raw in (p.strip() for p in text.split(",")):
        if not raw:
            continue
        key, sep, value = raw.partition("=")
        if not sep:
            key, sep, value = raw.partition(":")
        if not sep or not key:
            raise argparse.ArgumentTypeError(f"expected key=value[,key=value...], got {raw!r}")
        out.append(peloton_pb2.Label(key=key, value=value))
    return out


def _signal_number(text: str) -> int:
    name = text.upper()
    name = name if name.startswith("SIG") else "SIG" + name
    if text.isdigit():
        return int(text)
    try:
        return int(signal.Signals[name])
    except KeyError:
        raise argparse.ArgumentTypeError(f"unknown signal {text!r}; e.g. KILL, TERM, STOP, CONT")


# --------------------------------------------------------------------------- the command context


class Cli:
    """What a command needs: its arguments, stdout/stderr, and the cluster."""

    def __init__(self, args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> None:
        self.args = args
        self.stdout = stdout
        self.stderr = stderr
        self.from_state_file = False

    def print(self, text: str = "") -> None:
        print(text, file=self.stdout)

    def warn(self, text: str) -> None:
        print(f"peloton: warning: {text}", file=self.stderr)

    @property
    def json(self) -> bool:
        return bool(self.args.json)

    def emit(self, message: Any, text: Callable[[], str]) -> None:
        """``message`` as protobuf JSON with ``--json``, else ``text()``."""
        self.print(message_json(message) if self.json else text())

    def addresses(self) -> list[str]:
        explicit = self.args.cluster
        self.from_state_file = not explicit and not os.environ.get(ENV, "").strip()
        return find_cluster(explicit)

    def call(self, fn: Callable[[PelotonClient], Awaitable[T]]) -> T:
        """Run ``fn(client)`` against the cluster; its errors come out bare."""
        addresses = self.addresses()
        timeout = float(self.args.timeout)

        async def run() -> T:
            client = PelotonClient(addresses, timeout=timeout)
            try:
                return await fn(client)
            finally:
                client.close()

        return trio.run(within_rpc, run)


def _read_text(path: str) -> str:
    try:
        return pathlib.Path(path).read_text()
    except FileNotFoundError:
        raise Failure(f"{path}: no such file")
    except IsADirectoryError:
        raise Failure(f"{path}: is a directory, not a file")
    except UnicodeDecodeError:
        raise Failure(f"{path}: not a text (UTF-8) file")
    except OSError as error:
        raise Failure(f"{path}: cannot read: {error.strerror}")


def _load_job(cli: Cli, path: str) -> job_pb2.JobConfig:
    text = _read_text(path)
    try:
        config, warnings = load_job_config(text, capabilities=frozenset())
    except PelotonError as error:
        raise Failure(f"{path}: {error}")
    for warning in warnings:
        cli.warn(f"{path}: {warning}")
    return config


def _load_respool(cli: Cli, path: str, pool_path: str) -> respool_pb2.ResourcePoolConfig:
    text = _read_text(path)
    split_respool_path(pool_path)
    try:
        config, warnings = load_respool_config(text, path=pool_path, reject_parent=True)
    except PelotonError as error:
        raise Failure(f"{path}: {error}")
    for warning in warnings:
        cli.warn(f"{path}: {warning}")
    return config


# --------------------------------------------------------------------------- respool


def respool_create(cli: Cli) -> int:
    a = cli.args
    config = _load_respool(cli, a.file, a.path)
    pool_id = cli.call(lambda c: c.create_respool(a.path, config))
    reply = respool_pb2.CreateResponse(result=peloton_pb2.ResourcePoolID(value=pool_id))
    cli.emit(reply, lambda: f"Resource pool {pool_id} created at {a.path}")
    return EXIT_OK


def respool_update(cli: Cli) -> int:
    a = cli.args
    config = _load_respool(cli, a.file, a.path)
    cli.call(lambda c: c.update_respool(a.path, config, force=a.force))
    cli.emit(respool_pb2.UpdateResponse(), lambda: f"Resource pool {a.path} updated")
    return EXIT_OK


USAGE_COLUMNS = (("reservation", "RESERVATION"), ("limit", "LIMIT"), ("share", "SHARE"),
                 ("entitlement", "ENTITLEMENT"), ("allocation", "ALLOCATION"),
                 ("demand", "DEMAND"), ("slackEntitlement", "SLACK ENTITLEMENT"),
                 ("slackAllocation", "SLACK ALLOCATION"))


def _amount(value: float) -> str:
    return "unlimited" if value == float("inf") else number(value)


def _usage_table(info: respool_pb2.ResourcePoolInfo) -> str:
    """One row per kind: reservation, limit, share, entitlement, allocation,
    demand, slack entitlement, slack allocation."""
    return table(["KIND", *(title for _, title in USAGE_COLUMNS)],
                 [[u.kind, *(_amount(getattr(u, field)) for field, _ in USAGE_COLUMNS)]
                  for u in info.usages])


def _pool_text(info: respool_pb2.ResourcePoolInfo) -> str:
    c = info.config
    lines = [f"path:     {info.path.value or '/'}", f"id:       {info.id.value}"]
    if info.parent.value:
        lines.append(f"parent:   {info.parent.value}")
    lines.append("children: " + (", ".join(ch.value for ch in info.children) or "-"))
    limits = f"slack limit {number(c.slackLimit.maxPercent)}%" if c.HasField("slackLimit") \
        else "slack limit 20%"
    controller = (f"controller limit {number(c.controllerLimit.maxPercent)}%"
                  if c.controllerLimit.maxPercent else "no controller limit")
    lines.append(f"limits:   {controller}, {limits}")
    lines.append("priority preemption: " + ("on" if c.priorityPreemption else "off"))
    return "\n".join(lines) + "\n\n" + _usage_table(info)


def respool_get(cli: Cli) -> int:
    a = cli.args
    split_respool_path(a.path)
    reply = cli.call(lambda c: c.get_respool(a.path))
    cli.emit(reply, lambda: _pool_text(reply.poolinfo))
    return EXIT_OK


def _plain_number(value: float) -> float | int | str:
    if value == float("inf"):
        return "unlimited"
    return int(value) if float(value).is_integer() else value


def _pool_entry(info: respool_pb2.ResourcePoolInfo) -> dict[str, Any]:
    """One pool of ``respool dump``: path, id, and per kind its reservation,
    limit, share, entitlement, allocation, demand and slack numbers."""
    resources: dict[str, Any] = {}
    for u in info.usages:
        resources[u.kind] = {field: _plain_number(getattr(u, field))
                             for field, _ in USAGE_COLUMNS}
    entry: dict[str, Any] = {"path": info.path.value or "/", "id": info.id.value}
    if info.parent.value:
        entry["parent"] = info.parent.value
    if info.children:
        entry["children"] = [c.value for c in info.children]
    if info.config.priorityPreemption:
        entry["priorityPreemption"] = True
    entry["resources"] = resources
    return entry


def respool_dump(cli: Cli) -> int:
    a = cli.args
    pools = cli.call(lambda c: c.query_respools())
    pools = sorted(pools, key=lambda p: p.path.value or "/")
    if cli.json:
        cli.print(message_json(respool_pb2.QueryResponse(resourcePools=pools)))
    elif a.format == "json":
        cli.print(json.dumps([_pool_entry(p) for p in pools], indent=2))
    elif a.format in ("yaml", "yml"):
        cli.print(to_yaml_flow([_pool_entry(p) for p in pools]))
    else:
        cli.print("\n\n".join(f"{p.path.value or '/'}  (id {p.id.value})\n" + _usage_table(p)
                               for p in pools))
    return EXIT_OK


def respool_delete(cli: Cli) -> int:
    a = cli.args
    split_respool_path(a.path)
    cli.call(lambda c: c.delete_respool(a.path))
    cli.emit(respool_pb2.DeleteResponse(), lambda: f"Resource pool {a.path} deleted")
    return EXIT_OK


# --------------------------------------------------------------------------- resmgr


def _gang_instances(task_ids: Sequence[str]) -> str:
    """``["<job>-0", "<job>-1", "<job>-4"]`` -> ``"<job> 0-1, 4"`` (per job)."""
    by_job: dict[str, list[int]] = {}
    for task_id in task_ids:
        job, _, instance = task_id.rpartition("-")
        by_job.setdefault(job, []).append(int(instance) if instance.isdigit() else 0)
    return "; ".join(f"{job} {spans(instances)}" for job, instances in by_job.items())


def resmgr_pending(cli: Cli) -> int:
    a = cli.args
    split_respool_path(a.path)

    async def pending(c: PelotonClient) -> respool_pb2.GetResponse:
        pool_id = await c.lookup_respool(a.path)
        return await c.respools.call("GetResourcePool", respool_pb2.GetRequest(
            id=peloton_pb2.ResourcePoolID(value=pool_id), pendingLimit=a.limit))

    reply = cli.call(pending)

    def text() -> str:
        if not reply.pending:
            return f"No gang waits for admission or placement in {a.path}"
        return table(["QUEUE", "PRIORITY", "INSTANCES", "CPU", "MEM MB", "DISK MB", "GPU",
                      "REASON"],
                     [[g.queue, g.priority, _gang_instances(g.taskIds), number(g.cpu),
                       number(g.memMb), number(g.diskMb), number(g.gpu), g.reason]
                      for g in reply.pending])

    if cli.json:
        cli.print(message_json(respool_pb2.GetResponse(pending=reply.pending)))
    else:
        cli.print(text())
    return EXIT_OK


# --------------------------------------------------------------------------- job


def job_create(cli: Cli) -> int:
    a = cli.args
    split_respool_path(a.respool)
    config = _load_job(cli, a.file)
    job_id = cli.call(lambda c: c.create_job(a.respool, config, job_id=a.id))
    cli.emit(job_pb2.CreateResponse(jobId=peloton_pb2.JobID(value=job_id)),
             lambda: f"Job {job_id} created")
    return EXIT_OK


def _get_job(cli: Cli, job_id: str) -> job_pb2.GetResponse:
    async def get(c: PelotonClient) -> job_pb2.GetResponse:
        return await c.jobs.call("Get", job_pb2.GetRequest(id=peloton_pb2.JobID(value=job_id)))
    return cli.call(get)


def job_get(cli: Cli) -> int:
    reply = _get_job(cli, cli.args.job)
    cli.emit(reply, lambda: message_yaml(reply.jobInfo))
    return EXIT_OK


def _task_counts(runtime: job_pb2.RuntimeInfo) -> str:
    stats = {k: v for k, v in runtime.taskStats.items() if v}
    return ", ".join(f"{k} {v}" for k, v in sorted(stats.items())) or "none"


def job_status(cli: Cli) -> int:
    reply = _get_job(cli, cli.args.job)
    info = reply.jobInfo
    rt = info.runtime

    def text() -> str:
        rows = [
            ("job", info.id.value),
            ("name", info.config.name),
            ("state", job_pb2.JobState.Name(rt.state)),
            ("goal state", job_pb2.JobState.Name(rt.goalState)),
            ("created", short_time(rt.creationTime)),
            ("started", short_time(rt.startTime)),
            ("completed", short_time(rt.completionTime)),
            ("instances", str(info.config.instanceCount)),
            ("tasks", _task_counts(rt)),
        ]
        return "\n".join(f"{k + ':':<12}{v}" for k, v in rows)

    cli.emit(rt, text)
    return EXIT_OK


def job_query(cli: Cli) -> int:
    a = cli.args
    spec = job_pb2.QuerySpec(jobStates=a.states or [], labels=a.labels or [],
                             owner=a.owner or "", name=a.name or "", limit=a.limit)

    async def query(c: PelotonClient) -> job_pb2.QueryResponse:
        request = job_pb2.QueryRequest(spec=spec, summaryOnly=True)
        if a.respool:
            request.respoolID.value = await c.lookup_respool(a.respool)
        return await c.jobs.call("Query", request)

    reply = cli.call(query)

    def text() -> str:
        rows = []
        for s in reply.summary:
            stats = s.runtime.taskStats
            rows.append((s.id.value, s.name, s.owner or s.owningTeam,
                         job_pb2.JobState.Name(s.runtime.state),
                         short_time(s.runtime.creationTime), s.instanceCount,
                         stats.get("RUNNING", 0), stats.get("SUCCEEDED", 0),
                         stats.get("FAILED", 0), stats.get("KILLED", 0)))
        out = table(("ID", "NAME", "OWNER", "STATE", "CREATED", "INSTANCES", "RUNNING",
                     "SUCCEEDED", "FAILED", "KILLED"), rows)
        if reply.total > len(rows):
            out += f"\n({len(rows)} of {reply.total} jobs; raise --limit to see more)"
        return out

    cli.emit(reply, text)
    return EXIT_OK


def job_stop(cli: Cli) -> int:
    job_id = cli.args.job

    async def stop(c: PelotonClient) -> task_pb2.StopResponse:
        return await c.tasks.call("Stop", task_pb2.StopRequest(
            jobId=peloton_pb2.JobID(value=job_id)))

    reply = cli.call(stop)
    cli.emit(reply, lambda: f"Job {job_id}: stopping {len(reply.stoppedInstanceIds)} "
                            f"instance(s)")
    return EXIT_OK


def job_delete(cli: Cli) -> int:
    job_id = cli.args.job

    async def delete(c: PelotonClient) -> job_pb2.DeleteResponse:
        return await c.jobs.call("Delete", job_pb2.DeleteRequest(
            id=peloton_pb2.JobID(value=job_id)))

    reply = cli.call(delete)
    cli.emit(reply, lambda: f"Job {job_id} deleted")
    return EXIT_OK


def job_update(cli: Cli) -> int:
    a = cli.args
    config = _load_job(cli, a.file)

    async def update(c: PelotonClient) -> job_pb2.UpdateResponse:
        return await c.jobs.call("Update", job_pb2.UpdateRequest(
            id=peloton_pb2.JobID(value=a.job), config=config))

    reply = cli.call(update)
    cli.emit(reply, lambda: f"Job {a.job} updated" + (f": {reply.message}"
                                                      if reply.message else ""))
    return EXIT_OK


# --------------------------------------------------------------------------- task


def _task_message(rt: task_pb2.RuntimeInfo) -> str:
    message = rt.message or rt.reason
    if rt.HasField("terminationStatus") and rt.terminationStatus.exitCode \
            and str(rt.terminationStatus.exitCode) not in message:
        message = f"{message} (exit {rt.terminationStatus.exitCode})".strip()
    return message


def task_list(cli: Cli) -> int:
    a = cli.args
    request = task_pb2.ListRequest(jobId=peloton_pb2.JobID(value=a.job))
    if a.range is not None:
        request.range.CopyFrom(a.range)

    async def list_tasks(c: PelotonClient) -> task_pb2.ListResponse:
        return await c.tasks.call("List", request)

    reply = cli.call(list_tasks)

    def text() -> str:
        rows = []
        for instance in sorted(reply.result.value):
            t = reply.result.value[instance]
            rt = t.runtime
            rows.append((instance, t.config.name or "-", task_pb2.TaskState.Name(rt.state),
                         rt.host or "-", short_time(rt.startTime), _task_message(rt)))
        return table(("INSTANCE", "NAME", "STATE", "HOST", "STARTED", "MESSAGE"), rows)

    cli.emit(reply, text)
    return EXIT_OK


def task_get(cli: Cli) -> int:
    a = cli.args

    async def get(c: PelotonClient) -> task_pb2.GetResponse:
        return await c.tasks.call("Get", task_pb2.GetRequest(
            jobId=peloton_pb2.JobID(value=a.job), instanceId=a.instance))

    reply = cli.call(get)
    cli.emit(reply, lambda: message_yaml(reply.result))
    return EXIT_OK


def task_logs(cli: Cli) -> int:
    a = cli.args
    path = a.file or ("stderr" if a.stderr else "stdout")
    run = a.run or a.run_id or ""
    data = cli.call(lambda c: c.read_task_file(a.job, a.instance, path, run))
    cli.stdout.flush()
    buffer = getattr(cli.stdout, "buffer", None)
    if buffer is not None:
        buffer.write(data)
        buffer.flush()
    else:
        cli.stdout.write(data.decode(errors="replace"))
    return EXIT_OK


def _task_action(verb: str) -> Callable[[Cli], int]:
    method = verb.capitalize()
    request_cls = getattr(task_pb2, f"{method}Request")

    def action(cli: Cli) -> int:
        a = cli.args
        request = request_cls(jobId=peloton_pb2.JobID(value=a.job), ranges=a.ranges or [])

        async def call(c: PelotonClient) -> Any:
            return await c.tasks.call(method, request)

        reply = cli.call(call)
        which = ", ".join(_range_text(r) for r in a.ranges) if a.ranges else "all"
        if verb == "stop":
            done = f"stopping instance(s) {spans(reply.stoppedInstanceIds)}"
        elif verb == "start":
            done = f"starting instance(s) {spans(reply.startedInstanceIds)}"
        else:
            done = f"restarting instance(s) {which}"
        cli.emit(reply, lambda: f"Job {a.job}: {done}")
        return EXIT_OK

    return action


def _range_text(r: task_pb2.InstanceRange) -> str:
    lo = getattr(r, "from")
    return f"{lo}:{r.to if r.to else ''}"


# --------------------------------------------------------------------------- host


def host_query(cli: Cli) -> int:
    a = cli.args
    request = host_svc_pb2.QueryHostsRequest(hostStates=a.states or [])

    async def query(c: PelotonClient) -> host_svc_pb2.QueryHostsResponse:
        return await c.hosts.call("QueryHosts", request)

    reply = cli.call(query)

    def text() -> str:
        rows = [(h.hostname, h.cluster, host_pb2.HostState.Name(h.state),
                 f"{number(h.cpuAllocated)}/{number(h.cpu)}",
                 f"{number(h.memMbAllocated)}/{number(h.memMb)}",
                 f"{number(h.diskMbAllocated)}/{number(h.diskMb)}",
                 f"{number(h.gpuAllocated)}/{number(h.gpu)}", h.tasks)
                for h in sorted(reply.hostInfos, key=lambda h: (h.cluster, h.hostname))]
        return table(("HOSTNAME", "CLUSTER", "STATE", "CPU", "MEM_MB", "DISK_MB", "GPU",
                      "TASKS"), rows)

    cli.emit(reply, text)
    return EXIT_OK


# --------------------------------------------------------------------------- minicluster

_SIZE_FLAGS = ("hosts", "cpu", "memory_mb", "disk_mb", "gpu", "jobmgrs", "placements",
               "resmgrs", "shards")


def minicluster_up(cli: Cli) -> int:
    a = cli.args
    given = {k: getattr(a, k) for k in _SIZE_FLAGS if getattr(a, k) is not None}
    sizes = minicluster.Sizes(**given) if given else None
    try:
        minicluster.up(a.dir, sizes, clean=a.clean, timeout=a.ready_timeout, out=cli.print)
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


# --------------------------------------------------------------------------- the parser


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        where = self.prog.removeprefix("peloton").strip()
        hint = f" (see `{self.prog} --help`)"
        raise UsageError(f"{where}: {message}{hint}" if where else f"{message}{hint}")


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("peloton")
    except Exception:
        return "unknown"


def _globals(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """The global options; on subcommands too, so they may come anywhere."""
    default: Any = argparse.SUPPRESS
    parser.add_argument("--cluster", metavar="HOST:PORT[,...]",
                        default=None if top else default,
                        help="jobmgr address(es); else $PELOTON_CLUSTER, else the local "
                             "minicluster")
    parser.add_argument("-j", "--json", action="store_true",
                        default=False if top else default,
                        help="print the response as protobuf JSON")
    parser.add_argument("-t", "--timeout", type=_positive_float, metavar="SECONDS",
                        default=20.0 if top else default,
                        help="how long one call may take (default 20)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="peloton", description="The command line of a Peloton cluster.",
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     epilog="Start a local cluster with `peloton minicluster up`.")
    _globals(parser, top=True)
    parser.add_argument("--version", action="version", version=f"peloton {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def group(name: str, help: str) -> Any:
        p = commands.add_parser(name, help=help, description=help)
        p.set_defaults(group_parser=p)
        return p.add_subparsers(dest="action", metavar="ACTION", parser_class=_Parser)

    def leaf(sub: Any, name: str, func: Callable[[Cli], int], help: str) -> Any:
        p = sub.add_parser(name, help=help, description=help)
        _globals(p, top=False)
        p.set_defaults(func=func)
        return p

    # respool
    rp = group("respool", "resource pools")
    p = leaf(rp, "create", respool_create, "create a resource pool at PATH from a YAML file")
    p.add_argument("path", help="e.g. /DefaultResPool")
    p.add_argument("file")
    p = leaf(rp, "update", respool_update, "replace the config of the pool at PATH")
    p.add_argument("path")
    p.add_argument("file")
    p.add_argument("-f", "--force", action="store_true",
                   help="apply even if the new reservations do not fit")
    p = leaf(rp, "get", respool_get, "show the pool at PATH")
    p.add_argument("path")
    p = leaf(rp, "dump", respool_dump, "show every pool: reservation, limit, share, "
             "entitlement, allocation, demand, slack")
    p.add_argument("--format", choices=("table", "yaml", "yml", "json"), default="table")
    p = leaf(rp, "delete", respool_delete, "delete the (empty) pool at PATH")
    p.add_argument("path")

    # resmgr
    rm = group("resmgr", "the resource manager")
    p = leaf(rm, "pending", resmgr_pending,
             "list the gangs waiting for admission or placement in the leaf pool PATH, and why")
    p.add_argument("path", help="e.g. /DefaultResPool")
    p.add_argument("-l", "--limit", type=int, default=100, help="at most this many (100)")

    # job
    jb = group("job", "jobs")
    p = leaf(jb, "create", job_create, "create a job in the pool RESPOOL from a YAML file")
    p.add_argument("respool", help="the pool's path, e.g. /DefaultResPool")
    p.add_argument("file")
    p.add_argument("-i", "--id", type=_job_id, default=None, help="the new job's id (a UUID)")
    p = leaf(jb, "get", job_get, "show a job's config and runtime")
    p.add_argument("job", type=_job_id)
    p = leaf(jb, "status", job_status, "show a job's state and task counts")
    p.add_argument("job", type=_job_id)
    p = leaf(jb, "query", job_query, "list jobs")
    p.add_argument("-s", "--states", type=_enum_list(job_pb2.JobState),
                   help="comma-separated job states, e.g. RUNNING,PENDING")
    p.add_argument("-r", "--respool", help="only jobs of this pool (path)")
    p.add_argument("--name", help="only jobs with this name")
    p.add_argument("--owner", help="only jobs of this owner")
    p.add_argument("-l", "--labels", type=_labels, help="key=value[,key=value...]")
    p.add_argument("-n", "--limit", type=int, default=100, help="at most this many (100)")
    p = leaf(jb, "stop", job_stop, "stop every task of a job")
    p.add_argument("job", type=_job_id)
    p = leaf(jb, "delete", job_delete, "delete a job (it must have ended)")
    p.add_argument("job", type=_job_id)
    p = leaf(jb, "update", job_update, "update a job from a YAML file (batch: add instances)")
    p.add_argument("job", type=_job_id)
    p.add_argument("file")

    # task
    tk = group("task", "tasks of a job")
    p = leaf(tk, "list", task_list, "list a job's tasks")
    p.add_argument("job", type=_job_id)
    p.add_argument("-r", "--range", type=parse_range, default=None, metavar="FROM:TO",
                   help="only these instances (to exclusive)")
    p = leaf(tk, "get", task_get, "show one task")
    p.add_argument("job", type=_job_id)
    p.add_argument("instance", type=_instance)
    p = leaf(tk, "logs", task_logs, "print a task's stdout (or another sandbox file)")
    p.add_argument("job", type=_job_id)
    p.add_argument("instance", type=_instance)
    p.add_argument("run_id", nargs="?", default=None, metavar="MESOS_TASK_ID",
                   help="a past run (default: the current one)")
    p.add_argument("--stderr", action="store_true", help="print stderr instead of stdout")
    p.add_argument("-f", "--file", default=None, help="a sandbox file by name")
    p.add_argument("--run", default=None, metavar="MESOS_TASK_ID", help="a past run")
    for verb in ("stop", "start", "restart"):
        p = leaf(tk, verb, _task_action(verb), f"{verb} tasks of a job (default: all)")
        p.add_argument("job", type=_job_id)
        p.add_argument("-r", "--range", dest="ranges", action="append", type=parse_range,
                       metavar="FROM:TO", help="instances from <= i < to; repeatable")

    # host
    hs = group("host", "hosts")
    p = leaf(hs, "query", host_query, "list hosts with what they have and what is in use")
    p.add_argument("-s", "--states", type=_enum_list(host_pb2.HostState, "HOST_STATE_"),
                   help="comma-separated host states, e.g. HOST_STATE_UP")

    # demo
    p = commands.add_parser("demo", help="start the local cluster and run Peloton's example "
                            "job to the end", description=demo_doc())
    _globals(p, top=False)
    p.set_defaults(func=demo_run)
    p.add_argument("job_file", nargs="?", default="testjob.yaml",
                   help="a job YAML to run instead of Peloton's examples/testjob.yaml")
    p.add_argument("--dir", default=None, help="the cluster's directory")
    p.add_argument("--ready-timeout", type=_positive_float, default=minicluster.READY_TIMEOUT,
                   metavar="SECONDS", help=argparse.SUPPRESS)

    # minicluster
    mc = group("minicluster", "a local cluster on this machine")
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
    p.add_argument("--clean", action="store_true",
                   help="delete the directory first: new ports, no pools, no jobs")
    p.add_argument("--ready-timeout", type=_positive_float, default=minicluster.READY_TIMEOUT,
                   metavar="SECONDS", help="how long to wait for the cluster (90)")
    p = leaf(mc, "status", minicluster_status, "show the daemons, the leader, shards, hosts")
    p.add_argument("--dir", default=None, help=dir_help)
    p = leaf(mc, "down", minicluster_down, "stop every daemon of the local cluster")
    p.add_argument("--dir", default=None, help=dir_help)
    p.add_argument("--clean", action="store_true", help="also delete the directory (all data)")
    p = leaf(mc, "kill", minicluster_kill, "send a signal to one daemon (failure tests)")
    p.add_argument("name", help="e.g. resmgr-0, jobmgr-1, hostmgr-0")
    p.add_argument("--signal", type=_signal_number, default=signal.SIGKILL,
                   help="KILL (default), TERM, STOP, CONT, ...")
    p.add_argument("--dir", default=None, help=dir_help)
    p = leaf(mc, "restart", minicluster_restart, "start one daemon again (stopping it first)")
    p.add_argument("name")
    p.add_argument("--dir", default=None, help=dir_help)
    p.add_argument("--ready-timeout", type=_positive_float, default=30.0, metavar="SECONDS")
    return parser


def demo_doc() -> str:
    from peloton.cli import demo
    return demo.__doc__ or ""


def demo_run(cli: Cli) -> int:
    from peloton.cli import demo
    return demo.run(cli)


# --------------------------------------------------------------------------- main


def _leaf_error(error: BaseException) -> BaseException:
    """The one exception inside nested single-member exception groups."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def _unreachable(cli: Cli, error: ClusterUnreachable) -> str:
    if cli.from_state_file:
        return f"{error.message} (is it running? try peloton minicluster status)"
    return f"{error.message} (is it running? for a local cluster try peloton minicluster status)"


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``peloton`` command; returns the exit status."""
    stdout, stderr = sys.stdout, sys.stderr
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as error:
        print(f"peloton: {error}", file=stderr)
        return EXIT_USAGE
    except SystemExit as exit_:  # --help, --version
        return exit_.code if isinstance(exit_.code, int) else EXIT_OK
    if getattr(args, "func", None) is None:
        sub = getattr(args, "group_parser", None)
        if sub is None:
            parser.print_help(stderr)
            return EXIT_USAGE
        actions = ", ".join(sub._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
        print(f"peloton: {args.command}: choose one of: {actions} "
              f"(see `peloton {args.command} --help`)", file=stderr)
        return EXIT_USAGE
    cli = Cli(args, stdout, stderr)
    try:
        try:
            return int(args.func(cli))
        except BaseExceptionGroup as group:
            raise _leaf_error(group) from None
    except ClusterUnreachable as error:
        print(f"peloton: {_unreachable(cli, error)}", file=stderr)
    except PelotonError as error:
        print(f"peloton: {error}", file=stderr)
    except Failure as error:
        print(f"peloton: {error}", file=stderr)
    except KeyboardInterrupt:
        print("peloton: interrupted", file=stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`peloton task logs ... | head`): not an error.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_OK
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        print(f"peloton: {where}{error.strerror or error}", file=stderr)
    return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
