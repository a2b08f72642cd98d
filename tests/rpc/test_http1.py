"""The CLI's HTTP/1.1 connection: answers by Content-Length, chunked and up
to the close, one connection for several requests, garbled answers refused."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from peloton.rpc.http1 import BadResponse, Connection


@contextmanager
def server(*answers: bytes) -> Iterator[tuple[int, list[bytes]]]:
    """A loopback server that takes one connection and answers each request
    (read up to its blank line and Content-Length body) with the next of
    ``answers``; yields its port and the requests it got."""
    listener = socket.create_server(("127.0.0.1", 0))
    got: list[bytes] = []

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            buffer = b""
            for answer in answers:
                while b"\r\n\r\n" not in buffer:
                    buffer += conn.recv(4096)
                head, _, buffer = buffer.partition(b"\r\n\r\n")
                length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length"))
                while len(buffer) < length:
                    buffer += conn.recv(4096)
                got.append(head + b"\r\n\r\n" + buffer[:length])
                buffer = buffer[length:]
                conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1], got
    finally:
        thread.join(5)
        listener.close()


def test_content_length_then_chunked_on_one_connection() -> None:
    with server(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n"
                b"Rpc-Status: x\r\n\r\nhello",
                b"HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n"
                b"3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\nTrailer: t\r\n\r\n") as (port, got):
        c = Connection("127.0.0.1", port, timeout=5)
        one = c.request("POST", "/api/v1", b"{}", {"Rpc-Encoding": "json"})
        assert (one.status, one.body, one.will_close) == (200, b"hello", False)
        assert one.header("rpc-status") == "x" and one.header("Content-Type") == "text/plain"
        two = c.request("POST", "/api/v1", b"xyz", {})
        assert (two.status, two.body) == (404, b"abcde")
        c.close()
    assert got[0].startswith(b"POST /api/v1 HTTP/1.1\r\n")
    assert b"\r\nContent-Length: 2\r\n" in got[0] and got[0].endswith(b"\r\n\r\n{}")
    assert b"\r\nRpc-Encoding: json\r\n" in got[0]
    assert got[1].endswith(b"\r\n\r\nxyz")


def test_a_body_up_to_the_close_and_connection_close() -> None:
    with server(b"HTTP/1.0 200 OK\r\n\r\nall of it") as (port, _):
        c = Connection("127.0.0.1", port, timeout=5)
        answer = c.request("POST", "/", b"", {})
        assert (answer.body, answer.will_close) == (b"all of it", True)
    with server(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n") as (
            port, _):
        assert Connection("127.0.0.1", port, timeout=5).request("POST", "/", b"", {}).will_close


@pytest.mark.parametrize("answer", [
    b"SSH-2.0-OpenSSH\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nnonsense\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Length: many\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
])
def test_garbled_answers_are_refused(answer: bytes) -> None:
    with server(answer) as (port, _), pytest.raises(BadResponse):
        Connection("127.0.0.1", port, timeout=5).request("POST", "/", b"", {})


def test_a_server_that_closes_early_is_an_oserror() -> None:
    short = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort"
    with server(short) as (port, _), pytest.raises(ConnectionResetError):
        Connection("127.0.0.1", port, timeout=5).request("POST", "/", b"", {})
