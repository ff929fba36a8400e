"""Results: movements, the session model, scoring across the field (Laws 12, 78, 86-88) and exports.

The API the service uses for live pages and uploads:

- :class:`Session` — ``add_result`` / ``remove_result`` / ``publish``, ``subscribe(callback)`` for an
  :class:`Update` after every change (``revision``, ``provisional``), ``traveller(board)``,
  ``ranking()``, ``matches()``, ``expected_boards(table, round)`` (the at-table wrong-board check);
- :mod:`results.movement` — ``mitchell``, ``howell``, ``teams_match``, ``round_robin_teams``,
  ``Movement.from_text`` (a table of rounds);
- exports — ``results_pbn_text`` / ``read_results_pbn`` (PBN 2.1 with ScoreTable/TotalScoreTable),
  ``usebio_xml`` (USEBIO 1.2), ``lin_results`` (LIN ``rs|``), ``travellers_csv`` / ``ranking_csv``.
"""
from .errors import MovementError, ResultEntryError, ResultsError, ScoreTableError
from .export_csv import cell_text, ranking_csv, travellers_csv
from .export_lin import lin_results, lin_rs_entry
from .export_pbn import read_results_pbn, results_pbn_text, write_results_pbn
from .export_usebio import usebio_xml
from .movement import Movement, Sitting, howell, mitchell, one_winner_rounds, round_robin_teams, teams_match
from .pbn_tables import PbnTable, TableGame, read_tables
from .scoring import (
                      ARTIFICIAL_IMPS,
                      ARTIFICIAL_PERCENT,
                      IMP_UPPER,
                      Artificial,
                      Line,
                      LineScore,
                      butler_board,
                      butler_datum,
                      cross_imps_board,
                      imps,
                      matchpoint_board,
                      neuberg,
                      team_board_imps,
                      wbf_vp,
)
from .session import BoardResult, Entrant, RankRow, Scoring, Section, Session, Traveller, Update

__all__ = [
    "ResultsError", "MovementError", "ResultEntryError", "ScoreTableError",
    "Movement", "Sitting", "mitchell", "howell", "teams_match", "round_robin_teams", "one_winner_rounds",
    "Artificial", "Line", "LineScore", "ARTIFICIAL_PERCENT", "ARTIFICIAL_IMPS", "matchpoint_board",
    "cross_imps_board", "butler_board", "butler_datum", "team_board_imps", "wbf_vp", "imps", "neuberg", "IMP_UPPER",
    "Scoring", "Entrant", "BoardResult", "Section", "Session", "Traveller", "RankRow", "Update",
    "read_tables", "PbnTable", "TableGame", "write_results_pbn", "results_pbn_text", "read_results_pbn",
    "usebio_xml", "lin_results", "lin_rs_entry", "travellers_csv", "ranking_csv", "cell_text",
]
