"""``state.json``: what a local cluster runs, and how a client reaches it.

``peloton minicluster up`` writes it and ``down`` removes it. It records
each daemon (name, kind, pid, address, log), the jobmgr addresses
``peloton`` finds the cluster by, and a :class:`ClientView` of the cluster
file: the jobmgrs' HTTP/JSON addresses, the largest request they take, and
whether a client needs anything else from the file (its ``security``
section). So a quick command (``peloton job get``) reads this one JSON
file, not the cluster file's YAML, on a cluster without security; a
secured cluster's credentials stay in the cluster file, which is read then.

It imports only the standard library's light modules: every ``peloton``
command that finds its cluster here imports it.
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import Mapping
from typing import Any, NamedTuple

from peloton.core.errors import InvalidArgument, NotFound
from peloton.ops.layout import state_path

__all__ = ["ClientView", "DaemonRecord", "State", "read_state", "read_state_lenient",
           "write_state"]

STATE_VERSION = 1


class _Record:
    """Named fields (its ``__slots__``) compared, shown and written as a
    dict: a dataclass without importing ``dataclasses``, whose ``inspect``
    is a tenth of a quick command's time."""

    __slots__: tuple[str, ...] = ()

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(
            getattr(self, f) == getattr(other, f) for f in self.__slots__)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        fields = ", ".join(f"{f}={getattr(self, f)!r}" for f in self.__slots__)
        return f"{type(self).__name__}({fields})"

    def as_dict(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in self.__slots__}


class DaemonRecord(_Record):
    __slots__ = ("address", "kind", "log", "name", "pid")

    def __init__(self, name: str, kind: str, pid: int, address: str = "",
                 log: str = "") -> None:
        self.name, self.kind, self.pid, self.address, self.log = name, kind, pid, address, log


class ClientView(NamedTuple):
    """What a client takes from the cluster file: ``http`` maps a jobmgr's
    gRPC address to its HTTP/JSON one (jobmgrs without one are left out);
    ``max_message_bytes`` is ``rpc.max_message_bytes``; ``plain``: the file
    has no ``security.tls.ca`` and no ``security.client`` user, so a client
    needs nothing more from it."""

    http: Mapping[str, str]
    max_message_bytes: int
    plain: bool

    def to_json(self) -> dict[str, Any]:
        return {"http": dict(self.http), "max_message_bytes": self.max_message_bytes,
                "plain": self.plain}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ClientView:
        return cls({str(k): str(v) for k, v in data["http"].items()},
                   int(data["max_message_bytes"]), bool(data["plain"]))


class State(_Record):
    """``client`` is None in a state file written before there was one:
    read the cluster file."""

    __slots__ = ("client", "config_file", "daemons", "directory", "jobmgr_addresses", "started")

    def __init__(self, directory: pathlib.Path, config_file: pathlib.Path,
                 daemons: list[DaemonRecord], jobmgr_addresses: list[str],
                 started: float = 0.0, client: ClientView | None = None) -> None:
        self.directory, self.config_file, self.daemons = directory, config_file, daemons
        self.jobmgr_addresses, self.started, self.client = jobmgr_addresses, started, client

    def get(self, name: str) -> DaemonRecord:
        for d in self.daemons:
            if d.name == name:
                return d
        raise NotFound(f"no daemon named {name!r} in the local cluster "
                       f"({', '.join(d.name for d in self.daemons)})")

    def to_json(self) -> dict[str, Any]:
        out = {
            "version": STATE_VERSION,
            "dir": str(self.directory),
            "config": str(self.config_file),
            "started": self.started,
            "jobmgr_addresses": list(self.jobmgr_addresses),
            "daemons": [d.as_dict() for d in self.daemons],
        }
        if self.client is not None:
            out["client"] = self.client.to_json()
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> State:
        try:
            client = data.get("client")
            return cls(pathlib.Path(data["dir"]), pathlib.Path(data["config"]),
                       [DaemonRecord(str(d["name"]), str(d["kind"]), int(d["pid"]),
                                     str(d.get("address", "")), str(d.get("log", "")))
                        for d in data["daemons"]],
                       [str(a) for a in data["jobmgr_addresses"]], float(data.get("started", 0)),
                       ClientView.from_json(client) if client is not None else None)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise InvalidArgument(f"not a minicluster state file ({error!r})") from None


def read_state(directory: pathlib.Path) -> State | None:
    """The state of the cluster in ``directory``; None if it is not up.

    Raises InvalidArgument when the file exists but cannot be read.
    """
    path = state_path(directory)
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise InvalidArgument(f"cannot read {path}: {error.strerror}") from None
    try:
        return State.from_json(json.loads(text))
    except (ValueError, InvalidArgument) as error:
        raise InvalidArgument(f"{path} is damaged ({error}); "
                              "run `peloton minicluster down` to clear it") from None


def write_state(state: State) -> None:
    """Write ``state.json`` atomically."""
    path = state_path(state.directory)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(state.to_json(), indent=2) + "\n")
    tmp.replace(path)


def read_state_lenient(directory: pathlib.Path) -> State | None:
    try:
        return read_state(directory)
    except InvalidArgument:
        return None
