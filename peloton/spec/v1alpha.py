"""Peloton's v1alpha stateless job and pod messages, as the v0 ones we store.

A v1alpha stateless job is a v0 ``SERVICE`` job (Peloton keeps one store for
both views, ``pkg/jobmgr/util/handler/api_converter.go``): a ``JobSpec``
becomes a ``JobConfig``, a ``PodSpec`` a ``TaskConfig``, and the status
messages are read back from the v0 runtimes. Where a v1alpha message has the
same wire as its v0 counterpart (resources, constraints, health checks,
ports, labels, volumes), it is copied byte for byte.

Fields of a ``PodSpec`` that no host backend can honour are refused naming
the field, never dropped: init containers, more than one container,
readiness checks, images, volume mounts and pod volumes, Mesos container
settings beyond ``shell``, host ports and port templates.

A container's ``entrypoint`` (Kubernetes' program and arguments) is the
command it runs when ``command`` is not given; ``mesos_spec.shell`` runs it
with ``/bin/sh -c``. When both are given they must run the same program
(``/bin/sh -c X`` is the shell command ``X``), as Peloton's own
``stateless_testspec.yaml`` writes them.
"""

from __future__ import annotations

import shlex
from typing import Any, TypeVar

from google.protobuf.message import Message

from peloton.api.mesos.v1 import mesos_pb2
from peloton.api.v0.job import job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.query import query_pb2
from peloton.api.v0.task import task_pb2
from peloton.api.v0.update import update_pb2
from peloton.api.v1alpha.job.stateless import stateless_pb2 as sl
from peloton.api.v1alpha.peloton import peloton_pb2 as v1
from peloton.api.v1alpha.pod import pod_pb2
from peloton.api.v1alpha.query import query_pb2 as v1query
from peloton.core.errors import InvalidArgument
from peloton.core.states import TaskState

M = TypeVar("M", bound=Message)

__all__ = [
    "entity_version", "job_config_of", "job_spec_of", "job_status_of", "parse_entity_version",
    "pod_config_of", "pod_name", "pod_spec_of", "pod_state", "pod_status_of",
    "task_state_of_pod", "workflow_status_of",
]

UPDATE = sl.WORKFLOW_TYPE_UPDATE
RESTART = sl.WORKFLOW_TYPE_RESTART


def _wire(source: Message, kind: type[M]) -> M:
    """``source`` read as ``kind``: for messages whose wire is the same."""
    return kind.FromString(source.SerializeToString())


# -- versions -----------------------------------------------------------------

def entity_version(config_version: int, desired_state_version: int,
                   workflow_version: int) -> v1.EntityVersion:
    """A job's EntityVersion, as Peloton spells it:
    ``<configVersion>-<desiredStateVersion>-<workflowVersion>``."""
    return v1.EntityVersion(value=f"{config_version}-{desired_state_version}-{workflow_version}")


def pod_entity_version(config_version: int) -> v1.EntityVersion:
    return v1.EntityVersion(value=f"{config_version}-0-0")


def parse_entity_version(version: v1.EntityVersion, field: str) -> tuple[int, int, int]:
    parts = version.value.split("-")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise InvalidArgument(f"{version.value!r} is not an entity version "
                              "(<configVersion>-<desiredStateVersion>-<workflowVersion>)",
                              field=field)
    a, b, c = map(int, parts)
    return a, b, c


# -- states -------------------------------------------------------------------

def pod_state(state: int) -> int:
    """v0 TaskState -> v1alpha PodState (the names match; the numbers do not)."""
    name = task_pb2.TaskState.Name(state)  # type: ignore[arg-type]
    return 0 if name == "UNKNOWN" else pod_pb2.PodState.Value(f"POD_STATE_{name}")


def task_state_of_pod(state: int, field: str) -> int:
    """v1alpha PodState -> v0 TaskState."""
    try:
        name = pod_pb2.PodState.Name(state).removeprefix("POD_STATE_")  # type: ignore[arg-type]
    except ValueError:
        raise InvalidArgument(f"{state} is not a pod state", field=field) from None
    return 0 if name == "INVALID" else task_pb2.TaskState.Value(name)


# -- specs -> configs ---------------------------------------------------------

def _argv(command: mesos_pb2.CommandInfo) -> list[str]:
    if command.shell:
        return ["/bin/sh", "-c", command.value]
    return list(command.arguments) or [command.value]


def _command(pod: pod_pb2.PodSpec, container: pod_pb2.ContainerSpec,
             at: str) -> mesos_pb2.CommandInfo | None:
    command = container.command if container.HasField("command") else None
    if container.HasField("entrypoint"):
        entry = container.entrypoint
        if not entry.value:
            raise InvalidArgument("an entrypoint needs a value (the program)",
                                  field=f"{at}.entrypoint.value")
        if pod.mesos_spec.shell:
            script = " ".join([entry.value, *map(shlex.quote, entry.arguments)])
            from_entry = mesos_pb2.CommandInfo(shell=True, value=script)
        else:
            from_entry = mesos_pb2.CommandInfo(shell=False, value=entry.value,
                                               arguments=[entry.value, *entry.arguments])
        if command is None:
            command = from_entry
        elif _argv(command) != _argv(from_entry):
            raise InvalidArgument(
                f"the entrypoint runs {_argv(from_entry)!r} but the command runs "
                f"{_argv(command)!r}; give one, or both for the same program",
                field=f"{at}.entrypoint")
    if container.environment:
        command = command if command is not None else mesos_pb2.CommandInfo()
        for j, variable in enumerate(container.environment):
            if not variable.name:
                raise InvalidArgument("an environment variable needs a name",
                                      field=f"{at}.environment[{j}].name")
            command.environment.variables.add(name=variable.name, value=variable.value)
    return command


# PodSpec fields with no effect in any host backend, refused by name.
_POD_REFUSED = {
    "init_containers": "init containers are not supported",
    "volumes": "pod volumes are not supported (a stateful pod keeps a persistent `volume`)",
    "host_ports": "host ports are not supported; give the container `ports`",
}
_CONTAINER_REFUSED = {
    "readiness_check": "readiness checks are not run; a liveness check's HEALTHY is what "
                       "counts as available during updates",
    "image": "container images are not supported (no container runtime): the command runs "
             "on the host",
    "volume_mounts": "volume mounts are not supported",
}
_CHECK_REFUSED = {
    "success_threshold": "a success threshold is not supported",
    "command": "give command_check.command",
    "http_get": "give http_check",
}


def pod_config_of(pod: pod_pb2.PodSpec, at: str) -> task_pb2.TaskConfig:
    """A v1alpha PodSpec as the v0 TaskConfig it stands for; ``at`` is the
    spec's path in the request, for errors."""
    for name, why in _POD_REFUSED.items():
        if getattr(pod, name):
            raise InvalidArgument(why, field=f"{at}.{name}")
    mesos = pod.mesos_spec
    for name in ("type", "docker_parameters", "uris", "executor_spec", "network_spec"):
        value = getattr(mesos, name)
        if (mesos.HasField(name) if name in ("executor_spec", "network_spec") else value):
            raise InvalidArgument("of mesos_spec only `shell` is supported (tasks run as "
                                  "processes on the host)", field=f"{at}.mesos_spec.{name}")
    if len(pod.containers) > 1:
        raise InvalidArgument("one container per pod is supported",
                              field=f"{at}.containers")
    out = task_pb2.TaskConfig(name=pod.pod_name.value, controller=pod.controller,
                              killGracePeriodSeconds=pod.kill_grace_period_seconds,
                              revocable=pod.revocable)
    out.labels.extend(_wire(label, peloton_pb2.Label) for label in pod.labels)
    if pod.HasField("constraint"):
        out.constraint.CopyFrom(_wire(pod.constraint, task_pb2.Constraint))
    if pod.HasField("restart_policy"):
        out.restartPolicy.maxFailures = pod.restart_policy.max_failures
    if pod.HasField("volume"):
        out.volume.CopyFrom(_wire(pod.volume, task_pb2.PersistentVolumeConfig))
    if pod.HasField("preemption_policy"):
        kill = pod.preemption_policy.kill_on_preempt
        out.preemptionPolicy.killOnPreempt = kill
        out.preemptionPolicy.type = (task_pb2.PreemptionPolicy.TYPE_PREEMPTIBLE if kill
                                     else task_pb2.PreemptionPolicy.TYPE_NON_PREEMPTIBLE)
    if not pod.containers:
        if pod.mesos_spec.shell:
            raise InvalidArgument("mesos_spec.shell says how a container's entrypoint runs; "
                                  "the pod has no container", field=f"{at}.mesos_spec.shell")
        return out
    container = pod.containers[0]
    c_at = f"{at}.containers[0]"
    for name, why in _CONTAINER_REFUSED.items():
        if (container.HasField(name) if name == "readiness_check"
                else getattr(container, name)):
            raise InvalidArgument(why, field=f"{c_at}.{name}")
    if container.name and pod.pod_name.value and container.name != pod.pod_name.value:
        raise InvalidArgument("a task has one name: the container's must be the pod's "
                              f"({pod.pod_name.value!r}) or empty", field=f"{c_at}.name")
    out.name = out.name or container.name
    if container.HasField("resource"):
        out.resource.CopyFrom(_wire(container.resource, task_pb2.ResourceConfig))
    if container.HasField("container"):
        out.container.CopyFrom(container.container)
    if container.HasField("executor"):
        out.executor.CopyFrom(container.executor)
    command = _command(pod, container, c_at)
    if command is not None:
        out.command.CopyFrom(command)
    elif pod.mesos_spec.shell:
        raise InvalidArgument("mesos_spec.shell says how the entrypoint runs; the container "
                              "has none", field=f"{at}.mesos_spec.shell")
    if container.HasField("liveness_check"):
        check = container.liveness_check
        for name, why in _CHECK_REFUSED.items():
            if (check.HasField(name) if name != "success_threshold" else getattr(check, name)):
                raise InvalidArgument(why, field=f"{c_at}.liveness_check.{name}")
        out.healthCheck.CopyFrom(_wire(check, task_pb2.HealthCheckConfig))
    for j, port in enumerate(container.ports):
        if port.template_name or port.type == pod_pb2.PortSpec.PORT_TYPE_DYNAMIC_TEMPLATE_VAR:
            raise InvalidArgument("port templates are not supported; name an env_name",
                                  field=f"{c_at}.ports[{j}].template_name")
        if port.type == pod_pb2.PortSpec.PORT_TYPE_STATIC and not port.value:
            raise InvalidArgument("a static port needs a value",
                                  field=f"{c_at}.ports[{j}].value")
        if port.type == pod_pb2.PortSpec.PORT_TYPE_DYNAMIC_ENV_VAR and port.value:
            raise InvalidArgument("a dynamic port takes no value",
                                  field=f"{c_at}.ports[{j}].value")
        out.ports.add(name=port.name, value=port.value, envName=port.env_name)
    return out


def job_config_of(spec: sl.JobSpec, at: str = "spec") -> job_pb2.JobConfig:
    """A v1alpha stateless JobSpec as the v0 SERVICE JobConfig it stands for."""
    out = job_pb2.JobConfig(type=job_pb2.SERVICE, name=spec.name, owner=spec.owner,
                            owningTeam=spec.owning_team, ldapGroups=spec.ldap_groups,
                            description=spec.description, instanceCount=spec.instance_count)
    out.labels.extend(_wire(label, peloton_pb2.Label) for label in spec.labels)
    if spec.HasField("revision"):
        r = spec.revision
        out.changeLog.CopyFrom(peloton_pb2.ChangeLog(version=r.version, createdAt=r.created_at,
                                                     updatedAt=r.updated_at,
                                                     updatedBy=r.updated_by))
    if spec.HasField("sla"):
        s = spec.sla
        out.sla.CopyFrom(job_pb2.SlaConfig(priority=s.priority, preemptible=s.preemptible,
                                           revocable=s.revocable,
                                           maximumUnavailableInstances=(
                                               s.maximum_unavailable_instances)))
    if spec.HasField("default_spec"):
        out.defaultConfig.CopyFrom(pod_config_of(spec.default_spec, f"{at}.default_spec"))
        # As Peloton: the job's sla.revocable overrules the pods'.
        if spec.HasField("sla"):
            out.defaultConfig.revocable = spec.sla.revocable
    for instance, pod in sorted(spec.instance_spec.items()):
        config = pod_config_of(pod, f"{at}.instance_spec[{instance}]")
        if spec.HasField("sla") and spec.HasField("default_spec"):
            config.revocable = spec.sla.revocable
        out.instanceConfig[instance].CopyFrom(config)
    if spec.respool_id.value:
        out.respoolID.value = spec.respool_id.value
    return out


# v0 config paths in validation errors, as the v1alpha request names them.
_PATHS = (("defaultConfig", "default_spec"), ("defaultconfig", "default_spec"),
          ("instanceConfig", "instance_spec"), ("instanceCount", "instance_count"),
          ("respoolID", "respool_id"), ("owningTeam", "owning_team"),
          ("ldapGroups", "ldap_groups"))


def v1alpha_field(field: str | None, at: str = "spec") -> str:
    """The request path of a v0 JobConfig ``field`` that validation named."""
    if not field:
        return at
    for v0, v1a in _PATHS:
        if field == v0 or field.startswith(v0 + "."):
            return f"{at}.{v1a}{field[len(v0):]}"
    return f"{at}.{field}"


# -- configs -> specs -----------------------------------------------------------

def pod_spec_of(config: task_pb2.TaskConfig) -> pod_pb2.PodSpec:
    """A v0 TaskConfig as a v1alpha PodSpec (one container), as Peloton answers."""
    out = pod_pb2.PodSpec(controller=config.controller,
                          kill_grace_period_seconds=config.killGracePeriodSeconds,
                          revocable=config.revocable)
    out.pod_name.value = config.name
    out.labels.extend(_wire(label, v1.Label) for label in config.labels)
    if config.HasField("constraint"):
        out.constraint.CopyFrom(_wire(config.constraint, pod_pb2.Constraint))
    if config.HasField("volume"):
        out.volume.CopyFrom(_wire(config.volume, pod_pb2.PersistentVolumeSpec))
    if config.HasField("preemptionPolicy"):
        out.preemption_policy.kill_on_preempt = config.preemptionPolicy.killOnPreempt
    if config.HasField("restartPolicy"):
        out.restart_policy.max_failures = config.restartPolicy.maxFailures
    container = out.containers.add(name=config.name)
    container.resource.CopyFrom(_wire(config.resource, pod_pb2.ResourceSpec))
    if config.HasField("container"):
        container.container.CopyFrom(config.container)
    if config.HasField("command"):
        container.command.CopyFrom(config.command)
    if config.HasField("executor"):
        container.executor.CopyFrom(config.executor)
    if config.HasField("healthCheck"):
        container.liveness_check.CopyFrom(_wire(config.healthCheck, pod_pb2.HealthCheckSpec))
    container.ports.extend(_wire(p, pod_pb2.PortSpec) for p in config.ports)
    return out


def job_spec_of(config: job_pb2.JobConfig) -> sl.JobSpec:
    out = sl.JobSpec(name=config.name, owner=config.owner, owning_team=config.owningTeam,
                     ldap_groups=config.ldapGroups, description=config.description,
                     instance_count=config.instanceCount)
    c = config.changeLog
    out.revision.CopyFrom(v1.Revision(version=c.version, created_at=c.createdAt,
                                      updated_at=c.updatedAt, updated_by=c.updatedBy))
    out.labels.extend(_wire(label, v1.Label) for label in config.labels)
    s = config.sla
    out.sla.CopyFrom(sl.SlaSpec(priority=s.priority, preemptible=s.preemptible,
                                revocable=s.revocable,
                                maximum_unavailable_instances=s.maximumUnavailableInstances))
    out.default_spec.CopyFrom(pod_spec_of(config.defaultConfig))
    for instance, task_config in config.instanceConfig.items():
        out.instance_spec[instance].CopyFrom(pod_spec_of(task_config))
    out.respool_id.value = config.respoolID.value
    return out


# -- runtimes -> statuses -----------------------------------------------------

def pod_name(job_id: str, instance: int) -> str:
    return f"{job_id}-{instance}"


def pod_status_of(runtime: task_pb2.RuntimeInfo) -> pod_pb2.PodStatus:
    """A v0 task RuntimeInfo as a v1alpha PodStatus (Peloton's converter)."""
    state = pod_state(runtime.state)
    out = pod_pb2.PodStatus(state=state,  # type: ignore[arg-type]
                            start_time=runtime.startTime,
                            completion_time=runtime.completionTime, host=runtime.host,
                            desired_state=pod_state(runtime.goalState),  # type: ignore[arg-type]
                            message=runtime.message, reason=runtime.reason,
                            failure_count=runtime.failureCount,
                            desiredHost=runtime.desiredHost)
    out.pod_id.value = runtime.mesosTaskId.value
    out.prev_pod_id.value = runtime.prevMesosTaskId.value
    out.desired_pod_id.value = runtime.desiredMesosTaskId.value
    out.volume_id.value = runtime.volumeID.value
    out.version.CopyFrom(pod_entity_version(runtime.configVersion))
    out.desired_version.CopyFrom(pod_entity_version(runtime.desiredConfigVersion))
    if runtime.HasField("agentID"):
        out.agent_id.CopyFrom(runtime.agentID)
    r = runtime.revision
    out.revision.CopyFrom(v1.Revision(version=r.version, created_at=r.createdAt,
                                      updated_at=r.updatedAt, updated_by=r.updatedBy))
    out.resource_usage.update(runtime.resourceUsage)
    container = out.containers_status.add(
        state=_CONTAINER_STATE.get(TaskState(runtime.state), 0),  # type: ignore[arg-type]
        message=runtime.message, reason=runtime.reason, failure_count=runtime.failureCount,
        start_time=runtime.startTime, completion_time=runtime.completionTime)
    container.ports.update(runtime.ports)
    container.healthy.state = runtime.healthy  # type: ignore[assignment]
    if runtime.HasField("terminationStatus"):
        t = runtime.terminationStatus
        container.terminationStatus.CopyFrom(pod_pb2.TerminationStatus(
            reason=t.reason, exit_code=t.exit_code, signal=t.signal))  # type: ignore[arg-type]
    return out


_CONTAINER_STATE = {
    TaskState.INITIALIZED: pod_pb2.CONTAINER_STATE_PENDING,
    TaskState.PENDING: pod_pb2.CONTAINER_STATE_PENDING,
    TaskState.READY: pod_pb2.CONTAINER_STATE_PENDING,
    TaskState.PLACING: pod_pb2.CONTAINER_STATE_PENDING,
    TaskState.PLACED: pod_pb2.CONTAINER_STATE_PENDING,
    TaskState.LAUNCHING: pod_pb2.CONTAINER_STATE_LAUNCHED,
    TaskState.LAUNCHED: pod_pb2.CONTAINER_STATE_LAUNCHED,
    TaskState.STARTING: pod_pb2.CONTAINER_STATE_STARTING,
    TaskState.RUNNING: pod_pb2.CONTAINER_STATE_RUNNING,
    TaskState.SUCCEEDED: pod_pb2.CONTAINER_STATE_SUCCEEDED,
    TaskState.FAILED: pod_pb2.CONTAINER_STATE_FAILED,
    TaskState.LOST: pod_pb2.CONTAINER_STATE_FAILED,
    TaskState.PREEMPTING: pod_pb2.CONTAINER_STATE_KILLING,
    TaskState.KILLING: pod_pb2.CONTAINER_STATE_KILLING,
    TaskState.KILLED: pod_pb2.CONTAINER_STATE_KILLED,
}


def workflow_status_of(info: update_pb2.UpdateInfo | None, kind: int,
                       versions: tuple[int, int], created: str, updated: str,
                       prior: int, current: list[int]) -> sl.WorkflowStatus | None:
    """A v0 update's status as a v1alpha WorkflowStatus. ``versions`` are
    the job's desired-state and workflow versions (the rest of its entity
    version)."""
    if info is None:
        return None
    s = info.status
    return sl.WorkflowStatus(
        type=kind, state=s.state, prev_state=prior,  # type: ignore[arg-type]
        num_instances_completed=s.numTasksDone, num_instances_remaining=s.numTasksRemaining,
        num_instances_failed=s.numTasksFailed, instances_current=current,
        version=entity_version(info.configVersion, *versions),
        prev_version=entity_version(info.prevConfigVersion, *versions),
        creation_time=created, update_time=updated)


def job_status_of(runtime: job_pb2.RuntimeInfo,
                  workflow: sl.WorkflowStatus | None = None) -> sl.JobStatus:
    """A v0 job RuntimeInfo as a v1alpha JobStatus."""
    versions = (runtime.desiredStateVersion, runtime.workflowVersion)
    out = sl.JobStatus(state=runtime.state, desired_state=runtime.goalState,  # type: ignore[arg-type]
                       creation_time=runtime.creationTime,
                       version=entity_version(runtime.configurationVersion, *versions))
    r = runtime.revision
    out.revision.CopyFrom(v1.Revision(version=r.version, created_at=r.createdAt,
                                      updated_at=r.updatedAt, updated_by=r.updatedBy))
    for name, n in runtime.taskStats.items():
        out.pod_stats[f"POD_STATE_{name}" if name != "UNKNOWN" else "POD_STATE_INVALID"] = n
    for config_version, n in runtime.taskConfigVersionStats.items():
        out.pod_configuration_version_stats[
            entity_version(config_version, *versions).value] = n
    if workflow is not None:
        out.workflow_status.CopyFrom(workflow)
    return out


def job_summary_of(job_id: str, config: job_pb2.JobConfig, runtime: job_pb2.RuntimeInfo,
                   workflow: sl.WorkflowStatus | None = None) -> sl.JobSummary:
    """A v0 job (its config and runtime) as a v1alpha JobSummary."""
    s = config.sla
    out = sl.JobSummary(name=config.name, owner=config.owner, owning_team=config.owningTeam,
                        instance_count=config.instanceCount,
                        status=job_status_of(runtime, workflow),
                        sla=sl.SlaSpec(priority=s.priority, preemptible=s.preemptible,
                                       revocable=s.revocable,
                                       maximum_unavailable_instances=(
                                           s.maximumUnavailableInstances)))
    out.job_id.value = job_id
    out.labels.extend(_wire(label, v1.Label) for label in config.labels)
    out.respool_id.value = config.respoolID.value
    return out


def v0_pagination(spec: v1query.PaginationSpec) -> query_pb2.PaginationSpec:
    """The same wire: offset, limit, order_by (order, property), max_limit."""
    return _wire(spec, query_pb2.PaginationSpec)


def v1_pagination(page: query_pb2.Pagination) -> v1query.Pagination:
    return _wire(page, v1query.Pagination)


def load_stateless_spec(source: Any) -> tuple[sl.JobSpec, list[str]]:
    """Parse a v1alpha stateless JobSpec (YAML text, a path, or parsed data;
    Peloton's lower-case, camelCase and snake_case keys alike) and check
    that it converts (every PodSpec field it sets has an effect)."""
    from peloton.spec.yamlproto import load_document, parse_message

    spec, warnings = parse_message(load_document(source), sl.JobSpec)
    job_config_of(spec)
    return spec, warnings
