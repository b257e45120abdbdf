"""The simulated floor with a progressive bank: the meter filed before the play, fed by the dealt Player
Pair wagers, its first hit paid with two signers and reset; the meter equals base + contributions +
resets - payouts recomputed from the rows."""

import datetime as dt
from decimal import ROUND_FLOOR, Decimal
from io import StringIO

import pytest
from django.core.management import call_command

from pit.core.gaming_day import current_gaming_day, gaming_day_bounds
from pit.floor.clients import ServicesFloorClient
from pit.floor.progressives import progressive_bank_file, progressive_hit_pay
from pit.floor.simulator import simulate
from pit.progressives.models import MeterPayout, MeterReading
from pit.progressives.selectors import meter_figures
from pit.shoes.models import Wager
from pit.shoes.selectors import wagers_standing
from tests import factories

pytestmark = pytest.mark.django_db


def test_a_simulated_bank_pays_a_hit_and_resets():
    for code in ("BB1", "BB2"):
        factories.table(code, open_=False)
    start = gaming_day_bounds(current_gaming_day())[0]
    meter = progressive_bank_file(tables=["BB1", "BB2"], bet="player_pair", start=start)
    result = simulate(ServicesFloorClient(), tables=["BB1", "BB2"], seed=3, now=dt.datetime.now(dt.UTC))
    stakes = sum(wagers_standing(Wager.objects.filter(bet="player_pair")).values_list("amount_minor", flat=True))
    assert stakes > 0
    before = meter_figures(meter)
    assert before.exact == Decimal(500000) + Decimal("0.05") * stakes
    payout = progressive_hit_pay(meter=meter, coup_ids=result.coup_ids)
    assert payout is not None, "the seeded play has a Player Pair win"
    assert payout.amount_minor == before.amount_minor
    assert payout.paid_by_id != payout.witnessed_by_id
    after = meter_figures(meter)
    recomputed = Decimal(500000) + Decimal("0.05") * stakes + payout.reset_minor - payout.amount_minor
    assert after.exact == recomputed
    assert after.amount_minor == int(recomputed.to_integral_value(rounding=ROUND_FLOOR)) == 500000
    assert MeterReading.objects.filter(payout=payout, amount_minor=500000).exists()


def test_the_simulate_command_files_the_meter_and_pays_its_first_hit():
    for code in ("BB1", "BB2"):
        factories.table(code, open_=False)
    out = StringIO()
    call_command("simulate", "--tables", "BB1,BB2", "--seed", "3", "--progressive", "player_pair", stdout=out)
    payout = MeterPayout.objects.get()
    assert f"hit paid ${payout.amount_minor / 100:,.2f}" in out.getvalue()
    assert "the meter stands at $5,000." in out.getvalue()
