"""What every ``peloton`` command shares: the command context, exit
statuses, argument types, and how a noun's commands are registered.

Each noun has a module (``respool``, ``resmgr``, ``job``, ``task``,
``host``, ``minicluster``, ``demo``) with its handlers and an
``add_commands(commands)`` that registers them; ``main`` assembles the
parser and runs one command.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import signal
from collections.abc import Awaitable, Callable
from typing import IO, Any, NoReturn, TypeVar

import trio

from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.query import query_pb2
from peloton.api.v0.task import task_pb2
from peloton.cli.output import message_json
from peloton.client import PelotonClient, within_rpc
from peloton.client.discovery import ENV, find_cluster
from peloton.core.errors import PelotonError
from peloton.core.ids import is_job_id

T = TypeVar("T")
M = TypeVar("M")

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(Exception):
    """The command line is wrong (exit status 2)."""


class Failure(Exception):
    """A local problem (a file, a bad id) worth one line (exit status 1)."""


# --------------------------------------------------------------------------- argument types


_RANGE = re.compile(r"(\d*):(\d*)")


def parse_range(text: str) -> task_pb2.InstanceRange:
    """``from:to`` (``to`` exclusive; either side may be left out; ``:`` is
    every instance) or a single instance ``N``. ``to`` 0 in the result means
    "to the last instance". Raises ArgumentTypeError with the reason."""
    value = text.strip()
    if value.isdigit():
        return task_pb2.InstanceRange(**{"from": int(value), "to": int(value) + 1})
    match = _RANGE.fullmatch(value)
    if match is None:
        raise argparse.ArgumentTypeError(
            f"bad instance range {text!r}: expected from:to, e.g. 0:5, 3:, :10, or : for all")
    lo = int(match.group(1)) if match.group(1) else 0
    hi = int(match.group(2)) if match.group(2) else 0
    if match.group(2) and hi <= lo:
        raise argparse.ArgumentTypeError(
            f"bad instance range {text!r}: 'to' must be greater than 'from' "
            f"(instances from <= i < to)")
    return task_pb2.InstanceRange(**{"from": lo, "to": hi})


def instance_arg(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"an instance is a number from 0, got {text!r}")
    return int(text)


def job_id_arg(text: str) -> str:
    value = text.strip()
    if not is_job_id(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a job id (a UUID such as "
                                         f"5b7a4c8e-0f5d-4b8e-9d3a-2f9c1e0d7a64)")
    return value.lower()


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text!r}")
    return value


def enum_list(enum: Any, prefix: str = "") -> Callable[[str], list[int]]:
    names = list(enum.keys())

    def parse(text: str) -> list[int]:
        out = []
        for raw in (p.strip() for p in text.split(",")):
            if not raw:
                continue
            name = raw.upper()
            for candidate in (name, prefix + name):
                if candidate in names:
                    out.append(enum.Value(candidate))
                    break
            else:
                known = ", ".join(names)
                raise argparse.ArgumentTypeError(f"unknown state {raw!r}; known: {known}")
        return out
    return parse


def labels_arg(text: str) -> list[peloton_pb2.Label]:
    out = []
    for raw in (p.strip() for p in text.split(",")):
        if not raw:
            continue
        key, sep, value = raw.partition("=")
        if not sep:
            key, sep, value = raw.partition(":")
        if not sep or not key:
            raise argparse.ArgumentTypeError(f"expected key=value[,key=value...], got {raw!r}")
        out.append(peloton_pb2.Label(key=key, value=value))
    return out


def count_arg(text: str) -> int:
    """A count or an offset: a whole number from 0."""
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number from 0, got {text!r}")
    return int(text)


def list_arg(text: str) -> list[str]:
    """a,b,c: a list of words."""
    return [p.strip() for p in text.split(",") if p.strip()]


def order_spec(sort: list[str], direction: str, *, default: str
               ) -> list[query_pb2.OrderBy]:
    """--sort/--order as PaginationSpec.orderBy (the server refuses an
    unknown property by name)."""
    order = query_pb2.OrderBy.DESC if direction.upper() == "DESC" else query_pb2.OrderBy.ASC
    return [query_pb2.OrderBy(order=order, property=query_pb2.PropertyPath(value=name))
            for name in (sort or [default])]


def add_paging(p: argparse.ArgumentParser, *, sort: str, order: str) -> None:
    """A query's -n/-o/-p/-a: which page of the results, in what order
    (``sort``: the properties it can be ordered by, the default first)."""
    p.add_argument("-n", "--limit", type=count_arg, default=100, help="at most this many (100)")
    p.add_argument("-o", "--offset", type=count_arg, default=0, help="skip this many first")
    p.add_argument("-p", "--sort", type=list_arg, default=[],
                   help=f"order by {sort} (a,b,...)")
    p.add_argument("-a", "--order", choices=("ASC", "DESC"), default=order, type=str.upper)


def page_note(shown: int, total: int, offset: int, noun: str) -> str:
    """The line under a page that does not show all ``total`` results."""
    if total <= shown:
        return ""
    return f"\n({shown} of {total} {noun} from {offset}; --offset and --limit page through them)"


def signal_number(text: str) -> int:
    name = text.upper()
    name = name if name.startswith("SIG") else "SIG" + name
    if text.isdigit():
        return int(text)
    try:
        return int(signal.Signals[name])
    except KeyError:
        raise argparse.ArgumentTypeError(f"unknown signal {text!r}; e.g. KILL, TERM, STOP, CONT")


# --------------------------------------------------------------------------- the command context


class Cli:
    """What a command needs: its arguments, stdout/stderr, and the cluster."""

    def __init__(self, args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> None:
        self.args = args
        self.stdout = stdout
        self.stderr = stderr
        self.from_state_file = False

    def print(self, text: str = "") -> None:
        print(text, file=self.stdout)

    def warn(self, text: str) -> None:
        print(f"peloton: warning: {text}", file=self.stderr)

    @property
    def json(self) -> bool:
        return bool(self.args.json)

    def emit(self, message: Any, text: Callable[[], str]) -> None:
        """``message`` as protobuf JSON with ``--json``, else ``text()``."""
        self.print(message_json(message) if self.json else text())

    def addresses(self) -> list[str]:
        explicit = self.args.cluster
        self.from_state_file = not explicit and not os.environ.get(ENV, "").strip()
        return find_cluster(explicit)

    def secure(self) -> None:
        """TLS and credentials for every call: flags, else the environment,
        else the local cluster file's security section."""
        from peloton.core.security import Credentials
        from peloton.rpc.client import configure
        a = self.args
        security = None
        if self.from_state_file:  # the local minicluster's file, if it has one
            security = local_security()
        user = a.user or os.environ.get("PELOTON_USER", "") or (
            security.client.user if security else "")
        password = os.environ.get("PELOTON_PASSWORD", "")
        if a.password_file:
            password = read_text(a.password_file).strip()
        elif not password and security and user == security.client.user:
            password = security.client.password
        ca = a.ca or os.environ.get("PELOTON_CA", "") or (
            str(security.ca) if security and security.ca else "")
        context = None
        if ca:
            import ssl
            try:
                context = ssl.create_default_context(cafile=ca)
            except (OSError, ssl.SSLError) as error:
                raise Failure(f"--ca {ca}: {error}")
            context.set_alpn_protocols(["h2"])
        configure(context, Credentials(user, password) if user else None)

    def call(self, fn: Callable[[PelotonClient], Awaitable[T]]) -> T:
        """Run ``fn(client)`` against the cluster; its errors come out bare."""
        addresses = self.addresses()
        self.secure()
        timeout = float(self.args.timeout)

        async def run() -> T:
            client = PelotonClient(addresses, timeout=timeout)
            try:
                return await fn(client)
            finally:
                client.close()

        return trio.run(within_rpc, run)


def local_security() -> Any:
    """The security section of the local minicluster's cluster file (None
    when there is none, or it cannot be read)."""
    from peloton import config as cluster_config
    from peloton.ops.layout import cluster_path, resolve
    try:
        path = cluster_path(resolve(None))
        return cluster_config.load(path).security if path.exists() else None
    except (PelotonError, OSError):
        return None


def load_spec(cli: Cli, path: str, load: Callable[[str], tuple[M, list[str]]]) -> M:
    """The config in the YAML file ``path``, through a spec loader: its
    problems as a Failure naming the file, its warnings printed."""
    text = read_text(path)
    try:
        config, warnings = load(text)
    except PelotonError as error:
        raise Failure(f"{path}: {error}")
    for warning in warnings:
        cli.warn(f"{path}: {warning}")
    return config


def read_text(path: str) -> str:
    try:
        return pathlib.Path(path).read_text()
    except FileNotFoundError:
        raise Failure(f"{path}: no such file")
    except IsADirectoryError:
        raise Failure(f"{path}: is a directory, not a file")
    except UnicodeDecodeError:
        raise Failure(f"{path}: not a text (UTF-8) file")
    except OSError as error:
        raise Failure(f"{path}: cannot read: {error.strerror}")


# --------------------------------------------------------------------------- registering commands


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        where = self.prog.removeprefix("peloton").strip()
        hint = f" (see `{self.prog} --help`)"
        raise UsageError(f"{where}: {message}{hint}" if where else f"{message}{hint}")


def add_globals(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """The global options; on subcommands too, so they may come anywhere."""
    default: Any = argparse.SUPPRESS
    parser.add_argument("--cluster", metavar="HOST:PORT[,...]",
                        default=None if top else default,
                        help="jobmgr address(es); else $PELOTON_CLUSTER, else the local "
                             "minicluster")
    parser.add_argument("-j", "--json", action="store_true",
                        default=False if top else default,
                        help="print the response as protobuf JSON")
    parser.add_argument("-t", "--timeout", type=positive_float, metavar="SECONDS",
                        default=20.0 if top else default,
                        help="how long one call may take (default 20)")
    parser.add_argument("--user", default=None if top else default,
                        help="the user to call as; else $PELOTON_USER, else the cluster "
                             "file's security.client")
    parser.add_argument("--password-file", default=None if top else default,
                        help="a file holding the user's password; else $PELOTON_PASSWORD")
    parser.add_argument("--ca", default=None if top else default,
                        help="the CA certificate of a cluster served over TLS; else "
                             "$PELOTON_CA, else the cluster file's security.tls.ca")


def group(commands: Any, name: str, help: str) -> Any:
    """A noun (``peloton NAME ACTION``): its subparsers."""
    p = commands.add_parser(name, help=help, description=help)
    p.set_defaults(group_parser=p)
    return p.add_subparsers(dest="action", metavar="ACTION", parser_class=Parser)


def leaf(sub: Any, name: str, func: Callable[[Cli], int], help: str) -> Any:
    """A command that runs ``func``."""
    p = sub.add_parser(name, help=help, description=help)
    add_globals(p, top=False)
    p.set_defaults(func=func)
    return p
