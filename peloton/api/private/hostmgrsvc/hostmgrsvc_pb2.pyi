# Generated from peloton/api/private/hostmgrsvc/hostmgrsvc.proto by tools/genproto.py. Do not edit.
from peloton.api.v0.peloton import peloton_pb2 as _peloton_pb2
from peloton.api.v0.task import task_pb2 as _task_pb2
from peloton.api.private.resmgrsvc import resmgrsvc_pb2 as _resmgrsvc_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class HostFilter(_message.Message):
    __slots__ = ("minimum", "numPorts", "maxHosts", "revocable", "portSample", "demand", "revocableMinimum", "spreadJobs", "countLabels", "constraint")
    MINIMUM_FIELD_NUMBER: _ClassVar[int]
    NUMPORTS_FIELD_NUMBER: _ClassVar[int]
    MAXHOSTS_FIELD_NUMBER: _ClassVar[int]
    REVOCABLE_FIELD_NUMBER: _ClassVar[int]
    PORTSAMPLE_FIELD_NUMBER: _ClassVar[int]
    DEMAND_FIELD_NUMBER: _ClassVar[int]
    REVOCABLEMINIMUM_FIELD_NUMBER: _ClassVar[int]
    SPREADJOBS_FIELD_NUMBER: _ClassVar[int]
    COUNTLABELS_FIELD_NUMBER: _ClassVar[int]
    CONSTRAINT_FIELD_NUMBER: _ClassVar[int]
    minimum: _resmgrsvc_pb2.Resources
    numPorts: int
    maxHosts: int
    revocable: bool
    portSample: int
    demand: _resmgrsvc_pb2.Resources
    revocableMinimum: _resmgrsvc_pb2.Resources
    spreadJobs: _containers.RepeatedScalarFieldContainer[str]
    countLabels: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Label]
    constraint: _task_pb2.Constraint
    def __init__(self, minimum: _Optional[_Union[_resmgrsvc_pb2.Resources, _Mapping]] = ..., numPorts: _Optional[int] = ..., maxHosts: _Optional[int] = ..., revocable: _Optional[bool] = ..., portSample: _Optional[int] = ..., demand: _Optional[_Union[_resmgrsvc_pb2.Resources, _Mapping]] = ..., revocableMinimum: _Optional[_Union[_resmgrsvc_pb2.Resources, _Mapping]] = ..., spreadJobs: _Optional[_Iterable[str]] = ..., countLabels: _Optional[_Iterable[_Union[_peloton_pb2.Label, _Mapping]]] = ..., constraint: _Optional[_Union[_task_pb2.Constraint, _Mapping]] = ...) -> None: ...

class HostLease(_message.Message):
    __slots__ = ("leaseId", "hostname", "agentId", "available", "ports", "attributes", "cluster", "slackCpu", "jobTasks", "taskLabels")
    class AttributesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class JobTasksEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    LEASEID_FIELD_NUMBER: _ClassVar[int]
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    AGENTID_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_FIELD_NUMBER: _ClassVar[int]
    PORTS_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTES_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_FIELD_NUMBER: _ClassVar[int]
    SLACKCPU_FIELD_NUMBER: _ClassVar[int]
    JOBTASKS_FIELD_NUMBER: _ClassVar[int]
    TASKLABELS_FIELD_NUMBER: _ClassVar[int]
    leaseId: str
    hostname: str
    agentId: str
    available: _resmgrsvc_pb2.Resources
    ports: _containers.RepeatedScalarFieldContainer[int]
    attributes: _containers.ScalarMap[str, str]
    cluster: str
    slackCpu: float
    jobTasks: _containers.ScalarMap[str, int]
    taskLabels: _containers.RepeatedCompositeFieldContainer[LabelCount]
    def __init__(self, leaseId: _Optional[str] = ..., hostname: _Optional[str] = ..., agentId: _Optional[str] = ..., available: _Optional[_Union[_resmgrsvc_pb2.Resources, _Mapping]] = ..., ports: _Optional[_Iterable[int]] = ..., attributes: _Optional[_Mapping[str, str]] = ..., cluster: _Optional[str] = ..., slackCpu: _Optional[float] = ..., jobTasks: _Optional[_Mapping[str, int]] = ..., taskLabels: _Optional[_Iterable[_Union[LabelCount, _Mapping]]] = ...) -> None: ...

class LabelCount(_message.Message):
    __slots__ = ("key", "value", "count")
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    key: str
    value: str
    count: int
    def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...

class AcquireHostsRequest(_message.Message):
    __slots__ = ("filter",)
    FILTER_FIELD_NUMBER: _ClassVar[int]
    filter: HostFilter
    def __init__(self, filter: _Optional[_Union[HostFilter, _Mapping]] = ...) -> None: ...

class AcquireHostsResponse(_message.Message):
    __slots__ = ("leases", "filterResultCounts", "totalHosts")
    class FilterResultCountsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    LEASES_FIELD_NUMBER: _ClassVar[int]
    FILTERRESULTCOUNTS_FIELD_NUMBER: _ClassVar[int]
    TOTALHOSTS_FIELD_NUMBER: _ClassVar[int]
    leases: _containers.RepeatedCompositeFieldContainer[HostLease]
    filterResultCounts: _containers.ScalarMap[str, int]
    totalHosts: int
    def __init__(self, leases: _Optional[_Iterable[_Union[HostLease, _Mapping]]] = ..., filterResultCounts: _Optional[_Mapping[str, int]] = ..., totalHosts: _Optional[int] = ...) -> None: ...

class PlannedLease(_message.Message):
    __slots__ = ("leaseId", "mesosTaskIds")
    LEASEID_FIELD_NUMBER: _ClassVar[int]
    MESOSTASKIDS_FIELD_NUMBER: _ClassVar[int]
    leaseId: str
    mesosTaskIds: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, leaseId: _Optional[str] = ..., mesosTaskIds: _Optional[_Iterable[str]] = ...) -> None: ...

class ReleaseHostsRequest(_message.Message):
    __slots__ = ("leaseIds", "planned")
    LEASEIDS_FIELD_NUMBER: _ClassVar[int]
    PLANNED_FIELD_NUMBER: _ClassVar[int]
    leaseIds: _containers.RepeatedScalarFieldContainer[str]
    planned: _containers.RepeatedCompositeFieldContainer[PlannedLease]
    def __init__(self, leaseIds: _Optional[_Iterable[str]] = ..., planned: _Optional[_Iterable[_Union[PlannedLease, _Mapping]]] = ...) -> None: ...

class ReleaseHostsResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LaunchableTask(_message.Message):
    __slots__ = ("taskId", "mesosTaskId", "config", "ports", "shard", "jobId", "instanceId", "revocable", "epoch", "configIndex")
    TASKID_FIELD_NUMBER: _ClassVar[int]
    MESOSTASKID_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    PORTS_FIELD_NUMBER: _ClassVar[int]
    SHARD_FIELD_NUMBER: _ClassVar[int]
    JOBID_FIELD_NUMBER: _ClassVar[int]
    INSTANCEID_FIELD_NUMBER: _ClassVar[int]
    REVOCABLE_FIELD_NUMBER: _ClassVar[int]
    EPOCH_FIELD_NUMBER: _ClassVar[int]
    CONFIGINDEX_FIELD_NUMBER: _ClassVar[int]
    taskId: str
    mesosTaskId: str
    config: _task_pb2.TaskConfig
    ports: _containers.RepeatedScalarFieldContainer[int]
    shard: int
    jobId: str
    instanceId: int
    revocable: bool
    epoch: int
    configIndex: int
    def __init__(self, taskId: _Optional[str] = ..., mesosTaskId: _Optional[str] = ..., config: _Optional[_Union[_task_pb2.TaskConfig, _Mapping]] = ..., ports: _Optional[_Iterable[int]] = ..., shard: _Optional[int] = ..., jobId: _Optional[str] = ..., instanceId: _Optional[int] = ..., revocable: _Optional[bool] = ..., epoch: _Optional[int] = ..., configIndex: _Optional[int] = ...) -> None: ...

class LaunchTasksRequest(_message.Message):
    __slots__ = ("leaseId", "hostname", "tasks")
    LEASEID_FIELD_NUMBER: _ClassVar[int]
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    TASKS_FIELD_NUMBER: _ClassVar[int]
    leaseId: str
    hostname: str
    tasks: _containers.RepeatedCompositeFieldContainer[LaunchableTask]
    def __init__(self, leaseId: _Optional[str] = ..., hostname: _Optional[str] = ..., tasks: _Optional[_Iterable[_Union[LaunchableTask, _Mapping]]] = ...) -> None: ...

class LaunchTasksResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LaunchTasksBatchRequest(_message.Message):
    __slots__ = ("launches", "configs")
    LAUNCHES_FIELD_NUMBER: _ClassVar[int]
    CONFIGS_FIELD_NUMBER: _ClassVar[int]
    launches: _containers.RepeatedCompositeFieldContainer[LaunchTasksRequest]
    configs: _containers.RepeatedCompositeFieldContainer[_task_pb2.TaskConfig]
    def __init__(self, launches: _Optional[_Iterable[_Union[LaunchTasksRequest, _Mapping]]] = ..., configs: _Optional[_Iterable[_Union[_task_pb2.TaskConfig, _Mapping]]] = ...) -> None: ...

class LaunchOutcome(_message.Message):
    __slots__ = ("leaseId", "code", "message")
    LEASEID_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    leaseId: str
    code: str
    message: str
    def __init__(self, leaseId: _Optional[str] = ..., code: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class LaunchTasksBatchResponse(_message.Message):
    __slots__ = ("outcomes",)
    OUTCOMES_FIELD_NUMBER: _ClassVar[int]
    outcomes: _containers.RepeatedCompositeFieldContainer[LaunchOutcome]
    def __init__(self, outcomes: _Optional[_Iterable[_Union[LaunchOutcome, _Mapping]]] = ...) -> None: ...

class KillTasksRequest(_message.Message):
    __slots__ = ("mesosTaskIds", "gracePeriodSeconds")
    MESOSTASKIDS_FIELD_NUMBER: _ClassVar[int]
    GRACEPERIODSECONDS_FIELD_NUMBER: _ClassVar[int]
    mesosTaskIds: _containers.RepeatedScalarFieldContainer[str]
    gracePeriodSeconds: int
    def __init__(self, mesosTaskIds: _Optional[_Iterable[str]] = ..., gracePeriodSeconds: _Optional[int] = ...) -> None: ...

class KillTasksResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DeleteVolumesRequest(_message.Message):
    __slots__ = ("hostname", "volumeIds")
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    VOLUMEIDS_FIELD_NUMBER: _ClassVar[int]
    hostname: str
    volumeIds: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, hostname: _Optional[str] = ..., volumeIds: _Optional[_Iterable[str]] = ...) -> None: ...

class DeleteVolumesResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ClusterCapacityRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ClusterCapacityResponse(_message.Message):
    __slots__ = ("cluster", "physical", "allocated", "slack", "largestHost", "hosts")
    CLUSTER_FIELD_NUMBER: _ClassVar[int]
    PHYSICAL_FIELD_NUMBER: _ClassVar[int]
    ALLOCATED_FIELD_NUMBER: _ClassVar[int]
    SLACK_FIELD_NUMBER: _ClassVar[int]
    LARGESTHOST_FIELD_NUMBER: _ClassVar[int]
    HOSTS_FIELD_NUMBER: _ClassVar[int]
    cluster: str
    physical: _resmgrsvc_pb2.Resources
    allocated: _resmgrsvc_pb2.Resources
    slack: _resmgrsvc_pb2.Resources
    largestHost: _resmgrsvc_pb2.Resources
    hosts: int
    def __init__(self, cluster: _Optional[str] = ..., physical: _Optional[_Union[_resmgrsvc_pb2.Resources, _Mapping]] = ..., allocated: _Optional[_Union[_resmgrsvc_pb2.Resources, _Mapping]] = ..., slack: _Optional[_Union[_resmgrsvc_pb2.Resources, _Mapping]] = ..., largestHost: _Optional[_Union[_resmgrsvc_pb2.Resources, _Mapping]] = ..., hosts: _Optional[int] = ...) -> None: ...

class TaskEvent(_message.Message):
    __slots__ = ("offset", "mesosTaskId", "state", "message", "hostname", "exitCode", "timestamp", "reason", "agentId", "healthy", "shard")
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    MESOSTASKID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    EXITCODE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    AGENTID_FIELD_NUMBER: _ClassVar[int]
    HEALTHY_FIELD_NUMBER: _ClassVar[int]
    SHARD_FIELD_NUMBER: _ClassVar[int]
    offset: int
    mesosTaskId: str
    state: _task_pb2.TaskState
    message: str
    hostname: str
    exitCode: int
    timestamp: float
    reason: str
    agentId: str
    healthy: _task_pb2.HealthState
    shard: int
    def __init__(self, offset: _Optional[int] = ..., mesosTaskId: _Optional[str] = ..., state: _Optional[_Union[_task_pb2.TaskState, str]] = ..., message: _Optional[str] = ..., hostname: _Optional[str] = ..., exitCode: _Optional[int] = ..., timestamp: _Optional[float] = ..., reason: _Optional[str] = ..., agentId: _Optional[str] = ..., healthy: _Optional[_Union[_task_pb2.HealthState, str]] = ..., shard: _Optional[int] = ...) -> None: ...

class ShardCursor(_message.Message):
    __slots__ = ("shard", "purgeOffset", "after")
    SHARD_FIELD_NUMBER: _ClassVar[int]
    PURGEOFFSET_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    shard: int
    purgeOffset: int
    after: int
    def __init__(self, shard: _Optional[int] = ..., purgeOffset: _Optional[int] = ..., after: _Optional[int] = ...) -> None: ...

class WaitForEventsRequest(_message.Message):
    __slots__ = ("shard", "purgeOffset", "limit", "timeout", "incarnation", "cursors")
    SHARD_FIELD_NUMBER: _ClassVar[int]
    PURGEOFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    INCARNATION_FIELD_NUMBER: _ClassVar[int]
    CURSORS_FIELD_NUMBER: _ClassVar[int]
    shard: int
    purgeOffset: int
    limit: int
    timeout: int
    incarnation: str
    cursors: _containers.RepeatedCompositeFieldContainer[ShardCursor]
    def __init__(self, shard: _Optional[int] = ..., purgeOffset: _Optional[int] = ..., limit: _Optional[int] = ..., timeout: _Optional[int] = ..., incarnation: _Optional[str] = ..., cursors: _Optional[_Iterable[_Union[ShardCursor, _Mapping]]] = ...) -> None: ...

class WaitForEventsResponse(_message.Message):
    __slots__ = ("events", "incarnation")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    INCARNATION_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[TaskEvent]
    incarnation: str
    def __init__(self, events: _Optional[_Iterable[_Union[TaskEvent, _Mapping]]] = ..., incarnation: _Optional[str] = ...) -> None: ...

class ReconcileTasksRequest(_message.Message):
    __slots__ = ("mesosTaskIds", "shard", "epoch")
    MESOSTASKIDS_FIELD_NUMBER: _ClassVar[int]
    SHARD_FIELD_NUMBER: _ClassVar[int]
    EPOCH_FIELD_NUMBER: _ClassVar[int]
    mesosTaskIds: _containers.RepeatedScalarFieldContainer[str]
    shard: int
    epoch: int
    def __init__(self, mesosTaskIds: _Optional[_Iterable[str]] = ..., shard: _Optional[int] = ..., epoch: _Optional[int] = ...) -> None: ...

class ReconcileTasksResponse(_message.Message):
    __slots__ = ("events", "unknown")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    UNKNOWN_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[TaskEvent]
    unknown: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, events: _Optional[_Iterable[_Union[TaskEvent, _Mapping]]] = ..., unknown: _Optional[_Iterable[str]] = ...) -> None: ...

class ReadSandboxFileRequest(_message.Message):
    __slots__ = ("mesosTaskId", "path", "offset", "length")
    MESOSTASKID_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    mesosTaskId: str
    path: str
    offset: int
    length: int
    def __init__(self, mesosTaskId: _Optional[str] = ..., path: _Optional[str] = ..., offset: _Optional[int] = ..., length: _Optional[int] = ...) -> None: ...

class ReadSandboxFileResponse(_message.Message):
    __slots__ = ("data", "size", "hostname", "paths", "sandbox", "filesAddress")
    DATA_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_FIELD_NUMBER: _ClassVar[int]
    FILESADDRESS_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    size: int
    hostname: str
    paths: _containers.RepeatedScalarFieldContainer[str]
    sandbox: str
    filesAddress: str
    def __init__(self, data: _Optional[bytes] = ..., size: _Optional[int] = ..., hostname: _Optional[str] = ..., paths: _Optional[_Iterable[str]] = ..., sandbox: _Optional[str] = ..., filesAddress: _Optional[str] = ...) -> None: ...
