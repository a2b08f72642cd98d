"""ops/: the three-machine cluster file loads once its secrets exist, and
is refused without its security section."""

from __future__ import annotations

import fnmatch
import pathlib
import shutil
import tomllib

import pytest
import yaml

from peloton import config as cluster_config
from peloton.core.errors import InvalidArgument
from peloton.ops.certs import make_certs

OPS = pathlib.Path(__file__).resolve().parents[2] / "ops"


def secret(path: pathlib.Path, text: str) -> None:
    path.write_text(text)
    path.chmod(0o600)


def test_the_three_machine_cluster_file_loads_with_its_secrets(tmp_path: pathlib.Path) -> None:
    shutil.copy(OPS / "cluster-3-machines.yaml", tmp_path / "cluster.yaml")
    make_certs(tmp_path / "tls", ["10.0.0.1", "10.0.0.2", "10.0.0.3"])
    secret(tmp_path / "raft.secret", "x" * 44)
    secret(tmp_path / "admin.password", "a long password")
    config = cluster_config.load(tmp_path / "cluster.yaml")
    assert config.security.complete
    assert len(config.resmgr_addresses) == 3 and config.raft_secret() == "x" * 44
    assert {d.options["task_users"] for d in config.of_kind("hostmgr")} == {"isolated"}
    data = yaml.safe_load((OPS / "cluster-3-machines.yaml").read_text())
    del data["security"]
    with pytest.raises(InvalidArgument, match="needs security") as e:
        cluster_config.parse(data, base=tmp_path)
    assert e.value.field == "resmgr[resmgr-1].grpc"


def test_the_systemd_unit_runs_the_installed_daemon() -> None:
    unit = (OPS / "systemd" / "peloton@.service").read_text()
    assert "peloton-daemon" in unit and "--config /etc/peloton/cluster.yaml" in unit
    assert 'peloton-daemon = "peloton.daemon:main"' in (OPS.parent / "pyproject.toml").read_text()


def test_an_installed_peloton_carries_every_data_file_of_its_packages() -> None:
    """A wheel (``pip install .``, not editable) holds a package's files
    other than modules only where pyproject's package-data names them;
    ``peloton demo`` read examples/testjob.yaml that no wheel held."""
    root = OPS.parent
    package_data = tomllib.loads((root / "pyproject.toml").read_text())[
        "tool"]["setuptools"]["package-data"]
    missing = []
    for top in ("peloton", "loadtest"):
        for path in sorted((root / top).rglob("*")):
            if (path.is_dir() or path.suffix in (".py", ".pyc")
                    or "__pycache__" in path.parts):
                continue
            # Each package above the file may name it, relative to its directory.
            packages = [d for d in path.parents
                        if d.is_relative_to(root / top) and (d / "__init__.py").exists()]
            if not any(fnmatch.fnmatch(str(path.relative_to(d)), pattern)
                       for d in packages
                       for pattern in (package_data.get("*", [])
                                       + package_data.get(
                                           ".".join(d.relative_to(root).parts), []))):
                missing.append(str(path.relative_to(root)))
    assert not missing, f"not in any wheel: {missing}"
