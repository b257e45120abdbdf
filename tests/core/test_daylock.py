"""A closed gaming day takes no new fact, by construction: every public function of every services
module is a declared write service (pit.core.daylock.day_write) or exempt with its reason, and every
declared one, driven against a closed day, is refused with a Conflict naming the day and writes nothing."""

import datetime as dt
import importlib
import inspect
import pkgutil
from decimal import Decimal
from types import SimpleNamespace

import pytest
from django.apps import apps

import pit
from pit.accounting.models import GamingDayEvent, Slip
from pit.accounting.services import drop_record, inventory_record, slip_issue, slip_receive, slip_request
from pit.accounts.models import Role
from pit.accounts.services import user_create_with_role
from pit.cash.services import CashInput, transaction_record, transaction_record_once, transaction_reverse
from pit.core.actors import Actor
from pit.core.daylock import EXEMPT, WRITE_SERVICES
from pit.core.errors import Conflict
from pit.core.gaming_day import current_gaming_day, gaming_day_bounds
from pit.core.immutable import protected_models
from pit.core.models import OutboxMessage
from pit.dealers.services import dealer_create, dealer_rotate
from pit.ledger.models import CommissionEntry
from pit.ledger.services import commission_collect, commission_entry_reverse
from pit.players.models import Tier
from pit.players.services import (
    buy_in_record,
    buy_in_reverse,
    patron_enrol,
    session_identify,
    session_pause,
    session_resume,
    session_sit,
    session_stand,
    walk_record,
    walk_reverse,
)
from pit.progressives.services import meter_file, meter_payout_record
from pit.ratings.services import average_bet_estimate
from pit.shoes.services import (
    CoupInput,
    coup_correct,
    coup_record,
    coup_void,
    coups_record,
    shoe_close,
    shoe_start,
)
from tests import factories
from tests.shoes import hands


@pytest.fixture(autouse=True)
def _one_person_may_sign(settings):
    # What this module tests is not who signs: segregation of duties has its own tests
    # (tests/api/test_segregation_of_duties.py), so one test user may take every step here.
    settings.PIT_SEGREGATION_OF_DUTIES = False


PASSWORD = "a-long-test-password-0123"


def services_modules():
    """Every `services` module of pit, and each module of a `services` package."""
    found = []
    for info in pkgutil.walk_packages(pit.__path__, "pit."):
        parts = info.name.split(".")
        if "services" in parts[2:] and not info.name.endswith(".__init__"):
            found.append(importlib.import_module(info.name))
    return sorted(found, key=lambda module: module.__name__)


def public_functions():
    for module in services_modules():
        for name, value in vars(module).items():
            if inspect.isfunction(value) and value.__module__ == module.__name__ and not name.startswith("_"):
                yield module.__name__, f"{module.__name__}.{name}"


def test_every_service_is_a_declared_write_or_exempt_with_a_reason():
    undeclared = [
        name
        for module, name in public_functions()
        if name not in WRITE_SERVICES and name not in EXEMPT and module not in EXEMPT
    ]
    assert undeclared == []
    known = {name for _, name in public_functions()} | {module.__name__ for module in services_modules()}
    assert sorted(set(EXEMPT) - known) == []  # an exemption of nothing is stale
    assert all(reason.strip() for reason in EXEMPT.values())
    assert not set(WRITE_SERVICES) & set(EXEMPT)
    labels = {model._meta.label for model in apps.get_models()}
    for declared in WRITE_SERVICES.values():
        assert declared.writes and set(declared.writes) <= labels, declared
        assert declared.day_of.strip()


# ---------------------------------------------------------------------------------------- a closed day


@pytest.fixture
def closed(db, django_capture_on_commit_callbacks):
    """The current gaming day with a coup at BB1 (seat 1 Banker 100: $5 commission), a shoe of no coups
    dealing at MB1, a fill received, then the day closed."""
    day = current_gaming_day()
    start = gaming_day_bounds(day)[0] + dt.timedelta(seconds=1)
    boss = user_create_with_role(username="boss", password=PASSWORD, role=Role.PIT_BOSS.value)
    dealer = user_create_with_role(username="dealer", password=PASSWORD, role=Role.PIT_BOSS.value)
    accountant = user_create_with_role(username="accountant", password=PASSWORD, role=Role.ACCOUNTANT.value)
    bb1, mb1, bb2 = factories.table("BB1"), factories.table("MB1", game="mini"), factories.table("BB2")
    actor = Actor(user=boss)
    with django_capture_on_commit_callbacks(execute=True):
        shoe = factories.shoe(bb1, shuffled_at=start)
        coup = factories.coup(
            shoe, 1, *hands.BANKER_NATURAL, dealt_at=start, wagers=[factories.wager(1, "banker", "100")]
        )
        shoe_close(shoe=shoe, box_counts=[(1, Decimal("5"))], closed_at=start)
    dealing = factories.shoe(mb1, shuffled_at=start)
    slip = slip_request(
        kind="fill", number="F-1", table=bb1, gaming_day=day, reason="low", chips={"10000": 1}, actor=actor
    )
    slip_issue(slip=slip, chips={"10000": 1}, actor=actor)
    slip_receive(slip=slip, chips={"10000": 1}, actor=actor)
    patron = patron_enrol(
        card_number="100234", name="Li Wei", tier=Tier.objects.create(code="gold", name="Gold"), nationality="MO"
    )
    seated = session_sit(table=bb1, seat=1, at=start, patron=patron)
    unrated = session_sit(table=bb1, seat=2, at=start, description="man, grey suit")
    paused = session_sit(table=bb1, seat=3, at=start, description="woman, red scarf")
    session_pause(session=paused, at=start)
    buy_in = buy_in_record(session=seated, kind="cash", amount=Decimal("1000"), currency=bb1.currency, at=start)
    walk = walk_record(session=seated, how="counted", amount=Decimal("400"), currency=bb1.currency, at=start)
    # A progressive meter on the Banker bet at BB1: the coup's Banker win would be its hit.
    meter = meter_file(
        code="BJ1",
        name="Banker jackpot",
        bet="banker",
        currency=bb1.currency,
        effective_from=start,
        base=Decimal("1000"),
        reset=Decimal("500"),
        rate=Decimal("0.01"),
        tables=[bb1],
        filing_reference="F-1",
    )
    cashier = user_create_with_role(username="cashier", password=PASSWORD, role=Role.CAGE.value)
    GamingDayEvent.objects.create(gaming_day=day, action="closed", by=accountant)
    return SimpleNamespace(
        patron=patron,
        seated=seated,
        unrated=unrated,
        paused=paused,
        buy_in=buy_in,
        walk=walk,
        meter=meter,
        cashier=cashier,
        day=day,
        start=start,
        bb1=bb1,
        mb1=mb1,
        bb2=bb2,
        dana=dealer_create(code="D9", name="Dana"),
        shoe=shoe,
        dealing=dealing,
        coup=coup,
        slip=Slip.objects.get(pk=slip.pk),
        actor=actor,
        boss=boss,
        dealer=dealer,
    )


def _at(pit_, number=2):
    return CoupInput(number=number, player=["2H", "5D"], banker=["4C", "5S"], wagers=(), dealt_at=pit_.start)


# One scenario per declared write service: the write it would make on the closed day.
SCENARIOS = {
    "pit.shoes.services.coups.coup_record": lambda p: coup_record(shoe=p.shoe, coup=_at(p)),
    "pit.shoes.services.coups.coups_record": lambda p: coups_record(shoe=p.shoe, coups=[_at(p, 2), _at(p, 3)]),
    "pit.shoes.services.corrections.coup_correct": lambda p: coup_correct(
        coup=p.coup, wagers=(factories.wager(1, "banker", "200"),), reason="misread stake"
    ),
    "pit.shoes.services.corrections.coup_void": lambda p: coup_void(coup=p.coup, reason="misdeal"),
    "pit.shoes.services.shoes.shoe_start": lambda p: shoe_start(
        table=p.bb2, cut_card_position=380, shuffled_at=p.start
    ),
    "pit.shoes.services.shoes.shoe_close": lambda p: shoe_close(
        shoe=p.dealing, box_counts=[(1, Decimal("0"))], closed_at=p.start
    ),
    "pit.ledger.services.commission_collect": lambda p: commission_collect(shoe=p.dealing, seat=1),
    "pit.ledger.services.commission_entry_reverse": lambda p: commission_entry_reverse(
        entry=CommissionEntry.objects.filter(kind="accrued").get(), note="keyed twice"
    ),
    "pit.dealers.services.dealer_rotate": lambda p: dealer_rotate(table=p.bb1, dealer=p.dana, started_at=p.start),
    "pit.players.services.session_sit": lambda p: session_sit(table=p.bb1, seat=5, at=p.start, description="a man"),
    "pit.players.services.session_pause": lambda p: session_pause(session=p.seated, at=p.start),
    "pit.players.services.session_resume": lambda p: session_resume(session=p.paused, at=p.start),
    "pit.players.services.session_stand": lambda p: session_stand(
        session=p.seated, at=p.start, chips_walked=Decimal("500")
    ),
    "pit.players.services.session_identify": lambda p: session_identify(
        session=p.unrated, patron=p.patron, reason="card shown late"
    ),
    "pit.players.services.buy_in_record": lambda p: buy_in_record(
        session=p.seated, kind="chips", amount=Decimal("500"), currency=p.bb1.currency, at=p.start
    ),
    "pit.players.services.buy_in_reverse": lambda p: buy_in_reverse(buy_in=p.buy_in, reason="keyed twice"),
    "pit.players.services.walk_record": lambda p: walk_record(
        session=p.seated, how="estimated", amount=Decimal("100"), currency=p.bb1.currency, at=p.start
    ),
    "pit.players.services.walk_reverse": lambda p: walk_reverse(walk=p.walk, reason="keyed twice"),
    "pit.cash.services.transaction_record": lambda p: transaction_record(
        cash=CashInput(
            reference="CAGE-1",
            kind="chip_redemption",
            at=p.start,
            currency=p.bb1.currency,
            amount=Decimal("800"),
            location="cage window 1",
            patron=p.patron,
        )
    ),
    "pit.cash.services.transaction_record_once": lambda p: transaction_record_once(
        cash=CashInput(
            reference="CAGE-3",
            kind="chip_purchase",
            at=p.start,
            currency=p.bb1.currency,
            amount=Decimal("800"),
            location="cage window 1",
            patron=p.patron,
        )
    ),
    "pit.cash.services.transaction_reverse": lambda p: transaction_reverse(
        reversed_=p.buy_in.cash_transaction, reason="keyed twice", reference="CAGE-2"
    ),
    "pit.accounting.services.inventory_record": lambda p: inventory_record(
        table=p.mb1,
        gaming_day=p.day,
        kind="opener",
        chips={"10000": 5},
        dealer=p.dealer,
        pit_boss=p.boss,
        actor=p.actor,
    ),
    "pit.accounting.services.slip_request": lambda p: slip_request(
        kind="credit", number="C-1", table=p.bb1, gaming_day=p.day, reason="full", chips={"10000": 1}, actor=p.actor
    ),
    "pit.accounting.services.slip_issue": lambda p: slip_issue(slip=p.slip, chips={"10000": 2}, actor=p.actor),
    "pit.accounting.services.slip_receive": lambda p: slip_receive(slip=p.slip, chips={"10000": 2}, actor=p.actor),
    "pit.ratings.services.average_bet_estimate": lambda p: average_bet_estimate(
        session=p.seated, average_bet_minor=10000
    ),
    "pit.accounting.services.drop_record": lambda p: drop_record(
        table=p.bb1, gaming_day=p.day, cash={"10000": 3}, actor=p.actor
    ),
    "pit.progressives.services.meter_payout_record": lambda p: meter_payout_record(
        meter=p.meter, coup=p.coup, seat=1, paid_by=p.boss, witnessed_by=p.cashier, actor=p.actor
    ),
}


def test_every_write_service_has_a_scenario():
    assert sorted(WRITE_SERVICES) == sorted(SCENARIOS)


def _written():
    """How many rows each fact (and audit event) table holds, the outbox beside them."""
    counts = {model._meta.label: model._default_manager.count() for model in protected_models()}
    counts["core.OutboxMessage"] = OutboxMessage.objects.count()
    return counts


@pytest.mark.parametrize("service", sorted(SCENARIOS))
def test_a_closed_day_refuses_every_write_service(closed, service):
    before = _written()
    with pytest.raises(Conflict) as error:
        SCENARIOS[service](closed)
    assert error.value.message.startswith(f"Gaming day {closed.day} is closed: its records are locked.")
    assert error.value.details == {"gaming_day": closed.day.isoformat()}
    assert _written() == before


def test_the_day_reopened_takes_the_void(closed):
    GamingDayEvent.objects.create(gaming_day=closed.day, action="reopened", note="late void", by=closed.boss)
    assert coup_void(coup=closed.coup, reason="misdeal").created
