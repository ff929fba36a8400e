"""A simulated RFID dealing machine: the device side of the dealer protocol, with faults on demand.

:class:`DealingMachine` is a ``DeviceSession`` in the dealer role (a :class:`~hw_sim.devices.SimDevice`).
On DEAL_BOARD it "loads" the board, reads its number (BOARD_NUMBER_READ), takes the board's deck from
the hopper in a random order and reports each card as it drops into the pocket the host asked for
(CARD_DEALT: the card as its deck table names it, the tag UID, the pocket), then DEAL_DONE. Each board
is dealt from deck ``deck-<(board-1) mod n_decks>`` of the simulated club (tags from ``hw_sim.tags``),
as in ``bridgetable.simulated_tables``.

Faults (:class:`DealerFaults`), seeded per board, each recorded in ``machine.injected``:

================  ======================================================================================
kind              what the machine does
================  ======================================================================================
``wrong_pocket``  drops one card into another pocket than the host asked for
``duplicate``     reads one card's tag twice: the card behind it goes into the same pocket unread
``missing``       the deck lacks one card: the machine runs out and sends ERROR(DECK_INCOMPLETE)
``foreign``       one card is the same card of another of the club's decks (another tag)
``unknown``       one card carries a tag no deck has: ERROR(UNKNOWN_CARD), the card is set aside
``wrong_board``   another board is in the machine: BOARD_NUMBER_READ(other), ERROR(BOARD_MISMATCH), no
                  card dealt; the next DEAL_BOARD finds the right board (the operator swapped it)
``jam``           stops with JAM (at a pocket, or in the feeder) and resumes when cleared
``unreadable``    sets one card aside with UNREADABLE_CARD and stops until cleared
================  ======================================================================================

A stopped machine resumes on :meth:`DealingMachine.press_continue` (its own button), or by itself after
``auto_continue`` seconds (a volunteer clearing it). Faults other than ``wrong_board`` hit a board's
first real dealing only, so a redeal is clean. :func:`expected_problems` says what a correct host must
report for each injected fault. Wire faults (corrupt bytes, dropped frames) come from ``hw_sim.faults``
through the :class:`~hw_sim.port.DevicePort` as for every device.

:class:`SimulatedDealer` puts a machine on a transport: ``inproc`` (``sim://``, on a virtual clock:
nothing sleeps), ``pty`` (a real pseudo-terminal) or ``tcp`` (``socket://``). Importing this module also
lets ``sim://dealer-N`` URLs build a default machine.

Not modelled: card-feeding mechanics and timing (cards drop ``card_interval`` apart, 0 by default), the
machine's own display and buttons beyond Continue, a hopper holding another board's pack, power loss, a
machine that keeps dealing after BOARD_MISMATCH.
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

from firmware_host import (
    BoardNumberRead,
    Capability,
    CardDealt,
    DealBoard,
    DealDone,
    DeviceKind,
    ErrorMessage,
    Jam,
    Message,
    SessionConfig,
    UnreadableCard,
)
from firmware_host.constants import ErrorCode
from table.cards import ALL_CARDS, SEATS

from .clock import REAL_CLOCK, VirtualClock
from .devices import SimDevice
from .errors import DealerFaultError, UnknownSimulation
from .faults import FaultSpec
from .port import DevicePort
from .registry import add_factory, register, unregister
from .tags import deck_uids

FAULT_KINDS = ("wrong_pocket", "duplicate", "missing", "foreign", "unknown", "wrong_board", "jam", "unreadable")
_CARD_FAULTS = {"wrong_pocket": 1, "duplicate": 2, "missing": 1, "foreign": 1, "unknown": 1, "unreadable": 1}
DEFAULT_DECKS = 4
DEVICE_CONFIG = SessionConfig(hello_interval_ms=100)
HOST_CONFIG = SessionConfig()


@dataclass(frozen=True)
class DealerFaults:
    """``rates``: probability per board of each fault kind; ``plan``: kinds forced on given boards."""
    rates: Mapping[str, float] = field(default_factory=dict)
    plan: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    seed: int = 0

    def __post_init__(self) -> None:
        for kind in list(self.rates) + [k for ks in self.plan.values() for k in ks]:
            if kind not in FAULT_KINDS:
                raise DealerFaultError(f"unknown dealer fault {kind!r} (known: {', '.join(FAULT_KINDS)})")

    @classmethod
    def parse(cls, spec: str | None, seed: int | None = None) -> DealerFaults:
        """``"wrong_pocket=0.1,jam=0.05,seed=3"`` (rates per board; a bare name means 1.0)."""
        rates: dict[str, float] = {}
        s = 0
        for part in (spec or "").replace(";", ",").split(","):
            part = part.strip()
            if not part:
                continue
            name, sep, raw = part.partition("=")
            name = name.strip().lower().replace("-", "_")
            try:
                if name == "seed":
                    s = int(raw)
                    continue
                value = float(raw) if sep else 1.0
            except ValueError:
                raise DealerFaultError(f"dealer fault {name!r}: bad value {raw!r}") from None
            if not 0.0 <= value <= 1.0:
                raise DealerFaultError(f"dealer fault {name!r} is a rate per board between 0 and 1, not {raw}")
            rates[name] = value
        return cls(rates, {}, s if seed is None else seed)

    def kinds_for(self, board: int, rng: random.Random) -> list[str]:
        kinds = [k for k in FAULT_KINDS if self.rates.get(k, 0.0) and rng.random() < self.rates[k]]
        return kinds + [k for k in self.plan.get(board, ()) if k not in kinds]


@dataclass(frozen=True)
class Injected:
    kind: str
    board: int
    card: str | None = None          # the card hit (wrong_pocket, foreign, missing, unknown, unreadable;
                                        # duplicate: the card read twice)
    pocket: str | None = None        # wrong_pocket: where it went; jam: the pocket (None: the feeder)
    other: str | None = None         # duplicate: the card that went in unread
    read_board: int | None = None    # wrong_board: the board in the machine


ProblemKey = tuple[str, int, str | None, str | None]       # (kind, board, card, pocket)


def expected_problems(injected: Injected, owner: Mapping[str, str],
                      deck_check: bool = True) -> Counter[ProblemKey]:
    """What a correct host reports for one injected fault, as ``Problem.key()`` tuples
    (kind, board, card, pocket); ``owner``: card -> seat in the hand record. ``foreign`` is only visible
    with the club's deck registry (``deck_check``)."""
    b, c, i = injected.board, injected.card, injected
    keys: list[ProblemKey]
    if i.kind == "wrong_pocket":
        keys = [("WRONG_POCKET", b, c, i.pocket)]
    elif i.kind == "duplicate":
        keys = [("DUPLICATE_CARD", b, c, owner[c]), ("MISSING_CARD", b, i.other, owner[i.other])]  # type: ignore
    elif i.kind == "missing":
        keys = [("MISSING_CARD", b, c, owner[c])]  # type: ignore[index]
    elif i.kind == "foreign":
        keys = [("WRONG_CARD", b, c, owner[c])] if deck_check else []  # type: ignore[index]
    elif i.kind == "unknown":
        keys = [("UNKNOWN_CARD", b, None, None), ("MISSING_CARD", b, c, owner[c])]  # type: ignore[index]
    elif i.kind == "unreadable":
        keys = [("UNREADABLE_CARD", b, None, None), ("MISSING_CARD", b, c, owner[c])]  # type: ignore[index]
    elif i.kind == "jam":
        keys = [("JAM", b, None, i.pocket)]
    else:
        keys = [("WRONG_BOARD", b, None, None)]
    return Counter(keys)


def club_deck_name(board: int, n_decks: int = DEFAULT_DECKS) -> str:
    return f"deck-{(board - 1) % n_decks}"


class DealingMachine(SimDevice):
    KIND = DeviceKind.DEALER
    CAPABILITIES = Capability.BOARD_READER
    FIRMWARE = "hw_sim-dealer-1.0"

    def __init__(self, serial: str, *, dealer_faults: DealerFaults | None = None, n_decks: int = DEFAULT_DECKS,
                 deck_seed: int = 0, auto_continue: float | None = 0.2, card_interval: float = 0.0,
                 **kwargs: Any) -> None:
        kwargs.setdefault("config", DEVICE_CONFIG)
        super().__init__(serial, **kwargs)
        self.dealer_faults = dealer_faults or DealerFaults()
        self.n_decks = n_decks
        self.decks = {f"deck-{k}": deck_uids(f"deck-{k}", deck_seed) for k in range(n_decks)}
        self.auto_continue = auto_continue
        self.card_interval = card_interval
        self.injected: list[Injected] = []
        self.boards_dealt: list[int] = []
        self.stopped = False
        self._actions: list[tuple[Any, ...]] = []
        self._board = 0
        self._dealt = 0
        self._attempts: Counter[int] = Counter()
        self._consumed: set[tuple[int, str]] = set()

    # ------------------------------------------------------------------ host commands
    def on_message(self, msg: Message) -> None:
        if isinstance(msg, DealBoard):
            self._deal(msg)

    @property
    def busy(self) -> bool:
        return bool(self._actions)

    def _deal(self, cmd: DealBoard) -> None:
        if self._actions:
            self.send(ErrorMessage(ErrorCode.BUSY, f"still dealing board {self._board}"))
            return
        b = cmd.board
        self._attempts[b] += 1
        rng = random.Random(f"{self.dealer_faults.seed}:{self.serial}:{b}:{self._attempts[b]}")
        kinds = [k for k in self.dealer_faults.kinds_for(b, random.Random(f"{self.dealer_faults.seed}:{b}"))
                 if (b, k) not in self._consumed]
        ts = self.now_ms()
        if "wrong_board" in kinds:
            self._consumed.add((b, "wrong_board"))
            other = rng.choice([n for n in range(max(1, b - 3), b + 4) if n != b and n <= 0xFFFF])
            self.injected.append(Injected("wrong_board", b, read_board=other))
            self.send(BoardNumberRead(other, ts))
            self.send(ErrorMessage(ErrorCode.BOARD_MISMATCH, f"board {other} loaded, board {b} requested"))
            return
        for k in kinds:
            self._consumed.add((b, k))
        self._board, self._dealt = b, 0
        self.boards_dealt.append(b)
        self.send(BoardNumberRead(b, ts))
        self._actions = self._plan(cmd, [k for k in kinds if k != "wrong_board"], rng)
        self._run()

    def _plan(self, cmd: DealBoard, kinds: list[str], rng: random.Random) -> list[tuple[Any, ...]]:
        """The board's dealing, step by step, with the faults worked in."""
        b = cmd.board
        pockets = dict(zip(ALL_CARDS, cmd.pockets))
        deck = self.decks[club_deck_name(b, self.n_decks)]
        hopper = list(ALL_CARDS)
        rng.shuffle(hopper)
        victims = rng.sample(hopper, sum(_CARD_FAULTS.get(k, 0) for k in kinds))
        hit: dict[str, tuple[str, Any]] = {}                    # card -> (fault, detail)
        for k in kinds:
            if k in _CARD_FAULTS:
                card = victims.pop()
                if k == "duplicate":
                    stuck = victims.pop()                          # passes stuck to ``card``, read as it
                    hit[stuck] = ("read_as", card)
                    self.injected.append(Injected(k, b, card, other=stuck))
                    continue
                if k == "wrong_pocket":
                    wrong = rng.choice([str(s) for s in SEATS if s != pockets[card]])
                    hit[card] = (k, wrong)
                    self.injected.append(Injected(k, b, card, pocket=wrong))
                else:
                    hit[card] = (k, None)
                    self.injected.append(Injected(k, b, card))
        actions: list[tuple[Any, ...]] = []
        fault: str | None
        detail: Any
        for card in hopper:
            fault, detail = hit.get(card, (None, None))
            if fault == "missing":
                continue
            if fault == "read_as":                             # the earlier card's tag again, its pocket too
                actions.append(("card", detail, bytes.fromhex(deck[detail]), pockets[detail]))
            elif fault == "unknown":
                actions.append(("unknown", _unknown_tag(rng)))
            elif fault == "unreadable":
                actions.append(("unreadable",))
            elif fault == "foreign":
                other = rng.choice([d for d in self.decks if d != club_deck_name(b, self.n_decks)])
                actions.append(("card", card, bytes.fromhex(self.decks[other][card]), pockets[card]))
            else:
                actions.append(("card", card, bytes.fromhex(deck[card]),
                                detail if fault == "wrong_pocket" else pockets[card]))
        if "jam" in kinds:
            at = rng.randrange(1, len(actions))
            nxt = actions[at]
            pocket = nxt[3] if nxt[0] == "card" and rng.random() < 0.75 else None
            actions.insert(at, ("jam", pocket))
            self.injected.append(Injected("jam", b, pocket=pocket))
        actions.append(("end", any(f == "missing" for f, _ in hit.values())))
        return actions

    def _run(self) -> None:
        """Carry out steps until the board ends or the machine stops."""
        while self._actions and not self.stopped:
            step = self._actions.pop(0)
            ts = self.now_ms()
            kind = step[0]
            if kind == "card":
                self._dealt += 1
                self.send(CardDealt(step[2], step[3], ts, step[1]))
            elif kind == "unknown":
                self.send(ErrorMessage(ErrorCode.UNKNOWN_CARD, f"tag {step[1].hex().upper()} set aside"))
            elif kind == "unreadable":
                self.send(UnreadableCard(ts, self._dealt))
                self._stop()
            elif kind == "jam":
                self.send(Jam(ts, step[1], self._dealt))
                self._stop()
            elif kind == "end":
                if step[1]:
                    self.send(ErrorMessage(ErrorCode.DECK_INCOMPLETE, f"ran out after {self._dealt} cards"))
                else:
                    self.send(DealDone(self._board, self._dealt, ts))
            if self.card_interval and self._actions and not self.stopped:
                self.schedule(self.clock.now() + self.card_interval, "_run")
                return

    def _stop(self) -> None:
        self.stopped = True
        if self.auto_continue is not None:
            self.schedule(self.clock.now() + self.auto_continue, "press_continue")

    def press_continue(self) -> None:
        """The machine's own Continue button: resume after a jam or an unreadable card."""
        if self.stopped:
            self.stopped = False
            self._run()


def _unknown_tag(rng: random.Random) -> bytes:
    return bytes([0x60]) + bytes(rng.getrandbits(8) for _ in range(7))     # never E0: no simulated deck's


def _factory(m: Any, faults: FaultSpec) -> DevicePort:
    name = m.group(0)
    return DevicePort(DealingMachine(name.upper()), faults, name=name)


add_factory(r"dealer-[\w.-]+", _factory)


class DeckBook(Protocol):
    """What learns a club's decks: the host's deck registry (passed in, as the simulator imports no driver)."""

    def learn(self, name: str, uids: Sequence[str], order: Sequence[str]) -> object: ...


B = TypeVar("B", bound=DeckBook)


class SimulatedDealer:
    """A :class:`DealingMachine` on a transport, with what a driver needs to reach it (``url``,
    ``driver_kwargs(decks)``, the club's decks)."""

    _count = 0

    def __init__(self, transport: str = "inproc", faults: DealerFaults | str | None = None,
                 seed: int | None = None, *, wire: FaultSpec | str | None = None, name: str | None = None,
                 n_decks: int = DEFAULT_DECKS, auto_continue: float | None = 0.2,
                 link_dir: str | Path | None = None) -> None:
        if transport not in ("inproc", "pty", "tcp"):
            raise UnknownSimulation(f"unknown transport {transport!r} (inproc, pty, tcp)")
        SimulatedDealer._count += 1
        self.transport = transport
        spec = faults if isinstance(faults, DealerFaults) else DealerFaults.parse(faults)
        if seed is not None:
            spec = replace(spec, seed=seed)
        wire_spec = wire if isinstance(wire, FaultSpec) else FaultSpec.parse(wire, seed)
        self.clock = VirtualClock() if transport == "inproc" else REAL_CLOCK
        self.n_decks = n_decks
        self.name = name or f"dealer-sim-{SimulatedDealer._count}"
        self.machine = DealingMachine(self.name.upper(), dealer_faults=spec, n_decks=n_decks,
                                      auto_continue=auto_continue, clock=self.clock)
        self.port = DevicePort(self.machine, wire_spec, clock=self.clock, name=self.name)
        self._endpoint: Any = None
        if transport == "inproc":
            self.url = register(self.port, self.name)
        elif transport == "pty":
            from .pty import PtyEndpoint
            self._endpoint = PtyEndpoint(self.port, link_dir, self.name)
            self.url = self._endpoint.url
        else:
            from .tcp import TcpEndpoint
            self._endpoint = TcpEndpoint(self.port)
            self.url = self._endpoint.url

    def driver_kwargs(self, decks: DeckBook) -> dict[str, Any]:
        """Keyword arguments for ``DealerDriver``: the virtual clock in-process, and ``decks`` (the driver's
        deck registry) taught the club's decks."""
        kw: dict[str, Any] = {"config": HOST_CONFIG, "decks": self.teach_decks(decks), "deck_for": self.deck_for}
        if isinstance(self.clock, VirtualClock):
            kw.update(clock=self.clock.now, sleep=self.clock.advance, backoff=(0.05, 1.0))
        else:
            kw.update(backoff=(0.02, 0.5))
        return kw

    def deck_for(self, board: int) -> str:
        return club_deck_name(board, self.n_decks)

    def teach_decks(self, book: B) -> B:
        """``book`` (a ``drivers.decks.DeckRegistry``) once it has learned the club's decks."""
        for name, uids in self.machine.decks.items():
            book.learn(name, [uids[c] for c in ALL_CARDS], ALL_CARDS)
        return book

    def close(self) -> None:
        if self._endpoint is not None:
            self._endpoint.close()
            self._endpoint = None
        if self.transport == "inproc":
            unregister(self.name)

    def __enter__(self) -> SimulatedDealer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
