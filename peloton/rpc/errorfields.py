"""Errors in a response's ``error`` field, as Peloton's v0 handlers answer them.

Upstream Peloton's v0 services answer most failures with an OK status and
the failure in the response: ``CreateResponse.error.alreadyExists``,
``GetResponse.error.notFound``, task ``GetResponse.outOfRange``, and so on.
Its clients read those fields and never see a gRPC error for them. So a
handler's :class:`PelotonError` that its response can express goes back in
that field (:func:`to_response`), and only the rest (UNAVAILABLE, a deadline,
an internal error) as a gRPC status. Our own clients turn such a field back
into the same exception (:func:`from_response`), so callers see one kind of
failure whichever way it travelled.

Which field holds which error is read from the response's descriptor, by the
field names upstream uses; :data:`KINDS` lists them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from google.protobuf.message import Message

from peloton.core.errors import (
    AlreadyExists,
    FailedPrecondition,
    Internal,
    InvalidArgument,
    NotFound,
    PelotonError,
)

__all__ = ["KINDS", "InstanceOutOfRange", "from_response", "to_response"]


class InstanceOutOfRange(InvalidArgument):
    """An instance id at or past the job's instance count."""

    def __init__(self, job_id: str, instance_count: int, instance: int) -> None:
        super().__init__(f"job {job_id} has {instance_count} instances; {instance} is out "
                         "of range", field="instanceId")
        self.job_id, self.instance_count = job_id, instance_count


def _field_is(*names: str) -> Callable[[PelotonError], bool]:
    return lambda e: (e.field or "").split(".")[-1].lower() in names


# Upstream's error field names, the exception each stands for, and which
# instances of it (in order: the first field a response has that fits wins).
KINDS: tuple[tuple[str, type[PelotonError], Callable[[PelotonError], bool]], ...] = (
    ("alreadyExists", AlreadyExists, lambda e: True),
    ("notFound", NotFound, lambda e: True),
    ("jobNotFound", NotFound, lambda e: True),
    ("outOfRange", InstanceOutOfRange, lambda e: True),
    ("invalidJobId", InvalidArgument, _field_is("id", "jobid")),
    ("invalidPath", InvalidArgument, _field_is("path")),
    ("invalidRespool", InvalidArgument, _field_is("respool", "respoolid")),
    ("invalidConfig", InvalidArgument, lambda e: True),
    ("invalidResourcePoolConfig", InvalidArgument, lambda e: True),
    ("isNotLeaf", FailedPrecondition, lambda e: "not a leaf" in e.message),
    ("isBusy", FailedPrecondition, lambda e: "busy" in e.message),
    ("notRunning", FailedPrecondition, lambda e: True),
)
_CLASS_OF = {name: cls for name, cls, _ in KINDS}


@functools.cache
def _holder_field(descriptor: Any) -> str:
    """Where a response type keeps its errors: "error" (its ``error``
    message), or "" (itself: task Get, List and Restart have ``notFound``
    at the top). Asked once a type."""
    field = descriptor.fields_by_name.get("error")
    return "error" if field is not None and field.message_type is not None else ""


def to_response(error: PelotonError, response_type: type[Message],
                request: Message) -> Message | None:
    """``error`` in a ``response_type``'s error field, or None if it has none for it."""
    response = response_type()
    where = _holder_field(response.DESCRIPTOR)
    holder = getattr(response, where) if where else response
    fields = holder.DESCRIPTOR.fields_by_name
    for name, cls, fits in KINDS:
        if name in fields and isinstance(error, cls) and fits(error):
            _fill(getattr(holder, name), error, request)
            return response
    return None


def _fill(detail: Message, error: PelotonError, request: Message) -> None:
    detail.SetInParent()
    fields = detail.DESCRIPTOR.fields_by_name
    text = error.message if not error.field else f"{error.field}: {error.message}"
    if "message" in fields:
        detail.message = text  # type: ignore[attr-defined]
    asked = request.DESCRIPTOR.fields_by_name
    for mine, theirs in (("id", "id"), ("id", "jobId"), ("jobId", "jobId"), ("jobId", "id"),
                         ("path", "path"), ("respoolID", "respoolID")):
        if (mine in fields and theirs in asked and fields[mine].message_type is not None
                and fields[mine].message_type is asked[theirs].message_type):
            getattr(detail, mine).CopyFrom(getattr(request, theirs))
            break
    if isinstance(error, InstanceOutOfRange) and "instanceCount" in fields:
        detail.instanceCount = error.instance_count  # type: ignore[attr-defined]


def from_response(response: Any) -> PelotonError | None:
    """The exception a public response's error field holds, or None."""
    if not isinstance(response, Message):
        return None
    descriptor = response.DESCRIPTOR
    if not descriptor.full_name.startswith("peloton.api."):
        return None
    where = _holder_field(descriptor)
    if where and not response.HasField(where):
        return None  # (most answers: a client's every call asks)
    holder = getattr(response, where) if where else response
    for field, detail in holder.ListFields():
        if field.message_type is None or field.name not in _ERROR_FIELDS:
            continue
        cls = _CLASS_OF.get(field.name, Internal)
        text = str(getattr(detail, "message", ""))
        if cls is InstanceOutOfRange:
            return InvalidArgument(f"job {detail.jobId.value} has {detail.instanceCount} "
                                   "instances; the instance is out of range",
                                   field="instanceId")
        text = text or f"{field.name} {detail}".strip()
        # "field: why", as _fill wrote it, gives the field back.
        named, sep, why = text.partition(": ")
        if sep and issubclass(cls, InvalidArgument) and _FIELD_NAME.fullmatch(named):
            return cls(why, field=named)
        return cls(text)
    return None


_FIELD_NAME = re.compile(r"[A-Za-z_][\w.\[\]]*")


# Every field name upstream's responses use for an error (the ones without
# an exception of their own come back as Internal: a failure we never send).
_ERROR_FIELDS = frozenset(_CLASS_OF) | {"notDeleted", "failure", "updateError", "err",
                                        "getRuntimeFail"}
