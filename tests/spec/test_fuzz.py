"""Fuzzing the edge: whatever a user or an API client sends, the checks
answer InvalidArgument or accept it, and nothing they accept is invalid.

Messages are drawn from the protobuf descriptors themselves (every field
reachable from JobConfig and ResourcePoolConfig, with edge values: NaN,
infinities, 1e308, NUL and control characters, enum numbers no enum
defines, the largest integers), and YAML as text from YAML's own tokens.
A bounded slice runs in the suite; ``FUZZ_EXAMPLES=10000`` runs more.
"""

from __future__ import annotations

import math
import os
import unicodedata
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from peloton.api.v0.job import job_pb2
from peloton.api.v0.respool import respool_pb2
from peloton.core.errors import InvalidArgument
from peloton.spec.job import (
    MAX_DYNAMIC_PORTS,
    MAX_FD_LIMIT,
    MAX_KILL_GRACE_S,
    load_job_config,
    validate_job_config,
)
from peloton.spec.respool import MAX_QUANTITY, load_respool_config, validate_respool_config

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "300"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

_T = FieldDescriptor
_INTS = {_T.TYPE_INT32: (-(2**31), 2**31 - 1), _T.TYPE_SINT32: (-(2**31), 2**31 - 1),
         _T.TYPE_SFIXED32: (-(2**31), 2**31 - 1), _T.TYPE_INT64: (-(2**63), 2**63 - 1),
         _T.TYPE_SINT64: (-(2**63), 2**63 - 1), _T.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
         _T.TYPE_UINT32: (0, 2**32 - 1), _T.TYPE_FIXED32: (0, 2**32 - 1),
         _T.TYPE_UINT64: (0, 2**64 - 1), _T.TYPE_FIXED64: (0, 2**64 - 1)}
_FLOATS = st.one_of(st.sampled_from([0.0, 0.5, 1.0, 4.0, -1.0, math.nan, math.inf, -math.inf,
                                     1e308, 1e12, 1e13]),
                    st.floats(allow_nan=True, allow_infinity=True, width=32))
_TEXT = st.one_of(st.sampled_from(["", "a", "web", "/", "a/b", "a\0b", "x\n", "=", "A=B",
                                   "é", "  ", "p" * 300]),
                  st.text(max_size=12))


def _int(field: FieldDescriptor) -> st.SearchStrategy[int]:
    low, high = _INTS[field.type]
    edges = [v for v in (0, 1, 2, 3, 80, 65535, 65536, 100_001, MAX_KILL_GRACE_S + 1,
                         MAX_FD_LIMIT + 1, low, high) if low <= v <= high]
    return st.one_of(st.sampled_from(edges), st.integers(low, high))


def _enum(field: FieldDescriptor) -> st.SearchStrategy[int]:
    known = [v.number for v in field.enum_type.values]
    if field.enum_type.is_closed:  # proto2: an unknown number cannot even be set
        return st.sampled_from(known)
    return st.one_of(st.sampled_from(known), st.integers(-5, 200))


def _scalar(field: FieldDescriptor) -> st.SearchStrategy[Any]:
    if field.type in (_T.TYPE_DOUBLE, _T.TYPE_FLOAT):
        return _FLOATS
    if field.type in _INTS:
        return _int(field)
    if field.type == _T.TYPE_BOOL:
        return st.booleans()
    if field.type == _T.TYPE_ENUM:
        return _enum(field)
    if field.type == _T.TYPE_STRING:
        return _TEXT
    return st.binary(max_size=8)


@st.composite
def _message(draw: st.DrawFn, desc: Descriptor, depth: int = 0) -> dict[str, Any]:
    """A dict of field name -> value for some fields of ``desc``."""
    out: dict[str, Any] = {}
    fields = [f for f in desc.fields if depth < 4 or f.message_type is None]
    for field in draw(st.lists(st.sampled_from(fields), max_size=5, unique=True)
                      if fields else st.just([])):
        target = field.message_type
        if target is not None and target.GetOptions().map_entry:
            key_f, value_f = target.fields_by_name["key"], target.fields_by_name["value"]
            keys = st.integers(0, 5) if key_f.type in _INTS else st.text(max_size=4)
            values = (_message(value_f.message_type, depth + 1)
                      if value_f.message_type is not None else _scalar(value_f))
            out[field.name] = draw(st.dictionaries(keys, values, max_size=3))
        elif target is not None:
            one = _message(target, depth + 1)
            out[field.name] = draw(st.lists(one, max_size=3)) if field.is_repeated else draw(one)
        else:
            one = _scalar(field)
            out[field.name] = draw(st.lists(one, max_size=3)) if field.is_repeated else draw(one)
    return out


def _fill(message: Message, data: dict[str, Any]) -> None:
    desc = message.DESCRIPTOR
    for name, value in data.items():
        field = desc.fields_by_name[name]
        target = field.message_type
        try:
            if target is not None and target.GetOptions().map_entry:
                mapped = getattr(message, name)
                for k, v in value.items():
                    if isinstance(v, dict):
                        _fill(mapped[k], v)
                    else:
                        mapped[k] = v
            elif target is not None and field.is_repeated:
                for item in value:
                    _fill(getattr(message, name).add(), item)
            elif target is not None:
                _fill(getattr(message, name), value)
                getattr(message, name).SetInParent()
            elif field.is_repeated:
                getattr(message, name).extend(value)
            else:
                setattr(message, name, value)
        except (ValueError, TypeError):
            pass  # a value the field's type cannot hold (a float32 out of range): unset


def _job(data: dict[str, Any]) -> job_pb2.JobConfig:
    """A valid job with the drawn fields set over it (so that many pass the
    first checks and the later ones are reached)."""
    config = job_pb2.JobConfig(name="fuzz", instanceCount=2)
    config.defaultConfig.command.value = "true"
    config.defaultConfig.resource.cpuLimit = 1
    _fill(config, data)
    return config


def _printable(text: str) -> bool:
    return not any(unicodedata.category(ch) == "Cc" for ch in text)


def _finite_floats(message: Message) -> list[tuple[str, float]]:
    """Every float field set anywhere in ``message`` that is not finite or
    is beyond MAX_QUANTITY."""
    bad = []
    for field, value in message.ListFields():
        values = value if field.is_repeated else [value]
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            values = [v for v in value.values() if isinstance(v, Message)]
        for v in values:
            if isinstance(v, Message):
                bad += _finite_floats(v)
            elif isinstance(v, float) and (not math.isfinite(v) or abs(v) > MAX_QUANTITY):
                bad.append((field.full_name, v))
    return bad


def _enums_known(message: Message) -> bool:
    for field, value in message.ListFields():
        values = value if field.is_repeated else [value]
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            values = list(value.values())
        for v in values:
            if isinstance(v, Message):
                if not _enums_known(v):
                    return False
            elif field.enum_type is not None and v not in field.enum_type.values_by_number:
                return False
    return True


@FUZZ
@given(_message(job_pb2.JobConfig.DESCRIPTOR))
def test_a_drawn_job_config_is_refused_or_valid(data: dict[str, Any]) -> None:
    config = _job(data)
    try:
        validate_job_config(config, capabilities=frozenset())
    except InvalidArgument as error:
        assert error.message
        return
    # Accepted: nothing invalid in it.
    assert not _finite_floats(config), _finite_floats(config)
    assert _enums_known(config)
    assert _printable(config.name)
    for task in [config.defaultConfig, *config.instanceConfig.values()]:
        assert task.killGracePeriodSeconds <= MAX_KILL_GRACE_S
        assert task.resource.fdLimit <= MAX_FD_LIMIT
        names = [p.name for p in task.ports]
        assert len(set(names)) == len(names) and all(p.value <= 65535 for p in task.ports)
        assert sum(1 for p in task.ports if p.value == 0) <= MAX_DYNAMIC_PORTS
        assert "\0" not in task.command.value


@FUZZ
@given(_message(respool_pb2.ResourcePoolConfig.DESCRIPTOR))
def test_a_drawn_pool_config_is_refused_or_valid(data: dict[str, Any]) -> None:
    config = respool_pb2.ResourcePoolConfig(name="p")
    config.resources.add(kind="cpu", reservation=1, limit=4, share=1)
    _fill(config, data)
    try:
        validate_respool_config(config)
    except InvalidArgument as error:
        assert error.message
        return
    assert config.name and "/" not in config.name and _printable(config.name)
    assert not _finite_floats(config)
    assert _enums_known(config)
    for r in config.resources:
        assert 0 <= r.reservation <= r.limit


_YAML_TOKENS = st.sampled_from([
    "name", "instancecount", "defaultconfig", "command", "value", "resource", "cpulimit",
    "sla", "ports", "constraint", "type", "resources", "kind", "limit", "reservation", ":",
    ": ", "\n", "  ", "- ", "[", "]", "{", "}", ",", "'", '"', "&a ", "*a", "<<", "!!binary ",
    "!!python/object ", "1", "-1", ".nan", ".inf", "1e308", "0x10", "true", "null", "~", "#",
    "\t", "\0", "%YAML 1.1\n", "---\n", "...\n", "é", "|\n", ">\n", "?"])


@FUZZ
@given(st.lists(_YAML_TOKENS, max_size=40).map("".join))
def test_drawn_yaml_text_is_refused_or_parsed(text: str) -> None:
    for load in (load_job_config, load_respool_config):
        try:
            load(text)
        except InvalidArgument as error:
            assert error.message
