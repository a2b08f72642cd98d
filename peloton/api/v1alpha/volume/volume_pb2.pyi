# Generated from peloton/api/v1alpha/volume/volume.proto by tools/genproto.py. Do not edit.
from peloton.api.v1alpha.peloton import peloton_pb2 as _peloton_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class VolumeState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VOLUME_STATE_INVALID: _ClassVar[VolumeState]
    VOLUME_STATE_INITIALIZED: _ClassVar[VolumeState]
    VOLUME_STATE_CREATED: _ClassVar[VolumeState]
    VOLUME_STATE_DELETED: _ClassVar[VolumeState]
VOLUME_STATE_INVALID: VolumeState
VOLUME_STATE_INITIALIZED: VolumeState
VOLUME_STATE_CREATED: VolumeState
VOLUME_STATE_DELETED: VolumeState

class VolumeSpec(_message.Message):
    __slots__ = ("name", "type", "empty_dir", "host_path")
    class VolumeType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        VOLUME_TYPE_INVALID: _ClassVar[VolumeSpec.VolumeType]
        VOLUME_TYPE_EMPTY_DIR: _ClassVar[VolumeSpec.VolumeType]
        VOLUME_TYPE_HOST_PATH: _ClassVar[VolumeSpec.VolumeType]
    VOLUME_TYPE_INVALID: VolumeSpec.VolumeType
    VOLUME_TYPE_EMPTY_DIR: VolumeSpec.VolumeType
    VOLUME_TYPE_HOST_PATH: VolumeSpec.VolumeType
    class EmptyDirVolumeSource(_message.Message):
        __slots__ = ("medium", "size_in_mb")
        MEDIUM_FIELD_NUMBER: _ClassVar[int]
        SIZE_IN_MB_FIELD_NUMBER: _ClassVar[int]
        medium: str
        size_in_mb: int
        def __init__(self, medium: _Optional[str] = ..., size_in_mb: _Optional[int] = ...) -> None: ...
    class HostPathVolumeSource(_message.Message):
        __slots__ = ("path",)
        PATH_FIELD_NUMBER: _ClassVar[int]
        path: str
        def __init__(self, path: _Optional[str] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    EMPTY_DIR_FIELD_NUMBER: _ClassVar[int]
    HOST_PATH_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: VolumeSpec.VolumeType
    empty_dir: VolumeSpec.EmptyDirVolumeSource
    host_path: VolumeSpec.HostPathVolumeSource
    def __init__(self, name: _Optional[str] = ..., type: _Optional[_Union[VolumeSpec.VolumeType, str]] = ..., empty_dir: _Optional[_Union[VolumeSpec.EmptyDirVolumeSource, _Mapping]] = ..., host_path: _Optional[_Union[VolumeSpec.HostPathVolumeSource, _Mapping]] = ...) -> None: ...

class PersistentVolumeInfo(_message.Message):
    __slots__ = ("volume_id", "pod_name", "hostname", "state", "desired_state", "size_mb", "container_path", "create_time", "update_time")
    VOLUME_ID_FIELD_NUMBER: _ClassVar[int]
    POD_NAME_FIELD_NUMBER: _ClassVar[int]
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    DESIRED_STATE_FIELD_NUMBER: _ClassVar[int]
    SIZE_MB_FIELD_NUMBER: _ClassVar[int]
    CONTAINER_PATH_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    volume_id: _peloton_pb2.VolumeID
    pod_name: _peloton_pb2.PodName
    hostname: str
    state: VolumeState
    desired_state: VolumeState
    size_mb: int
    container_path: str
    create_time: str
    update_time: str
    def __init__(self, volume_id: _Optional[_Union[_peloton_pb2.VolumeID, _Mapping]] = ..., pod_name: _Optional[_Union[_peloton_pb2.PodName, _Mapping]] = ..., hostname: _Optional[str] = ..., state: _Optional[_Union[VolumeState, str]] = ..., desired_state: _Optional[_Union[VolumeState, str]] = ..., size_mb: _Optional[int] = ..., container_path: _Optional[str] = ..., create_time: _Optional[str] = ..., update_time: _Optional[str] = ...) -> None: ...
