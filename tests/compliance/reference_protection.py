"""Game protection as it was before it was made bulk, shoe by shoe (kept only as the reference the
equivalence test compares the bulk path with: tests/compliance/test_sweep_equivalence.py).

Game protection checks, run with the rule checks (the per-coup task and the nightly sweep call
`protection_check_shoes` from `pit.compliance.checks`): each finding is a RuleViolation with an
engine-registered code, recorded once per fingerprint, reviewed by pit bosses like any other.

- `shoe_sequence_repeat`: every shoe's dealt order is indexed as shingles of `SHINGLE_LENGTH`
  consecutive cards (CardShingle); a shingle of a shoe found in another shoe of the pit on its
  gaming days or `PIT_PROTECTION_REPEAT_DAYS` either side is a repeat, charged to the later shoe
  (by id) at the coup that completed its first repeated shingle.
- `new_deck_order_run`: `NEW_DECK_RUN_LENGTH` or more cards in a row in new-deck order within a shoe.
- `side_bet_advantage_play`: each coup's exact side-bet expectations from the cards seen before it
  are stored (SideBetExpectation); per table, gaming day and seat, the seat's side bets placed on
  positive-expectation coups are compared with what betting at random would give (each bet's share
  of positive coups at the table that day): a Poisson-binomial tail below
  PIT_PROTECTION_SIDE_BET_P_VALUE, with at least SIDE_BET_MIN_HITS such bets, is a finding.
- `win_deviation`: the house's win against theoretical (handle x house edge per bet; standard
  deviation sqrt(sum over coups of (sum of stake x the bet's sd per unit)^2), a bound since wagers
  on one coup move together) of the table and of each seat, over the shoe, the gaming day and (in
  the nightly sweep) the 7 gaming days ending on it, beyond PIT_PROTECTION_Z_SHOE / _DAY / _WEEK
  standard deviations either way, once per scope.
- `coup_rate_high`: more than PIT_PROTECTION_MAX_COUPS_PER_HOUR coups dealt at one table within 60
  minutes (by their dealt time), once per table and clock hour (UTC) of the coup that went over.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import Counter, defaultdict
from collections.abc import Iterable
from decimal import Decimal, localcontext

from django.conf import settings
from django.db import transaction

from pit import game
from pit.compliance.models import RuleViolation
from pit.compliance.services import violation_record
from pit.core.money import exponent, from_minor
from pit.game import counting, sequences
from pit.game.sequences import NEW_DECK_RUN_LENGTH, SHINGLE_LENGTH
from pit.paytables.models import PaytableConfiguration
from pit.paytables.selectors import engine_paytable
from pit.protection.models import CardShingle, SideBetExpectation
from pit.shoes.models import Coup, Shoe, Wager, WagerResult
from pit.tables.models import Table

logger = logging.getLogger(__name__)

PROTECTION_CHECK = "game_protection"
SIDE_BET_MIN_HITS = 3
EVIDENCE_SHOWN = 12


def protection_check_shoes(*, shoe_ids: Iterable[int], weekly: bool = False) -> int:
    """Index and check each shoe, then the tables' gaming days it touched (and, with `weekly`, as the
    nightly sweep does, the 7 gaming days ending on each); returns the number of findings that hold
    (each recorded once)."""
    holding = 0
    table_days: set[tuple[int, dt.date]] = set()
    for shoe_id in sorted(set(shoe_ids)):
        with transaction.atomic():
            holding += _shoe_check(shoe_id, table_days)
    # The tests over a table's whole gaming day (and week) once per table and day, not once per shoe.
    tables = Table.objects.in_bulk({table_id for table_id, _ in table_days})
    for table_id, day in sorted(table_days):
        with transaction.atomic():
            table = tables[table_id]
            holding += _advantage_play(table, day) + _win_deviations(table, None, day, weekly=weekly)
    return holding


def _shoe_check(shoe_id: int, table_days: set[tuple[int, dt.date]]) -> int:
    shoe = Shoe.objects.select_related("table").get(pk=shoe_id)
    coups = list(
        Coup.objects.filter(shoe_id=shoe_id)
        .order_by("number", "pk")
        .values_list("pk", "player_cards", "banker_cards", "gaming_day", "dealt_at", "paytable_id")
    )
    if not coups:
        return 0
    table_days.update((shoe.table_id, row[3]) for row in coups)
    _side_bet_expectations(shoe, coups)
    return (
        _sequence_findings(shoe, coups)
        + _coup_rate(shoe, coups)
        + _win_deviations(shoe.table, shoe, max(row[3] for row in coups))
    )


def _sequence_findings(shoe: Shoe, coups: list[tuple]) -> int:
    """Index the shoe's shingles, then find them in other shoes, and runs in new-deck order."""
    shoe_id = shoe.pk
    try:
        codes, owners = sequences.concatenated((player, banker) for _, player, banker, *_ in coups)
    except (ValueError, game.InvalidCard):
        logger.warning("shoe %s: cards that name no card; its sequence is not indexed", shoe_id)
        return 0
    coup_of = [coups[index] for index in owners]
    shingles = sequences.shingles(codes)
    _index(shoe, shingles, coup_of)

    findings = 0
    first_day = coups[0][3] - dt.timedelta(days=settings.PIT_PROTECTION_REPEAT_DAYS)
    last_day = coups[-1][3] + dt.timedelta(days=settings.PIT_PROTECTION_REPEAT_DAYS)
    position_of = {}
    for position, digest in shingles:
        position_of.setdefault(digest, position)
    matches = (
        CardShingle.objects.filter(digest__in=list(position_of), gaming_day__gte=first_day, gaming_day__lte=last_day)
        .exclude(shoe_id=shoe_id)
        .order_by("shoe_id", "position")
        .values_list("shoe_id", "position", "digest", "coup_id")
    )
    first_match: dict[int, tuple[int, int, int]] = {}
    for other_id, other_position, digest, other_coup_id in matches:
        first_match.setdefault(other_id, (position_of[digest], other_position, other_coup_id))
    others = Shoe.objects.select_related("table").in_bulk(list(first_match))
    for other_id, (position, other_position, other_coup_id) in first_match.items():
        other = others[other_id]
        # Charged to the later shoe, at the coup that completed its first repeated shingle.
        if shoe_id > other_id:
            later, earlier, at, earlier_at = shoe, other, position, other_position
            coup_id = coup_of[position + SHINGLE_LENGTH - 1][0]
        else:
            later, earlier, at, earlier_at = other, shoe, other_position, position
            coup_id = other_coup_id
        coup = Coup.objects.get(pk=coup_id)
        finding = sequences.sequence_repeat(
            SHINGLE_LENGTH,
            at + 1,
            f"table {earlier.table.code} shoe {earlier.sequence} (from its card {earlier_at + 1})",
        )
        violation_record(
            finding=finding,
            fingerprint=f"shoe_sequence_repeat:shoe{later.pk}:shoe{earlier.pk}",
            table=later.table,
            shoe=later,
            coup=coup,
            gaming_day=coup.gaming_day,
            found_by=PROTECTION_CHECK,
        )
        findings += 1

    for run in sequences.new_deck_runs(codes):
        coup = Coup.objects.get(pk=coup_of[run.start + NEW_DECK_RUN_LENGTH - 1][0])
        violation_record(
            finding=sequences.new_deck_order_run(run),
            fingerprint=f"new_deck_order_run:shoe{shoe_id}:card{run.start}",
            table=shoe.table,
            shoe=shoe,
            coup=coup,
            gaming_day=coup.gaming_day,
            found_by=PROTECTION_CHECK,
        )
        findings += 1
    return findings


def _side_bet_expectations(shoe: Shoe, coups: list[tuple]) -> None:
    """Store, for each coup that has none yet, every side bet's exact expectation from the cards seen
    before it (the burn and the earlier coups, in number order)."""
    stored = set(SideBetExpectation.objects.filter(coup__shoe=shoe).values_list("coup_id", flat=True).distinct())
    if all(row[0] in stored for row in coups):
        return
    paytables = {
        pk: engine_paytable(rules)
        for pk, rules in PaytableConfiguration.objects.filter(pk__in={row[5] for row in coups}).values_list(
            "pk", "rules"
        )
    }
    seen = Counter(shoe.burn_cards or ())
    new = []
    for pk, player, banker, *_, paytable_id in coups:
        if pk not in stored:
            try:
                expectations = counting.side_bet_expectations(paytables[paytable_id], shoe.decks, seen)
            except (ValueError, game.InvalidCard):
                break  # cards the shoe cannot hold, or too few left: nothing after can be counted
            new.extend(
                SideBetExpectation(
                    coup_id=pk, bet=bet, expectation=game.fraction_to_decimal(value, 12), positive=value > 0
                )
                for bet, value in expectations.items()
            )
        seen.update([*player, *banker])
    SideBetExpectation.objects.bulk_create(new, ignore_conflicts=True, batch_size=1000)


def _advantage_play(table: Table, day: dt.date) -> int:
    """Test every seat of the table that bet side bets on the gaming day (when a coup of the day had
    a positive side bet at all: otherwise no bet can have landed on one)."""
    day_coups = SideBetExpectation.objects.filter(coup__shoe__table_id=table.pk, coup__gaming_day=day)
    if not day_coups.filter(positive=True).exists():
        return 0
    threshold = settings.PIT_PROTECTION_SIDE_BET_P_VALUE
    findings = 0
    worth = {
        (coup_id, bet): (positive, expectation)
        for coup_id, bet, positive, expectation in day_coups.values_list("coup_id", "bet", "positive", "expectation")
    }
    opportunities, positives = Counter(), Counter()
    for (_, bet), (positive, _) in worth.items():
        opportunities[bet] += 1
        positives[bet] += positive
    chance = {bet: positives[bet] / opportunities[bet] for bet in opportunities}
    by_seat: dict[int, list[tuple]] = defaultdict(list)
    for row in (
        Wager.objects.filter(coup__shoe__table_id=table.pk, coup__gaming_day=day, bet__in=list(chance))
        .order_by("coup__dealt_at", "coup_id", "pk")
        .values_list("seat", "coup_id", "bet", "amount_minor", "currency", "coup__number", "coup__shoe__sequence")
    ):
        if (row[1], row[2]) in worth:
            by_seat[row[0]].append(row)
    for seat, wagers in sorted(by_seat.items()):
        hits = [row for row in wagers if worth[row[1], row[2]][0]]
        if len(hits) < SIDE_BET_MIN_HITS:
            continue
        chances = [chance[row[2]] for row in wagers]
        p_value = counting.tail_probability(chances, len(hits))
        if p_value >= threshold:
            continue
        evidence = "; ".join(
            f"shoe {sequence} coup {number} {bet} {worth[coup_id, bet][1]:+.4f} a unit, staked "
            f"{from_minor(amount, currency)}"
            for _, coup_id, bet, amount, currency, number, sequence in hits[:EVIDENCE_SHOWN]
        ) + ("" if len(hits) <= EVIDENCE_SHOWN else f"; and {len(hits) - EVIDENCE_SHOWN} more")
        finding = counting.advantage_play(seat, len(hits), len(wagers), sum(chances), p_value, evidence)
        first = Coup.objects.select_related("shoe__table").get(pk=hits[0][1])
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


def _win_deviations(table: Table, shoe: Shoe | None, day: dt.date, *, weekly: bool = False) -> int:
    """With a shoe, the shoe's scope; without, the table's gaming day (and with `weekly` the 7
    gaming days ending on it: a week of wagers, read by the nightly sweep, not after every coup)."""
    scopes = []
    if shoe is not None:
        scopes.append(
            (
                f"Shoe {shoe.sequence} at table {table.code}",
                f"shoe{shoe.pk}",
                settings.PIT_PROTECTION_Z_SHOE,
                Wager.objects.filter(coup__shoe=shoe),
                day,
            )
        )
    else:
        at_table = Wager.objects.filter(coup__shoe__table_id=table.pk)
        scopes.append(
            (
                f"Table {table.code} on gaming day {day}",
                f"day{day}",
                settings.PIT_PROTECTION_Z_DAY,
                at_table.filter(coup__gaming_day=day),
                day,
            )
        )
        if weekly:
            first = day - dt.timedelta(days=6)
            scopes.append(
                (
                    f"Table {table.code} over gaming days {first} to {day}",
                    f"week{day}",
                    settings.PIT_PROTECTION_Z_WEEK,
                    at_table.filter(coup__gaming_day__gte=first, coup__gaming_day__lte=day),
                    day,
                )
            )
    edges: dict[int, dict[str, tuple[Decimal, Decimal]]] = {}
    scale = Decimal(1).scaleb(-exponent(table.currency))
    findings = 0
    for title, key, threshold, wagers, day in scopes:
        # Per table (None) and per seat: house win, theoretical win, variance (minor units), wagers.
        # Wagers on one coup are not independent (seats on the same side win together; Player and
        # Banker bets move against each other): a coup's standard deviation is bounded by the sum of
        # its wagers' (stake x the bet's standard deviation per unit), and coups are independent.
        totals: dict[int | None, list] = defaultdict(lambda: [0, Decimal(0), Decimal(0), 0])
        per_coup: dict[int | None, Decimal] = defaultdict(Decimal)
        last_coup = None
        for coup_id, seat, bet, paytable_id, amount, payout, commission, result in (
            wagers.order_by("coup_id")
            .values_list(
                "coup_id",
                "seat",
                "bet",
                "coup__paytable_id",
                "amount_minor",
                "payout_minor",
                "commission_minor",
                "result",
            )
            .iterator(chunk_size=5000)
        ):
            if coup_id != last_coup:
                for who, spread in per_coup.items():
                    totals[who][2] += spread * spread
                per_coup.clear()
                last_coup = coup_id
            if paytable_id not in edges:
                house = PaytableConfiguration.objects.values_list("house_edges", flat=True).get(pk=paytable_id)
                edges[paytable_id] = {
                    name: (Decimal(figures["house_edge"]), _sqrt(Decimal(figures["variance"])))
                    for name, figures in house.items()
                }
            edge, unit_deviation = edges[paytable_id].get(bet, (Decimal(0), Decimal(0)))
            win = (amount if result == WagerResult.LOSE else 0) - payout + commission
            for who in (None, seat):
                sums = totals[who]
                sums[0] += win
                sums[1] += amount * edge
                sums[3] += 1
                per_coup[who] += amount * unit_deviation
        for who, spread in per_coup.items():
            totals[who][2] += spread * spread
        for who, (win, theoretical, variance, count) in sorted(totals.items(), key=lambda i: (i[0] is not None, i[0])):
            if count < settings.PIT_PROTECTION_Z_MIN_WAGERS or variance <= 0:
                continue
            deviation = _sqrt(variance)
            z = (Decimal(win) - theoretical) / deviation
            if abs(z) <= Decimal(str(threshold)):
                continue
            finding = counting.win_deviation(
                title if who is None else f"{title}, seat {who}",
                float(z),
                str(from_minor(win, table.currency)),
                str((theoretical * scale).quantize(scale)),
                str((deviation * scale).quantize(scale)),
                count,
            )
            violation_record(
                finding=finding,
                fingerprint=f"win_deviation:table{table.pk}:{key}" + ("" if who is None else f":seat{who}"),
                table=table,
                shoe=shoe if key.startswith("shoe") else None,
                seat=who,
                gaming_day=day,
                found_by=PROTECTION_CHECK,
            )
            findings += 1
    return findings


def _sqrt(value: Decimal) -> Decimal:
    with localcontext() as context:
        context.prec = 34
        return value.sqrt()


def _coup_rate(shoe: Shoe, coups: list[tuple]) -> int:
    maximum = settings.PIT_PROTECTION_MAX_COUPS_PER_HOUR
    hour = dt.timedelta(hours=1)
    dealt = [row[4] for row in coups]
    table_coups = list(
        Coup.objects.filter(shoe__table_id=shoe.table_id, dealt_at__gt=min(dealt) - hour, dealt_at__lte=max(dealt))
        .order_by("dealt_at", "pk")
        .values_list("pk", "dealt_at")
    )
    if len(table_coups) <= maximum:
        return 0
    own = {row[0] for row in coups}
    hours_found: set[str] = set()
    start = 0
    for index, (pk, dealt_at) in enumerate(table_coups):
        while table_coups[start][1] <= dealt_at - hour:
            start += 1
        count = index - start + 1
        clock_hour = dealt_at.astimezone(dt.UTC).strftime("%Y-%m-%dT%H")
        if count <= maximum or pk not in own or clock_hour in hours_found:
            continue
        hours_found.add(clock_hour)
        coup = Coup.objects.get(pk=pk)
        violation_record(
            finding=sequences.coup_rate_high(count, maximum),
            fingerprint=f"coup_rate_high:table{shoe.table_id}:{clock_hour}",
            table=shoe.table,
            shoe=shoe,
            coup=coup,
            gaming_day=coup.gaming_day,
            found_by=PROTECTION_CHECK,
        )
    return len(hours_found)


def _index(shoe: Shoe, shingles: list[tuple[int, int]], coup_of: list[tuple]) -> None:
    """Bring the shoe's shingles in the index up to date: new positions added, positions whose
    cards changed (a coup corrected or posted late) rewritten, positions past the end removed."""
    stored = dict(CardShingle.objects.filter(shoe=shoe).values_list("position", "digest"))
    wanted = dict(shingles)
    changed = [position for position, digest in stored.items() if wanted.get(position) != digest]
    if changed:
        CardShingle.objects.filter(shoe=shoe, position__in=changed).delete()
    CardShingle.objects.bulk_create(
        [
            CardShingle(
                shoe=shoe,
                table_id=shoe.table_id,
                position=position,
                digest=digest,
                gaming_day=coup_of[position][3],
                coup_id=coup_of[position + SHINGLE_LENGTH - 1][0],
            )
            for position, digest in shingles
            if stored.get(position) != digest
        ],
        batch_size=1000,
    )
