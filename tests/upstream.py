"""Run a grpclib client — what Peloton's generated clients are — from trio.

Our servers and clients are trio's own (``peloton.rpc.wire``); grpclib,
on asyncio, is the independent implementation the tests talk to them with.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import trio_asyncio

T = TypeVar("T")


async def on_asyncio(fn: Callable[[], Awaitable[T]]) -> T:
    """``await fn()`` on an asyncio loop of its own, inside this trio run;
    what it raises comes out as itself (not in the loop's exception group)."""
    error: Exception | None = None
    async with trio_asyncio.open_loop():
        try:
            return await trio_asyncio.aio_as_trio(fn)()
        except Exception as raised:
            error = raised
    assert error is not None
    raise error
