# Generated from peloton/api/v0/errors/errors.proto by tools/genproto.py. Do not edit.
from peloton.api.v0.peloton import peloton_pb2 as _peloton_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class InvalidRespool(_message.Message):
    __slots__ = ("respoolID", "message")
    RESPOOLID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    respoolID: _peloton_pb2.ResourcePoolID
    message: str
    def __init__(self, respoolID: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., message: _Optional[str] = ...) -> None: ...

class JobGetRuntimeFail(_message.Message):
    __slots__ = ("id", "message")
    ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    message: str
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., message: _Optional[str] = ...) -> None: ...

class JobNotFound(_message.Message):
    __slots__ = ("id", "message")
    ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    id: _peloton_pb2.JobID
    message: str
    def __init__(self, id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., message: _Optional[str] = ...) -> None: ...

class UnknownError(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...
