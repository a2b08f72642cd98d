"""The load-test report's arithmetic that is not covered by the smoke run."""

from __future__ import annotations

from pathlib import Path

from loadtest import measure


def test_profile_summary_ranks_own_and_inclusive_samples() -> None:
    folded = [
        "run (trio/_run.py:100);apply (peloton/resmgr/state.py:10);_admit (peloton/resmgr/state.py:20) 6\n",
        "run (trio/_run.py:100);apply (peloton/resmgr/state.py:11) 3\n",
        "run (trio/_run.py:100);encode (peloton/raft/codec.py:5) 1\n",
        "garbage line\n",
    ]
    text = measure.profile_summary(folded)
    own, inclusive = text.split("inclusive")
    assert text.startswith("10 samples")
    # Line numbers are dropped so one function's lines add up.
    assert "  60.0  _admit (state.py)" in own
    assert "  30.0  apply (state.py)" in own
    assert " 100.0  run (_run.py)" in inclusive
    assert "  90.0  apply (state.py)" in inclusive
    assert own.index("_admit") < own.index("encode")


def test_profile_summary_of_nothing() -> None:
    assert measure.profile_summary([]) == "no samples\n"


def test_file_create_cost_makes_its_files_in_a_directory_of_its_own(tmp_path: Path) -> None:
    cost = measure.file_create_us(tmp_path, files=20)
    assert cost >= 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file-create-probe"]
    assert len(list((tmp_path / "file-create-probe").iterdir())) == 20
