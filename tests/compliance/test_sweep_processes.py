"""The sweep fanned out over processes on PostgreSQL (PIT_SWEEP_PROCESSES: the parent and the forked
children, each with its own connection, take the chunks from a shared counter; the shoe sequences
of a chunk indexed as its cards are found there, the rest indexed in shoe order at the end) records
exactly what one process records: after it, the shoe-by-shoe reference sweep finds nothing to add,
clear, restore or reword."""

import pytest

from pit.compliance import checks
from pit.compliance.checks import runner
from pit.compliance.models import RuleViolation
from pit.floor.clients import ServicesFloorClient
from pit.floor.simulator import simulate
from pit.protection.models import CardShingle, IndexedShoe
from pit.shoes.models import Coup, Shoe
from tests import factories
from tests.compliance import reference_checks
from tests.compliance.test_sweep_equivalence import FAULTS, _findings, _index
from tests.floor.conftest import NOW, pit_tables  # noqa: F401 (the fixture)
from tests.protection.test_sequences import dealt

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_the_sweep_over_processes_records_what_one_process_records(pit_tables, settings, monkeypatch):  # noqa: F811
    settings.PIT_PROTECTION_MAX_COUPS_PER_HOUR = 40
    settings.PIT_SWEEP_PROCESSES = 3  # the parent and two children
    monkeypatch.setattr(runner, "SHOES_PER_CHUNK", 2)  # a shoe per demo table: more chunks than processes
    # Nothing is checked as it is posted: the sweep's first pass records every finding.
    monkeypatch.setattr("pit.compliance.tasks.coups_check_owed", lambda **kwargs: 0)
    simulate(
        ServicesFloorClient(),
        tables=[table.code for table in pit_tables],
        seed=16,
        days=1,
        shoes_per_day=1,
        faults=FAULTS,
        now=NOW,
    )
    days = sorted(set(Coup.objects.values_list("gaming_day", flat=True)))
    assert checks.sweep_processes() == 3
    seen = []

    fanned = checks.coups_sweep(first_day=days[0], last_day=days[-1], progress=seen.append)

    assert fanned.created > 0 and fanned.coups == Coup.objects.count() == sum(seen)
    shoes = Shoe.objects.count()
    assert shoes > 2 * 3 and len(seen) == (shoes + 1) // 2  # one progress report per chunk
    recorded = _findings(), _index()
    reference = reference_checks.coups_sweep(first_day=days[0], last_day=days[-1])
    assert (reference.created, reference.cleared, reference.restored) == (0, 0, 0)
    assert (_findings(), _index()) == recorded
    assert (fanned.coups, fanned.holding, dict(fanned.codes)) == (
        reference.coups,
        reference.holding,
        dict(reference.codes),
    )
    again = checks.coups_sweep(first_day=days[0], last_day=days[-1])
    assert (again.created, again.cleared, again.restored, again.holding) == (0, 0, 0, fanned.holding)
    assert (_findings(), _index()) == recorded


def test_a_shoe_indexed_again_in_a_fanned_out_sweep_is_seen_by_the_shoes_after_it(settings, monkeypatch):
    """Three shoes, a chunk each: the first dealt, the second and third replaying it. The second is
    found indexed from other cards (its shingles gone): it is indexed again, in order, and the third,
    though indexed as its cards are, is looked up again after it, so it repeats both, as shoe by shoe."""
    settings.PIT_SWEEP_PROCESSES = 2
    monkeypatch.setattr(runner, "SHOES_PER_CHUNK", 1)
    coups = dealt(7, 12)
    shoes = [factories.shoe(factories.table(code)) for code in ("BB1", "BB2", "BB3")]
    for shoe in shoes:
        for number, (player, banker) in enumerate(coups, start=1):
            factories.coup(shoe, number, player, banker)
    day = Coup.objects.first().gaming_day

    def unindex_the_second():
        CardShingle.objects.filter(shoe=shoes[1]).delete()
        IndexedShoe.objects.filter(shoe=shoes[1]).update(digest=0)

    def repeats():
        return sorted(RuleViolation.objects.filter(code="shoe_sequence_repeat").values_list("fingerprint", flat=True))

    settings.PIT_SWEEP_PROCESSES = 1
    checks.coups_sweep(first_day=day, last_day=day)  # every shoe indexed, the repeats recorded
    assert repeats() == [
        f"shoe_sequence_repeat:shoe{shoes[1].pk}:shoe{shoes[0].pk}",
        f"shoe_sequence_repeat:shoe{shoes[2].pk}:shoe{shoes[0].pk}",
        f"shoe_sequence_repeat:shoe{shoes[2].pk}:shoe{shoes[1].pk}",
    ]
    recorded = repeats()
    unindex_the_second()
    one_process = checks.coups_sweep(first_day=day, last_day=day).holding
    unindex_the_second()
    settings.PIT_SWEEP_PROCESSES = 2
    assert checks.sweep_processes() == 2

    fanned = checks.coups_sweep(first_day=day, last_day=day)

    assert fanned.holding == one_process
    assert repeats() == recorded
    assert fanned.coups == 36 and (fanned.created, fanned.cleared, fanned.restored) == (0, 0, 0)
    assert CardShingle.objects.filter(shoe=shoes[1]).count() == CardShingle.objects.filter(shoe=shoes[0]).count()
