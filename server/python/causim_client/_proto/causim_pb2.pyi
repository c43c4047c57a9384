from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EndpointKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ENDPOINT_KIND_UNSPECIFIED: _ClassVar[EndpointKind]
    ENDPOINT_KIND_EVENT: _ClassVar[EndpointKind]
    ENDPOINT_KIND_QUERY: _ClassVar[EndpointKind]
    ENDPOINT_KIND_SINK: _ClassVar[EndpointKind]
ENDPOINT_KIND_UNSPECIFIED: EndpointKind
ENDPOINT_KIND_EVENT: EndpointKind
ENDPOINT_KIND_QUERY: EndpointKind
ENDPOINT_KIND_SINK: EndpointKind

class InitRequest(_message.Message):
    __slots__ = ("config_json",)
    CONFIG_JSON_FIELD_NUMBER: _ClassVar[int]
    config_json: str
    def __init__(self, config_json: _Optional[str] = ...) -> None: ...

class InitReply(_message.Message):
    __slots__ = ("time_ns",)
    TIME_NS_FIELD_NUMBER: _ClassVar[int]
    time_ns: int
    def __init__(self, time_ns: _Optional[int] = ...) -> None: ...

class ListEndpointsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Endpoint(_message.Message):
    __slots__ = ("name", "kind", "description", "payload_type", "payload_schema", "reply_type", "reply_schema")
    NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_TYPE_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    REPLY_TYPE_FIELD_NUMBER: _ClassVar[int]
    REPLY_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    name: str
    kind: EndpointKind
    description: str
    payload_type: str
    payload_schema: str
    reply_type: str
    reply_schema: str
    def __init__(self, name: _Optional[str] = ..., kind: _Optional[_Union[EndpointKind, str]] = ..., description: _Optional[str] = ..., payload_type: _Optional[str] = ..., payload_schema: _Optional[str] = ..., reply_type: _Optional[str] = ..., reply_schema: _Optional[str] = ...) -> None: ...

class ListEndpointsReply(_message.Message):
    __slots__ = ("endpoints", "config_schema", "initialized")
    ENDPOINTS_FIELD_NUMBER: _ClassVar[int]
    CONFIG_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    INITIALIZED_FIELD_NUMBER: _ClassVar[int]
    endpoints: _containers.RepeatedCompositeFieldContainer[Endpoint]
    config_schema: str
    initialized: bool
    def __init__(self, endpoints: _Optional[_Iterable[_Union[Endpoint, _Mapping]]] = ..., config_schema: _Optional[str] = ..., initialized: _Optional[bool] = ...) -> None: ...

class TimeRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TimeReply(_message.Message):
    __slots__ = ("time_ns",)
    TIME_NS_FIELD_NUMBER: _ClassVar[int]
    time_ns: int
    def __init__(self, time_ns: _Optional[int] = ...) -> None: ...

class StepRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Deadline(_message.Message):
    __slots__ = ("at_ns", "after_ns")
    AT_NS_FIELD_NUMBER: _ClassVar[int]
    AFTER_NS_FIELD_NUMBER: _ClassVar[int]
    at_ns: int
    after_ns: int
    def __init__(self, at_ns: _Optional[int] = ..., after_ns: _Optional[int] = ...) -> None: ...

class StepUntilRequest(_message.Message):
    __slots__ = ("deadline",)
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    deadline: Deadline
    def __init__(self, deadline: _Optional[_Union[Deadline, _Mapping]] = ...) -> None: ...

class RunRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RunReply(_message.Message):
    __slots__ = ("time_ns", "halted")
    TIME_NS_FIELD_NUMBER: _ClassVar[int]
    HALTED_FIELD_NUMBER: _ClassVar[int]
    time_ns: int
    halted: bool
    def __init__(self, time_ns: _Optional[int] = ..., halted: _Optional[bool] = ...) -> None: ...

class HaltRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class HaltReply(_message.Message):
    __slots__ = ("was_running",)
    WAS_RUNNING_FIELD_NUMBER: _ClassVar[int]
    was_running: bool
    def __init__(self, was_running: _Optional[bool] = ...) -> None: ...

class ProcessEventRequest(_message.Message):
    __slots__ = ("endpoint", "payload_json")
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_JSON_FIELD_NUMBER: _ClassVar[int]
    endpoint: str
    payload_json: str
    def __init__(self, endpoint: _Optional[str] = ..., payload_json: _Optional[str] = ...) -> None: ...

class ProcessQueryRequest(_message.Message):
    __slots__ = ("endpoint", "request_json")
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_JSON_FIELD_NUMBER: _ClassVar[int]
    endpoint: str
    request_json: str
    def __init__(self, endpoint: _Optional[str] = ..., request_json: _Optional[str] = ...) -> None: ...

class ProcessQueryReply(_message.Message):
    __slots__ = ("replies_json", "time_ns")
    REPLIES_JSON_FIELD_NUMBER: _ClassVar[int]
    TIME_NS_FIELD_NUMBER: _ClassVar[int]
    replies_json: str
    time_ns: int
    def __init__(self, replies_json: _Optional[str] = ..., time_ns: _Optional[int] = ...) -> None: ...

class ScheduleRequest(_message.Message):
    __slots__ = ("endpoint", "payload_json", "deadline")
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_JSON_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    endpoint: str
    payload_json: str
    deadline: Deadline
    def __init__(self, endpoint: _Optional[str] = ..., payload_json: _Optional[str] = ..., deadline: _Optional[_Union[Deadline, _Mapping]] = ...) -> None: ...

class ScheduleReply(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SinkRequest(_message.Message):
    __slots__ = ("endpoint",)
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    endpoint: str
    def __init__(self, endpoint: _Optional[str] = ...) -> None: ...

class SinkValue(_message.Message):
    __slots__ = ("time_ns", "value_json")
    TIME_NS_FIELD_NUMBER: _ClassVar[int]
    VALUE_JSON_FIELD_NUMBER: _ClassVar[int]
    time_ns: int
    value_json: str
    def __init__(self, time_ns: _Optional[int] = ..., value_json: _Optional[str] = ...) -> None: ...

class SinkValues(_message.Message):
    __slots__ = ("values",)
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedCompositeFieldContainer[SinkValue]
    def __init__(self, values: _Optional[_Iterable[_Union[SinkValue, _Mapping]]] = ...) -> None: ...

class DrainReply(_message.Message):
    __slots__ = ("values", "dropped", "more")
    VALUES_FIELD_NUMBER: _ClassVar[int]
    DROPPED_FIELD_NUMBER: _ClassVar[int]
    MORE_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedCompositeFieldContainer[SinkValue]
    dropped: int
    more: bool
    def __init__(self, values: _Optional[_Iterable[_Union[SinkValue, _Mapping]]] = ..., dropped: _Optional[int] = ..., more: _Optional[bool] = ...) -> None: ...

class LatestReply(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: SinkValue
    def __init__(self, value: _Optional[_Union[SinkValue, _Mapping]] = ...) -> None: ...

class SaveRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SaveReply(_message.Message):
    __slots__ = ("snapshot",)
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    snapshot: bytes
    def __init__(self, snapshot: _Optional[bytes] = ...) -> None: ...

class RestoreRequest(_message.Message):
    __slots__ = ("snapshot", "config_json")
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    CONFIG_JSON_FIELD_NUMBER: _ClassVar[int]
    snapshot: bytes
    config_json: str
    def __init__(self, snapshot: _Optional[bytes] = ..., config_json: _Optional[str] = ...) -> None: ...

class RestoreReply(_message.Message):
    __slots__ = ("time_ns",)
    TIME_NS_FIELD_NUMBER: _ClassVar[int]
    time_ns: int
    def __init__(self, time_ns: _Optional[int] = ...) -> None: ...
