# Generated from peloton/api/v1alpha/pod/svc/pod_svc.proto by tools/genproto.py. Do not edit.
from peloton.api.v1alpha.peloton import peloton_pb2 as _peloton_pb2
from peloton.api.v1alpha.pod import pod_pb2 as _pod_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class StartPodRequest(_message.Message):
    __slots__ = ("pod_name",)
    POD_NAME_FIELD_NUMBER: _ClassVar[int]
    pod_name: _peloton_pb2.PodName
    def __init__(self, pod_name: _Optional[_Union[_peloton_pb2.PodName, _Mapping]] = ...) -> None: ...

class StartPodResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class StopPodRequest(_message.Message):
    __slots__ = ("pod_name",)
    POD_NAME_FIELD_NUMBER: _ClassVar[int]
    pod_name: _peloton_pb2.PodName
    def __init__(self, pod_name: _Optional[_Union[_peloton_pb2.PodName, _Mapping]] = ...) -> None: ...

class StopPodResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RestartPodRequest(_message.Message):
    __slots__ = ("pod_name", "check_sla")
    POD_NAME_FIELD_NUMBER: _ClassVar[int]
    CHECK_SLA_FIELD_NUMBER: _ClassVar[int]
    pod_name: _peloton_pb2.PodName
    check_sla: bool
    def __init__(self, pod_name: _Optional[_Union[_peloton_pb2.PodName, _Mapping]] = ..., check_sla: _Optional[bool] = ...) -> None: ...

class RestartPodResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetPodRequest(_message.Message):
    __slots__ = ("pod_name", "status_only", "limit")
    POD_NAME_FIELD_NUMBER: _ClassVar[int]
    STATUS_ONLY_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    pod_name: _peloton_pb2.PodName
    status_only: bool
    limit: int
    def __init__(self, pod_name: _Optional[_Union[_peloton_pb2.PodName, _Mapping]] = ..., status_only: _Optional[bool] = ..., limit: _Optional[int] = ...) -> None: ...

class GetPodResponse(_message.Message):
    __slots__ = ("current", "previous")
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_FIELD_NUMBER: _ClassVar[int]
    current: _pod_pb2.PodInfo
    previous: _containers.RepeatedCompositeFieldContainer[_pod_pb2.PodInfo]
    def __init__(self, current: _Optional[_Union[_pod_pb2.PodInfo, _Mapping]] = ..., previous: _Optional[_Iterable[_Union[_pod_pb2.PodInfo, _Mapping]]] = ...) -> None: ...

class GetPodEventsRequest(_message.Message):
    __slots__ = ("pod_name", "pod_id")
    POD_NAME_FIELD_NUMBER: _ClassVar[int]
    POD_ID_FIELD_NUMBER: _ClassVar[int]
    pod_name: _peloton_pb2.PodName
    pod_id: _peloton_pb2.PodID
    def __init__(self, pod_name: _Optional[_Union[_peloton_pb2.PodName, _Mapping]] = ..., pod_id: _Optional[_Union[_peloton_pb2.PodID, _Mapping]] = ...) -> None: ...

class GetPodEventsResponse(_message.Message):
    __slots__ = ("events",)
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_pod_pb2.PodEvent]
    def __init__(self, events: _Optional[_Iterable[_Union[_pod_pb2.PodEvent, _Mapping]]] = ...) -> None: ...

class BrowsePodSandboxRequest(_message.Message):
    __slots__ = ("pod_name", "pod_id")
    POD_NAME_FIELD_NUMBER: _ClassVar[int]
    POD_ID_FIELD_NUMBER: _ClassVar[int]
    pod_name: _peloton_pb2.PodName
    pod_id: _peloton_pb2.PodID
    def __init__(self, pod_name: _Optional[_Union[_peloton_pb2.PodName, _Mapping]] = ..., pod_id: _Optional[_Union[_peloton_pb2.PodID, _Mapping]] = ...) -> None: ...

class BrowsePodSandboxResponse(_message.Message):
    __slots__ = ("hostname", "port", "paths", "mesos_master_hostname", "mesos_master_port")
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    PORT_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    MESOS_MASTER_HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    MESOS_MASTER_PORT_FIELD_NUMBER: _ClassVar[int]
    hostname: str
    port: str
    paths: _containers.RepeatedScalarFieldContainer[str]
    mesos_master_hostname: str
    mesos_master_port: str
    def __init__(self, hostname: _Optional[str] = ..., port: _Optional[str] = ..., paths: _Optional[_Iterable[str]] = ..., mesos_master_hostname: _Optional[str] = ..., mesos_master_port: _Optional[str] = ...) -> None: ...

class RefreshPodRequest(_message.Message):
    __slots__ = ("pod_name",)
    POD_NAME_FIELD_NUMBER: _ClassVar[int]
    pod_name: _peloton_pb2.PodName
    def __init__(self, pod_name: _Optional[_Union[_peloton_pb2.PodName, _Mapping]] = ...) -> None: ...

class RefreshPodResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetPodCacheRequest(_message.Message):
    __slots__ = ("pod_name",)
    POD_NAME_FIELD_NUMBER: _ClassVar[int]
    pod_name: _peloton_pb2.PodName
    def __init__(self, pod_name: _Optional[_Union[_peloton_pb2.PodName, _Mapping]] = ...) -> None: ...

class GetPodCacheResponse(_message.Message):
    __slots__ = ("status", "labels")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    status: _pod_pb2.PodStatus
    labels: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Label]
    def __init__(self, status: _Optional[_Union[_pod_pb2.PodStatus, _Mapping]] = ..., labels: _Optional[_Iterable[_Union[_peloton_pb2.Label, _Mapping]]] = ...) -> None: ...

class DeletePodEventsRequest(_message.Message):
    __slots__ = ("pod_name", "pod_id")
    POD_NAME_FIELD_NUMBER: _ClassVar[int]
    POD_ID_FIELD_NUMBER: _ClassVar[int]
    pod_name: _peloton_pb2.PodName
    pod_id: _peloton_pb2.PodID
    def __init__(self, pod_name: _Optional[_Union[_peloton_pb2.PodName, _Mapping]] = ..., pod_id: _Optional[_Union[_peloton_pb2.PodID, _Mapping]] = ...) -> None: ...

class DeletePodEventsResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
