"""The dealing shoe: composition, seeded shuffles, the burn, the cut card and shoe integrity."""

import random
from collections import Counter

import pytest

from pit.game import (
    ALL_CARD_CODES,
    Shoe,
    ShoeComposition,
    ShoeExhausted,
    check_cards_seen,
    new_shoe,
    parse_cards,
    verify_coup,
)


def test_a_new_shoe_holds_every_card_once_per_deck():
    shoe = new_shoe(8, random.Random(7))
    assert len(shoe) == shoe.cards_left == 416
    assert shoe.composition() == ShoeComposition.full(8)
    counts = Counter(shoe.draw().code for _ in range(416))
    assert counts == Counter(dict.fromkeys(ALL_CARD_CODES, 8))
    with pytest.raises(ShoeExhausted):
        shoe.draw()


def test_shuffles_are_deterministic_for_a_seed():
    a, b = new_shoe(6, random.Random(42)), new_shoe(6, random.Random(42))
    assert [a.draw() for _ in range(312)] == [b.draw() for _ in range(312)]
    c = new_shoe(6, random.Random(43))
    a = new_shoe(6, random.Random(42))
    assert [a.draw() for _ in range(20)] != [c.draw() for _ in range(20)]


@pytest.mark.parametrize(("first", "burned"), [("5H", 6), ("KD", 11), ("AS", 2), ("TC", 11), ("9S", 10)])
def test_burn_turns_a_card_and_burns_its_value(first, burned):
    cards = parse_cards([first] + ["2C"] * 20)
    shoe = Shoe(cards, decks=1)
    out = shoe.burn()
    assert out[0].code == first
    assert len(out) == burned
    assert len(shoe) == 21 - burned
    assert shoe.burned == list(out)
    assert shoe.dealt == []


def test_cut_card():
    shoe = new_shoe(8, random.Random(1), cut_from_end=14)
    assert shoe.cut_position == 402
    assert shoe.cards_left_before_cut == 402
    shoe.burn()
    coups = 0
    while not shoe.cut_card_reached:
        shoe.deal_coup()
        coups += 1
    assert shoe.cards_left_before_cut == 0
    assert 14 - 6 < len(shoe) <= 14
    assert coups > 70
    with pytest.raises(ValueError):
        Shoe(parse_cards(["AS"]), decks=1, cut_position=5)


def test_a_whole_shoe_deals_legal_coups_and_passes_integrity():
    shoe = new_shoe(8, random.Random(2024))
    shoe.burn()
    while len(shoe) >= 6:
        assert verify_coup(shoe.deal_coup()) == []
    assert check_cards_seen(8, shoe.cards_seen()) == []
    assert sum(shoe.cards_seen().values()) + len(shoe) == 416
    assert shoe.composition().total == len(shoe)


def test_one_coup_shoes_are_legal():
    shoe = new_shoe(8, random.Random(3))
    coup = shoe.deal_coup()
    assert verify_coup(coup) == []
    assert len(shoe) == 416 - len(coup.player) - len(coup.banker)


def test_new_shoe_refuses_no_decks():
    with pytest.raises(ValueError):
        new_shoe(0)
    assert len(new_shoe(1)) == 52  # an unseeded shoe still works
