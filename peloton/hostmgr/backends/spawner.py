"""The local backend's side of the keeper (``supervise.py --serve``).

One keeper process per local backend starts, claims, reaps and records
each run (see ``supervise.py``), so a run costs a vfork and an exec, not
an interpreter start (~19 ms of cpu) nor a supervisor forked per run
(~3.5 ms). :class:`Spawner` sends it requests and reads its answers; a
:class:`Spawned` is what :func:`trio.lowlevel.open_process` would have
given: the run's ``pid``, ``await wait()`` and ``returncode`` (negative:
the signal that ended it).

If the keeper dies while runs it started are alive (they carry on in their
own sessions), each such run is watched through a pidfd, its end read from
its status file if one is there (none: as killed), and the next launch
starts a new keeper.
"""

from __future__ import annotations

import array
import itertools
import json
import logging
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import trio

from peloton.hostmgr.backends import supervise

log = logging.getLogger(__name__)

SUPERVISOR = str(Path(supervise.__file__))
KEEPER_END_S = 5.0


class SpawnFailed(OSError):
    """The keeper could not take the request (too large, or it is gone):
    start a supervisor of the run's own (the slow way)."""


class Spawned:
    """A run the keeper started."""

    def __init__(self, pid: int, status_file: Path) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self.launch_error: str | None = None  # why it could not start, if it could not
        self._status_file = status_file
        self._ended = trio.Event()

    def _exited(self, waitstatus: int, launch_error: str | None = None) -> None:
        self.returncode = os.waitstatus_to_exitcode(waitstatus)
        self.launch_error = launch_error
        self._ended.set()

    async def wait(self) -> int:
        await self._ended.wait()
        assert self.returncode is not None
        return self.returncode

    async def _watch_orphaned(self) -> None:
        """The keeper died: learn the end through a pidfd and the status file."""
        try:
            pidfd = os.pidfd_open(self.pid)
        except ProcessLookupError:
            pidfd = None
        if pidfd is not None:
            try:
                await trio.lowlevel.wait_readable(pidfd)
            finally:
                os.close(pidfd)
        code = -signal.SIGKILL  # no status: as a run killed outright
        try:
            status = json.loads(await trio.to_thread.run_sync(self._status_file.read_text))
            if "exit_code" in status:
                code = int(status["exit_code"])
            elif "signal" in status:
                code = -int(status["signal"])
            elif "launch_error" in status:
                code = supervise.LAUNCH_FAILED
                self.launch_error = str(status["launch_error"])
        except (OSError, ValueError):
            pass
        self.returncode = code
        self._ended.set()


class Spawner:
    """Starts runs through one long-lived keeper process."""

    def __init__(self) -> None:
        self._sock: trio.socket.SocketType | None = None
        self._process: trio.Process | None = None
        self._ids = itertools.count(1)
        # request id -> (answered, the answer, the run's status file)
        self._asked: dict[int, tuple[trio.Event, list[Any], Path]] = {}
        self._running: dict[int, Spawned] = {}
        self._send_lock = trio.Lock()
        self._nursery: trio.Nursery | None = None
        self._closed = False

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> None:
        """Serve until :meth:`close` (shielded: the runs' ends must still
        arrive while the backend winds down)."""
        with trio.CancelScope(shield=True) as scope:
            self._scope = scope
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                task_status.started()
                await trio.sleep_forever()

    def close(self) -> None:
        self._closed = True
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        scope = getattr(self, "_scope", None)
        if scope is not None:
            scope.cancel()

    async def _ensure(self) -> trio.socket.SocketType:
        if self._sock is not None:
            return self._sock
        if self._nursery is None or self._closed:
            raise SpawnFailed("the keeper is not running")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        for s in (ours, theirs):
            s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, supervise.MAX_REQUEST)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, supervise.MAX_REQUEST)
        try:
            # In a session of its own: a kill of the host manager's group
            # leaves it keeping the runs.
            self._process = await trio.lowlevel.open_process(
                [sys.executable, "-S", "-E", SUPERVISOR, "--serve", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, start_new_session=True)
        finally:
            theirs.close()
        sock = trio.socket.from_stdlib_socket(ours)
        self._sock = sock
        self._nursery.start_soon(self._read, sock, self._process)
        return sock

    async def spawn(self, args: list[str], *, cwd: Path, env: dict[str, str],
                    stdout: int, stderr: int, status_file: Path) -> Spawned:
        """Start a run with ``args`` (supervise.py's); raises SpawnFailed
        when the keeper cannot (start a supervisor the slow way then)."""
        ident = next(self._ids)
        request = json.dumps({"id": ident, "args": args, "cwd": str(cwd), "env": env}).encode()
        if len(request) > supervise.MAX_REQUEST:
            raise SpawnFailed(f"a {len(request)}-byte request is too large for the keeper")
        answered = trio.Event()
        answer: list[Any] = []
        self._asked[ident] = (answered, answer, status_file)
        try:
            async with self._send_lock:
                sock = await self._ensure()
                fds = array.array("i", [stdout, stderr])
                try:
                    await sock.sendmsg([request], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                                    fds.tobytes())])
                except OSError as error:
                    raise SpawnFailed(f"cannot reach the keeper: {error}") from None
            await answered.wait()
        finally:
            self._asked.pop(ident, None)
        if not answer:
            raise SpawnFailed("the keeper ended before it answered")
        reply = answer[0]
        if "error" in reply:
            raise OSError(reply["error"])
        spawned: Spawned = reply["spawned"]
        return spawned

    async def _read(self, sock: trio.socket.SocketType, process: trio.Process) -> None:
        try:
            while True:
                try:
                    data = await sock.recv(65536)
                except (OSError, trio.ClosedResourceError):
                    data = b""
                if not data:
                    break
                message = json.loads(data)
                if "exit" in message:
                    spawned = self._running.pop(message["exit"], None)
                    if spawned is not None:
                        spawned._exited(message["status"], message.get("launch_error"))
                    continue
                waiting = self._asked.get(message["id"])
                if waiting is None:  # its caller is gone: a run nobody would know of
                    if "pid" in message:
                        try:
                            os.killpg(message["pid"], signal.SIGKILL)
                        except OSError:
                            pass
                    continue
                event, answer, status_file = waiting
                if "pid" in message:
                    # Registered here, before the keeper's word of its exit.
                    message["spawned"] = self._running[message["pid"]] = Spawned(
                        message["pid"], status_file)
                answer.append(message)
                event.set()
        finally:
            if self._sock is sock:
                self._sock = None
            sock.close()
            # The keeper ends once its runs have (at once when it has none,
            # as at a clean stop, which kills the runs first); one that keeps
            # runs of a stopped backend is not waited for.
            with trio.move_on_after(KEEPER_END_S) as ending:
                ending.shield = True
                await process.wait()
            for event, _, _ in list(self._asked.values()):
                event.set()  # (unanswered: SpawnFailed)
            orphans, self._running = self._running, {}
            if orphans and not self._closed:
                log.warning("the keeper ended (%s) with %d runs alive; watching them "
                            "through pidfds", process.returncode, len(orphans))
            if self._nursery is not None:
                for spawned in orphans.values():
                    self._nursery.start_soon(spawned._watch_orphaned)
