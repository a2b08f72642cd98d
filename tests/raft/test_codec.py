"""The Raft command codec: a versioned msgpack record, pinned byte for byte."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from peloton.raft.codec import MAX_COMMAND_BYTES, VERSION, Command, decode, encode
from peloton.raft.node import APPEND_BATCH_BYTES


def test_version_is_one() -> None:
    # Changing it makes every existing Raft log unreadable: add, never bump lightly.
    assert VERSION == 1


def test_wire_format_is_pinned() -> None:
    blob = encode(Command("cluster.tick", "k1", {"now": 1.5}))
    assert blob == bytes.fromhex("94") + b"\x01" + b"\xaccluster.tick" + b"\xa2k1" + \
        b"\x81\xa3now\xcb" + bytes.fromhex("3ff8000000000000")
    assert msgpack.unpackb(blob) == [1, "cluster.tick", "k1", {"now": 1.5}]


def test_bytes_and_strings_stay_apart() -> None:
    command = Command("x", "", {"task": b"\x00\xff", "name": "caf\u00e9", "ids": [1, 2]})
    assert decode(encode(command)) == command
    assert isinstance(decode(encode(command)).payload["task"], bytes)


def test_integer_map_keys_survive() -> None:
    assert decode(encode(Command("x", "k", {3: "a"}))).payload == {3: "a"}


def test_another_version_is_refused() -> None:
    blob = msgpack.packb([2, "cluster.tick", "k", {}], use_bin_type=True)
    with pytest.raises(ValueError, match="unsupported command version 2"):
        decode(blob)


def test_a_malformed_record_is_refused() -> None:
    with pytest.raises(ValueError):
        decode(msgpack.packb([1, "x", "k"]))


def test_no_command_is_big_enough_for_pysyncobj_to_chunk() -> None:
    assert MAX_COMMAND_BYTES <= APPEND_BATCH_BYTES * 3 // 4


payloads = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1) | st.floats(allow_nan=False)
    | st.text(max_size=20) | st.binary(max_size=20),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=8) | st.integers(0, 100), inner, max_size=4),
    max_leaves=20)


@given(st.text(max_size=30), st.text(max_size=30), payloads)
def test_round_trip(name: str, key: str, payload: Any) -> None:
    command = Command(name, key, payload)
    assert decode(encode(command)) == command
    assert encode(decode(encode(command))) == encode(command)
