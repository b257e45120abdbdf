"""The reports' hand-written statements (pit.reports.persistence) against their ORM twins, on
PostgreSQL: the same rows from the same floor."""

import datetime as dt

import pytest

from pit.core.gaming_day import current_gaming_day, gaming_day_bounds
from pit.players.models import BuyIn, PatronVersion, SeatSession
from pit.ratings.models import CompEntry, SessionRating
from pit.reports import persistence
from pit.reports.definitions import ReportFilters
from pit.reports.ratings import patron_day_sums_orm
from tests import factories
from tests.ratings.players import patron, tier

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


@pytest.fixture
def rated_day():
    day = current_gaming_day() - dt.timedelta(days=1)
    start = gaming_day_bounds(day)[0]
    silver = tier("silver", rank=2)
    tables = [factories.table("BB1", open_=False), factories.table("MD1", game="midi", open_=False)]
    alice, bob, carol = patron("C-1"), patron("C-2", tier_=silver), patron("C-3")
    PatronVersion.objects.create(patron=alice, name="A. Patron", tier=silver, nationality="CN")  # her tier now
    for n, who in enumerate((alice, alice, bob, carol, bob)):
        session = SeatSession.objects.create(
            table=tables[n % 2], seat=1 + n, patron=who, started_at=start + dt.timedelta(hours=n), gaming_day=day
        )
        SessionRating.objects.create(
            session=session,
            patron=who,
            table=session.table,
            gaming_day=day,
            currency="USD",
            seconds_played=600 * (n + 1),
            coups_played=10 + n,
            table_coups=12 + n,
            handle_minor=10000 * (n + 1),
            won_minor=(-1) ** n * 700,
            theo_minor="123.456789",
            standard_theo_minor="100.000001",
            estimated=n == 3,
            as_of=session.started_at,
        )
        buy_in = BuyIn.objects.create(session=session, kind="cash", currency="USD", amount_minor=50000, at=start)
        if n == 1:
            BuyIn.objects.create(
                session=session, kind="cash", currency="USD", amount_minor=50000, at=start, reverses=buy_in, reason="x"
            )
        CompEntry.objects.create(patron=who, kind="earned", session=session, currency="USD", amount_minor=100 + n)
        if n == 2:  # a comp of another patron's on the session (identified later): not Bob's
            CompEntry.objects.create(patron=carol, kind="adjusted", session=session, currency="USD", amount_minor=-7)
    return day


@pytest.mark.parametrize(("tables", "game"), [((), ""), (("BB1",), ""), ((), "midi")])
def test_the_patron_day_statement_gives_its_twins_rows(rated_day, tables, game):
    filters = ReportFilters(date_from=rated_day, date_to=rated_day, tables=tables, game=game)
    by_hand = persistence.patron_day_sums(rated_day, rated_day, tables, game)
    twin = patron_day_sums_orm(filters)
    assert by_hand is not None and len(by_hand) == len(twin) > 0
    assert [tuple(row) for row in by_hand] == [tuple(row) for row in twin]
    if not tables and not game:
        alice = next(row for row in by_hand if row[2] == "C-1")
        assert alice[3] == "Silver" and alice[4] == 2 and alice[12] == 50000  # one buy-in reversed
        bob = next(row for row in by_hand if row[2] == "C-2")
        assert bob[13] == 102 + 104  # the other patron's adjustment on his session is not his
