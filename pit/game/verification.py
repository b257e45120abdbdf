"""Judging dealt coups and shoes against the rules: draws, hand sizes, reported winners, shoe integrity."""

from __future__ import annotations

from collections.abc import Mapping

from .cards import ALL_CARD_CODES, Card, cards_text, parse_card
from .coup import Coup, Winner, banker_draws, banker_rule_text, evaluate, player_draws
from .violations import Violation, violation

_HANDS = ("Player", "Banker")


def _deck_shoe(decks: int) -> str:
    """ "an 8-deck shoe", "a 6-deck shoe": the article as the number is spoken."""
    return f"{'an' if decks in (8, 11, 18) else 'a'} {decks}-deck shoe"


def _hand_size_message(name: str, hand: tuple[Card, ...]) -> str:
    if not hand:
        return f"{name} holds no cards; a hand holds two or three cards."
    noun = "card" if len(hand) == 1 else "cards"
    return f"{name} holds {len(hand)} {noun} ({cards_text(hand)}); a hand holds two or three cards."


def _natural_reason(player_two: int, banker_two: int, drawer: str) -> str:
    if drawer == "Player" and player_two >= 8 or drawer == "Banker" and banker_two >= 8:
        own = player_two if drawer == "Player" else banker_two
        return f"on a natural {own}; on a natural both hands stand."
    other, total = ("Banker", banker_two) if drawer == "Player" else ("Player", player_two)
    return f"although {other} has a natural {total}; on a natural both hands stand."


def _winner_phrase(player_total: int, banker_total: int) -> str:
    if player_total > banker_total:
        return f"Player {player_total} over Banker {banker_total}"
    if banker_total > player_total:
        return f"Banker {banker_total} over Player {player_total}"
    return f"a tie at {player_total}"


def verify_coup(coup: Coup, reported_winner: str | Winner | None = None) -> list[Violation]:
    """Every rule the dealt coup breaks; an empty list for a correctly dealt coup.

    Each hand is judged against the cards actually dealt before it: if Player held a third card,
    even wrongly, Banker is judged by that card; if Player wrongly stood, as if Player stood.
    """
    reported = Winner.parse(reported_winner) if reported_winner is not None else None
    player, banker = coup.player, coup.banker
    found: list[Violation] = []
    for name, hand in zip(_HANDS, (player, banker), strict=True):
        if not 2 <= len(hand) <= 3:
            found.append(violation("hand_size", _hand_size_message(name, hand)))

    # The draw rules start from both two-card totals; without them there is nothing to judge.
    if len(player) >= 2 and len(banker) >= 2:
        player_two = (player[0].value + player[1].value) % 10
        banker_two = (banker[0].value + banker[1].value) % 10
        natural = player_two >= 8 or banker_two >= 8
        player_third = player[2] if len(player) >= 3 else None
        banker_third = banker[2] if len(banker) >= 3 else None

        player_should = player_draws(player_two, banker_two)
        if player_third is not None and not player_should:
            reason = (
                _natural_reason(player_two, banker_two, "Player")
                if natural
                else f"on {player_two}; the rule says Player stands on 6 or 7."
            )
            found.append(violation("player_extra_card", f"Player drew a third card ({player_third.symbol}) {reason}"))
        elif player_third is None and player_should:
            found.append(
                violation(
                    "player_missing_card",
                    f"Player stood on {player_two}; the rule says Player draws on 0 to 5.",
                )
            )

        third_value = None if player_third is None else player_third.value
        after = "after Player stood" if player_third is None else f"after Player's third card {player_third.symbol}"
        banker_should = banker_draws(banker_two, third_value, player_two)
        if banker_third is not None and not banker_should:
            if natural:
                reason = _natural_reason(player_two, banker_two, "Banker")
            else:
                reason = (
                    f"on {banker_two} {after}; the rule says Banker stands "
                    f"({banker_rule_text(banker_two, third_value)})."
                )
            found.append(violation("banker_extra_card", f"Banker drew a third card ({banker_third.symbol}) {reason}"))
        elif banker_third is None and banker_should:
            found.append(
                violation(
                    "banker_missing_card",
                    f"Banker stood on {banker_two} {after}; the rule says Banker draws "
                    f"({banker_rule_text(banker_two, third_value)}).",
                )
            )

    if reported is not None:
        outcome = evaluate(coup)
        if outcome.winner != reported:
            said = "a tie" if reported is Winner.TIE else reported.value.capitalize()
            found.append(
                violation(
                    "reported_winner_mismatch",
                    f"Reported winner is {said}, but the cards give "
                    f"{_winner_phrase(outcome.player_total, outcome.banker_total)}.",
                )
            )
    return found


def check_cards_seen(decks: int, counts: Mapping[str, int]) -> list[Violation]:
    """Shoe integrity: cards seen (dealt and burned) against what a shoe of `decks` decks holds."""
    if not isinstance(decks, int) or isinstance(decks, bool) or decks < 1:
        raise ValueError(f"a shoe holds at least one deck, not {decks!r}")
    by_code: dict[str, int] = {}
    for code, count in counts.items():
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise ValueError(f"the count for {code!r} must be a whole number of cards, not {count!r}")
        canonical = parse_card(code).code
        by_code[canonical] = by_code.get(canonical, 0) + count

    found = []
    for code in ALL_CARD_CODES:
        seen = by_code.get(code, 0)
        if seen > decks:
            found.append(
                violation(
                    "card_over_capacity",
                    f"{parse_card(code).symbol} was seen {seen} times; {_deck_shoe(decks)} holds {decks}.",
                )
            )
    total = sum(by_code.values())
    if total > 52 * decks:
        found.append(
            violation(
                "shoe_overdealt",
                f"{total} cards were dealt or burned from this shoe; {_deck_shoe(decks)} holds {52 * decks}.",
            )
        )
    return found


def check_coup_number(number: int, last_number: int | None) -> Violation | None:
    """coup_number_gap when `number` skips past the next number after the shoe's last coup."""
    expected = 1 if last_number is None else last_number + 1
    if number <= expected:
        return None
    missing = f"coup {expected} is" if number == expected + 1 else f"coups {expected} to {number - 1} are"
    before = "as the shoe's first coup" if last_number is None else f"after coup {last_number}"
    return violation("coup_number_gap", f"Coup {number} was posted {before}; {missing} missing.")


def check_repost(number: int, recorded: Coup, posted: Coup) -> Violation:
    """A coup number posted again: a harmless repeat with the same cards, a conflict with different ones."""
    if (recorded.player, recorded.banker) == (posted.player, posted.banker):
        return violation(
            "coup_number_repeat",
            f"Coup {number} was posted again with the same cards "
            f"(Player {cards_text(posted.player)}, Banker {cards_text(posted.banker)}).",
        )
    return violation(
        "coup_conflict",
        f"Coup {number} was posted again with different cards: "
        f"recorded Player {cards_text(recorded.player)}, "
        f"Banker {cards_text(recorded.banker)}; now Player {cards_text(posted.player)}, "
        f"Banker {cards_text(posted.banker)}.",
    )


def repost_differs(number: int, differences: dict[str, list[str]]) -> Violation:
    """coup_repost_differs: a coup number posted again with the same cards but other values
    (`differences`: field path as posted -> what differs). The recorded coup stands."""
    listed = "; ".join(f"{path}: {', '.join(problems)}" for path, problems in differences.items())
    return violation(
        "coup_repost_differs",
        f"Coup {number} was posted again with the same cards but other values ({listed}); "
        "the coup as first recorded stands.",
    )


def play_at_closed_table(number: int, table: str) -> Violation:
    """play_at_closed_table, for a coup recorded while its table was closed."""
    return violation("play_at_closed_table", f"Coup {number} was posted while table {table} was closed.")


def coup_after_shoe_closed(number: int, shoe: str | int | None = None) -> Violation:
    """coup_after_shoe_closed, for a coup posted to a shoe that has ended."""
    which = f"shoe {shoe}" if shoe is not None else "its shoe"
    return violation("coup_after_shoe_closed", f"Coup {number} was posted after {which} was closed.")
