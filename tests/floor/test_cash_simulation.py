"""The simulated floor's cash (pit.floor.cash): buy-ins at the tables, chips walked, the cage's
purchases and redemptions. Thirty simulated days raise no suspicious pattern but the structurer's
and the minimal gamer's, each naming them; CTR worksheets only for the high rollers, who are rated."""

import datetime as dt
from collections import defaultdict
from decimal import Decimal

import pytest

from pit.cash.models import CashFinding, CashTransaction, FindingKind
from pit.cash.services import cash_check_day
from pit.core.gaming_day import gaming_day_for
from pit.floor.clients import ServicesFloorClient
from pit.floor.simulator import simulate
from pit.players.models import BuyIn, ChipsWalked, Patron, SeatSession
from pit.players.selectors import session_wagers, sessions_wagers
from tests.floor.conftest import NOW, pit_tables  # noqa: F401  the demo pit's tables

pytestmark = pytest.mark.django_db
PATTERNS = {
    FindingKind.STRUCTURING,
    FindingKind.MINIMAL_GAMING,
    FindingKind.CHIP_WALKING,
    FindingKind.CASH_OUT_FOR_OTHER,
}
PATRONS = 12  # P-00002 and P-00003 the high rollers, P-00004 the structurer, P-00005 the minimal gamer


def _play(days, tables, seed):
    result = simulate(ServicesFloorClient(), now=NOW, tables=tables, days=days, seed=seed, patrons=PATRONS, seats=5)
    last = gaming_day_for(NOW)
    for back in range(days - 1, -1, -1):
        cash_check_day(day=last - dt.timedelta(days=back))
    return result


def _card(patron_id):
    return Patron.objects.get(pk=patron_id).card_number


def _found():
    found = defaultdict(set)
    for finding in CashFinding.objects.filter(cleared_at__isnull=True):
        found[finding.kind].add(_card(finding.patron_id) if finding.patron_id else finding.description)
    return dict(found)


def test_a_day_of_cash_at_the_tables_and_the_cage(pit_tables, django_capture_on_commit_callbacks):  # noqa: F811
    with django_capture_on_commit_callbacks(execute=False):
        _play(3, ["BB1", "MN1"], seed=8)
    rows = list(CashTransaction.objects.select_related("patron"))
    # Every cash buy-in at a seat is its chip purchase, at its table, of its amount.
    buy_ins = BuyIn.objects.filter(kind="cash")
    assert buy_ins.count() == CashTransaction.objects.filter(buy_in__isnull=False).count() > 20
    for buy_in in buy_ins.select_related("session__table"):
        cash = buy_in.cash_transaction
        assert (cash.kind, cash.amount_minor, cash.table_id) == (
            "chip_purchase",
            buy_in.amount_minor,
            buy_in.session.table_id,
        )
    cage = [row for row in rows if row.table_id is None]
    # The structurer buys chips at the cage twice a day, each just under the MTL threshold ($3,000).
    purchases = sorted(row.amount for row in cage if row.kind == "chip_purchase")
    assert purchases == [Decimal(2700)] * 3 + [Decimal(2900)] * 3
    assert {row.patron.card_number for row in cage if row.kind == "chip_purchase"} == {"P-00004"}
    # Redemptions never more than the patron's chips walked that day and the days before.
    redeemed = defaultdict(Decimal)
    for row in cage:
        if row.kind == "chip_redemption":
            redeemed[row.patron_id] += row.amount
    assert redeemed
    walked = defaultdict(Decimal)
    for walk in ChipsWalked.objects.select_related("session"):
        if walk.session.patron_id:
            walked[walk.session.patron_id] += Decimal(walk.amount_minor) / 100
    for patron_id, amount in redeemed.items():
        assert amount <= walked[patron_id]
    # Every rated session stood carries its walk; unrated players' chips are nobody's count.
    stood = SeatSession.objects.filter(events__kind="stand")
    assert ChipsWalked.objects.count() == stood.filter(patron__isnull=False).count()
    # The wagers of many sessions read at once are each session's own, read alone.
    sessions = list(SeatSession.objects.all())
    together = sessions_wagers(sessions)
    assert sum(len(wagers) for wagers in together.values()) > 100
    for session in sessions:
        assert sorted(w.pk for w in together[session.pk]) == sorted(w.pk for w in session_wagers(session))
    # Most buy-ins are under the MTL threshold; the high rollers' over the CTR threshold.
    amounts = [(row.patron.card_number if row.patron else "", row.amount) for row in rows if row.buy_in_id]
    high = {card for card, amount in amounts if amount > 10000}
    assert high == {"P-00002", "P-00003"}
    under = [amount for _, amount in amounts if amount < 2400]
    assert len(under) > 0.8 * len(amounts)


@pytest.mark.slow
def test_thirty_simulated_days_raise_the_two_patterns_played_and_nothing_else(
    pit_tables,  # noqa: F811
    django_capture_on_commit_callbacks,
):
    with django_capture_on_commit_callbacks(execute=False):
        _play(30, ["BB1", "MN2"], seed=30)
    found = _found()
    patterns = {kind: cards for kind, cards in found.items() if kind in PATTERNS}
    assert patterns == {FindingKind.STRUCTURING: {"P-00004"}, FindingKind.MINIMAL_GAMING: {"P-00005"}}
    # Thresholds: cash in over the CTR threshold only by the high rollers (rated, so identified);
    # other worksheets are a patron's winnings redeemed over it; nobody unidentified over a threshold.
    assert FindingKind.IDENTIFY not in found
    cash_in_over = set()
    for finding in CashFinding.objects.filter(kind=FindingKind.CTR).select_related("patron"):
        if Decimal(finding.cash_in) > 10000:
            cash_in_over.add(finding.patron.card_number)
        else:
            assert Decimal(finding.cash_out) > 10000
    assert cash_in_over == {"P-00002", "P-00003"}
    # The structurer is found on every day of play, each finding with that day's two purchases.
    structuring = CashFinding.objects.filter(kind=FindingKind.STRUCTURING)
    assert structuring.count() == 30
    for finding in structuring:
        rows = CashTransaction.objects.filter(pk__in=finding.evidence["transactions"])
        assert {row.gaming_day for row in rows} <= {finding.gaming_day - dt.timedelta(days=back) for back in range(3)}
        assert {(row.kind, row.amount) for row in rows.filter(gaming_day=finding.gaming_day)} == {
            ("chip_purchase", Decimal(2900)),
            ("chip_purchase", Decimal(2700)),
        }
    # Each minimal-gaming session: the cash buy-in of $6,500 and a handle under a tenth of it.
    for finding in CashFinding.objects.filter(kind=FindingKind.MINIMAL_GAMING):
        (session_id,) = finding.evidence["sessions"]
        session = SeatSession.objects.get(pk=session_id)
        assert session.patron.card_number == "P-00005"
        assert Decimal(finding.cash_in) == Decimal(6500)
        assert Decimal(finding.evidence["handle"]) < Decimal(650)
