"""The demonstration's boards (``make run``, ``bridgetable serve --simulate N``) take the evening's path: the
simulated club's event gets a hand-record set in the store (``service/event/hand_records.py``), which the console
shows like an imported one, and the robots start each board with its hand record's deal (``SimulatedClub``)."""
from __future__ import annotations

import logging
from collections.abc import Callable

from service.event.hand_records import record
from service.sim.dealing import deal_for, demonstration_source
from service.wiring.container import Service

log = logging.getLogger(__name__)


async def deal_the_demonstration(svc: Service) -> None:
    """Put a set for the event's boards in the store, unless it has one: a secure set without a seed, with the
    simulation's seed the set ``deal_for`` gives (the deals the tests know). An event that began before it had a
    set (a journal of an earlier version) keeps the deals its tables read."""
    store, ev = svc.hand_records, svc.tournament
    if store is None or ev is None or store.all() or ev.has_play():
        return
    seed = svc.settings.simulation.seed
    records = [record(n, deal_for(seed, n).to_pbn()) for n in sorted(set(ev.schedule))]
    await store.put(records, actor="dealer:sim", source=demonstration_source(seed))
    log.info("the demonstration's %d boards are in the hand records", len(records))


def hand_record_deal(svc: Service) -> Callable[[int], str | None]:
    """A board's PBN deal in the running event's hand records (None without one): what the robots deal."""
    def deal(board: int) -> str | None:
        r = svc.hand_records.hand_record(board) if svc.hand_records is not None else None
        return r.deal if r is not None else None
    return deal
