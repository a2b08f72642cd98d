# Generated from peloton/api/private/cluster/cluster.proto by tools/genproto.py. Do not edit.
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Member(_message.Message):
    __slots__ = ("id", "kind", "address", "cluster", "leaseExpires", "numShards")
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_FIELD_NUMBER: _ClassVar[int]
    LEASEEXPIRES_FIELD_NUMBER: _ClassVar[int]
    NUMSHARDS_FIELD_NUMBER: _ClassVar[int]
    id: str
    kind: str
    address: str
    cluster: str
    leaseExpires: float
    numShards: int
    def __init__(self, id: _Optional[str] = ..., kind: _Optional[str] = ..., address: _Optional[str] = ..., cluster: _Optional[str] = ..., leaseExpires: _Optional[float] = ..., numShards: _Optional[int] = ...) -> None: ...

class ShardOwner(_message.Message):
    __slots__ = ("shard", "owner", "epoch", "actFrom")
    SHARD_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    EPOCH_FIELD_NUMBER: _ClassVar[int]
    ACTFROM_FIELD_NUMBER: _ClassVar[int]
    shard: int
    owner: str
    epoch: int
    actFrom: float
    def __init__(self, shard: _Optional[int] = ..., owner: _Optional[str] = ..., epoch: _Optional[int] = ..., actFrom: _Optional[float] = ...) -> None: ...

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
    __slots__ = ("replicaLocal", "digestHistory", "fullDigestAt")
    REPLICALOCAL_FIELD_NUMBER: _ClassVar[int]
    DIGESTHISTORY_FIELD_NUMBER: _ClassVar[int]
    FULLDIGESTAT_FIELD_NUMBER: _ClassVar[int]
    replicaLocal: bool
    digestHistory: int
    fullDigestAt: int
    def __init__(self, replicaLocal: _Optional[bool] = ..., digestHistory: _Optional[int] = ..., fullDigestAt: _Optional[int] = ...) -> None: ...

class DigestPoint(_message.Message):
    __slots__ = ("index", "digest")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    index: int
    digest: str
    def __init__(self, index: _Optional[int] = ..., digest: _Optional[str] = ...) -> None: ...

class ReplicaDigest(_message.Message):
    __slots__ = ("appliedIndex", "chain", "chainSince", "history", "fullDigests")
    APPLIEDINDEX_FIELD_NUMBER: _ClassVar[int]
    CHAIN_FIELD_NUMBER: _ClassVar[int]
    CHAINSINCE_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    FULLDIGESTS_FIELD_NUMBER: _ClassVar[int]
    appliedIndex: int
    chain: str
    chainSince: int
    history: _containers.RepeatedCompositeFieldContainer[DigestPoint]
    fullDigests: _containers.RepeatedCompositeFieldContainer[DigestPoint]
    def __init__(self, appliedIndex: _Optional[int] = ..., chain: _Optional[str] = ..., chainSince: _Optional[int] = ..., history: _Optional[_Iterable[_Union[DigestPoint, _Mapping]]] = ..., fullDigests: _Optional[_Iterable[_Union[DigestPoint, _Mapping]]] = ...) -> None: ...

class DigestCheck(_message.Message):
    __slots__ = ("replica", "checks", "mismatches", "agreedIndex", "mismatchIndex", "ours", "theirs", "outcome")
    REPLICA_FIELD_NUMBER: _ClassVar[int]
    CHECKS_FIELD_NUMBER: _ClassVar[int]
    MISMATCHES_FIELD_NUMBER: _ClassVar[int]
    AGREEDINDEX_FIELD_NUMBER: _ClassVar[int]
    MISMATCHINDEX_FIELD_NUMBER: _ClassVar[int]
    OURS_FIELD_NUMBER: _ClassVar[int]
    THEIRS_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    replica: str
    checks: int
    mismatches: int
    agreedIndex: int
    mismatchIndex: int
    ours: str
    theirs: str
    outcome: str
    def __init__(self, replica: _Optional[str] = ..., checks: _Optional[int] = ..., mismatches: _Optional[int] = ..., agreedIndex: _Optional[int] = ..., mismatchIndex: _Optional[int] = ..., ours: _Optional[str] = ..., theirs: _Optional[str] = ..., outcome: _Optional[str] = ...) -> None: ...

class Stats(_message.Message):
    __slots__ = ("appliedCommands", "commands", "taskStates", "tasks", "raft", "readyGangs", "placementsWaiting", "commandItems", "commitSeconds", "digest", "replica", "leading", "digestChecks", "commandSeconds")
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
    class CommandSecondsEntry(_message.Message):
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
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    REPLICA_FIELD_NUMBER: _ClassVar[int]
    LEADING_FIELD_NUMBER: _ClassVar[int]
    DIGESTCHECKS_FIELD_NUMBER: _ClassVar[int]
    COMMANDSECONDS_FIELD_NUMBER: _ClassVar[int]
    appliedCommands: int
    commands: _containers.ScalarMap[str, int]
    taskStates: _containers.ScalarMap[str, int]
    tasks: int
    raft: _containers.ScalarMap[str, str]
    readyGangs: int
    placementsWaiting: int
    commandItems: _containers.ScalarMap[str, int]
    commitSeconds: _containers.ScalarMap[str, float]
    digest: ReplicaDigest
    replica: str
    leading: bool
    digestChecks: _containers.RepeatedCompositeFieldContainer[DigestCheck]
    commandSeconds: _containers.ScalarMap[str, float]
    def __init__(self, appliedCommands: _Optional[int] = ..., commands: _Optional[_Mapping[str, int]] = ..., taskStates: _Optional[_Mapping[str, int]] = ..., tasks: _Optional[int] = ..., raft: _Optional[_Mapping[str, str]] = ..., readyGangs: _Optional[int] = ..., placementsWaiting: _Optional[int] = ..., commandItems: _Optional[_Mapping[str, int]] = ..., commitSeconds: _Optional[_Mapping[str, float]] = ..., digest: _Optional[_Union[ReplicaDigest, _Mapping]] = ..., replica: _Optional[str] = ..., leading: _Optional[bool] = ..., digestChecks: _Optional[_Iterable[_Union[DigestCheck, _Mapping]]] = ..., commandSeconds: _Optional[_Mapping[str, float]] = ...) -> None: ...
