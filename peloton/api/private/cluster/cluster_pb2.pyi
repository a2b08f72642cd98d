# Generated from peloton/api/private/cluster/cluster.proto by tools/genproto.py. Do not edit.
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Member(_message.Message):
    __slots__ = ("id", "kind", "address", "cluster", "leaseExpires")
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_FIELD_NUMBER: _ClassVar[int]
    LEASEEXPIRES_FIELD_NUMBER: _ClassVar[int]
    id: str
    kind: str
    address: str
    cluster: str
    leaseExpires: float
    def __init__(self, id: _Optional[str] = ..., kind: _Optional[str] = ..., address: _Optional[str] = ..., cluster: _Optional[str] = ..., leaseExpires: _Optional[float] = ...) -> None: ...

class ShardOwner(_message.Message):
    __slots__ = ("shard", "owner", "epoch", "leaseExpires")
    SHARD_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    EPOCH_FIELD_NUMBER: _ClassVar[int]
    LEASEEXPIRES_FIELD_NUMBER: _ClassVar[int]
    shard: int
    owner: str
    epoch: int
    leaseExpires: float
    def __init__(self, shard: _Optional[int] = ..., owner: _Optional[str] = ..., epoch: _Optional[int] = ..., leaseExpires: _Optional[float] = ...) -> None: ...

class ClusterView(_message.Message):
    __slots__ = ("leader", "resmgrs", "members", "numShards", "shards", "now")
    LEADER_FIELD_NUMBER: _ClassVar[int]
    RESMGRS_FIELD_NUMBER: _ClassVar[int]
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    NUMSHARDS_FIELD_NUMBER: _ClassVar[int]
    SHARDS_FIELD_NUMBER: _ClassVar[int]
    NOW_FIELD_NUMBER: _ClassVar[int]
    leader: str
    resmgrs: _containers.RepeatedScalarFieldContainer[str]
    members: _containers.RepeatedCompositeFieldContainer[Member]
    numShards: int
    shards: _containers.RepeatedCompositeFieldContainer[ShardOwner]
    now: float
    def __init__(self, leader: _Optional[str] = ..., resmgrs: _Optional[_Iterable[str]] = ..., members: _Optional[_Iterable[_Union[Member, _Mapping]]] = ..., numShards: _Optional[int] = ..., shards: _Optional[_Iterable[_Union[ShardOwner, _Mapping]]] = ..., now: _Optional[float] = ...) -> None: ...

class HeartbeatRequest(_message.Message):
    __slots__ = ("member",)
    MEMBER_FIELD_NUMBER: _ClassVar[int]
    member: Member
    def __init__(self, member: _Optional[_Union[Member, _Mapping]] = ...) -> None: ...

class HeartbeatResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: ClusterView
    def __init__(self, view: _Optional[_Union[ClusterView, _Mapping]] = ...) -> None: ...

class GetClusterViewRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetStatsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Stats(_message.Message):
    __slots__ = ("appliedCommands", "commands", "taskStates", "tasks", "raft", "readyGangs", "placementsWaiting", "commandItems", "commitSeconds")
    class CommandsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class TaskStatesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class RaftEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class CommandItemsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class CommitSecondsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    APPLIEDCOMMANDS_FIELD_NUMBER: _ClassVar[int]
    COMMANDS_FIELD_NUMBER: _ClassVar[int]
    TASKSTATES_FIELD_NUMBER: _ClassVar[int]
    TASKS_FIELD_NUMBER: _ClassVar[int]
    RAFT_FIELD_NUMBER: _ClassVar[int]
    READYGANGS_FIELD_NUMBER: _ClassVar[int]
    PLACEMENTSWAITING_FIELD_NUMBER: _ClassVar[int]
    COMMANDITEMS_FIELD_NUMBER: _ClassVar[int]
    COMMITSECONDS_FIELD_NUMBER: _ClassVar[int]
    appliedCommands: int
    commands: _containers.ScalarMap[str, int]
    taskStates: _containers.ScalarMap[str, int]
    tasks: int
    raft: _containers.ScalarMap[str, str]
    readyGangs: int
    placementsWaiting: int
    commandItems: _containers.ScalarMap[str, int]
    commitSeconds: _containers.ScalarMap[str, float]
    def __init__(self, appliedCommands: _Optional[int] = ..., commands: _Optional[_Mapping[str, int]] = ..., taskStates: _Optional[_Mapping[str, int]] = ..., tasks: _Optional[int] = ..., raft: _Optional[_Mapping[str, str]] = ..., readyGangs: _Optional[int] = ..., placementsWaiting: _Optional[int] = ..., commandItems: _Optional[_Mapping[str, int]] = ..., commitSeconds: _Optional[_Mapping[str, float]] = ...) -> None: ...
