"""The host manager's sandbox files over HTTP, as a Mesos agent's /files."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import trio

from peloton.config import DaemonConfig
from peloton.core.errors import InvalidArgument
from peloton.hostmgr.files import respond, serve_files
from peloton.hostmgr.service import make_backend


@pytest.fixture
def sandboxes(tmp_path: Path) -> Path:
    root = tmp_path / "sandboxes"
    run = root / "local-0" / "job-0-1"
    run.mkdir(parents=True)
    (run / "stdout").write_bytes(b"hello\nworld\n")
    (run / "escape").symlink_to("/etc")
    (tmp_path / "secret").write_text("not yours")
    return root.resolve()


def get(root: Path, target: str) -> tuple[int, bytes]:
    answer = respond(root, b"GET", target.encode())
    return answer.status, answer.body


def test_download_read_and_browse(sandboxes: Path) -> None:
    stdout = sandboxes / "local-0" / "job-0-1" / "stdout"
    assert get(sandboxes, f"/files/download?path={stdout}") == (200, b"hello\nworld\n")
    status, body = get(sandboxes, f"/files/read.json?path={stdout}&offset=6&length=3")
    assert (status, json.loads(body)) == (200, {"data": "wor", "offset": 6})
    status, body = get(sandboxes, f"/files/read?path={stdout}&offset=-1")
    assert json.loads(body) == {"data": "", "offset": 12}
    status, body = get(sandboxes, f"/files/browse?path={stdout.parent}")
    assert status == 200
    assert [(e["path"], e["size"]) for e in json.loads(body)][1] == (str(stdout), 12)


def test_nothing_outside_the_sandboxes(sandboxes: Path) -> None:
    run = sandboxes / "local-0" / "job-0-1"
    for path in (f"{sandboxes.parent}/secret", f"{run}/../../../secret", f"{run}/escape/passwd",
                 "/etc/passwd", ""):
        assert get(sandboxes, f"/files/download?path={path}")[0] == 404, path
    assert get(sandboxes, f"/files/read?path={run}/stdout&offset=x")[0] == 400
    assert get(sandboxes, f"/files/download?path={run}")[0] == 400  # a directory
    assert get(sandboxes, "/files/delete?path=x")[0] == 404
    assert respond(sandboxes, b"POST", b"/files/download?path=x").status == 405


async def test_served_on_loopback(sandboxes: Path) -> None:
    stdout = sandboxes / "local-0" / "job-0-1" / "stdout"
    async with trio.open_nursery() as nursery:
        host, port = await nursery.start(serve_files, sandboxes, "127.0.0.1", 0)

        def fetch(target: str) -> tuple[int, bytes]:
            try:
                with urllib.request.urlopen(f"http://{host}:{port}{target}", timeout=10) as r:
                    return r.status, r.read()
            except urllib.error.HTTPError as error:
                return error.code, error.read()

        assert await trio.to_thread.run_sync(fetch, f"/files/download?path={stdout}") == (
            200, b"hello\nworld\n")
        assert (await trio.to_thread.run_sync(fetch, "/files/download?path=/etc/passwd"))[0] == 404
        nursery.cancel_scope.cancel()


def test_an_unknown_hostmgr_key_is_refused(tmp_path: Path) -> None:
    me = DaemonConfig("hostmgr", "hostmgr-0", "127.0.0.1:1", "", {"backend": "local",
                                                                  "memroy_mb": 4096})
    with pytest.raises(InvalidArgument) as error:
        make_backend(me, tmp_path)
    assert error.value.field == "hostmgr[hostmgr-0].memroy_mb"
    assert "unknown key for a local hostmgr" in error.value.message
