# Generated from peloton/api/v0/job/svc/job_svc.proto by tools/genproto.py. Do not edit.
from peloton.api.v0.job import job_pb2 as _job_pb2
from peloton.api.v0.peloton import peloton_pb2 as _peloton_pb2
from peloton.api.v0.query import query_pb2 as _query_pb2
from peloton.api.v0.respool import respool_pb2 as _respool_pb2
from peloton.api.v0.task import task_pb2 as _task_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreateJobRequest(_message.Message):
    __slots__ = ("id", "pool", "config", "secrets")
    ID_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    SECRETS_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    pool: _respool_pb2.ResourcePoolPath
    config: _job_pb2.JobConfig
    secrets: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Secret]
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., pool: _Optional[_Union[_respool_pb2.ResourcePoolPath, _Mapping]] = ..., config: _Optional[_Union[_job_pb2.JobConfig, _Mapping]] = ..., secrets: _Optional[_Iterable[_Union[_peloton_pb2.Secret, _Mapping]]] = ...) -> None: ...

class CreateJobResponse(_message.Message):
    __slots__ = ("jobId",)
    JOBID_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ...) -> None: ...

class GetJobRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ...) -> None: ...

class GetJobResponse(_message.Message):
    __slots__ = ("result", "secrets")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    SECRETS_FIELD_NUMBER: _ClassVar[int]
    result: _job_pb2.JobConfig
    secrets: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Secret]
    def __init__(self, result: _Optional[_Union[_job_pb2.JobConfig, _Mapping]] = ..., secrets: _Optional[_Iterable[_Union[_peloton_pb2.Secret, _Mapping]]] = ...) -> None: ...

class QueryJobsRequest(_message.Message):
    __slots__ = ("spec", "pagination")
    SPEC_FIELD_NUMBER: _ClassVar[int]
    PAGINATION_FIELD_NUMBER: _ClassVar[int]
    spec: _job_pb2.QuerySpec
    pagination: _query_pb2.PaginationSpec
    def __init__(self, spec: _Optional[_Union[_job_pb2.QuerySpec, _Mapping]] = ..., pagination: _Optional[_Union[_query_pb2.PaginationSpec, _Mapping]] = ...) -> None: ...

class QueryJobsResponse(_message.Message):
    __slots__ = ("records", "pagination", "spec")
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    PAGINATION_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    records: _containers.RepeatedCompositeFieldContainer[_job_pb2.JobInfo]
    pagination: _query_pb2.Pagination
    spec: _job_pb2.QuerySpec
    def __init__(self, records: _Optional[_Iterable[_Union[_job_pb2.JobInfo, _Mapping]]] = ..., pagination: _Optional[_Union[_query_pb2.Pagination, _Mapping]] = ..., spec: _Optional[_Union[_job_pb2.QuerySpec, _Mapping]] = ...) -> None: ...

class DeleteJobRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ...) -> None: ...

class DeleteJobResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class UpdateJobRequest(_message.Message):
    __slots__ = ("id", "config", "secrets")
    ID_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    SECRETS_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    config: _job_pb2.JobConfig
    secrets: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Secret]
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., config: _Optional[_Union[_job_pb2.JobConfig, _Mapping]] = ..., secrets: _Optional[_Iterable[_Union[_peloton_pb2.Secret, _Mapping]]] = ...) -> None: ...

class UpdateJobResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RestartConfig(_message.Message):
    __slots__ = ("batchSize",)
    BATCHSIZE_FIELD_NUMBER: _ClassVar[int]
    batchSize: int
    def __init__(self, batchSize: _Optional[int] = ...) -> None: ...

class RestartJobRequest(_message.Message):
    __slots__ = ("id", "ranges", "resourceVersion", "restartConfig")
    ID_FIELD_NUMBER: _ClassVar[int]
    RANGES_FIELD_NUMBER: _ClassVar[int]
    RESOURCEVERSION_FIELD_NUMBER: _ClassVar[int]
    RESTARTCONFIG_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    ranges: _containers.RepeatedCompositeFieldContainer[_task_pb2.InstanceRange]
    resourceVersion: int
    restartConfig: RestartConfig
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., ranges: _Optional[_Iterable[_Union[_task_pb2.InstanceRange, _Mapping]]] = ..., resourceVersion: _Optional[int] = ..., restartConfig: _Optional[_Union[RestartConfig, _Mapping]] = ...) -> None: ...

class RestartJobResponse(_message.Message):
    __slots__ = ("resourceVersion", "updateID")
    RESOURCEVERSION_FIELD_NUMBER: _ClassVar[int]
    UPDATEID_FIELD_NUMBER: _ClassVar[int]
    resourceVersion: int
    updateID: _peloton_pb2.UpdateID
    def __init__(self, resourceVersion: _Optional[int] = ..., updateID: _Optional[_Union[_peloton_pb2.UpdateID, _Mapping]] = ...) -> None: ...

class RefreshJobRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ...) -> None: ...

class RefreshJobResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetJobCacheRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ...) -> None: ...

class GetJobCacheResponse(_message.Message):
    __slots__ = ("config", "runtime")
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    RUNTIME_FIELD_NUMBER: _ClassVar[int]
    config: _job_pb2.JobConfig
    runtime: _job_pb2.RuntimeInfo
    def __init__(self, config: _Optional[_Union[_job_pb2.JobConfig, _Mapping]] = ..., runtime: _Optional[_Union[_job_pb2.RuntimeInfo, _Mapping]] = ...) -> None: ...

class StartConfig(_message.Message):
    __slots__ = ("batchSize",)
    BATCHSIZE_FIELD_NUMBER: _ClassVar[int]
    batchSize: int
    def __init__(self, batchSize: _Optional[int] = ...) -> None: ...

class StartJobRequest(_message.Message):
    __slots__ = ("id", "ranges", "resourceVersion", "startConfig")
    ID_FIELD_NUMBER: _ClassVar[int]
    RANGES_FIELD_NUMBER: _ClassVar[int]
    RESOURCEVERSION_FIELD_NUMBER: _ClassVar[int]
    STARTCONFIG_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    ranges: _containers.RepeatedCompositeFieldContainer[_task_pb2.InstanceRange]
    resourceVersion: int
    startConfig: StartConfig
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., ranges: _Optional[_Iterable[_Union[_task_pb2.InstanceRange, _Mapping]]] = ..., resourceVersion: _Optional[int] = ..., startConfig: _Optional[_Union[StartConfig, _Mapping]] = ...) -> None: ...

class StartJobResponse(_message.Message):
    __slots__ = ("resourceVersion", "updateID")
    RESOURCEVERSION_FIELD_NUMBER: _ClassVar[int]
    UPDATEID_FIELD_NUMBER: _ClassVar[int]
    resourceVersion: int
    updateID: _peloton_pb2.UpdateID
    def __init__(self, resourceVersion: _Optional[int] = ..., updateID: _Optional[_Union[_peloton_pb2.UpdateID, _Mapping]] = ...) -> None: ...

class StopConfig(_message.Message):
    __slots__ = ("batchSize",)
    BATCHSIZE_FIELD_NUMBER: _ClassVar[int]
    batchSize: int
    def __init__(self, batchSize: _Optional[int] = ...) -> None: ...

class StopJobRequest(_message.Message):
    __slots__ = ("id", "ranges", "resourceVersion", "stopConfig")
    ID_FIELD_NUMBER: _ClassVar[int]
    RANGES_FIELD_NUMBER: _ClassVar[int]
    RESOURCEVERSION_FIELD_NUMBER: _ClassVar[int]
    STOPCONFIG_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    ranges: _containers.RepeatedCompositeFieldContainer[_task_pb2.InstanceRange]
    resourceVersion: int
    stopConfig: StopConfig
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., ranges: _Optional[_Iterable[_Union[_task_pb2.InstanceRange, _Mapping]]] = ..., resourceVersion: _Optional[int] = ..., stopConfig: _Optional[_Union[StopConfig, _Mapping]] = ...) -> None: ...

class StopJobResponse(_message.Message):
    __slots__ = ("resourceVersion", "updateID")
    RESOURCEVERSION_FIELD_NUMBER: _ClassVar[int]
    UPDATEID_FIELD_NUMBER: _ClassVar[int]
    resourceVersion: int
    updateID: _peloton_pb2.UpdateID
    def __init__(self, resourceVersion: _Optional[int] = ..., updateID: _Optional[_Union[_peloton_pb2.UpdateID, _Mapping]] = ...) -> None: ...
