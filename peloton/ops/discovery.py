"""Where the cluster is: the jobmgr addresses a client talks to.

:func:`find_cluster` looks, in this order, at the ``--cluster`` flag
(``host:port[,host:port...]``), the ``PELOTON_CLUSTER`` environment variable
(same form), and the state file of the local minicluster
(``$PELOTON_HOME/minicluster/state.json``, else
``~/.peloton/minicluster/state.json``), which ``peloton minicluster up``
writes and ``down`` removes.

It imports neither trio nor grpclib nor protobuf (the ``peloton`` command
reads it before it knows whether it needs them);
``peloton.client.discovery`` is the same for the Python client.
"""

from __future__ import annotations

import os

from peloton.core.errors import FailedPrecondition, InvalidArgument
from peloton.ops.layout import default_dir
from peloton.ops.statefile import read_state

__all__ = ["ENV", "NO_CLUSTER", "find_cluster", "parse_addresses"]

ENV = "PELOTON_CLUSTER"
NO_CLUSTER = ("no cluster: pass --cluster host:port, set PELOTON_CLUSTER, "
              "or run `peloton minicluster up`")


def parse_addresses(value: str, *, source: str) -> list[str]:
    """``"h:p,h:p"`` -> ``["h:p", "h:p"]``; InvalidArgument naming ``source``."""
    addresses = [a.strip() for a in value.split(",") if a.strip()]
    if not addresses:
        raise InvalidArgument(f"expected host:port[,host:port...], got {value!r}", field=source)
    for address in addresses:
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise InvalidArgument(f"expected host:port[,host:port...], got {address!r}",
                                  field=source)
    return addresses


def find_cluster(explicit: str | None = None) -> list[str]:
    """The jobmgr addresses to call (see the module docstring for the order).

    Raises InvalidArgument for a malformed flag or variable and
    FailedPrecondition (:data:`NO_CLUSTER`) when nothing says where a
    cluster is.
    """
    if explicit:
        return parse_addresses(explicit, source="--cluster")
    env = os.environ.get(ENV, "").strip()
    if env:
        return parse_addresses(env, source=ENV)
    state = read_state(default_dir())
    if state is not None and state.jobmgr_addresses:
        return list(state.jobmgr_addresses)
    raise FailedPrecondition(NO_CLUSTER)
