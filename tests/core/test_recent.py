"""Recent: an answer is kept a while, and callers that miss together share
one lookup (its answer or its error)."""

from __future__ import annotations

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

    async def fetch(self, key: str) -> str:
        self.calls += 1
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
