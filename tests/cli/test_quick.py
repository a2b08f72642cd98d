"""The ``peloton`` command's quick path (``peloton.cli.quick``): what it
answers, it answers as the whole command (``peloton.cli.run``) does; what it
declines, the whole command gets as if it had not been there, and a create
it sent keeps its id. Its process imports none of what the whole command
needs. Against the fake jobmgr of ``tests.cli.test_cli`` (gRPC and
HTTP/JSON by the same handlers, in a thread).
"""

from __future__ import annotations

import io
import json
import os
import pathlib
import subprocess
import sys

import pytest

from peloton.cli import quick
from peloton.cli import run as whole
from peloton.cli.main import main
from peloton.ops.layout import default_dir, state_path
from tests.cli.test_cli import EXAMPLES, JOB, FakeJobmgr
from tests.cli.test_cli_http import _isolated, closed_port, fake, task_listing, write_cluster

__all__ = ["_isolated", "fake"]  # fixtures of test_cli_http, used here

OTHER = "00000000-0000-4000-8000-000000000000"
TESTJOB = str(EXAMPLES / "testjob.yaml")
ROOT = pathlib.Path(__file__).resolve().parents[2]


def quickly(argv: list[str]) -> tuple[int | quick.Declined, str, str]:
    out, err = io.StringIO(), io.StringIO()
    answered = quick.run(argv, out, err)
    return answered, out.getvalue(), err.getvalue()


def wholly(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    code = whole.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv", [
    ["job", "get", JOB],
    ["job", "get", f" {JOB.upper()} "],  # as the whole command takes an id
    ["job", "status", JOB],
    ["task", "list", JOB],
], ids=" ".join)
def test_quick_answers_print_what_the_whole_command_prints(
        capsys: pytest.CaptureFixture[str], fake: FakeJobmgr, argv: list[str]) -> None:
    fake.tasks.listing = task_listing()
    answered, out, err = quickly(argv)
    assert answered == 0, err
    assert out and (answered, out, err) == wholly(capsys, argv)


def test_a_quick_create_sends_the_spec_as_the_whole_command_does(
        capsys: pytest.CaptureFixture[str], fake: FakeJobmgr) -> None:
    answered, out, err = quickly(["job", "create", "/DefaultResPool", TESTJOB])
    assert answered == 0, err
    [quick_request] = fake.jobs.created
    assert out == f"Job {quick_request.id.value} created\n"
    assert wholly(capsys, ["job", "create", "/DefaultResPool", TESTJOB]) == (
        0, out.replace(quick_request.id.value, fake.jobs.created[1].id.value), err)
    assert err.count("peloton: warning: ") == 2  # testjob.yaml's, each once
    # The same request: the pool, the config read from the same text by the
    # jobmgr; only the id differs (chosen anew by each).
    quick_request.id.value = fake.jobs.created[1].id.value
    assert quick_request == fake.jobs.created[1]
    assert quick_request.config.respoolID.value == "pool-1"


@pytest.mark.parametrize("argv", [
    ["--json", "job", "get", JOB],
    ["job", "get", JOB, "-j"],
    ["--timeout", "5", "job", "status", JOB],
    ["task", "list", JOB, "--range", "0:1"],
    ["job", "create", "/DefaultResPool", "--id", JOB, TESTJOB],
    ["job", "get", "--help"],
    ["--help"],
    ["job", "get"],
    ["job", "get", JOB, JOB],
    ["job", "get", "not-a-job"],
    ["job", "get", JOB + "0"],
    ["task", "get", JOB],
    ["job", "query", JOB],
    ["job", "create", "/DefaultResPool"],
    ["job", "create", "/Default ResPool", TESTJOB],  # would be quoted in its header
    ["job", "create", "/DefaultResPool", TESTJOB + "-missing"],
    ["job", "create", "/Dëfault", TESTJOB],
], ids=" ".join)
def test_the_quick_path_declines_what_it_does_not_answer_as_typed(
        fake: FakeJobmgr, argv: list[str]) -> None:
    answered, out, err = quickly(argv)
    assert isinstance(answered, quick.Declined) and answered.job_id is None
    assert (out, err) == ("", "")
    assert fake.jobs.created == []


@pytest.mark.parametrize("variable", ["PELOTON_CLUSTER", "PELOTON_USER", "PELOTON_PASSWORD",
                                      "PELOTON_CA"])
def test_an_environment_that_says_how_to_call_is_the_whole_commands(
        fake: FakeJobmgr, monkeypatch: pytest.MonkeyPatch, variable: str) -> None:
    monkeypatch.setenv(variable, fake.address if variable == "PELOTON_CLUSTER" else "x")
    for argv in (["job", "get", JOB], ["job", "create", "/DefaultResPool", TESTJOB]):
        answered, out, err = quickly(argv)
        assert isinstance(answered, quick.Declined) and answered.job_id is None
        assert (out, err) == ("", "")
    assert fake.jobs.created == []


def test_a_cluster_found_or_called_another_way_is_the_whole_commands(
        tmp_path: pathlib.Path, fake: FakeJobmgr) -> None:
    home = tmp_path / "home"
    create = ["job", "create", "/DefaultResPool", TESTJOB]
    state = home / "minicluster" / "state.json"

    def needs_more() -> None:  # a CA or a client user in the cluster file
        data = json.loads(state.read_text())
        data["client"]["plain"] = False
        state.write_text(json.dumps(data))

    clusters = [
        (dict(http=None), None),  # no jobmgr serves HTTP/JSON
        (dict(http=fake.http_address, view=False), None),  # a state file without a client view
        (dict(http=fake.http_address), needs_more),
        (dict(http=closed_port()), None),  # nothing answers there
    ]
    for cluster, then in clusters:
        write_cluster(home, fake.address, **cluster)  # type: ignore[arg-type]
        if then is not None:
            then()
        for argv in (["job", "get", JOB], create):
            answered, out, err = quickly(argv)
            assert isinstance(answered, quick.Declined) and answered.job_id is None, cluster
            assert (out, err) == ("", "")
    state.unlink()  # no local cluster
    assert isinstance(quickly(["job", "get", JOB])[0], quick.Declined)
    assert fake.jobs.created == []


def test_the_quick_path_reads_the_state_file_the_whole_command_reads(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    for home in (None, str(tmp_path / "elsewhere"), "~/peloton-home"):
        if home is None:
            monkeypatch.delenv("PELOTON_HOME", raising=False)
        else:
            monkeypatch.setenv("PELOTON_HOME", home)
        assert quick.state_file() == str(state_path(default_dir()))


def test_a_refusal_is_said_by_the_whole_command(
        capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path, fake: FakeJobmgr) -> None:
    """An error answer is declined, sent again by the whole command, and
    said once, in its words; nothing was created."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ninstancecount: -1\n")
    for argv, said in ((["job", "get", OTHER], f"peloton: job {OTHER} does not exist\n"),
                       (["job", "create", "/DefaultResPool", str(bad)],
                        f"peloton: {bad}: instancecount: must not be negative, got -1\n")):
        answered, out, err = quickly(argv)
        assert isinstance(answered, quick.Declined) and (out, err) == ("", "")
        assert answered.job_id is None or argv[1] == "create"
        assert main(argv) == 1
        assert capsys.readouterr() == ("", said)
    assert fake.jobs.created == []


def test_a_create_declined_after_its_send_is_sent_again_with_its_id(
        capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path) -> None:
    """A jobmgr that reads no specs answers the quick create in a way it
    does not take; the whole command sends the same create over gRPC."""
    with FakeJobmgr(http=True, reads_specs=False) as server:
        write_cluster(tmp_path / "home", server.address, server.http_address)
        answered, out, err = quickly(["job", "create", "/DefaultResPool", TESTJOB])
        assert isinstance(answered, quick.Declined) and (out, err) == ("", "")
        assert answered.job_id is not None
        assert main(["job", "create", "/DefaultResPool", TESTJOB]) == 0
        out, err = capsys.readouterr()
        [request] = server.jobs.created
        assert out == f"Job {request.id.value} created\n"
        assert err.count("peloton: warning: ") == 2
        # As main does after a decline: the whole command with the sent id.
        assert whole.main(["job", "create", "/DefaultResPool", TESTJOB],
                          job_id=answered.job_id) == 0
        assert server.jobs.created[-1].id.value == answered.job_id
        assert capsys.readouterr().out == f"Job {answered.job_id} created\n"


def test_a_quick_command_imports_none_of_what_the_whole_command_needs(
        tmp_path: pathlib.Path, fake: FakeJobmgr) -> None:
    """argparse, re, enum, typing, socket, json, pathlib: ~19 ms of a
    command's start here, against ~13-15 for the whole quick command
    (importlib and warnings: ~0.3 ms). Nor
    does what it imports register an exit handler, which ``script``'s
    ``os._exit`` would skip."""
    env = {**os.environ, "PELOTON_HOME": str(tmp_path / "home")}
    script = ("import atexit, sys\nfrom peloton.cli.main import main\n"
              "handlers = atexit._ncallbacks()\ncode = main(sys.argv[1:])\n"
              "whole = ('argparse', 're', 'enum', 'typing', 'socket', 'json', 'pathlib', "
              "'urllib', 'importlib', 'warnings', 'peloton.cli.run', 'peloton.cli.common', "
              "'peloton.rpc.http_client')\n"
              "print('IMPORTED', *sorted(m for m in whole if m in sys.modules), file=sys.stderr)\n"
              "print('HANDLERS', atexit._ncallbacks() - handlers, file=sys.stderr)\n"
              "sys.exit(code)\n")
    fake.tasks.listing = task_listing()
    for argv in (["job", "get", JOB], ["job", "status", JOB], ["task", "list", JOB],
                 ["job", "create", "/DefaultResPool", TESTJOB]):
        done = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True,
                              text=True, env=env, cwd=ROOT, timeout=60)
        assert done.returncode == 0, done.stderr
        [line] = [ln for ln in done.stderr.splitlines() if ln.startswith("IMPORTED")]
        assert line == "IMPORTED", argv
        assert "HANDLERS 0" in done.stderr.splitlines(), argv


@pytest.mark.parametrize("argv", [["job", "get", JOB], ["job", "create", "/DefaultResPool",
                                                        TESTJOB], ["job", "get", OTHER]],
                         ids=" ".join)
def test_the_installed_script_ends_with_its_output_written_and_its_status(
        tmp_path: pathlib.Path, fake: FakeJobmgr, capsys: pytest.CaptureFixture[str],
        argv: list[str]) -> None:
    """``bin/peloton`` ends a quick command with ``os._exit``: what it
    printed to a pipe (block-buffered) still reaches the reader, and its
    exit status is the command's, as the whole command's are (a job that
    does not exist: the whole command says so)."""
    env = {**os.environ, "PELOTON_HOME": str(tmp_path / "home")}
    env.pop("PYTHONUNBUFFERED", None)  # as a user's shell runs it
    done = subprocess.run([sys.executable, str(ROOT / "bin" / "peloton"), *argv],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    code = main(argv)
    out, err = capsys.readouterr()
    if argv[1] == "create":  # a new id each time
        out = out.replace(fake.jobs.created[-1].id.value, fake.jobs.created[0].id.value)
    assert (done.returncode, done.stdout, done.stderr) == (code, out, err)
    assert (code, bool(out)) == ((1, False) if argv[-1] == OTHER else (0, True))


class _GoneReader(io.StringIO):
    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


@pytest.mark.parametrize("argv", [["job", "get", JOB], ["job", "create", "/DefaultResPool",
                                                        TESTJOB]], ids=" ".join)
def test_a_reader_gone_or_an_interrupt_ends_a_quick_command_as_the_whole_one(
        capsys: pytest.CaptureFixture[str], fake: FakeJobmgr, monkeypatch: pytest.MonkeyPatch,
        argv: list[str]) -> None:
    """``peloton job get ID | head -0`` is not an error, and Ctrl-C says so
    in one line: neither is a traceback, nor sent again by the whole
    command."""
    with monkeypatch.context() as patched:
        patched.setattr(sys, "stdout", _GoneReader())
        assert main(argv) == 0
    assert len(fake.jobs.created) == (1 if argv[1] == "create" else 0)
    capsys.readouterr()  # (the create's warnings)

    def interrupted(*args: object, **kwargs: object) -> bytes:
        raise KeyboardInterrupt

    monkeypatch.setattr(quick, "_call", interrupted)
    assert main(argv) == 130
    assert capsys.readouterr().err == "peloton: interrupted\n"
    assert len(fake.jobs.created) == (1 if argv[1] == "create" else 0)
