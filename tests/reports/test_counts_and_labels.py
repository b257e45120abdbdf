"""Counts and labels that agree with the money (issue 29, item 3), recomputed from the rows.

A table BB3 beside the report pit: coup 1 (Banker wins, seats 1 and 2 bet Banker) is corrected
to seat 1 alone; coup 2 (Banker wins, seat 1) is voided. Only the corrected seat 1 still owes
commission, so the commission report counts one commission wager there."""

import datetime as dt
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import pytest

from pit.accounting.services import drop_record, inventory_record
from pit.accounts.models import Role
from pit.accounts.services import user_create_with_role
from pit.core.actors import Actor
from pit.ledger.models import CommissionEntry, EntryKind
from pit.reports.accounting import MASTER_GAME
from pit.reports.catalog import COMMISSION, TABLE_RESULTS
from pit.reports.definitions import TOTAL, ReportFilters, report_lines
from pit.shoes.models import CorrectionKind, Coup, CoupCorrection, Wager
from pit.shoes.services import coup_correct, coup_void
from tests import factories
from tests.factories import wager
from tests.reports.conftest import BANKER_NATURAL, DAY_1, DAY_2, at
from tests.reports.test_table_results import deducted_of


@pytest.fixture(autouse=True)
def _one_person_may_sign(settings):
    # What this module tests is not who signs: segregation of duties has its own tests
    # (tests/api/test_segregation_of_duties.py), so one test user may take every step here.
    settings.PIT_SEGREGATION_OF_DUTIES = False


D = Decimal
FILTERS = ReportFilters(DAY_1, DAY_2)
DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.fixture
def corrected(pit, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        table = factories.table("BB3", game="big", preset="commission_box")
        shoe = factories.shoe(table, shuffled_at=at(DAY_1, 12))
        first = factories.coup(
            shoe,
            1,
            *BANKER_NATURAL,
            wagers=[wager(1, "banker", "100"), wager(2, "banker", "200")],
            dealt_at=at(DAY_1, 12, 10),
        )
        second = factories.coup(
            shoe, 2, *BANKER_NATURAL, wagers=[wager(1, "banker", "100")], dealt_at=at(DAY_1, 12, 15)
        )
    with django_capture_on_commit_callbacks(execute=True):
        coup_correct(coup=first, wagers=(wager(1, "banker", "300"),), reason="Seat 2 never bet")
    with django_capture_on_commit_callbacks(execute=True):
        coup_void(coup=second, reason="Misdeal")
    return shoe


def _standing_commission_wagers(shoe) -> dict[int, int]:
    """Per seat, the wagers that stand and owe commission, from the wager and correction rows."""
    latest: dict[int, CoupCorrection] = {}
    for correction in CoupCorrection.objects.filter(coup__shoe=shoe).order_by("sequence"):
        latest[correction.coup_id] = correction
    counts: dict[int, int] = defaultdict(int)
    for item in Wager.objects.filter(coup__shoe=shoe).select_related("correction"):
        last = latest.get(item.coup_id)
        if last is not None and (last.kind == CorrectionKind.VOID or item.correction_id != last.pk):
            continue  # voided, or a version a later correction replaced
        if last is None and item.correction_id is not None:
            continue
        if item.commission_minor > 0:
            counts[item.seat] += 1
    return counts


def test_commission_wagers_count_what_the_money_counts(corrected):
    rows = [
        line.values for line in report_lines(COMMISSION, FILTERS) if line.is_detail and line.values["table"] == "BB3"
    ]
    standing = _standing_commission_wagers(corrected)
    assert dict(standing) == {1: 1}
    assert {row["seat"]: row["commission_wagers"] for row in rows} == {1: 1, 2: 0}
    # The money of seat 1: the corrected 300 stake's 15.00, the others reversed.
    accrued = {
        seat: sum(
            e.amount_minor for e in CommissionEntry.objects.filter(shoe=corrected, seat=seat) if e.kind != "collected"
        )
        for seat in (1, 2)
    }
    assert accrued == {1: 1500, 2: 0}
    assert {row["seat"]: row["accrued"] for row in rows} == {1: D("15.00"), 2: D("0.00")}


def test_reversed_names_apart_what_each_report_means(corrected):
    commission = {column.key: column.label for column in COMMISSION.columns}
    results = {column.key: column.label for column in TABLE_RESULTS.columns}
    assert commission["reversed"] != results["commission_reversed"]
    assert "corrections, voids, comps" in commission["reversed"]
    assert "wagers that stand" in results["commission_reversed"]
    reversals = CommissionEntry.objects.filter(shoe=corrected, kind=EntryKind.REVERSAL)
    every_cause = -sum(entry.amount_minor for entry in reversals)
    assert every_cause == 500 + 1000 + 500  # coup 1's two accruals and coup 2's
    rows = [
        line.values for line in report_lines(COMMISSION, FILTERS) if line.is_detail and line.values["table"] == "BB3"
    ]
    assert sum(row["reversed"] for row in rows) == D(every_cause) / 100
    bb3 = next(line.values for line in report_lines(TABLE_RESULTS, FILTERS) if line.values.get("table") == "BB3")
    assert bb3["commission_reversed"] == D("0.00")  # no comp: the replaced and voided wagers stand no more


def test_the_wager_shows_the_commission_deducted_from_its_payout(pit, admin_client):
    coup = Coup.objects.get(shoe=pit.shoe_c, number=1)
    banker = Wager.objects.get(coup=coup, bet="banker")
    assert banker.commission_minor == 0  # the row holds the net payout only
    assert deducted_of(banker) == D("5.00")  # 5 % of the 100.00 stake, settled again by the engine
    page = admin_client.get(f"/admin/shoes/coup/{coup.pk}/change/").content.decode()
    assert '<span class="pit-money">$5.00</span> deducted from the payout' in page
    assert "commission taken" in page.lower()


def test_master_game_totals_set_both_wins_over_the_same_complete_days(pit, users, django_capture_on_commit_callbacks):
    dealer = user_create_with_role(username="dealer", password="pw-dealer-long", role=Role.PIT_BOSS)
    actor = Actor(user=users[Role.PIT_BOSS])
    for kind in ("opener", "closer"):
        inventory_record(
            table=pit.bb1,
            gaming_day=DAY_1,
            kind=kind,
            chips={"10000": 40},
            dealer=dealer,
            pit_boss=users[Role.PIT_BOSS],
            actor=actor,
        )
    drop_record(table=pit.bb1, gaming_day=DAY_1, cash={"10000": 20}, actor=actor)
    lines = list(report_lines(MASTER_GAME, FILTERS))
    details = [line.values for line in lines if line.is_detail]
    complete = [row for row in details if row["status"] == "complete"]
    assert [(row["gaming_day"], row["table"]) for row in complete] == [(DAY_1, "BB1")]
    assert len(details) == 3  # BB1 and MB1 on 2 Nov, BB1 on 3 Nov
    total = next(line.values for line in lines if line.kind == TOTAL)
    assert total["win"] == D("2000.00")  # the drop, the tray unchanged
    assert total["house_win"] == complete[0]["house_win"]
    assert total["house_win"] != sum(row["house_win"] for row in details)
    assert total["win_difference"] == total["win"] - total["house_win"]
    assert total["status"] == "wins over 1 complete of 3 table-days"


def test_the_docs_state_the_investigation_needs_two_prior_complete_days():
    guide = " ".join((DOCS / "guides" / "accountant.md").read_text().split())
    assert "at least two complete prior days" in guide
    assert "counted − expected" in guide
    assert "half away from zero" in guide


def test_the_hold_rule_needs_two_prior_complete_days(db):
    from pit.accounting.services import hold_range

    table = factories.table("BB9", game="big")
    assert hold_range(table_id=table.pk, gaming_day=dt.date(2026, 11, 20)) is None
