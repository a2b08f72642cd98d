"""The supervisor of one local run: it outlives a host manager that dies.

The ``local`` backend starts every run as ``python -S -E supervise.py STATUS
CGROUPS FD_LIMIT UID EXE ARGV...`` in a session of its own, with the run's
sandbox, environment and outputs. The supervisor forks the task (which
joins each cgroup of ``CGROUPS``, directories joined by ``os.pathsep``
(memory, cpu, pids), gets RLIMIT_NOFILE ``FD_LIMIT``, if not 0, and
becomes user and group ``UID``, if not 0, before it executes ``EXE`` with
``ARGV``; the supervisor stays root, to write STATUS), waits for
it, writes how it ended to ``STATUS`` (JSON, written to a temporary file
and renamed: ``{"exit_code": n}``, ``{"signal": n}`` or ``{"launch_error":
"..."}``) and ends the way the task ended (the same exit status, or killed
by the same signal), so the host manager that started it sees what it would
have seen of the task itself.

Why: a host manager that is killed leaves its runs running (they are in
sessions of their own); the one that starts next adopts them from their
records, and learns how the ones that ended meanwhile ended from
``STATUS`` (it cannot wait for a process it did not start).

Signals sent to the run's process group (the host manager's kill, a
terminal's ^C) reach the task; the supervisor only notes them and goes on
waiting. It uses the standard library alone and runs without ``site``
(``-S``), so it starts in a few milliseconds and adds ~8 MB per run.
"""

from __future__ import annotations

import json
import os
import signal
import sys

# Signals the supervisor outlives (the task gets them too: same group).
NOTED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)
LAUNCH_FAILED = 127


def _write(path: str, status: dict[str, object]) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(status, f)
    os.replace(tmp, path)


def _child(cgroup: str, fd_limit: int, uid: int, exe: str, argv: list[str],
           status: str) -> None:
    """In the forked child: become the task (never returns)."""
    try:
        for signum in NOTED:
            signal.signal(signum, signal.SIG_DFL)
        for path in cgroup.split(os.pathsep) if cgroup else ():
            with open(os.path.join(path, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
        if fd_limit:
            import resource
            resource.setrlimit(resource.RLIMIT_NOFILE, (fd_limit, fd_limit))
        if uid:  # the run's own user (and group), with no other groups
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
        os.execvp(exe, argv)
    except OSError as error:
        try:
            _write(status, {"launch_error": f"Failed to launch {exe!r}: "
                                            f"{error.strerror or error}"})
        finally:
            os._exit(LAUNCH_FAILED)


def main(args: list[str]) -> None:
    status, cgroup, fd_limit, uid, exe, *argv = args
    for signum in NOTED:
        signal.signal(signum, lambda *_: None)
    pid = os.fork()
    if pid == 0:
        _child(cgroup, int(fd_limit), int(uid), exe, argv, status)
    _, code = os.waitpid(pid, 0)  # retried across the noted signals (PEP 475)
    if os.WIFSIGNALED(code):
        died_of = os.WTERMSIG(code)
        _write(status, {"signal": died_of})
        if died_of in NOTED:  # back to the default; SIGKILL's cannot be set at all
            signal.signal(died_of, signal.SIG_DFL)
        os.kill(os.getpid(), died_of)
        os._exit(128 + died_of)  # a signal that does not end a process (SIGCHLD...)
    exit_code = os.WEXITSTATUS(code)
    if not os.path.exists(status):  # the child's own launch error is already there
        _write(status, {"exit_code": exit_code})
    os._exit(exit_code)


if __name__ == "__main__":
    main(sys.argv[1:])
