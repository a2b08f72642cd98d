"""How the ``peloton`` command prints things: JSON, YAML, tables, times.

YAML and protobuf's JSON printer are imported by the functions that use
them: a command that prints a table needs neither.
"""

from __future__ import annotations

# Not typing's: the CLI's quick path (peloton.cli.quick) prints with this
# module, and importing typing (with the re and enum it imports) would add
# ~9 ms of cpu to its ~13. Mypy takes the name as typing's.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

    from google.protobuf.message import Message

__all__ = ["UNKNOWN_STATE", "job_status_text", "message_json", "message_yaml", "number",
           "short_time", "spans", "table", "task_message", "task_rows", "to_yaml",
           "to_yaml_flow"]

# The name of JobState 0 and TaskState 0, which plain data leaves out (a
# field at its default).
UNKNOWN_STATE = "UNKNOWN"


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


# --------------------------------------------------------------------------- plain data


def job_status_text(info: Mapping[str, Any]) -> str:
    """What ``job status`` prints of a ``JobInfo`` as plain data."""
    config, rt = info.get("config", {}), info.get("runtime", {})
    stats = {k: v for k, v in rt.get("taskStats", {}).items() if v}
    rows = [
        ("job", info.get("id", {}).get("value", "")),
        ("name", config.get("name", "")),
        ("state", rt.get("state", UNKNOWN_STATE)),
        ("goal state", rt.get("goalState", UNKNOWN_STATE)),
        ("created", short_time(rt.get("creationTime", ""))),
        ("started", short_time(rt.get("startTime", ""))),
        ("completed", short_time(rt.get("completionTime", ""))),
        ("instances", str(config.get("instanceCount", 0))),
        ("tasks", ", ".join(f"{k} {v}" for k, v in sorted(stats.items())) or "none"),
    ]
    return "\n".join(f"{k + ':':<12}{v}" for k, v in rows)


def task_rows(infos: Iterable[Mapping[str, Any]]) -> str:
    """The table of tasks (``TaskInfo`` as plain data) ``task list`` prints."""
    rows = []
    for t in infos:
        rt = t.get("runtime", {})
        rows.append((t.get("instanceId", 0), t.get("config", {}).get("name") or "-",
                     rt.get("state", UNKNOWN_STATE), rt.get("host") or "-",
                     short_time(rt.get("startTime", "")), task_message(rt)))
    return table(("INSTANCE", "NAME", "STATE", "HOST", "STARTED", "MESSAGE"), rows)


def task_message(rt: Mapping[str, Any]) -> str:
    """A task's message (else its reason), with its exit code if it has one."""
    message = rt.get("message") or rt.get("reason", "")
    code = rt.get("terminationStatus", {}).get("exitCode", 0)
    if code and str(code) not in message:
        message = f"{message} (exit {code})".strip()
    return str(message)
