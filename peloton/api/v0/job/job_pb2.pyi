# Generated from peloton/api/v0/job/job.proto by tools/genproto.py. Do not edit.
from peloton.api.v0.peloton import peloton_pb2 as _peloton_pb2
from peloton.api.v0.task import task_pb2 as _task_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class JobType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BATCH: _ClassVar[JobType]
    SERVICE: _ClassVar[JobType]
    DAEMON: _ClassVar[JobType]

class JobState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UNKNOWN: _ClassVar[JobState]
    INITIALIZED: _ClassVar[JobState]
    PENDING: _ClassVar[JobState]
    RUNNING: _ClassVar[JobState]
    SUCCEEDED: _ClassVar[JobState]
    FAILED: _ClassVar[JobState]
    KILLED: _ClassVar[JobState]
    KILLING: _ClassVar[JobState]
    UNINITIALIZED: _ClassVar[JobState]
    DELETED: _ClassVar[JobState]

class PlacementStrategy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PLACEMENT_STRATEGY_INVALID: _ClassVar[PlacementStrategy]
    PLACEMENT_STRATEGY_PACK_HOST: _ClassVar[PlacementStrategy]
    PLACEMENT_STRATEGY_SPREAD_JOB: _ClassVar[PlacementStrategy]
BATCH: JobType
SERVICE: JobType
DAEMON: JobType
UNKNOWN: JobState
INITIALIZED: JobState
PENDING: JobState
RUNNING: JobState
SUCCEEDED: JobState
FAILED: JobState
KILLED: JobState
KILLING: JobState
UNINITIALIZED: JobState
DELETED: JobState
PLACEMENT_STRATEGY_INVALID: PlacementStrategy
PLACEMENT_STRATEGY_PACK_HOST: PlacementStrategy
PLACEMENT_STRATEGY_SPREAD_JOB: PlacementStrategy

class SlaConfig(_message.Message):
    __slots__ = ("priority", "preemptible", "maximumRunningInstances", "minimumRunningInstances", "maxRunningTime", "revocable", "maximumUnavailableInstances")
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    PREEMPTIBLE_FIELD_NUMBER: _ClassVar[int]
    MAXIMUMRUNNINGINSTANCES_FIELD_NUMBER: _ClassVar[int]
    MINIMUMRUNNINGINSTANCES_FIELD_NUMBER: _ClassVar[int]
    MAXRUNNINGTIME_FIELD_NUMBER: _ClassVar[int]
    REVOCABLE_FIELD_NUMBER: _ClassVar[int]
    MAXIMUMUNAVAILABLEINSTANCES_FIELD_NUMBER: _ClassVar[int]
    priority: int
    preemptible: bool
    maximumRunningInstances: int
    minimumRunningInstances: int
    maxRunningTime: int
    revocable: bool
    maximumUnavailableInstances: int
    def __init__(self, priority: _Optional[int] = ..., preemptible: _Optional[bool] = ..., maximumRunningInstances: _Optional[int] = ..., minimumRunningInstances: _Optional[int] = ..., maxRunningTime: _Optional[int] = ..., revocable: _Optional[bool] = ..., maximumUnavailableInstances: _Optional[int] = ...) -> None: ...

class JobConfig(_message.Message):
    __slots__ = ("changeLog", "name", "type", "owningTeam", "ldapGroups", "description", "labels", "instanceCount", "sla", "defaultConfig", "instanceConfig", "respoolID", "owner", "placementStrategy")
    class InstanceConfigEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: _task_pb2.TaskConfig
        def __init__(self, key: _Optional[int] = ..., value: _Optional[_Union[_task_pb2.TaskConfig, _Mapping]] = ...) -> None: ...
    CHANGELOG_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    OWNINGTEAM_FIELD_NUMBER: _ClassVar[int]
    LDAPGROUPS_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    INSTANCECOUNT_FIELD_NUMBER: _ClassVar[int]
    SLA_FIELD_NUMBER: _ClassVar[int]
    DEFAULTCONFIG_FIELD_NUMBER: _ClassVar[int]
    INSTANCECONFIG_FIELD_NUMBER: _ClassVar[int]
    RESPOOLID_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    PLACEMENTSTRATEGY_FIELD_NUMBER: _ClassVar[int]
    changeLog: _peloton_pb2.ChangeLog
    name: str
    type: JobType
    owningTeam: str
    ldapGroups: _containers.RepeatedScalarFieldContainer[str]
    description: str
    labels: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Label]
    instanceCount: int
    sla: SlaConfig
    defaultConfig: _task_pb2.TaskConfig
    instanceConfig: _containers.MessageMap[int, _task_pb2.TaskConfig]
    respoolID: _peloton_pb2.ResourcePoolID
    owner: str
    placementStrategy: PlacementStrategy
    def __init__(self, changeLog: _Optional[_Union[_peloton_pb2.ChangeLog, _Mapping]] = ..., name: _Optional[str] = ..., type: _Optional[_Union[JobType, str]] = ..., owningTeam: _Optional[str] = ..., ldapGroups: _Optional[_Iterable[str]] = ..., description: _Optional[str] = ..., labels: _Optional[_Iterable[_Union[_peloton_pb2.Label, _Mapping]]] = ..., instanceCount: _Optional[int] = ..., sla: _Optional[_Union[SlaConfig, _Mapping]] = ..., defaultConfig: _Optional[_Union[_task_pb2.TaskConfig, _Mapping]] = ..., instanceConfig: _Optional[_Mapping[int, _task_pb2.TaskConfig]] = ..., respoolID: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., owner: _Optional[str] = ..., placementStrategy: _Optional[_Union[PlacementStrategy, str]] = ...) -> None: ...

class RuntimeInfo(_message.Message):
    __slots__ = ("state", "creationTime", "startTime", "completionTime", "taskStats", "goalState", "configurationVersion")
    class TaskStatsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    STATE_FIELD_NUMBER: _ClassVar[int]
    CREATIONTIME_FIELD_NUMBER: _ClassVar[int]
    STARTTIME_FIELD_NUMBER: _ClassVar[int]
    COMPLETIONTIME_FIELD_NUMBER: _ClassVar[int]
    TASKSTATS_FIELD_NUMBER: _ClassVar[int]
    GOALSTATE_FIELD_NUMBER: _ClassVar[int]
    CONFIGURATIONVERSION_FIELD_NUMBER: _ClassVar[int]
    state: JobState
    creationTime: str
    startTime: str
    completionTime: str
    taskStats: _containers.ScalarMap[str, int]
    goalState: JobState
    configurationVersion: int
    def __init__(self, state: _Optional[_Union[JobState, str]] = ..., creationTime: _Optional[str] = ..., startTime: _Optional[str] = ..., completionTime: _Optional[str] = ..., taskStats: _Optional[_Mapping[str, int]] = ..., goalState: _Optional[_Union[JobState, str]] = ..., configurationVersion: _Optional[int] = ...) -> None: ...

class JobInfo(_message.Message):
    __slots__ = ("id", "config", "runtime")
    ID_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    RUNTIME_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    config: JobConfig
    runtime: RuntimeInfo
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., config: _Optional[_Union[JobConfig, _Mapping]] = ..., runtime: _Optional[_Union[RuntimeInfo, _Mapping]] = ...) -> None: ...

class JobSummary(_message.Message):
    __slots__ = ("id", "name", "type", "owner", "owningTeam", "labels", "instanceCount", "respoolID", "runtime")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    OWNINGTEAM_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    INSTANCECOUNT_FIELD_NUMBER: _ClassVar[int]
    RESPOOLID_FIELD_NUMBER: _ClassVar[int]
    RUNTIME_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    name: str
    type: JobType
    owner: str
    owningTeam: str
    labels: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Label]
    instanceCount: int
    respoolID: _peloton_pb2.ResourcePoolID
    runtime: RuntimeInfo
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., name: _Optional[str] = ..., type: _Optional[_Union[JobType, str]] = ..., owner: _Optional[str] = ..., owningTeam: _Optional[str] = ..., labels: _Optional[_Iterable[_Union[_peloton_pb2.Label, _Mapping]]] = ..., instanceCount: _Optional[int] = ..., respoolID: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., runtime: _Optional[_Union[RuntimeInfo, _Mapping]] = ...) -> None: ...

class QuerySpec(_message.Message):
    __slots__ = ("labels", "keywords", "jobStates", "respool", "owner", "name", "offset", "limit")
    LABELS_FIELD_NUMBER: _ClassVar[int]
    KEYWORDS_FIELD_NUMBER: _ClassVar[int]
    JOBSTATES_FIELD_NUMBER: _ClassVar[int]
    RESPOOL_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    labels: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Label]
    keywords: _containers.RepeatedScalarFieldContainer[str]
    jobStates: _containers.RepeatedScalarFieldContainer[JobState]
    respool: _peloton_pb2.ResourcePoolID
    owner: str
    name: str
    offset: int
    limit: int
    def __init__(self, labels: _Optional[_Iterable[_Union[_peloton_pb2.Label, _Mapping]]] = ..., keywords: _Optional[_Iterable[str]] = ..., jobStates: _Optional[_Iterable[_Union[JobState, str]]] = ..., respool: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., owner: _Optional[str] = ..., name: _Optional[str] = ..., offset: _Optional[int] = ..., limit: _Optional[int] = ...) -> None: ...

class CreateRequest(_message.Message):
    __slots__ = ("id", "config")
    ID_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    config: JobConfig
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., config: _Optional[_Union[JobConfig, _Mapping]] = ...) -> None: ...

class CreateResponse(_message.Message):
    __slots__ = ("jobId",)
    JOBID_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ...) -> None: ...

class GetRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ...) -> None: ...

class GetResponse(_message.Message):
    __slots__ = ("jobInfo",)
    JOBINFO_FIELD_NUMBER: _ClassVar[int]
    jobInfo: JobInfo
    def __init__(self, jobInfo: _Optional[_Union[JobInfo, _Mapping]] = ...) -> None: ...

class QueryRequest(_message.Message):
    __slots__ = ("respoolID", "spec", "summaryOnly")
    RESPOOLID_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    SUMMARYONLY_FIELD_NUMBER: _ClassVar[int]
    respoolID: _peloton_pb2.ResourcePoolID
    spec: QuerySpec
    summaryOnly: bool
    def __init__(self, respoolID: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., spec: _Optional[_Union[QuerySpec, _Mapping]] = ..., summaryOnly: _Optional[bool] = ...) -> None: ...

class QueryResponse(_message.Message):
    __slots__ = ("results", "total", "summary")
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[JobInfo]
    total: int
    summary: _containers.RepeatedCompositeFieldContainer[JobSummary]
    def __init__(self, results: _Optional[_Iterable[_Union[JobInfo, _Mapping]]] = ..., total: _Optional[int] = ..., summary: _Optional[_Iterable[_Union[JobSummary, _Mapping]]] = ...) -> None: ...

class DeleteRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ...) -> None: ...

class DeleteResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class UpdateRequest(_message.Message):
    __slots__ = ("id", "config")
    ID_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    config: JobConfig
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., config: _Optional[_Union[JobConfig, _Mapping]] = ...) -> None: ...

class UpdateResponse(_message.Message):
    __slots__ = ("id", "message")
    ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    message: str
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., message: _Optional[str] = ...) -> None: ...
