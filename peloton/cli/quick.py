"""The quickest answer to the commands typed most, as they are typed most:
``job create POOL FILE``, ``job get ID``, ``job status ID`` and ``task
list ID``, against the running local cluster.

A ``peloton`` process is mostly its start: the interpreter, then what it
imports. The whole command (``peloton.cli.run``) needs argparse, and with
it ``re`` and ``enum``; its HTTP client ``socket``, ``json`` and
``typing`` (each of which imports ``re`` or ``enum`` too) and ``pathlib``:
~19 ms of cpu of a ``job create``'s ~45 here, against ~6 for the bare
interpreter. This module imports none of them (only ``_socket`` and
``_json``, the C halves of ``socket`` and ``json``, and the modules the
interpreter has loaded anyway), and a command it answers costs ~13-15.

It takes a command only when all of these hold, and otherwise leaves it
to the whole command, which is then as if this module did not exist:

- the words are exactly one of the four shapes above: no option, no
  ``--help``, a job id that is a UUID, a pool path and a file name that
  need no quoting in a header;
- the cluster is the local one its state file names (no
  ``PELOTON_CLUSTER``), and the state file says its jobmgrs serve
  HTTP/JSON and that a client needs no TLS or user (nor is one set by
  ``PELOTON_USER``, ``PELOTON_PASSWORD`` or ``PELOTON_CA``);
- ``_json`` exists (CPython's).

It makes the whole command's request (``peloton.cli.plain`` over
``peloton.rpc.http_client``), by the same pieces (``peloton.rpc.media``'s
headers, a ``peloton.rpc.http1`` connection over a socket of
``_socket``'s), to the first jobmgr the state file names, and prints only a clean answer: HTTP 200 of
the media type it asked for. Anything else (a refusal, an error, a jobmgr
that cannot be reached or does not answer within ``--timeout``'s default)
is :class:`Declined`: the whole command then makes the call again, with
its retries, other jobmgrs and gRPC, and says what it always says. A
create declined after it was sent carries its job id, so the whole
command sends the same create (a second send of one create is taken as
its success, as ``peloton.cli.plain.created_once`` takes it).
"""

from __future__ import annotations

import os
import sys

from peloton.core.jobid import is_job_id, new_job_id
from peloton.rpc.http1 import BadResponse, Connection, Response
from peloton.rpc.media import PATH, PLAIN, PLAIN_JSON, SPEC, SPEC_READ, WARNINGS, call_headers

TYPE_CHECKING = False  # not typing's (see peloton.cli.output)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import IO, Any

__all__ = ["Declined", "reader_gone", "run", "state_file"]

JOB_MANAGER = "peloton.api.v0.job.JobManager"
TASK_MANAGER = "peloton.api.v0.task.TaskManager"
# The whole command's defaults (peloton.cli.common.add_globals, HttpClient).
TIMEOUT = 20.0
CONNECT_TIMEOUT = 3.0
# What a header carries unquoted (urllib.parse.quote's safe characters and
# "/"); a pool path or file name with anything else goes the whole way.
_PLAIN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                         "0123456789_.-~/")
# Variables that change how the whole command finds or calls the cluster.
_ENVIRONMENT = ("PELOTON_CLUSTER", "PELOTON_USER", "PELOTON_PASSWORD", "PELOTON_CA")


class Declined:
    """Not answered here: the whole command runs. ``job_id``: the id of a
    create already sent, for the whole command to send again."""

    __slots__ = ("job_id",)

    def __init__(self, job_id: str | None = None) -> None:
        self.job_id = job_id


class _Refused(Exception):
    """Anything but a clean answer."""


class _Unsent(Exception):
    """Nothing was sent: no jobmgr to send to, or none reached."""


# What a failed call may raise, answer or not.
_FAILURES = (_Refused, _Unsent, BadResponse, OSError, ValueError, LookupError, TypeError,
             AttributeError)


def run(argv: list[str], stdout: IO[str], stderr: IO[str]) -> int | Declined:
    """The exit status of the command ``argv``, answered here; or Declined."""
    if len(argv) < 3 or any(w.startswith("-") for w in argv):
        return Declined()
    try:
        import _json  # noqa: F401  (CPython's: _loads's scanner)
    except ImportError:
        return Declined()
    noun, verb, *rest = argv
    if (noun, verb) == ("job", "create") and len(rest) == 2:
        return _create(rest[0], rest[1], stdout, stderr)
    if len(rest) != 1 or not is_job_id(rest[0].strip()):
        return Declined()
    job_id = rest[0].strip().lower()
    request = b'{"id": {"value": "' + job_id.encode() + b'"}}'
    try:
        if (noun, verb) == ("job", "get"):
            text = _call(JOB_MANAGER, "Get", request, f"{PLAIN}; field=jobInfo").decode()
            text = text.rstrip("\n")
        elif (noun, verb) == ("job", "status"):
            from peloton.cli.output import job_status_text
            info = _object(_call(JOB_MANAGER, "Get", request, f"{PLAIN_JSON}; field=jobInfo"))
            text = job_status_text(info)
        elif (noun, verb) == ("task", "list"):
            from peloton.cli.output import task_rows
            request = b'{"jobId": {"value": "' + job_id.encode() + b'"}}'
            reply = _object(_call(TASK_MANAGER, "List", request, PLAIN_JSON))
            by_instance = reply.get("result", {}).get("value", {})
            text = task_rows(by_instance[k] for k in sorted(by_instance, key=int))
        else:
            return Declined()
    except _FAILURES:
        return Declined()
    print(text, file=stdout)  # a reader gone is main's to take (reader_gone)
    return 0


def _create(respool: str, path: str, stdout: IO[str], stderr: IO[str]) -> int | Declined:
    """``job create``: the spec file as it is, for the jobmgr to read."""
    if not (_PLAIN_CHARS.issuperset(respool) and _PLAIN_CHARS.issuperset(path)):
        return Declined()
    try:
        with open(path) as f:  # as peloton.cli.common.read_text reads it
            spec = f.read().encode()
    except (OSError, ValueError):  # the whole command says what is wrong with it
        return Declined()
    job_id = new_job_id()
    headers = {"Peloton-Respool": respool, "Peloton-Spec-Name": path, "Peloton-Job-Id": job_id}
    warnings: list[str] = []

    def inspect(answer: Response) -> None:
        if not answer.header(SPEC_READ):
            raise _Refused("a jobmgr that does not read specs")
        listed = _loads(answer.header(WARNINGS) or "[]")
        if not isinstance(listed, list) or not all(isinstance(w, str) for w in listed):
            raise _Refused(f"{WARNINGS} is not a list of strings")
        warnings.extend(listed)

    try:
        reply = _object(_call(JOB_MANAGER, "Create", spec, PLAIN_JSON, body_type=SPEC,
                              extra=headers, inspect=inspect))
        created = str(reply.get("jobId", {}).get("value") or job_id)
    except _Unsent:
        return Declined()
    except _FAILURES:
        return Declined(job_id)
    for warning in dict.fromkeys(warnings):
        print(f"peloton: warning: {warning}", file=stderr)
    print(f"Job {created} created", file=stdout)
    return 0


# --------------------------------------------------------------------------- the call


def _call(service: str, method: str, body: bytes, accept: str, *, body_type: str = "",
          extra: dict[str, str] | None = None,
          inspect: Callable[[Response], None] | None = None) -> bytes:
    """The body of a 200 answer of ``accept``'s media type from the first
    jobmgr with an HTTP address, its headers shown to ``inspect`` first.
    _Unsent when the request did not leave; after it did, _Refused or
    whatever the socket or the answer raised."""
    import _socket

    try:
        host, port, max_bytes = _target()
        if len(body) > max_bytes:
            raise _Refused("larger than the servers take")
        family, kind, proto, _, address = _socket.getaddrinfo(
            host.encode(), port, 0, _socket.SOCK_STREAM)[0]
        sock = _socket.socket(family, kind, proto)
    except _FAILURES:
        raise _Unsent() from None
    # peloton.rpc.http_client's one attempt, over a socket of _socket's.
    connection = Connection(host, port, timeout=CONNECT_TIMEOUT)
    try:
        try:
            sock.settimeout(CONNECT_TIMEOUT)
            sock.connect(address)
        except OSError:
            raise _Unsent() from None
        sock.settimeout(TIMEOUT)
        sock.setsockopt(_socket.IPPROTO_TCP, _socket.TCP_NODELAY, 1)
        connection.sock = sock  # type: ignore[assignment]  # a socket's methods
        headers = call_headers(service, method, accept, timeout=TIMEOUT, body_type=body_type)
        answer = connection.request("POST", PATH, body, {**headers, **(extra or {})})
    finally:
        sock.close()
    if inspect is not None:
        inspect(answer)
    if answer.status != 200 or answer.header("Rpc-Status") \
            or not (answer.header("Content-Type") or "").startswith(accept.split(";")[0]):
        raise _Refused(f"HTTP {answer.status}")
    return answer.body


def _target() -> tuple[str, int, int]:
    """The first jobmgr's HTTP host and port, and the largest request the
    servers take, from the local cluster's state file (as
    ``peloton.ops.statefile`` writes it); _Refused when the whole command
    would find or call the cluster another way."""
    if any(os.environ.get(name, "").strip() for name in _ENVIRONMENT):
        raise _Refused("the environment says how to call")
    with open(state_file(), encoding="utf-8") as f:
        state = _loads(f.read())
    client = state["client"]
    if client["plain"] is not True:
        raise _Refused("the cluster file has a CA or a client user")
    http = next((client["http"][a] for a in state["jobmgr_addresses"]
                 if client["http"].get(a)), None)
    if not http:
        raise _Refused("no jobmgr serves HTTP/JSON")
    host, _, port = http.rpartition(":")
    return host.strip("[]"), int(port), int(client["max_message_bytes"])


def reader_gone() -> None:
    """Standard output's reader went away (``peloton ... | head``), which is
    not an error: what is left to write goes to /dev/null, so the flush at
    exit says nothing either."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def state_file() -> str:
    """The local cluster's state file: ``peloton.ops.layout``'s
    ``state_path(default_dir())``, without ``pathlib``."""
    home = os.environ.get("PELOTON_HOME")
    base = os.path.expanduser(home) if home else os.path.join(os.path.expanduser("~"),
                                                                ".peloton")
    return os.path.join(base, "minicluster", "state.json")


# --------------------------------------------------------------------------- JSON


class _Decoding:
    """What CPython's JSON scanner asks of its decoder: json.loads's defaults."""

    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int, parse_constant = float, int, float


def _loads(text: str | bytes) -> Any:
    """``json.loads`` of one document, with the scanner ``json`` itself uses
    (``json`` also compiles regular expressions at its import); ValueError
    when it is not JSON."""
    from _json import make_scanner

    if isinstance(text, bytes):
        text = text.decode()
    text = text.strip(" \t\n\r")
    try:
        value, end = make_scanner(_Decoding())(text, 0)  # type: ignore[arg-type]
    except StopIteration:
        raise ValueError("not JSON") from None
    if end != len(text):
        raise ValueError("extra data after the JSON")
    return value


def _object(body: bytes) -> dict[str, Any]:
    value = _loads(body)
    if not isinstance(value, dict):
        raise _Refused("not a JSON object")
    return value
