"""The fan-out: one frame for every socket of an audience, handed out in slices, a socket that is behind skipping
to the newest view per table (service/live/fanout.py, service/live/hub.py)."""
from __future__ import annotations

import asyncio

from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from service.live.fanout import Fanout, Message, Patch, text_frame
from service.live.hub import Subscriber
from service.live.visibility import SPECTATOR


def _parse(data: bytes) -> Frame:
    reader = StreamReader()
    reader.feed_data(data)
    gen = Frame.parse(reader.read_exact, mask=False)
    try:
        next(gen)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    raise AssertionError("incomplete frame")


def test_text_frame_is_what_a_client_reads() -> None:
    for n in (0, 1, 125, 126, 65535, 65536, 100_000):
        payload = ("é" * n).encode()[:n]
        frame = _parse(text_frame(payload))
        assert frame.opcode is Opcode.TEXT and frame.fin and bytes(frame.data) == payload


def test_message_builds_its_frame_once() -> None:
    m = Message('{"type":"state"}')
    assert m.frame() is m.frame() and m == '{"type":"state"}'


class Recorder:
    def __init__(self, log: list[tuple[int, str, str]], i: int) -> None:
        self.log, self.i = log, i

    def offer_state(self, key: str, text: str) -> None:
        self.log.append((self.i, key, text))


def test_fanout_slices_yield_and_keep_the_order() -> None:
    async def run() -> None:
        log: list[tuple[int, str, str]] = []
        subs = [Recorder(log, i) for i in range(250)]
        fan = Fanout(slice_size=100)
        fan.send(subs[:3], "1", "small")              # nothing queued, one slice: at once
        assert len(log) == 3
        fan.send(subs, "1", "old")
        fan.send(subs[:3], "1", "new")                # queued behind the big one, never before it
        assert len(log) == 3
        await asyncio.sleep(0)
        assert len(log) == 3 + 100                    # one slice per turn of the loop
        for _ in range(10):
            await asyncio.sleep(0)
        assert len(log) == 3 + 250 + 3
        for i in range(3):
            assert [t for j, _k, t in log if j == i] == ["small", "old", "new"]
    asyncio.run(run())


class FakeWriter:
    def __init__(self) -> None:
        self.frames: list[bytes] = []
        self.open = True
        self.behind = False
        self.drained = asyncio.Event()

    def ready(self) -> bool:
        return self.open and not self.behind

    def write(self, frame: bytes) -> None:
        self.frames.append(frame)

    async def writable(self) -> bool:
        while self.behind and self.open:
            await self.drained.wait()
        return self.open


def test_a_socket_behind_skips_to_the_newest_view() -> None:
    async def run() -> None:
        sub = Subscriber(SPECTATOR, None)
        w = FakeWriter()
        sub.writer = w
        m1 = Message('{"n":1}')
        sub.offer_state("1", m1)
        assert w.frames == [m1.frame()]               # idle and keeping up: written at once, the shared bytes
        w.behind = True
        for n in (2, 3, 4):
            sub.offer_state("1", Message(f'{{"n":{n}}}'))
        sub.offer_state("2", Message('{"t":2}'))
        assert len(w.frames) == 1
        batch = await sub.next_batch()
        assert batch == ['{"n":4}', '{"t":2}']        # the newest per table, nothing older
        sending = asyncio.create_task(sub.send_batch(batch, _no_asgi))
        await asyncio.sleep(0)
        w.behind = False
        sub.offer_state("1", Message('{"n":5}'))     # while its task sends: into the mailbox, after the batch
        w.drained.set()
        await sending
        assert [bytes(_parse(f).data) for f in w.frames[1:]] == [b'{"n":4}', b'{"t":2}']
        assert await sub.next_batch() == ['{"n":5}']
    asyncio.run(run())


def test_a_patch_is_never_skipped_a_socket_behind_gets_the_state_whole() -> None:
    async def run() -> None:
        sub = Subscriber(SPECTATOR, None)
        w = FakeWriter()
        sub.writer = w
        w.behind = True
        p2 = Patch('{"seq":2,"from":1}', Message('{"seq":2,"whole":true}'))
        sub.offer_state("results", p2)                # nothing of its key waiting: the patch itself waits
        assert await sub.next_batch() == [p2]
        sub.offer_state("results", p2)
        sub.offer_state("results", Patch('{"seq":3,"from":2}', Message('{"seq":3,"whole":true}')))
        assert await sub.next_batch() == ['{"seq":3,"whole":true}']   # the patch of 2 was skipped: 3 whole
        w.behind = False
        p4 = Patch('{"seq":4,"from":3}', Message('{"seq":4,"whole":true}'))
        sub.offer_state("results", p4)                # keeping up again: the patch, written at once
        assert w.frames == [p4.frame()]
    asyncio.run(run())


async def _no_asgi(text: str) -> None:
    raise AssertionError("a socket with a frame writer is not sent through ASGI")
