"""The names of Peloton's HTTP/JSON API beside its protobuf: the media
types a client asks for and the headers that go with them.

Shared by the server (``peloton.rpc.http_json``), the blocking client
(``peloton.rpc.http_client``) and the CLI's quick path
(``peloton.cli.quick``), which is why this module imports nothing.
"""

from __future__ import annotations

__all__ = ["PATH", "PLAIN", "PLAIN_JSON", "PROTO", "SPEC", "SPEC_READ", "WARNINGS"]

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
