"""Ratings computed from the facts, estimated average bets, reinvestment rates and comps.

A session's rating is never typed: `ratings_refresh` writes it as the session's played spans, its
standing wagers and each coup's exact edges (`CoupEdges`, priced by the engine at the coup's shoe
composition) give it. It runs for a table's gaming day, owed through the outbox by every write of
what it reads (pit.core.derived), and brings up to date every session that anything newer than the
table-day's marks touches: recomputed whole, or, when only coups dealt after its rating touch it,
carried forward exact (its stored sums plus the new coups'; integers and Fractions, so the row is
the one the whole recomputation writes). A rating that stood up earns its comp (rate x exact theo)
in the points ledger; a later change of the rating adds an adjusting entry. Design:
docs/design/ratings.md.
"""

from __future__ import annotations

import bisect
import datetime as dt
import json
import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any, NamedTuple

from django.db import transaction
from django.db.models import Max, Sum
from django.utils.translation import gettext

from pit import game
from pit.core.actors import SYSTEM, Actor
from pit.core.daylock import day_write, days_ensure_open
from pit.core.derived import derived_follow
from pit.core.errors import Conflict
from pit.core.gaming_day import current_gaming_day, gaming_day_bounds, gaming_day_for
from pit.core.money import format_money, from_minor, settlement_unit, to_minor
from pit.game import counting
from pit.paytables.models import PaytableConfiguration
from pit.paytables.selectors import engine_paytable
from pit.players.models import Patron, PatronVersion, SeatSession, SessionEventKind, Tier
from pit.players.selectors import Span, spans_from_events
from pit.shoes.models import CorrectionKind, Coup, Shoe, WagerResult

from . import persistence
from .models import AverageBetEstimate, CompEntry, CompKind, CoupEdges, ReinvestmentRate, SessionRating

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
    """Each coup's exact house edge per bet, stored once: as the protection check priced it (it
    keeps them, `coup_edges_keep`), or priced here for a coup it has not checked yet, by the same
    enumeration (`pit.game.counting.coup_odds`: the cards seen before the coup, the shoe's burn and
    its earlier coups in number order)."""
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
    priced: dict[int, dict[str, Fraction]] = {}
    rules: dict[int, game.Paytable] = {}
    for shoe in Shoe.objects.filter(pk__in=by_shoe):
        seen = Counter(shoe.burn_cards or ())
        coups = Coup.objects.filter(shoe=shoe, number__lte=by_shoe[shoe.pk]).order_by("number")
        for pk, player, banker, paytable_id in coups.values_list("pk", "player_cards", "banker_cards", "paytable_id"):
            if pk in missing:
                if paytable_id not in rules:
                    rules[paytable_id] = engine_paytable(PaytableConfiguration.objects.get(pk=paytable_id))
                try:
                    odds = counting.coup_odds(rules[paytable_id], shoe.decks, seen)
                    edges = {bet: figures.house_edge for bet, figures in odds.bets.items()}
                except (ValueError, game.InvalidCard):
                    edges = {}  # cards the shoe cannot hold: protection names the coup; it prices nothing
                found[pk] = priced[pk] = edges
            seen.update([*player, *banker])
    coup_edges_keep(priced)
    return found


def coup_edges_keep(edges: dict[int, dict[str, Fraction]]) -> None:
    """Store coups' exact edges per bet as priced (those stored already stay as they are)."""
    CoupEdges.objects.bulk_create(
        [
            CoupEdges(coup_id=pk, edges={bet: fraction_text(edge) for bet, edge in bets.items()})
            for pk, bets in edges.items()
        ],
        ignore_conflicts=True,
    )


class _Edges(NamedTuple):
    """A coup's edges over one common denominator: edge of `bet` = numerators[bet] / denominator."""

    denominator: int
    numerators: dict[str, int]


def _over_one_denominator(edges: dict[str, Fraction]) -> _Edges:
    denominator = math.lcm(*(edge.denominator for edge in edges.values())) if edges else 1
    return _Edges(denominator, {bet: edge.numerator * (denominator // edge.denominator) for bet, edge in edges.items()})


@lru_cache(maxsize=4096)
def _stored_edges(text: str) -> _Edges:
    """A CoupEdges row's JSON as read (the same text gives the same edges: a coup's never change)."""
    return _over_one_denominator({bet: Fraction(edge) for bet, edge in json.loads(text).items()})


@lru_cache(maxsize=128)
def _deducts(paytable_id: int) -> bool:
    """Whether the paytable deducts commission from payouts (a paytable version never changes)."""
    rules = PaytableConfiguration.objects.values_list("rules", flat=True).get(pk=paytable_id)
    return rules.get("commission_mode") == game.CommissionMode.DEDUCTED


@lru_cache(maxsize=4096)
def _deducted_minor(paytable_id: int, bet: str, amount_minor: int, currency: str, cards: str) -> int:
    """The commission taken off a winning wager's payout at a deducting paytable: the engine settles
    it again from the coup's cards (as pit.shoes.selectors.commission_taken_minor does)."""
    player, banker = json.loads(cards)
    rules = PaytableConfiguration.objects.values_list("rules", flat=True).get(pk=paytable_id)
    settlement = game.settle(
        engine_paytable(rules),
        bet,
        from_minor(amount_minor, currency),
        game.evaluate(game.Coup(player=player, banker=banker)),
        unit=settlement_unit(currency),
    )
    return to_minor(settlement.deducted, currency)


@lru_cache(maxsize=128)
def _full_shoe_edge(paytable_id: int, decks: int) -> Fraction:
    """The paytable's full-shoe Banker edge (the one game edge the field's standard theo uses)."""
    paytable = engine_paytable(PaytableConfiguration.objects.get(pk=paytable_id))
    return game.exact_odds(paytable, decks).bets[MAIN_EDGE_BET].house_edge


# ------------------------------------------------------------------------------------ the rating


def _inside(spans: list[Span], moment: dt.datetime) -> bool:
    return any(start <= moment and (end is None or moment < end) for start, end in spans)


class _Session:
    """A session as the refresh reads it (`persistence.table_day_read`), with its played spans."""

    def __init__(self, row: dict[str, Any]) -> None:
        self.row = row
        self.pk: int = row["id"]
        self.seat: int = row["seat"]
        self.started_at: dt.datetime = row["started_at"]
        self.spans = spans_from_events(self.started_at, row["events"])
        self.final = any(kind == SessionEventKind.STAND for kind, _at in row["events"])
        first = gaming_day_for(self.spans[0][0]) if self.spans else row["gaming_day"]
        last = (
            gaming_day_for(self.spans[-1][1]) if self.spans and self.spans[-1][1] is not None else current_gaming_day()
        )
        self.days = (first, max(first, last))


class _Sums(NamedTuple):
    """What a session's rating adds up from its played coups and standing wagers."""

    table_coups: int  # the coups its spans hold, voids out
    coup_mark: int  # the highest id of those coups, voids in (0: none)
    latest: dt.datetime | None  # the latest dealt_at of those coups, voids in
    game: tuple[int, int] | None  # the paytable and decks of the latest coup counted
    wagers: int
    coups_played: int
    largest: int
    handle_by_bet: dict[str, int]
    won: int
    owed: int
    deducted: int
    theo: Fraction


_NO_PLAY = _Sums(0, 0, None, None, 0, 0, 0, {}, 0, 0, 0, Fraction(0))


def _window(spanned: list[_Session]) -> tuple[tuple[dt.date, dt.date], dt.datetime, dt.datetime | None]:
    """The gaming days and the moments (from, to or None: up to now) that hold every span of `spanned`."""
    days = (min(s.days[0] for s in spanned), max(s.days[1] for s in spanned))
    ends = [s.spans[-1][1] for s in spanned]
    end = None if None in ends else max(end for end in ends if end is not None)
    return days, min(s.spans[0][0] for s in spanned), end


def _rate(table_id: int, sessions: list[_Session]) -> list[SessionRating]:
    """The sessions' ratings computed whole from the facts as they stand now (not saved)."""
    spanned = [session for session in sessions if session.spans]
    sums = _sums_read(table_id, spanned) if spanned else {}
    return [_rating(session, sums.get(session.pk, _NO_PLAY)) for session in sessions]


def _sums_read(table_id: int, spanned: list[_Session]) -> dict[int, _Sums]:
    """The coups dealt at the table in the sessions' spans and the standing wagers of their seats on
    those coups, read for all of them at once (two statements), split by seat and span and added
    up here."""
    days, start, end = _window(spanned)
    seats = sorted({s.seat for s in spanned})
    coups, wagers = persistence.play_read(table_id, seats, days, start, end)
    moments = [row[1] for row in coups]
    owner: dict[tuple[int, int], int] = {}  # (seat, coup) -> the session whose span holds it
    played: dict[int, list[tuple[Any, ...]]] = {}
    for session in spanned:
        mine = played[session.pk] = []
        for span_start, span_end in session.spans:
            low = bisect.bisect_left(moments, span_start)
            high = len(moments) if span_end is None else bisect.bisect_left(moments, span_end)
            mine.extend(row for row in coups[low:high] if session.days[0] <= _day(row[2]) <= session.days[1])
        for row in mine:
            owner[session.seat, row[0]] = session.pk
    coup_of = {row[0]: row for row in coups}
    by_session: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for wager in wagers:
        session_id = owner.get((wager[1], wager[0]))
        # Standing (pit.shoes.selectors.standing_condition): the version of the coup's latest correction.
        if session_id is not None and wager[7] == coup_of[wager[0]][5]:
            by_session[session_id].append(wager)
    edges = _edges_of(coup_of, {wager[0] for rows in by_session.values() for wager in rows})
    return {
        session.pk: _sums(session, played[session.pk], by_session[session.pk], coup_of, edges) for session in spanned
    }


def _day(value: Any) -> dt.date:
    return value if isinstance(value, dt.date) else dt.date.fromisoformat(value)


def _edges_of(coup_of: dict[int, tuple[Any, ...]], coup_ids: set[int]) -> dict[int, _Edges]:
    """The wagered coups' edges: as stored (read with the coups), or priced now for those without."""
    edges = {pk: _stored_edges(coup_of[pk][7]) for pk in coup_ids if coup_of[pk][7] is not None}
    missing = coup_ids - edges.keys()
    if missing:
        edges.update((pk, _over_one_denominator(priced)) for pk, priced in coup_edges(missing).items())
    return edges


def _sums(
    session: _Session,
    coups: list[tuple[Any, ...]],
    wagers: list[tuple[Any, ...]],
    coup_of: dict[int, tuple[Any, ...]],
    edges: dict[int, _Edges],
) -> _Sums:
    currency = session.row["currency"]
    handle_by_bet: dict[str, int] = defaultdict(int)
    theo_by_coup: dict[int, int] = defaultdict(int)  # per coup: Σ stake x edge numerator
    won = owed = deducted = largest = 0
    for coup_id, _seat, bet, amount, result, payout, commission, _version in wagers:
        handle_by_bet[bet] += amount
        largest = max(largest, amount)
        won += (amount if result == WagerResult.LOSE else 0) - payout + commission
        owed += commission
        coup = coup_of[coup_id]
        if result == WagerResult.WIN and _deducts(coup[3]):
            deducted += _deducted_minor(coup[3], bet, amount, currency, f"[{coup[8]}, {coup[9]}]")
        numerator = edges[coup_id].numerators.get(bet)
        if numerator is not None:
            theo_by_coup[coup_id] += amount * numerator
    # Σ over coups of (Σ stake x numerator) / denominator, over one common denominator: one Fraction.
    common = math.lcm(*(edges[coup_id].denominator for coup_id in theo_by_coup)) if theo_by_coup else 1
    theo = Fraction(
        sum(total * (common // edges[coup_id].denominator) for coup_id, total in theo_by_coup.items()), common
    )
    counted = [coup for coup in coups if coup[6] != CorrectionKind.VOID]
    return _Sums(
        table_coups=len(counted),
        coup_mark=max((coup[0] for coup in coups), default=0),
        latest=max((coup[1] for coup in coups), default=None),
        game=(counted[-1][3], counted[-1][4]) if counted else None,
        wagers=len(wagers),
        coups_played=len({wager[0] for wager in wagers}),
        largest=largest,
        handle_by_bet=dict(sorted(handle_by_bet.items())),
        won=won,
        owed=owed,
        deducted=deducted,
        theo=theo,
    )


def _rating(session: _Session, sums: _Sums) -> SessionRating:
    row, spans = session.row, session.spans
    as_of = max(sums.latest, session.started_at) if sums.latest is not None else session.started_at
    seconds = 0
    for start, end in spans:
        seconds += max(int(((end if end is not None else max(as_of, start)) - start).total_seconds()), 0)
    if session.final and spans:
        as_of = spans[-1][1] or as_of
    handle = sum(sums.handle_by_bet.values())
    estimate = row["estimate"]
    estimated = False
    average = Fraction(handle, sums.coups_played) if sums.coups_played else Fraction(0)
    if estimate is not None and not sums.wagers:
        estimated, average = True, Fraction(estimate)
    paytable_id, decks = sums.game if sums.game is not None else (row["paytable_id"], 8)
    game_edge = _full_shoe_edge(paytable_id, decks)
    # average bet x hours x (coups per hour measured) x edge: the hours cancel against the pace.
    standard = average * sums.table_coups * game_edge
    theo = sums.theo
    return SessionRating(
        session_id=session.pk,
        patron_id=row["patron_id"],
        table_id=row["table_id"],
        gaming_day=row["gaming_day"],
        currency=row["currency"],
        seconds_played=seconds,
        coups_played=sums.coups_played,
        table_coups=sums.table_coups,
        wagers=sums.wagers,
        handle_minor=handle,
        handle_by_bet=sums.handle_by_bet,
        largest_bet_minor=sums.largest,
        won_minor=sums.won,
        commission_owed_minor=sums.owed,
        commission_deducted_minor=sums.deducted,
        theo_numerator=str(theo.numerator),
        theo_denominator=str(theo.denominator),
        theo_minor=to_places(theo),
        game_edge=fraction_text(game_edge),
        standard_theo_minor=to_places(standard),
        estimated=estimated,
        estimated_average_bet_minor=estimate,
        final=session.final,
        as_of=as_of,
        coup_mark=sums.coup_mark,
    )


def session_rate(session: SeatSession) -> SessionRating:
    """The session's rating computed from the facts as they stand now (not saved)."""
    rows, _marks, _play, _new = persistence.table_day_read(session.table_id, session.gaming_day, lock=False)
    row = next(row for row in rows if row["id"] == session.pk)  # a session overlaps its own gaming day
    return _rate(session.table_id, [_Session({**row, "table_id": session.table_id})])[0]


def _touched(
    sessions: list[_Session], marks: dict[str, int], play: list[tuple[str, int, dt.datetime]]
) -> list[_Session]:
    """The sessions the new facts touch: those not rated yet, those with an event, identification or
    estimate of their own newer than the marks, and those whose played spans hold a new coup or a
    corrected one (a coup belongs to the sessions seated at its table when it was dealt, and to no
    other: theirs are the only ratings it changes)."""
    moments = sorted({at for _kind, _pk, at in play})
    touched = []
    for session in sessions:
        facts = session.row["facts"]
        if not session.row["rated"] or any(facts[kind] > marks[kind] for kind in marks):
            touched.append(session)
            continue
        for start, end in session.spans:
            low = bisect.bisect_left(moments, start)
            if low < len(moments) and (end is None or moments[low] < end):
                touched.append(session)
                break
    return touched


def _carried(
    day: dt.date,
    sessions: list[_Session],
    marks: dict[str, int],
    play: list[tuple[str, int, dt.datetime]],
    new: dict[str, Any],
) -> dict[int, SessionRating]:
    """The ratings of `sessions` that only new coups touch, carried forward exact: the stored sums
    plus those of the new coups (`_sums`), every figure a sum, a count or a maximum of integers or
    Fractions, so the rating is the one recomputing it whole gives. Only when nothing else moved: no
    correction in the new play, the session rated, not stood up, of this gaming day alone, no event,
    identification or estimate of its own newer than the marks, every new coup of its spans dealt
    after its rating's as_of and of an id above its coup mark (a late coup, or one another refresh
    counted, is recomputed whole), and no other session at its seat holding one of them. The others
    are left out (the refresh rates them whole)."""
    coups = new["coups"]
    if not coups or any(kind == persistence.CORRECTION for kind, _pk, _at in play):
        return {}
    moments = [row[1] for row in coups]
    planned: list[tuple[_Session, tuple[Any, ...], list[tuple[Any, ...]]]] = []
    holders: dict[tuple[int, int], int] = Counter()
    for session in sessions:  # every touched session counts as a holder, carried or not
        mine: list[tuple[Any, ...]] = []
        for span_start, span_end in session.spans:
            low = bisect.bisect_left(moments, span_start)
            high = len(moments) if span_end is None else bisect.bisect_left(moments, span_end)
            mine.extend(row for row in coups[low:high] if session.days[0] <= _day(row[2]) <= session.days[1])
        for row in mine:
            holders[session.seat, row[0]] += 1
        stored = new["ratings"].get(session.pk)
        facts = session.row["facts"]
        if (
            stored is None
            or not session.row["rated"]
            or session.final
            or session.days != (day, day)
            or any(facts[kind] > marks[kind] for kind in marks)
        ):
            continue
        if mine and min(row[0] for row in mine) > stored[0] and min(row[1] for row in mine) > stored[1]:
            planned.append((session, stored, mine))
    coup_of = {row[0]: row for row in coups}
    carried: dict[int, SessionRating] = {}
    for session, stored, mine in planned:
        if any(holders[session.seat, row[0]] > 1 for row in mine):
            continue
        ids = {row[0] for row in mine}
        wagers = [w for w in new["wagers"] if w[1] == session.seat and w[0] in ids and w[7] == coup_of[w[0]][5]]
        added = _sums(session, mine, wagers, coup_of, _edges_of(coup_of, {w[0] for w in wagers}))
        if added.game is None:
            continue  # every new coup of its spans voided: whole
        _mark, _as_of, table_coups, count, played, largest, by_bet, won, owed, deducted, numerator, denominator = stored
        handle_by_bet = Counter(json.loads(by_bet) if isinstance(by_bet, str) else by_bet)
        handle_by_bet.update(added.handle_by_bet)
        sums = _Sums(
            table_coups=table_coups + added.table_coups,
            coup_mark=added.coup_mark,  # above the stored one
            latest=added.latest,  # after the stored as_of
            game=added.game,  # the latest coup counted is a new one
            wagers=count + added.wagers,
            coups_played=played + added.coups_played,  # new coups: none counted before
            largest=max(largest, added.largest),
            handle_by_bet=dict(sorted(handle_by_bet.items())),
            won=won + added.won,
            owed=owed + added.owed,
            deducted=deducted + added.deducted,
            theo=Fraction(int(numerator), int(denominator)) + added.theo,
        )
        carried[session.pk] = _rating(session, sums)
    return carried


def ratings_refresh(*, table_id: int, gaming_day: dt.date, whole: bool = False) -> int:
    """Bring up to date the rating of every session of the table's gaming day that anything newer
    than the table-day's marks touches (`whole`: recompute every one whole): carried forward exact
    when only new coups touch it (`_carried`), else recomputed whole; the comps of those that stood
    up follow. Serialized per table-day; safe to run twice. Returns the sessions rated."""
    with transaction.atomic():
        rows, marks, play, new = persistence.table_day_read(table_id, gaming_day)
        sessions = [_Session({**row, "table_id": table_id}) for row in rows]
        touched = sessions if whole else _touched(sessions, marks, play)
        carried = {} if whole else _carried(gaming_day, touched, marks, play, new)
        rest = [session for session in touched if session.pk not in carried]
        rated = dict(zip((session.pk for session in rest), _rate(table_id, rest) if rest else [], strict=True))
        ratings = [carried.get(session.pk) or rated[session.pk] for session in touched]
        read = dict(marks)
        for session in sessions:
            for kind, pk in session.row["facts"].items():
                read[kind] = max(read[kind], pk)
        for kind, pk, _at in play:
            read[kind] = max(read.get(kind, 0), pk)
        persistence.refresh_write(table_id, gaming_day, ratings, read if read != marks or play else None)
        for rating in ratings:
            if rating.final and rating.patron_id is not None:
                _comp_follow(rating)
    return len(touched)


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
