"""``peloton``: the command line of a Peloton cluster, shaped like Peloton's own.

::

    peloton [--cluster HOST:PORT[,...]] [--json] [--timeout S] COMMAND ...

    peloton minicluster up|status|down|kill|restart      a local cluster
    peloton respool create|update|get|dump|delete        resource pools
    peloton job create|get|status|query|stop|delete|update
    peloton task list|get|logs|stop|start|restart
    peloton host query
    peloton resmgr pending PATH                         why gangs wait (admission, placement)

The cluster is found from ``--cluster``, then ``PELOTON_CLUSTER``, then the
local minicluster's state file (see ``peloton.client.discovery``). Every
error ends the command with a non-zero status and one line on stderr,
``peloton: <what went wrong>``.

Each noun's commands are in their own module (``peloton.cli.respool``,
``resmgr``, ``job``, ``task``, ``host``, ``minicluster``, ``demo``; what they
share is ``peloton.cli.common``); this one assembles the parser and runs one
command.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from peloton.cli import (
    demo,
    host,
    job,
    minicluster,
    resmgr,
    respool,
    stateless,
    task,
    update,
)
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
from peloton.client import ClusterUnreachable
from peloton.core.errors import PelotonError

__all__ = ["build_parser", "main", "parse_range"]

# The nouns, in the order ``peloton --help`` lists them.
NOUNS = (respool, resmgr, job, task, stateless, update, host, demo, minicluster)


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("peloton")
    except Exception:
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="peloton", description="The command line of a Peloton cluster.",
                    formatter_class=argparse.RawDescriptionHelpFormatter,
                    epilog="Start a local cluster with `peloton minicluster up`.")
    add_globals(parser, top=True)
    parser.add_argument("--version", action="version", version=f"peloton {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for noun in NOUNS:
        noun.add_commands(commands)
    return parser


# --------------------------------------------------------------------------- main


def _leaf_error(error: BaseException) -> BaseException:
    """The one exception inside nested single-member exception groups."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def _unreachable(cli: Cli, error: ClusterUnreachable) -> str:
    if cli.from_state_file:
        return f"{error.message} (is it running? try peloton minicluster status)"
    return f"{error.message} (is it running? for a local cluster try peloton minicluster status)"


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``peloton`` command; returns the exit status."""
    stdout, stderr = sys.stdout, sys.stderr
    parser = build_parser()
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
    cli = Cli(args, stdout, stderr)
    try:
        try:
            return int(args.func(cli))
        except BaseExceptionGroup as group:
            raise _leaf_error(group) from None
    except ClusterUnreachable as error:
        print(f"peloton: {_unreachable(cli, error)}", file=stderr)
    except PelotonError as error:
        print(f"peloton: {error}", file=stderr)
    except Failure as error:
        print(f"peloton: {error}", file=stderr)
    except KeyboardInterrupt:
        print("peloton: interrupted", file=stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`peloton task logs ... | head`): not an error.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_OK
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        print(f"peloton: {where}{error.strerror or error}", file=stderr)
    return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
