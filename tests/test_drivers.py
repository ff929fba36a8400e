"""drivers: the Link over every transport, the deck registry, debouncing (device drivers further below)."""
from __future__ import annotations

import json
import random
import time

import pytest

import hw_sim  # noqa: F401
from drivers.debounce import Debouncer
from drivers.decks import STANDARD_ORDER, DeckLearner, DeckRegistry, normalize_uid
from drivers.errors import DeckError, LinkClosed, LinkError
from drivers.link import SerialLink, UsbLink, open_link, parse_usb_url, register_usb_backend
from hw_sim.loopback import LoopbackDevice
from hw_sim.port import DevicePort
from hw_sim.pty import serve_pty
from hw_sim.tcp import serve_tcp
from hw_sim.usb_backend import SimUsbBackend


# ---------------------------------------------------------------------------------------------- links
def echo(link, payload: bytes) -> bytes:
    link.write(payload)
    out = b""
    end = time.monotonic() + 2
    while len(out) < len(payload) and time.monotonic() < end:
        out += link.read(4096, 0.1)
    return out


@pytest.fixture(params=["sim", "pty", "tcp", "usb"])
def transport(request, tmp_path):
    """(url, port, opener) for a loopback device on each transport."""
    port = DevicePort(LoopbackDevice(f"lb-{request.param}-{id(request)}"))
    closer = None
    if request.param == "sim":
        from hw_sim import registry
        url = registry.register(port)
    elif request.param == "pty":
        ep = serve_pty(port, tmp_path)
        url, closer = ep.url, ep.close
    elif request.param == "tcp":
        ep = serve_tcp(port)
        url, closer = ep.url, ep.close
    else:
        backend = SimUsbBackend()
        dev = backend.add(port, serial_number="SN-LINK")
        register_usb_backend("sim-test", lambda: backend)
        url = backend.url_of(dev, "sim-test")
    yield url, port
    if closer:
        closer()


def test_link_round_trip_and_unplug(transport):
    url, port = transport
    link = open_link(url)
    assert isinstance(link, UsbLink if url.startswith("usb://") else SerialLink)
    assert link.identity["url"] == url
    assert link.read(10, 0.01) == b""
    data = bytes(range(256)) * 4
    assert echo(link, data) == data
    port.unplug(0.3)
    with pytest.raises(LinkClosed):
        for _ in range(50):
            link.read(64, 0.02)
            link.write(b"x")
    link.close()
    link.close()                                # idempotent
    deadline = time.monotonic() + 3
    while True:
        try:
            link = open_link(url)
            break
        except LinkError:
            assert time.monotonic() < deadline, "device did not come back"
            time.sleep(0.05)
    assert echo(link, b"back") == b"back"
    link.close()


def test_usb_identity_from_string_descriptors():
    backend = SimUsbBackend()
    port = DevicePort(LoopbackDevice("usb-id"))
    dev = backend.add(port, serial_number="SR-7", product="seat reader")
    link = open_link(backend.url_of(dev), usb_backend=backend)
    ident = link.identity
    assert (ident["vid"], ident["pid"], ident["serial_number"], ident["product"]) == (0x1209, 0xB710, "SR-7",
                                                                                      "seat reader")
    with pytest.raises(LinkClosed):
        open_link("usb://1209:b710/OTHER", usb_backend=backend)


def test_bad_urls_are_link_errors():
    with pytest.raises(LinkError):
        open_link("/dev/does-not-exist-bridgetable")
    with pytest.raises(LinkError):
        open_link("nosuchscheme://x")
    with pytest.raises(LinkError):
        parse_usb_url("usb://zz:1")
    assert parse_usb_url("usb://1209:B710/SN-1?backend=sim") == (0x1209, 0xB710, "SN-1", {"backend": "sim"})
    with pytest.raises(LinkError, match="no USB backend registered"):
        open_link("usb://1209:b710?backend=nope")


# ---------------------------------------------------------------------------------------------- decks
def uids(seed: int, n: int = 52) -> list[str]:
    rng = random.Random(seed)
    return ["E004" + "".join(rng.choice("0123456789ABCDEF") for _ in range(12)) for _ in range(n)]


def test_learn_a_deck_in_the_standard_order_and_look_tags_up():
    reg = DeckRegistry()
    tags = uids(1)
    reg.learn("red", tags)
    assert STANDARD_ORDER[:3] == ("SA", "SK", "SQ") and STANDARD_ORDER[-1] == "C2"
    assert reg.lookup(tags[0]).card == "SA" and reg.lookup(tags[0]).deck == "red"
    assert reg.lookup(tags[51]).card == "C2"
    assert reg.lookup(tags[13].lower()).card == "HA"
    assert reg.lookup("E0040000DEADBEEF") is None            # unknown tag: None, never an exception
    assert reg.lookup("not hex") is None


def test_several_decks_and_a_given_order():
    reg = DeckRegistry()
    order = list(reversed(STANDARD_ORDER))
    reg.learn("red", uids(1))
    reg.learn("blue", uids(2), order)
    assert reg.lookup(uids(2)[0]) .card == "C2" and reg.lookup(uids(2)[0]).deck == "blue"
    assert len(reg) == 2
    with pytest.raises(DeckError, match="already belongs"):
        reg.learn("green", uids(1))                          # a tag of another deck
    with pytest.raises(DeckError, match="52"):
        reg.learn("short", uids(3, 51))
    with pytest.raises(DeckError, match="both"):
        reg.learn("twice", uids(4, 51) + uids(4, 1))
    reg.learn("red", uids(5))                                # relearning replaces the old tags
    assert reg.lookup(uids(1)[0]) is None


def test_learning_tag_by_tag_ignores_repeats():
    reg = DeckRegistry()
    learner = DeckLearner(reg, "club-1")
    tags = uids(9)
    for t in tags:
        assert learner.next_card is not None
        learner.feed(t)
        assert learner.feed(t) is None                       # the antenna read it again
    assert learner.done
    learner.finish()
    assert reg.lookup(tags[12]).card == "S2"


def test_registry_persists_as_json(tmp_path):
    reg = DeckRegistry()
    reg.learn("red", uids(1))
    reg.learn("blue", uids(2), list(reversed(STANDARD_ORDER)))
    path = tmp_path / "decks.json"
    reg.save(path)
    data = json.loads(path.read_text())
    assert data["version"] == 1 and set(data["decks"]) == {"red", "blue"}
    again = DeckRegistry.load(path)
    assert again.lookup(uids(2)[5]) == reg.lookup(uids(2)[5])
    path.write_text("{not json")
    with pytest.raises(DeckError):
        DeckRegistry.load(path)


def test_normalize_uid():
    assert normalize_uid("e0:04:01:50") == "E0040150"
    assert normalize_uid(b"\xe0\x04") == "E004"
    with pytest.raises(DeckError):
        normalize_uid("E00")


# ---------------------------------------------------------------------------------------------- debounce
def test_repeated_reads_within_the_window_are_one_event():
    d = Debouncer(window=0.5)
    assert d.accept("N/play", "T1", 10.0)
    assert not d.accept("N/play", "T1", 10.1)
    assert not d.accept("N/play", "T1", 10.5)                # the window slides with each repeat
    assert not d.accept("N/play", "T1", 10.9)
    assert d.accept("N/play", "T1", 12.0)                    # lifted and put back much later
    assert d.accept("E/play", "T1", 12.0)                    # another zone is another key
    assert d.accept("N/play", "T2", 12.1)
    assert d.accept("N/play", "T1", 12.2)                    # another tag in between ends the run
    assert d.repeats == 3
