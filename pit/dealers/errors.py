"""Whose each violation code is, before any pit boss says otherwise: one classification, read by the
dealers' figures (`pit.dealers.selectors`) and by `dealer_error_rate` (`pit.protection.dealer_errors`).

- the dealer's: what a dealer does wrong at the table (draws against the rule, the wrong winner
  called, a payout or a commission other than the paytable's);
- a machine's (a device): what the card reader, the bet recognition or the feed gets wrong (a card
  the shoe cannot hold, coups numbered or posted wrong, a feed gone quiet, a shoe's cards replayed);
- neither: the player's, the procedure's or the count's (limits, a shuffle, the cage, the box).

Every registered code is in exactly one class (tests/dealers enumerates `pit.game.VIOLATION_CODES`).
A pit boss's attribution of one violation (`ViolationFault`) overrides its code's class.
"""

from pit.dealers.models import Fault

CODE_FAULT: dict[str, Fault] = {
    # The dealer's.
    "player_extra_card": Fault.DEALER,
    "player_missing_card": Fault.DEALER,
    "banker_extra_card": Fault.DEALER,
    "banker_missing_card": Fault.DEALER,
    "hand_size": Fault.DEALER,
    "reported_winner_mismatch": Fault.DEALER,
    "payout_mismatch": Fault.DEALER,
    "commission_mismatch": Fault.DEALER,
    # A machine's: the reader, the bet recognition, the feed.
    "card_over_capacity": Fault.DEVICE,
    "shoe_overdealt": Fault.DEVICE,
    "coup_number_gap": Fault.DEVICE,
    "coup_number_repeat": Fault.DEVICE,
    "coup_conflict": Fault.DEVICE,
    "coup_repost_differs": Fault.DEVICE,
    "coup_after_shoe_closed": Fault.DEVICE,
    "shoe_sequence_repeat": Fault.DEVICE,
    "stale_feed": Fault.DEVICE,
    "coup_rate_high": Fault.DEVICE,
    "record_chain_broken": Fault.DEVICE,
    # Neither: the player's, the procedure's, the count's, or a finding over many coups.
    "play_at_closed_table": Fault.OTHER,
    "wager_over_maximum": Fault.OTHER,
    "wager_under_minimum": Fault.OTHER,
    "wager_off_increment": Fault.OTHER,
    "seat_bet_both_sides": Fault.OTHER,
    "box_variance": Fault.OTHER,
    "inventory_chain_break": Fault.OTHER,
    "slip_amount_mismatch": Fault.OTHER,
    "slip_not_received": Fault.OTHER,
    "win_reconciliation_variance": Fault.OTHER,
    "new_deck_order_run": Fault.OTHER,
    "win_deviation": Fault.OTHER,
    "side_bet_advantage_play": Fault.OTHER,
    "dealer_error_rate": Fault.OTHER,
    "dealer_rotation_overdue": Fault.OTHER,
    "derivation_quarantined": Fault.OTHER,
    "excluded_patron_seated": Fault.OTHER,
    "patron_at_two_tables": Fault.OTHER,
    "cash_threshold_near": Fault.OTHER,
    "cash_filing_due": Fault.OTHER,
    "shoe_cards_not_issued": Fault.OTHER,
    "deck_issued_twice": Fault.OTHER,
    "deck_in_use_overdue": Fault.OTHER,
    "key_issued_unlisted": Fault.OTHER,
    "key_out_overdue": Fault.OTHER,
    "shift_not_handed_over": Fault.OTHER,
    "slip_number_gap": Fault.OTHER,
    "surveillance_unacknowledged": Fault.OTHER,
    "regulator_notice_due": Fault.OTHER,
    "regulator_notice_overdue": Fault.OTHER,
}

# The codes charged to the dealer of the coup (unless a pit boss put the violation down to a device or neither).
DEALER_ERROR_CODES: tuple[str, ...] = tuple(code for code, fault in CODE_FAULT.items() if fault == Fault.DEALER)
