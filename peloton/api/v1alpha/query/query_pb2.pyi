# Generated from peloton/api/v1alpha/query/query.proto by tools/genproto.py. Do not edit.
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PropertyPath(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: str
    def __init__(self, value: _Optional[str] = ...) -> None: ...

class OrderBy(_message.Message):
    __slots__ = ("order", "property")
    class Order(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        ORDER_BY_INVALID: _ClassVar[OrderBy.Order]
        ORDER_BY_ASC: _ClassVar[OrderBy.Order]
        ORDER_BY_DESC: _ClassVar[OrderBy.Order]
    ORDER_BY_INVALID: OrderBy.Order
    ORDER_BY_ASC: OrderBy.Order
    ORDER_BY_DESC: OrderBy.Order
    ORDER_FIELD_NUMBER: _ClassVar[int]
    PROPERTY_FIELD_NUMBER: _ClassVar[int]
    order: OrderBy.Order
    property: PropertyPath
    def __init__(self, order: _Optional[_Union[OrderBy.Order, str]] = ..., property: _Optional[_Union[PropertyPath, _Mapping]] = ...) -> None: ...

class PaginationSpec(_message.Message):
    __slots__ = ("offset", "limit", "order_by", "max_limit")
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    ORDER_BY_FIELD_NUMBER: _ClassVar[int]
    MAX_LIMIT_FIELD_NUMBER: _ClassVar[int]
    offset: int
    limit: int
    order_by: _containers.RepeatedCompositeFieldContainer[OrderBy]
    max_limit: int
    def __init__(self, offset: _Optional[int] = ..., limit: _Optional[int] = ..., order_by: _Optional[_Iterable[_Union[OrderBy, _Mapping]]] = ..., max_limit: _Optional[int] = ...) -> None: ...

class Pagination(_message.Message):
    __slots__ = ("offset", "limit", "total")
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    offset: int
    limit: int
    total: int
    def __init__(self, offset: _Optional[int] = ..., limit: _Optional[int] = ..., total: _Optional[int] = ...) -> None: ...
