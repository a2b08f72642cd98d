"""A small HTTP/1.1 server on trio with h11: keep-alive, bounded heads and
bodies, one handler call per request.

Used by the HTTP/JSON API (:mod:`peloton.rpc.http_json`) and the host
manager's sandbox files (:mod:`peloton.hostmgr.files`). A request's head
must arrive within ``READ_TIMEOUT`` seconds and fit in ``MAX_HEAD`` bytes;
a body over ``max_body`` bytes is not read past the limit (the handler sees
one byte more than the limit, so it can refuse it).
"""

from __future__ import annotations

import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import h11
import trio

__all__ = ["Answer", "Handler", "serve_http"]

READ_TIMEOUT = 30.0
MAX_HEAD = 64 * 1024


@dataclass(slots=True)
class Answer:
    status: int
    body: bytes
    content_type: str
    headers: list[tuple[str, str]] = field(default_factory=list)


# (method, target, headers lower-cased, body) -> the answer
Handler = Callable[[bytes, bytes, list[tuple[bytes, bytes]], bytes], Awaitable[Answer]]


async def _serve_connection(handler: Handler, max_body: int,
                            stream: trio.SocketStream) -> None:
    conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)

    async def send(event: Any) -> None:
        data = conn.send(event)
        if data:
            await stream.send_all(data)

    try:
        while True:
            request: h11.Request | None = None
            body = bytearray()
            with trio.move_on_after(READ_TIMEOUT):
                while True:
                    event = conn.next_event()
                    if event is h11.NEED_DATA:
                        data = await stream.receive_some(65536)
                        conn.receive_data(data)
                        if not data and conn.their_state is not h11.DONE:
                            return
                        continue
                    if isinstance(event, h11.Request):
                        request = event
                    elif isinstance(event, h11.Data):
                        body += event.data
                        if len(body) > max_body:
                            break  # refused by the handler; the rest is not read
                    elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                        break
            if request is None:
                return
            answer = await handler(request.method, request.target, list(request.headers),
                                   bytes(body))
            headers = [("Content-Type", answer.content_type),
                       ("Content-Length", str(len(answer.body))), *answer.headers]
            await send(h11.Response(status_code=answer.status, headers=headers))
            await send(h11.Data(data=answer.body))
            await send(h11.EndOfMessage())
            if conn.our_state is h11.MUST_CLOSE or conn.their_state is not h11.DONE:
                return
            conn.start_next_cycle()
    except h11.RemoteProtocolError as error:
        try:
            await stream.send_all(
                f"HTTP/1.1 {error.error_status_hint} Bad Request\r\nContent-Length: 0\r\n"
                "Connection: close\r\n\r\n".encode())
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass  # the client went away
    finally:
        await stream.aclose()


async def serve_http(handler: Handler, host: str, port: int, *, max_body: int,
                     ssl_context: ssl.SSLContext | None = None,
                     task_status: trio.TaskStatus[tuple[str, int]] = trio.TASK_STATUS_IGNORED,
                     ) -> None:
    """Serve ``handler`` on ``host:port`` until cancelled (HTTPS with
    ``ssl_context``); ``task_status.started((host, port))`` once listening
    (port 0 picks one)."""
    async with trio.open_nursery() as nursery:
        if ssl_context is None:
            listeners = await nursery.start(partial(
                trio.serve_tcp, partial(_serve_connection, handler, max_body), port,
                host=host.strip("[]")))
            sockname = listeners[0].socket.getsockname()
        else:
            ssl_context.set_alpn_protocols(["http/1.1"])
            listeners = await nursery.start(partial(
                trio.serve_ssl_over_tcp, partial(_serve_connection, handler, max_body), port,
                ssl_context, host=host.strip("[]"), https_compatible=True))
            sockname = listeners[0].transport_listener.socket.getsockname()
        task_status.started((sockname[0], sockname[1]))
