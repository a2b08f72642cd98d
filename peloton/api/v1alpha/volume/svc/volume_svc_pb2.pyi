# Generated from peloton/api/v1alpha/volume/svc/volume_svc.proto by tools/genproto.py. Do not edit.
from peloton.api.v1alpha.peloton import peloton_pb2 as _peloton_pb2
from peloton.api.v1alpha.volume import volume_pb2 as _volume_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListVolumesRequest(_message.Message):
    __slots__ = ("job_id",)
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: _peloton_pb2.JobID
    def __init__(self, job_id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ...) -> None: ...

class ListVolumesResponse(_message.Message):
    __slots__ = ("volumes",)
    class VolumesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _volume_pb2.PersistentVolumeInfo
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_volume_pb2.PersistentVolumeInfo, _Mapping]] = ...) -> None: ...
    VOLUMES_FIELD_NUMBER: _ClassVar[int]
    volumes: _containers.MessageMap[str, _volume_pb2.PersistentVolumeInfo]
    def __init__(self, volumes: _Optional[_Mapping[str, _volume_pb2.PersistentVolumeInfo]] = ...) -> None: ...

class GetVolumeRequest(_message.Message):
    __slots__ = ("volume_id",)
    VOLUME_ID_FIELD_NUMBER: _ClassVar[int]
    volume_id: _peloton_pb2.VolumeID
    def __init__(self, volume_id: _Optional[_Union[_peloton_pb2.VolumeID, _Mapping]] = ...) -> None: ...

class GetVolumeResponse(_message.Message):
    __slots__ = ("result",)
    RESULT_FIELD_NUMBER: _ClassVar[int]
    result: _volume_pb2.PersistentVolumeInfo
    def __init__(self, result: _Optional[_Union[_volume_pb2.PersistentVolumeInfo, _Mapping]] = ...) -> None: ...

class DeleteVolumeRequest(_message.Message):
    __slots__ = ("volume_id",)
    VOLUME_ID_FIELD_NUMBER: _ClassVar[int]
    volume_id: _peloton_pb2.VolumeID
    def __init__(self, volume_id: _Optional[_Union[_peloton_pb2.VolumeID, _Mapping]] = ...) -> None: ...

class DeleteVolumeResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
