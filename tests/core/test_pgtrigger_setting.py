"""Every PostgreSQL connection starts with `pgtrigger.ignore` set to "nothing ignored" (settings).

django-pgtrigger's trigger functions (the audit trail's) read that setting first. Unset, the read
raises and the function catches it, and catching aborts a subtransaction, which makes PostgreSQL
scan every deferred check the transaction has queued: after a large batch or import, each audited
row cost milliseconds (see pit/settings/components/database.py)."""

import pytest
from django.db import connection

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def test_every_connection_starts_with_no_trigger_ignored():
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('pgtrigger.ignore', true), public._pgtrigger_should_ignore('x')")
        assert cursor.fetchone() == ("{}", False)
