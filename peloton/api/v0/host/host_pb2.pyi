# Generated from peloton/api/v0/host/host.proto by tools/genproto.py. Do not edit.
from peloton.api.v0.peloton import peloton_pb2 as _peloton_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class HostState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HOST_STATE_INVALID: _ClassVar[HostState]
    HOST_STATE_UNKNOWN: _ClassVar[HostState]
    HOST_STATE_UP: _ClassVar[HostState]
    HOST_STATE_DRAINING: _ClassVar[HostState]
    HOST_STATE_DRAINED: _ClassVar[HostState]
    HOST_STATE_DOWN: _ClassVar[HostState]
HOST_STATE_INVALID: HostState
HOST_STATE_UNKNOWN: HostState
HOST_STATE_UP: HostState
HOST_STATE_DRAINING: HostState
HOST_STATE_DRAINED: HostState
HOST_STATE_DOWN: HostState

class HostInfo(_message.Message):
    __slots__ = ("hostname", "ip", "state", "goal_state", "labels", "current_pool", "desired_pool", "cluster", "cpu", "memMb", "diskMb", "gpu", "cpuAllocated", "memMbAllocated", "diskMbAllocated", "gpuAllocated", "tasks", "limitsEnforced")
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    IP_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    GOAL_STATE_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    CURRENT_POOL_FIELD_NUMBER: _ClassVar[int]
    DESIRED_POOL_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_FIELD_NUMBER: _ClassVar[int]
    CPU_FIELD_NUMBER: _ClassVar[int]
    MEMMB_FIELD_NUMBER: _ClassVar[int]
    DISKMB_FIELD_NUMBER: _ClassVar[int]
    GPU_FIELD_NUMBER: _ClassVar[int]
    CPUALLOCATED_FIELD_NUMBER: _ClassVar[int]
    MEMMBALLOCATED_FIELD_NUMBER: _ClassVar[int]
    DISKMBALLOCATED_FIELD_NUMBER: _ClassVar[int]
    GPUALLOCATED_FIELD_NUMBER: _ClassVar[int]
    TASKS_FIELD_NUMBER: _ClassVar[int]
    LIMITSENFORCED_FIELD_NUMBER: _ClassVar[int]
    hostname: str
    ip: str
    state: HostState
    goal_state: HostState
    labels: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Label]
    current_pool: str
    desired_pool: str
    cluster: str
    cpu: float
    memMb: float
    diskMb: float
    gpu: float
    cpuAllocated: float
    memMbAllocated: float
    diskMbAllocated: float
    gpuAllocated: float
    tasks: int
    limitsEnforced: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, hostname: _Optional[str] = ..., ip: _Optional[str] = ..., state: _Optional[_Union[HostState, str]] = ..., goal_state: _Optional[_Union[HostState, str]] = ..., labels: _Optional[_Iterable[_Union[_peloton_pb2.Label, _Mapping]]] = ..., current_pool: _Optional[str] = ..., desired_pool: _Optional[str] = ..., cluster: _Optional[str] = ..., cpu: _Optional[float] = ..., memMb: _Optional[float] = ..., diskMb: _Optional[float] = ..., gpu: _Optional[float] = ..., cpuAllocated: _Optional[float] = ..., memMbAllocated: _Optional[float] = ..., diskMbAllocated: _Optional[float] = ..., gpuAllocated: _Optional[float] = ..., tasks: _Optional[int] = ..., limitsEnforced: _Optional[_Iterable[str]] = ...) -> None: ...

class HostPoolInfo(_message.Message):
    __slots__ = ("name", "hosts")
    NAME_FIELD_NUMBER: _ClassVar[int]
    HOSTS_FIELD_NUMBER: _ClassVar[int]
    name: str
    hosts: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., hosts: _Optional[_Iterable[str]] = ...) -> None: ...
