# Generated from peloton/api/v0/update/svc/update_svc.proto by tools/genproto.py. Do not edit.
from peloton.api.v0.job import job_pb2 as _job_pb2
from peloton.api.v0.peloton import peloton_pb2 as _peloton_pb2
from peloton.api.v0.update import update_pb2 as _update_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AbortUpdateRequest(_message.Message):
    __slots__ = ("updateId", "softAbort", "opaque_data")
    UPDATEID_FIELD_NUMBER: _ClassVar[int]
    SOFTABORT_FIELD_NUMBER: _ClassVar[int]
    OPAQUE_DATA_FIELD_NUMBER: _ClassVar[int]
    updateId: _peloton_pb2.UpdateID
    softAbort: bool
    opaque_data: _peloton_pb2.OpaqueData
    def __init__(self, updateId: _Optional[_Union[_peloton_pb2.UpdateID, _Mapping]] = ..., softAbort: _Optional[bool] = ..., opaque_data: _Optional[_Union[_peloton_pb2.OpaqueData, _Mapping]] = ...) -> None: ...

class AbortUpdateResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CreateUpdateRequest(_message.Message):
    __slots__ = ("jobId", "jobConfig", "updateConfig", "opaque_data")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    JOBCONFIG_FIELD_NUMBER: _ClassVar[int]
    UPDATECONFIG_FIELD_NUMBER: _ClassVar[int]
    OPAQUE_DATA_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    jobConfig: _job_pb2.JobConfig
    updateConfig: _update_pb2.UpdateConfig
    opaque_data: _peloton_pb2.OpaqueData
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., jobConfig: _Optional[_Union[_job_pb2.JobConfig, _Mapping]] = ..., updateConfig: _Optional[_Union[_update_pb2.UpdateConfig, _Mapping]] = ..., opaque_data: _Optional[_Union[_peloton_pb2.OpaqueData, _Mapping]] = ...) -> None: ...

class CreateUpdateResponse(_message.Message):
    __slots__ = ("updateID",)
    UPDATEID_FIELD_NUMBER: _ClassVar[int]
    updateID: _peloton_pb2.UpdateID
    def __init__(self, updateID: _Optional[_Union[_peloton_pb2.UpdateID, _Mapping]] = ...) -> None: ...

class GetUpdateCacheRequest(_message.Message):
    __slots__ = ("updateId",)
    UPDATEID_FIELD_NUMBER: _ClassVar[int]
    updateId: _peloton_pb2.UpdateID
    def __init__(self, updateId: _Optional[_Union[_peloton_pb2.UpdateID, _Mapping]] = ...) -> None: ...

class GetUpdateCacheResponse(_message.Message):
    __slots__ = ("jobId", "state", "instancesTotal", "instancesDone", "instancesCurrent", "instancesAdded", "instancesUpdated", "instancesFailed")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    INSTANCESTOTAL_FIELD_NUMBER: _ClassVar[int]
    INSTANCESDONE_FIELD_NUMBER: _ClassVar[int]
    INSTANCESCURRENT_FIELD_NUMBER: _ClassVar[int]
    INSTANCESADDED_FIELD_NUMBER: _ClassVar[int]
    INSTANCESUPDATED_FIELD_NUMBER: _ClassVar[int]
    INSTANCESFAILED_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    state: _update_pb2.State
    instancesTotal: _containers.RepeatedScalarFieldContainer[int]
    instancesDone: _containers.RepeatedScalarFieldContainer[int]
    instancesCurrent: _containers.RepeatedScalarFieldContainer[int]
    instancesAdded: _containers.RepeatedScalarFieldContainer[int]
    instancesUpdated: _containers.RepeatedScalarFieldContainer[int]
    instancesFailed: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., state: _Optional[_Union[_update_pb2.State, str]] = ..., instancesTotal: _Optional[_Iterable[int]] = ..., instancesDone: _Optional[_Iterable[int]] = ..., instancesCurrent: _Optional[_Iterable[int]] = ..., instancesAdded: _Optional[_Iterable[int]] = ..., instancesUpdated: _Optional[_Iterable[int]] = ..., instancesFailed: _Optional[_Iterable[int]] = ...) -> None: ...

class GetUpdateRequest(_message.Message):
    __slots__ = ("updateId", "statusOnly")
    UPDATEID_FIELD_NUMBER: _ClassVar[int]
    STATUSONLY_FIELD_NUMBER: _ClassVar[int]
    updateId: _peloton_pb2.UpdateID
    statusOnly: bool
    def __init__(self, updateId: _Optional[_Union[_peloton_pb2.UpdateID, _Mapping]] = ..., statusOnly: _Optional[bool] = ...) -> None: ...

class GetUpdateResponse(_message.Message):
    __slots__ = ("updateInfo",)
    UPDATEINFO_FIELD_NUMBER: _ClassVar[int]
    updateInfo: _update_pb2.UpdateInfo
    def __init__(self, updateInfo: _Optional[_Union[_update_pb2.UpdateInfo, _Mapping]] = ...) -> None: ...

class ListUpdatesRequest(_message.Message):
    __slots__ = ("limit", "jobID")
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    JOBID_FIELD_NUMBER: _ClassVar[int]
    limit: int
    jobID: _peloton_pb2.JobID
    def __init__(self, limit: _Optional[int] = ..., jobID: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ...) -> None: ...

class ListUpdatesResponse(_message.Message):
    __slots__ = ("updateInfo",)
    UPDATEINFO_FIELD_NUMBER: _ClassVar[int]
    updateInfo: _containers.RepeatedCompositeFieldContainer[_update_pb2.UpdateInfo]
    def __init__(self, updateInfo: _Optional[_Iterable[_Union[_update_pb2.UpdateInfo, _Mapping]]] = ...) -> None: ...

class PauseUpdateRequest(_message.Message):
    __slots__ = ("updateId", "opaque_data")
    UPDATEID_FIELD_NUMBER: _ClassVar[int]
    OPAQUE_DATA_FIELD_NUMBER: _ClassVar[int]
    updateId: _peloton_pb2.UpdateID
    opaque_data: _peloton_pb2.OpaqueData
    def __init__(self, updateId: _Optional[_Union[_peloton_pb2.UpdateID, _Mapping]] = ..., opaque_data: _Optional[_Union[_peloton_pb2.OpaqueData, _Mapping]] = ...) -> None: ...

class PauseUpdateResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ResumeUpdateRequest(_message.Message):
    __slots__ = ("updateId", "opaque_data")
    UPDATEID_FIELD_NUMBER: _ClassVar[int]
    OPAQUE_DATA_FIELD_NUMBER: _ClassVar[int]
    updateId: _peloton_pb2.UpdateID
    opaque_data: _peloton_pb2.OpaqueData
    def __init__(self, updateId: _Optional[_Union[_peloton_pb2.UpdateID, _Mapping]] = ..., opaque_data: _Optional[_Union[_peloton_pb2.OpaqueData, _Mapping]] = ...) -> None: ...

class ResumeUpdateResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RollbackUpdateRequest(_message.Message):
    __slots__ = ("updateId",)
    UPDATEID_FIELD_NUMBER: _ClassVar[int]
    updateId: _peloton_pb2.UpdateID
    def __init__(self, updateId: _Optional[_Union[_peloton_pb2.UpdateID, _Mapping]] = ...) -> None: ...

class RollbackUpdateResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
