"""The patrons' alarms over 30 simulated gaming days: the club's excluded patron gets past the door
once a day and its lent card is swiped at a second table once a day; `excluded_patron_seated` and
`patron_at_two_tables` fire on exactly those sessions, worked out here from the sessions' rows
(their spans by hand, the exclusions as recorded), and on nothing else."""

import datetime as dt
from itertools import combinations

import pytest

from pit.compliance.models import RuleViolation
from pit.floor.clients import ServicesFloorClient
from pit.floor.seating import PatronClub
from pit.floor.simulator import simulate
from pit.players.models import Exclusion, SeatSession
from tests.floor.conftest import NOW

DAYS = 30
TABLES = ["BB1", "MN2"]
PATRONS = 8


def _span(session: SeatSession) -> tuple[dt.datetime, dt.datetime | None]:
    stand = session.events.filter(kind="stand").values_list("at", flat=True).first()
    return session.started_at, stand


def _overlap(one, other) -> bool:
    (start_a, end_a), (start_b, end_b) = one, other
    return (end_b is None or start_a < end_b) and (end_a is None or start_b < end_a)


@pytest.mark.slow
@pytest.mark.django_db
def test_thirty_days_raise_the_patron_alarms_on_the_injected_sessions_only(
    pit_tables, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False):
        simulate(ServicesFloorClient(), tables=TABLES, days=DAYS, seed=31, now=NOW, patrons=PATRONS, seats=4)
    club = PatronClub(PATRONS, TABLES, seed=31)
    sessions = list(SeatSession.objects.filter(patron__isnull=False).select_related("patron", "table"))
    assert len({session.gaming_day for session in sessions}) == DAYS

    exclusions = list(Exclusion.objects.select_related("patron"))
    assert [exclusion.patron.card_number for exclusion in exclusions] == [club.excluded]
    excluded = {
        f"excluded_patron_seated:session{session.pk}:exclusion{exclusion.pk}"
        for session in sessions
        for exclusion in exclusions
        if session.patron_id == exclusion.patron_id
        and _overlap(_span(session), (exclusion.starts_at, exclusion.ends_at))
    }
    spans = {session.pk: _span(session) for session in sessions}
    two_tables = {
        f"patron_at_two_tables:session{low.pk}:session{high.pk}"
        for low, high in combinations(sorted(sessions, key=lambda session: session.pk), 2)
        if low.patron_id == high.patron_id and low.table_id != high.table_id and _overlap(spans[low.pk], spans[high.pk])
    }
    # The excluded patron came in on most days, the lent card was swiped at its second table too.
    assert len(excluded) >= DAYS // 2
    assert len(two_tables) >= DAYS // 2
    cards = {session.pk: session.patron.card_number for session in sessions}
    assert {cards[int(fingerprint.split("session")[1].split(":")[0])] for fingerprint in two_tables} == {club.lender}

    def found(code):
        return set(
            RuleViolation.objects.filter(code=code, cleared_at__isnull=True).values_list("fingerprint", flat=True)
        )

    assert found("excluded_patron_seated") == excluded
    assert found("patron_at_two_tables") == two_tables
