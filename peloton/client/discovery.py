"""Where the cluster is: the jobmgr addresses a client talks to.

:func:`find_cluster` looks, in this order, at the ``--cluster`` flag
(``host:port[,host:port...]``), the ``PELOTON_CLUSTER`` environment variable
(same form), and the state file of the local minicluster
(``$PELOTON_HOME/minicluster/state.json``, else
``~/.peloton/minicluster/state.json``), which ``peloton minicluster up``
writes and ``down`` removes. It lives in :mod:`peloton.ops.discovery`,
which the ``peloton`` command imports without this package.
"""

from peloton.ops.discovery import ENV, NO_CLUSTER, find_cluster, parse_addresses

__all__ = ["ENV", "NO_CLUSTER", "find_cluster", "parse_addresses"]
