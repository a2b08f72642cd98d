"""pysyncobj behind a trio API: the only place Raft threads meet trio.

pysyncobj runs its own tick thread; it applies committed commands there and
calls our callbacks there. ``RaftNode`` hands commands to it without
blocking (never ``sync=True``) and gets results back into trio with
``TrioToken.run_sync_soon``, which never blocks the tick thread.

The replicated state machine is any object with ``apply(blob) -> result``
(pure and deterministic), ``snapshot() -> bytes`` and ``restore(bytes)``.
It is shared between the tick thread (apply) and trio (reads), so both sides
hold ``node.lock`` while they touch it; reads must be short.

A failed or timed-out submission does not prove the command was not
applied (pysyncobj reports LEADER_CHANGED, DISCARDED... for applied
commands too), so callers re-submit with the same idempotency key, and the
state machine answers a repeated key with the first result.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import os
import pathlib
import threading
import time
import zlib
from collections.abc import Callable
from typing import Any, Protocol

import trio
from pysyncobj import FAIL_REASON, SyncObj, SyncObjConf, SyncObjConsumer, replicated
from pysyncobj.pipe_notifier import PipeNotifier

from peloton.core.errors import NotLeader, Unavailable
from peloton.raft import deflate
from peloton.raft.seal import Sealer

log = logging.getLogger(__name__)

deflate.install()  # pysyncobj's messages stored, not compressed, when small

# The most bytes of entries one AppendEntries message carries; an entry at
# least this big is sent in chunks (see codec.MAX_COMMAND_BYTES).
APPEND_BATCH_BYTES = 1 << 20


class Machine(Protocol):
    def apply(self, blob: bytes) -> Any: ...
    def snapshot(self) -> bytes: ...
    def restore(self, blob: bytes) -> None: ...


# A compacted snapshot: this prefix, then our msgpack snapshot compressed by
# zlib at level 1 (dumps written before it hold the msgpack bytes as they are).
SNAPSHOT_PREFIX = b"PZ1"


class StateLock:
    """The state's lock (a ``threading.Lock``) that tells its holder whether
    another thread waits for it (``contended``): the tick thread hands the
    GIL over after an apply only then (see ``_Replica.apply_command``)."""

    __slots__ = ("_lock", "_waiting")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: set[int] = set()  # the threads blocked on it (set ops are atomic)

    def __enter__(self) -> StateLock:
        if not self._lock.acquire(blocking=False):
            me = threading.get_ident()
            self._waiting.add(me)
            try:
                self._lock.acquire()
            finally:
                self._waiting.discard(me)
        return self

    def __exit__(self, *_: object) -> None:
        self._lock.release()

    @property
    def contended(self) -> bool:
        return bool(self._waiting)


class _Snapshot:
    """Pickles as the machine's snapshot, taken when pickled.

    pysyncobj's log compaction calls ``_serialize`` on its tick thread, forks,
    and pickles the result in the child through gzip at level 9. Taken on
    the tick thread, a snapshot of ~900k tracked tasks (240 MB of msgpack,
    4.5 s) blocked the leader's heartbeats; gzip-9 of it was another 12.7 s
    of CPU, and all three replicas compact at the same log index, so on two
    cores the daemons starved and the leadership moved (10k-hosts-1m-tasks).
    So the child renices itself to 19, encodes, and compresses at level 1
    (0.5 s; gzip-9 of the compressed bytes is then under a second).

    Only the tick thread applies commands, and it is the thread that forks:
    in the child nothing mutates the state, so the child reads it without
    the lock (a trio thread may have held the lock at the fork, and it stays
    held in the child forever). Pickled in the process that made it (no
    fork), it takes the lock like any reader.
    """

    def __init__(self, machine: Machine, lock: StateLock) -> None:
        self._machine, self._lock, self._pid = machine, lock, os.getpid()

    def __reduce__(self) -> tuple[type[bytes], tuple[bytes]]:
        if os.getpid() != self._pid:
            os.nice(19)  # the daemons come first
            blob = self._machine.snapshot()
        else:
            with self._lock:
                blob = self._machine.snapshot()
        return bytes, (SNAPSHOT_PREFIX + zlib.compress(blob, 1),)


def _snapshot_bytes(stored: bytes) -> bytes:
    if stored.startswith(SNAPSHOT_PREFIX):
        return zlib.decompress(memoryview(stored)[len(SNAPSHOT_PREFIX):])
    return stored


class _Replica(SyncObjConsumer):  # type: ignore[misc]
    def __init__(self, machine: Machine, lock: StateLock,
                 on_apply: Callable[[], None]) -> None:
        self._machine = machine
        self._lock = lock
        self._on_apply = on_apply
        super().__init__()

    @replicated  # type: ignore[misc]
    def apply_command(self, blob: bytes) -> Any:
        with self._lock:
            result = self._machine.apply(blob)
        self._on_apply()
        # pysyncobj applies a tick's committed entries back to back. Trio's
        # thread, blocked on the lock, woke at each release but needed the
        # GIL, which this thread kept until the switch interval; by then it
        # held the lock again. A reader (a dequeue's check, a placement's
        # reply) waited out the whole tick: in a model of 20 entries of
        # 6 ms, p99 119 ms; with this hand-over of the GIL, 5 ms. Only when
        # a reader waits: after every apply, it was 40% of a loaded leader's
        # applying samples (the thread, runnable, waiting for the GIL or a
        # core back), and the apply rate is what a commit waits for.
        if self._lock.contended:
            time.sleep(0)
        return result

    # pysyncobj's log compaction stores what _serialize returns: our own
    # msgpack snapshot (not pickled attributes), taken in the dump child.
    def _serialize(self) -> dict[str, _Snapshot]:
        return {"snapshot": _Snapshot(self._machine, self._lock)}

    def _deserialize(self, data: dict[str, bytes]) -> None:
        blob = _snapshot_bytes(data["snapshot"])
        with self._lock:
            self._machine.restore(blob)
        self._on_apply()


# A follower that hears nothing from the leader for a random time in this
# range calls an election. Three replicas share two cores with the other
# daemons: at 4,000 tasks/s the leader's tick thread went over 1-2.5 s
# without a word and the leadership moved mid-run (10k-hosts-1m-tasks-at-once).
# A dead leader is replaced in ~2.5-5 s, inside the 10 s member lease (and a
# new cluster elects its first leader ~1.5 s later than with 1-2.5 s).
ELECTION_TIMEOUT = (2.0, 4.0)


def raft_conf(data_dir: pathlib.Path, *, self_address: str,
              election_timeout: tuple[float, float] = ELECTION_TIMEOUT,
              append_entries_period: float = 0.05,
              on_state_changed: Callable[[int, int], None] | None = None) -> SyncObjConf:
    """pysyncobj's configuration for a member at ``self_address`` keeping
    its files in ``data_dir``."""
    return SyncObjConf(
        onStateChanged=on_state_changed,
        journalFile=str(data_dir / "raft.journal"),
        fullDumpFile=str(data_dir / "raft.dump"),
        # No password: pysyncobj's Fernet is replaced by the member's own
        # sealer (``_KeptAlive.encryptor``), which authenticates every
        # message before it is unpickled, so a peer without the secret
        # runs nothing.
        # pysyncobj binds 0.0.0.0 (every interface) unless told otherwise,
        # whatever host the member's own address names.
        bindAddress=self_address,
        raftMinTimeout=election_timeout[0],
        raftMaxTimeout=election_timeout[1],
        # pysyncobj requires connectionTimeout >= raftMaxTimeout (3.5 s default).
        # Connections idle this long are dropped: see _KeptAlive.
        connectionTimeout=max(3.5, election_timeout[1]),
        appendEntriesPeriod=append_entries_period,
        autoTickPeriod=0.01,
        connectionRetryTime=0.5,
        commandsWaitLeader=False,
        appendEntriesBatchSizeBytes=APPEND_BATCH_BYTES,
        logCompactionMinEntries=20000,
        logCompactionMinTime=600,
        useFork=True,
    )


# Every member sends every partner a message at least this often.
KEEPALIVE_S = 1.0
# How long a member that does not lead waits for a message before its tick
# runs anyway (pysyncobj's ``autoTickPeriod``, 10 ms, is the leader's: it
# gathers the commands queued meanwhile into one append). A follower's work
# comes with the leader's messages, which wake it at once; its own timers
# (an election's deadline, the keepalive) are a second and more. Ticking
# 100 times a second for nothing was a sixth of an idle local cluster's
# cpu (``loadtest.idle``: 2.72-3.13 -> 2.30-2.38 cpu s over 30 s).
FOLLOWER_TICK_S = 0.05


class _KeptAlive(SyncObj):  # type: ignore[misc]
    """pysyncobj with no idle connection between members.

    pysyncobj drops a connection when it sends on it after reading nothing
    for ``connectionTimeout``, and drops that message with it. Followers
    say nothing to each other while a leader lives, so when the leader went
    away the first vote request between the two survivors was always lost:
    they split the vote and a second election round, 2-4 s later, chose the
    leader (failover 5.7-7.9 s after a cut; 2.5-4.5 s with this). Each
    member now sends every partner a message that pysyncobj reads and
    ignores, once a second from the tick thread (the transport's own).
    """

    def __init__(self, *args: Any, sealer: Sealer, **kwargs: Any) -> None:
        # Set before pysyncobj's __init__, which starts the tick thread and
        # leaves out of its dumps the attributes that exist by then.
        self._sealer = sealer
        self._notifier: PipeNotifier | None = None
        self._notify_pending = False
        super().__init__(*args, **kwargs)
        transport = self._SyncObj__transport
        self._handle_message = transport._onMessageReceivedCallback
        transport.setOnMessageReceivedCallback(self._on_message)
        self._next_keepalive = 0.0
        # pysyncobj's full dump pickles every attribute set after its own
        # __init__ (a subclass's replicated fields). These two are the
        # member's, not the state's: the handler, a bound method, pickles
        # the whole member (its locks and sockets), which failed every log
        # compaction ("Failed to store full dump", retried every tick), so
        # the log and the journal grew without bound.
        self._SyncObj__properies.update(("_handle_message", "_next_keepalive"))

    @property
    def encryptor(self) -> Sealer:
        """What seals and opens every message (pysyncobj's transport asks
        for it at each connection): AES-GCM, not pysyncobj's Fernet
        (``peloton.raft.seal``)."""
        return self._sealer

    def _getEncryptor(self) -> Sealer:
        return self._sealer

    def _on_message(self, node: Any, message: Any) -> None:
        # pysyncobj's leader sets a follower's next index to what each
        # acknowledgement names. With more than one append in flight, the
        # answer to the first arrives after the second was sent, so the
        # index went back: the next send repeated the second's entries, and
        # the follower, holding more than the new message's previous index,
        # truncated them (pysyncobj's "truncating already-applied log
        # entries", entries it may have applied) and appended them again.
        # A success never moves the index back (as etcd's raft keeps it);
        # a refusal (``reset``) still sets it wherever the follower says.
        if not isinstance(message, dict):
            self._handle_message(node, message)
            return
        kind = message.get("type")
        if kind == "next_node_idx" and message.get("success") and not message.get("reset"):
            next_index = self._SyncObj__raftNextIndex
            sent = next_index.get(node)
            self._handle_message(node, message)
            if sent is not None and next_index.get(node, 0) < sent:
                next_index[node] = sent
            return
        if (kind == "append_entries" and "prevLogIdx" in message
                and "transmission" not in message
                and message["term"] >= self._SyncObj__raftCurrentTerm):
            self._append_entries(node, message)
            return
        self._handle_message(node, message)

    def _append_entries(self, node: Any, message: dict[str, Any]) -> None:
        """An AppendEntries as Raft (§5.3) has it: delete a follower's
        entries only where one conflicts with the leader's.

        pysyncobj deletes every entry past the message's previous index
        whenever the follower holds more, the leader's own among them: a
        heartbeat or a resend from an older index, crossing appends already
        received, deleted entries the follower had applied, and appended
        them again ("truncating already-applied log entries"; the
        leader-side guard above only takes away the most frequent of those
        resends). Here the entries the follower already holds (same index,
        same term: the same entry, by Raft's log matching) are dropped from
        the message before pysyncobj sees it; if none is left and the
        follower holds more than the leader's message covers, nothing is
        deleted and the answer names only what the message proved: the
        entries past it are not known to match the leader's, so neither the
        leader's match index nor the follower's commit index may count
        them."""
        log = self._SyncObj__raftLog
        first = log[0][1]
        last = log[-1][1]
        previous = message["prevLogIdx"]
        if not first <= previous <= last or log[previous - first][2] != message["prevLogTerm"]:
            self._handle_message(node, message)  # pysyncobj's refusal
            return
        entries = message.get("entries", ())
        held = 0
        for entry in entries:
            index = entry[1]
            if index > last or log[index - first][2] != entry[2]:
                break
            held += 1
        if held:
            previous = entries[held - 1][1]
            message = dict(message, prevLogIdx=previous, prevLogTerm=entries[held - 1][2],
                           entries=entries[held:])
            entries = message["entries"]
        if entries or previous == last:
            # A conflict at previous + 1 (deleted from there, as Raft has
            # it), or nothing past previous: pysyncobj's own handling.
            self._handle_message(node, message)
            return
        # Everything the message carries is held and more follows it: the
        # leader's term, its lease and commit index (up to what the message
        # proved) through pysyncobj, with no entries to look at; the answer
        # here.
        self._handle_message(node, {
            "type": "append_entries", "term": message["term"],
            "commit_index": min(message["commit_index"], previous)})
        self._SyncObj__sendNextNodeIdx(node, nextNodeIdx=previous + 1, success=True)

    def notify_command(self) -> None:
        """Wake a lone member's tick thread for a command just queued (any
        thread).

        pysyncobj's batching mode (``appendEntriesUseBatch``, the default)
        takes queued commands only when its tick thread wakes: for a
        message, or after ``autoTickPeriod`` (10 ms). A lone member hears
        no message, so each commit waited for two ticks (the one that
        appends, the one that commits): ~20 ms, where a group's answers
        wake the leader at once. One wake-up in flight covers every command
        queued before the tick takes them.

        A group's leader is not woken for a command: tried (2026-11-27), a
        lone small job on a local cluster of three went from submit to
        SUCCEEDED in 41 ms instead of 75, but under load the faster commits
        made smaller appends and, upstream, smaller batches (the batchers
        send again when a commit answers): 10k-hosts-100k-single-task-jobs
        fell from ~345 to 289-309 jobs/s. Waking it only for a command after
        a quiet 5 ms kept the pace (355, 359) and gave 57 ms, but two of
        three runs had a probe of 2.9-4.6 s that ten runs without it never
        had; left for when that is understood."""
        if not self._notify_pending and not self._SyncObj__otherNodes:
            self._notify_pending = True
            self.wake()

    def wake(self) -> None:
        """Wake the tick thread (any thread), e.g. to take a ``destroy``."""
        if self._notifier is not None:
            with contextlib.suppress(BlockingIOError):  # full: a wake-up is in it
                self._notifier.notify()

    def _checkCommandsToApply(self) -> None:
        self._notify_pending = False  # first: a command queued after this wakes again
        # pysyncobj appends new commands to the log here, after the tick's
        # send, and sends them with the next append-entries period (50 ms):
        # a commit waited for that on an idle cluster, twice on a job's
        # way to its host (enqueue, placement). The leader sends what it
        # appended at once; under load the ticks come less often, and each
        # send carries all that one gathered.
        log_index = self._SyncObj__getCurrentLogIndex
        before = log_index()
        super()._checkCommandsToApply()
        if log_index() != before and self._isLeader():
            if self._SyncObj__otherNodes:
                self._SyncObj__sendAppendEntries()
            else:
                # A lone member commits at its next tick, which no answer
                # wakes: wake it now, not after ``autoTickPeriod``.
                self.wake()

    def _onTick(self, timeToWait: float = 0.0) -> None:
        if self._notifier is None:  # subscribed from this thread: the poller's own
            self._notifier = PipeNotifier(self._poller)
        if timeToWait and not self._isLeader():
            timeToWait = max(timeToWait, FOLLOWER_TICK_S)
        super()._onTick(timeToWait)
        now = time.monotonic()
        if now >= self._next_keepalive:
            self._next_keepalive = now + KEEPALIVE_S
            transport = self._SyncObj__transport
            if transport.ready:
                for node in self._SyncObj__otherNodes:
                    transport.send(node, _KEEPALIVE)


_KEEPALIVE = {"type": "keepalive"}
_STATES = {0: "follower", 1: "candidate", 2: "leader"}


class RaftNode:
    """One member of a pysyncobj Raft group, driven from trio."""

    def __init__(self, machine: Machine, self_address: str, partners: list[str], *,
                 data_dir: pathlib.Path, password: str,
                 election_timeout: tuple[float, float] = ELECTION_TIMEOUT,
                 append_entries_period: float = 0.05) -> None:
        if not password:
            # pysyncobj unpickles whatever reaches its port; only its
            # encryption authenticates a message first. Loopback is no
            # exception: any local process (a task, too) can reach it.
            raise ValueError("a Raft member needs the group's password")
        self.machine = machine
        self.lock = StateLock()
        self.self_address = self_address
        self._token: trio.lowlevel.TrioToken | None = None
        self._applied = trio.Event()
        # Whether a trio task waits for the next apply (``watch_applied``):
        # only then does an apply wake trio. A follower has no such waiter,
        # and waking it for every command was a quarter of its samples.
        self._watched = False
        self._wake_pending = False
        # Submissions' outcomes, from the tick thread to trio's next wake.
        self._finished: collections.deque[tuple[Callable[[Any, Any], None], Any, Any]] = (
            collections.deque())
        data_dir.mkdir(parents=True, exist_ok=True)
        conf = raft_conf(data_dir, self_address=self_address,
                         election_timeout=election_timeout,
                         append_entries_period=append_entries_period,
                         on_state_changed=self._state_changed)
        self._replica = _Replica(machine, self.lock, self._notify_applied)
        self._sync = _KeptAlive(self_address, partners, conf, consumers=[self._replica],
                                sealer=Sealer.from_password(password))

    # -- called from the tick thread ------------------------------------
    def _state_changed(self, old: int, new: int) -> None:
        # One line per change: when a failover is slow, these say where the
        # time went (the silence before the election, the votes).
        log.info("raft %s: %s -> %s", self.self_address, _STATES.get(old, old),
                 _STATES.get(new, new))

    def _notify_applied(self) -> None:
        # Read after the apply released the lock: a watch set before the
        # apply took it is seen here, and one set after it read the applied
        # state itself (see ``watch_applied``).
        if self._watched:
            self._wake_soon(self._token)

    def _wake_soon(self, token: trio.lowlevel.TrioToken | None) -> None:
        # One wake-up in flight covers every command applied, and every
        # outcome queued, before it runs (waiters re-read the state). Each
        # wake-up is a write to trio's wake-up socket, and after it the tick
        # thread waits for the GIL while trio's thread works: one a command
        # and one an outcome was 5.6% of a loaded leader's samples, each a
        # stall of the thread that applies and replicates.
        if token is not None and not self._wake_pending:
            self._wake_pending = True
            try:
                token.run_sync_soon(self._wake)
            except trio.RunFinishedError:
                self._wake_pending = False

    # -- trio side ------------------------------------------------------
    def _wake(self) -> None:
        self._wake_pending = False  # first: what the tick thread adds from now wakes again
        finished = self._finished
        while finished:
            fulfil, result, error = finished.popleft()
            fulfil(result, error)
        self.nudge()

    def nudge(self) -> None:
        """Wake what waits for the next apply (``watch_applied``), as an
        apply would: for a waiter whose condition also reads trio's own
        state, which changed. Call from trio."""
        if self._watched:
            self._watched = False
            self._applied.set()
            self._applied = trio.Event()

    def attach(self) -> None:
        """Route callbacks to the current trio run; call once from trio."""
        self._token = trio.lowlevel.current_trio_token()

    def watch_applied(self) -> trio.Event:
        """The event the next applied command sets. Call it holding ``lock``,
        after reading the state it waits to change: an apply takes the lock,
        so none can fall between the read and the watch unseen."""
        self._watched = True
        return self._applied

    def is_leader(self) -> bool:
        return bool(self._sync._isLeader())

    def leader(self) -> str | None:
        node = self._sync._getLeader()
        return None if node is None else str(node.address if hasattr(node, "address") else node)

    def status(self) -> dict[str, Any]:
        return dict(self._sync.getStatus())

    async def submit(self, blob: bytes, *, timeout: float = 5.0) -> Any:
        """Replicate ``blob`` and return what ``apply`` returned for it.

        Raises ``NotLeader`` when this node does not lead (with the leader's
        Raft address when known) and ``Unavailable`` when the outcome is
        unknown (the caller may re-submit the same key).
        """
        if not self.is_leader():
            raise NotLeader("this resmgr replica is not the Raft leader", leader=self.leader())
        token = trio.lowlevel.current_trio_token()
        done = trio.Event()
        outcome: list[Any] = []

        def fulfil(result: Any, error: Any) -> None:
            outcome.append((result, error))
            done.set()

        def callback(result: Any, error: Any) -> None:  # in the tick thread
            self._finished.append((fulfil, result, error))
            self._wake_soon(token)

        self._replica.apply_command(blob, callback=callback)
        self._sync.notify_command()
        with trio.move_on_after(timeout):
            await done.wait()
        if not outcome:
            raise Unavailable(f"Raft commit took longer than {timeout:g}s; outcome unknown")
        result, error = outcome[0]
        if error != FAIL_REASON.SUCCESS:
            if error in (FAIL_REASON.NOT_LEADER, FAIL_REASON.MISSING_LEADER):
                raise NotLeader("lost Raft leadership", leader=self.leader())
            raise Unavailable(f"Raft commit failed ({_reason(error)}); outcome unknown")
        return result

    def close(self) -> None:
        self._token = None
        self._sync.destroy()  # taken by the tick thread when it next wakes:
        self._sync.wake()     # now, not after its period


def _reason(code: int) -> str:
    for name in dir(FAIL_REASON):
        if not name.startswith("_") and getattr(FAIL_REASON, name) == code:
            return name
    return str(code)
