"""Card control: decks received by two signers, issued for a shoe, returned, cancelled and destroyed
before a witness; the daily reconciliation; and the findings (a shoe without its decks, a deck
issued twice, a deck in use too long), each on a hand-built case, nothing written on a refusal."""

import datetime as dt

import pytest
from django.core.exceptions import ValidationError

from pit.compliance.models import RuleViolation
from pit.controls import services
from pit.controls.checks import controls_check
from pit.controls.models import Deck, DeckEvent, DeckIssue
from pit.controls.selectors import card_days, deck_location, storage_inventory
from pit.core.errors import Conflict
from tests import factories

HOUR = dt.timedelta(hours=1)


def _receive(pit, count=8, prefix="A", at=None):
    return services.decks_receive(
        serials=[f"{prefix}{n:03}" for n in range(count)],
        storage=pit.room,
        received_by=pit.ann,
        second_signer=pit.ben,
        received_at=at or pit.start + dt.timedelta(minutes=5),
        lot="INV-1",
    )


def _shoe(pit, at, decks=8, table=None):
    return factories.shoe(table or pit.bb1, shuffled_at=at, decks=decks, cut_card_position=decks * 52 - 14)


def _codes():
    return sorted(RuleViolation.objects.filter(cleared_at__isnull=True).values_list("code", "fingerprint"))


def test_receiving_takes_two_signers_and_new_serials(pit):
    with pytest.raises(ValidationError, match="Two different people"):
        services.decks_receive(serials=["A1"], storage=pit.room, received_by=pit.ann, second_signer=pit.ann)
    _receive(pit, 2)
    with pytest.raises(ValidationError, match="Received before: A000"):
        services.decks_receive(serials=["A000", "Z9"], storage=pit.room, received_by=pit.ann, second_signer=pit.ben)
    with pytest.raises(ValidationError, match="given twice"):
        services.decks_receive(serials=["Q1", "Q1"], storage=pit.room, received_by=pit.ann, second_signer=pit.ben)
    assert sorted(Deck.objects.values_list("serial", flat=True)) == ["A000", "A001"]


def test_an_honest_shoe_is_no_finding_and_the_day_reconciles(pit):
    decks = _receive(pit, 10)
    at = pit.start + 2 * HOUR
    shoe = _shoe(pit, at)
    services.decks_issue(decks=decks[:8], shoe=shoe, issued_by=pit.cal, taken_by=pit.ann, issued_at=at - 0.2 * HOUR)
    for deck in decks[:8]:
        services.deck_return(deck=deck, storage=pit.room, by=pit.ann, at=at + 2 * HOUR)
        services.deck_cancel(deck=deck, by=pit.cal, witness=pit.ben, at=at + 3 * HOUR)
    for deck in decks[:4]:
        services.deck_destroy(deck=deck, by=pit.cal, witness=pit.ben, at=at + 4 * HOUR)
    services.storage_count_record(
        storage=pit.room, decks=6, counted_by=pit.cal, witness=pit.ben, counted_at=at + 5 * HOUR
    )
    assert controls_check(gaming_day=pit.day)["controls.cards"] == 0
    assert _codes() == []
    (day,) = card_days(pit.day, pit.day)
    assert (day.received, day.issued, day.returned, day.cancelled, day.destroyed) == (10, 8, 8, 8, 4)
    assert (day.received_to_date, day.in_storage, day.at_tables, day.destroyed_to_date) == (10, 6, 0, 4)
    assert day.balanced and day.by_place == {"CR1": 6} and day.counted == {"CR1": 6}
    assert day.count_difference == 0 and day.overdue == []
    assert storage_inventory(at + 6 * HOUR) == {"CR1": {"unused": 2, "cancelled": 4}}
    assert str(deck_location(decks[0], at + 6 * HOUR)) == "destroyed"


def test_a_shoe_without_its_decks_is_a_finding_until_they_are_issued(pit):
    decks = _receive(pit, 8)
    shoe = _shoe(pit, pit.start + HOUR)
    services.decks_issue(decks=decks[:6], shoe=shoe, issued_by=pit.cal, taken_by=pit.ann, issued_at=pit.start + HOUR)
    controls_check(gaming_day=pit.day)
    violation = RuleViolation.objects.get(code="shoe_cards_not_issued")
    assert violation.message == f"Shoe {shoe} holds 8 decks but 6 were issued for it."
    assert (violation.table, violation.shoe, violation.gaming_day) == (pit.bb1, shoe, pit.day)
    services.decks_issue(decks=decks[6:], shoe=shoe, issued_by=pit.cal, taken_by=pit.ann, issued_at=pit.start + HOUR)
    controls_check(gaming_day=pit.day)
    violation.refresh_from_db()
    assert violation.cleared_at is not None


def test_a_deck_issued_twice_is_found_as_it_is_recorded(pit):
    decks = _receive(pit, 9)
    first = _shoe(pit, pit.start + HOUR, decks=1)
    services.decks_issue(decks=[decks[0]], shoe=first, issued_by=pit.cal, taken_by=pit.ann, issued_at=pit.start + HOUR)
    with pytest.raises(ValidationError, match="A000 is not in storage \\(at table BB1\\)"):
        services.decks_issue(
            decks=[decks[0]], shoe=first, issued_by=pit.cal, taken_by=pit.ann, issued_at=pit.start + HOUR
        )
    services.deck_return(deck=decks[0], storage=pit.room, by=pit.ann, at=pit.start + 2 * HOUR)
    second = _shoe(pit, pit.start + 3 * HOUR, decks=1, table=factories.table("BB2"))
    (again,) = services.decks_issue(
        decks=[decks[0]], shoe=second, issued_by=pit.cal, taken_by=pit.ann, issued_at=pit.start + 3 * HOUR
    )
    violation = RuleViolation.objects.get(code="deck_issued_twice")
    assert violation.fingerprint == f"deck_twice:{again.pk}"
    assert f"to BB2 for shoe {second.pk} at " in violation.message
    assert DeckIssue.objects.count() == 2
    services.deck_return(deck=decks[0], storage=pit.room, by=pit.ann, at=pit.start + 5 * HOUR)
    controls_check(gaming_day=pit.day)
    assert _codes() == [("deck_issued_twice", f"deck_twice:{again.pk}")]  # the same finding, not a second


def test_a_deck_in_use_too_long_is_named_and_found(pit, settings):
    settings.PIT_CONTROLS_DECK_MAX_HOURS = 24
    decks = _receive(pit, 1)
    shoe = _shoe(pit, pit.start + HOUR, decks=1)
    services.decks_issue(decks=decks, shoe=shoe, issued_by=pit.cal, taken_by=pit.ann, issued_at=pit.start + HOUR)
    (day,) = card_days(pit.day, pit.day)
    assert day.overdue == []  # 23 hours at the day's end
    (_, next_day) = card_days(pit.day, pit.day + dt.timedelta(days=1))
    assert next_day.overdue == [f"A000 at BB1 since {pit.start + HOUR:%Y-%m-%d %H:%M}"]
    assert next_day.at_tables == 1 and next_day.balanced
    controls_check(gaming_day=pit.day)
    violation = RuleViolation.objects.get(code="deck_in_use_overdue")
    assert violation.fingerprint == f"deck_overdue:{DeckIssue.objects.get().pk}"
    assert "(at most 24)" in violation.message


def test_cancel_and_destroy_need_a_witness_and_a_deck_in_storage(pit):
    (deck,) = _receive(pit, 1)
    with pytest.raises(ValidationError, match="Two different people"):
        services.deck_destroy(deck=deck, by=pit.cal, witness=pit.cal)
    with pytest.raises(ValidationError, match="not at a table"):
        services.deck_return(deck=deck, storage=pit.room, by=pit.ann)
    services.deck_destroy(deck=deck, by=pit.cal, witness=pit.ben, at=pit.start + HOUR)
    with pytest.raises(ValidationError, match="cannot be destroyed: destroyed"):
        services.deck_destroy(deck=deck, by=pit.cal, witness=pit.ben, at=pit.start + 2 * HOUR)
    assert DeckEvent.objects.count() == 1
    assert Conflict  # the refusals above are ValidationErrors: nothing physical happened twice
