"""Game protection, item 1: a shoe dealt again in the same order, and runs in new-deck order."""

import random

import pytest

from pit import game
from pit.compliance.checks import coups_check, coups_sweep
from pit.compliance.models import RuleViolation
from pit.game import sequences
from pit.protection.models import CardShingle, IndexedShoe
from tests import factories

ORDERED_DECK = [rank + suit for suit in "SHDC" for rank in game.RANKS]


def dealt(seed: int, coups: int) -> list[tuple[list[str], list[str]]]:
    """Coups of an honestly shuffled 8-deck shoe, dealt by the engine."""
    shoe = game.new_shoe(8, random.Random(seed))
    return [
        ([c.code for c in coup.player], [c.code for c in coup.banker])
        for coup in (shoe.deal_coup() for _ in range(coups))
    ]


def dealt_from(cards: list[str], coups: int) -> list[tuple[list[str], list[str]]]:
    """Coups dealt by the third-card rule from cards in this order (no shuffle)."""
    source = iter(game.parse_card(code) for code in cards)
    return [
        ([c.code for c in coup.player], [c.code for c in coup.banker])
        for coup in (game.deal_coup(source) for _ in range(coups))
    ]


@pytest.fixture
def record(django_capture_on_commit_callbacks):
    """Record coups as the API does: each commit runs the per-coup check task (eager here)."""

    def record(shoe, coups, first_number=1):
        for number, (player, banker) in enumerate(coups, start=first_number):
            with django_capture_on_commit_callbacks(execute=True):
                factories.coup(shoe, number, player, banker)

    return record


def found(code):
    return list(RuleViolation.objects.filter(code=code).order_by("pk"))


# ------------------------------------------------------------------------------ the engine


def test_dealt_order_interleaves_the_hands_then_third_cards():
    assert sequences.dealt_order(["AS", "2S", "3S"], ["4S", "5S"]) == ["AS", "4S", "2S", "5S", "3S"]
    assert sequences.dealt_order(["10H", "2S"], ["4S", "5S", "KD"]) == ["TH", "4S", "2S", "5S", "KD"]


def test_new_deck_runs_up_down_and_broken():
    up = ["AS", "2S", "3S", "4S", "5S", "6S", "7S"]
    assert sequences.new_deck_runs(up) == [sequences.Run(0, tuple(up))]
    down = ["KH", "QH", "JH", "TH", "9H", "8H", "7H", "6H"]
    assert sequences.new_deck_runs(["5D", *down]) == [sequences.Run(1, tuple(down))]
    assert sequences.new_deck_runs(up[:6]) == []  # six is not enough
    assert sequences.new_deck_runs(["AS", "2S", "3S", "2S", "3S", "4S", "5S"]) == []  # direction turns
    assert sequences.new_deck_runs(["AS", "2S", "3S", "4H", "5S", "6S", "7S"]) == []  # suit changes


def test_shingles_are_positions_and_equal_digests_for_equal_runs():
    codes = [c for player, banker in dealt(1, 5) for c in sequences.dealt_order(player, banker)]
    found_shingles = sequences.shingles(codes)
    assert [position for position, _ in found_shingles] == list(range(len(codes) - 9))
    assert sequences.shingles(codes[3:])[0][1] == found_shingles[3][1]
    assert sequences.shingle_digest(codes[:10]) != sequences.shingle_digest(codes[1:11])


# ------------------------------------------------------------------------------ the checks


@pytest.mark.django_db
def test_a_replayed_shoe_is_flagged_within_its_first_coups_at_another_table(record):
    coups = dealt(7, 30)
    first = factories.shoe(factories.table("BB1"))
    record(first, coups)
    assert found("shoe_sequence_repeat") == []
    replay = factories.shoe(factories.table("BB2"))
    record(replay, coups[:2])
    assert found("shoe_sequence_repeat") != []  # 11 cards: two shingles of 10 already
    [violation] = found("shoe_sequence_repeat")
    assert (violation.shoe_id, violation.table.code, violation.severity) == (replay.pk, "BB2", "high")
    assert violation.coup.number == 2
    assert violation.fingerprint == f"shoe_sequence_repeat:shoe{replay.pk}:shoe{first.pk}"
    assert violation.found_by == "game_protection"
    assert violation.message.startswith("From card 1 of this shoe, 10 cards in a row came out in the same order")
    assert f"table BB1 shoe {first.sequence} (from its card 1)" in violation.message


@pytest.mark.django_db
def test_a_replay_from_the_middle_of_an_earlier_shoe_is_found_at_any_offset(record):
    coups = dealt(11, 40)
    record(factories.shoe(factories.table("BB1")), coups)
    replay = factories.shoe(factories.table("BB2"))
    record(replay, coups[20:23])
    [violation] = found("shoe_sequence_repeat")
    assert violation.shoe_id == replay.pk and violation.coup.number <= 3


@pytest.mark.django_db
def test_honest_shoes_raise_nothing(record):
    for index, code in enumerate(("BB1", "BB2", "BB3")):
        record(factories.shoe(factories.table(code)), dealt(100 + index, 60))
    assert found("shoe_sequence_repeat") == []
    assert found("new_deck_order_run") == []
    assert CardShingle.objects.count() > 3 * 200


@pytest.mark.django_db
def test_each_finding_once_however_often_checked(record):
    coups = dealt(7, 12)
    first = factories.shoe(factories.table("BB1"))
    record(first, coups)
    replay = factories.shoe(factories.table("BB2"))
    record(replay, coups)
    shingles = CardShingle.objects.count()
    coup_ids = list(replay.coups.values_list("pk", flat=True)) + list(first.coups.values_list("pk", flat=True))
    coups_check(coup_ids=coup_ids)
    day = replay.coups.first().gaming_day
    coups_sweep(first_day=day, last_day=day)
    assert len(found("shoe_sequence_repeat")) == 1
    assert CardShingle.objects.count() == shingles


@pytest.mark.django_db
def test_a_sweep_indexes_again_only_a_shoe_whose_cards_changed_since(record):
    coups = dealt(7, 12)
    first = factories.shoe(factories.table("BB1"))
    record(first, coups)
    replay = factories.shoe(factories.table("BB2"))
    record(replay, coups)
    codes, _ = sequences.concatenated(coups)
    assert dict(IndexedShoe.objects.values_list("shoe_id", "digest")) == {
        first.pk: sequences.dealt_digest(codes),
        replay.pk: sequences.dealt_digest(codes),
    }
    day = replay.coups.first().gaming_day
    holding = coups_sweep(first_day=day, last_day=day).holding
    shingles = sorted(CardShingle.objects.values_list("shoe_id", "position", "digest"))
    # Cards as indexed: the sweep reads the index, it does not build it again (a row taken out stays out).
    CardShingle.objects.filter(shoe=first, position=0).delete()
    assert coups_sweep(first_day=day, last_day=day).holding == holding
    assert CardShingle.objects.count() == len(shingles) - 1
    # Indexed from other cards: built again, and the digest it was built from recorded.
    IndexedShoe.objects.filter(shoe=first).update(digest=0)
    assert coups_sweep(first_day=day, last_day=day).holding == holding
    assert sorted(CardShingle.objects.values_list("shoe_id", "position", "digest")) == shingles
    assert IndexedShoe.objects.get(shoe=first).digest == sequences.dealt_digest(codes)
    [violation] = found("shoe_sequence_repeat")
    assert violation.shoe_id == replay.pk


def test_the_dealt_digest_changes_with_any_card_and_with_the_shingle_length():
    codes = [code for player, banker in dealt(3, 20) for code in sequences.dealt_order(player, banker)]
    digest = sequences.dealt_digest(codes)
    assert digest == sequences.dealt_digest(list(codes))
    assert digest != sequences.dealt_digest(codes[:-1])
    assert digest != sequences.dealt_digest([codes[1], codes[0], *codes[2:]]) or codes[0] == codes[1]
    assert digest != sequences.dealt_digest(codes, length=sequences.SHINGLE_LENGTH + 1)
    assert -(2**63) <= digest < 2**63


@pytest.mark.django_db
def test_a_shoe_in_new_deck_order_is_flagged(record):
    shoe = factories.shoe(factories.table("BB1"))
    record(shoe, dealt_from(ORDERED_DECK * 2, 4))
    violations = found("new_deck_order_run")
    assert violations and violations[0].shoe_id == shoe.pk
    assert violations[0].coup.number <= 2
    assert violations[0].fingerprint == f"new_deck_order_run:shoe{shoe.pk}:card0"
    assert violations[0].message == (
        "7 or more cards in new-deck order (AS 2S 3S 4S 5S 6S 7S ...), from card 1 of the shoe: "
        "the decks may not have been shuffled."
    )
    coups_check(coup_ids=list(shoe.coups.values_list("pk", flat=True)))
    assert len(found("new_deck_order_run")) == len(violations)


def test_shingles_and_new_deck_runs_of_stored_codes_are_those_of_each_run_on_its_own():
    """The fast paths for normalised codes (one text sliced per run, only same-suit stretches walked)
    give what hashing each run and walking every card give, on shoes full of one-suit stretches."""
    rng = random.Random(20261201)
    runs = 0
    for _ in range(2000):
        codes, suit, rank = [], "S", 5
        for _ in range(rng.randint(0, 70)):
            suit = rng.choice("SHDC") if rng.random() < 0.1 else suit
            rank = (rank + rng.choice([1, 1, 1, -1, -1, 0, 3])) % 13
            codes.append(game.RANKS[rank] + suit)
        assert sequences.shingles(codes) == [
            (start, sequences.shingle_digest(codes[start : start + 10])) for start in range(len(codes) - 9)
        ]
        found = sequences.new_deck_runs(codes)
        assert found == sequences._new_deck_runs(codes, sequences.NEW_DECK_RUN_LENGTH)
        runs += len(found)
    assert runs > 50  # the shoes did hold runs to find


def test_a_stored_card_that_is_no_code_is_named_not_crashed_on():
    """Cards as stored pass the fast paths; anything else (another spelling, a number, a list) goes
    through parse_card, which names it."""
    assert sequences.dealt_order(["as", "2S"], ["4S", "5S"]) == ["AS", "4S", "2S", "5S"]
    for bad in (["AS", ["2S"]], ["AS", 7], ["AS", "ZZ"]):
        with pytest.raises(game.InvalidCard):
            sequences.dealt_order(bad, ["4S", "5S"])
