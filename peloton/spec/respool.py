"""Resource-pool configs: loading, defaults, and the checks that need no tree.

Checks against the tree (parent exists, child limit <= parent limit,
siblings' reservations fit the parent, unique sibling names) belong to the
resource manager, which has the tree. Errors name paths the way
:mod:`peloton.spec.yamlproto` does (``resources[1].kind``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import Any

from peloton.api.v0.respool import respool_pb2
from peloton.core.errors import InvalidArgument
from peloton.core.resources import KINDS
from peloton.spec.fields import check_enums
from peloton.spec.paths import split_respool_path
from peloton.spec.text import check_name
from peloton.spec.yamlproto import load_document, parse_message

__all__ = [
    "RESOURCE_KINDS",
    "apply_respool_defaults",
    "load_respool_config",
    "split_respool_path",
    "validate_respool_config",
]

RESOURCE_KINDS: tuple[str, ...] = KINDS  # cpu, memory, disk, gpu
# The largest reservation, limit or share: sums over a pool tree stay finite
# and exact enough (1e12 cpus, or MB: an exabyte).
MAX_QUANTITY = 1e12


def load_respool_config(
    source: str | bytes | os.PathLike[str] | Mapping[str, Any],
    *,
    path: str | None = None,
    reject_parent: bool = False,
) -> tuple[respool_pb2.ResourcePoolConfig, list[str]]:
    """Parse a resource-pool config, fill in defaults, and validate it.

    ``source`` is YAML text, a path to a YAML file, or already-parsed data.
    ``path`` is the pool's path when known (the CLI's ``respool create
    /a/b file``); ``reject_parent`` is the CLI's rule that the parent comes
    from the path, not from the file. See :func:`apply_respool_defaults` and
    :func:`validate_respool_config`. Returns the config and warnings (none
    today); raises :class:`InvalidArgument` naming the offending path.
    """
    config, warnings = parse_message(load_document(source), respool_pb2.ResourcePoolConfig)
    apply_respool_defaults(config, path=path)
    validate_respool_config(config, path=path, reject_parent=reject_parent)
    return config, warnings


def apply_respool_defaults(config: respool_pb2.ResourcePoolConfig, *,
                           path: str | None = None) -> None:
    """Fill in, in place: ``policy`` PriorityFIFO when unset; ``name`` from the
    last element of ``path`` when the config has none. Idempotent."""
    if config.policy == respool_pb2.UNKNOWN:
        config.policy = respool_pb2.PriorityFIFO
    if path is not None and not config.name:
        parts = split_respool_path(path)
        if parts:
            config.name = parts[-1]


def validate_respool_config(
    config: respool_pb2.ResourcePoolConfig,
    *,
    path: str | None = None,
    reject_parent: bool = False,
) -> None:
    """Check what can be checked without the pool tree.

    The name is non-empty, printable, without '/', at most 255 characters
    and, when ``path`` is given, equals its last element (``/`` itself
    cannot be created). Resource kinds are cpu, memory, disk and gpu, each
    at most once; reservation, limit and share are finite, non-negative and
    at most MAX_QUANTITY, and reservation <= limit. Controller and
    slack ``maxPercent`` lie in 0..100. With ``reject_parent`` a ``parent``
    in the config is an error. Returns nothing; raises
    :class:`InvalidArgument` at the first problem.
    """
    if path is not None:
        parts = split_respool_path(path)
        if not parts:
            raise InvalidArgument("cannot create the root resource pool '/'", field="path")
        if config.name and config.name != parts[-1]:
            raise InvalidArgument(f"name {config.name!r} does not match the last element "
                                  f"{parts[-1]!r} of path {path!r}", field="name")
    if not config.name:
        raise InvalidArgument("a resource pool needs a name", field="name")
    if "/" in config.name:
        raise InvalidArgument(f"pool name {config.name!r} holds '/', which separates the "
                              "elements of a pool's path", field="name")
    check_name(config.name, "name", "pool name", max_chars=255)
    check_enums(config)
    if reject_parent and config.HasField("parent"):
        raise InvalidArgument("the parent comes from the pool's path; remove 'parent' from "
                              "the file", field="parent")

    first_at: dict[str, int] = {}
    for i, resource in enumerate(config.resources):
        where = f"resources[{i}]"
        if resource.kind not in RESOURCE_KINDS:
            raise InvalidArgument(f"unknown resource kind {resource.kind!r}; expected one of "
                                  f"{', '.join(RESOURCE_KINDS)}", field=f"{where}.kind")
        if resource.kind in first_at:
            raise InvalidArgument(f"kind {resource.kind!r} is given more than once (first at "
                                  f"resources[{first_at[resource.kind]}])",
                                  field=f"{where}.kind")
        first_at[resource.kind] = i
        for name in ("reservation", "limit", "share"):
            value = getattr(resource, name)
            if not math.isfinite(value) or value < 0:
                raise InvalidArgument(f"{name} must be a non-negative number, got {value:g}",
                                      field=f"{where}.{name}")
            if value > MAX_QUANTITY:
                raise InvalidArgument(f"{name} {value:g} is more than {MAX_QUANTITY:g}, the "
                                      "most any pool holds", field=f"{where}.{name}")
        if resource.reservation > resource.limit:
            raise InvalidArgument(f"{resource.kind} reservation {resource.reservation:g} is "
                                  f"more than its limit {resource.limit:g}",
                                  field=f"{where}.reservation")

    for name, limit in (("controllerlimit", config.controllerLimit),
                        ("slacklimit", config.slackLimit)):
        percent = limit.maxPercent
        if not (0 <= percent <= 100):  # also false for NaN
            raise InvalidArgument(f"maxPercent must be within 0..100, got {percent:g}",
                                  field=f"{name}.maxpercent")
