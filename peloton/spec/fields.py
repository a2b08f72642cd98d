"""Every field a job config can set, and whether it has an effect.

Accepting a setting and ignoring it is the worst answer a scheduler can
give, so each field of ``JobConfig``, ``SlaConfig``, ``TaskConfig`` and
every message below them is listed in :data:`FIELDS` exactly once, keyed
``<Message>.<field>`` (the message's name inside its proto package, e.g.
``TaskConfig.volume``, ``CommandInfo.user``, ``ContainerInfo.DockerInfo.image``):

- :class:`Implemented` names the pytest node id of a test that shows the
  field's effect;
- :class:`Refused` gives the reason a job that sets it is refused at create
  (and at update).

A message that appears in several places (``CommandInfo`` under
``command`` and ``executor.command``, the recursive ``Constraint``) has one
entry per field; where it sits under a refused field, that field refuses
the whole block. :func:`check_supported` applies the registry to a job;
``tests/spec/test_fields.py`` keeps the registry complete (a new proto field
fails it until it is listed) and ``docs/fields.md`` in step with
:func:`render_markdown`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from google.protobuf.message import Message

from peloton.api.v0.job import job_pb2
from peloton.core.errors import InvalidArgument

__all__ = [
    "FIELDS",
    "ROOTS",
    "Implemented",
    "Refused",
    "check_enums",
    "check_supported",
    "field_key",
    "reachable_fields",
    "render_markdown",
]


class Implemented(NamedTuple):
    """The field has an effect; ``test`` is the node id of a test showing it."""

    test: str


class Refused(NamedTuple):
    """Setting the field (to anything but its default) is refused for ``reason``."""

    reason: str


# (Tuples: told apart by isinstance, never by ==.)
Status = Implemented | Refused

# The messages a user writes; everything reachable from them is listed.
ROOTS = (job_pb2.JobConfig.DESCRIPTOR,)

_SPEC = "tests/spec/test_job_spec.py"
_FIELDS_TEST = "tests/spec/test_fields.py"
_PLACEMENT = "tests/placement/test_engine.py"
_LOCAL = "tests/hostmgr/test_local_backend.py"
_E2E = "tests/e2e/test_local_cluster.py"
_ENGINE = "tests/jobmgr/test_engine.py"

_METADATA = Implemented(f"{_FIELDS_TEST}::test_job_metadata_is_stored_and_queryable")
_DOCKER = Implemented(f"{_SPEC}::test_helloworld_needs_docker")
_MESOS_IMAGE = Implemented(f"{_SPEC}::test_mesos_image_needs_its_own_capability")
_CONTAINER_ONLY = Implemented(f"{_FIELDS_TEST}::test_container_settings_need_a_container")
_CONSTRAINT = Implemented(f"{_PLACEMENT}::test_host_attribute_constraint_on_cluster_attribute")
_TASK_CONSTRAINT = Implemented(f"{_PLACEMENT}::test_task_anti_affinity_places_one_per_host")
_PORTS = Implemented(f"{_PLACEMENT}::test_ports_are_assigned_in_order_and_never_twice")
_ENV = Implemented(f"{_LOCAL}::test_echo_succeeds_with_output_and_environment")
_EXEC = Implemented(f"{_LOCAL}::test_exec_without_shell_uses_arguments_as_argv")

_CHANGELOG = Refused("the server keeps a job's version and times; a client does not set "
                     "changeLog (leave it out)")
_HEALTH = Implemented(f"{_LOCAL}::test_failing_checks_end_the_run_failed_unhealthy")
_HTTP_HEALTH = Implemented(f"{_LOCAL}::test_an_http_check_follows_the_answers")
_VOLUME = Implemented("tests/e2e/test_stateful.py::"
                      "test_a_stateful_tasks_volume_outlives_its_runs_on_its_host")
_EXECUTOR = Refused("no host backend runs a custom executor; a task runs its command "
                    "directly")
_URIS = Refused("no host backend fetches URIs into the sandbox yet; fetch them in the "
                "command instead")

_SECRET = Refused("secrets are not supported; give an environment variable its value")
_NETWORK = Refused("tasks use their host's network; no host backend sets up container networks")

# Listed one by one; every field below a refused one is added by _below_refused.
_LISTED: dict[str, Status] = {
    # JobConfig
    "JobConfig.changeLog": _CHANGELOG,
    "JobConfig.name": Implemented(f"{_SPEC}::test_task_names"),
    "JobConfig.type": Implemented(
        "tests/jobmgr/test_engine.py::test_a_service_instance_runs_again_after_its_backoff"),
    "JobConfig.owningTeam": _METADATA,
    "JobConfig.ldapGroups": _METADATA,
    "JobConfig.description": _METADATA,
    "JobConfig.labels": _METADATA,
    "JobConfig.instanceCount": Implemented(
        "tests/jobmgr/test_engine.py::test_create_writes_pending_tasks_once_and_enqueue_sends_gangs"),
    "JobConfig.sla": Implemented("tests/e2e/test_preemption.py::"
                                 "test_a_non_preemptible_job_is_never_preempted"),
    "JobConfig.defaultConfig": Implemented(f"{_SPEC}::test_testjob_instance_merge"),
    "JobConfig.instanceConfig": Implemented(f"{_SPEC}::test_testjob_instance_merge"),
    "JobConfig.respoolID": Implemented(
        "tests/e2e/test_preemption.py::"
        "test_an_idle_pools_share_flows_to_a_busy_pool_and_comes_back_by_preemption"),
    "JobConfig.owner": _METADATA,
    "JobConfig.placementStrategy": Implemented(f"{_PLACEMENT}::test_spread_job"),
    # peloton.api.v0.peloton
    "ChangeLog.version": _CHANGELOG,
    "ChangeLog.createdAt": _CHANGELOG,
    "ChangeLog.updatedAt": _CHANGELOG,
    "ChangeLog.updatedBy": _CHANGELOG,
    "Label.key": _METADATA,
    "Label.value": _METADATA,
    "ResourcePoolID.value": Implemented(
        "tests/e2e/test_preemption.py::"
        "test_an_idle_pools_share_flows_to_a_busy_pool_and_comes_back_by_preemption"),
    # SlaConfig
    "SlaConfig.priority": Implemented("tests/resmgr/test_state.py::test_priority_order_then_fifo"),
    "SlaConfig.preemptible": Implemented(
        "tests/e2e/test_preemption.py::test_a_non_preemptible_job_is_never_preempted"),
    "SlaConfig.maximumRunningInstances": Implemented(
        f"{_ENGINE}::test_maximum_running_instances"),
    "SlaConfig.minimumRunningInstances": Implemented(
        "tests/resmgr/test_state.py::test_a_gang_is_admitted_whole_or_not_at_all"),
    "SlaConfig.maxRunningTime": Implemented(f"{_ENGINE}::test_max_running_time"),
    "SlaConfig.revocable": Implemented(
        f"{_E2E}::test_a_revocable_job_waits_for_slack_then_runs_only_on_it"),
    "SlaConfig.maximumUnavailableInstances": Implemented(
        f"{_ENGINE}::test_a_service_restart_rolls_within_maximum_unavailable_instances"),
    # TaskConfig
    "TaskConfig.name": Implemented(f"{_SPEC}::test_task_names"),
    "TaskConfig.labels": _TASK_CONSTRAINT,
    "TaskConfig.resource": Implemented("tests/placement/test_filters.py::test_resources_fit"),
    "TaskConfig.container": _DOCKER,
    "TaskConfig.command": Implemented(
        f"{_E2E}::test_peloton_example_job_succeeds_with_readable_output"),
    "TaskConfig.healthCheck": Implemented(
        f"{_E2E}::test_a_service_whose_health_check_fails_is_restarted"),
    "TaskConfig.ports": _PORTS,
    "TaskConfig.constraint": _CONSTRAINT,
    "TaskConfig.restartPolicy": Implemented(
        f"{_E2E}::test_failed_task_is_retried_up_to_max_failures"),
    "TaskConfig.volume": _VOLUME,
    "PersistentVolumeConfig.containerPath": Implemented(
        f"{_LOCAL}::test_a_persistent_volume_outlives_its_runs_until_deleted"),
    "PersistentVolumeConfig.sizeMB": Implemented(
        f"{_LOCAL}::test_a_run_over_its_volume_size_is_killed"),
    "TaskConfig.preemptionPolicy": Implemented(
        "tests/jobmgr/test_engine.py::test_kill_on_preempt_ends_the_task_killed"),
    "TaskConfig.controller": Implemented(
        "tests/jobmgr/test_goalstate.py::test_a_terminal_controller_ends_the_job_as_it_ended"),
    "TaskConfig.killGracePeriodSeconds": Implemented(
        f"{_LOCAL}::test_kill_escalates_to_sigkill_after_the_grace"),
    "TaskConfig.executor": _EXECUTOR,
    "TaskConfig.revocable": Implemented(
        f"{_PLACEMENT}::test_revocable_tasks_go_only_where_slack_is_and_others_never_use_it"),
    # ResourceConfig
    "ResourceConfig.cpuLimit": Implemented("tests/placement/test_filters.py::test_resources_fit"),
    "ResourceConfig.memLimitMb": Implemented(f"{_LOCAL}::test_memory_limit"),
    "ResourceConfig.diskLimitMb": Implemented(
        f"{_LOCAL}::test_a_run_over_its_disk_limit_is_killed"),
    "ResourceConfig.fdLimit": Implemented(f"{_LOCAL}::test_fd_limit"),
    "ResourceConfig.gpuLimit": Implemented(f"{_PLACEMENT}::test_gpu_hosts_are_kept_for_gpu_tasks"),
    # HealthCheckConfig
    "HealthCheckConfig.enabled": _HEALTH,
    "HealthCheckConfig.initialIntervalSecs": _HEALTH,
    "HealthCheckConfig.intervalSecs": _HEALTH,
    "HealthCheckConfig.maxConsecutiveFailures": _HEALTH,
    "HealthCheckConfig.timeoutSecs": _HEALTH,
    "HealthCheckConfig.type": _HEALTH,
    "HealthCheckConfig.commandCheck": _HEALTH,
    "HealthCheckConfig.httpCheck": _HTTP_HEALTH,
    "HealthCheckConfig.CommandCheck.command": _HEALTH,
    "HealthCheckConfig.CommandCheck.unshareEnvironments": _HEALTH,
    "HealthCheckConfig.HTTPCheck.scheme": _HTTP_HEALTH,
    "HealthCheckConfig.HTTPCheck.port": _HTTP_HEALTH,
    "HealthCheckConfig.HTTPCheck.path": _HTTP_HEALTH,
    # PortConfig
    "PortConfig.name": _PORTS,
    "PortConfig.value": _PORTS,
    "PortConfig.envName": _ENV,
    # Constraint and its parts
    "Constraint.type": _CONSTRAINT,
    "Constraint.labelConstraint": _CONSTRAINT,
    "Constraint.andConstraint": Implemented(
        "tests/placement/test_filters.py::test_constraint_satisfied"),
    "Constraint.orConstraint": Implemented(
        "tests/placement/test_filters.py::test_constraint_satisfied"),
    "LabelConstraint.kind": _TASK_CONSTRAINT,
    "LabelConstraint.condition": Implemented(
        "tests/placement/test_filters.py::test_constraint_satisfied"),
    "LabelConstraint.label": _CONSTRAINT,
    "LabelConstraint.requirement": _TASK_CONSTRAINT,
    "AndConstraint.constraints": Implemented(
        "tests/placement/test_filters.py::test_constraint_satisfied"),
    "OrConstraint.constraints": Implemented(
        "tests/placement/test_filters.py::test_constraint_satisfied"),
    # RestartPolicy, PreemptionPolicy
    "RestartPolicy.maxFailures": Implemented(f"{_ENGINE}::test_restart_policy_per_instance"),
    "PreemptionPolicy.type": Implemented(
        f"{_FIELDS_TEST}::test_preemption_policy_type_overrides_the_job"),
    "PreemptionPolicy.killOnPreempt": Implemented(
        "tests/jobmgr/test_engine.py::test_kill_on_preempt_ends_the_task_killed"),
    # mesos.v1 CommandInfo
    "CommandInfo.uris": _URIS,
    "CommandInfo.environment": _ENV,
    "CommandInfo.shell": _EXEC,
    "CommandInfo.value": Implemented(
        f"{_E2E}::test_peloton_example_job_succeeds_with_readable_output"),
    "CommandInfo.arguments": _EXEC,
    "CommandInfo.user": Refused("tasks run as the host manager's user; no host backend "
                                "switches users yet"),
    "CommandInfo.URI.value": _URIS,
    "CommandInfo.URI.executable": _URIS,
    "CommandInfo.URI.extract": _URIS,
    "CommandInfo.URI.cache": _URIS,
    "CommandInfo.URI.output_file": _URIS,
    "Environment.variables": _ENV,
    "Environment.Variable.name": _ENV,
    "Environment.Variable.value": _ENV,
    # mesos.v1 ContainerInfo: run by a backend that declares the capability
    # (peloton.spec.job._check_container refuses it elsewhere)
    "ContainerInfo.type": _DOCKER,
    "ContainerInfo.volumes": _CONTAINER_ONLY,
    "ContainerInfo.hostname": _CONTAINER_ONLY,
    "ContainerInfo.docker": _DOCKER,
    "ContainerInfo.mesos": _MESOS_IMAGE,
    "ContainerInfo.DockerInfo.image": _DOCKER,
    "ContainerInfo.DockerInfo.network": _DOCKER,
    "ContainerInfo.DockerInfo.privileged": _DOCKER,
    "ContainerInfo.DockerInfo.parameters": _DOCKER,
    "ContainerInfo.DockerInfo.force_pull_image": _DOCKER,
    "ContainerInfo.MesosInfo.image": _MESOS_IMAGE,
    "Parameter.key": _DOCKER,
    "Parameter.value": _DOCKER,
    "Volume.mode": _CONTAINER_ONLY,
    "Volume.container_path": _CONTAINER_ONLY,
    "Volume.host_path": _CONTAINER_ONLY,
    "Image.type": _MESOS_IMAGE,
    "Image.docker": _MESOS_IMAGE,
    "Image.cached": _MESOS_IMAGE,
    "Image.Docker.name": _MESOS_IMAGE,
    # mesos.v1 ExecutorInfo
    "ExecutorInfo.type": _EXECUTOR,
    "ExecutorInfo.name": _EXECUTOR,
    "ExecutorInfo.source": _EXECUTOR,
    "ExecutorInfo.data": _EXECUTOR,
    "ExecutorInfo.command": _EXECUTOR,
    "ExecutorInfo.executor_id": _EXECUTOR,
    "ExecutorInfo.framework_id": _EXECUTOR,
    "ExecutorInfo.container": _EXECUTOR,
    "ExecutorInfo.resources": _EXECUTOR,
    "ExecutorInfo.discovery": _EXECUTOR,
    "ExecutorInfo.shutdown_grace_period": _EXECUTOR,
    "ExecutorInfo.labels": _EXECUTOR,
    # Mesos fields no host backend has
    "Environment.Variable.type": _SECRET,
    "Environment.Variable.secret": _SECRET,
    "ContainerInfo.network_infos": _NETWORK,
    "ContainerInfo.linux_info": Refused("Linux capabilities, namespaces and shared memory "
                                        "(linux_info) are not configurable"),
    "ContainerInfo.rlimit_info": Refused("set the open-files limit with resource.fdLimit; "
                                         "other rlimits are not configurable"),
    "ContainerInfo.tty_info": Refused("no host backend attaches a TTY to a task"),
    "ContainerInfo.DockerInfo.port_mappings": _NETWORK,
    "ContainerInfo.DockerInfo.volume_driver": Refused("docker volume drivers are not "
                                                      "supported"),
    "Volume.image": Refused("volumes from images are not supported"),
    "Volume.source": Refused("volume sources (docker volumes, sandbox paths, secrets, host "
                             "paths with propagation) are not supported; use host_path"),
    "Image.appc": Refused("appc images are not supported; use a docker image"),
    "Image.Docker.credential": Refused("registry credentials are not supported"),
    "Image.Docker.config": Refused("registry credentials are not supported"),
}


def field_key(field: Any) -> str:  # FieldDescriptor (python or upb)
    """``TaskConfig.volume`` for the field ``volume`` of ``peloton.api.v0.task.TaskConfig``."""
    message = field.containing_type
    package = message.file.package
    name = message.full_name[len(package) + 1:] if package else message.full_name
    return f"{name}.{field.name}"


def reachable_fields(roots: tuple[Any, ...] = ROOTS) -> dict[str, Any]:
    """Every field reachable from ``roots`` through message fields, by :func:`field_key`.

    Map fields contribute their value type (the key of ``instanceConfig`` is
    an instance number, not a field). Recursive messages are visited once.
    """
    found: dict[str, Any] = {}
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        desc = todo.pop()
        if desc.full_name in seen:
            continue
        seen.add(desc.full_name)
        for f in desc.fields:
            found[field_key(f)] = f
            target = f.message_type
            if target is not None and target.GetOptions().map_entry:
                target = target.fields_by_name["value"].message_type
            if target is not None:
                todo.append(target)
    return found


def _below_refused(listed: dict[str, Status]) -> dict[str, Status]:
    """``listed`` and every field below a refused one, refused for the reason
    of the nearest refused field above it on the shortest path from the roots
    (setting such a field sets that one): ExecutorInfo's resources, Mesos
    Secret, NetworkInfo and the like."""
    out = dict(listed)
    seen: set[str] = set()
    todo: deque[tuple[Any, Status | None]] = deque((root, None) for root in ROOTS)
    while todo:
        desc, above = todo.popleft()
        if desc.full_name in seen:
            continue
        seen.add(desc.full_name)
        for f in desc.fields:
            key = field_key(f)
            if key not in out and above is not None:
                out[key] = above
            status = out.get(key)
            target = f.message_type
            if target is not None and target.GetOptions().map_entry:
                target = target.fields_by_name["value"].message_type
            if target is not None:
                todo.append((target, status if isinstance(status, Refused) else None))
    return out


FIELDS: Mapping[str, Status] = MappingProxyType(_below_refused(_LISTED))


def check_supported(config: job_pb2.JobConfig) -> None:
    """Refuse a job that sets a field :data:`FIELDS` marks :class:`Refused`.

    Walks every field set in ``config`` (proto3 ``ListFields``: non-default
    scalars, present messages, non-empty lists); ``instanceConfig`` entries
    are walked one by one. The deepest refused field set is reported, so the
    error names it: ``defaultconfig.healthcheck.enabled``,
    ``instanceconfig.3.volume.containerpath``, ``type``. A message that sets
    nothing (``healthCheck: {}``) is its default and passes. Raises
    :class:`InvalidArgument` at the first refused field in field-number
    order; returns nothing otherwise. The cost is proportional to the number
    of fields set, not to ``instanceCount``. A value that no enum defines
    is refused on the way (:func:`check_enums`).
    """
    _walk(config, "", refuse=True)


def check_enums(message: Message, prefix: str = "") -> None:
    """Refuse an enum field set to a number its enum does not define: proto3
    enums are open, so a client may send any number, and code that compares
    with the known values would take it for one of them or for none."""
    _walk(message, prefix, refuse=False)


def _path(prefix: str, name: str) -> str:
    key = name.replace("_", "").lower()  # yamlproto.normalise_key, the path convention
    return f"{prefix}.{key}" if prefix else key


def _walk(message: Message, prefix: str, *, refuse: bool) -> None:
    for field, value in message.ListFields():
        path = _path(prefix, field.name)
        target = field.message_type
        if target is not None and target.GetOptions().map_entry:
            for key in sorted(value):
                item = value[key]
                if isinstance(item, Message):
                    _walk(item, f"{path}.{key}", refuse=refuse)
        elif field.is_repeated and target is not None:
            for i, item in enumerate(value):
                _walk(item, f"{path}[{i}]", refuse=refuse)
        elif target is not None:
            _walk(value, path, refuse=refuse)
        elif field.enum_type is not None:
            _check_enum(field, value, path)
        if not refuse:
            continue
        # A field below a refused one is refused by that one, with its reason
        # and its path (a Mesos Secret under a variable: "secrets are not...").
        status = _LISTED.get(field_key(field))
        if isinstance(status, Refused) and _sets_something(field, value):
            raise InvalidArgument(f"not supported yet: {status.reason}", field=path)


def _check_enum(field: Any, value: Any, path: str) -> None:
    enum = field.enum_type
    for number in value if field.is_repeated else (value,):
        if number not in enum.values_by_number:
            known = ", ".join(f"{v.name} ({v.number})" for v in enum.values)
            raise InvalidArgument(f"unknown value {number} for enum {enum.name}; allowed: "
                                  f"{known}", field=path)


def _sets_something(field: Any, value: Any) -> bool:
    if field.is_repeated:
        return len(value) > 0
    if field.message_type is not None:
        return any(_sets_something(f, v) for f, v in value.ListFields())
    return True  # ListFields lists proto3 scalars only when they differ from the default


# --------------------------------------------------------------------------- docs


def render_markdown() -> str:
    """``docs/fields.md``: which fields work (and the test showing it) and which are refused."""
    lines = [
        "# Job config fields: what works, what is refused",
        "",
        "Generated from `peloton/spec/fields.py` by `python -m peloton.spec.fields`;",
        "`tests/spec/test_fields.py` fails when this page and the registry differ.",
        "",
        "Every field of `JobConfig`, `SlaConfig`, `TaskConfig` and the messages below",
        "them is either **implemented** (it has an effect, shown by the named test) or",
        "**refused**: a job that sets it to anything but its default is refused at",
        "create and update with `INVALID_ARGUMENT` naming the field, e.g.",
        "`defaultconfig.healthcheck.enabled: not supported yet: ...`. A field inside",
        "a refused one (`executor.command.value`) is refused with it. Container",
        "fields take effect on a host backend that runs containers (`sim` simulates",
        "them); a cluster whose backend cannot run the container refuses the task.",
        "Fields marked *being built* are implemented on branches not merged yet.",
        "",
        "## Implemented",
        "",
        "| Field | Shown by |",
        "|---|---|",
    ]
    for key, status in sorted(FIELDS.items()):
        if isinstance(status, Implemented):
            lines.append(f"| `{key}` | `{status.test}` |")
    lines += ["", "## Refused", "", "| Field | Why |", "|---|---|"]
    for key, status in sorted(FIELDS.items()):
        if isinstance(status, Refused):
            lines.append(f"| `{key}` | {status.reason} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render_markdown(), end="")
