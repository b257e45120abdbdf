"""Corrections and voids of a coup: a new version of its wagers, attributable and insert-only; the
ledger reverses what it replaces; the checks, reports and balances read what stands."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from pit.accounts.services import user_create_with_role
from pit.compliance.models import RuleViolation
from pit.core.actors import Actor
from pit.ledger.models import CommissionEntry, EntryKind
from pit.ledger.services import seat_balance_minor
from pit.rollups.results import TableDays, table_result_rows
from pit.shoes.models import CorrectionKind, CoupCorrection, Wager
from pit.shoes.selectors import Standing, wagers_standing
from pit.shoes.services import coup_correct, coup_void
from tests import factories
from tests.factories import wager
from tests.shoes import hands

pytestmark = pytest.mark.django_db


@pytest.fixture
def coup(django_capture_on_commit_callbacks):
    """Banker wins with a natural: seat 1's Banker 100.00 owes 5.00, seat 2 lost 50.00 on Player."""
    shoe = factories.shoe(factories.table("BB1"))
    with django_capture_on_commit_callbacks(execute=True):
        return factories.coup(
            shoe, 1, *hands.BANKER_NATURAL, wagers=[wager(1, "banker", "100", "100"), wager(2, "player", "50")]
        )


def standing(coup):
    return sorted(
        wagers_standing(coup.wagers.all()).values_list(
            "seat", "bet", "amount_minor", "result", "payout_minor", "commission_minor"
        )
    )


def ledger(coup):
    return list(
        CommissionEntry.objects.filter(shoe=coup.shoe).order_by("pk").values_list("seat", "kind", "amount_minor")
    )


def test_a_correction_replaces_the_wagers_and_reverses_their_commission(coup, django_capture_on_commit_callbacks):
    boss = user_create_with_role(username="boss", password="a-long-password-1", role="pit boss")
    originals = list(Wager.objects.filter(coup=coup).order_by("pk").values())
    with django_capture_on_commit_callbacks(execute=True):
        outcome = coup_correct(
            coup=coup,
            wagers=(wager(1, "banker", "200", "200"), wager(2, "player", "50")),
            reason="Bet recognition read 100 for a 200 stake",
            actor=Actor(user=boss),
        )

    correction = outcome.correction
    assert outcome.created is True
    assert (correction.sequence, correction.kind, correction.recorded_by_user) == (1, "correct", boss)
    assert list(Wager.objects.filter(coup=coup, correction=None).order_by("pk").values()) == originals
    assert standing(coup) == [(1, "banker", 20000, "win", 20000, 1000), (2, "player", 5000, "lose", 0, 0)]
    assert ledger(coup) == [
        (1, EntryKind.ACCRUED, 500),
        (1, EntryKind.REVERSAL, -500),
        (1, EntryKind.ACCRUED, 1000),
    ]
    assert seat_balance_minor(shoe=coup.shoe, seat=1) == 1000
    # The table reported paying 200.00 on what the original version said was a 100.00 stake: the
    # checks judge what stands, so nothing is wrong now.
    assert not RuleViolation.objects.filter(coup=coup, cleared_at__isnull=True).exists()


def test_the_checks_judge_what_stands(coup, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        coup_correct(coup=coup, wagers=(wager(1, "banker", "100", "150"),), reason="Seat 2 never bet")
    holding = RuleViolation.objects.filter(coup=coup, cleared_at__isnull=True)
    assert [(v.code, v.wager.correction_id is not None) for v in holding] == [("payout_mismatch", True)]


def test_a_void_returns_every_stake(coup, django_capture_on_commit_callbacks):
    day = coup.gaming_day
    with django_capture_on_commit_callbacks(execute=True):
        outcome = coup_void(coup=coup, reason="Misdeal: the dealer burned a card face up")
    assert (outcome.created, outcome.correction.kind) == (True, CorrectionKind.VOID)
    assert standing(coup) == []
    assert Wager.objects.filter(coup=coup).count() == 2  # the originals stay
    assert ledger(coup) == [(1, EntryKind.ACCRUED, 500), (1, EntryKind.REVERSAL, -500)]
    assert seat_balance_minor(shoe=coup.shoe, seat=1) == 0
    (row,) = table_result_rows(TableDays(date_from=day, date_to=day))
    assert (row["wagers"], row["handle"], row["house_win"], row["commission"]) == (
        0,
        Decimal("0.00"),
        Decimal("0.00"),
        Decimal("0.00"),
    )


def test_the_same_correction_twice_is_one(coup):
    wagers = (wager(1, "banker", "200"), wager(2, "player", "50"))
    first = coup_correct(coup=coup, wagers=wagers, reason="misread")
    again = coup_correct(coup=coup, wagers=wagers, reason="misread (sent again)")
    assert (again.created, again.correction) == (False, first.correction)
    void = coup_void(coup=coup, reason="misdeal")
    assert coup_void(coup=coup, reason="misdeal").correction == void.correction
    assert CoupCorrection.objects.filter(coup=coup).count() == 2
    assert ledger(coup) == [
        (1, EntryKind.ACCRUED, 500),
        (1, EntryKind.REVERSAL, -500),
        (1, EntryKind.ACCRUED, 1000),
        (1, EntryKind.REVERSAL, -1000),
    ]


def test_a_later_correction_supersedes_an_earlier_one(coup):
    coup_correct(coup=coup, wagers=(wager(1, "banker", "200"),), reason="first reading")
    second = coup_correct(coup=coup, wagers=(wager(1, "banker", "300"), wager(3, "tie", "10")), reason="second")
    assert second.correction.sequence == 2
    assert standing(coup) == [(1, "banker", 30000, "win", 30000, 1500), (3, "tie", 1000, "lose", 0, 0)]
    assert seat_balance_minor(shoe=coup.shoe, seat=1) == 1500


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda coup: coup_correct(coup=coup, wagers=(wager(1, "banker", "200"),), reason="  "), "reason"),
        (lambda coup: coup_void(coup=coup, reason=""), "reason"),
        (lambda coup: coup_correct(coup=coup, wagers=(wager(4, "banker", "200"),), reason="x"), "wagers[0].seat"),
        (lambda coup: coup_correct(coup=coup, wagers=(wager(1, "dragon", "5"),), reason="x"), "wagers[0].bet"),
        (lambda coup: coup_correct(coup=coup, wagers=(wager(1, "banker", "0"),), reason="x"), "wagers[0].amount"),
        (
            lambda coup: coup_correct(
                coup=coup, wagers=(wager(1, "banker", "100", "100"), wager(2, "player", "50")), reason="nothing changes"
            ),
            "wagers",
        ),
    ],
)
def test_a_refused_correction_writes_nothing(coup, call, field):
    entries = ledger(coup)
    with pytest.raises(ValidationError) as refused:
        call(coup)
    assert field in refused.value.message_dict
    assert not CoupCorrection.objects.exists()
    assert Wager.objects.count() == 2
    assert ledger(coup) == entries


def test_standing_read_at_once_agrees_with_the_standing_query_for_every_version(coup):
    """The sweep reads a chunk's wagers with their version and its coups' corrections once
    (`Standing`): every wager of every version stands or not as `wagers_standing` says."""
    shoe = coup.shoe
    corrected_twice = factories.coup(shoe, 2, *hands.BANKER_NATURAL, wagers=[wager(1, "player", "20")])
    coup_correct(coup=corrected_twice, wagers=(wager(1, "player", "30"),), reason="first reading")
    coup_correct(coup=corrected_twice, wagers=(wager(1, "player", "40"), wager(2, "tie", "5")), reason="second")
    voided = factories.coup(shoe, 3, *hands.BANKER_NATURAL, wagers=[wager(2, "banker", "60")])
    coup_correct(coup=voided, wagers=(wager(2, "banker", "70"),), reason="misread")
    coup_void(coup=voided, reason="misdeal")
    untouched = factories.coup(shoe, 4, *hands.BANKER_NATURAL, wagers=[wager(3, "banker", "80")])
    coup_ids = [coup.pk, corrected_twice.pk, voided.pk, untouched.pk]
    standing = Standing(coup_ids)
    every = Wager.objects.filter(coup_id__in=coup_ids)
    expected = set(wagers_standing(every).values_list("pk", flat=True))

    found = {
        pk
        for pk, coup_id, correction_id in every.values_list("pk", "coup_id", "correction_id")
        if standing(coup_id, correction_id)
    }

    assert every.count() == 9 and found == expected
    assert sorted(Wager.objects.filter(pk__in=found).values_list("coup__number", "amount_minor")) == [
        (1, 5000),
        (1, 10000),
        (2, 500),
        (2, 4000),
        (4, 8000),
    ]


def test_wagers_standing_reads_one_query_whatever_the_corrections(coup, django_assert_num_queries):
    coup_correct(coup=coup, wagers=(wager(1, "banker", "200"),), reason="misread")
    with django_assert_num_queries(1):
        assert len(list(wagers_standing())) == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_same_correction_from_two_terminals_at_once_is_one():
    import threading

    from django.db import connection

    shoe = factories.shoe(factories.table("BB1"))
    coup = factories.coup(shoe, 1, *hands.BANKER_NATURAL, wagers=[wager(1, "banker", "100")])
    barrier, outcomes = threading.Barrier(2), []

    def correct():
        try:
            barrier.wait(timeout=10)
            outcomes.append(coup_correct(coup=coup, wagers=(wager(1, "banker", "200"),), reason="misread"))
        finally:
            connection.close()

    threads = [threading.Thread(target=correct) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcome.created for outcome in outcomes) == [False, True]
    assert CoupCorrection.objects.count() == 1
    assert ledger(coup) == [(1, EntryKind.ACCRUED, 500), (1, EntryKind.REVERSAL, -500), (1, EntryKind.ACCRUED, 1000)]
