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
        __slots__ = ("name", "value", "type", "secret")
        class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
            __slots__ = ()
            UNKNOWN: _ClassVar[Environment.Variable.Type]
            VALUE: _ClassVar[Environment.Variable.Type]
            SECRET: _ClassVar[Environment.Variable.Type]
        UNKNOWN: Environment.Variable.Type
        VALUE: Environment.Variable.Type
        SECRET: Environment.Variable.Type
        NAME_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        TYPE_FIELD_NUMBER: _ClassVar[int]
        SECRET_FIELD_NUMBER: _ClassVar[int]
        name: str
        value: str
        type: Environment.Variable.Type
        secret: Secret
        def __init__(self, name: _Optional[str] = ..., value: _Optional[str] = ..., type: _Optional[_Union[Environment.Variable.Type, str]] = ..., secret: _Optional[_Union[Secret, _Mapping]] = ...) -> None: ...
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
    __slots__ = ("mode", "container_path", "host_path", "image", "source")
    class Mode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        RW: _ClassVar[Volume.Mode]
        RO: _ClassVar[Volume.Mode]
    RW: Volume.Mode
    RO: Volume.Mode
    class Source(_message.Message):
        __slots__ = ("type", "docker_volume", "sandbox_path", "secret", "host_path")
        class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
            __slots__ = ()
            UNKNOWN: _ClassVar[Volume.Source.Type]
            DOCKER_VOLUME: _ClassVar[Volume.Source.Type]
            SANDBOX_PATH: _ClassVar[Volume.Source.Type]
            SECRET: _ClassVar[Volume.Source.Type]
            HOST_PATH: _ClassVar[Volume.Source.Type]
        UNKNOWN: Volume.Source.Type
        DOCKER_VOLUME: Volume.Source.Type
        SANDBOX_PATH: Volume.Source.Type
        SECRET: Volume.Source.Type
        HOST_PATH: Volume.Source.Type
        class DockerVolume(_message.Message):
            __slots__ = ("driver", "name", "driver_options")
            DRIVER_FIELD_NUMBER: _ClassVar[int]
            NAME_FIELD_NUMBER: _ClassVar[int]
            DRIVER_OPTIONS_FIELD_NUMBER: _ClassVar[int]
            driver: str
            name: str
            driver_options: Parameters
            def __init__(self, driver: _Optional[str] = ..., name: _Optional[str] = ..., driver_options: _Optional[_Union[Parameters, _Mapping]] = ...) -> None: ...
        class HostPath(_message.Message):
            __slots__ = ("path", "mount_propagation")
            PATH_FIELD_NUMBER: _ClassVar[int]
            MOUNT_PROPAGATION_FIELD_NUMBER: _ClassVar[int]
            path: str
            mount_propagation: MountPropagation
            def __init__(self, path: _Optional[str] = ..., mount_propagation: _Optional[_Union[MountPropagation, _Mapping]] = ...) -> None: ...
        class SandboxPath(_message.Message):
            __slots__ = ("type", "path")
            class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
                __slots__ = ()
                UNKNOWN: _ClassVar[Volume.Source.SandboxPath.Type]
                SELF: _ClassVar[Volume.Source.SandboxPath.Type]
                PARENT: _ClassVar[Volume.Source.SandboxPath.Type]
            UNKNOWN: Volume.Source.SandboxPath.Type
            SELF: Volume.Source.SandboxPath.Type
            PARENT: Volume.Source.SandboxPath.Type
            TYPE_FIELD_NUMBER: _ClassVar[int]
            PATH_FIELD_NUMBER: _ClassVar[int]
            type: Volume.Source.SandboxPath.Type
            path: str
            def __init__(self, type: _Optional[_Union[Volume.Source.SandboxPath.Type, str]] = ..., path: _Optional[str] = ...) -> None: ...
        TYPE_FIELD_NUMBER: _ClassVar[int]
        DOCKER_VOLUME_FIELD_NUMBER: _ClassVar[int]
        SANDBOX_PATH_FIELD_NUMBER: _ClassVar[int]
        SECRET_FIELD_NUMBER: _ClassVar[int]
        HOST_PATH_FIELD_NUMBER: _ClassVar[int]
        type: Volume.Source.Type
        docker_volume: Volume.Source.DockerVolume
        sandbox_path: Volume.Source.SandboxPath
        secret: Secret
        host_path: Volume.Source.HostPath
        def __init__(self, type: _Optional[_Union[Volume.Source.Type, str]] = ..., docker_volume: _Optional[_Union[Volume.Source.DockerVolume, _Mapping]] = ..., sandbox_path: _Optional[_Union[Volume.Source.SandboxPath, _Mapping]] = ..., secret: _Optional[_Union[Secret, _Mapping]] = ..., host_path: _Optional[_Union[Volume.Source.HostPath, _Mapping]] = ...) -> None: ...
    MODE_FIELD_NUMBER: _ClassVar[int]
    CONTAINER_PATH_FIELD_NUMBER: _ClassVar[int]
    HOST_PATH_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    mode: Volume.Mode
    container_path: str
    host_path: str
    image: Image
    source: Volume.Source
    def __init__(self, mode: _Optional[_Union[Volume.Mode, str]] = ..., container_path: _Optional[str] = ..., host_path: _Optional[str] = ..., image: _Optional[_Union[Image, _Mapping]] = ..., source: _Optional[_Union[Volume.Source, _Mapping]] = ...) -> None: ...

class ContainerInfo(_message.Message):
    __slots__ = ("type", "volumes", "hostname", "docker", "mesos", "network_infos", "linux_info", "rlimit_info", "tty_info")
    class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        DOCKER: _ClassVar[ContainerInfo.Type]
        MESOS: _ClassVar[ContainerInfo.Type]
    DOCKER: ContainerInfo.Type
    MESOS: ContainerInfo.Type
    class DockerInfo(_message.Message):
        __slots__ = ("image", "network", "port_mappings", "privileged", "parameters", "force_pull_image", "volume_driver")
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
        class PortMapping(_message.Message):
            __slots__ = ("host_port", "container_port", "protocol")
            HOST_PORT_FIELD_NUMBER: _ClassVar[int]
            CONTAINER_PORT_FIELD_NUMBER: _ClassVar[int]
            PROTOCOL_FIELD_NUMBER: _ClassVar[int]
            host_port: int
            container_port: int
            protocol: str
            def __init__(self, host_port: _Optional[int] = ..., container_port: _Optional[int] = ..., protocol: _Optional[str] = ...) -> None: ...
        IMAGE_FIELD_NUMBER: _ClassVar[int]
        NETWORK_FIELD_NUMBER: _ClassVar[int]
        PORT_MAPPINGS_FIELD_NUMBER: _ClassVar[int]
        PRIVILEGED_FIELD_NUMBER: _ClassVar[int]
        PARAMETERS_FIELD_NUMBER: _ClassVar[int]
        FORCE_PULL_IMAGE_FIELD_NUMBER: _ClassVar[int]
        VOLUME_DRIVER_FIELD_NUMBER: _ClassVar[int]
        image: str
        network: ContainerInfo.DockerInfo.Network
        port_mappings: _containers.RepeatedCompositeFieldContainer[ContainerInfo.DockerInfo.PortMapping]
        privileged: bool
        parameters: _containers.RepeatedCompositeFieldContainer[Parameter]
        force_pull_image: bool
        volume_driver: str
        def __init__(self, image: _Optional[str] = ..., network: _Optional[_Union[ContainerInfo.DockerInfo.Network, str]] = ..., port_mappings: _Optional[_Iterable[_Union[ContainerInfo.DockerInfo.PortMapping, _Mapping]]] = ..., privileged: _Optional[bool] = ..., parameters: _Optional[_Iterable[_Union[Parameter, _Mapping]]] = ..., force_pull_image: _Optional[bool] = ..., volume_driver: _Optional[str] = ...) -> None: ...
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
    NETWORK_INFOS_FIELD_NUMBER: _ClassVar[int]
    LINUX_INFO_FIELD_NUMBER: _ClassVar[int]
    RLIMIT_INFO_FIELD_NUMBER: _ClassVar[int]
    TTY_INFO_FIELD_NUMBER: _ClassVar[int]
    type: ContainerInfo.Type
    volumes: _containers.RepeatedCompositeFieldContainer[Volume]
    hostname: str
    docker: ContainerInfo.DockerInfo
    mesos: ContainerInfo.MesosInfo
    network_infos: _containers.RepeatedCompositeFieldContainer[NetworkInfo]
    linux_info: LinuxInfo
    rlimit_info: RLimitInfo
    tty_info: TTYInfo
    def __init__(self, type: _Optional[_Union[ContainerInfo.Type, str]] = ..., volumes: _Optional[_Iterable[_Union[Volume, _Mapping]]] = ..., hostname: _Optional[str] = ..., docker: _Optional[_Union[ContainerInfo.DockerInfo, _Mapping]] = ..., mesos: _Optional[_Union[ContainerInfo.MesosInfo, _Mapping]] = ..., network_infos: _Optional[_Iterable[_Union[NetworkInfo, _Mapping]]] = ..., linux_info: _Optional[_Union[LinuxInfo, _Mapping]] = ..., rlimit_info: _Optional[_Union[RLimitInfo, _Mapping]] = ..., tty_info: _Optional[_Union[TTYInfo, _Mapping]] = ...) -> None: ...

class Image(_message.Message):
    __slots__ = ("type", "appc", "docker", "cached")
    class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        APPC: _ClassVar[Image.Type]
        DOCKER: _ClassVar[Image.Type]
    APPC: Image.Type
    DOCKER: Image.Type
    class Appc(_message.Message):
        __slots__ = ("name", "id", "labels")
        NAME_FIELD_NUMBER: _ClassVar[int]
        ID_FIELD_NUMBER: _ClassVar[int]
        LABELS_FIELD_NUMBER: _ClassVar[int]
        name: str
        id: str
        labels: Labels
        def __init__(self, name: _Optional[str] = ..., id: _Optional[str] = ..., labels: _Optional[_Union[Labels, _Mapping]] = ...) -> None: ...
    class Docker(_message.Message):
        __slots__ = ("name", "credential", "config")
        NAME_FIELD_NUMBER: _ClassVar[int]
        CREDENTIAL_FIELD_NUMBER: _ClassVar[int]
        CONFIG_FIELD_NUMBER: _ClassVar[int]
        name: str
        credential: Credential
        config: Secret
        def __init__(self, name: _Optional[str] = ..., credential: _Optional[_Union[Credential, _Mapping]] = ..., config: _Optional[_Union[Secret, _Mapping]] = ...) -> None: ...
    TYPE_FIELD_NUMBER: _ClassVar[int]
    APPC_FIELD_NUMBER: _ClassVar[int]
    DOCKER_FIELD_NUMBER: _ClassVar[int]
    CACHED_FIELD_NUMBER: _ClassVar[int]
    type: Image.Type
    appc: Image.Appc
    docker: Image.Docker
    cached: bool
    def __init__(self, type: _Optional[_Union[Image.Type, str]] = ..., appc: _Optional[_Union[Image.Appc, _Mapping]] = ..., docker: _Optional[_Union[Image.Docker, _Mapping]] = ..., cached: _Optional[bool] = ...) -> None: ...

class ExecutorInfo(_message.Message):
    __slots__ = ("type", "executor_id", "framework_id", "command", "container", "resources", "name", "source", "data", "discovery", "shutdown_grace_period", "labels")
    class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[ExecutorInfo.Type]
        DEFAULT: _ClassVar[ExecutorInfo.Type]
        CUSTOM: _ClassVar[ExecutorInfo.Type]
    UNKNOWN: ExecutorInfo.Type
    DEFAULT: ExecutorInfo.Type
    CUSTOM: ExecutorInfo.Type
    TYPE_FIELD_NUMBER: _ClassVar[int]
    EXECUTOR_ID_FIELD_NUMBER: _ClassVar[int]
    FRAMEWORK_ID_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    CONTAINER_FIELD_NUMBER: _ClassVar[int]
    RESOURCES_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    DISCOVERY_FIELD_NUMBER: _ClassVar[int]
    SHUTDOWN_GRACE_PERIOD_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    type: ExecutorInfo.Type
    executor_id: ExecutorID
    framework_id: FrameworkID
    command: CommandInfo
    container: ContainerInfo
    resources: _containers.RepeatedCompositeFieldContainer[Resource]
    name: str
    source: str
    data: bytes
    discovery: DiscoveryInfo
    shutdown_grace_period: DurationInfo
    labels: Labels
    def __init__(self, type: _Optional[_Union[ExecutorInfo.Type, str]] = ..., executor_id: _Optional[_Union[ExecutorID, _Mapping]] = ..., framework_id: _Optional[_Union[FrameworkID, _Mapping]] = ..., command: _Optional[_Union[CommandInfo, _Mapping]] = ..., container: _Optional[_Union[ContainerInfo, _Mapping]] = ..., resources: _Optional[_Iterable[_Union[Resource, _Mapping]]] = ..., name: _Optional[str] = ..., source: _Optional[str] = ..., data: _Optional[bytes] = ..., discovery: _Optional[_Union[DiscoveryInfo, _Mapping]] = ..., shutdown_grace_period: _Optional[_Union[DurationInfo, _Mapping]] = ..., labels: _Optional[_Union[Labels, _Mapping]] = ...) -> None: ...

class AgentID(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: str
    def __init__(self, value: _Optional[str] = ...) -> None: ...

class CapabilityInfo(_message.Message):
    __slots__ = ("capabilities",)
    class Capability(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[CapabilityInfo.Capability]
        CHOWN: _ClassVar[CapabilityInfo.Capability]
        DAC_OVERRIDE: _ClassVar[CapabilityInfo.Capability]
        DAC_READ_SEARCH: _ClassVar[CapabilityInfo.Capability]
        FOWNER: _ClassVar[CapabilityInfo.Capability]
        FSETID: _ClassVar[CapabilityInfo.Capability]
        KILL: _ClassVar[CapabilityInfo.Capability]
        SETGID: _ClassVar[CapabilityInfo.Capability]
        SETUID: _ClassVar[CapabilityInfo.Capability]
        SETPCAP: _ClassVar[CapabilityInfo.Capability]
        LINUX_IMMUTABLE: _ClassVar[CapabilityInfo.Capability]
        NET_BIND_SERVICE: _ClassVar[CapabilityInfo.Capability]
        NET_BROADCAST: _ClassVar[CapabilityInfo.Capability]
        NET_ADMIN: _ClassVar[CapabilityInfo.Capability]
        NET_RAW: _ClassVar[CapabilityInfo.Capability]
        IPC_LOCK: _ClassVar[CapabilityInfo.Capability]
        IPC_OWNER: _ClassVar[CapabilityInfo.Capability]
        SYS_MODULE: _ClassVar[CapabilityInfo.Capability]
        SYS_RAWIO: _ClassVar[CapabilityInfo.Capability]
        SYS_CHROOT: _ClassVar[CapabilityInfo.Capability]
        SYS_PTRACE: _ClassVar[CapabilityInfo.Capability]
        SYS_PACCT: _ClassVar[CapabilityInfo.Capability]
        SYS_ADMIN: _ClassVar[CapabilityInfo.Capability]
        SYS_BOOT: _ClassVar[CapabilityInfo.Capability]
        SYS_NICE: _ClassVar[CapabilityInfo.Capability]
        SYS_RESOURCE: _ClassVar[CapabilityInfo.Capability]
        SYS_TIME: _ClassVar[CapabilityInfo.Capability]
        SYS_TTY_CONFIG: _ClassVar[CapabilityInfo.Capability]
        MKNOD: _ClassVar[CapabilityInfo.Capability]
        LEASE: _ClassVar[CapabilityInfo.Capability]
        AUDIT_WRITE: _ClassVar[CapabilityInfo.Capability]
        AUDIT_CONTROL: _ClassVar[CapabilityInfo.Capability]
        SETFCAP: _ClassVar[CapabilityInfo.Capability]
        MAC_OVERRIDE: _ClassVar[CapabilityInfo.Capability]
        MAC_ADMIN: _ClassVar[CapabilityInfo.Capability]
        SYSLOG: _ClassVar[CapabilityInfo.Capability]
        WAKE_ALARM: _ClassVar[CapabilityInfo.Capability]
        BLOCK_SUSPEND: _ClassVar[CapabilityInfo.Capability]
        AUDIT_READ: _ClassVar[CapabilityInfo.Capability]
    UNKNOWN: CapabilityInfo.Capability
    CHOWN: CapabilityInfo.Capability
    DAC_OVERRIDE: CapabilityInfo.Capability
    DAC_READ_SEARCH: CapabilityInfo.Capability
    FOWNER: CapabilityInfo.Capability
    FSETID: CapabilityInfo.Capability
    KILL: CapabilityInfo.Capability
    SETGID: CapabilityInfo.Capability
    SETUID: CapabilityInfo.Capability
    SETPCAP: CapabilityInfo.Capability
    LINUX_IMMUTABLE: CapabilityInfo.Capability
    NET_BIND_SERVICE: CapabilityInfo.Capability
    NET_BROADCAST: CapabilityInfo.Capability
    NET_ADMIN: CapabilityInfo.Capability
    NET_RAW: CapabilityInfo.Capability
    IPC_LOCK: CapabilityInfo.Capability
    IPC_OWNER: CapabilityInfo.Capability
    SYS_MODULE: CapabilityInfo.Capability
    SYS_RAWIO: CapabilityInfo.Capability
    SYS_CHROOT: CapabilityInfo.Capability
    SYS_PTRACE: CapabilityInfo.Capability
    SYS_PACCT: CapabilityInfo.Capability
    SYS_ADMIN: CapabilityInfo.Capability
    SYS_BOOT: CapabilityInfo.Capability
    SYS_NICE: CapabilityInfo.Capability
    SYS_RESOURCE: CapabilityInfo.Capability
    SYS_TIME: CapabilityInfo.Capability
    SYS_TTY_CONFIG: CapabilityInfo.Capability
    MKNOD: CapabilityInfo.Capability
    LEASE: CapabilityInfo.Capability
    AUDIT_WRITE: CapabilityInfo.Capability
    AUDIT_CONTROL: CapabilityInfo.Capability
    SETFCAP: CapabilityInfo.Capability
    MAC_OVERRIDE: CapabilityInfo.Capability
    MAC_ADMIN: CapabilityInfo.Capability
    SYSLOG: CapabilityInfo.Capability
    WAKE_ALARM: CapabilityInfo.Capability
    BLOCK_SUSPEND: CapabilityInfo.Capability
    AUDIT_READ: CapabilityInfo.Capability
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    capabilities: _containers.RepeatedScalarFieldContainer[CapabilityInfo.Capability]
    def __init__(self, capabilities: _Optional[_Iterable[_Union[CapabilityInfo.Capability, str]]] = ...) -> None: ...

class Credential(_message.Message):
    __slots__ = ("principal", "secret")
    PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    principal: str
    secret: str
    def __init__(self, principal: _Optional[str] = ..., secret: _Optional[str] = ...) -> None: ...

class DiscoveryInfo(_message.Message):
    __slots__ = ("visibility", "name", "environment", "location", "version", "ports", "labels")
    class Visibility(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        FRAMEWORK: _ClassVar[DiscoveryInfo.Visibility]
        CLUSTER: _ClassVar[DiscoveryInfo.Visibility]
        EXTERNAL: _ClassVar[DiscoveryInfo.Visibility]
    FRAMEWORK: DiscoveryInfo.Visibility
    CLUSTER: DiscoveryInfo.Visibility
    EXTERNAL: DiscoveryInfo.Visibility
    VISIBILITY_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PORTS_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    visibility: DiscoveryInfo.Visibility
    name: str
    environment: str
    location: str
    version: str
    ports: Ports
    labels: Labels
    def __init__(self, visibility: _Optional[_Union[DiscoveryInfo.Visibility, str]] = ..., name: _Optional[str] = ..., environment: _Optional[str] = ..., location: _Optional[str] = ..., version: _Optional[str] = ..., ports: _Optional[_Union[Ports, _Mapping]] = ..., labels: _Optional[_Union[Labels, _Mapping]] = ...) -> None: ...

class DurationInfo(_message.Message):
    __slots__ = ("nanoseconds",)
    NANOSECONDS_FIELD_NUMBER: _ClassVar[int]
    nanoseconds: int
    def __init__(self, nanoseconds: _Optional[int] = ...) -> None: ...

class ExecutorID(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: str
    def __init__(self, value: _Optional[str] = ...) -> None: ...

class FrameworkID(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: str
    def __init__(self, value: _Optional[str] = ...) -> None: ...

class Label(_message.Message):
    __slots__ = ("key", "value")
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    key: str
    value: str
    def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...

class Labels(_message.Message):
    __slots__ = ("labels",)
    LABELS_FIELD_NUMBER: _ClassVar[int]
    labels: _containers.RepeatedCompositeFieldContainer[Label]
    def __init__(self, labels: _Optional[_Iterable[_Union[Label, _Mapping]]] = ...) -> None: ...

class LinuxInfo(_message.Message):
    __slots__ = ("capability_info", "bounding_capabilities", "effective_capabilities", "share_pid_namespace")
    CAPABILITY_INFO_FIELD_NUMBER: _ClassVar[int]
    BOUNDING_CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    EFFECTIVE_CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    SHARE_PID_NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    capability_info: CapabilityInfo
    bounding_capabilities: CapabilityInfo
    effective_capabilities: CapabilityInfo
    share_pid_namespace: bool
    def __init__(self, capability_info: _Optional[_Union[CapabilityInfo, _Mapping]] = ..., bounding_capabilities: _Optional[_Union[CapabilityInfo, _Mapping]] = ..., effective_capabilities: _Optional[_Union[CapabilityInfo, _Mapping]] = ..., share_pid_namespace: _Optional[bool] = ...) -> None: ...

class MountPropagation(_message.Message):
    __slots__ = ("mode",)
    class Mode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[MountPropagation.Mode]
        HOST_TO_CONTAINER: _ClassVar[MountPropagation.Mode]
        BIDIRECTIONAL: _ClassVar[MountPropagation.Mode]
    UNKNOWN: MountPropagation.Mode
    HOST_TO_CONTAINER: MountPropagation.Mode
    BIDIRECTIONAL: MountPropagation.Mode
    MODE_FIELD_NUMBER: _ClassVar[int]
    mode: MountPropagation.Mode
    def __init__(self, mode: _Optional[_Union[MountPropagation.Mode, str]] = ...) -> None: ...

class NetworkInfo(_message.Message):
    __slots__ = ("groups", "labels", "ip_addresses", "name", "port_mappings")
    class Protocol(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        IPv4: _ClassVar[NetworkInfo.Protocol]
        IPv6: _ClassVar[NetworkInfo.Protocol]
    IPv4: NetworkInfo.Protocol
    IPv6: NetworkInfo.Protocol
    class IPAddress(_message.Message):
        __slots__ = ("protocol", "ip_address")
        PROTOCOL_FIELD_NUMBER: _ClassVar[int]
        IP_ADDRESS_FIELD_NUMBER: _ClassVar[int]
        protocol: NetworkInfo.Protocol
        ip_address: str
        def __init__(self, protocol: _Optional[_Union[NetworkInfo.Protocol, str]] = ..., ip_address: _Optional[str] = ...) -> None: ...
    class PortMapping(_message.Message):
        __slots__ = ("host_port", "container_port", "protocol")
        HOST_PORT_FIELD_NUMBER: _ClassVar[int]
        CONTAINER_PORT_FIELD_NUMBER: _ClassVar[int]
        PROTOCOL_FIELD_NUMBER: _ClassVar[int]
        host_port: int
        container_port: int
        protocol: str
        def __init__(self, host_port: _Optional[int] = ..., container_port: _Optional[int] = ..., protocol: _Optional[str] = ...) -> None: ...
    GROUPS_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    IP_ADDRESSES_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PORT_MAPPINGS_FIELD_NUMBER: _ClassVar[int]
    groups: _containers.RepeatedScalarFieldContainer[str]
    labels: Labels
    ip_addresses: _containers.RepeatedCompositeFieldContainer[NetworkInfo.IPAddress]
    name: str
    port_mappings: _containers.RepeatedCompositeFieldContainer[NetworkInfo.PortMapping]
    def __init__(self, groups: _Optional[_Iterable[str]] = ..., labels: _Optional[_Union[Labels, _Mapping]] = ..., ip_addresses: _Optional[_Iterable[_Union[NetworkInfo.IPAddress, _Mapping]]] = ..., name: _Optional[str] = ..., port_mappings: _Optional[_Iterable[_Union[NetworkInfo.PortMapping, _Mapping]]] = ...) -> None: ...

class Parameters(_message.Message):
    __slots__ = ("parameter",)
    PARAMETER_FIELD_NUMBER: _ClassVar[int]
    parameter: _containers.RepeatedCompositeFieldContainer[Parameter]
    def __init__(self, parameter: _Optional[_Iterable[_Union[Parameter, _Mapping]]] = ...) -> None: ...

class Port(_message.Message):
    __slots__ = ("number", "name", "protocol", "visibility", "labels")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_FIELD_NUMBER: _ClassVar[int]
    VISIBILITY_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    number: int
    name: str
    protocol: str
    visibility: DiscoveryInfo.Visibility
    labels: Labels
    def __init__(self, number: _Optional[int] = ..., name: _Optional[str] = ..., protocol: _Optional[str] = ..., visibility: _Optional[_Union[DiscoveryInfo.Visibility, str]] = ..., labels: _Optional[_Union[Labels, _Mapping]] = ...) -> None: ...

class Ports(_message.Message):
    __slots__ = ("ports",)
    PORTS_FIELD_NUMBER: _ClassVar[int]
    ports: _containers.RepeatedCompositeFieldContainer[Port]
    def __init__(self, ports: _Optional[_Iterable[_Union[Port, _Mapping]]] = ...) -> None: ...

class RLimitInfo(_message.Message):
    __slots__ = ("rlimits",)
    class RLimit(_message.Message):
        __slots__ = ("type", "hard", "soft")
        class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
            __slots__ = ()
            UNKNOWN: _ClassVar[RLimitInfo.RLimit.Type]
            RLMT_AS: _ClassVar[RLimitInfo.RLimit.Type]
            RLMT_CORE: _ClassVar[RLimitInfo.RLimit.Type]
            RLMT_CPU: _ClassVar[RLimitInfo.RLimit.Type]
            RLMT_DATA: _ClassVar[RLimitInfo.RLimit.Type]
            RLMT_FSIZE: _ClassVar[RLimitInfo.RLimit.Type]
            RLMT_LOCKS: _ClassVar[RLimitInfo.RLimit.Type]
            RLMT_MEMLOCK: _ClassVar[RLimitInfo.RLimit.Type]
            RLMT_MSGQUEUE: _ClassVar[RLimitInfo.RLimit.Type]
            RLMT_NICE: _ClassVar[RLimitInfo.RLimit.Type]
            RLMT_NOFILE: _ClassVar[RLimitInfo.RLimit.Type]
            RLMT_NPROC: _ClassVar[RLimitInfo.RLimit.Type]
            RLMT_RSS: _ClassVar[RLimitInfo.RLimit.Type]
            RLMT_RTPRIO: _ClassVar[RLimitInfo.RLimit.Type]
            RLMT_RTTIME: _ClassVar[RLimitInfo.RLimit.Type]
            RLMT_SIGPENDING: _ClassVar[RLimitInfo.RLimit.Type]
            RLMT_STACK: _ClassVar[RLimitInfo.RLimit.Type]
        UNKNOWN: RLimitInfo.RLimit.Type
        RLMT_AS: RLimitInfo.RLimit.Type
        RLMT_CORE: RLimitInfo.RLimit.Type
        RLMT_CPU: RLimitInfo.RLimit.Type
        RLMT_DATA: RLimitInfo.RLimit.Type
        RLMT_FSIZE: RLimitInfo.RLimit.Type
        RLMT_LOCKS: RLimitInfo.RLimit.Type
        RLMT_MEMLOCK: RLimitInfo.RLimit.Type
        RLMT_MSGQUEUE: RLimitInfo.RLimit.Type
        RLMT_NICE: RLimitInfo.RLimit.Type
        RLMT_NOFILE: RLimitInfo.RLimit.Type
        RLMT_NPROC: RLimitInfo.RLimit.Type
        RLMT_RSS: RLimitInfo.RLimit.Type
        RLMT_RTPRIO: RLimitInfo.RLimit.Type
        RLMT_RTTIME: RLimitInfo.RLimit.Type
        RLMT_SIGPENDING: RLimitInfo.RLimit.Type
        RLMT_STACK: RLimitInfo.RLimit.Type
        TYPE_FIELD_NUMBER: _ClassVar[int]
        HARD_FIELD_NUMBER: _ClassVar[int]
        SOFT_FIELD_NUMBER: _ClassVar[int]
        type: RLimitInfo.RLimit.Type
        hard: int
        soft: int
        def __init__(self, type: _Optional[_Union[RLimitInfo.RLimit.Type, str]] = ..., hard: _Optional[int] = ..., soft: _Optional[int] = ...) -> None: ...
    RLIMITS_FIELD_NUMBER: _ClassVar[int]
    rlimits: _containers.RepeatedCompositeFieldContainer[RLimitInfo.RLimit]
    def __init__(self, rlimits: _Optional[_Iterable[_Union[RLimitInfo.RLimit, _Mapping]]] = ...) -> None: ...

class Resource(_message.Message):
    __slots__ = ("name", "type", "scalar", "ranges", "set", "role", "disk", "reservation", "revocable", "shared", "allocation_info", "provider_id", "reservations")
    class AllocationInfo(_message.Message):
        __slots__ = ("role",)
        ROLE_FIELD_NUMBER: _ClassVar[int]
        role: str
        def __init__(self, role: _Optional[str] = ...) -> None: ...
    class DiskInfo(_message.Message):
        __slots__ = ("persistence", "volume", "source")
        class Persistence(_message.Message):
            __slots__ = ("id", "principal")
            ID_FIELD_NUMBER: _ClassVar[int]
            PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
            id: str
            principal: str
            def __init__(self, id: _Optional[str] = ..., principal: _Optional[str] = ...) -> None: ...
        class Source(_message.Message):
            __slots__ = ("type", "path", "mount", "id", "metadata", "profile", "vendor")
            class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
                __slots__ = ()
                UNKNOWN: _ClassVar[Resource.DiskInfo.Source.Type]
                PATH: _ClassVar[Resource.DiskInfo.Source.Type]
                MOUNT: _ClassVar[Resource.DiskInfo.Source.Type]
                BLOCK: _ClassVar[Resource.DiskInfo.Source.Type]
                RAW: _ClassVar[Resource.DiskInfo.Source.Type]
            UNKNOWN: Resource.DiskInfo.Source.Type
            PATH: Resource.DiskInfo.Source.Type
            MOUNT: Resource.DiskInfo.Source.Type
            BLOCK: Resource.DiskInfo.Source.Type
            RAW: Resource.DiskInfo.Source.Type
            class Mount(_message.Message):
                __slots__ = ("root",)
                ROOT_FIELD_NUMBER: _ClassVar[int]
                root: str
                def __init__(self, root: _Optional[str] = ...) -> None: ...
            class Path(_message.Message):
                __slots__ = ("root",)
                ROOT_FIELD_NUMBER: _ClassVar[int]
                root: str
                def __init__(self, root: _Optional[str] = ...) -> None: ...
            TYPE_FIELD_NUMBER: _ClassVar[int]
            PATH_FIELD_NUMBER: _ClassVar[int]
            MOUNT_FIELD_NUMBER: _ClassVar[int]
            ID_FIELD_NUMBER: _ClassVar[int]
            METADATA_FIELD_NUMBER: _ClassVar[int]
            PROFILE_FIELD_NUMBER: _ClassVar[int]
            VENDOR_FIELD_NUMBER: _ClassVar[int]
            type: Resource.DiskInfo.Source.Type
            path: Resource.DiskInfo.Source.Path
            mount: Resource.DiskInfo.Source.Mount
            id: str
            metadata: Labels
            profile: str
            vendor: str
            def __init__(self, type: _Optional[_Union[Resource.DiskInfo.Source.Type, str]] = ..., path: _Optional[_Union[Resource.DiskInfo.Source.Path, _Mapping]] = ..., mount: _Optional[_Union[Resource.DiskInfo.Source.Mount, _Mapping]] = ..., id: _Optional[str] = ..., metadata: _Optional[_Union[Labels, _Mapping]] = ..., profile: _Optional[str] = ..., vendor: _Optional[str] = ...) -> None: ...
        PERSISTENCE_FIELD_NUMBER: _ClassVar[int]
        VOLUME_FIELD_NUMBER: _ClassVar[int]
        SOURCE_FIELD_NUMBER: _ClassVar[int]
        persistence: Resource.DiskInfo.Persistence
        volume: Volume
        source: Resource.DiskInfo.Source
        def __init__(self, persistence: _Optional[_Union[Resource.DiskInfo.Persistence, _Mapping]] = ..., volume: _Optional[_Union[Volume, _Mapping]] = ..., source: _Optional[_Union[Resource.DiskInfo.Source, _Mapping]] = ...) -> None: ...
    class ReservationInfo(_message.Message):
        __slots__ = ("principal", "labels", "role", "type")
        class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
            __slots__ = ()
            UNKNOWN: _ClassVar[Resource.ReservationInfo.Type]
            STATIC: _ClassVar[Resource.ReservationInfo.Type]
            DYNAMIC: _ClassVar[Resource.ReservationInfo.Type]
        UNKNOWN: Resource.ReservationInfo.Type
        STATIC: Resource.ReservationInfo.Type
        DYNAMIC: Resource.ReservationInfo.Type
        PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
        LABELS_FIELD_NUMBER: _ClassVar[int]
        ROLE_FIELD_NUMBER: _ClassVar[int]
        TYPE_FIELD_NUMBER: _ClassVar[int]
        principal: str
        labels: Labels
        role: str
        type: Resource.ReservationInfo.Type
        def __init__(self, principal: _Optional[str] = ..., labels: _Optional[_Union[Labels, _Mapping]] = ..., role: _Optional[str] = ..., type: _Optional[_Union[Resource.ReservationInfo.Type, str]] = ...) -> None: ...
    class RevocableInfo(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class SharedInfo(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SCALAR_FIELD_NUMBER: _ClassVar[int]
    RANGES_FIELD_NUMBER: _ClassVar[int]
    SET_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    DISK_FIELD_NUMBER: _ClassVar[int]
    RESERVATION_FIELD_NUMBER: _ClassVar[int]
    REVOCABLE_FIELD_NUMBER: _ClassVar[int]
    SHARED_FIELD_NUMBER: _ClassVar[int]
    ALLOCATION_INFO_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_ID_FIELD_NUMBER: _ClassVar[int]
    RESERVATIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: Value.Type
    scalar: Value.Scalar
    ranges: Value.Ranges
    set: Value.Set
    role: str
    disk: Resource.DiskInfo
    reservation: Resource.ReservationInfo
    revocable: Resource.RevocableInfo
    shared: Resource.SharedInfo
    allocation_info: Resource.AllocationInfo
    provider_id: ResourceProviderID
    reservations: _containers.RepeatedCompositeFieldContainer[Resource.ReservationInfo]
    def __init__(self, name: _Optional[str] = ..., type: _Optional[_Union[Value.Type, str]] = ..., scalar: _Optional[_Union[Value.Scalar, _Mapping]] = ..., ranges: _Optional[_Union[Value.Ranges, _Mapping]] = ..., set: _Optional[_Union[Value.Set, _Mapping]] = ..., role: _Optional[str] = ..., disk: _Optional[_Union[Resource.DiskInfo, _Mapping]] = ..., reservation: _Optional[_Union[Resource.ReservationInfo, _Mapping]] = ..., revocable: _Optional[_Union[Resource.RevocableInfo, _Mapping]] = ..., shared: _Optional[_Union[Resource.SharedInfo, _Mapping]] = ..., allocation_info: _Optional[_Union[Resource.AllocationInfo, _Mapping]] = ..., provider_id: _Optional[_Union[ResourceProviderID, _Mapping]] = ..., reservations: _Optional[_Iterable[_Union[Resource.ReservationInfo, _Mapping]]] = ...) -> None: ...

class ResourceProviderID(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: str
    def __init__(self, value: _Optional[str] = ...) -> None: ...

class Secret(_message.Message):
    __slots__ = ("type", "reference", "value")
    class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[Secret.Type]
        REFERENCE: _ClassVar[Secret.Type]
        VALUE: _ClassVar[Secret.Type]
    UNKNOWN: Secret.Type
    REFERENCE: Secret.Type
    VALUE: Secret.Type
    class Reference(_message.Message):
        __slots__ = ("name", "key")
        NAME_FIELD_NUMBER: _ClassVar[int]
        KEY_FIELD_NUMBER: _ClassVar[int]
        name: str
        key: str
        def __init__(self, name: _Optional[str] = ..., key: _Optional[str] = ...) -> None: ...
    class Value(_message.Message):
        __slots__ = ("data",)
        DATA_FIELD_NUMBER: _ClassVar[int]
        data: bytes
        def __init__(self, data: _Optional[bytes] = ...) -> None: ...
    TYPE_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    type: Secret.Type
    reference: Secret.Reference
    value: Secret.Value
    def __init__(self, type: _Optional[_Union[Secret.Type, str]] = ..., reference: _Optional[_Union[Secret.Reference, _Mapping]] = ..., value: _Optional[_Union[Secret.Value, _Mapping]] = ...) -> None: ...

class TTYInfo(_message.Message):
    __slots__ = ("window_size",)
    class WindowSize(_message.Message):
        __slots__ = ("rows", "columns")
        ROWS_FIELD_NUMBER: _ClassVar[int]
        COLUMNS_FIELD_NUMBER: _ClassVar[int]
        rows: int
        columns: int
        def __init__(self, rows: _Optional[int] = ..., columns: _Optional[int] = ...) -> None: ...
    WINDOW_SIZE_FIELD_NUMBER: _ClassVar[int]
    window_size: TTYInfo.WindowSize
    def __init__(self, window_size: _Optional[_Union[TTYInfo.WindowSize, _Mapping]] = ...) -> None: ...

class TaskID(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: str
    def __init__(self, value: _Optional[str] = ...) -> None: ...

class Value(_message.Message):
    __slots__ = ("type", "scalar", "ranges", "set", "text")
    class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        SCALAR: _ClassVar[Value.Type]
        RANGES: _ClassVar[Value.Type]
        SET: _ClassVar[Value.Type]
        TEXT: _ClassVar[Value.Type]
    SCALAR: Value.Type
    RANGES: Value.Type
    SET: Value.Type
    TEXT: Value.Type
    class Range(_message.Message):
        __slots__ = ("begin", "end")
        BEGIN_FIELD_NUMBER: _ClassVar[int]
        END_FIELD_NUMBER: _ClassVar[int]
        begin: int
        end: int
        def __init__(self, begin: _Optional[int] = ..., end: _Optional[int] = ...) -> None: ...
    class Ranges(_message.Message):
        __slots__ = ("range",)
        RANGE_FIELD_NUMBER: _ClassVar[int]
        range: _containers.RepeatedCompositeFieldContainer[Value.Range]
        def __init__(self, range: _Optional[_Iterable[_Union[Value.Range, _Mapping]]] = ...) -> None: ...
    class Scalar(_message.Message):
        __slots__ = ("value",)
        VALUE_FIELD_NUMBER: _ClassVar[int]
        value: float
        def __init__(self, value: _Optional[float] = ...) -> None: ...
    class Set(_message.Message):
        __slots__ = ("item",)
        ITEM_FIELD_NUMBER: _ClassVar[int]
        item: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, item: _Optional[_Iterable[str]] = ...) -> None: ...
    class Text(_message.Message):
        __slots__ = ("value",)
        VALUE_FIELD_NUMBER: _ClassVar[int]
        value: str
        def __init__(self, value: _Optional[str] = ...) -> None: ...
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SCALAR_FIELD_NUMBER: _ClassVar[int]
    RANGES_FIELD_NUMBER: _ClassVar[int]
    SET_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    type: Value.Type
    scalar: Value.Scalar
    ranges: Value.Ranges
    set: Value.Set
    text: Value.Text
    def __init__(self, type: _Optional[_Union[Value.Type, str]] = ..., scalar: _Optional[_Union[Value.Scalar, _Mapping]] = ..., ranges: _Optional[_Union[Value.Ranges, _Mapping]] = ..., set: _Optional[_Union[Value.Set, _Mapping]] = ..., text: _Optional[_Union[Value.Text, _Mapping]] = ...) -> None: ...
