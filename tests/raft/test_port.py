"""The Raft port of a real pysyncobj member: bound to its own address only,
and nothing a stranger sends is ever unpickled.

pysyncobj unpickles every message; a member seals each with the group's
password (``peloton.raft.seal``), and its tag is checked before anything is
decoded. Both addresses here are loopback (127.0.0.2 is loopback on
Linux), so no traffic leaves the machine.
"""

from __future__ import annotations

import os
import pathlib
import pickle
import socket
import struct
import time
import zlib
from collections.abc import Iterator
from typing import Any

import pytest

from peloton.ops.minicluster import free_ports
from peloton.raft.node import RaftNode

PASSWORD = "a-test-secret-of-enough-length"


class Machine:
    def apply(self, blob: bytes) -> Any:
        return blob

    def snapshot(self) -> bytes:
        return b""

    def restore(self, blob: bytes) -> None:
        pass


class Planted:
    """Pickles as a call that creates ``path``: what an attacker would send."""

    def __init__(self, path: pathlib.Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, tuple[str, int]]:
        return os.open, (str(self.path), os.O_CREAT | os.O_WRONLY)


def frame(message: Any) -> bytes:
    """One message as pysyncobj's transport frames it without a password."""
    data = zlib.compress(pickle.dumps(message, protocol=2), 3)
    return struct.pack("i", len(data)) + data


def wait_listening(address: tuple[str, int], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(address, timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@pytest.fixture
def member(tmp_path: pathlib.Path) -> Iterator[tuple[str, int]]:
    [port] = free_ports(1, "127.0.0.2")
    node = RaftNode(Machine(), f"127.0.0.2:{port}", [], data_dir=tmp_path / "raft",
                    password=PASSWORD)
    try:
        wait_listening(("127.0.0.2", port))
        yield "127.0.0.2", port
    finally:
        node.close()


def test_the_port_listens_on_the_members_address_only(member: tuple[str, int]) -> None:
    _, port = member
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


def test_a_pickle_from_a_stranger_is_never_unpickled(
        member: tuple[str, int], tmp_path: pathlib.Path) -> None:
    planted = tmp_path / "planted"
    with socket.create_connection(member, timeout=5) as conn:
        # The first message of a connection, then one that looks like a node's.
        conn.sendall(frame(Planted(planted)) + frame(["status", Planted(planted)]))
        conn.settimeout(5)
        try:  # the member hangs up on a message that fails authentication
            while conn.recv(1 << 16):
                pass
        except (ConnectionResetError, TimeoutError):
            pass
    assert not planted.exists()


def test_a_member_without_the_password_is_refused(tmp_path: pathlib.Path) -> None:
    with pytest.raises(ValueError, match="needs the group's password"):
        RaftNode(Machine(), "127.0.0.1:1", [], data_dir=tmp_path, password="")
