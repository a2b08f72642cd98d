# Generated from peloton/api/v0/changelog/changelog.proto by tools/genproto.py. Do not edit.
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class ChangeLog(_message.Message):
    __slots__ = ("version", "createdAt", "updatedAt", "updatedBy")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CREATEDAT_FIELD_NUMBER: _ClassVar[int]
    UPDATEDAT_FIELD_NUMBER: _ClassVar[int]
    UPDATEDBY_FIELD_NUMBER: _ClassVar[int]
    version: int
    createdAt: int
    updatedAt: int
    updatedBy: str
    def __init__(self, version: _Optional[int] = ..., createdAt: _Optional[int] = ..., updatedAt: _Optional[int] = ..., updatedBy: _Optional[str] = ...) -> None: ...
