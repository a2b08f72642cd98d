# Generated from peloton/api/v1alpha/pod/pod.proto by tools/genproto.py. Do not edit.
from peloton.api.mesos.v1 import mesos_pb2 as _mesos_pb2
from peloton.api.v1alpha.peloton import peloton_pb2 as _peloton_pb2
from peloton.api.v1alpha.pod.apachemesos import apachemesos_pb2 as _apachemesos_pb2
from peloton.api.v1alpha.query import query_pb2 as _query_pb2
from peloton.api.v1alpha.volume import volume_pb2 as _volume_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ContainerState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CONTAINER_STATE_INVALID: _ClassVar[ContainerState]
    CONTAINER_STATE_PENDING: _ClassVar[ContainerState]
    CONTAINER_STATE_LAUNCHED: _ClassVar[ContainerState]
    CONTAINER_STATE_STARTING: _ClassVar[ContainerState]
    CONTAINER_STATE_RUNNING: _ClassVar[ContainerState]
    CONTAINER_STATE_SUCCEEDED: _ClassVar[ContainerState]
    CONTAINER_STATE_FAILED: _ClassVar[ContainerState]
    CONTAINER_STATE_KILLING: _ClassVar[ContainerState]
    CONTAINER_STATE_KILLED: _ClassVar[ContainerState]

class HealthState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HEALTH_STATE_INVALID: _ClassVar[HealthState]
    HEALTH_STATE_DISABLED: _ClassVar[HealthState]
    HEALTH_STATE_UNKNOWN: _ClassVar[HealthState]
    HEALTH_STATE_HEALTHY: _ClassVar[HealthState]
    HEALTH_STATE_UNHEALTHY: _ClassVar[HealthState]

class PodState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    POD_STATE_INVALID: _ClassVar[PodState]
    POD_STATE_INITIALIZED: _ClassVar[PodState]
    POD_STATE_PENDING: _ClassVar[PodState]
    POD_STATE_READY: _ClassVar[PodState]
    POD_STATE_PLACING: _ClassVar[PodState]
    POD_STATE_PLACED: _ClassVar[PodState]
    POD_STATE_LAUNCHING: _ClassVar[PodState]
    POD_STATE_LAUNCHED: _ClassVar[PodState]
    POD_STATE_STARTING: _ClassVar[PodState]
    POD_STATE_RUNNING: _ClassVar[PodState]
    POD_STATE_SUCCEEDED: _ClassVar[PodState]
    POD_STATE_FAILED: _ClassVar[PodState]
    POD_STATE_LOST: _ClassVar[PodState]
    POD_STATE_KILLING: _ClassVar[PodState]
    POD_STATE_KILLED: _ClassVar[PodState]
    POD_STATE_PREEMPTING: _ClassVar[PodState]
    POD_STATE_DELETED: _ClassVar[PodState]
    POD_STATE_RESERVED: _ClassVar[PodState]
CONTAINER_STATE_INVALID: ContainerState
CONTAINER_STATE_PENDING: ContainerState
CONTAINER_STATE_LAUNCHED: ContainerState
CONTAINER_STATE_STARTING: ContainerState
CONTAINER_STATE_RUNNING: ContainerState
CONTAINER_STATE_SUCCEEDED: ContainerState
CONTAINER_STATE_FAILED: ContainerState
CONTAINER_STATE_KILLING: ContainerState
CONTAINER_STATE_KILLED: ContainerState
HEALTH_STATE_INVALID: HealthState
HEALTH_STATE_DISABLED: HealthState
HEALTH_STATE_UNKNOWN: HealthState
HEALTH_STATE_HEALTHY: HealthState
HEALTH_STATE_UNHEALTHY: HealthState
POD_STATE_INVALID: PodState
POD_STATE_INITIALIZED: PodState
POD_STATE_PENDING: PodState
POD_STATE_READY: PodState
POD_STATE_PLACING: PodState
POD_STATE_PLACED: PodState
POD_STATE_LAUNCHING: PodState
POD_STATE_LAUNCHED: PodState
POD_STATE_STARTING: PodState
POD_STATE_RUNNING: PodState
POD_STATE_SUCCEEDED: PodState
POD_STATE_FAILED: PodState
POD_STATE_LOST: PodState
POD_STATE_KILLING: PodState
POD_STATE_KILLED: PodState
POD_STATE_PREEMPTING: PodState
POD_STATE_DELETED: PodState
POD_STATE_RESERVED: PodState

class ResourceSpec(_message.Message):
    __slots__ = ("cpu_limit", "mem_limit_mb", "disk_limit_mb", "fd_limit", "gpu_limit")
    CPU_LIMIT_FIELD_NUMBER: _ClassVar[int]
    MEM_LIMIT_MB_FIELD_NUMBER: _ClassVar[int]
    DISK_LIMIT_MB_FIELD_NUMBER: _ClassVar[int]
    FD_LIMIT_FIELD_NUMBER: _ClassVar[int]
    GPU_LIMIT_FIELD_NUMBER: _ClassVar[int]
    cpu_limit: float
    mem_limit_mb: float
    disk_limit_mb: float
    fd_limit: int
    gpu_limit: float
    def __init__(self, cpu_limit: _Optional[float] = ..., mem_limit_mb: _Optional[float] = ..., disk_limit_mb: _Optional[float] = ..., fd_limit: _Optional[int] = ..., gpu_limit: _Optional[float] = ...) -> None: ...

class CommandSpec(_message.Message):
    __slots__ = ("value", "arguments")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    value: str
    arguments: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, value: _Optional[str] = ..., arguments: _Optional[_Iterable[str]] = ...) -> None: ...

class HTTPGetSpec(_message.Message):
    __slots__ = ("scheme", "port", "path", "http_headers", "port_spec")
    class HTTPHeader(_message.Message):
        __slots__ = ("name", "value")
        NAME_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        name: str
        value: str
        def __init__(self, name: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    SCHEME_FIELD_NUMBER: _ClassVar[int]
    PORT_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    HTTP_HEADERS_FIELD_NUMBER: _ClassVar[int]
    PORT_SPEC_FIELD_NUMBER: _ClassVar[int]
    scheme: str
    port: int
    path: str
    http_headers: _containers.RepeatedCompositeFieldContainer[HTTPGetSpec.HTTPHeader]
    port_spec: PortSpec
    def __init__(self, scheme: _Optional[str] = ..., port: _Optional[int] = ..., path: _Optional[str] = ..., http_headers: _Optional[_Iterable[_Union[HTTPGetSpec.HTTPHeader, _Mapping]]] = ..., port_spec: _Optional[_Union[PortSpec, _Mapping]] = ...) -> None: ...

class HealthCheckSpec(_message.Message):
    __slots__ = ("enabled", "initial_interval_secs", "interval_secs", "max_consecutive_failures", "timeout_secs", "type", "command_check", "http_check", "success_threshold", "command", "http_get")
    class HealthCheckType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        HEALTH_CHECK_TYPE_UNKNOWN: _ClassVar[HealthCheckSpec.HealthCheckType]
        HEALTH_CHECK_TYPE_COMMAND: _ClassVar[HealthCheckSpec.HealthCheckType]
        HEALTH_CHECK_TYPE_HTTP: _ClassVar[HealthCheckSpec.HealthCheckType]
    HEALTH_CHECK_TYPE_UNKNOWN: HealthCheckSpec.HealthCheckType
    HEALTH_CHECK_TYPE_COMMAND: HealthCheckSpec.HealthCheckType
    HEALTH_CHECK_TYPE_HTTP: HealthCheckSpec.HealthCheckType
    class CommandCheck(_message.Message):
        __slots__ = ("command", "unshare_environments")
        COMMAND_FIELD_NUMBER: _ClassVar[int]
        UNSHARE_ENVIRONMENTS_FIELD_NUMBER: _ClassVar[int]
        command: str
        unshare_environments: bool
        def __init__(self, command: _Optional[str] = ..., unshare_environments: _Optional[bool] = ...) -> None: ...
    class HTTPCheck(_message.Message):
        __slots__ = ("scheme", "port", "path")
        SCHEME_FIELD_NUMBER: _ClassVar[int]
        PORT_FIELD_NUMBER: _ClassVar[int]
        PATH_FIELD_NUMBER: _ClassVar[int]
        scheme: str
        port: int
        path: str
        def __init__(self, scheme: _Optional[str] = ..., port: _Optional[int] = ..., path: _Optional[str] = ...) -> None: ...
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    INITIAL_INTERVAL_SECS_FIELD_NUMBER: _ClassVar[int]
    INTERVAL_SECS_FIELD_NUMBER: _ClassVar[int]
    MAX_CONSECUTIVE_FAILURES_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_SECS_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    COMMAND_CHECK_FIELD_NUMBER: _ClassVar[int]
    HTTP_CHECK_FIELD_NUMBER: _ClassVar[int]
    SUCCESS_THRESHOLD_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    HTTP_GET_FIELD_NUMBER: _ClassVar[int]
    enabled: bool
    initial_interval_secs: int
    interval_secs: int
    max_consecutive_failures: int
    timeout_secs: int
    type: HealthCheckSpec.HealthCheckType
    command_check: HealthCheckSpec.CommandCheck
    http_check: HealthCheckSpec.HTTPCheck
    success_threshold: int
    command: CommandSpec
    http_get: HTTPGetSpec
    def __init__(self, enabled: _Optional[bool] = ..., initial_interval_secs: _Optional[int] = ..., interval_secs: _Optional[int] = ..., max_consecutive_failures: _Optional[int] = ..., timeout_secs: _Optional[int] = ..., type: _Optional[_Union[HealthCheckSpec.HealthCheckType, str]] = ..., command_check: _Optional[_Union[HealthCheckSpec.CommandCheck, _Mapping]] = ..., http_check: _Optional[_Union[HealthCheckSpec.HTTPCheck, _Mapping]] = ..., success_threshold: _Optional[int] = ..., command: _Optional[_Union[CommandSpec, _Mapping]] = ..., http_get: _Optional[_Union[HTTPGetSpec, _Mapping]] = ...) -> None: ...

class PortSpec(_message.Message):
    __slots__ = ("name", "value", "env_name", "template_name", "type")
    class PortType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        PORT_TYPE_INVALID: _ClassVar[PortSpec.PortType]
        PORT_TYPE_STATIC: _ClassVar[PortSpec.PortType]
        PORT_TYPE_DYNAMIC_ENV_VAR: _ClassVar[PortSpec.PortType]
        PORT_TYPE_DYNAMIC_TEMPLATE_VAR: _ClassVar[PortSpec.PortType]
    PORT_TYPE_INVALID: PortSpec.PortType
    PORT_TYPE_STATIC: PortSpec.PortType
    PORT_TYPE_DYNAMIC_ENV_VAR: PortSpec.PortType
    PORT_TYPE_DYNAMIC_TEMPLATE_VAR: PortSpec.PortType
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    ENV_NAME_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    name: str
    value: int
    env_name: str
    template_name: str
    type: PortSpec.PortType
    def __init__(self, name: _Optional[str] = ..., value: _Optional[int] = ..., env_name: _Optional[str] = ..., template_name: _Optional[str] = ..., type: _Optional[_Union[PortSpec.PortType, str]] = ...) -> None: ...

class Constraint(_message.Message):
    __slots__ = ("type", "label_constraint", "and_constraint", "or_constraint")
    class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        CONSTRAINT_TYPE_INVALID: _ClassVar[Constraint.Type]
        CONSTRAINT_TYPE_LABEL: _ClassVar[Constraint.Type]
        CONSTRAINT_TYPE_AND: _ClassVar[Constraint.Type]
        CONSTRAINT_TYPE_OR: _ClassVar[Constraint.Type]
    CONSTRAINT_TYPE_INVALID: Constraint.Type
    CONSTRAINT_TYPE_LABEL: Constraint.Type
    CONSTRAINT_TYPE_AND: Constraint.Type
    CONSTRAINT_TYPE_OR: Constraint.Type
    TYPE_FIELD_NUMBER: _ClassVar[int]
    LABEL_CONSTRAINT_FIELD_NUMBER: _ClassVar[int]
    AND_CONSTRAINT_FIELD_NUMBER: _ClassVar[int]
    OR_CONSTRAINT_FIELD_NUMBER: _ClassVar[int]
    type: Constraint.Type
    label_constraint: LabelConstraint
    and_constraint: AndConstraint
    or_constraint: OrConstraint
    def __init__(self, type: _Optional[_Union[Constraint.Type, str]] = ..., label_constraint: _Optional[_Union[LabelConstraint, _Mapping]] = ..., and_constraint: _Optional[_Union[AndConstraint, _Mapping]] = ..., or_constraint: _Optional[_Union[OrConstraint, _Mapping]] = ...) -> None: ...

class AndConstraint(_message.Message):
    __slots__ = ("constraints",)
    CONSTRAINTS_FIELD_NUMBER: _ClassVar[int]
    constraints: _containers.RepeatedCompositeFieldContainer[Constraint]
    def __init__(self, constraints: _Optional[_Iterable[_Union[Constraint, _Mapping]]] = ...) -> None: ...

class OrConstraint(_message.Message):
    __slots__ = ("constraints",)
    CONSTRAINTS_FIELD_NUMBER: _ClassVar[int]
    constraints: _containers.RepeatedCompositeFieldContainer[Constraint]
    def __init__(self, constraints: _Optional[_Iterable[_Union[Constraint, _Mapping]]] = ...) -> None: ...

class LabelConstraint(_message.Message):
    __slots__ = ("kind", "condition", "label", "requirement")
    class Condition(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        LABEL_CONSTRAINT_CONDITION_INVALID: _ClassVar[LabelConstraint.Condition]
        LABEL_CONSTRAINT_CONDITION_LESS_THAN: _ClassVar[LabelConstraint.Condition]
        LABEL_CONSTRAINT_CONDITION_EQUAL: _ClassVar[LabelConstraint.Condition]
        LABEL_CONSTRAINT_CONDITION_GREATER_THAN: _ClassVar[LabelConstraint.Condition]
    LABEL_CONSTRAINT_CONDITION_INVALID: LabelConstraint.Condition
    LABEL_CONSTRAINT_CONDITION_LESS_THAN: LabelConstraint.Condition
    LABEL_CONSTRAINT_CONDITION_EQUAL: LabelConstraint.Condition
    LABEL_CONSTRAINT_CONDITION_GREATER_THAN: LabelConstraint.Condition
    class Kind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        LABEL_CONSTRAINT_KIND_INVALID: _ClassVar[LabelConstraint.Kind]
        LABEL_CONSTRAINT_KIND_POD: _ClassVar[LabelConstraint.Kind]
        LABEL_CONSTRAINT_KIND_HOST: _ClassVar[LabelConstraint.Kind]
    LABEL_CONSTRAINT_KIND_INVALID: LabelConstraint.Kind
    LABEL_CONSTRAINT_KIND_POD: LabelConstraint.Kind
    LABEL_CONSTRAINT_KIND_HOST: LabelConstraint.Kind
    KIND_FIELD_NUMBER: _ClassVar[int]
    CONDITION_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    REQUIREMENT_FIELD_NUMBER: _ClassVar[int]
    kind: LabelConstraint.Kind
    condition: LabelConstraint.Condition
    label: _peloton_pb2.Label
    requirement: int
    def __init__(self, kind: _Optional[_Union[LabelConstraint.Kind, str]] = ..., condition: _Optional[_Union[LabelConstraint.Condition, str]] = ..., label: _Optional[_Union[_peloton_pb2.Label, _Mapping]] = ..., requirement: _Optional[int] = ...) -> None: ...

class RestartPolicy(_message.Message):
    __slots__ = ("max_failures",)
    MAX_FAILURES_FIELD_NUMBER: _ClassVar[int]
    max_failures: int
    def __init__(self, max_failures: _Optional[int] = ...) -> None: ...

class PreemptionPolicy(_message.Message):
    __slots__ = ("kill_on_preempt",)
    KILL_ON_PREEMPT_FIELD_NUMBER: _ClassVar[int]
    kill_on_preempt: bool
    def __init__(self, kill_on_preempt: _Optional[bool] = ...) -> None: ...

class PersistentVolumeSpec(_message.Message):
    __slots__ = ("container_path", "size_mb")
    CONTAINER_PATH_FIELD_NUMBER: _ClassVar[int]
    SIZE_MB_FIELD_NUMBER: _ClassVar[int]
    container_path: str
    size_mb: int
    def __init__(self, container_path: _Optional[str] = ..., size_mb: _Optional[int] = ...) -> None: ...

class Environment(_message.Message):
    __slots__ = ("name", "value")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    name: str
    value: str
    def __init__(self, name: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...

class VolumeMount(_message.Message):
    __slots__ = ("name", "read_only", "mount_path")
    NAME_FIELD_NUMBER: _ClassVar[int]
    READ_ONLY_FIELD_NUMBER: _ClassVar[int]
    MOUNT_PATH_FIELD_NUMBER: _ClassVar[int]
    name: str
    read_only: bool
    mount_path: str
    def __init__(self, name: _Optional[str] = ..., read_only: _Optional[bool] = ..., mount_path: _Optional[str] = ...) -> None: ...

class ContainerSpec(_message.Message):
    __slots__ = ("name", "resource", "container", "command", "liveness_check", "readiness_check", "ports", "executor", "entrypoint", "environment", "image", "volume_mounts")
    NAME_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    CONTAINER_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    LIVENESS_CHECK_FIELD_NUMBER: _ClassVar[int]
    READINESS_CHECK_FIELD_NUMBER: _ClassVar[int]
    PORTS_FIELD_NUMBER: _ClassVar[int]
    EXECUTOR_FIELD_NUMBER: _ClassVar[int]
    ENTRYPOINT_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    VOLUME_MOUNTS_FIELD_NUMBER: _ClassVar[int]
    name: str
    resource: ResourceSpec
    container: _mesos_pb2.ContainerInfo
    command: _mesos_pb2.CommandInfo
    liveness_check: HealthCheckSpec
    readiness_check: HealthCheckSpec
    ports: _containers.RepeatedCompositeFieldContainer[PortSpec]
    executor: _mesos_pb2.ExecutorInfo
    entrypoint: CommandSpec
    environment: _containers.RepeatedCompositeFieldContainer[Environment]
    image: str
    volume_mounts: _containers.RepeatedCompositeFieldContainer[VolumeMount]
    def __init__(self, name: _Optional[str] = ..., resource: _Optional[_Union[ResourceSpec, _Mapping]] = ..., container: _Optional[_Union[_mesos_pb2.ContainerInfo, _Mapping]] = ..., command: _Optional[_Union[_mesos_pb2.CommandInfo, _Mapping]] = ..., liveness_check: _Optional[_Union[HealthCheckSpec, _Mapping]] = ..., readiness_check: _Optional[_Union[HealthCheckSpec, _Mapping]] = ..., ports: _Optional[_Iterable[_Union[PortSpec, _Mapping]]] = ..., executor: _Optional[_Union[_mesos_pb2.ExecutorInfo, _Mapping]] = ..., entrypoint: _Optional[_Union[CommandSpec, _Mapping]] = ..., environment: _Optional[_Iterable[_Union[Environment, _Mapping]]] = ..., image: _Optional[str] = ..., volume_mounts: _Optional[_Iterable[_Union[VolumeMount, _Mapping]]] = ...) -> None: ...

class PodSpec(_message.Message):
    __slots__ = ("pod_name", "labels", "init_containers", "containers", "constraint", "restart_policy", "volume", "preemption_policy", "controller", "kill_grace_period_seconds", "revocable", "volumes", "mesos_spec", "host_ports")
    POD_NAME_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    INIT_CONTAINERS_FIELD_NUMBER: _ClassVar[int]
    CONTAINERS_FIELD_NUMBER: _ClassVar[int]
    CONSTRAINT_FIELD_NUMBER: _ClassVar[int]
    RESTART_POLICY_FIELD_NUMBER: _ClassVar[int]
    VOLUME_FIELD_NUMBER: _ClassVar[int]
    PREEMPTION_POLICY_FIELD_NUMBER: _ClassVar[int]
    CONTROLLER_FIELD_NUMBER: _ClassVar[int]
    KILL_GRACE_PERIOD_SECONDS_FIELD_NUMBER: _ClassVar[int]
    REVOCABLE_FIELD_NUMBER: _ClassVar[int]
    VOLUMES_FIELD_NUMBER: _ClassVar[int]
    MESOS_SPEC_FIELD_NUMBER: _ClassVar[int]
    HOST_PORTS_FIELD_NUMBER: _ClassVar[int]
    pod_name: _peloton_pb2.PodName
    labels: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.Label]
    init_containers: _containers.RepeatedCompositeFieldContainer[ContainerSpec]
    containers: _containers.RepeatedCompositeFieldContainer[ContainerSpec]
    constraint: Constraint
    restart_policy: RestartPolicy
    volume: PersistentVolumeSpec
    preemption_policy: PreemptionPolicy
    controller: bool
    kill_grace_period_seconds: int
    revocable: bool
    volumes: _containers.RepeatedCompositeFieldContainer[_volume_pb2.VolumeSpec]
    mesos_spec: _apachemesos_pb2.PodSpec
    host_ports: _containers.RepeatedCompositeFieldContainer[PortSpec]
    def __init__(self, pod_name: _Optional[_Union[_peloton_pb2.PodName, _Mapping]] = ..., labels: _Optional[_Iterable[_Union[_peloton_pb2.Label, _Mapping]]] = ..., init_containers: _Optional[_Iterable[_Union[ContainerSpec, _Mapping]]] = ..., containers: _Optional[_Iterable[_Union[ContainerSpec, _Mapping]]] = ..., constraint: _Optional[_Union[Constraint, _Mapping]] = ..., restart_policy: _Optional[_Union[RestartPolicy, _Mapping]] = ..., volume: _Optional[_Union[PersistentVolumeSpec, _Mapping]] = ..., preemption_policy: _Optional[_Union[PreemptionPolicy, _Mapping]] = ..., controller: _Optional[bool] = ..., kill_grace_period_seconds: _Optional[int] = ..., revocable: _Optional[bool] = ..., volumes: _Optional[_Iterable[_Union[_volume_pb2.VolumeSpec, _Mapping]]] = ..., mesos_spec: _Optional[_Union[_apachemesos_pb2.PodSpec, _Mapping]] = ..., host_ports: _Optional[_Iterable[_Union[PortSpec, _Mapping]]] = ...) -> None: ...

class HealthStatus(_message.Message):
    __slots__ = ("state", "output")
    STATE_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    state: HealthState
    output: str
    def __init__(self, state: _Optional[_Union[HealthState, str]] = ..., output: _Optional[str] = ...) -> None: ...

class TerminationStatus(_message.Message):
    __slots__ = ("reason", "exit_code", "signal")
    class Reason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        TERMINATION_STATUS_REASON_INVALID: _ClassVar[TerminationStatus.Reason]
        TERMINATION_STATUS_REASON_KILLED_ON_REQUEST: _ClassVar[TerminationStatus.Reason]
        TERMINATION_STATUS_REASON_FAILED: _ClassVar[TerminationStatus.Reason]
        TERMINATION_STATUS_REASON_KILLED_HOST_MAINTENANCE: _ClassVar[TerminationStatus.Reason]
        TERMINATION_STATUS_REASON_PREEMPTED_RESOURCES: _ClassVar[TerminationStatus.Reason]
        TERMINATION_STATUS_REASON_DEADLINE_TIMEOUT_EXCEEDED: _ClassVar[TerminationStatus.Reason]
        TERMINATION_STATUS_REASON_KILLED_FOR_UPDATE: _ClassVar[TerminationStatus.Reason]
        TERMINATION_STATUS_REASON_KILLED_FOR_RESTART: _ClassVar[TerminationStatus.Reason]
        TERMINATION_STATUS_REASON_KILLED_FOR_SLA_AWARE_RESTART: _ClassVar[TerminationStatus.Reason]
    TERMINATION_STATUS_REASON_INVALID: TerminationStatus.Reason
    TERMINATION_STATUS_REASON_KILLED_ON_REQUEST: TerminationStatus.Reason
    TERMINATION_STATUS_REASON_FAILED: TerminationStatus.Reason
    TERMINATION_STATUS_REASON_KILLED_HOST_MAINTENANCE: TerminationStatus.Reason
    TERMINATION_STATUS_REASON_PREEMPTED_RESOURCES: TerminationStatus.Reason
    TERMINATION_STATUS_REASON_DEADLINE_TIMEOUT_EXCEEDED: TerminationStatus.Reason
    TERMINATION_STATUS_REASON_KILLED_FOR_UPDATE: TerminationStatus.Reason
    TERMINATION_STATUS_REASON_KILLED_FOR_RESTART: TerminationStatus.Reason
    TERMINATION_STATUS_REASON_KILLED_FOR_SLA_AWARE_RESTART: TerminationStatus.Reason
    REASON_FIELD_NUMBER: _ClassVar[int]
    EXIT_CODE_FIELD_NUMBER: _ClassVar[int]
    SIGNAL_FIELD_NUMBER: _ClassVar[int]
    reason: TerminationStatus.Reason
    exit_code: int
    signal: str
    def __init__(self, reason: _Optional[_Union[TerminationStatus.Reason, str]] = ..., exit_code: _Optional[int] = ..., signal: _Optional[str] = ...) -> None: ...

class ContainerStatus(_message.Message):
    __slots__ = ("name", "state", "ports", "message", "reason", "failure_count", "healthy", "image", "start_time", "completion_time", "terminationStatus")
    class PortsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    PORTS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FAILURE_COUNT_FIELD_NUMBER: _ClassVar[int]
    HEALTHY_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    COMPLETION_TIME_FIELD_NUMBER: _ClassVar[int]
    TERMINATIONSTATUS_FIELD_NUMBER: _ClassVar[int]
    name: str
    state: ContainerState
    ports: _containers.ScalarMap[str, int]
    message: str
    reason: str
    failure_count: int
    healthy: HealthStatus
    image: str
    start_time: str
    completion_time: str
    terminationStatus: TerminationStatus
    def __init__(self, name: _Optional[str] = ..., state: _Optional[_Union[ContainerState, str]] = ..., ports: _Optional[_Mapping[str, int]] = ..., message: _Optional[str] = ..., reason: _Optional[str] = ..., failure_count: _Optional[int] = ..., healthy: _Optional[_Union[HealthStatus, _Mapping]] = ..., image: _Optional[str] = ..., start_time: _Optional[str] = ..., completion_time: _Optional[str] = ..., terminationStatus: _Optional[_Union[TerminationStatus, _Mapping]] = ...) -> None: ...

class PodStatus(_message.Message):
    __slots__ = ("state", "pod_id", "start_time", "completion_time", "host", "init_containers_status", "containers_status", "desired_state", "message", "reason", "failure_count", "volume_id", "version", "desired_version", "agent_id", "revision", "prev_pod_id", "resource_usage", "desired_pod_id", "desiredHost", "host_id")
    class ResourceUsageEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    STATE_FIELD_NUMBER: _ClassVar[int]
    POD_ID_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    COMPLETION_TIME_FIELD_NUMBER: _ClassVar[int]
    HOST_FIELD_NUMBER: _ClassVar[int]
    INIT_CONTAINERS_STATUS_FIELD_NUMBER: _ClassVar[int]
    CONTAINERS_STATUS_FIELD_NUMBER: _ClassVar[int]
    DESIRED_STATE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FAILURE_COUNT_FIELD_NUMBER: _ClassVar[int]
    VOLUME_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DESIRED_VERSION_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    PREV_POD_ID_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_USAGE_FIELD_NUMBER: _ClassVar[int]
    DESIRED_POD_ID_FIELD_NUMBER: _ClassVar[int]
    DESIREDHOST_FIELD_NUMBER: _ClassVar[int]
    HOST_ID_FIELD_NUMBER: _ClassVar[int]
    state: PodState
    pod_id: _peloton_pb2.PodID
    start_time: str
    completion_time: str
    host: str
    init_containers_status: _containers.RepeatedCompositeFieldContainer[ContainerStatus]
    containers_status: _containers.RepeatedCompositeFieldContainer[ContainerStatus]
    desired_state: PodState
    message: str
    reason: str
    failure_count: int
    volume_id: _peloton_pb2.VolumeID
    version: _peloton_pb2.EntityVersion
    desired_version: _peloton_pb2.EntityVersion
    agent_id: _mesos_pb2.AgentID
    revision: _peloton_pb2.Revision
    prev_pod_id: _peloton_pb2.PodID
    resource_usage: _containers.ScalarMap[str, float]
    desired_pod_id: _peloton_pb2.PodID
    desiredHost: str
    host_id: str
    def __init__(self, state: _Optional[_Union[PodState, str]] = ..., pod_id: _Optional[_Union[_peloton_pb2.PodID, _Mapping]] = ..., start_time: _Optional[str] = ..., completion_time: _Optional[str] = ..., host: _Optional[str] = ..., init_containers_status: _Optional[_Iterable[_Union[ContainerStatus, _Mapping]]] = ..., containers_status: _Optional[_Iterable[_Union[ContainerStatus, _Mapping]]] = ..., desired_state: _Optional[_Union[PodState, str]] = ..., message: _Optional[str] = ..., reason: _Optional[str] = ..., failure_count: _Optional[int] = ..., volume_id: _Optional[_Union[_peloton_pb2.VolumeID, _Mapping]] = ..., version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ..., desired_version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ..., agent_id: _Optional[_Union[_mesos_pb2.AgentID, _Mapping]] = ..., revision: _Optional[_Union[_peloton_pb2.Revision, _Mapping]] = ..., prev_pod_id: _Optional[_Union[_peloton_pb2.PodID, _Mapping]] = ..., resource_usage: _Optional[_Mapping[str, float]] = ..., desired_pod_id: _Optional[_Union[_peloton_pb2.PodID, _Mapping]] = ..., desiredHost: _Optional[str] = ..., host_id: _Optional[str] = ...) -> None: ...

class PodInfo(_message.Message):
    __slots__ = ("spec", "status")
    SPEC_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    spec: PodSpec
    status: PodStatus
    def __init__(self, spec: _Optional[_Union[PodSpec, _Mapping]] = ..., status: _Optional[_Union[PodStatus, _Mapping]] = ...) -> None: ...

class PodSummary(_message.Message):
    __slots__ = ("pod_name", "status")
    POD_NAME_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    pod_name: _peloton_pb2.PodName
    status: PodStatus
    def __init__(self, pod_name: _Optional[_Union[_peloton_pb2.PodName, _Mapping]] = ..., status: _Optional[_Union[PodStatus, _Mapping]] = ...) -> None: ...

class InstanceIDRange(_message.Message):
    __slots__ = ("to",)
    FROM_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    to: int
    def __init__(self, to: _Optional[int] = ..., **kwargs) -> None: ...

class QuerySpec(_message.Message):
    __slots__ = ("pagination", "pod_states", "names", "hosts")
    PAGINATION_FIELD_NUMBER: _ClassVar[int]
    POD_STATES_FIELD_NUMBER: _ClassVar[int]
    NAMES_FIELD_NUMBER: _ClassVar[int]
    HOSTS_FIELD_NUMBER: _ClassVar[int]
    pagination: _query_pb2.PaginationSpec
    pod_states: _containers.RepeatedScalarFieldContainer[PodState]
    names: _containers.RepeatedCompositeFieldContainer[_peloton_pb2.PodName]
    hosts: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, pagination: _Optional[_Union[_query_pb2.PaginationSpec, _Mapping]] = ..., pod_states: _Optional[_Iterable[_Union[PodState, str]]] = ..., names: _Optional[_Iterable[_Union[_peloton_pb2.PodName, _Mapping]]] = ..., hosts: _Optional[_Iterable[str]] = ...) -> None: ...

class PodEvent(_message.Message):
    __slots__ = ("pod_id", "actual_state", "desired_state", "timestamp", "version", "desired_version", "agent_id", "hostname", "message", "reason", "prev_pod_id", "healthy", "desired_pod_id", "container_status", "init_container_status")
    POD_ID_FIELD_NUMBER: _ClassVar[int]
    ACTUAL_STATE_FIELD_NUMBER: _ClassVar[int]
    DESIRED_STATE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DESIRED_VERSION_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    PREV_POD_ID_FIELD_NUMBER: _ClassVar[int]
    HEALTHY_FIELD_NUMBER: _ClassVar[int]
    DESIRED_POD_ID_FIELD_NUMBER: _ClassVar[int]
    CONTAINER_STATUS_FIELD_NUMBER: _ClassVar[int]
    INIT_CONTAINER_STATUS_FIELD_NUMBER: _ClassVar[int]
    pod_id: _peloton_pb2.PodID
    actual_state: str
    desired_state: str
    timestamp: str
    version: _peloton_pb2.EntityVersion
    desired_version: _peloton_pb2.EntityVersion
    agent_id: str
    hostname: str
    message: str
    reason: str
    prev_pod_id: _peloton_pb2.PodID
    healthy: str
    desired_pod_id: _peloton_pb2.PodID
    container_status: _containers.RepeatedCompositeFieldContainer[ContainerStatus]
    init_container_status: _containers.RepeatedCompositeFieldContainer[ContainerStatus]
    def __init__(self, pod_id: _Optional[_Union[_peloton_pb2.PodID, _Mapping]] = ..., actual_state: _Optional[str] = ..., desired_state: _Optional[str] = ..., timestamp: _Optional[str] = ..., version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ..., desired_version: _Optional[_Union[_peloton_pb2.EntityVersion, _Mapping]] = ..., agent_id: _Optional[str] = ..., hostname: _Optional[str] = ..., message: _Optional[str] = ..., reason: _Optional[str] = ..., prev_pod_id: _Optional[_Union[_peloton_pb2.PodID, _Mapping]] = ..., healthy: _Optional[str] = ..., desired_pod_id: _Optional[_Union[_peloton_pb2.PodID, _Mapping]] = ..., container_status: _Optional[_Iterable[_Union[ContainerStatus, _Mapping]]] = ..., init_container_status: _Optional[_Iterable[_Union[ContainerStatus, _Mapping]]] = ...) -> None: ...
