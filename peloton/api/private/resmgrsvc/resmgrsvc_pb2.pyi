# Generated from peloton/api/private/resmgrsvc/resmgrsvc.proto by tools/genproto.py. Do not edit.
from peloton.api.v0.job import job_pb2 as _job_pb2
from peloton.api.v0.peloton import peloton_pb2 as _peloton_pb2
from peloton.api.v0.task import task_pb2 as _task_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TaskType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UNKNOWN: _ClassVar[TaskType]
    BATCH: _ClassVar[TaskType]
    STATELESS: _ClassVar[TaskType]
    STATEFUL: _ClassVar[TaskType]
    DAEMON: _ClassVar[TaskType]

class PreemptionReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PREEMPTION_REASON_UNKNOWN: _ClassVar[PreemptionReason]
    PREEMPTION_REASON_REVOKE_RESOURCES: _ClassVar[PreemptionReason]
    PREEMPTION_REASON_HOST_MAINTENANCE: _ClassVar[PreemptionReason]
UNKNOWN: TaskType
BATCH: TaskType
STATELESS: TaskType
STATEFUL: TaskType
DAEMON: TaskType
PREEMPTION_REASON_UNKNOWN: PreemptionReason
PREEMPTION_REASON_REVOKE_RESOURCES: PreemptionReason
PREEMPTION_REASON_HOST_MAINTENANCE: PreemptionReason

class Resources(_message.Message):
    __slots__ = ("cpu", "memMb", "diskMb", "gpu")
    CPU_FIELD_NUMBER: _ClassVar[int]
    MEMMB_FIELD_NUMBER: _ClassVar[int]
    DISKMB_FIELD_NUMBER: _ClassVar[int]
    GPU_FIELD_NUMBER: _ClassVar[int]
    cpu: float
    memMb: float
    diskMb: float
    gpu: float
    def __init__(self, cpu: _Optional[float] = ..., memMb: _Optional[float] = ..., diskMb: _Optional[float] = ..., gpu: _Optional[float] = ...) -> None: ...

class Task(_message.Message):
    __slots__ = ("id", "jobId", "mesosTaskId", "resource", "priority", "preemptible", "numPorts", "controller", "revocable", "shard", "type", "minInstances", "constraint", "name", "placementStrategy", "labels", "maxUnavailable", "instances")
    ID_FIELD_NUMBER: _ClassVar[int]
    JOBID_FIELD_NUMBER: _ClassVar[int]
    MESOSTASKID_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    PREEMPTIBLE_FIELD_NUMBER: _ClassVar[int]
    NUMPORTS_FIELD_NUMBER: _ClassVar[int]
    CONTROLLER_FIELD_NUMBER: _ClassVar[int]
    REVOCABLE_FIELD_NUMBER: _ClassVar[int]
    SHARD_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    MININSTANCES_FIELD_NUMBER: _ClassVar[int]
    CONSTRAINT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PLACEMENTSTRATEGY_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    MAXUNAVAILABLE_FIELD_NUMBER: _ClassVar[int]
    INSTANCES_FIELD_NUMBER: _ClassVar[int]
    id: str
    jobId: str
    mesosTaskId: str
    resource: Resources
    priority: int
    preemptible: bool
    numPorts: int
    controller: bool
    revocable: bool
    shard: int
    type: TaskType
    minInstances: int
    constraint: _task_pb2.Constraint
    name: str
    placementStrategy: _job_pb2.PlacementStrategy
    labels: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Label]
    maxUnavailable: int
    instances: int
    def __init__(self, id: _Optional[str] = ..., jobId: _Optional[str] = ..., mesosTaskId: _Optional[str] = ..., resource: _Optional[_Union[Resources, _Mapping]] = ..., priority: _Optional[int] = ..., preemptible: _Optional[bool] = ..., numPorts: _Optional[int] = ..., controller: _Optional[bool] = ..., revocable: _Optional[bool] = ..., shard: _Optional[int] = ..., type: _Optional[_Union[TaskType, str]] = ..., minInstances: _Optional[int] = ..., constraint: _Optional[_Union[_task_pb2.Constraint, _Mapping]] = ..., name: _Optional[str] = ..., placementStrategy: _Optional[_Union[_job_pb2.PlacementStrategy, str]] = ..., labels: _Optional[_Iterable[_Union[_peloton_pb2.Label, _Mapping]]] = ..., maxUnavailable: _Optional[int] = ..., instances: _Optional[int] = ...) -> None: ...

class Gang(_message.Message):
    __slots__ = ("tasks",)
    TASKS_FIELD_NUMBER: _ClassVar[int]
    tasks: _containers.RepeatedCompositeFieldContainer[Task]
    def __init__(self, tasks: _Optional[_Iterable[_Union[Task, _Mapping]]] = ...) -> None: ...

class EnqueueGangsRequest(_message.Message):
    __slots__ = ("respoolID", "gangs", "requeue")
    RESPOOLID_FIELD_NUMBER: _ClassVar[int]
    GANGS_FIELD_NUMBER: _ClassVar[int]
    REQUEUE_FIELD_NUMBER: _ClassVar[int]
    respoolID: _peloton_pb2.ResourcePoolID
    gangs: _containers.RepeatedCompositeFieldContainer[Gang]
    requeue: bool
    def __init__(self, respoolID: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., gangs: _Optional[_Iterable[_Union[Gang, _Mapping]]] = ..., requeue: _Optional[bool] = ...) -> None: ...

class TaskFailure(_message.Message):
    __slots__ = ("mesosTaskId", "message")
    MESOSTASKID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    mesosTaskId: str
    message: str
    def __init__(self, mesosTaskId: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class EnqueueGangsResponse(_message.Message):
    __slots__ = ("failed", "waiting")
    FAILED_FIELD_NUMBER: _ClassVar[int]
    WAITING_FIELD_NUMBER: _ClassVar[int]
    failed: _containers.RepeatedCompositeFieldContainer[TaskFailure]
    waiting: int
    def __init__(self, failed: _Optional[_Iterable[_Union[TaskFailure, _Mapping]]] = ..., waiting: _Optional[int] = ...) -> None: ...

class DequeueGangsRequest(_message.Message):
    __slots__ = ("limit", "type", "timeout")
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    limit: int
    type: TaskType
    timeout: int
    def __init__(self, limit: _Optional[int] = ..., type: _Optional[_Union[TaskType, str]] = ..., timeout: _Optional[int] = ...) -> None: ...

class DequeueGangsResponse(_message.Message):
    __slots__ = ("gangs", "express")
    GANGS_FIELD_NUMBER: _ClassVar[int]
    EXPRESS_FIELD_NUMBER: _ClassVar[int]
    gangs: _containers.RepeatedCompositeFieldContainer[Gang]
    express: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, gangs: _Optional[_Iterable[_Union[Gang, _Mapping]]] = ..., express: _Optional[_Iterable[int]] = ...) -> None: ...

class TaskRef(_message.Message):
    __slots__ = ("pelotonTaskId", "mesosTaskId", "shard")
    PELOTONTASKID_FIELD_NUMBER: _ClassVar[int]
    MESOSTASKID_FIELD_NUMBER: _ClassVar[int]
    SHARD_FIELD_NUMBER: _ClassVar[int]
    pelotonTaskId: str
    mesosTaskId: str
    shard: int
    def __init__(self, pelotonTaskId: _Optional[str] = ..., mesosTaskId: _Optional[str] = ..., shard: _Optional[int] = ...) -> None: ...

class Placement(_message.Message):
    __slots__ = ("hostname", "agentId", "leaseId", "tasks", "ports", "cluster")
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    AGENTID_FIELD_NUMBER: _ClassVar[int]
    LEASEID_FIELD_NUMBER: _ClassVar[int]
    TASKS_FIELD_NUMBER: _ClassVar[int]
    PORTS_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_FIELD_NUMBER: _ClassVar[int]
    hostname: str
    agentId: str
    leaseId: str
    tasks: _containers.RepeatedCompositeFieldContainer[TaskRef]
    ports: _containers.RepeatedScalarFieldContainer[int]
    cluster: str
    def __init__(self, hostname: _Optional[str] = ..., agentId: _Optional[str] = ..., leaseId: _Optional[str] = ..., tasks: _Optional[_Iterable[_Union[TaskRef, _Mapping]]] = ..., ports: _Optional[_Iterable[int]] = ..., cluster: _Optional[str] = ...) -> None: ...

class FailedPlacement(_message.Message):
    __slots__ = ("gang", "reason", "shortOfResources")
    GANG_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SHORTOFRESOURCES_FIELD_NUMBER: _ClassVar[int]
    gang: Gang
    reason: str
    shortOfResources: bool
    def __init__(self, gang: _Optional[_Union[Gang, _Mapping]] = ..., reason: _Optional[str] = ..., shortOfResources: _Optional[bool] = ...) -> None: ...

class SetPlacementsRequest(_message.Message):
    __slots__ = ("express", "placements", "failedPlacements")
    EXPRESS_FIELD_NUMBER: _ClassVar[int]
    PLACEMENTS_FIELD_NUMBER: _ClassVar[int]
    FAILEDPLACEMENTS_FIELD_NUMBER: _ClassVar[int]
    express: bool
    placements: _containers.RepeatedCompositeFieldContainer[Placement]
    failedPlacements: _containers.RepeatedCompositeFieldContainer[FailedPlacement]
    def __init__(self, express: _Optional[bool] = ..., placements: _Optional[_Iterable[_Union[Placement, _Mapping]]] = ..., failedPlacements: _Optional[_Iterable[_Union[FailedPlacement, _Mapping]]] = ...) -> None: ...

class SetPlacementsResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetPlacementsRequest(_message.Message):
    __slots__ = ("shards", "limit", "timeout", "express")
    SHARDS_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    EXPRESS_FIELD_NUMBER: _ClassVar[int]
    shards: _containers.RepeatedScalarFieldContainer[int]
    limit: int
    timeout: int
    express: bool
    def __init__(self, shards: _Optional[_Iterable[int]] = ..., limit: _Optional[int] = ..., timeout: _Optional[int] = ..., express: _Optional[bool] = ...) -> None: ...

class GetPlacementsResponse(_message.Message):
    __slots__ = ("placements",)
    PLACEMENTS_FIELD_NUMBER: _ClassVar[int]
    placements: _containers.RepeatedCompositeFieldContainer[Placement]
    def __init__(self, placements: _Optional[_Iterable[_Union[Placement, _Mapping]]] = ...) -> None: ...

class TaskStateUpdate(_message.Message):
    __slots__ = ("mesosTaskId", "state")
    MESOSTASKID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    mesosTaskId: str
    state: _task_pb2.TaskState
    def __init__(self, mesosTaskId: _Optional[str] = ..., state: _Optional[_Union[_task_pb2.TaskState, str]] = ...) -> None: ...

class UpdateTasksStateRequest(_message.Message):
    __slots__ = ("updates",)
    UPDATES_FIELD_NUMBER: _ClassVar[int]
    updates: _containers.RepeatedCompositeFieldContainer[TaskStateUpdate]
    def __init__(self, updates: _Optional[_Iterable[_Union[TaskStateUpdate, _Mapping]]] = ...) -> None: ...

class UpdateTasksStateResponse(_message.Message):
    __slots__ = ("roomWanted",)
    ROOMWANTED_FIELD_NUMBER: _ClassVar[int]
    roomWanted: bool
    def __init__(self, roomWanted: _Optional[bool] = ...) -> None: ...

class GetPendingTasksRequest(_message.Message):
    __slots__ = ("respoolID", "limit")
    RESPOOLID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    respoolID: _peloton_pb2.ResourcePoolID
    limit: int
    def __init__(self, respoolID: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., limit: _Optional[int] = ...) -> None: ...

class PendingGang(_message.Message):
    __slots__ = ("gang", "reason", "queue")
    GANG_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    QUEUE_FIELD_NUMBER: _ClassVar[int]
    gang: Gang
    reason: str
    queue: str
    def __init__(self, gang: _Optional[_Union[Gang, _Mapping]] = ..., reason: _Optional[str] = ..., queue: _Optional[str] = ...) -> None: ...

class GetPendingTasksResponse(_message.Message):
    __slots__ = ("gangs",)
    GANGS_FIELD_NUMBER: _ClassVar[int]
    gangs: _containers.RepeatedCompositeFieldContainer[PendingGang]
    def __init__(self, gangs: _Optional[_Iterable[_Union[PendingGang, _Mapping]]] = ...) -> None: ...

class PreemptionCandidate(_message.Message):
    __slots__ = ("mesosTaskId", "reason", "message")
    MESOSTASKID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    mesosTaskId: str
    reason: PreemptionReason
    message: str
    def __init__(self, mesosTaskId: _Optional[str] = ..., reason: _Optional[_Union[PreemptionReason, str]] = ..., message: _Optional[str] = ...) -> None: ...

class GetPreemptibleTasksRequest(_message.Message):
    __slots__ = ("shards", "limit", "timeout")
    SHARDS_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    shards: _containers.RepeatedScalarFieldContainer[int]
    limit: int
    timeout: int
    def __init__(self, shards: _Optional[_Iterable[int]] = ..., limit: _Optional[int] = ..., timeout: _Optional[int] = ...) -> None: ...

class GetPreemptibleTasksResponse(_message.Message):
    __slots__ = ("tasks",)
    TASKS_FIELD_NUMBER: _ClassVar[int]
    tasks: _containers.RepeatedCompositeFieldContainer[PreemptionCandidate]
    def __init__(self, tasks: _Optional[_Iterable[_Union[PreemptionCandidate, _Mapping]]] = ...) -> None: ...

class GetWaitReasonsRequest(_message.Message):
    __slots__ = ("mesosTaskIds",)
    MESOSTASKIDS_FIELD_NUMBER: _ClassVar[int]
    mesosTaskIds: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, mesosTaskIds: _Optional[_Iterable[str]] = ...) -> None: ...

class GetWaitReasonsResponse(_message.Message):
    __slots__ = ("reasons",)
    class ReasonsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    REASONS_FIELD_NUMBER: _ClassVar[int]
    reasons: _containers.ScalarMap[str, str]
    def __init__(self, reasons: _Optional[_Mapping[str, str]] = ...) -> None: ...

class GetActiveTasksRequest(_message.Message):
    __slots__ = ("shards",)
    SHARDS_FIELD_NUMBER: _ClassVar[int]
    shards: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, shards: _Optional[_Iterable[int]] = ...) -> None: ...

class GetActiveTasksResponse(_message.Message):
    __slots__ = ("tasks",)
    TASKS_FIELD_NUMBER: _ClassVar[int]
    tasks: _containers.RepeatedCompositeFieldContainer[TaskStateUpdate]
    def __init__(self, tasks: _Optional[_Iterable[_Union[TaskStateUpdate, _Mapping]]] = ...) -> None: ...
