"""trio ⇄ grpclib: the only package that touches asyncio."""

from peloton.rpc.client import Channels, ServiceClient, call_once, default_channels, split_address
from peloton.rpc.server import bind, open_rpc, serve_grpc

__all__ = ["Channels", "ServiceClient", "bind", "call_once", "default_channels", "open_rpc",
           "serve_grpc", "split_address"]
