"""The host/lease pool of one hostmgr shard: pure bookkeeping, no I/O, no clock.

A host is offered to placement through a **lease** (Peloton's ``PLACING`` host
status): while a lease is outstanding the host is offered to nobody else, so
several placement workers can acquire concurrently without double-booking a host.
A lease ends in exactly one of three ways: ``launch`` consumes it, ``release``
drops it, or it expires (``expires <= now``).

Invariants (``tests/hostmgr/test_hostpool.py`` checks them with Hypothesis):

- a host has at most one lease, and a lease names exactly one host;
- a host's ``allocated`` is the sum of the resources of the tasks on it, and
  ``launch`` never lets it exceed the host's capacity;
- a port is used by at most one task of a host, and only ports inside the
  host's range are ever used;
- a mesos task id is on at most one host.

Time is an argument (``now``, seconds as a float) so callers choose the clock.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from peloton.core.errors import FailedPrecondition, InvalidArgument
from peloton.core.resources import EPSILON, ZERO, Resources

# Peloton's HostFilterResult names (pkg/hostmgr/summary), used as count keys.
MATCH = "MATCH"
MISMATCH_STATUS = "MISMATCH_STATUS"
INSUFFICIENT_OFFER_RESOURCES = "INSUFFICIENT_OFFER_RESOURCES"
MISMATCH_PORTS = "MISMATCH_PORTS"

MAX_LEASE_PORTS = 100
"""At most this many free ports are listed in a lease (a sample, lowest first)."""


@dataclass(frozen=True, slots=True)
class HostSpec:
    """What a backend says a host is. ``ports`` is an inclusive range; an
    empty range is written with ``hi < lo``."""

    hostname: str
    agent_id: str
    capacity: Resources
    ports: tuple[int, int]
    attributes: Mapping[str, str]
    cluster: str


@dataclass(frozen=True, slots=True)
class Lease:
    """The right to launch on one host until ``expires``.

    ``free`` and ``ports`` are a snapshot taken at acquisition; since nobody
    else can launch on a leased host they only grow (tasks may end) until the
    lease is used.
    """

    lease_id: str
    hostname: str
    agent_id: str
    cluster: str
    free: Resources
    ports: tuple[int, ...]
    attributes: Mapping[str, str]
    expires: float


@dataclass(frozen=True, slots=True)
class HostView:
    """A read-only snapshot of one host."""

    spec: HostSpec
    allocated: Resources
    free: Resources
    free_ports: int
    tasks: int
    leased: bool


@dataclass(eq=False, slots=True)
class _Host:
    spec: HostSpec
    allocated: Resources = ZERO
    used_ports: set[int] = field(default_factory=set)
    # mesos task id -> (resources, ports)
    tasks: dict[str, tuple[Resources, tuple[int, ...]]] = field(default_factory=dict)
    lease: Lease | None = None

    def free(self) -> Resources:
        return (self.spec.capacity - self.allocated).clamp_zero()

    def port_count(self) -> int:
        lo, hi = self.spec.ports
        return max(0, hi - lo + 1)

    def free_port_count(self) -> int:
        return self.port_count() - len(self.used_ports)

    def port_is_free(self, port: int) -> bool:
        lo, hi = self.spec.ports
        return lo <= port <= hi and port not in self.used_ports

    def free_port_sample(self, limit: int) -> tuple[int, ...]:
        lo, hi = self.spec.ports
        if not self.used_ports:
            return tuple(range(lo, min(hi + 1, lo + limit)))
        out: list[int] = []
        for port in range(lo, hi + 1):
            if port not in self.used_ports:
                out.append(port)
                if len(out) >= limit:
                    break
        return tuple(out)

    def view(self) -> HostView:
        return HostView(spec=self.spec, allocated=self.allocated, free=self.free(),
                        free_ports=self.free_port_count(), tasks=len(self.tasks),
                        leased=self.lease is not None)


class HostPool:
    """Hosts, what runs on them, and the leases placement holds on them.

    Not thread-safe and not async: callers own the only reference and call it
    from one trio task at a time (every method runs to completion).
    """

    def __init__(self) -> None:
        self._hosts: dict[str, _Host] = {}
        # Hosts in insertion order: the ring ``acquire`` walks.
        self._ring: list[_Host] = []
        self._cursor = 0
        self._leases: dict[str, Lease] = {}
        self._used: dict[str, Lease] = {}  # consumed leases, until they expire
        # lease -> runs a placement put on it that have not launched yet
        self._expected: dict[str, set[str]] = {}
        self._task_host: dict[str, str] = {}
        self._lease_counter = 0
        # capacity(): sums over hosts, redone only when the hosts change,
        # and the allocation, kept as tasks come and go.
        self._shape: tuple[Resources, Resources] | None = None  # physical, largest
        self._allocated = ZERO

    # -- hosts ---------------------------------------------------------------

    def add_host(self, spec: HostSpec) -> None:
        """Add a host, or replace the spec of a known one (an agent that
        re-registers, perhaps with new resources), keeping its tasks and lease.

        A shrunken capacity can leave a host over-allocated until tasks end;
        its ``free`` then reads zero and it matches no request.
        """
        lo, hi = spec.ports
        if lo < 0 or hi > 65535:
            raise InvalidArgument(f"port range {lo}-{hi} is outside 0-65535",
                                  field="ports")
        host = self._hosts.get(spec.hostname)
        if host is None:
            host = self._hosts[spec.hostname] = _Host(spec)
            self._ring.append(host)
        else:
            host.spec = spec
        self._shape = None

    def remove_host(self, hostname: str) -> list[str]:
        """Forget a host and its lease; return the mesos task ids that were on
        it (the caller decides they are lost). Unknown hostnames return []."""
        host = self._hosts.pop(hostname, None)
        if host is None:
            return []
        self._ring.remove(host)
        self._shape = None
        self._allocated = (self._allocated - host.allocated).clamp_zero()
        if host.lease is not None:
            self._leases.pop(host.lease.lease_id, None)
            self._expected.pop(host.lease.lease_id, None)
        for lease_id in [i for i, lease in self._used.items() if lease.hostname == hostname]:
            del self._used[lease_id]
            self._expected.pop(lease_id, None)
        for task_id in host.tasks:
            self._task_host.pop(task_id, None)
        return list(host.tasks)

    def hosts(self) -> list[HostView]:
        """Every host, in the order they were added."""
        return [host.view() for host in self._ring]

    def host(self, hostname: str) -> HostView | None:
        host = self._hosts.get(hostname)
        return host.view() if host is not None else None

    def host_of(self, mesos_task_id: str) -> str | None:
        """The host a task runs on, or None if the pool does not know it."""
        return self._task_host.get(mesos_task_id)

    def lease(self, lease_id: str) -> Lease | None:
        """The outstanding lease with this id (expired but not yet pruned
        leases included), or None."""
        return self._leases.get(lease_id)

    # -- leases --------------------------------------------------------------

    def acquire(self, minimum: Resources, num_ports: int, max_hosts: int, now: float,
                lease_ttl: float, rng_seed: int | None = None,
                port_sample: int = MAX_LEASE_PORTS, demand: Resources | None = None,
                ) -> tuple[list[Lease], dict[str, int]]:
        """Lease up to ``max_hosts`` distinct unleased hosts that have at least
        ``minimum`` free and ``num_ports`` free ports. Each lease lists up to
        ``port_sample`` (at most MAX_LEASE_PORTS) of its host's free ports.
        With ``demand``, stop as soon as the leases' free resources add up to
        it in every kind where it is above zero (a placement batch that needs
        500 cpus leases ~20 hosts of 32, not 500). A demand without GPUs does
        not count GPU hosts' room: placement keeps those for GPU tasks.

        The scan is bounded: it walks the hosts as a ring from a starting
        offset and stops as soon as ``max_hosts`` hosts matched, so a large
        pool with room costs O(max_hosts) rather than O(hosts). The offset is
        a cursor that moves past the last host examined, so successive calls
        spread over the pool instead of all contending for its first hosts;
        with ``rng_seed`` the offset is drawn from ``random.Random(rng_seed)``
        instead (deterministic for a given seed). A full scan happens only
        when fewer than ``max_hosts`` hosts match.

        Returns the leases (each expiring at ``now + lease_ttl``) and, for the
        hosts examined, how many ended with each Peloton HostFilterResult:
        ``MATCH``, ``MISMATCH_STATUS`` (already leased),
        ``INSUFFICIENT_OFFER_RESOURCES``, ``MISMATCH_PORTS``; only non-zero
        counts appear. Filters run cheapest first; each host is counted once,
        under the first filter it failed. A lease found expired on the way is
        dropped and its host considered free.
        """
        if max_hosts < 1:
            raise InvalidArgument(f"must be at least 1, got {max_hosts}", field="max_hosts")
        if num_ports < 0:
            raise InvalidArgument(f"must not be negative, got {num_ports}", field="num_ports")
        leases: list[Lease] = []
        ring = self._ring
        n = len(ring)
        if n == 0:
            return leases, {}
        start = random.Random(rng_seed).randrange(n) if rng_seed is not None else self._cursor % n
        # The loop is inlined (no Resources built per host): it is the hot path.
        cpu, mem, disk, gpu = (v - EPSILON for v in minimum)
        leased = short = no_ports = examined = 0
        sample = max(0, min(port_sample, MAX_LEASE_PORTS))
        wanted = [(k, v) for k, v in enumerate(demand) if v > 0.0] if demand else []
        got = [0.0, 0.0, 0.0, 0.0]
        gpu_hosts_count = demand is not None and demand.gpu > 0.0
        for i in range(n):
            host = ring[(start + i) % n]
            examined += 1
            lease = host.lease
            if lease is not None:
                if lease.expires > now:
                    leased += 1
                    continue
                self._leases.pop(lease.lease_id, None)
                host.lease = None
            cap = host.spec.capacity
            used = host.allocated
            if (cpu > cap[0] - used[0] or mem > cap[1] - used[1]
                    or disk > cap[2] - used[2] or gpu > cap[3] - used[3]):
                short += 1
                continue
            if host.free_port_count() < num_ports:
                no_ports += 1
                continue
            lease = self._lease(host, now + lease_ttl, sample)
            leases.append(lease)
            if len(leases) >= max_hosts:
                break
            if wanted and (gpu_hosts_count or host.spec.capacity.gpu <= 0.0):
                free = lease.free
                for k in range(4):
                    got[k] += free[k]
                if all(got[k] >= v for k, v in wanted):
                    break
        self._cursor = (start + examined) % n
        counts = {MATCH: len(leases), MISMATCH_STATUS: leased,
                  INSUFFICIENT_OFFER_RESOURCES: short, MISMATCH_PORTS: no_ports}
        return leases, {reason: count for reason, count in counts.items() if count}

    def _lease(self, host: _Host, expires: float, port_sample: int) -> Lease:
        self._lease_counter += 1
        spec = host.spec
        lease = Lease(lease_id=f"{spec.hostname}-{self._lease_counter}",
                      hostname=spec.hostname, agent_id=spec.agent_id, cluster=spec.cluster,
                      free=host.free(),
                      ports=host.free_port_sample(port_sample) if port_sample else (),
                      attributes=spec.attributes, expires=expires)
        host.lease = lease
        self._leases[lease.lease_id] = lease
        return lease

    def plan(self, lease_id: str, mesos_task_ids: Sequence[str]) -> None:
        """Record the runs a placement put on a lease (several jobmgr shards
        may launch parts of it). The lease holds the host until all of them
        launched, or it expires. Unknown leases are ignored."""
        if lease_id in self._leases:
            self._expected[lease_id] = set(mesos_task_ids)

    def release(self, lease_ids: Sequence[str]) -> None:
        """Drop these leases so their hosts can be offered again. Unknown,
        expired or consumed ids are ignored; calling twice is harmless."""
        for lease_id in lease_ids:
            lease = self._leases.pop(lease_id, None)
            self._expected.pop(lease_id, None)
            if lease is not None:
                self._hosts[lease.hostname].lease = None

    def expire(self, now: float) -> list[str]:
        """Drop every lease with ``expires <= now``; return their ids."""
        expired = [lease_id for lease_id, lease in self._leases.items() if lease.expires <= now]
        self.release(expired)
        for lease_id in [i for i, lease in self._used.items() if lease.expires <= now]:
            del self._used[lease_id]
        return expired

    # -- tasks ---------------------------------------------------------------

    def launch(self, lease_id: str, tasks: Sequence[tuple[str, Resources, Sequence[int]]],
               now: float) -> None:
        """Consume a lease and record ``tasks`` (mesos task id, resources,
        ports) on its host.

        Tasks already on this host are skipped, so relaunching a batch under a
        new lease is harmless. All or nothing: on error nothing changes.

        Raises FailedPrecondition if the lease is unknown, expired
        (``expires <= now``) or already consumed; InvalidArgument if the new
        tasks together exceed the host's free resources, ask for a port that
        is outside the host's range, in use, or asked for twice, or name a
        task that runs on another host.
        """
        lease = self._leases.get(lease_id)
        if lease is None:
            # One placement can put tasks of several jobmgr shards on one
            # lease, and each shard launches its own: a used lease stays
            # good until it expires, while nobody else holds the host.
            lease = self._used.get(lease_id)
            if lease is not None and self._hosts[lease.hostname].lease is not None:
                lease = None
        if lease is None or lease.expires <= now:
            raise FailedPrecondition(
                f"lease {lease_id} is unknown, expired or already used", field="lease_id")
        host = self._hosts[lease.hostname]
        new: dict[str, tuple[Resources, tuple[int, ...]]] = {}
        want = ZERO
        ports_wanted: set[int] = set()
        for task_id, resources, ports in tasks:
            if task_id in host.tasks or task_id in new:
                continue
            elsewhere = self._task_host.get(task_id)
            if elsewhere is not None:
                raise InvalidArgument(f"task {task_id} already runs on host {elsewhere}",
                                      field="tasks")
            for port in ports:
                if port in ports_wanted or not host.port_is_free(port):
                    raise InvalidArgument(
                        f"port {port} is not free on host {host.spec.hostname}", field="tasks")
                ports_wanted.add(port)
            new[task_id] = (resources, tuple(ports))
            want = want + resources
        free = host.free()
        if not want.fits_in(free):
            over = ", ".join(want.exceeding(free))
            raise InvalidArgument(
                f"tasks need more than host {host.spec.hostname} has free: {over}",
                field="tasks")
        # Validated: commit.
        expected = self._expected.get(lease_id)
        if expected is not None:
            expected.difference_update(new)
            expected.difference_update(t[0] for t in tasks)
        if expected:
            pass  # other parts of the placement are still to launch: keep the host
        elif self._leases.pop(lease_id, None) is not None:
            self._expected.pop(lease_id, None)
            host.lease = None
            self._used[lease_id] = lease
        for task_id, entry in new.items():
            host.tasks[task_id] = entry
            self._task_host[task_id] = host.spec.hostname
        host.allocated = host.allocated + want
        self._allocated = self._allocated + want
        host.used_ports |= ports_wanted

    def task_ended(self, mesos_task_id: str) -> None:
        """Free a task's resources and ports. Unknown ids are ignored, so
        repeated terminal updates are harmless."""
        hostname = self._task_host.pop(mesos_task_id, None)
        if hostname is None:
            return
        host = self._hosts[hostname]
        resources, ports = host.tasks.pop(mesos_task_id)
        host.used_ports.difference_update(ports)
        # Reset to exact zero when empty so float rounding cannot accumulate.
        host.allocated = (host.allocated - resources).clamp_zero() if host.tasks else ZERO
        self._allocated = (self._allocated - resources).clamp_zero() if self._task_host else ZERO

    # -- capacity ------------------------------------------------------------

    def capacity(self) -> tuple[Resources, Resources, Resources, int]:
        """(physical, allocated, largest_host, hosts): the sums of capacity
        and allocation over all hosts, the per-kind maximum of host capacity
        (no single task larger than it can run anywhere), and the host count.
        O(1), but O(hosts) after hosts were added or removed."""
        if self._shape is None:
            physical = ZERO
            most = [0.0, 0.0, 0.0, 0.0]
            for host in self._hosts.values():
                physical = physical + host.spec.capacity
                most = [max(a, b) for a, b in zip(most, host.spec.capacity, strict=True)]
            self._shape = (physical, Resources(*most))
        return self._shape[0], self._allocated, self._shape[1], len(self._hosts)
