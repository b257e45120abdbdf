"""Reads of the ratings for the screens: who sits at each seat of a table (card number, tier colour,
rated or not, excluded) and a patron's figures, today's and lifetime. No personal data: a patron is
shown by card number; names and nationalities stay on the patron's page for the roles that see them."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from django.db.models import Count, Q, Sum
from django.utils import timezone

from pit.core.money import format_money
from pit.players.models import Exclusion, Patron, SeatSession, SessionEventKind
from pit.players.selectors import patron_current, seated_now, session_patron

from .models import CompEntry, SessionRating


def excluded_patrons(patron_ids: Iterable[int], at: dt.datetime) -> set[int]:
    """The patrons under an exclusion in force at `at` (started, not ended, not lifted by a later record)."""
    return set(
        Exclusion.objects.filter(patron_id__in=list(patron_ids), lifts__isnull=True, starts_at__lte=at)
        .filter(Q(ends_at__isnull=True) | Q(ends_at__gt=at))
        .exclude(lifted_by__starts_at__lte=at)
        .values_list("patron_id", flat=True)
    )


def table_seats(tables: Iterable[Any], *, now: dt.datetime | None = None) -> dict[int, list[dict[str, Any]]]:
    """Per table, its occupied seats now in seat order: card number (empty: unrated), the tier's
    name and colour, whether the session is rated, paused or excluded."""
    now = now or timezone.now()
    tables = list(tables)
    # One query finds the tables anyone sits at; only those are read seat by seat.
    occupied = set(
        SeatSession.objects.filter(table__in=tables)
        .exclude(events__kind=SessionEventKind.STAND)
        .values_list("table_id", flat=True)
        .distinct()
    )
    seated = {table.pk: seated_now(table) for table in tables if table.pk in occupied}
    patrons = {session.pk: session_patron(session) for sessions in seated.values() for session in sessions.values()}
    excluded = excluded_patrons({patron.pk for patron in patrons.values() if patron is not None}, now)
    shown: dict[int, list[dict[str, Any]]] = {}
    for table_id, sessions in seated.items():
        seats = []
        for seat, session in sorted(sessions.items()):
            patron = patrons[session.pk]
            tier = patron_current(patron).tier if patron is not None else None
            last = session.events.order_by("-at", "-id").values_list("kind", flat=True).first()
            seats.append(
                {
                    "seat": seat,
                    "card": patron.card_number if patron is not None else "",
                    "rated": patron is not None,
                    "tier": tier.name if tier is not None else "",
                    "colour": tier.colour if tier is not None else "",
                    "excluded": patron is not None and patron.pk in excluded,
                    "paused": last == "pause",
                }
            )
        shown[table_id] = seats
    return shown


def patron_figures(patron: Patron, *, gaming_day: dt.date) -> dict[str, dict[str, Any]]:
    """The patron's rated play on the gaming day and over their lifetime, per currency."""
    figures: dict[str, dict[str, Any]] = {}
    for scope, ratings in (
        ("today", SessionRating.objects.filter(patron=patron, gaming_day=gaming_day)),
        ("lifetime", SessionRating.objects.filter(patron=patron)),
    ):
        for row in ratings.values("currency").annotate(
            sessions=Count("pk"),
            seconds=Sum("seconds_played"),
            handle_sum=Sum("handle_minor"),
            theo_sum=Sum("theo_minor"),
            standard=Sum("standard_theo_minor"),
            won=Sum("won_minor"),
        ):
            currency = row["currency"]
            figures.setdefault(scope, {})[currency] = {
                "sessions": row["sessions"],
                "minutes": (row["seconds"] or 0) // 60,
                "handle": format_money(row["handle_sum"] or 0, currency),
                "theo": format_money(round(row["theo_sum"] or 0), currency),
                "standard_theo": format_money(round(row["standard"] or 0), currency),
                "won": format_money(row["won"] or 0, currency),
            }
    return figures


def ratings_of_patron(patron: Patron):
    """The patron's session ratings, newest first."""
    return (
        SessionRating.objects.filter(patron=patron)
        .select_related("table", "session")
        .order_by("-gaming_day", "-session__started_at", "-session_id")
    )


def comp_balances(patron: Patron) -> list[tuple[str, int]]:
    """The patron's comp balance per currency (the sum of the ledger's entries), by currency."""
    rows = CompEntry.objects.filter(patron=patron).values("currency").annotate(total=Sum("amount_minor"))
    return [(row["currency"], row["total"]) for row in rows.order_by("currency")]


def comp_entries(patron: Patron):
    """The patron's comp ledger, newest first."""
    return (
        CompEntry.objects.filter(patron=patron).select_related("recorded_by_user", "recorded_by_device").order_by("-id")
    )
