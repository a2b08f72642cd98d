"""What every ``peloton`` command shares: the command context, exit
statuses, argument types, and how a command is registered.

Each noun has a module (``respool``, ``resmgr``, ``job``, ``task``,
``host``, ``update``, ``stateless``, ``minicluster``, ``demo``) with its
handlers; ``peloton.cli.commands`` registers them by name (a
:class:`Handler`), and ``main`` assembles the parser and runs one command.

This module is imported by every command, ``peloton --help`` included, so
it imports neither trio, grpclib nor protobuf: an argument type or a
method that needs one imports it when it runs.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pathlib
import re
import signal
import sys
from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import IO, TYPE_CHECKING, Any, NamedTuple, NoReturn, TypeVar

from peloton.core.errors import PelotonError
from peloton.core.ids import is_job_id

if TYPE_CHECKING:
    import ssl

    from peloton.api.v0.peloton import peloton_pb2
    from peloton.api.v0.query import query_pb2
    from peloton.api.v0.task import task_pb2
    from peloton.client import PelotonClient
    from peloton.config import ClusterConfig
    from peloton.ops.statefile import ClientView, State
    from peloton.rpc.http_client import HttpClient, Target

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
    from peloton.api.v0.task import task_pb2
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


def enum_list(module: str, enum_name: str, prefix: str = "") -> Callable[[str], list[int]]:
    """Comma-separated names of the protobuf enum ``enum_name`` of ``module``
    (imported when an argument is parsed), with or without ``prefix``."""

    def parse(text: str) -> list[int]:
        enum = getattr(importlib.import_module(module), enum_name)
        names = list(enum.keys())
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
    from peloton.api.v0.peloton import peloton_pb2
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
    from peloton.api.v0.query import query_pb2
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


def version_arg(text: str) -> str:
    """A v1alpha entity version: ``<config>-<desiredState>-<workflow>``."""
    parts = text.strip().split("-")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an entity version (<config>-<desiredState>-<workflow>, such as "
            "1-0-0; `peloton job stateless get JOB` shows it)")
    return text.strip()


def pod_arg(text: str) -> str:
    """A pod's name: ``<job id>-<instance>``."""
    job, _, instance = text.strip().rpartition("-")
    try:
        job_id_arg(job)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a pod name (<job id>-<instance>)")
    if not instance.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a pod name (<job id>-<instance>)")
    return text.strip().lower()


def attribute_arg(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key, value


def host_attribute_arg(text: str) -> tuple[str, str, str]:
    host, sep, rest = text.partition(":")
    if not sep or not host:
        raise argparse.ArgumentTypeError(f"expected HOST:KEY=VALUE, got {text!r}")
    return (host, *attribute_arg(rest))


# --------------------------------------------------------------------------- the command context


class Auth(NamedTuple):
    """Whom a command calls as (no ``user``: nobody) and the CA it trusts
    (empty: plain, no TLS)."""

    user: str = ""
    password: str = ""
    ca: str = ""


class Cli:
    """What a command needs: its arguments, stdout/stderr, and the cluster.
    ``job_id``: the id of a create the quick path already sent (see
    :meth:`new_job_id`)."""

    def __init__(self, args: argparse.Namespace, stdout: IO[str], stderr: IO[str], *,
                 job_id: str | None = None) -> None:
        self.args = args
        self.stdout = stdout
        self.stderr = stderr
        self.from_state_file = False
        self._job_id = job_id
        self._auth: Auth | None = None
        self._local: tuple[ClusterConfig | None] | None = None
        self._state: tuple[State | None] | None = None

    def print(self, text: str = "") -> None:
        print(text, file=self.stdout)

    def warn(self, text: str) -> None:
        print(f"peloton: warning: {text}", file=self.stderr)

    @property
    def json(self) -> bool:
        return bool(self.args.json)

    def emit(self, message: Any, text: Callable[[], str]) -> None:
        """``message`` as protobuf JSON with ``--json``, else ``text()``."""
        if self.json:
            from peloton.cli.output import message_json
            self.print(message_json(message))
        else:
            self.print(text())

    def new_job_id(self) -> str:
        """The id of the job a create without ``--id`` makes, the same at
        every send: the one the quick path sent (``peloton.cli.quick``),
        else a new one."""
        if self._job_id is None:
            from peloton.core.ids import new_job_id
            self._job_id = new_job_id()
        return self._job_id

    def addresses(self) -> list[str]:
        from peloton.ops.discovery import ENV, find_cluster
        explicit = self.args.cluster
        self.from_state_file = not explicit and not os.environ.get(ENV, "").strip()
        return find_cluster(explicit)

    def local_config(self) -> ClusterConfig | None:
        """The local minicluster's cluster file (None when there is none, or
        it cannot be read); read once."""
        if self._local is None:
            from peloton import config as cluster_config
            from peloton.ops.layout import cluster_path, resolve
            try:
                path = cluster_path(resolve(None))
                self._local = (cluster_config.load(path) if path.exists() else None,)
            except (PelotonError, OSError):
                self._local = (None,)
        return self._local[0]

    def local_state(self) -> State | None:
        """The local minicluster's state file (None when it is not up, or
        cannot be read); read once."""
        if self._state is None:
            from peloton.ops.layout import default_dir
            from peloton.ops.statefile import read_state_lenient
            self._state = (read_state_lenient(default_dir()),)
        return self._state[0]

    def client_view(self) -> ClientView | None:
        """What the local cluster's state file says of its cluster file for
        clients (None: it does not say; read the cluster file)."""
        state = self.local_state()
        return state.client if state is not None else None

    def auth(self) -> Auth:
        """The user, password and CA of every call: flags, else the
        environment, else the local cluster file's security section (when
        the cluster was found by its state file, and the state file does not
        say the cluster file has none a client uses)."""
        if self._auth is not None:
            return self._auth
        a = self.args
        view = self.client_view() if self.from_state_file else None
        plain = view is not None and view.plain
        config = self.local_config() if self.from_state_file and not plain else None
        security = config.security if config is not None else None
        user = a.user or os.environ.get("PELOTON_USER", "") or (
            security.client.user if security else "")
        password = os.environ.get("PELOTON_PASSWORD", "")
        if a.password_file:
            password = read_text(a.password_file).strip()
        elif not password and security and user == security.client.user:
            password = security.client.password
        ca = a.ca or os.environ.get("PELOTON_CA", "") or (
            str(security.ca) if security and security.ca else "")
        self._auth = Auth(user, password, ca)
        return self._auth

    def tls(self, protocol: str) -> ssl.SSLContext | None:
        """A client TLS context trusting the CA (None: plain), offering the
        ALPN ``protocol`` (``h2`` for gRPC, ``http/1.1``)."""
        ca = self.auth().ca
        if not ca:
            return None
        import ssl
        try:
            context = ssl.create_default_context(cafile=ca)
        except (OSError, ssl.SSLError) as error:
            raise Failure(f"--ca {ca}: {error}")
        context.set_alpn_protocols([protocol])
        return context

    def secure(self) -> None:
        """TLS and credentials for every gRPC call (see :meth:`auth`)."""
        from peloton.core.security import Credentials
        from peloton.rpc.client import configure
        auth = self.auth()
        context = self.tls("h2")
        configure(context, Credentials(auth.user, auth.password) if auth.user else None)

    def http_targets(self, addresses: list[str]) -> list[Target]:
        """The jobmgrs among ``addresses`` that serve HTTP/JSON, by the file
        of the running local cluster (it lists them with an ``http:``
        address); none for any other cluster."""
        from peloton.rpc.http_client import Target
        if not self.from_state_file:
            state = self.local_state()
            if state is None or not set(addresses) <= set(state.jobmgr_addresses):
                return []
        http = self._http_addresses()
        return [Target(a, http[a]) for a in addresses if http.get(a)]

    def _http_addresses(self) -> Mapping[str, str]:
        """The local cluster's jobmgrs' HTTP/JSON addresses by their gRPC
        ones: from its state file, else its cluster file."""
        view = self.client_view()
        if view is not None:
            return view.http
        config = self.local_config()
        if config is None:
            return {}
        return {d.grpc: str(d.options["http"]) for d in config.of_kind("jobmgr")
                if d.options.get("http")}

    def max_request_bytes(self) -> int | None:
        """The largest request the local cluster's servers take, if known."""
        view = self.client_view()
        if view is not None:
            return view.max_message_bytes
        config = self.local_config()
        return config.max_message_bytes if config is not None else None

    def call(self, fn: Callable[[PelotonClient], Awaitable[T]], *,
             http: Callable[[HttpClient], T] | None = None) -> T:
        """Run ``fn(client)`` against the cluster; its errors come out bare.

        With ``http``, a blocking ``http(client)`` over the jobmgrs'
        HTTP/JSON API makes the same calls when the cluster file gives
        their ``http:`` addresses: the same answers and errors, without
        starting trio and grpclib. Until a jobmgr answers over HTTP, one
        that cannot be reached so sends the command to gRPC (``fn``), which
        says what it always said of a cluster it cannot reach; so does a
        request larger than the servers take (see
        ``peloton.rpc.http_client``). ``http`` may be run and then ``fn``:
        its calls must be safe to make again.
        """
        addresses = self.addresses()
        timeout = float(self.args.timeout)
        if http is not None:
            auth = self.auth()
            context = self.tls("http/1.1")
            targets = self.http_targets(addresses)
            if targets:
                from peloton.rpc.http_client import HttpClient, NotOverHttp
                headers: list[tuple[str, str]] = []
                if auth.user:
                    from peloton.core.security import Credentials
                    headers = Credentials(auth.user, auth.password).metadata()
                client = HttpClient(targets, timeout=timeout, ssl_context=context,
                                    headers=headers, max_request_bytes=self.max_request_bytes())
                try:
                    return http(client)
                except NotOverHttp:
                    pass  # not answered over HTTP: the same calls over gRPC
                finally:
                    client.close()
        self.secure()
        import trio

        from peloton.client import PelotonClient, within_rpc

        async def run() -> T:
            client = PelotonClient(addresses, timeout=timeout)
            try:
                return await fn(client)
            finally:
                client.close()

        return trio.run(within_rpc, run)


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


def terminal_columns() -> int:
    """``shutil.get_terminal_size().columns`` (``$COLUMNS``, else the
    terminal's, else 80) without importing shutil, and the compression
    modules it imports: 2.8 ms of cpu of every command."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):  # no stdout, or not a terminal
            columns = 0
    return columns or 80


class Parser(argparse.ArgumentParser):
    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse makes one for every add_argument, and its own asks shutil
        # for the width (less 2, as argparse does).
        return self.formatter_class(prog=self.prog,  # type: ignore[call-arg]
                                    width=terminal_columns() - 2)

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
    """A noun (``peloton NAME ACTION``): its subparsers. They build only
    the leaves ``commands`` wants (see :func:`wanting`)."""
    p = commands.add_parser(name, help=help, description=help)
    p.set_defaults(group_parser=p)
    return wanting(p.add_subparsers(dest="action", metavar="ACTION", parser_class=Parser),
                   getattr(commands, "wanted", None))


def wanting(commands: Any, wanted: Collection[str] | None) -> Any:
    """``commands`` (subparsers) building in full only the leaves named in
    ``wanted`` (None: all); the others get their name and help, enough to
    list them and to choose among them, and their arguments are not built.
    A command line's leaf is always among its words, so it is built."""
    commands.wanted = wanted
    return commands


def listed(sub: Any, name: str, help: str) -> None:
    """``name`` among the choices of ``sub`` (subparsers) with its ``help``
    (as ``peloton --help`` and ``peloton NOUN --help`` list it), but no
    parser: a command line that names it has it built in full. What
    ``add_parser`` does, less the parser, whose building (help formatter,
    gettext, the -h action) is most of that cost."""
    sub._choices_actions.append(sub._ChoicesPseudoAction(name, (), help))
    sub.choices[name] = None


class _Unbuilt:
    """A leaf not on the command line: its arguments are declared into nothing."""

    def add_argument(self, *args: Any, **kwargs: Any) -> None:
        pass

    def add_mutually_exclusive_group(self, *args: Any, **kwargs: Any) -> _Unbuilt:
        return self

    add_argument_group = add_mutually_exclusive_group

    def set_defaults(self, **kwargs: Any) -> None:
        pass


class Handler:
    """A command's implementation by name: the function ``function`` of
    ``peloton.cli.<module>``, or with ``args`` (and ``kwargs``, as pairs)
    what that factory returns for them. The module is imported when the
    command runs, not when the parser is built."""

    __slots__ = ("args", "function", "kwargs", "module")

    def __init__(self, module: str, function: str, args: tuple[Any, ...] = (),
                 kwargs: tuple[tuple[str, Any], ...] = ()) -> None:
        self.module, self.function, self.args, self.kwargs = module, function, args, kwargs

    def __repr__(self) -> str:
        return f"Handler({self.module!r}, {self.function!r}, {self.args!r}, {self.kwargs!r})"

    def resolve(self) -> Callable[[Cli], int]:
        found = getattr(importlib.import_module(f"peloton.cli.{self.module}"), self.function)
        if self.args or self.kwargs:
            found = found(*self.args, **dict(self.kwargs))
        return found  # type: ignore[no-any-return]

    def __call__(self, cli: Cli) -> int:
        return self.resolve()(cli)


def leaf(sub: Any, name: str, func: Callable[[Cli], int], help: str) -> Any:
    """A command that runs ``func`` (a :class:`Handler`, or any callable);
    only its name and help when ``sub`` does not want it (:func:`wanting`)."""
    wanted = getattr(sub, "wanted", None)
    if wanted is not None and name not in wanted:
        listed(sub, name, help)
        return _Unbuilt()
    p = sub.add_parser(name, help=help, description=help)
    add_globals(p, top=False)
    p.set_defaults(func=func)
    return p
