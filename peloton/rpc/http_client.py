"""Peloton's HTTP/JSON API from a blocking client, on sockets alone
(``peloton.rpc.http1``): no trio, asyncio, grpclib or ``http.client``.

The ``peloton`` command's quick commands (``job get``, ``job status``,
``task list``, ``job create``) use it when the cluster file gives the
jobmgrs ``http:`` addresses, so a new process answers without importing
and starting the gRPC machinery. :class:`HttpClient` calls the unary
methods of the public services the way ``peloton.rpc.http_json`` serves
them: protobuf bytes both ways (YARPC's ``Rpc-Encoding: proto``), the full
procedure name (``peloton.api.v0.job.JobManager::Get``), ``Context-TTL-MS``,
the caller's credentials as headers (``Authorization: Basic ...``), HTTPS
with ``ssl_context``. Each jobmgr is reached over one keep-alive connection.

Its answers and failures are the gRPC client's (``peloton.client``):

- a failure in the response's error field (``GetResponse.error.notFound``)
  or an ``Rpc-Status`` error comes out as the same ``PelotonError``, with
  the same text (``peloton.rpc.errorfields``, ``peloton.rpc.yarpc``);
- UNAVAILABLE moves on to the next jobmgr, then tries them again with a
  backoff (50 ms doubling to 1 s) until ``deadline``; a ``NotLeader``
  hint is followed. A jobmgr forwards a write to its shard's owner itself,
  so no other redirect reaches a client;
- an attempt longer than ``timeout`` is DeadlineExceeded (``Get to
  <address> took longer than 20s``) and a jobmgr that stops answering is
  Unavailable (``cannot reach <address>: ...``), named by its gRPC address.

:meth:`HttpClient.call_text` makes a call without protobuf: a JSON
request, and the answer as the YAML ``peloton`` prints of it
(``peloton.rpc.http_json.PLAIN``), for a command that only prints it
(``peloton job get``); :meth:`HttpClient.call_plain` has it as JSON, and
:meth:`HttpClient.call_spec` sends a spec file as it is for the jobmgr to
read (``peloton job create``; ``peloton.rpc.http_json.SPEC``).

Two differences are on purpose, both :class:`NotOverHttp`, after which
the caller makes the call over gRPC instead: until some jobmgr has
answered, a round of them that cannot be reached over HTTP raises it at
once rather than waiting (gRPC then says the cluster cannot be reached in
its usual words, after its usual wait); and a request larger than
``max_request_bytes`` (the servers' ``rpc.max_message_bytes``) is not sent
(gRPC's refusal names its size and the setting). A request may have
reached a jobmgr whose answer was lost, so only a call that is safe to
repeat may be made again that way (a create with its id chosen before its
first send is).

Blocking (``time.sleep`` between retries; ``clock`` and ``sleep`` can be
given): for a command's one thread, never inside trio.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from peloton.core.errors import (
    DeadlineExceeded,
    Internal,
    NotLeader,
    PelotonError,
    ResourceExhausted,
    Unavailable,
    Unimplemented,
)
from peloton.rpc.http1 import BadResponse, Connection, Response
from peloton.rpc.media import (
    PATH,
    PLAIN,
    PLAIN_JSON,
    PROTO,
    SPEC,
    SPEC_READ,
    WARNINGS,
    call_headers,
)
from peloton.rpc.yarpc import from_status

if TYPE_CHECKING:
    import ssl

    from google.protobuf.message import Message

__all__ = ["HttpClient", "NotOverHttp", "Target", "is_transport_error"]

M = TypeVar("M", bound="Message")
R = TypeVar("R")



class Target(NamedTuple):
    """A jobmgr: its gRPC address (what errors name it by) and its HTTP/JSON one."""

    grpc: str
    http: str


class NotOverHttp(Exception):
    """The call was not answered over HTTP and may be made over gRPC: no
    jobmgr has answered yet and none of a round could be reached, or the
    request is too large (``cause`` says which)."""

    def __init__(self, cause: PelotonError) -> None:
        super().__init__(str(cause))
        self.cause = cause


def is_transport_error(error: PelotonError) -> bool:
    """Raised by the transport (nothing answered), not sent by a server;
    the same test as the gRPC client's."""
    if isinstance(error, Unavailable):
        return error.message.startswith("cannot reach ")
    if isinstance(error, DeadlineExceeded):
        return "took longer than" in error.message
    return False


def _split(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    return host.strip("[]"), int(port)


class HttpClient:
    """Calls to the jobmgrs at ``targets``, over their HTTP/JSON API.

    ``timeout`` bounds one attempt; ``deadline`` (default: ``timeout``)
    bounds the retries of UNAVAILABLE; ``connect_deadline`` bounds a
    connection's opening while no jobmgr has answered. ``headers`` go with
    every call (``Credentials.metadata()``). Call :meth:`close` when done.
    """

    def __init__(self, targets: Sequence[Target], *, timeout: float = 20.0,
                 deadline: float | None = None, connect_deadline: float = 3.0,
                 max_request_bytes: int | None = None,
                 ssl_context: ssl.SSLContext | None = None,
                 headers: Sequence[tuple[str, str]] = (),
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if not targets:
            raise ValueError("no HTTP/JSON addresses to call")
        self.targets = list(targets)
        self.timeout = timeout
        self.deadline = timeout if deadline is None else deadline
        self.connect_deadline = min(connect_deadline, timeout)
        self.max_request_bytes = max_request_bytes
        self.ssl_context = ssl_context
        self.headers = list(headers)
        self.answered = False  # has any jobmgr answered (anything) yet?
        self._clock, self._sleep = clock, sleep
        self._preferred = self.targets[0]
        self._connections: dict[str, Connection] = {}

    def close(self) -> None:
        for connection in self._connections.values():
            connection.close()
        self._connections.clear()

    def call(self, service: str, method: str, request: Message, response_type: type[M]) -> M:
        """``service``'s ``method`` (``"peloton.api.v0.job.JobManager"``, ``"Get"``)
        with ``request``; its ``response_type`` answer, or the PelotonError
        it stands for. NotOverHttp: see the module docstring."""
        from google.protobuf.message import DecodeError

        from peloton.rpc.errorfields import from_response

        def decode(target: Target, answer: Response) -> M:
            try:
                response = response_type.FromString(answer.body)
            except DecodeError as error:
                raise Internal(f"{method} from {target.grpc}: the answer is not a "
                               f"{response_type.DESCRIPTOR.full_name}: {error}") from None
            answered = from_response(response)
            if answered is not None:
                raise answered
            return response

        return self._call(service, method, request.SerializeToString(), PROTO, decode)

    def call_text(self, service: str, method: str, request: dict[str, Any], *,
                  field: str = "") -> str:
        """:meth:`call` without protobuf: ``request`` as protobuf JSON, the
        answer as the YAML ``peloton`` prints of it (of its top-level
        ``field`` only, if given; see ``peloton.rpc.http_json.PLAIN``), a
        failure in its error field raised as :meth:`call` raises it."""
        def decode(target: Target, answer: Response) -> str:
            try:
                return answer.body.decode()
            except UnicodeDecodeError as error:
                raise Internal(f"{method} from {target.grpc}: the answer is not "
                               f"UTF-8: {error}") from None

        return self._call_plain(service, method, request, PLAIN, field, decode)

    def call_plain(self, service: str, method: str, request: dict[str, Any], *,
                   field: str = "") -> dict[str, Any]:
        """:meth:`call_text`, the answer as plain data
        (``peloton.rpc.http_json.PLAIN_JSON``: map keys are strings)."""
        def decode(target: Target, answer: Response) -> dict[str, Any]:
            return _json_object(method, target, answer.body)

        return self._call_plain(service, method, request, PLAIN_JSON, field, decode)

    def call_spec(self, service: str, method: str, spec: str, headers: dict[str, str], *,
                  warn: Callable[[list[str]], None]) -> dict[str, Any]:
        """``method`` with a spec file's text as it is
        (``peloton.rpc.http_json.SPEC``; ``headers`` say the rest, as
        ``peloton.jobmgr.specs`` names them): the answer as plain data.
        ``warn`` gets the spec's warnings from each answer that has them,
        a failure's included. NotOverHttp when the server does not read
        specs (a jobmgr from before they were sent so)."""
        def decode(target: Target, answer: Response) -> dict[str, Any]:
            return _json_object(method, target, answer.body)

        def inspect(target: Target, answer: Response) -> None:
            if not answer.header(SPEC_READ):
                # A jobmgr from before spec files were sent as they are
                # takes the body for protobuf JSON: not an answer to it.
                raise NotOverHttp(Unimplemented(f"{target.grpc} does not read {SPEC}"))
            warnings = _warnings(method, target, answer)
            if warnings:
                warn(warnings)

        return self._call(service, method, spec.encode(), PLAIN_JSON, decode,
                          body_type=SPEC, extra=headers, inspect=inspect)

    def _call_plain(self, service: str, method: str, request: dict[str, Any], media: str,
                    field: str, decode: Callable[[Target, Response], R]) -> R:
        """A JSON request, its answer as ``media`` (of one field, if given)."""
        accept = f"{media}; field={field}" if field else media
        return self._call(service, method, json.dumps(request).encode(), accept, decode)

    def _call(self, service: str, method: str, body: bytes, accept: str,
              decode: Callable[[Target, Response], R], *, body_type: str = "",
              extra: dict[str, str] | None = None,
              inspect: Callable[[Target, Response], None] | None = None) -> R:
        size = len(body)
        if self.max_request_bytes is not None and size > self.max_request_bytes:
            raise NotOverHttp(ResourceExhausted(
                f"{method}: the request has {size} bytes, more than the "
                f"{self.max_request_bytes} the servers take"))
        start = self._clock()
        while True:
            first = not self.answered
            try:
                return self._round_robin(
                    method, lambda target: decode(target, self._once(
                        target, service, method, body, accept, body_type, extra, inspect)),
                    max(0.0, self.deadline - (self._clock() - start)))
            except PelotonError as error:
                # A server asks to retry before any other has answered: now
                # the call gets its whole deadline (as the gRPC client does).
                if first and isinstance(error, Unavailable) and not is_transport_error(error) \
                        and self._clock() - start < self.deadline:
                    continue
                raise

    def _round_robin(self, method: str, attempt: Callable[[Target], R], window: float) -> R:
        """As ``peloton.rpc.ServiceClient.call``: ``attempt`` at the
        preferred jobmgr, then the others; after a round of UNAVAILABLE,
        again with a backoff until ``window`` seconds have passed."""
        give_up = self._clock() + window
        delay = 0.05
        last: PelotonError | None = None
        target = self._preferred
        tried: set[Target] = set()
        while True:
            try:
                response = attempt(target)
                self._preferred = target
                return response
            except NotLeader as error:
                last = error
                tried.add(target)
                hinted = next((t for t in self.targets if t.grpc == error.leader), None)
                if hinted is not None and hinted != target:
                    target = hinted
                    continue
            except (Unavailable, DeadlineExceeded) as error:
                # Until a jobmgr has answered over HTTP, one it cannot reach
                # may not serve HTTP at all: the next one, then gRPC.
                unproven = not self.answered and is_transport_error(error)
                if isinstance(error, DeadlineExceeded) and not unproven:
                    raise
                last = error
                tried.add(target)
                if unproven and all(t in tried for t in self.targets):
                    raise NotOverHttp(error) from None
            untried = [t for t in self.targets if t not in tried]
            if untried:
                target = untried[0]
                continue
            if self._clock() + delay > give_up:
                assert last is not None
                raise last
            self._sleep(delay)
            delay = min(delay * 2, 1.0)
            tried.clear()
            target = self.targets[(self.targets.index(target) + 1) % len(self.targets)]

    def _connection(self, target: Target) -> Connection:
        """The open connection to ``target`` (opened now if none)."""
        connection = self._connections.get(target.http)
        if connection is not None and connection.sock is not None:
            return connection
        host, port = _split(target.http)
        opening = self.timeout if self.answered else self.connect_deadline
        connection = Connection(host, port, timeout=opening, ssl_context=self.ssl_context)
        self._connections[target.http] = connection
        try:
            connection.connect()
        except OSError as error:
            self._drop(target)
            raise Unavailable(f"cannot reach {target.grpc}: {error}") from None
        assert connection.sock is not None
        connection.sock.settimeout(self.timeout)
        return connection

    def _drop(self, target: Target) -> None:
        connection = self._connections.pop(target.http, None)
        if connection is not None:
            connection.close()

    def _once(self, target: Target, service: str, method: str, body: bytes,
              accept: str, body_type: str = "", extra: dict[str, str] | None = None,
              inspect: Callable[[Target, Response], None] | None = None) -> Response:
        """One attempt at one jobmgr: the answer, of type ``accept`` (a
        JSON request when it is :data:`PLAIN` or :data:`PLAIN_JSON`, else
        protobuf bytes, unless ``body_type`` says what the body is), shown
        to ``inspect`` first, whatever it says; every failure comes out as
        a PelotonError."""
        connection = self._connection(target)
        headers = call_headers(service, method, accept, timeout=self.timeout,
                               body_type=body_type)
        headers.update(extra or {})
        headers.update(self.headers)
        try:
            answer = connection.request("POST", PATH, body, headers)
        except TimeoutError:
            self._drop(target)
            raise DeadlineExceeded(f"{method} to {target.grpc} took longer than "
                                   f"{self.timeout:g}s") from None
        except (OSError, BadResponse) as error:
            self._drop(target)
            raise Unavailable(f"cannot reach {target.grpc}: {error or type(error).__name__}"
                              ) from None
        if answer.will_close:
            self._drop(target)
        data = answer.body
        status = answer.header("Rpc-Status")
        content_type = answer.header("Content-Type") or ""
        if inspect is not None:
            inspect(target, answer)
        if status:
            self.answered = True
            text = data.decode("utf-8", "replace")
            if "json" in content_type:
                try:
                    text = str(json.loads(text).get("message", text))
                except (ValueError, AttributeError):
                    pass
            raise from_status(status, text)
        if answer.status != 200 or not content_type.startswith(accept.split(";")[0]):
            self._drop(target)
            raise Unavailable(f"cannot reach {target.grpc}: {target.http} answered HTTP "
                              f"{answer.status} ({content_type or 'no content type'}), not "
                              "Peloton's HTTP/JSON API")
        self.answered = True
        return answer


def _json_object(method: str, target: Target, body: bytes) -> dict[str, Any]:
    try:
        answer = json.loads(body)
        if not isinstance(answer, dict):
            raise ValueError("not an object")
    except ValueError as error:
        raise Internal(f"{method} from {target.grpc}: the answer is not "
                       f"JSON: {error}") from None
    return answer


def _warnings(method: str, target: Target, answer: Response) -> list[str]:
    """The spec's warnings a SPEC answer carries (a JSON list of strings)."""
    text = answer.header(WARNINGS) or "[]"
    try:
        warnings = json.loads(text)
        if not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings):
            raise ValueError("not a list of strings")
    except ValueError as error:
        raise Internal(f"{method} from {target.grpc}: {WARNINGS} is not a JSON list of "
                       f"strings: {error}") from None
    return warnings
