"""Regenerates the protobuf and gRPC stubs of the client from the server's
protocol, ``server/proto/causim.proto``.

The stubs are checked in (``causim_client/_proto``), so that installing the
client needs only ``grpcio`` and ``protobuf``, not ``grpcio-tools`` and a
copy of the protocol outside the package folder. Run this after changing
the protocol; ``tests/test_stubs.py`` fails while the stubs are stale::

    python generate.py            # rewrites causim_client/_proto
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROTO = HERE.parent / "proto" / "causim.proto"
PACKAGE = "causim_client/_proto"
OUTPUTS = ("causim_pb2.py", "causim_pb2.pyi", "causim_pb2_grpc.py")


def generate(into: Path) -> list[Path]:
    """Writes the stubs under ``into/causim_client/_proto``; returns them."""
    from grpc_tools import protoc  # a development dependency only

    with tempfile.TemporaryDirectory() as include:
        # The protocol under the package's path, so that the stubs import
        # each other as `causim_client._proto.…`.
        placed = Path(include) / PACKAGE / "causim.proto"
        placed.parent.mkdir(parents=True)
        shutil.copyfile(PROTO, placed)
        (into / PACKAGE).mkdir(parents=True, exist_ok=True)
        status = protoc.main(
            [
                "grpc_tools.protoc",
                f"-I{include}",
                f"--python_out={into}",
                f"--pyi_out={into}",
                f"--grpc_python_out={into}",
                str(placed),
            ]
        )
        if status != 0:
            raise RuntimeError(f"protoc failed with status {status}")
    return [into / PACKAGE / name for name in OUTPUTS]


if __name__ == "__main__":
    written = generate(HERE)
    print("\n".join(str(p) for p in written))
    sys.exit(0)
