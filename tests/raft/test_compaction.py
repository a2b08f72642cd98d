"""Log compaction through a real pysyncobj member: the dump is written (in a
forked child), the log is cut, and a member started again on the same files
has the state back.

pysyncobj pickles every attribute a subclass sets after its own
``__init__`` into the dump; one of ours was a bound method (pickling the
whole member, locks and sockets), so every compaction failed, retried at
every tick, and the log grew without bound. Nothing else ran a compaction
end to end.
"""

from __future__ import annotations

import pathlib
import time
from typing import Any

import trio

from peloton.ops.minicluster import free_ports
from peloton.raft.node import RaftNode

PASSWORD = "a-test-secret-of-enough-length"
FAST = (0.2, 0.4)  # a lone member elects itself after this


class Log:
    """A machine whose state is every command it applied."""

    def __init__(self) -> None:
        self.applied: list[bytes] = []
        self.restores = 0

    def apply(self, blob: bytes) -> Any:
        self.applied.append(blob)
        return len(self.applied)

    def snapshot(self) -> bytes:
        return b"|".join(self.applied)

    def restore(self, blob: bytes) -> None:
        self.restores += 1
        self.applied = blob.split(b"|") if blob else []


async def until(condition: Any, what: str, timeout: float = 30.0) -> None:
    """Wait for what pysyncobj's own thread does, which tells no one: look
    every 20 ms in a worker thread (real time, not trio's clock)."""

    def look() -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            assert time.monotonic() < deadline, f"no {what} after {timeout:g} s"
            time.sleep(0.02)

    await trio.to_thread.run_sync(look)


async def test_a_compaction_writes_the_dump_cuts_the_log_and_restores(
        tmp_path: pathlib.Path) -> None:
    [port] = free_ports(1)
    address = f"127.0.0.1:{port}"
    machine = Log()
    node = RaftNode(machine, address, [], data_dir=tmp_path, password=PASSWORD,
                    election_timeout=FAST)
    try:
        node.attach()
        await until(node.is_leader, "a lone member leads")
        for i in range(20):
            assert await node.submit(b"c%d" % i) == i + 1
        log_before = node.status()["log_len"]
        node._sync.forceLogCompaction()
        await until(lambda: (tmp_path / "raft.dump").exists(), "the dump")
        await until(lambda: node.status()["log_len"] < log_before, "the log cut")
        # The member goes on after it.
        assert await node.submit(b"after") == 21
    finally:
        node.close()
    assert not (tmp_path / "raft.dump.tmp").exists()

    again = Log()
    node = RaftNode(again, address, [], data_dir=tmp_path, password=PASSWORD,
                    election_timeout=FAST)
    try:
        node.attach()
        await until(lambda: len(again.applied) >= 21, "the state back")
        assert again.restores == 1  # from the dump, then the journal's rest
        assert again.applied == [b"c%d" % i for i in range(20)] + [b"after"]
    finally:
        node.close()
