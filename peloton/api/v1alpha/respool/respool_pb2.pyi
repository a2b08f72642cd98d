# Generated from peloton/api/v1alpha/respool/respool.proto by tools/genproto.py. Do not edit.
from peloton.api.v1alpha.peloton import peloton_pb2 as _peloton_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ReservationType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RESERVATION_TYPE_INVALID: _ClassVar[ReservationType]
    RESERVATION_TYPE_ELASTIC: _ClassVar[ReservationType]
    RESERVATION_TYPE_STATIC: _ClassVar[ReservationType]

class SchedulingPolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SCHEDULING_POLICY_INVALID: _ClassVar[SchedulingPolicy]
    SCHEDULING_POLICY_PRIORITY_FIFO: _ClassVar[SchedulingPolicy]
RESERVATION_TYPE_INVALID: ReservationType
RESERVATION_TYPE_ELASTIC: ReservationType
RESERVATION_TYPE_STATIC: ReservationType
SCHEDULING_POLICY_INVALID: SchedulingPolicy
SCHEDULING_POLICY_PRIORITY_FIFO: SchedulingPolicy

class ResourcePoolPath(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: str
    def __init__(self, value: _Optional[str] = ...) -> None: ...

class ResourceSpec(_message.Message):
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

class ResourcePoolSpec(_message.Message):
    __slots__ = ("revision", "name", "owning_team", "ldap_groups", "description", "resources", "parent", "policy", "controller_limit", "slack_limit")
    REVISION_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OWNING_TEAM_FIELD_NUMBER: _ClassVar[int]
    LDAP_GROUPS_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    RESOURCES_FIELD_NUMBER: _ClassVar[int]
    PARENT_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    CONTROLLER_LIMIT_FIELD_NUMBER: _ClassVar[int]
    SLACK_LIMIT_FIELD_NUMBER: _ClassVar[int]
    revision: _peloton_pb2.Revision
    name: str
    owning_team: str
    ldap_groups: _containers.RepeatedScalarFieldContainer[str]
    description: str
    resources: _containers.RepeatedCompositeFieldContainer[ResourceSpec]
    parent: _peloton_pb2.ResourcePoolID
    policy: SchedulingPolicy
    controller_limit: ControllerLimit
    slack_limit: SlackLimit
    def __init__(self, revision: _Optional[_Union[_peloton_pb2.Revision, _Mapping]] = ..., name: _Optional[str] = ..., owning_team: _Optional[str] = ..., ldap_groups: _Optional[_Iterable[str]] = ..., description: _Optional[str] = ..., resources: _Optional[_Iterable[_Union[ResourceSpec, _Mapping]]] = ..., parent: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., policy: _Optional[_Union[SchedulingPolicy, str]] = ..., controller_limit: _Optional[_Union[ControllerLimit, _Mapping]] = ..., slack_limit: _Optional[_Union[SlackLimit, _Mapping]] = ...) -> None: ...

class ControllerLimit(_message.Message):
    __slots__ = ("max_percent",)
    MAX_PERCENT_FIELD_NUMBER: _ClassVar[int]
    max_percent: float
    def __init__(self, max_percent: _Optional[float] = ...) -> None: ...

class SlackLimit(_message.Message):
    __slots__ = ("maxPercent",)
    MAXPERCENT_FIELD_NUMBER: _ClassVar[int]
    maxPercent: float
    def __init__(self, maxPercent: _Optional[float] = ...) -> None: ...

class ResourceUsage(_message.Message):
    __slots__ = ("kind", "allocation", "slack")
    KIND_FIELD_NUMBER: _ClassVar[int]
    ALLOCATION_FIELD_NUMBER: _ClassVar[int]
    SLACK_FIELD_NUMBER: _ClassVar[int]
    kind: str
    allocation: float
    slack: float
    def __init__(self, kind: _Optional[str] = ..., allocation: _Optional[float] = ..., slack: _Optional[float] = ...) -> None: ...

class ResourcePoolInfo(_message.Message):
    __slots__ = ("respool_id", "spec", "parent", "children", "usages", "path")
    RESPOOL_ID_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    PARENT_FIELD_NUMBER: _ClassVar[int]
    CHILDREN_FIELD_NUMBER: _ClassVar[int]
    USAGES_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    respool_id: _peloton_pb2.ResourcePoolID
    spec: ResourcePoolSpec
    parent: _peloton_pb2.ResourcePoolID
    children: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.ResourcePoolID]
    usages: _containers.RepeatedCompositeFieldContainer[ResourceUsage]
    path: ResourcePoolPath
    def __init__(self, respool_id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., spec: _Optional[_Union[ResourcePoolSpec, _Mapping]] = ..., parent: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., children: _Optional[_Iterable[_Union[_peloton_pb2.ResourcePoolID, _Mapping]]] = ..., usages: _Optional[_Iterable[_Union[ResourceUsage, _Mapping]]] = ..., path: _Optional[_Union[ResourcePoolPath, _Mapping]] = ...) -> None: ...
