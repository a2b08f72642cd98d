# Generated from peloton/api/v1alpha/respool/svc/respool_svc.proto by tools/genproto.py. Do not edit.
from peloton.api.v1alpha.peloton import peloton_pb2 as _peloton_pb2
from peloton.api.v1alpha.respool import respool_pb2 as _respool_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreateResourcePoolRequest(_message.Message):
    __slots__ = ("respool_id", "spec")
    RESPOOL_ID_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    respool_id: _peloton_pb2.ResourcePoolID
    spec: _respool_pb2.ResourcePoolSpec
    def __init__(self, respool_id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., spec: _Optional[_Union[_respool_pb2.ResourcePoolSpec, _Mapping]] = ...) -> None: ...

class CreateResourcePoolResponse(_message.Message):
    __slots__ = ("respool_id",)
    RESPOOL_ID_FIELD_NUMBER: _ClassVar[int]
    respool_id: _peloton_pb2.ResourcePoolID
    def __init__(self, respool_id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ...) -> None: ...

class GetResourcePoolRequest(_message.Message):
    __slots__ = ("respool_id", "include_child_pools")
    RESPOOL_ID_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_CHILD_POOLS_FIELD_NUMBER: _ClassVar[int]
    respool_id: _peloton_pb2.ResourcePoolID
    include_child_pools: bool
    def __init__(self, respool_id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., include_child_pools: _Optional[bool] = ...) -> None: ...

class GetResourcePoolResponse(_message.Message):
    __slots__ = ("respool", "child_respools")
    RESPOOL_FIELD_NUMBER: _ClassVar[int]
    CHILD_RESPOOLS_FIELD_NUMBER: _ClassVar[int]
    respool: _respool_pb2.ResourcePoolInfo
    child_respools: _containers.RepeatedCompositeFieldContainer[_respool_pb2.ResourcePoolInfo]
    def __init__(self, respool: _Optional[_Union[_respool_pb2.ResourcePoolInfo, _Mapping]] = ..., child_respools: _Optional[_Iterable[_Union[_respool_pb2.ResourcePoolInfo, _Mapping]]] = ...) -> None: ...

class DeleteResourcePoolRequest(_message.Message):
    __slots__ = ("respool_id",)
    RESPOOL_ID_FIELD_NUMBER: _ClassVar[int]
    respool_id: _peloton_pb2.ResourcePoolID
    def __init__(self, respool_id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ...) -> None: ...

class DeleteResourcePoolResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class UpdateResourcePoolRequest(_message.Message):
    __slots__ = ("respool_id", "spec", "Force")
    RESPOOL_ID_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    FORCE_FIELD_NUMBER: _ClassVar[int]
    respool_id: _peloton_pb2.ResourcePoolID
    spec: _respool_pb2.ResourcePoolSpec
    Force: bool
    def __init__(self, respool_id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., spec: _Optional[_Union[_respool_pb2.ResourcePoolSpec, _Mapping]] = ..., Force: _Optional[bool] = ...) -> None: ...

class UpdateResourcePoolResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LookupResourcePoolIDRequest(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: _respool_pb2.ResourcePoolPath
    def __init__(self, path: _Optional[_Union[_respool_pb2.ResourcePoolPath, _Mapping]] = ...) -> None: ...

class LookupResourcePoolIDResponse(_message.Message):
    __slots__ = ("respool_id",)
    RESPOOL_ID_FIELD_NUMBER: _ClassVar[int]
    respool_id: _peloton_pb2.ResourcePoolID
    def __init__(self, respool_id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ...) -> None: ...

class QueryResourcePoolsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class QueryResourcePoolsResponse(_message.Message):
    __slots__ = ("respools",)
    RESPOOLS_FIELD_NUMBER: _ClassVar[int]
    respools: _containers.RepeatedCompositeFieldContainer[_respool_pb2.ResourcePoolInfo]
    def __init__(self, respools: _Optional[_Iterable[_Union[_respool_pb2.ResourcePoolInfo, _Mapping]]] = ...) -> None: ...
