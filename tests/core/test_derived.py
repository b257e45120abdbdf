"""The registry of derived checks (pit.core.derived) against every derived figure and every fact it
reads: each figure is some check's, each fact it reads is a fact with a guarded writer, each check
has its task and the close's re-check, and a write of a fact owes every check reading it."""

import datetime as dt

from celery import current_app
from django.apps import apps

from pit import game
from pit.accounting.services import RECHECKED_UNDER_LOCK, RECHECKS
from pit.core.daylock import WRITE_SERVICES
from pit.core.derived import DERIVED, SHOE, TABLE_DAY, derived_owed
from pit.core.immutable import Fact

# The figures and findings pit derives from facts, and nothing else: a new one must join the registry.
DERIVED_FIGURES = {
    "accounting.HoldFlag",
    "ledger.Reconciliation",
    "ledger.ReconciliationSeat",
    "ledger.ReconciliationSupplement",
    "ledger.ReconciliationSupplementSeat",
    *(model._meta.label for model in apps.get_app_config("rollups").get_models()),
    "ratings.SessionRating",
    "ratings.CoupEdges",
    "ratings.RatedTableDay",
    "win_reconciliation_variance",
    "box_variance",
    "progressives.MeterReading",
}


def test_every_derived_figure_is_in_the_registry_once():
    figures = [figure for derived in DERIVED for figure in derived.figures]
    assert sorted(figures) == sorted(DERIVED_FIGURES)
    labels = {model._meta.label for model in apps.get_models()}
    for figure in figures:
        assert figure in labels or figure in game.VIOLATION_CODES, figure


def test_every_fact_a_check_reads_is_a_fact_with_a_guarded_writer():
    written = {label for service in WRITE_SERVICES.values() for label in service.writes}
    for derived in DERIVED:
        assert derived.key in (SHOE, TABLE_DAY)
        assert derived.inline <= derived.reads
        for label in derived.reads:
            assert issubclass(apps.get_model(label), Fact), label
            # Adjustments are the one fact a closed day takes; their writer re-runs the check inline.
            assert label in written or label in derived.inline, (derived.name, label)


def test_every_check_has_its_task_and_the_close_re_runs_it():
    current_app.loader.import_default_modules()
    assert sorted(RECHECKS) == sorted(derived.name for derived in DERIVED)
    assert set(RECHECKED_UNDER_LOCK) <= set(RECHECKS)
    for derived in DERIVED:
        assert derived.task in current_app.tasks, derived.task


def test_a_write_owes_every_check_reading_what_it_writes():
    day = dt.date(2026, 11, 20)
    for service in WRITE_SERVICES.values():
        owed = derived_owed(service.writes, shoe_id=7, shoe_closed=True, table_days=[(3, day)])
        for derived in DERIVED:
            if (derived.reads & set(service.writes)) - derived.inline:
                args = (7,) if derived.key == SHOE else (3, "2026-11-20")
                assert (derived.task, args) in owed, (service.service, derived.name)
    # A coup of the live day owes only what reads the live day; the close re-runs the rest.
    live = derived_owed(("shoes.Coup",), shoe_id=7, shoe_closed=True, table_days=[(3, day)], live=True)
    # The ratings follow the live day coup by coup.
    assert live == [("ledger.shoe_reconcile", (7,)), ("ratings.table_day_refresh", (3, "2026-11-20"))]
