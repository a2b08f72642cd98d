"""A cgroup per local run, as Mesos's cgroups isolators make them.

``MemoryCgroups.detect()`` finds the memory controller of the host manager's
own cgroup (cgroup v2, or the v1 ``memory`` hierarchy) and checks that it may
make children there; each run then gets ``peloton-<run>`` below it with the
task's ``resource.memLimitMb`` as its limit (at least ``MIN_MEMORY_MB``, as
Mesos's), joined by the task's process before it runs the command. A run the
kernel's OOM killer ended is told apart by the cgroup's own counter. Where
nothing can be made (no memory controller, no permission), ``detect``
returns None with the reason, and the backend runs tasks without a limit
(and says so at start).

Where the cpu and pids controllers can be used too (a v1 hierarchy of each
in which this process may make children, or v2 with them enabled for its
children), a run also gets ``cpu.shares`` (cpuLimit x 1024) and a CFS quota
of cpuLimit CPUs (``cpu.cfs_quota_us`` / ``cpu.max``, as Mesos with
``--cgroups_enable_cfs``), and ``pids.max``. ``enforced`` names what is.

**Spare cgroups (v1).** Making a run's three v1 cgroups and removing them
costs ~0.3 ms of the kernel's cpu a run (mkdir and rmdir of a memory
cgroup are the dear part); renaming one costs a few microseconds. So a
run's cgroups that end empty, not OOM-killed and charged little (under
``SPARE_MAX_USAGE``: its files on tmpfs stay charged to it) are renamed
``peloton-spare-<pid>-<n>`` and kept (up to ``SPARES_MAX``), their
resettable counters reset (the peak usage, the failure count, cpuacct's
usage); the next run's are a spare renamed to its name, with the limits
it wants written where they differ. A spare lives at most
``SPARE_MAX_AGE`` from its making (older, it is removed instead), well
under the sweep's age, so no host manager's sweep takes one for a
leftover: kernfs keeps a cgroup's time of making through renames, and a
sweep tells a leftover from a cgroup about to be joined by that time.
cgroup v2 has no rename: there each run's cgroup is made and removed.

Blocking file I/O: call these from a worker thread, or (``join``) from the
child between fork and exec.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

MIN_MEMORY_MB = 32  # Mesos's MIN_MEMORY: a container gets at least this much
CGROUP_ROOT = Path("/sys/fs/cgroup")
CFS_PERIOD_US = 100_000  # Mesos's CPU_CFS_PERIOD
MIN_CPU_SHARES = 2  # the kernel's minimum
MIN_CFS_QUOTA_US = 1_000  # Mesos's MIN_CPU_CFS_QUOTA
SPARES_MAX = 64  # spare cgroups kept for the runs to come (v1)
SPARE_MAX_AGE = 300.0  # seconds from its making; under a sweep's age (the backend's, 600)
SPARE_MAX_USAGE = 1 << 20  # bytes still charged to an ended run's memory cgroup
# A spare's number: one count for the process (its backends share a base).
_SPARE_NUMBERS = itertools.count()


@dataclass(frozen=True, slots=True)
class _Limits:
    """What a run's cgroups hold: its memory limit in bytes, its cpu shares
    and CFS quota (None: no cpu cgroup), its pids.max (0: no pids cgroup)."""
    memory: int
    cpu: tuple[int, int] | None
    pids: int


@dataclass(frozen=True, slots=True)
class _Spare:
    name: str  # below each base: peloton-<name>
    born: float  # its making (time.time())
    limits: _Limits


@dataclass(frozen=True, slots=True)
class MemoryCgroups:
    base: Path  # the host manager's own cgroup in the memory hierarchy
    v2: bool
    # v1: the host manager's own cgroup in the cpu and pids hierarchies; v2:
    # ``base`` when the controller is enabled for its children; None: not used.
    cpu_base: Path | None = None
    pids_base: Path | None = None
    # v1: spare cgroups, newest last (list operations are atomic: a worker
    # thread's create and the event loop's release may meet).
    spares: list[_Spare] = field(default_factory=list, compare=False, repr=False)

    @property
    def enforced(self) -> list[str]:
        """What a run's cgroups limit."""
        return ["memory"] + (["cpu"] if self.cpu_base else []) + (
            ["pids"] if self.pids_base else [])

    @classmethod
    def detect(cls, proc_cgroup: Path = Path("/proc/self/cgroup"),
               root: Path = CGROUP_ROOT) -> tuple[MemoryCgroups | None, str]:
        """(cgroups to use, or None, and why not)."""
        try:
            lines = proc_cgroup.read_text().splitlines()
        except OSError as error:
            return None, f"cannot read {proc_cgroup}: {error.strerror}"
        own: dict[str, str] = {}
        for line in lines:
            _, controllers, path = line.split(":", 2)
            for name in controllers.split(",") if controllers else [""]:
                own[name] = path
        candidates: list[MemoryCgroups] = []
        if "memory" in own:  # a v1 memory hierarchy
            candidates.append(cls(root / "memory" / own["memory"].lstrip("/"), False))
        if "" in own:
            unified = root / "unified" if (root / "unified").is_dir() else root
            base = unified / own[""].lstrip("/")
            try:
                if "memory" in (base / "cgroup.controllers").read_text().split():
                    candidates.append(cls(base, True))
            except OSError:
                pass
        if not candidates:
            return None, "this process is in no cgroup with a memory controller"
        why = ""
        for cgroups in candidates:
            probe = cgroups.base / f"peloton-probe-{os.getpid()}"
            try:
                probe.mkdir()
                probe.rmdir()
            except OSError as error:
                why = f"cannot make a cgroup in {cgroups.base}: {error.strerror}"
                continue
            if cgroups.v2:
                try:
                    enabled = (cgroups.base / "cgroup.subtree_control").read_text().split()
                except OSError:
                    enabled = []
                return cls(cgroups.base, True,
                           cgroups.base if "cpu" in enabled else None,
                           cgroups.base if "pids" in enabled else None), ""
            return cls(cgroups.base, False, _v1_base(root, own, "cpu", ("cpu", "cpu,cpuacct")),
                       _v1_base(root, own, "pids", ("pids",))), ""
        return None, why

    @property
    def _bases(self) -> list[Path]:
        """Each hierarchy's base once (v2: one)."""
        return list(dict.fromkeys(b for b in (self.base, self.cpu_base, self.pids_base) if b))

    def path(self, run: str) -> Path:
        return self.base / f"peloton-{run}"

    def paths(self, run: str) -> list[Path]:
        """Every cgroup of the run (one in v2; memory, cpu, pids in v1)."""
        return [base / f"peloton-{run}" for base in self._bases]

    def limits(self, limit_mb: float, cpus: float = 0.0, pids_max: int = 0) -> _Limits:
        """The limits :meth:`create` gives a run of ``limit_mb``, ``cpus``
        (> 0: a cpu cgroup) and ``pids_max`` (> 0: a pids cgroup)."""
        cpu = None
        if self.cpu_base is not None and cpus > 0:
            cpu = (max(MIN_CPU_SHARES, int(cpus * 1024)),
                   max(MIN_CFS_QUOTA_US, int(cpus * CFS_PERIOD_US)))
        return _Limits(int(max(limit_mb, MIN_MEMORY_MB) * 1024 * 1024), cpu,
                       pids_max if self.pids_base is not None and pids_max > 0 else 0)

    def _paths_of(self, name: str, limits: _Limits) -> list[str]:
        """The cgroups named ``peloton-<name>`` a run of ``limits`` has:
        memory, then cpu and pids where it has them (one path in v2)."""
        paths = [f"{self.base}/peloton-{name}"]
        for base, used in ((self.cpu_base, limits.cpu is not None),
                           (self.pids_base, limits.pids > 0)):
            if used and base is not None and (path := f"{base}/peloton-{name}") not in paths:
                paths.append(path)
        return paths

    def create(self, run: str, limit_mb: float, cpus: float = 0.0,
               pids_max: int = 0) -> list[str]:
        """Make the run's cgroups (or rename a spare to them): its memory
        limit (and no swap beyond it where the kernel accounts swap), its
        cpu shares and CFS quota for ``cpus`` (when > 0), its ``pids_max``
        (when > 0). Returns them all (their paths): the task joins each."""
        # (Strings, not Paths: this runs for every run's start.)
        limits = self.limits(limit_mb, cpus, pids_max)
        if self.spares:
            made = self._take_spare(run, limits)
            if made is not None:
                return made
        made = self._paths_of(run, limits)
        for path in made:
            _mkdir(path)
        self._write_limits(made, limits, None)
        return made

    def _write_limits(self, paths: list[str], limits: _Limits, had: _Limits | None) -> None:
        """Write ``limits`` into a run's cgroups ``paths``; ``had``: what a
        spare holds (only what differs is written), None: fresh ones."""
        path = paths[0]
        if limits.cpu is not None and (had is None or had.cpu != limits.cpu):
            cpu = path if self.v2 else paths[1]
            shares, quota = limits.cpu
            if self.v2:  # weight 1..10000 from shares 2..262144, as the kernel maps them
                _write(f"{cpu}/cpu.weight", str(1 + (shares - 2) * 9999 // 262142))
                _write(f"{cpu}/cpu.max", f"{quota} {CFS_PERIOD_US}")
            else:
                _write(f"{cpu}/cpu.shares", str(shares))
                if had is None:
                    _write(f"{cpu}/cpu.cfs_period_us", str(CFS_PERIOD_US))
                _write(f"{cpu}/cpu.cfs_quota_us", str(quota))
        if limits.pids and (had is None or had.pids != limits.pids):
            _write(f"{paths[-1]}/pids.max", str(limits.pids))
        if had is not None and had.memory == limits.memory:
            return
        limit = str(limits.memory)
        if self.v2:
            _write(f"{path}/memory.max", limit)
            _write(f"{path}/memory.swap.max", "0", missing_ok=True)
        elif had is not None and limits.memory > had.memory:
            # v1 keeps memory+swap >= memory: raised, that one first.
            _write(f"{path}/memory.memsw.limit_in_bytes", limit, missing_ok=True)
            _write(f"{path}/memory.limit_in_bytes", limit)
        else:
            _write(f"{path}/memory.limit_in_bytes", limit)
            _write(f"{path}/memory.memsw.limit_in_bytes", limit, missing_ok=True)

    def _take_spare(self, run: str, limits: _Limits) -> list[str] | None:
        """A spare renamed to the run's cgroups with ``limits`` written; None
        when none fits (spares too old or of another shape are removed)."""
        now = time.time()
        while True:
            try:
                spare = self.spares.pop()
            except IndexError:
                return None
            if (now - spare.born <= SPARE_MAX_AGE and (spare.limits.cpu is None)
                    == (limits.cpu is None) and (spare.limits.pids > 0) == (limits.pids > 0)):
                break
            self._remove_named(spare.name)
        made = self._rename(spare.name, run, spare.limits)  # None: swept from under it
        if made is not None:
            try:
                self._write_limits(made, limits, spare.limits)
            except OSError:  # a limit the kernel refused: made afresh
                for path in made:
                    _rmdir(path)
                return None
        return made

    def _rename(self, old: str, new: str, limits: _Limits) -> list[str] | None:
        """Rename the cgroups ``peloton-<old>`` of ``limits``' shape to
        ``peloton-<new>``: their new paths, or None when one could not be
        (then none is left under either name)."""
        moved: list[str] = []
        try:
            for path, to in zip(self._paths_of(old, limits), self._paths_of(new, limits),
                                strict=True):
                os.rename(path, to)
                moved.append(to)
        except OSError:
            for path in moved:
                _rmdir(path)
            self._remove_named(old)
            return None
        return moved

    def release(self, run: str, limit_mb: float, cpus: float = 0.0, pids_max: int = 0) -> None:
        """The run ended, its cgroups empty and not OOM-killed (its caller
        looked): kept as a spare where they can be (v1, few spares, young,
        little still charged), else removed as :meth:`remove` does."""
        if self.v2 or len(self.spares) >= SPARES_MAX:
            self.remove(run)
            return
        limits = self.limits(limit_mb, cpus, pids_max)
        paths = self._paths_of(run, limits)
        memory = paths[0]
        try:
            born = os.stat(memory).st_mtime
            charged = int(_read(f"{memory}/memory.usage_in_bytes"))
            if time.time() - born > SPARE_MAX_AGE or charged > SPARE_MAX_USAGE:
                raise ValueError("not worth keeping")
            # What a fresh cgroup would read 0 for, that can be reset.
            _write(f"{memory}/memory.max_usage_in_bytes", "0")
            _write(f"{memory}/memory.failcnt", "0")
            if limits.cpu is not None:
                _write(f"{paths[1]}/cpuacct.usage", "0", missing_ok=True)
        except (OSError, ValueError):
            self.remove(run)
            return
        name = f"spare-{os.getpid()}-{next(_SPARE_NUMBERS)}"
        if self._rename(run, name, limits) is not None:
            self.spares.append(_Spare(name, born, limits))

    def retire_spares(self, max_age: float = SPARE_MAX_AGE, now: float | None = None) -> int:
        """Remove the spares made ``max_age`` ago or more (all: 0); how many."""
        cutoff = (time.time() if now is None else now) - max_age
        gone = 0
        for spare in [s for s in self.spares if max_age <= 0 or s.born <= cutoff]:
            try:
                self.spares.remove(spare)
            except ValueError:  # taken meanwhile
                continue
            self._remove_named(spare.name)
            gone += 1
        return gone

    def oom_killed(self, run: str) -> bool:
        """Whether the OOM killer killed a process of the run (its counter)."""
        # (Strings, not Paths: this and pids() run for every run's end.)
        path = f"{self.base}/peloton-{run}"
        try:
            text = _read(f"{path}/memory.events" if self.v2 else f"{path}/memory.oom_control")
            for line in text.splitlines():
                name, _, value = line.partition(b" ")
                if name == b"oom_kill":
                    return int(value) > 0
            if not self.v2:  # old kernels: no oom_kill line; the limit was hit
                return int(_read(f"{path}/memory.failcnt")) > 0
        except (OSError, ValueError):
            pass
        return False

    def pids(self, run: str) -> list[int]:
        try:
            return [int(p) for p in _read(f"{self.base}/peloton-{run}/cgroup.procs").split()]
        except (OSError, ValueError):
            return []

    def sweep(self, keep: Collection[str], older_than: float,
              now: float | None = None) -> int:
        """Remove every empty run cgroup (``peloton-*``) made ``older_than``
        seconds ago or more, but those of the runs in ``keep``: ones a host
        manager left behind (its runs' directory deleted under it, a
        removal that failed). A run's cgroup is empty only for the moments
        between its making and the run's start: younger ones are another
        host manager's, about to be joined. Returns how many went."""
        cutoff = (time.time() if now is None else now) - older_than
        gone = 0
        for base in self._bases:
            try:
                entries = list(os.scandir(base))
            except OSError:
                continue
            for entry in entries:
                name = entry.name
                if not name.startswith("peloton-") or name[len("peloton-"):] in keep:
                    continue
                try:
                    if entry.stat().st_mtime > cutoff:
                        continue
                    with open(os.path.join(entry.path, "cgroup.procs")) as f:
                        if f.read().strip():
                            continue
                    os.rmdir(entry.path)
                    gone += 1
                except OSError:
                    continue
        return gone

    def remove(self, run: str) -> None:
        """Remove the run's cgroups once its processes are gone (ignored if
        one is not empty yet, or gone)."""
        self._remove_named(run)

    def _remove_named(self, name: str) -> None:
        for base in self._bases:
            _rmdir(f"{base}/peloton-{name}")


def _rmdir(path: str) -> None:
    try:
        os.rmdir(path)
    except OSError:
        pass


def _read(path: str) -> bytes:
    """A cgroup file's text (these are small; a builtin open() costs twice)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        data = os.read(fd, 65536)
        while more := os.read(fd, 65536):  # (a read may return less than there is)
            data += more
        return data
    finally:
        os.close(fd)


def _mkdir(path: str) -> None:
    try:
        os.mkdir(path)
    except FileExistsError:
        pass


def _write(path: str, value: str, *, missing_ok: bool = False) -> None:
    """Write a cgroup file; one that is not there (swap not accounted) is
    skipped when ``missing_ok``."""
    try:
        fd = os.open(path, os.O_WRONLY)
    except FileNotFoundError:
        if missing_ok:
            return
        raise
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def _v1_base(root: Path, own: dict[str, str], controller: str,
             mounts: tuple[str, ...]) -> Path | None:
    """This process's cgroup in the v1 hierarchy of ``controller``, if one
    is mounted and a child can be made there."""
    if controller not in own:
        return None
    for mount in mounts:
        base = root / mount / own[controller].lstrip("/")
        probe = base / f"peloton-probe-{os.getpid()}"
        try:
            probe.mkdir()
            probe.rmdir()
            return base
        except OSError:
            continue
    return None
