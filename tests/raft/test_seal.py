"""The Raft members' sealing (``peloton.raft.seal``): what pysyncobj's
transport does with it, and what it refuses."""

from __future__ import annotations

import pickle
import zlib

import pytest
from cryptography.fernet import Fernet

from peloton.raft.seal import InvalidToken, Sealer, derive_key

KEY = derive_key("a-test-secret-of-enough-length")


def open_as_pysyncobj(sealer: Sealer, token: bytes, last_timestamp: int = 0) -> object:
    """What pysyncobj's ``TcpConnection`` does with a received frame."""
    timestamp = sealer.extract_timestamp(token)
    assert timestamp >= last_timestamp
    return pickle.loads(zlib.decompress(sealer.decrypt(token)))


def seal_as_pysyncobj(sealer: Sealer, message: object, timestamp: int) -> bytes:
    return sealer.encrypt_at_time(zlib.compress(pickle.dumps(message, protocol=2), 3),
                                  timestamp)


def test_a_sealed_message_opens_with_the_same_key_only() -> None:
    token = seal_as_pysyncobj(Sealer(KEY), {"type": "append_entries", "term": 3}, 1234)
    assert open_as_pysyncobj(Sealer(KEY), token) == {"type": "append_entries", "term": 3}
    assert Sealer(KEY).extract_timestamp(token) == 1234
    with pytest.raises(InvalidToken):
        Sealer(derive_key("another-secret-of-enough-length")).extract_timestamp(token)


def test_a_changed_byte_anywhere_is_refused() -> None:
    sealer = Sealer(KEY)
    token = seal_as_pysyncobj(sealer, ["status"], 99)
    for i in range(len(token)):
        changed = token[:i] + bytes([token[i] ^ 1]) + token[i + 1:]
        with pytest.raises(InvalidToken):
            sealer.extract_timestamp(changed)
        with pytest.raises(InvalidToken):
            sealer.decrypt(changed)
    with pytest.raises(InvalidToken):
        sealer.decrypt(token[:20])  # cut short


def test_a_forged_timestamp_is_refused_before_it_is_believed() -> None:
    """pysyncobj keeps the highest timestamp a connection saw and refuses
    older ones (replays): the timestamp is read only from a token that is
    authenticated whole."""
    sealer = Sealer(KEY)
    token = seal_as_pysyncobj(sealer, "x", 10)
    forged = token[:1] + (2**40).to_bytes(8, "big") + token[9:]
    with pytest.raises(InvalidToken):
        sealer.extract_timestamp(forged)


def test_a_fernet_token_of_an_earlier_version_is_refused() -> None:
    fernet = Fernet(Fernet.generate_key())
    with pytest.raises(InvalidToken):
        Sealer(KEY).extract_timestamp(fernet.encrypt_at_time(b"x", 5))


def test_no_two_messages_share_a_nonce() -> None:
    sealer = Sealer(KEY)
    tokens = [sealer.encrypt_at_time(b"same", 7) for _ in range(1000)]
    assert len({t[9:21] for t in tokens}) == 1000
    assert len(set(tokens)) == 1000


def test_decrypt_of_another_token_than_the_one_just_read_opens_that_one() -> None:
    sealer = Sealer(KEY)
    a, b = (sealer.encrypt_at_time(m, 1) for m in (b"a", b"b"))
    sealer.extract_timestamp(a)
    assert sealer.decrypt(b) == b"b"
    assert sealer.decrypt(a) == b"a"
