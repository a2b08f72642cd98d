# Generated from peloton/api/v1alpha/watch/svc/watch_svc.proto by tools/genproto.py. Do not edit.
from peloton.api.v1alpha.job.stateless import stateless_pb2 as _stateless_pb2
from peloton.api.v1alpha.peloton import peloton_pb2 as _peloton_pb2
from peloton.api.v1alpha.pod import pod_pb2 as _pod_pb2
from peloton.api.v1alpha.watch import watch_pb2 as _watch_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class WatchRequest(_message.Message):
    __slots__ = ("start_revision", "stateless_job_filter", "pod_filter")
    START_REVISION_FIELD_NUMBER: _ClassVar[int]
    STATELESS_JOB_FILTER_FIELD_NUMBER: _ClassVar[int]
    POD_FILTER_FIELD_NUMBER: _ClassVar[int]
    start_revision: int
    stateless_job_filter: _watch_pb2.StatelessJobFilter
    pod_filter: _watch_pb2.PodFilter
    def __init__(self, start_revision: _Optional[int] = ..., stateless_job_filter: _Optional[_Union[_watch_pb2.StatelessJobFilter, _Mapping]] = ..., pod_filter: _Optional[_Union[_watch_pb2.PodFilter, _Mapping]] = ...) -> None: ...

class WatchResponse(_message.Message):
    __slots__ = ("watch_id", "revision", "stateless_jobs", "stateless_jobs_not_found", "pods", "pods_not_found")
    WATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    STATELESS_JOBS_FIELD_NUMBER: _ClassVar[int]
    STATELESS_JOBS_NOT_FOUND_FIELD_NUMBER: _ClassVar[int]
    PODS_FIELD_NUMBER: _ClassVar[int]
    PODS_NOT_FOUND_FIELD_NUMBER: _ClassVar[int]
    watch_id: str
    revision: int
    stateless_jobs: _containers.RepeatedCompositeFieldContainer[_stateless_pb2.JobSummary]
    stateless_jobs_not_found: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.JobID]
    pods: _containers.RepeatedCompositeFieldContainer[_pod_pb2.PodSummary]
    pods_not_found: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.PodName]
    def __init__(self, watch_id: _Optional[str] = ..., revision: _Optional[int] = ..., stateless_jobs: _Optional[_Iterable[_Union[_stateless_pb2.JobSummary, _Mapping]]] = ..., stateless_jobs_not_found: _Optional[_Iterable[_Union[_peloton_pb2.JobID, _Mapping]]] = ..., pods: _Optional[_Iterable[_Union[_pod_pb2.PodSummary, _Mapping]]] = ..., pods_not_found: _Optional[_Iterable[_Union[_peloton_pb2.PodName, _Mapping]]] = ...) -> None: ...

class CancelRequest(_message.Message):
    __slots__ = ("watch_id",)
    WATCH_ID_FIELD_NUMBER: _ClassVar[int]
    watch_id: str
    def __init__(self, watch_id: _Optional[str] = ...) -> None: ...

class CancelResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
