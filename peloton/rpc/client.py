"""Call grpclib services from trio, following the leader and retrying.

``ServiceClient(addresses, StubClass)`` calls one service that may be served
by several addresses (resmgr replicas, jobmgr instances). It sticks to the
address that last answered, follows ``NotLeader`` hints, and moves to the
next address when one is unreachable, until ``deadline`` seconds pass.

Only UNAVAILABLE outcomes are retried, and only for the time allowed; every
call that changes state must therefore be idempotent (the servers make them
so with idempotency keys) — a timed-out call may still have taken effect.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
from collections.abc import Iterator
from typing import Any

import trio
import trio_asyncio
from grpclib.client import Channel
from grpclib.events import SendRequest, listen
from grpclib.exceptions import GRPCError, StreamTerminatedError

from peloton.core.errors import DeadlineExceeded, NotLeader, PelotonError, Unavailable
from peloton.core.security import Credentials
from peloton.rpc.errorfields import from_response
from peloton.rpc.errors import from_grpc

log = logging.getLogger(__name__)


def split_address(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"not a host:port address: {address!r}")
    return host.strip("[]"), int(port)


# What every channel of this process uses (``configure``): TLS (the CA it
# trusts) and the credentials it shows (a user's, or a daemon's secret).
_SSL: ssl.SSLContext | None = None
_METADATA: list[tuple[str, str]] = []


def configure(context: ssl.SSLContext | None, credentials: Credentials | None) -> None:
    """Make every channel opened from now on use TLS with ``context`` (None:
    plain) and send ``credentials`` with each call."""
    global _SSL, _METADATA
    _SSL = context
    _METADATA = credentials.metadata() if credentials is not None else []


@contextlib.contextmanager
def configured(context: ssl.SSLContext | None,
               credentials: Credentials | None) -> Iterator[None]:
    """``configure`` for the channels opened inside the block, and what was
    configured before restored after it (a program that drives a cluster
    as a library, like the load test in the test suite)."""
    global _SSL, _METADATA
    before = _SSL, _METADATA
    configure(context, credentials)
    try:
        yield
    finally:
        _SSL, _METADATA = before


async def _add_credentials(event: SendRequest) -> None:
    for key, value in _METADATA:
        event.metadata[key] = value


class Channels:
    """One grpclib channel per address, shared by every client of a process."""

    def __init__(self) -> None:
        self._channels: dict[str, Channel] = {}

    def get(self, address: str) -> Channel:
        channel = self._channels.get(address)
        if channel is None:
            host, port = split_address(address)
            channel = self._channels[address] = Channel(host, port, ssl=_SSL)
            if _METADATA:
                listen(channel, SendRequest, _add_credentials)
        return channel

    def drop(self, address: str) -> None:
        channel = self._channels.pop(address, None)
        if channel is not None:
            channel.close()

    def close(self) -> None:
        for channel in self._channels.values():
            channel.close()
        self._channels.clear()


_DEFAULT_CHANNELS: Channels | None = None


def default_channels() -> Channels:
    global _DEFAULT_CHANNELS
    if _DEFAULT_CHANNELS is None:
        _DEFAULT_CHANNELS = Channels()
    return _DEFAULT_CHANNELS


async def call_once(channels: Channels, address: str, stub_cls: type, method: str,
                    request: Any, timeout: float) -> Any:
    """One attempt at one address; every failure comes out as a PelotonError."""
    stub = stub_cls(channels.get(address))
    try:
        response = await trio_asyncio.aio_as_trio(_bounded)(getattr(stub, method), request,
                                                            timeout)
    except _Abandoned:
        channels.drop(address)
        raise DeadlineExceeded(f"{method} to {address} took longer than {timeout:g}s") from None
    except GRPCError as error:
        raise from_grpc(error) from None
    except TimeoutError:  # grpclib's deadline; an OSError subclass, so first
        raise DeadlineExceeded(f"{method} to {address} took longer than {timeout:g}s") from None
    except (OSError, StreamTerminatedError, ConnectionError) as error:
        channels.drop(address)
        raise Unavailable(f"cannot reach {address}: {error}") from None
    except AttributeError as error:
        # grpclib 0.4 deletes Connection._transport when the connection
        # closes; a stream opened on it just after (its peer was SIGKILLed)
        # fails so. It is a lost connection, nothing of ours.
        if "_transport" not in str(error):
            raise
        channels.drop(address)
        raise Unavailable(f"cannot reach {address}: its connection closed") from None
    answered = from_response(response)  # Peloton's error fields: the same exceptions
    if answered is not None:
        raise answered
    return response


class _Abandoned(Exception):
    """The call outlived its deadline and was left behind."""


async def _bounded(method: Any, request: Any, timeout: float) -> Any:
    """(asyncio side) The call, or ``_Abandoned`` a second after its deadline.

    grpclib can leave a call parked forever when its connection dies at the
    wrong moment (vmagamedov/grpclib#216: a request waiting before its stream
    is registered is never woken), and cancelling such a call can wait
    forever too. So the call runs as its own task, and past the deadline we
    cancel it without waiting for it to finish; the caller drops the channel.
    """
    task = asyncio.ensure_future(method(request, timeout=timeout))
    try:
        done, _ = await asyncio.wait({task}, timeout=timeout + 1)
    except BaseException:  # the caller was cancelled: leave the call behind too
        task.cancel()
        task.add_done_callback(_consume)
        raise
    if not done:
        task.cancel()
        task.add_done_callback(_consume)
        raise _Abandoned()
    return task.result()


def _consume(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


class ServiceClient:
    """Calls to one service served at any of ``addresses``."""

    def __init__(self, addresses: list[str], stub_cls: type, *,
                 channels: Channels | None = None, deadline: float = 20.0) -> None:
        if not addresses:
            raise ValueError("no addresses to call")
        self.addresses = list(addresses)
        self.stub_cls = stub_cls
        self.channels = channels or default_channels()
        self.deadline = deadline
        self._preferred = self.addresses[0]

    def set_addresses(self, addresses: list[str]) -> None:
        if addresses:
            self.addresses = list(addresses)
            if self._preferred not in self.addresses:
                self._preferred = self.addresses[0]

    async def call(self, method: str, request: Any, *, timeout: float = 10.0,
                   deadline: float | None = None) -> Any:
        """Call ``method``; retry UNAVAILABLE elsewhere until ``deadline`` (s)."""
        give_up = trio.current_time() + (self.deadline if deadline is None else deadline)
        delay = 0.05
        last: PelotonError | None = None
        address = self._preferred
        tried: set[str] = set()
        while True:
            try:
                response = await call_once(self.channels, address, self.stub_cls, method,
                                           request, timeout)
                self._preferred = address
                return response
            except NotLeader as error:
                last = error
                tried.add(address)
                if error.leader and error.leader != address:
                    if error.leader not in self.addresses:
                        self.addresses.append(error.leader)
                    address = error.leader
                    continue
            except Unavailable as error:
                last = error
                tried.add(address)
            untried = [a for a in self.addresses if a not in tried]
            if untried:
                address = untried[0]
                continue
            if trio.current_time() + delay > give_up:
                assert last is not None
                raise last
            await trio.sleep(delay)
            delay = min(delay * 2, 1.0)
            tried.clear()
            address = self.addresses[(self.addresses.index(address) + 1) % len(self.addresses)]
