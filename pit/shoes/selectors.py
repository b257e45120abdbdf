"""Reads of shoes, coups and wagers that more than one part of the pit needs."""
from django.db.models import Q, Sum
from django.db.models.functions import Coalesce

from pit.shoes.models import WagerResult


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
