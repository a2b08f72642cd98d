"""How the ``peloton`` command prints things: JSON, YAML, tables, times.

YAML and protobuf's JSON printer are imported by the functions that use
them: a command that prints a table needs neither.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from google.protobuf.message import Message

__all__ = ["message_json", "message_yaml", "number", "short_time", "spans", "table", "to_yaml",
           "to_yaml_flow"]


def message_json(message: Message) -> str:
    """Protobuf JSON with camelCase names and enum names (``"state": "SUCCEEDED"``);
    fields at their default are left out."""
    from google.protobuf import json_format
    return json_format.MessageToJson(message, indent=2, preserving_proto_field_name=False)


def to_yaml(data: Any) -> str:
    import yaml
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=False, allow_unicode=True)


def to_yaml_flow(data: Any) -> str:
    """YAML with the innermost mappings and lists on one line each."""
    import yaml
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=None,
                          allow_unicode=True).rstrip("\n")


def message_yaml(message: Message) -> str:
    """The set fields of ``message`` as YAML (enum names, integers as integers)."""
    from peloton.spec.yamlproto import message_to_dict
    return to_yaml(message_to_dict(message)).rstrip("\n")


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """Left-aligned columns separated by two spaces; the last column is not padded."""
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = []
    for row in cells:
        padded = [c.ljust(widths[i]) if i < len(row) - 1 else c for i, c in enumerate(row)]
        lines.append("  ".join(padded).rstrip())
    return "\n".join(lines)


def short_time(value: str) -> str:
    """An RFC 3339 time as ``YYYY-MM-DD HH:MM:SS`` in local time; ``-`` when empty."""
    if not value:
        return "-"
    import datetime  # (here: only the commands that print times need it)
    try:
        when = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return value
    if when.tzinfo is not None:
        when = when.astimezone()
    return when.strftime("%Y-%m-%d %H:%M:%S")


def spans(numbers: Iterable[int]) -> str:
    """``[0, 1, 2, 5, 7, 8]`` -> ``"0-2, 5, 7-8"``; ``"none"`` when empty."""
    ordered = sorted(set(numbers))
    if not ordered:
        return "none"
    parts = []
    start = prev = ordered[0]
    for n in [*ordered[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return ", ".join(parts)


def number(value: float) -> str:
    return f"{value:g}"
