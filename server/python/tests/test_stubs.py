"""The checked-in stubs match the server's protocol."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from google.protobuf import descriptor_pb2

from causim_client._proto import causim_pb2

HERE = Path(__file__).resolve().parent
PROTO = HERE.parents[1] / "proto" / "causim.proto"


def test_stubs_are_generated_from_the_current_protocol() -> None:
    from grpc_tools import protoc

    with tempfile.TemporaryDirectory() as include:
        placed = Path(include) / "causim_client" / "_proto" / "causim.proto"
        placed.parent.mkdir(parents=True)
        shutil.copyfile(PROTO, placed)
        out = Path(include) / "set.pb"
        status = protoc.main(
            ["protoc", f"-I{include}", f"--descriptor_set_out={out}", str(placed)]
        )
        assert status == 0
        fresh = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file[0]
    # The stubs embed the descriptor without the JSON names protoc adds.
    for message in fresh.message_type:
        for field in message.field:
            field.ClearField("json_name")
    checked_in = descriptor_pb2.FileDescriptorProto()
    causim_pb2.DESCRIPTOR.CopyToProto(checked_in)
    assert checked_in == fresh, "stale stubs: run `python server/python/generate.py`"
