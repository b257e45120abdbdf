"""The sweep fanned out over processes on PostgreSQL (PIT_SWEEP_PROCESSES: the parent indexes and
compares the shoe sequences in shoe order, then it and the forked children, each with its own
connection, take the chunks' rule checks and the rest of game protection from a shared counter)
records exactly what one process records: after it, the shoe-by-shoe reference sweep finds nothing
to add, clear, restore or reword."""

import pytest

from pit.compliance import checks
from pit.floor.clients import ServicesFloorClient
from pit.floor.simulator import simulate
from pit.shoes.models import Coup
from tests.compliance import reference_checks
from tests.compliance.test_sweep_equivalence import FAULTS, _findings, _index
from tests.floor.conftest import NOW, pit_tables  # noqa: F401 (the fixture)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_the_sweep_over_processes_records_what_one_process_records(pit_tables, settings, monkeypatch):  # noqa: F811
    settings.PIT_PROTECTION_MAX_COUPS_PER_HOUR = 40
    settings.PIT_SWEEP_PROCESSES = 3  # the parent and two children
    monkeypatch.setattr(checks, "SHOES_PER_CHUNK", 2)  # five shoes: three chunks, taken by three processes
    # Nothing is checked as it is posted: the sweep's first pass records every finding.
    monkeypatch.setattr("pit.compliance.tasks.coups_check_owed", lambda **kwargs: 0)
    simulate(ServicesFloorClient(), tables=[table.code for table in pit_tables], seed=16, days=1,
             shoes_per_day=1, faults=FAULTS, now=NOW)
    days = sorted(set(Coup.objects.values_list("gaming_day", flat=True)))
    assert checks.sweep_processes() == 3
    seen = []

    fanned = checks.coups_sweep(first_day=days[0], last_day=days[-1], progress=seen.append)

    assert fanned.created > 0 and fanned.coups == Coup.objects.count() == sum(seen)
    assert len(seen) == 3
    recorded = _findings(), _index()
    reference = reference_checks.coups_sweep(first_day=days[0], last_day=days[-1])
    assert (reference.created, reference.cleared, reference.restored) == (0, 0, 0)
    assert (_findings(), _index()) == recorded
    assert (fanned.coups, fanned.holding, dict(fanned.codes)) == (
        reference.coups, reference.holding, dict(reference.codes),
    )
    again = checks.coups_sweep(first_day=days[0], last_day=days[-1])
    assert (again.created, again.cleared, again.restored, again.holding) == (0, 0, 0, fanned.holding)
    assert (_findings(), _index()) == recorded
