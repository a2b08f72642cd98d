# Generated from peloton/api/v0/host/svc/host_svc.proto by tools/genproto.py. Do not edit.
from peloton.api.v0.host import host_pb2 as _host_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class QueryHostsRequest(_message.Message):
    __slots__ = ("host_states",)
    HOST_STATES_FIELD_NUMBER: _ClassVar[int]
    host_states: _containers.RepeatedScalarFieldContainer[_host_pb2.HostState]
    def __init__(self, host_states: _Optional[_Iterable[_Union[_host_pb2.HostState, str]]] = ...) -> None: ...

class QueryHostsResponse(_message.Message):
    __slots__ = ("host_infos",)
    HOST_INFOS_FIELD_NUMBER: _ClassVar[int]
    host_infos: _containers.RepeatedCompositeFieldContainer[_host_pb2.HostInfo]
    def __init__(self, host_infos: _Optional[_Iterable[_Union[_host_pb2.HostInfo, _Mapping]]] = ...) -> None: ...

class StartMaintenanceRequest(_message.Message):
    __slots__ = ("hostnames", "hostname")
    HOSTNAMES_FIELD_NUMBER: _ClassVar[int]
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    hostnames: _containers.RepeatedScalarFieldContainer[str]
    hostname: str
    def __init__(self, hostnames: _Optional[_Iterable[str]] = ..., hostname: _Optional[str] = ...) -> None: ...

class StartMaintenanceResponse(_message.Message):
    __slots__ = ("hostname",)
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    hostname: str
    def __init__(self, hostname: _Optional[str] = ...) -> None: ...

class CompleteMaintenanceRequest(_message.Message):
    __slots__ = ("hostnames", "hostname")
    HOSTNAMES_FIELD_NUMBER: _ClassVar[int]
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    hostnames: _containers.RepeatedScalarFieldContainer[str]
    hostname: str
    def __init__(self, hostnames: _Optional[_Iterable[str]] = ..., hostname: _Optional[str] = ...) -> None: ...

class CompleteMaintenanceResponse(_message.Message):
    __slots__ = ("hostname",)
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    hostname: str
    def __init__(self, hostname: _Optional[str] = ...) -> None: ...
