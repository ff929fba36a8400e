"""The event's plan from its configuration: the movements (``results.movement`` builders or a table of rounds
read with ``Movement.from_text``), the ``results.Session`` with its sections and entrants, and each section's
map from service table ids to movement tables (table ``"1"`` is movement table 1 unless ``tables`` says
otherwise). ``service/config/loading.py`` checks a configuration with it; ``service/event/tournament.py`` runs it.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from results import (
    Entrant,
    Movement,
    Section,
    Session,
    howell,
    mitchell,
    one_winner_rounds,
    round_robin_teams,
    teams_match,
)
from service.config.settings import TABLE_ID, EventConfig, MovementConfig
from table.texts import Text


def build_movement(cfg: MovementConfig) -> Movement:
    """The movement a configuration describes (``MovementError``/``ValueError`` when it cannot be built)."""
    if cfg.file is not None:
        try:
            text = Path(cfg.file).read_text(encoding="utf-8")
        except OSError as err:
            raise ValueError(f"cannot read the movement file {cfg.file}: {err}") from None
        return Movement.from_text(text, name=cfg.name)
    if cfg.text is not None:
        return Movement.from_text(cfg.text, name=cfg.name)
    bpr = cfg.boards_per_round
    if cfg.kind == "mitchell":
        if cfg.tables is None:
            raise ValueError(Text("movement.needs_tables", "a mitchell movement needs tables"))
        switch = list(cfg.arrow_switch)
        if cfg.one_winner:
            rounds = cfg.rounds or (cfg.tables if cfg.tables % 2 or cfg.even == "relay" else cfg.tables - 1)
            switch += one_winner_rounds(rounds)
        return mitchell(cfg.tables, cfg.rounds, bpr, even=cfg.even, arrow_switch=switch, absent=cfg.absent,
                        first_board=cfg.first_board, name=cfg.name)
    if cfg.kind == "howell":
        if cfg.pairs is None:
            raise ValueError(Text("movement.needs_pairs", "a howell movement needs pairs"))
        return howell(cfg.pairs, bpr, first_board=cfg.first_board, name=cfg.name)
    if cfg.kind == "teams":
        if cfg.boards is None:
            raise ValueError(Text("movement.needs_boards", "a teams match needs boards"))
        return teams_match(range(cfg.first_board, cfg.first_board + cfg.boards), 1, 2,
                           boards_per_round=bpr if bpr < cfg.boards else None, name=cfg.name)
    if cfg.teams is None:
        raise ValueError(Text("movement.needs_teams", "a round_robin movement needs teams"))
    return round_robin_teams(cfg.teams, bpr, first_board=cfg.first_board, name=cfg.name)


@dataclass
class SectionPlan:
    id: str
    movement: Movement
    tables: dict[str, int]           # service table id -> movement table


def _entrant(number: int, v: Any, teams: bool) -> Entrant:
    if isinstance(v, str):
        return Entrant(number, team_name=v) if teams else Entrant(number, (v,))
    return Entrant(number, tuple(str(x) for x in v))


def build_session(cfg: EventConfig, laws: str | None = None) -> tuple[Session, list[SectionPlan]]:
    """The ``results.Session`` of an event configuration and each section's table map (checked); ``laws``: the
    event's law edition (the regulation's ``law_edition``), which decides its session-percentage rule."""
    if cfg.movement is not None:
        specs = [("A", cfg.movement, cfg.tables, cfg.entrants, False)]
    else:
        specs = [(s.id, s.movement, s.tables, s.entrants, True) for s in cfg.sections]
    plans: list[SectionPlan] = []
    sections: list[Section] = []
    seen: set[str] = set()
    teams = cfg.scoring == "IMP"
    for sid, mcfg, tables, entrants, prefixed in specs:
        if sid in {p.id for p in plans}:
            raise ValueError(f"section {sid!r} is given twice")
        mv = build_movement(mcfg)
        table_map = dict(tables) or {(f"{sid}{t}" if prefixed else str(t)): t for t in mv.tables}
        for tid, mt in table_map.items():
            if not TABLE_ID.match(tid):
                raise ValueError(f"section {sid}: {tid!r} is not a table id")
            if mt not in mv.tables:
                raise ValueError(f"section {sid}: table {tid!r} -> {mt}, but the movement has tables "
                                 f"{mv.tables[0]}..{mv.tables[-1]}")
            if tid in seen:
                raise ValueError(f"table {tid!r} is in two sections")
            seen.add(tid)
        if len(set(table_map.values())) != len(table_map):
            raise ValueError(f"section {sid}: two service tables are mapped to the same movement table")
        sec = Section(sid, mv)
        for n, v in entrants.items():
            if n not in mv.entrants:
                raise ValueError(f"section {sid}: entrant {n} is not in the movement")
            sec.entrants[n] = _entrant(n, v, teams)
        plans.append(SectionPlan(sid, mv, table_map))
        sections.append(sec)
    session = Session(cfg.name, cfg.scoring, sections, date=cfg.date, site=cfg.site, vp=cfg.vp, laws=laws)
    return session, plans


def default_event_config(table_ids: list[str]) -> EventConfig | None:
    """The event ``--simulate N`` runs when none is configured: a Mitchell over the simulated tables
    (relay and bye stand for an even number, so every table plays every round), two boards a round."""
    if len(table_ids) < 2:
        return None
    return EventConfig(name=f"Simulated pairs, {len(table_ids)} tables", scoring="MP",
                       movement=MovementConfig(kind="mitchell", tables=len(table_ids), boards_per_round=2,
                                               even="relay"),
                       tables={tid: i + 1 for i, tid in enumerate(table_ids)})
