"""Test-wide rules: service tests run where the services are, and never skip in CI.

Tests marked `postgres` need DATABASE_URL=postgres://...; tests marked `redis` need a real broker
(CELERY_BROKER_URL=redis://... or amqp://...). On the embedded default they are deselected (not
skipped) and the summary says so. When CI is set, a service test that skips fails instead (a
server that went away can never pass as green), and with PIT_REQUIRE_SERVICES=1 a run without
both services is refused outright.

Under pytest-xdist (`make test`) every rule holds per worker process, each with its own test
database and var folder (pit/settings/test.py); the tests that start real workers against the one
broker (`redis`) take turns across the workers; and the summary counts what the workers collected.
"""

import fcntl
import os

import pytest
from django.conf import settings

SERVICE_MARKERS = ("postgres", "redis")


def _available_services() -> dict[str, bool]:
    return {
        "postgres": settings.DATABASES["default"]["ENGINE"].startswith("django.db.backends.postgresql"),
        "redis": settings.CELERY_BROKER_URL.split(":", 1)[0] in {"redis", "rediss", "amqp", "amqps", "pyamqp"},
    }


def _needs_services(item) -> bool:
    return any(item.get_closest_marker(name) for name in SERVICE_MARKERS)


def _catalogs_compile() -> None:
    """The translation catalogs compiled where a .po is newer than its .mo (they are built, not
    committed: `make install` compiles them; a bare `pytest` after editing a catalog does it here)."""
    import shutil
    import subprocess
    from pathlib import Path

    if not shutil.which("msgfmt"):
        return
    for po in sorted(Path(settings.BASE_DIR, "locale").glob("*/LC_MESSAGES/*.po")):
        mo = po.with_suffix(".mo")
        if not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime:
            partial = mo.with_suffix(f".mo.{os.getpid()}")
            subprocess.run(["msgfmt", "--check", "-o", str(partial), str(po)], check=True)
            partial.replace(mo)


def pytest_configure(config):
    if not hasattr(config, "workerinput"):  # the controller (or a run without xdist), before the workers
        _catalogs_compile()
    # Here and not at collection: under xdist only the workers collect, and a worker's error in
    # collection reaches the controller as an internal error without its message.
    missing = [name for name, present in _available_services().items() if not present]
    if missing and os.environ.get("CI") and os.environ.get("PIT_REQUIRE_SERVICES"):
        raise pytest.UsageError(
            f"service tests cannot run without {' and '.join(missing)}: DATABASE_URL must be postgres:// and "
            "CELERY_BROKER_URL redis:// or amqp:// when PIT_REQUIRE_SERVICES is set"
        )


def pytest_collection_modifyitems(config, items):
    available = _available_services()
    keep, deselected = [], []
    for item in items:
        missing = [name for name in SERVICE_MARKERS if item.get_closest_marker(name) and not available[name]]
        (deselected if missing else keep).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = keep
    config.stash[_service_counts] = (sum(1 for item in keep if _needs_services(item)), len(deselected))


_service_counts = pytest.StashKey[tuple[int, int]]()


def pytest_sessionfinish(session):
    """An xdist worker hands its counts to the controller, which collected nothing itself."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["service_counts"] = session.config.stash.get(_service_counts, (0, 0))


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """Every worker collects the whole selection: any one's counts are the run's."""
    counts = getattr(node, "workeroutput", {}).get("service_counts")
    if counts is not None:
        node.config.stash[_service_counts] = tuple(counts)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("CI") and _needs_services(item):
        report.outcome = "failed"
        report.longrepr = (
            f"service test skipped in CI (a skip of a PostgreSQL/Redis test is an error): {report.longrepr}"
        )


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    selected, deselected = config.stash.get(_service_counts, (0, 0))
    database = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    broker = settings.CELERY_BROKER_URL.split(":", 1)[0]
    terminalreporter.write_line(
        f"service tests (postgres/redis): {selected} ran on {database} + {broker}, {deselected} deselected"
    )


@pytest.fixture(autouse=True)
def _one_broker_test_at_a_time(request, tmp_path_factory):
    """A `redis` test flushes the broker, starts real workers on it and counts its queues: under
    xdist one such test runs at a time across the workers (a lock in the run's own temporary folder,
    taken before the test's fixtures start anything), or one test's worker would take another's
    tasks. xdist's own grouping (`xdist_group` with `--dist loadgroup`) cannot rename a test's node
    id under pytest 9.2, and so groups nothing."""
    if request.node.get_closest_marker("redis") is None or not os.environ.get("PYTEST_XDIST_WORKER"):
        yield
        return
    with (tmp_path_factory.getbasetemp().parent / "broker.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, after the test's teardown
        yield


@pytest.fixture(autouse=True, scope="session")
def _flush_past_the_insert_only_triggers():
    """pytest-django empties the database after a transactional test with Django's flush, which
    the triggers protecting the facts refuse (TRUNCATE, DELETE): let the flush through, in tests only."""
    from django.db.backends.base.operations import BaseDatabaseOperations

    from tests.facts import protection_off

    flush = BaseDatabaseOperations.execute_sql_flush

    def execute_sql_flush(self, sql_list):
        with protection_off(self.connection):
            flush(self, sql_list)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(BaseDatabaseOperations, "execute_sql_flush", execute_sql_flush)
        yield


@pytest.fixture
def role_groups(transactional_db):
    """The role groups with their permissions. A transactional test flushes the database after it
    ran, data-migration rows included; permissions come back (post_migrate), groups do not."""
    from django.contrib.auth.models import Group, Permission

    from pit.accounts.roles import ROLES

    for role, names in ROLES.items():
        group, _ = Group.objects.get_or_create(name=role)
        wanted = []
        for name in sorted(names):
            app_label, codename = name.split(".", 1)
            permission = Permission.objects.filter(content_type__app_label=app_label, codename=codename).first()
            if permission is not None:  # an audit model not installed in this build grants nothing
                wanted.append(permission)
        group.permissions.set(wanted)
    return ROLES


@pytest.fixture(autouse=True)
def _role_groups_in_transactional_tests(request):
    """Every transactional test starts with the role groups, whatever test flushed the database before it."""
    marker = request.node.get_closest_marker("django_db")
    transactional = (
        "transactional_db" in request.fixturenames
        or "live_server" in request.fixturenames
        or (marker is not None and (marker.kwargs.get("transaction") or (marker.args and marker.args[0])))
    )
    if transactional:
        request.getfixturevalue("role_groups")


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Each test starts with an empty cache: the API's failed-authentication counters live there."""
    from django.core.cache import cache

    cache.clear()
    yield
