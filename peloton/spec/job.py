"""v0 job configs: loading, Peloton's job-config validation, per-instance merge.

Validation follows ``pkg/jobmgr/job/config/validate.go``. Errors name the
offending path the way :mod:`peloton.spec.yamlproto` does: a per-instance
problem is reported on ``instanceconfig.<i>.<field>`` when instance ``i``
overrides that field, and on ``defaultconfig.<field>`` when the bad (or
missing) value comes from the default config.
"""

from __future__ import annotations

import math
import os
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from peloton.api.mesos.v1 import mesos_pb2
from peloton.api.v0.job import job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.task import task_pb2
from peloton.core.errors import InvalidArgument
from peloton.spec.fields import check_supported
from peloton.spec.respool import MAX_QUANTITY
from peloton.spec.text import check_name, check_value
from peloton.spec.yamlproto import load_document, normalise_key, parse_message

__all__ = [
    "DOCKER",
    "LEGACY_JOB_KEYS",
    "MAX_RESTART_FAILURES",
    "MAX_TASKS_PER_JOB",
    "MESOS_CONTAINERIZER",
    "load_job_config",
    "merged_task_config",
    "task_name",
    "validate_job_config",
]

# Host-backend capabilities a job may need (see hostmgr backends).
DOCKER = "docker"
MESOS_CONTAINERIZER = "mesos-containerizer"

MAX_TASKS_PER_JOB = 100_000  # job_service.max_tasks_per_job
MAX_RESTART_FAILURES = 100
# The largest gang: one gang is one Raft command (raft.codec.MAX_COMMAND_BYTES,
# ~150 bytes a task, more with constraints).
MAX_GANG_TASKS = 2000
# Dynamic ports a task may ask for: a host lease offers at most this many
# (peloton.hostmgr.hostpool.MAX_LEASE_PORTS is this).
MAX_DYNAMIC_PORTS = 100
# How deep AND/OR constraints nest: protobuf decoders stop at 100 message
# levels (two a constraint level), and no placement needs more than a few.
MAX_CONSTRAINT_DEPTH = 16
# The longest grace between SIGTERM and SIGKILL.
MAX_KILL_GRACE_S = 86_400
# The most open files a task may ask for: Linux's default fs.nr_open, the
# hard ceiling of RLIMIT_NOFILE.
MAX_FD_LIMIT = 1_048_576

# Keys Peloton stopped reading; Peloton's own testjob.yaml still has them.
LEGACY_JOB_KEYS: Mapping[str, str] = MappingProxyType({
    "sla.minimuminstancecount":
        "Peloton no longer reads it; the gang size is sla.minimumRunningInstances",
    "sla.minimuminstancepercent":
        "Peloton no longer reads it; the gang size is sla.minimumRunningInstances",
})

_V1ALPHA_KEYS = frozenset({"defaultspec", "instancespec"})
_RESOURCE_FIELDS = ("cpuLimit", "memLimitMb", "diskLimitMb", "gpuLimit")
# TaskConfig fields only _check_own_fields reads (keep in sync with both): an
# override of only these leaves the rest of the default's verdict unchanged,
# so it gets that check alone (a 100,000-instance job naming each instance
# costs 100,000 light checks, not full ones).
_UNCHECKED_TASK_FIELDS = frozenset({"name", "labels", "constraint", "volume",
                                    "killGracePeriodSeconds", "controller"})


def load_job_config(
    source: str | bytes | os.PathLike[str] | Mapping[str, Any],
    *,
    capabilities: frozenset[str] = frozenset(),
    max_tasks_per_job: int = MAX_TASKS_PER_JOB,
) -> tuple[job_pb2.JobConfig, list[str]]:
    """Parse and validate a v0 job config.

    ``source`` is YAML text, a path to a YAML file, or already-parsed data.
    Returns the config and warnings for ignored legacy keys
    (:data:`LEGACY_JOB_KEYS`). Raises :class:`InvalidArgument` naming the
    offending path for syntax, schema or validation errors (see
    :func:`validate_job_config`); a v1alpha stateless JobSpec is rejected on
    ``defaultspec``.
    """
    data = load_document(source)
    if isinstance(data, Mapping):
        for key in data:
            if isinstance(key, str) and normalise_key(key) in _V1ALPHA_KEYS:
                raise InvalidArgument(
                    f"{key!r} belongs to a v1alpha stateless JobSpec, not a v0 JobConfig "
                    f"(which has defaultConfig/instanceConfig); submit it with the "
                    f"stateless API (peloton job stateless create <respool> <spec.yaml> "
                    f"<batch-size>)", field=normalise_key(key))
    config, warnings = parse_message(data, job_pb2.JobConfig, legacy=LEGACY_JOB_KEYS)
    validate_job_config(config, capabilities=capabilities, max_tasks_per_job=max_tasks_per_job)
    return config, warnings


def merged_task_config(config: job_pb2.JobConfig, instance: int) -> task_pb2.TaskConfig:
    """The task config of ``instance``: ``defaultConfig`` overridden field by field.

    Every field set in ``instanceConfig[instance]`` (``ListFields``: non-default
    scalars, present messages, non-empty lists) replaces the default's field
    whole; nothing is merged below the top level, and an override cannot
    reset a field to its zero value. Returns a new message; ``config`` is not
    modified. The instance is not checked against ``instanceCount``.
    """
    merged = task_pb2.TaskConfig()
    merged.CopyFrom(config.defaultConfig)
    # `in` first: indexing a message-valued map would create the entry.
    if instance in config.instanceConfig:
        _override(merged, config.instanceConfig[instance])
    return merged


def _override(merged: task_pb2.TaskConfig, override: task_pb2.TaskConfig) -> None:
    for field, value in override.ListFields():
        if field.is_repeated:
            target = getattr(merged, field.name)
            del target[:]
            target.extend(value)
        elif field.message_type is not None:
            getattr(merged, field.name).CopyFrom(value)
        else:
            setattr(merged, field.name, value)


def task_name(config: job_pb2.JobConfig, instance: int) -> str:
    """The task's own ``name``, else Peloton's default ``<jobname>-<instance>``."""
    if instance in config.instanceConfig and config.instanceConfig[instance].name:
        return config.instanceConfig[instance].name
    return config.defaultConfig.name or f"{config.name}-{instance}"


def validate_job_config(
    config: job_pb2.JobConfig,
    *,
    capabilities: frozenset[str],
    max_tasks_per_job: int = MAX_TASKS_PER_JOB,
) -> None:
    """Check a job config as Peloton's jobmgr does before accepting it.

    Job: ``1 <= instanceCount <= max_tasks_per_job``; instanceConfig keys
    below instanceCount; ``sla.maximumRunningInstances <= instanceCount``;
    ``minimumRunningInstances <= maximumRunningInstances`` when both are set;
    instances inside the gang (``< minimumRunningInstances``) do not override
    preemptionPolicy. SERVICE jobs: no maxRunningTime, no min/max running
    instances, revocable implies preemptible; BATCH jobs: no
    maximumUnavailableInstances.

    Every instance: a command (a shell command with a non-empty value); only
    instance 0 a controller; ports named, dynamic ones (value 0) with an
    envName; restartPolicy.maxFailures <= 100; resources finite and
    non-negative with cpuLimit > 0. BATCH: no enabled healthCheck, no
    executor. SERVICE: executor only CUSTOM with data, killOnPreempt false.

    ``capabilities`` is what the cluster's host backend can run
    (:data:`DOCKER`, :data:`MESOS_CONTAINERIZER`); a task needing a missing
    one is rejected. Every instance in ``0..instanceCount-1`` is checked with
    its merged config; instances without an override share one check of the
    default, so the cost is proportional to the number of overrides. Returns
    nothing; raises :class:`InvalidArgument` at the first problem found.

    Last, a job that sets a field this cluster does not act on yet is
    refused naming the field (:func:`peloton.spec.fields.check_supported`):
    DAEMON jobs, volume, executor, among others.

    The check is a function of the config's bytes, ``capabilities`` and
    ``max_tasks_per_job`` alone, so the last :data:`PASSED_KEPT` configs of
    at most :data:`PASSED_MAX_BYTES` that passed are remembered, by their
    bytes without the job's name and labels (which are checked every
    time): users submit the same small job over and over under new names
    (a pipeline's steps, CI, a load test's jobs), and its check was a
    twentieth of a loaded jobmgr's cpu.
    """
    rest = job_pb2.JobConfig()
    rest.CopyFrom(config)
    rest.ClearField("name")
    rest.ClearField("labels")
    data = rest.SerializePartialToString(deterministic=True)  # (a required field may be unset)
    key = (data, capabilities, max_tasks_per_job) if len(data) <= PASSED_MAX_BYTES else None
    if key is not None and key in _passed:
        _check_identity(config)
        _passed.move_to_end(key)
        return
    _validate_job_config(config, capabilities, max_tasks_per_job)
    if key is not None:
        _passed[key] = None
        if len(_passed) > PASSED_KEPT:
            _passed.popitem(last=False)


# Configs that passed validate_job_config lately, by their bytes without
# name and labels (oldest first).
PASSED_KEPT = 256
PASSED_MAX_BYTES = 4096
_passed: OrderedDict[tuple[bytes, frozenset[str], int], None] = OrderedDict()


def _check_identity(config: job_pb2.JobConfig) -> None:
    """The job's name and labels (what the remembered configs leave out)."""
    check_name(config.name, "name", "the job name")
    for j, label in enumerate(config.labels):
        check_name(label.key, f"labels[{j}].key", "label key")
        check_value(label.value, f"labels[{j}].value", "a label value")


def _validate_job_config(config: job_pb2.JobConfig, capabilities: frozenset[str],
                         max_tasks_per_job: int) -> None:
    daemon = config.type == job_pb2.DAEMON
    if daemon and config.instanceCount:
        raise InvalidArgument("a daemon job runs one instance on every host that fits; leave "
                              "instanceCount out", field="instancecount")
    if daemon and config.instanceConfig:
        raise InvalidArgument("a daemon job's instances are one per host, all alike; leave "
                              "instanceConfig out", field="instanceconfig")
    # A daemon job's instances are the cluster's to count: check its default.
    count = 1 if daemon else config.instanceCount
    if count < 1:
        raise InvalidArgument("a job needs at least one instance", field="instancecount")
    if count > max_tasks_per_job:
        raise InvalidArgument(f"{count} instances exceed the maximum of {max_tasks_per_job} "
                              f"tasks per job", field="instancecount")
    _check_identity(config)
    overrides = sorted(config.instanceConfig)
    for i in overrides:
        if i >= count:
            raise InvalidArgument(f"instance {i} is outside the job's {count} instances "
                                  f"(0..{count - 1})", field=f"instanceconfig.{i}")
    _validate_sla(config)

    default = config.defaultConfig
    default_set = _set_fields(default)
    first_default = _first_not_in(0, config.instanceConfig, count)
    default_checked = first_default is not None
    if first_default is not None:
        if default.controller:
            nonzero = _first_not_in(1, config.instanceConfig, count)
            if nonzero is not None:
                raise InvalidArgument(f"only instance 0 may be a controller task, but "
                                      f"instance {nonzero} gets controller from the default",
                                      field="defaultconfig.controller")
        _validate_task(default, lambda name: f"defaultconfig.{name.lower()}",
                       instance=first_default, config=config, capabilities=capabilities)

    for i in overrides:
        override = config.instanceConfig[i]
        override_set = _set_fields(override)

        def where(name: str, i: int = i, override_set: frozenset[str] = override_set) -> str:
            if name in override_set or name not in default_set:
                return f"instanceconfig.{i}.{name.lower()}"
            return f"defaultconfig.{name.lower()}"

        if i != 0 and (override.controller or default.controller):
            raise InvalidArgument(f"only instance 0 may be a controller task, but instance "
                                  f"{i} is one", field=where("controller"))
        if override_set <= _UNCHECKED_TASK_FIELDS:
            # For _validate_task this instance is the default: check that once only.
            _check_own_fields(override, where)
            if default_checked:
                continue
            default_checked = True
        _validate_task(merged_task_config(config, i), where, instance=i, config=config,
                       capabilities=capabilities)
    if default.HasField("constraint"):
        validate_constraint(default.constraint, "defaultconfig.constraint")
    for i in overrides:
        if config.instanceConfig[i].HasField("constraint"):
            validate_constraint(config.instanceConfig[i].constraint,
                                f"instanceconfig.{i}.constraint")
    check_supported(config)


_C, _LC = task_pb2.Constraint, task_pb2.LabelConstraint


def validate_constraint(c: task_pb2.Constraint, field: str, depth: int = 1) -> None:
    """A placement constraint says what it is and nothing else: a label
    constraint has a kind (TASK or HOST), a condition and a label key; an
    AND or OR constraint has constraints, each valid, nested at most
    MAX_CONSTRAINT_DEPTH levels. An empty constraint (type
    UNKNOWN_CONSTRAINT, nothing set) is no constraint."""
    if depth > MAX_CONSTRAINT_DEPTH:
        raise InvalidArgument(f"constraints nest more than {MAX_CONSTRAINT_DEPTH} levels deep",
                              field=field)
    parts = {"labelconstraint": c.HasField("labelConstraint"),
             "andconstraint": c.HasField("andConstraint"),
             "orconstraint": c.HasField("orConstraint")}
    wanted = {_C.LABEL_CONSTRAINT: "labelconstraint", _C.AND_CONSTRAINT: "andconstraint",
              _C.OR_CONSTRAINT: "orconstraint"}.get(c.type)
    if wanted is None:
        if any(parts.values()):
            raise InvalidArgument("a constraint needs a type (LABEL_CONSTRAINT, AND_CONSTRAINT "
                                  "or OR_CONSTRAINT)", field=f"{field}.type")
        return
    for name, present in parts.items():
        if present and name != wanted:
            raise InvalidArgument(f"a {_C.Type.Name(c.type)} has no {name}; it would be "
                                  "ignored", field=f"{field}.{name}")
    if c.type == _C.LABEL_CONSTRAINT:
        lc, where = c.labelConstraint, f"{field}.labelconstraint"
        if lc.kind not in (_LC.TASK, _LC.HOST):
            raise InvalidArgument("kind must be TASK (labels of the tasks on a host) or HOST "
                                  "(the host's attributes)", field=f"{where}.kind")
        if lc.condition == _LC.CONDITION_UNKNOWN:
            raise InvalidArgument("condition must be CONDITION_LESS_THAN, CONDITION_EQUAL or "
                                  "CONDITION_GREATER_THAN", field=f"{where}.condition")
        if not lc.label.key:
            raise InvalidArgument("a label constraint needs a label key", field=f"{where}.label")
        return
    items = c.andConstraint.constraints if c.type == _C.AND_CONSTRAINT else (
        c.orConstraint.constraints)
    if not items:
        raise InvalidArgument(f"an {_C.Type.Name(c.type)} needs at least one constraint",
                              field=f"{field}.{wanted}.constraints")
    for j, item in enumerate(items):
        validate_constraint(item, f"{field}.{wanted}.constraints[{j}]", depth + 1)


def _set_fields(task: task_pb2.TaskConfig) -> frozenset[str]:
    return frozenset(f.name for f, _ in task.ListFields())


def _first_not_in(start: int, taken: Any, count: int) -> int | None:
    """The smallest instance >= start that is below count and not in taken."""
    i = start
    while i < count and i in taken:
        i += 1
    return i if i < count else None


def pin_to_host(constraint: task_pb2.Constraint, hostname: str) -> task_pb2.Constraint:
    """``constraint`` and ``hostname == <hostname>`` (a HOST label leaf)."""
    pin = task_pb2.Constraint(type=task_pb2.Constraint.LABEL_CONSTRAINT,
                              labelConstraint=task_pb2.LabelConstraint(
                                  kind=task_pb2.LabelConstraint.HOST,
                                  condition=task_pb2.LabelConstraint.CONDITION_EQUAL,
                                  label=peloton_pb2.Label(key="hostname", value=hostname),
                                  requirement=1))
    if not constraint.ListFields():
        return pin
    both = task_pb2.Constraint(type=task_pb2.Constraint.AND_CONSTRAINT)
    both.andConstraint.constraints.add().CopyFrom(constraint)
    both.andConstraint.constraints.add().CopyFrom(pin)
    return both


def pinned_host(task: task_pb2.TaskConfig) -> str:
    """The host :func:`pin_to_host` pinned ``task`` to ("" if none)."""
    c = task.constraint
    if c.type == task_pb2.Constraint.AND_CONSTRAINT and c.andConstraint.constraints:
        c = c.andConstraint.constraints[-1]
    lc = c.labelConstraint
    if (c.type == task_pb2.Constraint.LABEL_CONSTRAINT and lc.kind == task_pb2.LabelConstraint.HOST
            and lc.label.key == "hostname"):
        return lc.label.value
    return ""


def with_daemon_hosts(config: job_pb2.JobConfig, hostnames: Sequence[str]) -> job_pb2.JobConfig:
    """``config`` with one more instance for each of ``hostnames``, pinned to it."""
    out = job_pb2.JobConfig()
    out.CopyFrom(config)
    for hostname in hostnames:
        out.instanceConfig[out.instanceCount].constraint.CopyFrom(
            pin_to_host(config.defaultConfig.constraint, hostname))
        out.instanceCount += 1
    return out


def runs_until_stopped(config: job_pb2.JobConfig) -> bool:
    """SERVICE and DAEMON jobs: every instance's goal is to run; a run that
    ends runs again (after Peloton's backoff) until the job is stopped."""
    return config.type in (job_pb2.SERVICE, job_pb2.DAEMON)


def _validate_sla(config: job_pb2.JobConfig) -> None:
    if config.type not in (job_pb2.BATCH, job_pb2.SERVICE, job_pb2.DAEMON):
        raise InvalidArgument(f"unknown job type {config.type}; known: BATCH, SERVICE, DAEMON",
                              field="type")
    sla = config.sla
    count = config.instanceCount or 1
    if runs_until_stopped(config):
        if sla.maxRunningTime:
            raise InvalidArgument("service jobs run until stopped; maxRunningTime is only "
                                  "for batch jobs", field="sla.maxrunningtime")
        if sla.minimumRunningInstances:
            raise InvalidArgument("service jobs do not support minimumRunningInstances",
                                  field="sla.minimumrunninginstances")
        if sla.maximumRunningInstances:
            raise InvalidArgument("service jobs do not support maximumRunningInstances",
                                  field="sla.maximumrunninginstances")
        if sla.revocable and not sla.preemptible:
            raise InvalidArgument("a revocable job must also be preemptible",
                                  field="sla.revocable")
    elif sla.maximumUnavailableInstances:
        raise InvalidArgument("maximumUnavailableInstances bounds how many instances of a "
                              "service job are down at once; batch jobs do not support it",
                              field="sla.maximumunavailableinstances")
    if sla.maximumRunningInstances > count:
        raise InvalidArgument(f"maximumRunningInstances {sla.maximumRunningInstances} is more "
                              f"than instanceCount {count}", field="sla.maximumrunninginstances")
    if (sla.minimumRunningInstances and sla.maximumRunningInstances
            and sla.minimumRunningInstances > sla.maximumRunningInstances):
        raise InvalidArgument(f"minimumRunningInstances {sla.minimumRunningInstances} is more "
                              f"than maximumRunningInstances {sla.maximumRunningInstances}",
                              field="sla.minimumrunninginstances")
    gang = min(sla.minimumRunningInstances, count)
    if gang > MAX_GANG_TASKS:
        raise InvalidArgument(f"minimumRunningInstances {sla.minimumRunningInstances} makes a "
                              f"gang of {gang} tasks; at most {MAX_GANG_TASKS} are placed as one",
                              field="sla.minimumrunninginstances")
    # Tasks of the gang are admitted together; one cannot opt out of the job's policy.
    for i in sorted(config.instanceConfig):
        if i < sla.minimumRunningInstances and config.instanceConfig[i].HasField(
                "preemptionPolicy"):
            raise InvalidArgument(f"instance {i} is in the gang (minimumRunningInstances "
                                  f"{sla.minimumRunningInstances}) and cannot override the "
                                  f"preemption policy",
                                  field=f"instanceconfig.{i}.preemptionpolicy")


def _validate_task(
    task: task_pb2.TaskConfig,
    where: Callable[[str], str],
    *,
    instance: int,
    config: job_pb2.JobConfig,
    capabilities: frozenset[str],
) -> None:
    """Check one instance's merged config; ``where(field)`` names a TaskConfig field."""
    if not task.HasField("command"):
        raise InvalidArgument(f"instance {instance} has no command", field=where("command"))
    # A non-shell command may leave value empty (a Docker image's entrypoint runs).
    if task.command.shell and not task.command.value.strip():
        raise InvalidArgument(f"instance {instance} has a shell command with an empty value",
                              field=where("command"))

    command = task.command
    check_value(command.value, f"{where('command')}.value", "the command")
    for j, argument in enumerate(command.arguments):
        check_value(argument, f"{where('command')}.arguments[{j}]", "an argument")
    for j, variable in enumerate(command.environment.variables):
        at = f"{where('command')}.environment.variables[{j}]"
        if not variable.name or "=" in variable.name:
            raise InvalidArgument(f"environment variable name {variable.name!r} must be "
                                  "non-empty and hold no '='", field=f"{at}.name")
        check_name(variable.name, f"{at}.name", "environment variable name")
        check_value(variable.value, f"{at}.value", f"the value of {variable.name}")
    _check_own_fields(task, where)
    _validate_ports(task, where)

    if config.type == job_pb2.BATCH:
        if task.healthCheck.ListFields():
            raise InvalidArgument("batch tasks cannot have a health check",
                                  field=where("healthCheck"))
        if task.HasField("executor"):
            raise InvalidArgument("batch tasks cannot have an executor", field=where("executor"))
    elif runs_until_stopped(config):
        _validate_health(task.healthCheck, where("healthCheck"))
        if task.HasField("executor") and (task.executor.type != mesos_pb2.ExecutorInfo.CUSTOM
                                          or not task.executor.data):
            raise InvalidArgument("a service task's executor must be CUSTOM with data",
                                  field=where("executor"))
        if task.preemptionPolicy.killOnPreempt:
            raise InvalidArgument("service tasks must be rescheduled after preemption; "
                                  "killOnPreempt must be false",
                                  field=f"{where('preemptionPolicy')}.killonpreempt")

    if task.restartPolicy.maxFailures > MAX_RESTART_FAILURES:
        raise InvalidArgument(f"maxFailures {task.restartPolicy.maxFailures} is more than "
                              f"{MAX_RESTART_FAILURES}",
                              field=f"{where('restartPolicy')}.maxfailures")

    for name in _RESOURCE_FIELDS:
        value = getattr(task.resource, name)
        if not math.isfinite(value) or value < 0:
            raise InvalidArgument(f"{name} must be a non-negative number, got {value}",
                                  field=f"{where('resource')}.{name.lower()}")
        if value > MAX_QUANTITY:
            raise InvalidArgument(f"{name} {value:g} is more than {MAX_QUANTITY:g}, the most "
                                  "any pool holds", field=f"{where('resource')}.{name.lower()}")
    if not task.resource.gpuLimit.is_integer():
        raise InvalidArgument(f"gpuLimit {task.resource.gpuLimit:g} is not a whole number; a "
                              "task holds whole GPU devices (as Mesos gives them)",
                              field=f"{where('resource')}.gpulimit")
    if task.resource.fdLimit > MAX_FD_LIMIT:
        raise InvalidArgument(f"fdLimit {task.resource.fdLimit} is more than {MAX_FD_LIMIT}, "
                              "Linux's most open files a process may have (fs.nr_open)",
                              field=f"{where('resource')}.fdlimit")
    if task.resource.cpuLimit <= 0:
        raise InvalidArgument(f"instance {instance} asks for no cpu; cpuLimit must be "
                              f"more than 0", field=f"{where('resource')}.cpulimit")

    _check_container(task, where, capabilities)


def _check_own_fields(task: task_pb2.TaskConfig, where: Callable[[str], str]) -> None:
    """The checks of fields in _UNCHECKED_TASK_FIELDS, each on its own:
    a printable task name and label keys, label values without NUL, the
    kill grace at most a day."""
    if task.name:
        check_name(task.name, where("name"), "task name")
    for j, label in enumerate(task.labels):
        check_name(label.key, f"{where('labels')}[{j}].key", "label key")
        check_value(label.value, f"{where('labels')}[{j}].value", "a label value")
    if task.killGracePeriodSeconds > MAX_KILL_GRACE_S:
        raise InvalidArgument(f"killGracePeriodSeconds {task.killGracePeriodSeconds} is more "
                              f"than a day ({MAX_KILL_GRACE_S})",
                              field=where("killGracePeriodSeconds"))
    if task.HasField("volume"):
        _check_volume(task.volume, where("volume"))


def _check_volume(volume: task_pb2.PersistentVolumeConfig, at: str) -> None:
    """A persistent volume: a size, and a path inside the sandbox."""
    path = volume.containerPath
    if not path:
        raise InvalidArgument("a persistent volume needs a containerPath (where it appears in "
                              "the sandbox)", field=f"{at}.containerpath")
    check_value(path, f"{at}.containerpath", "a containerPath")
    parts = path.split("/")
    if path.startswith("/") or ".." in parts or len(path) > 1024:
        raise InvalidArgument(f"{path!r} must be a path inside the sandbox (relative, without "
                              "'..')", field=f"{at}.containerpath")
    if not volume.sizeMB:
        raise InvalidArgument("a persistent volume needs a size (MB)", field=f"{at}.sizemb")


def _validate_ports(task: task_pb2.TaskConfig, where: Callable[[str], str]) -> None:
    """Ports named once each; a static port's number in 1..65535 and used
    once; a dynamic one (value 0) exported by an envName used once; at most
    MAX_DYNAMIC_PORTS dynamic ones (a host lease offers no more, so more
    could never be placed)."""
    names: dict[str, int] = {}
    values: dict[int, int] = {}
    envs: dict[str, int] = {}
    dynamic = 0
    for j, port in enumerate(task.ports):
        at = f"{where('ports')}[{j}]"
        if not port.name:
            raise InvalidArgument("a port needs a name", field=f"{at}.name")
        check_name(port.name, f"{at}.name", "port name", max_chars=255)
        if port.name in names:
            raise InvalidArgument(f"port name {port.name!r} is used twice (first at "
                                  f"ports[{names[port.name]}])", field=f"{at}.name")
        names[port.name] = j
        if port.value > 65535:
            raise InvalidArgument(f"port {port.name!r} has number {port.value}; ports are "
                                  "1..65535 (0: assigned on the host)", field=f"{at}.value")
        if port.value:
            if port.value in values:
                raise InvalidArgument(f"static port {port.value} is used twice (first at "
                                      f"ports[{values[port.value]}])", field=f"{at}.value")
            values[port.value] = j
        else:
            dynamic += 1
            if not port.envName:
                raise InvalidArgument(f"dynamic port {port.name!r} (value 0) needs an envName "
                                      f"to export the assigned port", field=f"{at}.envname")
        if port.envName:
            check_name(port.envName, f"{at}.envname", "envName", max_chars=255)
            if port.envName in envs:
                raise InvalidArgument(f"envName {port.envName!r} is used twice (first at "
                                      f"ports[{envs[port.envName]}])", field=f"{at}.envname")
            envs[port.envName] = j
    if dynamic > MAX_DYNAMIC_PORTS:
        raise InvalidArgument(f"{dynamic} dynamic ports; a task gets at most "
                              f"{MAX_DYNAMIC_PORTS} (no host lease offers more)",
                              field=where("ports"))


_HC = task_pb2.HealthCheckConfig


def _validate_health(check: task_pb2.HealthCheckConfig, field: str) -> None:
    """A service task's liveness check: settings only with ``enabled``, a
    COMMAND check with a command, an HTTP check with a port and a path."""
    if not check.enabled:
        if check.ListFields():
            name = check.ListFields()[0][0].name.lower()
            raise InvalidArgument("the health check is not enabled, so this would be ignored; "
                                  "set enabled: true or leave healthCheck out",
                                  field=f"{field}.{name}")
        return
    if check.type == _HC.GRPC:
        raise InvalidArgument("not supported yet: GRPC health checks; use COMMAND or HTTP",
                              field=f"{field}.type")
    if check.type not in (_HC.COMMAND, _HC.HTTP):
        raise InvalidArgument("an enabled health check needs a type: COMMAND or HTTP",
                              field=f"{field}.type")
    if check.type == _HC.COMMAND:
        if not check.commandCheck.command.strip():
            raise InvalidArgument("a COMMAND health check needs a command",
                                  field=f"{field}.commandcheck.command")
        if check.HasField("httpCheck"):
            raise InvalidArgument("a COMMAND health check has no httpCheck; it would be ignored",
                                  field=f"{field}.httpcheck")
        return
    http = check.httpCheck
    if not 0 < http.port < 65536:
        raise InvalidArgument(f"an HTTP health check needs a port from 1 to 65535, got "
                              f"{http.port}", field=f"{field}.httpcheck.port")
    if http.path and not http.path.startswith("/"):
        raise InvalidArgument(f"the path must start with '/', got {http.path!r}",
                              field=f"{field}.httpcheck.path")
    if http.scheme not in ("", "http"):
        raise InvalidArgument(f"not supported yet: scheme {http.scheme!r}; checks use http",
                              field=f"{field}.httpcheck.scheme")
    if check.HasField("commandCheck"):
        raise InvalidArgument("an HTTP health check has no commandCheck; it would be ignored",
                              field=f"{field}.commandcheck")


def _check_container(task: task_pb2.TaskConfig, where: Callable[[str], str],
                     capabilities: frozenset[str]) -> None:
    if not task.HasField("container"):
        return
    container = task.container
    if container.type == mesos_pb2.ContainerInfo.DOCKER or container.HasField("docker"):
        need, what = DOCKER, "a Docker container"
    elif container.HasField("mesos") and container.mesos.HasField("image"):
        need, what = MESOS_CONTAINERIZER, "a Mesos container image"
    else:
        # A Mesos container without an image is a plain process: nothing
        # would mount its volumes or set its hostname.
        for name in ("volumes", "hostname"):
            if getattr(container, name):
                raise InvalidArgument(
                    f"{name} needs a container (docker, or mesos with an image), but this "
                    f"task runs as a plain process; set container.docker or "
                    f"container.mesos.image, or leave {name} out",
                    field=f"{where('container')}.{name}")
        return
    if need in capabilities:
        return
    can = ", ".join(sorted(capabilities)) or "plain commands only"
    raise InvalidArgument(f"the task asks for {what}, but this cluster's host backend cannot "
                          f"run containers that need {need!r}; it can run: {can}",
                          field=where("container"))
