"""The cluster file: a valid file parses into daemons and their options; every
kind of mistake is refused with an error that names the offending key."""

from __future__ import annotations

import copy
import pathlib
from collections.abc import Callable
from typing import Any

import pytest
import yaml

from peloton import config
from peloton.config import ClusterConfig, DaemonConfig
from peloton.core.errors import InvalidArgument

VALID = """
data_dir: /srv/peloton
num_shards: 8
storage: {kind: sqlite, path: state/jobs.db}
raft_password: s3cret-s3cret-s3cret
resmgr:
  - {name: resmgr-0, grpc: 127.0.0.1:5394, raft: 127.0.0.1:7394}
  - {name: resmgr-1, grpc: 127.0.0.1:5395, raft: 127.0.0.1:7395}
jobmgr:
  - {name: jobmgr-0, grpc: 127.0.0.1:5392}
placement:
  - {name: placement-0}
  - {name: placement-1, batch: 50}
hostmgr:
  - {name: hostmgr-0, grpc: "localhost:5391", cluster: local, backend: local,
     hosts: 3, cpu: 4, memory_mb: 8192, disk_mb: 102400, gpu: 0}
"""


def valid() -> dict[str, Any]:
    return yaml.safe_load(VALID)


def test_a_valid_file_parses() -> None:
    c = config.parse(valid())
    assert c.data_dir == pathlib.Path("/srv/peloton")
    assert (c.num_shards, c.raft_secret()) == (8, "s3cret-s3cret-s3cret")
    assert c.storage == {"kind": "sqlite", "path": "state/jobs.db"}
    assert c.storage_path() == pathlib.Path("/srv/peloton/state/jobs.db")
    assert [(d.kind, d.name) for d in c.daemons] == [
        ("resmgr", "resmgr-0"), ("resmgr", "resmgr-1"), ("jobmgr", "jobmgr-0"),
        ("placement", "placement-0"), ("placement", "placement-1"), ("hostmgr", "hostmgr-0")]
    assert c.get("resmgr-1") == DaemonConfig("resmgr", "resmgr-1", "127.0.0.1:5395",
                                             "127.0.0.1:7395", {})
    assert c.get("placement-1") == DaemonConfig("placement", "placement-1", "", "",
                                                {"batch": 50})
    assert c.get("hostmgr-0").options == {"cluster": "local", "backend": "local", "hosts": 3,
                                          "cpu": 4, "memory_mb": 8192, "disk_mb": 102400,
                                          "gpu": 0}
    assert [d.name for d in c.of_kind("placement")] == ["placement-0", "placement-1"]
    assert c.resmgr_addresses == ["127.0.0.1:5394", "127.0.0.1:5395"]
    assert c.jobmgr_addresses == ["127.0.0.1:5392"]
    assert c.raft_to_grpc() == {"127.0.0.1:7394": "127.0.0.1:5394",
                                "127.0.0.1:7395": "127.0.0.1:5395"}


def test_defaults() -> None:
    c = config.parse({"data_dir": "/d", "raft_password_file": "secret",
                      "resmgr": [{"name": "r", "grpc": "127.0.0.1:1", "raft": "127.0.0.1:2"}]})
    assert (c.num_shards, c.storage) == (16, {"kind": "sqlite"})
    assert (c.raft_password, c.raft_password_file) == (None, pathlib.Path("secret"))
    assert c.preemption_sustain_s is None
    assert c.max_message_bytes == 4 * 1024 * 1024  # gRPC's own default
    assert c.storage_path() == pathlib.Path("/d/jobs.db")
    assert c.of_kind("jobmgr") == [] and c.jobmgr_addresses == []


@pytest.mark.parametrize(("section", "want"), [
    ({"sustain_s": 2}, 2.0), ({"sustain_s": 0.5}, 0.5), ({}, None), (None, None)])
def test_preemption_sustain(section: Any, want: float | None) -> None:
    assert config.parse(valid() | {"preemption": section}).preemption_sustain_s == want


@pytest.mark.parametrize(("section", "want"), [
    ({"max_message_bytes": 1024}, 1024), ({}, 4 * 1024 * 1024), (None, 4 * 1024 * 1024)])
def test_rpc_max_message_bytes(section: Any, want: int) -> None:
    assert config.parse(valid() | {"rpc": section}).max_message_bytes == want


def test_a_relative_data_dir_is_relative_to_the_file(tmp_path: pathlib.Path) -> None:
    data = valid() | {"data_dir": "cluster"}
    assert config.parse(data).data_dir == pathlib.Path("cluster")
    assert config.parse(data, base=tmp_path).data_dir == tmp_path / "cluster"
    assert config.parse(valid(), base=tmp_path).data_dir == pathlib.Path("/srv/peloton")


def test_load_reads_the_file(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(VALID.replace("/srv/peloton", "here"))
    c = config.load(path)
    assert isinstance(c, ClusterConfig)
    assert c.data_dir == tmp_path / "here"
    assert config.load(str(path)) == c


def test_load_errors_name_the_file(tmp_path: pathlib.Path) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(InvalidArgument) as info:
        config.load(missing)
    assert info.value.field == str(missing)
    assert "cannot read cluster file" in info.value.message
    bad = tmp_path / "bad.yaml"
    bad.write_text("data_dir: [unclosed\n")
    with pytest.raises(InvalidArgument) as info:
        config.load(bad)
    assert (info.value.field, info.value.message[:13]) == (str(bad), "not valid YAM")


def test_get_names_the_known_daemons() -> None:
    with pytest.raises(InvalidArgument) as info:
        config.parse(valid()).get("jobmgr-9")
    assert info.value.field == "name"
    assert info.value.message == ("no daemon named 'jobmgr-9' in the cluster file (resmgr-0, "
                                  "resmgr-1, jobmgr-0, placement-0, placement-1, hostmgr-0)")


def set_(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """An edit of the valid file: set ``a.b.0.c`` (None deletes it)."""
    def edit(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = data
        for p in parents:
            node = node[int(p)] if isinstance(node, list) else node[p]
        key: Any = int(last) if isinstance(node, list) else last
        if value is None:
            del node[key]
        else:
            node[key] = value
    return edit


@pytest.mark.parametrize(("edit", "field", "message"), [
    (set_("grpc_port", 1), "grpc_port", "unknown key; known keys are data_dir, hostmgr, jobmgr, "
                                        "num_shards, placement, preemption, raft_password, "
                                        "raft_password_file, resmgr, rpc, security, storage"),
    (set_("raft_password", None), "raft_password_file",
     "required: the Raft group's shared secret (or raft_password inline); pysyncobj runs what "
     "reaches its port unless every message is authenticated with it"),
    (set_("raft_password_file", "s"), "raft_password",
     "give raft_password or raft_password_file, not both"),
    (set_("raft_password", 12345678901234567), "raft_password", "must be a string, got int"),
    (set_("raft_password", "s3cret"), "raft_password",
     "the password is 6 characters; a Raft secret needs at least 16 (`peloton minicluster up` "
     "writes one, or: python -c 'import secrets; print(secrets.token_urlsafe())')"),
    (set_("preemption", 10), "preemption", "must be a mapping, got 10"),
    (set_("preemption", {"sustain": 1}), "preemption.sustain",
     "unknown key; known keys are sustain_s"),
    (set_("preemption", {"sustain_s": -1}), "preemption.sustain_s",
     "must be a number of seconds in 0..86400, got -1"),
    (set_("preemption", {"sustain_s": "10s"}), "preemption.sustain_s",
     "must be a number of seconds in 0..86400, got '10s'"),
    (set_("preemption", {"sustain_s": True}), "preemption.sustain_s",
     "must be a number of seconds in 0..86400, got True"),
    (set_("rpc", []), "rpc", "must be a mapping, got []"),
    (set_("rpc", {"max_bytes": 1}), "rpc.max_bytes", "unknown key; known keys are max_message_bytes"),
    (set_("rpc", {"max_message_bytes": 100}), "rpc.max_message_bytes",
     "must be a number of bytes in 1024..2147483647, got 100"),
    (set_("rpc", {"max_message_bytes": "4MiB"}), "rpc.max_message_bytes",
     "must be a number of bytes in 1024..2147483647, got '4MiB'"),
    (set_("data_dir", None), "data_dir", "required"),
    (set_("data_dir", 5), "data_dir", "must be a path, got 5"),
    (set_("data_dir", ""), "data_dir", "must be a path, got ''"),
    (set_("num_shards", 0), "num_shards", "must be an integer in 1..4096, got 0"),
    (set_("num_shards", 4097), "num_shards", "must be an integer in 1..4096, got 4097"),
    (set_("num_shards", "8"), "num_shards", "must be an integer in 1..4096, got '8'"),
    (set_("num_shards", True), "num_shards", "must be an integer in 1..4096, got True"),
    (set_("jobmgr", {"name": "j"}), "jobmgr", "must be a list of daemons"),
    (set_("jobmgr.0", "jobmgr-0"), "jobmgr[0]", "each daemon needs a name"),
    (set_("jobmgr.0.name", None), "jobmgr[0]", "each daemon needs a name"),
    (set_("jobmgr.0.name", "resmgr-1"), "jobmgr[0].name", "duplicate daemon name 'resmgr-1'"),
    (set_("placement.1.name", "placement-0"), "placement[1].name",
     "duplicate daemon name 'placement-0'"),
    (set_("resmgr.1.grpc", None), "resmgr[1].grpc", "required"),
    (set_("resmgr.0.raft", None), "resmgr[0].raft", "required"),
    (set_("jobmgr.0.grpc", None), "jobmgr[0].grpc", "required"),
    (set_("hostmgr.0.grpc", None), "hostmgr[0].grpc", "required"),
    (set_("resmgr.0.grpc", "127.0.0.1"), "resmgr[0].grpc",
     "expected host:port, got '127.0.0.1'"),
    (set_("resmgr.0.raft", "127.0.0.1:"), "resmgr[0].raft",
     "expected host:port, got '127.0.0.1:'"),
    (set_("jobmgr.0.grpc", "h:port"), "jobmgr[0].grpc", "expected host:port, got 'h:port'"),
    (set_("jobmgr.0.grpc", 5392), "jobmgr[0].grpc", "expected host:port, got 5392"),
    (set_("jobmgr.0.grpc", "h:65536"), "jobmgr[0].grpc", "expected host:port, got 'h:65536'"),
    (set_("placement.0.grpc", "127.0.0.1:5397"), "placement[0].grpc",
     "unknown key; a placement entry has name, batch, bulk_tasks_per_s"),
    (set_("placement.1.batch", 0), "placement[1].batch",
     "must be a whole number in 1..1000, got 0"),
    (set_("placement.1.batch", "50"), "placement[1].batch",
     "must be a whole number in 1..1000, got '50'"),
    (set_("placement.0.bulk_tasks_per_s", 0), "placement[0].bulk_tasks_per_s",
     "must be a positive number of tasks a second, got 0"),
    (set_("placement.0.bulk_tasks_per_s", "2000/s"), "placement[0].bulk_tasks_per_s",
     "must be a positive number of tasks a second, got '2000/s'"),
    (set_("resmgr", []), "resmgr", "a cluster needs at least one resmgr"),
    (set_("resmgr", None), "resmgr", "a cluster needs at least one resmgr"),
    (set_("storage", "sqlite"), "storage", "must be a mapping, got 'sqlite'"),
    (set_("storage.kind", "cassandra"), "storage.kind",
     "unknown storage kind 'cassandra'; known: sqlite"),
    (set_("resmgr.0.metric", "127.0.0.1:9090"), "resmgr[0].metric",
     "unknown key; a resmgr entry has name, grpc, raft, metrics"),
    (set_("resmgr.0.metrics", "9090"), "resmgr[0].metrics", "expected host:port, got '9090'"),
    (set_("jobmgr.0.htpp", "127.0.0.1:5292"), "jobmgr[0].htpp",
     "unknown key; a jobmgr entry has name, grpc, http, capabilities"),
    (set_("jobmgr.0.http", "5292"), "jobmgr[0].http", "expected host:port, got '5292'"),
    (set_("hostmgr.0.files", "0.0.0.0:5051"), "hostmgr[0].files",
     "must be a loopback address (127.0.0.1:PORT), got '0.0.0.0:5051': sandbox files are "
     "served on loopback only"),
    (set_("resmgr.1.metrics", "0.0.0.0:9090"), "resmgr[1].metrics",
     "must be a loopback address (127.0.0.1:PORT), got '0.0.0.0:9090': metrics are served "
     "on loopback only"),
    (set_("resmgr.1.metrics", "example.com:9090"), "resmgr[1].metrics",
     "must be a loopback address (127.0.0.1:PORT), got 'example.com:9090': metrics are "
     "served on loopback only"),
])
def test_errors_name_the_field(edit: Callable[[dict[str, Any]], None], field: str,
                               message: str) -> None:
    data = copy.deepcopy(valid())
    edit(data)
    with pytest.raises(InvalidArgument) as info:
        config.parse(data)
    assert (info.value.field, info.value.message) == (field, message)


@pytest.mark.parametrize("data", [None, [], "data_dir: /x"])
def test_the_file_must_be_a_mapping(data: Any) -> None:
    with pytest.raises(InvalidArgument, match="the cluster file must be a mapping"):
        config.parse(data)


def test_metrics_addresses_on_loopback() -> None:
    data = valid()
    data["resmgr"][0]["metrics"] = "127.0.0.1:9394"
    data["resmgr"][1]["metrics"] = "[::1]:0"
    c = config.parse(data)
    assert c.get("resmgr-0").options == {"metrics": "127.0.0.1:9394"}
    assert c.get("resmgr-1").options == {"metrics": "[::1]:0"}


def test_ports_zero_and_any_host_are_allowed() -> None:
    data = valid()
    data["jobmgr"][0]["grpc"] = "[::1]:0"
    assert config.parse(data).get("jobmgr-0").grpc == "[::1]:0"


def with_secret_file(tmp_path: pathlib.Path, content: str, mode: int) -> ClusterConfig:
    (tmp_path / "raft.secret").write_text(content)
    (tmp_path / "raft.secret").chmod(mode)
    data = valid()
    del data["raft_password"]
    data["raft_password_file"] = "raft.secret"
    return config.parse(data, base=tmp_path)


def test_the_raft_secret_file_is_relative_to_the_cluster_file(tmp_path: pathlib.Path) -> None:
    c = with_secret_file(tmp_path, "0123456789abcdef-xyz\n", 0o600)
    assert c.raft_password_file == tmp_path / "raft.secret"
    assert c.raft_secret() == "0123456789abcdef-xyz"


@pytest.mark.parametrize(("content", "mode", "message"), [
    ("0123456789abcdef", 0o644, "has mode 0644: the Raft secret must be readable by its owner "
                                "only (chmod 600 "),
    ("0123456789abcdef", 0o640, "has mode 0640"),
    ("short\n", 0o600, "is 5 characters; a Raft secret needs at least 16"),
])
def test_a_raft_secret_file_open_to_others_or_short_is_refused(
        tmp_path: pathlib.Path, content: str, mode: int, message: str) -> None:
    c = with_secret_file(tmp_path, content, mode)
    with pytest.raises(InvalidArgument) as info:
        c.raft_secret()
    assert info.value.field == "raft_password_file"
    assert message in info.value.message


def test_a_missing_raft_secret_file_is_named(tmp_path: pathlib.Path) -> None:
    data = valid()
    del data["raft_password"]
    data["raft_password_file"] = "nope"
    c = config.parse(data, base=tmp_path)  # the CLI never reads it: parsing does not either
    with pytest.raises(InvalidArgument) as info:
        c.raft_secret()
    assert (info.value.field, info.value.message) == (
        "raft_password_file", f"cannot read {tmp_path / 'nope'}: No such file or directory")


def test_serving_off_loopback_needs_security() -> None:
    """Any address but loopback: refused unless TLS, users and the cluster
    secret are all configured, naming the daemon's address."""
    data = valid()
    data["jobmgr"] = [{"name": "j", "grpc": "10.1.2.3:5000"}]
    with pytest.raises(InvalidArgument, match="needs security") as e:
        config.parse(data)
    assert e.value.field == "jobmgr[j].grpc"
    data["jobmgr"] = [{"name": "j", "grpc": "[::1]:5000", "http": "localhost:5292"}]
    config.parse(data)
