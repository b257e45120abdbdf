"""Daily rollups equal the standing detail after random posts, late coups, corrections, voids and
reversals (seeded, exact integers), and table results and the master game report read the same
figures with and without them, whichever days are rolled up, owed or live."""

import datetime as dt
import random
from collections import defaultdict
from decimal import Decimal

import pytest
from django.test import override_settings

from pit import game
from pit.core.gaming_day import current_gaming_day
from pit.core.models import OutboxMessage
from pit.core.money import from_minor, settlement_unit, to_minor
from pit.core.queues import REFRESH_TASK
from pit.ledger.models import CommissionEntry, EntryKind
from pit.ledger.services import commission_entry_reverse
from pit.reports.accounting import MASTER_GAME
from pit.reports.catalog import TABLE_RESULTS
from pit.reports.definitions import ReportFilters
from pit.rollups.models import BetRollup, RolledUpDay, TableDayRollup
from pit.rollups.selectors import rolled_up_days
from pit.rollups.services import _complete, rollups_catch_up, rollups_rebuild, rollups_shoe_refresh
from pit.shoes.models import Coup, Shoe, ShoeStatus, Wager
from pit.shoes.selectors import wagers_standing
from pit.shoes.services import CoupInput, WagerInput, coup_correct, coup_record, coup_void, shoe_close, shoe_start
from tests import factories

TODAY = current_gaming_day()
DAYS = [TODAY - dt.timedelta(days=offset) for offset in (5, 4, 3, 2)]
BETS = {"player": (25, 2000), "banker": (25, 2000), "tie": (5, 200), "player_pair": (5, 200), "banker_pair": (5, 200)}
YEN_LIMITS = {"player": ("100", "1000000"), "banker": ("100", "1000000"), "tie": ("100", "100000")}


def at(day: dt.date, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour, minute), tzinfo=dt.UTC)


def random_wagers(rng: random.Random, currency: str) -> tuple[WagerInput, ...]:
    scale = 100 if currency == "JPY" else 1
    wagers = {}
    for seat in rng.sample([1, 2, 3, 5, 6, 7], rng.randint(1, 4)):
        for bet in rng.sample(sorted(BETS), rng.randint(1, 2)):
            low, high = BETS[bet]
            amount = Decimal(rng.randrange(low, high + 1, 5 if low == 5 else 25) * scale)
            paid = Decimal(rng.choice([0, 10, 50])) if rng.random() < 0.1 else None
            wagers[seat, bet] = WagerInput(seat=seat, bet=bet, amount=amount, paid=paid)
    return tuple(wagers.values())


def deal(rng, shoe, cards, number: int, when: dt.datetime):
    dealt = game.deal_coup(cards.draw)
    coup = CoupInput(
        number=number,
        player=[card.code for card in dealt.player],
        banker=[card.code for card in dealt.banker],
        dealt_at=when,
        wagers=random_wagers(rng, shoe.table.currency),
    )
    return coup_record(shoe=shoe, coup=coup).coup


def build_pit(rng: random.Random):
    tables = [
        factories.table("A1", preset="commission_box"),
        factories.table("B1", game="mini", preset="commission_deducted"),
        factories.table("C1", preset="commission_box", currency="JPY", limits=YEN_LIMITS),
    ]
    for day in DAYS:
        for table in tables:
            if rng.random() < 0.15:
                continue  # a table that did not play that day
            decks = rng.choice([6, 8])
            shoe = factories.shoe(table, decks=decks, cut_card_position=250, shuffled_at=at(day, 9))
            cards = game.new_shoe(decks, rng)
            for number in range(1, rng.randint(3, 9)):
                deal(rng, shoe, cards, number, at(day, 10, number))
            shoe_close(shoe=shoe, closed_at=at(day, 12), box_counts=[])
    return tables


def expected_rollups() -> dict:
    """The detail, summed in Python from the standing wagers and the ledger: per table-day its coups
    and reversals, per (table-day, paytable, decks, bet) every sum a rollup keeps."""
    days, bets = {}, defaultdict(lambda: defaultdict(int))
    for coup in Coup.objects.select_related("shoe"):
        key = (coup.shoe.table_id, coup.gaming_day)
        days.setdefault(key, {"coups": 0, "reversed": 0})["coups"] += 1
    standing = wagers_standing().select_related("coup__shoe", "coup__paytable")
    for wager in standing:
        coup = wager.coup
        sums = bets[coup.shoe.table_id, coup.gaming_day, coup.paytable_id, coup.shoe.decks, wager.bet]
        paid = wager.payout_minor if wager.paid_minor is None else wager.paid_minor
        sums["wagers"] += 1
        sums["handle"] += wager.amount_minor
        sums["payouts"] += wager.payout_minor
        sums["commission"] += wager.commission_minor
        sums["lost"] += wager.amount_minor if wager.result == "lose" else 0
        sums["paid"] += paid
        sums["overpaid"] += max(paid - wager.payout_minor, 0)
        sums["underpaid"] += max(wager.payout_minor - paid, 0)
        sums["squares"] += wager.amount_minor**2
        if coup.paytable.rules["commission_mode"] == "deducted" and wager.result == "win":
            evaluation = game.evaluate(game.Coup(player=coup.player_cards, banker=coup.banker_cards))
            settled = game.settle(
                game.Paytable.from_dict(coup.paytable.rules),
                wager.bet,
                from_minor(wager.amount_minor, wager.currency),
                evaluation,
                unit=settlement_unit(wager.currency),
            )
            sums["deducted"] += to_minor(settled.deducted, wager.currency)
    standing_ids = set(standing.values_list("pk", flat=True))
    reversals = CommissionEntry.objects.filter(kind=EntryKind.REVERSAL, reverses__kind=EntryKind.ACCRUED)
    for entry in reversals.select_related("reverses__wager__coup__shoe"):
        if entry.reverses.wager_id in standing_ids:
            coup = entry.reverses.wager.coup
            days[coup.shoe.table_id, coup.gaming_day]["reversed"] += entry.amount_minor
    return {"days": days, "bets": {key: dict(value) for key, value in bets.items()}}


def stored_rollups(days) -> dict:
    stored_days = {
        (rollup.table_id, rollup.gaming_day): {"coups": rollup.coups, "reversed": rollup.reversed_minor}
        for rollup in TableDayRollup.objects.filter(gaming_day__in=days)
    }
    stored_bets = {}
    for bet in BetRollup.objects.filter(table_day__gaming_day__in=days).select_related("table_day"):
        key = (bet.table_day.table_id, bet.table_day.gaming_day, bet.paytable_id, bet.decks, bet.bet)
        stored_bets[key] = {
            "wagers": bet.wagers,
            "handle": bet.handle_minor,
            "payouts": bet.payouts_minor,
            "commission": bet.commission_minor,
            "lost": bet.lost_minor,
            "paid": bet.paid_minor,
            "overpaid": bet.overpaid_minor,
            "underpaid": bet.underpaid_minor,
            "squares": int(bet.squares),
            "deducted": bet.deducted_minor,
        }
    return {"days": stored_days, "bets": stored_bets}


def assert_rollups_equal_detail():
    expected = expected_rollups()
    for sums in expected["bets"].values():
        sums.setdefault("deducted", 0)
        sums.setdefault("lost", 0)
    assert stored_rollups(DAYS) == {
        "days": {key: value for key, value in expected["days"].items() if key[1] in DAYS},
        "bets": {key: value for key, value in expected["bets"].items() if key[1] in DAYS},
    }


def report(definition, date_from=DAYS[0], date_to=TODAY, **filters):
    return list(definition.rows(ReportFilters(date_from=date_from, date_to=date_to, **filters)))


def assert_reports_read_the_detail():
    """Table results and the master game report, whole range and narrowed, with rollups and without."""
    for definition, filters in (
        (TABLE_RESULTS, {}),
        (TABLE_RESULTS, {"tables": ("B1", "C1")}),
        (TABLE_RESULTS, {"game": "mini", "date_from": DAYS[1]}),
        (MASTER_GAME, {}),
    ):
        with override_settings(PIT_ROLLUPS_READ=False):
            detail = report(definition, **filters)
        assert report(definition, **filters) == detail
    assert len(detail) > 5


def run_owed_refreshes() -> int:
    """What a worker does with the refreshes the writes owed (the outbox rows), then as the task's
    success does, the rows are deleted."""
    owed = list(OutboxMessage.objects.filter(task_name=REFRESH_TASK))
    for message in owed:
        rollups_shoe_refresh(shoe_id=message.args[0])
        message.delete()
    return len(owed)


def correct_void_reverse(rng: random.Random, tables) -> None:
    """Random corrections, voids and reversals of the past days' coups, and late coups of a past day."""
    coups = list(Coup.objects.filter(gaming_day__in=DAYS).select_related("shoe__table").order_by("pk"))
    for coup in rng.sample(coups, 6):
        coup_correct(coup=coup, wagers=random_wagers(rng, coup.shoe.table.currency), reason="misread stake")
    for coup in rng.sample(coups, 3):
        coup_void(coup=coup, reason="misdeal")
    accruals = list(
        CommissionEntry.objects.filter(
            kind=EntryKind.ACCRUED, reversed_by__isnull=True, wager__coup__gaming_day__in=DAYS
        ).order_by("pk")
    )
    for entry in rng.sample(accruals, min(4, len(accruals))):
        commission_entry_reverse(entry=entry, note="paid at the table")
    # A store-and-forward batch arriving late: a new shoe of a past day at a table that played then.
    table = rng.choice(tables[1:])  # A1 deals the live shoe
    shoe = shoe_start(table=table, cut_card_position=380, shuffled_at=at(DAYS[1], 20))
    cards = game.new_shoe(8, rng)
    for number in (1, 2, 3):
        deal(rng, shoe, cards, number, at(DAYS[1], 21, number))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rollups_equal_the_detail_after_random_writes(db, seed):
    rng = random.Random(seed)
    tables = build_pit(rng)
    run_owed_refreshes()  # the past days' coups owed refreshes: none of their days is covered yet, no-ops
    assert not TableDayRollup.objects.exists()
    # Live coups of today owe no refresh: only a write touching a complete day does.
    live = factories.shoe(tables[0], shuffled_at=at(TODAY, 9))
    deal(rng, live, game.new_shoe(8, rng), 1, max(at(TODAY, 10), live.shuffled_at))
    assert not OutboxMessage.objects.filter(task_name=REFRESH_TASK).exists()
    assert rollups_rebuild(date_from=TODAY, date_to=TODAY) == {"days": 0, "table_days": 0}  # live: never
    assert rollups_rebuild(date_from=DAYS[0], date_to=DAYS[-1]) == {
        "days": len(DAYS),
        "table_days": len(
            {(c.shoe.table_id, c.gaming_day) for c in Coup.objects.filter(gaming_day__in=DAYS).select_related("shoe")}
        ),
    }
    assert not TableDayRollup.objects.filter(gaming_day=TODAY).exists()  # the live day: detail only
    assert rolled_up_days(date_from=DAYS[0], date_to=TODAY) == set(DAYS)
    assert_rollups_equal_detail()
    assert_reports_read_the_detail()

    correct_void_reverse(rng, tables)
    # Owed, not yet run: the changed days are read from the detail, the report is still exact.
    assert rolled_up_days(date_from=DAYS[0], date_to=TODAY) < set(DAYS)
    assert_reports_read_the_detail()
    assert run_owed_refreshes() > 0
    assert rolled_up_days(date_from=DAYS[0], date_to=TODAY) == set(DAYS)
    assert_rollups_equal_detail()
    assert_reports_read_the_detail()


def test_the_catch_up_rolls_up_new_days_and_repairs_a_lost_refresh(db):
    rng = random.Random(7)
    tables = build_pit(rng)
    rollups_rebuild(date_from=DAYS[0], date_to=DAYS[1])
    coup = Coup.objects.filter(gaming_day=DAYS[0]).select_related("shoe__table").first()
    coup_void(coup=coup, reason="misdeal")
    OutboxMessage.objects.filter(task_name=REFRESH_TASK).delete()  # a refresh lost beyond the outbox
    before = TableDayRollup.objects.get(table=coup.shoe.table, gaming_day=DAYS[0])
    assert before.correction_mark == 0

    counts = rollups_catch_up(days=(TODAY - DAYS[0]).days)
    # DAYS[2], DAYS[3] (and yesterday, without coups, once 10 minutes past its end) rolled up; the
    # voided coup's table-day refreshed.
    new_days = [DAYS[2], DAYS[3], *([TODAY - dt.timedelta(days=1)] if _complete(TODAY - dt.timedelta(days=1)) else [])]
    assert counts == {"days": len(new_days), "table_days": 1}
    assert set(RolledUpDay.objects.values_list("gaming_day", flat=True)) == {DAYS[0], DAYS[1], *new_days}
    after = TableDayRollup.objects.get(table=coup.shoe.table, gaming_day=DAYS[0])
    assert after.correction_mark == coup.corrections.get().pk
    assert_rollups_equal_detail()
    assert_reports_read_the_detail()
    assert rollups_catch_up(days=(TODAY - DAYS[0]).days) == {"days": 0, "table_days": 0}  # nothing changed since
    assert tables


def test_a_day_not_rolled_up_is_read_from_the_detail(db):
    rng = random.Random(11)
    build_pit(rng)
    rollups_rebuild(date_from=DAYS[1], date_to=DAYS[2])
    assert rolled_up_days(date_from=DAYS[0], date_to=TODAY) == set()  # the coups' own refreshes are owed
    run_owed_refreshes()
    assert rolled_up_days(date_from=DAYS[0], date_to=TODAY) == {DAYS[1], DAYS[2]}
    assert_reports_read_the_detail()
    assert Shoe.objects.filter(status=ShoeStatus.DEALING).count() == 0
    assert Wager.objects.exists()
