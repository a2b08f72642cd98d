"""RaftNode's pysyncobj configuration, and what log compaction gets from
``_Replica._serialize``.

pysyncobj calls ``_serialize`` on its tick thread and pickles the result in a
forked child, so the snapshot must be taken there, at low priority and
cheaply compressed: taken on the tick thread (and gzipped at level 9), a
million tracked tasks cost the leader its leadership.
"""

from __future__ import annotations

import os
import pickle
import select
import threading
import time
import zlib
from typing import Any

from peloton.raft.node import SNAPSHOT_PREFIX, StateLock, _Replica


class Machine:
    def __init__(self) -> None:
        self.state = b"v1"
        self.snapshots = 0
        self.restored: bytes | None = None

    def apply(self, blob: bytes) -> Any:
        self.state = blob
        return None

    def snapshot(self) -> bytes:
        self.snapshots += 1
        return self.state

    def restore(self, blob: bytes) -> None:
        self.restored = blob


def test_serialize_defers_the_snapshot_until_pickled() -> None:
    machine = Machine()
    replica = _Replica(machine, StateLock(), lambda: None)
    data = replica._serialize()
    assert machine.snapshots == 0  # nothing encoded on the tick thread
    blob = pickle.dumps(data, protocol=2)  # what the dump child does
    assert machine.snapshots == 1
    stored = pickle.loads(blob)["snapshot"]
    assert stored.startswith(SNAPSHOT_PREFIX) and zlib.decompress(stored[3:]) == b"v1"
    replica._deserialize(pickle.loads(blob))
    assert machine.restored == b"v1"


def test_dumps_written_before_compression_still_load() -> None:
    machine = Machine()
    replica = _Replica(machine, StateLock(), lambda: None)
    replica._deserialize({"snapshot": b"\x85plain msgpack"})
    assert machine.restored == b"\x85plain msgpack"


def test_a_forked_child_snapshots_while_the_lock_is_held_elsewhere() -> None:
    """A trio thread holding the lock at the fork must not hang the child."""
    machine = Machine()
    lock = StateLock()
    replica = _Replica(machine, lock, lambda: None)
    data = replica._serialize()
    lock.__enter__()  # held by this (the parent's) thread, as a reader would
    try:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the dump child
            try:
                os.write(write, pickle.dumps(data, protocol=2))
                os.write(write, b"nice=%d" % os.nice(0))
            finally:
                os._exit(0)
        os.close(write)
        ready, _, _ = select.select([read], [], [], 10.0)
        assert ready, "the forked child hung on the lock"
        os.waitpid(pid, 0)
        blob = os.read(read, 1 << 16)
        os.close(read)
    finally:
        lock.__exit__(None, None, None)
    pickled, _, nice = blob.rpartition(b"nice=")
    stored = pickle.loads(pickled)["snapshot"]
    assert zlib.decompress(stored[len(SNAPSHOT_PREFIX):]) == b"v1"
    assert int(nice) >= 19  # the child yields the CPU to the daemons
    assert machine.snapshots == 0  # the parent encoded nothing


def test_the_raft_configuration_is_one_pysyncobj_accepts(tmp_path: Any) -> None:
    from peloton.raft.node import ELECTION_TIMEOUT, raft_conf

    conf = raft_conf(tmp_path, self_address="127.0.0.1:7000")
    conf.validate()  # pysyncobj asserts its rules here, when a node starts
    assert (conf.raftMinTimeout, conf.raftMaxTimeout) == ELECTION_TIMEOUT
    assert conf.connectionTimeout >= conf.raftMaxTimeout
    assert conf.bindAddress == "127.0.0.1:7000"  # not pysyncobj's 0.0.0.0


def test_followers_keep_their_connection_to_each_other_alive(tmp_path: Any) -> None:
    """pysyncobj drops a connection (and the message) when it sends after
    reading nothing for ``connectionTimeout``; followers say nothing to each
    other while a leader lives, so without keep-alives the first vote
    request after a leader's loss was always lost (a split vote, and a
    second election round 2-4 s later)."""
    import time

    from peloton.ops.layout import free_ports
    from peloton.raft.node import KEEPALIVE_S, RaftNode

    addresses = [f"127.0.0.1:{port}" for port in free_ports(3)]
    nodes = [RaftNode(Machine(), a, [p for p in addresses if p != a],  # type: ignore[arg-type]
                      data_dir=tmp_path / str(i), password="p" * 16,
                      election_timeout=(0.3, 0.6))
             for i, a in enumerate(addresses)]
    try:
        deadline = time.monotonic() + 20
        while not any(n.is_leader() for n in nodes):
            assert time.monotonic() < deadline, "no leader elected"
            time.sleep(0.05)
        followers = [n for n in nodes if not n.is_leader()]
        timeout = followers[0]._sync._SyncObj__conf.connectionTimeout
        time.sleep(timeout + 1.0)  # longer than an idle connection may last
        for follower, other in (followers, followers[::-1]):
            transport = follower._sync._SyncObj__transport
            (node,) = [n for n in transport._connections if n.address == other.self_address]
            connection = transport._connections[node]
            idle = time.monotonic() - connection._TcpConnection__lastReadTime
            assert idle < timeout - KEEPALIVE_S, idle
    finally:
        for n in nodes:
            n.close()


def test_outcomes_reach_each_submitter_in_one_wake_up(tmp_path: Any) -> None:
    """The tick thread queues each submission's outcome and wakes trio once
    for all that queue before trio runs: every submitter still gets its own
    command's result, and a watcher of the next apply wakes."""
    import time

    import trio
    import trio.lowlevel

    from peloton.ops.layout import free_ports
    from peloton.raft.node import RaftNode

    class Echo(Machine):
        def apply(self, blob: bytes) -> Any:
            return blob[::-1]

    [port] = free_ports(1)
    node = RaftNode(Echo(), f"127.0.0.1:{port}", [], data_dir=tmp_path,  # type: ignore[arg-type]
                    password="p" * 16, election_timeout=(0.3, 0.6))

    async def main() -> dict[bytes, Any]:
        node.attach()
        with trio.fail_after(20):
            got: dict[bytes, Any] = {}
            woken = trio.Event()

            async def waiter() -> None:
                with node.lock:
                    applied = node.watch_applied()
                await applied.wait()
                woken.set()

            async def one(blob: bytes) -> None:
                got[blob] = await node.submit(blob)

            async with trio.open_nursery() as nursery:
                nursery.start_soon(waiter)
                await trio.lowlevel.checkpoint()
                for i in range(200):
                    nursery.start_soon(one, b"cmd-%03d" % i)
            assert woken.is_set()
            return got

    try:
        deadline = time.monotonic() + 20
        while not node.is_leader():  # alone, it elects itself
            assert time.monotonic() < deadline, "no leader elected"
            time.sleep(0.05)
        got = trio.run(main)
    finally:
        node.close()
    assert got == {b"cmd-%03d" % i: (b"cmd-%03d" % i)[::-1] for i in range(200)}


def test_an_apply_wakes_trio_only_when_a_task_watches(tmp_path: Any) -> None:
    """A follower has nothing waiting for its applies: waking its trio loop
    for each command was a quarter of its samples in a load run. An apply
    wakes trio only after ``watch_applied`` (taken under the lock, after
    reading the state), and then the watcher's event is set."""
    import trio

    from peloton.ops.layout import free_ports
    from peloton.raft.node import RaftNode

    [port] = free_ports(1)
    node = RaftNode(Machine(), f"127.0.0.1:{port}", [], data_dir=tmp_path,  # type: ignore[arg-type]
                    password="p" * 16, election_timeout=(0.3, 0.6))

    async def main() -> None:
        node.attach()
        node._notify_applied()  # what the tick thread calls after each apply
        assert not node._wake_pending, "an apply nobody watches woke trio"
        with node.lock:
            applied = node.watch_applied()
        node._notify_applied()
        with trio.fail_after(5):
            await applied.wait()
        node._notify_applied()  # the watch was for one apply only
        assert not node._wake_pending

    try:
        trio.run(main)
    finally:
        node.close()


def _group(tmp_path: Any, election_timeout: tuple[float, float] = (0.3, 0.6)) -> list[Any]:
    """Three members on loopback, once one of them leads."""
    import time

    from peloton.ops.layout import free_ports
    from peloton.raft.node import RaftNode

    addresses = [f"127.0.0.1:{port}" for port in free_ports(3)]
    nodes = [RaftNode(Machine(), a, [p for p in addresses if p != a],  # type: ignore[arg-type]
                      data_dir=tmp_path / str(i), password="p" * 16,
                      election_timeout=election_timeout)
             for i, a in enumerate(addresses)]
    deadline = time.monotonic() + 20
    while not any(n.is_leader() for n in nodes):
        if time.monotonic() > deadline:
            for n in nodes:
                n.close()
            raise AssertionError("no leader elected")
        time.sleep(0.05)
    return nodes


def _hold_leader(nodes: list[Any]) -> float:
    """No election from now on, and no leader stepping down: every election
    timeout and the leader's fallback raised to ten minutes (a busy box
    starves the tick threads past the tests' short ones). Returns the new
    deadlines' time."""
    import time

    far = time.monotonic() + 600
    for n in nodes:
        conf = n._sync._SyncObj__conf
        conf.raftMinTimeout = conf.raftMaxTimeout = conf.leaderFallbackTimeout = 600.0
        n._sync._SyncObj__raftElectionDeadline = far
    return far


def test_the_leader_sends_new_commands_without_waiting_for_the_period(tmp_path: Any) -> None:
    """pysyncobj sent appended commands with the next append-entries period
    (50 ms), so each commit waited for it. With the period (and every
    election timeout) raised to ten minutes once a leader leads, commands
    still commit: the leader sends what it appends in the tick it appends it."""
    import trio

    nodes = _group(tmp_path)
    try:
        leader = next(n for n in nodes if n.is_leader())
        far = _hold_leader(nodes)
        leader._sync._SyncObj__conf.appendEntriesPeriod = 600.0
        leader._sync._SyncObj__newAppendEntriesTime = far

        async def main() -> list[Any]:
            leader.attach()
            with trio.fail_after(60):  # the period would hold them for 600 s
                return [await leader.submit(b"cmd-%d" % i) for i in range(5)]

        assert trio.run(main) == [None] * 5
        assert all(n.machine.state == b"cmd-4" for n in nodes if n is leader)
    finally:
        for n in nodes:
            n.close()


def test_a_lone_member_commits_without_waiting_for_its_tick(tmp_path: Any) -> None:
    """pysyncobj takes queued commands when its tick thread wakes, for a
    message or after ``autoTickPeriod``, and commits them at the tick after;
    a lone member hears no message, so each commit waited for two ticks.
    With the period (and every timer) raised to ten minutes once it leads,
    commands still commit: a submit wakes the thread, and the thread wakes
    itself to commit what it appended."""
    import time

    import trio

    from peloton.ops.layout import free_ports
    from peloton.raft.node import RaftNode

    node = RaftNode(Machine(), f"127.0.0.1:{free_ports(1)[0]}", [],  # type: ignore[arg-type]
                    data_dir=tmp_path, password="p" * 16, election_timeout=(0.2, 0.4))
    try:
        deadline = time.monotonic() + 20
        while not node.is_leader():
            assert time.monotonic() < deadline, "no leader elected"
            time.sleep(0.02)
        far = _hold_leader([node])
        conf = node._sync._SyncObj__conf
        conf.autoTickPeriod = conf.appendEntriesPeriod = 600.0
        node._sync._SyncObj__newAppendEntriesTime = far
        time.sleep(0.2)  # the tick thread now sleeps for the new period

        async def main() -> list[Any]:
            node.attach()
            with trio.fail_after(60):  # the period would hold them for 600 s
                return [await node.submit(b"cmd-%d" % i) for i in range(5)]

        assert trio.run(main) == [None] * 5
        assert node.machine.state == b"cmd-4"
    finally:
        node.close()


def test_followers_never_truncate_entries_under_pipelined_appends(tmp_path: Any) -> None:
    """With several appends in flight, an acknowledgement of an earlier one
    moved pysyncobj's next index back; the leader re-sent entries the
    follower held, and the follower deleted and re-appended them (entries
    it may have applied: pysyncobj's "truncating already-applied log
    entries"). 20 submitters of 100 commands each: no follower deletes an
    entry, and every command commits. No election may come between (a new
    leader rightly deletes a follower's uncommitted entries of an older
    term: with the 0.3-0.6 s timeouts that happened one run in six with
    two busy processes beside it)."""
    import trio

    nodes = _group(tmp_path)
    deleted: list[int] = []
    try:
        leader = next(n for n in nodes if n.is_leader())
        _hold_leader(nodes)
        for n in nodes:
            if n is not leader:
                delete = n._sync._SyncObj__deleteEntriesFrom

                def counted(index: int, delete: Any = delete) -> None:
                    deleted.append(index)
                    delete(index)

                n._sync._SyncObj__deleteEntriesFrom = counted

        async def main() -> int:
            leader.attach()
            done = 0

            async def submitter(k: int) -> None:
                nonlocal done
                for i in range(100):
                    await leader.submit(b"%d-%d-" % (k, i) + b"x" * 20_000, timeout=30)
                    done += 1

            with trio.fail_after(120):
                async with trio.open_nursery() as nursery:
                    for k in range(20):
                        nursery.start_soon(submitter, k)
            return done

        assert trio.run(main) == 2000
        assert deleted == []
    finally:
        for n in nodes:
            n.close()


def _hand_driven_follower(tmp_path: Any) -> tuple[Any, Any, list[dict[str, Any]]]:
    """A member whose tick thread never runs, its partner, and the
    messages it sends (recorded, not sent)."""
    from peloton.ops.layout import free_ports
    from peloton.raft.node import _KeptAlive, raft_conf
    from peloton.raft.seal import Sealer

    me, partner = (f"127.0.0.1:{port}" for port in free_ports(2))
    conf = raft_conf(tmp_path, self_address=me)
    conf.autoTick = False
    member = _KeptAlive(me, [partner], conf, sealer=Sealer.from_password("p" * 16))
    sent: list[dict[str, Any]] = []
    member._SyncObj__transport.send = lambda node, message: sent.append(message) or True
    leader = next(iter(member._SyncObj__otherNodes))
    return member, leader, sent


def _entries(indexes: range, term: int = 1) -> list[tuple[bytes, int, int]]:
    return [(b"\x00" + b"c%d" % i, i, term) for i in indexes]


def test_a_follower_deletes_only_entries_that_conflict_with_the_leaders(tmp_path: Any) -> None:
    """Raft (§5.3): a follower deletes its entries only from the first that
    conflicts with the leader's. pysyncobj deleted every entry past the
    message's previous index: a heartbeat or a resend from an older index,
    crossing appends already received, deleted entries the follower may
    have applied ("truncating already-applied log entries")."""
    member, leader, sent = _hand_driven_follower(tmp_path)
    log = member._SyncObj__raftLog
    deleted: list[int] = []
    delete = member._SyncObj__deleteEntriesFrom
    member._SyncObj__deleteEntriesFrom = lambda index: (deleted.append(index), delete(index))

    def append(previous: int, entries: list[Any], *, commit: int = 0, term: int = 1) -> Any:
        sent.clear()
        member._on_message(leader, {
            "type": "append_entries", "term": term, "commit_index": commit,
            "prevLogIdx": previous, "prevLogTerm": log[previous - log[0][1]][2],
            "entries": entries})
        (answer,) = sent
        return answer["next_node_idx"], answer["success"]

    try:
        assert [e[1] for e in log] == [1]
        assert append(1, _entries(range(2, 12))) == (12, True)
        # A resend of entries held (an older append crossing newer ones).
        assert append(1, _entries(range(2, 7))) == (7, True)
        # Part held, part new.
        assert append(6, _entries(range(7, 14))) == (14, True)
        # A heartbeat from an older index, with the leader's commit index
        # past it: the answer and the commit stop at what it proved.
        assert append(5, [], commit=12) == (6, True)
        assert member._SyncObj__raftCommitIndex == 5
        assert deleted == [] and [e[1] for e in log] == list(range(1, 14))
        assert append(13, [], commit=12) == (14, True)
        assert member._SyncObj__raftCommitIndex == 12
        # A conflict (another term's entry at 11): deleted from there.
        assert append(10, _entries(range(11, 12), term=2), term=2) == (12, True)
        assert deleted == [11]
        assert [(e[1], e[2]) for e in log][-3:] == [(9, 1), (10, 1), (11, 2)]
        # A previous entry the follower lacks: refused, as pysyncobj does.
        assert append(11, [], term=2) == (12, True)
        sent.clear()
        member._on_message(leader, {
            "type": "append_entries", "term": 2, "commit_index": 0,
            "prevLogIdx": 20, "prevLogTerm": 2, "entries": []})
        assert sent[0]["success"] is False and sent[0]["reset"] is True
    finally:
        member.destroy()


def test_an_apply_hands_the_gil_over_when_a_reader_waits_for_the_lock(monkeypatch: Any) -> None:
    """pysyncobj applies a tick's entries back to back: unless the tick
    thread gives up the GIL between them, trio's thread, waiting for the
    state lock, only gets it when the whole tick is applied. With no reader
    waiting, it keeps the GIL (a hand-over after every apply cost a loaded
    leader 40% of its applying time)."""
    from peloton.raft import node as node_module

    class Watched(StateLock):
        waiting = False

        @property
        def contended(self) -> bool:
            return self.waiting

    lock = Watched()
    offered: list[bool] = []  # whether the lock was free at each hand-over
    monkeypatch.setattr(node_module.time, "sleep",
                        lambda seconds: offered.append(seconds == 0 and not lock._lock.locked()))
    replica = _Replica(Machine(), lock, lambda: None)
    replica.apply_command(b"cmd-0", _doApply=True)
    assert offered == []
    lock.waiting = True
    for i in range(1, 3):
        replica.apply_command(b"cmd-%d" % i, _doApply=True)
    assert offered == [True, True]


def test_the_state_lock_knows_when_another_thread_waits_for_it() -> None:
    lock = StateLock()
    entered = threading.Event()

    def reader() -> None:
        with lock:
            entered.set()

    with lock:
        assert not lock.contended
        thread = threading.Thread(target=reader)
        thread.start()
        deadline = time.monotonic() + 10
        while not lock.contended and time.monotonic() < deadline:
            time.sleep(0.001)
        assert lock.contended and not entered.is_set()
    thread.join(10)
    assert entered.is_set() and not lock.contended


def test_a_member_that_does_not_lead_ticks_less_often(monkeypatch: Any) -> None:
    """pysyncobj's tick waits ``autoTickPeriod`` (10 ms) for a message; a
    member that does not lead waits FOLLOWER_TICK_S (the leader's messages
    wake it at once), the leader its 10 ms, which gather its commands."""
    from pysyncobj import SyncObj

    from peloton.raft import node

    waits: list[float] = []
    monkeypatch.setattr(SyncObj, "_onTick", lambda self, wait=0.0: waits.append(wait))
    member = object.__new__(node._KeptAlive)
    member._notifier = object()
    member._next_keepalive = float("inf")
    leads = False
    member._isLeader = lambda: leads
    member._onTick(0.01)
    leads = True
    member._onTick(0.01)
    member._onTick(0.0)  # a tick asked not to wait (pysyncobj's own) stays so
    assert waits == [node.FOLLOWER_TICK_S, 0.01, 0.0]
