"""``python -m loadtest.failover`` refuses bad arguments before starting anything
(the figures themselves need a real cluster: they are measured, not tested)."""

from __future__ import annotations

import pytest

from loadtest import failover


def test_repeat_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        failover.main(["--repeat", "0"])
    assert exit_info.value.code == 2
    assert "--repeat must be at least 1" in capsys.readouterr().err
