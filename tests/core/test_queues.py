"""The embedded default runs a worker per queue, as production does, and its filesystem broker
keeps the queues apart: a reconciliation is never behind a bulk task in one queue."""

from pathlib import Path

import pytest
from django.conf import settings

from pit.celery import app
from pit.compliance.tasks import coups_verify
from pit.core.management.commands.runpit import celery_commands
from pit.ledger.tasks import shoe_reconcile
from pit.reports.tasks import report_export_run


def test_runpit_starts_a_worker_for_each_queue_and_beat():
    labelled = celery_commands("python", "/var/pit/celerybeat-schedule")
    assert [label for label, _ in labelled] == ["urgent worker", "bulk worker", "beat"]
    commands = [command for _, command in labelled]
    workers = [command for command in commands if "worker" in command]
    assert [command[command.index("-Q") + 1] for command in workers] == ["urgent", "bulk"]
    assert [command for command in commands if "beat" in command] == [
        ["python", "-m", "celery", "-A", "pit", "beat", "-s", "/var/pit/celerybeat-schedule", "--loglevel", "WARNING"]
    ]


@pytest.fixture
def sent_for_real():
    """Sends go to the embedded broker's folder (no worker here); what this test sent is removed after."""
    if not settings.CELERY_BROKER_IS_EMBEDDED:
        pytest.skip("the embedded default's filesystem broker only")
    folder = Path(settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_out"])
    before = set(folder.iterdir())
    app.conf.task_always_eager = False
    try:
        yield lambda: sorted(path.name.split(".", 1)[1] for path in set(folder.iterdir()) - before)
    finally:
        app.conf.task_always_eager = True
        for path in set(folder.iterdir()) - before:
            path.unlink(missing_ok=True)


def test_the_embedded_broker_routes_tasks_to_their_queue(sent_for_real):
    shoe_reconcile.apply_async(args=[1])
    coups_verify.apply_async(args=[[1, 2, 3]])
    coups_verify.apply_async(args=[list(range(1, settings.PIT_URGENT_VERIFY_MAX_COUPS + 2))])
    report_export_run.apply_async(args=[1])

    assert sent_for_real() == ["bulk.msg", "bulk.msg", "urgent.msg", "urgent.msg"]
