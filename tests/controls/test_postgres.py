"""On PostgreSQL: the control records are insert-only whoever connects (the frozen triggers), their
two-signer checks hold in the database, and one key drawn by two pit bosses at the same moment goes
out once (the key's row lock), the other refused."""

import threading

import pytest
from django.db import IntegrityError, connection, transaction

from pit.controls import services
from pit.controls.models import Deck, KeyIssue
from pit.core.errors import Conflict

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_control_records_refuse_update_and_delete_in_the_database(pit):
    (deck,) = services.decks_receive(serials=["P1"], storage=pit.room, received_by=pit.ann, second_signer=pit.ben)
    services.key_access_set(key=pit.key, holders=[pit.ann])
    issue = services.key_issue(key=pit.key, table=pit.bb1, issued_to=pit.ann, issued_by=pit.cal, purpose="drop")
    for table, pk in (("controls_deck", deck.pk), ("controls_keyissue", issue.pk)):
        for statement in (
            f'UPDATE "{table}" SET "recorded_at" = now() WHERE id = %s',
            f'DELETE FROM "{table}" WHERE id = %s',
        ):
            with (
                pytest.raises(IntegrityError, match="facts of record are insert-only"),
                transaction.atomic(),
                connection.cursor() as cursor,
            ):
                cursor.execute(statement, [pk])
    with pytest.raises(IntegrityError, match="deck_two_signers"), transaction.atomic():
        Deck.objects.create(
            serial="P2", storage=pit.room, received_at=deck.received_at, received_by=pit.ann, second_signer=pit.ann
        )
    assert Deck.objects.count() == 1 and KeyIssue.objects.count() == 1


def test_one_key_drawn_twice_at_once_goes_out_once(pit):
    services.key_access_set(key=pit.key, holders=[pit.ann, pit.ben])
    barrier = threading.Barrier(2)
    results = []

    def draw(person):
        try:
            barrier.wait(timeout=10)
            services.key_issue(key=pit.key, table=pit.bb1, issued_to=person, issued_by=pit.cal, purpose="drop")
            results.append("issued")
        except Conflict as refused:
            results.append(refused.message.split(" is out")[0])
        finally:
            connection.close()

    threads = [threading.Thread(target=draw, args=(person,)) for person in (pit.ann, pit.ben)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(results) == ["Key DBR-1", "issued"]
    assert KeyIssue.objects.count() == 1
