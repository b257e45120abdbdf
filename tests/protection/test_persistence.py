"""Game protection's hand-written statements answer as their ORM twins do."""

import datetime as dt

import pytest
from django.db.models import Count

from pit.compliance.checks import coups_check
from pit.protection import persistence
from pit.protection.models import CardShingle
from pit.shoes.models import Coup
from tests import factories
from tests.protection.test_sequences import dealt


@pytest.fixture
def indexed(db):
    """Three shoes at three tables, the second and third replaying the first, and a fourth of its own."""
    repeated = dealt(7, 12)
    shoes = [factories.shoe(factories.table(code)) for code in ("BB1", "BB2", "BB3", "BB4")]
    for shoe, coups in zip(shoes, [repeated, repeated, repeated, dealt(8, 12)], strict=True):
        for number, (player, banker) in enumerate(coups, start=1):
            factories.coup(shoe, number, player, banker)
    coups_check(coup_ids=Coup.objects.values_list("pk", flat=True))
    day = Coup.objects.first().gaming_day
    assert CardShingle.objects.values("shoe_id").distinct().count() == 4
    return day


def test_the_digests_two_shoes_hold_are_those_the_orm_counts(indexed):
    day = indexed
    orm = set(
        CardShingle.objects.filter(gaming_day__range=(day, day))
        .values("digest")
        .annotate(shoes=Count("shoe_id", distinct=True))
        .filter(shoes__gt=1)
        .values_list("digest", flat=True)
    )

    held = persistence.digests_held_by_two_shoes(day, day)

    assert held == orm and len(held) > 10
    a_year_before = day - dt.timedelta(days=365)
    assert persistence.digests_held_by_two_shoes(a_year_before, a_year_before) == set()


@pytest.mark.postgres
def test_the_shingles_matching_on_postgresql_are_those_of_the_orm(indexed):
    day = indexed
    digests = sorted(set(CardShingle.objects.values_list("digest", flat=True)))

    postgresql = persistence.shingles_matching_postgresql(digests, day, day)

    assert sorted(postgresql) == sorted(persistence.shingles_matching_orm(digests, day, day))
    assert {row[0] for row in postgresql} == set(CardShingle.objects.values_list("shoe_id", flat=True)) - {
        CardShingle.objects.order_by("-shoe_id").values_list("shoe_id", flat=True).first()
    }
    assert persistence.shingles_matching_postgresql(digests[:1], day, day) == persistence.shingles_matching_orm(
        digests[:1], day, day
    )
