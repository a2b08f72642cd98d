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

A command line goes first to the quick path (``peloton.cli.quick``), which
answers ``job create POOL FILE``, ``job get ID``, ``job status ID`` and
``task list ID`` as typed, against the local cluster, without importing
what the rest needs; it hands everything else, and anything it did not
see answered cleanly, to the whole command (``peloton.cli.run``). This
module imports neither.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not typing's (see peloton.cli.output)
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main", "script"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``peloton`` command; returns the exit status."""
    return _run(list(sys.argv[1:] if argv is None else argv))[0]


def _run(words: list[str]) -> tuple[int, bool]:
    """The command's exit status, and whether the quick path answered it."""
    from peloton.cli import quick
    try:
        answered = quick.run(words, sys.stdout, sys.stderr)
    except KeyboardInterrupt:  # as the whole command says it (peloton.cli.run)
        print("peloton: interrupted", file=sys.stderr)
        return 130, False
    except BrokenPipeError:
        quick.reader_gone()
        return 0, False
    if not isinstance(answered, quick.Declined):
        return answered, True
    from peloton.cli.run import main as whole
    return whole(words, job_id=answered.job_id), False


def script() -> None:
    """The ``peloton`` command's process: ``main``, then its exit.

    A command the quick path answered ends with ``os._exit`` once its
    output is flushed: the interpreter's teardown (freeing every module and
    object one by one) was ~1.4 ms of cpu of the ~11 such a command costs,
    and nothing it imports registers an exit handler (a test holds it to
    that). The whole command exits as any program does."""
    status, quickly = _run(sys.argv[1:])
    if quickly:
        import os

        from peloton.cli.quick import reader_gone
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            reader_gone()
        try:
            sys.stderr.flush()
        except OSError:
            pass
        os._exit(status)
    sys.exit(status)


if __name__ == "__main__":
    script()
