"""What a gaming day's cash shows, as findings: the CTR worksheets and identification requests the
thresholds call for, and the suspicious patterns (docs/design/cash.md states each rule):

- structuring: `structuring_count` or more transactions of one direction each "just under" a
  threshold (from `structuring_band` of the MTL or CTR threshold up to it, not over) by one patron
  within `structuring_days` consecutive gaming days; or buy-ins just under the CTR threshold by
  `structuring_count` or more persons at one table within `structuring_table_minutes`, together over it;
- minimal gaming: a finished session whose cash buy-ins reach `pattern_floor` and whose recorded
  handle is under `minimal_gaming_share` of them;
- chip walking: a finished session whose chips in (every buy-in) plus its net result at the seat
  minus the chips recorded as walked leaves `pattern_floor` or more unaccounted for;
- cash out for another: chip redemptions by a patron, in one gaming day, more than the chips the
  patron walked from the tables that day and the day before by `pattern_floor` or more.

Reversed transactions and reversals take no part in a pattern (what was reversed did not happen).
"""

import datetime as dt
import hashlib
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Q

from pit.cash.models import CashRules, CashTransaction, FindingKind
from pit.cash.selectors import PatronDay, aggregate, day_rows, exact_text, rate_for
from pit.core.money import exponent
from pit.players import selectors as seats
from pit.players.models import BuyIn, ChipsWalked, SeatSession, SessionEvent, SessionIdentification
from pit.shoes.models import WagerResult


@dataclass
class Found:
    kind: str
    fingerprint: str
    patron_id: int | None = None
    description: str = ""
    table_id: int | None = None
    cash_in: Decimal = Decimal(0)
    cash_out: Decimal = Decimal(0)
    evidence: dict = field(default_factory=dict)


def _amount(minor: int, currency: str, rate: str) -> Decimal:
    return Decimal(minor).scaleb(-exponent(currency)) * Decimal(rate)


def _person(description: str) -> str:
    return hashlib.sha256(description.encode()).hexdigest()[:16]


def deadline(day: dt.date, kind: str, rules: CashRules) -> dt.date:
    """The filing deadline of a finding of `day`: the CTR's for worksheets and identification, the
    SAR's for patterns; counted in business days where the rules say so."""
    days = rules.ctr_deadline_days if kind in (FindingKind.CTR, FindingKind.IDENTIFY) else rules.sar_deadline_days
    if not rules.business_days:
        return day + dt.timedelta(days=days)
    moment, left = day, days
    while left:
        moment += dt.timedelta(days=1)
        if moment.weekday() < 5:
            left -= 1
    return moment


class Rates:
    """The reporting rates of the tables' currencies (minor units to reporting units) on the gaming
    days read, each looked up once: a day's check reads thousands of sessions in a few currencies."""

    def __init__(self, reporting_currency: str) -> None:
        self.reporting_currency = reporting_currency
        self.known: dict[tuple[dt.date, str], Decimal | None] = {}

    def __call__(self, session: SeatSession, cash: list[CashTransaction]) -> Decimal | None:
        """The rate of the session's table's currency, from the session's own cash transactions
        where it has them (those converted into the reporting currency: the reporting currency's
        own rate is 1), else the latest recorded by its day; None where no rate is recorded (chips
        only, in a currency without a rate: nothing to compare it with)."""
        currency = session.table.currency
        for item in cash:
            if self.own(item, currency):
                return Decimal(item.rate).scaleb(-exponent(currency))
        return self.of(session.gaming_day, currency)

    def own(self, item: CashTransaction, currency: str) -> bool:
        """Whether the rate kept on cash transaction `item` is the rate of `currency` into the
        reporting currency."""
        return (
            item.currency == currency != self.reporting_currency and item.reporting_currency == self.reporting_currency
        )

    def of(self, day: dt.date, currency: str) -> Decimal | None:
        if (day, currency) not in self.known:
            rate = rate_for(day, currency, self.reporting_currency)
            self.known[day, currency] = None if rate is None else Decimal(rate).scaleb(-exponent(currency))
        return self.known[day, currency]


def findings_of_day(*, day: dt.date, rules: CashRules) -> list[Found]:
    rows = day_rows(day)
    people = aggregate(rows)
    found = _thresholds(day, people, rules)
    standing = _standing(rows)
    rates = Rates(rules.reporting_currency)
    found += _structuring_by_patron(day, standing, rules)
    found += _structuring_at_table(day, standing, rules)
    found += _sessions(day, rules, rates)
    found += _cash_out_for_other(day, standing, rules, rates)
    return found


def _thresholds(day: dt.date, people: dict[tuple, PatronDay], rules: CashRules) -> list[Found]:
    return [
        threshold_found(day, person.patron_id, person.description, person.cash_in, person.cash_out, person.transactions)
        for person in people.values()
        if person.cash_in > rules.ctr_threshold or person.cash_out > rules.ctr_threshold
    ]


def threshold_found(
    day: dt.date, patron_id: int | None, description: str, cash_in: Decimal, cash_out: Decimal, ids
) -> Found:
    """The CTR worksheet (a patron) or identification request (a description) of a person over the
    CTR threshold."""
    if patron_id is not None:
        kind, fingerprint = FindingKind.CTR, f"ctr:{patron_id}:{day}"
    else:
        kind, fingerprint = FindingKind.IDENTIFY, f"identify:{day}:{_person(description)}"
    return Found(
        kind=kind,
        fingerprint=fingerprint,
        patron_id=patron_id,
        description=description,
        cash_in=cash_in,
        cash_out=cash_out,
        evidence={"transactions": sorted(ids)},
    )


def _standing(rows: list[dict]) -> list[dict]:
    """The day's transactions that stand: neither a reversal nor reversed."""
    reversed_ids = {row["reverses_id"] for row in rows if row["reverses_id"] is not None}
    return [row for row in rows if row["reverses_id"] is None and row["id"] not in reversed_ids]


def _just_under(amount: Decimal, rules: CashRules) -> str | None:
    for name, limit in (("ctr", rules.ctr_threshold), ("mtl", rules.mtl_threshold)):
        if limit > 0 and limit * rules.structuring_band <= amount <= limit:
            return name
    return None


def _structuring_by_patron(day: dt.date, standing: list[dict], rules: CashRules) -> list[Found]:
    first = day - dt.timedelta(days=rules.structuring_days - 1)
    patrons = {row["patron_id"] for row in standing if row["patron_id"] is not None}
    earlier = CashTransaction.objects.filter(
        gaming_day__gte=first,
        gaming_day__lt=day,
        patron_id__in=patrons,
        reverses__isnull=True,
        reversed_by__isnull=True,
    ).values("id", "patron_id", "direction", "currency", "amount_minor", "rate")
    groups: dict[tuple, list[tuple[int, Decimal, bool]]] = defaultdict(list)
    for row, today in [(row, False) for row in earlier] + [(row, True) for row in standing]:
        if row["patron_id"] is None:
            continue
        amount = _amount(row["amount_minor"], row["currency"], row["rate"])
        threshold = _just_under(amount, rules)
        if threshold is not None:
            groups[(row["patron_id"], row["direction"], threshold)].append((row["id"], amount, today))
    found = []
    for (patron_id, direction, threshold), items in sorted(groups.items()):
        total = sum((amount for _, amount, _ in items), Decimal(0))
        if len(items) < rules.structuring_count or not any(today for *_, today in items):
            continue
        if total < rules.sar_threshold:
            continue
        found.append(
            structuring_found(day, patron_id, direction, threshold, [item_id for item_id, *_ in items], total, rules)
        )
    return found


def structuring_found(
    day: dt.date, patron_id: int, direction: str, threshold: str, ids: list[int], total: Decimal, rules: CashRules
) -> Found:
    """A patron's structuring: `ids`, each just under `threshold` ("ctr" or "mtl"), `total` together."""
    return Found(
        kind=FindingKind.STRUCTURING,
        fingerprint=f"structuring:{patron_id}:{day}:{direction}:{threshold}",
        patron_id=patron_id,
        cash_in=total if direction == "in" else Decimal(0),
        cash_out=total if direction == "out" else Decimal(0),
        evidence={
            "transactions": sorted(ids),
            "rule": f"{len(ids)} {direction} transactions just under the {threshold.upper()} threshold "
            f"within {rules.structuring_days} gaming days",
        },
    )


def _structuring_at_table(day: dt.date, standing: list[dict], rules: CashRules) -> list[Found]:
    by_table: dict[int, list[tuple[dict, Decimal]]] = defaultdict(list)
    for row in standing:
        if row["table_id"] is None or row["direction"] != "in":
            continue
        amount = _amount(row["amount_minor"], row["currency"], row["rate"])
        if _just_under(amount, rules) == "ctr":
            by_table[row["table_id"]].append((row, amount))
    return at_table_found(day, by_table, rules)


def at_table_found(day: dt.date, by_table: dict[int, list[tuple[dict, Decimal]]], rules: CashRules) -> list[Found]:
    """Structuring at a table, from each table's buy-ins just under the CTR threshold (rows with
    `id`, `at`, `patron_id` and `description`, oldest first, each with its amount): from each one
    not yet taken, those within the window by enough persons, together over the threshold."""
    window = dt.timedelta(minutes=rules.structuring_table_minutes)
    found: list = []
    used: set[int] = set()
    for table_id, items in sorted(by_table.items()):
        for index, (start, _) in enumerate(items):
            if start["id"] in used:
                continue
            group = [(row, amount) for row, amount in items[index:] if row["at"] - start["at"] <= window]
            persons = {row["patron_id"] or row["description"] for row, _ in group}
            total = sum((amount for _, amount in group), Decimal(0))
            if len(persons) < rules.structuring_count or total <= rules.ctr_threshold:
                continue
            used.update(row["id"] for row, _ in group)
            together = f"{len(persons)} persons at one table"  # a record's words, the same in every language
            found.append(
                Found(
                    kind=FindingKind.STRUCTURING,
                    fingerprint=f"structuring-table:{table_id}:{day}:{start['id']}",
                    table_id=table_id,
                    description=together,
                    cash_in=total,
                    evidence={
                        "transactions": sorted(row["id"] for row, _ in group),
                        "rule": f"{len(group)} buy-ins just under the CTR threshold by {len(persons)} persons "
                        f"within {rules.structuring_table_minutes} minutes, together over it",
                    },
                )
            )
    return found


def _net_minor(wager) -> int:
    """The player's result of one settled wager at the seat, commission owed included."""
    if wager.result == WagerResult.WIN:
        return wager.payout_minor - wager.commission_minor
    if wager.result == WagerResult.LOSE:
        return -wager.amount_minor
    return -wager.commission_minor


def _of_note(day: dt.date, rules: CashRules, rates: Rates) -> list[int]:
    """The day's finished sessions whose buy-ins reach the pattern floor, from plain rows (the rest,
    most of a day's sessions, need no more reading): the rate of a session's own cash where it has
    it, else the day's rate of its currency, as `Rates` reads it."""
    finished = SessionEvent.objects.filter(kind="stand", session__gaming_day=day).values("session_id")
    net: dict[int, int] = defaultdict(int)
    currency_of: dict[int, str] = {}
    for session_id, currency, minor, reverses_id in BuyIn.objects.filter(session_id__in=finished).values_list(
        "session_id", "currency", "amount_minor", "reverses_id"
    ):
        net[session_id] += -minor if reverses_id else minor
        currency_of[session_id] = currency
    own: dict[int, str] = {}
    for item in CashTransaction.objects.filter(session_id__in=finished, direction="in").only(
        "session_id", "currency", "reporting_currency", "rate"
    ):
        if rates.own(item, currency_of.get(item.session_id, "")):
            own.setdefault(item.session_id, item.rate)
    noted = []
    for session_id, minor in net.items():
        currency = currency_of[session_id]
        rate = Decimal(own[session_id]).scaleb(-exponent(currency)) if session_id in own else rates.of(day, currency)
        if rate is not None and minor * rate >= rules.pattern_floor:
            noted.append(session_id)
    return sorted(noted)


def _sessions(day: dt.date, rules: CashRules, rates: Rates) -> list[Found]:
    """Minimal gaming and chip walking, over the day's finished sessions with buy-ins of note."""
    finished = _of_note(day, rules, rates)
    buy_ins: dict[int, list[BuyIn]] = defaultdict(list)
    for buy_in in BuyIn.objects.filter(session_id__in=finished).select_related("reverses"):
        buy_ins[buy_in.session_id].append(buy_in)
    walked: dict[int, list[ChipsWalked]] = defaultdict(list)
    for walk in ChipsWalked.objects.filter(session_id__in=finished):
        walked[walk.session_id].append(walk)
    cash: dict[int, list[CashTransaction]] = defaultdict(list)
    for item in CashTransaction.objects.filter(session_id__in=finished, direction="in"):
        cash[item.session_id].append(item)
    identified = dict(
        SessionIdentification.objects.filter(session_id__in=finished).values_list("session_id", "patron_id")
    )
    found = []
    noted = list(SeatSession.objects.filter(pk__in=buy_ins).select_related("table"))
    wagers_of = seats.sessions_wagers(noted)
    for session in noted:
        rate = rates(session, cash[session.pk])
        if rate is None:
            continue
        cash_in = sum(
            (item.reporting_amount * (-1 if item.reverses_id else 1) for item in cash[session.pk]), Decimal(0)
        )
        found += session_found(
            SessionFigures(
                session_id=session.pk,
                table_id=session.table_id,
                currency=session.table.currency,
                rate=rate,
                chips_in=_net(buy_ins[session.pk]),
                wagers=[(w.pk, w.amount_minor, _net_minor(w)) for w in wagers_of[session.pk]],
                walked=_net(walked[session.pk]),
                patron_id=session.patron_id or identified.get(session.pk),
                description=session.description,
                transactions=[item.pk for item in cash[session.pk]],
                cash_in=cash_in,
            ),
            rules,
        )
    return found


@dataclass
class SessionFigures:
    """What minimal gaming and chip walking judge of a finished session: its chips in (every buy-in)
    and walked, in minor units of its table's `currency`; `rate` (minor units to reporting units);
    its standing wagers as (id, stake, the player's result) in minor units; its cash in, reporting
    currency, from its cash transactions `transactions`."""

    session_id: int
    table_id: int
    currency: str
    rate: Decimal
    chips_in: int
    wagers: list[tuple[int, int, int]]
    walked: int
    patron_id: int | None
    description: str
    transactions: list[int]
    cash_in: Decimal


def session_found(figures: SessionFigures, rules: CashRules) -> list[Found]:
    """A session's minimal gaming and chip walking, if any."""
    rate, currency = figures.rate, figures.currency
    if figures.chips_in * rate < rules.pattern_floor:
        return []
    handle = sum((stake for _, stake, _ in figures.wagers), 0)
    result = sum((net for *_, net in figures.wagers), 0)
    evidence = {
        "sessions": [figures.session_id],
        "transactions": sorted(figures.transactions),
        "wagers": sorted(pk for pk, *_ in figures.wagers),
    }
    cash_in = figures.cash_in
    found = []
    if cash_in >= rules.pattern_floor and Decimal(handle) * rate < cash_in * rules.minimal_gaming_share:
        found.append(
            Found(
                kind=FindingKind.MINIMAL_GAMING,
                fingerprint=f"minimal_gaming:{figures.session_id}",
                table_id=figures.table_id,
                cash_in=cash_in,
                evidence={**evidence, "handle": str(_money(handle, currency))},
                patron_id=figures.patron_id,
                description=figures.description,
            )
        )
    unaccounted = (figures.chips_in + result - figures.walked) * rate
    if unaccounted >= rules.pattern_floor:
        found.append(
            Found(
                kind=FindingKind.CHIP_WALKING,
                fingerprint=f"chip_walking:{figures.session_id}",
                table_id=figures.table_id,
                cash_in=cash_in,
                evidence={
                    **evidence,
                    "chips_in": str(_money(figures.chips_in, currency)),
                    "result": str(_money(result, currency)),
                    "walked": str(_money(figures.walked, currency)),
                    "unaccounted": exact_text(unaccounted),
                },
                patron_id=figures.patron_id,
                description=figures.description,
            )
        )
    return found


def _money(minor: int, currency: str) -> Decimal:
    return Decimal(minor).scaleb(-exponent(currency))


def _net(records) -> int:
    """Minor units of a session's buy-ins or walks, reversals taken back."""
    return sum((-r.amount_minor if r.reverses_id else r.amount_minor) for r in records)


def _cash_out_for_other(day: dt.date, standing: list[dict], rules: CashRules, rates: Rates) -> list[Found]:
    redeemed: dict[int, list[dict]] = defaultdict(list)
    for row in standing:
        if row["kind"] == "chip_redemption" and row["patron_id"] is not None:
            redeemed[row["patron_id"]].append(row)
    totals = {
        patron_id: sum((_amount(r["amount_minor"], r["currency"], r["rate"]) for r in items), Decimal(0))
        for patron_id, items in redeemed.items()
    }
    candidates = sorted(patron_id for patron_id, total in totals.items() if total >= rules.pattern_floor)
    # The candidates' sessions of the day and the day before, and their walks, in two reads.
    sessions_of: dict[int, list[SeatSession]] = defaultdict(list)
    for chunk in range(0, len(candidates), 5000):
        ids = candidates[chunk : chunk + 5000]
        sessions = (
            SeatSession.objects.filter(
                Q(patron_id__in=ids) | Q(identification__patron_id__in=ids),
                gaming_day__gte=day - dt.timedelta(days=1),
                gaming_day__lte=day,
            )
            .select_related("table", "identification")
            .prefetch_related("chips_walked")
        )
        for session in sessions:
            owner = session.patron_id or session.identification.patron_id
            sessions_of[owner].append(session)
    found = []
    for patron_id in candidates:
        items, total, mine = redeemed[patron_id], totals[patron_id], sessions_of[patron_id]
        walked = Decimal(0)
        for session in mine:
            rate = rates(session, []) or Decimal(0)
            walked += _net(list(session.chips_walked.all())) * rate
        cash_out = cash_out_found(day, patron_id, [r["id"] for r in items], total, [s.pk for s in mine], walked, rules)
        if cash_out is not None:
            found.append(cash_out)
    return found


def cash_out_found(
    day: dt.date,
    patron_id: int,
    ids: list[int],
    total: Decimal,
    sessions: list[int],
    walked: Decimal,
    rules: CashRules,
) -> Found | None:
    """A patron's chip redemptions `ids` (`total`) against the chips walked from their `sessions` of
    the day and the day before (`walked`, reporting currency): a cash out for another, or None."""
    if total - walked < rules.pattern_floor:
        return None
    return Found(
        kind=FindingKind.CASH_OUT_FOR_OTHER,
        fingerprint=f"cash_out_for_other:{patron_id}:{day}",
        patron_id=patron_id,
        cash_out=total,
        evidence={"transactions": sorted(ids), "sessions": sorted(sessions), "walked": exact_text(walked)},
    )
