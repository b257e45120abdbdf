"""The scoreboards of a shoe as pit bosses read them: the bead plate and the big road.

Presentation only, not game rules: each result is the winner the coup's stored evaluation gave.
Pure functions on plain values, so they are tested without a database.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

ROWS = 6
LETTERS = {"player": "P", "banker": "B", "tie": "T"}


@dataclass(frozen=True, slots=True)
class Result:
    """One coup's result as the scoreboards show it."""

    winner: str  # player, banker or tie
    player_pair: bool = False
    banker_pair: bool = False

    @classmethod
    def of(cls, item: Result | str) -> Result:
        return item if isinstance(item, Result) else cls(item)


@dataclass(frozen=True, slots=True)
class BeadCell:
    column: int
    row: int
    winner: str
    player_pair: bool
    banker_pair: bool

    def as_dict(self) -> dict:
        return {
            "col": self.column,
            "row": self.row,
            "winner": self.winner,
            "pp": self.player_pair,
            "bp": self.banker_pair,
        }


@dataclass(frozen=True, slots=True)
class RoadCell:
    column: int
    row: int
    winner: str  # player or banker: ties never take a cell of their own
    ties: int = 0  # ties marked on this cell (a green slash)

    def as_dict(self) -> dict:
        return {"col": self.column, "row": self.row, "winner": self.winner, "ties": self.ties}


def bead_plate(results: Iterable[Result | str], rows: int = ROWS) -> list[BeadCell]:
    """Every result in order, down each column of `rows` then on to the next column."""
    cells = []
    for index, item in enumerate(results):
        result = Result.of(item)
        cells.append(
            BeadCell(index // rows, index % rows, result.winner, result.player_pair, result.banker_pair)
        )
    return cells


def big_road(results: Iterable[Result | str], rows: int = ROWS) -> list[RoadCell]:
    """The big road: a streak of one winner runs down a column; a change of winner starts the next
    column at the top. A streak that reaches the bottom row, or finds the cell below taken, turns
    right along its row (the dragon tail). A tie marks the cell before it; ties before the first
    Player or Banker win are marked on the first cell."""
    cells: dict[tuple[int, int], RoadCell] = {}
    order: list[tuple[int, int]] = []
    leading_ties = 0
    last_winner = None
    streak_column = -1
    column = row = 0
    for item in results:
        winner = Result.of(item).winner
        if winner == "tie":
            if order:
                key = order[-1]
                cell = cells[key]
                cells[key] = RoadCell(cell.column, cell.row, cell.winner, cell.ties + 1)
            else:
                leading_ties += 1
            continue
        if winner != last_winner:
            streak_column += 1
            while (streak_column, 0) in cells:  # a dragon tail ran along the top row
                streak_column += 1
            column, row = streak_column, 0
        elif row + 1 < rows and (column, row + 1) not in cells:
            row += 1
        else:
            column += 1
        ties = leading_ties if not order else 0
        cells[(column, row)] = RoadCell(column, row, winner, ties)
        order.append((column, row))
        last_winner = winner
    return [cells[key] for key in order]


def tally(results: Iterable[Result | str]) -> dict[str, int]:
    """How many coups each side won, and the ties."""
    counts = {"player": 0, "banker": 0, "tie": 0}
    for item in results:
        counts[Result.of(item).winner] += 1
    return counts
