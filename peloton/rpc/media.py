"""The names of Peloton's HTTP/JSON API beside its protobuf: the media
types a client asks for and the headers that go with them.

Shared by the server (``peloton.rpc.http_json``), the blocking client
(``peloton.rpc.http_client``) and the CLI's quick path
(``peloton.cli.quick``), which is why this module imports nothing.
"""

from __future__ import annotations

__all__ = ["PATH", "PLAIN", "PLAIN_JSON", "PROTO", "SPEC", "SPEC_READ", "TTL_MARGIN", "WARNINGS",
           "call_headers"]

# Where every procedure is called (YARPC's HTTP transport; the procedure is
# in the Rpc-Procedure header).
PATH = "/api/v1"
PROTO = "application/x-protobuf"
# The content type of answers as the CLI prints them, asked for with Accept.
PLAIN = "application/vnd.peloton.plain+yaml"
PLAIN_JSON = "application/vnd.peloton.plain+json"
# The content type of a request that is a spec file (YAML) as a user wrote it.
SPEC = "application/vnd.peloton.spec+yaml"
# The warnings of the spec a SPEC request sent, as a JSON list of strings
# (JSON's ASCII escapes keep any text a header value).
WARNINGS = "Peloton-Warnings"
# Set on every answer to a SPEC request: a server without SPEC_READ took the
# spec for protobuf JSON, and a client makes the call another way.
SPEC_READ = "Peloton-Spec-Read"
# How much longer than the client the server lets a call run: the client's
# own timeout speaks first, in the gRPC client's words.
TTL_MARGIN = 1.0


def call_headers(service: str, method: str, accept: str, *, timeout: float,
                 body_type: str = "") -> dict[str, str]:
    """The YARPC headers of a call of ``service``'s ``method`` whose answer
    is ``accept``: a JSON request when that is :data:`PLAIN` or
    :data:`PLAIN_JSON`, else protobuf bytes, unless ``body_type`` says
    what the body is; the call may run ``timeout`` seconds (and the
    server lets it run :data:`TTL_MARGIN` more)."""
    plain = accept.startswith((PLAIN, PLAIN_JSON))
    return {"Rpc-Procedure": f"{service}::{method}", "Rpc-Encoding": "json" if plain else "proto",
            "Content-Type": body_type or ("application/json" if plain else PROTO),
            "Accept": accept, "Rpc-Service": "peloton-jobmgr", "Rpc-Caller": "peloton-cli",
            "Context-TTL-MS": str(int((timeout + TTL_MARGIN) * 1000))}
