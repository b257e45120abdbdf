"""Card codes: every accepted spelling, canonical codes, display symbols and the errors for bad codes."""

import pytest

from pit.game import ALL_CARD_CODES, CARDS, RANKS, SUITS, Card, InvalidCard, parse_card, parse_cards

HINT = "(rank A,2-9,T/10,J,Q,K then suit S,H,D,C)"


def test_all_card_codes_is_one_deck_in_order():
    assert len(ALL_CARD_CODES) == 52
    assert len(set(ALL_CARD_CODES)) == 52
    assert ALL_CARD_CODES[:3] == ("AS", "2S", "3S")
    assert ALL_CARD_CODES[-1] == "KC"
    assert set(CARDS) == set(ALL_CARD_CODES)


@pytest.mark.parametrize(
    ("code", "rank", "suit", "value", "canonical", "symbol"),
    [
        ("AS", "A", "S", 1, "AS", "A♠"),
        ("as", "A", "S", 1, "AS", "A♠"),
        ("5H", "5", "H", 5, "5H", "5♥"),
        ("9c", "9", "C", 9, "9C", "9♣"),
        ("TD", "T", "D", 0, "TD", "10♦"),
        ("10D", "T", "D", 0, "TD", "10♦"),
        ("10♦", "T", "D", 0, "TD", "10♦"),
        ("t♦", "T", "D", 0, "TD", "10♦"),
        ("JS", "J", "S", 0, "JS", "J♠"),
        ("Q♥", "Q", "H", 0, "QH", "Q♥"),
        ("kc", "K", "C", 0, "KC", "K♣"),
        (" 7D ", "7", "D", 7, "7D", "7♦"),
    ],
)
def test_parse_card_accepts_every_spelling(code, rank, suit, value, canonical, symbol):
    card = parse_card(code)
    assert (card.rank, card.suit, card.value, card.code, card.symbol) == (
        rank,
        suit,
        value,
        canonical,
        symbol,
    )
    assert str(card) == symbol


def test_values_of_every_rank():
    values = {rank: parse_card(rank + "S").value for rank in RANKS}
    assert values == {
        "A": 1,
        "2": 2,
        "3": 3,
        "4": 4,
        "5": 5,
        "6": 6,
        "7": 7,
        "8": 8,
        "9": 9,
        "T": 0,
        "J": 0,
        "Q": 0,
        "K": 0,
    }


@pytest.mark.parametrize("code", ["1X", "", "1S", "11H", "AX", "A", "S", "ZZ", "0D", "AS ", "A S", "10", "♠A", "1♠"])
def test_parse_card_rejects_bad_codes_naming_them(code):
    if code == "AS ":
        # Surrounding whitespace is tolerated; only the inner code must be valid.
        assert parse_card(code).code == "AS"
        return
    with pytest.raises(InvalidCard) as caught:
        parse_card(code)
    assert caught.value.code == code
    assert str(caught.value) == f"{code!r} is not a card code {HINT}"
    assert isinstance(caught.value, ValueError)


def test_parse_card_error_message_example():
    with pytest.raises(InvalidCard, match=r"^'1X' is not a card code \(rank A,2-9,T/10,J,Q,K then suit S,H,D,C\)$"):
        parse_card("1X")


@pytest.mark.parametrize("value", [None, 5, 1.5, ["AS"]])
def test_parse_card_rejects_non_strings(value):
    with pytest.raises(InvalidCard) as caught:
        parse_card(value)
    assert caught.value.code == value
    assert "is not a card code" in str(caught.value)


def test_parse_cards_names_the_first_bad_code_and_its_index():
    assert parse_cards(["5H", "kd", "10c"]) == (Card("5", "H"), Card("K", "D"), Card("T", "C"))
    with pytest.raises(InvalidCard) as caught:
        parse_cards(["5H", "KD", "1X", "ZZ"])
    assert caught.value.code == "1X"
    assert caught.value.index == 2
    assert str(caught.value) == f"card 3: '1X' is not a card code {HINT}"


def test_parse_cards_refuses_a_bare_string():
    with pytest.raises(InvalidCard) as caught:
        parse_cards("5H")
    assert caught.value.index == 0


def test_cards_are_interned_hashable_and_ordered():
    assert parse_card("as") is parse_card("A♠")
    assert Card("A", "S") == parse_card("AS")
    assert len({parse_card("AS"), Card("A", "S"), parse_card("AH")}) == 2
    shuffled = [parse_card(code) for code in ("KC", "AS", "TD", "2H", "AH", "9S")]
    assert [card.code for card in sorted(shuffled)] == ["AS", "AH", "2H", "9S", "TD", "KC"]
    assert [card.code for card in sorted(CARDS.values())][:4] == ["AS", "AH", "AD", "AC"]
    assert SUITS == ("S", "H", "D", "C")


def test_card_constructor_validates():
    with pytest.raises(InvalidCard):
        Card("1", "S")
    with pytest.raises(InvalidCard):
        Card("A", "X")
    with pytest.raises(AttributeError):
        parse_card("AS").rank = "K"
