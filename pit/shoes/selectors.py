"""Reads of shoes, coups and wagers that more than one part of the pit needs."""

from django.db.models import Exists, F, OuterRef, Q, Sum
from django.db.models.functions import Coalesce

from pit import game
from pit.core.money import from_minor, settlement_unit, to_minor
from pit.core.rows import AnyOf
from pit.paytables.selectors import engine_paytable
from pit.shoes.models import CoupCorrection, Wager, WagerResult


def standing_condition(prefix: str = "") -> Q:
    """The wagers that stand, seen from a model that points at wagers through `prefix` ("" for
    Wager itself): a wager stands when no correction of its coup came after the version it belongs
    to (the originals are version 0). A void writes no wagers, so after one nothing stands."""
    later = CoupCorrection.objects.filter(
        coup_id=OuterRef(f"{prefix}coup_id"),
        sequence__gt=Coalesce(OuterRef(f"{prefix}correction__sequence"), 0),
    )
    return ~Q(Exists(later))


class Standing:
    """`standing_condition` for wagers read at once with their `correction_id` (a chunk of the
    sweep): from one read of these coups' corrections rather than a subquery per wager row.
    `standing(coup_id, correction_id)`: no correction of the coup came after the wager's version."""

    def __init__(self, coup_ids) -> None:
        self.latest: dict[int, int] = {}  # coup -> its highest correction sequence (coups corrected)
        self.sequence_of: dict[int, int] = {}  # correction -> its sequence
        corrections = CoupCorrection.objects.filter(AnyOf(F("coup_id"), coup_ids)).order_by()
        for pk, coup_id, sequence in corrections.values_list("pk", "coup_id", "sequence"):
            self.sequence_of[pk] = sequence
            self.latest[coup_id] = max(sequence, self.latest.get(coup_id, 0))

    def __call__(self, coup_id: int, correction_id: int | None) -> bool:
        latest = self.latest.get(coup_id)
        return latest is None or latest <= (0 if correction_id is None else self.sequence_of[correction_id])


def wagers_standing(queryset=None):
    """The wagers that stand after every correction and void: what settles, what reports add up,
    what the rule checks judge. `queryset` narrows it (default: every wager)."""
    return (queryset if queryset is not None else Wager.objects.all()).filter(standing_condition())


def wager_money_sums() -> dict:
    """Annotations that sum a wager queryset's money in minor units: handle, payouts, commission
    owed and stakes lost. House win follows from them as `pit.game.house_win` defines it per wager
    (`house_win_minor`), so reports and the dashboard add up the same figure the same way."""
    return {
        "handle": Coalesce(Sum("amount_minor"), 0),
        "payouts": Coalesce(Sum("payout_minor"), 0),
        "commission": Coalesce(Sum("commission_minor"), 0),
        "lost": Coalesce(Sum("amount_minor", filter=Q(result=WagerResult.LOSE)), 0),
    }


def house_win_minor(sums) -> int:
    """Stakes lost − payouts + commission owed, from `wager_money_sums` figures."""
    return sums["lost"] - sums["payouts"] + sums["commission"]


def commission_taken_minor(wager: Wager) -> tuple[int, bool]:
    """The commission the house took on a wager, in minor units, and whether it was deducted from
    the payout. Into the box: the wager's `commission_minor`. At a table whose paytable deducts it,
    the row stores the net payout only: the engine settles the wager again from the coup's cards
    (`pit.game.settle`'s `deducted`), as table results count it."""
    coup = wager.coup
    rules = coup.paytable.rules
    if rules.get("commission_mode") != game.CommissionMode.DEDUCTED or wager.result != WagerResult.WIN:
        return wager.commission_minor, False
    evaluation = game.evaluate(game.Coup(player=coup.player_cards, banker=coup.banker_cards))
    currency = wager.currency
    settlement = game.settle(
        engine_paytable(rules),
        wager.bet,
        from_minor(wager.amount_minor, currency),
        evaluation,
        unit=settlement_unit(currency),
    )
    return to_minor(settlement.deducted, currency), True
