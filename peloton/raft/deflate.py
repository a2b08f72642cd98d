"""What pysyncobj's connections compress each message with: zlib, cheaply.

pysyncobj's ``TcpConnection`` runs every message it sends through
``zlib.compress(data, 3)`` and every one it receives through
``zlib.decompress``. For the small messages that make up nearly all of a
Raft group's traffic (an append of one command, an acknowledgement, a
heartbeat) the compression is all cost: ``zlib.compress`` sets up and
tears down a deflate state each call, 15-47 us for 72-485 bytes on the
development machine against ~1 us for the pickling, and a command's
commit sends several such messages at each member. Over loopback, or
between replicas on one network, their bytes do not matter.

``install()`` (done when ``peloton.raft.node`` is imported) gives the
connections a ``zlib`` of their own: a message under ``STORED_BELOW``
bytes is wrapped in a zlib stream of stored (uncompressed) blocks, which
any ``zlib.decompress`` reads, so members that still compress talk to
members that do not; a larger one (a batch of many commands, a snapshot's
chunk) is compressed at level 1.
"""

from __future__ import annotations

import struct
import zlib

from pysyncobj import tcp_connection

# Smaller messages are stored, not compressed.
STORED_BELOW = 64 * 1024
_HEADER = b"\x78\x01"  # deflate, 32 KiB window, no preset dictionary, fastest
_BLOCK = 0xFFFF  # a stored block's most bytes


def stored(data: bytes, level: int = -1) -> bytes:
    """``data`` as a zlib stream of stored blocks (RFC 1950/1951); ``level``
    is taken for ``zlib.compress``'s signature and ignored."""
    parts: list[bytes | memoryview] = [_HEADER]
    view = memoryview(data)
    end = len(data)
    start = 0
    while True:
        chunk = view[start:start + _BLOCK]
        start += len(chunk)
        parts.append(struct.pack("<BHH", start >= end, len(chunk), len(chunk) ^ 0xFFFF))
        parts.append(chunk)
        if start >= end:
            break
    parts.append(struct.pack(">I", zlib.adler32(data)))
    return b"".join(parts)


def compress(data: bytes, level: int = -1) -> bytes:
    """What a connection sends for ``data``: stored when small, else zlib
    at level 1 (whatever ``level`` pysyncobj asks for)."""
    if len(data) < STORED_BELOW:
        return stored(data)
    return zlib.compress(data, 1)


class _Zlib:
    """The ``zlib`` pysyncobj's connections see."""

    compress = staticmethod(compress)
    decompress = staticmethod(zlib.decompress)


def install() -> None:
    """Make pysyncobj's connections use :func:`compress` (idempotent)."""
    tcp_connection.zlib = _Zlib  # type: ignore[attr-defined]
