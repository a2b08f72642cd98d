"""YARPC's HTTP transport, as both ends of Peloton's HTTP/JSON API see it:
its error codes, the HTTP status of each, and an error's text.

An error travels as ``Rpc-Status: <code>`` with its text as the body
(protobuf encoding) or as ``{"code": ..., "message": ...}`` (JSON). The
text is the gRPC status message's (``field: why``; a ``NotLeader`` ends
with ``; leader=<host:port>``), so a client reads the same exception from
either transport. Imports neither trio nor grpclib (``peloton.rpc.http_client``
runs without them).
"""

from __future__ import annotations

import re

from peloton.core.errors import BY_CODE, Internal, NotLeader, PelotonError, Unavailable

__all__ = ["CODES", "error_text", "from_status"]

# The exception tree's codes: YARPC's name and the HTTP status its transport gives each.
CODES: dict[str, tuple[str, int]] = {
    "INVALID_ARGUMENT": ("invalid-argument", 400),
    "NOT_FOUND": ("not-found", 404),
    "ALREADY_EXISTS": ("already-exists", 409),
    "FAILED_PRECONDITION": ("failed-precondition", 400),
    "ABORTED": ("aborted", 409),
    "UNAVAILABLE": ("unavailable", 503),
    "DEADLINE_EXCEEDED": ("deadline-exceeded", 504),
    "RESOURCE_EXHAUSTED": ("resource-exhausted", 429),
    "UNIMPLEMENTED": ("unimplemented", 501),
    "INTERNAL": ("internal", 500),
    "UNAUTHENTICATED": ("unauthenticated", 401),
    "PERMISSION_DENIED": ("permission-denied", 403),
}
_BY_NAME = {name: code for code, (name, _) in CODES.items()}
_LEADER = re.compile(r"leader=(\S+)$")


def error_text(error: PelotonError) -> str:
    """What an error's answer says: as its gRPC status message."""
    message = error.message if not error.field else f"{error.field}: {error.message}"
    if isinstance(error, NotLeader):
        message = f"{message}; leader={error.leader or ''}"
    return message


def from_status(name: str, message: str) -> PelotonError:
    """The exception an answer with ``Rpc-Status: name`` and text ``message``
    stands for (as ``peloton.rpc.errors.from_grpc`` reads a gRPC status)."""
    code = _BY_NAME.get(name.strip().lower(), "INTERNAL")
    message = message or code
    if code == "UNAVAILABLE":
        match = _LEADER.search(message)
        if match is not None:
            return NotLeader(message[: match.start()].rstrip("; "), leader=match.group(1) or None)
        return Unavailable(message)
    return BY_CODE.get(code, Internal)(message)
