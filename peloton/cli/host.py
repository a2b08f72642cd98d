"""``peloton host query``: the hosts, what they have and what is in use."""

from __future__ import annotations

from typing import Any

from peloton.api.v0.host import host_pb2
from peloton.api.v0.host.svc import host_svc_pb2
from peloton.cli.common import (
    EXIT_OK,
    Cli,
    enum_list,
    group,
    leaf,
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


def add_commands(commands: Any) -> None:
    """Register the ``host`` commands."""
    hs = group(commands, "host", "hosts")
    p = leaf(hs, "query", host_query, "list hosts with what they have and what is in use")
    p.add_argument("-s", "--states", type=enum_list(host_pb2.HostState, "HOST_STATE_"),
                   help="comma-separated host states, e.g. HOST_STATE_UP")
