"""Verification reads one snapshot: a shoe being dealt while its chain is verified is never
reported broken (its wagers read without their coup, its rows without the head they moved)."""

import threading

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from pit.records.selectors import chains_verify
from pit.shoes.models import Coup
from pit.shoes.services import CoupInput, coups_record
from tests import factories
from tests.shoes import hands

VERIFICATIONS = 100


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_verifying_a_shoe_while_its_coups_are_posted_raises_no_false_alarm():
    shoe = factories.shoe()
    factories.coup(shoe, 1, *hands.BANKER_NATURAL, wagers=[factories.wager(1, "banker", "100")])
    stop = threading.Event()
    posted = []
    failed = []

    def deal():
        """The floor: a coup with three wagers at a time, each its own transaction, until told to stop."""
        number = 2
        try:
            while not stop.is_set() and number < 70:
                player, banker = hands.BANKER_NATURAL if number % 2 else hands.TIE
                coups_record(
                    shoe=shoe,
                    coups=[
                        CoupInput(
                            number=number,
                            player=player,
                            banker=banker,
                            wagers=(
                                factories.wager(1, "banker", "100"),
                                factories.wager(2, "player", "50"),
                                factories.wager(3, "tie", "5"),
                            ),
                        )
                    ],
                )
                posted.append(number)
                number += 1
        except Exception as exc:  # noqa: BLE001 - reported by the test
            failed.append(exc)
        finally:
            connection.close()

    dealer = threading.Thread(target=deal)
    dealer.start()
    alarms = []
    try:
        for _ in range(VERIFICATIONS):
            result = chains_verify(shoe_ids=[shoe.pk])
            alarms += [str(found) for found in result.breaks]
    finally:
        stop.set()
        dealer.join()
    assert failed == []
    assert len(posted) >= 10, "the floor posted too few coups to race the verification"
    assert alarms == []
    assert Coup.objects.filter(shoe=shoe).count() == 1 + len(posted)
    assert chains_verify(shoe_ids=[shoe.pk]).ok


@pytest.mark.django_db(transaction=True)
def test_verification_outside_a_transaction_reads_one_snapshot_and_leaves_none_open():
    shoe = factories.shoe()
    factories.coup(shoe, 1, *hands.BANKER_NATURAL, wagers=[factories.wager(1, "banker", "100")])
    with CaptureQueriesContext(connection) as queries:
        assert chains_verify(shoe_ids=[shoe.pk]).ok
    statements = [query["sql"] for query in queries.captured_queries]
    if connection.vendor == "postgresql":
        # Django logs the transaction's BEGIN and COMMIT among the queries.
        assert statements[:2] == ["BEGIN", "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"]
        assert statements[-1] == "COMMIT"
    else:  # a deferred read transaction: a snapshot in WAL mode, no write lock (IMMEDIATE would take one)
        assert (statements[0], statements[-1]) == ("BEGIN DEFERRED", "COMMIT")
    assert not connection.in_atomic_block
    factories.coup(shoe, 2, *hands.TIE)  # the floor writes on
    assert Coup.objects.filter(shoe=shoe).count() == 2
