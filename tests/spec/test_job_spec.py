"""v0 job configs: Peloton's example files, validation rules, per-instance merge."""

from __future__ import annotations

import copy
import pathlib
from typing import Any

import pytest

from peloton.api.mesos.v1 import mesos_pb2
from peloton.api.v0.job import job_pb2
from peloton.core.errors import InvalidArgument
from peloton.spec.job import (
    DOCKER,
    MESOS_CONTAINERIZER,
    load_job_config,
    merged_task_config,
    task_name,
    validate_job_config,
)

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "peloton" / "examples"


def example(name: str) -> str:
    return (EXAMPLES / name).read_text()


# --------------------------------------------------------------------------- examples


def test_testjob_loads_with_two_legacy_warnings() -> None:
    config, warnings = load_job_config(example("testjob.yaml"))
    assert len(warnings) == 2
    assert any("minimuminstancecount" in w for w in warnings)
    assert any("minimuminstancepercent" in w for w in warnings)
    assert config.name == "TestPelotonJob_123"
    assert config.instanceCount == 10
    assert config.type == job_pb2.BATCH
    assert config.sla.priority == 22
    assert config.sla.maxRunningTime == 300
    assert list(config.ldapGroups) == ["money", "team6", "otto"]
    assert sorted(config.instanceConfig) == [0, 1, 2]


def test_testjob_instance_merge() -> None:
    config, _ = load_job_config(example("testjob.yaml"))
    zero = merged_task_config(config, 0)
    assert zero.controller
    assert zero.killGracePeriodSeconds == 40
    assert zero.command.value == "echo Hello instance 0 && sleep 100"
    assert zero.resource.cpuLimit == 1.0  # from the default
    five = merged_task_config(config, 5)
    assert five == config.defaultConfig
    assert five.command.value.startswith('echo "Job $PELOTON_JOB_ID')
    assert five.command.shell
    assert not five.controller
    assert 5 not in config.instanceConfig  # merging did not create an entry


def test_task_names() -> None:
    config, _ = load_job_config(example("testjob.yaml"))
    assert task_name(config, 0) == "controller0"
    assert task_name(config, 2) == "instance2"
    assert task_name(config, 7) == "TestPelotonJob_123-7"
    assert 7 not in config.instanceConfig


def test_the_service_example_loads_as_a_service() -> None:
    config, warnings = load_job_config(example("testjob_stateless_service.yaml"))
    assert config.type == job_pb2.SERVICE and config.instanceCount == 10
    assert config.defaultConfig.resource.fdLimit == 10 and not warnings


def test_helloworld_needs_docker() -> None:
    with pytest.raises(InvalidArgument) as e:
        load_job_config(example("helloworld_job.yaml"))
    assert e.value.field == "defaultconfig.container"
    assert "cannot run containers" in e.value.message
    assert "docker" in e.value.message
    assert "plain commands" in e.value.message  # what it can run

    config, _ = load_job_config(example("helloworld_job.yaml"), capabilities=frozenset({DOCKER}))
    container = config.defaultConfig.container
    assert container.type == mesos_pb2.ContainerInfo.DOCKER
    assert container.docker.image == "debian"
    assert [p.value for p in container.docker.parameters] == [
        "MESSAGE=HelloWorld", "SLEEP_SECONDS=300"]
    assert container.volumes[0].container_path == "/tmp"
    assert container.volumes[0].mode == mesos_pb2.Volume.RW


def test_v1alpha_spec_is_not_a_v0_job() -> None:
    with pytest.raises(InvalidArgument) as e:
        load_job_config(example("stateless_testspec.yaml"))
    assert e.value.field == "defaultspec"
    assert "v1alpha" in e.value.message


def test_source_may_be_parsed_data_or_path() -> None:
    config, _ = load_job_config({"instanceCount": 1,
                                 "defaultConfig": {"command": {"value": "true"},
                                                   "resource": {"cpuLimit": 1}}})
    assert config.instanceCount == 1
    config, _ = load_job_config(EXAMPLES / "testjob.yaml")
    assert config.name == "TestPelotonJob_123"


def test_unknown_key_in_job_file() -> None:
    text = example("testjob.yaml").replace("cpulimit: 1.0", "cpulimt: 1.0")
    with pytest.raises(InvalidArgument) as e:
        load_job_config(text)
    assert e.value.field == "defaultconfig.resource.cpulimt"
    assert "did you mean 'cpuLimit'?" in e.value.message


def test_yaml_syntax_error_in_job_file() -> None:
    with pytest.raises(InvalidArgument) as e:
        load_job_config("name: x\ninstancecount: [1\n")
    assert "line" in e.value.message and "column" in e.value.message


# --------------------------------------------------------------------------- validation

BASE: dict[str, Any] = {
    "name": "j",
    "instancecount": 3,
    "defaultconfig": {
        "resource": {"cpulimit": 1, "memlimitmb": 10},
        "command": {"value": "sleep 1"},
    },
}


def job(**changes: Any) -> dict[str, Any]:
    """BASE with dotted-path changes: job(**{"sla.priority": 3}); None deletes."""
    data = copy.deepcopy(BASE)
    for dotted, value in changes.items():
        *parents, last = dotted.split(".")
        node: Any = data
        for p in parents:
            node = node.setdefault(int(p) if p.isdigit() else p, {})
        if value is None:
            node.pop(last, None)
        else:
            node[int(last) if last.isdigit() else last] = value
    return data


SERVICE = {"type": "SERVICE"}
CMD = {"value": "true"}

INVALID: list[tuple[str, dict[str, Any], str, list[str]]] = [
    ("no instances", job(instancecount=0), "instancecount", ["at least one"]),
    # Text: names printable, nothing that reaches exec holds a NUL.
    ("NUL in the job name", job(name="a\0b"), "name", ["control character", "printable"]),
    ("newline in a label key", job(labels=[{"key": "a\nb", "value": "v"}]), "labels[0].key",
     ["control character"]),
    ("NUL in a command", job(**{"defaultconfig.command": {"value": "echo a\0b"}}),
     "defaultconfig.command.value", ["NUL"]),
    ("NUL in an argument", job(**{"defaultconfig.command": {
        "shell": False, "value": "/bin/echo", "arguments": ["a\0"]}}),
     "defaultconfig.command.arguments[0]", ["NUL"]),
    ("'=' in an environment name", job(**{"defaultconfig.command": {
        "value": "true", "environment": {"variables": [{"name": "A=B", "value": "1"}]}}}),
     "defaultconfig.command.environment.variables[0].name", ["'='"]),
    ("NUL in an environment value", job(**{"defaultconfig.command": {
        "value": "true", "environment": {"variables": [{"name": "A", "value": "\0"}]}}}),
     "defaultconfig.command.environment.variables[0].value", ["NUL"]),
    ("half a GPU", job(**{"defaultconfig.resource.gpulimit": 0.5}),
     "defaultconfig.resource.gpulimit", ["0.5", "whole GPU devices"]),
    ("more cpu than any pool holds", job(**{"defaultconfig.resource.cpulimit": 1e300}),
     "defaultconfig.resource.cpulimit", ["1e+300", "1e+12"]),
    ("more open files than Linux allows", job(**{"defaultconfig.resource.fdlimit": 2**32 - 1}),
     "defaultconfig.resource.fdlimit", ["4294967295", "1048576"]),
    ("a day and more of kill grace", job(**{"defaultconfig.killgraceperiodseconds": 4294967295}),
     "defaultconfig.killgraceperiodseconds", ["4294967295", "more than a day"]),
    # Ports: valid and satisfiable.
    ("port name twice", job(**{"defaultconfig.ports": [{"name": "a", "envname": "A"}, {"name": "a", "envname": "B"}]}),
     "defaultconfig.ports[1].name", ["'a' is used twice", "ports[0]"]),
    ("static port twice", job(**{"defaultconfig.ports": [{"name": "a", "value": 80}, {"name": "b", "value": 80}]}),
     "defaultconfig.ports[1].value", ["80 is used twice"]),
    ("envName twice", job(**{"defaultconfig.ports": [{"name": "a", "envname": "A"}, {"name": "b", "envname": "A"}]}),
     "defaultconfig.ports[1].envname", ["'A' is used twice"]),
    ("port above 65535", job(**{"defaultconfig.ports": [{"name": "a", "value": 70000}]}), "defaultconfig.ports[0].value",
     ["70000", "1..65535"]),
    ("more dynamic ports than a lease offers", job(**{"defaultconfig.ports": [
        {"name": f"p{i}", "envname": f"P{i}"} for i in range(101)]}), "defaultconfig.ports",
     ["101 dynamic ports", "at most 100"]),
    ("too many instances", job(instancecount=100_001), "instancecount", ["100000"]),
    ("override outside the job", job(**{"instanceconfig.3": {"name": "x"}}),
     "instanceconfig.3", ["instance 3", "outside"]),
    ("no default command", job(**{"defaultconfig.command": None}),
     "defaultconfig.command", ["no command"]),
    ("empty shell command", job(**{"defaultconfig.command": {"value": "  "}}),
     "defaultconfig.command", ["empty"]),
    ("override without command, no default",
     job(**{"defaultconfig.command": None, "instancecount": 1, "instanceconfig.0": {"name": "a"}}),
     "instanceconfig.0.command", ["instance 0", "no command"]),
    ("empty command in override", job(**{"instanceconfig.1": {"command": {"value": ""}}}),
     "instanceconfig.1.command", ["instance 1", "empty"]),
    ("some instances lack command",
     job(**{"defaultconfig.command": None, "instanceconfig.0": {"command": CMD},
            "instanceconfig.2": {"command": CMD}}),
     "defaultconfig.command", ["instance 1"]),
    ("controller on instance 1", job(**{"instanceconfig.1": {"controller": True}}),
     "instanceconfig.1.controller", ["only instance 0", "instance 1"]),
    ("controller in default", job(**{"defaultconfig.controller": True}),
     "defaultconfig.controller", ["only instance 0"]),
    ("port without name", job(**{"defaultconfig.ports": [{"value": 80}]}),
     "defaultconfig.ports[0].name", ["name"]),
    ("dynamic port without env", job(**{"defaultconfig.ports": [
        {"name": "http", "value": 80}, {"name": "admin"}]}),
     "defaultconfig.ports[1].envname", ["envName", "admin"]),
    ("batch health check", job(**{"instanceconfig.2": {"healthcheck": {"enabled": True}}}),
     "instanceconfig.2.healthcheck", ["batch", "health check"]),
    ("batch executor", job(**{"defaultconfig.executor": {"type": "CUSTOM", "data": "x"}}),
     "defaultconfig.executor", ["batch", "executor"]),
    ("max running above instances", job(**{"sla.maximumrunninginstances": 4}),
     "sla.maximumrunninginstances", ["4", "instanceCount 3"]),
    ("min running above max", job(**{"sla.maximumrunninginstances": 2,
                                     "sla.minimumrunninginstances": 3}),
     "sla.minimumrunninginstances", ["3", "2"]),
    ("gang too big", job(**{"instancecount": 3000, "sla.minimumrunninginstances": 2500}),
     "sla.minimumrunninginstances", ["2500", "2000"]),
    ("preemption override inside gang", job(**{
        "sla.minimumrunninginstances": 2,
        "instanceconfig.1": {"preemptionpolicy": {"type": "TYPE_NON_PREEMPTIBLE"}}}),
     "instanceconfig.1.preemptionpolicy", ["gang"]),
    ("too many restarts", job(**{"defaultconfig.restartpolicy": {"maxfailures": 101}}),
     "defaultconfig.restartpolicy.maxfailures", ["101", "100"]),
    ("negative memory", job(**{"defaultconfig.resource.memlimitmb": -1}),
     "defaultconfig.resource.memlimitmb", ["non-negative"]),
    ("negative gpu in override",
     job(**{"instanceconfig.0": {"resource": {"cpulimit": 1, "gpulimit": -1}}}),
     "instanceconfig.0.resource.gpulimit", ["non-negative"]),
    ("infinite disk", job(**{"defaultconfig.resource.disklimitmb": float("inf")}),
     "defaultconfig.resource.disklimitmb", ["non-negative"]),
    ("no cpu", job(**{"defaultconfig.resource.cpulimit": 0}),
     "defaultconfig.resource.cpulimit", ["cpu"]),
    ("no resource at all", job(**{"defaultconfig.resource": None}),
     "defaultconfig.resource.cpulimit", ["cpu"]),
    ("names only, default lacks cpu", job(instancecount=2, **{
        "defaultconfig.resource.cpulimit": 0, "instanceconfig.0": {"name": "a"},
        "instanceconfig.1": {"name": "b"}}),
     "defaultconfig.resource.cpulimit", ["instance 0", "cpu"]),
    ("override zeroes cpu", job(**{"instanceconfig.1": {"resource": {"memlimitmb": 5}}}),
     "instanceconfig.1.resource.cpulimit", ["instance 1", "cpu"]),
    ("service max running time", job(**SERVICE, **{"sla.maxrunningtime": 10}),
     "sla.maxrunningtime", ["service"]),
    ("service min running", job(**SERVICE, **{"sla.minimumrunninginstances": 1}),
     "sla.minimumrunninginstances", ["service"]),
    ("service max running", job(**SERVICE, **{"sla.maximumrunninginstances": 1}),
     "sla.maximumrunninginstances", ["service"]),
    ("batch max unavailable", job(**{"sla.maximumunavailableinstances": 1}),
     "sla.maximumunavailableinstances", ["service job", "batch jobs do not support it"]),
    ("service kill on preempt", job(**SERVICE, **{
        "defaultconfig.preemptionpolicy": {"killonpreempt": True}}),
     "defaultconfig.preemptionpolicy.killonpreempt", ["killOnPreempt"]),
    ("service revocable not preemptible", job(**SERVICE, **{"sla.revocable": True}),
     "sla.revocable", ["preemptible"]),
    ("service executor not custom", job(**SERVICE, **{
        "defaultconfig.executor": {"type": "DEFAULT"}}),
     "defaultconfig.executor", ["CUSTOM"]),
    ("daemon job with instances", job(type="DAEMON"), "instancecount",
     ["one instance on every host that fits"]),
    ("unknown job type", job(type=99), "type", ["unknown value", "99"]),
    ("service custom executor", job(**SERVICE, **{
        "defaultconfig.executor": {"type": "CUSTOM", "data": "{}"}}),
     "defaultconfig.executor.data", ["not supported yet", "custom executor"]),
    ("batch health check", job(**{"instanceconfig.1": {
        "healthcheck": {"intervalsecs": 10}}}),
     "instanceconfig.1.healthcheck", ["batch tasks cannot have a health check"]),
    ("disabled health check with settings", job(**SERVICE, **{"defaultconfig.healthcheck": {
        "intervalsecs": 10}}), "defaultconfig.healthcheck.intervalsecs", ["not enabled"]),
    ("health check without a type", job(**SERVICE, **{"defaultconfig.healthcheck": {
        "enabled": True}}), "defaultconfig.healthcheck.type", ["COMMAND or HTTP"]),
    ("grpc health check", job(**SERVICE, **{"defaultconfig.healthcheck": {
        "enabled": True, "type": "GRPC"}}), "defaultconfig.healthcheck.type",
     ["not supported yet", "GRPC"]),
    ("command check without a command", job(**SERVICE, **{"defaultconfig.healthcheck": {
        "enabled": True, "type": "COMMAND"}}),
     "defaultconfig.healthcheck.commandcheck.command", ["needs a command"]),
    ("http check without a port", job(**SERVICE, **{"defaultconfig.healthcheck": {
        "enabled": True, "type": "HTTP", "httpcheck": {"path": "/health"}}}),
     "defaultconfig.healthcheck.httpcheck.port", ["1 to 65535"]),
    ("https check", job(**SERVICE, **{"defaultconfig.healthcheck": {
        "enabled": True, "type": "HTTP", "httpcheck": {"port": 8080, "scheme": "https"}}}),
     "defaultconfig.healthcheck.httpcheck.scheme", ["not supported yet"]),
    ("http check with a command", job(**SERVICE, **{"defaultconfig.healthcheck": {
        "enabled": True, "type": "HTTP", "httpcheck": {"port": 8080},
        "commandcheck": {"command": "true"}}}),
     "defaultconfig.healthcheck.commandcheck", ["ignored"]),
    ("volume outside the sandbox", job(**{"instanceconfig.2": {
        "volume": {"containerpath": "/data", "sizemb": 10}}}),
     "instanceconfig.2.volume.containerpath", ["inside the sandbox"]),
    ("volume climbing out", job(**{"instanceconfig.2": {
        "volume": {"containerpath": "a/../../b", "sizemb": 10}}}),
     "instanceconfig.2.volume.containerpath", ["without '..'"]),
    ("volume without a size", job(**{"defaultconfig.volume": {"containerpath": "data"}}),
     "defaultconfig.volume.sizemb", ["needs a size"]),
    ("command user", job(**{"defaultconfig.command.user": "root"}),
     "defaultconfig.command.user", ["not supported yet", "user"]),
    ("volume without a container", job(**{"defaultconfig.container": {
        "type": "MESOS", "volumes": [{"containerpath": "/x", "hostpath": "/x", "mode": 1}]}}),
     "defaultconfig.container.volumes", ["plain process"]),
    ("docker by type", job(**{"defaultconfig.container": {"type": "DOCKER"}}),
     "defaultconfig.container", ["cannot run containers", "docker"]),
    ("docker info in override", job(**{"instanceconfig.2": {
        "container": {"type": "MESOS", "docker": {"image": "debian"}}}}),
     "instanceconfig.2.container", ["cannot run containers", "docker"]),
    ("mesos image", job(**{"defaultconfig.container": {
        "type": 2, "mesos": {"image": {"type": 2, "docker": {"name": "nvidia/cuda"}}}}}),
     "defaultconfig.container", ["cannot run containers", "mesos-containerizer"]),
    ("constraint without a type", job(**{"defaultconfig.constraint": {"labelconstraint": {
        "kind": "HOST", "condition": "CONDITION_EQUAL", "label": {"key": "zone", "value": "a"},
        "requirement": 1}}}), "defaultconfig.constraint.type", ["needs a type"]),
    ("label constraint without a kind", job(**{"defaultconfig.constraint": {
        "type": "LABEL_CONSTRAINT", "labelconstraint": {
            "condition": "CONDITION_EQUAL", "label": {"key": "zone"}}}}),
     "defaultconfig.constraint.labelconstraint.kind", ["TASK", "HOST"]),
    ("label constraint without a condition", job(**{"instanceconfig.1.constraint": {
        "type": "LABEL_CONSTRAINT", "labelconstraint": {"kind": "TASK", "label": {"key": "k"}}}}),
     "instanceconfig.1.constraint.labelconstraint.condition", ["CONDITION_EQUAL"]),
    ("label constraint without a key", job(**{"defaultconfig.constraint": {
        "type": "LABEL_CONSTRAINT", "labelconstraint": {
            "kind": "HOST", "condition": "CONDITION_EQUAL"}}}),
     "defaultconfig.constraint.labelconstraint.label", ["label key"]),
    ("and constraint with a label constraint", job(**{"defaultconfig.constraint": {
        "type": "AND_CONSTRAINT", "labelconstraint": {"kind": "HOST"}}}),
     "defaultconfig.constraint.labelconstraint", ["AND_CONSTRAINT has no", "ignored"]),
    ("empty or constraint", job(**{"defaultconfig.constraint": {
        "type": "OR_CONSTRAINT", "orconstraint": {"constraints": []}}}),
     "defaultconfig.constraint.orconstraint.constraints", ["at least one"]),
    ("bad constraint inside an and", job(**{"defaultconfig.constraint": {
        "type": "AND_CONSTRAINT", "andconstraint": {"constraints": [
            {"type": "LABEL_CONSTRAINT", "labelconstraint": {
                "kind": "HOST", "condition": "CONDITION_EQUAL", "label": {"key": "a"}}},
            {"type": "LABEL_CONSTRAINT", "labelconstraint": {"kind": "HOST"}}]}}}),
     "defaultconfig.constraint.andconstraint.constraints[1].labelconstraint.condition",
     ["condition"]),
]


@pytest.mark.parametrize(("data", "field", "words"), [c[1:] for c in INVALID],
                         ids=[c[0] for c in INVALID])
def test_invalid_jobs(data: dict[str, Any], field: str, words: list[str]) -> None:
    with pytest.raises(InvalidArgument) as e:
        load_job_config(data)
    assert e.value.field == field
    for word in words:
        assert word in e.value.message


VALID: list[tuple[str, dict[str, Any], frozenset[str]]] = [
    ("base", job(), frozenset()),
    ("memory may be zero", job(**{"defaultconfig.resource.memlimitmb": 0}), frozenset()),
    ("controller on instance 0", job(**{"instanceconfig.0": {"controller": True}}), frozenset()),
    ("controller default, one instance", job(instancecount=1, **{
        "defaultconfig.controller": True}), frozenset()),
    ("every instance overrides command", job(**{
        "defaultconfig.command": None, "instanceconfig.0": {"command": CMD},
        "instanceconfig.1": {"command": CMD}, "instanceconfig.2": {"command": CMD}}),
     frozenset()),
    ("non-shell command may be empty", job(**{
        "defaultconfig.command": {"shell": False, "arguments": ["x"]}}), frozenset()),
    ("static port needs no env", job(**{"defaultconfig.ports": [{"name": "p", "value": 80}]}),
     frozenset()),
    ("dynamic port with env", job(**{"defaultconfig.ports": [{"name": "p", "envname": "P"}]}),
     frozenset()),
    ("batch health check disabled", job(**{"defaultconfig.healthcheck": {"enabled": False}}),
     frozenset()),
    ("batch kill on preempt", job(**{"defaultconfig.preemptionpolicy": {"killonpreempt": True}}),
     frozenset()),
    ("batch max running time", job(**{"sla.maxrunningtime": 10}), frozenset()),
    ("service max unavailable", job(**SERVICE, **{"sla.maximumunavailableinstances": 1}),
     frozenset()),
    ("gang and max", job(**{"sla.minimumrunninginstances": 2,
                            "sla.maximumrunninginstances": 3}), frozenset()),
    ("preemption override outside gang", job(**{
        "sla.minimumrunninginstances": 1,
        "instanceconfig.2": {"preemptionpolicy": {"type": 1}}}), frozenset()),
    ("restart limit", job(**{"defaultconfig.restartpolicy": {"maxfailures": 100}}), frozenset()),
    ("mesos container without image", job(**{"defaultconfig.container": {"type": 2}}),
     frozenset()),
    ("docker allowed", job(**{"defaultconfig.container": {"type": 1, "docker": {"image": "x"}}}),
     frozenset({DOCKER})),
    ("mesos image allowed", job(**{"defaultconfig.container": {
        "type": 2, "mesos": {"image": {"type": 2, "docker": {"name": "x"}}}}}),
     frozenset({MESOS_CONTAINERIZER})),
]


@pytest.mark.parametrize(("data", "capabilities"), [c[1:] for c in VALID],
                         ids=[c[0] for c in VALID])
def test_valid_jobs(data: dict[str, Any], capabilities: frozenset[str]) -> None:
    load_job_config(data, capabilities=capabilities)


def test_mesos_image_needs_its_own_capability() -> None:
    data = job(**{"defaultconfig.container": {
        "type": 2, "mesos": {"image": {"type": 2, "docker": {"name": "x"}}}}})
    with pytest.raises(InvalidArgument) as e:
        load_job_config(data, capabilities=frozenset({DOCKER}))
    assert "it can run: docker" in e.value.message


def test_max_tasks_per_job_is_configurable() -> None:
    config, _ = load_job_config(job())
    with pytest.raises(InvalidArgument) as e:
        validate_job_config(config, capabilities=frozenset(), max_tasks_per_job=2)
    assert e.value.field == "instancecount"


def test_a_config_that_passed_passes_again_without_its_check(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The same config's bytes with the same capabilities and limit pass
    from memory; any other config, capability set or limit is checked, and
    a config that failed fails again (only passes are remembered)."""
    from peloton.spec import job as spec_job

    checked: list[int] = []
    real = spec_job._validate_job_config

    def counting(config: job_pb2.JobConfig, capabilities: frozenset[str], most: int) -> None:
        checked.append(config.instanceCount)
        real(config, capabilities, most)

    monkeypatch.setattr(spec_job, "_validate_job_config", counting)
    monkeypatch.setattr(spec_job, "_passed", type(spec_job._passed)())
    config, _ = load_job_config(job(**{"instancecount": 7}))
    checked.clear()
    for _ in range(3):
        validate_job_config(config, capabilities=frozenset())
    assert checked == []  # load_job_config's check passed it
    validate_job_config(config, capabilities=frozenset({DOCKER}))
    assert checked == [7]
    with pytest.raises(InvalidArgument):
        validate_job_config(config, capabilities=frozenset(), max_tasks_per_job=2)
    with pytest.raises(InvalidArgument):
        validate_job_config(config, capabilities=frozenset(), max_tasks_per_job=2)
    assert checked == [7, 7, 7]
    docker, _ = load_job_config(job(**{"defaultconfig.container": {
        "type": 1, "docker": {"image": "x"}}}), capabilities=frozenset({DOCKER}))
    with pytest.raises(InvalidArgument, match="cannot run containers"):
        validate_job_config(docker, capabilities=frozenset())  # passed with docker only
    config.instanceCount = 8  # another config: checked
    validate_job_config(config, capabilities=frozenset())
    assert checked[-1] == 8
    # The same config under another name and labels passes from memory,
    # and its name and labels are still checked.
    checked.clear()
    config.name = "another"
    config.labels.add(key="team", value="x")
    validate_job_config(config, capabilities=frozenset())
    assert checked == []
    config.name = "bad\nname"
    with pytest.raises(InvalidArgument) as e:
        validate_job_config(config, capabilities=frozenset())
    assert e.value.field == "name" and checked == []
    config.name = "fine"
    config.labels[0].key = "x" * 2000
    with pytest.raises(InvalidArgument) as e:
        validate_job_config(config, capabilities=frozenset())
    assert e.value.field == "labels[0].key"


def test_remembered_configs_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from peloton.spec import job as spec_job

    monkeypatch.setattr(spec_job, "_passed", type(spec_job._passed)())
    monkeypatch.setattr(spec_job, "PASSED_KEPT", 3)
    configs = [load_job_config(job(**{"instancecount": n}))[0] for n in range(1, 6)]
    assert [len(key[0]) > 0 for key in spec_job._passed] == [True] * 3
    kept = {job_pb2.JobConfig.FromString(key[0]).instanceCount for key in spec_job._passed}
    assert kept == {3, 4, 5}  # the oldest went
    big = configs[0]
    big.defaultConfig.command.value = "x" * spec_job.PASSED_MAX_BYTES
    validate_job_config(big, capabilities=frozenset())
    assert len(spec_job._passed) == 3 and all(len(k[0]) < 4096 for k in spec_job._passed)


def test_override_replaces_whole_fields() -> None:
    config, _ = load_job_config(job(**{
        "defaultconfig.labels": [{"key": "a", "value": "1"}, {"key": "b", "value": "2"}],
        "defaultconfig.resource": {"cpulimit": 2, "memlimitmb": 100},
        "instanceconfig.1": {"labels": [{"key": "c", "value": "3"}],
                             "resource": {"cpulimit": 1}, "killgraceperiodseconds": 5}}))
    merged = merged_task_config(config, 1)
    assert [label.key for label in merged.labels] == ["c"]
    assert merged.resource.cpuLimit == 1
    assert merged.resource.memLimitMb == 0  # message fields replace whole, no deep merge
    assert merged.killGracePeriodSeconds == 5
    assert merged.command == config.defaultConfig.command
    assert [label.key for label in config.defaultConfig.labels] == ["a", "b"]  # untouched


def test_large_job_validates_in_time_proportional_to_overrides() -> None:
    # 100k instances with one override: the default is checked once, not 100k times.
    config, _ = load_job_config(job(instancecount=100_000, **{
        "instanceconfig.0": {"controller": True}}))
    assert config.instanceCount == 100_000


def _nested_constraint(levels: int) -> dict[str, Any]:
    c: dict[str, Any] = {"type": "LABEL_CONSTRAINT", "labelconstraint": {
        "kind": "HOST", "condition": "CONDITION_EQUAL", "label": {"key": "a", "value": "b"},
        "requirement": 1}}
    for _ in range(levels - 1):
        c = {"type": "AND_CONSTRAINT", "andconstraint": {"constraints": [c]}}
    return c


def test_constraints_nest_at_most_sixteen_levels() -> None:
    """Deeper ones would not even decode on the server (protobuf stops at 100
    message levels); far deeper ones overflowed the parser's stack (a
    RecursionError traceback from the CLI)."""
    load_job_config(job(**{"defaultconfig.constraint": _nested_constraint(16)}))
    with pytest.raises(InvalidArgument) as caught:
        load_job_config(job(**{"defaultconfig.constraint": _nested_constraint(17)}))
    assert caught.value.message == "constraints nest more than 16 levels deep"
    assert caught.value.field == "defaultconfig.constraint" + (
        ".andconstraint.constraints[0]" * 16)
    with pytest.raises(InvalidArgument, match="nests messages too deep"):
        load_job_config(job(**{"defaultconfig.constraint": _nested_constraint(400)}))


def test_an_override_of_light_fields_alone_is_checked_too() -> None:
    """Found by the fuzz: an instanceConfig that set only killGracePeriodSeconds
    (or a name, or labels) skipped the task checks, as the default's verdict
    stood for it."""
    with pytest.raises(InvalidArgument) as caught:
        load_job_config(job(**{"instanceconfig.1": {"killgraceperiodseconds": 100_001}}))
    assert caught.value.field == "instanceconfig.1.killgraceperiodseconds"
    with pytest.raises(InvalidArgument) as caught:
        load_job_config(job(**{"instanceconfig.2": {"name": "a\0b"}}))
    assert caught.value.field == "instanceconfig.2.name"
