# Generated from peloton/api/mesos/v1/mesos.proto by tools/genproto.py. Do not edit.
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Environment(_message.Message):
    __slots__ = ("variables",)
    class Variable(_message.Message):
        __slots__ = ("name", "value")
        NAME_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        name: str
        value: str
        def __init__(self, name: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    variables: _containers.RepeatedCompositeFieldContainer[Environment.Variable]
    def __init__(self, variables: _Optional[_Iterable[_Union[Environment.Variable, _Mapping]]] = ...) -> None: ...

class Parameter(_message.Message):
    __slots__ = ("key", "value")
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    key: str
    value: str
    def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...

class CommandInfo(_message.Message):
    __slots__ = ("uris", "environment", "shell", "value", "arguments", "user")
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
    URIS_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    SHELL_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    USER_FIELD_NUMBER: _ClassVar[int]
    uris: _containers.RepeatedCompositeFieldContainer[CommandInfo.URI]
    environment: Environment
    shell: bool
    value: str
    arguments: _containers.RepeatedScalarFieldContainer[str]
    user: str
    def __init__(self, uris: _Optional[_Iterable[_Union[CommandInfo.URI, _Mapping]]] = ..., environment: _Optional[_Union[Environment, _Mapping]] = ..., shell: _Optional[bool] = ..., value: _Optional[str] = ..., arguments: _Optional[_Iterable[str]] = ..., user: _Optional[str] = ...) -> None: ...

class Volume(_message.Message):
    __slots__ = ("mode", "container_path", "host_path")
    class Mode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        RW: _ClassVar[Volume.Mode]
        RO: _ClassVar[Volume.Mode]
    RW: Volume.Mode
    RO: Volume.Mode
    MODE_FIELD_NUMBER: _ClassVar[int]
    CONTAINER_PATH_FIELD_NUMBER: _ClassVar[int]
    HOST_PATH_FIELD_NUMBER: _ClassVar[int]
    mode: Volume.Mode
    container_path: str
    host_path: str
    def __init__(self, mode: _Optional[_Union[Volume.Mode, str]] = ..., container_path: _Optional[str] = ..., host_path: _Optional[str] = ...) -> None: ...

class ContainerInfo(_message.Message):
    __slots__ = ("type", "volumes", "hostname", "docker", "mesos")
    class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        DOCKER: _ClassVar[ContainerInfo.Type]
        MESOS: _ClassVar[ContainerInfo.Type]
    DOCKER: ContainerInfo.Type
    MESOS: ContainerInfo.Type
    class DockerInfo(_message.Message):
        __slots__ = ("image", "network", "privileged", "parameters", "force_pull_image")
        class Network(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
            __slots__ = ()
            HOST: _ClassVar[ContainerInfo.DockerInfo.Network]
            BRIDGE: _ClassVar[ContainerInfo.DockerInfo.Network]
            NONE: _ClassVar[ContainerInfo.DockerInfo.Network]
            USER: _ClassVar[ContainerInfo.DockerInfo.Network]
        HOST: ContainerInfo.DockerInfo.Network
        BRIDGE: ContainerInfo.DockerInfo.Network
        NONE: ContainerInfo.DockerInfo.Network
        USER: ContainerInfo.DockerInfo.Network
        IMAGE_FIELD_NUMBER: _ClassVar[int]
        NETWORK_FIELD_NUMBER: _ClassVar[int]
        PRIVILEGED_FIELD_NUMBER: _ClassVar[int]
        PARAMETERS_FIELD_NUMBER: _ClassVar[int]
        FORCE_PULL_IMAGE_FIELD_NUMBER: _ClassVar[int]
        image: str
        network: ContainerInfo.DockerInfo.Network
        privileged: bool
        parameters: _containers.RepeatedCompositeFieldContainer[Parameter]
        force_pull_image: bool
        def __init__(self, image: _Optional[str] = ..., network: _Optional[_Union[ContainerInfo.DockerInfo.Network, str]] = ..., privileged: _Optional[bool] = ..., parameters: _Optional[_Iterable[_Union[Parameter, _Mapping]]] = ..., force_pull_image: _Optional[bool] = ...) -> None: ...
    class MesosInfo(_message.Message):
        __slots__ = ("image",)
        IMAGE_FIELD_NUMBER: _ClassVar[int]
        image: Image
        def __init__(self, image: _Optional[_Union[Image, _Mapping]] = ...) -> None: ...
    TYPE_FIELD_NUMBER: _ClassVar[int]
    VOLUMES_FIELD_NUMBER: _ClassVar[int]
    HOSTNAME_FIELD_NUMBER: _ClassVar[int]
    DOCKER_FIELD_NUMBER: _ClassVar[int]
    MESOS_FIELD_NUMBER: _ClassVar[int]
    type: ContainerInfo.Type
    volumes: _containers.RepeatedCompositeFieldContainer[Volume]
    hostname: str
    docker: ContainerInfo.DockerInfo
    mesos: ContainerInfo.MesosInfo
    def __init__(self, type: _Optional[_Union[ContainerInfo.Type, str]] = ..., volumes: _Optional[_Iterable[_Union[Volume, _Mapping]]] = ..., hostname: _Optional[str] = ..., docker: _Optional[_Union[ContainerInfo.DockerInfo, _Mapping]] = ..., mesos: _Optional[_Union[ContainerInfo.MesosInfo, _Mapping]] = ...) -> None: ...

class Image(_message.Message):
    __slots__ = ("type", "docker", "cached")
    class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        APPC: _ClassVar[Image.Type]
        DOCKER: _ClassVar[Image.Type]
    APPC: Image.Type
    DOCKER: Image.Type
    class Docker(_message.Message):
        __slots__ = ("name",)
        NAME_FIELD_NUMBER: _ClassVar[int]
        name: str
        def __init__(self, name: _Optional[str] = ...) -> None: ...
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DOCKER_FIELD_NUMBER: _ClassVar[int]
    CACHED_FIELD_NUMBER: _ClassVar[int]
    type: Image.Type
    docker: Image.Docker
    cached: bool
    def __init__(self, type: _Optional[_Union[Image.Type, str]] = ..., docker: _Optional[_Union[Image.Docker, _Mapping]] = ..., cached: _Optional[bool] = ...) -> None: ...

class ExecutorInfo(_message.Message):
    __slots__ = ("type", "name", "source", "data", "command")
    class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[ExecutorInfo.Type]
        DEFAULT: _ClassVar[ExecutorInfo.Type]
        CUSTOM: _ClassVar[ExecutorInfo.Type]
    UNKNOWN: ExecutorInfo.Type
    DEFAULT: ExecutorInfo.Type
    CUSTOM: ExecutorInfo.Type
    TYPE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    type: ExecutorInfo.Type
    name: str
    source: str
    data: bytes
    command: CommandInfo
    def __init__(self, type: _Optional[_Union[ExecutorInfo.Type, str]] = ..., name: _Optional[str] = ..., source: _Optional[str] = ..., data: _Optional[bytes] = ..., command: _Optional[_Union[CommandInfo, _Mapping]] = ...) -> None: ...
