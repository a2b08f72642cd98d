"""Resource pool paths, apart from the pool configs (``peloton.spec.respool``)
so a client that only names a pool (``peloton job create``) loads neither
protobuf nor YAML for it."""

from __future__ import annotations

from peloton.core.errors import InvalidArgument

__all__ = ["split_respool_path"]


def split_respool_path(path: str) -> list[str]:
    """``"/a/b"`` -> ``["a", "b"]``; ``"/"`` -> ``[]``.

    A path is absolute and ``/``-separated; one trailing ``/`` is allowed.
    Raises :class:`InvalidArgument` on ``field="path"`` otherwise.
    """
    if not path.startswith("/"):
        raise InvalidArgument(f"resource pool path {path!r} must start with '/'", field="path")
    trimmed = path[1:-1] if path.endswith("/") and path != "/" else path[1:]
    if not trimmed:
        return []
    parts = trimmed.split("/")
    if any(not part for part in parts):
        raise InvalidArgument(f"resource pool path {path!r} has an empty element", field="path")
    return parts
