"""The security section: users, roles, the cluster secret, TLS files."""

from __future__ import annotations

import base64
import pathlib

import pytest

from peloton.core.errors import InvalidArgument
from peloton.core.security import Credentials, parse_security
from peloton.ops.certs import make_certs

SECTION = {
    "cluster_secret_file": "cluster.secret",
    "auth": {
        "users": [{"name": "alice", "password": "pw-a", "role": "admin"},
                  {"name": "bob", "password_file": "bob.password", "role": "reader"}],
        "roles": [{"name": "admin", "accept": ["*"]},
                  {"name": "reader", "accept": ["*.Get*", "*.Query*"],
                   "reject": ["*.GetCache"]}]},
}


def files(tmp_path: pathlib.Path) -> pathlib.Path:
    make_certs(tmp_path / "tls")
    (tmp_path / "cluster.secret").write_text((tmp_path / "tls/cluster.secret").read_text())
    (tmp_path / "cluster.secret").chmod(0o600)
    (tmp_path / "bob.password").write_text("pw-b\n")
    (tmp_path / "bob.password").chmod(0o600)
    return tmp_path


def basic(user: str, password: str) -> dict[str, str]:
    return dict(Credentials(user, password).metadata())


def test_roles_accept_and_reject_methods(tmp_path: pathlib.Path) -> None:
    s = parse_security(SECTION, files(tmp_path))
    get = "/peloton.api.v0.job.JobManager/Get"
    create = "/peloton.api.v0.job.JobManager/Create"
    assert s.check(create, basic("alice", "pw-a"), internal=False) is None
    assert s.check(get, basic("bob", "pw-b"), internal=False) is None
    assert s.check(create, basic("bob", "pw-b"), internal=False).startswith(
        "PERMISSION_DENIED: role reader")
    assert s.check("/peloton.api.v0.job.JobManager/GetCache", basic("bob", "pw-b"),
                   internal=False).startswith("PERMISSION_DENIED")
    for metadata in ({}, basic("bob", "wrong"), basic("eve", "pw-b"),
                     {"authorization": "Basic !!"}):
        assert s.check(get, metadata, internal=False).startswith("UNAUTHENTICATED")


def test_internal_services_take_the_cluster_secret_only(tmp_path: pathlib.Path) -> None:
    s = parse_security(SECTION, files(tmp_path))
    method = "/peloton.private.hostmgrsvc.InternalHostService/LaunchTasks"
    assert s.check(method, basic("alice", "pw-a"), internal=True).startswith("UNAUTHENTICATED")
    daemon = dict(s.daemon_credentials().metadata())
    assert s.check(method, daemon, internal=True) is None
    assert s.check("/peloton.api.v0.job.JobManager/Create", daemon, internal=False) is None


def test_tls_files_and_contexts(tmp_path: pathlib.Path) -> None:
    s = parse_security(SECTION | {"tls": {"cert": "tls/server.crt", "key": "tls/server.key",
                                          "ca": "tls/ca.crt"}}, files(tmp_path))
    assert s.complete and s.server_ssl() is not None and s.client_ssl() is not None
    assert base64.b64decode(dict(Credentials("a", "b").metadata())["authorization"][6:]) == b"a:b"


@pytest.mark.parametrize(("section", "field"), [
    ({"tls": {"cert": "nope.crt", "key": "k", "ca": "c"}}, "security.tls.cert"),
    ({"cluster_secret_file": "loose.secret"}, "security.cluster_secret_file"),
    ({"auth": {"users": [{"name": "a", "password": "p", "role": "none"}]}},
     "security.auth.users[0].role"),
    ({"auth": {"roles": [{"name": "r", "accept": "*"}]}}, "security.auth.roles[0].accept"),
    ({"frobnicate": 1}, "security"),
])
def test_errors_name_the_field(tmp_path: pathlib.Path, section: dict, field: str) -> None:
    (tmp_path / "loose.secret").write_text("x" * 32)
    (tmp_path / "loose.secret").chmod(0o644)
    with pytest.raises(InvalidArgument) as e:
        parse_security(section, tmp_path)
    assert e.value.field == field
