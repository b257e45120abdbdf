"""Two hosts redeeming the same patron's comps at once on PostgreSQL: the patron's ledger is locked,
so exactly one redemption spends the balance and the other is refused naming what is left."""

import threading

import pytest
from django.db import connection
from django.utils import timezone

from pit.core.errors import Conflict
from pit.players.models import SeatSession
from pit.ratings.models import CompEntry
from pit.ratings.services import comp_balance_minor, comp_redeem
from tests import factories
from tests.ratings import players


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_redemptions_at_once_never_take_the_balance_below_zero():
    table = factories.table("BB1")
    patron = players.patron("C-5000")
    session = SeatSession.objects.create(
        table=table, seat=1, patron=patron, started_at=timezone.now(), gaming_day=timezone.now().date()
    )
    CompEntry.objects.create(patron=patron, kind="earned", session=session, currency="USD", amount_minor=10000)
    barrier = threading.Barrier(2)
    outcomes: list[object] = []

    def redeem():
        try:
            barrier.wait(timeout=10)
            outcomes.append(comp_redeem(patron=patron, currency="USD", amount_minor=7000, reason="dinner"))
        except Conflict as refused:
            outcomes.append(refused)
        finally:
            connection.close()

    threads = [threading.Thread(target=redeem) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    refused = [outcome for outcome in outcomes if isinstance(outcome, Conflict)]
    assert len(outcomes) == 2 and len(refused) == 1
    assert refused[0].details["balance"] == "3000"
    assert comp_balance_minor(patron, "USD") == 3000
    assert CompEntry.objects.filter(kind="redeemed").count() == 1
