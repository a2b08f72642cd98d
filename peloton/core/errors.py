"""The one exception tree of the project.

::

    PelotonError                      gRPC status
    ├── InvalidArgument               INVALID_ARGUMENT   bad input; names the field
    ├── NotFound                      NOT_FOUND
    ├── AlreadyExists                 ALREADY_EXISTS
    ├── FailedPrecondition            FAILED_PRECONDITION  valid input, wrong state
    ├── Aborted                       ABORTED            lost a race (stale epoch, version)
    │   └── VersionConflict           ABORTED            a write of a stale EntityVersion
    ├── Unavailable                   UNAVAILABLE        try again, maybe elsewhere
    │   └── NotLeader                 UNAVAILABLE        carries the leader's address
    ├── DeadlineExceeded              DEADLINE_EXCEEDED
    └── Internal                      INTERNAL           a bug; never expected

Library errors (grpclib, pysyncobj, sqlite3, cassandra) are translated into
this tree once, at the edge that calls the library. API handlers map it to
gRPC status codes (``peloton.rpc.errors``); clients map the codes back.
"""

from __future__ import annotations


class PelotonError(Exception):
    """Base of every error this project raises on purpose."""

    code = "INTERNAL"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        self.message = message
        self.field = field
        super().__init__(f"{field}: {message}" if field else message)


class InvalidArgument(PelotonError):
    """The request is wrong; ``field`` is the path of the offending input."""

    code = "INVALID_ARGUMENT"


class NotFound(PelotonError):
    code = "NOT_FOUND"


class AlreadyExists(PelotonError):
    code = "ALREADY_EXISTS"


class FailedPrecondition(PelotonError):
    code = "FAILED_PRECONDITION"


class Aborted(PelotonError):
    code = "ABORTED"


class VersionConflict(Aborted):
    """A write against a version of the entity that is no longer current
    (v1alpha's EntityVersion): the client reads again; never retried here."""


class Unavailable(PelotonError):
    code = "UNAVAILABLE"


class NotLeader(Unavailable):
    """This replica does not lead; ``leader`` is where to go, if known."""

    def __init__(self, message: str, *, leader: str | None = None) -> None:
        super().__init__(message)
        self.leader = leader


class DeadlineExceeded(PelotonError):
    code = "DEADLINE_EXCEEDED"


class ResourceExhausted(PelotonError):
    """A limit the request runs into (its size, say)."""

    code = "RESOURCE_EXHAUSTED"


class Unauthenticated(PelotonError):
    """No credentials, or wrong ones."""

    code = "UNAUTHENTICATED"


class PermissionDenied(PelotonError):
    """The caller's role does not accept the call."""

    code = "PERMISSION_DENIED"


class Unimplemented(PelotonError):
    code = "UNIMPLEMENTED"


class Internal(PelotonError):
    code = "INTERNAL"


BY_CODE: dict[str, type[PelotonError]] = {
    cls.code: cls
    for cls in (InvalidArgument, NotFound, AlreadyExists, FailedPrecondition, Aborted,
                Unavailable, DeadlineExceeded, ResourceExhausted, Unauthenticated,
                PermissionDenied, Unimplemented, Internal)
}
