"""What pysyncobj's log compaction gets from ``_Replica._serialize``.

pysyncobj calls ``_serialize`` on its tick thread and pickles the result in a
forked child, so the snapshot must be taken there: taken on the tick thread,
a million tracked tasks blocked it for seconds and cost the leadership.
"""

from __future__ import annotations

import os
import pickle
import select
import threading
from typing import Any

from peloton.raft.node import _Replica


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
    replica = _Replica(machine, threading.Lock(), lambda: None)
    data = replica._serialize()
    assert machine.snapshots == 0  # nothing encoded on the tick thread
    blob = pickle.dumps(data, protocol=2)  # what the dump child does
    assert machine.snapshots == 1
    assert pickle.loads(blob) == {"snapshot": b"v1"}
    replica._deserialize(pickle.loads(blob))
    assert machine.restored == b"v1"


def test_a_forked_child_snapshots_while_the_lock_is_held_elsewhere() -> None:
    """A trio thread holding the lock at the fork must not hang the child."""
    machine = Machine()
    lock = threading.Lock()
    replica = _Replica(machine, lock, lambda: None)
    data = replica._serialize()
    lock.acquire()  # held by this (the parent's) thread, as a reader would
    try:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the dump child
            try:
                os.write(write, pickle.dumps(data, protocol=2))
            finally:
                os._exit(0)
        os.close(write)
        ready, _, _ = select.select([read], [], [], 10.0)
        assert ready, "the forked child hung on the lock"
        blob = os.read(read, 1 << 16)
        os.waitpid(pid, 0)
        os.close(read)
    finally:
        lock.release()
    assert pickle.loads(blob) == {"snapshot": b"v1"}
