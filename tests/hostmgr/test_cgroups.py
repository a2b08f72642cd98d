"""Run cgroups against this machine's own (skipped where none can be made):
the spares a v1 host manager keeps instead of removing and making each
run's cgroups."""

from __future__ import annotations

import dataclasses
import itertools
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from peloton.hostmgr.backends import cgroups as cgroups_module
from peloton.hostmgr.backends import local
from peloton.hostmgr.backends.cgroups import SPARE_MAX_AGE, MemoryCgroups

HAVE, WHY = MemoryCgroups.detect()
pytestmark = pytest.mark.skipif(
    HAVE is None or HAVE.v2 or not {"cpu", "pids"} <= set(HAVE.enforced),
    reason=f"spares are cgroup v1's (v2 has no rename), here with its memory, cpu and pids "
           f"controllers: {WHY or 'this machine has v2, or not all three'}")
_names = itertools.count()
MB = 1024 * 1024


@pytest.fixture
def cgroups() -> Iterator[MemoryCgroups]:
    assert HAVE is not None
    own = MemoryCgroups(HAVE.base, HAVE.v2, HAVE.cpu_base, HAVE.pids_base)  # its own spares
    yield own
    own.retire_spares(0)


@pytest.fixture
def runs(cgroups: MemoryCgroups) -> Iterator[list[str]]:
    """Names for runs, their cgroups removed after."""
    names = [f"test-{os.getpid()}-{next(_names)}" for _ in range(3)]
    yield names
    for name in names:
        cgroups.remove(name)


def _read(path: str, name: str) -> str:
    return Path(path, name).read_text().strip()


def _spare_paths(cgroups: MemoryCgroups, made: list[str], run: str) -> list[str]:
    [spare] = cgroups.spares
    return [p.replace(f"/peloton-{run}", f"/peloton-{spare.name}") for p in made]


def test_an_ended_runs_cgroups_are_the_next_runs_with_its_own_limits(
        cgroups: MemoryCgroups, runs: list[str]):
    """Released, a run's cgroups are renamed a spare; the next run's are
    that spare renamed to its name, holding its limits (memory raised, then
    lowered: memory+swap follows in the order v1 accepts)."""
    a, b, c = runs
    made = cgroups.create(a, 64, 0.5, 100)
    cgroups.release(a, 64, 0.5, 100)
    spare = _spare_paths(cgroups, made, a)
    assert all(os.path.isdir(p) for p in spare)
    assert not any(os.path.exists(p) for p in made)
    for run, memory_mb, cpus, pids in ((b, 128, 1.0, 200), (c, 48, 0.25, 200)):
        taken = cgroups.create(run, memory_mb, cpus, pids)
        assert taken == [p.replace(f"/peloton-{a}", f"/peloton-{run}") for p in made]
        assert cgroups.spares == [] and not any(os.path.exists(p) for p in spare)
        memory = taken[0]
        assert int(_read(memory, "memory.limit_in_bytes")) == memory_mb * MB
        if os.path.exists(f"{memory}/memory.memsw.limit_in_bytes"):
            assert int(_read(memory, "memory.memsw.limit_in_bytes")) == memory_mb * MB
        assert int(_read(taken[1], "cpu.shares")) == int(cpus * 1024)
        assert int(_read(taken[1], "cpu.cfs_quota_us")) == int(cpus * 100_000)
        assert int(_read(taken[1], "cpu.cfs_period_us")) == 100_000
        assert int(_read(taken[2], "pids.max")) == pids
        cgroups.release(run, memory_mb, cpus, pids)
        spare = _spare_paths(cgroups, taken, run)


def test_a_spare_of_another_shape_or_too_old_is_removed_not_taken(
        cgroups: MemoryCgroups, runs: list[str]):
    a, b, c = runs
    made = cgroups.create(a, 64, 0.5, 100)
    cgroups.release(a, 64, 0.5, 100)
    spare = _spare_paths(cgroups, made, a)
    fresh = cgroups.create(b, 64, 0.0, 100)  # no cpu cgroup: another shape
    assert len(fresh) == 2 and not any(os.path.exists(p) for p in spare)
    assert cgroups.spares == []
    cgroups.release(b, 64, 0.0, 100)
    [kept] = cgroups.spares
    cgroups.spares[0] = dataclasses.replace(kept, born=kept.born - SPARE_MAX_AGE - 1)
    spare = _spare_paths(cgroups, fresh, b)
    cgroups.create(c, 64, 0.0, 100)
    assert cgroups.spares == [] and not any(os.path.exists(p) for p in spare)


def test_a_spare_swept_from_under_it_is_made_afresh(cgroups: MemoryCgroups, runs: list[str]):
    """Another host manager's sweep may remove an old empty spare: the run
    that would have taken it gets new cgroups."""
    a, b, _ = runs
    made = cgroups.create(a, 64, 0.5, 100)
    cgroups.release(a, 64, 0.5, 100)
    spare = _spare_paths(cgroups, made, a)
    for path in spare[1:]:  # half gone: the cpu and pids ones
        os.rmdir(path)
    taken = cgroups.create(b, 64, 0.5, 100)
    assert all(os.path.isdir(p) for p in taken) and cgroups.spares == []
    assert int(_read(taken[2], "pids.max")) == 100
    assert not os.path.exists(spare[0])


def test_a_run_that_left_files_charged_or_too_many_spares_are_removed(
        cgroups: MemoryCgroups, runs: list[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch):
    """A run whose files (page cache, tmpfs) are still charged to its
    memory cgroup would charge them to the next run: removed, as at most
    SPARES_MAX are kept."""
    a, b, c = runs
    made = cgroups.create(a, 64, 0.5, 100)
    subprocess.run(["sh", "-c", f"echo $$ > {made[0]}/cgroup.procs; "
                    f"head -c 4000000 /dev/zero > {tmp_path}/out"], check=True)
    assert int(_read(made[0], "memory.usage_in_bytes")) > cgroups_module.SPARE_MAX_USAGE
    cgroups.release(a, 64, 0.5, 100)
    assert cgroups.spares == [] and not any(os.path.exists(p) for p in made)
    monkeypatch.setattr(cgroups_module, "SPARES_MAX", 1)
    for run in (b, c):
        cgroups.create(run, 64, 0.5, 100)
        cgroups.release(run, 64, 0.5, 100)
    spare = _spare_paths(cgroups, made, a)
    assert not any(os.path.exists(p) for p in cgroups.paths(c))
    assert cgroups.retire_spares(0) == 1 and not any(os.path.exists(p) for p in spare)


def test_a_spare_never_lives_to_a_sweeps_age():
    """A spare taken is younger than any sweep removes (kernfs keeps a
    cgroup's time of making through renames): at most its age, plus the
    GC period between the retirements of old ones."""
    assert SPARE_MAX_AGE + local.GC_PERIOD < local.CGROUP_SWEEP_AGE
