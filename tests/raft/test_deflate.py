"""pysyncobj's messages go as zlib streams of stored blocks when small
(``peloton.raft.deflate``): any zlib reads them, so members that still
compress and members that do not understand each other."""

from __future__ import annotations

import zlib

import pytest
from pysyncobj import tcp_connection

from peloton.raft import deflate


@pytest.mark.parametrize("size", [0, 1, 72, 0xFFFE, 0xFFFF, 0x10000, 0x10001, 3 * 0xFFFF + 7])
def test_a_stored_stream_is_what_zlib_reads(size: int) -> None:
    data = bytes(range(256)) * (size // 256 + 1)
    data = data[:size]
    wrapped = deflate.stored(data)
    assert zlib.decompress(wrapped) == data
    # Five bytes a block of 65,535, the header and the checksum: not compressed.
    assert len(wrapped) == size + 2 + 4 + 5 * max(1, -(-size // 0xFFFF))
    obj = zlib.decompressobj()  # read as a stream, with its end seen
    assert obj.decompress(wrapped) == data and obj.eof and not obj.unused_data


def test_small_messages_are_stored_and_large_ones_compressed() -> None:
    small = b"x" * 1000
    assert deflate.compress(small, 3) == deflate.stored(small)
    large = b"x" * deflate.STORED_BELOW
    packed = deflate.compress(large, 3)
    assert len(packed) < len(large) // 100 and zlib.decompress(packed) == large


def test_pysyncobjs_connections_use_it_once_raft_is_imported() -> None:
    import peloton.raft.node  # noqa: F401

    assert tcp_connection.zlib.compress is deflate.compress
    assert tcp_connection.zlib.decompress is zlib.decompress
