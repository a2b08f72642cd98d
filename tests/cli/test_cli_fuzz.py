"""Fuzzing the CLI: any argument list ends with exit 0, 1 or 2, a message,
and no traceback, against a fake jobmgr (so no call waits for a network).

``minicluster`` and ``demo`` are left out: they start real daemons. A
bounded slice runs in the suite; ``FUZZ_EXAMPLES=10000`` runs more.
"""

from __future__ import annotations

import contextlib
import io
import os
import pathlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from peloton.cli.main import main
from tests.cli.test_cli import EXAMPLES, JOB, FakeJobmgr

EXAMPLES_RUN = int(os.environ.get("FUZZ_EXAMPLES", "150"))

TOKENS = st.sampled_from([
    # nouns and verbs
    "respool", "resmgr", "job", "task", "host", "create", "get", "status", "query", "stop",
    "delete", "update", "list", "logs", "start", "restart", "dump", "pending", "maintenance",
    "lookup", "stats",
    # flags
    "--json", "-j", "-t", "--timeout", "--id", "-i", "-r", "--range", "--stderr", "--limit",
    "--cluster", "--file", "--run", "--states", "--offset", "--force", "--labels",
    # values
    JOB, "not-a-uuid", "/DefaultResPool", "/", "//", "/a/b", str(EXAMPLES / "testjob.yaml"),
    "/nonexistent.yaml", "0", "-1", "1", "0.3", "1:3", "3:1", "a:b", ":", "nan", "inf", "1e400",
    "\0", "é", "", " ", "RUNNING", "127.0.0.1:1", "x=y", "--",
])


@pytest.fixture(autouse=True)
def _isolated(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PELOTON_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PELOTON_CLUSTER", raising=False)


def test_any_argument_list_ends_cleanly(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeJobmgr() as fake:
        monkeypatch.setenv("PELOTON_CLUSTER", fake.address)

        @settings(max_examples=EXAMPLES_RUN, deadline=None,
                  suppress_health_check=[HealthCheck.too_slow])
        @given(st.lists(TOKENS, min_size=1, max_size=7))
        def check(argv: list[str]) -> None:
            if "--cluster" in argv or "127.0.0.1:1" in argv:
                # An unreachable address takes the CLI's connect deadline (2 s).
                argv = [a for a in argv if a not in ("--cluster", "127.0.0.1:1")] or ["job"]
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    code = main(list(argv))
                except SystemExit as exit_:  # argparse's --help and usage errors
                    code = exit_.code if isinstance(exit_.code, int) else 2
            assert code in (0, 1, 2), (argv, code, err.getvalue())
            assert "Traceback" not in err.getvalue() + out.getvalue(), (argv, err.getvalue())
            if code:
                assert err.getvalue().strip(), argv  # a failure says why

        check()
