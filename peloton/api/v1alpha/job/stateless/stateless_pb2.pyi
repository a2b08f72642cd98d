# Generated from peloton/api/v1alpha/job/stateless/stateless.proto by tools/genproto.py. Do not edit.
from peloton.api.v1alpha.peloton import peloton_pb2 as _peloton_pb2
from peloton.api.v1alpha.pod import pod_pb2 as _pod_pb2
from peloton.api.v1alpha.query import query_pb2 as _query_pb2
from peloton.api.v1alpha.respool import respool_pb2 as _respool_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class JobState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    JOB_STATE_INVALID: _ClassVar[JobState]
    JOB_STATE_INITIALIZED: _ClassVar[JobState]
    JOB_STATE_PENDING: _ClassVar[JobState]
    JOB_STATE_RUNNING: _ClassVar[JobState]
    JOB_STATE_SUCCEEDED: _ClassVar[JobState]
    JOB_STATE_FAILED: _ClassVar[JobState]
    JOB_STATE_KILLED: _ClassVar[JobState]
    JOB_STATE_KILLING: _ClassVar[JobState]
    JOB_STATE_UNINITIALIZED: _ClassVar[JobState]
    JOB_STATE_DELETED: _ClassVar[JobState]

class WorkflowType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WORKFLOW_TYPE_INVALID: _ClassVar[WorkflowType]
    WORKFLOW_TYPE_UPDATE: _ClassVar[WorkflowType]
    WORKFLOW_TYPE_RESTART: _ClassVar[WorkflowType]

class WorkflowState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WORKFLOW_STATE_INVALID: _ClassVar[WorkflowState]
    WORKFLOW_STATE_INITIALIZED: _ClassVar[WorkflowState]
    WORKFLOW_STATE_ROLLING_FORWARD: _ClassVar[WorkflowState]
    WORKFLOW_STATE_PAUSED: _ClassVar[WorkflowState]
    WORKFLOW_STATE_SUCCEEDED: _ClassVar[WorkflowState]
    WORKFLOW_STATE_ABORTED: _ClassVar[WorkflowState]
    WORKFLOW_STATE_FAILED: _ClassVar[WorkflowState]
    WORKFLOW_STATE_ROLLING_BACKWARD: _ClassVar[WorkflowState]
    WORKFLOW_STATE_ROLLED_BACK: _ClassVar[WorkflowState]
JOB_STATE_INVALID: JobState
JOB_STATE_INITIALIZED: JobState
JOB_STATE_PENDING: JobState
JOB_STATE_RUNNING: JobState
JOB_STATE_SUCCEEDED: JobState
JOB_STATE_FAILED: JobState
JOB_STATE_KILLED: JobState
JOB_STATE_KILLING: JobState
JOB_STATE_UNINITIALIZED: JobState
JOB_STATE_DELETED: JobState
WORKFLOW_TYPE_INVALID: WorkflowType
WORKFLOW_TYPE_UPDATE: WorkflowType
WORKFLOW_TYPE_RESTART: WorkflowType
WORKFLOW_STATE_INVALID: WorkflowState
WORKFLOW_STATE_INITIALIZED: WorkflowState
WORKFLOW_STATE_ROLLING_FORWARD: WorkflowState
WORKFLOW_STATE_PAUSED: WorkflowState
WORKFLOW_STATE_SUCCEEDED: WorkflowState
WORKFLOW_STATE_ABORTED: WorkflowState
WORKFLOW_STATE_FAILED: WorkflowState
WORKFLOW_STATE_ROLLING_BACKWARD: WorkflowState
WORKFLOW_STATE_ROLLED_BACK: WorkflowState

class SlaSpec(_message.Message):
    __slots__ = ("priority", "preemptible", "revocable", "maximum_unavailable_instances")
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    PREEMPTIBLE_FIELD_NUMBER: _ClassVar[int]
    REVOCABLE_FIELD_NUMBER: _ClassVar[int]
    MAXIMUM_UNAVAILABLE_INSTANCES_FIELD_NUMBER: _ClassVar[int]
    priority: int
    preemptible: bool
    revocable: bool
    maximum_unavailable_instances: int
    def __init__(self, priority: _Optional[int] = ..., preemptible: _Optional[bool] = ..., revocable: _Optional[bool] = ..., maximum_unavailable_instances: _Optional[int] = ...) -> None: ...

class JobSpec(_message.Message):
    __slots__ = ("revision", "name", "owner", "owning_team", "ldap_groups", "description", "labels", "instance_count", "sla", "default_spec", "instance_spec", "respool_id")
    class InstanceSpecEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: _pod_pb2.PodSpec
        def __init__(self, key: _Optional[int] = ..., value: _Optional[_Union[_pod_pb2.PodSpec, _Mapping]] = ...) -> None: ...
    REVISION_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    OWNING_TEAM_FIELD_NUMBER: _ClassVar[int]
    LDAP_GROUPS_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_COUNT_FIELD_NUMBER: _ClassVar[int]
    SLA_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_SPEC_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_SPEC_FIELD_NUMBER: _ClassVar[int]
    RESPOOL_ID_FIELD_NUMBER: _ClassVar[int]
    revision: _peloton_pb2.Revision
    name: str
    owner: str
    owning_team: str
    ldap_groups: _containers.RepeatedScalarFieldContainer[str]
    description: str
    labels: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Label]
    instance_count: int
    sla: SlaSpec
    default_spec: _pod_pb2.PodSpec
    instance_spec: _containers.MessageMap[int, _pod_pb2.PodSpec]
    respool_id: _peloton_pb2.ResourcePoolID
    def __init__(self, revision: _Optional[_Union[_peloton_pb2.Revision, _Mapping]] = ..., name: _Optional[str] = ..., owner: _Optional[str] = ..., owning_team: _Optional[str] = ..., ldap_groups: _Optional[_Iterable[str]] = ..., description: _Optional[str] = ..., labels: _Optional[_Iterable[_Union[_peloton_pb2.Label, _Mapping]]] = ..., instance_count: _Optional[int] = ..., sla: _Optional[_Union[SlaSpec, _Mapping]] = ..., default_spec: _Optional[_Union[_pod_pb2.PodSpec, _Mapping]] = ..., instance_spec: _Optional[_Mapping[int, _pod_pb2.PodSpec]] = ..., respool_id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ...) -> None: ...

class WorkflowStatus(_message.Message):
    __slots__ = ("type", "state", "num_instances_completed", "num_instances_remaining", "num_instances_failed", "instances_current", "version", "prev_version", "creation_time", "update_time", "prev_state", "completion_time")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    NUM_INSTANCES_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    NUM_INSTANCES_REMAINING_FIELD_NUMBER: _ClassVar[int]
    NUM_INSTANCES_FAILED_FIELD_NUMBER: _ClassVar[int]
    INSTANCES_CURRENT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PREV_VERSION_FIELD_NUMBER: _ClassVar[int]
    CREATION_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    PREV_STATE_FIELD_NUMBER: _ClassVar[int]
    COMPLETION_TIME_FIELD_NUMBER: _ClassVar[int]
    type: WorkflowType
    state: WorkflowState
    num_instances_completed: int
    num_instances_remaining: int
    num_instances_failed: int
    instances_current: _containers.RepeatedScalarFieldContainer[int]
    version: _peloton_pb2.EntityVersion
    prev_version: _peloton_pb2.EntityVersion
    creation_time: str
    update_time: str
    prev_state: WorkflowState
    completion_time: str
    def __init__(self, type: _Optional[_Union[WorkflowType, str]] = ..., state: _Optional[_Union[WorkflowState, str]] = ..., num_instances_completed: _Optional[int] = ..., num_instances_remaining: _Optional[int] = ..., num_instances_failed: _Optional[int] = ..., instances_current: _Optional[_Iterable[int]] = ..., version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ..., prev_version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ..., creation_time: _Optional[str] = ..., update_time: _Optional[str] = ..., prev_state: _Optional[_Union[WorkflowState, str]] = ..., completion_time: _Optional[str] = ...) -> None: ...

class JobStatus(_message.Message):
    __slots__ = ("revision", "state", "creation_time", "pod_stats", "desired_state", "version", "workflow_status", "pod_configuration_version_stats", "pod_stats_by_configuration_version")
    class PodStateStats(_message.Message):
        __slots__ = ("state_stats",)
        class StateStatsEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        STATE_STATS_FIELD_NUMBER: _ClassVar[int]
        state_stats: _containers.ScalarMap[str, int]
        def __init__(self, state_stats: _Optional[_Mapping[str, int]] = ...) -> None: ...
    class PodStatsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class PodConfigurationVersionStatsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class PodStatsByConfigurationVersionEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: JobStatus.PodStateStats
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[JobStatus.PodStateStats, _Mapping]] = ...) -> None: ...
    REVISION_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    CREATION_TIME_FIELD_NUMBER: _ClassVar[int]
    POD_STATS_FIELD_NUMBER: _ClassVar[int]
    DESIRED_STATE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    WORKFLOW_STATUS_FIELD_NUMBER: _ClassVar[int]
    POD_CONFIGURATION_VERSION_STATS_FIELD_NUMBER: _ClassVar[int]
    POD_STATS_BY_CONFIGURATION_VERSION_FIELD_NUMBER: _ClassVar[int]
    revision: _peloton_pb2.Revision
    state: JobState
    creation_time: str
    pod_stats: _containers.ScalarMap[str, int]
    desired_state: JobState
    version: _peloton_pb2.EntityVersion
    workflow_status: WorkflowStatus
    pod_configuration_version_stats: _containers.ScalarMap[str, int]
    pod_stats_by_configuration_version: _containers.MessageMap[str, JobStatus.PodStateStats]
    def __init__(self, revision: _Optional[_Union[_peloton_pb2.Revision, _Mapping]] = ..., state: _Optional[_Union[JobState, str]] = ..., creation_time: _Optional[str] = ..., pod_stats: _Optional[_Mapping[str, int]] = ..., desired_state: _Optional[_Union[JobState, str]] = ..., version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ..., workflow_status: _Optional[_Union[WorkflowStatus, _Mapping]] = ..., pod_configuration_version_stats: _Optional[_Mapping[str, int]] = ..., pod_stats_by_configuration_version: _Optional[_Mapping[str, JobStatus.PodStateStats]] = ...) -> None: ...

class JobInfo(_message.Message):
    __slots__ = ("job_id", "spec", "status")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    job_id: _peloton_pb2.JobID
    spec: JobSpec
    status: JobStatus
    def __init__(self, job_id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., spec: _Optional[_Union[JobSpec, _Mapping]] = ..., status: _Optional[_Union[JobStatus, _Mapping]] = ...) -> None: ...

class JobSummary(_message.Message):
    __slots__ = ("job_id", "name", "owner", "owning_team", "labels", "instance_count", "respool_id", "status", "sla")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    OWNING_TEAM_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_COUNT_FIELD_NUMBER: _ClassVar[int]
    RESPOOL_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SLA_FIELD_NUMBER: _ClassVar[int]
    job_id: _peloton_pb2.JobID
    name: str
    owner: str
    owning_team: str
    labels: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Label]
    instance_count: int
    respool_id: _peloton_pb2.ResourcePoolID
    status: JobStatus
    sla: SlaSpec
    def __init__(self, job_id: _Optional[_Union[_peloton_pb2.JobID, _Mapping]] = ..., name: _Optional[str] = ..., owner: _Optional[str] = ..., owning_team: _Optional[str] = ..., labels: _Optional[_Iterable[_Union[_peloton_pb2.Label, _Mapping]]] = ..., instance_count: _Optional[int] = ..., respool_id: _Optional[_Union[_peloton_pb2.ResourcePoolID, _Mapping]] = ..., status: _Optional[_Union[JobStatus, _Mapping]] = ..., sla: _Optional[_Union[SlaSpec, _Mapping]] = ...) -> None: ...

class QuerySpec(_message.Message):
    __slots__ = ("pagination", "labels", "keywords", "job_states", "respool", "owner", "name", "creation_time_range", "completion_time_range")
    PAGINATION_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    KEYWORDS_FIELD_NUMBER: _ClassVar[int]
    JOB_STATES_FIELD_NUMBER: _ClassVar[int]
    RESPOOL_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    CREATION_TIME_RANGE_FIELD_NUMBER: _ClassVar[int]
    COMPLETION_TIME_RANGE_FIELD_NUMBER: _ClassVar[int]
    pagination: _query_pb2.PaginationSpec
    labels: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Label]
    keywords: _containers.RepeatedScalarFieldContainer[str]
    job_states: _containers.RepeatedScalarFieldContainer[JobState]
    respool: _respool_pb2.ResourcePoolPath
    owner: str
    name: str
    creation_time_range: _peloton_pb2.TimeRange
    completion_time_range: _peloton_pb2.TimeRange
    def __init__(self, pagination: _Optional[_Union[_query_pb2.PaginationSpec, _Mapping]] = ..., labels: _Optional[_Iterable[_Union[_peloton_pb2.Label, _Mapping]]] = ..., keywords: _Optional[_Iterable[str]] = ..., job_states: _Optional[_Iterable[_Union[JobState, str]]] = ..., respool: _Optional[_Union[_respool_pb2.ResourcePoolPath, _Mapping]] = ..., owner: _Optional[str] = ..., name: _Optional[str] = ..., creation_time_range: _Optional[_Union[_peloton_pb2.TimeRange, _Mapping]] = ..., completion_time_range: _Optional[_Union[_peloton_pb2.TimeRange, _Mapping]] = ...) -> None: ...

class UpdateSpec(_message.Message):
    __slots__ = ("batch_size", "rollback_on_failure", "max_instance_retries", "max_tolerable_instance_failures", "start_paused", "in_place", "start_pods")
    BATCH_SIZE_FIELD_NUMBER: _ClassVar[int]
    ROLLBACK_ON_FAILURE_FIELD_NUMBER: _ClassVar[int]
    MAX_INSTANCE_RETRIES_FIELD_NUMBER: _ClassVar[int]
    MAX_TOLERABLE_INSTANCE_FAILURES_FIELD_NUMBER: _ClassVar[int]
    START_PAUSED_FIELD_NUMBER: _ClassVar[int]
    IN_PLACE_FIELD_NUMBER: _ClassVar[int]
    START_PODS_FIELD_NUMBER: _ClassVar[int]
    batch_size: int
    rollback_on_failure: bool
    max_instance_retries: int
    max_tolerable_instance_failures: int
    start_paused: bool
    in_place: bool
    start_pods: bool
    def __init__(self, batch_size: _Optional[int] = ..., rollback_on_failure: _Optional[bool] = ..., max_instance_retries: _Optional[int] = ..., max_tolerable_instance_failures: _Optional[int] = ..., start_paused: _Optional[bool] = ..., in_place: _Optional[bool] = ..., start_pods: _Optional[bool] = ...) -> None: ...

class CreateSpec(_message.Message):
    __slots__ = ("batch_size", "max_instance_retries", "max_tolerable_instance_failures", "start_paused")
    BATCH_SIZE_FIELD_NUMBER: _ClassVar[int]
    MAX_INSTANCE_RETRIES_FIELD_NUMBER: _ClassVar[int]
    MAX_TOLERABLE_INSTANCE_FAILURES_FIELD_NUMBER: _ClassVar[int]
    START_PAUSED_FIELD_NUMBER: _ClassVar[int]
    batch_size: int
    max_instance_retries: int
    max_tolerable_instance_failures: int
    start_paused: bool
    def __init__(self, batch_size: _Optional[int] = ..., max_instance_retries: _Optional[int] = ..., max_tolerable_instance_failures: _Optional[int] = ..., start_paused: _Optional[bool] = ...) -> None: ...

class RestartSpec(_message.Message):
    __slots__ = ("batch_size", "ranges", "in_place")
    BATCH_SIZE_FIELD_NUMBER: _ClassVar[int]
    RANGES_FIELD_NUMBER: _ClassVar[int]
    IN_PLACE_FIELD_NUMBER: _ClassVar[int]
    batch_size: int
    ranges: _containers.RepeatedCompositeFieldContainer[_pod_pb2.InstanceIDRange]
    in_place: bool
    def __init__(self, batch_size: _Optional[int] = ..., ranges: _Optional[_Iterable[_Union[_pod_pb2.InstanceIDRange, _Mapping]]] = ..., in_place: _Optional[bool] = ...) -> None: ...

class WorkflowInfo(_message.Message):
    __slots__ = ("status", "update_spec", "restart_spec", "opaque_data", "events", "instances_added", "instances_removed", "instances_updated", "instance_events")
    class instance_workflow_events(_message.Message):
        __slots__ = ("instance_id", "events")
        INSTANCE_ID_FIELD_NUMBER: _ClassVar[int]
        EVENTS_FIELD_NUMBER: _ClassVar[int]
        instance_id: int
        events: _containers.RepeatedCompositeFieldContainer[WorkflowEvent]
        def __init__(self, instance_id: _Optional[int] = ..., events: _Optional[_Iterable[_Union[WorkflowEvent, _Mapping]]] = ...) -> None: ...
    STATUS_FIELD_NUMBER: _ClassVar[int]
    UPDATE_SPEC_FIELD_NUMBER: _ClassVar[int]
    RESTART_SPEC_FIELD_NUMBER: _ClassVar[int]
    OPAQUE_DATA_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    INSTANCES_ADDED_FIELD_NUMBER: _ClassVar[int]
    INSTANCES_REMOVED_FIELD_NUMBER: _ClassVar[int]
    INSTANCES_UPDATED_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_EVENTS_FIELD_NUMBER: _ClassVar[int]
    status: WorkflowStatus
    update_spec: UpdateSpec
    restart_spec: RestartSpec
    opaque_data: _peloton_pb2.OpaqueData
    events: _containers.RepeatedCompositeFieldContainer[WorkflowEvent]
    instances_added: _containers.RepeatedCompositeFieldContainer[_pod_pb2.InstanceIDRange]
    instances_removed: _containers.RepeatedCompositeFieldContainer[_pod_pb2.InstanceIDRange]
    instances_updated: _containers.RepeatedCompositeFieldContainer[_pod_pb2.InstanceIDRange]
    instance_events: _containers.RepeatedCompositeFieldContainer[WorkflowInfo.instance_workflow_events]
    def __init__(self, status: _Optional[_Union[WorkflowStatus, _Mapping]] = ..., update_spec: _Optional[_Union[UpdateSpec, _Mapping]] = ..., restart_spec: _Optional[_Union[RestartSpec, _Mapping]] = ..., opaque_data: _Optional[_Union[_peloton_pb2.OpaqueData, _Mapping]] = ..., events: _Optional[_Iterable[_Union[WorkflowEvent, _Mapping]]] = ..., instances_added: _Optional[_Iterable[_Union[_pod_pb2.InstanceIDRange, _Mapping]]] = ..., instances_removed: _Optional[_Iterable[_Union[_pod_pb2.InstanceIDRange, _Mapping]]] = ..., instances_updated: _Optional[_Iterable[_Union[_pod_pb2.InstanceIDRange, _Mapping]]] = ..., instance_events: _Optional[_Iterable[_Union[WorkflowInfo.instance_workflow_events, _Mapping]]] = ...) -> None: ...

class WorkflowEvent(_message.Message):
    __slots__ = ("type", "timestamp", "state")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    type: WorkflowType
    timestamp: str
    state: WorkflowState
    def __init__(self, type: _Optional[_Union[WorkflowType, str]] = ..., timestamp: _Optional[str] = ..., state: _Optional[_Union[WorkflowState, str]] = ...) -> None: ...
