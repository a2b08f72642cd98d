"""Names a package exports but imports only when first used (PEP 562).

The ``peloton`` command's quickest paths import one module of a package
(``peloton.rpc.http_client``, ``peloton.spec.yamlproto``) without the
heavy siblings its ``__init__`` re-exports (trio, grpclib, the field
registry); :func:`exports` gives such a package its ``__getattr__``.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not typing's: see peloton.cli.output
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


def exports(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``where`` maps each name to
    the submodule that defines it. A name is imported once, then kept in
    the package's namespace. (``__import__`` and ``sys.modules``, not
    ``importlib``: importing it, and ``warnings`` with it, was a tenth of
    what the quick commands import.)"""
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        __import__(f"{package}.{module}")
        value = getattr(sys.modules[f"{package}.{module}"], name)
        namespace[name] = value
        return value

    return __getattr__
