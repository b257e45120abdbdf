"""pit.cash.persistence: the day's check on PostgreSQL finds what its ORM twin (pit.cash.patterns)
finds, with the same evidence, on one hand-built day holding every kind of finding, reversals, an
unidentified person, a day before and a table in another currency."""

import datetime as dt

import pytest

from pit.cash import patterns, persistence
from pit.cash.selectors import rules_at
from pit.cash.services import rate_record, transaction_reverse
from pit.players.models import Patron
from pit.players.services import patron_enrol, session_identify
from tests import factories
from tests.cash.conftest import DAY, START, buy, cage, seated, stand
from tests.cash.test_patterns import _played

pytestmark = pytest.mark.django_db


def _both(day: dt.date) -> tuple[list, list]:
    rules = rules_at(START)
    return [
        sorted(
            (f.fingerprint, f.kind, f.patron_id, f.description, f.table_id, f.cash_in, f.cash_out, f.evidence)
            for f in found
        )
        for found in (persistence.findings_of_day(day=day, rules=rules), patterns.findings_of_day(day=day, rules=rules))
    ]


def _a_day_of_everything(floor) -> None:
    p1, p2, p3, p4 = floor["patrons"]
    tier = p1.versions.get().tier
    p5, p6 = (patron_enrol(card_number=f"80000{n}", name=f"P {n}", tier=tier, nationality="US") for n in (5, 6))
    # Structuring by a patron, across days (CTR band) and within the day (MTL band, out).
    cage("chip_purchase", "9000", patron=p1, day_offset=-1)
    cage("chip_purchase", "9500", patron=p1, minutes=30)
    cage("chip_redemption", "2500", patron=p2)
    cage("chip_redemption", "2900", patron=p2, minutes=50)
    # A CTR worksheet, with a reversal taking back part of it, and one taken under the threshold.
    cage("chip_purchase", "12000", patron=p3, minutes=5)
    mistaken = cage("chip_purchase", "4000", patron=p3, minutes=6)
    transaction_reverse(reversed_=mistaken, reason="typed twice", reference="REV-1")
    under = cage("chip_purchase", "10500", patron=p5, minutes=7)
    transaction_reverse(reversed_=under, reason="wrong patron", reference="REV-2")
    # A reversed just-under transaction takes no part in structuring.
    gone = cage("chip_purchase", "9100", patron=p5, minutes=8)
    transaction_reverse(reversed_=gone, reason="voided", reference="REV-3")
    cage("chip_purchase", "9200", patron=p5, minutes=9)
    # Identification: a described person over the threshold.
    cage("chip_purchase", "6000", description="tall man, red tie", minutes=10)
    cage("chip_purchase", "6000", description="tall man, red tie", minutes=20)
    # Structuring at a table by several persons within the hour.
    for seat, minutes in ((1, 1), (2, 10), (3, 25)):
        session = seated(floor["bb1"], seat, description=f"person {seat}", minutes=minutes - 1)
        buy(session, "8500", minutes=minutes)
        stand(session, minutes=minutes + 30, walked="8500")
    # Minimal gaming (a wager, identified later), chip walking (a loss, nothing walked).
    minimal = seated(floor["bb2"], 1, description="woman, blue coat", minutes=100)
    buy(minimal, "20000", minutes=101)
    _played(floor["bb2"], 1, "100", "banker", minutes=105)
    stand(minimal, minutes=110, walked="19900")
    session_identify(session=minimal, patron=p6, reason="her card, shown at the cage")
    walker = seated(floor["bb1"], 5, patron=p4, minutes=200)
    buy(walker, "10000", minutes=201)
    _played(floor["bb1"], 5, "1000", "player", minutes=205)
    stand(walker, minutes=210)
    # Cash out for another: one who played (and walked), one who did not.
    player = seated(floor["bb2"], 3, patron=p2, minutes=300)
    buy(player, "900", minutes=301)
    stand(player, minutes=320, walked="6000")
    cage("chip_redemption", "6000", patron=p2, minutes=330)
    cage("chip_redemption", "7000", patron=p1, minutes=335)
    # A table in HKD, converted at the day's rate.
    rate_record(day=DAY, currency="HKD", rate="0.1282")
    hkd = factories.table("HK1", currency="HKD", limits={"player": ("100", "500000"), "banker": ("100", "500000")})
    foreign = seated(hkd, 1, patron=p3, minutes=400)
    buy(foreign, "90000", minutes=401)
    stand(foreign, minutes=420, walked="10000")


def test_the_statements_find_what_the_orm_twin_finds_with_the_same_evidence(floor):
    _a_day_of_everything(floor)
    in_sql, in_python = _both(DAY)
    assert in_sql == in_python
    kinds = {kind for _fingerprint, kind, *_ in in_python}
    assert kinds == {"ctr", "identify", "structuring", "minimal_gaming", "chip_walking", "cash_out_for_other"}
    fingerprints = {fingerprint for fingerprint, *_ in in_python}
    assert any(f.startswith("structuring-table:") for f in fingerprints)
    assert not any(f.startswith(f"ctr:{Patron.objects.get(card_number='800005').pk}:") for f in fingerprints)
    yesterday = _both(DAY - dt.timedelta(days=1))
    assert yesterday[0] == yesterday[1]


def test_a_day_without_cash_finds_nothing_either_way(floor):
    assert _both(DAY) == [[], []]
