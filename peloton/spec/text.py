"""Rules for the text a user sends: names are printable, values carry no NUL.

A name (of a job, a pool, a task, a port, a label key, an environment
variable) with a control character cannot be shown, typed or matched; a
NUL in anything that reaches ``exec`` (a command, its arguments, the
environment) makes the launch fail on the host, long after the job was
accepted. Both are refused at the edge, naming the field.
"""

from __future__ import annotations

import unicodedata

from peloton.core.errors import InvalidArgument

__all__ = ["check_name", "check_value"]


def _control(text: str) -> str | None:
    if text.isprintable():  # (no Cc among them: the usual name, in one C call)
        return None
    for ch in text:
        if unicodedata.category(ch) == "Cc":
            return ch
    return None


def check_name(text: str, field: str, what: str, *, max_chars: int = 1024) -> None:
    """``text`` names something: at most ``max_chars`` characters, none a
    control character (NUL, newline, escape, ...)."""
    if len(text) > max_chars:
        raise InvalidArgument(f"{what} has {len(text)} characters; at most {max_chars}",
                              field=field)
    bad = _control(text)
    if bad is not None:
        raise InvalidArgument(f"{what} {text[:60]!r} holds the control character {bad!r}; "
                              "names must be printable", field=field)


def check_value(text: str, field: str, what: str) -> None:
    """``text`` reaches ``exec`` or the environment: no NUL."""
    if "\0" in text:
        raise InvalidArgument(f"{what} holds a NUL character, which no process can be given",
                              field=field)
