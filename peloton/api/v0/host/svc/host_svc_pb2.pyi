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

class ListHostPoolsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListHostPoolsResponse(_message.Message):
    __slots__ = ("pools",)
    POOLS_FIELD_NUMBER: _ClassVar[int]
    pools: _containers.RepeatedCompositeFieldContainer[_host_pb2.HostPoolInfo]
    def __init__(self, pools: _Optional[_Iterable[_Union[_host_pb2.HostPoolInfo, _Mapping]]] = ...) -> None: ...

class CreateHostPoolRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class CreateHostPoolResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DeleteHostPoolRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class DeleteHostPoolResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ChangeHostPoolRequest(_message.Message):
    __slots__ = ("hostname", "sourcePool", "destinationPool")
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    SOURCEPOOL_FIELD_NUMBER: _ClassVar[int]
    DESTINATIONPOOL_FIELD_NUMBER: _ClassVar[int]
    hostname: str
    sourcePool: str
    destinationPool: str
    def __init__(self, hostname: _Optional[str] = ..., sourcePool: _Optional[str] = ..., destinationPool: _Optional[str] = ...) -> None: ...

class ChangeHostPoolResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class MoveHostsRequest(_message.Message):
    __slots__ = ("sourcePool", "srcPoolDesiredHosts", "destinationPool", "destPoolDesiredHosts")
    SOURCEPOOL_FIELD_NUMBER: _ClassVar[int]
    SRCPOOLDESIREDHOSTS_FIELD_NUMBER: _ClassVar[int]
    DESTINATIONPOOL_FIELD_NUMBER: _ClassVar[int]
    DESTPOOLDESIREDHOSTS_FIELD_NUMBER: _ClassVar[int]
    sourcePool: str
    srcPoolDesiredHosts: int
    destinationPool: str
    destPoolDesiredHosts: int
    def __init__(self, sourcePool: _Optional[str] = ..., srcPoolDesiredHosts: _Optional[int] = ..., destinationPool: _Optional[str] = ..., destPoolDesiredHosts: _Optional[int] = ...) -> None: ...

class MoveHostsResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
