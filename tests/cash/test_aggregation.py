"""The gaming-day aggregation: per person, cash in and cash out apart (never netted), across the
tables and the cage, in the reporting currency exactly; the MTL and the CTR worksheets it fills.
Expected figures are written out by hand from the rows below, not computed by pit.cash."""

import datetime as dt
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from pit.cash.models import CashFinding, CashTransaction
from pit.cash.selectors import cash_day, mtl, rules_at
from pit.cash.services import (
    cash_check_day,
    cash_deadlines_check,
    finding_review,
    rate_record,
    rules_record,
    transaction_reverse,
)
from pit.compliance.models import RuleViolation
from pit.core.actors import Actor
from pit.players.services import buy_in_reverse
from pit.protection.selectors import alarm_banner
from tests import factories
from tests.cash.conftest import DAY, START, buy, cage, seated

pytestmark = pytest.mark.django_db


def test_cash_in_and_out_are_totalled_apart_across_tables_and_cage(floor):
    first, second = floor["patrons"][:2]
    one = seated(floor["bb1"], 1, patron=first)
    buy(one, "4000")  # in, table BB1
    buy(one, "2500", kind="marker")  # out: a credit advance
    buy(one, "700", kind="chips")  # no cash
    other = seated(floor["bb2"], 2, patron=first, minutes=30)
    buy(other, "3000", minutes=31)  # in, table BB2
    cage("chip_redemption", "9000", patron=first, minutes=90)  # out
    cage("front_money_deposit", "1200.50", patron=second, minutes=5)  # in
    days = cash_day(DAY)
    assert days[(first.pk, "")].cash_in == Decimal("7000")
    assert days[(first.pk, "")].cash_out == Decimal("11500")
    assert days[(second.pk, "")].cash_in == Decimal("1200.50")
    assert days[(second.pk, "")].cash_out == Decimal("0")
    assert CashTransaction.objects.count() == 5  # the chips brought are no cash transaction


def test_a_reversal_takes_back_its_amount_from_its_own_direction(floor):
    patron = floor["patrons"][0]
    session = seated(floor["bb1"], 1, patron=patron)
    mistaken = buy(session, "6000")
    cage("chip_redemption", "2000", patron=patron, minutes=20)
    buy_in_reverse(buy_in=mistaken, reason="keyed on the wrong seat")
    days = cash_day(DAY)
    assert (days[(patron.pk, "")].cash_in, days[(patron.pk, "")].cash_out) == (Decimal("0"), Decimal("2000"))
    reversal = CashTransaction.objects.get(reverses__isnull=False)
    assert reversal.reverses.buy_in_id == mistaken.pk and reversal.reason == "keyed on the wrong seat"


def test_a_ctr_worksheet_opens_over_the_threshold_and_not_at_it(floor):
    over, at_it = floor["patrons"][:2]
    cage("chip_purchase", "6000", patron=over)
    cage("chip_purchase", "4000.01", patron=over, minutes=10)
    cage("front_money_withdrawal", "10000", patron=at_it)  # exactly $10,000: not "more than"
    cage("chip_purchase", "9999.99", patron=at_it, minutes=3)
    assert cash_check_day(day=DAY) == {"found": 1, "updated": 0, "cleared": 0}
    worksheet = CashFinding.objects.get()
    assert (worksheet.kind, worksheet.patron_id, worksheet.cash_in, worksheet.cash_out) == (
        "ctr",
        over.pk,
        "10000.01",
        "0",
    )
    assert worksheet.deadline == DAY + dt.timedelta(days=15)  # Form 112: within 15 days
    assert len(worksheet.evidence["transactions"]) == 2


def test_the_worksheet_follows_the_day_and_clears_when_a_reversal_takes_it_under(floor):
    patron = floor["patrons"][0]
    cage("chip_purchase", "8000", patron=patron)
    cash_check_day(day=DAY)
    assert not CashFinding.objects.exists()
    second = cage("chip_purchase", "3000", patron=patron, minutes=5)
    assert cash_check_day(day=DAY)["found"] == 1
    cage("chip_purchase", "1000", patron=patron, minutes=9)
    assert cash_check_day(day=DAY)["updated"] == 1
    assert CashFinding.objects.get().cash_in == "12000"
    transaction_reverse(reversed_=second, reason="counterfeit note refused", reference="CAGE-R1")
    cash_check_day(day=DAY)
    worksheet = CashFinding.objects.get()
    assert worksheet.cleared_at is not None and worksheet.cash_in == "12000"  # kept, cleared, never deleted


def test_a_person_known_only_by_description_over_the_threshold_asks_for_identification(floor):
    cage("chip_redemption", "6000", description="man, blue cap")
    cage("chip_redemption", "6000", description="man, blue cap", minutes=40)
    cage("chip_redemption", "6000", description="woman, green coat", minutes=41)
    cash_check_day(day=DAY)
    finding = CashFinding.objects.get()
    assert (finding.kind, finding.description, finding.cash_out) == ("identify", "man, blue cap", "12000")


def test_the_mtl_lists_each_transaction_over_its_threshold(floor):
    patron = floor["patrons"][0]
    logged = cage("chip_purchase", "3000.01", patron=patron)
    cage("chip_purchase", "3000", patron=patron, minutes=2)  # not over $3,000
    session = seated(floor["bb1"], 1, description="man, grey suit")
    seat = buy(session, "4500")
    rules = rules_at(START)
    assert [t.pk for t in mtl(DAY, rules)] == [logged.pk, seat.cash_transaction.pk]


def test_other_currencies_convert_exactly_at_the_days_rate_kept_on_the_row(floor):
    """Macau: the table plays in HKD, the regulator reports in MOP (MOP 500,000)."""
    rules_record(preset="mo", effective_from=START - dt.timedelta(days=1))
    rate_record(day=DAY, currency="HKD", rate="1.0300")
    rate_record(day=DAY, currency="USD", rate="8.0123456789")
    hkd = factories.table("HK1", currency="HKD", limits={"player": ("100", "500000"), "banker": ("100", "500000")})
    patron = floor["patrons"][2]
    session = seated(hkd, 1, patron=patron)
    buy(session, "300000")
    buy(session, "185437")
    cage("chip_purchase", "1", patron=patron, minutes=3, currency="USD")
    days = cash_day(DAY)
    # 485,437 HKD x 1.03 = 500,000.11 MOP; 1 USD x 8.0123456789 MOP
    assert days[(patron.pk, "")].cash_in == Decimal("500000.11") + Decimal("8.0123456789")
    assert sorted(CashTransaction.objects.values_list("rate", flat=True)) == ["1.03", "1.03", "8.0123456789"]
    cash_check_day(day=DAY)
    worksheet = CashFinding.objects.get(kind="ctr")
    assert (worksheet.reporting_currency, worksheet.cash_in) == ("MOP", "500008.1223456789")
    assert worksheet.deadline == dt.date(2026, 3, 4)  # two business days after Monday 2 March


def test_a_transaction_in_a_currency_without_a_rate_is_refused_and_nothing_written(floor):
    with pytest.raises(ValidationError) as refused:
        cage("chip_purchase", "100", patron=floor["patrons"][0], currency="EUR")
    assert "currency" in refused.value.message_dict
    assert not CashTransaction.objects.exists()


def test_the_alarm_rises_at_the_alert_share_before_the_buy_in_that_crosses(floor):
    patron = floor["patrons"][0]
    session = seated(floor["bb1"], 3, patron=patron)
    buy(session, "8999.99")
    assert not RuleViolation.objects.filter(code="cash_threshold_near").exists()
    buy(session, "0.01", minutes=2)  # $9,000: 90% of $10,000
    alarm = RuleViolation.objects.get(code="cash_threshold_near")
    assert (alarm.table, alarm.seat, alarm.gaming_day) == (floor["bb1"], 3, DAY)
    assert "700001" in alarm.message
    buy(session, "500", minutes=3)
    assert RuleViolation.objects.filter(code="cash_threshold_near").count() == 1  # once per patron and day


def test_a_filing_deadline_near_is_an_alarm_at_the_table_until_filed(floor, settings, django_user_model):
    settings.PIT_CASH_DEADLINE_WARNING_DAYS = 3
    patron = floor["patrons"][1]
    buy(seated(floor["bb2"], 2, patron=patron), "12000")
    cage("chip_purchase", "11000", description="woman, red coat")  # at the cage alone: no table to show at
    cash_check_day(day=DAY)
    worksheet = CashFinding.objects.get(kind="ctr")
    assert worksheet.deadline == DAY + dt.timedelta(days=15)  # 31 CFR 1021.311: within 15 days
    assert cash_deadlines_check(today=DAY + dt.timedelta(days=11)) == 0  # 4 days left: not yet
    assert cash_deadlines_check(today=DAY + dt.timedelta(days=12)) == 1  # 3 days left
    alarm = RuleViolation.objects.get(code="cash_filing_due")
    assert (alarm.table, alarm.gaming_day, alarm.cleared_at) == (floor["bb2"], DAY, None)
    assert "700002" in alarm.message and str(worksheet.deadline) in alarm.message
    assert [a["code"] for a in alarm_banner()] == ["cash_filing_due"]
    assert cash_deadlines_check(today=DAY + dt.timedelta(days=20)) == 1  # passed: still alarmed, once
    assert RuleViolation.objects.filter(code="cash_filing_due").count() == 1
    finding_review(
        finding=worksheet,
        status="filed",
        note="Form 112 filed",
        filing_reference="BSA-1",
        filed_on=DAY + dt.timedelta(days=20),
        actor=Actor(user=django_user_model.objects.create_user("compliance")),
    )
    alarm.refresh_from_db()
    assert alarm.cleared_at is not None
    assert cash_deadlines_check(today=DAY + dt.timedelta(days=20)) == 0


def test_the_rules_standing_are_the_latest_version_in_effect_at_the_moment(floor):
    before = rules_at(START - dt.timedelta(days=10))
    assert before.pk is None and before.preset == "us" and before.ctr_threshold == Decimal("10000")
    macau = rules_record(preset="mo", effective_from=START - dt.timedelta(days=2))
    override = rules_record(preset="us", effective_from=START - dt.timedelta(days=1), overrides={"mtl_threshold": 2500})
    assert rules_at(START - dt.timedelta(days=2)).pk == macau.pk
    standing = rules_at(START)
    assert standing.pk == override.pk
    expected = type(standing).objects.get(pk=override.pk)
    for field in standing._meta.concrete_fields:
        assert getattr(standing, field.attname) == getattr(expected, field.attname), field.name
    assert (standing.reporting_currency, standing.mtl_threshold, standing.ctr_threshold) == ("USD", 2500, 10000)
