"""The bead plate and the big road: where each result goes, as pit bosses read them."""
from pit.dashboard.roads import Result, bead_plate, big_road, tally


def _road(text: str):
    letters = {"P": "player", "B": "banker", "T": "tie"}
    return [(c.column, c.row, c.winner[0].upper(), c.ties) for c in big_road(letters[x] for x in text)]


def test_the_bead_plate_runs_down_six_rows_then_on_to_the_next_column():
    results = ["banker", "player", "tie", "banker", "banker", "player", "player", Result("tie", True, False)]
    cells = bead_plate(results)
    assert [(c.column, c.row, c.winner) for c in cells] == [
        (0, 0, "banker"), (0, 1, "player"), (0, 2, "tie"), (0, 3, "banker"), (0, 4, "banker"),
        (0, 5, "player"), (1, 0, "player"), (1, 1, "tie"),
    ]
    assert cells[-1].as_dict() == {"col": 1, "row": 1, "winner": "tie", "pp": True, "bp": False}
    assert bead_plate([]) == []


def test_a_streak_runs_down_and_a_change_of_winner_starts_a_new_column():
    assert _road("BBBPPB") == [
        (0, 0, "B", 0), (0, 1, "B", 0), (0, 2, "B", 0), (1, 0, "P", 0), (1, 1, "P", 0), (2, 0, "B", 0),
    ]


def test_a_tie_is_a_slash_on_the_cell_before_it_and_never_a_cell_of_its_own():
    assert _road("BTPTTP") == [(0, 0, "B", 1), (1, 0, "P", 2), (1, 1, "P", 0)]


def test_ties_before_the_first_win_are_marked_on_the_first_cell():
    assert _road("TTBB") == [(0, 0, "B", 2), (0, 1, "B", 0)]
    assert _road("TTT") == []


def test_a_long_streak_turns_right_at_the_sixth_row_the_dragon_tail():
    assert _road("BBBBBBBBP") == [
        (0, 0, "B", 0), (0, 1, "B", 0), (0, 2, "B", 0), (0, 3, "B", 0), (0, 4, "B", 0), (0, 5, "B", 0),
        (1, 5, "B", 0), (2, 5, "B", 0), (1, 0, "P", 0),
    ]


def test_a_streak_that_meets_a_dragon_tail_turns_right_above_it():
    road = _road("BBBBBBBB" + "PPPPPP")
    assert road[8:] == [
        (1, 0, "P", 0), (1, 1, "P", 0), (1, 2, "P", 0), (1, 3, "P", 0), (1, 4, "P", 0), (2, 4, "P", 0),
    ]
    # The next streak starts in the column after the last streak began, below which the tails lie.
    assert _road("BBBBBBBB" + "PPPPPP" + "B")[-1] == (2, 0, "B", 0)


def test_after_a_tail_each_streak_still_starts_one_column_after_the_last_one_began():
    road = _road("BBBBBBB" + "P" + "BBBBBBB")
    assert road[6:8] == [(1, 5, "B", 0), (1, 0, "P", 0)]
    assert road[8:] == [(2, 0, "B", 0), (2, 1, "B", 0), (2, 2, "B", 0), (2, 3, "B", 0), (2, 4, "B", 0),
                        (2, 5, "B", 0), (3, 5, "B", 0)]


def test_tally_counts_each_side_and_the_ties():
    results = ["player", "banker", "tie", "banker", Result("banker")]
    assert tally(results) == {"player": 1, "banker": 3, "tie": 1}
