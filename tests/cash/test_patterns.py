"""Each suspicious pattern built by hand, found with its evidence; the honest twin of each, not."""

import datetime as dt

import pytest

from pit.cash.models import CashFinding, CashTransaction
from pit.cash.services import cash_check_day
from pit.shoes.models import Wager
from tests import factories
from tests.cash.conftest import DAY, at, buy, cage, seated, stand
from tests.shoes import hands

pytestmark = pytest.mark.django_db


def kinds() -> list[tuple[str, int | None]]:
    return sorted((f.kind, f.patron_id) for f in CashFinding.objects.filter(cleared_at__isnull=True))


def test_structuring_just_under_the_ctr_threshold_across_consecutive_days(floor):
    patron = floor["patrons"][0]
    yesterday = cage("chip_purchase", "9000", patron=patron, day_offset=-1)
    today = cage("chip_purchase", "9500", patron=patron, minutes=30)
    cash_check_day(day=DAY - dt.timedelta(days=1))
    assert kinds() == []  # one transaction is no pattern
    cash_check_day(day=DAY)
    finding = CashFinding.objects.get()
    assert (finding.kind, finding.patron_id, finding.cash_in) == ("structuring", patron.pk, "18500")
    assert finding.evidence["transactions"] == sorted([yesterday.pk, today.pk])
    assert "CTR" in finding.evidence["rule"]


def test_structuring_just_under_the_mtl_threshold(floor):
    patron = floor["patrons"][1]
    first = cage("chip_redemption", "2500", patron=patron)
    second = cage("chip_redemption", "2900", patron=patron, minutes=50)
    seated_ = seated(floor["bb1"], 5, patron=patron, minutes=-200)  # the chips were won at a table ...
    buy(seated_, "300", minutes=-199)
    stand(seated_, minutes=-100, walked="5400")  # ... and walked from it: no cash out for another
    cash_check_day(day=DAY)
    finding = CashFinding.objects.get()
    assert (finding.kind, finding.cash_out, finding.evidence["transactions"]) == (
        "structuring",
        "5400",
        [first.pk, second.pk],
    )
    assert "MTL" in finding.evidence["rule"]


def test_honest_cash_under_every_band_is_no_pattern(floor):
    patron = floor["patrons"][0]
    cage("chip_purchase", "2000", patron=patron)
    cage("chip_purchase", "2000", patron=patron, minutes=60)
    cage("chip_purchase", "5000", patron=patron, minutes=120)
    cash_check_day(day=DAY)
    assert kinds() == []


def test_structuring_by_several_persons_at_one_table_together(floor):
    sessions = [seated(floor["bb1"], seat, description=f"person {seat}") for seat in (1, 2, 3)]
    ids = [
        buy(session, "8500", minutes=minutes).cash_transaction.pk
        for session, minutes in zip(sessions, (1, 10, 25), strict=True)
    ]
    late = seated(floor["bb1"], 5, description="person 5")
    buy(late, "8500", minutes=200)  # outside the hour: not with them
    cash_check_day(day=DAY)
    finding = CashFinding.objects.get()
    assert (finding.kind, finding.table_id, finding.cash_in) == ("structuring", floor["bb1"].pk, "25500")
    assert finding.evidence["transactions"] == ids


def _played(table, session_seat: int, stake: str, bet: str, minutes: int):
    shoe = factories.shoe(table, shuffled_at=at(minutes - 1))
    return factories.coup(
        shoe, 1, *hands.BANKER_NATURAL, dealt_at=at(minutes), wagers=[factories.wager(session_seat, bet, stake)]
    )


def test_minimal_gaming_cash_in_and_little_wagered(floor):
    patron = floor["patrons"][2]
    session = seated(floor["bb1"], 1, patron=patron)
    buy(session, "20000")
    _played(floor["bb1"], 1, "100", "banker", minutes=5)  # Banker wins: +$100, $5 commission owed
    stand(session, minutes=10, walked="19900")
    cash_check_day(day=DAY)
    assert kinds() == [("ctr", patron.pk), ("minimal_gaming", patron.pk)]
    finding = CashFinding.objects.get(kind="minimal_gaming")
    assert finding.evidence["sessions"] == [session.pk]
    assert finding.evidence["wagers"] == [Wager.objects.get().pk]
    assert finding.evidence["handle"] == "100.00"
    assert finding.evidence["transactions"] == [CashTransaction.objects.get().pk]


def test_enough_play_is_no_minimal_gaming(floor):
    patron = floor["patrons"][2]
    session = seated(floor["bb1"], 1, patron=patron)
    buy(session, "6000")
    _played(floor["bb1"], 1, "600", "banker", minutes=5)  # 10% of the buy-in: not under it
    stand(session, minutes=10, walked="6570")
    cash_check_day(day=DAY)
    assert kinds() == []


def test_chip_walking_chips_bought_neither_lost_nor_walked(floor):
    patron = floor["patrons"][3]
    session = seated(floor["bb2"], 2, patron=patron)
    buy(session, "10000")
    _played(floor["bb2"], 2, "1000", "player", minutes=5)  # Player loses: -$1,000
    stand(session, minutes=10)  # no chips recorded leaving: $9,000 unaccounted for
    cash_check_day(day=DAY)
    assert kinds() == [("chip_walking", patron.pk)]
    finding = CashFinding.objects.get()
    assert (finding.evidence["chips_in"], finding.evidence["result"], finding.evidence["walked"]) == (
        "10000.00",
        "-1000.00",
        "0.00",
    )
    assert finding.evidence["unaccounted"] == "9000"


def test_a_redemption_by_a_patron_who_did_not_play_the_chips(floor):
    player, other = floor["patrons"][:2]
    session = seated(floor["bb1"], 1, patron=player)
    buy(session, "9000")
    _played(floor["bb1"], 1, "1000", "banker", minutes=5)  # +$1,000, $50 commission owed
    stand(session, minutes=60, walked="9950")
    mine = cage("chip_redemption", "9950", patron=player, minutes=70)
    theirs = cage("chip_redemption", "8000", patron=other, minutes=75)
    cash_check_day(day=DAY)
    assert kinds() == [("cash_out_for_other", other.pk)]
    assert CashFinding.objects.get().evidence["transactions"] == [theirs.pk]
    assert mine.pk not in CashFinding.objects.get().evidence["transactions"]
