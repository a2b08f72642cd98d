"""The field registry: complete, its tests exist, its refusals refuse, docs agree."""

from __future__ import annotations

import ast
import functools
import pathlib
from collections import deque
from typing import Any

import pytest
from google.protobuf.descriptor import FieldDescriptor

from peloton.api.v0.job import job_pb2
from peloton.api.v0.respool import respool_pb2
from peloton.api.v0.task import task_pb2
from peloton.core.errors import InvalidArgument
from peloton.jobmgr.engine import is_preemptible
from peloton.jobmgr.model import Job
from peloton.spec.fields import (
    FIELDS,
    Implemented,
    Refused,
    check_supported,
    field_key,
    reachable_fields,
    render_markdown,
)
from peloton.spec.job import DOCKER, MESOS_CONTAINERIZER, load_job_config, validate_job_config
from peloton.spec.respool import validate_respool_config

ROOT = pathlib.Path(__file__).resolve().parents[2]
EVERY_CAPABILITY = frozenset({DOCKER, MESOS_CONTAINERIZER})


def base() -> job_pb2.JobConfig:
    config = job_pb2.JobConfig(name="j", instanceCount=4)
    config.defaultConfig.command.value = "true"
    config.defaultConfig.resource.cpuLimit = 1
    return config


# --------------------------------------------------------------------------- completeness


def test_every_reachable_field_is_listed_once_and_nothing_else() -> None:
    reachable = reachable_fields()
    assert sorted(set(reachable) - set(FIELDS)) == [], "add these fields to FIELDS"
    assert sorted(set(FIELDS) - set(reachable)) == [], "these FIELDS entries name no field"


def test_the_walk_reaches_sla_task_and_mesos_messages() -> None:
    reachable = reachable_fields()
    for key in ("SlaConfig.maxRunningTime", "TaskConfig.volume", "CommandInfo.URI.value",
                "ContainerInfo.DockerInfo.image", "OrConstraint.constraints",
                "HealthCheckConfig.HTTPCheck.path", "ExecutorInfo.command"):
        assert key in reachable


@functools.cache
def _test_names(path: str) -> frozenset[str]:
    """``name`` and ``Class::name`` of every test function in a file."""
    tree = ast.parse((ROOT / path).read_text(), filename=path)
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names.update(f"{node.name}::{item.name}" for item in node.body
                         if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef))
    return frozenset(names)


IMPLEMENTED = sorted((k, s.test) for k, s in FIELDS.items()
                     if isinstance(s, Implemented))


@pytest.mark.parametrize(("key", "node_id"), IMPLEMENTED, ids=[k for k, _ in IMPLEMENTED])
def test_an_implemented_field_names_a_test_that_exists(key: str, node_id: str) -> None:
    path, _, name = node_id.partition("::")
    assert (ROOT / path).is_file(), f"{key}: no test file {path}"
    assert name in _test_names(path), f"{key}: no test {name} in {path}"


# --------------------------------------------------------------------------- refusals


def _paths() -> dict[str, tuple[FieldDescriptor, ...]]:
    """For each field key, the shortest chain of fields from JobConfig to it
    (``defaultConfig`` before ``instanceConfig``, ``command`` before ``executor``)."""
    found: dict[str, tuple[FieldDescriptor, ...]] = {}
    todo: deque[tuple[Any, tuple[FieldDescriptor, ...]]] = deque(
        [(job_pb2.JobConfig.DESCRIPTOR, ())])
    seen: set[str] = set()
    while todo:
        desc, chain = todo.popleft()
        if desc.full_name in seen:
            continue
        seen.add(desc.full_name)
        for f in desc.fields:
            found.setdefault(field_key(f), (*chain, f))
            target = f.message_type
            if target is not None and not target.GetOptions().map_entry:
                todo.append((target, (*chain, f)))
    return found


PATHS = _paths()


def _set_non_default(message: Any, field: FieldDescriptor) -> str:
    """Give ``field`` of ``message`` a non-default value; return the leaf's path suffix."""
    if field.message_type is not None:
        child, index = getattr(message, field.name), ""
        if field.is_repeated:
            child, index = child.add(), "[0]"
        # a scalar leaf if there is one, else the first message field
        leaf = next((f for f in field.message_type.fields
                     if f.message_type is None and not f.is_repeated),
                    field.message_type.fields[0])
        return f"{index}.{leaf.name}{_set_non_default(child, leaf)}"
    if field.is_repeated:
        getattr(message, field.name).append(
            field.enum_type.values[-1].number if field.type == FieldDescriptor.TYPE_ENUM else "x")
    elif field.type == FieldDescriptor.TYPE_ENUM:
        setattr(message, field.name, field.enum_type.values[-1].number)
    elif field.type == FieldDescriptor.TYPE_BOOL:
        setattr(message, field.name, True)
    elif field.type == FieldDescriptor.TYPE_STRING:
        setattr(message, field.name, "x")
    elif field.type == FieldDescriptor.TYPE_BYTES:
        setattr(message, field.name, b"x")
    else:
        setattr(message, field.name, 1)
    return ""


def _normalised(path: str) -> str:
    return path.replace("_", "").lower()


def _refuse(key: str, *, instance: int | None = None) -> tuple[str, InvalidArgument]:
    """Set just ``key`` on a valid job (under instanceConfig[instance] when given)."""
    config = base()
    chain = PATHS[key]
    message: Any = config
    names = []
    if instance is not None and chain[0].name == "defaultConfig":
        message = config.instanceConfig[instance]
        names.append(f"instanceConfig.{instance}")
        chain = chain[1:]
    for f in chain[:-1]:
        message = getattr(message, f.name)
        names.append(f.name)
        if f.is_repeated:
            message = message.add()
            names[-1] += "[0]"
        if message.DESCRIPTOR.full_name == "mesos.v1.Environment.Variable":
            message.name = "X"  # a variable needs a name before anything else is looked at
    names.append(chain[-1].name)
    leaf = _set_non_default(message, chain[-1])
    path = _normalised(".".join(names))
    with pytest.raises(InvalidArgument) as e:
        validate_job_config(config, capabilities=EVERY_CAPABILITY)
    return path + _normalised(leaf), e.value


def _settable(key: str) -> bool:
    """A field that holds something: not an empty message kept for its
    presence alone (Mesos Resource.revocable), which is refused with the
    block around it."""
    target = PATHS[key][-1].message_type
    return target is None or bool(target.fields)


REFUSED = sorted(k for k, s in FIELDS.items() if isinstance(s, Refused) and _settable(k))


@pytest.mark.parametrize("key", REFUSED)
def test_a_refused_field_is_refused_at_create_naming_it(key: str) -> None:
    leaf, error = _refuse(key)
    # The error names the field (or the leaf set inside it), or a refused
    # block around it that Peloton's own rules reject first (batch executor).
    assert leaf.startswith(error.field or "?"), (key, error.field, leaf)
    assert (error.field or "").count(".") >= 1 or error.field == "type", error
    assert "not supported yet" in error.message or "cannot have" in error.message


TASK_REFUSED = [k for k in REFUSED if PATHS[k][0].name == "defaultConfig"]


@pytest.mark.parametrize("key", TASK_REFUSED)
def test_a_refused_task_field_is_refused_in_an_instance_config(key: str) -> None:
    leaf, error = _refuse(key, instance=3)
    assert leaf.startswith("instanceconfig.3.")
    assert leaf.startswith(error.field or "?"), (key, error.field, leaf)


def test_refusal_names_the_field_and_says_why() -> None:
    config = base()
    config.instanceConfig[3].command.CopyFrom(config.defaultConfig.command)
    config.instanceConfig[3].command.user = "root"
    with pytest.raises(InvalidArgument) as e:
        validate_job_config(config, capabilities=frozenset())
    assert e.value.field == "instanceconfig.3.command.user"
    assert e.value.message.startswith("not supported yet:")

    config = base()
    config.type = job_pb2.DAEMON  # the cluster counts a daemon job's instances
    with pytest.raises(InvalidArgument) as e:
        validate_job_config(config, capabilities=frozenset())
    assert e.value.field == "instancecount"
    assert "one instance on every host that fits" in e.value.message
    config.ClearField("instanceCount")
    validate_job_config(config, capabilities=frozenset())
    config.instanceConfig[0].name = "mine"
    with pytest.raises(InvalidArgument) as e:
        validate_job_config(config, capabilities=frozenset())
    assert e.value.field == "instanceconfig"


def test_defaults_and_empty_blocks_pass() -> None:
    config = base()
    config.type = job_pb2.BATCH
    config.defaultConfig.healthCheck.enabled = False  # present, but all default
    config.defaultConfig.volume.SetInParent()
    config.defaultConfig.executor.command.SetInParent()
    config.changeLog.SetInParent()
    assert config.defaultConfig.HasField("volume")
    check_supported(config)


def test_peloton_testjob_sets_only_implemented_fields() -> None:
    config, _ = load_job_config((ROOT / "peloton" / "examples" / "testjob.yaml").read_text())
    check_supported(config)


# --------------------------------------------------------------------------- effects


def test_job_metadata_is_stored_and_queryable() -> None:
    """name, owner (else owningTeam) and labels go in the job's row, which
    Query filters on; description and ldapGroups come back with the config."""
    config = base()
    config.owningTeam, config.description = "team6", "a dummy job"
    config.ldapGroups[:] = ["money", "otto"]
    config.labels.add(key="tier", value="1")
    row = Job.new("j1", 0, config, 100.0).row(100.0)
    assert (row.name, row.owner, row.labels) == ("j", "team6", [("tier", "1")])
    config.owner = "alice"
    row = Job.new("j1", 0, config, 100.0).row(100.0)
    assert row.owner == "alice"
    back = Job.from_rows(row, []).config
    assert back.description == "a dummy job"
    assert list(back.ldapGroups) == ["money", "otto"]


def test_container_settings_need_a_container() -> None:
    """volumes and hostname take effect in a container; on a plain process
    nothing would mount or set them, so they are refused there."""
    for name, value in (("volumes", [{"containerPath": "/x", "hostPath": "/x", "mode": 1}]),
                        ("hostname", "box")):
        plain = {"instanceCount": 1, "defaultConfig": {
            "command": {"value": "true"}, "resource": {"cpuLimit": 1},
            "container": {"type": "MESOS", name: value}}}
        with pytest.raises(InvalidArgument) as e:
            load_job_config(plain, capabilities=EVERY_CAPABILITY)
        assert e.value.field == f"defaultconfig.container.{name}"
        assert "plain process" in e.value.message
        docker = {"instanceCount": 1, "defaultConfig": {
            "command": {"value": "true"}, "resource": {"cpuLimit": 1},
            "container": {"type": "DOCKER", "docker": {"image": "debian"}, name: value}}}
        load_job_config(docker, capabilities=frozenset({DOCKER}))
        with pytest.raises(InvalidArgument) as e:
            load_job_config(docker, capabilities=frozenset())
        assert e.value.field == "defaultconfig.container"


def test_preemption_policy_type_overrides_the_job() -> None:
    config = base()
    config.sla.preemptible = True
    task = task_pb2.TaskConfig()
    assert is_preemptible(config, task)
    task.preemptionPolicy.type = task_pb2.PreemptionPolicy.TYPE_NON_PREEMPTIBLE
    assert not is_preemptible(config, task)
    config.sla.preemptible = False
    task.preemptionPolicy.type = task_pb2.PreemptionPolicy.TYPE_PREEMPTIBLE
    assert is_preemptible(config, task)


# --------------------------------------------------------------------------- enums


def _set_placement(c: job_pb2.JobConfig) -> None:
    c.placementStrategy = 99  # type: ignore[assignment]


def _set_preemption(c: job_pb2.JobConfig) -> None:
    c.instanceCount = 2
    c.instanceConfig[1].preemptionPolicy.type = 7  # type: ignore[assignment]


def _set_constraint(c: job_pb2.JobConfig) -> None:
    c.defaultConfig.constraint.type = 42  # type: ignore[assignment]


@pytest.mark.parametrize(("change", "field", "number"), [
    (_set_placement, "placementstrategy", 99),
    (_set_preemption, "instanceconfig.1.preemptionpolicy.type", 7),
    (_set_constraint, "defaultconfig.constraint.type", 42),
])
def test_an_enum_number_nothing_defines_is_refused(change: Any, field: str,
                                                   number: int) -> None:
    """proto3 enums are open: an API client may send any number. What no
    enum defines is refused, naming the field and the allowed values."""
    config = base()
    change(config)
    with pytest.raises(InvalidArgument) as caught:
        validate_job_config(config, capabilities=frozenset())
    assert caught.value.field == field
    assert caught.value.message.startswith(f"unknown value {number} for enum")
    assert "allowed:" in caught.value.message


def test_a_pools_enums_are_checked_too() -> None:
    config = respool_pb2.ResourcePoolConfig(name="p", policy=99)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="unknown value 99 for enum SchedulingPolicy"):
        validate_respool_config(config)
    config = respool_pb2.ResourcePoolConfig(name="p")
    config.resources.add(kind="cpu", reservation=1, limit=2, share=1, type=9)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument) as caught:
        validate_respool_config(config)
    assert caught.value.field == "resources[0].type"


# --------------------------------------------------------------------------- docs


def test_docs_list_what_the_registry_says() -> None:
    docs = (ROOT / "docs" / "fields.md").read_text()
    assert docs == render_markdown(), "regenerate: python -m peloton.spec.fields > docs/fields.md"


def test_a_field_below_a_refused_one_is_refused_for_that_ones_reason() -> None:
    """A Mesos Secret sits below a volume's source and an environment
    variable's secret: the error names the one the job set, and its reason."""
    config = base()
    variable = config.defaultConfig.command.environment.variables.add(name="TOKEN")
    variable.secret.value.data = b"hunter2"
    with pytest.raises(InvalidArgument) as e:
        validate_job_config(config, capabilities=EVERY_CAPABILITY)
    assert e.value.field == "defaultconfig.command.environment.variables[0].secret"
    assert "secrets are not supported" in e.value.message
