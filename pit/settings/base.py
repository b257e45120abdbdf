"""Settings shared by every environment, read from the environment with django-environ.

With nothing configured the product runs embedded on one machine: SQLite (WAL, IMMEDIATE
transactions) and a Celery broker on the local filesystem, with no server to install.
"""

import os
from pathlib import Path

import environ
from celery.schedules import crontab

BASE_DIR = Path(__file__).resolve().parent.parent.parent
env = environ.Env()
if (BASE_DIR / ".env").exists():
    env.read_env(BASE_DIR / ".env", overwrite=False)
# Where the embedded default keeps its SQLite file, broker folder and report files.
VAR_DIR = Path(env.str("PIT_VAR_DIR", default=str(BASE_DIR / "var")))

# ---------------------------------------------------------------- General
DEBUG = env.bool("DJANGO_DEBUG", default=False)
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="embedded-default-insecure-key-change-me-in-production")
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])
# The casino's time zone: gaming days and reports are in it.
TIME_ZONE = env.str("DJANGO_TIME_ZONE", default="UTC")
LANGUAGE_CODE = "en-us"
FORMAT_MODULE_PATH = ["pit.formats"]  # ISO dates and 24-hour times on every page
USE_I18N = True
USE_TZ = True
ROOT_URLCONF = "pit.urls"
WSGI_APPLICATION = "pit.wsgi.application"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# ---------------------------------------------------------------- Databases
# DATABASE_URL=postgres://user@host:5432/name in production; SQLite file by default.
VAR_DIR.mkdir(parents=True, exist_ok=True)
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'pit.sqlite3'}")}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("DJANGO_CONN_MAX_AGE", default=60))
# A kept connection is checked before a request reuses it: after PostgreSQL restarts or drops
# connections, the next request reconnects instead of failing with a 500.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers go on while one writer writes; IMMEDIATE takes the write lock at BEGIN so
    # that two writers queue on the busy timeout instead of failing half-way with "locked".
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        # recursive_triggers: an INSERT OR REPLACE over a fact's unique key fires the DELETE
        # trigger that refuses it, instead of deleting the old row silently (pit.core.immutable).
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; "
        "PRAGMA recursive_triggers=ON;",
    }
DATABASE_IS_POSTGRES = DATABASES["default"]["ENGINE"].startswith("django.db.backends.postgresql")
# A streaming replica of that database, for reports and exports (pit.core.replica). Default: none.
if env.str("DATABASE_REPLICA_URL", default=""):
    DATABASES["replica"] = env.db("DATABASE_REPLICA_URL")
    DATABASES["replica"].setdefault("CONN_MAX_AGE", DATABASES["default"]["CONN_MAX_AGE"])
    # Tests read the replica as the test database itself (a real one is tested by tests/core/test_replica.py).
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}
DATABASE_ROUTERS = ["pit.core.replica.ReplicaRouter"]
# django-pgtrigger's trigger functions (the audit trail's) first read the setting `pgtrigger.ignore`;
# on a connection that never set it the read raises, and the function catches the error. Catching it
# aborts a subtransaction, which costs PostgreSQL a scan of every deferred check the transaction has
# queued: an audited row written after a large import or batch cost 6-19 ms instead of 0.05 ms
# (generating bench_year's year took 748 s, the reconciliations' audit alone ~700 s). Every
# connection therefore starts with it set to "nothing ignored" (a startup option: no round trip).
for _database in DATABASES.values():
    if _database["ENGINE"].startswith("django.db.backends.postgresql"):
        _options = _database.setdefault("OPTIONS", {})
        _options["options"] = f"{_options.get('options', '')} -c pgtrigger.ignore={{}}".strip()
# Least privilege (PostgreSQL): the app connects with DATABASE_URL as a runtime role that owns
# nothing; `manage.py migrate` connects with this URL instead, as the schema's owner, and then
# grants the runtime role what the services need (pit.core.immutable.runtime_privileges_sql).
# Empty: migrate as DATABASE_URL (one role, the embedded default and development).
DATABASE_MIGRATE_URL = env.str("DATABASE_MIGRATE_URL", default="")

# ---------------------------------------------------------------- Apps
DJANGO_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
]
THIRD_PARTY_APPS = [
    "rest_framework",
    "axes",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "pgtrigger",
    "pghistory",
    "pghistory.admin",
]
LOCAL_APPS = [
    "pit.core",
    "pit.accounts",
    "pit.tables",
    "pit.paytables",
    "pit.shoes",
    "pit.ledger",
    "pit.records",
    "pit.archive",
    "pit.compliance",
    "pit.accounting",
    "pit.dealers",
    "pit.protection",
    "pit.reports",
    "pit.rollups",
    "pit.dashboard",
    "pit.floor",
    "pit.api",
]
INSTALLED_APPS = DJANGO_APPS + THIRD_PARTY_APPS + LOCAL_APPS

# ---------------------------------------------------------------- Middleware, templates, static
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "pit.api.middleware.AsciiNumbersInQueryMiddleware",
    # One log line per 401/403 (pit.access); the admin's idle timeout (PIT_ADMIN_IDLE_TIMEOUT_MINUTES).
    "pit.accounts.access.AccessDeniedLogMiddleware",
    "pit.accounts.access.IdleSessionTimeoutMiddleware",
]
if DATABASE_IS_POSTGRES:
    # Tags every audit event written by a request with the user (or device), URL and address. It
    # works by adding a set_config() call to each SQL statement, which only PostgreSQL understands.
    MIDDLEWARE.append("pit.accounts.audit.PitHistoryMiddleware")
else:
    # SQLite has no audit triggers: the audit trail is written from Python with the request's user.
    MIDDLEWARE.append("pit.accounts.audit.AuditContextMiddleware")
# django-axes last: it turns a locked-out admin login into its lockout answer.
MIDDLEWARE.append("axes.middleware.AxesMiddleware")
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]
STATIC_URL = "/static/"
STATIC_ROOT = env.str("DJANGO_STATIC_ROOT", default=str(BASE_DIR / "staticfiles"))
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_ROOT = env.str("DJANGO_MEDIA_ROOT", default=str(VAR_DIR / "media"))
MEDIA_URL = "/media/"

# ---------------------------------------------------------------- Auth
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "admin:login"
# django-axes first: it refuses a login attempt for a locked-out username and address before the
# password is even checked (pit.accounts.access.LoginAttemptsBackend; logins outside a request pass).
AUTHENTICATION_BACKENDS = [
    "pit.accounts.access.LoginAttemptsBackend",
    "django.contrib.auth.backends.ModelBackend",
]

# ---------------------------------------------------------------- Access hardening
# Proxies in front of the app that append to X-Forwarded-For (nginx: 1). The client's address, for
# throttling and lockouts, is the one the outermost trusted proxy saw; 0: REMOTE_ADDR.
PIT_TRUSTED_PROXIES = env.int("PIT_TRUSTED_PROXIES", default=0)
# Failed admin logins for one username from one address before both are locked out for a while.
AXES_FAILURE_LIMIT = env.int("PIT_ADMIN_LOGIN_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = env.float("PIT_ADMIN_LOCKOUT_HOURS", default=0.25)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "pit.accounts.access.client_address"
AXES_VERBOSE = False
# Failed API authentications (a wrong device key or staff token) allowed per client address and
# per key prefix within the window; beyond it that address or prefix gets 429 with Retry-After.
PIT_API_AUTH_FAILURE_LIMIT = env.int("PIT_API_AUTH_FAILURE_LIMIT", default=10)
PIT_API_AUTH_FAILURE_WINDOW = env.int("PIT_API_AUTH_FAILURE_WINDOW", default=300)
# Staff API tokens expire after this many days at most (manage.py create_staff_token --days).
PIT_STAFF_TOKEN_DAYS = env.int("PIT_STAFF_TOKEN_DAYS", default=30)
# A staff session with no request for this long is signed out (the dashboard's refresh does not count).
PIT_ADMIN_IDLE_TIMEOUT_MINUTES = env.int("PIT_ADMIN_IDLE_TIMEOUT_MINUTES", default=30)
PIT_IDLE_EXEMPT_PATHS = ["/admin/pit/dashboard/data/"]
# The cache holds the API's failed-authentication counters: Redis in production so that every web
# worker counts together (redis://127.0.0.1:6379/2); default: memory of the one process.
CACHES = {"default": env.cache("PIT_CACHE_URL", default="locmemcache://")}
if CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
    CACHES["default"]["BACKEND"] = "pit.core.cache.RedisCache"  # one client per pool, not per call

# ---------------------------------------------------------------- Logging
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("DJANGO_LOG_LEVEL", default="INFO")},
}

# ---------------------------------------------------------------- Celery
# Embedded default: kombu's filesystem transport, a real broker in a folder, so that `make run`
# starts a real worker with no server. Production: redis://... or amqp://...
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="filesystem://localhost/")
CELERY_BROKER_IS_EMBEDDED = CELERY_BROKER_URL.startswith("filesystem://")
if CELERY_BROKER_URL in ("filesystem://", "filesystem:///"):
    # The transport ignores the host, but kombu warns "No hostname was supplied" on every connection
    # made without one (the worker's, beat's, each send's): name the one it would revert to. Celery
    # reads the variable itself before its configuration, so it is the variable that is corrected.
    CELERY_BROKER_URL = os.environ["CELERY_BROKER_URL"] = "filesystem://localhost/"
CELERY_BROKER_TRANSPORT_OPTIONS = {}
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
    }
else:
    # Redis redelivers an unacknowledged message after this; it must exceed the longest task
    # (CELERY_TASK_TIME_LIMIT) or a slow task would run twice at once.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=3600),
    }
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
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
# Queues by urgency (pit/core/queues.py; README "Queues"): what the floor waits on (reconciliations,
# the check of coups just recorded, the pickups) goes to `urgent`, sweeps, large batch checks and
# report exports to `bulk`. Each queue has workers of its own; any task not routed here goes to bulk.
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
        "rollups.shoe_refresh": {"queue": "bulk"},
        "rollups.catch_up": {"queue": "bulk"},
        "api.idempotency_keys_purge": {"queue": "bulk"},
    },
]
# A check of more coups than this at once (a store-and-forward batch) goes to the bulk queue.
PIT_URGENT_VERIFY_MAX_COUPS = env.int("PIT_URGENT_VERIFY_MAX_COUPS", default=50)
# A send to a broker that is away must fail fast (the outbox keeps the task; the request must not
# wait): one quick retry instead of kombu's default of several seconds, and a 2 s connect timeout.
if not CELERY_BROKER_IS_EMBEDDED:
    CELERY_BROKER_TRANSPORT_OPTIONS.update(
        socket_connect_timeout=2, max_retries=1, interval_start=0, interval_step=0.2, interval_max=0.2
    )
# The outbox (pit.core.models.OutboxMessage): a task owed by a write is kept in the database with
# it; the pickup sends what the broker never got, and sends again a reconciliation not completed this
# many seconds after its last send (a coup check 4x later; doubling each time), e.g. one lost with a
# killed worker.
PIT_OUTBOX_REDISPATCH_SECONDS = env.int("PIT_OUTBOX_REDISPATCH_SECONDS", default=45)
# Periodic jobs (celery beat), in casino time (CELERY_TIMEZONE).
CELERY_BEAT_SCHEDULE: dict = {
    # What the broker never got (an outage) or a killed worker lost is sent again from the outbox.
    "core.outbox_dispatch": {"task": "core.outbox_dispatch", "schedule": 20},
    # A lost message is not a lost reconciliation: closed shoes still without one are picked up.
    "ledger.shoes_reconcile_missing": {"task": "ledger.shoes_reconcile_missing", "schedule": 60},
    # Every coup of the last complete gaming day is re-verified at night (new rules apply to it too).
    "compliance.coups_sweep": {"task": "compliance.coups_sweep", "schedule": crontab(hour=7, minute=15)},
    # The hash chains of the last complete gaming day are recomputed at night; a break is a violation.
    "records.records_verify": {"task": "records.records_verify", "schedule": crontab(hour=7, minute=45)},
}
# Where beat remembers when each periodic task last ran (across restarts): under PIT_VAR_DIR, so
# moving that folder moves it too (the systemd units may write only there).
CELERY_BEAT_SCHEDULE_FILENAME = env.str("CELERY_BEAT_SCHEDULE_FILENAME", default=str(VAR_DIR / "celerybeat-schedule"))
# Deliveries of one message (its worker lost under it each time) before the task is parked as failed.
PIT_TASK_MAX_DELIVERIES = env.int("PIT_TASK_MAX_DELIVERIES", default=5)

# ---------------------------------------------------------------- The pit
# The gaming day starts at this hour (casino time, TIME_ZONE); coups before it count to the day before.
PIT_GAMING_DAY_START_HOUR = env.int("PIT_GAMING_DAY_START_HOUR", default=6)
PIT_DEFAULT_CURRENCY = env.str("PIT_DEFAULT_CURRENCY", default="USD")
# A commission box variance within this amount (per seat) raises no violation.
PIT_BOX_VARIANCE_TOLERANCE = env.str("PIT_BOX_VARIANCE_TOLERANCE", default="0.00")
# Game protection: a shoe's card sequence is compared with every shoe of the pit on its gaming days
# and this many gaming days either side (shoe_sequence_repeat).
PIT_PROTECTION_REPEAT_DAYS = env.int("PIT_PROTECTION_REPEAT_DAYS", default=1)
# The sweep (`reverify`, the nightly beat task) on PostgreSQL: the processes it runs in (the one that
# started it indexes the shoe sequences in shoe order, then all take chunks of shoes from a shared
# counter). 1: all in one process. Default 2 (README, bench_sweep).
PIT_SWEEP_PROCESSES = env.int("PIT_SWEEP_PROCESSES", default=2)
# An open table whose dealing shoe has sent no coup for this many minutes is an alarm (stale_feed),
# looked for every minute; more coups than this within an hour at one table is coup_rate_high.
PIT_PROTECTION_STALE_FEED_MINUTES = env.int("PIT_PROTECTION_STALE_FEED_MINUTES", default=10)
PIT_PROTECTION_MAX_COUPS_PER_HOUR = env.int("PIT_PROTECTION_MAX_COUPS_PER_HOUR", default=120)
# side_bet_advantage_play: a seat's side bets on positive-expectation coups, per gaming day, as
# unlikely as this (or less) for a player betting at random.
PIT_PROTECTION_SIDE_BET_P_VALUE = env.float("PIT_PROTECTION_SIDE_BET_P_VALUE", default=1e-6)
# win_deviation: a table's (and a seat's) win against theoretical beyond this many standard deviations,
# either way, over the gaming day, the last 7 gaming days and the shoe; scopes with fewer wagers
# than PIT_PROTECTION_Z_MIN_WAGERS are not judged (the normal approximation needs them). 5, not 4:
# a 40-table pit makes about 2,800 seat tests a day (7 seats x 8 shoes, a day, a week per table),
# and at 4 (p = 6.3e-5 each) that is about 65 false alarms a year; at 5 (p = 5.7e-7) about one
# every two years (README, "Game protection").
PIT_PROTECTION_Z_DAY = env.float("PIT_PROTECTION_Z_DAY", default=5.0)
PIT_PROTECTION_Z_WEEK = env.float("PIT_PROTECTION_Z_WEEK", default=5.0)
PIT_PROTECTION_Z_SHOE = env.float("PIT_PROTECTION_Z_SHOE", default=5.0)
PIT_PROTECTION_Z_MIN_WAGERS = env.int("PIT_PROTECTION_Z_MIN_WAGERS", default=100)
CELERY_BEAT_SCHEDULE["protection.stale_feeds_check"] = {"task": "protection.stale_feeds_check", "schedule": 60}
# dealer_error_rate: a dealer's dealing and paying errors over a gaming day, against this accepted
# rate per 1,000 coups; a count this unlikely (or less) at that rate (Poisson) is a finding. Judged
# by beat every 10 minutes for the current and the previous gaming day.
PIT_PROTECTION_DEALER_ERRORS_PER_1000 = env.float("PIT_PROTECTION_DEALER_ERRORS_PER_1000", default=5.0)
PIT_PROTECTION_DEALER_ERROR_P_VALUE = env.float("PIT_PROTECTION_DEALER_ERROR_P_VALUE", default=1e-5)
CELERY_BEAT_SCHEDULE["protection.dealer_error_rates_check"] = {
    "task": "protection.dealer_error_rates_check",
    "schedule": 600,
}
# Reports covering more gaming days than this run in the background (Celery) and are downloaded when
# ready; up to it they stream straight to the browser (and the JSON API refuses longer ranges).
PIT_REPORT_INLINE_MAX_DAYS = env.int("PIT_REPORT_INLINE_MAX_DAYS", default=31)
# ... and so do reports estimated at more rows than this, whatever their range (a month of ledger
# detail can take longer to write than a request may last).
PIT_REPORT_INLINE_MAX_ROWS = env.int("PIT_REPORT_INLINE_MAX_ROWS", default=20000)
# Background export files are deleted this many days after they were written (the row stays, expired).
PIT_REPORT_EXPORT_KEEP_DAYS = env.int("PIT_REPORT_EXPORT_KEEP_DAYS", default=7)
CELERY_BEAT_SCHEDULE["reports.report_exports_purge"] = {
    "task": "reports.report_exports_purge",
    "schedule": 6 * 60 * 60,
}
# Daily rollups (pit.rollups): table results and the master game report read complete, fresh gaming
# days from them (False: from the detail only). Every 15 minutes beat rolls up the last
# PIT_ROLLUPS_CATCH_UP_DAYS complete days not yet rolled up, and refreshes any table-day of them
# whose detail changed without owing a refresh; older days: `manage.py rebuild_rollups`.
PIT_ROLLUPS_READ = env.bool("PIT_ROLLUPS_READ", default=True)
PIT_ROLLUPS_CATCH_UP_DAYS = env.int("PIT_ROLLUPS_CATCH_UP_DAYS", default=3)
CELERY_BEAT_SCHEDULE["rollups.catch_up"] = {"task": "rollups.catch_up", "schedule": 15 * 60}

# ---------------------------------------------------------------- Partitions and archives
# PostgreSQL: coups, wagers and commission entries are partitioned by month of gaming day
# (pit.core.partitions); beat creates this many months ahead of the current one, every night.
PIT_PARTITION_MONTHS_AHEAD = env.int("PIT_PARTITION_MONTHS_AHEAD", default=3)
CELERY_BEAT_SCHEDULE["archive.partitions_ensure"] = {
    "task": "archive.partitions_ensure",
    "schedule": crontab(hour=5, minute=30),
}
# Months of gaming days kept in the database: `manage.py archive_month` refuses a month that ends
# within this many months before the current gaming day (regulation: 5-7 years).
PIT_RETENTION_MONTHS = env.int("PIT_RETENTION_MONTHS", default=84)
# Where `manage.py archive_month` writes a month's rows (one CSV per table and a manifest).
PIT_ARCHIVE_DIR = env.str("PIT_ARCHIVE_DIR", default=str(VAR_DIR / "archive"))

# ---------------------------------------------------------------- Table accounting
# pit.accounting: the length of a shift for chip inventories, fills, credits and
# drops (24: one period per gaming day; 8: three shifts; 12: two).
PIT_ACCOUNTING_SHIFT_HOURS = env.int("PIT_ACCOUNTING_SHIFT_HOURS", default=24)
# A table-day whose statutory win differs from the house win of its recorded wagers by more than this
# (major units, a decimal string) is a win_reconciliation_variance violation.
PIT_WIN_RECONCILIATION_TOLERANCE = env.str("PIT_WIN_RECONCILIATION_TOLERANCE", default="0.00")
# Whether markers (credit instruments) go into the drop box and are counted in the drop.
PIT_DROP_MARKERS = env.bool("PIT_DROP_MARKERS", default=True)
# Win-to-drop investigation: "points" flags a table-day more than PIT_HOLD_RULE_VALUE points from the
# table's win-to-drop over the PIT_HOLD_RULE_PRIOR_DAYS before it (Kansas: 3); "interval" flags one
# outside the PIT_HOLD_RULE_VALUE % interval of its daily win-to-drop over them (Maryland: 95, 365 days).
PIT_HOLD_RULE = env.str("PIT_HOLD_RULE", default="points")
PIT_HOLD_RULE_VALUE = env.str("PIT_HOLD_RULE_VALUE", default="3")
PIT_HOLD_RULE_PRIOR_DAYS = env.int("PIT_HOLD_RULE_PRIOR_DAYS", default=365)
# Adjustments to closed gaming days of at least this amount (major units) are in the monthly report.
PIT_ADJUSTMENT_REPORT_THRESHOLD = env.str("PIT_ADJUSTMENT_REPORT_THRESHOLD", default="2000.00")

# ---------------------------------------------------------------- The API (pit.api, under /api/v1/)
REST_FRAMEWORK = {
    # Floor devices: "Authorization: Api-Key <key>"; staff: "Authorization: Token <token>" or the
    # admin session. The first class answers 401s with its WWW-Authenticate challenge.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "pit.api.authentication.DeviceKeyAuthentication",
        "pit.api.authentication.StaffTokenAuthentication",
        "pit.api.authentication.StaffSessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["pit.api.permissions.PitAccess"],
    "DEFAULT_PARSER_CLASSES": ["pit.api.parsers.PitJSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "pit.api.pagination.PitPagination",
    "DEFAULT_SCHEMA_CLASS": "pit.api.schema.PitAutoSchema",
    "EXCEPTION_HANDLER": "pit.api.errors.exception_handler",
    "COERCE_DECIMAL_TO_STRING": True,
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "pit API",
    "VERSION": "1.0.0",
    "DESCRIPTION": "See pit/api/docs.py (API_DESCRIPTION).",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI served from our own static files: pit runs on networks with no way out.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "WinnerEnum": ["player", "banker", "tie"],
        "ErrorCodeEnum": "pit.api.errors.ERROR_CODES",
        "PaytableFactEnum": "pit.api.serializers.FACT_CHOICES",
        "RoundingModeEnum": "pit.api.serializers.ROUNDING_MODES",
    },
    # A field that may be null is a nullable enum, not a oneOf with a separate NullEnum.
    "ENUM_ADD_EXPLICIT_BLANK_NULL_CHOICE": False,
    # Descriptions are written for integrators (summary=, description=, help_text=); class docstrings
    # are for developers and stay out of the schema.
    "DISABLE_DOCSTRING_DESCRIPTIONS": True,
    "PREPROCESSING_HOOKS": [],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "pit.api.schema.postprocess_description",
    ],
}
# The largest API request body, in bytes (a 413 naming it beyond). 8 MiB holds the largest batch
# (5,000 coups) with 7 wagers a coup and every field given, even pretty-printed (5.7 MB).
PIT_API_MAX_BODY_BYTES = env.int("PIT_API_MAX_BODY_BYTES", default=8 * 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = PIT_API_MAX_BODY_BYTES
# An Idempotency-Key and the response it gave are kept at least this long, then purged.
PIT_IDEMPOTENCY_TTL_HOURS = env.int("PIT_IDEMPOTENCY_TTL_HOURS", default=24)
CELERY_BEAT_SCHEDULE["api.idempotency_keys_purge"] = {
    "task": "api.idempotency_keys_purge",
    "schedule": 60 * 60,  # hourly: keys live at least PIT_IDEMPOTENCY_TTL_HOURS, at most an hour more
}
