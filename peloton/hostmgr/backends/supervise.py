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

**The claim.** The host manager writes a run's record before it starts the
supervisor, so it cannot know the supervisor's pid, and may die before it
learns it. So before it forks the task, the supervisor *claims* the run:
it makes ``<run>.pid`` beside ``STATUS`` (``claim_path``) holding its pid
and start time, atomically (a hard link of a complete file, which fails if
the name exists). A host manager that starts and finds a record with no
pid reads the claim, or, finding none, makes it itself as given up
(``abandon``, the same atomic way): a supervisor that comes after that
exits without starting the task. Either way exactly one of them wins, so
a run is adopted by the next host manager or never runs at all; it never
runs unknown (uncounted on its host, and started again under the same id).

Signals sent to the run's process group (the host manager's kill, a
terminal's ^C) reach the task; the supervisor only notes them and goes on
waiting. It uses the standard library alone and runs without ``site``
(``-S``), and adds ~8 MB per run.

**The spawner.** Starting a Python interpreter costs ~19 ms of cpu on the
development machine, more than the rest of a short task's life in Peloton
put together (1,000 one-instance jobs of ``true`` spent 19 cpu s in
interpreter start-ups alone). So the host manager starts ONE interpreter,
``python -S -E supervise.py --serve FD`` (the spawner), and asks it, over
the Unix SEQPACKET socket ``FD``, to fork a supervisor per run: a fork of
an interpreter already running costs ~1 ms. A request is one message, JSON
``{"id", "args": [STATUS, CGROUPS, FD_LIMIT, UID, EXE, ARGV...], "cwd",
"env"}`` with the run's stdout and stderr passed as descriptors
(SCM_RIGHTS); the answer is ``{"id", "pid"}`` (or ``{"id", "error"}``), and
when a supervisor ends, ``{"exit": PID, "status": WAITSTATUS}`` (the
spawner is its parent and reaps it). The forked supervisor becomes a
session leader and runs :func:`main` exactly as a started one does. When
the host manager goes (the socket closes), the spawner ends; the
supervisors it forked carry on, in their own sessions, and are adopted.
"""

from __future__ import annotations

import array
import json
import os
import selectors
import signal
import socket
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
           status: str, mask: set[int | signal.Signals] | None = None) -> None:
    """In the forked child: become the task (never returns). ``mask``: the
    signal mask to restore once the noted signals have their default
    actions back (one of them that came meanwhile is then delivered)."""
    try:
        for signum in NOTED:
            signal.signal(signum, signal.SIG_DFL)
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
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


def claim_path(status: str) -> str:
    """Where the claim of the run whose status file is ``status`` is:
    ``<run>.pid`` for ``<run>.status``."""
    return os.path.splitext(status)[0] + ".pid"


def _make_once(path: str, data: dict[str, int]) -> dict[str, int] | None:
    """Make ``path`` holding ``data`` (JSON), whole and at once, unless it
    exists: None when made, else what it holds."""
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        json.dump(data, f)
    try:
        os.link(tmp, path)  # fails if it exists: one maker wins
    except FileExistsError:
        with open(path) as f:
            found = json.load(f)
        return found if isinstance(found, dict) else {}
    finally:
        os.unlink(tmp)
    return None


def _start_ticks() -> int:
    """When this process started (clock ticks after boot): with the pid, it
    tells this process from a later one that reuses the pid."""
    with open("/proc/self/stat", "rb") as f:
        return int(f.read().rpartition(b")")[2].split()[19])


def claim(status: str) -> bool:
    """Claim the run (see the module docstring) for this process: False if
    it was given up (``abandon``) and the task must never start."""
    return _make_once(claim_path(status), {"pid": os.getpid(), "start": _start_ticks()}) is None


def abandon(status: str) -> dict[str, int] | None:
    """Give up the run whose supervisor has not claimed it: None if it is
    given up (now or before; its supervisor, if one ever comes, starts
    nothing), else the claim (``{"pid", "start"}``) of the supervisor that
    started it."""
    found = _make_once(claim_path(status), {"abandoned": True})
    return None if found is None or "pid" not in found else found


def main(args: list[str]) -> None:
    status, cgroup, fd_limit, uid, exe, *argv = args
    noted: list[int] = []
    for signum in NOTED:
        signal.signal(signum, lambda signum, _: noted.append(signum))
    # Forked by the spawner, they came blocked (_fork_supervisor): one sent
    # meanwhile is noted now.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, NOTED)
    try:
        claimed = claim(status)
    except (OSError, ValueError) as error:
        _write(status, {"launch_error": f"cannot claim the run: {error}"})
        os._exit(LAUNCH_FAILED)
    if not claimed:  # a later host manager gave the launch up: it never runs
        os._exit(LAUNCH_FAILED)
    # A signal sent to the group before the task exists (a kill right after
    # the launch) is passed on to it; one sent from here on reaches it itself.
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, NOTED)
    early = list(noted)
    pid = os.fork()
    if pid == 0:
        _child(cgroup, int(fd_limit), int(uid), exe, argv, status, mask)
    for early_signal in early:
        os.kill(pid, early_signal)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
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


# The largest request the spawner reads (the socket's buffers are raised to it).
MAX_REQUEST = 4 << 20


def _fork_supervisor(request: dict[str, object], fds: list[int]) -> int:
    """Fork a supervisor for ``request``; its pid (in the spawner), once it
    leads its own process group.

    A kill can come as soon as the host manager has the pid. So the pid is
    answered only after the child's ``setsid`` (before it, the group the
    host manager signals does not exist), and the noted signals stay
    blocked in the child until ``main`` has its handlers (before them it
    has the spawner's SIG_IGN): one that comes in between waits, and is
    then passed on to the task, where it used to be lost and the run lived
    until the SIGKILL a grace period later."""
    ready_r, ready_w = os.pipe()
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, NOTED)
    try:
        pid = os.fork()
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        os.close(ready_r)
        os.close(ready_w)
        raise
    if pid != 0:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        os.close(ready_w)
        try:
            os.read(ready_r, 1)  # b"": the child made its session (or died)
        finally:
            os.close(ready_r)
        return pid
    try:  # the child: a supervisor, as if started on its own
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()
        os.close(ready_w)
        os.close(ready_r)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(fds[0], 1)
        os.dup2(fds[1], 2)
        os.closerange(3, os.sysconf("SC_OPEN_MAX") if os.sysconf("SC_OPEN_MAX") > 0 else 4096)
        os.chdir(str(request["cwd"]))
        env = request["env"]
        assert isinstance(env, dict)
        os.environ.clear()
        os.environ.update(env)
        args = request["args"]
        assert isinstance(args, list)
        main([str(a) for a in args])
    except BaseException as error:
        try:
            os.write(2, f"supervisor: {error}\n".encode())
        finally:
            os._exit(LAUNCH_FAILED)
    os._exit(LAUNCH_FAILED)  # main() never returns


def serve(fd: int) -> None:
    """The spawner: a supervisor forked per request on socket ``fd``."""
    sock = socket.socket(fileno=fd)
    sock.setblocking(False)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    for signum in NOTED:  # a ^C or a kill of the host manager's group: go on
        signal.signal(signum, signal.SIG_IGN)
    selector = selectors.DefaultSelector()
    selector.register(sock, selectors.EVENT_READ)
    selector.register(wake_r, selectors.EVENT_READ)
    out: list[bytes] = []

    def reap() -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            out.append(json.dumps({"exit": pid, "status": status}).encode())

    while True:
        for key, _ in selector.select():
            if key.fileobj == wake_r:
                while True:
                    try:
                        if not os.read(wake_r, 512):
                            break
                    except BlockingIOError:
                        break
                reap()
                continue
            fds = array.array("i")
            try:
                data, ancillary, _, _ = sock.recvmsg(MAX_REQUEST, socket.CMSG_SPACE(
                    2 * fds.itemsize))
            except BlockingIOError:
                continue
            if not data:
                return  # the host manager is gone
            for level, kind, payload in ancillary:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
            request = json.loads(data)
            try:
                if len(fds) != 2:
                    raise OSError(f"expected 2 descriptors, got {len(fds)}")
                answer = {"id": request["id"], "pid": _fork_supervisor(request, list(fds))}
            except OSError as error:
                answer = {"id": request["id"], "error": str(error.strerror or error)}
            finally:
                for f in fds:
                    os.close(f)
            out.append(json.dumps(answer).encode())
            reap()  # (a child may already be gone: its exit after its pid)
        sock.setblocking(True)  # answers are small; the host manager reads them
        try:
            for message in out:
                sock.send(message)
        except OSError:
            return
        finally:
            out.clear()
            sock.setblocking(False)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(int(sys.argv[2]))
    else:
        main(sys.argv[1:])
