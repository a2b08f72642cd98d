# Generated from peloton/api/v0/task/svc/task_svc.proto by tools/genproto.py. Do not edit.
from peloton.api.v0.peloton import peloton_pb2 as _peloton_pb2
from peloton.api.v0.query import query_pb2 as _query_pb2
from peloton.api.v0.task import task_pb2 as _task_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GetTaskRequest(_message.Message):
    __slots__ = ("jobId", "instanceId")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    INSTANCEID_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    instanceId: int
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., instanceId: _Optional[int] = ...) -> None: ...

class GetTaskResponse(_message.Message):
    __slots__ = ("result", "results")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    result: _task_pb2.TaskInfo
    results: _containers.RepeatedCompositeFieldContainer[_task_pb2.TaskInfo]
    def __init__(self, result: _Optional[_Union[_task_pb2.TaskInfo, _Mapping]] = ..., results: _Optional[_Iterable[_Union[_task_pb2.TaskInfo, _Mapping]]] = ...) -> None: ...

class ListTasksRequest(_message.Message):
    __slots__ = ("jobId", "range")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    RANGE_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    range: _task_pb2.InstanceRange
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., range: _Optional[_Union[_task_pb2.InstanceRange, _Mapping]] = ...) -> None: ...

class ListTasksResponse(_message.Message):
    __slots__ = ("tasks",)
    class TasksEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: _task_pb2.TaskInfo
        def __init__(self, key: _Optional[int] = ..., value: _Optional[_Union[_task_pb2.TaskInfo, _Mapping]] = ...) -> None: ...
    TASKS_FIELD_NUMBER: _ClassVar[int]
    tasks: _containers.MessageMap[int, _task_pb2.TaskInfo]
    def __init__(self, tasks: _Optional[_Mapping[int, _task_pb2.TaskInfo]] = ...) -> None: ...

class StartTasksRequest(_message.Message):
    __slots__ = ("jobId", "ranges")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    RANGES_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    ranges: _containers.RepeatedCompositeFieldContainer[_task_pb2.InstanceRange]
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., ranges: _Optional[_Iterable[_Union[_task_pb2.InstanceRange, _Mapping]]] = ...) -> None: ...

class StartTasksResponse(_message.Message):
    __slots__ = ("started", "failed")
    STARTED_FIELD_NUMBER: _ClassVar[int]
    FAILED_FIELD_NUMBER: _ClassVar[int]
    started: _containers.RepeatedScalarFieldContainer[int]
    failed: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, started: _Optional[_Iterable[int]] = ..., failed: _Optional[_Iterable[int]] = ...) -> None: ...

class StopTasksRequest(_message.Message):
    __slots__ = ("jobId", "ranges")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    RANGES_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    ranges: _containers.RepeatedCompositeFieldContainer[_task_pb2.InstanceRange]
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., ranges: _Optional[_Iterable[_Union[_task_pb2.InstanceRange, _Mapping]]] = ...) -> None: ...

class StopTasksResponse(_message.Message):
    __slots__ = ("stopped", "failed")
    STOPPED_FIELD_NUMBER: _ClassVar[int]
    FAILED_FIELD_NUMBER: _ClassVar[int]
    stopped: _containers.RepeatedScalarFieldContainer[int]
    failed: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, stopped: _Optional[_Iterable[int]] = ..., failed: _Optional[_Iterable[int]] = ...) -> None: ...

class RestartTasksRequest(_message.Message):
    __slots__ = ("jobId", "ranges")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    RANGES_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    ranges: _containers.RepeatedCompositeFieldContainer[_task_pb2.InstanceRange]
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., ranges: _Optional[_Iterable[_Union[_task_pb2.InstanceRange, _Mapping]]] = ...) -> None: ...

class RestartTasksResponse(_message.Message):
    __slots__ = ("stopped", "failed")
    STOPPED_FIELD_NUMBER: _ClassVar[int]
    FAILED_FIELD_NUMBER: _ClassVar[int]
    stopped: _containers.RepeatedScalarFieldContainer[int]
    failed: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, stopped: _Optional[_Iterable[int]] = ..., failed: _Optional[_Iterable[int]] = ...) -> None: ...

class QueryTasksRequest(_message.Message):
    __slots__ = ("jobId", "spec", "pagination")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    PAGINATION_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    spec: _task_pb2.QuerySpec
    pagination: _query_pb2.PaginationSpec
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., spec: _Optional[_Union[_task_pb2.QuerySpec, _Mapping]] = ..., pagination: _Optional[_Union[_query_pb2.PaginationSpec, _Mapping]] = ...) -> None: ...

class QueryTasksResponse(_message.Message):
    __slots__ = ("records", "pagination")
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    PAGINATION_FIELD_NUMBER: _ClassVar[int]
    records: _containers.RepeatedCompositeFieldContainer[_task_pb2.TaskInfo]
    pagination: _query_pb2.Pagination
    def __init__(self, records: _Optional[_Iterable[_Union[_task_pb2.TaskInfo, _Mapping]]] = ..., pagination: _Optional[_Union[_query_pb2.Pagination, _Mapping]] = ...) -> None: ...

class BrowseSandboxRequest(_message.Message):
    __slots__ = ("jobId", "instanceId", "taskId")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    INSTANCEID_FIELD_NUMBER: _ClassVar[int]
    TASKID_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    instanceId: int
    taskId: str
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., instanceId: _Optional[int] = ..., taskId: _Optional[str] = ...) -> None: ...

class BrowseSandboxResponse(_message.Message):
    __slots__ = ("hostname", "port", "paths", "mesosMasterHostname", "mesosMasterPort")
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    PORT_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    MESOSMASTERHOSTNAME_FIELD_NUMBER: _ClassVar[int]
    MESOSMASTERPORT_FIELD_NUMBER: _ClassVar[int]
    hostname: str
    port: str
    paths: _containers.RepeatedScalarFieldContainer[str]
    mesosMasterHostname: str
    mesosMasterPort: str
    def __init__(self, hostname: _Optional[str] = ..., port: _Optional[str] = ..., paths: _Optional[_Iterable[str]] = ..., mesosMasterHostname: _Optional[str] = ..., mesosMasterPort: _Optional[str] = ...) -> None: ...

class TaskEventsError(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...

class PodEvent(_message.Message):
    __slots__ = ("taskId", "actualState", "goalState", "timestamp", "configVersion", "desiredConfigVersion", "agentID", "hostname", "message", "reason", "prevTaskId", "healthy")
    TASKID_FIELD_NUMBER: _ClassVar[int]
    ACTUALSTATE_FIELD_NUMBER: _ClassVar[int]
    GOALSTATE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    CONFIGVERSION_FIELD_NUMBER: _ClassVar[int]
    DESIREDCONFIGVERSION_FIELD_NUMBER: _ClassVar[int]
    AGENTID_FIELD_NUMBER: _ClassVar[int]
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    PREVTASKID_FIELD_NUMBER: _ClassVar[int]
    HEALTHY_FIELD_NUMBER: _ClassVar[int]
    taskId: _peloton_pb2.TaskID
    actualState: str
    goalState: str
    timestamp: str
    configVersion: int
    desiredConfigVersion: int
    agentID: str
    hostname: str
    message: str
    reason: str
    prevTaskId: _peloton_pb2.TaskID
    healthy: str
    def __init__(self, taskId: _Optional[_Union[_peloton_pb2.TaskID, _Mapping]] = ..., actualState: _Optional[str] = ..., goalState: _Optional[str] = ..., timestamp: _Optional[str] = ..., configVersion: _Optional[int] = ..., desiredConfigVersion: _Optional[int] = ..., agentID: _Optional[str] = ..., hostname: _Optional[str] = ..., message: _Optional[str] = ..., reason: _Optional[str] = ..., prevTaskId: _Optional[_Union[_peloton_pb2.TaskID, _Mapping]] = ..., healthy: _Optional[str] = ...) -> None: ...

class GetPodEventsRequest(_message.Message):
    __slots__ = ("jobId", "instanceId", "limit")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    INSTANCEID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    instanceId: int
    limit: int
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., instanceId: _Optional[int] = ..., limit: _Optional[int] = ...) -> None: ...

class GetPodEventsResponse(_message.Message):
    __slots__ = ("result", "error")
    class Error(_message.Message):
        __slots__ = ("message",)
        MESSAGE_FIELD_NUMBER: _ClassVar[int]
        message: str
        def __init__(self, message: _Optional[str] = ...) -> None: ...
    RESULT_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    result: _containers.RepeatedCompositeFieldContainer[PodEvent]
    error: GetPodEventsResponse.Error
    def __init__(self, result: _Optional[_Iterable[_Union[PodEvent, _Mapping]]] = ..., error: _Optional[_Union[GetPodEventsResponse.Error, _Mapping]] = ...) -> None: ...

class RefreshTasksRequest(_message.Message):
    __slots__ = ("jobId", "range")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    RANGE_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    range: _task_pb2.InstanceRange
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., range: _Optional[_Union[_task_pb2.InstanceRange, _Mapping]] = ...) -> None: ...

class RefreshTasksResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetTaskCacheRequest(_message.Message):
    __slots__ = ("jobId", "instanceId")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    INSTANCEID_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    instanceId: int
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., instanceId: _Optional[int] = ...) -> None: ...

class GetTaskCacheResponse(_message.Message):
    __slots__ = ("runtime",)
    RUNTIME_FIELD_NUMBER: _ClassVar[int]
    runtime: _task_pb2.RuntimeInfo
    def __init__(self, runtime: _Optional[_Union[_task_pb2.RuntimeInfo, _Mapping]] = ...) -> None: ...
