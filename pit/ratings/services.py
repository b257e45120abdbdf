"""Ratings recomputed whole from the facts, estimated average bets, reinvestment rates and comps.

A session's rating is never typed and never incremented: `ratings_refresh` rewrites it from the
session's played spans, its standing wagers and each coup's exact edges (`CoupEdges`, priced by the
engine at the coup's shoe composition). It runs for a table's gaming day, owed through the outbox by
every write of what it reads (pit.core.derived), and recomputes every session that anything newer
than the table-day's marks touches. A rating that stood up earns its comp (rate x exact theo) in the
points ledger; a later change of the rating adds an adjusting entry. Design: docs/design/ratings.md.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Iterable
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from functools import lru_cache

from django.db import transaction
from django.db.models import Max, OuterRef, Q, Subquery, Sum
from django.utils.translation import gettext

from pit import game
from pit.core.actors import SYSTEM, Actor
from pit.core.daylock import day_write, days_ensure_open
from pit.core.db import advisory_xact_lock
from pit.core.derived import derived_follow
from pit.core.errors import Conflict
from pit.core.gaming_day import current_gaming_day, gaming_day_bounds, gaming_day_for
from pit.core.money import format_money
from pit.paytables.models import PaytableConfiguration
from pit.paytables.selectors import engine_paytable
from pit.players.models import (
    Patron,
    PatronVersion,
    SeatSession,
    SessionEvent,
    SessionEventKind,
    SessionIdentification,
    Tier,
)
from pit.players.selectors import session_patron, session_spans, session_wagers
from pit.shoes.models import CorrectionKind, Coup, CoupCorrection, Shoe, Wager, WagerResult
from pit.shoes.selectors import commission_taken_minor

from .models import (
    AverageBetEstimate,
    CompEntry,
    CompKind,
    CoupEdges,
    RatedTableDay,
    ReinvestmentRate,
    SessionRating,
)

# What a rating reads: the play of its table and the session's own facts (pit.core.derived).
RATING_READS = frozenset(
    {
        "shoes.Coup",
        "shoes.Wager",
        "shoes.CoupCorrection",
        "players.SeatSession",
        "players.SessionEvent",
        "players.SessionIdentification",
        "ratings.AverageBetEstimate",
    }
)
MAIN_EDGE_BET = "banker"  # the bet whose full-shoe edge the field's standard theo uses


def fraction_text(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def to_places(value: Fraction, places: int = 6) -> Decimal:
    return game.fraction_to_decimal(value, places)


def round_minor(value: Fraction) -> int:
    """A Fraction of minor units rounded half even to a whole minor unit."""
    return int(to_places(value, 0).to_integral_value(rounding=ROUND_HALF_EVEN))


# ------------------------------------------------------------------------------------ exact edges


def coup_edges(coup_ids: Iterable[int]) -> dict[int, dict[str, Fraction]]:
    """Each coup's exact house edge per bet, stored once (computed by the engine from the cards
    seen before the coup: the shoe's burn and its earlier coups, in number order)."""
    wanted = set(coup_ids)
    found: dict[int, dict[str, Fraction]] = {
        coup_id: {bet: Fraction(text) for bet, text in edges.items()}
        for coup_id, edges in CoupEdges.objects.filter(coup_id__in=wanted).values_list("coup_id", "edges")
    }
    missing = wanted - found.keys()
    if not missing:
        return found
    by_shoe: dict[int, int] = dict(
        Coup.objects.filter(pk__in=missing).values_list("shoe_id").order_by().annotate(Max("number"))
    )
    new: list[CoupEdges] = []
    rules: dict[int, game.Paytable] = {}
    for shoe in Shoe.objects.filter(pk__in=by_shoe):
        seen = Counter(shoe.burn_cards or ())
        coups = Coup.objects.filter(shoe=shoe, number__lte=by_shoe[shoe.pk]).order_by("number")
        for pk, player, banker, paytable_id in coups.values_list("pk", "player_cards", "banker_cards", "paytable_id"):
            if pk in missing:
                if paytable_id not in rules:
                    rules[paytable_id] = engine_paytable(PaytableConfiguration.objects.get(pk=paytable_id))
                try:
                    odds = game.exact_odds(rules[paytable_id], game.composition_after(shoe.decks, seen))
                    edges = {bet: figures.house_edge for bet, figures in odds.bets.items()}
                except (ValueError, game.InvalidCard):
                    edges = {}  # cards the shoe cannot hold: protection names the coup; it prices nothing
                found[pk] = edges
                new.append(CoupEdges(coup_id=pk, edges={bet: fraction_text(edge) for bet, edge in edges.items()}))
            seen.update([*player, *banker])
    CoupEdges.objects.bulk_create(new, ignore_conflicts=True)
    return found


@lru_cache(maxsize=128)
def _deducts(paytable_id: int) -> bool:
    """Whether the paytable deducts commission from payouts (a paytable version never changes)."""
    rules = PaytableConfiguration.objects.values_list("rules", flat=True).get(pk=paytable_id)
    return rules.get("commission_mode") == game.CommissionMode.DEDUCTED


@lru_cache(maxsize=128)
def _full_shoe_edge(paytable_id: int, decks: int) -> Fraction:
    """The paytable's full-shoe Banker edge (the one game edge the field's standard theo uses)."""
    paytable = engine_paytable(PaytableConfiguration.objects.get(pk=paytable_id))
    return game.exact_odds(paytable, decks).bets[MAIN_EDGE_BET].house_edge


# ------------------------------------------------------------------------------------ the rating


def _voided(coup_ids: Iterable[int]) -> set[int]:
    """The coups whose latest correction is a void."""
    latest = CoupCorrection.objects.filter(coup_id=OuterRef("coup_id")).order_by("-sequence").values("kind")[:1]
    return set(
        CoupCorrection.objects.filter(coup_id__in=list(coup_ids))
        .annotate(latest_kind=Subquery(latest))
        .filter(latest_kind=CorrectionKind.VOID)
        .values_list("coup_id", flat=True)
    )


def spans_condition(spans: list[tuple[dt.datetime, dt.datetime | None]], field: str) -> Q:
    """`field` (a moment) inside one of the spans: from its start, up to (not including) its end."""
    condition = Q(pk__in=[])
    for start, end in spans:
        inside = Q(**{f"{field}__gte": start})
        if end is not None:
            inside &= Q(**{f"{field}__lt": end})
        condition |= inside
    return condition


def session_rate(session: SeatSession) -> SessionRating:
    """The session's rating computed from the facts as they stand now (not saved)."""
    spans = session_spans(session)
    final = session.events.filter(kind=SessionEventKind.STAND).exists()
    table = session.table
    first_day = gaming_day_for(spans[0][0]) if spans else session.gaming_day
    last_day = gaming_day_for(spans[-1][1]) if spans and spans[-1][1] is not None else current_gaming_day()
    table_coups = Coup.objects.filter(
        shoe__table_id=session.table_id, gaming_day__range=(first_day, max(first_day, last_day))
    ).filter(spans_condition(spans, "dealt_at"))
    coup_rows = list(table_coups.values_list("pk", "dealt_at", "paytable_id", "shoe__decks"))
    voided = _voided(row[0] for row in coup_rows)
    latest = max((row[1] for row in coup_rows), default=session.started_at)
    as_of = max(latest, session.started_at)
    seconds = 0
    for start, end in spans:
        seconds += max(int(((end if end is not None else max(as_of, start)) - start).total_seconds()), 0)
    if final and spans:
        as_of = spans[-1][1] or as_of
    rows = list(
        session_wagers(session).values_list(
            "pk", "coup_id", "bet", "amount_minor", "result", "payout_minor", "commission_minor", "coup__paytable_id"
        )
    )
    edges = coup_edges({row[1] for row in rows})
    handle_by_bet: dict[str, int] = defaultdict(int)
    coups_played: set[int] = set()
    theo = Fraction(0)
    won = owed = deducted = largest = 0
    deducting = {paytable_id for paytable_id in {row[7] for row in rows} if _deducts(paytable_id)}
    for pk, coup_id, bet, amount, result, payout, commission, paytable_id in rows:
        handle_by_bet[bet] += amount
        coups_played.add(coup_id)
        largest = max(largest, amount)
        won += (amount if result == WagerResult.LOSE else 0) - payout + commission
        owed += commission
        if paytable_id in deducting and result == WagerResult.WIN:
            deducted += commission_taken_minor(Wager.objects.select_related("coup__paytable").get(pk=pk))[0]
        edge = edges.get(coup_id, {}).get(bet)
        if edge is not None:
            theo += amount * edge
    handle = sum(handle_by_bet.values())
    estimate = session.estimates.order_by("-recorded_at", "-id").first()
    estimated = False
    average = Fraction(handle, len(coups_played)) if coups_played else Fraction(0)
    if estimate is not None and not rows:
        estimated, average = True, Fraction(estimate.average_bet_minor)
    counted = [row for row in coup_rows if row[0] not in voided]
    paytable_id, decks = (counted[-1][2], counted[-1][3]) if counted else (table.paytable_id, 8)
    game_edge = _full_shoe_edge(paytable_id, decks)
    # average bet x hours x (coups per hour measured) x edge: the hours cancel against the pace.
    standard = average * len(counted) * game_edge
    patron = session_patron(session)
    return SessionRating(
        session=session,
        patron=patron,
        table_id=session.table_id,
        gaming_day=session.gaming_day,
        currency=table.currency,
        seconds_played=seconds,
        coups_played=len(coups_played),
        table_coups=len(counted),
        wagers=len(rows),
        handle_minor=handle,
        handle_by_bet=dict(sorted(handle_by_bet.items())),
        largest_bet_minor=largest,
        won_minor=won,
        commission_owed_minor=owed,
        commission_deducted_minor=deducted,
        theo_numerator=str(theo.numerator),
        theo_denominator=str(theo.denominator),
        theo_minor=to_places(theo),
        game_edge=fraction_text(game_edge),
        standard_theo_minor=to_places(standard),
        estimated=estimated,
        estimated_average_bet_minor=estimate.average_bet_minor if estimate is not None else None,
        final=final,
        as_of=as_of,
        coup_mark=max((row[0] for row in coup_rows), default=0),
    )


def _candidates(table_id: int, day: dt.date):
    """The sessions at the table that overlap the gaming day."""
    start, end = gaming_day_bounds(day)
    return (
        SeatSession.objects.filter(table_id=table_id, started_at__lt=end)
        .exclude(events__kind=SessionEventKind.STAND, events__at__lt=start)
        .select_related("table", "patron")
    )


def _marks(table_id: int, day: dt.date) -> dict[str, int]:
    sessions = SeatSession.objects.filter(table_id=table_id)
    return {
        "coup_mark": Coup.objects.filter(shoe__table_id=table_id, gaming_day=day).aggregate(m=Max("pk"))["m"] or 0,
        "correction_mark": CoupCorrection.objects.filter(coup__shoe__table_id=table_id, coup__gaming_day=day).aggregate(
            m=Max("pk")
        )["m"]
        or 0,
        "event_mark": SessionEvent.objects.filter(session__in=sessions).aggregate(m=Max("pk"))["m"] or 0,
        "identification_mark": SessionIdentification.objects.filter(session__in=sessions).aggregate(m=Max("pk"))["m"]
        or 0,
        "estimate_mark": AverageBetEstimate.objects.filter(session__in=sessions).aggregate(m=Max("pk"))["m"] or 0,
    }


def _touched(
    table_id: int, day: dt.date, mark: RatedTableDay, candidates: list[SeatSession], stored: dict[int, SessionRating]
) -> set[int]:
    """The candidate sessions that anything newer than the marks touches (or not rated yet)."""
    touched: set[int] = {session.pk for session in candidates if session.pk not in stored}
    moments = list(
        Coup.objects.filter(shoe__table_id=table_id, gaming_day=day, pk__gt=mark.coup_mark).values_list(
            "dealt_at", flat=True
        )
    )
    moments += list(
        CoupCorrection.objects.filter(
            coup__shoe__table_id=table_id, coup__gaming_day=day, pk__gt=mark.correction_mark
        ).values_list("coup__dealt_at", flat=True)
    )
    ids = [session.pk for session in candidates]
    touched |= set(
        SessionEvent.objects.filter(session_id__in=ids, pk__gt=mark.event_mark).values_list("session_id", flat=True)
    )
    touched |= set(
        SessionIdentification.objects.filter(session_id__in=ids, pk__gt=mark.identification_mark).values_list(
            "session_id", flat=True
        )
    )
    touched |= set(
        AverageBetEstimate.objects.filter(session_id__in=ids, pk__gt=mark.estimate_mark).values_list(
            "session_id", flat=True
        )
    )
    if moments:
        first, last = min(moments), max(moments)
        for session in candidates:
            if session.pk in touched or session.started_at > last:
                continue
            stood = stored[session.pk].final and stored[session.pk].as_of < first
            if not stood:
                touched.add(session.pk)
    return touched


def ratings_refresh(*, table_id: int, gaming_day: dt.date, whole: bool = False) -> int:
    """Recompute whole the rating of every session of the table's gaming day that anything newer than
    the table-day's marks touches (`whole`: every one); the comps of those that stood up follow.
    Serialized per table-day; safe to run twice. Returns the sessions rated."""
    with transaction.atomic():
        advisory_xact_lock(f"pit.ratings:{table_id}:{gaming_day}")
        marks = _marks(table_id, gaming_day)
        mark, _created = RatedTableDay.objects.get_or_create(table_id=table_id, gaming_day=gaming_day)
        candidates = list(_candidates(table_id, gaming_day))
        stored = {rating.session_id: rating for rating in SessionRating.objects.filter(session__in=candidates)}
        every = {session.pk for session in candidates}
        touched = every if whole else _touched(table_id, gaming_day, mark, candidates, stored)
        for session in candidates:
            if session.pk in touched:
                _rating_write(session)
        RatedTableDay.objects.filter(pk=mark.pk).update(**marks)
    return len(touched)


def _rating_write(session: SeatSession) -> SessionRating:
    rating = session_rate(session)
    SessionRating.objects.filter(session=session).delete()
    rating.save(force_insert=True)
    if rating.final and rating.patron is not None:
        _comp_follow(rating)
    return rating


def ratings_refresh_day(*, gaming_day: dt.date) -> int:
    """Every table-day of the gaming day rated whole (the close's re-check, the command)."""
    start, end = gaming_day_bounds(gaming_day)
    tables = set(Coup.objects.filter(gaming_day=gaming_day).values_list("shoe__table_id", flat=True).distinct())
    tables |= set(
        SeatSession.objects.filter(started_at__lt=end)
        .exclude(events__kind=SessionEventKind.STAND, events__at__lt=start)
        .values_list("table_id", flat=True)
    )
    return sum(ratings_refresh(table_id=table_id, gaming_day=gaming_day, whole=True) for table_id in sorted(tables))


# ------------------------------------------------------------------------------------ comps


def _patron_tier_at(patron_id: int, moment: dt.datetime) -> Tier | None:
    version = (
        PatronVersion.objects.filter(patron_id=patron_id, recorded_at__lte=moment)
        .order_by("-recorded_at", "-id")
        .first()
        or PatronVersion.objects.filter(patron_id=patron_id).order_by("recorded_at", "id").first()
    )
    return version.tier if version is not None else None


def reinvestment_rate_at(tier: Tier, day: dt.date) -> Decimal:
    """The tier's reinvestment rate for a session of gaming day `day` (0 before its first)."""
    rate = ReinvestmentRate.objects.filter(tier=tier, starts_on__lte=day).order_by("-starts_on", "-id").first()
    return rate.rate if rate is not None else Decimal(0)


def _comp_follow(rating: SessionRating) -> CompEntry | None:
    """The stood-up session's comp in the ledger: its rate x exact theo, rounded half even to the
    minor unit; entered once (earned), and any later difference as an adjusting entry."""
    patron_id = rating.patron_id
    assert patron_id is not None, "only a patron's session earns comps"
    tier = _patron_tier_at(patron_id, rating.as_of)
    rate = reinvestment_rate_at(tier, rating.gaming_day) if tier is not None else Decimal(0)
    theo = max(rating.theo, Fraction(0))
    target = round_minor(Fraction(rate) * theo)
    Patron.objects.select_for_update().filter(pk=patron_id).first()  # the ledger's lock
    entries = CompEntry.objects.filter(session_id=rating.session_id)
    earned = entries.filter(patron_id=patron_id).aggregate(total=Sum("amount_minor"))["total"]
    others = entries.exclude(patron_id=patron_id).values("patron_id").annotate(total=Sum("amount_minor"))
    for other in others:  # identified as someone else later: the first patron's comp is taken back
        if other["total"]:
            CompEntry.objects.create(
                patron_id=other["patron_id"],
                kind=CompKind.ADJUSTED,
                session_id=rating.session_id,
                currency=rating.currency,
                amount_minor=-other["total"],
                reason="the session was identified as another patron's",
            )
    if earned is None:
        return CompEntry.objects.create(
            patron_id=patron_id,
            kind=CompKind.EARNED,
            session_id=rating.session_id,
            currency=rating.currency,
            amount_minor=target,
            rate=rate,
            theo_minor=to_places(theo),
        )
    if earned != target:
        return CompEntry.objects.create(
            patron_id=patron_id,
            kind=CompKind.ADJUSTED,
            session_id=rating.session_id,
            currency=rating.currency,
            amount_minor=target - earned,
            rate=rate,
            theo_minor=to_places(theo),
            reason="the session's rating changed after stand-up",
        )
    return None


def comp_balance_minor(patron: Patron, currency: str) -> int:
    """The patron's comp balance in `currency`: the sum of its entries."""
    return CompEntry.objects.filter(patron=patron, currency=currency).aggregate(total=Sum("amount_minor"))["total"] or 0


def comp_redeem(
    *,
    patron: Patron,
    currency: str,
    amount_minor: int,
    reason: str,
    reference: str | None = None,
    actor: Actor = SYSTEM,
) -> CompEntry:
    """A host redeems comps for a patron, with a reason (and the comp slip's `reference`, once per
    patron); refused (naming the balance) when the balance would go negative. The patron's row is
    locked first: two redemptions never both spend it."""
    if amount_minor <= 0:
        message = gettext("A redemption is a positive amount.")
        raise Conflict(message, errors={"amount": [message]})
    if not reason.strip():
        message = gettext("A redemption needs a reason.")
        raise Conflict(message, errors={"reason": [message]})
    with transaction.atomic():
        Patron.objects.select_for_update().filter(pk=patron.pk).first()
        if reference:
            recorded = CompEntry.objects.filter(patron=patron, reference=reference).first()
            if recorded is not None:  # the same slip again: the same redemption, or a conflict
                if (recorded.currency, -recorded.amount_minor, recorded.reason) != (
                    currency,
                    amount_minor,
                    reason.strip(),
                ):
                    message = gettext(
                        "Comp slip %(reference)s of patron %(card)s is recorded already, with other values."
                    )
                    message %= {"reference": reference, "card": patron.card_number}
                    raise Conflict(message, errors={"reference": [message]}, existing_id=recorded.pk)
                return recorded
        balance = comp_balance_minor(patron, currency)
        if amount_minor > balance:
            message = gettext("Patron %(card)s has %(balance)s in comps; %(amount)s cannot be redeemed.") % {
                "card": patron.card_number,
                "balance": format_money(balance, currency),
                "amount": format_money(amount_minor, currency),
            }
            raise Conflict(
                message,
                errors={"amount": [message]},
                balance=str(balance),
                amount=str(amount_minor),
            )
        return CompEntry.objects.create(
            patron=patron,
            kind=CompKind.REDEEMED,
            currency=currency,
            amount_minor=-amount_minor,
            reason=reason.strip(),
            reference=reference or None,
            **actor.recorded_fields(),
        )


def reinvestment_rate_set(*, tier: Tier, rate: Decimal, starts_on: dt.date, actor: Actor = SYSTEM) -> ReinvestmentRate:
    """A new reinvestment rate for the tier, for sessions of gaming days from `starts_on` on (the
    earlier ones stay on record; sessions already rated earn it at their next refresh, as adjustments)."""
    if not Decimal(0) <= rate <= Decimal(1):
        message = gettext("A reinvestment rate is a share between 0 and 1.")
        raise Conflict(message, errors={"rate": [message]})
    return ReinvestmentRate.objects.create(tier=tier, rate=rate, starts_on=starts_on, **actor.recorded_fields())


# ------------------------------------------------------------------------------------ estimates


@day_write(writes=("ratings.AverageBetEstimate",), day_of="the session's gaming day")
def average_bet_estimate(*, session: SeatSession, average_bet_minor: int, actor: Actor = SYSTEM) -> AverageBetEstimate:
    """A pit boss's estimate of the session's average bet (the latest stands); the rating follows."""
    if average_bet_minor <= 0:
        message = gettext("An average bet is a positive amount.")
        raise Conflict(message, errors={"average_bet": [message]})
    with transaction.atomic():
        days_ensure_open([session.gaming_day])
        estimate = AverageBetEstimate.objects.create(
            session=session,
            currency=session.table.currency,
            average_bet_minor=average_bet_minor,
            **actor.recorded_fields(),
        )
        derived_follow(("ratings.AverageBetEstimate",), table_days=[(session.table_id, session.gaming_day)])
    return estimate
