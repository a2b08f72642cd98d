"""``peloton respool``: create, update, get, dump and delete resource pools."""

from __future__ import annotations

import json
from typing import Any

from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.respool import respool_pb2
from peloton.cli.common import (
    EXIT_OK,
    Cli,
    load_spec,
)
from peloton.cli.output import (
    message_json,
    number,
    table,
    to_yaml_flow,
)
from peloton.spec.respool import load_respool_config, split_respool_path


def _load_respool(cli: Cli, path: str, pool_path: str) -> respool_pb2.ResourcePoolConfig:
    split_respool_path(pool_path)
    return load_spec(cli, path, lambda text: load_respool_config(text, path=pool_path,
                                                                 reject_parent=True))


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
                  for u in info.usage])


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
    for u in info.usage:
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
