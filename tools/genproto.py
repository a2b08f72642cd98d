"""Generate (or check) the protobuf and grpclib modules under peloton/api.

Usage: python tools/genproto.py [--check]

With --check, generate into a temporary tree and fail if anything differs
from what is checked in, so generated code can never drift from the .proto.
"""

from __future__ import annotations

import filecmp
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
BANNER = "# Generated from {src} by tools/genproto.py. Do not edit.\n"


def generate(out: pathlib.Path) -> list[pathlib.Path]:
    protos = sorted(p.relative_to(ROOT) for p in (ROOT / "peloton" / "api").rglob("*.proto"))
    subprocess.run(
        [
            sys.executable, "-m", "grpc_tools.protoc", f"-I{ROOT}",
            f"--plugin=protoc-gen-grpclib_python={pathlib.Path(sys.executable).parent / 'protoc-gen-grpclib_python'}",
            f"--python_out={out}", f"--pyi_out={out}", f"--grpclib_python_out={out}",
            *map(str, protos),
        ],
        check=True,
    )
    written = []
    for proto in protos:
        stem = proto.with_suffix("")
        for suffix in ("_pb2.py", "_pb2.pyi", "_grpc.py"):
            path = out / f"{stem}{suffix}"
            if path.exists():
                text = path.read_text()
                path.write_text(BANNER.format(src=proto) + text)
                written.append(path.relative_to(out))
    return written


def main() -> int:
    check = "--check" in sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp)
        written = generate(out)
        if check:
            stale = [
                str(rel) for rel in written
                if not (ROOT / rel).exists() or not filecmp.cmp(out / rel, ROOT / rel, shallow=False)
            ]
            if stale:
                print("generated code is out of date; run `just proto`:", *stale, sep="\n  ")
                return 1
            print(f"generated code is current ({len(written)} files)")
            return 0
        for rel in written:
            shutil.copyfile(out / rel, ROOT / rel)
        print(f"wrote {len(written)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
