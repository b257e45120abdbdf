"""The side bets of the field: their published house edges reproduced by the engine, the exact
odds over the 52 kinds of card against an independent enumeration, and every preset settling a
coup of each of its outcomes to the cent."""

import random
from collections import Counter
from decimal import ROUND_FLOOR, Decimal
from fractions import Fraction
from itertools import permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pit.game import (
    ALL_CARD_CODES,
    CARD_FACTS,
    CARDS,
    FACTS,
    PRESETS,
    SIDE_BET_PRESETS,
    BetResult,
    CardComposition,
    CommissionMode,
    Coup,
    InvalidPaytable,
    Paytable,
    ShoeComposition,
    card_composition_after,
    deal_coup,
    evaluate,
    exact_card_odds,
    exact_odds,
    needs_cards,
    settle,
)
from pit.game.paytables import bets, push, win

# Published house edges, in percent as published (Wizard of Odds; the Natural 8/9 and Egalité
# pages; Super Tie pay tables 1 and 2), for 8 decks unless the key says 6.
PUBLISHED = [
    ("perfect_pair", "perfect_pair", 8, "13.03"),
    ("perfect_pair", "perfect_pair", 6, "17.07"),
    ("dragon_bonus", "dragon_bonus_player", 8, "2.65"),
    ("dragon_bonus", "dragon_bonus_banker", 8, "9.37"),
    ("big_small", "small", 8, "5.28"),
    ("big_small", "big", 8, "4.35"),
    ("lucky_6", "lucky_6", 8, "11.70"),
    ("lucky_6_12_20", "lucky_6", 8, "16.68"),
    ("tiger", "tiger", 8, "16.68"),
    ("tiger", "small_tiger", 8, "14.33"),
    ("tiger", "big_tiger", 8, "15.25"),
    ("super_tie", "super_tie", 8, "5.97"),
    ("super_tie_20", "super_tie", 8, "10.26"),
    ("natural_8_9", "player_natural_8", 8, "5.47"),
    ("natural_8_9", "banker_natural_8", 8, "5.47"),
    ("natural_8_9", "player_natural_9", 8, "5.10"),
    ("natural_8_9", "banker_natural_9", 8, "5.10"),
    # Egalité per total (Wizard of Odds, "Individual Egalite Bets").
    *(
        ("egalite", f"egalite_{total}", 8, edge)
        for total, edge in enumerate(
            ["12.45", "11.42", "9.54", "10.52", "12.14", "11.87", "11.50", "6.39", "11.07", "10.63"]
        )
    ),
]
# The edges no one publishes (pay tables from the operators' rules), pinned as the engine gives
# them exactly, to four places; docs/side-bets.md lists them.
OURS = [
    ("perfect_pair_both", "perfect_pair", 8, "8.0470"),
    ("perfect_pair_both", "perfect_pair", 6, "12.5425"),
    ("tiger", "tiger_tie", 8, "30.7354"),
    ("tiger", "tiger_pair", 8, "16.1217"),
    ("lucky_7", "lucky_7", 8, "18.2961"),
    ("lucky_7", "super_lucky_7", 8, "33.4403"),
]

# Wizard of Odds' own counts out of the 4,998,398,275,503,360 ordered six-card prefixes of 8 decks.
EIGHT_DECK_PREFIXES = 4_998_398_275_503_360


def percent(value: Fraction, places: int) -> str:
    return str((Decimal(value.numerator) / Decimal(value.denominator) * 100).quantize(Decimal(1).scaleb(-places)))


@pytest.fixture(scope="module")
def full_shoes():
    return {(name, decks): exact_odds(PRESETS[name], decks) for name in SIDE_BET_PRESETS for decks in (6, 8)}


@pytest.mark.parametrize(("preset", "bet", "decks", "edge"), PUBLISHED)
def test_published_house_edges(full_shoes, preset, bet, decks, edge):
    assert percent(full_shoes[preset, decks].bets[bet].house_edge, 2) == edge


@pytest.mark.parametrize(("preset", "bet", "decks", "edge"), OURS)
def test_unpublished_house_edges_as_the_engine_gives_them(full_shoes, preset, bet, decks, edge):
    assert percent(full_shoes[preset, decks].bets[bet].house_edge, 4) == edge


def test_published_combinations_exactly(full_shoes):
    """Beyond the rounded edges: the published numbers of winning prefixes, exactly."""
    super_tie = full_shoes["super_tie", 8].bets["super_tie"]
    by_net = {o.net: o.probability * EIGHT_DECK_PREFIXES for o in super_tie.outcomes}
    assert by_net == {100: 1_326_729_820_672, 25: 42_861_591_369_728, 7: 431_439_105_282_816, -1: 4_522_770_849_030_144}
    dragon = full_shoes["dragon_bonus", 8].bets["dragon_bonus_player"]
    assert {o.net: o.probability * EIGHT_DECK_PREFIXES for o in dragon.outcomes}[30] == 18_409_431_764_992
    naturals = full_shoes["natural_8_9", 8].bets["banker_natural_8"]
    assert naturals.probability(BetResult.WIN) * EIGHT_DECK_PREFIXES == 472_508_456_071_680
    egalite = full_shoes["egalite", 8].bets["egalite_7"]
    assert egalite.probability(BetResult.WIN) * EIGHT_DECK_PREFIXES == 101_717_538_899_968


def test_perfect_pair_by_hand_in_closed_form(full_shoes):
    # A hand's first two cards: 52 kinds, d of each in d decks; both of one kind in 52 d (d - 1) of
    # the N (N - 1) ordered ways. Either hand, by inclusion and exclusion over the four cards.
    for decks in (6, 8):
        n = 52 * decks
        one = Fraction(52 * decks * (decks - 1), n * (n - 1))
        same_kind = 52 * decks * (decks - 1) * (decks - 2) * (decks - 3)
        other_kind = 52 * decks * (decks - 1) * 51 * decks * (decks - 1)
        both = Fraction(same_kind + other_kind, n * (n - 1) * (n - 2) * (n - 3))
        probabilities = full_shoes["perfect_pair", decks].outcome_probabilities
        assert probabilities["player_suited_pair"] == probabilities["banker_suited_pair"] == one
        assert probabilities["both_suited_pairs"] == both
        assert probabilities["either_suited_pair"] == 2 * one - both
        edge = full_shoes["perfect_pair", decks].bets["perfect_pair"].house_edge
        assert edge == 1 - 26 * (2 * one - both)


def test_rank_bets_agree_on_both_paths():
    """A rank bet is priced the same over 52 kinds as over ranks (Player, Banker, pairs, Tiger)."""
    rng = random.Random(32)
    paytable = PRESETS["live_side_bets"]
    for _ in range(5):
        seen = rng.sample(list(ALL_CARD_CODES) * 8, rng.randrange(0, 300))
        cards = card_composition_after(8, seen)
        over_cards = exact_card_odds(paytable, cards)
        over_ranks = exact_odds(PRESETS["commission_box"], cards.ranks())
        for bet in ("player", "banker", "tie", "player_pair", "banker_pair"):
            assert over_cards.bets[bet] == over_ranks.bets[bet]
        for fact, probability in over_ranks.outcome_probabilities.items():
            assert over_cards.outcome_probabilities[fact] == probability


# Every fact at once: each card fact as a bet of its own, and combinations of card and rank facts.
EVERY_FACT = Paytable(
    name="every_fact",
    bets=bets(
        player=[win({"player_wins"}, "1:1")],
        **{fact: [win({fact}, "3:1")] for fact in CARD_FACTS},
        suited_win=[win({"player_suited_pair", "player_wins"}, "7:1"), push({"banker_suited_pair"})],
        red_tie=[win({"all_red", "tie"}, "90:1"), win({"one_colour"}, "2:1")],
        twin_big=[win({"twin_pairs", "big"}, "50:1"), win({"both_pairs"}, "5:1")],
        # Suits and colours in one bet: the colours are then enumerated over the 52 kinds too.
        red_perfect=[win({"player_suited_pair", "all_red"}, "50:1"), win({"all_black"}, "1:1")],
    ),
    commission_mode="none",
    commission_rate="0",
)
# No bet names a colour with a suit: the colours are enumerated by ranks (`_Colours.BY_RANK`).
COLOURS_BY_RANK = Paytable(
    name="colours_by_rank",
    bets={bet: definition for bet, definition in EVERY_FACT.bets.items() if bet != "red_perfect"},
    commission_mode="none",
    commission_rate="0",
)


def brute_force(cards, paytable=EVERY_FACT):
    """Every ordered six-card prefix of a small shoe of physical cards, dealt and evaluated by the
    engine (no composition, no enumeration by value): per fact and per bet and net, the count."""
    facts = Counter()
    by_bet = {bet: Counter() for bet in paytable.bets}
    total = 0
    for prefix in permutations(cards, 6):
        outcome = evaluate(deal_coup(iter(prefix))).facts
        facts.update(outcome)
        for bet in paytable.bets:
            rule = paytable.resolve(bet, outcome)
            net = (
                rule.odds.as_fraction()
                if rule.result is BetResult.WIN
                else Fraction(0 if rule.result is BetResult.PUSH else -1)
            )
            by_bet[bet][net] += 1
        total += 1
    return {fact: Fraction(facts[fact], total) for fact in FACTS}, by_bet, total


# Few kinds, several of each: suited pairs, twins and one-colour coups all happen.
POOL = ["5H", "5H", "5D", "5S", "KS", "KS", "KC", "QH", "9D", "9C", "4H", "AS"]


@settings(max_examples=6, deadline=None)
@given(
    st.lists(st.sampled_from(range(len(POOL))), min_size=6, max_size=8, unique=True),
    st.sampled_from([EVERY_FACT, COLOURS_BY_RANK]),
)
def test_card_odds_agree_with_brute_force_on_random_small_shoes(positions, paytable):
    cards = [CARDS[POOL[position]] for position in positions]
    probabilities, by_bet, total = brute_force(cards, paytable)
    odds = exact_odds(paytable, CardComposition.from_mapping(Counter(card.code for card in cards)))
    assert odds.outcome_probabilities == probabilities
    for bet, counts in by_bet.items():
        assert {o.net: o.probability for o in odds.bets[bet].outcomes} == {
            net: Fraction(ways, total) for net, ways in counts.items() if ways
        }


@pytest.mark.parametrize("paytable", [EVERY_FACT, COLOURS_BY_RANK], ids=["by_card", "by_rank"])
def test_card_odds_agree_with_brute_force_on_a_shoe_of_suited_pairs(paytable):
    cards = [CARDS[code] for code in ["5H", "5H", "5H", "5D", "KS", "KS", "KC", "9D"]]
    probabilities, by_bet, total = brute_force(cards, paytable)
    odds = exact_odds(paytable, CardComposition.from_mapping(Counter(card.code for card in cards)))
    assert odds.outcome_probabilities == probabilities
    for bet, counts in by_bet.items():
        assert {o.net: o.probability for o in odds.bets[bet].outcomes} == {
            net: Fraction(ways, total) for net, ways in counts.items() if ways
        }
    assert probabilities["twin_pairs"] > 0 and probabilities["both_suited_pairs"] > 0


def test_the_colour_runs_by_rank_and_by_card_agree_on_a_full_and_a_depleted_shoe():
    from pit.game.odds import _Colours, _colours

    assert (_colours(EVERY_FACT), _colours(COLOURS_BY_RANK)) == (_Colours.BY_CARD, _Colours.BY_RANK)
    rng = random.Random(7)
    for shoe in (CardComposition.full(8), card_composition_after(8, rng.sample(list(ALL_CARD_CODES) * 8, 250))):
        by_card, by_rank = exact_odds(EVERY_FACT, shoe), exact_odds(COLOURS_BY_RANK, shoe)
        assert by_card.outcome_probabilities == by_rank.outcome_probabilities
        assert {bet: by_card.bets[bet] for bet in COLOURS_BY_RANK.bets} == by_rank.bets


def test_a_suit_bet_needs_the_count_per_card():
    assert needs_cards(PRESETS["perfect_pair"]) and not needs_cards(PRESETS["dragon_bonus"])
    with pytest.raises(ValueError, match="count of each card"):
        exact_odds(PRESETS["perfect_pair"], ShoeComposition.full(8))
    with pytest.raises(ValueError, match="per card code"):
        exact_odds(PRESETS["perfect_pair"], {"A": 30, "K": 30})
    # A count per card code serves either path; ranks only serve a rank paytable.
    by_card = dict.fromkeys(ALL_CARD_CODES, 8)
    assert exact_odds(PRESETS["perfect_pair"], by_card).bets == exact_odds(PRESETS["perfect_pair"], 8).bets
    assert exact_odds(PRESETS["dragon_bonus"], by_card).bets == exact_odds(PRESETS["dragon_bonus"], 8).bets


def test_a_depleted_shoe_prices_a_counter_target():
    # Perfect pairs get likely when few kinds remain: a shoe of 5 of hearts and kings of spades.
    shoe = CardComposition.from_mapping({"5H": 20, "KS": 20, "2C": 4})
    assert exact_odds(PRESETS["perfect_pair"], shoe).bets["perfect_pair"].house_edge < 0


def test_a_variant_favouring_the_player_is_data_the_engine_prices():
    generous = Paytable.from_dict(
        {
            **PRESETS["perfect_pair"].to_dict(),
            "name": "generous",
            "bets": {
                "perfect_pair": {
                    "rules": [{"when": ["either_suited_pair"], "result": "win", "odds": "40:1", "commission": False}]
                }
            },
        }
    )
    assert exact_odds(generous, 8).bets_favouring_player() == ["perfect_pair"]
    with pytest.raises(InvalidPaytable, match="unknown fact"):
        Paytable.from_dict({**generous.to_dict(), "bets": {"x": {"rules": [{"when": ["suited"], "result": "lose"}]}}})


# --- Every preset settles a coup of each outcome to the cent -------------------------------------


def expected_payout(stake: Decimal, odds: str) -> Decimal:
    numerator, denominator = (int(part) for part in odds.split(":"))
    return (stake * numerator / denominator).quantize(Decimal("0.01"), rounding=ROUND_FLOOR)


def coups_for_every_rule(paytable: Paytable, seed: int = 32, limit: int = 400_000):
    """A legal coup for each (bet, rule) of the paytable that can decide it, and for its losing
    case: coups dealt at random from an endless shoe of 52 kinds until each is found."""
    rng = random.Random(seed)
    kinds = [CARDS[code] for code in ALL_CARD_CODES]
    wanted = {
        (bet, index) for bet, definition in paytable.bets.items() for index in [*range(len(definition.rules)), -1]
    }
    found = {}
    for _ in range(limit):
        coup = deal_coup(lambda: rng.choice(kinds))
        facts = evaluate(coup).facts
        for bet, definition in paytable.bets.items():
            rule = paytable.resolve(bet, facts)
            index = definition.rules.index(rule) if rule in definition.rules else -1
            if (bet, index) in wanted and (bet, index) not in found:
                found[bet, index] = coup
        if len(found) == len(wanted):
            break
    return found, wanted


@pytest.mark.parametrize("name", sorted(SIDE_BET_PRESETS))
def test_every_preset_settles_a_coup_of_each_outcome_to_the_cent(name):
    paytable = PRESETS[name]
    found, wanted = coups_for_every_rule(paytable)
    side = {(bet, index) for bet, index in wanted if bet not in ("player", "banker", "tie")}
    assert side <= set(found), f"no coup found for {sorted(side - set(found))}"
    stake = Decimal("12.35")
    for (bet, index), coup in sorted(found.items()):
        settlement = settle(paytable, bet, stake, evaluate(Coup(coup.player, coup.banker)))
        if index == -1:
            assert (settlement.result, settlement.payout) == (BetResult.LOSE, Decimal("0.00"))
            continue
        rule = paytable.bets[bet].rules[index]
        if rule.result is BetResult.PUSH:
            assert (settlement.result, settlement.payout) == (BetResult.PUSH, Decimal("0.00"))
        else:
            assert settlement.result is BetResult.WIN
            assert settlement.payout == expected_payout(stake, str(rule.odds)), (bet, coup.codes())
            assert settlement.commission == Decimal("0.00") or bet == "banker"


def test_settling_a_perfect_pair_and_a_super_tie_by_hand():
    # 12.35 on Perfect Pair, 5♥ 5♥ to Player: 25:1 pays 308.75.
    perfect = evaluate(Coup.from_codes(player=["5H", "5H"], banker=["KS", "2C"]))
    assert settle(PRESETS["perfect_pair"], "perfect_pair", "12.35", perfect).payout == Decimal("308.75")
    # Both perfect pairs on the both-hands variant: 200:1.
    both = evaluate(Coup.from_codes(player=["5H", "5H"], banker=["KS", "KS", "6D"]))
    assert settle(PRESETS["perfect_pair_both"], "perfect_pair", "12.35", both).payout == Decimal("2470.00")
    # A six-card tie on 7, all red: Super Tie 100:1; with one black card 25:1 (pay table 2: 20:1).
    red = evaluate(Coup.from_codes(player=["2H", "3D", "2D"], banker=["AH", "4H", "2H"]))
    mixed = evaluate(Coup.from_codes(player=["2H", "3D", "2S"], banker=["AH", "4H", "2H"]))
    assert red.facts >= {"tie_on_7", "one_colour", "player_drew", "banker_drew"}
    assert settle(PRESETS["super_tie"], "super_tie", "12.35", red).payout == Decimal("1235.00")
    assert settle(PRESETS["super_tie"], "super_tie", "12.35", mixed).payout == Decimal("308.75")
    assert settle(PRESETS["super_tie_20"], "super_tie", "12.35", mixed).payout == Decimal("247.00")
    # Tiger Pair: twin pairs 100:1. Big: 54:100 rounds down to the cent (6.669 -> 6.66).
    twins = evaluate(Coup.from_codes(player=["9H", "9S"], banker=["9D", "9C"]))
    assert settle(PRESETS["tiger"], "tiger_pair", "12.35", twins).payout == Decimal("1235.00")
    big = evaluate(Coup.from_codes(player=["2H", "3D", "2S"], banker=["AH", "4H", "2H"]))
    assert settle(PRESETS["big_small"], "big", "12.35", big).payout == Decimal("6.66")


def enumerate_by_kind(counts, paytable):
    """Every coup a shoe of these counts per card code can deal, dealt by the engine card by card
    (a prefix grows only while `deal_coup` asks for another card), each weighted by its ordered
    ways and by the ways of the cards of a six-card prefix left undealt: per fact and per bet and
    net, the number of ordered six-card prefixes. No composition, no plan, no colour runs."""
    total = sum(counts.values())
    facts = Counter()
    by_bet = {bet: Counter() for bet in paytable.bets}

    def deal(prefix, left, ways):
        try:
            coup = deal_coup(iter([CARDS[code] for code in prefix]))
        except StopIteration:
            for code, count in left.items():
                if count:
                    deal([*prefix, code], {**left, code: count - 1}, ways * count)
            return
        undealt = total - len(prefix)
        ways *= 1 if len(prefix) == 6 else undealt * (undealt - 1) if len(prefix) == 4 else undealt
        outcome = evaluate(coup).facts
        for fact in outcome:
            facts[fact] += ways
        for bet in paytable.bets:
            rule = paytable.resolve(bet, outcome)
            net = (
                rule.odds.as_fraction()
                if rule.result is BetResult.WIN
                else Fraction(0 if rule.result is BetResult.PUSH else -1)
            )
            if rule.result is BetResult.WIN and rule.commission and paytable.commission_mode is not CommissionMode.NONE:
                net *= 1 - Fraction(paytable.commission_rate)
            by_bet[bet][net] += ways

    deal([], dict(counts), 1)
    prefixes = total * (total - 1) * (total - 2) * (total - 3) * (total - 4) * (total - 5)
    return {fact: Fraction(facts[fact], prefixes) for fact in FACTS}, by_bet, prefixes


@pytest.mark.parametrize("seed", [3, 11])
@pytest.mark.parametrize(
    "paytable", [PRESETS["live_side_bets"], EVERY_FACT], ids=["live_side_bets_by_rank", "every_fact_by_card"]
)
def test_one_pass_colour_odds_agree_with_an_enumeration_by_kind_on_depleted_shoes(paytable, seed):
    """Every bet of the richest preset (its colour runs by ranks) and every card fact (colours by
    card) on shoes of an 8-deck shoe's last few kinds, red and black ones, suited pairs possible."""
    rng = random.Random(seed)
    kinds = rng.sample(list(ALL_CARD_CODES), 6)
    counts = {code: rng.randrange(1, 9) for code in kinds}
    probabilities, by_bet, total = enumerate_by_kind(counts, paytable)
    odds = exact_odds(paytable, CardComposition.from_mapping(counts))
    assert odds.outcome_probabilities == {fact: probabilities[fact] for fact in odds.outcome_probabilities}
    assert list(odds.bets) == list(paytable.bets)
    for bet, ways in by_bet.items():
        assert {o.net: o.probability for o in odds.bets[bet].outcomes} == {
            net: Fraction(count, total) for net, count in ways.items() if count
        }, bet


def test_the_colour_runs_in_one_pass_are_the_runs_taken_one_by_one():
    """On depleted 8-deck shoes: every card, the red and the black ones in one pass over a plan
    give, run by run, what each gives alone."""
    from pit.game.odds import _RED, _card_weights, _outcome_weights, _rank_weights

    rng = random.Random(32)
    for _ in range(3):
        shoe = card_composition_after(8, rng.sample(list(ALL_CARD_CODES) * 8, rng.randrange(60, 330)))
        suits = shoe.suit_counts()
        red = tuple(tuple(c if _RED[i] else 0 for i, c in enumerate(rank)) for rank in suits)
        black = tuple(tuple(0 if _RED[i] else c for i, c in enumerate(rank)) for rank in suits)
        together = _card_weights([suits, red, black], shoe.total)
        for run, part in enumerate((suits, red, black)):
            assert (together[run] == _card_weights([part], shoe.total)[0]).all()
        by_rank = _rank_weights([tuple(sum(rank) for rank in part) for part in (red, black)], shoe.total)
        for run, part in enumerate((red, black)):
            assert (by_rank[run] == _outcome_weights(tuple(sum(rank) for rank in part), shoe.total)[0]).all()


def test_the_pair_ways_of_one_rank_are_the_general_count():
    """The closed form for a one-rank pair group (the values 1-9) against `_pair_ways`, on counts
    per suit from empty to a 22-deck shoe's, their non-zero ways."""
    from pit.game.odds import _pair_ways, _pair_ways_of_a_rank

    rng = random.Random(9)
    for _ in range(2000):
        counts = tuple(rng.randrange(rng.choice([2, 4, 9, 23])) for _ in range(4))
        general = {spec: ways for spec, ways in _pair_ways([counts]).items() if ways}
        assert {spec: ways for spec, ways in _pair_ways_of_a_rank(counts).items() if ways} == general, counts
