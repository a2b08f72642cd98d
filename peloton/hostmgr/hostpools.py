"""Host pools of one cluster (Peloton's ``pkg/hostmgr/hostpool``): named
sets of hosts, each host in exactly one, new hosts in ``default``.

A host carries its pool as the attribute ``host_pool``, so a HOST-kind
constraint (``host_pool == batch``) keeps a job to a pool. Deleting a pool
moves its hosts to ``default``, which cannot be deleted. Pure bookkeeping:
the host manager applies the attribute and keeps the state on disk.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from peloton.core.errors import AlreadyExists, FailedPrecondition, InvalidArgument, NotFound
from peloton.spec.text import check_name

__all__ = ["DEFAULT_POOL", "POOL_ATTRIBUTE", "HostPools"]

DEFAULT_POOL = "default"
POOL_ATTRIBUTE = "host_pool"


class HostPools:
    def __init__(self) -> None:
        self._pools: dict[str, set[str]] = {DEFAULT_POOL: set()}
        self._of: dict[str, str] = {}

    def pools(self) -> dict[str, list[str]]:
        """Every pool with its hosts, sorted."""
        return {name: sorted(hosts) for name, hosts in sorted(self._pools.items())}

    def pool_of(self, hostname: str) -> str:
        return self._of.get(hostname, DEFAULT_POOL)

    def add_host(self, hostname: str) -> str:
        """A host the cluster has: its pool (``default`` for a new one)."""
        pool = self._of.setdefault(hostname, DEFAULT_POOL)
        self._pools.setdefault(pool, set()).add(hostname)
        return pool

    def _known(self, name: str, field: str) -> set[str]:
        if name not in self._pools:
            raise NotFound(f"no host pool {name!r}", field=field)
        return self._pools[name]

    def create(self, name: str) -> None:
        check_name(name, "name", "host pool name", max_chars=255)
        if name in self._pools:
            raise AlreadyExists(f"host pool {name!r} exists", field="name")
        self._pools[name] = set()

    def delete(self, name: str) -> list[str]:
        """Delete a pool; its hosts (returned) go to ``default``."""
        if name == DEFAULT_POOL:
            raise InvalidArgument("the default pool cannot be deleted", field="name")
        hosts = sorted(self._known(name, "name"))
        del self._pools[name]
        for h in hosts:
            self._of[h] = DEFAULT_POOL
            self._pools[DEFAULT_POOL].add(h)
        return hosts

    def change(self, hostname: str, source: str, destination: str) -> None:
        """Move one host from ``source`` (its pool now) to ``destination``."""
        if hostname not in self._of:
            raise NotFound(f"no host {hostname!r}", field="hostname")
        self._known(source, "sourcePool")
        self._known(destination, "destinationPool")
        if self._of[hostname] != source:
            raise FailedPrecondition(f"host {hostname} is in pool {self._of[hostname]!r}, "
                                     f"not {source!r}", field="sourcePool")
        self._pools[source].discard(hostname)
        self._pools[destination].add(hostname)
        self._of[hostname] = destination

    def move(self, source: str, source_wanted: int, destination: str,
             destination_wanted: int, order: Iterable[str]) -> list[str]:
        """Peloton's MoveHosts: move hosts from ``source`` to
        ``destination`` until they hold the wanted numbers (which must add
        up to what the two hold now), the first of ``order`` first. Returns
        the hosts moved."""
        have_src = self._known(source, "sourcePool")
        have_dst = self._known(destination, "destinationPool")
        if source == destination:
            raise InvalidArgument("source and destination are the same pool",
                                  field="destinationPool")
        if source_wanted < 0 or destination_wanted < 0:
            raise InvalidArgument("the wanted numbers of hosts must not be negative",
                                  field="srcPoolDesiredHosts")
        if source_wanted + destination_wanted != len(have_src) + len(have_dst):
            raise InvalidArgument(
                f"{source} has {len(have_src)} hosts and {destination} {len(have_dst)}: the "
                f"wanted {source_wanted} + {destination_wanted} must add up to "
                f"{len(have_src) + len(have_dst)}", field="destPoolDesiredHosts")
        count = len(have_src) - source_wanted
        if count < 0:
            raise InvalidArgument(f"moves hosts from {source} to {destination} only; "
                                  f"{source} has {len(have_src)}, fewer than "
                                  f"{source_wanted}", field="srcPoolDesiredHosts")
        chosen = [h for h in order if h in have_src][:count]
        for h in chosen:
            self.change(h, source, destination)
        return chosen

    # -- on disk ------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {"pools": sorted(self._pools), "hosts": dict(sorted(self._of.items()))}

    def load(self, data: Mapping[str, Any]) -> None:
        for name in data.get("pools", ()):
            self._pools.setdefault(str(name), set())
        for host, pool in (data.get("hosts") or {}).items():
            pool = str(pool) if str(pool) in self._pools else DEFAULT_POOL
            self._of[str(host)] = pool
            self._pools[pool].add(str(host))
