"""Stored protobuf bytes from before the API became wire-identical with Peloton's.

Until schema version 2 the store kept ``JobConfig``, job ``RuntimeInfo`` and
task ``RuntimeInfo`` in this project's first numbering of Peloton's v0
messages ("wire v1"): ``SlaConfig.revocable`` was 7 (upstream: 3),
``TaskConfig.executor`` 14 (upstream: 15), ``RuntimeInfo.mesosTaskId`` a
string (upstream: a ``mesos.v1.TaskID``), and so on. ``wire_v1.binpb`` is
the ``FileDescriptorSet`` of those protos, compiled from the last commit
that had them; :func:`upgrade` reads bytes with it and writes the same
values in the current messages, field by field and by name, so nothing the
old store held is lost or misread.
"""

from __future__ import annotations

import functools
from importlib import resources

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import Message

from peloton.api.v0.job import job_pb2
from peloton.api.v0.task import task_pb2

__all__ = ["upgrade_job_config", "upgrade_job_runtime", "upgrade_task_runtime"]

# Fields that changed their name with their number: (old message, old name) -> new name.
_RENAMED = {("peloton.api.v0.task.TerminationStatus", "exitCode"): "exit_code"}


@functools.cache
def _pool() -> descriptor_pool.DescriptorPool:
    data = resources.files(__package__).joinpath("wire_v1.binpb").read_bytes()
    pool = descriptor_pool.DescriptorPool()
    for file in descriptor_pb2.FileDescriptorSet.FromString(data).file:
        pool.Add(file)
    return pool


@functools.cache
def _v1(name: str) -> type[Message]:
    return message_factory.GetMessageClass(_pool().FindMessageTypeByName(name))


def _copy(old: Message, new: Message) -> None:
    """Every field set in ``old`` into the field of the same name in ``new``."""
    old_name = old.DESCRIPTOR.full_name
    fields = new.DESCRIPTOR.fields_by_name
    for field, value in old.ListFields():
        target = fields[_RENAMED.get((old_name, field.name), field.name)]
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            entries = getattr(new, target.name)
            for key, item in value.items():
                if isinstance(item, Message):
                    _copy(item, entries[key])
                else:
                    entries[key] = item
        elif field.message_type is not None and field.is_repeated:
            for item in value:
                _copy(item, getattr(new, target.name).add())
        elif field.message_type is not None:
            _copy(value, getattr(new, target.name))
        elif target.message_type is not None:
            # A string that became a message holding it (mesos.v1.TaskID, AgentID).
            getattr(new, target.name).value = value
        elif field.is_repeated:
            getattr(new, target.name).extend(value)
        else:
            setattr(new, target.name, value)


def _upgrade(data: bytes, old_name: str, new_type: type[Message]) -> bytes:
    new = new_type()
    _copy(_v1(old_name).FromString(data), new)
    return new.SerializeToString(deterministic=True)


def upgrade_job_config(data: bytes) -> bytes:
    return _upgrade(data, "peloton.api.v0.job.JobConfig", job_pb2.JobConfig)


def upgrade_job_runtime(data: bytes) -> bytes:
    return _upgrade(data, "peloton.api.v0.job.RuntimeInfo", job_pb2.RuntimeInfo)


def upgrade_task_runtime(data: bytes) -> bytes:
    return _upgrade(data, "peloton.api.v0.task.RuntimeInfo", task_pb2.RuntimeInfo)

