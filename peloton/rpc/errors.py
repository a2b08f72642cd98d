"""Map the exception tree to gRPC status codes and back.

A ``NotLeader`` travels as UNAVAILABLE whose message ends with
``leader=<host:port>`` so any gRPC client can read the hint.
"""

from __future__ import annotations

import re

from grpclib.const import Status
from grpclib.exceptions import GRPCError

from peloton.core.errors import BY_CODE, Internal, NotLeader, PelotonError, Unavailable

_LEADER = re.compile(r"leader=(\S+)$")


def to_grpc(error: PelotonError) -> GRPCError:
    message = error.message if not error.field else f"{error.field}: {error.message}"
    if isinstance(error, NotLeader):
        message = f"{message}; leader={error.leader or ''}"
    return GRPCError(Status[error.code], message)


def from_grpc(error: GRPCError) -> PelotonError:
    message = error.message or error.status.name
    if error.status is Status.UNAVAILABLE:
        match = _LEADER.search(message)
        if match is not None:
            return NotLeader(message[: match.start()].rstrip("; "), leader=match.group(1) or None)
        return Unavailable(message)
    cls = BY_CODE.get(error.status.name, Internal)
    return cls(message)
