"""The local backend against real processes.

Process lifetimes are real time, so nothing here uses MockClock; every wait is
on an update delivered through the report callback, bounded by fail_after.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from peloton.api.v0.task import task_pb2
from peloton.core.errors import FailedPrecondition, InvalidArgument, NotFound
from peloton.core.resources import Resources
from peloton.core.states import TaskState
from peloton.hostmgr.backends import local as local_module
from peloton.hostmgr.backends import supervise
from peloton.hostmgr.backends.base import (
    REASON_KILLED_ON_REQUEST,
    REASON_LAUNCH_FAILED,
    REASON_UNHEALTHY,
    HealthCheck,
    LaunchSpec,
    StatusUpdate,
)
from peloton.hostmgr.backends.cgroups import MemoryCgroups
from peloton.hostmgr.backends.local import LocalBackend, read_group_cpu

JOB = "7f0c2a52-1d7e-4a3f-9a53-3f1d2e6c0b11"
TERMINAL = {TaskState.SUCCEEDED, TaskState.FAILED, TaskState.KILLED, TaskState.LOST}


class Harness:
    def __init__(self, backend: LocalBackend, root: Path) -> None:
        self.backend = backend
        self.root = root
        self.updates: list[StatusUpdate] = []
        self._send, self._recv = trio.open_memory_channel[StatusUpdate](math.inf)

    def report(self, update: StatusUpdate) -> None:
        self.updates.append(update)
        self._send.send_nowait(update)

    async def wait_terminal(self, mesos_task_id: str) -> StatusUpdate:
        return (await self.wait_all_terminal([mesos_task_id], timeout=10))[mesos_task_id]

    async def wait_all_terminal(self, mesos_task_ids: list[str],
                                timeout: float = 20) -> dict[str, StatusUpdate]:
        """Each run's terminal update, in whatever order they come."""
        wanted, ended = set(mesos_task_ids), {}
        with trio.fail_after(timeout):
            async for update in self._recv:
                if update.mesos_task_id in wanted and update.state in TERMINAL:
                    ended[update.mesos_task_id] = update
                    if len(ended) == len(wanted):
                        return ended
        raise AssertionError("update channel closed")

    def states(self, mesos_task_id: str) -> list[TaskState]:
        return [u.state for u in self.updates if u.mesos_task_id == mesos_task_id]


@pytest.fixture
async def local(tmp_path: Path, nursery: trio.Nursery) -> AsyncIterator[Harness]:
    backend = LocalBackend(tmp_path, hosts=2)
    harness = Harness(backend, tmp_path)
    await nursery.start(backend.run, harness.report)
    yield harness


def spec(run: int, command: str, *, shell: bool = True, arguments: tuple[str, ...] = (),
         hostname: str = "local-0", **kwargs: object) -> LaunchSpec:
    return LaunchSpec(mesos_task_id=f"{JOB}-0-{run}", task_id=f"{JOB}-0", job_id=JOB,
                      instance_id=0, hostname=hostname, shell=shell, command=command,
                      arguments=arguments, resources=Resources(cpu=0.1, memory=32),
                      **kwargs)  # type: ignore[arg-type]


def test_hosts(tmp_path: Path):
    hosts = LocalBackend(tmp_path, hosts=3, cpu=2, memory_mb=1024, cluster="c9").hosts()
    # Named after their cluster, which each carries as an attribute.
    assert [h.hostname for h in hosts] == ["c9-0", "c9-1", "c9-2"]
    assert [h.ports for h in hosts] == [(31000, 31199), (31200, 31399), (31400, 31599)]
    assert {h.cluster for h in hosts} == {"c9"}
    assert {h.attributes["cluster"] for h in hosts} == {"c9"}
    assert hosts[0].capacity == Resources(cpu=2, memory=1024, disk=102400)
    assert len({h.agent_id for h in hosts}) == 3
    assert LocalBackend(tmp_path).capabilities == frozenset()
    with pytest.raises(InvalidArgument):
        LocalBackend(tmp_path, hosts=200)


async def test_a_task_gets_a_clean_environment(local: Harness,
                                                monkeypatch: pytest.MonkeyPatch):
    """Nothing of the host manager's own environment (which may hold its
    secrets) reaches a task: it gets Mesos's PATH, HOME in its sandbox,
    and its own and Peloton's variables; its own PATH wins."""
    monkeypatch.setenv("HOSTMGR_SECRET", "s3cret")
    s = spec(1, 'echo "[$HOSTMGR_SECRET] $PATH $HOME"; env | cut -d= -f1 | sort | tr "\n" " "')
    mine = spec(2, 'echo "$PATH"', environment={"PATH": "/opt/tool/bin:/usr/bin:/bin"})
    await local.backend.launch([s])
    assert (await local.wait_terminal(s.mesos_task_id)).state == TaskState.SUCCEEDED
    await local.backend.launch([mine])
    assert (await local.wait_terminal(mine.mesos_task_id)).state == TaskState.SUCCEEDED
    sandbox = local.root / "sandboxes" / "local-0" / s.mesos_task_id
    first, names = (await local.backend.read_sandbox_file(
        s.mesos_task_id, "stdout", 0, 0))[0].decode().splitlines()
    assert first == f"[] {local_module.TASK_PATH} {sandbox}"
    # The shell's own; LC_CTYPE from the supervisor's Python, which coerces
    # the C locale to C.UTF-8 (PEP 538) for its child.
    assert set(names.split()) <= {"PATH", "HOME", "PWD", "SHLVL", "_", "OLDPWD", "LC_CTYPE",
                                  "PELOTON_JOB_ID", "PELOTON_INSTANCE_ID", "PELOTON_TASK_ID",
                                  "MESOS_SANDBOX", "CUDA_VISIBLE_DEVICES"}, names
    assert (await local.backend.read_sandbox_file(mine.mesos_task_id, "stdout", 0, 0))[0] == (
        b"/opt/tool/bin:/usr/bin:/bin\n")


async def test_echo_succeeds_with_output_and_environment(local: Harness):
    s = spec(1, 'echo "hello $GREETING"; echo "job=$PELOTON_JOB_ID inst=$PELOTON_INSTANCE_ID '
                'task=$PELOTON_TASK_ID http=$PORT_HTTP box=$MESOS_SANDBOX pwd=$(pwd)"; '
                'echo oops >&2',
             environment={"GREETING": "world"}, ports={"PORT_HTTP": 31005},
             hostname="local-1")
    await local.backend.launch([s])
    done = await local.wait_terminal(s.mesos_task_id)
    assert done.state == TaskState.SUCCEEDED
    assert done.message == "Command exited with status 0"
    assert done.hostname == "local-1" and done.exit_code == 0 and done.timestamp > 0
    assert local.states(s.mesos_task_id) == [TaskState.RUNNING, TaskState.SUCCEEDED]
    assert local.backend.known(s.mesos_task_id) == done

    sandbox = local.root / "sandboxes" / "local-1" / s.mesos_task_id
    data, size, files = await local.backend.read_sandbox_file(s.mesos_task_id, "stdout", 0, 0)
    assert data.decode().splitlines() == [
        "hello world",
        f"job={JOB} inst=0 task={s.mesos_task_id} http=31005 box={sandbox} pwd={sandbox}",
    ]
    assert size == len(data) and files == ["stderr", "stdout"]
    assert await local.backend.read_sandbox_file(s.mesos_task_id, "stdout", 6, 5) == (
        b"world", size, files)
    assert (await local.backend.read_sandbox_file(s.mesos_task_id, "stderr", 0, 0))[0] == (
        b"oops\n")
    assert (await local.backend.read_sandbox_file(s.mesos_task_id, "", 0, 0)) == (
        b"", 0, files)
    assert (await local.backend.read_sandbox_file(s.mesos_task_id, "stdout", 10**6, 10))[0] == (
        b"")


@pytest.mark.parametrize("shell", [True, False])
async def test_a_run_starts_as_sh_c_would_start_it(local: Harness, shell: bool):
    """A shell command runs in the keeper's trampoline shell, an exec'd one
    in a fork of the keeper: either way it sees what ``sh -c COMMAND`` sees
    (``$0`` /bin/sh, no positional parameters, none of the trampoline's
    variables), its sandbox as its directory, stdin /dev/null, only stdin,
    stdout and stderr open, and it leads its session. (Its descriptors are
    listed to a file by a subshell: ``ls`` at the head of a pipeline saw
    the pipeline's own pipes, open in the shell until it has started the
    rest, when the shell lost the cpu in between (a CI run); a redirection
    in the shell itself saves its stdout at descriptor 10.)"""
    script = ('echo "[$0] [$#] [${PELOTON_GO-unset}] [${OLDPWD-unset}] [$PWD] [$(pwd -P)]"; '
              'readlink /proc/$$/fd/0; '
              '(ls /proc/$$/fd > fds); sort -n fds | tr "\\n" " "; echo; '
              'ps -o sid= -o pid= -p $$')
    s = (spec(1, script) if shell
         else spec(1, "/bin/sh", shell=False, arguments=("/bin/sh", "-c", script)))
    await local.backend.launch([s])
    assert (await local.wait_terminal(s.mesos_task_id)).state == TaskState.SUCCEEDED
    out = (await local.backend.read_sandbox_file(s.mesos_task_id, "stdout", 0, 0))[0].decode()
    head, stdin, fds, session = out.splitlines()
    sandbox = (local.root / "sandboxes" / "local-0" / s.mesos_task_id).resolve()
    assert (head, stdin) == (f"[/bin/sh] [0] [unset] [unset] [{sandbox}] [{sandbox}]",
                             "/dev/null")
    assert fds.split() == ["0", "1", "2"]
    sid, pid = session.split()
    assert sid == pid == str(local.backend._runs[s.mesos_task_id].pgid)


async def test_runs_launched_together_start_at_once_each_as_its_own(local: Harness):
    """Runs launched at once, by one call and by many, shell-form ones and
    forks of the keeper among them, each start as their own, in their own
    sandbox, and end as they ended."""
    many = [spec(k, f'echo "run {k} in $(basename "$PWD")"; exit {k % 3}',
                 hostname=f"local-{k % 2}") for k in range(1, 25)]
    forks = [spec(k, "/bin/sh", shell=False, arguments=("/bin/sh", "-c", f"echo fork {k}"))
             for k in range(25, 29)]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(local.backend.launch, many[:12])  # one call
        for one in [*many[12:], *forks]:  # a call each
            nursery.start_soon(local.backend.launch, [one])
    ended = await local.wait_all_terminal([s.mesos_task_id for s in [*many, *forks]])
    for k, s in enumerate(many, 1):
        done = ended[s.mesos_task_id]
        assert (done.state, done.exit_code) == (
            (TaskState.SUCCEEDED, 0) if k % 3 == 0 else (TaskState.FAILED, k % 3)), k
        out = (await local.backend.read_sandbox_file(s.mesos_task_id, "stdout", 0, 0))[0]
        assert out == f"run {k} in {s.mesos_task_id}\n".encode()
    for k, s in enumerate(forks, 25):
        assert ended[s.mesos_task_id].state == TaskState.SUCCEEDED
        assert (await local.backend.read_sandbox_file(s.mesos_task_id, "stdout", 0, 0))[0] == (
            f"fork {k}\n".encode())
    pids = {local.backend._runs[s.mesos_task_id].pgid for s in [*many, *forks]}
    assert len(pids) == len(many) + len(forks)


async def test_exec_without_shell_uses_arguments_as_argv(local: Harness):
    s = spec(1, "/bin/sh", shell=False, arguments=("sh", "-c", 'echo "$0" "$1"', "zero", "one"))
    await local.backend.launch([s])
    assert (await local.wait_terminal(s.mesos_task_id)).state == TaskState.SUCCEEDED
    assert (await local.backend.read_sandbox_file(s.mesos_task_id, "stdout", 0, 0))[0] == (
        b"zero one\n")


async def test_nonzero_exit_fails_with_exit_code(local: Harness):
    s = spec(1, "exit 3")
    await local.backend.launch([s])
    done = await local.wait_terminal(s.mesos_task_id)
    assert (done.state, done.exit_code) == (TaskState.FAILED, 3)
    assert "status 3" in done.message


async def test_a_command_that_cannot_be_executed_fails_to_launch(local: Harness):
    """Not there: found before the run starts. There, executable, but not a
    program the kernel runs: the keeper's child cannot exec it, and the
    keeper says so with the run's exit. Either way FAILED with Mesos's
    launch-failed reason and why, never RUNNING."""
    odd = local.root / "odd"
    odd.write_bytes(b"\x7fELF not really")
    odd.chmod(0o755)
    missing = spec(1, "/nowhere/tool", shell=False)
    unrunnable = spec(2, str(odd), shell=False)
    await local.backend.launch([missing, unrunnable])
    for s, why in ((missing, "No such file or directory"), (unrunnable, "Exec format error")):
        done = await local.wait_terminal(s.mesos_task_id)
        assert (done.state, done.reason) == (TaskState.FAILED, REASON_LAUNCH_FAILED), done
        assert done.message == f"Failed to launch {s.command!r}: {why}"
    assert TaskState.RUNNING not in local.states(missing.mesos_task_id)


@pytest.mark.parametrize("sig", [signal.SIGUSR1, signal.SIGKILL])
async def test_signal_we_did_not_send_fails(local: Harness, sig: signal.Signals):
    """The supervisor dies of the task's signal, so the host manager sees it;
    SIGKILL too (the OOM killer's; its handler cannot be reset, which once
    made the supervisor exit 1 instead)."""
    s = spec(1, f"kill -{sig.name.removeprefix('SIG')} $$")
    await local.backend.launch([s])
    done = await local.wait_terminal(s.mesos_task_id)
    assert done.state == TaskState.FAILED
    assert done.message == f"Command terminated by signal {int(sig)} ({sig.name})"


async def test_kill_sleep_is_killed_quickly(local: Harness):
    s = spec(1, "sleep 60")
    await local.backend.launch([s])
    start = trio.current_time()
    await local.backend.kill([s.mesos_task_id])
    done = await local.wait_terminal(s.mesos_task_id)
    assert done.state == TaskState.KILLED and done.reason == REASON_KILLED_ON_REQUEST
    assert trio.current_time() - start < 5
    assert local.states(s.mesos_task_id) == [TaskState.RUNNING, TaskState.KILLED]
    # Killing again, or killing the unknown, does nothing.
    await local.backend.kill([s.mesos_task_id, "unknown"])
    assert local.states(s.mesos_task_id) == [TaskState.RUNNING, TaskState.KILLED]


async def test_kill_while_starting_is_delivered_once_the_process_exists(local: Harness):
    s = spec(1, "sleep 60")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(local.backend.launch, [s])
        # launch registers the run before its first await; usually it is still
        # STARTING here (making its sandbox in a thread), and then RUNNING is
        # followed by KILLED all the same.
        await trio.testing.wait_all_tasks_blocked()
        await local.backend.kill([s.mesos_task_id], grace_seconds=0)
    done = await local.wait_terminal(s.mesos_task_id)
    assert done.state == TaskState.KILLED
    assert local.states(s.mesos_task_id) == [TaskState.RUNNING, TaskState.KILLED]


async def _launch_sigterm_ignorer(local: Harness, s_run: int, grace: float) -> LaunchSpec:
    # The FIFO tells us the trap is in place, so SIGTERM cannot win a race
    # against it.
    fifo = local.root / f"ready-{s_run}"
    os.mkfifo(fifo)
    s = spec(s_run, """trap '' TERM; echo ready > "$READY"; sleep 60""",
             environment={"READY": str(fifo)}, kill_grace_seconds=grace)
    await local.backend.launch([s])

    def wait_ready() -> str:
        with open(fifo) as f:
            return f.read()

    with trio.fail_after(10):
        assert await trio.to_thread.run_sync(wait_ready, abandon_on_cancel=True) == "ready\n"
    return s


async def test_kill_escalates_to_sigkill_after_the_grace(local: Harness):
    s = await _launch_sigterm_ignorer(local, 1, grace=0.5)
    start = trio.current_time()
    await local.backend.kill([s.mesos_task_id])
    done = await local.wait_terminal(s.mesos_task_id)
    elapsed = trio.current_time() - start
    assert done.state == TaskState.KILLED
    assert "signal 9 (SIGKILL)" in done.message
    assert 0.5 <= elapsed < 5


async def test_kill_grace_override_and_a_second_kill_shortens_it(local: Harness):
    s = await _launch_sigterm_ignorer(local, 1, grace=60)
    start = trio.current_time()
    await local.backend.kill([s.mesos_task_id], grace_seconds=30)
    await local.backend.kill([s.mesos_task_id], grace_seconds=0.2)
    # The mark a next host manager would read says the shorter grace too.
    _, due = local_module._read_kill_mark(local.root / "runs", s.mesos_task_id)
    assert due is not None and due < time.time() + 1
    done = await local.wait_terminal(s.mesos_task_id)
    assert "SIGKILL" in done.message and 0.2 <= trio.current_time() - start < 5


async def test_missing_executable_fails_to_launch(local: Harness):
    s = spec(1, "/nonexistent/program", shell=False)
    await local.backend.launch([s])
    done = local.backend.known(s.mesos_task_id)
    assert done is not None and done.state == TaskState.FAILED
    assert "/nonexistent/program" in done.message
    assert local.states(s.mesos_task_id) == [TaskState.FAILED]
    # Its sandbox exists, so the caller can still look.
    assert (await local.backend.read_sandbox_file(s.mesos_task_id, "", 0, 0))[2] == [
        "stderr", "stdout"]


@pytest.mark.parametrize("path", ["../x", "../../../../../../etc/passwd", "/etc/passwd",
                                  "sub/../../stdout", "escape"])
async def test_sandbox_reads_stay_inside(local: Harness, path: str):
    s = spec(1, "mkdir sub; ln -s /etc escape")
    await local.backend.launch([s])
    assert (await local.wait_terminal(s.mesos_task_id)).state == TaskState.SUCCEEDED
    with pytest.raises(InvalidArgument):
        await local.backend.read_sandbox_file(s.mesos_task_id, path, 0, 0)


async def test_sandbox_read_errors(local: Harness):
    s = spec(1, "mkdir sub")
    await local.backend.launch([s])
    await local.wait_terminal(s.mesos_task_id)
    with pytest.raises(NotFound):
        await local.backend.read_sandbox_file("unknown", "stdout", 0, 0)
    with pytest.raises(NotFound):
        await local.backend.read_sandbox_file(s.mesos_task_id, "nothing-here", 0, 0)
    with pytest.raises(InvalidArgument):
        await local.backend.read_sandbox_file(s.mesos_task_id, "sub", 0, 0)
    with pytest.raises(InvalidArgument):
        await local.backend.read_sandbox_file(s.mesos_task_id, "stdout", -1, 0)


async def test_launch_is_idempotent(local: Harness):
    s = spec(1, "echo once >> $MESOS_SANDBOX/count")
    await local.backend.launch([s, s])
    await local.wait_terminal(s.mesos_task_id)
    await local.backend.launch([s])
    assert local.states(s.mesos_task_id) == [TaskState.RUNNING, TaskState.SUCCEEDED]
    assert (await local.backend.read_sandbox_file(s.mesos_task_id, "count", 0, 0))[0] == (
        b"once\n")


async def test_launch_on_unknown_host_starts_nothing(local: Harness):
    good, bad = spec(1, "true"), spec(2, "true", hostname="elsewhere")
    with pytest.raises(InvalidArgument, match="elsewhere"):
        await local.backend.launch([good, bad])
    assert local.backend.known(good.mesos_task_id) is None


async def test_launch_before_run_fails(tmp_path: Path):
    with pytest.raises(FailedPrecondition):
        await LocalBackend(tmp_path).launch([spec(1, "true")])


async def test_stopping_the_backend_kills_its_processes(tmp_path: Path):
    backend = LocalBackend(tmp_path, hosts=1)
    updates: list[StatusUpdate] = []
    fifo = tmp_path / "child-pid"
    os.mkfifo(fifo)
    # The shell's child is a grandchild of ours: the group kill must reach it.
    s = spec(1, 'sleep 60 & echo $! > "$READY"; wait', environment={"READY": str(fifo)})

    def read_pid() -> int:
        with open(fifo) as f:
            return int(f.read())

    async with trio.open_nursery() as nursery:
        await nursery.start(backend.run, updates.append)
        await backend.launch([s])
        with trio.fail_after(10):
            child = await trio.to_thread.run_sync(read_pid, abandon_on_cancel=True)
        pidfd = os.pidfd_open(child)
        nursery.cancel_scope.cancel()
    assert [u.state for u in updates] == [TaskState.RUNNING]
    known = backend.known(s.mesos_task_id)
    assert known is not None and known.state == TaskState.LOST
    # SIGKILL is delivered asynchronously: a pidfd turns readable once the
    # process has exited (gone, or a zombie until init reaps it).
    try:
        with trio.fail_after(10):
            await trio.lowlevel.wait_readable(pidfd)
    finally:
        os.close(pidfd)
    assert _state_of(child) in {None, "Z"}


def _state_of(pid: int) -> str | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return None
    return stat.rsplit(")", 1)[1].split()[0]


# -- usage -----------------------------------------------------------------------


async def test_usage_is_cpu_time_over_a_sliding_window(tmp_path: Path,
                                                       mock_clock: trio.testing.MockClock):
    """A fake /proc reader under a clock moved by hand, samples taken by
    hand (the loop's period is too long to fire): exact figures."""
    cpu_seconds = {"now": 0.0}
    groups: list[list[int]] = []

    def reader(pgids):
        groups.append(sorted(pgids))
        return dict.fromkeys(pgids, cpu_seconds["now"])

    backend = LocalBackend(tmp_path, hosts=1, usage_period=1e9, usage_window=4,
                           cpu_reader=reader)
    reported: list[tuple[str, float]] = []
    backend.on_usage = reported.extend
    harness = Harness(backend, tmp_path)
    async with trio.open_nursery() as nursery:
        await nursery.start(backend.run, harness.report)
        s = spec(1, "sleep 30")
        await backend.launch([s])
        pgid = backend._live[s.mesos_task_id]
        figures = []
        # cpu seconds used by each sample, one sample every 2 s.
        for cpu in (0.5, 1.5, 1.5, 3.5):
            cpu_seconds["now"] = cpu
            mock_clock.jump(2)
            figures.append(await backend.sample_usage())
        mid = s.mesos_task_id
        # Nothing from the first sample alone; 1 cpu s over 2 s; then over
        # the 4 s window: (1.5 - 0.5) / 4, (3.5 - 1.5) / 4.
        assert figures == [[], [(mid, 0.5)], [(mid, 0.25)], [(mid, 0.5)]]
        assert reported == [(mid, 0.5), (mid, 0.25), (mid, 0.5)]
        assert groups == [[pgid]] * 4
        await backend.kill([s.mesos_task_id], 0)
        await harness.wait_terminal(s.mesos_task_id)
        assert not backend._live and not backend._samples  # a finished run is not sampled
        assert await backend.sample_usage() == []
        nursery.cancel_scope.cancel()


async def test_a_sleeping_process_measures_idle_and_a_busy_group_reads_its_time(tmp_path: Path):
    """Real processes and the real /proc, on short real periods."""
    # This test's own process group has used at least this process's cpu time.
    import time

    own = read_group_cpu([os.getpgrp(), 999_999_999])
    assert own[os.getpgrp()] >= time.process_time() - 0.1 and own[999_999_999] == 0.0
    backend = LocalBackend(tmp_path, hosts=1, usage_period=0.1, usage_window=0.3)
    reports: list[tuple[str, float]] = []
    three = trio.Event()

    def on_usage(updates):
        reports.extend(updates)
        if len(reports) >= 3:
            three.set()

    backend.on_usage = on_usage
    harness = Harness(backend, tmp_path)
    async with trio.open_nursery() as nursery:
        await nursery.start(backend.run, harness.report)
        s = spec(1, "sleep 30")
        await backend.launch([s])
        with trio.fail_after(30):
            await three.wait()
        await backend.kill([s.mesos_task_id], 0)
        assert all(mid == s.mesos_task_id and 0.0 <= cpu < 0.2 for mid, cpu in reports)
        nursery.cancel_scope.cancel()


OPEN_100 = ("import sys\nfiles = []\ntry:\n    for _ in range(100):\n"
            "        files.append(open('/dev/null'))\nexcept OSError:\n    sys.exit(len(files) % 250 + 1)\n")


@pytest.mark.parametrize(("fd_limit", "state", "shell"), [
    (20, TaskState.FAILED, False), (0, TaskState.SUCCEEDED, False),
    (20, TaskState.FAILED, True), (5, TaskState.FAILED, True), (0, TaskState.SUCCEEDED, True)])
async def test_fd_limit(local: Harness, fd_limit: int, state: TaskState, shell: bool):
    """resource.fdLimit caps what the task may open (RLIMIT_NOFILE), run
    with or without a shell (a limit under 10, where dash cannot redirect,
    included)."""
    import shlex
    import sys
    s = (spec(1, f"exec {sys.executable} -c {shlex.quote(OPEN_100)}", fd_limit=fd_limit)
         if shell else spec(1, sys.executable, shell=False,
                            arguments=(sys.executable, "-c", OPEN_100), fd_limit=fd_limit))
    await local.backend.launch([s])
    done = await local.wait_terminal(s.mesos_task_id)
    assert done.state == state, done
    if fd_limit:
        assert 1 < done.exit_code < fd_limit + 1  # it opened fewer than fd_limit files


ALLOCATE_300MB = "b = bytearray(300 * 1024 * 1024)\nb[::4096] = b'x' * len(b[::4096])\n"
HAVE_CGROUPS, WHY_NO_CGROUPS = MemoryCgroups.detect()


@pytest.mark.skipif(HAVE_CGROUPS is None, reason=f"no writable memory cgroup: {WHY_NO_CGROUPS}")
@pytest.mark.parametrize(("memory_mb", "state", "shell"), [
    (64, TaskState.FAILED, False), (1024, TaskState.SUCCEEDED, False),
    (64, TaskState.FAILED, True)])
async def test_memory_limit(local: Harness, memory_mb: int, state: TaskState, shell: bool):
    """resource.memLimitMb is the run's memory cgroup limit: a task that
    touches 300 MB under a 64 MB limit is killed by the OOM killer and ends
    FAILED saying so; under 1 GB it succeeds. Its cgroup is gone after.
    A shell command is moved into it as an exec'd one is."""
    import shlex
    import sys
    s = dataclasses.replace(
        spec(1, f"{sys.executable} -c {shlex.quote(ALLOCATE_300MB)}") if shell else
        spec(1, sys.executable, shell=False, arguments=(sys.executable, "-c", ALLOCATE_300MB)),
        # A whole cpu: touching 300 MB under a CFS quota of 0.1 took ~5 s of
        # the 10 s wait on an idle machine, and over it on a loaded one.
        resources=Resources(cpu=1.0, memory=memory_mb))
    await local.backend.launch([s])
    done = await local.wait_terminal(s.mesos_task_id)
    assert done.state == state, done
    if state == TaskState.FAILED:
        assert done.message.startswith("exceeded its memory limit of 64 MB (killed by the OOM "
                                       "killer)"), done.message
        assert done.reason == "REASON_CONTAINER_LIMITATION_MEMORY"
    cgroups = local.backend.cgroups
    assert cgroups is not None and not cgroups.path(s.mesos_task_id).exists()


@pytest.mark.skipif(HAVE_CGROUPS is None, reason=f"no writable memory cgroup: {WHY_NO_CGROUPS}")
async def test_empty_run_cgroups_left_behind_are_swept(local: Harness):
    """A run cgroup nobody removed (its host manager's runs directory
    deleted under it) goes once it is old and empty; a live run's, one a
    run of ours holds, and a young one (another host manager's, about to
    be joined) stay."""
    import time
    cgroups = local.backend.cgroups
    assert cgroups is not None
    s = spec(1, "sleep 30")
    await local.backend.launch([s])
    left, kept = f"{JOB}-7-1", f"{JOB}-8-1"
    for run in (left, kept):
        for path in cgroups.paths(run):
            path.mkdir()
    try:
        assert await local.backend.sweep_cgroups() == 0  # all young
        gone = await trio.to_thread.run_sync(cgroups.sweep, {kept}, 600, time.time() + 601)
        # (At least: the cgroups are the machine's, and an earlier test's
        # cluster may have left empty ones that are as old by this clock.)
        assert gone >= len(cgroups.paths(left))
        assert not any(p.exists() for p in cgroups.paths(left))
        assert all(p.exists() for p in cgroups.paths(kept) + cgroups.paths(s.mesos_task_id))
    finally:
        cgroups.remove(kept)
        cgroups.remove(left)
    await local.backend.kill([s.mesos_task_id], 0)
    await local.wait_terminal(s.mesos_task_id)


@pytest.mark.skipif(HAVE_CGROUPS is None or HAVE_CGROUPS.v2,
                    reason="spare cgroups are v1's (v2 has no rename)")
async def test_a_runs_cgroups_are_kept_for_the_next_run_until_the_backend_stops(
        tmp_path: Path):
    """An ended run's cgroups are a spare the next run's task joins under
    its own name; old spares go at the GC's sweep, the rest when the
    backend stops."""
    async with trio.open_nursery() as nursery:
        backend = LocalBackend(tmp_path, hosts=1)
        h = Harness(backend, tmp_path)
        await nursery.start(backend.run, h.report)
        cgroups = backend.cgroups
        assert cgroups is not None
        first, second = spec(1, "true"), spec(2, "cat /proc/self/cgroup")
        await backend.launch([first])
        assert (await h.wait_terminal(first.mesos_task_id)).state == TaskState.SUCCEEDED
        [spare] = cgroups.spares
        kept = [p.parent / f"peloton-{spare.name}" for p in cgroups.paths(first.mesos_task_id)]
        assert all(p.is_dir() for p in kept)
        await backend.launch([second])
        assert (await h.wait_terminal(second.mesos_task_id)).state == TaskState.SUCCEEDED
        joined = (await backend.read_sandbox_file(second.mesos_task_id, "stdout", 0, 0))[0]
        memory = next(line for line in joined.decode().splitlines()
                      if line.split(":")[1] == "memory")
        assert memory.endswith(f"/peloton-{second.mesos_task_id}")
        assert not any(p.exists() for p in kept)
        [spare] = cgroups.spares  # the second's, now
        cgroups.spares[0] = dataclasses.replace(spare, born=spare.born - 3600)
        await backend.sweep_cgroups()
        assert cgroups.spares == []
        await backend.launch([third := spec(3, "true")])
        await h.wait_terminal(third.mesos_task_id)
        [spare] = cgroups.spares
        kept = [p.parent / f"peloton-{spare.name}" for p in cgroups.paths(first.mesos_task_id)]
        nursery.cancel_scope.cancel()
    assert cgroups.spares == [] and not any(p.exists() for p in kept)


@pytest.mark.skipif(HAVE_CGROUPS is None, reason=f"no writable memory cgroup: {WHY_NO_CGROUPS}")
async def test_a_child_that_leaves_the_process_group_ends_with_its_run(local: Harness):
    """Plain `timeout` or setsid puts a child in a process group of its own;
    the run's cgroup still holds it, so the run's end takes it too."""
    s = spec(1, "setsid sleep 300 & echo $! > child.pid; exit 3")
    await local.backend.launch([s])
    done = await local.wait_terminal(s.mesos_task_id)
    assert done.state == TaskState.FAILED and done.exit_code == 3
    pid = (local.root / "sandboxes" / "local-0" / s.mesos_task_id / "child.pid").read_text()
    assert _gone(int(pid))


@pytest.mark.skipif(HAVE_CGROUPS is None, reason=f"no writable memory cgroup: {WHY_NO_CGROUPS}")
async def test_a_kill_reaches_a_child_that_left_the_process_group(local: Harness):
    """`timeout 600 sleep 600` runs in a process group of its own: the kill's
    SIGTERM reaches it through the run's cgroup, so it ends at once, not
    after the grace period's SIGKILL."""
    # (Not exec'd: the run leads its session, where timeout cannot make a group.)
    s = spec(1, "timeout 600 sleep 600 & echo $! > timeout.pid; wait", kill_grace_seconds=60)
    await local.backend.launch([s])
    pid_file = local.root / "sandboxes" / "local-0" / s.mesos_task_id / "timeout.pid"
    while True:  # until timeout runs sleep (and has left the group)
        text = pid_file.read_text().strip() if pid_file.exists() else ""
        if text and _children(int(text)):
            break
        await trio.sleep(0.05)
    timeout = int(text)
    [sleep] = _children(timeout)
    assert os.getpgid(timeout) != local.backend._runs[s.mesos_task_id].pgid
    start = trio.current_time()
    await local.backend.kill([s.mesos_task_id])
    done = await local.wait_terminal(s.mesos_task_id)
    assert done.state == TaskState.KILLED
    assert trio.current_time() - start < 10  # the grace is 60 s
    assert _gone(timeout) and _gone(sleep)


@pytest.mark.skipif(HAVE_CGROUPS is None, reason=f"no writable memory cgroup: {WHY_NO_CGROUPS}")
async def test_a_kill_signals_each_process_of_the_run_once(local: Harness,
                                                           monkeypatch: pytest.MonkeyPatch):
    """The kill's SIGTERM goes to the run's process group, and through its
    cgroup only to the processes that left the group. The chaos run's
    services counted two SIGTERMs in a third of their stops (a trap that
    writes a line each time), and to many programs a second one means
    "stop now"."""
    s = spec(1, "setsid sleep 300 & echo $! > child.pid; sleep 300", kill_grace_seconds=60)
    await local.backend.launch([s])
    pgid = local.backend._runs[s.mesos_task_id].pgid
    pid_file = local.root / "sandboxes" / "local-0" / s.mesos_task_id / "child.pid"
    while True:  # until setsid has made the child a group of its own
        text = pid_file.read_text().strip() if pid_file.exists() else ""
        if text and os.getpgid(int(text)) != pgid:
            break
        await trio.sleep(0.05)
    child = int(text)
    cgroups = local.backend.cgroups
    assert cgroups is not None
    in_group = [pid for pid in cgroups.pids(s.mesos_task_id) if os.getpgid(pid) == pgid]
    assert in_group  # the shell and its sleep
    sent: list[tuple[str, int, int]] = []

    def noting(kind: str, send: Callable[[int, int], None]) -> Callable[[int, int], None]:
        def call(target: int, sig: int) -> None:
            sent.append((kind, target, sig))
            send(target, sig)
        return call

    monkeypatch.setattr(os, "kill", noting("pid", os.kill))
    monkeypatch.setattr(os, "killpg", noting("group", os.killpg))
    await local.backend.kill([s.mesos_task_id])
    assert sorted(sent) == [("group", pgid, signal.SIGTERM), ("pid", child, signal.SIGTERM)]
    monkeypatch.undo()
    done = await local.wait_terminal(s.mesos_task_id)
    assert done.state == TaskState.KILLED and "SIGKILL" not in done.message
    assert _gone(child)


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _gone(pid: int) -> bool:
    """No such process, or only a zombie of it left."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return "zombie" in status.split("State:")[1].split("\n")[0].lower()


# --------------------------------------------------------------------------- restarts


def _left_behind(root: Path, run: int, command: str,
                 gpus: tuple[int, ...] = ()) -> tuple[LaunchSpec, subprocess.Popen[bytes]]:
    """A run as a host manager that then died leaves it: its record, and its
    supervisor (with the task) running in a session of its own."""
    s = dataclasses.replace(spec(run, command), shard=5, labels=(("role", "db"),),
                            ports={"PORT_HTTP": 31007})
    runs = root / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    sandbox = root / "sandboxes" / s.hostname / s.mesos_task_id
    sandbox.mkdir(parents=True)
    proc = subprocess.Popen(
        [sys.executable, "-S", "-E", local_module.SUPERVISOR,
         str(runs / f"{s.mesos_task_id}.status"), "", "0", "0", "/bin/sh", "/bin/sh", "-c", command],
        cwd=sandbox, start_new_session=True)
    local_module._write_record(runs, s, proc.pid, gpus)
    return s, proc


async def test_a_restarted_backend_adopts_live_runs_and_knows_how_the_others_ended(
        tmp_path: Path, nursery: trio.Nursery):
    live, live_proc = _left_behind(tmp_path, 1, "sleep 30")
    done, done_proc = _left_behind(tmp_path, 2, "exit 3")
    ok, ok_proc = _left_behind(tmp_path, 3, "true")
    for proc in (done_proc, ok_proc):
        proc.wait()  # they ended while no host manager watched
    # A run whose supervisor died with it (SIGKILL) says nothing: LOST.
    gone, gone_proc = _left_behind(tmp_path, 4, "sleep 30")
    os.killpg(gone_proc.pid, signal.SIGKILL)
    gone_proc.wait()

    backend = LocalBackend(tmp_path, hosts=2)
    harness = Harness(backend, tmp_path)
    await nursery.start(backend.run, harness.report)
    [adopted] = backend.adopted()
    assert adopted == live  # spec, shard, ports and labels back for the pool
    assert backend.known(live.mesos_task_id).state == TaskState.RUNNING  # type: ignore[union-attr]
    ended = backend.known(done.mesos_task_id)
    assert ended is not None and (ended.state, ended.exit_code) == (TaskState.FAILED, 3)
    assert backend.known(ok.mesos_task_id).state == TaskState.SUCCEEDED  # type: ignore[union-attr]
    assert backend.known(gone.mesos_task_id).state == TaskState.LOST  # type: ignore[union-attr]
    # The adopted run is watched and killable like any other.
    await backend.kill([live.mesos_task_id], grace_seconds=5)
    killed = await harness.wait_terminal(live.mesos_task_id)
    assert killed.state == TaskState.KILLED and killed.reason == REASON_KILLED_ON_REQUEST
    assert "SIGTERM" in killed.message
    live_proc.wait()


async def test_an_adopted_run_that_ends_reports_its_real_end(tmp_path: Path,
                                                             nursery: trio.Nursery):
    s, proc = _left_behind(tmp_path, 1, "sleep 0.5; exit 7")
    await _adopted_and_ended_7(tmp_path, s, nursery)
    proc.wait()


async def _adopted_and_ended(root: Path, s: LaunchSpec, nursery: trio.Nursery) -> StatusUpdate:
    """A backend started on ``root`` adopts ``s``; how it ends."""
    backend = LocalBackend(root, hosts=2)
    harness = Harness(backend, root)
    await nursery.start(backend.run, harness.report)
    assert [a.mesos_task_id for a in backend.adopted()] == [s.mesos_task_id]
    with trio.fail_after(10):
        return await harness.wait_terminal(s.mesos_task_id)


async def _adopted_and_ended_7(root: Path, s: LaunchSpec, nursery: trio.Nursery) -> None:
    """A backend started on ``root`` adopts ``s``, which ends with exit code 7."""
    ended = await _adopted_and_ended(root, s, nursery)
    assert (ended.state, ended.exit_code) == (TaskState.FAILED, 7)


async def test_a_kill_marked_before_a_crash_ends_killed_not_lost(tmp_path: Path,
                                                                 nursery: trio.Nursery):
    s, proc = _left_behind(tmp_path, 1, "sleep 30")
    (tmp_path / "runs" / f"{s.mesos_task_id}.kill").touch()  # marked, then the crash
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    backend = LocalBackend(tmp_path, hosts=2)
    await nursery.start(backend.run, Harness(backend, tmp_path).report)
    assert backend.known(s.mesos_task_id).state == TaskState.KILLED  # type: ignore[union-attr]


@pytest.mark.parametrize("marked", ["with its due time", "empty, by an older version"])
async def test_a_kill_its_host_manager_died_in_the_grace_of_is_finished_by_the_next(
        tmp_path: Path, nursery: trio.Nursery, marked: str):
    """The last host manager marked the kill, sent SIGTERM, which the run
    ignores, and died before the grace ran out: the next one sends SIGKILL
    when the mark says it is due (an empty mark: a whole grace from now)."""
    s, proc = _left_behind(tmp_path, 1, "trap '' TERM; while :; do sleep 0.05; done")
    runs = tmp_path / "runs"
    if marked == "with its due time":
        local_module._write_kill_mark(runs, s.mesos_task_id, time.time() + 0.3)
    else:
        local_module._write_record(runs, dataclasses.replace(s, kill_grace_seconds=0.3),
                                   proc.pid)
        (runs / f"{s.mesos_task_id}.kill").touch()
    done = await _adopted_and_ended(tmp_path, s, nursery)
    # (Its supervisor, an older version's, leads its process group: it died
    # with it and wrote nothing, so the end is the kill's, not the signal's.)
    assert done.state == TaskState.KILLED and done.reason == REASON_KILLED_ON_REQUEST
    assert await trio.to_thread.run_sync(proc.wait) == -signal.SIGKILL


async def test_a_clean_stop_kills_its_runs_and_the_next_start_knows_them_lost(
        tmp_path: Path):
    backend = LocalBackend(tmp_path, hosts=2)
    harness = Harness(backend, tmp_path)
    s = spec(1, "sleep 30")
    async with trio.open_nursery() as nursery:
        await nursery.start(backend.run, harness.report)
        await backend.launch([s])
        nursery.cancel_scope.cancel()
    again = LocalBackend(tmp_path, hosts=2)
    async with trio.open_nursery() as nursery:
        await nursery.start(again.run, Harness(again, tmp_path).report)
        assert again.adopted() == []
        status = again.known(s.mesos_task_id)
        assert status is not None and status.state == TaskState.LOST
        assert "host manager stopped" in status.message
        nursery.cancel_scope.cancel()


# A host manager that launches one run (argv: root, mesos task id, command)
# and is SIGKILLed by the run itself as soon as it starts (the task gets
# HOSTMGR, this process's pid). Its record has no pid: only the
# supervisor's claim names the supervisor.
HOSTMGR_KILLED_BY_ITS_RUN = """
import os, sys
from pathlib import Path
import trio
from peloton.core.resources import Resources
from peloton.hostmgr.backends import local
from peloton.hostmgr.backends.base import LaunchSpec

root, mid, command = Path(sys.argv[1]), sys.argv[2], sys.argv[3]

async def main():
    backend = local.LocalBackend(root, hosts=2)
    async with trio.open_nursery() as nursery:
        await nursery.start(backend.run, lambda update: None)
        await backend.launch([LaunchSpec(
            mesos_task_id=mid, task_id=mid.rsplit("-", 1)[0], job_id=mid[:36], instance_id=0,
            hostname="local-0", shell=True, command=command,
            environment={"HOSTMGR": str(os.getpid())}, resources=Resources(cpu=0.1, memory=32))])
        await trio.sleep_forever()

trio.run(main)
"""


async def _hostmgr_killed_by_its_run(root: Path, s: LaunchSpec) -> None:
    """A host manager on ``root`` launches ``s``, whose command SIGKILLs it."""
    with trio.fail_after(20):
        hostmgr = await trio.run_process(
            [sys.executable, "-c", HOSTMGR_KILLED_BY_ITS_RUN, str(root), s.mesos_task_id,
             s.command], check=False)
    assert hostmgr.returncode == -signal.SIGKILL


async def test_a_run_whose_host_manager_died_as_it_started_is_adopted_not_run_twice(
        tmp_path: Path, nursery: trio.Nursery):
    """A host manager SIGKILLed the moment its run started leaves the next
    one knowing the run: adopted (so its host counts it), and a launch of
    the same run (the jobmgr places a run its host manager does not know
    again, same id) starts nothing. Before, the record was written only
    once the supervisor had started: the run went on unknown and
    uncounted, its cpu was placed again, and the jobmgr's relaunch ran it a
    second time beside it (the chaos test's over-committed host)."""
    started, root = tmp_path / "started", tmp_path / "hostmgr"
    s = spec(1, f"echo $$ >> {started}; kill -KILL $HOSTMGR; exec sleep 30")
    await _hostmgr_killed_by_its_run(root, s)
    [pid] = [int(p) for p in started.read_text().split()]
    try:
        backend = LocalBackend(root, hosts=2)
        harness = Harness(backend, root)
        await nursery.start(backend.run, harness.report)
        assert [a.mesos_task_id for a in backend.adopted()] == [s.mesos_task_id]
        assert backend.known(s.mesos_task_id).state == TaskState.RUNNING  # type: ignore[union-attr]
        await backend.launch([s])
        await backend.kill([s.mesos_task_id], grace_seconds=0)
        assert (await harness.wait_terminal(s.mesos_task_id)).state == TaskState.KILLED
        assert started.read_text().split() == [str(pid)]  # it started once
        assert _gone(pid)
    finally:
        try:
            os.killpg(os.getpgid(pid), signal.SIGKILL)
        except ProcessLookupError:
            pass


async def test_a_run_whose_host_manager_died_ends_as_it_ended_and_its_keeper_with_it(
        tmp_path: Path, nursery: trio.Nursery):
    """The keeper outlives its host manager (SIGKILLed as the run starts):
    it reaps the run and writes its end, a moment after the run is gone,
    which the next host manager waits for (not LOST); then, its last run
    ended, the keeper ends too."""
    root = tmp_path / "hostmgr"
    s = spec(1, "kill -KILL $HOSTMGR; sleep 0.5; exit 7")
    await _hostmgr_killed_by_its_run(root, s)
    claim = json.loads((root / "runs" / f"{s.mesos_task_id}.pid").read_text())
    await _adopted_and_ended_7(root, s, nursery)
    try:
        keeper = os.pidfd_open(claim["keeper"])
    except ProcessLookupError:
        return  # it has ended already
    try:
        with trio.fail_after(10):
            await trio.lowlevel.wait_readable(keeper)  # it ends
    finally:
        os.close(keeper)


async def test_a_keepers_run_killed_as_its_host_manager_died_gets_its_sigkill_when_due(
        tmp_path: Path, nursery: trio.Nursery):
    """A run the keeper started, whose host manager marked its kill and died
    in the grace (the run ignores SIGTERM): the next one sends the SIGKILL
    when the mark says, and the keeper's end says so. Before, the run went
    on, KILLING at its job manager for ever (a service update that never
    ended)."""
    root = tmp_path / "hostmgr"
    s = spec(1, "trap '' TERM; kill -KILL $HOSTMGR; while :; do sleep 0.05; done")
    await _hostmgr_killed_by_its_run(root, s)
    local_module._write_kill_mark(root / "runs", s.mesos_task_id, time.time() + 0.3)
    done = await _adopted_and_ended(root, s, nursery)
    assert done.state == TaskState.KILLED and done.reason == REASON_KILLED_ON_REQUEST
    assert "signal 9 (SIGKILL)" in done.message


def _supervise(root: Path, s: LaunchSpec) -> list[str]:
    """The command that starts the supervisor of ``s`` as the local backend does."""
    return [sys.executable, "-S", "-E", local_module.SUPERVISOR,
            str(root / "runs" / f"{s.mesos_task_id}.status"), "", "0", "0", "/bin/sh",
            "/bin/sh", "-c", s.command]


async def test_ends_a_live_keeper_has_not_written_yet_are_waited_for_once(
        tmp_path: Path, nursery: trio.Nursery, monkeypatch: pytest.MonkeyPatch):
    """Runs a keeper claimed whose processes are gone: their ends are read
    from what the keeper wrote, and, while the keeper lives, waited for
    (one wait for the whole start, KEEPER_STATUS_S); none by then: LOST."""
    monkeypatch.setattr(local_module, "KEEPER_STATUS_S", 0.2)
    runs = tmp_path / "runs"
    runs.mkdir()
    # The keeper: this process. Each run's: this pid with another start
    # time, a process that is gone.
    keeper = {"keeper": os.getpid(), "keeper_start": supervise.start_ticks(os.getpid())}
    written, unwritten = spec(1, "exit 4"), spec(2, "exit 5")
    for s in (written, unwritten):
        local_module._write_record(runs, s, None)
        claim = supervise.claim_path(str(runs / f"{s.mesos_task_id}.status"))
        (runs / os.path.basename(claim)).write_text(
            json.dumps({"pid": os.getpid(), "start": 1, **keeper}))
    (runs / f"{written.mesos_task_id}.status").write_text('{"exit_code": 4}')
    backend = LocalBackend(tmp_path, hosts=2)
    await nursery.start(backend.run, Harness(backend, tmp_path).report)
    assert backend.adopted() == []
    done = backend.known(written.mesos_task_id)
    assert done is not None and (done.state, done.exit_code) == (TaskState.FAILED, 4)
    lost = backend.known(unwritten.mesos_task_id)
    assert lost is not None and lost.state == TaskState.LOST


async def test_a_launch_recorded_but_not_started_is_given_up_and_never_starts_later(
        tmp_path: Path, nursery: trio.Nursery):
    """A host manager that died after it recorded a run and before the run's
    supervisor claimed it leaves a launch the next one gives up: the run is
    LOST, and neither its supervisor, should it come late, nor a launch of
    the same run starts it."""
    ran = tmp_path / "ran"
    s = spec(1, f"touch {ran}")
    (tmp_path / "runs").mkdir()
    local_module._write_record(tmp_path / "runs", s, None)  # no supervisor yet
    backend = LocalBackend(tmp_path, hosts=2)
    await nursery.start(backend.run, Harness(backend, tmp_path).report)
    status = backend.known(s.mesos_task_id)
    assert status is not None and status.state == TaskState.LOST, status
    assert "never ran" in status.message
    assert backend.adopted() == []
    sandbox = tmp_path / "sandboxes" / s.hostname / s.mesos_task_id
    sandbox.mkdir(parents=True)
    with trio.fail_after(10):
        late = await trio.run_process(_supervise(tmp_path, s), cwd=sandbox, check=False)
    assert late.returncode == 127 and not ran.exists()
    await backend.launch([s])
    assert not ran.exists()
    assert backend.known(s.mesos_task_id) == status


async def test_a_run_claimed_after_its_record_and_ended_unwatched_is_known_as_it_ended(
        tmp_path: Path, nursery: trio.Nursery):
    """Recorded without a pid, then claimed by its supervisor, which ran it
    to its end while no host manager watched: the next one knows the real end."""
    s = spec(1, "exit 3")
    (tmp_path / "runs").mkdir()
    local_module._write_record(tmp_path / "runs", s, None)
    sandbox = tmp_path / "sandboxes" / s.hostname / s.mesos_task_id
    sandbox.mkdir(parents=True)
    with trio.fail_after(10):
        done = await trio.run_process(_supervise(tmp_path, s), cwd=sandbox, check=False)
    assert done.returncode == 3
    backend = LocalBackend(tmp_path, hosts=2)
    await nursery.start(backend.run, Harness(backend, tmp_path).report)
    status = backend.known(s.mesos_task_id)
    assert status is not None and (status.state, status.exit_code) == (TaskState.FAILED, 3)
    assert backend.adopted() == []


# --------------------------------------------------------------------------- health checks


def checked(run: int, command: str, check: HealthCheck) -> LaunchSpec:
    return dataclasses.replace(spec(run, command), health=check)


async def next_health(h: Harness, mesos_task_id: str, seen: int) -> StatusUpdate:
    """The first update after the ``seen`` first ones of this run that
    carries a health verdict or ends it."""
    with trio.fail_after(10):
        while True:
            mine = [u for u in h.updates if u.mesos_task_id == mesos_task_id]
            for u in mine[seen:]:
                if u.health in (task_pb2.HEALTHY, task_pb2.UNHEALTHY) or u.state in TERMINAL:
                    return u
            await trio.sleep(0.02)


async def test_a_passing_command_check_reports_healthy(local: Harness):
    s = checked(1, "sleep 30", HealthCheck("command", command="test -d .", initial_s=0.1,
                                           interval_s=0.1, timeout_s=5))
    await local.backend.launch([s])
    first = [u for u in local.updates if u.mesos_task_id == s.mesos_task_id]
    assert first[-1].state == TaskState.RUNNING
    assert first[-1].health == task_pb2.HEALTH_UNKNOWN  # until the first check
    healthy = await next_health(local, s.mesos_task_id, len(first))
    assert (healthy.state, healthy.health) == (TaskState.RUNNING, task_pb2.HEALTHY)
    assert local.backend.known(s.mesos_task_id).health == task_pb2.HEALTHY  # type: ignore[union-attr]
    await local.backend.kill([s.mesos_task_id], grace_seconds=1)
    await local.wait_terminal(s.mesos_task_id)


async def test_failing_checks_end_the_run_failed_unhealthy(local: Harness):
    s = checked(1, "sleep 30", HealthCheck("command", command="echo $PELOTON_TASK_ID; exit 3",
                                           initial_s=0.1, interval_s=0.1, timeout_s=5,
                                           max_failures=3))
    await local.backend.launch([s])
    unhealthy = await next_health(local, s.mesos_task_id, 1)
    assert (unhealthy.state, unhealthy.health) == (TaskState.RUNNING, task_pb2.UNHEALTHY)
    assert "exited with status 3" in unhealthy.message
    done = await local.wait_terminal(s.mesos_task_id)
    assert (done.state, done.reason) == (TaskState.FAILED, REASON_UNHEALTHY)
    assert done.message.startswith("failed 3 health checks in a row")


async def test_an_http_check_follows_the_answers(local: Harness, nursery: trio.Nursery):
    answer = {"status": b"200 OK"}

    async def handler(stream: trio.SocketStream) -> None:
        await stream.receive_some(4096)
        await stream.send_all(b"HTTP/1.0 " + answer["status"] + b"\r\n\r\n")
        await stream.aclose()

    [listener] = await nursery.start(functools.partial(trio.serve_tcp, handler, 0,
                                                         host="127.0.0.1"))
    port = listener.socket.getsockname()[1]
    s = checked(1, "sleep 30", HealthCheck("http", port=port, path="/health", initial_s=0.1,
                                           interval_s=0.1, timeout_s=2, max_failures=100))
    await local.backend.launch([s])
    seen = len([u for u in local.updates if u.mesos_task_id == s.mesos_task_id])
    assert (await next_health(local, s.mesos_task_id, seen)).health == task_pb2.HEALTHY
    answer["status"] = b"503 Service Unavailable"
    seen = len([u for u in local.updates if u.mesos_task_id == s.mesos_task_id])
    bad = await next_health(local, s.mesos_task_id, seen)
    assert bad.health == task_pb2.UNHEALTHY and "answered 503" in bad.message
    await local.backend.kill([s.mesos_task_id], grace_seconds=1)
    await local.wait_terminal(s.mesos_task_id)


async def test_a_command_check_with_unshared_environment_sees_only_path(local: Harness):
    """unshareEnvironments: the check does not get the task's environment."""
    s = checked(1, "sleep 30", HealthCheck("command", command='test -z "$PELOTON_TASK_ID"',
                                           clean_env=True, initial_s=0.1, interval_s=0.1,
                                           timeout_s=5))
    await local.backend.launch([s])
    assert (await next_health(local, s.mesos_task_id, 1)).health == task_pb2.HEALTHY
    await local.backend.kill([s.mesos_task_id], grace_seconds=1)
    await local.wait_terminal(s.mesos_task_id)


# --------------------------------------------------------------------------- GPUs


async def test_gpu_tasks_get_their_own_device_indexes(tmp_path: Path, nursery: trio.Nursery):
    """A host with 3 GPUs: a 2-GPU run sees devices 0,1 and a 1-GPU run 2 in
    CUDA_VISIBLE_DEVICES, a CPU task none; a run's devices are free again
    when it ends, and a run that asks more than are free fails to launch."""
    backend = LocalBackend(tmp_path, hosts=1, gpu=3)
    h = Harness(backend, tmp_path)
    await nursery.start(backend.run, h.report)

    none_yet = StatusUpdate(mesos_task_id="", state=TaskState.STARTING, hostname="")

    def gpu_spec(run: int, gpus: float, command: str) -> LaunchSpec:
        return dataclasses.replace(spec(run, command),
                                   resources=Resources(cpu=0.1, memory=32, gpu=gpus))

    two = gpu_spec(1, 2, 'echo "[$CUDA_VISIBLE_DEVICES]"; sleep 60')
    one = gpu_spec(2, 1, 'echo "[$CUDA_VISIBLE_DEVICES]"')
    none = gpu_spec(3, 0, 'echo "[$CUDA_VISIBLE_DEVICES]"')
    await backend.launch([two, one, none])
    with trio.fail_after(10):
        while True:
            if all((backend.known(s.mesos_task_id) or none_yet).state in TERMINAL
                   for s in (one, none)):
                break
            await trio.sleep(0.05)
    assert {backend.known(s.mesos_task_id).state for s in (one, none)} == {  # type: ignore[union-attr]
        TaskState.SUCCEEDED}

    async def seen(s: LaunchSpec) -> str:
        return (await backend.read_sandbox_file(s.mesos_task_id, "stdout", 0, 0))[0].decode()

    assert (await seen(one), await seen(none)) == ("[2]\n", "[]\n")
    assert await seen(two) == "[0,1]\n"
    too_many = gpu_spec(4, 2, "true")  # only device 2 is free
    await backend.launch([too_many])
    refused = await h.wait_terminal(too_many.mesos_task_id)
    assert refused.state == TaskState.FAILED and "needs 2 GPUs; local-0 has 1 free" in (
        refused.message)
    await backend.kill([two.mesos_task_id])
    await h.wait_terminal(two.mesos_task_id)
    again = gpu_spec(5, 3, 'echo "[$CUDA_VISIBLE_DEVICES]"')
    await backend.launch([again])
    assert (await h.wait_terminal(again.mesos_task_id)).state == TaskState.SUCCEEDED
    assert await seen(again) == "[0,1,2]\n"


async def test_an_adopted_run_keeps_its_gpu_devices(tmp_path: Path, nursery: trio.Nursery):
    """A run that held device 1 when its host manager died still holds it
    after the restart: a new 1-GPU run gets device 0, a 2-GPU run none."""
    s, proc = _left_behind(tmp_path, 1, "sleep 30", gpus=(1,))
    backend = LocalBackend(tmp_path, hosts=1, gpu=2)
    h = Harness(backend, tmp_path)
    await nursery.start(backend.run, h.report)
    assert [a.mesos_task_id for a in backend.adopted()] == [s.mesos_task_id]
    both = dataclasses.replace(spec(2, "true"), resources=Resources(cpu=0.1, memory=32, gpu=2))
    await backend.launch([both])
    assert "needs 2 GPUs; local-0 has 1 free" in (await h.wait_terminal(
        both.mesos_task_id)).message
    one = dataclasses.replace(spec(3, 'echo "[$CUDA_VISIBLE_DEVICES]"'),
                              resources=Resources(cpu=0.1, memory=32, gpu=1))
    await backend.launch([one])
    assert (await h.wait_terminal(one.mesos_task_id)).state == TaskState.SUCCEEDED
    assert (await backend.read_sandbox_file(one.mesos_task_id, "stdout", 0, 0))[0] == b"[0]\n"
    await backend.kill([s.mesos_task_id], grace_seconds=1)
    await h.wait_terminal(s.mesos_task_id)
    proc.wait()


# --------------------------------------------------------------------------- cpu and pids

CPU_AND_PIDS = HAVE_CGROUPS is not None and {"cpu", "pids"} <= set(HAVE_CGROUPS.enforced)


@pytest.mark.skipif(not CPU_AND_PIDS, reason="no usable cpu and pids cgroup controllers")
async def test_cpu_limit_is_a_cfs_quota(tmp_path: Path, nursery: trio.Nursery):
    """cpuLimit 0.2: a task that spins for a second of wall time gets about
    0.2 s of CPU (the CFS quota, as Mesos with --cgroups_enable_cfs)."""
    backend = LocalBackend(tmp_path, hosts=1)
    h = Harness(backend, tmp_path)
    await nursery.start(backend.run, h.report)
    spin = ("import resource, time\nt = time.time()\nwhile time.time() - t < 1: pass\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_utime)\n")
    s = dataclasses.replace(spec(1, sys.executable, shell=False,
                                 arguments=(sys.executable, "-c", spin)),
                            resources=Resources(cpu=0.2, memory=64))
    await backend.launch([s])
    assert (await h.wait_terminal(s.mesos_task_id)).state == TaskState.SUCCEEDED
    used = float((await backend.read_sandbox_file(s.mesos_task_id, "stdout", 0, 0))[0])
    assert used < 0.4, used  # unlimited, it would be close to 1.0


@pytest.mark.skipif(not CPU_AND_PIDS, reason="no usable cpu and pids cgroup controllers")
async def test_pids_max_bounds_the_processes_of_a_run(tmp_path: Path, nursery: trio.Nursery):
    backend = LocalBackend(tmp_path, hosts=1, pids_max=5)
    h = Harness(backend, tmp_path)
    await nursery.start(backend.run, h.report)
    forks = ("import os, time\nn = 0\ntry:\n    for _ in range(20):\n"
             "        if os.fork() == 0:\n            time.sleep(2)\n            os._exit(0)\n"
             "        n += 1\nexcept OSError as e:\n    print('stopped at', n, e.strerror)\n")
    s = spec(1, sys.executable, shell=False, arguments=(sys.executable, "-c", forks))
    await backend.launch([s])
    assert (await h.wait_terminal(s.mesos_task_id)).state == TaskState.SUCCEEDED
    out = (await backend.read_sandbox_file(s.mesos_task_id, "stdout", 0, 0))[0].decode()
    assert out.startswith("stopped at 4 "), out  # 5 processes: the task and 4 children


# --------------------------------------------------------------------------- ended runs


async def test_ended_runs_and_their_sandboxes_go_after_their_gc_delay(
        tmp_path: Path, mock_clock: trio.testing.MockClock):
    """An ended run is kept gc_delay on trio's clock (its end for known(),
    its sandbox for reads), and until a job manager acknowledged its end;
    then it is forgotten with its files. A restarted backend announces the
    ended runs it finds (found_ended) and keeps them gc_delay from its
    start, and until acknowledged again."""
    async with trio.open_nursery() as nursery:
        backend = LocalBackend(tmp_path, hosts=1, gc_delay=3600)
        h = Harness(backend, tmp_path)
        await nursery.start(backend.run, h.report)
        old, new = spec(1, "echo old"), spec(2, "echo new", shard=5)
        await backend.launch([old])
        await h.wait_terminal(old.mesos_task_id)
        backend.acknowledged([old.mesos_task_id])
        mock_clock.jump(1800)
        await backend.launch([new])
        await h.wait_terminal(new.mesos_task_id)
        await backend.collect_garbage()
        assert backend.known(old.mesos_task_id) is not None  # 1,800 s: kept
        mock_clock.jump(1800)
        await backend.collect_garbage()
        assert backend.known(old.mesos_task_id) is None
        assert not (tmp_path / "sandboxes" / "local-0" / old.mesos_task_id).exists()
        assert not list((tmp_path / "runs").glob(f"{old.mesos_task_id}.*"))
        with pytest.raises(NotFound, match="3600 s after it ends: its gc_delay"):
            await backend.read_sandbox_file(old.mesos_task_id, "stdout", 0, 0)
        # Past its delay, but no job manager has its end: kept.
        mock_clock.jump(7200)
        await backend.collect_garbage()
        assert (await backend.read_sandbox_file(new.mesos_task_id, "stdout", 0, 0))[0] == \
            b"new\n"
        nursery.cancel_scope.cancel()
    async with trio.open_nursery() as nursery:
        again = LocalBackend(tmp_path, hosts=1, gc_delay=3600)
        await nursery.start(again.run, Harness(again, tmp_path).report)
        assert again.known(old.mesos_task_id) is None  # its record went
        assert again.found_ended() == [(5, again.known(new.mesos_task_id))]
        assert again.known(new.mesos_task_id).state == TaskState.SUCCEEDED  # type: ignore[union-attr]
        assert again.found_ended() == []  # announced once
        mock_clock.jump(3600)
        await again.collect_garbage()
        assert again.known(new.mesos_task_id) is not None  # not acknowledged since
        again.acknowledged([new.mesos_task_id])
        await again.collect_garbage()
        assert again.known(new.mesos_task_id) is None
        assert list((tmp_path / "runs").iterdir()) == []
        assert list((tmp_path / "sandboxes" / "local-0").iterdir()) == []
        nursery.cancel_scope.cancel()
    with pytest.raises(InvalidArgument, match="positive number of seconds") as info:
        LocalBackend(tmp_path, gc_delay=0)
    assert info.value.field == "gc_delay"


# --------------------------------------------------------------------------- disk


async def test_a_persistent_volume_outlives_its_runs_until_deleted(tmp_path: Path,
                                                                   nursery: trio.Nursery):
    """A stateful task's volume is linked into each run's sandbox at its
    containerPath: what one run writes there, the next reads; deleted with
    delete_volumes, the next run starts with an empty one."""
    backend = LocalBackend(tmp_path, hosts=1)
    h = Harness(backend, tmp_path)
    await nursery.start(backend.run, h.report)
    volume = (f"{JOB}-0-volume", "data/db", 10)
    first = spec(1, "echo kept > data/db/file", volume=volume)
    await backend.launch([first])
    assert (await h.wait_terminal(first.mesos_task_id)).state == TaskState.SUCCEEDED
    second = spec(2, "cat data/db/file", volume=volume)
    await backend.launch([second])
    assert (await h.wait_terminal(second.mesos_task_id)).state == TaskState.SUCCEEDED
    data, _, _ = await backend.read_sandbox_file(second.mesos_task_id, "stdout", 0, 100)
    assert data == b"kept\n"
    await backend.delete_volumes("local-0", [volume[0]])
    await backend.delete_volumes("elsewhere", [volume[0]])  # not ours: skipped
    third = spec(3, "test ! -e data/db/file", volume=volume)
    await backend.launch([third])
    assert (await h.wait_terminal(third.mesos_task_id)).state == TaskState.SUCCEEDED


async def test_small_launches_are_prepared_in_the_loop_and_volumes_in_a_thread(
        local: Harness, monkeypatch: pytest.MonkeyPatch):
    """A launch of at most PREPARE_HERE runs is prepared without a thread
    hop (cheaper than the hop); a larger one, or one with a persistent
    volume (a tree of any size to give its run), goes to a worker thread."""
    hopped: list[int] = []
    real = trio.to_thread.run_sync

    async def counting(fn: Any, *args: Any, **kwargs: Any) -> Any:
        if fn is local_module._prepare_runs:
            hopped.append(len(args[0]))
        return await real(fn, *args, **kwargs)

    monkeypatch.setattr(local_module.trio.to_thread, "run_sync", counting)
    small = [spec(k, "true") for k in range(1, 1 + local_module.PREPARE_HERE)]
    await local.backend.launch(small)
    large = [spec(k, "true") for k in range(10, 11 + local_module.PREPARE_HERE)]
    await local.backend.launch(large)
    stateful = spec(20, "echo kept > data/db/file", volume=(f"{JOB}-0-volume", "data/db", 10))
    await local.backend.launch([stateful])
    assert hopped == [len(large), 1]
    ended = await local.wait_all_terminal([s.mesos_task_id for s in [*small, *large, stateful]])
    assert {u.state for u in ended.values()} == {TaskState.SUCCEEDED}


async def test_a_run_over_its_volume_size_is_killed(tmp_path: Path, nursery: trio.Nursery):
    """sizeMB 1: a run that writes 3 MB into its volume is killed at the
    next disk check, FAILED with Mesos's disk limitation reason."""
    backend = LocalBackend(tmp_path, hosts=1, disk_check_period=0.2)
    h = Harness(backend, tmp_path)
    await nursery.start(backend.run, h.report)
    run = spec(1, "head -c 3000000 /dev/zero > vol/big; sleep 30",
               volume=(f"{JOB}-0-volume", "vol", 1))
    await backend.launch([run])
    done = await h.wait_terminal(run.mesos_task_id)
    assert (done.state, done.reason) == (TaskState.FAILED, local_module.REASON_DISK_LIMIT)
    assert "in its persistent volume, more than its sizeMB 1" in done.message, done.message


async def test_a_run_over_its_disk_limit_is_killed(tmp_path: Path, nursery: trio.Nursery):
    """diskLimitMb 1: a run that writes 3 MB into its sandbox is killed at
    the next disk check and ends FAILED, Mesos's disk limitation reason; one
    within its limit runs on."""
    backend = LocalBackend(tmp_path, hosts=1, disk_check_period=0.2)
    h = Harness(backend, tmp_path)
    await nursery.start(backend.run, h.report)
    big = dataclasses.replace(spec(1, "head -c 3000000 /dev/zero > big; sleep 30"),
                              resources=Resources(cpu=0.1, memory=32, disk=1))
    small = dataclasses.replace(spec(2, "head -c 100000 /dev/zero > small; sleep 30"),
                                resources=Resources(cpu=0.1, memory=32, disk=1))
    await backend.launch([big, small])
    done = await h.wait_terminal(big.mesos_task_id)
    assert (done.state, done.reason) == (TaskState.FAILED, local_module.REASON_DISK_LIMIT)
    assert done.message.startswith("exceeded its disk limit: used 2.9 MB of disk in its "
                                   "sandbox, more than its limit of 1 MB"), done.message
    assert backend.known(small.mesos_task_id).state == TaskState.RUNNING  # type: ignore[union-attr]
    assert "disk" in backend.enforced()
    await backend.kill([small.mesos_task_id], grace_seconds=0)


# --------------------------------------------------------------------------- task users


def _data_dir() -> tuple[Path, Path]:
    """A data directory anyone may pass through (as one anywhere may be),
    with a daemon's file in it: jobs.db, mode 0600."""
    top = Path(tempfile.mkdtemp(prefix="peloton-isolation-", dir="/tmp"))
    top.chmod(0o755)
    db = top / "jobs.db"
    db.write_text("secret")
    db.chmod(0o600)
    return top, db


@pytest.mark.skipif(os.geteuid() != 0, reason="switching users needs root")
async def test_isolated_runs_reach_neither_other_sandboxes_nor_the_daemons(nursery: trio.Nursery):
    """task_uids: each run is a user of its own. A run cannot read another
    run's sandbox, list the sandboxes, read a daemon's file (jobs.db, mode
    0600) or signal a daemon; it owns its own sandbox and volume."""
    top, db = _data_dir()
    try:
        root = top / "hostmgr-0"
        backend = LocalBackend(root, hosts=1, task_uids=(local_module.TASK_UID_FIRST, 4))
        h = Harness(backend, root)
        await nursery.start(backend.run, h.report)
        a = spec(1, "echo mine > secret; sleep 30")
        await backend.launch([a])
        with trio.fail_after(10):
            while True:
                wrote = await trio.Path(backend.sandbox(a.mesos_task_id), "secret").exists()
                if wrote:
                    break
                await trio.sleep(0.05)
        other = backend.sandbox(a.mesos_task_id)
        b = dataclasses.replace(spec(2, f"""
            id -u
            cat {other}/secret && echo READ-OTHER
            ls {root}/sandboxes/local-0 && echo LISTED
            cat {db} && echo READ-DB
            kill -0 {os.getpid()} && echo SIGNALLED
            echo kept > data/file && cat data/file
        """), volume=("v-1", "data", 10))
        await backend.launch([b])
        ended = await h.wait_terminal(b.mesos_task_id)
        assert ended.state == TaskState.SUCCEEDED, ended
        out, _, _ = await backend.read_sandbox_file(b.mesos_task_id, "stdout", 0, 10_000)
        lines = out.decode().split()
        assert int(lines[0]) >= local_module.TASK_UID_FIRST
        assert lines[0] != str(os.stat(other).st_uid)  # a user of its own
        assert not {"READ-OTHER", "LISTED", "READ-DB", "SIGNALLED", "mine", "secret"} & set(
            lines), lines
        assert lines[-1] == "kept"  # its own sandbox and volume are its own
        assert "task users" in backend.enforced()
        await backend.kill([a.mesos_task_id], grace_seconds=0)
        await h.wait_terminal(a.mesos_task_id)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def test_a_sandbox_is_made_with_its_parents_and_never_over_a_file(tmp_path: Path) -> None:
    from peloton.hostmgr.backends.local import _make_sandbox

    deep = tmp_path / "sandboxes" / "local-0" / "run-1"
    _make_sandbox(deep, None, 0, tmp_path)  # its parents made too
    assert deep.is_dir()
    _make_sandbox(deep, None, 0, tmp_path)  # there already: nothing to do
    (tmp_path / "sandboxes" / "local-0" / "run-2").write_text("not a directory")
    with pytest.raises(FileExistsError):
        _make_sandbox(tmp_path / "sandboxes" / "local-0" / "run-2", None, 0, tmp_path)
