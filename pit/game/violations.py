"""The registry of every rule-violation code in the product, with its title and severity."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Severity(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


@dataclass(frozen=True, slots=True)
class ViolationKind:
    code: str
    title: str
    severity: Severity


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule, in words a pit boss understands. Never corrected silently, only reported."""

    code: str
    message: str
    severity: str

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message, "severity": self.severity}


def _kinds(*kinds: tuple[str, str, Severity]) -> dict[str, ViolationKind]:
    return {code: ViolationKind(code, title, severity) for code, title, severity in kinds}


# Severity reflects what is at stake: high when the result or money may be wrong, medium when
# records are incomplete or limits are broken, low for irregularities that settle correctly.
VIOLATION_CODES: dict[str, ViolationKind] = _kinds(
    ("player_extra_card", "Player drew a card the rule did not call for", Severity.HIGH),
    ("player_missing_card", "Player stood when the rule called for a card", Severity.HIGH),
    ("banker_extra_card", "Banker drew a card the rule did not call for", Severity.HIGH),
    ("banker_missing_card", "Banker stood when the rule called for a card", Severity.HIGH),
    ("hand_size", "A hand holds fewer than two or more than three cards", Severity.HIGH),
    ("reported_winner_mismatch", "The reported winner differs from the cards", Severity.HIGH),
    ("card_over_capacity", "A card seen more often than the shoe holds it", Severity.HIGH),
    ("shoe_overdealt", "More cards accounted for than the shoe holds", Severity.HIGH),
    ("coup_number_gap", "Coup numbers skip within a shoe", Severity.MEDIUM),
    ("coup_number_repeat", "A coup posted again with the same cards", Severity.LOW),
    ("coup_conflict", "A coup number posted again with different cards", Severity.HIGH),
    ("coup_repost_differs", "A coup posted again with other wagers, winner or time", Severity.HIGH),
    ("coup_after_shoe_closed", "A coup posted to a shoe already closed", Severity.MEDIUM),
    ("play_at_closed_table", "A coup posted while its table was closed", Severity.MEDIUM),
    ("payout_mismatch", "A payout differs from the paytable", Severity.HIGH),
    ("commission_mismatch", "A commission differs from the paytable", Severity.MEDIUM),
    ("wager_over_maximum", "A wager above the table maximum", Severity.MEDIUM),
    ("wager_under_minimum", "A wager below the table minimum", Severity.LOW),
    ("wager_off_increment", "A wager not in the bet's increments", Severity.LOW),
    ("seat_bet_both_sides", "One seat bet on both Player and Banker", Severity.MEDIUM),
    ("box_variance", "The commission box count differs from the ledger", Severity.HIGH),
    ("record_chain_broken", "A recorded row no longer matches its shoe's hash chain", Severity.HIGH),
    ("derivation_quarantined", "A figure not derived: its shoe is quarantined (a broken chain)", Severity.HIGH),
    # Table accounting (pit.accounting): the chip tray, fills and credits, the statutory win.
    ("inventory_chain_break", "A table's opener differs from its previous closer", Severity.HIGH),
    ("slip_amount_mismatch", "A fill or credit counted with other chips than requested", Severity.HIGH),
    ("slip_not_received", "A fill or credit requested but never received at the table", Severity.HIGH),
    ("win_reconciliation_variance", "The statutory win differs from the wager-based win", Severity.HIGH),
    # Game protection (pit.protection): patterns across coups, for surveillance to review.
    ("shoe_sequence_repeat", "A shoe dealt cards in the same order as an earlier shoe", Severity.HIGH),
    ("new_deck_order_run", "A run of cards in new-deck order: the shoe may not be shuffled", Severity.HIGH),
    ("stale_feed", "An open table's dealing shoe has sent no coup for too long", Severity.MEDIUM),
    ("coup_rate_high", "More coups in an hour than a dealer can deal", Severity.MEDIUM),
    ("win_deviation", "Win against theoretical beyond the alarm threshold (z-score)", Severity.MEDIUM),
    ("side_bet_advantage_play", "A seat's side bets fall on positive-expectation coups beyond chance", Severity.MEDIUM),
    ("dealer_error_rate", "A dealer's errors per 1,000 coups beyond the threshold, beyond chance", Severity.MEDIUM),
    # Internal controls (pit.accounting's slip series, pit.notices): each number, notice and deadline kept.
    ("slip_number_gap", "A fill or credit slip number neither used nor voided below one used", Severity.MEDIUM),
    ("surveillance_unacknowledged", "A notification to surveillance not acknowledged in time", Severity.MEDIUM),
    ("regulator_notice_due", "A notice to the regulator not filed, its deadline near", Severity.HIGH),
    ("regulator_notice_overdue", "A notice to the regulator not filed by its deadline", Severity.HIGH),
    ("dealer_rotation_overdue", "A dealer's rotation ran past a shift with nobody recorded coming in", Severity.MEDIUM),
    # Players (pit.players): who sits at the tables.
    ("excluded_patron_seated", "An excluded patron seated at a table", Severity.HIGH),
    ("patron_at_two_tables", "One patron's card seated at two tables at once", Severity.MEDIUM),
    # The patrons' cash (pit.cash): a seated patron near the day's reporting threshold.
    ("cash_threshold_near", "A seated patron's cash in today near the CTR threshold", Severity.MEDIUM),
    ("cash_filing_due", "A cash finding not filed, its filing deadline near or passed", Severity.HIGH),
    # The pit's internal controls (pit.controls): cards, keys and the shift handover.
    ("shoe_cards_not_issued", "A shoe dealt from decks not issued to it (or not as many as it holds)", Severity.HIGH),
    ("deck_issued_twice", "A deck issued to a table a second time", Severity.HIGH),
    ("deck_in_use_overdue", "A deck at a table longer than allowed without coming back", Severity.MEDIUM),
    ("key_issued_unlisted", "A sensitive key issued to someone not on its access list", Severity.HIGH),
    ("key_out_overdue", "A sensitive key out past its time", Severity.MEDIUM),
    ("shift_not_handed_over", "A shift change with no handover recorded and accepted", Severity.MEDIUM),
)


def violation(code: str, message: str) -> Violation:
    """A violation of a registered code, with the code's severity."""
    try:
        kind = VIOLATION_CODES[code]
    except KeyError:
        raise ValueError(f"{code!r} is not a registered violation code") from None
    return Violation(code, message, str(kind.severity))
