"""trio ⇄ grpclib: the only package that touches asyncio.

Its names are imported when first used (PEP 562), so a module of the
package that needs neither trio nor grpclib (``errorfields``,
``http_client``) is imported without them: the ``peloton`` command's
quickest paths depend on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from peloton.core import lazy

if TYPE_CHECKING:
    from peloton.rpc.client import (
        Channels,
        ServiceClient,
        call_once,
        default_channels,
        split_address,
    )
    from peloton.rpc.server import bind, open_rpc, serve_grpc

__all__ = ["Channels", "ServiceClient", "bind", "call_once", "default_channels", "open_rpc",
           "serve_grpc", "split_address"]

_WHERE = {"Channels": "client", "ServiceClient": "client", "call_once": "client",
          "default_channels": "client", "split_address": "client",
          "bind": "server", "open_rpc": "server", "serve_grpc": "server"}

__getattr__ = lazy.exports(__name__, _WHERE)
