"""The bead plate and the big road: where each result goes, as pit bosses read them."""

from pit.game.roads import Result, bead_plate, big_road, tally


def _road(text: str):
    letters = {"P": "player", "B": "banker", "T": "tie"}
    return [(c.column, c.row, c.winner[0].upper(), c.ties) for c in big_road(letters[x] for x in text)]


def test_the_bead_plate_runs_down_six_rows_then_on_to_the_next_column():
    results = ["banker", "player", "tie", "banker", "banker", "player", "player", Result("tie", True, False)]
    cells = bead_plate(results)
    assert [(c.column, c.row, c.winner) for c in cells] == [
        (0, 0, "banker"),
        (0, 1, "player"),
        (0, 2, "tie"),
        (0, 3, "banker"),
        (0, 4, "banker"),
        (0, 5, "player"),
        (1, 0, "player"),
        (1, 1, "tie"),
    ]
    assert cells[-1].as_dict() == {"col": 1, "row": 1, "winner": "tie", "pp": True, "bp": False}
    assert bead_plate([]) == []


def test_a_streak_runs_down_and_a_change_of_winner_starts_a_new_column():
    assert _road("BBBPPB") == [
        (0, 0, "B", 0),
        (0, 1, "B", 0),
        (0, 2, "B", 0),
        (1, 0, "P", 0),
        (1, 1, "P", 0),
        (2, 0, "B", 0),
    ]


def test_a_tie_is_a_slash_on_the_cell_before_it_and_never_a_cell_of_its_own():
    assert _road("BTPTTP") == [(0, 0, "B", 1), (1, 0, "P", 2), (1, 1, "P", 0)]


def test_ties_before_the_first_win_are_marked_on_the_first_cell():
    assert _road("TTBB") == [(0, 0, "B", 2), (0, 1, "B", 0)]
    assert _road("TTT") == []


def test_a_long_streak_turns_right_at_the_sixth_row_the_dragon_tail():
    assert _road("BBBBBBBBP") == [
        (0, 0, "B", 0),
        (0, 1, "B", 0),
        (0, 2, "B", 0),
        (0, 3, "B", 0),
        (0, 4, "B", 0),
        (0, 5, "B", 0),
        (1, 5, "B", 0),
        (2, 5, "B", 0),
        (1, 0, "P", 0),
    ]


def test_a_streak_that_meets_a_dragon_tail_turns_right_above_it():
    road = _road("BBBBBBBB" + "PPPPPP")
    assert road[8:] == [
        (1, 0, "P", 0),
        (1, 1, "P", 0),
        (1, 2, "P", 0),
        (1, 3, "P", 0),
        (1, 4, "P", 0),
        (2, 4, "P", 0),
    ]
    # The next streak starts in the column after the last streak began, below which the tails lie.
    assert _road("BBBBBBBB" + "PPPPPP" + "B")[-1] == (2, 0, "B", 0)


def test_after_a_tail_each_streak_still_starts_one_column_after_the_last_one_began():
    road = _road("BBBBBBB" + "P" + "BBBBBBB")
    assert road[6:8] == [(1, 5, "B", 0), (1, 0, "P", 0)]
    assert road[8:] == [
        (2, 0, "B", 0),
        (2, 1, "B", 0),
        (2, 2, "B", 0),
        (2, 3, "B", 0),
        (2, 4, "B", 0),
        (2, 5, "B", 0),
        (3, 5, "B", 0),
    ]


def test_tally_counts_each_side_and_the_ties():
    results = ["player", "banker", "tie", "banker", Result("banker")]
    assert tally(results) == {"player": 1, "banker": 3, "tie": 1}


def _cells(cells):
    return [(c.column, c.row) for c in cells]


def test_a_dragon_tail_keeps_going_right_once_it_turned():
    # 8 Banker then 8 Player: Banker runs down column 0 and tails along row 5 to column 2; Player
    # runs down column 1 to row 4, turns right above the Banker tail and stays on row 4.
    cells = big_road(["banker"] * 8 + ["player"] * 8)
    assert _cells(cells[8:]) == [(1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (2, 4), (3, 4), (4, 4)]
    assert cells[-1].as_dict() == {"col": 4, "row": 4, "winner": "player", "ties": 0}


def test_a_tail_under_a_tail_and_ties_on_the_tail():
    # B x7 tails at row 5; P x6 turns at row 4; B x3 starts column 2 and turns at row 3 (row 4 below
    # is the Player tail); a tie after the last Banker slashes that cell.
    cells = big_road(
        "B B B B B B B P P P P P P B B B B T".replace("B", "banker").replace("P", "player").replace("T", "tie").split()
    )
    assert _cells(cells) == [
        (0, 0),
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (0, 5),
        (1, 5),
        (1, 0),
        (1, 1),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 4),
        (2, 0),
        (2, 1),
        (2, 2),
        (2, 3),
    ]
    assert cells[-1].ties == 1


# The worked example (checked by hand from the rules, cell by cell, as scoreboard guides explain
# them): big road columns B B B | P P | B | P P P P | B B, with ties in between that change nothing.
EXAMPLE = "BBBTPPBTPPPPBB"


def test_streak_lengths_ignore_ties_and_tails():
    from pit.game.roads import streak_lengths

    assert streak_lengths(_letters(EXAMPLE)) == [3, 2, 1, 4, 2]
    assert streak_lengths(_letters("B" * 9)) == [9]


def _letters(text):
    return [{"P": "player", "B": "banker", "T": "tie"}[x] for x in text]


def _colours(road):
    return "".join(cell.colour[0].upper() for cell in road)


def test_big_eye_boy_small_road_and_cockroach_pig_of_the_worked_example():
    from pit.game.roads import big_eye_boy, cockroach_pig, small_road

    results = _letters(EXAMPLE)
    # Big eye boy (one column back), from column 1 row 1:
    # c1r1 col0 has a row 1: R; c2r0 |c1|=2 vs |c0|=3: B; c3r0 |c2|=1 vs |c1|=2: B;
    # c3r1 col2 is exactly 1 long: B; c3r2, c3r3 col2 far shorter: R R; c4r0 |c3|=4 vs |c2|=1: B;
    # c4r1 col3 has a row 1: R.
    assert _colours(big_eye_boy(results)) == "RBBBRRBR"
    # Small road (two back), from column 3 row 0: c3r0 |c2|=1 vs |c0|=3: B; c3r1 col1 has row 1: R;
    # c3r2 col1 exactly 2 long: B; c3r3: R; c4r0 |c3|=4 vs |c1|=2: B; c4r1 col2 exactly 1 long: B.
    assert _colours(small_road(results)) == "BRBRBB"
    # Cockroach pig (three back), from column 3 row 1: c3r1, c3r2 col0 is 3 long: R R; c3r3 exactly
    # 3: B; c4r0 |c3|=4 vs |c0|=3: B; c4r1 col1 has row 1: R.
    assert _colours(cockroach_pig(results)) == "RRBBR"
    # Drawn as the big road is: a run of one colour down a column.
    assert [(c.column, c.row, c.colour) for c in big_eye_boy(results)] == [
        (0, 0, "red"),
        (1, 0, "blue"),
        (1, 1, "blue"),
        (1, 2, "blue"),
        (2, 0, "red"),
        (2, 1, "red"),
        (3, 0, "blue"),
        (4, 0, "red"),
    ]


def test_derived_roads_start_late_and_a_one_winner_shoe_is_all_red():
    from pit.game.roads import big_eye_boy, cockroach_pig, roads, small_road

    assert big_eye_boy(_letters("BBB")) == [] and big_eye_boy(_letters("BP")) == []
    assert _colours(big_eye_boy(_letters("BPP"))) == "B"  # column 0 is exactly 1 long
    assert _colours(big_eye_boy(_letters("BBPP"))) == "R"  # column 0 has a row 1
    assert _colours(big_eye_boy(_letters("BBPB"))) == "B"  # |P|=1 vs |BB|=2
    assert _colours(big_eye_boy(_letters("BPB"))) == "R"  # |P|=1 vs |B|=1
    assert small_road(_letters("BPB")) == [] and cockroach_pig(_letters("BPBP")) == []
    assert _colours(cockroach_pig(_letters("BPBPB"))) == "R"
    # Alternating wins (a "chop"): every column as long as the one before: all red on every road.
    chop = _letters("BP" * 8)
    assert {cell.colour for road in (big_eye_boy, small_road, cockroach_pig) for cell in road(chop)} == {"red"}
    drawn = roads(_letters("BBPT"))
    assert set(drawn) == {"bead_plate", "big_road", "big_eye_boy", "small_road", "cockroach_pig"}
    assert drawn["big_road"][-1] == {"col": 1, "row": 0, "winner": "player", "ties": 1}
