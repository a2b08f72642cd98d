"""Resource-pool configs: Peloton's example files and the tree-free checks."""

from __future__ import annotations

import copy
import pathlib
from typing import Any

import pytest

from peloton.api.v0.respool import respool_pb2
from peloton.core.errors import InvalidArgument
from peloton.spec.respool import (
    apply_respool_defaults,
    load_respool_config,
    split_respool_path,
    validate_respool_config,
)

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "peloton" / "examples"


def test_default_respool_example() -> None:
    config, warnings = load_respool_config((EXAMPLES / "default_respool.yaml").read_text())
    assert warnings == []
    assert config.name == "DefaultResPool"
    assert [(r.kind, r.reservation, r.limit, r.share) for r in config.resources] == [
        ("cpu", 12, 12, 1), ("memory", 6144, 6144, 1), ("disk", 10240, 20480, 1),
        ("gpu", 0, 0, 1)]
    assert config.controllerLimit.maxPercent == 10
    assert config.slackLimit.maxPercent == 30
    assert config.policy == respool_pb2.PriorityFIFO


def test_camelcase_example_with_parent() -> None:
    config, _ = load_respool_config(EXAMPLES / "test_respool_camelcase.yaml")
    assert config.name == "TestPelotonResPool_integration"
    assert config.owningTeam == "team6"
    assert config.parent.value == "root"
    assert config.policy == respool_pb2.PriorityFIFO  # defaulted
    assert config.resources[1].share == 2


def test_cli_rejects_parent_in_file() -> None:
    with pytest.raises(InvalidArgument) as e:
        load_respool_config(EXAMPLES / "test_respool_camelcase.yaml",
                            path="/TestPelotonResPool_integration", reject_parent=True)
    assert e.value.field == "parent"
    assert "path" in e.value.message


def test_cli_path_without_parent_is_fine() -> None:
    config, _ = load_respool_config(EXAMPLES / "default_respool.yaml",
                                    path="/infra/DefaultResPool", reject_parent=True)
    assert config.name == "DefaultResPool"


def test_name_comes_from_path_when_missing() -> None:
    config, _ = load_respool_config({"resources": [{"kind": "cpu", "limit": 1}]},
                                    path="/infra/compute")
    assert config.name == "compute"


def test_defaults_are_idempotent() -> None:
    config = respool_pb2.ResourcePoolConfig()
    apply_respool_defaults(config, path="/a/b/")
    apply_respool_defaults(config, path="/a/b/")
    assert (config.name, config.policy) == ("b", respool_pb2.PriorityFIFO)


@pytest.mark.parametrize(("path", "parts"), [
    ("/", []), ("/a", ["a"]), ("/a/b", ["a", "b"]), ("/a/b/", ["a", "b"])])
def test_split_path(path: str, parts: list[str]) -> None:
    assert split_respool_path(path) == parts


BASE: dict[str, Any] = {
    "name": "pool",
    "resources": [
        {"kind": "cpu", "reservation": 4, "limit": 8, "share": 1},
        {"kind": "memory", "reservation": 2048, "limit": 4096, "share": 1},
    ],
}


def pool(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    for key, value in changes.items():
        if key.startswith("r1_"):
            data["resources"][1][key[3:]] = value
        else:
            data[key] = value
    return data


INVALID: list[tuple[str, dict[str, Any], str | None, str, list[str]]] = [
    # (case, data, path, field, words)
    ("no name", pool(name=""), None, "name", ["name"]),
    ("NUL in the name", pool(name="a\0b"), None, "name", ["control character"]),
    ("'/' in the name", pool(name="a/b"), None, "name", ["'/'"]),
    ("a name too long", pool(name="p" * 256), None, "name", ["256 characters", "at most 255"]),
    ("a limit beyond any pool", pool(r1_limit=1e300), None, "resources[1].limit",
     ["1e+300", "1e+12"]),
    ("name differs from path", pool(), "/a/other", "name", ["'pool'", "'other'"]),
    ("root path", pool(), "/", "path", ["root"]),
    ("relative path", pool(), "a/pool", "path", ["start with '/'"]),
    ("empty path element", pool(), "/a//pool", "path", ["empty"]),
    ("unknown kind", pool(r1_kind="mem"), None, "resources[1].kind",
     ["'mem'", "cpu, memory, disk, gpu"]),
    ("kind twice", pool(r1_kind="cpu"), None, "resources[1].kind",
     ["more than once", "resources[0]"]),
    ("negative reservation", pool(r1_reservation=-1), None, "resources[1].reservation",
     ["non-negative"]),
    ("negative limit", pool(r1_limit=-1, r1_reservation=0), None, "resources[1].limit",
     ["non-negative"]),
    ("negative share", pool(r1_share=-0.5), None, "resources[1].share", ["non-negative"]),
    ("reservation above limit", pool(r1_reservation=5000), None, "resources[1].reservation",
     ["5000", "4096"]),
    ("controller limit above 100", pool(controllerlimit={"maxpercent": 101}), None,
     "controllerlimit.maxpercent", ["0..100", "101"]),
    ("negative slack limit", pool(slackLimit={"maxPercent": -1}), None,
     "slacklimit.maxpercent", ["0..100"]),
    ("unknown key", pool(resources=[{"kind": "cpu", "reservaton": 1}]), None,
     "resources[0].reservaton", ["did you mean 'reservation'?"]),
    ("bad policy", pool(policy="FIFO"), None, "policy", ["PriorityFIFO"]),
    ("priority preemption not a boolean", pool(prioritypreemption="yes"), None,
     "prioritypreemption", ["boolean", "'yes'"]),
    ("priority preemption a number", pool(priorityPreemption=1), None,
     "prioritypreemption", ["boolean"]),
]


@pytest.mark.parametrize(("data", "path", "field", "words"), [c[1:] for c in INVALID],
                         ids=[c[0] for c in INVALID])
def test_invalid_pools(data: dict[str, Any], path: str | None, field: str,
                       words: list[str]) -> None:
    with pytest.raises(InvalidArgument) as e:
        load_respool_config(data, path=path)
    assert e.value.field == field
    for word in words:
        assert word in e.value.message


def test_validate_alone_does_not_default() -> None:
    config = respool_pb2.ResourcePoolConfig(name="p")
    validate_respool_config(config)
    assert config.policy == respool_pb2.UNKNOWN


@pytest.mark.parametrize("key", ["priorityPreemption", "prioritypreemption",
                                 "priority_preemption"])
def test_priority_preemption_in_any_case(key: str) -> None:
    config, _ = load_respool_config(pool(**{key: True}))
    assert config.priorityPreemption is True
    config, _ = load_respool_config(pool())
    assert config.priorityPreemption is False  # off by default
