"""The host/lease pool of one hostmgr shard: pure bookkeeping, no I/O, no clock.

A host is offered to placement through a **lease** (Peloton's ``PLACING`` host
status): while a lease is outstanding the host is offered to nobody else, so
several placement workers can acquire concurrently without double-booking a host.
A lease ends in exactly one of three ways: ``launch`` consumes it, ``release``
drops it, or it expires (``expires <= now``).

**Slack** (Peloton's revocable resources, ``slack_resource_types: [cpus]``).
Non-revocable tasks rarely use all the cpu they were given; what they leave
idle on a host is its *slack*, and revocable tasks run on it::

    slack(host)      = max(0, cpu allocated to non-revocable tasks
                              - cpu those tasks use)
    free slack(host) = max(0, slack(host) - cpu lent to revocable tasks)

A revocable task takes its cpu from its host's free slack and its memory,
disk and gpu from the host's regular free resources; a non-revocable task
never uses slack. What a task uses is what ``set_usage`` last said (the
local backend measures its processes), and until then
``assumed_cpu_usage`` x its cpu (1.0 for measured backends, so a new task
makes no slack before it is measured; the sim backend's modelled fraction).
When non-revocable tasks start using more, a host's slack can fall below
what it lent: free slack reads 0 and the cluster's slack (``slack()``, what
resmgr's slack entitlement comes from) drops, which is how resmgr learns to
preempt revocable tasks. Nothing here kills them.

Invariants (``tests/hostmgr/test_hostpool.py`` checks them with Hypothesis):

- a host has at most one lease, and a lease names exactly one host;
- a host's ``allocated`` is the sum of the regular resources of the tasks on
  it (a revocable task's memory, disk and gpu; a non-revocable task's all),
  and ``launch`` never lets it exceed the host's capacity;
- ``launch`` never lends a host more slack cpu than it has free; free slack
  is never negative;
- a port is used by at most one task of a host, and only ports inside the
  host's range are ever used;
- a mesos task id is on at most one host.

Time is an argument (``now``, seconds as a float) so callers choose the clock.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from peloton.core.errors import FailedPrecondition, InvalidArgument, NotFound
from peloton.core.resources import EPSILON, ZERO, Resources
from peloton.shard.partition import JOB_ID_LENGTH
from peloton.spec.job import MAX_DYNAMIC_PORTS

# Peloton's HostFilterResult names (pkg/hostmgr/summary), used as count keys.
MATCH = "MATCH"
MISMATCH_STATUS = "MISMATCH_STATUS"
INSUFFICIENT_OFFER_RESOURCES = "INSUFFICIENT_OFFER_RESOURCES"
MISMATCH_PORTS = "MISMATCH_PORTS"
MISMATCH_CONSTRAINTS = "MISMATCH_CONSTRAINTS"

_INF = float("inf")

# A host's maintenance states (Peloton's HostState: UP, DRAINING, DOWN).
UP, DRAINING, DOWN = "UP", "DRAINING", "DOWN"
MAINTENANCE_STATES = (UP, DRAINING, DOWN)
MAX_LEASE_PORTS = MAX_DYNAMIC_PORTS
"""At most this many free ports are listed in a lease (a sample, lowest first);
a task asks for no more (the job spec refuses more)."""


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
    lease is used. ``slack`` is the host's free slack cpu then (what
    revocable tasks may take); it can shrink while leased, as usage is
    measured, and ``launch`` checks it again.
    """

    lease_id: str
    hostname: str
    agent_id: str
    cluster: str
    free: Resources
    ports: tuple[int, ...]
    attributes: Mapping[str, str]
    expires: float
    slack: float = 0.0


@dataclass(frozen=True, slots=True)
class HostView:
    """A read-only snapshot of one host. ``allocated`` and ``free`` are the
    regular resources; ``slack`` the host's slack cpu, ``lent`` what
    revocable tasks hold of it, ``usage`` the cpu its non-revocable tasks use."""

    spec: HostSpec
    allocated: Resources
    free: Resources
    free_ports: int
    tasks: int
    leased: bool
    slack: float = 0.0
    lent: float = 0.0
    usage: float = 0.0
    # UP, DRAINING (nothing new is placed; what runs moves off) or DOWN
    # (drained): the host's maintenance state.
    maintenance: str = UP


# A task on a host: (resources, ports, revocable, cpu it uses). A revocable
# task's usage is not tracked (0): slack is made by non-revocable tasks only.
_Task = tuple[Resources, tuple[int, ...], bool, float]


@dataclass(eq=False, slots=True)
class _Host:
    spec: HostSpec
    allocated: Resources = ZERO  # regular: a revocable task's cpu is not in it
    used_ports: set[int] = field(default_factory=set)
    tasks: dict[str, _Task] = field(default_factory=dict)
    lease: Lease | None = None
    usage: float = 0.0  # cpu the non-revocable tasks use
    lent: float = 0.0  # slack cpu held by revocable tasks
    maintenance: str = "UP"  # UP, DRAINING, DOWN
    # What runs here, for placement's SPREAD_JOB and TASK-label constraints:
    # tasks per job id, and per (key, value) label of theirs.
    jobs: dict[str, int] = field(default_factory=dict)
    labels: dict[tuple[str, str], int] = field(default_factory=dict)

    def free(self) -> Resources:
        return (self.spec.capacity - self.allocated).clamp_zero()

    def slack(self) -> float:
        """Cpu allocated to non-revocable tasks and left idle by them."""
        idle = self.allocated.cpu - self.usage
        return idle if idle > 0.0 else 0.0

    def free_slack(self) -> float:
        """Slack cpu not lent to revocable tasks yet."""
        left = self.slack() - self.lent
        return left if left > 0.0 else 0.0

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
                        leased=self.lease is not None, slack=self.slack(), lent=self.lent,
                        usage=self.usage, maintenance=self.maintenance)


class HostPool:
    """Hosts, what runs on them, and the leases placement holds on them.

    Not thread-safe and not async: callers own the only reference and call it
    from one trio task at a time (every method runs to completion).

    ``assumed_cpu_usage`` (0..1) is the fraction of a non-revocable task's
    cpu counted as used from its launch until ``set_usage`` says otherwise.
    """

    def __init__(self, *, assumed_cpu_usage: float = 1.0) -> None:
        if not 0.0 <= assumed_cpu_usage <= 1.0:
            raise InvalidArgument(f"must be in [0, 1], got {assumed_cpu_usage}",
                                  field="cpu_usage")
        self.assumed_cpu_usage = assumed_cpu_usage
        self._hosts: dict[str, _Host] = {}
        # Hosts in insertion order: the ring ``acquire`` walks.
        self._ring: list[_Host] = []
        self._cursor = 0
        self._leases: dict[str, Lease] = {}
        self._used: dict[str, Lease] = {}  # consumed leases, until they expire
        # lease -> runs a placement put on it that have not launched yet
        self._expected: dict[str, set[str]] = {}
        self._task_host: dict[str, str] = {}
        self._task_labels: dict[str, tuple[tuple[str, str], ...]] = {}  # tasks with labels
        self._lease_counter = 0
        # capacity(): sums over hosts, redone only when the hosts change,
        # and the allocation, kept as tasks come and go.
        self._shape: tuple[Resources, Resources] | None = None  # physical, largest
        self._allocated = ZERO
        # slack(): sums over hosts of their slack and of what they lent, kept
        # as tasks, usage and hosts change (never a scan of the hosts).
        self._slack = 0.0
        self._lent = 0.0

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
        self._slack = max(0.0, self._slack - host.slack()) if self._hosts else 0.0
        self._lent = max(0.0, self._lent - host.lent) if self._hosts else 0.0
        if host.lease is not None:
            self._leases.pop(host.lease.lease_id, None)
            self._expected.pop(host.lease.lease_id, None)
        for lease_id in [i for i, lease in self._used.items() if lease.hostname == hostname]:
            del self._used[lease_id]
            self._expected.pop(lease_id, None)
        for task_id in host.tasks:
            self._task_host.pop(task_id, None)
            self._task_labels.pop(task_id, None)
        return list(host.tasks)

    def hosts(self, maintenance: Collection[str] = ()) -> list[HostView]:
        """Every host, in the order they were added; only those in one of
        the ``maintenance`` states, when given (no view made of the rest)."""
        if maintenance:
            return [host.view() for host in self._ring if host.maintenance in maintenance]
        return [host.view() for host in self._ring]

    def host(self, hostname: str) -> HostView | None:
        host = self._hosts.get(hostname)
        return host.view() if host is not None else None

    def set_maintenance(self, hostname: str, state: str) -> None:
        """Set a host's maintenance state (UP, DRAINING, DOWN). A host that is
        not UP is leased to nobody and takes no launch; its lease goes."""
        host = self._hosts.get(hostname)
        if host is None:
            raise NotFound(f"no host {hostname!r}")
        if state not in MAINTENANCE_STATES:
            raise InvalidArgument(f"unknown state {state!r}", field="state")
        host.maintenance = state
        if state != UP and host.lease is not None:
            self._leases.pop(host.lease.lease_id, None)
            host.lease = None

    def tasks_on(self, hostname: str, jobs: Collection[str],
                 labels: Collection[tuple[str, str]]) -> tuple[dict[str, int],
                                                               dict[tuple[str, str], int]]:
        """How many tasks on ``hostname`` belong to each of ``jobs`` and carry
        each of ``labels`` (only those with at least one)."""
        host = self._hosts[hostname]
        return ({j: n for j in jobs if (n := host.jobs.get(j, 0))},
                {lab: n for lab in labels if (n := host.labels.get(lab, 0))})

    def host_count(self) -> int:
        return len(self._hosts)

    def host_of(self, mesos_task_id: str) -> str | None:
        """The host a task runs on, or None if the pool does not know it."""
        return self._task_host.get(mesos_task_id)

    def lease(self, lease_id: str) -> Lease | None:
        """The outstanding lease with this id (expired but not yet pruned
        leases included), or None."""
        return self._leases.get(lease_id)

    # -- leases --------------------------------------------------------------

    def acquire(self, minimum: Resources | None, num_ports: int, max_hosts: int, now: float,
                lease_ttl: float, rng_seed: int | None = None,
                port_sample: int = MAX_LEASE_PORTS, demand: Resources | None = None,
                slack_minimum: Resources | None = None,
                host_ok: Callable[[str, Mapping[str, str]], bool] | None = None,
                ) -> tuple[list[Lease], dict[str, int]]:
        """Lease up to ``max_hosts`` distinct unleased hosts that have at least
        ``minimum`` free and ``num_ports`` free ports. Each lease lists up to
        ``port_sample`` (at most MAX_LEASE_PORTS) of its host's free ports.
        With ``demand``, stop as soon as the leases' free resources add up to
        it in every kind where it is above zero (a placement batch that needs
        500 cpus leases ~20 hosts of 32, not 500). A demand without GPUs does
        not count GPU hosts' room: placement keeps those for GPU tasks.

        Revocable work: with ``slack_minimum``, a host also matches when its
        free slack cpu is at least ``slack_minimum.cpu`` and its regular free
        memory, disk and gpu are at least ``slack_minimum``'s (what the
        smallest revocable task needs); then a lease's slack counts towards
        ``demand``'s cpu too. ``minimum`` None leases for revocable work only.

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
        ``MISMATCH_CONSTRAINTS`` (``host_ok(hostname, attributes)`` said no:
        the batch's HOST-kind constraint), ``INSUFFICIENT_OFFER_RESOURCES`` (neither regular resources nor
        slack suffice), ``MISMATCH_PORTS``; only non-zero counts appear.
        Filters run cheapest first; each host is counted once, under the
        first filter it failed. A lease found expired on the way is dropped
        and its host considered free.
        """
        if max_hosts < 1:
            raise InvalidArgument(f"must be at least 1, got {max_hosts}", field="max_hosts")
        if num_ports < 0:
            raise InvalidArgument(f"must not be negative, got {num_ports}", field="num_ports")
        if minimum is None and slack_minimum is None:
            raise InvalidArgument("give a minimum, a slack minimum or both", field="minimum")
        leases: list[Lease] = []
        ring = self._ring
        n = len(ring)
        if n == 0:
            return leases, {}
        start = random.Random(rng_seed).randrange(n) if rng_seed is not None else self._cursor % n
        # The loop is inlined (no Resources built per host): it is the hot path.
        # Without a regular minimum the regular test always fails (cpu inf).
        cpu, mem, disk, gpu = ((v - EPSILON for v in minimum) if minimum is not None
                               else (_INF, _INF, _INF, _INF))
        revocable = slack_minimum is not None
        scpu, smem, sdisk, sgpu = ((v - EPSILON for v in slack_minimum)
                                   if slack_minimum is not None else (0.0, 0.0, 0.0, 0.0))
        leased = short = no_ports = examined = mismatched = 0
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
            if host.maintenance != UP:  # draining or down: nothing new goes there
                leased += 1
                continue
            if host_ok is not None and not host_ok(host.spec.hostname, host.spec.attributes):
                mismatched += 1
                continue
            cap = host.spec.capacity
            used = host.allocated
            # Regular resources, else (revocable work) slack cpu and the rest.
            if ((cpu > cap[0] - used[0] or mem > cap[1] - used[1]
                    or disk > cap[2] - used[2] or gpu > cap[3] - used[3])
                    and (not revocable or scpu > host.free_slack() or smem > cap[1] - used[1]
                         or sdisk > cap[2] - used[2] or sgpu > cap[3] - used[3])):
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
                if revocable:
                    got[0] += lease.slack
                if all(got[k] >= v for k, v in wanted):
                    break
        self._cursor = (start + examined) % n
        counts = {MATCH: len(leases), MISMATCH_STATUS: leased,
                  MISMATCH_CONSTRAINTS: mismatched,
                  INSUFFICIENT_OFFER_RESOURCES: short, MISMATCH_PORTS: no_ports}
        return leases, {reason: count for reason, count in counts.items() if count}

    def _lease(self, host: _Host, expires: float, port_sample: int) -> Lease:
        self._lease_counter += 1
        spec = host.spec
        lease = Lease(lease_id=f"{spec.hostname}-{self._lease_counter}",
                      hostname=spec.hostname, agent_id=spec.agent_id, cluster=spec.cluster,
                      free=host.free(),
                      ports=host.free_port_sample(port_sample) if port_sample else (),
                      attributes=spec.attributes, expires=expires, slack=host.free_slack())
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
               now: float, *, revocable: Collection[str] = (),
               labels: Mapping[str, Sequence[tuple[str, str]]] | None = None) -> None:
        """Consume a lease and record ``tasks`` (mesos task id, resources,
        ports) on its host; the ids in ``revocable`` are revocable tasks, and
        ``labels`` gives tasks' labels (what ``tasks_on`` counts).

        Tasks already on this host are skipped, so relaunching a batch under a
        new lease is harmless. All or nothing: on error nothing changes.

        Raises FailedPrecondition if the lease is unknown, expired
        (``expires <= now``) or already consumed; InvalidArgument if the new
        tasks together exceed the host's free resources (revocable tasks'
        cpu: its free slack, as it is before this launch; their memory, disk
        and gpu: its regular free resources, with the others'), ask for a
        port that is outside the host's range, in use, or asked for twice,
        or name a task that runs on another host.
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
        if host.maintenance != UP:
            raise FailedPrecondition(f"host {host.spec.hostname} is {host.maintenance} for "
                                     "maintenance", field="lease_id")
        new: dict[str, _Task] = {}
        want = ZERO
        want_slack = 0.0
        usage = 0.0
        ports_wanted: set[int] = set()
        assumed = self.assumed_cpu_usage
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
            if revocable and task_id in revocable:
                new[task_id] = (resources, tuple(ports), True, 0.0)
                want = want + resources._replace(cpu=0.0)
                want_slack += resources.cpu
            else:
                used = resources.cpu * assumed
                new[task_id] = (resources, tuple(ports), False, used)
                want = want + resources
                usage += used
        free = host.free()
        if not want.fits_in(free):
            over = ", ".join(want.exceeding(free))
            raise InvalidArgument(
                f"tasks need more than host {host.spec.hostname} has free: {over}",
                field="tasks")
        slack = host.free_slack()
        if want_slack > slack + EPSILON:
            raise InvalidArgument(
                f"revocable tasks need {want_slack:g} cpu of slack; host "
                f"{host.spec.hostname} has {slack:g} slack cpu free", field="tasks")
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
        self._record(host, new, want, usage, want_slack, ports_wanted, labels)

    def adopt(self, hostname: str, task_id: str, resources: Resources, ports: Sequence[int],
              *, revocable: bool = False, labels: Sequence[tuple[str, str]] = ()) -> None:
        """Record a run that a restarted host manager found still running on
        ``hostname``: it holds what it held, whether or not it fits what the
        host has free now (it runs). Unknown hosts and known runs are ignored."""
        host = self._hosts.get(hostname)
        if host is None or task_id in self._task_host:
            return
        if revocable:
            entry: _Task = (resources, tuple(ports), True, 0.0)
            want, slack, usage = resources._replace(cpu=0.0), resources.cpu, 0.0
        else:
            usage = resources.cpu * self.assumed_cpu_usage
            entry = (resources, tuple(ports), False, usage)
            want, slack = resources, 0.0
        self._record(host, {task_id: entry}, want, usage, slack, set(ports),
                     {task_id: labels} if labels else None)

    def _record(self, host: _Host, new: dict[str, _Task], want: Resources, usage: float,
                want_slack: float, ports_wanted: set[int],
                labels: Mapping[str, Sequence[tuple[str, str]]] | None) -> None:
        """Put validated runs on ``host``: tasks, jobs, labels, allocation,
        cpu usage, slack lent and ports."""
        for task_id, entry in new.items():
            host.tasks[task_id] = entry
            self._task_host[task_id] = host.spec.hostname
            job = task_id[:JOB_ID_LENGTH]
            host.jobs[job] = host.jobs.get(job, 0) + 1
            task_labels = tuple(labels.get(task_id, ())) if labels else ()
            if task_labels:
                self._task_labels[task_id] = task_labels
                for label in task_labels:
                    host.labels[label] = host.labels.get(label, 0) + 1
        before = host.slack()
        host.allocated = host.allocated + want
        host.usage += usage
        host.lent += want_slack
        self._allocated = self._allocated + want
        self._slack += host.slack() - before
        self._lent += want_slack
        host.used_ports |= ports_wanted

    def task_ended(self, mesos_task_id: str) -> None:
        """Free a task's resources and ports. Unknown ids are ignored, so
        repeated terminal updates are harmless."""
        hostname = self._task_host.pop(mesos_task_id, None)
        if hostname is None:
            return
        host = self._hosts[hostname]
        resources, ports, revocable, used = host.tasks.pop(mesos_task_id)
        host.used_ports.difference_update(ports)
        job = mesos_task_id[:JOB_ID_LENGTH]
        if host.jobs.get(job, 0) > 1:
            host.jobs[job] -= 1
        else:
            host.jobs.pop(job, None)
        for label in self._task_labels.pop(mesos_task_id, ()):
            if host.labels.get(label, 0) > 1:
                host.labels[label] -= 1
            else:
                host.labels.pop(label, None)
        # Inlined slack() before and after (this runs once per task end).
        alloc = host.allocated
        idle = alloc.cpu - host.usage
        before = idle if idle > 0.0 else 0.0
        if revocable:
            regular = resources._replace(cpu=0.0)
            lent = host.lent - resources.cpu
            host.lent = lent if lent > 0.0 else 0.0
        else:
            regular = resources
            usage = host.usage - used
            host.usage = usage if usage > 0.0 else 0.0
        # Reset to exact zero when empty so float rounding cannot accumulate.
        if host.tasks:
            alloc = host.allocated = (alloc - regular).clamp_zero()
        else:
            alloc = host.allocated = ZERO
            host.usage = host.lent = 0.0
        if self._task_host:
            self._allocated = (self._allocated - regular).clamp_zero()
            idle = alloc.cpu - host.usage
            total = self._slack + (idle if idle > 0.0 else 0.0) - before
            self._slack = total if total > 0.0 else 0.0
            if revocable:
                self._lent = max(0.0, self._lent - resources.cpu)
        else:
            self._allocated, self._slack, self._lent = ZERO, 0.0, 0.0

    def set_usage(self, usage: Iterable[tuple[str, float]]) -> None:
        """What non-revocable tasks use now, as (mesos task id, cpu) pairs;
        negative figures count as 0. Unknown and revocable tasks are ignored.
        O(1) per pair: the host's slack and the pool's sum move with it."""
        task_host = self._task_host
        hosts = self._hosts
        for task_id, cpu in usage:
            hostname = task_host.get(task_id)
            if hostname is None:
                continue
            host = hosts[hostname]
            resources, ports, revocable, old = host.tasks[task_id]
            cpu = cpu if cpu > 0.0 else 0.0
            if revocable or cpu == old:
                continue
            host.tasks[task_id] = (resources, ports, False, cpu)
            before = host.slack()
            host.usage = max(0.0, host.usage + cpu - old)
            self._slack = max(0.0, self._slack + host.slack() - before)

    # -- capacity ------------------------------------------------------------

    def capacity(self) -> tuple[Resources, Resources, Resources, int]:
        """(physical, allocated, largest_host, hosts): the sums of capacity
        and of regular allocation over all hosts, the per-kind maximum of host capacity
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

    def slack(self) -> tuple[float, float]:
        """(slack, lent): the sum over hosts of their slack cpu (what
        revocable tasks hold included) and of the slack cpu revocable tasks
        hold. O(1). A host that lent more than its slack now (its
        non-revocable tasks got busier) counts with its slack only: the
        excess lowers the cluster's slack below what revocable tasks hold
        unless other hosts have slack to spare."""
        return self._slack, self._lent
