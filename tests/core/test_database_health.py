"""After PostgreSQL drops a kept connection (a restart, a failover, an idle timeout), the next request
reconnects instead of failing: CONN_HEALTH_CHECKS checks a kept connection before reusing it."""

import psycopg
import pytest
from django.conf import settings
from django.core.signals import request_finished, request_started
from django.db import connection

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_a_connection_dropped_by_the_server_is_replaced_at_the_next_request():
    assert settings.DATABASES["default"]["CONN_HEALTH_CHECKS"] is True
    assert settings.DATABASES["default"]["CONN_MAX_AGE"] > 0  # connections are kept between requests

    request_started.send(sender=None)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    request_finished.send(sender=None)  # the connection is kept for the next request

    db = connection.settings_dict
    with psycopg.connect(
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"],
        password=db["PASSWORD"] or None,
        dbname=db["NAME"],
        autocommit=True,
    ) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [pid])

    request_started.send(sender=None)  # what Django does at the start of each request
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != pid
    request_finished.send(sender=None)
