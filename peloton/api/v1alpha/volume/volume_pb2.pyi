# Generated from peloton/api/v1alpha/volume/volume.proto by tools/genproto.py. Do not edit.
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

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
