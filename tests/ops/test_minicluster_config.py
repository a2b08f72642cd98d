"""The minicluster's files and process handling, without real daemons.

Stand-in daemons are ``python -c`` processes whose command line looks like a
daemon's (``peloton.daemon KIND --config FILE --name NAME``), so liveness,
stopping and the readiness wait are exercised for real, in well under a
second each.
"""

from __future__ import annotations

import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
import yaml

from peloton import config as cluster_config
from peloton.config import DaemonConfig
from peloton.core.errors import FailedPrecondition, InvalidArgument, NotFound
from peloton.ops import clusterfile, minicluster, processes
from peloton.ops.minicluster import ClusterNotReady, DaemonRecord, Sizes, State


def addresses(config: cluster_config.ClusterConfig) -> list[str]:
    return [a for d in config.daemons
            for a in (d.grpc, d.raft, d.options.get("metrics"), d.options.get("http"),
                      d.options.get("files")) if a]


# --------------------------------------------------------------------------- cluster.yaml


def test_generated_cluster_file_parses(tmp_path: pathlib.Path) -> None:
    config, written = minicluster.prepare(tmp_path)
    assert written
    text = (tmp_path / "cluster.yaml").read_text()
    assert text.startswith("# A local Peloton cluster")
    parsed = cluster_config.parse(yaml.safe_load(text), base=tmp_path)
    assert parsed == config
    assert config.data_dir == tmp_path
    assert config.num_shards == 16
    assert [d.name for d in config.daemons] == [
        "resmgr-0", "resmgr-1", "resmgr-2", "jobmgr-0", "jobmgr-1", "placement-0",
        "placement-1", "hostmgr-0"]
    assert all(d.grpc and d.raft for d in config.of_kind("resmgr"))
    assert all(not d.grpc for d in config.of_kind("placement"))
    [hostmgr] = config.of_kind("hostmgr")
    files = hostmgr.options.pop("files")
    assert files.startswith("127.0.0.1:")
    assert hostmgr.options == {"cluster": "local", "backend": "local", "hosts": 3, "cpu": 4,
                               "memory_mb": 8192, "disk_mb": 102400, "gpu": 0}
    hostmgr.options["files"] = files
    ports = addresses(config)
    assert len(ports) == 15 == len(set(ports)) == Sizes().ports_needed
    assert all(a.startswith("127.0.0.1:") for a in ports)
    assert minicluster.sizes_of(config) == Sizes()


def test_a_new_cluster_gets_its_own_raft_secret(tmp_path: pathlib.Path) -> None:
    config, _ = minicluster.prepare(tmp_path / "a")
    other, _ = minicluster.prepare(tmp_path / "b")
    secret = tmp_path / "a" / "raft.secret"
    assert config.raft_password_file == secret
    assert secret.stat().st_mode & 0o777 == 0o600
    assert len(config.raft_secret()) == 43  # 256 random bits
    assert config.raft_secret() != other.raft_secret()
    assert minicluster.prepare(tmp_path / "a")[0].raft_secret() == config.raft_secret()


def test_a_cluster_file_from_before_raft_secrets_gets_one(tmp_path: pathlib.Path) -> None:
    config, _ = minicluster.prepare(tmp_path)
    path = tmp_path / "cluster.yaml"
    old = yaml.safe_load(path.read_text())
    del old["raft_password_file"]
    (tmp_path / "raft.secret").unlink()
    path.write_text(clusterfile.HEADER + yaml.safe_dump(old))
    again, written = minicluster.prepare(tmp_path)
    assert not written and again.daemons == config.daemons
    assert len(again.raft_secret()) == 43
    # A file the user wrote is theirs: its error names the missing key.
    path.write_text(yaml.safe_dump(old))
    with pytest.raises(InvalidArgument) as info:
        minicluster.prepare(tmp_path)
    assert info.value.field == "raft_password_file"


def test_sizes_shape_the_cluster(tmp_path: pathlib.Path) -> None:
    sizes = Sizes(hosts=5, cpu=2, memory_mb=1024, disk_mb=2048, gpu=1, jobmgrs=3,
                  placements=1, resmgrs=1, shards=4, attributes=(("zone", "z1"),),
                  host_attributes=(("local-1", "rack", "r1"), ("local-3", "rack", "r2")))
    config, _ = minicluster.prepare(tmp_path, sizes)
    assert minicluster.sizes_of(config) == sizes
    assert len(config.jobmgr_addresses) == 3
    assert len(set(addresses(config))) == sizes.ports_needed == 11


def test_cluster_file_is_reused(tmp_path: pathlib.Path) -> None:
    first, written = minicluster.prepare(tmp_path)
    assert written
    again, written = minicluster.prepare(tmp_path, Sizes(hosts=9))
    assert not written
    assert again == first  # same ports, the new sizes are ignored


def test_cluster_data_uses_the_ports_in_order(tmp_path: pathlib.Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clusterfile, "port_is_free", lambda port: False)
    data = minicluster.cluster_data(tmp_path, Sizes(resmgrs=1, jobmgrs=1),
                                    [10, 11, 12, 13, 14, 15, 16])
    assert data["resmgr"] == [{"name": "resmgr-0", "grpc": "127.0.0.1:10",
                               "raft": "127.0.0.1:11", "metrics": "127.0.0.1:14"}]
    assert data["jobmgr"] == [{"name": "jobmgr-0", "grpc": "127.0.0.1:12",
                               "http": "127.0.0.1:15"}]
    assert data["hostmgr"][0]["grpc"] == "127.0.0.1:13"
    assert data["hostmgr"][0]["files"] == "127.0.0.1:16"
    with pytest.raises(ValueError):
        minicluster.cluster_data(tmp_path, Sizes(), [1, 2])


def test_the_first_jobmgr_takes_pelotons_http_port_when_it_is_free(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clusterfile, "port_is_free", lambda port: port == 5292)
    data = minicluster.cluster_data(tmp_path, Sizes(), list(range(20, 35)), pelotons_port=True)
    assert [j["http"] for j in data["jobmgr"]] == ["127.0.0.1:5292", "127.0.0.1:33"]
    # A test's cluster never takes it: two at once would both want it.
    data = minicluster.cluster_data(tmp_path, Sizes(), list(range(20, 35)))
    assert [j["http"] for j in data["jobmgr"]] == ["127.0.0.1:32", "127.0.0.1:33"]
    cluster_config.parse(data)


def test_free_ports_are_distinct() -> None:
    ports = minicluster.free_ports(50)
    assert len(set(ports)) == 50
    assert all(0 < p < 65536 for p in ports)


@pytest.mark.parametrize("sizes,flag", [
    (Sizes(hosts=0), "--hosts"), (Sizes(resmgrs=0), "--resmgrs"), (Sizes(cpu=0), "--cpu"),
    (Sizes(memory_mb=-1), "--memory-mb"), (Sizes(gpu=-1), "--gpu"),
    (Sizes(shards=0), "--shards"), (Sizes(shards=5000), "--shards"),
    (Sizes(hosts=2, host_attributes=(("local-2", "rack", "r1"),)), "--host-attribute"),
])
def test_sizes_are_checked(sizes: Sizes, flag: str) -> None:
    with pytest.raises(InvalidArgument) as error:
        sizes.check()
    assert error.value.field == flag


def test_default_dir_follows_peloton_home(tmp_path: pathlib.Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PELOTON_HOME", str(tmp_path / "ph"))
    assert minicluster.default_dir() == tmp_path / "ph" / "minicluster"
    monkeypatch.delenv("PELOTON_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert minicluster.default_dir() == tmp_path / "user" / ".peloton" / "minicluster"


# --------------------------------------------------------------------------- state.json


def test_state_round_trip(tmp_path: pathlib.Path) -> None:
    assert minicluster.read_state(tmp_path) is None
    state = State(tmp_path, tmp_path / "cluster.yaml",
                  [DaemonRecord("resmgr-0", "resmgr", 123, "127.0.0.1:1", "log"),
                   DaemonRecord("placement-0", "placement", 124)],
                  ["127.0.0.1:2", "127.0.0.1:3"], 1700000000.5)
    minicluster.write_state(state)
    data = json.loads((tmp_path / "state.json").read_text())
    assert data["jobmgr_addresses"] == ["127.0.0.1:2", "127.0.0.1:3"]
    assert data["daemons"][0] == {"name": "resmgr-0", "kind": "resmgr", "pid": 123,
                                  "address": "127.0.0.1:1", "log": "log"}
    assert minicluster.read_state(tmp_path) == state
    assert state.get("placement-0").pid == 124
    with pytest.raises(NotFound):
        state.get("jobmgr-9")


@pytest.mark.parametrize("text", ["{", "[]", '{"dir": "x"}', '{"dir": "x", "config": "y", '
                                  '"jobmgr_addresses": [], "daemons": [{"name": "a"}]}'])
def test_damaged_state(tmp_path: pathlib.Path, text: str) -> None:
    (tmp_path / "state.json").write_text(text)
    with pytest.raises(InvalidArgument) as error:
        minicluster.read_state(tmp_path)
    assert "is damaged" in error.value.message


# --------------------------------------------------------------------------- processes


def stand_in(config_file: pathlib.Path, name: str, kind: str = "jobmgr", *,
             code: str = "import time; time.sleep(60)",
             log: pathlib.Path | None = None) -> subprocess.Popen[bytes]:
    """A process whose command line looks like daemon ``name``'s."""
    out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115
    try:
        p = subprocess.Popen([sys.executable, "-c", code, "peloton.daemon", kind, "--config",
                              str(config_file), "--name", name],
                             stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    finally:
        if log:
            out.close()  # type: ignore[union-attr]
    # Popen may return while the child is still in exec: its /proc cmdline
    # reads empty for a moment (1 in 6 on a busy machine), and is_alive
    # would not take it for a daemon yet.
    deadline = time.monotonic() + 5
    cmdline = pathlib.Path(f"/proc/{p.pid}/cmdline")
    while (cmdline.exists() and not cmdline.read_bytes() and p.poll() is None
           and time.monotonic() < deadline):
        time.sleep(0.001)
    return p


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for p in started:
        if p.poll() is None:
            p.kill()
        p.wait()


def test_is_alive(tmp_path: pathlib.Path, procs: list[subprocess.Popen[bytes]]) -> None:
    p = stand_in(tmp_path / "cluster.yaml", "jobmgr-0")
    procs.append(p)
    assert minicluster.is_alive(p.pid)
    assert minicluster.is_alive(p.pid, "jobmgr-0")
    assert not minicluster.is_alive(p.pid, "resmgr-0")  # another daemon's recycled pid
    assert not minicluster.is_alive(os.getpid())  # alive, but not a daemon
    assert not minicluster.is_alive(0)
    p.send_signal(signal.SIGKILL)
    os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)  # until it is a zombie, not reaped
    assert not minicluster.is_alive(p.pid)  # a zombie is dead


def test_down_stops_listed_and_unlisted_daemons(tmp_path: pathlib.Path,
                                                procs: list[subprocess.Popen[bytes]]) -> None:
    config_file = tmp_path / "cluster.yaml"
    config_file.write_text("data_dir: .\n")
    listed = stand_in(config_file, "jobmgr-0")
    unlisted = stand_in(config_file, "jobmgr-1")
    stubborn = stand_in(config_file, "resmgr-0", "resmgr", code=(
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "print('ready', flush=True); time.sleep(60)"), log=tmp_path / "stubborn.log")
    other = stand_in(tmp_path / "elsewhere.yaml", "jobmgr-0")
    procs.extend([listed, unlisted, stubborn, other])
    deadline = time.monotonic() + 10
    while b"ready" not in (tmp_path / "stubborn.log").read_bytes():
        assert time.monotonic() < deadline
        time.sleep(0.01)
    minicluster.write_state(State(tmp_path, config_file,
                                  [DaemonRecord("jobmgr-0", "jobmgr", listed.pid),
                                   DaemonRecord("resmgr-0", "resmgr", stubborn.pid)],
                                  ["127.0.0.1:1"]))
    lines: list[str] = []
    stopped = minicluster.down(tmp_path, grace=0.5, out=lines.append)
    assert stopped == ["jobmgr-0", "jobmgr-1", "resmgr-0"]
    assert listed.wait(5) == -signal.SIGTERM
    assert unlisted.wait(5) == -signal.SIGTERM
    assert stubborn.wait(5) == -signal.SIGKILL
    assert other.poll() is None  # another cluster's daemon is left alone
    assert lines == [f"stopped 3 daemon(s) in {tmp_path} (resmgr-0 needed SIGKILL)"]
    assert not (tmp_path / "state.json").exists()
    assert (tmp_path / "cluster.yaml").exists()
    # Idempotent, and --clean removes the directory.
    assert minicluster.down(tmp_path, clean=True, out=lines.append) == []
    assert not tmp_path.exists()
    assert minicluster.down(tmp_path, out=lines.append) == []
    assert lines[-1] == f"no local cluster in {tmp_path}"


def test_kill_and_restart_need_a_running_cluster(tmp_path: pathlib.Path) -> None:
    with pytest.raises(FailedPrecondition):
        minicluster.kill(tmp_path, "jobmgr-0")
    with pytest.raises(FailedPrecondition):
        minicluster.restart(tmp_path, "jobmgr-0")


def test_kill_names_the_daemons(tmp_path: pathlib.Path,
                                procs: list[subprocess.Popen[bytes]]) -> None:
    p = stand_in(tmp_path / "cluster.yaml", "jobmgr-0")
    procs.append(p)
    minicluster.write_state(State(tmp_path, tmp_path / "cluster.yaml",
                                  [DaemonRecord("jobmgr-0", "jobmgr", p.pid)], []))
    with pytest.raises(NotFound) as error:
        minicluster.kill(tmp_path, "jobmgr-7")
    assert "jobmgr-0" in error.value.message
    assert minicluster.kill(tmp_path, "jobmgr-0", signal.SIGTERM) == p.pid
    assert p.wait(5) == -signal.SIGTERM
    with pytest.raises(FailedPrecondition):
        minicluster.kill(tmp_path, "jobmgr-0")


# --------------------------------------------------------------------------- up, with stand-ins


def fake_start(code: str) -> object:
    def start(directory: pathlib.Path, config_file: pathlib.Path,
              daemon: DaemonConfig) -> subprocess.Popen[bytes]:
        log = minicluster.log_path(directory, daemon.name)
        log.parent.mkdir(parents=True, exist_ok=True)
        proc = stand_in(config_file, daemon.name, daemon.kind,
                        code=code.replace("NAME", daemon.name), log=log)
        processes.CHILDREN[proc.pid] = proc
        return proc
    return start


def test_up_reports_a_daemon_that_exits(tmp_path: pathlib.Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(minicluster, "start_daemon", fake_start(
        "import sys, time\n"
        "if 'NAME' == 'hostmgr-0':\n"
        "    print('peloton-daemon: hostmgr[hostmgr-0].backend: unknown host backend'); "
        "sys.exit(2)\n"
        "time.sleep(60)"))
    began = time.monotonic()
    with pytest.raises(ClusterNotReady) as error:
        minicluster.up(tmp_path, Sizes(resmgrs=1, jobmgrs=1, placements=1), timeout=30,
                       out=lambda line: None)
    assert time.monotonic() - began < 10  # not the whole timeout
    assert error.value.message == "hostmgr-0 exited while the cluster was starting"
    details = "\n".join(error.value.details)
    assert "--- hostmgr-0 exited with code 2" in details
    assert "unknown host backend" in details
    assert not (tmp_path / "state.json").exists()
    assert processes.daemons_of(tmp_path / "cluster.yaml") == {}


def test_up_times_out_naming_the_condition(tmp_path: pathlib.Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # Every stand-in says it serves, but nothing answers RPCs.
    monkeypatch.setattr(minicluster, "start_daemon", fake_start(
        "import time; print('ready NAME 127.0.0.1:1', flush=True); time.sleep(60)"))
    with pytest.raises(ClusterNotReady) as error:
        minicluster.up(tmp_path, Sizes(resmgrs=1, jobmgrs=1, placements=1), timeout=1.5,
                       out=lambda line: None)
    assert error.value.message.startswith("the cluster was not ready after 1.5s: "
                                          "no resmgr leader answers GetClusterView")
    assert not (tmp_path / "state.json").exists()
    assert processes.daemons_of(tmp_path / "cluster.yaml") == {}


def test_up_leaves_a_running_cluster_alone(tmp_path: pathlib.Path,
                                           monkeypatch: pytest.MonkeyPatch,
                                           procs: list[subprocess.Popen[bytes]]) -> None:
    config, _ = minicluster.prepare(tmp_path, Sizes(resmgrs=1, jobmgrs=1, placements=1))
    records = []
    for d in config.daemons:
        p = stand_in(tmp_path / "cluster.yaml", d.name, d.kind)
        procs.append(p)
        records.append(DaemonRecord(d.name, d.kind, p.pid, d.grpc))
    state = State(tmp_path, tmp_path / "cluster.yaml", records, config.jobmgr_addresses)
    minicluster.write_state(state)

    def no_start(*args: object) -> None:
        raise AssertionError("started a daemon")

    monkeypatch.setattr(minicluster, "start_daemon", no_start)
    lines: list[str] = []
    assert minicluster.up(tmp_path, out=lines.append) == state
    assert lines[0] == f"a local cluster is already running in {tmp_path}"
    with pytest.raises(FailedPrecondition):
        minicluster.up(tmp_path, clean=True, out=lines.append)
    assert (tmp_path / "cluster.yaml").exists()


def test_status_of_no_cluster(tmp_path: pathlib.Path) -> None:
    info = minicluster.status(tmp_path)
    assert info == {"dir": str(tmp_path), "running": False, "daemons": []}
    assert "no local cluster" in minicluster.format_status(info)
    minicluster.prepare(tmp_path)
    info = minicluster.status(tmp_path)
    assert info["stopped"] is True
    assert "is stopped" in minicluster.format_status(info)


def test_status_shows_each_resmgr_metrics_url() -> None:
    info = {"dir": "/c", "running": True, "daemons": [
        {"name": "resmgr-0", "kind": "resmgr", "pid": 10, "address": "127.0.0.1:1",
         "alive": True, "metrics": "http://127.0.0.1:9/metrics"},
        {"name": "jobmgr-0", "kind": "jobmgr", "pid": 11, "address": "127.0.0.1:2",
         "alive": True}]}
    lines = minicluster.format_status(info).splitlines()
    assert lines[1].endswith("127.0.0.1:1  metrics http://127.0.0.1:9/metrics")
    assert lines[2].endswith("127.0.0.1:2")


def test_status_shows_each_resmgr_digest_and_the_leaders_checks() -> None:
    def digest(applied: int, leading: bool, checks: list[dict[str, object]]) -> dict[str, object]:
        return {"applied": applied, "digest": "0123456789abcdef" * 2, "since": 0,
                "leading": leading, "checks": checks}

    check = {"replica": "127.0.0.1:2", "name": "resmgr-1", "outcome": "agree",
             "agreed_index": 1200, "mismatches": 0, "mismatch_index": 0}
    bad = {**check, "replica": "127.0.0.1:3", "name": "resmgr-2", "outcome": "mismatch",
           "agreed_index": 900, "mismatches": 2, "mismatch_index": 1190}
    info = {"dir": "/c", "running": True, "leader": "127.0.0.1:1", "leader_name": "resmgr-0",
            "daemons": [
                {"name": "resmgr-0", "kind": "resmgr", "pid": 10, "address": "127.0.0.1:1",
                 "alive": True, "digest": digest(1234, True, [check, bad])},
                {"name": "resmgr-1", "kind": "resmgr", "pid": 11, "address": "127.0.0.1:2",
                 "alive": True, "digest": digest(1233, False, [])}]}
    lines = minicluster.format_status(info).splitlines()
    assert lines[1].endswith("127.0.0.1:1  applied 1234 digest 0123456789ab")
    assert lines[2].endswith("127.0.0.1:2  applied 1233 digest 0123456789ab")
    assert lines[4] == ("replica digests (the leader's last check): resmgr-1 agree at 1200, "
                        "resmgr-2 mismatch (DIVERGED: 2 mismatches, the last at 1190)")


def test_a_port_in_use_is_named_before_anything_starts() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        daemon = cluster_config.DaemonConfig("jobmgr", "jobmgr-0", "", "",
                                             {"http": f"127.0.0.1:{port}"})
        with pytest.raises(FailedPrecondition, match=r"jobmgr-0's HTTP/JSON port\) is in use"):
            processes.check_ports([daemon])
