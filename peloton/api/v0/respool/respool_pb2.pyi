# Generated from peloton/api/v0/respool/respool.proto by tools/genproto.py. Do not edit.
from peloton.api.v0.changelog import changelog_pb2 as _changelog_pb2
from peloton.api.v0.peloton import peloton_pb2 as _peloton_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ReservationType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UNKNOWN_TYPE: _ClassVar[ReservationType]
    ELASTIC: _ClassVar[ReservationType]
    STATIC: _ClassVar[ReservationType]

class SchedulingPolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UNKNOWN: _ClassVar[SchedulingPolicy]
    PriorityFIFO: _ClassVar[SchedulingPolicy]
UNKNOWN_TYPE: ReservationType
ELASTIC: ReservationType
STATIC: ReservationType
UNKNOWN: SchedulingPolicy
PriorityFIFO: SchedulingPolicy

class ControllerLimit(_message.Message):
    __slots__ = ("maxPercent",)
    MAXPERCENT_FIELD_NUMBER: _ClassVar[int]
    maxPercent: float
    def __init__(self, maxPercent: _Optional[float] = ...) -> None: ...

class CreateRequest(_message.Message):
    __slots__ = ("config", "id")
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    config: ResourcePoolConfig
    id: _peloton_pb2.ResourcePoolID
    def __init__(self, config: _Optional[_Union[ResourcePoolConfig, _Mapping]] = ..., id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ...) -> None: ...

class CreateResponse(_message.Message):
    __slots__ = ("error", "result")
    class Error(_message.Message):
        __slots__ = ("alreadyExists", "invalidResourcePoolConfig")
        ALREADYEXISTS_FIELD_NUMBER: _ClassVar[int]
        INVALIDRESOURCEPOOLCONFIG_FIELD_NUMBER: _ClassVar[int]
        alreadyExists: ResourcePoolAlreadyExists
        invalidResourcePoolConfig: InvalidResourcePoolConfig
        def __init__(self, alreadyExists: _Optional[_Union[ResourcePoolAlreadyExists, _Mapping]] = ..., invalidResourcePoolConfig: _Optional[_Union[InvalidResourcePoolConfig, _Mapping]] = ...) -> None: ...
    ERROR_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    error: CreateResponse.Error
    result: _peloton_pb2.ResourcePoolID
    def __init__(self, error: _Optional[_Union[CreateResponse.Error, _Mapping]] = ..., result: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ...) -> None: ...

class DeleteRequest(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: ResourcePoolPath
    def __init__(self, path: _Optional[_Union[ResourcePoolPath, _Mapping]] = ...) -> None: ...

class DeleteResponse(_message.Message):
    __slots__ = ("error",)
    class Error(_message.Message):
        __slots__ = ("notFound", "isBusy", "isNotLeaf", "notDeleted")
        NOTFOUND_FIELD_NUMBER: _ClassVar[int]
        ISBUSY_FIELD_NUMBER: _ClassVar[int]
        ISNOTLEAF_FIELD_NUMBER: _ClassVar[int]
        NOTDELETED_FIELD_NUMBER: _ClassVar[int]
        notFound: ResourcePoolPathNotFound
        isBusy: ResourcePoolIsBusy
        isNotLeaf: ResourcePoolIsNotLeaf
        notDeleted: ResourcePoolNotDeleted
        def __init__(self, notFound: _Optional[_Union[ResourcePoolPathNotFound, _Mapping]] = ..., isBusy: _Optional[_Union[ResourcePoolIsBusy, _Mapping]] = ..., isNotLeaf: _Optional[_Union[ResourcePoolIsNotLeaf, _Mapping]] = ..., notDeleted: _Optional[_Union[ResourcePoolNotDeleted, _Mapping]] = ...) -> None: ...
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: DeleteResponse.Error
    def __init__(self, error: _Optional[_Union[DeleteResponse.Error, _Mapping]] = ...) -> None: ...

class GetRequest(_message.Message):
    __slots__ = ("id", "includeChildPools", "pendingLimit")
    ID_FIELD_NUMBER: _ClassVar[int]
    INCLUDECHILDPOOLS_FIELD_NUMBER: _ClassVar[int]
    PENDINGLIMIT_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.ResourcePoolID
    includeChildPools: bool
    pendingLimit: int
    def __init__(self, id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., includeChildPools: _Optional[bool] = ..., pendingLimit: _Optional[int] = ...) -> None: ...

class GetResponse(_message.Message):
    __slots__ = ("error", "poolinfo", "childPools", "pending")
    class Error(_message.Message):
        __slots__ = ("notFound",)
        NOTFOUND_FIELD_NUMBER: _ClassVar[int]
        notFound: ResourcePoolNotFound
        def __init__(self, notFound: _Optional[_Union[ResourcePoolNotFound, _Mapping]] = ...) -> None: ...
    ERROR_FIELD_NUMBER: _ClassVar[int]
    POOLINFO_FIELD_NUMBER: _ClassVar[int]
    CHILDPOOLS_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    error: GetResponse.Error
    poolinfo: ResourcePoolInfo
    childPools: _containers.RepeatedCompositeFieldContainer[ResourcePoolInfo]
    pending: _containers.RepeatedCompositeFieldContainer[PendingGang]
    def __init__(self, error: _Optional[_Union[GetResponse.Error, _Mapping]] = ..., poolinfo: _Optional[_Union[ResourcePoolInfo, _Mapping]] = ..., childPools: _Optional[_Iterable[_Union[ResourcePoolInfo, _Mapping]]] = ..., pending: _Optional[_Iterable[_Union[PendingGang, _Mapping]]] = ...) -> None: ...

class InvalidResourcePoolConfig(_message.Message):
    __slots__ = ("id", "message")
    ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.ResourcePoolID
    message: str
    def __init__(self, id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., message: _Optional[str] = ...) -> None: ...

class InvalidResourcePoolPath(_message.Message):
    __slots__ = ("path", "message")
    PATH_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    path: ResourcePoolPath
    message: str
    def __init__(self, path: _Optional[_Union[ResourcePoolPath, _Mapping]] = ..., message: _Optional[str] = ...) -> None: ...

class LookupRequest(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: ResourcePoolPath
    def __init__(self, path: _Optional[_Union[ResourcePoolPath, _Mapping]] = ...) -> None: ...

class LookupResponse(_message.Message):
    __slots__ = ("error", "id")
    class Error(_message.Message):
        __slots__ = ("notFound", "invalidPath")
        NOTFOUND_FIELD_NUMBER: _ClassVar[int]
        INVALIDPATH_FIELD_NUMBER: _ClassVar[int]
        notFound: ResourcePoolPathNotFound
        invalidPath: InvalidResourcePoolPath
        def __init__(self, notFound: _Optional[_Union[ResourcePoolPathNotFound, _Mapping]] = ..., invalidPath: _Optional[_Union[InvalidResourcePoolPath, _Mapping]] = ...) -> None: ...
    ERROR_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    error: LookupResponse.Error
    id: _peloton_pb2.ResourcePoolID
    def __init__(self, error: _Optional[_Union[LookupResponse.Error, _Mapping]] = ..., id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ...) -> None: ...

class QueryRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class QueryResponse(_message.Message):
    __slots__ = ("error", "resourcePools")
    class Error(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    ERROR_FIELD_NUMBER: _ClassVar[int]
    RESOURCEPOOLS_FIELD_NUMBER: _ClassVar[int]
    error: QueryResponse.Error
    resourcePools: _containers.RepeatedCompositeFieldContainer[ResourcePoolInfo]
    def __init__(self, error: _Optional[_Union[QueryResponse.Error, _Mapping]] = ..., resourcePools: _Optional[_Iterable[_Union[ResourcePoolInfo, _Mapping]]] = ...) -> None: ...

class ResourceConfig(_message.Message):
    __slots__ = ("kind", "reservation", "limit", "share", "type")
    KIND_FIELD_NUMBER: _ClassVar[int]
    RESERVATION_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    SHARE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    kind: str
    reservation: float
    limit: float
    share: float
    type: ReservationType
    def __init__(self, kind: _Optional[str] = ..., reservation: _Optional[float] = ..., limit: _Optional[float] = ..., share: _Optional[float] = ..., type: _Optional[_Union[ReservationType, str]] = ...) -> None: ...

class ResourcePoolAlreadyExists(_message.Message):
    __slots__ = ("id", "message")
    ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.ResourcePoolID
    message: str
    def __init__(self, id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., message: _Optional[str] = ...) -> None: ...

class ResourcePoolConfig(_message.Message):
    __slots__ = ("changeLog", "name", "owningTeam", "ldapGroups", "description", "resources", "parent", "policy", "controllerLimit", "slackLimit", "priorityPreemption")
    CHANGELOG_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OWNINGTEAM_FIELD_NUMBER: _ClassVar[int]
    LDAPGROUPS_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    RESOURCES_FIELD_NUMBER: _ClassVar[int]
    PARENT_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    CONTROLLERLIMIT_FIELD_NUMBER: _ClassVar[int]
    SLACKLIMIT_FIELD_NUMBER: _ClassVar[int]
    PRIORITYPREEMPTION_FIELD_NUMBER: _ClassVar[int]
    changeLog: _changelog_pb2.ChangeLog
    name: str
    owningTeam: str
    ldapGroups: _containers.RepeatedScalarFieldContainer[str]
    description: str
    resources: _containers.RepeatedCompositeFieldContainer[ResourceConfig]
    parent: _peloton_pb2.ResourcePoolID
    policy: SchedulingPolicy
    controllerLimit: ControllerLimit
    slackLimit: SlackLimit
    priorityPreemption: bool
    def __init__(self, changeLog: _Optional[_Union[_changelog_pb2.ChangeLog, _Mapping]] = ..., name: _Optional[str] = ..., owningTeam: _Optional[str] = ..., ldapGroups: _Optional[_Iterable[str]] = ..., description: _Optional[str] = ..., resources: _Optional[_Iterable[_Union[ResourceConfig, _Mapping]]] = ..., parent: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., policy: _Optional[_Union[SchedulingPolicy, str]] = ..., controllerLimit: _Optional[_Union[ControllerLimit, _Mapping]] = ..., slackLimit: _Optional[_Union[SlackLimit, _Mapping]] = ..., priorityPreemption: _Optional[bool] = ...) -> None: ...

class ResourcePoolInfo(_message.Message):
    __slots__ = ("id", "config", "parent", "children", "usage", "path")
    ID_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    PARENT_FIELD_NUMBER: _ClassVar[int]
    CHILDREN_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.ResourcePoolID
    config: ResourcePoolConfig
    parent: _peloton_pb2.ResourcePoolID
    children: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.ResourcePoolID]
    usage: _containers.RepeatedCompositeFieldContainer[ResourceUsage]
    path: ResourcePoolPath
    def __init__(self, id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., config: _Optional[_Union[ResourcePoolConfig, _Mapping]] = ..., parent: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., children: _Optional[_Iterable[_Union[_peloton_pb2.ResourcePoolID, _Mapping]]] = ..., usage: _Optional[_Iterable[_Union[ResourceUsage, _Mapping]]] = ..., path: _Optional[_Union[ResourcePoolPath, _Mapping]] = ...) -> None: ...

class ResourcePoolIsBusy(_message.Message):
    __slots__ = ("id", "message")
    ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.ResourcePoolID
    message: str
    def __init__(self, id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., message: _Optional[str] = ...) -> None: ...

class ResourcePoolIsNotLeaf(_message.Message):
    __slots__ = ("id", "message")
    ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.ResourcePoolID
    message: str
    def __init__(self, id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., message: _Optional[str] = ...) -> None: ...

class ResourcePoolNotDeleted(_message.Message):
    __slots__ = ("id", "message")
    ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.ResourcePoolID
    message: str
    def __init__(self, id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., message: _Optional[str] = ...) -> None: ...

class ResourcePoolNotFound(_message.Message):
    __slots__ = ("id", "message")
    ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.ResourcePoolID
    message: str
    def __init__(self, id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., message: _Optional[str] = ...) -> None: ...

class ResourcePoolPath(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: str
    def __init__(self, value: _Optional[str] = ...) -> None: ...

class ResourcePoolPathNotFound(_message.Message):
    __slots__ = ("path", "message")
    PATH_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    path: ResourcePoolPath
    message: str
    def __init__(self, path: _Optional[_Union[ResourcePoolPath, _Mapping]] = ..., message: _Optional[str] = ...) -> None: ...

class ResourceUsage(_message.Message):
    __slots__ = ("kind", "allocation", "slack", "entitlement", "demand", "slackEntitlement", "slackAllocation", "reservation", "limit", "share", "nonSlackEntitlement", "slackDemand")
    KIND_FIELD_NUMBER: _ClassVar[int]
    ALLOCATION_FIELD_NUMBER: _ClassVar[int]
    SLACK_FIELD_NUMBER: _ClassVar[int]
    ENTITLEMENT_FIELD_NUMBER: _ClassVar[int]
    DEMAND_FIELD_NUMBER: _ClassVar[int]
    SLACKENTITLEMENT_FIELD_NUMBER: _ClassVar[int]
    SLACKALLOCATION_FIELD_NUMBER: _ClassVar[int]
    RESERVATION_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    SHARE_FIELD_NUMBER: _ClassVar[int]
    NONSLACKENTITLEMENT_FIELD_NUMBER: _ClassVar[int]
    SLACKDEMAND_FIELD_NUMBER: _ClassVar[int]
    kind: str
    allocation: float
    slack: float
    entitlement: float
    demand: float
    slackEntitlement: float
    slackAllocation: float
    reservation: float
    limit: float
    share: float
    nonSlackEntitlement: float
    slackDemand: float
    def __init__(self, kind: _Optional[str] = ..., allocation: _Optional[float] = ..., slack: _Optional[float] = ..., entitlement: _Optional[float] = ..., demand: _Optional[float] = ..., slackEntitlement: _Optional[float] = ..., slackAllocation: _Optional[float] = ..., reservation: _Optional[float] = ..., limit: _Optional[float] = ..., share: _Optional[float] = ..., nonSlackEntitlement: _Optional[float] = ..., slackDemand: _Optional[float] = ...) -> None: ...

class SlackLimit(_message.Message):
    __slots__ = ("maxPercent",)
    MAXPERCENT_FIELD_NUMBER: _ClassVar[int]
    maxPercent: float
    def __init__(self, maxPercent: _Optional[float] = ...) -> None: ...

class UpdateRequest(_message.Message):
    __slots__ = ("id", "config", "Force")
    ID_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    FORCE_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.ResourcePoolID
    config: ResourcePoolConfig
    Force: bool
    def __init__(self, id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., config: _Optional[_Union[ResourcePoolConfig, _Mapping]] = ..., Force: _Optional[bool] = ...) -> None: ...

class UpdateResponse(_message.Message):
    __slots__ = ("error",)
    class Error(_message.Message):
        __slots__ = ("notFound", "invalidResourcePoolConfig")
        NOTFOUND_FIELD_NUMBER: _ClassVar[int]
        INVALIDRESOURCEPOOLCONFIG_FIELD_NUMBER: _ClassVar[int]
        notFound: ResourcePoolNotFound
        invalidResourcePoolConfig: InvalidResourcePoolConfig
        def __init__(self, notFound: _Optional[_Union[ResourcePoolNotFound, _Mapping]] = ..., invalidResourcePoolConfig: _Optional[_Union[InvalidResourcePoolConfig, _Mapping]] = ...) -> None: ...
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: UpdateResponse.Error
    def __init__(self, error: _Optional[_Union[UpdateResponse.Error, _Mapping]] = ...) -> None: ...

class PendingGang(_message.Message):
    __slots__ = ("taskIds", "priority", "cpu", "memMb", "diskMb", "gpu", "queue", "reason")
    TASKIDS_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    CPU_FIELD_NUMBER: _ClassVar[int]
    MEMMB_FIELD_NUMBER: _ClassVar[int]
    DISKMB_FIELD_NUMBER: _ClassVar[int]
    GPU_FIELD_NUMBER: _ClassVar[int]
    QUEUE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    taskIds: _containers.RepeatedScalarFieldContainer[str]
    priority: int
    cpu: float
    memMb: float
    diskMb: float
    gpu: float
    queue: str
    reason: str
    def __init__(self, taskIds: _Optional[_Iterable[str]] = ..., priority: _Optional[int] = ..., cpu: _Optional[float] = ..., memMb: _Optional[float] = ..., diskMb: _Optional[float] = ..., gpu: _Optional[float] = ..., queue: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...
