"""Our protos are wire-identical with upstream Peloton's.

``tests/data/peloton-api-wire.txt`` holds upstream's wire facts (uber/peloton
a69e935): every message's field numbers, names, types and labels, every
enum's values, every method path. A client generated from upstream's own
``.proto`` files decodes our bytes only where they match exactly, so every
message, enum and method this project defines under ``peloton.api.*`` and
``mesos.v1`` is compared with that table here, and any difference fails.

Our own additions are allowed only where an upstream client cannot see them:
fields numbered 100 and up in a message (a number upstream leaves unused),
and the messages and methods listed in ``EXTENSIONS``.
"""

from __future__ import annotations

import importlib
import pathlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from google.protobuf.descriptor import FieldDescriptor

ROOT = pathlib.Path(__file__).resolve().parents[2]
TABLE = ROOT / "tests" / "data" / "peloton-api-wire.txt"

# Messages and methods in upstream's packages that upstream does not have.
EXTENSIONS = frozenset({
    # `task logs` reads a sandbox file through the cluster, not from an agent.
    "peloton.api.v0.task.ReadSandboxFileRequest",
    "peloton.api.v0.task.ReadSandboxFileResponse",
    "/peloton.api.v0.task.TaskManager/ReadSandboxFile",
    # `respool get --pending`: the gangs waiting in a pool, and why.
    "peloton.api.v0.respool.PendingGang",
})
FIRST_EXTENSION_FIELD = 100

# Upstream's map fields: (key type, value type). The table names a map's
# entry message; these are the entries' fields.
MAPS = {
    "peloton.api.v0.job.JobConfig.InstanceConfigEntry": ("uint32", "peloton.api.v0.task.TaskConfig"),
    "peloton.api.v0.job.RuntimeInfo.TaskStatsEntry": ("string", "uint32"),
    "peloton.api.v0.job.RuntimeInfo.ResourceUsageEntry": ("string", "double"),
    "peloton.api.v0.job.RuntimeInfo.TaskConfigVersionStatsEntry": ("uint64", "uint32"),
    "peloton.api.v0.job.RuntimeInfo.TaskStatsByConfigurationVersionEntry": (
        "uint64", "peloton.api.v0.job.RuntimeInfo.TaskStateStats"),
    "peloton.api.v0.job.RuntimeInfo.TaskStateStats.StateStatsEntry": ("string", "uint32"),
    "peloton.api.v0.task.RuntimeInfo.PortsEntry": ("string", "uint32"),
    "peloton.api.v0.task.RuntimeInfo.ResourceUsageEntry": ("string", "double"),
    "peloton.api.v0.task.ListResponse.Result.ValueEntry": ("uint32", "peloton.api.v0.task.TaskInfo"),
    "peloton.api.v0.task.svc.ListTasksResponse.TasksEntry": ("uint32",
                                                            "peloton.api.v0.task.TaskInfo"),
    "peloton.api.v1alpha.job.stateless.JobSpec.InstanceSpecEntry": (
        "uint32", "peloton.api.v1alpha.pod.PodSpec"),
    "peloton.api.v1alpha.job.stateless.JobStatus.PodStatsEntry": ("string", "uint32"),
    "peloton.api.v1alpha.job.stateless.JobStatus.PodConfigurationVersionStatsEntry": (
        "string", "uint32"),
    "peloton.api.v1alpha.job.stateless.JobStatus.PodStatsByConfigurationVersionEntry": (
        "string", "peloton.api.v1alpha.job.stateless.JobStatus.PodStateStats"),
    "peloton.api.v1alpha.job.stateless.JobStatus.PodStateStats.StateStatsEntry": (
        "string", "uint32"),
    "peloton.api.v1alpha.pod.ContainerStatus.PortsEntry": ("string", "uint32"),
    "peloton.api.v1alpha.pod.PodStatus.ResourceUsageEntry": ("string", "double"),
    "peloton.api.v0.volume.svc.ListVolumesResponse.VolumesEntry": (
        "string", "peloton.api.v0.volume.PersistentVolumeInfo"),
    "peloton.api.v1alpha.volume.svc.ListVolumesResponse.VolumesEntry": (
        "string", "peloton.api.v1alpha.volume.PersistentVolumeInfo"),
}

_SCALARS = {
    FieldDescriptor.TYPE_DOUBLE: "double", FieldDescriptor.TYPE_FLOAT: "float",
    FieldDescriptor.TYPE_INT64: "int64", FieldDescriptor.TYPE_UINT64: "uint64",
    FieldDescriptor.TYPE_INT32: "int32", FieldDescriptor.TYPE_FIXED64: "fixed64",
    FieldDescriptor.TYPE_FIXED32: "fixed32", FieldDescriptor.TYPE_BOOL: "bool",
    FieldDescriptor.TYPE_STRING: "string", FieldDescriptor.TYPE_BYTES: "bytes",
    FieldDescriptor.TYPE_UINT32: "uint32", FieldDescriptor.TYPE_SFIXED32: "sfixed32",
    FieldDescriptor.TYPE_SFIXED64: "sfixed64", FieldDescriptor.TYPE_SINT32: "sint32",
    FieldDescriptor.TYPE_SINT64: "sint64",
}


@dataclass(frozen=True)
class Upstream:
    messages: dict[str, dict[int, tuple[str, bool, str]]]  # number -> (name, repeated, type)
    enums: dict[str, dict[int, str]]
    methods: dict[str, tuple[str, bool, str, bool]]  # path -> (in, streams, out, streams)


def _read_table() -> Upstream:
    up = Upstream({}, {}, {})
    current: dict[Any, Any] = {}
    for line in TABLE.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        head = re.match(r"^(message|enum|service) (\S+)", line)
        if head:
            kind, name = head.groups()
            current = {"message": up.messages, "enum": up.enums}.get(kind, {}).setdefault(name, {})
            continue
        field = re.fullmatch(r"\s+(\d+) (\S+) : (repeated )?(\S+)", line)
        value = re.fullmatch(r"\s+(-?\d+) (\S+)", line)
        method = re.fullmatch(r"\s+rpc (\S+) \((stream )?(\S+)\) -> \((stream )?(\S+)\)", line)
        if field:
            number, fname, repeated, ftype = field.groups()
            current[int(number)] = (fname, bool(repeated), ftype)
        elif value:
            current[int(value.group(1))] = value.group(2)
        elif method:
            path, cs, req, ss, resp = method.groups()
            up.methods[path] = (req, bool(cs), resp, bool(ss))
        else:
            raise AssertionError(f"unreadable line in {TABLE.name}: {line!r}")
    return up


UPSTREAM = _read_table()


def _our_files() -> Iterator[Any]:
    for path in sorted((ROOT / "peloton" / "api").rglob("*_pb2.py")):
        module = importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts))
        fd = module.DESCRIPTOR
        if fd.package.startswith(("peloton.api.", "mesos.v1")):
            yield fd


def _nested(message: Any) -> Iterator[Any]:
    yield message
    for child in message.nested_types:
        yield from _nested(child)


def _messages() -> list[Any]:
    return [m for fd in _our_files() for top in fd.message_types_by_name.values()
            for m in _nested(top)]


def _type_name(field: Any) -> str:
    if field.message_type is not None:
        return str(field.message_type.full_name)
    if field.enum_type is not None:
        return str(field.enum_type.full_name)
    return _SCALARS[field.type]


def _differences(message: Any) -> list[str]:
    name = message.full_name
    if message.GetOptions().map_entry:
        key, value = (message.fields_by_name[k] for k in ("key", "value"))
        want = MAPS.get(name)
        got = (_type_name(key), _type_name(value))
        return [] if want == got else [f"map {name}: ours {got}, upstream {want}"]
    if name in EXTENSIONS:
        return []
    upstream = UPSTREAM.messages.get(name)
    if upstream is None:
        return [f"{name}: not an upstream message (list it in EXTENSIONS if it is ours)"]
    out = []
    ours = {f.number: f for f in message.fields}
    for number, field in sorted(ours.items()):
        got = (field.name, field.is_repeated, _type_name(field))
        if number >= FIRST_EXTENSION_FIELD and number not in upstream:
            continue
        if upstream.get(number) != got:
            out.append(f"{name} field {number}: ours {got}, upstream {upstream.get(number)}")
    out += [f"{name} field {number}: missing, upstream {want}"
            for number, want in sorted(upstream.items()) if number not in ours]
    return out


MESSAGES = _messages()


def test_the_table_is_read_whole() -> None:
    assert len(UPSTREAM.messages) > 500 and len(UPSTREAM.enums) > 50
    assert UPSTREAM.messages["peloton.api.v0.job.SlaConfig"][7][0] == "maximumUnavailableInstances"
    assert len(MESSAGES) > 150


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: m.full_name)
def test_message_is_wire_identical(message: Any) -> None:
    assert _differences(message) == []


def test_every_message_enum_and_method_matches_upstream() -> None:
    """One list of every difference, to read at once."""
    out = [d for m in MESSAGES for d in _differences(m)]
    for fd in _our_files():
        enums = list(fd.enum_types_by_name.values()) + [
            e for top in fd.message_types_by_name.values() for m in _nested(top)
            for e in m.enum_types]
        for enum in enums:
            got = {v.number: v.name for v in enum.values}
            if got != UPSTREAM.enums.get(enum.full_name):
                out.append(f"enum {enum.full_name}: ours {got}, "
                           f"upstream {UPSTREAM.enums.get(enum.full_name)}")
        for service in fd.services_by_name.values():
            for method in service.methods:
                path = f"/{service.full_name}/{method.name}"
                got = (method.input_type.full_name, method.client_streaming,
                       method.output_type.full_name, method.server_streaming)
                if path in EXTENSIONS:
                    assert path not in UPSTREAM.methods, path
                elif UPSTREAM.methods.get(path) != got:
                    out.append(f"rpc {path}: ours {got}, upstream {UPSTREAM.methods.get(path)}")
        want = "proto2" if fd.package.startswith("mesos.") else "proto3"
        # (the descriptor API no longer tells a file's syntax: read the source)
        declared = re.search(r'^syntax = "(proto\d)";', (ROOT / fd.name).read_text(), re.M)
        syntax = declared.group(1) if declared else "proto2"
        if syntax != want:
            out.append(f"{fd.name}: {syntax}, upstream {want}")
    assert out == []


def test_extension_fields_take_numbers_upstream_leaves_unused() -> None:
    for message in MESSAGES:
        upstream = UPSTREAM.messages.get(message.full_name, {})
        for field in message.fields:
            if field.number >= FIRST_EXTENSION_FIELD:
                assert field.number not in upstream, (message.full_name, field.name)


def test_a_difference_is_found() -> None:
    """The comparison itself: a renumbered field, a wrong type, a missing
    field and an unknown message are each reported."""
    from peloton.api.v0.job import job_pb2
    sla = job_pb2.SlaConfig.DESCRIPTOR
    assert _differences(sla) == []
    saved = UPSTREAM.messages[sla.full_name]
    try:
        UPSTREAM.messages[sla.full_name] = {**saved, 3: ("preemptible", False, "bool")}
        assert any("field 3" in d for d in _differences(sla))
        UPSTREAM.messages[sla.full_name] = {**saved, 8: ("extra", False, "uint32")}
        assert _differences(sla) == [f"{sla.full_name} field 8: missing, upstream "
                                     "('extra', False, 'uint32')"]
    finally:
        UPSTREAM.messages[sla.full_name] = saved
    del UPSTREAM.messages[sla.full_name]
    try:
        assert "not an upstream message" in _differences(sla)[0]
    finally:
        UPSTREAM.messages[sla.full_name] = saved
