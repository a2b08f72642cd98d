"""v1alpha stateless JobSpec/PodSpec <-> v0 JobConfig/TaskConfig."""

from __future__ import annotations

import pathlib

import pytest

from peloton.api.mesos.v1 import mesos_pb2
from peloton.api.v0.job import job_pb2
from peloton.api.v0.task import task_pb2
from peloton.api.v1alpha.job.stateless import stateless_pb2 as sl
from peloton.api.v1alpha.pod import pod_pb2
from peloton.core.errors import InvalidArgument
from peloton.spec.v1alpha import (
    entity_version,
    job_config_of,
    job_spec_of,
    load_stateless_spec,
    parse_entity_version,
    pod_state,
    pod_status_of,
    task_state_of_pod,
    v1alpha_field,
)

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "peloton" / "examples"


def test_pelotons_example_spec_is_a_service_running_its_command() -> None:
    spec, warnings = load_stateless_spec(EXAMPLES / "stateless_testspec.yaml")
    config = job_config_of(spec)
    assert warnings == []
    assert config.type == job_pb2.SERVICE and config.instanceCount == 3
    assert config.owner == "testUser" and list(config.ldapGroups) == ["team6", "otto"]
    assert config.defaultConfig.command == mesos_pb2.CommandInfo(
        shell=True, value="while :; do echo running 3; sleep 10; done")
    assert config.defaultConfig.resource.cpuLimit == pytest.approx(0.1)


def test_an_entrypoint_alone_runs_and_mesos_shell_wraps_it() -> None:
    spec, _ = load_stateless_spec("""
instanceCount: 1
defaultSpec:
  containers:
  - entrypoint: {value: /bin/echo, arguments: [a, b]}
    environment: [{name: X, value: "1"}]
""")
    command = job_config_of(spec).defaultConfig.command
    assert (command.shell, command.value, list(command.arguments)) == (
        False, "/bin/echo", ["/bin/echo", "a", "b"])
    assert [(v.name, v.value) for v in command.environment.variables] == [("X", "1")]
    spec.default_spec.mesos_spec.shell = True
    command = job_config_of(spec).defaultConfig.command
    assert (command.shell, command.value) == (True, "/bin/echo a b")


@pytest.mark.parametrize(("change", "field"), [
    (lambda p: p.init_containers.add(), "spec.default_spec.init_containers"),
    (lambda p: p.containers.add(), "spec.default_spec.containers"),
    (lambda p: setattr(p.containers[0], "image", "nginx"), "spec.default_spec.containers[0].image"),
    (lambda p: p.containers[0].readiness_check.SetInParent(),
     "spec.default_spec.containers[0].readiness_check"),
    (lambda p: p.containers[0].volume_mounts.add(name="v"),
     "spec.default_spec.containers[0].volume_mounts"),
    (lambda p: p.mesos_spec.uris.add(value="http://x"), "spec.default_spec.mesos_spec.uris"),
    (lambda p: setattr(p.containers[0].liveness_check, "success_threshold", 2),
     "spec.default_spec.containers[0].liveness_check.success_threshold"),
    (lambda p: p.containers[0].ports.add(name="http", template_name="t"),
     "spec.default_spec.containers[0].ports[0].template_name"),
    (lambda p: p.containers[0].entrypoint.CopyFrom(pod_pb2.CommandSpec(value="/bin/true")),
     "spec.default_spec.containers[0].entrypoint"),
    (lambda p: p.host_ports.add(name="x"), "spec.default_spec.host_ports"),
])
def test_fields_no_backend_honours_are_refused_by_name(change, field) -> None:  # type: ignore[no-untyped-def]
    spec = sl.JobSpec(instance_count=1)
    container = spec.default_spec.containers.add()
    container.command.CopyFrom(mesos_pb2.CommandInfo(shell=True, value="sleep 1"))
    change(spec.default_spec)
    with pytest.raises(InvalidArgument) as raised:
        job_config_of(spec)
    assert raised.value.field == field


def test_a_v0_config_reads_back_as_the_spec_it_came_from() -> None:
    spec, _ = load_stateless_spec("""
name: web
instanceCount: 2
sla: {priority: 3, maximumUnavailableInstances: 1, revocable: false}
defaultSpec:
  labels: [{key: a, value: b}]
  containers:
  - resource: {cpuLimit: 0.5, memLimitMb: 64, fdLimit: 100}
    command: {shell: true, value: "sleep 600"}
    livenessCheck: {enabled: true, type: 1, commandCheck: {command: "true"}, intervalSecs: 2}
    ports: [{name: http, envName: PORT}]
  constraint: {type: 1, labelConstraint: {kind: 2, condition: 2, requirement: 1,
               label: {key: rack, value: r1}}}
instanceSpec:
  1: {containers: [{command: {shell: true, value: "sleep 60"}}]}
""")
    config = job_config_of(spec)
    assert config.defaultConfig.healthCheck.type == task_pb2.HealthCheckConfig.COMMAND
    assert config.defaultConfig.constraint.labelConstraint.label.value == "r1"
    assert config.defaultConfig.ports[0].envName == "PORT"
    back = job_spec_of(config)
    assert back.sla.maximum_unavailable_instances == 1
    assert back.default_spec.containers[0].liveness_check == (
        spec.default_spec.containers[0].liveness_check)
    assert back.default_spec.constraint == spec.default_spec.constraint
    assert back.default_spec.containers[0].resource == spec.default_spec.containers[0].resource
    assert back.instance_spec[1].containers[0].command.value == "sleep 60"


def test_versions_states_and_statuses() -> None:
    assert entity_version(3, 1, 2).value == "3-1-2"
    assert parse_entity_version(entity_version(3, 1, 2), "version") == (3, 1, 2)
    with pytest.raises(InvalidArgument, match="entity version"):
        parse_entity_version(entity_version(1, 0, 0).__class__(value="1-0"), "version")
    for state in task_pb2.TaskState.values():
        assert task_state_of_pod(pod_state(state), "s") == state
    runtime = task_pb2.RuntimeInfo(state=task_pb2.RUNNING, host="h1", healthy=task_pb2.HEALTHY,
                                   configVersion=2, desiredConfigVersion=3)
    runtime.mesosTaskId.value = "j-0-4"
    runtime.ports["http"] = 31000
    status = pod_status_of(runtime)
    assert status.state == pod_pb2.POD_STATE_RUNNING and status.pod_id.value == "j-0-4"
    assert (status.version.value, status.desired_version.value) == ("2-0-0", "3-0-0")
    assert status.containers_status[0].healthy.state == pod_pb2.HEALTH_STATE_HEALTHY
    assert status.containers_status[0].ports["http"] == 31000
    assert v1alpha_field("defaultConfig.resource") == "spec.default_spec.resource"
    assert v1alpha_field("sla.preemptible") == "spec.sla.preemptible"


def test_pelotons_spec_with_a_command_liveness_check_is_valid() -> None:
    """example/stateless/testspec_sla.yaml's shape (Peloton's CLI keys)."""
    from peloton.spec.job import validate_job_config

    spec, warnings = load_stateless_spec("""
name: TestSpec
owner: testUser
sla:
  maximumunavailableinstances: 2
instancecount: 4
defaultspec:
  containers:
  - resource: {cpulimit: 0.1, memlimitmb: 2.0, disklimitmb: 10}
    livenesscheck:
      type: 1
      enabled: true
      initialintervalsecs: 1
      intervalsecs: 3
      timeoutsecs: 5
      maxconsecutivefailures: 3
      commandcheck:
        command: 'ls'
    command:
      shell: true
      value: 'while :; do echo running 3; sleep 10; done'
""")
    config = job_config_of(spec)
    config.respoolID.value = "pool"
    validate_job_config(config, capabilities=frozenset())
    check = config.defaultConfig.healthCheck
    assert warnings == [] and config.sla.maximumUnavailableInstances == 2
    assert (check.type, check.commandCheck.command, check.intervalSecs,
            check.maxConsecutiveFailures) == (task_pb2.HealthCheckConfig.COMMAND, "ls", 3, 3)


def test_a_job_summary_reads_the_config_and_the_runtime() -> None:
    from peloton.api.v0.job import job_pb2 as v0job
    from peloton.spec.v1alpha import job_summary_of

    config = v0job.JobConfig(name="web", owner="o", instanceCount=3,
                             sla=v0job.SlaConfig(priority=2, maximumUnavailableInstances=1))
    config.labels.add(key="k", value="v")
    config.respoolID.value = "pool"
    runtime = v0job.RuntimeInfo(state=v0job.RUNNING, configurationVersion=2,
                                workflowVersion=1)
    runtime.taskStats["RUNNING"] = 3
    summary = job_summary_of("j", config, runtime)
    assert (summary.job_id.value, summary.name, summary.instance_count,
            summary.respool_id.value) == ("j", "web", 3, "pool")
    assert summary.sla.maximum_unavailable_instances == 1 and summary.labels[0].key == "k"
    assert summary.status.state == 3 and summary.status.version.value == "2-0-1"
    assert summary.status.pod_stats["POD_STATE_RUNNING"] == 3
