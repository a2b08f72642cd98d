"""``peloton host``: the hosts, what they have and what is in use, and their
maintenance (start: drain the host; complete: it is back)."""

from __future__ import annotations

from typing import Any

from peloton.api.v0.host import host_pb2
from peloton.api.v0.host.svc import host_svc_pb2
from peloton.cli.common import (
    EXIT_OK,
    Cli,
    Failure,
)
from peloton.cli.output import (
    number,
    table,
)
from peloton.client import PelotonClient


def host_query(cli: Cli) -> int:
    a = cli.args
    request = host_svc_pb2.QueryHostsRequest(host_states=a.states or [])

    async def query(c: PelotonClient) -> host_svc_pb2.QueryHostsResponse:
        return await c.hosts.call("QueryHosts", request)

    reply = cli.call(query)

    def text() -> str:
        rows = [(h.hostname, h.cluster, host_pb2.HostState.Name(h.state),
                 f"{number(h.cpuAllocated)}/{number(h.cpu)}",
                 f"{number(h.memMbAllocated)}/{number(h.memMb)}",
                 f"{number(h.diskMbAllocated)}/{number(h.diskMb)}",
                 f"{number(h.gpuAllocated)}/{number(h.gpu)}", h.tasks,
                 ",".join(f"{label.key}={label.value}" for label in h.labels) or "-")
                for h in sorted(reply.host_infos, key=lambda h: (h.cluster, h.hostname))]
        limits = {h.cluster: ", ".join(h.limitsEnforced) or "none"
                  for h in reply.host_infos}
        notes = [f"cluster {c}: limits enforced on runs: {text}"
                 for c, text in sorted(limits.items())]
        return "\n".join([table(("HOSTNAME", "CLUSTER", "STATE", "CPU", "MEM_MB", "DISK_MB",
                                  "GPU", "TASKS", "ATTRIBUTES"), rows), *notes])

    cli.emit(reply, text)
    return EXIT_OK


def maintenance(method: str, done: str) -> Any:
    """``host maintenance start|complete``: ``method``, then ``done``."""
    def action(cli: Cli) -> int:
        a = cli.args
        request = getattr(host_svc_pb2, f"{method}Request")(hostname=a.hostname)
        reply = cli.call(lambda c: c.hosts.call(method, request))
        cli.emit(reply, lambda: f"Host {reply.hostname}: {done}")
        return EXIT_OK
    return action


def maintenance_query(cli: Cli) -> int:
    cli.args.states = [host_pb2.HOST_STATE_DRAINING, host_pb2.HOST_STATE_DOWN]
    return host_query(cli)


def pool_list(cli: Cli) -> int:
    reply = cli.call(lambda c: c.hosts.call("ListHostPools",
                                            host_svc_pb2.ListHostPoolsRequest()))
    wanted = getattr(cli.args, "name", None)
    pools = [p for p in reply.pools if wanted is None or p.name == wanted]
    if wanted is not None and not pools:
        raise Failure(f"no host pool {wanted!r}")
    cli.emit(reply, lambda: table(("POOL", "HOSTS", "NAMES"), [
        (p.name, len(p.hosts), ",".join(p.hosts) or "-") for p in pools]))
    return EXIT_OK


def pool_call(method: str, done: str, **fields: str) -> Any:
    """A host pool call: ``method``'s request fields from the arguments
    (``field=argument``), then ``done`` formatted with the arguments."""
    def action(cli: Cli) -> int:
        a = cli.args
        request = getattr(host_svc_pb2, f"{method}Request")(
            **{field: getattr(a, arg) for field, arg in fields.items()})
        reply = cli.call(lambda c: c.hosts.call(method, request))
        cli.emit(reply, lambda: done.format(**vars(a)))
        return EXIT_OK
    return action
