"""On PostgreSQL the notices and their acknowledgements, filings, slip books and limit changes are
insert-only in the database itself, whoever connects."""

import pytest
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from pit.accounting.models import SlipBook
from pit.notices.models import SurveillanceNotification
from pit.notices.services import drop_notify
from pit.tables.models import LimitChange
from tests import factories as f

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("model", [SurveillanceNotification, SlipBook, LimitChange])
def test_update_and_delete_refused_by_the_database(model):
    table = f.table("BB1")
    drop_notify(table=table, gaming_day=timezone.localdate(), shift=1)
    SlipBook.objects.create(first=1, last=10, received_at=timezone.now())
    table_name = model._meta.db_table
    for statement in (f'UPDATE "{table_name}" SET id = id', f'DELETE FROM "{table_name}"'):
        with pytest.raises(DatabaseError, match="insert-only"), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statement)
    assert model.objects.exists()
