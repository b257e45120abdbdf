"""The patrons' reports: patron day, top patrons by theo, rating accuracy by supervisor, and
foreigners' play by nationality. They read the ratings (pit.ratings, recomputed from the facts),
the buy-ins and the comp ledger, and show a patron by card number and tier only: names and
nationalities of people stay on the patron's page for the roles that see personal data."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.db.models import Case, Count, F, OuterRef, Q, Subquery, Sum, When
from django.utils.translation import gettext_lazy as _

from pit.core.money import exponent, from_minor
from pit.core.rows import values_rows
from pit.players.models import BuyIn, PatronVersion
from pit.ratings.models import AverageBetEstimate, CompEntry, CompKind, SessionRating

from . import persistence
from .definitions import Column, ColumnOptions, Level, ReportDefinition, ReportFilters, Total, ratio
from .definitions import ColumnType as T

FLOOR = "floor"
_money_sum: ColumnOptions = {"type": T.MONEY, "total": Total.SUM, "width": 14}


def _ratings(filters: ReportFilters):
    ratings = SessionRating.objects.filter(gaming_day__gte=filters.date_from, gaming_day__lte=filters.date_to)
    if filters.tables:
        ratings = ratings.filter(table__code__in=filters.tables)
    if filters.game:
        ratings = ratings.filter(table__game=filters.game)
    return ratings


def _major(minor, currency: str) -> Decimal:
    """Minor units (whole, or a Decimal of theo) as major units of the currency."""
    return Decimal(minor or 0).scaleb(-exponent(currency))


def _tiers(patron_ids) -> dict[int, str]:
    """Each patron's tier as it stands (the latest version)."""
    tiers: dict[int, str] = {}
    for patron_id, tier in (
        PatronVersion.objects.filter(patron_id__in=list(patron_ids))
        .order_by("patron_id", "recorded_at", "id")
        .values_list("patron_id", "tier__name")
    ):
        tiers[patron_id] = tier
    return tiers


def patron_day_sums_orm(filters: ReportFilters) -> list[tuple[Any, ...]]:
    """The ORM twin of pit.reports.persistence.patron_day_sums (SQLite): one grouped query, the
    buy-ins, comps and tier as subqueries of it."""
    buy_ins = (
        BuyIn.objects.filter(session_id=OuterRef("session_id"))
        .order_by()
        .values("session_id")
        .annotate(total=Sum(Case(When(reverses__isnull=True, then=F("amount_minor")), default=-F("amount_minor"))))
        .values("total")
    )
    comps = (
        CompEntry.objects.filter(
            session_id=OuterRef("session_id"),
            patron_id=OuterRef("patron_id"),
            kind__in=(CompKind.EARNED, CompKind.ADJUSTED),
        )
        .order_by()
        .values("session_id")
        .annotate(total=Sum("amount_minor"))
        .values("total")
    )
    tier = PatronVersion.objects.filter(patron_id=OuterRef("patron_id")).order_by("-recorded_at", "-id")
    grouped = (
        _ratings(filters)
        .filter(patron__isnull=False)
        .annotate(buy_in=Subquery(buy_ins), comp=Subquery(comps))
        .values("gaming_day", "currency", "patron_id", "patron__card_number")
        .order_by("gaming_day", "currency", "patron__card_number")
        .annotate(
            sessions=Count("pk"),
            seconds=Sum("seconds_played"),
            coups=Sum("coups_played"),
            handle=Sum("handle_minor"),
            theo=Sum("theo_minor"),
            standard=Sum("standard_theo_minor"),
            won=Sum("won_minor"),
            estimated=Count("pk", filter=Q(estimated=True)),
            buy_ins=Sum("buy_in"),
            comps=Sum("comp"),
            tier=Subquery(tier.values("tier__name")[:1]),
        )
        .values_list(
            "gaming_day",
            "currency",
            "patron__card_number",
            "tier",
            "sessions",
            "estimated",
            "seconds",
            "coups",
            "handle",
            "theo",
            "standard",
            "won",
            "buy_ins",
            "comps",
        )
    )
    return values_rows(grouped)


def patron_day_rows(filters: ReportFilters) -> Iterator[dict[str, Any]]:
    """One row per gaming day, currency and patron: the patron's rated sessions added up, with their
    buy-ins (less reversals) and the comps the patron earned on them, and the patron's tier as it
    stands: one grouped query, no query per row (on PostgreSQL by hand, pit.reports.persistence;
    elsewhere its twin, `patron_day_sums_orm`)."""
    rows = persistence.patron_day_sums(filters.date_from, filters.date_to, tuple(filters.tables), filters.game)
    places: dict[str, int] = {}
    for day, currency, card, tier_name, sessions, estimated, seconds, coups, *sums in (
        patron_day_sums_orm(filters) if rows is None else rows
    ):
        shift = places.get(currency)
        if shift is None:
            shift = places[currency] = -exponent(currency)
        # from_minor and _major inline (sums of whole minor units: scaleb alone gives the minor unit's places)
        handle, theo, standard, won, buy_in, comp = (Decimal(value or 0).scaleb(shift) for value in sums)
        coups = int(coups or 0)
        yield {
            "gaming_day": day,
            "currency": currency,
            "card_number": card,
            "tier": tier_name or "",
            "sessions": sessions,
            "estimated": estimated,
            "minutes": int(seconds or 0) // 60,
            "coups": coups,
            "handle": handle,
            "theo": theo,
            "standard_theo": standard,
            "won": won,
            "buy_ins": buy_in,
            "comps": comp,
            # _average inline: to the cent, half away from zero
            "average_bet": (handle / coups).quantize(_CENT, rounding=ROUND_HALF_UP) if coups else None,
        }


def patron_day_estimate(filters: ReportFilters) -> int:
    return _ratings(filters).filter(patron__isnull=False).values("gaming_day", "patron_id").distinct().count()


_CENT = Decimal("0.01")


def _average(sums: dict[str, Any]) -> Decimal | None:
    """The group's average bet, to the cent (half away from zero, the house rule of pit.core.percent)."""
    coups = sums.get("coups")
    return (sums["handle"] / coups).quantize(_CENT, rounding=ROUND_HALF_UP) if coups else None


PATRON_DAY = ReportDefinition(
    slug="patron-day",
    title=_("Patron day"),
    description=(
        _(
            "Per gaming day and patron (card number): rated sessions, time played, handle, average bet, exact "
            "and standard theo, the house's actual win, buy-ins and comps earned."
        )
    ),
    columns=(
        Column("gaming_day", _("Gaming day"), T.DATE, Total.CARRY, width=12),
        Column("currency", _("Currency"), T.TEXT, Total.CARRY, width=9),
        Column("card_number", _("Card number"), T.TEXT, width=14),
        Column("tier", _("Tier"), T.TEXT, width=10),
        Column("sessions", _("Sessions"), T.INTEGER, Total.SUM, width=9),
        Column("estimated", _("Estimated sessions"), T.INTEGER, Total.SUM, width=9),
        Column("minutes", _("Minutes played"), T.INTEGER, Total.SUM, width=9),
        Column("coups", _("Coups played"), T.INTEGER, Total.SUM, width=9),
        Column("handle", _("Handle"), **_money_sum),
        # A ratio of money to a count, not an amount paid: to the cent in every currency (yen too).
        Column("average_bet", _("Average bet"), T.DECIMAL, _average, width=12, places=2),
        Column("theo", _("Exact theo"), **_money_sum),
        Column("standard_theo", _("Standard theo"), **_money_sum),
        Column("won", _("Actual win (house)"), **_money_sum),
        Column("buy_ins", _("Buy-ins"), **_money_sum),
        Column("comps", _("Comps earned"), **_money_sum),
    ),
    rows=patron_day_rows,  # its rows carry their average bet
    estimate=patron_day_estimate,
    levels=(Level("day", ("gaming_day", "currency"), "Gaming day"),),
    audience=FLOOR,
)


def top_patron_rows(filters: ReportFilters) -> Iterator[dict[str, Any]]:
    """Patrons over the range, highest exact theo first (per currency)."""
    grouped = (
        _ratings(filters)
        .filter(patron__isnull=False)
        .values("currency", "patron_id", "patron__card_number")
        .annotate(
            sessions=Count("pk"),
            days=Count("gaming_day", distinct=True),
            handle=Sum("handle_minor"),
            theo=Sum("theo_minor"),
            standard=Sum("standard_theo_minor"),
            won=Sum("won_minor"),
        )
        .order_by("currency", "-theo", "patron__card_number")
    )
    rows = list(grouped)
    tiers = _tiers(row["patron_id"] for row in rows)
    for rank, row in enumerate(rows, start=1):
        currency = row["currency"]
        yield {
            "currency": currency,
            "rank": rank,
            "card_number": row["patron__card_number"],
            "tier": tiers.get(row["patron_id"], ""),
            "days": row["days"],
            "sessions": row["sessions"],
            "handle": from_minor(row["handle"] or 0, currency),
            "theo": _major(row["theo"], currency),
            "standard_theo": _major(row["standard"], currency),
            "won": from_minor(row["won"] or 0, currency),
        }


TOP_PATRONS = ReportDefinition(
    slug="top-patrons",
    title=_("Top patrons by theo"),
    description=_("Patrons (card number) over the range by exact theo, highest first, with handle and actual win."),
    columns=(
        Column("currency", _("Currency"), T.TEXT, Total.CARRY, width=9),
        Column("rank", _("Rank"), T.INTEGER, width=6),
        Column("card_number", _("Card number"), T.TEXT, width=14),
        Column("tier", _("Tier"), T.TEXT, width=10),
        Column("days", _("Days played"), T.INTEGER, width=8),
        Column("sessions", _("Sessions"), T.INTEGER, Total.SUM, width=9),
        Column("handle", _("Handle"), **_money_sum),
        Column("theo", _("Exact theo"), **_money_sum),
        Column("standard_theo", _("Standard theo"), **_money_sum),
        Column("won", _("Actual win (house)"), **_money_sum),
    ),
    rows=top_patron_rows,
    estimate=lambda filters: _ratings(filters).filter(patron__isnull=False).values("patron_id").distinct().count(),
    audience=FLOOR,
)


def rating_accuracy_rows(filters: ReportFilters) -> Iterator[dict[str, Any]]:
    """Per supervisor (who entered the estimate) and currency: their latest estimate of each session
    whose wagers were also recorded, against the recorded average bet."""
    ratings = {
        rating.session_id: rating
        for rating in _ratings(filters).filter(estimated_average_bet_minor__isnull=False, coups_played__gt=0)
    }
    latest: dict[int, tuple[str, int]] = {}
    for session_id, who, average in (
        AverageBetEstimate.objects.filter(session_id__in=list(ratings))
        .order_by("session_id", "recorded_at", "id")
        .values_list("session_id", "recorded_by_user__username", "average_bet_minor")
    ):
        latest[session_id] = (who or "system", average)
    by_supervisor: dict[tuple[str, str], dict[str, Any]] = {}
    for session_id, (who, average) in latest.items():
        rating = ratings[session_id]
        sums = by_supervisor.setdefault(
            (who, rating.currency), {"sessions": 0, "estimated": 0, "recorded": 0, "over": 0, "absolute": 0}
        )
        recorded = rating.handle_minor / Decimal(rating.coups_played)
        sums["sessions"] += 1
        sums["estimated"] += average
        sums["recorded"] += recorded
        sums["over"] += 1 if average > recorded else 0
        sums["absolute"] += abs(average - recorded)
    for (who, currency), sums in sorted(by_supervisor.items()):
        yield {
            "supervisor": who,
            "currency": currency,
            "sessions": sums["sessions"],
            "overstated": sums["over"],
            "estimated": _major(sums["estimated"], currency),
            "recorded": _major(sums["recorded"], currency),
            "absolute_error": _major(sums["absolute"], currency),
        }


def _error(sums: dict[str, Any]) -> Decimal | None:
    recorded = sums.get("recorded")
    return (sums["estimated"] - recorded) / recorded if recorded else None


RATING_ACCURACY = ReportDefinition(
    slug="rating-accuracy",
    title=_("Rating accuracy by supervisor"),
    description=(
        _(
            "Per supervisor: sessions whose average bet they estimated at a table that also recorded the "
            "wagers, the estimates against the recorded average bets, and by how much they were off."
        )
    ),
    columns=(
        Column("supervisor", _("Supervisor"), T.TEXT, Total.CARRY, width=14),
        Column("currency", _("Currency"), T.TEXT, Total.CARRY, width=9),
        Column("sessions", _("Sessions"), T.INTEGER, Total.SUM, width=9),
        Column("overstated", _("Overstated"), T.INTEGER, Total.SUM, width=9),
        Column("estimated", _("Estimated average bets (sum)"), **_money_sum),
        Column("recorded", _("Recorded average bets (sum)"), **_money_sum),
        Column("absolute_error", _("Absolute error (sum)"), **_money_sum),
        Column("error", _("Estimate vs recorded"), T.PERCENTAGE, _error, width=10, places=2),
    ),
    rows=lambda filters: ({**row, "error": _error(row)} for row in rating_accuracy_rows(filters)),
    estimate=lambda filters: _ratings(filters).filter(estimated_average_bet_minor__isnull=False).count(),
    audience=FLOOR,
)


def foreigners_rows(filters: ReportFilters) -> Iterator[dict[str, Any]]:
    """Per gaming day, currency and nationality (the patron's as it stood at the session's start):
    the rated play, patrons counted once per day."""
    ratings = _ratings(filters).filter(patron__isnull=False).select_related("session")
    versions: dict[int, list[tuple[Any, str]]] = defaultdict(list)
    rows = list(
        ratings.values_list(
            "gaming_day", "currency", "patron_id", "session__started_at", "handle_minor", "theo_minor", "won_minor"
        )
    )
    for patron_id, at, nationality in (
        PatronVersion.objects.filter(patron_id__in={row[2] for row in rows})
        .order_by("patron_id", "recorded_at", "id")
        .values_list("patron_id", "recorded_at", "nationality")
    ):
        versions[patron_id].append((at, nationality))
    groups: dict[tuple, dict[str, Any]] = {}
    for day, currency, patron_id, started, handle, theo, won in rows:
        history = versions.get(patron_id, [])
        nationality = next((n for at, n in reversed(history) if at <= started), history[0][1] if history else "")
        sums = groups.setdefault(
            (day, currency, nationality), {"patrons": set(), "sessions": 0, "handle": 0, "theo": Decimal(0), "won": 0}
        )
        sums["patrons"].add(patron_id)
        sums["sessions"] += 1
        sums["handle"] += handle
        sums["theo"] += theo
        sums["won"] += won
    for (day, currency, nationality), sums in sorted(groups.items()):
        yield {
            "gaming_day": day,
            "currency": currency,
            "nationality": nationality,
            "patrons": len(sums["patrons"]),
            "sessions": sums["sessions"],
            "handle": from_minor(sums["handle"], currency),
            "theo": _major(sums["theo"], currency),
            "won": from_minor(sums["won"], currency),
        }


FOREIGNERS = ReportDefinition(
    slug="play-by-nationality",
    title=_("Foreigners' play by nationality"),
    description=_("Per gaming day and nationality: rated patrons, sessions, handle, exact theo and actual win."),
    columns=(
        Column("gaming_day", _("Gaming day"), T.DATE, Total.CARRY, width=12),
        Column("currency", _("Currency"), T.TEXT, Total.CARRY, width=9),
        Column("nationality", _("Nationality"), T.TEXT, width=8),
        Column("patrons", _("Patrons"), T.INTEGER, Total.SUM, width=9),
        Column("sessions", _("Sessions"), T.INTEGER, Total.SUM, width=9),
        Column("handle", _("Handle"), **_money_sum),
        Column("theo", _("Exact theo"), **_money_sum),
        Column("won", _("Actual win (house)"), **_money_sum),
        Column("hold", _("Hold %"), T.PERCENTAGE, ratio("won", "handle"), width=9, places=2),
    ),
    rows=foreigners_rows,
    estimate=lambda filters: _ratings(filters).filter(patron__isnull=False).count(),
    levels=(Level("day", ("gaming_day", "currency"), "Gaming day"),),
    audience=FLOOR,
)

RATINGS_REPORTS = (PATRON_DAY, TOP_PATRONS, RATING_ACCURACY, FOREIGNERS)
