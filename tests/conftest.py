"""Fixtures every test directory shares."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from peloton.rpc import client


@pytest.fixture(autouse=True)
def _no_learned_wires() -> Iterator[None]:
    """Each test starts knowing no address's wire: a port a server of ours
    had in one test may be a plain HTTP/2 server's in the next."""
    client._LEAN.clear()
    yield
    client._LEAN.clear()


@pytest.fixture(params=["http2", "lean"])
def both_wires(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The test runs twice: its calls on HTTP/2 only, then on the short wire
    from their first connection (``peloton.rpc.lean``)."""
    monkeypatch.setattr(client, "WIRE", request.param)
    return str(request.param)
