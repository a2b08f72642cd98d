"""Resource vectors: arithmetic, comparison with epsilon, and the messages
that say which kind is short."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from peloton.core.resources import EPSILON, KINDS, ZERO, Resources


def test_kinds_and_zero() -> None:
    assert KINDS == ("cpu", "memory", "disk", "gpu") == Resources._fields
    assert ZERO == Resources() == Resources(0, 0, 0, 0)
    assert ZERO.is_zero()


def test_arithmetic_is_per_kind() -> None:
    a, b = Resources(1, 100, 10, 1), Resources(0.5, 28, 0, 2)
    assert a + b == Resources(1.5, 128, 10, 3)
    assert a - b == Resources(0.5, 72, 10, -1)
    assert (a - b).clamp_zero() == Resources(0.5, 72, 10, 0)
    assert a.scale(2) == Resources(2, 200, 20, 2)
    assert Resources.sum([a, b, a]) == Resources(2.5, 228, 20, 4)
    assert Resources.sum([]) == ZERO
    # Not tuple concatenation.
    assert len(a + b) == 4


def test_add_refuses_other_types() -> None:
    with pytest.raises((AssertionError, TypeError)):
        Resources(1).__add__((1, 2, 3, 4))


def test_fits_in_allows_float_dust() -> None:
    tenth = Resources.sum([Resources(cpu=0.1)] * 10)
    assert tenth.cpu != 1.0  # 0.9999999999999999
    assert tenth.fits_in(Resources(1, 0, 0, 0))
    assert Resources(cpu=1 + EPSILON / 2).fits_in(Resources(cpu=1))
    assert not Resources(cpu=1 + 2 * EPSILON).fits_in(Resources(cpu=1))


@pytest.mark.parametrize("kind", KINDS)
def test_fits_in_checks_every_kind(kind: str) -> None:
    need = Resources(**{kind: 2})
    assert need.fits_in(Resources(**{kind: 2}))
    assert not need.fits_in(Resources(**{k: 100 for k in KINDS if k != kind}, **{kind: 1}))
    assert need.fits_in(Resources(math.inf, math.inf, math.inf, math.inf))


def test_exceeding_names_each_short_kind() -> None:
    assert Resources(20, 64, 0, 1).exceeding(Resources(12, 64, 0, 0)) == ["cpu 20 > 12",
                                                                          "gpu 1 > 0"]
    assert Resources(0.5, 1).exceeding(Resources(0.25, 0.5)) == ["cpu 0.5 > 0.25",
                                                                 "memory 1 > 0.5"]
    assert Resources.sum([Resources(cpu=0.1)] * 10).exceeding(Resources(cpu=1)) == []
    assert Resources(cpu=5).exceeding(Resources(math.inf, 0, 0, 0)) == []


def test_is_zero_and_dicts() -> None:
    assert Resources(EPSILON / 10, -EPSILON / 10).is_zero()
    assert not Resources(gpu=0.01).is_zero()
    r = Resources(1, 2, 3, 4)
    assert r.as_dict() == {"cpu": 1, "memory": 2, "disk": 3, "gpu": 4}
    assert Resources.from_dict(r.as_dict()) == r
    assert Resources.from_dict({"memory": "64"}) == Resources(0, 64.0, 0, 0)


values = st.floats(0, 1e6, allow_nan=False)
vectors = st.builds(Resources, values, values, values, values)


@given(vectors, vectors)
def test_properties(a: Resources, b: Resources) -> None:
    assert a.fits_in(a + b)
    assert (a + b - b).fits_in(a) and a.fits_in(a + b - b)  # rounding stays within epsilon
    assert (a.exceeding(b) == []) == a.fits_in(b)
    assert (a - b).clamp_zero().fits_in(a)
