"""gRPC on trio: ``serve_grpc`` and ``call_once``/``ServiceClient``.

Its names are imported when first used (PEP 562), so a module of the
package that needs neither trio nor h2 (``errorfields``,
``http_client``) is imported without them: the ``peloton`` command's
quickest paths depend on it.
"""

from __future__ import annotations

from peloton.core import lazy

TYPE_CHECKING = False  # not typing's: see peloton.cli.output
if TYPE_CHECKING:
    from peloton.rpc.client import (
        Channels,
        ServiceClient,
        call_once,
        default_channels,
        open_rpc,
        split_address,
    )
    from peloton.rpc.server import add_reply_metadata, serve_grpc

__all__ = ["Channels", "ServiceClient", "add_reply_metadata", "call_once", "default_channels",
           "open_rpc", "serve_grpc", "split_address"]

_WHERE = {"Channels": "client", "ServiceClient": "client", "call_once": "client",
          "default_channels": "client", "split_address": "client",
          "open_rpc": "client", "serve_grpc": "server", "add_reply_metadata": "server"}

__getattr__ = lazy.exports(__name__, _WHERE)
