# Generated from peloton/api/v1alpha/watch/watch.proto by tools/genproto.py. Do not edit.
from peloton.api.v1alpha.peloton import peloton_pb2 as _peloton_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class StatelessJobFilter(_message.Message):
    __slots__ = ("job_ids", "labels")
    JOB_IDS_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    job_ids: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.JobID]
    labels: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Label]
    def __init__(self, job_ids: _Optional[_Iterable[_Union[_peloton_pb2.JobID, _Mapping]]] = ..., labels: _Optional[_Iterable[_Union[_peloton_pb2.Label, _Mapping]]] = ...) -> None: ...

class PodFilter(_message.Message):
    __slots__ = ("job_id", "pod_names", "labels")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    POD_NAMES_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    job_id: _peloton_pb2.JobID
    pod_names: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.PodName]
    labels: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Label]
    def __init__(self, job_id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., pod_names: _Optional[_Iterable[_Union[_peloton_pb2.PodName, _Mapping]]] = ..., labels: _Optional[_Iterable[_Union[_peloton_pb2.Label, _Mapping]]] = ...) -> None: ...
