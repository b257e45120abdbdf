"""`side_bet_advantage_play`: each coup's side-bet expectations stored, and each seat's side bets on
positive coups tested against betting at random (the same pricing gives the ratings each coup's house
edges). Design: docs/design/protection-checks.md."""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

from django.conf import settings
from django.db.models import F

from pit import game
from pit.compliance.models import RuleViolation
from pit.compliance.services import violation_record
from pit.core.money import from_minor
from pit.core.rows import AnyOf, values_rows
from pit.game import counting
from pit.protection.checks.paytables import Paytables
from pit.protection.checks.rows import PROTECTION_CHECK, CoupsByShoe, WagerRow
from pit.protection.models import SideBetExpectation
from pit.protection.statistics import SideBetDay, seat_chances
from pit.ratings.services import coup_edges_keep
from pit.shoes.models import Coup, Shoe, Wager
from pit.tables.models import Table

SIDE_BET_MIN_HITS = 3
EVIDENCE_SHOWN = 12
ADVANTAGE_DAYS_PER_READ = 31


def side_bet_expectations(
    shoes: list[Shoe], coups_by_shoe: CoupsByShoe, paytables: Paytables
) -> dict[int, dict[str, bool]]:
    """Store, for each coup that has none yet, every side bet's exact expectation from the cards seen
    before it (the burn and the earlier coups, in number order). Returns, per coup, whether each of
    its side bets' expectation is positive, as stored now."""
    worth: dict[int, dict[str, bool]] = {}
    for coup_id, bet, positive in values_rows(
        SideBetExpectation.objects.filter(
            AnyOf(F("coup_id"), [row[0] for shoe in shoes for row in coups_by_shoe[shoe.pk]])
        ).values_list("coup_id", "bet", "positive")
    ):
        bets = worth.get(coup_id)
        if bets is None:
            bets = worth[coup_id] = {}
        bets[bet] = positive
    stored = worth.keys()
    new: list[SideBetExpectation] = []
    edges: dict[int, dict[str, Fraction]] = {}
    for shoe in shoes:
        coups = coups_by_shoe[shoe.pk]
        if all(row[0] in stored for row in coups):
            continue
        seen = Counter(shoe.burn_cards or ())
        for row in coups:
            pk, player, banker, paytable_id = row[0], row[1], row[2], row[5]
            if pk not in stored:
                rules = paytables.rules[paytable_id]
                try:
                    odds = counting.coup_odds(rules, shoe.decks, seen)
                except (ValueError, game.InvalidCard):
                    break  # cards the shoe cannot hold, or too few left: nothing after can be counted
                expectations = counting.side_bet_values(rules, odds)
                edges[pk] = {bet: figures.house_edge for bet, figures in odds.bets.items()}
                new.extend(
                    SideBetExpectation(
                        coup_id=pk, bet=bet, expectation=game.fraction_to_decimal(value, 12), positive=value > 0
                    )
                    for bet, value in expectations.items()
                )
            seen.update([*player, *banker])
    SideBetExpectation.objects.bulk_create(new, ignore_conflicts=True, batch_size=1000)
    # The same enumeration priced every bet of the coup: the ratings' exact theo takes its house edges
    # from here rather than pricing the coup again (pit.ratings.services.coup_edges).
    coup_edges_keep(edges)
    for expectation in new:
        worth.setdefault(expectation.coup_id, {})[expectation.bet] = expectation.positive
    return worth


def side_bet_days(
    coups: Sequence[tuple[Any, ...]], wagers: Iterable[WagerRow], worth: dict[int, dict[str, bool]]
) -> dict:
    """One shoe's side bets for advantage play, per gaming day (`SideBetDay`): its coups' side-bet
    expectations, and its wagers on bets that had one."""
    by_day: dict[dt.date, SideBetDay] = {}
    day_of = {}
    for row in coups:
        bets = worth.get(row[0])
        if bets:
            day = row[3]
            side_bet_day = by_day.get(day)
            if side_bet_day is None:
                side_bet_day = by_day[day] = SideBetDay()
            side_bet_day.add_coup(bets)
            day_of[row[0]] = side_bet_day
    for wager in wagers:
        bets = worth.get(wager.coup_id)
        if bets is not None:
            positive = bets.get(wager.bet)
            if positive is not None:
                day_of[wager.coup_id].add_wager(wager.seat, wager.bet, wager.pk, positive)
    return by_day


def advantage_play(
    table: Table, days: list[dt.date], kept: dict[tuple[int, dt.date], SideBetDay], whole: set[dt.date]
) -> int:
    """Test, for each of the gaming days, every seat of the table that bet side bets on it (when a
    coup of the day had a positive side bet at all: otherwise no bet can have landed on one). A day
    the run's chunks kept whole is taken from `kept` (per table and day); the others' expectations and side bets are
    read in two queries for up to ADVANTAGE_DAYS_PER_READ days."""
    tested_days = {day: kept[table.pk, day] for day in whole if (table.pk, day) in kept}
    missing = [day for day in days if day not in whole]
    for start in range(0, len(missing), ADVANTAGE_DAYS_PER_READ):
        some = missing[start : start + ADVANTAGE_DAYS_PER_READ]
        worth: dict[int, dict[str, bool]] = defaultdict(dict)
        read: dict[dt.date, SideBetDay] = defaultdict(SideBetDay)
        day_of = {}
        for day, coup_id, bet, positive in values_rows(
            SideBetExpectation.objects.filter(coup__shoe__table_id=table.pk, coup__gaming_day__in=some).values_list(
                "coup__gaming_day", "coup_id", "bet", "positive"
            )
        ):
            worth[coup_id][bet] = positive
            day_of[coup_id] = day
        for coup_id, bets in worth.items():
            read[day_of[coup_id]].add_coup(bets)
        tested = [day for day in some if day in read and any(read[day].positives.values())]
        if tested:
            for pk, coup_id, seat, bet in values_rows(
                Wager.objects.filter(
                    coup__shoe__table_id=table.pk,
                    coup__gaming_day__in=tested,
                    bet__in=sorted({bet for day in tested for bet in read[day].opportunities}),
                ).values_list("pk", "coup_id", "seat", "bet")
            ):
                positive = worth[coup_id].get(bet)
                if positive is not None:
                    read[day_of[coup_id]].add_wager(seat, bet, pk, positive)
        tested_days.update(read)
    return sum(
        _advantage_play_day(table, day, tested_days[day])
        for day in days
        if day in tested_days and any(tested_days[day].positives.values())
    )


def _advantage_play_day(table: Table, day: dt.date, side_bets: SideBetDay) -> int:
    """One gaming day's test of each seat's side bets against betting at random (each bet's chance
    of landing on a positive coup: its share of the day's coups that were positive for it)."""
    threshold = settings.PIT_PROTECTION_SIDE_BET_P_VALUE
    findings = 0
    chance = side_bets.chance()
    for seat, bets in sorted(side_bets.bets.items()):
        hits = side_bets.hits.get(seat, ())
        if len(hits) < SIDE_BET_MIN_HITS:
            continue
        chances = seat_chances(bets, chance)
        p_value = counting.tail_probability(chances, len(hits))
        if p_value >= threshold:
            continue
        # The evidence, in the order the coups were dealt: the first EVIDENCE_SHOWN hits.
        shown = list(
            Wager.objects.filter(pk__in=hits, coup__gaming_day=day)
            .order_by("coup__dealt_at", "coup_id", "pk")
            .values_list("coup_id", "bet", "amount_minor", "currency", "coup__number", "coup__shoe__sequence")[
                :EVIDENCE_SHOWN
            ]
        )
        expectation = {
            (coup_id, bet): value
            for coup_id, bet, value in SideBetExpectation.objects.filter(
                coup_id__in={row[0] for row in shown}, bet__in={row[1] for row in shown}
            ).values_list("coup_id", "bet", "expectation")
        }
        evidence = "; ".join(
            f"shoe {sequence} coup {number} {bet} {expectation[coup_id, bet]:+.4f} a unit, staked "
            f"{from_minor(amount, currency)}"
            for coup_id, bet, amount, currency, number, sequence in shown
        ) + ("" if len(hits) <= EVIDENCE_SHOWN else f"; and {len(hits) - EVIDENCE_SHOWN} more")
        finding = counting.advantage_play(seat, len(hits), sum(bets.values()), sum(chances), p_value, evidence)
        first = Coup.objects.select_related("shoe__table").get(pk=shown[0][0])
        recorded = violation_record(
            finding=finding,
            fingerprint=f"side_bet_advantage_play:table{table.pk}:{day}:seat{seat}",
            table=first.shoe.table,
            shoe=first.shoe,
            coup=first,
            seat=seat,
            gaming_day=day,
            found_by=PROTECTION_CHECK,
        )
        if recorded.message != finding.message:  # more coups of the day: the evidence grows
            RuleViolation.objects.filter(pk=recorded.pk).update(message=finding.message)
        findings += 1
    return findings
