"""The firmware's device session (firmware/protocol/session.c, built natively into the vector CLI) against
firmware_host's HostSession on a virtual clock, through a seeded lossy wire: every event delivered exactly once
and in order both ways, a cut link resumed, a restarted host, a refusal."""
from __future__ import annotations

import random
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from firmware_host import Binding, CardRead, FrameDecoder, HostSession, LinkState, MessageType, Refusal, ShowTurn
from firmware_host.messages import decode_message
from hw_sim.avr import VECTORS_CLI

SID = 0x5EA7_0001


class CDevice:
    """The C session behind the CLI: commands in; the bytes it wrote (kept in ``outbox`` until taken) and the
    messages it delivered out."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([str(VECTORS_CLI)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.delivered: list[Any] = []
        self.outbox = bytearray()
        self.cmd(f"open 1 {SID} SR-NATIVE")

    def cmd(self, line: str) -> tuple[bytes, list[str]]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"session {line}\n")
        self.proc.stdin.flush()
        out, other = b"", []
        while (reply := self.proc.stdout.readline().strip()) != "end":
            if not reply and self.proc.poll() is not None:
                raise RuntimeError(f"the vector CLI stopped (status {self.proc.returncode})")
            if reply.startswith("out"):
                out = bytes.fromhex(reply[4:])
                self.outbox += out
            elif reply.startswith("msg "):
                _, type_, payload = reply.split(" ", 2) if reply.count(" ") == 2 else (*reply.split(" "), "")
                self.delivered.append(decode_message(int(type_), bytes.fromhex(payload)))
            else:
                other.append(reply)
        return out, other

    def take(self) -> bytes:
        out, self.outbox = bytes(self.outbox), bytearray()
        return out

    def send(self, msg: Any, now: int) -> bool:
        _, other = self.cmd(f"send {msg.TYPE} {msg.encode().hex()} {now}")
        return other == ["result ok"]

    def state(self) -> dict[str, int]:
        _, other = self.cmd("state")
        parts = other[0].split()
        return {"state": int(parts[1]), **{k: int(v) for k, v in (p.split("=") for p in parts[2:])}}

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=5)


@pytest.fixture
def device(firmware_build: None) -> Iterator[CDevice]:
    d = CDevice()
    yield d
    d.close()


class Wire:
    """A seeded lossy wire: whole chunks lost, single bytes corrupted; ``cut`` loses everything."""

    def __init__(self, seed: int, corrupt: float = 0.0, drop: float = 0.0) -> None:
        self.rng = random.Random(seed)
        self.corrupt, self.drop, self.cut = corrupt, drop, False

    def __call__(self, data: bytes) -> bytes:
        if self.cut or not data or self.rng.random() < self.drop:
            return b""
        return bytes(b ^ (1 + self.rng.randrange(255)) if self.rng.random() < self.corrupt else b for b in data)


def run(host: HostSession, device: CDevice, wire: Wire, start: int, ms: int, received: list[Any]) -> int:
    """Both sides for ``ms`` of virtual time, 2 ms a step; what the host application gets goes to ``received``."""
    t = start
    for t in range(start, start + ms, 2):
        device.cmd(f"poll {t}")
        received += host.receive(wire(device.take()), t)
        back = wire(host.poll(t))
        if back:
            device.cmd(f"feed {back.hex()} {t}")
    return t


def reads(n: int, base: int = 0) -> list[CardRead]:
    return [CardRead(0, (base + i).to_bytes(7, "big"), base + i) for i in range(n)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_exactly_once_in_order_both_ways_through_a_lossy_wire(device, seed):
    host = HostSession(admit=lambda hello: Binding("E", 4))
    wire = Wire(seed, corrupt=0.002, drop=0.05)
    device.cmd("start 0")
    received: list[Any] = []
    t = run(host, device, wire, 0, 1000, received)
    assert host.state is LinkState.READY and host.peer.serial == "SR-NATIVE" and host.binding.seat == "E"
    sent = reads(150)
    turns = [ShowTurn("NESW"[i % 4]) for i in range(30)]
    for i, msg in enumerate(sent):
        assert device.send(msg, t)
        if i % 5 == 0:
            host.send(turns[i // 5], now_ms=t)
        t = run(host, device, wire, t, 20, received)
    t = run(host, device, wire, t, 8000, received)
    assert [m for m in received if isinstance(m, CardRead)] == sent
    assert [m for m in device.delivered if isinstance(m, ShowTurn)] == turns
    st = device.state()
    assert st["in_flight"] == st["queued"] == 0 and st["retransmits"] > 0 and st["crc_errors"] > 0


def test_a_cut_link_is_resumed_and_nothing_is_lost_or_repeated(device):
    host = HostSession(admit=lambda hello: Binding("N", 1))
    wire = Wire(7)
    device.cmd("start 0")
    received: list[Any] = []
    t = run(host, device, wire, 0, 600, received)
    sent = reads(40)
    for msg in sent[:20]:
        device.send(msg, t)
    t = run(host, device, wire, t, 4, received)           # a few go out, then the cable is cut
    wire.cut = True
    for msg in sent[20:]:
        device.send(msg, t)                              # the unit keeps queueing while the link is down
    t = run(host, device, wire, t, 6000, received)       # both sides give the link up (3.5 s, retries)
    assert host.state is LinkState.LOST and device.state()["state"] == 3      # BT_LOST
    wire.cut = False
    run(host, device, wire, t, 3000, received)
    assert [m for m in received if isinstance(m, CardRead)] == sent
    st = device.state()
    assert st["resumes"] == 1 and st["links_lost"] >= 1 and host.health.resumes == 1


def test_a_restarted_host_gets_a_new_session_with_every_event(device):
    first = HostSession(admit=lambda hello: Binding("S", 2))
    wire = Wire(11)
    device.cmd("start 0")
    got_first: list[Any] = []
    t = run(first, device, wire, 0, 600, got_first)
    sent = reads(30)
    for msg in sent:
        device.send(msg, t)
    t = run(first, device, wire, t, 3, got_first)        # the host process dies mid-stream
    second = HostSession(admit=lambda hello: Binding("S", 2))
    got_second: list[Any] = []
    run(second, device, wire, t, 4000, got_second)       # RESET, HELLO, a new session: renumbered from 0
    old = [m for m in got_first if isinstance(m, CardRead)]
    new = [m for m in got_second if isinstance(m, CardRead)]
    assert old + [m for m in new if m not in old] == sent
    assert len([m for m in new if m in old]) <= 8        # at most one window delivered twice (docs §5.5)
    assert device.state()["handshakes"] == 2 and second.health.resumes == 0


def test_a_refused_device_stops_saying_hello(device):
    host = HostSession(admit=lambda hello: Refusal(text="no such device here"))
    wire = Wire(3)
    device.cmd("start 0")
    run(host, device, wire, 0, 400, [])
    assert device.state()["state"] == 4                  # BT_REFUSED
    device.take()
    device.cmd("poll 5000")
    assert device.take() == b""


def test_a_refused_device_says_hello_again_a_minute_later(device):
    """docs/protocol.md §5.3: quiet while refused, but not for ever (the host may have been reconfigured)."""
    host = HostSession(admit=lambda hello: Refusal(text="no such device here"))
    wire = Wire(3)
    device.cmd("start 0")
    run(host, device, wire, 0, 400, [])
    assert device.state()["state"] == 4                  # BT_REFUSED
    device.take()
    device.cmd("poll 59000")
    assert device.take() == b""
    device.cmd("poll 61000")
    frames = [f for f in FrameDecoder().feed(device.take())]
    assert [f.type for f in frames] == [MessageType.HELLO] and device.state()["state"] == 1   # BT_CONNECTING
