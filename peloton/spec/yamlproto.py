"""Descriptor-driven conversion between YAML/JSON-shaped data and protobuf messages.

Peloton's files spell the same field three ways: lower-cased Go names
(``instancecount``, ``memlimitmb``), protobuf JSON names (``instanceCount``)
and proto names (``instance_count``, ``container_path``). A key matches a
field when both are equal after :func:`normalise_key` (lower-case, ``_``
removed).

Paths in errors and warnings are normalised too, so they do not depend on
the spelling used: field names as :func:`normalise_key` gives them, map
entries as ``.<key>``, list items as ``[<index>]``, for example
``defaultconfig.resource.cpulimit``, ``instanceconfig.3.command``,
``resources[1].kind``.

Nothing here does I/O except :func:`load_yaml` given a path.
"""

from __future__ import annotations

import difflib
import math
import os
import re
from collections.abc import Mapping
from typing import Any, NamedTuple, TypeVar

import yaml
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from peloton.core.errors import Internal, InvalidArgument

M = TypeVar("M", bound=Message)

__all__ = [
    "join_path",
    "load_document",
    "load_yaml",
    "message_to_dict",
    "normalise_key",
    "parse_message",
]


def normalise_key(key: str) -> str:
    """``instance_count``, ``instanceCount`` and ``instancecount`` all give ``instancecount``."""
    return key.replace("_", "").lower()


def join_path(path: str, name: str) -> str:
    """``join_path("sla", "priority") == "sla.priority"``; the empty path is the root."""
    return f"{path}.{name}" if path else name


# --------------------------------------------------------------------------- YAML

# The largest YAML document read, and the most values it may expand to
# (aliases share one object, so a few kilobytes can stand for billions of
# values: the "billion laughs"). A 100,000-instance job with an override per
# instance is ~1.5 MB and ~1M values. Nesting deeper than libyaml's 1000
# levels is refused by the parser itself.
MAX_YAML_BYTES = 16 * 1024 * 1024
MAX_YAML_VALUES = 5_000_000


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """Safe loader that rejects a key repeated in one mapping.

    PyYAML keeps the last of two equal keys silently; a repeated key in a job
    file is almost always a mistake worth reporting. Keys brought in by a
    ``<<`` merge may still be overridden, as YAML intends.
    """

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                repeated = key in seen
                seen.add(key)
            except TypeError:  # unhashable key: the base class reports it
                continue
            if repeated:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark,
                    f"found duplicate key {key!r}", key_node.start_mark)
        result: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        return result


def load_yaml(text_or_path: str | bytes | os.PathLike[str]) -> Any:
    """Parse one YAML document with the safe loader.

    ``str`` and ``bytes`` are YAML text; an ``os.PathLike`` (e.g.
    ``pathlib.Path``) is a file to read. Returns plain Python data (``None``
    for an empty document). Syntax errors, repeated keys and unreadable
    files raise :class:`InvalidArgument` whose message gives the 1-based
    line and column.
    """
    source = ""
    if isinstance(text_or_path, os.PathLike):
        source = f"{os.fspath(text_or_path)}: "
        try:
            with open(text_or_path, "rb") as f:
                text: str | bytes = f.read()
        except OSError as e:
            raise InvalidArgument(f"{source}cannot read file: {e.strerror}")
    else:
        text = text_or_path
    if len(text) > MAX_YAML_BYTES:
        raise InvalidArgument(f"{source}the document has {len(text)} bytes; at most "
                              f"{MAX_YAML_BYTES} are read")
    try:
        data = yaml.load(text, Loader=_Loader)  # _Loader is a safe loader
    except RecursionError:  # the pure-Python loader, without libyaml's own limit
        raise InvalidArgument(f"{source}invalid YAML: nested too deep") from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = e.problem or e.context or "syntax error"
        context = f" ({e.context})" if e.context and e.problem else ""
        raise InvalidArgument(f"{source}invalid YAML{where}: {problem}{context}")
    except yaml.YAMLError as e:
        raise InvalidArgument(f"{source}invalid YAML: {e}")
    _check_expansion(data, source)
    return data


def _check_expansion(data: Any, source: str) -> None:
    """Refuse a document whose values, counted as often as aliases repeat
    them, exceed MAX_YAML_VALUES (every later walk would pay for each)."""
    budget = MAX_YAML_VALUES
    stack = [data]
    while stack:
        node = stack.pop()
        budget -= 1
        if budget < 0:
            raise InvalidArgument(f"{source}the document expands to more than "
                                  f"{MAX_YAML_VALUES} values (aliases repeat them)")
        if isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def load_document(source: str | bytes | os.PathLike[str] | Mapping[str, Any]) -> Any:
    """An already-parsed mapping as is; anything else through :func:`load_yaml`."""
    if isinstance(source, Mapping):
        return source
    return load_yaml(source)


# --------------------------------------------------------------------------- descriptors

_SCALAR, _MESSAGE, _REPEATED_SCALAR, _REPEATED_MESSAGE, _MAP = range(5)


class _Field(NamedTuple):
    desc: FieldDescriptor
    kind: int


class _MessageInfo(NamedTuple):
    fields: dict[str, _Field]  # normalised key -> field
    required: tuple[FieldDescriptor, ...]  # proto2 ``required`` fields


_INFO: dict[str, _MessageInfo] = {}


def _message_info(desc: Any) -> _MessageInfo:  # Descriptor (python or upb)
    info = _INFO.get(desc.full_name)
    if info is not None:
        return info
    fields: dict[str, _Field] = {}
    for f in desc.fields:
        key = normalise_key(f.name)
        if key in fields:
            raise Internal(f"fields {fields[key].desc.name!r} and {f.name!r} of "
                           f"{desc.full_name} have the same normalised key {key!r}")
        if f.message_type is not None and f.message_type.GetOptions().map_entry:
            kind = _MAP
        elif f.is_repeated:
            kind = _REPEATED_MESSAGE if f.message_type is not None else _REPEATED_SCALAR
        else:
            kind = _MESSAGE if f.message_type is not None else _SCALAR
        fields[key] = _Field(f, kind)
    info = _MessageInfo(fields, tuple(f for f in desc.fields if f.is_required))
    _INFO[desc.full_name] = info
    return info


_T = FieldDescriptor
_INT_TYPES: dict[int, tuple[int, int, str]] = {
    _T.TYPE_INT32: (-(2**31), 2**31 - 1, "a 32-bit integer"),
    _T.TYPE_SINT32: (-(2**31), 2**31 - 1, "a 32-bit integer"),
    _T.TYPE_SFIXED32: (-(2**31), 2**31 - 1, "a 32-bit integer"),
    _T.TYPE_UINT32: (0, 2**32 - 1, "an unsigned 32-bit integer"),
    _T.TYPE_FIXED32: (0, 2**32 - 1, "an unsigned 32-bit integer"),
    _T.TYPE_INT64: (-(2**63), 2**63 - 1, "a 64-bit integer"),
    _T.TYPE_SINT64: (-(2**63), 2**63 - 1, "a 64-bit integer"),
    _T.TYPE_SFIXED64: (-(2**63), 2**63 - 1, "a 64-bit integer"),
    _T.TYPE_UINT64: (0, 2**64 - 1, "an unsigned 64-bit integer"),
    _T.TYPE_FIXED64: (0, 2**64 - 1, "an unsigned 64-bit integer"),
}
_FLOAT_TYPES = frozenset((_T.TYPE_DOUBLE, _T.TYPE_FLOAT))
# Protobuf JSON spells these as strings; YAML has .nan/.inf natively.
_SPECIAL_FLOATS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
_INT_TEXT = re.compile(r"[-+]?[0-9]+")


def _describe(value: Any) -> str:
    """Name the YAML type of a value for an error message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int):
        return f"integer {value}"
    if isinstance(value, float):
        return f"number {value!r}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"string {shown!r}"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    return type(value).__name__


def _to_int(value: Any, path: str, field_type: int) -> int:
    lo, hi, label = _INT_TYPES[field_type]
    if isinstance(value, int) and not isinstance(value, bool):
        n = value
    elif isinstance(value, float) and value.is_integer():
        n = int(value)
    elif isinstance(value, str) and _INT_TEXT.fullmatch(value.strip()):
        n = int(value)  # protobuf JSON writes 64-bit integers as strings
    else:
        raise InvalidArgument(f"expected {label}, got {_describe(value)}", field=path or None)
    if n < lo:
        if lo == 0:
            raise InvalidArgument(f"must not be negative, got {n}", field=path or None)
        raise InvalidArgument(f"{n} is out of range for {label}", field=path or None)
    if n > hi:
        raise InvalidArgument(f"{n} is out of range for {label}", field=path or None)
    return n


def _to_enum(enum: Any, value: Any, path: str) -> int:  # EnumDescriptor
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        if value in enum.values_by_number:
            return value
    elif isinstance(value, str):
        found = enum.values_by_name.get(value)
        if found is None:
            wanted = value.strip().upper()
            found = next((v for v in enum.values if v.name.upper() == wanted), None)
        if found is not None:
            return int(found.number)
        if _INT_TEXT.fullmatch(value.strip()) and int(value) in enum.values_by_number:
            return int(value)
    allowed = ", ".join(f"{v.name} ({v.number})" for v in enum.values)
    raise InvalidArgument(f"unknown value {_describe(value)} for enum {enum.name}; "
                          f"allowed: {allowed}", field=path or None)


def _to_scalar(field: FieldDescriptor, value: Any, path: str) -> Any:
    t = field.type
    if value is None:
        raise InvalidArgument("null is not allowed here", field=path or None)
    if t in _INT_TYPES:
        return _to_int(value, path, t)
    if t in _FLOAT_TYPES:
        if isinstance(value, int | float) and not isinstance(value, bool):
            try:
                return float(value)
            except OverflowError:
                raise InvalidArgument(f"{value} is too large for a number", field=path or None)
        if isinstance(value, str) and value in _SPECIAL_FLOATS:
            return _SPECIAL_FLOATS[value]
        raise InvalidArgument(f"expected a number, got {_describe(value)}", field=path or None)
    if t == _T.TYPE_BOOL:
        if isinstance(value, bool):
            return value
        raise InvalidArgument(f"expected a boolean (true or false), got {_describe(value)}",
                              field=path or None)
    if t == _T.TYPE_STRING:
        if isinstance(value, str):
            return value
        # Go's yaml.v2 reads any scalar into a string field, so `value: 1` works there too.
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
        raise InvalidArgument(f"expected a string, got {_describe(value)}", field=path or None)
    if t == _T.TYPE_BYTES:
        if isinstance(value, bytes):
            return value
        if isinstance(value, str):
            return value.encode()  # text as written; YAML's !!binary gives real bytes
        raise InvalidArgument(f"expected a string or !!binary, got {_describe(value)}",
                              field=path or None)
    if t == _T.TYPE_ENUM:
        return _to_enum(field.enum_type, value, path)
    raise Internal(f"unsupported protobuf field type {t} for {field.full_name}")


def _map_entry_fields(field: FieldDescriptor) -> tuple[FieldDescriptor, FieldDescriptor]:
    """The key and value fields of a map field's entry message."""
    entry: Any = field.message_type
    return entry.fields_by_name["key"], entry.fields_by_name["value"]


def _enum_values(field: FieldDescriptor) -> Mapping[int, Any]:
    enum: Any = field.enum_type
    values: Mapping[int, Any] = enum.values_by_number
    return values


def _unknown_key_message(key: str, info: _MessageInfo, desc: Any) -> str:
    names = {k: f.desc.json_name for k, f in info.fields.items()}
    close = difflib.get_close_matches(normalise_key(key), list(names), n=1, cutoff=0.6)
    if close:
        return f"unknown key {key!r}; did you mean {names[close[0]]!r}?"
    known = ", ".join(sorted(names.values())) or "none"
    return f"unknown key {key!r} in {desc.name}; known keys: {known}"


# --------------------------------------------------------------------------- parsing


class _Parser:
    def __init__(self, legacy: Mapping[str, str]) -> None:
        self.legacy = legacy
        self.warnings: list[str] = []

    def fill(self, msg: Message, data: Any, path: str) -> None:
        desc = msg.DESCRIPTOR
        if not isinstance(data, Mapping):
            raise InvalidArgument(f"expected a mapping for {desc.name}, got {_describe(data)}",
                                  field=path or None)
        info = _message_info(desc)
        written: dict[str, str] = {}  # field name -> key as written
        oneofs: dict[str, str] = {}  # oneof name -> key as written
        for key, value in data.items():
            if not isinstance(key, str):
                raise InvalidArgument(f"key {key!r} must be a string",
                                      field=join_path(path, str(key)))
            sub = join_path(path, normalise_key(key))
            entry = info.fields.get(normalise_key(key))
            if entry is None:
                if sub in self.legacy:
                    self.warnings.append(f"{sub}: ignored key {key!r}: {self.legacy[sub]}")
                    continue
                raise InvalidArgument(_unknown_key_message(key, info, desc), field=sub)
            field = entry.desc
            if field.name in written:
                raise InvalidArgument(f"key {key!r} repeats {written[field.name]!r}", field=sub)
            written[field.name] = key
            if value is None:  # null means absent
                continue
            oneof = field.containing_oneof
            if oneof is not None:
                if oneof.name in oneofs:
                    raise InvalidArgument(f"{key!r} and {oneofs[oneof.name]!r} are "
                                          f"alternatives; give only one", field=sub)
                oneofs[oneof.name] = key
            self.set_field(msg, entry, value, sub)
        for field in info.required:
            if not msg.HasField(field.name):
                raise InvalidArgument(f"missing required key {field.json_name!r}",
                                      field=join_path(path, normalise_key(field.name)))

    def set_field(self, msg: Message, entry: _Field, value: Any, path: str) -> None:
        field, kind = entry
        if kind == _SCALAR:
            setattr(msg, field.name, _to_scalar(field, value, path))
        elif kind == _MESSAGE:
            sub = getattr(msg, field.name)
            sub.SetInParent()  # `{}` still marks the field present
            self.fill(sub, value, path)
        elif kind == _MAP:
            self.fill_map(getattr(msg, field.name), field, value, path)
        else:
            if not isinstance(value, list | tuple):
                raise InvalidArgument(f"expected a list, got {_describe(value)}", field=path)
            target = getattr(msg, field.name)
            if kind == _REPEATED_MESSAGE:
                for i, item in enumerate(value):
                    if item is None:
                        raise InvalidArgument("null is not allowed in a list",
                                              field=f"{path}[{i}]")
                    self.fill(target.add(), item, f"{path}[{i}]")
            else:
                target.extend([_to_scalar(field, item, f"{path}[{i}]")
                               for i, item in enumerate(value)])

    def fill_map(self, target: Any, field: FieldDescriptor, value: Any, path: str) -> None:
        if not isinstance(value, Mapping):
            raise InvalidArgument(f"expected a mapping, got {_describe(value)}", field=path)
        key_field, value_field = _map_entry_fields(field)
        for raw_key, item in value.items():
            key = self.map_key(key_field, raw_key, join_path(path, str(raw_key)))
            sub = join_path(path, str(key).lower() if isinstance(key, bool) else str(key))
            if key in target:
                raise InvalidArgument(f"key {raw_key!r} is given more than once", field=sub)
            if item is None:  # null means absent, as for fields
                continue
            if value_field.message_type is not None:
                self.fill(target[key], item, sub)  # target[key] creates the entry
            else:
                target[key] = _to_scalar(value_field, item, sub)

    @staticmethod
    def map_key(key_field: FieldDescriptor, raw: Any, path: str) -> Any:
        t = key_field.type
        if t in _INT_TYPES:
            return _to_int(raw, path, t)
        if t == _T.TYPE_BOOL:
            if isinstance(raw, bool):
                return raw
            if raw in ("true", "false"):
                return raw == "true"
            raise InvalidArgument(f"expected a boolean key, got {_describe(raw)}", field=path)
        if isinstance(raw, str):
            return raw
        if isinstance(raw, int) and not isinstance(raw, bool):
            return str(raw)
        raise InvalidArgument(f"expected a string key, got {_describe(raw)}", field=path)


def parse_message(
    data: Any,
    message_cls: type[M],
    *,
    path: str = "",
    legacy: Mapping[str, str] | None = None,
) -> tuple[M, list[str]]:
    """Build a ``message_cls`` from YAML/JSON-shaped ``data``.

    ``data`` must be a mapping. Keys match fields by :func:`normalise_key`;
    ``null`` anywhere means "absent" (in lists it is an error); enums take
    numbers or names (any case); integer fields take integral floats (``10.0``)
    and decimal strings but not ``1.5``; unsigned fields reject negatives;
    number fields take integers; string fields take numbers (as Go's yaml.v2
    does); bytes fields take text (UTF-8) or ``!!binary``. Maps take
    mappings, with integer keys as YAML integers or decimal strings. Proto2
    ``required`` fields must be present in every message that is given.

    ``path`` prefixes every reported path (for a message nested in a larger
    document). ``legacy`` maps normalised paths (``sla.minimuminstancecount``)
    to an explanation: an unknown key at such a path adds the warning
    ``"<path>: ignored key '<key>': <explanation>"`` instead of failing.

    Returns the message and the warnings, in document order. Raises
    :class:`InvalidArgument` at the first problem, with ``field`` set to the
    normalised path of the offending key (``None`` for the document itself).
    """
    parser = _Parser({normalise_key(k): v for k, v in (legacy or {}).items()})
    message = message_cls()
    try:
        parser.fill(message, data, path)
    except RecursionError:  # a recursive message (constraints) nested past Python's stack
        raise InvalidArgument("the document nests messages too deep", field=path or None) from None
    return message, parser.warnings


# --------------------------------------------------------------------------- output


def _plain(field: FieldDescriptor, value: Any) -> Any:
    if field.message_type is not None:
        return message_to_dict(value)
    if field.type == _T.TYPE_ENUM:
        enum_value = _enum_values(field).get(value)
        return enum_value.name if enum_value is not None else value
    if field.type == _T.TYPE_BYTES:
        try:
            return value.decode()
        except UnicodeDecodeError:
            return value
    return value


def message_to_dict(message: Message) -> dict[str, Any]:
    """The set fields of ``message`` as plain data, keyed by protobuf JSON names.

    Enums become names, integers stay integers (also 64-bit ones, unlike
    protobuf JSON), bytes become text when they are UTF-8. Fields at their
    default (proto3) or unset (proto2) are left out. The result is what
    :func:`parse_message` reads back into an equal message, and what
    ``yaml.safe_dump`` writes.
    """
    out: dict[str, Any] = {}
    for field, value in message.ListFields():
        info = _message_info(message.DESCRIPTOR).fields[normalise_key(field.name)]
        if info.kind == _MAP:
            _, value_field = _map_entry_fields(field)
            out[field.json_name] = {k: _plain(value_field, v) for k, v in sorted(value.items())}
        elif info.kind in (_REPEATED_SCALAR, _REPEATED_MESSAGE):
            out[field.json_name] = [_plain(field, v) for v in value]
        else:
            out[field.json_name] = _plain(field, value)
    return out
