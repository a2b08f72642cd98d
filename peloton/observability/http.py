"""The HTTP side of a daemon: a small HTTP/1.1 server on trio.

Enough for Prometheus to scrape ``/metrics``: ``GET`` and ``HEAD`` of fixed
paths (the query string is ignored), one request per connection
(``Connection: close``). Anything else gets 404 or 405. A route is a plain
function returning ``(body, content type)``; it runs in the trio thread, so
it must be quick. The request head is read within ``READ_TIMEOUT`` seconds
and at most ``MAX_HEAD`` bytes, so a slow or huge request cannot hold a
connection. Bind it to loopback (``peloton.config`` refuses other metrics
addresses).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from functools import partial

import trio

log = logging.getLogger(__name__)

Route = Callable[[], tuple[bytes, str]]

READ_TIMEOUT = 10.0
MAX_HEAD = 16 * 1024
_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
            500: "Internal Server Error"}


def _response(status: int, body: bytes, content_type: str = "text/plain; charset=utf-8",
              *, head: bool = False) -> bytes:
    lines = [f"HTTP/1.1 {status} {_REASONS[status]}", f"Content-Type: {content_type}",
             f"Content-Length: {len(body)}", "Connection: close", "", ""]
    return "\r\n".join(lines).encode("latin-1") + (b"" if head else body)


def respond(routes: Mapping[str, Route], head: bytes) -> bytes:
    """The whole response to a request whose head (up to the blank line) is
    ``head``. Pure but for the route it calls."""
    request_line = head.split(b"\r\n", 1)[0].decode("latin-1")
    parts = request_line.split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        return _response(400, b"bad request line\n")
    method, target, _ = parts
    path = target.split("?", 1)[0]
    route = routes.get(path)
    if route is None:
        known = ", ".join(sorted(routes))
        return _response(404, f"no such path {path!r}; try {known}\n".encode())
    if method not in ("GET", "HEAD"):
        return _response(405, f"{method} is not allowed; use GET\n".encode())
    try:
        body, content_type = route()
    except Exception:  # a failing route answers 500, the server goes on
        log.exception("HTTP route %s failed", path)
        return _response(500, b"internal error\n")
    return _response(200, body, content_type, head=method == "HEAD")


async def _read_head(stream: trio.abc.ReceiveStream) -> bytes | None:
    data = b""
    while b"\r\n\r\n" not in data:
        if len(data) > MAX_HEAD:
            return None
        chunk = await stream.receive_some(4096)
        if not chunk:
            return None
        data += chunk
    return data.split(b"\r\n\r\n", 1)[0]


async def serve_http(routes: Mapping[str, Route], host: str, port: int, *,
                     task_status: trio.TaskStatus[tuple[str, int]] = trio.TASK_STATUS_IGNORED,
                     ) -> None:
    """Serve ``routes`` on ``host:port`` until cancelled;
    ``task_status.started((host, port))`` once listening (port 0 picks one)."""

    async def handle(stream: trio.SocketStream) -> None:
        try:
            head = None
            with trio.move_on_after(READ_TIMEOUT):
                head = await _read_head(stream)
            if head is None:
                await stream.send_all(_response(400, b"incomplete or oversized request\n"))
                return
            await stream.send_all(respond(routes, head))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass  # the client went away
        finally:
            await stream.aclose()

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(partial(trio.serve_tcp, handle, port,
                                                host=host.strip("[]")))
        sockname = listeners[0].socket.getsockname()
        task_status.started((sockname[0], sockname[1]))
