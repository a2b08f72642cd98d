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

Blocking file I/O: call these from a worker thread, or (``join``) from the
child between fork and exec.
"""

from __future__ import annotations

import os
import time
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

MIN_MEMORY_MB = 32  # Mesos's MIN_MEMORY: a container gets at least this much
CGROUP_ROOT = Path("/sys/fs/cgroup")
CFS_PERIOD_US = 100_000  # Mesos's CPU_CFS_PERIOD
MIN_CPU_SHARES = 2  # the kernel's minimum
MIN_CFS_QUOTA_US = 1_000  # Mesos's MIN_CPU_CFS_QUOTA


@dataclass(frozen=True, slots=True)
class MemoryCgroups:
    base: Path  # the host manager's own cgroup in the memory hierarchy
    v2: bool
    # v1: the host manager's own cgroup in the cpu and pids hierarchies; v2:
    # ``base`` when the controller is enabled for its children; None: not used.
    cpu_base: Path | None = None
    pids_base: Path | None = None

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

    def create(self, run: str, limit_mb: float, cpus: float = 0.0,
               pids_max: int = 0) -> list[str]:
        """Make the run's cgroups: its memory limit (and no swap beyond it
        where the kernel accounts swap), its cpu shares and CFS quota for
        ``cpus`` (when > 0), its ``pids_max`` (when > 0). Returns them all (their paths):
        the task joins each."""
        # (Strings, not Paths: this runs for every run's start.)
        name = f"peloton-{run}"
        path = f"{self.base}/{name}"
        made = [path]
        _mkdir(path)
        if self.cpu_base is not None and cpus > 0:
            cpu = f"{self.cpu_base}/{name}"
            if cpu != path:
                _mkdir(cpu)
                made.append(cpu)
            shares = max(MIN_CPU_SHARES, int(cpus * 1024))
            quota = max(MIN_CFS_QUOTA_US, int(cpus * CFS_PERIOD_US))
            if self.v2:  # weight 1..10000 from shares 2..262144, as the kernel maps them
                _write(f"{cpu}/cpu.weight", str(1 + (shares - 2) * 9999 // 262142))
                _write(f"{cpu}/cpu.max", f"{quota} {CFS_PERIOD_US}")
            else:
                _write(f"{cpu}/cpu.shares", str(shares))
                _write(f"{cpu}/cpu.cfs_period_us", str(CFS_PERIOD_US))
                _write(f"{cpu}/cpu.cfs_quota_us", str(quota))
        if self.pids_base is not None and pids_max > 0:
            pids = f"{self.pids_base}/{name}"
            if pids not in made:
                _mkdir(pids)
                made.append(pids)
            _write(f"{pids}/pids.max", str(pids_max))
        limit = str(int(max(limit_mb, MIN_MEMORY_MB) * 1024 * 1024))
        if self.v2:
            _write(f"{path}/memory.max", limit)
            _write(f"{path}/memory.swap.max", "0", missing_ok=True)
        else:
            _write(f"{path}/memory.limit_in_bytes", limit)
            _write(f"{path}/memory.memsw.limit_in_bytes", limit, missing_ok=True)
        return made

    def oom_killed(self, run: str) -> bool:
        """Whether the OOM killer killed a process of the run (its counter)."""
        # (Strings, not Paths: this and pids() run for every run's end.)
        path = f"{self.base}/peloton-{run}"
        try:
            with open(f"{path}/memory.events" if self.v2 else f"{path}/memory.oom_control") as f:
                text = f.read()
            for line in text.splitlines():
                name, _, value = line.partition(" ")
                if name == "oom_kill":
                    return int(value) > 0
            if not self.v2:  # old kernels: no oom_kill line; the limit was hit
                with open(f"{path}/memory.failcnt") as f:
                    return int(f.read()) > 0
        except (OSError, ValueError):
            pass
        return False

    def pids(self, run: str) -> list[int]:
        try:
            with open(f"{self.base}/peloton-{run}/cgroup.procs") as f:
                return [int(p) for p in f.read().split()]
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
        for base in self._bases:
            try:
                os.rmdir(f"{base}/peloton-{run}")
            except OSError:
                pass


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
