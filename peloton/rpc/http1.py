"""One HTTP/1.1 keep-alive connection, blocking, for ``peloton.rpc.http_client``.

The standard library's ``http.client`` parses headers with the ``email``
package, and h11 (our server's) compiles its grammar: importing either
takes 25-35 ms here, against ~7 for this module, and a ``peloton job get``
has ~150 ms in all. A client that POSTs to Peloton's HTTP/JSON API and reads one answer
at a time needs much less: a status line, headers, a body by
``Content-Length`` or chunked, or up to the close. That is this module,
on ``socket`` (and ``ssl`` when given a context). It imports neither until
:meth:`Connection.connect`: the CLI's quick path (``peloton.cli.quick``)
talks over a socket of ``_socket``'s, since ``socket`` imports ``enum``.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: see peloton.cli.output
if TYPE_CHECKING:
    import socket
    import ssl

__all__ = ["BadResponse", "Connection", "Response"]

MAX_HEAD = 64 * 1024  # a status line and headers longer than this are refused
CHUNK = 64 * 1024


class BadResponse(Exception):
    """The server's bytes are not an HTTP/1.1 response."""


class Response:
    """``status``, ``headers`` (names lower-cased), ``body``; ``will_close``:
    the server closes the connection after it."""

    __slots__ = ("body", "headers", "status", "will_close")

    def __init__(self, status: int, headers: dict[str, str], body: bytes,
                 will_close: bool) -> None:
        self.status, self.headers, self.body, self.will_close = status, headers, body, will_close

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


class Connection:
    """To ``host:port`` (TLS with ``ssl_context``): :meth:`connect` within
    ``timeout`` seconds, then :meth:`request` (each read within the socket's
    timeout, which the caller may set on :attr:`sock`). Socket failures come
    out as OSError (TimeoutError for a timeout), a garbled answer as
    :class:`BadResponse`."""

    def __init__(self, host: str, port: int, *, timeout: float,
                 ssl_context: ssl.SSLContext | None = None) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self.ssl_context = ssl_context
        self.sock: socket.socket | None = None
        self._buffer = b""

    def connect(self) -> None:
        import socket

        # An ASCII host as bytes: for a str, getaddrinfo encodes it with the
        # "idna" codec, whose import (with stringprep and unicodedata) cost
        # each CLI command 1.2 ms of cpu.
        host: str | bytes = self.host.encode() if self.host.isascii() else self.host
        sock = socket.create_connection((host, self.port),  # type: ignore[arg-type]
                                        timeout=self.timeout)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self.ssl_context is not None:
                sock = self.ssl_context.wrap_socket(sock, server_hostname=self.host)
        except BaseException:
            sock.close()
            raise
        self.sock = sock
        self._buffer = b""

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        self._buffer = b""

    def request(self, method: str, path: str, body: bytes,
                headers: dict[str, str]) -> Response:
        """Send one request and read its whole answer."""
        if self.sock is None:
            self.connect()
        assert self.sock is not None
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}",
                 f"Content-Length: {len(body)}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        return self._response(method)

    # ----------------------------------------------------------------- reading

    def _recv(self) -> bytes:
        assert self.sock is not None
        data = self.sock.recv(CHUNK)
        if not data:
            raise ConnectionResetError("the server closed the connection")
        return data

    def _until(self, mark: bytes, limit: int) -> bytes:
        """The buffered bytes up to ``mark`` (taken, with it)."""
        while True:
            at = self._buffer.find(mark)
            if at >= 0:
                head, self._buffer = self._buffer[:at], self._buffer[at + len(mark):]
                return head
            if len(self._buffer) > limit:
                raise BadResponse(f"no {mark!r} within {limit} bytes")
            self._buffer += self._recv()

    def _exactly(self, n: int) -> bytes:
        while len(self._buffer) < n:
            self._buffer += self._recv()
        data, self._buffer = self._buffer[:n], self._buffer[n:]
        return data

    def _response(self, method: str) -> Response:
        head = self._until(b"\r\n\r\n", MAX_HEAD).decode("latin-1")
        status_line, *header_lines = head.split("\r\n")
        version, _, rest = status_line.partition(" ")
        code = rest[:3]
        if not version.startswith("HTTP/1.") or not code.isdigit():
            raise BadResponse(f"not an HTTP/1.x status line: {status_line[:80]!r}")
        headers: dict[str, str] = {}
        for line in header_lines:
            name, sep, value = line.partition(":")
            if not sep:
                raise BadResponse(f"not a header: {line[:80]!r}")
            headers[name.strip().lower()] = value.strip()
        status = int(code)
        connection = headers.get("connection", "").lower()
        will_close = connection == "close" or (version == "HTTP/1.0"
                                               and connection != "keep-alive")
        if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            body = b""
        elif "chunked" in headers.get("transfer-encoding", "").lower():
            body = self._chunked()
        elif "content-length" in headers:
            try:
                length = int(headers["content-length"])
            except ValueError:
                raise BadResponse(f"Content-Length {headers['content-length']!r}") from None
            body = self._exactly(length)
        else:  # the body runs to the close
            body, self._buffer = self._buffer, b""
            while True:
                assert self.sock is not None
                data = self.sock.recv(CHUNK)
                if not data:
                    break
                body += data
            will_close = True
        return Response(status, headers, body, will_close)

    def _chunked(self) -> bytes:
        parts: list[bytes] = []
        while True:
            size_line = self._until(b"\r\n", MAX_HEAD).split(b";")[0].strip()
            try:
                size = int(size_line, 16)
            except ValueError:
                raise BadResponse(f"chunk size {size_line[:20]!r}") from None
            if size == 0:
                while self._until(b"\r\n", MAX_HEAD):  # trailers, then a blank line
                    pass
                return b"".join(parts)
            parts.append(self._exactly(size))
            if self._exactly(2) != b"\r\n":
                raise BadResponse("a chunk does not end with CRLF")
