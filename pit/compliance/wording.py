"""A violation in the reader's language.

The checks record a violation's sentence in English (`RuleViolation.message`), and that stays the
record: the audit trail, the search and the exports keep it as written. The screens show it in the
reader's language, worded at display time from what the violation stores:

* the code's title (`CODE_TITLES`, one sentence per registered code: always there, in every language);
* the whole sentence with its figures where the recorded message has one of the code's worded forms
  (`SENTENCES`: the English form the check writes, with its placeholders, and its translation). The
  figures (cards, amounts, table codes, times) are read back from the recorded message by the English
  form and put in the translated one unchanged;
* otherwise the title, followed by the recorded sentence as it is (the figures are never lost).

In English the recorded message is shown as it is.
"""

from __future__ import annotations

import re
from functools import cache

from django.utils import translation
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django_stubs_ext import StrOrPromise

from pit.core.bet_names import BET_NAMES

# The engine's titles (pit.game.VIOLATION_CODES), marked for translation; a test holds the two equal.
CODE_TITLES = {
    "player_extra_card": _("Player drew a card the rule did not call for"),
    "player_missing_card": _("Player stood when the rule called for a card"),
    "banker_extra_card": _("Banker drew a card the rule did not call for"),
    "banker_missing_card": _("Banker stood when the rule called for a card"),
    "hand_size": _("A hand holds fewer than two or more than three cards"),
    "reported_winner_mismatch": _("The reported winner differs from the cards"),
    "card_over_capacity": _("A card seen more often than the shoe holds it"),
    "shoe_overdealt": _("More cards accounted for than the shoe holds"),
    "coup_number_gap": _("Coup numbers skip within a shoe"),
    "coup_number_repeat": _("A coup posted again with the same cards"),
    "coup_conflict": _("A coup number posted again with different cards"),
    "coup_repost_differs": _("A coup posted again with other wagers, winner or time"),
    "coup_after_shoe_closed": _("A coup posted to a shoe already closed"),
    "play_at_closed_table": _("A coup posted while its table was closed"),
    "payout_mismatch": _("A payout differs from the paytable"),
    "commission_mismatch": _("A commission differs from the paytable"),
    "wager_over_maximum": _("A wager above the table maximum"),
    "wager_under_minimum": _("A wager below the table minimum"),
    "wager_off_increment": _("A wager not in the bet's increments"),
    "seat_bet_both_sides": _("One seat bet on both Player and Banker"),
    "box_variance": _("The commission box count differs from the ledger"),
    "record_chain_broken": _("A recorded row no longer matches its shoe's hash chain"),
    "derivation_quarantined": _("A figure not derived: its shoe is quarantined (a broken chain)"),
    "inventory_chain_break": _("A table's opener differs from its previous closer"),
    "slip_amount_mismatch": _("A fill or credit counted with other chips than requested"),
    "slip_not_received": _("A fill or credit requested but never received at the table"),
    "win_reconciliation_variance": _("The statutory win differs from the wager-based win"),
    "shoe_sequence_repeat": _("A shoe dealt cards in the same order as an earlier shoe"),
    "new_deck_order_run": _("A run of cards in new-deck order: the shoe may not be shuffled"),
    "stale_feed": _("An open table's dealing shoe has sent no coup for too long"),
    "coup_rate_high": _("More coups in an hour than a dealer can deal"),
    "win_deviation": _("Win against theoretical beyond the alarm threshold (z-score)"),
    "side_bet_advantage_play": _("A seat's side bets fall on positive-expectation coups beyond chance"),
    "dealer_error_rate": _("A dealer's errors per 1,000 coups beyond the threshold, beyond chance"),
    "dealer_rotation_overdue": _("A dealer's rotation ran past a shift with nobody recorded coming in"),
    "cash_threshold_near": _("A seated patron's cash in today near the CTR threshold"),
    "cash_filing_due": _("A cash finding not filed, its filing deadline near or passed"),
    "deck_in_use_overdue": _("A deck at a table longer than allowed without coming back"),
    "deck_issued_twice": _("A deck issued to a table a second time"),
    "excluded_patron_seated": _("An excluded patron seated at a table"),
    "key_issued_unlisted": _("A sensitive key issued to someone not on its access list"),
    "key_out_overdue": _("A sensitive key out past its time"),
    "patron_at_two_tables": _("One patron's card seated at two tables at once"),
    "regulator_notice_due": _("A notice to the regulator not filed, its deadline near"),
    "regulator_notice_overdue": _("A notice to the regulator not filed by its deadline"),
    "shift_not_handed_over": _("A shift change with no handover recorded and accepted"),
    "shoe_cards_not_issued": _("A shoe dealt from decks not issued to it (or not as many as it holds)"),
    "slip_number_gap": _("A fill or credit slip number neither used nor voided below one used"),
    "surveillance_unacknowledged": _("A notification to surveillance not acknowledged in time"),
}

# Per code, the English forms its checks write (placeholders %(name)s) and their translations. The
# English form is the msgid: the catalog entry and the reading of the recorded message are one text.
SENTENCES: dict[str, tuple[StrOrPromise, ...]] = {
    "play_at_closed_table": (_("Coup %(number)s was posted while table %(table)s was closed."),),
    "coup_after_shoe_closed": (
        _("Coup %(number)s was posted after shoe %(shoe)s was closed."),
        _("Coup %(number)s was posted after its shoe was closed."),
    ),
    "player_missing_card": (_("Player stood on %(total)s; the rule says Player draws on 0 to 5."),),
    "player_extra_card": (
        _("Player drew a third card (%(card)s) on %(total)s; the rule says Player stands on 6 or 7."),
        _("Player drew a third card (%(card)s) on a natural %(total)s; on a natural both hands stand."),
        _(
            "Player drew a third card (%(card)s) although Banker has a natural %(total)s; "
            "on a natural both hands stand."
        ),
    ),
    "banker_extra_card": (
        _("Banker drew a third card (%(card)s) on a natural %(total)s; on a natural both hands stand."),
        _(
            "Banker drew a third card (%(card)s) although Player has a natural %(total)s; "
            "on a natural both hands stand."
        ),
        _("Banker drew a third card (%(card)s) on %(total)s %(after)s; the rule says Banker stands (%(rule)s)."),
    ),
    "banker_missing_card": (_("Banker stood on %(total)s %(after)s; the rule says Banker draws (%(rule)s)."),),
    "reported_winner_mismatch": (_("Reported winner is %(said)s, but the cards give %(outcome)s."),),
    "hand_size": (
        _("%(hand)s holds no cards; a hand holds two or three cards."),
        _("%(hand)s holds %(count)s card (%(cards)s); a hand holds two or three cards."),
        _("%(hand)s holds %(count)s cards (%(cards)s); a hand holds two or three cards."),
    ),
    "coup_number_gap": (
        _("Coup %(number)s was posted as the shoe's first coup; coup %(expected)s is missing."),
        _("Coup %(number)s was posted as the shoe's first coup; coups %(expected)s to %(last)s are missing."),
        _("Coup %(number)s was posted after coup %(previous)s; coup %(expected)s is missing."),
        _("Coup %(number)s was posted after coup %(previous)s; coups %(expected)s to %(last)s are missing."),
    ),
    "slip_not_received": (
        _("%(slip)s (%(amount)s, requested for %(day)s shift %(shift)s) was never received at the table."),
    ),
    "win_reconciliation_variance": (
        _(
            "The statutory win of %(table)s on %(day)s is %(statutory)s; its recorded wagers won %(wagers)s: "
            "%(gap)s more in the tray and drop than the wagers account for."
        ),
        _(
            "The statutory win of %(table)s on %(day)s is %(statutory)s; its recorded wagers won %(wagers)s: "
            "%(gap)s less in the tray and drop than the wagers account for."
        ),
    ),
    "dealer_rotation_overdue": (
        _(
            "Dealer %(dealer)s came in at table %(table)s at %(at)s and nobody was recorded coming in within "
            "%(hours)s hours: the rotation is charged no further; record who dealt."
        ),
    ),
    "payout_mismatch": (
        _("Paid %(paid)s on the winning %(bet)s bet of %(stake)s; the paytable pays %(due)s."),
        _("Paid %(paid)s on the losing %(bet)s bet of %(stake)s; a losing bet is paid nothing."),
        _(
            "Paid %(paid)s on the %(bet)s bet of %(stake)s, which pushed; a push returns the stake and pays "
            "nothing more."
        ),
    ),
    "commission_mismatch": (
        _("Commission of %(charged)s was charged on the winning %(bet)s bet of %(stake)s; the paytable says %(due)s."),
        _(
            "Commission of %(charged)s was charged on the winning %(bet)s bet of %(stake)s; "
            "no commission is owed on it."
        ),
        _("Commission of %(charged)s was charged on the losing %(bet)s bet of %(stake)s; no commission is owed on it."),
        _(
            "Commission of %(charged)s was charged on the %(bet)s bet of %(stake)s, which pushed; no commission is "
            "owed on it."
        ),
    ),
    "derivation_quarantined": (
        _(
            "%(what)s was not derived: shoe %(shoe)s is quarantined, its record chain is broken (violation "
            "%(violation)s). Nothing is derived from it until a person resolves or dismisses that violation."
        ),
    ),
}

# Phrases the engine puts inside its sentences, by the placeholder that holds them: a value read
# back from a recorded message is worded again when it is one of them (else kept as it is).
_HANDS = (_("Player"), _("Banker"))
PHRASES: dict[str, tuple[StrOrPromise, ...]] = {
    "hand": _HANDS,
    "bet": tuple(BET_NAMES.values()),
    "said": (_("a tie"), *_HANDS),
    "after": (_("after Player stood"), _("after Player's third card %(card)s")),
    "outcome": (
        _("Player %(player)s over Banker %(banker)s"),
        _("Banker %(banker)s over Player %(player)s"),
        _("a tie at %(total)s"),
    ),
    "rule": (
        _("when Player stands, Banker draws on 0 to 5 and stands on 6 or 7"),
        _("Banker always draws on 0, 1 or 2"),
        _("Banker draws on 3 unless Player's third card is an 8"),
        _("Banker draws on 4 when Player's third card is 2 to 7"),
        _("Banker draws on 5 when Player's third card is 4 to 7"),
        _("Banker draws on 6 only when Player's third card is 6 or 7"),
        _("Banker always stands on 7"),
        _("Banker stands on a natural 8 or 9"),
    ),
}

_PLACEHOLDER = re.compile(r"%\((\w+)\)s")


@cache
def _reading(english: str) -> re.Pattern[str]:
    """The English form as a pattern that reads its placeholders back from a recorded message."""
    parts, names, last = [], set(), 0
    for match in _PLACEHOLDER.finditer(english):
        parts.append(re.escape(english[last : match.start()]))
        name = match.group(1)
        parts.append(f"(?P={name})" if name in names else f"(?P<{name}>.+?)")
        names.add(name)
        last = match.end()
    parts.append(re.escape(english[last:]))
    return re.compile("".join(parts), re.DOTALL)


def _english(text) -> str:
    with translation.override(None):
        return str(text)


def _worded(forms, text: str) -> str | None:
    """`text` in the active language if it has one of `forms` (its values worded again where they are
    phrases of their own), else None."""
    for form in forms:
        found = _reading(_english(form)).fullmatch(text)
        if found is not None:
            values = {
                name: _worded(PHRASES[name], value) or value if name in PHRASES else value
                for name, value in found.groupdict().items()
            }
            return str(form) % values
    return None


def reads_in_english() -> bool:
    language = translation.get_language()
    return not language or language.lower().startswith("en")


def violation_title(code: str) -> str:
    """The code's title in the active language (the code itself for one the registry lacks)."""
    title = CODE_TITLES.get(code)
    return code if title is None else str(title)


def violation_sentence(code: str, message: str) -> str:
    """The violation's sentence in the active language (see the module docstring)."""
    if reads_in_english():
        return message
    worded = _worded(SENTENCES.get(code, ()), message)
    if worded is not None:
        return worded
    if code not in CODE_TITLES:
        return message
    return gettext("%(title)s. As recorded: %(message)s") % {"title": violation_title(code), "message": message}
