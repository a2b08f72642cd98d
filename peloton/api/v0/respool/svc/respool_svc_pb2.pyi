# Generated from peloton/api/v0/respool/svc/respool_svc.proto by tools/genproto.py. Do not edit.
from peloton.api.v0.peloton import peloton_pb2 as _peloton_pb2
from peloton.api.v0.respool import respool_pb2 as _respool_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreateResourcePoolRequest(_message.Message):
    __slots__ = ("id", "config")
    ID_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.ResourcePoolID
    config: _respool_pb2.ResourcePoolConfig
    def __init__(self, id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., config: _Optional[_Union[_respool_pb2.ResourcePoolConfig, _Mapping]] = ...) -> None: ...

class CreateResourcePoolResponse(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.ResourcePoolID
    def __init__(self, id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ...) -> None: ...

class GetResourcePoolRequest(_message.Message):
    __slots__ = ("id", "includeChildPools")
    ID_FIELD_NUMBER: _ClassVar[int]
    INCLUDECHILDPOOLS_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.ResourcePoolID
    includeChildPools: bool
    def __init__(self, id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., includeChildPools: _Optional[bool] = ...) -> None: ...

class GetResourcePoolResponse(_message.Message):
    __slots__ = ("resPool", "childResPools")
    RESPOOL_FIELD_NUMBER: _ClassVar[int]
    CHILDRESPOOLS_FIELD_NUMBER: _ClassVar[int]
    resPool: _respool_pb2.ResourcePoolInfo
    childResPools: _containers.RepeatedCompositeFieldContainer[_respool_pb2.ResourcePoolInfo]
    def __init__(self, resPool: _Optional[_Union[_respool_pb2.ResourcePoolInfo, _Mapping]] = ..., childResPools: _Optional[_Iterable[_Union[_respool_pb2.ResourcePoolInfo, _Mapping]]] = ...) -> None: ...

class DeleteResourcePoolRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.ResourcePoolID
    def __init__(self, id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ...) -> None: ...

class DeleteResourcePoolResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class UpdateResourcePoolRequest(_message.Message):
    __slots__ = ("id", "config", "Force")
    ID_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    FORCE_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.ResourcePoolID
    config: _respool_pb2.ResourcePoolConfig
    Force: bool
    def __init__(self, id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., config: _Optional[_Union[_respool_pb2.ResourcePoolConfig, _Mapping]] = ..., Force: _Optional[bool] = ...) -> None: ...

class UpdateResourcePoolResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LookupResourcePoolIDRequest(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: _respool_pb2.ResourcePoolPath
    def __init__(self, path: _Optional[_Union[_respool_pb2.ResourcePoolPath, _Mapping]] = ...) -> None: ...

class LookupResourcePoolIDResponse(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.ResourcePoolID
    def __init__(self, id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ...) -> None: ...

class QueryResourcePoolsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class QueryResourcePoolsResponse(_message.Message):
    __slots__ = ("resPools",)
    RESPOOLS_FIELD_NUMBER: _ClassVar[int]
    resPools: _containers.RepeatedCompositeFieldContainer[_respool_pb2.ResourcePoolInfo]
    def __init__(self, resPools: _Optional[_Iterable[_Union[_respool_pb2.ResourcePoolInfo, _Mapping]]] = ...) -> None: ...
