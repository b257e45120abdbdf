"""Protection by person: the side-bet advantage-play test and the win-deviation test run per patron
over every session of a window of gaming days, across seats and tables (a counter who changes seats
or tables escapes the per-seat tests). The same arithmetic as the per-seat tests (pit.protection
.statistics), each wager counted for the patron whose session holds it (pit.players.selectors);
findings name the patron by card number. Design: docs/design/ratings.md."""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict

from django.conf import settings
from django.db.models import F

from pit.compliance.models import RuleViolation
from pit.compliance.services import violation_record
from pit.core.rows import AnyOf, values_rows
from pit.game import counting
from pit.players.models import SeatSession
from pit.players.selectors import session_wagers
from pit.protection.checks.paytables import Paytables
from pit.protection.checks.rows import PROTECTION_CHECK, WAGER_COLUMNS, WagerRow
from pit.protection.checks.side_bets import SIDE_BET_MIN_HITS
from pit.protection.checks.win_deviation import deviation_findings, wager_deviation_totals
from pit.protection.models import SideBetExpectation
from pit.protection.statistics import SideBetDay, seat_chances
from pit.ratings.models import SessionRating
from pit.shoes.models import Coup


def _patron_wagers(first_day: dt.date, last_day: dt.date):
    """Per patron (the rating's: identification applied): its sessions' standing wagers with each
    wager's table, gaming day and paytable, and the table of its latest session."""
    ratings = SessionRating.objects.filter(gaming_day__gte=first_day, gaming_day__lte=last_day, patron__isnull=False)
    sessions = SeatSession.objects.filter(pk__in=ratings.values("session_id")).order_by("started_at")
    patron_of = dict(ratings.values_list("session_id", "patron_id"))
    card_of = dict(ratings.values_list("patron_id", "patron__card_number"))
    wagers: dict[int, list[tuple]] = defaultdict(list)
    last_session: dict[int, SeatSession] = {}
    for session in sessions:
        patron_id = patron_of[session.pk]
        last_session[patron_id] = session
        wagers[patron_id] += values_rows(
            session_wagers(session).values_list(
                *WAGER_COLUMNS, "coup__gaming_day", "coup__paytable_id", "coup__shoe__table_id"
            )
        )
    return wagers, card_of, last_session


def patron_checks(*, first_day: dt.date, last_day: dt.date) -> int:
    """Both tests per patron over the gaming days `first_day` to `last_day`; returns the findings."""
    wagers, card_of, last_session = _patron_wagers(first_day, last_day)
    scope = f"{first_day}" if first_day == last_day else f"{first_day} to {last_day}"
    return _deviations(wagers, card_of, last_session, scope, last_day) + _side_bets(
        wagers, card_of, last_session, scope, last_day
    )


def _deviations(wagers, card_of, last_session, scope: str, last_day: dt.date) -> int:
    paytables = Paytables()
    findings = 0
    for patron_id, rows in sorted(wagers.items()):
        # Every wager counted for the patron (the per-seat sums keyed by patron), the window as one scope.
        rows = sorted(rows, key=lambda row: row[1])
        coup_of = {row[1]: (last_day, row[-2]) for row in rows}
        paytables.load({paytable_id for _, paytable_id in coup_of.values()})
        as_patron = [WagerRow._make(row[: len(WAGER_COLUMNS)])._replace(seat=patron_id) for row in rows]
        totals = wager_deviation_totals(as_patron, paytables, coup_of).get(last_day, {})
        session = last_session[patron_id]
        person: dict[int | None, list] = {None: totals[patron_id]} if patron_id in totals else {}
        findings += deviation_findings(
            session.table,
            None,
            f"Patron {card_of[patron_id]} over gaming days {scope}, across every seat and table",
            f"patron{patron_id}:{scope}",
            settings.PIT_PROTECTION_Z_DAY,
            person,
            last_day,
        )
    return findings


def _side_bets(wagers, card_of, last_session, scope: str, last_day: dt.date) -> int:
    coup_ids = {row[1] for rows in wagers.values() for row in rows}
    worth: dict[int, dict[str, bool]] = defaultdict(dict)
    for coup_id, bet, positive in values_rows(
        SideBetExpectation.objects.filter(AnyOf(F("coup_id"), sorted(coup_ids))).values_list(
            "coup_id", "bet", "positive"
        )
    ):
        worth[coup_id][bet] = positive
    if not any(any(bets.values()) for bets in worth.values()):
        return 0
    # Each bet's chance at random is that of its table-day: the share of the table-day's coups
    # (all of them, as the per-seat test counts) that were positive for it.
    table_days = {(row[-1], row[-3]) for rows in wagers.values() for row in rows if row[1] in worth}
    days: dict[tuple[int, dt.date], SideBetDay] = defaultdict(SideBetDay)
    for table_id, day, bet, positive in values_rows(
        SideBetExpectation.objects.filter(
            coup__shoe__table_id__in={table for table, _ in table_days},
            coup__gaming_day__in={day for _, day in table_days},
        ).values_list("coup__shoe__table_id", "coup__gaming_day", "bet", "positive")
    ):
        if (table_id, day) in table_days:
            days[table_id, day].add_coup({bet: positive})
    findings = 0
    threshold = settings.PIT_PROTECTION_SIDE_BET_P_VALUE
    for patron_id, rows in sorted(wagers.items()):
        per_day: dict[tuple[int, dt.date], SideBetDay] = defaultdict(SideBetDay)
        for row in rows:
            positive = worth.get(row[1], {}).get(row[3])
            if positive is not None:
                per_day[row[-1], row[-3]].add_wager(patron_id, row[3], row[0], positive)
        chances: list[float] = []
        hits: list[int] = []
        for key, side_bets in per_day.items():
            chance = days[key].chance()
            chances += seat_chances(side_bets.bets.get(patron_id, Counter()), chance)
            hits += side_bets.hits.get(patron_id, [])
        if len(hits) < SIDE_BET_MIN_HITS:
            continue
        p_value = counting.tail_probability(chances, len(hits))
        if p_value >= threshold:
            continue
        first = Coup.objects.select_related("shoe__table").get(pk=min(row[1] for row in rows if row[0] in set(hits)))
        who = f"Patron {card_of[patron_id]} (gaming days {scope}, across every seat and table)"
        evidence = f"{len(hits)} wagers on positive coups, the first at {first}"
        finding = counting.advantage_play(None, len(hits), len(chances), sum(chances), p_value, evidence, who=who)
        recorded = violation_record(
            finding=finding,
            fingerprint=f"side_bet_advantage_play:patron{patron_id}:{scope}",
            table=last_session[patron_id].table,
            shoe=first.shoe,
            coup=first,
            gaming_day=last_day,
            found_by=PROTECTION_CHECK,
        )
        if recorded.message != finding.message:
            RuleViolation.objects.filter(pk=recorded.pk).update(message=finding.message)
        findings += 1
    return findings
