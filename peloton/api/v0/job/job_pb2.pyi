# Generated from peloton/api/v0/job/job.proto by tools/genproto.py. Do not edit.
from peloton.api.v0.errors import errors_pb2 as _errors_pb2
from peloton.api.v0.peloton import peloton_pb2 as _peloton_pb2
from peloton.api.v0.query import query_pb2 as _query_pb2
from peloton.api.v0.respool import respool_pb2 as _respool_pb2
from peloton.api.v0.task import task_pb2 as _task_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

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

class JobType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BATCH: _ClassVar[JobType]
    SERVICE: _ClassVar[JobType]
    DAEMON: _ClassVar[JobType]

class PlacementStrategy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PLACEMENT_STRATEGY_INVALID: _ClassVar[PlacementStrategy]
    PLACEMENT_STRATEGY_PACK_HOST: _ClassVar[PlacementStrategy]
    PLACEMENT_STRATEGY_SPREAD_JOB: _ClassVar[PlacementStrategy]
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
BATCH: JobType
SERVICE: JobType
DAEMON: JobType
PLACEMENT_STRATEGY_INVALID: PlacementStrategy
PLACEMENT_STRATEGY_PACK_HOST: PlacementStrategy
PLACEMENT_STRATEGY_SPREAD_JOB: PlacementStrategy

class CreateRequest(_message.Message):
    __slots__ = ("id", "config", "secrets")
    ID_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    SECRETS_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    config: JobConfig
    secrets: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Secret]
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., config: _Optional[_Union[JobConfig, _Mapping]] = ..., secrets: _Optional[_Iterable[_Union[_peloton_pb2.Secret, _Mapping]]] = ...) -> None: ...

class CreateResponse(_message.Message):
    __slots__ = ("error", "jobId")
    class Error(_message.Message):
        __slots__ = ("alreadyExists", "invalidConfig", "invalidJobId")
        ALREADYEXISTS_FIELD_NUMBER: _ClassVar[int]
        INVALIDCONFIG_FIELD_NUMBER: _ClassVar[int]
        INVALIDJOBID_FIELD_NUMBER: _ClassVar[int]
        alreadyExists: JobAlreadyExists
        invalidConfig: InvalidJobConfig
        invalidJobId: InvalidJobId
        def __init__(self, alreadyExists: _Optional[_Union[JobAlreadyExists, _Mapping]] = ..., invalidConfig: _Optional[_Union[InvalidJobConfig, _Mapping]] = ..., invalidJobId: _Optional[_Union[InvalidJobId, _Mapping]] = ...) -> None: ...
    ERROR_FIELD_NUMBER: _ClassVar[int]
    JOBID_FIELD_NUMBER: _ClassVar[int]
    error: CreateResponse.Error
    jobId: _peloton_pb2.JobID
    def __init__(self, error: _Optional[_Union[CreateResponse.Error, _Mapping]] = ..., jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ...) -> None: ...

class DeleteRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ...) -> None: ...

class DeleteResponse(_message.Message):
    __slots__ = ("error",)
    class Error(_message.Message):
        __slots__ = ("notFound",)
        NOTFOUND_FIELD_NUMBER: _ClassVar[int]
        notFound: _errors_pb2.JobNotFound
        def __init__(self, notFound: _Optional[_Union[_errors_pb2.JobNotFound, _Mapping]] = ...) -> None: ...
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: DeleteResponse.Error
    def __init__(self, error: _Optional[_Union[DeleteResponse.Error, _Mapping]] = ...) -> None: ...

class GetRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ...) -> None: ...

class GetResponse(_message.Message):
    __slots__ = ("error", "jobInfo", "secrets")
    class Error(_message.Message):
        __slots__ = ("notFound", "getRuntimeFail")
        NOTFOUND_FIELD_NUMBER: _ClassVar[int]
        GETRUNTIMEFAIL_FIELD_NUMBER: _ClassVar[int]
        notFound: _errors_pb2.JobNotFound
        getRuntimeFail: _errors_pb2.JobGetRuntimeFail
        def __init__(self, notFound: _Optional[_Union[_errors_pb2.JobNotFound, _Mapping]] = ..., getRuntimeFail: _Optional[_Union[_errors_pb2.JobGetRuntimeFail, _Mapping]] = ...) -> None: ...
    ERROR_FIELD_NUMBER: _ClassVar[int]
    JOBINFO_FIELD_NUMBER: _ClassVar[int]
    SECRETS_FIELD_NUMBER: _ClassVar[int]
    error: GetResponse.Error
    jobInfo: JobInfo
    secrets: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Secret]
    def __init__(self, error: _Optional[_Union[GetResponse.Error, _Mapping]] = ..., jobInfo: _Optional[_Union[JobInfo, _Mapping]] = ..., secrets: _Optional[_Iterable[_Union[_peloton_pb2.Secret, _Mapping]]] = ...) -> None: ...

class InvalidJobConfig(_message.Message):
    __slots__ = ("id", "message")
    ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    message: str
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., message: _Optional[str] = ...) -> None: ...

class InvalidJobId(_message.Message):
    __slots__ = ("id", "message")
    ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    message: str
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., message: _Optional[str] = ...) -> None: ...

class JobAlreadyExists(_message.Message):
    __slots__ = ("id", "message")
    ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    message: str
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., message: _Optional[str] = ...) -> None: ...

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

class JobInfo(_message.Message):
    __slots__ = ("id", "config", "runtime")
    ID_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    RUNTIME_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    config: JobConfig
    runtime: RuntimeInfo
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., config: _Optional[_Union[JobConfig, _Mapping]] = ..., runtime: _Optional[_Union[RuntimeInfo, _Mapping]] = ...) -> None: ...

class JobNotFound(_message.Message):
    __slots__ = ("id", "message")
    ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    message: str
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., message: _Optional[str] = ...) -> None: ...

class JobSummary(_message.Message):
    __slots__ = ("id", "name", "type", "owner", "owningTeam", "labels", "instanceCount", "respoolID", "runtime", "sla")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    OWNINGTEAM_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    INSTANCECOUNT_FIELD_NUMBER: _ClassVar[int]
    RESPOOLID_FIELD_NUMBER: _ClassVar[int]
    RUNTIME_FIELD_NUMBER: _ClassVar[int]
    SLA_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    name: str
    type: JobType
    owner: str
    owningTeam: str
    labels: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Label]
    instanceCount: int
    respoolID: _peloton_pb2.ResourcePoolID
    runtime: RuntimeInfo
    sla: SlaConfig
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., name: _Optional[str] = ..., type: _Optional[_Union[JobType, str]] = ..., owner: _Optional[str] = ..., owningTeam: _Optional[str] = ..., labels: _Optional[_Iterable[_Union[_peloton_pb2.Label, _Mapping]]] = ..., instanceCount: _Optional[int] = ..., respoolID: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., runtime: _Optional[_Union[RuntimeInfo, _Mapping]] = ..., sla: _Optional[_Union[SlaConfig, _Mapping]] = ...) -> None: ...

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
    __slots__ = ("error", "records", "pagination", "spec", "results")
    class Error(_message.Message):
        __slots__ = ("err", "invalidRespool")
        ERR_FIELD_NUMBER: _ClassVar[int]
        INVALIDRESPOOL_FIELD_NUMBER: _ClassVar[int]
        err: _errors_pb2.UnknownError
        invalidRespool: _errors_pb2.InvalidRespool
        def __init__(self, err: _Optional[_Union[_errors_pb2.UnknownError, _Mapping]] = ..., invalidRespool: _Optional[_Union[_errors_pb2.InvalidRespool, _Mapping]] = ...) -> None: ...
    ERROR_FIELD_NUMBER: _ClassVar[int]
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    PAGINATION_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    error: QueryResponse.Error
    records: _containers.RepeatedCompositeFieldContainer[JobInfo]
    pagination: _query_pb2.Pagination
    spec: QuerySpec
    results: _containers.RepeatedCompositeFieldContainer[JobSummary]
    def __init__(self, error: _Optional[_Union[QueryResponse.Error, _Mapping]] = ..., records: _Optional[_Iterable[_Union[JobInfo, _Mapping]]] = ..., pagination: _Optional[_Union[_query_pb2.Pagination, _Mapping]] = ..., spec: _Optional[_Union[QuerySpec, _Mapping]] = ..., results: _Optional[_Iterable[_Union[JobSummary, _Mapping]]] = ...) -> None: ...

class QuerySpec(_message.Message):
    __slots__ = ("pagination", "labels", "keywords", "jobStates", "respool", "owner", "name", "creationTimeRange", "completionTimeRange")
    PAGINATION_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    KEYWORDS_FIELD_NUMBER: _ClassVar[int]
    JOBSTATES_FIELD_NUMBER: _ClassVar[int]
    RESPOOL_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    CREATIONTIMERANGE_FIELD_NUMBER: _ClassVar[int]
    COMPLETIONTIMERANGE_FIELD_NUMBER: _ClassVar[int]
    pagination: _query_pb2.PaginationSpec
    labels: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Label]
    keywords: _containers.RepeatedScalarFieldContainer[str]
    jobStates: _containers.RepeatedScalarFieldContainer[JobState]
    respool: _respool_pb2.ResourcePoolPath
    owner: str
    name: str
    creationTimeRange: _peloton_pb2.TimeRange
    completionTimeRange: _peloton_pb2.TimeRange
    def __init__(self, pagination: _Optional[_Union[_query_pb2.PaginationSpec, _Mapping]] = ..., labels: _Optional[_Iterable[_Union[_peloton_pb2.Label, _Mapping]]] = ..., keywords: _Optional[_Iterable[str]] = ..., jobStates: _Optional[_Iterable[_Union[JobState, str]]] = ..., respool: _Optional[_Union[_respool_pb2.ResourcePoolPath, _Mapping]] = ..., owner: _Optional[str] = ..., name: _Optional[str] = ..., creationTimeRange: _Optional[_Union[_peloton_pb2.TimeRange, _Mapping]] = ..., completionTimeRange: _Optional[_Union[_peloton_pb2.TimeRange, _Mapping]] = ...) -> None: ...

class RuntimeInfo(_message.Message):
    __slots__ = ("state", "creationTime", "startTime", "completionTime", "taskStats", "configVersion", "goalState", "configurationVersion", "revision", "updateID", "resourceUsage", "workflowVersion", "stateVersion", "desiredStateVersion", "taskConfigVersionStats", "taskStatsByConfigurationVersion")
    class TaskStateStats(_message.Message):
        __slots__ = ("stateStats",)
        class StateStatsEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        STATESTATS_FIELD_NUMBER: _ClassVar[int]
        stateStats: _containers.ScalarMap[str, int]
        def __init__(self, stateStats: _Optional[_Mapping[str, int]] = ...) -> None: ...
    class TaskStatsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class ResourceUsageEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    class TaskConfigVersionStatsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: int
        def __init__(self, key: _Optional[int] = ..., value: _Optional[int] = ...) -> None: ...
    class TaskStatsByConfigurationVersionEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: RuntimeInfo.TaskStateStats
        def __init__(self, key: _Optional[int] = ..., value: _Optional[_Union[RuntimeInfo.TaskStateStats, _Mapping]] = ...) -> None: ...
    STATE_FIELD_NUMBER: _ClassVar[int]
    CREATIONTIME_FIELD_NUMBER: _ClassVar[int]
    STARTTIME_FIELD_NUMBER: _ClassVar[int]
    COMPLETIONTIME_FIELD_NUMBER: _ClassVar[int]
    TASKSTATS_FIELD_NUMBER: _ClassVar[int]
    CONFIGVERSION_FIELD_NUMBER: _ClassVar[int]
    GOALSTATE_FIELD_NUMBER: _ClassVar[int]
    CONFIGURATIONVERSION_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    UPDATEID_FIELD_NUMBER: _ClassVar[int]
    RESOURCEUSAGE_FIELD_NUMBER: _ClassVar[int]
    WORKFLOWVERSION_FIELD_NUMBER: _ClassVar[int]
    STATEVERSION_FIELD_NUMBER: _ClassVar[int]
    DESIREDSTATEVERSION_FIELD_NUMBER: _ClassVar[int]
    TASKCONFIGVERSIONSTATS_FIELD_NUMBER: _ClassVar[int]
    TASKSTATSBYCONFIGURATIONVERSION_FIELD_NUMBER: _ClassVar[int]
    state: JobState
    creationTime: str
    startTime: str
    completionTime: str
    taskStats: _containers.ScalarMap[str, int]
    configVersion: int
    goalState: JobState
    configurationVersion: int
    revision: _peloton_pb2.ChangeLog
    updateID: _peloton_pb2.UpdateID
    resourceUsage: _containers.ScalarMap[str, float]
    workflowVersion: int
    stateVersion: int
    desiredStateVersion: int
    taskConfigVersionStats: _containers.ScalarMap[int, int]
    taskStatsByConfigurationVersion: _containers.MessageMap[int, RuntimeInfo.TaskStateStats]
    def __init__(self, state: _Optional[_Union[JobState, str]] = ..., creationTime: _Optional[str] = ..., startTime: _Optional[str] = ..., completionTime: _Optional[str] = ..., taskStats: _Optional[_Mapping[str, int]] = ..., configVersion: _Optional[int] = ..., goalState: _Optional[_Union[JobState, str]] = ..., configurationVersion: _Optional[int] = ..., revision: _Optional[_Union[_peloton_pb2.ChangeLog, _Mapping]] = ..., updateID: _Optional[_Union[_peloton_pb2.UpdateID, _Mapping]] = ..., resourceUsage: _Optional[_Mapping[str, float]] = ..., workflowVersion: _Optional[int] = ..., stateVersion: _Optional[int] = ..., desiredStateVersion: _Optional[int] = ..., taskConfigVersionStats: _Optional[_Mapping[int, int]] = ..., taskStatsByConfigurationVersion: _Optional[_Mapping[int, RuntimeInfo.TaskStateStats]] = ...) -> None: ...

class SlaConfig(_message.Message):
    __slots__ = ("priority", "preemptible", "revocable", "maximumRunningInstances", "minimumRunningInstances", "maxRunningTime", "maximumUnavailableInstances")
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    PREEMPTIBLE_FIELD_NUMBER: _ClassVar[int]
    REVOCABLE_FIELD_NUMBER: _ClassVar[int]
    MAXIMUMRUNNINGINSTANCES_FIELD_NUMBER: _ClassVar[int]
    MINIMUMRUNNINGINSTANCES_FIELD_NUMBER: _ClassVar[int]
    MAXRUNNINGTIME_FIELD_NUMBER: _ClassVar[int]
    MAXIMUMUNAVAILABLEINSTANCES_FIELD_NUMBER: _ClassVar[int]
    priority: int
    preemptible: bool
    revocable: bool
    maximumRunningInstances: int
    minimumRunningInstances: int
    maxRunningTime: int
    maximumUnavailableInstances: int
    def __init__(self, priority: _Optional[int] = ..., preemptible: _Optional[bool] = ..., revocable: _Optional[bool] = ..., maximumRunningInstances: _Optional[int] = ..., minimumRunningInstances: _Optional[int] = ..., maxRunningTime: _Optional[int] = ..., maximumUnavailableInstances: _Optional[int] = ...) -> None: ...

class UpdateRequest(_message.Message):
    __slots__ = ("id", "config", "secrets")
    ID_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    SECRETS_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    config: JobConfig
    secrets: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Secret]
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., config: _Optional[_Union[JobConfig, _Mapping]] = ..., secrets: _Optional[_Iterable[_Union[_peloton_pb2.Secret, _Mapping]]] = ...) -> None: ...

class UpdateResponse(_message.Message):
    __slots__ = ("error", "id", "message")
    class Error(_message.Message):
        __slots__ = ("jobNotFound", "invalidConfig", "invalidJobId")
        JOBNOTFOUND_FIELD_NUMBER: _ClassVar[int]
        INVALIDCONFIG_FIELD_NUMBER: _ClassVar[int]
        INVALIDJOBID_FIELD_NUMBER: _ClassVar[int]
        jobNotFound: JobNotFound
        invalidConfig: InvalidJobConfig
        invalidJobId: InvalidJobId
        def __init__(self, jobNotFound: _Optional[_Union[JobNotFound, _Mapping]] = ..., invalidConfig: _Optional[_Union[InvalidJobConfig, _Mapping]] = ..., invalidJobId: _Optional[_Union[InvalidJobId, _Mapping]] = ...) -> None: ...
    ERROR_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    error: UpdateResponse.Error
    id: _peloton_pb2.JobID
    message: str
    def __init__(self, error: _Optional[_Union[UpdateResponse.Error, _Mapping]] = ..., id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., message: _Optional[str] = ...) -> None: ...

class RestartConfig(_message.Message):
    __slots__ = ("batchSize",)
    BATCHSIZE_FIELD_NUMBER: _ClassVar[int]
    batchSize: int
    def __init__(self, batchSize: _Optional[int] = ...) -> None: ...

class RestartRequest(_message.Message):
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

class RestartResponse(_message.Message):
    __slots__ = ("resourceVersion", "updateID")
    RESOURCEVERSION_FIELD_NUMBER: _ClassVar[int]
    UPDATEID_FIELD_NUMBER: _ClassVar[int]
    resourceVersion: int
    updateID: _peloton_pb2.UpdateID
    def __init__(self, resourceVersion: _Optional[int] = ..., updateID: _Optional[_Union[_peloton_pb2.UpdateID, _Mapping]] = ...) -> None: ...

class StartConfig(_message.Message):
    __slots__ = ("batchSize",)
    BATCHSIZE_FIELD_NUMBER: _ClassVar[int]
    batchSize: int
    def __init__(self, batchSize: _Optional[int] = ...) -> None: ...

class StartRequest(_message.Message):
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

class StartResponse(_message.Message):
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

class StopRequest(_message.Message):
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

class StopResponse(_message.Message):
    __slots__ = ("resourceVersion", "updateID")
    RESOURCEVERSION_FIELD_NUMBER: _ClassVar[int]
    UPDATEID_FIELD_NUMBER: _ClassVar[int]
    resourceVersion: int
    updateID: _peloton_pb2.UpdateID
    def __init__(self, resourceVersion: _Optional[int] = ..., updateID: _Optional[_Union[_peloton_pb2.UpdateID, _Mapping]] = ...) -> None: ...

class RefreshRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ...) -> None: ...

class RefreshResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetCacheRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ...) -> None: ...

class GetCacheResponse(_message.Message):
    __slots__ = ("config", "runtime")
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    RUNTIME_FIELD_NUMBER: _ClassVar[int]
    config: JobConfig
    runtime: RuntimeInfo
    def __init__(self, config: _Optional[_Union[JobConfig, _Mapping]] = ..., runtime: _Optional[_Union[RuntimeInfo, _Mapping]] = ...) -> None: ...

class GetActiveJobsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetActiveJobsResponse(_message.Message):
    __slots__ = ("ids",)
    IDS_FIELD_NUMBER: _ClassVar[int]
    ids: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.JobID]
    def __init__(self, ids: _Optional[_Iterable[_Union[_peloton_pb2.JobID, _Mapping]]] = ...) -> None: ...
