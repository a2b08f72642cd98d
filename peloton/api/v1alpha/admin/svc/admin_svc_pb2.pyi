# Generated from peloton/api/v1alpha/admin/svc/admin_svc.proto by tools/genproto.py. Do not edit.
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Component(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GoalStateEngine: _ClassVar[Component]
    Read: _ClassVar[Component]
    Write: _ClassVar[Component]
    Kill: _ClassVar[Component]
    Launch: _ClassVar[Component]
GoalStateEngine: Component
Read: Component
Write: Component
Kill: Component
Launch: Component

class ComponentFailure(_message.Message):
    __slots__ = ("component", "FailureMessage")
    COMPONENT_FIELD_NUMBER: _ClassVar[int]
    FAILUREMESSAGE_FIELD_NUMBER: _ClassVar[int]
    component: Component
    FailureMessage: str
    def __init__(self, component: _Optional[_Union[Component, str]] = ..., FailureMessage: _Optional[str] = ...) -> None: ...

class LockdownRequest(_message.Message):
    __slots__ = ("components",)
    COMPONENTS_FIELD_NUMBER: _ClassVar[int]
    components: _containers.RepeatedScalarFieldContainer[Component]
    def __init__(self, components: _Optional[_Iterable[_Union[Component, str]]] = ...) -> None: ...

class LockdownResponse(_message.Message):
    __slots__ = ("successes", "failures")
    SUCCESSES_FIELD_NUMBER: _ClassVar[int]
    FAILURES_FIELD_NUMBER: _ClassVar[int]
    successes: _containers.RepeatedScalarFieldContainer[Component]
    failures: _containers.RepeatedCompositeFieldContainer[ComponentFailure]
    def __init__(self, successes: _Optional[_Iterable[_Union[Component, str]]] = ..., failures: _Optional[_Iterable[_Union[ComponentFailure, _Mapping]]] = ...) -> None: ...

class RemoveLockdownRequest(_message.Message):
    __slots__ = ("components",)
    COMPONENTS_FIELD_NUMBER: _ClassVar[int]
    components: _containers.RepeatedScalarFieldContainer[Component]
    def __init__(self, components: _Optional[_Iterable[_Union[Component, str]]] = ...) -> None: ...

class RemoveLockdownResponse(_message.Message):
    __slots__ = ("successes", "failures")
    SUCCESSES_FIELD_NUMBER: _ClassVar[int]
    FAILURES_FIELD_NUMBER: _ClassVar[int]
    successes: _containers.RepeatedScalarFieldContainer[Component]
    failures: _containers.RepeatedCompositeFieldContainer[ComponentFailure]
    def __init__(self, successes: _Optional[_Iterable[_Union[Component, str]]] = ..., failures: _Optional[_Iterable[_Union[ComponentFailure, _Mapping]]] = ...) -> None: ...
