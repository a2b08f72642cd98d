"""A memory cgroup per local run, as Mesos's cgroups/mem isolator makes one.

``MemoryCgroups.detect()`` finds the memory controller of the host manager's
own cgroup (cgroup v2, or the v1 ``memory`` hierarchy) and checks that it may
make children there; each run then gets ``peloton-<run>`` below it with the
task's ``resource.memLimitMb`` as its limit (at least ``MIN_MEMORY_MB``, as
Mesos's), joined by the task's process before it runs the command. A run the
kernel's OOM killer ended is told apart by the cgroup's own counter. Where
nothing can be made (no memory controller, no permission), ``detect``
returns None with the reason, and the backend runs tasks without a limit
(and says so at start).

Blocking file I/O: call these from a worker thread, or (``join``) from the
child between fork and exec.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

MIN_MEMORY_MB = 32  # Mesos's MIN_MEMORY: a container gets at least this much
CGROUP_ROOT = Path("/sys/fs/cgroup")


@dataclass(frozen=True, slots=True)
class MemoryCgroups:
    base: Path  # the host manager's own cgroup in the memory hierarchy
    v2: bool

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
                return cgroups, ""
            except OSError as error:
                why = f"cannot make a cgroup in {cgroups.base}: {error.strerror}"
        return None, why

    def path(self, run: str) -> Path:
        return self.base / f"peloton-{run}"

    def create(self, run: str, limit_mb: float) -> Path:
        """Make the run's cgroup with its memory limit (and no swap beyond it
        where the kernel accounts swap)."""
        path = self.path(run)
        path.mkdir(exist_ok=True)
        limit = str(int(max(limit_mb, MIN_MEMORY_MB) * 1024 * 1024))
        if self.v2:
            (path / "memory.max").write_text(limit)
            swap = path / "memory.swap.max"
            if swap.exists():
                swap.write_text("0")
        else:
            (path / "memory.limit_in_bytes").write_text(limit)
            memsw = path / "memory.memsw.limit_in_bytes"
            if memsw.exists():
                memsw.write_text(limit)
        return path

    def oom_killed(self, run: str) -> bool:
        """Whether the OOM killer killed a process of the run (its counter)."""
        path = self.path(run)
        try:
            if self.v2:
                text = (path / "memory.events").read_text()
                key = "oom_kill"
            else:
                text = (path / "memory.oom_control").read_text()
                key = "oom_kill"
            for line in text.splitlines():
                name, _, value = line.partition(" ")
                if name == key:
                    return int(value) > 0
            if not self.v2:  # old kernels: no oom_kill line; the limit was hit
                return int((path / "memory.failcnt").read_text()) > 0
        except (OSError, ValueError):
            pass
        return False

    def pids(self, run: str) -> list[int]:
        try:
            return [int(p) for p in (self.path(run) / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return []

    def remove(self, run: str) -> None:
        """Remove the run's cgroup once its processes are gone (ignored if
        it is not empty yet, or gone)."""
        try:
            self.path(run).rmdir()
        except OSError:
            pass
