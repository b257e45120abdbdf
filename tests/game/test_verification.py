"""Verifying dealt coups and shoes: every violation code, with the exact words a pit boss reads."""

from collections import Counter

import pytest

from pit.game import (
    ALL_CARD_CODES,
    VIOLATION_CODES,
    Coup,
    Severity,
    Violation,
    check_cards_seen,
    check_coup_number,
    check_repost,
    coup_after_shoe_closed,
    play_at_closed_table,
    repost_differs,
    verify_coup,
    violation,
)

PRODUCT_CODES = {
    "player_extra_card",
    "player_missing_card",
    "banker_extra_card",
    "banker_missing_card",
    "hand_size",
    "reported_winner_mismatch",
    "card_over_capacity",
    "shoe_overdealt",
    "coup_number_gap",
    "coup_number_repeat",
    "coup_conflict",
    "coup_repost_differs",
    "coup_after_shoe_closed",
    "play_at_closed_table",
    "payout_mismatch",
    "commission_mismatch",
    "wager_over_maximum",
    "wager_under_minimum",
    "wager_off_increment",
    "seat_bet_both_sides",
    "box_variance",
    "record_chain_broken",
    "derivation_quarantined",
    "inventory_chain_break",
    "slip_amount_mismatch",
    "slip_not_received",
    "win_reconciliation_variance",
    # Game protection (pit/protection).
    "shoe_sequence_repeat",
    "new_deck_order_run",
    "stale_feed",
    "coup_rate_high",
    "win_deviation",
    "side_bet_advantage_play",
    "dealer_error_rate",
    # Dealers (pit/dealers): a rotation past a shift.
    "dealer_rotation_overdue",
    # Players (pit/players): an excluded patron seated, one card at two tables.
    "excluded_patron_seated",
    "patron_at_two_tables",
    # The patrons' cash (pit/cash): a seated patron near the CTR threshold.
    "cash_threshold_near",
    "cash_filing_due",
    "slip_number_gap",
    "surveillance_unacknowledged",
    "regulator_notice_due",
    "regulator_notice_overdue",
    # The pit's internal controls (pit/controls): cards, keys, shift handovers.
    "shoe_cards_not_issued",
    "deck_issued_twice",
    "deck_in_use_overdue",
    "key_issued_unlisted",
    "key_out_overdue",
    "shift_not_handed_over",
}


def coup(player, banker):
    return Coup.from_codes(player=player, banker=banker)


def test_registry_holds_every_code_of_the_product():
    assert set(VIOLATION_CODES) == PRODUCT_CODES
    for code, kind in VIOLATION_CODES.items():
        assert kind.code == code
        assert kind.severity in {"low", "medium", "high"}
        assert kind.title and kind.title[0].isupper()


def test_violation_takes_its_severity_from_the_registry():
    made = violation("coup_number_repeat", "Coup 3 was posted again.")
    assert made == Violation("coup_number_repeat", "Coup 3 was posted again.", "low")
    assert made.as_dict() == {
        "code": "coup_number_repeat",
        "message": "Coup 3 was posted again.",
        "severity": "low",
    }
    assert VIOLATION_CODES["banker_extra_card"].severity is Severity.HIGH
    with pytest.raises(ValueError, match="'made_up' is not a registered violation code"):
        violation("made_up", "x")


def test_a_correct_coup_has_no_violation():
    assert verify_coup(coup(["5H", "KD", "2C"], ["9S", "7D"]), "player") == []
    assert verify_coup(coup(["5H", "KD", "2C"], ["9S", "7D"])) == []


@pytest.mark.parametrize(
    ("player", "banker", "expected"),
    [
        (
            ["6H", "KD", "2C"],
            ["9S", "7D"],
            [
                (
                    "player_extra_card",
                    "Player drew a third card (2♣) on 6; the rule says Player stands on 6 or 7.",
                )
            ],
        ),
        (
            ["5H", "3D", "2C"],
            ["9S", "7D"],
            [
                (
                    "player_extra_card",
                    "Player drew a third card (2♣) on a natural 8; on a natural both hands stand.",
                )
            ],
        ),
        (
            ["5H", "KD", "2C"],
            ["9S", "KS"],
            [
                (
                    "player_extra_card",
                    "Player drew a third card (2♣) although Banker has a natural 9; on a natural both hands stand.",
                )
            ],
        ),
        (
            ["5H", "KD"],
            ["9S", "7D"],
            [("player_missing_card", "Player stood on 5; the rule says Player draws on 0 to 5.")],
        ),
        (
            ["TH", "KD", "3D"],
            ["2S", "4D", "4C"],
            [
                (
                    "banker_extra_card",
                    "Banker drew a third card (4♣) on 6 after Player's third card 3♦; "
                    "the rule says Banker stands "
                    "(Banker draws on 6 only when Player's third card is 6 or 7).",
                )
            ],
        ),
        (
            ["TH", "7D"],
            ["2S", "4D", "4C"],
            [
                (
                    "banker_extra_card",
                    "Banker drew a third card (4♣) on 6 after Player stood; the rule says Banker stands "
                    "(when Player stands, Banker draws on 0 to 5 and stands on 6 or 7).",
                )
            ],
        ),
        (
            ["TH", "KD", "3D"],
            ["3S", "4D", "4C"],
            [
                (
                    "banker_extra_card",
                    "Banker drew a third card (4♣) on 7 after Player's third card 3♦; "
                    "the rule says Banker stands (Banker always stands on 7).",
                )
            ],
        ),
        (
            ["TH", "8D"],
            ["2S", "4D", "4C"],
            [
                (
                    "banker_extra_card",
                    "Banker drew a third card (4♣) although Player has a natural 8; on a natural both hands stand.",
                )
            ],
        ),
        (
            ["TH", "7D"],
            ["5S", "4D", "4C"],
            [
                (
                    "banker_extra_card",
                    "Banker drew a third card (4♣) on a natural 9; on a natural both hands stand.",
                )
            ],
        ),
        (
            ["TH", "KD", "9S"],
            ["2S", "AD"],
            [
                (
                    "banker_missing_card",
                    "Banker stood on 3 after Player's third card 9♠; the rule says Banker draws "
                    "(Banker draws on 3 unless Player's third card is an 8).",
                )
            ],
        ),
        (
            ["TH", "KD", "TS"],
            ["2S", "AD"],
            [
                (
                    "banker_missing_card",
                    "Banker stood on 3 after Player's third card 10♠; the rule says Banker draws "
                    "(Banker draws on 3 unless Player's third card is an 8).",
                )
            ],
        ),
        (
            ["TH", "6D"],
            ["2S", "3D"],
            [
                (
                    "banker_missing_card",
                    "Banker stood on 5 after Player stood; the rule says Banker draws "
                    "(when Player stands, Banker draws on 0 to 5 and stands on 6 or 7).",
                )
            ],
        ),
        (
            ["TH", "KD", "2S"],
            ["TS", "AD"],
            [
                (
                    "banker_missing_card",
                    "Banker stood on 1 after Player's third card 2♠; the rule says Banker draws "
                    "(Banker always draws on 0, 1 or 2).",
                )
            ],
        ),
        (
            ["TH", "KD", "7S"],
            ["TS", "4D"],
            [
                (
                    "banker_missing_card",
                    "Banker stood on 4 after Player's third card 7♠; the rule says Banker draws "
                    "(Banker draws on 4 when Player's third card is 2 to 7).",
                )
            ],
        ),
        (
            ["TH", "KD", "5S"],
            ["TS", "5D"],
            [
                (
                    "banker_missing_card",
                    "Banker stood on 5 after Player's third card 5♠; the rule says Banker draws "
                    "(Banker draws on 5 when Player's third card is 4 to 7).",
                )
            ],
        ),
    ],
)
def test_draw_violations_with_messages(player, banker, expected):
    found = verify_coup(coup(player, banker))
    assert [(v.code, v.message) for v in found] == expected
    assert all(v.severity == "high" for v in found)


def test_banker_is_judged_by_a_wrongly_dealt_player_third_card():
    # Player stood on 6 but got a 6 anyway; Banker's 6 then draws on that 6 like the rule says.
    found = verify_coup(coup(["6H", "KD", "6C"], ["2S", "4D", "AC"]))
    assert [v.code for v in found] == ["player_extra_card"]
    # Had Banker stood, that is a second violation: judged by the card Player actually held.
    found = verify_coup(coup(["6H", "KD", "6C"], ["2S", "4D"]))
    assert [v.code for v in found] == ["player_extra_card", "banker_missing_card"]


def test_banker_is_judged_as_if_player_stood_when_player_wrongly_stood():
    # Player wrongly stood on 4; Banker 6 stands when Player stands, so Banker's stand is right.
    assert [v.code for v in verify_coup(coup(["TH", "4D"], ["2S", "4D"]))] == ["player_missing_card"]
    # Banker 5 must draw when Player stands.
    found = verify_coup(coup(["TH", "4D"], ["2S", "3D"]))
    assert [v.code for v in found] == ["player_missing_card", "banker_missing_card"]


@pytest.mark.parametrize(
    ("player", "banker", "messages"),
    [
        (["4H"], ["2S", "3D", "AC"], ["Player holds 1 card (4♥); a hand holds two or three cards."]),
        ([], ["2S", "3D"], ["Player holds no cards; a hand holds two or three cards."]),
        (
            ["TH", "KD", "2C", "3C"],
            ["TS", "AD", "4C"],
            ["Player holds 4 cards (10♥ K♦ 2♣ 3♣); a hand holds two or three cards."],
        ),
        (
            ["TH", "KD", "2C"],
            ["TS", "AD", "4C", "9C"],
            ["Banker holds 4 cards (10♠ A♦ 4♣ 9♣); a hand holds two or three cards."],
        ),
        (
            ["TH"],
            ["TS"],
            [
                "Player holds 1 card (10♥); a hand holds two or three cards.",
                "Banker holds 1 card (10♠); a hand holds two or three cards.",
            ],
        ),
    ],
)
def test_hand_size(player, banker, messages):
    found = verify_coup(coup(player, banker))
    assert [v.message for v in found if v.code == "hand_size"] == messages


def test_a_four_card_hand_is_also_judged_on_its_third_card():
    # Player 6 stands: the third card is extra, and the fourth makes the hand the wrong size.
    found = verify_coup(coup(["6H", "KD", "2C", "3C"], ["TS", "7D"]))
    assert [v.code for v in found] == ["hand_size", "player_extra_card"]


@pytest.mark.parametrize(
    ("player", "banker", "reported", "message"),
    [
        (
            ["5H", "KD", "2C"],
            ["9S", "7D"],
            "banker",
            "Reported winner is Banker, but the cards give Player 7 over Banker 6.",
        ),
        (
            ["5H", "KD", "AC"],
            ["9S", "7D"],
            "PLAYER",
            "Reported winner is Player, but the cards give a tie at 6.",
        ),
        (["5H", "KD", "AC"], ["9S", "7D"], "tie", None),
        (
            ["TH", "7D"],
            ["9S", "KD"],
            "tie",
            "Reported winner is a tie, but the cards give Banker 9 over Player 7.",
        ),
    ],
)
def test_reported_winner(player, banker, reported, message):
    found = verify_coup(coup(player, banker), reported)
    assert [(v.code, v.message) for v in found] == ([("reported_winner_mismatch", message)] if message else [])


def test_reported_winner_is_judged_on_the_cards_as_dealt_alongside_draw_violations():
    # Player wrongly drew on 7 and the 2 turned a loss into a win: both are reported.
    found = verify_coup(coup(["5H", "2D", "2C"], ["9S", "9D"]), "banker")
    assert [v.code for v in found] == ["player_extra_card", "reported_winner_mismatch"]
    assert found[1].message == "Reported winner is Banker, but the cards give Player 9 over Banker 8."


def test_invalid_reported_winner_raises_naming_it():
    with pytest.raises(ValueError, match="'dragon' is not a winner"):
        verify_coup(coup(["5H", "KD", "2C"], ["9S", "7D"]), "dragon")


def test_cards_seen_within_capacity():
    assert check_cards_seen(8, Counter(dict.fromkeys(ALL_CARD_CODES, 8))) == []
    assert check_cards_seen(1, {}) == []


def test_card_over_capacity_counts_every_spelling_of_a_card():
    found = check_cards_seen(8, {"AS": 8, "a♠": 1, "KD": 3})
    assert found == [Violation("card_over_capacity", "A♠ was seen 9 times; an 8-deck shoe holds 8.", "high")]


def test_shoe_overdealt():
    counts = dict.fromkeys(ALL_CARD_CODES, 6)
    counts["2H"] = 7
    found = check_cards_seen(6, counts)
    assert [(v.code, v.message) for v in found] == [
        ("card_over_capacity", "2♥ was seen 7 times; a 6-deck shoe holds 6."),
        ("shoe_overdealt", "313 cards were dealt or burned from this shoe; a 6-deck shoe holds 312."),
    ]


@pytest.mark.parametrize(("decks", "counts"), [(0, {}), (8, {"1X": 1}), (8, {"AS": -1}), (8, {"AS": 1.0})])
def test_check_cards_seen_refuses_bad_input(decks, counts):
    with pytest.raises(ValueError):
        check_cards_seen(decks, counts)


def test_coup_number_gap():
    assert check_coup_number(1, None) is None
    assert check_coup_number(5, 4) is None
    assert check_coup_number(4, 4) is None  # a repost, judged by check_repost
    assert check_coup_number(6, 4) == Violation(
        "coup_number_gap", "Coup 6 was posted after coup 4; coup 5 is missing.", "medium"
    )
    assert check_coup_number(9, 4).message == "Coup 9 was posted after coup 4; coups 5 to 8 are missing."
    assert check_coup_number(3, None).message == "Coup 3 was posted as the shoe's first coup; coups 1 to 2 are missing."


def test_repost_same_cards_is_a_repeat_and_different_cards_a_conflict():
    recorded = coup(["5H", "KD", "2C"], ["9S", "7D"])
    assert check_repost(12, recorded, coup(["5h", "kd", "2c"], ["9s", "7d"])) == Violation(
        "coup_number_repeat",
        "Coup 12 was posted again with the same cards (Player 5♥ K♦ 2♣, Banker 9♠ 7♦).",
        "low",
    )
    conflict = check_repost(12, recorded, coup(["5H", "KD"], ["9S", "8D"]))
    assert conflict == Violation(
        "coup_conflict",
        "Coup 12 was posted again with different cards: recorded Player 5♥ K♦ 2♣, Banker 9♠ 7♦; "
        "now Player 5♥ K♦, Banker 9♠ 8♦.",
        "high",
    )


def test_repost_differs_names_each_difference():
    found = repost_differs(
        12,
        {"wagers[1].amount": ["recorded 100.00, posted 150.00"], "reported_winner": ["recorded banker, posted player"]},
    )
    assert found == Violation(
        "coup_repost_differs",
        "Coup 12 was posted again with the same cards but other values (wagers[1].amount: recorded 100.00, "
        "posted 150.00; reported_winner: recorded banker, posted player); the coup as first recorded stands.",
        "high",
    )


def test_play_at_closed_table():
    assert play_at_closed_table(7, "BB1") == Violation(
        "play_at_closed_table", "Coup 7 was posted while table BB1 was closed.", "medium"
    )


def test_coup_after_shoe_closed():
    assert coup_after_shoe_closed(31, "T3-2024-05-01-2") == Violation(
        "coup_after_shoe_closed", "Coup 31 was posted after shoe T3-2024-05-01-2 was closed.", "medium"
    )
    assert coup_after_shoe_closed(2).message == "Coup 2 was posted after its shoe was closed."
