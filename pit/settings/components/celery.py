"""Celery: the broker (a folder by default, Redis in production), task policy, queues and the beat schedule."""

import os
from typing import Any

from celery.schedules import crontab

from pit.settings.components.environment import VAR_DIR, env
from pit.settings.components.general import TIME_ZONE

# ---------------------------------------------------------------- The broker
# Embedded default: kombu's filesystem transport, a real broker in a folder, so that `make run`
# starts a real worker with no server. Production: redis://... or amqp://...
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="filesystem://localhost/")
CELERY_BROKER_IS_EMBEDDED = CELERY_BROKER_URL.startswith("filesystem://")
if CELERY_BROKER_URL in ("filesystem://", "filesystem:///"):
    # The transport ignores the host, but kombu warns "No hostname was supplied" on every connection
    # made without one (the worker's, beat's, each send's): name the one it would revert to. Celery
    # reads the variable itself before its configuration, so it is the variable that is corrected.
    CELERY_BROKER_URL = os.environ["CELERY_BROKER_URL"] = "filesystem://localhost/"
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, Any] = {}
if CELERY_BROKER_IS_EMBEDDED:
    _broker_dir = VAR_DIR / "broker"
    for _sub in ("queue", "processed", "control"):
        (_broker_dir / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
        # A file that holds no message is moved here and logged; the worker goes on (pit/core/broker.py).
        "parked_folder": str(_broker_dir / "parked"),
    }
    # kombu's filesystem transport, writing whole messages only and parking malformed ones.
    CELERY_BROKER_TRANSPORT = "pit.core.broker:Transport"
else:
    # Redis redelivers an unacknowledged message after this; it must exceed the longest task
    # (CELERY_TASK_TIME_LIMIT) or a slow task would run twice at once.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=3600),
    }
    # A send to a broker that is away must fail fast (the outbox keeps the task; the request must not
    # wait): one quick retry instead of kombu's default of several seconds, and a 2 s connect timeout.
    CELERY_BROKER_TRANSPORT_OPTIONS.update(
        socket_connect_timeout=2, max_retries=1, interval_start=0, interval_step=0.2, interval_max=0.2
    )
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# ---------------------------------------------------------------- Tasks
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TIMEZONE = TIME_ZONE
CELERY_TASK_TIME_LIMIT = env.int("CELERY_TASK_TIME_LIMIT", default=30 * 60)
CELERY_TASK_SOFT_TIME_LIMIT = env.int("CELERY_TASK_SOFT_TIME_LIMIT", default=25 * 60)
# Our tasks are idempotent: acknowledge after they ran, and give a message back when the worker
# dies under it, so that a killed worker never loses a reconciliation.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_SEND_TASK_EVENTS = False

# ---------------------------------------------------------------- Queues
# Queues by urgency (pit/core/queues.py; docs/operations/queues.md): what the floor waits on (reconciliations,
# the check of coups just recorded, the pickups) goes to `urgent`, sweeps, large batch checks and
# report exports to `bulk`. Each queue has workers of its own; any task not routed here goes to bulk.
# PIT_URGENT_VERIFY_MAX_COUPS decides where a check of coups goes.
CELERY_TASK_DEFAULT_QUEUE = "bulk"
CELERY_TASK_ROUTES = [
    "pit.core.queues.route_coups_verify",
    {
        "ledger.shoe_reconcile": {"queue": "urgent"},
        "ledger.shoes_reconcile_missing": {"queue": "urgent"},
        "core.outbox_dispatch": {"queue": "urgent"},
        "compliance.coups_sweep": {"queue": "bulk"},
        "reports.report_export_run": {"queue": "bulk"},
        "reports.report_exports_purge": {"queue": "bulk"},
        "reports.report_schedules_run": {"queue": "bulk"},
        "rollups.shoe_refresh": {"queue": "bulk"},
        "accounting.table_day_recheck": {"queue": "bulk"},
        "progressives.shoe_meters_read": {"queue": "bulk"},
        "rollups.catch_up": {"queue": "bulk"},
        "api.idempotency_keys_purge": {"queue": "bulk"},
        "controls.controls_check": {"queue": "bulk"},
        "notices.gather": {"queue": "urgent"},
        "tables.limits_apply_due": {"queue": "urgent"},
        "accounting.slip_series_check": {"queue": "bulk"},
    },
]

# ---------------------------------------------------------------- Periodic jobs (celery beat)
# In casino time (CELERY_TIMEZONE); the knobs they read are in pit.settings.components.pit.
CELERY_BEAT_SCHEDULE: dict[str, dict[str, Any]] = {
    # What the broker never got (an outage) or a killed worker lost is sent again from the outbox.
    "core.outbox_dispatch": {"task": "core.outbox_dispatch", "schedule": 20},
    # A lost message is not a lost reconciliation: closed shoes still without one are picked up.
    "ledger.shoes_reconcile_missing": {"task": "ledger.shoes_reconcile_missing", "schedule": 60},
    # Every coup of the last complete gaming day is re-verified at night (new rules apply to it too).
    "compliance.coups_sweep": {"task": "compliance.coups_sweep", "schedule": crontab(hour=7, minute=15)},
    # The hash chains of the last complete gaming day are recomputed at night; a break is a violation.
    "records.records_verify": {"task": "records.records_verify", "schedule": crontab(hour=7, minute=45)},
    # Every fact row outside the shoes' chains (the audit trail's events too) linked to its stream's chain.
    "records.streams_seal": {"task": "records.streams_seal", "schedule": 60},
    # Each gaming day's chain heads appended, signed, to PIT_RECORDS_ANCHOR_DIR: the open day's as they move,
    # an ended day's final entry (pit.records.anchors), every 10 minutes.
    "records.anchor_heads": {"task": "records.anchor_heads", "schedule": 600},
    # Open tables whose feed went quiet (PIT_PROTECTION_STALE_FEED_MINUTES), every minute.
    "protection.stale_feeds_check": {"task": "protection.stale_feeds_check", "schedule": 60},
    # Dealers' error rates for the current and the previous gaming day, every 10 minutes.
    "protection.dealer_error_rates_check": {"task": "protection.dealer_error_rates_check", "schedule": 600},
    # Patrons tested across seats, tables and days (PIT_PROTECTION_PATRON_DAYS), every night.
    "protection.patron_checks": {"task": "protection.patron_checks", "schedule": crontab(hour=7, minute=30)},
    # The patrons' cash of the current and the previous gaming day checked again (CTR worksheets,
    # identifications, suspicious patterns: pit.cash.patterns), every 5 minutes.
    "cash.cash_check_days": {"task": "cash.cash_check_days", "schedule": 5 * 60},
    # What the pit owes surveillance and the regulator (pit.notices): live alarms, large fills and
    # off-schedule tables notified, late acknowledgements and near deadlines found, every minute.
    "notices.gather": {"task": "notices.gather", "schedule": 60},
    # Limit changes announced with notice put in force when their time comes, every minute.
    "tables.limits_apply_due": {"task": "tables.limits_apply_due", "schedule": 60},
    # The fill and credit slip series: a number neither used nor voided below one used, every 15 minutes.
    "accounting.slip_series_check": {"task": "accounting.slip_series_check", "schedule": 15 * 60},
    # Background export files older than PIT_REPORT_EXPORT_KEEP_DAYS, every 6 hours.
    "reports.report_exports_purge": {"task": "reports.report_exports_purge", "schedule": 6 * 60 * 60},
    # Report schedules whose hour has come on a day they are due (each runs once that day), every 5 minutes.
    "reports.report_schedules_run": {"task": "reports.report_schedules_run", "schedule": 5 * 60},
    # The last PIT_ROLLUPS_CATCH_UP_DAYS complete days not yet rolled up, every 15 minutes.
    "rollups.catch_up": {"task": "rollups.catch_up", "schedule": 15 * 60},
    # PIT_PARTITION_MONTHS_AHEAD months of partitions ahead of the current one, every night.
    "archive.partitions_ensure": {"task": "archive.partitions_ensure", "schedule": crontab(hour=5, minute=30)},
    # The pit's internal controls (cards, keys, shift handovers) over the last PIT_CONTROLS_CHECK_DAYS days.
    "controls.controls_check": {"task": "controls.controls_check", "schedule": 15 * 60},
    # Hourly: keys live at least PIT_IDEMPOTENCY_TTL_HOURS, at most an hour more.
    "api.idempotency_keys_purge": {"task": "api.idempotency_keys_purge", "schedule": 60 * 60},
}
# Where beat remembers when each periodic task last ran (across restarts): under PIT_VAR_DIR, so
# moving that folder moves it too (the systemd units may write only there).
CELERY_BEAT_SCHEDULE_FILENAME = env.str("CELERY_BEAT_SCHEDULE_FILENAME", default=str(VAR_DIR / "celerybeat-schedule"))
