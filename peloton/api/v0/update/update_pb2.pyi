# Generated from peloton/api/v0/update/update.proto by tools/genproto.py. Do not edit.
from peloton.api.v0.peloton import peloton_pb2 as _peloton_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class State(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    INVALID: _ClassVar[State]
    INITIALIZED: _ClassVar[State]
    ROLLING_FORWARD: _ClassVar[State]
    PAUSED: _ClassVar[State]
    SUCCEEDED: _ClassVar[State]
    ABORTED: _ClassVar[State]
    FAILED: _ClassVar[State]
    ROLLING_BACKWARD: _ClassVar[State]
    ROLLED_BACK: _ClassVar[State]
INVALID: State
INITIALIZED: State
ROLLING_FORWARD: State
PAUSED: State
SUCCEEDED: State
ABORTED: State
FAILED: State
ROLLING_BACKWARD: State
ROLLED_BACK: State

class UpdateConfig(_message.Message):
    __slots__ = ("batchSize", "batchPercentage", "stopBeforeUpdate", "startPaused", "rollbackOnFailure", "maxInstanceAttempts", "maxFailureInstances", "inPlace", "startTasks")
    BATCHSIZE_FIELD_NUMBER: _ClassVar[int]
    BATCHPERCENTAGE_FIELD_NUMBER: _ClassVar[int]
    STOPBEFOREUPDATE_FIELD_NUMBER: _ClassVar[int]
    STARTPAUSED_FIELD_NUMBER: _ClassVar[int]
    ROLLBACKONFAILURE_FIELD_NUMBER: _ClassVar[int]
    MAXINSTANCEATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    MAXFAILUREINSTANCES_FIELD_NUMBER: _ClassVar[int]
    INPLACE_FIELD_NUMBER: _ClassVar[int]
    STARTTASKS_FIELD_NUMBER: _ClassVar[int]
    batchSize: int
    batchPercentage: float
    stopBeforeUpdate: bool
    startPaused: bool
    rollbackOnFailure: bool
    maxInstanceAttempts: int
    maxFailureInstances: int
    inPlace: bool
    startTasks: bool
    def __init__(self, batchSize: _Optional[int] = ..., batchPercentage: _Optional[float] = ..., stopBeforeUpdate: _Optional[bool] = ..., startPaused: _Optional[bool] = ..., rollbackOnFailure: _Optional[bool] = ..., maxInstanceAttempts: _Optional[int] = ..., maxFailureInstances: _Optional[int] = ..., inPlace: _Optional[bool] = ..., startTasks: _Optional[bool] = ...) -> None: ...

class UpdateStatus(_message.Message):
    __slots__ = ("numTasksDone", "numTasksRemaining", "state", "numTasksFailed")
    NUMTASKSDONE_FIELD_NUMBER: _ClassVar[int]
    NUMTASKSREMAINING_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    NUMTASKSFAILED_FIELD_NUMBER: _ClassVar[int]
    numTasksDone: int
    numTasksRemaining: int
    state: State
    numTasksFailed: int
    def __init__(self, numTasksDone: _Optional[int] = ..., numTasksRemaining: _Optional[int] = ..., state: _Optional[_Union[State, str]] = ..., numTasksFailed: _Optional[int] = ...) -> None: ...

class UpdateInfo(_message.Message):
    __slots__ = ("updateId", "config", "status", "jobId", "configVersion", "prevConfigVersion", "opaque_data")
    UPDATEID_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    JOBID_FIELD_NUMBER: _ClassVar[int]
    CONFIGVERSION_FIELD_NUMBER: _ClassVar[int]
    PREVCONFIGVERSION_FIELD_NUMBER: _ClassVar[int]
    OPAQUE_DATA_FIELD_NUMBER: _ClassVar[int]
    updateId: _peloton_pb2.UpdateID
    config: UpdateConfig
    status: UpdateStatus
    jobId: _peloton_pb2.JobID
    configVersion: int
    prevConfigVersion: int
    opaque_data: _peloton_pb2.OpaqueData
    def __init__(self, updateId: _Optional[_Union[_peloton_pb2.UpdateID, _Mapping]] = ..., config: _Optional[_Union[UpdateConfig, _Mapping]] = ..., status: _Optional[_Union[UpdateStatus, _Mapping]] = ..., jobId: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., configVersion: _Optional[int] = ..., prevConfigVersion: _Optional[int] = ..., opaque_data: _Optional[_Union[_peloton_pb2.OpaqueData, _Mapping]] = ...) -> None: ...
