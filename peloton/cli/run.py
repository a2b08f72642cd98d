"""The whole ``peloton`` command: its parser (argparse) and the run of one
command, for every command line the quick path (``peloton.cli.quick``)
does not answer; ``peloton.cli.main`` says which, and what the command
does.

Each noun's commands are in their own module (``peloton.cli.respool``,
``resmgr``, ``job``, ``task``, ``host``, ``update``, ``stateless``,
``minicluster``, ``demo``; what they share is ``peloton.cli.common``), and
``peloton.cli.commands`` is the tree of their arguments; this one
assembles the parser and runs one command. Only the nouns named on the
command line are built in full, and a command's module is imported when it
runs, so ``peloton --help`` imports neither trio, grpclib nor protobuf, and
the quick commands (``job get``, ``task list``, ...) no more than they use.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Collection, Sequence

from peloton.cli.commands import add_nouns
from peloton.cli.common import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    Cli,
    Failure,
    Parser,
    UsageError,
    add_globals,
    parse_range,
)
from peloton.cli.quick import reader_gone
from peloton.core.errors import PelotonError

__all__ = ["build_parser", "main", "parse_range"]


class _Version(argparse.Action):
    """``--version``: the installed package's version, looked up only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0,
                         help="show program's version number and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        parser._print_message(f"peloton {_version()}\n", sys.stdout)
        parser.exit()


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("peloton")
    except Exception:
        return "unknown"


def build_parser(wanted: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command; with ``wanted``, only those nouns in
    full (the others are listed, with their help)."""
    parser = Parser(prog="peloton", description="The command line of a Peloton cluster.",
                    formatter_class=argparse.RawDescriptionHelpFormatter,
                    epilog="Start a local cluster with `peloton minicluster up`.")
    add_globals(parser, top=True)
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    add_nouns(commands, wanted)
    return parser


# --------------------------------------------------------------------------- main


def _leaf_error(error: BaseException) -> BaseException:
    """The one exception inside nested single-member exception groups."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def _is_unreachable(error: PelotonError) -> bool:
    """A ``peloton.client.ClusterUnreachable``: only the gRPC path raises
    it, so only a command that imported ``peloton.client`` can have one
    (and one that did not need not import it to tell)."""
    client = sys.modules.get("peloton.client")
    return client is not None and isinstance(error, client.ClusterUnreachable)


def _unreachable(cli: Cli, error: PelotonError) -> str:
    if cli.from_state_file:
        return f"{error.message} (is it running? try peloton minicluster status)"
    return f"{error.message} (is it running? for a local cluster try peloton minicluster status)"


def main(argv: Sequence[str] | None = None, *, job_id: str | None = None) -> int:
    """Run one ``peloton`` command; returns the exit status. ``job_id``: the
    id of a create the quick path sent and did not see answered."""
    stdout, stderr = sys.stdout, sys.stderr
    argv = list(sys.argv[1:] if argv is None else argv)
    # A noun is built in full only when it is on the command line (as any
    # word: a value that happens to be a noun's name costs only its build).
    parser = build_parser(wanted=set(argv))
    try:
        args = parser.parse_args(argv)
    except UsageError as error:
        print(f"peloton: {error}", file=stderr)
        return EXIT_USAGE
    except SystemExit as exit_:  # --help, --version
        return exit_.code if isinstance(exit_.code, int) else EXIT_OK
    if getattr(args, "func", None) is None:
        sub = getattr(args, "group_parser", None)
        if sub is None:
            parser.print_help(stderr)
            return EXIT_USAGE
        actions = ", ".join(sub._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
        print(f"peloton: {args.command}: choose one of: {actions} "
              f"(see `peloton {args.command} --help`)", file=stderr)
        return EXIT_USAGE
    cli = Cli(args, stdout, stderr, job_id=job_id)
    try:
        try:
            return int(args.func(cli))
        except BaseExceptionGroup as group:
            raise _leaf_error(group) from None
    except PelotonError as error:
        if _is_unreachable(error):
            print(f"peloton: {_unreachable(cli, error)}", file=stderr)
        else:
            print(f"peloton: {error}", file=stderr)
    except Failure as error:
        print(f"peloton: {error}", file=stderr)
    except KeyboardInterrupt:
        print("peloton: interrupted", file=stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        reader_gone()  # (`peloton task logs ... | head`)
        return EXIT_OK
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        print(f"peloton: {where}{error.strerror or error}", file=stderr)
    return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
