# Generated from peloton/api/v0/task/task.proto by tools/genproto.py. Do not edit.
from peloton.api.mesos.v1 import mesos_pb2 as _mesos_pb2
from peloton.api.v0.errors import errors_pb2 as _errors_pb2
from peloton.api.v0.peloton import peloton_pb2 as _peloton_pb2
from peloton.api.v0.query import query_pb2 as _query_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class HealthState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    INVALID: _ClassVar[HealthState]
    DISABLED: _ClassVar[HealthState]
    HEALTH_UNKNOWN: _ClassVar[HealthState]
    HEALTHY: _ClassVar[HealthState]
    UNHEALTHY: _ClassVar[HealthState]

class TaskState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UNKNOWN: _ClassVar[TaskState]
    INITIALIZED: _ClassVar[TaskState]
    PENDING: _ClassVar[TaskState]
    READY: _ClassVar[TaskState]
    PLACING: _ClassVar[TaskState]
    PLACED: _ClassVar[TaskState]
    LAUNCHING: _ClassVar[TaskState]
    STARTING: _ClassVar[TaskState]
    RUNNING: _ClassVar[TaskState]
    SUCCEEDED: _ClassVar[TaskState]
    FAILED: _ClassVar[TaskState]
    LOST: _ClassVar[TaskState]
    PREEMPTING: _ClassVar[TaskState]
    KILLING: _ClassVar[TaskState]
    KILLED: _ClassVar[TaskState]
    LAUNCHED: _ClassVar[TaskState]
    DELETED: _ClassVar[TaskState]
    RESERVED: _ClassVar[TaskState]
INVALID: HealthState
DISABLED: HealthState
HEALTH_UNKNOWN: HealthState
HEALTHY: HealthState
UNHEALTHY: HealthState
UNKNOWN: TaskState
INITIALIZED: TaskState
PENDING: TaskState
READY: TaskState
PLACING: TaskState
PLACED: TaskState
LAUNCHING: TaskState
STARTING: TaskState
RUNNING: TaskState
SUCCEEDED: TaskState
FAILED: TaskState
LOST: TaskState
PREEMPTING: TaskState
KILLING: TaskState
KILLED: TaskState
LAUNCHED: TaskState
DELETED: TaskState
RESERVED: TaskState

class AndConstraint(_message.Message):
    __slots__ = ("constraints",)
    CONSTRAINTS_FIELD_NUMBER: _ClassVar[int]
    constraints: _containers.RepeatedCompositeFieldContainer[Constraint]
    def __init__(self, constraints: _Optional[_Iterable[_Union[Constraint, _Mapping]]] = ...) -> None: ...

class BrowseSandboxFailure(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...

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
    __slots__ = ("error", "hostname", "port", "paths", "mesosMasterHostname", "mesosMasterPort")
    class Error(_message.Message):
        __slots__ = ("notFound", "outOfRange", "notRunning", "failure")
        NOTFOUND_FIELD_NUMBER: _ClassVar[int]
        OUTOFRANGE_FIELD_NUMBER: _ClassVar[int]
        NOTRUNNING_FIELD_NUMBER: _ClassVar[int]
        FAILURE_FIELD_NUMBER: _ClassVar[int]
        notFound: _errors_pb2.JobNotFound
        outOfRange: InstanceIdOutOfRange
        notRunning: TaskNotRunning
        failure: BrowseSandboxFailure
        def __init__(self, notFound: _Optional[_Union[_errors_pb2.JobNotFound, _Mapping]] = ..., outOfRange: _Optional[_Union[InstanceIdOutOfRange, _Mapping]] = ..., notRunning: _Optional[_Union[TaskNotRunning, _Mapping]] = ..., failure: _Optional[_Union[BrowseSandboxFailure, _Mapping]] = ...) -> None: ...
    ERROR_FIELD_NUMBER: _ClassVar[int]
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    PORT_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    MESOSMASTERHOSTNAME_FIELD_NUMBER: _ClassVar[int]
    MESOSMASTERPORT_FIELD_NUMBER: _ClassVar[int]
    error: BrowseSandboxResponse.Error
    hostname: str
    port: str
    paths: _containers.RepeatedScalarFieldContainer[str]
    mesosMasterHostname: str
    mesosMasterPort: str
    def __init__(self, error: _Optional[_Union[BrowseSandboxResponse.Error, _Mapping]] = ..., hostname: _Optional[str] = ..., port: _Optional[str] = ..., paths: _Optional[_Iterable[str]] = ..., mesosMasterHostname: _Optional[str] = ..., mesosMasterPort: _Optional[str] = ...) -> None: ...

class Constraint(_message.Message):
    __slots__ = ("type", "labelConstraint", "andConstraint", "orConstraint")
    class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN_CONSTRAINT: _ClassVar[Constraint.Type]
        LABEL_CONSTRAINT: _ClassVar[Constraint.Type]
        AND_CONSTRAINT: _ClassVar[Constraint.Type]
        OR_CONSTRAINT: _ClassVar[Constraint.Type]
    UNKNOWN_CONSTRAINT: Constraint.Type
    LABEL_CONSTRAINT: Constraint.Type
    AND_CONSTRAINT: Constraint.Type
    OR_CONSTRAINT: Constraint.Type
    TYPE_FIELD_NUMBER: _ClassVar[int]
    LABELCONSTRAINT_FIELD_NUMBER: _ClassVar[int]
    ANDCONSTRAINT_FIELD_NUMBER: _ClassVar[int]
    ORCONSTRAINT_FIELD_NUMBER: _ClassVar[int]
    type: Constraint.Type
    labelConstraint: LabelConstraint
    andConstraint: AndConstraint
    orConstraint: OrConstraint
    def __init__(self, type: _Optional[_Union[Constraint.Type, str]] = ..., labelConstraint: _Optional[_Union[LabelConstraint, _Mapping]] = ..., andConstraint: _Optional[_Union[AndConstraint, _Mapping]] = ..., orConstraint: _Optional[_Union[OrConstraint, _Mapping]] = ...) -> None: ...

class GetRequest(_message.Message):
    __slots__ = ("jobId", "instanceId")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    INSTANCEID_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    instanceId: int
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., instanceId: _Optional[int] = ...) -> None: ...

class GetResponse(_message.Message):
    __slots__ = ("result", "notFound", "outOfRange", "results")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    NOTFOUND_FIELD_NUMBER: _ClassVar[int]
    OUTOFRANGE_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    result: TaskInfo
    notFound: _errors_pb2.JobNotFound
    outOfRange: InstanceIdOutOfRange
    results: _containers.RepeatedCompositeFieldContainer[TaskInfo]
    def __init__(self, result: _Optional[_Union[TaskInfo, _Mapping]] = ..., notFound: _Optional[_Union[_errors_pb2.JobNotFound, _Mapping]] = ..., outOfRange: _Optional[_Union[InstanceIdOutOfRange, _Mapping]] = ..., results: _Optional[_Iterable[_Union[TaskInfo, _Mapping]]] = ...) -> None: ...

class HealthCheckConfig(_message.Message):
    __slots__ = ("enabled", "initialIntervalSecs", "intervalSecs", "maxConsecutiveFailures", "timeoutSecs", "type", "commandCheck", "httpCheck")
    class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[HealthCheckConfig.Type]
        COMMAND: _ClassVar[HealthCheckConfig.Type]
        HTTP: _ClassVar[HealthCheckConfig.Type]
        GRPC: _ClassVar[HealthCheckConfig.Type]
    UNKNOWN: HealthCheckConfig.Type
    COMMAND: HealthCheckConfig.Type
    HTTP: HealthCheckConfig.Type
    GRPC: HealthCheckConfig.Type
    class CommandCheck(_message.Message):
        __slots__ = ("command", "unshareEnvironments")
        COMMAND_FIELD_NUMBER: _ClassVar[int]
        UNSHAREENVIRONMENTS_FIELD_NUMBER: _ClassVar[int]
        command: str
        unshareEnvironments: bool
        def __init__(self, command: _Optional[str] = ..., unshareEnvironments: _Optional[bool] = ...) -> None: ...
    class HTTPCheck(_message.Message):
        __slots__ = ("scheme", "port", "path")
        SCHEME_FIELD_NUMBER: _ClassVar[int]
        PORT_FIELD_NUMBER: _ClassVar[int]
        PATH_FIELD_NUMBER: _ClassVar[int]
        scheme: str
        port: int
        path: str
        def __init__(self, scheme: _Optional[str] = ..., port: _Optional[int] = ..., path: _Optional[str] = ...) -> None: ...
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    INITIALINTERVALSECS_FIELD_NUMBER: _ClassVar[int]
    INTERVALSECS_FIELD_NUMBER: _ClassVar[int]
    MAXCONSECUTIVEFAILURES_FIELD_NUMBER: _ClassVar[int]
    TIMEOUTSECS_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    COMMANDCHECK_FIELD_NUMBER: _ClassVar[int]
    HTTPCHECK_FIELD_NUMBER: _ClassVar[int]
    enabled: bool
    initialIntervalSecs: int
    intervalSecs: int
    maxConsecutiveFailures: int
    timeoutSecs: int
    type: HealthCheckConfig.Type
    commandCheck: HealthCheckConfig.CommandCheck
    httpCheck: HealthCheckConfig.HTTPCheck
    def __init__(self, enabled: _Optional[bool] = ..., initialIntervalSecs: _Optional[int] = ..., intervalSecs: _Optional[int] = ..., maxConsecutiveFailures: _Optional[int] = ..., timeoutSecs: _Optional[int] = ..., type: _Optional[_Union[HealthCheckConfig.Type, str]] = ..., commandCheck: _Optional[_Union[HealthCheckConfig.CommandCheck, _Mapping]] = ..., httpCheck: _Optional[_Union[HealthCheckConfig.HTTPCheck, _Mapping]] = ...) -> None: ...

class InstanceIdOutOfRange(_message.Message):
    __slots__ = ("jobId", "instanceCount")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    INSTANCECOUNT_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    instanceCount: int
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., instanceCount: _Optional[int] = ...) -> None: ...

class InstanceRange(_message.Message):
    __slots__ = ("to",)
    FROM_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    to: int
    def __init__(self, to: _Optional[int] = ..., **kwargs) -> None: ...

class LabelConstraint(_message.Message):
    __slots__ = ("kind", "condition", "label", "requirement")
    class Condition(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        CONDITION_UNKNOWN: _ClassVar[LabelConstraint.Condition]
        CONDITION_LESS_THAN: _ClassVar[LabelConstraint.Condition]
        CONDITION_EQUAL: _ClassVar[LabelConstraint.Condition]
        CONDITION_GREATER_THAN: _ClassVar[LabelConstraint.Condition]
    CONDITION_UNKNOWN: LabelConstraint.Condition
    CONDITION_LESS_THAN: LabelConstraint.Condition
    CONDITION_EQUAL: LabelConstraint.Condition
    CONDITION_GREATER_THAN: LabelConstraint.Condition
    class Kind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[LabelConstraint.Kind]
        TASK: _ClassVar[LabelConstraint.Kind]
        HOST: _ClassVar[LabelConstraint.Kind]
    UNKNOWN: LabelConstraint.Kind
    TASK: LabelConstraint.Kind
    HOST: LabelConstraint.Kind
    KIND_FIELD_NUMBER: _ClassVar[int]
    CONDITION_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    REQUIREMENT_FIELD_NUMBER: _ClassVar[int]
    kind: LabelConstraint.Kind
    condition: LabelConstraint.Condition
    label: _peloton_pb2.Label
    requirement: int
    def __init__(self, kind: _Optional[_Union[LabelConstraint.Kind, str]] = ..., condition: _Optional[_Union[LabelConstraint.Condition, str]] = ..., label: _Optional[_Union[_peloton_pb2.Label, _Mapping]] = ..., requirement: _Optional[int] = ...) -> None: ...

class ListRequest(_message.Message):
    __slots__ = ("jobId", "range")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    RANGE_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    range: InstanceRange
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., range: _Optional[_Union[InstanceRange, _Mapping]] = ...) -> None: ...

class ListResponse(_message.Message):
    __slots__ = ("result", "notFound")
    class Result(_message.Message):
        __slots__ = ("value",)
        class ValueEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: int
            value: TaskInfo
            def __init__(self, key: _Optional[int] = ..., value: _Optional[_Union[TaskInfo, _Mapping]] = ...) -> None: ...
        VALUE_FIELD_NUMBER: _ClassVar[int]
        value: _containers.MessageMap[int, TaskInfo]
        def __init__(self, value: _Optional[_Mapping[int, TaskInfo]] = ...) -> None: ...
    RESULT_FIELD_NUMBER: _ClassVar[int]
    NOTFOUND_FIELD_NUMBER: _ClassVar[int]
    result: ListResponse.Result
    notFound: _errors_pb2.JobNotFound
    def __init__(self, result: _Optional[_Union[ListResponse.Result, _Mapping]] = ..., notFound: _Optional[_Union[_errors_pb2.JobNotFound, _Mapping]] = ...) -> None: ...

class OrConstraint(_message.Message):
    __slots__ = ("constraints",)
    CONSTRAINTS_FIELD_NUMBER: _ClassVar[int]
    constraints: _containers.RepeatedCompositeFieldContainer[Constraint]
    def __init__(self, constraints: _Optional[_Iterable[_Union[Constraint, _Mapping]]] = ...) -> None: ...

class PersistentVolumeConfig(_message.Message):
    __slots__ = ("containerPath", "sizeMB")
    CONTAINERPATH_FIELD_NUMBER: _ClassVar[int]
    SIZEMB_FIELD_NUMBER: _ClassVar[int]
    containerPath: str
    sizeMB: int
    def __init__(self, containerPath: _Optional[str] = ..., sizeMB: _Optional[int] = ...) -> None: ...

class PortConfig(_message.Message):
    __slots__ = ("name", "value", "envName")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    ENVNAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    value: int
    envName: str
    def __init__(self, name: _Optional[str] = ..., value: _Optional[int] = ..., envName: _Optional[str] = ...) -> None: ...

class PreemptionPolicy(_message.Message):
    __slots__ = ("type", "killOnPreempt")
    class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        TYPE_INVALID: _ClassVar[PreemptionPolicy.Type]
        TYPE_PREEMPTIBLE: _ClassVar[PreemptionPolicy.Type]
        TYPE_NON_PREEMPTIBLE: _ClassVar[PreemptionPolicy.Type]
    TYPE_INVALID: PreemptionPolicy.Type
    TYPE_PREEMPTIBLE: PreemptionPolicy.Type
    TYPE_NON_PREEMPTIBLE: PreemptionPolicy.Type
    TYPE_FIELD_NUMBER: _ClassVar[int]
    KILLONPREEMPT_FIELD_NUMBER: _ClassVar[int]
    type: PreemptionPolicy.Type
    killOnPreempt: bool
    def __init__(self, type: _Optional[_Union[PreemptionPolicy.Type, str]] = ..., killOnPreempt: _Optional[bool] = ...) -> None: ...

class QueryRequest(_message.Message):
    __slots__ = ("jobId", "spec")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    spec: QuerySpec
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., spec: _Optional[_Union[QuerySpec, _Mapping]] = ...) -> None: ...

class QueryResponse(_message.Message):
    __slots__ = ("error", "records", "pagination")
    class Error(_message.Message):
        __slots__ = ("notFound",)
        NOTFOUND_FIELD_NUMBER: _ClassVar[int]
        notFound: _errors_pb2.JobNotFound
        def __init__(self, notFound: _Optional[_Union[_errors_pb2.JobNotFound, _Mapping]] = ...) -> None: ...
    ERROR_FIELD_NUMBER: _ClassVar[int]
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    PAGINATION_FIELD_NUMBER: _ClassVar[int]
    error: QueryResponse.Error
    records: _containers.RepeatedCompositeFieldContainer[TaskInfo]
    pagination: _query_pb2.Pagination
    def __init__(self, error: _Optional[_Union[QueryResponse.Error, _Mapping]] = ..., records: _Optional[_Iterable[_Union[TaskInfo, _Mapping]]] = ..., pagination: _Optional[_Union[_query_pb2.Pagination, _Mapping]] = ...) -> None: ...

class QuerySpec(_message.Message):
    __slots__ = ("pagination", "taskStates", "names", "hosts")
    PAGINATION_FIELD_NUMBER: _ClassVar[int]
    TASKSTATES_FIELD_NUMBER: _ClassVar[int]
    NAMES_FIELD_NUMBER: _ClassVar[int]
    HOSTS_FIELD_NUMBER: _ClassVar[int]
    pagination: _query_pb2.PaginationSpec
    taskStates: _containers.RepeatedScalarFieldContainer[TaskState]
    names: _containers.RepeatedScalarFieldContainer[str]
    hosts: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, pagination: _Optional[_Union[_query_pb2.PaginationSpec, _Mapping]] = ..., taskStates: _Optional[_Iterable[_Union[TaskState, str]]] = ..., names: _Optional[_Iterable[str]] = ..., hosts: _Optional[_Iterable[str]] = ...) -> None: ...

class ResourceConfig(_message.Message):
    __slots__ = ("cpuLimit", "memLimitMb", "diskLimitMb", "fdLimit", "gpuLimit")
    CPULIMIT_FIELD_NUMBER: _ClassVar[int]
    MEMLIMITMB_FIELD_NUMBER: _ClassVar[int]
    DISKLIMITMB_FIELD_NUMBER: _ClassVar[int]
    FDLIMIT_FIELD_NUMBER: _ClassVar[int]
    GPULIMIT_FIELD_NUMBER: _ClassVar[int]
    cpuLimit: float
    memLimitMb: float
    diskLimitMb: float
    fdLimit: int
    gpuLimit: float
    def __init__(self, cpuLimit: _Optional[float] = ..., memLimitMb: _Optional[float] = ..., diskLimitMb: _Optional[float] = ..., fdLimit: _Optional[int] = ..., gpuLimit: _Optional[float] = ...) -> None: ...

class RestartPolicy(_message.Message):
    __slots__ = ("maxFailures",)
    MAXFAILURES_FIELD_NUMBER: _ClassVar[int]
    maxFailures: int
    def __init__(self, maxFailures: _Optional[int] = ...) -> None: ...

class RestartRequest(_message.Message):
    __slots__ = ("jobId", "ranges")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    RANGES_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    ranges: _containers.RepeatedCompositeFieldContainer[InstanceRange]
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., ranges: _Optional[_Iterable[_Union[InstanceRange, _Mapping]]] = ...) -> None: ...

class RestartResponse(_message.Message):
    __slots__ = ("notFound", "outOfRange")
    NOTFOUND_FIELD_NUMBER: _ClassVar[int]
    OUTOFRANGE_FIELD_NUMBER: _ClassVar[int]
    notFound: _errors_pb2.JobNotFound
    outOfRange: InstanceIdOutOfRange
    def __init__(self, notFound: _Optional[_Union[_errors_pb2.JobNotFound, _Mapping]] = ..., outOfRange: _Optional[_Union[InstanceIdOutOfRange, _Mapping]] = ...) -> None: ...

class RuntimeInfo(_message.Message):
    __slots__ = ("state", "mesosTaskId", "startTime", "completionTime", "host", "ports", "goalState", "message", "reason", "failureCount", "volumeID", "configVersion", "desiredConfigVersion", "agentID", "revision", "prevMesosTaskId", "resourceUsage", "healthy", "desiredMesosTaskId", "terminationStatus", "desiredHost", "leaseId", "cluster", "restartRequested", "workflowHold")
    class PortsEntry(_message.Message):
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
    STATE_FIELD_NUMBER: _ClassVar[int]
    MESOSTASKID_FIELD_NUMBER: _ClassVar[int]
    STARTTIME_FIELD_NUMBER: _ClassVar[int]
    COMPLETIONTIME_FIELD_NUMBER: _ClassVar[int]
    HOST_FIELD_NUMBER: _ClassVar[int]
    PORTS_FIELD_NUMBER: _ClassVar[int]
    GOALSTATE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FAILURECOUNT_FIELD_NUMBER: _ClassVar[int]
    VOLUMEID_FIELD_NUMBER: _ClassVar[int]
    CONFIGVERSION_FIELD_NUMBER: _ClassVar[int]
    DESIREDCONFIGVERSION_FIELD_NUMBER: _ClassVar[int]
    AGENTID_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    PREVMESOSTASKID_FIELD_NUMBER: _ClassVar[int]
    RESOURCEUSAGE_FIELD_NUMBER: _ClassVar[int]
    HEALTHY_FIELD_NUMBER: _ClassVar[int]
    DESIREDMESOSTASKID_FIELD_NUMBER: _ClassVar[int]
    TERMINATIONSTATUS_FIELD_NUMBER: _ClassVar[int]
    DESIREDHOST_FIELD_NUMBER: _ClassVar[int]
    LEASEID_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_FIELD_NUMBER: _ClassVar[int]
    RESTARTREQUESTED_FIELD_NUMBER: _ClassVar[int]
    WORKFLOWHOLD_FIELD_NUMBER: _ClassVar[int]
    state: TaskState
    mesosTaskId: _mesos_pb2.TaskID
    startTime: str
    completionTime: str
    host: str
    ports: _containers.ScalarMap[str, int]
    goalState: TaskState
    message: str
    reason: str
    failureCount: int
    volumeID: _peloton_pb2.VolumeID
    configVersion: int
    desiredConfigVersion: int
    agentID: _mesos_pb2.AgentID
    revision: _peloton_pb2.ChangeLog
    prevMesosTaskId: _mesos_pb2.TaskID
    resourceUsage: _containers.ScalarMap[str, float]
    healthy: HealthState
    desiredMesosTaskId: _mesos_pb2.TaskID
    terminationStatus: TerminationStatus
    desiredHost: str
    leaseId: str
    cluster: str
    restartRequested: bool
    workflowHold: bool
    def __init__(self, state: _Optional[_Union[TaskState, str]] = ..., mesosTaskId: _Optional[_Union[_mesos_pb2.TaskID, _Mapping]] = ..., startTime: _Optional[str] = ..., completionTime: _Optional[str] = ..., host: _Optional[str] = ..., ports: _Optional[_Mapping[str, int]] = ..., goalState: _Optional[_Union[TaskState, str]] = ..., message: _Optional[str] = ..., reason: _Optional[str] = ..., failureCount: _Optional[int] = ..., volumeID: _Optional[_Union[_peloton_pb2.VolumeID, _Mapping]] = ..., configVersion: _Optional[int] = ..., desiredConfigVersion: _Optional[int] = ..., agentID: _Optional[_Union[_mesos_pb2.AgentID, _Mapping]] = ..., revision: _Optional[_Union[_peloton_pb2.ChangeLog, _Mapping]] = ..., prevMesosTaskId: _Optional[_Union[_mesos_pb2.TaskID, _Mapping]] = ..., resourceUsage: _Optional[_Mapping[str, float]] = ..., healthy: _Optional[_Union[HealthState, str]] = ..., desiredMesosTaskId: _Optional[_Union[_mesos_pb2.TaskID, _Mapping]] = ..., terminationStatus: _Optional[_Union[TerminationStatus, _Mapping]] = ..., desiredHost: _Optional[str] = ..., leaseId: _Optional[str] = ..., cluster: _Optional[str] = ..., restartRequested: _Optional[bool] = ..., workflowHold: _Optional[bool] = ...) -> None: ...

class StartRequest(_message.Message):
    __slots__ = ("jobId", "ranges")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    RANGES_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    ranges: _containers.RepeatedCompositeFieldContainer[InstanceRange]
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., ranges: _Optional[_Iterable[_Union[InstanceRange, _Mapping]]] = ...) -> None: ...

class StartResponse(_message.Message):
    __slots__ = ("error", "startedInstanceIds", "invalidInstanceIds")
    class Error(_message.Message):
        __slots__ = ("notFound", "outOfRange", "failure")
        NOTFOUND_FIELD_NUMBER: _ClassVar[int]
        OUTOFRANGE_FIELD_NUMBER: _ClassVar[int]
        FAILURE_FIELD_NUMBER: _ClassVar[int]
        notFound: _errors_pb2.JobNotFound
        outOfRange: InstanceIdOutOfRange
        failure: TaskStartFailure
        def __init__(self, notFound: _Optional[_Union[_errors_pb2.JobNotFound, _Mapping]] = ..., outOfRange: _Optional[_Union[InstanceIdOutOfRange, _Mapping]] = ..., failure: _Optional[_Union[TaskStartFailure, _Mapping]] = ...) -> None: ...
    ERROR_FIELD_NUMBER: _ClassVar[int]
    STARTEDINSTANCEIDS_FIELD_NUMBER: _ClassVar[int]
    INVALIDINSTANCEIDS_FIELD_NUMBER: _ClassVar[int]
    error: StartResponse.Error
    startedInstanceIds: _containers.RepeatedScalarFieldContainer[int]
    invalidInstanceIds: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, error: _Optional[_Union[StartResponse.Error, _Mapping]] = ..., startedInstanceIds: _Optional[_Iterable[int]] = ..., invalidInstanceIds: _Optional[_Iterable[int]] = ...) -> None: ...

class StopRequest(_message.Message):
    __slots__ = ("jobId", "ranges")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    RANGES_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    ranges: _containers.RepeatedCompositeFieldContainer[InstanceRange]
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., ranges: _Optional[_Iterable[_Union[InstanceRange, _Mapping]]] = ...) -> None: ...

class StopResponse(_message.Message):
    __slots__ = ("error", "stoppedInstanceIds", "invalidInstanceIds")
    class Error(_message.Message):
        __slots__ = ("notFound", "outOfRange", "updateError")
        NOTFOUND_FIELD_NUMBER: _ClassVar[int]
        OUTOFRANGE_FIELD_NUMBER: _ClassVar[int]
        UPDATEERROR_FIELD_NUMBER: _ClassVar[int]
        notFound: _errors_pb2.JobNotFound
        outOfRange: InstanceIdOutOfRange
        updateError: TaskUpdateError
        def __init__(self, notFound: _Optional[_Union[_errors_pb2.JobNotFound, _Mapping]] = ..., outOfRange: _Optional[_Union[InstanceIdOutOfRange, _Mapping]] = ..., updateError: _Optional[_Union[TaskUpdateError, _Mapping]] = ...) -> None: ...
    ERROR_FIELD_NUMBER: _ClassVar[int]
    STOPPEDINSTANCEIDS_FIELD_NUMBER: _ClassVar[int]
    INVALIDINSTANCEIDS_FIELD_NUMBER: _ClassVar[int]
    error: StopResponse.Error
    stoppedInstanceIds: _containers.RepeatedScalarFieldContainer[int]
    invalidInstanceIds: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, error: _Optional[_Union[StopResponse.Error, _Mapping]] = ..., stoppedInstanceIds: _Optional[_Iterable[int]] = ..., invalidInstanceIds: _Optional[_Iterable[int]] = ...) -> None: ...

class TaskConfig(_message.Message):
    __slots__ = ("name", "labels", "resource", "container", "command", "healthCheck", "ports", "constraint", "restartPolicy", "volume", "preemptionPolicy", "controller", "killGracePeriodSeconds", "revocable", "executor")
    NAME_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    CONTAINER_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    HEALTHCHECK_FIELD_NUMBER: _ClassVar[int]
    PORTS_FIELD_NUMBER: _ClassVar[int]
    CONSTRAINT_FIELD_NUMBER: _ClassVar[int]
    RESTARTPOLICY_FIELD_NUMBER: _ClassVar[int]
    VOLUME_FIELD_NUMBER: _ClassVar[int]
    PREEMPTIONPOLICY_FIELD_NUMBER: _ClassVar[int]
    CONTROLLER_FIELD_NUMBER: _ClassVar[int]
    KILLGRACEPERIODSECONDS_FIELD_NUMBER: _ClassVar[int]
    REVOCABLE_FIELD_NUMBER: _ClassVar[int]
    EXECUTOR_FIELD_NUMBER: _ClassVar[int]
    name: str
    labels: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Label]
    resource: ResourceConfig
    container: _mesos_pb2.ContainerInfo
    command: _mesos_pb2.CommandInfo
    healthCheck: HealthCheckConfig
    ports: _containers.RepeatedCompositeFieldContainer[PortConfig]
    constraint: Constraint
    restartPolicy: RestartPolicy
    volume: PersistentVolumeConfig
    preemptionPolicy: PreemptionPolicy
    controller: bool
    killGracePeriodSeconds: int
    revocable: bool
    executor: _mesos_pb2.ExecutorInfo
    def __init__(self, name: _Optional[str] = ..., labels: _Optional[_Iterable[_Union[_peloton_pb2.Label, _Mapping]]] = ..., resource: _Optional[_Union[ResourceConfig, _Mapping]] = ..., container: _Optional[_Union[_mesos_pb2.ContainerInfo, _Mapping]] = ..., command: _Optional[_Union[_mesos_pb2.CommandInfo, _Mapping]] = ..., healthCheck: _Optional[_Union[HealthCheckConfig, _Mapping]] = ..., ports: _Optional[_Iterable[_Union[PortConfig, _Mapping]]] = ..., constraint: _Optional[_Union[Constraint, _Mapping]] = ..., restartPolicy: _Optional[_Union[RestartPolicy, _Mapping]] = ..., volume: _Optional[_Union[PersistentVolumeConfig, _Mapping]] = ..., preemptionPolicy: _Optional[_Union[PreemptionPolicy, _Mapping]] = ..., controller: _Optional[bool] = ..., killGracePeriodSeconds: _Optional[int] = ..., revocable: _Optional[bool] = ..., executor: _Optional[_Union[_mesos_pb2.ExecutorInfo, _Mapping]] = ...) -> None: ...

class TaskEvent(_message.Message):
    __slots__ = ("taskId", "state", "message", "timestamp", "source", "hostname", "reason", "agentId", "prevTaskId", "healthy", "desiredTaskId")
    class Source(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        SOURCE_UNKNOWN: _ClassVar[TaskEvent.Source]
        SOURCE_JOBMGR: _ClassVar[TaskEvent.Source]
        SOURCE_RESMGR: _ClassVar[TaskEvent.Source]
        SOURCE_HOSTMGR: _ClassVar[TaskEvent.Source]
    SOURCE_UNKNOWN: TaskEvent.Source
    SOURCE_JOBMGR: TaskEvent.Source
    SOURCE_RESMGR: TaskEvent.Source
    SOURCE_HOSTMGR: TaskEvent.Source
    TASKID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    AGENTID_FIELD_NUMBER: _ClassVar[int]
    PREVTASKID_FIELD_NUMBER: _ClassVar[int]
    HEALTHY_FIELD_NUMBER: _ClassVar[int]
    DESIREDTASKID_FIELD_NUMBER: _ClassVar[int]
    taskId: _peloton_pb2.TaskID
    state: TaskState
    message: str
    timestamp: str
    source: TaskEvent.Source
    hostname: str
    reason: str
    agentId: str
    prevTaskId: _peloton_pb2.TaskID
    healthy: HealthState
    desiredTaskId: _peloton_pb2.TaskID
    def __init__(self, taskId: _Optional[_Union[_peloton_pb2.TaskID, _Mapping]] = ..., state: _Optional[_Union[TaskState, str]] = ..., message: _Optional[str] = ..., timestamp: _Optional[str] = ..., source: _Optional[_Union[TaskEvent.Source, str]] = ..., hostname: _Optional[str] = ..., reason: _Optional[str] = ..., agentId: _Optional[str] = ..., prevTaskId: _Optional[_Union[_peloton_pb2.TaskID, _Mapping]] = ..., healthy: _Optional[_Union[HealthState, str]] = ..., desiredTaskId: _Optional[_Union[_peloton_pb2.TaskID, _Mapping]] = ...) -> None: ...

class TaskInfo(_message.Message):
    __slots__ = ("instanceId", "jobId", "config", "runtime")
    INSTANCEID_FIELD_NUMBER: _ClassVar[int]
    JOBID_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    RUNTIME_FIELD_NUMBER: _ClassVar[int]
    instanceId: int
    jobId: _peloton_pb2.JobID
    config: TaskConfig
    runtime: RuntimeInfo
    def __init__(self, instanceId: _Optional[int] = ..., jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., config: _Optional[_Union[TaskConfig, _Mapping]] = ..., runtime: _Optional[_Union[RuntimeInfo, _Mapping]] = ...) -> None: ...

class TaskNotRunning(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...

class TaskStartFailure(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...

class TaskUpdateError(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...

class TerminationStatus(_message.Message):
    __slots__ = ("reason", "exit_code", "signal")
    class Reason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        TERMINATION_STATUS_REASON_INVALID: _ClassVar[TerminationStatus.Reason]
        TERMINATION_STATUS_REASON_KILLED_ON_REQUEST: _ClassVar[TerminationStatus.Reason]
        TERMINATION_STATUS_REASON_FAILED: _ClassVar[TerminationStatus.Reason]
        TERMINATION_STATUS_REASON_KILLED_HOST_MAINTENANCE: _ClassVar[TerminationStatus.Reason]
        TERMINATION_STATUS_REASON_PREEMPTED_RESOURCES: _ClassVar[TerminationStatus.Reason]
        TERMINATION_STATUS_REASON_DEADLINE_TIMEOUT_EXCEEDED: _ClassVar[TerminationStatus.Reason]
        TERMINATION_STATUS_REASON_KILLED_FOR_UPDATE: _ClassVar[TerminationStatus.Reason]
        TERMINATION_STATUS_REASON_KILLED_FOR_RESTART: _ClassVar[TerminationStatus.Reason]
        TERMINATION_STATUS_REASON_KILLED_FOR_SLA_AWARE_RESTART: _ClassVar[TerminationStatus.Reason]
    TERMINATION_STATUS_REASON_INVALID: TerminationStatus.Reason
    TERMINATION_STATUS_REASON_KILLED_ON_REQUEST: TerminationStatus.Reason
    TERMINATION_STATUS_REASON_FAILED: TerminationStatus.Reason
    TERMINATION_STATUS_REASON_KILLED_HOST_MAINTENANCE: TerminationStatus.Reason
    TERMINATION_STATUS_REASON_PREEMPTED_RESOURCES: TerminationStatus.Reason
    TERMINATION_STATUS_REASON_DEADLINE_TIMEOUT_EXCEEDED: TerminationStatus.Reason
    TERMINATION_STATUS_REASON_KILLED_FOR_UPDATE: TerminationStatus.Reason
    TERMINATION_STATUS_REASON_KILLED_FOR_RESTART: TerminationStatus.Reason
    TERMINATION_STATUS_REASON_KILLED_FOR_SLA_AWARE_RESTART: TerminationStatus.Reason
    REASON_FIELD_NUMBER: _ClassVar[int]
    EXIT_CODE_FIELD_NUMBER: _ClassVar[int]
    SIGNAL_FIELD_NUMBER: _ClassVar[int]
    reason: TerminationStatus.Reason
    exit_code: int
    signal: str
    def __init__(self, reason: _Optional[_Union[TerminationStatus.Reason, str]] = ..., exit_code: _Optional[int] = ..., signal: _Optional[str] = ...) -> None: ...

class ReadSandboxFileRequest(_message.Message):
    __slots__ = ("jobId", "instanceId", "taskId", "path", "offset", "length")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    INSTANCEID_FIELD_NUMBER: _ClassVar[int]
    TASKID_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    instanceId: int
    taskId: str
    path: str
    offset: int
    length: int
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., instanceId: _Optional[int] = ..., taskId: _Optional[str] = ..., path: _Optional[str] = ..., offset: _Optional[int] = ..., length: _Optional[int] = ...) -> None: ...

class ReadSandboxFileResponse(_message.Message):
    __slots__ = ("data", "size", "taskId")
    DATA_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    TASKID_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    size: int
    taskId: str
    def __init__(self, data: _Optional[bytes] = ..., size: _Optional[int] = ..., taskId: _Optional[str] = ...) -> None: ...

class RefreshRequest(_message.Message):
    __slots__ = ("jobId", "range")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    RANGE_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    range: InstanceRange
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., range: _Optional[_Union[InstanceRange, _Mapping]] = ...) -> None: ...

class RefreshResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetCacheRequest(_message.Message):
    __slots__ = ("jobId", "instanceId")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    INSTANCEID_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    instanceId: int
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., instanceId: _Optional[int] = ...) -> None: ...

class GetCacheResponse(_message.Message):
    __slots__ = ("runtime", "labels")
    RUNTIME_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    runtime: RuntimeInfo
    labels: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Label]
    def __init__(self, runtime: _Optional[_Union[RuntimeInfo, _Mapping]] = ..., labels: _Optional[_Iterable[_Union[_peloton_pb2.Label, _Mapping]]] = ...) -> None: ...

class GetPodEventsRequest(_message.Message):
    __slots__ = ("jobId", "instanceId", "limit", "runId")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    INSTANCEID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    RUNID_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    instanceId: int
    limit: int
    runId: str
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., instanceId: _Optional[int] = ..., limit: _Optional[int] = ..., runId: _Optional[str] = ...) -> None: ...

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

class PodEvent(_message.Message):
    __slots__ = ("taskId", "actualState", "goalState", "timestamp", "configVersion", "desiredConfigVersion", "agentID", "hostname", "message", "reason", "prevTaskId", "healthy", "desriedTaskId")
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
    DESRIEDTASKID_FIELD_NUMBER: _ClassVar[int]
    taskId: _mesos_pb2.TaskID
    actualState: str
    goalState: str
    timestamp: str
    configVersion: int
    desiredConfigVersion: int
    agentID: str
    hostname: str
    message: str
    reason: str
    prevTaskId: _mesos_pb2.TaskID
    healthy: str
    desriedTaskId: _mesos_pb2.TaskID
    def __init__(self, taskId: _Optional[_Union[_mesos_pb2.TaskID, _Mapping]] = ..., actualState: _Optional[str] = ..., goalState: _Optional[str] = ..., timestamp: _Optional[str] = ..., configVersion: _Optional[int] = ..., desiredConfigVersion: _Optional[int] = ..., agentID: _Optional[str] = ..., hostname: _Optional[str] = ..., message: _Optional[str] = ..., reason: _Optional[str] = ..., prevTaskId: _Optional[_Union[_mesos_pb2.TaskID, _Mapping]] = ..., healthy: _Optional[str] = ..., desriedTaskId: _Optional[_Union[_mesos_pb2.TaskID, _Mapping]] = ...) -> None: ...

class DeletePodEventsRequest(_message.Message):
    __slots__ = ("jobId", "instanceId", "runId")
    JOBID_FIELD_NUMBER: _ClassVar[int]
    INSTANCEID_FIELD_NUMBER: _ClassVar[int]
    RUNID_FIELD_NUMBER: _ClassVar[int]
    jobId: _peloton_pb2.JobID
    instanceId: int
    runId: int
    def __init__(self, jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., instanceId: _Optional[int] = ..., runId: _Optional[int] = ...) -> None: ...

class DeletePodEventsResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
