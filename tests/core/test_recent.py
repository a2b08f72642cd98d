"""Recent: an answer is kept a while, and callers that miss together share
one lookup (its answer or its error)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

import pytest
import trio
import trio.testing

from peloton.core.errors import Unavailable
from peloton.core.recent import Recent


class Source:
    """A lookup that takes a second and counts its calls."""

    def __init__(self) -> None:
        self.calls = 0
        self.fail: Exception | None = None
        self.asked: list[float] = []  # when each call began
        self.keys: list[str] = []  # what each call asked for

    async def fetch(self, key: str) -> str:
        self.calls += 1
        self.asked.append(trio.current_time())
        self.keys.append(key)
        await trio.sleep(1)
        if self.fail is not None:
            raise self.fail
        return f"{key}#{self.calls}"


async def test_callers_that_miss_together_share_one_lookup(
        autojump_clock: trio.testing.MockClock) -> None:
    source = Source()
    recent: Recent[str, str] = Recent(source.fetch, 5.0)
    answers: list[str] = []

    async def ask() -> None:
        answers.append(await recent.get("pool"))

    async with trio.open_nursery() as nursery:
        for _ in range(32):
            nursery.start_soon(ask)
    assert answers == ["pool#1"] * 32
    assert source.calls == 1


async def test_an_answer_is_used_until_it_is_max_age_old(
        autojump_clock: trio.testing.MockClock) -> None:
    source = Source()
    recent: Recent[str, str] = Recent(source.fetch, 5.0)
    assert await recent.get("a") == "a#1"  # asked at 0, answered at 1
    await trio.sleep(3.5)
    assert await recent.get("a") == "a#1"  # 4.5 s after it was asked
    await trio.sleep(0.5)
    assert await recent.get("a") == "a#2"  # 5 s: looked up again
    assert await recent.get("b") == "b#3"  # each key its own
    recent.forget("a")
    assert await recent.get("a") == "a#4"
    recent.forget()
    assert await recent.get("b") == "b#5"


async def test_an_error_reaches_every_waiter_and_is_not_kept(
        autojump_clock: trio.testing.MockClock) -> None:
    source = Source()
    source.fail = Unavailable("resmgr is electing a leader")
    recent: Recent[str, str] = Recent(source.fetch, 5.0)
    errors: list[Exception] = []

    async def ask() -> None:
        try:
            await recent.get("pool")
        except Unavailable as error:
            errors.append(error)

    async with trio.open_nursery() as nursery:
        for _ in range(3):
            nursery.start_soon(ask)
    assert len(errors) == 3 and source.calls == 1
    source.fail = None
    assert await recent.get("pool") == "pool#2"


async def test_a_waiter_looks_up_itself_when_the_lookup_is_cancelled(
        autojump_clock: trio.testing.MockClock) -> None:
    source = Source()
    recent: Recent[str, str] = Recent(source.fetch, 5.0)
    got: list[str] = []

    async def waiter() -> None:
        got.append(await recent.get("pool"))

    async with trio.open_nursery() as nursery:
        with trio.move_on_after(0.5):  # the first caller gives up mid-lookup
            nursery.start_soon(waiter)
            await recent.get("pool")
            pytest.fail("the lookup outlived its cancel scope")
    assert got == ["pool#2"] and source.calls == 2


async def test_at_most_max_size_answers_are_kept(
        autojump_clock: trio.testing.MockClock) -> None:
    source = Source()
    recent: Recent[str, str] = Recent(source.fetch, 60.0, max_size=2)
    for key in ("a", "b", "c"):
        await recent.get(key)
    assert await recent.get("c") == "c#3"  # the newest stays
    assert await recent.get("a") == "a#4"  # the older ones were dropped


@asynccontextmanager
async def kept_fresh() -> AsyncIterator[tuple[Source, Recent[str, str]]]:
    """A Recent of 4 s answers whose keys got within 30 s are kept fresh."""
    source = Source()
    recent: Recent[str, str] = Recent(source.fetch, 4.0)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(recent.keep_fresh, 30.0)
        yield source, recent
        nursery.cancel_scope.cancel()


async def test_keep_fresh_looks_used_keys_up_before_they_lapse(
        autojump_clock: trio.testing.MockClock) -> None:
    async with kept_fresh() as (source, recent):
        assert await recent.get("pool") == "pool#1"  # asked at 0
        # A caller every 5 s, longer than max_age: it never waits again,
        # and every answer it gets is at most max_age old.
        for _ in range(4):
            await trio.sleep(5)
            asked = trio.current_time()
            answer = await recent.get("pool")
            assert trio.current_time() == asked
            number = int(answer.split("#")[1])
            assert number > 1
            assert trio.current_time() - source.asked[number - 1] < recent.max_age
        # 30 s after its last get, the key is no longer looked up.
        await trio.sleep(31)
        calls = source.calls
        await trio.sleep(20)
        assert source.calls == calls


async def test_keep_fresh_skips_keys_never_got_and_survives_errors(
        autojump_clock: trio.testing.MockClock) -> None:
    async with kept_fresh() as (source, recent):
        await trio.sleep(10)
        assert source.calls == 0
        assert await recent.get("pool") == "pool#1"
        source.fail = Unavailable("resmgr is electing a leader")
        await trio.sleep(6)
        # One failed refresh, then none until the key is got again.
        assert source.calls == 2
        # The answer lapsed (its refresh failed): a get looks it up and
        # gets the error itself.
        with pytest.raises(Unavailable):
            await recent.get("pool")
        source.fail = None
        await trio.sleep(3)
        hit = await recent.get("pool")
        assert hit.startswith("pool#")


async def test_keep_fresh_looks_up_only_the_keys_got_last(
        autojump_clock: trio.testing.MockClock) -> None:
    source = Source()
    recent: Recent[str, str] = Recent(source.fetch, 4.0)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(partial(recent.keep_fresh, 30.0, most=2))
        for key in ("a", "b", "c"):  # c got last, then b
            await recent.get(key)
        calls = source.calls
        await trio.sleep(10)
        assert set(source.keys[calls:]) == {"b", "c"}
        nursery.cancel_scope.cancel()
