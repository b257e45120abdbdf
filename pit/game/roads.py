"""The scoreboards of a shoe as pit bosses read them: the bead plate, the big road and the roads
derived from it (big eye boy, small road, cockroach pig).

Presentation only, not game rules: each result is the winner the coup's stored evaluation gave.
Pure functions on plain values, so they are tested without a database.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

ROWS = 6

# A cell as the templates and the API read it: its position and what it shows, in JSON values.
CellDict = dict[str, int | str | bool]


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

    def as_dict(self) -> CellDict:
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

    def as_dict(self) -> CellDict:
        return {"col": self.column, "row": self.row, "winner": self.winner, "ties": self.ties}


def bead_plate(results: Iterable[Result | str], rows: int = ROWS) -> list[BeadCell]:
    """Every result in order, down each column of `rows` then on to the next column."""
    cells = []
    for index, item in enumerate(results):
        result = Result.of(item)
        cells.append(BeadCell(index // rows, index % rows, result.winner, result.player_pair, result.banker_pair))
    return cells


def _place(symbols: Iterable[str], rows: int) -> list[tuple[int, int]]:
    """Where a big-road style board draws each symbol: a streak of one symbol runs down a column; a
    change starts the next free column at the top. A streak that reaches the bottom row, or finds the
    cell below taken, turns right and keeps going right along that row (the dragon tail)."""
    taken: set[tuple[int, int]] = set()
    places: list[tuple[int, int]] = []
    last = None
    streak_column = -1
    column = row = 0
    turned = False
    for symbol in symbols:
        if symbol != last:
            streak_column += 1
            while (streak_column, 0) in taken:  # a dragon tail ran along the top row
                streak_column += 1
            column, row, turned = streak_column, 0, False
        elif not turned and row + 1 < rows and (column, row + 1) not in taken:
            row += 1
        else:
            turned = True
            column += 1
        taken.add((column, row))
        places.append((column, row))
        last = symbol
    return places


def big_road(results: Iterable[Result | str], rows: int = ROWS) -> list[RoadCell]:
    """The big road: Player and Banker wins placed by `_place` (streaks down, dragon tails right).
    A tie marks the cell before it; ties before the first Player or Banker win are marked on the
    first cell."""
    winners: list[str] = []
    ties: list[int] = []
    leading_ties = 0
    for item in results:
        winner = Result.of(item).winner
        if winner == "tie":
            if ties:
                ties[-1] += 1
            else:
                leading_ties += 1
            continue
        winners.append(winner)
        ties.append(0)
    if ties:
        ties[0] += leading_ties
    return [
        RoadCell(column, row, winner, tie_count)
        for (column, row), winner, tie_count in zip(_place(winners, rows), winners, ties, strict=True)
    ]


# ------------------------------------------------------------------------------ derived roads

RED, BLUE = "red", "blue"
# How many columns back each derived road compares with.
DERIVED_ROADS = {"big_eye_boy": 1, "small_road": 2, "cockroach_pig": 3}


@dataclass(frozen=True, slots=True)
class DerivedCell:
    column: int
    row: int
    colour: str  # red: the big road repeats its pattern; blue: it breaks it

    def as_dict(self) -> CellDict:
        return {"col": self.column, "row": self.row, "colour": self.colour}


def streak_lengths(results: Iterable[Result | str]) -> list[int]:
    """The big road's columns as they are logically, ignoring ties and dragon tails: the length of
    each streak of Player or Banker wins."""
    lengths: list[int] = []
    last = None
    for item in results:
        winner = Result.of(item).winner
        if winner == "tie":
            continue
        if winner == last:
            lengths[-1] += 1
        else:
            lengths.append(1)
        last = winner
    return lengths


def derived_colours(results: Iterable[Result | str], offset: int) -> list[str]:
    """The colours of a derived road, one per big road entry from its starting point on.

    `offset` is 1 for the big eye boy, 2 for the small road, 3 for the cockroach pig. An entry
    that starts a column (row 0) is red when the two columns before it, `offset` apart, are as
    long as each other. An entry further down (row r) is red unless the column `offset` to the left
    is exactly r long (it has row r-1 but not row r: the streak just outgrew it). The road starts
    at row 1 of column `offset`, or else at row 0 of column `offset` + 1."""
    lengths = streak_lengths(results)
    colours: list[str] = []
    for column, length in enumerate(lengths):
        for row in range(length):
            if row == 0:
                if column - 1 - offset < 0:
                    continue
                same = lengths[column - 1] == lengths[column - 1 - offset]
            else:
                if column - offset < 0:
                    continue
                same = lengths[column - offset] != row
            colours.append(RED if same else BLUE)
    return colours


def derived_road(results: Iterable[Result | str], offset: int, rows: int = ROWS) -> list[DerivedCell]:
    """A derived road drawn as the big road is: a run of one colour down a column, dragon tails."""
    colours = derived_colours(results, offset)
    places = _place(colours, rows)
    return [DerivedCell(column, row, colour) for (column, row), colour in zip(places, colours, strict=True)]


def big_eye_boy(results: Iterable[Result | str], rows: int = ROWS) -> list[DerivedCell]:
    return derived_road(results, DERIVED_ROADS["big_eye_boy"], rows)


def small_road(results: Iterable[Result | str], rows: int = ROWS) -> list[DerivedCell]:
    return derived_road(results, DERIVED_ROADS["small_road"], rows)


def cockroach_pig(results: Iterable[Result | str], rows: int = ROWS) -> list[DerivedCell]:
    return derived_road(results, DERIVED_ROADS["cockroach_pig"], rows)


def roads(results: Iterable[Result | str]) -> dict[str, list[CellDict]]:
    """Every scoreboard of a shoe, JSON-ready: bead plate, big road and the three derived roads."""
    results = [Result.of(item) for item in results]
    return {
        "bead_plate": [cell.as_dict() for cell in bead_plate(results)],
        "big_road": [cell.as_dict() for cell in big_road(results)],
        **{name: [cell.as_dict() for cell in derived_road(results, offset)] for name, offset in DERIVED_ROADS.items()},
    }


def tally(results: Iterable[Result | str]) -> dict[str, int]:
    """How many coups each side won, and the ties."""
    counts = {"player": 0, "banker": 0, "tie": 0}
    for item in results:
        counts[Result.of(item).winner] += 1
    return counts
