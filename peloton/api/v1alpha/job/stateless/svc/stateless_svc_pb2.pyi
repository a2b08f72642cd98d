# Generated from peloton/api/v1alpha/job/stateless/svc/stateless_svc.proto by tools/genproto.py. Do not edit.
from peloton.api.v1alpha.job.stateless import stateless_pb2 as _stateless_pb2
from peloton.api.v1alpha.peloton import peloton_pb2 as _peloton_pb2
from peloton.api.v1alpha.pod import pod_pb2 as _pod_pb2
from peloton.api.v1alpha.query import query_pb2 as _query_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreateJobRequest(_message.Message):
    __slots__ = ("job_id", "spec", "secrets", "create_spec", "opaque_data")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    SECRETS_FIELD_NUMBER: _ClassVar[int]
    CREATE_SPEC_FIELD_NUMBER: _ClassVar[int]
    OPAQUE_DATA_FIELD_NUMBER: _ClassVar[int]
    job_id: _peloton_pb2.JobID
    spec: _stateless_pb2.JobSpec
    secrets: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Secret]
    create_spec: _stateless_pb2.CreateSpec
    opaque_data: _peloton_pb2.OpaqueData
    def __init__(self, job_id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., spec: _Optional[_Union[_stateless_pb2.JobSpec, _Mapping]] = ..., secrets: _Optional[_Iterable[_Union[_peloton_pb2.Secret, _Mapping]]] = ..., create_spec: _Optional[_Union[_stateless_pb2.CreateSpec, _Mapping]] = ..., opaque_data: _Optional[_Union[_peloton_pb2.OpaqueData, _Mapping]] = ...) -> None: ...

class CreateJobResponse(_message.Message):
    __slots__ = ("job_id", "version")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    job_id: _peloton_pb2.JobID
    version: _peloton_pb2.EntityVersion
    def __init__(self, job_id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ...) -> None: ...

class ReplaceJobRequest(_message.Message):
    __slots__ = ("job_id", "version", "spec", "secrets", "update_spec", "opaque_data")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    SECRETS_FIELD_NUMBER: _ClassVar[int]
    UPDATE_SPEC_FIELD_NUMBER: _ClassVar[int]
    OPAQUE_DATA_FIELD_NUMBER: _ClassVar[int]
    job_id: _peloton_pb2.JobID
    version: _peloton_pb2.EntityVersion
    spec: _stateless_pb2.JobSpec
    secrets: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Secret]
    update_spec: _stateless_pb2.UpdateSpec
    opaque_data: _peloton_pb2.OpaqueData
    def __init__(self, job_id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ..., spec: _Optional[_Union[_stateless_pb2.JobSpec, _Mapping]] = ..., secrets: _Optional[_Iterable[_Union[_peloton_pb2.Secret, _Mapping]]] = ..., update_spec: _Optional[_Union[_stateless_pb2.UpdateSpec, _Mapping]] = ..., opaque_data: _Optional[_Union[_peloton_pb2.OpaqueData, _Mapping]] = ...) -> None: ...

class ReplaceJobResponse(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: _peloton_pb2.EntityVersion
    def __init__(self, version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ...) -> None: ...

class PatchJobRequest(_message.Message):
    __slots__ = ("job_id", "version", "spec", "secrets", "update_spec", "opaque_data")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    SECRETS_FIELD_NUMBER: _ClassVar[int]
    UPDATE_SPEC_FIELD_NUMBER: _ClassVar[int]
    OPAQUE_DATA_FIELD_NUMBER: _ClassVar[int]
    job_id: _peloton_pb2.JobID
    version: _peloton_pb2.EntityVersion
    spec: _stateless_pb2.JobSpec
    secrets: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Secret]
    update_spec: _stateless_pb2.UpdateSpec
    opaque_data: _peloton_pb2.OpaqueData
    def __init__(self, job_id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ..., spec: _Optional[_Union[_stateless_pb2.JobSpec, _Mapping]] = ..., secrets: _Optional[_Iterable[_Union[_peloton_pb2.Secret, _Mapping]]] = ..., update_spec: _Optional[_Union[_stateless_pb2.UpdateSpec, _Mapping]] = ..., opaque_data: _Optional[_Union[_peloton_pb2.OpaqueData, _Mapping]] = ...) -> None: ...

class PatchJobResponse(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: _peloton_pb2.EntityVersion
    def __init__(self, version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ...) -> None: ...

class RestartJobRequest(_message.Message):
    __slots__ = ("job_id", "version", "restart_spec", "opaque_data")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    RESTART_SPEC_FIELD_NUMBER: _ClassVar[int]
    OPAQUE_DATA_FIELD_NUMBER: _ClassVar[int]
    job_id: _peloton_pb2.JobID
    version: _peloton_pb2.EntityVersion
    restart_spec: _stateless_pb2.RestartSpec
    opaque_data: _peloton_pb2.OpaqueData
    def __init__(self, job_id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ..., restart_spec: _Optional[_Union[_stateless_pb2.RestartSpec, _Mapping]] = ..., opaque_data: _Optional[_Union[_peloton_pb2.OpaqueData, _Mapping]] = ...) -> None: ...

class RestartJobResponse(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: _peloton_pb2.EntityVersion
    def __init__(self, version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ...) -> None: ...

class PauseJobWorkflowRequest(_message.Message):
    __slots__ = ("job_id", "version", "opaque_data")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    OPAQUE_DATA_FIELD_NUMBER: _ClassVar[int]
    job_id: _peloton_pb2.JobID
    version: _peloton_pb2.EntityVersion
    opaque_data: _peloton_pb2.OpaqueData
    def __init__(self, job_id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ..., opaque_data: _Optional[_Union[_peloton_pb2.OpaqueData, _Mapping]] = ...) -> None: ...

class PauseJobWorkflowResponse(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: _peloton_pb2.EntityVersion
    def __init__(self, version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ...) -> None: ...

class ResumeJobWorkflowRequest(_message.Message):
    __slots__ = ("job_id", "version", "opaque_data")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    OPAQUE_DATA_FIELD_NUMBER: _ClassVar[int]
    job_id: _peloton_pb2.JobID
    version: _peloton_pb2.EntityVersion
    opaque_data: _peloton_pb2.OpaqueData
    def __init__(self, job_id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ..., opaque_data: _Optional[_Union[_peloton_pb2.OpaqueData, _Mapping]] = ...) -> None: ...

class ResumeJobWorkflowResponse(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: _peloton_pb2.EntityVersion
    def __init__(self, version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ...) -> None: ...

class AbortJobWorkflowRequest(_message.Message):
    __slots__ = ("job_id", "version", "opaque_data")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    OPAQUE_DATA_FIELD_NUMBER: _ClassVar[int]
    job_id: _peloton_pb2.JobID
    version: _peloton_pb2.EntityVersion
    opaque_data: _peloton_pb2.OpaqueData
    def __init__(self, job_id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ..., opaque_data: _Optional[_Union[_peloton_pb2.OpaqueData, _Mapping]] = ...) -> None: ...

class AbortJobWorkflowResponse(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: _peloton_pb2.EntityVersion
    def __init__(self, version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ...) -> None: ...

class StartJobRequest(_message.Message):
    __slots__ = ("job_id", "version")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    job_id: _peloton_pb2.JobID
    version: _peloton_pb2.EntityVersion
    def __init__(self, job_id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ...) -> None: ...

class StartJobResponse(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: _peloton_pb2.EntityVersion
    def __init__(self, version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ...) -> None: ...

class StopJobRequest(_message.Message):
    __slots__ = ("job_id", "version")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    job_id: _peloton_pb2.JobID
    version: _peloton_pb2.EntityVersion
    def __init__(self, job_id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ...) -> None: ...

class StopJobResponse(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: _peloton_pb2.EntityVersion
    def __init__(self, version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ...) -> None: ...

class DeleteJobRequest(_message.Message):
    __slots__ = ("job_id", "version", "force")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    FORCE_FIELD_NUMBER: _ClassVar[int]
    job_id: _peloton_pb2.JobID
    version: _peloton_pb2.EntityVersion
    force: bool
    def __init__(self, job_id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ..., force: _Optional[bool] = ...) -> None: ...

class DeleteJobResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetJobRequest(_message.Message):
    __slots__ = ("job_id", "version", "summary_only")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_ONLY_FIELD_NUMBER: _ClassVar[int]
    job_id: _peloton_pb2.JobID
    version: _peloton_pb2.EntityVersion
    summary_only: bool
    def __init__(self, job_id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ..., summary_only: _Optional[bool] = ...) -> None: ...

class GetJobResponse(_message.Message):
    __slots__ = ("job_info", "summary", "secrets", "workflow_info")
    JOB_INFO_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    SECRETS_FIELD_NUMBER: _ClassVar[int]
    WORKFLOW_INFO_FIELD_NUMBER: _ClassVar[int]
    job_info: _stateless_pb2.JobInfo
    summary: _stateless_pb2.JobSummary
    secrets: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Secret]
    workflow_info: _stateless_pb2.WorkflowInfo
    def __init__(self, job_info: _Optional[_Union[_stateless_pb2.JobInfo, _Mapping]] = ..., summary: _Optional[_Union[_stateless_pb2.JobSummary, _Mapping]] = ..., secrets: _Optional[_Iterable[_Union[_peloton_pb2.Secret, _Mapping]]] = ..., workflow_info: _Optional[_Union[_stateless_pb2.WorkflowInfo, _Mapping]] = ...) -> None: ...

class GetJobIDFromJobNameRequest(_message.Message):
    __slots__ = ("job_name",)
    JOB_NAME_FIELD_NUMBER: _ClassVar[int]
    job_name: str
    def __init__(self, job_name: _Optional[str] = ...) -> None: ...

class GetJobIDFromJobNameResponse(_message.Message):
    __slots__ = ("job_id",)
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.JobID]
    def __init__(self, job_id: _Optional[_Iterable[_Union[_peloton_pb2.JobID, _Mapping]]] = ...) -> None: ...

class GetWorkflowEventsRequest(_message.Message):
    __slots__ = ("job_id", "instance_id", "limit")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    job_id: _peloton_pb2.JobID
    instance_id: int
    limit: int
    def __init__(self, job_id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., instance_id: _Optional[int] = ..., limit: _Optional[int] = ...) -> None: ...

class GetWorkflowEventsResponse(_message.Message):
    __slots__ = ("events",)
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_stateless_pb2.WorkflowEvent]
    def __init__(self, events: _Optional[_Iterable[_Union[_stateless_pb2.WorkflowEvent, _Mapping]]] = ...) -> None: ...

class ListPodsRequest(_message.Message):
    __slots__ = ("job_id", "range")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    RANGE_FIELD_NUMBER: _ClassVar[int]
    job_id: _peloton_pb2.JobID
    range: _pod_pb2.InstanceIDRange
    def __init__(self, job_id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., range: _Optional[_Union[_pod_pb2.InstanceIDRange, _Mapping]] = ...) -> None: ...

class ListPodsResponse(_message.Message):
    __slots__ = ("pods",)
    PODS_FIELD_NUMBER: _ClassVar[int]
    pods: _containers.RepeatedCompositeFieldContainer[_pod_pb2.PodSummary]
    def __init__(self, pods: _Optional[_Iterable[_Union[_pod_pb2.PodSummary, _Mapping]]] = ...) -> None: ...

class QueryPodsRequest(_message.Message):
    __slots__ = ("job_id", "spec", "pagination", "summary_only")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    PAGINATION_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_ONLY_FIELD_NUMBER: _ClassVar[int]
    job_id: _peloton_pb2.JobID
    spec: _pod_pb2.QuerySpec
    pagination: _query_pb2.PaginationSpec
    summary_only: bool
    def __init__(self, job_id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., spec: _Optional[_Union[_pod_pb2.QuerySpec, _Mapping]] = ..., pagination: _Optional[_Union[_query_pb2.PaginationSpec, _Mapping]] = ..., summary_only: _Optional[bool] = ...) -> None: ...

class QueryPodsResponse(_message.Message):
    __slots__ = ("pods", "pagination")
    PODS_FIELD_NUMBER: _ClassVar[int]
    PAGINATION_FIELD_NUMBER: _ClassVar[int]
    pods: _containers.RepeatedCompositeFieldContainer[_pod_pb2.PodInfo]
    pagination: _query_pb2.Pagination
    def __init__(self, pods: _Optional[_Iterable[_Union[_pod_pb2.PodInfo, _Mapping]]] = ..., pagination: _Optional[_Union[_query_pb2.Pagination, _Mapping]] = ...) -> None: ...

class QueryJobsRequest(_message.Message):
    __slots__ = ("spec",)
    SPEC_FIELD_NUMBER: _ClassVar[int]
    spec: _stateless_pb2.QuerySpec
    def __init__(self, spec: _Optional[_Union[_stateless_pb2.QuerySpec, _Mapping]] = ...) -> None: ...

class QueryJobsResponse(_message.Message):
    __slots__ = ("records", "pagination", "spec")
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    PAGINATION_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    records: _containers.RepeatedCompositeFieldContainer[_stateless_pb2.JobSummary]
    pagination: _query_pb2.Pagination
    spec: _stateless_pb2.QuerySpec
    def __init__(self, records: _Optional[_Iterable[_Union[_stateless_pb2.JobSummary, _Mapping]]] = ..., pagination: _Optional[_Union[_query_pb2.Pagination, _Mapping]] = ..., spec: _Optional[_Union[_stateless_pb2.QuerySpec, _Mapping]] = ...) -> None: ...

class ListJobWorkflowsRequest(_message.Message):
    __slots__ = ("job_id", "updates_limit", "instance_events", "instance_events_limit")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    UPDATES_LIMIT_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_EVENTS_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_EVENTS_LIMIT_FIELD_NUMBER: _ClassVar[int]
    job_id: _peloton_pb2.JobID
    updates_limit: int
    instance_events: bool
    instance_events_limit: int
    def __init__(self, job_id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., updates_limit: _Optional[int] = ..., instance_events: _Optional[bool] = ..., instance_events_limit: _Optional[int] = ...) -> None: ...

class ListJobWorkflowsResponse(_message.Message):
    __slots__ = ("workflow_infos",)
    WORKFLOW_INFOS_FIELD_NUMBER: _ClassVar[int]
    workflow_infos: _containers.RepeatedCompositeFieldContainer[_stateless_pb2.WorkflowInfo]
    def __init__(self, workflow_infos: _Optional[_Iterable[_Union[_stateless_pb2.WorkflowInfo, _Mapping]]] = ...) -> None: ...

class GetReplaceJobDiffRequest(_message.Message):
    __slots__ = ("job_id", "version", "spec")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    job_id: _peloton_pb2.JobID
    version: _peloton_pb2.EntityVersion
    spec: _stateless_pb2.JobSpec
    def __init__(self, job_id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ..., spec: _Optional[_Union[_stateless_pb2.JobSpec, _Mapping]] = ...) -> None: ...

class GetReplaceJobDiffResponse(_message.Message):
    __slots__ = ("instances_added", "instances_removed", "instances_updated", "instances_unchanged")
    INSTANCES_ADDED_FIELD_NUMBER: _ClassVar[int]
    INSTANCES_REMOVED_FIELD_NUMBER: _ClassVar[int]
    INSTANCES_UPDATED_FIELD_NUMBER: _ClassVar[int]
    INSTANCES_UNCHANGED_FIELD_NUMBER: _ClassVar[int]
    instances_added: _containers.RepeatedCompositeFieldContainer[_pod_pb2.InstanceIDRange]
    instances_removed: _containers.RepeatedCompositeFieldContainer[_pod_pb2.InstanceIDRange]
    instances_updated: _containers.RepeatedCompositeFieldContainer[_pod_pb2.InstanceIDRange]
    instances_unchanged: _containers.RepeatedCompositeFieldContainer[_pod_pb2.InstanceIDRange]
    def __init__(self, instances_added: _Optional[_Iterable[_Union[_pod_pb2.InstanceIDRange, _Mapping]]] = ..., instances_removed: _Optional[_Iterable[_Union[_pod_pb2.InstanceIDRange, _Mapping]]] = ..., instances_updated: _Optional[_Iterable[_Union[_pod_pb2.InstanceIDRange, _Mapping]]] = ..., instances_unchanged: _Optional[_Iterable[_Union[_pod_pb2.InstanceIDRange, _Mapping]]] = ...) -> None: ...

class RefreshJobRequest(_message.Message):
    __slots__ = ("job_id",)
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: _peloton_pb2.JobID
    def __init__(self, job_id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ...) -> None: ...

class RefreshJobResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetJobCacheRequest(_message.Message):
    __slots__ = ("job_id",)
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: _peloton_pb2.JobID
    def __init__(self, job_id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ...) -> None: ...

class GetJobCacheResponse(_message.Message):
    __slots__ = ("spec", "status")
    SPEC_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    spec: _stateless_pb2.JobSpec
    status: _stateless_pb2.JobStatus
    def __init__(self, spec: _Optional[_Union[_stateless_pb2.JobSpec, _Mapping]] = ..., status: _Optional[_Union[_stateless_pb2.JobStatus, _Mapping]] = ...) -> None: ...

class ListJobsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListJobsResponse(_message.Message):
    __slots__ = ("jobs",)
    JOBS_FIELD_NUMBER: _ClassVar[int]
    jobs: _containers.RepeatedCompositeFieldContainer[_stateless_pb2.JobSummary]
    def __init__(self, jobs: _Optional[_Iterable[_Union[_stateless_pb2.JobSummary, _Mapping]]] = ...) -> None: ...
