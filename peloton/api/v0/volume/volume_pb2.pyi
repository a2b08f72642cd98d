# Generated from peloton/api/v0/volume/volume.proto by tools/genproto.py. Do not edit.
from peloton.api.v0.peloton import peloton_pb2 as _peloton_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class VolumeState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UNKNOWN: _ClassVar[VolumeState]
    INITIALIZED: _ClassVar[VolumeState]
    CREATED: _ClassVar[VolumeState]
    DELETED: _ClassVar[VolumeState]
UNKNOWN: VolumeState
INITIALIZED: VolumeState
CREATED: VolumeState
DELETED: VolumeState

class PersistentVolumeInfo(_message.Message):
    __slots__ = ("id", "jobId", "instanceId", "hostname", "state", "goalState", "sizeMB", "containerPath", "createTime", "updateTime")
    ID_FIELD_NUMBER: _ClassVar[int]
    JOBID_FIELD_NUMBER: _ClassVar[int]
    INSTANCEID_FIELD_NUMBER: _ClassVar[int]
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    GOALSTATE_FIELD_NUMBER: _ClassVar[int]
    SIZEMB_FIELD_NUMBER: _ClassVar[int]
    CONTAINERPATH_FIELD_NUMBER: _ClassVar[int]
    CREATETIME_FIELD_NUMBER: _ClassVar[int]
    UPDATETIME_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.VolumeID
    jobId: _peloton_pb2.JobID
    instanceId: int
    hostname: str
    state: VolumeState
    goalState: VolumeState
    sizeMB: int
    containerPath: str
    createTime: str
    updateTime: str
    def __init__(self, id: _Optional[_Union[_peloton_pb2.VolumeID, _Mapping]] = ..., jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., instanceId: _Optional[int] = ..., hostname: _Optional[str] = ..., state: _Optional[_Union[VolumeState, str]] = ..., goalState: _Optional[_Union[VolumeState, str]] = ..., sizeMB: _Optional[int] = ..., containerPath: _Optional[str] = ..., createTime: _Optional[str] = ..., updateTime: _Optional[str] = ...) -> None: ...
