"""Recent answers of an async lookup, one lookup at a time per key.

A daemon that checks every request against another daemon's answer (a
create against its pool and the largest host) keeps the answer a short
while. When it lapses, every request in flight misses at once: each made
its own call, so 32 concurrent creates made ~15 calls a second to each
host manager where one would do. :class:`Recent` keeps the answer and lets
the callers that miss together share one lookup.

A caller that comes now and then (a small job every few seconds) still
finds the answer lapsed and waits for a lookup, at the other daemons' pace:
under a million-task load ~0.1-0.5 s. :meth:`Recent.keep_fresh` looks the
keys used lately up again in the background before their answers lapse, so
such a caller finds one no older than ``max_age`` without waiting.
"""

from __future__ import annotations

import heapq
import logging
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

import trio

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

log = logging.getLogger(__name__)


class _Lookup(Generic[V]):
    __slots__ = ("done", "error", "ok", "value")

    def __init__(self) -> None:
        self.done = trio.Event()
        self.value: V | None = None
        self.error: Exception | None = None
        self.ok = False


class Recent(Generic[K, V]):
    """``fetch(key)``'s answers, each used for ``max_age`` seconds from when
    it was asked for.

    Callers that miss while a lookup of the same key is under way wait for
    it and get its answer, or its error. If the caller making the lookup is
    cancelled, a waiter makes its own. At most ``max_size`` keys are kept
    (all are dropped when more come: the keys are few, pools and clusters).
    """

    def __init__(self, fetch: Callable[[K], Awaitable[V]], max_age: float, *,
                 max_size: int = 10_000) -> None:
        self._fetch = fetch
        self.max_age = max_age
        self.max_size = max_size
        self._values: dict[K, tuple[float, V]] = {}
        self._lookups: dict[K, _Lookup[V]] = {}
        # When each key was last got (for keep_fresh).
        self._used: dict[K, float] = {}

    async def get(self, key: K) -> V:
        if len(self._used) >= self.max_size:
            self._used.clear()
        self._used[key] = trio.current_time()
        while True:
            hit = self._values.get(key)
            if hit is not None and trio.current_time() - hit[0] < self.max_age:
                return hit[1]
            lookup = self._lookups.get(key)
            if lookup is None:
                return await self._look_up(key)
            await lookup.done.wait()
            if lookup.error is not None:
                raise lookup.error
            if lookup.ok:
                return lookup.value  # type: ignore[return-value]
            # Its caller was cancelled: look again.

    async def _look_up(self, key: K) -> V:
        lookup: _Lookup[V] = _Lookup()
        self._lookups[key] = lookup
        asked = trio.current_time()
        try:
            value = await self._fetch(key)
        except Exception as error:
            lookup.error = error
            raise
        else:
            if len(self._values) >= self.max_size:
                self._values.clear()
            self._values[key] = (asked, value)
            lookup.value, lookup.ok = value, True
            return value
        finally:
            del self._lookups[key]
            lookup.done.set()

    async def keep_fresh(self, used_within: float, *, most: int = 32) -> None:
        """Runs for ever: every ``max_age / 4`` seconds, look up again each
        key got within the last ``used_within`` seconds (the ``most`` got
        last, so many keys used once do not make a stream of lookups) whose
        answer is half ``max_age`` old or older (and no lookup of it is
        under way), each in its own task. An answer is still used at most
        ``max_age`` after it was asked for. A failed refresh is logged, the answer lapses as
        before (the next get looks it up and gets the error itself), and the
        key is not refreshed again until it is got again (a deleted pool is
        not asked about four times a second for a minute)."""
        async with trio.open_nursery() as nursery:
            while True:
                await trio.sleep(self.max_age / 4)
                now = trio.current_time()
                for key, used in list(self._used.items()):
                    if now - used > used_within:
                        del self._used[key]
                for key in heapq.nlargest(most, self._used, key=self._used.__getitem__):
                    hit = self._values.get(key)
                    if key not in self._lookups and (
                            hit is None or now - hit[0] >= self.max_age / 2):
                        nursery.start_soon(self._refresh, key)

    async def _refresh(self, key: K) -> None:
        if key in self._lookups:
            return
        try:
            await self._look_up(key)
        except Exception as error:  # the next get looks it up and sees it
            log.debug("refreshing %r: %s", key, error)
            self._used.pop(key, None)

    def forget(self, key: K | None = None) -> None:
        """Drop the answer for ``key`` (every answer if None): the next get
        looks it up. A lookup under way still answers its waiters."""
        if key is None:
            self._values.clear()
        else:
            self._values.pop(key, None)
