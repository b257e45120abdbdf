"""Currencies without minor units (ISO 4217 exponent 0): every preset settles in whole units, the
commission rounded by the paytable's own mode on a whole unit (a 126.50 yen commission does not exist)."""

from decimal import Decimal

import pytest

from pit.compliance.models import RuleViolation
from pit.core.money import _EXPONENTS, settlement_unit
from pit.game import PRESETS, SIDE_BET_PRESETS
from pit.ledger.models import CommissionEntry, EntryKind
from pit.shoes.models import Wager
from tests import factories
from tests.factories import wager

ZERO_DECIMAL = ("JPY", "KRW", "VND", "CLP", "ISK")
BANKER_NATURAL = (["2H", "KD"], ["8C", "KS"])  # Player 2, Banker 8: Banker wins, not with a 6

# A Banker win of 2,530: 5% is 126.5, which no zero-decimal currency can hold.
# preset -> (payout, commission owed into the box), worked by hand.
EXPECTED = {
    "commission_box": (2530, 127),  # half up: 126.5 -> 127
    "commission_deducted": (2403, 0),  # up: 127 deducted from the 2,530 won
    "commission_19_20": (2403, 0),  # 2,530 x 19/20 = 2,403.5, paid down to 2,403
    "mini_commission_box": (2530, 127),  # quarters up becomes whole units up: 127
    "no_commission": (2530, 0),
    "tie_9_to_1": (2530, 127),
    "ez_baccarat": (2530, 0),
    # The side-bet presets are commission games, the commission in the box rounded half up.
    **dict.fromkeys(SIDE_BET_PRESETS, (2530, 127)),
}


def test_every_zero_decimal_currency_is_covered():
    assert {code for code, places in _EXPONENTS.items() if places == 0} == set(ZERO_DECIMAL)
    assert set(EXPECTED) == set(PRESETS)
    assert settlement_unit("JPY") == Decimal(1) and settlement_unit("USD") == settlement_unit("KWD") == Decimal("0.01")


@pytest.mark.parametrize("currency", ZERO_DECIMAL)
@pytest.mark.parametrize("preset", sorted(EXPECTED))
def test_a_banker_win_settles_in_whole_units(db, currency, preset, django_capture_on_commit_callbacks):
    table = factories.table("JP1", preset=preset, currency=currency)
    shoe = factories.shoe(table)
    player, banker = BANKER_NATURAL
    with django_capture_on_commit_callbacks(execute=True):  # the rule checks judge it the same way
        factories.coup(shoe, 1, player, banker, wagers=[wager(1, "banker", "2530", paid=str(EXPECTED[preset][0]))])
    assert not RuleViolation.objects.exists()
    row = Wager.objects.get(coup__shoe=shoe)
    assert (row.currency, row.payout_minor, row.commission_minor) == (currency, *EXPECTED[preset])
    accrued = CommissionEntry.objects.filter(shoe=shoe, kind=EntryKind.ACCRUED).values_list("amount_minor", flat=True)
    assert list(accrued) == ([EXPECTED[preset][1]] if EXPECTED[preset][1] else [])
