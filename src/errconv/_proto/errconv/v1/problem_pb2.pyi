from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Problem(_message.Message):
    __slots__ = ("type", "title", "instance", "http_status", "code", "reason_synthesized", "message_is_title", "alternatives", "alternatives_truncated", "extensions")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_FIELD_NUMBER: _ClassVar[int]
    HTTP_STATUS_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    REASON_SYNTHESIZED_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_IS_TITLE_FIELD_NUMBER: _ClassVar[int]
    ALTERNATIVES_FIELD_NUMBER: _ClassVar[int]
    ALTERNATIVES_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    EXTENSIONS_FIELD_NUMBER: _ClassVar[int]
    type: str
    title: str
    instance: str
    http_status: int
    code: str
    reason_synthesized: bool
    message_is_title: bool
    alternatives: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Value]
    alternatives_truncated: bool
    extensions: _struct_pb2.Struct
    def __init__(self, type: _Optional[str] = ..., title: _Optional[str] = ..., instance: _Optional[str] = ..., http_status: _Optional[int] = ..., code: _Optional[str] = ..., reason_synthesized: _Optional[bool] = ..., message_is_title: _Optional[bool] = ..., alternatives: _Optional[_Iterable[_Union[_struct_pb2.Value, _Mapping]]] = ..., alternatives_truncated: _Optional[bool] = ..., extensions: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class OpaqueDetail(_message.Message):
    __slots__ = ("type_url", "fields")
    TYPE_URL_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    type_url: str
    fields: _struct_pb2.Struct
    def __init__(self, type_url: _Optional[str] = ..., fields: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...
