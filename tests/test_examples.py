"""The packaged examples are Peloton's own files, byte for byte."""

from __future__ import annotations

import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGED = ROOT / "peloton" / "examples"
SHARED = ROOT.parent / "shared" / "examples"


@pytest.mark.skipif(not SHARED.is_dir(), reason="no ../shared/examples beside this checkout")
@pytest.mark.parametrize("name", sorted(p.name for p in SHARED.glob("*.yaml")) if SHARED.is_dir()
                         else [])
def test_packaged_example_is_unchanged(name: str) -> None:
    assert (PACKAGED / name).read_bytes() == (SHARED / name).read_bytes()
