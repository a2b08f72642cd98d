"""Serve grpclib services from trio.

grpclib runs on asyncio; trio-asyncio runs that loop inside our trio run, so
a handler is an ordinary trio coroutine ``async def Method(request) ->
response``. ``serve_grpc`` binds the generated ``*Base`` classes to such
handlers, maps ``PelotonError`` to gRPC status codes, and reports unexpected
exceptions as INTERNAL (logged with their traceback).

Every daemon runs inside ``open_rpc()`` (a trio-asyncio loop); nothing
outside ``peloton.rpc`` touches asyncio.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import trio
import trio_asyncio
from grpclib.exceptions import GRPCError
from grpclib.server import Server

from peloton.core.errors import PelotonError
from peloton.rpc.errors import to_grpc

log = logging.getLogger(__name__)

Handler = Callable[[Any], Awaitable[Any]]


def _log_loop_error(loop: Any, context: dict[str, Any]) -> None:
    # trio-asyncio's default handler raises into the loop's nursery, so a
    # stray "Task exception was never retrieved" or grpclib's "Unclosed
    # connection" from an abandoned call would kill the whole daemon.
    log.warning("asyncio: %s", context.get("message"), exc_info=context.get("exception"))


@asynccontextmanager
async def open_rpc() -> AsyncIterator[Any]:
    """The asyncio loop grpclib needs, running inside trio."""
    async with trio_asyncio.open_loop() as loop:
        loop.set_exception_handler(_log_loop_error)
        yield loop


def _adapt(name: str, fn: Handler) -> Callable[[Any, Any], Awaitable[None]]:
    call_in_trio = trio_asyncio.trio_as_aio(fn)

    async def method(self: Any, stream: Any) -> None:
        request = await stream.recv_message()
        try:
            response = await call_in_trio(request)
        except PelotonError as error:
            raise to_grpc(error) from None
        except GRPCError:
            raise
        except Exception as error:
            log.exception("handler %s failed", name)
            raise GRPCError(to_grpc(PelotonError(f"{name}: {error!r}")).status,
                            f"internal error in {name}: {error!r}") from None
        await stream.send_message(response)

    method.__name__ = name
    return method


def bind(base: type, impl: object) -> object:
    """An instance of generated ``base`` whose methods call ``impl``'s."""
    names = [n for n in getattr(base, "__abstractmethods__", ()) if n != "__mapping__"]
    missing = [n for n in names if not hasattr(impl, n)]
    if missing:
        raise TypeError(f"{type(impl).__name__} lacks {', '.join(sorted(missing))} of {base.__name__}")
    namespace = {n: _adapt(f"{base.__name__}.{n}", getattr(impl, n)) for n in names}
    return type(f"Bound{base.__name__}", (base,), namespace)()


async def serve_grpc(
    services: list[tuple[type, object]],
    host: str,
    port: int,
    *,
    task_status: trio.TaskStatus[tuple[str, int]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve until cancelled; ``task_status.started((host, port))`` once bound.

    ``services`` pairs generated ``*Base`` classes with handler objects.
    Port 0 picks a free port (tests).
    """
    server = Server([bind(base, impl) for base, impl in services])  # type: ignore[misc]
    await trio_asyncio.aio_as_trio(server.start)(host, port)
    try:
        bound = server._server.sockets[0].getsockname()  # type: ignore[union-attr]
        task_status.started((bound[0], bound[1]))
        await trio.sleep_forever()
    finally:
        server.close()
        with trio.CancelScope(shield=True), trio.move_on_after(2):
            await trio_asyncio.aio_as_trio(server.wait_closed)()
