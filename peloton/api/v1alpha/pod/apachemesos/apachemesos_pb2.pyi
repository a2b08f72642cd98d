# Generated from peloton/api/v1alpha/pod/apachemesos/apachemesos.proto by tools/genproto.py. Do not edit.
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PodSpec(_message.Message):
    __slots__ = ("type", "docker_parameters", "uris", "shell", "executor_spec", "network_spec")
    class ContainerType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        CONTAINER_TYPE_INVALID: _ClassVar[PodSpec.ContainerType]
        CONTAINER_TYPE_DOCKER: _ClassVar[PodSpec.ContainerType]
        CONTAINER_TYPE_MESOS: _ClassVar[PodSpec.ContainerType]
    CONTAINER_TYPE_INVALID: PodSpec.ContainerType
    CONTAINER_TYPE_DOCKER: PodSpec.ContainerType
    CONTAINER_TYPE_MESOS: PodSpec.ContainerType
    class DockerParameter(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class ExecutorSpec(_message.Message):
        __slots__ = ("type", "executor_id", "data", "resources")
        class ExecutorType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
            __slots__ = ()
            EXECUTOR_TYPE_INVALID: _ClassVar[PodSpec.ExecutorSpec.ExecutorType]
            EXECUTOR_TYPE_DEFAULT: _ClassVar[PodSpec.ExecutorSpec.ExecutorType]
            EXECUTOR_TYPE_CUSTOM: _ClassVar[PodSpec.ExecutorSpec.ExecutorType]
        EXECUTOR_TYPE_INVALID: PodSpec.ExecutorSpec.ExecutorType
        EXECUTOR_TYPE_DEFAULT: PodSpec.ExecutorSpec.ExecutorType
        EXECUTOR_TYPE_CUSTOM: PodSpec.ExecutorSpec.ExecutorType
        class Resources(_message.Message):
            __slots__ = ("cpu", "mem_mb")
            CPU_FIELD_NUMBER: _ClassVar[int]
            MEM_MB_FIELD_NUMBER: _ClassVar[int]
            cpu: float
            mem_mb: float
            def __init__(self, cpu: _Optional[float] = ..., mem_mb: _Optional[float] = ...) -> None: ...
        TYPE_FIELD_NUMBER: _ClassVar[int]
        EXECUTOR_ID_FIELD_NUMBER: _ClassVar[int]
        DATA_FIELD_NUMBER: _ClassVar[int]
        RESOURCES_FIELD_NUMBER: _ClassVar[int]
        type: PodSpec.ExecutorSpec.ExecutorType
        executor_id: str
        data: bytes
        resources: PodSpec.ExecutorSpec.Resources
        def __init__(self, type: _Optional[_Union[PodSpec.ExecutorSpec.ExecutorType, str]] = ..., executor_id: _Optional[str] = ..., data: _Optional[bytes] = ..., resources: _Optional[_Union[PodSpec.ExecutorSpec.Resources, _Mapping]] = ...) -> None: ...
    class NetworkSpec(_message.Message):
        __slots__ = ("type", "name")
        class NetworkType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
            __slots__ = ()
            NETWORK_TYPE_INVALID: _ClassVar[PodSpec.NetworkSpec.NetworkType]
            NETWORK_TYPE_HOST: _ClassVar[PodSpec.NetworkSpec.NetworkType]
            NETWORK_TYPE_BRIDGE: _ClassVar[PodSpec.NetworkSpec.NetworkType]
            NETWORK_TYPE_NONE: _ClassVar[PodSpec.NetworkSpec.NetworkType]
            NETWORK_TYPE_USER: _ClassVar[PodSpec.NetworkSpec.NetworkType]
        NETWORK_TYPE_INVALID: PodSpec.NetworkSpec.NetworkType
        NETWORK_TYPE_HOST: PodSpec.NetworkSpec.NetworkType
        NETWORK_TYPE_BRIDGE: PodSpec.NetworkSpec.NetworkType
        NETWORK_TYPE_NONE: PodSpec.NetworkSpec.NetworkType
        NETWORK_TYPE_USER: PodSpec.NetworkSpec.NetworkType
        TYPE_FIELD_NUMBER: _ClassVar[int]
        NAME_FIELD_NUMBER: _ClassVar[int]
        type: PodSpec.NetworkSpec.NetworkType
        name: str
        def __init__(self, type: _Optional[_Union[PodSpec.NetworkSpec.NetworkType, str]] = ..., name: _Optional[str] = ...) -> None: ...
    class URI(_message.Message):
        __slots__ = ("value", "executable", "extract", "cache", "output_file")
        VALUE_FIELD_NUMBER: _ClassVar[int]
        EXECUTABLE_FIELD_NUMBER: _ClassVar[int]
        EXTRACT_FIELD_NUMBER: _ClassVar[int]
        CACHE_FIELD_NUMBER: _ClassVar[int]
        OUTPUT_FILE_FIELD_NUMBER: _ClassVar[int]
        value: str
        executable: bool
        extract: bool
        cache: bool
        output_file: str
        def __init__(self, value: _Optional[str] = ..., executable: _Optional[bool] = ..., extract: _Optional[bool] = ..., cache: _Optional[bool] = ..., output_file: _Optional[str] = ...) -> None: ...
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DOCKER_PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    URIS_FIELD_NUMBER: _ClassVar[int]
    SHELL_FIELD_NUMBER: _ClassVar[int]
    EXECUTOR_SPEC_FIELD_NUMBER: _ClassVar[int]
    NETWORK_SPEC_FIELD_NUMBER: _ClassVar[int]
    type: PodSpec.ContainerType
    docker_parameters: _containers.RepeatedCompositeFieldContainer[PodSpec.DockerParameter]
    uris: _containers.RepeatedCompositeFieldContainer[PodSpec.URI]
    shell: bool
    executor_spec: PodSpec.ExecutorSpec
    network_spec: PodSpec.NetworkSpec
    def __init__(self, type: _Optional[_Union[PodSpec.ContainerType, str]] = ..., docker_parameters: _Optional[_Iterable[_Union[PodSpec.DockerParameter, _Mapping]]] = ..., uris: _Optional[_Iterable[_Union[PodSpec.URI, _Mapping]]] = ..., shell: _Optional[bool] = ..., executor_spec: _Optional[_Union[PodSpec.ExecutorSpec, _Mapping]] = ..., network_spec: _Optional[_Union[PodSpec.NetworkSpec, _Mapping]] = ...) -> None: ...
