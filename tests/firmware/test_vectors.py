"""Golden frames (firmware/vectors/frames.json) both ways: what the firmware's C code sends decodes in
firmware_host, what firmware_host writes decodes in C (a native build of firmware/protocol/, the CLI
firmware/build/native/vectors), and both reject the broken frames of docs/protocol.md §4 the same way."""
from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from make_vectors import OUT, build_message, receive, vectors

from firmware_host import Frame, decode_frame, decode_message, encode_frame
from hw_sim.avr import VECTORS_CLI

VECTORS: list[dict[str, Any]] = json.loads(Path(OUT).read_text())["vectors"]
IDS = [v["name"] for v in VECTORS]


class NativeProtocol:
    """The vector CLI, one process for the module."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([str(VECTORS_CLI)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, line: str) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline().strip()

    def decode(self, wire_hex: str) -> list[str]:
        out = []
        line = self.ask(f"decode {wire_hex}")
        while line != "end":
            out.append(line)
            assert self.proc.stdout is not None
            line = self.proc.stdout.readline().strip()
        return out

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=5)


@pytest.fixture(scope="module")
def native(firmware_build: None) -> Iterator[NativeProtocol]:
    cli = NativeProtocol()
    yield cli
    cli.close()


def c_line(frame: dict[str, Any]) -> str:
    if "error" in frame:
        return f"error {frame['error']}"
    return (f"frame type=0x{frame['type']:02x} flags=0x{frame['flags']:02x} seq={frame['seq']} ack={frame['ack']} "
            f"payload={frame['payload']} msg={frame['message']}")


def test_the_file_is_what_firmware_host_says_today():
    """The golden file is firmware_host's own reading of every vector (regenerate with make_vectors.py)."""
    assert json.loads(json.dumps(vectors(), ensure_ascii=False)) == VECTORS


def test_the_file_covers_every_rejection_of_docs_protocol():
    kinds = {f.get("error") or f["message"] for v in VECTORS for f in v["frames"]}
    assert {"COBS", "TOO_SHORT", "OVERSIZE", "BAD_CRC", "BAD_VERSION", "BAD_LENGTH", "UNKNOWN_MESSAGE",
            "MALFORMED_PAYLOAD", "OK"} <= kinds


@pytest.mark.parametrize("v", [v for v in VECTORS if "c_encode" in v], ids=[v["name"] for v in VECTORS
                                                                              if "c_encode" in v])
def test_c_encoder_frames_decode_in_firmware_host(native, v):
    wire = native.ask(v["c_encode"])
    assert wire == v["wire"]
    frame = decode_frame(bytes.fromhex(wire)[:-1])
    assert decode_message(frame.type, frame.payload) == build_message(v["message"])
    assert (frame.flags, frame.seq, frame.ack) == (v["message"]["flags"], v["message"]["seq"], v["message"]["ack"])


@pytest.mark.parametrize("v", VECTORS, ids=IDS)
def test_firmware_host_frames_decode_in_c(native, v):
    assert native.decode(v["wire"]) == [c_line(f) for f in v["frames"]]


@pytest.mark.parametrize("v", [v for v in VECTORS if "message" in v], ids=[v["name"] for v in VECTORS
                                                                           if "message" in v])
def test_firmware_host_writes_the_golden_frames(v):
    m = v["message"]
    msg = build_message(m)
    assert encode_frame(Frame(msg.TYPE, m["seq"], m["ack"], m["flags"], msg.encode())).hex() == v["wire"]
    assert receive(bytes.fromhex(v["wire"])) == v["frames"]


def test_docs_protocol_check_values_in_c(native):
    assert native.ask("crc32 " + b"123456789".hex()) == "cbf43926"
    assert native.ask("cobs 00") == "0101"
    assert native.ask("cobs 11220033") == "0311220233"
    assert native.ask("cobs 11000000") == "0211010101"
    assert native.ask("cobs " + bytes(range(1, 255)).hex()) == "ff" + bytes(range(1, 255)).hex()
    assert native.ask("cobs " + bytes(range(1, 256)).hex()) == "ff" + bytes(range(1, 255)).hex() + "02ff"


def test_bad_input_to_the_cli_is_refused_clearly(native):
    assert native.ask("decode 0g").startswith("usage")
    assert native.ask("msg hello 0 0 0").startswith("usage")
    assert native.ask("frobnicate").startswith("usage")
