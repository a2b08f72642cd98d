"""The generic YAML/JSON -> protobuf converter: key spellings, types, paths."""

from __future__ import annotations

import math
from typing import Any

import pytest
import yaml

from peloton.api.mesos.v1 import mesos_pb2
from peloton.api.v0.job import job_pb2
from peloton.api.v0.respool import respool_pb2
from peloton.api.v0.task import task_pb2
from peloton.core.errors import InvalidArgument
from peloton.spec.yamlproto import load_yaml, message_to_dict, normalise_key, parse_message


def parse_job(data: Any, **kw: Any) -> job_pb2.JobConfig:
    return parse_message(data, job_pb2.JobConfig, **kw)[0]


@pytest.mark.parametrize("key", ["instancecount", "instanceCount", "instance_count",
                                 "INSTANCECOUNT"])
def test_key_spellings_match_the_same_field(key: str) -> None:
    assert parse_job({key: 3}).instanceCount == 3


def test_snake_case_proto2_fields() -> None:
    vol, _ = parse_message({"containerpath": "/a", "host_path": "/b", "mode": "RO"},
                           mesos_pb2.Volume)
    assert (vol.container_path, vol.host_path, vol.mode) == ("/a", "/b", mesos_pb2.Volume.RO)
    vol, _ = parse_message({"containerPath": "/a"}, mesos_pb2.Volume)
    assert vol.container_path == "/a"


def test_null_means_absent() -> None:
    config = parse_job({"changelog": None, "sla": None, "defaultconfig": {"container": None}})
    assert not config.HasField("changeLog")
    assert not config.HasField("sla")
    assert config.HasField("defaultConfig")
    assert not config.defaultConfig.HasField("container")


def test_empty_mapping_marks_message_present() -> None:
    assert parse_job({"sla": {}}).HasField("sla")


def test_nested_messages_lists_and_maps() -> None:
    config = parse_job({
        "ldapgroups": ["a", "b"],
        "labels": [{"key": "k", "value": "v"}],
        "instanceconfig": {0: {"name": "zero"}, "1": {"name": "one"}, 2: None},
        "respoolid": {"value": "/pool"},
    })
    assert list(config.ldapGroups) == ["a", "b"]
    assert config.labels[0].key == "k"
    assert config.instanceConfig[0].name == "zero"
    assert config.instanceConfig[1].name == "one"
    assert 2 not in config.instanceConfig
    assert config.respoolID.value == "/pool"


def test_value_wrapper_for_ids() -> None:
    pool, _ = parse_message({"parent": {"value": "root"}}, respool_pb2.ResourcePoolConfig)
    assert pool.parent.value == "root"


@pytest.mark.parametrize(("value", "expected"), [
    (1, mesos_pb2.ContainerInfo.DOCKER),
    ("DOCKER", mesos_pb2.ContainerInfo.DOCKER),
    ("mesos", mesos_pb2.ContainerInfo.MESOS),
    (2.0, mesos_pb2.ContainerInfo.MESOS),
])
def test_enum_accepts_numbers_and_names(value: Any, expected: int) -> None:
    info, _ = parse_message({"type": value}, mesos_pb2.ContainerInfo)
    assert info.type == expected


def test_numbers() -> None:
    res, _ = parse_message({"cpulimit": 1, "memlimitmb": 2.5, "fdlimit": 10.0, "gpulimit": "NaN"},
                           task_pb2.ResourceConfig)
    assert (res.cpuLimit, res.memLimitMb, res.fdLimit) == (1.0, 2.5, 10)
    assert math.isnan(res.gpuLimit)
    log = parse_job({"changelog": {"createdat": "5", "version": "7"}}).changeLog
    assert (log.createdAt, log.version) == (5, 7)
    duration, _ = parse_message({"nanoseconds": "-5"}, mesos_pb2.DurationInfo)
    assert duration.nanoseconds == -5


def test_string_field_takes_numbers_like_go_yaml() -> None:
    label = parse_job({"labels": [{"key": "port", "value": 80}]}).labels[0]
    assert label.value == "80"


def test_bytes() -> None:
    info, _ = parse_message({"data": "{\"a\": 1}"}, mesos_pb2.ExecutorInfo)
    assert info.data == b'{"a": 1}'
    info, _ = parse_message(load_yaml("data: !!binary aGk="), mesos_pb2.ExecutorInfo)
    assert info.data == b"hi"


def test_proto2_default_is_kept_when_absent() -> None:
    cmd, _ = parse_message({"value": "ls"}, mesos_pb2.CommandInfo)
    assert cmd.shell is True
    assert not cmd.HasField("shell")


def test_legacy_keys_warn_instead_of_failing() -> None:
    config, warnings = parse_message(
        {"sla": {"priority": 1, "minimumInstanceCount": 3}}, job_pb2.JobConfig,
        legacy={"sla.minimum_instance_count": "gone"})
    assert config.sla.priority == 1
    assert warnings == ["sla.minimuminstancecount: ignored key 'minimumInstanceCount': gone"]


def test_legacy_key_elsewhere_is_still_unknown() -> None:
    with pytest.raises(InvalidArgument) as e:
        parse_job({"minimuminstancecount": 3}, legacy={"sla.minimuminstancecount": "gone"})
    assert e.value.field == "minimuminstancecount"


ERRORS: list[tuple[str, Any, str, list[str]]] = [
    # (case, data, field, words in message)
    ("unknown key suggests", {"defaultconfig": {"resource": {"cpulimt": 1}}},
     "defaultconfig.resource.cpulimt", ["unknown key 'cpulimt'", "did you mean 'cpuLimit'?"]),
    ("unknown key in list", {"labels": [{"key": "a"}, {"kee": "b"}]},
     "labels[1].kee", ["unknown key 'kee'", "'key'"]),
    ("unknown key in map", {"instanceconfig": {3: {"nmae": "x"}}},
     "instanceconfig.3.nmae", ["did you mean 'name'?"]),
    ("unknown key far from all", {"zzzzzzzz": 1}, "zzzzzzzz",
     ["unknown key 'zzzzzzzz'", "known keys", "instanceCount"]),
    ("unknown key normalised path", {"defaultConfig": {"Bad_Key": 1}},
     "defaultconfig.badkey", ["unknown key 'Bad_Key'"]),
    ("string for int", {"instancecount": "ten"}, "instancecount",
     ["unsigned 32-bit integer", "string 'ten'"]),
    ("fraction for int", {"instancecount": 1.5}, "instancecount", ["integer", "1.5"]),
    ("bool for int", {"instancecount": True}, "instancecount", ["integer", "boolean"]),
    ("negative unsigned", {"instancecount": -1}, "instancecount", ["negative", "-1"]),
    ("too big for uint32", {"instancecount": 2**32}, "instancecount", ["out of range"]),
    ("string for number", {"defaultconfig": {"resource": {"cpulimit": "lots"}}},
     "defaultconfig.resource.cpulimit", ["expected a number"]),
    ("string for bool", {"sla": {"preemptible": "maybe"}}, "sla.preemptible",
     ["expected a boolean"]),
    ("bool for string", {"name": True}, "name", ["expected a string"]),
    ("list for string", {"name": ["a"]}, "name", ["expected a string", "a list"]),
    ("scalar for message", {"sla": 3}, "sla", ["expected a mapping", "SlaConfig"]),
    ("scalar for list", {"ldapgroups": "team"}, "ldapgroups", ["expected a list"]),
    ("null in list", {"labels": [None]}, "labels[0]", ["null"]),
    ("null in scalar list", {"ldapgroups": ["a", None]}, "ldapgroups[1]", ["null"]),
    ("bad enum name", {"type": "BACTH"}, "type",
     ["unknown value", "BACTH", "BATCH", "SERVICE", "DAEMON"]),
    ("bad enum number", {"type": 7}, "type", ["unknown value", "7", "BATCH (0)"]),
    ("bad enum in nested proto2", {"defaultconfig": {"container": {"type": 3}}},
     "defaultconfig.container.type", ["DOCKER (1)", "MESOS (2)"]),
    ("bad map key", {"instanceconfig": {"x": {}}}, "instanceconfig.x",
     ["unsigned 32-bit integer"]),
    ("negative map key", {"instanceconfig": {-1: {}}}, "instanceconfig.-1", ["negative"]),
    ("map key twice", {"instanceconfig": {0: {}, "0": {}}}, "instanceconfig.0",
     ["more than once"]),
    ("list for map", {"instanceconfig": [{}]}, "instanceconfig", ["expected a mapping"]),
    ("same field twice", {"instancecount": 1, "instanceCount": 2}, "instancecount",
     ["'instanceCount' repeats 'instancecount'"]),
    ("non-string key", {1: 2}, "1", ["must be a string"]),
    ("missing proto2 required", {"defaultconfig": {"container": {"docker": {"image": "x"}}}},
     "defaultconfig.container.type", ["missing required key 'type'"]),
    ("missing nested required",
     {"defaultconfig": {"container": {"type": 1, "volumes": [{"hostpath": "/x"}]}}},
     "defaultconfig.container.volumes[0].containerpath", ["missing required", "containerPath"]),
    ("document not a mapping", ["a"], "", ["expected a mapping", "JobConfig"]),
    ("empty document", None, "", ["expected a mapping", "null"]),
]


@pytest.mark.parametrize(("data", "field", "words"), [e[1:] for e in ERRORS],
                         ids=[e[0] for e in ERRORS])
def test_errors_name_path_and_problem(data: Any, field: str, words: list[str]) -> None:
    with pytest.raises(InvalidArgument) as e:
        parse_job(data)
    assert (e.value.field or "") == field
    for word in words:
        assert word in e.value.message


def test_path_prefix() -> None:
    with pytest.raises(InvalidArgument) as e:
        parse_message({"cpulimt": 1}, task_pb2.ResourceConfig, path="spec.resource")
    assert e.value.field == "spec.resource.cpulimt"


@pytest.mark.parametrize(("text", "words"), [
    ("name: a\n  bad: [", ["line 2", "column"]),
    ("a: b: c\n", ["line 1", "column 5"]),
    ("a: 1\na: 2\n", ["duplicate key 'a'", "line 2"]),
    ("x: [1, 2\n", ["invalid YAML", "line 2"]),
])
def test_yaml_syntax_errors_give_line_and_column(text: str, words: list[str]) -> None:
    with pytest.raises(InvalidArgument) as e:
        load_yaml(text)
    for word in words:
        assert word in e.value.message


def test_yaml_merge_keys_may_override() -> None:
    data = load_yaml("base: &b {a: 1, b: 2}\nchild:\n  <<: *b\n  b: 3\n")
    assert data["child"] == {"a": 1, "b": 3}


def test_yaml_from_path(tmp_path: Any) -> None:
    f = tmp_path / "x.yaml"
    f.write_text("a: 1\n")
    assert load_yaml(f) == {"a": 1}
    with pytest.raises(InvalidArgument) as e:
        load_yaml(tmp_path / "missing.yaml")
    assert "missing.yaml" in e.value.message


def test_normalise_key() -> None:
    assert normalise_key("Container_Path") == normalise_key("containerPath") == "containerpath"


def test_message_to_dict_round_trips() -> None:
    config = parse_job({
        "name": "j", "type": "SERVICE", "instancecount": 3,
        "changelog": {"version": 2**40, "createdat": 2**63},
        "labels": [{"key": "a", "value": "b"}],
        "defaultconfig": {
            "resource": {"cpulimit": 0.5},
            "command": {"value": "ls", "shell": False, "arguments": ["-l"]},
            "container": {"type": 1, "docker": {"image": "debian", "network": "BRIDGE"}},
            "executor": {"type": 2, "data": "payload"},
            "constraint": {"type": 2, "andconstraint": {"constraints": [
                {"type": 1, "labelconstraint": {"kind": 2, "condition": 2, "requirement": 1,
                                                "label": {"key": "h", "value": "x"}}}]}},
        },
        "instanceconfig": {0: {"name": "zero"}, 2: {"controller": True}},
        "sla": {},
    })
    plain = message_to_dict(config)
    assert plain["type"] == "SERVICE"
    assert plain["changeLog"]["version"] == 2**40
    assert list(plain["instanceConfig"]) == [0, 2]
    again, _ = parse_message(yaml.safe_load(yaml.safe_dump(plain)), job_pb2.JobConfig)
    assert again == config


def test_an_alias_bomb_is_refused_before_anything_walks_it() -> None:
    """Nine lines, a billion values: refused by counting, not expanded."""
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(8):
        name, prev = chr(98 + i), chr(97 + i)
        lines.append(f"{name}: &{name} [{', '.join([f'*{prev}'] * 10)}]")
    with pytest.raises(InvalidArgument, match="expands to more than 5000000 values"):
        load_yaml("\n".join(lines))


def test_a_document_too_large_or_too_deep_is_refused() -> None:
    with pytest.raises(InvalidArgument, match="has 16777217 bytes; at most 16777216"):
        load_yaml("#" * (16 * 1024 * 1024 + 1))
    with pytest.raises(InvalidArgument, match="maximum nesting depth"):
        load_yaml("a: " + "[" * 100_000 + "]" * 100_000)
