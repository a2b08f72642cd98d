"""What keeps the local runs: it outlives a host manager that dies.

**The keeper.** The ``local`` backend starts ONE process, ``python -S -E
supervise.py --serve FD`` (the keeper, in a session of its own), and asks
it, over the Unix SEQPACKET socket ``FD``, to start each run. A request is
one message, JSON ``{"id", "args": [STATUS, CGROUPS, FD_LIMIT, UID, EXE,
ARGV...], "cwd", "env"}`` with the run's stdout and stderr passed as
descriptors (SCM_RIGHTS); the answer is ``{"id", "pid"}`` (or ``{"id",
"error"}``), and when the run ends, ``{"exit": PID, "status":
WAITSTATUS}`` (and ``"launch_error"`` when it could not start): the keeper
is the run's parent and reaps it. For each run
it:

1. starts the run's first process, waiting to be let go, as a session
   leader with the run's sandbox (``cwd``), environment and outputs: for
   ``/bin/sh -c COMMAND`` (a shell command), ``/bin/sh`` running
   ``TRAMPOLINE``, through ``posix_spawn`` (a vfork: no copy of the
   keeper); for a command without a shell (its own ``argv[0]``, a launch
   error when it cannot be executed) or a run as a user of its own, a fork
   of the keeper that becomes the task with ``execvp`` (after
   ``setgroups``/``setgid``/``setuid`` to ``UID``);
2. *claims* the run (below) for that process;
3. moves it into each cgroup of ``CGROUPS`` (directories joined by
   ``os.pathsep``: memory, cpu, pids) and gives it RLIMIT_NOFILE
   ``FD_LIMIT``, if not 0;
4. lets it go (a line on its stdin; it then runs the command, its stdin
   /dev/null);
5. when it ends, writes how to ``STATUS`` (JSON, written to a temporary
   file and renamed: ``{"exit_code": n}``, ``{"signal": n}`` or
   ``{"launch_error": "..."}``) and sends its exit.

A run that cannot be claimed, joined to its cgroups or limited is killed
before it runs anything (a launch error in ``STATUS``, or nothing when a
later host manager gave it up). When the host manager goes (the socket
closes), the keeper takes no more requests and ends once its last run has
ended, writing each end: the next host manager adopts the runs from their
records and claims, watches each through a pidfd and reads its end from
``STATUS``, which the keeper writes a moment after the run is gone.

Why one keeper and not a supervisor per run: a run's supervisor was a fork
of a Python interpreter that forked again for the task; the page tables,
copy-on-write faults and teardown of those two copies cost ~3.5 ms of cpu
a run on the development machine, more than the rest of a short task's
life in the local backend (``loadtest.bench_local``: 6.6 ms of the
machine's cpu a run of ``true`` with supervisors, 3.3 with the keeper).

**The claim.** The host manager writes a run's record before it asks for
the run, so it cannot know the run's pid, and may die before it learns
it. So before it lets the run go, the keeper *claims* it: it makes
``<run>.pid`` beside ``STATUS`` (``claim_path``) holding the run's pid and
start time and its own, atomically (a hard link of a complete file, which
fails if the name exists). A host manager that starts and finds a record
with no pid reads the claim, or, finding none, makes it itself as given up
(``abandon``, the same atomic way): a keeper that comes after that kills
the run before it runs anything. Either way exactly one of them wins, so a
run is adopted by the next host manager or never runs at all; it never
runs unknown (uncounted on its host, and started again under the same id).

Signals sent to the run's process group (the host manager's kill, a
terminal's ^C) reach the task, and not the keeper. The keeper uses the
standard library alone and runs without ``site`` (``-S``).

**The supervisor** (``python -S -E supervise.py STATUS CGROUPS FD_LIMIT UID
EXE ARGV...``, :func:`main`) does the same for one run as a process of its
own: it claims the run for itself, forks the task (which joins the
cgroups, takes the limit and the user itself), waits for it, writes
``STATUS`` and ends the way the task ended (the same exit status, or
killed by the same signal). The backend starts one when the keeper cannot
take a request (too large, or the keeper is gone), and runs started by
supervisors (an earlier version's) are adopted as the keeper's are.
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


def put(path: str, data: bytes) -> None:
    """Write ``data`` to a new file ``path`` (or over one): the keeper and
    the backend write a few files a run, and a builtin open() costs ~3
    times these calls."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def _join(cgroups: str, pid: int) -> None:
    """Move process ``pid`` into each cgroup of ``cgroups`` (directories
    joined by os.pathsep)."""
    for path in cgroups.split(os.pathsep) if cgroups else ():
        fd = os.open(f"{path}/cgroup.procs", os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.write(fd, str(pid).encode())
        finally:
            os.close(fd)


def _write(path: str, status: dict[str, object]) -> None:
    tmp = path + ".tmp"
    put(tmp, json.dumps(status).encode())
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
        _join(cgroup, os.getpid())
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


def launch_error(status: str) -> str | None:
    """The launch error the run's status file holds, if it holds one."""
    try:
        with open(status) as f:
            return str(json.load(f)["launch_error"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def claim_path(status: str) -> str:
    """Where the claim of the run whose status file is ``status`` is:
    ``<run>.pid`` for ``<run>.status``."""
    return os.path.splitext(status)[0] + ".pid"


def _make_once(path: str, data: dict[str, int]) -> dict[str, int] | None:
    """Make ``path`` holding ``data`` (JSON), whole and at once, unless it
    exists: None when made, else what it holds."""
    tmp = f"{path}.{os.getpid()}.tmp"
    put(tmp, json.dumps(data).encode())
    try:
        os.link(tmp, path)  # fails if it exists: one maker wins
    except FileExistsError:
        with open(path) as f:
            found = json.load(f)
        return found if isinstance(found, dict) else {}
    finally:
        os.unlink(tmp)
    return None


def start_ticks(pid: int | str = "self") -> int | None:
    """When process ``pid`` started (clock ticks after boot), or None if it
    is gone: with the pid, it tells the process from a later one that
    reuses the pid."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
        try:
            stat = os.read(fd, 4096)  # (a few hundred bytes)
        finally:
            os.close(fd)
        return int(stat.rpartition(b")")[2].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def claim(status: str, pid: int | None = None,
          keeper: tuple[int, int] | None = None) -> bool:
    """Claim the run (see the module docstring) for process ``pid`` (this
    one when None), started by ``keeper`` (its pid and start time) if one
    did: False if it was given up (``abandon``) and the task must never
    start."""
    pid = os.getpid() if pid is None else pid
    data = {"pid": pid, "start": start_ticks(pid) or 0}
    if keeper is not None:
        data.update(keeper=keeper[0], keeper_start=keeper[1])
    return _make_once(claim_path(status), data) is None


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

# The shell a shell-form run (``/bin/sh -c COMMAND``) starts as, under the
# keeper, with ``$1`` COMMAND and ``$2`` its open files limit (0: none): it
# waits for the keeper's go (a line on its stdin), takes /dev/null as its
# stdin and the limit (dash cannot redirect under a limit of 10 or less:
# it saves descriptors above 9), then runs COMMAND itself as ``sh -c
# COMMAND`` would ($0 ``/bin/sh``, no positional parameters: the ``shift``
# runs inside the eval, after ``$1`` is expanded). If the keeper dies
# before the go, it ends (127) having run nothing.
TRAMPOLINE = ('IFS= read -r PELOTON_GO || exit 127; unset PELOTON_GO; exec </dev/null; '
              '[ "$2" = 0 ] || ulimit -n "$2" || exit 127; eval "shift 2; $1"')
SHELL = "/bin/sh"


def _go(go: int) -> None:
    try:
        os.write(go, b"\n")
    except OSError:  # it is gone already (a kill): its end says how
        pass
    finally:
        os.close(go)


class Keeper:
    """The spawner's runs: each started, claimed, let go, reaped, and its
    end written (see the module docstring). Single-threaded; the spawner's
    loop calls :meth:`start` and :meth:`reap`."""

    def __init__(self) -> None:
        self.identity = os.getpid(), start_ticks() or 0  # as claims name it
        self.status: dict[int, str] = {}  # live runs: pid -> status file
        self.given_up: set[int] = set()  # started, then found given up: not run
        # Runs whose status file may hold a launch error already: forked ones
        # (the child writes its own) and those the keeper failed.
        self.may_have_failed: set[int] = set()

    def start(self, request: dict[str, object], fds: list[int]) -> int:
        """Start the run of ``request`` (its stdout and stderr ``fds``);
        its pid once it is claimed and let go (or killed: given up)."""
        args = request["args"]
        env = request["env"]
        assert isinstance(args, list) and isinstance(env, dict)
        status, cgroup, fd_limit, uid, exe, *argv = (str(a) for a in args)
        go_r, go_w = os.pipe()
        try:
            shell = exe == SHELL and len(argv) == 3 and argv[:2] == [SHELL, "-c"]
            if shell and uid == "0":
                pid = self._spawn_shell(argv[2], int(fd_limit), str(request["cwd"]), env,
                                        fds, go_r)
                fd_limit = "0"  # its own, once let go
            else:
                pid = self._fork(exe, argv, int(uid), status, str(request["cwd"]), env, fds,
                                 go_r)
                self.may_have_failed.add(pid)
        except BaseException:
            os.close(go_w)
            raise
        finally:
            os.close(go_r)
        self.status[pid] = status
        try:
            claimed = claim(status, pid, keeper=self.identity)
        except (OSError, ValueError) as error:
            self._fail(pid, go_w, status, f"cannot claim the run: {error}")
            return pid
        if not claimed:  # a later host manager gave the launch up: it never runs
            self.given_up.add(pid)
            self._kill(pid, go_w)
            return pid
        try:
            _join(cgroup, pid)
            if int(fd_limit):
                import resource
                resource.prlimit(pid, resource.RLIMIT_NOFILE, (int(fd_limit), int(fd_limit)))
        except OSError as error:
            self._fail(pid, go_w, status,
                       f"Failed to launch {exe!r}: {error.strerror or error}")
            return pid
        _go(go_w)
        return pid

    @staticmethod
    def _spawn_shell(command: str, fd_limit: int, cwd: str, env: dict[str, str],
                     fds: list[int], go: int) -> int:
        """The trampoline shell (vfork and exec: no copy of this process)."""
        here = os.open(".", os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.chdir(cwd)
            return os.posix_spawn(
                SHELL, [SHELL, "-c", TRAMPOLINE, SHELL, command, str(fd_limit)], env,
                file_actions=[(os.POSIX_SPAWN_DUP2, go, 0), (os.POSIX_SPAWN_DUP2, fds[0], 1),
                              (os.POSIX_SPAWN_DUP2, fds[1], 2)],
                setsid=True, setsigmask=(), setsigdef=(*NOTED, signal.SIGPIPE, signal.SIGXFSZ,
                                                       signal.SIGCHLD))
        finally:
            os.fchdir(here)
            os.close(here)

    @staticmethod
    def _fork(exe: str, argv: list[str], uid: int, status: str, cwd: str,
              env: dict[str, str], fds: list[int], go: int) -> int:
        """A copy of this process that waits for the go, then becomes the
        task: for a command run without a shell (its own argv[0], and a
        launch error when it cannot be executed) or as a user of its own."""
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, NOTED)
        try:
            pid = os.fork()
        except BaseException:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            raise
        if pid != 0:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            return pid
        try:
            signal.set_wakeup_fd(-1)
            for signum in (*NOTED, signal.SIGCHLD):
                signal.signal(signum, signal.SIG_DFL)
            os.setsid()
            os.dup2(go, 0)
            os.dup2(fds[0], 1)
            os.dup2(fds[1], 2)
            os.closerange(3, os.sysconf("SC_OPEN_MAX") if os.sysconf("SC_OPEN_MAX") > 0 else 4096)
            os.chdir(cwd)
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            if os.read(0, 1) != b"\n":  # the keeper is gone, or it was given up
                os._exit(LAUNCH_FAILED)
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.close(null)
            os.environ.clear()
            os.environ.update(env)
            _child("", 0, uid, exe, argv, status)
        except BaseException as error:
            try:
                os.write(2, f"keeper: cannot start the run: {error}\n".encode())
            finally:
                os._exit(LAUNCH_FAILED)
        os._exit(LAUNCH_FAILED)  # _child() never returns

    def _kill(self, pid: int, go: int) -> None:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.close(go)

    def _fail(self, pid: int, go: int, status: str, message: str) -> None:
        """It cannot start: killed before it runs anything, FAILED to launch."""
        self.may_have_failed.add(pid)
        self._kill(pid, go)
        _write(status, {"launch_error": message})

    def reap(self) -> list[dict[str, object]]:
        """Each run that ended since: its end written (unless given up, or
        its launch error is there already); ``{"exit": pid, "status"}``,
        with ``"launch_error"`` when the run could not start."""
        ended: list[dict[str, object]] = []
        while True:
            try:
                pid, code = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            status = self.status.pop(pid, None)
            message: dict[str, object] = {"exit": pid, "status": code}
            if status is not None and pid not in self.given_up:
                # (Not over a launch error, the task's own or the keeper's.)
                failed = launch_error(status) if pid in self.may_have_failed else None
                if failed is not None:
                    message["launch_error"] = failed
                else:
                    try:
                        _write(status, {"signal": os.WTERMSIG(code)} if os.WIFSIGNALED(code)
                               else {"exit_code": os.WEXITSTATUS(code)})
                    except OSError as error:
                        os.write(2, f"keeper: cannot write {status}: {error}\n".encode())
            self.given_up.discard(pid)
            self.may_have_failed.discard(pid)
            ended.append(message)
        return ended


def serve(fd: int) -> None:
    """The spawner, the keeper of the runs it starts: a run started per
    request on socket ``fd``. When the host manager goes (the socket
    closes), it takes no more and ends once its last run has ended."""
    sock = socket.socket(fileno=fd)
    sock.set_inheritable(False)
    sock.setblocking(False)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    # A ^C or a kill of the host manager's group: go on. Handlers, not
    # SIG_IGN: an exec resets them (an ignored signal would stay ignored).
    for signum in NOTED:
        signal.signal(signum, lambda *_: None)
    keeper = Keeper()
    selector = selectors.DefaultSelector()
    selector.register(sock, selectors.EVENT_READ)
    selector.register(wake_r, selectors.EVENT_READ)
    out: list[bytes] = []
    connected = True

    def ended() -> None:
        out.extend(json.dumps(message).encode() for message in keeper.reap())

    while connected or keeper.status:
        for key, _ in selector.select():
            if key.fileobj == wake_r:
                while True:
                    try:
                        if not os.read(wake_r, 512):
                            break
                    except BlockingIOError:
                        break
                ended()
                continue
            fds = array.array("i")
            try:
                data, ancillary, _, _ = sock.recvmsg(MAX_REQUEST, socket.CMSG_SPACE(
                    2 * fds.itemsize))
            except BlockingIOError:
                continue
            except OSError:
                data, ancillary = b"", []
            for level, kind, payload in ancillary:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
            for f in fds:  # (a run gets them as its stdout and stderr only)
                os.set_inheritable(f, False)
            if not data:  # the host manager is gone: keep the runs to their ends
                for f in fds:
                    os.close(f)
                selector.unregister(sock)
                connected = False
                break
            request = json.loads(data)
            try:
                if len(fds) != 2:
                    raise OSError(f"expected 2 descriptors, got {len(fds)}")
                answer = {"id": request["id"], "pid": keeper.start(request, list(fds))}
            except OSError as error:
                answer = {"id": request["id"], "error": str(error.strerror or error)}
            finally:
                for f in fds:
                    os.close(f)
            out.append(json.dumps(answer).encode())
            ended()  # (a run may already be gone: its exit after its pid)
        if not connected:
            out.clear()
            continue
        sock.setblocking(True)  # answers are small; the host manager reads them
        try:
            for message in out:
                sock.send(message)
        except OSError:
            connected = False
            try:
                selector.unregister(sock)
            except (KeyError, ValueError):
                pass
        finally:
            out.clear()
            sock.setblocking(False)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(int(sys.argv[2]))
    else:
        main(sys.argv[1:])
