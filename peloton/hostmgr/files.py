"""The sandboxes of a host manager's runs over HTTP, as a Mesos agent serves them.

Peloton's ``BrowseSandbox`` answers a host, a port and the run's sandbox
paths; its clients then fetch a file from the Mesos agent's files endpoints.
The ``local`` backend's runs have no agent, so the host manager serves the
same endpoints itself, on the loopback address of its ``files:`` option:

- ``GET /files/download?path=P``: the file's bytes;
- ``GET /files/read?path=P&offset=O&length=L`` (and ``read.json``): Mesos's
  ``{"data": ..., "offset": O}``; ``offset=-1`` asks for the size only
  (``{"data": "", "offset": size}``), as a tailing client does;
- ``GET /files/browse?path=D`` (and ``browse.json``): the entries of a
  directory, each ``{path, size, mode, mtime, nlink, uid, gid}``.

Only paths under the backend's ``sandboxes`` directory are served (after
resolving links); anything else is 404, a malformed request 400. Reads are
bounded (``MAX_READ``) and done in a worker thread.
"""

from __future__ import annotations

import json
import stat
import urllib.parse
from pathlib import Path

import trio

from peloton.rpc.h11serve import Answer, serve_http

__all__ = ["serve_files"]

MAX_READ = 4 << 20


def _answer(status: int, payload: object) -> Answer:
    return Answer(status, json.dumps(payload).encode() + b"\n", "application/json")


def _error(status: int, message: str) -> Answer:
    return Answer(status, message.encode() + b"\n", "text/plain; charset=utf-8")


def _inside(root: Path, raw: str) -> Path | None:
    if not raw:
        return None
    path = Path(raw)
    target = (path if path.is_absolute() else root / path).resolve()
    return target if target == root or target.is_relative_to(root) else None


def _entry(path: Path) -> dict[str, object]:
    st = path.lstat()
    return {"path": str(path), "size": st.st_size, "mode": stat.filemode(st.st_mode),
            "mtime": st.st_mtime, "nlink": st.st_nlink, "uid": str(st.st_uid),
            "gid": str(st.st_gid)}


def respond(root: Path, method: bytes, target: bytes) -> Answer:
    """The answer to one request (in a worker thread: it reads files)."""
    if method != b"GET":
        return _error(405, "use GET")
    url = urllib.parse.urlsplit(target.decode("latin-1"))
    query = urllib.parse.parse_qs(url.query)
    endpoint = url.path.removesuffix(".json")
    raw = query.get("path", [""])[0]
    path = _inside(root, raw)
    if endpoint not in ("/files/read", "/files/download", "/files/browse"):
        return _error(404, f"no endpoint {url.path}; try /files/read, /files/download, "
                           "/files/browse")
    if path is None or not path.exists():
        return _error(404, f"no sandbox file {raw!r}")
    if endpoint == "/files/browse":
        if not path.is_dir():
            return _error(400, f"{raw!r} is not a directory")
        return _answer(200, [_entry(p) for p in sorted(path.iterdir())])
    if path.is_dir():
        return _error(400, f"{raw!r} is a directory")
    if endpoint == "/files/download":
        size = path.stat().st_size
        if size > MAX_READ:
            return _error(413, f"{raw!r} has {size} bytes; read it in parts with "
                               f"/files/read (at most {MAX_READ} a call)")
        return Answer(200, path.read_bytes(), "application/octet-stream", [
            ("Content-Disposition", f"attachment; filename={path.name}")])
    try:
        offset = int(query.get("offset", ["0"])[0])
        length = int(query.get("length", [str(MAX_READ)])[0])
    except ValueError:
        return _error(400, "offset and length are whole numbers")
    size = path.stat().st_size
    if offset == -1:
        return _answer(200, {"data": "", "offset": size})
    if offset < 0 or length < 0:
        return _error(400, "offset and length must not be negative (offset -1: the size)")
    with open(path, "rb") as f:
        f.seek(offset)
        data = f.read(min(length, MAX_READ))
    return _answer(200, {"data": data.decode("utf-8", "replace"), "offset": offset})


async def serve_files(root: Path, host: str, port: int, *,
                      task_status: trio.TaskStatus[tuple[str, int]] = trio.TASK_STATUS_IGNORED,
                      ) -> None:
    """Serve the files under ``root`` on ``host:port`` until cancelled."""
    resolved = await trio.to_thread.run_sync(Path.resolve, root)

    async def handle(method: bytes, target: bytes, headers: list[tuple[bytes, bytes]],
                     body: bytes) -> Answer:
        return await trio.to_thread.run_sync(respond, resolved, method, target)

    await serve_http(handle, host, port, max_body=0, task_status=task_status)
