"""Health of what the product depends on: the database and the Celery broker."""

from dataclasses import dataclass

from django.db import connections


@dataclass(frozen=True)
class CheckResult:
    name: str
    ok: bool
    detail: str


def check_database() -> CheckResult:
    try:
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any failure to reach the database is what we report
        return CheckResult("database", False, f"{type(exc).__name__}: {exc}")
    return CheckResult("database", True, connections["default"].vendor)


def check_broker() -> CheckResult:
    from pit.celery import app  # the Celery app is loaded by CoreConfig.ready, after the apps (pit/__init__.py)

    try:
        with app.connection_for_write() as connection:
            connection.ensure_connection(max_retries=0, timeout=2)
            transport = connection.transport_cls
    except Exception as exc:
        return CheckResult("broker", False, f"{type(exc).__name__}: {exc}")
    return CheckResult("broker", True, str(transport))


def system_health() -> list[CheckResult]:
    return [check_database(), check_broker()]
